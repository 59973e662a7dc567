//! Cube <-> vector FIFOs (`tpush_to_aiv`/`tpop_from_aic`/`tfree_from_aic` and
//! the vector-to-cube direction): the pipe configuration, the per-cluster
//! slot accounting the scoreboard blocks on, and the copy of one entry into
//! the consumer's slot.
//!
//! Model (A5 local-to-local path, also used for A2/A3 tile entries): a pipe
//! has `slot_num` slots of `slot_size` bytes in the consumer's buffer (the
//! `reserve_buffer` named by the init). The n-th push of a producer writes
//! slot `n % slot_num`; it waits until every consumer has freed entry
//! `n - slot_num`. The m-th pop of a consumer waits until every producer has
//! pushed entry m, then binds the result tile to slot `m % slot_num`. The
//! cube is the only producer (consumer) of a cube-to-vector (vector-to-cube)
//! pipe; both vector subblocks take part in every entry.

use pto_asm::ty::{BLayout, SLayout, TileLoc};

use crate::exec::{fault, Accesses, Fault};
use crate::mem::Local;
use crate::num;
use crate::program::{InstId, Reg};
use crate::value::{Space, Tile};

/// What `pto.aic_initialize_pipe` / `pto.aiv_initialize_pipe` says.
#[derive(Clone, Debug)]
pub struct PipeInit {
    /// Logical pipe id.
    pub id: u32,
    /// 1 cube to vector, 2 vector to cube, 3 both.
    pub dir_mask: u32,
    /// Bytes of one unsplit entry.
    pub slot_size: u64,
    /// Explicit `slot_num` (default 8, or 4 per direction for `dir_mask = 3`).
    pub slot_num: Option<u64>,
    /// Cube-to-vector consumer buffer (UB address).
    pub c2v_buf: Option<Reg>,
    /// Vector-to-cube consumer buffer (L1 address).
    pub v2c_buf: Option<Reg>,
    /// GM slot descriptor of a global-only FIFO.
    pub gm_tensor: Option<Reg>,
}

/// One push or free: what the other side joins when it takes it.
#[derive(Clone, Debug)]
pub struct Mark {
    /// Checker clock of the agent that did it.
    pub vc: Option<Vec<u32>>,
    /// When it completed (timed scheduler).
    pub time: u64,
    /// The instruction.
    pub inst: InstId,
}

/// The state of one direction of one logical pipe in a cluster.
#[derive(Clone, Debug, Default)]
pub struct Fifo {
    /// Slots.
    pub slot_num: u64,
    /// Bytes per slot.
    pub slot_size: u64,
    /// Consumer buffer address (set by either side's init).
    pub base: Option<u64>,
    /// GM slot descriptor (global-only FIFO).
    pub gm: Option<crate::value::View>,
    /// Per producer party: its pushes in order.
    pub pushes: Vec<Vec<Mark>>,
    /// Per consumer party: entries popped.
    pub pops: Vec<u64>,
    /// Per consumer party: its frees in order.
    pub frees: Vec<Vec<Mark>>,
    /// Per producer party: entries allocated with `talloc` (global entries).
    pub allocs: Vec<u64>,
}

impl Fifo {
    /// A FIFO for direction `c2v` with the given geometry.
    pub fn new(c2v: bool, slot_num: u64, slot_size: u64) -> Self {
        let (np, nc) = if c2v { (1, 2) } else { (2, 1) };
        Fifo {
            slot_num: slot_num.max(1),
            slot_size,
            base: None,
            gm: None,
            pushes: vec![Vec::new(); np],
            pops: vec![0; nc],
            frees: vec![Vec::new(); nc],
            allocs: vec![0; np],
        }
    }

    /// Whether producer `p` may write its next entry: its slot has been freed
    /// by every consumer. Returns the consumer that still holds it otherwise.
    pub fn slot_free(&self, p: usize, n: u64) -> Result<(), usize> {
        let _ = p;
        if n < self.slot_num {
            return Ok(());
        }
        let need = n - self.slot_num;
        match self.frees.iter().position(|f| (f.len() as u64) <= need) {
            Some(c) => Err(c),
            None => Ok(()),
        }
    }

    /// Whether consumer `c` may pop its next entry: every producer pushed it.
    /// Returns a producer that has not otherwise.
    pub fn entry_ready(&self, c: usize) -> Result<(), usize> {
        let m = self.pops.get(c).copied().unwrap_or(0);
        match self.pushes.iter().position(|p| (p.len() as u64) <= m) {
            Some(p) => Err(p),
            None => Ok(()),
        }
    }

    /// Byte offset of entry `n` in the consumer buffer.
    pub fn slot_offset(&self, n: u64) -> u64 {
        (n % self.slot_num).saturating_mul(self.slot_size)
    }
}

/// Copies the producer's part of one entry into a consumer slot.
///
/// Cube to vector: `src` is the producer tile (acc); the consumer `sub` gets
/// rows `[sub * R/2, ...)` (split 1), columns `[sub * C/2, ...)` (split 2) or
/// the whole valid region (split 0), row-major with the entry's column count
/// at `addr` in its UB. Vector to cube: subblock `sub`'s vec tile is inserted
/// into an NZ matrix of the whole entry at `addr` in the cube's L1, at row
/// `sub * rows` (split 1) or column `sub * cols` (split 2).
#[allow(clippy::too_many_arguments)]
pub fn copy_entry(
    src_local: &Local,
    src: &Tile,
    dst_local: &mut Local,
    addr: u64,
    c2v: bool,
    split: u32,
    sub: i64,
    slot_size: u64,
    src_acc: &mut Accesses,
    dst_acc: &mut Accesses,
) -> Result<(), Fault> {
    if split > 2 {
        return fault(format!(
            "split mode {split} (odd splits) is not implemented for local FIFOs"
        ));
    }
    let (vr, vc) = (src.v_row, src.v_col);
    let dst;
    // (source row, source col) of destination (0, 0); rows x cols copied;
    // destination offset
    let (sr, sc, rows, cols, dr, dc);
    if c2v {
        let (cr, cc) = match split {
            1 => (src.rows / 2, src.cols),
            2 => (src.rows, src.cols / 2),
            _ => (src.rows, src.cols),
        };
        let (pr, pc) = match split {
            1 => (vr / 2, vc),
            2 => (vr, vc / 2),
            _ => (vr, vc),
        };
        dst = Tile {
            loc: TileLoc::Vec,
            addr,
            elem: src.elem,
            rows: cr,
            cols: cc,
            v_row: pr,
            v_col: pc,
            blayout: BLayout::RowMajor,
            slayout: SLayout::NoneBox,
            fractal: 512,
            pad: 0,
        };
        (sr, sc) = match split {
            1 => (sub * pr, 0),
            2 => (0, sub * pc),
            _ => (0, 0),
        };
        (rows, cols, dr, dc) = (pr, pc, 0, 0);
    } else {
        let (cr, cc) = match split {
            1 => (src.rows.saturating_mul(2), src.cols),
            2 => (src.rows, src.cols.saturating_mul(2)),
            _ => (src.rows, src.cols),
        };
        dst = Tile {
            loc: TileLoc::Mat,
            addr,
            elem: src.elem,
            rows: cr.saturating_add(15) / 16 * 16,
            cols: cc,
            v_row: cr,
            v_col: cc,
            blayout: BLayout::ColMajor,
            slayout: SLayout::RowMajor,
            fractal: 512,
            pad: 0,
        };
        (dr, dc) = match split {
            1 => (sub * vr, 0),
            2 => (0, sub * vc),
            _ => (0, 0),
        };
        (sr, sc, rows, cols) = (0, 0, vr, vc);
    }
    let es = src.elem.bytes() as u64;
    let bytes = (dst.rows.saturating_mul(dst.cols)).max(0) as u64 * es;
    if bytes > slot_size {
        return fault(format!(
            "the FIFO entry needs {bytes} bytes ({}x{} {:?}), the slot holds {slot_size}",
            dst.rows, dst.cols, src.elem
        ));
    }
    let (ss, ds) = (Space::of_tile(src.loc), Space::of_tile(dst.loc));
    for r in 0..rows {
        for c in 0..cols {
            let sa = src.elem_addr(r + sr, c + sc)?;
            let da = dst.elem_addr(r + dr, c + dc)?;
            let v = num::read(src_local.slice(ss, sa, es)?, src.elem);
            num::write(dst_local.slice_mut(ds, da, es)?, dst.elem, v);
            src_acc.add(ss, sa, es, false);
            dst_acc.add(ds, da, es, true);
        }
    }
    Ok(())
}
