//! Matrix regions: `C = C + A x B` on f32, every element accumulated with
//! one fused multiply-add per `k` in increasing `k` order, starting from
//! `C`'s initial value. That is exactly the interpreter's definition of
//! `tmatmul` (f16/bf16 inputs are widened to f32 exactly first), so results
//! are bit-identical to it; only the loop order over `(i, j)` and the vector
//! width change.
//!
//! Why not Cranelift code: Cranelift's x86-64 backend emits 128-bit vectors
//! only (4 lanes), while this kernel uses 512-bit (AVX-512F, 16 lanes) or
//! 256-bit (AVX2 + FMA, 8 lanes) registers chosen at run time, with
//! register blocks of 4 rows x up to 64 columns (AVX-512, 16 accumulators)
//! or 6 rows x 16 columns (AVX2, 12 accumulators), so each loaded row of `B`
//! feeds several FMAs, smaller row blocks for the last rows, the last
//! columns in a masked 8-lane vector, and `k` split into blocks of 64
//! (AVX-512) or 128 (AVX2) so `B`'s block stays in the L1 cache. Splitting `k` is exact: the
//! accumulators are f32, so storing them between blocks rounds nothing. General GEMM
//! crates reorder the `k` sum (blocking, split accumulators) and would lose
//! bit-exactness with the interpreter. BENCHMARKS.md has the numbers.

/// Which kernel [`matmul_f32`] uses on this machine.
pub fn matmul_isa() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            return "avx512f";
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return "avx2+fma";
        }
    }
    "scalar"
}

/// Why a matmul region cannot run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "matmul {m}x{k}x{n}: operand slices too short for their forms (a {a}, b {b}, c {c} elements)"
)]
pub struct ShapeError {
    m: usize,
    k: usize,
    n: usize,
    a: usize,
    b: usize,
    c: usize,
}

/// The left operand `a` (m x k) of the f32 kernels.
#[derive(Clone, Copy, Debug)]
pub enum Lhs<'a> {
    /// Row-major f32 values, rows `k` apart.
    Rows(&'a [f32]),
    /// Little-endian f32 values read where they lie (a tile's storage, at
    /// any alignment): element `(i, kk)` is the one at index `rows[i] +
    /// cols[kk]` of `bytes` taken as f32s. Any tile layout has such tables,
    /// so no copy of `a` is needed; the kernels broadcast one element of `a`
    /// at a time, and where it lies costs them one table load per `k`.
    At {
        bytes: &'a [u8],
        rows: &'a [usize],
        cols: &'a [usize],
    },
}

impl Lhs<'_> {
    /// How many f32 elements the operand's slice holds.
    fn len(&self) -> usize {
        match self {
            Lhs::Rows(a) => a.len(),
            Lhs::At { bytes, .. } => bytes.len() / 4,
        }
    }

    /// Whether it holds its m x k matrix: for `At`, every `rows[i] +
    /// cols[kk]` (i < m, kk < k) indexes an element of `bytes`.
    fn fits(&self, m: usize, k: usize) -> bool {
        match self {
            Lhs::Rows(a) => m.checked_mul(k).is_some_and(|n| n <= a.len()),
            Lhs::At { bytes, rows, cols } => {
                if rows.len() < m || cols.len() < k {
                    return false;
                }
                if m == 0 || k == 0 {
                    return true;
                }
                let hi = |t: &[usize]| t.iter().copied().max().unwrap_or(0);
                hi(&rows[..m])
                    .checked_add(hi(&cols[..k]))
                    .is_some_and(|last| last < bytes.len() / 4)
            }
        }
    }

    /// Element `(i, kk)` (inside the matrix).
    fn at(&self, k: usize, i: usize, kk: usize) -> f32 {
        match self {
            Lhs::Rows(a) => a[i * k + kk],
            Lhs::At { bytes, rows, cols } => {
                let o = 4 * (rows[i] + cols[kk]);
                f32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]])
            }
        }
    }

    /// Calls `f` with the operand as the kernels address it: a pointer to
    /// element 0 of its slice and its row and column offset tables (a
    /// row-major operand's built in a reused buffer).
    fn with_tables<R>(
        &self,
        m: usize,
        k: usize,
        f: impl FnOnce(*const f32, &[usize], &[usize]) -> R,
    ) -> R {
        match self {
            Lhs::Rows(a) => row_major_tables(m, k, k, |r, c| f(a.as_ptr(), r, c)),
            Lhs::At { bytes, rows, cols } => f(bytes.as_ptr().cast(), rows, cols),
        }
    }
}

/// Calls `f` with the row and column offset tables of a row-major m x k
/// matrix whose rows are `ld` elements apart (built in a buffer each thread
/// reuses, so small matmuls allocate nothing).
fn row_major_tables<R>(
    m: usize,
    k: usize,
    ld: usize,
    f: impl FnOnce(&[usize], &[usize]) -> R,
) -> R {
    thread_local! {
        static TABLES: std::cell::RefCell<Vec<usize>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let fill = |t: &mut Vec<usize>| {
        t.clear();
        t.extend((0..m).map(|i| i * ld));
        t.extend(0..k);
    };
    TABLES.with(|t| match t.try_borrow_mut() {
        Ok(mut t) => {
            fill(&mut t);
            let (r, c) = t.split_at(m);
            f(r, c)
        }
        // not reached (`f` never calls back), but a fresh buffer is correct
        Err(_) => {
            let mut t = Vec::new();
            fill(&mut t);
            let (r, c) = t.split_at(m);
            f(r, c)
        }
    })
}

/// Where the elements of a matrix lie in its slice: element `(r, c)` at
/// `(c / width) * panel + r * ld + c % width`, the columns in panels of
/// `width` (a power of two, at least 16), each panel a row-major block whose
/// rows are `ld` apart, `panel` elements after the one before. Row-major is
/// one panel wider than any matrix ([`Form::rows`]).
///
/// The matrix kernels read `b` and update `c` in any form, so an operand
/// stored in panels is used where it lies: an NZ accumulator tile (16-column
/// panels of 16-element rows), or a right operand packed panel by panel so
/// that the 16 columns a register block reads are contiguous. (Rows of a
/// row-major 128-column `b` are 512 bytes apart, so a 16-column strip of 128
/// rows falls into 8 of the L1 cache's 64 sets and evicts itself.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Form {
    width: usize,
    /// log2 of `width` (shifts, not divisions, on the packing paths)
    shift: u32,
    panel: usize,
    ld: usize,
}

impl Form {
    /// Row-major with rows `ld` elements apart.
    pub fn rows(ld: usize) -> Form {
        Form::panels(1 << (usize::BITS - 1), 0, ld)
    }

    /// Panels of `width` columns (a power of two, at least 16) `panel`
    /// elements apart, rows `ld` apart inside a panel. Another width makes
    /// a form that holds nothing ([`Form::span`] is `None`).
    pub fn panels(width: usize, panel: usize, ld: usize) -> Form {
        Form {
            width,
            shift: width.trailing_zeros(),
            panel,
            ld,
        }
    }

    /// The index of element `(r, c)`.
    #[inline]
    pub fn at(self, r: usize, c: usize) -> usize {
        (c >> self.shift) * self.panel + r * self.ld + self.col(c)
    }

    /// Column `c`'s place in its panel.
    #[inline]
    fn col(self, c: usize) -> usize {
        c & ((1 << self.shift) - 1)
    }

    /// How many columns from `c` on lie in `c`'s panel (contiguous in a row).
    #[inline]
    pub fn run(self, c: usize) -> usize {
        (1 << self.shift) - self.col(c)
    }

    /// The distance between two rows of a panel.
    pub fn ld(self) -> usize {
        self.ld
    }

    /// The slice length a `rows x cols` matrix in this form needs, or `None`
    /// when the form cannot hold it: a panel width that is not a power of
    /// two of at least 16 (a register block would straddle two panels), rows
    /// shorter than the matrix (or than a panel), panels that overlap, or a
    /// size past `usize`.
    pub fn span(self, rows: usize, cols: usize) -> Option<usize> {
        if !self.width.is_power_of_two() || self.width < 16 {
            return None;
        }
        if rows == 0 || cols == 0 {
            return Some(0);
        }
        if self.width < cols {
            let fits = self.ld >= self.width && self.panel >= self.ld.checked_mul(rows)?;
            if !fits {
                return None;
            }
        } else if self.ld < cols {
            return None;
        }
        ((cols - 1) >> self.shift)
            .checked_mul(self.panel)?
            .checked_add((rows - 1).checked_mul(self.ld)?)?
            .checked_add(self.col(cols - 1) + 1)
    }
}

/// Whether `a` (m x k; its slice's length and whether it holds the matrix),
/// `b` (k x n) and `c` (m x n) in their forms fit slices of these lengths.
fn check_shape(
    (m, k, n): (usize, usize, usize),
    (a, a_fits): (usize, bool),
    (b, bf): (usize, Form),
    (c, cf): (usize, Form),
) -> Result<(), ShapeError> {
    let short = |len: usize, want: Option<usize>| want.is_none_or(|w| len < w);
    if !a_fits || short(b, bf.span(k, n)) || short(c, cf.span(m, n)) {
        return Err(ShapeError { m, k, n, a, b, c });
    }
    Ok(())
}

/// `c[i][j] = fma(a[i][k-1], b[k-1][j], ... fma(a[i][0], b[0][j], c[i][j]))`
/// for row-major `a` (m x k), `b` (k x n) and `c` (m x n).
pub fn matmul_f32(
    m: usize,
    k: usize,
    n: usize,
    a: &[f32],
    b: &[f32],
    c: &mut [f32],
) -> Result<(), ShapeError> {
    matmul_f32_in(
        m,
        k,
        n,
        Lhs::Rows(a),
        (b, Form::rows(n)),
        (c, Form::rows(n)),
    )
}

/// [`matmul_f32`] with `a` (m x k) where it lies and `b` (k x n) and `c`
/// (m x n) in the given forms: the same fused multiply-adds in the same
/// order.
pub fn matmul_f32_in(
    m: usize,
    k: usize,
    n: usize,
    a: Lhs<'_>,
    (b, bf): (&[f32], Form),
    (c, cf): (&mut [f32], Form),
) -> Result<(), ShapeError> {
    check_shape(
        (m, k, n),
        (a.len(), a.fits(m, k)),
        (b.len(), bf),
        (c.len(), cf),
    )?;
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the slices hold their matrices in their forms (checked above)
    if unsafe { vector_kernel((m, k, n), a, (b, bf), (c.as_mut_ptr(), cf), false) } {
        return Ok(());
    }
    scalar((m, k, n), a, (b, bf), (c, cf), 0..n);
    Ok(())
}

/// [`matmul_f32_in`] on a `c` stored as little-endian f32 bytes at any
/// alignment (a tile's storage, updated where it lies), starting from zeros
/// instead of `c`'s values when `zero` (they are then not read). Only the
/// m x n elements of `c` are written.
#[allow(clippy::too_many_arguments)]
pub fn matmul_f32_le(
    m: usize,
    k: usize,
    n: usize,
    a: Lhs<'_>,
    (b, bf): (&[f32], Form),
    (c, cf): (&mut [u8], Form),
    zero: bool,
) -> Result<(), ShapeError> {
    check_shape(
        (m, k, n),
        (a.len(), a.fits(m, k)),
        (b.len(), bf),
        (c.len() / 4, cf),
    )?;
    // the kernels touch `c` only through unaligned vector loads and stores
    // (x86 is little-endian)
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the slices hold their matrices in their forms (checked above;
    // `c`'s length in whole f32s)
    if unsafe { vector_kernel((m, k, n), a, (b, bf), (c.as_mut_ptr().cast(), cf), zero) } {
        return Ok(());
    }
    le_portable((m, k, n), a, (b, bf), (c, cf), zero);
    Ok(())
}

/// The f32 vector kernel this CPU has on `a` where it lies and `b` and `c`
/// in their forms; false (nothing done) without AVX-512F or AVX2 with FMA.
///
/// # Safety
/// `a`, `b` and `c` hold their m x k, k x n and m x n matrices in their
/// forms; `c` may be unaligned.
#[cfg(target_arch = "x86_64")]
unsafe fn vector_kernel(
    (m, k, n): (usize, usize, usize),
    a: Lhs<'_>,
    (b, bf): (&[f32], Form),
    (c, cf): (*mut f32, Form),
    zero: bool,
) -> bool {
    a.with_tables(m, k, |a, arows, acols| {
        let p = x86::Mats {
            a,
            arows: arows.as_ptr(),
            acols: acols.as_ptr(),
            b: b.as_ptr(),
            bf,
            c,
            cf,
            zero,
        };
        // SAFETY: the caller vouches for the matrices (`a`'s tables index
        // its slice for every element of the m x k matrix)
        unsafe { x86::kernel(&p, (m, k, n)) }
    })
}

/// [`matmul_f32_le`] without vector kernels: `c` converted to f32, updated
/// one element at a time and stored back (the forms are checked).
fn le_portable(
    (m, k, n): (usize, usize, usize),
    a: Lhs<'_>,
    (b, bf): (&[f32], Form),
    (c, cf): (&mut [u8], Form),
    zero: bool,
) {
    let span = cf.span(m, n).unwrap_or(0);
    let mut v = vec![0f32; span];
    f32_from_le(&c[..4 * span], &mut v);
    if zero {
        for i in 0..m {
            for j in 0..n {
                v[cf.at(i, j)] = 0.0;
            }
        }
    }
    scalar((m, k, n), a, (b, bf), (&mut v, cf), 0..n);
    f32_to_le(&v, &mut c[..4 * span]);
}

/// `c[i][j] += sum over k of a[i][k] * b[k][j]` in wrapping i32
/// arithmetic, for row-major `a` (m x k), `b` (k x n) and `c` (m x n).
/// Wrapping sums are exact in any order, so any blocking gives the
/// interpreter's bits; with AVX2 the inner loop runs 8 lanes at a time.
pub fn matmul_i32_wrapping(
    m: usize,
    k: usize,
    n: usize,
    a: &[i32],
    b: &[i32],
    c: &mut [i32],
) -> Result<(), ShapeError> {
    let rows = Form::rows(n);
    let a_fits = m.checked_mul(k).is_some_and(|mk| mk <= a.len());
    check_shape(
        (m, k, n),
        (a.len(), a_fits),
        (b.len(), rows),
        (c.len(), rows),
    )?;
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            let (a, b) = (&a[..m * k], &b[..k * n]);
            if k >= 2 && fits_i16(a) && fits_i16(b) {
                // 8- and 16-bit operands: two k steps per multiply-add
                let (ap, bp) = pack_pairs(m, k, n, a, b);
                // SAFETY: the CPU supports AVX2 (checked just above); the
                // packed operands hold m * ceil(k/2) and ceil(k/2) * n
                // words and `c` at least m * n (checked above).
                unsafe { x86::imatmul_avx2(m, k.div_ceil(2), n, &ap, &bp, c, true) };
            } else {
                // SAFETY: as above, with the operands' checked lengths.
                unsafe { x86::imatmul_avx2(m, k, n, a, b, c, false) };
            }
            return Ok(());
        }
    }
    imatmul(m, k, n, a, b, c);
    Ok(())
}

/// Whether every value fits in an i16.
fn fits_i16(v: &[i32]) -> bool {
    v.iter().all(|&x| i16::try_from(x).is_ok())
}

/// `a` (m x k) and `b` (k x n) with each two consecutive `k` steps in one
/// word of two i16 (the first in the low half; an odd `k` gets a zero
/// last step): `a'` is m x ceil(k/2), `b'` ceil(k/2) x n, so that
/// `pmaddwd` of a broadcast `a'` word with a row of `b'` adds both steps'
/// products. Every value must fit in an i16 ([`fits_i16`]).
fn pack_pairs(m: usize, k: usize, n: usize, a: &[i32], b: &[i32]) -> (Vec<i32>, Vec<i32>) {
    let kp = k.div_ceil(2);
    let pair = |lo: i32, hi: i32| (lo as u16 as u32 | (hi as u16 as u32) << 16) as i32;
    let mut ap = Vec::with_capacity(m * kp);
    for row in a.chunks_exact(k).take(m) {
        let mut it = row.chunks(2);
        ap.extend((&mut it).map(|p| pair(p[0], p.get(1).copied().unwrap_or(0))));
    }
    let mut bp = vec![0i32; kp * n];
    for (p, out) in bp.chunks_exact_mut(n.max(1)).enumerate().take(kp) {
        let lo = &b[2 * p * n..(2 * p + 1) * n];
        match b.get((2 * p + 1) * n..(2 * p + 2) * n) {
            Some(hi) => {
                for ((o, &x), &y) in out.iter_mut().zip(lo).zip(hi) {
                    *o = pair(x, y);
                }
            }
            None => {
                for (o, &x) in out.iter_mut().zip(lo) {
                    *o = pair(x, 0);
                }
            }
        }
    }
    (ap, bp)
}

/// The body of [`matmul_i32_wrapping`] (rows of `c` updated by rows of
/// `b`, which compilers vectorize).
#[inline(always)]
fn imatmul(m: usize, k: usize, n: usize, a: &[i32], b: &[i32], c: &mut [i32]) {
    if n == 0 || k == 0 {
        return;
    }
    for (crow, arow) in c.chunks_exact_mut(n).zip(a.chunks_exact(k)).take(m) {
        for (&x, brow) in arow.iter().zip(b.chunks_exact(n)) {
            for (d, &y) in crow.iter_mut().zip(brow) {
                *d = d.wrapping_add(x.wrapping_mul(y));
            }
        }
    }
}

/// Copies little-endian f32 values from bytes into `dst`: `min(src.len() /
/// 4, dst.len())` of them, which it returns. A plain memory copy on
/// little-endian hosts (element-by-element conversion loops were what
/// packing matmul operands spent its time on).
#[inline]
pub fn f32_from_le(src: &[u8], dst: &mut [f32]) -> usize {
    let n = (src.len() / 4).min(dst.len());
    if cfg!(target_endian = "little") {
        // SAFETY: n * 4 bytes lie in both (n bounded by both lengths); a
        // shared and a unique borrow do not overlap; every bit pattern is an
        // f32.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst.as_mut_ptr().cast(), n * 4) };
    } else {
        for (d, c) in dst[..n].iter_mut().zip(src.as_chunks::<4>().0) {
            *d = f32::from_le_bytes(*c);
        }
    }
    n
}

/// Stores f32 values as little-endian bytes into `dst`: `min(src.len(),
/// dst.len() / 4)` of them, which it returns (the inverse of [`f32_from_le`]).
#[inline]
pub fn f32_to_le(src: &[f32], dst: &mut [u8]) -> usize {
    let n = src.len().min(dst.len() / 4);
    if cfg!(target_endian = "little") {
        // SAFETY: n * 4 bytes lie in both; the borrows do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr().cast(), dst.as_mut_ptr(), n * 4) };
    } else {
        for (d, x) in dst.as_chunks_mut::<4>().0.iter_mut().zip(&src[..n]) {
            *d = x.to_le_bytes();
        }
    }
    n
}

/// Widens little-endian f16 values (bytes) into `dst` exactly, eight at a
/// time with F16C: `min(src.len() / 2, dst.len())` of them, the count
/// returned; 0 (nothing written) when the host has no F16C (the caller then
/// converts them itself).
#[inline]
pub fn f16_to_f32(src: &[u8], dst: &mut [f32]) -> usize {
    let n = (src.len() / 2).min(dst.len());
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("f16c") && std::arch::is_x86_feature_detected!("avx")
        {
            // SAFETY: the CPU supports F16C and AVX (checked just above);
            // `src` holds 2 n bytes and `dst` n elements.
            unsafe { x86::f16_to_f32_f16c(src.as_ptr(), dst.as_mut_ptr(), n) };
            return n;
        }
    }
    0
}

/// Transposes an 8 x 8 f32 block: `out[i * stride + j]` becomes element
/// `i` of `cols[j]` (eight little-endian f32 each, as stored in a tile whose
/// columns run down its storage). `out` must hold `7 * stride + 8` elements
/// (otherwise `false`, nothing written). With AVX this is 24 shuffles
/// instead of 64 scalar moves, the cost that dominated packing `B` of a
/// matmul out of its column-run (ZN) layout.
#[inline]
pub fn transpose8(cols: [&[u8; 32]; 8], out: &mut [f32], stride: usize) -> bool {
    if stride < 8 || out.len() < 7 * stride + 8 {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx") {
            // SAFETY: the CPU supports AVX (checked just above); each column
            // is 32 bytes, and rows 0..8 of `out` at `stride` fit (checked).
            unsafe {
                x86::transpose8_avx(cols.map(|c| c.as_ptr().cast()), out.as_mut_ptr(), stride)
            };
            return true;
        }
    }
    scalar8(cols.map(|c| &c[..]), out, stride);
    true
}

/// [`transpose8`] of eight columns `stride` bytes apart in `src`, column
/// `j`'s eight little-endian f32 from byte `j * stride` on (a tile whose
/// columns lie a fixed distance apart, as in ZN boxes and column-major
/// tiles): one bounds check for the block instead of one per column.
/// `false` (nothing written) when `src` or `out` is too short.
#[inline]
pub fn transpose8_strided(src: &[u8], stride: usize, out: &mut [f32], ld: usize) -> bool {
    strided(src, stride, out, ld, false)
}

/// [`transpose8_f16`] of eight columns `stride` bytes apart in `src`
/// (column `j`'s eight halves from byte `j * stride` on): one bounds check
/// for the block. `false` (nothing written) when `src` or `out` is too short
/// or the host has no F16C.
#[inline]
pub fn transpose8_f16_strided(src: &[u8], stride: usize, out: &mut [f32], ld: usize) -> bool {
    strided(src, stride, out, ld, true)
}

/// [`transpose8_strided`], or with `half` [`transpose8_f16_strided`]
/// (inlined into both, so `half` is a constant there).
#[inline(always)]
fn strided(src: &[u8], stride: usize, out: &mut [f32], ld: usize, half: bool) -> bool {
    let col = if half { 16 } else { 32 };
    if !strided_fits(src.len(), (stride, col), out.len(), ld) {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        if (half && has_f16c()) || (!half && std::arch::is_x86_feature_detected!("avx")) {
            // SAFETY: the CPU has what the routine needs (AVX, and F16C for
            // halves: checked just above); column j's `col` bytes start at
            // j * stride <= 7 * stride and lie in `src`, and rows 0..8 of
            // `out` at `ld` fit (both checked above).
            unsafe {
                let cols: [*const u8; 8] = std::array::from_fn(|j| src.as_ptr().add(j * stride));
                match half {
                    true => x86::transpose8_f16c(cols, out.as_mut_ptr(), ld),
                    false => x86::transpose8_avx(cols.map(|c| c.cast()), out.as_mut_ptr(), ld),
                }
            };
            return true;
        }
    }
    if half {
        return false;
    }
    let cols: [&[u8]; 8] = std::array::from_fn(|j| &src[j * stride..j * stride + 32]);
    scalar8(cols, out, ld);
    true
}

/// The portable transpose of eight columns of eight little-endian f32.
fn scalar8(cols: [&[u8]; 8], out: &mut [f32], ld: usize) {
    for (j, col) in cols.iter().enumerate() {
        for (i, c) in col.as_chunks::<4>().0.iter().enumerate() {
            out[i * ld + j] = f32::from_le_bytes(*c);
        }
    }
}

/// Whether 8 columns of `col` bytes, `stride` bytes apart, lie in `src`
/// bytes, and 8 rows of 8, `ld` apart, in `out` elements.
#[inline]
fn strided_fits(src: usize, (stride, col): (usize, usize), out: usize, ld: usize) -> bool {
    let need = stride.checked_mul(7).and_then(|s| s.checked_add(col));
    ld >= 8 && out >= 7 * ld + 8 && need.is_some_and(|n| src >= n)
}

/// Whether the host converts f16 with F16C (what [`f16_to_f32`] and the
/// f16 transposes need).
pub fn has_f16c() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("f16c") && std::arch::is_x86_feature_detected!("avx")
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// [`transpose8`] of columns of eight little-endian f16 each, widened to
/// f32 exactly (F16C); `false` (nothing written) when `out` is too short or
/// the host has no F16C (the caller then widens and transposes itself).
#[inline]
pub fn transpose8_f16(cols: [&[u8; 16]; 8], out: &mut [f32], stride: usize) -> bool {
    if stride < 8 || out.len() < 7 * stride + 8 {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("f16c") && std::arch::is_x86_feature_detected!("avx")
        {
            // SAFETY: F16C and AVX are present (checked just above); each
            // column is 16 bytes, and rows 0..8 of `out` fit (checked).
            unsafe { x86::transpose8_f16c(cols.map(|c| c.as_ptr()), out.as_mut_ptr(), stride) };
            return true;
        }
    }
    false
}

/// [`transpose8`] of columns already widened to f32 (`out[i * stride + j] =
/// cols[j][i]`).
#[inline]
pub fn transpose8_f32(cols: &[[f32; 8]; 8], out: &mut [f32], stride: usize) -> bool {
    if stride < 8 || out.len() < 7 * stride + 8 {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx") {
            // SAFETY: as in `transpose8`, each column holding 8 f32
            unsafe {
                x86::transpose8_avx(
                    cols.each_ref().map(|c| c.as_ptr()),
                    out.as_mut_ptr(),
                    stride,
                )
            };
            return true;
        }
    }
    for (j, col) in cols.iter().enumerate() {
        for (i, v) in col.iter().enumerate() {
            out[i * stride + j] = *v;
        }
    }
    true
}

/// Columns `js` of every row, one element at a time.
fn scalar(
    (m, k, _n): (usize, usize, usize),
    a: Lhs<'_>,
    (b, bf): (&[f32], Form),
    (c, cf): (&mut [f32], Form),
    js: std::ops::Range<usize>,
) {
    for i in 0..m {
        for j in js.clone() {
            let mut s = c[cf.at(i, j)];
            for kk in 0..k {
                s = a.at(k, i, kk).mul_add(b[bf.at(kk, j)], s);
            }
            c[cf.at(i, j)] = s;
        }
    }
}

// The AVX-512 intrinsics are stable since Rust 1.89, the workspace's MSRV.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// `c += a x b` in wrapping i32 on 8-lane AVX2 vectors, in the f32
    /// kernel's blocks ([`cols8`]). With `pairs`, `a` and `b` are
    /// [`super::pack_pairs`]'s words and `k` counts pairs: each step is one
    /// `pmaddwd` (two products of 16-bit values, summed; the one sum that
    /// overflows, 2 x (-2^15)^2, wraps to -2^31 as the wrapping sum does);
    /// otherwise one `pmulld` per step. Wrapping sums are exact in any order.
    ///
    /// # Safety
    /// The CPU must support AVX2; `a`, `b`, `c` hold at least m*k, k*n and
    /// m*n elements.
    #[target_feature(enable = "avx2")]
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn imatmul_avx2(
        m: usize,
        k: usize,
        n: usize,
        a: &[i32],
        b: &[i32],
        c: &mut [i32],
        pairs: bool,
    ) {
        super::row_major_tables(m, k, k, |arows, acols| {
            let p = Mats {
                a: a.as_ptr(),
                arows: arows.as_ptr(),
                acols: acols.as_ptr(),
                b: b.as_ptr(),
                bf: super::Form::rows(n),
                c: c.as_mut_ptr(),
                cf: super::Form::rows(n),
                zero: false,
            };
            // SAFETY: the caller's contract (row-major tables of its m x k
            // `a`)
            unsafe {
                if pairs {
                    cols8::<MaddPairs>(&p, (m, k, n), 0);
                } else {
                    cols8::<MulAdd>(&p, (m, k, n), 0);
                }
            }
        })
    }

    /// A kernel's operands: element `(i, kk)` of `a` at `a + arows[i] +
    /// acols[kk]` (any alignment), `b` and `c` in their forms; with `zero`,
    /// `c` starts from zeros (the f32 kernels: its old values are not read).
    pub(super) struct Mats<E> {
        pub a: *const E,
        pub arows: *const usize,
        pub acols: *const usize,
        pub b: *const E,
        pub bf: super::Form,
        pub c: *mut E,
        pub cf: super::Form,
        pub zero: bool,
    }

    /// The f32 kernel this CPU has, run on `p`; false (nothing done) when it
    /// has neither AVX-512F nor AVX2 with FMA.
    ///
    /// # Safety
    /// `a`, `b`, `c` hold their m x k, k x n and m x n matrices in their
    /// forms ([`super::Form::span`]); `c` may be unaligned.
    pub(super) unsafe fn kernel(p: &Mats<f32>, mkn: (usize, usize, usize)) -> bool {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU supports AVX-512F (checked just above); the
            // caller vouches for the matrices.
            unsafe { kernel_avx512(p, mkn) };
            return true;
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU supports AVX2 and FMA (checked just above); the
            // caller vouches for the matrices.
            unsafe { kernel_avx2(p, mkn) };
            return true;
        }
        false
    }

    /// One register block's columns: `V` vectors, lanes of vector `v` in
    /// row 0 of `b` (of `c`) from `b[v]` (`c[v]`) on, each row `ldb` (`ldc`)
    /// after the one before; `a` and `zero` as in [`Mats`].
    struct Blk<E, const V: usize> {
        a: *const E,
        arows: *const usize,
        acols: *const usize,
        b: [*const E; V],
        ldb: usize,
        c: [*mut E; V],
        ldc: usize,
        zero: bool,
    }

    impl<E> Mats<E> {
        /// The block of `V` vectors of `w` lanes from column `j` on.
        ///
        /// # Safety
        /// Columns `j + v * w` (`v < V`) lie in the matrices, whose slices
        /// hold them in their forms, and no vector straddles two panels.
        #[inline(always)]
        unsafe fn blk<const V: usize>(&self, j: usize, w: usize) -> Blk<E, V> {
            Blk {
                a: self.a,
                arows: self.arows,
                acols: self.acols,
                // SAFETY: column j + v w of row 0 is an element of b and c
                b: std::array::from_fn(|v| unsafe { self.b.add(self.bf.at(0, j + v * w)) }),
                ldb: self.bf.ld,
                c: std::array::from_fn(|v| unsafe { self.c.add(self.cf.at(0, j + v * w)) }),
                ldc: self.cf.ld,
                zero: self.zero,
            }
        }
    }

    impl<E: Copy, const V: usize> Blk<E, V> {
        /// Pointers to element `(i + r, 0)`'s place for `r < R`: element
        /// `(i + r, kk)` lies `acols[kk]` elements after it.
        ///
        /// # Safety
        /// Rows `i..i + R` lie in the matrix.
        #[inline(always)]
        unsafe fn arows<const R: usize>(&self, i: usize) -> [*const E; R] {
            // SAFETY: row i + r's offset is in the table and in `a`'s slice
            std::array::from_fn(|r| unsafe { self.a.add(*self.arows.add(i + r)) })
        }

        /// Column `kk`'s offset in `a`'s rows.
        ///
        /// # Safety
        /// `kk < k`.
        #[inline(always)]
        unsafe fn acol(&self, kk: usize) -> usize {
            // SAFETY: the table holds k offsets
            unsafe { *self.acols.add(kk) }
        }
    }

    /// A register-block kernel on 8-lane vectors that [`rows8`] and
    /// [`cols8`] tile a matrix with.
    trait Block8 {
        /// Element type.
        type E;
        /// Rows `i..i + R` of the column block `p` over `k0..k1`, starting
        /// from `c` and stored back; with `M`, only the lanes set in `mask`
        /// exist (`V` = 1).
        ///
        /// # Safety
        /// The CPU supports the kernel's features; `i + R <= m`, the block's
        /// `8 V` columns lie in the matrices (with `M`: the lanes of `mask`
        /// are a prefix of those inside), `k1 <= k`, and `a`, `b`, `c` hold
        /// their matrices.
        unsafe fn block<const R: usize, const V: usize, const M: bool>(
            p: &Blk<Self::E, V>,
            i: usize,
            mask: __m256i,
            kr: (usize, usize),
        );
    }

    /// f32 with one fused multiply-add per `k` ([`block256`]).
    struct Fma;
    impl Block8 for Fma {
        type E = f32;
        #[inline(always)]
        unsafe fn block<const R: usize, const V: usize, const M: bool>(
            p: &Blk<f32, V>,
            i: usize,
            mask: __m256i,
            kr: (usize, usize),
        ) {
            // SAFETY: the caller's contract is block256's (AVX2 and FMA:
            // only kernels that checked both reach the f32 blocks)
            unsafe { block256::<R, V, M>(p, i, mask, kr) }
        }
    }

    /// Wrapping i32, `pmulld` + `paddd` per `k`.
    struct MulAdd;
    impl Block8 for MulAdd {
        type E = i32;
        #[inline(always)]
        unsafe fn block<const R: usize, const V: usize, const M: bool>(
            p: &Blk<i32, V>,
            i: usize,
            mask: __m256i,
            kr: (usize, usize),
        ) {
            // SAFETY: the caller's contract is iblock's
            unsafe { iblock::<R, V, M, false>(p, i, mask, kr) }
        }
    }

    /// Wrapping i32 on packed 16-bit pairs, `pmaddwd` + `paddd` per pair.
    struct MaddPairs;
    impl Block8 for MaddPairs {
        type E = i32;
        #[inline(always)]
        unsafe fn block<const R: usize, const V: usize, const M: bool>(
            p: &Blk<i32, V>,
            i: usize,
            mask: __m256i,
            kr: (usize, usize),
        ) {
            // SAFETY: the caller's contract is iblock's
            unsafe { iblock::<R, V, M, true>(p, i, mask, kr) }
        }
    }

    /// [`load8`] for i32 lanes.
    ///
    /// # Safety
    /// The CPU must support AVX2; the loaded lanes lie in bounds.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn iload8<const M: bool>(p: *const i32, mask: __m256i) -> __m256i {
        if M {
            _mm256_maskload_epi32(p, mask)
        } else {
            _mm256_loadu_si256(p.cast())
        }
    }

    /// [`block256`] for wrapping i32 (see [`imatmul_avx2`]).
    ///
    /// # Safety
    /// As [`Block8::block`], with AVX2.
    #[target_feature(enable = "avx2")]
    unsafe fn iblock<const R: usize, const V: usize, const M: bool, const PAIRS: bool>(
        p: &Blk<i32, V>,
        i: usize,
        mask: __m256i,
        (k0, k1): (usize, usize),
    ) {
        let mut acc = [[_mm256_setzero_si256(); V]; R];
        for (r, row) in acc.iter_mut().enumerate() {
            for (v, x) in row.iter_mut().enumerate() {
                *x = iload8::<M>(p.c[v].add((i + r) * p.ldc), mask);
            }
        }
        let arow = p.arows::<R>(i);
        for kk in k0..k1 {
            let mut bv = [_mm256_setzero_si256(); V];
            for (v, x) in bv.iter_mut().enumerate() {
                *x = iload8::<M>(p.b[v].add(kk * p.ldb), mask);
            }
            let ck = p.acol(kk);
            for (r, row) in acc.iter_mut().enumerate() {
                let av = _mm256_set1_epi32(arow[r].add(ck).read_unaligned());
                for (x, b) in row.iter_mut().zip(bv) {
                    let prod = if PAIRS {
                        _mm256_madd_epi16(av, b)
                    } else {
                        _mm256_mullo_epi32(av, b)
                    };
                    *x = _mm256_add_epi32(*x, prod);
                }
            }
        }
        for (r, row) in acc.iter().enumerate() {
            for (v, x) in row.iter().enumerate() {
                let to = p.c[v].add((i + r) * p.ldc);
                if M {
                    _mm256_maskstore_epi32(to, mask, *x);
                } else {
                    _mm256_storeu_si256(to.cast(), *x);
                }
            }
        }
    }

    /// [`super::f16_to_f32`]: eight at a time, the last few through a
    /// zero-padded buffer.
    ///
    /// # Safety
    /// The CPU must support F16C and AVX; `src` holds `2 n` bytes, `dst` `n`
    /// elements.
    #[target_feature(enable = "avx,f16c")]
    pub(super) unsafe fn f16_to_f32_f16c(src: *const u8, dst: *mut f32, n: usize) {
        let mut i = 0;
        while i + 8 <= n {
            // SAFETY: elements i..i + 8 of both
            unsafe {
                let h = _mm_loadu_si128(src.add(2 * i).cast());
                _mm256_storeu_ps(dst.add(i), _mm256_cvtph_ps(h));
            }
            i += 8;
        }
        if i < n {
            let mut h = [0u8; 16];
            let mut f = [0f32; 8];
            // SAFETY: the n - i < 8 elements left of both
            unsafe {
                std::ptr::copy_nonoverlapping(src.add(2 * i), h.as_mut_ptr(), 2 * (n - i));
                _mm256_storeu_ps(
                    f.as_mut_ptr(),
                    _mm256_cvtph_ps(_mm_loadu_si128(h.as_ptr().cast())),
                );
                std::ptr::copy_nonoverlapping(f.as_ptr(), dst.add(i), n - i);
            }
        }
    }

    /// [`super::transpose8`] on 256-bit registers.
    ///
    /// # Safety
    /// The CPU must support AVX; `out` holds `7 * stride + 8` elements.
    /// (`cols`: eight pointers to 8 f32 each, any alignment.)
    #[target_feature(enable = "avx")]
    pub(super) unsafe fn transpose8_avx(cols: [*const f32; 8], out: *mut f32, stride: usize) {
        // SAFETY: each column holds 8 f32 (unaligned loads)
        let c = cols.map(|p| unsafe { _mm256_loadu_ps(p) });
        // SAFETY: passed on from the caller
        unsafe { transpose_store(c, out, stride) }
    }

    /// [`super::transpose8_f16`]: each column's 8 halves widened, then
    /// transposed.
    ///
    /// # Safety
    /// The CPU must support F16C and AVX; each column pointer holds 16
    /// bytes; `out` holds `7 * stride + 8` elements.
    #[target_feature(enable = "avx,f16c")]
    pub(super) unsafe fn transpose8_f16c(cols: [*const u8; 8], out: *mut f32, stride: usize) {
        // SAFETY: each column holds 16 bytes (unaligned loads)
        let c = cols.map(|p| _mm256_cvtph_ps(unsafe { _mm_loadu_si128(p.cast()) }));
        // SAFETY: passed on from the caller
        unsafe { transpose_store(c, out, stride) }
    }

    /// Stores the transpose of the 8 x 8 block whose column j is `c[j]`.
    ///
    /// # Safety
    /// The CPU must support AVX; `out` holds `7 * stride + 8` elements.
    #[target_feature(enable = "avx")]
    unsafe fn transpose_store(c: [__m256; 8], out: *mut f32, stride: usize) {
        let lo = |a, b| _mm256_unpacklo_ps(a, b);
        let hi = |a, b| _mm256_unpackhi_ps(a, b);
        let t = [
            lo(c[0], c[1]),
            hi(c[0], c[1]),
            lo(c[2], c[3]),
            hi(c[2], c[3]),
            lo(c[4], c[5]),
            hi(c[4], c[5]),
            lo(c[6], c[7]),
            hi(c[6], c[7]),
        ];
        let u = [
            _mm256_shuffle_ps::<0x44>(t[0], t[2]),
            _mm256_shuffle_ps::<0xee>(t[0], t[2]),
            _mm256_shuffle_ps::<0x44>(t[1], t[3]),
            _mm256_shuffle_ps::<0xee>(t[1], t[3]),
            _mm256_shuffle_ps::<0x44>(t[4], t[6]),
            _mm256_shuffle_ps::<0xee>(t[4], t[6]),
            _mm256_shuffle_ps::<0x44>(t[5], t[7]),
            _mm256_shuffle_ps::<0xee>(t[5], t[7]),
        ];
        for i in 0..4 {
            let top = _mm256_permute2f128_ps::<0x20>(u[i], u[i + 4]);
            let bottom = _mm256_permute2f128_ps::<0x31>(u[i], u[i + 4]);
            // SAFETY: rows i and i + 4 start at most 7 * stride and hold 8
            unsafe {
                _mm256_storeu_ps(out.add(i * stride), top);
                _mm256_storeu_ps(out.add((i + 4) * stride), bottom);
            }
        }
    }

    /// One `R`-row x `V`-vector block of `c` over `k0..k1`: the accumulators
    /// start from `c` and are stored back, so splitting `k` into blocks
    /// performs exactly the same sequence of fused multiply-adds per element.
    ///
    /// # Safety
    /// The CPU must support AVX-512F; `i + R <= m`, the block's `16 V`
    /// columns lie in the matrices, `k1 <= k`, and `a`, `b`, `c` hold their
    /// matrices.
    #[target_feature(enable = "avx512f")]
    unsafe fn block512<const R: usize, const V: usize>(
        p: &Blk<f32, V>,
        i: usize,
        (k0, k1): (usize, usize),
    ) {
        let mut acc = [[_mm512_setzero_ps(); V]; R];
        if !(p.zero && k0 == 0) {
            for (r, row) in acc.iter_mut().enumerate() {
                for (v, x) in row.iter_mut().enumerate() {
                    *x = _mm512_loadu_ps(p.c[v].add((i + r) * p.ldc));
                }
            }
        }
        let arow = p.arows::<R>(i);
        for kk in k0..k1 {
            let mut bv = [_mm512_setzero_ps(); V];
            for (v, x) in bv.iter_mut().enumerate() {
                *x = _mm512_loadu_ps(p.b[v].add(kk * p.ldb));
            }
            let ck = p.acol(kk);
            for (r, row) in acc.iter_mut().enumerate() {
                let av = _mm512_set1_ps(arow[r].add(ck).read_unaligned());
                for (x, b) in row.iter_mut().zip(bv) {
                    *x = _mm512_fmadd_ps(av, b, *x);
                }
            }
        }
        for (r, row) in acc.iter().enumerate() {
            for (v, x) in row.iter().enumerate() {
                _mm512_storeu_ps(p.c[v].add((i + r) * p.ldc), *x);
            }
        }
    }

    /// Every row of one column block over `k0..k1`, in blocks of 4
    /// rows, then 2 and 1 (the leftover rows ran one element at a time
    /// before, at a tenth of the speed or less).
    ///
    /// # Safety
    /// As [`block512`], for every block it runs, with `m` rows in `a` and
    /// `c`.
    #[target_feature(enable = "avx512f")]
    unsafe fn rows512<const V: usize>(p: &Blk<f32, V>, m: usize, kr: (usize, usize)) {
        let mut i = 0;
        while i + 4 <= m {
            block512::<4, V>(p, i, kr);
            i += 4;
        }
        if i + 2 <= m {
            block512::<2, V>(p, i, kr);
            i += 2;
        }
        if i < m {
            block512::<1, V>(p, i, kr);
        }
    }

    /// Blocks of 4 rows x 64, 32 or 16 columns in 16-lane accumulators, `k`
    /// in blocks of 64 so a block of `b` stays in the L1 cache while every
    /// row block of `a` passes over it.
    ///
    /// # Safety
    /// The CPU must support AVX-512F; `a`, `b`, `c` hold their m x k, k x n
    /// and m x n matrices in their forms ([`super::Form::span`]).
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn kernel_avx512(p: &Mats<f32>, (m, k, n): (usize, usize, usize)) {
        const W: usize = 16;
        const KC: usize = 64;
        let mut j = 0;
        while j < n / W * W {
            let v = ((n - j) / W).min(4);
            let mut k0 = 0;
            while k0 < k {
                let k1 = (k0 + KC).min(k);
                // SAFETY: j + v * 16 <= n and k1 <= k keep every block inside
                // the matrices; j is a multiple of 16, so no 16-lane vector
                // straddles two panels (their widths are multiples of 16).
                match v {
                    4 => rows512::<4>(&p.blk(j, W), m, (k0, k1)),
                    3 => rows512::<3>(&p.blk(j, W), m, (k0, k1)),
                    2 => rows512::<2>(&p.blk(j, W), m, (k0, k1)),
                    _ => rows512::<1>(&p.blk(j, W), m, (k0, k1)),
                }
                k0 = k1;
            }
            j += v * W;
        }
        // the last n % 16 columns (all rows) on 8-lane vectors: AVX-512F
        // implies AVX2 and FMA
        cols8::<Fma>(p, (m, k, n), n / W * W);
    }

    /// A load of 8 lanes at `p`, only those set in `mask` when `M`
    /// (`vmaskmovps` neither reads nor faults on a masked-off lane).
    ///
    /// # Safety
    /// The CPU must support AVX2; the loaded lanes lie in bounds.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    unsafe fn load8<const M: bool>(p: *const f32, mask: __m256i) -> __m256 {
        if M {
            _mm256_maskload_ps(p, mask)
        } else {
            _mm256_loadu_ps(p)
        }
    }

    /// The store matching [`load8`].
    ///
    /// # Safety
    /// As [`load8`], for the stored lanes.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    unsafe fn store8<const M: bool>(p: *mut f32, mask: __m256i, x: __m256) {
        if M {
            _mm256_maskstore_ps(p, mask, x)
        } else {
            _mm256_storeu_ps(p, x)
        }
    }

    /// [`block512`] with 8-lane AVX2 vectors and `R` rows; with `M`, only
    /// the lanes set in `mask` of each vector exist (the last `n % 8`
    /// columns, `V` = 1), so those columns get the same fused
    /// multiply-adds as the rest and nothing past them is touched.
    ///
    /// # Safety
    /// As [`Block8::block`], with AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    unsafe fn block256<const R: usize, const V: usize, const M: bool>(
        p: &Blk<f32, V>,
        i: usize,
        mask: __m256i,
        (k0, k1): (usize, usize),
    ) {
        let mut acc = [[_mm256_setzero_ps(); V]; R];
        if !(p.zero && k0 == 0) {
            for (r, row) in acc.iter_mut().enumerate() {
                for (v, x) in row.iter_mut().enumerate() {
                    *x = load8::<M>(p.c[v].add((i + r) * p.ldc), mask);
                }
            }
        }
        let arow = p.arows::<R>(i);
        for kk in k0..k1 {
            let mut bv = [_mm256_setzero_ps(); V];
            for (v, x) in bv.iter_mut().enumerate() {
                *x = load8::<M>(p.b[v].add(kk * p.ldb), mask);
            }
            let ck = p.acol(kk);
            for (r, row) in acc.iter_mut().enumerate() {
                let av = _mm256_set1_ps(arow[r].add(ck).read_unaligned());
                for (x, b) in row.iter_mut().zip(bv) {
                    *x = _mm256_fmadd_ps(av, b, *x);
                }
            }
        }
        for (r, row) in acc.iter().enumerate() {
            for (v, x) in row.iter().enumerate() {
                store8::<M>(p.c[v].add((i + r) * p.ldc), mask, *x);
            }
        }
    }

    /// Every row of one column block (`V` vectors wide at `j`, masked with
    /// `M`) over `k0..k1`: blocks of 6 rows (12 accumulators, two rows of
    /// `b` and one broadcast: 15 of the 16 registers), then 4, 2 and 1 for
    /// the rest.
    ///
    /// # Safety
    /// As [`Block8::block`], for every block it runs, with `m` rows in `a`
    /// and `c`.
    #[target_feature(enable = "avx2")]
    unsafe fn rows8<B: Block8, const V: usize, const M: bool>(
        p: &Blk<B::E, V>,
        m: usize,
        mask: __m256i,
        kr: (usize, usize),
    ) {
        let mut i = 0;
        while i + 6 <= m {
            B::block::<6, V, M>(p, i, mask, kr);
            i += 6;
        }
        if i + 4 <= m {
            B::block::<4, V, M>(p, i, mask, kr);
            i += 4;
        }
        if i + 2 <= m {
            B::block::<2, V, M>(p, i, mask, kr);
            i += 2;
        }
        if i < m {
            B::block::<1, V, M>(p, i, mask, kr);
        }
    }

    /// Blocks of 6 rows x 16 columns (or 8 for a last narrow block) in
    /// 8-lane accumulators, `k` in blocks of 128 so a block of `b` (8 KiB)
    /// stays in the L1 cache while every row block of `a` passes over it;
    /// the columns past the last multiple of 8 in one masked vector.
    ///
    /// # Safety
    /// The CPU must support AVX2 and FMA; `a`, `b`, `c` hold their m x k,
    /// k x n and m x n matrices in their forms ([`super::Form::span`]).
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn kernel_avx2(p: &Mats<f32>, (m, k, n): (usize, usize, usize)) {
        cols8::<Fma>(p, (m, k, n), 0);
    }

    /// The columns `j0..n` of `c` (all of them from [`kernel_avx2`] and
    /// [`imatmul_avx2`], the AVX-512 kernel's last `n % 16`) in blocks of
    /// `B`: 16 columns (or 8 for a last narrow block), `k` in blocks of 128
    /// so a block of `b` (8 KiB) stays in the L1 cache while every row
    /// block of `a` passes over it, the last `n % 8` columns in one masked
    /// vector.
    ///
    /// # Safety
    /// The CPU supports `B`'s features; `a`, `b`, `c` hold their m x k,
    /// k x n and m x n matrices in their forms, and `j0` is a multiple of 16
    /// (so no block straddles two panels).
    #[target_feature(enable = "avx2")]
    unsafe fn cols8<B: Block8>(p: &Mats<B::E>, (m, k, n): (usize, usize, usize), j0: usize) {
        const W: usize = 8;
        const KC: usize = 128;
        let mut j = j0;
        while j + W <= n {
            let v = ((n - j) / W).min(2);
            let mut k0 = 0;
            while k0 < k {
                let k1 = (k0 + KC).min(k);
                // SAFETY: j + v * 8 <= n and k1 <= k keep every block inside
                // the matrices; a 16-column block starts at a multiple of 16
                // (j0 is one), so it lies in one panel.
                let all = _mm256_set1_epi32(-1);
                match v {
                    2 => rows8::<B, 2, false>(&p.blk(j, W), m, all, (k0, k1)),
                    _ => rows8::<B, 1, false>(&p.blk(j, W), m, all, (k0, k1)),
                }
                k0 = k1;
            }
            j += v * W;
        }
        if j < n {
            // the last (n - j0) % 8 columns under a lane mask
            let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            let mask = _mm256_cmpgt_epi32(_mm256_set1_epi32((n - j) as i32), lanes);
            let mut k0 = 0;
            while k0 < k {
                let k1 = (k0 + KC).min(k);
                // SAFETY: the masked lanes j..n lie inside every row and in
                // the panel of the block before them, k1 <= k.
                rows8::<B, 1, true>(&p.blk(j, W), m, mask, (k0, k1));
                k0 = k1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A generator of floats in (-1.5, 1.5) from `seed`.
    fn floats(mut seed: u64) -> impl FnMut() -> f32 {
        move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 3.0
        }
    }

    fn reference(m: usize, k: usize, n: usize, a: &[f32], b: &[f32], c: &mut [f32]) {
        let rows = Form::rows(n);
        scalar((m, k, n), Lhs::Rows(a), (b, rows), (c, rows), 0..n);
    }

    /// `v` (row-major, `cols` wide) copied into `f`, the gaps NaN.
    fn place(v: &[f32], cols: usize, f: Form) -> Vec<f32> {
        let rows = v.len() / cols.max(1);
        let mut out = vec![f32::NAN; f.span(rows, cols).expect("form fits")];
        for (i, x) in v.iter().enumerate() {
            out[f.at(i / cols, i % cols)] = *x;
        }
        out
    }

    /// The f16 bits of a small non-negative integer (below 2048, exact).
    fn half_bits(v: u16) -> u16 {
        if v == 0 {
            return 0;
        }
        let e = 15 - v.leading_zeros() as u16;
        ((e + 15) << 10) | ((v << (10 - e)) & 0x3ff)
    }

    /// The wrapping i32 matmul (vector and portable paths) gives the
    /// per-element wrapping sums of a naive triple loop, on values whose
    /// products and sums overflow, for shapes with every tail length.
    #[test]
    fn wrapping_i32_matmul_gives_the_naive_sums() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as i32
        };
        // full-range values (one multiply per k), values of 16 bits and
        // 8 bits (two k steps per pmaddwd, with -2^15 often enough that
        // both products of a pair are 2^30 and their sum wraps), and
        // shapes with every row and column remainder and k past one block
        // of 128 (pairs) or two
        let shapes = [
            (1, 1, 1),
            (3, 5, 7),
            (16, 33, 9),
            (8, 8, 24),
            (5, 70, 17),
            (7, 2, 13),
            (13, 259, 23),
            (6, 300, 40),
        ];
        type Gen<'a> = &'a mut dyn FnMut() -> i32;
        let full = |g: Gen| g();
        let i16s = |g: Gen| match g() & 7 {
            0 | 1 => -32768,
            2 => 32767,
            _ => g() >> 16,
        };
        let i8s = |g: Gen| g() >> 24;
        for (values, fits) in [
            (&full as &dyn Fn(Gen) -> i32, false),
            (&i16s, true),
            (&i8s, true),
        ] {
            for (m, k, n) in shapes {
                let a: Vec<i32> = (0..m * k).map(|_| values(&mut next)).collect();
                let b: Vec<i32> = (0..k * n).map(|_| values(&mut next)).collect();
                assert_eq!(fits_i16(&a) && fits_i16(&b), fits, "{m}x{k}x{n}");
                let start: Vec<i32> = (0..m * n).map(|_| next()).collect();
                let mut want = start.clone();
                for i in 0..m {
                    for j in 0..n {
                        for kk in 0..k {
                            want[i * n + j] = want[i * n + j]
                                .wrapping_add(a[i * k + kk].wrapping_mul(b[kk * n + j]));
                        }
                    }
                }
                let mut got = start.clone();
                matmul_i32_wrapping(m, k, n, &a, &b, &mut got).expect("fits");
                assert_eq!(got, want, "{m}x{k}x{n}");
                let mut portable = start.clone();
                imatmul(m, k, n, &a, &b, &mut portable);
                assert_eq!(portable, want, "{m}x{k}x{n} portable");
            }
        }
        assert!(matmul_i32_wrapping(2, 2, 2, &[0; 3], &[0; 4], &mut [0; 4]).is_err());
    }

    #[test]
    fn transpose8_and_the_byte_copies_move_every_element_to_its_place() {
        // column j holds 100 j + i for i in 0..8
        let cols: Vec<[u8; 32]> = (0..8)
            .map(|j| {
                let mut c = [0u8; 32];
                for i in 0..8 {
                    c[4 * i..4 * i + 4].copy_from_slice(&((100 * j + i) as f32).to_le_bytes());
                }
                c
            })
            .collect();
        let refs: [&[u8; 32]; 8] = std::array::from_fn(|j| &cols[j]);
        let stride = 11;
        let mut out = vec![-1f32; 7 * stride + 8];
        assert!(transpose8(refs, &mut out, stride));
        for (x, v) in out.iter().enumerate() {
            let (i, j) = (x / stride, x % stride);
            let want = if j < 8 { (100 * j + i) as f32 } else { -1.0 };
            assert_eq!(*v, want, "row {i} col {j}");
        }
        // too short an output, or rows that would overlap: nothing written
        let mut short = vec![0f32; 7 * stride + 7];
        assert!(!transpose8(refs, &mut short, stride));
        assert!(!transpose8(refs, &mut out, 7));
        assert!(short.iter().all(|v| *v == 0.0));
        // the same block from columns already in f32
        let fcols: [[f32; 8]; 8] =
            std::array::from_fn(|j| std::array::from_fn(|i| (100 * j + i) as f32));
        let mut out2 = vec![-1f32; 7 * stride + 8];
        assert!(transpose8_f32(&fcols, &mut out2, stride));
        assert_eq!(out, out2);
        // the same block from f16 columns (the values are exact in f16)
        let hcols: Vec<[u8; 16]> = (0..8)
            .map(|j| {
                let mut c = [0u8; 16];
                for i in 0..8 {
                    let h = half_bits((100 * j + i) as u16);
                    c[2 * i..2 * i + 2].copy_from_slice(&h.to_le_bytes());
                }
                c
            })
            .collect();
        let hrefs: [&[u8; 16]; 8] = std::array::from_fn(|j| &hcols[j]);
        let mut out3 = vec![-1f32; 7 * stride + 8];
        if transpose8_f16(hrefs, &mut out3, stride) {
            assert_eq!(out, out3);
        }
        assert!(!transpose8_f16(hrefs, &mut short, stride));
        // the same columns 40 (f32) or 20 (f16) bytes apart in one slice,
        // as strided tiles hold them; a slice one byte short is refused
        let (fs, hs) = (40, 20);
        let mut fsrc = vec![0xeeu8; 7 * fs + 32];
        let mut hsrc = vec![0xeeu8; 7 * hs + 16];
        for j in 0..8 {
            fsrc[j * fs..j * fs + 32].copy_from_slice(&cols[j]);
            hsrc[j * hs..j * hs + 16].copy_from_slice(&hcols[j]);
        }
        type Strided = fn(&[u8], usize, &mut [f32], usize) -> bool;
        let cases: [(Strided, &[u8], usize, usize, bool); 2] = [
            (transpose8_strided, &fsrc, fs, 32, true),
            (transpose8_f16_strided, &hsrc, hs, 16, has_f16c()),
        ];
        for (f, src, step, col, present) in cases {
            let mut got = vec![-1f32; 7 * stride + 8];
            assert_eq!(f(src, step, &mut got, stride), present);
            if present {
                assert_eq!(out, got);
            }
            assert!(!f(&src[..7 * step + col - 1], step, &mut got, stride));
            assert!(!f(src, step, &mut short, stride));
        }
        assert!(short.iter().all(|v| *v == 0.0));
        // bytes to f32 and back, limited by the shorter side
        let mut f = [0f32; 5];
        assert_eq!(f32_from_le(&cols[3][..17], &mut f), 4);
        assert_eq!(&f[..], &[300.0, 301.0, 302.0, 303.0, 0.0]);
        let mut b = [0u8; 14];
        assert_eq!(f32_to_le(&f, &mut b), 3);
        assert_eq!(&b[..12], &cols[3][..12]);
        assert_eq!(&b[12..], &[0, 0]);
    }

    #[test]
    fn f16_widening_is_exact_for_every_pattern() {
        // every f16 bit pattern; 13 at a time, so the padded tail runs too
        let halves: Vec<u8> = (0..=u16::MAX).flat_map(|h| h.to_le_bytes()).collect();
        let mut got = vec![0f32; 1 << 16];
        for (s, d) in halves.chunks(26).zip(got.chunks_mut(13)) {
            let n = f16_to_f32(s, d);
            if n == 0 {
                return; // no F16C on this host: nothing to check
            }
            assert_eq!(n, d.len());
        }
        for (h, g) in (0..=u16::MAX).zip(&got) {
            let (sign, e, m) = (h >> 15, (h >> 10) & 0x1f, u32::from(h & 0x3ff));
            let mag = match e {
                0 => m as f32 / (1 << 24) as f32,
                31 if m == 0 => f32::INFINITY,
                31 => f32::from_bits(0x7fc0_0000 | (m << 13)),
                _ => f32::from_bits(((u32::from(e) + 112) << 23) | (m << 13)),
            };
            let want = if sign == 1 { -mag } else { mag };
            if want.is_nan() {
                assert!(g.is_nan(), "{h:#x}");
            } else {
                assert_eq!(g.to_bits(), want.to_bits(), "{h:#x}");
            }
        }
    }

    #[test]
    fn bit_identical_to_the_k_ordered_reference_for_odd_shapes() {
        let mut rnd = floats(7);
        for (m, k, n) in [
            (1, 1, 1),
            (4, 16, 32),
            (5, 7, 33),
            (17, 64, 50),
            (32, 3, 16),
            (3, 9, 100),
            (8, 130, 64),
            (9, 200, 112),
            (12, 64, 48),
            // every row block (6 + 6 + 6 + 4 + 1) and three k blocks
            (23, 300, 24),
            (7, 257, 8),
        ] {
            let a: Vec<f32> = (0..m * k).map(|_| rnd()).collect();
            let b: Vec<f32> = (0..k * n).map(|_| rnd()).collect();
            let init: Vec<f32> = (0..m * n).map(|_| rnd()).collect();
            let mut want = init.clone();
            reference(m, k, n, &a, &b, &mut want);
            let mut got = init.clone();
            matmul_f32(m, k, n, &a, &b, &mut got).expect("shapes fit");
            let same = want
                .iter()
                .zip(&got)
                .all(|(x, y)| x.to_bits() == y.to_bits());
            assert!(same, "{m}x{k}x{n} on {}", matmul_isa());
            // the 256-bit kernel too, where the CPU has it
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                let mut got = init.clone();
                row_major_tables(m, k, k, |arows, acols| {
                    let p = x86::Mats {
                        a: a.as_ptr(),
                        arows: arows.as_ptr(),
                        acols: acols.as_ptr(),
                        b: b.as_ptr(),
                        bf: Form::rows(n),
                        c: got.as_mut_ptr(),
                        cf: Form::rows(n),
                        zero: false,
                    };
                    // SAFETY: AVX2 and FMA are present; the slices hold
                    // m*k, k*n, m*n elements and the tables are row-major's.
                    unsafe { x86::kernel_avx2(&p, (m, k, n)) };
                });
                let same = want
                    .iter()
                    .zip(&got)
                    .all(|(x, y)| x.to_bits() == y.to_bits());
                assert!(same, "{m}x{k}x{n} on avx2");
            }
            // b and c in panels (b's a packed right operand, c's an NZ
            // accumulator with padding rows), gaps between panels: the same
            // bits, and nothing outside the matrices is written
            for (bf, cf) in [
                (
                    Form::panels(16, 16 * k, 16),
                    Form::panels(16, 16 * m + 48, 16),
                ),
                (Form::panels(32, 32 * k + 7, 32), Form::rows(n + 3)),
            ] {
                let bp = place(&b, n, bf);
                let mut got = place(&init, n, cf);
                matmul_f32_in(m, k, n, Lhs::Rows(&a), (&bp, bf), (&mut got, cf))
                    .expect("forms fit");
                let back = place(&want, n, cf);
                let same = back
                    .iter()
                    .zip(&got)
                    .all(|(x, y)| x.to_bits() == y.to_bits());
                assert!(same, "{m}x{k}x{n} with b {bf:?}, c {cf:?}");
                // c as bytes at an odd address, from its values or from zeros
                let mut from_zero = vec![0.0; m * n];
                reference(m, k, n, &a, &b, &mut from_zero);
                for (zero, want) in [(false, &want), (true, &from_zero)] {
                    let start = if zero {
                        vec![f32::NAN; m * n]
                    } else {
                        init.clone()
                    };
                    let mut bytes = vec![0xa5u8; 1];
                    for x in place(&start, n, cf) {
                        bytes.extend_from_slice(&x.to_le_bytes());
                    }
                    let mut portable = bytes.clone();
                    matmul_f32_le(
                        m,
                        k,
                        n,
                        Lhs::Rows(&a),
                        (&bp, bf),
                        (&mut bytes[1..], cf),
                        zero,
                    )
                    .expect("forms fit");
                    let a = Lhs::Rows(&a);
                    le_portable((m, k, n), a, (&bp, bf), (&mut portable[1..], cf), zero);
                    let mut back = vec![0xa5u8; 1];
                    for x in place(want, n, cf) {
                        back.extend_from_slice(&x.to_le_bytes());
                    }
                    // the gaps keep their NaN bytes, the byte before is untouched
                    assert!(bytes == back, "{m}x{k}x{n} le zero={zero} c {cf:?}");
                    assert!(
                        portable == back,
                        "{m}x{k}x{n} portable zero={zero} c {cf:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn forms_that_cannot_hold_the_matrix_are_refused() {
        // 4 x 40 matrices
        assert_eq!(Form::rows(40).span(4, 40), Some(160));
        assert_eq!(Form::rows(39).span(4, 40), None);
        assert_eq!(
            Form::panels(16, 64, 16).span(4, 40),
            Some(2 * 64 + 3 * 16 + 8)
        );
        // a panel narrower than a register block, overlapping panels, rows
        // narrower than a panel
        assert_eq!(Form::panels(8, 32, 8).span(4, 40), None);
        assert_eq!(Form::panels(16, 63, 16).span(4, 40), None);
        assert_eq!(Form::panels(16, 64, 15).span(4, 40), None);
        assert_eq!(Form::panels(16, usize::MAX, 16).span(4, 40), None);
        // one panel holds it all; widths that are not powers of two hold
        // nothing
        assert_eq!(Form::panels(16, 0, 16).span(4, 10), Some(58));
        assert_eq!(Form::panels(48, 1000, 48).span(4, 40), None);
        assert_eq!(Form::panels(0, 0, 16).span(1, 1), None);
        let (a, b) = ([1.0; 160], [1.0; 1600]);
        let mut c = [0.0; 160];
        let bad = Form::panels(16, 10, 16);
        let a = Lhs::Rows(&a);
        assert!(matmul_f32_in(4, 40, 40, a, (&b, bad), (&mut c, Form::rows(40))).is_err());
        assert!(matmul_f32_in(4, 40, 40, a, (&b, Form::rows(40)), (&mut c, bad)).is_err());
    }

    #[test]
    fn short_slices_are_an_error_not_a_crash() {
        let mut c = vec![0.0; 4];
        assert!(matmul_f32(2, 2, 2, &[1.0; 3], &[1.0; 4], &mut c).is_err());
        assert!(matmul_f32(usize::MAX, 2, 2, &[], &[], &mut c).is_err());
        // offset tables that leave the bytes, or are shorter than the matrix
        let (bytes, b) = ([0u8; 16], [1.0f32; 4]);
        let rc = |rows: &'static [usize], cols: &'static [usize]| Lhs::At {
            bytes: &bytes,
            rows,
            cols,
        };
        for a in [rc(&[0, 2], &[0, 2]), rc(&[0, 1], &[0]), rc(&[0], &[0, 1])] {
            let mut c = vec![0.0; 4];
            assert!(
                matmul_f32_in(2, 2, 2, a, (&b, Form::rows(2)), (&mut c, Form::rows(2))).is_err()
            );
        }
        let mut c = vec![0.0; 4];
        let ok = rc(&[0, 2], &[0, 1]);
        assert!(matmul_f32_in(2, 2, 2, ok, (&b, Form::rows(2)), (&mut c, Form::rows(2))).is_ok());
    }

    /// `a` read where it lies, through row and column offset tables (a ZZ
    /// tile's 16 x 8 boxes, rows of boxes in reverse order, at an odd byte
    /// address), gives the bits of the row-major operand, on every kernel
    /// and without one.
    #[test]
    fn a_read_where_it_lies_gives_the_row_major_bits() {
        let mut rnd = floats(7);
        for (m, k, n) in [
            (1usize, 1usize, 1usize),
            (7, 9, 17),
            (23, 300, 24),
            (32, 64, 48),
            (6, 16, 16),
        ] {
            let (mb, kb) = (m.div_ceil(16), k.div_ceil(8));
            let rows: Vec<usize> = (0..m)
                .map(|i| (mb - 1 - i / 16) * kb * 128 + (i % 16) * 8)
                .collect();
            let cols: Vec<usize> = (0..k).map(|kk| (kk / 8) * 128 + kk % 8).collect();
            let a: Vec<f32> = (0..m * k).map(|_| rnd()).collect();
            let b: Vec<f32> = (0..k * n).map(|_| rnd()).collect();
            let init: Vec<f32> = (0..m * n).map(|_| rnd()).collect();
            let mut bytes = vec![0x7fu8; 1 + 4 * mb * kb * 128];
            for i in 0..m {
                for kk in 0..k {
                    let o = 1 + 4 * (rows[i] + cols[kk]);
                    bytes[o..o + 4].copy_from_slice(&a[i * k + kk].to_le_bytes());
                }
            }
            let at = Lhs::At {
                bytes: &bytes[1..],
                rows: &rows,
                cols: &cols,
            };
            let mut want = init.clone();
            reference(m, k, n, &a, &b, &mut want);
            let rows_n = Form::rows(n);
            let mut got = init.clone();
            matmul_f32_in(m, k, n, at, (&b, rows_n), (&mut got, rows_n)).expect("fits");
            let mut portable = init.clone();
            scalar((m, k, n), at, (&b, rows_n), (&mut portable, rows_n), 0..n);
            for (what, v) in [("kernel", &got), ("scalar", &portable)] {
                let same = want.iter().zip(v).all(|(x, y)| x.to_bits() == y.to_bits());
                assert!(same, "{m}x{k}x{n} {what} on {}", matmul_isa());
            }
            let mut c = Vec::new();
            for x in &init {
                c.extend_from_slice(&x.to_le_bytes());
            }
            matmul_f32_le(m, k, n, at, (&b, rows_n), (&mut c, rows_n), false).expect("fits");
            let back: Vec<u8> = want.iter().flat_map(|x| x.to_le_bytes()).collect();
            assert!(c == back, "{m}x{k}x{n} le");
        }
    }
}
