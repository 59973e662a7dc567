//! AVX2 forms of the f32 routines that softmax- and norm-style scopes call
//! per row: `vcadd`/`vcmax`/`vcmin` under any mask, `vdup` of a lane, and
//! the exact exp of `vexp`/`vexpdif`. Each gives the portable code's bits
//! (the unit tests compare them on random registers with ties, zeros of
//! both signs, infinities and NaNs); a case it does not take (a NaN in an
//! active lane of a reduction, a partial mask under `vcadd`) returns `None`
//! and the portable code answers.

use std::arch::x86_64::*;

use super::{exp_f32s_into, ExpArgs, Routine};
use crate::vscope::VLane;

/// The 8 f32 lanes `8c..8c+8` of a register.
#[target_feature(enable = "avx2")]
fn load(a: &[u8; 256], c: usize) -> __m256i {
    // SAFETY: `c & 7 < 8`, so the 32 bytes at `32 (c & 7)` lie inside the
    // 256-byte array; the load is unaligned.
    unsafe { _mm256_loadu_si256(a.as_ptr().add(32 * (c & 7)).cast()) }
}

#[target_feature(enable = "avx2")]
fn store(out: &mut [u8; 256], c: usize, v: __m256i) {
    // SAFETY: as in `load`: 32 bytes inside the array, unaligned store.
    unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(32 * (c & 7)).cast(), v) }
}

/// All ones in f32 lane `8c + k` when the mask enables it (bit `4 (8c+k)`
/// of the mask, which is bit `4k` of the mask's little-endian word `c`).
#[target_feature(enable = "avx2")]
fn keep(m: Option<&[u8; 32]>, c: usize) -> __m256i {
    let Some(m) = m else {
        return _mm256_set1_epi32(-1);
    };
    let c = c & 7;
    let w = i32::from_le_bytes([m[4 * c], m[4 * c + 1], m[4 * c + 2], m[4 * c + 3]]);
    let bits = _mm256_setr_epi32(
        1,
        1 << 4,
        1 << 8,
        1 << 12,
        1 << 16,
        1 << 20,
        1 << 24,
        1 << 28,
    );
    _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(w), bits), bits)
}

/// All ones in the lanes holding a NaN.
#[target_feature(enable = "avx2")]
fn nans(v: __m256i) -> __m256i {
    let abs = _mm256_and_si256(v, _mm256_set1_epi32(0x7fff_ffff));
    _mm256_cmpgt_epi32(abs, _mm256_set1_epi32(0x7f80_0000))
}

/// NaN lanes quieted (the quiet bit set), as widening to f64 does.
#[target_feature(enable = "avx2")]
fn quiet(v: __m256i) -> __m256i {
    _mm256_or_si256(v, _mm256_and_si256(nans(v), _mm256_set1_epi32(0x0040_0000)))
}

/// One level of the adder tree: the pair sums of 16 consecutive values in
/// order (`hadd` pairs neighbours but interleaves the two sources' halves;
/// the permutation puts the sums back in order).
#[target_feature(enable = "avx2")]
fn pair_sums(lo: __m256, hi: __m256) -> __m256 {
    let order = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
    _mm256_permutevar8x32_ps(_mm256_hadd_ps(lo, hi), order)
}

/// The routine on AVX2 into `out` when it is one of the cases above (true),
/// else false (`out` then holds nothing of use). The result goes straight
/// into the caller's buffer: an `Option<[u8; 256]>` return value lies one
/// byte past an alignment boundary, so every 32-byte store into it split
/// across two cache lines, and the caller copied it once more (perf: over a
/// quarter of this function's time in the micro-op softmax scope).
///
/// # Safety
/// The CPU supports AVX2.
#[target_feature(enable = "avx2")]
pub(super) fn fast(
    op: Routine,
    lane: VLane,
    a: &[u8; 256],
    b: Option<&[u8; 256]>,
    m: Option<&[u8; 32]>,
    out: &mut [u8; 256],
) -> bool {
    if lane != VLane::F32 {
        return false;
    }
    match op {
        Routine::Add | Routine::Max | Routine::Min => return reduce(op, a, m, out),
        Routine::DupLowest | Routine::DupHighest => {
            let at = if op == Routine::DupHighest { 252 } else { 0 };
            let x = i32::from_le_bytes([a[at], a[at + 1], a[at + 2], a[at + 3]]);
            for c in 0..8 {
                store(out, c, _mm256_and_si256(_mm256_set1_epi32(x), keep(m, c)));
            }
        }
        Routine::Exp | Routine::ExpDif => {
            let zero = [0u8; 256];
            let b = if op == Routine::Exp {
                &zero
            } else {
                b.unwrap_or(&zero)
            };
            let (mut p, mut q) = ([0f32; 64], [0f32; 64]);
            for c in 0..8 {
                // SAFETY: 8 f32 at `8 (c & 7)` lie inside the 64-lane arrays
                let (pc, qc) = unsafe {
                    (
                        p.as_mut_ptr().add(8 * (c & 7)),
                        q.as_mut_ptr().add(8 * (c & 7)),
                    )
                };
                // SAFETY: pointers into the arrays above, unaligned stores
                unsafe {
                    _mm256_storeu_si256(pc.cast(), quiet(load(a, c)));
                    _mm256_storeu_si256(qc.cast(), quiet(load(b, c)));
                }
            }
            // exp(p - q), in the widest form the CPU has
            let mut ys = [0f32; 64];
            exp_f32s_into(ExpArgs::Dif(&p, &q), &mut ys);
            for c in 0..8 {
                // SAFETY: 8 f32 at `8 c` lie inside the 64-lane array
                let y = unsafe { _mm256_loadu_si256(ys.as_ptr().add(8 * c).cast()) };
                store(out, c, _mm256_and_si256(y, keep(m, c)));
            }
        }
        _ => return false,
    }
    true
}

/// `vcadd`/`vcmax`/`vcmin` on f32 lanes without NaN among the active ones.
#[target_feature(enable = "avx2")]
fn reduce(op: Routine, a: &[u8; 256], m: Option<&[u8; 32]>, out: &mut [u8; 256]) -> bool {
    let mut x = [_mm256_setzero_si256(); 8];
    let mut k = [_mm256_setzero_si256(); 8];
    let mut nan = _mm256_setzero_si256();
    let mut all = _mm256_set1_epi32(-1);
    let mut any = _mm256_setzero_si256();
    for c in 0..8 {
        x[c] = load(a, c);
        k[c] = keep(m, c);
        nan = _mm256_or_si256(nan, _mm256_and_si256(nans(x[c]), k[c]));
        all = _mm256_and_si256(all, k[c]);
        any = _mm256_or_si256(any, k[c]);
    }
    if _mm256_testz_si256(nan, nan) == 0 {
        return false;
    }
    if op == Routine::Add {
        // every lane active: the fixed 64-lane tree. Without a NaN operand
        // the sums do not depend on operand order (a NaN made by inf - inf
        // is the one default NaN either way).
        if _mm256_movemask_epi8(all) != -1 {
            return false;
        }
        let v: [__m256; 8] = std::array::from_fn(|c| _mm256_castsi256_ps(x[c]));
        let l32 = [
            pair_sums(v[0], v[1]),
            pair_sums(v[2], v[3]),
            pair_sums(v[4], v[5]),
            pair_sums(v[6], v[7]),
        ];
        let l16 = [pair_sums(l32[0], l32[1]), pair_sums(l32[2], l32[3])];
        let l8 = pair_sums(l16[0], l16[1]);
        let mut s = [0f32; 8];
        // SAFETY: 8 f32 into an 8-element array, unaligned store
        unsafe { _mm256_storeu_ps(s.as_mut_ptr(), l8) };
        let sum = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
        *out = [0; 256];
        out[..4].copy_from_slice(&sum.to_le_bytes());
        return true;
    }
    let max = op == Routine::Max;
    let init = if max {
        f32::NEG_INFINITY
    } else {
        f32::INFINITY
    };
    if _mm256_testz_si256(any, any) != 0 {
        // no active lane: the identity at index 0
        *out = [0; 256];
        out[..4].copy_from_slice(&init.to_le_bytes());
        return true;
    }
    let fill = _mm256_set1_ps(init);
    let mut acc = fill;
    for c in 0..8 {
        let v = _mm256_blendv_ps(fill, _mm256_castsi256_ps(x[c]), _mm256_castsi256_ps(k[c]));
        acc = if max {
            _mm256_max_ps(acc, v)
        } else {
            _mm256_min_ps(acc, v)
        };
    }
    let mut e = [0f32; 8];
    // SAFETY: 8 f32 into an 8-element array, unaligned store
    unsafe { _mm256_storeu_ps(e.as_mut_ptr(), acc) };
    let best = e.iter().fold(init, |b, &v| {
        if (max && v > b) || (!max && v < b) {
            v
        } else {
            b
        }
    });
    // the first active lane equal to it (-0 == +0, as the strict compare
    // of the portable code keeps the first of them)
    let target = _mm256_set1_ps(best);
    for c in 0..8 {
        let eq = _mm256_and_ps(
            _mm256_cmp_ps::<_CMP_EQ_OQ>(_mm256_castsi256_ps(x[c]), target),
            _mm256_castsi256_ps(k[c]),
        );
        let bits = _mm256_movemask_ps(eq);
        if bits != 0 {
            let i = 8 * c + bits.trailing_zeros() as usize;
            *out = [0; 256];
            out[..4].copy_from_slice(&a[4 * i..4 * i + 4]);
            out[4..8].copy_from_slice(&(i as u32).to_le_bytes());
            return true;
        }
    }
    // (unreachable: the best value is an active lane's)
    false
}
