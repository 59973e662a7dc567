//! The happens-before checker: vector clocks per agent (the scalar unit and each
//! pipe of each core), shadow state per 32-byte granule of every on-chip buffer
//! and of the GM bytes a cluster touches.
//!
//! Edges come from program order within a pipe, issue (scalar unit -> pipe),
//! set/wait tokens, buffer tokens, barriers and cross-core semaphores; the
//! machine joins clocks at those points. An access conflicts with an earlier one
//! of another agent when the earlier clock is not below the accessor's view of
//! that agent.

use std::collections::HashMap;

use crate::exec::Access;
use crate::program::InstId;
use crate::value::Space;

/// Agents per core: S, V, M, MTE1, MTE2, MTE3, FIX.
pub const AGENTS_PER_CORE: usize = 7;

const NONE: u16 = u16::MAX;
const GRANULE: u64 = 32;
const PAGE: u64 = 256; // granules per page

#[derive(Clone, Copy, Debug)]
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
#[derive(Clone, Debug, Default)]
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

#[derive(Debug, Default)]
struct Paged {
    pages: HashMap<u64, Box<[Cell]>>,
}

impl Paged {
    fn page(&mut self, p: u64) -> &mut [Cell] {
        self.pages
            .entry(p)
            .or_insert_with(|| vec![Cell::default(); PAGE as usize].into_boxed_slice())
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
    pub vc: Vec<Vec<u32>>,
    /// `pipe_barrier` epoch of each agent.
    pub epoch: Vec<u32>,
    local: Vec<Vec<Paged>>,
    gm: Paged,
}

/// Whether an agent index is a DMA pipe (MTE1/MTE2/MTE3/FIX).
pub fn is_dma(agent: usize) -> bool {
    matches!(agent % AGENTS_PER_CORE, 3..=6)
}

impl Checker {
    /// A checker for `cores` cores.
    pub fn new(cores: usize) -> Self {
        let n = cores * AGENTS_PER_CORE;
        Checker {
            vc: vec![vec![0; n]; n],
            epoch: vec![0; n],
            local: (0..cores)
                .map(|_| (0..7).map(|_| Paged::default()).collect())
                .collect(),
            gm: Paged::default(),
        }
    }

    /// Advances an agent's own clock (one executed instruction).
    pub fn tick(&mut self, agent: usize) {
        self.vc[agent][agent] += 1;
    }

    /// `vc[agent] = max(vc[agent], other)`.
    pub fn join(&mut self, agent: usize, other: &[u32]) {
        for (a, b) in self.vc[agent].iter_mut().zip(other) {
            if *b > *a {
                *a = *b;
            }
        }
    }

    /// Joins every agent of `core` into `agent` (after a full drain).
    pub fn join_core(&mut self, agent: usize, core: usize) {
        for a in core * AGENTS_PER_CORE..(core + 1) * AGENTS_PER_CORE {
            if a != agent {
                let v = self.vc[a].clone();
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
        let note = |kind: ConflictKind, other: &Acc, g: u64, out: &mut Vec<Conflict>| {
            let lo = (g * GRANULE).max(a.addr);
            let hi = ((g + 1) * GRANULE).min(a.addr + a.len);
            // extend an existing conflict of this access with the same pair
            for c in out[start..].iter_mut() {
                if c.kind == kind && c.earlier == (other.agent as usize, other.inst) {
                    c.range.0 = c.range.0.min(lo);
                    c.range.1 = c.range.1.max(hi);
                    return;
                }
            }
            out.push(Conflict {
                kind,
                earlier: (other.agent as usize, other.inst),
                later: (agent, inst),
                space: a.space,
                core,
                range: (lo, hi),
            });
        };
        let mut page_no = u64::MAX;
        let mut page: &mut [Cell] = &mut [];
        for g in first..=last {
            if g / PAGE != page_no {
                page_no = g / PAGE;
                page = shadow.page(page_no);
            }
            let cell = &mut page[(g % PAGE) as usize];
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
        let clock = c.vc[mte2].clone();
        c.join(v, &clock);
        c.tick(v);
        c.access(v, 11, 0, &acc(32, 64, false), &mut out);
        assert!(out.is_empty());
    }
}
