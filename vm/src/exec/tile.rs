//! Tile instructions of the VM subset: `tload`, `tstore`, elementwise tile-tile
//! and tile-scalar ops, `texpands`. The iteration domain is the destination's
//! valid region; floats are computed in f64 and rounded once to the destination
//! type (exact for +, -, *, /, sqrt of f32/f16/bf16).

use pto_isa_spec::DType;

use crate::exec::{fault, Accesses, Fault};
use crate::mem::{Gm, Local};
use crate::num::{read, write, Num};
use crate::program::{Combine, EwOp};
use crate::value::{Space, Tile, View};
use pto_asm::ty::TileLoc;

/// Applies a lane-wise op to one element. `b` is the second operand (tile or scalar).
pub fn ew(op: EwOp, a: Num, b: Num, dt: DType) -> Num {
    if dt.is_float() {
        let (x, y) = (a.f(), b.f());
        Num::F(match op {
            EwOp::Add => x + y,
            EwOp::Sub => x - y,
            EwOp::Mul => x * y,
            EwOp::Div => x / y,
            EwOp::Max => fmax(x, y),
            EwOp::Min => fmin(x, y),
            EwOp::Abs => x.abs(),
            EwOp::Neg => -x,
            EwOp::Exp => x.exp(),
            EwOp::Log => x.ln(),
            EwOp::Sqrt => x.sqrt(),
            EwOp::Rsqrt => 1.0 / x.sqrt(),
            EwOp::Recip => 1.0 / x,
            // NaN propagates
            EwOp::Relu => {
                if x > 0.0 || x.is_nan() {
                    x
                } else {
                    0.0
                }
            }
            // bitwise ops on floats act on the bits
            EwOp::And | EwOp::Or | EwOp::Xor | EwOp::Shl | EwOp::Shr | EwOp::Not => {
                return float_bits(op, a, b, dt)
            }
        })
    } else {
        let (x, y) = (a.i(), b.i());
        let bits = dt.bits();
        // u64 elements are held as their bits in an i64: divide and compare them unsigned
        let u64_elems = dt == DType::U64;
        Num::I(match op {
            EwOp::Add => x.wrapping_add(y),
            EwOp::Sub => x.wrapping_sub(y),
            EwOp::Mul => x.wrapping_mul(y),
            EwOp::Div => {
                if y == 0 {
                    0
                } else if u64_elems {
                    ((x as u64) / (y as u64)) as i64
                } else {
                    x.wrapping_div(y)
                }
            }
            EwOp::Max if u64_elems => (x as u64).max(y as u64) as i64,
            EwOp::Min if u64_elems => (x as u64).min(y as u64) as i64,
            EwOp::Max => x.max(y),
            EwOp::Min => x.min(y),
            EwOp::Abs => x.wrapping_abs(),
            EwOp::Neg => x.wrapping_neg(),
            EwOp::Relu => x.max(0),
            EwOp::And => x & y,
            EwOp::Or => x | y,
            EwOp::Xor => x ^ y,
            EwOp::Not => !x,
            EwOp::Shl => {
                if y < 0 || y >= bits as i64 {
                    0
                } else {
                    x.wrapping_shl(y as u32)
                }
            }
            EwOp::Shr => {
                if y < 0 || y >= bits as i64 {
                    if dt.is_signed_int() && x < 0 {
                        -1
                    } else {
                        0
                    }
                } else if dt.is_signed_int() {
                    x >> y
                } else {
                    ((x as u64 & mask(bits)) >> y) as i64
                }
            }
            // transcendental ops on integers: compute in float, truncate
            EwOp::Exp | EwOp::Log | EwOp::Sqrt | EwOp::Rsqrt | EwOp::Recip => {
                ew(op, Num::F(x as f64), Num::F(y as f64), DType::F64).i()
            }
        })
    }
}

/// IEEE 754-2019 maximum: NaN if either is NaN, and +0 > -0 (what the JIT emits).
pub fn fmax(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        f64::NAN
    } else if x == 0.0 && y == 0.0 {
        if x.is_sign_negative() && y.is_sign_negative() {
            -0.0
        } else {
            0.0
        }
    } else {
        x.max(y)
    }
}

/// IEEE 754-2019 minimum: NaN if either is NaN, and -0 < +0.
pub fn fmin(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        f64::NAN
    } else if x == 0.0 && y == 0.0 {
        if x.is_sign_negative() || y.is_sign_negative() {
            -0.0
        } else {
            0.0
        }
    } else {
        x.min(y)
    }
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn float_bits(op: EwOp, a: Num, b: Num, dt: DType) -> Num {
    let to_bits = |v: Num| -> u64 {
        let mut buf = [0u8; 8];
        write(&mut buf, dt, v);
        u64::from_le_bytes(buf)
    };
    let (x, y) = (to_bits(a), to_bits(b));
    let r = match op {
        EwOp::And => x & y,
        EwOp::Or => x | y,
        EwOp::Xor => x ^ y,
        _ => !x,
    };
    read(&r.to_le_bytes(), dt)
}

fn space_of(t: &Tile) -> Space {
    Space::of_tile(t.loc)
}

fn check_valid(t: &Tile, what: &str) -> Result<(), Fault> {
    if t.v_row < 0 || t.v_col < 0 || t.v_row > t.rows || t.v_col > t.cols {
        return fault(format!(
            "{what} valid region {}x{} does not fit the {}x{} tile",
            t.v_row, t.v_col, t.rows, t.cols
        ));
    }
    Ok(())
}

/// Reads element (r, c) of a tile.
fn get(local: &Local, t: &Tile, r: i64, c: i64, acc: &mut Accesses) -> Result<Num, Fault> {
    let es = t.elem.bytes() as u64;
    let addr = t.elem_addr(r, c)?;
    let s = local.slice(space_of(t), addr, es)?;
    let _ = acc;
    Ok(read(s, t.elem))
}

fn put(
    local: &mut Local,
    t: &Tile,
    r: i64,
    c: i64,
    v: Num,
    acc: &mut Accesses,
) -> Result<(), Fault> {
    let es = t.elem.bytes() as u64;
    let addr = t.elem_addr(r, c)?;
    let s = local.slice_mut(space_of(t), addr, es)?;
    write(s, t.elem, v);
    let _ = acc;
    Ok(())
}

/// Records the accesses of `rows` x `cols` elements of a tile: one range per row
/// for plain row-major tiles, else one per element.
pub fn record(acc: &mut Accesses, t: &Tile, rows: i64, cols: i64, write: bool) {
    if !acc.on || rows <= 0 || cols <= 0 {
        return;
    }
    let es = t.elem.bytes() as u64;
    let row_major =
        t.blayout == pto_asm::ty::BLayout::RowMajor && t.slayout == pto_asm::ty::SLayout::NoneBox;
    if row_major {
        for r in 0..rows {
            acc.add(
                space_of(t),
                t.addr + (r * t.cols) as u64 * es,
                cols as u64 * es,
                write,
            );
        }
    } else if rows == t.rows && cols == t.cols && whole_boxes(t) {
        // a whole number of boxes maps the whole tile onto its storage one to one
        acc.add(space_of(t), t.addr, (rows * cols) as u64 * es, write);
    } else {
        // offset(r, c) = offset(r, 0) + offset(0, c) in every layout: one
        // access per run of consecutive offsets along a row
        let ct = crate::layout::col_offsets(t, cols);
        for ro in crate::layout::row_offsets(t, rows) {
            let mut c = 0;
            while c < ct.len() {
                let mut n = 1;
                while c + n < ct.len() && ct[c + n] == ct[c] + n as i64 {
                    n += 1;
                }
                acc.add(
                    space_of(t),
                    t.addr + (ro + ct[c]) as u64 * es,
                    n as u64 * es,
                    write,
                );
                c += n;
            }
        }
    }
}

/// Whether the tile is a whole number of its layout's boxes (always for the
/// unboxed layouts).
fn whole_boxes(t: &Tile) -> bool {
    if t.slayout == pto_asm::ty::SLayout::NoneBox {
        return true;
    }
    let (ir, ic) = crate::layout::box_shape(t);
    t.rows % ir == 0 && t.cols % ic == 0
}

/// Pad value of a tile (0 null/zero, max, min).
fn pad_value(t: &Tile) -> Num {
    let f = t.elem.is_float();
    match t.pad {
        2 if f => Num::F(f64::INFINITY),
        3 if f => Num::F(f64::NEG_INFINITY),
        2 => Num::I(int_max(t.elem)),
        3 => Num::I(int_min(t.elem)),
        _ if f => Num::F(0.0),
        _ => Num::I(0),
    }
}

fn int_max(dt: DType) -> i64 {
    match dt {
        DType::I8 => i8::MAX as i64,
        DType::U8 => u8::MAX as i64,
        DType::I16 => i16::MAX as i64,
        DType::U16 => u16::MAX as i64,
        DType::I32 => i32::MAX as i64,
        DType::U32 => u32::MAX as i64,
        // u64 elements are held as their bits
        DType::U64 => u64::MAX as i64,
        _ => i64::MAX,
    }
}

fn int_min(dt: DType) -> i64 {
    match dt {
        DType::I8 => i8::MIN as i64,
        DType::I16 => i16::MIN as i64,
        DType::I32 => i32::MIN as i64,
        DType::I64 => i64::MIN,
        _ => 0,
    }
}

/// `tload`: GM view -> tile valid region; the rest of the tile gets the pad value
/// when the tile declares one.
pub fn tload(
    gm: &Gm,
    local: &mut Local,
    src: &View,
    dst: &Tile,
    acc: &mut Accesses,
) -> Result<(), Fault> {
    check_valid(dst, "destination")?;
    let (vr, vc) = src.rows_cols();
    if dst.v_row > vr || dst.v_col > vc {
        return fault(format!(
            "tload reads a {}x{} valid region from a GM view of {}x{}",
            dst.v_row, dst.v_col, vr, vc
        ));
    }
    if src.elem.bytes() != dst.elem.bytes() {
        return fault(format!(
            "tload from {} view into {} tile",
            src.elem, dst.elem
        ));
    }
    if dst.pad != 0 {
        record(acc, dst, dst.rows, dst.cols, true);
        let p = pad_value(dst);
        for r in 0..dst.rows {
            for c in 0..dst.cols {
                if r >= dst.v_row || c >= dst.v_col {
                    put(local, dst, r, c, p, acc)?;
                }
            }
        }
    }
    let es = dst.elem.bytes() as u64;
    let mut buf = vec![0u8; es as usize];
    for r in 0..dst.v_row {
        for c in 0..dst.v_col {
            let addr = src.addr_of(r, c)?;
            gm.read(addr, &mut buf)?;
            acc.add(Space::Gm, addr, es, false);
            let dst_addr = dst.elem_addr(r, c)?;
            local
                .slice_mut(space_of(dst), dst_addr, es)?
                .copy_from_slice(&buf);
            acc.add(space_of(dst), dst_addr, es, true);
        }
    }
    Ok(())
}

/// Whether `tload`/`tstore` between `v` and `t` can move whole rows: a plain
/// row-major tile without padding, a view whose last dimension is contiguous,
/// elements of one size, and a valid region the view covers.
pub fn rows_ok(v: &View, t: &Tile) -> bool {
    t.blayout == pto_asm::ty::BLayout::RowMajor
        && t.slayout == pto_asm::ty::SLayout::NoneBox
        && runs_ok(v, t)
}

/// `tload` a row at a time (same bytes and checker accesses as [`tload`];
/// only for what [`rows_ok`] accepts).
pub fn tload_rows(
    gm: &Gm,
    local: &mut Local,
    src: &View,
    dst: &Tile,
    acc: &mut Accesses,
) -> Result<(), Fault> {
    let es = dst.elem.bytes() as u64;
    let n = dst.v_col as u64 * es;
    // for the contiguity test only: a row outside the address space (hostile
    // strides) reads as u64::MAX, ends every run and faults in `one`
    let g = |r: i64| src.byte_addr(r, 0).unwrap_or(u64::MAX);
    let at = |r: i64| dst.addr + (r * dst.cols) as u64 * es;
    let one = |local: &mut Local, r: i64, k: i64, acc: &mut Accesses| -> Result<(), Fault> {
        let len = k as u64 * n;
        let g = src.addr_of(r, 0)?;
        gm.read(g, local.slice_mut(space_of(dst), at(r), len)?)?;
        acc.add(Space::Gm, g, len, false);
        acc.add(space_of(dst), at(r), len, true);
        Ok(())
    };
    let mut r = 0;
    while r < dst.v_row {
        let k = contiguous_rows(r, dst.v_row, n, &g, &at);
        // a run that faults is redone row by row, so the rows before the
        // failing one are moved as the one-row loop moves them
        if k == 1 || one(local, r, k, acc).is_err() {
            for q in r..r + k {
                one(local, q, 1, acc)?;
            }
        }
        r += k;
    }
    Ok(())
}

/// How many rows from `r` (below `end`) continue one run of `n`-byte rows
/// in both address maps (at least 1): a dense tile over a dense view moves
/// as one copy instead of one per row. The accesses recorded are the same
/// either way ([`Accesses::add`] merges contiguous rows).
fn contiguous_rows(
    r: i64,
    end: i64,
    n: u64,
    p: &impl Fn(i64) -> u64,
    q: &impl Fn(i64) -> u64,
) -> i64 {
    let (p0, q0) = (p(r), q(r));
    let mut k = 1;
    while r + k < end {
        let step = (k as u64).checked_mul(n);
        let next = step.and_then(|s| Some((p0.checked_add(s)?, q0.checked_add(s)?)));
        if next != Some((p(r + k), q(r + k))) {
            break;
        }
        k += 1;
    }
    k
}

/// `tstore` a row at a time without atomics or conversion (same bytes and
/// checker accesses as [`tstore`]; only for what [`rows_ok`] accepts).
pub fn tstore_rows(
    gm: &Gm,
    local: &Local,
    src: &Tile,
    dst: &View,
    acc: &mut Accesses,
) -> Result<(), Fault> {
    let es = src.elem.bytes() as u64;
    let n = src.v_col as u64 * es;
    let at = |r: i64| src.addr + (r * src.cols) as u64 * es;
    let g = |r: i64| dst.byte_addr(r, 0).unwrap_or(u64::MAX);
    let one = |r: i64, k: i64, acc: &mut Accesses| -> Result<(), Fault> {
        let len = k as u64 * n;
        let g = dst.addr_of(r, 0)?;
        gm.write(g, local.slice(space_of(src), at(r), len)?)?;
        acc.add(space_of(src), at(r), len, false);
        acc.add(Space::Gm, g, len, true);
        Ok(())
    };
    let mut r = 0;
    while r < src.v_row {
        let k = contiguous_rows(r, src.v_row, n, &g, &at);
        // as in `tload_rows`: a faulting run is redone row by row
        if k == 1 || one(r, k, acc).is_err() {
            for q in r..r + k {
                one(q, 1, acc)?;
            }
        }
        r += k;
    }
    Ok(())
}

/// Whether `tload`/`tstore` between `v` and `t` can move contiguous runs of a
/// tile in any layout (see [`tload_runs`]): no padding, a view whose last
/// dimension is contiguous, one element type, and a valid region that fits
/// both the tile and the view.
pub fn runs_ok(v: &View, t: &Tile) -> bool {
    let (vr, vc) = v.rows_cols();
    t.pad == 0
        && v.strides[4] == 1
        && v.elem == t.elem
        && t.v_row >= 0
        && t.v_col >= 0
        && t.v_row <= t.rows
        && t.v_col <= t.cols
        && t.v_row <= vr
        && t.v_col <= vc
}

/// The copy plan of a tile's valid region: each row's storage offset, and the
/// column runs whose storage offsets are consecutive (a box row of a fractal
/// layout, a whole row of a row-major tile).
struct Runs {
    rows: Vec<i64>,
    /// (first column, its storage offset, columns).
    runs: Vec<(i64, i64, i64)>,
}

impl Runs {
    /// None when some element of the valid region would lie outside the
    /// tile's storage (the per-element path reports which).
    fn of(t: &Tile) -> Option<Runs> {
        let rows = crate::layout::row_offsets(t, t.v_row);
        let cols = crate::layout::col_offsets(t, t.v_col);
        let (Some(rlo), Some(rhi), Some(clo), Some(chi)) = (
            rows.iter().min(),
            rows.iter().max(),
            cols.iter().min(),
            cols.iter().max(),
        ) else {
            return Some(Runs {
                rows: Vec::new(),
                runs: Vec::new(),
            });
        };
        // offsets are separable (layout tests): the extremes of the sums are
        // the sums of the extremes
        let es = t.elem.bytes() as i64;
        if rlo + clo < 0 || (rhi + chi + 1).checked_mul(es)? > t.bytes() as i64 {
            return None;
        }
        let mut runs: Vec<(i64, i64, i64)> = Vec::new();
        for (c, &o) in cols.iter().enumerate() {
            match runs.last_mut() {
                Some((_, start, n)) if *start + *n == o => *n += 1,
                _ => runs.push((c as i64, o, 1)),
            }
        }
        Some(Runs { rows, runs })
    }
}

/// Records exactly what `k` rounds of `acc.add(s1, a1 + i * es, es, w1);
/// acc.add(s2, a2 + i * es, es, w2)` record (an element loop's accesses),
/// extending the two ranges at once as soon as every remaining round can only
/// extend them.
fn add_pairs(
    acc: &mut Accesses,
    (s1, a1, w1): (Space, u64, bool),
    (s2, a2, w2): (Space, u64, bool),
    es: u64,
    k: u64,
) {
    if !acc.on || es == 0 {
        return;
    }
    for i in 0..k {
        if i > 0 && (s1, w1) != (s2, w2) {
            let h1 = steady(&acc.list, (s1, w1), a1 + i * es, a1 + k * es);
            let h2 = steady(&acc.list, (s2, w2), a2 + i * es, a2 + k * es);
            if let (Some(h1), Some(h2)) = (h1, h2) {
                acc.list[h1].len += (k - i) * es;
                acc.list[h2].len += (k - i) * es;
                return;
            }
        }
        acc.add(s1, a1 + i * es, es, w1);
        acc.add(s2, a2 + i * es, es, w2);
    }
}

/// The entry `Accesses::add` extends for every element of `[x, end)` of kind
/// `(space, write)` when nothing else is added in between: the newest entry of
/// that kind (among the last four it searches) ending at `x`, provided every
/// newer entry of that kind lies wholly before `x` or at or after `end` (so it
/// neither touches nor contains any of those elements).
fn steady(
    list: &[crate::exec::Access],
    (space, write): (Space, bool),
    x: u64,
    end: u64,
) -> Option<usize> {
    let n = list.len();
    for j in (n.saturating_sub(4)..n).rev() {
        let e = &list[j];
        if e.space != space || e.write != write {
            continue;
        }
        if e.addr + e.len == x {
            return Some(j);
        }
        if e.addr + e.len < x || e.addr >= end {
            continue;
        }
        return None;
    }
    None
}

/// The access list as it was, to undo a partly recorded run-wise copy: its
/// length and the entries `Accesses::add` may extend in place (the last four).
struct Mark(usize, Vec<crate::exec::Access>);

impl Mark {
    fn of(acc: &Accesses) -> Mark {
        let n = acc.list.len();
        Mark(n, acc.list[n.saturating_sub(4)..].to_vec())
    }

    fn restore(self, acc: &mut Accesses) {
        acc.list.truncate(self.0);
        let n = acc.list.len();
        acc.list[n - self.1.len()..].copy_from_slice(&self.1);
    }
}

/// `tload` in contiguous runs (a 512-byte box row of a fractal tile is one
/// copy): the same bytes and the same checker accesses as [`tload`], which it
/// falls back to (from the start) for anything out of bounds, so faults are
/// reported exactly as the element loop reports them. Only for what
/// [`runs_ok`] accepts.
pub fn tload_runs(
    gm: &Gm,
    local: &mut Local,
    src: &View,
    dst: &Tile,
    acc: &mut Accesses,
) -> Result<(), Fault> {
    let Some(plan) = Runs::of(dst) else {
        return tload(gm, local, src, dst, acc);
    };
    let mark = Mark::of(acc);
    let es = dst.elem.bytes() as u64;
    let space = space_of(dst);
    let mut copy = || -> Result<(), Fault> {
        for (r, &ro) in plan.rows.iter().enumerate() {
            for &(c, co, n) in &plan.runs {
                let g = src.addr_of(r as i64, c)?;
                let at = dst.addr + (ro + co) as u64 * es;
                gm.read(g, local.slice_mut(space, at, n as u64 * es)?)?;
                add_pairs(acc, (Space::Gm, g, false), (space, at, true), es, n as u64);
            }
        }
        Ok(())
    };
    if copy().is_err() {
        mark.restore(acc);
        return tload(gm, local, src, dst, acc);
    }
    Ok(())
}

/// A plain `tstore` (no atomics, no conversion) in contiguous runs: the same
/// bytes and checker accesses as [`tstore`], falling back to it as
/// [`tload_runs`] does. Only for what [`runs_ok`] accepts.
pub fn tstore_runs(
    gm: &Gm,
    local: &Local,
    src: &Tile,
    dst: &View,
    acc: &mut Accesses,
) -> Result<(), Fault> {
    let Some(plan) = Runs::of(src) else {
        return tstore(gm, local, src, dst, Combine::Store, acc);
    };
    let mark = Mark::of(acc);
    let es = src.elem.bytes() as u64;
    let space = space_of(src);
    let mut copy = || -> Result<(), Fault> {
        for (r, &ro) in plan.rows.iter().enumerate() {
            for &(c, co, n) in &plan.runs {
                let at = src.addr + (ro + co) as u64 * es;
                let g = dst.addr_of(r as i64, c)?;
                gm.write(g, local.slice(space, at, n as u64 * es)?)?;
                add_pairs(acc, (space, at, false), (Space::Gm, g, true), es, n as u64);
            }
        }
        Ok(())
    };
    if copy().is_err() {
        mark.restore(acc);
        return tstore(gm, local, src, dst, Combine::Store, acc);
    }
    Ok(())
}

/// Whether a view's elements are one contiguous run in row-major order.
fn contiguous(v: &View) -> bool {
    let mut want = 1;
    for d in (0..5).rev() {
        if v.shape[d] > 1 && v.strides[d] != want {
            return false;
        }
        want *= v.shape[d].max(1);
    }
    true
}

/// `tstore`: tile valid region -> GM view; with an atomic type the value is
/// added to (or max/min-ed with) what GM holds, in the view's element type.
pub fn tstore(
    gm: &Gm,
    local: &Local,
    src: &Tile,
    dst: &View,
    how: Combine,
    acc: &mut Accesses,
) -> Result<(), Fault> {
    check_valid(src, "source")?;
    let (vr, vc) = dst.rows_cols();
    // a single valid row wider than the view continues into the view's next
    // rows when the view is one contiguous run (the GM offset of (0, c) is
    // c * col_stride, as pto-isa's CPU model maps ND tiles): a flattened store
    let flat = src.v_row == 1 && src.v_col <= vr * vc && contiguous(dst);
    if src.v_row > vr || (src.v_col > vc && !flat) {
        return fault(format!(
            "tstore writes a {}x{} valid region into a GM view of {}x{}",
            src.v_row, src.v_col, vr, vc
        ));
    }
    // FIXPIPE (acc tiles) converts f32 to f16/bf16 on the way out (round to
    // nearest even); quantizing paths need registers ptovm does not model
    let convert = src.elem != dst.elem;
    if convert {
        let ok = src.loc == TileLoc::Acc
            && src.elem == DType::F32
            && matches!(dst.elem, DType::F16 | DType::BF16);
        if !ok {
            return fault(format!(
                "tstore of a {} {:?} tile into a {} view{}",
                src.elem,
                src.loc,
                dst.elem,
                if src.loc == TileLoc::Acc {
                    ": this FIXPIPE conversion needs quantization parameters ptovm does not model (f32 acc -> f32, f16, bf16 and i32 -> i32 are supported)"
                } else {
                    ": element types must match (convert with tcvt first)"
                }
            ));
        }
    }
    let es = src.elem.bytes() as u64;
    let ds = dst.elem.bytes() as u64;
    let mut out = [0u8; 8];
    for r in 0..src.v_row {
        for c in 0..src.v_col {
            let a = src.elem_addr(r, c)?;
            let bytes = local.slice(space_of(src), a, es)?;
            acc.add(space_of(src), a, es, false);
            let addr = dst.addr_of(r, c)?;
            if how != Combine::Store {
                let mut old = [0u8; 8];
                gm.read(addr, &mut old[..ds as usize])?;
                acc.add(Space::Gm, addr, ds, false);
                let v = crate::exec::comm::combine(
                    how,
                    read(&old[..ds as usize], dst.elem),
                    read(bytes, src.elem),
                    dst.elem,
                );
                write(&mut out[..ds as usize], dst.elem, v);
                gm.write(addr, &out[..ds as usize])?;
            } else if convert {
                let v = read(bytes, src.elem);
                write(&mut out[..ds as usize], dst.elem, v);
                gm.write(addr, &out[..ds as usize])?;
            } else {
                gm.write(addr, bytes)?;
            }
            acc.add(Space::Gm, addr, ds, true);
        }
    }
    Ok(())
}

/// Tile-tile elementwise (unary when `b` is `None`).
pub fn tew(
    local: &mut Local,
    op: EwOp,
    a: &Tile,
    b: Option<&Tile>,
    dst: &Tile,
    acc: &mut Accesses,
) -> Result<(), Fault> {
    check_valid(dst, "destination")?;
    for (t, n) in [(Some(a), "first source"), (b, "second source")] {
        if let Some(t) = t {
            check_valid(t, n)?;
            if t.v_row < dst.v_row || t.v_col < dst.v_col {
                return fault(format!(
                    "{n} valid region {}x{} is smaller than the destination's {}x{} (reads outside the valid region)",
                    t.v_row, t.v_col, dst.v_row, dst.v_col
                ));
            }
        }
    }
    for r in 0..dst.v_row {
        for c in 0..dst.v_col {
            let x = get(local, a, r, c, acc)?;
            let y = match b {
                Some(b) => get(local, b, r, c, acc)?,
                None => x,
            };
            put(local, dst, r, c, ew(op, x, y, dst.elem), acc)?;
        }
    }
    record(acc, a, dst.v_row, dst.v_col, false);
    if let Some(b) = b {
        record(acc, b, dst.v_row, dst.v_col, false);
    }
    record(acc, dst, dst.v_row, dst.v_col, true);
    Ok(())
}

/// Tile-scalar elementwise.
pub fn tews(
    local: &mut Local,
    op: EwOp,
    a: &Tile,
    s: Num,
    scalar_first: bool,
    dst: &Tile,
    acc: &mut Accesses,
) -> Result<(), Fault> {
    check_valid(dst, "destination")?;
    check_valid(a, "source")?;
    for r in 0..dst.v_row {
        for c in 0..dst.v_col {
            let x = get(local, a, r, c, acc)?;
            let v = if scalar_first {
                ew(op, s, x, dst.elem)
            } else {
                ew(op, x, s, dst.elem)
            };
            put(local, dst, r, c, v, acc)?;
        }
    }
    record(acc, a, dst.v_row, dst.v_col, false);
    record(acc, dst, dst.v_row, dst.v_col, true);
    Ok(())
}

/// `texpands`: every valid element of `dst` becomes `s`.
pub fn texpands(local: &mut Local, s: Num, dst: &Tile, acc: &mut Accesses) -> Result<(), Fault> {
    check_valid(dst, "destination")?;
    for r in 0..dst.v_row {
        for c in 0..dst.v_col {
            put(local, dst, r, c, s, acc)?;
        }
    }
    record(acc, dst, dst.v_row, dst.v_col, true);
    Ok(())
}

/// `treshape`: the tile of type `tb` over `src`'s bytes. The location and the
/// total byte size must agree and a boxed layout cannot become an unboxed one
/// (or back). The valid region is the result type's (its full shape when the
/// type leaves it dynamic); no data moves.
pub fn reshape(
    src: &crate::value::Val,
    tb: &pto_asm::ty::TileBuf,
    elem: DType,
) -> Result<Tile, Fault> {
    use pto_asm::ty::SLayout;
    let crate::value::Val::Tile(s) = src else {
        return fault(format!(
            "treshape/talias/bitcast: the source is {}, not a tile",
            src.kind()
        ));
    };
    if s.loc != tb.loc {
        return fault(format!(
            "treshape/talias/bitcast: the source is in {:?} but the result type in {:?}",
            s.loc, tb.loc
        ));
    }
    let bytes = (tb.rows.max(0) * tb.cols.max(0)) as u64 * elem.bytes() as u64;
    if bytes != s.bytes() {
        return fault(format!(
            "treshape/talias/bitcast: the source holds {} bytes ({}x{} {}) but the result {} ({}x{} {})",
            s.bytes(),
            s.rows,
            s.cols,
            s.elem,
            bytes,
            tb.rows,
            tb.cols,
            elem
        ));
    }
    if (s.slayout == SLayout::NoneBox) != (tb.slayout == SLayout::NoneBox) {
        return fault(
            "treshape/talias/bitcast: cannot reshape between a boxed and an unboxed layout",
        );
    }
    Ok(Tile {
        loc: tb.loc,
        addr: s.addr,
        elem,
        rows: tb.rows,
        cols: tb.cols,
        v_row: tb.v_row.unwrap_or(tb.rows),
        v_col: tb.v_col.unwrap_or(tb.cols),
        blayout: tb.blayout,
        slayout: tb.slayout,
        fractal: tb.fractal,
        pad: tb.pad,
    })
}

/// `subview %src[%r, %c] sizes [R, C] [valid [%vr, %vc]]`: the tile of type
/// `tb` whose element (i, j) is `src`'s element (r + i, c + j), over the same
/// bytes (no data moves). The window keeps its parent's pitch: a row-major
/// result keeps the parent's column count (and a column-major one its row
/// count) as its storage stride, so its physical shape is `R x src.cols` (or
/// `src.rows x C`) while its valid region is at most `R x C`. Boxed layouts
/// need box-aligned offsets. The window must lie inside the source's valid
/// region (the manual's rule).
pub fn subview(
    src: &crate::value::Val,
    (r0, c0): (i64, i64),
    tb: &pto_asm::ty::TileBuf,
    elem: DType,
    valid: Option<(i64, i64)>,
) -> Result<Tile, Fault> {
    use pto_asm::ty::{BLayout, SLayout};
    let crate::value::Val::Tile(s) = src else {
        return fault(format!("subview: the source is {}, not a tile", src.kind()));
    };
    if s.loc != tb.loc || s.elem != elem || s.blayout != tb.blayout || s.slayout != tb.slayout {
        return fault(format!(
            "subview: the result type ({:?} {elem} {:?}/{:?}) differs from the source ({:?} {} {:?}/{:?}) in location, element type or layout",
            tb.loc, tb.blayout, tb.slayout, s.loc, s.elem, s.blayout, s.slayout
        ));
    }
    let (rows, cols) = (tb.rows, tb.cols);
    let (vr, vc) = valid.unwrap_or((tb.v_row.unwrap_or(rows), tb.v_col.unwrap_or(cols)));
    if r0 < 0 || c0 < 0 || vr < 0 || vc < 0 || vr > rows || vc > cols {
        return fault(format!(
            "subview: offsets ({r0}, {c0}) and valid region {vr}x{vc} do not describe a window of the {rows}x{cols} result"
        ));
    }
    // offsets up to i64::MAX come from the kernel: an end past i64 is out too
    let past = |at: i64, len: i64, lim: i64| at.checked_add(len).is_none_or(|e| e > lim);
    if past(r0, vr, s.v_row)
        || past(c0, vc, s.v_col)
        || past(r0, rows, s.rows)
        || past(c0, cols, s.cols)
    {
        return fault(format!(
            "subview: the {rows}x{cols} window (valid {vr}x{vc}) at ({r0}, {c0}) leaves the {}x{} source or its {}x{} valid region",
            s.rows,
            s.cols,
            s.v_row, s.v_col
        ));
    }
    if s.slayout != SLayout::NoneBox {
        let (ir, ic) = crate::layout::box_shape(s);
        if ir <= 0 || ic <= 0 || r0 % ir != 0 || c0 % ic != 0 {
            return fault(format!(
                "subview: offsets ({r0}, {c0}) are not aligned to the source's {ir}x{ic} boxes"
            ));
        }
    }
    let es = elem.bytes() as u64;
    let addr = s.addr + s.elem_offset(r0, c0) as u64 * es;
    let (prows, pcols) = match s.blayout {
        BLayout::RowMajor => (rows, s.cols),
        BLayout::ColMajor => (s.rows, cols),
    };
    Ok(Tile {
        loc: tb.loc,
        addr,
        elem,
        rows: prows,
        cols: pcols,
        v_row: vr,
        v_col: vc,
        blayout: tb.blayout,
        slayout: tb.slayout,
        fractal: tb.fractal,
        pad: tb.pad,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn u64_lanes_divide_and_compare_unsigned() {
        let (a, b) = (Num::I(u64::MAX as i64), Num::I(2));
        assert_eq!(
            ew(EwOp::Div, a, b, DType::U64),
            Num::I((u64::MAX / 2) as i64)
        );
        assert_eq!(ew(EwOp::Max, a, b, DType::U64), a);
        assert_eq!(ew(EwOp::Min, a, b, DType::U64), b);
        assert_eq!(ew(EwOp::Max, Num::I(-1), b, DType::I64), b);
    }

    #[test]
    fn u64_max_pad_is_all_ones() {
        assert_eq!(int_max(DType::U64), -1);
        assert_eq!(int_min(DType::U64), 0);
    }
    /// The run-wise copies move the same bytes and record the very same
    /// access list as the element loops, for every layout, partial valid
    /// regions, strided views, access lists that already hold entries, and
    /// tiles or views out of bounds (where both fault alike).
    #[test]
    fn run_copies_match_the_element_loops_exactly() {
        use crate::value::ViewLayout;
        use pto_asm::ty::{BLayout as B, SLayout as S};
        let p = pto_isa_spec::ProfileId::A5.profile();
        let layouts = [
            (B::RowMajor, S::NoneBox),
            (B::ColMajor, S::NoneBox),
            (B::ColMajor, S::RowMajor),
            (B::RowMajor, S::ColMajor),
            (B::RowMajor, S::RowMajor),
            (B::ColMajor, S::ColMajor),
        ];
        let shapes = [
            (32, 64, 32, 64),
            (64, 32, 50, 17),
            (16, 16, 16, 16),
            (32, 32, 1, 32),
        ];
        let mut cases = 0;
        for (bl, sl) in layouts {
            for (elem, fractal, loc) in [
                (DType::F16, 512, TileLoc::Mat),
                (DType::F32, 512, TileLoc::Mat),
                (DType::F32, 1024, TileLoc::Acc),
                (DType::I8, 512, TileLoc::Mat),
            ] {
                for (rows, cols, v_row, v_col) in shapes {
                    for (row_stride, addr, base, prior) in [
                        (cols, 0u64, 4096u64, 0usize),
                        (cols + 16, 64, 4096 + 6, 3),
                        (cols, p.l1_bytes as u64 - 64, 4096, 1),
                        (cols, 0, 1 << 20, 2),
                    ] {
                        let t = Tile {
                            loc,
                            addr,
                            elem,
                            rows,
                            cols,
                            v_row,
                            v_col,
                            blayout: bl,
                            slayout: sl,
                            fractal,
                            pad: 0,
                        };
                        let v = View {
                            base,
                            elem,
                            shape: [1, 1, 1, rows, cols],
                            strides: [0, 0, 0, row_stride, 1],
                            layout: ViewLayout::Nd,
                        };
                        assert!(runs_ok(&v, &t));
                        if (rows, cols, fractal, sl) == (32, 64, 512, S::RowMajor)
                            && elem != DType::I8
                        {
                            let plan = Runs::of(&t).expect("whole boxes fit the tile");
                            assert!(plan.runs.len() <= 8, "{:?}", plan.runs);
                        }
                        let es = elem.bytes() as u64;
                        let gm_len = 4096 + (rows * row_stride) as u64 * es + 64;
                        let fill = |gm: &Gm| {
                            let bytes: Vec<u8> = (0..gm_len).map(|i| (i * 7 + 3) as u8).collect();
                            gm.write(0, &bytes).unwrap();
                        };
                        let acc0 = || {
                            let mut a = Accesses {
                                on: true,
                                list: Vec::new(),
                            };
                            for k in 0..prior as u64 {
                                a.add(Space::Gm, 4096 + 2 * k * es, es, k % 2 == 0);
                                a.add(Space::of_tile(loc), addr + 32 * k, 32, true);
                            }
                            a
                        };
                        // loads
                        let (ga, gb) = (Gm::new(gm_len), Gm::new(gm_len));
                        fill(&ga);
                        fill(&gb);
                        let (mut la, mut lb) = (Local::new(p, None), Local::new(p, None));
                        let (mut aa, mut ab) = (acc0(), acc0());
                        let ra = tload(&ga, &mut la, &v, &t, &mut aa);
                        let rb = tload_runs(&gb, &mut lb, &v, &t, &mut ab);
                        let what = format!("{bl:?}/{sl:?}/{elem:?}/{fractal} {rows}x{cols} valid {v_row}x{v_col} stride {row_stride} at {addr:#x}, GM {base:#x}");
                        assert_eq!(ra, rb, "load {what}");
                        assert_eq!(aa.list, ab.list, "load accesses {what}");
                        assert!(la == lb, "loaded bytes {what}");
                        // stores, from what was loaded
                        let (mut aa, mut ab) = (acc0(), acc0());
                        let ra = tstore(&ga, &la, &t, &v, Combine::Store, &mut aa);
                        let rb = tstore_runs(&gb, &lb, &t, &v, &mut ab);
                        assert_eq!(ra, rb, "store {what}");
                        assert_eq!(aa.list, ab.list, "store accesses {what}");
                        assert_eq!(ga.snapshot(), gb.snapshot(), "stored bytes {what}");
                        cases += usize::from(ra.is_ok());
                    }
                }
            }
        }
        assert!(cases > 100, "{cases} cases ran without a fault");
    }
}
