//! Layout and rearrangement: `tmov` (role/layout moves and vec->vec copies,
//! converting the element type when source and destination differ),
//! `textract` (sub-tile at a row/column offset), `tinsert` (write a sub-tile at
//! an offset), `ttrans`, `tfillpad` (and its in-place / expand forms),
//! `tconcat`, `tconcatidx` (per-row column counts: row `r` takes
//! `idx0[r, 0] / size(idx)` columns of `src0` then `idx1[r, 0] / size(idx)` of
//! `src1`, the index tiles holding byte counts; the rest of the row is left
//! as it was. The manual has no page for it: this is what the CPU simulator
//! and the A5 implementation agree on), `tinterleave` (row `i` of `src0` and
//! `src1` zipped into a stream of `2 * C` elements, whose first half goes to
//! `dst0` and second half to `dst1`) and `tdeinterleave` (the inverse: the
//! rows of `src0` then `src1` form the stream, even elements go to `dst0`, odd
//! to `dst1`; a single source holds the whole stream), `C` being `dst0`'s valid
//! columns.
//!
//! Every element goes through the layout module on both sides, so a move
//! between, say, a row-major L1 tile and an NZ left tile is a plain copy of
//! coordinates. Sources are read completely before the destination is written,
//! so overlapping operands behave as if the copy went through a buffer.

use pto_isa_spec::Opcode;

use crate::exec::tile_ops::{
    check_covers, check_valid, get, in_scalars, in_tile, out_tile, pad_value, put, short, TileCall,
};
use crate::exec::{fault, Accesses, Fault};
use crate::mem::Local;
use crate::num::Num;
use crate::value::Tile;

/// Executes a layout op.
pub fn run(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    use Opcode as O;
    match call.op {
        O::TMov => mov(call, local, acc),
        O::TExtract => extract(call, local, acc),
        O::TInsert => insert(call, local, acc),
        O::TTrans => trans(call, local, acc),
        O::TFillPad | O::TFillPadInplace | O::TFillPadExpand => fillpad(call, local, acc),
        O::TConcat => concat(call, local, acc),
        O::TConcatIdx => concat_idx(call, local, acc),
        O::TInterleave | O::TDeinterleave => interleave(call, local, acc),
        O::TPack => pack(call, local, acc),
        _ => fault(format!("{} is not a layout op", call.op.name())),
    }
}

/// Writes `vals` (row-major, `rows` x `cols`) into `dst` at (r0, c0).
fn write_block(
    local: &mut Local,
    dst: &Tile,
    (r0, c0): (i64, i64),
    (rows, cols): (i64, i64),
    vals: &[Num],
    acc: &mut Accesses,
) -> Result<(), Fault> {
    for r in 0..rows {
        for c in 0..cols {
            if let Some(v) = vals.get((r * cols + c) as usize) {
                put(local, dst, r0 + r, c0 + c, *v, acc)?;
            }
        }
    }
    Ok(())
}

/// Reads `rows` x `cols` of `src` from (r0, c0), row-major.
fn read_block(
    local: &Local,
    src: &Tile,
    r0: i64,
    c0: i64,
    rows: i64,
    cols: i64,
    acc: &mut Accesses,
) -> Result<Vec<Num>, Fault> {
    let mut v = Vec::with_capacity((rows * cols).max(0) as usize);
    for r in 0..rows {
        for c in 0..cols {
            v.push(get(local, src, r0 + r, c0 + c, acc)?);
        }
    }
    Ok(v)
}

fn no_extras(call: &TileCall, allowed_scalars: usize) -> Result<(), Fault> {
    let n = in_scalars(call).len();
    if n > allowed_scalars {
        return fault(format!(
            "{}: quantization / extra scalar operands are not supported by ptovm yet",
            short(call)
        ));
    }
    Ok(())
}

/// Element type conversions a move may do (same type, or float <-> float /
/// int -> float / float -> int as a value conversion).
fn mov(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    // from an acc tile a scalar operand is the FIXPIPE pre-quantization word
    // (pto-isa's A2/A3 and A5 `TMOV(dst, src, preQuantScalar)` load it with
    // `set_quant_pre` and pick the scalar mode from the type pair, exactly as
    // `TSTORE(dst, src, preQuantScalar)` does)
    let word = match crate::exec::tile_ops::in_tiles(call).first() {
        Some(s) if s.loc == pto_asm::ty::TileLoc::Acc => {
            no_extras(call, 1)?;
            in_scalars(call).first().map(|w| w.i() as u64)
        }
        _ => {
            no_extras(call, 0)?;
            None
        }
    };
    if let Some(w) = word {
        return mov_quant(call, w, local, acc);
    }
    let tiles = crate::exec::tile_ops::in_tiles(call);
    if tiles.len() == 2 && tiles[1].loc != pto_asm::ty::TileLoc::Scaling {
        // a non-scaling third tile is the X -> ZZ exponent repack's scratch
        return crate::exec::mx_zz::run(call, local, acc);
    }
    if tiles.len() > 1 {
        return fault(format!(
            "{}: vector quantization operands are not supported by ptovm yet",
            short(call)
        ));
    }
    let src = in_tile(call, 0, "source")?;
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, dst, "destination")?;
    check_covers(call, src, dst.v_row, dst.v_col, "source")?;
    let relu = crate::exec::tile_ops::attr_sym(call, &["relu", "relu_mode", "reluMode"])
        .is_some_and(|s| s != "0" && s != "NORELU" && s != "NO_RELU" && s != "FALSE");
    if !relu && src.elem == dst.elem && copy_same_type(local, src, dst, acc) {
        return Ok(());
    }
    let mut vals = read_block(local, src, 0, 0, dst.v_row, dst.v_col, acc)?;
    if relu {
        for v in &mut vals {
            *v = match *v {
                Num::F(x) if x < 0.0 => Num::F(0.0),
                Num::I(x) if x < 0 => Num::I(0),
                o => o,
            };
        }
    }
    write_block(local, dst, (0, 0), (dst.v_row, dst.v_col), &vals, acc)
}

/// `tmov ins(%acc, %word : ..., i64) outs(%dst)`: the acc elements through
/// the scalar quant mode of the (acc, destination) type pair, ReLU from
/// `reluPreMode` (see [`crate::exec::fixpipe_quant`]).
fn mov_quant(
    call: &TileCall,
    word: u64,
    local: &mut Local,
    acc: &mut Accesses,
) -> Result<(), Fault> {
    if crate::exec::tile_ops::in_tiles(call).len() > 1 {
        return fault(format!(
            "{}: a quantization word and a scaling tile cannot be combined",
            short(call)
        ));
    }
    if let Some(m) = crate::exec::tile_ops::attr_sym(call, &["accToVecMode", "acc_to_vec_mode"]) {
        if m.contains("DUAL") {
            return fault(format!(
                "{}: a quantization word is not allowed with accToVecMode {m} (pto-isa: quant is not supported in dual destination mode)",
                short(call)
            ));
        }
    }
    let src = in_tile(call, 0, "source")?;
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, dst, "destination")?;
    check_covers(call, src, dst.v_row, dst.v_col, "source")?;
    let conv = crate::exec::fixpipe_quant::Conv::new(call, src.elem, dst.elem, Some(word))?;
    let mut vals = read_block(local, src, 0, 0, dst.v_row, dst.v_col, acc)?;
    for v in &mut vals {
        *v = conv.apply(*v);
    }
    write_block(local, dst, (0, 0), (dst.v_row, dst.v_col), &vals, acc)
}

/// A same-type `tmov` of `dst`'s valid region as a copy of element bytes
/// through the layouts' offset tables (what the hardware move does; the
/// element-by-element path converts through `Num`). Returns false, having
/// done nothing, when some element would lie outside either tile's storage
/// or the tiles outside their memories: the element path then reports it.
fn copy_same_type(local: &mut Local, src: &Tile, dst: &Tile, acc: &mut Accesses) -> bool {
    use crate::layout::{col_offsets, row_offsets};
    let (rows, cols) = (dst.v_row, dst.v_col);
    if rows <= 0 || cols <= 0 || rows > src.rows || cols > src.cols {
        return false;
    }
    let es = src.elem.bytes();
    let (srt, sct) = (row_offsets(src, rows), col_offsets(src, cols));
    let (drt, dct) = (row_offsets(dst, rows), col_offsets(dst, cols));
    let fits = |rt: &[i64], ct: &[i64], t: &Tile| {
        let lo = rt.iter().min().copied().unwrap_or(0) + ct.iter().min().copied().unwrap_or(0);
        let hi = rt.iter().max().copied().unwrap_or(0) + ct.iter().max().copied().unwrap_or(0);
        lo >= 0 && ((hi + 1) as u64).saturating_mul(es as u64) <= t.bytes()
    };
    if !fits(&srt, &sct, src) || !fits(&drt, &dct, dst) {
        return false;
    }
    let sspace = crate::exec::tile_ops::space(src);
    let dspace = crate::exec::tile_ops::space(dst);
    let mut buf = vec![0u8; (rows * cols) as usize * es];
    {
        let Ok(store) = local.slice(sspace, src.addr, src.bytes()) else {
            return false;
        };
        gather(store, &srt, &sct, &mut buf, es);
    }
    let Ok(store) = local.slice_mut(dspace, dst.addr, dst.bytes()) else {
        return false;
    };
    scatter(store, &drt, &dct, &buf, es);
    crate::exec::tile::record(acc, src, rows, cols, false);
    crate::exec::tile::record(acc, dst, rows, cols, true);
    true
}

/// The stretches of consecutive offsets in a column offset table: (first
/// column, its offset, columns).
fn col_runs(ct: &[i64]) -> Vec<(usize, i64, usize)> {
    let mut runs: Vec<(usize, i64, usize)> = Vec::new();
    for (c, &o) in ct.iter().enumerate() {
        match runs.last_mut() {
            Some((_, start, n)) if *start + *n as i64 == o => *n += 1,
            _ => runs.push((c, o, 1)),
        }
    }
    runs
}

/// Copies elements of `es` bytes from tile storage `store` (at offsets
/// `rt[r] + ct[c]`, in elements) into the packed row-major `buf`.
fn gather(store: &[u8], rt: &[i64], ct: &[i64], buf: &mut [u8], es: usize) {
    let runs = col_runs(ct);
    if runs.len() * 4 <= ct.len() {
        // long runs of consecutive offsets (box rows): one copy each
        let row = ct.len() * es;
        for (r, &ro) in rt.iter().enumerate() {
            for &(c, co, n) in &runs {
                let (b, at) = ((ro + co) as usize * es, r * row + c * es);
                buf[at..at + n * es].copy_from_slice(&store[b..b + n * es]);
            }
        }
        return;
    }
    fn each<const N: usize>(store: &[u8], rt: &[i64], ct: &[i64], buf: &mut [u8], es: usize) {
        // a fixed N is a register move per element, not a call
        let n = if N == 0 { es } else { N };
        let mut at = 0;
        for &ro in rt {
            for &co in ct {
                let b = (ro + co) as usize * n;
                buf[at..at + n].copy_from_slice(&store[b..b + n]);
                at += n;
            }
        }
    }
    match es {
        1 => each::<1>(store, rt, ct, buf, es),
        2 => each::<2>(store, rt, ct, buf, es),
        4 => each::<4>(store, rt, ct, buf, es),
        8 => each::<8>(store, rt, ct, buf, es),
        _ => each::<0>(store, rt, ct, buf, es),
    }
}

/// The inverse of [`gather`]: the packed `buf` into tile storage `store`.
fn scatter(store: &mut [u8], rt: &[i64], ct: &[i64], buf: &[u8], es: usize) {
    let runs = col_runs(ct);
    if runs.len() * 4 <= ct.len() {
        let row = ct.len() * es;
        for (r, &ro) in rt.iter().enumerate() {
            for &(c, co, n) in &runs {
                let (b, at) = ((ro + co) as usize * es, r * row + c * es);
                store[b..b + n * es].copy_from_slice(&buf[at..at + n * es]);
            }
        }
        return;
    }
    fn each<const N: usize>(store: &mut [u8], rt: &[i64], ct: &[i64], buf: &[u8], es: usize) {
        let n = if N == 0 { es } else { N };
        let mut at = 0;
        for &ro in rt {
            for &co in ct {
                let b = (ro + co) as usize * n;
                store[b..b + n].copy_from_slice(&buf[at..at + n]);
                at += n;
            }
        }
    }
    match es {
        1 => each::<1>(store, rt, ct, buf, es),
        2 => each::<2>(store, rt, ct, buf, es),
        4 => each::<4>(store, rt, ct, buf, es),
        8 => each::<8>(store, rt, ct, buf, es),
        _ => each::<0>(store, rt, ct, buf, es),
    }
}

fn offsets(call: &TileCall) -> Result<(i64, i64), Fault> {
    let s = in_scalars(call);
    match (s.first(), s.get(1)) {
        (Some(r), Some(c)) => Ok((r.i(), c.i())),
        _ => fault(format!(
            "{}: needs row and column offset operands",
            short(call)
        )),
    }
}

/// Whether `at + len` (a window's end along one dim) passes `lim`; an end
/// past i64 does too (kernel offsets such as i64::MAX must fault, not
/// overflow).
fn past(at: i64, len: i64, lim: i64) -> bool {
    at.checked_add(len).is_none_or(|end| end > lim)
}

/// `textract`: dst[i][j] = src[row + i][col + j] over dst's valid region.
fn extract(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let src = in_tile(call, 0, "source")?;
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, src, "source")?;
    check_valid(call, dst, "destination")?;
    // from an acc tile through the FIXPIPE: a quant word after (row, col)
    // and reluPreMode
    let fix = if src.loc == pto_asm::ty::TileLoc::Acc {
        let word = in_scalars(call).get(2).map(|w| w.i() as u64);
        Some(crate::exec::fixpipe_quant::Conv::new(
            call, src.elem, dst.elem, word,
        )?)
    } else {
        no_extras(call, 2)?;
        None
    };
    let (r0, c0) = offsets(call)?;
    if r0 < 0 || c0 < 0 || past(r0, dst.v_row, src.rows) || past(c0, dst.v_col, src.cols) {
        return fault(format!(
            "{}: a {}x{} window at ({r0}, {c0}) is outside the {}x{} source tile",
            short(call),
            dst.v_row,
            dst.v_col,
            src.rows,
            src.cols
        ));
    }
    let mut vals = read_block(local, src, r0, c0, dst.v_row, dst.v_col, acc)?;
    if let Some(conv) = fix {
        for v in &mut vals {
            *v = conv.apply(*v);
        }
    }
    write_block(local, dst, (0, 0), (dst.v_row, dst.v_col), &vals, acc)
}

/// `tinsert`: dst[row + i][col + j] = src[i][j] over src's valid region.
fn insert(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let src = in_tile(call, 0, "source")?;
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, src, "source")?;
    check_valid(call, dst, "destination")?;
    no_extras(call, 3)?;
    let (r0, c0) = offsets(call)?;
    if r0 < 0 || c0 < 0 || past(r0, src.v_row, dst.rows) || past(c0, src.v_col, dst.cols) {
        return fault(format!(
            "{}: a {}x{} block at ({r0}, {c0}) does not fit the {}x{} destination tile",
            short(call),
            src.v_row,
            src.v_col,
            dst.rows,
            dst.cols
        ));
    }
    let vals = read_block(local, src, 0, 0, src.v_row, src.v_col, acc)?;
    write_block(local, dst, (r0, c0), (src.v_row, src.v_col), &vals, acc)
}

/// `ttrans`: dst[i][j] = src[j][i].
fn trans(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let src = in_tile(call, 0, "source")?;
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, dst, "destination")?;
    check_covers(call, src, dst.v_col, dst.v_row, "source")?;
    let vals = read_block(local, src, 0, 0, dst.v_col, dst.v_row, acc)?;
    // vals is dst.v_col x dst.v_row, row-major: element (j, i) of the source
    let sc = dst.v_row;
    for i in 0..dst.v_row {
        for j in 0..dst.v_col {
            if let Some(v) = vals.get((j * sc + i) as usize) {
                put(local, dst, i, j, *v, acc)?;
            }
        }
    }
    Ok(())
}

/// `tfillpad`: copy src's valid region, fill the rest of dst (its whole
/// storage) with dst's pad value.
fn fillpad(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let src = in_tile(call, 0, "source")?;
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, src, "source")?;
    check_valid(call, dst, "destination")?;
    if src.v_row > dst.rows || src.v_col > dst.cols {
        return fault(format!(
            "{}: the source valid region {}x{} does not fit the {}x{} destination",
            short(call),
            src.v_row,
            src.v_col,
            dst.rows,
            dst.cols
        ));
    }
    let vals = read_block(local, src, 0, 0, src.v_row, src.v_col, acc)?;
    let pad = pad_value(dst);
    for r in 0..dst.rows {
        for c in 0..dst.cols {
            let v = if r < src.v_row && c < src.v_col {
                vals[(r * src.v_col + c) as usize]
            } else {
                pad
            };
            put(local, dst, r, c, v, acc)?;
        }
    }
    Ok(())
}

/// `tpack` (A5): every element of the destination's valid region is the
/// source element at the same (row, column) cast to the destination type, C
/// style: integers keep their low bits (sign or zero extended when wider),
/// floats round to nearest even, float -> integer truncates toward zero.
/// PTOAS admits only the narrowing pairs (4 -> 2, 4 -> 1, 2 -> 1 bytes) on
/// row-major vec tiles of one valid shape; the CPU simulator's cast also
/// widens, so no pair is refused here.
fn pack(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let src = in_tile(call, 0, "source")?;
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, dst, "destination")?;
    check_covers(call, src, dst.v_row, dst.v_col, "source")?;
    let vals = read_block(local, src, 0, 0, dst.v_row, dst.v_col, acc)?;
    let vals: Vec<Num> = vals
        .into_iter()
        .map(|v| match v {
            Num::F(f) if !dst.elem.is_float() => Num::I(if f.is_nan() { 0 } else { f as i64 }),
            o => o,
        })
        .collect();
    write_block(local, dst, (0, 0), (dst.v_row, dst.v_col), &vals, acc)
}

/// `tconcat`: dst row i = src0 row i (its valid columns) then src1 row i.
fn concat(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let a = in_tile(call, 0, "first source")?;
    let b = in_tile(call, 1, "second source")?;
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, dst, "destination")?;
    check_covers(call, a, dst.v_row, 0, "first source")?;
    check_covers(call, b, dst.v_row, 0, "second source")?;
    let total = a.v_col + b.v_col;
    if total > dst.cols {
        return fault(format!(
            "{}: {} + {} columns do not fit the {}-column destination",
            short(call),
            a.v_col,
            b.v_col,
            dst.cols
        ));
    }
    let va = read_block(local, a, 0, 0, dst.v_row, a.v_col, acc)?;
    let vb = read_block(local, b, 0, 0, dst.v_row, b.v_col, acc)?;
    write_block(local, dst, (0, 0), (dst.v_row, a.v_col), &va, acc)?;
    write_block(local, dst, (0, a.v_col), (dst.v_row, b.v_col), &vb, acc)
}

fn concat_idx(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let a = in_tile(call, 0, "first source")?;
    let b = in_tile(call, 1, "second source")?;
    let ia = in_tile(call, 2, "first index tile")?;
    let ib = in_tile(call, 3, "second index tile")?;
    let dst = out_tile(call, 0, "destination")?;
    for (t, w) in [
        (a, "first source"),
        (b, "second source"),
        (ia, "first index tile"),
        (ib, "second index tile"),
        (dst, "destination"),
    ] {
        check_valid(call, t, w)?;
    }
    if a.elem != dst.elem || b.elem != dst.elem {
        return fault(format!(
            "tconcatidx: sources ({}, {}) and destination ({}) element types differ",
            a.elem, b.elem, dst.elem
        ));
    }
    if ia.elem != ib.elem || ia.elem.is_float() {
        return fault(format!(
            "tconcatidx: the index tiles must share one integer type, found {} and {}",
            ia.elem, ib.elem
        ));
    }
    let size = ia.elem.bytes() as i64;
    let mut rows = Vec::new();
    for r in 0..dst.v_row {
        let n0 = get(local, ia, r, 0, acc)?.i() / size;
        let n1 = get(local, ib, r, 0, acc)?.i() / size;
        if n0 < 0 || n1 < 0 || n0 > a.cols || n1 > b.cols || n0 + n1 > dst.cols {
            return fault(format!(
                "tconcatidx: row {r} takes {n0} + {n1} columns, which the {}-column sources or the {}-column destination cannot provide",
                a.cols.min(b.cols),
                dst.cols
            ));
        }
        let mut vals = read_block(local, a, r, 0, 1, n0, acc)?;
        vals.extend(read_block(local, b, r, 0, 1, n1, acc)?);
        rows.push((r, vals));
    }
    for (r, vals) in rows {
        let n = vals.len() as i64;
        write_block(local, dst, (r, 0), (1, n), &vals, acc)?;
    }
    Ok(())
}

fn interleave(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let inter = call.op == Opcode::TInterleave;
    let name = short(call);
    let d0 = out_tile(call, 0, "first destination")?;
    let d1 = out_tile(call, 1, "second destination")?;
    let srcs = crate::exec::tile_ops::in_tiles(call);
    for t in srcs.iter().copied().chain([d0, d1]) {
        check_valid(call, t, "operand")?;
        if t.elem.bytes() != d0.elem.bytes() {
            return fault(format!(
                "{name}: operand element types differ ({} and {})",
                t.elem, d0.elem
            ));
        }
    }
    let (rows, cols) = (d0.v_row, d0.v_col);
    if d1.v_row < rows || d1.v_col < cols {
        return fault(format!(
            "{name}: the second destination's valid region {}x{} is smaller than the first's {rows}x{cols}",
            d1.v_row, d1.v_col
        ));
    }
    let mut out = Vec::new();
    for r in 0..rows {
        // the 2 * cols stream of row r
        let stream: Vec<u64> = match (inter, srcs.as_slice()) {
            (_, [a, b]) => {
                check_covers(call, a, rows, cols, "first source")?;
                check_covers(call, b, rows, cols, "second source")?;
                let mut v = Vec::with_capacity(2 * cols as usize);
                for k in 0..cols {
                    if inter {
                        v.push(crate::exec::tile_ops::get_bits(local, a, r, k, acc)?);
                        v.push(crate::exec::tile_ops::get_bits(local, b, r, k, acc)?);
                    } else {
                        v.push(crate::exec::tile_ops::get_bits(local, a, r, k, acc)?);
                    }
                }
                if !inter {
                    for k in 0..cols {
                        v.push(crate::exec::tile_ops::get_bits(local, b, r, k, acc)?);
                    }
                }
                v
            }
            (false, [a]) => {
                check_covers(call, a, rows, 2 * cols, "source")?;
                (0..2 * cols)
                    .map(|k| crate::exec::tile_ops::get_bits(local, a, r, k, acc))
                    .collect::<Result<_, _>>()?
            }
            _ => {
                return fault(format!(
                    "{name}: expects {} source tiles, found {}",
                    if inter { "2" } else { "1 or 2" },
                    srcs.len()
                ))
            }
        };
        for k in 0..cols as usize {
            let (x, y) = if inter {
                (stream[k], stream[cols as usize + k])
            } else {
                (stream[2 * k], stream[2 * k + 1])
            };
            out.push((r, k as i64, x, y));
        }
    }
    for (r, k, x, y) in out {
        crate::exec::tile_ops::put_bits(local, d0, r, k, x, acc)?;
        crate::exec::tile_ops::put_bits(local, d1, r, k, y, acc)?;
    }
    Ok(())
}
