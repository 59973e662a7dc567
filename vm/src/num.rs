//! Element access and numerics shared by every instruction group: reading and
//! writing typed elements, bf16/f16 rounding (round to nearest even), integer
//! wrapping.

use half::{bf16, f16};
use pto_isa_spec::DType;

use crate::exec::minifloat;
use crate::exec::vec_convert::Rnd;

/// A scalar element value: floats as f64, integers as i64 (unsigned as their bits).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    /// Float.
    F(f64),
    /// Integer.
    I(i64),
}

impl Num {
    /// As f64.
    pub fn f(self) -> f64 {
        match self {
            Num::F(v) => v,
            Num::I(v) => v as f64,
        }
    }

    /// As i64 (floats truncate toward zero, saturating).
    pub fn i(self) -> i64 {
        match self {
            Num::F(v) => v as i64,
            Num::I(v) => v,
        }
    }
}

/// Reads one element of type `dt` from little-endian bytes.
pub fn read(b: &[u8], dt: DType) -> Num {
    let g = |n: usize| {
        let mut a = [0u8; 8];
        a[..n].copy_from_slice(&b[..n]);
        u64::from_le_bytes(a)
    };
    match dt {
        DType::F32 => Num::F(f32::from_bits(g(4) as u32) as f64),
        DType::F64 => Num::F(f64::from_bits(g(8))),
        DType::F16 => Num::F(f16::from_bits(g(2) as u16).to_f64()),
        DType::BF16 => Num::F(bf16::from_bits(g(2) as u16).to_f64()),
        DType::I8 => Num::I(g(1) as u8 as i8 as i64),
        DType::U8 | DType::I1 => Num::I(g(1) as u8 as i64),
        DType::I16 => Num::I(g(2) as u16 as i16 as i64),
        DType::U16 => Num::I(g(2) as u16 as i64),
        DType::I32 => Num::I(g(4) as u32 as i32 as i64),
        DType::U32 => Num::I(g(4) as u32 as i64),
        DType::I64 | DType::U64 => Num::I(g(8) as i64),
        // the A5 8-bit floats decode to their value, like the wider floats
        DType::F8E4M3 | DType::F8E5M2 | DType::HiF8 => Num::F(minifloat::decode(g(1), dt)),
        // e8m0 scales and packed types: raw bits
        _ => Num::I(g(dt.bytes()) as i64),
    }
}

/// Rounds an f64 to the value representable in `dt` (round to nearest even).
pub fn round_float(v: f64, dt: DType) -> f64 {
    match dt {
        DType::F32 => v as f32 as f64,
        DType::F16 => f16::from_f64(v).to_f64(),
        DType::BF16 => bf16_rne(v).to_f64(),
        DType::F8E4M3 | DType::F8E5M2 | DType::HiF8 => {
            minifloat::decode(minifloat::encode(v, dt, Rnd::R, false), dt)
        }
        _ => v,
    }
}

/// Writes one element of type `dt` (floats rounded to nearest even, integers wrap).
pub fn write(b: &mut [u8], dt: DType, v: Num) {
    let mut put = |x: u64, n: usize| b[..n].copy_from_slice(&x.to_le_bytes()[..n]);
    match dt {
        DType::F32 => put((v.f() as f32).to_bits() as u64, 4),
        DType::F64 => put(v.f().to_bits(), 8),
        DType::F16 => put(f16::from_f64(v.f()).to_bits() as u64, 2),
        DType::BF16 => put(bf16_rne(v.f()).to_bits() as u64, 2),
        DType::F8E4M3 | DType::F8E5M2 | DType::HiF8 => {
            put(minifloat::encode(v.f(), dt, Rnd::R, false), 1)
        }
        DType::I8 | DType::U8 | DType::I1 => put(int_of(v) as u64, 1),
        DType::I16 | DType::U16 => put(int_of(v) as u64, 2),
        DType::I32 | DType::U32 => put(int_of(v) as u64, 4),
        DType::I64 | DType::U64 => put(int_of(v) as u64, 8),
        _ => put(int_of(v) as u64, dt.bytes()),
    }
}

fn int_of(v: Num) -> i64 {
    match v {
        Num::I(i) => i,
        // float -> int conversion truncates toward zero (tcvt handles rounding modes)
        Num::F(f) => f as i64,
    }
}

/// An integer element as an ordering key: u64 elements are held as their bits in
/// an i64, so they compare unsigned; every other integer compares as held.
pub fn int_key(v: Num, dt: DType) -> i128 {
    if dt == DType::U64 {
        v.i() as u64 as i128
    } else {
        v.i() as i128
    }
}

/// Wraps an integer to the width of `dt` (sign- or zero-extended back to i64).
pub fn wrap(v: i64, dt: DType) -> i64 {
    match dt {
        DType::I1 => v & 1,
        DType::I8 => v as i8 as i64,
        DType::U8 => v as u8 as i64,
        DType::I16 => v as i16 as i64,
        DType::U16 => v as u16 as i64,
        DType::I32 => v as i32 as i64,
        DType::U32 => v as u32 as i64,
        _ => v,
    }
}

/// f64 to bf16, rounding to nearest even (shared with the compiled scopes).
pub use pto_jit::vscope::bf16_rne;

/// Widens stored 8-, 16- or 32-bit integers of type `dt` to i32 into `out`
/// as the interpreter reads them for an i32 accumulator: signed types
/// sign-extended, unsigned ones zero-extended, 32-bit ones as their bits.
/// One loop per type (a match per element kept the loop from vectorizing).
pub(crate) fn widen_i32(src: &[u8], dt: DType, out: &mut [i32]) {
    fn run<const N: usize>(src: &[u8], out: &mut [i32], f: impl Fn([u8; N]) -> i32) {
        for (x, c) in out.iter_mut().zip(src.chunks_exact(N)) {
            *x = f(std::array::from_fn(|i| c[i]));
        }
    }
    match dt {
        DType::I8 => run(src, out, |[b]| i32::from(b as i8)),
        DType::U8 => run(src, out, |[b]| i32::from(b)),
        DType::I16 => run(src, out, |b| i32::from(i16::from_le_bytes(b))),
        DType::U16 => run(src, out, |b| i32::from(u16::from_le_bytes(b))),
        _ => run(src, out, i32::from_le_bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bf16_rounds_to_nearest_even() {
        // 1 + 2^-8 is exactly halfway between two bf16 values: ties to even (1.0)
        let mut b = [0u8; 2];
        write(&mut b, DType::BF16, Num::F(1.0 + 1.0 / 256.0));
        assert_eq!(read(&b, DType::BF16), Num::F(1.0));
        write(&mut b, DType::BF16, Num::F(1.0 + 3.0 / 256.0));
        assert_eq!(read(&b, DType::BF16), Num::F(1.0 + 4.0 / 256.0));
    }

    #[test]
    fn fp8_elements_hold_values() {
        let mut b = [0u8; 1];
        // e4m3fn: 1.0 is 0x38; 1 + 1/16 is halfway between 1 and 1.125: ties to even
        write(&mut b, DType::F8E4M3, Num::F(1.0 + 1.0 / 16.0));
        assert_eq!(b[0], 0x38);
        assert_eq!(read(&b, DType::F8E4M3), Num::F(1.0));
        write(&mut b, DType::F8E5M2, Num::F(-3.0));
        assert_eq!(read(&b, DType::F8E5M2), Num::F(-3.0));
        assert_eq!(round_float(1.2, DType::F8E4M3), 1.25);
    }

    #[test]
    fn u64_keys_order_unsigned() {
        let big = Num::I(u64::MAX as i64);
        assert!(int_key(big, DType::U64) > int_key(Num::I(1), DType::U64));
        assert!(int_key(Num::I(-1), DType::I64) < int_key(Num::I(1), DType::I64));
    }

    #[test]
    fn integers_wrap() {
        let mut b = [0u8; 2];
        write(&mut b, DType::I16, Num::I(40000));
        assert_eq!(read(&b, DType::I16), Num::I(40000 - 65536));
        assert_eq!(wrap(300, DType::U8), 44);
    }
}
