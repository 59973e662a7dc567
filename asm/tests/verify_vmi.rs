//! VMI rules (asm/src/verify_vmi.rs): each rejects a small function at the
//! offending line with the expected message, and accepts a near miss.

mod common;

use pto_isa_spec::ProfileId;

/// A function with arguments `args` whose body (line 2) is `body`.
fn func(args: &str, body: &str) -> String {
    format!("func.func @f({args}) {{\n  {body}\n  return\n}}\n")
}

#[track_caller]
fn rejects(src: &str, line: u32, msg: &str) {
    common::rejects_at(ProfileId::A5, src, line, msg)
}

#[track_caller]
fn accepts(src: &str) {
    common::accepts_on(ProfileId::A5, src)
}

const V64F32: &str = "!pto.vmi.vreg<64xf32>";

#[test]
fn malformed_types_are_rejected_where_defined() {
    rejects(
        &func("%a: !pto.vmi.vreg<0xf32>", ""),
        1,
        "positive element count",
    );
    rejects(
        &func("%a: !pto.vmi.vreg<64xi64>", ""),
        1,
        "8-bit, 16-bit, or 32-bit",
    );
    rejects(
        &func("%a: !pto.vmi.mask<64xb64>", ""),
        1,
        "one of pred, b8, b16, b32",
    );
    rejects(
        &func(
            "%a: !pto.vmi.mask<64xpred, #pto.vmi.layout<contiguous>>",
            "",
        ),
        1,
        "pred mask must not carry layout",
    );
    rejects(
        &func(
            "%a: !pto.vmi.vreg<64xf32, #pto.vmi.layout<deinterleaved = 3>>",
            "",
        ),
        1,
        "expected factor to be 2 or 4",
    );
    accepts(&func(
        "%a: !pto.vmi.vreg<64xf32, #pto.vmi.layout<deinterleaved = 2>>, %m: !pto.vmi.mask<64xb32, #pto.vmi.layout<contiguous>>",
        "",
    ));
}

#[test]
fn elementwise_operands_agree_on_lanes_and_element_type() {
    let args = format!("%a: {V64F32}, %b: !pto.vmi.vreg<128xf32>");
    let body = format!("%r = pto.vmi.vadd %a, %b : {V64F32}, !pto.vmi.vreg<128xf32> -> {V64F32}");
    rejects(&func(&args, &body), 2, "same logical lane count");
    let args = format!("%a: {V64F32}, %b: !pto.vmi.vreg<64xf16>");
    let body = format!("%r = pto.vmi.vmax %a, %b : {V64F32}, !pto.vmi.vreg<64xf16> -> {V64F32}");
    rejects(&func(&args, &body), 2, "same element type");
    let args = format!("%a: {V64F32}, %b: {V64F32}");
    let body = format!("%r = pto.vmi.vadd %a, %b : {V64F32}, {V64F32} -> {V64F32}");
    accepts(&func(&args, &body));
}

#[test]
fn element_type_classes() {
    let v = "!pto.vmi.vreg<64xi32>";
    let body = format!("%r = pto.vmi.vdiv %a, %a : {v}, {v} -> {v}");
    rejects(&func(&format!("%a: {v}"), &body), 2, "requires f16 or f32");
    let body = format!("%r = pto.vmi.vand %a, %a : {V64F32}, {V64F32} -> {V64F32}");
    rejects(&func(&format!("%a: {V64F32}"), &body), 2, "integer-like");
    let body = format!("%r = pto.vmi.vand %a, %a : {v}, {v} -> {v}");
    accepts(&func(&format!("%a: {v}"), &body));
}

#[test]
fn masks_match_the_data_they_predicate() {
    let m16 = "!pto.vmi.mask<64xb16>";
    let args = format!("%a: {V64F32}, %m: {m16}");
    let body = format!("%r = pto.vmi.vsel %m, %a, %a : {m16}, {V64F32}, {V64F32} -> {V64F32}");
    rejects(
        &func(&args, &body),
        2,
        "mask granularity to match data element width",
    );
    let m32 = "!pto.vmi.mask<64xb32>";
    let args = format!("%a: {V64F32}, %m: {m32}");
    let body = format!("%r = pto.vmi.vsel %m, %a, %a : {m32}, {V64F32}, {V64F32} -> {V64F32}");
    accepts(&func(&args, &body));
    // mask logic: same lanes and granularity
    let args = "%a: !pto.vmi.mask<128xpred>, %b: !pto.vmi.mask<64xpred>";
    let body = "%r = pto.vmi.vand %a, %b : !pto.vmi.mask<128xpred>, !pto.vmi.mask<64xpred> -> !pto.vmi.mask<128xpred>";
    rejects(&func(args, body), 2, "same logical lane count");
}

#[test]
fn memory_element_type_matches_data() {
    let args = "%p: !pto.ptr<f32, ub>, %o: index";
    let body = "%r = pto.vmi.vload %p[%o] : !pto.ptr<f32, ub> -> !pto.vmi.vreg<128xf16>";
    rejects(&func(args, body), 2, "memory source element type to match");
    let body = "%r = pto.vmi.vload %p[%o] : !pto.ptr<f32, ub> -> !pto.vmi.vreg<64xf32>";
    accepts(&func(args, body));
}

#[test]
fn casts_keep_lanes_and_bits() {
    let body = format!("%r = pto.vmi.vinterpret_cast %a : {V64F32} -> !pto.vmi.vreg<64xi16>");
    rejects(
        &func(&format!("%a: {V64F32}"), &body),
        2,
        "same total number of bits",
    );
    let body = format!("%r = pto.vmi.vinterpret_cast %a : {V64F32} -> !pto.vmi.vreg<128xi16>");
    accepts(&func(&format!("%a: {V64F32}"), &body));
    let body = "%r = pto.vmi.vcvt %a : !pto.vmi.vreg<64xf16> -> !pto.vmi.vreg<128xf32>";
    rejects(
        &func("%a: !pto.vmi.vreg<64xf16>", body),
        2,
        "logical lane counts to match",
    );
}

#[test]
fn gather_offsets_are_unsigned_16_or_32_bit() {
    let args = "%p: !pto.ptr<f32, ub>, %i: !pto.vmi.vreg<64xf32>, %m: !pto.vmi.mask<64xpred>";
    let body = "%r = pto.vmi.vgather %p, %i, %m : !pto.ptr<f32, ub>, !pto.vmi.vreg<64xf32>, !pto.vmi.mask<64xpred> -> !pto.vmi.vreg<64xf32>";
    rejects(&func(args, body), 2, "16-bit or 32-bit integer offsets");
    let args = "%p: !pto.ptr<f32, ub>, %i: !pto.vmi.vreg<64xui32>, %m: !pto.vmi.mask<64xpred>";
    let body = "%r = pto.vmi.vgather %p, %i, %m : !pto.ptr<f32, ub>, !pto.vmi.vreg<64xui32>, !pto.vmi.mask<64xpred> -> !pto.vmi.vreg<64xf32>";
    accepts(&func(args, body));
}

#[test]
fn vcvt_direction_decides_rounding_and_saturation() {
    let body = "%r = pto.vmi.vcvt %a : !pto.vmi.vreg<64xf32> -> !pto.vmi.vreg<64xi32>";
    rejects(
        &func("%a: !pto.vmi.vreg<64xf32>", body),
        2,
        "unsupported fp-to-ui conversion",
    );
    let body = "%r = pto.vmi.vcvt %a {saturate = \"SAT\"} : !pto.vmi.vreg<64xf32> -> !pto.vmi.vreg<64xsi32>";
    accepts(&func("%a: !pto.vmi.vreg<64xf32>", body));
    let body = "%r = pto.vmi.vcvt %a {saturate = \"SAT\"} : !pto.vmi.vreg<64xf16> -> !pto.vmi.vreg<64xf32>";
    rejects(
        &func("%a: !pto.vmi.vreg<64xf16>", body),
        2,
        "only valid for fp-narrow / int-narrow",
    );
    let body = "%r = pto.vmi.vcvt %a : !pto.vmi.vreg<64xf16> -> !pto.vmi.vreg<64xbf16>";
    rejects(
        &func("%a: !pto.vmi.vreg<64xf16>", body),
        2,
        "same-width fp-to-fp",
    );
}

#[test]
fn channel_split_and_shuffle_shapes() {
    let v = "!pto.vmi.vreg<64xf32>";
    let body = format!(
        "%a, %b = \"pto.vmi.channel_split\"(%s) : ({v}) -> ({V64F32}, !pto.vmi.vreg<16xf32>)"
    );
    rejects(&func(&format!("%s: {v}"), &body), 2, "equal lane count");
    let body = "%a, %b = \"pto.vmi.channel_split\"(%s) : (!pto.vmi.vreg<64xf32>) -> (!pto.vmi.vreg<32xf32>, !pto.vmi.vreg<32xf32>)";
    accepts(&func(&format!("%s: {v}"), body));
    let body = format!("%r = \"pto.vmi.shuffle\"(%s) {{indices = array<i64: 0, 1, 70>}} : ({v}) -> !pto.vmi.vreg<3xf32>");
    rejects(
        &func(&format!("%s: {v}"), &body),
        2,
        "existing source logical lane",
    );
}

#[test]
fn compare_predicates_histograms_and_lane_selects() {
    let v = "!pto.vmi.vreg<64xi32>";
    let m = "!pto.vmi.mask<64xpred>";
    let body = format!("%r = pto.vmi.vcmp %a, %a, %m {{cmp = \"uno\"}} : {v}, {v}, {m} -> {m}");
    rejects(
        &func(&format!("%a: {v}, %m: {m}"), &body),
        2,
        "unsupported compare predicate 'uno'",
    );
    let body = format!("%r = pto.vmi.vcmp %a, %a, %m {{cmp = \"lt\"}} : {v}, {v}, {m} -> {m}");
    accepts(&func(&format!("%a: {v}, %m: {m}"), &body));
    let acc = "!pto.vmi.vreg<256xsi16>";
    let src = "!pto.vmi.vreg<256xui8>";
    let m = "!pto.vmi.mask<256xpred>";
    let body = format!("%r = pto.vmi.vdhist %a, %s, %m : {acc}, {src}, {m} -> {acc}");
    rejects(
        &func(&format!("%a: {acc}, %s: {src}, %m: {m}"), &body),
        2,
        "requires acc type",
    );
    let body = format!("%r = pto.vmi.vselr %s, %i : {V64F32}, !pto.vmi.vreg<64xi16> -> {V64F32}");
    rejects(
        &func(&format!("%s: {V64F32}, %i: !pto.vmi.vreg<64xi16>"), &body),
        2,
        "storage width",
    );
}

#[test]
fn physical_parts_and_register_size() {
    let body = "%a = \"pto.vmi.pack\"(%p) : (!pto.vreg<64xf32>) -> !pto.vmi.vreg<128xf32, #pto.vmi.layout<deinterleaved = 2>>";
    rejects(
        &func("%p: !pto.vreg<64xf32>", body),
        2,
        "requires 2 physical parts, got 1",
    );
    let body = "%a = \"pto.vmi.pack\"(%p, %p) : (!pto.vreg<64xf32>, !pto.vreg<64xf32>) -> !pto.vmi.vreg<128xf32, #pto.vmi.layout<deinterleaved = 2>>";
    accepts(&func("%p: !pto.vreg<64xf32>", body));
    rejects(&func("%p: !pto.vreg<128xf32>", ""), 1, "exactly 256 bytes");
}

#[test]
fn integer_reductions_and_multiply_accumulate() {
    let v = "!pto.vmi.vreg<128xi16>";
    let m = "!pto.vmi.mask<128xpred>";
    let body = format!("%r = pto.vmi.vcadd %a, %m : {v}, {m} -> !pto.vmi.vreg<1xi16>");
    rejects(
        &func(&format!("%a: {v}, %m: {m}"), &body),
        2,
        "32-bit integer source",
    );
    let body =
        format!("%r = pto.vmi.vcadd %a, %m {{group = 2}} : {v}, {m} -> !pto.vmi.vreg<2xi16>");
    accepts(&func(&format!("%a: {v}, %m: {m}"), &body));
    let w = "!pto.vmi.vreg<64xi32>";
    let body = format!("%r = pto.vmi.vmula %a, %a, %a : {w}, {w}, {w} -> {w}");
    rejects(&func(&format!("%a: {w}"), &body), 2, "fused multiply-add");
}

#[test]
fn integer_extensions_follow_signedness() {
    let body = "%r = pto.vmi.extui %a : !pto.vmi.vreg<64xsi8> -> !pto.vmi.vreg<64xsi16>";
    rejects(
        &func("%a: !pto.vmi.vreg<64xsi8>", body),
        2,
        "unsigned or signless",
    );
    let body = "%r = pto.vmi.extsi %a : !pto.vmi.vreg<64xsi8> -> !pto.vmi.vreg<64xsi16>";
    accepts(&func("%a: !pto.vmi.vreg<64xsi8>", body));
}

#[test]
fn gathers_and_scatters_stay_in_ub() {
    let args = |s: &str| {
        format!("%p: !pto.ptr<f32, {s}>, %i: !pto.vmi.vreg<64xi32>, %m: !pto.vmi.mask<64xpred>")
    };
    let body = |s: &str| {
        format!("%r = pto.vmi.vgather %p, %i, %m : !pto.ptr<f32, {s}>, !pto.vmi.vreg<64xi32>, !pto.vmi.mask<64xpred> -> !pto.vmi.vreg<64xf32>")
    };
    common::rejects_at_col(
        ProfileId::A5,
        &func(&args("gm"), &body("gm")),
        2,
        3,
        "'pto.vmi.vgather' requires memory source to be UB-backed",
    );
    accepts(&func(&args("ub"), &body("ub")));
    let args = |s: &str| {
        format!("%v: !pto.vmi.vreg<64xf32>, %p: !pto.ptr<f32, {s}>, %i: !pto.vmi.vreg<64xi32>, %m: !pto.vmi.mask<64xpred>")
    };
    let body = |s: &str| {
        format!("pto.vmi.vscatter %v, %p, %i, %m : !pto.vmi.vreg<64xf32>, !pto.ptr<f32, {s}>, !pto.vmi.vreg<64xi32>, !pto.vmi.mask<64xpred>")
    };
    common::rejects_at_col(
        ProfileId::A5,
        &func(&args("gm"), &body("gm")),
        2,
        3,
        "requires memory destination to be UB-backed",
    );
    accepts(&func(&args("ub"), &body("ub")));
}
