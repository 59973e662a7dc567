//! Gathers and scatters inside the tile buffer: `tgather` (by an index tile or a
//! mask pattern), `tscatter` (by an index tile or a mask pattern) and
//! `tgatherb` (32-byte blocks by byte offsets).
//!
//! * Index gather `tgather ins(%src, %idx [, %tmp]) outs(%dst)`: for every
//!   element of the destination's valid region, `dst[i, j] = src.flat[idx[i, j]]`
//!   where `flat` numbers the source's storage row-major (`k = r * cols + c`).
//!   The hardware leaves an out-of-range index undefined; ptovm faults.
//! * Mask gather `tgather ins(%src {maskPattern = P..} [, "row" | "col"]) outs(%dst)`:
//!   row axis (default): walking the source's valid region row by row, the
//!   columns the pattern selects are packed one after another into the
//!   destination's storage (row-major). Column axis: the selected rows are
//!   copied whole into consecutive destination rows. Elements are copied bit
//!   for bit (source and destination element sizes must agree).
//! * Compare gather `tgather ins(%src, %kValue [, %tmp]) outs(%dst, %cdst)
//!   {cmpMode = eq|gt, offset = N}`: for each valid row `r` of the source,
//!   the columns `c` whose element compares (`==` or `>`, in the source's
//!   type) with the scalar `kValue` are packed from column 0 of `dst` row `r`
//!   as indices `offset + r * src.cols + c` (the source's row-major storage
//!   position, as pto-isa's A2/A3 implementation numbers them), and element
//!   `r` of `cdst` (in its storage order) receives the row's count. `dst`
//!   columns past the count and `tmp` are not written. NaN never matches.
//! * Index scatter `tscatter ins(%src, %idx) outs(%dst)`: for every element of
//!   the index tile's valid region, `dst.flat[idx[i, j]] = src[i, j]` (later
//!   elements win); out-of-range indices fault.
//! * Mask scatter `tscatter ins(%src {maskPattern} [, "row" | "col"]) outs(%dst)`:
//!   the inverse of the mask gather over the destination's valid region; the
//!   lanes (or rows) the pattern does not select are written with zero.
//! * `tgatherb ins(%src, %off) outs(%dst)`: for row `r` and each 32-byte block
//!   `b` of the destination's valid columns, the 32 bytes at byte offset
//!   `off[r, b]` of the source tile are copied to that block.
//!
//! The mask patterns select lane `k` (column, or row on the column axis):
//! `P0101` even, `P1010` odd, `P0001`/`P0010`/`P0100`/`P1000` `k % 4 == 0/1/2/3`,
//! `P1111` all.

use pto_asm::ty::BLayout;
use pto_isa_spec::Opcode;

use crate::exec::tile_ops::{
    attr_sym, check_valid, get, get_bits, in_scalars, in_tile, out_tile, put, put_bits, short,
    TileCall,
};
use crate::exec::{fault, Accesses, Fault};
use crate::mem::Local;
use crate::num::Num;
use crate::value::{Space, Tile};

/// Executes a gather or scatter.
pub fn run(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    match call.op {
        Opcode::TGather if attr_sym(call, &["maskPattern"]).is_some() => {
            mask_gather(call, local, acc)
        }
        Opcode::TGather if call.outs.len() > 1 || !in_scalars(call).is_empty() => {
            compare_gather(call, local, acc)
        }
        Opcode::TGather => index_gather(call, local, acc),
        Opcode::TScatter if attr_sym(call, &["maskPattern"]).is_some() => {
            mask_scatter(call, local, acc)
        }
        Opcode::TScatter => index_scatter(call, local, acc),
        Opcode::TGatherb => gatherb(call, local, acc),
        _ => fault(format!("{} is not a gather or scatter", call.op.name())),
    }
}

/// Whether mask pattern `p` selects lane `k`.
fn selects(p: &str, k: i64) -> bool {
    match p {
        "P0101" => k % 2 == 0,
        "P1010" => k % 2 == 1,
        "P0001" => k % 4 == 0,
        "P0010" => k % 4 == 1,
        "P0100" => k % 4 == 2,
        "P1000" => k % 4 == 3,
        _ => true,
    }
}

fn pattern(call: &TileCall) -> Result<String, Fault> {
    let p = attr_sym(call, &["maskPattern"]).unwrap_or_default();
    let p = p
        .trim_start_matches("#PTO.MASK_PATTERN<")
        .trim_end_matches('>');
    match p {
        "P0101" | "P1010" | "P0001" | "P0010" | "P0100" | "P1000" | "P1111" => Ok(p.to_string()),
        other => fault(format!(
            "{}: unknown mask pattern {other} (expected P0101, P1010, P0001, P0010, P0100, P1000 or P1111)",
            short(call)
        )),
    }
}

/// `true` for the column axis (`"col"`), `false` for the row axis (default).
fn col_axis(call: &TileCall) -> Result<bool, Fault> {
    match attr_sym(call, &["axis"]).as_deref() {
        None | Some("ROW") => Ok(false),
        Some("COL") => Ok(true),
        Some(other) => fault(format!(
            "{}: the axis must be \"row\" or \"col\", found {other}",
            short(call)
        )),
    }
}

fn same_width(call: &TileCall, a: &Tile, b: &Tile) -> Result<(), Fault> {
    if a.elem.bytes() != b.elem.bytes() {
        return fault(format!(
            "{}: source ({}) and destination ({}) element sizes differ",
            short(call),
            a.elem,
            b.elem
        ));
    }
    Ok(())
}

fn flat_index(call: &TileCall, t: &Tile, k: Num, what: &str) -> Result<(i64, i64), Fault> {
    let k = k.i();
    let n = t.rows * t.cols;
    if k < 0 || k >= n {
        return fault(format!(
            "{}: index {k} is outside the {what} ({}x{} = {n} elements)",
            short(call),
            t.rows,
            t.cols
        ));
    }
    Ok((k / t.cols, k % t.cols))
}

fn index_gather(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let src = in_tile(call, 0, "source")?;
    let idx = in_tile(call, 1, "index tile")?;
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, dst, "destination")?;
    check_valid(call, idx, "index tile")?;
    if idx.elem.is_float() {
        return fault(format!(
            "tgather: the index tile must hold integers, found {}",
            idx.elem
        ));
    }
    if dst.elem != src.elem {
        return fault(format!(
            "tgather: source ({}) and destination ({}) element types differ",
            src.elem, dst.elem
        ));
    }
    if idx.rows < dst.v_row || idx.cols < dst.v_col {
        return fault(format!(
            "tgather: the {}x{} index tile does not cover the destination's {}x{} valid region",
            idx.rows, idx.cols, dst.v_row, dst.v_col
        ));
    }
    for i in 0..dst.v_row {
        for j in 0..dst.v_col {
            let k = get(local, idx, i, j, acc)?;
            let (r, c) = flat_index(call, src, k, "source")?;
            let bits = get_bits(local, src, r, c, acc)?;
            put_bits(local, dst, i, j, bits, acc)?;
        }
    }
    Ok(())
}

/// The compare form of `tgather` (pto-isa `TGATHER(dst, src, k, cdst, tmp,
/// offset)` with `CmpMode::EQ`/`GT`; PTOAS's `kValue` is one scalar of the
/// source's element type for every row).
fn compare_gather(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let src = in_tile(call, 0, "source")?;
    let dst = out_tile(call, 0, "destination")?;
    let cdst = out_tile(call, 1, "count destination (cdst)")?;
    check_valid(call, src, "source")?;
    let Some(k) = in_scalars(call).first().copied() else {
        return fault(format!(
            "{}: the compare form needs a scalar kValue operand",
            short(call)
        ));
    };
    for (t, what) in [(dst, "destination"), (cdst, "cdst")] {
        if !matches!(t.elem, pto_isa_spec::DType::I32 | pto_isa_spec::DType::U32) {
            return fault(format!(
                "{}: the compare form's {what} must hold i32 or ui32 indices, found {}",
                short(call),
                t.elem
            ));
        }
    }
    let gt = match attr_sym(call, &["cmpMode", "cmp_mode"]).as_deref() {
        None | Some("EQ") => false,
        Some("GT") => true,
        Some(other) => {
            return fault(format!(
                "{}: the compare form supports cmpMode eq or gt, found {other}",
                short(call)
            ))
        }
    };
    let offset = crate::exec::gen::attr_int(call, "offset")?.unwrap_or(0);
    if src.v_row > cdst.rows * cdst.cols {
        return fault(format!(
            "{}: cdst ({}x{}) has room for {} counts, the source has {} valid rows",
            short(call),
            cdst.rows,
            cdst.cols,
            cdst.rows * cdst.cols,
            src.v_row
        ));
    }
    if src.v_col > dst.cols || src.v_row > dst.rows {
        return fault(format!(
            "{}: the {}x{} destination cannot hold a {}x{} source's indices",
            short(call),
            dst.rows,
            dst.cols,
            src.v_row,
            src.v_col
        ));
    }
    // the key in the source's type (a scalar of another type converts)
    let key = if src.elem.is_float() {
        Num::F(k.f())
    } else {
        Num::I(k.i())
    };
    for r in 0..src.v_row {
        let mut n = 0i64;
        for c in 0..src.v_col {
            let v = get(local, src, r, c, acc)?;
            let hit = match (v, key) {
                (Num::F(x), Num::F(y)) => {
                    if gt {
                        x > y
                    } else {
                        x == y
                    }
                }
                (x, y) => {
                    if gt {
                        x.i() > y.i()
                    } else {
                        x.i() == y.i()
                    }
                }
            };
            if hit {
                put(local, dst, r, n, Num::I(offset + r * src.cols + c), acc)?;
                n += 1;
            }
        }
        // cdst element r in storage order
        let (cr, cc) = storage_pos(cdst, r);
        put(local, cdst, cr, cc, Num::I(n), acc)?;
    }
    Ok(())
}

/// The (row, column) of the `k`-th element of a tile's storage.
fn storage_pos(t: &Tile, k: i64) -> (i64, i64) {
    if t.blayout == BLayout::ColMajor {
        (k % t.rows, k / t.rows)
    } else {
        (k / t.cols, k % t.cols)
    }
}

fn mask_gather(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let src = in_tile(call, 0, "source")?;
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, src, "source")?;
    check_valid(call, dst, "destination")?;
    same_width(call, src, dst)?;
    let p = pattern(call)?;
    if col_axis(call)? {
        for (out, r) in (0..src.v_row).filter(|&r| selects(&p, r)).enumerate() {
            let out = out as i64;
            if out >= dst.rows {
                return fault(format!(
                    "tgather: the selected rows do not fit the destination's {} rows",
                    dst.rows
                ));
            }
            for c in 0..src.v_col {
                let bits = get_bits(local, src, r, c, acc)?;
                put_bits(local, dst, out, c, bits, acc)?;
            }
        }
    } else {
        let mut k = 0i64;
        for r in 0..src.v_row {
            for c in (0..src.v_col).filter(|&c| selects(&p, c)) {
                if k >= dst.rows * dst.cols {
                    return fault(format!(
                        "tgather: the selected elements do not fit the {}x{} destination",
                        dst.rows, dst.cols
                    ));
                }
                let bits = get_bits(local, src, r, c, acc)?;
                put_bits(local, dst, k / dst.cols, k % dst.cols, bits, acc)?;
                k += 1;
            }
        }
    }
    Ok(())
}

fn index_scatter(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let src = in_tile(call, 0, "source")?;
    let idx = in_tile(call, 1, "index tile")?;
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, idx, "index tile")?;
    if idx.elem.is_float() {
        return fault(format!(
            "tscatter: the index tile must hold integers, found {}",
            idx.elem
        ));
    }
    same_width(call, src, dst)?;
    if src.rows < idx.v_row || src.cols < idx.v_col {
        return fault(format!(
            "tscatter: the {}x{} source does not cover the index tile's {}x{} valid region",
            src.rows, src.cols, idx.v_row, idx.v_col
        ));
    }
    for i in 0..idx.v_row {
        for j in 0..idx.v_col {
            let k = get(local, idx, i, j, acc)?;
            let (r, c) = flat_index(call, dst, k, "destination")?;
            let bits = get_bits(local, src, i, j, acc)?;
            put_bits(local, dst, r, c, bits, acc)?;
        }
    }
    Ok(())
}

fn mask_scatter(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let src = in_tile(call, 0, "source")?;
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, src, "source")?;
    check_valid(call, dst, "destination")?;
    same_width(call, src, dst)?;
    let p = pattern(call)?;
    let zero = if dst.elem.is_float() {
        Num::F(0.0)
    } else {
        Num::I(0)
    };
    if col_axis(call)? {
        let mut s = 0;
        for r in 0..dst.v_row {
            let take = selects(&p, r);
            if take && s >= src.v_row {
                return fault(format!(
                    "tscatter: the pattern selects more rows than the source's {} valid rows",
                    src.v_row
                ));
            }
            for c in 0..dst.v_col {
                if take {
                    let bits = get_bits(local, src, s, c, acc)?;
                    put_bits(local, dst, r, c, bits, acc)?;
                } else {
                    put(local, dst, r, c, zero, acc)?;
                }
            }
            s += take as i64;
        }
    } else {
        let mut k = 0i64;
        for r in 0..dst.v_row {
            for c in 0..dst.v_col {
                if selects(&p, c) {
                    if k >= src.v_row * src.cols {
                        return fault(
                            "tscatter: the pattern selects more elements than the source holds",
                        );
                    }
                    let bits = get_bits(local, src, k / src.cols, k % src.cols, acc)?;
                    put_bits(local, dst, r, c, bits, acc)?;
                    k += 1;
                } else {
                    put(local, dst, r, c, zero, acc)?;
                }
            }
        }
    }
    Ok(())
}

const BLOCK: u64 = 32;

fn gatherb(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let src = in_tile(call, 0, "source")?;
    let off = in_tile(call, 1, "offset tile")?;
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, dst, "destination")?;
    if off.elem.is_float() {
        return fault(format!(
            "tgatherb: the offset tile must hold integers, found {}",
            off.elem
        ));
    }
    if dst.blayout != BLayout::RowMajor {
        return fault("tgatherb: the destination must be row-major");
    }
    let es = dst.elem.bytes() as u64;
    let row_bytes = dst.v_col as u64 * es;
    if !row_bytes.is_multiple_of(BLOCK) {
        return fault(format!(
            "tgatherb: the destination's valid row ({} bytes) is not a whole number of 32-byte blocks",
            row_bytes
        ));
    }
    let per = (BLOCK / es) as i64;
    let blocks = dst.v_col / per;
    let src_bytes = src.bytes();
    for r in 0..dst.v_row {
        for b in 0..blocks {
            let o = get(local, off, r, b, acc)?.i();
            if o < 0 || o as u64 + BLOCK > src_bytes {
                return fault(format!(
                    "tgatherb: byte offset {o} (row {r}, block {b}) reads outside the {src_bytes}-byte source tile"
                ));
            }
            let from = src.addr + o as u64;
            let sspace = Space::of_tile(src.loc);
            let mut buf = [0u8; BLOCK as usize];
            buf.copy_from_slice(local.slice(sspace, from, BLOCK)?);
            acc.add(sspace, from, BLOCK, false);
            let to = dst.elem_addr(r, b * per)?;
            let dspace = Space::of_tile(dst.loc);
            if to + BLOCK > dst.addr + dst.bytes() {
                return fault("tgatherb: a destination block falls outside the destination tile");
            }
            local.slice_mut(dspace, to, BLOCK)?.copy_from_slice(&buf);
            acc.add(dspace, to, BLOCK, true);
        }
    }
    Ok(())
}
