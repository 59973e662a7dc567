//! Communication across ranks (`pto.comm.*`): point-to-point puts and gets,
//! signals, and the root-driven collectives.
//!
//! Transport (see docs/ranks.md): every rank has its own GM; rank `r`'s GM is
//! mapped at `r << RANK_SHIFT` in every rank's address space, the way the
//! communication runtime maps each peer's symmetric window. A "remote" view is
//! simply a view whose base lies in another rank's window, so these ops move
//! bytes between separate GMs with ordinary bounds-checked accesses.
//!
//! The scalar unit runs each op as one blocking macro-op after every pipe of
//! its core has drained (the hidden MTE syncs the compiler inserts around
//! them). The UB staging tiles are validated but their contents afterwards
//! are not modelled.

use pto_isa_spec::DType;

use super::{fault, meter, Fault};
use crate::mem::Gm;
use crate::num::{self, Num};
use crate::program::Combine;
use crate::value::{Tile, View};

/// Combines `new` into `old` (`tput` atomics, `treduce`, atomic `tstore`),
/// rounded to the element type: a chain of combines (`treduce` over several
/// members) accumulates in the element type, one rounding per step.
pub fn combine(how: Combine, old: Num, new: Num, dt: DType) -> Num {
    use crate::program::EwOp;
    let v = match how {
        Combine::Store => new,
        Combine::Sum => super::tile::ew(EwOp::Add, old, new, dt),
        Combine::Max => super::tile::ew(EwOp::Max, old, new, dt),
        Combine::Min => super::tile::ew(EwOp::Min, old, new, dt),
    };
    match v {
        Num::F(x) if dt.is_float() => Num::F(num::round_float(x, dt)),
        v => v,
    }
}

/// A `twait`/`ttest` comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitCmp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `<`
    Lt,
    /// `<=`
    Le,
}

impl WaitCmp {
    /// From a `wait_cmp` enum value.
    pub fn parse(s: &str) -> Option<WaitCmp> {
        Some(match s.to_ascii_lowercase().as_str() {
            "eq" => WaitCmp::Eq,
            "ne" => WaitCmp::Ne,
            "gt" => WaitCmp::Gt,
            "ge" => WaitCmp::Ge,
            "lt" => WaitCmp::Lt,
            "le" => WaitCmp::Le,
            _ => return None,
        })
    }

    /// The operator as written in C.
    pub fn symbol(self) -> &'static str {
        match self {
            WaitCmp::Eq => "==",
            WaitCmp::Ne => "!=",
            WaitCmp::Gt => ">",
            WaitCmp::Ge => ">=",
            WaitCmp::Lt => "<",
            WaitCmp::Le => "<=",
        }
    }

    fn holds(self, a: i32, b: i32) -> bool {
        match self {
            WaitCmp::Eq => a == b,
            WaitCmp::Ne => a != b,
            WaitCmp::Gt => a > b,
            WaitCmp::Ge => a >= b,
            WaitCmp::Lt => a < b,
            WaitCmp::Le => a <= b,
        }
    }
}

/// The most elements one collective moves per view (64 MiB of f32). Each
/// transfer lists every element's address (8 bytes each) and moves it on its
/// own, so a hostile view with zero strides and 2^28 rows took seconds and
/// 2 GiB of addresses before this cap.
const MAX_VIEW_ELEMS: i64 = 1 << 24;

/// Byte address of every element of `v`, in row-major order of its 5-D shape.
fn addrs(v: &View) -> Result<Vec<u64>, Fault> {
    let (rows, cols) = v.rows_cols();
    let n = rows
        .checked_mul(cols)
        .filter(|n| *n >= 0 && *n <= MAX_VIEW_ELEMS);
    let Some(n) = n else {
        return fault(format!(
            "a {rows}x{cols} view is too large to transfer (ptovm moves at most {MAX_VIEW_ELEMS} elements per view in one collective)"
        ));
    };
    let mut out = Vec::with_capacity(n as usize);
    for r in 0..rows {
        // the work meter, per 1024 rows (at most 2^24 elements in all)
        if r % 1024 == 0 {
            meter::charge(1024 * (cols as u64 + 1))?;
        }
        for c in 0..cols {
            out.push(view_addr(v, r, c)?);
        }
    }
    Ok(out)
}

/// Byte address of element (r, c) of `v`; a fault naming the element when
/// hostile strides send it below 0 or past 2^63.
pub(crate) fn view_addr(v: &View, r: i64, c: i64) -> Result<u64, Fault> {
    v.addr_of(r, c)
}

/// The `root` attribute of a root-driven collective must name a member of
/// its group (an index into `group(...)`); without the attribute the root is
/// the caller.
pub fn check_root(name: &str, root: Option<i64>, members: usize) -> Result<(), Fault> {
    match root {
        Some(r) if r < 0 || r as u64 >= members as u64 => fault(format!(
            "{name}: root {r} is outside the group of {members} members{}",
            match members {
                0 => String::new(),
                n => format!(" (0..={})", n - 1),
            }
        )),
        _ => Ok(()),
    }
}

/// A `tnotify` / `twait` / `ttest` value: signals are i32, so a value
/// outside i32 faults instead of being truncated (2^32 + 3 would set 3, and
/// a wait for it would pass on 3).
pub fn signal_value(name: &str, v: i64) -> Result<i32, Fault> {
    match i32::try_from(v) {
        Ok(x) => Ok(x),
        Err(_) => fault(format!(
            "{name}: signal value {v} is outside the i32 range of signals"
        )),
    }
}

/// The byte range `[lo, hi)` a view touches (for the async checker).
pub fn extent(v: &View) -> Result<(u64, u64), Fault> {
    let a = addrs(v)?;
    let es = v.elem.bytes() as u64;
    let lo = a.iter().copied().min().unwrap_or(v.base);
    let hi = a.iter().copied().max().map_or(lo, |m| m + es);
    Ok((lo, hi))
}

/// The byte ranges a view touches, element runs merged where they are
/// adjacent (for the cross-rank check: a column-strided view is many runs,
/// not its bounding range).
pub fn runs(v: &View) -> Result<Vec<(u64, u64)>, Fault> {
    let es = v.elem.bytes() as u64;
    let mut out: Vec<(u64, u64)> = Vec::new();
    for a in addrs(v)? {
        match out.last_mut() {
            Some(l) if l.1 == a => l.1 = a + es,
            _ => out.push((a, a + es)),
        }
    }
    Ok(out)
}

/// Charges the work meter for the next 1024 elements at every 1024th
/// element `i` of a collective's loop (a large group over large views stops
/// at the run's deadline).
#[inline]
fn charge_every(i: usize) -> Result<(), Fault> {
    if i.is_multiple_of(1024) {
        meter::charge(1024)?;
    }
    Ok(())
}

fn read(gm: &Gm, dt: DType, addr: u64) -> Result<Num, Fault> {
    let mut b = [0u8; 8];
    let es = dt.bytes();
    gm.read(addr, &mut b[..es])?;
    Ok(num::read(&b[..es], dt))
}

fn write(gm: &Gm, dt: DType, addr: u64, v: Num) -> Result<(), Fault> {
    let mut b = [0u8; 8];
    let es = dt.bytes();
    num::write(&mut b[..es], dt, v);
    gm.write(addr, &b[..es])?;
    Ok(())
}

/// Staging tiles must be UB tiles of the transferred element type.
pub fn check_staging(tiles: &[&Tile], dt: DType, what: &str) -> Result<(), Fault> {
    if tiles.is_empty() {
        return fault(format!("{what} needs a UB staging tile"));
    }
    for t in tiles {
        if t.loc != pto_asm::ty::TileLoc::Vec {
            return fault(format!(
                "{what}: staging tile is in {:?}, not UB (loc=vec)",
                t.loc
            ));
        }
        if t.elem.bytes() != dt.bytes() {
            return fault(format!(
                "{what}: staging tile holds {} but the data is {dt}",
                t.elem
            ));
        }
    }
    Ok(())
}

/// `dst ⊕= src` element by element; both views must have the same element
/// count and type.
pub fn transfer(gm: &Gm, dst: &View, src: &View, how: Combine) -> Result<(), Fault> {
    if dst.elem != src.elem {
        return fault(format!(
            "source holds {} but destination holds {}",
            src.elem, dst.elem
        ));
    }
    let (s, d) = (addrs(src)?, addrs(dst)?);
    if s.len() != d.len() {
        return fault(format!(
            "source has {} elements but destination has {}",
            s.len(),
            d.len()
        ));
    }
    let dt = dst.elem;
    for (i, (a, b)) in s.iter().zip(&d).enumerate() {
        charge_every(i)?;
        let v = read(gm, dt, *a)?;
        let v = match how {
            Combine::Store => v,
            c => combine(c, read(gm, dt, *b)?, v, dt),
        };
        write(gm, dt, *b, v)?;
    }
    Ok(())
}

fn signal_dtype(sig: &View) -> Result<(), Fault> {
    if sig.elem.bytes() != 4 || sig.elem.is_float() {
        return fault(format!("signals are i32, this view holds {}", sig.elem));
    }
    Ok(())
}

/// `tnotify`: set or atomically add `value` to every signal of `sig`.
pub fn notify(gm: &Gm, sig: &View, value: i32, add: bool) -> Result<(), Fault> {
    signal_dtype(sig)?;
    for (i, a) in addrs(sig)?.into_iter().enumerate() {
        charge_every(i)?;
        if add {
            gm.fetch_add_i32(a, value)?;
        } else {
            gm.write(a, &value.to_le_bytes())?;
        }
    }
    Ok(())
}

/// `twait`/`ttest`: whether every signal of `sig` satisfies `signal cmp value`;
/// on failure, the first offending signal value.
pub fn test(gm: &Gm, sig: &View, value: i32, cmp: WaitCmp) -> Result<Result<(), i32>, Fault> {
    signal_dtype(sig)?;
    for (i, a) in addrs(sig)?.into_iter().enumerate() {
        charge_every(i)?;
        let mut b = [0u8; 4];
        gm.read(a, &mut b)?;
        let s = i32::from_le_bytes(b);
        if !cmp.holds(s, value) {
            return Ok(Err(s));
        }
    }
    Ok(Ok(()))
}

/// Rows of a view (product of its four outer dims) for the row-split collectives.
fn rows(v: &View) -> i64 {
    v.rows_cols().0
}

/// The `k`-th block of `per` rows of `v` as a view of its own.
fn row_block(v: &View, k: i64, per: i64) -> Result<View, Fault> {
    if (k + 1).checked_mul(per).is_none_or(|end| rows(v) < end) {
        return fault(format!(
            "a view of {} rows has no row block {k} of {per} rows",
            rows(v)
        ));
    }
    // the rows of a block are consecutive in the flattened outer dims: walk
    // them through a 2-D view when the outer dims are contiguous, else fail
    let inner = &v.strides;
    let contiguous = (0..3)
        .all(|d| v.shape[d] <= 1 || inner[d + 1].checked_mul(v.shape[d + 1]) == Some(inner[d]));
    if !contiguous {
        return fault("row-split collectives need views whose outer dims are contiguous");
    }
    let base = view_addr(v, k * per, 0)?;
    Ok(View {
        base,
        elem: v.elem,
        shape: [1, 1, 1, per, v.shape[4]],
        strides: [0, 0, 0, inner[3], inner[4]],
        layout: v.layout,
    })
}

/// `tbroadcast`: the root's `src` into every group member's view.
pub fn broadcast(gm: &Gm, src: &View, group: &[View]) -> Result<(), Fault> {
    for g in group {
        transfer(gm, g, src, Combine::Store)?;
    }
    Ok(())
}

/// `tgather`: member `r`'s rows go to row block `r` of the root's `dst`.
pub fn gather(gm: &Gm, dst: &View, group: &[View]) -> Result<(), Fault> {
    for (r, g) in group.iter().enumerate() {
        let blk = row_block(dst, r as i64, rows(g))?;
        transfer(gm, &blk, g, Combine::Store)?;
    }
    Ok(())
}

/// `tscatter`: row block `r` of the root's `src` goes to member `r`.
pub fn scatter(gm: &Gm, src: &View, group: &[View]) -> Result<(), Fault> {
    for (r, g) in group.iter().enumerate() {
        let blk = row_block(src, r as i64, rows(g))?;
        transfer(gm, g, &blk, Combine::Store)?;
    }
    Ok(())
}

/// `treduce`: `dst = member 0 ⊕ member 1 ⊕ ...`, accumulated in rank order in
/// the element type (as the accumulator tile does).
pub fn reduce(gm: &Gm, dst: &View, group: &[View], how: Combine) -> Result<(), Fault> {
    let Some(first) = group.first() else {
        return fault("treduce needs a group of at least one member");
    };
    let dt = dst.elem;
    let d = addrs(dst)?;
    let mut acc: Vec<Num> = Vec::new();
    for (i, g) in group.iter().enumerate() {
        if g.elem != dt {
            return fault(format!(
                "group member {i} holds {} but the destination holds {dt}",
                g.elem
            ));
        }
        let a = addrs(g)?;
        if a.len() != d.len() {
            return fault(format!(
                "group member {i} has {} elements but the destination has {}",
                a.len(),
                d.len()
            ));
        }
        let vals = a
            .iter()
            .enumerate()
            .map(|(i, x)| {
                charge_every(i)?;
                read(gm, dt, *x)
            })
            .collect::<Result<Vec<_>, _>>()?;
        if i == 0 {
            acc = vals;
        } else {
            for (x, v) in acc.iter_mut().zip(vals) {
                *x = combine(how, *x, v, dt);
            }
        }
    }
    let _ = first;
    for (i, (a, v)) in d.iter().zip(acc).enumerate() {
        charge_every(i)?;
        write(gm, dt, *a, v)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::RANK_SHIFT;
    use crate::value::ViewLayout;

    fn view(base: u64, rows: i64, cols: i64) -> View {
        View {
            base,
            elem: DType::F32,
            shape: [1, 1, 1, rows, cols],
            strides: [0, 0, 0, cols, 1],
            layout: ViewLayout::Nd,
        }
    }

    fn put(gm: &Gm, at: u64, v: &[f32]) {
        let b: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        gm.write(at, &b).unwrap();
    }

    fn get(gm: &Gm, at: u64, n: usize) -> Vec<f32> {
        let mut b = vec![0u8; n * 4];
        gm.read(at, &mut b).unwrap();
        b.chunks(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    #[test]
    fn put_crosses_rank_windows_and_accumulates() {
        let gm = Gm::with_ranks(&[64, 64]);
        let r1 = 1u64 << RANK_SHIFT;
        put(&gm, 0, &[1.0, 2.0, 3.0, 4.0]);
        put(&gm, r1, &[10.0, 10.0, 10.0, 10.0]);
        transfer(&gm, &view(r1, 1, 4), &view(0, 1, 4), Combine::Sum).unwrap();
        assert_eq!(get(&gm, r1, 4), vec![11.0, 12.0, 13.0, 14.0]);
        // rank 0's window is untouched, and a window ends where its GM ends
        assert_eq!(get(&gm, 0, 4), vec![1.0, 2.0, 3.0, 4.0]);
        assert!(transfer(&gm, &view(r1 + 60, 1, 4), &view(0, 1, 4), Combine::Store).is_err());
    }

    #[test]
    fn gather_scatter_reduce_split_rows() {
        let gm = Gm::with_ranks(&[256, 256, 256]);
        let w = |r: u64| r << RANK_SHIFT;
        put(&gm, w(1), &[1.0, 2.0]);
        put(&gm, w(2), &[3.0, -4.0]);
        put(&gm, w(0) + 8, &[5.0, 6.0]);
        let group = [view(w(0) + 8, 1, 2), view(w(1), 1, 2), view(w(2), 1, 2)];
        gather(&gm, &view(w(0) + 64, 3, 2), &group).unwrap();
        assert_eq!(get(&gm, 64, 6), vec![5.0, 6.0, 1.0, 2.0, 3.0, -4.0]);
        reduce(&gm, &view(128, 1, 2), &group, Combine::Max).unwrap();
        assert_eq!(get(&gm, 128, 2), vec![5.0, 6.0]);
        reduce(&gm, &view(128, 1, 2), &group, Combine::Sum).unwrap();
        assert_eq!(get(&gm, 128, 2), vec![9.0, 4.0]);
        put(&gm, 160, &[7.0, 8.0, 9.0, 10.0, 11.0, 12.0]);
        scatter(&gm, &view(160, 3, 2), &group).unwrap();
        assert_eq!(get(&gm, w(2), 2), vec![11.0, 12.0]);
        assert_eq!(get(&gm, w(1), 2), vec![9.0, 10.0]);
        // the destination is too small for three members' rows
        assert!(gather(&gm, &view(64, 2, 2), &group).is_err());
    }

    #[test]
    fn reduce_rounds_every_step_to_the_element_type() {
        // 1 + 2^-24 rounds back to 1 in f32 (ties to even), twice; summed in
        // f64 and rounded once, the two small terms would survive as 2^-23
        let gm = Gm::with_ranks(&[64, 64, 64]);
        let w = |r: u64| r << RANK_SHIFT;
        let tiny = 2f32.powi(-24);
        put(&gm, w(0), &[1.0]);
        put(&gm, w(1), &[tiny]);
        put(&gm, w(2), &[tiny]);
        let group = [view(w(0), 1, 1), view(w(1), 1, 1), view(w(2), 1, 1)];
        reduce(&gm, &view(32, 1, 1), &group, Combine::Sum).unwrap();
        assert_eq!(get(&gm, 32, 1), vec![1.0]);
    }

    #[test]
    fn signals_set_add_and_compare() {
        let gm = Gm::with_ranks(&[16, 16]);
        let sig = View {
            elem: DType::I32,
            ..view(1 << RANK_SHIFT, 1, 2)
        };
        notify(&gm, &sig, 3, false).unwrap();
        notify(&gm, &sig, 4, true).unwrap();
        assert_eq!(test(&gm, &sig, 7, WaitCmp::Eq).unwrap(), Ok(()));
        assert_eq!(test(&gm, &sig, 8, WaitCmp::Ge).unwrap(), Err(7));
        let f = View {
            elem: DType::F32,
            ..sig.clone()
        };
        assert!(notify(&gm, &f, 1, false).is_err());
    }
}
