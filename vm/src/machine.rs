//! The machine: per-core scalar units that walk the control program and issue
//! into in-order pipe queues, a scoreboard that retires queue heads only when the
//! program's synchronization allows, three schedulers, and the checker hooks.
//!
//! A cluster (one core, or 1 cube + 2 vector cores for mixed kernels) runs on one
//! host thread; blocks run on a pool of threads over one shared GM.

use std::collections::{HashMap, VecDeque};

use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use pto_asm::ty::TileLoc;
use pto_isa_spec::{Class, DType, Pipe, ProfileId};

use crate::checker::{Checker, ConflictKind, AGENTS_PER_CORE};
use crate::diag::{DiagKind, Diags};
use crate::exec::dma::{LoopRegs, Transfer};
use crate::exec::{self, fault, Accesses, Fault};
use crate::mem::{Gm, Local};
use crate::num::Num;
use crate::program::*;
use crate::value::{Ptr, Space, Tile, Val, View};
use crate::{CheckMode, Config, Sched};

mod flags;
pub mod watch;
mod xblock;
use flags::FlagTable;

/// Queue depth per pipe: the scalar unit stalls when a queue is full.
const QUEUE_DEPTH: usize = 64;

/// A pipe's slot index: S=0, V=1, M=2, MTE1=3, MTE2=4, MTE3=5, FIX=6.
#[inline]
pub fn slot(p: Pipe) -> usize {
    match p {
        Pipe::S | Pipe::All => 0,
        Pipe::V => 1,
        Pipe::M => 2,
        Pipe::Mte1 => 3,
        Pipe::Mte2 => 4,
        Pipe::Mte3 => 5,
        Pipe::Fix => 6,
    }
}

/// The pipe of a slot.
#[inline]
pub fn slot_pipe(s: usize) -> Pipe {
    [
        Pipe::S,
        Pipe::V,
        Pipe::M,
        Pipe::Mte1,
        Pipe::Mte2,
        Pipe::Mte3,
        Pipe::Fix,
    ][s % AGENTS_PER_CORE]
}

/// Why a run stopped early.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// An instruction faulted (bounds, unsupported op, bad operand).
    Fault {
        /// The instruction.
        inst: InstId,
        /// Message.
        message: String,
    },
    /// The synchronization deadlocked (also reported as a `deadlock` diagnostic).
    Deadlock,
    /// `--max-steps` reached.
    Limit(u64),
    /// The wall-clock deadline (`--timeout`) passed; carries the steps run.
    Timeout(u64),
    /// Bad setup (arguments, entry).
    Setup(String),
}

/// One slice of the timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceEvent {
    /// Block.
    pub block: u32,
    /// Core within the cluster.
    pub core: u32,
    /// Pipe.
    pub pipe: Pipe,
    /// Instruction.
    pub inst: InstId,
    /// Start (cycles under `timed`, steps otherwise).
    pub start: u64,
    /// End.
    pub end: u64,
    /// For a wait: the set it consumed (for flow arrows).
    pub from: Option<(u32, Pipe, u64)>,
}

/// Per-pipe statistics.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PipeStat {
    /// Instructions retired.
    pub retired: u64,
    /// Busy cycles (timed) or steps.
    pub busy: u64,
}

/// The counters of a run that `--stats` reports.
#[derive(Clone, Debug, Default)]
pub struct RunStats {
    /// Retired instructions and busy time per agent slot.
    pub pipes: [PipeStat; AGENTS_PER_CORE],
    /// Simulated cycles (`--sched timed`).
    pub cycles: u64,
    /// JIT counters.
    pub jit: crate::jitcall::JitStats,
}

/// Most trace events one block records (~56 bytes each; a trace of a long
/// run would otherwise grow by one per pipe instruction up to `--max-steps`,
/// and no trace viewer opens millions of events anyway).
pub const MAX_TRACE_EVENTS: usize = 1 << 20;

/// What a run produced.
#[derive(Debug, Default)]
pub struct RunOutput {
    /// Diagnostics.
    pub diags: Diags,
    /// First error, if the run stopped early.
    pub error: Option<RunError>,
    /// Statistics per pipe slot (summed over cores).
    pub stats: [PipeStat; AGENTS_PER_CORE],
    /// Simulated cycles (max over agents) under `timed`.
    pub cycles: u64,
    /// Pipe instructions executed.
    pub pipe_insts: u64,
    /// Executions per opcode (index = `Opcode as usize`), for coverage.
    pub op_counts: Vec<u64>,
    /// Timeline (when tracing): at most [`MAX_TRACE_EVENTS`] per block.
    pub trace: Vec<TraceEvent>,
    /// Pipe instructions retired after a block's trace was full.
    pub trace_dropped: u64,
    /// Final architectural state per block (when `Config::keep_state`).
    pub arch: Vec<ArchState>,
    /// What the JIT did.
    pub jit: crate::jitcall::JitStats,
    /// `--watch` reports, block by block in execution order.
    pub watch: Vec<watch::WatchReport>,
    /// Executions of each watched line, summed over blocks.
    pub watch_counts: Vec<(u32, u64)>,
}

impl RunOutput {
    /// The counters `--stats` reports.
    pub fn run_stats(&self) -> RunStats {
        RunStats {
            pipes: self.stats.clone(),
            cycles: self.cycles,
            jit: self.jit.clone(),
        }
    }
}

#[derive(Clone, Debug)]
enum Resolved {
    Tile(Box<exec::tile_ops::TileCall>),
    TLoad(Box<View>, Box<Tile>),
    TStore(Box<Tile>, Box<View>, Combine),
    TEw(EwOp, Box<Tile>, Option<Box<Tile>>, Box<Tile>),
    TEws(EwOp, Box<Tile>, Num, bool, Box<Tile>),
    TExpands(Num, Box<Tile>),
    Dma(Box<Transfer>),
    Cube(Box<exec::cube::CubeCall>),
    Vec {
        body: Arc<Vec<Inst>>,
        /// The captured values at issue, shared with the scalar unit's
        /// capture cache ([`Su::caps`]) while they stay the same.
        caps: Arc<[(Reg, Val)]>,
    },
    Set {
        src: Pipe,
        dst: Pipe,
        id: u32,
    },
    Wait {
        src: Pipe,
        dst: Pipe,
        id: u32,
    },
    Barrier,
    GetBuf {
        id: u32,
        ticket: u64,
    },
    RlsBuf {
        id: u32,
    },
    CrossSet {
        id: u32,
        mode2: bool,
    },
    CrossWait {
        id: u32,
    },
    /// A push into a cube <-> vector FIFO (the tile; None: a GM entry commit).
    FifoPush {
        id: u32,
        c2v: bool,
        split: u32,
        tile: Option<Box<Tile>>,
        /// The pipe's quant register when the push issued.
        quant: Option<crate::fifo::QuantReg>,
    },
    /// A consumer's release of its oldest popped FIFO entry.
    FifoFree {
        id: u32,
        c2v: bool,
    },
}

#[derive(Debug)]
struct Issued {
    seq: u64,
    inst: InstId,
    r: Resolved,
    /// The scalar unit's clock at issue: an index into the cluster's
    /// [`ClockPool`] (a snapshot equal to it but for the scalar unit's own
    /// entry, which is `own`), [`NO_CLOCK`] without the checker. An index,
    /// not the 84-byte clock, so the record stays small as it moves
    /// through the queue.
    vc: u32,
    own: u32,
    issue_time: u64,
}

/// Executed transfers a core keeps for reuse ([`Su::xfers`]): enough for
/// a full queue on each DMA pipe.
const XFER_POOL: usize = 2 * QUEUE_DEPTH;

/// [`Issued::vc`] of a run without the checker.
const NO_CLOCK: u32 = u32::MAX;

/// Clock snapshots of the scalar units for the issued, not yet executed
/// operations, referenced by index.
///
/// Between two joins into a scalar unit's clock only its own entry moves
/// (a tick per issue), so the issues in between share one snapshot, taken
/// at the first of them, and each records its own entry beside it
/// ([`Issued::own`]). A pipe that already joined a snapshot (its
/// generation) only needs that entry on the next op sharing it: the join
/// of the rest changes nothing. A slot is reused once no queued op and no
/// scalar unit refers to it.
#[derive(Debug, Default)]
struct ClockPool {
    slots: Vec<crate::checker::Vc>,
    /// Per slot: the queued ops using it, plus one while it is its scalar
    /// unit's current snapshot.
    refs: Vec<u32>,
    /// Per slot: a number no other snapshot had.
    gen: Vec<u64>,
    free: Vec<u32>,
    next_gen: u64,
    /// Per core: the scalar unit's current snapshot and the unit's
    /// [`Checker::joins`] when it was taken ([`NO_CLOCK`]: none).
    cur: Vec<(u32, u64)>,
    /// Per agent: the generation of the last snapshot it joined.
    joined: Vec<u64>,
}

impl ClockPool {
    fn new(cores: usize) -> Self {
        ClockPool {
            cur: vec![(NO_CLOCK, 0); cores],
            joined: vec![u64::MAX; cores * AGENTS_PER_CORE],
            ..Default::default()
        }
    }

    /// The snapshot of core `ci`'s scalar unit (agent `a`) for an issue.
    #[inline(always)]
    fn snapshot(&mut self, ci: usize, a: usize, ck: &Checker) -> u32 {
        let (slot, joins) = self.cur[ci];
        if slot != NO_CLOCK {
            if joins == ck.joins[a] {
                self.refs[slot as usize] += 1;
                return slot;
            }
            self.release(slot);
        }
        let i = match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = ck.vc[a];
                i
            }
            None => {
                self.slots.push(ck.vc[a]);
                self.refs.push(0);
                self.gen.push(0);
                (self.slots.len() - 1) as u32
            }
        };
        self.refs[i as usize] = 2;
        self.gen[i as usize] = self.next_gen;
        self.next_gen += 1;
        self.cur[ci] = (i, ck.joins[a]);
        i
    }

    #[inline]
    fn release(&mut self, slot: u32) {
        let r = &mut self.refs[slot as usize];
        *r -= 1;
        if *r == 0 {
            self.free.push(slot);
        }
    }

    /// Joins the issue clock (`slot`, `own`) of scalar unit `su` into
    /// `agent` and drops the op's reference to it.
    #[inline(always)]
    fn join(&mut self, ck: &mut Checker, agent: usize, su: usize, slot: u32, own: u32) {
        let g = self.gen[slot as usize];
        if self.joined[agent] != g {
            ck.join(agent, &self.slots[slot as usize]);
            self.joined[agent] = g;
        }
        // the scalar unit's own entry (its own clock: agent == su is a
        // PIPE_S op, whose clock is already past it)
        let e = &mut ck.vc[agent][su];
        *e = (*e).max(own);
        self.release(slot);
    }
}

/// An event token or a cross-core semaphore's.
#[derive(Debug)]
struct Token {
    /// The setter's clock: an index into the cluster's [`TokenClocks`]
    /// ([`NO_CLOCK`] without the checker), so the token stays small.
    vc: u32,
    time: u64,
    inst: InstId,
    from: (u32, Pipe, u64),
}

/// The clocks of the tokens not yet consumed, referenced by index; a slot
/// is reused once its token was consumed.
#[derive(Debug, Default)]
struct TokenClocks {
    slots: Vec<crate::checker::Vc>,
    free: Vec<u32>,
}

impl TokenClocks {
    /// A slot holding `agent`'s clock, [`NO_CLOCK`] without the checker.
    #[inline]
    fn put(&mut self, ck: Option<&Checker>, agent: usize) -> u32 {
        let Some(ck) = ck else { return NO_CLOCK };
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = ck.vc[agent];
                i
            }
            None => {
                self.slots.push(ck.vc[agent]);
                (self.slots.len() - 1) as u32
            }
        }
    }
}

#[derive(Clone, Debug, Default)]
struct BufState {
    next_ticket: u64,
    serving: u64,
    holder: Option<(Pipe, InstId)>,
    vc: Option<crate::checker::Vc>,
    time: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CoreKind {
    Plain,
    Cube,
    Vector(u32),
}

#[derive(Clone, Debug)]
enum Blocked {
    Flag {
        src: Pipe,
        dst: Pipe,
        id: u32,
    },
    Drain,
    Cross {
        id: u32,
    },
    Queue(usize),
    /// A comm op waits for its core's pipes to drain (re-executed after).
    Comm,
    /// `tpop_from_*`: until every producer pushed the next entry (re-executed after).
    FifoPop {
        id: u32,
        c2v: bool,
    },
    /// `talloc_*`: until the producer's next slot is free (re-executed after).
    FifoAlloc {
        id: u32,
        c2v: bool,
    },
    /// `import_reserved_buffer`: until the peer placed the buffer (re-executed after).
    Import {
        peer: String,
        name: String,
    },
    /// `pto.syncall`: until every core of the kind arrived at barrier `n`
    /// (re-executed after).
    SyncAll {
        kind: u8,
        n: u64,
    },
    /// `twait`: until the signals satisfy the comparison (re-executed after).
    Signal {
        sig: Box<View>,
        value: i32,
        cmp: exec::comm::WaitCmp,
    },
}

/// What the clusters of a multi-rank run share: counts to tell a rank that
/// waits on a signal from one that can never be signalled.
#[derive(Debug, Default)]
pub struct World {
    clusters: u32,
    /// Blocks per rank.
    blocks: u32,
    /// `pto.syncall` arrivals by (rank, core kind, barrier number).
    syncall: std::sync::Mutex<HashMap<(u32, u8, u64), u32>>,
    stalled: AtomicU32,
    done: AtomicU32,
    epoch: std::sync::atomic::AtomicU64,
    /// Each block's GM transfer log for the cross-block check, by block.
    xblock: std::sync::Mutex<Vec<(u32, Vec<xblock::XAccess>)>>,
    /// Each rank's GM log and clock snapshots for the cross-rank check.
    xrank: std::sync::Mutex<Vec<xblock::RankLog>>,
    /// The joined vector clocks of each signal's notifiers, by the signal's
    /// GM address (cross-rank check).
    sig_clocks: std::sync::Mutex<HashMap<u64, Vec<u32>>>,
    /// With several ranks of several blocks: the joined vector clocks of the
    /// blocks arriving at each `pto.syncall`, by (rank, core kind, barrier
    /// number); every block passing the barrier joins it.
    syncall_clocks: std::sync::Mutex<HashMap<(u32, u8, u64), Vec<u32>>>,
}

/// A GM range an asynchronous transfer is still using.
#[derive(Clone, Debug)]
struct Pending {
    lo: u64,
    hi: u64,
    /// tput_async: its source may still be read, only writes conflict
    reads_ok: bool,
    event: i64,
    inst: InstId,
}

struct Su {
    func: usize,
    pc: usize,
    stack: Vec<(usize, usize, Vec<Reg>)>,
    done: bool,
    time: u64,
    blocked: Option<(Blocked, InstId)>,
    /// `pto.syncall` barriers passed, per core kind (mix, aiv, aic).
    syncalls: [u64; 3],
    /// Arrived at this core kind's next `pto.syncall` and waiting.
    arrived: bool,
    /// The captures each vector scope (by instruction) last issued with:
    /// reused while every captured register still holds the same value
    /// (bit for bit), so an issue shares them instead of cloning them.
    caps: FxHashMap<InstId, Arc<[(Reg, Val)]>>,
    /// Transfers of executed DMAs, kept to resolve the next ones into
    /// without a heap allocation. Boxes, not transfers: `Resolved::Dma`
    /// takes the box itself.
    #[allow(clippy::vec_box)]
    xfers: std::cell::RefCell<Vec<Box<Transfer>>>,
}

/// The architectural state of one core: what a kernel can observe. Two runs
/// can be compared through it (see [`ArchState`]).
#[derive(Clone, Debug, PartialEq)]
pub struct CoreState {
    /// On-chip buffers (UB, L1, L0A/B/C, bias, FB).
    pub local: Local,
    /// Scalar-unit registers (one per SSA value of the file).
    pub regs: Vec<Val>,
    /// Vector-pipe registers used by vector scopes (vregs, masks, scalars).
    pub vregs: Vec<Val>,
    /// Legacy DMA loop registers.
    pub loop_regs: LoopRegs,
    /// Placement of automatically allocated tiles: site -> byte address.
    pub sites: HashMap<u32, u64>,
    /// Next free byte per local buffer for automatic placement.
    pub bump: [u64; 7],
    /// The MX scale payloads staged for `mad_mx*` (left, right).
    pub mx: exec::cube::MxScales,
    /// SIMT `pto.keep` slots: (linear thread id, slot) -> value, read by a
    /// later launch's `pto.resume`.
    pub simt_slots: HashMap<(i64, i64), Val>,
}

/// Architectural state of a cluster after a run (GM is shared and returned by the caller).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ArchState {
    /// Per core.
    pub cores: Vec<CoreState>,
}

/// The synchronization state of one core: event tokens, buffer tokens and
/// cross-core semaphores, with the clocks and times the checker and the timed
/// scheduler attach to them.
#[derive(Debug, Default)]
struct Scoreboard {
    flags: FlagTable<VecDeque<Token>>,
    flag_site: FlagTable<InstId>,
    bufs: FxHashMap<u32, BufState>,
    sems: FxHashMap<(u32, u32), VecDeque<Token>>,
}

/// One core of the machine: its state, scoreboard, scalar unit and pipe queues.
struct Core {
    kind: CoreKind,
    arch: CoreState,
    sb: Scoreboard,
    su: Su,
    queues: [VecDeque<Issued>; AGENTS_PER_CORE],
    time: [u64; AGENTS_PER_CORE],
    /// Per pipe slot, ops a fused chain already executed, with their
    /// accesses: each is retired (not executed again) when it reaches the
    /// head of its queue.
    fused: [VecDeque<(InstId, Vec<exec::Access>)>; AGENTS_PER_CORE],
    /// The scheduler's cached readiness of this core's agents.
    rdy: Ready,
}

/// Every agent slot of a core as a bit mask.
const ALL_SLOTS: u8 = (1 << AGENTS_PER_CORE) - 1;

/// The scheduler's cached view of one core's agents (bit `s` of a mask is
/// slot `s`: the scalar unit is bit 0, pipe queue heads bits 1-6).
///
/// A step marks `dirty` the agents whose readiness it may have changed (see
/// [`Core::touch`] and its callers); the next pick recomputes only those.
/// An agent whose readiness depends on state other cores or ranks change
/// without a hook (FIFOs, reserved buffers, signals, `syncall`) stays dirty,
/// so it is recomputed at every pick, as before.
#[derive(Debug)]
struct Ready {
    /// Agents whose entries below are stale.
    dirty: u8,
    /// Agents that can run now.
    ready: u8,
    /// Shuffle only: DMA slots whose second queued transfer may overtake the
    /// head (`over_seq` is its issue sequence).
    over: u8,
    /// The shuffle scheduler runs (heads are always evaluated at the pick).
    shuffle: bool,
    /// Per pipe slot with its `ready` bit set: the head's issue sequence
    /// and the time it can start.
    seq: [u64; AGENTS_PER_CORE],
    start: [u64; AGENTS_PER_CORE],
    over_seq: [u64; AGENTS_PER_CORE],
}

impl Default for Ready {
    fn default() -> Self {
        Ready {
            dirty: ALL_SLOTS,
            ready: 0,
            over: 0,
            shuffle: false,
            seq: [0; AGENTS_PER_CORE],
            start: [0; AGENTS_PER_CORE],
            over_seq: [0; AGENTS_PER_CORE],
        }
    }
}

impl Core {
    /// The readiness of agent `slot` may have changed.
    #[inline]
    fn touch(&mut self, slot: usize) {
        self.rdy.dirty |= 1 << slot;
    }

    /// The readiness of every agent of the core may have changed (buffer
    /// tokens and cross-core semaphores: rare, so not tracked per waiter).
    #[inline]
    fn touch_all(&mut self) {
        self.rdy.dirty = ALL_SLOTS;
    }

    /// The head of queue `s` or what it waits for may have changed (a push
    /// onto an empty queue, a pop, an overtaking swap, a token of its
    /// event). An operation that waits for nothing is ready at
    /// `max(pipe time, issue time)`, a `wait_flag` when its token is there,
    /// at the token's time at the latest; one that waits for a buffer, a
    /// semaphore or a FIFO slot (and every head under shuffle, which also
    /// looks at the second entry) is evaluated at the next pick. Call it
    /// once the pipe's time and the token's time are final.
    #[inline(always)]
    fn head_changed(&mut self, s: usize) {
        let bit = 1u8 << s;
        let r = &mut self.rdy;
        let Some(h) = self.queues[s].front() else {
            r.ready &= !bit;
            r.over &= !bit;
            r.dirty &= !bit;
            return;
        };
        let dep = match &h.r {
            _ if r.shuffle => None,
            Resolved::Wait { src, dst, id } => Some(
                self.sb
                    .flags
                    .get(&(*src, *dst, *id))
                    .and_then(|q| q.front())
                    .map(|t| t.time),
            ),
            Resolved::GetBuf { .. } | Resolved::CrossWait { .. } | Resolved::FifoPush { .. } => {
                None
            }
            _ => Some(Some(0)),
        };
        match dep {
            None => r.dirty |= bit,
            Some(None) => {
                r.ready &= !bit;
                r.dirty &= !bit;
            }
            Some(Some(dep)) => {
                r.ready |= bit;
                r.dirty &= !bit;
                r.seq[s] = h.seq;
                r.start[s] = self.time[s].max(h.issue_time).max(dep);
            }
        }
    }

    /// An operation was pushed onto queue `s`: a new head when the queue
    /// was empty, a new overtaking candidate (shuffle) when it holds two.
    #[inline]
    fn pushed(&mut self, s: usize) {
        match self.queues[s].len() {
            1 => self.head_changed(s),
            2 if self.rdy.shuffle => self.touch(s),
            _ => {}
        }
    }

    /// Pipe `s` retired its head (its time is final): the next head, and a
    /// blocked scalar unit may wait for room or a drain.
    #[inline]
    fn popped(&mut self, s: usize) {
        if s == 0 {
            // a PIPE_S tile op the scalar unit runs itself (`tci`)
            self.touch(0);
            return;
        }
        self.head_changed(s);
        if self.su.blocked.is_some() {
            self.touch(0);
        }
    }

    /// The scalar unit ran: it is ready unless it finished or blocked
    /// (then its condition is evaluated at the next pick).
    #[inline]
    fn su_ran(&mut self) {
        if self.su.blocked.is_some() {
            self.touch(0);
        } else {
            self.rdy.ready = (self.rdy.ready & !1) | !self.su.done as u8;
            self.rdy.dirty &= !1;
        }
    }

    /// An event token of `(_, dst, _)` was set or taken: its waiter is a
    /// `wait_flag` at the head of `dst`'s queue or, for PIPE_S, the
    /// blocked scalar unit.
    #[inline]
    fn flag_changed(&mut self, dst: usize) {
        if dst == 0 {
            if self.su.blocked.is_some() {
                self.touch(0);
            }
        } else {
            self.head_changed(dst);
        }
    }
}

impl Core {
    /// The captures of vector scope `id` as of now: the ones it last issued
    /// with when every captured register still holds the same value,
    /// otherwise a fresh snapshot (which replaces the cached one).
    fn su_caps(&mut self, id: InstId, captures: &[Reg], binds: &[(Reg, Reg)]) -> Arc<[(Reg, Val)]> {
        let regs = &self.arch.regs;
        let srcs = || {
            captures
                .iter()
                .map(|r| (*r, *r))
                .chain(binds.iter().copied())
        };
        if let Some(c) = self.su.caps.get(&id) {
            if c.len() == captures.len() + binds.len()
                && c.iter()
                    .zip(srcs())
                    .all(|((a, v), (b, src))| *a == b && same_val(v, &regs[src as usize]))
            {
                return Arc::clone(c);
            }
        }
        let caps: Arc<[(Reg, Val)]> = srcs()
            .map(|(arg, src)| (arg, regs[src as usize].clone()))
            .collect();
        self.su.caps.insert(id, Arc::clone(&caps));
        caps
    }
}

/// Whether a cached capture `a` still equals register value `b`: scalars
/// and pointers compared bit for bit (so `-0.0` is not `0.0` and a NaN
/// equals itself), anything else never (it is snapshotted again).
fn same_val(a: &Val, b: &Val) -> bool {
    match (a, b) {
        (Val::Int(x), Val::Int(y)) => x == y,
        (Val::Float(x), Val::Float(y)) => x.to_bits() == y.to_bits(),
        (Val::Ptr(x), Val::Ptr(y)) => x == y,
        (Val::Unit, Val::Unit) => true,
        _ => false,
    }
}

/// Runs a program on the grid. `args` are the entry function's arguments.
pub fn run(prog: &Program, cfg: &Config, gm: &mut Gm, entry: usize, args: &[Val]) -> RunOutput {
    run_ranks(prog, cfg, gm, entry, std::slice::from_ref(&args.to_vec()))
}

/// Runs a program on the grid of every rank: `args[r]` are rank `r`'s entry
/// arguments and `gm` holds one GM per rank. With one rank the blocks share a
/// pool of host threads; with several, every (rank, block) gets its own thread
/// so ranks waiting on each other's signals make progress together. A run on
/// one host thread holds GM to itself ([`Gm::solo`]).
pub fn run_ranks(
    prog: &Program,
    cfg: &Config,
    gm: &mut Gm,
    entry: usize,
    args: &[Vec<Val>],
) -> RunOutput {
    // watched runs are interpreted: compiled regions (fused chains keep
    // intermediate tiles in registers) would hide what a watched op produced
    let watched;
    let cfg = if cfg.watch_lines.is_empty() || cfg.jit == crate::JitMode::Off {
        cfg
    } else {
        watched = Config {
            jit: crate::JitMode::Off,
            ..cfg.clone()
        };
        &watched
    };
    let blocks = cfg.blocks.max(1);
    let ranks = args.len().max(1) as u32;
    let func = &prog.funcs[entry];
    if let Some(a) = args.iter().find(|a| a.len() != func.args.len()) {
        return RunOutput {
            error: Some(RunError::Setup(format!(
                "@{} takes {} argument(s), {} given",
                func.name,
                func.args.len(),
                a.len()
            ))),
            ..RunOutput::default()
        };
    }
    let units = ranks * blocks;
    // every block of a kernel with a pto.syncall needs its own thread: the
    // blocks wait for each other
    let syncall = prog
        .funcs
        .iter()
        .any(|f| f.code.iter().any(|i| matches!(i.k, K::SyncAll { .. })));
    let threads = if ranks > 1 || syncall {
        units as usize
    } else if blocks <= 1 {
        1
    } else {
        // asked once per process: the answer reads cgroup files (tens of µs)
        static CPUS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        let cpus = *CPUS.get_or_init(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        });
        cpus.min(blocks as usize).max(1)
    };
    let world = World {
        clusters: units,
        blocks,
        ..World::default()
    };
    let next = AtomicU32::new(0);
    let jit = crate::jitcall::JitCache::default();
    let mut results: Vec<(u32, RunOutput)> = Vec::new();
    let worker = |gm: &Gm| {
        let mut mine = Vec::new();
        loop {
            let u = next.fetch_add(1, Ordering::Relaxed);
            if u >= units {
                break;
            }
            let (rank, b) = (u / blocks, u % blocks);
            let mut cl = Cluster::new(
                prog,
                cfg,
                gm,
                entry,
                &args[rank as usize],
                b,
                blocks,
                &jit,
                rank,
                &world,
            );
            let out = cl.run();
            world.done.fetch_add(1, Ordering::SeqCst);
            world.epoch.fetch_add(1, Ordering::SeqCst);
            let stop = out.error.is_some();
            mine.push((u, out));
            if stop && ranks == 1 {
                break;
            }
        }
        mine
    };
    if threads == 1 {
        // one block of one rank: no thread to spawn (a panic is still
        // reported the way a panicking block thread is)
        results = gm.solo(|gm| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| worker(gm))).unwrap_or_else(
                |_| {
                    vec![(
                        u32::MAX,
                        RunOutput {
                            error: Some(RunError::Setup(
                                "internal error: the block panicked".into(),
                            )),
                            ..RunOutput::default()
                        },
                    )]
                },
            )
        });
    } else {
        let gm = &*gm;
        std::thread::scope(|s| {
            let mut hs = Vec::new();
            for _ in 0..threads {
                hs.push(s.spawn(|| worker(gm)));
            }
            for h in hs {
                match h.join() {
                    Ok(v) => results.extend(v),
                    Err(_) => results.push((
                        u32::MAX,
                        RunOutput {
                            error: Some(RunError::Setup(
                                "internal error: a block thread panicked".into(),
                            )),
                            ..RunOutput::default()
                        },
                    )),
                }
            }
        });
    }
    results.sort_by_key(|r| r.0);
    let mut total = RunOutput {
        jit: jit.stats(),
        ..RunOutput::default()
    };
    for (_, r) in results {
        total.diags.merge(r.diags);
        if total.error.is_none() {
            total.error = r.error;
        }
        for (a, b) in total.stats.iter_mut().zip(r.stats.iter()) {
            a.retired += b.retired;
            a.busy += b.busy;
        }
        total.cycles = total.cycles.max(r.cycles);
        total.pipe_insts += r.pipe_insts;
        total.trace.extend(r.trace);
        total.trace_dropped += r.trace_dropped;
        total.watch.extend(r.watch);
        for (line, n) in r.watch_counts {
            match total.watch_counts.iter_mut().find(|c| c.0 == line) {
                Some(c) => c.1 += n,
                None => total.watch_counts.push((line, n)),
            }
        }
        total.arch.extend(r.arch);
        if total.op_counts.len() < r.op_counts.len() {
            total.op_counts.resize(r.op_counts.len(), 0);
        }
        for (a, b) in total.op_counts.iter_mut().zip(&r.op_counts) {
            *a += b;
        }
    }
    // GM races between blocks and between ranks, after each block's own
    // findings: their logs side by side
    if let Ok(mut logs) = world.xblock.lock() {
        let mut logs = std::mem::take(&mut *logs);
        logs.sort_by_key(|l| l.0);
        xblock::check(logs, gm, &mut total.diags);
    }
    if let Ok(mut logs) = world.xrank.lock() {
        let mut logs = std::mem::take(&mut *logs);
        logs.sort_by_key(|l| l.0);
        xblock::check_ranks(logs, world.blocks, gm, &mut total.diags);
    }
    total
}

struct Cluster<'a> {
    prog: &'a Program,
    cfg: &'a Config,
    gm: &'a Gm,
    block: u32,
    blocks: u32,
    cores: Vec<Core>,
    checker: Option<Checker>,
    diags: Diags,
    seq: u64,
    steps: u64,
    /// Scalar-unit instructions executed (a step runs up to 4096 of them):
    /// `--max-steps` bounds them too, so a runaway scalar loop stops after
    /// as many instructions as a runaway pipeline after as many steps.
    scalar_ops: u64,
    rng: u64,
    out: RunOutput,
    conflicts: Vec<crate::checker::Conflict>,
    /// shuffle: random priority of each agent (higher runs first)
    prio: Vec<u64>,
    /// The scheduler's candidate list (kept to reuse its allocation).
    cands: Vec<(usize, usize, u64, u64)>,
    /// A pipe step's access lists, kept between steps to reuse their
    /// allocations (the list itself may be replaced by normalization).
    acc_buf: Vec<exec::Access>,
    vec_acc_buf: Vec<(InstId, exec::Access)>,
    /// Issue clocks of the queued operations.
    clocks: ClockPool,
    /// Clocks of the tokens not yet consumed.
    tok_clocks: TokenClocks,
    jit: &'a crate::jitcall::JitCache,
    /// Rank of this cluster (0 without --ranks).
    rank: u32,
    world: &'a World,
    /// The clock `pto.get_clock32/64` read inside the running vector scope:
    /// the time its unit of work started on PIPE_V (cycles under `timed`,
    /// scheduler steps otherwise).
    scope_clock: u64,
    /// The op inside a vector scope whose fault stopped the scope (the
    /// fault then names its line, not the scope's).
    scope_fault_at: Option<InstId>,
    /// Asynchronous transfers not yet waited for.
    pending: Vec<Pending>,
    next_event: i64,
    /// Cube <-> vector FIFOs by (logical pipe id, cube-to-vector).
    fifos: FxHashMap<(u32, bool), crate::fifo::Fifo>,
    /// `set_quant_scalar` / `set_quant_vector` parameters by (core, pipe id).
    quant_regs: HashMap<(usize, u32), crate::fifo::QuantReg>,
    /// Placed `reserve_buffer`s by (function, name).
    reserved: HashMap<(String, String), u64>,
    /// Where each core placed each `reserve_buffer` instruction.
    reserved_at: FxHashMap<(usize, InstId), u64>,
    /// Each core's CTRL register (`get_ctrl`/`set_ctrl`).
    ctrl: Vec<i64>,
    /// The scalar unit's synchronization ops decoded on first execution,
    /// by instruction (empty until the first one).
    su_dec: Vec<SuDec>,
    /// GM ranges of this block's plain transfers, for the cross-block
    /// check (with the checker and several blocks of one rank), or of this
    /// rank's plain transfers and puts/gets, for the cross-rank check (with
    /// the checker and several ranks of one block).
    xlog: Option<xblock::Log>,
    /// The rank's vector clock for the cross-rank check.
    rclock: Option<xblock::RankClock>,
    /// `--watch` reports of this block.
    watcher: Option<watch::Watcher>,
}

/// A scalar-unit synchronization op as it always executes, decoded once:
/// the common `set_flag`/`wait_flag` with a static, valid event id between
/// two different pipes other than the scalar pipe, and `pipe_barrier` on one
/// pipe, issue a fixed record to a fixed queue. Anything that reads a
/// register, reports a diagnostic or runs on the scalar pipe stays [`SuDec::Slow`]
/// and goes through [`Cluster::su_sync`] every time. The form depends on
/// the instruction and the profile only, never on registers, so it cannot
/// go stale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SuDec {
    /// Not decoded yet.
    Unknown,
    /// Executed by [`Cluster::su_sync`].
    Slow,
    /// Issues `Resolved::Set` to queue `s`.
    Set {
        s: u8,
        src: Pipe,
        dst: Pipe,
        id: u32,
    },
    /// Issues `Resolved::Wait` to queue `s`.
    Wait {
        s: u8,
        src: Pipe,
        dst: Pipe,
        id: u32,
    },
    /// Issues `Resolved::Barrier` to queue `s`.
    Barrier { s: u8 },
}

/// The decoded form of `sop` under a profile with `event_ids` event ids:
/// what [`Cluster::su_sync`] does for it when that is always the same issue.
fn decode_sync(sop: &SyncOp, event_ids: u32) -> SuDec {
    let pair = |src: Pipe, dst: Pipe| src != Pipe::All && dst != Pipe::All && src != dst;
    let id = |e: &IdRef| match e {
        IdRef::Static(v) => u32::try_from(*v).ok().filter(|id| *id < event_ids),
        IdRef::Dyn(_) => None,
    };
    match sop {
        SyncOp::SetFlag { src, dst, event } if pair(*src, *dst) && *src != Pipe::S => {
            match id(event) {
                Some(id) => SuDec::Set {
                    s: slot(*src) as u8,
                    src: *src,
                    dst: *dst,
                    id,
                },
                None => SuDec::Slow,
            }
        }
        SyncOp::WaitFlag { src, dst, event } if pair(*src, *dst) && *dst != Pipe::S => {
            match id(event) {
                Some(id) => SuDec::Wait {
                    s: slot(*dst) as u8,
                    src: *src,
                    dst: *dst,
                    id,
                },
                None => SuDec::Slow,
            }
        }
        SyncOp::Barrier { pipe } if *pipe != Pipe::All && *pipe != Pipe::S => SuDec::Barrier {
            s: slot(*pipe) as u8,
        },
        _ => SuDec::Slow,
    }
}

/// [`Accesses::normalize`] (the union of the accesses per space and
/// direction, as maximal ranges in (space, direction, address) order) for
/// long lists: an element-by-element layout copy records thousands of small
/// accesses, which sorting cost more than the copy. A bitmap of the bytes
/// each (space, direction) touches gives the same ranges in linear time.
fn normalize_accesses(acc: &mut Accesses) {
    let list = &acc.list;
    if list.len() < 16 {
        normalize_small(&mut acc.list);
        return;
    }
    if list.len() < 64 || list.iter().any(|a| a.len == 0) {
        acc.normalize();
        return;
    }
    // key: the sort order of `normalize` (GM first, reads before writes)
    let key = |a: &exec::Access| a.space.local_index().map_or(0, |i| i + 1) * 2 + a.write as usize;
    const KEYS: usize = (Space::LOCAL.len() + 1) * 2;
    let mut lo = [u64::MAX; KEYS];
    let mut hi = [0u64; KEYS];
    let mut space = [None; KEYS];
    for a in list {
        let k = key(a);
        let Some(end) = a.addr.checked_add(a.len) else {
            acc.normalize();
            return;
        };
        lo[k] = lo[k].min(a.addr);
        hi[k] = hi[k].max(end);
        space[k] = Some(a.space);
    }
    if (0..KEYS).any(|k| space[k].is_some() && hi[k] - lo[k] > 1 << 24) {
        acc.normalize();
        return;
    }
    let mut out = Vec::new();
    let mut bits: Vec<u64> = Vec::new();
    for k in 0..KEYS {
        let Some(sp) = space[k] else { continue };
        let (base, n) = (lo[k], hi[k] - lo[k]);
        bits.clear();
        bits.resize(n.div_ceil(64) as usize, 0);
        for a in list.iter().filter(|a| key(a) == k) {
            let (mut i, end) = (a.addr - base, a.addr - base + a.len);
            while i < end {
                let b = i % 64;
                let m = (64 - b).min(end - i);
                bits[(i / 64) as usize] |= if m == 64 {
                    u64::MAX
                } else {
                    ((1u64 << m) - 1) << b
                };
                i += m;
            }
        }
        // the runs of set bits
        let mut i = 0u64;
        while i < n {
            let w = (i / 64) as usize;
            let word = bits[w] & (u64::MAX << (i % 64));
            if word == 0 {
                i = (w as u64 + 1) * 64;
                continue;
            }
            let start = w as u64 * 64 + word.trailing_zeros() as u64;
            let mut j = start;
            loop {
                let w = (j / 64) as usize;
                if w >= bits.len() {
                    j = n;
                    break;
                }
                let clear = !bits[w] & (u64::MAX << (j % 64));
                if clear == 0 {
                    j = (w as u64 + 1) * 64;
                    continue;
                }
                j = w as u64 * 64 + clear.trailing_zeros() as u64;
                break;
            }
            let j = j.min(n);
            out.push(exec::Access {
                space: sp,
                addr: base + start,
                len: j - start,
                write: k % 2 == 1,
            });
            i = j;
        }
    }
    acc.list = out;
}

/// [`Accesses::normalize`] in place for the few accesses most pipe ops
/// record (a DMA: one read, one write): an insertion sort on the same key,
/// then merging in place, without the new list. Equal keys may end up in
/// another order than the unstable sort leaves them, but they merge into
/// the same range, so the result is the same.
fn normalize_small(list: &mut Vec<exec::Access>) {
    let key = |a: &exec::Access| (a.space.local_index(), a.write, a.addr);
    for i in 1..list.len() {
        let mut j = i;
        while j > 0 && key(&list[j - 1]) > key(&list[j]) {
            list.swap(j - 1, j);
            j -= 1;
        }
    }
    let mut w = 0;
    for r in 0..list.len() {
        let a = list[r];
        if w > 0 {
            let l = &mut list[w - 1];
            if l.space == a.space && l.write == a.write && a.addr <= l.addr + l.len {
                l.len = l.len.max(a.addr + a.len - l.addr);
                continue;
            }
        }
        list[w] = a;
        w += 1;
    }
    list.truncate(w);
}

#[inline(always)]
fn rd_int(regs: &[Val], r: Reg) -> Result<i64, Fault> {
    regs.get(r as usize)
        .and_then(|v| v.as_i64())
        .ok_or_else(|| Fault::Msg(format!("expected an integer in register %{r}")))
}

impl<'a> Cluster<'a> {
    #[allow(clippy::too_many_arguments)]
    fn new(
        prog: &'a Program,
        cfg: &'a Config,
        gm: &'a Gm,
        entry: usize,
        args: &[Val],
        block: u32,
        blocks: u32,
        jit: &'a crate::jitcall::JitCache,
        rank: u32,
        world: &'a World,
    ) -> Self {
        // a split-compiled pair (a cube kernel and a vector kernel, both
        // public, the vector one taking the cube's arguments plus trailing
        // ones such as a subblock index) runs as one mixed cluster
        let peer = prog.funcs[entry].kernel_kind.and_then(|k| {
            let n = prog.funcs[entry].args.len();
            let mut it = prog.funcs.iter().enumerate().filter(|(i, f)| {
                *i != entry
                    && f.entry
                    && f.kernel_kind == Some(!k)
                    && (f.args.len() >= n && f.arg_types[..n] == prog.funcs[entry].arg_types[..]
                        || f.args.len() <= n
                            && f.arg_types[..] == prog.funcs[entry].arg_types[..f.args.len()])
            });
            let first = it.next();
            if it.next().is_some() {
                None
            } else {
                first.map(|(i, _)| i)
            }
        });
        let mixed = prog.funcs[entry].mixed || peer.is_some();
        let kinds = if mixed {
            vec![CoreKind::Cube, CoreKind::Vector(0), CoreKind::Vector(1)]
        } else {
            vec![CoreKind::Plain]
        };
        let p = cfg.profile.profile();
        let cores = kinds
            .into_iter()
            .map(|kind| {
                let mut regs = vec![Val::Unit; prog.n_regs];
                let cube = prog.funcs[entry].kernel_kind == Some(true);
                let start = match (peer, kind) {
                    (Some(pf), CoreKind::Cube) if !cube => pf,
                    (Some(pf), CoreKind::Vector(_)) if cube => pf,
                    _ => entry,
                };
                let params = &prog.funcs[start].args;
                for (i, r) in params.iter().enumerate() {
                    regs[*r as usize] = match (args.get(i), kind) {
                        (Some(v), _) => v.clone(),
                        // trailing arguments of the peer: the subblock index
                        (None, CoreKind::Vector(s)) => Val::Int(s as i64),
                        (None, _) => Val::Int(0),
                    };
                }
                Core {
                    kind,
                    arch: CoreState {
                        local: Local::new(p, cfg.ub_bytes),
                        regs,
                        vregs: vec![Val::Unit; prog.n_regs],
                        loop_regs: LoopRegs::default(),
                        sites: HashMap::new(),
                        bump: [0; 7],
                        mx: Default::default(),
                        simt_slots: HashMap::new(),
                    },
                    sb: Scoreboard::default(),
                    su: Su {
                        func: start,
                        pc: 0,
                        stack: Vec::new(),
                        done: false,
                        time: 0,
                        blocked: None,
                        syncalls: [0; 3],
                        arrived: false,
                        caps: FxHashMap::default(),
                        xfers: Default::default(),
                    },
                    queues: Default::default(),
                    time: [0; AGENTS_PER_CORE],
                    fused: Default::default(),
                    rdy: Ready {
                        shuffle: matches!(cfg.sched, Sched::Shuffle { .. }),
                        ..Ready::default()
                    },
                }
            })
            .collect::<Vec<_>>();
        let n = cores.len();
        let seed = match cfg.sched {
            // splitmix64 of (seed, block): nearby seeds give unrelated schedules
            Sched::Shuffle { seed } => {
                let mut z =
                    seed.wrapping_add((block as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                z ^ (z >> 31)
            }
            _ => 1,
        };
        Cluster {
            prog,
            cfg,
            gm,
            block,
            blocks,
            cores,
            checker: (cfg.check != CheckMode::Off).then(|| Checker::new(n)),
            diags: Diags::default(),
            seq: 0,
            steps: 0,
            scalar_ops: 0,
            rng: seed | 1,
            out: RunOutput::default(),
            conflicts: Vec::new(),
            prio: Vec::new(),
            cands: Vec::new(),
            acc_buf: Vec::new(),
            vec_acc_buf: Vec::new(),
            clocks: ClockPool::new(n),
            tok_clocks: TokenClocks::default(),
            jit,
            rank,
            world,
            scope_clock: 0,
            scope_fault_at: None,
            pending: Vec::new(),
            next_event: 1,
            fifos: FxHashMap::default(),
            quant_regs: HashMap::new(),
            reserved: HashMap::new(),
            reserved_at: FxHashMap::default(),
            ctrl: vec![0; n],
            su_dec: Vec::new(),
            // one rank of several blocks: barrier epochs; several ranks (of
            // one block or more): a vector clock per (rank, block)
            xlog: (cfg.check != CheckMode::Off && world.clusters > 1).then(xblock::Log::default),
            watcher: watch::Watcher::new(&cfg.watch_lines, block, rank),
            rclock: (cfg.check != CheckMode::Off && world.clusters > blocks).then(|| {
                xblock::RankClock::new((rank * blocks + block) as usize, world.clusters as usize)
            }),
        }
        .with_priorities(n)
    }

    fn with_priorities(mut self, cores: usize) -> Self {
        if let Sched::Shuffle { .. } = self.cfg.sched {
            self.prio = (0..cores * AGENTS_PER_CORE).map(|_| self.rand()).collect();
        }
        self
    }

    /// A transfer whose GM accesses the cross-block check compares: `tload`,
    /// a plain `tstore`, a DMA copy without an atomic mode, a cube op (GM ->
    /// L1 loads, FIXPIPE write-back) without an atomic clause, `mgather` and
    /// a plain `mscatter`.
    fn plain_transfer(r: &Resolved) -> bool {
        match r {
            Resolved::TLoad(..) | Resolved::TStore(_, _, Combine::Store) => true,
            Resolved::Dma(t) => !matches!(t.atomic, Some((how, _)) if how != Combine::Store),
            Resolved::Cube(c) => c.plain_gm(),
            Resolved::Tile(t)
                if matches!(
                    t.op,
                    pto_isa_spec::Opcode::MGather | pto_isa_spec::Opcode::MScatter
                ) =>
            {
                exec::mgather::plain_gm(t)
            }
            _ => false,
        }
    }

    fn is_transfer(r: &Resolved) -> bool {
        matches!(
            r,
            Resolved::Dma(_) | Resolved::TLoad(..) | Resolved::TStore(..) | Resolved::Cube(_)
        )
    }

    fn rand(&mut self) -> u64 {
        // xorshift64*
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    #[inline]
    fn count(&mut self, inst: InstId) {
        self.count_n(inst, 1);
    }

    #[inline]
    fn count_n(&mut self, inst: InstId, n: u64) {
        let op = self.prog.info(inst).opcode as usize;
        match self.out.op_counts.get_mut(op) {
            Some(c) => *c += n,
            None => self.count_first(op, n),
        }
    }

    /// [`Self::count_n`] of an opcode the counts do not cover yet (the
    /// first count: they are sized for every opcode then).
    #[cold]
    #[inline(never)]
    fn count_first(&mut self, op: usize, n: u64) {
        self.out
            .op_counts
            .resize(pto_isa_spec::OPS.len().max(op + 1), 0);
        self.out.op_counts[op] += n;
    }

    fn agent(core: usize, slot: usize) -> usize {
        core * AGENTS_PER_CORE + slot
    }

    fn run(&mut self) -> RunOutput {
        // long single operations charge the meter and stop at the deadline
        let _meter = exec::meter::arm(self.cfg.watch.as_ref().and_then(|w| w.deadline));
        let err = self.main_loop();
        if let Err(e) = err {
            self.out.error = Some(e);
        } else {
            self.end_checks();
        }
        if let Some(mut log) = self.xlog.take() {
            log.merge();
            match self.rclock.take() {
                Some(rc) => {
                    if let Ok(mut all) = self.world.xrank.lock() {
                        all.push((rc.rank as u32, log.list, rc.snaps));
                    }
                }
                None => {
                    if let Ok(mut all) = self.world.xblock.lock() {
                        all.push((self.block, log.list));
                    }
                }
            }
        }
        let mut out = std::mem::take(&mut self.out);
        out.diags = std::mem::take(&mut self.diags);
        if let Some(w) = self.watcher.take() {
            out.watch_counts = w.counts();
            out.watch = w.reports;
        }
        if self.cfg.keep_state {
            out.arch.push(ArchState {
                cores: self.cores.iter().map(|c| c.arch.clone()).collect(),
            });
        }
        for c in &self.cores {
            for t in c.time {
                out.cycles = out.cycles.max(t);
            }
            out.cycles = out.cycles.max(c.su.time);
        }
        out
    }

    // ───────────── scheduling ─────────────

    fn main_loop(&mut self) -> Result<(), RunError> {
        let limit = match self.cfg.max_steps {
            0 => u64::MAX,
            n => n,
        };
        let shuffle = matches!(self.cfg.sched, Sched::Shuffle { .. });
        loop {
            if self.steps >= limit || self.scalar_ops >= limit {
                return Err(RunError::Limit(self.cfg.max_steps));
            }
            if self.steps.is_multiple_of(64) {
                if let Some(w) = &self.cfg.watch {
                    w.steps
                        .store(self.steps, std::sync::atomic::Ordering::Relaxed);
                    if w.deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                        return Err(RunError::Timeout(self.steps));
                    }
                }
            }
            let found = if shuffle {
                self.shuffle_pick()
            } else {
                let p = self.ordered_pick();
                // with several ranks, other threads change signals between
                // the pick and the rescan, so only a lone cluster compares
                #[cfg(debug_assertions)]
                if self.world.clusters <= 1 {
                    assert_eq!(
                        p,
                        self.ordered_scan(),
                        "stale scheduler readiness at step {}",
                        self.steps
                    );
                }
                p
            };
            if found.is_none() && self.world.clusters > 1 && self.waits_on_signal() {
                // another rank may still notify: wait for it, or for every
                // rank to be stuck
                if self.stall()? {
                    continue;
                }
            }
            let Some(pick) = found else {
                let finished = self
                    .cores
                    .iter()
                    .all(|c| c.su.done && c.queues.iter().all(|q| q.is_empty()));
                if finished {
                    return Ok(());
                }
                self.report_deadlock();
                return Err(RunError::Deadlock);
            };
            self.steps += 1;
            if pick.1 == 0 {
                // its blocked state, its end, a token it took (its issues
                // touch their queues)
                self.step_su(pick.0)?;
                self.cores[pick.0].su_ran();
                // tile ops on PIPE_S (`tci`) run in the scalar unit, in order
                while !self.cores[pick.0].queues[0].is_empty() {
                    let t = self.cores[pick.0].su.time;
                    self.step_pipe(pick.0, 0, t)?;
                }
            } else if pick.1 >= AGENTS_PER_CORE {
                // the second transfer overtakes the first
                let s = pick.1 - AGENTS_PER_CORE;
                self.cores[pick.0].queues[s].swap(0, 1);
                self.cores[pick.0].head_changed(s);
                self.step_pipe(pick.0, s, pick.3)?;
            } else {
                self.step_pipe(pick.0, pick.1, pick.3)?;
            }
        }
    }

    /// Recomputes the cached readiness of core `ci`'s dirty agents.
    #[inline(always)]
    fn refresh(&mut self, ci: usize) {
        if self.cores[ci].rdy.dirty != 0 {
            self.refresh_dirty(ci);
        }
    }

    #[inline(never)]
    fn refresh_dirty(&mut self, ci: usize) {
        let mut d = self.cores[ci].rdy.dirty;
        let mut keep = 0u8;
        while d != 0 {
            let s = d.trailing_zeros() as usize;
            d &= d - 1;
            let volatile = if s == 0 {
                self.refresh_su(ci)
            } else {
                self.refresh_head(ci, s)
            };
            keep |= (volatile as u8) << s;
        }
        self.cores[ci].rdy.dirty = keep;
    }

    /// The scalar unit's readiness into the cache; true when it depends on
    /// state without a hook (it stays dirty).
    #[inline]
    fn refresh_su(&mut self, ci: usize) -> bool {
        let c = &self.cores[ci];
        let (ready, volatile) = match &c.su.blocked {
            _ if c.su.done => (false, false),
            None => (true, false),
            Some((b, _)) => (
                self.su_ready(ci),
                matches!(
                    b,
                    Blocked::Signal { .. }
                        | Blocked::SyncAll { .. }
                        | Blocked::FifoPop { .. }
                        | Blocked::FifoAlloc { .. }
                        | Blocked::Import { .. }
                ),
            ),
        };
        let r = &mut self.cores[ci].rdy;
        r.ready = (r.ready & !1) | ready as u8;
        volatile
    }

    /// Pipe slot `s`'s queue head into the cache; true when it depends on
    /// state without a hook (it stays dirty).
    #[inline]
    fn refresh_head(&mut self, ci: usize, s: usize) -> bool {
        let c = &self.cores[ci];
        let q = &c.queues[s];
        let Some(h) = q.front() else {
            let r = &mut self.cores[ci].rdy;
            r.ready &= !(1 << s);
            r.over &= !(1 << s);
            return false;
        };
        let volatile = matches!(h.r, Resolved::FifoPush { .. });
        let head = self
            .head_ready(ci, s, h)
            .map(|dep| (h.seq, c.time[s].max(h.issue_time).max(dep)));
        // DMA engines may complete back-to-back transfers out of order
        // unless a pipe_barrier separates them: shuffle explores that
        let over = if matches!(self.cfg.sched, Sched::Shuffle { .. })
            && crate::checker::is_dma(s)
            && Self::is_transfer(&h.r)
        {
            q.get(1)
                .filter(|h2| Self::is_transfer(&h2.r))
                .map(|h2| h2.seq)
        } else {
            None
        };
        let r = &mut self.cores[ci].rdy;
        let bit = 1u8 << s;
        match head {
            Some((seq, start)) => {
                r.ready |= bit;
                r.seq[s] = seq;
                r.start[s] = start;
            }
            None => r.ready &= !bit,
        }
        match over {
            Some(seq) => {
                r.over |= bit;
                r.over_seq[s] = seq;
            }
            None => r.over &= !bit,
        }
        volatile
    }

    /// The in-order and timed schedulers' next step, (core, slot, seq,
    /// start), from the cached readiness: the first candidate with the
    /// smallest key (in-order: issue sequence; timed: start time, then
    /// sequence) in scan order (cores in order, the scalar unit, then the
    /// pipe slots in order).
    fn ordered_pick(&mut self) -> Option<(usize, usize, u64, u64)> {
        let timed = matches!(self.cfg.sched, Sched::Timed);
        let mut best: Option<(usize, usize, u64, u64)> = None;
        if !timed {
            // in-order: every queued op was issued before the scalar units'
            // next ones (their key, `self.seq`, is larger than any head's),
            // so the ready head with the smallest sequence, else the first
            // ready scalar unit
            if self.cores.len() == 1 {
                // one core, at most one ready head: no comparison
                self.refresh(0);
                let c = &self.cores[0];
                let r = &c.rdy;
                let m = r.ready & !1;
                if m & m.wrapping_sub(1) == 0 {
                    return if m != 0 {
                        let s = m.trailing_zeros() as usize;
                        Some((0, s, r.seq[s], r.start[s]))
                    } else if r.ready & 1 != 0 {
                        Some((0, 0, self.seq, c.su.time))
                    } else {
                        None
                    };
                }
            }
            let mut su = None;
            for ci in 0..self.cores.len() {
                self.refresh(ci);
                let r = &self.cores[ci].rdy;
                let mut m = r.ready & !1;
                while m != 0 {
                    let s = m.trailing_zeros() as usize;
                    m &= m - 1;
                    if best.is_none_or(|b| r.seq[s] < b.2) {
                        best = Some((ci, s, r.seq[s], r.start[s]));
                    }
                }
                if su.is_none() && r.ready & 1 != 0 {
                    su = Some(ci);
                }
            }
            return best.or_else(|| su.map(|ci| (ci, 0, self.seq, self.cores[ci].su.time)));
        }
        for ci in 0..self.cores.len() {
            self.refresh(ci);
            let c = &self.cores[ci];
            let mut m = c.rdy.ready;
            while m != 0 {
                let s = m.trailing_zeros() as usize;
                m &= m - 1;
                let cand = if s == 0 {
                    (ci, 0, self.seq, c.su.time)
                } else {
                    (ci, s, c.rdy.seq[s], c.rdy.start[s])
                };
                let better = match best {
                    None => true,
                    Some(b) if timed => (cand.3, cand.2) < (b.3, b.2),
                    Some(b) => cand.2 < b.2,
                };
                if better {
                    best = Some(cand);
                }
            }
        }
        best
    }

    /// [`Self::ordered_pick`] by a full rescan of every agent, without the
    /// cache: debug builds check every pick against it.
    #[cfg(debug_assertions)]
    fn ordered_scan(&self) -> Option<(usize, usize, u64, u64)> {
        let timed = matches!(self.cfg.sched, Sched::Timed);
        let mut best: Option<(usize, usize, u64, u64)> = None;
        let mut offer = |c: (usize, usize, u64, u64)| {
            let better = match best {
                None => true,
                Some(b) if timed => (c.3, c.2) < (b.3, b.2),
                Some(b) => c.2 < b.2,
            };
            if better {
                best = Some(c);
            }
        };
        for (ci, core) in self.cores.iter().enumerate() {
            if self.su_ready(ci) {
                offer((ci, 0, self.seq, core.su.time));
            }
            for s in 1..AGENTS_PER_CORE {
                if let Some(h) = core.queues[s].front() {
                    if let Some(dep) = self.head_ready(ci, s, h) {
                        let start = core.time[s].max(h.issue_time).max(dep);
                        offer((ci, s, h.seq, start));
                    }
                }
            }
        }
        best
    }

    /// The shuffle scheduler's candidates by a full rescan, without the
    /// cache: debug builds check every candidate list against it.
    #[cfg(debug_assertions)]
    fn shuffle_scan(&self) -> Vec<(usize, usize, u64, u64)> {
        let mut cands = Vec::new();
        for ci in 0..self.cores.len() {
            if self.su_ready(ci) {
                let t = self.cores[ci].su.time;
                cands.push((ci, 0, self.seq, t));
            }
            for s in 1..AGENTS_PER_CORE {
                let q = &self.cores[ci].queues[s];
                if let Some(h) = q.front() {
                    if let Some(dep) = self.head_ready(ci, s, h) {
                        let start = self.cores[ci].time[s].max(h.issue_time).max(dep);
                        cands.push((ci, s, h.seq, start));
                    }
                    if let (true, Some(h2)) = (crate::checker::is_dma(s), q.get(1)) {
                        if Self::is_transfer(&h.r) && Self::is_transfer(&h2.r) {
                            cands.push((ci, s + AGENTS_PER_CORE, h2.seq, 0));
                        }
                    }
                }
            }
        }
        cands
    }

    /// The shuffle scheduler's next step: a random pick among every agent
    /// that can run (and, on a DMA pipe, a second transfer overtaking the
    /// first: slot + AGENTS_PER_CORE).
    fn shuffle_pick(&mut self) -> Option<(usize, usize, u64, u64)> {
        // candidates: (core, slot, seq, start) in scan order, from the
        // cache; the list is reused from step to step
        let mut cands = std::mem::take(&mut self.cands);
        cands.clear();
        let (mut n_su, mut n_pipes) = (0usize, 0usize);
        for ci in 0..self.cores.len() {
            self.refresh(ci);
            let c = &self.cores[ci];
            let r = &c.rdy;
            if r.ready & 1 != 0 {
                cands.push((ci, 0, self.seq, c.su.time));
                n_su += 1;
            }
            let mut m = (r.ready | r.over) & !1;
            while m != 0 {
                let s = m.trailing_zeros() as usize;
                m &= m - 1;
                if r.ready & (1 << s) != 0 {
                    cands.push((ci, s, r.seq[s], r.start[s]));
                    n_pipes += 1;
                }
                if r.over & (1 << s) != 0 {
                    cands.push((ci, s + AGENTS_PER_CORE, r.over_seq[s], 0));
                    n_pipes += 1;
                }
            }
        }
        // with several ranks (or blocks on threads), other threads change
        // signals and barriers between the pick and the rescan, so only a
        // lone cluster compares (as `ordered_pick` does)
        #[cfg(debug_assertions)]
        if self.world.clusters <= 1 {
            assert_eq!(
                cands,
                self.shuffle_scan(),
                "stale scheduler readiness at step {}",
                self.steps
            );
        }
        if cands.is_empty() {
            self.cands = cands;
            return None;
        }
        let r = self.rand();
        // the k-th scalar-unit / pipe candidate in scan order
        let nth = |su: bool, k: usize| {
            cands
                .iter()
                .filter(|c| (c.1 == 0) == su)
                .nth(k)
                .copied()
                .unwrap_or(cands[0])
        };
        let pick = if n_su > 0 && (n_pipes == 0 || !r.is_multiple_of(4)) {
            // issue ahead as far as the program allows
            nth(true, (r >> 8) as usize % n_su)
        } else if r & 0x70 != 0 {
            // run the pipe this run favours: a random priority per pipe
            // starves the others as long as the synchronization allows,
            // which is what exposes a missing wait (the last of equal
            // priorities, as `max_by_key` picks)
            let prio = |c: &(usize, usize, u64, u64)| {
                self.prio[Self::agent(c.0, c.1 % AGENTS_PER_CORE)] ^ (c.1 >= AGENTS_PER_CORE) as u64
            };
            let mut best: Option<((usize, usize, u64, u64), u64)> = None;
            for c in cands.iter().filter(|c| c.1 != 0) {
                let p = prio(c);
                if best.is_none_or(|(_, bp)| p >= bp) {
                    best = Some((*c, p));
                }
            }
            best.map_or(cands[0], |(c, _)| c)
        } else {
            nth(false, (r >> 16) as usize % n_pipes)
        };
        self.cands = cands;
        Some(pick)
    }

    /// Cores of the launch (this rank) taking part in a `syncall` of `kind`:
    /// the cluster's cores of that kind (a vector-only or cube-only kernel's
    /// single core counts for every kind) times the blocks.
    fn syncall_parties(&self, kind: u8) -> u32 {
        let per = self
            .cores
            .iter()
            .filter(|c| {
                matches!(
                    (kind, c.kind),
                    (0, _) | (_, CoreKind::Plain) | (1, CoreKind::Vector(_)) | (2, CoreKind::Cube)
                )
            })
            .count() as u32;
        per * self.world.blocks
    }

    fn syncall_arrived(&self, kind: u8, n: u64) -> u32 {
        self.world
            .syncall
            .lock()
            .map(|m| m.get(&(self.rank, kind, n)).copied().unwrap_or(0))
            .unwrap_or(0)
    }

    fn waits_on_signal(&self) -> bool {
        self.cores.iter().any(|c| {
            matches!(
                c.su.blocked,
                Some((Blocked::Signal { .. } | Blocked::SyncAll { .. }, _))
            )
        })
    }

    /// Sleeps until a core of this cluster can run again (true), or every
    /// cluster of the run has been stalled or finished with nothing changing
    /// for a while (false: a deadlock across ranks).
    fn stall(&mut self) -> Result<bool, RunError> {
        let w = self.world;
        w.stalled.fetch_add(1, Ordering::SeqCst);
        let mut seen = w.epoch.load(Ordering::SeqCst);
        let mut quiet = 0u32;
        let woke = loop {
            if (0..self.cores.len()).any(|ci| self.su_ready(ci)) {
                break true;
            }
            if let Some(d) = self.cfg.watch.as_ref().and_then(|w| w.deadline) {
                if std::time::Instant::now() >= d {
                    w.stalled.fetch_sub(1, Ordering::SeqCst);
                    return Err(RunError::Timeout(self.steps));
                }
            }
            std::thread::sleep(std::time::Duration::from_micros(200));
            let e = w.epoch.load(Ordering::SeqCst);
            if e != seen {
                seen = e;
                quiet = 0;
            } else {
                quiet += 1;
            }
            let stuck = w.stalled.load(Ordering::SeqCst) + w.done.load(Ordering::SeqCst);
            if stuck >= w.clusters && quiet > 500 {
                break false;
            }
        };
        w.stalled.fetch_sub(1, Ordering::SeqCst);
        if woke {
            w.epoch.fetch_add(1, Ordering::SeqCst);
        }
        Ok(woke)
    }

    #[inline]
    fn su_ready(&self, ci: usize) -> bool {
        let c = &self.cores[ci];
        if c.su.done {
            return false;
        }
        match &c.su.blocked {
            None => true,
            Some((b, _)) => match b {
                Blocked::Flag { src, dst, id } => {
                    c.sb.flags
                        .get(&(*src, *dst, *id))
                        .is_some_and(|q| !q.is_empty())
                }
                Blocked::Drain => c.queues.iter().all(|q| q.is_empty()),
                Blocked::Cross { id } => self.cross_available(ci, *id),
                Blocked::Queue(s) => c.queues[*s].len() < QUEUE_DEPTH,
                Blocked::Comm => c.queues.iter().all(|q| q.is_empty()),
                Blocked::Signal { sig, value, cmp } => {
                    exec::comm::test(self.gm, sig, *value, *cmp).map_or(true, |r| r.is_ok())
                }
                Blocked::SyncAll { kind, n } => {
                    self.syncall_arrived(*kind, *n) >= self.syncall_parties(*kind)
                }
                Blocked::FifoPop { id, c2v } => self
                    .fifos
                    .get(&(*id, *c2v))
                    .is_none_or(|f| f.entry_ready(Self::party(c.kind)).is_ok()),
                Blocked::Import { peer, name } => {
                    self.reserved.contains_key(&(peer.clone(), name.clone()))
                }
                Blocked::FifoAlloc { id, c2v } => self.fifos.get(&(*id, *c2v)).is_none_or(|f| {
                    let p = Self::party(c.kind);
                    f.slot_free(p, f.allocs.get(p).copied().unwrap_or(0))
                        .is_ok()
                }),
            },
        }
    }

    /// Some(dependency time) if the head can execute.
    #[inline]
    fn head_ready(&self, ci: usize, _s: usize, h: &Issued) -> Option<u64> {
        let c = &self.cores[ci];
        match &h.r {
            Resolved::Wait { src, dst, id } => {
                c.sb.flags
                    .get(&(*src, *dst, *id))
                    .and_then(|q| q.front())
                    .map(|t| t.time)
            }
            Resolved::GetBuf { id, ticket } => {
                let b = c.sb.bufs.get(id)?;
                (b.serving == *ticket && b.holder.is_none()).then_some(b.time)
            }
            Resolved::CrossWait { id } => self.cross_available(ci, *id).then_some(0),
            Resolved::FifoPush { id, c2v, .. } => {
                let Some(f) = self.fifos.get(&(*id, *c2v)) else {
                    return Some(0);
                };
                let p = Self::party(c.kind);
                let n = f.pushes.get(p).map_or(0, |v| v.len() as u64);
                f.slot_free(p, n).ok()?;
                Some(if n >= f.slot_num {
                    f.frees
                        .iter()
                        .filter_map(|v| v.get((n - f.slot_num) as usize))
                        .map(|m| m.time)
                        .max()
                        .unwrap_or(0)
                } else {
                    0
                })
            }
            _ => Some(0),
        }
    }

    fn cross_available(&self, ci: usize, id: u32) -> bool {
        let c = &self.cores[ci];
        match c.kind {
            // cube waiting in mode2 needs a signal from each vector subblock
            CoreKind::Cube => {
                let q0 = c.sb.sems.get(&(id, 0)).map_or(0, |q| q.len());
                let q1 = c.sb.sems.get(&(id, 1)).map_or(0, |q| q.len());
                let qa = c.sb.sems.get(&(id, u32::MAX)).map_or(0, |q| q.len());
                (q0 > 0 && q1 > 0) || qa > 0
            }
            _ => {
                c.sb.sems
                    .get(&(id, u32::MAX))
                    .is_some_and(|q| !q.is_empty())
            }
        }
    }

    // ───────────── scalar unit ─────────────

    fn fault<T>(&self, inst: InstId, f: Fault) -> Result<T, RunError> {
        if f == Fault::Timeout || exec::meter::tripped() {
            return Err(RunError::Timeout(self.steps));
        }
        let mut message = f.to_string();
        // past the end of GM: say which argument buffer it left
        if let Fault::Bounds(b) = &f {
            if let Some(buf) = (b.space == Space::Gm)
                .then(|| self.gm.buffer_at(b.addr))
                .flatten()
            {
                let end = b.addr.saturating_add(b.len);
                message.push_str(&format!(
                    "; it starts in {} ({} bytes at {:#x}) and runs {} bytes past its end",
                    buf.name,
                    buf.hi - buf.lo,
                    buf.lo,
                    end.saturating_sub(buf.hi)
                ));
            }
        }
        Err(RunError::Fault { inst, message })
    }

    fn step_su(&mut self, ci: usize) -> Result<(), RunError> {
        // re-check a blocked condition and consume it
        if let Some((b, inst)) = self.cores[ci].su.blocked.take() {
            match b {
                Blocked::Flag { src, dst, id } => {
                    let tok = self.cores[ci]
                        .sb
                        .flags
                        .get_mut(&(src, dst, id))
                        .and_then(|q| q.pop_front());
                    if let Some(t) = tok {
                        self.consume_token(ci, 0, &t);
                    }
                    self.cores[ci].su.pc += 1;
                    let _ = inst;
                }
                Blocked::Drain => {
                    if let Some(ck) = &mut self.checker {
                        ck.join_core(Self::agent(ci, 0), ci);
                        // every DMA write issued so far has completed: later
                        // writes of the same pipe cannot overtake them
                        for s in 1..AGENTS_PER_CORE {
                            ck.epoch[Self::agent(ci, s)] += 1;
                        }
                    }
                    let t = self.cores[ci].time.iter().copied().max().unwrap_or(0);
                    self.cores[ci].su.time = self.cores[ci].su.time.max(t);
                    self.cores[ci].su.pc += 1;
                }
                Blocked::Cross { id } => {
                    self.take_cross(ci, 0, id);
                    self.cores[ci].su.pc += 1;
                }
                Blocked::Queue(_)
                | Blocked::Comm
                | Blocked::Signal { .. }
                | Blocked::SyncAll { .. }
                | Blocked::FifoPop { .. }
                | Blocked::FifoAlloc { .. }
                | Blocked::Import { .. } => {}
            }
        }
        // run scalar instructions until one issue, a block, or the end
        let mut budget = 4096;
        loop {
            budget -= 1;
            if budget == 0 {
                return Ok(());
            }
            let c = &self.cores[ci];
            let func = &self.prog.funcs[c.su.func];
            let Some(inst) = func.code.get(c.su.pc) else {
                self.cores[ci].su.done = true;
                return Ok(());
            };
            let id = inst.id;
            self.count(id);
            self.scalar_ops += 1;
            self.cores[ci].su.time += 1;
            // a decoded set_flag/wait_flag/pipe_barrier (most scalar-unit
            // steps of a pipelined kernel) without the call of exec_su
            let flow = match (&inst.k, self.su_dec.get(id as usize)) {
                (
                    K::Sync(_),
                    Some(&d @ (SuDec::Set { .. } | SuDec::Wait { .. } | SuDec::Barrier { .. })),
                ) => Ok(self.issue_decoded(ci, id, d)),
                _ => self.exec_su(ci, inst),
            };
            if self.watcher.is_some() && matches!(flow, Ok(Flow::Next | Flow::Jump(_))) {
                self.watch_scalar(ci, inst);
            }
            match flow {
                Ok(Flow::Next) => self.cores[ci].su.pc += 1,
                Ok(Flow::Jump(t)) => self.cores[ci].su.pc = t,
                Ok(Flow::Issued) => {
                    self.cores[ci].su.pc += 1;
                    return Ok(());
                }
                Ok(Flow::Block(b)) => {
                    self.cores[ci].su.blocked = Some((b, id));
                    return Ok(());
                }
                Ok(Flow::Done) => {
                    self.cores[ci].su.done = true;
                    return Ok(());
                }
                Ok(Flow::Stay) => return Ok(()),
                Err(f) => return self.fault(id, f),
            }
        }
    }

    fn exec_su(&mut self, ci: usize, inst: &'a Inst) -> Result<Flow, Fault> {
        let prog = self.prog;
        match &inst.k {
            K::Issue { pipe, op } => {
                let s = slot(*pipe);
                if self.cores[ci].queues[s].len() >= QUEUE_DEPTH {
                    return Ok(Flow::Block(Blocked::Queue(s)));
                }
                let r = self.resolve(ci, op)?;
                self.issue(ci, s, inst.id, r);
                Ok(Flow::Issued)
            }
            K::VecScope {
                body,
                captures,
                binds,
            } => {
                let s = slot(Pipe::V);
                if self.cores[ci].queues[s].len() >= QUEUE_DEPTH {
                    return Ok(Flow::Block(Blocked::Queue(s)));
                }
                let caps = self.cores[ci].su_caps(inst.id, captures, binds);
                self.issue(
                    ci,
                    s,
                    inst.id,
                    Resolved::Vec {
                        body: body.clone(),
                        caps,
                    },
                );
                Ok(Flow::Issued)
            }
            K::Sync(sop) => {
                let d = match self.su_dec.get(inst.id as usize) {
                    Some(SuDec::Unknown) | None => self.decode_sync(inst.id, sop),
                    Some(d) => *d,
                };
                match d {
                    SuDec::Unknown | SuDec::Slow => self.su_sync(ci, inst.id, sop),
                    d => Ok(self.issue_decoded(ci, inst.id, d)),
                }
            }
            K::ScalarMem {
                load,
                val,
                ptr,
                off,
                dt,
            } => {
                let gm = self.gm;
                let c = &mut self.cores[ci];
                let (space, addr, len) = scalar_mem(
                    gm,
                    &mut c.arch.local,
                    &mut c.arch.regs,
                    *load,
                    *val,
                    *ptr,
                    *off,
                    *dt,
                )?;
                self.check_su_access(ci, inst.id, space, addr, len, !*load);
                Ok(Flow::Next)
            }
            K::Atomic { .. } => {
                let gm = self.gm;
                let c = &mut self.cores[ci];
                atomic(gm, &mut c.arch.local, &mut c.arch.regs, &inst.k)?;
                Ok(Flow::Next)
            }
            K::SyncAll { kind } => {
                // the core's own work completes first
                if !self.cores[ci].queues.iter().all(|q| q.is_empty()) {
                    return Ok(Flow::Block(Blocked::Comm));
                }
                let k = *kind;
                let n = self.cores[ci].su.syncalls[k as usize];
                let key = (self.rank, k, n);
                if !self.cores[ci].su.arrived {
                    if let Some(ck) = &mut self.checker {
                        ck.join_core(Self::agent(ci, 0), ci);
                    }
                    // releases what this block did so far to the blocks
                    // passing the barrier (joined before the arrival counts)
                    if let Some(rc) = &mut self.rclock {
                        let vc = rc.notify();
                        if let Ok(mut m) = self.world.syncall_clocks.lock() {
                            xblock::join(m.entry(key).or_default(), &vc);
                        }
                    }
                    *self
                        .world
                        .syncall
                        .lock()
                        .map_err(|_| Fault::Msg("internal: syncall state poisoned".into()))?
                        .entry(key)
                        .or_insert(0) += 1;
                    self.world.epoch.fetch_add(1, Ordering::SeqCst);
                    self.cores[ci].su.arrived = true;
                }
                if self.syncall_arrived(k, n) < self.syncall_parties(k) {
                    return Ok(Flow::Block(Blocked::SyncAll { kind: k, n }));
                }
                if let Some(rc) = &mut self.rclock {
                    let joined = self
                        .world
                        .syncall_clocks
                        .lock()
                        .ok()
                        .and_then(|m| m.get(&key).cloned());
                    if let Some(vc) = joined {
                        rc.acquire(&vc);
                    }
                }
                self.cores[ci].su.arrived = false;
                self.cores[ci].su.syncalls[k as usize] += 1;
                Ok(Flow::Next)
            }
            K::Comm {
                op,
                args,
                staging,
                group,
                dst,
                attrs,
            } => {
                if !self.cores[ci].queues.iter().all(|q| q.is_empty()) {
                    return Ok(Flow::Block(Blocked::Comm));
                }
                self.su_comm(ci, inst.id, *op, args, staging, group, *dst, attrs)
            }
            // a vector status register the scalar unit reads (get_vms4_sr)
            K::Vec(v @ VecOp::Generic { op, .. }) if *op == pto_isa_spec::Opcode::GetVms4Sr => {
                let c = &mut self.cores[ci];
                let mut acc = Accesses::default();
                exec_vec(
                    v,
                    &mut c.arch.regs,
                    &mut c.arch.local,
                    &mut acc,
                    &mut Vec::new(),
                    &mut Vec::new(),
                    inst.id,
                )?;
                Ok(Flow::Next)
            }
            K::Vec(_) => fault(format!(
                "'{}' is a vector micro-op and must be inside a pto.vecscope",
                prog.info(inst.id).opcode.name()
            )),
            K::Section { cube, end } => {
                let kind = self.cores[ci].kind;
                let skip = match kind {
                    CoreKind::Plain => false,
                    CoreKind::Cube => !*cube,
                    CoreKind::Vector(_) => *cube,
                };
                Ok(if skip { Flow::Jump(*end) } else { Flow::Next })
            }
            K::Call { func, .. }
                if matches!(
                    (prog.funcs[*func].kernel_kind, self.cores[ci].kind),
                    (Some(true), CoreKind::Vector(_)) | (Some(false), CoreKind::Cube)
                ) =>
            {
                // a mixed kernel's cube function runs on the cube core only,
                // its vector functions on the vector subblocks only
                Ok(Flow::Next)
            }
            K::Ctrl { dst, src } => {
                let regs = &mut self.cores[ci].arch.regs;
                if let Some(s) = src {
                    let v = rd_int(regs, *s)?;
                    self.ctrl[ci] = v;
                }
                if let Some(d) = dst {
                    regs[*d as usize] = Val::Int(self.ctrl[ci]);
                }
                Ok(Flow::Next)
            }
            K::ReserveBuf { .. }
            | K::ImportBuf { .. }
            | K::PipeInit(_)
            | K::SetQuant { .. }
            | K::FifoPush { .. }
            | K::FifoPop { .. }
            | K::FifoAlloc { .. }
            | K::FifoFree { .. } => self.su_fifo(ci, inst),
            K::Call { func, args, dsts } => {
                let c = &mut self.cores[ci];
                if c.su.func == *func || c.su.stack.iter().any(|f| f.0 == *func) {
                    return fault(format!(
                        "recursive call of @{} is not supported",
                        prog.funcs[*func].name
                    ));
                }
                if c.su.stack.len() > 256 {
                    return fault("call stack deeper than 256 frames");
                }
                let vals: Vec<Val> = args
                    .iter()
                    .map(|a| c.arch.regs[*a as usize].clone())
                    .collect();
                for (p, v) in prog.funcs[*func].args.iter().zip(vals) {
                    c.arch.regs[*p as usize] = v;
                }
                c.su.stack.push((c.su.func, c.su.pc + 1, dsts.clone()));
                c.su.func = *func;
                Ok(Flow::Jump(0))
            }
            K::Ret { vals } => {
                let c = &mut self.cores[ci];
                match c.su.stack.pop() {
                    None => Ok(Flow::Done),
                    Some((f, pc, dsts)) => {
                        let vs: Vec<Val> = vals
                            .iter()
                            .map(|v| c.arch.regs[*v as usize].clone())
                            .collect();
                        for (d, v) in dsts.iter().zip(vs) {
                            c.arch.regs[*d as usize] = v;
                        }
                        c.su.func = f;
                        Ok(Flow::Jump(pc))
                    }
                }
            }
            K::End => Ok(Flow::Next),
            K::TsyncNonVector { class, pipe } => {
                let (class, pipe) = (class.clone(), *pipe);
                self.diags.report(
                    DiagKind::TsyncNonVector,
                    Some(inst.id),
                    None,
                    || format!("tsync barrier on op class {class}, which runs on {}: TSYNC<Op> supports vector-pipeline ops only", pipe.name()),
                    || Some(format!("use pto.barrier #pto.pipe<{}> or explicit set_flag/wait_flag", pipe.name())),
                );
                self.su_sync(ci, inst.id, &SyncOp::Barrier { pipe })
            }
            k => {
                let (block, blocks) = (self.block, self.blocks);
                let c = &mut self.cores[ci];
                let sub = match c.kind {
                    CoreKind::Vector(s) => (s as i64, 2),
                    CoreKind::Cube => (0, 2),
                    CoreKind::Plain => (0, 1),
                };
                scalar_step(
                    k,
                    &mut c.arch.regs,
                    &mut c.arch.local,
                    &mut c.arch.sites,
                    &mut c.arch.bump,
                    &mut c.arch.loop_regs,
                    (block, blocks, sub),
                )
            }
        }
    }

    #[inline]
    fn issue(&mut self, ci: usize, s: usize, inst: InstId, mut r: Resolved) {
        let (vc, own) = match &mut self.checker {
            Some(ck) => {
                let a = Self::agent(ci, 0);
                ck.tick(a);
                (self.clocks.snapshot(ci, a, ck), ck.vc[a][a])
            }
            None => (NO_CLOCK, 0),
        };
        let seq = self.seq;
        self.seq += 1;
        // one bounds check for the core
        let c = &mut self.cores[ci];
        let issue_time = c.su.time;
        // buffer tickets are handed out in program (issue) order
        if let Resolved::GetBuf { id, ticket } = &mut r {
            let b = c.sb.bufs.entry(*id).or_default();
            *ticket = b.next_ticket;
            b.next_ticket += 1;
        }
        c.queues[s].push_back(Issued {
            seq,
            inst,
            r,
            vc,
            own,
            issue_time,
        });
        c.pushed(s); // h-sched: the queue may have a new head
    }

    fn idref(&self, ci: usize, r: &IdRef) -> Result<u32, Fault> {
        let v = match r {
            IdRef::Static(v) => *v,
            IdRef::Dyn(reg) => rd_int(&self.cores[ci].arch.regs, *reg)?,
        };
        u32::try_from(v).map_err(|_| Fault::Msg(format!("id {v} is outside 0..2^32")))
    }

    fn check_event(&mut self, inst: InstId, id: u32) -> bool {
        let max = self.cfg.profile.profile().event_ids;
        self.check_id(inst, id, max, |id, max, prof| {
            format!(
                "event id {id} is outside EVENT_ID0..EVENT_ID{} of profile {prof}",
                max - 1
            )
        })
    }

    /// Reports a runtime cross-core semaphore id past the profile's range
    /// (static ids are refused when the kernel loads). The op still runs:
    /// ptovm matches such ids exactly, a device does not say what it does.
    fn check_cross(&mut self, inst: InstId, id: u32) {
        let max = self.cfg.profile.profile().cross_core_ids;
        self.check_id(inst, id, max, |id, max, prof| {
            format!(
                "cross-core semaphore id {id} is outside 0..{} of profile {prof}",
                max - 1
            )
        });
    }

    /// Whether `id` is below `max`; if not, a bad-event-id diagnostic at
    /// `inst` with the message `what(id, max, profile)`.
    fn check_id(
        &mut self,
        inst: InstId,
        id: u32,
        max: u32,
        what: impl Fn(u32, u32, ProfileId) -> String,
    ) -> bool {
        if id < max {
            return true;
        }
        let prof = self.cfg.profile;
        self.diags.report(
            DiagKind::BadEventId,
            Some(inst),
            None,
            || what(id, max, prof),
            || None,
        );
        false
    }

    /// Decodes synchronization op `inst` into [`Cluster::su_dec`] (sized to
    /// the program on first use) and returns its decoded form.
    #[cold]
    /// Executes a decoded synchronization op (not [`SuDec::Slow`] or
    /// [`SuDec::Unknown`]): its issue, or a block on the full queue.
    #[inline(always)]
    fn issue_decoded(&mut self, ci: usize, inst: InstId, d: SuDec) -> Flow {
        let (s, r) = match d {
            SuDec::Set { s, src, dst, id } => (s, Resolved::Set { src, dst, id }),
            SuDec::Wait { s, src, dst, id } => (s, Resolved::Wait { src, dst, id }),
            SuDec::Barrier { s } => (s, Resolved::Barrier),
            SuDec::Unknown | SuDec::Slow => {
                debug_assert!(false, "issue_decoded of an undecoded op");
                return Flow::Stay;
            }
        };
        let s = s as usize;
        if self.cores[ci].queues[s].len() >= QUEUE_DEPTH {
            return Flow::Block(Blocked::Queue(s));
        }
        self.issue(ci, s, inst, r);
        Flow::Issued
    }

    fn decode_sync(&mut self, inst: InstId, sop: &SyncOp) -> SuDec {
        if self.su_dec.is_empty() {
            self.su_dec = vec![SuDec::Unknown; self.prog.insts.len()];
        }
        let d = decode_sync(sop, self.cfg.profile.profile().event_ids);
        if let Some(e) = self.su_dec.get_mut(inst as usize) {
            *e = d;
        }
        d
    }

    fn su_sync(&mut self, ci: usize, inst: InstId, sop: &SyncOp) -> Result<Flow, Fault> {
        match sop {
            SyncOp::SetFlag { src, dst, event } | SyncOp::WaitFlag { src, dst, event }
                if *src == Pipe::All || *dst == Pipe::All || src == dst =>
            {
                let (src, dst) = (*src, *dst);
                let _ = event;
                self.diags.report(
                    DiagKind::BadPipe,
                    Some(inst),
                    None,
                    || format!("event between {} and {}: an event connects two different pipes, and PIPE_ALL is not one", src.name(), dst.name()),
                    || Some("use pto.barrier for ordering within one pipe or across all pipes".into()),
                );
                Ok(Flow::Next)
            }
            SyncOp::SetFlag { src, dst, event } => {
                let id = self.idref(ci, event)?;
                self.check_event(inst, id);
                let r = Resolved::Set {
                    src: *src,
                    dst: *dst,
                    id,
                };
                if *src == Pipe::S {
                    self.exec_set(ci, 0, inst, *src, *dst, id, self.cores[ci].time[0]);
                    return Ok(Flow::Next);
                }
                self.issue_or_block(ci, slot(*src), inst, r)
            }
            SyncOp::WaitFlag { src, dst, event } => {
                let id = self.idref(ci, event)?;
                self.check_event(inst, id);
                if *dst == Pipe::S {
                    return Ok(Flow::Block(Blocked::Flag {
                        src: *src,
                        dst: *dst,
                        id,
                    }));
                }
                self.issue_or_block(
                    ci,
                    slot(*dst),
                    inst,
                    Resolved::Wait {
                        src: *src,
                        dst: *dst,
                        id,
                    },
                )
            }
            SyncOp::Barrier { pipe } => match pipe {
                Pipe::All => Ok(Flow::Block(Blocked::Drain)),
                Pipe::S => Ok(Flow::Next),
                p => self.issue_or_block(ci, slot(*p), inst, Resolved::Barrier),
            },
            SyncOp::GetBuf { pipe, id } => {
                let id = self.idref(ci, id)?;
                if id >= self.cfg.profile.profile().buf_ids {
                    return fault(format!(
                        "buffer id {id} is outside 0..{}",
                        self.cfg.profile.profile().buf_ids
                    ));
                }
                self.issue_or_block(
                    ci,
                    slot(*pipe).max(1),
                    inst,
                    Resolved::GetBuf { id, ticket: 0 },
                )
            }
            SyncOp::RlsBuf { pipe, id } => {
                let id = self.idref(ci, id)?;
                self.issue_or_block(ci, slot(*pipe).max(1), inst, Resolved::RlsBuf { id })
            }
            SyncOp::CrossSet { pipe, id, mode2 } => {
                let id = self.idref(ci, id)?;
                self.check_cross(inst, id);
                if *pipe == Pipe::S {
                    self.exec_cross_set(ci, 0, inst, id, *mode2);
                    return Ok(Flow::Next);
                }
                self.issue_or_block(
                    ci,
                    slot(*pipe),
                    inst,
                    Resolved::CrossSet { id, mode2: *mode2 },
                )
            }
            SyncOp::CrossWait {
                pipe,
                id,
                whole_core,
            } => {
                let mut id = self.idref(ci, id)?;
                self.check_cross(inst, id);
                if *whole_core || *pipe == Pipe::S {
                    return Ok(Flow::Block(Blocked::Cross { id }));
                }
                // A5: the cube's ids 16-31 land on subblock 1 as 0-15, and a
                // subblock may name them either way (PTOAS waits on 17 for 17)
                if matches!(self.cores[ci].kind, CoreKind::Vector(_)) {
                    id %= 16;
                }
                self.issue_or_block(ci, slot(*pipe), inst, Resolved::CrossWait { id })
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn su_comm(
        &mut self,
        ci: usize,
        inst: InstId,
        op: CommOp,
        args: &[Reg],
        staging: &[Reg],
        group: &[Reg],
        dst: Option<Reg>,
        attrs: &Attrs,
    ) -> Result<Flow, Fault> {
        use exec::comm::{self as cm, WaitCmp};
        let regs = &self.cores[ci].arch.regs;
        let view = |i: usize| -> Result<View, Fault> {
            match args.get(i).and_then(|r| regs.get(*r as usize)) {
                Some(Val::View(v)) => Ok((**v).clone()),
                Some(other) => fault(format!(
                    "operand {} is {}, not a GM view",
                    i + 1,
                    other.kind()
                )),
                None => fault(format!("missing operand {}", i + 1)),
            }
        };
        let int =
            |i: usize| -> Result<i64, Fault> { rd_int(regs, *args.get(i).unwrap_or(&u32::MAX)) };
        let sym = |k: &str| match attr(attrs, k) {
            Some(AttrVal::Sym(s)) => Some(s.clone()),
            _ => None,
        };
        let tiles: Vec<Box<Tile>> = staging
            .iter()
            .map(|r| match regs.get(*r as usize) {
                Some(Val::Tile(t)) => Ok(t.clone()),
                _ => fault("a staging operand is not a tile"),
            })
            .collect::<Result<_, _>>()?;
        let tile_refs: Vec<&Tile> = tiles.iter().map(|t| &**t).collect();
        let members: Vec<View> = group
            .iter()
            .map(|r| match regs.get(*r as usize) {
                Some(Val::View(v)) => Ok((**v).clone()),
                _ => fault("a group member is not a GM view"),
            })
            .collect::<Result<_, _>>()?;
        let name = op_short(op);
        let gm = self.gm;
        let mut result = None;
        if matches!(
            op,
            CommOp::Broadcast | CommOp::Gather | CommOp::Scatter | CommOp::Reduce
        ) {
            let root = match attr(attrs, "root") {
                Some(AttrVal::Int(r)) => Some(*r),
                _ => None,
            };
            cm::check_root(name, root, members.len())?;
        }
        match op {
            CommOp::Put | CommOp::Get => {
                let (d, s) = (view(0)?, view(1)?);
                cm::check_staging(&tile_refs, d.elem, name)?;
                let how = match sym("atomicType") {
                    None => Combine::Store,
                    Some(a) => Combine::parse(&a)
                        .ok_or_else(|| Fault::Msg(format!("{name}: unknown atomicType {a}")))?,
                };
                cm::transfer(gm, &d, &s, how)?;
                if how == Combine::Store {
                    self.log_comm(inst, &d, &s)?;
                }
            }
            CommOp::PutAsync | CommOp::GetAsync => {
                let (d, s) = (view(0)?, view(1)?);
                cm::transfer(gm, &d, &s, Combine::Store)?;
                self.log_comm(inst, &d, &s)?;
                let ev = self.next_event;
                self.next_event += 1;
                // a get's destination and a put's source stay in use until the wait
                let (busy, reads_ok) = if op == CommOp::GetAsync {
                    (&d, false)
                } else {
                    (&s, true)
                };
                let (lo, hi) = cm::extent(busy)?;
                self.pending.push(Pending {
                    lo,
                    hi,
                    reads_ok,
                    event: ev,
                    inst,
                });
                result = Some(Val::Int(ev));
            }
            CommOp::Session => result = Some(Val::Int(0)),
            CommOp::WaitEvent | CommOp::TestEvent => {
                let ev = int(0)?;
                self.pending.retain(|p| p.event != ev);
                result = Some(Val::Int(1));
            }
            CommOp::Notify => {
                let sig = view(0)?;
                let v = cm::signal_value(name, int(1)?)?;
                let add = match sym("notifyOp").map(|o| o.to_ascii_lowercase()).as_deref() {
                    Some("atomic_add") | Some("atomicadd") | Some("add") => true,
                    Some("set") => false,
                    Some(o) => return fault(format!("tnotify: unknown notifyOp {o}")),
                    None => {
                        return fault("tnotify needs {notifyOp = #pto<notify_op set|atomic_add>}")
                    }
                };
                // the clock is published before the signal changes, under
                // the lock a waiter tests the signal under: a rank that sees
                // the new value also sees the clock (joined after the GM
                // update, a waiter on another thread could pass and read the
                // old clock, a false rank-race)
                let vc = self.rclock.as_mut().map(|rc| rc.notify());
                let mut clocks = vc.as_ref().and_then(|_| self.world.sig_clocks.lock().ok());
                if let (Some(vc), Some(m)) = (&vc, &mut clocks) {
                    xblock::join(m.entry(sig.base).or_default(), vc);
                }
                cm::notify(gm, &sig, v, add)?;
                drop(clocks);
                self.world.epoch.fetch_add(1, Ordering::Relaxed);
            }
            CommOp::Wait | CommOp::Test => {
                let sig = view(0)?;
                let v = cm::signal_value(name, int(1)?)?;
                let cmp = match sym("cmp") {
                    None => {
                        return fault(format!(
                            "{name} needs {{cmp = #pto<wait_cmp eq|ne|gt|ge|lt|le>}}"
                        ))
                    }
                    Some(c) => WaitCmp::parse(&c)
                        .ok_or_else(|| Fault::Msg(format!("{name}: unknown cmp {c}")))?,
                };
                // tested under the notifiers' lock (see Notify)
                let clocks = self
                    .rclock
                    .as_ref()
                    .and_then(|_| self.world.sig_clocks.lock().ok());
                let ok = cm::test(gm, &sig, v, cmp)?.is_ok();
                let seen = clocks
                    .as_ref()
                    .filter(|_| ok)
                    .and_then(|m| m.get(&sig.base).cloned());
                drop(clocks);
                if let (Some(rc), Some(vc)) = (&mut self.rclock, seen) {
                    rc.acquire(&vc);
                }
                if op == CommOp::Test {
                    result = Some(Val::Int(ok as i64));
                } else if !ok {
                    return Ok(Flow::Block(Blocked::Signal {
                        sig: Box::new(sig),
                        value: v,
                        cmp,
                    }));
                }
            }
            CommOp::Broadcast | CommOp::Gather | CommOp::Scatter => {
                let v = view(0)?;
                cm::check_staging(&tile_refs, v.elem, name)?;
                match op {
                    CommOp::Broadcast => cm::broadcast(gm, &v, &members)?,
                    CommOp::Gather => cm::gather(gm, &v, &members)?,
                    _ => cm::scatter(gm, &v, &members)?,
                }
            }
            CommOp::Reduce => {
                let d = view(0)?;
                cm::check_staging(&tile_refs, d.elem, name)?;
                let how = match sym("reduceOp") {
                    None => Combine::Sum,
                    Some(a) => match Combine::parse(&a) {
                        Some(Combine::Store) | None => {
                            return fault(format!("treduce: unknown reduceOp {a}"))
                        }
                        Some(c) => c,
                    },
                };
                cm::reduce(gm, &d, &members, how)?;
            }
        }
        if matches!(op, CommOp::Put | CommOp::Broadcast | CommOp::Scatter) {
            self.world.epoch.fetch_add(1, Ordering::Relaxed);
        }
        if let (Some(d), Some(v)) = (dst, result) {
            self.cores[ci].arch.regs[d as usize] = v;
        }
        Ok(Flow::Next)
    }

    /// Logs what a non-atomic put or get (`d` <- `s`) writes and reads, run by
    /// run, for the cross-rank check.
    fn log_comm(&mut self, inst: InstId, d: &View, s: &View) -> Result<(), Fault> {
        let (Some(log), Some(rc)) = (&mut self.xlog, &self.rclock) else {
            return Ok(());
        };
        let snap = rc.snap();
        for (v, write) in [(s, false), (d, true)] {
            for (lo, hi) in exec::comm::runs(v)? {
                log.note(lo, hi, write, snap, inst);
            }
        }
        Ok(())
    }

    /// A core's party index in a FIFO: the cube is 0, a vector subblock its index.
    fn party(k: CoreKind) -> usize {
        match k {
            CoreKind::Vector(s) => s as usize,
            _ => 0,
        }
    }

    /// Faults unless core `ci` is the cube (`cube`) or a vector subblock of a
    /// mixed cluster.
    fn fifo_role(&self, ci: usize, cube: bool, what: &str) -> Result<(), Fault> {
        match (self.cores[ci].kind, cube) {
            (CoreKind::Cube, true) | (CoreKind::Vector(_), false) => Ok(()),
            (CoreKind::Plain, _) => fault(format!(
                "{what} needs a mixed kernel: an entry that calls a cube and a vector function (pto.kernel_kind), or pto.section.cube/pto.section.vector"
            )),
            _ => fault(format!(
                "{what} runs on the {} core only",
                if cube { "cube" } else { "vector" }
            )),
        }
    }

    /// The scalar unit's part of the FIFO protocol: buffer placement, pipe
    /// init, pops (which block until the entry is pushed), and issuing pushes
    /// and frees to the pipe that performs them.
    fn su_fifo(&mut self, ci: usize, inst: &Inst) -> Result<Flow, Fault> {
        let kind = self.cores[ci].kind;
        let func = &self.prog.funcs[self.cores[ci].su.func].name;
        let no_pipe = |id: u32| {
            Fault::Msg(format!(
                "FIFO pipe {id}: no pto.aic_initialize_pipe/aiv_initialize_pipe with that id has run"
            ))
        };
        match &inst.k {
            K::ReserveBuf {
                dst,
                name,
                size,
                space,
                base,
            } => {
                let a = match (base, self.reserved_at.get(&(ci, inst.id))) {
                    (Some(b), _) => *b,
                    (None, Some(a)) => *a,
                    (None, None) => {
                        let c = &mut self.cores[ci].arch;
                        let i = space.local_index().unwrap_or(0);
                        let a = c.bump[i];
                        let cap = c.local.size(*space);
                        if a.checked_add(*size).is_none_or(|e| e > cap) {
                            return fault(format!(
                                "reserve_buffer \"{name}\" needs {size} bytes at offset {a} of {}, which holds {cap}",
                                space.name()
                            ));
                        }
                        c.bump[i] = (a + size).div_ceil(512) * 512;
                        a
                    }
                };
                self.cores[ci].arch.local.slice(*space, a, *size)?;
                self.reserved_at.insert((ci, inst.id), a);
                self.reserved
                    .entry((func.clone(), name.clone()))
                    .or_insert(a);
                self.cores[ci].arch.regs[*dst as usize] = Val::Int(a as i64);
                Ok(Flow::Next)
            }
            K::ImportBuf { dst, name, peer } => {
                match self.reserved.get(&(peer.clone(), name.clone())) {
                    Some(a) => {
                        self.cores[ci].arch.regs[*dst as usize] = Val::Int(*a as i64);
                        Ok(Flow::Next)
                    }
                    None => Ok(Flow::Block(Blocked::Import {
                        peer: peer.clone(),
                        name: name.clone(),
                    })),
                }
            }
            K::PipeInit(p) => {
                let regs = &self.cores[ci].arch.regs;
                let addr = |r: Option<Reg>| -> Result<Option<u64>, Fault> {
                    r.map(|r| rd_int(regs, r).map(|v| v.max(0) as u64))
                        .transpose()
                };
                let (c2v_buf, v2c_buf) = (addr(p.c2v_buf)?, addr(p.v2c_buf)?);
                let gm = p.gm_tensor.and_then(|r| match regs.get(r as usize) {
                    Some(Val::View(v)) => Some((**v).clone()),
                    _ => None,
                });
                let num = p.slot_num.unwrap_or(if p.dir_mask == 3 { 4 } else { 8 });
                for (bit, c2v, buf) in [(1, true, c2v_buf), (2, false, v2c_buf)] {
                    if p.dir_mask & bit == 0 {
                        continue;
                    }
                    let f = self
                        .fifos
                        .entry((p.id, c2v))
                        .or_insert_with(|| crate::fifo::Fifo::new(c2v, num, p.slot_size));
                    if f.slot_size != p.slot_size || f.slot_num != num {
                        return fault(format!(
                            "FIFO pipe {}: this init says {num} slots of {} bytes, an earlier one {} of {}",
                            p.id, p.slot_size, f.slot_num, f.slot_size
                        ));
                    }
                    if buf.is_some() {
                        f.base = buf;
                    }
                    if gm.is_some() {
                        f.gm = gm.clone();
                    }
                    if c2v && p.epilogue.is_some() {
                        f.epilogue = p.epilogue.clone();
                    }
                }
                Ok(Flow::Next)
            }
            K::SetQuant { id, src, vector } => {
                let q = match (vector, self.cores[ci].arch.regs.get(*src as usize)) {
                    (true, Some(Val::Tile(t))) => {
                        if t.loc != pto_asm::ty::TileLoc::Scaling {
                            return fault(format!(
                                "set_quant_vector: the quant tile must be loc=scaling, found loc={}",
                                t.loc.name()
                            ));
                        }
                        crate::fifo::QuantReg::Vector(t.clone())
                    }
                    (false, Some(Val::Float(f))) => crate::fifo::QuantReg::Scalar(*f as f32),
                    (v, other) => {
                        return fault(format!(
                            "{} expects {}, found {}",
                            if *v {
                                "set_quant_vector"
                            } else {
                                "set_quant_scalar"
                            },
                            if *v { "a scaling tile" } else { "an f32 scale" },
                            other.map_or("nothing", |x| x.kind())
                        ))
                    }
                };
                self.quant_regs.insert((ci, *id), q);
                Ok(Flow::Next)
            }
            K::FifoPush {
                id,
                c2v,
                split,
                entry,
            } => {
                let what = if *c2v { "tpush_to_aiv" } else { "tpush_to_aic" };
                self.fifo_role(ci, *c2v, what)?;
                let tile = match self.cores[ci].arch.regs.get(*entry as usize) {
                    Some(Val::Tile(t)) => Some(t.clone()),
                    Some(Val::View(_)) => None,
                    other => {
                        return fault(format!(
                            "{what} pushes a tile or a GM entry, not {}",
                            other.map_or("nothing", |v| v.kind())
                        ))
                    }
                };
                let pipe = if *c2v { Pipe::Fix } else { Pipe::Mte3 };
                self.issue_or_block(
                    ci,
                    slot(pipe),
                    inst.id,
                    Resolved::FifoPush {
                        id: *id,
                        c2v: *c2v,
                        split: *split,
                        tile,
                        quant: self.quant_regs.get(&(ci, *id)).cloned(),
                    },
                )
            }
            K::FifoPop {
                id,
                c2v,
                split,
                dst,
                tile,
            } => {
                let what = if *c2v {
                    "tpop_from_aic"
                } else {
                    "tpop_from_aiv"
                };
                self.fifo_role(ci, !*c2v, what)?;
                let _ = split;
                let c = Self::party(kind);
                let f = self
                    .fifos
                    .get_mut(&(*id, *c2v))
                    .ok_or_else(|| no_pipe(*id))?;
                if f.entry_ready(c).is_err() {
                    return Ok(Flow::Block(Blocked::FifoPop { id: *id, c2v: *c2v }));
                }
                let m = f.pops[c];
                f.pops[c] += 1;
                let off = f.slot_offset(m);
                let marks: Vec<crate::fifo::Mark> = f
                    .pushes
                    .iter()
                    .filter_map(|v| v.get(m as usize).cloned())
                    .collect();
                let val = match tile {
                    Some((tb, elem)) => {
                        let base = f.base.ok_or_else(|| {
                            Fault::Msg(format!(
                                "{what} on pipe {id}: the init names no consumer buffer for this direction"
                            ))
                        })?;
                        Val::Tile(Box::new(Tile {
                            loc: tb.loc,
                            addr: base.saturating_add(off),
                            elem: *elem,
                            rows: tb.rows,
                            cols: tb.cols,
                            v_row: tb.v_row.unwrap_or(tb.rows),
                            v_col: tb.v_col.unwrap_or(tb.cols),
                            blayout: tb.blayout,
                            slayout: tb.slayout,
                            fractal: tb.fractal,
                            pad: tb.pad,
                        }))
                    }
                    None => {
                        let mut v = f.gm.clone().ok_or_else(|| {
                            Fault::Msg(format!(
                                "{what} on pipe {id} returns a GM entry, but the init has no gm_slot_tensor"
                            ))
                        })?;
                        v.base = v.base.saturating_add(off);
                        Val::View(Box::new(v))
                    }
                };
                // the pop happens after every push of its entry
                let a = Self::agent(ci, 0);
                for mk in marks {
                    if let (Some(ck), Some(v)) = (&mut self.checker, &mk.vc) {
                        ck.join(a, v);
                    }
                    let su = &mut self.cores[ci].su;
                    su.time = su.time.max(mk.time);
                }
                self.cores[ci].arch.regs[*dst as usize] = val;
                Ok(Flow::Next)
            }
            K::FifoAlloc { id, c2v, dst } => {
                let what = if *c2v {
                    "talloc_to_aiv"
                } else {
                    "talloc_to_aic"
                };
                self.fifo_role(ci, *c2v, what)?;
                let p = Self::party(kind);
                let f = self
                    .fifos
                    .get_mut(&(*id, *c2v))
                    .ok_or_else(|| no_pipe(*id))?;
                let n = f.allocs[p];
                if f.slot_free(p, n).is_err() {
                    return Ok(Flow::Block(Blocked::FifoAlloc { id: *id, c2v: *c2v }));
                }
                f.allocs[p] += 1;
                let mut v = f.gm.clone().ok_or_else(|| {
                    Fault::Msg(format!(
                        "{what} on pipe {id}: the init has no gm_slot_tensor"
                    ))
                })?;
                v.base = v.base.saturating_add(f.slot_offset(n));
                let marks: Vec<crate::fifo::Mark> = if n >= f.slot_num {
                    f.frees
                        .iter()
                        .filter_map(|v| v.get((n - f.slot_num) as usize).cloned())
                        .collect()
                } else {
                    Vec::new()
                };
                // writing the slot happens after every consumer freed it
                let a = Self::agent(ci, 0);
                for mk in marks {
                    if let (Some(ck), Some(v)) = (&mut self.checker, &mk.vc) {
                        ck.join(a, v);
                    }
                    let su = &mut self.cores[ci].su;
                    su.time = su.time.max(mk.time);
                }
                self.cores[ci].arch.regs[*dst as usize] = Val::View(Box::new(v));
                Ok(Flow::Next)
            }
            K::FifoFree { id, c2v, .. } => {
                let what = if *c2v {
                    "tfree_from_aic"
                } else {
                    "tfree_from_aiv"
                };
                self.fifo_role(ci, !*c2v, what)?;
                let pipe = if *c2v { Pipe::V } else { Pipe::Mte1 };
                self.issue_or_block(
                    ci,
                    slot(pipe),
                    inst.id,
                    Resolved::FifoFree { id: *id, c2v: *c2v },
                )
            }
            _ => fault("internal: not a FIFO op"),
        }
    }

    /// A push at the head of its pipe (its slot is free): copies the entry
    /// into the consumers' slot and records it for their pops.
    #[allow(clippy::too_many_arguments)]
    fn exec_push(
        &mut self,
        ci: usize,
        s: usize,
        inst: InstId,
        id: u32,
        (c2v, split): (bool, u32),
        tile: Option<&Tile>,
        quant: Option<&crate::fifo::QuantReg>,
        start: u64,
    ) -> Result<(), Fault> {
        let agent = Self::agent(ci, s);
        let p = Self::party(self.cores[ci].kind);
        let f = self.fifos.get(&(id, c2v)).ok_or_else(|| {
            Fault::Msg(format!(
                "FIFO pipe {id}: no pto.aic_initialize_pipe/aiv_initialize_pipe with that id has run"
            ))
        })?;
        let n = f.pushes[p].len() as u64;
        // the slot is reused after every consumer freed its previous entry
        if n >= f.slot_num {
            for fr in &f.frees {
                if let (Some(ck), Some(v)) = (
                    &mut self.checker,
                    fr.get((n - f.slot_num) as usize)
                        .and_then(|m| m.vc.as_ref()),
                ) {
                    ck.join(agent, v);
                }
            }
        }
        let (base, off, slot_size) = (f.base, f.slot_offset(n), f.slot_size);
        let epilogue = f.epilogue.clone();
        if let Some(t) = tile {
            let base = base.ok_or_else(|| {
                Fault::Msg(format!(
                    "FIFO pipe {id}: the init names no consumer buffer for this direction"
                ))
            })?;
            let targets: Vec<(usize, i64)> = self
                .cores
                .iter()
                .enumerate()
                .filter_map(|(k, c)| match (c.kind, c2v) {
                    (CoreKind::Vector(v), true) => Some((k, v as i64)),
                    // without a split only subblock 0 carries the data
                    (CoreKind::Cube, false) if split != 0 || p == 0 => Some((k, p as i64)),
                    _ => None,
                })
                .collect();
            for (k, sub) in targets {
                let on = self.checker.is_some();
                let mut sacc = Accesses {
                    on,
                    list: Vec::new(),
                };
                let mut dacc = Accesses {
                    on,
                    list: Vec::new(),
                };
                let (src, dst) = if ci < k {
                    let (a, b) = self.cores.split_at_mut(k);
                    (&a[ci], &mut b[0])
                } else {
                    let (a, b) = self.cores.split_at_mut(ci);
                    (&b[0], &mut a[k])
                };
                // a cube-to-vector pipe's FIXPIPE epilogue converts acc tiles
                let conv = match (&epilogue, c2v) {
                    (Some(e), true) if t.loc == pto_asm::ty::TileLoc::Acc => {
                        let consumer = self.prog.funcs.iter().find_map(|f| {
                            f.code.iter().find_map(|i| match &i.k {
                                K::FifoPop {
                                    id: pid,
                                    c2v: true,
                                    tile: Some((_, d)),
                                    ..
                                } if *pid == id => Some(*d),
                                _ => None,
                            })
                        });
                        Some(crate::fifo::EpConv::new(
                            e,
                            t.elem,
                            consumer,
                            quant,
                            t.v_col,
                            &src.arch.local,
                            &mut sacc,
                        )?)
                    }
                    _ => None,
                };
                crate::fifo::copy_entry(
                    &src.arch.local,
                    t,
                    &mut dst.arch.local,
                    base.saturating_add(off),
                    c2v,
                    split,
                    sub,
                    slot_size,
                    conv.as_ref(),
                    &mut sacc,
                    &mut dacc,
                )?;
                let list: Vec<(usize, exec::Access)> = sacc
                    .list
                    .into_iter()
                    .map(|a| (ci, a))
                    .chain(dacc.list.into_iter().map(|a| (k, a)))
                    .collect();
                for (core, a) in list {
                    let mut out = std::mem::take(&mut self.conflicts);
                    if let Some(ck) = &mut self.checker {
                        ck.access(agent, inst, core, &a, &mut out);
                    }
                    for c in out.drain(..) {
                        self.report_conflict(&c);
                    }
                    self.conflicts = out;
                }
            }
        }
        let vc = self.checker.as_ref().map(|ck| ck.vc[agent]);
        if let Some(f) = self.fifos.get_mut(&(id, c2v)) {
            f.pushes[p].push(crate::fifo::Mark {
                vc,
                time: start + 1,
                inst,
            });
        }
        Ok(())
    }

    /// A consumer's `tfree` on its pipe: releases its oldest popped entry.
    fn exec_free(
        &mut self,
        ci: usize,
        s: usize,
        inst: InstId,
        id: u32,
        c2v: bool,
        start: u64,
    ) -> Result<(), Fault> {
        let agent = Self::agent(ci, s);
        let c = Self::party(self.cores[ci].kind);
        let vc = self.checker.as_ref().map(|ck| ck.vc[agent]);
        let f = self.fifos.get_mut(&(id, c2v)).ok_or_else(|| {
            Fault::Msg(format!(
                "FIFO pipe {id}: no pto.aic_initialize_pipe/aiv_initialize_pipe with that id has run"
            ))
        })?;
        if f.frees[c].len() as u64 >= f.pops[c] {
            return fault(format!(
                "tfree on FIFO pipe {id} with no popped entry left to free ({} popped, {} freed)",
                f.pops[c],
                f.frees[c].len()
            ));
        }
        f.frees[c].push(crate::fifo::Mark {
            vc,
            time: start + 1,
            inst,
        });
        Ok(())
    }

    #[inline(always)]
    fn issue_or_block(
        &mut self,
        ci: usize,
        s: usize,
        inst: InstId,
        r: Resolved,
    ) -> Result<Flow, Fault> {
        if self.cores[ci].queues[s].len() >= QUEUE_DEPTH {
            return Ok(Flow::Block(Blocked::Queue(s)));
        }
        self.issue(ci, s, inst, r);
        Ok(Flow::Issued)
    }

    /// Register `r` of core `ci` as `what`, through `pick`; a fault naming
    /// the value otherwise.
    fn reg_as<T>(
        &self,
        ci: usize,
        r: Reg,
        what: &str,
        pick: impl Fn(&Val) -> Option<T>,
    ) -> Result<T, Fault> {
        match self.cores[ci].arch.regs.get(r as usize) {
            Some(v) => pick(v).ok_or_else(|| {
                Fault::Msg(format!(
                    "expected {what} in {}, found {}",
                    self.prog.value_names[r as usize],
                    v.kind()
                ))
            }),
            None => fault("bad register"),
        }
    }

    fn tile(&self, ci: usize, r: Reg) -> Result<Box<Tile>, Fault> {
        self.reg_as(ci, r, "a tile", |v| match v {
            Val::Tile(t) => Some(t.clone()),
            _ => None,
        })
    }

    fn view(&self, ci: usize, r: Reg) -> Result<Box<View>, Fault> {
        self.reg_as(ci, r, "a GM view", |v| match v {
            Val::View(x) => Some(x.clone()),
            _ => None,
        })
    }

    #[inline]
    fn ptr(&self, ci: usize, r: Reg) -> Result<Ptr, Fault> {
        if let Some(Val::Ptr(p)) = self.cores[ci].arch.regs.get(r as usize) {
            return Ok(*p);
        }
        self.reg_as(ci, r, "a pointer", |v| match v {
            Val::Ptr(p) => Some(*p),
            _ => None,
        })
    }

    fn num(&self, ci: usize, r: Reg) -> Result<Num, Fault> {
        self.reg_as(ci, r, "a scalar", |v| match v {
            Val::Int(i) => Some(Num::I(*i)),
            Val::Float(f) => Some(Num::F(*f)),
            _ => None,
        })
    }

    /// `t` in a box of core `ci`'s pool of executed transfers (a new one
    /// when the pool is empty).
    #[inline]
    fn xfer(&self, ci: usize, t: Transfer) -> Box<Transfer> {
        match self.cores[ci].su.xfers.borrow_mut().pop() {
            Some(mut b) => {
                *b = t;
                b
            }
            None => Box::new(t),
        }
    }

    /// A transfer box of core `ci`'s pool to resolve a DMA into, every
    /// field of which the caller sets (a new one when the pool is empty).
    #[inline]
    fn xfer_box(&self, ci: usize) -> Box<Transfer> {
        match self.cores[ci].su.xfers.borrow_mut().pop() {
            Some(b) => b,
            None => {
                let p = Ptr {
                    space: Space::Gm,
                    addr: 0,
                    elem: DType::U8,
                };
                Box::new(Transfer {
                    dir: DmaDir::GmToUb,
                    src: p,
                    dst: p,
                    len: 0,
                    levels: exec::dma::Short::new(),
                    pad: None,
                    atomic: None,
                })
            }
        }
    }

    fn resolve(&self, ci: usize, op: &PipeOp) -> Result<Resolved, Fault> {
        let regs = &self.cores[ci].arch.regs;
        Ok(match op {
            PipeOp::Tile {
                op,
                ins,
                outs,
                attrs,
            } => {
                let vals = |rs: &[Reg]| -> Vec<Val> {
                    rs.iter().map(|r| regs[*r as usize].clone()).collect()
                };
                Resolved::Tile(Box::new(exec::tile_ops::TileCall {
                    op: *op,
                    ins: vals(ins),
                    outs: vals(outs),
                    attrs: attrs.clone(),
                }))
            }
            PipeOp::TLoad { src, dst } => {
                Resolved::TLoad(self.view(ci, *src)?, self.tile(ci, *dst)?)
            }
            PipeOp::TStore { src, dst, atomic } => {
                Resolved::TStore(self.tile(ci, *src)?, self.view(ci, *dst)?, *atomic)
            }
            PipeOp::TEw { op, a, b, dst } => Resolved::TEw(
                *op,
                self.tile(ci, *a)?,
                match b {
                    Some(b) => Some(self.tile(ci, *b)?),
                    None => None,
                },
                self.tile(ci, *dst)?,
            ),
            PipeOp::TEws {
                op,
                a,
                s,
                scalar_first,
                dst,
            } => Resolved::TEws(
                *op,
                self.tile(ci, *a)?,
                self.num(ci, *s)?,
                *scalar_first,
                self.tile(ci, *dst)?,
            ),
            PipeOp::TExpands { s, dst } => {
                Resolved::TExpands(self.num(ci, *s)?, self.tile(ci, *dst)?)
            }
            PipeOp::Dma {
                dir,
                src,
                dst,
                len,
                nburst,
                loops,
                pad,
            } => {
                let int = |r: Reg| rd_int(regs, r);
                // resolved in place into a pooled transfer (no allocation,
                // no moves of the whole record); operands are read in the
                // same order as ever, so the first bad one faults
                let mut b = self.xfer_box(ci);
                let t = &mut *b;
                let mut len = int(*len)?.max(0) as u64;
                t.levels.clear();
                t.levels.push((
                    int(nburst[0])?.max(0) as u64,
                    int(nburst[1])?,
                    int(nburst[2])?,
                ));
                if *dir == DmaDir::UbToUb {
                    // mte_ub_ub counts its length and its gaps (end of one burst
                    // to the start of the next) in 32-byte units
                    let units = len as i64;
                    len = len.saturating_mul(32);
                    let l = &mut t.levels[0];
                    l.1 = units.saturating_add(l.1).saturating_mul(32);
                    l.2 = units.saturating_add(l.2).saturating_mul(32);
                }
                for l in loops {
                    t.levels
                        .push((int(l[0])?.max(0) as u64, int(l[1])?, int(l[2])?));
                }
                let dstp = self.ptr(ci, *dst)?;
                t.pad = match pad {
                    Some(p) => {
                        let v = self.num(ci, *p)?;
                        let mut b = [0u8; 16];
                        let n = dstp.elem.bytes();
                        let b = b.get_mut(..n).ok_or_else(|| {
                            Fault::Msg(format!("no pad value of {n}-byte elements"))
                        })?;
                        crate::num::write(b, dstp.elem, v);
                        Some(exec::dma::Short::from(&*b))
                    }
                    None => None,
                };
                t.atomic = self.cores[ci].arch.loop_regs.atomic_for(*dir);
                t.src = self.ptr(ci, *src)?;
                t.dst = dstp;
                t.dir = *dir;
                t.len = len;
                Resolved::Dma(b)
            }
            PipeOp::DmaLegacy {
                dir,
                src,
                dst,
                n_burst,
                len,
                src_stride,
                dst_stride,
                select,
            } => {
                let int = |r: Reg| rd_int(regs, r);
                let lr = self.cores[ci].arch.loop_regs;
                // data_select_bit: each UB row padded to 32 bytes with the
                // set_mov_pad_val register
                let pad = match select {
                    Some(s) if int(*s)? != 0 => match lr.mov_pad {
                        Some((b, w)) => Some(exec::dma::Short::from(&b[..w as usize])),
                        None => {
                            return fault(
                                "copy_gm_to_ubuf with data_select_bit = true needs a pad value: set it with pto.set_mov_pad_val first",
                            )
                        }
                    },
                    _ => None,
                };
                let k = if *dir == DmaDir::GmToUb { 0 } else { 1 };
                let levels = exec::dma::Short::from(
                    &[
                        (
                            int(*n_burst)?.max(0) as u64,
                            int(*src_stride)?,
                            int(*dst_stride)?,
                        ),
                        (lr.size[k].0, lr.loop1[k].0, lr.loop1[k].1),
                        (lr.size[k].1, lr.loop2[k].0, lr.loop2[k].1),
                    ][..],
                );
                Resolved::Dma(self.xfer(
                    ci,
                    Transfer {
                        dir: *dir,
                        src: self.ptr(ci, *src)?,
                        dst: self.ptr(ci, *dst)?,
                        len: int(*len)?.max(0) as u64,
                        levels,
                        pad,
                        atomic: lr.atomic_for(*dir),
                    },
                ))
            }
            PipeOp::Cube { op, regs: rs, form } => Resolved::Cube(Box::new(exec::cube::CubeCall {
                op: *op,
                vals: rs.iter().map(|r| regs[*r as usize].clone()).collect(),
                form: form.clone(),
                ctrl: self.ctrl[ci],
                nz_para: self.cores[ci].arch.loop_regs.nz_para,
                fix: self.cores[ci].arch.loop_regs.fix,
                outtol1: self.cores[ci].arch.loop_regs.outtol1,
            })),
        })
    }

    // ───────────── pipes ─────────────

    #[inline(never)]
    fn latency(&self, r: &Resolved, vec_ops: u64) -> u64 {
        let isa = |c: Class, bytes: u64| pto_isa_spec::latency(c, bytes);
        match r {
            Resolved::Tile(call) => {
                let bytes = call
                    .outs
                    .iter()
                    .map(|v| match v {
                        Val::Tile(t) => (t.v_row * t.v_col) as u64 * t.elem.bytes() as u64,
                        _ => 0,
                    })
                    .sum();
                isa(call.op.info().class, bytes)
            }
            Resolved::TLoad(_, t) | Resolved::TStore(t, _, _) => isa(
                Class::TileMemory,
                (t.v_row * t.v_col) as u64 * t.elem.bytes() as u64,
            ),
            Resolved::TEw(_, _, _, t)
            | Resolved::TEws(_, _, _, _, t)
            | Resolved::TExpands(_, t) => isa(
                Class::Elementwise,
                (t.v_row * t.v_col) as u64 * t.elem.bytes() as u64,
            ),
            Resolved::Dma(t) => isa(
                Class::Dma,
                // saturating: hostile counts fault in the transfer, not here
                t.levels.iter().fold(t.len, |b, l| b.saturating_mul(l.0)),
            ),
            Resolved::Vec { .. } => isa(Class::VecCompute, 0) + vec_ops,
            Resolved::Cube(call) => isa(call.op.info().class, 0),
            _ => isa(Class::Sync, 0),
        }
    }

    /// When a pipe op that may start at `start` runs: (start, end) in
    /// cycles under `timed`, else the scheduler step it takes.
    #[inline(always)]
    fn span(&self, start: u64, r: &Resolved, vec_ops: u64) -> (u64, u64) {
        match self.cfg.sched {
            Sched::Timed => (start, start + self.latency(r, vec_ops)),
            _ => (self.steps, self.steps + 1),
        }
    }

    /// Runs the head of pipe queue `s` of core `ci`, which may start at
    /// `start`: a synchronization op by [`Self::step_sync`], anything else
    /// by [`Self::step_op`] (each with its own stack frame: the sync ops,
    /// most pipe steps, do not pay for the large one).
    #[inline(always)]
    fn step_pipe(&mut self, ci: usize, s: usize, start: u64) -> Result<(), RunError> {
        if matches!(
            self.cores[ci].queues[s].front().map(|h| &h.r),
            Some(Resolved::Set { .. } | Resolved::Wait { .. } | Resolved::Barrier)
        ) {
            self.step_sync(ci, s, start);
            return Ok(());
        }
        self.step_op(ci, s, start)
    }

    #[inline(never)]
    fn step_op(&mut self, ci: usize, s: usize, start: u64) -> Result<(), RunError> {
        let Some(h) = self.cores[ci].queues[s].pop_front() else {
            return Ok(());
        };
        let agent = Self::agent(ci, s);
        self.count(h.inst);
        if let Some(ck) = &mut self.checker {
            ck.tick(agent);
            if h.vc != NO_CLOCK {
                self.clocks.join(ck, agent, Self::agent(ci, 0), h.vc, h.own);
            }
        }
        // the access lists are only filled for the checker (and a watched
        // op, whose report may show what it wrote)
        let checking = self.checker.is_some();
        let watched = self
            .watcher
            .as_ref()
            .is_some_and(|w| w.watches(self.prog, h.inst));
        let mut acc = Accesses {
            on: checking || watched,
            list: Vec::new(),
        };
        let mut vec_accs: Vec<(InstId, exec::Access)> = Vec::new();
        if checking {
            acc.list = std::mem::take(&mut self.acc_buf);
            acc.list.clear();
            vec_accs = std::mem::take(&mut self.vec_acc_buf);
            vec_accs.clear();
        }
        // accesses to another core's buffers: (core, access)
        let mut far: Vec<(usize, exec::Access)> = Vec::new();
        let mut vec_ops = 0;
        let mut from = None;
        let gm = self.gm;
        let res: Result<(), Fault> = match &h.r {
            Resolved::Tile(call)
                if matches!(
                    call.op,
                    pto_isa_spec::Opcode::TMatmul
                        | pto_isa_spec::Opcode::TMatmulAcc
                        | pto_isa_spec::Opcode::TMatmulBias
                        | pto_isa_spec::Opcode::TGemv
                        | pto_isa_spec::Opcode::TGemvAcc
                        | pto_isa_spec::Opcode::TGemvBias
                ) =>
            {
                crate::jitcall::run_matmul(
                    self.jit,
                    self.cfg.jit,
                    self.cfg.jit_threshold,
                    self.cfg.crosscheck,
                    call,
                    &mut self.cores[ci].arch.local,
                    &mut acc,
                )
            }
            Resolved::Tile(call) => {
                let local = &mut self.cores[ci].arch.local;
                crate::jitcall::run_row_expand(
                    self.jit,
                    self.cfg.jit,
                    self.cfg.jit_threshold,
                    self.cfg.crosscheck,
                    call,
                    local,
                    &mut acc,
                )
                .or_else(|| {
                    crate::jitrow::run_cvt(
                        self.jit,
                        self.cfg.jit,
                        self.cfg.jit_threshold,
                        self.cfg.crosscheck,
                        call,
                        local,
                        &mut acc,
                    )
                })
                .or_else(|| {
                    crate::jitrow::run_row_reduce(
                        self.jit,
                        self.cfg.jit,
                        self.cfg.jit_threshold,
                        self.cfg.crosscheck,
                        call,
                        local,
                        &mut acc,
                    )
                })
                .unwrap_or_else(|| exec::tile_ops::run(call, gm, local, &mut acc))
            }
            Resolved::TLoad(v, t) => crate::jitcall::run_dma(
                self.jit,
                self.cfg.jit,
                self.cfg.jit_threshold,
                true,
                gm,
                v,
                t,
                &mut self.cores[ci].arch.local,
                &mut acc,
            ),
            Resolved::TStore(t, v, Combine::Store) => crate::jitcall::run_dma(
                self.jit,
                self.cfg.jit,
                self.cfg.jit_threshold,
                false,
                gm,
                v,
                t,
                &mut self.cores[ci].arch.local,
                &mut acc,
            ),
            Resolved::TStore(t, v, how) => {
                exec::tile::tstore(gm, &self.cores[ci].arch.local, t, v, *how, &mut acc)
            }
            Resolved::TEw(..) | Resolved::TEws(..) => self.run_tew(ci, s, &h, &mut acc),
            Resolved::TExpands(sv, d) => {
                exec::tile::texpands(&mut self.cores[ci].arch.local, *sv, d, &mut acc)
            }
            Resolved::Dma(t) => exec::dma::run(gm, &mut self.cores[ci].arch.local, t, &mut acc),
            Resolved::Cube(call) => {
                // the cube core of a mixed cluster (core 0) reaches the vector
                // subblocks' UB through FIXPIPE and MTE1
                let cube = self.cores[ci].kind == CoreKind::Cube;
                let (head, tail) = self.cores.split_at_mut(ci + 1);
                let subs = if cube {
                    tail.iter_mut().map(|c| &mut c.arch.local).collect()
                } else {
                    Vec::new()
                };
                // a vector core of a mixed cluster reaches the cube's L1
                // (copy_ubuf_to_cbuf); the cube core is core 0
                let (cube_core, rest) = head.split_at_mut(ci);
                let cube_local = match cube_core.first_mut() {
                    Some(c) if !cube && c.kind == CoreKind::Cube => Some(&mut c.arch.local),
                    _ => None,
                };
                match rest.first_mut() {
                    Some(me) => {
                        let arch = &mut me.arch;
                        let mut mem = exec::cube::Mem {
                            gm,
                            local: &mut arch.local,
                            mx: &mut arch.mx,
                            subs,
                            cube: cube_local,
                            acc: &mut acc,
                            far: Vec::new(),
                        };
                        let r = if exec::cube::is_mad(call.op) {
                            crate::jitcall::run_mad(
                                self.jit,
                                self.cfg.jit,
                                self.cfg.jit_threshold,
                                self.cfg.crosscheck,
                                call,
                                &mut mem,
                            )
                        } else {
                            exec::cube::run(call, &mut mem)
                        };
                        for (f, a) in mem.far {
                            let core = match f {
                                exec::cube::Far::Sub(n) => ci + 1 + n,
                                exec::cube::Far::Cube => 0,
                            };
                            far.push((core, a));
                        }
                        r
                    }
                    None => fault("internal: no core for the cube op"),
                }
            }
            Resolved::Vec { body, caps } => {
                self.scope_clock = match self.cfg.sched {
                    Sched::Timed => start,
                    _ => self.steps,
                };
                self.run_vecscope(ci, body, caps, &mut vec_accs, &mut vec_ops)
            }
            Resolved::Set { src, dst, id } => {
                // its token completes at the op's end
                let end = self.span(start, &h.r, 0).1;
                self.exec_set(ci, s, h.inst, *src, *dst, *id, end);
                Ok(())
            }
            Resolved::Wait { src, dst, id } => {
                if let Some(t) = self.cores[ci]
                    .sb
                    .flags
                    .get_mut(&(*src, *dst, *id))
                    .and_then(|q| q.pop_front())
                {
                    from = Some(t.from);
                    self.consume_token(ci, s, &t);
                }
                Ok(())
            }
            Resolved::Barrier => {
                if let Some(ck) = &mut self.checker {
                    ck.epoch[agent] += 1;
                }
                Ok(())
            }
            Resolved::GetBuf { id, .. } => {
                let pipe = slot_pipe(s);
                self.cores[ci].touch_all();
                let b = self.cores[ci].sb.bufs.entry(*id).or_default();
                b.holder = Some((pipe, h.inst));
                let vc = b.vc;
                if let (Some(ck), Some(v)) = (&mut self.checker, vc) {
                    ck.join(agent, &v);
                }
                Ok(())
            }
            Resolved::RlsBuf { id } => {
                let vc = self.checker.as_ref().map(|ck| ck.vc[agent]);
                let pipe = slot_pipe(s);
                self.cores[ci].touch_all();
                let b = self.cores[ci].sb.bufs.entry(*id).or_default();
                match b.holder {
                    Some((hp, _)) if hp == pipe => {
                        b.holder = None;
                        b.serving += 1;
                        b.vc = vc;
                    }
                    holder => {
                        // releasing a buffer this pipe does not hold orders nothing
                        let id = *id;
                        self.diags.report(
                            DiagKind::BadRelease,
                            Some(h.inst),
                            None,
                            || match holder {
                                Some((hp, _)) => format!("rls_buf of buffer {id} on {} while {} holds it", pipe.name(), hp.name()),
                                None => format!("rls_buf of buffer {id} on {}, which did not acquire it with get_buf", pipe.name()),
                            },
                            || Some(format!("acquire it first with pto.get_buf on {}", pipe.name())),
                        );
                    }
                }
                Ok(())
            }
            Resolved::CrossSet { id, mode2 } => {
                self.exec_cross_set(ci, s, h.inst, *id, *mode2);
                Ok(())
            }
            Resolved::CrossWait { id } => {
                self.take_cross(ci, s, *id);
                Ok(())
            }
            Resolved::FifoPush {
                id,
                c2v,
                split,
                tile,
                quant,
            } => self.exec_push(
                ci,
                s,
                h.inst,
                *id,
                (*c2v, *split),
                tile.as_deref(),
                quant.as_ref(),
                start,
            ),
            Resolved::FifoFree { id, c2v } => self.exec_free(ci, s, h.inst, *id, *c2v, start),
        };
        if let Err(f) = res {
            let at = self.scope_fault_at.take().unwrap_or(h.inst);
            return self.fault(at, f);
        }
        if watched {
            self.watch_op(ci, h.inst, &h.r, &acc.list);
        }
        let (st, end) = self.span(start, &h.r, vec_ops);
        self.cores[ci].time[s] = end;
        self.cores[ci].popped(s);
        if let Resolved::RlsBuf { id } = &h.r {
            if let Some(b) = self.cores[ci].sb.bufs.get_mut(id) {
                b.time = end;
            }
        }
        self.retire(ci, s, h.inst, (st, end), from);
        // checker
        if self.checker.is_some() {
            normalize_accesses(&mut acc);
            if self.xlog.is_some() && Self::plain_transfer(&h.r) {
                let c = &self.cores[ci];
                let epoch = match &self.rclock {
                    Some(rc) => rc.snap(),
                    None => c.su.syncalls.iter().sum::<u64>() as u32,
                };
                if let Some(log) = &mut self.xlog {
                    for a in acc.list.iter().filter(|a| a.space == Space::Gm) {
                        log.note(a.addr, a.addr.saturating_add(a.len), a.write, epoch, h.inst);
                    }
                }
            }
            for a in &acc.list {
                self.check_access(agent, h.inst, ci, a, true);
            }
            for (inst, a) in &vec_accs {
                self.check_access(agent, *inst, ci, a, true);
            }
            for (core, a) in &far {
                self.check_access(agent, h.inst, *core, a, false);
            }
        }
        if checking {
            self.acc_buf = acc.list;
            self.vec_acc_buf = vec_accs;
        }
        if let Resolved::Dma(b) = h.r {
            let mut pool = self.cores[ci].su.xfers.borrow_mut();
            if pool.len() < XFER_POOL {
                pool.push(b);
            }
        }
        Ok(())
    }

    /// [`Self::step_pipe`] for the ops most pipe steps are: `set_flag`,
    /// `wait_flag` and `pipe_barrier`, which access no memory and cannot
    /// fault, so they skip the access lists and the checks of them.
    #[inline(never)]
    fn step_sync(&mut self, ci: usize, s: usize, start: u64) {
        let Some(h) = self.cores[ci].queues[s].pop_front() else {
            return;
        };
        let agent = Self::agent(ci, s);
        self.count(h.inst);
        if let Some(ck) = &mut self.checker {
            ck.tick(agent);
            if h.vc != NO_CLOCK {
                self.clocks.join(ck, agent, Self::agent(ci, 0), h.vc, h.own);
            }
        }
        let (st, end) = self.span(start, &h.r, 0);
        let mut from = None;
        match h.r {
            Resolved::Set { src, dst, id } => {
                // its token completes at the op's end
                self.exec_set(ci, s, h.inst, src, dst, id, end);
            }
            Resolved::Wait { src, dst, id } => {
                if let Some(t) = self.cores[ci]
                    .sb
                    .flags
                    .get_mut(&(src, dst, id))
                    .and_then(|q| q.pop_front())
                {
                    from = Some(t.from);
                    self.consume_token(ci, s, &t);
                }
            }
            Resolved::Barrier => {
                if let Some(ck) = &mut self.checker {
                    ck.epoch[agent] += 1;
                }
            }
            _ => debug_assert!(false, "step_sync of a non-sync op"),
        }
        let c = &mut self.cores[ci];
        c.time[s] = end;
        c.popped(s);
        self.retire(ci, s, h.inst, (st, end), from);
    }

    /// Counts a retired pipe op in the per-pipe stats and, with `--trace`,
    /// records its trace event (shared by the sync and general pipe steps).
    #[inline]
    fn retire(
        &mut self,
        ci: usize,
        s: usize,
        inst: InstId,
        (st, end): (u64, u64),
        from: Option<(u32, Pipe, u64)>,
    ) {
        let stat = &mut self.out.stats[s];
        stat.retired += 1;
        stat.busy += end - st;
        self.out.pipe_insts += 1;
        if self.cfg.trace && self.out.trace.len() >= MAX_TRACE_EVENTS {
            self.out.trace_dropped += 1;
        } else if self.cfg.trace {
            self.out.trace.push(TraceEvent {
                block: self.rank * self.blocks + self.block,
                core: ci as u32,
                pipe: slot_pipe(s),
                inst,
                start: st,
                end,
                from,
            });
        }
    }

    /// Checks one access of a pipe op: the GM checks (when `gm`), then the
    /// happens-before checker; reports what they find.
    fn check_access(
        &mut self,
        agent: usize,
        inst: InstId,
        core: usize,
        a: &exec::Access,
        gm: bool,
    ) {
        if gm && a.space == Space::Gm {
            if !self.pending.is_empty() {
                self.check_pending(inst, a);
            }
            self.check_gm_buffer(inst, a);
        }
        if let Some(ck) = &mut self.checker {
            ck.access(agent, inst, core, a, &mut self.conflicts);
        }
        if !self.conflicts.is_empty() {
            self.report_conflicts();
        }
    }

    /// Reports the conflicts the checker found and empties the list.
    fn report_conflicts(&mut self) {
        let mut out = std::mem::take(&mut self.conflicts);
        for c in out.drain(..) {
            self.report_conflict(&c);
        }
        self.conflicts = out;
    }

    /// The scalar unit's own memory access (`load_scalar`/`store_scalar`,
    /// `ld_dev`/`st_dev`, `tgetval`/`tsetval`): it is ordered after what the
    /// scalar unit issued only through a `wait_flag` to PIPE_S or a
    /// `pipe_barrier(PIPE_ALL)`, and before what it issues later (issue
    /// edge), so the checker sees it as one step of the scalar agent.
    fn check_su_access(
        &mut self,
        ci: usize,
        inst: InstId,
        space: Space,
        addr: u64,
        len: u64,
        write: bool,
    ) {
        if self.checker.is_none() {
            return;
        }
        let agent = Self::agent(ci, 0);
        let a = exec::Access {
            space,
            addr,
            len,
            write,
        };
        if space == Space::Gm {
            if !self.pending.is_empty() {
                self.check_pending(inst, &a);
            }
            self.check_gm_buffer(inst, &a);
        }
        if let Some(ck) = &mut self.checker {
            ck.tick(agent);
            ck.access(agent, inst, ci, &a, &mut self.conflicts);
        }
        if !self.conflicts.is_empty() {
            self.report_conflicts();
        }
    }

    /// A tile elementwise op: already executed by a fused chain, the head of
    /// a chain (`jitchain`), or alone (`jitcall::run_ew`).
    fn run_tew(
        &mut self,
        ci: usize,
        s: usize,
        h: &Issued,
        acc: &mut Accesses,
    ) -> Result<(), Fault> {
        let fused = &mut self.cores[ci].fused[s];
        if fused.front().is_some_and(|f| f.0 == h.inst) {
            if let Some((_, list)) = fused.pop_front() {
                acc.list.extend(list);
            }
            return Ok(());
        }
        if !fused.is_empty() {
            return fault("internal: a fused chain's op did not follow it");
        }
        if self.cfg.jit != crate::JitMode::Off && self.cfg.jit_fuse {
            if let Some(r) = self.run_chain(ci, s, h, acc) {
                return r;
            }
        }
        let call = ew_call(&h.r).ok_or_else(|| Fault::Msg("internal: not a tile op".into()))?;
        crate::jitcall::run_ew(
            self.jit,
            self.cfg.jit,
            self.cfg.jit_threshold,
            self.cfg.crosscheck,
            &call,
            &mut self.cores[ci].arch.local,
            acc,
        )
    }

    /// Runs `h` and the ops of its run that follow it as one fused chain, if
    /// `jitchain::run` takes them. The followers are those already queued
    /// behind `h` and, after them, those the scalar unit is about to issue
    /// (it stands on the next one, so nothing can come between).
    fn run_chain(
        &mut self,
        ci: usize,
        s: usize,
        h: &Issued,
        acc: &mut Accesses,
    ) -> Option<Result<(), Fault>> {
        let site = self.jit.chains().site(self.prog, h.inst)?;
        if slot(site.pipe) != s {
            return None;
        }
        let core = &self.cores[ci];
        let q = &core.queues[s];
        let mut rs: Vec<(InstId, Resolved)> = vec![(h.inst, h.r.clone())];
        for (j, (inst, _)) in site.rest.iter().enumerate() {
            match q.get(j) {
                Some(e) if e.inst == *inst && rs.len() == j + 1 => rs.push((e.inst, e.r.clone())),
                Some(_) => break,
                None => {
                    // not issued yet: only if the scalar unit is on it now
                    let su = &core.su;
                    let next = rs.len() == j + 1
                        && q.len() == j
                        && !su.done
                        && su.func == site.func
                        && su.pc == site.pc + 1 + j
                        && matches!(su.blocked, None | Some((Blocked::Queue(_), _)));
                    if !next {
                        break;
                    }
                    for (inst, op) in &site.rest[j..] {
                        match self.resolve(ci, op) {
                            Ok(r) => rs.push((*inst, r)),
                            Err(_) => break,
                        }
                    }
                    break;
                }
            }
        }
        if rs.len() < 2 {
            return None;
        }
        let members: Vec<crate::jitchain::Member> = rs
            .iter()
            .map_while(|(inst, r)| {
                Some(crate::jitchain::Member {
                    inst: *inst,
                    call: ew_call(r)?,
                })
            })
            .collect();
        let checking = self.checker.is_some();
        let done = crate::jitchain::run(
            self.jit,
            self.cfg.jit,
            self.cfg.jit_threshold,
            self.cfg.crosscheck,
            self.prog,
            &members,
            &mut self.cores[ci].arch.local,
            checking,
        )?;
        let fused = match done {
            Ok(f) => f,
            Err(e) => return Some(Err(e)),
        };
        let mut accs = fused.accs.into_iter();
        if let Some(first) = accs.next() {
            acc.list.extend(first.list);
        }
        for (m, a) in members.iter().skip(1).zip(accs) {
            self.cores[ci].fused[s].push_back((m.inst, a.list));
        }
        Some(Ok(()))
    }

    /// A GM access outside the argument buffers.
    fn check_gm_buffer(&mut self, inst: InstId, a: &exec::Access) {
        let Some(what) = self.gm.outside_buffers(a.addr, a.len) else {
            return;
        };
        let op = self.prog.info(inst).opcode.name();
        let verb = if a.write { "writes" } else { "reads" };
        self.diags.report(
            DiagKind::GmOutOfBuffer,
            Some(inst),
            None,
            || format!("'{op}' {verb} GM {what}"),
            || Some("check the transfer's burst count, length and strides against the buffer's size".into()),
        );
    }

    /// An access to GM an asynchronous transfer still owns.
    fn check_pending(&mut self, inst: InstId, a: &exec::Access) {
        let hit = self
            .pending
            .iter()
            .find(|p| a.addr < p.hi && p.lo < a.addr + a.len && (a.write || !p.reads_ok))
            .cloned();
        let Some(p) = hit else { return };
        let prog = self.prog;
        let line = prog.info(p.inst).loc.line;
        let what = if p.reads_ok {
            "overwrites the source of"
        } else if a.write {
            "writes the destination of"
        } else {
            "reads the destination of"
        };
        let op = prog.info(p.inst).opcode.name();
        self.diags.report(
            DiagKind::AsyncBeforeWait,
            Some(inst),
            Some(p.inst),
            || format!("{what} the {op} at line {line} before its event was waited for"),
            || {
                Some(format!(
                    "call pto.comm.wait_async_event on the event of line {line} first"
                ))
            },
        );
    }

    /// `set_flag` by agent (ci, s): a token of (src, dst, id) that
    /// completes at `time` (the op's end).
    #[allow(clippy::too_many_arguments)]
    fn exec_set(
        &mut self,
        ci: usize,
        s: usize,
        inst: InstId,
        src: Pipe,
        dst: Pipe,
        id: u32,
        time: u64,
    ) {
        let agent = Self::agent(ci, s);
        let vc = self.tok_clocks.put(self.checker.as_ref(), agent);
        let c = &mut self.cores[ci];
        let q = c.sb.flags.entry((src, dst, id));
        let pending = q.len();
        let prev = q.front().map(|t| t.inst);
        q.push_back(Token {
            vc,
            time,
            inst,
            from: (ci as u32, src, time),
        });
        c.sb.flag_site.insert((src, dst, id), inst);
        c.flag_changed(slot(dst));
        if pending > 0 {
            self.diags.report(
                DiagKind::DoubleSet,
                Some(inst),
                prev,
                || {
                    format!(
                        "set_flag[{}, {}, EVENT_ID{id}] while an earlier set on that event is still pending ({} pending)",
                        src.name(),
                        dst.name(),
                        pending
                    )
                },
                || Some("add the matching wait_flag before setting the event again, or use another event id".into()),
            );
        }
    }

    #[inline]
    fn consume_token(&mut self, ci: usize, s: usize, t: &Token) {
        let agent = Self::agent(ci, s);
        if t.vc != NO_CLOCK {
            if let Some(ck) = &mut self.checker {
                ck.join(agent, &self.tok_clocks.slots[t.vc as usize]);
            }
            self.tok_clocks.free.push(t.vc);
        }
        if s == 0 {
            let c = &mut self.cores[ci];
            c.su.time = c.su.time.max(t.time);
        }
    }

    fn exec_cross_set(&mut self, ci: usize, s: usize, inst: InstId, id: u32, mode2: bool) {
        let agent = Self::agent(ci, s);
        let time = self.cores[ci].time[s];
        let mut tok = || Token {
            vc: self.tok_clocks.put(self.checker.as_ref(), agent),
            time,
            inst,
            from: (ci as u32, slot_pipe(s), time),
        };
        let kind = self.cores[ci].kind;
        let n = self.cores.len();
        // the semaphores of the cores it reaches (which waiter: any)
        for c in &mut self.cores {
            c.touch_all();
        }
        match kind {
            CoreKind::Cube => {
                if mode2 {
                    // broadcast to both vector subblocks
                    for k in 1..n {
                        self.cores[k]
                            .sb
                            .sems
                            .entry((id, u32::MAX))
                            .or_default()
                            .push_back(tok());
                    }
                } else {
                    // A5: ids 0-15 address subblock 0, 16-31 subblock 1
                    let target = 1 + (id / 16) as usize;
                    if target < n {
                        self.cores[target]
                            .sb
                            .sems
                            .entry((id % 16, u32::MAX))
                            .or_default()
                            .push_back(tok());
                    }
                }
            }
            CoreKind::Vector(sub) => {
                let from = if mode2 { sub } else { u32::MAX };
                // A5, the mirror of the cube's sets: subblock 1's ids reach
                // the cube as 16-31 (it may name them either way)
                let id = if !mode2 && sub == 1 { id % 16 + 16 } else { id };
                self.cores[0]
                    .sb
                    .sems
                    .entry((id, from))
                    .or_default()
                    .push_back(tok());
            }
            CoreKind::Plain => {
                self.cores[ci]
                    .sb
                    .sems
                    .entry((id, u32::MAX))
                    .or_default()
                    .push_back(tok());
            }
        }
    }

    fn take_cross(&mut self, ci: usize, s: usize, id: u32) {
        let mut toks = Vec::new();
        let c = &mut self.cores[ci];
        c.touch_all();
        if let Some(t) =
            c.sb.sems
                .get_mut(&(id, u32::MAX))
                .and_then(|q| q.pop_front())
        {
            toks.push(t);
        } else if c.kind == CoreKind::Cube {
            for sub in [0, 1] {
                if let Some(t) = c.sb.sems.get_mut(&(id, sub)).and_then(|q| q.pop_front()) {
                    toks.push(t);
                }
            }
        }
        for t in toks {
            self.consume_token(ci, s, &t);
        }
    }

    // ───────────── vector scopes ─────────────

    fn run_vecscope(
        &mut self,
        ci: usize,
        body: &[Inst],
        caps: &[(Reg, Val)],
        accs: &mut Vec<(InstId, exec::Access)>,
        vec_ops: &mut u64,
    ) -> Result<(), Fault> {
        for (r, v) in caps {
            // a capture still holding the value of the scope's last run
            // (its pointers, sizes, offsets) is not copied again
            let x = &mut self.cores[ci].arch.vregs[*r as usize];
            if !same_val(x, v) {
                *x = v.clone();
            }
        }
        if self.cfg.jit != crate::JitMode::Off {
            let checking = self.checker.is_some();
            let crosscheck = self.cfg.crosscheck;
            let jit = self.jit;
            let before = crosscheck.then(|| self.cores[ci].arch.local.clone());
            let mut scratch = Vec::new();
            let c = &mut self.cores[ci];
            let mut at = None;
            let ran = crate::jitscope::run(
                jit,
                self.prog,
                self.cfg.jit,
                self.cfg.jit_threshold,
                body,
                &c.arch.vregs,
                &mut c.arch.local,
                checking && !crosscheck,
                if crosscheck { &mut scratch } else { accs },
                &mut at,
            );
            let ran = match ran {
                Ok(r) => r,
                Err(f) => {
                    // the fault names the scope's op, as the interpreter's does
                    self.scope_fault_at = at;
                    return Err(f);
                }
            };
            if let crate::jitscope::Ran::Done(mut out) = ran {
                if let Some(before) = before {
                    // the interpreter's run is the one that counts; the JIT's
                    // UB must equal it
                    let got = std::mem::replace(&mut self.cores[ci].arch.local, before);
                    self.interp_vecscope(ci, body, accs, vec_ops)?;
                    let ulp = if body
                        .first()
                        .is_some_and(|i| crate::jitscope::approximate(jit, i.id))
                    {
                        pto_jit::EXP_ULP
                    } else {
                        0
                    };
                    return crosscheck_ub(&self.cores[ci].arch.local, &got, ulp);
                }
                for (id, n) in out.counts() {
                    self.count_n(id, n);
                }
                *vec_ops += out.vec_ops;
                self.report_alias(std::mem::take(&mut out.alias));
                return Ok(());
            }
        }
        self.interp_vecscope(ci, body, accs, vec_ops)
    }

    fn interp_vecscope(
        &mut self,
        ci: usize,
        body: &[Inst],
        accs: &mut Vec<(InstId, exec::Access)>,
        vec_ops: &mut u64,
    ) -> Result<(), Fault> {
        let mut at = None;
        let r = self.interp_vecscope_at(ci, body, accs, vec_ops, &mut at);
        if r.is_err() {
            self.scope_fault_at = at;
        }
        r
    }

    /// [`Self::interp_vecscope`], keeping in `at` the op it runs.
    fn interp_vecscope_at(
        &mut self,
        ci: usize,
        body: &[Inst],
        accs: &mut Vec<(InstId, exec::Access)>,
        vec_ops: &mut u64,
        at: &mut Option<InstId>,
    ) -> Result<(), Fault> {
        let checking = self.checker.is_some();
        let (block, blocks) = (self.block, self.blocks);
        let clock = self.scope_clock;
        let c = &mut self.cores[ci];
        // the linear vector-core id of the launch: block-major, then subblock
        let veccore = match c.kind {
            CoreKind::Vector(s) => block as i64 * 2 + s as i64,
            _ => block as i64,
        };
        let mut pc = 0;
        let mut pending_stores: Vec<(u64, u64, InstId)> = Vec::new();
        let mut alias: Vec<(InstId, InstId)> = Vec::new();
        let mut steps: u64 = 0;
        let mut counts: Vec<InstId> = Vec::new();
        // a pto.simt_launch in progress
        let mut simt: Option<SimtRun> = None;
        while let Some(inst) = body.get(pc) {
            *at = Some(inst.id);
            steps += 1;
            counts.push(inst.id);
            if steps > 100_000_000 {
                return fault("vector scope ran for more than 10^8 steps");
            }
            // a scope (or a SIMT launch) is one pipe op: stop it at the deadline
            exec::meter::charge(8)?;
            let mut acc = Accesses {
                on: checking,
                list: Vec::new(),
            };
            let flow = match &inst.k {
                K::End => break,
                K::Vec(v) => {
                    *vec_ops += 1;
                    exec_vec(
                        v,
                        &mut c.arch.vregs,
                        &mut c.arch.local,
                        &mut acc,
                        &mut pending_stores,
                        &mut alias,
                        inst.id,
                    )?;
                    if let Some(w) = self.watcher.as_mut() {
                        if w.hit(self.prog, inst.id) {
                            w.report(self.prog, inst.id, watch_vec(v, &c.arch.vregs));
                        }
                    }
                    Flow::Next
                }
                K::Issue { .. }
                | K::VecScope { .. }
                | K::Sync(_)
                | K::Call { .. }
                | K::Section { .. } => {
                    return fault("pipe instructions, synchronization and calls are not allowed inside a pto.vecscope");
                }
                K::Ret { .. } => break,
                K::ScalarMem {
                    load,
                    val,
                    ptr,
                    off,
                    dt,
                } => {
                    // recorded so the checker sees a SIMT launch's (and any
                    // scope's) element accesses with the scope's own
                    let (space, addr, len) = scalar_mem(
                        self.gm,
                        &mut c.arch.local,
                        &mut c.arch.vregs,
                        *load,
                        *val,
                        *ptr,
                        *off,
                        *dt,
                    )?;
                    acc.add(space, addr, len, !*load);
                    Flow::Next
                }
                K::Unsupported { what } => return fault(format!("{what} (inside a vector scope)")),
                K::Atomic { .. } => {
                    let (space, addr, len) =
                        atomic(self.gm, &mut c.arch.local, &mut c.arch.vregs, &inst.k)?;
                    acc.add(space, addr, len, false);
                    acc.add(space, addr, len, true);
                    Flow::Next
                }
                K::SimtBegin { dims, barrier } => {
                    let d = match dims {
                        SimtDims::Fixed(d) => *d,
                        SimtDims::Regs(r) => [
                            rd_int(&c.arch.vregs, r[0])?,
                            rd_int(&c.arch.vregs, r[1])?,
                            rd_int(&c.arch.vregs, r[2])?,
                        ],
                    };
                    let dims = simt_dims(d)?;
                    let total: i64 = dims.iter().product();
                    simt = Some(SimtRun {
                        dims,
                        total,
                        // a launch-wide barrier: all threads form one group
                        group: if *barrier { total } else { SIMT_WARP },
                        linear: 0,
                        top: pc + 1,
                        pc: pc + 1,
                        lanes: Vec::new(),
                    });
                    Flow::Next
                }
                K::SimtNext { .. } => {
                    let Some(s) = simt.as_mut() else {
                        return fault("internal: SIMT thread loop without a launch");
                    };
                    if s.lanes.is_empty() {
                        // no thread of this warp waits at a collective:
                        // the next thread starts
                        s.linear += 1;
                    } else {
                        let cur = s.lane();
                        s.lanes[cur] = Lane::Done;
                        s.advance(&mut c.arch.vregs, body)?;
                    }
                    if s.linear >= s.total {
                        simt = None;
                        Flow::Next
                    } else if s.lanes.is_empty() {
                        Flow::Jump(s.top)
                    } else {
                        Flow::Jump(s.pc)
                    }
                }
                K::SimtKeep { src, slot } => {
                    let Some(s) = &simt else {
                        return fault("pto.keep outside a pto.simt_launch");
                    };
                    let v = get(&c.arch.vregs, *src)?.clone();
                    c.arch.simt_slots.insert((s.linear, *slot), v);
                    Flow::Next
                }
                K::SimtResume { dst, slot } => {
                    let Some(s) = &simt else {
                        return fault("pto.resume outside a pto.simt_launch");
                    };
                    let Some(v) = c.arch.simt_slots.get(&(s.linear, *slot)).cloned() else {
                        return fault(format!(
                            "pto.resume of slot {slot}: thread {} kept nothing there in an earlier launch",
                            s.linear
                        ));
                    };
                    set(&mut c.arch.vregs, *dst, v)?;
                    Flow::Next
                }
                K::Warp { .. } | K::SimtSync => {
                    let Some(s) = simt.as_mut() else {
                        return fault(
                            "a warp-wide SIMT op or pto.syncthreads outside a pto.simt_launch",
                        );
                    };
                    let cur = s.lane();
                    if s.lanes.is_empty() {
                        // the group's earlier threads ran to the end without
                        // reaching this op
                        let n = (s.total - s.warp_base()).min(s.group) as usize;
                        s.lanes = vec![Lane::Done; n];
                        for l in &mut s.lanes[cur..] {
                            *l = Lane::Fresh;
                        }
                    }
                    s.lanes[cur] = Lane::Parked(pc, c.arch.vregs.clone());
                    s.advance(&mut c.arch.vregs, body)?;
                    Flow::Jump(s.pc)
                }
                K::SimtId { dst, what } => {
                    let Some(s) = &simt else {
                        return fault("a SIMT thread id read outside a pto.simt_launch");
                    };
                    let (d, linear) = (s.dims, s.linear);
                    let t = [linear % d[0], linear / d[0] % d[1], linear / (d[0] * d[1])];
                    let lane = linear % SIMT_WARP;
                    let (le, lt) = ((2i64 << lane) - 1, (1i64 << lane) - 1);
                    let v = match what {
                        0..=2 => t[*what as usize],
                        3..=5 => d[*what as usize - 3],
                        6 => lane,
                        // a single-block launch reads grid dims 0 (what the
                        // PTOAS simt-scalar-core golden records), block idx 0
                        7..=9 => 0,
                        18 => veccore,
                        // one clock for the whole scope: the launch is one
                        // unit of work in the timing model
                        19 => clock as u32 as i32 as i64,
                        20 => clock as i64,
                        13 => 1 << lane,
                        14 => le,
                        15 => lt,
                        16 => !lt,
                        17 => !le,
                        _ => 0,
                    };
                    // lane masks are 32-bit
                    let v = if (13..=17).contains(what) {
                        v as i32 as i64
                    } else {
                        v
                    };
                    set(&mut c.arch.vregs, *dst, Val::Int(v))?;
                    Flow::Next
                }
                k => scalar_step(
                    k,
                    &mut c.arch.vregs,
                    &mut c.arch.local,
                    &mut c.arch.sites,
                    &mut c.arch.bump,
                    &mut c.arch.loop_regs,
                    (block, blocks, (0, 1)),
                )?,
            };
            for a in acc.list {
                push_access(accs, inst.id, a);
            }
            match flow {
                Flow::Jump(t) => pc = t,
                _ => pc += 1,
            }
        }
        for id in counts {
            self.count(id);
        }
        self.report_alias(alias);
        Ok(())
    }

    /// `--watch`: a pipe op of a watched line completed.
    fn watch_op(&mut self, ci: usize, inst: InstId, r: &Resolved, accs: &[exec::Access]) {
        let (Some(w), prog, gm) = (self.watcher.as_mut(), self.prog, self.gm) else {
            return;
        };
        if !w.hit(prog, inst) {
            return;
        }
        let local = &self.cores[ci].arch.local;
        let text = match r {
            Resolved::TLoad(_, t)
            | Resolved::TEw(_, _, _, t)
            | Resolved::TEws(_, _, _, _, t)
            | Resolved::TExpands(_, t) => watch::tile(t, local),
            Resolved::TStore(_, v, _) => watch::view(v, gm),
            Resolved::Dma(t) => watch::dma(t, local, gm),
            Resolved::Tile(call) => {
                let outs: String = call
                    .outs
                    .iter()
                    .map(|o| match o {
                        Val::Tile(t) => watch::tile(t, local),
                        Val::View(v) => watch::view(v, gm),
                        other => watch::value(other, None),
                    })
                    .collect();
                if outs.is_empty() {
                    "completed (no result operand)\n".into()
                } else {
                    outs
                }
            }
            Resolved::Vec { .. } => {
                "vector scope completed (watch the lines inside it for their values)\n".into()
            }
            Resolved::Cube(call) => {
                // a matmul's result, an L0 operand, an NZ copy: the
                // matrix in its logical shape
                if let Some(mx) = exec::cube::written_matrix(call) {
                    let text = watch::matrix(&mx, local, gm);
                    w.report(prog, inst, text);
                    return;
                }
                let ptrs: Vec<Ptr> = call
                    .vals
                    .iter()
                    .filter_map(|v| match v {
                        Val::Ptr(p) => Some(*p),
                        _ => None,
                    })
                    .collect();
                watch::written(accs, &ptrs, local, gm)
                    .unwrap_or_else(|| "completed (wrote nothing)\n".into())
            }
            _ => watch::written(accs, &[], local, gm)
                .unwrap_or_else(|| "completed (no tile or view result to show)\n".into()),
        };
        w.report(prog, inst, text);
    }

    /// `--watch`: a scalar-unit instruction of a watched line ran.
    fn watch_scalar(&mut self, ci: usize, inst: &Inst) {
        let (Some(w), prog) = (self.watcher.as_mut(), self.prog) else {
            return;
        };
        if matches!(inst.k, K::Issue { .. } | K::VecScope { .. } | K::Sync(_)) {
            return; // reported when the pipe completes it
        }
        if !w.hit(prog, inst.id) {
            return;
        }
        let defs = crate::jitscope::defs_of(&inst.k);
        let regs = &self.cores[ci].arch.regs;
        let text: String = if defs.is_empty() {
            "executed\n".into()
        } else {
            defs.iter()
                .map(|d| match regs.get(*d as usize) {
                    Some(v) => watch::value(v, None),
                    None => "?\n".into(),
                })
                .collect()
        };
        w.report(prog, inst.id, text);
    }

    fn report_alias(&mut self, alias: Vec<(InstId, InstId)>) {
        for (st, ld) in alias {
            self.diags.report(
                DiagKind::VectorAlias,
                Some(ld),
                Some(st),
                || "vlds reads UB bytes that an earlier vsts of the same vector scope wrote, with no pto.mem_bar between them".into(),
                || Some("insert pto.mem_bar \"VST_VLD\" between the store and the load".into()),
            );
        }
    }

    // ───────────── diagnostics ─────────────

    fn pipe_name(agent: usize) -> &'static str {
        slot_pipe(agent % AGENTS_PER_CORE).name()
    }

    fn free_event(&self, src: Pipe, dst: Pipe) -> u32 {
        let used: Vec<u32> = self
            .cores
            .iter()
            .flat_map(|c| c.sb.flag_site.keys())
            .filter(|k| k.0 == src && k.1 == dst)
            .map(|k| k.2)
            .collect();
        (0..16).find(|i| !used.contains(i)).unwrap_or(0)
    }

    fn report_conflict(&mut self, c: &crate::checker::Conflict) {
        let prog = self.prog;
        let line = |i: InstId| prog.info(i).loc.line;
        let name = |i: InstId| prog.info(i).opcode.name();
        let (ea, ei) = c.earlier;
        let (la, li) = c.later;
        let (ep, lp) = (
            slot_pipe(ea % AGENTS_PER_CORE),
            slot_pipe(la % AGENTS_PER_CORE),
        );
        let space = c.space.name();
        let (lo, hi) = c.range;
        if c.kind == ConflictKind::SamePipeWaw {
            self.diags.report(
                DiagKind::SamePipeWaw,
                Some(li),
                Some(ei),
                || {
                    format!(
                        "'{}' (line {}) and '{}' (line {}) both write {space} bytes [{lo:#x}, {hi:#x}) on {} with no pipe_barrier between them; DMA writes of one pipe may complete out of order",
                        name(ei),
                        line(ei),
                        name(li),
                        line(li),
                        lp.name()
                    )
                },
                || Some(format!("insert pto.barrier #pto.pipe<{}> between line {} and line {}", lp.name(), line(ei), line(li))),
            );
            return;
        }
        let kind = match c.kind {
            ConflictKind::Raw => "read-after-write",
            ConflictKind::War => "write-after-read",
            _ => "write-after-write",
        };
        let cross_core = ea / AGENTS_PER_CORE != la / AGENTS_PER_CORE;
        let ev = self.free_event(ep, lp);
        let same_pipe_diff = ep == lp;
        self.diags.report(
            DiagKind::Race,
            Some(li),
            Some(ei),
            || {
                format!(
                    "{kind} race on {space} bytes [{lo:#x}, {hi:#x}): '{}' on {} (line {}) is not ordered after '{}' on {} (line {})",
                    name(li),
                    Self::pipe_name(la),
                    line(li),
                    name(ei),
                    Self::pipe_name(ea),
                    line(ei)
                )
            },
            || {
                Some(if cross_core {
                    format!(
                        "signal across cores after line {} (pto.set_intra_block / pto.sync.set) and wait before line {}",
                        line(ei),
                        line(li)
                    )
                } else if same_pipe_diff {
                    format!("insert pto.barrier #pto.pipe<{}> between line {} and line {}", ep.name(), line(ei), line(li))
                } else {
                    format!(
                        "insert pto.set_flag[\"{}\", \"{}\", \"EVENT_ID{ev}\"] after line {} and pto.wait_flag[\"{}\", \"{}\", \"EVENT_ID{ev}\"] before line {}",
                        ep.name(),
                        lp.name(),
                        line(ei),
                        ep.name(),
                        lp.name(),
                        line(li)
                    )
                })
            },
        );
    }

    fn report_deadlock(&mut self) {
        let prog = self.prog;
        let mut why = Vec::new();
        let mut first = None;
        for (ci, c) in self.cores.iter().enumerate() {
            let core = if self.cores.len() > 1 {
                format!("core {ci} ")
            } else {
                String::new()
            };
            if let Some((b, inst)) = &c.su.blocked {
                first.get_or_insert(*inst);
                let l = prog.info(*inst).loc.line;
                why.push(match b {
                    Blocked::Flag { src, dst, id } => format!(
                        "{core}scalar unit waits at line {l} on wait_flag[{}, {}, EVENT_ID{id}]: no set_flag on that event is pending or still to run",
                        src.name(),
                        dst.name()
                    ),
                    Blocked::Drain => format!("{core}scalar unit waits at line {l} for every pipe to drain (barrier PIPE_ALL)"),
                    Blocked::Cross { id } => format!("{core}scalar unit waits at line {l} on cross-core semaphore {id}, which no core will signal"),
                    Blocked::Queue(s) => format!("{core}scalar unit waits at line {l} for room in the {} queue", slot_pipe(*s).name()),
                    Blocked::Comm => format!("{core}scalar unit waits at line {l} for its pipes to drain before a communication op"),
                    Blocked::SyncAll { kind, n } => format!(
                        "{core}scalar unit waits at line {l} in syncall #{n}: {} of the {} {} cores of the launch arrived; the others finished or wait elsewhere",
                        self.syncall_arrived(*kind, *n),
                        self.syncall_parties(*kind),
                        ["participating", "vector", "cube"][*kind as usize],
                    ),
                    Blocked::Signal { sig, value, cmp } => {
                        let now = exec::comm::test(self.gm, sig, *value, *cmp).ok().and_then(|r| r.err());
                        format!(
                            "{core}scalar unit waits at line {l} in twait for the signal at GM {:#x} to become {} {value}{}{}",
                            sig.base,
                            cmp.symbol(),
                            now.map(|v| format!(" (it holds {v})")).unwrap_or_default(),
                            if self.world.clusters > 1 { ": no rank is left to notify it" } else { ": no rank notifies it (run with --ranks N for multi-rank kernels)" }
                        )
                    }
                    Blocked::FifoPop { id, c2v } => {
                        let f = self.fifos.get(&(*id, *c2v));
                        let m = f.map_or(0, |f| f.pops.get(Self::party(c.kind)).copied().unwrap_or(0));
                        let (dir, from) = if *c2v { ("cube to vector", "the cube".to_string()) } else { ("vector to cube", "a vector subblock".to_string()) };
                        let pushed = f.map_or(0, |f| f.pushes.iter().map(|p| p.len()).min().unwrap_or(0));
                        format!("{core}scalar unit waits at line {l} in tpop on FIFO pipe {id} ({dir}) for entry {m}: {from} pushed {pushed} entr{} and no push is pending or still to run", if pushed == 1 { "y" } else { "ies" })
                    }
                    Blocked::FifoAlloc { id, c2v } => format!("{core}scalar unit waits at line {l} in talloc on FIFO pipe {id} ({}) for a free slot: no tfree that would release one is pending or still to run", if *c2v { "cube to vector" } else { "vector to cube" }),
                    Blocked::Import { peer, name } => format!("{core}scalar unit waits at line {l} in import_reserved_buffer for \"{name}\" of @{peer}, which no core places with reserve_buffer"),
                });
            }
            for (s, q) in c.queues.iter().enumerate() {
                let Some(h) = q.front() else { continue };
                first.get_or_insert(h.inst);
                let l = prog.info(h.inst).loc.line;
                let p = slot_pipe(s).name();
                why.push(match &h.r {
                    Resolved::Wait { src, dst, id } => format!(
                        "{core}{p} waits at line {l} on wait_flag[{}, {}, EVENT_ID{id}]: no set_flag on that event is pending or still to run",
                        src.name(),
                        dst.name()
                    ),
                    Resolved::GetBuf { id, .. } => {
                        let holder = c.sb.bufs.get(id).and_then(|b| b.holder);
                        match holder {
                            Some((hp, hi)) => format!(
                                "{core}{p} waits at line {l} in get_buf for buffer {id}, held by {} since line {} and never released",
                                hp.name(),
                                prog.info(hi).loc.line
                            ),
                            None => format!("{core}{p} waits at line {l} in get_buf for buffer {id}: an earlier acquire of it cannot run"),
                        }
                    }
                    Resolved::CrossWait { id } => format!("{core}{p} waits at line {l} on cross-core semaphore {id}, which no core will signal"),
                    Resolved::FifoPush { id, c2v, .. } => {
                        let f = self.fifos.get(&(*id, *c2v));
                        let n = f.map_or(0, |f| f.pushes.get(Self::party(c.kind)).map_or(0, |v| v.len()));
                        let slots = f.map_or(0, |f| f.slot_num);
                        let freed = f.map_or(0, |f| f.frees.iter().map(|v| v.len()).min().unwrap_or(0));
                        format!("{core}{p} waits at line {l} in tpush on FIFO pipe {id} ({}) for a free slot: all {slots} slots hold entries, the consumer freed {freed} of {n} and no tfree is pending or still to run", if *c2v { "cube to vector" } else { "vector to cube" })
                    }
                    _ => format!("{core}{p} is stuck at line {l}"),
                });
            }
        }
        let msg = format!("every pipe is blocked:\n    {}", why.join("\n    "));
        self.diags
            .report(DiagKind::Deadlock, first, None, || msg, || None);
    }

    fn end_checks(&mut self) {
        let prog = self.prog;
        for c in &self.cores {
            let mut flags: Vec<_> = c.sb.flags.iter().filter(|(_, q)| !q.is_empty()).collect();
            flags.sort_by_key(|(k, _)| (k.0, k.1, k.2));
            for ((src, dst, id), q) in flags {
                let inst = q.front().map(|t| t.inst);
                let n = q.len();
                self.diags.report(
                    DiagKind::UnpairedSet,
                    inst,
                    None,
                    || {
                        format!(
                            "set_flag[{}, {}, EVENT_ID{id}] was never consumed by a wait_flag ({n} pending at kernel end)",
                            src.name(),
                            dst.name()
                        )
                    },
                    || Some("drain it with a matching wait_flag after the loop, or remove the extra set".into()),
                );
            }
            for (id, b) in &c.sb.bufs {
                if let Some((p, inst)) = b.holder {
                    self.diags.report(
                        DiagKind::HeldBuffer,
                        Some(inst),
                        None,
                        || format!("buffer id {id} acquired by {} (line {}) is still held at kernel end", p.name(), prog.info(inst).loc.line),
                        || Some(format!("add pto.rls_buf for buffer {id} on {}", p.name())),
                    );
                }
            }
        }
    }
}

enum Flow {
    Next,
    Jump(usize),
    Issued,
    Block(Blocked),
    Done,
    #[allow(dead_code)]
    Stay,
}

#[inline(always)]
fn set(regs: &mut [Val], r: Reg, v: Val) -> Result<(), Fault> {
    match regs.get_mut(r as usize) {
        Some(x) => {
            *x = v;
            Ok(())
        }
        None => fault("bad register"),
    }
}

#[inline(always)]
fn get(regs: &[Val], r: Reg) -> Result<&Val, Fault> {
    regs.get(r as usize)
        .ok_or_else(|| Fault::Msg("bad register".into()))
}

/// A SIMT atomic (`K::Atomic`): reads the element, writes the combined
/// value, puts the old one in `dst`. Threads run one at a time, so this is
/// atomic by construction. Returns the (space, address, bytes) touched.
fn atomic(gm: &Gm, local: &mut Local, regs: &mut [Val], k: &K) -> Result<(Space, u64, u64), Fault> {
    let K::Atomic {
        op,
        dst,
        ptr,
        val,
        cmp,
        dt,
        lanes,
        unsigned,
    } = k
    else {
        return fault("internal: not an atomic");
    };
    let Some(Val::Ptr(p)) = regs.get(*ptr as usize).cloned() else {
        return fault(format!("pto.atomic_{op} needs a pointer"));
    };
    let es = dt.bytes().max(1);
    let n = (*lanes).max(1) as usize;
    if es * n > 8 {
        return fault(format!(
            "pto.atomic_{op} of {es}-byte elements is not implemented"
        ));
    }
    // lane `i` of an operand: a scalar, or one lane of a packed value
    let num = |v: Option<&Val>, i: usize| -> Result<Num, Fault> {
        match v {
            Some(Val::Float(f)) if n == 1 => Ok(Num::F(*f)),
            Some(Val::Int(x)) if n == 1 => Ok(Num::I(*x)),
            Some(Val::Int(bits)) => {
                let b = bits.to_le_bytes();
                Ok(crate::num::read(&b[i * es..(i + 1) * es], *dt))
            }
            Some(v) => fault(format!(
                "pto.atomic_{op} of a {} value with {n} lane(s) of {dt:?}",
                v.kind()
            )),
            None => fault("missing atomic operand"),
        }
    };
    let len = es * n;
    let mut b = [0u8; 8];
    if p.space == Space::Gm {
        gm.read(p.addr, &mut b[..len])?;
    } else {
        b[..len].copy_from_slice(local.slice(p.space, p.addr, len as u64)?);
    }
    let old_bytes = b;
    for i in 0..n {
        let v = num(regs.get(*val as usize), i)?;
        let lane = &mut b[i * es..(i + 1) * es];
        let old = crate::num::read(lane, *dt);
        let new = match (old, v) {
            (Num::F(a), x) => {
                let x = x.f();
                Num::F(match *op {
                    "add" => a + x,
                    "sub" => a - x,
                    "min" => a.min(x),
                    "max" => a.max(x),
                    "exch" => x,
                    "cas" => {
                        if a == num(cmp.and_then(|c| regs.get(c as usize)), i)?.f() {
                            x
                        } else {
                            a
                        }
                    }
                    o => {
                        return fault(format!(
                            "pto.atomic_{o} on a float element is not implemented"
                        ))
                    }
                })
            }
            (Num::I(a), x) => {
                let x = x.i();
                // ordering of the element's width, signed unless `unsigned`
                let key = |n: i64| -> i128 {
                    let m = if es >= 8 {
                        u64::MAX
                    } else {
                        (1u64 << (es * 8)) - 1
                    };
                    if *unsigned {
                        ((n as u64) & m) as i128
                    } else {
                        let sh = 64 - es as u32 * 8;
                        (((n as u64) << sh) as i64 >> sh) as i128
                    }
                };
                Num::I(match *op {
                    "add" => a.wrapping_add(x),
                    "sub" => a.wrapping_sub(x),
                    "min" => {
                        if key(x) < key(a) {
                            x
                        } else {
                            a
                        }
                    }
                    "max" => {
                        if key(x) > key(a) {
                            x
                        } else {
                            a
                        }
                    }
                    "and" => a & x,
                    "or" => a | x,
                    "xor" => a ^ x,
                    "exch" => x,
                    _ => {
                        let c = num(cmp.and_then(|c| regs.get(c as usize)), i)?.i();
                        if key(a) == key(c) {
                            x
                        } else {
                            a
                        }
                    }
                })
            }
        };
        crate::num::write(lane, *dt, new);
    }
    if p.space == Space::Gm {
        gm.write(p.addr, &b[..len])?;
    } else {
        local
            .slice_mut(p.space, p.addr, len as u64)?
            .copy_from_slice(&b[..len]);
    }
    if let Some(d) = dst {
        let o = if n > 1 {
            let mut w = [0u8; 8];
            w[..len].copy_from_slice(&old_bytes[..len]);
            Val::Int(i64::from_le_bytes(w))
        } else {
            match crate::num::read(&old_bytes[..es], *dt) {
                Num::F(f) => Val::Float(f),
                Num::I(i) => Val::Int(i),
            }
        };
        set(regs, *d, o)?;
    }
    Ok((p.space, p.addr, len as u64))
}

/// The lanes of a SIMT value: itself for a scalar (`n == 1`), else the
/// `n` lanes of type `dt` in a packed value's raw bits.
fn unpack(v: &Val, dt: DType, n: usize) -> Result<Vec<Val>, Fault> {
    if n <= 1 {
        return Ok(vec![v.clone()]);
    }
    let es = dt.bytes().max(1);
    let Val::Int(bits) = v else {
        return fault(format!("a packed {n}-lane value held as {}", v.kind()));
    };
    if es * n > 8 {
        return fault(format!("a packed value of {n} x {es} bytes"));
    }
    let b = bits.to_le_bytes();
    Ok((0..n)
        .map(|i| match crate::num::read(&b[i * es..(i + 1) * es], dt) {
            Num::F(f) => Val::Float(f),
            Num::I(x) => Val::Int(x),
        })
        .collect())
}

/// Inverse of [`unpack`]: one lane is the value itself, more are packed
/// into raw bits.
fn pack(vals: Vec<Val>, dt: DType) -> Result<Val, Fault> {
    if vals.len() <= 1 {
        return vals
            .into_iter()
            .next()
            .map_or_else(|| fault("internal: no lanes"), Ok);
    }
    let es = dt.bytes().max(1);
    let mut b = [0u8; 8];
    for (i, v) in vals.iter().enumerate() {
        let x = match v {
            Val::Float(f) => Num::F(*f),
            v => Num::I(
                v.as_i64()
                    .ok_or_else(|| Fault::Msg(format!("a packed lane of {}", v.kind())))?,
            ),
        };
        let lane = b
            .get_mut(i * es..(i + 1) * es)
            .ok_or_else(|| Fault::Msg("a packed value wider than 64 bits".into()))?;
        crate::num::write(lane, dt, x);
    }
    Ok(Val::Int(i64::from_le_bytes(b)))
}

/// Scalar `pto.convert` of one value (one lane of a packed convert).
fn sconvert(x: Val, to: DType, from: DType, round: char, unsigned: bool) -> Result<Val, Fault> {
    let (to, from, round, unsigned) = (&to, &from, &round, &unsigned);
    Ok(match (x, to.is_float()) {
        (Val::Int(i), true) => {
            let bits = from.bytes() as u32 * 8;
            let i = if *unsigned && bits < 64 {
                (i as u64 & ((1u64 << bits) - 1)) as f64
            } else if *unsigned {
                i as u64 as f64
            } else {
                i as f64
            };
            Val::Float(crate::num::round_float(i, *to))
        }
        (Val::Float(f), true) if matches!(to, DType::F8E4M3 | DType::F8E5M2 | DType::HiF8) => {
            // 8-bit floats round per the op's round(X)
            use crate::exec::vec_convert::Rnd;
            let rnd = match round {
                'a' => Rnd::A,
                'z' => Rnd::Z,
                'f' => Rnd::F,
                'c' => Rnd::C,
                'o' => Rnd::O,
                _ => Rnd::R,
            };
            let m = crate::exec::minifloat::encode(f, *to, rnd, false);
            Val::Float(crate::exec::minifloat::decode(m, *to))
        }
        (Val::Float(f), true) => Val::Float(crate::num::round_float(f, *to)),
        (Val::Float(f), false) => {
            let r = match round {
                'z' => f.trunc(),
                'a' => f.round(),
                'f' => f.floor(),
                'c' => f.ceil(),
                _ => f.round_ties_even(),
            };
            // saturate to the result's range (NaN -> 0)
            let bits = to.bytes() as u32 * 8;
            let (lo, hi) = if *unsigned {
                (0f64, (2f64).powi(bits as i32) - 1.0)
            } else {
                (
                    -(2f64).powi(bits as i32 - 1),
                    (2f64).powi(bits as i32 - 1) - 1.0,
                )
            };
            let r = if r.is_nan() { 0.0 } else { r.clamp(lo, hi) };
            Val::Int(if *unsigned { r as u64 as i64 } else { r as i64 })
        }
        (Val::Int(i), false) => Val::Int(i),
        (v, _) => return fault(format!("pto.convert of {} is not implemented", v.kind())),
    })
}

/// One thread of the warp being run (`SimtRun::lanes`).
#[derive(Clone)]
enum Lane {
    /// Not started.
    Fresh,
    /// Stopped at the warp-wide op at this pc, with its registers.
    Parked(usize, Vec<Val>),
    /// Past a collective: resumes at this pc with these registers.
    Ready(usize, Vec<Val>),
    /// Ran to the end of the thread body.
    Done,
}

/// A `pto.simt_launch` in progress. Threads run one at a time in linear id
/// order (x fastest). A thread that reaches a warp-wide op (`K::Warp`)
/// stops there with a copy of its registers and the next thread of its warp
/// runs; once every thread of the warp has stopped (at the op or at the end
/// of the body), the op combines the values of the threads waiting at it and
/// they resume in lane order. Kernels without warp-wide ops never copy
/// registers.
struct SimtRun {
    dims: [i64; 3],
    total: i64,
    /// The running thread's linear id.
    linear: i64,
    /// Threads that run together up to a stopping op: a warp, or the
    /// whole launch when its body has a `pto.syncthreads`.
    group: i64,
    /// First pc of the thread body.
    top: usize,
    /// The pc the running thread continues at after `advance`.
    pc: usize,
    /// The current warp's threads while any of them waits at a collective
    /// (empty otherwise).
    lanes: Vec<Lane>,
}

impl SimtRun {
    /// First thread of the running thread's group.
    fn warp_base(&self) -> i64 {
        self.linear - self.linear % self.group
    }

    /// The running thread's index in its group.
    fn lane(&self) -> usize {
        (self.linear % self.group) as usize
    }

    /// Switches to the next thread of the warp that can run (setting
    /// `linear`, `pc` and the live registers `regs`); when every thread has
    /// stopped, runs the collective they wait at, or moves on to the next
    /// warp once all are done.
    fn advance(&mut self, regs: &mut Vec<Val>, body: &[Inst]) -> Result<(), Fault> {
        let base = self.warp_base();
        let mut from = self.lane() + 1;
        loop {
            for j in from..self.lanes.len() {
                match std::mem::replace(&mut self.lanes[j], Lane::Done) {
                    Lane::Fresh => {
                        self.linear = base + j as i64;
                        self.pc = self.top;
                        return Ok(());
                    }
                    Lane::Ready(p, r) => {
                        *regs = r;
                        self.linear = base + j as i64;
                        self.pc = p;
                        return Ok(());
                    }
                    other => self.lanes[j] = other,
                }
            }
            // every thread of the warp has stopped
            let at: Vec<usize> = self
                .lanes
                .iter()
                .filter_map(|l| match l {
                    Lane::Parked(p, _) => Some(*p),
                    _ => None,
                })
                .collect();
            let Some(&p) = at.first() else {
                // the group is done
                self.lanes.clear();
                self.linear = base + self.group;
                self.pc = self.top;
                return Ok(());
            };
            if at.iter().any(|q| *q != p) {
                return fault(format!(
                    "the threads of SIMT warp {} wait at different warp-wide ops or barriers (divergent control flow); ptovm runs a collective only when every waiting thread of the warp is at the same op",
                    base / SIMT_WARP
                ));
            }
            if let Some(K::SimtSync) = body.get(p).map(|i| &i.k) {
                // a barrier: everyone has arrived
                for l in &mut self.lanes {
                    if let Lane::Parked(_, r) = l {
                        *l = Lane::Ready(p + 1, std::mem::take(r));
                    }
                }
                from = 0;
                continue;
            }
            let Some(K::Warp {
                op,
                dst,
                src,
                arg,
                width,
                dt,
                unsigned,
            }) = body.get(p).map(|i| &i.k)
            else {
                return fault("internal: a SIMT thread stopped outside a warp-wide op");
            };
            // one collective per warp of the group (the group is a warp
            // unless the launch has a barrier)
            let warp = SIMT_WARP as usize;
            for w0 in (0..self.lanes.len()).step_by(warp) {
                let w1 = (w0 + warp).min(self.lanes.len());
                let mut ins = Vec::new();
                for (j, l) in self.lanes[w0..w1].iter().enumerate() {
                    if let Lane::Parked(_, r) = l {
                        let a = match arg {
                            Some(a) => rd_int(r, *a)?,
                            None => 0,
                        };
                        ins.push((j, get(r, *src)?.clone(), a));
                    }
                }
                if ins.is_empty() {
                    continue;
                }
                let outs = warp_collective(*op, &ins, *width as usize, *dt, *unsigned)?;
                let mut k = 0;
                for l in &mut self.lanes[w0..w1] {
                    if let Lane::Parked(_, r) = l {
                        let mut r = std::mem::take(r);
                        set(&mut r, *dst, outs[k].clone())?;
                        k += 1;
                        *l = Lane::Ready(p + 1, r);
                    }
                }
            }
            from = 0;
        }
    }
}

/// Sign-extends the low `bits` bits of `v`.
fn sext(v: i64, bits: u32) -> i64 {
    if bits >= 64 {
        v
    } else {
        let s = 64 - bits;
        (v << s) >> s
    }
}

/// The results of a warp-wide collective for the threads `ins` waiting at it
/// (lane within the warp, value, shuffle operand), in the same order.
/// Semantics: PTOAS micro-ISA "SIMT" chapter (vote / shuffle / redux).
/// A shuffle whose source lane is outside the subgroup or not waiting at the
/// op returns the thread's own value; float reductions fold in lane order,
/// rounding to the value type after each step.
fn warp_collective(
    op: WarpOp,
    ins: &[(usize, Val, i64)],
    width: usize,
    dt: DType,
    unsigned: bool,
) -> Result<Vec<Val>, Fault> {
    let truth = |v: &Val| v.as_i64().unwrap_or(0) != 0;
    let n = ins.len();
    let all = |x: Val| Ok(vec![x; n]);
    match op {
        WarpOp::VoteAll => all(Val::Int(ins.iter().all(|i| truth(&i.1)) as i64)),
        WarpOp::VoteAny => all(Val::Int(ins.iter().any(|i| truth(&i.1)) as i64)),
        WarpOp::VoteUni => {
            let first = ins.first().map(|i| truth(&i.1));
            all(Val::Int(
                ins.iter().all(|i| Some(truth(&i.1)) == first) as i64
            ))
        }
        WarpOp::VoteBallot => {
            let bits = ins
                .iter()
                .filter(|i| truth(&i.1))
                .fold(0u32, |m, i| m | 1 << i.0);
            all(Val::Int(bits as i32 as i64))
        }
        WarpOp::ShuffleIdx | WarpOp::ShuffleUp | WarpOp::ShuffleDown | WarpOp::ShuffleBfly => {
            let w = width as i64;
            Ok(ins
                .iter()
                .map(|(lane, own, a)| {
                    let lane = *lane as i64;
                    let (group, local) = (lane - lane % w, lane % w);
                    // a lane delta past i64 names no lane: the lane keeps its value
                    let src = match op {
                        WarpOp::ShuffleIdx => Some(a.rem_euclid(w)),
                        WarpOp::ShuffleUp => local.checked_sub(*a),
                        WarpOp::ShuffleDown => local.checked_add(*a),
                        _ => Some(local ^ a),
                    };
                    let Some(src) = src.filter(|s| (0..w).contains(s)) else {
                        return own.clone();
                    };
                    let src = (group + src) as usize;
                    ins.iter()
                        .find(|i| i.0 == src)
                        .map_or_else(|| own.clone(), |i| i.1.clone())
                })
                .collect())
        }
        WarpOp::ReduxAdd | WarpOp::ReduxMax | WarpOp::ReduxMin => {
            let r = if dt.is_float() {
                let mut acc: Option<f64> = None;
                for (_, v, _) in ins {
                    let Val::Float(x) = v else {
                        return fault(format!("a float warp reduction of {}", v.kind()));
                    };
                    acc = Some(match acc {
                        None => *x,
                        Some(a) => crate::num::round_float(
                            match op {
                                WarpOp::ReduxAdd => a + x,
                                WarpOp::ReduxMax => a.max(*x),
                                _ => a.min(*x),
                            },
                            dt,
                        ),
                    });
                }
                Val::Float(acc.unwrap_or(0.0))
            } else {
                let bits = (dt.bytes() * 8).clamp(8, 64) as u32;
                let key = |v: i64| -> i128 {
                    if unsigned {
                        (v as u64 & (u64::MAX >> (64 - bits))) as i128
                    } else {
                        sext(v, bits) as i128
                    }
                };
                let mut acc: Option<i64> = None;
                for (_, v, _) in ins {
                    let x = v.as_i64().ok_or_else(|| {
                        Fault::Msg(format!("an integer warp reduction of {}", v.kind()))
                    })?;
                    acc = Some(match acc {
                        None => x,
                        Some(a) => match op {
                            WarpOp::ReduxAdd => a.wrapping_add(x),
                            WarpOp::ReduxMax if key(x) > key(a) => x,
                            WarpOp::ReduxMin if key(x) < key(a) => x,
                            _ => a,
                        },
                    });
                }
                Val::Int(sext(acc.unwrap_or(0), bits))
            };
            all(r)
        }
    }
}

/// Threads per SIMT warp (lane ids are the linear thread id modulo this).
const SIMT_WARP: i64 = 32;
/// Most threads one `pto.simt_launch` may run (the a5 vector core's SIMT
/// limit is far below this; the cap keeps a bad launch from running forever).
const SIMT_MAX_THREADS: i64 = 1 << 16;

/// Checks a launch's x, y, z thread counts: each at least 1, product capped.
fn simt_dims(d: [i64; 3]) -> Result<[i64; 3], Fault> {
    if d.iter().any(|n| *n < 1) {
        return fault(format!(
            "pto.simt_launch thread counts must be at least 1, got <<<{}, {}, {}>>>",
            d[0], d[1], d[2]
        ));
    }
    let n = d
        .iter()
        .try_fold(1i64, |a, n| a.checked_mul(*n))
        .filter(|n| *n <= SIMT_MAX_THREADS);
    if n.is_none() {
        return fault(format!(
            "pto.simt_launch of <<<{}, {}, {}>>> threads exceeds ptovm's cap of {SIMT_MAX_THREADS}",
            d[0], d[1], d[2]
        ));
    }
    Ok(d)
}

/// `load_scalar` / `store_scalar` of one `dt` element at `ptr[off]`; returns
/// the (space, address, bytes) it touched.
#[allow(clippy::too_many_arguments)]
fn scalar_mem(
    gm: &Gm,
    local: &mut Local,
    regs: &mut [Val],
    load: bool,
    val: Reg,
    ptr: Reg,
    off: Reg,
    dt: pto_isa_spec::DType,
) -> Result<(Space, u64, u64), Fault> {
    let k = rd_int(regs, off)?;
    let p = match regs.get(ptr as usize) {
        Some(Val::Ptr(p)) => *p,
        // tgetval / tsetval: element `k` of the tile's storage
        Some(Val::Tile(t)) => {
            let n = t.rows.max(0) * t.cols.max(0);
            if k < 0 || k >= n {
                return fault(format!(
                    "element offset {k} is outside the {}x{} tile (offsets 0..{n})",
                    t.rows, t.cols
                ));
            }
            crate::value::Ptr {
                space: Space::of_tile(t.loc),
                addr: t.addr,
                elem: t.elem,
            }
        }
        Some(other) => return fault(format!("expected a pointer, got {}", other.kind())),
        None => return fault("missing pointer operand"),
    };
    let es = dt.bytes().max(1);
    let addr = (p.addr as i64)
        .checked_add(k.checked_mul(es as i64).unwrap_or(i64::MIN))
        .filter(|a| *a >= 0)
        .ok_or_else(|| Fault::Msg(format!("element offset {k} leaves the address space")))?
        as u64;
    let mut b = [0u8; 8];
    if load {
        if p.space == Space::Gm {
            gm.read(addr, &mut b[..es])?;
        } else {
            b[..es].copy_from_slice(local.slice(p.space, addr, es as u64)?);
        }
        let v = match crate::num::read(&b[..es], dt) {
            Num::F(f) => Val::Float(f),
            Num::I(i) => Val::Int(i),
        };
        match regs.get_mut(val as usize) {
            Some(r) => *r = v,
            None => return fault("missing result register"),
        }
    } else {
        let n = match regs.get(val as usize) {
            Some(Val::Float(f)) => Num::F(*f),
            Some(v) => Num::I(v.as_i64().ok_or_else(|| {
                Fault::Msg(format!("store_scalar of {}, not a number", v.kind()))
            })?),
            None => return fault("missing value operand"),
        };
        crate::num::write(&mut b[..es], dt, n);
        if p.space == Space::Gm {
            gm.write(addr, &b[..es])?;
        } else {
            local
                .slice_mut(p.space, addr, es as u64)?
                .copy_from_slice(&b[..es]);
        }
    }
    Ok((p.space, addr, es as u64))
}

fn op_short(op: CommOp) -> &'static str {
    match op {
        CommOp::Put => "tput",
        CommOp::Get => "tget",
        CommOp::PutAsync => "tput_async",
        CommOp::GetAsync => "tget_async",
        CommOp::Session => "build_async_session",
        CommOp::WaitEvent => "wait_async_event",
        CommOp::TestEvent => "test_async_event",
        CommOp::Notify => "tnotify",
        CommOp::Wait => "twait",
        CommOp::Test => "ttest",
        CommOp::Broadcast => "tbroadcast",
        CommOp::Gather => "tgather",
        CommOp::Scatter => "tscatter",
        CommOp::Reduce => "treduce",
    }
}

/// Records an access of instruction `id`: a loop's successive `vlds`/`vsts`
/// of one instruction walk contiguous bytes and stay one range.
pub(crate) fn push_access(accs: &mut Vec<(InstId, exec::Access)>, id: InstId, a: exec::Access) {
    let n = accs.len();
    for (i, last) in accs[n.saturating_sub(4)..].iter_mut().rev() {
        if *i == id
            && last.space == a.space
            && last.write == a.write
            && last.addr + last.len == a.addr
        {
            last.len += a.len;
            return;
        }
    }
    accs.push((id, a));
}

/// The elementwise call of a resolved `TEw`/`TEws`.
fn ew_call(r: &Resolved) -> Option<crate::jitcall::EwCall<'_>> {
    match r {
        Resolved::TEw(op, a, b, d) => Some(crate::jitcall::EwCall {
            op: *op,
            a,
            b: b.as_deref(),
            s: None,
            dst: d,
        }),
        Resolved::TEws(op, a, sv, first, d) => Some(crate::jitcall::EwCall {
            op: *op,
            a,
            b: None,
            s: Some((*sv, *first)),
            dst: d,
        }),
        _ => None,
    }
}

/// Compares the UB a compiled vector scope left (`got`) with the
/// interpreter's (`want`): bytes equal, or, for a scope with an approximated
/// function (`ulp` > 0), 4-byte words within `ulp` f32 units in the last place
/// or within 1e-5 * max(1, |x|) (an approximated value that later ops of the
/// scope combined with others, where the ulp bound no longer applies).
fn crosscheck_ub(want: &Local, got: &Local, ulp: u32) -> Result<(), Fault> {
    let size = want.size(Space::Ub);
    let (w, g) = (
        want.slice(Space::Ub, 0, size)?,
        got.slice(Space::Ub, 0, size)?,
    );
    for (k, (a, b)) in w.chunks(4).zip(g.chunks(4)).enumerate() {
        if a == b {
            continue;
        }
        let close = ulp > 0
            && a.len() == 4
            && b.len() == 4
            && f32_ulps(a, b).is_some_and(|d| d <= u64::from(ulp));
        if !close {
            return fault(format!(
                "crosscheck: compiled vector scope and interpreter differ at UB {:#x}: interpreter {a:02x?}, JIT {b:02x?}",
                4 * k
            ));
        }
    }
    Ok(())
}

fn f32_ulps(a: &[u8], b: &[u8]) -> Option<u64> {
    let x = f32::from_le_bytes(a.try_into().ok()?);
    let y = f32::from_le_bytes(b.try_into().ok()?);
    if x.is_nan() && y.is_nan() {
        return Some(0);
    }
    let scale = 1f32.max(x.abs()).max(y.abs());
    if (x - y).abs() <= 1e-5 * scale {
        return Some(0);
    }
    let key = |v: f32| {
        let i = v.to_bits() as i32;
        if i < 0 {
            i64::from(i32::MIN) - i64::from(i)
        } else {
            i64::from(i)
        }
    };
    Some(key(x).abs_diff(key(y)))
}

/// Scalar-unit instruction semantics shared by the scalar unit and vector scopes.
fn scalar_step(
    k: &K,
    regs: &mut [Val],
    local: &mut Local,
    sites: &mut HashMap<u32, u64>,
    bump: &mut [u64; 7],
    loop_regs: &mut LoopRegs,
    grid: (u32, u32, (i64, i64)),
) -> Result<Flow, Fault> {
    use exec::scalar;
    match k {
        K::Const { dst, val } => set(regs, *dst, val.clone())?,
        K::Bin { op, dst, a, b, dt } => {
            let v = scalar::bin(*op, get(regs, *a)?, get(regs, *b)?, *dt)?;
            set(regs, *dst, v)?
        }
        K::PackedBin {
            op,
            dst,
            a,
            b,
            dt,
            lanes,
        } => {
            let n = (*lanes).max(1) as usize;
            let (x, y) = (
                unpack(get(regs, *a)?, *dt, n)?,
                unpack(get(regs, *b)?, *dt, n)?,
            );
            let v = x
                .iter()
                .zip(&y)
                .map(|(p, q)| scalar::bin(*op, p, q, *dt))
                .collect::<Result<Vec<_>, _>>()?;
            set(regs, *dst, pack(v, *dt)?)?
        }
        K::Cmp {
            pred,
            unsigned,
            float,
            dst,
            a,
            b,
        } => {
            let v = scalar::cmp(*pred, *unsigned, *float, get(regs, *a)?, get(regs, *b)?)?;
            set(regs, *dst, Val::Int(v as i64))?
        }
        K::Select { dst, c, a, b } => {
            let cond = get(regs, *c)?.as_i64().unwrap_or(0) != 0;
            let v = get(regs, if cond { *a } else { *b })?.clone();
            set(regs, *dst, v)?
        }
        K::Conv {
            conv,
            dst,
            src,
            dt,
            from,
        } => {
            let v = scalar::conv(*conv, get(regs, *src)?, *dt, *from)?;
            set(regs, *dst, v)?
        }
        K::Moves { dsts, srcs } => {
            let vals: Vec<Val> = srcs
                .iter()
                .map(|s| get(regs, *s).cloned())
                .collect::<Result<_, _>>()?;
            for (d, v) in dsts.iter().zip(vals) {
                set(regs, *d, v)?;
            }
        }
        K::Jump(t) => return Ok(Flow::Jump(*t)),
        K::BrFalse { cond, target } => {
            if get(regs, *cond)?.as_i64().unwrap_or(0) == 0 {
                return Ok(Flow::Jump(*target));
            }
        }
        K::ForCheck { iv, ub, target } => {
            let (i, u) = (rd_int(regs, *iv)?, rd_int(regs, *ub)?);
            if i >= u {
                return Ok(Flow::Jump(*target));
            }
        }
        K::ForStep { iv, step } => {
            let st = rd_int(regs, *step)?;
            if st <= 0 {
                return fault(format!("scf.for step must be positive, got {st}"));
            }
            let i = rd_int(regs, *iv)?;
            set(regs, *iv, Val::Int(i.wrapping_add(st)))?
        }
        K::Query { dst, what } => {
            let v = match what {
                0 => grid.0 as i64,
                1 => grid.1 as i64,
                2 => grid.2 .0,
                _ => grid.2 .1,
            };
            set(regs, *dst, Val::Int(v))?
        }
        K::CastPtr {
            dst,
            src,
            space,
            elem,
        } => {
            let v = match get(regs, *src)? {
                Val::Int(a) => {
                    if *a < 0 {
                        return fault(format!("castptr of negative address {a}"));
                    }
                    Ptr {
                        space: space.unwrap_or(Space::Gm),
                        addr: *a as u64,
                        elem: *elem,
                    }
                }
                Val::Ptr(p) => Ptr {
                    space: space.unwrap_or(p.space),
                    addr: p.addr,
                    elem: *elem,
                },
                v => return fault(format!("castptr of {}", v.kind())),
            };
            set(regs, *dst, Val::Ptr(v))?
        }
        K::AddPtr {
            dst,
            src,
            off,
            stride,
        } => {
            let &Val::Ptr(p) = get(regs, *src)? else {
                return fault("addptr of a non-pointer");
            };
            let o = rd_int(regs, *off)?;
            let es = if *stride > 0 {
                *stride as i64
            } else {
                p.elem.bytes() as i64
            };
            let Some(a) = o
                .checked_mul(es)
                .and_then(|b| i64::try_from(p.addr).ok()?.checked_add(b))
            else {
                return fault(format!(
                    "addptr of {o} elements of {es} bytes to {:#x} overflows the address space",
                    p.addr
                ));
            };
            if a < 0 {
                return fault("addptr produced a negative address");
            }
            set(
                regs,
                *dst,
                Val::Ptr(Ptr {
                    addr: a as u64,
                    ..p
                }),
            )?
        }
        K::MakeView {
            dst,
            ptr,
            shape,
            strides,
            static_shape,
            elem,
            layout,
        } => {
            let Val::Ptr(p) = get(regs, *ptr)?.clone() else {
                return fault("make_tensor_view needs a pointer");
            };
            let mut sh: Vec<i64> = if shape.is_empty() {
                static_shape.iter().map(|d| d.unwrap_or(1)).collect()
            } else {
                shape
                    .iter()
                    .map(|r| rd_int(regs, *r))
                    .collect::<Result<_, _>>()?
            };
            let mut st: Vec<i64> = strides
                .iter()
                .map(|r| rd_int(regs, *r))
                .collect::<Result<_, _>>()?;
            if st.is_empty() {
                // contiguous row-major
                let mut acc = 1;
                st = vec![0; sh.len()];
                for i in (0..sh.len()).rev() {
                    st[i] = acc;
                    acc *= sh[i].max(1);
                }
            }
            if sh.len() > 5 || st.len() != sh.len() {
                return fault(format!(
                    "tensor view with {} dims and {} strides (at most 5, equal counts)",
                    sh.len(),
                    st.len()
                ));
            }
            let pad = 5 - sh.len();
            let mut shape5 = [1i64; 5];
            let mut str5 = [0i64; 5];
            shape5[pad..].copy_from_slice(&sh);
            str5[pad..].copy_from_slice(&st);
            sh.clear();
            let v = View {
                base: p.addr,
                elem: *elem,
                shape: shape5,
                strides: str5,
                layout: *layout,
            };
            set(regs, *dst, Val::View(Box::new(v)))?
        }
        K::PartitionView {
            dst,
            src,
            offsets,
            sizes,
            static_sizes,
        } => {
            let Val::View(v) = get(regs, *src)?.clone() else {
                return fault("partition_view needs a tensor view");
            };
            let offs: Vec<i64> = offsets
                .iter()
                .map(|r| rd_int(regs, *r))
                .collect::<Result<_, _>>()?;
            let szs: Vec<i64> = if sizes.is_empty() {
                static_sizes.iter().map(|d| d.unwrap_or(1)).collect()
            } else {
                sizes
                    .iter()
                    .map(|r| rd_int(regs, *r))
                    .collect::<Result<_, _>>()?
            };
            let n = offs.len().max(szs.len());
            if n > 5 {
                return fault("partition with more than 5 dims");
            }
            let pad = 5 - n;
            let mut out = (*v).clone();
            for i in 0..n {
                let d = pad + i;
                let o = offs.get(i).copied().unwrap_or(0);
                let s = szs.get(i).copied().unwrap_or(out.shape[d]);
                if o < 0 || s < 0 || o.checked_add(s).is_none_or(|e| e > v.shape[d]) {
                    return fault(format!(
                        "partition [{o}, {}) of dim {i} is outside the view's extent {}",
                        o.saturating_add(s),
                        v.shape[d]
                    ));
                }
                let moved = o
                    .checked_mul(v.strides[d])
                    .and_then(|x| x.checked_mul(v.elem.bytes() as i64))
                    .and_then(|x| i64::try_from(out.base).ok()?.checked_add(x))
                    .and_then(|a| u64::try_from(a).ok());
                let Some(base) = moved else {
                    return fault(format!(
                        "partition offset {o} of dim {i} (stride {} elements) moves the view outside the address space",
                        v.strides[d]
                    ));
                };
                out.base = base;
                out.shape[d] = s;
            }
            set(regs, *dst, Val::View(Box::new(out)))?
        }
        K::AllocTile {
            dst,
            site,
            tb,
            elem,
            addr,
            vrow,
            vcol,
        } => {
            let space = Space::of_tile(tb.loc);
            let bytes = (tb.rows.max(0) * tb.cols.max(0)) as u64 * elem.bytes() as u64;
            let a = match addr {
                Some(r) => {
                    let a = rd_int(regs, *r)?;
                    if a < 0 {
                        return fault(format!("tile address {a} is negative"));
                    }
                    a as u64
                }
                None => match sites.get(site) {
                    Some(a) => *a,
                    None => {
                        let i = space.local_index().unwrap_or(0);
                        let a = bump[i];
                        let size = local.size(space);
                        if a + bytes > size {
                            return fault(format!(
                                "automatic tile placement ran out of {}: this tile needs {bytes} bytes at offset {a}, the buffer has {size}; place tiles explicitly with `addr =`",
                                space.name()
                            ));
                        }
                        bump[i] = (a + bytes).div_ceil(512) * 512;
                        sites.insert(*site, a);
                        a
                    }
                },
            };
            local.slice(space, a, bytes)?;
            let vr = match vrow {
                Some(r) => rd_int(regs, *r)?,
                None => tb.v_row.unwrap_or(tb.rows),
            };
            let vc = match vcol {
                Some(r) => rd_int(regs, *r)?,
                None => tb.v_col.unwrap_or(tb.cols),
            };
            let t = Tile {
                loc: tb.loc,
                addr: a,
                elem: *elem,
                rows: tb.rows,
                cols: tb.cols,
                v_row: vr,
                v_col: vc,
                blayout: tb.blayout,
                slayout: tb.slayout,
                fractal: tb.fractal,
                pad: tb.pad,
            };
            let _ = TileLoc::Vec;
            set(regs, *dst, Val::Tile(Box::new(t)))?
        }
        K::SubView {
            dst,
            src,
            at,
            valid,
            tb,
            elem,
        } => {
            let at = (rd_int(regs, at.0)?, rd_int(regs, at.1)?);
            let valid = match valid {
                Some((a, b)) => Some((rd_int(regs, *a)?, rd_int(regs, *b)?)),
                None => None,
            };
            let t = exec::tile::subview(get(regs, *src)?, at, tb, *elem, valid)?;
            set(regs, *dst, Val::Tile(Box::new(t)))?
        }
        K::Reshape { dst, src, tb, elem } => {
            let t = exec::tile::reshape(get(regs, *src)?, tb, *elem)?;
            set(regs, *dst, Val::Tile(Box::new(t)))?
        }
        K::SetValidShape { tile, r, c } => {
            let (vr, vc) = (rd_int(regs, *r)?, rd_int(regs, *c)?);
            match regs.get_mut(*tile as usize) {
                Some(Val::Tile(t)) => {
                    if vr < 0 || vc < 0 || vr > t.rows || vc > t.cols {
                        return fault(format!(
                            "set_validshape {vr}x{vc} outside the {}x{} tile",
                            t.rows, t.cols
                        ));
                    }
                    t.v_row = vr;
                    t.v_col = vc;
                }
                _ => return fault("set_validshape of a non-tile"),
            }
        }
        K::IdsNew { dst, n } => set(regs, *dst, Val::Ids(vec![0; *n]))?,
        K::IdsGet { dst, arr, idx } => {
            let i = rd_int(regs, *idx)?;
            let v = match get(regs, *arr)? {
                Val::Ids(a) => match usize::try_from(i).ok().and_then(|i| a.get(i)) {
                    Some(v) => *v,
                    None => {
                        return fault(format!(
                            "event-id array index {i} is outside 0..{}",
                            a.len()
                        ))
                    }
                },
                v => return fault(format!("eventid_array_get of {}", v.kind())),
            };
            set(regs, *dst, Val::Int(v))?
        }
        K::IdsSet { arr, idx, val } => {
            let i = rd_int(regs, *idx)?;
            let v = rd_int(regs, *val)?;
            match regs.get_mut(*arr as usize) {
                Some(Val::Ids(a)) => match usize::try_from(i).ok().filter(|i| *i < a.len()) {
                    Some(i) => a[i] = v,
                    None => {
                        return fault(format!(
                            "event-id array index {i} is outside 0..{}",
                            a.len()
                        ))
                    }
                },
                _ => return fault("eventid_array_set of a non-array"),
            }
        }
        K::SetLoop { which, dir, a, b } => {
            let (x, y) = (rd_int(regs, *a)?, rd_int(regs, *b)?);
            let d = *dir as usize;
            match which {
                0 => {
                    if x < 0 || y < 0 {
                        return fault(format!("negative DMA loop size ({x}, {y})"));
                    }
                    loop_regs.size[d] = (x as u64, y as u64)
                }
                1 => loop_regs.loop1[d] = (x, y),
                3 => loop_regs.nz_para = Some(x as u64),
                4..=6 => loop_regs.fix[*which as usize - 4] = Some(x as u64),
                // set_loop3_para / set_channel_para (low 40 bits, high 24
                // bits): the register word PTOAS's `packLoopPair` forms
                7 | 8 => loop_regs.fix[*which as usize - 4] = Some(((y as u64) << 40) | x as u64),
                9..=11 => loop_regs.outtol1[*which as usize - 9] = x as u64,
                12 => loop_regs.fix[5] = Some(x as u64),
                _ => loop_regs.loop2[d] = (x, y),
            }
        }
        K::BitSet {
            dst,
            src,
            bit,
            set: on,
        } => {
            let (x, b) = (rd_int(regs, *src)?, rd_int(regs, *bit)?);
            if !(0..64).contains(&b) {
                return fault(format!("bit index {b} is outside 0..64"));
            }
            let m = 1i64 << b;
            let v = if *on { x | m } else { x & !m };
            set(regs, *dst, Val::Int(v))?
        }
        K::SetAtomic { op, dt } => {
            if let Some(op) = op {
                loop_regs.atomic = *op;
            }
            if let Some(dt) = dt {
                loop_regs.atomic_dt = *dt;
            }
        }
        K::Nop | K::End => {}
        K::Unsupported { what } => return fault(what.clone()),
        K::Trap => return fault("pto.trap: the kernel trapped"),
        K::SetMovPad { val, dt } => {
            let w = dt.bytes().clamp(1, 8);
            let bits: u64 = match get(regs, *val)? {
                Val::Int(i) => *i as u64,
                Val::Float(f) => match dt {
                    DType::F32 => (*f as f32).to_bits() as u64,
                    DType::F16 => half::f16::from_f64(*f).to_bits() as u64,
                    DType::BF16 => half::bf16::from_f64(*f).to_bits() as u64,
                    DType::F64 => f.to_bits(),
                    d => return fault(format!("set_mov_pad_val of a {d:?} value")),
                },
                v => return fault(format!("set_mov_pad_val of {}", v.kind())),
            };
            loop_regs.mov_pad = Some((bits.to_le_bytes(), w as u8));
        }
        K::Print { fmt, val, dt } => {
            let text = scalar::printf(fmt, get(regs, *val)?, *dt)?;
            eprint!("{text}");
        }
        K::SimtId { .. } => return fault("a SIMT thread id read outside a pto.simt_launch"),
        K::Warp { .. } | K::SimtSync | K::SimtKeep { .. } | K::SimtResume { .. } => {
            return fault("a SIMT thread op outside a pto.simt_launch")
        }
        K::FMath {
            op,
            dst,
            args,
            dt,
            lanes,
        } => {
            let n = (*lanes).max(1) as usize;
            let vals: Vec<Vec<Val>> = args
                .iter()
                .map(|r| unpack(get(regs, *r)?, *dt, n))
                .collect::<Result<_, _>>()?;
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                let v: Vec<f64> = vals
                    .iter()
                    .map(|l| match &l[i] {
                        Val::Float(f) => Ok(*f),
                        Val::Int(i) => Ok(*i as f64),
                        v => fault(format!("pto.{op} of {}", v.kind())),
                    })
                    .collect::<Result<_, _>>()?;
                let r = match (*op, v.as_slice()) {
                    ("sqrt", [a]) => a.sqrt(),
                    ("absf", [a]) => a.abs(),
                    ("exp", [a]) => a.exp(),
                    ("log", [a]) => a.ln(),
                    ("sin", [a]) => a.sin(),
                    ("cos", [a]) => a.cos(),
                    ("ceil", [a]) => a.ceil(),
                    ("floor", [a]) => a.floor(),
                    ("rint", [a]) => a.round_ties_even(),
                    ("round", [a]) => a.round(),
                    ("fmin", [a, b]) => a.min(*b),
                    ("fmax", [a, b]) => a.max(*b),
                    ("pow", [a, b]) => a.powf(*b),
                    ("fma", [a, b, c]) => a.mul_add(*b, *c),
                    _ => return fault(format!("pto.{op} with {} operand(s)", v.len())),
                };
                out.push(Val::Float(crate::num::round_float(r, *dt)));
            }
            set(regs, *dst, pack(out, *dt)?)?
        }
        K::Bitcast { dst, src, to, from } => {
            let n = match get(regs, *src)? {
                Val::Float(f) => Num::F(*f),
                v => Num::I(
                    v.as_i64()
                        .ok_or_else(|| Fault::Msg(format!("bitcast of {}", v.kind())))?,
                ),
            };
            let mut b = [0u8; 8];
            let es = from.bytes().clamp(1, 8);
            crate::num::write(&mut b[..es], *from, n);
            let v = match crate::num::read(&b[..es], *to) {
                Num::F(f) => Val::Float(f),
                Num::I(i) => Val::Int(i),
            };
            set(regs, *dst, v)?
        }
        K::SConvert {
            dst,
            src,
            to,
            from,
            round,
            unsigned,
            lanes,
        } => {
            let n = (*lanes).max(1) as usize;
            let out = unpack(get(regs, *src)?, *from, n)?
                .into_iter()
                .map(|x| sconvert(x, *to, *from, *round, *unsigned))
                .collect::<Result<Vec<_>, _>>()?;
            set(regs, *dst, pack(out, *to)?)?
        }
        K::IntMath {
            op,
            dst,
            args,
            bits,
            unsigned,
        } => {
            let v: Vec<i64> = args
                .iter()
                .map(|r| rd_int(regs, *r))
                .collect::<Result<_, _>>()?;
            // operands at their width: sign- or zero-extended
            let ext = |x: i64| -> i128 {
                match (*bits, *unsigned) {
                    (32, false) => x as i32 as i128,
                    (32, true) => x as u32 as i128,
                    (_, false) => x as i128,
                    (_, true) => x as u64 as i128,
                }
            };
            let r = match (*op, v.as_slice()) {
                ("mulhi", [a, b]) if *bits == 32 => (((ext(*a) * ext(*b)) >> 32) as i32) as i64,
                ("mulhi", [a, b]) if *bits == 64 => {
                    let p = if *unsigned {
                        ((ext(*a) as u128 * ext(*b) as u128) >> 64) as i128
                    } else {
                        (ext(*a) * ext(*b)) >> 64
                    };
                    p as i64
                }
                ("mul_i32toi64", [a, b]) => {
                    let (a, b) = if *unsigned {
                        (*a as u32 as i64, *b as u32 as i64)
                    } else {
                        (*a as i32 as i64, *b as i32 as i64)
                    };
                    a.wrapping_mul(b)
                }
                ("prmt", [a, b, sel]) => {
                    // bytes 0..4 from b, 4..8 from a; selector nibble n
                    // (low 3 bits) picks result byte n
                    let src = ((*a as u32 as u64) << 32) | (*b as u32 as u64);
                    let mut out = 0u32;
                    for n in 0..4 {
                        let i = (*sel >> (4 * n)) & 7;
                        out |= (((src >> (8 * i)) & 0xff) as u32) << (8 * n);
                    }
                    out as i32 as i64
                }
                _ => {
                    return fault(format!(
                        "pto.{op} on {bits}-bit operands is not implemented"
                    ))
                }
            };
            set(regs, *dst, Val::Int(r))?
        }
        other => return fault(format!("internal: {other:?} reached the scalar evaluator")),
    }
    Ok(Flow::Next)
}

fn vreg(regs: &[Val], r: Reg) -> Result<&[u8; 256], Fault> {
    match regs.get(r as usize) {
        Some(Val::VReg(v)) => Ok(v),
        Some(v) => fault(format!("expected a vector register, found {}", v.kind())),
        None => fault("bad register"),
    }
}

fn mask(regs: &[Val], r: Option<Reg>) -> Result<Box<[u8; 32]>, Fault> {
    match r {
        None => Ok(exec::vector::all_mask()),
        Some(r) => match regs.get(r as usize) {
            Some(Val::Mask(m)) => Ok(m.clone()),
            Some(v) => fault(format!("expected a mask, found {}", v.kind())),
            None => fault("bad register"),
        },
    }
}

/// `--watch` text of a vector op inside a scope: its result registers.
fn watch_vec(v: &VecOp, regs: &[Val]) -> String {
    let dt = watch::vec_result_type(v);
    let dsts: Vec<Reg> = match v {
        VecOp::Load { dst, .. }
        | VecOp::Ew { dst, .. }
        | VecOp::Broadcast { dst, .. }
        | VecOp::PSet { dst, .. } => vec![*dst],
        VecOp::PLt { dst, rest, .. } => std::iter::once(*dst).chain(*rest).collect(),
        VecOp::Generic { dsts, .. } => dsts.clone(),
        _ => vec![],
    };
    if let VecOp::Store { src, elem, .. } = v {
        // what was stored (the masked-off lanes were not written)
        return match regs.get(*src as usize) {
            Some(r) => format!("stored {}", watch::value(r, Some(*elem))),
            None => "?\n".into(),
        };
    }
    if dsts.is_empty() {
        return "executed (no register result)\n".into();
    }
    dsts.iter()
        .map(|d| match regs.get(*d as usize) {
            Some(v) => watch::value(v, dt),
            None => "?\n".into(),
        })
        .collect()
}

fn exec_vec(
    v: &VecOp,
    regs: &mut [Val],
    local: &mut Local,
    acc: &mut Accesses,
    pending: &mut Vec<(u64, u64, InstId)>,
    alias: &mut Vec<(InstId, InstId)>,
    inst: InstId,
) -> Result<(), Fault> {
    use exec::vector as xv;
    match v {
        VecOp::Load {
            dst,
            ptr,
            off,
            dist,
            elem,
        } => {
            let Val::Ptr(p) = get(regs, *ptr)?.clone() else {
                return fault("vlds needs a UB pointer");
            };
            let o = match off {
                Some(r) => rd_int(regs, *r)?,
                None => 0,
            };
            let mut a = Accesses {
                on: true,
                list: Vec::new(),
            };
            let r = xv::load(local, &p, o, *elem, *dist == Dist::Brc, &mut a)?;
            for x in &a.list {
                for (lo, hi, st) in pending.iter() {
                    if x.addr < *hi && *lo < x.addr + x.len && !alias.contains(&(*st, inst)) {
                        alias.push((*st, inst));
                    }
                }
                acc.add(x.space, x.addr, x.len, false);
            }
            set(regs, *dst, Val::VReg(r))
        }
        VecOp::Store {
            src,
            ptr,
            off,
            mask: m,
            elem,
        } => {
            let Val::Ptr(p) = get(regs, *ptr)?.clone() else {
                return fault("vsts needs a UB pointer");
            };
            let o = match off {
                Some(r) => rd_int(regs, *r)?,
                None => 0,
            };
            let mk = mask(regs, *m)?;
            let data = *vreg(regs, *src)?;
            let (lo, hi) = xv::store(local, &data, &p, o, *elem, &mk, acc)?;
            // a store the previous pending one of the same op covers adds
            // nothing (a loop storing to one place would otherwise grow
            // the list, and every later load's scan, without bound)
            match pending.last() {
                Some(&(l, h, st)) if st == inst && l <= lo && hi <= h => {}
                _ if hi > lo => pending.push((lo, hi, inst)),
                _ => {}
            }
            Ok(())
        }
        VecOp::Ew {
            op,
            dst,
            a,
            b,
            s,
            mask: m,
            elem,
        } => {
            let mk = mask(regs, *m)?;
            let av = *vreg(regs, *a)?;
            let bv = match b {
                Some(b) => Some(*vreg(regs, *b)?),
                None => None,
            };
            let sv = match s {
                Some(s) => Some(match get(regs, *s)? {
                    Val::Int(i) => Num::I(*i),
                    Val::Float(f) => Num::F(*f),
                    v => return fault(format!("expected a scalar, found {}", v.kind())),
                }),
                None => None,
            };
            let r = xv::lanewise(*op, &av, bv.as_ref(), sv, &mk, *elem);
            set(regs, *dst, Val::VReg(r))
        }
        VecOp::Broadcast {
            dst,
            s,
            mask: m,
            elem,
        } => {
            let n = match get(regs, *s)? {
                Val::Int(i) => Num::I(*i),
                Val::Float(f) => Num::F(*f),
                v => return fault(format!("vbr of {}", v.kind())),
            };
            let mut r = xv::broadcast(n, *elem);
            if m.is_some() {
                // vdup: dst[i] = mask[i] ? x : 0
                let mk = mask(regs, *m)?;
                let es = elem.bytes().max(1);
                for (i, lane) in r.chunks_exact_mut(es).enumerate() {
                    if !xv::lane_on(&mk, i, es) {
                        lane.fill(0);
                    }
                }
            }
            set(regs, *dst, Val::VReg(r))
        }
        VecOp::PSet { dst, pattern, gran } => {
            let m = xv::pattern(pattern, *gran as usize)?;
            set(regs, *dst, Val::Mask(m))
        }
        VecOp::PLt { dst, rest, n, gran } => {
            let cnt = rd_int(regs, *n)?;
            let lanes = 256 / *gran as i64;
            let m = xv::first_lanes(cnt.clamp(0, lanes) as usize, *gran as usize);
            set(regs, *dst, Val::Mask(m))?;
            if let Some(r) = rest {
                // the count left for the next plt of the chain: 0 once the
                // tail is covered (never negative)
                set(
                    regs,
                    *r,
                    Val::Int(if cnt < lanes { 0 } else { cnt - lanes }),
                )?;
            }
            Ok(())
        }
        VecOp::Generic {
            op,
            dsts,
            srcs,
            attrs,
        } => {
            let vals: Vec<Val> = srcs
                .iter()
                .map(|r| get(regs, *r).cloned())
                .collect::<Result<_, _>>()?;
            let out = if exec::vec_mem::ub_only(*op) {
                // loads and stores in the other distributions take part in
                // the store-then-load diagnosis as NORM/BRC ones do
                let mut own = Accesses {
                    on: true,
                    list: Vec::new(),
                };
                let out = exec::vec_ops::run(*op, &vals, attrs, local, &mut own)?;
                for x in &own.list {
                    let (lo, hi) = (x.addr, x.addr.saturating_add(x.len));
                    if x.space == Space::Ub && x.write {
                        match pending.last_mut() {
                            Some(last) if last.2 == inst && last.1 == lo => last.1 = hi,
                            Some(&mut (l, h, st)) if st == inst && l <= lo && hi <= h => {}
                            _ if hi > lo => pending.push((lo, hi, inst)),
                            _ => {}
                        }
                    } else if x.space == Space::Ub {
                        for (slo, shi, st) in pending.iter() {
                            if lo < *shi && *slo < hi && !alias.contains(&(*st, inst)) {
                                alias.push((*st, inst));
                            }
                        }
                    }
                    acc.add(x.space, x.addr, x.len, x.write);
                }
                out
            } else {
                exec::vec_ops::run(*op, &vals, attrs, local, acc)?
            };
            if out.len() != dsts.len() {
                return fault(format!(
                    "'{}' produced {} result(s), the op defines {}",
                    op.name(),
                    out.len(),
                    dsts.len()
                ));
            }
            for (d, v) in dsts.iter().zip(out) {
                set(regs, *d, v)?;
            }
            Ok(())
        }
        VecOp::MemBar { kind } => {
            if kind.contains("VST_VLD") || kind.contains("VV_ALL") {
                pending.clear();
            }
            Ok(())
        }
    }
}

/// The profile id used for a run (re-exported for callers).
pub fn profile_of(cfg: &Config) -> ProfileId {
    cfg.profile
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_cached_capture_matches_only_the_same_bits() {
        assert!(same_val(&Val::Float(0.0), &Val::Float(0.0)));
        assert!(!same_val(&Val::Float(0.0), &Val::Float(-0.0)));
        assert!(same_val(&Val::Float(f64::NAN), &Val::Float(f64::NAN)));
        assert!(!same_val(&Val::Int(1), &Val::Float(1.0)));
        assert!(!same_val(&Val::Int(1), &Val::Int(2)));
        let p = Ptr {
            space: Space::Ub,
            addr: 64,
            elem: DType::F32,
        };
        assert!(same_val(&Val::Ptr(p), &Val::Ptr(p)));
        assert!(!same_val(
            &Val::Ptr(p),
            &Val::Ptr(Ptr {
                elem: DType::F16,
                ..p
            })
        ));
        // anything boxed is snapshotted again, never compared
        let v = Val::VReg(Box::new([0; 256]));
        assert!(!same_val(&v, &v.clone()));
    }

    #[test]
    fn only_fixed_sync_ops_are_decoded() {
        use Pipe::*;
        let set = |src, dst, v| SyncOp::SetFlag {
            src,
            dst,
            event: IdRef::Static(v),
        };
        let wait = |src, dst, v| SyncOp::WaitFlag {
            src,
            dst,
            event: IdRef::Static(v),
        };
        assert_eq!(
            decode_sync(&set(Mte2, V, 3), 16),
            SuDec::Set {
                s: slot(Mte2) as u8,
                src: Mte2,
                dst: V,
                id: 3
            }
        );
        assert_eq!(
            decode_sync(&wait(Mte2, V, 15), 16),
            SuDec::Wait {
                s: slot(V) as u8,
                src: Mte2,
                dst: V,
                id: 15
            }
        );
        // a diagnostic, a fault or the scalar pipe: the full path each time
        for sop in [
            set(Mte2, V, 16),
            set(Mte2, V, -1),
            set(V, V, 0),
            set(All, V, 0),
            set(S, V, 0),
            wait(V, S, 0),
            wait(V, All, 0),
            SyncOp::SetFlag {
                src: Mte2,
                dst: V,
                event: IdRef::Dyn(0),
            },
            SyncOp::Barrier { pipe: All },
            SyncOp::Barrier { pipe: S },
        ] {
            assert_eq!(decode_sync(&sop, 16), SuDec::Slow, "{sop:?}");
        }
        assert_eq!(
            decode_sync(&SyncOp::Barrier { pipe: Mte3 }, 16),
            SuDec::Barrier {
                s: slot(Mte3) as u8
            }
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        /// The bitmap union gives exactly what sorting and merging gives.
        #[test]
        fn bitmap_normalize_equals_the_sorting_one(
            list in proptest::collection::vec(
                (0usize..8, any::<bool>(), 0u64..3000, 1u64..90),
                0..400,
            )
        ) {
            let spaces = [
                Space::Gm,
                Space::Ub,
                Space::L1,
                Space::L0a,
                Space::L0b,
                Space::L0c,
                Space::Bias,
                Space::Fb,
            ];
            let list: Vec<exec::Access> = list
                .into_iter()
                .map(|(s, write, addr, len)| exec::Access {
                    space: spaces[s],
                    addr,
                    len,
                    write,
                })
                .collect();
            let mut want = Accesses { on: true, list: list.clone() };
            want.normalize();
            let mut got = Accesses { on: true, list };
            normalize_accesses(&mut got);
            prop_assert_eq!(got.list, want.list);
        }

        /// The in-place normalization of short lists gives what sorting
        /// and merging gives, in and out of order.
        #[test]
        fn short_normalize_equals_the_sorting_one(
            list in proptest::collection::vec(
                (0usize..3, any::<bool>(), 0u64..200, 0u64..40),
                0..16,
            ),
            sorted in any::<bool>(),
        ) {
            let spaces = [Space::Gm, Space::Ub, Space::L1];
            let mut list: Vec<exec::Access> = list
                .into_iter()
                .map(|(s, write, addr, len)| exec::Access {
                    space: spaces[s],
                    addr,
                    len,
                    write,
                })
                .collect();
            if sorted {
                list.sort_by_key(|a| (a.space.local_index(), a.write, a.addr));
            }
            let mut want = Accesses { on: true, list: list.clone() };
            want.normalize();
            let mut got = Accesses { on: true, list };
            normalize_accesses(&mut got);
            prop_assert_eq!(got.list, want.list);
        }
    }
}
