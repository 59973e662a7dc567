//! Communication op rules (asm/src/verify_comm.rs).

mod common;

use pto_isa_spec::ProfileId;

fn errors(src: &str) -> Vec<(u32, String)> {
    common::errors_on(ProfileId::A2A3, src)
}

#[test]
fn async_transfers_move_one_flat_static_range() {
    let src = |shape: &str| {
        format!(
            "func.func @f(%d: !pto.partition_tensor_view<{shape}xf32>, %s: !pto.partition_tensor_view<{shape}xf32>, %x: !pto.async_session) {{\n  %e = pto.comm.tput_async(%d, %s, %x : !pto.partition_tensor_view<{shape}xf32>, !pto.partition_tensor_view<{shape}xf32>, !pto.async_session) -> !pto.async_event\n  return\n}}\n"
        )
    };
    let errs = errors(&src("4x32"));
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 2 && m.contains("flat contiguous logical 1D")),
        "{errs:?}"
    );
    let errs = errors(&src("?"));
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 2 && m.contains("static shape")),
        "{errs:?}"
    );
    assert!(errors(&src("1x128")).is_empty());
}

#[test]
fn point_to_point_shapes_match() {
    let src = "func.func @f(%d: !pto.partition_tensor_view<?x4096xi8>, %s: !pto.partition_tensor_view<?x2048xi8>, %t: !pto.tile_buf<loc=vec, dtype=i8, rows=1, cols=4096, v_row=1, v_col=4096, blayout=row_major, slayout=none_box, fractal=512, pad=0>) {\n  pto.comm.tput(%d, %s, buf(%t) : !pto.partition_tensor_view<?x4096xi8>, !pto.partition_tensor_view<?x2048xi8>, !pto.tile_buf<loc=vec, dtype=i8, rows=1, cols=4096, v_row=1, v_col=4096, blayout=row_major, slayout=none_box, fractal=512, pad=0>)\n  return\n}\n";
    let errs = errors(src);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 2 && m.contains("same static/dynamic shape signature")),
        "{errs:?}"
    );
    assert!(errors(&src.replace("?x2048", "?x4096")).is_empty());
}
