//! `pto-run case DIR`: the case-directory subcommand of pto-run (the logic is
//! `pto_vm::case`; this file parses flags and prints).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches, Parser};
use pto_vm::case::{run_case, CaseOptions, Chosen};

use super::MachineFlags;

/// Run a case directory in the PTOAS golden layout:
///
///   DIR/kernel.pto      the kernel
///   DIR/vK.bin          initial contents of argument K (1-based), raw little-endian
///   DIR/golden_vK.bin   expected final contents of argument K (K is an output)
///   DIR/main.cpp        optional host program: which file feeds which launch
///                       argument, buffer sizes, scalar values
///   DIR/case.toml       optional, for what nothing else says:
///                         [args]
///                         v3 = "f32:32x32"   # a buffer's dtype and shape
///                         v4 = 16            # a scalar
///   DIR/golden.py       optional input/golden generator (--golden-script)
///
/// A kernel.pto that starts with `//!` lines (a pto-conformance case header,
/// docs/cases.md) runs as pto-conformance runs it: its profile, entry,
/// tolerances, blocks, sched, check, scalars, ranks and peers apply unless a
/// flag says otherwise; with ranks = R every .bin stacks the R ranks' data.
/// Without main.cpp, argument K reads vK.bin; a buffer is sized by its file,
/// else case.toml, else the kernel's views. An output with no vK.bin starts
/// zeroed with its golden's size.
///
/// After the run, each output (an argument with a golden_vK.bin) is compared
/// with its golden. Nothing in DIR is changed: a rerun starts from the same
/// vK.bin. `--out-dir D` writes each output to D/vK.bin; `--out-dir DIR` is
/// the PTOAS convention (the host program overwrites vK.bin, also when it
/// was the output's initial contents). With --golden-script the outputs are
/// written to DIR, where compare.py reads them (golden.py has just rewritten
/// the inputs).
///
/// Exit codes: 0 all outputs match, 1 mismatch or checker error (--check
/// error) or deadlock, 2 bad input (missing kernel.pto, missing or mis-sized
/// .bin, golden.py failed), 3 runtime fault, 4 --max-steps or --timeout hit.
///
/// Example:
///   pto-run case build/vadd --golden-script
#[derive(Parser, Debug)]
#[command(name = "pto-run case", bin_name = "pto-run case", verbatim_doc_comment)]
struct CaseCli {
    /// The case directory.
    dir: PathBuf,
    /// First run `python3 golden.py` in DIR (to write the inputs and goldens);
    /// outputs the golden comparison rejects are then judged by DIR/compare.py
    /// when there is one.
    #[arg(long)]
    golden_script: bool,
    /// Write each output to D/vK.bin (D is created if missing; D = DIR
    /// overwrites the case's own vK.bin). Without it nothing is written.
    #[arg(long, value_name = "D", conflicts_with = "golden_script")]
    out_dir: Option<PathBuf>,
    /// Entry function (default: the one marked pto.entry / pto.kernel).
    #[arg(long)]
    entry: Option<String>,
    #[command(flatten)]
    machine: MachineFlags,
    /// Relative tolerance for float comparisons (default per dtype).
    #[arg(long, value_parser = super::parse_tolerance)]
    rtol: Option<f64>,
    /// Absolute tolerance for float comparisons (default per dtype).
    #[arg(long, value_parser = super::parse_tolerance)]
    atol: Option<f64>,
    /// Print only diagnostics, errors and mismatches.
    #[arg(long, short)]
    quiet: bool,
    /// Print per-pipe statistics and what the JIT did (as `pto-run --stats`).
    #[arg(long)]
    stats: bool,
    /// Print one JSON object on stdout (exit code, error, notes, bindings,
    /// diagnostics, every output's comparison) instead of the report; bad
    /// input still goes to stderr with exit 2, also as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    run: super::RunFlags,
}

/// Runs `pto-run case ...`; `args` excludes the program name.
pub fn main(args: impl Iterator<Item = std::ffi::OsString>) -> ExitCode {
    let parsed = CaseCli::command()
        .try_get_matches_from(args)
        .and_then(|m| CaseCli::from_arg_matches(&m).map(|c| (c, m)));
    let (cli, matches) = match parsed {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    // flags given on the command line win over the kernel's `//!` header
    let given = |id: &str| matches.value_source(id) == Some(ValueSource::CommandLine);
    if let Err((code, msg)) = cli.machine.apply_jit_cache() {
        eprintln!("pto-run: {msg}");
        return ExitCode::from(code);
    }
    let opts = CaseOptions {
        golden_script: cli.golden_script,
        config: pto_vm::Config {
            jit_threshold: cli.run.jit_threshold,
            crosscheck: cli.run.crosscheck,
            watch_lines: cli.run.watch.clone(),
            ..cli.machine.config()
        },
        profile: cli.machine.profile,
        entry: cli.entry.clone(),
        rtol: cli.rtol,
        atol: cli.atol,
        out_dir: cli.out_dir.clone(),
        chosen: Chosen {
            blocks: given("blocks"),
            sched: given("sched"),
            check: given("check"),
        },
        trace: cli.run.trace.clone(),
        timeline: cli.run.timeline.clone(),
    };
    let r = match run_case(&cli.dir, &opts) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("pto-run: {}", e.msg);
            if cli.json {
                println!(
                    "{{\"case\":{},\"exit\":{},\"error\":{}}}",
                    super::json_str(&cli.dir.display().to_string()),
                    e.code,
                    super::json_str(&e.msg)
                );
            }
            return ExitCode::from(e.code);
        }
    };
    if cli.json {
        println!("{}", report_json(&cli.dir, &r));
        return ExitCode::from(r.code);
    }
    for n in &r.notes {
        eprintln!("pto-run: note: {n}");
    }
    if !cli.quiet {
        for b in &r.bindings {
            match (b.dtype, b.scalar) {
                (Some(dt), _) => eprintln!(
                    "pto-run: %{} = {} ({dt}, {} bytes, from {}){}",
                    b.name,
                    b.file,
                    b.bytes,
                    b.source,
                    if b.output { ", output" } else { "" }
                ),
                (None, Some(v)) => eprintln!("pto-run: %{} = {} = {v}", b.name, b.file),
                (None, None) => eprintln!("pto-run: %{} = {} ({})", b.name, b.file, b.source),
            }
        }
    }
    for w in &r.watch {
        eprint!("pto-run: {w}");
    }
    for d in &r.diagnostics {
        eprint!("{d}");
    }
    if let Some(e) = &r.error {
        eprintln!("pto-run: {e}");
    }
    for o in &r.outputs {
        let c = &o.cmp;
        if c.mismatches > 0 {
            eprintln!(
                "pto-run: {} (%{}) differs from golden_{}.bin: {} of {} elements mismatch (max abs error {:.3e}, max rel error {:.3e}); first: {}",
                o.file, o.name, o.file, c.mismatches, c.total, c.max_abs, c.max_rel, o.first
            );
        } else if !cli.quiet {
            eprintln!(
                "pto-run: {} (%{}) matches golden_{}.bin ({} elements, max abs error {:.3e}, 0 mismatches)",
                o.file, o.name, o.file, c.total, c.max_abs
            );
        }
    }
    if cli.stats {
        let timed = matches!(opts.config.sched, pto_vm::Sched::Timed);
        super::print_stats(&r.stats, timed, &cli.machine);
    }
    if !cli.quiet {
        let bad = r.outputs.iter().filter(|o| o.cmp.mismatches > 0).count();
        let whereto = match &r.out_dir {
            Some(d) => format!("written to {}", d.display()),
            None => "compared (not written: --out-dir D writes them)".into(),
        };
        eprintln!(
            "pto-run: {}: {} output(s) {whereto}, {} mismatching; {} pipe instructions, {} synchronization finding(s)",
            r.func,
            r.outputs.len(),
            bad,
            r.pipe_insts,
            r.diagnostics.len()
        );
    }
    ExitCode::from(r.code)
}

/// The case report as one JSON object (`pto-run case --json`).
fn report_json(dir: &std::path::Path, r: &pto_vm::case::CaseReport) -> String {
    use super::{json_num, json_str};
    let list = |v: Vec<String>| format!("[{}]", v.join(","));
    let bindings = r
        .bindings
        .iter()
        .map(|b| {
            format!(
                "{{\"arg\":{},\"file\":{},\"dtype\":{},\"bytes\":{},\"scalar\":{},\"source\":{},\"output\":{}}}",
                json_str(&b.name),
                json_str(&b.file),
                b.dtype.map_or("null".into(), |d| json_str(&d.to_string())),
                b.bytes,
                b.scalar.map_or("null".into(), json_num),
                json_str(&b.source),
                b.output
            )
        })
        .collect();
    let outputs = r
        .outputs
        .iter()
        .map(|o| {
            format!(
                "{{\"arg\":{},\"file\":{},\"elements\":{},\"mismatches\":{},\"max_abs\":{},\"max_rel\":{},\"first\":{},\"written\":{}}}",
                json_str(&o.name),
                json_str(&o.file),
                o.cmp.total,
                o.cmp.mismatches,
                json_num(o.cmp.max_abs),
                json_num(o.cmp.max_rel),
                json_str(&o.first),
                o.written
                    .as_ref()
                    .map_or("null".into(), |p| json_str(&p.display().to_string()))
            )
        })
        .collect();
    let diags = r
        .diagnostics
        .iter()
        .map(|d| json_str(d.lines().next().unwrap_or("")))
        .collect();
    format!(
        "{{\"case\":{},\"function\":{},\"exit\":{},\"error\":{},\"pipe_instructions\":{},\"cycles\":{},\"notes\":{},\"bindings\":{},\"diagnostics\":{},\"outputs\":{},\"watch\":{}}}",
        json_str(&dir.display().to_string()),
        json_str(&r.func),
        r.code,
        r.error.as_deref().map_or("null".into(), json_str),
        r.pipe_insts,
        r.stats.cycles,
        list(r.notes.iter().map(|n| json_str(n)).collect()),
        list(bindings),
        list(diags),
        list(outputs),
        list(r.watch.iter().map(|w| json_str(w)).collect())
    )
}
