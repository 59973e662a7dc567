//! Matrix regions: `C = C + A x B` on f32, every element accumulated with
//! one fused multiply-add per `k` in increasing `k` order, starting from
//! `C`'s initial value. That is exactly the interpreter's definition of
//! `tmatmul` (f16/bf16 inputs are widened to f32 exactly first), so results
//! are bit-identical to it; only the loop order over `(i, j)` and the vector
//! width change.
//!
//! Why not Cranelift code: Cranelift's x86-64 backend emits 128-bit vectors
//! only (4 lanes), while this kernel uses 512-bit (AVX-512F, 16 lanes) or
//! 256-bit (AVX2 + FMA, 8 lanes) registers chosen at run time, with a 4-row
//! register block so each loaded row of `B` feeds four FMAs, up to 64
//! columns (16 accumulators) per block, and `k` split into blocks of 64 so
//! `B`'s block stays in the L1 cache. Splitting `k` is exact: the
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
#[error("matmul {m}x{k}x{n}: operand slices are too short (a {a}, b {b}, c {c})")]
pub struct ShapeError {
    m: usize,
    k: usize,
    n: usize,
    a: usize,
    b: usize,
    c: usize,
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
    let short = |len: usize, want: Option<usize>| want.is_none_or(|w| len < w);
    if short(a.len(), m.checked_mul(k))
        || short(b.len(), k.checked_mul(n))
        || short(c.len(), m.checked_mul(n))
    {
        return Err(ShapeError {
            m,
            k,
            n,
            a: a.len(),
            b: b.len(),
            c: c.len(),
        });
    }
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU supports AVX-512F (checked just above), and the
            // slice lengths were checked against m, k, n.
            unsafe { x86::kernel_avx512(m, k, n, a, b, c) };
            return Ok(());
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU supports AVX2 and FMA (checked just above), and
            // the slice lengths were checked against m, k, n.
            unsafe { x86::kernel_avx2(m, k, n, a, b, c) };
            return Ok(());
        }
    }
    scalar(m, k, n, a, b, c, 0..n);
    Ok(())
}

/// Columns `j0..j1` of every row, one element at a time.
fn scalar(
    m: usize,
    k: usize,
    n: usize,
    a: &[f32],
    b: &[f32],
    c: &mut [f32],
    js: std::ops::Range<usize>,
) {
    for i in 0..m {
        for j in js.clone() {
            let mut s = c[i * n + j];
            for kk in 0..k {
                s = a[i * k + kk].mul_add(b[kk * n + j], s);
            }
            c[i * n + j] = s;
        }
    }
}

// The AVX-512 intrinsics are stable since Rust 1.89, the workspace's MSRV.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// One 4-row x `V`-vector block of `c` over `k0..k1`: the accumulators
    /// start from `c` and are stored back, so splitting `k` into blocks
    /// performs exactly the same sequence of fused multiply-adds per element.
    ///
    /// # Safety
    /// The CPU must support AVX-512F; `i + 4 <= m`, `j + 16 * V <= n`,
    /// `k1 <= k`, and the pointers hold m*k, k*n and m*n elements.
    #[target_feature(enable = "avx512f")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn block512<const V: usize>(
        (ap, bp, cp): (*const f32, *const f32, *mut f32),
        (k, n): (usize, usize),
        (i, j): (usize, usize),
        (k0, k1): (usize, usize),
    ) {
        const W: usize = 16;
        let mut acc = [[_mm512_setzero_ps(); V]; 4];
        for (r, row) in acc.iter_mut().enumerate() {
            for (v, x) in row.iter_mut().enumerate() {
                *x = _mm512_loadu_ps(cp.add((i + r) * n + j + v * W));
            }
        }
        for kk in k0..k1 {
            let mut bv = [_mm512_setzero_ps(); V];
            for (v, x) in bv.iter_mut().enumerate() {
                *x = _mm512_loadu_ps(bp.add(kk * n + j + v * W));
            }
            for (r, row) in acc.iter_mut().enumerate() {
                let av = _mm512_set1_ps(*ap.add((i + r) * k + kk));
                for (x, b) in row.iter_mut().zip(bv) {
                    *x = _mm512_fmadd_ps(av, b, *x);
                }
            }
        }
        for (r, row) in acc.iter().enumerate() {
            for (v, x) in row.iter().enumerate() {
                _mm512_storeu_ps(cp.add((i + r) * n + j + v * W), *x);
            }
        }
    }

    /// Blocks of 4 rows x 64, 32 or 16 columns in 16-lane accumulators, `k`
    /// in blocks of 64 so a block of `b` stays in the L1 cache while every
    /// row block of `a` passes over it.
    ///
    /// # Safety
    /// The CPU must support AVX-512F; `a`, `b`, `c` must hold at least
    /// m*k, k*n and m*n elements.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn kernel_avx512(m: usize, k: usize, n: usize, a: &[f32], b: &[f32], c: &mut [f32]) {
        const W: usize = 16;
        const KC: usize = 64;
        let p = (a.as_ptr(), b.as_ptr(), c.as_mut_ptr());
        let m4 = m / 4 * 4;
        let mut j = 0;
        while j < n / W * W {
            let v = ((n - j) / W).min(4);
            let mut k0 = 0;
            while k0 < k {
                let k1 = (k0 + KC).min(k);
                for i in (0..m4).step_by(4) {
                    // SAFETY: i + 4 <= m, j + v * 16 <= n and k1 <= k keep the
                    // block inside the slices whose lengths the caller checked.
                    match v {
                        4 => block512::<4>(p, (k, n), (i, j), (k0, k1)),
                        3 => block512::<3>(p, (k, n), (i, j), (k0, k1)),
                        2 => block512::<2>(p, (k, n), (i, j), (k0, k1)),
                        _ => block512::<1>(p, (k, n), (i, j), (k0, k1)),
                    }
                }
                k0 = k1;
            }
            j += v * W;
        }
        // leftover rows (all columns) and columns (all rows) one by one
        super::scalar(m - m4, k, n, &a[m4 * k..], b, &mut c[m4 * n..], 0..n);
        super::scalar(m4, k, n, a, b, c, n / W * W..n);
    }

    /// [`block512`] with 8-lane AVX2 vectors.
    ///
    /// # Safety
    /// The CPU must support AVX2 and FMA; `i + 4 <= m`, `j + 8 * V <= n`,
    /// `k1 <= k`, and the pointers hold m*k, k*n and m*n elements.
    #[target_feature(enable = "avx2,fma")]
    unsafe fn block256<const V: usize>(
        (ap, bp, cp): (*const f32, *const f32, *mut f32),
        (k, n): (usize, usize),
        (i, j): (usize, usize),
        (k0, k1): (usize, usize),
    ) {
        const W: usize = 8;
        let mut acc = [[_mm256_setzero_ps(); V]; 4];
        for (r, row) in acc.iter_mut().enumerate() {
            for (v, x) in row.iter_mut().enumerate() {
                *x = _mm256_loadu_ps(cp.add((i + r) * n + j + v * W));
            }
        }
        for kk in k0..k1 {
            let mut bv = [_mm256_setzero_ps(); V];
            for (v, x) in bv.iter_mut().enumerate() {
                *x = _mm256_loadu_ps(bp.add(kk * n + j + v * W));
            }
            for (r, row) in acc.iter_mut().enumerate() {
                let av = _mm256_set1_ps(*ap.add((i + r) * k + kk));
                for (x, b) in row.iter_mut().zip(bv) {
                    *x = _mm256_fmadd_ps(av, b, *x);
                }
            }
        }
        for (r, row) in acc.iter().enumerate() {
            for (v, x) in row.iter().enumerate() {
                _mm256_storeu_ps(cp.add((i + r) * n + j + v * W), *x);
            }
        }
    }

    /// Blocks of 4 rows x 16 or 8 columns in 8-lane accumulators (sixteen
    /// registers leave no room for more), `k` in blocks of 64.
    ///
    /// # Safety
    /// The CPU must support AVX2 and FMA; `a`, `b`, `c` must hold at least
    /// m*k, k*n and m*n elements.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn kernel_avx2(m: usize, k: usize, n: usize, a: &[f32], b: &[f32], c: &mut [f32]) {
        const W: usize = 8;
        const KC: usize = 64;
        let p = (a.as_ptr(), b.as_ptr(), c.as_mut_ptr());
        let m4 = m / 4 * 4;
        let mut j = 0;
        while j < n / W * W {
            let v = ((n - j) / W).min(2);
            let mut k0 = 0;
            while k0 < k {
                let k1 = (k0 + KC).min(k);
                for i in (0..m4).step_by(4) {
                    // SAFETY: i + 4 <= m, j + v * 8 <= n and k1 <= k keep the
                    // block inside the slices whose lengths the caller checked.
                    match v {
                        2 => block256::<2>(p, (k, n), (i, j), (k0, k1)),
                        _ => block256::<1>(p, (k, n), (i, j), (k0, k1)),
                    }
                }
                k0 = k1;
            }
            j += v * W;
        }
        super::scalar(m - m4, k, n, &a[m4 * k..], b, &mut c[m4 * n..], 0..n);
        super::scalar(m4, k, n, a, b, c, n / W * W..n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(m: usize, k: usize, n: usize, a: &[f32], b: &[f32], c: &mut [f32]) {
        scalar(m, k, n, a, b, c, 0..n);
    }

    #[test]
    fn bit_identical_to_the_k_ordered_reference_for_odd_shapes() {
        let mut seed = 7u64;
        let mut rnd = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 3.0
        };
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
                // SAFETY: AVX2 and FMA are present; the slices hold m*k, k*n, m*n elements.
                unsafe { x86::kernel_avx2(m, k, n, &a, &b, &mut got) };
                let same = want
                    .iter()
                    .zip(&got)
                    .all(|(x, y)| x.to_bits() == y.to_bits());
                assert!(same, "{m}x{k}x{n} on avx2");
            }
        }
    }

    #[test]
    fn short_slices_are_an_error_not_a_crash() {
        let mut c = vec![0.0; 4];
        assert!(matmul_f32(2, 2, 2, &[1.0; 3], &[1.0; 4], &mut c).is_err());
        assert!(matmul_f32(usize::MAX, 2, 2, &[], &[], &mut c).is_err());
    }
}
