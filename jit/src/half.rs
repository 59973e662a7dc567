//! f16 and bf16 lanes for the elementwise regions: eight 16-bit elements per
//! 128-bit vector, widened to two f32x4 halves, computed in f32, rounded back
//! to nearest-even, narrowed and stored; a scalar tail does the same one
//! element at a time. The conversions are integer bit manipulation (Cranelift
//! has no vector f16 conversions on x86):
//!
//! - bf16 -> f32: the bits shifted up 16; f16 -> f32: sign, exponent and
//!   mantissa moved to f32's places by two shifts, then a multiplication by
//!   2^112 rebiases (exact; subnormals become normal); infinities and NaNs
//!   get the rest of the all-ones exponent added. A NaN is quieted, keeping
//!   its payload, as the interpreter's (`half`) reads do: a multiplication
//!   by one does it.
//! - f32 -> bf16/f16: round to nearest, ties to even; for f16 the FPU rounds
//!   (an f32 addition of a power of two whose ulp is the f16 ulp of the
//!   value's binade, 2^-24 for the subnormals) and overflow gives infinity;
//!   a NaN keeps its top payload bits with the quiet bit set (what `half`
//!   and F16C produce).
//!
//! Computing in f32 and rounding once more to the half type gives the
//! correctly rounded half result for +, -, *, / and sqrt (f32 has at least
//! 2p + 2 bits for p = 11 (f16) and p = 8 (bf16), so the second rounding
//! cannot land on a wrong midpoint; for bf16 results in f32's subnormal range
//! the exact results of two bf16 operands are either on f32's grid or at
//! least 2^-142 away from a bf16 midpoint), which is what the interpreter
//! computes in f64. max/min/abs/neg/relu are exact.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::FunctionBuilder;

use crate::codegen::{heap_flags, Ctx, ARG_COUNT};
use crate::{Lane, Operands, Region};

/// Constants and selects on scalar (`i32`/`f32`) or 4-lane values.
pub(crate) struct L {
    pub(crate) vector: bool,
}

impl L {
    pub(crate) fn it(&self) -> Type {
        if self.vector {
            types::I32X4
        } else {
            types::I32
        }
    }
    pub(crate) fn ft(&self) -> Type {
        if self.vector {
            types::F32X4
        } else {
            types::F32
        }
    }
    pub(crate) fn i(&self, b: &mut FunctionBuilder, v: u32) -> Value {
        let c = b.ins().iconst(types::I32, i64::from(v as i32));
        if self.vector {
            b.ins().splat(types::I32X4, c)
        } else {
            c
        }
    }
    fn f(&self, b: &mut FunctionBuilder, v: f32) -> Value {
        let c = b.ins().f32const(v);
        if self.vector {
            b.ins().splat(types::F32X4, c)
        } else {
            c
        }
    }
    /// `c ? x : y` on integer lanes (`c` from an integer compare).
    pub(crate) fn sel(&self, b: &mut FunctionBuilder, c: Value, x: Value, y: Value) -> Value {
        if self.vector {
            b.ins().bitselect(c, x, y)
        } else {
            b.ins().select(c, x, y)
        }
    }
}

/// Half bits (zero-extended in i32 lanes) to f32 lanes.
pub(crate) fn to_f32(b: &mut FunctionBuilder, l: &L, lane: Lane, h: Value) -> Value {
    let x = b.ins().ishl_imm_u(h, 16);
    to_f32_hi(b, l, lane, x, true)
}

/// Half bits in the top 16 bits of i32 lanes (the low 16 zero) to f32 lanes.
/// Unless `quiet`, an f16 signaling NaN stays signaling: for an operand of
/// an f32 addition, subtraction, multiplication or division, which quiets it
/// (keeping the payload) as the interpreter's read would have.
pub(crate) fn to_f32_hi(
    b: &mut FunctionBuilder,
    l: &L,
    lane: Lane,
    x: Value,
    quiet: bool,
) -> Value {
    let flags = MemFlagsData::new();
    let inf = l.i(b, 0x7f80_0000);
    if lane == Lane::BF16 {
        let abs = l.i(b, 0x7fff_ffff);
        let a = b.ins().band(x, abs);
        let nan = b.ins().icmp(IntCC::SignedGreaterThan, a, inf);
        let q = l.i(b, 0x0040_0000);
        let xq = b.ins().bor(x, q);
        let x = l.sel(b, nan, xq, x);
        return b.ins().bitcast(l.ft(), flags, x);
    }
    // sign stays at bit 31, exponent and mantissa go to f32's places less
    // the bias difference (bits 28..30 get copies of the sign, cleared)
    let y = b.ins().sshr_imm_u(x, 3);
    let keep = l.i(b, 0x8fff_ffff);
    let y = b.ins().band(y, keep);
    // normals, subnormals (made normal) and zeros, signed: times 2^112
    let yf = b.ins().bitcast(l.ft(), flags, y);
    let scale = l.f(b, f32::from_bits(0x7780_0000)); // 2^112
    let v = b.ins().fmul(yf, scale);
    let v = b.ins().bitcast(l.it(), flags, v);
    // infinities and NaNs: the exponent made all-ones
    let m_exp = l.i(b, 0x0f80_0000);
    let e = b.ins().band(y, m_exp);
    let special = b.ins().icmp(IntCC::Equal, e, m_exp);
    let sp = b.ins().bor(y, inf);
    let v = l.sel(b, special, sp, v);
    let v = b.ins().bitcast(l.ft(), flags, v);
    if !quiet {
        return v;
    }
    // a multiplication by one quiets a signaling NaN, keeping its payload,
    // and leaves every other value as it is
    let one = l.f(b, 1.0);
    b.ins().fmul(v, one)
}

/// f32 lanes to half bits (in i32 lanes), rounding to nearest even.
pub(crate) fn from_f32(b: &mut FunctionBuilder, l: &L, lane: Lane, f: Value) -> Value {
    let flags = MemFlagsData::new();
    let x = b.ins().bitcast(l.it(), flags, f);
    let abs = l.i(b, 0x7fff_ffff);
    let a = b.ins().band(x, abs);
    let inf = l.i(b, 0x7f80_0000);
    if lane == Lane::BF16 {
        let nan = b.ins().icmp(IntCC::SignedGreaterThan, a, inf);
        let hi = b.ins().ushr_imm_u(x, 16);
        let q = l.i(b, 0x40);
        let qn = b.ins().bor(hi, q);
        let one = l.i(b, 1);
        let odd = b.ins().band(hi, one);
        let bias = l.i(b, 0x7fff);
        let r = b.ins().iadd(x, bias);
        let r = b.ins().iadd(r, odd);
        let r = b.ins().ushr_imm_u(r, 16);
        return l.sel(b, nan, qn, r);
    }
    // Rounding by the FPU: |f| + M, with M = 2^(E + 13) for |f|'s exponent
    // E clamped to [-14, 16], has the ulp of an f16 of exponent E (2^-24
    // for the subnormals), so the one f32 rounding of the sum is the f16
    // rounding (nearest, ties to even: M's bits end in zeros). The sum's
    // bits less M's count |f|'s f16 ulps, 2^10 + mantissa for a normal; the
    // exponent field adds (E + 14) << 10 (a mantissa carry walks into it).
    // From 2^16 up the count only grows: clamped to infinity. With
    // d = (E + 14) << 23 in [0, 30 << 23]: M's bits are d + (126 << 23).
    let e = b.ins().band(x, inf);
    let lo = l.i(b, 113 << 23);
    let d = b.ins().smax(e, lo);
    let d = b.ins().isub(d, lo);
    let top = l.i(b, 30 << 23);
    let d = b.ins().smin(d, top);
    let m126 = l.i(b, 126 << 23);
    let m = b.ins().iadd(d, m126);
    let af = b.ins().bitcast(l.ft(), flags, a);
    let mf = b.ins().bitcast(l.ft(), flags, m);
    let s = b.ins().fadd(af, mf);
    let s = b.ins().bitcast(l.it(), flags, s);
    let r = b.ins().isub(s, m);
    let ef = b.ins().ushr_imm_u(d, 13);
    let r = b.ins().iadd(r, ef);
    let hinf = l.i(b, 0x7c00);
    let r = b.ins().smin(r, hinf);
    // a NaN (infinity so far): the sum is |f| quieted (the FPU returns its
    // NaN operand so), whose top bits less the exponent difference are the
    // quiet f16 NaN with the top payload bits, above infinity's 0x7c00; for
    // any other |f| they are no more than r (negative below 2^97, at most
    // 0x7bff below infinity, 0x7c00 at it)
    let sn = b.ins().ushr_imm_u(s, 13);
    let rebias = l.i(b, (255 - 31) << 10);
    let sn = b.ins().isub(sn, rebias);
    let r = b.ins().smax(r, sn);
    let sign = b.ins().bxor(x, a);
    let sign = b.ins().ushr_imm_u(sign, 16);
    b.ins().bor(r, sign)
}

/// The elementwise region over 16-bit float lanes (see the module docs).
pub(crate) fn emit(b: &mut FunctionBuilder, r: &Region, ptr: Type) {
    let cx = Ctx {
        lane: r.lane,
        op: r.op,
        operands: r.operands,
    };
    let lane = r.lane;
    let binary = r.operands == Operands::Binary;
    let has_scalar = matches!(r.operands, Operands::ScalarLeft | Operands::ScalarRight);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let p = b.block_params(entry).to_vec();
    let (base, len, args) = (p[0], p[1], p[2]);
    let af = MemFlagsData::trusted();
    let a: Vec<Value> = (0..ARG_COUNT as i32)
        .map(|i| b.ins().load(types::I64, af, args, i * 8))
        .collect();
    let (dst, dst_s, src, src_s, src2, src2_s, rows, cols, sbits) =
        (a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]);
    let ret_ok = b.create_block();
    let ret_bad = b.create_block();

    let row_bytes = b.ins().imul_imm_s(cols, 2);
    let mut used = vec![dst, dst_s, src, src_s, rows, cols];
    let mut ext = vec![(dst, dst_s, row_bytes), (src, src_s, row_bytes)];
    if binary {
        used.extend([src2, src2_s]);
        ext.push((src2, src2_s, row_bytes));
    }
    if ptr != types::I64 {
        // no 64-bit host pointers: a value that fails the proof
        used.push(b.ins().iconst(types::I64, -1));
    }
    crate::codegen::prove_rows(b, &used, rows, cols, len, &ext, ret_ok, ret_bad);
    let row_head = b.create_block();
    b.append_block_param(row_head, types::I64);
    let zero = b.ins().iconst(types::I64, 0);
    b.ins().jump(row_head, &[zero.into()]);

    let vec_head = b.create_block();
    let vec_body = b.create_block();
    let tail_head = b.create_block();
    let tail_body = b.create_block();
    let row_next = b.create_block();
    for blk in [vec_head, vec_body, tail_head, tail_body] {
        b.append_block_param(blk, types::I64); // byte offset in the row
    }
    let r_ = crate::codegen::row_body(b, row_head, rows, ret_ok);
    let row_ptr = |b: &mut FunctionBuilder, addr: Value, stride: Value| -> Value {
        let ro = b.ins().imul(r_, stride);
        let o = b.ins().iadd(addr, ro);
        b.ins().iadd(base, o)
    };
    let pd = row_ptr(b, dst, dst_s);
    let pa = row_ptr(b, src, src_s);
    let pb = if binary { row_ptr(b, src2, src2_s) } else { pa };
    b.ins().jump(vec_head, &[zero.into()]);

    let hf = heap_flags();
    let scalar = |b: &mut FunctionBuilder, vector: bool| -> Value {
        let low = b.ins().ireduce(types::I32, sbits);
        let s = b.ins().bitcast(types::F32, MemFlagsData::new(), low);
        if vector {
            b.ins().splat(types::F32X4, s)
        } else {
            s
        }
    };
    let compute = |b: &mut FunctionBuilder, l: &L, x: Value, y: Value| -> Value {
        let ty = l.ft();
        let xa = to_f32(b, l, lane, x);
        let yb = if binary {
            to_f32(b, l, lane, y)
        } else if has_scalar {
            scalar(b, l.vector)
        } else {
            xa
        };
        let res = if r.operands == Operands::ScalarLeft {
            cx.apply(b, ty, yb, xa)
        } else {
            cx.apply(b, ty, xa, yb)
        };
        from_f32(b, l, lane, res)
    };

    // eight elements per vector
    b.switch_to_block(vec_head);
    let k = b.block_params(vec_head)[0];
    let end = b.ins().iadd_imm_s(k, 16);
    let fits = b.ins().icmp(IntCC::SignedLessThanOrEqual, end, row_bytes);
    b.ins()
        .brif(fits, vec_body, &[k.into()], tail_head, &[k.into()]);
    b.switch_to_block(vec_body);
    let k = b.block_params(vec_body)[0];
    let l = L { vector: true };
    let qa = b.ins().iadd(pa, k);
    let va = b.ins().load(types::I16X8, hf, qa, 0);
    let vb = if binary {
        let qb = b.ins().iadd(pb, k);
        b.ins().load(types::I16X8, hf, qb, 0)
    } else {
        va
    };
    let a_lo = b.ins().uwiden_low(va);
    let a_hi = b.ins().uwiden_high(va);
    let b_lo = b.ins().uwiden_low(vb);
    let b_hi = b.ins().uwiden_high(vb);
    let lo = compute(b, &l, a_lo, b_lo);
    let hi = compute(b, &l, a_hi, b_hi);
    let out = b.ins().unarrow(lo, hi);
    let qd = b.ins().iadd(pd, k);
    b.ins().store(hf, out, qd, 0);
    let kn = b.ins().iadd_imm_s(k, 16);
    b.ins().jump(vec_head, &[kn.into()]);

    // the rest one element at a time
    b.switch_to_block(tail_head);
    let k = b.block_params(tail_head)[0];
    let left = b.ins().icmp(IntCC::SignedLessThan, k, row_bytes);
    b.ins().brif(left, tail_body, &[k.into()], row_next, &[]);
    b.switch_to_block(tail_body);
    let k = b.block_params(tail_body)[0];
    let l = L { vector: false };
    let qa = b.ins().iadd(pa, k);
    let xa = b.ins().uload16(types::I32, hf, qa, 0);
    let xb = if binary {
        let qb = b.ins().iadd(pb, k);
        b.ins().uload16(types::I32, hf, qb, 0)
    } else {
        xa
    };
    let res = compute(b, &l, xa, xb);
    let qd = b.ins().iadd(pd, k);
    b.ins().istore16(hf, res, qd, 0);
    let kn = b.ins().iadd_imm_s(k, 2);
    b.ins().jump(tail_head, &[kn.into()]);

    b.switch_to_block(row_next);
    let rn = b.ins().iadd_imm_s(r_, 1);
    b.ins().jump(row_head, &[rn.into()]);

    crate::codegen::emit_exits(b, ret_ok, ret_bad);
}

#[cfg(test)]
mod tests {
    use crate::{compile, EwArgs, Lane, Op, Operands, Region, Status};
    use half::{bf16, f16};

    fn to64(lane: Lane, h: u16) -> f64 {
        if lane == Lane::F16 {
            f16::from_bits(h).to_f64()
        } else {
            bf16::from_bits(h).to_f64()
        }
    }

    /// The interpreter's rounding (`vm/src/num.rs`): f16 through `half`,
    /// bf16 rounded to odd at f32 then to nearest even.
    fn from64(lane: Lane, v: f64) -> u16 {
        if lane == Lane::F16 {
            return f16::from_f64(v).to_bits();
        }
        let t = v as f32;
        if v.is_nan() || f64::from(t) == v {
            return bf16::from_f32(t).to_bits();
        }
        let mut bits = t.to_bits();
        if f64::from(t).abs() > v.abs() {
            bits -= 1;
        }
        bf16::from_f32(f32::from_bits(bits | 1)).to_bits()
    }

    /// What the interpreter computes (`exec::tile::ew`): f64 from the half
    /// type, the op in f64, rounded back by `half`.
    fn reference(op: Op, lane: Lane, x: u16, y: u16) -> u16 {
        let (a, b) = (to64(lane, x), to64(lane, y));
        let nan2 = |a: f64, b: f64| a.is_nan() || b.is_nan();
        let v = match op {
            Op::Add => a + b,
            Op::Sub => a - b,
            Op::Mul => a * b,
            Op::Div => a / b,
            Op::Max if nan2(a, b) => f64::NAN,
            Op::Min if nan2(a, b) => f64::NAN,
            Op::Max if a == 0.0 && b == 0.0 => {
                if a.is_sign_negative() && b.is_sign_negative() {
                    -0.0
                } else {
                    0.0
                }
            }
            Op::Min if a == 0.0 && b == 0.0 => {
                if a.is_sign_negative() || b.is_sign_negative() {
                    -0.0
                } else {
                    0.0
                }
            }
            Op::Max => a.max(b),
            Op::Min => a.min(b),
            Op::Abs => a.abs(),
            Op::Neg => -a,
            Op::Sqrt => a.sqrt(),
            Op::Recip => 1.0 / a,
            Op::Relu if a > 0.0 || a.is_nan() => a,
            Op::Relu => 0.0,
            _ => unreachable!(),
        };
        from64(lane, v)
    }

    fn is_nan(lane: Lane, h: u16) -> bool {
        to64(lane, h).is_nan()
    }

    /// Runs a unary op over every 16-bit pattern of `lane` and checks it
    /// against the interpreter's f64 function rounded once: special results
    /// (NaN, infinities, zeros, 1) exactly, the rest within the region's
    /// bound; returns the worst distance found.
    fn every_pattern_within_bound(op: Op, lane: Lane, f: fn(f64) -> f64) -> u64 {
        let region = Region {
            op,
            lane,
            operands: Operands::Unary,
        };
        let bound = u64::from(region.ulp_bound());
        let k = compile(&region).expect("compiles");
        let n = 65536usize;
        let mut mem = vec![0u8; 4 * n];
        for i in 0..n {
            mem[2 * i..2 * i + 2].copy_from_slice(&(i as u16).to_le_bytes());
        }
        let args = EwArgs {
            dst: (2 * n) as i64,
            dst_stride: 200,
            a: 0,
            a_stride: 200,
            b: 0,
            b_stride: 200,
            rows: (n / 100) as i64,
            cols: 100,
            scalar: 0,
        };
        assert_eq!(k.call(&mut mem, &args), Status::Ok);
        let key = |h: u16| {
            let h = i64::from(h);
            if h & 0x8000 != 0 {
                0x8000 - h
            } else {
                h
            }
        };
        let mut worst = 0;
        for i in 0..n / 100 * 100 {
            let x = i as u16;
            let at = 2 * n + 2 * i;
            let got = u16::from_le_bytes([mem[at], mem[at + 1]]);
            let want = from64(lane, f(to64(lane, x)));
            let w = to64(lane, want);
            if w.is_nan() || w.is_infinite() || w == 0.0 || w == 1.0 {
                // NaN in, NaN out; overflow, underflow, poles and f = 1 exactly
                let ok = got == want || (w.is_nan() && is_nan(lane, got));
                let near = key(got).abs_diff(key(want)) <= bound;
                let inf_in = to64(lane, x).is_infinite() || to64(lane, x) == 0.0;
                assert!(
                    ok || (!w.is_nan() && !inf_in && near),
                    "{lane:?} {op:?}({x:#06x}) = {got:#06x}, interpreter {want:#06x}"
                );
            }
            if !w.is_nan() {
                worst = worst.max(key(got).abs_diff(key(want)));
            }
        }
        eprintln!("{lane:?} {op:?}: worst {worst} ulp over every pattern");
        assert!(worst <= bound, "{lane:?} {op:?}: {worst} ulp");
        worst
    }

    #[test]
    fn exp_log_and_rsqrt_on_half_lanes_are_within_their_bounds_for_every_pattern() {
        for lane in [Lane::F16, Lane::BF16] {
            every_pattern_within_bound(Op::Exp, lane, f64::exp);
            every_pattern_within_bound(Op::Log, lane, f64::ln);
            every_pattern_within_bound(Op::Rsqrt, lane, |x| 1.0 / x.sqrt());
        }
    }

    #[test]
    fn every_bit_pattern_through_every_op_matches_the_interpreter() {
        use Op::*;
        for lane in [Lane::F16, Lane::BF16] {
            for op in [Add, Sub, Mul, Div, Max, Min, Abs, Neg, Sqrt, Recip, Relu] {
                let unary = matches!(op, Abs | Neg | Sqrt | Recip | Relu);
                let operands = if unary {
                    Operands::Unary
                } else {
                    Operands::Binary
                };
                let k = compile(&Region { op, lane, operands }).expect("compiles");
                // all 65536 patterns of x against a spread of y (every
                // pattern, rotated, so each x meets several kinds of y)
                let n = 65536usize;
                let rounds = if unary { 1 } else { 4 };
                for round in 0..rounds {
                    let xs: Vec<u16> = (0..n).map(|i| i as u16).collect();
                    let ys: Vec<u16> = (0..n)
                        .map(|i| (i as u16).wrapping_mul(40503).rotate_left(round * 5))
                        .collect();
                    // rows of 100 elements: 12 vectors and a tail of 4
                    let cols = 100usize;
                    let rows = n / cols;
                    let mut mem = vec![0u8; 3 * 2 * n];
                    for i in 0..n {
                        mem[2 * i..2 * i + 2].copy_from_slice(&xs[i].to_le_bytes());
                        mem[2 * n + 2 * i..2 * n + 2 * i + 2].copy_from_slice(&ys[i].to_le_bytes());
                    }
                    let s = (cols * 2) as i64;
                    let args = EwArgs {
                        dst: (4 * n) as i64,
                        dst_stride: s,
                        a: 0,
                        a_stride: s,
                        b: (2 * n) as i64,
                        b_stride: s,
                        rows: rows as i64,
                        cols: cols as i64,
                        scalar: 0,
                    };
                    assert_eq!(k.call(&mut mem, &args), Status::Ok);
                    for i in 0..rows * cols {
                        let at = 4 * n + 2 * i;
                        let got = u16::from_le_bytes([mem[at], mem[at + 1]]);
                        let want = reference(op, lane, xs[i], ys[i]);
                        // which NaN operand an arithmetic op keeps is the
                        // host's choice (in the interpreter too)
                        let both_nan = is_nan(lane, got) && is_nan(lane, want);
                        let arith = matches!(op, Add | Sub | Mul | Div | Sqrt | Recip);
                        assert!(
                            got == want || (arith && both_nan),
                            "{lane:?} {op:?}({:#06x}, {:#06x}) = {got:#06x}, interpreter {want:#06x}",
                            xs[i],
                            ys[i]
                        );
                    }
                }
            }
        }
    }
}
