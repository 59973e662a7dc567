//! The happens-before checker: vector clocks per agent (the scalar unit and each
//! pipe of each core), shadow state per 32-byte granule of every on-chip buffer
//! and of the GM bytes a cluster touches. The shadow is kept as runs of
//! granules with equal state (a tile written by one instruction is one run),
//! so an access costs per run it overlaps, not per granule. Each space is cut
//! into 16 KiB pages, each a sorted vector of runs: a DMA stream through one
//! GM buffer appends to its own page, a tile accessed again is updated in
//! place.
//!
//! Edges come from program order within a pipe, issue (scalar unit -> pipe),
//! set/wait tokens, buffer tokens, barriers and cross-core semaphores; the
//! machine joins clocks at those points. An access conflicts with an earlier one
//! of another agent when the earlier clock is not below the accessor's view of
//! that agent.

use crate::exec::Access;
use crate::program::InstId;
use crate::value::Space;

/// Agents per core: S, V, M, MTE1, MTE2, MTE3, FIX.
pub const AGENTS_PER_CORE: usize = 7;

/// Cores of the largest cluster: a cube core and two vector subblocks.
pub const MAX_CORES: usize = 3;

/// A vector clock, one entry per agent of the largest cluster (unused
/// entries stay 0). Inline, so every issue, set and buffer release copies
/// one without a heap allocation.
pub type Vc = [u32; MAX_CORES * AGENTS_PER_CORE];

const NONE: u16 = u16::MAX;
const GRANULE: u64 = 32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Acc {
    agent: u16,
    clock: u32,
    inst: InstId,
    epoch: u32,
}

impl Default for Acc {
    fn default() -> Self {
        Acc {
            agent: NONE,
            clock: 0,
            inst: 0,
            epoch: 0,
        }
    }
}

/// Shadow state of one granule: the last write and the reads since, one
/// per agent. The first reader is kept inline: a granule is almost always
/// read by one agent between writes, and a heap vector per granule made the
/// shadow of a large GM buffer cost more than the kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Cell {
    w: Acc,
    r1: Acc,
    more: Vec<Acc>,
}

impl Cell {
    #[cfg(test)]
    fn reads(&self) -> impl Iterator<Item = &Acc> {
        std::iter::once(&self.r1)
            .filter(|a| a.agent != NONE)
            .chain(self.more.iter())
    }

    #[cfg(test)]
    fn clear_reads(&mut self) {
        self.r1 = Acc::default();
        self.more.clear();
    }

    fn add_read(&mut self, me: Acc) {
        if self.r1.agent == NONE || self.r1.agent == me.agent {
            self.r1 = me;
        } else if let Some(r) = self.more.iter_mut().find(|r| r.agent == me.agent) {
            *r = me;
        } else {
            self.more.push(me);
        }
    }
}

/// Granules per shadow page (16 KiB of addresses). A space's shadow is cut
/// into pages so a stream of DMA transfers into one GM buffer appends to its
/// own page's runs while the transfers of another buffer append to theirs.
const PAGE: u64 = 512;

/// A run of granules `[start, end)` with equal state.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Run {
    start: u64,
    end: u64,
    cell: Cell,
}

/// One access being checked: who, where, and what it finds.
struct Ctx<'a> {
    agent: usize,
    inst: InstId,
    core: usize,
    a: Access,
    me: Acc,
    /// The accessor's clock.
    vc: &'a Vc,
    /// Where this access's conflicts start in the output.
    start: usize,
}

impl Ctx<'_> {
    /// Whether an earlier access is not ordered before this one.
    #[inline]
    fn unordered(&self, x: &Acc) -> bool {
        x.agent != NONE && x.agent as usize != self.agent && x.clock > self.vc[x.agent as usize]
    }

    /// Records a conflict with `other` on granules `[g0, g1)`, extending
    /// one this access already has with the same kind and earlier access.
    #[cold]
    fn note(&self, kind: ConflictKind, other: &Acc, g0: u64, g1: u64, out: &mut Vec<Conflict>) {
        let range = (
            (g0 * GRANULE).max(self.a.addr),
            (g1 * GRANULE).min(self.a.addr + self.a.len),
        );
        let earlier = (other.agent as usize, other.inst);
        for c in out[self.start..].iter_mut() {
            if c.kind == kind && c.earlier == earlier {
                c.range.0 = c.range.0.min(range.0);
                c.range.1 = c.range.1.max(range.1);
                return;
            }
        }
        out.push(Conflict {
            kind,
            earlier,
            later: (self.agent, self.inst),
            space: self.a.space,
            core: self.core,
            range,
        });
    }

    /// Checks the access against granules `[g0, g1)` in state `cell`.
    #[inline]
    fn check(&self, g0: u64, g1: u64, cell: &Cell, out: &mut Vec<Conflict>) {
        let w = &cell.w;
        if self.a.write {
            if self.unordered(w) {
                self.note(ConflictKind::Waw, w, g0, g1, out);
            } else if w.agent as usize == self.agent
                && self.a.space == Space::Gm
                && is_dma(self.agent)
                && w.epoch == self.me.epoch
                && w.clock != self.me.clock
            {
                self.note(ConflictKind::SamePipeWaw, w, g0, g1, out);
            }
            if self.unordered(&cell.r1) {
                self.note(ConflictKind::War, &cell.r1, g0, g1, out);
            }
            for r in &cell.more {
                if self.unordered(r) {
                    self.note(ConflictKind::War, r, g0, g1, out);
                }
            }
        } else if self.unordered(w) {
            self.note(ConflictKind::Raw, w, g0, g1, out);
        }
    }

    /// Applies the access to a granule's state.
    #[inline]
    fn update(&self, cell: &mut Cell) {
        if self.a.write {
            cell.w = self.me;
            cell.r1 = Acc::default();
            cell.more.clear();
        } else {
            cell.add_read(self.me);
        }
    }

    /// The state of a never accessed granule after the access.
    #[inline]
    fn fresh(&self) -> Cell {
        let mut c = Cell::default();
        if self.a.write {
            c.w = self.me;
        } else {
            c.r1 = self.me;
        }
        c
    }

    /// The state after the access of granules in state `cell`.
    fn after(&self, cell: &Cell) -> Cell {
        if self.a.write {
            self.fresh()
        } else {
            let mut c = cell.clone();
            c.add_read(self.me);
            c
        }
    }
}

/// Shadow of one page: sorted, disjoint runs of granules; granules in no
/// run were never accessed (a default cell, which conflicts with nothing).
/// Neighbouring runs may hold equal state: findings depend on each
/// granule's state only, run boundaries are a matter of size.
#[derive(Debug, Default)]
struct Page {
    runs: Vec<Run>,
    /// Index of the run the last access ended in (a guess for the next).
    hint: usize,
    /// Scratch for rebuilding the runs an access spans.
    scratch: Vec<Run>,
}

impl Page {
    /// Index of the first run ending after granule `lo`.
    fn locate(&self, lo: u64) -> usize {
        let runs = &self.runs;
        let ok =
            |i: usize| (i == runs.len() || runs[i].end > lo) && (i == 0 || runs[i - 1].end <= lo);
        let h = self.hint.min(runs.len());
        if ok(h) {
            h
        } else if h < runs.len() && ok(h + 1) {
            h + 1
        } else {
            runs.partition_point(|r| r.end <= lo)
        }
    }

    /// Applies an access to granules `[lo, hi)`: calls `check` on every
    /// accessed run's part in `[lo, hi)`, in address order, then updates.
    fn access(&mut self, lo: u64, hi: u64, cx: &Ctx, out: &mut Vec<Conflict>) {
        let i = self.locate(lo);
        let n = self.runs.len();
        // wholly in a gap (a buffer's first touch, a stream walking up it)
        if i == n || self.runs[i].start >= hi {
            self.hint = i;
            self.put_before(i, lo, hi, cx.fresh());
            return;
        }
        let (s, e) = (self.runs[i].start, self.runs[i].end);
        // within one run (a tile accessed again, part of a DMA'd tile)
        if s <= lo && hi <= e {
            self.hint = i;
            let cell = &mut self.runs[i].cell;
            cx.check(lo, hi, cell, out);
            if s == lo && e == hi {
                // exactly one run (a tile accessed again): in place
                cx.update(cell);
                return;
            }
            self.split(i, lo, hi, cx);
            return;
        }
        self.rebuild(i, lo, hi, cx, out);
    }

    /// Records `[lo, hi)` with `cell` just before run `i` (or at the end):
    /// extends run `i - 1` when it ends at `lo` with the same cell (the hint
    /// then moves to it), else inserts a run at `i`.
    #[inline]
    fn put_before(&mut self, i: usize, lo: u64, hi: u64, cell: Cell) {
        if i > 0 && self.runs[i - 1].end == lo && self.runs[i - 1].cell == cell {
            self.runs[i - 1].end = hi;
            self.hint = i - 1;
        } else {
            self.runs.insert(
                i,
                Run {
                    start: lo,
                    end: hi,
                    cell,
                },
            );
        }
    }

    /// Applies an access to `[lo, hi)`, strictly inside run `i` (already
    /// checked): splits the run around it.
    #[inline(never)]
    fn split(&mut self, i: usize, lo: u64, hi: u64, cx: &Ctx) {
        let n = self.runs.len();
        let (s, e) = (self.runs[i].start, self.runs[i].end);
        let cell = &self.runs[i].cell;
        let new = cx.after(cell);
        if new == *cell {
            return;
        }
        if s == lo {
            // a head: joins an equal run right before it
            self.runs[i].start = hi;
            self.put_before(i, lo, hi, new);
            return;
        }
        self.runs[i].end = lo;
        let run = Run {
            start: lo,
            end: hi,
            cell: new,
        };
        if e == hi {
            // a tail: joins an equal run right after it
            if i + 1 < n && self.runs[i + 1].start == hi && self.runs[i + 1].cell == run.cell {
                self.runs[i + 1].start = lo;
            } else {
                self.runs.insert(i + 1, run);
            }
            self.hint = i + 1;
            return;
        }
        let rest = Run {
            start: hi,
            end: e,
            cell: self.runs[i].cell.clone(),
        };
        self.runs.splice(i + 1..i + 1, [run, rest]);
        self.hint = i + 1;
    }

    /// Applies an access to `[lo, hi)` spanning several runs and gaps from
    /// run `i` on: checks each run's part, then rebuilds the runs it covers.
    #[inline(never)]
    fn rebuild(&mut self, i: usize, lo: u64, hi: u64, cx: &Ctx, found: &mut Vec<Conflict>) {
        let n = self.runs.len();
        let s = self.runs[i].start;
        let mut new = std::mem::take(&mut self.scratch);
        let push = |new: &mut Vec<Run>, start: u64, end: u64, cell: Cell| match new.last_mut() {
            Some(l) if l.end == start && l.cell == cell => l.end = end,
            _ => new.push(Run { start, end, cell }),
        };
        if s < lo {
            new.push(Run {
                start: s,
                end: lo,
                cell: self.runs[i].cell.clone(),
            });
        }
        let mut at = lo;
        let mut j = i;
        while j < n && self.runs[j].start < hi {
            let r = &self.runs[j];
            if r.start > at && !cx.a.write {
                push(&mut new, at, r.start, cx.fresh());
            }
            let (p0, p1) = (r.start.max(at), r.end.min(hi));
            cx.check(p0, p1, &r.cell, found);
            if !cx.a.write {
                push(&mut new, p0, p1, cx.after(&r.cell));
            }
            at = p1;
            j += 1;
        }
        if cx.a.write {
            push(&mut new, lo, hi, cx.fresh());
        } else if at < hi {
            push(&mut new, at, hi, cx.fresh());
        }
        let last = &self.runs[j - 1];
        if last.end > hi {
            let (end, cell) = (last.end, last.cell.clone());
            push(&mut new, hi, end, cell);
        }
        self.hint = i + new.len() - 1;
        self.runs.splice(i..j, new.drain(..));
        self.scratch = new;
    }
}

/// Shadow of one space: its touched pages, sorted by page number.
#[derive(Debug, Default)]
struct Shadow {
    pages: Vec<(u64, Page)>,
    /// Indices of the pages of the last two accesses, most recent first
    /// (a kernel streaming one buffer into another alternates two pages).
    hint: [usize; 2],
}

impl Shadow {
    /// Applies an access to granules `[first, last]`, page by page in
    /// address order.
    fn access(&mut self, first: u64, last: u64, cx: &Ctx, out: &mut Vec<Conflict>) {
        let mut g = first;
        loop {
            let p = g / PAGE;
            let hi = ((p + 1) * PAGE).min(last + 1);
            let [h0, h1] = self.hint;
            let i = if self.pages.get(h0).is_some_and(|(q, _)| *q == p) {
                h0
            } else if self.pages.get(h1).is_some_and(|(q, _)| *q == p) {
                self.hint = [h1, h0];
                h1
            } else {
                let i = match self.pages.binary_search_by_key(&p, |(q, _)| *q) {
                    Ok(i) => i,
                    Err(i) => {
                        self.pages.insert(i, (p, Page::default()));
                        i
                    }
                };
                self.hint = [i, h0];
                i
            };
            self.pages[i].1.access(g, hi, cx, out);
            if hi > last {
                return;
            }
            g = hi;
        }
    }
}

/// How two accesses conflict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConflictKind {
    /// Read after write.
    Raw,
    /// Write after read.
    War,
    /// Write after write.
    Waw,
    /// Two DMA writes of one pipe without `pipe_barrier`.
    SamePipeWaw,
}

/// A detected conflict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// Kind.
    pub kind: ConflictKind,
    /// Earlier access: agent and instruction.
    pub earlier: (usize, InstId),
    /// Later access.
    pub later: (usize, InstId),
    /// Space.
    pub space: Space,
    /// Core owning the buffer (GM: the accessor's core).
    pub core: usize,
    /// Byte range [lo, hi) where they overlap.
    pub range: (u64, u64),
}

/// Checker state for one cluster.
#[derive(Debug)]
pub struct Checker {
    /// Vector clock of each agent.
    pub vc: Vec<Vc>,
    /// `pipe_barrier` epoch of each agent.
    pub epoch: Vec<u32>,
    /// Per agent, how many joins its clock went through: while it stays
    /// the same, the clock changed in its own entry only (ticks), so a
    /// snapshot taken earlier equals the clock but for that entry.
    pub joins: Vec<u64>,
    local: Vec<Vec<Shadow>>,
    gm: Shadow,
}

/// `a = max(a, b)` entry by entry. Not inlined: as a function of two
/// fixed-size arrays that cannot overlap it compiles to a few vector
/// operations, where inlined into a caller it became 21 scalar ones.
#[inline(never)]
fn max_into(a: &mut Vc, b: &Vc) {
    for (x, y) in a.iter_mut().zip(b.iter()) {
        *x = (*x).max(*y);
    }
}

/// Whether an agent index is a DMA pipe (MTE1/MTE2/MTE3/FIX).
pub fn is_dma(agent: usize) -> bool {
    matches!(agent % AGENTS_PER_CORE, 3..=6)
}

impl Checker {
    /// A checker for `cores` cores (at most [`MAX_CORES`]).
    pub fn new(cores: usize) -> Self {
        let cores = cores.min(MAX_CORES);
        let n = cores * AGENTS_PER_CORE;
        Checker {
            vc: vec![[0; MAX_CORES * AGENTS_PER_CORE]; n],
            epoch: vec![0; n],
            joins: vec![0; n],
            local: (0..cores)
                .map(|_| (0..7).map(|_| Shadow::default()).collect())
                .collect(),
            gm: Shadow::default(),
        }
    }

    /// Advances an agent's own clock (one executed instruction).
    pub fn tick(&mut self, agent: usize) {
        self.vc[agent][agent] += 1;
    }

    /// `vc[agent] = max(vc[agent], other)`.
    pub fn join(&mut self, agent: usize, other: &Vc) {
        self.joins[agent] += 1;
        max_into(&mut self.vc[agent], other);
    }

    /// Joins every agent of `core` into `agent` (after a full drain).
    pub fn join_core(&mut self, agent: usize, core: usize) {
        for a in core * AGENTS_PER_CORE..(core + 1) * AGENTS_PER_CORE {
            if a != agent {
                let v = self.vc[a];
                self.join(agent, &v);
            }
        }
    }

    /// Records an access and returns the conflicts it has with earlier ones.
    pub fn access(
        &mut self,
        agent: usize,
        inst: InstId,
        core: usize,
        a: &Access,
        out: &mut Vec<Conflict>,
    ) {
        if a.len == 0 {
            return;
        }
        let me = Acc {
            agent: agent as u16,
            clock: self.vc[agent][agent],
            inst,
            epoch: self.epoch[agent],
        };
        let shadow = match a.space {
            Space::Gm => &mut self.gm,
            s => match s.local_index() {
                Some(i) => &mut self.local[core][i],
                None => return,
            },
        };
        let cx = Ctx {
            agent,
            inst,
            core,
            a: *a,
            me,
            vc: &self.vc[agent],
            start: out.len(),
        };
        let first = a.addr / GRANULE;
        let last = (a.addr + a.len - 1) / GRANULE;
        shadow.access(first, last, &cx, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc(addr: u64, len: u64, write: bool) -> Access {
        Access {
            space: Space::Ub,
            addr,
            len,
            write,
        }
    }

    /// The per-granule shadow the run-length one replaced, as a model.
    fn reference(
        cells: &mut std::collections::HashMap<u64, Cell>,
        c: &Checker,
        agent: usize,
        inst: InstId,
        a: &Access,
        out: &mut Vec<Conflict>,
    ) {
        let me = Acc {
            agent: agent as u16,
            clock: c.vc[agent][agent],
            inst,
            epoch: c.epoch[agent],
        };
        let vc = &c.vc[agent];
        let start = out.len();
        let note = |kind, other: &Acc, g: u64, out: &mut Vec<Conflict>| {
            let lo = (g * GRANULE).max(a.addr);
            let hi = ((g + 1) * GRANULE).min(a.addr + a.len);
            for x in out[start..].iter_mut() {
                if x.kind == kind && x.earlier == (other.agent as usize, other.inst) {
                    x.range = (x.range.0.min(lo), x.range.1.max(hi));
                    return;
                }
            }
            out.push(Conflict {
                kind,
                earlier: (other.agent as usize, other.inst),
                later: (agent, inst),
                space: a.space,
                core: 0,
                range: (lo, hi),
            });
        };
        for g in a.addr / GRANULE..=(a.addr + a.len - 1) / GRANULE {
            let cell = cells.entry(g).or_default();
            let w = cell.w;
            let unordered = |x: &Acc| {
                x.agent != NONE && x.agent as usize != agent && x.clock > vc[x.agent as usize]
            };
            if a.write {
                if unordered(&w) {
                    note(ConflictKind::Waw, &w, g, out);
                } else if w.agent as usize == agent
                    && a.space == Space::Gm
                    && is_dma(agent)
                    && w.epoch == me.epoch
                    && w.clock != me.clock
                {
                    note(ConflictKind::SamePipeWaw, &w, g, out);
                }
                for r in cell.reads() {
                    if unordered(r) {
                        note(ConflictKind::War, r, g, out);
                    }
                }
                cell.w = me;
                cell.clear_reads();
            } else {
                if unordered(&w) {
                    note(ConflictKind::Raw, &w, g, out);
                }
                cell.add_read(me);
            }
        }
    }

    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum Step {
        Access(usize, bool, u64, u64, bool),
        Tick(usize),
        Join(usize, usize),
        Barrier(usize),
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            4 => (0usize..7, any::<bool>(), 0u64..600, 1u64..300, any::<bool>())
                .prop_map(|(g, w, a, l, gm)| Step::Access(g, w, a, l, gm)),
            // tiles accessed again and again at the same place
            4 => (0usize..7, any::<bool>(), 0u64..4, 1u64..3, any::<bool>())
                .prop_map(|(g, w, a, l, gm)| Step::Access(g, w, a * 64, l * 64, gm)),
            2 => (0usize..7).prop_map(Step::Tick),
            1 => (0usize..7, 0usize..7).prop_map(|(a, b)| Step::Join(a, b)),
            1 => (0usize..7).prop_map(Step::Barrier),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        #[test]
        fn run_length_shadow_finds_what_the_granule_shadow_finds(
            steps in proptest::collection::vec(step(), 1..60)
        ) {
            let mut c = Checker::new(1);
            let mut cells = [std::collections::HashMap::new(), std::collections::HashMap::new()];
            for (i, s) in steps.iter().enumerate() {
                match *s {
                    Step::Access(agent, write, addr, len, gm) => {
                        let a = Access {
                            space: if gm { Space::Gm } else { Space::Ub },
                            addr,
                            len,
                            write,
                        };
                        let (mut got, mut want) = (Vec::new(), Vec::new());
                        reference(&mut cells[usize::from(gm)], &c, agent, i as InstId, &a, &mut want);
                        c.access(agent, i as InstId, 0, &a, &mut got);
                        prop_assert_eq!(got, want, "step {}", i);
                    }
                    Step::Tick(a) => c.tick(a),
                    Step::Join(a, b) => {
                        let v = c.vc[b];
                        c.join(a, &v);
                    }
                    Step::Barrier(a) => c.epoch[a] += 1,
                }
            }
        }
    }

    /// A plain per-byte model of the checker's semantics: every byte has
    /// its own state, an access stamps every byte of the 32-byte granules
    /// it touches (the tracking unit) and checks the bytes it touches, one
    /// at a time in address order. No runs, no pages, no fast paths.
    #[allow(
        clippy::too_many_arguments,
        reason = "a test model taking the access's fields"
    )]
    fn per_byte(
        bytes: &mut [Cell],
        c: &Checker,
        agent: usize,
        inst: InstId,
        core: usize,
        a: &Access,
        out: &mut Vec<Conflict>,
    ) {
        let me = Acc {
            agent: agent as u16,
            clock: c.vc[agent][agent],
            inst,
            epoch: c.epoch[agent],
        };
        let vc = &c.vc[agent];
        let start = out.len();
        let unordered = |x: &Acc| {
            x.agent != NONE && x.agent as usize != agent && x.clock > vc[x.agent as usize]
        };
        let note = |kind, other: &Acc, b: u64, out: &mut Vec<Conflict>| {
            let earlier = (other.agent as usize, other.inst);
            match out[start..]
                .iter_mut()
                .find(|x| x.kind == kind && x.earlier == earlier)
            {
                Some(x) => x.range = (x.range.0.min(b), x.range.1.max(b + 1)),
                None => out.push(Conflict {
                    kind,
                    earlier,
                    later: (agent, inst),
                    space: a.space,
                    core,
                    range: (b, b + 1),
                }),
            }
        };
        for b in a.addr..a.addr + a.len {
            let cell = &bytes[b as usize];
            let w = cell.w;
            if a.write {
                if unordered(&w) {
                    note(ConflictKind::Waw, &w, b, out);
                } else if w.agent as usize == agent
                    && a.space == Space::Gm
                    && is_dma(agent)
                    && w.epoch == me.epoch
                    && w.clock != me.clock
                {
                    note(ConflictKind::SamePipeWaw, &w, b, out);
                }
                for r in cell.reads() {
                    if unordered(r) {
                        note(ConflictKind::War, r, b, out);
                    }
                }
            } else if unordered(&w) {
                note(ConflictKind::Raw, &w, b, out);
            }
        }
        let lo = a.addr / GRANULE * GRANULE;
        let hi = (a.addr + a.len).div_ceil(GRANULE) * GRANULE;
        for cell in &mut bytes[lo as usize..hi as usize] {
            if a.write {
                cell.w = me;
                cell.clear_reads();
            } else {
                cell.add_read(me);
            }
        }
    }

    /// Bytes of one shadow page.
    const PAGE_BYTES: u64 = PAGE * GRANULE;

    /// An access of two cores' agents near page boundaries: small ones,
    /// tiles at the same places, and long ones spanning pages.
    fn byte_step() -> impl Strategy<Value = Step> {
        let base = prop_oneof![
            Just(0u64),
            Just(PAGE_BYTES - 512),
            Just(2 * PAGE_BYTES - 40)
        ];
        prop_oneof![
            4 => (0usize..14, any::<bool>(), base.clone(), 0u64..1024, 1u64..300, any::<bool>())
                .prop_map(|(g, w, b, o, l, gm)| Step::Access(g, w, b + o, l, gm)),
            4 => (0usize..14, any::<bool>(), base.clone(), 0u64..8, 1u64..4, any::<bool>())
                .prop_map(|(g, w, b, a, l, gm)| Step::Access(g, w, b + a * 256, l * 256, gm)),
            1 => (0usize..14, any::<bool>(), base, 0u64..600, 1u64..(PAGE_BYTES + 600), any::<bool>())
                .prop_map(|(g, w, b, o, l, gm)| Step::Access(g, w, b + o, l, gm)),
            2 => (0usize..14).prop_map(Step::Tick),
            2 => (0usize..14, 0usize..14).prop_map(|(a, b)| Step::Join(a, b)),
            1 => (0usize..14).prop_map(Step::Barrier),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        #[test]
        fn paged_shadow_finds_what_a_per_byte_model_finds(
            steps in proptest::collection::vec(byte_step(), 1..80)
        ) {
            let mut c = Checker::new(2);
            let size = (4 * PAGE_BYTES) as usize;
            // GM, then each core's UB
            let mut model: Vec<Vec<Cell>> = (0..3).map(|_| vec![Cell::default(); size]).collect();
            for (i, s) in steps.iter().enumerate() {
                match *s {
                    Step::Access(agent, write, addr, len, gm) => {
                        let core = agent / AGENTS_PER_CORE;
                        let a = Access {
                            space: if gm { Space::Gm } else { Space::Ub },
                            addr,
                            len,
                            write,
                        };
                        let m = if gm { 0 } else { 1 + core };
                        let (mut got, mut want) = (Vec::new(), Vec::new());
                        per_byte(&mut model[m], &c, agent, i as InstId, core, &a, &mut want);
                        c.access(agent, i as InstId, core, &a, &mut got);
                        prop_assert_eq!(got, want, "step {}", i);
                    }
                    Step::Tick(a) => c.tick(a),
                    Step::Join(a, b) => {
                        let v = c.vc[b];
                        c.join(a, &v);
                    }
                    Step::Barrier(a) => c.epoch[a] += 1,
                }
            }
        }
    }

    #[test]
    fn unsynchronized_write_then_read_is_a_race_and_a_join_fixes_it() {
        let mut c = Checker::new(1);
        let (mte2, v) = (4, 1);
        c.tick(mte2);
        let mut out = Vec::new();
        c.access(mte2, 10, 0, &acc(0, 64, true), &mut out);
        c.tick(v);
        c.access(v, 11, 0, &acc(32, 64, false), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].kind, ConflictKind::Raw);
        assert_eq!(out[0].range, (32, 64));
        // with the edge (set/wait) the same read is fine
        let mut c = Checker::new(1);
        c.tick(mte2);
        let mut out = Vec::new();
        c.access(mte2, 10, 0, &acc(0, 64, true), &mut out);
        let clock = c.vc[mte2];
        c.join(v, &clock);
        c.tick(v);
        c.access(v, 11, 0, &acc(32, 64, false), &mut out);
        assert!(out.is_empty());
    }
}
