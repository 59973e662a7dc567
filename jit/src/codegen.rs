//! Cranelift code generation. Every `unsafe` block of the JIT is in this file.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, AbiParam, InstBuilder, MemFlagsData, Type, UserFuncName, Value,
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, Linkage, Module};

use crate::{Lane, Op, Operands, Region, Reject};

/// Number of i64 arguments of an elementwise region.
pub const ARG_COUNT: usize = 9;
/// The Cranelift version every `cranelift-*` crate is pinned to.
pub const CRANELIFT_VERSION: &str = "0.135.8";

type RegionFn = unsafe extern "C" fn(*mut u8, u64, *const i64) -> u32;

/// Finalized machine code and the module that owns it.
pub struct Code {
    module: Option<JITModule>,
    f: RegionFn,
}

// SAFETY: after `finalize_definitions` the module's code and data are immutable;
// `Code` only reads the function pointer and calls it, which is safe from any
// thread because the generated code keeps no state of its own.
unsafe impl Send for Code {}
// SAFETY: see `Send`: shared references only call the immutable code.
unsafe impl Sync for Code {}

impl Drop for Code {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: `Code` is the only owner of the function pointer into this
            // module and it is being dropped, so no code of the module can run again.
            unsafe { m.free_memory() };
        }
    }
}

impl Code {
    /// Calls the region on `mem`.
    pub fn call(&self, mem: &mut [u8], args: &[i64; ARG_COUNT]) -> u32 {
        // SAFETY: the generated code reads exactly ARG_COUNT i64 values from
        // `args`, and touches `mem` only after checking at entry that every
        // address it will form lies in `[mem.as_ptr(), mem.as_ptr() + mem.len())`;
        // `mem` is exclusively borrowed for the duration of the call.
        unsafe { (self.f)(mem.as_mut_ptr(), mem.len() as u64, args.as_ptr()) }
    }
}

fn err<E: std::fmt::Display>(e: E) -> Reject {
    Reject::Codegen(e.to_string())
}

/// Builds the machine code for a region; returns it and its size in bytes.
pub fn build(r: &Region) -> Result<(Code, usize), Reject> {
    let mut fb = settings::builder();
    fb.set("use_colocated_libcalls", "false").map_err(err)?;
    fb.set("is_pic", "false").map_err(err)?;
    fb.set("opt_level", "speed").map_err(err)?;
    let isa = cranelift_native::builder()
        .map_err(err)?
        .finish(settings::Flags::new(fb))
        .map_err(err)?;
    let mut module = JITModule::new(JITBuilder::with_isa(isa, default_libcall_names()));
    let ptr = module.target_config().pointer_type();
    let mut sig = module.make_signature();
    sig.params.push(AbiParam::new(ptr));
    sig.params.push(AbiParam::new(types::I64));
    sig.params.push(AbiParam::new(ptr));
    sig.returns.push(AbiParam::new(types::I32));
    let id = module
        .declare_function("region", Linkage::Local, &sig)
        .map_err(err)?;
    let mut ctx = module.make_context();
    ctx.func.signature = sig;
    ctx.func.name = UserFuncName::user(0, id.as_u32());
    let mut fctx = FunctionBuilderContext::new();
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        emit(&mut b, r, ptr);
        b.seal_all_blocks();
        b.finalize(module.target_config());
    }
    module.define_function(id, &mut ctx).map_err(err)?;
    let size = ctx
        .compiled_code()
        .map(|c| c.code_buffer().len())
        .unwrap_or(0);
    module.clear_context(&mut ctx);
    module.finalize_definitions().map_err(err)?;
    let raw = module.get_finalized_function(id);
    // SAFETY: `raw` points to the function just defined with signature
    // (ptr, i64, ptr) -> i32, which matches `RegionFn` under the platform's C ABI
    // (the module's default calling convention).
    let f: RegionFn = unsafe { std::mem::transmute::<*const u8, RegionFn>(raw) };
    Ok((
        Code {
            module: Some(module),
            f,
        },
        size,
    ))
}

struct Ctx {
    lane: Lane,
    op: Op,
    operands: Operands,
}

impl Ctx {
    fn scalar_ty(&self) -> Type {
        match self.lane {
            Lane::F32 => types::F32,
            Lane::I32 => types::I32,
        }
    }

    fn vec_ty(&self) -> Type {
        match self.lane {
            Lane::F32 => types::F32X4,
            Lane::I32 => types::I32X4,
        }
    }

    /// The operation on scalars or vectors (`ty` is the value type).
    fn apply(&self, b: &mut FunctionBuilder, ty: Type, x: Value, y: Value) -> Value {
        let fl = self.lane == Lane::F32;
        match self.op {
            Op::Add if fl => b.ins().fadd(x, y),
            Op::Add => b.ins().iadd(x, y),
            Op::Sub if fl => b.ins().fsub(x, y),
            Op::Sub => b.ins().isub(x, y),
            Op::Mul if fl => b.ins().fmul(x, y),
            Op::Mul => b.ins().imul(x, y),
            Op::Div => b.ins().fdiv(x, y),
            Op::Max if fl => self.fmax(b, ty, x, y),
            Op::Max => b.ins().smax(x, y),
            Op::Min if fl => self.fmin(b, ty, x, y),
            Op::Min => b.ins().smin(x, y),
            Op::Abs if fl => b.ins().fabs(x),
            Op::Abs => b.ins().iabs(x),
            Op::Neg if fl => b.ins().fneg(x),
            Op::Neg => b.ins().ineg(x),
            Op::Sqrt => b.ins().sqrt(x),
            Op::Recip => {
                let one = self.splat_f(b, ty, 1.0);
                b.ins().fdiv(one, x)
            }
            Op::Relu if fl => {
                let zero = self.splat_f(b, ty, 0.0);
                self.fmax(b, ty, x, zero)
            }
            Op::Relu => {
                let zero = if ty.is_vector() {
                    let z = b.ins().iconst(types::I32, 0);
                    b.ins().splat(ty, z)
                } else {
                    b.ins().iconst(types::I32, 0)
                };
                b.ins().smax(x, zero)
            }
            Op::And => b.ins().band(x, y),
            Op::Or => b.ins().bor(x, y),
            Op::Xor => b.ins().bxor(x, y),
            Op::Exp => self.exp(b, ty, x),
        }
    }

    /// e^x on f32 lanes (see [`crate::EXP_ULP`]): x = n*ln2 + r with
    /// |r| <= ln2/2 (ln2 split in two so n*ln2 is exact), e^r by a degree-7
    /// polynomial, then scaled by 2^n as two factors 2^(n/2) * 2^(n - n/2) so
    /// results that are subnormal or overflow round once. n = round(x*log2e)
    /// comes from the 1.5*2^23 trick (no float-to-int conversion); x > 100
    /// gives +inf and x < -110 gives 0 by a final select (beyond those, f32
    /// e^x is inf or 0 anyway, and the reduction is meaningless there); NaN
    /// stays NaN.
    fn exp(&self, b: &mut FunctionBuilder, ty: Type, x: Value) -> Value {
        let vector = ty.is_vector();
        let it = if vector { types::I32X4 } else { types::I32 };
        let f = |b: &mut FunctionBuilder, v: f32| self.splat_f(b, ty, v);
        let i = |b: &mut FunctionBuilder, v: i32| -> Value {
            let c = b.ins().iconst(types::I32, i64::from(v));
            if vector {
                b.ins().splat(it, c)
            } else {
                c
            }
        };
        let log2e = f(b, std::f32::consts::LOG2_E);
        let t = b.ins().fmul(x, log2e);
        let magic = f(b, 12_582_912.0);
        let tm = b.ins().fadd(t, magic);
        let nf = b.ins().fsub(tm, magic);
        let tm_bits = b.ins().bitcast(it, MemFlagsData::new(), tm);
        let magic_bits = i(b, 0x4b40_0000);
        let n = b.ins().isub(tm_bits, magic_bits);
        // r = x - n*C1 - n*C2, C1 + C2 = ln 2 with C1 exact in few bits
        // (fused multiply-adds: one rounding each, and half the instructions)
        let c1 = f(b, -0.693_359_4);
        let c2 = f(b, 2.121_944_4e-4);
        let r = b.ins().fma(nf, c1, x);
        let r = b.ins().fma(nf, c2, r);
        // e^r ~ 1 + r + r^2 (1/2 + r (1/6 + r (1/24 + r (1/120 + r (1/720 + r/5040)))))
        let coeffs = [
            1.0 / 5040.0,
            1.0 / 720.0,
            1.0 / 120.0,
            1.0 / 24.0,
            1.0 / 6.0,
            0.5,
        ];
        let mut p = f(b, coeffs[0]);
        for c in &coeffs[1..] {
            let cv = f(b, *c);
            p = b.ins().fma(p, r, cv);
        }
        let r2 = b.ins().fmul(r, r);
        let p = b.ins().fma(p, r2, r);
        let one = f(b, 1.0);
        let p = b.ins().fadd(p, one);
        // 2^n1 * 2^n2, n1 = n >> 1, n2 = n - n1 (both normal for |x| <= 110)
        let n1 = b.ins().sshr_imm_u(n, 1);
        let n2 = b.ins().isub(n, n1);
        let bias = i(b, 127);
        let scale = |b: &mut FunctionBuilder, k: Value| -> Value {
            let e = b.ins().iadd(k, bias);
            let e = b.ins().ishl_imm_u(e, 23);
            b.ins().bitcast(ty, MemFlagsData::new(), e)
        };
        let s1 = scale(b, n1);
        let s2 = scale(b, n2);
        let y = b.ins().fmul(p, s1);
        let y = b.ins().fmul(y, s2);
        let hi = f(b, 100.0);
        let lo = f(b, -110.0);
        let inf = f(b, f32::INFINITY);
        let zero = f(b, 0.0);
        let over = b.ins().fcmp(FloatCC::GreaterThan, x, hi);
        let under = b.ins().fcmp(FloatCC::LessThan, x, lo);
        if vector {
            // lane masks come as integer vectors; bitselect wants the value type
            let over = b.ins().bitcast(ty, MemFlagsData::new(), over);
            let under = b.ins().bitcast(ty, MemFlagsData::new(), under);
            let y = b.ins().bitselect(over, inf, y);
            b.ins().bitselect(under, zero, y)
        } else {
            let y = b.ins().select(over, inf, y);
            b.ins().select(under, zero, y)
        }
    }

    fn splat_f(&self, b: &mut FunctionBuilder, ty: Type, v: f32) -> Value {
        let s = b.ins().f32const(v);
        if ty.is_vector() {
            b.ins().splat(ty, s)
        } else {
            s
        }
    }

    // IEEE 754-2019 maximum/minimum: NaN if either is NaN, +0 > -0. Cranelift's
    // fmax/fmin have exactly these semantics; they are used directly.
    fn fmax(&self, b: &mut FunctionBuilder, _ty: Type, x: Value, y: Value) -> Value {
        b.ins().fmax(x, y)
    }

    fn fmin(&self, b: &mut FunctionBuilder, _ty: Type, x: Value, y: Value) -> Value {
        b.ins().fmin(x, y)
    }
}

fn heap_flags() -> MemFlagsData {
    // not `trusted()`: that also claims alignment, and tile rows need not be 16-byte aligned
    let mut f = MemFlagsData::new();
    f.set_notrap();
    f
}

fn emit(b: &mut FunctionBuilder, r: &Region, ptr: Type) {
    let cx = Ctx {
        lane: r.lane,
        op: r.op,
        operands: r.operands,
    };
    let binary = cx.operands == Operands::Binary;
    let has_scalar = matches!(cx.operands, Operands::ScalarLeft | Operands::ScalarRight);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let p = b.block_params(entry).to_vec();
    let (base, len, args) = (p[0], p[1], p[2]);
    let af = MemFlagsData::trusted();
    let a: Vec<Value> = (0..ARG_COUNT)
        .map(|i| b.ins().load(types::I64, af, args, (i * 8) as i32))
        .collect();
    let (dst, dst_s, src, src_s, src2, src2_s, rows, cols, sbits) =
        (a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]);

    let ret_ok = b.create_block();
    let ret_bad = b.create_block();
    let nonempty = b.create_block();
    let row_head = b.create_block();

    // every operand below 2^32: no product below can overflow
    let lim = 1i64 << 32;
    let mut ok = b.ins().iconst(types::I8, 1);
    let mut used = vec![dst, dst_s, src, src_s, rows, cols];
    if binary {
        used.extend([src2, src2_s]);
    }
    for v in used {
        let c = b.ins().icmp_imm_s(IntCC::UnsignedLessThan, v, lim);
        ok = b.ins().band(ok, c);
    }
    let check_empty = b.create_block();
    b.ins().brif(ok, check_empty, &[], ret_bad, &[]);

    b.switch_to_block(check_empty);
    let r0 = b.ins().icmp_imm_s(IntCC::Equal, rows, 0);
    let c0 = b.ins().icmp_imm_s(IntCC::Equal, cols, 0);
    let empty = b.ins().bor(r0, c0);
    b.ins().brif(empty, ret_ok, &[], nonempty, &[]);

    // end of the last row of each operand must lie within len
    b.switch_to_block(nonempty);
    let es = 4i64;
    let row_bytes = b.ins().imul_imm_s(cols, es);
    let last = b.ins().iadd_imm_s(rows, -1);
    let mut ok2 = b.ins().iconst(types::I8, 1);
    let mut ops = vec![(dst, dst_s), (src, src_s)];
    if binary {
        ops.push((src2, src2_s));
    }
    for (addr, stride) in ops {
        let off = b.ins().imul(last, stride);
        let end = b.ins().iadd(addr, off);
        let end = b.ins().iadd(end, row_bytes);
        let c = b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, len);
        ok2 = b.ins().band(ok2, c);
    }
    let zero = b.ins().iconst(types::I64, 0);
    b.ins().brif(ok2, row_head, &[zero.into()], ret_bad, &[]);

    // row loop: row_head(r); per row the base pointers of the three operands are
    // computed once and carried by the column blocks: (r, c, pd, pa, pb)
    b.append_block_param(row_head, types::I64);
    let col_head = b.create_block();
    let vec2_body = b.create_block();
    let vec_head = b.create_block();
    let vec_body = b.create_block();
    let tail_head = b.create_block();
    let tail_body = b.create_block();
    let row_next = b.create_block();
    for blk in [
        col_head, vec2_body, vec_head, vec_body, tail_head, tail_body,
    ] {
        b.append_block_param(blk, types::I64); // r
        b.append_block_param(blk, types::I64); // c
        for _ in 0..3 {
            b.append_block_param(blk, ptr); // pd, pa, pb
        }
    }
    b.append_block_param(row_next, types::I64);

    let row_ptr = |b: &mut FunctionBuilder, addr: Value, stride: Value, r: Value| -> Value {
        let ro = b.ins().imul(r, stride);
        let o = b.ins().iadd(addr, ro);
        let o = if ptr == types::I64 {
            o
        } else {
            b.ins().ireduce(ptr, o)
        };
        b.ins().iadd(base, o)
    };
    b.switch_to_block(row_head);
    let r = b.block_params(row_head)[0];
    let more = b.ins().icmp(IntCC::SignedLessThan, r, rows);
    let row_body = b.create_block();
    b.ins().brif(more, row_body, &[], ret_ok, &[]);
    b.switch_to_block(row_body);
    let pd = row_ptr(b, dst, dst_s, r);
    let pa = row_ptr(b, src, src_s, r);
    let pb = if binary {
        row_ptr(b, src2, src2_s, r)
    } else {
        pa
    };
    let c_zero = b.ins().iconst(types::I64, 0);
    b.ins().jump(
        col_head,
        &[r.into(), c_zero.into(), pd.into(), pa.into(), pb.into()],
    );

    let params = |b: &mut FunctionBuilder, blk| -> (Value, Value, Value, Value, Value) {
        let p = b.block_params(blk);
        (p[0], p[1], p[2], p[3], p[4])
    };
    let at = |b: &mut FunctionBuilder, p: Value, c: Value, extra: i64| -> Value {
        let o = b.ins().ishl_imm_u(c, 2);
        let o = if ptr == types::I64 {
            o
        } else {
            b.ins().ireduce(ptr, o)
        };
        let a = b.ins().iadd(p, o);
        if extra == 0 {
            a
        } else {
            b.ins().iadd_imm_s(a, extra)
        }
    };
    let scalar_of = |b: &mut FunctionBuilder, cx: &Ctx| -> Value {
        let low = b.ins().ireduce(types::I32, sbits);
        match cx.lane {
            Lane::F32 => b.ins().bitcast(types::F32, MemFlagsData::new(), low),
            Lane::I32 => low,
        }
    };
    let hf = heap_flags();
    let vt = cx.vec_ty();
    // one vector step at column c (+ byte offset extra) of the row pointers
    let vstep = |b: &mut FunctionBuilder, c: Value, pd: Value, pa: Value, pb: Value, extra: i32| {
        let a_at = at(b, pa, c, 0);
        let va = b.ins().load(vt, hf, a_at, extra);
        let vb = if binary {
            let b_at = at(b, pb, c, 0);
            b.ins().load(vt, hf, b_at, extra)
        } else if has_scalar {
            let s = scalar_of(b, &cx);
            b.ins().splat(vt, s)
        } else {
            va
        };
        let vr = if cx.operands == Operands::ScalarLeft {
            cx.apply(b, vt, vb, va)
        } else {
            cx.apply(b, vt, va, vb)
        };
        let d_at = at(b, pd, c, 0);
        b.ins().store(hf, vr, d_at, extra);
    };

    // col_head: two vectors (8 lanes) left?
    b.switch_to_block(col_head);
    let (r, c, pd, pa, pb) = params(b, col_head);
    let c8 = b.ins().iadd_imm_s(c, 8);
    let fits = b.ins().icmp(IntCC::SignedLessThanOrEqual, c8, cols);
    let args5 = [r.into(), c.into(), pd.into(), pa.into(), pb.into()];
    b.ins().brif(fits, vec2_body, &args5, vec_head, &args5);

    b.switch_to_block(vec2_body);
    let (r, c, pd, pa, pb) = params(b, vec2_body);
    vstep(b, c, pd, pa, pb, 0);
    vstep(b, c, pd, pa, pb, 16);
    let c8 = b.ins().iadd_imm_s(c, 8);
    b.ins().jump(
        col_head,
        &[r.into(), c8.into(), pd.into(), pa.into(), pb.into()],
    );

    // vec_head: one vector (4 lanes) left?
    b.switch_to_block(vec_head);
    let (r, c, pd, pa, pb) = params(b, vec_head);
    let c4 = b.ins().iadd_imm_s(c, 4);
    let fits = b.ins().icmp(IntCC::SignedLessThanOrEqual, c4, cols);
    let args5 = [r.into(), c.into(), pd.into(), pa.into(), pb.into()];
    b.ins().brif(fits, vec_body, &args5, tail_head, &args5);

    b.switch_to_block(vec_body);
    let (r, c, pd, pa, pb) = params(b, vec_body);
    vstep(b, c, pd, pa, pb, 0);
    let c4 = b.ins().iadd_imm_s(c, 4);
    b.ins().jump(
        tail_head,
        &[r.into(), c4.into(), pd.into(), pa.into(), pb.into()],
    );

    // tail_head: scalar elements left?
    b.switch_to_block(tail_head);
    let (r, c, pd, pa, pb) = params(b, tail_head);
    let left = b.ins().icmp(IntCC::SignedLessThan, c, cols);
    b.ins().brif(
        left,
        tail_body,
        &[r.into(), c.into(), pd.into(), pa.into(), pb.into()],
        row_next,
        &[r.into()],
    );

    b.switch_to_block(tail_body);
    let (r, c, pd, pa, pb) = params(b, tail_body);
    let st = cx.scalar_ty();
    let a_at = at(b, pa, c, 0);
    let xa = b.ins().load(st, hf, a_at, 0);
    let xb = if binary {
        let b_at = at(b, pb, c, 0);
        b.ins().load(st, hf, b_at, 0)
    } else if has_scalar {
        scalar_of(b, &cx)
    } else {
        xa
    };
    let xr = if cx.operands == Operands::ScalarLeft {
        cx.apply(b, st, xb, xa)
    } else {
        cx.apply(b, st, xa, xb)
    };
    let d_at = at(b, pd, c, 0);
    b.ins().store(hf, xr, d_at, 0);
    let c1 = b.ins().iadd_imm_s(c, 1);
    b.ins().jump(
        tail_head,
        &[r.into(), c1.into(), pd.into(), pa.into(), pb.into()],
    );

    // row_next(r)
    b.switch_to_block(row_next);
    let r = b.block_params(row_next)[0];
    let r1 = b.ins().iadd_imm_s(r, 1);
    b.ins().jump(row_head, &[r1.into()]);

    b.switch_to_block(ret_ok);
    let z = b.ins().iconst(types::I32, 0);
    b.ins().return_(&[z]);
    b.switch_to_block(ret_bad);
    let one = b.ins().iconst(types::I32, 1);
    b.ins().return_(&[one]);
}
