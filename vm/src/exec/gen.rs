//! Generators: `tci` (an arithmetic index sequence) and `ttri` (a triangular
//! 0/1 mask). Neither reads a tile; both write the destination's valid region.
//!
//! * `tci ins(%start [, %tmp]) outs(%dst) {descending}`: `dst[0, j] = start + j`
//!   (`start - j` when descending) for `j < dst.v_col`, wrapped to the element
//!   type (`i32`, `ui32`, `i16`, `ui16`). The manual says the sequence length is
//!   the valid column count and the valid row count is not consulted; ptovm
//!   writes row 0 only and faults on a destination with more than one valid row
//!   (the manual's "linearized over the valid elements" and its "does not
//!   consult GetValidRow" disagree there). The scratch `tmp` tile is not touched.
//! * `ttri ins(%diagonal {upperOrLower}) outs(%dst)`: lower (0, default):
//!   `dst[i, j] = 1` when `j <= i + d`, else 0; upper (1): `dst[i, j] = 1` when
//!   `j >= i + d`, else 0.

use pto_isa_spec::{DType, Opcode};

use crate::exec::tile_ops::{check_valid, in_scalar, out_tile, put, short, TileCall};
use crate::exec::{fault, Accesses, Fault};
use crate::mem::Local;
use crate::num::{wrap, Num};
use crate::program::{attr, AttrVal};

/// Executes a generator.
pub fn run(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    match call.op {
        Opcode::TCi => tci(call, local, acc),
        Opcode::TTri => ttri(call, local, acc),
        _ => fault(format!("{} is not a generator", call.op.name())),
    }
}

/// An integer attribute (booleans are 0/1); `None` when absent.
pub(crate) fn attr_int(call: &TileCall, key: &str) -> Result<Option<i64>, Fault> {
    match attr(&call.attrs, key) {
        None => Ok(None),
        Some(AttrVal::Int(i)) => Ok(Some(*i)),
        Some(AttrVal::Sym(s)) => match s.trim_matches('"').to_ascii_lowercase().as_str() {
            "true" => Ok(Some(1)),
            "false" => Ok(Some(0)),
            other => match other.parse::<i64>() {
                Ok(i) => Ok(Some(i)),
                Err(_) => fault(format!(
                    "{}: attribute {key} = {s} is not an integer",
                    short(call)
                )),
            },
        },
        Some(AttrVal::Float(f)) => fault(format!(
            "{}: attribute {key} = {f} is not an integer",
            short(call)
        )),
    }
}

fn tci(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, dst, "destination")?;
    if !matches!(dst.elem, DType::I32 | DType::U32 | DType::I16 | DType::U16) {
        return fault(format!(
            "tci: the destination must be i32, ui32, i16 or ui16, found {}",
            dst.elem
        ));
    }
    let start = match in_scalar(call, 0, "start")? {
        Num::I(i) => i,
        Num::F(f) => {
            return fault(format!(
                "tci: the start value must be an integer, found {f}"
            ))
        }
    };
    let desc = attr_int(call, "descending")?.unwrap_or(0) != 0;
    if dst.v_row > 1 {
        return fault(format!(
            "tci: the destination has {} valid rows; the sequence is defined for one row only",
            dst.v_row
        ));
    }
    if dst.v_row == 0 {
        return Ok(());
    }
    for j in 0..dst.v_col {
        let v = if desc {
            start.wrapping_sub(j)
        } else {
            start.wrapping_add(j)
        };
        put(local, dst, 0, j, Num::I(wrap(v, dst.elem)), acc)?;
    }
    Ok(())
}

fn ttri(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, dst, "destination")?;
    let d = match in_scalar(call, 0, "diagonal")? {
        Num::I(i) => i,
        Num::F(f) => return fault(format!("ttri: the diagonal must be an integer, found {f}")),
    };
    let upper = match attr_int(call, "upperOrLower")?.unwrap_or(0) {
        0 => false,
        1 => true,
        other => {
            return fault(format!(
                "ttri: upperOrLower must be 0 (lower) or 1 (upper), found {other}"
            ))
        }
    };
    let float = dst.elem.is_float();
    for i in 0..dst.v_row {
        for j in 0..dst.v_col {
            let one = if upper {
                j >= i.saturating_add(d)
            } else {
                j <= i.saturating_add(d)
            };
            let v = match (one, float) {
                (true, true) => Num::F(1.0),
                (false, true) => Num::F(0.0),
                (true, false) => Num::I(1),
                (false, false) => Num::I(0),
            };
            put(local, dst, i, j, v, acc)?;
        }
    }
    Ok(())
}
