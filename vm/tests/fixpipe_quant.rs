//! `tstore` of acc tiles with a scalar pre-quantization word or ReLU: the
//! CPU model's unquantized ReLU cast, and pairs without a scalar mode fault.

use pto_vm::{load_text, run_kernel, Arg, CheckMode, Config, Finished, RunError, Sched};

fn tb(loc: &str, dt: &str, bl: &str, sl: &str, fr: u32) -> String {
    format!("!pto.tile_buf<loc={loc}, dtype={dt}, rows=16, cols=16, v_row=16, v_col=16, blayout={bl}, slayout={sl}, fractal={fr}, pad=0>")
}

/// `x` (16x16 f16) times the identity into an f32 acc, stored to a 16x16
/// `dt` view by `store` (which names %acc, %o and the acc type {acc}).
fn kernel(dt: &str, store: &str) -> String {
    let ma = tb("mat", "f16", "col_major", "row_major", 512);
    let l = tb("left", "f16", "row_major", "row_major", 512);
    let r = tb("right", "f16", "row_major", "col_major", 512);
    let acc = tb("acc", "f32", "col_major", "row_major", 1024);
    let store = store.replace("{acc}", &acc);
    format!(
        r#"module attributes {{pto.target_arch = "a2a3"}} {{
  func.func @k(%x: !pto.ptr<f16>, %id: !pto.ptr<f16>, %y: !pto.ptr<{dt}>) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %w = arith.constant 1065353216 : i64
    %xv = pto.make_tensor_view %x, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<16x16xf16>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<16x16xf16> -> !pto.partition_tensor_view<16x16xf16>
    %iv = pto.make_tensor_view %id, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<16x16xf16>
    %ip = pto.partition_view %iv, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<16x16xf16> -> !pto.partition_tensor_view<16x16xf16>
    %yv = pto.make_tensor_view %y, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<16x16x{dt}>
    %o = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<16x16x{dt}> -> !pto.partition_tensor_view<16x16x{dt}>
    %ma = pto.alloc_tile : {ma}
    %mb = pto.alloc_tile : {ma}
    %l = pto.alloc_tile : {l}
    %r = pto.alloc_tile : {r}
    %acc = pto.alloc_tile : {acc}
    pto.tload ins(%xp : !pto.partition_tensor_view<16x16xf16>) outs(%ma : {ma})
    pto.tload ins(%ip : !pto.partition_tensor_view<16x16xf16>) outs(%mb : {ma})
    pto.set_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]
    pto.tmov ins(%ma : {ma}) outs(%l : {l})
    pto.tmov ins(%mb : {ma}) outs(%r : {r})
    pto.set_flag["PIPE_MTE1", "PIPE_M", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE1", "PIPE_M", "EVENT_ID0"]
    pto.tmatmul ins(%l, %r : {l}, {r}) outs(%acc : {acc})
    pto.set_flag["PIPE_M", "PIPE_FIX", "EVENT_ID0"]
    pto.wait_flag["PIPE_M", "PIPE_FIX", "EVENT_ID0"]
    {store}
    return
  }}
}}"#
    )
}

fn run(src: &str, out_bytes: usize) -> Finished {
    let k = load_text("t.pto", src, None).unwrap_or_else(|e| panic!("does not load:\n{e}\n{src}"));
    let cfg = Config {
        profile: k.profile,
        sched: Sched::InOrder,
        check: CheckMode::Warn,
        max_steps: 1_000_000,
        ..Config::default()
    };
    let h = |v: f32| half_bits(v).to_le_bytes();
    let x: Vec<u8> = (0..256).flat_map(|i| h((i % 9) as f32 - 4.0)).collect();
    let id: Vec<u8> = (0..256)
        .flat_map(|i| h(if i / 16 == i % 16 { 1.0 } else { 0.0 }))
        .collect();
    run_kernel(
        &k,
        &cfg,
        None,
        &[
            Arg::Buffer(x),
            Arg::Buffer(id),
            Arg::Buffer(vec![0; out_bytes]),
        ],
    )
    .expect("runs")
}

/// f16 bits of a small integer.
fn half_bits(v: f32) -> u16 {
    if v == 0.0 {
        return 0;
    }
    let (s, a) = if v < 0.0 { (0x8000u16, -v) } else { (0, v) };
    let e = a.log2().floor() as i32;
    let m = ((a / 2f32.powi(e) - 1.0) * 1024.0) as u16;
    s | (((e + 15) as u16) << 10) | m
}

#[test]
fn relu_without_a_word_casts_the_rectified_value() {
    let f = run(
        &kernel(
            "i32",
            "pto.tstore ins(%acc : {acc}) outs(%o : !pto.partition_tensor_view<16x16xi32>) {reluPreMode = #pto<relu_pre_mode normal_relu>}",
        ),
        1024,
    );
    assert_eq!(f.out.error, None);
    assert!(f.out.diags.is_empty(), "{:?}", f.out.diags.list);
    let got: Vec<i32> = f.buffers[2]
        .chunks(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let want: Vec<i32> = (0..256).map(|i| ((i % 9) - 4).max(0)).collect();
    assert_eq!(got, want);
}

#[test]
fn a_pair_without_a_scalar_mode_faults() {
    let f = run(
        &kernel(
            "f32",
            "pto.tstore ins(%acc : {acc}, %w : i64) outs(%o : !pto.partition_tensor_view<16x16xf32>)",
        ),
        1024,
    );
    match &f.out.error {
        Some(RunError::Fault { message, .. }) => assert!(
            message.contains("pre-quantization from f32 to f32 is not implemented"),
            "{message}"
        ),
        other => panic!("expected a fault, got {other:?}"),
    }
}
