//! Cube buffer micro-op rules (asm/src/verify_cube.rs).

mod common;

use pto_isa_spec::ProfileId;

/// A function over `args` with constants `%c0`, `%c1`, `%c256` and `body` on line 5.
fn func(args: &str, body: &str) -> String {
    format!(
        "func.func @f({args}) {{\n  %c0 = arith.constant 0 : i64\n  %c1 = arith.constant 1 : i64\n  %c256 = arith.constant 256 : i64\n  {body}\n  return\n}}\n"
    )
}

#[track_caller]
fn rejects(src: &str, msg: &str) {
    common::rejects_at(ProfileId::A5, src, 5, msg)
}

#[track_caller]
fn accepts(src: &str) {
    common::accepts_on(ProfileId::A5, src)
}

#[test]
fn l1_to_l0_loads_move_mat_to_left_or_right_within_field_ranges() {
    let ty = |s: &str, d: &str| {
        format!(": !pto.ptr<f16, {s}>, !pto.ptr<f16, {d}>, i64, i64, i64, i64, i64, i64")
    };
    let args = |s: &str, d: &str| format!("%src: !pto.ptr<f16, {s}>, %dst: !pto.ptr<f16, {d}>");
    let op = |steps: &str, s: &str, d: &str| {
        format!(
            "pto.load_cbuf_to_ca %src, %dst, %c0, %c0, {steps}, %c1, %c1, %c1 {}",
            ty(s, d)
        )
    };
    rejects(
        &func(&args("ub", "l0a"), &op("%c1", "ub", "l0a")),
        "requires MAT source",
    );
    rejects(
        &func(&args("l1", "l0b"), &op("%c1", "l1", "l0b")),
        "requires LEFT destination",
    );
    rejects(
        &func(&args("l1", "l0a"), &op("%c256", "l1", "l0a")),
        "m_step must be <= 255",
    );
    accepts(&func(&args("l1", "l0a"), &op("%c1", "l1", "l0a")));
}

#[test]
fn raw_fill_targets_l1_with_16_or_32_bit_words() {
    let op = |space: &str, bits: u32| {
        format!("pto.raw_fill_l1 %dst, %c0, %z, %c1, %c1, %c0 {{fill_word_bits = {bits} : i64}} : !pto.ptr<ui16, {space}>, i64, i32, i64, i64, i64")
    };
    let args = |space: &str| format!("%dst: !pto.ptr<ui16, {space}>, %z: i32");
    rejects(&func(&args("ub"), &op("ub", 16)), "mat/l1 address space");
    rejects(
        &func(&args("mat"), &op("mat", 8)),
        "fill_word_bits must be 16 or 32",
    );
    accepts(&func(&args("mat"), &op("mat", 16)));
}

#[test]
fn mad_modes_fit_the_element_types() {
    let args = "%l: !pto.ptr<i8, l0a>, %r: !pto.ptr<i8, l0b>, %d: !pto.ptr<i32, l0c>";
    let op = |m: &str| {
        format!("pto.mad %l, %r, %d, %c1, %c1, %c1{m} : !pto.ptr<i8, l0a>, !pto.ptr<i8, l0b>, !pto.ptr<i32, l0c>, i64, i64, i64")
    };
    rejects(&func(args, &op(" sat")), "sat/nosat only for floating");
    accepts(&func(args, &op("")));
}

#[test]
fn l1_to_l0_operand_forms() {
    let ty = "!pto.ptr<f16, l1>, !pto.ptr<f16, l0a>";
    let args = "%src: !pto.ptr<f16, l1>, %dst: !pto.ptr<f16, l0a>";
    rejects(
        &func(args, &format!("pto.mte_l1_l0a %src, %dst, %c0, %c0, %c0, %c0, %c0 : {ty}, i64, i64, i64, i64, i64")),
        "four shape-derived or six full positional",
    );
    rejects(
        &func(
            args,
            &format!("pto.mte_l1_l0a %src, %dst, m_start(%c0) : {ty}, i64"),
        ),
        "full control form requires k_start",
    );
    rejects(
        &func(args, &format!("pto.mte_l1_l0a %src, %dst, m(%c1), k(%c1), start_row(%c0), start_col(%c0), m_start(%c0) : {ty}, i64, i64, i64, i64, i64")),
        "cannot mix",
    );
    accepts(&func(
        args,
        &format!("pto.mte_l1_l0a %src, %dst, %c1, %c1, %c0, %c0 : {ty}, i64, i64, i64, i64"),
    ));
}

#[test]
fn mad_mx_has_no_tf32_mode() {
    let args = "%l: !pto.ptr<f8E4M3FN, l0a>, %r: !pto.ptr<f8E4M3FN, l0b>, %d: !pto.ptr<f32, l0c>";
    let op = |m: &str| {
        format!("pto.mad_mx %l, %r, %d, %c1, %c1, %c1{m} : !pto.ptr<f8E4M3FN, l0a>, !pto.ptr<f8E4M3FN, l0b>, !pto.ptr<f32, l0c>, i64, i64, i64")
    };
    common::rejects_at_col(
        ProfileId::A5,
        &func(args, &op(" tf32_mode(round_even)")),
        5,
        3,
        "'pto.mad_mx' takes no tf32_mode clause",
    );
    accepts(&func(args, &op("")));
}

#[test]
fn mad_acc_and_bias_share_the_mode_rules() {
    let args = "%l: !pto.ptr<f16, l0a>, %r: !pto.ptr<f16, l0b>, %d: !pto.ptr<f32, l0c>";
    let op = |m: &str| {
        format!("pto.mad_acc %l, %r, %d, %c1, %c1, %c1{m} : !pto.ptr<f16, l0a>, !pto.ptr<f16, l0b>, !pto.ptr<f32, l0c>, i64, i64, i64")
    };
    common::rejects_at_col(
        ProfileId::A5,
        &func(args, &op(" tf32_mode(round_even)")),
        5,
        3,
        "'pto.mad_acc' requires tf32_mode only for f32 lhs/rhs/dst element types",
    );
    accepts(&func(args, &op("")));
}
