//! The reference interpreter, one file per instruction group.

pub mod comm;
pub mod convert;
pub mod cube;
pub mod dma;
pub mod expand;
pub mod fixpipe_fp;
pub mod fixpipe_quant;
pub mod gather;
pub mod gen;
pub mod hist;
pub mod img2col;
pub mod irregular;
pub mod layout_ops;
pub mod matmul;
pub mod meter;
pub mod mgather;
pub mod minifloat;
pub mod mx_zz;
pub mod print;
pub mod quant;
pub mod quant_mx;
pub mod random;
pub mod reduce;
pub mod scalar;
pub mod sort;
pub mod tile;
pub mod tile_ops;
pub mod vec_arith;
pub mod vec_convert;
pub mod vec_mem;
pub mod vec_ops;
pub mod vec_pred;
pub mod vec_rearrange;
pub mod vec_sort;
pub mod vector;
pub mod vmi;

use crate::mem::OutOfBounds;
use crate::value::Space;

/// One memory access of an instruction, reported to the hazard checker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// Space.
    pub space: Space,
    /// First byte.
    pub addr: u64,
    /// Bytes.
    pub len: u64,
    /// Write (else read).
    pub write: bool,
}

/// Collects accesses when the checker is on.
#[derive(Debug, Default)]
pub struct Accesses {
    /// Whether to record.
    pub on: bool,
    /// The accesses.
    pub list: Vec<Access>,
}

impl Accesses {
    /// Records an access.
    #[inline]
    pub fn add(&mut self, space: Space, addr: u64, len: u64, write: bool) {
        if self.on && len > 0 {
            // merge with one of the last few accesses when contiguous: row by
            // row copies, and element loops that interleave their operands
            // (read a[i], read b[i], write d[i]) become one range per operand.
            // The accesses of one instruction are simultaneous for the
            // checker, so their order does not matter, and bytes one of them
            // already covers (a per-row value read once per element) add nothing.
            let n = self.list.len();
            for last in self.list[n.saturating_sub(4)..].iter_mut().rev() {
                if last.space != space || last.write != write {
                    continue;
                }
                if last.addr + last.len == addr {
                    last.len += len;
                    return;
                }
                if last.addr <= addr && addr + len <= last.addr + last.len {
                    return;
                }
            }
            self.list.push(Access {
                space,
                addr,
                len,
                write,
            });
        }
    }
}

impl Accesses {
    /// Sorts the accesses and merges overlapping or adjacent ranges of the
    /// same space and kind. The accesses of one instruction are simultaneous
    /// for the checker, so this changes nothing it finds, only how many
    /// ranges it walks: element-wise loops over boxed (NZ/ZZ) tiles record one
    /// range per element run, and a whole tile becomes one range.
    pub fn normalize(&mut self) {
        if self.list.len() < 2 {
            return;
        }
        self.list
            .sort_unstable_by_key(|a| (a.space.local_index(), a.write, a.addr));
        let mut out: Vec<Access> = Vec::with_capacity(self.list.len());
        for a in self.list.drain(..) {
            match out.last_mut() {
                Some(l) if l.space == a.space && l.write == a.write && a.addr <= l.addr + l.len => {
                    l.len = l.len.max(a.addr + a.len - l.addr);
                }
                _ => out.push(a),
            }
        }
        self.list = out;
    }
}

/// Why an instruction could not execute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Memory access out of bounds.
    Bounds(OutOfBounds),
    /// Anything else, with a message.
    Msg(String),
    /// The run's wall-clock deadline passed inside the operation
    /// ([`meter::charge`]); the machine reports `RunError::Timeout`.
    Timeout,
}

impl From<OutOfBounds> for Fault {
    fn from(e: OutOfBounds) -> Self {
        Fault::Bounds(e)
    }
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Bounds(b) => b.fmt(f),
            Fault::Msg(m) => f.write_str(m),
            Fault::Timeout => f.write_str("stopped by --timeout"),
        }
    }
}

/// Shorthand for a message fault.
pub fn fault<T>(msg: impl Into<String>) -> Result<T, Fault> {
    Err(Fault::Msg(msg.into()))
}
