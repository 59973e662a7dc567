//! `pto-conformance`: run conformance cases and report pass/fail per case and
//! tier, as a table, JUnit XML or JSON, with instruction coverage.
//!
//! Exit codes: 0 all cases passed (or failed as expected), 1 a case failed,
//! 2 usage or a malformed case.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use clap::Parser;
use pto_conformance::{default_root, discover, run, Coverage, Outcome, Tier};

/// Run PTO conformance cases (directories holding kernel.pto, vK.bin and
/// golden_vK.bin) under the interpreter, JIT and crosscheck tiers.
#[derive(Parser, Debug)]
#[command(name = "pto-conformance", version)]
struct Cli {
    /// Case roots (default: the repository's conformance/cases).
    dirs: Vec<PathBuf>,
    /// Tiers to run (interp, jit, crosscheck; repeat the flag or separate
    /// them with commas); default: every tier a case lists.
    #[arg(long = "tier", value_parser = parse_tier, value_delimiter = ',')]
    tiers: Vec<Tier>,
    /// Only cases whose name contains this text.
    #[arg(long)]
    filter: Option<String>,
    /// Write JUnit XML here (an existing file there must be an earlier report: reports never replace other files).
    #[arg(long)]
    junit: Option<PathBuf>,
    /// Print a JSON summary instead of the table.
    #[arg(long)]
    json: bool,
    /// Write the per-instruction coverage report here (TSV).
    #[arg(long)]
    coverage: Option<PathBuf>,
    /// Write the tile instructions' coverage by dtype class here (Markdown).
    #[arg(long, value_name = "FILE")]
    tile_coverage: Option<PathBuf>,
    /// Write the micro-instructions' coverage (vector, predicate, DMA, cube,
    /// system, comm, SIMT) with the cases that execute each here (Markdown).
    #[arg(long, value_name = "FILE")]
    micro_coverage: Option<PathBuf>,
    /// Parallel jobs (default: the number of cores).
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
}

fn parse_tier(s: &str) -> Result<Tier, String> {
    Tier::from_name(s).ok_or_else(|| format!("unknown tier '{s}' (interp, jit, crosscheck)"))
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn json(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// Whether a report may be written at `p`: nothing there, an empty file, or
/// a file that starts like the report (`head`). Only the first bytes are
/// read (a device such as /dev/zero never ends).
fn replaceable(p: &std::path::Path, head: &str) -> Result<(), String> {
    let meta = match std::fs::metadata(p) {
        Ok(m) => m,
        Err(_) => return Ok(()),
    };
    if meta.is_dir() {
        return Err("is a directory".into());
    }
    if !meta.is_file() {
        // a device or pipe: writing to it replaces nothing
        return Ok(());
    }
    let mut buf = vec![0u8; head.len()];
    let n = std::fs::File::open(p)
        .and_then(|mut f| {
            let mut n = 0;
            while n < buf.len() {
                match std::io::Read::read(&mut f, &mut buf[n..])? {
                    0 => break,
                    k => n += k,
                }
            }
            Ok(n)
        })
        .map_err(|e| format!("cannot be read ({e})"))?;
    if n == 0 || buf[..n] == *head.as_bytes() {
        Ok(())
    } else {
        Err("exists".into())
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    // a report file may replace an earlier report of its kind, not anything
    // else the user has there (checked before the run, not after it)
    for (p, head, what) in [
        (&cli.junit, "<?xml", "a JUnit report"),
        (&cli.coverage, "instruction\t", "a coverage report"),
        (
            &cli.tile_coverage,
            "# Tile instruction coverage",
            "a tile coverage report",
        ),
        (
            &cli.micro_coverage,
            "# Micro-instruction coverage",
            "a micro coverage report",
        ),
    ] {
        if let Some(p) = p {
            if let Err(e) = replaceable(p, head) {
                eprintln!(
                    "pto-conformance: {} {e}; it is not {what} this tool wrote, so it is left alone (remove it or pick another path)",
                    p.display()
                );
                return ExitCode::from(2);
            }
        }
    }
    let roots = if cli.dirs.is_empty() {
        vec![default_root()]
    } else {
        cli.dirs.clone()
    };
    let mut cases = Vec::new();
    for r in &roots {
        if !r.is_dir() {
            eprintln!("pto-conformance: {} is not a directory", r.display());
            return ExitCode::from(2);
        }
        match discover(r) {
            Ok(c) => cases.extend(c),
            Err(e) => {
                eprintln!("pto-conformance: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if let Some(f) = &cli.filter {
        cases.retain(|c| c.name.contains(f.as_str()));
    }
    let mut jobs: Vec<(usize, Tier)> = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        for t in Tier::ALL {
            let wanted = if cli.tiers.is_empty() {
                c.header.tiers.contains(&t)
            } else {
                cli.tiers.contains(&t)
            };
            if wanted {
                jobs.push((i, t));
            }
        }
    }
    let results: Mutex<Vec<(usize, Tier, Outcome, f64)>> = Mutex::new(Vec::new());
    let coverage = Mutex::new(Coverage::default());
    let classes = Mutex::new(pto_conformance::ClassCoverage::default());
    let micro = Mutex::new(pto_conformance::MicroCoverage::default());
    let next = AtomicUsize::new(0);
    let n = cli
        .jobs
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        })
        .max(1);
    std::thread::scope(|s| {
        for _ in 0..n {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(i, t)) = jobs.get(k) else { break };
                let start = std::time::Instant::now();
                let (o, counts) = run(&cases[i], t);
                let secs = start.elapsed().as_secs_f64();
                if let Ok(mut c) = coverage.lock() {
                    c.add(t, &counts);
                }
                if o == Outcome::Pass {
                    if let Ok(mut m) = micro.lock() {
                        m.add(&cases[i].name, &counts);
                    }
                }
                if o == Outcome::Pass && t == Tier::Interp {
                    if let Ok(mut c) = classes.lock() {
                        c.add(&cases[i], &counts);
                    }
                }
                if let Ok(mut r) = results.lock() {
                    r.push((i, t, o, secs));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_default();
    results.sort_by(|a, b| (cases[a.0].name.as_str(), a.1).cmp(&(cases[b.0].name.as_str(), b.1)));
    let failed = results.iter().filter(|r| !r.2.ok()).count();
    let passed = results.iter().filter(|r| r.2 == Outcome::Pass).count();
    let skipped = results
        .iter()
        .filter(|r| matches!(r.2, Outcome::Skipped(_)))
        .count();
    let xfail = results
        .iter()
        .filter(|r| matches!(r.2, Outcome::ExpectedFail(_)))
        .count();
    if cli.json {
        let items: Vec<String> = results
            .iter()
            .map(|(i, t, o, secs)| {
                let status = match o {
                    Outcome::Pass => "pass",
                    Outcome::Skipped(_) => "skip",
                    Outcome::ExpectedFail(_) => "xfail",
                    _ => "fail",
                };
                format!(
                    "{{\"case\":{},\"tier\":\"{}\",\"status\":\"{status}\",\"detail\":{},\"seconds\":{secs:.4}}}",
                    json(&cases[*i].name),
                    t.name(),
                    json(&o.describe())
                )
            })
            .collect();
        println!(
            "{{\"passed\":{passed},\"failed\":{failed},\"skipped\":{skipped},\"expected_failures\":{xfail},\"results\":[{}]}}",
            items.join(",")
        );
    } else {
        let w = cases.iter().map(|c| c.name.len()).max().unwrap_or(4).max(4);
        println!("{:<w$}  {:<10}  result", "case", "tier");
        for (i, t, o, _) in &results {
            let mark = match o {
                Outcome::Pass => "ok",
                Outcome::Skipped(_) => "skip",
                Outcome::ExpectedFail(_) => "xfail",
                _ => "FAIL",
            };
            let detail = if *o == Outcome::Pass {
                String::new()
            } else {
                format!(" ({})", o.describe().lines().next().unwrap_or(""))
            };
            println!("{:<w$}  {:<10}  {mark}{detail}", cases[*i].name, t.name());
        }
        println!(
            "\n{passed} passed, {failed} failed, {skipped} skipped, {xfail} expected failures"
        );
    }
    if let Some(p) = &cli.junit {
        let mut x = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"pto-conformance\" tests=\"{}\" failures=\"{failed}\" skipped=\"{}\">\n",
            results.len(),
            skipped + xfail
        );
        for (i, t, o, secs) in &results {
            x.push_str(&format!(
                "  <testcase classname=\"{}\" name=\"{}\" time=\"{secs:.4}\"",
                t.name(),
                xml(&cases[*i].name)
            ));
            match o {
                Outcome::Pass => x.push_str("/>\n"),
                Outcome::Skipped(r) | Outcome::ExpectedFail(r) => {
                    x.push_str(&format!("><skipped message=\"{}\"/></testcase>\n", xml(r)))
                }
                other => x.push_str(&format!(
                    "><failure message=\"{}\"/></testcase>\n",
                    xml(&other.describe())
                )),
            }
        }
        x.push_str("</testsuite>\n</testsuites>\n");
        if let Err(e) = std::fs::write(p, x) {
            eprintln!("pto-conformance: cannot write {}: {e}", p.display());
            return ExitCode::from(2);
        }
    }
    if let Some(p) = &cli.coverage {
        let rep = coverage
            .into_inner()
            .map(|c| c.report())
            .unwrap_or_default();
        if let Err(e) = std::fs::write(p, rep) {
            eprintln!("pto-conformance: cannot write {}: {e}", p.display());
            return ExitCode::from(2);
        }
    }
    if let Some(p) = &cli.tile_coverage {
        let (rep, covered, total) = classes.into_inner().map(|c| c.report()).unwrap_or_default();
        if let Err(e) = std::fs::write(p, rep) {
            eprintln!("pto-conformance: cannot write {}: {e}", p.display());
            return ExitCode::from(2);
        }
        eprintln!(
            "pto-conformance: tile coverage: {covered} of {total} (instruction, dtype class) pairs"
        );
    }
    if let Some(p) = &cli.micro_coverage {
        let (rep, covered, total) = micro.into_inner().map(|c| c.report()).unwrap_or_default();
        if let Err(e) = std::fs::write(p, rep) {
            eprintln!("pto-conformance: cannot write {}: {e}", p.display());
            return ExitCode::from(2);
        }
        eprintln!("pto-conformance: micro coverage: {covered} of {total}");
    }
    ExitCode::from(if failed > 0 { 1 } else { 0 })
}
