//! 8-bit and 4-bit float formats (A5): fp8 e4m3fn, fp8 e5m2, fp4 e2m1,
//! fp4 e1m2 and the exponent-only e8m0, decoded to f64 and encoded from f64
//! with every rounding mode of `vcvt` and saturation.
//!
//! Encoding enumerates the format's finite values (at most 128 magnitudes),
//! so rounding is exact by construction: the two neighbours of |x| are found
//! and the mode picks one; ties to even pick the code with a zero last bit.

use pto_isa_spec::DType;

use crate::exec::vec_convert::Rnd;

/// A sign / exponent / mantissa format.
#[derive(Clone, Copy, Debug)]
struct Fmt {
    e: u32,
    m: u32,
    bias: i32,
    /// IEEE-style: the all-ones exponent holds infinities and NaNs.
    ieee: bool,
    /// fn-style: only the all-ones code (per sign) is NaN.
    fn_nan: bool,
}

fn fmt(dt: DType) -> Option<Fmt> {
    Some(match dt {
        DType::F8E4M3 => Fmt {
            e: 4,
            m: 3,
            bias: 7,
            ieee: false,
            fn_nan: true,
        },
        DType::F8E5M2 => Fmt {
            e: 5,
            m: 2,
            bias: 15,
            ieee: true,
            fn_nan: false,
        },
        DType::F4E2M1 => Fmt {
            e: 2,
            m: 1,
            bias: 1,
            ieee: false,
            fn_nan: false,
        },
        DType::F4E1M2 => Fmt {
            e: 1,
            m: 2,
            bias: 1,
            ieee: false,
            fn_nan: false,
        },
        _ => return None,
    })
}

/// Whether `dt` is a format this module encodes and decodes.
pub fn supported(dt: DType) -> bool {
    fmt(dt).is_some() || matches!(dt, DType::E8M0 | DType::HiF8)
}

/// HiFloat8: sign, a prefix-coded "dot" field giving the exponent width D
/// (`11` 4, `10` 3, `01` 2, `001` 1, `0001` 0, `0000` denormal), the
/// exponent in sign-magnitude with an implicit leading 1, then the
/// mantissa. Denormals are 2^(M-23); 0x80 is NaN; exponent +15 with
/// mantissa 1 is infinity.
fn hif8_decode(code: u8) -> f64 {
    if code == 0x80 {
        return f64::NAN;
    }
    let neg = code & 0x80 != 0;
    let r = (code & 0x7f) as u32;
    let bit = |i: u32| (r >> i) & 1;
    let (d, dl) = match (bit(6), bit(5), bit(4), bit(3)) {
        (1, 1, _, _) => (Some(4), 2),
        (1, 0, _, _) => (Some(3), 2),
        (0, 1, _, _) => (Some(2), 2),
        (0, 0, 1, _) => (Some(1), 3),
        (0, 0, 0, 1) => (Some(0), 4),
        _ => (None, 4),
    };
    let v = match d {
        None => {
            let m = r & 7;
            if m == 0 {
                0.0
            } else {
                2f64.powi(m as i32 - 23)
            }
        }
        Some(d) => {
            let mb = 7 - dl - d;
            let man = r & ((1 << mb) - 1);
            let ef = (r >> mb) & ((1 << d) - 1);
            let e = if d == 0 {
                0
            } else {
                let mag = (1 << (d - 1)) | (ef & ((1 << (d - 1)) - 1));
                if ef >> (d - 1) == 1 {
                    -(mag as i32)
                } else {
                    mag as i32
                }
            };
            if d == 4 && e == 15 && man == 1 {
                f64::INFINITY
            } else {
                2f64.powi(e) * (1.0 + man as f64 / (1u32 << mb) as f64)
            }
        }
    };
    if neg {
        -v
    } else {
        v
    }
}

fn hif8_encode(x: f64, rnd: Rnd, sat: bool) -> u8 {
    if x.is_nan() {
        return 0x80;
    }
    let neg = x.is_sign_negative();
    let s = if neg { 0x80u8 } else { 0 };
    let a = x.abs();
    // finite non-negative values by magnitude (codes are not monotonic)
    let mut vals: Vec<(u8, f64)> = (0u8..0x80)
        .map(|c| (c, hif8_decode(c)))
        .filter(|(_, v)| v.is_finite())
        .collect();
    vals.sort_by(|p, q| p.1.total_cmp(&q.1));
    let &(max_c, max_v) = vals.last().expect("finite values");
    let inf = 0x6f;
    if a.is_infinite() {
        return s | if sat { max_c } else { inf };
    }
    let pos = vals.partition_point(|&(_, v)| v <= a);
    let (lo_c, lo_v) = vals[pos - 1];
    if lo_v == a {
        return s | lo_c;
    }
    let (hi_c, hi_v) = match vals.get(pos) {
        Some(&(c, v)) => (Some(c), v),
        None => (None, max_v * 2.0),
    };
    let up = match rnd {
        // HiF8 rounds half away from zero
        Rnd::R | Rnd::A => a - lo_v >= hi_v - a,
        Rnd::Z => false,
        Rnd::F => neg,
        Rnd::C => !neg,
        Rnd::O => lo_c & 1 == 0,
    };
    match (up, hi_c) {
        (false, _) => s | lo_c,
        (true, Some(c)) => s | c,
        (true, None) => s | if sat { max_c } else { inf },
    }
}

impl Fmt {
    fn width(&self) -> u32 {
        1 + self.e + self.m
    }

    fn emax_code(&self) -> u32 {
        (1 << self.e) - 1
    }

    /// Magnitude of the unsigned code `c` (sign bit clear); `None` for NaN/inf.
    fn mag(&self, c: u32) -> Option<f64> {
        let ex = c >> self.m;
        let man = c & ((1 << self.m) - 1);
        if self.ieee && ex == self.emax_code() {
            return None;
        }
        if self.fn_nan && ex == self.emax_code() && man == (1 << self.m) - 1 {
            return None;
        }
        let frac = man as f64 / (1u32 << self.m) as f64;
        Some(if ex == 0 {
            frac * 2f64.powi(1 - self.bias)
        } else {
            (1.0 + frac) * 2f64.powi(ex as i32 - self.bias)
        })
    }

    fn decode(&self, code: u32) -> f64 {
        let sign = code >> (self.e + self.m) & 1 == 1;
        let c = code & ((1 << (self.e + self.m)) - 1);
        let v = match self.mag(c) {
            Some(v) => v,
            None => {
                if self.ieee && c & ((1 << self.m) - 1) == 0 {
                    f64::INFINITY
                } else {
                    f64::NAN
                }
            }
        };
        if sign {
            -v
        } else {
            v
        }
    }

    fn nan_code(&self) -> Option<u32> {
        if self.ieee {
            Some((self.emax_code() << self.m) | 1)
        } else if self.fn_nan {
            Some((1 << (self.e + self.m)) - 1)
        } else {
            None
        }
    }

    fn encode(&self, x: f64, rnd: Rnd, sat: bool) -> u32 {
        let sign_bit = 1u32 << (self.e + self.m);
        // saturating conversions turn NaN into 0 (as vcvt with SAT does for
        // f16/f32 targets)
        if x.is_nan() {
            return if sat { 0 } else { self.nan_code().unwrap_or(0) };
        }
        let neg = x.is_sign_negative();
        let s = if neg { sign_bit } else { 0 };
        let a = x.abs();
        // finite magnitudes in code order (monotonic)
        let codes: Vec<(u32, f64)> = (0..sign_bit)
            .filter_map(|c| self.mag(c).map(|v| (c, v)))
            .collect();
        let &(max_c, max_v) = codes.last().expect("a format has finite values");
        let overflow = |s: u32| -> u32 {
            if sat || self.nan_code().is_none() {
                s | max_c
            } else if self.ieee {
                s | (self.emax_code() << self.m)
            } else {
                s | self.nan_code().unwrap_or(max_c)
            }
        };
        if a.is_infinite() {
            return overflow(s);
        }
        let pos = codes.partition_point(|&(_, v)| v <= a);
        let (lo_c, lo_v) = codes[pos - 1];
        if lo_v == a {
            return s | lo_c;
        }
        // the value past the largest finite one (one more ulp)
        let (hi_c, hi_v) = match codes.get(pos) {
            Some(&(c, v)) => (Some(c), v),
            None => (None, max_v + (max_v - codes[codes.len() - 2].1)),
        };
        let up = match rnd {
            Rnd::R => {
                let (dl, dh) = (a - lo_v, hi_v - a);
                dh < dl || (dh == dl && lo_c & 1 == 1)
            }
            Rnd::A => a - lo_v >= hi_v - a,
            Rnd::Z => false,
            Rnd::F => neg,
            Rnd::C => !neg,
            Rnd::O => lo_c & 1 == 0,
        };
        match (up, hi_c) {
            (false, _) => s | lo_c,
            (true, Some(c)) => s | c,
            (true, None) => overflow(s),
        }
    }
}

/// Decodes a code of `dt` (low bits of `code`) to f64.
pub fn decode(code: u64, dt: DType) -> f64 {
    if dt == DType::HiF8 {
        return hif8_decode(code as u8);
    }
    if dt == DType::E8M0 {
        let c = code as u8;
        return if c == 0xff {
            f64::NAN
        } else {
            2f64.powi(c as i32 - 127)
        };
    }
    match fmt(dt) {
        Some(f) => f.decode(code as u32 & ((1 << f.width()) - 1)),
        None => f64::NAN,
    }
}

/// Encodes `x` as a code of `dt` with rounding `rnd`; `sat` clamps overflow to
/// the largest finite value (formats without inf/NaN always clamp).
pub fn encode(x: f64, dt: DType, rnd: Rnd, sat: bool) -> u64 {
    if dt == DType::HiF8 {
        return hif8_encode(x, rnd, sat) as u64;
    }
    if dt == DType::E8M0 {
        if x.is_nan() || x <= 0.0 {
            return if x == 0.0 { 0 } else { 0xff };
        }
        let e = x.log2();
        let e = match rnd {
            Rnd::C => e.ceil(),
            Rnd::F | Rnd::Z => e.floor(),
            _ => e.round(),
        };
        return (e as i64 + 127).clamp(0, 254) as u64;
    }
    match fmt(dt) {
        Some(f) => f.encode(x, rnd, sat) as u64,
        None => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fp8_e4m3fn_values() {
        let d = DType::F8E4M3;
        assert_eq!(encode(1.0, d, Rnd::R, true), 0x38);
        assert_eq!(encode(-2.0, d, Rnd::R, true), 0xc0);
        assert_eq!(encode(0.5, d, Rnd::R, true), 0x30);
        assert_eq!(decode(0x7e, d), 448.0);
        assert!(decode(0x7f, d).is_nan());
        // saturation clamps, no saturation gives NaN
        assert_eq!(encode(1000.0, d, Rnd::R, true), 0x7e);
        assert_eq!(encode(1000.0, d, Rnd::R, false), 0x7f);
        assert_eq!(encode(f64::NAN, d, Rnd::R, true), 0);
        // smallest subnormal 2^-9
        assert_eq!(decode(0x01, d), 2f64.powi(-9));
    }

    #[test]
    fn hif8_values() {
        let d = DType::HiF8;
        for (x, c) in [
            (0.0, 0x00),
            (1.0, 0x08),
            (-1.0, 0x88),
            (0.5, 0x18),
            (2.0, 0x10),
            (4.0, 0x20),
        ] {
            assert_eq!(encode(x, d, Rnd::R, true), c, "{x}");
            assert_eq!(decode(c, d), x);
        }
        assert!(decode(0x80, d).is_nan());
        assert!(decode(0x6f, d).is_infinite());
        assert_eq!(decode(0x01, d), 2f64.powi(-22));
    }

    #[test]
    fn fp8_e5m2_and_fp4() {
        assert_eq!(encode(1.0, DType::F8E5M2, Rnd::R, false), 0x3c);
        assert!(decode(0x7c, DType::F8E5M2).is_infinite());
        assert_eq!(decode(0x7, DType::F4E2M1), 6.0);
        assert_eq!(decode(0x7, DType::F4E1M2), 1.75);
        // 0.125 is halfway between 0 and 0.25 in e1m2: ties to even -> 0
        assert_eq!(encode(0.125, DType::F4E1M2, Rnd::R, false), 0);
        assert_eq!(encode(0.125, DType::F4E1M2, Rnd::A, false), 1);
        assert_eq!(encode(-0.625, DType::F4E1M2, Rnd::Z, false), 0b1010);
        assert_eq!(encode(100.0, DType::F4E2M1, Rnd::R, false), 0x7);
    }
}
