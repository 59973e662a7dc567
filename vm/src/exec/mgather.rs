//! Indexed GM access: `mgather` (GM table -> tile) and `mscatter` (tile -> GM
//! table), in the two `coalesce` modes of the manual.
//!
//! The table is the GM view: `rows` = the product of its leading dims, `cols`
//! its last dim, addressed through its strides (ND views), or for an NZ view
//! (`{layout = #pto.layout<nz>}`, shape `[B, BCols, BRows, 16, C0]` with
//! C0 = 32 bytes of elements) the logical `[BRows * 16, B * BCols * C0]`
//! matrix those fractals hold (see [`NzTable`]). A DN table is refused: no
//! backend of pto-isa has one (its layout-support tables list ND everywhere
//! and NZ on A2/A3).
//!
//! The data tile is a Vec (UB) tile, except for the GM -> L1 `mgather` into
//! an NZ mat tile, whose indices (and elem-mode scratch) are GM views (see
//! `run_gm2l1`); `mscatter` has no L1 form.
//!
//! * Row mode (`coalesce = row`, the default): the index tile is `[1, R]`
//!   (`idx[0, r]`) or `[R, 1]` (`idx[r, 0]`); `mgather` copies table row
//!   `idx[r]` into `dst[r, :]`, `mscatter` copies `src[r, :]` to table row `idx[r]`,
//!   over the tile's valid columns.
//! * Elem mode (`coalesce = elem`): `idx[i, j]` is a linear element index into
//!   the table (row-major over its shape): `dst[i, j] = table[idx]`, or
//!   `table[idx] = src[i, j]`.
//!
//! Indices are read as `u32` (a negative index is a large one). Out of range:
//! `gatherOob`/`scatterOob` `clamp` and `wrap` remap the index, `zero` (gather)
//! writes zero, `skip` (scatter) drops the write; the default (`undefined`) is a
//! fault in ptovm. `mscatter` walks the source in row-major order, so the last
//! write to a slot wins; `scatterAtomicOp = add | max | min` combines with the
//! value in GM instead (floats in f64, rounded once; integers wrap).

use pto_isa_spec::Opcode;

use crate::exec::tile_ops::{
    attr_sym, check_valid, get, get_bits, in_tiles, out_tile, put, put_bits, TileCall,
};
use crate::exec::{fault, Accesses, Fault};
use crate::mem::{Gm, Local};
use crate::num::{read, write, Num};
use crate::value::{Space, Tile, Val, View, ViewLayout};
use pto_asm::ty::{BLayout, SLayout, TileLoc};
use pto_isa_spec::DType;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Oob {
    Undefined,
    Clamp,
    Wrap,
    Zero,
}

impl Oob {
    /// Index `k` (read as u32) into a table of `cap` `what` (rows or
    /// elements): `None` where the zero mode drops it, a fault naming the
    /// `table` where no out-of-range mode is set.
    fn apply(
        self,
        k: i64,
        cap: i64,
        name: &str,
        table: &str,
        what: &str,
    ) -> Result<Option<i64>, Fault> {
        let k = k as u32 as i64;
        if k < cap {
            return Ok(Some(k));
        }
        match self {
            Oob::Clamp => Ok(Some(cap - 1)),
            Oob::Wrap => Ok(Some(k % cap)),
            Oob::Zero => Ok(None),
            Oob::Undefined => fault(format!(
                "{name}: index {k} is outside the {table} ({cap} {what}; set an out-of-range mode to allow it)"
            )),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Atomic {
    None,
    Add,
    Max,
    Min,
}

/// Whether an `mgather`/`mscatter` reads and writes GM plainly (a gather
/// always; a scatter without an atomic combine).
pub fn plain_gm(call: &TileCall) -> bool {
    call.op == Opcode::MGather
        || matches!(
            attr_sym(call, &["scatterAtomicOp"])
                .map(|s| last_word(&s))
                .as_deref(),
            None | Some("NONE")
        )
}

/// Executes `mgather` or `mscatter`.
pub fn run(call: &TileCall, gm: &Gm, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let name = if call.op == Opcode::MGather {
        "mgather"
    } else {
        "mscatter"
    };
    let mode = |keys: &[&str]| attr_sym(call, keys).map(|s| last_word(&s));
    let elem = match mode(&["coalesce"]).as_deref() {
        None | Some("ROW") => false,
        Some("ELEM") => true,
        Some(o) => return fault(format!("{name}: unknown coalesce mode {o}")),
    };
    let oob = match mode(&["gatherOob", "scatterOob"]).as_deref() {
        None | Some("UNDEFINED") => Oob::Undefined,
        Some("CLAMP") => Oob::Clamp,
        Some("WRAP") => Oob::Wrap,
        Some("ZERO") if call.op == Opcode::MGather => Oob::Zero,
        Some("SKIP") if call.op == Opcode::MScatter => Oob::Zero,
        Some(o) => return fault(format!("{name}: unknown out-of-range mode {o}")),
    };
    let atomic = match mode(&["scatterAtomicOp"]).as_deref() {
        None | Some("NONE") => Atomic::None,
        Some("ADD") => Atomic::Add,
        Some("MAX") => Atomic::Max,
        Some("MIN") => Atomic::Min,
        Some(o) => return fault(format!("{name}: unknown atomic op {o}")),
    };
    let view = call
        .ins
        .iter()
        .chain(call.outs.iter())
        .find_map(|v| match v {
            Val::View(v) => Some(&**v),
            _ => None,
        });
    let Some(view) = view else {
        return fault(format!("{name}: needs a GM view operand"));
    };
    let m = Modes { elem, oob, atomic };
    let data_loc = match call.op {
        Opcode::MGather => call.outs.first(),
        _ => call.ins.first(),
    };
    match data_loc {
        Some(Val::Tile(t)) if t.loc == TileLoc::Mat && call.op == Opcode::MGather => {
            return run_gm2l1(call, gm, local, acc, view, t, m);
        }
        Some(Val::Tile(t)) if t.loc != TileLoc::Vec => {
            return fault(format!(
                "{name}: a {:?} data tile is not implemented: pto-isa's {} takes a Vec (UB) tile{}",
                t.loc,
                name.to_uppercase(),
                if call.op == Opcode::MGather {
                    " or an NZ Mat (L1) destination"
                } else {
                    " only (there is no L1 form)"
                }
            ));
        }
        _ => {}
    }
    if call.ins.iter().skip(2).any(|v| matches!(v, Val::View(_))) {
        return fault(format!(
            "{name}: a GM scratch operand belongs only to the GM->L1 (loc=mat) mgather"
        ));
    }
    if view.layout == ViewLayout::Dn {
        return fault(format!(
            "{name}: the GM table is DN; pto-isa's {} takes ND tables (and NZ ones on A2/A3) only",
            name.to_uppercase()
        ));
    }
    let ins = in_tiles(call);
    // mgather ins(table, idx [, scratch]) outs(dst); mscatter ins(src, idx) outs(table)
    let (data, idx) = match (call.op, ins.as_slice()) {
        (Opcode::MGather, [idx, ..]) => (out_tile(call, 0, "destination")?, *idx),
        (Opcode::MScatter, [src, idx, ..]) => (*src, *idx),
        _ => return fault(format!("{name}: needs a data tile and an index tile")),
    };
    check_valid(call, data, "data tile")?;
    check_valid(call, idx, "index tile")?;
    if idx.elem.is_float() {
        return fault(format!(
            "{name}: the index tile must hold integers, found {}",
            idx.elem
        ));
    }
    if data.elem.bytes() != view.elem.bytes() {
        return fault(format!(
            "{name}: tile ({}) and GM table ({}) element sizes differ",
            data.elem, view.elem
        ));
    }
    let t = Table { gm, view, name };
    if view.layout == ViewLayout::Nz {
        let nz = NzTable::new(view, data, name)?;
        return run_nz(call, &t, &nz, data, idx, m, local, acc);
    }
    let (rows, cols) = view.rows_cols();
    let cap = if elem { rows * cols } else { rows };
    let what = if elem { "elements" } else { "rows" };
    let resolve = |k: i64| oob.apply(k, cap, name, "GM table", what);
    if cap == 0 {
        return fault(format!("{name}: the GM table is empty"));
    }
    if !elem && data.v_col > cols {
        return fault(format!(
            "{name}: the tile's {} valid columns are wider than the table's {cols}",
            data.v_col
        ));
    }
    let gather = call.op == Opcode::MGather;
    let zero = if data.elem.is_float() {
        Num::F(0.0)
    } else {
        Num::I(0)
    };
    for i in 0..data.v_row {
        let row_idx = if elem {
            None
        } else if idx.v_row == 1 && idx.v_col >= data.v_row {
            Some(get(local, idx, 0, i, acc)?.i())
        } else if idx.v_col == 1 && idx.v_row >= data.v_row {
            Some(get(local, idx, i, 0, acc)?.i())
        } else {
            return fault(format!(
                "{name}: in row mode the index tile must be [1, {0}] or [{0}, 1], found a {1}x{2} valid region",
                data.v_row, idx.v_row, idx.v_col
            ));
        };
        let row = match row_idx {
            Some(k) => Some(resolve(k)?),
            None => None,
        };
        for j in 0..data.v_col {
            // the table slot (r, c), or None when out of range in zero/skip mode
            let slot = match row {
                Some(Some(r)) => Some((r, j)),
                Some(None) => None,
                None => {
                    let k = get(local, idx, i, j, acc)?.i();
                    resolve(k)?.map(|k| (k / cols, k % cols))
                }
            };
            match (gather, slot) {
                (true, Some((r, c))) => {
                    let bits = t.read_bits(r, c, acc)?;
                    put_bits(local, data, i, j, bits, acc)?;
                }
                (true, None) => put(local, data, i, j, zero, acc)?,
                (false, Some((r, c))) => {
                    if atomic == Atomic::None {
                        let bits = get_bits(local, data, i, j, acc)?;
                        t.write_bits(r, c, bits, acc)?;
                    } else {
                        let x = get(local, data, i, j, acc)?;
                        let old = t.read(r, c, acc)?;
                        let v = combine(atomic, old, x, data.elem.is_float());
                        t.write(r, c, v, acc)?;
                    }
                }
                (false, None) => {}
            }
        }
    }
    Ok(())
}

#[derive(Clone, Copy)]
struct Modes {
    elem: bool,
    oob: Oob,
    atomic: Atomic,
}

/// An NZ GM table, as pto-isa's A2/A3 `MGatherNZGmOffset` /
/// `MScatterNZGmOffset` address it (`include/pto/npu/a2a3/MGather.hpp`,
/// `MScatter.hpp`): the view's 5-D shape is `[B, BCols, BRows, 16, C0]`; the
/// logical matrix has `BRows * 16` rows and `B * BCols * C0` columns, and its
/// element `(r, c)` lies at `(b / BCols) * s0 + (b % BCols) * s1 + (r / 16) * s2
/// + (r % 16) * s3 + (c % C0) * s4` elements with `b = c / C0`.
struct NzTable {
    c0: i64,
    bcols: i64,
    rows: i64,
    cols: i64,
    strides: [i64; 5],
}

impl NzTable {
    fn new(view: &View, data: &Tile, name: &str) -> Result<Self, Fault> {
        let es = view.elem.bytes() as i64;
        let c0 = 32 / es;
        let [b, bcols, brows, frow, vc0] = view.shape;
        if frow != 16 || vc0 != c0 {
            return fault(format!(
                "{name}: an NZ GM table needs shape [B, BCols, BRows, 16, {c0}] ({} elements are 32 bytes), found {:?}",
                view.elem, view.shape
            ));
        }
        // pto-isa pairs an NZ table only with an NZ tile of 16 x C0 fractals
        if data.blayout != BLayout::ColMajor
            || data.slayout != SLayout::RowMajor
            || data.fractal != 512
            || data.rows % 16 != 0
            || data.cols % c0 != 0
        {
            return fault(format!(
                "{name}: with an NZ GM table the tile must be NZ (blayout=col_major, slayout=row_major, fractal=512, rows a multiple of 16, cols of {c0})"
            ));
        }
        Ok(NzTable {
            c0,
            bcols: bcols.max(1),
            rows: brows * 16,
            cols: b * bcols * c0,
            strides: view.strides,
        })
    }

    /// Element offset of logical element (r, c).
    fn offset(&self, r: i64, c: i64) -> i64 {
        let s = self.strides;
        let blk = c / self.c0;
        (blk / self.bcols) * s[0]
            + (blk % self.bcols) * s[1]
            + (r / 16) * s[2]
            + (r % 16) * s[3]
            + (c % self.c0) * s[4]
    }
}

/// `mgather`/`mscatter` on an NZ table (pto-isa's A2/A3 `MGatherRowNzImpl`,
/// `MGatherElemNzImpl`, `MScatterRowNzImpl`, `MScatterElemNzImpl`). Row mode
/// moves whole logical rows (all `B * BCols * C0` columns, whatever the
/// tile's valid columns, as the multi-burst DMA does; gather with
/// `gatherOob = zero` first zeroes the whole tile). Elem mode walks the valid
/// region column block by column block, row by row inside a block (the
/// order in which a scatter's last write wins).
#[allow(clippy::too_many_arguments)]
fn run_nz(
    call: &TileCall,
    t: &Table,
    nz: &NzTable,
    data: &Tile,
    idx: &Tile,
    m: Modes,
    local: &mut Local,
    acc: &mut Accesses,
) -> Result<(), Fault> {
    let name = t.name;
    let gather = call.op == Opcode::MGather;
    let cap = if m.elem { nz.rows * nz.cols } else { nz.rows };
    if cap == 0 {
        return fault(format!("{name}: the GM table is empty"));
    }
    let what = if m.elem { "elements" } else { "rows" };
    let resolve = |k: i64| m.oob.apply(k, cap, name, "NZ GM table", what);
    let zero = if data.elem.is_float() {
        Num::F(0.0)
    } else {
        Num::I(0)
    };
    // one element between table slot (r, c) and tile element (i, j)
    let step =
        |local: &mut Local, acc: &mut Accesses, slot: Option<(i64, i64)>, i: i64, j: i64| match (
            gather, slot,
        ) {
            (true, Some((r, c))) => {
                let bits = t.read_bits_at(nz.offset(r, c), acc)?;
                put_bits(local, data, i, j, bits, acc)
            }
            (true, None) => put(local, data, i, j, zero, acc),
            (false, Some((r, c))) => {
                let off = nz.offset(r, c);
                if m.atomic == Atomic::None {
                    let bits = get_bits(local, data, i, j, acc)?;
                    t.write_bits_at(off, bits, acc)
                } else {
                    let x = get(local, data, i, j, acc)?;
                    let old = read(&t.read_bits_at(off, acc)?.to_le_bytes(), t.view.elem);
                    let v = combine(m.atomic, old, x, data.elem.is_float());
                    let mut b = [0u8; 8];
                    write(&mut b, t.view.elem, v);
                    t.write_bits_at(off, u64::from_le_bytes(b), acc)
                }
            }
            (false, None) => Ok(()),
        };
    if m.elem {
        for cb in (0..data.v_col).step_by(nz.c0 as usize) {
            for i in 0..data.v_row {
                for j in cb..(cb + nz.c0).min(data.v_col) {
                    let k = get(local, idx, i, j, acc)?.i();
                    let slot = resolve(k)?.map(|k| (k / nz.cols, k % nz.cols));
                    step(local, acc, slot, i, j)?;
                }
            }
        }
        return Ok(());
    }
    if nz.cols > data.cols {
        return fault(format!(
            "{name}: an NZ table row has {} columns, more than the tile's {}",
            nz.cols, data.cols
        ));
    }
    if gather && m.oob == Oob::Zero {
        for i in 0..data.rows {
            for j in 0..data.cols {
                put(local, data, i, j, zero, acc)?;
            }
        }
    }
    for i in 0..data.v_row {
        let k = if idx.v_row == 1 && idx.v_col >= data.v_row {
            get(local, idx, 0, i, acc)?.i()
        } else if idx.v_col == 1 && idx.v_row >= data.v_row {
            get(local, idx, i, 0, acc)?.i()
        } else {
            return fault(format!(
                "{name}: in row mode the index tile must be [1, {0}] or [{0}, 1], found a {1}x{2} valid region",
                data.v_row, idx.v_row, idx.v_col
            ));
        };
        let Some(r) = resolve(k)? else { continue };
        for j in 0..nz.cols {
            step(local, acc, Some((r, j)), i, j)?;
        }
    }
    Ok(())
}

fn last_word(s: &str) -> String {
    let s = s.trim_end_matches('>');
    s.rsplit([' ', '<', '.', ':'])
        .next()
        .unwrap_or(s)
        .to_string()
}

fn combine(a: Atomic, old: Num, x: Num, float: bool) -> Num {
    match (a, float) {
        (Atomic::Add, true) => Num::F(old.f() + x.f()),
        (Atomic::Add, false) => Num::I(old.i().wrapping_add(x.i())),
        (Atomic::Max, true) => Num::F(crate::exec::tile_ops::fmax(old.f(), x.f())),
        (Atomic::Max, false) => Num::I(old.i().max(x.i())),
        (Atomic::Min, true) => Num::F(crate::exec::tile_ops::fmin(old.f(), x.f())),
        (Atomic::Min, false) => Num::I(old.i().min(x.i())),
        (Atomic::None, _) => x,
    }
}

struct Table<'a> {
    gm: &'a Gm,
    view: &'a View,
    name: &'static str,
}

impl Table<'_> {
    /// Byte address and size of the element `off` elements from the view's base.
    fn addr(&self, off: i64) -> Result<(u64, u64), Fault> {
        let es = self.view.elem.bytes() as i64;
        let Some(a) = off
            .checked_mul(es)
            .and_then(|b| i64::try_from(self.view.base).ok()?.checked_add(b))
        else {
            return fault(format!(
                "{}: table element {off} lies outside the address space",
                self.name
            ));
        };
        if a < 0 {
            return fault(format!(
                "{}: table element {off} is below GM address 0",
                self.name
            ));
        }
        Ok((a as u64, es as u64))
    }

    fn read_bits_at(&self, off: i64, acc: &mut Accesses) -> Result<u64, Fault> {
        let (a, es) = self.addr(off)?;
        let mut b = [0u8; 8];
        self.gm.read(a, &mut b[..es as usize])?;
        acc.add(Space::Gm, a, es, false);
        Ok(u64::from_le_bytes(b))
    }

    fn write_bits_at(&self, off: i64, bits: u64, acc: &mut Accesses) -> Result<(), Fault> {
        let (a, es) = self.addr(off)?;
        self.gm.write(a, &bits.to_le_bytes()[..es as usize])?;
        acc.add(Space::Gm, a, es, true);
        Ok(())
    }

    fn read_bits(&self, r: i64, c: i64, acc: &mut Accesses) -> Result<u64, Fault> {
        self.read_bits_at(self.view.offset(r, c), acc)
    }

    fn write_bits(&self, r: i64, c: i64, bits: u64, acc: &mut Accesses) -> Result<(), Fault> {
        self.write_bits_at(self.view.offset(r, c), bits, acc)
    }

    fn read(&self, r: i64, c: i64, acc: &mut Accesses) -> Result<Num, Fault> {
        let bits = self.read_bits(r, c, acc)?;
        Ok(read(&bits.to_le_bytes(), self.view.elem))
    }

    fn write(&self, r: i64, c: i64, v: Num, acc: &mut Accesses) -> Result<(), Fault> {
        let mut b = [0u8; 8];
        write(&mut b, self.view.elem, v);
        self.write_bits(r, c, u64::from_le_bytes(b), acc)
    }
}

/// GM -> L1 `mgather`: a `loc=mat` NZ destination, as pto-isa's
/// `MGatherGm2L1RowImpl` / `MGatherGm2L1ElemImpl` (A2/A3 and A5
/// `include/pto/npu/*/MGather.hpp`, checks in `MGatherCheckGm2L1`; PTOAS
/// `verifyMGatherGm2L1`). Operands: `ins(table, idx [, scratch])`, all GM
/// views: the indices come from GM (the cube core cannot read UB), and elem
/// mode stages the tile through a GM scratch of `Rows * Cols` elements.
///
/// * Row: `idx` is read as a flat GM array, `idx[r]` for each valid row `r`;
///   table row `k` starts at `k * stride3` elements (the view's row stride)
///   and its first `v_col` elements land in tile row `r` (the nd2nz DMA).
///   `gatherOob = zero` first zeroes the whole tile and skips out-of-range
///   rows.
/// * Elem: the scratch is zeroed over `Rows * Cols` elements; element
///   `(r, c)` of the valid region reads `idx[r * idx.stride3 + c]`, an index
///   into the table as a flat array of its `prod(shape)` elements, and is
///   written to the scratch at its NZ offset `(c / C0) * Rows * C0 + r * C0 +
///   c % C0`; then the whole scratch is copied into the tile. The scratch
///   keeps that image (the kernel's GM side effect).
#[allow(clippy::too_many_arguments)]
fn run_gm2l1(
    call: &TileCall,
    gm: &Gm,
    local: &mut Local,
    acc: &mut Accesses,
    table: &View,
    dst: &Tile,
    m: Modes,
) -> Result<(), Fault> {
    let name = "mgather";
    if attr_sym(call, &["coalesce"]).is_none() {
        return fault(
            "mgather: the GM->L1 form needs an explicit coalesce (row or elem)".to_string(),
        );
    }
    let views: Vec<&View> = call
        .ins
        .iter()
        .map(|v| match v {
            Val::View(v) => Ok(&**v),
            Val::Tile(_) => fault(
                "mgather: the GM->L1 form takes its indices (and scratch) as GM views, not tiles"
                    .to_string(),
            ),
            _ => fault("mgather: the GM->L1 form takes ins(table, idx [, scratch]) views"),
        })
        .collect::<Result<_, _>>()?;
    let (idx, scratch) = match (m.elem, views.as_slice()) {
        (false, [_, idx]) => (*idx, None),
        (true, [_, idx, scratch]) => (*idx, Some(*scratch)),
        (false, _) => {
            return fault(
                "mgather: the GM->L1 row form takes ins(table, idx) (no scratch)".to_string(),
            )
        }
        (true, _) => {
            return fault(
                "mgather: the GM->L1 elem form takes ins(table, idx, scratch) (a GM scratch of Rows*Cols elements)"
                    .to_string(),
            )
        }
    };
    check_valid(call, dst, "destination")?;
    let dt = dst.elem;
    let allowed = matches!(
        dt,
        DType::I8
            | DType::U8
            | DType::I16
            | DType::U16
            | DType::I32
            | DType::U32
            | DType::F16
            | DType::BF16
            | DType::F32
            | DType::HiF8
            | DType::F8E4M3
            | DType::F8E5M2
    );
    if !allowed {
        return fault(format!(
            "mgather: GM->L1 element type {dt} is not one of i8/u8/i16/u16/i32/u32/f16/bf16/f32 (A5 also hif8/f8e4m3/f8e5m2)"
        ));
    }
    let es = dt.bytes() as i64;
    let c0 = 32 / es;
    if dst.blayout != BLayout::ColMajor
        || dst.slayout != SLayout::RowMajor
        || dst.fractal != 512
        || dst.rows % 16 != 0
        || dst.cols % c0 != 0
    {
        return fault(format!(
            "mgather: the GM->L1 destination must be NZ (blayout=col_major, slayout=row_major, fractal=512) with rows a multiple of 16 and cols of {c0}, found {}x{}",
            dst.rows, dst.cols
        ));
    }
    if table.layout != ViewLayout::Nd {
        return fault("mgather: the GM->L1 table must be an ND view".to_string());
    }
    if table.elem != dt {
        return fault(format!(
            "mgather: the GM->L1 table ({}) and destination ({dt}) element types differ",
            table.elem
        ));
    }
    if !matches!(idx.elem, DType::I32 | DType::U32) {
        return fault(format!(
            "mgather: GM->L1 indices must be i32 or u32, found {}",
            idx.elem
        ));
    }
    let resolve = |k: i64, cap: i64, what: &str| m.oob.apply(k, cap, name, "GM table", what);
    let tab = Table {
        gm,
        view: table,
        name,
    };
    let ix = Table {
        gm,
        view: idx,
        name,
    };
    let index = |acc: &mut Accesses, off: i64| -> Result<i64, Fault> {
        Ok(ix.read_bits_at(off, acc)? as u32 as i64)
    };
    let Some(scratch) = scratch else {
        // row mode
        let (rows, cols) = table.rows_cols();
        if rows == 0 {
            return fault(format!("{name}: the GM table is empty"));
        }
        if dst.v_col > cols {
            return fault(format!(
                "{name}: the tile's {} valid columns are wider than the table's {cols}",
                dst.v_col
            ));
        }
        let n_idx: i64 = idx.shape.iter().product();
        if n_idx < dst.v_row {
            return fault(format!(
                "{name}: the GM index view holds {n_idx} indices, fewer than the {} valid rows",
                dst.v_row
            ));
        }
        let zero = if dt.is_float() {
            Num::F(0.0)
        } else {
            Num::I(0)
        };
        if m.oob == Oob::Zero {
            for i in 0..dst.rows {
                for j in 0..dst.cols {
                    put(local, dst, i, j, zero, acc)?;
                }
            }
        }
        let stride = table.strides[3];
        for r in 0..dst.v_row {
            let Some(k) = resolve(index(acc, r)?, rows, "rows")? else {
                continue;
            };
            for c in 0..dst.v_col {
                let bits = tab.read_bits_at(k * stride + c, acc)?;
                put_bits(local, dst, r, c, bits, acc)?;
            }
        }
        return Ok(());
    };
    // elem mode
    if scratch.elem != dt {
        return fault(format!(
            "mgather: the GM->L1 scratch ({}) and destination ({dt}) element types differ",
            scratch.elem
        ));
    }
    let numel = dst.rows * dst.cols;
    let scratch_len: i64 = scratch.shape.iter().product();
    if scratch_len < numel {
        return fault(format!(
            "{name}: the GM scratch holds {scratch_len} elements, fewer than the destination's {} x {} = {numel}",
            dst.rows, dst.cols
        ));
    }
    let size: i64 = table.shape.iter().product();
    if size == 0 {
        return fault(format!("{name}: the GM table is empty"));
    }
    let sc = Table {
        gm,
        view: scratch,
        name,
    };
    let nz = |r: i64, c: i64| (c / c0) * dst.rows * c0 + r * c0 + c % c0;
    for i in 0..numel {
        sc.write_bits_at(i, 0, acc)?;
    }
    let istride = idx.strides[3];
    for r in 0..dst.v_row {
        for c in 0..dst.v_col {
            let Some(k) = resolve(index(acc, r * istride + c)?, size, "elements")? else {
                continue;
            };
            let bits = tab.read_bits_at(k, acc)?;
            sc.write_bits_at(nz(r, c), bits, acc)?;
        }
    }
    for r in 0..dst.rows {
        for c in 0..dst.cols {
            let bits = sc.read_bits_at(nz(r, c), acc)?;
            put_bits(local, dst, r, c, bits, acc)?;
        }
    }
    Ok(())
}
