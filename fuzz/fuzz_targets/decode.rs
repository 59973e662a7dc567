//! Fuzzes the binary decoder: bytes -> decode. Whatever it accepts must print,
//! re-parse (errors allowed: a hostile binary may hold names the text syntax
//! cannot spell), and re-encode into a binary that decodes again to a module
//! that prints identically.

#![no_main]

use libfuzzer_sys::fuzz_target;
use pto_asm::binary;
use pto_asm::printer::{print_file, PrintOptions};
use pto_asm::Severity;
use pto_isa_spec::ProfileId;

fuzz_target!(|data: &[u8]| {
    let Ok(dec) = binary::decode(data) else {
        return;
    };
    let text = print_file(&dec.file, PrintOptions::default());
    let _ = print_file(&dec.file, PrintOptions { locs: false });
    let (file, diags) = pto_asm::parse("dis.pto", &text);
    if !diags.iter().any(|d| d.severity == Severity::Error) {
        let _ = binary::encode(&file, dec.profile);
        let _ = pto_asm::verify::verify(&file, dec.profile.unwrap_or(ProfileId::A2A3));
    }
    let again = binary::encode(&dec.file, dec.profile);
    match binary::decode(&again) {
        Ok(d2) => assert_eq!(
            print_file(&d2.file, PrintOptions::default()),
            text,
            "re-encoding a decoded module changed it"
        ),
        Err(e) => panic!("re-encoding a decoded module gives an undecodable binary: {e}"),
    }
});
