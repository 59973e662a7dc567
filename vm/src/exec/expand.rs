//! Broadcasts: `trowexpand` / `tcolexpand` (copy column 0 / row 0 across the
//! destination) and the binary forms `trowexpand{add,sub,mul,div,max,min,expdif}`
//! and `tcolexpand{...}`.
//!
//! Binary forms compute `src0 op src1` over the destination's valid region,
//! operand order preserved. For a row form each operand is read at
//! `(i, j)` when its valid region spans the destination's columns; otherwise it
//! is a broadcast operand read at `(i, j mod v_col)`: one value per row
//! (`v_col == 1`, mode 1) or a 32-byte block per row (`v_col == 32 / sizeof(T)`,
//! mode 2). Column forms broadcast along rows the same way (`v_row == 1`).
//! `expdif` is `exp(src0 - src1)`. Floats compute in f64 and round once.

use pto_isa_spec::{DType, Opcode};

use crate::exec::tile_ops::{
    check_valid, fmax, fmin, get, in_tile, out_tile, put, short, TileCall,
};
use crate::exec::{fault, Accesses, Fault};
use crate::mem::Local;
use crate::num::{int_key, Num};
use crate::value::Tile;

#[derive(Clone, Copy)]
enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
    Expdif,
}

/// Executes a broadcast op.
pub fn run(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    use Opcode as O;
    let (bin, by_row) = match call.op {
        O::TRowExpand => return plain(call, local, acc, true),
        O::TColExpand => return plain(call, local, acc, false),
        O::TRowExpandAdd => (Bin::Add, true),
        O::TRowExpandSub => (Bin::Sub, true),
        O::TRowExpandMul => (Bin::Mul, true),
        O::TRowExpandDiv => (Bin::Div, true),
        O::TRowExpandMax => (Bin::Max, true),
        O::TRowExpandMin => (Bin::Min, true),
        O::TRowExpandExpdif => (Bin::Expdif, true),
        O::TColExpandAdd => (Bin::Add, false),
        O::TColExpandSub => (Bin::Sub, false),
        O::TColExpandMul => (Bin::Mul, false),
        O::TColExpandDiv => (Bin::Div, false),
        O::TColExpandMax => (Bin::Max, false),
        O::TColExpandMin => (Bin::Min, false),
        O::TColExpandExpdif => (Bin::Expdif, false),
        _ => return fault(format!("{} is not a broadcast op", call.op.name())),
    };
    let a = in_tile(call, 0, "first source")?;
    let b = in_tile(call, 1, "second source")?;
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, dst, "destination")?;
    let ma = index_map(call, a, dst, by_row, "first source")?;
    let mb = index_map(call, b, dst, by_row, "second source")?;
    // snapshot both operands first: the destination may alias either
    let mut vals = Vec::with_capacity((dst.v_row * dst.v_col).max(0) as usize);
    for i in 0..dst.v_row {
        for j in 0..dst.v_col {
            let (ra, ca) = ma.at(i, j);
            let (rb, cb) = mb.at(i, j);
            let x = get(local, a, ra, ca, acc)?;
            let y = get(local, b, rb, cb, acc)?;
            vals.push(apply(bin, x, y, dst.elem));
        }
    }
    let mut it = vals.into_iter();
    for i in 0..dst.v_row {
        for j in 0..dst.v_col {
            if let Some(v) = it.next() {
                put(local, dst, i, j, v, acc)?;
            }
        }
    }
    Ok(())
}

fn apply(bin: Bin, x: Num, y: Num, dt: DType) -> Num {
    if dt.is_float() {
        let (x, y) = (x.f(), y.f());
        Num::F(match bin {
            Bin::Add => x + y,
            Bin::Sub => x - y,
            Bin::Mul => x * y,
            Bin::Div => x / y,
            Bin::Max => fmax(x, y),
            Bin::Min => fmin(x, y),
            Bin::Expdif => (x - y).exp(),
        })
    } else {
        let (kx, ky) = (int_key(x, dt), int_key(y, dt));
        let (x, y) = (x.i(), y.i());
        match bin {
            Bin::Add => Num::I(x.wrapping_add(y)),
            Bin::Sub => Num::I(x.wrapping_sub(y)),
            Bin::Mul => Num::I(x.wrapping_mul(y)),
            Bin::Div if y == 0 => Num::I(0),
            Bin::Div if dt == DType::U64 => Num::I(((x as u64) / (y as u64)) as i64),
            Bin::Div => Num::I(x.wrapping_div(y)),
            Bin::Max => Num::I(if kx >= ky { x } else { y }),
            Bin::Min => Num::I(if kx <= ky { x } else { y }),
            Bin::Expdif => Num::F(((x as f64) - (y as f64)).exp()),
        }
    }
}

/// How an operand is indexed for destination element (i, j).
struct Map {
    /// Row modulus (None: identity).
    rmod: Option<i64>,
    /// Column modulus (None: identity).
    cmod: Option<i64>,
}

impl Map {
    fn at(&self, i: i64, j: i64) -> (i64, i64) {
        (
            self.rmod.map_or(i, |m| i % m),
            self.cmod.map_or(j, |m| j % m),
        )
    }
}

fn index_map(
    call: &TileCall,
    t: &Tile,
    dst: &Tile,
    by_row: bool,
    what: &str,
) -> Result<Map, Fault> {
    check_valid(call, t, what)?;
    if dst.v_row == 0 || dst.v_col == 0 {
        return Ok(Map {
            rmod: None,
            cmod: None,
        });
    }
    let block = (32 / t.elem.bytes().max(1)) as i64;
    let bad = || {
        fault(format!(
            "{}: {what} valid region {}x{} neither covers the destination's {}x{} nor is a {} broadcast operand",
            short(call),
            t.v_row,
            t.v_col,
            dst.v_row,
            dst.v_col,
            if by_row { "per-row" } else { "per-column" }
        ))
    };
    if by_row {
        if t.v_row < dst.v_row {
            return bad();
        }
        if t.v_col >= dst.v_col {
            Ok(Map {
                rmod: None,
                cmod: None,
            })
        } else if t.v_col == 1 || t.v_col == block {
            Ok(Map {
                rmod: None,
                cmod: Some(t.v_col),
            })
        } else {
            bad()
        }
    } else {
        if t.v_col < dst.v_col {
            return bad();
        }
        if t.v_row >= dst.v_row {
            Ok(Map {
                rmod: None,
                cmod: None,
            })
        } else if t.v_row == 1 {
            Ok(Map {
                rmod: Some(1),
                cmod: None,
            })
        } else {
            bad()
        }
    }
}

/// `trowexpand` (dst[i][j] = src[i][0]) and `tcolexpand` (dst[i][j] = src[0][j]).
fn plain(
    call: &TileCall,
    local: &mut Local,
    acc: &mut Accesses,
    by_row: bool,
) -> Result<(), Fault> {
    let src = in_tile(call, 0, "source")?;
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, src, "source")?;
    check_valid(call, dst, "destination")?;
    if dst.v_row == 0 || dst.v_col == 0 {
        return Ok(());
    }
    let (need_r, need_c) = if by_row {
        (dst.v_row, 1)
    } else {
        (1, dst.v_col)
    };
    if src.v_row < need_r || src.v_col < need_c {
        return fault(format!(
            "{}: the source valid region {}x{} does not provide the {}x{} values the destination needs",
            short(call),
            src.v_row,
            src.v_col,
            need_r,
            need_c
        ));
    }
    let n = if by_row { dst.v_row } else { dst.v_col };
    let mut line = Vec::with_capacity(n as usize);
    for k in 0..n {
        let (r, c) = if by_row { (k, 0) } else { (0, k) };
        line.push(get(local, src, r, c, acc)?);
    }
    for i in 0..dst.v_row {
        for j in 0..dst.v_col {
            let v = line[if by_row { i } else { j } as usize];
            put(local, dst, i, j, v, acc)?;
        }
    }
    Ok(())
}
