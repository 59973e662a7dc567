//! `timg2col` with the FMATRIX registers: the transform is checked against a
//! direct convolution-window reference for strides, dilations, padding,
//! batches, channel blocks and (pos_m, pos_k) windows, and its misuse faults.
//! The left tile it writes is read back through an exact f32 matmul with an
//! identity matrix.

use pto_vm::{load_text, run_kernel, Arg, CheckMode, Config, Finished, RunError, Sched};

const C0: usize = 8; // f32 channels per pixel row
const K: usize = 32;
const M: usize = 16;

fn tb(loc: &str, rows: usize, cols: usize, bl: &str, sl: &str, fr: u32) -> String {
    format!("!pto.tile_buf<loc={loc}, dtype=f32, rows={rows}, cols={cols}, v_row={rows}, v_col={cols}, blayout={bl}, slayout={sl}, fractal={fr}, pad=0>")
}

/// A kernel: feature map (`rows` x 8 f32) -> mat, `regs` (register ops),
/// `timg2col {attrs}` at (pos_m, pos_k) into a 16x32 left tile, times a
/// 32x32 identity, stored as 16x32 f32.
fn kernel(rows: usize, regs: &str, attrs: &str, pos: (usize, usize), fm_cols: usize) -> String {
    let fm = tb("mat", rows, fm_cols, "col_major", "row_major", 512);
    let wm = tb("mat", K, K, "col_major", "row_major", 512);
    let r = tb("right", K, K, "row_major", "col_major", 512);
    let l = tb("left", M, K, "row_major", "row_major", 512);
    let acc = tb("acc", M, K, "col_major", "row_major", 1024);
    let (pm, pk) = pos;
    format!(
        r#"module attributes {{pto.target_arch = "a2a3"}} {{
  func.func @k(%x: !pto.ptr<f32>, %id: !pto.ptr<f32>, %y: !pto.ptr<f32>) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cr = arith.constant {rows} : index
    %cf = arith.constant {fm_cols} : index
    %ck = arith.constant {K} : index
    %cm = arith.constant {M} : index
    %pm = arith.constant {pm} : index
    %pk = arith.constant {pk} : index
    %xv = pto.make_tensor_view %x, shape = [%cr, %cf], strides = [%cf, %c1] : !pto.tensor_view<{rows}x{fm_cols}xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%cr, %cf] : !pto.tensor_view<{rows}x{fm_cols}xf32> -> !pto.partition_tensor_view<{rows}x{fm_cols}xf32>
    %iv = pto.make_tensor_view %id, shape = [%ck, %ck], strides = [%ck, %c1] : !pto.tensor_view<{K}x{K}xf32>
    %ip = pto.partition_view %iv, offsets = [%c0, %c0], sizes = [%ck, %ck] : !pto.tensor_view<{K}x{K}xf32> -> !pto.partition_tensor_view<{K}x{K}xf32>
    %yv = pto.make_tensor_view %y, shape = [%cm, %ck], strides = [%ck, %c1] : !pto.tensor_view<{M}x{K}xf32>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%cm, %ck] : !pto.tensor_view<{M}x{K}xf32> -> !pto.partition_tensor_view<{M}x{K}xf32>
    %fm = pto.alloc_tile : {fm}
    %wm = pto.alloc_tile : {wm}
    %r = pto.alloc_tile : {r}
    %l = pto.alloc_tile : {l}
    %acc = pto.alloc_tile : {acc}
    pto.tload ins(%xp : !pto.partition_tensor_view<{rows}x{fm_cols}xf32>) outs(%fm : {fm})
    pto.tload ins(%ip : !pto.partition_tensor_view<{K}x{K}xf32>) outs(%wm : {wm})
    pto.set_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]
    pto.tmov ins(%wm : {wm}) outs(%r : {r})
    {regs}
    pto.timg2col ins(%fm, %pm, %pk : {fm}, index, index) outs(%l : {l}) {attrs}
    pto.set_flag["PIPE_MTE1", "PIPE_M", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE1", "PIPE_M", "EVENT_ID0"]
    pto.tmatmul ins(%l, %r : {l}, {r}) outs(%acc : {acc})
    pto.set_flag["PIPE_M", "PIPE_FIX", "EVENT_ID0"]
    pto.wait_flag["PIPE_M", "PIPE_FIX", "EVENT_ID0"]
    pto.tstore ins(%acc : {acc}) outs(%yp : !pto.partition_tensor_view<{M}x{K}xf32>)
    return
  }}
}}"#
    )
}

fn run(src: &str, x: &[f32]) -> Finished {
    let k = load_text("t.pto", src, None).unwrap_or_else(|e| panic!("does not load:\n{e}\n{src}"));
    let cfg = Config {
        profile: k.profile,
        sched: Sched::InOrder,
        check: CheckMode::Warn,
        max_steps: 1_000_000,
        ..Config::default()
    };
    let bytes = |v: &[f32]| v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>();
    let id: Vec<f32> = (0..K * K)
        .map(|i| if i / K == i % K { 1.0 } else { 0.0 })
        .collect();
    run_kernel(
        &k,
        &cfg,
        None,
        &[
            Arg::Buffer(bytes(x)),
            Arg::Buffer(bytes(&id)),
            Arg::Buffer(vec![0; M * K * 4]),
        ],
    )
    .expect("runs")
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Convolution geometry for the reference.
struct Geo {
    n: usize,
    c1: usize,
    h: usize,
    w: usize,
    /// left, right, top, bottom
    pad: [usize; 4],
    filter: (usize, usize),
    stride: (usize, usize),
    dil: (usize, usize),
    pad_value: f32,
}

/// The im2col matrix window at (pm, pk), element by element from the
/// window definition: row = output pixel (batch-major), column = (channel
/// block, filter tap, channel).
fn reference(g: &Geo, x: &[f32], (pm, pk): (usize, usize)) -> Vec<f32> {
    let [pl, pr, pt, pb] = g.pad;
    let oh = (g.h + pt + pb - g.dil.0 * (g.filter.0 - 1) - 1) / g.stride.0 + 1;
    let ow = (g.w + pl + pr - g.dil.1 * (g.filter.1 - 1) - 1) / g.stride.1 + 1;
    let mut rows: Vec<Vec<f32>> = Vec::new();
    for n in 0..g.n {
        for i in 0..oh {
            for j in 0..ow {
                let mut row = Vec::new();
                for c1 in 0..g.c1 {
                    for a in 0..g.filter.0 {
                        for b in 0..g.filter.1 {
                            for c0 in 0..C0 {
                                let y = (i * g.stride.0 + a * g.dil.0) as i64 - pt as i64;
                                let xx = (j * g.stride.1 + b * g.dil.1) as i64 - pl as i64;
                                let inside =
                                    (0..g.h as i64).contains(&y) && (0..g.w as i64).contains(&xx);
                                row.push(if inside {
                                    let p =
                                        ((n * g.c1 + c1) * g.h + y as usize) * g.w + xx as usize;
                                    x[p * C0 + c0]
                                } else {
                                    g.pad_value
                                });
                            }
                        }
                    }
                }
                rows.push(row);
            }
        }
    }
    let mut out = vec![g.pad_value; M * K];
    for r in 0..M {
        for c in 0..K {
            if let Some(v) = rows.get(pm + r).and_then(|row| row.get(pk + c)) {
                out[r * K + c] = *v;
            }
        }
    }
    out
}

fn case(g: &Geo, attrs: &str, pos: (usize, usize), channel_size: Option<usize>) {
    let rows = g.n * g.c1 * g.h * g.w;
    let x: Vec<f32> = (0..rows * C0).map(|i| (i % 97) as f32 + 1.0).collect();
    let [pl, pr, pt, pb] = g.pad;
    let regs = format!(
        "pto.setfmatrix {{fmap_h = {}, fmap_w = {}, pad_left = {pl}, pad_right = {pr}, pad_top = {pt}, pad_bottom = {pb}}}\n    pto.set_img2col_padding {{pad_value = {:?}}}",
        g.h, g.w, g.pad_value
    );
    let cs = channel_size.map_or(String::new(), |c| format!(", channel_size = {c}"));
    let attrs = format!(
        "{{filter_h = {}, filter_w = {}, stride_h = {}, stride_w = {}, dilation_h = {}, dilation_w = {}{cs}{attrs}}}",
        g.filter.0, g.filter.1, g.stride.0, g.stride.1, g.dil.0, g.dil.1
    );
    let f = run(&kernel(rows, &regs, &attrs, pos, C0), &x);
    assert_eq!(f.out.error, None);
    assert!(f.out.diags.is_empty(), "{:?}", f.out.diags.list);
    assert_eq!(f32s(&f.buffers[2]), reference(g, &x, pos));
}

#[test]
fn padded_windows_with_a_row_offset() {
    let g = Geo {
        n: 1,
        c1: 1,
        h: 4,
        w: 4,
        pad: [1, 1, 1, 1],
        filter: (2, 2),
        stride: (1, 1),
        dil: (1, 1),
        pad_value: 0.0,
    };
    // 25 output pixels: rows 4..20
    case(&g, "", (4, 0), None);
}

#[test]
fn strides_two_batches_and_a_nonzero_pad_value() {
    // channel_size 8 -> C1 = 1, so the 32 rows are two batches of 4x4
    let g = Geo {
        n: 2,
        c1: 1,
        h: 4,
        w: 4,
        pad: [0, 1, 1, 0],
        filter: (2, 2),
        stride: (2, 2),
        dil: (1, 1),
        pad_value: -3.5,
    };
    case(&g, "", (0, 0), Some(8));
}

#[test]
fn dilation_channel_blocks_and_a_column_offset() {
    // two channel blocks; columns 16..48 cross from block 0 into block 1
    let g = Geo {
        n: 1,
        c1: 2,
        h: 4,
        w: 4,
        pad: [2, 0, 0, 1],
        filter: (2, 2),
        stride: (1, 2),
        dil: (2, 1),
        pad_value: 9.0,
    };
    case(&g, "", (1, 16), None);
}

fn fault(src: &str) -> String {
    let x = vec![1.0f32; 16 * C0];
    let f = run(src, &x);
    match &f.out.error {
        Some(RunError::Fault { message, .. }) => message.clone(),
        other => panic!("expected a fault, got {other:?}"),
    }
}

#[test]
fn misuse_faults_with_a_message() {
    let m = fault(&kernel(16, "", "{filter_h = 2}", (0, 0), C0));
    assert!(m.contains("FMATRIX register is not set"), "{m}");
    let fm = "pto.setfmatrix {fmap_h = 4, fmap_w = 4}";
    // set A written, set B read
    let m = fault(&kernel(
        16,
        fm,
        "{filter_h = 2, fmatrix = \"b\"}",
        (0, 0),
        C0,
    ));
    assert!(m.contains("FMATRIX register is not set (set B"), "{m}");
    let m = fault(&kernel(16, fm, "{filter_h = 2}", (0, 0), 16));
    assert!(m.contains("one pixel of C0 = 8"), "{m}");
    let m = fault(&kernel(
        16,
        "pto.setfmatrix {fmap_h = 3, fmap_w = 4}",
        "{}",
        (0, 0),
        C0,
    ));
    assert!(m.contains("not a whole number of 3x4 maps"), "{m}");
    let m = fault(&kernel(16, fm, "{filter_h = 7}", (0, 0), C0));
    assert!(m.contains("does not fit the padded 4x4 map"), "{m}");
    let m = fault(&kernel(16, fm, "{stride_w = 0}", (0, 0), C0));
    assert!(m.contains("stride_w = 0 must be at least 1"), "{m}");
    let m = fault(&kernel(
        16,
        "pto.set_img2col_rpt {repeat_mode = 3}",
        "{}",
        (0, 0),
        C0,
    ));
    assert!(m.contains("repeat_mode 3"), "{m}");
}

/// A stride, filter or dilation of i64::MAX, and a pos_m / pos_k of
/// i64::MAX: the window arithmetic overflowed (a panic in debug builds);
/// now each faults naming the operand.
#[test]
fn hostile_window_geometry_faults_instead_of_overflowing() {
    let fm = "pto.setfmatrix {fmap_h = 4, fmap_w = 4}";
    let max = i64::MAX;
    for key in ["stride_h", "filter_w", "dilation_h"] {
        let m = fault(&kernel(16, fm, &format!("{{{key} = {max}}}"), (0, 0), C0));
        assert!(m.contains(&format!("{key} = {max} is above 65535")), "{m}");
    }
    for pos in [(max as usize, 0), (0, max as usize)] {
        let m = fault(&kernel(16, fm, "{}", pos, C0));
        assert!(m.contains("put the 16x32 destination past 2^63"), "{m}");
    }
}
