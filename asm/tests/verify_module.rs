//! Module-level and legacy-op rules (asm/src/verify_module.rs).

mod common;

use pto_isa_spec::ProfileId;

#[test]
fn backend_attribute_names_a_backend() {
    let m = |b: &str| {
        format!("module attributes {{pto.backend = \"{b}\"}} {{\n  func.func @f() {{\n    return\n  }}\n}}\n")
    };
    common::rejects_at_col(
        ProfileId::A5,
        &m("other"),
        1,
        1,
        "invalid pto.backend 'other'. Expected 'emitc' or 'vpto'",
    );
    common::accepts_on(ProfileId::A5, &m("vpto"));
    common::accepts_on(ProfileId::A5, &m("emitc"));
}

#[test]
fn memref_bridge_ops_produce_memrefs() {
    let f = |op: &str, ty: &str| {
        format!("func.func @f() {{\n  %0 = \"pto.{op}\"() : () -> {ty}\n  return\n}}\n")
    };
    for op in ["declare_tile_memref", "pointer_cast"] {
        common::rejects_at_col(
            ProfileId::A2A3,
            &f(op, "i32"),
            2,
            3,
            "is a retired memref bridge op",
        );
    }
    common::accepts_on(
        ProfileId::A2A3,
        &f("declare_tile_memref", "memref<16x16xf16>"),
    );
    // generic form of a plain op: its operands are counted like the custom form's
    common::rejects_at_col(
        ProfileId::A2A3,
        &f("bind_tile", "memref<16x16xf16>"),
        2,
        3,
        "'pto.bind_tile' expects 1 to 3 operand(s), found 0",
    );
}

#[test]
fn a_manually_placed_reserve_buffer_leaves_nothing_to_plan() {
    let f = |auto: bool| {
        format!("func.func @f() {{\n  %r = pto.reserve_buffer {{name = \"fifo\", size = 8192, location = #pto.address_space<vec>, auto = {auto}, base = 0}} -> i32\n  %m = memref.alloc() : memref<16x16xf16, #pto.address_space<vec>>\n  return\n}}\n")
    };
    common::rejects_at_col(
        ProfileId::A2A3,
        &f(false),
        3,
        3,
        "'memref.alloc' cannot use pto.reserve_buffer with auto = false",
    );
    let errs = common::errors_on(ProfileId::A2A3, &f(true));
    assert!(
        !errs.iter().any(|(_, m)| m.contains("memref.alloc")),
        "{errs:?}"
    );
}
