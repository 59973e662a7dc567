//! Conversions: `vcvt` (rounding R/A/F/C/Z/O, saturation, EVEN/ODD and P0..P3
//! lane parts), `vtrc`, `vci`, bit casts, `vpack` and the unpacks.
//!
//! Lane placement of width-changing `vcvt`: narrowing by k puts source lane i
//! into destination lane `i*k + part` (other lanes zero, so EVEN and ODD halves
//! combine with `vor`); widening by k reads source lane `i*k + part`. The mask
//! always selects source lanes.

use half::{bf16, f16};
use pto_isa_spec::{DType, Opcode};

use crate::exec::vec_ops::{get, lanes, on, put, raw, scalar, set_raw, zreg, Args, Cx};
use crate::exec::{minifloat, Fault};
use crate::num::{round_float, wrap, Num};
use crate::value::Val;

/// A rounding mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rnd {
    /// To nearest, ties to even.
    R,
    /// To nearest, ties away from zero.
    A,
    /// Toward -inf.
    F,
    /// Toward +inf.
    C,
    /// Toward zero.
    Z,
    /// To odd.
    O,
}

impl Rnd {
    /// Parses `R`, `ROUND_R`, `CAST_RINT`, `RINT`, `FLOOR`...
    pub fn parse(s: &str) -> Option<Rnd> {
        let s = s.trim_matches('"').to_ascii_uppercase();
        let s = s
            .strip_prefix("ROUND_")
            .or_else(|| s.strip_prefix("CAST_"))
            .unwrap_or(&s);
        Some(match s {
            "R" | "RINT" | "NONE" => Rnd::R,
            "A" | "ROUND" => Rnd::A,
            "F" | "FLOOR" => Rnd::F,
            "C" | "CEIL" => Rnd::C,
            "Z" | "TRUNC" => Rnd::Z,
            "O" | "ODD" => Rnd::O,
            _ => return None,
        })
    }
}

/// Rounds to an integral value.
pub fn round_int(x: f64, m: Rnd) -> f64 {
    if !x.is_finite() {
        return x;
    }
    match m {
        Rnd::R => x.round_ties_even(),
        Rnd::A => x.round(),
        Rnd::F => x.floor(),
        Rnd::C => x.ceil(),
        Rnd::Z => x.trunc(),
        Rnd::O => {
            let t = x.trunc();
            if t == x || t.rem_euclid(2.0) == 1.0 {
                t
            } else {
                t + x.signum()
            }
        }
    }
}

fn bits_of(x: f64, dt: DType) -> u64 {
    match dt {
        DType::F32 => (x as f32).to_bits() as u64,
        DType::F16 => f16::from_f64(x).to_bits() as u64,
        DType::BF16 => crate::num::bf16_rne(x).to_bits() as u64,
        _ => x.to_bits(),
    }
}

fn from_bits(b: u64, dt: DType) -> f64 {
    match dt {
        DType::F32 => f32::from_bits(b as u32) as f64,
        DType::F16 => f16::from_bits(b as u16).to_f64(),
        DType::BF16 => bf16::from_bits(b as u16).to_f64(),
        _ => f64::from_bits(b),
    }
}

/// The next representable value of `dt` above `x` (x representable).
fn next_up(x: f64, dt: DType) -> f64 {
    if x == 0.0 {
        return from_bits(1, dt);
    }
    let b = bits_of(x, dt);
    if x > 0.0 {
        from_bits(b + 1, dt)
    } else {
        from_bits(b - 1, dt)
    }
}

fn next_down(x: f64, dt: DType) -> f64 {
    -next_up(-x, dt)
}

fn max_finite(dt: DType) -> f64 {
    match dt {
        DType::F32 => f32::MAX as f64,
        DType::F16 => f16::MAX.to_f64(),
        DType::BF16 => bf16::MAX.to_f64(),
        _ => f64::MAX,
    }
}

/// Rounds `x` to float type `dt` with mode `m`; `sat` clamps overflow to
/// the largest finite value instead of infinity.
pub fn round_to_float(x: f64, dt: DType, m: Rnd, sat: bool) -> f64 {
    // saturating float conversion: NaN becomes 0 and infinities (from the
    // source or from overflow) the largest finite value, as the PTOAS vpto
    // conversion goldens (vcvt-f32-special) expect
    if x.is_nan() {
        return if sat { 0.0 } else { x };
    }
    let r = round_float(x, dt);
    let r = if r == x || m == Rnd::R || x.is_infinite() {
        r
    } else {
        let (lo, hi) = if r < x {
            (r, next_up(r, dt))
        } else {
            (next_down(r, dt), r)
        };
        let pos = x > 0.0;
        match m {
            Rnd::F => lo,
            Rnd::C => hi,
            Rnd::Z => {
                if pos {
                    lo
                } else {
                    hi
                }
            }
            Rnd::A => {
                // nearest, ties away: only a tie differs from RNE
                let (dl, dh) = (x - lo, hi - x);
                if dl < dh || (dl == dh && !pos) {
                    lo
                } else {
                    hi
                }
            }
            Rnd::O => {
                if bits_of(lo, dt) & 1 == 1 {
                    lo
                } else {
                    hi
                }
            }
            Rnd::R => r,
        }
    };
    if sat && r.is_infinite() {
        max_finite(dt).copysign(r)
    } else {
        r
    }
}

fn int_range(dt: DType) -> (i128, i128) {
    let w = dt.bits();
    if dt.is_signed_int() {
        (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
    } else {
        (0, (1i128 << w) - 1)
    }
}

/// Converts one element.
pub fn convert(x: Num, st: DType, dt: DType, m: Rnd, sat: Option<bool>) -> Num {
    match (st.is_float(), dt.is_float()) {
        (_, true) => Num::F(round_to_float(x.f(), dt, m, sat.unwrap_or(false))),
        (true, false) => {
            let v = round_int(x.f(), m);
            if v.is_nan() {
                return Num::I(0);
            }
            let (lo, hi) = int_range(dt);
            if sat.unwrap_or(true) {
                Num::I((v.clamp(lo as f64, hi as f64)) as i64)
            } else {
                Num::I(wrap(v as i64, dt))
            }
        }
        (false, false) => {
            // unsigned 64-bit values are carried as their bits
            let v = if st == DType::U64 {
                x.i() as u64 as i128
            } else {
                x.i() as i128
            };
            let (lo, hi) = int_range(dt);
            if sat.unwrap_or(false) {
                Num::I(v.clamp(lo, hi) as i64)
            } else {
                Num::I(wrap(v as i64, dt))
            }
        }
    }
}

fn part_of(s: Option<&str>) -> usize {
    match s.map(|s| s.trim_start_matches("PART_")) {
        Some("ODD") | Some("P1") | Some("HIGHER") | Some("HIGH") => 1,
        Some("P2") => 2,
        Some("P3") => 3,
        _ => 0,
    }
}

fn numeric(dt: DType) -> bool {
    dt.is_int() && dt.bits() >= 8 && !matches!(dt, DType::E8M0)
        || matches!(dt, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
}

fn is_f4(dt: DType) -> bool {
    matches!(dt, DType::F4E2M1 | DType::F4E1M2)
}

/// Converts one lane of `w_in` bytes into `w_out` bytes. 8-bit floats go
/// through the minifloat codec; a packed fp4 pair (one byte) converts to or
/// from a pair of 16-bit floats (four bytes), low half first.
#[allow(clippy::too_many_arguments)]
fn lane(src: &[u8], dst: &mut [u8], st: DType, dt: DType, rnd: Rnd, sat: Option<bool>) {
    let raw = |b: &[u8]| {
        let mut r = [0u8; 8];
        r[..b.len()].copy_from_slice(b);
        u64::from_le_bytes(r)
    };
    let one = |bits: u64, st: DType, dt: DType| -> u64 {
        let x = if minifloat::supported(st) {
            Num::F(minifloat::decode(bits, st))
        } else {
            crate::num::read(&bits.to_le_bytes(), st)
        };
        if minifloat::supported(dt) {
            minifloat::encode(x.f(), dt, rnd, sat.unwrap_or(false))
        } else {
            let y = if minifloat::supported(st) && !dt.is_float() {
                convert(x, DType::F32, dt, rnd, sat)
            } else {
                convert(x, st, dt, rnd, sat)
            };
            let mut b = [0u8; 8];
            crate::num::write(&mut b, dt, y);
            u64::from_le_bytes(b)
        }
    };
    let r = raw(src);
    let out = if is_f4(st) || is_f4(dt) {
        // two values per lane
        let (hi, ho) = (src.len() * 4, dst.len() * 4);
        let mut o = 0u64;
        for h in 0..2 {
            let x = (r >> (h * hi)) & ((1u64 << hi) - 1);
            o |= (one(x, st, dt) & ((1u64 << ho) - 1)) << (h * ho);
        }
        o
    } else {
        one(r, st, dt)
    };
    let n = dst.len();
    dst.copy_from_slice(&out.to_le_bytes()[..n]);
}

fn vcvt(cx: &Cx, a: &Args) -> Result<Box<[u8; 256]>, Fault> {
    let (st, dt) = (cx.src()?, cx.dst()?);
    let ok = |t: DType| numeric(t) || minifloat::supported(t);
    if !ok(st) || !ok(dt) {
        return cx.err(format!(
            "from {} to {} is not implemented yet",
            st.mlir_name(),
            dt.mlir_name()
        ));
    }
    let Some(&v0) = a.v.first() else {
        return cx.err("needs a vector operand");
    };
    // vmulscvt %x, %s, %mask, "RND", "PART": convert(x * s), the product in
    // the source type (the micro-ISA doc's `convert_type<T1>(src[i] * scalar, rnd)`)
    let mul = cx.op == Opcode::VMulscvt;
    let mut pos = cx.positional();
    let (rnd_s, part_s) = if mul {
        (
            cx.sym("rnd").or_else(|| pos.next()),
            cx.sym("part").or_else(|| pos.next()),
        )
    } else {
        (
            cx.sym("rnd").or_else(|| cx.sym("round_mode")),
            cx.sym("part"),
        )
    };
    let scaled;
    let v = if mul {
        if !st.is_float() {
            return cx.err(format!("scales float sources, not {}", st.mlir_name()));
        }
        let Some(s) = a.s.first() else {
            return cx.err("needs a scalar factor");
        };
        let k = scalar(s, st).f();
        let mut r = zreg();
        for i in 0..lanes(st) {
            put(
                &mut r,
                i,
                st,
                Num::F(round_float(get(v0, i, st).f() * k, st)),
            );
        }
        scaled = r;
        &*scaled
    } else {
        v0
    };
    let rnd = match rnd_s {
        Some(s) => match Rnd::parse(s) {
            Some(r) => r,
            None => return cx.err(format!("has an unknown rounding mode '{s}'")),
        },
        None => Rnd::R,
    };
    let sat = cx
        .sym("sat")
        .map(|s| matches!(s, "SAT" | "RS_ENABLE" | "SATURATE"));
    let part = part_of(part_s);
    // lane widths: a packed fp4 byte pairs with two 16-bit values
    let (ss, ds) = match (is_f4(st), is_f4(dt)) {
        (true, _) => (1, 2 * dt.bytes()),
        (_, true) => (2 * st.bytes(), 1),
        _ => (st.bytes(), dt.bytes()),
    };
    let m0 = a.m.first().copied();
    let mut out = zreg();
    if ss >= ds {
        let k = ss / ds;
        for i in 0..256 / ss {
            if on(m0, i, ss) {
                let j = i * k + part.min(k - 1);
                lane(
                    &v[i * ss..(i + 1) * ss],
                    &mut out[j * ds..(j + 1) * ds],
                    st,
                    dt,
                    rnd,
                    sat,
                );
            }
        }
    } else {
        let k = ds / ss;
        for i in 0..256 / ds {
            let j = i * k + part.min(k - 1);
            if on(m0, j, ss) {
                lane(
                    &v[j * ss..(j + 1) * ss],
                    &mut out[i * ds..(i + 1) * ds],
                    st,
                    dt,
                    rnd,
                    sat,
                );
            }
        }
    }
    Ok(out)
}

/// Conversion-group ops.
pub fn run(cx: &Cx, a: &Args) -> Result<Vec<Val>, Fault> {
    use Opcode as O;
    let m0 = a.m.first().copied();
    let out = match cx.op {
        O::Pbitcast => match a.m.first() {
            Some(m) => return Ok(vec![Val::Mask(Box::new(**m))]),
            None => return cx.err("needs a mask operand"),
        },
        O::VBitcast => match a.v.first() {
            Some(v) => Box::new(**v),
            None => return cx.err("needs a vector operand"),
        },
        O::VCvt | O::VMulscvt => vcvt(cx, a)?,
        O::VTrc => {
            let dt = cx.dst()?;
            let Some(v) = a.v.first() else {
                return cx.err("needs a vector operand");
            };
            let mode = cx.sym_or_pos(&["rnd", "round_mode"]).unwrap_or("R");
            let Some(m) = Rnd::parse(mode) else {
                return cx.err(format!("has an unknown rounding mode '{mode}'"));
            };
            let mut out = zreg();
            for i in 0..lanes(dt) {
                if on(m0, i, dt.bytes()) {
                    put(&mut out, i, dt, Num::F(round_int(get(v, i, dt).f(), m)));
                }
            }
            out
        }
        O::VCi => {
            let dt = cx.dst()?;
            let Some(s) = a.s.first() else {
                return cx.err("needs a scalar seed");
            };
            let desc = cx
                .sym_or_pos(&["order"])
                .is_some_and(|o| o.to_ascii_uppercase().contains("DESC"));
            let seed = scalar(s, dt);
            let mut out = zreg();
            for i in 0..lanes(dt) {
                let d = if desc { -(i as i64) } else { i as i64 };
                let x = match seed {
                    Num::F(f) => Num::F(f + d as f64),
                    Num::I(v) => Num::I(wrap(v.wrapping_add(d), dt)),
                };
                put(&mut out, i, dt, x);
            }
            out
        }
        O::VPack => {
            // one source + "LOWER"/"HIGHER": truncated lanes fill that half;
            // two sources: src0 fills the low half, src1 the high half
            let (ss, ds) = (cx.src()?.bytes(), cx.dst()?.bytes());
            if ds * 2 != ss {
                return cx.err("needs a result half as wide as its source");
            }
            let n = 256 / ss;
            let mut out = zreg();
            let halves: Vec<(usize, &[u8; 256])> = match a.v.as_slice() {
                [v] => vec![(part_of(cx.sym_or_pos(&["part"])), *v)],
                [v0, v1, ..] => vec![(0, *v0), (1, *v1)],
                [] => return cx.err("needs a vector operand"),
            };
            for (h, v) in halves {
                for i in 0..n {
                    set_raw(&mut out, h * n + i, ds, raw(v, i, ss));
                }
            }
            out
        }
        O::VSunpack | O::VZunpack => {
            let (st, dt) = (cx.src()?, cx.dst()?);
            let (ss, ds) = (st.bytes(), dt.bytes());
            if ss * 2 != ds {
                return cx.err("needs a result twice as wide as its source");
            }
            let Some(v) = a.v.first() else {
                return cx.err("needs a vector operand");
            };
            let part = match a.s.first() {
                Some(p) => p.as_i64().unwrap_or(0) as usize,
                None => part_of(cx.sym_or_pos(&["part"])),
            };
            let n = 256 / ds;
            let sign = cx.op == O::VSunpack;
            let mut out = zreg();
            for i in 0..n {
                let j = (part % 2) * n + i;
                let x = raw(v, j, ss);
                let w = 8 * ss as u32;
                let x = if sign {
                    (((x << (64 - w)) as i64) >> (64 - w)) as u64
                } else {
                    x
                };
                set_raw(&mut out, i, ds, x);
            }
            out
        }
        _ => return cx.err("is not a conversion"),
    };
    Ok(vec![Val::VReg(out)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integral_rounding_modes() {
        assert_eq!(round_int(2.5, Rnd::R), 2.0);
        assert_eq!(round_int(2.5, Rnd::A), 3.0);
        assert_eq!(round_int(-2.5, Rnd::F), -3.0);
        assert_eq!(round_int(-2.5, Rnd::C), -2.0);
        assert_eq!(round_int(-2.7, Rnd::Z), -2.0);
        assert_eq!(round_int(2.2, Rnd::O), 3.0);
        assert_eq!(round_int(3.7, Rnd::O), 3.0);
        assert_eq!(round_int(-2.2, Rnd::O), -3.0);
    }

    #[test]
    fn float_rounding_modes() {
        // 1 + 2^-12 is not representable in f16 (10-bit mantissa)
        let x = 1.0 + 2f64.powi(-12);
        let up = 1.0 + 2f64.powi(-10);
        assert_eq!(round_to_float(x, DType::F16, Rnd::R, false), 1.0);
        assert_eq!(round_to_float(x, DType::F16, Rnd::C, false), up);
        assert_eq!(round_to_float(-x, DType::F16, Rnd::F, false), -up);
        assert_eq!(round_to_float(-x, DType::F16, Rnd::Z, false), -1.0);
        assert_eq!(round_to_float(x, DType::F16, Rnd::O, false), up);
        assert_eq!(
            round_to_float(1e6, DType::F16, Rnd::R, false),
            f64::INFINITY
        );
        assert_eq!(round_to_float(1e6, DType::F16, Rnd::R, true), 65504.0);
        assert_eq!(round_to_float(1e6, DType::F16, Rnd::Z, false), 65504.0);
        // saturation also maps source infinities to the largest finite value and NaN to 0
        let sat = |x| round_to_float(x, DType::F16, Rnd::R, true);
        assert_eq!(sat(f64::NEG_INFINITY), -65504.0);
        assert_eq!(sat(f64::NAN), 0.0);
        assert!(round_to_float(f64::NAN, DType::F16, Rnd::R, false).is_nan());
        assert!(round_to_float(f64::INFINITY, DType::F16, Rnd::R, false).is_infinite());
    }

    #[test]
    fn int_conversion_saturates_or_wraps() {
        let c = |x, sat| convert(Num::I(x), DType::I32, DType::I16, Rnd::R, sat);
        assert_eq!(c(40000, Some(true)), Num::I(32767));
        assert_eq!(c(40000, None), Num::I(40000 - 65536));
        let f = |x| convert(Num::F(x), DType::F32, DType::I32, Rnd::R, None);
        assert_eq!(f(1e20), Num::I(i32::MAX as i64));
        assert_eq!(f(f64::NAN), Num::I(0));
        assert_eq!(f(-2.5), Num::I(-2));
    }
}
