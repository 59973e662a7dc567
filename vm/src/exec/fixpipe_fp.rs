//! The `.fp` forms of the accumulator moves: `tmov.fp`, `textract.fp`,
//! `tinsert.fp` and `tstore.fp` convert accumulator elements through the
//! FIXPIPE with per-column ("vector") quantization parameters taken from a
//! scaling tile `fp` (row 0, one entry per destination column).
//!
//! The manual leaves `Convert(src; fp)` implementation-defined; this follows
//! the CPU simulator's model of the FIXPIPE. A `ui64`/`i64` `fp` element is
//! the packed quant word: the scale M1 is bits 13..32 read as a float with a
//! 10-bit mantissa (sign bit 31, exponent bits 30..23, mantissa bits 22..13),
//! the offset bits 37..45 (unsigned), the signed flag bit 46, the i16 shift
//! bits 32..35. A float `fp` element (the A5 form) is the scale itself, with
//! offset 0 and the destination's signedness. The mode follows the types:
//!
//! | source -> destination | result |
//! |---|---|
//! | f32 or i32 -> i8/ui8 | `clamp(rint_even(x * M1 + offset))` to [-128, 127] (signed flag) or [0, 255] |
//! | i32 -> f16 | `f16(clamp(x * M1, ±65504))` |
//! | i32 -> i16 | `i16(x >> (shift + 1))` (wrapping) |
//! | anything else | a plain conversion (no parameters) |
//!
//! `x * M1` is computed in f32. `relu`/`reluMode` (normal) applies to the
//! result before the final conversion. Sizes: `tmov.fp` covers the
//! destination's valid region; `textract.fp ins(src, fp, row, col)` reads the
//! window at (row, col); `tinsert.fp ins(src, fp, row, col)` writes the
//! source's valid region at (row, col); `tstore.fp ins(src, fp) outs(view)`
//! writes the source's valid region into the GM view.

use pto_isa_spec::{DType, Opcode};

use crate::exec::tile_ops::{
    attr_sym, check_valid, get, get_bits, in_scalars, in_tile, out_tile, put, short, TileCall,
};
use crate::exec::{fault, Accesses, Fault};
use crate::mem::{Gm, Local};
use crate::num::{write, Num};
use crate::value::{Space, Tile, Val};

/// One column's quantization parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Param {
    scale: f32,
    offset: f32,
    signed: bool,
    shift: u32,
}

fn decode_word(w: u64) -> Param {
    let m1 = ((w >> 13) & 0x7ffff) as u32;
    let (sign, exp, man) = ((m1 >> 18) & 1, (m1 >> 10) & 0xff, m1 & 0x3ff);
    let scale = if exp == 0 && man == 0 {
        0.0
    } else {
        f32::from_bits(sign << 31 | exp << 23 | man << 13)
    };
    Param {
        scale,
        offset: ((w >> 37) & 0x1ff) as f32,
        signed: (w >> 46) & 1 == 1,
        shift: ((w >> 32) & 0xf) as u32 + 1,
    }
}

fn params(
    call: &TileCall,
    local: &Local,
    fp: &Tile,
    cols: i64,
    dst: DType,
    acc: &mut Accesses,
) -> Result<Vec<Param>, Fault> {
    check_valid(call, fp, "fp")?;
    if fp.v_col < cols || fp.v_row < 1 {
        return fault(format!(
            "{}: the fp tile's valid region {}x{} does not give parameters for {cols} columns",
            short(call),
            fp.v_row,
            fp.v_col
        ));
    }
    let signed = matches!(dst, DType::I8 | DType::I16 | DType::I32);
    (0..cols)
        .map(|c| {
            Ok(match fp.elem {
                DType::U64 | DType::I64 => decode_word(get_bits(local, fp, 0, c, acc)?),
                d if d.is_float() => Param {
                    scale: get(local, fp, 0, c, acc)?.f() as f32,
                    offset: 0.0,
                    signed,
                    shift: 1,
                },
                d => {
                    return fault(format!(
                        "{}: the fp tile must hold ui64 quant words or floats, found {d}",
                        short(call)
                    ))
                }
            })
        })
        .collect()
}

fn convert(x: Num, src: DType, dst: DType, p: Param, relu: bool) -> Num {
    let relu_f = |v: f64| if relu && v < 0.0 { 0.0 } else { v };
    match (src, dst) {
        (DType::F32 | DType::I32, DType::I8 | DType::U8) => {
            let y = (x.f() as f32 * p.scale) + p.offset;
            let (lo, hi) = if p.signed {
                (-128.0, 127.0)
            } else {
                (0.0, 255.0)
            };
            let r = if y.is_nan() {
                0.0
            } else {
                (y as f64).round_ties_even().clamp(lo, hi)
            };
            Num::I(relu_f(r) as i64)
        }
        (DType::I32, DType::F16) => {
            let y = (x.f() as f32 * p.scale).clamp(-65504.0, 65504.0);
            Num::F(relu_f(y as f64))
        }
        (DType::I32, DType::I16) => {
            let y = (x.i() as i32) >> p.shift.min(31);
            Num::I(if relu && y < 0 { 0 } else { y as i16 as i64 })
        }
        _ => match x {
            Num::F(f) if dst.is_float() => Num::F(relu_f(f)),
            Num::F(f) => Num::I(relu_f(f) as i64),
            Num::I(i) if dst.is_float() => Num::F(relu_f(i as f64)),
            Num::I(i) => Num::I(if relu && i < 0 { 0 } else { i }),
        },
    }
}

fn relu(call: &TileCall) -> bool {
    attr_sym(call, &["relu", "relu_mode", "reluMode", "reluPreMode"]).is_some_and(|s| {
        s != "0" && !s.contains("NORELU") && !s.contains("NO_RELU") && s != "FALSE"
    })
}

/// Executes a `.fp` form.
pub fn run(call: &TileCall, gm: &Gm, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let src = in_tile(call, 0, "source")?;
    let fp = in_tile(call, 1, "fp (scaling) tile")?;
    check_valid(call, src, "source")?;
    let relu = relu(call);
    let at = || -> Result<(i64, i64), Fault> {
        let s = in_scalars(call);
        match (s.first(), s.get(1)) {
            (Some(r), Some(c)) => Ok((r.i(), c.i())),
            _ => fault(format!("{}: needs row and column offsets", short(call))),
        }
    };
    if call.op == Opcode::TStoreFp {
        let Some(Val::View(v)) = call.outs.first() else {
            return fault(format!(
                "{}: the destination must be a GM view",
                short(call)
            ));
        };
        let (vr, vc) = v.rows_cols();
        if src.v_row > vr || src.v_col > vc {
            return fault(format!(
                "{}: a {}x{} valid region does not fit the {vr}x{vc} GM view",
                short(call),
                src.v_row,
                src.v_col
            ));
        }
        let ps = params(call, local, fp, src.v_col, v.elem, acc)?;
        let es = v.elem.bytes();
        let mut b = vec![0u8; es];
        for r in 0..src.v_row {
            for c in 0..src.v_col {
                let x = get(local, src, r, c, acc)?;
                write(
                    &mut b,
                    v.elem,
                    convert(x, src.elem, v.elem, ps[c as usize], relu),
                );
                let addr = crate::exec::comm::view_addr(v, r, c)?;
                gm.write(addr, &b)?;
                acc.add(Space::Gm, addr, es as u64, true);
            }
        }
        return Ok(());
    }
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, dst, "destination")?;
    // (source origin, destination origin, extent)
    let ((sr, sc), (dr, dc), (rows, cols)) = match call.op {
        Opcode::TMovFp => ((0, 0), (0, 0), (dst.v_row, dst.v_col)),
        Opcode::TExtractFp => (at()?, (0, 0), (dst.v_row, dst.v_col)),
        Opcode::TInsertFp => ((0, 0), at()?, (src.v_row, src.v_col)),
        _ => return fault(format!("{} is not an fp form", call.op.name())),
    };
    // checked: a hostile offset (i64::MAX) must not overflow the window's end
    let inside = |o: i64, n: i64, lim: i64| o >= 0 && o.checked_add(n).is_some_and(|e| e <= lim);
    if !inside(sr, rows, src.rows) || !inside(sc, cols, src.cols) {
        return fault(format!(
            "{}: a {rows}x{cols} window at ({sr}, {sc}) is outside the {}x{} source tile",
            short(call),
            src.rows,
            src.cols
        ));
    }
    if !inside(dr, rows, dst.rows) || !inside(dc, cols, dst.cols) {
        return fault(format!(
            "{}: a {rows}x{cols} block at ({dr}, {dc}) is outside the {}x{} destination tile",
            short(call),
            dst.rows,
            dst.cols
        ));
    }
    let ps = params(call, local, fp, cols, dst.elem, acc)?;
    let mut vals = Vec::with_capacity((rows * cols).max(0) as usize);
    for r in 0..rows {
        for c in 0..cols {
            let x = get(local, src, sr + r, sc + c, acc)?;
            vals.push(convert(x, src.elem, dst.elem, ps[c as usize], relu));
        }
    }
    let mut it = vals.into_iter();
    for r in 0..rows {
        for c in 0..cols {
            if let Some(v) = it.next() {
                put(local, dst, dr + r, dc + c, v, acc)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_packed_word_decodes() {
        // scale 0.5 (exponent 126, mantissa 0), offset 3, signed
        let w = (126u64 << 10) << 13 | 3 << 37 | 1 << 46;
        let p = decode_word(w);
        assert_eq!((p.scale, p.offset, p.signed), (0.5, 3.0, true));
        let q = convert(Num::F(-300.0), DType::F32, DType::I8, p, false);
        assert_eq!(q, Num::I(-128));
        assert_eq!(
            convert(Num::F(5.0), DType::F32, DType::I8, p, false),
            Num::I(6)
        );
    }
}
