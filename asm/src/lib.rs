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

/// Reads at most `cap` bytes of the file at `path`: a larger file, or a
/// device or pipe that keeps producing data (`/dev/zero`), is an error
/// instead of a read that never ends or exhausts memory. A regular file's
/// size is checked before anything is read.
pub fn read_capped(path: &std::path::Path, cap: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let too_big = || {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("larger than {cap} bytes"),
        )
    };
    let f = std::fs::File::open(path)?;
    let meta = f.metadata()?;
    if meta.is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "is a directory",
        ));
    }
    if meta.is_file() && meta.len() > cap {
        return Err(too_big());
    }
    let mut v = Vec::new();
    f.take(cap.saturating_add(1)).read_to_end(&mut v)?;
    if v.len() as u64 > cap {
        return Err(too_big());
    }
    Ok(v)
}

/// The largest kernel file (text or binary) the tools read: 256 MiB.
pub const MAX_KERNEL_BYTES: u64 = 256 << 20;

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

#[cfg(test)]
mod tests {
    use super::read_capped;

    #[test]
    fn reads_stop_at_the_cap() {
        let p = std::env::temp_dir().join(format!("pto-asm-cap-{}.txt", std::process::id()));
        std::fs::write(&p, b"0123456789").expect("write");
        assert_eq!(read_capped(&p, 10).expect("fits"), b"0123456789");
        let e = read_capped(&p, 9).expect_err("too big");
        assert!(e.to_string().contains("larger than 9 bytes"), "{e}");
        let _ = std::fs::remove_file(&p);
        // a device that never ends is cut off after cap + 1 bytes
        let zero = std::path::Path::new("/dev/zero");
        if zero.exists() {
            let e = read_capped(zero, 1 << 20).expect_err("endless");
            assert!(e.to_string().contains("larger than"), "{e}");
        }
        let e = read_capped(&std::env::temp_dir(), 10).expect_err("a directory");
        assert!(e.to_string().contains("directory"), "{e}");
    }
}

#[cfg(test)]
mod render_tests {
    /// Thousands of errors (here: every level of a too-deep nest) render the
    /// first hundred and a count of the rest.
    #[test]
    fn deep_nests_render_a_hundred_errors_and_a_count() {
        let n = 400;
        let mut s = String::from(
            "module {\n func.func @k() {\n %c0 = arith.constant 0 : index\n %c1 = arith.constant 1 : index\n",
        );
        for k in 0..n {
            s.push_str(&format!("scf.for %i{k} = %c0 to %c1 step %c1 {{\n"));
        }
        s.push_str(&"}\n".repeat(n));
        s.push_str("return\n }\n}\n");
        let c = super::check_text("deep.pto", &s, None);
        let total = c.diagnostics.0.len();
        assert!(total > super::diag::MAX_RENDERED, "{total}");
        let r = c.diagnostics.render("deep.pto", &s);
        assert_eq!(r.matches(": error: ").count(), super::diag::MAX_RENDERED);
        assert!(
            r.contains(&format!(
                "deep.pto: {} more diagnostic(s) not shown",
                total - super::diag::MAX_RENDERED
            )),
            "{r}"
        );
        assert!(r.contains("nesting too deep"), "{r}");
    }
}
