//! Accumulator-store clause rules (asm/src/verify_acc.rs): each rejects a
//! small store at its line and accepts a near miss.

mod common;

use pto_isa_spec::ProfileId;

/// A store `op` from f32 L0C to `dst` (type `dty`) with `clauses` (line 5),
/// extra arguments `args` and the trailing operand types `tys`.
fn store(op: &str, dty: &str, args: &str, clauses: &str, tys: &str) -> String {
    format!(
        "func.func @f(%src: !pto.ptr<f32, l0c>, %dst: {dty}{args}) {{\n  %c16 = arith.constant 16 : i64\n  %c15 = arith.constant 15 : i64\n  %c2 = arith.constant 2 : i64\n  pto.{op} %src, %dst, %c16, %c16, %c16, %c16{clauses} : !pto.ptr<f32, l0c>, {dty}, i64, i64, i64, i64{tys}\n  return\n}}\n"
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
fn atomic_only_to_gm() {
    let l1 = "!pto.ptr<f32, l1>";
    rejects(
        &store("mte_l0c_l1", l1, "", ", atomic(type = f32, op = add)", ""),
        "atomic is only supported for mte_l0c_gm",
    );
    accepts(&store("mte_l0c_l1", l1, "", ", nz2nd", ""));
}

#[test]
fn one_saturation_clause() {
    let l1 = "!pto.ptr<f32, l1>";
    rejects(
        &store("mte_l0c_l1", l1, "", ", nz2nd, sat, nosat", ""),
        "duplicate sat/nosat",
    );
    accepts(&store("mte_l0c_l1", l1, "", ", nz2nd, sat", ""));
}

#[test]
fn layouts_fit_the_destination() {
    let f16 = "!pto.ptr<f16, l1>";
    rejects(
        &store("mte_l0c_l1", f16, "", ", nz2nz", ""),
        "nz2nz requires destination element type to be f32",
    );
    let f32 = "!pto.ptr<f32, l1>";
    rejects(
        &store("mte_l0c_l1", f32, "", ", nz2dn", ""),
        "nz2dn requires loop0_src_stride",
    );
    rejects(
        &store(
            "mte_l0c_l1",
            f32,
            "",
            ", unit_flag(check_only), nz2dn(%c2)",
            ", i64",
        ),
        "unit_flag must be off",
    );
}

#[test]
fn pre_quant_mode_fits_the_element_types() {
    let f16 = "!pto.ptr<f16, l1>";
    rejects(
        &store(
            "mte_l0c_l1",
            f16,
            ", %q: bf16",
            ", pre_quant(%q, mode = f32_bf16)",
            ", bf16",
        ),
        "incompatible with source element type 'f32' and destination element type 'f16'",
    );
    let bf16 = "!pto.ptr<bf16, l1>";
    accepts(&store(
        "mte_l0c_l1",
        bf16,
        ", %q: bf16",
        ", pre_quant(%q, mode = f32_bf16)",
        ", bf16",
    ));
}

#[test]
fn split_destination_shapes() {
    let ub = "!pto.ptr<f32, ub>";
    let src =
        store("mte_l0c_ub", ub, "", ", dst_mode(split_m)", "").replace("%dst, %c16", "%dst, %c15");
    rejects(&src, "split-M dual destination requires m to be even");
    accepts(&store("mte_l0c_ub", ub, "", ", dst_mode(split_m)", ""));
}
