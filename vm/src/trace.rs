//! Timelines: Chrome trace-event JSON (opens in Perfetto or chrome://tracing)
//! and a self-contained SVG, both from the events a run records with
//! `Config::trace`. One track per pipe per core; one slice per pipe
//! instruction (a vector scope is one slice); a flow arrow from each
//! `set_flag` to the `wait_flag` that consumed it.

use std::collections::BTreeMap;
use std::fmt::Write;

use pto_isa_spec::Pipe;

use crate::machine::{slot, TraceEvent};
use crate::program::Program;

fn esc(s: &str) -> String {
    let mut o = String::new();
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o
}

fn tid(core: u32, pipe: Pipe) -> u32 {
    core * 8 + slot(pipe) as u32
}

fn label(prog: &Program, e: &TraceEvent) -> String {
    let i = prog.info(e.inst);
    format!(
        "{} (line {})",
        i.opcode.name().trim_start_matches("pto."),
        i.loc.line
    )
}

/// Chrome trace-event JSON.
pub fn chrome_json(prog: &Program, events: &[TraceEvent], unit: &str) -> String {
    let mut out = String::from("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"unit\":\"");
    out.push_str(unit);
    out.push_str("\"},\"traceEvents\":[");
    let mut first = true;
    let mut push = |s: String, out: &mut String| {
        if !first {
            out.push(',');
        }
        first = false;
        out.push_str(&s);
    };
    let mut tracks: BTreeMap<(u32, u32, u32), Pipe> = BTreeMap::new();
    for e in events {
        tracks.insert((e.block, e.core, tid(e.core, e.pipe)), e.pipe);
    }
    for ((block, core, t), pipe) in &tracks {
        push(
            format!("{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{block},\"args\":{{\"name\":\"block {block}\"}}}}"),
            &mut out,
        );
        push(
            format!(
                "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{block},\"tid\":{t},\"args\":{{\"name\":\"core {core} {}\"}}}}",
                pipe.name()
            ),
            &mut out,
        );
        push(
            format!("{{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":{block},\"tid\":{t},\"args\":{{\"sort_index\":{t}}}}}"),
            &mut out,
        );
    }
    let mut flow = 0u64;
    for e in events {
        let dur = (e.end - e.start).max(1);
        let info = prog.info(e.inst);
        push(
            format!(
                "{{\"name\":\"{}\",\"cat\":\"{}\",\"ph\":\"X\",\"ts\":{},\"dur\":{dur},\"pid\":{},\"tid\":{},\"args\":{{\"line\":{},\"col\":{}}}}}",
                esc(&label(prog, e)),
                info.opcode.info().class.name(),
                e.start,
                e.block,
                tid(e.core, e.pipe),
                info.loc.line,
                info.loc.col
            ),
            &mut out,
        );
        if let Some((score, spipe, stime)) = e.from {
            flow += 1;
            push(
                format!(
                    "{{\"name\":\"flag\",\"cat\":\"sync\",\"ph\":\"s\",\"id\":{flow},\"ts\":{},\"pid\":{},\"tid\":{}}}",
                    stime.saturating_sub(1),
                    e.block,
                    tid(score, spipe)
                ),
                &mut out,
            );
            push(
                format!(
                    "{{\"name\":\"flag\",\"cat\":\"sync\",\"ph\":\"f\",\"bp\":\"e\",\"id\":{flow},\"ts\":{},\"pid\":{},\"tid\":{}}}",
                    e.start,
                    e.block,
                    tid(e.core, e.pipe)
                ),
                &mut out,
            );
        }
    }
    out.push_str("]}\n");
    out
}

/// A self-contained SVG of the timeline: one lane per pipe per core (per block),
/// a rectangle per instruction (hover for its name and line), a line per
/// set_flag -> wait_flag edge.
pub fn svg(prog: &Program, events: &[TraceEvent], title: &str, unit: &str) -> String {
    let mut lanes: BTreeMap<(u32, u32, usize), Pipe> = BTreeMap::new();
    for e in events {
        lanes.insert((e.block, e.core, slot(e.pipe)), e.pipe);
    }
    let lane_index: BTreeMap<(u32, u32, usize), usize> =
        lanes.keys().enumerate().map(|(i, k)| (*k, i)).collect();
    let t_end = events.iter().map(|e| e.end).max().unwrap_or(1).max(1);
    let (left, lane_h, top, width) = (150.0, 26.0, 40.0, 1100.0);
    let height = top + lane_h * lanes.len() as f64 + 40.0;
    let x = |t: u64| left + (t as f64 / t_end as f64) * (width - left - 20.0);
    let color = |p: Pipe| match p {
        Pipe::Mte2 => "#4e79a7",
        Pipe::Mte3 => "#59a14f",
        Pipe::V => "#f28e2b",
        Pipe::M => "#e15759",
        Pipe::Mte1 => "#76b7b2",
        Pipe::Fix => "#b07aa1",
        _ => "#9c9c9c",
    };
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" font-family=\"monospace\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"10\" y=\"20\" font-size=\"14\">{}</text>\n",
        xml(title)
    );
    for ((block, core, _), pipe) in &lanes {
        let i = lane_index[&(*block, *core, slot(*pipe))];
        let y = top + lane_h * i as f64;
        let name = if lanes.keys().any(|k| k.0 != 0) {
            format!("b{block} c{core} {}", pipe.column())
        } else {
            format!("core {core} {}", pipe.column())
        };
        let _ = writeln!(
            s,
            "<text x=\"10\" y=\"{:.1}\">{}</text><line x1=\"{left}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/>",
            y + 17.0,
            xml(&name),
            y + lane_h,
            width - 20.0,
            y + lane_h
        );
    }
    for e in events {
        let i = lane_index[&(e.block, e.core, slot(e.pipe))];
        let y = top + lane_h * i as f64 + 3.0;
        let (x0, x1) = (x(e.start), x(e.end.max(e.start + 1)));
        let _ = writeln!(
            s,
            "<rect x=\"{x0:.2}\" y=\"{y:.1}\" width=\"{:.2}\" height=\"{:.1}\" fill=\"{}\" stroke=\"white\" stroke-width=\"0.5\"><title>{} [{}, {}) {unit}</title></rect>",
            (x1 - x0).max(0.8),
            lane_h - 6.0,
            color(e.pipe),
            xml(&label(prog, e)),
            e.start,
            e.end
        );
        if let Some((score, spipe, stime)) = e.from {
            if let Some(j) = lane_index.get(&(e.block, score, slot(spipe))) {
                let y0 = top + lane_h * *j as f64 + lane_h / 2.0;
                let _ = writeln!(
                    s,
                    "<line x1=\"{:.2}\" y1=\"{y0:.1}\" x2=\"{x0:.2}\" y2=\"{:.1}\" stroke=\"#333\" stroke-width=\"0.6\" opacity=\"0.5\"/>",
                    x(stime),
                    y + (lane_h - 6.0) / 2.0
                );
            }
        }
    }
    let _ = writeln!(
        s,
        "<text x=\"{left}\" y=\"{:.1}\">0</text><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{t_end} {unit}</text>\n</svg>",
        height - 12.0,
        width - 20.0,
        height - 12.0
    );
    s
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
