//! Compiled vector scopes == the interpreter: random `pto.vecscope` loops
//! (chains of lane-wise ops on f32, i32, f16, bf16, i16, ui16, i8 or ui8
//! lanes with plt tail masks, scalar operands, broadcasts, compares feeding
//! selects and masks, f32 <-> f16/bf16 conversions, bitwise ops on float
//! lanes, predicate algebra, predicate stores and loads, interleaves and
//! lane duplication, interleaving, up/down-sampling and block-strided loads
//! and stores, the last ones and every 8-bit op executed by the host,
//! and the reductions across lanes)
//! run interpreted, compiled, and with `--crosscheck`;
//! outputs, instruction counts and diagnostics must agree. Plus faults and
//! the checker's view of a compiled scope.

mod common;

use common::Ran;
use proptest::prelude::*;
use pto_vm::{load_text, run_kernel, Arg, CheckMode, Config, JitMode};

/// Lane type of a generated scope.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ty {
    F32,
    I32,
    F16,
    BF16,
    I16,
    U16,
    I8,
    U8,
}

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::F32 => "f32",
            Ty::I32 => "i32",
            Ty::F16 => "f16",
            Ty::BF16 => "bf16",
            Ty::I16 => "i16",
            Ty::U16 => "ui16",
            Ty::I8 => "i8",
            Ty::U8 => "ui8",
        }
    }
    /// The type of its scalar operands.
    fn scalar(self) -> &'static str {
        match self {
            Ty::U16 => "i16",
            Ty::U8 => "i8",
            t => t.name(),
        }
    }
    fn bytes(self) -> usize {
        match self {
            Ty::F32 | Ty::I32 => 4,
            Ty::I8 | Ty::U8 => 1,
            _ => 2,
        }
    }
    fn float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F16 | Ty::BF16)
    }
}

const ALL_TY: &[Ty] = &[
    Ty::F32,
    Ty::I32,
    Ty::F16,
    Ty::BF16,
    Ty::I16,
    Ty::U16,
    Ty::I8,
    Ty::U8,
];

#[derive(Clone, Debug)]
enum Step {
    /// r = op(r, b, m)
    Bin(&'static str),
    /// r = op(r, m)
    Un(&'static str),
    /// r = op(r, s, m)
    Scalar(&'static str),
    /// r = r + vdup(s, m) / vbr(s)
    Dup(bool),
    /// c = vcmp(r, b, m, mode) or vcmps(r, s, m, mode); then
    /// r = vsel(r, b, c) or r = vmax(r, b, c) (the compare as a mask)
    Cmp(&'static str, bool, bool),
    /// float lanes: r = vcvt(vcvt(r) to the other width and back), with
    /// part odd, saturation, and bf16 (rather than f16) for f32 lanes
    Cvt(bool, bool, bool),
    /// c = vcmp(r, b, m, lt); q = pand/por/pxor/pnot/psel of c and m; r = vsel(r, b, q)
    Pred(&'static str),
    /// p, q = vintlv(r, b); r = vsel(q, p, m)
    Intlv,
    /// r = vdup(r, m) of its lowest or highest lane
    DupLane(bool),
    /// c = vcmp(r, b, m, gt); psts c (NORM or PK); q = plds (NORM or US)
    /// of the same bytes; r = vsel(r, b, q)
    PMem(bool, bool),
    /// the generic loads and stores the host executes: vstsx2 INTLV of r
    /// and b then vldsx2 DINTLV of the same bytes and r = vsel(hi, lo, m);
    /// or vsts r then vlds in the US or DS distribution and r = vsel(w, r, m)
    VMem(bool, bool),
    /// vsstb r block by block, vsldb the same blocks; r = vsel(k, r, m)
    VBlk,
    /// r = a reduction of r under m (0), under a compare's mask (1: active
    /// lanes with gaps, so the sum's tree pairs compacted lanes) or under
    /// an empty mask (2: the identities)
    Red(&'static str, u8),
    /// float lanes: r = vexpdif(r, b, m) (16-bit lanes: into f32 lanes from
    /// the even or odd half lanes, then back with vcvt)
    ExpDif(bool),
}

const RED: &[&str] = &[
    "vcadd", "vcmax", "vcmin", "vcgadd", "vcgmax", "vcgmin", "vcpadd",
];

const F32_UN: &[&str] = &[
    "vabs", "vneg", "vrelu", "vsqrt", "vrsqrt", "vrec", "vexp", "vln",
];
const F16_UN: &[&str] = &["vabs", "vneg", "vsqrt", "vrec", "vrelu"];
const F32_SC: &[&str] = &["vadds", "vmuls", "vmaxs", "vmins"];
const I32_BIN: &[&str] = &[
    "vadd", "vsub", "vmul", "vmax", "vmin", "vand", "vor", "vxor",
];
const I32_UN: &[&str] = &["vabs", "vneg", "vrelu"];
const I32_SC: &[&str] = &["vadds", "vmuls", "vmaxs", "vmins"];
const MODES: &[&str] = &["eq", "ne", "lt", "le", "gt", "ge"];
const PRED: &[&str] = &["pand", "por", "pxor", "pnot", "psel"];
/// float lanes also take the bitwise ops (on their bits)
const FLOAT_BIN: &[&str] = &[
    "vadd", "vsub", "vmul", "vdiv", "vmax", "vmin", "vand", "vor", "vxor",
];

fn kernel(ty: Ty, n: usize, steps: &[Step], sval: &str) -> String {
    let dt = ty.name();
    let es = ty.bytes();
    let lanes = 256 / es;
    let v = format!("!pto.vreg<{lanes}x{dt}>");
    let m = format!("!pto.mask<b{}>", 8 * es);
    let st = ty.scalar();
    let mut body = String::new();
    let mut cur = "%a".to_string();
    for (i, s) in steps.iter().enumerate() {
        let r = format!("%r{i}");
        let line = match s {
            Step::Bin(op) => format!("{r} = pto.{op} {cur}, %b, %m : {v}, {v}, {m} -> {v}"),
            Step::Un(op) => format!("{r} = pto.{op} {cur}, %m : {v}, {m} -> {v}"),
            Step::Scalar(op) => format!("{r} = pto.{op} {cur}, %s, %m : {v}, {st}, {m} -> {v}"),
            Step::Dup(masked) => {
                let d = if *masked {
                    format!("%d{i} = pto.vdup %s, %m : {st}, {m} -> {v}")
                } else {
                    format!("%d{i} = pto.vbr %s : {st} -> {v}")
                };
                format!("{d}\n          {r} = pto.vadd {cur}, %d{i}, %all : {v}, {v}, {m} -> {v}")
            }
            Step::Cmp(mode, scalar, sel) => {
                let c = if *scalar {
                    format!("%c{i} = pto.vcmps {cur}, %s, %m, \"{mode}\" : {v}, {st}, {m} -> {m}")
                } else {
                    format!("%c{i} = pto.vcmp {cur}, %b, %m, \"{mode}\" : {v}, {v}, {m} -> {m}")
                };
                let u = if *sel {
                    format!("{r} = pto.vsel {cur}, %b, %c{i} : {v}, {v}, {m} -> {v}")
                } else {
                    format!("{r} = pto.vmax {cur}, %b, %c{i} : {v}, {v}, {m} -> {v}")
                };
                format!("{c}\n          {u}")
            }
            Step::Cvt(odd, sat, bf) => {
                let part = if *odd { "ODD" } else { "EVEN" };
                let sat = if *sat { ", sat = \"SAT\"" } else { "" };
                let (other, om, oall) = match ty {
                    Ty::F32 if *bf => ("!pto.vreg<128xbf16>", "!pto.mask<b16>", "%all16"),
                    Ty::F32 => ("!pto.vreg<128xf16>", "!pto.mask<b16>", "%all16"),
                    _ => ("!pto.vreg<64xf32>", "!pto.mask<b32>", "%all32"),
                };
                format!(
                    "%h{i} = pto.vcvt {cur}, %m {{rnd = \"R\"{sat}, part = \"{part}\"}} : {v}, {m} -> {other}\n          \
                     {r} = pto.vcvt %h{i}, {oall} {{rnd = \"R\"{sat}, part = \"{part}\"}} : {other}, {om} -> {v}"
                )
            }
            Step::Pred(op) => {
                let q = match *op {
                    "pnot" => format!("%q{i} = pto.pnot %c{i}, %m : {m}, {m} -> {m}"),
                    "psel" => format!("%q{i} = pto.psel %c{i}, %all, %m : {m}, {m}, {m} -> {m}"),
                    op => format!("%q{i} = pto.{op} %c{i}, %m, %all : {m}, {m}, {m} -> {m}"),
                };
                format!(
                    "%c{i} = pto.vcmp {cur}, %b, %m, \"lt\" : {v}, {v}, {m} -> {m}\n          \
                     {q}\n          \
                     {r} = pto.vsel {cur}, %b, %q{i} : {v}, {v}, {m} -> {v}"
                )
            }
            Step::Intlv => format!(
                "%p{i}, %q{i} = pto.vintlv {cur}, %b : {v}, {v} -> {v}, {v}\n          \
                 {r} = pto.vsel %q{i}, %p{i}, %m : {v}, {v}, {m} -> {v}"
            ),
            Step::PMem(pk, us) => {
                let st = if *pk { "PK" } else { "NORM" };
                let ld = if *us { "US" } else { "NORM" };
                format!(
                    "%pm{i} = pto.vcmp {cur}, %b, %m, \"gt\" : {v}, {v}, {m} -> {m}\n          \
                     pto.psts %pm{i}, %up[%pz], \"{st}\" : {m}, !pto.ptr<ui8, ub>, index\n          \
                     %q{i} = pto.plds %up[%pz], \"{ld}\" : !pto.ptr<ui8, ub>, index -> {m}\n          \
                     {r} = pto.vsel {cur}, %b, %q{i} : {v}, {v}, {m} -> {v}"
                )
            }
            Step::VMem(true, _) => format!(
                "pto.vstsx2 {cur}, %b, %uw[%pz], \"INTLV_B{b}\", %m : {v}, {v}, !pto.ptr<{dt}, ub>, index, {m}\n          \
                 %lo{i}, %hi{i} = pto.vldsx2 %uw[%pz], \"DINTLV_B{b}\" : !pto.ptr<{dt}, ub>, index -> {v}, {v}\n          \
                 {r} = pto.vsel %hi{i}, %lo{i}, %m : {v}, {v}, {m} -> {v}",
                b = 8 * es
            ),
            Step::VMem(false, ds) => {
                let d = if *ds { "DS" } else { "US" };
                format!(
                    "pto.vsts {cur}, %uw[%pz], %m : {v}, !pto.ptr<{dt}, ub>, {m}\n          \
                     %w{i} = pto.vlds %uw[%pz] {{dist = \"{d}_B{b}\"}} : !pto.ptr<{dt}, ub> -> {v}\n          \
                     {r} = pto.vsel %w{i}, {cur}, %m : {v}, {v}, {m} -> {v}",
                    b = 8 * es
                )
            }
            Step::VBlk => format!(
                "pto.vsstb {cur}, %uw, %c1_i16, %c2_i16, %m : {v}, !pto.ptr<{dt}, ub>, i16, i16, {m}\n          \
                 %k{i} = pto.vsldb %uw, %c1_i16, %c2_i16, %m : !pto.ptr<{dt}, ub>, i16, i16, {m} -> {v}\n          \
                 {r} = pto.vsel %k{i}, {cur}, %m : {v}, {v}, {m} -> {v}"
            ),
            Step::Red(op, 0) => format!("{r} = pto.{op} {cur}, %m : {v}, {m} -> {v}"),
            Step::Red(op, 2) => format!("{r} = pto.{op} {cur}, %none : {v}, {m} -> {v}"),
            Step::Red(op, _) => format!(
                "%c{i} = pto.vcmp {cur}, %b, %m, \"lt\" : {v}, {v}, {m} -> {m}\n          \
                 {r} = pto.{op} {cur}, %c{i} : {v}, {m} -> {v}"
            ),
            Step::ExpDif(odd) => {
                let part = if *odd { "ODD" } else { "EVEN" };
                if ty == Ty::F32 {
                    format!("{r} = pto.vexpdif {cur}, %b, %m, \"{part}\" : {v}, {v}, {m} -> {v}")
                } else {
                    format!(
                        "%e{i} = pto.vexpdif {cur}, %b, %m, \"{part}\" : {v}, {v}, {m} -> !pto.vreg<64xf32>\n          \
                         {r} = pto.vcvt %e{i}, %all32 {{rnd = \"R\", part = \"{part}\"}} : !pto.vreg<64xf32>, !pto.mask<b32> -> {v}"
                    )
                }
            }
            Step::DupLane(high) => {
                let pos = if *high { "HIGHEST" } else { "LOWEST" };
                format!("{r} = pto.vdup {cur}, %m {{position = \"{pos}\"}} : {v}, {m} -> {v}")
            }
        };
        body += &format!("          {line}\n");
        cur = r;
    }
    let bytes = 640 * es;
    let end = n.div_ceil(lanes) * lanes;
    let b = 8 * es;
    format!(
        r#"module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%x: !pto.ptr<{dt}, gm>, %y: !pto.ptr<{dt}, gm>, %z: !pto.ptr<{dt}, gm>) attributes {{pto.entry}} {{
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %cb_i64 = arith.constant {bytes} : i64
    %c4096_i64 = arith.constant 4096 : i64
    %c8192_i64 = arith.constant 8192 : i64
    %ux = pto.castptr %c0_i64 : i64 -> !pto.ptr<{dt}, ub>
    %uy = pto.castptr %c4096_i64 : i64 -> !pto.ptr<{dt}, ub>
    %uz = pto.castptr %c8192_i64 : i64 -> !pto.ptr<{dt}, ub>
    %c12288_i64 = arith.constant 12288 : i64
    %up = pto.castptr %c12288_i64 : i64 -> !pto.ptr<ui8, ub>
    %c16384_i64 = arith.constant 16384 : i64
    %uw = pto.castptr %c16384_i64 : i64 -> !pto.ptr<{dt}, ub>
    pto.mte_gm_ub %x, %ux, %c0_i64, %cb_i64 nburst(%c1_i64, %cb_i64, %cb_i64) : !pto.ptr<{dt}, gm>, !pto.ptr<{dt}, ub>, i64, i64, i64, i64, i64
    pto.mte_gm_ub %y, %uy, %c0_i64, %cb_i64 nburst(%c1_i64, %cb_i64, %cb_i64) : !pto.ptr<{dt}, gm>, !pto.ptr<{dt}, ub>, i64, i64, i64, i64, i64
    pto.mte_gm_ub %z, %uz, %c0_i64, %cb_i64 nburst(%c1_i64, %cb_i64, %cb_i64) : !pto.ptr<{dt}, gm>, !pto.ptr<{dt}, ub>, i64, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.vecscope {{
      %c0 = arith.constant 0 : index
      %pz = arith.constant 0 : index
      %c1_i16 = arith.constant 1 : i16
      %c2_i16 = arith.constant 2 : i16
      %cl = arith.constant {lanes} : index
      %cend = arith.constant {end} : index
      %n = arith.constant {n} : i32
      %s = arith.constant {sval} : {st}
      %all = pto.pset_b{b} "PAT_ALL" : {m}
      %none = pto.pset_b{b} "PAT_ALLF" : {m}
      %all16 = pto.pset_b16 "PAT_ALL" : !pto.mask<b16>
      %all32 = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      %res:1 = scf.for %off = %c0 to %cend step %cl iter_args(%rem = %n) -> (i32) {{
          %m, %next = pto.plt_b{b} %rem : i32 -> {m}, i32
          %a = pto.vlds %ux[%off] : !pto.ptr<{dt}, ub> -> {v}
          %b = pto.vlds %uy[%off] : !pto.ptr<{dt}, ub> -> {v}
{body}          pto.vsts {cur}, %uz[%off], %m : {v}, !pto.ptr<{dt}, ub>, {m}
          scf.yield %next : i32
      }}
    }}
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.mte_ub_gm %uz, %z, %cb_i64 nburst(%c1_i64, %cb_i64, %cb_i64) : !pto.ptr<{dt}, ub>, !pto.ptr<{dt}, gm>, i64, i64, i64, i64
    return
  }}
}}
"#
    )
}

fn run(src: &str, x: &[u8], y: &[u8], jit: JitMode, crosscheck: bool) -> Ran {
    common::run_xyz(src, x, y, x.len(), jit, crosscheck)
}

fn special(i: usize, v: f32) -> f32 {
    match i % 37 {
        0 => f32::NAN,
        1 => f32::INFINITY,
        2 => f32::NEG_INFINITY,
        3 => -0.0,
        4 => 1e-40,
        5 => -3.0e38,
        6 => 6.0e-8,
        7 => 65519.0,
        8 => -1.0e5,
        _ => v,
    }
}

fn ulps(a: u32, b: u32) -> u64 {
    let key = |x: u32| {
        let i = x as i32;
        if i < 0 {
            i64::from(i32::MIN) - i64::from(i)
        } else {
            i64::from(i)
        }
    };
    key(a).abs_diff(key(b))
}

fn step(ty: Ty) -> impl Strategy<Value = Step> {
    // the verifier takes vrelu on i32, f16 and f32 only
    let (bin, un, sc): (&[&str], &[&str], &[&str]) = match ty {
        Ty::F32 => (FLOAT_BIN, F32_UN, F32_SC),
        Ty::F16 => (FLOAT_BIN, F16_UN, F32_SC),
        Ty::BF16 => (FLOAT_BIN, &F16_UN[..4], F32_SC),
        Ty::U8 => (I32_BIN, &["vmax"], I32_SC),
        Ty::I8 => (I32_BIN, &I32_UN[..2], I32_SC),
        // unsigned lanes: no abs/neg/relu
        Ty::U16 => (I32_BIN, &["vmax"], I32_SC),
        Ty::I16 => (I32_BIN, &I32_UN[..2], I32_SC),
        Ty::I32 => (I32_BIN, I32_UN, I32_SC),
    };
    let float = ty.float();
    prop_oneof![
        2 => proptest::sample::select(bin).prop_map(Step::Bin),
        2 => proptest::sample::select(un).prop_map(|op| if op == "vmax" { Step::Bin(op) } else { Step::Un(op) }),
        2 => proptest::sample::select(sc).prop_map(Step::Scalar),
        1 => any::<bool>().prop_map(Step::Dup),
        2 => (proptest::sample::select(MODES), any::<bool>(), any::<bool>())
            .prop_map(|(m, s, sel)| Step::Cmp(m, s, sel)),
        // (integer lanes: an interleave instead)
        1 => (any::<bool>(), any::<bool>(), any::<bool>())
            .prop_map(move |(o, s, b)| if float { Step::Cvt(o, s, b) } else { Step::Intlv }),
        1 => proptest::sample::select(PRED).prop_map(Step::Pred),
        1 => Just(Step::Intlv),
        1 => any::<bool>().prop_map(Step::DupLane),
        1 => (any::<bool>(), any::<bool>()).prop_map(|(pk, us)| Step::PMem(pk, us)),
        1 => (any::<bool>(), any::<bool>()).prop_map(|(x2, ds)| Step::VMem(x2, ds)),
        1 => Just(Step::VBlk),
        2 => (proptest::sample::select(RED), 0u8..3).prop_map(|(op, c)| Step::Red(op, c)),
        1 => any::<bool>().prop_map(move |o| if float { Step::ExpDif(o) } else { Step::Intlv }),
    ]
}

fn case() -> impl Strategy<Value = (Ty, usize, Vec<Step>, u64)> {
    proptest::sample::select(ALL_TY).prop_flat_map(|ty| {
        (
            Just(ty),
            1usize..=640,
            proptest::collection::vec(step(ty), 1..5),
            any::<u64>(),
        )
    })
}

/// 640 elements of `ty` (bytes), from a xorshift stream; floats with
/// NaNs, infinities, zeros, subnormals and values near the f16 range's end.
fn data(ty: Ty, rnd: &mut dyn FnMut() -> u64, shift: usize) -> Vec<u8> {
    (0..640)
        .flat_map(|i| {
            // no special values at all in some runs (a NaN or an infinity
            // in every register would hide a wrong sum or extreme), and
            // few distinct values (ties for the extremes)
            let f = if shift == usize::MAX {
                (rnd() % 16) as f32 - 8.0
            } else {
                special(i + shift, (rnd() % 2000) as f32 / 100.0 - 10.0)
            };
            let r = rnd();
            match ty {
                Ty::F32 => f.to_le_bytes().to_vec(),
                Ty::F16 => half::f16::from_f32(f).to_le_bytes().to_vec(),
                Ty::BF16 => half::bf16::from_f32(f).to_le_bytes().to_vec(),
                Ty::I32 => ((r as i32) >> ((r >> 40) % 31)).to_le_bytes().to_vec(),
                Ty::I16 | Ty::U16 => ((r as i16) >> ((r >> 40) % 15)).to_le_bytes().to_vec(),
                Ty::I8 | Ty::U8 => ((r as i8) >> ((r >> 40) % 7)).to_le_bytes().to_vec(),
            }
        })
        .collect()
}

proptest! {
    // JIT_SCOPE_CASES sets the case count (48 by default)
    #![proptest_config(ProptestConfig {
        cases: std::env::var("JIT_SCOPE_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(48),
        ..ProptestConfig::default()
    })]

    #[test]
    fn compiled_scopes_match_the_interpreter((ty, n, steps, seed) in case()) {
        let sval = if ty.float() { "-1.25" } else { "-7" };
        let src = kernel(ty, n, &steps, sval);
        let mut s = seed | 1;
        let mut rnd = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let plain = seed & 2 != 0;
        let x = data(ty, &mut rnd, if plain { usize::MAX } else { 0 });
        let mut y = data(ty, &mut rnd, if plain { usize::MAX } else { 5 });
        // some equal lanes for the compares
        let es = ty.bytes();
        for i in (0..640).step_by(7) {
            y[i * es..(i + 1) * es].copy_from_slice(&x[i * es..(i + 1) * es]);
        }
        let interp = run(&src, &x, &y, JitMode::Off, false);
        let jit = run(&src, &x, &y, JitMode::Always, false);
        let cross = run(&src, &x, &y, JitMode::Always, true);
        prop_assert!(interp.error.is_none(), "{:?}\n{}", interp.error, src);
        prop_assert!(jit.error.is_none(), "{:?}\n{}", jit.error, src);
        prop_assert!(cross.error.is_none(), "{:?}\n{}", cross.error, src);
        let exp = steps
            .iter()
            .any(|s| matches!(s, Step::Un("vexp" | "vln")));
        // exp/ln with a compare, a bitwise op, a conversion, a reduction or
        // a host-executed op (which would turn an ulp into any difference)
        // compile exactly (the interpreter's functions); otherwise they
        // approximate within their bound
        let mixed = exp
            && steps.iter().any(|s| {
                matches!(
                    s,
                    Step::Bin("vand" | "vor" | "vxor")
                        | Step::Cmp(..)
                        | Step::Cvt(..)
                        | Step::Pred(..)
                        | Step::Intlv
                        | Step::PMem(..)
                        | Step::VMem(..)
                        | Step::VBlk
                        | Step::Red(..)
                        | Step::ExpDif(..)
                )
            });
        let approx = exp && !mixed;
        prop_assert_eq!(jit.jit.scope_execs, 1, "compiled runs\n{}", src);
        prop_assert_eq!(&interp.counts, &jit.counts);
        prop_assert_eq!(interp.diags, jit.diags);
        for (i, (a, b)) in interp.z.chunks(es).zip(jit.z.chunks(es)).enumerate() {
            if es == 1 {
                prop_assert!(a == b, "element {}: interpreter {:#x}, JIT {:#x}\n{}", i, a[0], b[0], src);
                continue;
            }
            if es == 2 {
                let (a, b) = (u16::from_le_bytes([a[0], a[1]]), u16::from_le_bytes([b[0], b[1]]));
                let nan = |h: u16| match ty {
                    Ty::F16 => h & 0x7fff > 0x7c00,
                    Ty::BF16 => h & 0x7fff > 0x7f80,
                    _ => false,
                };
                prop_assert!(a == b || (nan(a) && nan(b)), "element {}: interpreter {:#x}, JIT {:#x}\n{}", i, a, b, src);
                continue;
            }
            let (a, b) = (u32::from_le_bytes(a.try_into().unwrap()), u32::from_le_bytes(b.try_into().unwrap()));
            // f32 NaNs must agree bit for bit (payload and quiet bit), except
            // downstream of an approximated op
            let nan = approx && f32::from_bits(a).is_nan() && f32::from_bits(b).is_nan();
            // exp within its bound, or (after later ops) within the crosscheck's
            // relative tolerance
            let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
            let close = (fa - fb).abs() <= 1e-5 * 1f32.max(fa.abs()).max(fb.abs());
            let ok = a == b || nan || (approx && (ulps(a, b) <= 2 || close));
            prop_assert!(ok, "element {}: interpreter {:#x}, JIT {:#x}\n{}", i, a, b, src);
        }
    }
}

/// A vlds of bytes an earlier vsts of the scope wrote: the same diagnostic
/// compiled as interpreted.
#[test]
fn the_alias_diagnosis_survives_compilation() {
    let src = include_str!("../../examples/diagnostics/vector-alias.pto");
    let k = load_text("vector-alias.pto", src, None).unwrap();
    for jit in [JitMode::Off, JitMode::Always] {
        let cfg = Config {
            profile: k.profile,
            jit,
            check: CheckMode::Warn,
            ..Config::default()
        };
        let f = run_kernel(&k, &cfg, None, &[]).unwrap();
        let kinds: Vec<String> = f
            .out
            .diags
            .list
            .iter()
            .map(|d| format!("{:?}", d.kind))
            .collect();
        assert_eq!(kinds, vec!["VectorAlias".to_string()], "{jit:?}");
    }
}

/// The store-then-load diagnosis also covers the loads and stores the host
/// executes for a compiled scope (distribution modes, x2 forms), with or
/// without the barrier, in both tiers.
#[test]
fn the_alias_diagnosis_covers_distribution_loads_and_stores() {
    let src = include_str!("../../examples/diagnostics/vector-alias.pto");
    let norm_load = "%v = pto.vlds %ub[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>";
    let norm_store =
        "pto.vsts %z, %ub[%c0], %all : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>";
    assert!(src.contains(norm_load) && src.contains(norm_store));
    let unpk =
        "%v = pto.vlds %ub[%c0] {dist = \"UNPK_B16\"} : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>";
    let pk = "pto.vsts %z, %ub[%c0], %all {dist = \"PK_B32\"} : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>";
    let x2 = "%v, %w = pto.vldsx2 %ub[%c0], \"DINTLV_B32\" : !pto.ptr<f32, ub>, index -> !pto.vreg<64xf32>, !pto.vreg<64xf32>";
    let variants = [
        ("vsts, then an UNPK vlds", src.replace(norm_load, unpk)),
        ("a PK vsts, then vlds", src.replace(norm_store, pk)),
        ("vsts, then vldsx2", src.replace(norm_load, x2)),
    ];
    for (what, v) in variants {
        let fenced = v.replacen("      %v", "      pto.mem_bar \"VST_VLD\"\n      %v", 1);
        for (src, want) in [(&v, 1), (&fenced, 0)] {
            let k = load_text("alias.pto", src, None).unwrap_or_else(|e| panic!("{e}\n{src}"));
            for jit in [JitMode::Off, JitMode::Always] {
                let cfg = Config {
                    profile: k.profile,
                    jit,
                    check: CheckMode::Warn,
                    ..Config::default()
                };
                let f = run_kernel(&k, &cfg, None, &[]).unwrap();
                assert!(f.out.error.is_none(), "{what}, {jit:?}: {:?}", f.out.error);
                let n = f
                    .out
                    .diags
                    .list
                    .iter()
                    .filter(|d| format!("{:?}", d.kind) == "VectorAlias")
                    .count();
                assert_eq!(n, want, "{what}, {jit:?}:\n{src}");
                if jit == JitMode::Always {
                    assert_eq!(f.out.jit.scope_execs, 1, "{what}: compiled");
                }
            }
        }
    }
}

/// Missing synchronization around a compiled scope is still found: the scope
/// reports its UB accesses to the checker.
#[test]
fn the_checker_sees_compiled_scope_accesses() {
    let src = kernel(Ty::F32, 200, &[Step::Bin("vadd")], "1.0").replace(
        "    pto.wait_flag[\"PIPE_MTE2\", \"PIPE_V\", \"EVENT_ID0\"]\n",
        "",
    );
    let x: Vec<u8> = (0..640).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let interp = run(&src, &x, &x, JitMode::Off, false);
    let jit = run(&src, &x, &x, JitMode::Always, false);
    assert_eq!(jit.jit.scope_execs, 1);
    assert!(interp.diags > 0);
    assert_eq!(interp.diags, jit.diags);
}

/// An address outside UB stops a compiled scope with the interpreter's fault.
#[test]
fn out_of_bounds_faults_match() {
    let src = kernel(Ty::F32, 640, &[Step::Bin("vadd")], "1.0").replace(
        "%c8192_i64 = arith.constant 8192",
        "%c8192_i64 = arith.constant 261000",
    );
    let x = vec![0u8; 640 * 4];
    let interp = run(&src, &x, &x, JitMode::Off, false);
    let jit = run(&src, &x, &x, JitMode::Always, false);
    assert!(interp.error.is_some());
    assert_eq!(interp.error, jit.error);
}

/// A compiled scope marks only the UB bytes it stores as written, so the
/// next run reuses the buffer after clearing just those: what a scope left
/// behind (vector stores and a host-executed predicate store, far apart in
/// UB) must read as zero in the next run, whichever tier wrote it, however
/// often the buffers are reused.
#[test]
fn ub_a_compiled_scope_wrote_is_zero_in_the_next_run() {
    let writer = r#"module attributes {pto.target_arch = "a5"} {
  func.func @w() attributes {pto.entry} {
    %c0 = arith.constant 0 : index
    %lo_i64 = arith.constant 1024 : i64
    %hi_i64 = arith.constant 200000 : i64
    %x = arith.constant 7 : i32
    %lo = pto.castptr %lo_i64 : i64 -> !pto.ptr<i32, ub>
    %hi = pto.castptr %hi_i64 : i64 -> !pto.ptr<ui8, ub>
    pto.vecscope {
      %all = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      %v = pto.vbr %x : i32 -> !pto.vreg<64xi32>
      pto.vsts %v, %lo[%c0], %all : !pto.vreg<64xi32>, !pto.ptr<i32, ub>, !pto.mask<b32>
      %p = pto.pset_b8 "PAT_ALL" : !pto.mask<b8>
      pto.psts %p, %hi[%c0], "NORM" : !pto.mask<b8>, !pto.ptr<ui8, ub>, index
    }
    return
  }
}
"#;
    let reader = r#"module attributes {pto.target_arch = "a5"} {
  func.func @r(%o: !pto.ptr<ui8, gm>) attributes {pto.entry} {
    %c1 = arith.constant 1 : i64
    %n = arith.constant 256 : i64
    %m = arith.constant 32 : i64
    %lo_i64 = arith.constant 1024 : i64
    %hi_i64 = arith.constant 200000 : i64
    %lo = pto.castptr %lo_i64 : i64 -> !pto.ptr<ui8, ub>
    %hi = pto.castptr %hi_i64 : i64 -> !pto.ptr<ui8, ub>
    %o2 = pto.addptr %o, %n : !pto.ptr<ui8, gm> -> !pto.ptr<ui8, gm>
    pto.mte_ub_gm %lo, %o, %n nburst(%c1, %n, %n) : !pto.ptr<ui8, ub>, !pto.ptr<ui8, gm>, i64, i64, i64, i64
    pto.mte_ub_gm %hi, %o2, %m nburst(%c1, %m, %m) : !pto.ptr<ui8, ub>, !pto.ptr<ui8, gm>, i64, i64, i64, i64
    return
  }
}
"#;
    let w = load_text("w.pto", writer, None).unwrap();
    let r = load_text("r.pto", reader, None).unwrap();
    for jit in [JitMode::Always, JitMode::Off, JitMode::Always] {
        let cfg = Config {
            profile: w.profile,
            jit,
            check: CheckMode::Warn,
            ..Config::default()
        };
        for _ in 0..3 {
            let f = run_kernel(&w, &cfg, None, &[]).unwrap();
            assert!(f.out.error.is_none(), "{:?}", f.out.error);
            if jit == JitMode::Always {
                assert_eq!(f.out.jit.scope_execs, 1);
            }
            let g = run_kernel(&r, &cfg, None, &[Arg::Buffer(vec![0xAA; 288])]).unwrap();
            assert!(g.out.error.is_none(), "{:?}", g.out.error);
            assert!(
                g.buffers[0].iter().all(|&b| b == 0),
                "{jit:?}: {:?}",
                g.buffers[0]
            );
        }
    }
}

/// The line and message of the fault `src` stops with, interpreted and
/// then with its scope compiled (not rejected: that run must fault).
fn faults_in_both_tiers(src: &str) -> Vec<(u32, String)> {
    let k = load_text("k.pto", src, None).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let mut seen = Vec::new();
    for jit in [JitMode::Off, JitMode::Always] {
        let cfg = Config {
            profile: k.profile,
            jit,
            ..Config::default()
        };
        let f = run_kernel(&k, &cfg, None, &[]).expect("runs");
        match f.out.error {
            Some(pto_vm::RunError::Fault { inst, ref message }) => {
                seen.push((k.program.info(inst).loc.line, message.clone()));
                if jit == JitMode::Always {
                    assert!(
                        f.out.jit.compiled == 1 && f.out.jit.rejected.is_empty(),
                        "{src}: {:?}",
                        f.out.jit
                    );
                }
            }
            ref other => panic!("{src}, {jit:?}: {other:?}"),
        }
    }
    seen
}

/// A fault inside a compiled scope names the scope's op, as the interpreter
/// does: a native load past UB, and a host-executed distribution load past
/// UB.
#[test]
fn faults_inside_compiled_scopes_name_the_op() {
    for dist in ["", " {dist = \"US_B32\"}"] {
        let src = format!(
            r#"module attributes {{pto.target_arch = "a5"}} {{
  func.func @k() attributes {{pto.entry}} {{
    %c0_i64 = arith.constant 0 : i64
    %ub = pto.castptr %c0_i64 : i64 -> !pto.ptr<f32, ub>
    pto.vecscope {{
      %far = arith.constant 65530 : index
      %v = pto.vlds %ub[%far]{dist} : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
    }}
    return
  }}
}}"#
        );
        let faults: Vec<u32> = faults_in_both_tiers(&src)
            .into_iter()
            .map(|f| f.0)
            .collect();
        assert_eq!(faults, vec![7, 7], "{dist}");
    }
}

/// A sum or product of two NaNs keeps the first operand's NaN, as the
/// interpreter's x86 arithmetic does, also where Cranelift would fold the
/// first operand's load into the instruction and swap the operands: a
/// negative NaN (ln of a negative number, or loaded) against a positive one
/// (the regression the 30-minute soak of session 24 found).
#[test]
fn a_sum_of_two_nans_keeps_the_first_operands() {
    let neg_nan = f32::from_bits(0xffc0_0000);
    for (steps, x) in [
        (vec![Step::Un("vln"), Step::Bin("vadd")], -1.0f32),
        (vec![Step::Un("vln"), Step::Bin("vmul"), Step::VBlk], -2.0),
        (vec![Step::Bin("vadd")], neg_nan),
        (vec![Step::Bin("vmul")], neg_nan),
    ] {
        let src = kernel(Ty::F32, 100, &steps, "-1.25");
        let xs: Vec<u8> = (0..640).flat_map(|_| x.to_le_bytes()).collect();
        let ys: Vec<u8> = (0..640).flat_map(|_| f32::NAN.to_le_bytes()).collect();
        let interp = run(&src, &xs, &ys, JitMode::Off, false);
        let jit = run(&src, &xs, &ys, JitMode::Always, false);
        let cross = run(&src, &xs, &ys, JitMode::Always, true);
        assert!(interp.error.is_none(), "{:?}", interp.error);
        assert_eq!(jit.jit.scope_execs, 1, "compiled\n{src}");
        assert!(cross.error.is_none(), "{:?}\n{src}", cross.error);
        // the interpreter's results are the negative NaN
        assert_eq!(&interp.z[..4], &neg_nan.to_le_bytes(), "{steps:?}");
        assert_eq!(jit.z, interp.z, "{steps:?}");
    }
}

/// A scope with alignment state and special registers compiles, with those
/// ops run by the host inside it, and gives the interpreter's bytes: an
/// unaligned load stream (`vldas`/`vldus` post-update) from an odd element
/// offset, an unaligned store stream (`init_align`/`vstus`/`vstas`), the
/// positive lanes of each block compacted by `vsqz` and appended with
/// `vstur` (SPR AR advancing by SPR SQZN), integer `load_scalar` and
/// `store_scalar`, and AR stored by `sprsti` in the next scope.
#[test]
fn unaligned_streams_and_special_registers_compile() {
    let src = r#"module attributes {pto.target_arch = "a5"} {
  func.func @streams(%x: !pto.ptr<f32, gm>, %y: !pto.ptr<f32, gm>, %z: !pto.ptr<f32, gm>) attributes {pto.entry} {
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c1024 = arith.constant 1024 : index
    %c5_i32 = arith.constant 5 : i32
    %c0_i32 = arith.constant 0 : i32
    %zero = arith.constant 0.0 : f32
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %in_bytes = arith.constant 4352 : i64
    %out_bytes = arith.constant 16448 : i64
    %a_out = arith.constant 8192 : i64
    %a_cnt = arith.constant 24576 : i64
    %a_ints = arith.constant 24580 : i64
    %ux = pto.castptr %c0_i64 : i64 -> !pto.ptr<f32, ub>
    %uz = pto.castptr %a_out : i64 -> !pto.ptr<f32, ub>
    %cnt = pto.castptr %a_cnt : i64 -> !pto.ptr<ui32, ub>
    %xi = pto.castptr %c0_i64 : i64 -> !pto.ptr<i32, ub>
    %zi = pto.castptr %a_ints : i64 -> !pto.ptr<i32, ub>
    pto.mte_gm_ub %x, %ux, %c0_i64, %in_bytes nburst(%c1_i64, %in_bytes, %in_bytes) : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.vecscope {
      %all = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      // z[0..1024): x[5..1029) through the unaligned load stream, doubled
      %src = pto.addptr %ux, %c5 : !pto.ptr<f32, ub> -> !pto.ptr<f32, ub>
      %a0 = pto.vldas %src : !pto.ptr<f32, ub> -> !pto.align
      %p1, %a1 = scf.for %off = %c0 to %c1024 step %c64 iter_args(%p = %src, %a = %a0) -> (!pto.ptr<f32, ub>, !pto.align) {
        %v, %an, %pn = pto.vldus %p, %a, %c64 : !pto.ptr<f32, ub>, !pto.align, index -> !pto.vreg<64xf32>, !pto.align, !pto.ptr<f32, ub>
        %d = pto.vadd %v, %v, %all : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
        pto.vsts %d, %uz[%off], %all : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>
        scf.yield %pn, %an : !pto.ptr<f32, ub>, !pto.align
      }
      // z[1024..): five lanes of each block through the unaligned store stream
      %dst = pto.addptr %uz, %c1024 : !pto.ptr<f32, ub> -> !pto.ptr<f32, ub>
      %s0 = pto.init_align : !pto.align
      %q1, %s1 = scf.for %off = %c0 to %c1024 step %c64 iter_args(%q = %dst, %s = %s0) -> (!pto.ptr<f32, ub>, !pto.align) {
        %v = pto.vlds %ux[%off] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
        %sn, %qn = pto.vstus %s, %c5_i32, %v, %q : !pto.align, i32, !pto.vreg<64xf32>, !pto.ptr<f32, ub> -> !pto.align, !pto.ptr<f32, ub>
        scf.yield %qn, %sn : !pto.ptr<f32, ub>, !pto.align
      }
      pto.vstar %s1, %q1 : !pto.align, !pto.ptr<f32, ub>
      // z[2048..): the positive lanes, compacted, then AR (their bytes)
      %packed = pto.addptr %uz, %c1024 : !pto.ptr<f32, ub> -> !pto.ptr<f32, ub>
      %packed2 = pto.addptr %packed, %c1024 : !pto.ptr<f32, ub> -> !pto.ptr<f32, ub>
      pto.sprclr "AR"
      %r0 = pto.init_align : !pto.align
      %r1 = scf.for %off = %c0 to %c1024 step %c64 iter_args(%r = %r0) -> (!pto.align) {
        %v = pto.vlds %ux[%off] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
        %pos = pto.vcmps %v, %zero, %all, "gt" : !pto.vreg<64xf32>, f32, !pto.mask<b32> -> !pto.mask<b32>
        %sq = pto.vsqz %v, %pos : !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
        %rn = pto.vstur %r, %sq, %packed2, "POST_UPDATE" : !pto.align, !pto.vreg<64xf32>, !pto.ptr<f32, ub> -> !pto.align
        scf.yield %rn : !pto.align
      }
      pto.vstar %r1, %packed2 : !pto.align, !pto.ptr<f32, ub>
      // scalar UB accesses: x's first words as integers, plus 5
      scf.for %k = %c0 to %c8 step %c1 {
        %w = pto.load_scalar %xi[%k] : !pto.ptr<i32, ub> -> i32
        %w5 = arith.addi %w, %c5_i32 : i32
        pto.store_scalar %w5, %zi[%k] : !pto.ptr<i32, ub>, i32
      }
    }
    // AR outlives the scope
    pto.vecscope {
      pto.sprsti "AR", %cnt[%c0_i32] : !pto.ptr<ui32, ub>, i32
    }
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.mte_ub_gm %uz, %z, %out_bytes nburst(%c1_i64, %out_bytes, %out_bytes) : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
    return
  }
}
"#;
    let x: Vec<u8> = (0..1088)
        .flat_map(|i| (((i * 37) % 101) as f32 * 0.5 - 20.0).to_le_bytes())
        .collect();
    let interp = common::run_xyz(src, &x, &x, 16448, JitMode::Off, false);
    assert!(interp.error.is_none(), "{:?}", interp.error);
    for crosscheck in [false, true] {
        let jit = common::run_xyz(src, &x, &x, 16448, JitMode::Always, crosscheck);
        assert!(jit.error.is_none(), "{:?}", jit.error);
        assert!(jit.jit.rejected.is_empty(), "{:?}", jit.jit.rejected);
        assert_eq!(jit.jit.scope_execs, 2);
        assert!(jit.jit.scope_host_ops > 0);
        let first = jit.z.iter().zip(&interp.z).position(|(a, b)| a != b);
        assert_eq!(first, None, "crosscheck {crosscheck}: first differing byte");
        assert_eq!(jit.diags, interp.diags);
    }
    // the streams did what they say: x[5..] doubled, five lanes per block,
    // the positive lanes packed and counted
    let f = |b: &[u8], i: usize| f32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
    let xs: Vec<f32> = (0..1088).map(|i| f(&x, i)).collect();
    assert!((0..1024).all(|i| f(&interp.z, i) == 2.0 * xs[i + 5]));
    assert!((0..80).all(|i| f(&interp.z, 1024 + i) == xs[i / 5 * 64 + i % 5]));
    let pos: Vec<f32> = xs[..1024].iter().copied().filter(|v| *v > 0.0).collect();
    assert!(pos
        .iter()
        .enumerate()
        .all(|(i, v)| f(&interp.z, 2048 + i) == *v));
    let n = u32::from_le_bytes(interp.z[16384..16388].try_into().unwrap());
    assert_eq!(n as usize, 4 * pos.len());
    let int = |b: &[u8], at: usize| i32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    assert!((0..8).all(|k| int(&interp.z, 16388 + 4 * k) == int(&x, 4 * k).wrapping_add(5)));
}

/// A float `load_scalar` keeps its scope in the interpreter, with the
/// reason counted: its value could reach compiled lane ops that need their
/// scalars exact in the lane type, which is checked only for constants and
/// inputs.
#[test]
fn a_float_scalar_load_keeps_the_scope_interpreted() {
    let src = r#"module attributes {pto.target_arch = "a5"} {
  func.func @fl(%x: !pto.ptr<f32, gm>, %y: !pto.ptr<f32, gm>, %z: !pto.ptr<f32, gm>) attributes {pto.entry} {
    %c0 = arith.constant 0 : index
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %n = arith.constant 256 : i64
    %ux = pto.castptr %c0_i64 : i64 -> !pto.ptr<f32, ub>
    pto.mte_gm_ub %x, %ux, %c0_i64, %n nburst(%c1_i64, %n, %n) : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.vecscope {
      %all = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      %s = pto.load_scalar %ux[%c0] : !pto.ptr<f32, ub> -> f32
      %v = pto.vbr %s : f32 -> !pto.vreg<64xf32>
      pto.vsts %v, %ux[%c0], %all : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>
    }
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.mte_ub_gm %ux, %z, %n nburst(%c1_i64, %n, %n) : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
    return
  }
}
"#;
    let x: Vec<u8> = (0..64)
        .flat_map(|i| (i as f32 + 0.5).to_le_bytes())
        .collect();
    let interp = common::run_xyz(src, &x, &x, 256, JitMode::Off, false);
    let jit = common::run_xyz(src, &x, &x, 256, JitMode::Always, false);
    assert!(interp.error.is_none() && jit.error.is_none());
    assert_eq!(jit.jit.scope_execs, 0);
    assert!(
        jit.jit
            .rejected
            .keys()
            .any(|k| k.contains("'pto.load_scalar' of a float")),
        "{:?}",
        jit.jit.rejected
    );
    assert_eq!(jit.z, interp.z);
    assert!(interp.z.chunks(4).all(|c| c == 0.5f32.to_le_bytes()));
}

/// The host-run ops with alignment state, special registers, gathers and
/// scalar accesses fault past UB inside a compiled scope as in the
/// interpreter, naming the same op: nothing reads or writes outside the
/// scope's UB.
#[test]
fn stream_gather_and_scalar_faults_inside_compiled_scopes_match() {
    // (the setup line before the faulting op, the faulting op)
    let cases = [
        (
            "%a = pto.vldas %far : !pto.ptr<f32, ub> -> !pto.align",
            "%v, %a2 = pto.vldus %far, %a : !pto.ptr<f32, ub>, !pto.align -> !pto.vreg<64xf32>, !pto.align",
        ),
        (
            "%idx = pto.vbr %big : i32 -> !pto.vreg<64xi32>",
            "%g = pto.vgather2 %ub, %idx, %all : !pto.ptr<f32, ub>, !pto.vreg<64xi32>, !pto.mask<b32> -> !pto.vreg<64xf32>",
        ),
        (
            "%sq = pto.vsqz %zero, %all : !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>",
            "%s1 = pto.vstur %s0, %sq, %far, \"POST_UPDATE\" : !pto.align, !pto.vreg<64xf32>, !pto.ptr<f32, ub> -> !pto.align",
        ),
        (
            "%w = arith.constant 7 : i32",
            "pto.store_scalar %w, %fari[%c64] : !pto.ptr<i32, ub>, i32",
        ),
    ];
    for (setup, op) in cases {
        let src = format!(
            r#"module attributes {{pto.target_arch = "a5"}} {{
  func.func @k() attributes {{pto.entry}} {{
    %c0_i64 = arith.constant 0 : i64
    %fa = arith.constant 262100 : i64
    %ub = pto.castptr %c0_i64 : i64 -> !pto.ptr<f32, ub>
    %far = pto.castptr %fa : i64 -> !pto.ptr<f32, ub>
    %fari = pto.castptr %fa : i64 -> !pto.ptr<i32, ub>
    pto.vecscope {{
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %big = arith.constant 1000000 : i32
      %all = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      %zero = pto.vlds %ub[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      %s0 = pto.init_align : !pto.align
      {setup}
      {op}
    }}
    return
  }}
}}"#
        );
        let seen = faults_in_both_tiers(&src);
        assert_eq!(seen[0].0, 16, "{op}");
        assert_eq!(seen[0], seen[1], "{op}");
    }
}
