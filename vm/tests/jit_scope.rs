//! Compiled vector scopes == the interpreter: random `pto.vecscope` loops
//! (chains of lane-wise ops on f32 or i32 with plt tail masks, scalar
//! operands, broadcasts) run interpreted, compiled, and with `--crosscheck`;
//! outputs, instruction counts and diagnostics must agree. Plus faults and
//! the checker's view of a compiled scope.

use proptest::prelude::*;
use pto_vm::{load_text, run_kernel, Arg, CheckMode, Config, JitMode};

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
}

const F32_BIN: &[&str] = &["vadd", "vsub", "vmul", "vdiv", "vmax", "vmin"];
const F32_UN: &[&str] = &["vabs", "vneg", "vrelu", "vsqrt", "vrsqrt", "vrec", "vexp"];
const F32_SC: &[&str] = &["vadds", "vmuls", "vmaxs", "vmins"];
const I32_BIN: &[&str] = &[
    "vadd", "vsub", "vmul", "vmax", "vmin", "vand", "vor", "vxor",
];
const I32_UN: &[&str] = &["vabs", "vneg", "vrelu"];
const I32_SC: &[&str] = &["vadds", "vmuls", "vmaxs", "vmins"];

fn kernel(dt: &str, n: usize, steps: &[Step], sval: &str) -> String {
    let v = format!("!pto.vreg<64x{dt}>");
    let m = "!pto.mask<b32>";
    let mut body = String::new();
    let mut cur = "%a".to_string();
    for (i, s) in steps.iter().enumerate() {
        let r = format!("%r{i}");
        let line = match s {
            Step::Bin(op) => format!("{r} = pto.{op} {cur}, %b, %m : {v}, {v}, {m} -> {v}"),
            Step::Un(op) => format!("{r} = pto.{op} {cur}, %m : {v}, {m} -> {v}"),
            Step::Scalar(op) => format!("{r} = pto.{op} {cur}, %s, %m : {v}, {dt}, {m} -> {v}"),
            Step::Dup(masked) => {
                let d = if *masked {
                    format!("%d{i} = pto.vdup %s, %m : {dt}, {m} -> {v}")
                } else {
                    format!("%d{i} = pto.vbr %s : {dt} -> {v}")
                };
                format!("{d}\n          {r} = pto.vadd {cur}, %d{i}, %all : {v}, {v}, {m} -> {v}")
            }
        };
        body += &format!("          {line}\n");
        cur = r;
    }
    let bytes = 640 * 4;
    let end = n.div_ceil(64) * 64;
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
    pto.mte_gm_ub %x, %ux, %c0_i64, %cb_i64 nburst(%c1_i64, %cb_i64, %cb_i64) : !pto.ptr<{dt}, gm>, !pto.ptr<{dt}, ub>, i64, i64, i64, i64, i64
    pto.mte_gm_ub %y, %uy, %c0_i64, %cb_i64 nburst(%c1_i64, %cb_i64, %cb_i64) : !pto.ptr<{dt}, gm>, !pto.ptr<{dt}, ub>, i64, i64, i64, i64, i64
    pto.mte_gm_ub %z, %uz, %c0_i64, %cb_i64 nburst(%c1_i64, %cb_i64, %cb_i64) : !pto.ptr<{dt}, gm>, !pto.ptr<{dt}, ub>, i64, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.vecscope {{
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %cend = arith.constant {end} : index
      %n = arith.constant {n} : i32
      %s = arith.constant {sval} : {dt}
      %all = pto.pset_b32 "PAT_ALL" : {m}
      %res:1 = scf.for %off = %c0 to %cend step %c64 iter_args(%rem = %n) -> (i32) {{
          %m, %next = pto.plt_b32 %rem : i32 -> {m}, i32
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

struct Ran {
    z: Vec<u8>,
    counts: Vec<u64>,
    error: Option<String>,
    diags: usize,
    scope_execs: u64,
}

fn run(src: &str, x: &[u8], y: &[u8], jit: JitMode, crosscheck: bool) -> Ran {
    let k = load_text("k.pto", src, None).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let cfg = Config {
        profile: k.profile,
        jit,
        crosscheck,
        check: CheckMode::Warn,
        ..Config::default()
    };
    let args = [
        Arg::Buffer(x.to_vec()),
        Arg::Buffer(y.to_vec()),
        Arg::Buffer(vec![0xa5; 640 * 4]),
    ];
    let f = run_kernel(&k, &cfg, None, &args).expect("runs");
    Ran {
        z: f.buffers[2].clone(),
        counts: f.out.op_counts.clone(),
        error: f.out.error.as_ref().map(|e| format!("{e:?}")),
        diags: f.out.diags.list.len(),
        scope_execs: f.out.jit.scope_execs,
    }
}

fn special(i: usize, v: f32) -> f32 {
    match i % 37 {
        0 => f32::NAN,
        1 => f32::INFINITY,
        2 => f32::NEG_INFINITY,
        3 => -0.0,
        4 => 1e-40,
        5 => -3.0e38,
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

fn step(float: bool) -> impl Strategy<Value = Step> {
    let (bin, un, sc) = if float {
        (F32_BIN, F32_UN, F32_SC)
    } else {
        (I32_BIN, I32_UN, I32_SC)
    };
    prop_oneof![
        proptest::sample::select(bin).prop_map(Step::Bin),
        proptest::sample::select(un).prop_map(Step::Un),
        proptest::sample::select(sc).prop_map(Step::Scalar),
        any::<bool>().prop_map(Step::Dup),
    ]
}

fn case() -> impl Strategy<Value = (bool, usize, Vec<Step>, u64)> {
    any::<bool>().prop_flat_map(|float| {
        (
            Just(float),
            1usize..=640,
            proptest::collection::vec(step(float), 1..5),
            any::<u64>(),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn compiled_scopes_match_the_interpreter((float, n, steps, seed) in case()) {
        let dt = if float { "f32" } else { "i32" };
        let sval = if float { "-1.25" } else { "-7" };
        let src = kernel(dt, n, &steps, sval);
        let mut s = seed | 1;
        let mut rnd = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let (x, y): (Vec<u8>, Vec<u8>) = if float {
            let x = (0..640).flat_map(|i| special(i, (rnd() % 2000) as f32 / 100.0 - 10.0).to_le_bytes()).collect();
            let y = (0..640).flat_map(|i| special(i + 5, (rnd() % 2000) as f32 / 100.0 - 10.0).to_le_bytes()).collect();
            (x, y)
        } else {
            let x = (0..640).flat_map(|_| (rnd() as i32).to_le_bytes()).collect();
            let y = (0..640).flat_map(|_| (rnd() as i32 >> (rnd() % 31)).to_le_bytes()).collect();
            (x, y)
        };
        let interp = run(&src, &x, &y, JitMode::Off, false);
        let jit = run(&src, &x, &y, JitMode::Always, false);
        let cross = run(&src, &x, &y, JitMode::Always, true);
        prop_assert!(interp.error.is_none(), "{:?}\n{}", interp.error, src);
        prop_assert!(jit.error.is_none(), "{:?}\n{}", jit.error, src);
        prop_assert!(cross.error.is_none(), "{:?}\n{}", cross.error, src);
        prop_assert_eq!(jit.scope_execs, 1, "the scope was not compiled\n{}", src);
        prop_assert_eq!(&interp.counts, &jit.counts);
        prop_assert_eq!(interp.diags, jit.diags);
        let approx = steps.iter().any(|s| matches!(s, Step::Un("vexp")));
        for (i, (a, b)) in interp.z.chunks(4).zip(jit.z.chunks(4)).enumerate() {
            let (a, b) = (u32::from_le_bytes(a.try_into().unwrap()), u32::from_le_bytes(b.try_into().unwrap()));
            let nan = float && f32::from_bits(a).is_nan() && f32::from_bits(b).is_nan();
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

/// Missing synchronization around a compiled scope is still found: the scope
/// reports its UB accesses to the checker.
#[test]
fn the_checker_sees_compiled_scope_accesses() {
    let src = kernel("f32", 200, &[Step::Bin("vadd")], "1.0").replace(
        "    pto.wait_flag[\"PIPE_MTE2\", \"PIPE_V\", \"EVENT_ID0\"]\n",
        "",
    );
    let x: Vec<u8> = (0..640).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let interp = run(&src, &x, &x, JitMode::Off, false);
    let jit = run(&src, &x, &x, JitMode::Always, false);
    assert_eq!(jit.scope_execs, 1);
    assert!(interp.diags > 0);
    assert_eq!(interp.diags, jit.diags);
}

/// An address outside UB stops a compiled scope with the interpreter's fault.
#[test]
fn out_of_bounds_faults_match() {
    let src = kernel("f32", 640, &[Step::Bin("vadd")], "1.0").replace(
        "%c8192_i64 = arith.constant 8192",
        "%c8192_i64 = arith.constant 261000",
    );
    let x = vec![0u8; 640 * 4];
    let interp = run(&src, &x, &x, JitMode::Off, false);
    let jit = run(&src, &x, &x, JitMode::Always, false);
    assert!(interp.error.is_some());
    assert_eq!(interp.error, jit.error);
}
