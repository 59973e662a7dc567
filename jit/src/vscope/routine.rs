//! Register ops a compiled scope runs in Rust ([`SInst::Routine`](super::SInst::Routine)):
//! the compiled code hands the callback the state buffer and the word
//! offsets of its registers, and this code writes the result register.
//! They are the reductions across the lanes of one register (`vcadd`,
//! `vcmax`/`vcmin`, the 32-byte group forms `vcgadd`/`vcgmax`/`vcgmin`, the
//! prefix sum `vcpadd`), `vdup` of the lowest or highest lane, and exp, ln
//! and `vexpdif` (exp(x - y)) computed as the interpreter computes them (in
//! f64 with the standard library's functions, then rounded once), for
//! scopes that must be bit-exact.
//!
//! The results are the interpreter's, bit for bit (`exec::vec_arith` and
//! `exec::vector` in the VM are the reference): a sum is the hardware's adder tree over the
//! active lanes taken in order (pairs of neighbours, a lone last one passed
//! up), rounded to the lane type at every level; a float extreme is the
//! first NaN if a lane holds one, else the first lane with the largest
//! (smallest) value; with no active lane a sum is zero and an extreme the
//! identity (-inf/+inf, or the type's smallest/largest integer) at index 0.
//! Floats are computed in f64 and rounded to the lane type as the
//! interpreter rounds them; integers wrap.

use half::{bf16, f16};

use super::VLane;

#[cfg(target_arch = "x86_64")]
mod avx2;

/// A register op run in Rust.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Routine {
    /// `vcadd`: the sum in lane 0.
    Add,
    /// `vcmax`: the largest value in lane 0, its index in lane 1.
    Max,
    /// `vcmin`: the smallest value in lane 0, its index in lane 1.
    Min,
    /// `vcgadd`: the sum of each 32-byte group in lanes 0..8.
    GroupAdd,
    /// `vcgmax`: the largest value of each group in lanes 0..8.
    GroupMax,
    /// `vcgmin`: the smallest value of each group in lanes 0..8.
    GroupMin,
    /// `vcpadd`: the inclusive prefix sum over the active lanes, each in its
    /// own lane (inactive lanes zero).
    PrefixAdd,
    /// `vexp` on float lanes, exactly as the interpreter (inactive lanes zero).
    Exp,
    /// `vln` on float lanes, exactly as the interpreter (inactive lanes zero).
    Ln,
    /// `vexpdif`: exp(a - b) of same-width float lanes (inactive lanes zero).
    ExpDif,
    /// `vexpdif` "EVEN" of 16-bit float lanes into f32 lanes: f32 lane `i`
    /// is exp(a - b) of half lane `2 i`, under that half lane's mask bit.
    ExpDifEven,
    /// `vexpdif` "ODD": half lane `2 i + 1`.
    ExpDifOdd,
    /// `vdup` of the lowest lane into every active lane (others zero).
    DupLowest,
    /// `vdup` of the highest lane into every active lane (others zero).
    DupHighest,
}

const ROUTINES: [Routine; 14] = [
    Routine::Add,
    Routine::Max,
    Routine::Min,
    Routine::GroupAdd,
    Routine::GroupMax,
    Routine::GroupMin,
    Routine::PrefixAdd,
    Routine::Exp,
    Routine::Ln,
    Routine::ExpDif,
    Routine::ExpDifEven,
    Routine::ExpDifOdd,
    Routine::DupLowest,
    Routine::DupHighest,
];

const LANES: [VLane; 7] = [
    VLane::F32,
    VLane::I32,
    VLane::U32,
    VLane::F16,
    VLane::BF16,
    VLane::I16,
    VLane::U16,
];

impl Routine {
    /// A code for the callback (the op in the low 4 bits, the lane in the
    /// next 3).
    pub(super) fn code(self, lane: VLane) -> u32 {
        let op = ROUTINES.iter().position(|r| *r == self).unwrap_or(0) as u32;
        let l = LANES.iter().position(|l| *l == lane).unwrap_or(0) as u32;
        op | l << 4
    }

    /// The op and lane of a [`Routine::code`] (its low 7 bits).
    pub(super) fn decode(code: u32) -> Option<(Routine, VLane)> {
        let op = *ROUTINES.get((code & 0xf) as usize)?;
        let lane = *LANES.get((code >> 4 & 0x7) as usize)?;
        Some((op, lane))
    }

    /// Whether the routine takes a second register.
    pub fn binary(self) -> bool {
        matches!(
            self,
            Routine::ExpDif | Routine::ExpDifEven | Routine::ExpDifOdd
        )
    }

    /// Whether the routine is defined on (source) lane type `lane`: exp,
    /// ln and `vexpdif` on float lanes, the widening `vexpdif` on 16-bit
    /// float lanes.
    pub fn takes(self, lane: VLane) -> bool {
        match self {
            Routine::Exp | Routine::Ln | Routine::ExpDif => lane.is_float(),
            Routine::ExpDifEven | Routine::ExpDifOdd => matches!(lane, VLane::F16 | VLane::BF16),
            _ => true,
        }
    }
}

/// A lane's value: floats exactly as f64, integers sign- or zero-extended.
#[derive(Clone, Copy)]
enum Num {
    F(f64),
    I(i64),
}

/// f64 to bf16, rounding to nearest even. (`half`'s `bf16::from_f64` looks
/// only at the top 32 bits of the f64, so a value just above a halfway point
/// whose extra bits lie below them rounds as a tie.) Rounding to f32 first
/// with round-to-odd keeps every bit that decides the second rounding, so
/// the f32 -> bf16 step rounds correctly.
pub fn bf16_rne(v: f64) -> bf16 {
    let t = v as f32;
    if v.is_nan() || f64::from(t) == v {
        return bf16::from_f32(t);
    }
    let mut bits = t.to_bits();
    if f64::from(t).abs() > v.abs() {
        bits -= 1;
    }
    bf16::from_f32(f32::from_bits(bits | 1))
}

struct Lanes {
    lane: VLane,
    es: usize,
}

impl Lanes {
    fn of(lane: VLane) -> Lanes {
        Lanes {
            lane,
            es: usize::from(lane.bytes()),
        }
    }

    fn n(&self) -> usize {
        256 / self.es
    }

    // (fixed-size copies: a copy of `es` bytes was a memmove call per lane)
    fn raw(&self, v: &[u8; 256], i: usize) -> u64 {
        if self.es == 4 {
            let at = 4 * i;
            u64::from(u32::from_le_bytes([v[at], v[at + 1], v[at + 2], v[at + 3]]))
        } else {
            u64::from(u16::from_le_bytes([v[2 * i], v[2 * i + 1]]))
        }
    }

    fn set_raw(&self, v: &mut [u8; 256], i: usize, x: u64) {
        if self.es == 4 {
            v[4 * i..4 * i + 4].copy_from_slice(&(x as u32).to_le_bytes());
        } else {
            v[2 * i..2 * i + 2].copy_from_slice(&(x as u16).to_le_bytes());
        }
    }

    fn get(&self, v: &[u8; 256], i: usize) -> Num {
        let r = self.raw(v, i);
        match self.lane {
            VLane::F32 => Num::F(f64::from(f32::from_bits(r as u32))),
            VLane::F16 => Num::F(f16::from_bits(r as u16).to_f64()),
            VLane::BF16 => Num::F(bf16::from_bits(r as u16).to_f64()),
            VLane::I32 => Num::I(i64::from(r as u32 as i32)),
            VLane::U32 => Num::I(i64::from(r as u32)),
            VLane::I16 => Num::I(i64::from(r as u16 as i16)),
            VLane::U16 => Num::I(i64::from(r as u16)),
        }
    }

    fn put(&self, v: &mut [u8; 256], i: usize, x: Num) {
        let bits = match (self.lane, x) {
            (VLane::F32, Num::F(f)) => u64::from((f as f32).to_bits()),
            (VLane::F16, Num::F(f)) => u64::from(f16::from_f64(f).to_bits()),
            (VLane::BF16, Num::F(f)) => u64::from(bf16_rne(f).to_bits()),
            (_, Num::I(i)) => i as u64,
            (_, Num::F(f)) => f as i64 as u64,
        };
        self.set_raw(v, i, bits);
    }

    fn float(&self) -> bool {
        self.lane.is_float()
    }

    /// A float rounded to the lane type (integers unchanged).
    fn round(&self, x: Num) -> Num {
        match (self.lane, x) {
            (VLane::F32, Num::F(f)) => Num::F(f64::from(f as f32)),
            (VLane::F16, Num::F(f)) => Num::F(f16::from_f64(f).to_f64()),
            (VLane::BF16, Num::F(f)) => Num::F(bf16_rne(f).to_f64()),
            _ => x,
        }
    }

    fn add(&self, x: Num, y: Num) -> Num {
        match (x, y) {
            // the NaN rule of `add32`
            (Num::F(a), Num::F(_)) if a.is_nan() => self.round(x),
            (Num::F(_), Num::F(b)) if b.is_nan() => self.round(y),
            (Num::F(a), Num::F(b)) => self.round(Num::F(a + b)),
            (Num::I(a), Num::I(b)) => Num::I(a.wrapping_add(b)),
            _ => x,
        }
    }

    fn zero(&self) -> Num {
        if self.float() {
            Num::F(0.0)
        } else {
            Num::I(0)
        }
    }

    /// What an extreme of no lane yields.
    fn identity(&self, max: bool) -> Num {
        if self.float() {
            return Num::F(if max {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            });
        }
        let bits = 8 * self.es as u32;
        Num::I(match (self.lane.unsigned(), max) {
            (false, true) => -(1i64 << (bits - 1)),
            (false, false) => (1i64 << (bits - 1)) - 1,
            (true, true) => 0,
            (true, false) => (1i64 << bits) - 1,
        })
    }

    /// The adder tree over `xs` (in place).
    fn tree_sum(&self, xs: &mut [Num]) -> Num {
        let mut n = xs.len();
        if n == 0 {
            return self.zero();
        }
        while n > 1 {
            let half = n.div_ceil(2);
            for k in 0..half {
                xs[k] = if 2 * k + 1 < n {
                    self.add(xs[2 * k], xs[2 * k + 1])
                } else {
                    xs[2 * k]
                };
            }
            n = half;
        }
        xs[0]
    }

    /// The first extreme of `xs` (lane, value): the first NaN, else the
    /// first largest (`max`) or smallest.
    fn extreme(&self, xs: &[(usize, Num)], max: bool) -> Option<(usize, Num)> {
        let mut best: Option<(usize, Num)> = None;
        for &(i, x) in xs {
            let better = match best {
                None => true,
                Some((_, b)) => match (x, b) {
                    (Num::F(x), Num::F(b)) => {
                        (x.is_nan() && !b.is_nan()) || if max { x > b } else { x < b }
                    }
                    (Num::I(x), Num::I(b)) => {
                        if max {
                            x > b
                        } else {
                            x < b
                        }
                    }
                    _ => false,
                },
            };
            if better {
                best = Some((i, x));
            }
        }
        best
    }
}

/// Whether bit `b` of a mask is set (no mask: every bit).
fn bit(m: Option<&[u8; 32]>, b: usize) -> bool {
    m.is_none_or(|m| b < 256 && m[b / 8] & (1 << (b % 8)) != 0)
}

/// The 64 f32 lanes of `a`, NaNs quieted (as the interpreter's widening to
/// f64 quiets them).
fn f32_lanes(a: &[u8; 256]) -> [f32; 64] {
    let mut x = [0f32; 64];
    for (v, ch) in x.iter_mut().zip(a.chunks_exact(4)) {
        let b = u32::from_le_bytes([ch[0], ch[1], ch[2], ch[3]]);
        let nan = (b & 0x7fff_ffff > 0x7f80_0000) as u32;
        *v = f32::from_bits(b | nan << 22);
    }
    x
}

/// Bit `i` set when f32 lane `i` is active under `m` (bit `4 i`).
fn f32_active(m: Option<&[u8; 32]>) -> u64 {
    let Some(m) = m else {
        return u64::MAX;
    };
    let mut act = 0u64;
    for (j, b) in m.iter().enumerate() {
        act |= u64::from(b & 1) << (2 * j) | u64::from(b >> 4 & 1) << (2 * j + 1);
    }
    act
}

/// `ys` into the f32 lanes of `out` that `act` enables (bit `i`, as
/// [`f32_active`] gives).
fn put_active_f32(out: &mut [u8; 256], ys: &[f32; 64], act: u64) {
    for (i, (o, y)) in out.chunks_exact_mut(4).zip(ys).enumerate() {
        let keep = 0u32.wrapping_sub((act >> i) as u32 & 1);
        o.copy_from_slice(&(y.to_bits() & keep).to_le_bytes());
    }
}

/// `a + b` with the NaN rule of the x86 adds the interpreter's sum runs
/// (the first operand's NaN, else the second's), stated so that the
/// compiler's freedom to swap the operands of a float add cannot change
/// which payload a sum of two NaNs keeps.
#[inline(always)]
fn add32(a: f32, b: f32) -> f32 {
    if a.is_nan() {
        a
    } else if b.is_nan() {
        b
    } else {
        a + b
    }
}

/// The adder tree over all 64 lanes (fixed sizes, so the levels vectorize).
fn tree64(x: &[f32; 64]) -> f32 {
    let mut l32 = [0f32; 32];
    for (k, v) in l32.iter_mut().enumerate() {
        *v = add32(x[2 * k], x[2 * k + 1]);
    }
    let mut l16 = [0f32; 16];
    for (k, v) in l16.iter_mut().enumerate() {
        *v = add32(l32[2 * k], l32[2 * k + 1]);
    }
    let mut l8 = [0f32; 8];
    for (k, v) in l8.iter_mut().enumerate() {
        *v = add32(l16[2 * k], l16[2 * k + 1]);
    }
    let l4 = [
        add32(l8[0], l8[1]),
        add32(l8[2], l8[3]),
        add32(l8[4], l8[5]),
        add32(l8[6], l8[7]),
    ];
    add32(add32(l4[0], l4[1]), add32(l4[2], l4[3]))
}

/// `vcadd`, `vcmax` and `vcmin` on f32 lanes without the generic lane
/// values (the common case; the same results as the generic code: an f32
/// sum of two f32s is the f64 sum rounded once, and an extreme is the first
/// NaN, else the first lane equal to the largest or smallest value).
fn reduce_f32(op: Routine, a: &[u8; 256], m: Option<&[u8; 32]>) -> [u8; 256] {
    let mut out = [0u8; 256];
    let x = f32_lanes(a);
    let act = f32_active(m);
    match op {
        Routine::Add => {
            let s = if act == u64::MAX {
                tree64(&x)
            } else {
                // the active lanes compacted, then the tree
                let mut xs = [0f32; 64];
                let mut n = 0;
                let mut bits = act;
                while bits != 0 {
                    xs[n] = x[bits.trailing_zeros() as usize];
                    n += 1;
                    bits &= bits - 1;
                }
                while n > 1 {
                    for k in 0..n / 2 {
                        xs[k] = add32(xs[2 * k], xs[2 * k + 1]);
                    }
                    if n % 2 == 1 {
                        xs[n / 2] = xs[n - 1];
                    }
                    n = n.div_ceil(2);
                }
                if n == 0 {
                    0.0
                } else {
                    xs[0]
                }
            };
            out[..4].copy_from_slice(&s.to_le_bytes());
        }
        _ => {
            let max = op == Routine::Max;
            let mut nan = 0u64;
            for (i, v) in x.iter().enumerate() {
                nan |= u64::from(v.is_nan()) << i;
            }
            let (i, v) = if act == 0 {
                (
                    0,
                    if max {
                        f32::NEG_INFINITY
                    } else {
                        f32::INFINITY
                    },
                )
            } else if nan & act != 0 {
                let i = (nan & act).trailing_zeros();
                (i, x[i as usize])
            } else {
                // eight running extremes (independent, so they vectorize)
                let init = if max {
                    f32::NEG_INFINITY
                } else {
                    f32::INFINITY
                };
                let mut acc = [init; 8];
                for (c, ch) in x.chunks_exact(8).enumerate() {
                    let on = (act >> (8 * c)) as u8;
                    for (j, (a, v)) in acc.iter_mut().zip(ch).enumerate() {
                        let v = if on >> j & 1 != 0 { *v } else { init };
                        let better = if max { v > *a } else { v < *a };
                        *a = if better { v } else { *a };
                    }
                }
                let best = acc.iter().fold(init, |b, v| {
                    let better = if max { *v > b } else { *v < b };
                    if better {
                        *v
                    } else {
                        b
                    }
                });
                // the first active lane equal to it (-0 and +0 are equal,
                // as the interpreter's strict compare keeps the first)
                let i = (0..64)
                    .find(|&i| act >> i & 1 != 0 && x[i] == best)
                    .unwrap_or(0);
                (i as u32, x[i])
            };
            out[..4].copy_from_slice(&v.to_le_bytes());
            out[4..8].copy_from_slice(&i.to_le_bytes());
        }
    }
    out
}

/// Routine `op` on the `lane` lanes of `a` (and `b`) that mask `m` enables.
#[cfg(test)]
pub fn run(
    op: Routine,
    lane: VLane,
    a: &[u8; 256],
    b: Option<&[u8; 256]>,
    m: Option<&[u8; 32]>,
) -> [u8; 256] {
    let mut out = [0; 256];
    run_into(op, lane, a, b, m, &mut out);
    out
}

/// Routine `op` on the `lane` lanes of `a` (and `b`) that mask `m` enables,
/// into `out` (which must not be one of the operands).
pub fn run_into(
    op: Routine,
    lane: VLane,
    a: &[u8; 256],
    b: Option<&[u8; 256]>,
    m: Option<&[u8; 32]>,
    out: &mut [u8; 256],
) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above), the only
        // requirement of the AVX2 forms.
        if unsafe { avx2::fast(op, lane, a, b, m, out) } {
            return;
        }
    }
    *out = portable(op, lane, a, b, m);
}

/// [`run_into`] without the AVX2 forms.
fn portable(
    op: Routine,
    lane: VLane,
    a: &[u8; 256],
    b: Option<&[u8; 256]>,
    m: Option<&[u8; 32]>,
) -> [u8; 256] {
    match op {
        Routine::Add | Routine::Max | Routine::Min if lane == VLane::F32 => reduce_f32(op, a, m),
        Routine::Exp | Routine::Ln | Routine::ExpDif => lanewise(op, lane, a, b, m),
        Routine::ExpDifEven | Routine::ExpDifOdd => exp_dif_wide(op, lane, a, b, m),
        Routine::DupLowest | Routine::DupHighest => dup(op, lane, a, m),
        _ => reduce_lanes(op, lane, a, m),
    }
}

/// exp, ln or exp(a - b) of each active float lane: the lane widened to f64
/// (NaNs quieted), the standard library's function, rounded once to the lane
/// type; inactive lanes zero.
fn lanewise(
    op: Routine,
    lane: VLane,
    a: &[u8; 256],
    b: Option<&[u8; 256]>,
    m: Option<&[u8; 32]>,
) -> [u8; 256] {
    let l = Lanes::of(lane);
    let mut out = [0u8; 256];
    if !l.float() {
        return out;
    }
    let zero = [0u8; 256];
    let b = b.unwrap_or(&zero);
    if lane == VLane::F32 && matches!(op, Routine::Exp | Routine::ExpDif) {
        // (the lanes widened as `Lanes::get` does: NaNs quieted)
        let (p, q) = (f32_lanes(a), f32_lanes(b));
        let mut xs = [0f64; 64];
        for ((x, p), q) in xs.iter_mut().zip(p).zip(q) {
            *x = if op == Routine::Exp {
                f64::from(p)
            } else {
                f64::from(p) - f64::from(q)
            };
        }
        let ys = exp_f32s(&xs);
        put_active_f32(&mut out, &ys, f32_active(m));
        return out;
    }
    for i in 0..l.n() {
        if !bit(m, i * l.es) {
            continue;
        }
        let (Num::F(x), Num::F(y)) = (l.get(a, i), l.get(b, i)) else {
            continue;
        };
        let r = match op {
            Routine::Exp => x.exp(),
            Routine::Ln => x.ln(),
            _ => (x - y).exp(),
        };
        l.put(&mut out, i, Num::F(r));
    }
    out
}

/// exp(x) for |x| <= 110 within 2^-45 relative: x = k ln2 + r with
/// |r| <= ln2 / 2 (ln2 split so that k * LN2_HI is exact), the Taylor
/// polynomial of degree 11 in r (its remainder is at most
/// |r|^12 / 12! * e^|r| < 9.1e-15 against exp(r) >= 0.70, under 2^-46;
/// Horner's rounding adds a few 2^-53), scaled by 2^k. [`exp_f32_near`]
/// needs 2^-40 with room: the degree-13 polynomial this replaced was
/// accurate to 2^-50 and cost two more steps per lane. `FUSED`: each
/// Horner step one fused multiply-add (more accurate still).
#[inline(always)]
fn exp_near<const FUSED: bool>(x: f64) -> f64 {
    const LN2_HI: f64 = 0.693_147_180_369_123_8; // 0x3fe62e42fee00000
    const LN2_LO: f64 = 1.908_214_929_270_587_7e-10; // 0x3dea39ef35793c76
                                                     // round to nearest (ties to even) by the 1.5 * 2^52 shift: no call
    const SHIFT: f64 = 6_755_399_441_055_744.0;
    let t = x * std::f64::consts::LOG2_E + SHIFT;
    let k = t - SHIFT;
    let r = (x - k * LN2_HI) - k * LN2_LO;
    let mut p: f64 = 1.0 / 39_916_800.0; // 1/11!
    for c in [
        1.0 / 3_628_800.0,
        1.0 / 362_880.0,
        1.0 / 40_320.0,
        1.0 / 5_040.0,
        1.0 / 720.0,
        1.0 / 120.0,
        1.0 / 24.0,
        1.0 / 6.0,
        0.5,
        1.0,
        1.0,
    ] {
        p = if FUSED { p.mul_add(r, c) } else { p * r + c };
    }
    // 2^k as f64 bits (k within [-160, 160] here). The low bits of `t`'s
    // mantissa hold k (two's complement, t = 1.5 * 2^52 + k), so the
    // biased exponent is integer arithmetic (no f64 -> i64 conversion,
    // which has no vector form before AVX-512).
    p * f64::from_bits(t.to_bits().wrapping_add(1023) << 52)
}

/// What [`exp_f32s_into`] takes the exp of: 64 f64 values, or the f64
/// differences `p - q` of 64 pairs of f32 lanes (computed inside, so the
/// widest form converts and subtracts on its own vector width: values
/// stored narrower and reread wider cannot be forwarded).
#[derive(Clone, Copy)]
enum ExpArgs<'a> {
    X(&'a [f64; 64]),
    Dif(&'a [f32; 64], &'a [f32; 64]),
}

/// [`exp_f32`] of 64 values.
fn exp_f32s(xs: &[f64; 64]) -> [f32; 64] {
    let mut out = [0f32; 64];
    exp_f32s_into(ExpArgs::X(xs), &mut out);
    out
}

/// [`exp_f32`] of 64 values into `out`: the polynomial for all of them
/// first (no branch between, so the lanes overlap), then the check and the
/// rare f64 `exp`.
fn exp_f32s_into(args: ExpArgs<'_>, out: &mut [f32; 64]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F, AVX2 and FMA (checked just
            // above), the only requirements of `exp_f32s_512`.
            return unsafe { exp_f32s_512(args, out) };
        }
        // SAFETY: the CPU has AVX2 and FMA (checked just above), the only
        // requirements of `exp_f32s_fma`.
        return unsafe { exp_f32s_fma(args, out) };
    }
    exp_f32s_body::<false>(args, out)
}

/// [`exp_f32s_fma`] on eight f64 lanes at a time (AVX-512F): the same fused
/// steps in the same order on each lane, so the same values; only the
/// vector width differs.
///
/// # Safety
/// The CPU supports AVX-512F, AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn exp_f32s_512(args: ExpArgs<'_>, out: &mut [f32; 64]) {
    exp_f32s_body::<true>(args, out)
}

/// [`exp_f32s_into`] compiled for AVX2 and FMA: four f64 lanes at a time,
/// each Horner step one fused multiply-add. Its `exp_near` values differ
/// from the baseline build's in the last bits; the f32 results do not,
/// since both are checked against the same 2^-40 interval and are the f64
/// `exp` rounded either way.
///
/// # Safety
/// The CPU supports AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn exp_f32s_fma(args: ExpArgs<'_>, out: &mut [f32; 64]) {
    exp_f32s_body::<true>(args, out)
}

#[inline(always)]
fn exp_f32s_body<const FUSED: bool>(args: ExpArgs<'_>, out: &mut [f32; 64]) {
    let mut difs = [0f64; 64];
    let xs = match args {
        ExpArgs::X(xs) => xs,
        ExpArgs::Dif(p, q) => {
            for ((x, p), q) in difs.iter_mut().zip(p).zip(q) {
                *x = f64::from(*p) - f64::from(*q);
            }
            &difs
        }
    };
    let mut ys = [0f64; 64];
    for (y, x) in ys.iter_mut().zip(xs) {
        *y = exp_near::<FUSED>(x.clamp(-110.0, 110.0));
    }
    let mut slow = 0u64;
    for (i, ((o, y), x)) in out.iter_mut().zip(&ys).zip(xs).enumerate() {
        let (r, sure) = exp_f32_near(*x, *y);
        *o = r;
        slow |= u64::from(!sure) << i;
    }
    // (a loop of its own: with the f64 exp in the first one, the compiler
    // computed it for every lane and selected)
    while slow != 0 {
        let i = slow.trailing_zeros() as usize;
        out[i] = exp_f32_slow(xs[i]);
        slow &= slow - 1;
    }
}

/// The f32 exp of `x` from `y = exp_near(x)`, and whether it is certain
/// (see [`exp_f32`]).
#[inline(always)]
fn exp_f32_near(x: f64, y: f64) -> (f32, bool) {
    const EPS: f64 = 1.0 / (1u64 << 40) as f64;
    let (lo, hi) = ((y * (1.0 - EPS)) as f32, (y * (1.0 + EPS)) as f32);
    (lo, x.abs() <= 110.0 && lo.to_bits() == hi.to_bits())
}

/// The interpreter's f32 exp through the f64 `exp`.
#[cold]
#[inline(never)]
fn exp_f32_slow(x: f64) -> f32 {
    x.exp() as f32
}

/// `(x.exp() as f32)`, the interpreter's f32 exp, bit for bit, mostly
/// without the f64 `exp` call: a value within 2^-40 of [`exp_near`]'s
/// result rounds to the same f32 as both ends of that interval, so it is
/// the answer whenever they agree (rounding to nearest is monotonic, and the
/// standard library's f64 exp is within an ulp, 2^-52, of exp(x)); when
/// they do not (about one input in 2^16), or outside [-110, 110] and for
/// NaN, the f64 exp decides.
#[cfg(test)]
fn exp_f32(x: f64) -> f32 {
    match exp_f32_near(x, exp_near::<false>(x.clamp(-110.0, 110.0))) {
        (r, true) => r,
        _ => exp_f32_slow(x),
    }
}

/// The widening `vexpdif`: f32 lane `i` is exp(a - b) of half lane `2 i`
/// (`2 i + 1` for the odd part) where the mask enables that half lane.
fn exp_dif_wide(
    op: Routine,
    lane: VLane,
    a: &[u8; 256],
    b: Option<&[u8; 256]>,
    m: Option<&[u8; 32]>,
) -> [u8; 256] {
    let l = Lanes { lane, es: 2 };
    let mut out = [0u8; 256];
    let (Some(b), true) = (b, matches!(lane, VLane::F16 | VLane::BF16)) else {
        return out;
    };
    let part = usize::from(op == Routine::ExpDifOdd);
    let mut xs = [0f64; 64];
    let mut act = 0u64;
    for (i, x) in xs.iter_mut().enumerate() {
        let j = 2 * i + part;
        act |= u64::from(bit(m, 2 * j)) << i;
        if let (Num::F(x0), Num::F(y0)) = (l.get(a, j), l.get(b, j)) {
            *x = x0 - y0;
        }
    }
    put_active_f32(&mut out, &exp_f32s(&xs), act);
    out
}

/// Lane 0 (or the last lane) of `a` in every active lane, bit for bit.
fn dup(op: Routine, lane: VLane, a: &[u8; 256], m: Option<&[u8; 32]>) -> [u8; 256] {
    let l = Lanes::of(lane);
    let k = if op == Routine::DupHighest {
        l.n() - 1
    } else {
        0
    };
    let x = l.raw(a, k);
    let mut out = [0u8; 256];
    if l.es == 4 {
        put_active_f32(&mut out, &[f32::from_bits(x as u32); 64], f32_active(m));
        return out;
    }
    for i in 0..l.n() {
        if bit(m, i * l.es) {
            l.set_raw(&mut out, i, x);
        }
    }
    out
}

/// [`reduce`] on the generic lane values.
fn reduce_lanes(op: Routine, lane: VLane, a: &[u8; 256], m: Option<&[u8; 32]>) -> [u8; 256] {
    let l = Lanes::of(lane);
    let mut out = [0u8; 256];
    // the active lanes, in order (at most 128)
    let mut active = [(0usize, Num::I(0)); 128];
    let mut na = 0;
    for i in 0..l.n() {
        if bit(m, i * l.es) {
            active[na] = (i, l.get(a, i));
            na += 1;
        }
    }
    let active = &active[..na];
    let mut vals = [Num::I(0); 128];
    match op {
        Routine::Add => {
            for (v, (_, x)) in vals.iter_mut().zip(active) {
                *v = *x;
            }
            let s = l.tree_sum(&mut vals[..na]);
            l.put(&mut out, 0, s);
        }
        Routine::Max | Routine::Min => {
            let max = op == Routine::Max;
            let (i, x) = l.extreme(active, max).unwrap_or((0, l.identity(max)));
            l.put(&mut out, 0, x);
            l.set_raw(&mut out, 1, i as u64);
        }
        Routine::GroupAdd | Routine::GroupMax | Routine::GroupMin => {
            let per = 32 / l.es;
            for g in 0..8 {
                let mut grp = [(0usize, Num::I(0)); 16];
                let mut n = 0;
                for &(i, x) in active.iter().filter(|(i, _)| i / per == g) {
                    grp[n] = (i, x);
                    n += 1;
                }
                let r = match op {
                    Routine::GroupAdd => {
                        for (v, (_, x)) in vals.iter_mut().zip(&grp[..n]) {
                            *v = *x;
                        }
                        l.tree_sum(&mut vals[..n])
                    }
                    _ => {
                        let max = op == Routine::GroupMax;
                        l.extreme(&grp[..n], max)
                            .map_or(l.identity(max), |(_, x)| x)
                    }
                };
                l.put(&mut out, g, r);
            }
        }
        Routine::PrefixAdd => {
            let mut acc = l.zero();
            for &(i, x) in active {
                acc = l.add(acc, x);
                l.put(&mut out, i, acc);
            }
        }
        // not reductions ([`run`] sends them elsewhere)
        Routine::Exp
        | Routine::Ln
        | Routine::ExpDif
        | Routine::ExpDifEven
        | Routine::ExpDifOdd
        | Routine::DupLowest
        | Routine::DupHighest => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(xs: &[f32]) -> [u8; 256] {
        let mut v = [0u8; 256];
        for (i, x) in xs.iter().enumerate() {
            v[4 * i..4 * i + 4].copy_from_slice(&x.to_le_bytes());
        }
        v
    }

    /// One xorshift64 step.
    fn xorshift(s: &mut u64) -> u64 {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        *s
    }

    /// f32 bit patterns the random registers mix in: NaNs first (three),
    /// then infinities, signed zeros, subnormals, the largest finite.
    const SPECIAL_F32: [u32; 10] = [
        0x7fc0_0000,
        0x7f80_0001, // signalling
        0xffc0_0000,
        0x7f80_0000,
        0xff80_0000,
        0x8000_0000,
        0,
        1,
        0x8000_0001,
        0x7f7f_ffff,
    ];

    fn lane_f32(v: &[u8; 256], i: usize) -> f32 {
        f32::from_le_bytes(v[4 * i..4 * i + 4].try_into().unwrap())
    }

    fn lane_u32(v: &[u8; 256], i: usize) -> u32 {
        u32::from_le_bytes(v[4 * i..4 * i + 4].try_into().unwrap())
    }

    #[test]
    fn the_sum_is_an_adder_tree_over_the_active_lanes() {
        // 1e8 + 1 + (-1e8) + 1: in order 0 or 1; as a tree (1e8 + 1) +
        // (-1e8 + 1) = 1e8 - 1e8 = 0 in f32
        let v = f32s(&[1e8, 1.0, -1e8, 1.0]);
        let mut m = [0u8; 32];
        m[0] = 0x01 | 0x10; // lanes 0 and 1
        m[1] = 0x01 | 0x10; // lanes 2 and 3
        let r = run(Routine::Add, VLane::F32, &v, None, Some(&m));
        assert_eq!(lane_f32(&r, 0), 0.0);
        assert_eq!(r[4..].iter().filter(|b| **b != 0).count(), 0);
        // lanes 0, 2, 3: (1e8 + -1e8) + 1 = 1, compacted before pairing
        m[0] = 0x01;
        let r = run(Routine::Add, VLane::F32, &v, None, Some(&m));
        assert_eq!(lane_f32(&r, 0), 1.0);
        // no lane: +0
        let r = run(Routine::Add, VLane::F32, &v, None, Some(&[0; 32]));
        assert_eq!(lane_u32(&r, 0), 0);
    }

    #[test]
    fn extremes_take_the_first_nan_or_the_first_tie() {
        let v = f32s(&[1.0, 3.0, -0.0, 3.0, f32::NAN, 0.0]);
        let r = run(Routine::Max, VLane::F32, &v, None, None);
        assert!(lane_f32(&r, 0).is_nan());
        assert_eq!(lane_u32(&r, 1), 4);
        let mut m = [0u8; 32];
        m[0] = 0x11; // lanes 0, 1
        m[1] = 0x11; // lanes 2, 3
        let r = run(Routine::Max, VLane::F32, &v, None, Some(&m));
        assert_eq!((lane_f32(&r, 0), lane_u32(&r, 1)), (3.0, 1));
        // -0 before +0: the first of the equal minima
        let r = run(
            Routine::Min,
            VLane::F32,
            &f32s(&[-0.0, 0.0]),
            None,
            Some(&[0x11; 32]),
        );
        assert_eq!((lane_u32(&r, 0), lane_u32(&r, 1)), ((-0.0f32).to_bits(), 0));
        // no lane: the identity at index 0
        let r = run(Routine::Max, VLane::I16, &[0x55; 256], None, Some(&[0; 32]));
        assert_eq!((r[0], r[1], r[2], r[3]), (0x00, 0x80, 0, 0));
        let r = run(Routine::Min, VLane::U16, &[0x55; 256], None, Some(&[0; 32]));
        assert_eq!((r[0], r[1]), (0xff, 0xff));
    }

    #[test]
    fn group_and_prefix_forms() {
        let xs: Vec<f32> = (0..64).map(|i| i as f32).collect();
        let v = f32s(&xs);
        let r = run(Routine::GroupAdd, VLane::F32, &v, None, None);
        for g in 0..8 {
            let want: f32 = (8 * g..8 * g + 8).map(|i| i as f32).sum();
            assert_eq!(lane_f32(&r, g), want);
        }
        let r = run(Routine::GroupMin, VLane::F32, &v, None, None);
        assert_eq!(lane_f32(&r, 3), 24.0);
        let r = run(Routine::PrefixAdd, VLane::F32, &v, None, None);
        assert_eq!(lane_f32(&r, 10), 55.0);
        // integers wrap
        let r = run(Routine::Add, VLane::U16, &[0xff; 256], None, None);
        assert_eq!((r[0], r[1]), (0x80, 0xff));
    }

    /// The f32 fast path gives the generic code's bits, NaNs, zeros,
    /// infinities and subnormals included, under random masks.
    #[test]
    fn the_f32_path_equals_the_generic_one() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = || xorshift(&mut s);
        let special = SPECIAL_F32;
        for case in 0..2000 {
            let mut v = [0u8; 256];
            for ch in v.chunks_exact_mut(4) {
                let r = rnd();
                let x = if r % 5 == 0 {
                    special[(r >> 8) as usize % special.len()]
                } else {
                    ((((r >> 16) % 20001) as f32 - 10000.0) / 7.0).to_bits()
                };
                ch.copy_from_slice(&x.to_le_bytes());
            }
            let mut mk = [0u8; 32];
            for b in mk.iter_mut() {
                *b = rnd() as u8;
            }
            if case % 5 == 1 {
                mk = [0xff; 32];
            } else if case % 5 == 2 {
                mk = [0; 32];
            }
            let m = match case % 3 {
                0 => None,
                _ => Some(&mk),
            };
            for op in [Routine::Add, Routine::Max, Routine::Min] {
                assert_eq!(
                    reduce_f32(op, &v, m),
                    reduce_lanes(op, VLane::F32, &v, m),
                    "{op:?}, case {case}"
                );
            }
        }
    }

    /// The AVX2 forms give the portable code's bits wherever they answer,
    /// and they answer for most registers without a NaN.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_avx2_forms_equal_the_portable_code() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let mut s = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = || xorshift(&mut s);
        let special = SPECIAL_F32;
        let ops = [
            Routine::Add,
            Routine::Max,
            Routine::Min,
            Routine::DupLowest,
            Routine::DupHighest,
            Routine::Exp,
            Routine::ExpDif,
        ];
        let mut answered = [0usize; 7];
        for case in 0..6000 {
            // kinds: 0 specials with NaNs, 1 no NaN (zeros of both signs,
            // infinities, subnormals), 2 few distinct values (ties), 3 wide
            let kind = case % 4;
            let mut v = [[0u8; 256]; 2];
            for r in v.iter_mut() {
                for ch in r.chunks_exact_mut(4) {
                    let r = rnd();
                    let x: u32 = match kind {
                        0 if r % 5 == 0 => special[(r >> 8) as usize % special.len()],
                        1 if r % 4 == 0 => special[3 + (r >> 8) as usize % (special.len() - 3)],
                        2 => (((r >> 16) % 5) as f32 * 0.5 - 1.0).to_bits(),
                        // finite values of any sign below 2^97 (no NaN, no inf)
                        3 => (r >> 16) as u32 & 0xdfff_ffff,
                        _ => ((((r >> 16) % 20001) as f32 - 10000.0) / 7.0).to_bits(),
                    };
                    ch.copy_from_slice(&x.to_le_bytes());
                }
            }
            let mut mk = [0u8; 32];
            for b in mk.iter_mut() {
                *b = rnd() as u8;
            }
            match case % 7 {
                1 | 4 => mk = [0xff; 32],
                2 => mk = [0; 32],
                3 => {
                    // a tail mask (plt)
                    let n = (rnd() % 65) as usize;
                    mk = [0; 32];
                    for i in 0..n {
                        mk[i / 2] |= 1 << (4 * (i % 2));
                    }
                }
                _ => {}
            }
            let m = if case % 5 == 0 { None } else { Some(&mk) };
            for (k, op) in ops.into_iter().enumerate() {
                // SAFETY: AVX2 is present (checked above)
                // a stale value in the buffer must not leak into the result
                let mut got = [0xa5u8; 256];
                let fast = unsafe { avx2::fast(op, VLane::F32, &v[0], Some(&v[1]), m, &mut got) };
                if fast {
                    answered[k] += 1;
                    let want = portable(op, VLane::F32, &v[0], Some(&v[1]), m);
                    assert_eq!(got, want, "{op:?}, case {case}");
                }
            }
        }
        // every form answered for at least a quarter of the registers
        assert!(answered.iter().all(|&n| n > 1500), "{answered:?}");
    }

    #[test]
    fn codes_round_trip() {
        for op in ROUTINES {
            for lane in LANES {
                assert_eq!(Routine::decode(op.code(lane)), Some((op, lane)));
            }
        }
        assert_eq!(Routine::decode(14), None);
        assert_eq!(Routine::decode(7 << 4), None);
    }

    /// The fast exact f32 exp equals `(x.exp() as f32)` on random f32 and
    /// f64 inputs (`vexpdif` passes a difference in f64) across its range
    /// and every f32 near the ends of it (every f32 in [-104, 89]: the
    /// ignored `exp_sweep`).
    #[test]
    fn exp_f32_is_the_f64_exp_rounded() {
        let check64 = |x: f64| {
            let want = (x.exp() as f32).to_bits();
            assert_eq!(exp_f32(x).to_bits(), want, "exp({x:e})");
        };
        let check = |x: f32| check64(f64::from(x));
        let mut s = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            xorshift(&mut s);
            let u = (s >> 11) as f64 / (1u64 << 53) as f64 * 220.0 - 110.0;
            check(u as f32);
            check64(u);
            check(f32::from_bits(s as u32));
        }
        // the batch form, NaNs and the range's ends among ordinary values
        for k in 0..2000 {
            let mut xs = [0f64; 64];
            for x in xs.iter_mut() {
                xorshift(&mut s);
                *x = match s % 50 {
                    0 => f64::NAN,
                    1 => 110.5,
                    2 => -1e300,
                    _ => (s >> 11) as f64 / (1u64 << 53) as f64 * 240.0 - 120.0,
                };
            }
            let ys = exp_f32s(&xs);
            for (x, y) in xs.iter().zip(ys) {
                assert_eq!(
                    y.to_bits(),
                    (x.exp() as f32).to_bits(),
                    "batch {k}: exp({x:e})"
                );
            }
        }
        for base in [-110.0f32, -104.0, -87.3, 0.0, 88.7, 110.0] {
            let b = base.to_bits();
            for d in 0..2000u32 {
                check(f32::from_bits(b.wrapping_add(d)));
                check(f32::from_bits(b.wrapping_sub(d)));
            }
        }
        for x in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0, 1e-45] {
            check(x);
        }
    }

    #[test]
    #[ignore = "about a minute in release: cargo test --release -p pto-jit -- --ignored exp_sweep"]
    fn exp_sweep() {
        // in batches of 64 through the dispatched form (AVX-512 or AVX2), the
        // AVX2 one and the baseline build's, and one by one through the
        // scalar form
        let mut n = 0u64;
        let mut xs = [0f64; 64];
        let mut k = 0;
        let mut check = |xs: &[f64]| {
            let mut b = [0f64; 64];
            b[..xs.len()].copy_from_slice(xs);
            let fast = exp_f32s(&b);
            let mut base = [0f32; 64];
            exp_f32s_body::<false>(ExpArgs::X(&b), &mut base);
            // the AVX2 + FMA form too where the dispatch picks AVX-512
            #[cfg(target_arch = "x86_64")]
            let fma = (std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma"))
            .then(|| {
                let mut f = [0f32; 64];
                // SAFETY: the CPU has AVX2 and FMA (checked just above)
                unsafe { exp_f32s_fma(ExpArgs::X(&b), &mut f) };
                f
            });
            #[cfg(not(target_arch = "x86_64"))]
            let fma: Option<[f32; 64]> = None;
            for (i, x) in xs.iter().enumerate() {
                let want = (x.exp() as f32).to_bits();
                assert_eq!(fast[i].to_bits(), want, "exp({x:e})");
                if let Some(f) = &fma {
                    assert_eq!(f[i].to_bits(), want, "AVX2 exp({x:e})");
                }
                assert_eq!(base[i].to_bits(), want, "baseline exp({x:e})");
                assert_eq!(exp_f32(*x).to_bits(), want, "scalar exp({x:e})");
            }
            n += xs.len() as u64;
        };
        for bits in 0..=u32::MAX {
            let x = f32::from_bits(bits);
            if !(-104.0..=89.0).contains(&x) {
                continue;
            }
            xs[k] = f64::from(x);
            k += 1;
            if k == 64 {
                check(&xs);
                k = 0;
            }
        }
        check(&xs[..k]);
        eprintln!("{n} inputs checked");
    }

    #[test]
    fn exact_functions_and_dup() {
        let v = f32s(&[0.0, 1.0, -1.0, f32::NAN, 88.0, -104.0]);
        let r = run(Routine::Exp, VLane::F32, &v, None, None);
        for i in 0..6 {
            let want = (f64::from(lane_f32(&v, i))).exp() as f32;
            assert_eq!(lane_u32(&r, i), want.to_bits(), "lane {i}");
        }
        let w = f32s(&[1.0, 1.0]);
        let mut m = [0u8; 32];
        m[0] = 0x01; // lane 0 only
        let r = run(Routine::ExpDif, VLane::F32, &v, Some(&w), Some(&m));
        assert_eq!(lane_f32(&r, 0), (-1f64).exp() as f32);
        assert_eq!(lane_u32(&r, 1), 0);
        let r = run(Routine::Ln, VLane::F32, &v, None, None);
        assert_eq!(lane_f32(&r, 1), 0.0);
        assert!(lane_f32(&r, 2).is_nan());
        let r = run(
            Routine::DupHighest,
            VLane::F32,
            &f32s(&[7.0; 64]),
            None,
            Some(&m),
        );
        assert_eq!((lane_f32(&r, 0), lane_u32(&r, 1)), (7.0, 0));
        let r = run(Routine::DupLowest, VLane::I16, &[3; 256], None, None);
        assert_eq!(r, [3; 256]);
    }
}
