//! Vector micro-op rules (asm/src/verify_vpto.rs): each rejects a small
//! vector scope at the offending line and accepts a near miss.

mod common;

use pto_isa_spec::ProfileId;

fn errors(src: &str) -> Vec<(u32, String)> {
    common::errors_on(ProfileId::A5, src)
}

/// A function with arguments `args` whose vector scope holds `body` (line 4).
fn func(args: &str, body: &str) -> String {
    format!(
        "func.func @f({args}) {{\n  %c0 = arith.constant 0 : index\n  pto.vecscope {{\n    {body}\n  }}\n  return\n}}\n"
    )
}

#[track_caller]
fn rejects(src: &str, msg: &str) {
    common::rejects_at(ProfileId::A5, src, 4, msg)
}

#[track_caller]
fn accepts(src: &str) {
    common::accepts_on(ProfileId::A5, src)
}

#[test]
fn post_update_base_keeps_its_type() {
    let args = "%p: !pto.ptr<f32, ub>, %m: !pto.mask<b32>";
    rejects(
        &func(args, "%v, %n = pto.vlds %p[%c0] {post_update} : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>, !pto.ptr<i32, ub>"),
        "updated base result to match base type",
    );
    accepts(&func(
        args,
        "%v, %n = pto.vlds %p[%c0] {post_update} : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>, !pto.ptr<f32, ub>",
    ));
}

#[test]
fn compute_ops_reject_low_precision_and_unsupported_elements() {
    let args = "%a: !pto.vreg<256xf8E4M3FN>, %m: !pto.mask<b8>";
    rejects(
        &func(args, "%r = pto.vadd %a, %a, %m : !pto.vreg<256xf8E4M3FN>, !pto.vreg<256xf8E4M3FN>, !pto.mask<b8> -> !pto.vreg<256xf8E4M3FN>"),
        "must not use low-precision",
    );
    let args = "%a: !pto.vreg<128xbf16>, %m: !pto.mask<b16>";
    rejects(
        &func(
            args,
            "%r = pto.vrelu %a, %m : !pto.vreg<128xbf16>, !pto.mask<b16> -> !pto.vreg<128xbf16>",
        ),
        "si32/i32/f16/f32",
    );
    let args = "%a: !pto.vreg<128xf16>, %m: !pto.mask<b16>";
    accepts(&func(
        args,
        "%r = pto.vrelu %a, %m : !pto.vreg<128xf16>, !pto.mask<b16> -> !pto.vreg<128xf16>",
    ));
}

#[test]
fn vcvt_part_follows_the_width_ratio() {
    let args = "%a: !pto.vreg<64xui32>, %m: !pto.mask<b32>";
    rejects(
        &func(args, "%r = pto.vcvt %a, %m {sat = \"SAT\", part = \"EVEN\"} : !pto.vreg<64xui32>, !pto.mask<b32> -> !pto.vreg<256xui8>"),
        "P0, P1, P2, or P3",
    );
    accepts(&func(
        args,
        "%r = pto.vcvt %a, %m {sat = \"SAT\", part = \"P0\"} : !pto.vreg<64xui32>, !pto.mask<b32> -> !pto.vreg<256xui8>",
    ));
}

#[test]
fn vgather2_offsets_and_mask_follow_the_source_width() {
    let args = "%p: !pto.ptr<f16, ub>, %o: !pto.vreg<128xui16>, %m: !pto.mask<b32>";
    rejects(
        &func(args, "%r = pto.vgather2 %p, %o, %m : !pto.ptr<f16, ub>, !pto.vreg<128xui16>, !pto.mask<b32> -> !pto.vreg<128xf16>"),
        "mask type must be !pto.mask<b16>",
    );
    let args = "%p: !pto.ptr<f16, ub>, %o: !pto.vreg<128xui16>, %m: !pto.mask<b16>";
    accepts(&func(
        args,
        "%r = pto.vgather2 %p, %o, %m : !pto.ptr<f16, ub>, !pto.vreg<128xui16>, !pto.mask<b16> -> !pto.vreg<128xf16>",
    ));
}

#[test]
fn packed_store_distributions_need_their_mask() {
    let args = "%v: !pto.vreg<64xf32>, %p: !pto.ptr<f32, ub>, %m: !pto.mask<b16>";
    rejects(
        &func(args, "pto.vsts %v, %p[%c0], %m {dist = \"PK_B64\"} : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b16>"),
        "mask type must be !pto.mask<b32>",
    );
}

#[test]
fn raw_ub_instructions_address_ub() {
    let src = |sp: &str| {
        format!(
            "func.func @f(%d: !pto.ptr<f32, {sp}>, %a: !pto.ptr<f32, {sp}>, %b: !pto.ptr<f32, {sp}>) {{\n  %c1 = arith.constant 1 : i64\n  %c0 = arith.constant 0 : i64\n  pto.ub.vmax %d, %a, %b, %c1, %c1, %c1, %c1, %c0, %c0, %c0 : !pto.ptr<f32, {sp}>, !pto.ptr<f32, {sp}>, !pto.ptr<f32, {sp}>, i64, i64, i64, i64, i64, i64, i64\n  return\n}}\n"
        )
    };
    let errs = errors(&src("gm"));
    assert!(
        errs.iter().any(|(l, m)| *l == 4 && m.contains("UB-backed")),
        "{errs:?}"
    );
    assert!(errors(&src("ub")).is_empty(), "{:?}", errors(&src("ub")));
}

#[test]
fn bitwise_ops_take_low_precision_lanes_only_as_bytes() {
    let prog = |el: &str, lanes: u32| {
        func(
            &format!("%a: !pto.vreg<{lanes}x{el}>, %m: !pto.mask<b32>"),
            &format!("%o = pto.vand %a, %a, %m : !pto.vreg<{lanes}x{el}>, !pto.vreg<{lanes}x{el}>, !pto.mask<b32> -> !pto.vreg<{lanes}x{el}>"),
        )
    };
    rejects(
        &prog("!pto.bf16x2", 64),
        "does not support bf16x2 vector elements",
    );
    accepts(&prog("i32", 64));
}

#[test]
fn elementwise_ops_keep_their_vector_type() {
    let args = "%a: !pto.vreg<64xf32>, %b: !pto.vreg<64xf32>, %h: !pto.vreg<128xf16>, %m: !pto.mask<b32>, %s: f32";
    rejects(
        &func(args, "%r = pto.vabs %a, %m : !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<128xf16>"),
        "'pto.vabs' requires matching register vector shape, got !pto.vreg<64xf32>, !pto.vreg<128xf16>",
    );
    rejects(
        &func(args, "%r = pto.vadd %a, %h, %m : !pto.vreg<64xf32>, !pto.vreg<128xf16>, !pto.mask<b32> -> !pto.vreg<64xf32>"),
        "requires matching register vector shapes",
    );
    rejects(
        &func(args, "%r = pto.vmax %a, %b, %m : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<128xf16>"),
        "lhs, rhs, and result must have the same vector type",
    );
    rejects(
        &func(args, "%r = pto.vadds %a, %s, %m : !pto.vreg<64xf32>, f32, !pto.mask<b32> -> !pto.vreg<128xf16>"),
        "requires input and result to have matching vector types",
    );
    accepts(&func(
        args,
        "%r = pto.vadd %a, %b, %m : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>",
    ));
}
