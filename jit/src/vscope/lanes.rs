//! Lane-typed vector ops of a scope: lane-wise arithmetic and broadcasts on
//! 32- and 16-bit lanes, compares into masks, selects, and conversions
//! between f32 and the 16-bit floats. Each op works on the 16 chunks of 16
//! bytes of its registers in the state buffer.
//!
//! f16/bf16 lanes are widened to two f32x4 halves, computed in f32 and
//! rounded back with [`crate::half`]'s conversions (the ops admitted are the
//! correctly rounded or exact ones, so the result is the interpreter's). A
//! float scalar operand is taken as f32: the VM only compiles a scope whose
//! float scalars of such ops are exact in the lane type (f32 for compares).
//!
//! Integer max/min with a scalar follow the interpreter, which compares the
//! lane with the unwrapped scalar: a scalar beyond the lanes' range is
//! clamped into it, and where the scalar wins outright the result is the
//! scalar wrapped to the lane width.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::FunctionBuilder;

use super::{little, st_flags, CmpPred, Gen, VLane};
use crate::codegen::Ctx;
use crate::half::{self, L};
use crate::{Lane, Op, Operands};

/// The integer lane type of `lane` and its 128-bit vector type.
fn int_types(lane: VLane) -> (Type, Type) {
    if lane.bytes() == 2 {
        (types::I16, types::I16X8)
    } else {
        (types::I32, types::I32X4)
    }
}

/// The values integer lanes hold.
fn int_range(lane: VLane) -> (i64, i64) {
    match lane {
        VLane::I16 => (i64::from(i16::MIN), i64::from(i16::MAX)),
        VLane::U16 => (0, i64::from(u16::MAX)),
        VLane::U32 => (0, i64::from(u32::MAX)),
        _ => (i64::from(i32::MIN), i64::from(i32::MAX)),
    }
}

/// A scalar operand, splat.
#[derive(Clone, Copy)]
enum Scalar {
    None,
    Splat(Value),
    /// Integer max/min: the scalar clamped to the lanes' range; all-ones
    /// lanes where the scalar wins whatever the lane; the wrapped scalar.
    Clamped(Value, Value, Value),
}

/// The f32 of a float scalar slot (f64 bits).
fn f32_of(b: &mut FunctionBuilder, x: Value) -> Value {
    let f = b.ins().bitcast(types::F64, MemFlagsData::new(), x);
    b.ins().fdemote(types::F32, f)
}

/// The two f32x4 halves of eight 16-bit float lanes: the halves
/// interleaved with zeros (`punpck{l,h}wd`) put each one in the top bits of
/// an i32 lane, where [`half::to_f32_hi`] takes it.
fn widen(b: &mut FunctionBuilder, hl: Lane, v: Value, quiet: bool) -> (Value, Value) {
    let l = L { vector: true };
    let v = b.ins().bitcast(types::I8X16, little(), v);
    let z = b.ins().iconst(types::I8, 0);
    let z = b.ins().splat(types::I8X16, z);
    let half_of = |b: &mut FunctionBuilder, lanes: [u8; 4]| {
        // bytes 0..15 are the zeros, 16..31 the halves (the zero bytes taken
        // in step, so that Cranelift sees the unpack)
        let idx: Vec<u8> = lanes
            .iter()
            .flat_map(|&i| [2 * i, 2 * i + 1, 16 + 2 * i, 17 + 2 * i])
            .collect();
        let c = b.func.dfg.immediates.push(idx.as_slice().into());
        let x = b.ins().shuffle(z, v, c);
        let x = b.ins().bitcast(types::I32X4, little(), x);
        half::to_f32_hi(b, &l, hl, x, quiet)
    };
    (half_of(b, [0, 1, 2, 3]), half_of(b, [4, 5, 6, 7]))
}

fn int_op(b: &mut FunctionBuilder, op: Op, unsigned: bool, vt: Type, x: Value, y: Value) -> Value {
    match op {
        Op::Add => b.ins().iadd(x, y),
        Op::Sub => b.ins().isub(x, y),
        Op::Mul => b.ins().imul(x, y),
        Op::Max if unsigned => b.ins().umax(x, y),
        Op::Max => b.ins().smax(x, y),
        Op::Min if unsigned => b.ins().umin(x, y),
        Op::Min => b.ins().smin(x, y),
        Op::Abs => b.ins().iabs(x),
        Op::Neg => b.ins().ineg(x),
        Op::Relu => {
            let z = b.ins().iconst(vt.lane_type(), 0);
            let z = b.ins().splat(vt, z);
            b.ins().smax(x, z)
        }
        Op::And => b.ins().band(x, y),
        Op::Or => b.ins().bor(x, y),
        Op::Xor => b.ins().bxor(x, y),
        // `validate` admits no other op on integer lanes
        _ => x,
    }
}

impl Gen {
    /// The lanes of 16-byte chunk `j` whose mask bit `4 * lane + off` is
    /// set, as all-ones i32 lanes.
    fn lane_mask_at(&self, b: &mut FunctionBuilder, m: u32, j: i32, off: u32) -> Value {
        let h = b
            .ins()
            .uload16(types::I32, st_flags(), self.state, self.mslot(m) + 2 * j);
        let v = b.ins().splat(types::I32X4, h);
        let bits: Vec<u8> = (0..4u32)
            .flat_map(|i| (1u32 << (4 * i + off)).to_le_bytes())
            .collect();
        let c = Self::const_vec(b, types::I32X4, bits);
        let t = b.ins().band(v, c);
        b.ins().icmp(IntCC::Equal, t, c)
    }

    /// Zeroes the lanes of register `dst` that mask `m` disables (skipped
    /// when every mask bit is set).
    fn zero_inactive(&self, b: &mut FunctionBuilder, dst: u32, m: u32, es: u8) {
        if self.known_full(m) {
            return;
        }
        let (_, vt) = int_types(if es == 2 { VLane::I16 } else { VLane::I32 });
        let full = self.mask_full(b, m);
        let zero = b.create_block();
        let join = b.create_block();
        b.ins().brif(full, join, &[], zero, &[]);
        b.switch_to_block(zero);
        for j in 0..16 {
            let r = self.vget(b, dst, j, vt);
            let lm = self.lane_mask(b, m, j, es);
            let r = b.ins().band(r, lm);
            self.vset(b, dst, j, r);
        }
        b.ins().jump(join, &[]);
        b.switch_to_block(join);
    }

    /// The scalar operand of a lane-wise op.
    fn scalar_operand(&self, b: &mut FunctionBuilder, op: Op, lane: VLane, s: u32) -> Scalar {
        let x = self.var(b, s);
        if lane.is_float() {
            let f = f32_of(b, x);
            return Scalar::Splat(b.ins().splat(types::F32X4, f));
        }
        let (it, vt) = int_types(lane);
        if !matches!(op, Op::Max | Op::Min) {
            let v = b.ins().ireduce(it, x);
            return Scalar::Splat(b.ins().splat(vt, v));
        }
        let (lo, hi) = int_range(lane);
        let lo_v = b.ins().iconst(types::I64, lo);
        let hi_v = b.ins().iconst(types::I64, hi);
        let c = b.ins().smax(x, lo_v);
        let c = b.ins().smin(c, hi_v);
        let wins = if op == Op::Max {
            b.ins().icmp_imm_s(IntCC::SignedGreaterThan, x, hi)
        } else {
            b.ins().icmp_imm_s(IntCC::SignedLessThan, x, lo)
        };
        let wins = b.ins().bmask(it, wins);
        let c = b.ins().ireduce(it, c);
        let w = b.ins().ireduce(it, x);
        Scalar::Clamped(
            b.ins().splat(vt, c),
            b.ins().splat(vt, wins),
            b.ins().splat(vt, w),
        )
    }

    /// `SInst::Ew`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn ew(
        &self,
        b: &mut FunctionBuilder,
        op: Op,
        lane: VLane,
        dst: u32,
        a: u32,
        rb: Option<u32>,
        s: Option<u32>,
        mask: Option<u32>,
    ) {
        let cx = Ctx {
            lane: lane.half().unwrap_or(Lane::F32),
            op,
            operands: Operands::Binary,
        };
        let (_, ivt) = int_types(lane);
        let lt = if lane == VLane::F32 {
            types::F32X4
        } else {
            ivt
        };
        let sc = match s {
            Some(s) => self.scalar_operand(b, op, lane, s),
            None => Scalar::None,
        };
        // the op once, into the destination; then, unless every lane is
        // active, zero the inactive lanes there (the op's code is not
        // duplicated for the two cases)
        for j in 0..16 {
            let x = self.vget(b, a, j, lt);
            let y = rb.map(|r| self.vget(b, r, j, lt));
            let r = if let Some(hl) = lane.half() {
                // these ops quiet a signaling NaN operand themselves, as the
                // interpreter's reads would have (the same payload wins)
                let quiet = !matches!(op, Op::Add | Op::Sub | Op::Mul | Op::Div);
                let (xl, xh) = widen(b, hl, x, quiet);
                let (yl, yh) = match (y, sc) {
                    (Some(y), _) => widen(b, hl, y, quiet),
                    (None, Scalar::Splat(v)) => (v, v),
                    _ => (xl, xh),
                };
                let l = L { vector: true };
                let lo = cx.apply(b, types::F32X4, xl, yl);
                let hi = cx.apply(b, types::F32X4, xh, yh);
                let lo = half::from_f32(b, &l, hl, lo);
                let hi = half::from_f32(b, &l, hl, hi);
                b.ins().unarrow(lo, hi)
            } else {
                let y = match (y, sc) {
                    (Some(y), _) => y,
                    (None, Scalar::Splat(v) | Scalar::Clamped(v, ..)) => v,
                    (None, Scalar::None) => x,
                };
                if lane == VLane::F32 {
                    // NaN lanes of abs/neg/relu come back quiet (`Ctx::apply`)
                    let r = cx.apply(b, types::F32X4, x, y);
                    if matches!(op, Op::Add | Op::Mul) {
                        Ctx::first_nan(b, x, r)
                    } else {
                        r
                    }
                } else {
                    let r = int_op(b, op, lane.unsigned(), ivt, x, y);
                    match sc {
                        Scalar::Clamped(_, wins, w) => b.ins().bitselect(wins, w, r),
                        _ => r,
                    }
                }
            };
            self.vset(b, dst, j, r);
        }
        if let Some(m) = mask {
            self.zero_inactive(b, dst, m, lane.bytes());
        }
    }

    /// `SInst::Bcast`.
    pub(super) fn bcast(
        &self,
        b: &mut FunctionBuilder,
        dst: u32,
        s: u32,
        int_scalar: bool,
        mask: Option<u32>,
        lane: VLane,
    ) {
        let x = self.var(b, s);
        let v = match lane {
            VLane::F32 => {
                let f = if int_scalar {
                    b.ins().fcvt_from_sint(types::F64, x)
                } else {
                    b.ins().bitcast(types::F64, MemFlagsData::new(), x)
                };
                let f = b.ins().fdemote(types::F32, f);
                let f = b.ins().bitcast(types::I32, MemFlagsData::new(), f);
                b.ins().splat(types::I32X4, f)
            }
            VLane::F16 | VLane::BF16 => {
                // an exact float scalar (`validate` rejects integer ones)
                let f = f32_of(b, x);
                let hl = lane.half().unwrap_or(Lane::F16);
                let h = half::from_f32(b, &L { vector: false }, hl, f);
                let h = b.ins().ireduce(types::I16, h);
                b.ins().splat(types::I16X8, h)
            }
            _ => {
                let (it, vt) = int_types(lane);
                let i = b.ins().ireduce(it, x);
                b.ins().splat(vt, i)
            }
        };
        for j in 0..16 {
            let r = match mask {
                Some(m) => {
                    let lm = self.lane_mask(b, m, j, lane.bytes());
                    b.ins().band(v, lm)
                }
                None => v,
            };
            self.vset(b, dst, j, r);
        }
    }

    /// `SInst::VCmp`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn vcmp(
        &self,
        b: &mut FunctionBuilder,
        pred: CmpPred,
        lane: VLane,
        dst: u32,
        a: u32,
        rb: Option<u32>,
        s: Option<u32>,
        mask: Option<u32>,
    ) {
        let es = lane.bytes();
        let (it, ivt) = int_types(lane);
        let lt = if lane == VLane::F32 {
            types::F32X4
        } else {
            ivt
        };
        let fcc = match pred {
            CmpPred::Eq => FloatCC::Equal,
            CmpPred::Ne => FloatCC::NotEqual,
            CmpPred::Lt => FloatCC::LessThan,
            CmpPred::Le => FloatCC::LessThanOrEqual,
            CmpPred::Gt => FloatCC::GreaterThan,
            CmpPred::Ge => FloatCC::GreaterThanOrEqual,
        };
        let icc = match (pred, lane.unsigned()) {
            (CmpPred::Eq, _) => IntCC::Equal,
            (CmpPred::Ne, _) => IntCC::NotEqual,
            (CmpPred::Lt, false) => IntCC::SignedLessThan,
            (CmpPred::Le, false) => IntCC::SignedLessThanOrEqual,
            (CmpPred::Gt, false) => IntCC::SignedGreaterThan,
            (CmpPred::Ge, false) => IntCC::SignedGreaterThanOrEqual,
            (CmpPred::Lt, true) => IntCC::UnsignedLessThan,
            (CmpPred::Le, true) => IntCC::UnsignedLessThanOrEqual,
            (CmpPred::Gt, true) => IntCC::UnsignedGreaterThan,
            (CmpPred::Ge, true) => IntCC::UnsignedGreaterThanOrEqual,
        };
        if let Some(hl) = lane.half() {
            self.vcmp_half(b, pred, hl, dst, a, rb, s, mask);
            return;
        }
        let sv = s.map(|s| {
            let x = self.var(b, s);
            if lane.is_float() {
                let f = f32_of(b, x);
                b.ins().splat(types::F32X4, f)
            } else {
                // the interpreter wraps a compare's scalar to the lane width
                let i = b.ins().ireduce(it, x);
                b.ins().splat(ivt, i)
            }
        });
        for j in 0..16 {
            let x = self.vget(b, a, j, lt);
            let y = rb.map(|r| self.vget(b, r, j, lt));
            let y = y.or(sv).unwrap_or(x);
            let c = if lane.is_float() {
                b.ins().fcmp(fcc, x, y)
            } else {
                b.ins().icmp(icc, x, y)
            };
            self.store_cmp_bits(b, c, es, dst, mask, j);
        }
    }

    /// The mask bits of compare result `c` (all-ones lanes of width `es`)
    /// for 16-byte chunk `j`: one bit per byte, kept at each lane's first
    /// byte, under `mask`.
    fn store_cmp_bits(
        &self,
        b: &mut FunctionBuilder,
        c: Value,
        es: u8,
        dst: u32,
        mask: Option<u32>,
        j: i32,
    ) {
        let sf = st_flags();
        let c = b.ins().bitcast(types::I8X16, little(), c);
        let bits = b.ins().vhigh_bits(types::I32, c);
        let first = if es == 2 { 0x5555 } else { 0x1111 };
        let bits = b.ins().band_imm_u(bits, first);
        let bits = match mask {
            Some(m) => {
                let h = b
                    .ins()
                    .uload16(types::I32, sf, self.state, self.mslot(m) + 2 * j);
                b.ins().band(bits, h)
            }
            None => bits,
        };
        b.ins()
            .istore16(sf, bits, self.state, self.mslot(dst) + 2 * j);
    }

    /// `SInst::VCmp` on f16/bf16 lanes, without widening: a half's bits as
    /// sign and magnitude, `key = sign ? -mag : mag`, order the non-NaN
    /// values as integers (both zeros are 0), so the compare is an i16 one
    /// with the NaN lanes (magnitude above infinity's) taken out (`Ne`: put
    /// in). A scalar (an f32, which the half type need not hold exactly) is
    /// turned into the i16 threshold that gives the same answers.
    #[allow(clippy::too_many_arguments)]
    fn vcmp_half(
        &self,
        b: &mut FunctionBuilder,
        pred: CmpPred,
        hl: Lane,
        dst: u32,
        a: u32,
        rb: Option<u32>,
        s: Option<u32>,
        mask: Option<u32>,
    ) {
        let inf = if hl == Lane::F16 { 0x7c00 } else { 0x7f80 };
        let splat16 = |b: &mut FunctionBuilder, v: i64| {
            let c = b.ins().iconst(types::I16, v);
            b.ins().splat(types::I16X8, c)
        };
        let m7fff = splat16(b, 0x7fff);
        let vinf = splat16(b, inf);
        // (key, NaN lanes) of eight halves
        let keyed = |b: &mut FunctionBuilder, x: Value| {
            let mag = b.ins().band(x, m7fff);
            let neg = b.ins().sshr_imm_u(x, 15);
            let k = b.ins().bxor(mag, neg);
            let k = b.ins().isub(k, neg);
            let nan = b.ins().icmp(IntCC::SignedGreaterThan, mag, vinf);
            (k, nan)
        };
        // a scalar: the (integer predicate, threshold) standing for it
        let th = s.filter(|_| rb.is_none()).map(|s| {
            let x = self.var(b, s);
            let (cc, t) = self.half_threshold(b, pred, hl, x);
            let t = b.ins().ireduce(types::I16, t);
            (cc, b.ins().splat(types::I16X8, t))
        });
        for j in 0..16 {
            let x = self.vget(b, a, j, types::I16X8);
            let (kx, nx) = keyed(b, x);
            let (c, nan) = match th {
                Some((cc, t)) => (b.ins().icmp(cc, kx, t), nx),
                None => {
                    // a second vector (`validate` requires it or a scalar;
                    // without, the lanes meet themselves)
                    let (ky, ny) = match rb {
                        Some(r) => {
                            let y = self.vget(b, r, j, types::I16X8);
                            keyed(b, y)
                        }
                        None => (kx, nx),
                    };
                    let cc = match pred {
                        CmpPred::Eq | CmpPred::Ne => IntCC::Equal,
                        CmpPred::Lt => IntCC::SignedLessThan,
                        CmpPred::Le => IntCC::SignedLessThanOrEqual,
                        CmpPred::Gt => IntCC::SignedGreaterThan,
                        CmpPred::Ge => IntCC::SignedGreaterThanOrEqual,
                    };
                    let c = b.ins().icmp(cc, kx, ky);
                    (c, b.ins().bor(nx, ny))
                }
            };
            let c = if pred == CmpPred::Ne {
                // unordered or not equal
                let eq = b.ins().band_not(c, nan);
                b.ins().bnot(eq)
            } else {
                b.ins().band_not(c, nan)
            };
            self.store_cmp_bits(b, c, 2, dst, mask, j);
        }
    }

    /// For an f32 scalar `x` (f64 bits) and predicate `pred` on halves of
    /// type `hl`: an integer predicate and an i64 threshold such that
    /// `pred(h, x)` holds for a non-NaN half `h` exactly when the predicate
    /// holds between `h`'s key and the threshold. With `lo`/`hi` the keys of
    /// the halves next below/above `x` (equal when the half type holds `x`):
    /// `h > x` iff `key > lo`, `h >= x` iff `key > hi - 1`, `h < x` iff
    /// `key < hi`, `h <= x` iff `key < lo + 1`, `h == x` iff `key == lo`
    /// when exact (else never: the threshold 0x7fff is no non-NaN key's). A
    /// NaN scalar: never (`Ne`: always).
    fn half_threshold(
        &self,
        b: &mut FunctionBuilder,
        pred: CmpPred,
        hl: Lane,
        x: Value,
    ) -> (IntCC, Value) {
        let l = L { vector: false };
        let f = f32_of(b, x);
        let h = half::from_f32(b, &l, hl, f);
        let back = half::to_f32(b, &l, hl, h);
        // the key of h (i32: 16-bit pattern in the low bits)
        let mag = b.ins().band_imm_u(h, 0x7fff);
        let neg = b.ins().ishl_imm_u(h, 16);
        let neg = b.ins().sshr_imm_u(neg, 31);
        let k = b.ins().bxor(mag, neg);
        let k = b.ins().isub(k, neg);
        let k = b.ins().sextend(types::I64, k);
        let up = b.ins().fcmp(FloatCC::GreaterThan, back, f);
        let down = b.ins().fcmp(FloatCC::LessThan, back, f);
        let up = b.ins().uextend(types::I64, up);
        let down = b.ins().uextend(types::I64, down);
        let lo = b.ins().isub(k, up);
        let hi = b.ins().iadd(k, down);
        let nan = b.ins().fcmp(FloatCC::Unordered, f, f);
        let never_gt = b.ins().iconst(types::I64, 0x7fff);
        let never_lt = b.ins().iconst(types::I64, -0x8000);
        let (cc, t, none) = match pred {
            CmpPred::Gt => (IntCC::SignedGreaterThan, lo, never_gt),
            CmpPred::Ge => (
                IntCC::SignedGreaterThan,
                b.ins().iadd_imm_s(hi, -1),
                never_gt,
            ),
            CmpPred::Lt => (IntCC::SignedLessThan, hi, never_lt),
            CmpPred::Le => (IntCC::SignedLessThan, b.ins().iadd_imm_s(lo, 1), never_lt),
            CmpPred::Eq | CmpPred::Ne => {
                let exact = b.ins().icmp(IntCC::Equal, lo, hi);
                let t = b.ins().select(exact, lo, never_gt);
                (IntCC::Equal, t, never_gt)
            }
        };
        (cc, b.ins().select(nan, none, t))
    }

    /// `SInst::VSel`.
    pub(super) fn vsel(&self, b: &mut FunctionBuilder, es: u8, dst: u32, a: u32, rb: u32, m: u32) {
        let vt = match es {
            4 => types::I32X4,
            2 => types::I16X8,
            _ => types::I8X16,
        };
        for j in 0..16 {
            let x = self.vget(b, a, j, vt);
            let y = self.vget(b, rb, j, vt);
            let lm = self.lane_mask(b, m, j, es);
            let r = b.ins().bitselect(lm, x, y);
            self.vset(b, dst, j, r);
        }
    }

    /// `SInst::VCvt`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn vcvt(
        &self,
        b: &mut FunctionBuilder,
        from: VLane,
        to: VLane,
        dst: u32,
        a: u32,
        mask: Option<u32>,
        part: u8,
        sat: bool,
    ) {
        let fl = MemFlagsData::new();
        let l = L { vector: true };
        if part >= 2 {
            // contiguous widening: the 64 half lanes of one half of `a`
            // (part 2: bytes 0..128, part 3: 128..256) in order
            let hl = from.half().unwrap_or(Lane::F16);
            let h0 = 8 * i32::from(part - 2);
            for j in 0..16 {
                let x = self.vget(b, a, h0 + j / 2, types::I16X8);
                let h = if j % 2 == 0 {
                    b.ins().uwiden_low(x)
                } else {
                    b.ins().uwiden_high(x)
                };
                let f = half::to_f32(b, &l, hl, h);
                let f = b.ins().bitcast(types::I32X4, fl, f);
                self.vset(b, dst, j, f);
            }
            return;
        }
        for j in 0..16 {
            let x = self.vget(b, a, j, types::I32X4);
            let r = if let Some(hl) = to.half() {
                let f = b.ins().bitcast(types::F32X4, fl, x);
                let h = half::from_f32(b, &l, hl, f);
                let h = if sat {
                    let nan = b.ins().fcmp(FloatCC::Unordered, f, f);
                    let zero = l.i(b, 0);
                    let h = b.ins().bitselect(nan, zero, h);
                    let (inf, max) = if hl == Lane::F16 {
                        (0x7c00, 0x7bff)
                    } else {
                        (0x7f80, 0x7f7f)
                    };
                    let m7fff = l.i(b, 0x7fff);
                    let mag = b.ins().band(h, m7fff);
                    let inf = l.i(b, inf);
                    let is_inf = b.ins().icmp(IntCC::Equal, mag, inf);
                    let m8000 = l.i(b, 0x8000);
                    let sign = b.ins().band(h, m8000);
                    let max = l.i(b, max);
                    let big = b.ins().bor(sign, max);
                    b.ins().bitselect(is_inf, big, h)
                } else {
                    h
                };
                if part == 1 {
                    b.ins().ishl_imm_u(h, 16)
                } else {
                    h
                }
            } else {
                let hl = from.half().unwrap_or(Lane::F16);
                let h = if part == 1 {
                    b.ins().ushr_imm_u(x, 16)
                } else {
                    let m = l.i(b, 0xffff);
                    b.ins().band(x, m)
                };
                let f = half::to_f32(b, &l, hl, h);
                let f = b.ins().bitcast(types::I32X4, fl, f);
                if sat {
                    let m = l.i(b, 0x7fff_ffff);
                    let abs = b.ins().band(f, m);
                    let inf = l.i(b, 0x7f80_0000);
                    let nan = b.ins().icmp(IntCC::SignedGreaterThan, abs, inf);
                    let is_inf = b.ins().icmp(IntCC::Equal, abs, inf);
                    let zero = l.i(b, 0);
                    let f = b.ins().bitselect(nan, zero, f);
                    let m = l.i(b, 0x8000_0000);
                    let sign = b.ins().band(f, m);
                    let max = l.i(b, 0x7f7f_ffff);
                    let big = b.ins().bor(sign, max);
                    b.ins().bitselect(is_inf, big, f)
                } else {
                    f
                }
            };
            let r = match mask {
                Some(m) => {
                    // the mask bit of the source lane: 4i for f32 sources,
                    // 2(2i + part) for half ones
                    let off = if to.half().is_some() {
                        0
                    } else {
                        2 * u32::from(part)
                    };
                    let lm = self.lane_mask_at(b, m, j, off);
                    b.ins().band(r, lm)
                }
                None => r,
            };
            self.vset(b, dst, j, r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{compile, AccessSink, SInst, Scope, ScopeCompiled, ScopeStatus};
    use super::*;
    use ::half::{bf16, f16};

    struct Quiet;

    impl AccessSink for Quiet {
        fn load(&mut self, _: u32, _: u64, _: u64) {}
        fn store(&mut self, _: u32, _: u64, _: u64) {}
        fn barrier(&mut self) {}
    }

    /// Halves worth a look: zeros, the smallest and largest subnormals, the
    /// smallest normal, around one, the largest finite, infinities, and
    /// signaling and quiet NaNs with payloads, each signed.
    fn edges(lane: VLane) -> Vec<u16> {
        let pos: &[u16] = if lane == VLane::F16 {
            &[
                0, 1, 2, 0x3ff, 0x400, 0x401, 0x3bff, 0x3c00, 0x3c01, 0x3e00, 0x4000, 0x7bfe,
                0x7bff, 0x7c00, 0x7c01, 0x7d55, 0x7dff, 0x7e00, 0x7e01, 0x7fff, 0x0200, 0x1400,
            ]
        } else {
            &[
                0, 1, 2, 0x7f, 0x80, 0x81, 0x3f7f, 0x3f80, 0x3f81, 0x3fc0, 0x4000, 0x7f7e, 0x7f7f,
                0x7f80, 0x7f81, 0x7fa5, 0x7fbf, 0x7fc0, 0x7fc1, 0x7fff, 0x0040, 0x3300,
            ]
        };
        pos.iter().flat_map(|&h| [h, h | 0x8000]).collect()
    }

    fn to64(lane: VLane, h: u16) -> f64 {
        if lane == VLane::F16 {
            f16::from_bits(h).to_f64()
        } else {
            bf16::from_bits(h).to_f64()
        }
    }

    /// 128 halves from the edges and from a generator (every edge meets
    /// every other over the rounds).
    fn lanes_of(lane: VLane, round: usize, seed: &mut u64, first: bool) -> Vec<u16> {
        let e = edges(lane);
        (0..128)
            .map(|i| {
                *seed ^= *seed << 13;
                *seed ^= *seed >> 7;
                *seed ^= *seed << 17;
                if i < 2 * e.len() {
                    let k = i / 2;
                    if first {
                        e[k % e.len()]
                    } else {
                        e[(k + round) % e.len()]
                    }
                } else {
                    *seed as u16
                }
            })
            .collect()
    }

    /// A scope running `op` on registers 0 (x, at UB 0) and 1 (y, at UB
    /// 256), scalar slot 2 holding a scalar, storing register 2 at UB 512.
    fn scope(op: SInst) -> ScopeCompiled {
        use SInst::*;
        let load = |dst: u32| Load {
            dst,
            ptr: dst,
            off: None,
            es: 2,
            brc: false,
        };
        let scope = Scope {
            insts: vec![
                load(0),
                load(1),
                op,
                Store {
                    src: 2,
                    ptr: 3,
                    off: None,
                    mask: None,
                    es: 2,
                },
                Exit,
            ],
            scalars: 4,
            vregs: 3,
            masks: 1,
        };
        compile(&scope).expect("compiles")
    }

    /// Runs `c` on `x`, `y` and scalar `s`: returns UB and the first mask.
    fn run(c: &ScopeCompiled, x: &[u16], y: &[u16], s: f64) -> (Vec<u8>, [u64; 4]) {
        let mut ub = vec![0u8; 768];
        for (i, (a, b)) in x.iter().zip(y).enumerate() {
            ub[2 * i..2 * i + 2].copy_from_slice(&a.to_le_bytes());
            ub[256 + 2 * i..258 + 2 * i].copy_from_slice(&b.to_le_bytes());
        }
        let mut st = c.new_state();
        for (k, v) in [(0, 0), (1, 256), (2, s.to_bits() as i64), (3, 512)] {
            st.set_scalar(k, v);
        }
        assert_eq!(c.call(&mut st, &mut ub, 100, &mut Quiet), ScopeStatus::Ok);
        let m = c.layout.masks;
        let mask = [0, 1, 2, 3].map(|w| st.words[m + w]);
        (ub, mask)
    }

    /// The interpreter's float compare (`exec::vmi::cmp_lanes`): in f64,
    /// ordered but for `Ne`.
    fn cmp_ref(pred: CmpPred, a: f64, b: f64) -> bool {
        match pred {
            CmpPred::Eq => a == b,
            CmpPred::Ne => a != b,
            CmpPred::Lt => a < b,
            CmpPred::Le => a <= b,
            CmpPred::Gt => a > b,
            CmpPred::Ge => a >= b,
        }
    }

    const PREDS: [CmpPred; 6] = [
        CmpPred::Eq,
        CmpPred::Ne,
        CmpPred::Lt,
        CmpPred::Le,
        CmpPred::Gt,
        CmpPred::Ge,
    ];

    #[test]
    fn half_compares_of_two_vectors_match_the_interpreter_on_edge_values() {
        for lane in [VLane::F16, VLane::BF16] {
            for pred in PREDS {
                let c = scope(SInst::VCmp {
                    pred,
                    lane,
                    dst: 0,
                    a: 0,
                    b: Some(1),
                    s: None,
                    mask: None,
                });
                let mut seed = 0x9e37_79b9_7f4a_7c15u64;
                for round in 0..edges(lane).len() {
                    let x = lanes_of(lane, round, &mut seed, true);
                    let y = lanes_of(lane, round, &mut seed, false);
                    let (_, m) = run(&c, &x, &y, 0.0);
                    for i in 0..128 {
                        let bit = 2 * i;
                        let got = m[bit / 64] >> (bit % 64) & 1 == 1;
                        let want = cmp_ref(pred, to64(lane, x[i]), to64(lane, y[i]));
                        assert_eq!(
                            got, want,
                            "{lane:?} {pred:?} {:#06x} vs {:#06x}",
                            x[i], y[i]
                        );
                        // only each lane's first bit
                        assert_eq!(m[bit / 64] >> (bit % 64 + 1) & 1, 0);
                    }
                }
            }
        }
    }

    #[test]
    fn half_compares_with_a_scalar_match_the_interpreter_also_between_halves() {
        // f32 scalars: exact halves, values between two halves, beyond the
        // largest finite, f32 subnormals, infinities and NaN
        let scalars = [
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            1.0001,
            -1.0001,
            0.1,
            65504.0,
            65519.0,
            65520.0,
            1e6,
            -1e6,
            1e-40,
            -1e-40,
            5.960_464_5e-8, // 2^-24
            8.940_697e-8,   // 1.5 * 2^-24
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            3.4e38,
            1.5,
        ];
        for lane in [VLane::F16, VLane::BF16] {
            for pred in PREDS {
                let c = scope(SInst::VCmp {
                    pred,
                    lane,
                    dst: 0,
                    a: 0,
                    b: None,
                    s: Some(2),
                    mask: None,
                });
                let mut seed = 0x2545_f491_4f6c_dd1du64;
                for (round, &s) in scalars.iter().enumerate() {
                    let x = lanes_of(lane, round, &mut seed, true);
                    let (_, m) = run(&c, &x, &x, f64::from(s));
                    for (i, &h) in x.iter().enumerate() {
                        let bit = 2 * i;
                        let got = m[bit / 64] >> (bit % 64) & 1 == 1;
                        let want = cmp_ref(pred, to64(lane, h), f64::from(s));
                        assert_eq!(got, want, "{lane:?} {pred:?} {h:#06x} vs {s:e}");
                    }
                }
            }
        }
    }

    /// The interpreter's f16 op: f64 from `half` (a NaN quieted), the op in
    /// f64, back by `half`.
    fn ew_ref(op: Op, a: u16, b: u16) -> u16 {
        let (x, y) = (f16::from_bits(a).to_f64(), f16::from_bits(b).to_f64());
        let v = match op {
            Op::Add => x + y,
            Op::Sub => x - y,
            Op::Mul => x * y,
            _ => x / y,
        };
        f16::from_f64(v).to_bits()
    }

    #[test]
    fn f16_arithmetic_matches_the_interpreter_bit_for_bit_on_edge_values() {
        let lane = VLane::F16;
        let is_nan = |h: u16| h & 0x7fff > 0x7c00;
        // ties: 1 + 2^-11 (halfway, rounds to even 1), 1 + 3*2^-11 (rounds
        // up), the largest finite plus half an ulp (to infinity), a
        // subnormal result halfway between two subnormals
        let pairs: [(u16, u16); 6] = [
            (0x3c00, 0x1000),
            (0x3c01, 0x1000),
            (0x7bff, 0x5000),
            (0x0001, 0x8000),
            (0x0003, 0x3800), // 3 * 2^-24 * 0.5: Mul tie -> 2^-23
            (0x7bff, 0x7bff),
        ];
        let mut seed = 0x1234_5678_9abc_def1u64;
        for op in [Op::Add, Op::Sub, Op::Mul, Op::Div] {
            let c = scope(SInst::Ew {
                op,
                lane,
                dst: 2,
                a: 0,
                b: Some(1),
                s: None,
                mask: None,
            });
            for round in 0..edges(lane).len() {
                let mut x = lanes_of(lane, round, &mut seed, true);
                let mut y = lanes_of(lane, round, &mut seed, false);
                for (i, &(a, b)) in pairs.iter().enumerate() {
                    x[120 + i] = a;
                    y[120 + i] = b;
                }
                let (ub, _) = run(&c, &x, &y, 0.0);
                for i in 0..128 {
                    let got = u16::from_le_bytes([ub[512 + 2 * i], ub[513 + 2 * i]]);
                    let want = ew_ref(op, x[i], y[i]);
                    // with two NaN operands which one wins is the host's
                    // choice (the interpreter's too); with one it is exact
                    let both = is_nan(x[i]) && is_nan(y[i]);
                    assert!(
                        got == want || (both && is_nan(got)),
                        "{op:?}({:#06x}, {:#06x}) = {got:#06x}, interpreter {want:#06x}",
                        x[i],
                        y[i]
                    );
                }
            }
        }
    }
}
