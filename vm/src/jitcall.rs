//! Tier-up: when a tile elementwise op runs often enough (or always, with
//! `--jit always`), it runs as native code from `pto-jit` instead of the
//! interpreter. Compiled regions are cached per run and shared by all blocks.
//! The JIT region reports the same memory accesses to the checker, and under
//! `--crosscheck` the interpreter runs next to it on a copy of the core's
//! buffers and the two results are compared element by element.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use pto_asm::ty::{BLayout, SLayout, TileLoc};
use pto_isa_spec::DType;
use pto_jit::{compile, Compiled, EwArgs, Lane, Op, Operands, Region, Status};

use crate::exec::{fault, tile, Accesses, Fault};
use crate::mem::Local;
use crate::num::{self, Num};
use crate::program::EwOp;
use crate::value::{Space, Tile};
use crate::JitMode;

/// What the JIT did during a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JitStats {
    /// Regions compiled.
    pub compiled: u32,
    /// Regions rejected, by reason.
    pub rejected: BTreeMap<String, u32>,
    /// Executions of compiled code.
    pub jit_execs: u64,
    /// Executions in the interpreter of ops (and vector scopes) whose region
    /// had not yet run `--jit-threshold` times (`--jit auto`).
    pub interp_execs: u64,
    /// Compile time of the regions the run used, in microseconds (each is
    /// compiled once per process; a region compiled by an earlier run counts
    /// its original compile time).
    pub compile_us: u64,
    /// Bytes of generated code.
    pub code_bytes: u64,
    /// Executions of native matmul regions (`tmatmul`/`tgemv` and `mad`
    /// families).
    pub matmul_execs: u64,
    /// Executions of row-copy DMA regions (`tload`/`tstore`).
    pub dma_execs: u64,
    /// Executions of compiled vector scopes.
    pub scope_execs: u64,
    /// Ops that compiled vector scopes handed to the host (the
    /// interpreter's code for an op without a native form), counted per
    /// execution.
    pub scope_host_ops: u64,
    /// Those host ops by op name (what to give a native form next).
    pub scope_host_by_op: BTreeMap<&'static str, u64>,
    /// Fused tile chains compiled (`jitchain`).
    pub chains_compiled: u32,
    /// Of those, chains that run in parts: a chain with an exp (f32 on a
    /// host with the wide exp, f16/bf16 always) runs each exp as its
    /// single-op region between compiled loops of the other ops
    /// (`pto_jit::chain`), so its values pass through memory at each exp.
    pub chains_in_parts: u32,
    /// Executions of fused tile chains.
    pub chain_execs: u64,
    /// Tile ops executed inside fused chains.
    pub chain_ops: u64,
}

/// Counters of one run, shared by every block. Compiled code itself is cached
/// for the whole process (a region's code does not depend on the run), so
/// repeated runs and conformance tiers compile each region once.
#[derive(Default)]
pub struct JitCache {
    counts: Mutex<HashMap<Region, u32>>,
    /// regions this run has used (for its statistics)
    seen: Mutex<std::collections::HashSet<Region>>,
    /// row-copy DMA regions: executions per (load?, element size)
    dma_counts: Mutex<HashMap<(bool, usize), u32>>,
    /// matmul regions: executions per (op, A type, B type)
    mm_counts: Mutex<HashMap<(pto_isa_spec::Opcode, DType, DType), u32>>,
    stats: Mutex<JitStats>,
    scopes: crate::jitscope::ScopeCache,
    chains: crate::jitchain::ChainCache,
    rows: crate::jitrow::RowCache,
}

type CodeMap = Mutex<HashMap<Region, Result<Arc<Compiled>, String>>>;

fn code_cache() -> &'static CodeMap {
    static CODE: std::sync::OnceLock<CodeMap> = std::sync::OnceLock::new();
    CODE.get_or_init(Default::default)
}

impl JitCache {
    /// Counts a run of a matmul-family op (`tmatmul`/`tgemv`, `mad`) under
    /// `key` (opcode, operand types) and says whether it runs natively:
    /// always outside `--jit auto`, else once it ran more than `threshold`
    /// times (a cold run is counted).
    fn matmul_ripe(
        &self,
        key: (pto_isa_spec::Opcode, DType, DType),
        mode: JitMode,
        threshold: u32,
    ) -> bool {
        let ripe = crate::jitrow::ripe(&self.mm_counts, key, mode, threshold);
        if !ripe {
            self.note_cold();
        }
        ripe
    }

    /// Counts an eligible op that ran in the interpreter because its region
    /// has not yet run `--jit-threshold` times.
    pub(crate) fn note_cold(&self) {
        if let Ok(mut st) = self.stats.lock() {
            st.interp_execs += 1;
        }
    }

    /// The statistics so far.
    pub fn stats(&self) -> JitStats {
        self.stats.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// The vector-scope tier's per-run state.
    pub(crate) fn scopes(&self) -> &crate::jitscope::ScopeCache {
        &self.scopes
    }

    /// Counts a vector scope compiled (compile time, code bytes) or rejected.
    pub(crate) fn note_scope(&self, r: Result<(std::time::Duration, usize), String>) {
        if let Ok(mut st) = self.stats.lock() {
            match r {
                Ok((t, bytes)) => {
                    st.compiled += 1;
                    st.compile_us += t.as_micros() as u64;
                    st.code_bytes += bytes as u64;
                }
                Err(e) => *st.rejected.entry(e).or_default() += 1,
            }
        }
    }

    /// The fused-chain tier's per-run state.
    pub(crate) fn chains(&self) -> &crate::jitchain::ChainCache {
        &self.chains
    }

    /// Counts a rejection (a region, scope or chain not compiled) by reason.
    pub(crate) fn note_reject(&self, why: String) {
        if let Ok(mut st) = self.stats.lock() {
            *st.rejected.entry(why).or_default() += 1;
        }
    }

    /// Counts a fused chain compiled (or found compiled) for this run.
    pub(crate) fn note_chain_compiled(&self, t: std::time::Duration, bytes: usize, parts: bool) {
        if let Ok(mut st) = self.stats.lock() {
            st.chains_compiled += 1;
            st.chains_in_parts += u32::from(parts);
            st.compile_us += t.as_micros() as u64;
            st.code_bytes += bytes as u64;
        }
    }

    /// Counts one execution of a fused chain of `ops` ops.
    pub(crate) fn note_chain_exec(&self, ops: usize) {
        if let Ok(mut st) = self.stats.lock() {
            st.chain_execs += 1;
            st.chain_ops += ops as u64;
        }
    }

    /// The row-reduction tier's per-run state.
    pub(crate) fn rows(&self) -> &crate::jitrow::RowCache {
        &self.rows
    }

    /// Counts one execution of compiled tile code.
    pub(crate) fn note_exec(&self) {
        if let Ok(mut st) = self.stats.lock() {
            st.jit_execs += 1;
        }
    }

    /// Counts one execution of a compiled vector scope that handed
    /// `host_ops` ops to the host, `by_op` of them per op name.
    pub(crate) fn note_scope_exec(
        &self,
        host_ops: u64,
        by_op: impl Iterator<Item = (&'static str, u64)>,
    ) {
        if let Ok(mut st) = self.stats.lock() {
            st.scope_execs += 1;
            st.scope_host_ops += host_ops;
            for (name, n) in by_op {
                *st.scope_host_by_op.entry(name).or_default() += n;
            }
        }
    }

    fn get(&self, r: &Region) -> Result<Arc<Compiled>, String> {
        let res = {
            let mut code = code_cache()
                .lock()
                .map_err(|_| "JIT cache poisoned".to_string())?;
            match code.get(r) {
                Some(c) => c.clone(),
                None => {
                    let res = compile(r).map(Arc::new).map_err(|e| e.to_string());
                    code.insert(*r, res.clone());
                    res
                }
            }
        };
        // a run's statistics count every region it needed once, whether this
        // run compiled it or found it in the process-wide cache (so they do
        // not depend on which run or test went first)
        let first = self.seen.lock().map(|mut s| s.insert(*r)).unwrap_or(false);
        if first {
            if let Ok(mut st) = self.stats.lock() {
                match &res {
                    Ok(c) => {
                        st.compiled += 1;
                        st.compile_us += c.compile_time.as_micros() as u64;
                        st.code_bytes += c.code_bytes as u64;
                    }
                    Err(e) => *st.rejected.entry(e.clone()).or_default() += 1,
                }
            }
        }
        res
    }
}

fn lane(dt: DType) -> Option<Lane> {
    match dt {
        DType::F32 => Some(Lane::F32),
        DType::I32 => Some(Lane::I32),
        DType::F16 => Some(Lane::F16),
        DType::BF16 => Some(Lane::BF16),
        _ => None,
    }
}

/// Under `--crosscheck`, the interpreter's run of a region on a copy of
/// `local`: what the compiled run's result is compared with (None when the
/// crosscheck is off).
pub(crate) fn reference(
    crosscheck: bool,
    local: &Local,
    interpret: impl FnOnce(&mut Local, &mut Accesses) -> Result<(), Fault>,
) -> Result<Option<Local>, Fault> {
    if !crosscheck {
        return Ok(None);
    }
    let mut copy = local.clone();
    interpret(&mut copy, &mut Accesses::default())?;
    Ok(Some(copy))
}

pub(crate) fn jit_op(op: EwOp) -> Option<Op> {
    Some(match op {
        EwOp::Add => Op::Add,
        EwOp::Sub => Op::Sub,
        EwOp::Mul => Op::Mul,
        EwOp::Div => Op::Div,
        EwOp::Max => Op::Max,
        EwOp::Min => Op::Min,
        EwOp::Abs => Op::Abs,
        EwOp::Neg => Op::Neg,
        EwOp::Sqrt => Op::Sqrt,
        EwOp::Recip => Op::Recip,
        EwOp::Rsqrt => Op::Rsqrt,
        EwOp::Relu => Op::Relu,
        EwOp::And => Op::And,
        EwOp::Or => Op::Or,
        EwOp::Xor => Op::Xor,
        EwOp::Exp => Op::Exp,
        EwOp::Log => Op::Log,
        _ => return None,
    })
}

fn plain_ub(t: &Tile) -> bool {
    t.loc == TileLoc::Vec && t.blayout == BLayout::RowMajor && t.slayout == SLayout::NoneBox
}

/// A plain (unboxed) vec tile's orientation: `Some(false)` row-major,
/// `Some(true)` column-major, `None` anything else.
pub(crate) fn orientation(t: &Tile) -> Option<bool> {
    if t.loc != TileLoc::Vec || t.slayout != SLayout::NoneBox {
        return None;
    }
    match t.blayout {
        BLayout::RowMajor => Some(false),
        BLayout::ColMajor => Some(true),
    }
}

/// How the JIT walks an elementwise op's `v_row x v_col` domain: as lines of
/// consecutive elements, the rows of row-major tiles or the columns of
/// column-major ones (every operand has the same orientation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Lines {
    /// Column-major tiles: a line is a column.
    pub col_major: bool,
    /// Lines.
    pub lines: i64,
    /// Elements per line.
    pub len: i64,
}

impl Lines {
    /// The lines of a `v_row x v_col` domain.
    pub(crate) fn of(col_major: bool, v_row: i64, v_col: i64) -> Lines {
        let (lines, len) = if col_major {
            (v_col, v_row)
        } else {
            (v_row, v_col)
        };
        Lines {
            col_major,
            lines,
            len,
        }
    }

    /// Bytes between consecutive lines of `t`.
    pub(crate) fn stride(&self, t: &Tile) -> i64 {
        let pitch = if self.col_major { t.rows } else { t.cols };
        pitch * t.elem.bytes() as i64
    }

    /// The accesses of `t` over a column-major domain: the interpreter's
    /// own records (`tile::record`). Row-major callers record their rows
    /// themselves.
    pub(crate) fn record_cols(&self, acc: &mut Accesses, t: &Tile, write: bool) {
        debug_assert!(self.col_major);
        let (v_row, v_col) = (self.len, self.lines);
        crate::exec::tile::record(acc, t, v_row, v_col, write);
    }
}

/// An elementwise op as the interpreter sees it.
pub struct EwCall<'t> {
    /// Operation.
    pub op: EwOp,
    /// First source.
    pub a: &'t Tile,
    /// Second source (binary).
    pub b: Option<&'t Tile>,
    /// Scalar operand and whether it comes first.
    pub s: Option<(Num, bool)>,
    /// Destination.
    pub dst: &'t Tile,
}

impl EwCall<'_> {
    pub(crate) fn interpret(&self, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
        match self.s {
            Some((s, first)) => tile::tews(local, self.op, self.a, s, first, self.dst, acc),
            None => tile::tew(local, self.op, self.a, self.b, self.dst, acc),
        }
    }

    /// Whether the tiles are column-major (all are, or all are row-major:
    /// see [`EwCall::region`]).
    pub(crate) fn col_major(&self) -> bool {
        self.dst.blayout == BLayout::ColMajor
    }

    /// The region this call would run, if the JIT can take it: plain vec
    /// tiles of one element type, all row-major or all column-major. In a
    /// column-major call each source is the destination itself or disjoint
    /// from it, since the region walks columns where the interpreter walks rows.
    pub(crate) fn region(&self) -> Option<Region> {
        let l = lane(self.dst.elem)?;
        let tiles = [Some(self.a), self.b, Some(self.dst)];
        let o = orientation(self.dst)?;
        if !tiles
            .iter()
            .flatten()
            .all(|t| orientation(t) == Some(o) && t.elem == self.dst.elem)
        {
            return None;
        }
        if o {
            let d = self.dst;
            let (lo, hi) = (d.addr, d.addr + d.bytes());
            let apart = |t: &Tile| {
                (t.addr == d.addr && t.rows == d.rows) || t.addr + t.bytes() <= lo || hi <= t.addr
            };
            if ![Some(self.a), self.b].iter().flatten().all(|t| apart(t)) {
                return None;
            }
        }
        let operands = match (self.b, self.s) {
            (Some(_), _) => Operands::Binary,
            (None, Some((_, true))) => Operands::ScalarLeft,
            (None, Some((_, false))) => Operands::ScalarRight,
            (None, None) => Operands::Unary,
        };
        Some(Region {
            op: jit_op(self.op)?,
            lane: l,
            operands,
        })
    }
}

/// Runs an elementwise op through the JIT when the mode and counters say so;
/// otherwise (or when the JIT cannot take it) through the interpreter.
pub fn run_ew(
    cache: &JitCache,
    mode: JitMode,
    threshold: u32,
    crosscheck: bool,
    call: &EwCall<'_>,
    local: &mut Local,
    acc: &mut Accesses,
) -> Result<(), Fault> {
    let region = match (mode, call.region()) {
        (JitMode::Off, _) | (_, None) => return call.interpret(local, acc),
        (_, Some(r)) => r,
    };
    // source valid regions smaller than the destination's: the interpreter reports it
    let d = call.dst;
    let srcs = [Some(call.a), call.b];
    if d.v_row < 0
        || d.v_col < 0
        || d.v_row > d.rows
        || d.v_col > d.cols
        || srcs
            .iter()
            .flatten()
            .any(|t| t.v_row < d.v_row || t.v_col < d.v_col)
    {
        return call.interpret(local, acc);
    }
    if mode == JitMode::Auto {
        let n = cache
            .counts
            .lock()
            .map(|mut c| {
                let e = c.entry(region).or_insert(0);
                *e += 1;
                *e
            })
            .unwrap_or(0);
        if n <= threshold {
            cache.note_cold();
            return call.interpret(local, acc);
        }
    }
    let code = match cache.get(&region) {
        Ok(c) => c,
        Err(_) => return call.interpret(local, acc),
    };
    let es = d.elem.bytes() as i64;
    // a 16-bit float region computes in f32 and rounds once more: exact
    // only for operands of the tile's type, so other scalars stay interpreted
    if let (Some((v, _)), DType::F16 | DType::BF16) = (call.s, d.elem) {
        let mut b = [0u8; 2];
        num::write(&mut b, d.elem, v);
        if num::read(&b, d.elem).f().to_bits() != v.f().to_bits() {
            return call.interpret(local, acc);
        }
    }
    let scalar = match call.s {
        Some((Num::F(f), _)) if d.elem.is_float() => (f as f32).to_bits() as i64,
        Some((v @ Num::I(_), _)) if d.elem.is_float() => (v.f() as f32).to_bits() as i64,
        Some((v, _)) => num::wrap(v.i(), DType::I32) as u32 as i64,
        None => 0,
    };
    let b = call.b.unwrap_or(call.a);
    let lines = Lines::of(call.col_major(), d.v_row, d.v_col);
    let args = EwArgs {
        dst: d.addr as i64,
        dst_stride: lines.stride(d),
        a: call.a.addr as i64,
        a_stride: lines.stride(call.a),
        b: b.addr as i64,
        b_stride: lines.stride(b),
        rows: lines.lines,
        cols: lines.len,
        scalar,
    };
    let reference = reference(crosscheck, local, |copy, scratch| {
        call.interpret(copy, scratch)
    })?;
    let size = local.size(Space::Ub);
    // the op writes only the destination's rows
    let (lo, hi) = crate::mem::rows_span(args.dst, args.rows, args.dst_stride, args.cols * es);
    let ub = local.whole_mut(Space::Ub, lo, hi)?;
    match code.call(ub, &args) {
        Status::Ok => {}
        Status::OutOfBounds => {
            return fault(format!(
                "a {}x{} {} tile operand reaches outside the {size} bytes of UB",
                d.v_row, d.v_col, d.elem
            ))
        }
        Status::Unknown => return fault("compiled code returned an unknown status"),
    }
    if let Ok(mut st) = cache.stats.lock() {
        st.jit_execs += 1;
    }
    if acc.on && lines.col_major {
        // the interpreter's records: each operand's columns, in operand order
        for t in srcs.iter().flatten() {
            lines.record_cols(acc, t, false);
        }
        lines.record_cols(acc, d, true);
    } else if acc.on {
        for r in 0..d.v_row {
            for t in srcs.iter().flatten() {
                acc.add(
                    Space::Ub,
                    t.addr + (r * t.cols * es) as u64,
                    (d.v_col * es) as u64,
                    false,
                );
            }
            acc.add(
                Space::Ub,
                d.addr + (r * d.cols * es) as u64,
                (d.v_col * es) as u64,
                true,
            );
        }
    }
    if let Some(reference) = reference {
        let got = local.slice(Space::Ub, d.addr, d.bytes())?;
        let want = reference.slice(Space::Ub, d.addr, d.bytes())?;
        for r in 0..d.v_row {
            for c in 0..d.v_col {
                let o = (d.elem_addr(r, c)? - d.addr) as usize;
                let (x, y) = (num::read(&want[o..], d.elem), num::read(&got[o..], d.elem));
                let same = match (x, y) {
                    (Num::F(p), Num::F(q)) => {
                        (p.is_nan() && q.is_nan())
                            || p.to_bits() == q.to_bits()
                            || lane_ulps(d.elem, &want[o..], &got[o..])
                                <= u64::from(region.ulp_bound())
                    }
                    _ => x == y,
                };
                if !same {
                    return fault(format!(
                        "crosscheck: JIT and interpreter differ at element ({r}, {c}): interpreter {x:?}, JIT {y:?}"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// `trowexpand{add,sub,mul,div,max,min}` of a row-major f32 tile by a column
/// of per-row values: each row runs the compiled tile-scalar region of the op
/// with that row's value as the scalar (the interpreter computes
/// `x op v[r]` element by element, which is what the region computes).
/// Returns `None` when the call is not of that form (the interpreter runs it).
pub fn run_row_expand(
    cache: &JitCache,
    mode: JitMode,
    threshold: u32,
    crosscheck: bool,
    call: &crate::exec::tile_ops::TileCall,
    local: &mut Local,
    acc: &mut Accesses,
) -> Option<Result<(), Fault>> {
    use pto_isa_spec::Opcode as O;
    let op = match call.op {
        O::TRowExpandAdd => Op::Add,
        O::TRowExpandSub => Op::Sub,
        O::TRowExpandMul => Op::Mul,
        O::TRowExpandDiv => Op::Div,
        O::TRowExpandMax => Op::Max,
        O::TRowExpandMin => Op::Min,
        _ => return None,
    };
    if mode == JitMode::Off {
        return None;
    }
    let tiles = crate::exec::tile_ops::in_tiles(call);
    let (a, b) = (*tiles.first()?, *tiles.get(1)?);
    let d = match call.outs.first() {
        Some(crate::value::Val::Tile(t)) => t.as_ref(),
        _ => return None,
    };
    let f32s = [a, b, d].iter().all(|t| t.elem == DType::F32);
    let shapes = d.v_row >= 0
        && d.v_col >= 0
        && d.v_row <= d.rows
        && d.v_col <= d.cols
        && a.v_row == d.v_row
        && a.v_col == d.v_col
        && b.v_row == d.v_row
        && b.v_col == 1;
    if !(f32s && shapes && plain_ub(a) && plain_ub(d) && b.loc == TileLoc::Vec) {
        return None;
    }
    // the per-row values must survive the writes of earlier rows
    let (blo, bhi) = (b.addr, b.addr + b.bytes());
    if blo < d.addr + d.bytes() && d.addr < bhi {
        return None;
    }
    let region = Region {
        op,
        lane: Lane::F32,
        operands: Operands::ScalarRight,
    };
    if mode == JitMode::Auto {
        let n = cache
            .counts
            .lock()
            .map(|mut c| {
                let e = c.entry(region).or_insert(0);
                *e += 1;
                *e
            })
            .unwrap_or(0);
        if n <= threshold {
            cache.note_cold();
            return None;
        }
    }
    let code = cache.get(&region).ok()?;
    let mut vals = Vec::with_capacity(d.v_row.max(0) as usize);
    for r in 0..d.v_row {
        let at = match b.elem_addr(r, 0) {
            Ok(x) => x,
            Err(e) => return Some(Err(e)),
        };
        match local.slice(Space::Ub, at, 4) {
            Ok(v) => vals.push((at, i64::from(u32::from_le_bytes([v[0], v[1], v[2], v[3]])))),
            Err(e) => return Some(Err(e.into())),
        }
    }
    let reference = match reference(crosscheck, local, |copy, scratch| {
        crate::exec::expand::run(call, copy, scratch)
    }) {
        Ok(r) => r,
        Err(e) => return Some(Err(e)),
    };
    let size = local.size(Space::Ub);
    let row = d.v_col * 4;
    {
        let args = EwArgs {
            dst: d.addr as i64,
            dst_stride: d.cols * 4,
            a: a.addr as i64,
            a_stride: a.cols * 4,
            b: 0,
            b_stride: 0,
            rows: d.v_row,
            cols: d.v_col,
            scalar: 0,
        };
        let bits: Vec<i64> = vals.iter().map(|v| v.1).collect();
        // the op writes only the destination's rows
        let (lo, hi) = crate::mem::rows_span(args.dst, args.rows, args.dst_stride, row);
        let ub = match local.whole_mut(Space::Ub, lo, hi) {
            Ok(u) => u,
            Err(e) => return Some(Err(e.into())),
        };
        match code.call_rows(ub, &args, &bits) {
            Status::Ok => {}
            _ => {
                return Some(fault(format!(
                    "a {}x{} f32 tile operand reaches outside the {size} bytes of UB",
                    d.v_row, d.v_col
                )))
            }
        }
    }
    if let Ok(mut st) = cache.stats.lock() {
        st.jit_execs += 1;
    }
    if acc.on {
        for (r, (at, _)) in vals.iter().enumerate() {
            let r = r as u64;
            acc.add(Space::Ub, a.addr + r * a.cols as u64 * 4, row as u64, false);
            acc.add(Space::Ub, *at, 4, false);
            acc.add(Space::Ub, d.addr + r * d.cols as u64 * 4, row as u64, true);
        }
    }
    if let Some(want) = reference {
        for r in 0..d.v_row {
            let o = d.addr + (r * d.cols * 4) as u64;
            let (x, y) = match (
                want.slice(Space::Ub, o, row as u64),
                local.slice(Space::Ub, o, row as u64),
            ) {
                (Ok(x), Ok(y)) => (x, y),
                _ => return Some(fault("crosscheck: row outside UB")),
            };
            if let Some(c) =
                (0..d.v_col as usize).find(|&c| x[4 * c..4 * c + 4] != y[4 * c..4 * c + 4])
            {
                return Some(fault(format!(
                    "crosscheck: JIT and interpreter differ at element ({r}, {c}) of {}",
                    call.op.name()
                )));
            }
        }
    }
    Some(Ok(()))
}

/// Distance in units in the last place of `dt` between two stored elements
/// (f32, or the 16-bit float types by their own bits).
fn lane_ulps(dt: DType, x: &[u8], y: &[u8]) -> u64 {
    if matches!(dt, DType::F16 | DType::BF16) {
        let key = |b: &[u8]| {
            let h = i64::from(u16::from_le_bytes([b[0], b[1]]));
            if h & 0x8000 != 0 {
                0x8000 - h
            } else {
                h
            }
        };
        return key(x).abs_diff(key(y));
    }
    let f = |b: &[u8]| f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    ulps(f(x), f(y))
}

/// Distance in units in the last place between two f32 values.
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

/// Runs a matmul-family tile op through the native matrix kernel
/// (`pto_jit::matmul_f32`) when the mode and counters say so and the operands
/// are float; otherwise through the interpreter. Both give bit-identical
/// results (see `exec::matmul::native`); `--crosscheck` verifies it.
pub fn run_matmul(
    cache: &JitCache,
    mode: JitMode,
    threshold: u32,
    crosscheck: bool,
    call: &crate::exec::tile_ops::TileCall,
    local: &mut Local,
    acc: &mut Accesses,
) -> Result<(), Fault> {
    use crate::exec::matmul;
    let p = matmul::plan(call)?;
    if mode == JitMode::Off || !matmul::native_ok(&p) {
        return matmul::interpret(&p, local, acc);
    }
    if !cache.matmul_ripe((call.op, p_elem(call, 0), p_elem(call, 1)), mode, threshold) {
        return matmul::interpret(&p, local, acc);
    }
    if let Ok(mut st) = cache.stats.lock() {
        st.matmul_execs += 1;
    }
    let reference = reference(crosscheck, local, |copy, scratch| {
        matmul::interpret(&p, copy, scratch)
    })?;
    matmul::native(&p, local, acc)?;
    if let Some(reference) = reference {
        if let Some(d) = call.outs.first().and_then(|v| match v {
            crate::value::Val::Tile(t) => Some(t),
            _ => None,
        }) {
            let space = crate::value::Space::of_tile(d.loc);
            let got = local.slice(space, d.addr, d.bytes())?;
            let want = reference.slice(space, d.addr, d.bytes())?;
            if let Some(e) = first_acc_difference(got, want) {
                return fault(format!(
                    "crosscheck: native matmul and interpreter differ at storage element {e} of the accumulator"
                ));
            }
        }
    }
    Ok(())
}

/// Runs a `mad`-family cube op through the native matrix kernel (see
/// `exec::cube::mad_native`) when the mode and counters say so and the
/// operands are float; otherwise through the interpreter. Both give the
/// same accumulator bits (up to NaN payloads); `--crosscheck` verifies it.
pub fn run_mad(
    cache: &JitCache,
    mode: JitMode,
    threshold: u32,
    crosscheck: bool,
    call: &crate::exec::cube::CubeCall,
    m: &mut crate::exec::cube::Mem<'_>,
) -> Result<(), Fault> {
    use crate::exec::cube;
    let p = cube::mad_plan(call)?;
    if mode == JitMode::Off || !cube::mad_native_ok(&p) {
        return cube::mad_interpret(&p, m);
    }
    let (at, bt) = p.operand_types();
    if !cache.matmul_ripe((call.op, at, bt), mode, threshold) {
        return cube::mad_interpret(&p, m);
    }
    let gm = m.gm;
    let reference = reference(crosscheck, m.local, |copy, scratch| {
        let mut mx = cube::MxScales::default();
        let mut mem = cube::Mem {
            gm,
            local: copy,
            mx: &mut mx,
            subs: Vec::new(),
            cube: None,
            acc: scratch,
            far: Vec::new(),
        };
        cube::mad_interpret(&p, &mut mem)
    })?;
    if !cube::mad_native(&p, m)? {
        return cube::mad_interpret(&p, m);
    }
    if let Ok(mut st) = cache.stats.lock() {
        st.matmul_execs += 1;
    }
    if let Some(reference) = reference {
        let (addr, len) = p.result_span();
        let got = m.local.slice(Space::L0c, addr, len)?;
        let want = reference.slice(Space::L0c, addr, len)?;
        if let Some(e) = first_acc_difference(got, want) {
            return fault(format!(
                "crosscheck: native mad and interpreter differ at L0C element {e} of the result"
            ));
        }
    }
    Ok(())
}

/// The first 4-byte accumulator element where `got` and `want` disagree
/// ([`same_acc_bits`]).
fn first_acc_difference(got: &[u8], want: &[u8]) -> Option<usize> {
    got.chunks_exact(4)
        .zip(want.chunks_exact(4))
        .position(|(g, w)| !same_acc_bits(g, w))
}

/// Two 4-byte accumulator elements agree when their bits are equal or both
/// are f32 NaNs: which NaN payload a sum of NaNs keeps depends on operand
/// order (x86 keeps the first operand's), and the native kernel's blocked
/// order differs from the interpreter's; the ISA specifies no payload
/// (docs/decisions.md, "Matmul NaN payloads").
fn same_acc_bits(a: &[u8], b: &[u8]) -> bool {
    let nan = |x: &[u8]| {
        let v = u32::from_le_bytes([x[0], x[1], x[2], x[3]]);
        v & 0x7f80_0000 == 0x7f80_0000 && v & 0x007f_ffff != 0
    };
    a == b || (nan(a) && nan(b))
}

fn p_elem(call: &crate::exec::tile_ops::TileCall, i: usize) -> DType {
    let tiles: Vec<&Tile> = call
        .ins
        .iter()
        .filter_map(|v| match v {
            crate::value::Val::Tile(t) => Some(&**t),
            _ => None,
        })
        .collect();
    tiles.get(i).map_or(DType::F32, |t| t.elem)
}

/// Runs `tload` (`load`) or a plain `tstore` as a row-copy region when the
/// mode and counters say so and the operands allow it (see
/// `exec::tile::rows_ok`); otherwise through the interpreter. Both move the
/// same bytes and report the same accesses.
#[allow(clippy::too_many_arguments)]
pub fn run_dma(
    cache: &JitCache,
    mode: JitMode,
    threshold: u32,
    load: bool,
    gm: &crate::mem::Gm,
    view: &crate::value::View,
    t: &Tile,
    local: &mut Local,
    acc: &mut Accesses,
) -> Result<(), Fault> {
    let interp = |local: &mut Local, acc: &mut Accesses| {
        if load {
            tile::tload(gm, local, view, t, acc)
        } else {
            tile::tstore(gm, local, t, view, crate::program::Combine::Store, acc)
        }
    };
    // whole rows of a row-major tile, else contiguous runs (box rows)
    let rows = tile::rows_ok(view, t);
    if mode == JitMode::Off || !(rows || tile::runs_ok(view, t)) {
        return interp(local, acc);
    }
    let key = (load, t.elem.bytes());
    let n = cache
        .dma_counts
        .lock()
        .map(|mut c| {
            let e = c.entry(key).or_insert(0);
            *e += 1;
            *e
        })
        .unwrap_or(0);
    if mode == JitMode::Auto && n <= threshold {
        cache.note_cold();
        return interp(local, acc);
    }
    if let Ok(mut st) = cache.stats.lock() {
        st.dma_execs += 1;
    }
    match (load, rows) {
        (true, true) => tile::tload_rows(gm, local, view, t, acc),
        (false, true) => tile::tstore_rows(gm, local, t, view, acc),
        (true, false) => tile::tload_runs(gm, local, view, t, acc),
        (false, false) => tile::tstore_runs(gm, local, t, view, acc),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tile(addr: u64, blayout: BLayout) -> Tile {
        Tile {
            loc: TileLoc::Vec,
            addr,
            elem: DType::F32,
            rows: 8,
            cols: 4,
            v_row: 8,
            v_col: 4,
            blayout,
            slayout: SLayout::NoneBox,
            fractal: 512,
            pad: 0,
        }
    }

    /// Column-major calls compile when each source is the destination or
    /// disjoint from it; a source that overlaps it otherwise, or tiles of
    /// mixed orientation, stay interpreted (the region walks columns, the
    /// interpreter rows, so an overlap could see different values).
    #[test]
    fn column_major_sources_are_the_destination_or_disjoint() {
        let col = |addr| tile(addr, BLayout::ColMajor);
        let call = |a: &Tile, b: &Tile, d: &Tile| {
            EwCall {
                op: EwOp::Add,
                a,
                b: Some(b),
                s: None,
                dst: d,
            }
            .region()
            .is_some()
        };
        let (d, same, apart, shifted) = (col(0), col(0), col(128), col(4));
        assert!(call(&same, &apart, &d));
        assert!(call(&apart, &apart, &d));
        assert!(
            !call(&shifted, &apart, &d),
            "overlaps by all but one element"
        );
        assert!(!call(&apart, &shifted, &d));
        // the same address with another pitch is not the same tile
        let other_pitch = Tile {
            rows: 16,
            v_row: 8,
            ..col(0)
        };
        assert!(!call(&other_pitch, &apart, &d));
        // mixed orientations
        assert!(!call(&tile(128, BLayout::RowMajor), &apart, &d));
        // row-major calls keep their rule (any placement)
        let row = |addr| tile(addr, BLayout::RowMajor);
        assert!(call(&row(4), &row(128), &row(0)));
        // the lines of a column-major domain are its columns
        let l = Lines::of(true, 5, 3);
        assert_eq!((l.lines, l.len, l.stride(&col(0))), (3, 5, 32));
        let l = Lines::of(false, 5, 3);
        assert_eq!((l.lines, l.len, l.stride(&col(0))), (5, 3, 16));
    }
}
