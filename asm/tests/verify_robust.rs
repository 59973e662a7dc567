//! The op rules never panic on extreme extents (overflowing products and
//! sums are saturated), in debug builds where overflow traps.

use pto_asm::check_text;
use pto_isa_spec::ProfileId;

#[test]
fn huge_extents_do_not_panic() {
    let big = i64::MAX / 3;
    let tile = |dt: &str| {
        format!("!pto.tile_buf<loc=vec, dtype={dt}, rows={big}, cols={big}, v_row={big}, v_col={big}, blayout=row_major, slayout=none_box, fractal=512, pad=0>")
    };
    let (f, u) = (tile("f32"), tile("ui8"));
    let src = format!(
        "func.func @k(%a: !pto.vreg<{big}xf32>, %v: !pto.vmi.vreg<{big}xf32>, %w: !pto.vmi.vreg<{big}xi16>, %p: !pto.partition_tensor_view<{big}x{big}xf32>) {{\n  %t0 = pto.alloc_tile : {f}\n  %t1 = pto.alloc_tile : {u}\n  %r = pto.vmi.vinterpret_cast %v : !pto.vmi.vreg<{big}xf32> -> !pto.vmi.vreg<{big}xi16>\n  pto.tprelu ins(%t0, %t0, %t1 : {f}, {f}, {u}) outs(%t0 : {f})\n  pto.trowargmax ins(%t0, %t0 : {f}, {f}) outs(%t0 : {f})\n  pto.tsel ins(%t1, %t0, %t0, %t0 : {u}, {f}, {f}, {f}) outs(%t0 : {f})\n  pto.tstore ins(%t0 : {f}) outs(%p : !pto.partition_tensor_view<{big}x{big}xf32>)\n  return\n}}\n"
    );
    for p in [ProfileId::A2A3, ProfileId::A5] {
        let _ = check_text("t.pto", &src, Some(p));
    }
}
