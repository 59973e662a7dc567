//! `tcvt`: element type conversion with a rounding mode and a saturation mode.
//!
//! Rounding (`rmode` / `round_mode` / `mode` attribute, or a positional
//! symbol): `RINT` ties to even (the default), `ROUND` ties away from zero,
//! `FLOOR`, `CEIL`, `TRUNC`, `ODD` (round to odd: an inexact result takes the
//! neighbour with an odd last bit), `NONE` (floats: to nearest even; float to
//! integer: truncate, as a C cast). The mode is honoured for every conversion
//! (float to float, float to int, int to float), per decisions.md.
//!
//! Saturation (`satmode` / `sat_mode` / `sat`: `ON`/`SAT`, `OFF`/`NOSAT`):
//! * float to int: ON clamps to the destination range; OFF converts through a
//!   saturating 32-bit (64-bit for 64-bit destinations) integer and wraps to the
//!   destination width (the PyTorch-compatible non-saturating path). When the
//!   attribute is absent, float to int saturates. NaN becomes 0.
//! * int to int: ON clamps, OFF (the default) wraps.
//! * float to float: ON clamps finite overflow to the largest finite value of
//!   the destination; OFF (the default) overflows to infinity. NaN stays NaN.

use half::{bf16, f16};
use pto_isa_spec::DType;

use crate::exec::tile_ops::{
    attr_sym, check_covers, check_valid, get, get_bits, in_tile, int_range, out_tile, put,
    put_bits, short, TileCall,
};
use crate::exec::{fault, Accesses, Fault};
use crate::mem::Local;
use crate::num::Num;
use crate::program::AttrVal;
use crate::value::Tile;

/// A rounding mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Round {
    /// Nearest, ties to even.
    Rint,
    /// Nearest, ties away from zero.
    Round,
    /// Toward -inf.
    Floor,
    /// Toward +inf.
    Ceil,
    /// Toward zero.
    Trunc,
    /// Round to odd.
    Odd,
    /// No explicit rounding (C cast semantics).
    None,
}

impl Round {
    /// Parses a mode spelling (`CAST_RINT`, `rint`, `R`, ...).
    pub fn parse(s: &str) -> Option<Round> {
        let u = s.trim_matches('"').to_ascii_uppercase();
        let u = u.strip_prefix("CAST_").unwrap_or(&u);
        let u = u.strip_prefix("ROUND_").unwrap_or(u);
        Some(match u {
            "RINT" | "R" | "RNE" | "NEAREST" => Round::Rint,
            "ROUND" | "A" | "RNA" => Round::Round,
            "FLOOR" | "F" | "RM" => Round::Floor,
            "CEIL" | "C" | "RP" => Round::Ceil,
            "TRUNC" | "Z" | "RZ" => Round::Trunc,
            "ODD" | "O" => Round::Odd,
            "NONE" => Round::None,
            _ => return None,
        })
    }
}

/// Saturation choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sat {
    /// Not given.
    Default,
    /// Clamp.
    On,
    /// Wrap / overflow.
    Off,
}

pub(crate) fn modes(call: &TileCall) -> Result<(Round, Sat), Fault> {
    let mut round = None;
    if let Some(s) = attr_sym(call, &["rmode", "round_mode", "roundMode", "mode"]) {
        round =
            Some(Round::parse(&s).ok_or_else(|| {
                Fault::Msg(format!("{}: unknown rounding mode '{s}'", short(call)))
            })?);
    }
    // a positional symbol (`pto.tcvt[CAST_ROUND]`-like spellings)
    if round.is_none() {
        for (k, v) in call.attrs.iter() {
            if let (true, AttrVal::Sym(s)) = (k.is_empty(), v) {
                if let Some(r) = Round::parse(s) {
                    round = Some(r);
                }
            }
        }
    }
    let sat = match attr_sym(call, &["satmode", "sat_mode", "satMode", "sat"]) {
        None => Sat::Default,
        Some(s) => match s.as_str() {
            "ON" | "SAT" | "1" | "TRUE" => Sat::On,
            "OFF" | "NOSAT" | "0" | "FALSE" => Sat::Off,
            other => {
                return fault(format!(
                    "{}: unknown saturation mode '{other}'",
                    short(call)
                ))
            }
        },
    };
    Ok((round.unwrap_or(Round::Rint), sat))
}

/// Executes `tcvt`.
pub fn run(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let src = in_tile(call, 0, "source")?;
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, dst, "destination")?;
    let (round, sat) = modes(call)?;
    if low_precision(src.elem) || low_precision(dst.elem) {
        return run_low_precision(call, src, dst, round, local, acc);
    }
    check_covers(call, src, dst.v_row, dst.v_col, "source")?;
    for t in [src.elem, dst.elem] {
        if !supported(t) {
            return fault(format!(
                "{}: conversions of {t} are not supported by ptovm yet",
                short(call)
            ));
        }
    }
    let same = std::ptr::eq(src, dst) || (src.addr == dst.addr && src.loc == dst.loc);
    let mut vals = Vec::new();
    for r in 0..dst.v_row {
        for c in 0..dst.v_col {
            let x = get(local, src, r, c, acc)?;
            let v = convert(x, src.elem, dst.elem, round, sat);
            if same {
                vals.push(v);
            } else {
                put(local, dst, r, c, v, acc)?;
            }
        }
    }
    if same {
        let mut it = vals.into_iter();
        for r in 0..dst.v_row {
            for c in 0..dst.v_col {
                if let Some(v) = it.next() {
                    put(local, dst, r, c, v, acc)?;
                }
            }
        }
    }
    Ok(())
}

fn low_precision(t: DType) -> bool {
    matches!(
        t,
        DType::F8E4M3 | DType::F8E5M2 | DType::HiF8 | DType::F4E2M1 | DType::F4E1M2 | DType::E8M0
    )
}

fn is_fp4(t: DType) -> bool {
    matches!(t, DType::F4E2M1 | DType::F4E1M2)
}

/// The A5 `tcvt` pairs with an 8- or 4-bit float side, as pto-isa's A5
/// `TCvt.hpp` realizes them with `vcvt`:
/// * f32 -> fp8 (e4m3/e5m2): `ROUND_R` and `RS_DISABLE` whatever the op's
///   modes (overflow becomes NaN for e4m3, infinity for e5m2);
/// * f32 / f16 -> hif8: `ROUND_A`, `RS_DISABLE`;
/// * bf16 -> fp4 (e2m1/e1m2, packed two per byte): the op's rounding mode,
///   overflow clamps to the largest finite value (the formats have no
///   infinity), NaN becomes +0;
/// * fp8 / hif8 -> f32 and fp4 -> bf16: exact widening.
///
/// A packed fp4 tile counts bytes in its columns (PTOAS's `!pto.f4E2M1x2`
/// tile_buf): byte `c` of a row holds logical columns `2c` (low nibble) and
/// `2c + 1` (high nibble), pto-isa's `GetProperDataPart` order. The other
/// side's valid columns are twice the packed tile's.
fn run_low_precision(
    call: &TileCall,
    src: &Tile,
    dst: &Tile,
    round: Round,
    local: &mut Local,
    acc: &mut Accesses,
) -> Result<(), Fault> {
    use crate::exec::minifloat;
    use crate::exec::vec_convert::Rnd;
    let (s, d) = (src.elem, dst.elem);
    let f8 = |t: DType| matches!(t, DType::F8E4M3 | DType::F8E5M2 | DType::HiF8);
    let ok = (s == DType::F32 && f8(d))
        || (s == DType::F16 && d == DType::HiF8)
        || (s == DType::BF16 && is_fp4(d))
        || (is_fp4(s) && d == DType::BF16)
        || (f8(s) && d == DType::F32);
    if !ok {
        return fault(format!(
            "{}: tcvt from {} to {} is not an A5 low-precision pair (f32 -> fp8/hif8, f16 -> hif8, bf16 <-> fp4, fp8/hif8 -> f32)",
            short(call),
            s.mlir_name(),
            d.mlir_name()
        ));
    }
    let rnd = match round {
        Round::Rint | Round::None => Rnd::R,
        Round::Round => Rnd::A,
        Round::Floor => Rnd::F,
        Round::Ceil => Rnd::C,
        Round::Trunc => Rnd::Z,
        Round::Odd => Rnd::O,
    };
    // PTOAS packs along the columns of a row-major tile but along the rows of
    // a column-major one (`renderTileTemplateDim`); only the former runs
    for t in [src, dst] {
        if is_fp4(t.elem) && t.blayout != pto_asm::ty::BLayout::RowMajor {
            return fault(format!(
                "{}: a column-major packed fp4 tile (two rows per byte) is not implemented",
                short(call)
            ));
        }
    }
    // the source elements (logical columns) each destination byte/element needs
    let (rows, cols) = (dst.v_row, dst.v_col);
    let src_cols = if is_fp4(d) {
        cols * 2
    } else if is_fp4(s) {
        if cols % 2 != 0 {
            return fault(format!(
                "{}: the bf16 destination's valid columns ({cols}) must be even: each packed fp4 byte holds two",
                short(call)
            ));
        }
        cols / 2
    } else {
        cols
    };
    check_covers(call, src, rows, src_cols, "source")?;
    let mut out: Vec<(i64, i64, u64)> = Vec::with_capacity((rows * cols.max(0)) as usize);
    for r in 0..rows {
        for c in 0..cols {
            let bits = if is_fp4(d) {
                let mut byte = 0u64;
                for h in 0..2 {
                    let x = get(local, src, r, 2 * c + h, acc)?.f();
                    byte |= (minifloat::encode(x, d, rnd, false) & 0xf) << (4 * h);
                }
                byte
            } else if is_fp4(s) {
                let b = get_bits(local, src, r, c / 2, acc)?;
                let v = minifloat::decode((b >> (4 * (c % 2) as u64)) & 0xf, s);
                crate::num::bf16_rne(v).to_bits() as u64
            } else if f8(d) {
                let x = get(local, src, r, c, acc)?.f();
                let mode = if d == DType::HiF8 { Rnd::A } else { Rnd::R };
                minifloat::encode(x, d, mode, false)
            } else {
                // fp8/hif8 -> f32: `get` decodes the code exactly
                let v = get(local, src, r, c, acc)?.f();
                (v as f32).to_bits() as u64
            };
            out.push((r, c, bits));
        }
    }
    // all reads before any write: a destination may alias the source
    for (r, c, bits) in out {
        put_bits(local, dst, r, c, bits, acc)?;
    }
    Ok(())
}

fn supported(t: DType) -> bool {
    matches!(
        t,
        DType::F32
            | DType::F16
            | DType::BF16
            | DType::I8
            | DType::U8
            | DType::I16
            | DType::U16
            | DType::I32
            | DType::U32
            | DType::I64
            | DType::U64
    )
}

/// Converts one value from `from` to `to`.
pub fn convert(x: Num, from: DType, to: DType, round: Round, sat: Sat) -> Num {
    match (from.is_float(), to.is_float()) {
        (true, true) => Num::F(float_to_float(x.f(), to, round, sat)),
        (true, false) => Num::I(float_to_int(x.f(), to, round, sat)),
        (false, true) => Num::F(float_to_float(int_value(x, from), to, round, sat)),
        (false, false) => {
            let v = x.i();
            let (lo, hi) = int_range(to);
            if sat == Sat::On {
                // u64 sources above i64::MAX read as negative: clamp them high
                if from == DType::U64 && v < 0 {
                    Num::I(hi)
                } else {
                    Num::I(v.clamp(lo, hi))
                }
            } else {
                Num::I(v)
            }
        }
    }
}

fn int_value(x: Num, from: DType) -> f64 {
    let v = x.i();
    if from == DType::U64 {
        v as u64 as f64
    } else {
        v as f64
    }
}

/// Rounds a finite f64 to an integer-valued f64.
fn round_int(v: f64, round: Round) -> f64 {
    match round {
        Round::Rint => v.round_ties_even(),
        Round::Round => v.round(),
        Round::Floor => v.floor(),
        Round::Ceil => v.ceil(),
        Round::Trunc | Round::None => v.trunc(),
        Round::Odd => {
            let f = v.floor();
            if f == v {
                v
            } else if (f % 2.0).abs() == 1.0 {
                f
            } else {
                f + 1.0
            }
        }
    }
}

fn float_to_int(v: f64, to: DType, round: Round, sat: Sat) -> i64 {
    if v.is_nan() {
        return 0;
    }
    let r = round_int(v, round);
    let (lo, hi) = int_range(to);
    match sat {
        Sat::On | Sat::Default => {
            if to == DType::U64 {
                // u64 does not fit Num's i64: clamp to its bit pattern
                if r <= 0.0 {
                    0
                } else if r >= 18_446_744_073_709_551_615.0 {
                    -1
                } else {
                    r as u64 as i64
                }
            } else {
                (r.clamp(lo as f64, hi as f64)) as i64
            }
        }
        Sat::Off => {
            if to.bytes() >= 8 {
                r as i64
            } else {
                // through a saturating i32, then wrap to the destination width
                r.clamp(i32::MIN as f64, i32::MAX as f64) as i64
            }
        }
    }
}

/// Largest finite value of a float type.
fn max_finite(to: DType) -> f64 {
    match to {
        DType::F16 => 65504.0,
        DType::BF16 => bf16::MAX.to_f64(),
        DType::F32 => f32::MAX as f64,
        _ => f64::MAX,
    }
}

/// The bits of `v` (already representable in `to`) and back.
fn to_bits(v: f64, to: DType) -> u64 {
    match to {
        DType::F16 => f16::from_f64(v).to_bits() as u64,
        DType::BF16 => crate::num::bf16_rne(v).to_bits() as u64,
        DType::F32 => (v as f32).to_bits() as u64,
        _ => v.to_bits(),
    }
}

fn from_bits(b: u64, to: DType) -> f64 {
    match to {
        DType::F16 => f16::from_bits(b as u16).to_f64(),
        DType::BF16 => bf16::from_bits(b as u16).to_f64(),
        DType::F32 => f32::from_bits(b as u32) as f64,
        _ => f64::from_bits(b),
    }
}

/// The next representable value of `to` after `x` (a representable value)
/// toward +inf (`up`) or -inf.
fn step(x: f64, to: DType, up: bool) -> f64 {
    if x == 0.0 {
        let tiny = from_bits(1, to);
        return if up { tiny } else { -tiny };
    }
    let b = to_bits(x, to);
    // magnitude grows when moving away from zero
    let grow = (x > 0.0) == up;
    from_bits(if grow { b + 1 } else { b - 1 }, to)
}

/// Converts to a float type with a rounding mode.
fn float_to_float(v: f64, to: DType, round: Round, sat: Sat) -> f64 {
    if v.is_nan() {
        return f64::NAN;
    }
    let near = crate::num::round_float(v, to);
    let r = if near == v || v.is_infinite() {
        near
    } else {
        let (lo, hi) = if near < v {
            (near, step(near, to, true))
        } else {
            (step(near, to, false), near)
        };
        match round {
            Round::Rint | Round::None => near,
            Round::Round => {
                let (dl, dh) = (v - lo, hi - v);
                if dl == dh {
                    if v > 0.0 {
                        hi
                    } else {
                        lo
                    }
                } else {
                    near
                }
            }
            Round::Floor => lo,
            Round::Ceil => hi,
            Round::Trunc => {
                if v > 0.0 {
                    lo
                } else {
                    hi
                }
            }
            Round::Odd => {
                if to_bits(lo, to) & 1 == 1 {
                    lo
                } else {
                    hi
                }
            }
        }
    };
    if sat == Sat::On && r.is_infinite() && !v.is_infinite() {
        return max_finite(to).copysign(r);
    }
    // the sign of a zero result follows the source
    if r == 0.0 {
        return 0.0f64.copysign(v);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_rounding_modes() {
        // 1 + 2^-11 lies halfway between two f16 values (1 and 1 + 2^-10)
        let v = 1.0 + 2f64.powi(-11);
        let up = 1.0 + 2f64.powi(-10);
        let f = |m| float_to_float(v, DType::F16, m, Sat::Default);
        assert_eq!(f(Round::Rint), 1.0);
        assert_eq!(f(Round::Round), up);
        assert_eq!(f(Round::Floor), 1.0);
        assert_eq!(f(Round::Ceil), up);
        assert_eq!(f(Round::Trunc), 1.0);
        assert_eq!(f(Round::Odd), up);
        assert_eq!(
            float_to_float(-v, DType::F16, Round::Floor, Sat::Default),
            -up
        );
        assert_eq!(
            float_to_float(-v, DType::F16, Round::Trunc, Sat::Default),
            -1.0
        );
        // overflow
        assert_eq!(
            float_to_float(1e6, DType::F16, Round::Rint, Sat::Default),
            f64::INFINITY
        );
        assert_eq!(
            float_to_float(1e6, DType::F16, Round::Rint, Sat::On),
            65504.0
        );
        assert_eq!(
            float_to_float(1e6, DType::F16, Round::Trunc, Sat::Default),
            65504.0
        );
    }

    #[test]
    fn int_rounding_and_saturation() {
        assert_eq!(float_to_int(2.5, DType::I32, Round::Rint, Sat::Default), 2);
        assert_eq!(float_to_int(2.5, DType::I32, Round::Round, Sat::Default), 3);
        assert_eq!(
            float_to_int(-2.5, DType::I32, Round::Round, Sat::Default),
            -3
        );
        assert_eq!(
            float_to_int(-2.5, DType::I32, Round::Floor, Sat::Default),
            -3
        );
        assert_eq!(float_to_int(2.2, DType::I32, Round::Odd, Sat::Default), 3);
        assert_eq!(float_to_int(300.0, DType::I8, Round::Rint, Sat::On), 127);
        assert_eq!(float_to_int(f64::NAN, DType::I8, Round::Rint, Sat::On), 0);
        // off: wraps to the width (300 -> 44 as u8 bits)
        let v = float_to_int(300.0, DType::I8, Round::Rint, Sat::Off);
        assert_eq!(crate::num::wrap(v, DType::I8), 44);
        assert_eq!(
            convert(Num::I(-5), DType::I32, DType::U8, Round::Rint, Sat::On),
            Num::I(0)
        );
    }
}
