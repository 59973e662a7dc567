//! Unary f16/bf16 regions (`abs`, `neg`, `sqrt`, `recip`, `rsqrt`, `relu`,
//! `exp`, `log`) by table: a 16-bit input has 65,536 values, so the region's
//! own result for every one of them fits in 128 KiB, and a lookup per
//! element replaces widening, the f32 function (a polynomial for log) and
//! rounding back on 4 lanes.
//!
//! The table is the compiled region run once over all 65,536 inputs, so a
//! lookup gives the compiled region's bits by construction (each lane's
//! result depends on its own input alone). It is built only after the
//! region has been asked for 65,536 elements: building costs one such pass,
//! so it never more than doubles the time the region has spent, and a
//! region run a few times on small tiles never pays for it. Until then, and
//! for arguments outside the plain case ([`crate::ewwide::rows_fit`]), the
//! compiled code runs.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::OnceLock;

use crate::codegen::Code;
use crate::ewwide::{row_at, rows_fit};
use crate::{EwArgs, Lane, Operands, Region, Status};

/// Entries: one per 16-bit input.
const ENTRIES: usize = 1 << 16;

/// A unary half region's table, built on demand.
#[derive(Default)]
pub(crate) struct HalfTable {
    /// Elements asked for so far (until the table exists).
    seen: AtomicU64,
    /// The result for every input bit pattern; `None` if the compiled
    /// region did not return `Ok` on them (never expected).
    table: OnceLock<Option<Box<[u16]>>>,
}

impl HalfTable {
    /// A table for region `r`, if it is a unary region on 16-bit floats.
    pub(crate) fn for_region(r: &Region) -> Option<HalfTable> {
        (matches!(r.lane, Lane::F16 | Lane::BF16) && r.operands == Operands::Unary)
            .then(HalfTable::default)
    }

    /// Runs the region by lookups, or returns `None` (the caller runs the
    /// compiled code): not yet asked for enough elements, or arguments
    /// outside the plain case.
    pub(crate) fn run(&self, code: &Code, mem: &mut [u8], a: &EwArgs) -> Option<Status> {
        if !rows_fit(mem.len(), a, false, 2) {
            return None;
        }
        let table = match self.table.get() {
            Some(t) => t.as_deref()?,
            None => {
                // within 2^32 x 2^32 (rows_fit)
                let n = (a.rows * a.cols) as u64;
                if self.seen.fetch_add(n, Relaxed).saturating_add(n) < ENTRIES as u64 {
                    return None;
                }
                self.table.get_or_init(|| build(code)).as_deref()?
            }
        };
        let n = 2 * a.cols as usize;
        for i in 0..a.rows {
            let (s, _, d) = row_at(a, i, false);
            // rows_fit: the row lies in `mem`, and the source is the
            // destination row itself or disjoint from every destination row
            let look = |x: &[u8]| table[usize::from(u16::from_le_bytes([x[0], x[1]]))];
            if s == d {
                for c in mem[d..d + n].chunks_exact_mut(2) {
                    c.copy_from_slice(&look(c).to_le_bytes());
                }
            } else {
                let (src, dst) = if s < d {
                    let (lo, hi) = mem.split_at_mut(d);
                    (&lo[s..s + n], &mut hi[..n])
                } else {
                    let (lo, hi) = mem.split_at_mut(s);
                    (&hi[..n], &mut lo[d..d + n])
                };
                for (x, y) in src.chunks_exact(2).zip(dst.chunks_exact_mut(2)) {
                    y.copy_from_slice(&look(x).to_le_bytes());
                }
            }
        }
        Some(Status::Ok)
    }
}

/// The compiled region's result for every input, one row of 65,536.
fn build(code: &Code) -> Option<Box<[u16]>> {
    let mut mem: Vec<u8> = (0..ENTRIES)
        .flat_map(|x| (x as u16).to_le_bytes())
        .collect();
    mem.resize(4 * ENTRIES, 0);
    let args = EwArgs {
        dst: 2 * ENTRIES as i64,
        dst_stride: 2 * ENTRIES as i64,
        a: 0,
        a_stride: 2 * ENTRIES as i64,
        rows: 1,
        cols: ENTRIES as i64,
        ..EwArgs::default()
    };
    if code.call(&mut mem, &args.to_array()) != 0 {
        return None;
    }
    Some(
        mem[2 * ENTRIES..]
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Op;

    /// Every unary half region gives the compiled code's bits through its
    /// table, on a tile of every input (in place and not, with padding),
    /// and uses the compiled code until it has been asked for 65,536
    /// elements.
    #[test]
    fn lookups_give_the_compiled_regions_bits() {
        for lane in [Lane::F16, Lane::BF16] {
            for op in [
                Op::Abs,
                Op::Neg,
                Op::Sqrt,
                Op::Recip,
                Op::Rsqrt,
                Op::Relu,
                Op::Exp,
                Op::Log,
            ] {
                let k = crate::compile(&Region {
                    op,
                    lane,
                    operands: Operands::Unary,
                })
                .expect("compiles");
                let t = HalfTable::for_region(&k.region).expect("a half unary region");
                // 256 rows of 256 inputs with a pad of 3 (as 259-element rows)
                let (rows, cols, pad) = (256i64, 256i64, 3i64);
                let stride = (cols + pad) * 2;
                let span = (rows * stride) as usize;
                let mut mem0 = vec![0u8; 2 * span];
                for r in 0..rows as usize {
                    for c in 0..cols as usize {
                        let at = r * stride as usize + 2 * c;
                        mem0[at..at + 2].copy_from_slice(&((r * 256 + c) as u16).to_le_bytes());
                    }
                }
                for in_place in [false, true] {
                    let args = EwArgs {
                        dst: if in_place { 0 } else { span as i64 },
                        dst_stride: stride,
                        a: 0,
                        a_stride: stride,
                        rows,
                        cols,
                        ..EwArgs::default()
                    };
                    let mut want = mem0.clone();
                    assert_eq!(k.inner.call(&mut want, &args.to_array()), 0);
                    let mut got = mem0.clone();
                    assert_eq!(t.run(&k.inner, &mut got, &args), Some(Status::Ok));
                    assert!(got == want, "{lane:?} {op:?} in place {in_place}");
                }
                // a small call once the table exists
                let one = EwArgs {
                    dst: span as i64,
                    dst_stride: 6,
                    a: 2,
                    a_stride: stride,
                    rows: 3,
                    cols: 3,
                    ..EwArgs::default()
                };
                let mut want = mem0.clone();
                assert_eq!(k.inner.call(&mut want, &one.to_array()), 0);
                let mut got = mem0.clone();
                assert_eq!(t.run(&k.inner, &mut got, &one), Some(Status::Ok));
                assert!(got == want, "{lane:?} {op:?} small");
            }
        }
    }

    /// The table waits for 65,536 elements; hostile or overlapping arguments
    /// and other regions are not taken.
    #[test]
    fn the_table_waits_and_refuses_what_it_does_not_take() {
        let r = Region {
            op: Op::Log,
            lane: Lane::F16,
            operands: Operands::Unary,
        };
        let k = crate::compile(&r).expect("compiles");
        let t = HalfTable::for_region(&r).expect("taken");
        let mut mem = vec![0u8; 1 << 12];
        let args = EwArgs {
            dst: 2048,
            dst_stride: 64,
            a: 0,
            a_stride: 64,
            rows: 32,
            cols: 32,
            ..EwArgs::default()
        };
        // 1024 elements per call: the 64th call reaches 65,536
        for _ in 0..63 {
            assert_eq!(t.run(&k.inner, &mut mem, &args), None);
        }
        assert_eq!(t.run(&k.inner, &mut mem, &args), Some(Status::Ok));
        for bad in [
            EwArgs { rows: 33, ..args },
            EwArgs { a: -64, ..args },
            EwArgs {
                a_stride: -64,
                ..args
            },
            EwArgs {
                cols: i64::MAX / 2,
                ..args
            },
            // the destination overlaps the source it is not
            EwArgs { dst: 32, ..args },
        ] {
            assert_eq!(t.run(&k.inner, &mut mem, &bad), None, "{bad:?}");
        }
        for other in [
            Region {
                lane: Lane::F32,
                ..r
            },
            Region {
                op: Op::Add,
                operands: Operands::Binary,
                ..r
            },
        ] {
            assert!(HalfTable::for_region(&other).is_none());
        }
    }
}
