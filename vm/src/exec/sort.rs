//! Sorting: `tsort32` (sort 32-element blocks, attaching indices) and
//! `tmrgsort` (merge sorted lists of value-index pairs).
//!
//! Both use the 8-byte value-index structure of the hardware sorter: the value
//! in the first element, the `u32` index in the last 4 bytes, zero in between
//! (f32/i32: 2 elements per structure; f16/bf16/i16: 4 elements). Order is
//! descending by value; `tsort32` breaks ties by the smaller index, `tmrgsort` by
//! the earlier list. NaN compares as larger than every number (and equal to
//! another NaN).
//!
//! * `tsort32 ins(%src, %idx [, %tmp]) outs(%dst)`: each row of the source's
//!   valid region is cut into blocks of 32 elements; each block is sorted with
//!   its `idx` values (ui32) and written as structures from `dst` column
//!   `block * 32 * (8 / elem size)`. Without `tmp` the valid column count must be
//!   a multiple of 32; with `tmp` a last partial block is sorted on its own
//!   (the hardware pads it with -inf, which sorts last and is not written).
//! * `tmrgsort ins(%src, %blockLen) outs(%dst)`: the source's valid columns are
//!   groups of 4 consecutive sorted blocks of `blockLen` elements (structures
//!   included); each group is merged into the same columns of `dst`.
//!   `blockLen` must be a multiple of 64 and the valid columns a multiple of
//!   `4 * blockLen`.
//! * `tmrgsort ins(%src0, %src1 [, %src2, %src3], %tmp {exhausted}) outs(%dst, %executed)`
//!   (`no_tmp` instead of `%tmp` is accepted): merges 2-4 sorted lists (each its
//!   valid columns of structures) into `dst` until `dst`'s valid columns are full
//!   or every list is consumed; with `exhausted = true` it stops as soon as one
//!   list is consumed. `tmp` is not written and the `executed` counts (a value,
//!   not memory) are not produced.

use std::cmp::Ordering;

use pto_isa_spec::{DType, Opcode};

use crate::exec::gen::attr_int;
use crate::exec::tile_ops::{
    attr_sym, check_valid, get, get_bits, in_scalars, in_tile, in_tiles, out_tile, put, put_bits,
    short, TileCall,
};
use crate::exec::{fault, Accesses, Fault};
use crate::mem::Local;
use crate::num::Num;
use crate::value::Tile;

/// Executes a sort.
pub fn run(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    match call.op {
        Opcode::TSort32 => sort32(call, local, acc),
        Opcode::TMrgSort => mrgsort(call, local, acc),
        _ => fault(format!("{} is not a sort", call.op.name())),
    }
}

/// Descending comparison of two values (NaN largest); `Less` means `a` goes first.
fn desc(a: Num, b: Num) -> Ordering {
    match (a, b) {
        (Num::F(x), Num::F(y)) => match (x.is_nan(), y.is_nan()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            _ => y.partial_cmp(&x).unwrap_or(Ordering::Equal),
        },
        _ => b.i().cmp(&a.i()),
    }
}

/// Elements per 8-byte structure.
fn per_struct(call: &TileCall, dt: DType) -> Result<i64, Fault> {
    match dt {
        DType::F32 | DType::I32 => Ok(2),
        DType::F16 | DType::BF16 | DType::I16 => Ok(4),
        other => fault(format!(
            "{}: element type {other} is not sortable (f32, f16, bf16, i32, i16)",
            short(call)
        )),
    }
}

fn check_row_major(call: &TileCall, t: &Tile, what: &str) -> Result<(), Fault> {
    if t.blayout != pto_asm::ty::BLayout::RowMajor {
        return fault(format!("{}: the {what} must be row-major", short(call)));
    }
    Ok(())
}

/// Writes a (value, index) structure at row `r`, column `c0` of `dst`.
#[allow(clippy::too_many_arguments)]
fn put_struct(
    local: &mut Local,
    dst: &Tile,
    per: i64,
    r: i64,
    c0: i64,
    v: Num,
    idx: u32,
    acc: &mut Accesses,
) -> Result<(), Fault> {
    put(local, dst, r, c0, v, acc)?;
    let n_idx = per / 2; // elements holding the index
    for k in 1..per - n_idx {
        put_bits(local, dst, r, c0 + k, 0, acc)?;
    }
    let bits = 32 / n_idx as u32;
    for k in 0..n_idx {
        let part = (idx as u64 >> (k as u32 * bits)) & ((1u64 << bits) - 1);
        put_bits(local, dst, r, c0 + per - n_idx + k, part, acc)?;
    }
    Ok(())
}

fn sort32(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let src = in_tile(call, 0, "source")?;
    let idx = in_tile(call, 1, "index tile")?;
    let has_tmp = in_tiles(call).len() > 2;
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, src, "source")?;
    check_valid(call, idx, "index tile")?;
    if dst.elem != src.elem {
        return fault(format!(
            "tsort32: source ({}) and destination ({}) element types differ",
            src.elem, dst.elem
        ));
    }
    if idx.elem != DType::U32 {
        return fault(format!(
            "tsort32: the index tile must be ui32, found {}",
            idx.elem
        ));
    }
    for (t, w) in [(src, "source"), (idx, "index tile"), (dst, "destination")] {
        check_row_major(call, t, w)?;
    }
    let per = per_struct(call, src.elem)?;
    if idx.v_row < src.v_row || idx.v_col < src.v_col {
        return fault(format!(
            "tsort32: the index tile's valid region {}x{} is smaller than the source's {}x{}",
            idx.v_row, idx.v_col, src.v_row, src.v_col
        ));
    }
    if !has_tmp && src.v_col % 32 != 0 {
        return fault(format!(
            "tsort32: {} valid columns are not a multiple of 32 (a partial last block needs the tmp operand)",
            src.v_col
        ));
    }
    for r in 0..src.v_row {
        let mut j = 0;
        while j < src.v_col {
            let n = (src.v_col - j).min(32);
            let mut block = Vec::with_capacity(n as usize);
            for k in 0..n {
                let v = get(local, src, r, j + k, acc)?;
                let i = get(local, idx, r, j + k, acc)?.i() as u32;
                block.push((v, i));
            }
            block.sort_by(|a, b| desc(a.0, b.0).then(a.1.cmp(&b.1)));
            for (k, (v, i)) in block.into_iter().enumerate() {
                put_struct(local, dst, per, r, (j + k as i64) * per, v, i, acc)?;
            }
            j += 32;
        }
    }
    Ok(())
}

/// Copies structure `k` of `src` row 0 to structure `o` of `dst` row 0.
fn copy_struct(
    local: &mut Local,
    src: &Tile,
    sc: i64,
    dst: &Tile,
    dc: i64,
    per: i64,
    acc: &mut Accesses,
) -> Result<(), Fault> {
    for e in 0..per {
        let b = get_bits(local, src, 0, sc + e, acc)?;
        put_bits(local, dst, 0, dc + e, b, acc)?;
    }
    Ok(())
}

fn mrgsort(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let tiles = in_tiles(call);
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, dst, "destination")?;
    let per = per_struct(call, dst.elem)?;
    for t in tiles.iter().copied().chain([dst]) {
        check_valid(call, t, "operand")?;
        check_row_major(call, t, "operand")?;
        if t.elem != dst.elem {
            return fault(format!(
                "tmrgsort: operand element types differ ({} and {})",
                t.elem, dst.elem
            ));
        }
    }
    if tiles.len() == 1 {
        let Some(bl) = in_scalars(call).first().map(|n| n.i()) else {
            return fault("tmrgsort: the single-list form needs a blockLen operand");
        };
        return single(local, tiles[0], dst, bl, per, acc);
    }
    let no_tmp = attr_sym(call, &["no_tmp"]).is_some();
    let lists: &[&Tile] = if no_tmp {
        &tiles
    } else {
        &tiles[..tiles.len() - 1]
    };
    if !(2..=4).contains(&lists.len()) {
        return fault(format!(
            "tmrgsort: merges 2 to 4 lists, found {} (plus {})",
            lists.len(),
            if no_tmp { "no tmp" } else { "a tmp tile" }
        ));
    }
    let exhausted = attr_int(call, "exhausted")?.unwrap_or(0) != 0;
    let sizes: Vec<i64> = lists.iter().map(|t| t.v_col / per).collect();
    let mut pos = vec![0i64; lists.len()];
    let out_n = dst.v_col / per;
    let mut out = 0;
    while out < out_n {
        let mut pick: Option<(usize, Num)> = None;
        for (l, t) in lists.iter().enumerate() {
            if pos[l] >= sizes[l] {
                continue;
            }
            let v = get(local, t, 0, pos[l] * per, acc)?;
            if pick.is_none_or(|(_, best)| desc(v, best) == Ordering::Less) {
                pick = Some((l, v));
            }
        }
        let Some((l, _)) = pick else { break };
        copy_struct(local, lists[l], pos[l] * per, dst, out * per, per, acc)?;
        pos[l] += 1;
        out += 1;
        if exhausted && pos.iter().zip(&sizes).any(|(p, s)| p == s) {
            break;
        }
    }
    Ok(())
}

fn single(
    local: &mut Local,
    src: &Tile,
    dst: &Tile,
    bl: i64,
    per: i64,
    acc: &mut Accesses,
) -> Result<(), Fault> {
    if bl <= 0 || bl % 64 != 0 {
        return fault(format!(
            "tmrgsort: blockLen {bl} must be a positive multiple of 64"
        ));
    }
    let group = 4 * bl;
    if src.v_col % group != 0 || src.v_col == 0 {
        return fault(format!(
            "tmrgsort: the source's {} valid columns are not a multiple of 4 * blockLen = {group}",
            src.v_col
        ));
    }
    if dst.v_col < src.v_col {
        return fault(format!(
            "tmrgsort: the destination's {} valid columns cannot hold the source's {}",
            dst.v_col, src.v_col
        ));
    }
    let n = bl / per;
    let mut base = 0;
    while base + group <= src.v_col {
        // read the whole group first: the destination may be the source
        let mut blocks: Vec<Vec<(Num, Vec<u64>)>> = Vec::with_capacity(4);
        for b in 0..4 {
            let mut v = Vec::with_capacity(n as usize);
            for k in 0..n {
                let c = base + b * bl + k * per;
                let key = get(local, src, 0, c, acc)?;
                let mut bits = Vec::with_capacity(per as usize);
                for e in 0..per {
                    bits.push(get_bits(local, src, 0, c + e, acc)?);
                }
                v.push((key, bits));
            }
            blocks.push(v);
        }
        let mut pos = [0usize; 4];
        for out in 0..4 * n {
            let mut pick: Option<(usize, Num)> = None;
            for (b, p) in pos.iter().enumerate() {
                let Some((v, _)) = blocks[b].get(*p) else {
                    continue;
                };
                if pick.is_none_or(|(_, best)| desc(*v, best) == Ordering::Less) {
                    pick = Some((b, *v));
                }
            }
            let Some((b, _)) = pick else { break };
            for (e, bits) in blocks[b][pos[b]].1.iter().enumerate() {
                put_bits(local, dst, 0, base + out * per + e as i64, *bits, acc)?;
            }
            pos[b] += 1;
        }
        base += group;
    }
    Ok(())
}
