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
//! MXFP4, the NV scale algorithm, `interleave` and the ZZ exponent store
//! fault as not implemented.

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
    if !qt.contains("MXFP8") {
        return fault(format!(
            "{}: quant_type {qt} is not implemented (MXFP8 is)",
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
    for (t, what) in [(exp, "exp")] {
        if t.rows < gr || t.cols < gc {
            return fault(format!(
                "{}: the {what} tile ({}x{}) cannot hold the {gr}x{gc} groups",
                short(call),
                t.rows,
                t.cols
            ));
        }
    }
    if dst.rows < rows || dst.cols < cols {
        return fault(format!(
            "{}: the {}x{} destination cannot hold the {rows}x{cols} source",
            short(call),
            dst.rows,
            dst.cols
        ));
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
            put_bits(local, exp, g0, g1, e as u64, acc)?;
            let k = g0 * gc + g1;
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
    }
}
