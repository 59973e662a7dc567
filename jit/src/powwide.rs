//! f32 `pow` regions (tile ^ tile and tile ^ scalar) on 8-lane AVX2 vectors:
//! [`crate::mathf::pow`]'s algorithm step for step (the same f64 core on 4
//! lanes instead of Cranelift's 2, the same constants, fused steps and
//! rounding to f32, then the same special-value rules in the same order), so
//! every lane gets the compiled region's bits. The one difference allowed is
//! the one all elementwise regions allow: which payload a NaN result keeps
//! when both operands are NaN (a sum of the two; the cross-check accepts a
//! NaN for a NaN).
//!
//! It runs only the plain case ([`crate::ewwide::rows_fit`]) on a host with
//! AVX2 and FMA and returns `None` otherwise, which the compiled region then
//! handles. The last partial vector of a row goes through 8-element buffers
//! on the stack.

use crate::ewwide::{row_at, rows_fit};
use crate::{EwArgs, Lane, Op, Operands, Region, Status};

/// Whether [`pow_wide`] takes this region.
pub(crate) fn handles(r: &Region) -> bool {
    r.lane == Lane::F32
        && r.op == Op::Pow
        && matches!(r.operands, Operands::Binary | Operands::ScalarRight)
}

fn present() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Runs pow region `r` over `mem` on 8-lane vectors, or returns `None` (see
/// the module comment).
pub(crate) fn pow_wide(mem: &mut [u8], r: &Region, a: &EwArgs) -> Option<Status> {
    if !handles(r) {
        return None;
    }
    let binary = r.operands == Operands::Binary;
    if !rows_fit(mem.len(), a, binary, 4) || !present() {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    {
        let scalar = f32::from_bits(a.scalar as u32);
        for i in 0..a.rows {
            let (x, y, d) = row_at(a, i, binary);
            // SAFETY: AVX2 and FMA are present (checked above); every row of
            // every operand lies in `mem` (`rows_fit`); each source is the
            // destination row itself or disjoint from every destination
            // row, so an element is read before (or without) being written;
            // the pointers come from one live exclusive borrow of `mem`.
            unsafe {
                let base = mem.as_mut_ptr();
                let (px, py, pd) = (
                    base.add(x).cast::<f32>(),
                    base.add(y).cast::<f32>(),
                    base.add(d).cast::<f32>(),
                );
                let exps = if binary { Some(py.cast_const()) } else { None };
                x86::pow_row(px, exps, scalar, pd, a.cols as usize);
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
    use std::arch::x86_64::*;

    /// `mathf::pow_wide`: 2^(y log2 ax) in f64 for positive finite `ax`
    /// (other inputs give some value the special rules replace), on 4 lanes.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    fn core(ax: __m256d, y: __m256d) -> __m256d {
        const SQRT_HALF: i64 = 0x3fe6_a09e_667f_3bcd;
        let f = _mm256_set1_pd;
        let i = _mm256_set1_epi64x;
        let ix = _mm256_add_epi64(
            _mm256_castpd_si256(ax),
            i(0x3ff0_0000_0000_0000 - SQRT_HALF),
        );
        let eb = _mm256_srli_epi64::<52>(ix);
        let kf = _mm256_castsi256_pd(_mm256_or_si256(eb, i(0x4330_0000_0000_0000)));
        let k = _mm256_sub_pd(kf, f(4_503_599_627_370_496.0 + 1023.0));
        let m = _mm256_and_si256(ix, i(0x000f_ffff_ffff_ffff));
        let m = _mm256_castsi256_pd(_mm256_add_epi64(m, i(SQRT_HALF)));
        let s = _mm256_div_pd(_mm256_sub_pd(m, f(1.0)), _mm256_add_pd(m, f(1.0)));
        let z = _mm256_mul_pd(s, s);
        let mut p = f(1.0 / 17.0);
        for n in (0..8).rev() {
            p = _mm256_fmadd_pd(p, z, f(1.0 / f64::from(2 * n + 1)));
        }
        let sp = _mm256_mul_pd(s, f(2.0 * std::f64::consts::LOG2_E));
        let l = _mm256_fmadd_pd(sp, p, k);
        let t = _mm256_mul_pd(y, l);
        // Cranelift's fmin/fmax propagate a NaN; x86's return the second
        // operand: keep a NaN t as it is
        let nan = _mm256_cmp_pd::<_CMP_UNORD_Q>(t, t);
        let c = _mm256_max_pd(_mm256_min_pd(t, f(300.0)), f(-300.0));
        let t = _mm256_blendv_pd(c, t, nan);
        let magic = f(6_755_399_441_055_744.0);
        let tm = _mm256_add_pd(t, magic);
        let nf = _mm256_sub_pd(tm, magic);
        let fr = _mm256_sub_pd(t, nf);
        let ln2 = std::f64::consts::LN_2;
        let mut coef = [1.0f64; 13];
        for n in 1..13 {
            coef[n] = coef[n - 1] * ln2 / n as f64;
        }
        let mut q = f(coef[12]);
        for &cf in coef[..12].iter().rev() {
            q = _mm256_fmadd_pd(q, fr, f(cf));
        }
        let n = _mm256_sub_epi64(_mm256_castpd_si256(tm), i(0x4338_0000_0000_0000));
        let e = _mm256_slli_epi64::<52>(n);
        _mm256_castsi256_pd(_mm256_add_epi64(_mm256_castpd_si256(q), e))
    }

    /// `mathf::pow` on 8 f32 lanes.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    fn pow8(x: __m256, y: __m256) -> __m256 {
        let f = _mm256_set1_ps;
        let sel = |c: __m256, a: __m256, b: __m256| _mm256_blendv_ps(b, a, c);
        let sign = f(-0.0);
        let ax = _mm256_andnot_ps(sign, x);
        let lo = core(
            _mm256_cvtps_pd(_mm256_castps256_ps128(ax)),
            _mm256_cvtps_pd(_mm256_castps256_ps128(y)),
        );
        let hi = core(
            _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(ax)),
            _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(y)),
        );
        let r = _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo));
        // the exponent: an integer (every |y| >= 2^24 is, and even), odd?
        // (x86's conversion gives i32::MIN where Cranelift's saturates; they
        // differ only for |y| >= 2^31 and NaN, where `big`, or neither
        // `same` nor `big`, decides alike)
        let ay = _mm256_andnot_ps(sign, y);
        let big = _mm256_cmp_ps::<_CMP_GE_OQ>(ay, f(16_777_216.0));
        let yi = _mm256_cvttps_epi32(y);
        let same = _mm256_cmp_ps::<_CMP_EQ_OQ>(_mm256_cvtepi32_ps(yi), y);
        let yint = _mm256_or_ps(big, same);
        let one_i = _mm256_set1_epi32(1);
        let odd_bit = _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(yi, one_i), one_i));
        let odd = _mm256_andnot_ps(big, _mm256_and_ps(same, odd_bit));
        let xneg = _mm256_castsi256_ps(_mm256_srai_epi32::<31>(_mm256_castps_si256(x)));
        let neg_odd = _mm256_and_ps(xneg, odd);
        let r = sel(neg_odd, _mm256_xor_ps(r, sign), r);
        // a negative finite x with a non-integer y: NaN
        let zero = _mm256_setzero_ps();
        let lt0 = _mm256_cmp_ps::<_CMP_LT_OQ>(x, zero);
        let bad = _mm256_andnot_ps(yint, lt0);
        let r = sel(bad, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc0_0000)), r);
        // x = ±0 or ±inf
        let inf = f(f32::INFINITY);
        let is0 = _mm256_cmp_ps::<_CMP_EQ_OQ>(ax, zero);
        let isinf = _mm256_cmp_ps::<_CMP_EQ_OQ>(ax, inf);
        let edge = _mm256_or_ps(is0, isinf);
        let yneg = _mm256_cmp_ps::<_CMP_LT_OQ>(y, zero);
        let to_zero = _mm256_xor_ps(is0, yneg);
        let mag = sel(to_zero, zero, inf);
        let emag = sel(neg_odd, _mm256_xor_ps(mag, sign), mag);
        let r = sel(edge, emag, r);
        // |x| = 1 and y = ±inf: 1
        let one = f(1.0);
        let ax1 = _mm256_cmp_ps::<_CMP_EQ_OQ>(ax, one);
        let yinf = _mm256_cmp_ps::<_CMP_EQ_OQ>(ay, inf);
        let r = sel(_mm256_and_ps(ax1, yinf), one, r);
        // NaN operands: NaN
        let xn = _mm256_cmp_ps::<_CMP_UNORD_Q>(x, y);
        let r = sel(xn, _mm256_add_ps(x, y), r);
        // y = ±0 or x = 1: 1
        let y0 = _mm256_cmp_ps::<_CMP_EQ_OQ>(y, zero);
        let x1 = _mm256_cmp_ps::<_CMP_EQ_OQ>(x, one);
        sel(_mm256_or_ps(y0, x1), one, r)
    }

    /// One row of `n` elements: `d[i] = x[i] ^ y[i]` with `ys`, else
    /// `x[i] ^ s`.
    ///
    /// # Safety
    /// The CPU has AVX2 and FMA; `x`, `ys` (when given) and `d` are valid
    /// for `n` f32 each (unaligned); a source is `d` itself or does not
    /// overlap it.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn pow_row(
        x: *const f32,
        ys: Option<*const f32>,
        s: f32,
        d: *mut f32,
        n: usize,
    ) {
        let sv = _mm256_set1_ps(s);
        let mut i = 0;
        while i + 8 <= n {
            // SAFETY: `i + 8 <= n`: the lanes are in bounds of every operand
            unsafe {
                let y = match ys {
                    Some(p) => _mm256_loadu_ps(p.add(i)),
                    None => sv,
                };
                _mm256_storeu_ps(d.add(i), pow8(_mm256_loadu_ps(x.add(i)), y));
            }
            i += 8;
        }
        if i < n {
            let k = n - i;
            let (mut bx, mut by, mut bd) = ([0f32; 8], [s; 8], [0f32; 8]);
            // SAFETY: `k < 8` elements from `i < n`, inside every row and
            // every buffer
            unsafe {
                std::ptr::copy_nonoverlapping(x.add(i), bx.as_mut_ptr(), k);
                if let Some(p) = ys {
                    std::ptr::copy_nonoverlapping(p.add(i), by.as_mut_ptr(), k);
                }
                let r = pow8(_mm256_loadu_ps(bx.as_ptr()), _mm256_loadu_ps(by.as_ptr()));
                _mm256_storeu_ps(bd.as_mut_ptr(), r);
                std::ptr::copy_nonoverlapping(bd.as_ptr(), d.add(i), k);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// f32 bases and exponents: the special values of every rule (zeros,
    /// ones, infinities, NaNs with payloads, negative bases with integer,
    /// odd, huge and fractional exponents, 2^24 and 2^31 edges,
    /// subnormals, overflow and underflow) and a pseudo-random spread.
    fn values() -> Vec<f32> {
        let mut v = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            2.0,
            -2.0,
            0.5,
            -0.5,
            3.0,
            -3.0,
            0.3,
            -7.5,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::from_bits(0x7fc1_2345),
            f32::from_bits(0xffc0_0042),
            f32::from_bits(0x7f80_0001),
            16_777_216.0,
            16_777_215.0,
            -16_777_217.0,
            2_147_483_648.0,
            -2_147_483_648.0,
            3.0e9,
            1.000_000_1,
            0.999_999_9,
            f32::MIN_POSITIVE,
            f32::from_bits(1),
            -f32::from_bits(3),
            f32::MAX,
            -f32::MAX,
            100.0,
            -150.0,
            1.0e-20,
        ];
        let mut s = 4242u32;
        for _ in 0..30 {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            // bases in (0, 8], exponents in [-4, 4], and raw bits
            v.push(((s >> 8) % 8000 + 1) as f32 / 1000.0);
            v.push(((s >> 4) % 8001) as f32 / 1000.0 - 4.0);
            v.push(f32::from_bits(s));
        }
        v
    }

    /// Bit for bit (a NaN for a NaN when both operands are NaN).
    fn agree(g: &[u8], w: &[u8], x: f32, y: f32) -> bool {
        let f = |b: &[u8]| f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        g == w || (x.is_nan() && y.is_nan() && f(g).is_nan() && f(w).is_nan())
    }

    /// Every pair of values, in both forms, on rows with every tail length,
    /// padding and in place: the compiled region's bits.
    #[test]
    fn pow_gives_the_compiled_regions_bits() {
        if !present() {
            eprintln!("no AVX2 and FMA on this host: nothing to compare");
            return;
        }
        let vals = values();
        let n = vals.len();
        for operands in [Operands::Binary, Operands::ScalarRight] {
            let r = Region {
                op: Op::Pow,
                lane: Lane::F32,
                operands,
            };
            let k = crate::compile(&r).expect("compiles");
            // tile form: every (x, y) pair; scalar form: every x with a few
            // scalars
            let scalars: Vec<f32> = if operands == Operands::Binary {
                vec![0.0]
            } else {
                vec![2.0, -3.0, 0.5, -0.0, f32::INFINITY, f32::NAN, 1.5e9, -1.25]
            };
            for cols in [1i64, 5, 8, 13, 16, 29] {
                for pad in [0i64, 3] {
                    let rows = (n * n).div_ceil(cols as usize) as i64;
                    let stride = (cols + pad) * 4;
                    let span = (rows * stride) as usize;
                    let mut mem0 = vec![0u8; 3 * span];
                    let (mut xs, mut ys) = (vec![0f32; span / 4], vec![0f32; span / 4]);
                    for e in 0..span / 4 {
                        let (x, y) = (vals[e % n], vals[(e / n) % n]);
                        xs[e] = x;
                        ys[e] = y;
                        mem0[4 * e..4 * e + 4].copy_from_slice(&x.to_le_bytes());
                        mem0[span + 4 * e..span + 4 * e + 4].copy_from_slice(&y.to_le_bytes());
                    }
                    for &s in &scalars {
                        for in_place in [false, true] {
                            let args = EwArgs {
                                dst: if in_place { 0 } else { 2 * span as i64 },
                                dst_stride: stride,
                                a: 0,
                                a_stride: stride,
                                b: span as i64,
                                b_stride: stride,
                                rows,
                                cols,
                                scalar: i64::from(s.to_bits()),
                            };
                            let mut want = mem0.clone();
                            assert_eq!(k.inner.call(&mut want, &args.to_array()), 0);
                            let mut got = mem0.clone();
                            assert_eq!(pow_wide(&mut got, &r, &args), Some(Status::Ok));
                            let at = args.dst as usize;
                            for e in 0..span / 4 {
                                let (g, w) = (&got[at + 4 * e..][..4], &want[at + 4 * e..][..4]);
                                let y = if operands == Operands::Binary {
                                    ys[e]
                                } else {
                                    s
                                };
                                assert!(
                                    agree(g, w, xs[e], y),
                                    "{operands:?} cols {cols} pad {pad} in place {in_place}: \
                                     {}^{y} gives {g:02x?}, the compiled region {w:02x?}",
                                    xs[e]
                                );
                            }
                            // nothing else written
                            let other = |m: &[u8]| {
                                let mut m = m.to_vec();
                                m[at..at + span].fill(0);
                                m
                            };
                            assert!(other(&got) == other(&want));
                        }
                    }
                }
            }
        }
    }

    /// A million pseudo-random pairs (bases in (0, 8] and exponents in
    /// [-4, 4], as the benchmark's, half of them, and raw bit patterns the
    /// other half) in one tile: the compiled region's bits. (The f64 core
    /// keeps its error far below an f32 ulp, so a change to one of its
    /// rounding steps shows in about one result in 2^29; what this catches
    /// is a wrong lane, constant, rule or rounding to f32.)
    #[test]
    fn pow_gives_the_compiled_regions_bits_on_a_million_pairs() {
        if !present() {
            return;
        }
        let r = Region {
            op: Op::Pow,
            lane: Lane::F32,
            operands: Operands::Binary,
        };
        let k = crate::compile(&r).expect("compiles");
        let n = 1usize << 20;
        let mut mem0 = vec![0u8; 3 * 4 * n];
        let mut s = 99u64;
        for e in 0..n {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let (x, y) = if e % 2 == 0 {
                (
                    ((s >> 40) % 8_000_000 + 1) as f32 / 1_000_000.0,
                    ((s >> 10) % 8_000_001) as f32 / 1_000_000.0 - 4.0,
                )
            } else {
                (f32::from_bits((s >> 32) as u32), f32::from_bits(s as u32))
            };
            mem0[4 * e..4 * e + 4].copy_from_slice(&x.to_le_bytes());
            mem0[4 * (n + e)..4 * (n + e) + 4].copy_from_slice(&y.to_le_bytes());
        }
        let args = EwArgs {
            dst: 8 * n as i64,
            dst_stride: 4096,
            a: 0,
            a_stride: 4096,
            b: 4 * n as i64,
            b_stride: 4096,
            rows: (n / 1024) as i64,
            cols: 1024,
            scalar: 0,
        };
        let mut want = mem0.clone();
        assert_eq!(k.inner.call(&mut want, &args.to_array()), 0);
        let mut got = mem0.clone();
        assert_eq!(pow_wide(&mut got, &r, &args), Some(Status::Ok));
        let f = |m: &[u8], at: usize| f32::from_le_bytes([m[at], m[at + 1], m[at + 2], m[at + 3]]);
        for e in 0..n {
            let at = 8 * n + 4 * e;
            let (x, y) = (f(&mem0, 4 * e), f(&mem0, 4 * (n + e)));
            assert!(
                agree(&got[at..at + 4], &want[at..at + 4], x, y),
                "{x:e}^{y:e}: {:e} against the compiled region's {:e}",
                f(&got, at),
                f(&want, at)
            );
        }
    }

    /// Arguments it does not take fall back (`None`) without touching memory.
    #[test]
    fn hostile_or_overlapping_arguments_fall_back() {
        let r = Region {
            op: Op::Pow,
            lane: Lane::F32,
            operands: Operands::Binary,
        };
        let mut mem = vec![0u8; 256];
        let good = EwArgs {
            dst: 128,
            dst_stride: 64,
            a: 0,
            a_stride: 64,
            b: 64,
            b_stride: 0,
            rows: 2,
            cols: 16,
            scalar: 0,
        };
        assert_eq!(
            pow_wide(&mut mem, &r, &good),
            present().then_some(Status::Ok)
        );
        for bad in [
            EwArgs { rows: 3, ..good },
            EwArgs { a: -64, ..good },
            EwArgs {
                b_stride: -64,
                ..good
            },
            EwArgs {
                cols: i64::MAX / 2,
                ..good
            },
            EwArgs { dst: 32, ..good },
        ] {
            assert_eq!(pow_wide(&mut mem, &r, &bad), None, "{bad:?}");
        }
        for other in [
            Region {
                operands: Operands::ScalarLeft,
                ..r
            },
            Region {
                lane: Lane::I32,
                ..r
            },
            Region { op: Op::Mul, ..r },
        ] {
            assert_eq!(pow_wide(&mut mem, &other, &good), None, "{other:?}");
        }
    }
}
