//! The generic tile-op path: illegal operands fault with a message (never a
//! panic), every access reaches the race checker, and a few semantics the
//! conformance cases do not pin down.

use pto_vm::{load_text, run_kernel, Arg, CheckMode, Config, DiagKind, Finished, RunError, Sched};

fn tile(dt: &str, rows: i64, cols: i64, vr: i64, vc: i64, bl: &str) -> String {
    format!(
        "!pto.tile_buf<loc=vec, dtype={dt}, rows={rows}, cols={cols}, v_row={vr}, v_col={vc}, blayout={bl}, slayout=none_box, fractal=512, pad=0>"
    )
}

/// A kernel that loads `x` (rows x cols f32) into tile %s, runs `body`, and
/// stores tile %d (drows x dcols) to `y`. `sync` controls the MTE2 -> V wait.
fn kernel(
    s_ty: &str,
    d_ty: &str,
    (rows, cols): (i64, i64),
    (drows, dcols): (i64, i64),
    body: &str,
    sync: bool,
) -> String {
    let wait = if sync {
        "pto.set_flag[\"PIPE_MTE2\", \"PIPE_V\", \"EVENT_ID0\"]\n    pto.wait_flag[\"PIPE_MTE2\", \"PIPE_V\", \"EVENT_ID0\"]"
    } else {
        ""
    };
    format!(
        r#"module attributes {{pto.target_arch = "a2a3"}} {{
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cr = arith.constant {rows} : index
    %cc = arith.constant {cols} : index
    %dr = arith.constant {drows} : index
    %dc = arith.constant {dcols} : index
    %xv = pto.make_tensor_view %x, shape = [%cr, %cc], strides = [%cc, %c1] : !pto.tensor_view<{rows}x{cols}xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%cr, %cc] : !pto.tensor_view<{rows}x{cols}xf32> -> !pto.partition_tensor_view<{rows}x{cols}xf32>
    %yv = pto.make_tensor_view %y, shape = [%dr, %dc], strides = [%dc, %c1] : !pto.tensor_view<{drows}x{dcols}xf32>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%dr, %dc] : !pto.tensor_view<{drows}x{dcols}xf32> -> !pto.partition_tensor_view<{drows}x{dcols}xf32>
    %s = pto.alloc_tile : {s_ty}
    %d = pto.alloc_tile : {d_ty}
    pto.tload ins(%xp : !pto.partition_tensor_view<{rows}x{cols}xf32>) outs(%s : {s_ty})
    {wait}
    {body}
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.tstore ins(%d : {d_ty}) outs(%yp : !pto.partition_tensor_view<{drows}x{dcols}xf32>)
    return
  }}
}}"#
    )
}

fn run(src: &str, x: &[f32], out_len: usize) -> Finished {
    let k = load_text("t.pto", src, None).unwrap_or_else(|e| panic!("does not load:\n{e}\n{src}"));
    let cfg = Config {
        profile: k.profile,
        sched: Sched::InOrder,
        check: CheckMode::Warn,
        max_steps: 1_000_000,
        ..Config::default()
    };
    let xb: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    run_kernel(
        &k,
        &cfg,
        None,
        &[Arg::Buffer(xb), Arg::Buffer(vec![0; out_len * 4])],
    )
    .expect("runs")
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn fault_message(f: &Finished) -> String {
    match &f.out.error {
        Some(RunError::Fault { message, .. }) => message.clone(),
        other => panic!("expected a fault, got {other:?}"),
    }
}

#[test]
fn trowsum_into_column_major_and_row_major_destinations() {
    let s = tile("f32", 4, 8, 4, 8, "row_major");
    let x: Vec<f32> = (0..32).map(|i| i as f32).collect();
    for bl in ["col_major", "row_major"] {
        let cols = if bl == "col_major" { 1 } else { 8 };
        let d = tile("f32", 4, cols, 4, 1, bl);
        let body = format!("pto.trowsum ins(%s : {s}) outs(%d : {d})");
        let f = run(&kernel(&s, &d, (4, 8), (4, 1), &body, true), &x, 4);
        assert_eq!(f.out.error, None);
        assert!(f.out.diags.is_empty(), "{:?}", f.out.diags.list);
        assert_eq!(f32s(&f.buffers[1]), vec![28.0, 92.0, 156.0, 220.0]);
    }
}

#[test]
fn a_missing_wait_before_a_reduction_is_a_race() {
    let s = tile("f32", 4, 8, 4, 8, "row_major");
    let d = tile("f32", 4, 1, 4, 1, "col_major");
    let body = format!("pto.trowmax ins(%s : {s}) outs(%d : {d})");
    let f = run(&kernel(&s, &d, (4, 8), (4, 1), &body, false), &[0.0; 32], 4);
    assert!(
        f.out.diags.list.iter().any(|d| d.kind == DiagKind::Race),
        "{:?}",
        f.out.diags.list
    );
}

#[test]
fn a_row_reduction_with_more_destination_rows_than_source_rows_faults() {
    let s = tile("f32", 4, 8, 2, 8, "row_major");
    let d = tile("f32", 4, 1, 4, 1, "col_major");
    let body = format!("pto.trowsum ins(%s : {s}) outs(%d : {d})");
    let src = kernel(&s, &d, (4, 8), (4, 1), &body, true);
    // statically shaped tiles are rejected by the verifier; the interpreter's own
    // check (for dynamic valid shapes) faults at run time
    if let Err(e) = load_text("t.pto", &src, None) {
        assert!(e.to_string().contains("valid_shape"), "{e}");
        return;
    }
    let f = run(&src, &[1.0; 32], 4);
    let m = fault_message(&f);
    assert!(m.contains("trowsum") && m.contains("valid rows"), "{m}");
}

#[test]
fn textract_outside_the_source_faults() {
    let s = tile("f32", 4, 8, 4, 8, "row_major");
    let d = tile("f32", 4, 8, 2, 4, "row_major");
    let body = format!(
        "%c3 = arith.constant 3 : index\n    %c6 = arith.constant 6 : index\n    pto.textract ins(%s, %c3, %c6 : {s}, index, index) outs(%d : {d})"
    );
    let f = run(&kernel(&s, &d, (4, 8), (2, 4), &body, true), &[1.0; 32], 8);
    let m = fault_message(&f);
    assert!(m.contains("outside the 4x8 source tile"), "{m}");
}

#[test]
fn textract_reads_the_window() {
    let s = tile("f32", 4, 8, 4, 8, "row_major");
    let d = tile("f32", 8, 8, 2, 4, "col_major");
    let body = format!(
        "%c1x = arith.constant 1 : index\n    %c2 = arith.constant 2 : index\n    pto.textract ins(%s, %c1x, %c2 : {s}, index, index) outs(%d : {d})"
    );
    let x: Vec<f32> = (0..32).map(|i| i as f32).collect();
    let f = run(&kernel(&s, &d, (4, 8), (2, 4), &body, true), &x, 8);
    assert_eq!(f.out.error, None);
    assert_eq!(
        f32s(&f.buffers[1]),
        vec![10.0, 11.0, 12.0, 13.0, 18.0, 19.0, 20.0, 21.0]
    );
}

#[test]
fn an_unknown_rounding_mode_faults() {
    let s = tile("f32", 4, 8, 4, 8, "row_major");
    let d = tile("f32", 4, 8, 4, 8, "row_major");
    let body =
        format!("pto.tcvt ins(%s {{rmode = #pto<round_mode SIDEWAYS>}} : {s}) outs(%d : {d})");
    let src = kernel(&s, &d, (4, 8), (4, 8), &body, true);
    match load_text("t.pto", &src, None) {
        // the verifier may reject the spelling before the interpreter sees it
        Err(_) => {}
        Ok(_) => {
            let f = run(&src, &[1.0; 32], 32);
            let m = fault_message(&f);
            assert!(m.contains("rounding mode"), "{m}");
        }
    }
}

#[test]
fn trowexpanddiv_with_a_mismatched_broadcast_operand_faults() {
    let s = tile("f32", 4, 8, 4, 8, "row_major");
    let b = tile("f32", 4, 8, 4, 3, "row_major");
    let d = tile("f32", 4, 8, 4, 8, "row_major");
    let body = format!(
        "%b = pto.alloc_tile : {b}\n    pto.trowexpanddiv ins(%s, %b : {s}, {b}) outs(%d : {d})"
    );
    let f = run(&kernel(&s, &d, (4, 8), (4, 8), &body, true), &[1.0; 32], 32);
    let m = fault_message(&f);
    assert!(m.contains("broadcast operand"), "{m}");
}

#[test]
fn ttrans_in_a_square_tile_transposes() {
    let s = tile("f32", 8, 8, 8, 8, "row_major");
    let d = tile("f32", 8, 8, 8, 8, "row_major");
    let body = format!("pto.ttrans ins(%s : {s}) outs(%d : {d})");
    let x: Vec<f32> = (0..64).map(|i| i as f32).collect();
    let f = run(&kernel(&s, &d, (8, 8), (8, 8), &body, true), &x, 64);
    assert_eq!(f.out.error, None);
    let y = f32s(&f.buffers[1]);
    for r in 0..8 {
        for c in 0..8 {
            assert_eq!(y[r * 8 + c], x[c * 8 + r]);
        }
    }
}

#[test]
fn atomic_tstore_accumulates_into_gm() {
    let t = tile("f32", 2, 8, 2, 8, "row_major");
    let x: Vec<f32> = (0..16).map(|i| i as f32 - 3.0).collect();
    let body = format!("pto.tabs ins(%s : {t}) outs(%d : {t})");
    let src = kernel(&t, &t, (2, 8), (2, 8), &body, true);
    let store = format!("pto.tstore ins(%d : {t}) outs(%yp : !pto.partition_tensor_view<2x8xf32>)");
    let add = format!("{store} {{atomicType = #pto<atomic_type atomic_add>}}");
    let max = format!("{store} {{atomicType = #pto<atomic_type atomic_max>}}");
    // add twice, then max with the same values: y = 2|x|
    let twice = src.replace(
        &store,
        &format!("{add}\n    pto.barrier #pto.pipe<PIPE_MTE3>\n    {add}\n    pto.barrier #pto.pipe<PIPE_MTE3>\n    {max}"),
    );
    let f = run(&twice, &x, 16);
    assert_eq!(f.out.error, None);
    assert!(f.out.diags.is_empty(), "{:?}", f.out.diags.list);
    let want: Vec<f32> = x.iter().map(|v| 2.0 * v.abs()).collect();
    assert_eq!(f32s(&f.buffers[1]), want);
}

#[test]
fn tgetval_and_tsetval_outside_the_tile_fault() {
    let s = tile("f32", 4, 8, 4, 8, "row_major");
    let d = tile("f32", 4, 8, 4, 8, "row_major");
    for body in [
        format!("%c32 = arith.constant 32 : index\n    %v = pto.tgetval ins(%s, %c32 : {s}, index) outs : f32"),
        format!("%cm = arith.constant -1 : index\n    %f = arith.constant 1.0 : f32\n    pto.tsetval ins(%cm, %f : index, f32) outs(%d : {d})"),
    ] {
        let f = run(&kernel(&s, &d, (4, 8), (4, 8), &body, true), &[1.0; 32], 32);
        let m = fault_message(&f);
        assert!(m.contains("outside the 4x8 tile (offsets 0..32)"), "{m}");
    }
}
