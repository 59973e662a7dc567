//! Fused tile chains (`jitchain`): random runs of 2-5 elementwise ops with
//! random wiring over a pool of tiles (in place, shared inputs), random shapes
//! and valid regions, NaN/±inf/-0 inputs. The fused run must equal the ops
//! compiled one by one bit for bit, and the interpreter bit for bit except
//! where an exp's result flows (within its bound); the checker must report
//! the same diagnostics.
//!
//! Which runs fuse: every run here, whole (one chain of all its ops). How a
//! fused chain runs: a chain with an exp runs in parts (compiled loops of the
//! ops between its exps, each exp as its single-op region) when it is f32 on
//! a host with the wide exp (`pto_jit::has_wide_exp`; the exp then runs on
//! the wide vectors) or f16/bf16; every other chain (no exp, i32, f32
//! without the wide exp) runs as one loop. `--stats` counts a chain in
//! parts once in `chains_compiled` and once in `chains_in_parts`.

use proptest::prelude::*;
use pto_vm::{load_text, run_kernel, Arg, Config, JitMode, Sched};

const TILES: usize = 4;

/// (name, form): 'b' tile-tile, 'u' unary, 's' tile-scalar, 'l' scalar-tile.
const OPS_F32: &[(&str, char)] = &[
    ("tadd", 'b'),
    ("tsub", 'b'),
    ("tmul", 'b'),
    ("tdiv", 'b'),
    ("tmax", 'b'),
    ("tmin", 'b'),
    ("tabs", 'u'),
    ("tneg", 'u'),
    ("tsqrt", 'u'),
    ("trsqrt", 'u'),
    ("trecip", 'u'),
    ("trelu", 'u'),
    ("texp", 'u'),
    ("tadds", 's'),
    ("tmuls", 's'),
    ("tmaxs", 's'),
    ("tsubs", 's'),
];
const OPS_HALF: &[(&str, char)] = &[
    ("tadd", 'b'),
    ("tsub", 'b'),
    ("tmul", 'b'),
    ("tdiv", 'b'),
    ("tmax", 'b'),
    ("tmin", 'b'),
    ("tabs", 'u'),
    ("tneg", 'u'),
    ("tsqrt", 'u'),
    ("trsqrt", 'u'),
    ("trecip", 'u'),
    ("trelu", 'u'),
    ("texp", 'u'),
    ("tlog", 'u'),
    ("tadds", 's'),
    ("tmuls", 's'),
    ("tmaxs", 's'),
    ("tsubs", 's'),
];
const OPS_I32: &[(&str, char)] = &[
    ("tadd", 'b'),
    ("tsub", 'b'),
    ("tmul", 'b'),
    ("tmax", 'b'),
    ("tmin", 'b'),
    ("tand", 'b'),
    ("tor", 'b'),
    ("txor", 'b'),
    ("tabs", 'u'),
    ("tneg", 'u'),
    ("tadds", 's'),
    ("tmuls", 's'),
    ("tmins", 's'),
];

/// One op: index into the op list, sources, destination.
#[derive(Clone, Copy, Debug)]
struct Step {
    op: usize,
    a: usize,
    b: usize,
    d: usize,
}

struct Shape {
    rows: usize,
    cols: usize,
    vr: usize,
    vc: usize,
    /// Column-major tiles over DN views (else row-major over ND).
    col_major: bool,
}

fn tile_ty(dt: &str, s: &Shape) -> String {
    let bl = if s.col_major {
        "col_major"
    } else {
        "row_major"
    };
    format!(
        "!pto.tile_buf<loc=vec, dtype={dt}, rows={}, cols={}, v_row={}, v_col={}, blayout={bl}, slayout=none_box, fractal=512, pad=0>",
        s.rows, s.cols, s.vr, s.vc
    )
}

/// A kernel that loads the four tiles, runs `steps` back to back on PIPE_V and
/// stores the valid region of every tile. `racy` drops the V -> MTE3 wait.
fn kernel(dt: &str, ops: &[(&str, char)], steps: &[Step], s: &Shape, racy: bool) -> String {
    let tb = tile_ty(dt, s);
    let (rows, cols, vr, vc) = (s.rows, s.cols, s.vr, s.vc);
    let view = format!("!pto.tensor_view<{rows}x{cols}x{dt}>");
    let part = format!("!pto.partition_tensor_view<{rows}x{cols}x{dt}>");
    let vpart = format!("!pto.partition_tensor_view<{vr}x{vc}x{dt}>");
    let strides = if s.col_major {
        "[%c1, %cr] {layout = #pto.layout<dn>}"
    } else {
        "[%cc, %c1]"
    };
    let sval = if dt == "i32" {
        "%s = arith.constant -3 : i32".to_string()
    } else {
        format!("%s = arith.constant 1.5 : {dt}")
    };
    let mut args = Vec::new();
    let mut body = Vec::new();
    for t in 0..TILES {
        args.push(format!("%in{t}: !pto.ptr<{dt}>"));
        body.push(format!("%iv{t} = pto.make_tensor_view %in{t}, shape = [%cr, %cc], strides = {strides} : {view}"));
        body.push(format!("%ip{t} = pto.partition_view %iv{t}, offsets = [%c0, %c0], sizes = [%cr, %cc] : {view} -> {part}"));
        body.push(format!("%t{t} = pto.alloc_tile : {tb}"));
        body.push(format!("pto.tload ins(%ip{t} : {part}) outs(%t{t} : {tb})"));
    }
    for t in 0..TILES {
        args.push(format!("%out{t}: !pto.ptr<{dt}>"));
        body.push(format!("%ov{t} = pto.make_tensor_view %out{t}, shape = [%cr, %cc], strides = {strides} : {view}"));
        body.push(format!("%op{t} = pto.partition_view %ov{t}, offsets = [%c0, %c0], sizes = [%vr, %vc] : {view} -> {vpart}"));
    }
    body.push("pto.set_flag[\"PIPE_MTE2\", \"PIPE_V\", \"EVENT_ID0\"]".into());
    body.push("pto.wait_flag[\"PIPE_MTE2\", \"PIPE_V\", \"EVENT_ID0\"]".into());
    for st in steps {
        let (name, form) = ops[st.op];
        let ins = match form {
            'b' => format!("ins(%t{}, %t{} : {tb}, {tb})", st.a, st.b),
            'u' => format!("ins(%t{} : {tb})", st.a),
            's' => format!("ins(%t{}, %s : {tb}, {dt})", st.a),
            _ => format!("ins(%s, %t{} : {dt}, {tb})", st.a),
        };
        body.push(format!("pto.{name} {ins} outs(%t{} : {tb})", st.d));
    }
    if !racy {
        body.push("pto.set_flag[\"PIPE_V\", \"PIPE_MTE3\", \"EVENT_ID0\"]".into());
        body.push("pto.wait_flag[\"PIPE_V\", \"PIPE_MTE3\", \"EVENT_ID0\"]".into());
    }
    for t in 0..TILES {
        body.push(format!(
            "pto.tstore ins(%t{t} : {tb}) outs(%op{t} : {vpart})"
        ));
    }
    format!(
        r#"module attributes {{pto.target_arch = "a5"}} {{
  func.func @k({}) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cr = arith.constant {rows} : index
    %cc = arith.constant {cols} : index
    %vr = arith.constant {vr} : index
    %vc = arith.constant {vc} : index
    {sval}
    {}
    return
  }}
}}"#,
        args.join(", "),
        body.join("\n    ")
    )
}

struct Ran {
    outs: Vec<Vec<u8>>,
    diags: Vec<(String, Option<u32>, Option<u32>, String)>,
    jit: pto_vm::JitStats,
}

fn run(
    src: &str,
    jit: JitMode,
    fuse: bool,
    crosscheck: bool,
    sched: Sched,
    ins: &[Vec<u8>],
) -> Ran {
    let k = load_text("t.pto", src, None).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let cfg = Config {
        profile: k.profile,
        jit,
        jit_fuse: fuse,
        crosscheck,
        sched,
        jit_threshold: 0,
        ..Config::default()
    };
    let mut args: Vec<Arg> = ins.iter().map(|b| Arg::Buffer(b.clone())).collect();
    for b in ins {
        args.push(Arg::Buffer(vec![0; b.len()]));
    }
    let f = run_kernel(&k, &cfg, None, &args).expect("runs");
    assert_eq!(f.out.error, None, "{src}");
    Ran {
        outs: f.buffers[TILES..].to_vec(),
        diags: f
            .out
            .diags
            .list
            .iter()
            .map(|d| {
                (
                    d.kind.name().to_string(),
                    d.inst,
                    d.other,
                    d.message.clone(),
                )
            })
            .collect(),
        jit: f.out.jit,
    }
}

fn special(i: usize, x: f32) -> f32 {
    match i % 19 {
        0 => f32::NAN,
        1 => f32::INFINITY,
        2 => f32::NEG_INFINITY,
        3 => -0.0,
        4 => 0.0,
        5 => 1e-40,
        _ => x,
    }
}

fn f32_close(a: &[u8], b: &[u8]) -> bool {
    let p = f32::from_le_bytes([a[0], a[1], a[2], a[3]]);
    let q = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    if (p.is_nan() && q.is_nan()) || p.to_bits() == q.to_bits() {
        return true;
    }
    let key = |v: f32| {
        let i = v.to_bits() as i32;
        if i < 0 {
            i64::from(i32::MIN) - i64::from(i)
        } else {
            i64::from(i)
        }
    };
    let scale = 1f32.max(p.abs()).max(q.abs());
    (p - q).abs() <= 1e-5 * scale || key(p).abs_diff(key(q)) <= u64::from(pto_jit::EXP_ULP)
}

proptest! {
    // 64 cases in CI; PROPTEST_CASES=N for long runs
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64),
        .. ProptestConfig::default()
    })]
    #[test]
    fn fused_chains_match_ops_one_by_one(
        f32_lane in any::<bool>(),
        raw in proptest::collection::vec((0usize..64, 0usize..TILES, 0usize..TILES, 0usize..TILES), 2..6),
        rows in 1usize..9,
        col_blocks in 1usize..5,
        vr_cut in 0usize..3,
        vc_cut in 0usize..11,
        timed in any::<bool>(),
        racy in any::<bool>(),
        col_major in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let (dt, ops) = if f32_lane { ("f32", OPS_F32) } else { ("i32", OPS_I32) };
        // after an exp, no op that cancels (add/sub) or exponentiates again:
        // the exp's ulp error then stays within 1e-5 relative downstream
        let mut exp_seen = false;
        let steps: Vec<Step> = raw
            .iter()
            .map(|&(o, a, b, d)| {
                let mut op = o % ops.len();
                let name = ops[op].0;
                if exp_seen && matches!(name, "tadd" | "tsub" | "texp" | "tadds" | "tsubs") {
                    op = ops.iter().position(|x| x.0 == "tmul").unwrap_or(0);
                }
                exp_seen |= ops[op].0 == "texp";
                Step { op, a, b, d }
            })
            .collect();
        // the dimension a line runs along is a whole number of 32-byte blocks
        let shape = if col_major {
            let (rows, cols) = (col_blocks * 8, rows);
            Shape {
                rows,
                cols,
                vr: rows.saturating_sub(vc_cut).max(1),
                vc: cols.saturating_sub(vr_cut).max(1),
                col_major,
            }
        } else {
            let cols = col_blocks * 8;
            Shape {
                rows,
                cols,
                vr: rows.saturating_sub(vr_cut).max(1),
                vc: cols.saturating_sub(vc_cut).max(1),
                col_major,
            }
        };
        let (rows, cols) = (shape.rows, shape.cols);
        let src = kernel(dt, ops, &steps, &shape, racy);
        let n = rows * cols;
        let mut st = seed | 1;
        let mut next = || { st ^= st << 13; st ^= st >> 7; st ^= st << 17; st };
        let ins: Vec<Vec<u8>> = (0..TILES).map(|_| {
            (0..n).flat_map(|i| {
                let r = next();
                if f32_lane {
                    special(i + (r as usize % 7), ((r >> 11) as f64 / (1u64 << 53) as f64 * 20.0 - 10.0) as f32).to_le_bytes()
                } else {
                    ((r as i64 >> 3) as i32).to_le_bytes()
                }
            }).collect()
        }).collect();
        let sched = if timed { Sched::Timed } else { Sched::InOrder };
        let interp = run(&src, JitMode::Off, false, false, sched, &ins);
        let single = run(&src, JitMode::Always, false, false, sched, &ins);
        let fused = run(&src, JitMode::Always, true, !racy, sched, &ins);
        prop_assert_eq!(fused.jit.chain_execs, 1, "one fused chain\n{}", src);
        prop_assert_eq!(fused.jit.chain_ops, steps.len() as u64, "all ops fused\n{}", src);
        prop_assert_eq!(fused.jit.chains_compiled, 1);
        // in parts exactly when f32 with an exp on a host with the wide exp
        let parts = f32_lane && exp_seen && pto_jit::has_wide_exp();
        prop_assert_eq!(fused.jit.chains_in_parts, u32::from(parts), "\n{}", src);
        prop_assert_eq!(single.jit.chain_execs, 0);
        prop_assert_eq!(single.jit.chains_in_parts, 0);
        // the checker sees the same accesses: the same diagnostics
        prop_assert_eq!(&fused.diags, &interp.diags, "\n{}", src);
        prop_assert_eq!(&single.diags, &interp.diags, "\n{}", src);
        if racy {
            prop_assert!(!fused.diags.is_empty(), "the missing wait is reported");
        } else {
            prop_assert!(fused.diags.is_empty(), "{:?}", fused.diags);
            // NaN sign and payload are the host's (the operand order of a
            // commutative op is the register allocator's choice): any NaN
            // equals any NaN, everything else bit for bit
            let nan = |a: &[u8], b: &[u8]| {
                let p = f32::from_le_bytes([a[0], a[1], a[2], a[3]]);
                let q = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                p.is_nan() && q.is_nan()
            };
            for (t, (w, g)) in single.outs.iter().zip(&fused.outs).enumerate() {
                for (i, (a, b)) in w.chunks(4).zip(g.chunks(4)).enumerate() {
                    let same = a == b || (f32_lane && nan(a, b));
                    prop_assert!(same, "tile {} element {}: ops one by one {:?}, fused {:?}\n{}", t, i, a, b, src);
                }
            }
            for (t, (w, g)) in interp.outs.iter().zip(&fused.outs).enumerate() {
                for (i, (a, b)) in w.chunks(4).zip(g.chunks(4)).enumerate() {
                    let same = a == b || (f32_lane && (nan(a, b) || (exp_seen && f32_close(a, b))));
                    prop_assert!(same, "tile {} element {}: interpreter {:?}, fused {:?}\n{}", t, i, a, b, src);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64),
        .. ProptestConfig::default()
    })]
    /// f16/bf16 chains: each op rounds to the type as when run alone, so
    /// the fused chain equals the compiled ops one by one bit for bit (any
    /// NaN for NaN) and the interpreter within the ops' bounds (exact
    /// before the first approximated op, close after it).
    #[test]
    fn fused_half_chains_match_ops_one_by_one(
        bf in any::<bool>(),
        raw in proptest::collection::vec((0usize..64, 0usize..TILES, 0usize..TILES, 0usize..TILES), 2..6),
        rows in 1usize..9,
        col_blocks in 1usize..4,
        vr_cut in 0usize..3,
        vc_cut in 0usize..19,
        seed in any::<u64>(),
    ) {
        let dt = if bf { "bf16" } else { "f16" };
        let ops = OPS_HALF;
        let mut approx = false;
        let steps: Vec<Step> = raw
            .iter()
            .map(|&(o, a, b, d)| {
                let mut op = o % ops.len();
                let name = ops[op].0;
                if approx && matches!(name, "tadd" | "tsub" | "texp" | "tadds" | "tsubs" | "tlog") {
                    op = ops.iter().position(|x| x.0 == "tmul").unwrap_or(0);
                }
                approx |= matches!(ops[op].0, "texp" | "tlog" | "trsqrt");
                Step { op, a, b, d }
            })
            .collect();
        let cols = col_blocks * 16;
        let shape = Shape {
            rows,
            cols,
            vr: rows.saturating_sub(vr_cut).max(1),
            vc: cols.saturating_sub(vc_cut).max(1),
            col_major: false,
        };
        let src = kernel(dt, ops, &steps, &shape, false);
        let n = rows * cols;
        let mut st = seed | 1;
        let mut next = || { st ^= st << 13; st ^= st >> 7; st ^= st << 17; st };
        let ins: Vec<Vec<u8>> = (0..TILES).map(|_| {
            (0..n).flat_map(|_| {
                let r = next();
                let h = if r % 8 == 0 {
                    r as u16 >> 3
                } else if bf {
                    ((((r >> 8) % 2000) as f32 / 100.0 - 10.0).to_bits() >> 16) as u16
                } else {
                    (r as u16 & 0x83ff) | (((r >> 16) as u16 % 8 + 11) << 10)
                };
                h.to_le_bytes()
            }).collect()
        }).collect();
        let sched = Sched::InOrder;
        let interp = run(&src, JitMode::Off, false, false, sched, &ins);
        let single = run(&src, JitMode::Always, false, false, sched, &ins);
        let fused = run(&src, JitMode::Always, true, true, sched, &ins);
        prop_assert_eq!(fused.jit.chain_execs, 1, "one fused chain\n{}", src);
        prop_assert_eq!(fused.jit.chain_ops, steps.len() as u64, "all ops fused\n{}", src);
        // 16-bit chains split at every exp, whatever the host
        let has_exp = steps.iter().any(|s| ops[s.op].0 == "texp");
        prop_assert_eq!(
            (fused.jit.chains_compiled, fused.jit.chains_in_parts),
            (1, u32::from(has_exp)),
            "\n{}",
            src
        );
        prop_assert_eq!(&fused.diags, &interp.diags, "\n{}", src);
        let val = |b: &[u8]| {
            let h = u16::from_le_bytes([b[0], b[1]]);
            if bf {
                f64::from(f32::from_bits(u32::from(h) << 16))
            } else {
                f64::from(half::f16::from_bits(h).to_f32())
            }
        };
        let nan = |a: &[u8], b: &[u8]| val(a).is_nan() && val(b).is_nan();
        for (t, (w, g)) in single.outs.iter().zip(&fused.outs).enumerate() {
            for (i, (a, b)) in w.chunks(2).zip(g.chunks(2)).enumerate() {
                prop_assert!(a == b || nan(a, b), "tile {} element {}: ops one by one {:?}, fused {:?}\n{}", t, i, a, b, src);
            }
        }
        for (t, (w, g)) in interp.outs.iter().zip(&fused.outs).enumerate() {
            for (i, (a, b)) in w.chunks(2).zip(g.chunks(2)).enumerate() {
                let (p, q) = (val(a), val(b));
                let close = approx && (p - q).abs() <= 1e-2 * 1f64.max(p.abs()).max(q.abs());
                prop_assert!(a == b || nan(a, b) || close, "tile {} element {}: interpreter {:?}, fused {:?}\n{}", t, i, a, b, src);
            }
        }
    }
}

/// Two tiles that overlap without being the same tile (the second starts 32
/// bytes into the first): fusing would read bytes an earlier op of the chain
/// has not written yet, so the ops run one by one, and `--stats` says why.
#[test]
fn partial_overlap_prevents_fusion() {
    let tb = "!pto.tile_buf<loc=vec, dtype=f32, rows=4, cols=16, v_row=4, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
    let view = "!pto.tensor_view<4x16xf32>";
    let part = "!pto.partition_tensor_view<4x16xf32>";
    let src = format!(
        r#"module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %a0 = arith.constant 0 : i64
    %a32 = arith.constant 32 : i64
    %s = arith.constant 2.0 : f32
    %xv = pto.make_tensor_view %x, shape = [%c4, %c16], strides = [%c16, %c1] : {view}
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c4, %c16] : {view} -> {part}
    %yv = pto.make_tensor_view %y, shape = [%c4, %c16], strides = [%c16, %c1] : {view}
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c4, %c16] : {view} -> {part}
    %a = pto.alloc_tile addr = %a0 : {tb}
    %b = pto.alloc_tile addr = %a32 : {tb}
    pto.tload ins(%xp : {part}) outs(%a : {tb})
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.tmuls ins(%a, %s : {tb}, f32) outs(%a : {tb})
    pto.tadd ins(%b, %a : {tb}, {tb}) outs(%b : {tb})
    pto.tneg ins(%b : {tb}) outs(%b : {tb})
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.tstore ins(%b : {tb}) outs(%yp : {part})
    return
  }}
}}"#
    );
    let x: Vec<u8> = (0..64).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let go = |jit: JitMode| {
        let k = load_text("t.pto", &src, None).unwrap_or_else(|e| panic!("{e}"));
        let cfg = Config {
            profile: k.profile,
            jit,
            crosscheck: jit != JitMode::Off,
            jit_threshold: 0,
            ..Config::default()
        };
        let f = run_kernel(
            &k,
            &cfg,
            None,
            &[Arg::Buffer(x.clone()), Arg::Buffer(vec![0; 256])],
        )
        .expect("runs");
        assert_eq!(f.out.error, None);
        f
    };
    let want = go(JitMode::Off);
    let got = go(JitMode::Always);
    assert_eq!(got.buffers, want.buffers);
    assert_eq!(got.out.jit.chain_execs, 0, "{:?}", got.out.jit);
    assert_eq!(got.out.jit.jit_execs, 3, "each op ran compiled alone");
    let why: Vec<&String> = got.out.jit.rejected.keys().collect();
    assert!(
        why.iter().any(|w| w.contains("overlap")),
        "the rejection names the overlap: {why:?}"
    );
    // the same ops on disjoint tiles fuse
    let apart = src.replace(
        "%a32 = arith.constant 32 : i64",
        "%a32 = arith.constant 256 : i64",
    );
    let k = load_text("t.pto", &apart, None).expect("loads");
    let cfg = Config {
        profile: k.profile,
        jit: JitMode::Always,
        crosscheck: true,
        ..Config::default()
    };
    let f = run_kernel(
        &k,
        &cfg,
        None,
        &[Arg::Buffer(x.clone()), Arg::Buffer(vec![0; 256])],
    )
    .expect("runs");
    assert_eq!(f.out.error, None);
    assert_eq!((f.out.jit.chain_execs, f.out.jit.chain_ops), (1, 3));
}

/// `--jit auto`: a chain runs op by op until it has run `threshold` times,
/// then fused; a sync point between two ops splits the run.
#[test]
fn chains_tier_up_and_stop_at_sync_points() {
    let tb = "!pto.tile_buf<loc=vec, dtype=f32, rows=2, cols=8, v_row=2, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
    let view = "!pto.tensor_view<2x8xf32>";
    let part = "!pto.partition_tensor_view<2x8xf32>";
    let body = |mid: &str| {
        format!(
            r#"module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c5 = arith.constant 5 : index
    %c8 = arith.constant 8 : index
    %s = arith.constant 0.5 : f32
    %xv = pto.make_tensor_view %x, shape = [%c2, %c8], strides = [%c8, %c1] : {view}
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c2, %c8] : {view} -> {part}
    %yv = pto.make_tensor_view %y, shape = [%c2, %c8], strides = [%c8, %c1] : {view}
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c2, %c8] : {view} -> {part}
    %a = pto.alloc_tile : {tb}
    %d = pto.alloc_tile : {tb}
    pto.tload ins(%xp : {part}) outs(%a : {tb})
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    scf.for %i = %c0 to %c5 step %c1 {{
      pto.tmuls ins(%a, %s : {tb}, f32) outs(%d : {tb})
      {mid}
      pto.tadd ins(%d, %a : {tb}, {tb}) outs(%a : {tb})
    }}
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.tstore ins(%a : {tb}) outs(%yp : {part})
    return
  }}
}}"#
        )
    };
    let x: Vec<u8> = (0..16)
        .flat_map(|i| (i as f32 - 3.0).to_le_bytes())
        .collect();
    let go = |src: &str, jit: JitMode| {
        let k = load_text("t.pto", src, None).unwrap_or_else(|e| panic!("{e}\n{src}"));
        let cfg = Config {
            profile: k.profile,
            jit,
            jit_threshold: 2,
            ..Config::default()
        };
        let f = run_kernel(
            &k,
            &cfg,
            None,
            &[Arg::Buffer(x.clone()), Arg::Buffer(vec![0; 64])],
        )
        .expect("runs");
        assert_eq!(f.out.error, None);
        assert!(f.out.diags.list.is_empty(), "{:?}", f.out.diags.list);
        f
    };
    let plain = body("");
    let want = go(&plain, JitMode::Off);
    let got = go(&plain, JitMode::Auto);
    assert_eq!(got.buffers, want.buffers);
    // 5 iterations, threshold 2: the last 3 fused
    assert_eq!(
        (
            got.out.jit.chain_execs,
            got.out.jit.chain_ops,
            got.out.jit.chains_compiled
        ),
        (3, 6, 1)
    );
    let split = body("pto.pipe_barrier[\"PIPE_V\"]");
    let got = go(&split, JitMode::Always);
    assert_eq!(got.buffers, want.buffers);
    assert_eq!(
        got.out.jit.chain_execs, 0,
        "a barrier between the ops splits the run"
    );
}
