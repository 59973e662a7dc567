//! Elementary functions on f32 lanes (scalars or 4-lane vectors) for the
//! elementwise regions: the natural logarithm.
//!
//! ln x: x = 2^k * m with m in [sqrt(2)/2, sqrt(2)) (subnormal x first scaled
//! by 2^25), f = m - 1, and ln(1 + f) = f - f^2/2 + s (f^2/2 + R(s^2)) with
//! s = f / (2 + f), where R is the classic degree-4 (in s^2) minimax fit of
//! the remainder of 2 atanh(s) (the fdlibm/Cody-Waite reduction, written here
//! with fused steps); k ln 2 is added in two parts so the sum keeps its low
//! bits. Special values are set at the end to what the interpreter's f64 ln
//! rounded to f32 gives: ln(±0) = -inf, ln(+inf) = +inf, a NaN stays that NaN
//! (quieted), and a negative x (-inf included) gives the x86 default NaN
//! 0xffc00000 (what 0/0 produces inside the C library's log).

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::FunctionBuilder;

struct Lanes {
    ty: Type,
    it: Type,
}

impl Lanes {
    fn new(ty: Type) -> Self {
        let it = if ty.is_vector() {
            types::I32X4
        } else {
            types::I32
        };
        Lanes { ty, it }
    }

    fn f(&self, b: &mut FunctionBuilder, v: f32) -> Value {
        let s = b.ins().f32const(v);
        if self.ty.is_vector() {
            b.ins().splat(self.ty, s)
        } else {
            s
        }
    }

    fn i(&self, b: &mut FunctionBuilder, v: i32) -> Value {
        let s = b.ins().iconst(types::I32, i64::from(v));
        if self.ty.is_vector() {
            b.ins().splat(self.it, s)
        } else {
            s
        }
    }

    fn bits(&self, b: &mut FunctionBuilder, x: Value) -> Value {
        b.ins().bitcast(self.it, MemFlagsData::new(), x)
    }

    fn float(&self, b: &mut FunctionBuilder, x: Value) -> Value {
        b.ins().bitcast(self.ty, MemFlagsData::new(), x)
    }

    /// `c ? x : y` lane by lane; `c` is a comparison result, `x`, `y` of
    /// type `ty` (float) or `it` (integer).
    fn sel(&self, b: &mut FunctionBuilder, c: Value, x: Value, y: Value) -> Value {
        if self.ty.is_vector() {
            let vt = b.func.dfg.value_type(x);
            let c = if b.func.dfg.value_type(c) == vt {
                c
            } else {
                b.ins().bitcast(vt, MemFlagsData::new(), c)
            };
            b.ins().bitselect(c, x, y)
        } else {
            b.ins().select(c, x, y)
        }
    }
}

/// ln x on f32 lanes (see the module documentation and `crate::LOG_ULP`).
pub(crate) fn log(b: &mut FunctionBuilder, ty: Type, x: Value) -> Value {
    let l = Lanes::new(ty);
    let ix = l.bits(b, x);
    // subnormal (and zero) inputs: scale up by 2^25, k starts at -25
    let min_normal = l.i(b, 0x0080_0000);
    let tiny = b.ins().icmp(IntCC::UnsignedLessThan, ix, min_normal);
    let two25 = l.f(b, 33_554_432.0);
    let xs = b.ins().fmul(x, two25);
    let xs_bits = l.bits(b, xs);
    let ix = l.sel(b, tiny, xs_bits, ix);
    let m25 = l.i(b, -25);
    let z0 = l.i(b, 0);
    let k0 = l.sel(b, tiny, m25, z0);
    // m in [sqrt(2)/2, sqrt(2)): shift the exponent so that the cut lies at
    // a power of two, then take the exponent and put the mantissa back
    let off = l.i(b, 0x3f80_0000 - 0x3f35_04f3);
    let ix = b.ins().iadd(ix, off);
    let e = b.ins().sshr_imm_u(ix, 23);
    let bias = l.i(b, 0x7f);
    let e = b.ins().isub(e, bias);
    let k = b.ins().iadd(k0, e);
    let mant = l.i(b, 0x007f_ffff);
    let m = b.ins().band(ix, mant);
    let base = l.i(b, 0x3f35_04f3);
    let m = b.ins().iadd(m, base);
    let m = l.float(b, m);
    let one = l.f(b, 1.0);
    let f = b.ins().fsub(m, one);
    let two = l.f(b, 2.0);
    let den = b.ins().fadd(two, f);
    let s = b.ins().fdiv(f, den);
    let z = b.ins().fmul(s, s);
    let w = b.ins().fmul(z, z);
    // R = z (L1 + w L3) + w (L2 + w L4)
    let lg = |b: &mut FunctionBuilder, bits: u32| l.f(b, f32::from_bits(bits));
    let l1 = lg(b, 0x3f2a_aaaa); // 0.666666627
    let l2 = lg(b, 0x3ecc_ce13); // 0.400009722
    let l3 = lg(b, 0x3e91_e9ee); // 0.284987867
    let l4 = lg(b, 0x3e78_9e26); // 0.242790788
    let t1 = b.ins().fma(w, l4, l2);
    let t1 = b.ins().fmul(w, t1);
    let t2 = b.ins().fma(w, l3, l1);
    let r = b.ins().fma(z, t2, t1);
    let half = l.f(b, 0.5);
    let hf = b.ins().fmul(half, f);
    let hfsq = b.ins().fmul(hf, f);
    let dk = b.ins().fcvt_from_sint(ty, k);
    let ln2_hi = lg(b, 0x3f31_7180);
    let ln2_lo = lg(b, 0x3717_f7d1);
    // s (hfsq + R) + k ln2_lo - hfsq + f + k ln2_hi, in that order
    let a = b.ins().fadd(hfsq, r);
    let lo = b.ins().fmul(dk, ln2_lo);
    let y = b.ins().fma(s, a, lo);
    let y = b.ins().fsub(y, hfsq);
    let y = b.ins().fadd(y, f);
    let y = b.ins().fma(dk, ln2_hi, y);
    // special values
    let ix = l.bits(b, x);
    let zero = l.f(b, 0.0);
    let is_zero = b.ins().fcmp(FloatCC::Equal, x, zero);
    let neg_inf = l.f(b, f32::NEG_INFINITY);
    let y = l.sel(b, is_zero, neg_inf, y);
    let inf = l.f(b, f32::INFINITY);
    let is_inf = b.ins().fcmp(FloatCC::Equal, x, inf);
    let y = l.sel(b, is_inf, inf, y);
    let neg = b.ins().fcmp(FloatCC::LessThan, x, zero);
    let dflt = l.i(b, 0xffc0_0000_u32 as i32);
    let dflt = l.float(b, dflt);
    let y = l.sel(b, neg, dflt, y);
    let nan = b.ins().fcmp(FloatCC::Unordered, x, x);
    let quiet = l.i(b, 0x0040_0000);
    let q = b.ins().bor(ix, quiet);
    let q = l.float(b, q);
    l.sel(b, nan, q, y)
}

#[cfg(test)]
mod tests {
    use crate::{compile, EwArgs, Lane, Op, Operands, Region, Status, LOG_ULP};

    fn ulps(a: f32, b: f32) -> u64 {
        let key = |x: f32| {
            let i = x.to_bits() as i32;
            if i < 0 {
                i64::from(i32::MIN) - i64::from(i)
            } else {
                i64::from(i)
            }
        };
        key(a).abs_diff(key(b))
    }

    /// Runs the compiled op over `xs` (as rows of 13, so the scalar tail runs too).
    fn run(op: Op, xs: &[u32]) -> Vec<u32> {
        let k = compile(&Region {
            op,
            lane: Lane::F32,
            operands: Operands::Unary,
        })
        .expect("compiles");
        let cols = 13usize;
        let rows = xs.len().div_ceil(cols);
        let n = rows * cols;
        let mut mem: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
        mem.resize(2 * n * 4, 0);
        let s = (cols * 4) as i64;
        let args = EwArgs {
            dst: (n * 4) as i64,
            dst_stride: s,
            a: 0,
            a_stride: s,
            b: 0,
            b_stride: s,
            rows: (xs.len() / cols) as i64,
            cols: cols as i64,
            scalar: 0,
        };
        assert_eq!(k.call(&mut mem, &args), Status::Ok);
        let done = xs.len() / cols * cols;
        // the last partial row
        let rest = EwArgs {
            dst: args.dst + (done * 4) as i64,
            a: (done * 4) as i64,
            rows: 1,
            cols: (xs.len() - done) as i64,
            ..args
        };
        assert_eq!(k.call(&mut mem, &rest), Status::Ok);
        mem[n * 4..n * 4 + xs.len() * 4]
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    #[test]
    fn log_is_within_its_ulp_bound_and_exact_on_special_values() {
        let mut worst = (0u64, 0u32);
        let mut specials = vec![
            0u32,
            0x8000_0000,
            1,
            0x8000_0001,
            0x007f_ffff,
            0x0080_0000,
            0x3f80_0000,
            0x3f7f_ffff,
            0x3f80_0001,
            0x7f7f_ffff,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0xffc0_0000,
            0x7f80_0001,
            0x7fa0_1234,
            0xbf80_0000,
            0x3f35_04f3,
            0x3f35_04f4,
        ];
        specials.extend((0..200u32).map(|i| 0x3f80_0000 + i * 977));
        specials.extend((0..200u32).map(|i| 0x3f7f_ffff - i * 977));
        // every 509th bit pattern, in chunks
        let step = 509u64;
        let mut start = 0u64;
        let mut checked = 0u64;
        let chunk = 1u64 << 20;
        loop {
            let xs: Vec<u32> = if start == 0 {
                specials.clone()
            } else {
                let lo = (start - 1) * chunk * step;
                if lo > u64::from(u32::MAX) {
                    break;
                }
                (0..chunk)
                    .map(|i| lo + i * step)
                    .take_while(|&v| v <= u64::from(u32::MAX))
                    .map(|v| v as u32)
                    .collect()
            };
            start += 1;
            let got = run(Op::Log, &xs);
            for (&x, &y) in xs.iter().zip(&got) {
                let want = (f64::from(f32::from_bits(x)).ln() as f32).to_bits();
                let (fw, fy) = (f32::from_bits(want), f32::from_bits(y));
                let exact = fw.is_nan() || fw.is_infinite() || fw == 0.0;
                if exact {
                    assert_eq!(y, want, "ln({x:#x}): {y:#x}, interpreter {want:#x}");
                } else {
                    let d = ulps(fw, fy);
                    if d > worst.0 {
                        worst = (d, x);
                    }
                }
                checked += 1;
            }
        }
        eprintln!(
            "log: {checked} inputs, worst {} ulp at {:#x} ({})",
            worst.0,
            worst.1,
            f32::from_bits(worst.1)
        );
        assert!(checked > 8_000_000);
        assert!(worst.0 <= u64::from(LOG_ULP), "{worst:?}");
    }
}
