//! Fuzzes the `.npy` reader that `pto-run` and the case runner use for
//! inputs and goldens: bytes -> header and array. Whatever it accepts must
//! agree with its own header (element count, data size), and an array it
//! read must write and read back unchanged (bf16 and f64 aside, which a
//! `.npy` holds as uint16 bits or not at all).

#![no_main]

use libfuzzer_sys::fuzz_target;
use pto_vm::npy;

fuzz_target!(|data: &[u8]| {
    let header = npy::parse_header("in.npy", data);
    let Ok(a) = npy::parse("in.npy", data) else {
        return;
    };
    let h = header.expect("a file that parses has a header that parses");
    assert_eq!((h.dtype, &h.shape), (a.dtype, &a.shape));
    assert_eq!(a.data.len(), h.data_len);
    assert_eq!(a.data.len(), a.len() * a.dtype.bytes());
    let Ok(w) = npy::write(&a) else {
        return;
    };
    let b = npy::parse("out.npy", &w).expect("a written array reads back");
    assert_eq!(b, a, "write then read changed the array");
    let hb = npy::parse_header("out.npy", &w).expect("header");
    assert!(hb.as_is(), "a written array needs no conversion when read");
});
