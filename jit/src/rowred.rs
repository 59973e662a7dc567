//! Row reductions: `trowsum`, `trowmax`, `trowmin` of a row-major source tile
//! into one value per row, written at a fixed byte stride (column 0 of a
//! row-major or column-major destination).
//!
//! Results are bit-identical to the interpreter (`vm/src/exec/reduce.rs`):
//!
//! - f32 sums accumulate in f64 strictly left to right from the row's first
//!   element (not from 0: a row holding only -0 sums to -0) and round to f32
//!   once. The order is kept by vectorising across rows instead of along
//!   them: four rows at a time, four columns of each loaded as one vector and
//!   transposed, so each f64 lane adds its own row's elements in column order.
//! - f32 max/min are IEEE 754-2019 maximum/minimum (NaN if any element is
//!   NaN, +0 > -0). These are associative and commutative, so the row is
//!   folded a vector at a time; a NaN result is the canonical quiet NaN.
//! - i32 sums wrap (associative), max/min are signed.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, Block, BlockArg, ConstantData, Endianness, InstBuilder, MemFlagsData, Type, Value,
};
use cranelift_frontend::FunctionBuilder;

use crate::codegen::{build_with, heap_flags, Code, ARG_COUNT};
use crate::{Reject, Status};

/// The reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RedOp {
    /// Sum (f32: in f64, left to right, rounded once).
    Sum,
    /// Maximum (f32: NaN-propagating, +0 > -0).
    Max,
    /// Minimum (f32: NaN-propagating, -0 < +0).
    Min,
    /// Index of the first maximum (a NaN never replaces an earlier value),
    /// stored in an integer of the given byte width (1, 2, 4 or 8; the
    /// index truncated to it, as the interpreter's write).
    ArgMax(u8),
    /// Index of the first minimum (as [`RedOp::ArgMax`]).
    ArgMin(u8),
}

/// Element type of a reduction's source (and, but for the arg forms, of
/// its destination).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RedLane {
    /// 32-bit float.
    F32,
    /// 32-bit signed integer (sums wrap).
    I32,
    /// 32-bit unsigned integer (sums wrap, unsigned order).
    U32,
    /// IEEE binary16.
    F16,
    /// bfloat16.
    BF16,
    /// 16-bit signed integer (sums wrap).
    I16,
    /// 16-bit unsigned integer (sums wrap).
    U16,
    /// 8-bit signed integer (sums wrap).
    I8,
    /// 8-bit unsigned integer (sums wrap).
    U8,
}

impl RedLane {
    /// Bytes per element.
    pub fn bytes(self) -> i64 {
        match self {
            RedLane::F32 | RedLane::I32 | RedLane::U32 => 4,
            RedLane::I8 | RedLane::U8 => 1,
            _ => 2,
        }
    }

    /// Whether the elements are floats.
    pub fn is_float(self) -> bool {
        matches!(self, RedLane::F32 | RedLane::F16 | RedLane::BF16)
    }
}

impl RedOp {
    /// Bytes of one result: the index width of an arg form, else `lane`'s.
    pub fn out_bytes(self, lane: RedLane) -> i64 {
        match self {
            RedOp::ArgMax(w) | RedOp::ArgMin(w) => i64::from(w),
            _ => lane.bytes(),
        }
    }
}

/// A row-reduction region.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RowRed {
    /// The reduction.
    pub op: RedOp,
    /// Element type of the source (and destination, but for the arg forms).
    pub lane: RedLane,
}

/// Arguments of a row reduction (byte addresses and strides in the buffer).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RowArgs {
    /// Byte address of the first row's result.
    pub dst: i64,
    /// Bytes between consecutive rows' results.
    pub dst_stride: i64,
    /// Byte address of the source's first row.
    pub src: i64,
    /// Source row stride in bytes.
    pub src_stride: i64,
    /// Rows to reduce.
    pub rows: i64,
    /// Elements per row (at least 1 when rows > 0).
    pub cols: i64,
}

/// A compiled row reduction.
pub struct RowCompiled {
    inner: Code,
    /// The region it implements.
    pub region: RowRed,
    /// Size of the generated machine code in bytes.
    pub code_bytes: usize,
    /// Compile time.
    pub compile_time: std::time::Duration,
}

impl std::fmt::Debug for RowCompiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowCompiled")
            .field("region", &self.region)
            .field("code_bytes", &self.code_bytes)
            .finish()
    }
}

impl RowCompiled {
    /// Runs the reduction over `mem`. Rows of zero columns are not reduced
    /// (the caller reports them).
    pub fn call(&self, mem: &mut [u8], a: &RowArgs) -> Status {
        let mut v = [0i64; ARG_COUNT];
        v[..6].copy_from_slice(&[a.dst, a.dst_stride, a.src, a.src_stride, a.rows, a.cols]);
        match self.inner.call(mem, &v) {
            0 => Status::Ok,
            1 => Status::OutOfBounds,
            _ => Status::Unknown,
        }
    }
}

/// Compiles a row reduction.
pub fn compile_row(r: &RowRed) -> Result<RowCompiled, Reject> {
    let start = std::time::Instant::now();
    let r = *r;
    check(r)?;
    if crate::lines::takes(r) {
        return finish(r, start, "row", |b| crate::lines::emit(b, r, false));
    }
    finish(r, start, "row", |b| emit(b, r))
}

/// Refuses index widths other than 1, 2, 4 and 8 bytes.
fn check(r: RowRed) -> Result<(), Reject> {
    match r.op {
        RedOp::ArgMax(w) | RedOp::ArgMin(w) if ![1, 2, 4, 8].contains(&w) => Err(
            Reject::Unsupported(format!("{w}-byte indices of an arg reduction")),
        ),
        _ => Ok(()),
    }
}

/// Builds a reduction's function (`what`: row or column), refusing hosts
/// whose pointers are not 64-bit (the entry reads 64-bit arguments).
fn finish(
    r: RowRed,
    start: std::time::Instant,
    what: &str,
    body: impl FnOnce(&mut FunctionBuilder),
) -> Result<RowCompiled, Reject> {
    let mut bad = None;
    let (inner, code_bytes) = build_with(&format!("{what} {r:?}"), |b, ptr| {
        if ptr != types::I64 {
            bad = Some(Reject::Unsupported(format!(
                "{what} reductions need 64-bit pointers"
            )));
        }
        body(b)
    })?;
    if let Some(e) = bad {
        return Err(e);
    }
    Ok(RowCompiled {
        inner,
        region: r,
        code_bytes,
        compile_time: start.elapsed(),
    })
}

pub(crate) fn little() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

/// `shuffle` of two 4-lane vectors by byte indices (0..32).
pub(crate) fn shuffle(
    b: &mut FunctionBuilder,
    ty: Type,
    x: Value,
    y: Value,
    idx: &[u8; 16],
) -> Value {
    let xb = b.ins().bitcast(types::I8X16, little(), x);
    let yb = b.ins().bitcast(types::I8X16, little(), y);
    let m = b.func.dfg.immediates.push(ConstantData::from(idx.to_vec()));
    let r = b.ins().shuffle(xb, yb, m);
    b.ins().bitcast(ty, little(), r)
}

/// Lanes (x0, y0, x1, y1).
const LO: [u8; 16] = [0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23];
/// Lanes (x2, y2, x3, y3).
const HI: [u8; 16] = [8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31];
/// Lanes (x2, x3, x2, x3).
pub(crate) const UP: [u8; 16] = [8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15];

/// A reduction function's entry: the heap base, its length and the six
/// arguments (dst, dst stride, src, src stride, rows, cols) loaded, plus
/// the two exit blocks (see `codegen::emit_exits`).
pub(crate) fn entry(b: &mut FunctionBuilder) -> (Value, Value, Vec<Value>, Block, Block) {
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let p = b.block_params(entry).to_vec();
    let (base, len, args) = (p[0], p[1], p[2]);
    let af = MemFlagsData::trusted();
    let a: Vec<Value> = (0..6)
        .map(|i: i32| b.ins().load(types::I64, af, args, i * 8))
        .collect();
    let ret_ok = b.create_block();
    let ret_bad = b.create_block();
    (base, len, a, ret_ok, ret_bad)
}

fn emit(b: &mut FunctionBuilder, r: RowRed) {
    let (base, len, a, ret_ok, ret_bad) = entry(b);
    let (dst, ds, src, ss, rows, cols) = (a[0], a[1], a[2], a[3], a[4], a[5]);

    // every argument below 2^32 (no product below overflows), then the end
    // of the last row of the source and the last result within len
    let row_bytes = b.ins().imul_imm_s(cols, 4);
    let four = b.ins().iconst(types::I64, 4);
    let ext = [(src, ss, row_bytes), (dst, ds, four)];
    crate::codegen::prove_rows(b, &a, rows, cols, len, &ext, ret_ok, ret_bad);
    let g = Geo::new(b, base, &a, row_bytes, ret_ok);
    if r.op == RedOp::Sum && r.lane == RedLane::F32 {
        sum_f32(b, &g);
    } else {
        fold(b, &g, r);
    }

    crate::codegen::emit_exits(b, ret_ok, ret_bad);
}

/// Host addresses and shape shared by the loop emitters.
struct Geo {
    sbase: Value,
    dbase: Value,
    ss: Value,
    ds: Value,
    rows: Value,
    row_bytes: Value,
    ret_ok: cranelift_codegen::ir::Block,
}

impl Geo {
    /// The geometry of a proven reduction: host pointers of the source and
    /// destination from the heap base and the six arguments (see [`entry`]).
    fn new(
        b: &mut FunctionBuilder,
        base: Value,
        a: &[Value],
        row_bytes: Value,
        ret_ok: Block,
    ) -> Geo {
        let (dst, ds, src, ss, rows) = (a[0], a[1], a[2], a[3], a[4]);
        Geo {
            sbase: b.ins().iadd(base, src),
            dbase: b.ins().iadd(base, dst),
            ss,
            ds,
            rows,
            row_bytes,
            ret_ok,
        }
    }
}

/// Pointer to row `r` of `base` with stride `s` (plus `k` rows).
fn row_at(b: &mut FunctionBuilder, base: Value, s: Value, r: Value, k: i64) -> Value {
    let rk = b.ins().iadd_imm_s(r, k);
    let o = b.ins().imul(rk, s);
    b.ins().iadd(base, o)
}

fn f64x2(b: &mut FunctionBuilder, x: Value, y: Value) -> Value {
    let v = b.ins().splat(types::F64X2, x);
    b.ins().insertlane(v, y, 1)
}

/// f32 sums: groups of four rows as two f64x2 accumulators (rows 0-1 and
/// 2-3 of the group), then the remaining rows one by one, all in column order.
fn sum_f32(b: &mut FunctionBuilder, g: &Geo) {
    let hf = heap_flags();
    let grp_head = b.create_block();
    let grp_body = b.create_block();
    let col_head = b.create_block();
    let col_body = b.create_block();
    let tail_head = b.create_block();
    let tail_body = b.create_block();
    let grp_end = b.create_block();
    let one_head = b.create_block();
    let one_body = b.create_block();
    let one_col = b.create_block();
    let one_col_body = b.create_block();
    let one_end = b.create_block();
    b.append_block_param(grp_head, types::I64);
    for blk in [col_head, col_body, tail_head, tail_body] {
        b.append_block_param(blk, types::I64);
        b.append_block_param(blk, types::F64X2);
        b.append_block_param(blk, types::F64X2);
    }
    b.append_block_param(grp_end, types::F64X2);
    b.append_block_param(grp_end, types::F64X2);
    b.append_block_param(one_head, types::I64);
    for blk in [one_col, one_col_body] {
        b.append_block_param(blk, types::I64);
        b.append_block_param(blk, types::F64);
    }
    b.append_block_param(one_end, types::F64);
    let zero = b.ins().iconst(types::I64, 0);
    let k4 = b.ins().iconst(types::I64, 4);
    b.ins().jump(grp_head, &[zero.into()]);

    b.switch_to_block(grp_head);
    let r = b.block_params(grp_head)[0];
    let r4 = b.ins().iadd_imm_s(r, 4);
    let fits = b.ins().icmp(IntCC::SignedLessThanOrEqual, r4, g.rows);
    b.ins().brif(fits, grp_body, &[], one_head, &[r.into()]);

    b.switch_to_block(grp_body);
    let ps: Vec<Value> = (0..4).map(|k| row_at(b, g.sbase, g.ss, r, k)).collect();
    let firsts: Vec<Value> = ps
        .iter()
        .map(|&p| {
            let x = b.ins().load(types::F32, hf, p, 0);
            b.ins().fpromote(types::F64, x)
        })
        .collect();
    let lo = f64x2(b, firsts[0], firsts[1]);
    let hi = f64x2(b, firsts[2], firsts[3]);
    b.ins().jump(col_head, &[k4.into(), lo.into(), hi.into()]);

    let params = |b: &mut FunctionBuilder, blk| {
        let p = b.block_params(blk);
        (p[0], p[1], p[2])
    };
    b.switch_to_block(col_head);
    let (kb, lo, hi) = params(b, col_head);
    let end = b.ins().iadd_imm_s(kb, 16);
    let fits = b.ins().icmp(IntCC::SignedLessThanOrEqual, end, g.row_bytes);
    let carry = [kb.into(), lo.into(), hi.into()];
    b.ins().brif(fits, col_body, &carry, tail_head, &carry);

    b.switch_to_block(col_body);
    let (kb, mut lo, mut hi) = params(b, col_body);
    let v: Vec<Value> = ps
        .iter()
        .map(|&p| {
            let q = b.ins().iadd(p, kb);
            b.ins().load(types::F32X4, hf, q, 0)
        })
        .collect();
    let t = types::F32X4;
    // columns k, k+1 of rows 0,1 (and 2,3); columns k+2, k+3 likewise
    let ab01 = shuffle(b, t, v[0], v[1], &LO);
    let ab23 = shuffle(b, t, v[0], v[1], &HI);
    let cd01 = shuffle(b, t, v[2], v[3], &LO);
    let cd23 = shuffle(b, t, v[2], v[3], &HI);
    for (ab, cd) in [(ab01, cd01), (ab23, cd23)] {
        let x = b.ins().fvpromote_low(ab);
        lo = b.ins().fadd(lo, x);
        let y = b.ins().fvpromote_low(cd);
        hi = b.ins().fadd(hi, y);
        let ab_up = shuffle(b, t, ab, ab, &UP);
        let cd_up = shuffle(b, t, cd, cd, &UP);
        let x = b.ins().fvpromote_low(ab_up);
        lo = b.ins().fadd(lo, x);
        let y = b.ins().fvpromote_low(cd_up);
        hi = b.ins().fadd(hi, y);
    }
    let kn = b.ins().iadd_imm_s(kb, 16);
    b.ins().jump(col_head, &[kn.into(), lo.into(), hi.into()]);

    b.switch_to_block(tail_head);
    let (kb, lo, hi) = params(b, tail_head);
    let more = b.ins().icmp(IntCC::SignedLessThan, kb, g.row_bytes);
    b.ins().brif(
        more,
        tail_body,
        &[kb.into(), lo.into(), hi.into()],
        grp_end,
        &[lo.into(), hi.into()],
    );

    b.switch_to_block(tail_body);
    let (kb, lo, hi) = params(b, tail_body);
    let xs: Vec<Value> = ps
        .iter()
        .map(|&p| {
            let q = b.ins().iadd(p, kb);
            let x = b.ins().load(types::F32, hf, q, 0);
            b.ins().fpromote(types::F64, x)
        })
        .collect();
    let x = f64x2(b, xs[0], xs[1]);
    let y = f64x2(b, xs[2], xs[3]);
    let lo = b.ins().fadd(lo, x);
    let hi = b.ins().fadd(hi, y);
    let kn = b.ins().iadd_imm_s(kb, 4);
    b.ins().jump(tail_head, &[kn.into(), lo.into(), hi.into()]);

    b.switch_to_block(grp_end);
    let (lo, hi) = {
        let p = b.block_params(grp_end);
        (p[0], p[1])
    };
    for (k, (v, lane)) in [(lo, 0u8), (lo, 1), (hi, 0), (hi, 1)]
        .into_iter()
        .enumerate()
    {
        let s = b.ins().extractlane(v, lane);
        let s = b.ins().fdemote(types::F32, s);
        let d = row_at(b, g.dbase, g.ds, r, k as i64);
        b.ins().store(hf, s, d, 0);
    }
    let rn = b.ins().iadd_imm_s(r, 4);
    b.ins().jump(grp_head, &[rn.into()]);

    // the rows after the last group of four
    b.switch_to_block(one_head);
    let r = b.block_params(one_head)[0];
    let more = b.ins().icmp(IntCC::SignedLessThan, r, g.rows);
    b.ins().brif(more, one_body, &[], g.ret_ok, &[]);
    b.switch_to_block(one_body);
    let p = row_at(b, g.sbase, g.ss, r, 0);
    let x = b.ins().load(types::F32, hf, p, 0);
    let acc = b.ins().fpromote(types::F64, x);
    b.ins().jump(one_col, &[k4.into(), acc.into()]);
    b.switch_to_block(one_col);
    let (kb, acc) = {
        let q = b.block_params(one_col);
        (q[0], q[1])
    };
    let more = b.ins().icmp(IntCC::SignedLessThan, kb, g.row_bytes);
    b.ins().brif(
        more,
        one_col_body,
        &[kb.into(), acc.into()],
        one_end,
        &[acc.into()],
    );
    b.switch_to_block(one_col_body);
    let (kb, acc) = {
        let q = b.block_params(one_col_body);
        (q[0], q[1])
    };
    let q = b.ins().iadd(p, kb);
    let x = b.ins().load(types::F32, hf, q, 0);
    let x = b.ins().fpromote(types::F64, x);
    let acc = b.ins().fadd(acc, x);
    let kn = b.ins().iadd_imm_s(kb, 4);
    b.ins().jump(one_col, &[kn.into(), acc.into()]);
    b.switch_to_block(one_end);
    let acc = b.block_params(one_end)[0];
    let s = b.ins().fdemote(types::F32, acc);
    let d = row_at(b, g.dbase, g.ds, r, 0);
    b.ins().store(hf, s, d, 0);
    let rn = b.ins().iadd_imm_s(r, 1);
    b.ins().jump(one_head, &[rn.into()]);
}

/// The order-free reductions, row by row: a vector accumulator over the
/// row's whole vectors, folded to one lane, then the scalar tail.
fn fold(b: &mut FunctionBuilder, g: &Geo, r: RowRed) {
    let hf = heap_flags();
    let fl = r.lane == RedLane::F32;
    let (st, vt) = if fl {
        (types::F32, types::F32X4)
    } else {
        (types::I32, types::I32X4)
    };
    let op = |b: &mut FunctionBuilder, x: Value, y: Value| -> Value {
        match (r.op, fl) {
            (RedOp::Sum, _) => b.ins().iadd(x, y),
            (RedOp::Max | RedOp::ArgMax(_), true) => b.ins().fmax(x, y),
            (RedOp::Min | RedOp::ArgMin(_), true) => b.ins().fmin(x, y),
            (RedOp::Max | RedOp::ArgMax(_), false) if b.func.dfg.value_type(x).is_vector() => {
                b.ins().smax(x, y)
            }
            (RedOp::Min | RedOp::ArgMin(_), false) if b.func.dfg.value_type(x).is_vector() => {
                b.ins().smin(x, y)
            }
            (RedOp::Max | RedOp::ArgMax(_), false) => {
                let c = b.ins().icmp(IntCC::SignedGreaterThan, y, x);
                b.ins().select(c, y, x)
            }
            (RedOp::Min | RedOp::ArgMin(_), false) => {
                let c = b.ins().icmp(IntCC::SignedLessThan, y, x);
                b.ins().select(c, y, x)
            }
        }
    };
    let row_head = b.create_block();
    let row_body = b.create_block();
    let vinit = b.create_block();
    let vloop = b.create_block();
    let vbody = b.create_block();
    let vred = b.create_block();
    let sinit = b.create_block();
    let sloop = b.create_block();
    let sbody = b.create_block();
    let send = b.create_block();
    b.append_block_param(row_head, types::I64);
    for blk in [vloop, vbody, vred] {
        b.append_block_param(blk, types::I64);
        b.append_block_param(blk, vt);
    }
    for blk in [sloop, sbody] {
        b.append_block_param(blk, types::I64);
        b.append_block_param(blk, st);
    }
    b.append_block_param(send, st);
    let zero = b.ins().iconst(types::I64, 0);
    b.ins().jump(row_head, &[zero.into()]);

    b.switch_to_block(row_head);
    let r_ = b.block_params(row_head)[0];
    let more = b.ins().icmp(IntCC::SignedLessThan, r_, g.rows);
    b.ins().brif(more, row_body, &[], g.ret_ok, &[]);

    b.switch_to_block(row_body);
    let p = row_at(b, g.sbase, g.ss, r_, 0);
    let wide = b
        .ins()
        .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, g.row_bytes, 16);
    b.ins().brif(wide, vinit, &[], sinit, &[]);

    b.switch_to_block(vinit);
    let v = b.ins().load(vt, hf, p, 0);
    let k16 = b.ins().iconst(types::I64, 16);
    b.ins().jump(vloop, &[k16.into(), v.into()]);

    let two = |b: &mut FunctionBuilder, blk| {
        let q = b.block_params(blk);
        (q[0], q[1])
    };
    b.switch_to_block(vloop);
    let (kb, acc) = two(b, vloop);
    let end = b.ins().iadd_imm_s(kb, 16);
    let fits = b.ins().icmp(IntCC::SignedLessThanOrEqual, end, g.row_bytes);
    let carry = [kb.into(), acc.into()];
    b.ins().brif(fits, vbody, &carry, vred, &carry);

    b.switch_to_block(vbody);
    let (kb, acc) = two(b, vbody);
    let q = b.ins().iadd(p, kb);
    let x = b.ins().load(vt, hf, q, 0);
    let acc = op(b, acc, x);
    let kn = b.ins().iadd_imm_s(kb, 16);
    b.ins().jump(vloop, &[kn.into(), acc.into()]);

    b.switch_to_block(vred);
    let (kb, acc) = two(b, vred);
    let l: Vec<Value> = (0..4).map(|i| b.ins().extractlane(acc, i)).collect();
    let x = op(b, l[0], l[1]);
    let y = op(b, l[2], l[3]);
    let s = op(b, x, y);
    b.ins().jump(sloop, &[kb.into(), s.into()]);

    b.switch_to_block(sinit);
    let s = b.ins().load(st, hf, p, 0);
    let k4 = b.ins().iconst(types::I64, 4);
    b.ins().jump(sloop, &[k4.into(), s.into()]);

    b.switch_to_block(sloop);
    let (kb, s) = two(b, sloop);
    let more = b.ins().icmp(IntCC::SignedLessThan, kb, g.row_bytes);
    b.ins()
        .brif(more, sbody, &[kb.into(), s.into()], send, &[s.into()]);

    b.switch_to_block(sbody);
    let (kb, s) = two(b, sbody);
    let q = b.ins().iadd(p, kb);
    let x = b.ins().load(st, hf, q, 0);
    let s = op(b, s, x);
    let kn = b.ins().iadd_imm_s(kb, 4);
    b.ins().jump(sloop, &[kn.into(), s.into()]);

    b.switch_to_block(send);
    let s = b.block_params(send)[0];
    let s = if fl {
        // a NaN result: the canonical quiet NaN when an operation made it
        // (two or more elements), else the element itself, quieted (the
        // interpreter's round trip through f64)
        let uno = b.ins().fcmp(FloatCC::Unordered, s, s);
        let canon = b.ins().iconst(types::I32, 0x7fc0_0000);
        let bits = b.ins().bitcast(types::I32, MemFlagsData::new(), s);
        let quiet = b.ins().bor_imm_u(bits, 0x0040_0000);
        let many = b.ins().icmp_imm_s(IntCC::SignedGreaterThan, g.row_bytes, 4);
        let nan = b.ins().select(many, canon, quiet);
        let nan = b.ins().bitcast(types::F32, MemFlagsData::new(), nan);
        b.ins().select(uno, nan, s)
    } else {
        s
    };
    let d = row_at(b, g.dbase, g.ds, r_, 0);
    b.ins().store(hf, s, d, 0);
    let rn = b.ins().iadd_imm_s(r_, 1);
    b.ins().jump(row_head, &[rn.into()]);
}

/// Compiles a column reduction: `tcolsum`, `tcolmax`, `tcolmin` of a
/// row-major source into one value per column. [`RowArgs`] keep their names
/// for the source region (`rows` elements reduced in each of `cols`
/// columns); `dst_stride` is the distance between consecutive columns'
/// results (row 0 of a row-major destination: 4).
///
/// Bit-identical to the interpreter: each column is reduced top to bottom
/// from its first element (f32 sums in f64, rounded once; max/min with the
/// NaN rule of the row form). Vectorising across columns keeps every
/// column's own order: four columns per vector, one row after another.
pub fn compile_col(r: &RowRed) -> Result<RowCompiled, Reject> {
    let start = std::time::Instant::now();
    let r = *r;
    check(r)?;
    if crate::lines::takes(r) {
        return finish(r, start, "column", |b| crate::lines::emit(b, r, true));
    }
    finish(r, start, "column", |b| emit_col(b, r))
}

fn emit_col(b: &mut FunctionBuilder, r: RowRed) {
    let (base, len, a, ret_ok, ret_bad) = entry(b);
    let (dst, ds, src, ss, rows, cols) = (a[0], a[1], a[2], a[3], a[4], a[5]);
    // the source rows as in the row form; the results (one per column) as
    // one extent: dst + (cols - 1) * ds + 4 (every factor below 2^32)
    let row_bytes = b.ins().imul_imm_s(cols, 4);
    let cm1 = b.ins().iadd_imm_s(cols, -1);
    let span = b.ins().imul(cm1, ds);
    let span = b.ins().iadd_imm_s(span, 4);
    let zero = b.ins().iconst(types::I64, 0);
    let ext = [(src, ss, row_bytes), (dst, zero, span)];
    crate::codegen::prove_rows(b, &a, rows, cols, len, &ext, ret_ok, ret_bad);
    let g = Geo::new(b, base, &a, row_bytes, ret_ok);
    col_loops(b, &g, r);
    crate::codegen::emit_exits(b, ret_ok, ret_bad);
}

/// The per-lane step of a reduction on accumulators of type `ty`.
fn red_step(b: &mut FunctionBuilder, r: RowRed, x: Value, y: Value) -> Value {
    let vec = b.func.dfg.value_type(x).is_vector();
    match (r.op, r.lane == RedLane::F32) {
        (RedOp::Sum, true) => b.ins().fadd(x, y),
        (RedOp::Sum, false) => b.ins().iadd(x, y),
        (RedOp::Max | RedOp::ArgMax(_), true) => b.ins().fmax(x, y),
        (RedOp::Min | RedOp::ArgMin(_), true) => b.ins().fmin(x, y),
        (RedOp::Max | RedOp::ArgMax(_), false) if vec => b.ins().smax(x, y),
        (RedOp::Min | RedOp::ArgMin(_), false) if vec => b.ins().smin(x, y),
        (RedOp::Max | RedOp::ArgMax(_), false) => {
            let c = b.ins().icmp(IntCC::SignedGreaterThan, y, x);
            b.ins().select(c, y, x)
        }
        (RedOp::Min | RedOp::ArgMin(_), false) => {
            let c = b.ins().icmp(IntCC::SignedLessThan, y, x);
            b.ins().select(c, y, x)
        }
    }
}

/// The f32 max/min NaN rule of the interpreter on one result `s` of `n`
/// elements: the canonical quiet NaN when an operation made it (n > 1),
/// else the element quieted.
pub(crate) fn nan_rule(b: &mut FunctionBuilder, s: Value, n: Value) -> Value {
    let uno = b.ins().fcmp(FloatCC::Unordered, s, s);
    let canon = b.ins().iconst(types::I32, 0x7fc0_0000);
    let bits = b.ins().bitcast(types::I32, MemFlagsData::new(), s);
    let quiet = b.ins().bor_imm_u(bits, 0x0040_0000);
    let many = b.ins().icmp_imm_s(IntCC::SignedGreaterThan, n, 1);
    let nan = b.ins().select(many, canon, quiet);
    let nan = b.ins().bitcast(types::F32, MemFlagsData::new(), nan);
    b.ins().select(uno, nan, s)
}

/// Column loops: blocks of four columns as vectors (an f32 sum as two f64x2
/// halves), then the remaining columns one by one; inside, rows top to
/// bottom.
fn col_loops(b: &mut FunctionBuilder, g: &Geo, r: RowRed) {
    let hf = heap_flags();
    let fsum = r.op == RedOp::Sum && r.lane == RedLane::F32;
    let (st, vt) = if r.lane == RedLane::F32 {
        (types::F32, types::F32X4)
    } else {
        (types::I32, types::I32X4)
    };
    // accumulator types of a vector block and of one column
    let vacc: Vec<Type> = if fsum {
        vec![types::F64X2, types::F64X2]
    } else {
        vec![vt]
    };
    let sacc = if fsum { types::F64 } else { st };
    // a loaded vector (or scalar) into accumulator terms
    let terms = |b: &mut FunctionBuilder, x: Value| -> Vec<Value> {
        let ty = b.func.dfg.value_type(x);
        match (fsum, ty.is_vector()) {
            (true, true) => {
                let up = shuffle(b, vt, x, x, &UP);
                vec![b.ins().fvpromote_low(x), b.ins().fvpromote_low(up)]
            }
            (true, false) => vec![b.ins().fpromote(types::F64, x)],
            (false, _) => vec![x],
        }
    };
    let n = vacc.len();
    let blk_head = b.create_block();
    let blk_init = b.create_block();
    let rloop = b.create_block();
    let rbody = b.create_block();
    let blk_end = b.create_block();
    let tail_head = b.create_block();
    let tail_init = b.create_block();
    let trloop = b.create_block();
    let trbody = b.create_block();
    let tail_end = b.create_block();
    for blk in [blk_head, tail_head] {
        b.append_block_param(blk, types::I64);
    }
    // (c, r, q, accs...)
    for blk in [rloop, rbody] {
        for _ in 0..3 {
            b.append_block_param(blk, types::I64);
        }
        for &t in &vacc {
            b.append_block_param(blk, t);
        }
    }
    b.append_block_param(blk_end, types::I64);
    for &t in &vacc {
        b.append_block_param(blk_end, t);
    }
    for blk in [trloop, trbody] {
        for _ in 0..3 {
            b.append_block_param(blk, types::I64);
        }
        b.append_block_param(blk, sacc);
    }
    b.append_block_param(tail_end, types::I64);
    b.append_block_param(tail_end, sacc);
    let zero = b.ins().iconst(types::I64, 0);
    let one = b.ins().iconst(types::I64, 1);
    b.ins().jump(blk_head, &[zero.into()]);

    // a block of four columns at byte offset c
    b.switch_to_block(blk_head);
    let c = b.block_params(blk_head)[0];
    let end = b.ins().iadd_imm_s(c, 16);
    let fits = b.ins().icmp(IntCC::SignedLessThanOrEqual, end, g.row_bytes);
    b.ins().brif(fits, blk_init, &[], tail_head, &[c.into()]);

    b.switch_to_block(blk_init);
    let p = b.ins().iadd(g.sbase, c);
    let v = b.ins().load(vt, hf, p, 0);
    let accs = terms(b, v);
    let q = b.ins().iadd(p, g.ss);
    let mut carry: Vec<BlockArg> = vec![c.into(), one.into(), q.into()];
    carry.extend(accs.iter().map(|&x| BlockArg::from(x)));
    b.ins().jump(rloop, &carry);

    b.switch_to_block(rloop);
    let ps = b.block_params(rloop).to_vec();
    let more = b.ins().icmp(IntCC::SignedLessThan, ps[1], g.rows);
    let all: Vec<BlockArg> = ps.iter().map(|&x| BlockArg::from(x)).collect();
    let mut fin: Vec<BlockArg> = vec![ps[0].into()];
    fin.extend(ps[3..].iter().map(|&x| BlockArg::from(x)));
    b.ins().brif(more, rbody, &all, blk_end, &fin);

    b.switch_to_block(rbody);
    let ps = b.block_params(rbody).to_vec();
    let x = b.ins().load(vt, hf, ps[2], 0);
    let xs = terms(b, x);
    let accs: Vec<Value> = (0..n).map(|i| red_step(b, r, ps[3 + i], xs[i])).collect();
    let rn = b.ins().iadd_imm_s(ps[1], 1);
    let qn = b.ins().iadd(ps[2], g.ss);
    let mut carry: Vec<BlockArg> = vec![ps[0].into(), rn.into(), qn.into()];
    carry.extend(accs.iter().map(|&x| BlockArg::from(x)));
    b.ins().jump(rloop, &carry);

    b.switch_to_block(blk_end);
    let ps = b.block_params(blk_end).to_vec();
    let c = ps[0];
    let col = b.ins().ushr_imm_u(c, 2);
    let d0 = b.ins().imul(col, g.ds);
    let d0 = b.ins().iadd(g.dbase, d0);
    for k in 0..4u8 {
        let s = if fsum {
            let s = b.ins().extractlane(ps[1 + usize::from(k / 2)], k % 2);
            b.ins().fdemote(types::F32, s)
        } else {
            b.ins().extractlane(ps[1], k)
        };
        let s = if r.lane == RedLane::F32 && !fsum {
            nan_rule(b, s, g.rows)
        } else {
            s
        };
        let d = if k == 0 {
            d0
        } else {
            let o = b.ins().imul_imm_s(g.ds, i64::from(k));
            b.ins().iadd(d0, o)
        };
        b.ins().store(hf, s, d, 0);
    }
    let cn = b.ins().iadd_imm_s(c, 16);
    b.ins().jump(blk_head, &[cn.into()]);

    // the columns after the last block, one at a time
    b.switch_to_block(tail_head);
    let c = b.block_params(tail_head)[0];
    let more = b.ins().icmp(IntCC::SignedLessThan, c, g.row_bytes);
    b.ins().brif(more, tail_init, &[], g.ret_ok, &[]);

    b.switch_to_block(tail_init);
    let p = b.ins().iadd(g.sbase, c);
    let v = b.ins().load(st, hf, p, 0);
    let acc = terms(b, v)[0];
    let q = b.ins().iadd(p, g.ss);
    b.ins()
        .jump(trloop, &[c.into(), one.into(), q.into(), acc.into()]);

    b.switch_to_block(trloop);
    let ps = b.block_params(trloop).to_vec();
    let more = b.ins().icmp(IntCC::SignedLessThan, ps[1], g.rows);
    let all: Vec<BlockArg> = ps.iter().map(|&x| BlockArg::from(x)).collect();
    b.ins()
        .brif(more, trbody, &all, tail_end, &[ps[0].into(), ps[3].into()]);

    b.switch_to_block(trbody);
    let ps = b.block_params(trbody).to_vec();
    let x = b.ins().load(st, hf, ps[2], 0);
    let x = terms(b, x)[0];
    let acc = red_step(b, r, ps[3], x);
    let rn = b.ins().iadd_imm_s(ps[1], 1);
    let qn = b.ins().iadd(ps[2], g.ss);
    b.ins()
        .jump(trloop, &[ps[0].into(), rn.into(), qn.into(), acc.into()]);

    b.switch_to_block(tail_end);
    let ps = b.block_params(tail_end).to_vec();
    let (c, s) = (ps[0], ps[1]);
    let s = if fsum {
        b.ins().fdemote(types::F32, s)
    } else if r.lane == RedLane::F32 {
        nan_rule(b, s, g.rows)
    } else {
        s
    };
    let col = b.ins().ushr_imm_u(c, 2);
    let d = b.ins().imul(col, g.ds);
    let d = b.ins().iadd(g.dbase, d);
    b.ins().store(hf, s, d, 0);
    let cn = b.ins().iadd_imm_s(c, 4);
    b.ins().jump(tail_head, &[cn.into()]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The interpreter's semantics (vm/src/exec/reduce.rs), written out.
    fn reference(op: RedOp, lane: RedLane, row: &[u32]) -> u32 {
        if lane == RedLane::I32 {
            let it = row.iter().map(|&x| x as i32);
            return match op {
                RedOp::Sum => it.fold(0i32, |a, x| a.wrapping_add(x)),
                RedOp::Max => it.max().unwrap_or(0),
                _ => it.min().unwrap_or(0),
            } as u32;
        }
        let f = |x: u32| f64::from(f32::from_bits(x));
        let mut best = f(row[0]);
        for &x in &row[1..] {
            let x = f(x);
            best = match op {
                RedOp::Sum => best + x,
                _ if best.is_nan() || x.is_nan() => f64::NAN,
                _ if best == 0.0 && x == 0.0 => {
                    let neg = if op == RedOp::Max {
                        best.is_sign_negative() && x.is_sign_negative()
                    } else {
                        best.is_sign_negative() || x.is_sign_negative()
                    };
                    if neg {
                        -0.0
                    } else {
                        0.0
                    }
                }
                RedOp::Max => best.max(x),
                _ => best.min(x),
            };
        }
        (best as f32).to_bits()
    }

    fn draw(seed: &mut u64) -> u32 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let r = (*seed >> 33) as u32;
        match r % 16 {
            0 => 0x7fc0_0000 | (r >> 8 & 0xff),
            15 => 0xff80_0001 | (r >> 12 & 0xff), // signalling
            1 => 0x8000_0000,
            2 => 0,
            3 => 0x7f80_0000,
            4 => 0xff80_0000,
            5 => r >> 9, // subnormal
            _ => ((r % 2000) as f32 - 1000.0)
                .mul_add(1.37e-3, (r >> 20) as f32 * 1e3)
                .to_bits(),
        }
    }

    #[test]
    fn every_reduction_matches_the_interpreter_on_every_shape() {
        let mut seed = 7u64;
        for lane in [RedLane::F32, RedLane::I32] {
            for op in [RedOp::Sum, RedOp::Max, RedOp::Min] {
                let k = compile_row(&RowRed { op, lane }).expect("compiles");
                for rows in [1i64, 3, 4, 5, 8, 9] {
                    for cols in [1i64, 2, 3, 4, 5, 7, 8, 13, 64, 67] {
                        // source rows padded to cols + 3, results at stride 8 bytes
                        let ss = (cols + 3) * 4;
                        let src = 64i64;
                        let dst = src + rows * ss + 16;
                        let mut mem = vec![0u8; (dst + rows * 8 + 8) as usize];
                        let mut want = Vec::new();
                        for r in 0..rows {
                            let row: Vec<u32> = (0..cols).map(|_| draw(&mut seed)).collect();
                            for (c, x) in row.iter().enumerate() {
                                let at = (src + r * ss) as usize + 4 * c;
                                mem[at..at + 4].copy_from_slice(&x.to_le_bytes());
                            }
                            want.push(reference(op, lane, &row));
                        }
                        let args = RowArgs {
                            dst,
                            dst_stride: 8,
                            src,
                            src_stride: ss,
                            rows,
                            cols,
                        };
                        assert_eq!(k.call(&mut mem, &args), Status::Ok);
                        for (r, w) in want.iter().enumerate() {
                            let at = dst as usize + 8 * r;
                            let got = u32::from_le_bytes([
                                mem[at],
                                mem[at + 1],
                                mem[at + 2],
                                mem[at + 3],
                            ]);
                            // which NaN operand's payload a sum keeps is up to the
                            // host compiler (in the interpreter too): any NaN then
                            let nan = |x: u32| f32::from_bits(x).is_nan();
                            let same = got == *w
                                || (op == RedOp::Sum
                                    && lane == RedLane::F32
                                    && nan(got)
                                    && nan(*w));
                            assert!(
                                same,
                                "{op:?} {lane:?} {rows}x{cols} row {r}: {got:#x} want {w:#x}"
                            );
                            assert_eq!(&mem[at + 4..at + 8], &[0; 4], "gap untouched");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn every_column_reduction_matches_the_interpreter_on_every_shape() {
        let mut seed = 11u64;
        for lane in [RedLane::F32, RedLane::I32] {
            for op in [RedOp::Sum, RedOp::Max, RedOp::Min] {
                let k = compile_col(&RowRed { op, lane }).expect("compiles");
                for rows in [1i64, 2, 3, 5, 9, 17] {
                    for cols in [1i64, 2, 3, 4, 5, 7, 8, 13, 64, 67] {
                        // source rows padded to cols + 3, results 8 bytes apart
                        let ss = (cols + 3) * 4;
                        let src = 32i64;
                        let dst = src + rows * ss + 8;
                        let mut mem = vec![0u8; (dst + cols * 8 + 8) as usize];
                        let m: Vec<Vec<u32>> = (0..rows)
                            .map(|_| (0..cols).map(|_| draw(&mut seed)).collect())
                            .collect();
                        for (r, row) in m.iter().enumerate() {
                            for (c, x) in row.iter().enumerate() {
                                let at = (src + r as i64 * ss) as usize + 4 * c;
                                mem[at..at + 4].copy_from_slice(&x.to_le_bytes());
                            }
                        }
                        let args = RowArgs {
                            dst,
                            dst_stride: 8,
                            src,
                            src_stride: ss,
                            rows,
                            cols,
                        };
                        assert_eq!(k.call(&mut mem, &args), Status::Ok);
                        for c in 0..cols as usize {
                            let column: Vec<u32> = m.iter().map(|row| row[c]).collect();
                            let w = reference(op, lane, &column);
                            let at = dst as usize + 8 * c;
                            let got = u32::from_le_bytes([
                                mem[at],
                                mem[at + 1],
                                mem[at + 2],
                                mem[at + 3],
                            ]);
                            let nan = |x: u32| f32::from_bits(x).is_nan();
                            let same = got == w
                                || (op == RedOp::Sum && lane == RedLane::F32 && nan(got) && nan(w));
                            assert!(
                                same,
                                "col {op:?} {lane:?} {rows}x{cols} column {c}: {got:#x} want {w:#x}"
                            );
                            assert_eq!(&mem[at + 4..at + 8], &[0; 4], "gap untouched");
                        }
                    }
                }
                // out of bounds: a status, nothing written
                let mut mem = vec![0u8; 64];
                let far = RowArgs {
                    dst: 0,
                    dst_stride: 4,
                    src: 0,
                    src_stride: 16,
                    rows: 4,
                    cols: 5,
                };
                assert_eq!(k.call(&mut mem, &far), Status::OutOfBounds);
                let wide = RowArgs {
                    dst: 40,
                    dst_stride: 8,
                    src: 0,
                    src_stride: 16,
                    rows: 2,
                    cols: 4,
                };
                assert_eq!(k.call(&mut mem, &wide), Status::OutOfBounds);
                assert!(mem.iter().all(|&x| x == 0));
            }
        }
    }

    #[test]
    fn f32_column_sums_keep_the_interpreters_order() {
        let k = compile_col(&RowRed {
            op: RedOp::Sum,
            lane: RedLane::F32,
        })
        .expect("compiles");
        // 1e30, 9 ones, -1e30 down each of 5 columns: 0 top to bottom
        let col: Vec<f32> = std::iter::once(1e30f32)
            .chain(std::iter::repeat_n(1.0, 9))
            .chain(std::iter::once(-1e30))
            .collect();
        let mut mem = vec![0u8; 11 * 20 + 64];
        for (r, x) in col.iter().enumerate() {
            for c in 0..5 {
                let at = r * 20 + 4 * c;
                mem[at..at + 4].copy_from_slice(&x.to_le_bytes());
            }
        }
        let args = RowArgs {
            dst: 11 * 20,
            dst_stride: 4,
            src: 0,
            src_stride: 20,
            rows: 11,
            cols: 5,
        };
        assert_eq!(k.call(&mut mem, &args), Status::Ok);
        for c in 0..5 {
            let at = 220 + 4 * c;
            assert_eq!(&mem[at..at + 4], &0f32.to_le_bytes(), "column {c}");
        }
    }

    #[test]
    fn f32_sums_keep_the_interpreters_order_and_sign() {
        let k = compile_row(&RowRed {
            op: RedOp::Sum,
            lane: RedLane::F32,
        })
        .expect("compiles");
        // 1e30 + 1 + ... + 1 - 1e30: 0 left to right (each 1 is lost), 9 in
        // an order that adds the ones first
        let row: Vec<f32> = std::iter::once(1e30f32)
            .chain(std::iter::repeat_n(1.0, 9))
            .chain(std::iter::once(-1e30))
            .collect();
        let mut mem = vec![0u8; 256];
        for base in [0usize, 64] {
            for (c, x) in row.iter().enumerate() {
                mem[base + 4 * c..base + 4 * c + 4].copy_from_slice(&x.to_le_bytes());
            }
        }
        let args = RowArgs {
            dst: 200,
            dst_stride: 4,
            src: 0,
            src_stride: 64,
            rows: 2,
            cols: row.len() as i64,
        };
        assert_eq!(k.call(&mut mem, &args), Status::Ok);
        let got = f32::from_le_bytes([mem[200], mem[201], mem[202], mem[203]]);
        let want = row
            .iter()
            .skip(1)
            .fold(f64::from(row[0]), |a, &x| a + f64::from(x)) as f32;
        assert_eq!(got.to_bits(), want.to_bits());
        assert_eq!(want, 0.0);
        assert_eq!(&mem[204..208], &mem[200..204], "second row");
        // a row of one -0 sums to -0
        mem[0..4].copy_from_slice(&(-0.0f32).to_le_bytes());
        let one = RowArgs {
            rows: 1,
            cols: 1,
            ..args
        };
        assert_eq!(k.call(&mut mem, &one), Status::Ok);
        assert_eq!(&mem[200..204], &(-0.0f32).to_le_bytes());
        // out of bounds: a status, nothing written
        let far = RowArgs { src: 250, ..args };
        assert_eq!(k.call(&mut mem, &far), Status::OutOfBounds);
        let neg = RowArgs {
            dst_stride: -4,
            ..args
        };
        assert_eq!(k.call(&mut mem, &neg), Status::OutOfBounds);
    }
}
