//! The VM memory module: global memory shared by every core, the on-chip
//! buffers of one core, and mapping `.ptobin` files.
//!
//! GM is shared by host threads (one per running block), one separate
//! allocation per rank under `--ranks` (see [`RANK_SHIFT`]). It is stored as
//! relaxed atomic 64-bit words, so concurrent blocks touching the same bytes is
//! a race in the *kernel* (ptovm reports it where it can) but never undefined
//! behaviour in ptovm itself. Every access is bounds-checked and returns an
//! error instead of panicking.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};

use crate::value::Space;

/// Initial contents of a GM range ([`Gm::with_contents`]).
#[derive(Clone, Copy, Debug)]
pub enum Fill<'a> {
    /// These bytes.
    Bytes(&'a [u8]),
    /// `len` bytes of a file from byte `offset` on (zeros past its end).
    File(&'a std::path::Path, u64, u64),
    /// `len` zero bytes: nothing to copy (a fresh GM is zeroed as it is
    /// first touched, a reused one is zeroed over what the last run wrote).
    Zeros(u64),
}

impl Fill<'_> {
    /// The range's length in bytes.
    pub fn len(&self) -> u64 {
        match self {
            Fill::Bytes(b) => b.len() as u64,
            Fill::File(_, _, n) | Fill::Zeros(n) => *n,
        }
    }

    /// Whether the range is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The file at `path`, positioned at byte `offset`.
fn open_at(path: &std::path::Path, offset: u64) -> std::io::Result<std::fs::File> {
    use std::io::Seek;
    let mut f = std::fs::File::open(path)?;
    if offset > 0 {
        f.seek(std::io::SeekFrom::Start(offset))?;
    }
    Ok(f)
}

/// Reads until `buf` is full or the reader ends; the bytes read.
/// Whether every byte is zero: OR-folded in chunks (no early exit inside a
/// chunk, so it vectorises; a byte-by-byte `all` ran at ~8 instructions a
/// byte over a 64 MiB output).
fn all_zero(b: &[u8]) -> bool {
    b.chunks(4096)
        .all(|c| c.iter().fold(0u8, |a, x| a | x) == 0)
}

fn read_full(r: &mut impl std::io::Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

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
        let rank = self.addr >> RANK_SHIFT;
        if self.space == Space::Gm && self.size == 0 && rank > 0 {
            let (lo, hi) = (self.addr, self.addr.saturating_add(self.len));
            // rank bits of a possible rank (runs have at most 256) name a GM
            // the run does not have; anything higher is no GM address at all
            // (often a negative offset that wrapped)
            return if rank < 256 {
                write!(
                    f,
                    "GM access [{lo:#x}, {hi:#x}) is in the GM of rank {rank}, which this run does not have"
                )
            } else {
                write!(f, "GM access [{lo:#x}, {hi:#x}) is outside every GM")
            };
        }
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

/// Bit position of the rank number in a GM address: with `--ranks R`, rank
/// `r`'s GM is a separate allocation seen at `r << RANK_SHIFT` by every rank
/// (the symmetric-window model of the communication runtime).
pub const RANK_SHIFT: u32 = 40;

/// One rank's global memory.
#[derive(Debug, Default)]
struct Segment {
    words: Vec<AtomicU64>,
    len: u64,
    /// The words `[lo, hi)` that may have been written: a pooled buffer is
    /// cleared only there for its next run.
    lo: AtomicUsize,
    hi: AtomicUsize,
}

impl Segment {
    /// A zeroed segment, except that the bytes of `skip` (sorted, disjoint
    /// `[lo, hi)` byte ranges the caller writes next) may hold anything.
    fn new(len: u64, skip: &[(usize, usize)]) -> Segment {
        Segment {
            words: zeroed_words(len.div_ceil(8) as usize, skip),
            len,
            lo: AtomicUsize::new(usize::MAX),
            hi: AtomicUsize::new(0),
        }
    }

    /// Notes that words `[w0, w1)` may have been written.
    fn mark(&self, w0: usize, w1: usize) {
        if self.lo.load(Relaxed) > w0 {
            self.lo.fetch_min(w0, Relaxed);
        }
        if self.hi.load(Relaxed) < w1 {
            self.hi.fetch_max(w1, Relaxed);
        }
    }
}

/// `n` zeroed words, except in the byte ranges `skip` (sorted, disjoint), which
/// the caller overwrites next. A GM buffer a finished run left in [`POOL`] is reused
/// (zeroes over the words that run wrote, outside `skip`: a benchmark's
/// arguments fill most of its GM, and zeroing them first doubled the work
/// of placing them); otherwise a zeroed allocation, whose large pages
/// the kernel maps lazily. Reusing matters for repeated runs in one process
/// (conformance tiers, benchmarks, library users): a fresh multi-MiB GM
/// costs a page fault per 4 KiB on first touch, more than a whole compiled
/// run of small kernels, and whether the allocator hands back fresh pages
/// depended on the process's history (glibc's adaptive mmap threshold).
fn zeroed_words(n: usize, skip: &[(usize, usize)]) -> Vec<AtomicU64> {
    if n >= POOL_MIN_WORDS {
        if let Some((mut v, lo, hi)) = POOL.lock().ok().and_then(|mut p| {
            // the smallest pooled buffer that is large enough
            let k = (0..p.len())
                .filter(|&k| p[k].0.capacity() >= n)
                .min_by_key(|&k| p[k].0.capacity())?;
            Some(p.swap_remove(k))
        }) {
            // words past the old length are written by the resize
            let keep = v.len().min(n);
            v.truncate(keep);
            if lo < hi.min(keep) {
                let bytes = words_as_bytes(&mut v[..keep]);
                let (mut at, end) = (lo * 8, hi.min(keep) * 8);
                for &(a, b) in skip {
                    if a > at {
                        bytes[at..a.min(end)].fill(0);
                    }
                    at = at.max(b);
                    if at >= end {
                        break;
                    }
                }
                if at < end {
                    bytes[at..end].fill(0);
                }
            }
            v.resize_with(n, || AtomicU64::new(0));
            return v;
        }
    }
    let mut v = std::mem::ManuallyDrop::new(vec![0u64; n]);
    // SAFETY: `AtomicU64` has the same size, alignment and bit validity as
    // `u64` (documented by std), so the allocation, its length and capacity and
    // its initialised elements are valid for a `Vec<AtomicU64>`; `ManuallyDrop`
    // makes the new vector the allocation's only owner.
    unsafe { Vec::from_raw_parts(v.as_mut_ptr().cast::<AtomicU64>(), v.len(), v.capacity()) }
}

/// GM buffers of finished runs with the words `[lo, hi)` they may hold
/// written, kept for the next run (at most [`POOL_MAX_BUFFERS`] buffers and
/// [`POOL_MAX_WORDS`] words in all).
#[allow(clippy::type_complexity)]
static POOL: std::sync::Mutex<Vec<(Vec<AtomicU64>, usize, usize)>> =
    std::sync::Mutex::new(Vec::new());
/// Smaller GMs are cheap to allocate (8 KiB).
const POOL_MIN_WORDS: usize = 1024;
const POOL_MAX_BUFFERS: usize = 8;
/// 256 MiB.
const POOL_MAX_WORDS: usize = 32 << 20;

impl Drop for Segment {
    fn drop(&mut self) {
        let v = std::mem::take(&mut self.words);
        if v.capacity() < POOL_MIN_WORDS || v.capacity() > POOL_MAX_WORDS {
            return;
        }
        let (lo, hi) = (*self.lo.get_mut(), *self.hi.get_mut());
        if let Ok(mut p) = POOL.lock() {
            let held: usize = p.iter().map(|b| b.0.capacity()).sum();
            if p.len() < POOL_MAX_BUFFERS && held + v.capacity() <= POOL_MAX_WORDS {
                p.push((v, lo, hi));
            }
        }
    }
}

/// The bytes of exclusively borrowed GM words (callers check the host is
/// little-endian, the byte order of the atomic accessors).
fn words_as_bytes(w: &mut [AtomicU64]) -> &mut [u8] {
    // SAFETY: the words are exclusively borrowed, so no atomic access can
    // overlap; `AtomicU64` has the same in-memory representation as `u64`, and
    // any byte pattern is a valid `u8` with alignment 1; the length covers
    // exactly the words' bytes.
    unsafe { std::slice::from_raw_parts_mut(w.as_mut_ptr().cast::<u8>(), w.len() * 8) }
}

/// One kernel argument's bytes in GM, for the out-of-buffer check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GmBuffer {
    /// First byte (including the rank bits).
    pub lo: u64,
    /// One past the last byte.
    pub hi: u64,
    /// The argument's name, e.g. `%arg0` (with the rank under `--ranks`).
    pub name: String,
}

/// Global memory: one segment per rank (one for an ordinary run).
#[derive(Debug, Default)]
pub struct Gm {
    segs: Vec<Segment>,
    /// The argument buffers, sorted by address (empty: no check).
    buffers: Vec<GmBuffer>,
    /// Inside [`Gm::solo`]: the token ([`thread_token`]) of the one thread
    /// that may reach the words, which then copies them without atomics;
    /// 0 otherwise. Only written through `&mut self`.
    solo: usize,
}

thread_local! {
    /// A byte whose address identifies the running thread while it lives.
    static THREAD_MARK: u8 = const { 0 };
}

/// The running thread's token for [`Gm::solo`]: the address of its
/// [`THREAD_MARK`], never 0, and distinct between threads alive at once.
fn thread_token() -> usize {
    THREAD_MARK.with(|m| m as *const u8 as usize)
}

impl Gm {
    /// Zeroed GM of `len` bytes for a single rank.
    pub fn new(len: u64) -> Self {
        Self::with_ranks(&[len])
    }

    /// Zeroed GMs, one of `lens[r]` bytes per rank `r`.
    pub fn with_ranks(lens: &[u64]) -> Self {
        Gm {
            segs: lens.iter().map(|&len| Segment::new(len, &[])).collect(),
            buffers: Vec::new(),
            solo: 0,
        }
    }

    /// GMs of `lens[r]` bytes per rank `r`, zeroed except for `init`: the
    /// contents at each `(addr, fill)` (the arguments of a run), which are
    /// written once instead of zeroed and then written. Errors: a range
    /// outside GM, or a file that cannot be read.
    pub fn with_contents(lens: &[u64], init: &[(u64, Fill<'_>)]) -> Result<Self, String> {
        let mut skips: Vec<Vec<(usize, usize)>> = vec![Vec::new(); lens.len()];
        for (addr, fill) in init {
            let addr = *addr;
            let (r, off) = (
                (addr >> RANK_SHIFT) as usize,
                addr & ((1u64 << RANK_SHIFT) - 1),
            );
            let len = fill.len();
            match (lens.get(r), off.checked_add(len)) {
                // zeros are not skipped: the segment zeroes them
                (Some(&size), Some(end)) if end <= size && matches!(fill, Fill::Zeros(_)) => {}
                (Some(&size), Some(end)) if end <= size => {
                    skips[r].push((off as usize, end as usize))
                }
                _ => {
                    return Err(OutOfBounds {
                        space: Space::Gm,
                        addr,
                        len,
                        size: lens.get(r).copied().unwrap_or(0),
                    }
                    .to_string())
                }
            }
        }
        for sk in &mut skips {
            // sorted and merged into disjoint ranges
            sk.sort_unstable();
            let mut merged: Vec<(usize, usize)> = Vec::with_capacity(sk.len());
            for &(a, b) in sk.iter() {
                match merged.last_mut() {
                    Some(last) if a <= last.1 => last.1 = last.1.max(b),
                    _ => merged.push((a, b)),
                }
            }
            *sk = merged;
        }
        let mut gm = Gm {
            segs: lens
                .iter()
                .zip(&skips)
                .map(|(&len, sk)| Segment::new(len, sk))
                .collect(),
            buffers: Vec::new(),
            solo: 0,
        };
        for (addr, fill) in init {
            match fill {
                Fill::Bytes(data) => gm.write_exclusive(*addr, data).map_err(|e| e.to_string())?,
                Fill::File(path, offset, len) => gm.fill_exclusive(*addr, path, *offset, *len)?,
                Fill::Zeros(_) => {}
            }
        }
        Ok(gm)
    }

    /// Reads `len` bytes of the file at `path` from byte `offset` on
    /// straight into GM at `addr` while nothing else can reach GM (no copy in
    /// between: a kernel's weights may be hundreds of MiB); bytes past the
    /// file's end are zeroed.
    fn fill_exclusive(
        &mut self,
        addr: u64,
        path: &std::path::Path,
        offset: u64,
        len: u64,
    ) -> Result<(), String> {
        let cannot = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
        let mut f = open_at(path, offset).map_err(cannot)?;
        if cfg!(target_endian = "big") {
            // words hold little-endian values: go through the byte path
            let mut data = vec![0; len as usize];
            let n = read_full(&mut f, &mut data).map_err(cannot)?;
            data[n..].fill(0);
            return self.write_exclusive(addr, &data).map_err(|e| e.to_string());
        }
        let (seg, a) = self.seg(addr, len).map_err(|e| e.to_string())?;
        let len = len as usize;
        seg.mark(a / 8, (a + len).div_ceil(8));
        let r = (addr >> RANK_SHIFT) as usize;
        let bytes = &mut words_as_bytes(&mut self.segs[r].words)[a..a + len];
        let n = read_full(&mut f, bytes).map_err(cannot)?;
        bytes[n..].fill(0);
        Ok(())
    }

    /// Writes `data` at `addr` while nothing else can reach GM (placing the
    /// arguments before a run): one plain copy.
    pub fn write_exclusive(&mut self, addr: u64, data: &[u8]) -> Result<(), OutOfBounds> {
        if cfg!(target_endian = "big") {
            return self.write(addr, data);
        }
        let (seg, a) = self.seg(addr, data.len() as u64)?;
        seg.mark(a / 8, (a + data.len()).div_ceil(8));
        let r = (addr >> RANK_SHIFT) as usize;
        let bytes = words_as_bytes(&mut self.segs[r].words);
        bytes[a..a + data.len()].copy_from_slice(data);
        Ok(())
    }

    /// The `len` bytes at `addr`, read while nothing else can reach GM (the
    /// results after a run) into `out`, replacing its contents: one copy that
    /// reuses `out`'s allocation when it is large enough (repeated runs then
    /// allocate nothing and touch no fresh pages).
    pub fn read_exclusive_into(
        &mut self,
        addr: u64,
        len: usize,
        out: &mut Vec<u8>,
    ) -> Result<(), OutOfBounds> {
        out.clear();
        if cfg!(target_endian = "big") {
            out.resize(len, 0);
            return self.read(addr, out);
        }
        let (_, a) = self.seg(addr, len as u64)?;
        let r = (addr >> RANK_SHIFT) as usize;
        let bytes = words_as_bytes(&mut self.segs[r].words);
        out.extend_from_slice(&bytes[a..a + len]);
        Ok(())
    }

    /// Calls `f` with the `len` bytes at `addr`, in place while nothing else
    /// can reach GM (the results after a run): no copy on little-endian
    /// hosts, so comparing a large output costs no second buffer.
    pub fn with_exclusive<T>(
        &mut self,
        addr: u64,
        len: usize,
        f: impl FnOnce(&[u8]) -> T,
    ) -> Result<T, OutOfBounds> {
        if cfg!(target_endian = "big") {
            let mut out = vec![0; len];
            self.read(addr, &mut out)?;
            return Ok(f(&out));
        }
        let (_, a) = self.seg(addr, len as u64)?;
        let r = (addr >> RANK_SHIFT) as usize;
        let bytes = words_as_bytes(&mut self.segs[r].words);
        Ok(f(&bytes[a..a + len]))
    }

    /// Whether GM at `addr` still holds `fill` (after a run: did the kernel
    /// change that buffer?), compared in place while nothing else can reach
    /// GM: no copy, no allocation beyond a chunk for a file.
    pub fn holds(&mut self, addr: u64, fill: &Fill<'_>) -> Result<bool, String> {
        let len = fill.len();
        let (_, a) = self.seg(addr, len).map_err(|e| e.to_string())?;
        let len = len as usize;
        let r = (addr >> RANK_SHIFT) as usize;
        if cfg!(target_endian = "big") {
            let mut now = vec![0; len];
            self.read(addr, &mut now).map_err(|e| e.to_string())?;
            return Ok(match fill {
                Fill::Bytes(b) => now == *b,
                Fill::Zeros(_) => all_zero(&now),
                Fill::File(..) => false,
            });
        }
        let bytes = &words_as_bytes(&mut self.segs[r].words)[a..a + len];
        match fill {
            Fill::Bytes(b) => Ok(bytes == *b),
            Fill::Zeros(_) => Ok(all_zero(bytes)),
            Fill::File(path, offset, _) => {
                // the file may have changed since: any read error or
                // difference counts as changed
                let Ok(mut f) = open_at(path, *offset) else {
                    return Ok(false);
                };
                let mut chunk = vec![0u8; (1 << 20).min(len.max(1))];
                let mut at = 0;
                while at < len {
                    let want = chunk.len().min(len - at);
                    let n = match read_full(&mut f, &mut chunk[..want]) {
                        Ok(n) => n,
                        Err(_) => return Ok(false),
                    };
                    if chunk[..n] != bytes[at..at + n] {
                        return Ok(false);
                    }
                    at += n;
                    if n < want {
                        // past the file's end the buffer started as zeros
                        return Ok(all_zero(&bytes[at..]));
                    }
                }
                Ok(true)
            }
        }
    }

    /// Reads `out.len()` bytes at `addr` while nothing else can reach GM
    /// (reading the results after a run): one plain copy.
    pub fn read_exclusive(&mut self, addr: u64, out: &mut [u8]) -> Result<(), OutOfBounds> {
        if cfg!(target_endian = "big") {
            return self.read(addr, out);
        }
        let (_, a) = self.seg(addr, out.len() as u64)?;
        let r = (addr >> RANK_SHIFT) as usize;
        let bytes = words_as_bytes(&mut self.segs[r].words);
        out.copy_from_slice(&bytes[a..a + out.len()]);
        Ok(())
    }

    /// Declares the argument buffers: GM accesses outside all of them are
    /// reported by [`Gm::outside_buffers`].
    pub fn set_buffers(&mut self, mut buffers: Vec<GmBuffer>) {
        buffers.sort_by_key(|b| b.lo);
        self.buffers = buffers;
    }

    /// The argument buffer holding byte `addr`, if any.
    pub fn buffer_at(&self, addr: u64) -> Option<&GmBuffer> {
        let i = self.buffers.partition_point(|b| b.lo <= addr);
        i.checked_sub(1)
            .map(|j| &self.buffers[j])
            .filter(|b| addr < b.hi)
    }

    /// For `[addr, addr + len)` not inside one argument buffer: the buffer it
    /// starts in or after (if any) and how it misses it. `None` when it is
    /// inside one buffer or no buffers were declared.
    pub fn outside_buffers(&self, addr: u64, len: u64) -> Option<String> {
        if self.buffers.is_empty() || len == 0 {
            return None;
        }
        let end = addr.saturating_add(len);
        let i = self.buffers.partition_point(|b| b.lo <= addr);
        let Some(b) = i.checked_sub(1).map(|j| &self.buffers[j]) else {
            return Some(format!(
                "[{addr:#x}, {end:#x}) lies before every argument buffer"
            ));
        };
        if end <= b.hi {
            return None;
        }
        let size = b.hi - b.lo;
        Some(if addr < b.hi {
            format!(
                "[{addr:#x}, {end:#x}), {} byte(s) past the end of {} ({size} bytes at {:#x})",
                end - b.hi,
                b.name,
                b.lo
            )
        } else {
            format!(
                "[{addr:#x}, {end:#x}), outside every argument buffer (the nearest below is {}, {size} bytes at [{:#x}, {:#x}))",
                b.name, b.lo, b.hi
            )
        })
    }

    /// Number of ranks.
    pub fn ranks(&self) -> u32 {
        self.segs.len() as u32
    }

    /// Size in bytes of rank 0's GM.
    pub fn len(&self) -> u64 {
        self.segs.first().map_or(0, |s| s.len)
    }

    /// True when rank 0's GM is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Runs `f` with this GM reachable from the calling thread only, the
    /// case of every run on one host thread: reads and writes then copy
    /// bytes instead of going word by word through atomics (a 4 KiB DMA
    /// took ~1,800 instructions that way). Any access from another thread
    /// while `f` runs panics instead of racing the plain copies; nothing
    /// else can reach GM, since `self` is borrowed exclusively.
    pub fn solo<R>(&mut self, f: impl FnOnce(&Gm) -> R) -> R {
        self.solo = thread_token();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(self)));
        self.solo = 0;
        r.unwrap_or_else(|p| std::panic::resume_unwind(p))
    }

    /// Whether reads and writes copy plainly: inside [`Gm::solo`] on a
    /// little-endian host. Call it after [`Gm::seg`], which has checked that
    /// the calling thread is `solo`'s (and panicked otherwise).
    #[inline(always)]
    fn plain(&self) -> bool {
        self.solo != 0 && cfg!(target_endian = "little")
    }

    /// The segment and in-segment offset of `[addr, addr + len)`. Inside
    /// [`Gm::solo`] every access to the words passes here first: another
    /// thread panics before it reaches them (its atomic accesses could race
    /// the plain copies).
    #[inline(always)]
    fn seg(&self, addr: u64, len: u64) -> Result<(&Segment, usize), OutOfBounds> {
        if self.solo != 0 {
            assert_eq!(
                self.solo,
                thread_token(),
                "internal: GM reached from a second thread during a single-thread run"
            );
        }
        let r = (addr >> RANK_SHIFT) as usize;
        let off = addr & ((1u64 << RANK_SHIFT) - 1);
        let size = self.segs.get(r).map_or(0, |s| s.len);
        match (self.segs.get(r), off.checked_add(len)) {
            (Some(s), Some(end)) if end <= s.len => Ok((s, off as usize)),
            _ => Err(OutOfBounds {
                space: Space::Gm,
                addr,
                len,
                size,
            }),
        }
    }

    /// Reads `out.len()` bytes at `addr`.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), OutOfBounds> {
        let (seg, a) = self.seg(addr, out.len() as u64)?;
        if self.plain() {
            // SAFETY: `plain` holds only inside `solo`, and `seg` above let
            // only `solo`'s thread through (any other panics before it
            // reaches the words), so no access to them runs concurrently
            // with this copy (the words sit in `UnsafeCell`s, so reading them
            // through a pointer from a shared borrow is allowed). `seg`
            // checked `a + out.len()` against the segment's length, which its
            // words cover (8 bytes each), and `out` cannot overlap GM's words.
            // Words hold little-endian values and `plain` is false on
            // big-endian hosts, so the bytes are the ones the word path would
            // give.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    seg.words.as_ptr().cast::<u8>().add(a),
                    out.as_mut_ptr(),
                    out.len(),
                );
            }
            return Ok(());
        }
        // a partial first word, whole words, a partial last word
        let head = ((8 - a % 8) % 8).min(out.len());
        let (first, rest) = out.split_at_mut(head);
        if head > 0 {
            let w = seg.words[a / 8].load(Relaxed).to_le_bytes();
            first.copy_from_slice(&w[a % 8..a % 8 + head]);
        }
        let w0 = (a + head) / 8;
        let wi = w0 + rest.len() / 8;
        let (body, tail) = rest.split_at_mut(rest.len() / 8 * 8);
        load_words(&seg.words[w0..wi], body);
        if !tail.is_empty() {
            let w = seg.words[wi].load(Relaxed).to_le_bytes();
            tail.copy_from_slice(&w[..tail.len()]);
        }
        Ok(())
    }

    /// Writes `data` at `addr`.
    pub fn write(&self, addr: u64, data: &[u8]) -> Result<(), OutOfBounds> {
        let (seg, a) = self.seg(addr, data.len() as u64)?;
        seg.mark(a / 8, (a + data.len()).div_ceil(8));
        if self.plain() {
            // SAFETY: as in `read`: no other thread reaches the words during
            // `solo`, the words are `UnsafeCell`s (so writing through a pointer
            // from a shared borrow is allowed), `seg` bounded `a + data.len()`
            // by the segment's length, and `data` cannot overlap GM's words.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    data.as_ptr(),
                    seg.words.as_ptr().cast::<u8>().cast_mut().add(a),
                    data.len(),
                );
            }
            return Ok(());
        }
        // merge partial words without clobbering neighbours written by other blocks
        let merge = |wi: usize, off: usize, bytes: &[u8]| {
            let mut mask = [0u8; 8];
            let mut val = [0u8; 8];
            mask[off..off + bytes.len()].fill(0xff);
            val[off..off + bytes.len()].copy_from_slice(bytes);
            let word = &seg.words[wi];
            word.fetch_and(!u64::from_le_bytes(mask), Relaxed);
            word.fetch_or(u64::from_le_bytes(val), Relaxed);
        };
        let head = ((8 - a % 8) % 8).min(data.len());
        let (first, rest) = data.split_at(head);
        if head > 0 {
            merge(a / 8, a % 8, first);
        }
        let w0 = (a + head) / 8;
        let (body, tail) = rest.split_at(rest.len() / 8 * 8);
        store_words(&seg.words[w0..w0 + body.len() / 8], body);
        if !tail.is_empty() {
            merge(w0 + rest.len() / 8, 0, tail);
        }
        Ok(())
    }

    /// Atomically adds `v` to the aligned i32 at `addr` (`tnotify` AtomicAdd).
    pub fn fetch_add_i32(&self, addr: u64, v: i32) -> Result<(), OutOfBounds> {
        if !addr.is_multiple_of(4) {
            return Err(OutOfBounds {
                space: Space::Gm,
                addr,
                len: 4,
                size: self.len(),
            });
        }
        let (seg, a) = self.seg(addr, 4)?;
        seg.mark(a / 8, a / 8 + 1);
        let word = &seg.words[a / 8];
        let shift = (a % 8) * 8;
        let mut cur = word.load(Relaxed);
        loop {
            let old = (cur >> shift) as u32 as i32;
            let new = old.wrapping_add(v) as u32 as u64;
            let next = (cur & !(0xffff_ffffu64 << shift)) | (new << shift);
            match word.compare_exchange_weak(cur, next, Relaxed, Relaxed) {
                Ok(_) => return Ok(()),
                Err(x) => cur = x,
            }
        }
    }

    /// Copies rank 0's whole GM out.
    pub fn snapshot(&self) -> Vec<u8> {
        let mut v = vec![0u8; self.len() as usize];
        // in bounds by construction
        let _ = self.read(0, &mut v);
        v
    }
}

/// A zeroed buffer. Large ones are anonymous mappings, whose pages the
/// kernel zeroes on first touch: a core's ~1 MiB of on-chip buffers costs
/// nothing until a kernel uses it (a heap allocation had to be memset on
/// every run). A dropped mapping whose written bytes span little is zeroed
/// again and kept in a pool for the next run's buffers of its size, which
/// saves the mapping, the unmapping and the page faults of every run.
struct Zeroed {
    mem: ZMem,
    /// The bytes `[lo, hi)` that may have been written (`lo >= hi`: none).
    dirty: (usize, usize),
}

enum ZMem {
    Map(memmap2::MmapMut),
    Heap(Vec<u8>),
}

/// Mappings at least this large are pooled.
const MAP_MIN: usize = 64 * 1024;
/// A dropped mapping is pooled if re-zeroing it clears at most this many bytes.
const POOL_ZERO_MAX: usize = 64 * 1024;
/// Mappings kept per process.
const MAP_POOL_MAX: usize = 64;

static MAP_POOL: std::sync::Mutex<Vec<memmap2::MmapMut>> = std::sync::Mutex::new(Vec::new());

impl Zeroed {
    fn new(n: usize) -> Zeroed {
        let mem = if n >= MAP_MIN {
            let pooled = MAP_POOL.lock().ok().and_then(|mut p| {
                let k = p.iter().position(|m| m.len() == n)?;
                Some(p.swap_remove(k))
            });
            match pooled
                .map(Ok)
                .unwrap_or_else(|| memmap2::MmapOptions::new().len(n).map_anon())
            {
                Ok(m) => ZMem::Map(m),
                Err(_) => ZMem::Heap(vec![0; n]),
            }
        } else {
            ZMem::Heap(vec![0; n])
        };
        Zeroed {
            mem,
            dirty: (usize::MAX, 0),
        }
    }

    /// All bytes for writing, of which only `[lo, hi)` (clamped to the
    /// buffer) may be written.
    fn whole_mut(&mut self, lo: usize, hi: usize) -> &mut [u8] {
        let n = self.len();
        let (lo, hi) = (lo.min(n), hi.min(n));
        if lo < hi {
            self.dirty = (self.dirty.0.min(lo), self.dirty.1.max(hi));
        }
        match &mut self.mem {
            ZMem::Map(m) => m,
            ZMem::Heap(v) => v,
        }
    }

    /// `[lo, hi)` for writing (in bounds: the caller checked).
    fn range_mut(&mut self, lo: usize, hi: usize) -> &mut [u8] {
        self.dirty = (self.dirty.0.min(lo), self.dirty.1.max(hi));
        match &mut self.mem {
            ZMem::Map(m) => &mut m[lo..hi],
            ZMem::Heap(v) => &mut v[lo..hi],
        }
    }
}

impl Drop for Zeroed {
    fn drop(&mut self) {
        let (lo, hi) = self.dirty;
        if !matches!(self.mem, ZMem::Map(_)) || hi > lo && hi - lo > POOL_ZERO_MAX {
            return;
        }
        let ZMem::Map(mut m) = std::mem::replace(&mut self.mem, ZMem::Heap(Vec::new())) else {
            return;
        };
        if hi > lo {
            m[lo..hi].fill(0);
        }
        if let Ok(mut p) = MAP_POOL.lock() {
            if p.len() < MAP_POOL_MAX {
                p.push(m);
            }
        }
    }
}

impl std::ops::Deref for Zeroed {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.mem {
            ZMem::Map(m) => m,
            ZMem::Heap(v) => v,
        }
    }
}

impl Clone for Zeroed {
    fn clone(&self) -> Zeroed {
        let mut z = Zeroed::new(self.len());
        let n = self.len();
        z.range_mut(0, n).copy_from_slice(self);
        z
    }
}

impl PartialEq for Zeroed {
    fn eq(&self, o: &Zeroed) -> bool {
        **self == **o
    }
}

impl Eq for Zeroed {}

impl Default for Zeroed {
    fn default() -> Zeroed {
        Zeroed {
            mem: ZMem::Heap(Vec::new()),
            dirty: (usize::MAX, 0),
        }
    }
}

impl std::fmt::Debug for Zeroed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{} bytes]", self.len())
    }
}

/// A slice to read and one to write, of two different buffers.
pub type ReadWrite<'a> = (&'a [u8], &'a mut [u8]);

/// The on-chip buffers of one core.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Local {
    bufs: [Zeroed; 7],
    /// The cube's TF32 transform mode (`settf32mode`): f32 matmul operands
    /// are rounded to TF32 while it is on.
    pub tf32: bool,
    /// The FMATRIX / img2col registers (`setfmatrix`, `set_img2col_*`).
    pub img2col: crate::exec::img2col::Regs,
    /// The vector unit's special registers that ops update outside SSA.
    pub spr: Spr,
}

/// Special-purpose registers of a core's vector unit that instructions
/// read and write implicitly (see `exec::vec_mem` and `exec::vsort`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Spr {
    /// `AR`: the byte offset of the register-offset unaligned store stream
    /// (`vstur`), cleared by `sprclr`, stored by `sprsti`/`sprsts`.
    pub ar: u64,
    /// `SQZN`: the byte count of the last `vsqz` (active lanes times lane
    /// size), which `vstur` stores and advances `AR` by.
    pub sqzn: u64,
    /// `VMS4_SR`: the per-list consumed counts of the last `vmrgsort4`,
    /// 16 bits each (list 0 lowest).
    pub vms4_sr: u64,
}

impl Local {
    /// Runs `f` on these buffers and the special registers apart (the ops
    /// written for a compiled scope's UB as well), then keeps what `f` left
    /// in the registers.
    pub fn with_spr<T>(&mut self, f: impl FnOnce(&mut Self, &mut Spr) -> T) -> T {
        let mut spr = self.spr;
        let out = f(self, &mut spr);
        self.spr = spr;
        out
    }

    /// Buffers sized by the profile.
    pub fn new(p: &pto_isa_spec::Profile, ub_bytes: Option<usize>) -> Self {
        Local {
            bufs: [
                Zeroed::new(ub_bytes.unwrap_or(p.ub_bytes)),
                Zeroed::new(p.l1_bytes),
                Zeroed::new(p.l0a_bytes),
                Zeroed::new(p.l0b_bytes),
                Zeroed::new(p.l0c_bytes),
                Zeroed::new(p.bias_bytes),
                Zeroed::new(p.fb_bytes),
            ],
            tf32: false,
            img2col: Default::default(),
            spr: Spr::default(),
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
            Some(i) => Ok(self.bufs[i].range_mut(addr as usize, (addr + len) as usize)),
            None => Err(OutOfBounds {
                space: s,
                addr,
                len,
                size: 0,
            }),
        }
    }
}

impl Local {
    /// A bounds-checked slice of space `r` and a mutable one of space `w`
    /// at once (a matmul reads its left operand where it lies while it
    /// updates its accumulator); `None` when both are the same space, whose
    /// slices could overlap.
    pub fn slice_and_mut(
        &mut self,
        (r, raddr, rlen): (Space, u64, u64),
        (w, waddr, wlen): (Space, u64, u64),
    ) -> Option<Result<ReadWrite<'_>, OutOfBounds>> {
        let (ri, wi) = (r.local_index()?, w.local_index()?);
        let [rb, wb] = self.bufs.get_disjoint_mut([ri, wi]).ok()?;
        let checked = check(r, raddr, rlen, rb.len() as u64)
            .and_then(|()| check(w, waddr, wlen, wb.len() as u64));
        Some(checked.map(|()| {
            let read = &rb[raddr as usize..(raddr + rlen) as usize];
            (read, wb.range_mut(waddr as usize, (waddr + wlen) as usize))
        }))
    }

    /// All of space `s` for code that may write only `[lo, hi)` of it (a JIT
    /// region over UB with its destination tiles there). Only that span is
    /// cleared when the buffer is reused for a later run, so a write outside
    /// it would leak into that run: callers pass a span that covers every
    /// byte the code can write. Taking the whole space with
    /// [`Local::slice_mut`] instead marks all of it written, which costs a
    /// fresh mapping (and its page faults) on every run.
    pub fn whole_mut(&mut self, s: Space, lo: u64, hi: u64) -> Result<&mut [u8], OutOfBounds> {
        match s.local_index() {
            Some(i) => Ok(self.bufs[i].whole_mut(
                usize::try_from(lo).unwrap_or(usize::MAX),
                usize::try_from(hi).unwrap_or(usize::MAX),
            )),
            None => Err(OutOfBounds {
                space: s,
                addr: 0,
                len: 0,
                size: 0,
            }),
        }
    }
}

/// The bytes `[lo, hi)` that rows `0..rows` of `row_bytes` bytes each,
/// `stride` bytes apart from `addr`, span (empty when there are none).
pub fn rows_span(addr: i64, rows: i64, stride: i64, row_bytes: i64) -> (u64, u64) {
    if rows <= 0 || row_bytes <= 0 {
        return (0, 0);
    }
    let last = stride.saturating_mul(rows - 1);
    let lo = addr.saturating_add(last.min(0)).max(0);
    let hi = addr
        .saturating_add(last.max(0))
        .saturating_add(row_bytes)
        .max(0);
    (lo as u64, hi as u64)
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

/// Copies `words` (little-endian) into `out` (8 bytes per word), four words
/// per step: a DMA burst moves a few hundred words, and the per-word loop
/// overhead was most of its cost.
fn load_words(words: &[AtomicU64], out: &mut [u8]) {
    let mut oc = out.chunks_exact_mut(32);
    let mut wc = words.chunks_exact(4);
    for (o, w) in (&mut oc).zip(&mut wc) {
        let v = [
            w[0].load(Relaxed),
            w[1].load(Relaxed),
            w[2].load(Relaxed),
            w[3].load(Relaxed),
        ];
        for (d, x) in o.chunks_exact_mut(8).zip(v) {
            d.copy_from_slice(&x.to_le_bytes());
        }
    }
    for (o, w) in oc.into_remainder().chunks_exact_mut(8).zip(wc.remainder()) {
        o.copy_from_slice(&w.load(Relaxed).to_le_bytes());
    }
}

/// Stores `data` (8 bytes per word, little-endian) into `words`, four
/// words per step (see [`load_words`]).
fn store_words(words: &[AtomicU64], data: &[u8]) {
    let word = |b: &[u8]| {
        let mut x = [0u8; 8];
        x.copy_from_slice(b);
        u64::from_le_bytes(x)
    };
    let mut dc = data.chunks_exact(32);
    let mut wc = words.chunks_exact(4);
    for (d, w) in (&mut dc).zip(&mut wc) {
        w[0].store(word(&d[0..8]), Relaxed);
        w[1].store(word(&d[8..16]), Relaxed);
        w[2].store(word(&d[16..24]), Relaxed);
        w[3].store(word(&d[24..32]), Relaxed);
    }
    for (d, w) in dc.remainder().chunks_exact(8).zip(wc.remainder()) {
        w.store(word(d), Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_zero_sees_a_byte_in_any_chunk() {
        let mut b = vec![0u8; 10_000];
        assert!(all_zero(&b) && all_zero(&[]));
        for at in [0, 4095, 4096, 9_999] {
            b[at] = 0x80;
            assert!(!all_zero(&b), "byte {at}");
            b[at] = 0;
        }
    }

    /// `n` pseudo-random bytes from a linear congruential generator.
    fn lcg_bytes(seed: &mut u32, n: usize) -> Vec<u8> {
        (0..n)
            .map(|_| {
                *seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                (*seed >> 16) as u8
            })
            .collect()
    }

    /// Short spans at every offset read back what was written (the word
    /// path with its partial words, or the plain copies of [`Gm::solo`]).
    fn short_spans_like_a_byte_array(gm: &Gm) -> [u8; 64] {
        let mut model = [0u8; 64];
        let mut seed = 7u32;
        for a in 0..24 {
            for n in 0..=24 {
                let data = lcg_bytes(&mut seed, n);
                gm.write(a as u64, &data).unwrap();
                model[a..a + n].copy_from_slice(&data);
                for ra in 0..40 {
                    let mut got = vec![0u8; 24];
                    gm.read(ra as u64, &mut got).unwrap();
                    assert_eq!(got, model[ra..ra + 24], "write {a}+{n}, read {ra}");
                }
            }
        }
        assert!(gm.read(60, &mut [0u8; 8]).is_err());
        assert!(gm.write(57, &[0u8; 8]).is_err());
        model
    }

    #[test]
    fn gm_reads_and_writes_any_span_like_a_byte_array() {
        let mut gm = Gm::new(64);
        let model = short_spans_like_a_byte_array(&gm);
        // inside `solo` (plain copies) the same, and what it wrote stays
        let mut solo = Gm::new(64);
        assert_eq!(solo.solo(short_spans_like_a_byte_array), model);
        assert_eq!(solo.snapshot(), model);
        assert_eq!(gm.snapshot(), model);
        // the exclusive copies see and write the same bytes
        let mut all = [0u8; 64];
        gm.read_exclusive(0, &mut all).unwrap();
        assert_eq!(all, model);
        gm.write_exclusive(5, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
            .unwrap();
        let mut got = [0u8; 11];
        gm.read(5, &mut got).unwrap();
        assert_eq!(got, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
        assert!(gm.write_exclusive(60, &[0; 8]).is_err());
        assert!(gm.read_exclusive(60, &mut [0; 8]).is_err());
        let mut fresh = Gm::new(4096);
        let mut z = vec![1u8; 4096];
        fresh.read_exclusive(0, &mut z).unwrap();
        assert!(z.iter().all(|b| *b == 0));
        // reading into a vector replaces its contents, reusing its allocation
        let mut v = vec![7u8; 100];
        let cap = v.capacity();
        gm.read_exclusive_into(5, 11, &mut v).unwrap();
        assert_eq!(v, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
        assert_eq!(v.capacity(), cap);
        assert!(gm.read_exclusive_into(60, 8, &mut v).is_err());
    }

    /// Spans of several words (the four-word steps of the copies, their
    /// remainders and unaligned ends) read back what was written.
    #[test]
    fn gm_long_spans_like_a_byte_array() {
        long_spans_like_a_byte_array(&Gm::new(256));
        Gm::new(256).solo(long_spans_like_a_byte_array);
    }

    fn long_spans_like_a_byte_array(gm: &Gm) {
        let mut model = [0u8; 256];
        let mut seed = 11u32;
        for a in 0..17 {
            for n in [0, 7, 8, 31, 32, 33, 40, 63, 64, 65, 100, 130] {
                let data = lcg_bytes(&mut seed, n);
                gm.write(a as u64, &data).unwrap();
                model[a..a + n].copy_from_slice(&data);
                for (ra, rn) in [(0, 256), (a, n), (3, 97), (8, 64), (1, 40)] {
                    let mut got = vec![0u8; rn];
                    gm.read(ra as u64, &mut got).unwrap();
                    assert_eq!(got, model[ra..ra + rn], "write {a}+{n}, read {ra}+{rn}");
                }
            }
        }
    }

    #[test]
    fn accesses_outside_the_argument_buffers_are_named() {
        let mut gm = Gm::new(8192);
        assert_eq!(
            gm.outside_buffers(0, 64),
            None,
            "no buffers declared: no check"
        );
        gm.set_buffers(vec![
            GmBuffer {
                lo: 0x1400,
                hi: 0x1500,
                name: "%b".into(),
            },
            GmBuffer {
                lo: 0x1000,
                hi: 0x1100,
                name: "%a".into(),
            },
        ]);
        assert_eq!(gm.outside_buffers(0x1000, 0x100), None);
        assert_eq!(gm.outside_buffers(0x1480, 0x80), None);
        let over = gm.outside_buffers(0x10c0, 0x80).expect("overrun");
        assert!(
            over.contains("64 byte(s) past the end of %a (256 bytes at 0x1000)"),
            "{over}"
        );
        let gap = gm.outside_buffers(0x1200, 4).expect("in the gap");
        assert!(
            gap.contains("outside every argument buffer") && gap.contains("%a"),
            "{gap}"
        );
        let below = gm.outside_buffers(0x10, 4).expect("below");
        assert!(below.contains("before every argument buffer"), "{below}");
        // spanning two buffers is not inside one
        assert!(gm.outside_buffers(0x1000, 0x500).is_some());
    }

    #[test]
    fn reused_local_buffers_start_zeroed() {
        let p = pto_isa_spec::ProfileId::A5.profile();
        for round in 0..4u8 {
            let mut l = Local::new(p, None);
            for s in [Space::Ub, Space::L1, Space::L0a, Space::L0c] {
                let size = l.size(s);
                assert!(
                    l.slice(s, 0, size).unwrap().iter().all(|b| *b == 0),
                    "{s:?} in round {round}"
                );
                // a small write (pooled after zeroing) and, in UB, a large one
                let n = if s == Space::Ub && round % 2 == 1 {
                    size
                } else {
                    40
                };
                l.slice_mut(s, size - n, n).unwrap().fill(round + 1);
                l.slice_mut(s, 3, 5).unwrap().fill(round + 1);
            }
            let copy = l.clone();
            assert_eq!(copy, l);
        }
    }

    #[test]
    fn reused_gm_starts_zeroed() {
        // large enough to be pooled; writes of every kind, then fresh GMs
        // of other sizes must read all zeroes
        let words = POOL_MIN_WORDS as u64 * 8;
        for (round, len) in [words + 40, words + 8, words * 2 + 3, words + 40]
            .into_iter()
            .enumerate()
        {
            let mut gm = Gm::new(len);
            assert!(gm.snapshot().iter().all(|b| *b == 0), "round {round}");
            gm.write(len - 11, &[0xab; 11]).unwrap();
            gm.write(777, &[0xcd; 3]).unwrap();
            gm.fetch_add_i32(4096, -1).unwrap();
            gm.write_exclusive(9, &[0xef; 20]).unwrap();
            // plain copies inside `solo` mark what they write too
            gm.solo(|g| g.write(len / 3 + 3, &[0x5a; 1000]).unwrap());
            assert!(gm.snapshot().iter().any(|b| *b != 0));
        }
    }

    #[test]
    fn solo_gm_refuses_a_second_thread() {
        let mut gm = Gm::new(64);
        gm.solo(|g| {
            g.write(3, &[9; 10]).unwrap();
            std::thread::scope(|s| {
                assert!(s.spawn(|| g.read(0, &mut [0; 8])).join().is_err());
                assert!(s.spawn(|| g.write(0, &[1; 8])).join().is_err());
                assert!(s.spawn(|| g.fetch_add_i32(0, 1)).join().is_err());
            });
        });
        // after `solo` any thread may use it again
        let got = std::thread::scope(|s| {
            s.spawn(|| {
                let mut got = [0u8; 10];
                gm.read(3, &mut got).unwrap();
                got
            })
            .join()
            .unwrap()
        });
        assert_eq!(got, [9; 10]);
        // a panic inside `solo` leaves it too
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            gm.solo(|_| panic!("inside"));
        }));
        assert!(r.is_err());
        std::thread::scope(|s| {
            s.spawn(|| gm.write(0, &[1; 8]).unwrap()).join().unwrap();
        });
    }

    #[test]
    fn gm_with_contents_zeroes_all_but_the_arguments() {
        // a pooled GM dirty everywhere, then GMs placing (overlapping,
        // unaligned, unsorted) arguments: those bytes hold the arguments,
        // every other byte is zero, whichever buffer the pool hands out
        let words = POOL_MIN_WORDS as u64 * 8;
        let len = words * 3 + 13;
        let (a, b, c) = (vec![1u8; 1001], vec![2u8; 37], vec![3u8; 64]);
        for round in 0..3 {
            let mut gm = Gm::new(len);
            gm.write_exclusive(0, &vec![0x5a; len as usize]).unwrap();
            drop(gm);
            let init: Vec<(u64, &[u8])> = vec![(5000, &a), (3, &b), (5500, &c)];
            let fills: Vec<(u64, Fill)> =
                init.iter().map(|(at, d)| (*at, Fill::Bytes(d))).collect();
            let gm = Gm::with_contents(&[len], &fills).unwrap();
            let mut want = vec![0u8; len as usize];
            for (at, d) in &init {
                want[*at as usize..*at as usize + d.len()].copy_from_slice(d);
            }
            assert_eq!(gm.snapshot(), want, "round {round}");
        }
        // an argument past the end is an error, not a panic
        assert!(Gm::with_contents(&[64], &[(60, Fill::Bytes(&[0u8; 8]))]).is_err());
        assert!(Gm::with_contents(&[64], &[(1 << RANK_SHIFT, Fill::Bytes(&[0u8; 1]))]).is_err());
    }

    #[test]
    fn gm_filled_from_files_holds_their_first_bytes_then_zeros() {
        let dir = std::env::temp_dir().join(format!("ptovm-gm-fill-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (short, long) = (dir.join("short.bin"), dir.join("long.bin"));
        std::fs::write(&short, [7u8; 10]).unwrap();
        std::fs::write(&long, (0..100u8).collect::<Vec<_>>()).unwrap();
        for round in 0..2 {
            // a dirty pooled GM first: the zeros past a short file are written
            let mut gm = Gm::new(POOL_MIN_WORDS as u64 * 8);
            gm.write_exclusive(0, &vec![0x5a; POOL_MIN_WORDS * 8])
                .unwrap();
            drop(gm);
            let init = [
                (3, Fill::File(&short, 0, 16)),
                (40, Fill::File(&long, 5, 20)),
            ];
            let gm = Gm::with_contents(&[POOL_MIN_WORDS as u64 * 8], &init).unwrap();
            let snap = gm.snapshot();
            assert_eq!(&snap[3..13], &[7u8; 10], "round {round}");
            assert_eq!(&snap[13..19], &[0u8; 6], "zeros past the file's end");
            assert_eq!(
                snap[40..60],
                (5..25u8).collect::<Vec<_>>()[..],
                "the file's bytes from offset 5"
            );
            assert!(snap[60..].iter().all(|b| *b == 0) && snap[..3].iter().all(|b| *b == 0));
        }
        let e = Gm::with_contents(&[64], &[(0, Fill::File(&dir.join("gone.bin"), 0, 8))])
            .err()
            .unwrap();
        assert!(
            e.starts_with("cannot read") && e.contains("gone.bin"),
            "{e}"
        );
        assert!(Gm::with_contents(&[64], &[(60, Fill::File(&short, 0, 8))]).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn gm_unaligned_roundtrip_and_bounds() {
        let gm = Gm::new(37);
        gm.write(3, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]).unwrap();
        let mut out = [0u8; 13];
        gm.read(2, &mut out).unwrap();
        assert_eq!(out, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0]);
        assert!(gm.write(30, &[0; 8]).is_err());
        assert!(gm.read(u64::MAX - 2, &mut [0; 8]).is_err());
        // an address in a rank the run does not have says so
        let e = gm
            .read(3 << RANK_SHIFT, &mut [0; 8])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("in the GM of rank 3, which this run does not have"),
            "{e}"
        );
        let e = gm
            .read(u64::MAX - 4095, &mut [0; 8])
            .unwrap_err()
            .to_string();
        assert!(e.contains("is outside every GM"), "{e}");
        let e = gm.read(40, &mut [0; 8]).unwrap_err().to_string();
        assert!(e.contains("outside the 37 bytes of GM"), "{e}");
    }
}
