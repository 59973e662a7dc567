//! `tquant.mx` (A5): MXFP8 quantization with OCP shared exponents.
//!
//! `pto.tquant.mx ins(%src) outs(%dst, %exp, %max, %scaling [, %exp_zz])
//! {quant_type = MXFP8, grpAxis = axis1|axis0}` quantizes an f32/f16/bf16
//! source in groups of 32 elements along columns (`axis1`, the default: one
//! group per row and 32 columns, `exp` is `rows x cols/32`) or rows
//! (`axis0`: `exp` is `rows/32 x cols`), over the source's valid region:
//!
//! 1. `m` = the largest |x| of the group (NaN elements are skipped);
//! 2. the E8M0 exponent is `E(m) - 8` with `E` the biased f32 exponent of `m`
//!    (0 when `E(m) <= 8`, 0xFF when `m` is NaN), the largest e4m3 exponent
//!    being 8; the scale is the f32 with exponent field `254 - e`
//!    (`2^(127 - e)`; 2^-127 when that field is 0, NaN for e = 0xFF);
//! 3. each element becomes the e4m3fn code of `x * scale` clipped to ±448,
//!    rounded to nearest, ties to even (the hardware rounds stochastically;
//!    the CPU simulator and this interpreter round to nearest even), NaN
//!    giving 0x7F.
//!
//! `dst` receives the codes (any 8-bit element type), `exp` the exponents,
//! `max` each group's `m` and `scaling` its scale (in their element types).
//! MXFP4_E2M1 (f16/bf16 into packed `!pto.f4E2M1x2`) follows pto-isa's CPU
//! model (see `run_fp4`). The NV scale algorithm, `interleave` and the ZZ
//! exponent store fault as not implemented.

use pto_isa_spec::DType;

use crate::exec::minifloat;
use crate::exec::tile_ops::{
    attr_sym, check_valid, get, in_tile, out_tile, put, put_bits, short, TileCall,
};
use crate::exec::vec_convert::Rnd;
use crate::exec::{fault, Accesses, Fault};
use crate::mem::Local;
use crate::num::Num;

/// The OCP MXFP8 shared exponent of a group maximum.
pub fn shared_exponent(m: f32) -> u8 {
    if m.is_nan() {
        return 0xff;
    }
    let e = (m.to_bits() >> 23) & 0xff;
    if e <= 8 {
        0
    } else {
        (e - 8) as u8
    }
}

/// The multiplier of an E8M0 exponent.
pub fn scaling(e: u8) -> f32 {
    if e == 0xff {
        return f32::NAN;
    }
    let s = f32::from_bits((254 - e as u32) << 23);
    if s == 0.0 {
        (2f32).powi(-127)
    } else {
        s
    }
}

/// The e4m3fn code of `x` clipped to ±448, to nearest even.
pub fn e4m3(x: f32) -> u8 {
    if x.is_nan() {
        return 0x7f;
    }
    minifloat::encode(x.clamp(-448.0, 448.0) as f64, DType::F8E4M3, Rnd::R, true) as u8
}

/// Executes `tquant.mx`.
pub fn run(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let qt = attr_sym(call, &["quant_type", "quantType"]).unwrap_or_else(|| "MXFP8".into());
    let fp4 = qt.contains("MXFP4");
    if !(qt.contains("MXFP8") || fp4 && qt.contains("E2M1")) {
        return fault(format!(
            "{}: quant_type {qt} is not implemented (MXFP8 and MXFP4_E2M1 are)",
            short(call)
        ));
    }
    for k in [
        "interleave",
        "storeMode",
        "store_mode",
        "scale_alg",
        "scaleAlg",
        "mx_alg",
    ] {
        if attr_sym(call, &[k]).is_some_and(|v| v != "0" && v != "FALSE" && !v.contains("OCP")) {
            return fault(format!("{}: '{k}' is not implemented", short(call)));
        }
    }
    if call.outs.len() > 4 {
        return fault(format!(
            "{}: the ZZ exponent output is not implemented",
            short(call)
        ));
    }
    let axis0 = attr_sym(call, &["grpAxis", "grp_axis"]).is_some_and(|a| a.contains('0'));
    let src = in_tile(call, 0, "source")?;
    let dst = out_tile(call, 0, "destination")?;
    let exp = out_tile(call, 1, "exponent tile")?;
    let max = out_tile(call, 2, "max tile")?;
    let sc = out_tile(call, 3, "scaling tile")?;
    check_valid(call, src, "source")?;
    if !matches!(src.elem, DType::F32 | DType::F16 | DType::BF16) {
        return fault(format!(
            "{}: the source must be f32, f16 or bf16, found {}",
            short(call),
            src.elem
        ));
    }
    if fp4 && (!matches!(src.elem, DType::F16 | DType::BF16) || dst.elem != DType::F4E2M1) {
        return fault(format!(
            "{}: MXFP4_E2M1 quantizes f16/bf16 into !pto.f4E2M1x2, found {} -> {}",
            short(call),
            src.elem,
            dst.elem
        ));
    }
    if dst.elem.bytes() != 1 || exp.elem.bytes() != 1 {
        return fault(format!(
            "{}: dst and exp must have 8-bit elements, found {} and {}",
            short(call),
            dst.elem,
            exp.elem
        ));
    }
    let (rows, cols) = (src.v_row, src.v_col);
    let along = if axis0 { rows } else { cols };
    if along % 32 != 0 {
        return fault(format!(
            "{}: the source's valid {} ({along}) is not a multiple of 32",
            short(call),
            if axis0 { "rows" } else { "columns" }
        ));
    }
    let (gr, gc) = if axis0 {
        (rows / 32, cols)
    } else {
        (rows, cols / 32)
    };
    // exp is [groups along rows] x [groups along columns]; max and scaling
    // hold the groups as a compact prefix in row order (the verifier's rule)
    for (t, what) in [(max, "max"), (sc, "scaling")] {
        if t.rows * t.cols < gr * gc {
            return fault(format!(
                "{}: the {what} tile ({}x{}) cannot hold the {} groups",
                short(call),
                t.rows,
                t.cols,
                gr * gc
            ));
        }
    }
    // a one-row exp tile holds the groups flat in row order (PTOAS's
    // "legacy flat [1, M*N/32]" form, the one it takes for 16-bit sources)
    let flat = exp.rows == 1 && gr > 1;
    if flat && exp.cols < gr * gc {
        return fault(format!(
            "{}: the flat exp tile (1x{}) cannot hold the {} groups",
            short(call),
            exp.cols,
            gr * gc
        ));
    }
    if !flat && (exp.rows < gr || exp.cols < gc) {
        return fault(format!(
            "{}: the exp tile ({}x{}) cannot hold the {gr}x{gc} groups",
            short(call),
            exp.rows,
            exp.cols
        ));
    }

    // packed fp4: a destination byte holds two columns
    let dst_cols = if fp4 { (cols + 1) / 2 } else { cols };
    if dst.rows < rows || dst.cols < dst_cols {
        return fault(format!(
            "{}: the {}x{} destination cannot hold the {rows}x{cols} source",
            short(call),
            dst.rows,
            dst.cols
        ));
    }
    if fp4 {
        return run_fp4(local, acc, [src, dst, exp, max, sc], axis0, (gr, gc), flat);
    }
    for g0 in 0..gr {
        for g1 in 0..gc {
            let at = |i: i64| {
                if axis0 {
                    (g0 * 32 + i, g1)
                } else {
                    (g0, g1 * 32 + i)
                }
            };
            let mut xs = [0f32; 32];
            let mut m = 0f32;
            for (i, x) in xs.iter_mut().enumerate() {
                let (r, c) = at(i as i64);
                *x = get(local, src, r, c, acc)?.f() as f32;
                if x.abs() > m {
                    m = x.abs();
                }
            }
            let e = shared_exponent(m);
            let s = scaling(e);
            for (i, x) in xs.iter().enumerate() {
                let (r, c) = at(i as i64);
                put_bits(local, dst, r, c, e4m3(x * s) as u64, acc)?;
            }
            let k = g0 * gc + g1;
            let (er, ec) = if flat { (0, k) } else { (g0, g1) };
            put_bits(local, exp, er, ec, e as u64, acc)?;
            put(
                local,
                max,
                k / max.cols,
                k % max.cols,
                Num::F(m as f64),
                acc,
            )?;
            put(local, sc, k / sc.cols, k % sc.cols, Num::F(s as f64), acc)?;
        }
    }
    Ok(())
}

/// The OCP MXFP4 (e2m1) shared exponent of a group maximum: `E(m) - 2`,
/// the largest e2m1 exponent being 2 (0 when `E(m) <= 2`, 0xFF for NaN).
pub fn shared_exponent_e2m1(m: f32) -> u8 {
    if m.is_nan() {
        return 0xff;
    }
    let e = (m.to_bits() >> 23) & 0xff;
    if e <= 2 {
        0
    } else {
        (e - 2) as u8
    }
}

/// The e2m1 code of a scaled value: to nearest even, saturating at ±6
/// (infinities too), the sign kept on zero.
pub fn e2m1(x: f32) -> u8 {
    if x.is_nan() {
        return 0x7;
    }
    minifloat::encode(x as f64, DType::F4E2M1, Rnd::R, true) as u8 & 0xf
}

/// MXFP4_E2M1 (OCP), pto-isa's CPU model (`include/pto/cpu/TQuant.hpp`):
/// the group maximum is taken over |x| truncated to bf16 (a NaN element makes
/// it NaN), the exponent is `E(m) - 2`, the scale as for MXFP8; each element
/// becomes the e2m1 code of `x * scale` (rounded to bf16 first for a bf16
/// source), all codes 0x7 when the scale is NaN. Codes are packed two per
/// byte along the columns, the even column in the low nibble.
fn run_fp4(
    local: &mut Local,
    acc: &mut Accesses,
    [src, dst, exp, max, sc]: [&crate::value::Tile; 5],
    axis0: bool,
    (gr, gc): (i64, i64),
    flat: bool,
) -> Result<(), Fault> {
    let mut codes = vec![vec![0u8; src.v_col as usize]; src.v_row as usize];
    for g0 in 0..gr {
        for g1 in 0..gc {
            let at = |i: i64| {
                if axis0 {
                    (g0 * 32 + i, g1)
                } else {
                    (g0, g1 * 32 + i)
                }
            };
            let mut xs = [0f32; 32];
            let mut mbits = 0u32;
            for (i, x) in xs.iter_mut().enumerate() {
                let (r, c) = at(i as i64);
                *x = get(local, src, r, c, acc)?.f() as f32;
                mbits = mbits.max((x.to_bits() >> 16) & 0x7fff);
            }
            let m = f32::from_bits(mbits << 16);
            let e = shared_exponent_e2m1(m);
            let s = if e == 0xff { m } else { scaling(e) };
            for (i, x) in xs.iter().enumerate() {
                let (r, c) = at(i as i64);
                let code = if s.is_nan() {
                    0x7
                } else {
                    let mut y = x * s;
                    if src.elem == DType::BF16 {
                        y = crate::num::bf16_rne(y as f64).to_f32();
                    }
                    e2m1(y)
                };
                codes[r as usize][c as usize] = code;
            }
            let k = g0 * gc + g1;
            let (er, ec) = if flat { (0, k) } else { (g0, g1) };
            put_bits(local, exp, er, ec, e as u64, acc)?;
            put(
                local,
                max,
                k / max.cols,
                k % max.cols,
                Num::F(m as f64),
                acc,
            )?;
            put(local, sc, k / sc.cols, k % sc.cols, Num::F(s as f64), acc)?;
        }
    }
    for (r, row) in codes.iter().enumerate() {
        for (c, pair) in row.chunks(2).enumerate() {
            let byte = pair[0] as u64 | (pair.get(1).copied().unwrap_or(0) as u64) << 4;
            put_bits(local, dst, r as i64, c as i64, byte, acc)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exponents_and_scales() {
        // 448 = 1.75 * 2^8: exponent 127 + 8 - 8, scale 1
        assert_eq!(shared_exponent(448.0), 127);
        assert_eq!(scaling(127), 1.0);
        assert_eq!(shared_exponent(1.0), 119);
        assert_eq!(scaling(119), 256.0);
        assert_eq!(shared_exponent(0.0), 0);
        assert_eq!(scaling(254), (2f32).powi(-127));
        assert!(scaling(0xff).is_nan());
        assert_eq!(e4m3(1000.0), 0x7e);
        assert_eq!(e4m3(-1.0), 0xb8);
        // 6 = 1.5 * 2^2: exponent 127 + 2 - 2, scale 1
        assert_eq!(shared_exponent_e2m1(6.0), 127);
        assert_eq!(shared_exponent_e2m1(f32::NAN), 0xff);
        assert_eq!(e2m1(5.0), 0x6);
        assert_eq!(e2m1(-7.0), 0xf);
        assert_eq!(e2m1(f32::INFINITY), 0x7);
        assert_eq!(e2m1(-0.2), 0x8);
    }
}
