//! Integer quantization: `tquant` (INT8 symmetric / asymmetric) and `tdequant`.
//!
//! * `tquant ins(%src, %scale [, %offset]) outs(%dst [, %tmp]) {quant_type}`:
//!   `src` is f32; `scale` (and `offset`) hold one f32 per row in column 0 (a
//!   one-row parameter tile is broadcast to every row). For every element of
//!   the source's valid region, `t = f32(src * scale)`, then for INT8_ASYM
//!   `t = f32(t + offset)`; the result is `t` rounded to nearest, ties to even,
//!   saturated to `[-128, 127]` (INT8_SYM, `i8` destination) or `[0, 255]`
//!   (INT8_ASYM, `ui8` destination). This is the A2/A3 cast chain
//!   (`rowexpandmul`, `rowexpandadd`, f32 -> s32 -> f16 -> s8 with CAST_RINT and
//!   saturation): every intermediate rounding there is exact for values in range
//!   and saturates outside it. NaN quantizes to 0. Without a `quant_type`
//!   attribute the destination type chooses (`i8` symmetric, `ui8` asymmetric).
//!   The scratch `tmp` is not written. The MX formats are not implemented.
//! * `tdequant ins(%src, %scale, %offset) outs(%dst)`: `src` is i8 or i16, `dst`,
//!   `scale`, `offset` are f32; `dst[r, c] = f32(f32(src[r, c] - offset[r]) * scale[r])`
//!   over the destination's valid region (parameters in column 0 of each row).

use pto_isa_spec::{DType, Opcode};

use crate::exec::tile_ops::{
    attr_sym, check_covers, check_valid, get, in_tile, out_tile, put, short, TileCall,
};
use crate::exec::{fault, Accesses, Fault};
use crate::mem::Local;
use crate::num::{round_float, Num};
use crate::value::Tile;

/// Executes a quantization op.
pub fn run(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    match call.op {
        Opcode::TQuant => quant(call, local, acc),
        Opcode::TDequant => dequant(call, local, acc),
        _ => fault(format!("{} is not a quantization op", call.op.name())),
    }
}

/// Checks a per-row parameter tile and returns a reader of row `r`'s value.
fn param_rows(call: &TileCall, p: &Tile, rows: i64, what: &str) -> Result<(), Fault> {
    check_valid(call, p, what)?;
    if p.elem != DType::F32 {
        return fault(format!(
            "{}: the {what} tile must be f32, found {}",
            short(call),
            p.elem
        ));
    }
    if p.v_col < 1 || (p.v_row != 1 && p.v_row < rows) {
        return fault(format!(
            "{}: the {what} tile's valid region {}x{} does not give one value for each of the {rows} rows",
            short(call),
            p.v_row,
            p.v_col
        ));
    }
    Ok(())
}

fn param(local: &Local, p: &Tile, r: i64, acc: &mut Accesses) -> Result<f64, Fault> {
    let row = if p.v_row == 1 { 0 } else { r };
    Ok(get(local, p, row, 0, acc)?.f())
}

fn quant(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let src = in_tile(call, 0, "source")?;
    let scale = in_tile(call, 1, "scale")?;
    let offset = crate::exec::tile_ops::in_tiles(call).get(2).copied();
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, src, "source")?;
    check_valid(call, dst, "destination")?;
    if src.elem != DType::F32 {
        return fault(format!(
            "tquant: INT8 quantization needs an f32 source, found {}",
            src.elem
        ));
    }
    let asym = match attr_sym(call, &["quant_type", "quantType"]).as_deref() {
        Some(s) if s.ends_with("INT8_SYM") => false,
        Some(s) if s.ends_with("INT8_ASYM") => true,
        Some(s) => {
            return fault(format!(
                "tquant: quant_type {s} is not implemented (INT8_SYM and INT8_ASYM are)"
            ))
        }
        None => dst.elem == DType::U8,
    };
    let want = if asym { DType::U8 } else { DType::I8 };
    if dst.elem != want {
        return fault(format!(
            "tquant: {} needs a {want} destination, found {}",
            if asym { "INT8_ASYM" } else { "INT8_SYM" },
            dst.elem
        ));
    }
    match (asym, offset) {
        (true, None) => return fault("tquant: INT8_ASYM needs an offset tile"),
        (false, Some(_)) => return fault("tquant: INT8_SYM takes no offset tile"),
        _ => {}
    }
    if dst.v_row != src.v_row || dst.v_col != src.v_col {
        return fault(format!(
            "tquant: source ({}x{}) and destination ({}x{}) valid regions differ",
            src.v_row, src.v_col, dst.v_row, dst.v_col
        ));
    }
    param_rows(call, scale, src.v_row, "scale")?;
    if let Some(o) = offset {
        param_rows(call, o, src.v_row, "offset")?;
    }
    let (lo, hi) = if asym { (0.0, 255.0) } else { (-128.0, 127.0) };
    for r in 0..src.v_row {
        let s = param(local, scale, r, acc)?;
        let o = match offset {
            Some(o) => Some(param(local, o, r, acc)?),
            None => None,
        };
        for c in 0..src.v_col {
            let x = get(local, src, r, c, acc)?.f();
            let mut t = round_float(x * s, DType::F32);
            if let Some(o) = o {
                t = round_float(t + o, DType::F32);
            }
            let q = if t.is_nan() {
                0
            } else {
                t.round_ties_even().clamp(lo, hi) as i64
            };
            put(local, dst, r, c, Num::I(q), acc)?;
        }
    }
    Ok(())
}

fn dequant(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let src = in_tile(call, 0, "source")?;
    let scale = in_tile(call, 1, "scale")?;
    let offset = in_tile(call, 2, "offset")?;
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, dst, "destination")?;
    if dst.elem != DType::F32 {
        return fault(format!(
            "tdequant: the destination must be f32, found {}",
            dst.elem
        ));
    }
    if !matches!(src.elem, DType::I8 | DType::I16) {
        return fault(format!(
            "tdequant: the source must be i8 or i16, found {}",
            src.elem
        ));
    }
    check_covers(call, src, dst.v_row, dst.v_col, "source")?;
    param_rows(call, scale, dst.v_row, "scale")?;
    param_rows(call, offset, dst.v_row, "offset")?;
    for r in 0..dst.v_row {
        let s = param(local, scale, r, acc)?;
        let o = param(local, offset, r, acc)?;
        for c in 0..dst.v_col {
            let x = get(local, src, r, c, acc)?.f();
            let t = round_float(x - o, DType::F32);
            put(
                local,
                dst,
                r,
                c,
                Num::F(round_float(t * s, DType::F32)),
                acc,
            )?;
        }
    }
    Ok(())
}
