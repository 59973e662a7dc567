//! `--watch LINE`: what the instructions of a source line produced, each time
//! one of them completes. A tile op shows its destination tile, a store its
//! GM view, a DMA its destination burst by burst, a `mad` its `M x N`
//! result, a vector op inside a `pto.vecscope` its result registers, a
//! scalar instruction its results. Each report is rendered when it happens
//! (the data change later) and kept in the run's output; a line's reports
//! stop after its limit, its executions are still counted.

use pto_isa_spec::DType;
use rustc_hash::FxHashMap;

use crate::exec::{self, tile_ops, Accesses};
use crate::mem::{Gm, Local};
use crate::num::{read, Num};
use crate::program::{InstId, Program, VecOp};
use crate::value::{Tile, Val, View};

/// Rows and columns of a tile or view a report shows (the rest is elided).
const SHOW_ROWS: i64 = 8;
const SHOW_COLS: i64 = 8;
/// Lanes of a vector register a report shows.
const SHOW_LANES: usize = 16;

/// One watched source line: show at most `max` executions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WatchLine {
    /// 1-based line of the kernel source.
    pub line: u32,
    /// Reports to keep (per block).
    pub max: u32,
}

/// What one execution of a watched instruction produced.
#[derive(Clone, Debug, PartialEq)]
pub struct WatchReport {
    /// The instruction.
    pub inst: InstId,
    /// Its source line.
    pub line: u32,
    /// Block and rank that executed it.
    pub block: u32,
    /// Rank (0 without `--ranks`).
    pub rank: u32,
    /// Which execution of the line this is in its block (1-based).
    pub hit: u64,
    /// The rendered values, one or more lines.
    pub text: String,
}

/// A block's watcher.
#[derive(Debug)]
pub(crate) struct Watcher {
    /// By line: (limit, executions so far).
    lines: FxHashMap<u32, (u32, u64)>,
    pub reports: Vec<WatchReport>,
    block: u32,
    rank: u32,
}

impl Watcher {
    pub fn new(lines: &[WatchLine], block: u32, rank: u32) -> Option<Watcher> {
        if lines.is_empty() {
            return None;
        }
        Some(Watcher {
            lines: lines.iter().map(|w| (w.line, (w.max, 0))).collect(),
            reports: Vec::new(),
            block,
            rank,
        })
    }

    /// Counts an execution of `inst`; true when a report should be made.
    pub fn hit(&mut self, prog: &Program, inst: InstId) -> bool {
        let line = prog.info(inst).loc.line;
        match self.lines.get_mut(&line) {
            Some((max, n)) => {
                *n += 1;
                *n <= u64::from(*max)
            }
            None => false,
        }
    }

    /// Whether `inst`'s line is watched (without counting an execution).
    pub fn watches(&self, prog: &Program, inst: InstId) -> bool {
        self.lines.contains_key(&prog.info(inst).loc.line)
    }

    /// Records the report of the execution [`Self::hit`] just counted.
    pub fn report(&mut self, prog: &Program, inst: InstId, text: String) {
        let line = prog.info(inst).loc.line;
        let hit = self.lines.get(&line).map_or(0, |l| l.1);
        self.reports.push(WatchReport {
            inst,
            line,
            block: self.block,
            rank: self.rank,
            hit,
            text,
        });
    }

    /// Executions per watched line.
    pub fn counts(&self) -> Vec<(u32, u64)> {
        let mut v: Vec<(u32, u64)> = self.lines.iter().map(|(l, (_, n))| (*l, *n)).collect();
        v.sort_unstable();
        v
    }
}

/// An element for a person: floats in their own type's shortest form,
/// integers as integers.
fn num(v: Num, dt: DType) -> String {
    match v {
        Num::F(f) if dt.is_float() || f.fract() != 0.0 => short(f),
        Num::F(f) => format!("{f:?}"),
        Num::I(i) => i.to_string(),
    }
}

/// A float in at most 6 significant digits (`--out` writes exact values).
fn short(f: f64) -> String {
    if f.is_nan() || f.is_infinite() {
        return format!("{f}");
    }
    let a = f.abs();
    if a == 0.0 {
        return if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    if (1e-4..1e6).contains(&a) {
        let digits = (5 - a.log10().floor() as i32).clamp(0, 9) as usize;
        let s = format!("{f:.digits$}");
        let s = if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        };
        return s;
    }
    format!("{f:.5e}")
}

/// Smallest and largest of the values `at` gives over `rows x cols` (NaNs
/// counted apart).
fn range(rows: i64, cols: i64, dt: DType, at: &mut dyn FnMut(i64, i64) -> Option<Num>) -> String {
    let (mut lo, mut hi, mut nans, mut any) = (f64::INFINITY, f64::NEG_INFINITY, 0u64, false);
    for r in 0..rows {
        for c in 0..cols {
            let Some(v) = at(r, c) else { continue };
            let f = v.f();
            if f.is_nan() {
                nans += 1;
                continue;
            }
            any = true;
            lo = lo.min(f);
            hi = hi.max(f);
        }
    }
    let show = |f: f64| {
        if dt.is_float() {
            num(Num::F(f), dt)
        } else {
            num(Num::I(f as i64), dt)
        }
    };
    let mut s = if any {
        format!("min {}, max {}", show(lo), show(hi))
    } else {
        "no number".to_string()
    };
    if nans > 0 {
        s += &format!(", {nans} NaN");
    }
    s
}

/// The first rows and columns of a grid, `...` where it is cut.
fn grid(rows: i64, cols: i64, dt: DType, at: &mut dyn FnMut(i64, i64) -> Option<Num>) -> String {
    let mut s = String::new();
    for r in 0..rows.min(SHOW_ROWS) {
        let mut line: Vec<String> = (0..cols.min(SHOW_COLS))
            .map(|c| at(r, c).map_or_else(|| "?".into(), |v| num(v, dt)))
            .collect();
        if cols > SHOW_COLS {
            line.push("...".into());
        }
        s += &format!("    [{}]\n", line.join(", "));
    }
    if rows > SHOW_ROWS {
        s += &format!("    ... {} more rows\n", rows - SHOW_ROWS);
    }
    s
}

/// A tile's valid region.
pub(crate) fn tile(t: &Tile, local: &Local) -> String {
    let (vr, vc) = (t.v_row.max(0), t.v_col.max(0));
    let mut acc = Accesses::default();
    let mut at = |r: i64, c: i64| tile_ops::get(local, t, r, c, &mut acc).ok();
    format!(
        "{} tile {} {}x{} (valid {vr}x{vc}): {}\n{}",
        tile_ops::space(t).name(),
        t.elem,
        t.rows,
        t.cols,
        range(vr, vc, t.elem, &mut at),
        grid(vr, vc, t.elem, &mut at)
    )
}

/// A GM view.
pub(crate) fn view(v: &View, gm: &Gm) -> String {
    let (rows, cols) = v.rows_cols();
    let es = v.elem.bytes();
    let mut buf = vec![0u8; es];
    let mut at = |r: i64, c: i64| {
        let a = v.addr_of(r, c).ok()?;
        gm.read(a, &mut buf).ok()?;
        Some(read(&buf, v.elem))
    };
    // a huge view: the grid only (the range would read all of it)
    let stats = if rows.saturating_mul(cols) <= 1 << 20 {
        range(rows, cols, v.elem, &mut at)
    } else {
        "too large for a range".into()
    };
    format!(
        "GM view {} {rows}x{cols}: {stats}\n{}",
        v.elem,
        grid(rows, cols, v.elem, &mut at)
    )
}

/// Bytes of a DMA's destination a report reads (the range covers at most
/// this much; the grid shows the first rows and columns anyway).
const DMA_READ: u64 = 1 << 20;

/// A DMA's destination: one row per burst (in the order the levels walk
/// them, innermost first), each the burst's elements in the destination
/// pointer's type.
pub(crate) fn dma(t: &exec::dma::Transfer, local: &Local, gm: &Gm) -> String {
    let bursts: u64 = t.levels.iter().map(|l| l.0.max(1)).product();
    let dt = t.dst.elem;
    let es = dt.bytes().max(1) as u64;
    let head = format!(
        "{} -> {} {:#x}: {bursts} burst(s) of {} bytes",
        t.src.space.name(),
        t.dst.space.name(),
        t.dst.addr,
        t.len
    );
    // whole elements of each burst, as many bursts as the read budget holds
    let per = (t.len.min(DMA_READ) / es) * es;
    if per == 0 {
        return format!("{head}\n");
    }
    let rows = bursts.min((DMA_READ / per).max(1));
    let mut data: Vec<Option<Vec<u8>>> = Vec::with_capacity(rows as usize);
    for k in 0..rows {
        let (_, Some(at)) = exec::dma::burst_addrs(k, &t.levels, t.src.addr, t.dst.addr) else {
            data.push(None);
            continue;
        };
        let mut bytes = vec![0u8; per as usize];
        let ok = match t.dst.space {
            crate::value::Space::Gm => gm.read(at, &mut bytes).is_ok(),
            sp => match local.slice(sp, at, per) {
                Ok(b) => {
                    bytes.copy_from_slice(b);
                    true
                }
                Err(_) => false,
            },
        };
        data.push(ok.then_some(bytes));
    }
    let n = (per / es) as i64;
    let es = es as usize;
    let mut at = |r: i64, c: i64| {
        let b = data.get(r as usize)?.as_ref()?;
        let i = c as usize * es;
        b.get(i..i + es).map(|x| read(x, dt))
    };
    let shown = if rows < bursts {
        format!(" (min and max over the first {rows})")
    } else {
        String::new()
    };
    format!(
        "{head}; as {rows} x {n} {dt}{shown}: {}\n{}",
        range(rows as i64, n, dt, &mut at),
        grid(rows as i64, n, dt, &mut at)
    )
}

/// A matrix a cube op wrote (a `mad*` result, an L0A/L0B operand, an
/// `mte_gm_l1_frac` destination, a FIXPIPE write-back to GM or L1), read
/// element by element from its layout in row and column order.
pub(crate) fn matrix(mx: &exec::cube::Matrix, local: &Local, gm: &Gm) -> String {
    let dt = mx.dst.elem;
    let es = dt.bytes().max(1) as u64;
    let mut buf = [0u8; 8];
    let mut at = |r: i64, col: i64| {
        let a = mx.dst.addr.checked_add(mx.offset(r as u64, col as u64)?)?;
        let b = buf.get_mut(..es as usize)?;
        match mx.dst.space {
            crate::value::Space::Gm => gm.read(a, b).ok()?,
            sp => b.copy_from_slice(local.slice(sp, a, es).ok()?),
        }
        Some(read(b, dt))
    };
    let (m, n) = (mx.rows, mx.cols);
    // the range over at most 2^18 elements (the grid shows the corner)
    let (rr, rc) = (m.min(512) as i64, n.min(512) as i64);
    let shown = if (rr as u64, rc as u64) != (m, n) {
        format!(" (min and max over the first {rr}x{rc})")
    } else {
        String::new()
    };
    let groups = if mx.groups > 1 {
        format!(" ({} groups of {} rows)", mx.groups, m / mx.groups)
    } else {
        String::new()
    };
    let place = match (mx.dst.space, gm.buffer_at(mx.dst.addr)) {
        (crate::value::Space::Gm, Some(b)) => format!("{} + {:#x}", b.name, mx.dst.addr - b.lo),
        (sp, _) => format!("{} {:#x}", sp.name(), mx.dst.addr),
    };
    format!(
        "{place} as the {m}x{n} {dt} {}{groups}{shown}: {}\n{}",
        mx.what,
        range(rr, rc, dt, &mut at),
        grid(m as i64, n as i64, dt, &mut at)
    )
}

/// What an op wrote, from its access list: the first range it wrote, read
/// in the element type of the operand pointer into that buffer (bytes when
/// none is), and how many more ranges there were. None when it wrote
/// nothing.
pub(crate) fn written(
    accs: &[exec::Access],
    ptrs: &[crate::value::Ptr],
    local: &Local,
    gm: &Gm,
) -> Option<String> {
    let mut writes = accs.iter().filter(|a| a.write && a.len > 0);
    let w = writes.next()?;
    let more = writes.count();
    let dt = ptrs
        .iter()
        .filter(|p| p.space == w.space && p.addr <= w.addr)
        .max_by_key(|p| p.addr)
        .map_or(DType::U8, |p| p.elem);
    let es = dt.bytes().max(1);
    let len = (w.len.min(1 << 16) as usize / es) * es;
    let mut bytes = vec![0u8; len];
    let ok = match w.space {
        crate::value::Space::Gm => gm.read(w.addr, &mut bytes).is_ok(),
        s => match local.slice(s, w.addr, len as u64) {
            Ok(b) => {
                bytes.copy_from_slice(b);
                true
            }
            Err(_) => false,
        },
    };
    let end = w.addr.saturating_add(w.len);
    let place = match (w.space, gm.buffer_at(w.addr)) {
        (crate::value::Space::Gm, Some(b)) => format!(
            "bytes [{:#x}, {:#x}) of {}",
            w.addr - b.lo,
            end.min(b.hi) - b.lo,
            b.name
        ),
        _ => format!("{} [{:#x}, {end:#x})", w.space.name(), w.addr),
    };
    let head = format!(
        "wrote {place}{}",
        if more > 0 {
            format!(" and {more} more range(s)")
        } else {
            String::new()
        }
    );
    if !ok || len == 0 {
        return Some(format!("{head}\n"));
    }
    let n = len / es;
    let mut at = |_: i64, c: i64| {
        let i = c as usize * es;
        bytes.get(i..i + es).map(|b| read(b, dt))
    };
    Some(format!(
        "{head}: {n} x {dt}: {}\n{}",
        range(1, n as i64, dt, &mut at),
        grid(1, n as i64, dt, &mut at)
    ))
}

/// A register value (vector lanes of `dt`, a mask, a scalar).
pub(crate) fn value(v: &Val, dt: Option<DType>) -> String {
    match (v, dt) {
        (Val::VReg(r), Some(dt)) if dt.bytes() > 0 => {
            let es = dt.bytes();
            let n = r.len() / es;
            let mut at = |_: i64, c: i64| {
                let i = c as usize * es;
                r.get(i..i + es).map(|b| read(b, dt))
            };
            let lanes: Vec<String> = (0..n.min(SHOW_LANES))
                .map(|i| at(0, i as i64).map_or_else(|| "?".into(), |v| num(v, dt)))
                .collect();
            let more = if n > SHOW_LANES { ", ..." } else { "" };
            format!(
                "vreg {n} x {dt}: {}\n    [{}{more}]\n",
                range(1, n as i64, dt, &mut at),
                lanes.join(", ")
            )
        }
        (Val::VReg(r), _) => format!("vreg {} bytes\n", r.len()),
        (Val::Mask(m), _) => {
            let set = m.iter().map(|b| b.count_ones()).sum::<u32>();
            format!("mask: {set} of 256 bits set\n")
        }
        (Val::Int(i), _) => format!("{i}\n"),
        (Val::Float(f), _) => format!("{f:?}\n"),
        (Val::Ptr(p), _) => format!("{} pointer {:#x} ({})\n", p.space.name(), p.addr, p.elem),
        (other, _) => format!("{}\n", other.kind()),
    }
}

/// The element type of a vector op's results.
pub(crate) fn vec_result_type(v: &VecOp) -> Option<DType> {
    match v {
        VecOp::Load { elem, .. } | VecOp::Ew { elem, .. } | VecOp::Broadcast { elem, .. } => {
            Some(*elem)
        }
        VecOp::Generic { op, attrs, .. } => exec::vec_ops::Cx {
            op: *op,
            attrs: attrs.as_ref(),
        }
        .dst()
        .ok(),
        _ => None,
    }
}

/// The reports of a run for a person, one string per report (ending in a
/// newline; the values on indented lines below the first), then a line per
/// watched line that ran more often than it reported, or never.
pub fn render(prog: &Program, out: &crate::RunOutput, ranks: bool) -> Vec<String> {
    let mut v = Vec::new();
    for w in &out.watch {
        let l = prog.info(w.inst).loc;
        let who = if ranks {
            format!("rank {}, block {}", w.rank, w.block)
        } else {
            format!("block {}", w.block)
        };
        v.push(format!(
            "watch {}:{}:{} '{}' #{} ({who}): {}",
            prog.source_name,
            l.line,
            l.col,
            prog.info(w.inst).opcode.name(),
            w.hit,
            w.text
        ));
    }
    for (line, n) in &out.watch_counts {
        let shown = out.watch.iter().filter(|w| w.line == *line).count() as u64;
        if *n == 0 {
            v.push(format!(
                "watch {}:{line}: never executed\n",
                prog.source_name
            ));
        } else if shown < *n {
            v.push(format!(
                "watch {}:{line}: {n} execution(s), {shown} shown (--watch {line}:N shows N per block)\n",
                prog.source_name
            ));
        }
    }
    v
}

/// An error naming the watched lines that hold no instruction (the user
/// meant another line), or None.
pub fn missing_lines(prog: &Program, lines: &[WatchLine]) -> Option<String> {
    let bad: Vec<String> = lines
        .iter()
        .filter(|w| !prog.insts.iter().any(|i| i.loc.line == w.line))
        .map(|w| w.line.to_string())
        .collect();
    (!bad.is_empty()).then(|| {
        format!(
            "--watch {}: no instruction on that line of {}",
            bad.join(", "),
            prog.source_name
        )
    })
}
