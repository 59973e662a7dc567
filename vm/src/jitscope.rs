//! Vector scopes through the JIT: a `pto.vecscope` body whose instructions
//! all fall in the subset `pto_jit::vscope` compiles (scalar index math,
//! `scf.for`/`scf.if` control flow, `castptr`/`addptr`, `vlds`/`vsts`,
//! 32-bit lane-wise ops, `vbr`/`vdup`, `pset_b*`/`plt_b*`, `mem_bar`) runs as
//! one native function once it has run `--jit-threshold` times. Register-only
//! vector ops without a native form, and predicate loads and stores, run
//! inside the compiled scope through a call back into the interpreter's own
//! code for the op (`host_op`).
//!
//! The translation types every register (integer, float scalar, pointer with
//! its element size and space, vector register, mask) from its definitions
//! and, for registers the body reads but does not define, from their values
//! at the first execution; a later execution whose inputs have other kinds
//! runs in the interpreter. The compiled scope reports each vector load and
//! store to [`Sink`], which records them for the checker exactly as the
//! interpreter does (contiguous accesses of one instruction merged) and runs
//! the same store-then-load alias diagnosis; block execution counts give the
//! instruction counts and the vector-op count of the timing model.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use pto_isa_spec::DType;
use pto_isa_spec::Opcode;
use pto_jit::vscope::{
    self, AccessSink, CmpPred, IntOp, Logged, RegRef, Routine, SInst, Scope, ScopeStatus, VLane,
};

use crate::exec::vec_convert::Rnd;
use crate::exec::vec_ops::Cx;
use crate::exec::{self, fault, Fault};
use crate::mem::Local;
use crate::program::{BinOp, Conv, Dist, Inst, InstId, Pred, Reg, VecOp, K};
use crate::value::{Space, Val};

mod vmi;

/// What a register holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    Int,
    Float,
    Ptr {
        es: u8,
        ub: bool,
        /// The pointee type (host ops see it, as the interpreter's ops do:
        /// a sorter's scores, a scalar store's conversion).
        elem: DType,
    },
    V,
    M,
    /// A VMI vector of `bytes` bytes ([`vmi`]).
    W {
        bytes: u32,
    },
    /// A VMI mask of `lanes` lanes at granularity `g` (0 until known).
    L {
        lanes: u32,
        g: u8,
    },
    /// Alignment state (`!pto.align`): the interpreter keeps none (an
    /// unaligned stream's bytes go to UB at once), so its value is always
    /// `Val::Unit`; it takes a scalar slot that stays 0.
    A,
}

impl Kind {
    fn of(v: &Val) -> Option<Kind> {
        Some(match v {
            Val::Int(_) => Kind::Int,
            Val::Float(_) => Kind::Float,
            Val::Ptr(p) => Kind::Ptr {
                es: u8::try_from(p.elem.bytes()).ok()?,
                ub: p.space == Space::Ub,
                elem: p.elem,
            },
            Val::VReg(_) => Kind::V,
            Val::Mask(_) => Kind::M,
            Val::Unit => Kind::A,
            _ => return None,
        })
    }

    fn scalar(self) -> bool {
        !matches!(self, Kind::V | Kind::M | Kind::W { .. } | Kind::L { .. })
    }
}

/// A translated scope: the region, how its registers map to the VM's, and
/// per-block facts for the counters.
pub struct Plan {
    scope: Scope,
    /// Registers read before any definition: (reg, kind, slot).
    inputs: Vec<(Reg, Kind, RegRef)>,
    /// Float inputs that must be exact in these types (the compiled ops
    /// take them as f32), else the interpreter runs the scope.
    exact: Vec<(Reg, Vec<DType>)>,
    /// The instruction id of each scope instruction.
    ids: Vec<InstId>,
    /// Instructions outside the store-then-load diagnosis (VMI loads and
    /// stores, which the interpreter leaves out of it too).
    quiet: Vec<bool>,
    /// Slot and kind of every register (for host-executed ops).
    slots: HashMap<Reg, (RegRef, Kind)>,
    /// The buffers of the last execution, reused by the next one (fresh
    /// ones per execution cost more than a small scope's body).
    state: Mutex<Option<Scratch>>,
}

/// What one execution of a compiled scope needs besides its inputs.
struct Scratch {
    st: vscope::ScopeState,
    /// Stores since the last `mem_bar` (the alias diagnosis).
    pending: Vec<(u64, u64, InstId)>,
    /// Vector ops per basic block of the compiled code.
    blk_vec: Vec<u64>,
}

/// Result of running a compiled scope. It holds the execution's buffers
/// (the block counters the instruction counts come from) and hands them
/// back to the plan when dropped.
pub struct Outcome {
    plan: Arc<Plan>,
    code: Arc<vscope::ScopeCompiled>,
    scratch: Option<Scratch>,
    /// Vector micro-ops executed.
    pub vec_ops: u64,
    /// (store, load) pairs with no `mem_bar` between them.
    pub alias: Vec<(InstId, InstId)>,
}

impl Outcome {
    /// Executions per instruction id, for the instructions that ran.
    pub fn counts(&self) -> impl Iterator<Item = (InstId, u64)> + '_ {
        let blocks = self
            .scratch
            .as_ref()
            .map_or(&[][..], |s| s.st.block_counts());
        self.code
            .blocks
            .iter()
            .zip(blocks)
            .filter(|(_, n)| **n != 0)
            .flat_map(move |(blk, n)| {
                let ids = self.plan.ids.get(blk.start as usize..blk.end as usize);
                ids.unwrap_or(&[]).iter().map(move |id| (*id, *n))
            })
    }
}

impl Drop for Outcome {
    fn drop(&mut self) {
        if let (Some(sc), Ok(mut s)) = (self.scratch.take(), self.plan.state.lock()) {
            *s = Some(sc);
        }
    }
}

type Translated = Result<(Arc<Plan>, Arc<vscope::ScopeCompiled>), String>;
type ScopeCode = Result<Arc<vscope::ScopeCompiled>, String>;

/// Per-run state of the vector-scope tier.
#[derive(Default)]
pub struct ScopeCache {
    /// Translations by the scope's first instruction id.
    plans: Mutex<rustc_hash::FxHashMap<InstId, Translated>>,
    /// Executions per scope (tiering).
    counts: Mutex<rustc_hash::FxHashMap<InstId, u32>>,
}

/// Translations kept with a [`crate::program::Program`] for its later runs:
/// a scope's translation depends only on its body and the kinds of its
/// inputs, so a kernel run again (benchmarks, conformance tiers, library
/// callers) skips translating the scope and hashing it into the code cache.
/// Statistics stay per run ([`ScopeCache`] still notes each scope's first
/// use in a run). Cloning a program starts an empty cache.
#[derive(Default)]
pub struct ProgramScopes(Mutex<rustc_hash::FxHashMap<InstId, Vec<Compiled>>>);

type Compiled = (Arc<Plan>, Arc<vscope::ScopeCompiled>);

impl ProgramScopes {
    /// The translation of the scope starting at `first` whose inputs have
    /// the kinds they have in `regs`.
    fn get(&self, first: InstId, regs: &[Val]) -> Option<Compiled> {
        let m = self.0.lock().ok()?;
        m.get(&first)?
            .iter()
            .find(|(p, _)| {
                p.inputs
                    .iter()
                    .all(|(r, k, _)| regs.get(*r as usize).and_then(Kind::of) == Some(*k))
            })
            .cloned()
    }

    fn put(&self, first: InstId, c: Compiled) {
        if let Ok(mut m) = self.0.lock() {
            let v = m.entry(first).or_default();
            // a handful of input-kind variants at most; bounded all the same
            if v.len() < 8 {
                v.push(c);
            }
        }
    }
}

impl Clone for ProgramScopes {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for ProgramScopes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProgramScopes")
    }
}

fn code_cache() -> &'static Mutex<HashMap<Scope, ScopeCode>> {
    static CODE: std::sync::OnceLock<Mutex<HashMap<Scope, ScopeCode>>> = std::sync::OnceLock::new();
    CODE.get_or_init(Default::default)
}

fn reject<T>(why: impl Into<String>) -> Result<T, String> {
    Err(why.into())
}

/// (bits, unsigned) of an integer result type, as `num::wrap` treats it.
fn int_width(dt: DType) -> Result<(u8, bool), String> {
    Ok(match dt {
        DType::I1 => (1, true),
        DType::I8 => (8, false),
        DType::U8 => (8, true),
        DType::I16 => (16, false),
        DType::U16 => (16, true),
        DType::I32 => (32, false),
        DType::U32 => (32, true),
        DType::I64 => (64, false),
        DType::U64 => (64, true),
        other => return reject(format!("integer op on {other}")),
    })
}

fn int_op(op: BinOp) -> Option<IntOp> {
    Some(match op {
        BinOp::Add => IntOp::Add,
        BinOp::Sub => IntOp::Sub,
        BinOp::Mul => IntOp::Mul,
        BinOp::DivS => IntOp::DivS,
        BinOp::RemS => IntOp::RemS,
        BinOp::DivU => IntOp::DivU,
        BinOp::RemU => IntOp::RemU,
        BinOp::And => IntOp::And,
        BinOp::Or => IntOp::Or,
        BinOp::Xor => IntOp::Xor,
        BinOp::Shl => IntOp::Shl,
        BinOp::ShrS => IntOp::ShrS,
        BinOp::ShrU => IntOp::ShrU,
        BinOp::MaxS => IntOp::MaxS,
        BinOp::MinS => IntOp::MinS,
        BinOp::MaxU => IntOp::MaxU,
        BinOp::MinU => IntOp::MinU,
        _ => return None,
    })
}

/// Registers an instruction reads and defines (supported instructions only).
/// The registers an instruction defines, where the scope translator knows
/// its form (empty otherwise).
pub(crate) fn defs_of(k: &K) -> Vec<Reg> {
    regs_of(k).map(|(_, d)| d).unwrap_or_default()
}

fn regs_of(k: &K) -> Result<(Vec<Reg>, Vec<Reg>), String> {
    Ok(match k {
        K::Const { dst, .. } => (vec![], vec![*dst]),
        K::Bin { dst, a, b, .. } | K::Cmp { dst, a, b, .. } => (vec![*a, *b], vec![*dst]),
        K::Select { dst, c, a, b } => (vec![*c, *a, *b], vec![*dst]),
        K::Conv { dst, src, .. } => (vec![*src], vec![*dst]),
        K::Moves { dsts, srcs } => (srcs.clone(), dsts.clone()),
        K::Jump(_) | K::End | K::Ret { .. } => (vec![], vec![]),
        K::BrFalse { cond, .. } => (vec![*cond], vec![]),
        K::ForCheck { iv, ub, .. } => (vec![*iv, *ub], vec![]),
        K::ForStep { iv, step } => (vec![*iv, *step], vec![*iv]),
        K::CastPtr { dst, src, .. } => (vec![*src], vec![*dst]),
        K::AddPtr { dst, src, off, .. } => (vec![*src, *off], vec![*dst]),
        K::Vec(v) => match v {
            VecOp::Load { dst, ptr, off, .. } => {
                (std::iter::once(*ptr).chain(*off).collect(), vec![*dst])
            }
            VecOp::Store {
                src,
                ptr,
                off,
                mask,
                ..
            } => (
                [Some(*src), Some(*ptr), *off, *mask]
                    .into_iter()
                    .flatten()
                    .collect(),
                vec![],
            ),
            VecOp::Ew {
                dst, a, b, s, mask, ..
            } => (
                [Some(*a), *b, *s, *mask].into_iter().flatten().collect(),
                vec![*dst],
            ),
            VecOp::Broadcast { dst, s, mask, .. } => (
                [Some(*s), *mask].into_iter().flatten().collect(),
                vec![*dst],
            ),
            VecOp::PSet { dst, .. } => (vec![], vec![*dst]),
            VecOp::PLt { dst, rest, n, .. } => {
                (vec![*n], std::iter::once(*dst).chain(*rest).collect())
            }
            VecOp::MemBar { .. } => (vec![], vec![]),
            VecOp::Generic { op, dsts, srcs, .. } => {
                if !compiled_generic(*op) && !host_op_ok(*op) {
                    return reject(format!("'{}'", op.name()));
                }
                if dsts.len() != 1 && !host_op_ok(*op) {
                    return reject(format!("'{}' with {} results", op.name(), dsts.len()));
                }
                (srcs.clone(), dsts.clone())
            }
        },
        other => return reject(short_name(other)),
    })
}

/// The generic vector ops the scope compiler handles.
fn compiled_generic(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::VCmp
            | Opcode::VCmps
            | Opcode::VSel
            | Opcode::VCvt
            | Opcode::VCadd
            | Opcode::VCmax
            | Opcode::VCmin
            | Opcode::VCgadd
            | Opcode::VCgmax
            | Opcode::VCgmin
            | Opcode::VCpadd
            | Opcode::VExpdif
            | Opcode::VDup
    )
}

/// Whether the host executes `op` for a compiled scope: register-only ops
/// and predicate loads and stores.
fn host_op_ok(op: Opcode) -> bool {
    exec::vec_ops::pure(op) || exec::vec_ops::ub_spr(op) || exec::vmi::implemented(op)
}

/// The kinds of a generic op's `n` results, from its signature; a pointer
/// result (the advanced address of a post-update UB access) has the kind of
/// the op's pointer operand `ptr`.
fn result_kinds(op: Opcode, n: usize, ptr: Option<Kind>) -> Result<Vec<Kind>, String> {
    let sig = op.info().signature();
    let Some(ks) = pto_isa_spec::Sig::assign(&sig.results, n) else {
        return reject(format!("'{}' with {n} results", op.name()));
    };
    ks.into_iter()
        .map(|k| match k {
            pto_isa_spec::OperandKind::VReg => Ok(Kind::V),
            pto_isa_spec::OperandKind::Mask => Ok(Kind::M),
            pto_isa_spec::OperandKind::Align => Ok(Kind::A),
            // a scalar UB load of an integer element (a float one would
            // reach the compiled lane ops unchecked for exactness)
            pto_isa_spec::OperandKind::Scalar | pto_isa_spec::OperandKind::Int
                if op == Opcode::LoadScalar =>
            {
                match ptr {
                    Some(Kind::Ptr { ub: true, elem, .. }) if !elem.is_float() => Ok(Kind::Int),
                    _ => reject(format!("'{}' of a float or non-UB element", op.name())),
                }
            }
            pto_isa_spec::OperandKind::Ptr if exec::vec_ops::ub_spr(op) => match ptr {
                Some(k @ Kind::Ptr { ub: true, .. }) => Ok(k),
                _ => reject(format!("'{}' with a non-UB pointer result", op.name())),
            },
            other => reject(format!("'{}' with {} result", op.name(), other.describe())),
        })
        .collect()
}

/// Whether a float scalar is exactly a value of `dt` (NaN never is: the
/// compiled ops would not keep its payload as the interpreter does).
fn exact_in(v: f64, dt: DType) -> bool {
    !v.is_nan() && crate::num::round_float(v, dt) == v
}

fn short_name(k: &K) -> String {
    let s = format!("{k:?}");
    s.split([' ', '(', '{']).next().unwrap_or("?").to_string()
}

/// The kind an instruction gives its definitions, from its operands' kinds
/// (None: not known yet).
fn def_kinds(
    k: &K,
    kind: &dyn Fn(Reg) -> Option<Kind>,
) -> Result<Vec<(Reg, Option<Kind>)>, String> {
    Ok(match k {
        K::Const { dst, val } => vec![(
            *dst,
            Some(match val {
                Val::Int(_) => Kind::Int,
                Val::Float(_) => Kind::Float,
                v => return reject(format!("a {} constant", v.kind())),
            }),
        )],
        K::Bin { op, dst, .. } => {
            if int_op(*op).is_none() {
                return reject(format!("scalar {op:?}"));
            }
            vec![(*dst, Some(Kind::Int))]
        }
        K::Cmp { float, dst, .. } => {
            if *float {
                return reject("float comparison");
            }
            vec![(*dst, Some(Kind::Int))]
        }
        K::Conv { conv, dst, .. } => match conv {
            Conv::IntToInt { .. } => vec![(*dst, Some(Kind::Int))],
            c => return reject(format!("scalar {c:?}")),
        },
        K::Select { dst, a, .. } => vec![(*dst, kind(*a))],
        K::Moves { dsts, srcs } => dsts.iter().zip(srcs).map(|(d, s)| (*d, kind(*s))).collect(),
        K::ForStep { iv, .. } => vec![(*iv, Some(Kind::Int))],
        K::CastPtr {
            dst,
            src,
            space,
            elem,
        } => {
            let es = u8::try_from(elem.bytes()).map_err(|_| "pointer element size")?;
            let k = match kind(*src) {
                Some(Kind::Int) => Some(Kind::Ptr {
                    es,
                    ub: *space == Some(Space::Ub),
                    elem: *elem,
                }),
                Some(Kind::Ptr { ub, .. }) => Some(Kind::Ptr {
                    es,
                    ub: space.map_or(ub, |s| s == Space::Ub),
                    elem: *elem,
                }),
                Some(_) => return reject("castptr of a non-scalar"),
                None => None,
            };
            vec![(*dst, k)]
        }
        K::AddPtr { dst, src, .. } => vec![(*dst, kind(*src))],
        K::Vec(v) => match v {
            VecOp::Load { dst, .. } | VecOp::Ew { dst, .. } | VecOp::Broadcast { dst, .. } => {
                vec![(*dst, Some(Kind::V))]
            }
            VecOp::PSet { dst, .. } => vec![(*dst, Some(Kind::M))],
            VecOp::PLt { dst, rest, .. } => std::iter::once((*dst, Some(Kind::M)))
                .chain(rest.map(|r| (r, Some(Kind::Int))))
                .collect(),
            VecOp::Generic {
                op, dsts, attrs, ..
            } if exec::vmi::implemented(*op) => {
                let ks = vmi::result_kinds(*op, attrs, dsts.len())?;
                dsts.iter().zip(ks).map(|(d, k)| (*d, Some(k))).collect()
            }
            VecOp::Generic { op, dsts, srcs, .. } => {
                let ptr = srcs
                    .iter()
                    .filter_map(|r| kind(*r))
                    .find(|k| matches!(k, Kind::Ptr { .. }));
                let ks = result_kinds(*op, dsts.len(), ptr)?;
                dsts.iter().zip(ks).map(|(d, k)| (*d, Some(k))).collect()
            }
            _ => vec![],
        },
        _ => vec![],
    })
}

/// Translates a scope body, reading the kinds of its inputs from `regs`.
pub fn translate(body: &[Inst], regs: &[Val]) -> Result<Plan, String> {
    let mut defined = HashSet::new();
    let mut used = Vec::new();
    for i in body {
        let (u, d) = regs_of(&i.k)?;
        used.extend(u);
        defined.extend(d);
    }
    let mut kinds: HashMap<Reg, Kind> = HashMap::new();
    let mut inputs_r: Vec<Reg> = Vec::new();
    for r in &used {
        if defined.contains(r) || kinds.contains_key(r) {
            continue;
        }
        let Some(k) = regs.get(*r as usize).and_then(Kind::of) else {
            return reject(format!(
                "input register %{r} holds no scalar, vector or mask"
            ));
        };
        kinds.insert(*r, k);
        inputs_r.push(*r);
    }
    // definitions: iterate to a fixpoint (moves carry kinds around loops)
    loop {
        let mut changed = false;
        for i in body {
            let snapshot = kinds.clone();
            let kind = |r: Reg| snapshot.get(&r).copied();
            for (r, k) in def_kinds(&i.k, &kind)? {
                let Some(k) = k else { continue };
                match kinds.get(&r) {
                    Some(old) if *old != k => {
                        return reject(format!("register %{r} holds both {old:?} and {k:?}"))
                    }
                    Some(_) => {}
                    None => {
                        kinds.insert(r, k);
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    if let Some(r) = defined.iter().find(|r| !kinds.contains_key(r)) {
        return reject(format!("cannot type register %{r}"));
    }
    // VMI masks take the lane size of the compiled ops that read them
    let mut needs = Vec::new();
    let mut moves = Vec::new();
    for i in body {
        match &i.k {
            K::Vec(VecOp::Generic {
                op, srcs, attrs, ..
            }) if exec::vmi::implemented(*op) => {
                let kind = |r: Reg| kinds.get(&r).copied();
                if let Some(n) = vmi::form(*op, attrs, srcs, &kind).and_then(|f| f.mask_need()) {
                    needs.push(n);
                }
            }
            K::Moves { dsts, srcs } => moves.extend(
                dsts.iter()
                    .zip(srcs)
                    .filter(|(d, _)| matches!(kinds.get(d), Some(Kind::L { .. })))
                    .map(|(d, s)| (*d, *s)),
            ),
            _ => {}
        }
    }
    vmi::granularities(&needs, &moves, &mut kinds);
    // dense slots per class
    let mut all: Vec<Reg> = kinds.keys().copied().collect();
    all.sort_unstable();
    let (mut ns, mut nv, mut nm) = (0u32, 0u32, 0u32);
    let mut slot: HashMap<Reg, RegRef> = HashMap::new();
    for r in all {
        let s = match kinds[&r] {
            Kind::V => {
                nv += 1;
                RegRef::V(nv - 1)
            }
            Kind::M => {
                nm += 1;
                RegRef::M(nm - 1)
            }
            Kind::W { bytes } => {
                nv += vmi::vregs_of(bytes);
                RegRef::V(nv - vmi::vregs_of(bytes))
            }
            Kind::L { lanes, g } => {
                nm += vmi::masks_of(lanes, g);
                RegRef::M(nm - vmi::masks_of(lanes, g))
            }
            _ => {
                ns += 1;
                RegRef::S(ns - 1)
            }
        };
        slot.insert(r, s);
    }
    let t = Tr {
        kinds: &kinds,
        slot: &slot,
        temps: std::cell::Cell::new(ns),
    };
    let mut insts = Vec::with_capacity(body.len());
    for i in body {
        insts.push(t.inst(&i.k)?);
    }
    let ns = t.temps.get();
    let exact = exact_inputs(body, &insts, &kinds, &inputs_r)?;
    let slots = slot.iter().map(|(r, s)| (*r, (*s, kinds[r]))).collect();
    let inputs = inputs_r
        .into_iter()
        .map(|r| (r, kinds[&r], slot[&r]))
        .collect();
    Ok(Plan {
        scope: Scope {
            insts,
            scalars: ns,
            vregs: nv,
            masks: nm,
        },
        inputs,
        exact,
        ids: body.iter().map(|i| i.id).collect(),
        quiet: body
            .iter()
            .map(|i| matches!(&i.k, K::Vec(VecOp::Generic { op, .. }) if exec::vmi::implemented(*op)))
            .collect(),
        slots,
        state: Mutex::new(None),
    })
}

/// The float type a vector op needs its scalar operand exact in (the
/// compiled op rounds it to f32; f16/bf16 lanes need a half value so that
/// computing in f32 and rounding again is exact).
fn scalar_need(v: &VecOp, kinds: &HashMap<Reg, Kind>) -> Option<(Reg, DType)> {
    let float = |r: &Reg| kinds.get(r) == Some(&Kind::Float);
    match v {
        VecOp::Ew {
            s: Some(s), elem, ..
        }
        | VecOp::Broadcast { s, elem, .. }
            if elem.is_float() && float(s) =>
        {
            Some((*s, *elem))
        }
        VecOp::Generic {
            op: Opcode::VCmps,
            srcs,
            ..
        } => srcs.iter().find(|r| float(r)).map(|r| (*r, DType::F32)),
        _ => None,
    }
}

/// Checks that the float scalars of the scope's lane-wise ops are exact in
/// their lane type: constants now, inputs (returned) at each execution.
fn exact_inputs(
    body: &[Inst],
    insts: &[SInst],
    kinds: &HashMap<Reg, Kind>,
    inputs: &[Reg],
) -> Result<Vec<(Reg, Vec<DType>)>, String> {
    let mut need: HashMap<Reg, Vec<DType>> = HashMap::new();
    for (i, si) in body.iter().zip(insts) {
        // the host runs a `Call` with the scalar's own bits
        if matches!(si, SInst::Call { .. }) {
            continue;
        }
        if let K::Vec(v) = &i.k {
            if let Some((r, dt)) = scalar_need(v, kinds) {
                let e = need.entry(r).or_default();
                if !e.contains(&dt) {
                    e.push(dt);
                }
            }
        }
    }
    // back through moves and selects to the definitions
    loop {
        let mut changed = false;
        for i in body {
            let pairs: Vec<(Reg, Reg)> = match &i.k {
                K::Moves { dsts, srcs } => dsts.iter().copied().zip(srcs.iter().copied()).collect(),
                K::Select { dst, a, b, .. } => vec![(*dst, *a), (*dst, *b)],
                _ => continue,
            };
            for (d, s) in pairs {
                let Some(want) = need.get(&d).cloned() else {
                    continue;
                };
                let e = need.entry(s).or_default();
                for dt in want {
                    if !e.contains(&dt) {
                        e.push(dt);
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    for i in body {
        if let K::Const {
            dst,
            val: Val::Float(f),
        } = &i.k
        {
            for dt in need.get(dst).into_iter().flatten() {
                if !exact_in(*f, *dt) {
                    return reject(format!("float scalar {f} is not exact in {dt}"));
                }
            }
        }
    }
    Ok(inputs
        .iter()
        .filter_map(|r| need.get(r).map(|d| (*r, d.clone())))
        .collect())
}

struct Tr<'a> {
    kinds: &'a HashMap<Reg, Kind>,
    slot: &'a HashMap<Reg, RegRef>,
    /// The next free scalar slot (temporaries of VMI ops).
    temps: std::cell::Cell<u32>,
}

impl vmi::Temps for Tr<'_> {
    fn temp(&self) -> u32 {
        let t = self.temps.get();
        self.temps.set(t + 1);
        t
    }
}

impl Tr<'_> {
    fn kind(&self, r: Reg) -> Result<Kind, String> {
        self.kinds
            .get(&r)
            .copied()
            .ok_or_else(|| format!("untyped register %{r}"))
    }

    fn s(&self, r: Reg) -> Result<u32, String> {
        match self.slot.get(&r) {
            Some(RegRef::S(i)) => Ok(*i),
            _ => reject(format!("%{r} is not a scalar")),
        }
    }

    fn int(&self, r: Reg) -> Result<u32, String> {
        match self.kind(r)? {
            Kind::Int => self.s(r),
            k => reject(format!("%{r} is {k:?}, not an integer")),
        }
    }

    fn v(&self, r: Reg) -> Result<u32, String> {
        match self.slot.get(&r) {
            Some(RegRef::V(i)) => Ok(*i),
            _ => reject(format!("%{r} is not a vector register")),
        }
    }

    fn m(&self, r: Reg) -> Result<u32, String> {
        match self.slot.get(&r) {
            Some(RegRef::M(i)) => Ok(*i),
            _ => reject(format!("%{r} is not a mask")),
        }
    }

    fn ub_ptr(&self, r: Reg) -> Result<u32, String> {
        match self.kind(r)? {
            Kind::Ptr { ub: true, .. } => self.s(r),
            _ => reject("vector access through a non-UB pointer"),
        }
    }

    fn lane(elem: DType) -> Result<VLane, String> {
        Ok(match elem {
            DType::F32 => VLane::F32,
            DType::I32 => VLane::I32,
            DType::U32 => VLane::U32,
            DType::F16 => VLane::F16,
            DType::BF16 => VLane::BF16,
            DType::I16 => VLane::I16,
            DType::U16 => VLane::U16,
            other => return reject(format!("{other} lanes")),
        })
    }

    /// A scalar operand of a lane-wise op: a float for float lanes, an
    /// integer for integer lanes.
    fn lane_scalar(&self, lane: VLane, s: Reg) -> Result<u32, String> {
        let want = if lane.is_float() {
            Kind::Float
        } else {
            Kind::Int
        };
        if self.kind(s)? != want {
            return reject("vector-scalar op with a scalar of another kind");
        }
        self.s(s)
    }

    fn inst(&self, k: &K) -> Result<SInst, String> {
        Ok(match k {
            K::Const { dst, val } => SInst::Const {
                dst: self.s(*dst)?,
                v: match val {
                    Val::Int(i) => *i,
                    Val::Float(f) => f.to_bits() as i64,
                    _ => return reject("constant"),
                },
            },
            K::Bin { op, dst, a, b, dt } => {
                let (bits, unsigned) = int_width(*dt)?;
                SInst::Bin {
                    op: int_op(*op).ok_or("scalar op")?,
                    dst: self.s(*dst)?,
                    a: self.int(*a)?,
                    b: self.int(*b)?,
                    bits,
                    unsigned,
                }
            }
            K::Cmp {
                pred,
                unsigned,
                dst,
                a,
                b,
                ..
            } => SInst::Cmp {
                pred: match pred {
                    Pred::Eq => CmpPred::Eq,
                    Pred::Ne => CmpPred::Ne,
                    Pred::Lt => CmpPred::Lt,
                    Pred::Le => CmpPred::Le,
                    Pred::Gt => CmpPred::Gt,
                    Pred::Ge => CmpPred::Ge,
                },
                unsigned: *unsigned,
                dst: self.s(*dst)?,
                a: self.int(*a)?,
                b: self.int(*b)?,
            },
            K::Conv {
                conv: Conv::IntToInt { unsigned },
                dst,
                src,
                dt,
                from,
            } => {
                let (bits, uns) = if dt.is_float() {
                    (64, false)
                } else {
                    int_width(*dt)?
                };
                let zext_from = match (unsigned, from) {
                    (true, DType::I1) => 1,
                    (true, DType::I8 | DType::U8) => 8,
                    (true, DType::I16 | DType::U16) => 16,
                    (true, DType::I32 | DType::U32) => 32,
                    _ => 64,
                };
                SInst::Cast {
                    dst: self.s(*dst)?,
                    src: self.int(*src)?,
                    zext_from,
                    bits,
                    unsigned: uns,
                }
            }
            K::Select { dst, c, a, b } => {
                if !self.kind(*a)?.scalar() || self.kind(*a)? != self.kind(*b)? {
                    return reject("select of non-scalars");
                }
                SInst::Select {
                    dst: self.s(*dst)?,
                    c: self.int(*c)?,
                    a: self.s(*a)?,
                    b: self.s(*b)?,
                }
            }
            K::Moves { dsts, srcs } => {
                // a VMI value moves all of its registers
                let map = |rs: &[Reg]| -> Result<Vec<RegRef>, String> {
                    let mut v = Vec::new();
                    for r in rs {
                        let s = self.slot.get(r).copied().ok_or("untyped move")?;
                        v.extend(vmi::refs(s, self.kind(*r)?));
                    }
                    Ok(v)
                };
                let (dsts, srcs) = (map(dsts)?, map(srcs)?);
                if dsts.len() != srcs.len() {
                    return reject("a move between VMI values of different sizes");
                }
                SInst::Moves { dsts, srcs }
            }
            K::Jump(t) => SInst::Jump(*t as u32),
            K::BrFalse { cond, target } => SInst::BrFalse {
                c: self.int(*cond)?,
                target: *target as u32,
            },
            K::ForCheck { iv, ub, target } => SInst::ForCheck {
                iv: self.int(*iv)?,
                ub: self.int(*ub)?,
                target: *target as u32,
            },
            K::ForStep { iv, step } => SInst::ForStep {
                iv: self.int(*iv)?,
                step: self.int(*step)?,
            },
            K::End | K::Ret { .. } => SInst::Exit,
            K::CastPtr { dst, src, .. } => SInst::CastPtr {
                dst: self.s(*dst)?,
                src: self.s(*src)?,
            },
            K::AddPtr {
                dst,
                src,
                off,
                stride,
            } => {
                let Kind::Ptr { es, .. } = self.kind(*src)? else {
                    return reject("addptr of a non-pointer");
                };
                // a packed vector<NxT> pointee steps by its own size
                let es = if *stride > 0 {
                    u8::try_from(*stride).map_err(|_| "addptr stride")?
                } else {
                    es
                };
                SInst::AddPtr {
                    dst: self.s(*dst)?,
                    src: self.s(*src)?,
                    off: self.int(*off)?,
                    es,
                }
            }
            K::Vec(v) => self.vec(v)?,
            other => return reject(short_name(other)),
        })
    }

    /// An op the host executes: its operands' registers (no pointers) and
    /// its results (vector registers and masks).
    fn call(&self, srcs: &[Reg], dsts_r: &[Reg], mem: bool) -> Result<SInst, String> {
        let slot = |r: &Reg| -> Result<Vec<RegRef>, String> {
            match self.kind(*r)? {
                Kind::Ptr { ub: true, .. } if mem => {}
                Kind::Ptr { .. } if mem => return reject("a UB access through a non-UB pointer"),
                Kind::Ptr { .. } => return reject("a host-executed op with a pointer operand"),
                _ => {}
            }
            let s = self
                .slot
                .get(r)
                .copied()
                .ok_or_else(|| format!("untyped register %{r}"))?;
            Ok(vmi::refs(s, self.kind(*r)?))
        };
        let flat = |rs: &[Reg]| -> Result<Vec<RegRef>, String> {
            let mut v = Vec::new();
            for r in rs {
                v.extend(slot(r)?);
            }
            Ok(v)
        };
        let srcs = flat(srcs)?;
        let dsts = flat(dsts_r)?;
        // scalar results: only a UB access's advanced pointer or loaded
        // integer, and alignment state
        for r in dsts_r {
            let k = self.kind(*r)?;
            if k.scalar()
                && k != Kind::A
                && !(mem && matches!(k, Kind::Ptr { ub: true, .. } | Kind::Int))
            {
                return reject("a host-executed op with a scalar result");
            }
        }
        Ok(SInst::Call { srcs, dsts, mem })
    }

    /// A vector op: natively when the code generator has its form, else
    /// executed by the host (register-only ops).
    fn vec(&self, v: &VecOp) -> Result<SInst, String> {
        if let VecOp::Generic {
            op,
            dsts,
            srcs,
            attrs,
        } = v
        {
            if exec::vmi::implemented(*op) {
                return self.vmi(*op, dsts, srcs, attrs);
            }
        }
        let native = self.vec_native(v);
        match (native, v) {
            (Ok(i), _) => Ok(i),
            (
                Err(_),
                VecOp::Ew {
                    dst, a, b, s, mask, ..
                },
            ) => {
                let srcs: Vec<Reg> = [Some(*a), *b, *s, *mask].into_iter().flatten().collect();
                self.call(&srcs, &[*dst], false)
            }
            (Err(_), VecOp::Broadcast { dst, s, mask, .. }) => {
                let srcs: Vec<Reg> = [Some(*s), *mask].into_iter().flatten().collect();
                self.call(&srcs, &[*dst], false)
            }
            (Err(e), VecOp::Generic { op, dsts, srcs, .. }) => {
                if exec::vec_ops::pure(*op) {
                    self.call(srcs, dsts, false)
                } else if exec::vec_ops::ub_spr(*op) {
                    self.call(srcs, dsts, true)
                } else {
                    Err(e)
                }
            }
            (Err(e), _) => Err(e),
        }
    }

    /// A VMI op: natively when [`vmi::form`] says so, else in the host.
    fn vmi(
        &self,
        op: Opcode,
        dsts: &[Reg],
        srcs: &[Reg],
        attrs: &crate::program::Attrs,
    ) -> Result<SInst, String> {
        let kind = |r: Reg| self.kinds.get(&r).copied();
        // a mask kept at another granularity leaves the op to the host
        let fits = |f: &vmi::Form| match f.mask_need() {
            Some((m, need)) => matches!(kind(m), Some(Kind::L { g, .. }) if g == need),
            None => true,
        };
        if let Some(f) = vmi::form(op, attrs, srcs, &kind).filter(fits) {
            let at = |r: &Reg| -> Result<(RegRef, Kind), String> {
                let s = self.slot.get(r).copied();
                Ok((
                    s.ok_or_else(|| format!("untyped register %{r}"))?,
                    self.kind(*r)?,
                ))
            };
            let dst = dsts.first().map(at).transpose()?;
            let src = srcs.iter().map(at).collect::<Result<Vec<_>, _>>()?;
            if let Some(i) = vmi::emit(f, dst, &src, self) {
                return Ok(i);
            }
        }
        self.call(srcs, dsts, exec::vmi::ub_op(op))
    }

    fn vec_native(&self, v: &VecOp) -> Result<SInst, String> {
        Ok(match v {
            VecOp::Load {
                dst,
                ptr,
                off,
                dist,
                elem,
            } => SInst::Load {
                dst: self.v(*dst)?,
                ptr: self.ub_ptr(*ptr)?,
                off: off.map(|o| self.int(o)).transpose()?,
                es: u8::try_from(elem.bytes()).map_err(|_| "element size")?,
                brc: *dist == Dist::Brc,
            },
            VecOp::Store {
                src,
                ptr,
                off,
                mask,
                elem,
            } => {
                let es = u8::try_from(elem.bytes()).map_err(|_| "element size")?;
                if !matches!(es, 1 | 2 | 4) {
                    return reject(format!("vsts of {elem}"));
                }
                SInst::Store {
                    src: self.v(*src)?,
                    ptr: self.ub_ptr(*ptr)?,
                    off: off.map(|o| self.int(o)).transpose()?,
                    mask: mask.map(|m| self.m(m)).transpose()?,
                    es,
                }
            }
            VecOp::Ew {
                op,
                dst,
                a,
                b,
                s,
                mask,
                elem,
            } => {
                let lane = Self::lane(*elem)?;
                let jop = crate::jitcall::jit_op(*op).ok_or_else(|| format!("vector {op:?}"))?;
                if !vscope::ew_supported(jop, lane) {
                    return reject(format!("vector {op:?} on {elem} lanes"));
                }
                SInst::Ew {
                    op: jop,
                    lane,
                    dst: self.v(*dst)?,
                    a: self.v(*a)?,
                    b: b.map(|r| self.v(r)).transpose()?,
                    s: s.map(|s| self.lane_scalar(lane, s)).transpose()?,
                    mask: mask.map(|m| self.m(m)).transpose()?,
                }
            }
            VecOp::Broadcast { dst, s, mask, elem } => {
                let lane = Self::lane(*elem)?;
                // integers broadcast to f32 lanes go through f64 as `num::write` does
                let int_scalar = match (lane, self.kind(*s)?) {
                    (VLane::F32 | VLane::F16 | VLane::BF16, Kind::Float) => false,
                    (VLane::F16 | VLane::BF16, Kind::Int) => {
                        return reject("broadcast of an integer to 16-bit float lanes")
                    }
                    (_, Kind::Int) => true,
                    _ => return reject("broadcast of a float scalar to integer lanes"),
                };
                SInst::Bcast {
                    dst: self.v(*dst)?,
                    s: self.s(*s)?,
                    int_scalar,
                    mask: mask.map(|m| self.m(m)).transpose()?,
                    lane,
                }
            }
            VecOp::PSet { dst, pattern, gran } => {
                let m = exec::vector::pattern(pattern, *gran as usize).map_err(|_| "pattern")?;
                SInst::MaskConst {
                    dst: self.m(*dst)?,
                    bits: *m,
                }
            }
            VecOp::PLt { dst, rest, n, gran } => SInst::PLt {
                dst: self.m(*dst)?,
                rest: rest.map(|r| self.int(r)).transpose()?,
                n: self.int(*n)?,
                gran: u8::try_from(*gran).map_err(|_| "granularity")?,
            },
            VecOp::MemBar { kind } => {
                if kind.contains("VST_VLD") || kind.contains("VV_ALL") {
                    SInst::StoreLoadBarrier
                } else {
                    SInst::Nop
                }
            }
            VecOp::Generic {
                op,
                dsts,
                srcs,
                attrs,
            } => {
                if !compiled_generic(*op) || dsts.len() != 1 {
                    return reject(format!("'{}'", op.name()));
                }
                self.generic(*op, dsts, srcs, attrs)?
            }
        })
    }

    /// `vcmp`/`vcmps`, `vsel`, `vcvt`: operands by kind in textual order,
    /// as the interpreter's dispatch splits them.
    fn generic(
        &self,
        op: Opcode,
        dsts: &[Reg],
        srcs: &[Reg],
        attrs: &crate::program::Attrs,
    ) -> Result<SInst, String> {
        let name = op.name();
        let (mut v, mut m, mut s) = (Vec::new(), Vec::new(), Vec::new());
        for r in srcs {
            match self.kind(*r)? {
                Kind::V => v.push(*r),
                Kind::M => m.push(*r),
                Kind::Int | Kind::Float => s.push(*r),
                Kind::Ptr { .. } => return reject(format!("'{name}' with a pointer operand")),
                Kind::A => return reject(format!("'{name}' with an alignment operand")),
                Kind::W { .. } | Kind::L { .. } => {
                    return reject(format!("'{name}' with VMI values"))
                }
            }
        }
        let cx = Cx { op, attrs };
        let dst = *dsts.first().ok_or("no result")?;
        let mask = m.first().map(|r| self.m(*r)).transpose()?;
        let vec = |i: usize| -> Result<u32, String> {
            match v.get(i) {
                Some(r) => self.v(*r),
                None => reject(format!("'{name}' needs {} vector operand(s)", i + 1)),
            }
        };
        Ok(match op {
            Opcode::VCmp | Opcode::VCmps => {
                let dt = cx.src().map_err(|e| format!("'{name}': {e:?}"))?;
                let lane = Self::lane(dt)?;
                let mode = cx
                    .sym_or_pos(&["cmp_mode", "mode", "cmpMode"])
                    .unwrap_or("eq")
                    .to_ascii_lowercase();
                let pred = match mode.strip_prefix("cmp_").unwrap_or(&mode) {
                    "eq" => CmpPred::Eq,
                    "ne" => CmpPred::Ne,
                    "lt" => CmpPred::Lt,
                    "le" => CmpPred::Le,
                    "gt" => CmpPred::Gt,
                    "ge" => CmpPred::Ge,
                    other => return reject(format!("'{name}' mode '{other}'")),
                };
                let (b, sc) = if op == Opcode::VCmps {
                    let r = *s.first().ok_or("vcmps needs a scalar")?;
                    (None, Some(self.lane_scalar(lane, r)?))
                } else {
                    (Some(vec(1)?), None)
                };
                SInst::VCmp {
                    pred,
                    lane,
                    dst: self.m(dst)?,
                    a: vec(0)?,
                    b,
                    s: sc,
                    mask,
                }
            }
            Opcode::VCadd
            | Opcode::VCmax
            | Opcode::VCmin
            | Opcode::VCgadd
            | Opcode::VCgmax
            | Opcode::VCgmin
            | Opcode::VCpadd => {
                if v.len() != 1 || m.len() > 1 || !s.is_empty() {
                    return reject(format!("'{name}' with these operands"));
                }
                let dt = cx.dst().map_err(|e| format!("'{name}': {e:?}"))?;
                SInst::Routine {
                    op: match op {
                        Opcode::VCadd => Routine::Add,
                        Opcode::VCmax => Routine::Max,
                        Opcode::VCmin => Routine::Min,
                        Opcode::VCgadd => Routine::GroupAdd,
                        Opcode::VCgmax => Routine::GroupMax,
                        Opcode::VCgmin => Routine::GroupMin,
                        _ => Routine::PrefixAdd,
                    },
                    lane: Self::lane(dt)?,
                    dst: self.v(dst)?,
                    a: vec(0)?,
                    b: None,
                    mask,
                }
            }
            // exp(a - b) of float lanes, as the interpreter computes it: same
            // width, or 16-bit lanes into f32 (the EVEN or ODD half lanes)
            Opcode::VExpdif => {
                let st = cx.src().map_err(|e| format!("'{name}': {e:?}"))?;
                let dt = cx.dst().map_err(|e| format!("'{name}': {e:?}"))?;
                if v.len() != 2 || m.len() > 1 || !s.is_empty() {
                    return reject(format!("'{name}' with these operands"));
                }
                let lane = Self::lane(st)?;
                let odd = matches!(cx.sym_or_pos(&["part"]), Some(p) if p.ends_with("ODD"));
                let op = match (st == dt, dt) {
                    (true, _) if lane.is_float() => Routine::ExpDif,
                    (false, DType::F32) if matches!(lane, VLane::F16 | VLane::BF16) => {
                        if odd {
                            Routine::ExpDifOdd
                        } else {
                            Routine::ExpDifEven
                        }
                    }
                    _ => return reject(format!("'{name}' from {st} to {dt}")),
                };
                SInst::Routine {
                    op,
                    lane,
                    dst: self.v(dst)?,
                    a: vec(0)?,
                    b: Some(vec(1)?),
                    mask,
                }
            }
            // a register's lowest or highest lane in every active lane
            Opcode::VDup => {
                if v.len() != 1 || m.len() > 1 || !s.is_empty() {
                    return reject(format!("'{name}' with these operands"));
                }
                let dt = cx.dst().map_err(|e| format!("'{name}': {e:?}"))?;
                let high = matches!(cx.sym_or_pos(&["position"]),
                    Some(p) if p.eq_ignore_ascii_case("HIGHEST"));
                SInst::Routine {
                    op: if high {
                        Routine::DupHighest
                    } else {
                        Routine::DupLowest
                    },
                    lane: Self::lane(dt)?,
                    dst: self.v(dst)?,
                    a: vec(0)?,
                    b: None,
                    mask,
                }
            }
            Opcode::VSel => {
                let es = cx.dst().map_err(|e| format!("'{name}': {e:?}"))?.bytes();
                if !matches!(es, 1 | 2 | 4) {
                    return reject(format!("vsel of {es}-byte lanes"));
                }
                SInst::VSel {
                    es: es as u8,
                    dst: self.v(dst)?,
                    a: vec(0)?,
                    b: vec(1)?,
                    mask: mask.ok_or("vsel without a mask")?,
                }
            }
            _ => {
                let st = cx.src().map_err(|e| format!("'{name}': {e:?}"))?;
                let dt = cx.dst().map_err(|e| format!("'{name}': {e:?}"))?;
                let pair = matches!(
                    (st, dt),
                    (DType::F32, DType::F16 | DType::BF16) | (DType::F16 | DType::BF16, DType::F32)
                );
                if !pair {
                    return reject(format!("vcvt from {st} to {dt}"));
                }
                let rnd = cx.sym("rnd").or_else(|| cx.sym("round_mode"));
                match rnd.map(Rnd::parse) {
                    None | Some(Some(Rnd::R)) => {}
                    // widening is exact in every mode
                    Some(Some(_)) if dt == DType::F32 => {}
                    _ => return reject(format!("vcvt to {dt} rounding {}", rnd.unwrap_or("?"))),
                }
                let sat = cx
                    .sym("sat")
                    .is_some_and(|s| matches!(s, "SAT" | "RS_ENABLE" | "SATURATE"));
                let part = match cx.sym("part").map(|s| s.trim_start_matches("PART_")) {
                    Some("ODD" | "P1" | "HIGHER" | "HIGH" | "P2" | "P3") => 1,
                    _ => 0,
                };
                SInst::VCvt {
                    from: Self::lane(st)?,
                    to: Self::lane(dt)?,
                    dst: self.v(dst)?,
                    a: vec(0)?,
                    mask,
                    part,
                    sat,
                }
            }
        })
    }
}

/// Records a compiled scope's accesses the way the interpreter does, and
/// executes its host ops.
struct Sink<'a> {
    ids: &'a [InstId],
    /// [`Plan::quiet`].
    quiet: &'a [bool],
    body: &'a [Inst],
    slots: &'a HashMap<Reg, (RegRef, Kind)>,
    /// Why a host op failed.
    fault: Option<Fault>,
    /// Host ops executed.
    host_ops: u64,
    /// Of those, the count per scope instruction (few distinct ones).
    host_by_inst: Vec<(u32, u64)>,
    checking: bool,
    accs: &'a mut Vec<(InstId, exec::Access)>,
    /// stores since the last `mem_bar`, contiguous ones of one instruction merged
    pending: &'a mut Vec<(u64, u64, InstId)>,
    /// The bytes `[lo, hi)` spanning all of `pending` (empty: lo > hi), so a
    /// load outside it skips the search.
    hull: (u64, u64),
    /// The bytes `[lo, hi)` spanning every UB store of the run (compiled
    /// stores and host ops alike, never reset): only this span of UB is
    /// marked written, so a later run reuses the buffer instead of mapping
    /// and faulting in a fresh one.
    written: (u64, u64),
    alias: Vec<(InstId, InstId)>,
    /// The core's special registers while the scope runs (host ops read and
    /// write them; written back when the scope ends).
    spr: crate::mem::Spr,
}

/// Access runs [`Sink::log`] keeps open at once (a loop body's distinct
/// vector loads and stores; more only cost an earlier record).
const OPEN_RUNS: usize = 6;

/// One logging site's open run of contiguous accesses in [`Sink::log`].
#[derive(Clone, Copy, Default)]
struct Run {
    /// The site's log word (instruction, length, kind).
    key: u64,
    id: InstId,
    quiet: bool,
    write: bool,
    /// Bytes per access.
    len: u64,
    lo: u64,
    hi: u64,
}

/// An empty [`Sink::hull`].
const NO_STORES: (u64, u64) = (u64::MAX, 0);

impl Sink<'_> {
    /// The alias diagnosis of a load; returns its instruction id.
    #[inline(always)]
    fn load_alias(&mut self, inst: u32, lo: u64, hi: u64) -> InstId {
        let id = self.ids.get(inst as usize).copied().unwrap_or_default();
        self.load_alias_of(id, self.is_quiet(inst), lo, hi);
        id
    }

    /// [`Self::load_alias`] of a load whose id and quietness are known.
    #[inline(always)]
    fn load_alias_of(&mut self, id: InstId, quiet: bool, lo: u64, hi: u64) {
        if lo < self.hull.1 && self.hull.0 < hi && !quiet {
            for (slo, shi, st) in self.pending.iter() {
                if lo < *shi && *slo < hi && !self.alias.contains(&(*st, id)) {
                    self.alias.push((*st, id));
                }
            }
        }
    }

    /// Notes a store for the alias diagnosis and the written span; returns
    /// its instruction id.
    #[inline(always)]
    fn store_pending(&mut self, inst: u32, lo: u64, hi: u64) -> InstId {
        let id = self.ids.get(inst as usize).copied().unwrap_or_default();
        self.store_pending_of(id, self.is_quiet(inst), lo, hi);
        id
    }

    /// [`Self::store_pending`] of a store whose id and quietness are known.
    #[inline(always)]
    fn store_pending_of(&mut self, id: InstId, quiet: bool, lo: u64, hi: u64) {
        self.written = (self.written.0.min(lo), self.written.1.max(hi));
        if quiet {
            return;
        }
        match self.pending.last_mut() {
            Some(last) if last.2 == id && last.1 == lo => last.1 = hi,
            // covered by the previous store of the same op: nothing new (a
            // loop storing to one place must not grow the list)
            Some(last) if last.2 == id && last.0 <= lo && hi <= last.1 => {}
            _ => self.pending.push((lo, hi, id)),
        }
        self.hull = (self.hull.0.min(lo), self.hull.1.max(hi));
    }

    /// Whether instruction `inst` stays out of the alias diagnosis.
    #[inline(always)]
    fn is_quiet(&self, inst: u32) -> bool {
        self.quiet.get(inst as usize).copied().unwrap_or(false)
    }

    /// Records a UB access for the checker.
    #[inline(always)]
    fn record(&mut self, id: InstId, lo: u64, hi: u64, write: bool) {
        if self.checking {
            crate::machine::push_access(
                self.accs,
                id,
                exec::Access {
                    space: Space::Ub,
                    addr: lo,
                    len: hi - lo,
                    write,
                },
            );
        }
    }

    #[inline(always)]
    fn on_load(&mut self, inst: u32, lo: u64, hi: u64) {
        let id = self.load_alias(inst, lo, hi);
        self.record(id, lo, hi, false);
    }

    #[inline(always)]
    fn on_store(&mut self, inst: u32, lo: u64, hi: u64) {
        let id = self.store_pending(inst, lo, hi);
        self.record(id, lo, hi, true);
    }

    #[inline(always)]
    fn on_barrier(&mut self) {
        self.pending.clear();
        self.hull = NO_STORES;
    }
}

impl AccessSink for Sink<'_> {
    fn load(&mut self, inst: u32, lo: u64, hi: u64) {
        self.on_load(inst, lo, hi);
    }

    fn store(&mut self, inst: u32, lo: u64, hi: u64) {
        self.on_store(inst, lo, hi);
    }

    fn barrier(&mut self) {
        self.on_barrier();
    }

    fn log(&mut self, log: &[u64]) {
        // A loop's accesses interleave (load a, load b, store c, load a,
        // ...), so each logging site's contiguous accesses are gathered into
        // an open run (a few sites at a time, in order of first appearance)
        // and recorded when the run breaks or the batch ends: the ranges
        // `push_access` would merge, without its search per entry (whose
        // branches mispredicted on every interleaved entry), and a site's
        // id, quietness and length are looked up once per batch. The alias
        // diagnosis still sees every entry in order.
        let mut open = [Run::default(); OPEN_RUNS];
        let mut n = 0;
        for e in log.chunks_exact(2) {
            let (key, addr) = (e[0], e[1]);
            let k = match open[..n].iter().position(|r| r.key == key) {
                Some(k) => k,
                None => {
                    let (inst, len, write) = match vscope::logged(key, 0) {
                        Logged::Load { inst, hi, .. } => (inst, hi, false),
                        Logged::Store { inst, hi, .. } => (inst, hi, true),
                        Logged::Barrier => {
                            self.on_barrier();
                            continue;
                        }
                    };
                    if n == OPEN_RUNS {
                        let r = open[0];
                        if r.lo < r.hi {
                            self.record(r.id, r.lo, r.hi, r.write);
                        }
                        open.rotate_left(1);
                        n -= 1;
                    }
                    let id = self.ids.get(inst as usize).copied().unwrap_or_default();
                    open[n] = Run {
                        key,
                        id,
                        quiet: self.is_quiet(inst),
                        write,
                        len,
                        lo: addr,
                        hi: addr,
                    };
                    n += 1;
                    n - 1
                }
            };
            let r = &mut open[k];
            let (lo, hi) = (addr, addr + r.len);
            if r.write {
                self.store_pending_of(r.id, r.quiet, lo, hi);
            } else {
                self.load_alias_of(r.id, r.quiet, lo, hi);
            }
            if r.hi == lo {
                r.hi = hi;
            } else {
                let (id, olo, ohi, w) = (r.id, r.lo, r.hi, r.write);
                (r.lo, r.hi) = (lo, hi);
                if olo < ohi {
                    self.record(id, olo, ohi, w);
                }
            }
        }
        for r in &open[..n] {
            if r.lo < r.hi {
                self.record(r.id, r.lo, r.hi, r.write);
            }
        }
    }

    /// Every `vscope::TICK` backward jumps: a whole chunk of the work meter,
    /// so each tick reads the clock (once per 2^16 loop iterations) and the
    /// scope stops once the run's deadline has passed.
    fn tick(&mut self) -> bool {
        match exec::meter::charge(exec::meter::CHUNK) {
            Ok(()) => true,
            Err(f) => {
                self.fault = Some(f);
                false
            }
        }
    }

    fn op(&mut self, inst: u32, regs: &mut vscope::OpRegs) -> bool {
        // past the run's deadline a host op stops the scope (so does tick)
        if let Err(f) = exec::meter::charge(8) {
            self.fault = Some(f);
            return false;
        }
        self.host_ops += 1;
        match self.host_by_inst.iter_mut().find(|(i, _)| *i == inst) {
            Some((_, n)) => *n += 1,
            None => self.host_by_inst.push((inst, 1)),
        }
        match host_op(
            self.body,
            self.slots,
            inst,
            regs,
            &mut self.written,
            &mut self.spr,
        ) {
            Ok((accs, vector_mem)) => {
                let id = self.ids.get(inst as usize).copied().unwrap_or_default();
                for a in accs {
                    // vector loads and stores in the other distributions
                    // take part in the store-then-load diagnosis, as in the
                    // interpreter
                    if vector_mem && a.space == Space::Ub {
                        let hi = a.addr.saturating_add(a.len);
                        if a.write {
                            self.store_pending(inst, a.addr, hi);
                        } else {
                            self.load_alias(inst, a.addr, hi);
                        }
                    }
                    if self.checking {
                        crate::machine::push_access(self.accs, id, a);
                    }
                }
                true
            }
            Err(f) => {
                self.fault = Some(f);
                false
            }
        }
    }
}

fn as_vreg(v: Val) -> Result<Box<[u8; 256]>, Fault> {
    match v {
        Val::VReg(r) => Ok(r),
        v => fault(format!("expected a vector register, found {}", v.kind())),
    }
}

fn as_mask(v: Val) -> Result<Box<[u8; 32]>, Fault> {
    match v {
        Val::Mask(m) => Ok(m),
        v => fault(format!("expected a mask, found {}", v.kind())),
    }
}

fn as_num(v: Val) -> Result<crate::num::Num, Fault> {
    match v {
        Val::Int(i) => Ok(crate::num::Num::I(i)),
        Val::Float(f) => Ok(crate::num::Num::F(f)),
        v => fault(format!("expected a scalar, found {}", v.kind())),
    }
}

/// No UB: what a VMI op that does not access it gets.
struct NoUb;

impl exec::vec_pred::UbMem for NoUb {
    fn ub(&self, at: u64, len: u64) -> Result<&[u8], crate::mem::OutOfBounds> {
        Err(crate::mem::OutOfBounds {
            space: Space::Ub,
            addr: at,
            len,
            size: 0,
        })
    }

    fn ub_mut(&mut self, at: u64, len: u64) -> Result<&mut [u8], crate::mem::OutOfBounds> {
        Err(crate::mem::OutOfBounds {
            space: Space::Ub,
            addr: at,
            len,
            size: 0,
        })
    }
}

/// A compiled scope's UB for the predicate loads and stores.
/// UB as a host op sees it; every byte it may write widens `written`
/// (the run's written span, [`Sink::written`]), even if the op then fails.
struct ScopeUb<'a> {
    ub: &'a mut [u8],
    written: &'a mut (u64, u64),
}

impl exec::vec_pred::UbMem for ScopeUb<'_> {
    fn ub(&self, at: u64, len: u64) -> Result<&[u8], crate::mem::OutOfBounds> {
        let size = self.ub.len() as u64;
        match at.checked_add(len) {
            Some(end) if end <= size => Ok(&self.ub[at as usize..end as usize]),
            _ => Err(crate::mem::OutOfBounds {
                space: Space::Ub,
                addr: at,
                len,
                size,
            }),
        }
    }

    fn ub_mut(&mut self, at: u64, len: u64) -> Result<&mut [u8], crate::mem::OutOfBounds> {
        let size = self.ub.len() as u64;
        match at.checked_add(len) {
            Some(end) if end <= size => {
                let w = &mut *self.written;
                *w = (w.0.min(at), w.1.max(end));
                Ok(&mut self.ub[at as usize..end as usize])
            }
            _ => Err(crate::mem::OutOfBounds {
                space: Space::Ub,
                addr: at,
                len,
                size,
            }),
        }
    }
}

/// Runs scope instruction `inst` (an `SInst::Call`) on the compiled scope's
/// registers with the interpreter's code (as `machine::exec_vec` does);
/// returns the UB accesses it made.
fn host_op(
    body: &[Inst],
    slots: &HashMap<Reg, (RegRef, Kind)>,
    inst: u32,
    regs: &mut vscope::OpRegs,
    written: &mut (u64, u64),
    spr: &mut crate::mem::Spr,
) -> Result<(Vec<exec::Access>, bool), Fault> {
    let mut accs = exec::Accesses {
        on: true,
        list: Vec::new(),
    };
    use exec::vector as xv;
    let Some(K::Vec(v)) = body.get(inst as usize).map(|i| &i.k) else {
        return fault("internal: a compiled scope's host op is not a vector op");
    };
    let gone = || Fault::Msg("internal: a compiled scope's register is missing".into());
    let val = |r: Reg| -> Result<Val, Fault> {
        Ok(match slots.get(&r) {
            Some((RegRef::S(i), Kind::Float)) => {
                Val::Float(f64::from_bits(regs.scalar(*i).ok_or_else(gone)? as u64))
            }
            Some((RegRef::S(i), Kind::Int)) => Val::Int(regs.scalar(*i).ok_or_else(gone)?),
            Some((RegRef::S(_), Kind::A)) => Val::Unit,
            Some((RegRef::S(i), Kind::Ptr { ub: true, elem, .. })) => Val::Ptr(crate::value::Ptr {
                space: Space::Ub,
                addr: regs.scalar(*i).ok_or_else(gone)? as u64,
                elem: *elem,
            }),
            Some((RegRef::V(i), Kind::W { bytes })) => {
                let mut d = Vec::with_capacity(256 * vmi::vregs_of(*bytes) as usize);
                for j in 0..vmi::vregs_of(*bytes) {
                    d.extend_from_slice(&regs.vreg(i + j).ok_or_else(gone)?);
                }
                d.truncate(*bytes as usize);
                Val::Lanes(d)
            }
            Some((RegRef::M(i), Kind::L { lanes, g })) => {
                let mut bits = Vec::with_capacity(32 * vmi::masks_of(*lanes, *g) as usize);
                for j in 0..vmi::masks_of(*lanes, *g) {
                    bits.extend_from_slice(&regs.mask(i + j).ok_or_else(gone)?);
                }
                let g = usize::from((*g).max(1));
                Val::LMask(
                    (0..*lanes as usize)
                        .map(|l| {
                            bits.get(l * g / 8)
                                .is_some_and(|b| b >> (l * g % 8) & 1 != 0)
                        })
                        .collect(),
                )
            }
            Some((RegRef::V(i), _)) => Val::VReg(Box::new(regs.vreg(*i).ok_or_else(gone)?)),
            Some((RegRef::M(i), _)) => Val::Mask(Box::new(regs.mask(*i).ok_or_else(gone)?)),
            _ => return Err(gone()),
        })
    };
    let mask_of = |m: &Option<Reg>| -> Result<Box<[u8; 32]>, Fault> {
        match m {
            Some(m) => as_mask(val(*m)?),
            None => Ok(xv::all_mask()),
        }
    };
    let (dsts, out): (Vec<Reg>, Vec<Val>) = match v {
        VecOp::Ew {
            op,
            dst,
            a,
            b,
            s,
            mask,
            elem,
        } => {
            let mk = mask_of(mask)?;
            let av = as_vreg(val(*a)?)?;
            let bv = b.map(|b| val(b).and_then(as_vreg)).transpose()?;
            let sv = s.map(|s| val(s).and_then(as_num)).transpose()?;
            let r = xv::lanewise(*op, &av, bv.as_deref(), sv, &mk, *elem);
            (vec![*dst], vec![Val::VReg(r)])
        }
        VecOp::Broadcast { dst, s, mask, elem } => {
            let n = match val(*s)? {
                Val::Int(i) => crate::num::Num::I(i),
                Val::Float(f) => crate::num::Num::F(f),
                v => return fault(format!("vbr of {}", v.kind())),
            };
            let mut r = xv::broadcast(n, *elem);
            if mask.is_some() {
                // vdup: dst[i] = mask[i] ? x : 0
                let mk = mask_of(mask)?;
                let es = elem.bytes().max(1);
                for (i, lane) in r.chunks_exact_mut(es).enumerate() {
                    if !xv::lane_on(&mk, i, es) {
                        lane.fill(0);
                    }
                }
            }
            (vec![*dst], vec![Val::VReg(r)])
        }
        VecOp::Generic {
            op,
            dsts,
            srcs,
            attrs,
        } => {
            let vals: Vec<Val> = srcs.iter().map(|r| val(*r)).collect::<Result<_, _>>()?;
            let out = if exec::vmi::implemented(*op) {
                if exec::vmi::ub_op(*op) {
                    let Some(ub) = regs.ub() else {
                        return Err(gone());
                    };
                    exec::vmi::run(*op, &vals, attrs, &mut ScopeUb { ub, written }, &mut accs)?
                } else {
                    exec::vmi::run(*op, &vals, attrs, &mut NoUb, &mut accs)?
                }
            } else if exec::vec_ops::ub_spr(*op) {
                let Some(ub) = regs.ub() else {
                    return Err(gone());
                };
                exec::vec_ops::run_ub_spr(
                    *op,
                    &vals,
                    attrs,
                    &mut ScopeUb { ub, written },
                    spr,
                    &mut accs,
                )?
            } else {
                exec::vec_ops::run_pure(*op, &vals, attrs)?
            };
            if out.len() != dsts.len() {
                return fault(format!(
                    "'{}' produced {} result(s), the op defines {}",
                    op.name(),
                    out.len(),
                    dsts.len()
                ));
            }
            (dsts.clone(), out)
        }
        _ => return fault("internal: a compiled scope's host op is not a register op"),
    };
    for (d, v) in dsts.iter().zip(out) {
        let ok = match (slots.get(d), v) {
            (Some((RegRef::V(i), Kind::W { bytes })), Val::Lanes(x)) => (0..vmi::vregs_of(*bytes))
                .all(|j| {
                    let mut r = [0u8; 256];
                    let from = (256 * j as usize).min(x.len());
                    let to = (from + 256).min(x.len()).min(*bytes as usize);
                    r[..to.saturating_sub(from)].copy_from_slice(&x[from..to.max(from)]);
                    regs.set_vreg(i + j, &r)
                }),
            (Some((RegRef::M(i), Kind::L { lanes, g })), Val::LMask(f)) => {
                let n = vmi::masks_of(*lanes, *g);
                let mut bits = vec![0u8; 32 * n as usize];
                let g = usize::from((*g).max(1));
                for (l, _) in f
                    .iter()
                    .enumerate()
                    .take(*lanes as usize)
                    .filter(|(_, on)| **on)
                {
                    if let Some(b) = bits.get_mut(l * g / 8) {
                        *b |= 1 << (l * g % 8);
                    }
                }
                (0..n).all(|j| {
                    let mut m = [0u8; 32];
                    m.copy_from_slice(&bits[32 * j as usize..32 * (j as usize + 1)]);
                    regs.set_mask(i + j, &m)
                })
            }
            (Some((RegRef::V(i), _)), Val::VReg(x)) => regs.set_vreg(*i, &x),
            (Some((RegRef::M(i), _)), Val::Mask(x)) => regs.set_mask(*i, &x),
            (Some((RegRef::S(_), Kind::A)), Val::Unit) => true,
            // `load_scalar` of an integer
            (Some((RegRef::S(i), Kind::Int)), Val::Int(x)) => regs.set_scalar(*i, x),
            // a post-update access's advanced UB address
            (Some((RegRef::S(i), Kind::Ptr { ub: true, .. })), Val::Ptr(p))
                if p.space == Space::Ub =>
            {
                i64::try_from(p.addr).is_ok_and(|a| regs.set_scalar(*i, a))
            }
            (_, v) => {
                return fault(format!(
                    "a compiled scope's host op produced {} for %{d}",
                    v.kind()
                ))
            }
        };
        if !ok {
            return Err(gone());
        }
    }
    let vector_mem = matches!(v, VecOp::Generic { op, .. } if exec::vec_mem::ub_only(*op));
    Ok((accs.list, vector_mem))
}

/// Step limit of a vector scope (the interpreter's, spent here on backward jumps).
const FUEL: u64 = 100_000_000;

/// What [`run`] did.
pub enum Ran {
    /// The interpreter must run the scope (not compiled, or not yet).
    Interpret,
    /// The compiled scope ran.
    Done(Outcome),
}

/// Runs a vector scope through the JIT when the tier says so.
#[allow(clippy::too_many_arguments)]
pub fn run(
    cache: &crate::jitcall::JitCache,
    prog: &crate::program::Program,
    mode: crate::JitMode,
    threshold: u32,
    body: &[Inst],
    regs: &[Val],
    local: &mut Local,
    checking: bool,
    accs: &mut Vec<(InstId, exec::Access)>,
    fault_at: &mut Option<InstId>,
) -> Result<Ran, Fault> {
    let Some(first) = body.first().map(|i| i.id) else {
        return Ok(Ran::Interpret);
    };
    let kept = &prog.scopes;
    let sc = cache.scopes();
    if mode == crate::JitMode::Auto {
        let n = sc
            .counts
            .lock()
            .map(|mut c| {
                let e = c.entry(first).or_insert(0);
                *e += 1;
                *e
            })
            .unwrap_or(0);
        if n <= threshold {
            cache.note_cold();
            return Ok(Ran::Interpret);
        }
    }
    let plan = {
        let mut plans = match sc.plans.lock() {
            Ok(p) => p,
            Err(_) => return Ok(Ran::Interpret),
        };
        match plans.get(&first) {
            Some(p) => p.clone(),
            None => {
                let p = match kept.get(first, regs) {
                    Some(c) => Ok(c),
                    None => {
                        let p = translate(body, regs)
                            .and_then(|p| compiled(&p.scope).map(|c| (Arc::new(p), c)));
                        if let Ok(c) = &p {
                            kept.put(first, c.clone());
                        }
                        p
                    }
                };
                cache.note_scope(match &p {
                    Ok((_, c)) => Ok((c.compile_time, c.code_bytes)),
                    Err(e) => Err(format!("vecscope: {e}")),
                });
                plans.insert(first, p.clone());
                p
            }
        }
    };
    let Ok((plan, code)) = plan else {
        return Ok(Ran::Interpret);
    };
    for (r, dts) in &plan.exact {
        if let Some(Val::Float(f)) = regs.get(*r as usize) {
            if !dts.iter().all(|dt| exact_in(*f, *dt)) {
                return Ok(Ran::Interpret);
            }
        }
    }
    let mut scratch = match plan.state.lock().ok().and_then(|mut s| s.take()) {
        Some(mut sc) => {
            code.reset_state(&mut sc.st);
            sc.pending.clear();
            sc
        }
        None => Scratch {
            st: code.new_state(),
            pending: Vec::new(),
            blk_vec: code
                .blocks
                .iter()
                .map(|blk| {
                    blk.clone()
                        .filter(|k| matches!(body.get(*k as usize).map(|i| &i.k), Some(K::Vec(_))))
                        .count() as u64
                })
                .collect(),
        },
    };
    let st = &mut scratch.st;
    for (r, k, slot) in &plan.inputs {
        let v = regs.get(*r as usize);
        match (slot, v) {
            (RegRef::S(i), Some(v)) if Kind::of(v) == Some(*k) => match v {
                Val::Int(x) => st.set_scalar(*i, *x),
                Val::Float(f) => st.set_scalar(*i, f.to_bits() as i64),
                Val::Ptr(p) => st.set_scalar(*i, p.addr as i64),
                Val::Unit => st.set_scalar(*i, 0),
                _ => return Ok(Ran::Interpret),
            },
            (RegRef::V(i), Some(Val::VReg(x))) => st.set_vreg(*i, x),
            (RegRef::M(i), Some(Val::Mask(x))) => st.set_mask(*i, x),
            // an input of another kind than when the scope was compiled
            _ => return Ok(Ran::Interpret),
        }
    }
    let size = local.size(Space::Ub);
    let mut sink = Sink {
        ids: &plan.ids,
        quiet: &plan.quiet,
        body,
        slots: &plan.slots,
        fault: None,
        host_ops: 0,
        host_by_inst: Vec::new(),
        checking,
        accs,
        pending: &mut scratch.pending,
        hull: NO_STORES,
        written: NO_STORES,
        alias: Vec::new(),
        spr: local.spr,
    };
    // The whole of UB, marked written only where the run stored (below):
    // every compiled store and every host op's write is reported to the sink.
    #[cfg(debug_assertions)]
    let before = local.slice(Space::Ub, 0, size)?.to_vec();
    let status = {
        let ub = local.whole_mut(Space::Ub, 0, 0)?;
        code.call(st, ub, FUEL, &mut sink)
    };
    local.spr = sink.spr;
    let (lo, hi) = sink.written;
    if lo < hi {
        local.whole_mut(Space::Ub, lo, hi)?;
    }
    #[cfg(debug_assertions)]
    {
        let after = local.slice(Space::Ub, 0, size)?;
        // memcmp first: a byte-by-byte search is slow in debug builds
        if before.as_slice() != after {
            let diff = |(a, b): (&u8, &u8)| a != b;
            let first = before.iter().zip(after).position(diff).unwrap_or(0) as u64;
            let last = before.iter().zip(after).rposition(diff).unwrap_or(0) as u64;
            assert!(
                lo <= first && last < hi,
                "a compiled scope wrote UB bytes [{first:#x}, {last:#x}] outside its reported stores [{lo:#x}, {hi:#x})"
            );
        }
    }
    let alias = std::mem::take(&mut sink.alias);
    let host_ops = sink.host_ops;
    let host_by_inst = std::mem::take(&mut sink.host_by_inst);
    // a fault names the scope instruction that stopped the code
    *fault_at = match status {
        ScopeStatus::OutOfBounds { inst, .. }
        | ScopeStatus::NegativeAddress { inst, .. }
        | ScopeStatus::BadStep { inst, .. }
        | ScopeStatus::DivByZero { inst }
        | ScopeStatus::Stopped { inst }
        | ScopeStatus::OpFailed { inst } => plan.ids.get(inst as usize).copied(),
        ScopeStatus::Ok | ScopeStatus::OutOfFuel | ScopeStatus::Unknown => None,
    };
    match status {
        ScopeStatus::Ok => {}
        ScopeStatus::OutOfBounds { addr, len, .. } => {
            if addr < 0 {
                return fault("vector access at a negative UB address");
            }
            local.slice(Space::Ub, addr as u64, len)?;
            return fault(format!(
                "vector access [{addr:#x}, +{len}) outside UB ({size} bytes)"
            ));
        }
        ScopeStatus::NegativeAddress { inst, addr } => {
            return match body.get(inst as usize).map(|i| &i.k) {
                Some(K::CastPtr { .. }) => fault(format!("castptr of negative address {addr}")),
                _ => fault("addptr produced a negative address"),
            }
        }
        ScopeStatus::BadStep { step, .. } => {
            return fault(format!("scf.for step must be positive, got {step}"))
        }
        ScopeStatus::DivByZero { .. } => return fault("integer division by zero"),
        ScopeStatus::OutOfFuel => return fault("vector scope ran for more than 10^8 steps"),
        ScopeStatus::Stopped { .. } => {
            return Err(sink
                .fault
                .take()
                .unwrap_or_else(|| Fault::Msg("a compiled scope was stopped".into())))
        }
        ScopeStatus::OpFailed { .. } => {
            return Err(sink
                .fault
                .take()
                .unwrap_or_else(|| Fault::Msg("a compiled scope's host op failed".into())))
        }
        ScopeStatus::Unknown => return fault("compiled vector scope returned an unknown status"),
    }
    let vec_ops = scratch
        .st
        .block_counts()
        .iter()
        .zip(&scratch.blk_vec)
        .map(|(n, nv)| n * nv)
        .sum();
    cache.note_scope_exec(
        host_ops,
        host_by_inst.into_iter().map(|(i, n)| {
            let name = match body.get(i as usize) {
                Some(x) => prog.info(x.id).opcode.name(),
                None => "?",
            };
            (name, n)
        }),
    );
    Ok(Ran::Done(Outcome {
        plan,
        code,
        scratch: Some(scratch),
        vec_ops,
        alias,
    }))
}

fn compiled(s: &Scope) -> ScopeCode {
    let mut code = code_cache()
        .lock()
        .map_err(|_| "JIT cache poisoned".to_string())?;
    if let Some(c) = code.get(s) {
        return c.clone();
    }
    let c = vscope::compile(s).map(Arc::new).map_err(|e| e.to_string());
    code.insert(s.clone(), c.clone());
    c
}

/// Whether the compiled form of a scope approximates (crosscheck tolerance).
pub fn approximate(cache: &crate::jitcall::JitCache, first: InstId) -> bool {
    let plans = cache.scopes().plans.lock();
    let Ok(plans) = plans else { return false };
    matches!(plans.get(&first), Some(Ok((_, c))) if c.approximate)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What a sink ends with after `log`: the checker's accesses as merged
    /// byte ranges per (instruction, direction), the alias pairs in order
    /// of discovery, the pending stores and the written span.
    type Ends = (
        Vec<(InstId, bool, u64, u64)>,
        Vec<(InstId, InstId)>,
        Vec<(u64, u64, InstId)>,
        (u64, u64),
    );

    fn through(log: &[u64], quiet: &[bool], batched: bool) -> Ends {
        let ids: Vec<InstId> = (0..quiet.len() as u32).map(|i| 100 + i).collect();
        let slots = HashMap::new();
        let (mut accs, mut pending) = (Vec::new(), Vec::new());
        let mut sink = Sink {
            ids: &ids,
            quiet,
            body: &[],
            slots: &slots,
            fault: None,
            host_ops: 0,
            host_by_inst: Vec::new(),
            checking: true,
            accs: &mut accs,
            pending: &mut pending,
            hull: NO_STORES,
            written: NO_STORES,
            alias: Vec::new(),
            spr: Default::default(),
        };
        if batched {
            // in batches, as the compiled code hands them over
            for b in log.chunks(2 * 7) {
                sink.log(b);
            }
        } else {
            for e in log.chunks_exact(2) {
                match vscope::logged(e[0], e[1]) {
                    Logged::Load { inst, lo, hi } => sink.load(inst, lo, hi),
                    Logged::Store { inst, lo, hi } => sink.store(inst, lo, hi),
                    Logged::Barrier => sink.barrier(),
                }
            }
        }
        let (alias, written) = (std::mem::take(&mut sink.alias), sink.written);
        let mut bytes: Vec<(InstId, bool, u64, u64)> = accs
            .iter()
            .map(|(id, a)| (*id, a.write, a.addr, a.addr + a.len))
            .collect();
        bytes.sort_unstable();
        let mut merged: Vec<(InstId, bool, u64, u64)> = Vec::new();
        for r in bytes {
            match merged.last_mut() {
                Some(m) if (m.0, m.1) == (r.0, r.1) && r.2 <= m.3 => m.3 = m.3.max(r.3),
                _ => merged.push(r),
            }
        }
        (merged, alias, pending, written)
    }

    proptest! {
        /// Gathering a batch into open runs per logging site records the
        /// same bytes, diagnoses the same aliases in the same order and
        /// leaves the same pending stores as handling each entry alone:
        /// more sites than open runs, breaks in a site's run, barriers,
        /// quiet sites, partial loads.
        #[test]
        fn batched_log_matches_entry_by_entry(
            quiet in proptest::collection::vec(any::<bool>(), 9),
            steps in proptest::collection::vec((0u32..9, 0u8..4, 0u8..8, 0u64..6), 1..120),
        ) {
            let mut next = [0u64; 9];
            let mut log = Vec::new();
            for (site, kind, es, jump) in steps {
                // sites 0..3 load 256 bytes, 3..6 store, 6..9 load `es` bytes;
                // a kind of 3 is a barrier
                let (k, es) = match (kind, site / 3) {
                    (3, _) => (3u64, 0u64),
                    (_, 0) => (0, 0),
                    (_, 1) => (2, 0),
                    _ => (1, 4 << (es % 3)),
                };
                let len = match k {
                    1 => es,
                    _ => 256,
                };
                // mostly contiguous, sometimes a jump back or ahead
                let at = match jump {
                    0 => 0,
                    1 => next[site as usize] + 512,
                    _ => next[site as usize],
                } + u64::from(site % 3) * 1024;
                next[site as usize] = at - u64::from(site % 3) * 1024 + len;
                log.push(u64::from(site) | es << 32 | k << 40);
                log.push(at);
            }
            prop_assert_eq!(through(&log, &quiet, true), through(&log, &quiet, false));
        }
    }
}
