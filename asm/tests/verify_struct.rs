//! Stack-local struct rules (asm/src/verify_struct.rs).

use pto_asm::{check_text, Severity};
use pto_isa_spec::ProfileId;

fn errors(src: &str) -> Vec<(u32, String)> {
    check_text("t.pto", src, Some(ProfileId::A2A3))
        .diagnostics
        .0
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| (d.loc.line, d.message.clone()))
        .collect()
}

#[track_caller]
fn rejects(src: &str, line: u32, msg: &str) {
    let errs = errors(src);
    assert!(
        errs.iter().any(|(l, m)| *l == line && m.contains(msg)),
        "expected `{msg}` at line {line}, got {errs:?}\n{src}"
    );
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
