//! Vector-scope regions: the body of a `pto.vecscope` (its loops, branches,
//! scalar index arithmetic, masks and vector-register ops) compiled to one
//! native function.
//!
//! The VM translates a scope body into a [`Scope`]: one [`SInst`] per body
//! instruction (so jump targets are instruction indices), with registers
//! renumbered densely per class: scalar slots (integers, UB addresses, and
//! float scalars as f64 bits), 256-byte vector registers and 32-byte masks.
//! The compiled function keeps scalars in SSA variables and vector registers
//! and masks in the state buffer ([`Layout`]); every UB address is checked
//! against the buffer before use and a failed check returns a [`ScopeStatus`]
//! naming the instruction, never a trap. Loops spend fuel on every backward
//! jump, so a runaway scope stops like the interpreter's step limit.
//!
//! Every vector load and store, and every `mem_bar`, is reported through a
//! callback ([`AccessSink`]): the VM feeds the checker and its own
//! store-then-load alias diagnosis from it exactly as the interpreter does.
//! Each basic block counts its executions in the state, from which the VM
//! derives instruction counts and the vector-op count the timing model uses.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, AbiParam, Block, ConstantData, InstBuilder, MemFlagsData, Signature, Type, UserFuncName,
    Value,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_module::{Linkage, Module};

use crate::codegen::{self, heap_flags, Code};
use crate::{Lane, Op, Reject};

mod call;
mod lanes;
mod routine;

pub use call::OpRegs;
pub use routine::{bf16_rne, Routine};

/// Integer ops of the scalar unit (results wrap to the type's width).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum IntOp {
    Add,
    Sub,
    Mul,
    DivS,
    RemS,
    DivU,
    RemU,
    And,
    Or,
    Xor,
    Shl,
    ShrS,
    ShrU,
    MaxS,
    MinS,
    MaxU,
    MinU,
}

/// Integer comparison predicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum CmpPred {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// A register of some class (for parallel moves).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegRef {
    /// Scalar slot.
    S(u32),
    /// Vector register.
    V(u32),
    /// Mask.
    M(u32),
}

/// One scope instruction. `S`, `V`, `M` indices are dense per class.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SInst {
    /// Scalar constant (integers; floats as their f64 bits).
    Const {
        /// Scalar slot.
        dst: u32,
        /// Value.
        v: i64,
    },
    /// Integer op; the result wraps to `bits` (sign- or zero-extended).
    Bin {
        /// Op.
        op: IntOp,
        /// Result slot.
        dst: u32,
        /// Left slot.
        a: u32,
        /// Right slot.
        b: u32,
        /// Width of the result type (8, 16, 32 or 64).
        bits: u8,
        /// Whether the result type is unsigned (zero-extends).
        unsigned: bool,
    },
    /// Integer cast: zero-extend from `zext_from` bits (64: keep), then wrap
    /// to `bits` (sign- or zero-extended).
    Cast {
        /// Result slot.
        dst: u32,
        /// Source slot.
        src: u32,
        /// Width the source is zero-extended from first.
        zext_from: u8,
        /// Width of the result type.
        bits: u8,
        /// Whether the result type is unsigned.
        unsigned: bool,
    },
    /// Integer comparison, 1 or 0.
    Cmp {
        /// Predicate.
        pred: CmpPred,
        /// Unsigned comparison.
        unsigned: bool,
        /// Result slot.
        dst: u32,
        /// Left.
        a: u32,
        /// Right.
        b: u32,
    },
    /// dst = c != 0 ? a : b (scalars).
    Select {
        /// Result.
        dst: u32,
        /// Condition.
        c: u32,
        /// If true.
        a: u32,
        /// If false.
        b: u32,
    },
    /// Parallel move.
    Moves {
        /// Destinations.
        dsts: Vec<RegRef>,
        /// Sources (same classes).
        srcs: Vec<RegRef>,
    },
    /// Jump to an instruction index.
    Jump(u32),
    /// Jump if the scalar is zero.
    BrFalse {
        /// Condition slot.
        c: u32,
        /// Target.
        target: u32,
    },
    /// Jump to `target` unless iv < ub (signed).
    ForCheck {
        /// Induction variable.
        iv: u32,
        /// Upper bound.
        ub: u32,
        /// Exit target.
        target: u32,
    },
    /// iv += step; a step <= 0 stops the region.
    ForStep {
        /// Induction variable.
        iv: u32,
        /// Step.
        step: u32,
    },
    /// dst = src, which must not be negative (an address).
    CastPtr {
        /// Result.
        dst: u32,
        /// Source.
        src: u32,
    },
    /// dst = src + off * es, which must not be negative.
    AddPtr {
        /// Result.
        dst: u32,
        /// Pointer.
        src: u32,
        /// Element offset.
        off: u32,
        /// Element size of the pointer.
        es: u8,
    },
    /// `vlds`: 256 bytes from UB at ptr + off*es (or one element, broadcast).
    Load {
        /// Vector result.
        dst: u32,
        /// Address slot.
        ptr: u32,
        /// Element offset slot.
        off: Option<u32>,
        /// Element size.
        es: u8,
        /// BRC distribution.
        brc: bool,
    },
    /// `vsts`: the active lanes to UB at ptr + off*es.
    Store {
        /// Vector source.
        src: u32,
        /// Address slot.
        ptr: u32,
        /// Element offset slot.
        off: Option<u32>,
        /// Mask (none: every lane).
        mask: Option<u32>,
        /// Element size (lane width of the mask).
        es: u8,
    },
    /// Lane-wise op; masked-off lanes are zero.
    Ew {
        /// Operation.
        op: Op,
        /// Lane type.
        lane: VLane,
        /// Result.
        dst: u32,
        /// First source.
        a: u32,
        /// Second source.
        b: Option<u32>,
        /// Scalar second operand (f64 bits for float lanes).
        s: Option<u32>,
        /// Mask.
        mask: Option<u32>,
    },
    /// `vbr`/`vdup`: a scalar in every (active) lane.
    Bcast {
        /// Result.
        dst: u32,
        /// Scalar slot (f64 bits for float lanes unless `int_scalar`).
        s: u32,
        /// The scalar is an integer (converted through f64 for float lanes).
        int_scalar: bool,
        /// Mask (inactive lanes zero).
        mask: Option<u32>,
        /// Lane type.
        lane: VLane,
    },
    /// `vcmp`/`vcmps`: a mask with bit `i * es` set for each lane `i` that
    /// the input mask enables and where the comparison holds (other bits
    /// zero). Float comparisons are ordered except `Ne`.
    VCmp {
        /// Predicate (signedness from the lane type).
        pred: CmpPred,
        /// Lane type.
        lane: VLane,
        /// Mask result.
        dst: u32,
        /// Left vector.
        a: u32,
        /// Right vector.
        b: Option<u32>,
        /// Right scalar (f64 bits for float lanes).
        s: Option<u32>,
        /// Input mask (none: every lane).
        mask: Option<u32>,
    },
    /// `vsel`: lane `i` of `a` where the mask enables it, else of `b`.
    VSel {
        /// Lane width in bytes (1, 2 or 4).
        es: u8,
        /// Result.
        dst: u32,
        /// Where the mask is set.
        a: u32,
        /// Elsewhere.
        b: u32,
        /// Mask.
        mask: u32,
    },
    /// `vcvt` between f32 and a 16-bit float (round to nearest even). f32 to
    /// half writes lane `i`'s result to half lane `2i + part` (the other half
    /// lanes zero); half to f32 reads half lane `2i + part`, under the mask
    /// bit of that half lane. Saturation turns NaN into 0 and infinities into
    /// the largest finite value. Parts 2 and 3 widen half lanes `64 (part -
    /// 2) + i` instead (contiguous, unmasked, unsaturated: a VMI `vcvt`).
    VCvt {
        /// Source lane type.
        from: VLane,
        /// Result lane type.
        to: VLane,
        /// Result.
        dst: u32,
        /// Source.
        a: u32,
        /// Mask (inactive lanes zero).
        mask: Option<u32>,
        /// Which half of each 32-bit lane (0 even, 1 odd).
        part: u8,
        /// Saturate.
        sat: bool,
    },
    /// A register op run in Rust on the registers in the state buffer (see
    /// [`Routine`]: reductions across lanes, lane broadcasts, exact exp/ln;
    /// no host op, bit-exact).
    Routine {
        /// Op.
        op: Routine,
        /// Lane type.
        lane: VLane,
        /// Result.
        dst: u32,
        /// Source.
        a: u32,
        /// Second source ([`Routine::binary`] ops only).
        b: Option<u32>,
        /// Mask (none: every lane).
        mask: Option<u32>,
    },
    /// An op the host executes (see [`AccessSink::op`]): the scope hands it
    /// instruction `inst` with its operands' registers in the state buffer.
    Call {
        /// Operands (scalars are written to their slots before the call).
        srcs: Vec<RegRef>,
        /// Results (vector registers and masks only).
        dsts: Vec<RegRef>,
        /// The op accesses UB (the host gets it; the access log is drained first).
        mem: bool,
    },
    /// A constant mask.
    MaskConst {
        /// Result.
        dst: u32,
        /// Its 256 bits.
        bits: [u8; 32],
    },
    /// `plt_b*`: the first n lanes (clamped), and n - lanes (at least 0).
    PLt {
        /// Mask result.
        dst: u32,
        /// Count left.
        rest: Option<u32>,
        /// Count.
        n: u32,
        /// Bytes per lane.
        gran: u8,
    },
    /// Straight-line instructions that stand for one body instruction (a
    /// VMI op over a value that spans several registers): no jumps, no
    /// exit, no nested sequence. Faults name the body instruction.
    Seq(Vec<SInst>),
    /// `mem_bar` ordering stores before loads (reported to the sink).
    StoreLoadBarrier,
    /// An instruction with no effect here (counted only).
    Nop,
    /// End of the scope.
    Exit,
}

/// Element type of a vector op's lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum VLane {
    F32,
    I32,
    U32,
    F16,
    BF16,
    I16,
    U16,
}

impl VLane {
    /// Bytes per lane.
    pub fn bytes(self) -> u8 {
        match self {
            VLane::F32 | VLane::I32 | VLane::U32 => 4,
            _ => 2,
        }
    }

    /// Float lanes.
    pub fn is_float(self) -> bool {
        matches!(self, VLane::F32 | VLane::F16 | VLane::BF16)
    }

    /// Unsigned integer lanes.
    pub fn unsigned(self) -> bool {
        matches!(self, VLane::U32 | VLane::U16)
    }

    /// The 16-bit float type, if it is one.
    fn half(self) -> Option<Lane> {
        match self {
            VLane::F16 => Some(Lane::F16),
            VLane::BF16 => Some(Lane::BF16),
            _ => None,
        }
    }
}

/// A vector scope to compile.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Scope {
    /// Instructions, one per body instruction.
    pub insts: Vec<SInst>,
    /// Scalar slots.
    pub scalars: u32,
    /// Vector registers.
    pub vregs: u32,
    /// Masks.
    pub masks: u32,
}

/// Word offsets of the state buffer of a compiled scope (the one definition
/// the generated code and [`ScopeState`] share).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Scalar slots.
    pub scalars: usize,
    /// Vector registers (32 words each).
    pub vregs: usize,
    /// Masks (4 words each).
    pub masks: usize,
    /// Block execution counters.
    pub counts: usize,
    /// Access log (2 words per entry).
    pub log: usize,
    /// Total words.
    pub words: usize,
}

/// Header words.
const FUEL: usize = 0;

/// Backward jumps between two [`AccessSink::tick`] calls of a running scope.
pub const TICK: u64 = 1 << 16;

/// Callback kind of a tick.
const KIND_TICK: i64 = 7;
const FAULT_INST: usize = 1;
const FAULT_ADDR: usize = 2;
const FAULT_LEN: usize = 3;
/// Entries in the access log.
const LOG_N: usize = 4;
const HEADER: usize = 5;
/// Capacity of the access log in entries (two words each: inst | es << 32 |
/// kind << 40, then the address). A full log is handed to the sink.
pub(crate) const LOG_CAP: usize = 256;

impl Layout {
    fn of(s: &Scope, blocks: usize) -> Layout {
        let scalars = HEADER;
        let vregs = scalars + s.scalars as usize;
        let masks = vregs + 32 * s.vregs as usize;
        let counts = masks + 4 * s.masks as usize;
        let log = counts + blocks;
        Layout {
            scalars,
            vregs,
            masks,
            counts,
            log,
            words: log + 2 * LOG_CAP,
        }
    }
}

/// How a compiled scope ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScopeStatus {
    /// Reached its end.
    Ok,
    /// A load or store at `addr` of `len` bytes lies outside the buffer.
    OutOfBounds {
        /// Instruction index.
        inst: u32,
        /// Byte address.
        addr: i64,
        /// Length.
        len: u64,
    },
    /// `castptr`/`addptr` produced a negative address.
    NegativeAddress {
        /// Instruction index.
        inst: u32,
        /// The address.
        addr: i64,
    },
    /// `scf.for` step not positive.
    BadStep {
        /// Instruction index.
        inst: u32,
        /// The step.
        step: i64,
    },
    /// Integer division by zero.
    DivByZero {
        /// Instruction index.
        inst: u32,
    },
    /// Ran out of fuel (backward jumps).
    OutOfFuel,
    /// The sink's [`AccessSink::tick`] asked the scope to stop (the host's
    /// wall-clock deadline passed).
    Stopped {
        /// Instruction index of the backward jump.
        inst: u32,
    },
    /// An op the host executed failed (the host keeps the reason).
    OpFailed {
        /// Instruction index.
        inst: u32,
    },
    /// The code returned something this crate does not know.
    Unknown,
}

/// Receives a compiled scope's memory accesses, in program order.
pub trait AccessSink {
    /// A vector load of `[lo, hi)` by instruction `inst`.
    fn load(&mut self, inst: u32, lo: u64, hi: u64);
    /// A vector store by `inst` that wrote `[lo, hi)` (the span of its active lanes).
    fn store(&mut self, inst: u32, lo: u64, hi: u64);
    /// A `mem_bar` ordering earlier stores before later loads.
    fn barrier(&mut self);
    /// Executes instruction `inst` (an [`SInst::Call`]) on `regs`; false
    /// stops the scope with [`ScopeStatus::OpFailed`].
    fn op(&mut self, inst: u32, regs: &mut OpRegs) -> bool {
        let _ = (inst, regs);
        false
    }
    /// Called every [`TICK`] backward jumps of a running scope; false stops
    /// it with [`ScopeStatus::Stopped`] (a host with a wall-clock deadline
    /// checks it here, since a loop without memory ops or host ops calls
    /// nothing else).
    fn tick(&mut self) -> bool {
        true
    }
    /// A batch of logged accesses in program order, two words each (decode
    /// them with [`logged`]); by default handed one by one to
    /// [`Self::load`], [`Self::store`] and [`Self::barrier`]. A sink
    /// overrides it to handle the batch without a call per access.
    fn log(&mut self, log: &[u64]) {
        for e in log.chunks_exact(2) {
            match logged(e[0], e[1]) {
                Logged::Load { inst, lo, hi } => self.load(inst, lo, hi),
                Logged::Store { inst, lo, hi } => self.store(inst, lo, hi),
                Logged::Barrier => self.barrier(),
            }
        }
    }
}

/// One entry of the access log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Logged {
    /// A vector load of `[lo, hi)` by instruction `inst`.
    Load {
        /// Instruction index.
        inst: u32,
        /// First byte.
        lo: u64,
        /// End.
        hi: u64,
    },
    /// A vector store that wrote `[lo, hi)`.
    Store {
        /// Instruction index.
        inst: u32,
        /// First byte.
        lo: u64,
        /// End.
        hi: u64,
    },
    /// A `mem_bar`.
    Barrier,
}

/// Decodes the log entry `(w, addr)` (`w`: inst | es << 32 | kind << 40).
#[inline]
pub fn logged(w: u64, addr: u64) -> Logged {
    let inst = w as u32;
    match w >> 40 {
        0 => Logged::Load {
            inst,
            lo: addr,
            hi: addr + 256,
        },
        1 => Logged::Load {
            inst,
            lo: addr,
            hi: addr + ((w >> 32) & 0xff),
        },
        2 => Logged::Store {
            inst,
            lo: addr,
            hi: addr + 256,
        },
        _ => Logged::Barrier,
    }
}

/// The state buffer of one execution.
#[derive(Clone, Debug)]
pub struct ScopeState {
    words: Vec<u64>,
    layout: Layout,
}

impl ScopeState {
    /// Scalar slot `i`.
    pub fn set_scalar(&mut self, i: u32, v: i64) {
        if let Some(w) = self.words.get_mut(self.layout.scalars + i as usize) {
            *w = v as u64;
        }
    }

    /// Scalar slot `i`.
    pub fn scalar(&self, i: u32) -> i64 {
        self.words
            .get(self.layout.scalars + i as usize)
            .map_or(0, |w| *w as i64)
    }

    /// Stores `bytes` little-endian into the words at `o`.
    fn put(&mut self, o: usize, bytes: &[u8]) {
        if let Some(ws) = self.words.get_mut(o..o + bytes.len() / 8) {
            for (w, ch) in ws.iter_mut().zip(bytes.chunks_exact(8)) {
                *w = u64::from_le_bytes(ch.try_into().unwrap_or([0; 8]));
            }
        }
    }

    /// The bytes of the words at `o` (`N` bytes, a multiple of 8).
    fn take<const N: usize>(&self, o: usize) -> [u8; N] {
        let mut out = [0u8; N];
        if let Some(ws) = self.words.get(o..o + N / 8) {
            for (ch, w) in out.chunks_exact_mut(8).zip(ws) {
                ch.copy_from_slice(&w.to_le_bytes());
            }
        }
        out
    }

    /// Vector register `i` as bytes.
    pub fn set_vreg(&mut self, i: u32, v: &[u8; 256]) {
        self.put(self.layout.vregs + 32 * i as usize, v);
    }

    /// Vector register `i` as the scope will start with it; after a call,
    /// as a host-executed op last left it (compiled code keeps registers in
    /// SSA values and writes them back only for host ops, as it does with
    /// scalars: a scope's registers do not outlive it).
    pub fn vreg(&self, i: u32) -> [u8; 256] {
        self.take(self.layout.vregs + 32 * i as usize)
    }

    /// Mask `i`.
    pub fn set_mask(&mut self, i: u32, m: &[u8; 32]) {
        self.put(self.layout.masks + 4 * i as usize, m);
    }

    /// Mask `i`.
    pub fn mask(&self, i: u32) -> [u8; 32] {
        self.take(self.layout.masks + 4 * i as usize)
    }

    /// Executions of each basic block in the last call.
    pub fn block_counts(&self) -> &[u64] {
        self.words
            .get(self.layout.counts..self.layout.log)
            .unwrap_or(&[])
    }
}

/// A compiled vector scope.
pub struct ScopeCompiled {
    code: Code,
    layout: Layout,
    /// Basic blocks as instruction index ranges, in the order of the counters.
    pub blocks: Vec<std::ops::Range<u32>>,
    /// Size of the machine code in bytes.
    pub code_bytes: usize,
    /// Compile time.
    pub compile_time: std::time::Duration,
    /// Whether the scope computes an approximated function (see [`Op::ulp_bound`]).
    pub approximate: bool,
}

impl std::fmt::Debug for ScopeCompiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScopeCompiled")
            .field("blocks", &self.blocks.len())
            .field("code_bytes", &self.code_bytes)
            .finish()
    }
}

struct SinkRef<'a>(&'a mut dyn AccessSink);

extern "C" fn access_cb(
    sink: *mut u8,
    inst: u32,
    addr: u64,
    mask: *const u8,
    es: u32,
    kind: u32,
) -> u32 {
    let mut failed = 0;
    let kind64 = i64::from(kind);
    if kind64 == KIND_TICK {
        codegen::with_sink(sink, |s: &mut SinkRef| {
            if !s.0.tick() {
                failed = 1;
            }
        });
        return failed;
    }
    if kind64 == call::KIND_ROUTINE {
        return u32::from(!call::routine_regs(mask, es, addr, inst));
    }
    if kind64 == call::KIND_OP || kind64 == call::KIND_OP_MEM {
        let mem = kind64 == call::KIND_OP_MEM;
        codegen::with_sink(sink, |s: &mut SinkRef| {
            if !call::with_regs(mask, es, addr, mem, |r| s.0.op(inst, r)) {
                failed = 1;
            }
        });
        return failed;
    }
    codegen::with_sink(sink, |s: &mut SinkRef| match kind {
        0 => s.0.load(inst, addr, addr + 256),
        1 => s.0.load(inst, addr, addr + u64::from(es)),
        2 => {
            let m = codegen::mask_bytes(mask);
            let es = es.max(1) as usize;
            let on = |i: usize| {
                let bit = i * es;
                m.is_none_or(|m| m[bit / 8] & (1 << (bit % 8)) != 0)
            };
            let lanes = 256 / es;
            if let (Some(first), Some(last)) = (
                (0..lanes).find(|&i| on(i)),
                (0..lanes).rev().find(|&i| on(i)),
            ) {
                s.0.store(
                    inst,
                    addr + (first * es) as u64,
                    addr + ((last + 1) * es) as u64,
                );
            }
        }
        3 => s.0.barrier(),
        _ => s.0.log(codegen::log_entries(mask, es as usize)),
    });
    failed
}

impl ScopeCompiled {
    /// A zeroed state buffer for this scope.
    pub fn new_state(&self) -> ScopeState {
        ScopeState {
            words: vec![0; self.layout.words],
            layout: self.layout,
        }
    }

    /// Makes a state buffer of an earlier execution ready for the next one:
    /// the header and registers zeroed as in [`Self::new_state`] (the call
    /// itself resets the counters and the log), without a new allocation.
    pub fn reset_state(&self, state: &mut ScopeState) {
        if state.layout != self.layout || state.words.len() != self.layout.words {
            *state = self.new_state();
            return;
        }
        state.words[..self.layout.counts].fill(0);
    }

    /// Runs the scope on `ub` with the registers in `state`; `fuel` bounds
    /// the backward jumps.
    pub fn call(
        &self,
        state: &mut ScopeState,
        ub: &mut [u8],
        fuel: u64,
        sink: &mut dyn AccessSink,
    ) -> ScopeStatus {
        if state.layout != self.layout {
            return ScopeStatus::Unknown;
        }
        state.words[FUEL] = fuel;
        state.words[LOG_N] = 0;
        for w in &mut state.words[self.layout.counts..self.layout.log] {
            *w = 0;
        }
        let mut r = SinkRef(sink);
        let st = self.code.call_scope(
            &mut state.words,
            ub,
            (&mut r as *mut SinkRef).cast::<u8>(),
            access_cb,
            self.layout.words,
        );
        let w = &state.words;
        let n = (w[LOG_N] as usize).min(LOG_CAP);
        if n > 0 {
            r.0.log(&w[self.layout.log..self.layout.log + 2 * n]);
        }
        let inst = w[FAULT_INST] as u32;
        match st {
            0 => ScopeStatus::Ok,
            1 => ScopeStatus::OutOfBounds {
                inst,
                addr: w[FAULT_ADDR] as i64,
                len: w[FAULT_LEN],
            },
            2 => ScopeStatus::NegativeAddress {
                inst,
                addr: w[FAULT_ADDR] as i64,
            },
            3 => ScopeStatus::BadStep {
                inst,
                step: w[FAULT_ADDR] as i64,
            },
            4 => ScopeStatus::DivByZero { inst },
            5 => ScopeStatus::OutOfFuel,
            6 => ScopeStatus::OpFailed { inst },
            7 => ScopeStatus::Stopped { inst },
            _ => ScopeStatus::Unknown,
        }
    }
}

fn unsupported<T>(what: impl Into<String>) -> Result<T, Reject> {
    Err(Reject::Unsupported(what.into()))
}

/// Whether a scope compiles `op` on `lane` lanes: 16-bit float lanes take
/// the correctly rounded or exact ops. Bitwise ops on float lanes stay
/// interpreted: they make signaling NaNs, which the interpreter's float ops
/// quiet (the compiled abs/neg/relu quiet them too).
pub fn ew_supported(op: Op, lane: VLane) -> bool {
    use Op::*;
    match lane {
        VLane::F32 => !matches!(op, And | Or | Xor),
        VLane::U32 | VLane::U16 => matches!(op, Add | Sub | Mul | Max | Min | And | Or | Xor),
        VLane::I32 | VLane::I16 => !matches!(op, Div | Sqrt | Rsqrt | Recip | Exp | Log),
        // computing in f32 and rounding again gives the interpreter's bits
        VLane::F16 | VLane::BF16 => matches!(
            op,
            Add | Sub | Mul | Div | Max | Min | Abs | Neg | Sqrt | Recip | Relu
        ),
    }
}

/// Checks that every index of the scope is in range and every op is one the
/// code generator handles (so no malformed scope reaches Cranelift).
fn validate(s: &Scope) -> Result<(), Reject> {
    let n = s.insts.len() as u32;
    let sc = |i: u32| i < s.scalars;
    let vr = |i: u32| i < s.vregs;
    let mk = |i: u32| i < s.masks;
    let opt = |o: Option<u32>, f: &dyn Fn(u32) -> bool| o.is_none_or(f);
    let reg = |r: &RegRef| match *r {
        RegRef::S(i) => sc(i),
        RegRef::V(i) => vr(i),
        RegRef::M(i) => mk(i),
    };
    fn straight_only(i: &SInst) -> bool {
        !matches!(
            i,
            SInst::Jump(_)
                | SInst::BrFalse { .. }
                | SInst::ForCheck { .. }
                | SInst::Exit
                | SInst::Seq(_)
        )
    }
    let ok = |i: &SInst, ok_in_seq: &dyn Fn(&SInst) -> bool| -> bool {
        match i {
            SInst::Seq(v) => !v.is_empty() && v.iter().all(|c| straight_only(c) && ok_in_seq(c)),
            SInst::Const { dst, .. } => sc(*dst),
            SInst::Bin {
                dst, a, b, bits, ..
            } => sc(*dst) && sc(*a) && sc(*b) && matches!(bits, 8 | 16 | 32 | 64),
            SInst::Cast {
                dst,
                src,
                zext_from,
                bits,
                ..
            } => sc(*dst) && sc(*src) && matches!(zext_from, 1..=64) && matches!(bits, 1..=64),
            SInst::Cmp { dst, a, b, .. } => sc(*dst) && sc(*a) && sc(*b),
            SInst::Select { dst, c, a, b } => sc(*dst) && sc(*c) && sc(*a) && sc(*b),
            SInst::Moves { dsts, srcs } => {
                dsts.len() == srcs.len()
                    && dsts.iter().all(reg)
                    && srcs.iter().all(reg)
                    && dsts
                        .iter()
                        .zip(srcs)
                        .all(|(d, s)| std::mem::discriminant(d) == std::mem::discriminant(s))
            }
            SInst::Jump(t) => *t <= n,
            SInst::BrFalse { c, target } => sc(*c) && *target <= n,
            SInst::ForCheck { iv, ub, target } => sc(*iv) && sc(*ub) && *target <= n,
            SInst::ForStep { iv, step } => sc(*iv) && sc(*step),
            SInst::CastPtr { dst, src } => sc(*dst) && sc(*src),
            SInst::AddPtr { dst, src, off, es } => sc(*dst) && sc(*src) && sc(*off) && *es >= 1,
            SInst::Load {
                dst, ptr, off, es, ..
            } => vr(*dst) && sc(*ptr) && opt(*off, &sc) && matches!(es, 1 | 2 | 4 | 8),
            SInst::Store {
                src,
                ptr,
                off,
                mask,
                es,
            } => {
                vr(*src) && sc(*ptr) && opt(*off, &sc) && opt(*mask, &mk) && matches!(es, 1 | 2 | 4)
            }
            SInst::Ew {
                op,
                lane,
                dst,
                a,
                b,
                s: sv,
                mask,
            } => {
                use Op::*;
                let lane_ok = ew_supported(*op, *lane);
                let unary = matches!(op, Abs | Neg | Sqrt | Rsqrt | Recip | Relu | Exp | Log);
                let form_ok = if unary {
                    b.is_none() && sv.is_none()
                } else {
                    b.is_some() != sv.is_some()
                };
                lane_ok
                    && form_ok
                    && vr(*dst)
                    && vr(*a)
                    && opt(*b, &vr)
                    && opt(*sv, &sc)
                    && opt(*mask, &mk)
            }
            SInst::Bcast {
                dst,
                s: sv,
                mask,
                int_scalar,
                lane,
            } => {
                // an integer through f64 to a 16-bit float would round twice
                !(*int_scalar && lane.half().is_some()) && vr(*dst) && sc(*sv) && opt(*mask, &mk)
            }
            SInst::VCmp {
                dst,
                a,
                b,
                s: sv,
                mask,
                ..
            } => {
                mk(*dst)
                    && vr(*a)
                    && opt(*b, &vr)
                    && opt(*sv, &sc)
                    && b.is_some() != sv.is_some()
                    && opt(*mask, &mk)
            }
            SInst::VSel {
                es,
                dst,
                a,
                b,
                mask,
            } => matches!(es, 1 | 2 | 4) && vr(*dst) && vr(*a) && vr(*b) && mk(*mask),
            SInst::VCvt {
                from,
                to,
                dst,
                a,
                mask,
                part,
                sat,
            } => {
                let widen = from.half().is_some() && *to == VLane::F32;
                let pair = widen || (*from == VLane::F32 && to.half().is_some());
                // parts 2 and 3: contiguous widening, unmasked, unsaturated
                let part_ok = *part <= 1 || (*part <= 3 && widen && mask.is_none() && !*sat);
                pair && part_ok && vr(*dst) && vr(*a) && opt(*mask, &mk)
            }
            SInst::Call { srcs, dsts, .. } => srcs.iter().all(reg) && dsts.iter().all(reg),
            SInst::Routine {
                op,
                lane,
                dst,
                a,
                b,
                mask,
            } => {
                op.takes(*lane)
                    && b.is_some() == op.binary()
                    && vr(*dst)
                    && vr(*a)
                    && opt(*b, &vr)
                    && opt(*mask, &mk)
            }
            SInst::MaskConst { dst, .. } => mk(*dst),
            SInst::PLt { dst, rest, n, gran } => {
                mk(*dst) && opt(*rest, &sc) && sc(*n) && matches!(gran, 1 | 2 | 4)
            }
            SInst::StoreLoadBarrier | SInst::Nop | SInst::Exit => true,
        }
    };
    for (k, i) in s.insts.iter().enumerate() {
        // one level: a sequence's members are checked without sequences
        if !ok(i, &|c| ok(c, &|_| false)) {
            return unsupported(format!("scope instruction {k} ({i:?}) is malformed"));
        }
    }
    // an approximated result (exp, ln) through a compare, a bitwise op or a
    // narrowing can differ from the interpreter's by more than any tolerance
    // (`--crosscheck` would report it); `compile` makes such scopes exact
    // first (`exact_functions`)
    let approx = flat(&s.insts).any(|i| matches!(i, SInst::Ew { op, .. } if op.ulp_bound() > 0));
    let exact_only = flat(&s.insts).any(exact_only);
    if approx && exact_only {
        return unsupported("exp or ln in a scope with a float compare, bitwise op or conversion");
    }
    if s.scalars > 4096 || s.vregs > 1024 || s.masks > 1024 || s.insts.len() > 1 << 20 {
        return unsupported("scope too large");
    }
    Ok(())
}

/// Whether an approximated value reaching instruction `i` could make its
/// result differ from the interpreter's by more than any tolerance: a float
/// compare, bitwise op or conversion, a float reduction (its sum can cancel,
/// its extreme pick another lane), an exp (it amplifies the error), a host
/// op.
fn exact_only(i: &SInst) -> bool {
    match i {
        SInst::Ew { op, lane, .. } => lane.is_float() && matches!(op, Op::And | Op::Or | Op::Xor),
        SInst::VCmp { lane, .. } => lane.is_float(),
        SInst::Routine { op, lane, .. } => {
            lane.is_float() && !matches!(op, Routine::DupLowest | Routine::DupHighest)
        }
        SInst::VCvt { .. } | SInst::Call { .. } => true,
        _ => false,
    }
}

/// A scope that approximates exp or ln and also has an op that must see
/// exact values (a float compare, bitwise op, conversion, reduction or host
/// op) with every f32 exp and ln as the exact [`Routine`] instead, so that
/// the whole scope is bit-exact; None for any other scope.
fn exact_functions(s: &Scope) -> Option<Scope> {
    let approx = flat(&s.insts).any(|i| matches!(i, SInst::Ew { op, .. } if op.ulp_bound() > 0));
    if !approx || !flat(&s.insts).any(exact_only) {
        return None;
    }
    let swap = |i: &SInst| match *i {
        SInst::Ew {
            op: op @ (Op::Exp | Op::Log),
            lane: VLane::F32,
            dst,
            a,
            b: None,
            s: None,
            mask,
        } => SInst::Routine {
            op: if op == Op::Exp {
                Routine::Exp
            } else {
                Routine::Ln
            },
            lane: VLane::F32,
            dst,
            a,
            b: None,
            mask,
        },
        ref other => other.clone(),
    };
    let insts = s
        .insts
        .iter()
        .map(|i| match i {
            SInst::Seq(v) => SInst::Seq(v.iter().map(swap).collect()),
            i => swap(i),
        })
        .collect();
    Some(Scope { insts, ..s.clone() })
}

/// The masks an instruction (not a sequence) writes.
fn masks_written(i: &SInst) -> Vec<u32> {
    match i {
        SInst::MaskConst { dst, .. } | SInst::PLt { dst, .. } | SInst::VCmp { dst, .. } => {
            vec![*dst]
        }
        SInst::Call { dsts, .. } | SInst::Moves { dsts, .. } => dsts
            .iter()
            .filter_map(|r| match r {
                RegRef::M(m) => Some(*m),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The instructions with every [`SInst::Seq`] opened up, in order.
fn flat(insts: &[SInst]) -> impl Iterator<Item = &SInst> {
    insts.iter().flat_map(|i| match i {
        SInst::Seq(v) => v.as_slice(),
        i => std::slice::from_ref(i),
    })
}

/// The vector registers some instruction reads.
fn vregs_read(s: &Scope) -> Vec<bool> {
    let mut read = vec![false; s.vregs as usize];
    let mut mark = |v: u32| {
        if let Some(r) = read.get_mut(v as usize) {
            *r = true;
        }
    };
    for i in flat(&s.insts) {
        match i {
            SInst::Moves { srcs, .. } | SInst::Call { srcs, .. } => {
                for r in srcs {
                    if let RegRef::V(v) = *r {
                        mark(v);
                    }
                }
            }
            SInst::Store { src, .. } => mark(*src),
            SInst::Ew { a, b, .. } | SInst::VCmp { a, b, .. } => {
                mark(*a);
                b.map(&mut mark);
            }
            SInst::VSel { a, b, .. } => {
                mark(*a);
                mark(*b);
            }
            SInst::VCvt { a, .. } => mark(*a),
            SInst::Routine { a, b, .. } => {
                mark(*a);
                b.map(&mut mark);
            }
            _ => {}
        }
    }
    read
}

/// Instruction indices that start a basic block.
fn leaders(s: &Scope) -> Vec<bool> {
    let n = s.insts.len();
    let mut l = vec![false; n + 1];
    l[0] = true;
    for (k, i) in s.insts.iter().enumerate() {
        let t = match i {
            SInst::Jump(t) => Some(*t),
            SInst::BrFalse { target, .. } | SInst::ForCheck { target, .. } => Some(*target),
            _ => None,
        };
        if let Some(t) = t {
            l[t as usize] = true;
            l[k + 1] = true;
        }
        if matches!(i, SInst::Exit) {
            l[k + 1] = true;
        }
    }
    l
}

/// Masks (the first 64) known to have every bit set before each
/// instruction: set by a `MaskConst` of all ones on every path from the
/// scope's start, with no other write since (bit `m` of entry `k`). A mask
/// the scope does not set is an input, unknown. The unmasked code then runs
/// without a test of the mask: a `pset_b32 "PAT_ALL"` mask costs nothing.
fn full_masks(s: &Scope, lead: &[bool]) -> Vec<u64> {
    let n = s.insts.len();
    fn step(set: u64, i: &SInst) -> u64 {
        let write = |set: &mut u64, m: u32, full: bool| {
            if m < 64 {
                if full {
                    *set |= 1 << m;
                } else {
                    *set &= !(1u64 << m);
                }
            }
        };
        let mut out = set;
        match i {
            SInst::Seq(v) => out = v.iter().fold(out, step),
            SInst::MaskConst { dst, bits } => {
                write(&mut out, *dst, bits.iter().all(|b| *b == 0xff))
            }
            SInst::PLt { dst, .. } | SInst::VCmp { dst, .. } => write(&mut out, *dst, false),
            SInst::Call { dsts, .. } => {
                for r in dsts {
                    if let RegRef::M(m) = *r {
                        write(&mut out, m, false);
                    }
                }
            }
            SInst::Moves { dsts, srcs } => {
                // a parallel move: every source read before any write
                for (d, r) in dsts.iter().zip(srcs) {
                    if let (RegRef::M(d), RegRef::M(r)) = (*d, *r) {
                        write(&mut out, d, r < 64 && set & (1 << r) != 0);
                    }
                }
            }
            _ => {}
        }
        out
    }
    // block starts and their successors
    let starts: Vec<usize> = (0..n).filter(|k| lead[*k]).collect();
    let block_of = |k: usize| starts.partition_point(|s| *s <= k).saturating_sub(1);
    let mut block_in = vec![u64::MAX; starts.len()];
    if let Some(b0) = block_in.first_mut() {
        *b0 = 0;
    }
    let mut changed = true;
    while changed {
        changed = false;
        for (bi, &st) in starts.iter().enumerate() {
            let end = starts.get(bi + 1).copied().unwrap_or(n);
            let mut set = block_in[bi];
            for i in &s.insts[st..end] {
                set = step(set, i);
            }
            let last = &s.insts[end - 1];
            let mut succ = Vec::with_capacity(2);
            match last {
                SInst::Jump(t) => succ.push(*t as usize),
                SInst::BrFalse { target, .. } | SInst::ForCheck { target, .. } => {
                    succ.push(*target as usize);
                    succ.push(end);
                }
                SInst::Exit => {}
                _ => succ.push(end),
            }
            for t in succ {
                if t < n {
                    let tb = block_of(t);
                    let met = block_in[tb] & set;
                    if met != block_in[tb] {
                        block_in[tb] = met;
                        changed = true;
                    }
                }
            }
        }
    }
    let mut at = vec![0u64; n];
    for (bi, &st) in starts.iter().enumerate() {
        let end = starts.get(bi + 1).copied().unwrap_or(n);
        let mut set = block_in[bi];
        for (slot, i) in at[st..end].iter_mut().zip(&s.insts[st..end]) {
            *slot = set;
            set = step(set, i);
        }
    }
    at
}

/// Compiles a vector scope, or says why not.
pub fn compile(s: &Scope) -> Result<ScopeCompiled, Reject> {
    let exact;
    let s = match exact_functions(s) {
        Some(e) => {
            exact = e;
            &exact
        }
        None => s,
    };
    validate(s)?;
    let start = std::time::Instant::now();
    let lead = leaders(s);
    let mut blocks = Vec::new();
    let mut b0 = 0;
    for (k, l) in lead.iter().enumerate().skip(1) {
        if *l {
            blocks.push(b0 as u32..k as u32);
            b0 = k;
        }
    }
    let layout = Layout::of(s, blocks.len());
    let mut module = codegen::new_module()?;
    let ptr = module.target_config().pointer_type();
    if ptr != types::I64 {
        return unsupported("vector scopes need a 64-bit host");
    }
    let mut sig = module.make_signature();
    for t in [ptr, ptr, types::I64, ptr, ptr] {
        sig.params.push(AbiParam::new(t));
    }
    sig.returns.push(AbiParam::new(types::I32));
    let id = module
        .declare_function("scope", Linkage::Local, &sig)
        .map_err(|e| Reject::Codegen(e.to_string()))?;
    let mut cb_sig = module.make_signature();
    for t in [ptr, types::I32, types::I64, ptr, types::I32, types::I32] {
        cb_sig.params.push(AbiParam::new(t));
    }
    cb_sig.returns.push(AbiParam::new(types::I32));
    let mut ctx = module.make_context();
    ctx.func.signature = sig;
    ctx.func.name = UserFuncName::user(0, id.as_u32());
    let mut fctx = FunctionBuilderContext::new();
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        Gen::emit(&mut b, s, &lead, &blocks, layout, cb_sig);
        b.seal_all_blocks();
        b.finalize(module.target_config());
    }
    let (code, code_bytes) = codegen::finish(module, ctx, id, "vecscope")?;
    let approximate =
        flat(&s.insts).any(|i| matches!(i, SInst::Ew { op, .. } if op.ulp_bound() > 0));
    Ok(ScopeCompiled {
        code,
        layout,
        blocks,
        code_bytes,
        compile_time: start.elapsed(),
        approximate,
    })
}

struct Gen {
    state: Value,
    base: Value,
    len: Value,
    sink: Value,
    cb: Value,
    cb_sig: cranelift_codegen::ir::SigRef,
    vars: Vec<Variable>,
    fuel: Variable,
    /// Vector registers as SSA variables, sixteen 16-byte chunks each
    /// (register `v` chunk `j` at `16 * v + j`): a register lives in host
    /// registers, not the state buffer, so a value loaded, computed and
    /// stored within a loop iteration costs no state traffic.
    vv: Vec<Variable>,
    /// Registers a host-executed op reads or writes ([`Gen::call_op`]): they
    /// live in the state slots the host reads, as all registers did before
    /// (a host call clobbers every vector register of the host, so an SSA
    /// value there would cost a spill and a reload around every call anyway).
    vmem: Vec<bool>,
    /// [`full_masks`] before each instruction.
    full: Vec<u64>,
    /// Masks (the first 64) an earlier member of the [`SInst::Seq`] being
    /// emitted wrote: not known full whatever `full` says.
    seq_written: std::cell::Cell<u64>,
    /// The instruction being emitted.
    at: std::cell::Cell<u32>,
    layout: Layout,
    /// Whether the current basic block made room in the log for all its
    /// entries on entry (then an entry needs no test for a full log, and
    /// no call splits the block: Cranelift can forward register chunks).
    reserved: std::cell::Cell<bool>,
}

/// Flags of a bitcast that changes the lane count (lanes are little-endian).
fn little() -> MemFlagsData {
    MemFlagsData::new().with_endianness(cranelift_codegen::ir::Endianness::Little)
}

fn st_flags() -> MemFlagsData {
    MemFlagsData::trusted()
}

impl Gen {
    fn emit(
        b: &mut FunctionBuilder,
        s: &Scope,
        lead: &[bool],
        blocks: &[std::ops::Range<u32>],
        layout: Layout,
        cb_sig: Signature,
    ) {
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let p = b.block_params(entry).to_vec();
        let cb_sig = b.import_signature(cb_sig);
        let vars: Vec<Variable> = (0..s.scalars).map(|_| b.declare_var(types::I64)).collect();
        let fuel = b.declare_var(types::I64);
        let vv: Vec<Variable> = (0..16 * s.vregs)
            .map(|_| b.declare_var(types::I8X16))
            .collect();
        let mut vmem = vec![false; s.vregs as usize];
        for i in flat(&s.insts) {
            let regs: Vec<RegRef> = match i {
                SInst::Call { srcs, dsts, .. } => srcs.iter().chain(dsts).copied().collect(),
                SInst::Routine { dst, a, b, .. } => [Some(*dst), Some(*a), *b]
                    .into_iter()
                    .flatten()
                    .map(RegRef::V)
                    .collect(),
                _ => continue,
            };
            for r in regs {
                if let RegRef::V(v) = r {
                    if let Some(m) = vmem.get_mut(v as usize) {
                        *m = true;
                    }
                }
            }
        }
        let g = Gen {
            state: p[0],
            base: p[1],
            len: p[2],
            sink: p[3],
            cb: p[4],
            cb_sig,
            vars,
            fuel,
            vv,
            vmem,
            full: full_masks(s, lead),
            seq_written: std::cell::Cell::new(0),
            at: std::cell::Cell::new(0),
            layout,
            reserved: std::cell::Cell::new(false),
        };
        for (i, v) in g.vars.clone().into_iter().enumerate() {
            let x = b.ins().load(
                types::I64,
                st_flags(),
                g.state,
                ((layout.scalars + i) * 8) as i32,
            );
            b.def_var(v, x);
        }
        // registers some instruction reads start as the state holds them
        // (a scope's inputs); the others are written before any read
        for (v, read) in vregs_read(s).into_iter().enumerate() {
            if read && !g.vmem[v] {
                g.reload_vreg(b, v as u32);
            }
        }
        let f0 = b
            .ins()
            .load(types::I64, st_flags(), g.state, (FUEL * 8) as i32);
        b.def_var(fuel, f0);
        // one Cranelift block per leader; index n is the end of the scope
        let n = s.insts.len();
        let mut bl: Vec<Option<Block>> = vec![None; n + 1];
        for (k, l) in lead.iter().enumerate() {
            if *l {
                bl[k] = Some(b.create_block());
            }
        }
        let end = bl[n].unwrap_or_else(|| b.create_block());
        bl[n] = Some(end);
        let target = |t: u32| bl[t as usize].unwrap_or(end);
        b.ins().jump(target(0), &[]);
        let mut counter = 0usize;
        let mut open = false;
        for (k, inst) in s.insts.iter().enumerate() {
            if lead[k] {
                let blk = target(k as u32);
                if open {
                    b.ins().jump(blk, &[]);
                }
                b.switch_to_block(blk);
                open = true;
                if counter < blocks.len() {
                    let off = ((layout.counts + counter) * 8) as i32;
                    let c = b.ins().load(types::I64, st_flags(), g.state, off);
                    let c = b.ins().iadd_imm_s(c, 1);
                    b.ins().store(st_flags(), c, g.state, off);
                }
                counter += 1;
                // the log entries this block can append
                let len = s.insts[k..]
                    .iter()
                    .enumerate()
                    .take_while(|(i, _)| *i == 0 || !lead[k + i])
                    .count();
                let entries = flat(&s.insts[k..k + len])
                    .filter(|si| {
                        matches!(
                            si,
                            SInst::Load { .. } | SInst::Store { .. } | SInst::StoreLoadBarrier
                        )
                    })
                    .count();
                g.reserved.set(false);
                if (1..=LOG_CAP).contains(&entries) {
                    g.reserve(b, entries);
                }
            }
            if !open {
                // unreachable code after a jump that no branch targets
                continue;
            }
            let k32 = k as u32;
            g.at.set(k32);
            match inst {
                SInst::Jump(t) => {
                    g.jump(b, k32, *t, target(*t));
                    open = false;
                }
                SInst::BrFalse { c, target: t } => {
                    let cv = b.use_var(g.vars[*c as usize]);
                    let taken = b.create_block();
                    let fall = target(k32 + 1);
                    b.ins().brif(cv, fall, &[], taken, &[]);
                    b.switch_to_block(taken);
                    g.jump(b, k32, *t, target(*t));
                    open = false;
                }
                SInst::ForCheck { iv, ub, target: t } => {
                    let i = b.use_var(g.vars[*iv as usize]);
                    let u = b.use_var(g.vars[*ub as usize]);
                    let more = b.ins().icmp(IntCC::SignedLessThan, i, u);
                    let taken = b.create_block();
                    let fall = target(k32 + 1);
                    b.ins().brif(more, fall, &[], taken, &[]);
                    b.switch_to_block(taken);
                    g.jump(b, k32, *t, target(*t));
                    open = false;
                }
                SInst::Exit => {
                    b.ins().jump(end, &[]);
                    open = false;
                }
                other => g.straight(b, k32, other),
            }
        }
        if open {
            b.ins().jump(end, &[]);
        }
        b.switch_to_block(end);
        let z = b.ins().iconst(types::I32, 0);
        b.ins().return_(&[z]);
    }

    fn var(&self, b: &mut FunctionBuilder, i: u32) -> Value {
        b.use_var(self.vars[i as usize])
    }

    /// Jumps from instruction `k` to `t`; backward jumps spend fuel.
    fn jump(&self, b: &mut FunctionBuilder, k: u32, t: u32, blk: Block) {
        if t > k {
            b.ins().jump(blk, &[]);
            return;
        }
        let f = b.use_var(self.fuel);
        let f = b.ins().iadd_imm_s(f, -1);
        b.def_var(self.fuel, f);
        // every TICK backward jumps the sink may stop the scope
        let low = b.ins().band_imm_s(f, TICK as i64 - 1);
        let tick = b.ins().icmp_imm_s(IntCC::Equal, low, 0);
        let ask = b.create_block();
        let cont = b.create_block();
        b.ins().brif(tick, ask, &[], cont, &[]);
        b.switch_to_block(ask);
        let ki = b.ins().iconst(types::I32, i64::from(k));
        let z = b.ins().iconst(types::I64, 0);
        let z32 = b.ins().iconst(types::I32, 0);
        let kd = b.ins().iconst(types::I32, KIND_TICK);
        let call = b
            .ins()
            .call_indirect(self.cb_sig, self.cb, &[self.sink, ki, z, z, z32, kd]);
        let r = b.inst_results(call)[0];
        let go = b.ins().icmp_imm_s(IntCC::Equal, r, 0);
        let stop = b.create_block();
        b.ins().brif(go, cont, &[], stop, &[]);
        b.switch_to_block(stop);
        self.exit(b, 7, k, None);
        b.switch_to_block(cont);
        let out = b.ins().icmp_imm_s(IntCC::SignedLessThan, f, 0);
        let dead = b.create_block();
        b.ins().brif(out, dead, &[], blk, &[]);
        b.switch_to_block(dead);
        self.exit(b, 5, k, None);
    }

    /// Returns `status`, recording the instruction and (addr, len).
    fn exit(&self, b: &mut FunctionBuilder, status: i64, k: u32, info: Option<(Value, Value)>) {
        let ki = b.ins().iconst(types::I64, i64::from(k));
        b.ins()
            .store(st_flags(), ki, self.state, (FAULT_INST * 8) as i32);
        if let Some((a, l)) = info {
            b.ins()
                .store(st_flags(), a, self.state, (FAULT_ADDR * 8) as i32);
            b.ins()
                .store(st_flags(), l, self.state, (FAULT_LEN * 8) as i32);
        }
        let s = b.ins().iconst(types::I32, status);
        b.ins().return_(&[s]);
    }

    /// Continues when `ok` (an i8 truth value), else returns `status`.
    fn guard(
        &self,
        b: &mut FunctionBuilder,
        ok: Value,
        status: i64,
        k: u32,
        info: Option<(Value, Value)>,
    ) {
        let cont = b.create_block();
        let bad = b.create_block();
        b.ins().brif(ok, cont, &[], bad, &[]);
        // both have their one predecessor: sealed, a variable's lookup
        // there is direct
        b.seal_block(cont);
        b.seal_block(bad);
        b.switch_to_block(bad);
        self.exit(b, status, k, info);
        b.switch_to_block(cont);
    }

    /// The UB address ptr + off*es, checked to lie with `n` bytes in the buffer;
    /// returns (host pointer, UB address).
    fn ub_addr(
        &self,
        b: &mut FunctionBuilder,
        k: u32,
        ptr: u32,
        off: Option<u32>,
        es: u8,
        n: i64,
    ) -> (Value, Value) {
        let mut a = self.var(b, ptr);
        if let Some(o) = off {
            let o = self.var(b, o);
            let o = b.ins().imul_imm_s(o, i64::from(es));
            a = b.ins().iadd(a, o);
        }
        let nonneg = b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, a, 0);
        let end = b.ins().iadd_imm_s(a, n);
        let fits = b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, self.len);
        let ok = b.ins().band(nonneg, fits);
        let nv = b.ins().iconst(types::I64, n);
        self.guard(b, ok, 1, k, Some((a, nv)));
        (b.ins().iadd(self.base, a), a)
    }

    fn vslot(&self, v: u32) -> i32 {
        ((self.layout.vregs + 32 * v as usize) * 8) as i32
    }

    /// Chunk `j` of vector register `v` as a `ty` vector.
    fn vget(&self, b: &mut FunctionBuilder, v: u32, j: i32, ty: Type) -> Value {
        if self.vmem[v as usize] {
            return b
                .ins()
                .load(ty, st_flags(), self.state, self.vslot(v) + 16 * j);
        }
        let x = b.use_var(self.vv[16 * v as usize + j as usize]);
        if ty == types::I8X16 {
            x
        } else {
            b.ins().bitcast(ty, little(), x)
        }
    }

    /// Sets chunk `j` of vector register `v` to the 16-byte vector `x`.
    fn vset(&self, b: &mut FunctionBuilder, v: u32, j: i32, x: Value) {
        if self.vmem[v as usize] {
            b.ins()
                .store(st_flags(), x, self.state, self.vslot(v) + 16 * j);
            return;
        }
        let x = if b.func.dfg.value_type(x) == types::I8X16 {
            x
        } else {
            b.ins().bitcast(types::I8X16, little(), x)
        };
        b.def_var(self.vv[16 * v as usize + j as usize], x);
    }

    /// Reads vector register `v` from its state slot (a scope input; a
    /// register the host uses stays there).
    fn reload_vreg(&self, b: &mut FunctionBuilder, v: u32) {
        if self.vmem[v as usize] {
            return;
        }
        for j in 0..16 {
            let x = b
                .ins()
                .load(types::I8X16, st_flags(), self.state, self.vslot(v) + 16 * j);
            self.vset(b, v, j, x);
        }
    }

    fn mslot(&self, m: u32) -> i32 {
        ((self.layout.masks + 4 * m as usize) * 8) as i32
    }

    /// Calls the sink now (kind 2 with a mask: a store under a partial mask;
    /// 4: drain `n` log entries), after draining the log so order is kept.
    fn call_sink(
        &self,
        b: &mut FunctionBuilder,
        k: u32,
        addr: Value,
        mask: Option<u32>,
        es: u8,
        kind: i64,
    ) {
        if kind != 4 {
            self.flush(b);
        }
        let ki = b.ins().iconst(types::I32, i64::from(k));
        let mp = match mask {
            Some(m) => b.ins().iadd_imm_s(self.state, i64::from(self.mslot(m))),
            None => b.ins().iconst(types::I64, 0),
        };
        let e = b.ins().iconst(types::I32, i64::from(es));
        let kd = b.ins().iconst(types::I32, kind);
        b.ins()
            .call_indirect(self.cb_sig, self.cb, &[self.sink, ki, addr, mp, e, kd]);
    }

    /// Hands the logged entries to the sink and empties the log.
    fn flush(&self, b: &mut FunctionBuilder) {
        let sf = st_flags();
        let n = b.ins().load(types::I64, sf, self.state, (LOG_N * 8) as i32);
        let some = b.ins().icmp_imm_s(IntCC::NotEqual, n, 0);
        let go = b.create_block();
        let cont = b.create_block();
        b.ins().brif(some, go, &[], cont, &[]);
        b.switch_to_block(go);
        let base = b.ins().iadd_imm_s(self.state, (self.layout.log * 8) as i64);
        let ki = b.ins().iconst(types::I32, 0);
        let z = b.ins().iconst(types::I64, 0);
        let n32 = b.ins().ireduce(types::I32, n);
        let kd = b.ins().iconst(types::I32, 4);
        b.ins()
            .call_indirect(self.cb_sig, self.cb, &[self.sink, ki, z, base, n32, kd]);
        b.ins().store(sf, z, self.state, (LOG_N * 8) as i32);
        b.ins().jump(cont, &[]);
        b.switch_to_block(cont);
    }

    /// Drains the log unless it has room for `entries` more; the block's
    /// entries then skip the test.
    fn reserve(&self, b: &mut FunctionBuilder, entries: usize) {
        let sf = st_flags();
        let n = b.ins().load(types::I64, sf, self.state, (LOG_N * 8) as i32);
        let full = b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThan, n, (LOG_CAP - entries) as i64);
        let drain = b.create_block();
        let go = b.create_block();
        b.ins().brif(full, drain, &[], go, &[]);
        b.switch_to_block(drain);
        self.flush(b);
        b.ins().jump(go, &[]);
        b.switch_to_block(go);
        self.reserved.set(true);
    }

    /// Appends an access to the log (kind 0 load, 1 broadcast load, 2 full
    /// store, 3 barrier), draining it first when full.
    fn log(&self, b: &mut FunctionBuilder, k: u32, addr: Value, es: u8, kind: u64) {
        let sf = st_flags();
        let n = b.ins().load(types::I64, sf, self.state, (LOG_N * 8) as i32);
        if self.reserved.get() {
            self.put_log(b, n, k, addr, es, kind);
            return;
        }
        let full = b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, n, LOG_CAP as i64);
        let drain = b.create_block();
        let put = b.create_block();
        b.append_block_param(put, types::I64);
        b.ins().brif(full, drain, &[], put, &[n.into()]);
        b.switch_to_block(drain);
        self.flush(b);
        let z = b.ins().iconst(types::I64, 0);
        b.ins().jump(put, &[z.into()]);
        b.switch_to_block(put);
        let n = b.block_params(put)[0];
        self.put_log(b, n, k, addr, es, kind);
    }

    /// Writes log entry `n` and counts it.
    fn put_log(&self, b: &mut FunctionBuilder, n: Value, k: u32, addr: Value, es: u8, kind: u64) {
        let sf = st_flags();
        let at = b.ins().imul_imm_s(n, 16);
        let at = b.ins().iadd(self.state, at);
        let off = (self.layout.log * 8) as i32;
        let w = (u64::from(k) | u64::from(es) << 32 | kind << 40) as i64;
        let w = b.ins().iconst(types::I64, w);
        b.ins().store(sf, w, at, off);
        b.ins().store(sf, addr, at, off + 8);
        let n1 = b.ins().iadd_imm_s(n, 1);
        b.ins().store(sf, n1, self.state, (LOG_N * 8) as i32);
    }

    /// Whether every bit of mask `m` is set (an i8 truth value).
    /// Whether mask `m` has every bit set at the instruction being emitted,
    /// whatever path led there ([`full_masks`]).
    fn known_full(&self, m: u32) -> bool {
        m < 64
            && self.seq_written.get() & (1 << m) == 0
            && self
                .full
                .get(self.at.get() as usize)
                .is_some_and(|set| set & (1 << m) != 0)
    }

    fn mask_full(&self, b: &mut FunctionBuilder, m: u32) -> Value {
        let sf = st_flags();
        let mut acc = b.ins().load(types::I64, sf, self.state, self.mslot(m));
        for j in 1..4 {
            let w = b
                .ins()
                .load(types::I64, sf, self.state, self.mslot(m) + 8 * j);
            acc = b.ins().band(acc, w);
        }
        b.ins().icmp_imm_s(IntCC::Equal, acc, -1)
    }

    /// Emits `body(masked)` twice behind a test of mask `m`: unmasked code
    /// when every bit is set, masked code otherwise (no mask: unmasked only).
    fn split_on_mask(
        &self,
        b: &mut FunctionBuilder,
        m: Option<u32>,
        body: &mut dyn FnMut(&mut FunctionBuilder, bool),
    ) {
        let Some(m) = m.filter(|m| !self.known_full(*m)) else {
            body(b, false);
            return;
        };
        let full = self.mask_full(b, m);
        let fast = b.create_block();
        let slow = b.create_block();
        let join = b.create_block();
        b.ins().brif(full, fast, &[], slow, &[]);
        b.switch_to_block(fast);
        body(b, false);
        b.ins().jump(join, &[]);
        b.switch_to_block(slow);
        body(b, true);
        b.ins().jump(join, &[]);
        b.switch_to_block(join);
    }

    fn const_vec(b: &mut FunctionBuilder, ty: Type, bytes: Vec<u8>) -> Value {
        let c = b.func.dfg.constants.insert(ConstantData::from(bytes));
        b.ins().vconst(ty, c)
    }

    /// The lanes of 16-byte chunk `j` that mask `m` enables, as an integer
    /// vector with all-ones lanes (lane width `es`): the mask's 16 bits in
    /// every lane, each lane's own bit kept and compared with itself.
    fn lane_mask(&self, b: &mut FunctionBuilder, m: u32, j: i32, es: u8) -> Value {
        let off = self.mslot(m) + 2 * j;
        let f = st_flags();
        match es {
            4 => {
                let h = b.ins().uload16(types::I32, f, self.state, off);
                let v = b.ins().splat(types::I32X4, h);
                let bits: Vec<u8> = [1u32, 1 << 4, 1 << 8, 1 << 12]
                    .iter()
                    .flat_map(|x| x.to_le_bytes())
                    .collect();
                let c = Self::const_vec(b, types::I32X4, bits);
                let t = b.ins().band(v, c);
                b.ins().icmp(IntCC::Equal, t, c)
            }
            2 => {
                let h = b.ins().load(types::I16, f, self.state, off);
                let v = b.ins().splat(types::I16X8, h);
                let bits: Vec<u8> = (0..8u16)
                    .flat_map(|i| (1u16 << (2 * i)).to_le_bytes())
                    .collect();
                let c = Self::const_vec(b, types::I16X8, bits);
                let t = b.ins().band(v, c);
                b.ins().icmp(IntCC::Equal, t, c)
            }
            _ => {
                let lo = b.ins().load(types::I8, f, self.state, off);
                let hi = b.ins().load(types::I8, f, self.state, off + 1);
                let lo = b.ins().splat(types::I8X16, lo);
                let hi = b.ins().splat(types::I8X16, hi);
                let half: Vec<u8> = (0..16).map(|i| if i < 8 { 0xff } else { 0 }).collect();
                let half = Self::const_vec(b, types::I8X16, half);
                let v = b.ins().bitselect(half, lo, hi);
                let bits: Vec<u8> = (0..16).map(|i| 1u8 << (i % 8)).collect();
                let c = Self::const_vec(b, types::I8X16, bits);
                let t = b.ins().band(v, c);
                b.ins().icmp(IntCC::Equal, t, c)
            }
        }
    }

    fn wrap(b: &mut FunctionBuilder, v: Value, bits: u8, unsigned: bool) -> Value {
        if bits >= 64 {
            return v;
        }
        let sh = i64::from(64 - bits);
        if unsigned {
            b.ins().band_imm_u(v, ((1u64 << bits) - 1) as i64)
        } else {
            let t = b.ins().ishl_imm_u(v, sh);
            b.ins().sshr_imm_u(t, sh)
        }
    }

    fn straight(&self, b: &mut FunctionBuilder, k: u32, inst: &SInst) {
        let sf = st_flags();
        let hf = heap_flags();
        match inst {
            SInst::Seq(v) => {
                self.seq_written.set(0);
                for c in v {
                    self.straight(b, k, c);
                    let mut w = self.seq_written.get();
                    for m in masks_written(c) {
                        if m < 64 {
                            w |= 1 << m;
                        }
                    }
                    self.seq_written.set(w);
                }
                self.seq_written.set(0);
            }
            SInst::Const { dst, v } => {
                let c = b.ins().iconst(types::I64, *v);
                b.def_var(self.vars[*dst as usize], c);
            }
            SInst::Bin {
                op,
                dst,
                a,
                b: rb,
                bits,
                unsigned,
            } => {
                let x = self.var(b, *a);
                let y = self.var(b, *rb);
                let r = self.bin(b, k, *op, x, y, *bits);
                let r = Self::wrap(b, r, *bits, *unsigned);
                b.def_var(self.vars[*dst as usize], r);
            }
            SInst::Cast {
                dst,
                src,
                zext_from,
                bits,
                unsigned,
            } => {
                let x = self.var(b, *src);
                let x = Self::wrap(b, x, *zext_from, true);
                let r = Self::wrap(b, x, *bits, *unsigned);
                b.def_var(self.vars[*dst as usize], r);
            }
            SInst::Cmp {
                pred,
                unsigned,
                dst,
                a,
                b: rb,
            } => {
                let x = self.var(b, *a);
                let y = self.var(b, *rb);
                let cc = match (pred, unsigned) {
                    (CmpPred::Eq, _) => IntCC::Equal,
                    (CmpPred::Ne, _) => IntCC::NotEqual,
                    (CmpPred::Lt, false) => IntCC::SignedLessThan,
                    (CmpPred::Le, false) => IntCC::SignedLessThanOrEqual,
                    (CmpPred::Gt, false) => IntCC::SignedGreaterThan,
                    (CmpPred::Ge, false) => IntCC::SignedGreaterThanOrEqual,
                    (CmpPred::Lt, true) => IntCC::UnsignedLessThan,
                    (CmpPred::Le, true) => IntCC::UnsignedLessThanOrEqual,
                    (CmpPred::Gt, true) => IntCC::UnsignedGreaterThan,
                    (CmpPred::Ge, true) => IntCC::UnsignedGreaterThanOrEqual,
                };
                let c = b.ins().icmp(cc, x, y);
                let c = b.ins().uextend(types::I64, c);
                b.def_var(self.vars[*dst as usize], c);
            }
            SInst::Select { dst, c, a, b: rb } => {
                let cv = self.var(b, *c);
                let x = self.var(b, *a);
                let y = self.var(b, *rb);
                let r = b.ins().select(cv, x, y);
                b.def_var(self.vars[*dst as usize], r);
            }
            SInst::Moves { dsts, srcs } => {
                // read every source, then write: a parallel move
                let vals: Vec<Vec<Value>> = srcs
                    .iter()
                    .map(|r| match *r {
                        RegRef::S(i) => vec![self.var(b, i)],
                        RegRef::V(i) => (0..16).map(|j| self.vget(b, i, j, types::I8X16)).collect(),
                        RegRef::M(i) => (0..4)
                            .map(|j| {
                                b.ins()
                                    .load(types::I64, sf, self.state, self.mslot(i) + 8 * j)
                            })
                            .collect(),
                    })
                    .collect();
                for (d, v) in dsts.iter().zip(vals) {
                    match *d {
                        RegRef::S(i) => b.def_var(self.vars[i as usize], v[0]),
                        RegRef::V(i) => {
                            for (j, x) in v.into_iter().enumerate() {
                                self.vset(b, i, j as i32, x);
                            }
                        }
                        RegRef::M(i) => {
                            for (j, x) in v.into_iter().enumerate() {
                                b.ins()
                                    .store(sf, x, self.state, self.mslot(i) + 8 * j as i32);
                            }
                        }
                    }
                }
            }
            SInst::ForStep { iv, step } => {
                let st = self.var(b, *step);
                let pos = b.ins().icmp_imm_s(IntCC::SignedGreaterThan, st, 0);
                let z = b.ins().iconst(types::I64, 0);
                self.guard(b, pos, 3, k, Some((st, z)));
                let i = self.var(b, *iv);
                let r = b.ins().iadd(i, st);
                b.def_var(self.vars[*iv as usize], r);
            }
            SInst::CastPtr { dst, src } => {
                let a = self.var(b, *src);
                let ok = b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, a, 0);
                let z = b.ins().iconst(types::I64, 0);
                self.guard(b, ok, 2, k, Some((a, z)));
                b.def_var(self.vars[*dst as usize], a);
            }
            SInst::AddPtr { dst, src, off, es } => {
                let a = self.var(b, *src);
                let o = self.var(b, *off);
                let o = b.ins().imul_imm_s(o, i64::from(*es));
                let r = b.ins().iadd(a, o);
                let ok = b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, r, 0);
                let z = b.ins().iconst(types::I64, 0);
                self.guard(b, ok, 2, k, Some((r, z)));
                b.def_var(self.vars[*dst as usize], r);
            }
            SInst::Load {
                dst,
                ptr,
                off,
                es,
                brc,
            } => {
                let n = if *brc { i64::from(*es) } else { 256 };
                let (hp, a) = self.ub_addr(b, k, *ptr, *off, *es, n);
                if *brc {
                    let (ty, vty) = match es {
                        1 => (types::I8, types::I8X16),
                        2 => (types::I16, types::I16X8),
                        4 => (types::I32, types::I32X4),
                        _ => (types::I64, types::I64X2),
                    };
                    let x = b.ins().load(ty, hf, hp, 0);
                    let v = b.ins().splat(vty, x);
                    for j in 0..16 {
                        self.vset(b, *dst, j, v);
                    }
                } else {
                    for j in 0..16 {
                        let v = b.ins().load(types::I8X16, hf, hp, 16 * j);
                        self.vset(b, *dst, j, v);
                    }
                }
                self.log(b, k, a, *es, u64::from(*brc));
            }
            SInst::Store {
                src,
                ptr,
                off,
                mask,
                es,
            } => {
                let (hp, a) = self.ub_addr(b, k, *ptr, *off, *es, 256);
                let es = *es;
                self.split_on_mask(b, *mask, &mut |b, masked| {
                    for j in 0..16 {
                        let v = self.vget(b, *src, j, types::I8X16);
                        let v = match mask {
                            Some(m) if masked => {
                                let lm = self.lane_mask(b, *m, j, es);
                                let lm = if es == 1 {
                                    lm
                                } else {
                                    b.ins().bitcast(types::I8X16, little(), lm)
                                };
                                let old = b.ins().load(types::I8X16, hf, hp, 16 * j);
                                b.ins().bitselect(lm, v, old)
                            }
                            _ => v,
                        };
                        b.ins().store(hf, v, hp, 16 * j);
                    }
                    if masked {
                        self.call_sink(b, k, a, *mask, es, 2);
                    } else {
                        self.log(b, k, a, es, 2);
                    }
                });
            }
            SInst::Ew {
                op,
                lane,
                dst,
                a,
                b: rb,
                s,
                mask,
            } => self.ew(b, *op, *lane, *dst, *a, *rb, *s, *mask),
            SInst::Bcast {
                dst,
                s,
                int_scalar,
                mask,
                lane,
            } => self.bcast(b, *dst, *s, *int_scalar, *mask, *lane),
            SInst::VCmp {
                pred,
                lane,
                dst,
                a,
                b: rb,
                s,
                mask,
            } => self.vcmp(b, *pred, *lane, *dst, *a, *rb, *s, *mask),
            SInst::VSel {
                es,
                dst,
                a,
                b: rb,
                mask,
            } => self.vsel(b, *es, *dst, *a, *rb, *mask),
            SInst::VCvt {
                from,
                to,
                dst,
                a,
                mask,
                part,
                sat,
            } => self.vcvt(b, *from, *to, *dst, *a, *mask, *part, *sat),
            SInst::Call { srcs, dsts, mem } => self.call_op(b, k, srcs, dsts, *mem),
            SInst::Routine {
                op,
                lane,
                dst,
                a,
                b: rb,
                mask,
            } => self.routine(b, k, *op, *lane, (*dst, *a, *rb), *mask),
            SInst::MaskConst { dst, bits } => {
                for (j, ch) in bits.chunks_exact(8).enumerate() {
                    let w = i64::from_le_bytes(ch.try_into().unwrap_or([0; 8]));
                    let c = b.ins().iconst(types::I64, w);
                    b.ins()
                        .store(sf, c, self.state, self.mslot(*dst) + 8 * j as i32);
                }
            }
            SInst::PLt { dst, rest, n, gran } => {
                let lanes = 256 / i64::from(*gran);
                let nv = self.var(b, *n);
                let z = b.ins().iconst(types::I64, 0);
                let l = b.ins().iconst(types::I64, lanes);
                let c = b.ins().smax(nv, z);
                let c = b.ins().smin(c, l);
                let bits = b.ins().imul_imm_s(c, i64::from(*gran));
                for w in 0..4i64 {
                    let bw = b.ins().iadd_imm_s(bits, -64 * w);
                    let bw = b.ins().smax(bw, z);
                    let s64 = b.ins().iconst(types::I64, 64);
                    let bw = b.ins().smin(bw, s64);
                    let one = b.ins().iconst(types::I64, 1);
                    let sh = b.ins().ishl(one, bw);
                    let low = b.ins().iadd_imm_s(sh, -1);
                    let full = b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, bw, 64);
                    let all = b.ins().iconst(types::I64, -1);
                    let word = b.ins().select(full, all, low);
                    b.ins()
                        .store(sf, word, self.state, self.mslot(*dst) + 8 * w as i32);
                }
                if let Some(r) = rest {
                    let less = b.ins().icmp(IntCC::SignedLessThan, nv, l);
                    let left = b.ins().isub(nv, l);
                    let rv = b.ins().select(less, z, left);
                    b.def_var(self.vars[*r as usize], rv);
                }
            }
            SInst::StoreLoadBarrier => {
                let z = b.ins().iconst(types::I64, 0);
                self.log(b, k, z, 0, 3);
            }
            SInst::Nop
            | SInst::Jump(_)
            | SInst::BrFalse { .. }
            | SInst::ForCheck { .. }
            | SInst::Exit => {}
        }
    }

    fn bin(
        &self,
        b: &mut FunctionBuilder,
        k: u32,
        op: IntOp,
        x: Value,
        y: Value,
        bits: u8,
    ) -> Value {
        use IntOp::*;
        let mask = |b: &mut FunctionBuilder, v: Value| Self::wrap(b, v, bits, true);
        match op {
            Add => b.ins().iadd(x, y),
            Sub => b.ins().isub(x, y),
            Mul => b.ins().imul(x, y),
            And => b.ins().band(x, y),
            Or => b.ins().bor(x, y),
            Xor => b.ins().bxor(x, y),
            MaxS => b.ins().smax(x, y),
            MinS => b.ins().smin(x, y),
            MaxU | MinU => {
                let (ux, uy) = (mask(b, x), mask(b, y));
                if op == MaxU {
                    b.ins().umax(ux, uy)
                } else {
                    b.ins().umin(ux, uy)
                }
            }
            DivS | RemS => {
                let nz = b.ins().icmp_imm_s(IntCC::NotEqual, y, 0);
                self.guard(b, nz, 4, k, None);
                // x / -1 wraps (sdiv would trap on i64::MIN / -1)
                let m1 = b.ins().icmp_imm_s(IntCC::Equal, y, -1);
                let one = b.ins().iconst(types::I64, 1);
                let safe = b.ins().select(m1, one, y);
                if op == DivS {
                    let q = b.ins().sdiv(x, safe);
                    let neg = b.ins().ineg(x);
                    b.ins().select(m1, neg, q)
                } else {
                    let r = b.ins().srem(x, safe);
                    let z = b.ins().iconst(types::I64, 0);
                    b.ins().select(m1, z, r)
                }
            }
            DivU | RemU => {
                let (ux, uy) = (mask(b, x), mask(b, y));
                let nz = b.ins().icmp_imm_s(IntCC::NotEqual, uy, 0);
                self.guard(b, nz, 4, k, None);
                if op == DivU {
                    b.ins().udiv(ux, uy)
                } else {
                    b.ins().urem(ux, uy)
                }
            }
            Shl | ShrS | ShrU => {
                let uy = mask(b, y);
                let big =
                    b.ins()
                        .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, uy, i64::from(bits));
                let r = match op {
                    Shl => b.ins().ishl(x, uy),
                    ShrS => b.ins().sshr(x, uy),
                    _ => {
                        let ux = mask(b, x);
                        b.ins().ushr(ux, uy)
                    }
                };
                let sat = match op {
                    ShrS => b.ins().sshr_imm_u(x, 63),
                    _ => b.ins().iconst(types::I64, 0),
                };
                b.ins().select(big, sat, r)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Log(Vec<(u32, u64, u64, bool)>, u32);

    impl AccessSink for Log {
        fn load(&mut self, inst: u32, lo: u64, hi: u64) {
            self.0.push((inst, lo, hi, false));
        }
        fn store(&mut self, inst: u32, lo: u64, hi: u64) {
            self.0.push((inst, lo, hi, true));
        }
        fn barrier(&mut self) {
            self.1 += 1;
        }
    }

    /// z[i] = x[i] + y[i] for i < n, 64 lanes per iteration with a plt tail mask.
    fn vadd_loop() -> Scope {
        use SInst::*;
        let insts = vec![
            Const { dst: 8, v: 0 },
            Const { dst: 2, v: 64 },
            Moves {
                dsts: vec![RegRef::S(1)],
                srcs: vec![RegRef::S(8)],
            },
            Moves {
                dsts: vec![RegRef::S(7)],
                srcs: vec![RegRef::S(0)],
            },
            ForCheck {
                iv: 1,
                ub: 0,
                target: 12,
            },
            PLt {
                dst: 0,
                rest: Some(7),
                n: 7,
                gran: 4,
            },
            Load {
                dst: 0,
                ptr: 4,
                off: Some(1),
                es: 4,
                brc: false,
            },
            Load {
                dst: 1,
                ptr: 5,
                off: Some(1),
                es: 4,
                brc: false,
            },
            Ew {
                op: Op::Add,
                lane: VLane::F32,
                dst: 2,
                a: 0,
                b: Some(1),
                s: None,
                mask: Some(0),
            },
            Store {
                src: 2,
                ptr: 6,
                off: Some(1),
                mask: Some(0),
                es: 4,
            },
            ForStep { iv: 1, step: 2 },
            Jump(4),
            Exit,
        ];
        Scope {
            insts,
            scalars: 9,
            vregs: 3,
            masks: 1,
        }
    }

    fn f32s(ub: &[u8], at: usize, n: usize) -> Vec<f32> {
        (0..n)
            .map(|i| f32::from_le_bytes(ub[at + 4 * i..at + 4 * i + 4].try_into().unwrap()))
            .collect()
    }

    #[test]
    fn a_loop_with_a_tail_mask_matches_scalar_code() {
        let c = compile(&vadd_loop()).unwrap();
        let mut ub = vec![0u8; 4096];
        for i in 0..128 {
            ub[4 * i..4 * i + 4].copy_from_slice(&(i as f32).to_le_bytes());
            ub[1024 + 4 * i..1028 + 4 * i].copy_from_slice(&(2.0 * i as f32).to_le_bytes());
            ub[2048 + 4 * i..2052 + 4 * i].copy_from_slice(&(-1.0f32).to_le_bytes());
        }
        let mut st = c.new_state();
        for (s, v) in [(0, 100), (4, 0), (5, 1024), (6, 2048)] {
            st.set_scalar(s, v);
        }
        let mut log = Log::default();
        assert_eq!(c.call(&mut st, &mut ub, 1000, &mut log), ScopeStatus::Ok);
        let z = f32s(&ub, 2048, 128);
        for (i, v) in z.iter().enumerate() {
            let want = if i < 100 { 3.0 * i as f32 } else { -1.0 };
            assert_eq!(*v, want, "lane {i}");
        }
        // two iterations: loads of whole registers, stores of the active lanes
        assert_eq!(
            log.0,
            vec![
                (6, 0, 256, false),
                (7, 1024, 1280, false),
                (9, 2048, 2304, true),
                (6, 256, 512, false),
                (7, 1280, 1536, false),
                (9, 2304, 2448, true),
            ]
        );
        // blocks: prologue, loop head, body, exit, each counted
        let counts: Vec<(std::ops::Range<u32>, u64)> = c
            .blocks
            .iter()
            .cloned()
            .zip(st.block_counts().iter().copied())
            .collect();
        assert!(counts.contains(&(5..12, 2)), "{counts:?}");
        assert!(counts.contains(&(4..5, 3)), "{counts:?}");
    }

    /// A mask set to all ones before a loop is known full inside it; one a
    /// branch may overwrite with a `plt` is not, after the join; one set to
    /// a partial constant, or taken from the state (an input), never is.
    #[test]
    fn masks_set_to_all_ones_on_every_path_are_known_full() {
        use SInst::*;
        let insts = vec![
            MaskConst {
                dst: 0,
                bits: [0xff; 32],
            },
            MaskConst {
                dst: 1,
                bits: [0xff; 32],
            },
            MaskConst {
                dst: 2,
                bits: [0x11; 32],
            },
            BrFalse { c: 0, target: 5 },
            PLt {
                dst: 1,
                rest: None,
                n: 1,
                gran: 4,
            },
            // join; a loop head
            Nop,
            Moves {
                dsts: vec![RegRef::M(4)],
                srcs: vec![RegRef::M(0)],
            },
            ForCheck {
                iv: 1,
                ub: 2,
                target: 10,
            },
            Nop,
            Jump(5),
            Exit,
        ];
        let s = Scope {
            insts,
            scalars: 3,
            vregs: 0,
            masks: 5,
        };
        let f = full_masks(&s, &leaders(&s));
        let known = |k: usize| -> Vec<u32> { (0..5).filter(|m| f[k] & (1 << m) != 0).collect() };
        assert_eq!(known(0), Vec::<u32>::new());
        assert_eq!(known(3), vec![0, 1]);
        assert_eq!(known(4), vec![0, 1]);
        assert_eq!(known(5), vec![0], "mask 1 may come from the plt");
        // mask 4 is a copy of a full mask inside the loop
        assert_eq!(known(8), vec![0, 4]);
        assert_eq!(known(10), vec![0, 4]);
        // and the compiled scope runs
        let c = compile(&s).unwrap();
        let mut st = c.new_state();
        st.set_scalar(0, 1);
        st.set_scalar(2, 0);
        assert_eq!(
            c.call(&mut st, &mut [], 100, &mut Log::default()),
            ScopeStatus::Ok
        );
    }

    /// Doubles the f32 lanes of vector 3 into vector 4.
    struct Doubler;

    impl AccessSink for Doubler {
        fn load(&mut self, _: u32, _: u64, _: u64) {}
        fn store(&mut self, _: u32, _: u64, _: u64) {}
        fn barrier(&mut self) {}
        fn op(&mut self, _: u32, regs: &mut OpRegs) -> bool {
            let Some(v) = regs.vreg(3) else { return false };
            let mut out = [0u8; 256];
            for (o, x) in out.chunks_exact_mut(4).zip(v.chunks_exact(4)) {
                let f = f32::from_le_bytes(x.try_into().unwrap_or([0; 4]));
                o.copy_from_slice(&(2.0 * f).to_le_bytes());
            }
            regs.set_vreg(4, &out)
        }
    }

    /// Registers kept in SSA values and registers a host op uses (kept in
    /// the state) meet: a scope input the host doubles starts an accumulator
    /// that a loop carries in SSA values, and the store sees every update.
    #[test]
    fn ssa_registers_and_host_registers_meet_across_a_loop() {
        use SInst::*;
        let insts = vec![
            Const { dst: 8, v: 0 },
            Const { dst: 2, v: 64 },
            Call {
                srcs: vec![RegRef::V(3)],
                dsts: vec![RegRef::V(4)],
                mem: false,
            },
            Moves {
                dsts: vec![RegRef::V(1)],
                srcs: vec![RegRef::V(4)],
            },
            Moves {
                dsts: vec![RegRef::S(1)],
                srcs: vec![RegRef::S(8)],
            },
            ForCheck {
                iv: 1,
                ub: 0,
                target: 11,
            },
            Load {
                dst: 0,
                ptr: 4,
                off: Some(1),
                es: 4,
                brc: false,
            },
            Ew {
                op: Op::Add,
                lane: VLane::F32,
                dst: 2,
                a: 1,
                b: Some(0),
                s: None,
                mask: None,
            },
            Moves {
                dsts: vec![RegRef::V(1)],
                srcs: vec![RegRef::V(2)],
            },
            ForStep { iv: 1, step: 2 },
            Jump(5),
            Store {
                src: 1,
                ptr: 6,
                off: None,
                mask: None,
                es: 4,
            },
            Exit,
        ];
        let scope = Scope {
            insts,
            scalars: 9,
            vregs: 5,
            masks: 0,
        };
        let c = compile(&scope).unwrap();
        let mut ub = vec![0u8; 2048];
        for i in 0..192 {
            ub[4 * i..4 * i + 4].copy_from_slice(&(i as f32).to_le_bytes());
        }
        let mut init = [0u8; 256];
        for (i, ch) in init.chunks_exact_mut(4).enumerate() {
            ch.copy_from_slice(&(0.5 * i as f32).to_le_bytes());
        }
        for iters in [0usize, 1, 3] {
            let mut st = c.new_state();
            for (s, v) in [(0, 64 * iters as i64), (4, 0), (6, 1024)] {
                st.set_scalar(s, v);
            }
            st.set_vreg(3, &init);
            assert_eq!(
                c.call(&mut st, &mut ub, 1000, &mut Doubler),
                ScopeStatus::Ok
            );
            for (lane, got) in f32s(&ub, 1024, 64).into_iter().enumerate() {
                let sum: f32 = (0..iters).map(|t| (64 * t + lane) as f32).sum();
                assert_eq!(got, lane as f32 + sum, "{iters} iterations, lane {lane}");
            }
        }
    }

    #[test]
    fn a_log_that_fills_up_reaches_the_sink_in_order() {
        let c = compile(&vadd_loop()).unwrap();
        // 3 entries per iteration: the log is drained several times
        let iters = 150u64;
        let n = 64 * iters;
        let (x, y, z) = (0, 4 * n, 8 * n);
        let mut ub = vec![0u8; (12 * n) as usize];
        let mut st = c.new_state();
        for (s, v) in [(0, n), (4, x), (5, y), (6, z)] {
            st.set_scalar(s, v as i64);
        }
        let mut log = Log::default();
        assert_eq!(c.call(&mut st, &mut ub, 10_000, &mut log), ScopeStatus::Ok);
        let want: Vec<_> = (0..iters)
            .flat_map(|i| {
                let o = 256 * i;
                [
                    (6, x + o, x + o + 256, false),
                    (7, y + o, y + o + 256, false),
                    (9, z + o, z + o + 256, true),
                ]
            })
            .collect();
        assert_eq!(log.0, want);
    }

    #[test]
    fn a_reused_state_runs_like_a_new_one() {
        let c = compile(&vadd_loop()).unwrap();
        let inputs = [(0, 100), (4, 0), (5, 1024), (6, 2048)];
        let run = |st: &mut ScopeState| {
            let mut ub = vec![0u8; 4096];
            for (i, b) in ub.iter_mut().enumerate() {
                *b = (i * 7 % 251) as u8;
            }
            for (s, v) in inputs {
                st.set_scalar(s, v);
            }
            let r = c.call(st, &mut ub, 1000, &mut Log::default());
            (r, ub)
        };
        let mut fresh = c.new_state();
        let want = run(&mut fresh);
        // a state left behind by a faulting run with other inputs
        let mut used = c.new_state();
        for (s, v) in [(0, 128), (4, 0), (5, 1024), (6, 4000)] {
            used.set_scalar(s, v);
        }
        let r = c.call(&mut used, &mut vec![0u8; 4096], 1000, &mut Log::default());
        assert!(matches!(r, ScopeStatus::OutOfBounds { .. }), "{r:?}");
        c.reset_state(&mut used);
        assert_eq!(
            used.words[..c.layout.counts],
            fresh_words(&c)[..c.layout.counts]
        );
        let got = run(&mut used);
        assert_eq!(got, want);
        // everything but the stale tail of the access log is as after a fresh run
        assert_eq!(used.words[..c.layout.log], fresh.words[..c.layout.log]);
    }

    fn fresh_words(c: &ScopeCompiled) -> Vec<u64> {
        c.new_state().words
    }

    #[test]
    fn out_of_bounds_addresses_stop_with_a_status() {
        let c = compile(&vadd_loop()).unwrap();
        let mut ub = vec![0u8; 4096];
        let mut st = c.new_state();
        for (s, v) in [(0, 100), (4, 0), (5, 1024), (6, 4000)] {
            st.set_scalar(s, v);
        }
        let r = c.call(&mut st, &mut ub, 1000, &mut Log::default());
        assert_eq!(
            r,
            ScopeStatus::OutOfBounds {
                inst: 9,
                addr: 4000,
                len: 256
            }
        );
        assert!(ub[3840..].iter().all(|b| *b == 0), "nothing stored");
        // a negative address never reaches memory
        for (s, v) in [(5, -1024), (6, 2048)] {
            st.set_scalar(s, v);
        }
        let r = c.call(&mut st, &mut ub, 1000, &mut Log::default());
        assert!(
            matches!(r, ScopeStatus::OutOfBounds { inst: 7, .. }),
            "{r:?}"
        );
        // huge addresses wrap around nothing
        st.set_scalar(5, i64::MAX - 8);
        let r = c.call(&mut st, &mut ub, 1000, &mut Log::default());
        assert!(
            matches!(r, ScopeStatus::OutOfBounds { inst: 7, .. }),
            "{r:?}"
        );
    }

    /// A loop of one instruction jumping back to itself forever.
    fn spin() -> Scope {
        Scope {
            insts: vec![SInst::Nop, SInst::Jump(0)],
            scalars: 0,
            vregs: 0,
            masks: 0,
        }
    }

    #[test]
    fn runaway_loops_run_out_of_fuel() {
        let c = compile(&spin()).unwrap();
        let mut st = c.new_state();
        let r = c.call(&mut st, &mut [0u8; 16], 5000, &mut Log::default());
        assert_eq!(r, ScopeStatus::OutOfFuel);
        assert_eq!(st.block_counts(), &[5001]);
    }

    /// A sink that lets a scope run `left` ticks, then stops it.
    struct Ticks {
        left: u32,
        seen: u32,
    }

    impl AccessSink for Ticks {
        fn load(&mut self, _: u32, _: u64, _: u64) {}
        fn store(&mut self, _: u32, _: u64, _: u64) {}
        fn barrier(&mut self) {}
        fn tick(&mut self) -> bool {
            self.seen += 1;
            if self.left == 0 {
                return false;
            }
            self.left -= 1;
            true
        }
    }

    /// A loop without memory or host ops still calls the sink every TICK
    /// backward jumps, and stops when the sink says so.
    #[test]
    fn long_loops_tick_and_stop_when_told() {
        let c = compile(&spin()).unwrap();
        let mut st = c.new_state();
        // fuel 10 * TICK: the sink allows 3 ticks and stops the 4th
        let mut t = Ticks { left: 3, seen: 0 };
        let r = c.call(&mut st, &mut [0u8; 16], 10 * TICK, &mut t);
        assert_eq!(r, ScopeStatus::Stopped { inst: 1 });
        assert_eq!(t.seen, 4);
        assert_eq!(st.block_counts(), &[4 * TICK]);
        // a sink that never stops it: fuel runs out as before
        let mut t = Ticks {
            left: u32::MAX,
            seen: 0,
        };
        let r = c.call(&mut st, &mut [0u8; 16], 3 * TICK + 5, &mut t);
        assert_eq!(r, ScopeStatus::OutOfFuel);
        assert_eq!(t.seen, 4);
    }

    #[test]
    fn integer_ops_wrap_and_guard_division() {
        use SInst::*;
        let s = Scope {
            insts: vec![
                Bin {
                    op: IntOp::Add,
                    dst: 2,
                    a: 0,
                    b: 1,
                    bits: 32,
                    unsigned: false,
                },
                Bin {
                    op: IntOp::DivS,
                    dst: 3,
                    a: 0,
                    b: 1,
                    bits: 64,
                    unsigned: false,
                },
                Bin {
                    op: IntOp::Shl,
                    dst: 4,
                    a: 1,
                    b: 0,
                    bits: 8,
                    unsigned: true,
                },
                Exit,
            ],
            scalars: 5,
            vregs: 0,
            masks: 0,
        };
        let c = compile(&s).unwrap();
        let mut st = c.new_state();
        st.set_scalar(0, i64::from(i32::MAX));
        st.set_scalar(1, 1);
        assert_eq!(
            c.call(&mut st, &mut [], 10, &mut Log::default()),
            ScopeStatus::Ok
        );
        st.set_scalar(0, i64::MIN);
        st.set_scalar(1, -1);
        assert_eq!(
            c.call(&mut st, &mut [], 10, &mut Log::default()),
            ScopeStatus::Ok
        );
        st.set_scalar(1, 0);
        assert_eq!(
            c.call(&mut st, &mut [], 10, &mut Log::default()),
            ScopeStatus::DivByZero { inst: 1 }
        );
    }

    #[test]
    fn malformed_scopes_are_rejected() {
        let s = Scope {
            insts: vec![SInst::Jump(7)],
            scalars: 0,
            vregs: 0,
            masks: 0,
        };
        assert!(compile(&s).is_err());
        let s = Scope {
            insts: vec![SInst::Ew {
                op: Op::Exp,
                lane: VLane::I32,
                dst: 0,
                a: 0,
                b: None,
                s: None,
                mask: None,
            }],
            scalars: 0,
            vregs: 1,
            masks: 0,
        };
        assert!(compile(&s).is_err());
    }
}
