//! `tcvt` between f32 and f16/bf16 with the default rounding (to nearest,
//! ties to even) and no saturation: eight elements per iteration through the
//! conversions of `crate::half`, then a scalar tail; on hosts with AVX2 and
//! F16C, disjoint rows run on `crate::ewhalf`'s 8-lane conversions instead. As in the interpreter
//! (`vm/src/exec/convert.rs`), a NaN converts to the canonical quiet NaN of
//! the destination type and overflow gives infinity; f16/bf16 -> f32 is exact.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::FunctionBuilder;

use crate::codegen::{build_with, heap_flags, Code, ARG_COUNT};
use crate::half::{from_f32, to_f32, L};
use crate::{EwArgs, Lane, Reject, Status};

/// A conversion region: element types of source and destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cvt {
    /// Source lane type.
    pub from: Lane,
    /// Destination lane type.
    pub to: Lane,
}

/// A compiled conversion.
pub struct CvtCompiled {
    inner: Code,
    /// The region it implements.
    pub region: Cvt,
    /// Size of the generated machine code in bytes.
    pub code_bytes: usize,
    /// Compile time.
    pub compile_time: std::time::Duration,
}

impl std::fmt::Debug for CvtCompiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CvtCompiled")
            .field("region", &self.region)
            .finish()
    }
}

impl CvtCompiled {
    /// Converts `rows` x `cols` elements from `a` (stride `a_stride` bytes)
    /// to `dst` (stride `dst_stride`); `b`, `b_stride` and `scalar` are unused.
    pub fn call(&self, mem: &mut [u8], args: &EwArgs) -> Status {
        // on 8-lane vectors where the host has them (the same bits)
        if let Some(s) = crate::ewhalf::cvt_wide(mem, self.region, args) {
            return s;
        }
        self.call_compiled(mem, args)
    }

    /// [`Self::call`] on the compiled code alone.
    pub(crate) fn call_compiled(&self, mem: &mut [u8], args: &EwArgs) -> Status {
        let v: [i64; ARG_COUNT] = [
            args.dst,
            args.dst_stride,
            args.a,
            args.a_stride,
            0,
            0,
            args.rows,
            args.cols,
            0,
        ];
        match self.inner.call(mem, &v) {
            0 => Status::Ok,
            1 => Status::OutOfBounds,
            _ => Status::Unknown,
        }
    }
}

/// Compiles f32 -> f16/bf16 or f16/bf16 -> f32.
pub fn compile_cvt(c: &Cvt) -> Result<CvtCompiled, Reject> {
    let half = |l: Lane| matches!(l, Lane::F16 | Lane::BF16);
    if !((c.from == Lane::F32 && half(c.to)) || (half(c.from) && c.to == Lane::F32)) {
        return Err(Reject::Unsupported(format!(
            "conversion {:?} -> {:?}",
            c.from, c.to
        )));
    }
    let start = std::time::Instant::now();
    let c = *c;
    let (inner, code_bytes) = build_with(&format!("{c:?}"), |b, ptr| emit(b, c, ptr))?;
    Ok(CvtCompiled {
        inner,
        region: c,
        code_bytes,
        compile_time: start.elapsed(),
    })
}

/// One conversion of lanes `x` (f32 values, or half bits in i32 lanes).
fn convert(b: &mut FunctionBuilder, l: &L, c: Cvt, x: Value) -> Value {
    if c.from == Lane::F32 {
        // half bits; a NaN becomes the canonical one
        let h = from_f32(b, l, c.to, x);
        let bits = b.ins().bitcast(l.it(), MemFlagsData::new(), x);
        let m = l.i(b, 0x7fff_ffff);
        let a = b.ins().band(bits, m);
        let inf = l.i(b, 0x7f80_0000);
        let nan = b.ins().icmp(IntCC::SignedGreaterThan, a, inf);
        let canon = l.i(b, if c.to == Lane::F16 { 0x7e00 } else { 0x7fc0 });
        l.sel(b, nan, canon, h)
    } else {
        let f = to_f32(b, l, c.from, x);
        let bits = b.ins().bitcast(l.it(), MemFlagsData::new(), f);
        let m = l.i(b, 0x7fff_ffff);
        let a = b.ins().band(bits, m);
        let inf = l.i(b, 0x7f80_0000);
        let nan = b.ins().icmp(IntCC::SignedGreaterThan, a, inf);
        let canon = l.i(b, 0x7fc0_0000);
        l.sel(b, nan, canon, bits)
    }
}

fn emit(b: &mut FunctionBuilder, c: Cvt, ptr: Type) {
    let (ses, des) = (c.from.bytes(), c.to.bytes());
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let p = b.block_params(entry).to_vec();
    let (base, len, args) = (p[0], p[1], p[2]);
    let af = MemFlagsData::trusted();
    let a: Vec<Value> = (0..ARG_COUNT as i32)
        .map(|i| b.ins().load(types::I64, af, args, i * 8))
        .collect();
    let (dst, dst_s, src, src_s, rows, cols) = (a[0], a[1], a[2], a[3], a[6], a[7]);
    let ret_ok = b.create_block();
    let ret_bad = b.create_block();
    let mut small = vec![dst, dst_s, src, src_s, rows, cols];
    if ptr != types::I64 {
        // no 64-bit host pointers: a value that fails the proof
        small.push(b.ins().iconst(types::I64, -1));
    }
    let drb = b.ins().imul_imm_s(cols, des);
    let srb = b.ins().imul_imm_s(cols, ses);
    let ext = [(dst, dst_s, drb), (src, src_s, srb)];
    crate::codegen::prove_rows(b, &small, rows, cols, len, &ext, ret_ok, ret_bad);
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
        b.append_block_param(blk, types::I64); // element index in the row
    }
    let r = crate::codegen::row_body(b, row_head, rows, ret_ok);
    let row_ptr = |b: &mut FunctionBuilder, addr: Value, stride: Value| -> Value {
        let ro = b.ins().imul(r, stride);
        let o = b.ins().iadd(addr, ro);
        b.ins().iadd(base, o)
    };
    let pd = row_ptr(b, dst, dst_s);
    let ps = row_ptr(b, src, src_s);
    b.ins().jump(vec_head, &[zero.into()]);

    let hf = heap_flags();
    b.switch_to_block(vec_head);
    let k = b.block_params(vec_head)[0];
    let end = b.ins().iadd_imm_s(k, 8);
    let fits = b.ins().icmp(IntCC::SignedLessThanOrEqual, end, cols);
    b.ins()
        .brif(fits, vec_body, &[k.into()], tail_head, &[k.into()]);
    b.switch_to_block(vec_body);
    let k = b.block_params(vec_body)[0];
    let l = L { vector: true };
    let so = b.ins().imul_imm_s(k, ses);
    let qs = b.ins().iadd(ps, so);
    let dof = b.ins().imul_imm_s(k, des);
    let qd = b.ins().iadd(pd, dof);
    if c.from == Lane::F32 {
        let x0 = b.ins().load(types::F32X4, hf, qs, 0);
        let x1 = b.ins().load(types::F32X4, hf, qs, 16);
        let h0 = convert(b, &l, c, x0);
        let h1 = convert(b, &l, c, x1);
        let out = b.ins().unarrow(h0, h1);
        b.ins().store(hf, out, qd, 0);
    } else {
        let v = b.ins().load(types::I16X8, hf, qs, 0);
        let lo = b.ins().uwiden_low(v);
        let hi = b.ins().uwiden_high(v);
        let f0 = convert(b, &l, c, lo);
        let f1 = convert(b, &l, c, hi);
        b.ins().store(hf, f0, qd, 0);
        b.ins().store(hf, f1, qd, 16);
    }
    let kn = b.ins().iadd_imm_s(k, 8);
    b.ins().jump(vec_head, &[kn.into()]);

    b.switch_to_block(tail_head);
    let k = b.block_params(tail_head)[0];
    let left = b.ins().icmp(IntCC::SignedLessThan, k, cols);
    b.ins().brif(left, tail_body, &[k.into()], row_next, &[]);
    b.switch_to_block(tail_body);
    let k = b.block_params(tail_body)[0];
    let l = L { vector: false };
    let so = b.ins().imul_imm_s(k, ses);
    let qs = b.ins().iadd(ps, so);
    let dof = b.ins().imul_imm_s(k, des);
    let qd = b.ins().iadd(pd, dof);
    if c.from == Lane::F32 {
        let x = b.ins().load(types::F32, hf, qs, 0);
        let h = convert(b, &l, c, x);
        b.ins().istore16(hf, h, qd, 0);
    } else {
        let x = b.ins().uload16(types::I32, hf, qs, 0);
        let f = convert(b, &l, c, x);
        b.ins().store(hf, f, qd, 0);
    }
    let kn = b.ins().iadd_imm_s(k, 1);
    b.ins().jump(tail_head, &[kn.into()]);

    b.switch_to_block(row_next);
    let rn = b.ins().iadd_imm_s(r, 1);
    b.ins().jump(row_head, &[rn.into()]);
    crate::codegen::emit_exits(b, ret_ok, ret_bad);
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::{bf16, f16};

    /// The interpreter's conversion (`exec::convert::float_to_float`, mode
    /// RINT, no saturation): NaN -> canonical NaN, else to nearest even
    /// (`half`'s f16 rounding; f32 -> bf16 is exact-input RNE).
    fn want_half(to: Lane, x: f32) -> u16 {
        let v = f64::from(x);
        match (to, v.is_nan()) {
            (Lane::F16, true) => f16::from_f64(f64::NAN).to_bits(),
            (Lane::F16, false) => f16::from_f64(v).to_bits(),
            (_, true) => bf16::from_f64(f64::NAN).to_bits(),
            (_, false) => bf16::from_f32(x).to_bits(),
        }
    }

    fn run(c: Cvt, src: &[u8], n: usize, cols: usize) -> Vec<u8> {
        let k = compile_cvt(&c).expect("compiles");
        let (ses, des) = (c.from.bytes() as usize, c.to.bytes() as usize);
        let mut mem = src.to_vec();
        mem.resize(n * ses + n * des, 0);
        let rows = n / cols;
        let args = EwArgs {
            dst: (n * ses) as i64,
            dst_stride: (cols * des) as i64,
            a: 0,
            a_stride: (cols * ses) as i64,
            rows: rows as i64,
            cols: cols as i64,
            ..EwArgs::default()
        };
        assert_eq!(k.call(&mut mem, &args), Status::Ok);
        mem[n * ses..].to_vec()
    }

    #[test]
    fn every_half_pattern_widens_like_the_interpreter() {
        for from in [Lane::F16, Lane::BF16] {
            let n = 65536;
            let src: Vec<u8> = (0..n).flat_map(|i| (i as u16).to_le_bytes()).collect();
            let out = run(
                Cvt {
                    from,
                    to: Lane::F32,
                },
                &src,
                n,
                1000 + 24,
            );
            for i in 0..n {
                let h = i as u16;
                let v = if from == Lane::F16 {
                    f16::from_bits(h).to_f64()
                } else {
                    bf16::from_bits(h).to_f64()
                };
                let want = if v.is_nan() {
                    0x7fc0_0000
                } else {
                    (v as f32).to_bits()
                };
                let got = u32::from_le_bytes([
                    out[4 * i],
                    out[4 * i + 1],
                    out[4 * i + 2],
                    out[4 * i + 3],
                ]);
                assert_eq!(got, want, "{from:?} {h:#06x}");
            }
        }
    }

    #[test]
    fn f32_narrows_like_the_interpreter_on_halfway_cases_overflow_and_subnormals() {
        let mut xs: Vec<u32> = Vec::new();
        // every f32 whose low 12 bits are one of the rounding-relevant
        // patterns (exact, below/at/above halfway for f16's 13 dropped bits
        // and bf16's 16), over all exponents and signs
        for hi in 0..(1u32 << 16) {
            for lo in [
                0u32, 0x0fff, 0x1000, 0x1001, 0x2000, 0x7fff, 0x8000, 0x8001, 0xffff,
            ] {
                xs.push((hi << 16) | lo);
            }
        }
        // and a stride through everything
        xs.extend((0..2_000_000u64).map(|i| (i * 2147) as u32));
        let cols = 100;
        xs.truncate(xs.len() / cols * cols);
        let n = xs.len();
        let src: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
        for to in [Lane::F16, Lane::BF16] {
            let out = run(
                Cvt {
                    from: Lane::F32,
                    to,
                },
                &src,
                n,
                cols,
            );
            for (i, &x) in xs.iter().enumerate() {
                let got = u16::from_le_bytes([out[2 * i], out[2 * i + 1]]);
                let want = want_half(to, f32::from_bits(x));
                assert_eq!(got, want, "{to:?} {x:#010x} ({})", f32::from_bits(x));
            }
        }
    }
}
