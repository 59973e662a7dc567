//! `pto-asm`: reads PTO kernel text, verifies it, encodes it into ptovm's
//! ELF-contained binary and decodes/disassembles it back.

pub mod ast;
pub mod attr;
pub mod binary;
pub mod diag;
pub mod lexer;
pub mod parser;
pub mod printer;
pub mod ty;
pub mod verify;
mod verify_acc;
mod verify_comm;
mod verify_cube;
mod verify_module;
mod verify_mx;
mod verify_pipe;
mod verify_rules;
mod verify_simt;
mod verify_struct;
mod verify_tileop;
mod verify_vmi;
mod verify_vpto;

pub use ast::{Block, Elem, File, Op, Punct, Region, ValueId};
pub use diag::{Diagnostic, Diagnostics, Loc, Severity};
pub use parser::parse;

use pto_isa_spec::ProfileId;

/// Splits text at `// -----` lines (MLIR's `--split-input-file`), keeping line
/// numbers: each chunk is padded with the newlines that precede it.
pub fn split_input(src: &str) -> Vec<String> {
    let mut chunks = vec![String::new()];
    for (line, l) in src.split_inclusive('\n').enumerate() {
        if l.trim_end() == "// -----" {
            chunks.push("\n".repeat(line + 1));
        } else {
            let n = chunks.len() - 1;
            chunks[n].push_str(l);
        }
    }
    chunks
}

/// The result of reading and verifying kernel text.
#[derive(Debug)]
pub struct Checked {
    /// The parsed file (present even when there are errors, for diagnostics).
    pub file: File,
    /// The profile used for verification.
    pub profile: ProfileId,
    /// Every diagnostic (parse and verify).
    pub diagnostics: Diagnostics,
}

/// Parses and verifies kernel text. Verification runs only when parsing
/// succeeded; all errors of the failing stage are reported.
pub fn check_text(name: &str, src: &str, profile: Option<ProfileId>) -> Checked {
    let (file, mut diags) = parse(name, src);
    let given = profile.is_some();
    let (profile, warn) = verify::file_profile(&file, profile);
    diags.extend(warn);
    // a profile the module declares counts as chosen
    let chosen = given
        || verify::file_profile(&file, Some(ProfileId::A5)).1.is_some()
        || verify::file_profile(&file, Some(ProfileId::A2A3))
            .1
            .is_some();
    if !diags.iter().any(|d| d.severity == Severity::Error) {
        diags.extend(verify::verify_profile(&file, profile, chosen));
    }
    Checked {
        file,
        profile,
        diagnostics: Diagnostics(diags),
    }
}
