//! f32 `add`/`sub`/`mul`/`div` regions (tile-tile and tile-scalar) on 16-lane
//! AVX-512 or 8-lane AVX vectors instead of Cranelift's 4-lane ones (the
//! widths of [`crate::mathf::exp_wide`]: the 8-lane rows run where that has
//! its AVX2+FMA form).
//!
//! Each lane is one IEEE operation in round-to-nearest, so every element
//! gets the compiled region's (and the interpreter's) bits, with one
//! exception: when both operands are NaN, x86 returns the payload of the
//! instruction's first source, and which operand that is depends on how the
//! compiler (Cranelift for the region, LLVM here and in the interpreter)
//! orders a commutative operation or folds a load; the result is a quiet NaN
//! either way, and `--crosscheck` accepts a NaN for a NaN on elementwise ops.
//! The tests compare the two on special values, every tail length, strides
//! and in-place forms.
//!
//! Like [`crate::mathf::exp_wide`], it runs only the plain case and returns
//! `None` otherwise, which the compiled region then handles (its bounds
//! proof and statuses): no AVX-512F or AVX2+FMA, an argument outside `0..2^32`, an
//! empty domain, a row outside `mem`, or a source that is neither the
//! destination rows themselves nor byte-disjoint from them.

use crate::mathf::Width;
use crate::{EwArgs, Lane, Op, Operands, Region, Status};

/// Whether [`arith_wide`] takes this region.
pub(crate) fn handles(r: &Region) -> bool {
    r.lane == Lane::F32
        && matches!(r.op, Op::Add | Op::Sub | Op::Mul | Op::Div)
        && r.operands != Operands::Unary
}

/// Runs region `r` over `mem` on the widest vectors the host has, or returns
/// `None` (see the module comment).
pub(crate) fn arith_wide(mem: &mut [u8], r: &Region, a: &EwArgs) -> Option<Status> {
    arith_wide_on(mem, r, a, None)
}

/// [`arith_wide`] on the given width (`None`: the widest the host has).
pub(crate) fn arith_wide_on(
    mem: &mut [u8],
    r: &Region,
    a: &EwArgs,
    isa: Option<Width>,
) -> Option<Status> {
    wide_rows_on(mem, r, a, None, isa)
}

/// A tile-scalar region over `a.rows` rows, row `i` with the f32 bits
/// `scalars[i]` as its scalar (`a.scalar` unused): the rows of a
/// `trowexpand{add,sub,mul,div}`, in one call. `None` as [`arith_wide`].
pub(crate) fn arith_wide_rows(
    mem: &mut [u8],
    r: &Region,
    a: &EwArgs,
    scalars: &[i64],
) -> Option<Status> {
    wide_rows_on(mem, r, a, Some(scalars), None)
}

/// [`arith_wide_on`], with per-row scalars when `scalars` is given.
fn wide_rows_on(
    mem: &mut [u8],
    r: &Region,
    a: &EwArgs,
    scalars: Option<&[i64]>,
    isa: Option<Width>,
) -> Option<Status> {
    if !handles(r) {
        return None;
    }
    if !scalars_fit(r, a, scalars) {
        return None;
    }
    let binary = r.operands == Operands::Binary;
    if !rows_fit(mem.len(), a, binary, 4) {
        return None;
    }
    let isa = isa.or_else(Width::detect)?;
    if !isa.present() {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    {
        for i in 0..a.rows {
            let bits = match scalars {
                Some(v) => v[i as usize],
                None => a.scalar,
            };
            let form = Form::of(r.operands, bits);
            let (x, y, d) = row_at(a, i, binary);
            // SAFETY: the width's instruction set is present (checked above);
            // every row of every operand lies in `mem` (the last one ends
            // within it and the offsets grow with the row); each source is
            // the destination row itself or disjoint from every destination
            // row, so an element is read before (or without) being written,
            // as in the compiled code; the pointers come from one live
            // exclusive borrow of `mem`.
            unsafe {
                let base = mem.as_mut_ptr();
                let (px, py, pd) = (
                    base.add(x).cast::<f32>(),
                    base.add(y).cast::<f32>(),
                    base.add(d).cast::<f32>(),
                );
                let n = a.cols as usize;
                match isa {
                    Width::Avx512 => wide::row16(r.op, form, px, py, pd, n),
                    Width::Avx2 => wide::row8(r.op, form, px, py, pd, n),
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

/// Whether per-row scalars (`trowexpand*`), if given, fit region `r` and
/// arguments `a`: a tile-scalar region and one scalar per row.
pub(crate) fn scalars_fit(r: &Region, a: &EwArgs, scalars: Option<&[i64]>) -> bool {
    scalars.is_none_or(|v| {
        matches!(r.operands, Operands::ScalarLeft | Operands::ScalarRight)
            && i64::try_from(v.len()).is_ok_and(|n| n == a.rows)
    })
}

/// Whether the rows of `a` (elements of `elem` bytes; the second source
/// only when `binary`) are the plain case the wide rows take: every argument
/// in `0..2^32`, a non-empty domain, every row inside a buffer of `len`
/// bytes, and each source either the destination rows themselves (same
/// address and stride) or byte-disjoint from all of them.
pub(crate) fn rows_fit(len: usize, a: &EwArgs, binary: bool, elem: i64) -> bool {
    rows_fit_sized(len, a, binary, (elem, elem), true)
}

/// [`rows_fit`] with destination and source elements of `(d_elem, s_elem)`
/// bytes; a source at the destination's rows is taken only when `in_place`.
pub(crate) fn rows_fit_sized(
    len: usize,
    a: &EwArgs,
    binary: bool,
    (d_elem, s_elem): (i64, i64),
    in_place: bool,
) -> bool {
    let small = |v: i64| (0..1 << 32).contains(&v);
    // the second source is checked (and used) only in the tile-tile form
    let (b, b_stride) = if binary {
        (a.b, a.b_stride)
    } else {
        (a.a, a.a_stride)
    };
    let args = [
        a.dst,
        a.dst_stride,
        a.a,
        a.a_stride,
        a.rows,
        a.cols,
        b,
        b_stride,
    ];
    if !args.iter().all(|v| small(*v)) || a.rows == 0 || a.cols == 0 {
        return false;
    }
    // within 2^32 each (elements of at most 8 bytes), so none of these
    // overflow
    let end = |at: i64, stride: i64, elem: i64| at + (a.rows - 1) * stride + a.cols * elem;
    let Ok(len) = i64::try_from(len) else {
        return false;
    };
    let d_end = end(a.dst, a.dst_stride, d_elem);
    if d_end > len {
        return false;
    }
    [(a.a, a.a_stride), (b, b_stride)].iter().all(|&(s, st)| {
        let s_end = end(s, st, s_elem);
        let same = in_place && s == a.dst && st == a.dst_stride;
        s_end <= len && (same || d_end <= s || s_end <= a.dst)
    })
}

/// Row `i`'s byte offsets in the buffer: (first source, second source, which
/// is the first again unless `binary`, destination). For arguments
/// [`rows_fit`] took, where none of them overflows.
pub(crate) fn row_at(a: &EwArgs, i: i64, binary: bool) -> (usize, usize, usize) {
    let x = (a.a + i * a.a_stride) as usize;
    let y = if binary {
        (a.b + i * a.b_stride) as usize
    } else {
        x
    };
    (x, y, (a.dst + i * a.dst_stride) as usize)
}

/// The second operand of a row.
#[derive(Clone, Copy)]
pub(crate) enum Form {
    /// `x op y` (tiles).
    Tiles,
    /// `x op s`.
    Right(f32),
    /// `s op x`.
    Left(f32),
}

impl Form {
    /// The form of a region's operands, its scalar the f32 bits `bits` (the
    /// unary form takes the tile form: its second source is the first).
    pub(crate) fn of(operands: Operands, bits: i64) -> Form {
        let s = f32::from_bits(bits as u32);
        match operands {
            Operands::ScalarRight => Form::Right(s),
            Operands::ScalarLeft => Form::Left(s),
            Operands::Binary | Operands::Unary => Form::Tiles,
        }
    }
}

/// One scalar element in the compiled region's operand order.
#[inline(always)]
fn lane(op: Op, p: f32, q: f32) -> f32 {
    match op {
        Op::Add => p + q,
        Op::Sub => p - q,
        Op::Mul => p * q,
        _ => p / q,
    }
}

#[cfg(target_arch = "x86_64")]
mod wide {
    use super::{lane, Form};
    use crate::Op;
    use std::arch::x86_64::*;

    /// The vector loop and the scalar tail of one row, `$f` applied to a
    /// vector (or element) of `x` and the second operand in that order.
    macro_rules! run {
        ($w:expr, $load:ident, $store:ident, $set1:ident, $x:ident, $y:ident, $d:ident,
         $n:ident, $form:ident, $op:ident, $f:ident) => {{
            let mut i = 0;
            match $form {
                Form::Tiles => {
                    // four vectors per step: the loads of the next ones do
                    // not wait on the loop counter
                    while i + 4 * $w <= $n {
                        // SAFETY: `i + 4W <= n`: the lanes are in bounds of every operand
                        unsafe {
                            let (x0, y0) = ($load($x.add(i)), $load($y.add(i)));
                            let (x1, y1) = ($load($x.add(i + $w)), $load($y.add(i + $w)));
                            let (x2, y2) = ($load($x.add(i + 2 * $w)), $load($y.add(i + 2 * $w)));
                            let (x3, y3) = ($load($x.add(i + 3 * $w)), $load($y.add(i + 3 * $w)));
                            $store($d.add(i), $f(x0, y0));
                            $store($d.add(i + $w), $f(x1, y1));
                            $store($d.add(i + 2 * $w), $f(x2, y2));
                            $store($d.add(i + 3 * $w), $f(x3, y3));
                        }
                        i += 4 * $w;
                    }
                    while i + $w <= $n {
                        // SAFETY: `i + W <= n`: the lanes are in bounds of every operand
                        unsafe { $store($d.add(i), $f($load($x.add(i)), $load($y.add(i)))) };
                        i += $w;
                    }
                }
                Form::Right(s) => {
                    let sv = $set1(s);
                    while i + $w <= $n {
                        // SAFETY: as above
                        unsafe { $store($d.add(i), $f($load($x.add(i)), sv)) };
                        i += $w;
                    }
                }
                Form::Left(s) => {
                    let sv = $set1(s);
                    while i + $w <= $n {
                        // SAFETY: as above
                        unsafe { $store($d.add(i), $f(sv, $load($x.add(i)))) };
                        i += $w;
                    }
                }
            }
            while i < $n {
                // SAFETY: `i < n`
                unsafe {
                    let p = *$x.add(i);
                    *$d.add(i) = match $form {
                        Form::Tiles => lane($op, p, *$y.add(i)),
                        Form::Right(s) => lane($op, p, s),
                        Form::Left(s) => lane($op, s, p),
                    };
                }
                i += 1;
            }
        }};
    }

    macro_rules! row {
        ($name:ident, $feat:literal, $w:expr, $load:ident, $store:ident, $set1:ident,
         $add:ident, $sub:ident, $mul:ident, $div:ident) => {
            /// One row of `n` elements: `d[i] = x[i] op y[i]` (or the scalar forms).
            ///
            /// # Safety
            /// The CPU has the target feature; `x`, `y` (tile form) and `d`
            /// are valid for `n` f32 each (unaligned); a source is `d` itself
            /// or does not overlap it.
            #[target_feature(enable = $feat)]
            pub(super) unsafe fn $name(
                op: Op,
                form: Form,
                x: *const f32,
                y: *const f32,
                d: *mut f32,
                n: usize,
            ) {
                match op {
                    Op::Add => run!($w, $load, $store, $set1, x, y, d, n, form, op, $add),
                    Op::Sub => run!($w, $load, $store, $set1, x, y, d, n, form, op, $sub),
                    Op::Mul => run!($w, $load, $store, $set1, x, y, d, n, form, op, $mul),
                    _ => run!($w, $load, $store, $set1, x, y, d, n, form, op, $div),
                }
            }
        };
    }

    row!(
        row16,
        "avx512f",
        16,
        _mm512_loadu_ps,
        _mm512_storeu_ps,
        _mm512_set1_ps,
        _mm512_add_ps,
        _mm512_sub_ps,
        _mm512_mul_ps,
        _mm512_div_ps
    );
    row!(
        row8,
        "avx",
        8,
        _mm256_loadu_ps,
        _mm256_storeu_ps,
        _mm256_set1_ps,
        _mm256_add_ps,
        _mm256_sub_ps,
        _mm256_mul_ps,
        _mm256_div_ps
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Special values and their NaN payloads, signed zeros, subnormals, and
    /// values whose products and quotients overflow and underflow.
    fn specials() -> Vec<f32> {
        let mut v = vec![
            0.0,
            -0.0,
            1.0,
            -1.5,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::from_bits(0x7fc0_1234),
            f32::from_bits(0xffc0_0042),
            f32::from_bits(0x7f80_0001),
            f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::from_bits(0x8000_0003),
            f32::MAX,
            -f32::MAX,
            3.0e-39,
            1.0e30,
            7.0,
        ];
        let mut s = 12345u32;
        for _ in 0..46 {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            v.push(f32::from_bits(s));
        }
        v
    }

    /// The wide rows give the compiled region's bits on every op, form, width,
    /// tail length, stride and in-place case.
    #[test]
    fn wide_rows_match_the_compiled_region_bit_for_bit() {
        let vals = specials();
        let widths: Vec<Width> = [Width::Avx512, Width::Avx2]
            .into_iter()
            .filter(|w| w.present())
            .collect();
        if widths.is_empty() {
            eprintln!("no AVX on this host: nothing to compare");
            return;
        }
        for op in [Op::Add, Op::Sub, Op::Mul, Op::Div] {
            for operands in [
                Operands::Binary,
                Operands::ScalarRight,
                Operands::ScalarLeft,
            ] {
                let r = Region {
                    op,
                    lane: Lane::F32,
                    operands,
                };
                let k = crate::compile(&r).expect("compiles");
                // up to past two steps of the four-vector loop of either width
                for cols in [1i64, 7, 15, 16, 17, 33, 64, 65, 95, 128, 143] {
                    for (rows, pad) in [(1i64, 0i64), (3, 5)] {
                        let stride = (cols + pad) * 4;
                        let span = (rows * stride) as usize;
                        // a at 0, b after it, dst after both
                        let mut mem0 = vec![0u8; 3 * span + 64];
                        for (i, ch) in mem0.chunks_exact_mut(4).enumerate() {
                            let v = vals[(i * 7 + cols as usize) % vals.len()];
                            ch.copy_from_slice(&v.to_le_bytes());
                        }
                        for (si, s) in [vals[7], vals[1], vals[13], vals[11]].iter().enumerate() {
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
                                let mut want = mem0.clone();
                                assert_eq!(
                                    k.inner.call(&mut want, &args.to_array()),
                                    0,
                                    "compiled region"
                                );
                                for w in &widths {
                                    let mut got = mem0.clone();
                                    assert_eq!(
                                        arith_wide_on(&mut got, &r, &args, Some(*w)),
                                        Some(Status::Ok)
                                    );
                                    // bit for bit, except a NaN for a NaN
                                    // (both operands NaN: see the module comment)
                                    let same = got.chunks(4).zip(want.chunks(4)).all(|(g, w)| {
                                        let f =
                                            |b: &[u8]| f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                                        g == w || (f(g).is_nan() && f(w).is_nan())
                                    });
                                    assert!(
                                        same,
                                        "{op:?} {operands:?} {w:?} cols {cols} rows {rows} \
                                         scalar {si} in place {in_place}"
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Arguments it does not take fall back to the compiled region (`None`),
    /// never touch memory out of bounds.
    #[test]
    fn hostile_or_overlapping_arguments_fall_back() {
        let r = Region {
            op: Op::Add,
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
        let want = if Width::detect().is_some() {
            Some(Status::Ok)
        } else {
            None
        };
        assert_eq!(arith_wide(&mut mem, &r, &good), want);
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
            EwArgs { dst: 250, ..good },
            EwArgs { rows: 0, ..good },
            // the destination overlaps a source it is not
            EwArgs { dst: 32, ..good },
        ] {
            assert_eq!(arith_wide(&mut mem, &r, &bad), None, "{bad:?}");
        }
        // ops and forms it does not take
        for r in [
            Region { op: Op::Max, ..r },
            Region {
                lane: Lane::I32,
                ..r
            },
            Region {
                op: Op::Sqrt,
                operands: Operands::Unary,
                ..r
            },
        ] {
            assert_eq!(arith_wide(&mut mem, &r, &good), None);
        }
    }
}
