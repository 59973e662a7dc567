//! Row and column reductions: `trow{sum,max,min,prod}`, `tcol{sum,max,min,prod}`
//! and the arg-reductions `trowarg{max,min}`, `tcolarg{max,min}`, and
//! `tpairreducesum` (`dst[i, k] = src[i, 2k] + src[i, 2k + 1]` for
//! `k < ceil(C / 2)`, a missing odd partner counting 0, and zeros in columns
//! `ceil(C / 2)..C`, `C` being the destination's valid columns; each sum is
//! rounded once).
//!
//! A reduction reads the source's valid region (an optional scratch `tmp`
//! operand in `ins` is ignored). Row reductions write column 0 of each of the
//! destination's valid rows; column reductions write row 0 of each of the
//! destination's valid columns. Float sums and products accumulate in f64 and
//! round once; integers wrap; max/min propagate NaN. Arg-reductions return the
//! first index of the extreme value (a NaN never replaces an earlier value).

use pto_isa_spec::{DType, Opcode};

use crate::exec::tile_ops::{
    check_valid, fmax, fmin, get, in_tile, out_tile, put, short, TileCall,
};
use crate::exec::{fault, Accesses, Fault};
use crate::mem::Local;
use crate::num::Num;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Sum,
    Max,
    Min,
    Prod,
    ArgMax,
    ArgMin,
}

/// Executes a reduction.
pub fn run(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    use Opcode as O;
    if call.op == O::TPairReduceSum {
        return pair_sum(call, local, acc);
    }
    let (kind, by_row) = match call.op {
        O::TRowSum => (Kind::Sum, true),
        O::TRowMax => (Kind::Max, true),
        O::TRowMin => (Kind::Min, true),
        O::TRowProd => (Kind::Prod, true),
        O::TColSum => (Kind::Sum, false),
        O::TColMax => (Kind::Max, false),
        O::TColMin => (Kind::Min, false),
        O::TColProd => (Kind::Prod, false),
        O::TRowArgMax => (Kind::ArgMax, true),
        O::TRowArgMin => (Kind::ArgMin, true),
        O::TColArgMax => (Kind::ArgMax, false),
        O::TColArgMin => (Kind::ArgMin, false),
        _ => return fault(format!("{} is not a reduction", call.op.name())),
    };
    let src = in_tile(call, 0, "source")?;
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, src, "source")?;
    check_valid(call, dst, "destination")?;
    let arg = matches!(kind, Kind::ArgMax | Kind::ArgMin);
    if arg && dst.elem.is_float() {
        return fault(format!(
            "{}: the index destination must be an integer tile, found {}",
            short(call),
            dst.elem
        ));
    }
    if !arg && dst.elem != src.elem {
        return fault(format!(
            "{}: source ({}) and destination ({}) element types differ",
            short(call),
            src.elem,
            dst.elem
        ));
    }
    // number of reduced lines (rows for a row reduction) and their length
    let (lines, len, src_lines) = if by_row {
        (dst.v_row, src.v_col, src.v_row)
    } else {
        (dst.v_col, src.v_row, src.v_col)
    };
    if lines == 0 || (by_row && dst.v_col == 0) || (!by_row && dst.v_row == 0) {
        return Ok(());
    }
    if src_lines < lines {
        return fault(format!(
            "{}: the destination has {lines} valid {} but the source only {src_lines}",
            short(call),
            if by_row { "rows" } else { "columns" }
        ));
    }
    if len == 0 {
        return fault(format!(
            "{}: the source valid region {}x{} is empty",
            short(call),
            src.v_row,
            src.v_col
        ));
    }
    let float = src.elem.is_float();
    // integers compare as i128 keys so that u64 elements (held as i64 bits) order unsigned
    let key = |v: Num| -> i128 {
        if src.elem == DType::U64 {
            v.i() as u64 as i128
        } else {
            v.i() as i128
        }
    };
    for l in 0..lines {
        let at = |k: i64| if by_row { (l, k) } else { (k, l) };
        let (r0, c0) = at(0);
        let first = get(local, src, r0, c0, acc)?;
        let mut best = first;
        let mut best_k = 0i64;
        for k in 1..len {
            let (r, c) = at(k);
            let x = get(local, src, r, c, acc)?;
            best = match kind {
                Kind::Sum if float => Num::F(best.f() + x.f()),
                Kind::Sum => Num::I(best.i().wrapping_add(x.i())),
                Kind::Prod if float => Num::F(best.f() * x.f()),
                Kind::Prod => Num::I(best.i().wrapping_mul(x.i())),
                Kind::Max if float => Num::F(fmax(best.f(), x.f())),
                Kind::Max => {
                    if key(x) > key(best) {
                        x
                    } else {
                        best
                    }
                }
                Kind::Min if float => Num::F(fmin(best.f(), x.f())),
                Kind::Min => {
                    if key(x) < key(best) {
                        x
                    } else {
                        best
                    }
                }
                Kind::ArgMax | Kind::ArgMin => {
                    if better(kind, x, best, float, key) {
                        best_k = k;
                        x
                    } else {
                        best
                    }
                }
            };
        }
        let v = if arg { Num::I(best_k) } else { best };
        let (r, c) = if by_row { (l, 0) } else { (0, l) };
        put(local, dst, r, c, v, acc)?;
    }
    Ok(())
}

fn better(kind: Kind, x: Num, best: Num, float: bool, key: impl Fn(Num) -> i128) -> bool {
    match (kind, float) {
        (Kind::ArgMax, true) => x.f() > best.f(),
        (Kind::ArgMax, false) => key(x) > key(best),
        (_, true) => x.f() < best.f(),
        (_, false) => key(x) < key(best),
    }
}

fn pair_sum(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let src = in_tile(call, 0, "source")?;
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, src, "source")?;
    check_valid(call, dst, "destination")?;
    if src.elem != dst.elem || !dst.elem.is_float() {
        return fault(format!(
            "tpairreducesum: source ({}) and destination ({}) must be the same float type",
            src.elem, dst.elem
        ));
    }
    let (rows, cols) = (dst.v_row, dst.v_col);
    if src.v_row < rows {
        return fault(format!(
            "tpairreducesum: the source has {} valid rows, the destination {rows}",
            src.v_row
        ));
    }
    let half = (cols + 1) / 2;
    let mut out = Vec::new();
    for r in 0..rows {
        for k in 0..cols {
            let v = if k < half {
                // elements outside the source's valid region count as 0
                let at = |c: i64, local: &Local, acc: &mut Accesses| -> Result<f64, Fault> {
                    if c < cols && c < src.v_col {
                        Ok(get(local, src, r, c, acc)?.f())
                    } else {
                        Ok(0.0)
                    }
                };
                at(2 * k, local, acc)? + at(2 * k + 1, local, acc)?
            } else {
                0.0
            };
            out.push((r, k, v));
        }
    }
    for (r, k, v) in out {
        put(local, dst, r, k, Num::F(v), acc)?;
    }
    Ok(())
}
