//! Helpers shared by the verifier rule tests: the errors `pto-as --check`
//! reports for a snippet, and assertions on them.
#![allow(dead_code)]

use pto_asm::{check_text, Severity};
use pto_isa_spec::ProfileId;

/// (line, message) of every error for `src` on `profile`.
pub fn errors_on(profile: ProfileId, src: &str) -> Vec<(u32, String)> {
    check_text("t.pto", src, Some(profile))
        .diagnostics
        .0
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| (d.loc.line, d.message.clone()))
        .collect()
}

/// `src` has an error containing `msg` at `line`.
#[track_caller]
pub fn rejects_at(profile: ProfileId, src: &str, line: u32, msg: &str) {
    let errs = errors_on(profile, src);
    assert!(
        errs.iter().any(|(l, m)| *l == line && m.contains(msg)),
        "expected `{msg}` at line {line}, got {errs:?}\n{src}"
    );
}

/// `src` has no error.
#[track_caller]
pub fn accepts_on(profile: ProfileId, src: &str) {
    let errs = errors_on(profile, src);
    assert!(errs.is_empty(), "expected no errors, got {errs:?}\n{src}");
}

/// `src` has an error containing `msg` at `line`:`col`.
#[track_caller]
pub fn rejects_at_col(profile: ProfileId, src: &str, line: u32, col: u32, msg: &str) {
    let errs: Vec<(u32, u32, String)> = check_text("t.pto", src, Some(profile))
        .diagnostics
        .0
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| (d.loc.line, d.loc.col, d.message.clone()))
        .collect();
    assert!(
        errs.iter()
            .any(|(l, c, m)| *l == line && *c == col && m.contains(msg)),
        "expected `{msg}` at {line}:{col}, got {errs:?}\n{src}"
    );
}
