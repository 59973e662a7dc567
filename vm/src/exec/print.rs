//! `tprint`: debug print of a tile or a GM view to standard error (stdout
//! belongs to the tools' own reports, such as the conformance table).
//!
//! The kernel is drained first and after (`tprint` lowers to a barrier on
//! every pipe, the print, and another barrier, the `pipe_barrier(PIPE_ALL)`
//! the manual describes), so the printed data is what the program order
//! says. Format, one block per `tprint`:
//!
//! ```text
//! tprint UB tile f32 4x8 (valid 3x5):
//!   1.0000   2.0000   3.0000   4.0000   5.0000 |   0.0000 ...
//! ...
//! --
//!   0.0000 ...
//! ```
//!
//! Every element of the tile's shape is printed (GM views: their logical
//! shape); a ` |` follows the last valid column and a `--` line the last
//! valid row when the valid region is smaller. Floats print as `%8.4f`
//! (`printFormat = width8_precision2`: `%8.2f`, `width10_precision6`:
//! `%10.6f`), integers as `%8d` (`%10d` for `width10_precision6`), fp8/hif8
//! as their decoded value. A second operand (the manual's GM scratch for
//! acc/mat tiles) is accepted and not written.

use crate::exec::tile_ops::{attr_sym, get, TileCall};
use crate::exec::{fault, meter, Accesses, Fault};
use crate::mem::{Gm, Local};
use crate::num::{read, Num};
use crate::value::{Tile, Val, View};

/// Field width and float precision of a `printFormat`.
fn format(call: &TileCall) -> (usize, usize) {
    match attr_sym(call, &["printFormat", "print_format", "format"]) {
        Some(s) if s.contains("PRECISION2") || s == "1" => (8, 2),
        Some(s) if s.contains("PRECISION6") || s == "2" => (10, 6),
        _ => (8, 4),
    }
}

fn cell(v: Num, float: bool, (w, p): (usize, usize)) -> String {
    match v {
        Num::F(f) if float => format!("{f:w$.p$}"),
        Num::F(f) => format!("{:w$}", f as i64),
        Num::I(i) if float => format!("{:w$.p$}", i as f64),
        Num::I(i) => format!("{i:w$}"),
    }
}

/// Formats a `rows x cols` grid whose first `vr x vc` corner is valid.
pub fn grid(
    header: &str,
    (rows, cols): (i64, i64),
    (vr, vc): (i64, i64),
    float: bool,
    fmt: (usize, usize),
    mut at: impl FnMut(i64, i64) -> Result<Num, Fault>,
) -> Result<String, Fault> {
    let mut s = format!("{header}:\n");
    for r in 0..rows {
        if r == vr && vr < rows {
            s.push_str("--\n");
        }
        let mut line = String::new();
        for c in 0..cols {
            // formatting a cell costs tens of element copies
            meter::charge(32)?;
            if c > 0 {
                line.push(' ');
            }
            line.push_str(&cell(at(r, c)?, float, fmt));
            if c + 1 == vc && vc < cols {
                line.push_str(" |");
            }
        }
        s.push_str(&line);
        s.push('\n');
    }
    Ok(s)
}

fn tile_text(call: &TileCall, t: &Tile, local: &Local) -> Result<String, Fault> {
    let header = format!(
        "tprint {} tile {} {}x{} (valid {}x{})",
        crate::exec::tile_ops::space(t).name(),
        t.elem,
        t.rows,
        t.cols,
        t.v_row,
        t.v_col
    );
    let mut acc = Accesses::default();
    grid(
        &header,
        (t.rows, t.cols),
        (t.v_row, t.v_col),
        t.elem.is_float(),
        format(call),
        |r, c| get(local, t, r, c, &mut acc),
    )
}

fn view_text(call: &TileCall, v: &View, gm: &Gm) -> Result<String, Fault> {
    let (rows, cols) = v.rows_cols();
    if rows.saturating_mul(cols) > 1 << 20 {
        return fault(format!(
            "tprint: a {rows}x{cols} view is too large to print"
        ));
    }
    let es = v.elem.bytes();
    let header = format!("tprint GM view {} {rows}x{cols}", v.elem);
    let mut buf = vec![0u8; es];
    grid(
        &header,
        (rows, cols),
        (rows, cols),
        v.elem.is_float(),
        format(call),
        |r, c| {
            let addr = v.addr_of(r, c)?;
            gm.read(addr, &mut buf)?;
            Ok(read(&buf, v.elem))
        },
    )
}

/// Executes `tprint` (the reads are not reported to the race checker: the
/// surrounding barriers order them).
pub fn run(call: &TileCall, gm: &Gm, local: &Local, _acc: &mut Accesses) -> Result<(), Fault> {
    let text = match call.ins.first() {
        Some(Val::Tile(t)) => tile_text(call, t, local)?,
        Some(Val::View(v)) => view_text(call, v, gm)?,
        Some(other) => return fault(format!("tprint: cannot print {}", other.kind())),
        None => return fault("tprint: nothing to print"),
    };
    eprint!("{text}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_valid_region_is_marked() {
        let s = grid("t", (3, 3), (2, 2), true, (8, 4), |r, c| {
            Ok(Num::F((r * 3 + c) as f64))
        })
        .unwrap();
        assert_eq!(
            s,
            "t:\n  0.0000   1.0000 |   2.0000\n  3.0000   4.0000 |   5.0000\n--\n  6.0000   7.0000 |   8.0000\n"
        );
        let s = grid("i", (1, 2), (1, 2), false, (8, 2), |_, c| Ok(Num::I(c - 5))).unwrap();
        assert_eq!(s, "i:\n      -5       -4\n");
    }
}
