//! Runtime diagnostics: races, deadlocks, unpaired flags... each reported once
//! per (kind, instruction pair) with a count, pointing at `.pto` lines.

use std::collections::HashMap;

use pto_asm::Loc;

use crate::program::{InstId, Program};

/// What kind of synchronization mistake.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DiagKind {
    /// Conflicting accesses on different pipes without an ordering edge.
    Race,
    /// Two DMA writes of one pipe to one GM range without `pipe_barrier`.
    SamePipeWaw,
    /// `vsts` then an aliasing `vlds` in one vector scope without `mem_bar`.
    VectorAlias,
    /// Every runnable agent is blocked.
    Deadlock,
    /// A second `set_flag` on a triple before the wait consumed the first.
    DoubleSet,
    /// A `set_flag` never consumed by a `wait_flag` at kernel end.
    UnpairedSet,
    /// A buffer id acquired and never released at kernel end.
    HeldBuffer,
    /// `rls_buf` of a buffer id the pipe does not hold.
    BadRelease,
    /// Event id outside the profile's range.
    BadEventId,
    /// A pipe the profile does not have, or an impossible pipe for the op.
    BadPipe,
    /// `TSYNC<Op>` / `tsync` barrier on a non-vector op class.
    TsyncNonVector,
    /// Float division by zero (IEEE result produced).
    DivByZero,
    /// GM an asynchronous transfer still owns, touched before its wait.
    AsyncBeforeWait,
    /// A GM access that is not inside one argument buffer.
    GmOutOfBuffer,
    /// Two blocks touch the same GM bytes, one of them writing, with no
    /// `syncall` between.
    BlockRace,
    /// Two ranks touch the same GM bytes, one of them writing, with no
    /// `tnotify`/`twait` pair between.
    RankRace,
}

impl DiagKind {
    /// The name printed in reports (`race`, `deadlock`...).
    pub fn name(self) -> &'static str {
        match self {
            DiagKind::Race => "race",
            DiagKind::SamePipeWaw => "same-pipe-waw",
            DiagKind::VectorAlias => "vector-alias",
            DiagKind::Deadlock => "deadlock",
            DiagKind::DoubleSet => "double-set",
            DiagKind::UnpairedSet => "unpaired-set",
            DiagKind::HeldBuffer => "held-buffer",
            DiagKind::BadRelease => "bad-release",
            DiagKind::BadEventId => "bad-event-id",
            DiagKind::BadPipe => "bad-pipe",
            DiagKind::TsyncNonVector => "tsync-non-vector",
            DiagKind::DivByZero => "div-by-zero",
            DiagKind::AsyncBeforeWait => "async-before-wait",
            DiagKind::GmOutOfBuffer => "gm-out-of-buffer",
            DiagKind::BlockRace => "block-race",
            DiagKind::RankRace => "rank-race",
        }
    }
}

/// One diagnostic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunDiag {
    /// Kind.
    pub kind: DiagKind,
    /// Primary instruction (the later one for races).
    pub inst: Option<InstId>,
    /// Other instruction (the earlier one for races).
    pub other: Option<InstId>,
    /// Explanation.
    pub message: String,
    /// Suggested fix.
    pub fix: Option<String>,
    /// How many times it happened.
    pub count: u64,
}

/// Collects diagnostics, deduplicated by (kind, instruction pair).
#[derive(Clone, Debug, Default)]
pub struct Diags {
    index: HashMap<(DiagKind, Option<InstId>, Option<InstId>), usize>,
    /// In first-seen order.
    pub list: Vec<RunDiag>,
}

impl Diags {
    /// Reports (or counts again) a diagnostic.
    pub fn report(
        &mut self,
        kind: DiagKind,
        inst: Option<InstId>,
        other: Option<InstId>,
        message: impl FnOnce() -> String,
        fix: impl FnOnce() -> Option<String>,
    ) {
        let key = (kind, inst, other);
        if let Some(&i) = self.index.get(&key) {
            self.list[i].count += 1;
            return;
        }
        self.index.insert(key, self.list.len());
        self.list.push(RunDiag {
            kind,
            inst,
            other,
            message: message(),
            fix: fix(),
            count: 1,
        });
    }

    /// Merges another collection (from another block).
    pub fn merge(&mut self, other: Diags) {
        for d in other.list {
            let key = (d.kind, d.inst, d.other);
            if let Some(&i) = self.index.get(&key) {
                self.list[i].count += d.count;
            } else {
                self.index.insert(key, self.list.len());
                self.list.push(d);
            }
        }
    }

    /// True if nothing was reported.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Kinds reported (sorted, deduplicated), for tests.
    pub fn kinds(&self) -> Vec<DiagKind> {
        let mut k: Vec<_> = self.list.iter().map(|d| d.kind).collect();
        k.sort();
        k.dedup();
        k
    }
}

impl RunDiag {
    /// Renders like rustc, with the source line and a caret when `source` is given.
    pub fn render(&self, prog: &Program, source: Option<&str>) -> String {
        let file = &prog.source_name;
        let loc = self
            .inst
            .map(|i| prog.info(i).loc)
            .unwrap_or(Loc { line: 0, col: 0 });
        let mut out = format!(
            "{file}:{}:{}: {}: {}",
            loc.line,
            loc.col,
            self.kind.name(),
            self.message
        );
        if self.count > 1 {
            out.push_str(&format!(" ({} times)", self.count));
        }
        out.push('\n');
        let show = |out: &mut String, l: Loc| {
            if let Some(text) =
                source.and_then(|s| s.lines().nth(l.line.saturating_sub(1) as usize))
            {
                let lno = l.line.to_string();
                let pad = " ".repeat(lno.len());
                out.push_str(&format!(
                    "{lno} | {}\n{pad} | {}^\n",
                    text,
                    " ".repeat(l.col.saturating_sub(1) as usize)
                ));
            }
        };
        if loc.line > 0 {
            show(&mut out, loc);
        }
        if let Some(o) = self.other {
            let ol = prog.info(o).loc;
            out.push_str(&format!(
                "  = note: the other access is at {file}:{}:{}\n",
                ol.line, ol.col
            ));
            show(&mut out, ol);
        }
        if let Some(f) = &self.fix {
            out.push_str(&format!("  = help: {f}\n"));
        }
        out
    }
}
