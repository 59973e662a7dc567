//! JIT == interpreter on random elementwise tile ops (ops, lane types, shapes,
//! valid regions, values incl. NaN/±inf/-0), through the whole machine with
//! `--crosscheck`, plus tier-up counting and hostile shapes.

use proptest::prelude::*;
use pto_vm::{load_text, run_kernel, Arg, Config, JitMode};

const OPS_F32: &[&str] = &[
    "tadd", "tsub", "tmul", "tdiv", "tmax", "tmin", "tabs", "tneg", "tsqrt", "trsqrt", "trecip",
    "trelu", "tadds", "tmuls", "tmaxs",
];
const OPS_I32: &[&str] = &[
    "tadd", "tsub", "tmul", "tmax", "tmin", "tabs", "tneg", "tand", "tor", "txor", "tadds", "tmuls",
];

fn kernel(op: &str, dt: &str, rows: usize, cols: usize, vr: usize, vc: usize) -> String {
    kernel_in(op, dt, rows, cols, vr, vc, false)
}

/// [`kernel`] on row-major tiles and ND views, or (`col_major`) on
/// column-major tiles and DN views.
fn kernel_in(
    op: &str,
    dt: &str,
    rows: usize,
    cols: usize,
    vr: usize,
    vc: usize,
    col_major: bool,
) -> String {
    let bl = if col_major { "col_major" } else { "row_major" };
    let tb = format!("!pto.tile_buf<loc=vec, dtype={dt}, rows={rows}, cols={cols}, v_row={vr}, v_col={vc}, blayout={bl}, slayout=none_box, fractal=512, pad=0>");
    let (strides, dn) = if col_major {
        ("[%c1, %cr]", " {layout = #pto.layout<dn>}")
    } else {
        ("[%cc, %c1]", "")
    };
    let view = format!("!pto.tensor_view<{rows}x{cols}x{dt}>");
    let part = format!("!pto.partition_tensor_view<{rows}x{cols}x{dt}>");
    // a store writes exactly the valid region (the verifier checks the count)
    let vpart = format!("!pto.partition_tensor_view<{vr}x{vc}x{dt}>");
    let unary = matches!(
        op,
        "tabs" | "tneg" | "tsqrt" | "trsqrt" | "trecip" | "trelu" | "tlog" | "texp"
    );
    let scalar = op.ends_with('s') && !unary;
    let sval = if dt == "i32" {
        "%s = arith.constant -3 : i32".to_string()
    } else {
        format!("%s = arith.constant 1.5 : {dt}")
    };
    let ins = if unary {
        format!("ins(%a : {tb})")
    } else if scalar {
        format!("ins(%a, %s : {tb}, {dt})")
    } else {
        format!("ins(%a, %b : {tb}, {tb})")
    };
    format!(
        r#"module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%x: !pto.ptr<{dt}>, %y: !pto.ptr<{dt}>, %z: !pto.ptr<{dt}>) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cr = arith.constant {rows} : index
    %cc = arith.constant {cols} : index
    {sval}
    %xv = pto.make_tensor_view %x, shape = [%cr, %cc], strides = {strides}{dn} : {view}
    %yv = pto.make_tensor_view %y, shape = [%cr, %cc], strides = {strides}{dn} : {view}
    %zv = pto.make_tensor_view %z, shape = [%cr, %cc], strides = {strides}{dn} : {view}
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%cr, %cc] : {view} -> {part}
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%cr, %cc] : {view} -> {part}
    %vr = arith.constant {vr} : index
    %vc = arith.constant {vc} : index
    %zp = pto.partition_view %zv, offsets = [%c0, %c0], sizes = [%vr, %vc] : {view} -> {vpart}
    %a = pto.alloc_tile : {tb}
    %b = pto.alloc_tile : {tb}
    %d = pto.alloc_tile : {tb}
    pto.tload ins(%xp : {part}) outs(%a : {tb})
    pto.tload ins(%yp : {part}) outs(%b : {tb})
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.{op} {ins} outs(%d : {tb})
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.tstore ins(%d : {tb}) outs(%zp : {vpart})
    return
  }}
}}"#
    )
}

fn special(i: usize, x: f32) -> f32 {
    match i % 17 {
        0 => f32::NAN,
        1 => f32::INFINITY,
        2 => f32::NEG_INFINITY,
        3 => -0.0,
        4 => 0.0,
        5 => 1e-40,
        _ => x,
    }
}

fn run(
    src: &str,
    jit: JitMode,
    crosscheck: bool,
    x: &[u8],
    y: &[u8],
) -> (Vec<u8>, pto_vm::JitStats) {
    let k = load_text("t.pto", src, None).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let cfg = Config {
        profile: k.profile,
        jit,
        crosscheck,
        jit_threshold: 0,
        ..Config::default()
    };
    let f = run_kernel(
        &k,
        &cfg,
        None,
        &[
            Arg::Buffer(x.to_vec()),
            Arg::Buffer(y.to_vec()),
            Arg::Buffer(vec![0; x.len()]),
        ],
    )
    .expect("runs");
    assert_eq!(f.out.error, None, "{src}");
    (f.buffers[2].clone(), f.out.jit)
}

proptest! {
    // 48 cases in CI; PROPTEST_CASES=N for long runs
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48),
        .. ProptestConfig::default()
    })]
    #[test]
    fn jit_matches_the_interpreter(
        f32_lane in any::<bool>(),
        op_i in 0usize..14,
        rows in 1usize..10,
        col_blocks in 1usize..4,
        vr_cut in 0usize..3,
        vc_cut in 0usize..9,
        col_major in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let (dt, ops) = if f32_lane { ("f32", OPS_F32) } else { ("i32", OPS_I32) };
        let op = ops[op_i % ops.len()];
        // the dimension a line runs along is a whole number of 32-byte blocks
        let (rows, cols, vr, vc) = if col_major {
            let (r, c) = (col_blocks * 8, rows);
            (r, c, r.saturating_sub(vc_cut).max(1), c.saturating_sub(vr_cut).max(1))
        } else {
            let c = col_blocks * 8;
            (rows, c, rows.saturating_sub(vr_cut).max(1), c.saturating_sub(vc_cut).max(1))
        };
        let src = kernel_in(op, dt, rows, cols, vr, vc, col_major);
        let n = rows * cols;
        let mut st = seed | 1;
        let mut next = || { st ^= st << 13; st ^= st >> 7; st ^= st << 17; st };
        let mk = |next: &mut dyn FnMut() -> u64| -> Vec<u8> {
            (0..n).flat_map(|i| {
                let r = next();
                if f32_lane {
                    special(i + (r as usize % 5), ((r >> 11) as f64 / (1u64 << 53) as f64 * 20.0 - 10.0) as f32).to_le_bytes()
                } else {
                    ((r as i64 >> 3) as i32).to_le_bytes()
                }
            }).collect()
        };
        let x = mk(&mut next);
        let y = mk(&mut next);
        let (want, _) = run(&src, JitMode::Off, false, &x, &y);
        let (got, stats) = run(&src, JitMode::Always, true, &x, &y);
        prop_assert_eq!(stats.jit_execs, 1, "the op ran compiled");
        for (i, (a, b)) in want.chunks(4).zip(got.chunks(4)).enumerate() {
            let same = if f32_lane {
                let (p, q) = (f32::from_le_bytes([a[0], a[1], a[2], a[3]]), f32::from_le_bytes([b[0], b[1], b[2], b[3]]));
                (p.is_nan() && q.is_nan()) || p.to_bits() == q.to_bits()
            } else {
                a == b
            };
            prop_assert!(same, "{} {} element {}: interpreter {:?}, jit {:?}", op, dt, i, a, b);
        }
    }
}

#[test]
fn auto_mode_compiles_after_the_threshold() {
    let src = kernel("tadd", "f32", 4, 8, 4, 8).replace(
        "    pto.tadd",
        "    pto.tadd ins(%a, %b : !pto.tile_buf<loc=vec, dtype=f32, rows=4, cols=8, v_row=4, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>, !pto.tile_buf<loc=vec, dtype=f32, rows=4, cols=8, v_row=4, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%d : !pto.tile_buf<loc=vec, dtype=f32, rows=4, cols=8, v_row=4, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>)\n    pto.tadd ins(%a, %b : !pto.tile_buf<loc=vec, dtype=f32, rows=4, cols=8, v_row=4, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>, !pto.tile_buf<loc=vec, dtype=f32, rows=4, cols=8, v_row=4, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%d : !pto.tile_buf<loc=vec, dtype=f32, rows=4, cols=8, v_row=4, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>)\n    pto.tadd",
    );
    let k = load_text("t.pto", &src, None).expect("loads");
    let cfg = Config {
        profile: k.profile,
        jit: JitMode::Auto,
        jit_threshold: 2,
        ..Config::default()
    };
    let x = vec![0u8; 128];
    let f = run_kernel(
        &k,
        &cfg,
        None,
        &[
            Arg::Buffer(x.clone()),
            Arg::Buffer(x.clone()),
            Arg::Buffer(x),
        ],
    )
    .expect("runs");
    // cold runs: the first two tadds, and the two tloads and the tstore
    // (each row-copy direction is a region below its threshold here)
    assert_eq!(
        (
            f.out.jit.interp_execs,
            f.out.jit.jit_execs,
            f.out.jit.compiled
        ),
        (5, 1, 1)
    );
}

/// Row-copy tload/tstore regions move the same bytes and report the same
/// accesses as the interpreter: same result, and a missing wait is still a race.
#[test]
fn row_copy_dma_regions_match_the_interpreter_and_the_checker() {
    let path = format!("{}/../examples/vadd.pto", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(path).expect("example");
    let x: Vec<u8> = (0..1024)
        .flat_map(|i| (i as f32 * 0.5).to_le_bytes())
        .collect();
    let y: Vec<u8> = (0..1024)
        .flat_map(|i| (3.0 - i as f32).to_le_bytes())
        .collect();
    let go = |src: &str, jit: JitMode| {
        let k = load_text("vadd.pto", src, None).expect("loads");
        let cfg = Config {
            profile: k.profile,
            jit,
            ..Config::default()
        };
        let args = [
            Arg::Buffer(x.clone()),
            Arg::Buffer(y.clone()),
            Arg::Buffer(vec![0; 4096]),
        ];
        run_kernel(&k, &cfg, None, &args).expect("runs")
    };
    let a = go(&src, JitMode::Off);
    let b = go(&src, JitMode::Always);
    assert_eq!(a.buffers, b.buffers);
    assert_eq!(a.out.jit.dma_execs, 0);
    assert!(b.out.jit.dma_execs >= 3, "{:?}", b.out.jit);
    // drop the first MTE2 -> V wait: both tiers report the race
    let first_wait = src
        .lines()
        .find(|l| l.contains("wait_flag") && l.contains("PIPE_MTE2"))
        .expect("the example waits for its loads");
    let broken = src.replacen(first_wait, "", 1);
    for jit in [JitMode::Off, JitMode::Always] {
        let f = go(&broken, jit);
        let kinds: Vec<&str> = f.out.diags.list.iter().map(|d| d.kind.name()).collect();
        assert!(kinds.contains(&"race"), "{jit:?}: {kinds:?}");
    }
}

/// A row reduction of a `rows`x`cols` tile (valid `vr`x`vc`) into column 0
/// of a col-major `rows`x1 or a row-major `rows`x8 destination, stored to z.
fn reduce_kernel(
    op: &str,
    dt: &str,
    rows: usize,
    cols: usize,
    vr: usize,
    vc: usize,
    cm: bool,
) -> String {
    let tb = format!("!pto.tile_buf<loc=vec, dtype={dt}, rows={rows}, cols={cols}, v_row={vr}, v_col={vc}, blayout=row_major, slayout=none_box, fractal=512, pad=0>");
    let (dc, lay) = if cm {
        (1, "col_major")
    } else {
        (8, "row_major")
    };
    let db = format!("!pto.tile_buf<loc=vec, dtype={dt}, rows={rows}, cols={dc}, v_row={vr}, v_col=1, blayout={lay}, slayout=none_box, fractal=512, pad=0>");
    let view = format!("!pto.tensor_view<{rows}x{cols}x{dt}>");
    let part = format!("!pto.partition_tensor_view<{rows}x{cols}x{dt}>");
    let zview = format!("!pto.tensor_view<{rows}x1x{dt}>");
    let zpart = format!("!pto.partition_tensor_view<{vr}x1x{dt}>");
    format!(
        r#"module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%x: !pto.ptr<{dt}>, %y: !pto.ptr<{dt}>, %z: !pto.ptr<{dt}>) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cr = arith.constant {rows} : index
    %cc = arith.constant {cols} : index
    %vr = arith.constant {vr} : index
    %xv = pto.make_tensor_view %x, shape = [%cr, %cc], strides = [%cc, %c1] : {view}
    %zv = pto.make_tensor_view %z, shape = [%cr, %c1], strides = [%c1, %c1] : {zview}
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%cr, %cc] : {view} -> {part}
    %zp = pto.partition_view %zv, offsets = [%c0, %c0], sizes = [%vr, %c1] : {zview} -> {zpart}
    %a = pto.alloc_tile : {tb}
    %t = pto.alloc_tile : {tb}
    %d = pto.alloc_tile : {db}
    pto.tload ins(%xp : {part}) outs(%a : {tb})
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.{op} ins(%a, %t : {tb}, {tb}) outs(%d : {db})
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.tstore ins(%d : {db}) outs(%zp : {zpart})
    return
  }}
}}"#
    )
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48),
        .. ProptestConfig::default()
    })]
    /// Row reductions: bit-identical to the interpreter (any NaN for a sum
    /// holding NaNs: which operand's payload survives is the host compiler's),
    /// checked again by the crosscheck inside the run.
    #[test]
    fn jit_row_reductions_match_the_interpreter(
        f32_lane in any::<bool>(),
        op_i in 0usize..3,
        rows in 1usize..12,
        col_blocks in 1usize..10,
        vr_cut in 0usize..3,
        vc_cut in 0usize..9,
        cm in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let dt = if f32_lane { "f32" } else { "i32" };
        let op = ["trowsum", "trowmax", "trowmin"][op_i];
        let cols = col_blocks * 8;
        let vr = rows.saturating_sub(vr_cut).max(1);
        let vc = cols.saturating_sub(vc_cut).max(1);
        let src = reduce_kernel(op, dt, rows, cols, vr, vc, cm);
        let n = rows * cols;
        let mut st = seed | 1;
        let mut next = || { st ^= st << 13; st ^= st >> 7; st ^= st << 17; st };
        let x: Vec<u8> = (0..n).flat_map(|i| {
            let r = next();
            if f32_lane {
                // mostly finite, sometimes a special value, magnitudes spread
                let v = ((r >> 11) as f64 / (1u64 << 53) as f64 * 20.0 - 10.0) as f32;
                let v = v * [1.0f32, 1e-3, 1e6, 1e30][(r >> 3) as usize % 4];
                if r % 29 == 0 { special(i + (r as usize % 7), v) } else { v }.to_le_bytes()
            } else {
                ((r as i64 >> 3) as i32).to_le_bytes()
            }
        }).collect();
        let (want, _) = run(&src, JitMode::Off, false, &x, &x);
        let (got, stats) = run(&src, JitMode::Always, true, &x, &x);
        prop_assert!(stats.jit_execs >= 1, "the reduction ran compiled: {:?}", stats);
        for (i, (a, b)) in want.chunks(4).zip(got.chunks(4)).enumerate().take(vr) {
            let (p, q) = (f32::from_le_bytes([a[0], a[1], a[2], a[3]]), f32::from_le_bytes([b[0], b[1], b[2], b[3]]));
            let same = a == b || (f32_lane && op == "trowsum" && p.is_nan() && q.is_nan());
            prop_assert!(same, "{} {} row {}: interpreter {:?}, jit {:?}", op, dt, i, a, b);
        }
    }
}

/// A column reduction of a `rows x cols` tile (valid `vr x vc`) into row 0
/// of a row-major (or column-major, `cm`) destination.
fn col_reduce_kernel(
    op: &str,
    dt: &str,
    rows: usize,
    cols: usize,
    vr: usize,
    vc: usize,
    cm: bool,
) -> String {
    let tb = format!("!pto.tile_buf<loc=vec, dtype={dt}, rows={rows}, cols={cols}, v_row={vr}, v_col={vc}, blayout=row_major, slayout=none_box, fractal=512, pad=0>");
    let (dr, lay) = if cm {
        (8, "col_major")
    } else {
        (1, "row_major")
    };
    let db = format!("!pto.tile_buf<loc=vec, dtype={dt}, rows={dr}, cols={cols}, v_row=1, v_col={vc}, blayout={lay}, slayout=none_box, fractal=512, pad=0>");
    let view = format!("!pto.tensor_view<{rows}x{cols}x{dt}>");
    let part = format!("!pto.partition_tensor_view<{rows}x{cols}x{dt}>");
    let zview = format!("!pto.tensor_view<1x{cols}x{dt}>");
    let zpart = format!("!pto.partition_tensor_view<1x{vc}x{dt}>");
    format!(
        r#"module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%x: !pto.ptr<{dt}>, %y: !pto.ptr<{dt}>, %z: !pto.ptr<{dt}>) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cr = arith.constant {rows} : index
    %cc = arith.constant {cols} : index
    %vc = arith.constant {vc} : index
    %xv = pto.make_tensor_view %x, shape = [%cr, %cc], strides = [%cc, %c1] : {view}
    %zv = pto.make_tensor_view %z, shape = [%c1, %cc], strides = [%cc, %c1] : {zview}
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%cr, %cc] : {view} -> {part}
    %zp = pto.partition_view %zv, offsets = [%c0, %c0], sizes = [%c1, %vc] : {zview} -> {zpart}
    %a = pto.alloc_tile : {tb}
    %d = pto.alloc_tile : {db}
    pto.tload ins(%xp : {part}) outs(%a : {tb})
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.{op} ins(%a : {tb}) outs(%d : {db})
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.tstore ins(%d : {db}) outs(%zp : {zpart})
    return
  }}
}}"#
    )
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48),
        .. ProptestConfig::default()
    })]
    /// Column reductions: bit-identical to the interpreter (any NaN for a
    /// sum holding NaNs), checked again by the crosscheck inside the run.
    #[test]
    fn jit_column_reductions_match_the_interpreter(
        f32_lane in any::<bool>(),
        op_i in 0usize..3,
        rows in 1usize..20,
        col_blocks in 1usize..10,
        vr_cut in 0usize..4,
        vc_cut in 0usize..9,
        cm in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let dt = if f32_lane { "f32" } else { "i32" };
        let op = ["tcolsum", "tcolmax", "tcolmin"][op_i];
        let cols = col_blocks * 8;
        let vr = rows.saturating_sub(vr_cut).max(1);
        let vc = cols.saturating_sub(vc_cut).max(1);
        let src = col_reduce_kernel(op, dt, rows, cols, vr, vc, cm);
        let n = rows * cols;
        let mut st = seed | 1;
        let mut next = || { st ^= st << 13; st ^= st >> 7; st ^= st << 17; st };
        let x: Vec<u8> = (0..n).flat_map(|i| {
            let r = next();
            if f32_lane {
                let v = ((r >> 11) as f64 / (1u64 << 53) as f64 * 20.0 - 10.0) as f32;
                let v = v * [1.0f32, 1e-3, 1e6, 1e30][(r >> 3) as usize % 4];
                if r % 29 == 0 { special(i + (r as usize % 7), v) } else { v }.to_le_bytes()
            } else {
                ((r as i64 >> 3) as i32).to_le_bytes()
            }
        }).collect();
        let (want, _) = run(&src, JitMode::Off, false, &x, &x);
        let (got, stats) = run(&src, JitMode::Always, true, &x, &x);
        prop_assert!(stats.jit_execs >= 1, "the reduction ran compiled: {:?}", stats);
        for (i, (a, b)) in want.chunks(4).zip(got.chunks(4)).enumerate().take(vc) {
            let (p, q) = (f32::from_le_bytes([a[0], a[1], a[2], a[3]]), f32::from_le_bytes([b[0], b[1], b[2], b[3]]));
            let same = a == b || (f32_lane && op == "tcolsum" && p.is_nan() && q.is_nan());
            prop_assert!(same, "{} {} column {}: interpreter {:?}, jit {:?}", op, dt, i, a, b);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48),
        .. ProptestConfig::default()
    })]
    /// `tpow`/`tpows` on f32: within `POW_ULP` of the interpreter (special
    /// values exactly, any NaN for NaN), checked again by the crosscheck.
    #[test]
    fn jit_pow_matches_the_interpreter(
        scalar in any::<bool>(),
        s_i in 0usize..8,
        rows in 1usize..10,
        col_blocks in 1usize..4,
        vr_cut in 0usize..3,
        vc_cut in 0usize..9,
        seed in any::<u64>(),
    ) {
        let op = if scalar { "tpows" } else { "tpow" };
        let cols = col_blocks * 8;
        let vr = rows.saturating_sub(vr_cut).max(1);
        let vc = cols.saturating_sub(vc_cut).max(1);
        let sv = ["2.0", "-3.0", "0.5", "1.5", "0.0", "7.0", "-0.25", "31.0"][s_i];
        let src = kernel(op, "f32", rows, cols, vr, vc)
            .replace("arith.constant 1.5 : f32", &format!("arith.constant {sv} : f32"));
        let n = rows * cols;
        let mut st = seed | 1;
        let mut next = || { st ^= st << 13; st ^= st >> 7; st ^= st << 17; st };
        let mut base = Vec::new();
        let mut expo = Vec::new();
        for i in 0..n {
            let r = next();
            let u = (r >> 11) as f64 / (1u64 << 53) as f64;
            let x = match r % 5 {
                0 => special(i + (r as usize >> 20) % 17, (u * 8.0 - 4.0) as f32),
                1 => f32::from_bits((r >> 17) as u32),
                2 => (1.0 + (u - 0.5) * 1e-3) as f32,
                _ => ((u - 0.3) * 50.0) as f32,
            };
            let y = match (r >> 5) % 5 {
                0 => special(i + (r as usize >> 30) % 17, (u * 6.0 - 3.0) as f32),
                1 => ((r >> 40) % 41) as f32 - 20.0,
                2 => ((u - 0.5) * 2e4) as f32,
                _ => ((u - 0.5) * 12.0) as f32,
            };
            base.extend(x.to_le_bytes());
            expo.extend(y.to_le_bytes());
        }
        let (want, _) = run(&src, JitMode::Off, false, &base, &expo);
        let (got, stats) = run(&src, JitMode::Always, true, &base, &expo);
        prop_assert_eq!(stats.jit_execs, 1, "the op ran compiled: {:?}", stats);
        let key = |v: f32| {
            let i = v.to_bits() as i32;
            if i < 0 { i64::from(i32::MIN) - i64::from(i) } else { i64::from(i) }
        };
        for (i, (a, b)) in want.chunks(4).zip(got.chunks(4)).enumerate() {
            let (p, q) = (f32::from_le_bytes([a[0], a[1], a[2], a[3]]), f32::from_le_bytes([b[0], b[1], b[2], b[3]]));
            let exact = p.is_nan() || p.is_infinite() || p == 0.0;
            let same = (p.is_nan() && q.is_nan())
                || (exact && a == b)
                || (!exact && !q.is_nan() && key(p).abs_diff(key(q)) <= u64::from(pto_jit::POW_ULP));
            prop_assert!(same, "{} element {}: interpreter {:?}, jit {:?}", op, i, p, q);
        }
    }
}

/// Row reductions run compiled in the benchmark kernels (the shape they use:
/// 16x64 source with a 16x64 scratch tile, 16x1 col-major destination).
#[test]
fn softmax_and_rmsnorm_kernels_run_their_reductions_compiled() {
    // compiled ops per tile: softmax trowmax, trowexpandsub, texp, trowsum,
    // trowexpanddiv; rmsnorm tmul, trowsum, trowexpanddiv (its 16x1
    // col-major tmuls/tadds/tsqrt run interpreted); each region runs twice
    // interpreted first (threshold 2), then 62 times compiled
    for (name, ops) in [("softmax_rows", 5), ("rmsnorm_rows", 3)] {
        let path = format!(
            "{}/../benches/kernels/{name}.pto",
            env!("CARGO_MANIFEST_DIR")
        );
        let src = std::fs::read_to_string(path).expect("kernel");
        let k = load_text("k.pto", &src, None).expect("loads");
        let n = 1024 * 64;
        let x: Vec<u8> = (0..n)
            .flat_map(|i| ((i % 97) as f32 * 0.25 - 9.0).to_le_bytes())
            .collect();
        let args = [Arg::Buffer(x), Arg::Buffer(vec![0; 4 * n])];
        let go = |jit| {
            let cfg = Config {
                profile: k.profile,
                jit,
                crosscheck: true,
                ..Config::default()
            };
            run_kernel(&k, &cfg, None, &args).expect("runs")
        };
        let a = go(JitMode::Off);
        let b = go(JitMode::Auto);
        assert_eq!(b.out.error, None);
        // softmax has texp (within its ulp bound, checked by the crosscheck)
        if name == "rmsnorm_rows" {
            assert!(
                a.buffers == b.buffers,
                "{name}: JIT and interpreter outputs differ"
            );
        }
        let rejected: Vec<&String> = b.out.jit.rejected.keys().collect();
        assert!(rejected.is_empty(), "{name}: {rejected:?}");
        assert_eq!(b.out.jit.jit_execs, ops * 62, "{name}: {:?}", b.out.jit);
    }
}

/// `tlog` and `texp` run compiled within their ulp bounds: the crosscheck
/// inside the run compares every element with the interpreter (special
/// values included) and faults on a larger difference.
#[test]
fn log_and_exp_run_compiled_within_their_bounds() {
    for op in ["tlog", "texp"] {
        let src = kernel(op, "f32", 16, 64, 16, 61);
        let x: Vec<u8> = (0..16 * 64)
            .flat_map(|i| {
                let v = special(i, (i as f32 - 300.0) * 0.37);
                let v = if i % 3 == 0 { v.abs() * 1e-3 } else { v };
                v.to_le_bytes()
            })
            .collect();
        let (_, stats) = run(&src, JitMode::Always, true, &x, &x);
        assert_eq!(stats.jit_execs, 1, "{op}: {stats:?}");
    }
    // texp, tlog and trsqrt on f16/bf16 tiles, every 16-bit pattern (two
    // runs of 64x512 each), within their half-type bounds
    for op in ["texp", "tlog", "trsqrt"] {
        for dt in ["f16", "bf16"] {
            let src = kernel(op, dt, 64, 512, 64, 512);
            for part in 0..2u32 {
                let x: Vec<u8> = (0..32768u32)
                    .flat_map(|i| ((i + part * 32768) as u16).to_le_bytes())
                    .collect();
                let (_, stats) = run(&src, JitMode::Always, true, &x, &x);
                assert_eq!(stats.jit_execs, 1, "{op} {dt}: {stats:?}");
            }
        }
    }
}

const OPS_HALF: &[&str] = &[
    "tadd", "tsub", "tmul", "tdiv", "tmax", "tmin", "tabs", "tneg", "tsqrt", "trecip", "trelu",
    "tadds", "tmuls", "tmaxs", "tlog", "trsqrt",
];

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48),
        .. ProptestConfig::default()
    })]
    /// f16/bf16 elementwise ops: bit-identical to the interpreter (any NaN
    /// where an arithmetic op meets NaNs), random bit patterns included.
    #[test]
    fn jit_half_lanes_match_the_interpreter(
        bf in any::<bool>(),
        op_i in 0usize..16,
        rows in 1usize..10,
        col_blocks in 1usize..5,
        vr_cut in 0usize..3,
        vc_cut in 0usize..11,
        seed in any::<u64>(),
    ) {
        let dt = if bf { "bf16" } else { "f16" };
        let op = OPS_HALF[op_i % OPS_HALF.len()];
        let cols = col_blocks * 16;
        let vr = rows.saturating_sub(vr_cut).max(1);
        let vc = cols.saturating_sub(vc_cut).max(1);
        let src = kernel(op, dt, rows, cols, vr, vc);
        let n = rows * cols;
        let mut st = seed | 1;
        let mut next = || { st ^= st << 13; st ^= st >> 7; st ^= st << 17; st };
        let mut mk = || -> Vec<u8> {
            (0..n).flat_map(|_| {
                let r = next();
                let h = if r % 4 == 0 {
                    r as u16 >> 3 // any pattern: NaN, inf, subnormal
                } else if bf {
                    (((r >> 8) as f32 % 200.0 - 100.0).to_bits() >> 16) as u16 ^ (r as u16 & 0x7f)
                } else {
                    // f16 1.0..2^±6 with random mantissas and signs
                    (r as u16 & 0x83ff) | (((r >> 16) as u16 % 13 + 9) << 10)
                };
                h.to_le_bytes()
            }).collect()
        };
        let x = mk();
        let y = mk();
        let (want, _) = run(&src, JitMode::Off, false, &x, &y);
        let (got, stats) = run(&src, JitMode::Always, true, &x, &y);
        prop_assert_eq!(stats.jit_execs, 1, "the op ran compiled");
        let nan = |b: &[u8]| {
            let h = u16::from_le_bytes([b[0], b[1]]);
            if bf { (h & 0x7fff) > 0x7f80 } else { (h & 0x7fff) > 0x7c00 }
        };
        let arith = !matches!(op, "tmax" | "tmin" | "tmaxs" | "tabs" | "tneg" | "trelu");
        // tlog and trsqrt: within their half-type bound (1 ulp; special
        // values exactly, which the exhaustive test checks)
        let bound = if matches!(op, "tlog" | "trsqrt") { 1 } else { 0 };
        let key = |b: &[u8]| {
            let h = i64::from(u16::from_le_bytes([b[0], b[1]]));
            if h & 0x8000 != 0 { 0x8000 - h } else { h }
        };
        for (i, (a, b)) in want.chunks(2).zip(got.chunks(2)).enumerate() {
            let near = !nan(a) && !nan(b) && key(a).abs_diff(key(b)) <= bound;
            prop_assert!(a == b || near || (arith && nan(a) && nan(b)), "{} {} element {}: interpreter {:?}, jit {:?}", op, dt, i, a, b);
        }
    }
}

fn cvt_kernel(from: &str, to: &str, rows: usize, cols: usize, vc: usize) -> String {
    let tb = |dt: &str| {
        format!("!pto.tile_buf<loc=vec, dtype={dt}, rows={rows}, cols={cols}, v_row={rows}, v_col={vc}, blayout=row_major, slayout=none_box, fractal=512, pad=0>")
    };
    let (ta, td) = (tb(from), tb(to));
    format!(
        r#"module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%x: !pto.ptr<{from}>, %y: !pto.ptr<{from}>, %z: !pto.ptr<{to}>) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cr = arith.constant {rows} : index
    %cc = arith.constant {cols} : index
    %vc = arith.constant {vc} : index
    %xv = pto.make_tensor_view %x, shape = [%cr, %cc], strides = [%cc, %c1] : !pto.tensor_view<{rows}x{cols}x{from}>
    %zv = pto.make_tensor_view %z, shape = [%cr, %cc], strides = [%cc, %c1] : !pto.tensor_view<{rows}x{cols}x{to}>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%cr, %cc] : !pto.tensor_view<{rows}x{cols}x{from}> -> !pto.partition_tensor_view<{rows}x{cols}x{from}>
    %zp = pto.partition_view %zv, offsets = [%c0, %c0], sizes = [%cr, %vc] : !pto.tensor_view<{rows}x{cols}x{to}> -> !pto.partition_tensor_view<{rows}x{vc}x{to}>
    %a = pto.alloc_tile : {ta}
    %d = pto.alloc_tile : {td}
    pto.tload ins(%xp : !pto.partition_tensor_view<{rows}x{cols}x{from}>) outs(%a : {ta})
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.tcvt ins(%a : {ta}) outs(%d : {td})
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.tstore ins(%d : {td}) outs(%zp : !pto.partition_tensor_view<{rows}x{vc}x{to}>)
    return
  }}
}}"#
    )
}

/// `tcvt` f32 <-> f16/bf16 runs compiled and gives the interpreter's bits
/// (halfway cases, overflow, subnormals, NaNs among random patterns).
#[test]
fn tcvt_between_f32_and_half_types_runs_compiled_and_bit_identical() {
    let (rows, cols) = (8usize, 64usize);
    let n = rows * cols;
    for (from, to) in [
        ("f32", "f16"),
        ("f32", "bf16"),
        ("f16", "f32"),
        ("bf16", "f32"),
    ] {
        let es = if from == "f32" { 4 } else { 2 };
        let mut st = 0x9e37_79b9_7f4a_7c15u64;
        let x: Vec<u8> = (0..n)
            .flat_map(|i| {
                st ^= st << 13;
                st ^= st >> 7;
                st ^= st << 17;
                let r = st as u32;
                // f32: halfway-ish low bits at every exponent; halves: any pattern
                let v = if es == 4 {
                    (r & 0xffff_0000) | [0x1000, 0x8000, 0x8001, 0x0fff, r & 0xffff][i % 5]
                } else {
                    r >> 16
                };
                v.to_le_bytes()[..es].to_vec()
            })
            .collect();
        let src = cvt_kernel(from, to, rows, cols, 61);
        let k = load_text("t.pto", &src, None).unwrap_or_else(|e| panic!("{e}\n{src}"));
        let go = |jit| {
            let cfg = Config {
                profile: k.profile,
                jit,
                crosscheck: jit != JitMode::Off,
                jit_threshold: 0,
                ..Config::default()
            };
            let zs = if to == "f32" { 4 } else { 2 };
            let f = run_kernel(
                &k,
                &cfg,
                None,
                &[
                    Arg::Buffer(x.clone()),
                    Arg::Buffer(x.clone()),
                    Arg::Buffer(vec![0; n * zs]),
                ],
            )
            .expect("runs");
            assert_eq!(f.out.error, None, "{from}->{to}");
            (f.buffers[2].clone(), f.out.jit)
        };
        let (want, _) = go(JitMode::Off);
        let (got, stats) = go(JitMode::Always);
        assert_eq!(stats.jit_execs, 1, "{from}->{to}: {stats:?}");
        assert!(want == got, "{from}->{to}: JIT and interpreter differ");
    }
}

/// A row (`by_col` false: into column 0 of a `rows`x`dc` destination, `cm`
/// col-major) or column reduction (into row 0) of a `rows`x`cols` tile of
/// `dt` (valid `vr`x`vc`), results of type `ddt` stored to z.
#[allow(clippy::too_many_arguments)]
fn red_kernel(
    op: &str,
    dt: &str,
    ddt: &str,
    rows: usize,
    cols: usize,
    vr: usize,
    vc: usize,
    by_col: bool,
    cm: bool,
) -> String {
    let tb = format!("!pto.tile_buf<loc=vec, dtype={dt}, rows={rows}, cols={cols}, v_row={vr}, v_col={vc}, blayout=row_major, slayout=none_box, fractal=512, pad=0>");
    let lay = if cm { "col_major" } else { "row_major" };
    let (db, zr, zc, zvr, zvc) = if by_col {
        let dr = if cm { 32 / dt_bytes(ddt) } else { 1 };
        (format!("!pto.tile_buf<loc=vec, dtype={ddt}, rows={dr}, cols={cols}, v_row=1, v_col={vc}, blayout={lay}, slayout=none_box, fractal=512, pad=0>"), 1, cols, 1, vc)
    } else {
        let dc = if cm { 1 } else { 32 / dt_bytes(ddt) };
        (format!("!pto.tile_buf<loc=vec, dtype={ddt}, rows={rows}, cols={dc}, v_row={vr}, v_col=1, blayout={lay}, slayout=none_box, fractal=512, pad=0>"), rows, 1, vr, 1)
    };
    let view = format!("!pto.tensor_view<{rows}x{cols}x{dt}>");
    let part = format!("!pto.partition_tensor_view<{rows}x{cols}x{dt}>");
    let zview = format!("!pto.tensor_view<{zr}x{zc}x{ddt}>");
    let zpart = format!("!pto.partition_tensor_view<{zvr}x{zvc}x{ddt}>");
    // the column forms of sum/max/min take no scratch tile
    let ins = if by_col && !op.contains("arg") {
        format!("ins(%a : {tb})")
    } else {
        format!("ins(%a, %t : {tb}, {tb})")
    };
    format!(
        r#"module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%x: !pto.ptr<{dt}>, %y: !pto.ptr<{dt}>, %z: !pto.ptr<{ddt}>) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cr = arith.constant {rows} : index
    %cc = arith.constant {cols} : index
    %zr = arith.constant {zr} : index
    %zc = arith.constant {zc} : index
    %zvr = arith.constant {zvr} : index
    %zvc = arith.constant {zvc} : index
    %xv = pto.make_tensor_view %x, shape = [%cr, %cc], strides = [%cc, %c1] : {view}
    %zv = pto.make_tensor_view %z, shape = [%zr, %zc], strides = [%zc, %c1] : {zview}
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%cr, %cc] : {view} -> {part}
    %zp = pto.partition_view %zv, offsets = [%c0, %c0], sizes = [%zvr, %zvc] : {zview} -> {zpart}
    %a = pto.alloc_tile : {tb}
    %t = pto.alloc_tile : {tb}
    %d = pto.alloc_tile : {db}
    pto.tload ins(%xp : {part}) outs(%a : {tb})
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.{op} {ins} outs(%d : {db})
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.tstore ins(%d : {db}) outs(%zp : {zpart})
    return
  }}
}}"#
    )
}

/// Runs a reduction kernel on x with a z buffer of `zlen` bytes.
fn run_z(src: &str, jit: JitMode, x: &[u8], zlen: usize) -> (Vec<u8>, pto_vm::JitStats) {
    let k = load_text("t.pto", src, None).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let cfg = Config {
        profile: k.profile,
        jit,
        crosscheck: jit != JitMode::Off,
        jit_threshold: 0,
        ..Config::default()
    };
    let args = [
        Arg::Buffer(x.to_vec()),
        Arg::Buffer(x.to_vec()),
        Arg::Buffer(vec![0; zlen]),
    ];
    let f = run_kernel(&k, &cfg, None, &args).expect("runs");
    assert_eq!(f.out.error, None, "{src}");
    (f.buffers[2].clone(), f.out.jit)
}

/// Bytes per element of a test dtype.
fn dt_bytes(dt: &str) -> usize {
    match dt {
        "i8" | "ui8" => 1,
        "f16" | "bf16" | "i16" | "ui16" => 2,
        "i64" | "ui64" => 8,
        _ => 4,
    }
}

/// One random element of `dt`: often from a small pool (ties), sometimes a
/// special value (NaN, infinities, zeros of both signs, subnormals), else
/// spread over the type's range.
fn elem(dt: &str, r: u64) -> Vec<u8> {
    let pick = (r >> 56) as usize;
    match dt {
        "f32" => {
            let u = (r >> 11) as f64 / (1u64 << 53) as f64;
            let v = match r % 7 {
                0 => [
                    0.0f32,
                    -0.0,
                    1.0,
                    -1.0,
                    2.0,
                    f32::NAN,
                    f32::INFINITY,
                    f32::NEG_INFINITY,
                ][pick % 8],
                1 => f32::from_bits((r >> 20) as u32),
                _ => ((u * 20.0 - 10.0) as f32) * [1.0f32, 1e-3, 1e6, 1e30][(r >> 3) as usize % 4],
            };
            v.to_le_bytes().to_vec()
        }
        "f16" | "bf16" => {
            let bits: u16 = match r % 5 {
                // 0, -0, 1, -1, 2, NaN, inf, -inf
                0 if dt == "f16" => {
                    [0, 0x8000, 0x3c00, 0xbc00, 0x4000, 0x7e00, 0x7c00, 0xfc00][pick % 8]
                }
                0 => [0, 0x8000, 0x3f80, 0xbf80, 0x4000, 0x7fc0, 0x7f80, 0xff80][pick % 8],
                // anything, NaN payloads and subnormals included
                1 => (r >> 24) as u16,
                // moderate magnitudes (exponents near the bias)
                _ if dt == "f16" => {
                    ((r >> 24) as u16 & 0x83ff) | ((12 + (r >> 40) % 8) as u16) << 10
                }
                _ => ((r >> 24) as u16 & 0x807f) | ((120 + (r >> 40) % 16) as u16) << 7,
            };
            bits.to_le_bytes().to_vec()
        }
        _ => {
            let v = if r.is_multiple_of(3) {
                (pick % 5) as u64 ^ if r & 8 == 0 { 0 } else { u64::MAX }
            } else {
                r >> 7
            };
            v.to_le_bytes()[..dt_bytes(dt)].to_vec()
        }
    }
}

/// Compares z buffers element by element (`ob` bytes; a float sum's NaN
/// matches any NaN).
fn same_results(want: &[u8], got: &[u8], ob: usize, float_sum: Option<&str>) -> Result<(), String> {
    for (i, (a, b)) in want.chunks(ob).zip(got.chunks(ob)).enumerate() {
        let nan = |v: &[u8]| match float_sum {
            Some("f32") => f32::from_le_bytes([v[0], v[1], v[2], v[3]]).is_nan(),
            Some("f16") => u16::from_le_bytes([v[0], v[1]]) & 0x7fff > 0x7c00,
            Some(_) => u16::from_le_bytes([v[0], v[1]]) & 0x7fff > 0x7f80,
            None => false,
        };
        if a != b && !(nan(a) && nan(b)) {
            return Err(format!("result {i}: interpreter {a:02x?}, jit {b:02x?}"));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48),
        .. ProptestConfig::default()
    })]
    /// Arg reductions (row and column, max and min) on every source lane
    /// the JIT takes, into every index width: bit-identical to the
    /// interpreter (first index of the extreme, NaN rules, truncated
    /// index), checked again by the crosscheck inside the run.
    #[test]
    fn jit_arg_reductions_match_the_interpreter(
        op_i in 0usize..4,
        dt_i in 0usize..9,
        idt_i in 0usize..8,
        rows in 1usize..14,
        col_blocks in 1usize..8,
        vr_cut in 0usize..5,
        vc_cut in 0usize..20,
        cm in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let op = ["trowargmax", "trowargmin", "tcolargmax", "tcolargmin"][op_i];
        let dt = ["f32", "f16", "bf16", "i32", "ui32", "i16", "ui16", "i8", "ui8"][dt_i];
        let idt = ["i32", "ui32", "i16", "ui16", "i8", "ui8", "i64", "ui64"][idt_i];
        let by_col = op.starts_with("tcol");
        // rows of 32 bytes at least
        let cols = col_blocks * 32 / dt_bytes(dt);
        let vr = rows.saturating_sub(vr_cut).max(1);
        let vc = cols.saturating_sub(vc_cut).max(1);
        let src = red_kernel(op, dt, idt, rows, cols, vr, vc, by_col, cm);
        let mut st = seed | 1;
        let mut next = || { st ^= st << 13; st ^= st >> 7; st ^= st << 17; st };
        let x: Vec<u8> = (0..rows * cols).flat_map(|_| elem(dt, next())).collect();
        let ob = dt_bytes(idt);
        let zlen = rows.max(cols) * ob;
        let (want, _) = run_z(&src, JitMode::Off, &x, zlen);
        let (got, stats) = run_z(&src, JitMode::Always, &x, zlen);
        prop_assert!(stats.jit_execs >= 1, "the reduction ran compiled: {:?}", stats);
        let r = same_results(&want, &got, ob, None);
        prop_assert!(r.is_ok(), "{} {} -> {}: {:?}", op, dt, idt, r);
    }

    /// Sums, maxima and minima (row and column) on the lanes the dedicated
    /// f32/i32 loops leave to the line emitter (f16, bf16, i16, u16, u32, i8, u8):
    /// bit-identical to the interpreter (any NaN for a float sum holding a
    /// NaN), checked again by the crosscheck.
    #[test]
    fn jit_narrow_lane_reductions_match_the_interpreter(
        op_i in 0usize..6,
        dt_i in 0usize..7,
        rows in 1usize..20,
        col_blocks in 1usize..6,
        vr_cut in 0usize..5,
        vc_cut in 0usize..20,
        cm in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let op = ["trowsum", "trowmax", "trowmin", "tcolsum", "tcolmax", "tcolmin"][op_i];
        let dt = ["f16", "bf16", "i16", "ui16", "ui32", "i8", "ui8"][dt_i];
        let by_col = op.starts_with("tcol");
        let cols = col_blocks * 32 / dt_bytes(dt);
        let vr = rows.saturating_sub(vr_cut).max(1);
        let vc = cols.saturating_sub(vc_cut).max(1);
        let src = red_kernel(op, dt, dt, rows, cols, vr, vc, by_col, cm);
        let mut st = seed | 1;
        let mut next = || { st ^= st << 13; st ^= st >> 7; st ^= st << 17; st };
        let x: Vec<u8> = (0..rows * cols).flat_map(|_| elem(dt, next())).collect();
        let ob = dt_bytes(dt);
        let zlen = rows.max(cols) * ob;
        let (want, _) = run_z(&src, JitMode::Off, &x, zlen);
        let (got, stats) = run_z(&src, JitMode::Always, &x, zlen);
        prop_assert!(stats.jit_execs >= 1, "the reduction ran compiled: {:?}", stats);
        let fsum = (op.ends_with("sum") && dt.starts_with(['f', 'b'])).then_some(dt);
        let r = same_results(&want, &got, ob, fsum);
        prop_assert!(r.is_ok(), "{} {}: {:?}", op, dt, r);
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48),
        .. ProptestConfig::default()
    })]
    /// `tpow`/`tpows` on i32: bit-identical to the interpreter (wrapping,
    /// negative exponents, 0^0), checked again by the crosscheck.
    #[test]
    fn jit_int_pow_matches_the_interpreter(
        scalar in any::<bool>(),
        s_i in 0usize..9,
        rows in 1usize..10,
        col_blocks in 1usize..4,
        vr_cut in 0usize..3,
        vc_cut in 0usize..9,
        seed in any::<u64>(),
    ) {
        let op = if scalar { "tpows" } else { "tpow" };
        let cols = col_blocks * 8;
        let vr = rows.saturating_sub(vr_cut).max(1);
        let vc = cols.saturating_sub(vc_cut).max(1);
        let sv = ["0", "1", "2", "-1", "-2", "7", "31", "2147483647", "-2147483648"][s_i];
        let src = kernel(op, "i32", rows, cols, vr, vc)
            .replace("arith.constant -3 : i32", &format!("arith.constant {sv} : i32"));
        let mut st = seed | 1;
        let mut next = || { st ^= st << 13; st ^= st >> 7; st ^= st << 17; st };
        let mut base = Vec::new();
        let mut expo = Vec::new();
        for _ in 0..rows * cols {
            let r = next();
            let x = match r % 4 {
                0 => (r >> 8) as i32,
                _ => ((r >> 8) % 9) as i32 - 4,
            };
            let y = match (r >> 4) % 4 {
                0 => (r >> 32) as i32,
                _ => ((r >> 40) % 44) as i32 - 4,
            };
            base.extend(x.to_le_bytes());
            expo.extend(y.to_le_bytes());
        }
        let (want, _) = run(&src, JitMode::Off, false, &base, &expo);
        let (got, stats) = run(&src, JitMode::Always, true, &base, &expo);
        prop_assert_eq!(stats.jit_execs, 1, "the op ran compiled: {:?}", stats);
        prop_assert_eq!(want, got, "{}", op);
    }
}

/// Both double-buffered benchmark kernels (the ping-pong seed over 256 tiles
/// of 256 f32, and benches/kernels/pingpong_4k.pto over 64 tiles of 1024
/// f32) compute |x| with no synchronization finding, interpreted and with
/// every vector scope compiled, so the benchmark compares equal work.
#[test]
fn both_pingpong_benchmark_kernels_are_clean_and_compute_abs() {
    let root = env!("CARGO_MANIFEST_DIR");
    let seed = std::fs::read_to_string(format!("{root}/../examples/sync/03_pingpong_set_wait.pto"))
        .expect("seed")
        .replace(
            "%c8 = arith.constant 8 : index",
            "%c8 = arith.constant 256 : index",
        );
    let coarse = std::fs::read_to_string(format!("{root}/../benches/kernels/pingpong_4k.pto"))
        .expect("kernel");
    let n = 65536;
    let x: Vec<f32> = (0..n).map(|i| (i % 101) as f32 * 0.03 - 1.5).collect();
    let want: Vec<u8> = x.iter().flat_map(|v| v.abs().to_le_bytes()).collect();
    let args = [
        Arg::Buffer(x.iter().flat_map(|v| v.to_le_bytes()).collect()),
        Arg::Buffer(vec![0; 4 * n]),
    ];
    for (src, scopes) in [(seed, 256), (coarse, 64)] {
        let k = load_text("pingpong.pto", &src, None).expect("loads");
        for jit in [JitMode::Off, JitMode::Always] {
            let cfg = Config {
                profile: k.profile,
                jit,
                ..Config::default()
            };
            let f = run_kernel(&k, &cfg, None, &args).expect("runs");
            assert_eq!(f.out.error, None);
            assert!(f.out.diags.list.is_empty(), "{:?}", f.out.diags.list);
            assert!(
                f.buffers[1] == want,
                "{scopes} tiles, {jit:?}: output is not |x|"
            );
            let compiled = if jit == JitMode::Always { scopes } else { 0 };
            assert_eq!(f.out.jit.scope_execs, compiled, "{jit:?}");
        }
    }
}

/// A per-row statistics kernel in the shape of rmsnorm's: `trowsum` into a
/// 16x1 column-major tile, then scalar ops on that column and a column-major
/// `tadd`/`tmul` over a 16x4 (13x3 valid) pair. Each runs compiled (the three
/// back-to-back ops on the column as one fused chain), bit-identical to the
/// interpreter, with the same checker findings when a wait is missing.
#[test]
fn column_major_elementwise_ops_run_compiled() {
    let row = "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=64, v_row=16, v_col=64, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
    let col = "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=1, v_row=16, v_col=1, blayout=col_major, slayout=none_box, fractal=512, pad=0>";
    let cm = "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=4, v_row=13, v_col=3, blayout=col_major, slayout=none_box, fractal=512, pad=0>";
    let src = format!(
        r#"module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %z: !pto.ptr<f32>) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %half = arith.constant 0.5 : f32
    %eps = arith.constant 1.0e-3 : f32
    %xv = pto.make_tensor_view %x, shape = [%c16, %c64], strides = [%c64, %c1] : !pto.tensor_view<16x64xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c16, %c64] : !pto.tensor_view<16x64xf32> -> !pto.partition_tensor_view<16x64xf32>
    %yv = pto.make_tensor_view %y, shape = [%c16, %c4], strides = [%c1, %c16] {{layout = #pto.layout<dn>}} : !pto.tensor_view<16x4xf32>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c16, %c4] : !pto.tensor_view<16x4xf32> -> !pto.partition_tensor_view<16x4xf32>
    %zv = pto.make_tensor_view %z, shape = [%c16, %c1], strides = [%c1, %c16] {{layout = #pto.layout<dn>}} : !pto.tensor_view<16x1xf32>
    %zp = pto.partition_view %zv, offsets = [%c0, %c0], sizes = [%c16, %c1] : !pto.tensor_view<16x1xf32> -> !pto.partition_tensor_view<16x1xf32>
    %wv = pto.make_tensor_view %z, shape = [%c16, %c4], strides = [%c1, %c16] {{layout = #pto.layout<dn>}} : !pto.tensor_view<16x4xf32>
    %w13 = arith.constant 13 : index
    %w3 = arith.constant 3 : index
    %wp = pto.partition_view %wv, offsets = [%c0, %c1], sizes = [%w13, %w3] : !pto.tensor_view<16x4xf32> -> !pto.partition_tensor_view<13x3xf32>
    %t = pto.alloc_tile : {row}
    %tmp = pto.alloc_tile : {row}
    %s = pto.alloc_tile : {col}
    %p = pto.alloc_tile : {cm}
    %q = pto.alloc_tile : {cm}
    pto.tload ins(%xp : !pto.partition_tensor_view<16x64xf32>) outs(%t : {row})
    pto.tload ins(%yp : !pto.partition_tensor_view<16x4xf32>) outs(%p : {cm})
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.trowsum ins(%t, %tmp : {row}, {row}) outs(%s : {col})
    pto.tmuls ins(%s, %half : {col}, f32) outs(%s : {col})
    pto.tadds ins(%s, %eps : {col}, f32) outs(%s : {col})
    pto.tsqrt ins(%s : {col}) outs(%s : {col})
    pto.tadd ins(%p, %p : {cm}, {cm}) outs(%q : {cm})
    pto.tmul ins(%q, %p : {cm}, {cm}) outs(%q : {cm})
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.tstore ins(%s : {col}) outs(%zp : !pto.partition_tensor_view<16x1xf32>)
    pto.tstore ins(%q : {cm}) outs(%wp : !pto.partition_tensor_view<13x3xf32>)
    return
  }}
}}"#
    );
    let x: Vec<u8> = (0..1024)
        .flat_map(|i| special(i, (i % 37) as f32 * 0.25 - 4.0).to_le_bytes())
        .collect();
    let y: Vec<u8> = (0..64)
        .flat_map(|i| special(i + 3, (i % 11) as f32 * 1.5 - 7.0).to_le_bytes())
        .collect();
    let go = |src: &str, jit: JitMode, crosscheck: bool| {
        let k = load_text("cm.pto", src, None).unwrap_or_else(|e| panic!("{e}"));
        let cfg = Config {
            profile: k.profile,
            jit,
            crosscheck,
            jit_threshold: 0,
            ..Config::default()
        };
        let args = [
            Arg::Buffer(x.clone()),
            Arg::Buffer(y.clone()),
            Arg::Buffer(vec![0; 512]),
        ];
        let f = run_kernel(&k, &cfg, None, &args).expect("runs");
        assert_eq!(f.out.error, None);
        f
    };
    let want = go(&src, JitMode::Off, false);
    let got = go(&src, JitMode::Always, true);
    assert_eq!(want.buffers, got.buffers, "bit-identical results");
    assert!(want.out.diags.list.is_empty() && got.out.diags.list.is_empty());
    // the three ops on %s as one chain, the two on %p/%q as another
    assert_eq!(got.out.jit.chain_execs, 2, "{:?}", got.out.jit);
    assert_eq!(got.out.jit.chain_ops, 5, "{:?}", got.out.jit);
    // one op at a time: each column-major op runs as its own compiled region
    let single = src.replace("pto.tmuls", "pto.barrier #pto.pipe<PIPE_V>\n    pto.tmuls");
    let single = single.replace(
        "pto.tmul ins",
        "pto.barrier #pto.pipe<PIPE_V>\n    pto.tmul ins",
    );
    let one = go(&single, JitMode::Always, true);
    assert_eq!(one.buffers, want.buffers);
    assert!(one.out.jit.jit_execs >= 3, "{:?}", one.out.jit);
    // without the MTE2 -> V wait both tiers report the same races
    let racy = src.replace(
        "    pto.wait_flag[\"PIPE_MTE2\", \"PIPE_V\", \"EVENT_ID0\"]\n",
        "",
    );
    let racy = racy.replace(
        "    pto.set_flag[\"PIPE_MTE2\", \"PIPE_V\", \"EVENT_ID0\"]\n",
        "",
    );
    let (a, b) = (
        go(&racy, JitMode::Off, false),
        go(&racy, JitMode::Always, false),
    );
    assert!(!a.out.diags.list.is_empty());
    assert_eq!(a.out.diags.list, b.out.diags.list);
}

/// A dense tload/tstore moves its rows as one copy in the compiled tier; a
/// transfer that runs off the end of GM still faults with the interpreter's
/// message (the copy is redone row by row up to the failing row).
#[test]
fn row_copy_past_the_end_of_gm_faults_as_interpreted() {
    let tb = "!pto.tile_buf<loc=vec, dtype=f32, rows=64, cols=64, v_row=64, v_col=64, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
    let src = format!(
        r#"module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %far = arith.constant 256 : index
    %c1024 = arith.constant 1024 : index
    %xv = pto.make_tensor_view %x, shape = [%c1024, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>
    %xp = pto.partition_view %xv, offsets = [ROW, %c0], sizes = [%c64, %c64] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<64x64xf32>
    %t = pto.alloc_tile : {tb}
    pto.tload ins(%xp : !pto.partition_tensor_view<64x64xf32>) outs(%t : {tb})
    return
  }}
}}"#
    );
    let go = |src: &str, jit: JitMode| {
        let k = load_text("far.pto", src, None).unwrap_or_else(|e| panic!("{e}"));
        let cfg = Config {
            profile: k.profile,
            jit,
            jit_threshold: 0,
            ..Config::default()
        };
        let args = [Arg::Buffer(vec![1; 4096]), Arg::Buffer(vec![0; 4096])];
        run_kernel(&k, &cfg, None, &args).expect("runs")
    };
    // rows 0..64 from row 0 end inside the slack after the 4 KiB buffers;
    // from row 256 (64 KiB in) they run off the end of GM part way
    for row in ["%c0", "%far"] {
        let s = src.replace("ROW", row);
        let (a, b) = (go(&s, JitMode::Off), go(&s, JitMode::Always));
        assert_eq!(a.out.diags.list, b.out.diags.list);
        if row == "%far" {
            // both name the first byte past GM (the interpreter its element,
            // the row copy its row), not the start of the 64-row run
            let msg = |f: &pto_vm::Finished| match &f.out.error {
                Some(pto_vm::RunError::Fault { inst, message }) => (*inst, message.clone()),
                e => panic!("a fault, not {e:?}"),
            };
            let ((ia, ma), (ib, mb)) = (msg(&a), msg(&b));
            assert_eq!(ia, ib);
            let first = |m: &str| m.split(',').next().map(str::to_string);
            assert_eq!(first(&ma), first(&mb), "{ma} / {mb}");
            assert!(ma.starts_with("GM access [0x13400,"), "{ma}");
        } else {
            assert_eq!(a.out.error, b.out.error);
            assert!(a.out.error.is_none());
            assert!(b.out.jit.dma_execs >= 1, "{:?}", b.out.jit);
        }
    }
}
