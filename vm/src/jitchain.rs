//! Fused tile chains: a run of tile elementwise ops issued back to back to one
//! pipe runs as one native loop (`pto_jit::chain`) instead of one loop per op.
//!
//! Detection is split in two:
//! - statically, per program (once per run, lazily): a *run* is a maximal
//!   sequence of consecutive `K::Issue` instructions of one function that
//!   issue a JIT-able `TEw`/`TEws` to the same pipe. Nothing lies between two
//!   of them: no flag, barrier, buffer op, scalar instruction or branch, so no
//!   other agent can be ordered between them and the scalar unit executes
//!   them one after the other.
//! - at run time, when the pipe reaches an op of a run: the machine collects
//!   the op's followers (already queued, or about to be issued by the scalar
//!   unit, which then stands on them), and [`run`] keeps the longest prefix
//!   that is legal to fuse: every op JIT-able on plain row-major vec tiles of
//!   one lane type with the first op's iteration domain (valid rows x
//!   columns), and every two tiles of the chain either the same (address and
//!   row stride) or byte-disjoint. Shapes and addresses are only known then.
//!
//! The ops after the first keep their own queue entries: the machine retires
//! them one by one as before (timing, statistics, checker) and only skips
//! their execution, reporting the accesses [`run`] computed for each.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

use pto_isa_spec::{DType, Pipe};
use pto_jit::chain::{self, Chain, ChainArgs, ChainCompiled, ChainOp};
use pto_jit::{Lane, Status};

use crate::exec::{fault, Accesses, Fault};
use crate::jitcall::{EwCall, JitCache, Lines};
use crate::mem::Local;
use crate::num;
use crate::program::{InstId, PipeOp, Program, K};
use crate::value::{Space, Tile};
use crate::JitMode;

/// Where a run continues after one of its instructions.
#[derive(Debug)]
pub(crate) struct Site {
    /// Function of the run.
    pub func: usize,
    /// Position of the instruction in the function's code.
    pub pc: usize,
    /// Pipe the run issues to.
    pub pipe: Pipe,
    /// The run's instructions after this one.
    pub rest: Vec<(InstId, PipeOp)>,
}

/// Per-run state of the chain tier.
#[derive(Default)]
pub struct ChainCache {
    sites: OnceLock<HashMap<InstId, Arc<Site>>>,
    counts: Mutex<HashMap<Chain, u32>>,
    seen: Mutex<HashSet<Chain>>,
    rejected: Mutex<HashSet<(InstId, String)>>,
}

type CodeMap = Mutex<HashMap<Chain, Result<Arc<ChainCompiled>, String>>>;

fn code_cache() -> &'static CodeMap {
    static CODE: OnceLock<CodeMap> = OnceLock::new();
    CODE.get_or_init(Default::default)
}

fn fusable(op: &PipeOp) -> bool {
    match op {
        PipeOp::TEw { op, .. } | PipeOp::TEws { op, .. } => crate::jitcall::jit_op(*op).is_some(),
        _ => false,
    }
}

/// Every instruction of a run of two or more, with the rest of its run.
fn sites(prog: &Program) -> HashMap<InstId, Arc<Site>> {
    let mut out = HashMap::new();
    let mut dup = HashSet::new();
    for (f, func) in prog.funcs.iter().enumerate() {
        let code = &func.code;
        let mut pc = 0;
        while pc < code.len() {
            let pipe = match &code[pc].k {
                K::Issue { pipe, op } if fusable(op) => *pipe,
                _ => {
                    pc += 1;
                    continue;
                }
            };
            let mut end = pc + 1;
            while end < code.len()
                && matches!(&code[end].k, K::Issue { pipe: p, op } if *p == pipe && fusable(op))
            {
                end += 1;
            }
            for i in pc..end.saturating_sub(1) {
                let rest = code[i + 1..end]
                    .iter()
                    .filter_map(|x| match &x.k {
                        K::Issue { op, .. } => Some((x.id, op.clone())),
                        _ => None,
                    })
                    .collect();
                let site = Site {
                    func: f,
                    pc: i,
                    pipe,
                    rest,
                };
                if out.insert(code[i].id, Arc::new(site)).is_some() {
                    dup.insert(code[i].id);
                }
            }
            pc = end;
        }
    }
    // an id at two places could not say which run continues after it
    for id in dup {
        out.remove(&id);
    }
    out
}

impl ChainCache {
    /// The run continuing after `inst`, if `inst` is in a run of two or more.
    pub(crate) fn site(&self, prog: &Program, inst: InstId) -> Option<Arc<Site>> {
        self.sites.get_or_init(|| sites(prog)).get(&inst).cloned()
    }

    fn reject(&self, jit: &JitCache, inst: InstId, why: String) {
        let first = self
            .rejected
            .lock()
            .map(|mut r| r.insert((inst, why.clone())))
            .unwrap_or(false);
        if first {
            jit.note_reject(format!("chain: {why}"));
        }
    }

    fn get(&self, jit: &JitCache, c: &Chain) -> Result<Arc<ChainCompiled>, String> {
        let res = {
            let mut code = code_cache()
                .lock()
                .map_err(|_| "JIT cache poisoned".to_string())?;
            match code.get(c) {
                Some(x) => x.clone(),
                None => {
                    let res = chain::compile(c).map(Arc::new).map_err(|e| e.to_string());
                    code.insert(c.clone(), res.clone());
                    res
                }
            }
        };
        let first = self
            .seen
            .lock()
            .map(|mut s| s.insert(c.clone()))
            .unwrap_or(false);
        if first {
            match &res {
                Ok(x) => jit.note_chain_compiled(x.compile_time, x.code_bytes, x.in_parts()),
                Err(e) => jit.note_reject(format!("chain: {e}")),
            }
        }
        res
    }
}

/// One op of a candidate chain.
pub(crate) struct Member<'t> {
    /// Its instruction.
    pub inst: InstId,
    /// The op.
    pub call: EwCall<'t>,
}

/// What a fused run did.
pub(crate) struct Fused {
    /// Each fused op's accesses, in op order (the first `accs.len()` members
    /// were fused).
    pub accs: Vec<Accesses>,
}

/// The rows x columns the op computes, if the JIT takes it whole (the
/// interpreter reports anything else, e.g. a source smaller than the
/// destination's valid region).
fn domain(c: &EwCall<'_>) -> Option<(i64, i64)> {
    let d = c.dst;
    let ok = d.v_row >= 0
        && d.v_col >= 0
        && d.v_row <= d.rows
        && d.v_col <= d.cols
        && [Some(c.a), c.b]
            .iter()
            .flatten()
            .all(|t| t.v_row >= d.v_row && t.v_col >= d.v_col);
    ok.then_some((d.v_row, d.v_col))
}

/// The slots of a chain: distinct tiles by (address, row stride), with their
/// byte footprint over the domain.
struct Slots {
    list: Vec<(u64, i64, u64)>,
}

impl Slots {
    /// The slot of `t`, a new one if it is disjoint from all, `None` if it
    /// overlaps one without being the same tile.
    fn of(&mut self, t: &Tile, ln: &Lines) -> Option<u8> {
        let es = t.elem.bytes() as i64;
        let stride = ln.stride(t);
        let end = t.addr + ((ln.lines - 1).max(0) * stride + ln.len * es) as u64;
        for (i, (a, s, e)) in self.list.iter().enumerate() {
            if *a == t.addr && *s == stride {
                return u8::try_from(i).ok();
            }
            if t.addr < *e && *a < end {
                return None;
            }
        }
        self.list.push((t.addr, stride, end));
        u8::try_from(self.list.len() - 1).ok()
    }
}

/// Runs the longest legal prefix of `members` (the first one and its
/// followers) as one fused chain, or returns `None` when fewer than two ops
/// would fuse, the tier is below its threshold, or any op would fault (the
/// caller then runs the first op alone, and the interpreter reports faults at
/// the op that has them).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    jit: &JitCache,
    mode: JitMode,
    threshold: u32,
    crosscheck: bool,
    prog: &Program,
    members: &[Member<'_>],
    local: &mut Local,
    checking: bool,
) -> Option<Result<Fused, Fault>> {
    let cache = jit.chains();
    let first = members.first()?;
    let head_lane = first.call.region()?.lane;
    let (rows, cols) = domain(&first.call)?;
    // every op's tiles have one orientation (`EwCall::region`); a chain keeps
    // the first op's, and walks its lines (rows, or columns)
    let col_major = first.call.col_major();
    let ln = Lines::of(col_major, rows, cols);
    let mut slots = Slots { list: Vec::new() };
    let mut ops: Vec<ChainOp> = Vec::new();
    let mut why = None;
    for m in members.iter().take(chain::MAX_OPS) {
        let c = &m.call;
        let Some(region) = c.region() else {
            why = Some("an op the JIT does not take on these tiles".to_string());
            break;
        };
        if let Err(e) = pto_jit::supported(&region) {
            why = Some(e.to_string());
            break;
        }
        if region.lane != head_lane {
            why = Some("ops of different lane types".into());
            break;
        }
        // a 16-bit float chain computes in f32 and rounds each op to the
        // type: exact only for scalars of the tile's type (as `run_ew`)
        if let (Some((v, _)), Lane::F16 | Lane::BF16) = (c.s, head_lane) {
            let mut bytes = [0u8; 2];
            num::write(&mut bytes, c.dst.elem, v);
            if num::read(&bytes, c.dst.elem).f().to_bits() != v.f().to_bits() {
                why = Some("a scalar that is not a value of the tile's type".into());
                break;
            }
        }
        if domain(c) != Some((rows, cols)) {
            why = Some("ops over different valid regions".into());
            break;
        }
        if c.col_major() != col_major {
            why = Some("row-major and column-major tiles".into());
            break;
        }
        let mut trial = Slots {
            list: slots.list.clone(),
        };
        let s = |t: &Tile, sl: &mut Slots| sl.of(t, &ln);
        let (a, b, d) = (
            s(c.a, &mut trial),
            match c.b {
                Some(b) => s(b, &mut trial),
                None => s(c.a, &mut trial),
            },
            s(c.dst, &mut trial),
        );
        let (Some(a), Some(b), Some(d)) = (a, b, d) else {
            why = Some("tiles that overlap without being the same tile".into());
            break;
        };
        if trial.list.len() > chain::MAX_SLOTS {
            why = Some(format!("more than {} tiles", chain::MAX_SLOTS));
            break;
        }
        slots = trial;
        ops.push(ChainOp {
            op: region.op,
            operands: region.operands,
            a,
            b,
            dst: d,
        });
    }
    if ops.len() < 2 {
        if let Some(w) = why {
            cache.reject(jit, first.inst, w);
        }
        return None;
    }
    let n = ops.len();
    let members = &members[..n];
    let key = Chain {
        lane: head_lane,
        ops,
        slots: slots.list.len() as u8,
    };
    if mode == JitMode::Auto {
        let count = cache
            .counts
            .lock()
            .map(|mut c| {
                let e = c.entry(key.clone()).or_insert(0);
                *e += 1;
                *e
            })
            .unwrap_or(0);
        if count <= threshold {
            return None;
        }
    }
    let code = cache.get(jit, &key).ok()?;
    // the interpreter's run, op by op, on a copy; an op that faults there
    // runs unfused so that the fault is reported where it happens
    let reference = crate::jitcall::reference(crosscheck, local, |copy, scratch| {
        members
            .iter()
            .try_for_each(|m| m.call.interpret(copy, scratch))
    })
    .ok()?;
    let es = head_lane.bytes();
    let args = ChainArgs {
        tiles: slots.list.iter().map(|(a, s, _)| (*a as i64, *s)).collect(),
        scalars: members
            .iter()
            .map(|m| match m.call.s {
                Some((v, _)) if head_lane != Lane::I32 => i64::from((v.f() as f32).to_bits()),
                Some((v, _)) => i64::from(num::wrap(v.i(), DType::I32) as u32),
                None => 0,
            })
            .collect(),
        rows: ln.lines,
        cols: ln.len,
    };
    // the chain writes only its members' destinations, which are slots: the
    // span of all slots' footprints covers them
    let (lo, hi) = slots
        .list
        .iter()
        .fold((u64::MAX, 0), |(l, h), &(a, _, e)| (l.min(a), h.max(e)));
    let ub = match local.whole_mut(Space::Ub, lo, hi) {
        Ok(u) => u,
        Err(e) => return Some(Err(e.into())),
    };
    if code.call(ub, &args) != Status::Ok {
        // nothing was written: the ops run one by one and the one that
        // reaches outside UB faults
        return None;
    }
    jit.note_chain_exec(n);
    // each op's accesses, as the single-op JIT reports them
    let accs = members
        .iter()
        .map(|m| {
            let mut acc = Accesses {
                on: checking,
                list: Vec::new(),
            };
            let c = &m.call;
            if checking && col_major {
                for t in [Some(c.a), c.b].iter().flatten() {
                    ln.record_cols(&mut acc, t, false);
                }
                ln.record_cols(&mut acc, c.dst, true);
            } else if checking {
                for r in 0..rows {
                    for t in [Some(c.a), c.b].iter().flatten() {
                        acc.add(
                            Space::Ub,
                            t.addr + (r * t.cols * es) as u64,
                            (cols * es) as u64,
                            false,
                        );
                    }
                    acc.add(
                        Space::Ub,
                        c.dst.addr + (r * c.dst.cols * es) as u64,
                        (cols * es) as u64,
                        true,
                    );
                }
            }
            acc
        })
        .collect();
    if let Some(want) = reference {
        if let Err(e) = compare(prog, &key, members, &want, local, rows, cols) {
            return Some(Err(e));
        }
    }
    Some(Ok(Fused { accs }))
}

/// Compares the destinations the fused chain left with the interpreter's
/// (`want`), op by op: the first difference names the op and its line. An op
/// whose tile a later op overwrites is judged through that later op.
fn compare(
    prog: &Program,
    chain: &Chain,
    members: &[Member<'_>],
    want: &Local,
    got: &Local,
    rows: i64,
    cols: i64,
) -> Result<(), Fault> {
    let ulp = chain.ulp_bound();
    for (k, m) in members.iter().enumerate() {
        if chain.ops[k + 1..].iter().any(|o| o.dst == chain.ops[k].dst) {
            continue;
        }
        let d = m.call.dst;
        let (w, g) = (
            want.slice(Space::Ub, d.addr, d.bytes())?,
            got.slice(Space::Ub, d.addr, d.bytes())?,
        );
        let es = d.elem.bytes() as i64;
        for r in 0..rows {
            for c in 0..cols {
                let o = (d.elem_addr(r, c)? - d.addr) as usize;
                let (x, y) = (&w[o..o + es as usize], &g[o..o + es as usize]);
                let ok = match d.elem {
                    DType::F32 => both_nan(x, y) || (ulp > 0 && close(x, y, ulp)),
                    DType::F16 | DType::BF16 => close_half(d.elem, x, y, ulp),
                    _ => false,
                };
                if x == y || ok {
                    continue;
                }
                let info = prog.info(m.inst);
                let (x, y) = (num::read(x, d.elem), num::read(y, d.elem));
                return fault(format!(
                    "crosscheck: fused chain and interpreter differ at element ({r}, {c}) of the destination of '{}' at line {}: interpreter {x:?}, JIT {y:?}",
                    info.opcode.name(),
                    info.loc.line
                ));
            }
        }
    }
    Ok(())
}

/// Both NaN, whatever their sign and payload (as the single-op crosscheck).
fn both_nan(a: &[u8], b: &[u8]) -> bool {
    let f = |x: &[u8]| <[u8; 4]>::try_from(x).map(f32::from_le_bytes);
    matches!((f(a), f(b)), (Ok(x), Ok(y)) if x.is_nan() && y.is_nan())
}

/// The half-type form of [`close`]: both NaN, or (for a chain with
/// approximated ops, `ulp > 0`) within `ulp` units in the last place of the
/// type or 1e-2 * max(1, |x|) (a few 16-bit ulps, where later ops combined
/// an approximated value with others).
fn close_half(dt: DType, a: &[u8], b: &[u8], ulp: u32) -> bool {
    let (x, y) = (num::read(a, dt).f(), num::read(b, dt).f());
    if x.is_nan() && y.is_nan() {
        return true;
    }
    if ulp == 0 || x.is_nan() || y.is_nan() {
        return false;
    }
    let key = |v: &[u8]| {
        let h = i64::from(u16::from_le_bytes([v[0], v[1]]));
        if h & 0x8000 != 0 {
            0x8000 - h
        } else {
            h
        }
    };
    let scale = 1f64.max(x.abs()).max(y.abs());
    key(a).abs_diff(key(b)) <= u64::from(ulp) || (x - y).abs() <= 1e-2 * scale
}

/// Within `ulp` f32 units in the last place, both NaN, or within
/// 1e-5 * max(1, |x|) (an approximated value that later ops of the chain
/// combined with others, where the ulp bound no longer applies; the rule of
/// compiled vector scopes).
fn close(a: &[u8], b: &[u8], ulp: u32) -> bool {
    let (Ok(a), Ok(b)) = (<[u8; 4]>::try_from(a), <[u8; 4]>::try_from(b)) else {
        return false;
    };
    let (x, y) = (f32::from_le_bytes(a), f32::from_le_bytes(b));
    if x.is_nan() && y.is_nan() {
        return true;
    }
    let scale = 1f32.max(x.abs()).max(y.abs());
    if (x - y).abs() <= 1e-5 * scale {
        return true;
    }
    let key = |v: f32| {
        let i = v.to_bits() as i32;
        if i < 0 {
            i64::from(i32::MIN) - i64::from(i)
        } else {
            i64::from(i)
        }
    };
    key(x).abs_diff(key(y)) <= u64::from(ulp)
}
