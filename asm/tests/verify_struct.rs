//! Stack-local struct rules (asm/src/verify_struct.rs).

mod common;

use pto_isa_spec::ProfileId;

fn errors(src: &str) -> Vec<(u32, String)> {
    common::errors_on(ProfileId::A2A3, src)
}

#[track_caller]
fn rejects(src: &str, line: u32, msg: &str) {
    common::rejects_at(ProfileId::A2A3, src, line, msg)
}

const S: &str = "!pto.struct<f32, i8>";

#[test]
fn structs_stay_in_their_function() {
    let arg = format!("func.func @f(%s: {S}) {{\n  return\n}}\n");
    rejects(&arg, 1, "must not be a function argument");
    let ret = format!(
        "func.func @f() -> {S} {{\n  %s = pto.declare_struct -> {S}\n  return %s : {S}\n}}\n"
    );
    rejects(&ret, 1, "must not be returned");
    rejects(&ret, 3, "must not escape");
}

#[test]
fn fields_and_paths() {
    let bad = "func.func @f() {\n  %s = pto.declare_struct -> !pto.struct<f32, i1>\n  return\n}\n";
    rejects(bad, 2, "not scalar-storable");
    let oob = format!("func.func @f() {{\n  %s = pto.declare_struct -> {S}\n  %r = pto.struct_get %s[5] : {S} -> f32\n  return\n}}\n");
    rejects(&oob, 3, "out of range");
    let ok = format!("func.func @f() {{\n  %s = pto.declare_struct -> {S}\n  %r = pto.struct_get %s[1] : {S} -> i8\n  return\n}}\n");
    assert!(errors(&ok).is_empty(), "{:?}", errors(&ok));
}
