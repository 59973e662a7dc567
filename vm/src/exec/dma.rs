//! Explicit DMA: the v0.6 grouped form (`mte_gm_ub`, `mte_ub_gm`, `mte_ub_ub`
//! with `nburst(...)`, `loop(...)`, `pad(...)`) and the legacy
//! `copy_gm_to_ubuf` / `copy_ubuf_to_gm` driven by the `set_loop*` registers.
//! Lengths and strides are bytes; strides are start-to-start distances
//! (`mte_ub_ub` counts 32-byte units and end-to-start gaps; the machine converts).

use pto_isa_spec::DType;

use crate::exec::{fault, meter, Accesses, Fault};
use crate::mem::{Gm, Local};
use crate::program::{Combine, DmaDir};
use crate::value::{Ptr, Space};

/// One resolved transfer.
#[derive(Clone, Debug, PartialEq)]
pub struct Transfer {
    /// Direction.
    pub dir: DmaDir,
    /// Source.
    pub src: Ptr,
    /// Destination.
    pub dst: Ptr,
    /// Bytes per burst.
    pub len: u64,
    /// Levels, innermost first: (count, src stride, dst stride).
    pub levels: Short<(u64, i64, i64), 3>,
    /// Pad fill value (element bytes) for UB rows; rows are padded to 32 bytes.
    pub pad: Option<Short<u8, 8>>,
    /// A GM destination combines with what it holds (`set_atomic_*`):
    /// element by element, in this type.
    pub atomic: Option<(Combine, DType)>,
}

/// A short list kept inline up to `N` items and on the heap beyond: a
/// transfer's levels and pad bytes, resolved for every DMA the scalar unit
/// issues, then need no heap allocation of their own.
#[derive(Clone, Debug)]
pub struct Short<T: Copy + Default, const N: usize> {
    inline: [T; N],
    len: usize,
    /// All items once there are more than `N` (`inline` is then unused).
    heap: Vec<T>,
}

impl<T: Copy + Default, const N: usize> Short<T, N> {
    /// An empty list.
    pub fn new() -> Self {
        Short {
            inline: [T::default(); N],
            len: 0,
            heap: Vec::new(),
        }
    }

    /// Empties the list (keeping any heap allocation).
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
        self.heap.clear();
    }

    /// Appends an item.
    #[inline]
    pub fn push(&mut self, v: T) {
        if self.len < N {
            self.inline[self.len] = v;
        } else {
            if self.len == N {
                self.heap.extend_from_slice(&self.inline);
            }
            self.heap.push(v);
        }
        self.len += 1;
    }
}

impl<T: Copy + Default, const N: usize> Default for Short<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy + Default, const N: usize> From<&[T]> for Short<T, N> {
    fn from(items: &[T]) -> Self {
        let mut s = Self::new();
        for v in items {
            s.push(*v);
        }
        s
    }
}

impl<T: Copy + Default, const N: usize> std::ops::Deref for Short<T, N> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        if self.len <= N {
            &self.inline[..self.len]
        } else {
            &self.heap
        }
    }
}

impl<T: Copy + Default, const N: usize> std::ops::DerefMut for Short<T, N> {
    fn deref_mut(&mut self) -> &mut [T] {
        if self.len <= N {
            &mut self.inline[..self.len]
        } else {
            &mut self.heap
        }
    }
}

impl<T: Copy + Default + PartialEq, const N: usize> PartialEq for Short<T, N> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

/// Upper bound on bytes one transfer may move (guards hostile loop counts).
const MAX_BYTES: u64 = 1 << 32;

/// The number of bursts `counts` (one count per level) multiply to, or, as
/// the error, the bytes they would move (saturated) when that is more than
/// `max` bursts of `len` bytes allow. Bursts of 0 bytes move nothing, so
/// there are none to run (hostile counts cannot spin on empty bursts).
pub(crate) fn bursts(
    mut counts: impl Iterator<Item = u64>,
    len: u64,
    max: u64,
) -> Result<u64, u64> {
    let n = counts.try_fold(1u64, |a, c| a.checked_mul(c));
    match n {
        _ if len == 0 => Ok(0),
        Some(n) if n.saturating_mul(len) <= max => Ok(n),
        n => Err(n.unwrap_or(u64::MAX).saturating_mul(len)),
    }
}

/// The source and destination addresses of burst `k` over `levels`
/// (innermost first: count, source stride, destination stride), each `None`
/// when it overflows or leaves `0..2^63`.
pub(crate) fn burst_addrs(
    mut k: u64,
    levels: &[(u64, i64, i64)],
    src: u64,
    dst: u64,
) -> (Option<u64>, Option<u64>) {
    let (mut so, mut dof) = (Some(0i64), Some(0i64));
    for &(cnt, ss, ds) in levels {
        let i = (k % cnt.max(1)) as i64;
        k /= cnt.max(1);
        so = so.and_then(|o| o.checked_add(i.checked_mul(ss)?));
        dof = dof.and_then(|o| o.checked_add(i.checked_mul(ds)?));
    }
    let at = |base: u64, off: Option<i64>| {
        let a = i64::try_from(base).ok()?.checked_add(off?)?;
        u64::try_from(a).ok()
    };
    (at(src, so), at(dst, dof))
}

/// Runs a transfer.
pub fn run(gm: &Gm, local: &mut Local, t: &Transfer, acc: &mut Accesses) -> Result<(), Fault> {
    let (want_src, want_dst) = match t.dir {
        DmaDir::GmToUb => (Space::Gm, Space::Ub),
        DmaDir::UbToGm => (Space::Ub, Space::Gm),
        DmaDir::UbToUb => (Space::Ub, Space::Ub),
    };
    if t.src.space != want_src || t.dst.space != want_dst {
        return fault(format!(
            "DMA expects a {} source and a {} destination, got {} and {}",
            want_src.name(),
            want_dst.name(),
            t.src.space.name(),
            t.dst.space.name()
        ));
    }
    let n = bursts(t.levels.iter().map(|l| l.0), t.len, MAX_BYTES).map_err(|total| {
        Fault::Msg(format!(
            "DMA moves {total} bytes, more than ptovm allows in one transfer"
        ))
    })?;
    // a staging buffer for UB -> UB, GM -> GM and atomic stores only
    let plain_store = !matches!(t.atomic, Some((how, _)) if how != Combine::Store);
    let staged = (t.src.space == Space::Gm) == (t.dst.space == Space::Gm) || !plain_store;
    let mut buf = vec![0u8; if staged { t.len as usize } else { 0 }];
    for k in 0..n {
        meter::charge(t.len + 16)?;
        let (Some(sa), Some(da)) = burst_addrs(k, &t.levels, t.src.addr, t.dst.addr) else {
            return fault("DMA address became negative or overflowed (check the strides)");
        };
        if t.src.space == Space::Gm && t.dst.space != Space::Gm && plain_store {
            // GM -> on-chip: straight into the destination, no staging copy
            gm.read(sa, local.slice_mut(t.dst.space, da, t.len)?)?;
            acc.add(t.src.space, sa, t.len, false);
            acc.add(t.dst.space, da, t.len, true);
            pad_row(local, t, da, acc)?;
            continue;
        }
        if !staged {
            // on-chip -> GM, a plain store: straight from the source
            gm.write(da, local.slice(t.src.space, sa, t.len)?)?;
            acc.add(t.src.space, sa, t.len, false);
            acc.add(t.dst.space, da, t.len, true);
            continue;
        }
        match t.src.space {
            Space::Gm => gm.read(sa, &mut buf)?,
            s => buf.copy_from_slice(local.slice(s, sa, t.len)?),
        }
        acc.add(t.src.space, sa, t.len, false);
        match t.dst.space {
            Space::Gm => match t.atomic {
                Some((how, dt)) if how != Combine::Store => {
                    let es = dt.bytes();
                    if !t.len.is_multiple_of(es as u64) {
                        return fault(format!(
                            "atomic DMA of {} bytes is not a whole number of {dt} elements",
                            t.len
                        ));
                    }
                    let mut old = vec![0u8; t.len as usize];
                    gm.read(da, &mut old)?;
                    for (o, n) in old.chunks_mut(es).zip(buf.chunks(es)) {
                        let v = crate::exec::comm::combine(
                            how,
                            crate::num::read(o, dt),
                            crate::num::read(n, dt),
                            dt,
                        );
                        crate::num::write(o, dt, v);
                    }
                    acc.add(Space::Gm, da, t.len, false);
                    gm.write(da, &old)?
                }
                _ => gm.write(da, &buf)?,
            },
            s => local.slice_mut(s, da, t.len)?.copy_from_slice(&buf),
        }
        acc.add(t.dst.space, da, t.len, true);
        pad_row(local, t, da, acc)?;
    }
    Ok(())
}

/// Fills a UB destination row from `len` up to its 32-byte boundary with the
/// transfer's pad pattern, when it has one.
fn pad_row(local: &mut Local, t: &Transfer, da: u64, acc: &mut Accesses) -> Result<(), Fault> {
    if let (Some(p), Space::Ub) = (&t.pad, t.dst.space) {
        let padded = t.len.div_ceil(32) * 32;
        if padded > t.len && !p.is_empty() {
            let extra = padded - t.len;
            let fill: Vec<u8> = p.iter().copied().cycle().take(extra as usize).collect();
            local
                .slice_mut(Space::Ub, da + t.len, extra)?
                .copy_from_slice(&fill);
            acc.add(Space::Ub, da + t.len, extra, true);
        }
    }
    Ok(())
}

/// The legacy loop registers (`set_loop_size_*`, `set_loop{1,2}_stride_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoopRegs {
    /// (loop1 count, loop2 count) for out->ub and ub->out.
    pub size: [(u64, u64); 2],
    /// loop1 (src, dst) strides for out->ub and ub->out.
    pub loop1: [(i64, i64); 2],
    /// loop2 (src, dst) strides.
    pub loop2: [(i64, i64); 2],
    /// The atomic operation of UB to GM transfers (`set_atomic_add`...).
    pub atomic: Combine,
    /// Its element type (`set_atomic_f32`...).
    pub atomic_dt: DType,
    /// The GM -> L1 ND/DN -> NZ repack parameters (`set_mte2_nz_para`:
    /// group count, destination loop 2/3/4 strides in 16-bit fields), read
    /// by `copy_gm_to_cbuf_multi_{nd,dn}2nz`; None until set.
    pub nz_para: Option<u64>,
    /// The FIXPIPE registers `set_quant_pre`, `set_relu_alpha`,
    /// `set_fix_clip_relu`, `set_loop3_para`, `set_channel_para` and
    /// `set_fpc` (None until set), read by `copy_matrix_cc_*`.
    pub fix: [Option<u64>; 6],
    /// The GM -> UB pad value (`set_mov_pad_val`): its bytes, little-endian,
    /// as wide as the value's type; None until set.
    pub mov_pad: Option<([u8; 8], u8)>,
    /// The GM -> L1 loop registers `set_loop_size_outtol1` (loop1 count in
    /// bits [0, 21), loop2 count in [21, 41)), `set_loop1_stride_outtol1`
    /// and `set_loop2_stride_outtol1` (byte strides: source in [0, 40),
    /// destination from bit 40), as raw words; read by `copy_gm_to_cbuf`.
    pub outtol1: [u64; 3],
}

impl LoopRegs {
    /// The atomic mode a transfer in direction `dir` takes when issued.
    pub fn atomic_for(&self, dir: DmaDir) -> Option<(Combine, DType)> {
        (dir == DmaDir::UbToGm && self.atomic != Combine::Store)
            .then_some((self.atomic, self.atomic_dt))
    }
}

impl Default for LoopRegs {
    fn default() -> Self {
        LoopRegs {
            size: [(1, 1); 2],
            loop1: [(0, 0); 2],
            loop2: [(0, 0); 2],
            atomic: Combine::Store,
            atomic_dt: DType::F32,
            nz_para: None,
            fix: [None; 6],
            mov_pad: None,
            outtol1: [1 << 21 | 1, 0, 0],
        }
    }
}
