//! `pto-jit`: compiles hot regions of PTO kernels to native code with Cranelift.
//!
//! The interface is narrow: [`compile`] turns a [`Region`] into a [`Compiled`]
//! function or says why not ([`Reject`]); [`Compiled::call`] runs it on a byte
//! buffer and returns a [`Status`]. Cranelift types never leave this crate.
//!
//! Every compiled function has one signature, `(base, len, args) -> status`:
//! `base`/`len` are the buffer the region may touch (a core's UB), `args` an
//! array of i64 operands. Compiled code never traps: it proves at entry that
//! every address it will touch lies inside `[base, base+len)` and returns
//! [`Status::OutOfBounds`] otherwise.
//!
//! Region kinds so far: one tile elementwise op (binary, unary, or with a scalar
//! operand) over row-major tiles of f32 or i32, as 128-bit vector loops with a
//! scalar tail (Cranelift's x86-64 backend emits 128-bit vectors only); a
//! fused chain of such ops over one iteration domain as one loop ([`chain`]),
//! f32, i32, f16 or bf16 lanes.

#![allow(unsafe_code)]

mod cache;
pub mod chain;
mod codegen;
pub mod cvt;
mod ewhalf;
mod ewwide;
mod gemm;
mod half;
mod halftable;
mod lines;
mod mathf;
mod powwide;
pub mod rowred;
pub mod vscope;

pub use cache::{cache_stats, set_cache_dir, CacheStats};
pub use codegen::{ARG_COUNT, CRANELIFT_VERSION};
pub use cvt::{compile_cvt, Cvt, CvtCompiled};
pub use gemm::{
    f16_to_f32, f32_from_le, f32_to_le, has_f16c, matmul_f32, matmul_f32_in, matmul_f32_le,
    matmul_i32_wrapping, matmul_isa, transpose8, transpose8_f16, transpose8_f16_strided,
    transpose8_f32, transpose8_strided, Form, Lhs, ShapeError,
};
pub use rowred::{compile_col, compile_row, RedLane, RedOp, RowArgs, RowCompiled, RowRed};

/// Lane type of an elementwise region.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lane {
    /// 32-bit float.
    F32,
    /// 32-bit two's-complement integer (wrapping).
    I32,
    /// IEEE binary16, computed in f32 and rounded to nearest even (see `half`).
    F16,
    /// bfloat16, computed in f32 and rounded to nearest even.
    BF16,
}

impl Lane {
    /// Bytes per element.
    pub fn bytes(self) -> i64 {
        match self {
            Lane::F32 | Lane::I32 => 4,
            Lane::F16 | Lane::BF16 => 2,
        }
    }
}

/// The operation of an elementwise region.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// a + b
    Add,
    /// a - b
    Sub,
    /// a * b
    Mul,
    /// a / b (floats only)
    Div,
    /// max (NaN-propagating for floats, +0 > -0)
    Max,
    /// min
    Min,
    /// |a|
    Abs,
    /// -a
    Neg,
    /// sqrt (floats only)
    Sqrt,
    /// 1/a (floats only)
    Recip,
    /// 1/sqrt(a) (floats only), computed in f64 and rounded once, as the
    /// interpreter does: bit-identical
    Rsqrt,
    /// max(a, 0)
    Relu,
    /// bitwise and (integers)
    And,
    /// bitwise or (integers)
    Or,
    /// bitwise xor (integers)
    Xor,
    /// e^x (floats only; within [`EXP_ULP`] units in the last place)
    Exp,
    /// ln x (floats only; within [`LOG_ULP`] units in the last place; special
    /// values exactly as the interpreter)
    Log,
    /// a^b (tile-tile or tile-scalar right: `tpow`, `tpows`; f32 within
    /// [`POW_ULP`] units in the last place, special values exactly as the
    /// interpreter's f64 `powf`; i32 exactly as the interpreter: wrapping,
    /// negative exponents the truncated reciprocal)
    Pow,
}

/// Largest difference, in units in the last place of the f32 result, between
/// the compiled `Exp` and the correctly rounded e^x, subnormal results
/// included (a test sweeps 200,001 points of [-104, 89] plus the special
/// values; the largest error it finds is 1 ulp).
pub const EXP_ULP: u32 = 2;

/// Largest difference, in units in the last place of the f32 result, between
/// the compiled `Log` and the correctly rounded ln x (a test sweeps every
/// 509th f32 bit pattern, subnormals, zeros, negatives, infinities and NaNs
/// included, and requires the special values bit-identical; the largest
/// error it finds is 1 ulp, as did a sweep of every 61st pattern, 70 million).
pub const LOG_ULP: u32 = 2;

/// Largest difference, in units in the last place of the f16/bf16 result,
/// between the compiled `Exp` on 16-bit lanes (the f32 exp, within
/// [`EXP_ULP`] f32 ulps, rounded to the half type) and the interpreter's
/// (f64 exp rounded once): a test runs all 65536 patterns of each type and
/// finds no difference (0 ulp) on x86-64 glibc; the bound leaves room for a
/// C library whose exp rounds a near-halfway case the other way.
pub const HALF_EXP_ULP: u32 = 1;

/// Largest difference, in units in the last place of the f16/bf16 result,
/// between the compiled `Log` on 16-bit lanes (the f32 log, within
/// [`LOG_ULP`] f32 ulps, rounded to the half type) and the interpreter's
/// (f64 ln rounded once); special values (zeros, negatives, infinities,
/// NaN, ln 1) exactly. A test runs all 65536 patterns of each type (see
/// `half::tests`).
pub const HALF_LOG_ULP: u32 = 1;

/// Largest difference, in units in the last place of the f16/bf16 result,
/// between the compiled `Rsqrt` on 16-bit lanes (1/sqrt in f64 rounded to
/// f32, then to the half type: two roundings) and the interpreter's (one
/// rounding from f64); special values exactly. A test runs all 65536
/// patterns of each type (see `half::tests`).
pub const HALF_RSQRT_ULP: u32 = 1;

/// Largest difference, in units in the last place of the f32 result,
/// between the compiled `Pow` and the interpreter's f64 `powf` rounded to
/// f32. The compiled code evaluates 2^(y log2 |x|) in f64 with a relative
/// error near 2^-44, then rounds once to f32, so it can only differ where
/// the exact result lies within that error of a rounding boundary (1 ulp).
/// A test sweeps 4 million (x, y) pairs (random bit patterns, bases near
/// 1, results near overflow and in the subnormal range) plus every pairing
/// of 40 special values, which must match exactly; see `mathf::tests`.
pub const POW_ULP: u32 = 1;

impl Region {
    /// How far compiled results may be from the interpreter's, in ULPs of the
    /// lane type (0: bit-identical).
    pub fn ulp_bound(&self) -> u32 {
        match (self.op, self.lane) {
            (Op::Exp, Lane::F16 | Lane::BF16) => HALF_EXP_ULP,
            (Op::Log, Lane::F16 | Lane::BF16) => HALF_LOG_ULP,
            (Op::Rsqrt, Lane::F16 | Lane::BF16) => HALF_RSQRT_ULP,
            (Op::Pow, Lane::I32) => 0,
            (op, _) => op.ulp_bound(),
        }
    }
}

impl Op {
    /// How far compiled results may be from the interpreter's, in ULPs
    /// (0: bit-identical).
    pub fn ulp_bound(self) -> u32 {
        match self {
            Op::Exp => EXP_ULP,
            Op::Log => LOG_ULP,
            Op::Pow => POW_ULP,
            _ => 0,
        }
    }
}

/// Where the operands come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operands {
    /// dst = a op b (tiles).
    Binary,
    /// dst = op a.
    Unary,
    /// dst = a op s.
    ScalarRight,
    /// dst = s op a.
    ScalarLeft,
}

/// A region to compile. Shapes and addresses are run-time arguments, so one
/// compiled region serves every tile of its lane type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Region {
    /// Operation.
    pub op: Op,
    /// Lane type.
    pub lane: Lane,
    /// Operand form.
    pub operands: Operands,
}

/// Why a region was not compiled.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Reject {
    /// The JIT does not handle this op, lane type or form.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// Cranelift failed.
    #[error("codegen failed: {0}")]
    Codegen(String),
}

/// What compiled code returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Status {
    /// Ran to the end of the region.
    Ok = 0,
    /// An operand would reach outside the buffer; nothing was written.
    OutOfBounds = 1,
    /// The code returned a status this crate does not know (never expected).
    Unknown = 255,
}

/// Arguments of an elementwise region (see [`ARG_COUNT`]): byte addresses and
/// row strides within the buffer, the iteration domain, and the scalar operand
/// (its bits: f32 bits or the i32 value, zero-extended).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EwArgs {
    /// Destination byte address.
    pub dst: i64,
    /// Destination row stride in bytes.
    pub dst_stride: i64,
    /// First source byte address.
    pub a: i64,
    /// First source row stride in bytes.
    pub a_stride: i64,
    /// Second source byte address (binary form).
    pub b: i64,
    /// Second source row stride in bytes.
    pub b_stride: i64,
    /// Rows to process.
    pub rows: i64,
    /// Columns to process.
    pub cols: i64,
    /// Scalar operand bits.
    pub scalar: i64,
}

impl EwArgs {
    fn to_array(self) -> [i64; ARG_COUNT] {
        [
            self.dst,
            self.dst_stride,
            self.a,
            self.a_stride,
            self.b,
            self.b_stride,
            self.rows,
            self.cols,
            self.scalar,
        ]
    }
}

/// A compiled region.
pub struct Compiled {
    inner: codegen::Code,
    /// Unary f16/bf16 regions: their results by table, once they are hot.
    table: Option<halftable::HalfTable>,
    /// The region it implements.
    pub region: Region,
    /// Size of the generated machine code in bytes.
    pub code_bytes: usize,
    /// Compile time.
    pub compile_time: std::time::Duration,
}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiled")
            .field("region", &self.region)
            .field("code_bytes", &self.code_bytes)
            .finish()
    }
}

impl Compiled {
    /// Runs the region over `mem`.
    pub fn call(&self, mem: &mut [u8], args: &EwArgs) -> Status {
        let a = self.collapse(args);
        // f32 exp: the same lanes on wider vectors where the host has them
        if self.region == EXP_F32 {
            if let Some(s) = mathf::exp_wide(mem, &a) {
                return s;
            }
        }
        // f32 add/sub/mul/div: likewise
        if ewwide::handles(&self.region) {
            if let Some(s) = ewwide::arith_wide(mem, &self.region, &a) {
                return s;
            }
        }
        // f32 pow: likewise (its f64 core on 4 lanes instead of 2)
        if powwide::handles(&self.region) {
            if let Some(s) = powwide::pow_wide(mem, &self.region, &a) {
                return s;
            }
        }
        // f16/bf16 add/sub/mul/div/max/min/exp: 8 lanes, the hardware's f16 conversions
        if ewhalf::handles(&self.region) {
            if let Some(s) = ewhalf::half_wide(mem, &self.region, &a) {
                return s;
            }
        }
        // other unary f16/bf16 regions: by table
        if let Some(t) = &self.table {
            if let Some(s) = t.run(&self.inner, mem, &a) {
                return s;
            }
        }
        match self.inner.call(mem, &a.to_array()) {
            0 => Status::Ok,
            1 => Status::OutOfBounds,
            _ => Status::Unknown,
        }
    }

    /// Runs a tile-scalar region once per row: row `i` (at `dst + i *
    /// dst_stride`, `a + i * a_stride`, `cols` elements) with `scalars[i]` as
    /// its scalar; `args.scalar` is not used. This is `trowexpand*` with a
    /// per-row value. f32 add/sub/mul/div take all rows in one wide call,
    /// other regions run row by row. A tile-tile or unary region, or a
    /// scalar count other than `rows`, is `Status::Unknown`; a row whose
    /// address overflows is `Status::OutOfBounds`.
    pub fn call_rows(&self, mem: &mut [u8], args: &EwArgs, scalars: &[i64]) -> Status {
        if matches!(self.region.operands, Operands::Binary | Operands::Unary)
            || i64::try_from(scalars.len()).ok() != Some(args.rows)
        {
            return Status::Unknown;
        }
        if ewwide::handles(&self.region) {
            if let Some(s) = ewwide::arith_wide_rows(mem, &self.region, args, scalars) {
                return s;
            }
        }
        if ewhalf::handles(&self.region) {
            if let Some(s) = ewhalf::half_wide_rows(mem, &self.region, args, scalars) {
                return s;
            }
        }
        for (i, s) in (0i64..).zip(scalars) {
            let at = |base: i64, stride: i64| i.checked_mul(stride)?.checked_add(base);
            let (Some(dst), Some(a)) = (at(args.dst, args.dst_stride), at(args.a, args.a_stride))
            else {
                return Status::OutOfBounds;
            };
            let row = EwArgs {
                dst,
                a,
                rows: 1,
                scalar: *s,
                ..*args
            };
            match self.call(mem, &row) {
                Status::Ok => {}
                st => return st,
            }
        }
        Status::Ok
    }
}

/// Whether this host runs f32 exp on wide vectors (AVX-512F, or AVX2 and
/// FMA): the single-op f32 exp region then does, and a fused f32 chain with
/// an exp runs in parts around it ([`chain`]; f16/bf16 chains with an exp
/// run in parts on every host).
pub fn has_wide_exp() -> bool {
    mathf::exp_wide_present()
}

/// The region [`mathf::exp_wide`] runs natively.
const EXP_F32: Region = Region {
    op: Op::Exp,
    lane: Lane::F32,
    operands: Operands::Unary,
};

impl Compiled {
    /// Rows that follow each other without a gap in every operand are one
    /// long row: the compiled loops then run without per-row overhead. The
    /// bytes touched (and the entry bounds proof) are the same.
    fn collapse(&self, a: &EwArgs) -> EwArgs {
        let row = a.cols.checked_mul(self.region.lane.bytes());
        let binary = self.region.operands == Operands::Binary;
        let dense = row.is_some_and(|row| {
            a.dst_stride == row && a.a_stride == row && (!binary || a.b_stride == row)
        });
        match (dense && a.rows > 1, a.rows.checked_mul(a.cols)) {
            (true, Some(n)) if n < (1 << 32) => EwArgs {
                rows: 1,
                cols: n,
                ..*a
            },
            _ => *a,
        }
    }
}

/// Compiles a region, or says why not.
pub fn compile(region: &Region) -> Result<Compiled, Reject> {
    supported(region)?;
    let start = std::time::Instant::now();
    let (inner, code_bytes) = codegen::build(region)?;
    Ok(Compiled {
        inner,
        table: halftable::HalfTable::for_region(region),
        region: *region,
        code_bytes,
        compile_time: start.elapsed(),
    })
}

/// Whether the JIT handles the region's op on its lane type in its operand
/// form (a chain applies the same rule to each of its ops).
pub fn supported(region: &Region) -> Result<(), Reject> {
    use Op::*;
    let ok = match region.lane {
        Lane::F32 => !matches!(region.op, And | Or | Xor),
        Lane::I32 => !matches!(region.op, Div | Sqrt | Rsqrt | Recip | Exp | Log),
        // the correctly rounded (or exact) ops: computing in f32 and rounding
        // again gives the interpreter's bits; exp, log and rsqrt within
        // their half-type bounds (HALF_EXP_ULP, HALF_LOG_ULP, HALF_RSQRT_ULP)
        Lane::F16 | Lane::BF16 => matches!(
            region.op,
            Add | Sub | Mul | Div | Max | Min | Abs | Neg | Sqrt | Recip | Relu | Exp | Log | Rsqrt
        ),
    };
    if !ok {
        return Err(Reject::Unsupported(format!(
            "{:?} on {:?} lanes",
            region.op, region.lane
        )));
    }
    let unary = matches!(
        region.op,
        Abs | Neg | Sqrt | Rsqrt | Recip | Relu | Exp | Log
    );
    if region.op == Pow && region.operands == Operands::ScalarLeft {
        return Err(Reject::Unsupported("Pow with a scalar base".into()));
    }
    if unary != (region.operands == Operands::Unary) {
        return Err(Reject::Unsupported(format!(
            "{:?} with {:?} operands",
            region.op, region.operands
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
