//! Cranelift code generation. Every `unsafe` block of the JIT is in this file.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, AbiParam, BlockArg, ConstantData, InstBuilder, MemFlagsData, Type, UserFuncName, Value,
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

/// Entry of a vector-scope region: (state, ub base, ub len, sink, callback) -> status.
type ScopeFn = unsafe extern "C" fn(*mut u64, *mut u8, u64, *mut u8, *const u8) -> u32;

/// What a vector-scope region reports through its callback: `kind` 2 is a
/// store under the mask at `mask` with lanes of `es` bytes, 4 a batch of `es`
/// access-log entries at `mask` (see `vscope::drain`).
pub type AccessFn = extern "C" fn(*mut u8, u32, u64, *const u8, u32, u32) -> u32;

/// Finalized machine code and the module that owns it.
pub struct Code {
    module: Option<JITModule>,
    /// Code loaded from `--jit-cache` (owns `f` when `module` is `None`).
    _loaded: Option<memmap2::Mmap>,
    f: *const u8,
}

// SAFETY: after `finalize_definitions` the module's code and data are immutable,
// and code loaded from the cache lives in a read-only executable mapping;
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
    /// Calls an elementwise region on `mem`.
    pub fn call(&self, mem: &mut [u8], args: &[i64; ARG_COUNT]) -> u32 {
        // SAFETY: `build` made `f` from a function with the (ptr, i64, ptr) -> i32
        // signature of `RegionFn` (compiled now, or loaded from `--jit-cache`:
        // the bytes Cranelift produced for this exact IR, ISA and version,
        // without relocations, checksummed; see `cache`). The generated code reads exactly ARG_COUNT i64
        // values from `args`, and touches `mem` only after checking at entry that
        // every address it will form lies in `[mem.as_ptr(), mem.as_ptr() + mem.len())`;
        // `mem` is exclusively borrowed for the duration of the call.
        unsafe {
            let f = std::mem::transmute::<*const u8, RegionFn>(self.f);
            f(mem.as_mut_ptr(), mem.len() as u64, args.as_ptr())
        }
    }

    /// Calls a region whose code reads `need` i64 arguments (a fused chain,
    /// `crate::chain`); a shorter `args` is refused with `u32::MAX`.
    pub fn call_args(&self, mem: &mut [u8], args: &[i64], need: usize) -> u32 {
        if args.len() < need {
            return u32::MAX;
        }
        // SAFETY: as `call`: the function has the `RegionFn` signature, reads
        // `need` i64 values from `args` (checked just above), and touches `mem`
        // only after proving at entry that every address lies inside it.
        unsafe {
            let f = std::mem::transmute::<*const u8, RegionFn>(self.f);
            f(mem.as_mut_ptr(), mem.len() as u64, args.as_ptr())
        }
    }

    /// Calls a vector-scope region (`crate::vscope`). `state` must have the
    /// region's layout; `sink` is handed back to `cb` unchanged.
    pub fn call_scope(
        &self,
        state: &mut [u64],
        mem: &mut [u8],
        sink: *mut u8,
        cb: AccessFn,
        state_words: usize,
    ) -> u32 {
        if state.len() < state_words {
            return u32::MAX;
        }
        // SAFETY: `vscope::compile` made `f` from a function with the signature
        // of `ScopeFn` (compiled now or loaded from `--jit-cache`, as in `call`). The code reads and writes `state` only at offsets below
        // `state_words` words (its layout), checked just above; it touches `mem`
        // only at addresses it has checked against `mem.len()` first (each load
        // and store branches to an exit block otherwise). `sink` is only passed
        // on to `cb`, a safe Rust function.
        unsafe {
            let f = std::mem::transmute::<*const u8, ScopeFn>(self.f);
            f(
                state.as_mut_ptr(),
                mem.as_mut_ptr(),
                mem.len() as u64,
                sink,
                cb as *const u8,
            )
        }
    }
}

/// Runs `f` on the `T` behind `p` (the sink a scope call was given).
pub(crate) fn with_sink<T>(p: *mut u8, f: impl FnOnce(&mut T)) {
    // SAFETY: `p` is the `sink` argument of the `call_scope` this callback runs
    // under: `vscope::ScopeCompiled::call` passes a pointer to a live, exclusively
    // borrowed `T` (its `SinkRef`) and instantiates this function with that `T`;
    // nothing else holds a reference to it while compiled code runs.
    if let Some(t) = unsafe { p.cast::<T>().as_mut() } {
        f(t)
    }
}

/// The 32-byte mask at `p` (null: none).
pub(crate) fn mask_bytes<'a>(p: *const u8) -> Option<&'a [u8; 32]> {
    // SAFETY: compiled scope code passes either null or the address of a mask
    // slot inside the state buffer (32 bytes, 8-byte aligned, alive and not
    // written for the duration of the callback).
    unsafe { p.cast::<[u8; 32]>().as_ref() }
}

/// The first `n` two-word entries of the access log at `p`.
pub(crate) fn log_entries<'a>(p: *const u8, n: usize) -> &'a [u64] {
    if p.is_null() {
        return &[];
    }
    // SAFETY: compiled scope code passes the address of the log area of its
    // state buffer (8-byte aligned, `2 * LOG_CAP` words, alive for the call) and
    // the number of entries written, at most `LOG_CAP`; the code does not write
    // the log while the callback runs.
    unsafe { std::slice::from_raw_parts(p.cast::<u64>(), 2 * n.min(crate::vscope::LOG_CAP)) }
}

fn err<E: std::fmt::Display>(e: E) -> Reject {
    Reject::Codegen(e.to_string())
}

/// A JIT module for the host ISA.
pub(crate) fn new_module() -> Result<JITModule, Reject> {
    let mut fb = settings::builder();
    fb.set("use_colocated_libcalls", "false").map_err(err)?;
    fb.set("is_pic", "false").map_err(err)?;
    fb.set("opt_level", "speed").map_err(err)?;
    // Cranelift's IR verifier takes about a third of a region's compile
    // time; it runs in debug builds (where the test suites run) and when
    // PTOVM_JIT_VERIFY is set.
    let verify = cfg!(debug_assertions) || std::env::var_os("PTOVM_JIT_VERIFY").is_some();
    fb.set("enable_verifier", if verify { "true" } else { "false" })
        .map_err(err)?;
    let isa = cranelift_native::builder()
        .map_err(err)?
        .finish(settings::Flags::new(fb))
        .map_err(err)?;
    Ok(JITModule::new(JITBuilder::with_isa(
        isa,
        default_libcall_names(),
    )))
}

/// Compiles the function in `ctx` as `id` of `module` and finalizes it.
pub(crate) fn finish(
    mut module: JITModule,
    mut ctx: cranelift_codegen::Context,
    id: cranelift_module::FuncId,
    what: &str,
) -> Result<(Code, usize), Reject> {
    let disasm = std::env::var_os("PTOVM_JIT_DISASM").is_some();
    let cache = crate::cache::dir().map(|d| (d, cache_key(&module, &ctx)));
    if let Some((d, key)) = &cache {
        if let Some(code) = crate::cache::load(d, key).and_then(|c| executable(&c)) {
            let size = code.len();
            let f = code.as_ptr();
            return Ok((
                Code {
                    module: None,
                    _loaded: Some(code),
                    f,
                },
                size,
            ));
        }
    }
    ctx.set_disasm(disasm);
    module
        .define_function(id, &mut ctx)
        .map_err(|e| Reject::Codegen(format!("{e:?}")))?;
    if disasm {
        if let Some(text) = ctx.compiled_code().and_then(|c| c.vcode.as_ref()) {
            eprintln!("; pto-jit region {what}\n{text}");
        }
    }
    let size = ctx
        .compiled_code()
        .map(|c| c.code_buffer().len())
        .unwrap_or(0);
    if let (Some((d, key)), Some(c)) = (&cache, ctx.compiled_code()) {
        // only position-independent code can be copied elsewhere and run
        if c.buffer.relocs().is_empty() {
            crate::cache::store(d, key, c.code_buffer());
        }
    }
    module.clear_context(&mut ctx);
    module.finalize_definitions().map_err(err)?;
    let f = module.get_finalized_function(id);
    Ok((
        Code {
            module: Some(module),
            _loaded: None,
            f,
        },
        size,
    ))
}

/// What a region's machine code depends on: the Cranelift version, the
/// target and its flags, and the function's IR.
fn cache_key(module: &JITModule, ctx: &cranelift_codegen::Context) -> String {
    use cranelift_module::Module;
    let isa = module.isa();
    let mut k = format!(
        "pto-jit {} cranelift {CRANELIFT_VERSION}\n{}\n{}\n",
        env!("CARGO_PKG_VERSION"),
        isa.triple(),
        isa.flags()
    );
    for v in isa.isa_flags() {
        k.push_str(&format!("{v}\n"));
    }
    k.push_str(&ctx.func.display().to_string());
    k
}

/// Fresh executable memory holding `code`.
fn executable(code: &[u8]) -> Option<memmap2::Mmap> {
    let mut m = memmap2::MmapMut::map_anon(code.len()).ok()?;
    m.copy_from_slice(code);
    m.make_exec().ok()
}

/// Builds the machine code for a region; returns it and its size in bytes.
pub fn build(r: &Region) -> Result<(Code, usize), Reject> {
    if matches!(r.lane, Lane::F16 | Lane::BF16) {
        return build_with(&format!("{r:?}"), |b, ptr| crate::half::emit(b, r, ptr));
    }
    build_with(&format!("{r:?}"), |b, ptr| emit(b, r, ptr))
}

/// Builds a function of the elementwise signature `(base, len, args) ->
/// status` whose body `body` emits (given the pointer type); `what` names it
/// for `PTOVM_JIT_DISASM`.
pub(crate) fn build_with(
    what: &str,
    body: impl FnOnce(&mut FunctionBuilder, Type),
) -> Result<(Code, usize), Reject> {
    let mut module = new_module()?;
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
        body(&mut b, ptr);
        b.seal_all_blocks();
        b.finalize(module.target_config());
    }
    finish(module, ctx, id, what)
}

pub(crate) struct Ctx {
    pub(crate) lane: Lane,
    pub(crate) op: Op,
    pub(crate) operands: Operands,
}

impl Ctx {
    fn scalar_ty(&self) -> Type {
        match self.lane {
            Lane::I32 => types::I32,
            // half lanes compute in f32 (crate::half)
            Lane::F32 | Lane::F16 | Lane::BF16 => types::F32,
        }
    }

    fn vec_ty(&self) -> Type {
        match self.lane {
            Lane::I32 => types::I32X4,
            Lane::F32 | Lane::F16 | Lane::BF16 => types::F32X4,
        }
    }

    /// The operation on scalars or vectors (`ty` is the value type).
    pub(crate) fn apply(&self, b: &mut FunctionBuilder, ty: Type, x: Value, y: Value) -> Value {
        let fl = self.lane != Lane::I32;
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
            Op::Abs if fl => {
                let r = self.sign_op(b, ty, x, false);
                self.quiet_nans(b, ty, x, r)
            }
            Op::Abs => b.ins().iabs(x),
            Op::Neg if fl => {
                let r = self.sign_op(b, ty, x, true);
                self.quiet_nans(b, ty, x, r)
            }
            Op::Neg => b.ins().ineg(x),
            Op::Sqrt => b.ins().sqrt(x),
            Op::Rsqrt => self.rsqrt(b, ty, x),
            Op::Recip => {
                let one = self.splat_f(b, ty, 1.0);
                b.ins().fdiv(one, x)
            }
            Op::Relu if fl => {
                let r = self.relu_f(b, ty, x);
                self.quiet_nans(b, ty, x, r)
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
            Op::Log => crate::mathf::log(b, ty, x),
            Op::Pow if fl => crate::mathf::pow(b, ty, x, y),
            Op::Pow => int_pow(b, ty, x, y),
        }
    }

    /// e^x on f32 lanes (see [`crate::EXP_ULP`]): x = n*ln2 + r with
    /// |r| <= ln2/2 (ln2 split in two so n*ln2 is exact), e^r by a degree-6
    /// polynomial (relative minimax on [-ln2/2, ln2/2], error 1.9e-9 before
    /// rounding), then scaled by 2^n. t = x*log2e + 1.5*2^23 (one fused
    /// rounding) holds n in its low mantissa bits, so no float-to-int
    /// conversion is needed, and since 1.5*2^23's bits end in 23 zeros,
    /// `bits(t) << 23` is already n in the exponent field.
    ///
    /// Vectors whose lanes all have |x| <= 86 (x*x <= 7396, false for NaN)
    /// take the fast scaling: an integer add to p's exponent, exact because
    /// the result is normal. Others take [`Ctx::exp_scale`], which scales in
    /// two factors so subnormal results round once and sets the overflow,
    /// underflow and NaN lanes; it gives the same result on normal lanes.
    fn exp(&self, b: &mut FunctionBuilder, ty: Type, x: Value) -> Value {
        let vector = ty.is_vector();
        let it = if vector { types::I32X4 } else { types::I32 };
        let f = |b: &mut FunctionBuilder, v: f32| self.splat_f(b, ty, v);
        let log2e = f(b, std::f32::consts::LOG2_E);
        let magic = f(b, 12_582_912.0);
        let t = b.ins().fma(x, log2e, magic);
        let nf = b.ins().fsub(t, magic);
        let t_bits = b.ins().bitcast(it, MemFlagsData::new(), t);
        // r = x - n*C1 - n*C2, C1 + C2 = ln 2 with C1 exact in few bits
        let c1 = f(b, -0.693_359_4);
        let c2 = f(b, 2.121_944_4e-4);
        let r = b.ins().fma(nf, c1, x);
        let r = b.ins().fma(nf, c2, r);
        // e^r ~ c0 + r (c1 + r (c2 + ... + r c6)), Horner with fused steps
        let coeffs: [u32; 7] = [
            0x3ab5_5cc0, // c6
            0x3c09_3686, // c5
            0x3d2a_ac4d, // c4
            0x3e2a_aa05, // c3
            0x3eff_fffd, // c2
            0x3f80_0000, // c1 = 1
            0x3f80_0000, // c0 = 1
        ];
        let mut p = f(b, f32::from_bits(coeffs[0]));
        for c in &coeffs[1..] {
            let cv = f(b, f32::from_bits(*c));
            p = b.ins().fma(p, r, cv);
        }
        let n = |b: &mut FunctionBuilder| -> Value {
            let c = b.ins().iconst(types::I32, 0x4b40_0000);
            let magic_bits = if vector { b.ins().splat(it, c) } else { c };
            b.ins().isub(t_bits, magic_bits)
        };
        if !vector {
            let n = n(b);
            return self.exp_scale(b, ty, x, n, p);
        }
        let pbits = b.ins().bitcast(it, MemFlagsData::new(), p);
        let e = b.ins().ishl_imm_u(t_bits, 23);
        let ybits = b.ins().iadd(pbits, e);
        let y_fast = b.ins().bitcast(ty, MemFlagsData::new(), ybits);
        let x2 = b.ins().fmul(x, x);
        let lim = f(b, 86.0 * 86.0);
        let outside = b.ins().fcmp(FloatCC::UnorderedOrGreaterThan, x2, lim);
        let any = b.ins().vany_true(outside);
        let general = b.create_block();
        let join = b.create_block();
        b.append_block_param(join, ty);
        b.ins().brif(any, general, &[], join, &[y_fast.into()]);
        b.switch_to_block(general);
        let n = n(b);
        let y = self.exp_scale(b, ty, x, n, p);
        b.ins().jump(join, &[y.into()]);
        b.switch_to_block(join);
        b.block_params(join)[0]
    }

    /// p * 2^n for any n, then +inf above x = 100 and 0 below x = -110, NaN
    /// staying NaN (the general tail of [`Ctx::exp`]).
    fn exp_scale(&self, b: &mut FunctionBuilder, ty: Type, x: Value, n: Value, p: Value) -> Value {
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

    /// 1/sqrt(x) on f32 lanes in f64 (both steps correctly rounded there),
    /// rounded to f32 once: what the interpreter computes.
    fn rsqrt(&self, b: &mut FunctionBuilder, ty: Type, x: Value) -> Value {
        if !ty.is_vector() {
            let d = b.ins().fpromote(types::F64, x);
            let s = b.ins().sqrt(d);
            let one = b.ins().f64const(1.0);
            let r = b.ins().fdiv(one, s);
            return b.ins().fdemote(types::F32, r);
        }
        let little = MemFlagsData::new().with_endianness(cranelift_codegen::ir::Endianness::Little);
        let half = |b: &mut FunctionBuilder, v: Value| -> Value {
            let d = b.ins().fvpromote_low(v);
            let s = b.ins().sqrt(d);
            let one = b.ins().f64const(1.0);
            let one = b.ins().splat(types::F64X2, one);
            let r = b.ins().fdiv(one, s);
            let r = b.ins().fvdemote(r);
            b.ins().bitcast(types::I8X16, little, r)
        };
        let lo = half(b, x);
        // lanes 2 and 3 moved down to 0 and 1
        let xb = b.ins().bitcast(types::I8X16, little, x);
        let swap: Vec<u8> = (8..16).chain(0..8).collect();
        let swap = b.func.dfg.immediates.push(ConstantData::from(swap));
        let up = b.ins().shuffle(xb, xb, swap);
        let up = b.ins().bitcast(types::F32X4, little, up);
        let hi = half(b, up);
        // low 8 bytes of each result
        let join: Vec<u8> = (0..8).chain(16..24).collect();
        let join = b.func.dfg.immediates.push(ConstantData::from(join));
        let r = b.ins().shuffle(lo, hi, join);
        b.ins().bitcast(ty, little, r)
    }

    fn splat_f(&self, b: &mut FunctionBuilder, ty: Type, v: f32) -> Value {
        let s = b.ins().f32const(v);
        if ty.is_vector() {
            b.ins().splat(ty, s)
        } else {
            s
        }
    }

    /// `r` (`x + y` or `x * y` on f32 lanes) with `x`'s NaN wherever `x` is
    /// a NaN, when `x` comes straight from a load. x86 returns the first
    /// operand's NaN when both are NaN, the interpreter's order; but
    /// Cranelift commutes an add or a multiply whose left operand is a load
    /// it can fold into the instruction (`addps y, [x]`), which hands back
    /// `y`'s NaN. Such lanes take `x`'s quieted bits explicitly (the second
    /// use of the load also keeps it from being folded).
    pub(crate) fn first_nan(b: &mut FunctionBuilder, x: Value, r: Value) -> Value {
        let loaded = match b.func.dfg.value_def(x) {
            cranelift_codegen::ir::ValueDef::Result(inst, _) => {
                b.func.dfg.insts[inst].opcode() == cranelift_codegen::ir::Opcode::Load
            }
            _ => false,
        };
        if !loaded {
            return r;
        }
        let fl = MemFlagsData::new();
        let ty = b.func.dfg.value_type(x);
        let ity = if ty.is_vector() {
            types::I32X4
        } else {
            types::I32
        };
        let nan = b.ins().fcmp(FloatCC::Unordered, x, x);
        let q = b.ins().iconst(types::I32, 0x0040_0000);
        let xi = b.ins().bitcast(ity, fl, x);
        let ri = b.ins().bitcast(ity, fl, r);
        let out = if ty.is_vector() {
            let q = b.ins().splat(ity, q);
            let xq = b.ins().bor(xi, q);
            let nan = b.ins().bitcast(ity, fl, nan);
            b.ins().bitselect(nan, xq, ri)
        } else {
            let xq = b.ins().bor(xi, q);
            b.ins().select(nan, xq, ri)
        };
        b.ins().bitcast(ty, fl, out)
    }

    /// `fneg(x)` (`neg`) or `fabs(x)`: the sign bit flipped or cleared. On
    /// vectors as an integer xor/and with one splatted constant, which the
    /// code keeps for the whole region; Cranelift lowers each vector
    /// `fabs`/`fneg` to its own all-ones-and-shift mask (two more
    /// instructions per 16 bytes). Same bits either way.
    fn sign_op(&self, b: &mut FunctionBuilder, ty: Type, x: Value, neg: bool) -> Value {
        if !ty.is_vector() {
            return if neg {
                b.ins().fneg(x)
            } else {
                b.ins().fabs(x)
            };
        }
        let fl = MemFlagsData::new();
        let xi = b.ins().bitcast(types::I32X4, fl, x);
        let c = b
            .ins()
            .iconst(types::I32, if neg { 0x8000_0000 } else { 0x7fff_ffff });
        let c = b.ins().splat(types::I32X4, c);
        let r = if neg {
            b.ins().bxor(xi, c)
        } else {
            b.ins().band(xi, c)
        };
        b.ins().bitcast(ty, fl, r)
    }

    /// `r` (abs, neg or relu of the f32 lanes `x`, which pass a NaN's bits
    /// through) with its NaN lanes quiet: the interpreter computes in f64, and
    /// the f32 -> f64 conversion quiets a signaling NaN, keeping its payload.
    fn quiet_nans(&self, b: &mut FunctionBuilder, ty: Type, x: Value, r: Value) -> Value {
        let fl = MemFlagsData::new();
        let nan = b.ins().fcmp(FloatCC::Unordered, x, x);
        let ity = if ty.is_vector() {
            types::I32X4
        } else {
            types::I32
        };
        let q = b.ins().iconst(types::I32, 0x0040_0000);
        let ri = b.ins().bitcast(ity, fl, r);
        let qi = if ty.is_vector() {
            let q = b.ins().splat(ity, q);
            let nan = b.ins().bitcast(ity, fl, nan);
            b.ins().band(nan, q)
        } else {
            let z = b.ins().iconst(types::I32, 0);
            b.ins().select(nan, q, z)
        };
        let ri = b.ins().bor(ri, qi);
        b.ins().bitcast(ty, fl, ri)
    }

    // IEEE 754-2019 maximum/minimum: NaN if either is NaN, +0 > -0. Cranelift's
    // fmax/fmin have these semantics but leave the NaN's sign and payload to the
    // host; the interpreter returns the canonical quiet NaN (0x7fc00000), so NaN
    // results are replaced by it.
    fn fmax(&self, b: &mut FunctionBuilder, ty: Type, x: Value, y: Value) -> Value {
        let r = b.ins().fmax(x, y);
        self.canonical_nan(b, ty, x, y, r)
    }

    fn fmin(&self, b: &mut FunctionBuilder, ty: Type, x: Value, y: Value) -> Value {
        let r = b.ins().fmin(x, y);
        self.canonical_nan(b, ty, x, y, r)
    }

    fn canonical_nan(
        &self,
        b: &mut FunctionBuilder,
        ty: Type,
        x: Value,
        y: Value,
        r: Value,
    ) -> Value {
        let uno = b.ins().fcmp(FloatCC::Unordered, x, y);
        let nan = self.splat_f(b, ty, f32::from_bits(0x7fc0_0000));
        if ty.is_vector() {
            let uno = b.ins().bitcast(ty, MemFlagsData::new(), uno);
            b.ins().bitselect(uno, nan, r)
        } else {
            b.ins().select(uno, nan, r)
        }
    }

    /// max(x, 0) keeping a NaN operand as it is (the interpreter's relu).
    fn relu_f(&self, b: &mut FunctionBuilder, ty: Type, x: Value) -> Value {
        let zero = self.splat_f(b, ty, 0.0);
        let keep = b.ins().fcmp(FloatCC::UnorderedOrGreaterThan, x, zero);
        if ty.is_vector() {
            let keep = b.ins().bitcast(ty, MemFlagsData::new(), keep);
            b.ins().bitselect(keep, x, zero)
        } else {
            b.ins().select(keep, x, zero)
        }
    }
}

/// i32 `x^y` as the interpreter's `int_pow`: square and multiply,
/// wrapping (the low 32 bits of its i64 result); a negative exponent gives
/// the truncated reciprocal: 1 for x = 1, +-1 for x = -1 (by the parity of
/// y), else 0 (0^-n included); 0^0 = 1. The loop runs while any lane has
/// exponent bits left (negative exponents count as none), scalar or i32x4.
fn int_pow(b: &mut FunctionBuilder, ty: Type, x: Value, y: Value) -> Value {
    let vector = ty.is_vector();
    let k = |b: &mut FunctionBuilder, v: i64| {
        let c = b.ins().iconst(types::I32, v);
        if vector {
            b.ins().splat(ty, c)
        } else {
            c
        }
    };
    let sel = |b: &mut FunctionBuilder, c: Value, t: Value, f: Value| {
        if vector {
            b.ins().bitselect(c, t, f)
        } else {
            b.ins().select(c, t, f)
        }
    };
    let zero = k(b, 0);
    let one = k(b, 1);
    let m1 = k(b, -1);
    let neg = b.ins().icmp(IntCC::SignedLessThan, y, zero);
    let odd = b.ins().band(y, one);
    let odd = b.ins().icmp(IntCC::NotEqual, odd, zero);
    let is_one = b.ins().icmp(IntCC::Equal, x, one);
    let is_m1 = b.ins().icmp(IntCC::Equal, x, m1);
    let sign = sel(b, odd, m1, one);
    let r = sel(b, is_m1, sign, zero);
    let neg_res = sel(b, is_one, one, r);
    let e0 = sel(b, neg, zero, y);

    let head = b.create_block();
    let body = b.create_block();
    let done = b.create_block();
    for blk in [head, body] {
        for _ in 0..3 {
            b.append_block_param(blk, ty);
        }
    }
    b.append_block_param(done, ty);
    b.ins().jump(head, &[one.into(), x.into(), e0.into()]);

    b.switch_to_block(head);
    let p = b.block_params(head).to_vec();
    let left = if vector {
        b.ins().vany_true(p[2])
    } else {
        b.ins().icmp_imm_s(IntCC::NotEqual, p[2], 0)
    };
    let all: Vec<BlockArg> = p.iter().map(|&v| BlockArg::from(v)).collect();
    b.ins().brif(left, body, &all, done, &[p[0].into()]);

    b.switch_to_block(body);
    let p = b.block_params(body).to_vec();
    let (res, base, e) = (p[0], p[1], p[2]);
    let bit = b.ins().band(e, one);
    let set = b.ins().icmp(IntCC::NotEqual, bit, zero);
    let prod = b.ins().imul(res, base);
    let res = sel(b, set, prod, res);
    let base = b.ins().imul(base, base);
    let e = b.ins().ushr_imm_u(e, 1);
    b.ins().jump(head, &[res.into(), base.into(), e.into()]);

    b.switch_to_block(done);
    let res = b.block_params(done)[0];
    sel(b, neg, neg_res, res)
}

pub(crate) fn heap_flags() -> MemFlagsData {
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
    let row_head = b.create_block();

    // every operand below 2^32, a non-empty domain, each operand's last row
    // within len
    let row_bytes = b.ins().imul_imm_s(cols, 4);
    let mut used = vec![dst, dst_s, src, src_s, rows, cols];
    let mut ext = vec![(dst, dst_s, row_bytes), (src, src_s, row_bytes)];
    if binary {
        used.extend([src2, src2_s]);
        ext.push((src2, src2_s, row_bytes));
    }
    prove_rows(b, &used, rows, cols, len, &ext, ret_ok, ret_bad);
    let zero = b.ins().iconst(types::I64, 0);
    b.ins().jump(row_head, &[zero.into()]);

    // Row loop: row_head(r). Per row the host pointers of the three operands
    // are computed once; the column loops carry them (pd, pa, pb) and stop at
    // the row's end pointer of the destination. The main loop does `unroll`
    // vectors per iteration at constant offsets (one pointer bump each), then
    // single vectors, then scalar elements.
    b.append_block_param(row_head, types::I64);
    let main_head = b.create_block();
    let main_body = b.create_block();
    let vec_head = b.create_block();
    let vec_body = b.create_block();
    let tail_head = b.create_block();
    let tail_body = b.create_block();
    let row_next = b.create_block();
    for blk in [
        main_head, main_body, vec_head, vec_body, tail_head, tail_body,
    ] {
        for _ in 0..3 {
            b.append_block_param(blk, ptr); // pd, pa, pb
        }
    }

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
    let to_ptr = |b: &mut FunctionBuilder, v: Value| -> Value {
        if ptr == types::I64 {
            v
        } else {
            b.ins().ireduce(ptr, v)
        }
    };
    let r = row_body(b, row_head, rows, ret_ok);
    let pd = row_ptr(b, dst, dst_s, r);
    let pa = row_ptr(b, src, src_s, r);
    let pb = if binary {
        row_ptr(b, src2, src2_s, r)
    } else {
        pa
    };
    // the row's end for the destination (the loops compare pd against it)
    let rb = to_ptr(b, row_bytes);
    let d_end = b.ins().iadd(pd, rb);
    b.ins().jump(main_head, &[pd.into(), pa.into(), pb.into()]);

    let params = |b: &mut FunctionBuilder, blk| -> (Value, Value, Value) {
        let p = b.block_params(blk);
        (p[0], p[1], p[2])
    };
    let scalar_of = |b: &mut FunctionBuilder, cx: &Ctx| -> Value {
        let low = b.ins().ireduce(types::I32, sbits);
        match cx.lane {
            Lane::I32 => low,
            _ => b.ins().bitcast(types::F32, MemFlagsData::new(), low),
        }
    };
    let hf = heap_flags();
    let vt = cx.vec_ty();
    // one vector at byte offset `off` of the operand pointers
    let vstep = |b: &mut FunctionBuilder, pd: Value, pa: Value, pb: Value, off: i32| {
        let va = b.ins().load(vt, hf, pa, off);
        let vb = if binary {
            b.ins().load(vt, hf, pb, off)
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
        b.ins().store(hf, vr, pd, off);
    };
    let bump = |b: &mut FunctionBuilder, pd: Value, pa: Value, pb: Value, by: i64| {
        let pd = b.ins().iadd_imm_s(pd, by);
        let pa = b.ins().iadd_imm_s(pa, by);
        let pb = if binary {
            b.ins().iadd_imm_s(pb, by)
        } else {
            pa
        };
        [pd.into(), pa.into(), pb.into()]
    };
    // the polynomial of exp needs its registers: fewer vectors per iteration
    let unroll: i64 = if matches!(cx.op, Op::Exp | Op::Log | Op::Pow) {
        2
    } else {
        8
    };

    // main_head: `unroll` vectors left in the row?
    b.switch_to_block(main_head);
    let (pd, pa, pb) = params(b, main_head);
    let next = b.ins().iadd_imm_s(pd, unroll * 16);
    let fits = b.ins().icmp(IntCC::UnsignedLessThanOrEqual, next, d_end);
    let args3 = [pd.into(), pa.into(), pb.into()];
    b.ins().brif(fits, main_body, &args3, vec_head, &args3);

    b.switch_to_block(main_body);
    let (pd, pa, pb) = params(b, main_body);
    for k in 0..unroll {
        vstep(b, pd, pa, pb, (k * 16) as i32);
    }
    let nx = bump(b, pd, pa, pb, unroll * 16);
    b.ins().jump(main_head, &nx);

    // vec_head: one vector (4 lanes) left?
    b.switch_to_block(vec_head);
    let (pd, pa, pb) = params(b, vec_head);
    let next = b.ins().iadd_imm_s(pd, 16);
    let fits = b.ins().icmp(IntCC::UnsignedLessThanOrEqual, next, d_end);
    let args3 = [pd.into(), pa.into(), pb.into()];
    b.ins().brif(fits, vec_body, &args3, tail_head, &args3);

    b.switch_to_block(vec_body);
    let (pd, pa, pb) = params(b, vec_body);
    vstep(b, pd, pa, pb, 0);
    let nx = bump(b, pd, pa, pb, 16);
    b.ins().jump(vec_head, &nx);

    // tail_head: scalar elements left?
    b.switch_to_block(tail_head);
    let (pd, pa, pb) = params(b, tail_head);
    let left = b.ins().icmp(IntCC::UnsignedLessThan, pd, d_end);
    b.ins().brif(
        left,
        tail_body,
        &[pd.into(), pa.into(), pb.into()],
        row_next,
        &[],
    );

    b.switch_to_block(tail_body);
    let (pd, pa, pb) = params(b, tail_body);
    let st = cx.scalar_ty();
    let xa = b.ins().load(st, hf, pa, 0);
    let xb = if binary {
        b.ins().load(st, hf, pb, 0)
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
    b.ins().store(hf, xr, pd, 0);
    let nx = bump(b, pd, pa, pb, 4);
    b.ins().jump(tail_head, &nx);

    // row_next: the row after r
    b.switch_to_block(row_next);
    let r1 = b.ins().iadd_imm_s(r, 1);
    b.ins().jump(row_head, &[r1.into()]);

    emit_exits(b, ret_ok, ret_bad);
}

/// The entry proof of every row-loop region, emitted in the current block:
/// each value of `small` below 2^32 (so no product of two overflows), an
/// empty `rows` x `cols` domain returns through `ret_ok`, and for every
/// `(address, row stride, bytes of one row)` the last row ends within `len`.
/// Anything else branches to `ret_bad`; the builder is left in the block
/// reached when all of it holds.
#[allow(clippy::too_many_arguments)]
pub(crate) fn prove_rows(
    b: &mut FunctionBuilder,
    small: &[Value],
    rows: Value,
    cols: Value,
    len: Value,
    extents: &[(Value, Value, Value)],
    ret_ok: cranelift_codegen::ir::Block,
    ret_bad: cranelift_codegen::ir::Block,
) {
    let mut ok = b.ins().iconst(types::I8, 1);
    for v in small {
        let c = b.ins().icmp_imm_s(IntCC::UnsignedLessThan, *v, 1i64 << 32);
        ok = b.ins().band(ok, c);
    }
    let check_empty = b.create_block();
    b.ins().brif(ok, check_empty, &[], ret_bad, &[]);
    b.switch_to_block(check_empty);
    let r0 = b.ins().icmp_imm_s(IntCC::Equal, rows, 0);
    let c0 = b.ins().icmp_imm_s(IntCC::Equal, cols, 0);
    let empty = b.ins().bor(r0, c0);
    let nonempty = b.create_block();
    b.ins().brif(empty, ret_ok, &[], nonempty, &[]);
    b.switch_to_block(nonempty);
    let last = b.ins().iadd_imm_s(rows, -1);
    let mut ok2 = b.ins().iconst(types::I8, 1);
    for (addr, stride, size) in extents {
        let off = b.ins().imul(last, *stride);
        let end = b.ins().iadd(*addr, off);
        let end = b.ins().iadd(end, *size);
        let c = b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, len);
        ok2 = b.ins().band(ok2, c);
    }
    let proven = b.create_block();
    b.ins().brif(ok2, proven, &[], ret_bad, &[]);
    b.switch_to_block(proven);
}

/// Switches to `row_head(r)` and, while `r < rows`, into a new block for the
/// row's body (else to `ret_ok`); returns `r`.
pub(crate) fn row_body(
    b: &mut FunctionBuilder,
    row_head: cranelift_codegen::ir::Block,
    rows: Value,
    ret_ok: cranelift_codegen::ir::Block,
) -> Value {
    b.switch_to_block(row_head);
    let r = b.block_params(row_head)[0];
    let more = b.ins().icmp(IntCC::SignedLessThan, r, rows);
    let body = b.create_block();
    b.ins().brif(more, body, &[], ret_ok, &[]);
    b.switch_to_block(body);
    r
}

/// The two exits of a row-loop region: `ret_ok` returns 0 (ran to the end),
/// `ret_bad` returns 1 (an operand outside the buffer; nothing written).
pub(crate) fn emit_exits(
    b: &mut FunctionBuilder,
    ret_ok: cranelift_codegen::ir::Block,
    ret_bad: cranelift_codegen::ir::Block,
) {
    b.switch_to_block(ret_ok);
    let z = b.ins().iconst(types::I32, 0);
    b.ins().return_(&[z]);
    b.switch_to_block(ret_bad);
    let one = b.ins().iconst(types::I32, 1);
    b.ins().return_(&[one]);
}
