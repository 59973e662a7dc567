//! Fused chains: several tile elementwise ops over one iteration domain as one
//! native loop. Per element position the ops run in order, each reading its
//! operands from the register an earlier op of the chain left for that tile
//! (or from memory the first time), so a `texp(tsub(a, b))` chain reads `a`
//! and `b` once and keeps the difference in a register.
//!
//! The caller guarantees what makes this equal to running the ops one by one:
//! any two tiles of the chain are either the same (same address and row
//! stride) or byte-disjoint, so each element position of the domain touches
//! its own bytes in every tile. The compiled code proves only bounds.
//!
//! Every op's destination is written, except that of an op whose tile a later
//! op of the chain overwrites (over the same domain, so no byte of it stays
//! from the earlier op and nobody can read it in between).
//!
//! Arguments (`i64`): `rows`, `cols`, then `(address, row stride)` in bytes per
//! tile slot, then one scalar per op (f32 bits or the i32 value; ignored for
//! tile-tile and unary ops).
//!
//! A chain with an exp runs in parts: f32 where the host has the wide exp
//! (`mathf::exp_wide`, 16 or 8 lanes against Cranelift's 4), f16/bf16
//! always (their exp inside the loop measured slower than alone). The ops
//! before each exp as one compiled loop, the exp as its single-op region
//! (f32: on the wide vectors), the ops after it as another loop, all parts
//! over one block of the domain (so the values between parts stay in the L1
//! cache) before the next block. Each part runs the same ops on the same
//! values as the whole chain's loop (16-bit lanes round every op to the type
//! either way) and the wide exp gives the compiled exp's bits, so the results
//! are the same; only the values an exp reads or writes go through memory.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, AbiParam, InstBuilder, MemFlagsData, Type, UserFuncName, Value,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{Linkage, Module};

use crate::codegen::{self, heap_flags, Ctx};
use crate::{Lane, Op, Operands, Region, Reject, Status};

/// Most ops in one chain.
pub const MAX_OPS: usize = 8;
/// Most distinct tiles in one chain.
pub const MAX_SLOTS: usize = 12;

/// One op of a chain and the tile slots it reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChainOp {
    /// Operation.
    pub op: Op,
    /// Operand form.
    pub operands: Operands,
    /// Slot of the first (or only) tile source.
    pub a: u8,
    /// Slot of the second tile source (binary form; otherwise equal to `a`).
    pub b: u8,
    /// Slot of the destination.
    pub dst: u8,
}

/// A chain to compile: the op sequence and its wiring over numbered tiles.
/// Addresses, strides, shapes and scalars are run-time arguments.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Chain {
    /// Lane type of every op.
    pub lane: Lane,
    /// The ops in program order.
    pub ops: Vec<ChainOp>,
    /// Number of distinct tiles (slots `0..slots`).
    pub slots: u8,
}

impl Chain {
    /// Ulp bound of the chain's approximated ops (0: bit-identical to the
    /// ops run one by one in the interpreter).
    pub fn ulp_bound(&self) -> u32 {
        self.ops
            .iter()
            .map(|o| {
                Region {
                    op: o.op,
                    lane: self.lane,
                    operands: o.operands,
                }
                .ulp_bound()
            })
            .max()
            .unwrap_or(0)
    }

    fn arg_count(&self) -> usize {
        2 + 2 * usize::from(self.slots) + self.ops.len()
    }
}

/// Run-time arguments of a chain.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChainArgs {
    /// `(byte address, row stride in bytes)` per slot.
    pub tiles: Vec<(i64, i64)>,
    /// Scalar bits per op (0 for ops without one).
    pub scalars: Vec<i64>,
    /// Rows of the domain.
    pub rows: i64,
    /// Columns of the domain.
    pub cols: i64,
}

/// Elements of each tile one block of a chain in parts covers (16 KiB of f32
/// per tile, so the up to three tiles of one part fit the L1 cache; see the
/// module doc).
pub const BLOCK: i64 = 4096;

/// A compiled chain.
pub struct ChainCompiled {
    inner: Body,
    /// The chain it implements.
    pub chain: Chain,
    /// Size of the generated machine code in bytes.
    pub code_bytes: usize,
    /// Compile time.
    pub compile_time: std::time::Duration,
}

impl std::fmt::Debug for ChainCompiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChainCompiled")
            .field("chain", &self.chain)
            .field("code_bytes", &self.code_bytes)
            .finish()
    }
}

/// The code of a chain: one loop, or parts (see the module doc).
enum Body {
    Whole(Box<codegen::Code>),
    Parts(Vec<Part>),
}

/// A part of a chain in parts: consecutive ops compiled as one loop over the
/// slots they use (`slots`: the chain's slot of each of the part's), or one
/// op alone as its single-op region (`k` its position; an f32 exp then runs
/// on the wide vectors, `crate::Compiled::call`).
enum Part {
    Loop {
        code: codegen::Code,
        ops: std::ops::Range<usize>,
        slots: Vec<u8>,
    },
    Op {
        code: crate::Compiled,
        k: usize,
    },
}

fn status(code: u32) -> Status {
    match code {
        0 => Status::Ok,
        1 => Status::OutOfBounds,
        _ => Status::Unknown,
    }
}

impl ChainCompiled {
    /// Runs the chain over `mem`. Nothing is written unless every tile's
    /// domain lies inside `mem` ([`Status::OutOfBounds`] otherwise).
    pub fn call(&self, mem: &mut [u8], args: &ChainArgs) -> Status {
        self.call_blocked(mem, args, BLOCK)
    }

    /// Whether the chain runs in parts (split at its exps).
    pub fn in_parts(&self) -> bool {
        matches!(self.inner, Body::Parts(_))
    }

    /// [`ChainCompiled::call`] with blocks of `block` elements per tile for a
    /// chain in parts (for measurements; ignored for a chain in one loop).
    pub fn call_blocked(&self, mem: &mut [u8], args: &ChainArgs, block: i64) -> Status {
        let slots = usize::from(self.chain.slots);
        if args.tiles.len() != slots || args.scalars.len() != self.chain.ops.len() {
            return Status::Unknown;
        }
        // rows that follow each other without a gap in every tile are one row
        let row = args.cols.checked_mul(self.chain.lane.bytes());
        let dense = row.is_some_and(|row| args.tiles.iter().all(|t| t.1 == row));
        let (rows, cols) = match (dense && args.rows > 1, args.rows.checked_mul(args.cols)) {
            (true, Some(n)) if n < (1 << 32) => (1, n),
            _ => (args.rows, args.cols),
        };
        let mut a = Vec::with_capacity(self.chain.arg_count());
        a.extend([rows, cols]);
        for (addr, stride) in &args.tiles {
            a.extend([*addr, *stride]);
        }
        match &self.inner {
            Body::Whole(code) => {
                a.extend(&args.scalars);
                status(code.call_args(mem, &a, self.chain.arg_count()))
            }
            Body::Parts(parts) => self.call_parts(parts, mem, a, &args.scalars, block),
        }
    }

    /// Runs the parts block by block. `a` holds `rows`, `cols` and the
    /// slots' `(address, stride)`, the layout of every part's arguments
    /// before its scalars.
    fn call_parts(
        &self,
        parts: &[Part],
        mem: &mut [u8],
        a: Vec<i64>,
        scalars: &[i64],
        block: i64,
    ) -> Status {
        // the entry proof of the whole chain's loop (`codegen::prove_rows`),
        // before any part writes: every part then passes its own
        let small = |v: &i64| (0..1 << 32).contains(v);
        if !a.iter().all(small) {
            return Status::OutOfBounds;
        }
        let (rows, cols) = (a[0], a[1]);
        if rows == 0 || cols == 0 {
            return Status::Ok;
        }
        let es = self.chain.lane.bytes();
        let len = mem.len() as u64;
        // each value below 2^32: no product or sum here overflows a u64
        let inside = a[2..].chunks(2).all(|t| {
            let end = t[0] as u64 + (rows - 1) as u64 * t[1] as u64 + (cols * es) as u64;
            end <= len
        });
        if !inside {
            return Status::OutOfBounds;
        }
        // blocks: runs of columns of the one row, or runs of whole rows
        let block = block.max(16);
        let (step_rows, step_cols) = if rows == 1 {
            (1, block)
        } else {
            ((block / cols).max(1), cols)
        };
        let mut tiles = Vec::with_capacity(a.len() - 2);
        let mut args = Vec::with_capacity(a.len() + self.chain.ops.len());
        let mut r0 = 0;
        while r0 < rows {
            let nr = step_rows.min(rows - r0);
            let mut c0 = 0;
            while c0 < cols {
                let nc = step_cols.min(cols - c0);
                tiles.clear();
                for t in a[2..].chunks(2) {
                    tiles.push((t[0] + r0 * t[1] + c0 * es, t[1]));
                }
                for p in parts {
                    let tile = |s: u8| tiles[usize::from(s)];
                    let st = match p {
                        Part::Op { code, k } => {
                            let o = &self.chain.ops[*k];
                            let ((da, ds), (aa, as_), (ba, bs)) =
                                (tile(o.dst), tile(o.a), tile(o.b));
                            let e = crate::EwArgs {
                                dst: da,
                                dst_stride: ds,
                                a: aa,
                                a_stride: as_,
                                b: ba,
                                b_stride: bs,
                                rows: nr,
                                cols: nc,
                                scalar: scalars[*k],
                            };
                            code.call(mem, &e)
                        }
                        Part::Loop { code, ops, slots } => {
                            args.clear();
                            args.extend([nr, nc]);
                            for s in slots {
                                let (addr, stride) = tile(*s);
                                args.extend([addr, stride]);
                            }
                            args.extend(&scalars[ops.clone()]);
                            status(code.call_args(mem, &args, args.len()))
                        }
                    };
                    if st != Status::Ok {
                        return st;
                    }
                }
                c0 += nc;
            }
            r0 += nr;
        }
        Status::Ok
    }
}

/// Compiles a chain, or says why not: a chain with an exp in parts (f32
/// where the host has the wide exp, f16/bf16 always; see the module doc),
/// otherwise one loop.
pub fn compile(chain: &Chain) -> Result<ChainCompiled, Reject> {
    check(chain)?;
    let exp = |o: &ChainOp| o.op == Op::Exp && o.operands == Operands::Unary;
    let split = match chain.lane {
        Lane::F32 => crate::has_wide_exp(),
        // no wide half exp, but the one loop's exp with its conversions
        // measured slower than the ops one by one (see docs/decisions.md)
        Lane::F16 | Lane::BF16 => true,
        Lane::I32 => false,
    };
    if !split || !chain.ops.iter().any(exp) {
        return compile_fused(chain);
    }
    let start = std::time::Instant::now();
    let mut parts = Vec::new();
    let mut code_bytes = 0;
    let mut k = 0;
    while k < chain.ops.len() {
        let end = if exp(&chain.ops[k]) {
            k + 1
        } else {
            (k..chain.ops.len())
                .find(|&j| exp(&chain.ops[j]))
                .unwrap_or(chain.ops.len())
        };
        if end == k + 1 {
            let o = chain.ops[k];
            let code = crate::compile(&Region {
                op: o.op,
                lane: chain.lane,
                operands: o.operands,
            })?;
            code_bytes += code.code_bytes;
            parts.push(Part::Op { code, k });
            k = end;
            continue;
        }
        // the part's loop carries only the slots its ops use
        let mut slots: Vec<u8> = Vec::new();
        let mut at = |s: u8| match slots.iter().position(|x| *x == s) {
            Some(i) => i as u8,
            None => {
                slots.push(s);
                (slots.len() - 1) as u8
            }
        };
        let ops = chain.ops[k..end]
            .iter()
            .map(|o| ChainOp {
                a: at(o.a),
                b: at(o.b),
                dst: at(o.dst),
                ..*o
            })
            .collect();
        let sub = Chain {
            lane: chain.lane,
            ops,
            slots: slots.len() as u8,
        };
        let (code, bytes) = build(&sub)?;
        code_bytes += bytes;
        parts.push(Part::Loop {
            code,
            ops: k..end,
            slots,
        });
        k = end;
    }
    Ok(ChainCompiled {
        inner: Body::Parts(parts),
        chain: chain.clone(),
        code_bytes,
        compile_time: start.elapsed(),
    })
}

/// Compiles a chain as one loop whatever its ops (an exp then runs on
/// Cranelift's 4-lane vectors), or says why not.
pub fn compile_fused(chain: &Chain) -> Result<ChainCompiled, Reject> {
    check(chain)?;
    let start = std::time::Instant::now();
    let (code, code_bytes) = build(chain)?;
    Ok(ChainCompiled {
        inner: Body::Whole(Box::new(code)),
        chain: chain.clone(),
        code_bytes,
        compile_time: start.elapsed(),
    })
}

/// What makes a chain compilable.
fn check(chain: &Chain) -> Result<(), Reject> {
    let n = chain.ops.len();
    if !(1..=MAX_OPS).contains(&n) {
        return Err(Reject::Unsupported(format!("a chain of {n} ops")));
    }
    let slots = usize::from(chain.slots);
    if slots == 0 || slots > MAX_SLOTS {
        return Err(Reject::Unsupported(format!("a chain over {slots} tiles")));
    }
    for o in &chain.ops {
        crate::supported(&Region {
            op: o.op,
            lane: chain.lane,
            operands: o.operands,
        })?;
        if [o.a, o.b, o.dst].iter().any(|s| usize::from(*s) >= slots) {
            return Err(Reject::Unsupported("a chain slot out of range".into()));
        }
    }
    Ok(())
}

/// The loop of a checked chain and its size in bytes.
fn build(chain: &Chain) -> Result<(codegen::Code, usize), Reject> {
    let mut module = codegen::new_module()?;
    let ptr = module.target_config().pointer_type();
    let mut sig = module.make_signature();
    sig.params.push(AbiParam::new(ptr));
    sig.params.push(AbiParam::new(types::I64));
    sig.params.push(AbiParam::new(ptr));
    sig.returns.push(AbiParam::new(types::I32));
    let id = module
        .declare_function("chain", Linkage::Local, &sig)
        .map_err(|e| Reject::Codegen(e.to_string()))?;
    let mut ctx = module.make_context();
    ctx.func.signature = sig;
    ctx.func.name = UserFuncName::user(0, id.as_u32());
    let mut fctx = FunctionBuilderContext::new();
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        emit(&mut b, chain, ptr);
        b.seal_all_blocks();
        b.finalize(module.target_config());
    }
    codegen::finish(module, ctx, id, &format!("{chain:?}"))
}

fn lane_types(lane: Lane) -> (Type, Type) {
    match lane {
        Lane::I32 => (types::I32, types::I32X4),
        // f16/bf16 lanes compute in f32 (loads widen, stores narrow)
        Lane::F32 | Lane::F16 | Lane::BF16 => (types::F32, types::F32X4),
    }
}

/// Loads the lane values of one element position: 4 lanes (`ty` a vector)
/// or one; 16-bit lanes widened to f32 (`crate::half`).
fn load(b: &mut FunctionBuilder, lane: Lane, ty: Type, p: Value, off: i32) -> Value {
    if !matches!(lane, Lane::F16 | Lane::BF16) {
        return b.ins().load(ty, heap_flags(), p, off);
    }
    let l = crate::half::L {
        vector: ty.is_vector(),
    };
    let h = if l.vector {
        b.ins().uload16x4(heap_flags(), p, off)
    } else {
        b.ins().uload16(types::I32, heap_flags(), p, off)
    };
    crate::half::to_f32(b, &l, lane, h)
}

/// The half bits (in i32 lanes) of an f32 result rounded to the lane type.
fn narrow(b: &mut FunctionBuilder, lane: Lane, ty: Type, v: Value) -> Value {
    let l = crate::half::L {
        vector: ty.is_vector(),
    };
    crate::half::from_f32(b, &l, lane, v)
}

/// Stores one element position's values (for 16-bit lanes the half bits
/// [`narrow`] gave).
fn store(b: &mut FunctionBuilder, lane: Lane, ty: Type, v: Value, p: Value, off: i32) {
    if !matches!(lane, Lane::F16 | Lane::BF16) {
        b.ins().store(heap_flags(), v, p, off);
    } else if ty.is_vector() {
        // four half values in the low bits of i32 lanes: pack to 8 bytes
        let n = b.ins().unarrow(v, v);
        let le = MemFlagsData::new().with_endianness(cranelift_codegen::ir::Endianness::Little);
        // the low 8 bytes as an f64 (an 8-byte store of lane 0)
        let q = b.ins().bitcast(types::F64X2, le, n);
        let q = b.ins().extractlane(q, 0);
        b.ins().store(heap_flags(), q, p, off);
    } else {
        b.ins().istore16(heap_flags(), v, p, off);
    }
}

/// The ops of one element position (`ty` a vector or scalar type) at byte
/// offset `off` of the slots' pointers `p`: first one load of every tile an
/// op reads before the chain writes it, then the ops on registers, then one
/// store per written tile (its last value). Loads before stores keep a store
/// from stalling a later load of another tile whose address has the same low
/// 12 bits (tiles a multiple of 4 KiB apart); the tiles are disjoint, so the
/// order is free. `scal` holds each op's scalar operand as a value of `ty`.
fn step(
    b: &mut FunctionBuilder,
    chain: &Chain,
    ty: Type,
    p: &[Value],
    scal: &[Option<Value>],
    off: i32,
) {
    let slots = usize::from(chain.slots);
    let half = matches!(chain.lane, Lane::F16 | Lane::BF16);
    let mut cur: Vec<Option<Value>> = vec![None; slots];
    let mut bits: Vec<Option<Value>> = vec![None; slots];
    let mut written = vec![false; slots];
    for o in &chain.ops {
        let srcs: &[u8] = match o.operands {
            Operands::Binary => &[o.a, o.b],
            _ => &[o.a],
        };
        for s in srcs {
            let s = usize::from(*s);
            if !written[s] && cur[s].is_none() {
                cur[s] = Some(load(b, chain.lane, ty, p[s], off));
            }
        }
        written[usize::from(o.dst)] = true;
    }
    for (k, o) in chain.ops.iter().enumerate() {
        let cx = Ctx {
            lane: chain.lane,
            op: o.op,
            operands: o.operands,
        };
        let (Some(x), y) = (cur[usize::from(o.a)], cur[usize::from(o.b)]) else {
            continue;
        };
        let y = match (o.operands, scal[k], y) {
            (Operands::Binary, _, Some(y)) => y,
            (Operands::ScalarLeft | Operands::ScalarRight, Some(s), _) => s,
            _ => x,
        };
        let r = if o.operands == Operands::ScalarLeft {
            cx.apply(b, ty, y, x)
        } else {
            cx.apply(b, ty, x, y)
        };
        // 16-bit lanes: every op's result rounds to the lane type, as when
        // the ops run one by one; the bits are kept for the store
        let r = if half {
            let h = narrow(b, chain.lane, ty, r);
            bits[usize::from(o.dst)] = Some(h);
            let l = crate::half::L {
                vector: ty.is_vector(),
            };
            crate::half::to_f32(b, &l, chain.lane, h)
        } else {
            r
        };
        cur[usize::from(o.dst)] = Some(r);
    }
    for (s, v) in cur.iter().enumerate() {
        if let (true, Some(v)) = (written[s], v) {
            let v = if half { bits[s].unwrap_or(*v) } else { *v };
            store(b, chain.lane, ty, v, p[s], off);
        }
    }
}

fn emit(b: &mut FunctionBuilder, chain: &Chain, ptr: Type) {
    let slots = usize::from(chain.slots);
    let (st, vt) = lane_types(chain.lane);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let p = b.block_params(entry).to_vec();
    let (base, len, args) = (p[0], p[1], p[2]);
    let af = MemFlagsData::trusted();
    let arg =
        |b: &mut FunctionBuilder, i: usize| b.ins().load(types::I64, af, args, (i * 8) as i32);
    let rows = arg(b, 0);
    let cols = arg(b, 1);
    let tiles: Vec<(Value, Value)> = (0..slots)
        .map(|s| (arg(b, 2 + 2 * s), arg(b, 3 + 2 * s)))
        .collect();
    // scalar operands, as lane scalars and as splatted vectors
    let mut scal_s = Vec::with_capacity(chain.ops.len());
    let mut scal_v = Vec::with_capacity(chain.ops.len());
    for (k, o) in chain.ops.iter().enumerate() {
        if matches!(o.operands, Operands::ScalarLeft | Operands::ScalarRight) {
            let bits = arg(b, 2 + 2 * slots + k);
            let low = b.ins().ireduce(types::I32, bits);
            let s = match chain.lane {
                Lane::I32 => low,
                // f16/bf16 scalars arrive as f32 bits (values of the type)
                Lane::F32 | Lane::F16 | Lane::BF16 => {
                    b.ins().bitcast(types::F32, MemFlagsData::new(), low)
                }
            };
            let v = b.ins().splat(vt, s);
            scal_s.push(Some(s));
            scal_v.push(Some(v));
        } else {
            scal_s.push(None);
            scal_v.push(None);
        }
    }

    let ret_ok = b.create_block();
    let ret_bad = b.create_block();
    let row_head = b.create_block();

    // every argument below 2^32, a non-empty domain, every tile's last row
    // within len
    let es = chain.lane.bytes();
    // bytes of one vector step (4 lanes)
    let vw = 4 * es;
    let row_bytes = b.ins().imul_imm_s(cols, es);
    let mut used = vec![rows, cols];
    for (a, s) in &tiles {
        used.extend([*a, *s]);
    }
    let ext: Vec<(Value, Value, Value)> = tiles.iter().map(|(a, s)| (*a, *s, row_bytes)).collect();
    codegen::prove_rows(b, &used, rows, cols, len, &ext, ret_ok, ret_bad);
    let zero = b.ins().iconst(types::I64, 0);
    b.ins().jump(row_head, &[zero.into()]);

    // row_head(r): per row the slots' row pointers, then the column loops
    // carry one pointer per slot (bumped together) and stop at slot 0's row
    // end: `unroll` vectors per iteration, then single vectors, then scalar
    // elements
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
        for _ in 0..slots {
            b.append_block_param(blk, ptr);
        }
    }
    let to_ptr = |b: &mut FunctionBuilder, v: Value| -> Value {
        if ptr == types::I64 {
            v
        } else {
            b.ins().ireduce(ptr, v)
        }
    };

    let r = codegen::row_body(b, row_head, rows, ret_ok);
    let rowp: Vec<Value> = tiles
        .iter()
        .map(|(addr, stride)| {
            let ro = b.ins().imul(r, *stride);
            let o = b.ins().iadd(*addr, ro);
            let o = to_ptr(b, o);
            b.ins().iadd(base, o)
        })
        .collect();
    let rb = to_ptr(b, row_bytes);
    let end = b.ins().iadd(rowp[0], rb);
    let args_of = |v: &[Value]| -> Vec<cranelift_codegen::ir::BlockArg> {
        v.iter().map(|x| (*x).into()).collect()
    };
    b.ins().jump(main_head, &args_of(&rowp));
    let bump = |b: &mut FunctionBuilder, ps: &[Value], by: i64| -> Vec<Value> {
        ps.iter().map(|p| b.ins().iadd_imm_s(*p, by)).collect()
    };
    // exp's polynomial and long chains need registers: fewer vectors at once
    let unroll: i64 = if chain
        .ops
        .iter()
        .any(|o| matches!(o.op, Op::Exp | Op::Log | Op::Pow))
    {
        2
    } else if chain.ops.len() > 3 {
        4
    } else {
        8
    };

    b.switch_to_block(main_head);
    let ps = b.block_params(main_head).to_vec();
    let next = b.ins().iadd_imm_s(ps[0], unroll * vw);
    let fits = b.ins().icmp(IntCC::UnsignedLessThanOrEqual, next, end);
    b.ins()
        .brif(fits, main_body, &args_of(&ps), vec_head, &args_of(&ps));

    b.switch_to_block(main_body);
    let ps = b.block_params(main_body).to_vec();
    for k in 0..unroll {
        step(b, chain, vt, &ps, &scal_v, (k * vw) as i32);
    }
    let nx = bump(b, &ps, unroll * vw);
    b.ins().jump(main_head, &args_of(&nx));

    b.switch_to_block(vec_head);
    let ps = b.block_params(vec_head).to_vec();
    let next = b.ins().iadd_imm_s(ps[0], vw);
    let fits = b.ins().icmp(IntCC::UnsignedLessThanOrEqual, next, end);
    b.ins()
        .brif(fits, vec_body, &args_of(&ps), tail_head, &args_of(&ps));

    b.switch_to_block(vec_body);
    let ps = b.block_params(vec_body).to_vec();
    step(b, chain, vt, &ps, &scal_v, 0);
    let nx = bump(b, &ps, vw);
    b.ins().jump(vec_head, &args_of(&nx));

    b.switch_to_block(tail_head);
    let ps = b.block_params(tail_head).to_vec();
    let left = b.ins().icmp(IntCC::UnsignedLessThan, ps[0], end);
    b.ins().brif(left, tail_body, &args_of(&ps), row_next, &[]);

    b.switch_to_block(tail_body);
    let ps = b.block_params(tail_body).to_vec();
    step(b, chain, st, &ps, &scal_s, 0);
    let nx = bump(b, &ps, es);
    b.ins().jump(tail_head, &args_of(&nx));

    b.switch_to_block(row_next);
    let r1 = b.ins().iadd_imm_s(r, 1);
    b.ins().jump(row_head, &[r1.into()]);

    codegen::emit_exits(b, ret_ok, ret_bad);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EwArgs;

    /// Runs `chain` op by op with the single-op regions on a copy of `mem`.
    fn one_by_one(chain: &Chain, mem: &[u8], args: &ChainArgs) -> Vec<u8> {
        let mut m = mem.to_vec();
        for (k, o) in chain.ops.iter().enumerate() {
            let r = crate::compile(&Region {
                op: o.op,
                lane: chain.lane,
                operands: o.operands,
            })
            .expect("single op compiles");
            let t = |s: u8| args.tiles[usize::from(s)];
            let e = EwArgs {
                dst: t(o.dst).0,
                dst_stride: t(o.dst).1,
                a: t(o.a).0,
                a_stride: t(o.a).1,
                b: t(o.b).0,
                b_stride: t(o.b).1,
                rows: args.rows,
                cols: args.cols,
                scalar: args.scalars[k],
            };
            assert_eq!(r.call(&mut m, &e), Status::Ok);
        }
        m
    }

    fn fill(n: usize, seed: u32) -> Vec<u8> {
        let mut x = seed | 1;
        (0..n)
            .flat_map(|i| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                let v = match i % 23 {
                    0 => f32::NAN,
                    1 => f32::INFINITY,
                    2 => f32::NEG_INFINITY,
                    3 => -0.0,
                    _ => (x % 2000) as f32 / 100.0 - 10.0,
                };
                v.to_le_bytes()
            })
            .collect()
    }

    fn op(op: Op, operands: Operands, a: u8, b: u8, dst: u8) -> ChainOp {
        ChainOp {
            op,
            operands,
            a,
            b,
            dst,
        }
    }

    #[test]
    fn sub_exp_mul_equals_the_ops_one_by_one() {
        use Operands::*;
        // t = a - b; t = exp t; d = t * c, over 5 rows of 13 of 16-column tiles
        let chain = Chain {
            lane: Lane::F32,
            ops: vec![
                op(Op::Sub, Binary, 0, 1, 3),
                op(Op::Exp, Unary, 3, 3, 3),
                op(Op::Mul, Binary, 3, 2, 4),
            ],
            slots: 5,
        };
        let c = compile(&chain).expect("compiles");
        let mut mem = fill(5 * 16 * 5, 7);
        let args = ChainArgs {
            tiles: (0..5).map(|s| (s * 320, 64)).collect(),
            scalars: vec![0; 3],
            rows: 5,
            cols: 13,
        };
        let want = one_by_one(&chain, &mem, &args);
        assert_eq!(c.call(&mut mem, &args), Status::Ok);
        assert_eq!(mem, want);
    }

    /// An f32 chain with exps runs in parts on a host with the wide exp and
    /// gives the one-loop chain's bits: exps first, in the middle and last,
    /// in place and into another tile, dense and strided tiles, odd widths
    /// (vector tails), every block size from one element to the whole
    /// domain.
    #[test]
    fn chains_in_parts_equal_the_one_loop_chain() {
        use Operands::*;
        let chains = [
            vec![
                op(Op::Exp, Unary, 0, 0, 3),
                op(Op::Mul, ScalarRight, 3, 3, 3),
                op(Op::Add, Binary, 3, 1, 4),
            ],
            vec![
                op(Op::Sub, Binary, 0, 1, 3),
                op(Op::Max, ScalarRight, 3, 3, 3),
                op(Op::Exp, Unary, 3, 3, 3),
                op(Op::Mul, Binary, 3, 2, 4),
                op(Op::Exp, Unary, 1, 1, 1),
                op(Op::Div, Binary, 4, 1, 4),
            ],
            vec![
                op(Op::Sub, Binary, 0, 1, 3),
                op(Op::Neg, Unary, 3, 3, 3),
                op(Op::Exp, Unary, 3, 3, 4),
            ],
        ];
        for ops in chains {
            let chain = Chain {
                lane: Lane::F32,
                ops,
                slots: 5,
            };
            let parts = compile(&chain).expect("compiles");
            let whole = compile_fused(&chain).expect("compiles");
            assert!(!whole.in_parts());
            assert_eq!(parts.in_parts(), crate::has_wide_exp());
            for (rows, cols, stride) in
                [(5i64, 13i64, 64i64), (3, 16, 64), (4, 37, 160), (1, 3, 16)]
            {
                let mem0 = fill(5 * 5 * 40, (rows * 7 + cols) as u32);
                let args = ChainArgs {
                    tiles: (0..5).map(|s| (s * 800, stride)).collect(),
                    scalars: (0..chain.ops.len())
                        .map(|k| i64::from((0.75f32 + k as f32).to_bits()))
                        .collect(),
                    rows,
                    cols,
                };
                let mut want = mem0.clone();
                assert_eq!(whole.call(&mut want, &args), Status::Ok);
                // the one-loop chain equals the ops one by one
                let by_op = one_by_one(&chain, &mem0, &args);
                let nan = |x: &[u8], y: &[u8]| {
                    let f = |v: &[u8]| f32::from_le_bytes([v[0], v[1], v[2], v[3]]);
                    x == y || (f(x).is_nan() && f(y).is_nan())
                };
                assert!(want.chunks(4).zip(by_op.chunks(4)).all(|(x, y)| nan(x, y)));
                for block in [1, 16, 20, 64, BLOCK, i64::MAX] {
                    let mut mem = mem0.clone();
                    assert_eq!(parts.call_blocked(&mut mem, &args, block), Status::Ok);
                    let bad = (0..mem.len() / 4)
                        .find(|&i| !nan(&mem[4 * i..4 * i + 4], &want[4 * i..4 * i + 4]));
                    assert_eq!(bad, None, "{:?} {rows}x{cols} block {block}", chain.ops);
                }
            }
            // a tile past the buffer: nothing written, whichever part
            let mem0 = fill(5 * 5 * 40, 9);
            let mut mem = mem0.clone();
            let args = ChainArgs {
                tiles: (0..5)
                    .map(|s| (s * 800 + i64::from(s == 4) * 40, 160))
                    .collect(),
                scalars: vec![0; chain.ops.len()],
                rows: 5,
                cols: 40,
            };
            assert_eq!(parts.call(&mut mem, &args), Status::OutOfBounds);
            assert_eq!(mem, mem0);
            let hostile = ChainArgs { rows: -1, ..args };
            assert_eq!(parts.call(&mut mem, &hostile), Status::OutOfBounds);
            assert_eq!(mem, mem0);
        }
    }

    #[test]
    fn half_lane_chains_equal_the_ops_one_by_one() {
        use Operands::*;
        // t = a - b; t = exp t; d = t * c; d = d + 1.5; e = ln |d|... as
        // ops: abs, log, then rsqrt in place, over odd shapes (vector steps
        // and the scalar tail), every 16-bit pattern kind as input
        for lane in [Lane::F16, Lane::BF16] {
            let chain = Chain {
                lane,
                ops: vec![
                    op(Op::Sub, Binary, 0, 1, 3),
                    op(Op::Exp, Unary, 3, 3, 3),
                    op(Op::Mul, Binary, 3, 2, 4),
                    op(Op::Add, ScalarRight, 4, 4, 4),
                    op(Op::Abs, Unary, 4, 4, 5),
                    op(Op::Log, Unary, 5, 5, 5),
                    op(Op::Rsqrt, Unary, 0, 0, 0),
                    op(Op::Max, ScalarLeft, 5, 5, 1),
                ],
                slots: 6,
            };
            let c = compile(&chain).expect("compiles");
            assert_eq!(c.chain.ulp_bound(), 1, "the half-type bounds");
            for (rows, cols, stride) in [
                (5i64, 13i64, 64i64),
                (3, 37, 96),
                (1, 3, 8),
                (2, 32, 64),
                (4, 16, 64),
            ] {
                let n = 6 * 5 * 96;
                let mut x = (rows * 131 + cols) as u32 | 1;
                let mut mem: Vec<u8> = (0..n)
                    .flat_map(|i| {
                        x ^= x << 13;
                        x ^= x >> 17;
                        x ^= x << 5;
                        let h = if i % 5 == 0 {
                            x as u16
                        } else if lane == Lane::F16 {
                            (x as u16 & 0x83ff) | (((x >> 16) as u16 % 10 + 10) << 10)
                        } else {
                            ((((x >> 8) % 2000) as f32 / 100.0 - 10.0).to_bits() >> 16) as u16
                        };
                        h.to_le_bytes()
                    })
                    .collect();
                let args = ChainArgs {
                    tiles: (0..6).map(|s| (s * 5 * 96, stride)).collect(),
                    scalars: vec![0, 0, 0, i64::from(1.5f32.to_bits()), 0, 0, 0, 0],
                    rows,
                    cols,
                };
                let want = one_by_one(&chain, &mem, &args);
                assert_eq!(c.call(&mut mem, &args), Status::Ok);
                let diff: Vec<usize> = (0..mem.len() / 2)
                    .filter(|&i| mem[2 * i..2 * i + 2] != want[2 * i..2 * i + 2])
                    .collect();
                assert!(
                    diff.is_empty(),
                    "{lane:?} {rows}x{cols}: {} differ, first {:?}",
                    diff.len(),
                    &diff[..diff.len().min(12)]
                );
            }
        }
    }

    #[test]
    fn in_place_shared_inputs_and_scalars_on_i32() {
        use Operands::*;
        // a = a + a; d = 5 - a; d = d * 3; d = max(d, a); a = a ^ d
        let chain = Chain {
            lane: Lane::I32,
            ops: vec![
                op(Op::Add, Binary, 0, 0, 0),
                op(Op::Sub, ScalarLeft, 0, 0, 1),
                op(Op::Mul, ScalarRight, 1, 1, 1),
                op(Op::Max, Binary, 1, 0, 1),
                op(Op::Xor, Binary, 0, 1, 0),
            ],
            slots: 2,
        };
        let c = compile(&chain).expect("compiles");
        for (rows, cols, stride) in [(3, 37, 160), (4, 40, 160), (1, 3, 16)] {
            let mut mem = fill(2 * 4 * 40, rows as u32 * 31 + cols as u32);
            let args = ChainArgs {
                tiles: vec![(0, stride), (640, stride)],
                scalars: vec![0, 5, 3, 0, 0],
                rows,
                cols,
            };
            let want = one_by_one(&chain, &mem, &args);
            assert_eq!(c.call(&mut mem, &args), Status::Ok);
            assert_eq!(mem, want, "{rows}x{cols}");
        }
    }

    #[test]
    fn out_of_bounds_writes_nothing() {
        use Operands::*;
        let chain = Chain {
            lane: Lane::F32,
            ops: vec![
                op(Op::Abs, Unary, 0, 0, 1),
                op(Op::Add, ScalarRight, 1, 1, 2),
            ],
            slots: 3,
        };
        let c = compile(&chain).expect("compiles");
        let mem0 = fill(64, 3);
        let mut mem = mem0.clone();
        // the third tile's last row ends 4 bytes past the buffer
        let args = ChainArgs {
            tiles: vec![(0, 32), (64, 32), (196, 32)],
            scalars: vec![0, 1.0f32.to_bits() as i64],
            rows: 2,
            cols: 8,
        };
        assert_eq!(c.call(&mut mem, &args), Status::OutOfBounds);
        assert_eq!(mem, mem0);
        let hostile = ChainArgs {
            rows: -1,
            ..args.clone()
        };
        assert_eq!(c.call(&mut mem, &hostile), Status::OutOfBounds);
        let wrong = ChainArgs {
            scalars: vec![],
            ..args
        };
        assert_eq!(c.call(&mut mem, &wrong), Status::Unknown);
        assert_eq!(mem, mem0);
    }

    #[test]
    fn unsupported_ops_are_rejected() {
        let chain = Chain {
            lane: Lane::I32,
            ops: vec![op(Op::Exp, Operands::Unary, 0, 0, 0)],
            slots: 1,
        };
        assert!(matches!(compile(&chain), Err(Reject::Unsupported(_))));
        let bad_slot = Chain {
            lane: Lane::F32,
            ops: vec![op(Op::Neg, Operands::Unary, 0, 0, 3)],
            slots: 2,
        };
        assert!(matches!(compile(&bad_slot), Err(Reject::Unsupported(_))));
    }
}
