//! f16 and bf16 `add`/`sub`/`mul`/`div`/`max`/`min` (tile-tile and
//! tile-scalar) and `exp` regions on 8-lane AVX vectors, f16 with the hardware's conversions
//! (F16C), bf16 with AVX2 integer ones, instead of the compiled region's
//! 4-lane bit manipulation ([`crate::half`]), which costs more than the
//! arithmetic itself.
//!
//! The conversions give the compiled region's bits: half -> f32 is exact
//! (a NaN quieted, its payload kept), f32 -> half rounds to nearest, ties to
//! even, overflows to infinity and keeps a NaN's top payload bits with the
//! quiet bit set, which is what [`crate::half`] was written to produce. In
//! between, each lane is the same f32 operation: one IEEE operation for the
//! arithmetic, and for exp [`crate::mathf`]'s 8-lane form of the compiled
//! region's exp (same constants, same fused steps). As for the f32 wide rows
//! ([`crate::ewwide`]), the one difference is which payload a sum of two
//! NaNs keeps, which the elementwise regions leave free. The tests compare
//! the two bit for bit on every f16 input of exp and on special values,
//! tails, strides and in-place forms of the arithmetic.
//!
//! It runs only the plain case ([`crate::ewwide::rows_fit`]) on a host with
//! AVX2, FMA and F16C, and returns `None` otherwise, which the compiled
//! region then handles (its bounds proof and statuses). The last partial
//! vector of a row goes through an 8-element buffer on the stack, so no lane
//! outside the row is read or written.

use crate::ewwide::{row_at, rows_fit, scalars_fit, Form};
use crate::{EwArgs, Lane, Op, Operands, Region, Status};

/// Whether [`half_wide`] takes this region.
pub(crate) fn handles(r: &Region) -> bool {
    matches!(r.lane, Lane::F16 | Lane::BF16)
        && match r.op {
            Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Max | Op::Min => {
                r.operands != Operands::Unary
            }
            Op::Exp => r.operands == Operands::Unary,
            _ => false,
        }
}

/// Whether the host has what [`half_wide`] runs on (AVX2, FMA and F16C).
pub(crate) fn present() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
            && std::arch::is_x86_feature_detected!("f16c")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Runs f16/bf16 region `r` over `mem` on 8-lane vectors, or returns `None` (see
/// the module comment).
pub(crate) fn half_wide(mem: &mut [u8], r: &Region, a: &EwArgs) -> Option<Status> {
    rows_on(mem, r, a, None)
}

/// A tile-scalar region over `a.rows` rows, row `i` with the f32 bits
/// `scalars[i]` as its scalar (`trowexpand{add,sub,mul,div}`), in one call.
/// `None` as [`half_wide`].
pub(crate) fn half_wide_rows(
    mem: &mut [u8],
    r: &Region,
    a: &EwArgs,
    scalars: &[i64],
) -> Option<Status> {
    rows_on(mem, r, a, Some(scalars))
}

fn rows_on(mem: &mut [u8], r: &Region, a: &EwArgs, scalars: Option<&[i64]>) -> Option<Status> {
    if !handles(r) {
        return None;
    }
    if !scalars_fit(r, a, scalars) {
        return None;
    }
    let binary = r.operands == Operands::Binary;
    if !rows_fit(mem.len(), a, binary, 2) || !present() {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    {
        for i in 0..a.rows {
            let bits = match scalars {
                Some(v) => v[i as usize],
                None => a.scalar,
            };
            // the scalar operand is f32 bits, as in the compiled region
            let form = Form::of(r.operands, bits);
            let (x, y, d) = row_at(a, i, binary);
            // SAFETY: AVX2, FMA and F16C are present (checked above); every
            // row of every operand lies in `mem` (`rows_fit`: the last one
            // ends within it and the offsets grow with the row); each source
            // is the destination row itself or disjoint from every
            // destination row, so an element is read before (or without)
            // being written, as in the compiled code; the pointers come from
            // one live exclusive borrow of `mem`.
            unsafe {
                let base = mem.as_mut_ptr();
                let (px, py, pd) = (
                    base.add(x).cast::<u16>(),
                    base.add(y).cast::<u16>(),
                    base.add(d).cast::<u16>(),
                );
                let n = a.cols as usize;
                match (r.op, r.lane == Lane::BF16) {
                    (Op::Exp, false) => x86::exp_row::<false>(px, pd, n),
                    (Op::Exp, true) => x86::exp_row::<true>(px, pd, n),
                    (op, false) => x86::arith_row::<false>(op, form, px, py, pd, n),
                    (op, true) => x86::arith_row::<true>(op, form, px, py, pd, n),
                }
            }
        }
        Some(Status::Ok)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

/// `tcvt` f32 -> f16/bf16 or f16/bf16 -> f32 ([`crate::cvt`]) on 8-lane
/// vectors: the conversions above, and a NaN becomes the canonical quiet NaN
/// of the destination type, as in the compiled conversion. `None` for other
/// types and as [`half_wide`], except that the source and the destination
/// must not overlap at all (their elements differ in size).
pub(crate) fn cvt_wide(mem: &mut [u8], c: crate::cvt::Cvt, a: &EwArgs) -> Option<Status> {
    let half = |l: Lane| matches!(l, Lane::F16 | Lane::BF16);
    let (narrow, bf) = match (c.from, c.to) {
        (Lane::F32, h) if half(h) => (true, h == Lane::BF16),
        (h, Lane::F32) if half(h) => (false, h == Lane::BF16),
        _ => return None,
    };
    let sizes = if narrow { (2, 4) } else { (4, 2) };
    if !crate::ewwide::rows_fit_sized(mem.len(), a, false, sizes, false) || !present() {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    {
        for i in 0..a.rows {
            let (x, _, d) = row_at(a, i, false);
            let n = a.cols as usize;
            // SAFETY: AVX2, FMA and F16C are present (checked above); every
            // row of both operands lies in `mem` and the source is disjoint
            // from every destination row (`rows_fit_sized`); the pointers
            // come from one live exclusive borrow of `mem`.
            unsafe {
                let base = mem.as_mut_ptr();
                let (px, pd) = (base.add(x), base.add(d));
                match (narrow, bf) {
                    (true, false) => x86::narrow_row::<false>(px.cast(), pd.cast(), n),
                    (true, true) => x86::narrow_row::<true>(px.cast(), pd.cast(), n),
                    (false, false) => x86::widen_row::<false>(px.cast(), pd.cast(), n),
                    (false, true) => x86::widen_row::<true>(px.cast(), pd.cast(), n),
                }
            }
        }
        Some(Status::Ok)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::Form;
    use crate::mathf::wide::exp8;
    use crate::Op;
    use std::arch::x86_64::*;

    /// 8 halves at `p` widened to f32 (exact): f16 by F16C (a NaN quieted,
    /// its payload kept), bf16 (`BF`) by a shift (a signalling NaN stays
    /// signalling until the first f32 operation on it, which quiets it
    /// keeping its payload: the same result as the compiled region's
    /// explicit quieting, which the tests check on every bf16 input).
    ///
    /// # Safety
    /// `p` is valid for reading 8 `u16` (any alignment).
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn load<const BF: bool>(p: *const u16) -> __m256 {
        // SAFETY: the caller's contract
        let h = unsafe { _mm_loadu_si128(p.cast()) };
        if !BF {
            return _mm256_cvtph_ps(h);
        }
        _mm256_castsi256_ps(_mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(h)))
    }

    /// 8 f32 rounded to the half type (nearest, ties to even; a NaN keeps
    /// its top payload bits with the quiet bit set) and stored at `p`: f16
    /// by F16C, bf16 (`BF`) by integer rounding.
    ///
    /// # Safety
    /// `p` is valid for writing 8 `u16` (any alignment).
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn store<const BF: bool>(p: *mut u16, v: __m256) {
        let h = if BF {
            let x = _mm256_castps_si256(v);
            let hi = _mm256_srli_epi32::<16>(x);
            let odd = _mm256_and_si256(hi, _mm256_set1_epi32(1));
            let r = _mm256_add_epi32(x, _mm256_add_epi32(_mm256_set1_epi32(0x7fff), odd));
            let r = _mm256_srli_epi32::<16>(r);
            let qn = _mm256_or_si256(hi, _mm256_set1_epi32(0x40));
            let nan = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_UNORD_Q>(v, v));
            let r = _mm256_blendv_epi8(r, qn, nan);
            // every lane below 2^16: the unsigned saturation keeps it;
            // the pack works per 128-bit half, the permute joins them
            let packed = _mm256_packus_epi32(r, r);
            _mm256_castsi256_si128(_mm256_permute4x64_epi64::<0b1000>(packed))
        } else {
            let mut h = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(v);
            // The conversion with a memory destination runs several times
            // slower than with a register one on AMD Zen (measured: 2.3 ns
            // per vector against 0.6 for the whole f32 TADD's), and LLVM
            // folds the store into it: an empty instruction that takes the
            // value in a register keeps the two apart.
            // SAFETY: the template is empty: it executes nothing, reads
            // and writes no memory, and leaves the register as it was.
            unsafe {
                std::arch::asm!("/* {0} */", inout(xmm_reg) h,
                    options(pure, nomem, nostack, preserves_flags));
            }
            h
        };
        // SAFETY: the caller's contract
        unsafe { _mm_storeu_si128(p.cast(), h) }
    }

    /// The row's elements `[i, n)` (fewer than 8) through a buffer of 8:
    /// `f` on the widened lanes of x and y, the first `n - i` results
    /// stored.
    ///
    /// # Safety
    /// `x`, `y` and `d` are valid for `n` `u16` each; a source is `d`
    /// itself or does not overlap it.
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn tail<const BF: bool>(
        x: *const u16,
        y: *const u16,
        d: *mut u16,
        (i, n): (usize, usize),
        f: impl Fn(__m256, __m256) -> __m256,
    ) {
        let k = n - i;
        let (mut bx, mut by, mut bd) = ([0u16; 8], [0u16; 8], [0u16; 8]);
        // SAFETY: `k < 8` elements from `i < n`, inside each row and each
        // buffer; the buffers are on this stack frame
        unsafe {
            std::ptr::copy_nonoverlapping(x.add(i), bx.as_mut_ptr(), k);
            std::ptr::copy_nonoverlapping(y.add(i), by.as_mut_ptr(), k);
            store::<BF>(
                bd.as_mut_ptr(),
                f(load::<BF>(bx.as_ptr()), load::<BF>(by.as_ptr())),
            );
            std::ptr::copy_nonoverlapping(bd.as_ptr(), d.add(i), k);
        }
    }

    /// `d[i] = x[i] op y[i]` (or the scalar forms) for `i < n`.
    macro_rules! run {
        ($bf:ident, $x:ident, $y:ident, $d:ident, $n:ident, $form:ident, $f:path) => {{
            let mut i = 0;
            match $form {
                Form::Tiles => {
                    // four vectors per step: the loads of the next ones do
                    // not wait on the loop counter
                    while i + 32 <= $n {
                        // SAFETY: `i + 32 <= n`: the lanes are in bounds of every operand
                        unsafe {
                            let (x0, y0) = (load::<$bf>($x.add(i)), load::<$bf>($y.add(i)));
                            let (x1, y1) = (load::<$bf>($x.add(i + 8)), load::<$bf>($y.add(i + 8)));
                            let (x2, y2) =
                                (load::<$bf>($x.add(i + 16)), load::<$bf>($y.add(i + 16)));
                            let (x3, y3) =
                                (load::<$bf>($x.add(i + 24)), load::<$bf>($y.add(i + 24)));
                            store::<$bf>($d.add(i), $f(x0, y0));
                            store::<$bf>($d.add(i + 8), $f(x1, y1));
                            store::<$bf>($d.add(i + 16), $f(x2, y2));
                            store::<$bf>($d.add(i + 24), $f(x3, y3));
                        }
                        i += 32;
                    }
                    while i + 8 <= $n {
                        // SAFETY: `i + 8 <= n`: the lanes are in bounds of every operand
                        unsafe {
                            store::<$bf>(
                                $d.add(i),
                                $f(load::<$bf>($x.add(i)), load::<$bf>($y.add(i))),
                            )
                        };
                        i += 8;
                    }
                    if i < $n {
                        // SAFETY: the caller's contract
                        unsafe { tail::<$bf>($x, $y, $d, (i, $n), |p, q| $f(p, q)) };
                    }
                }
                Form::Right(s) => {
                    let sv = _mm256_set1_ps(s);
                    while i + 8 <= $n {
                        // SAFETY: as above
                        unsafe { store::<$bf>($d.add(i), $f(load::<$bf>($x.add(i)), sv)) };
                        i += 8;
                    }
                    if i < $n {
                        // SAFETY: the caller's contract
                        unsafe { tail::<$bf>($x, $x, $d, (i, $n), |p, _| $f(p, sv)) };
                    }
                }
                Form::Left(s) => {
                    let sv = _mm256_set1_ps(s);
                    while i + 8 <= $n {
                        // SAFETY: as above
                        unsafe { store::<$bf>($d.add(i), $f(sv, load::<$bf>($x.add(i)))) };
                        i += 8;
                    }
                    if i < $n {
                        // SAFETY: the caller's contract
                        unsafe { tail::<$bf>($x, $x, $d, (i, $n), |p, _| $f(sv, p)) };
                    }
                }
            }
        }};
    }

    /// One row of `n` half elements (bf16 when `BF`): `d[i] = x[i] op
    /// y[i]` (or the scalar forms), computed in f32 and rounded once.
    ///
    /// # Safety
    /// The CPU has AVX2, FMA and F16C; `x`, `y` (tile form) and `d` are
    /// valid for `n` `u16` each (unaligned); a source is `d` itself or does
    /// not overlap it.
    #[target_feature(enable = "avx2,fma,f16c")]
    pub(super) unsafe fn arith_row<const BF: bool>(
        op: Op,
        form: Form,
        x: *const u16,
        y: *const u16,
        d: *mut u16,
        n: usize,
    ) {
        match op {
            Op::Add => run!(BF, x, y, d, n, form, _mm256_add_ps),
            Op::Sub => run!(BF, x, y, d, n, form, _mm256_sub_ps),
            Op::Mul => run!(BF, x, y, d, n, form, _mm256_mul_ps),
            Op::Max => run!(BF, x, y, d, n, form, extreme::<true>),
            Op::Min => run!(BF, x, y, d, n, form, extreme::<false>),
            _ => run!(BF, x, y, d, n, form, _mm256_div_ps),
        }
    }

    /// The compiled region's max (`MAX`) or min (`codegen::Ctx::fmax`,
    /// `fmin`): IEEE 754-2019 maximum/minimum, +0 > -0, and the canonical
    /// quiet NaN if either is NaN. x86's `maxps`/`minps` return their second
    /// operand for equal values (so -0 for max(+0, -0)) and for NaNs: equal
    /// lanes take the AND of the two for max (+0 wins) and the OR for min
    /// (-0 wins), unordered lanes the canonical NaN.
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    fn extreme<const MAX: bool>(x: __m256, y: __m256) -> __m256 {
        let eq = _mm256_cmp_ps::<_CMP_EQ_OQ>(x, y);
        let (r, tie) = if MAX {
            (_mm256_max_ps(x, y), _mm256_and_ps(x, y))
        } else {
            (_mm256_min_ps(x, y), _mm256_or_ps(x, y))
        };
        canonical(
            _mm256_blendv_ps(r, tie, eq),
            _mm256_cmp_ps::<_CMP_UNORD_Q>(x, y),
        )
    }

    /// Lanes `nan` of `v` replaced by the canonical quiet NaN (positive, the
    /// top mantissa bit alone), which both half types keep as theirs.
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    fn canonical(v: __m256, nan: __m256) -> __m256 {
        _mm256_blendv_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc0_0000)), nan)
    }

    /// NaN lanes of `v` made canonical.
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    fn canonical_nan(v: __m256) -> __m256 {
        canonical(v, _mm256_cmp_ps::<_CMP_UNORD_Q>(v, v))
    }

    /// One row of `n` f32 rounded to f16 (bf16 when `BF`), NaNs canonical.
    ///
    /// # Safety
    /// The CPU has AVX2, FMA and F16C; `x` is valid for `n` f32 and `d` for
    /// `n` `u16` (unaligned), and they do not overlap.
    #[target_feature(enable = "avx2,fma,f16c")]
    pub(super) unsafe fn narrow_row<const BF: bool>(x: *const f32, d: *mut u16, n: usize) {
        let mut i = 0;
        while i + 32 <= n {
            // SAFETY: `i + 32 <= n`: the lanes are in bounds of both rows
            unsafe {
                let v = [0, 8, 16, 24].map(|k| _mm256_loadu_ps(x.add(i + k)));
                for (k, v) in [0, 8, 16, 24].into_iter().zip(v) {
                    store::<BF>(d.add(i + k), canonical_nan(v));
                }
            }
            i += 32;
        }
        while i + 8 <= n {
            // SAFETY: `i + 8 <= n`: the lanes are in bounds of both rows
            unsafe { store::<BF>(d.add(i), canonical_nan(_mm256_loadu_ps(x.add(i)))) };
            i += 8;
        }
        if i < n {
            let k = n - i;
            let (mut bx, mut bd) = ([0f32; 8], [0u16; 8]);
            // SAFETY: `k < 8` elements from `i < n`, inside both rows and
            // both buffers
            unsafe {
                std::ptr::copy_nonoverlapping(x.add(i), bx.as_mut_ptr(), k);
                store::<BF>(bd.as_mut_ptr(), canonical_nan(_mm256_loadu_ps(bx.as_ptr())));
                std::ptr::copy_nonoverlapping(bd.as_ptr(), d.add(i), k);
            }
        }
    }

    /// One row of `n` f16 (bf16 when `BF`) widened to f32, NaNs canonical.
    ///
    /// # Safety
    /// As [`narrow_row`], with `x` valid for `n` `u16` and `d` for `n` f32.
    #[target_feature(enable = "avx2,fma,f16c")]
    pub(super) unsafe fn widen_row<const BF: bool>(x: *const u16, d: *mut f32, n: usize) {
        let mut i = 0;
        while i + 8 <= n {
            // SAFETY: `i + 8 <= n`: the lanes are in bounds of both rows
            unsafe { _mm256_storeu_ps(d.add(i), canonical_nan(load::<BF>(x.add(i)))) };
            i += 8;
        }
        if i < n {
            let k = n - i;
            let (mut bx, mut bd) = ([0u16; 8], [0f32; 8]);
            // SAFETY: as in `narrow_row`
            unsafe {
                std::ptr::copy_nonoverlapping(x.add(i), bx.as_mut_ptr(), k);
                _mm256_storeu_ps(bd.as_mut_ptr(), canonical_nan(load::<BF>(bx.as_ptr())));
                std::ptr::copy_nonoverlapping(bd.as_ptr(), d.add(i), k);
            }
        }
    }

    /// One row of `n` half elements (bf16 when `BF`): `d[i] = e^x[i]` on
    /// the widened lanes, rounded once.
    ///
    /// # Safety
    /// As [`arith_row`] (no second source).
    #[target_feature(enable = "avx2,fma,f16c")]
    pub(super) unsafe fn exp_row<const BF: bool>(x: *const u16, d: *mut u16, n: usize) {
        let mut i = 0;
        while i + 8 <= n {
            // SAFETY: `i + 8 <= n`: the lanes are in bounds of both rows
            unsafe { store::<BF>(d.add(i), exp8(load::<BF>(x.add(i)))) };
            i += 8;
        }
        if i < n {
            // SAFETY: the caller's contract
            unsafe { tail::<BF>(x, x, d, (i, n), |p, _| exp8(p)) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Half bit patterns of `lane`: zeros, ones, subnormals, the largest
    /// finite values, infinities, quiet and signalling NaNs with payloads,
    /// values whose sums, products and quotients overflow, underflow and
    /// tie, and a pseudo-random spread.
    fn specials(lane: Lane) -> Vec<u16> {
        let mut v = if lane == Lane::BF16 {
            vec![
                0x0000, 0x8000, 0x3f80, 0xbf80, 0x3fc0, 0x0001, 0x8001, 0x007f, 0x0080, 0x7f7f,
                0xff7f, 0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7fd5, 0x7f81, 0xffa3, 0x3f81, 0x3f01,
                0x5f7f, 0x4b00, 0x0040, 0x3eab,
            ]
        } else {
            vec![
                0x0000, 0x8000, 0x3c00, 0xbc00, 0x3e00, 0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff,
                0xfbff, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7d55, 0x7c01, 0xfd23, 0x3c01, 0x1400,
                0x5bff, 0x4900, 0x0200, 0x3555,
            ]
        };
        let mut s = 0x2545u32;
        for _ in 0..40 {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            v.push((s >> 16) as u16);
        }
        v
    }

    /// Runs `r` on `mem` through the compiled region and through
    /// [`half_wide`], and compares: bit for bit, or a NaN for a NaN (an
    /// operation on two NaNs, see the module comment).
    fn same(k: &crate::Compiled, mem0: &[u8], args: &EwArgs, what: &str) {
        let r = &k.region;
        let mut want = mem0.to_vec();
        assert_eq!(k.inner.call(&mut want, &args.to_array()), 0, "{what}");
        let mut got = mem0.to_vec();
        assert_eq!(half_wide(&mut got, r, args), Some(Status::Ok), "{what}");
        // max and min give the canonical NaN: no freedom there
        let free = !matches!(r.op, Op::Max | Op::Min);
        let nan = |b: &[u8]| {
            let h = u16::from_le_bytes([b[0], b[1]]);
            free && match r.lane {
                Lane::BF16 => h & 0x7fff > 0x7f80,
                _ => h & 0x7fff > 0x7c00,
            }
        };
        for (i, (g, w)) in got.chunks(2).zip(want.chunks(2)).enumerate() {
            assert!(
                g == w || (nan(g) && nan(w)),
                "{what}: byte {} is {:02x?}, the compiled region's {:02x?}",
                2 * i,
                g,
                w
            );
        }
    }

    /// exp on every f16 and every bf16 input gives the compiled region's bits.
    #[test]
    fn exp_gives_the_compiled_regions_bits_on_every_input() {
        if !present() {
            eprintln!("no AVX2, FMA and F16C on this host: nothing to compare");
            return;
        }
        for lane in [Lane::F16, Lane::BF16] {
            exp_on_every_input(lane);
        }
    }

    fn exp_on_every_input(lane: Lane) {
        let k = crate::compile(&Region {
            op: Op::Exp,
            lane,
            operands: Operands::Unary,
        })
        .expect("compiles");
        // 65536 inputs as 256 rows of 256, then as 4099 rows of 15 (tails)
        let mem0: Vec<u8> = (0..=u16::MAX).flat_map(|h| h.to_le_bytes()).collect();
        let len = mem0.len() as i64;
        let mut mem = mem0.clone();
        mem.extend(vec![0u8; mem0.len()]);
        for (rows, cols) in [(256i64, 256i64), (4369, 15)] {
            let args = EwArgs {
                dst: len,
                dst_stride: cols * 2,
                a: 0,
                a_stride: cols * 2,
                rows,
                cols,
                ..EwArgs::default()
            };
            same(&k, &mem, &args, &format!("{lane:?} exp {rows}x{cols}"));
        }
        // in place
        let args = EwArgs {
            dst: 0,
            dst_stride: 512,
            a: 0,
            a_stride: 512,
            rows: 256,
            cols: 256,
            ..EwArgs::default()
        };
        same(&k, &mem, &args, &format!("{lane:?} exp in place"));
    }

    /// The arithmetic gives the compiled region's bits on both half types, every op, form,
    /// tail length, stride and in-place case, over all pairs of special
    /// values.
    #[test]
    fn arithmetic_gives_the_compiled_regions_bits() {
        if !present() {
            eprintln!("no AVX2, FMA and F16C on this host: nothing to compare");
            return;
        }
        for lane in [Lane::F16, Lane::BF16] {
            arithmetic_on(lane);
        }
    }

    fn arithmetic_on(lane: Lane) {
        let vals = specials(lane);
        let n = vals.len();
        for op in [Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Max, Op::Min] {
            for operands in [
                Operands::Binary,
                Operands::ScalarRight,
                Operands::ScalarLeft,
            ] {
                let k = crate::compile(&Region { op, lane, operands }).expect("compiles");
                let scalars: &[f32] = if operands == Operands::Binary {
                    // not used
                    &[0.0]
                } else {
                    &[1.5, -0.0, 65504.0, 3.0e-8, f32::INFINITY, f32::NAN]
                };
                // past two steps of the four-vector loop, every tail length
                for cols in [1i64, 7, 8, 9, 15, 31, 32, 33, 64, 65, 71, 79] {
                    // rows so that every (x, y) pair of specials meets once
                    // (without padding; with it, most pairs)
                    let rows = (n * n).div_ceil(cols as usize) as i64;
                    for pad in [0i64, 3] {
                        let stride = (cols + pad) * 2;
                        let span = (rows * stride) as usize;
                        let mut mem0 = vec![0u8; 3 * span + 16];
                        for k in 0..(rows * (cols + pad)) as usize {
                            let (x, y) = (vals[k % n], vals[(k / n) % n]);
                            mem0[2 * k..2 * k + 2].copy_from_slice(&x.to_le_bytes());
                            mem0[span + 2 * k..span + 2 * k + 2].copy_from_slice(&y.to_le_bytes());
                        }
                        for s in scalars {
                            for in_place in [false, true] {
                                let dst = if in_place { 0 } else { 2 * span as i64 };
                                let args = EwArgs {
                                    dst,
                                    dst_stride: stride,
                                    a: 0,
                                    a_stride: stride,
                                    b: span as i64,
                                    b_stride: stride,
                                    rows,
                                    cols,
                                    scalar: i64::from(s.to_bits()),
                                };
                                let what = format!(
                                    "{lane:?} {op:?} {operands:?} cols {cols} pad {pad} scalar {s} \
                                     in place {in_place}"
                                );
                                same(&k, &mem0, &args, &what);
                            }
                        }
                    }
                }
            }
        }
    }

    /// The conversions give the compiled conversion's bits: every half
    /// pattern widened, and f32 special values, halfway cases and a
    /// pseudo-random spread narrowed, on every tail length and with strides.
    #[test]
    fn conversions_give_the_compiled_conversions_bits() {
        use crate::cvt::{compile_cvt, Cvt};
        if !present() {
            return;
        }
        let mut f32s: Vec<u32> = vec![
            0x0000_0000,
            0x8000_0000,
            0x3f80_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0xffc1_2345,
            0x7f80_0001,
            0x477f_efff,
            0x477f_f000,
            0x4780_0000,
            0x3380_0000,
            0x3380_0001,
            0x3300_0000,
            0x3300_0001,
            0x0000_0001,
            0x7f7f_ffff,
            0x3f80_8000,
            0x3f81_8000,
            0x3f80_8001,
            0x387f_e000,
            0x3880_1000,
        ];
        let mut s = 77u32;
        for _ in 0..4000 {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            f32s.push(s);
        }
        let halves: Vec<u16> = (0..=u16::MAX).collect();
        for h in [Lane::F16, Lane::BF16] {
            for (c, src) in [
                (
                    Cvt {
                        from: Lane::F32,
                        to: h,
                    },
                    f32s.iter()
                        .flat_map(|v| v.to_le_bytes())
                        .collect::<Vec<u8>>(),
                ),
                (
                    Cvt {
                        from: h,
                        to: Lane::F32,
                    },
                    halves.iter().flat_map(|v| v.to_le_bytes()).collect(),
                ),
            ] {
                let k = compile_cvt(&c).expect("compiles");
                let (se, de) = (c.from.bytes(), c.to.bytes());
                let total = src.len() as i64 / se;
                for cols in [1i64, 5, 8, 13, 64, 250] {
                    for pad in [0i64, 2] {
                        let rows = total / (cols + pad);
                        let args = EwArgs {
                            dst: src.len() as i64,
                            dst_stride: (cols + pad) * de,
                            a: 0,
                            a_stride: (cols + pad) * se,
                            rows,
                            cols,
                            ..EwArgs::default()
                        };
                        let mut mem0 = src.clone();
                        mem0.resize(src.len() + (total * de) as usize, 0xa5);
                        let mut want = mem0.clone();
                        assert_eq!(k.call_compiled(&mut want, &args), Status::Ok);
                        let mut got = mem0;
                        assert_eq!(cvt_wide(&mut got, c, &args), Some(Status::Ok));
                        assert!(got == want, "{c:?} cols {cols} pad {pad}");
                    }
                }
                // the source and the destination overlap: not taken
                let mut mem = vec![0u8; 64];
                let args = EwArgs {
                    dst: 8,
                    dst_stride: 16,
                    a: 0,
                    a_stride: 16,
                    rows: 2,
                    cols: 4,
                    ..EwArgs::default()
                };
                assert_eq!(cvt_wide(&mut mem, c, &args), None, "{c:?}");
            }
        }
    }

    /// Per-row scalars (`trowexpand*`) give what the region gives row by row.
    #[test]
    fn rows_with_their_own_scalars_match_row_by_row() {
        if !present() {
            return;
        }
        let r = Region {
            op: Op::Div,
            lane: Lane::F16,
            operands: Operands::ScalarLeft,
        };
        let vals = specials(Lane::F16);
        let (rows, cols) = (5i64, 13i64);
        let mem0: Vec<u8> = (0..(2 * rows * cols) as usize)
            .flat_map(|k| vals[k % vals.len()].to_le_bytes())
            .collect();
        let scalars: Vec<i64> = [2.0f32, -0.5, 0.0, f32::NAN, 1e-7]
            .iter()
            .map(|s| i64::from(s.to_bits()))
            .collect();
        let args = EwArgs {
            dst: rows * cols * 2,
            dst_stride: cols * 2,
            a: 0,
            a_stride: cols * 2,
            rows,
            cols,
            ..EwArgs::default()
        };
        let mut got = mem0.clone();
        assert_eq!(
            half_wide_rows(&mut got, &r, &args, &scalars),
            Some(Status::Ok)
        );
        let k = crate::compile(&r).expect("compiles");
        let mut want = mem0.clone();
        for (i, s) in (0i64..).zip(&scalars) {
            let row = EwArgs {
                dst: args.dst + i * args.dst_stride,
                a: i * args.a_stride,
                rows: 1,
                scalar: *s,
                ..args
            };
            assert_eq!(k.inner.call(&mut want, &row.to_array()), 0);
        }
        assert_eq!(got, want);
        // a count other than the rows: not taken
        assert_eq!(half_wide_rows(&mut got, &r, &args, &scalars[..4]), None);
    }

    /// Arguments it does not take fall back to the compiled region (`None`)
    /// and never touch memory out of bounds.
    #[test]
    fn hostile_or_overlapping_arguments_fall_back() {
        let r = Region {
            op: Op::Add,
            lane: Lane::F16,
            operands: Operands::Binary,
        };
        let mut mem = vec![0u8; 128];
        let good = EwArgs {
            dst: 64,
            dst_stride: 32,
            a: 0,
            a_stride: 32,
            b: 32,
            b_stride: 0,
            rows: 2,
            cols: 16,
            scalar: 0,
        };
        let want = present().then_some(Status::Ok);
        assert_eq!(half_wide(&mut mem, &r, &good), want);
        for bad in [
            EwArgs { rows: 3, ..good },
            EwArgs { a: -32, ..good },
            EwArgs {
                b_stride: -32,
                ..good
            },
            EwArgs {
                cols: i64::MAX / 2,
                ..good
            },
            EwArgs { dst: 126, ..good },
            EwArgs { rows: 0, ..good },
            // the destination overlaps a source it is not
            EwArgs { dst: 16, ..good },
        ] {
            assert_eq!(half_wide(&mut mem, &r, &bad), None, "{bad:?}");
        }
        // ops, lanes and forms it does not take
        for r in [
            Region { op: Op::Abs, ..r },
            Region {
                lane: Lane::I32,
                ..r
            },
            Region {
                lane: Lane::F32,
                ..r
            },
            Region { op: Op::Exp, ..r },
            Region {
                op: Op::Sqrt,
                operands: Operands::Unary,
                ..r
            },
        ] {
            assert_eq!(half_wide(&mut mem, &r, &good), None, "{r:?}");
        }
    }
}
