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

use super::{st_flags, CmpPred, Gen, VLane};
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

/// The two f32x4 halves of eight 16-bit float lanes.
fn widen(b: &mut FunctionBuilder, hl: Lane, v: Value) -> (Value, Value) {
    let l = L { vector: true };
    let lo = b.ins().uwiden_low(v);
    let hi = b.ins().uwiden_high(v);
    (half::to_f32(b, &l, hl, lo), half::to_f32(b, &l, hl, hi))
}

/// Spreads bit k of `x` to bit k * es (es 2 or 4; 8 or 4 bits in).
fn spread(b: &mut FunctionBuilder, x: Value, es: u8) -> Value {
    let steps: &[(i64, i64)] = if es == 4 {
        &[(6, 0x0303), (3, 0x1111)]
    } else {
        &[(4, 0x0f0f), (2, 0x3333), (1, 0x5555)]
    };
    let mut x = x;
    for &(sh, m) in steps {
        let t = b.ins().ishl_imm_u(x, sh);
        let t = b.ins().bor(x, t);
        x = b.ins().band_imm_u(t, m);
    }
    x
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
        Self::nonzero(b, t)
    }

    /// Zeroes the lanes of register `dst` that mask `m` disables (skipped
    /// when every mask bit is set).
    fn zero_inactive(&self, b: &mut FunctionBuilder, dst: u32, m: u32, es: u8) {
        let sf = st_flags();
        let (_, vt) = int_types(if es == 2 { VLane::I16 } else { VLane::I32 });
        let full = self.mask_full(b, m);
        let zero = b.create_block();
        let join = b.create_block();
        b.ins().brif(full, join, &[], zero, &[]);
        b.switch_to_block(zero);
        for j in 0..16 {
            let at = self.vslot(dst) + 16 * j;
            let r = b.ins().load(vt, sf, self.state, at);
            let lm = self.lane_mask(b, m, j, es);
            let r = b.ins().band(r, lm);
            b.ins().store(sf, r, self.state, at);
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
        let sf = st_flags();
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
            let x = b.ins().load(lt, sf, self.state, self.vslot(a) + 16 * j);
            let y = rb.map(|r| b.ins().load(lt, sf, self.state, self.vslot(r) + 16 * j));
            let r = if let Some(hl) = lane.half() {
                let (xl, xh) = widen(b, hl, x);
                let (yl, yh) = match (y, sc) {
                    (Some(y), _) => widen(b, hl, y),
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
                    cx.apply(b, types::F32X4, x, y)
                } else {
                    let r = int_op(b, op, lane.unsigned(), ivt, x, y);
                    match sc {
                        Scalar::Clamped(_, wins, w) => b.ins().bitselect(wins, w, r),
                        _ => r,
                    }
                }
            };
            b.ins().store(sf, r, self.state, self.vslot(dst) + 16 * j);
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
            b.ins()
                .store(st_flags(), r, self.state, self.vslot(dst) + 16 * j);
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
        let sf = st_flags();
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
            let x = b.ins().load(lt, sf, self.state, self.vslot(a) + 16 * j);
            let y = rb.map(|r| b.ins().load(lt, sf, self.state, self.vslot(r) + 16 * j));
            let c = if let Some(hl) = lane.half() {
                let (xl, xh) = widen(b, hl, x);
                let (yl, yh) = match (y, sv) {
                    (Some(y), _) => widen(b, hl, y),
                    (None, Some(v)) => (v, v),
                    (None, None) => (xl, xh),
                };
                let lo = b.ins().fcmp(fcc, xl, yl);
                let hi = b.ins().fcmp(fcc, xh, yh);
                b.ins().snarrow(lo, hi)
            } else {
                let y = y.or(sv).unwrap_or(x);
                if lane.is_float() {
                    b.ins().fcmp(fcc, x, y)
                } else {
                    b.ins().icmp(icc, x, y)
                }
            };
            let bits = b.ins().vhigh_bits(types::I32, c);
            let bits = spread(b, bits, es);
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
    }

    /// `SInst::VSel`.
    pub(super) fn vsel(&self, b: &mut FunctionBuilder, es: u8, dst: u32, a: u32, rb: u32, m: u32) {
        let sf = st_flags();
        let vt = match es {
            4 => types::I32X4,
            2 => types::I16X8,
            _ => types::I8X16,
        };
        for j in 0..16 {
            let x = b.ins().load(vt, sf, self.state, self.vslot(a) + 16 * j);
            let y = b.ins().load(vt, sf, self.state, self.vslot(rb) + 16 * j);
            let lm = self.lane_mask(b, m, j, es);
            let r = b.ins().bitselect(lm, x, y);
            b.ins().store(sf, r, self.state, self.vslot(dst) + 16 * j);
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
        let sf = st_flags();
        let fl = MemFlagsData::new();
        let l = L { vector: true };
        for j in 0..16 {
            let x = b
                .ins()
                .load(types::I32X4, sf, self.state, self.vslot(a) + 16 * j);
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
            b.ins().store(sf, r, self.state, self.vslot(dst) + 16 * j);
        }
    }
}
