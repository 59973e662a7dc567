//! Compiled vector scopes with VMI ops (`pto.vmi.*`) == the interpreter:
//! random loops over f32, f16, bf16, si32, i32, si16 and ui16 vectors of
//! one to four registers (and of sizes that do not fill whole registers,
//! which run in the host), a `create_mask` tail, chains of lane-wise ops
//! (masked or not, some with `pmode = "merge"`), scalar broadcasts and
//! selects, f16/bf16 results widened to f32 (`vcvt`), run interpreted, compiled and with `--crosscheck`; outputs,
//! instruction counts and diagnostics must agree, and a scope of only
//! natively compiled ops must hand nothing to the host.

mod common;

use common::Ran;
use proptest::prelude::*;
use pto_vm::JitMode;

/// Lane type of a generated scope: (VMI name, GM/UB pointer name, bytes,
/// float, the scalar type `vbrc` takes, empty when no arith constant has
/// the lanes' type).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Ty {
    vmi: &'static str,
    ptr: &'static str,
    bytes: usize,
    float: bool,
    scalar: &'static str,
}

const TYS: &[Ty] = &[
    Ty {
        vmi: "f32",
        ptr: "f32",
        bytes: 4,
        float: true,
        scalar: "f32",
    },
    Ty {
        vmi: "f16",
        ptr: "f16",
        bytes: 2,
        float: true,
        scalar: "f16",
    },
    Ty {
        vmi: "bf16",
        ptr: "bf16",
        bytes: 2,
        float: true,
        scalar: "bf16",
    },
    Ty {
        vmi: "si32",
        ptr: "si32",
        bytes: 4,
        float: false,
        scalar: "",
    },
    Ty {
        vmi: "i32",
        ptr: "i32",
        bytes: 4,
        float: false,
        scalar: "i32",
    },
    Ty {
        vmi: "si16",
        ptr: "si16",
        bytes: 2,
        float: false,
        scalar: "",
    },
    Ty {
        vmi: "ui16",
        ptr: "ui16",
        bytes: 2,
        float: false,
        scalar: "",
    },
];

/// One op of the chain applied to the running value `%v`.
#[derive(Clone, Debug)]
enum Step {
    /// `%v = op %v, %b` (masked by the tail mask, merging or not).
    Bin(&'static str, bool, bool),
    /// `%v = op %v` (masked, merging).
    Un(&'static str, bool, bool),
    /// `%v = vmul %v, vbrc(scalar)`.
    Scale,
    /// `%v = vsel %tail, %v, %b` (native since session 21's VSel form).
    Sel,
}

impl Step {
    /// Whether the step compiles natively (for whole-register vectors).
    fn native(&self, ty: Ty) -> bool {
        match self {
            Step::Bin(op, _, merge) => !merge && (ty.float || *op != "vdiv"),
            Step::Un(op, _, merge) => !merge && ty.float && *op != "vexp",
            // f16/bf16 broadcasts of a float scalar round twice through f32
            Step::Scale => !matches!(ty.vmi, "f16" | "bf16"),
            Step::Sel => true,
        }
    }
}

const FLOAT_BIN: &[&str] = &["vadd", "vsub", "vmul", "vdiv", "vmax", "vmin"];
const INT_BIN: &[&str] = &[
    "vadd", "vsub", "vmul", "vmax", "vmin", "vand", "vor", "vxor",
];
const FLOAT_UN: &[&str] = &["vabs", "vneg", "vsqrt"];
/// Signed lanes only (the verifier's rule for `vabs`).
const INT_UN: &[&str] = &["vabs"];

fn step(ty: Ty) -> impl Strategy<Value = Step> {
    let (bin, un) = if ty.float {
        (FLOAT_BIN, FLOAT_UN)
    } else {
        (INT_BIN, INT_UN)
    };
    // unsigned lanes have no unary op here: an add instead
    let un_ok = ty.float || ty.vmi.starts_with("si");
    prop_oneof![
        4 => (proptest::sample::select(bin), any::<bool>(), prop::bool::weighted(0.15))
            .prop_map(|(op, m, merge)| Step::Bin(op, m || merge, merge)),
        2 => (proptest::sample::select(un), any::<bool>(), prop::bool::weighted(0.15))
            .prop_map(move |(op, m, merge)| if un_ok {
                Step::Un(op, m || merge, merge)
            } else {
                Step::Bin("vadd", m || merge, merge)
            }),
        1 => Just(if ty.scalar.is_empty() { Step::Sel } else { Step::Scale }),
        1 => Just(Step::Sel),
    ]
}

/// A kernel: x, y and z hold `3 * lanes` elements; the scope walks them
/// `lanes` at a time with a tail mask of `total - off` lanes, applies the
/// steps to x's vector (y's is the second operand) and stores the result
/// under the tail mask.
fn kernel(ty: Ty, lanes: usize, total: usize, steps: &[Step], widen: bool) -> String {
    let n = 3 * lanes;
    let bytes = n * ty.bytes;
    let v = format!("!pto.vmi.vreg<{lanes}x{}>", ty.vmi);
    let wide = format!("!pto.vmi.vreg<{lanes}xf32>");
    let m = format!("!pto.vmi.mask<{lanes}xpred>");
    let mut body = String::new();
    let mut cur = "%a".to_string();
    for (i, s) in steps.iter().enumerate() {
        let out = format!("%s{i}");
        let tail = |masked: bool, merge: bool| -> (String, String, String) {
            (
                if masked { ", %m".into() } else { String::new() },
                if masked {
                    format!(", {m}")
                } else {
                    String::new()
                },
                if merge {
                    " {pmode = \"merge\"}".into()
                } else {
                    String::new()
                },
            )
        };
        match s {
            Step::Bin(op, masked, merge) => {
                let (mo, mt, attr) = tail(*masked, *merge);
                // nor a bf16 div
                let op = if ty.vmi == "bf16" && *op == "vdiv" {
                    "vmul"
                } else {
                    op
                };
                body += &format!(
                    "        {out} = pto.vmi.{op} {cur}, %b{mo}{attr} : {v}, {v}{mt} -> {v}\n"
                );
            }
            Step::Un(op, masked, merge) => {
                let (mo, mt, attr) = tail(*masked, *merge);
                // the verifier has no bf16 sqrt or neg
                let op = if ty.vmi == "bf16" { "vabs" } else { op };
                body += &format!("        {out} = pto.vmi.{op} {cur}{mo}{attr} : {v}{mt} -> {v}\n");
            }
            Step::Scale => {
                body += &format!("        %k{i} = pto.vmi.vbrc %sc : {} -> {v}\n", ty.scalar);
                body += &format!("        {out} = pto.vmi.vmul {cur}, %k{i} : {v}, {v} -> {v}\n");
            }
            Step::Sel => {
                body +=
                    &format!("        {out} = pto.vmi.vsel %m, {cur}, %b : {m}, {v}, {v} -> {v}\n");
            }
        }
        cur = out;
    }
    let sc = match (ty.float, ty.scalar) {
        (true, t) => format!("-1.25 : {t}"),
        (false, "") => "-7 : i32".to_string(),
        (false, t) => format!("-7 : {t}"),
    };
    let p = ty.ptr;
    // with `widen`, the result is converted to f32 lanes and z holds f32
    let (zp, zbytes, zv) = if widen {
        body += &format!("        %wide = pto.vmi.vcvt {cur} : {v} -> {wide}\n");
        cur = "%wide".into();
        ("f32", n * 4, wide.clone())
    } else {
        (p, bytes, v.clone())
    };
    format!(
        r#"module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%x: !pto.ptr<{p}, gm>, %y: !pto.ptr<{p}, gm>, %z: !pto.ptr<{zp}, gm>) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %cl = arith.constant {lanes} : index
    %cn = arith.constant {n} : index
    %ct = arith.constant {total} : index
    %sc = arith.constant {sc}
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %cb = arith.constant {bytes} : i64
    %czb = arith.constant {zbytes} : i64
    %cy = arith.constant 8192 : i64
    %cz = arith.constant 16384 : i64
    %ux = pto.castptr %c0_i64 : i64 -> !pto.ptr<{p}, ub>
    %uy = pto.castptr %cy : i64 -> !pto.ptr<{p}, ub>
    %uz = pto.castptr %cz : i64 -> !pto.ptr<{zp}, ub>
    pto.mte_gm_ub %x, %ux, %c0_i64, %cb nburst(%c1_i64, %cb, %cb) : !pto.ptr<{p}, gm>, !pto.ptr<{p}, ub>, i64, i64, i64, i64, i64
    pto.mte_gm_ub %y, %uy, %c0_i64, %cb nburst(%c1_i64, %cb, %cb) : !pto.ptr<{p}, gm>, !pto.ptr<{p}, ub>, i64, i64, i64, i64, i64
    pto.mte_gm_ub %z, %uz, %c0_i64, %czb nburst(%c1_i64, %czb, %czb) : !pto.ptr<{zp}, gm>, !pto.ptr<{zp}, ub>, i64, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.vecscope {{
      %r:1 = scf.for %off = %c0 to %cn step %cl iter_args(%rem = %ct) -> (index) {{
        %m = pto.vmi.create_mask %rem : index -> {m}
        %a = pto.vmi.vload %ux[%off] : !pto.ptr<{p}, ub> -> {v}
        %b = pto.vmi.vload %uy[%off] : !pto.ptr<{p}, ub> -> {v}
{body}        pto.vmi.vstore {cur}, %uz[%off], %m : {zv}, !pto.ptr<{zp}, ub>, {m}
        %next = arith.subi %rem, %cl : index
        scf.yield %next : index
      }}
    }}
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.mte_ub_gm %uz, %z, %czb nburst(%c1_i64, %czb, %czb) : !pto.ptr<{zp}, ub>, !pto.ptr<{zp}, gm>, i64, i64, i64, i64
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }}
}}
"#
    )
}

fn run(src: &str, x: &[u8], y: &[u8], z: usize, jit: JitMode, crosscheck: bool) -> Ran {
    common::run_xyz(src, x, y, z, jit, crosscheck)
}

/// Elements of `ty` with NaNs, infinities, zeros of both signs, extremes.
fn data(ty: Ty, n: usize, seed: &mut u64) -> Vec<u8> {
    let mut rnd = || {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    };
    (0..n)
        .flat_map(|i| {
            let r = rnd();
            let v: u64 = if ty.float {
                let f = match i % 23 {
                    0 => f32::NAN,
                    1 => f32::INFINITY,
                    2 => -0.0,
                    3 => 0.0,
                    _ => ((r % 20001) as f32 - 10000.0) / 997.0,
                };
                match ty.vmi {
                    "f32" => u64::from(f.to_bits()),
                    "f16" => u64::from(half::f16::from_f32(f).to_bits()),
                    _ => u64::from(half::bf16::from_f32(f).to_bits()),
                }
            } else if i % 17 == 0 {
                u64::MAX >> 1
            } else {
                r
            };
            v.to_le_bytes()[..ty.bytes].to_vec()
        })
        .collect()
}

fn case() -> impl Strategy<Value = (Ty, usize, usize, Vec<Step>, bool, u64)> {
    proptest::sample::select(TYS).prop_flat_map(|ty| {
        // one to four whole registers, or a size that fills none exactly
        let per = 256 / ty.bytes;
        let sizes = vec![per, 2 * per, 4 * per, per / 2 + per / 4, 3 * per / 2];
        (
            Just(ty),
            proptest::sample::select(sizes),
            proptest::collection::vec(step(ty), 1..5),
            // f16/bf16 results widened to f32 at the end, half the time
            any::<bool>().prop_map(move |w| w && matches!(ty.vmi, "f16" | "bf16")),
            any::<u64>(),
        )
            .prop_flat_map(|(ty, lanes, steps, widen, seed)| {
                (
                    Just(ty),
                    Just(lanes),
                    lanes + 1..=3 * lanes,
                    Just(steps),
                    Just(widen),
                    Just(seed),
                )
            })
    })
}

proptest! {
    // JIT_VMI_CASES sets the case count (32 by default)
    #![proptest_config(ProptestConfig {
        cases: std::env::var("JIT_VMI_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(32),
        ..ProptestConfig::default()
    })]

    #[test]
    fn compiled_vmi_scopes_match_the_interpreter((ty, lanes, total, steps, widen, seed) in case()) {
        let src = kernel(ty, lanes, total, &steps, widen);
        let mut s = seed | 1;
        let x = data(ty, 3 * lanes, &mut s);
        let y = data(ty, 3 * lanes, &mut s);
        let es = if widen { 4 } else { ty.bytes };
        let zl = 3 * lanes * es;
        let interp = run(&src, &x, &y, zl, JitMode::Off, false);
        let jit = run(&src, &x, &y, zl, JitMode::Always, false);
        let cross = run(&src, &x, &y, zl, JitMode::Always, true);
        prop_assert!(interp.error.is_none(), "{:?}\n{}", interp.error, src);
        prop_assert!(jit.error.is_none(), "{:?}\n{}", jit.error, src);
        prop_assert!(cross.error.is_none(), "{:?}\n{}", cross.error, src);
        prop_assert_eq!(jit.jit.scope_execs, 1, "compiled runs\n{}", src);
        // whole registers and only native ops: nothing runs in the host
        let whole = (lanes * ty.bytes).is_multiple_of(256);
        // a widened result's f32 store reads the tail mask at 4 bytes a
        // lane; a masked half-lane op before it keeps the mask at 2, and
        // the store runs in the host
        let masked_half = widen
            && steps
                .iter()
                .any(|s| matches!(s, Step::Bin(_, true, false) | Step::Un(_, true, false) | Step::Sel) && s.native(ty));
        if whole && !masked_half && steps.iter().all(|s| s.native(ty)) {
            prop_assert_eq!(jit.jit.scope_host_ops, 0, "host ops\n{}", src);
        } else {
            prop_assert!(jit.jit.scope_host_ops > 0, "host ops\n{}", src);
        }
        prop_assert_eq!(&interp.counts, &jit.counts);
        prop_assert_eq!(interp.diags, jit.diags);
        for (i, (a, b)) in interp.z.chunks(es).zip(jit.z.chunks(es)).enumerate() {
            let nan = |h: &[u8]| match if widen { "f32" } else { ty.vmi } {
                "f16" => u16::from_le_bytes([h[0], h[1]]) & 0x7fff > 0x7c00,
                "bf16" => u16::from_le_bytes([h[0], h[1]]) & 0x7fff > 0x7f80,
                _ => false,
            };
            // f16/bf16 NaN payloads may differ (as in the other scopes);
            // f32 and integer lanes agree bit for bit
            prop_assert!(a == b || (nan(a) && nan(b)), "element {}: interpreter {:02x?}, JIT {:02x?}\n{}", i, a, b, src);
        }
    }
}

/// A mask that compiled ops read at two lane sizes (a store of 128 f32
/// lanes and one of 128 f16 lanes): the first keeps it, the second runs in
/// the host, and the scope still matches the interpreter.
#[test]
fn a_mask_read_at_two_lane_sizes_sends_the_second_reader_to_the_host() {
    let src = kernel(TYS[0], 128, 200, &[], false).replace(
        "        %next = arith.subi",
        "        %hp = pto.castptr %cy : i64 -> !pto.ptr<f16, ub>\n        %hv = pto.vmi.vload %hp[%off] : !pto.ptr<f16, ub> -> !pto.vmi.vreg<128xf16>\n        %hq = pto.castptr %cz : i64 -> !pto.ptr<f16, ub>\n        pto.vmi.vstore %hv, %hq[%off], %m : !pto.vmi.vreg<128xf16>, !pto.ptr<f16, ub>, !pto.vmi.mask<128xpred>\n        %next = arith.subi",
    );
    let x = data(TYS[0], 384, &mut 7);
    let y = data(TYS[0], 384, &mut 9);
    let interp = run(&src, &x, &y, x.len(), JitMode::Off, false);
    let jit = run(&src, &x, &y, x.len(), JitMode::Always, true);
    assert!(jit.error.is_none(), "{:?}", jit.error);
    assert_eq!(jit.jit.scope_execs, 1, "{:?}", jit.jit.rejected);
    // the f16 store, once per iteration, named in the stats
    assert_eq!(jit.jit.scope_host_ops, 3);
    assert_eq!(
        jit.jit.scope_host_by_op.iter().collect::<Vec<_>>(),
        [(&"pto.vmi.vstore", &3)]
    );
    assert_eq!(interp.z, jit.z);
}

/// A VMI vector larger than the scope compiler's registers (4 MiB here)
/// keeps the scope interpreted, and the run fails as the interpreter's
/// does (its load runs off UB), without building a translation that size.
#[test]
fn a_huge_vmi_vector_stays_interpreted() {
    let src = kernel(TYS[0], 64, 100, &[], false).replace(
        "        %next = arith.subi",
        "        %huge = pto.vmi.vload %ux[%c0] : !pto.ptr<f32, ub> -> !pto.vmi.vreg<1048576xf32>\n        %next = arith.subi",
    );
    let x = data(TYS[0], 192, &mut 3);
    let interp = run(&src, &x, &x, x.len(), JitMode::Off, false);
    let jit = run(&src, &x, &x, x.len(), JitMode::Always, false);
    assert!(interp.error.is_some());
    assert_eq!(jit.error, interp.error);
    assert_eq!(jit.jit.scope_execs, 0);
    assert!(
        jit.jit
            .rejected
            .keys()
            .any(|k| k.contains("too large to compile")),
        "{:?}",
        jit.jit.rejected
    );
}
