//! Fuzzes the text front end: bytes -> lossy UTF-8 -> parse (+ verify). Text the
//! parser accepts must print, re-parse without errors to the same canonical text,
//! assemble, and decode back to the same canonical text.

#![no_main]

use libfuzzer_sys::fuzz_target;
use pto_asm::binary;
use pto_asm::printer::{print_file, PrintOptions};
use pto_asm::Severity;

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    let checked = pto_asm::check_text("fuzz.pto", &src, None);
    // diagnostics must render whatever they point at
    for d in checked.diagnostics.0.iter().take(8) {
        let _ = d.render("fuzz.pto", &src);
    }
    let (file, diags) = pto_asm::parse("fuzz.pto", &src);
    if diags.iter().any(|d| d.severity == Severity::Error) {
        let _ = print_file(&file, PrintOptions::default());
        return;
    }
    let printed = print_file(&file, PrintOptions::default());
    let (file2, diags2) = pto_asm::parse("fuzz.pto", &printed);
    if let Some(d) = diags2.iter().find(|d| d.severity == Severity::Error) {
        panic!(
            "printed text of accepted input does not re-parse:\n{}\n--- printed ---\n{printed}",
            d.render("printed.pto", &printed)
        );
    }
    let printed2 = print_file(&file2, PrintOptions::default());
    assert_eq!(printed, printed2, "printing is not idempotent");
    let bin = binary::encode(&file2, Some(checked.profile));
    let dec = match binary::decode(&bin) {
        Ok(d) => d,
        Err(e) => {
            panic!("a freshly assembled binary does not decode: {e}\n--- text ---\n{printed}")
        }
    };
    let printed3 = print_file(&dec.file, PrintOptions::default());
    assert_eq!(printed, printed3, "decoded module prints differently");
});
