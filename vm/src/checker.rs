//! The happens-before checker: vector clocks per agent (the scalar unit and each
//! pipe of each core), shadow state per 32-byte granule of every on-chip buffer
//! and of the GM bytes a cluster touches. The shadow is kept as runs of
//! granules with equal state (a tile written by one instruction is one run),
//! so an access costs per run it overlaps, not per granule.
//!
//! Edges come from program order within a pipe, issue (scalar unit -> pipe),
//! set/wait tokens, buffer tokens, barriers and cross-core semaphores; the
//! machine joins clocks at those points. An access conflicts with an earlier one
//! of another agent when the earlier clock is not below the accessor's view of
//! that agent.

use std::collections::BTreeMap;

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

/// Shadow of one space: runs of granules `[start, end)` with equal state,
/// keyed by `start`; granules in no run were never accessed.
#[derive(Debug, Default)]
struct Shadow {
    runs: BTreeMap<u64, (u64, Cell)>,
}

impl Shadow {
    /// Makes `g` the start of a run if a run covers it.
    fn split(&mut self, g: u64) {
        let Some((&s, (e, cell))) = self.runs.range(..g).next_back() else {
            return;
        };
        if *e > g {
            let (e, cell) = (*e, cell.clone());
            self.runs.insert(s, (g, cell.clone()));
            self.runs.insert(g, (e, cell));
        }
    }

    /// The runs and gaps covering granules `[first, last]`, in order, each
    /// with its state (a gap's is the default).
    fn pieces(&self, first: u64, last: u64) -> Vec<(u64, u64, Cell)> {
        let mut out = Vec::new();
        let mut at = first;
        for (&s, (e, cell)) in self.runs.range(first..=last) {
            if s > at {
                out.push((at, s, Cell::default()));
            }
            out.push((s, *e, cell.clone()));
            at = *e;
        }
        if at <= last {
            out.push((at, last + 1, Cell::default()));
        }
        out
    }

    /// Merges the run starting at `g` with an equal run right before it
    /// (when `left`) and right after it (when `right`).
    fn merge_neighbours(&mut self, g: u64, left: bool, right: bool) {
        let Some((mut end, cell)) = self.runs.get(&g).map(|(e, c)| (*e, c)) else {
            return;
        };
        let next = match right.then(|| self.runs.get(&end)).flatten() {
            Some((ne, nc)) if nc == cell => Some(*ne),
            _ => None,
        };
        let prev = match left.then(|| self.runs.range(..g).next_back()).flatten() {
            Some((&ps, (pe, pc))) if *pe == g && pc == cell => Some(ps),
            _ => None,
        };
        if let Some(ne) = next {
            self.runs.remove(&end);
            end = ne;
        }
        match prev {
            Some(ps) => {
                self.runs.remove(&g);
                if let Some(r) = self.runs.get_mut(&ps) {
                    r.0 = end;
                }
            }
            None => {
                if let Some(r) = self.runs.get_mut(&g) {
                    r.0 = end;
                }
            }
        }
    }

    /// Merges equal neighbouring runs around `[first, last]`.
    fn coalesce(&mut self, first: u64, last: u64) {
        let lo = self
            .runs
            .range(..first)
            .next_back()
            .map_or(first, |(s, _)| *s);
        let keys: Vec<u64> = self.runs.range(lo..=last + 1).map(|(s, _)| *s).collect();
        let mut prev: Option<u64> = None;
        for k in keys {
            if let Some(p) = prev {
                let merge = match (self.runs.get(&p), self.runs.get(&k)) {
                    (Some((pe, pc)), Some((_, kc))) => *pe == k && pc == kc,
                    _ => false,
                };
                if merge {
                    if let Some((ke, _)) = self.runs.remove(&k) {
                        if let Some(r) = self.runs.get_mut(&p) {
                            r.0 = ke;
                        }
                    }
                    continue;
                }
            }
            prev = Some(k);
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
    local: Vec<Vec<Shadow>>,
    gm: Shadow,
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
    pub fn join(&mut self, agent: usize, other: &[u32]) {
        // branch-free, so it vectorizes: joins run on every issue, token
        // and buffer hand-over
        for (a, b) in self.vc[agent].iter_mut().zip(other) {
            *a = (*a).max(*b);
        }
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
        let vc = &self.vc[agent];
        let shadow = match a.space {
            Space::Gm => &mut self.gm,
            s => match s.local_index() {
                Some(i) => &mut self.local[core][i],
                None => return,
            },
        };
        let first = a.addr / GRANULE;
        let last = (a.addr + a.len - 1) / GRANULE;
        let start = out.len();
        // the bytes of granules [g0, g1) this access touches
        let bytes = |g0: u64, g1: u64| {
            (
                (g0 * GRANULE).max(a.addr),
                (g1 * GRANULE).min(a.addr + a.len),
            )
        };
        let note = |kind: ConflictKind, other: &Acc, range: (u64, u64), out: &mut Vec<Conflict>| {
            // extend an existing conflict of this access with the same pair
            for c in out[start..].iter_mut() {
                if c.kind == kind && c.earlier == (other.agent as usize, other.inst) {
                    c.range.0 = c.range.0.min(range.0);
                    c.range.1 = c.range.1.max(range.1);
                    return;
                }
            }
            out.push(Conflict {
                kind,
                earlier: (other.agent as usize, other.inst),
                later: (agent, inst),
                space: a.space,
                core,
                range,
            });
        };
        let unordered = |x: &Acc| {
            x.agent != NONE && x.agent as usize != agent && x.clock > vc[x.agent as usize]
        };
        let check = |g0: u64, g1: u64, cell: &Cell, out: &mut Vec<Conflict>| {
            let range = bytes(g0, g1);
            let w = cell.w;
            if a.write {
                if unordered(&w) {
                    note(ConflictKind::Waw, &w, range, out);
                } else if w.agent as usize == agent
                    && a.space == Space::Gm
                    && is_dma(agent)
                    && w.epoch == me.epoch
                    && w.clock != me.clock
                {
                    note(ConflictKind::SamePipeWaw, &w, range, out);
                }
                for r in cell.reads() {
                    if unordered(r) {
                        note(ConflictKind::War, r, range, out);
                    }
                }
            } else if unordered(&w) {
                note(ConflictKind::Raw, &w, range, out);
            }
        };
        let written = Cell {
            w: me,
            ..Cell::default()
        };
        // past every run (a stream of DMA transfers walking up a buffer):
        // only the last run can merge with it, one search
        {
            let new = if a.write {
                written.clone()
            } else {
                let mut c = Cell::default();
                c.add_read(me);
                c
            };
            let beyond = match shadow.runs.last_entry() {
                None => true,
                Some(mut e) => {
                    let (end, cell) = e.get_mut();
                    if first < *end {
                        false
                    } else if *end == first && *cell == new {
                        *end = last + 1;
                        return;
                    } else {
                        true
                    }
                }
            };
            if beyond {
                shadow.runs.insert(first, (last + 1, new));
                return;
            }
        }
        // the common cases, in one to three searches: the access covers
        // exactly one run (a tile read or written again), lies inside one
        // run (a vector load of part of a DMA'd tile) or inside one gap (a
        // GM tile touched for the first time)
        'fast: {
            // the last run ending at or before `first` (start, end, state)
            let mut prev: Option<(u64, u64, Cell)> = None;
            if let Some((&s, (e, cell))) = shadow.runs.range_mut(..=first).next_back() {
                if *e > first {
                    if *e <= last {
                        break 'fast;
                    }
                    check(first, last + 1, cell, out);
                    if s == first && *e == last + 1 {
                        if a.write {
                            *cell = written;
                        } else {
                            cell.add_read(me);
                        }
                        return;
                    }
                    // inside a longer run: split it around the access
                    let new = if a.write {
                        written
                    } else {
                        let mut c = cell.clone();
                        c.add_read(me);
                        if c == *cell {
                            return;
                        }
                        c
                    };
                    let (end, old) = (*e, cell.clone());
                    if s < first {
                        *e = first;
                    }
                    if end > last + 1 {
                        shadow.runs.insert(last + 1, (end, old));
                    }
                    shadow.runs.insert(first, (last + 1, new));
                    shadow.merge_neighbours(first, s == first, end == last + 1);
                    return;
                }
                if *e == first {
                    prev = Some((s, *e, cell.clone()));
                }
            }
            // in a gap (or spanning further)
            let new = if a.write {
                written.clone()
            } else {
                let mut c = Cell::default();
                c.add_read(me);
                c
            };
            let next = match shadow.runs.range(first..).next() {
                Some((&s, _)) if s <= last => break 'fast,
                Some((&s, (e, c))) if s == last + 1 && *c == new => Some((s, *e)),
                _ => None,
            };
            let end = next.map_or(last + 1, |(_, e)| e);
            if let Some((ns, _)) = next {
                shadow.runs.remove(&ns);
            }
            match prev {
                Some((ps, _, pc)) if pc == new => {
                    if let Some(r) = shadow.runs.get_mut(&ps) {
                        r.0 = end;
                    }
                }
                _ => {
                    shadow.runs.insert(first, (end, new));
                }
            }
            return;
        }
        shadow.split(first);
        shadow.split(last + 1);
        for (g0, g1, mut cell) in shadow.pieces(first, last) {
            check(g0, g1, &cell, out);
            if !a.write {
                cell.add_read(me);
                shadow.runs.insert(g0, (g1, cell));
            }
        }
        if a.write {
            let covered: Vec<u64> = shadow.runs.range(first..=last).map(|(s, _)| *s).collect();
            for k in covered {
                shadow.runs.remove(&k);
            }
            shadow.runs.insert(first, (last + 1, written));
        }
        shadow.coalesce(first, last);
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
