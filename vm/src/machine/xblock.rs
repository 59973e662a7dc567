//! GM races between blocks (`block-race`) and between ranks (`rank-race`).
//!
//! The blocks of a grid run concurrently on a device and share GM; nothing
//! orders one block's accesses against another's except `pto.syncall`. The
//! per-block checker cannot see that (each block has its own clocks), so each
//! block keeps a log of the GM ranges its transfers touched, tagged with how
//! many `syncall` barriers its core had passed, and after the run the logs of
//! all blocks are compared: a write of one block that overlaps a read or write
//! of another block between the same two barriers is a race.
//!
//! Only plain transfers are logged: `tload`, a non-atomic `tstore`, DMA
//! copies without an atomic mode, cube GM loads and FIXPIPE write-backs
//! without an `atomic(...)` clause, `mgather` and a non-atomic `mscatter`.
//! Atomic stores (which blocks may combine into one buffer), scalar-unit
//! accesses (`ld_dev`/`st_dev` flag protocols between blocks order through GM
//! itself), SIMT loads and stores, and collectives are left out, so the check
//! names plain overlaps only and never a protocol it cannot follow.
//!
//! Ranks (`--ranks R`) order each other only through signals: what a rank
//! did before a `tnotify` happens before what another rank does after a
//! `twait` (or a true `ttest`) that saw the signal. Each unit, a (rank,
//! block) pair, keeps a vector clock (its own entry counts its releases), a
//! signal keeps the join of the clocks of its notifiers, and a successful
//! wait joins it into the waiter's. With several blocks per rank a
//! `pto.syncall` is a release by every arriving block into a per-barrier
//! join that every block passing the barrier acquires. The log entries carry the index of the clock
//! snapshot they were made under, and the sweep compares across ranks:
//! ordered when the later access's clock has seen a notify of the earlier
//! access's rank made after it. Besides the plain transfers, non-atomic
//! `tput`/`tget` (also async, at issue) log what they read and write,
//! element run by element run.

use crate::diag::{DiagKind, Diags};
use crate::mem::Gm;
use crate::program::InstId;

/// One GM range a block's (or rank's) transfer touched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct XAccess {
    pub lo: u64,
    pub hi: u64,
    pub write: bool,
    /// Blocks: the `syncall` barriers the core had passed. Ranks: the index
    /// of the rank's clock snapshot ([`RankClock::snaps`]).
    pub epoch: u32,
    pub inst: InstId,
}

/// A block's (or rank's) log, merged as it grows.
#[derive(Debug)]
pub(crate) struct Log {
    pub list: Vec<XAccess>,
    /// Length that triggers the next merge.
    limit: usize,
}

impl Default for Log {
    fn default() -> Self {
        Log {
            list: Vec::new(),
            limit: 1 << 12,
        }
    }
}

impl Log {
    /// Records `[lo, hi)`, extending the last entry when the same
    /// instruction continues it (a DMA walking up a buffer).
    pub fn note(&mut self, lo: u64, hi: u64, write: bool, epoch: u32, inst: InstId) {
        if lo >= hi {
            return;
        }
        if let Some(l) = self.list.last_mut() {
            if l.inst == inst && l.write == write && l.epoch == epoch && l.lo <= lo && lo <= l.hi {
                l.hi = l.hi.max(hi);
                return;
            }
        }
        self.list.push(XAccess {
            lo,
            hi,
            write,
            epoch,
            inst,
        });
        if self.list.len() >= self.limit {
            self.merge();
            // a log that stays long after merging is merged less often
            self.limit = self.limit.max(self.list.len() * 2);
        }
    }

    /// Merges overlapping or adjacent ranges of one instruction, kind and
    /// epoch (what the comparison reports does not change).
    pub fn merge(&mut self) {
        let l = &mut self.list;
        l.sort_unstable_by_key(|a| (a.epoch, a.write, a.inst, a.lo));
        let mut out: Vec<XAccess> = Vec::with_capacity(l.len());
        for a in l.drain(..) {
            match out.last_mut() {
                Some(p)
                    if p.epoch == a.epoch
                        && p.write == a.write
                        && p.inst == a.inst
                        && a.lo <= p.hi =>
                {
                    p.hi = p.hi.max(a.hi);
                }
                _ => out.push(a),
            }
        }
        *l = out;
    }
}

/// At most this many `block-race` or `rank-race` findings per run (each names an
/// instruction pair; their repeats are counted, not listed).
const MAX_FINDINGS: usize = 32;

/// The sweep over all logged ranges (`(access, unit)`, unit = block or
/// rank): every pair of different units overlapping with at least one write
/// and not `ordered` is reported, until `MAX_FINDINGS` findings or a budget
/// of comparisons. `group` splits the sweep (accesses of different groups are
/// never compared).
fn sweep(
    mut ev: Vec<(XAccess, u32)>,
    group: impl Fn(&XAccess) -> u32,
    ordered: impl Fn(&(XAccess, u32), &(XAccess, u32)) -> bool,
    diags: &mut Diags,
    mut report: impl FnMut(&mut Diags, (XAccess, u32), (XAccess, u32), u64, u64),
) {
    ev.sort_unstable_by_key(|(a, u)| (group(a), a.lo, *u));
    let mut found = 0usize;
    // comparisons allowed: a grid of thousands of blocks all writing one
    // range would otherwise compare every pair
    let mut budget: u64 = 1 << 20;
    let mut i = 0;
    while i < ev.len() {
        let g = group(&ev[i].0);
        // ranges that may still be open, writes and reads apart: a read only
        // meets the writes, so many units reading one input cost nothing;
        // closed ranges are dropped when met
        let (mut writes, mut reads): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
        while i < ev.len() && group(&ev[i].0) == g {
            let (a, b) = ev[i];
            let sets: &mut [&mut Vec<usize>] = if a.write {
                &mut [&mut writes, &mut reads]
            } else {
                &mut [&mut writes]
            };
            for set in sets.iter_mut() {
                let mut k = 0;
                while k < set.len() {
                    if budget == 0 || found >= MAX_FINDINGS {
                        return;
                    }
                    budget -= 1;
                    let o = ev[set[k]];
                    if o.0.hi <= a.lo {
                        set.swap_remove(k);
                        continue;
                    }
                    k += 1;
                    if o.1 != b && !ordered(&o, &(a, b)) {
                        let before = diags.list.len();
                        // one order per pair, whichever came first in the
                        // sweep: the reader (else the later instruction) is
                        // the primary access
                        let (x, y) = if (!o.0.write, o.0.inst) > (!a.write, a.inst) {
                            ((a, b), o)
                        } else {
                            (o, (a, b))
                        };
                        report(diags, x, y, a.lo, a.hi.min(o.0.hi));
                        found += diags.list.len() - before;
                    }
                }
            }
            if a.write {
                writes.push(i);
            } else {
                reads.push(i);
            }
            i += 1;
        }
    }
}

/// Compares the logs of all blocks (`(block, log)`) and reports every
/// instruction pair of different blocks whose ranges overlap between the same
/// two barriers with at least one write.
pub(crate) fn check(logs: Vec<(u32, Vec<XAccess>)>, gm: &Gm, diags: &mut Diags) {
    if logs.len() < 2 {
        return;
    }
    let ev: Vec<(XAccess, u32)> = logs
        .into_iter()
        .flat_map(|(b, l)| l.into_iter().map(move |a| (a, b)))
        .collect();
    sweep(
        ev,
        |a| a.epoch,
        |_, _| false,
        diags,
        |d, o, a, lo, hi| report(d, gm, o, a, lo, hi),
    );
}

/// A rank's vector clock and the snapshots its log entries refer to (the
/// entry's `epoch` is the snapshot index).
#[derive(Debug)]
pub(crate) struct RankClock {
    pub rank: usize,
    pub vc: Vec<u32>,
    pub snaps: Vec<Vec<u32>>,
}

impl RankClock {
    pub fn new(rank: usize, ranks: usize) -> Self {
        RankClock {
            rank,
            vc: vec![0; ranks],
            snaps: vec![vec![0; ranks]],
        }
    }

    /// The snapshot index of the current clock.
    pub fn snap(&self) -> u32 {
        (self.snaps.len() - 1) as u32
    }

    /// A `tnotify`: what came before is released to its waiters. Returns the
    /// clock the signal joins.
    pub fn notify(&mut self) -> Vec<u32> {
        self.vc[self.rank] += 1;
        self.snaps.push(self.vc.clone());
        self.vc.clone()
    }

    /// A successful `twait`/`ttest`: joins the signal's clock.
    pub fn acquire(&mut self, sig: &[u32]) {
        let mut changed = false;
        for (a, b) in self.vc.iter_mut().zip(sig) {
            if *b > *a {
                *a = *b;
                changed = true;
            }
        }
        if changed {
            self.snaps.push(self.vc.clone());
        }
    }
}

/// Joins vector clock `vc` into `into` (entry-wise maximum; an empty
/// `into` takes `vc`'s length).
pub(crate) fn join(into: &mut Vec<u32>, vc: &[u32]) {
    if into.len() < vc.len() {
        into.resize(vc.len(), 0);
    }
    for (a, b) in into.iter_mut().zip(vc) {
        *a = (*a).max(*b);
    }
}

/// One rank's log: (rank, accesses, clock snapshots).
pub(crate) type RankLog = (u32, Vec<XAccess>, Vec<Vec<u32>>);

/// Compares the logs of all ranks; a log's unit is `rank * blocks + block`.
pub(crate) fn check_ranks(logs: Vec<RankLog>, blocks: u32, gm: &Gm, diags: &mut Diags) {
    if logs.len() < 2 {
        return;
    }
    let units = logs.iter().map(|l| l.0 as usize + 1).max().unwrap_or(0);
    let mut snaps: Vec<Vec<Vec<u32>>> = vec![Vec::new(); units];
    let mut ev: Vec<(XAccess, u32)> = Vec::new();
    for (r, l, s) in logs {
        if let Some(slot) = snaps.get_mut(r as usize) {
            *slot = s;
            ev.extend(l.into_iter().map(|a| (a, r)));
        }
    }
    let clock =
        |(a, r): &(XAccess, u32)| snaps.get(*r as usize).and_then(|s| s.get(a.epoch as usize));
    // `x` before `y` when y's clock saw a notify of x's rank made after x
    let before = |x: &(XAccess, u32), y: &(XAccess, u32)| match (clock(x), clock(y)) {
        (Some(cx), Some(cy)) => {
            let r = x.1 as usize;
            cy.get(r).copied().unwrap_or(0) > cx.get(r).copied().unwrap_or(0)
        }
        _ => true,
    };
    sweep(
        ev,
        |_| 0,
        |o, a| before(o, a) || before(a, o),
        diags,
        |d, o, a, lo, hi| report_rank(d, gm, blocks.max(1), o, a, lo, hi),
    );
}

/// `[lo, hi)` for a message: bytes of the argument buffer holding `lo`.
fn place(gm: &Gm, lo: u64, hi: u64) -> String {
    match gm.buffer_at(lo) {
        Some(buf) => format!(
            "bytes [{:#x}, {:#x}) of {}",
            lo - buf.lo,
            hi.min(buf.hi) - buf.lo,
            buf.name
        ),
        None => format!("GM bytes [{lo:#x}, {hi:#x})"),
    }
}

/// One finding between two units (`rank * blocks + block`) of a run with
/// several ranks: a `rank-race` between ranks, a `block-race` between the
/// blocks of one rank.
fn report_rank(
    diags: &mut Diags,
    gm: &Gm,
    blocks: u32,
    (first, fu): (XAccess, u32),
    (second, su): (XAccess, u32),
    lo: u64,
    hi: u64,
) {
    let place = place(gm, lo, hi);
    let ((fr, fb), (sr, sb)) = ((fu / blocks, fu % blocks), (su / blocks, su % blocks));
    if fr == sr {
        let what = match (first.write, second.write) {
            (true, true) => format!("blocks {fb} and {sb} of rank {fr} both write {place}"),
            (true, false) => {
                format!("block {sb} of rank {fr} reads {place}, which block {fb} writes")
            }
            _ => format!("block {fb} of rank {fr} reads {place}, which block {sb} writes"),
        };
        diags.report(
            DiagKind::BlockRace,
            Some(second.inst),
            Some(first.inst),
            || format!("{what}, and nothing orders the two blocks"),
            || {
                Some(
                    "give each block its own part of the buffer (offsets from pto.get_block_idx), or put a pto.syncall between the write and the other block's access"
                        .into(),
                )
            },
        );
        return;
    }
    let who = |r: u32, b: u32| {
        if blocks > 1 {
            format!("rank {r} (block {b})")
        } else {
            format!("rank {r}")
        }
    };
    let (f, s) = (who(fr, fb), who(sr, sb));
    let what = match (first.write, second.write) {
        (true, true) if blocks > 1 => format!("{f} and {s} both write {place}"),
        (true, true) => format!("ranks {fr} and {sr} both write {place}"),
        (true, false) => format!("{s} reads {place}, which {f} writes"),
        _ => format!("{f} reads {place}, which {s} writes"),
    };
    diags.report(
        DiagKind::RankRace,
        Some(second.inst),
        Some(first.inst),
        || format!("{what}, and no tnotify/twait pair orders the two"),
        || {
            Some(
                "after the write, tnotify a signal the other rank twaits on before its access (or give each rank its own part of the buffer)"
                    .into(),
            )
        },
    );
}

/// One finding: `first` (block `fb`) and `second` (block `sb`) overlap in
/// `[lo, hi)`.
fn report(
    diags: &mut Diags,
    gm: &Gm,
    (first, fb): (XAccess, u32),
    (second, sb): (XAccess, u32),
    lo: u64,
    hi: u64,
) {
    let place = place(gm, lo, hi);
    let what = match (first.write, second.write) {
        (true, true) => format!("blocks {fb} and {sb} both write {place}"),
        (true, false) => format!("block {sb} reads {place}, which block {fb} writes"),
        _ => format!("block {fb} reads {place}, which block {sb} writes"),
    };
    let barrier = if first.epoch == 0 {
        String::new()
    } else {
        format!(" (after pto.syncall number {})", first.epoch)
    };
    diags.report(
        DiagKind::BlockRace,
        Some(second.inst),
        Some(first.inst),
        || format!("{what}{barrier}, and nothing orders the two blocks"),
        || {
            Some(
                "give each block its own part of the buffer (offsets from pto.get_block_idx), or put a pto.syncall between the write and the other block's access"
                    .into(),
            )
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc(lo: u64, hi: u64, write: bool, epoch: u32, inst: InstId) -> XAccess {
        XAccess {
            lo,
            hi,
            write,
            epoch,
            inst,
        }
    }

    /// The findings of `logs` as (kind of pair, primary inst, other inst).
    fn findings(logs: Vec<(u32, Vec<XAccess>)>) -> Vec<(Option<InstId>, Option<InstId>, String)> {
        let mut d = Diags::default();
        check(logs, &Gm::new(1 << 16), &mut d);
        d.list
            .into_iter()
            .map(|f| (f.inst, f.other, f.message))
            .collect()
    }

    #[test]
    fn overlaps_between_blocks_with_a_write_are_races() {
        // both blocks write [0, 64): one finding
        let f = findings(vec![
            (0, vec![acc(0, 64, true, 0, 7)]),
            (1, vec![acc(0, 64, true, 0, 7)]),
        ]);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].2
                .starts_with("blocks 0 and 1 both write GM bytes [0x0, 0x40)"),
            "{f:?}"
        );
        // a read of one block inside another's write
        let f = findings(vec![
            (0, vec![acc(0, 64, true, 0, 3)]),
            (1, vec![acc(32, 48, false, 0, 5)]),
        ]);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].2
                .contains("block 1 reads GM bytes [0x20, 0x30), which block 0 writes"),
            "{f:?}"
        );
        // the writer comes second in address order
        let f = findings(vec![
            (0, vec![acc(0, 64, false, 0, 3)]),
            (1, vec![acc(32, 96, true, 0, 5)]),
        ]);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].2
                .contains("block 0 reads GM bytes [0x20, 0x40), which block 1 writes"),
            "{f:?}"
        );
    }

    #[test]
    fn disjoint_ranges_reads_only_own_block_and_other_epochs_are_not() {
        let f = findings(vec![
            // each block its own quarter, all read one shared input
            (
                0,
                vec![acc(0, 64, true, 0, 1), acc(1000, 2000, false, 0, 2)],
            ),
            (
                1,
                vec![acc(64, 128, true, 0, 1), acc(1000, 2000, false, 0, 2)],
            ),
            (
                2,
                vec![acc(128, 192, true, 0, 1), acc(1000, 2000, false, 0, 2)],
            ),
        ]);
        assert!(f.is_empty(), "{f:?}");
        // one block writes and reads back its own range
        let f = findings(vec![
            (0, vec![acc(0, 64, true, 0, 1), acc(0, 64, false, 0, 2)]),
            (1, vec![acc(64, 128, true, 0, 1)]),
        ]);
        assert!(f.is_empty(), "{f:?}");
        // a syncall between block 0's write and block 1's read
        let f = findings(vec![
            (0, vec![acc(0, 64, true, 0, 1)]),
            (1, vec![acc(0, 64, false, 1, 2)]),
        ]);
        assert!(f.is_empty(), "{f:?}");
    }

    #[test]
    fn a_huge_grid_writing_one_range_is_checked_in_bounded_time() {
        let logs: Vec<(u32, Vec<XAccess>)> = (0..65536)
            .map(|b| {
                (
                    b,
                    vec![acc(0, 64, true, 0, 1), acc(4096, 8192, false, 0, 2)],
                )
            })
            .collect();
        // every pair races; the comparisons stop at the budget (unbounded,
        // the 2^31 pairs took minutes)
        let f = findings(logs);
        assert_eq!(f.len(), 1, "{f:?}");
    }

    #[test]
    fn ranks_are_ordered_by_a_notify_the_other_waited_for() {
        let race = |waited: bool| {
            // rank 0 writes [0, 64) under clock snapshot 0, then notifies
            // (snapshot 1); rank 1 reads it under snapshot 0 or, after a wait
            // that saw the notify, snapshot 1
            let mut r0 = RankClock::new(0, 2);
            let sig = r0.notify();
            let mut r1 = RankClock::new(1, 2);
            if waited {
                r1.acquire(&sig);
            }
            let mut d = Diags::default();
            check_ranks(
                vec![
                    (0, vec![acc(0, 64, true, 0, 1)], r0.snaps),
                    (1, vec![acc(0, 64, false, r1.snap(), 2)], r1.snaps),
                ],
                1,
                &Gm::new(1 << 16),
                &mut d,
            );
            d.list.into_iter().map(|f| f.message).collect::<Vec<_>>()
        };
        assert_eq!(
            race(false),
            vec!["rank 1 reads GM bytes [0x0, 0x40), which rank 0 writes, and no tnotify/twait pair orders the two"]
        );
        assert!(race(true).is_empty());
    }

    #[test]
    fn a_log_merges_what_one_instruction_streams() {
        let mut l = Log::default();
        for k in 0..10_000u64 {
            l.note(k * 32, k * 32 + 32, true, 0, 4);
            l.note(1 << 20, (1 << 20) + 8, false, 0, 9);
        }
        l.merge();
        assert_eq!(
            l.list,
            vec![
                acc(1 << 20, (1 << 20) + 8, false, 0, 9),
                acc(0, 320_000, true, 0, 4)
            ]
        );
    }
}
