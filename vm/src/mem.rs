//! The VM memory module: global memory shared by every core, the on-chip
//! buffers of one core, and mapping `.ptobin` files.
//!
//! GM is shared by host threads (one per running block). It is stored as
//! relaxed atomic 64-bit words, so concurrent blocks touching the same bytes is
//! a race in the *kernel* (ptovm reports it where it can) but never undefined
//! behaviour in ptovm itself. Every access is bounds-checked and returns an
//! error instead of panicking.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::value::Space;

/// An out-of-bounds access.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutOfBounds {
    /// The space.
    pub space: Space,
    /// First byte of the access.
    pub addr: u64,
    /// Length of the access.
    pub len: u64,
    /// Size of the space.
    pub size: u64,
}

impl std::fmt::Display for OutOfBounds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} access [{:#x}, {:#x}) is outside the {} bytes of {}",
            self.space.name(),
            self.addr,
            self.addr.saturating_add(self.len),
            self.size,
            self.space.name()
        )
    }
}

fn check(space: Space, addr: u64, len: u64, size: u64) -> Result<(), OutOfBounds> {
    match addr.checked_add(len) {
        Some(end) if end <= size => Ok(()),
        _ => Err(OutOfBounds {
            space,
            addr,
            len,
            size,
        }),
    }
}

/// Global memory.
#[derive(Debug, Default)]
pub struct Gm {
    words: Vec<AtomicU64>,
    len: u64,
}

impl Gm {
    /// Zeroed GM of `len` bytes.
    pub fn new(len: u64) -> Self {
        let n = len.div_ceil(8) as usize;
        Gm {
            words: (0..n).map(|_| AtomicU64::new(0)).collect(),
            len,
        }
    }

    /// Size in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Reads `out.len()` bytes at `addr`.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), OutOfBounds> {
        check(Space::Gm, addr, out.len() as u64, self.len)?;
        let mut a = addr as usize;
        let mut i = 0;
        while i < out.len() {
            let w = self.words[a / 8].load(Relaxed).to_le_bytes();
            let off = a % 8;
            let n = (8 - off).min(out.len() - i);
            out[i..i + n].copy_from_slice(&w[off..off + n]);
            i += n;
            a += n;
        }
        Ok(())
    }

    /// Writes `data` at `addr`.
    pub fn write(&self, addr: u64, data: &[u8]) -> Result<(), OutOfBounds> {
        check(Space::Gm, addr, data.len() as u64, self.len)?;
        let mut a = addr as usize;
        let mut i = 0;
        while i < data.len() {
            let off = a % 8;
            let n = (8 - off).min(data.len() - i);
            let word = &self.words[a / 8];
            if n == 8 {
                let mut b = [0u8; 8];
                b.copy_from_slice(&data[i..i + 8]);
                word.store(u64::from_le_bytes(b), Relaxed);
            } else {
                // merge the bytes without clobbering neighbours written by other blocks
                let mut mask = [0u8; 8];
                let mut val = [0u8; 8];
                mask[off..off + n].fill(0xff);
                val[off..off + n].copy_from_slice(&data[i..i + n]);
                let mask = u64::from_le_bytes(mask);
                word.fetch_and(!mask, Relaxed);
                word.fetch_or(u64::from_le_bytes(val), Relaxed);
            }
            i += n;
            a += n;
        }
        Ok(())
    }

    /// Copies the whole GM out.
    pub fn snapshot(&self) -> Vec<u8> {
        let mut v = vec![0u8; self.len as usize];
        // in bounds by construction
        let _ = self.read(0, &mut v);
        v
    }
}

/// The on-chip buffers of one core.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Local {
    bufs: [Vec<u8>; 7],
}

impl Local {
    /// Buffers sized by the profile.
    pub fn new(p: &pto_isa_spec::Profile, ub_bytes: Option<usize>) -> Self {
        Local {
            bufs: [
                vec![0; ub_bytes.unwrap_or(p.ub_bytes)],
                vec![0; p.l1_bytes],
                vec![0; p.l0a_bytes],
                vec![0; p.l0b_bytes],
                vec![0; p.l0c_bytes],
                vec![0; p.bias_bytes],
                vec![0; p.fb_bytes],
            ],
        }
    }

    fn buf(&self, s: Space) -> &[u8] {
        s.local_index().map_or(&[][..], |i| &self.bufs[i])
    }

    /// Size of a space in bytes.
    pub fn size(&self, s: Space) -> u64 {
        self.buf(s).len() as u64
    }

    /// A bounds-checked slice.
    pub fn slice(&self, s: Space, addr: u64, len: u64) -> Result<&[u8], OutOfBounds> {
        let b = self.buf(s);
        check(s, addr, len, b.len() as u64)?;
        Ok(&b[addr as usize..(addr + len) as usize])
    }

    /// A bounds-checked mutable slice.
    pub fn slice_mut(&mut self, s: Space, addr: u64, len: u64) -> Result<&mut [u8], OutOfBounds> {
        let size = self.size(s);
        check(s, addr, len, size)?;
        match s.local_index() {
            Some(i) => Ok(&mut self.bufs[i][addr as usize..(addr + len) as usize]),
            None => Err(OutOfBounds {
                space: s,
                addr,
                len,
                size: 0,
            }),
        }
    }
}

/// A memory-mapped `.ptobin` (or any input file), read-only.
pub struct Mapped {
    map: memmap2::Mmap,
}

impl Mapped {
    /// Maps a file read-only.
    pub fn open(path: &std::path::Path) -> std::io::Result<Mapped> {
        let f = std::fs::File::open(path)?;
        // SAFETY: the map is read-only and private to this process; ptovm never
        // writes through it. If another process truncates the file while it is
        // mapped, reads may fault: `pto-run` maps only its own input files for the
        // duration of decoding, which copies everything it keeps.
        let map = unsafe { memmap2::Mmap::map(&f)? };
        Ok(Mapped { map })
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.map
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gm_unaligned_roundtrip_and_bounds() {
        let gm = Gm::new(37);
        gm.write(3, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]).unwrap();
        let mut out = [0u8; 13];
        gm.read(2, &mut out).unwrap();
        assert_eq!(out, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0]);
        assert!(gm.write(30, &[0; 8]).is_err());
        assert!(gm.read(u64::MAX - 2, &mut [0; 8]).is_err());
    }
}
