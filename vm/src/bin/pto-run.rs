//! `pto-run`: run a PTO kernel on real data.
//!
//! Exit codes: 0 ok, 1 golden mismatch or checker error (`--check error`, or a
//! deadlock), 2 bad input or usage, 3 runtime fault, 4 limit hit.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use pto_isa_spec::{DType, ProfileId};
use pto_vm::npy::{self, Array};
use pto_vm::program::ArgType;
use pto_vm::{
    load_binary, load_text, run_kernel_ranks_visiting, Arg, CheckMode, Config, Kernel, ReadBack,
    RunError, Sched,
};

/// Run a PTO kernel (.pto text or .ptobin) on the ptovm machine: asynchronous
/// pipes ordered only by the kernel's own synchronization, a checker that names
/// every missing sync, and goldens to compare against.
///
/// Kernel arguments are bound by name (`--arg src=...` for `%src`) or by position
/// in the PTOAS convention (`v1` is the first argument). A pointer argument takes
/// an array: `in.npy`, `data.bin:f16:32x64` (raw little-endian), `zeros:f32:32x32`
/// or `random:bf16:128x128[:seed=19]`; a scalar takes a number (`--arg n=1024`).
/// Arguments not given get seeded random data sized from the kernel's views.
///
/// Examples:
///   pto-run examples/sync/01_set_wait_pipeline.pto
///   pto-run examples/vadd.pto --arg v1=x.npy --arg v2=y.npy --out v3=z.npy
///   pto-run k.pto --arg v1=random:f32:32x32 --golden v2=golden.npy --sched shuffle --seed 7
///   pto-run case DIR [--golden-script]    (a PTOAS case directory: pto-run case --help)
#[derive(Parser, Debug)]
#[command(name = "pto-run", version, verbatim_doc_comment)]
struct Cli {
    /// Kernel: PTO text (.pto) or a binary from pto-as (.ptobin).
    kernel: PathBuf,
    /// Entry function (default: the one marked pto.entry / pto.kernel).
    #[arg(long)]
    entry: Option<String>,
    /// Bind an argument: NAME=SPEC (NAME is the SSA name without % or vK).
    #[arg(long = "arg", value_name = "NAME=SPEC")]
    args: Vec<String>,
    /// Run R ranks, each with its own GM (see docs/ranks.md). An input .npy
    /// whose first dimension is R gives rank r its slice r, anything else is
    /// given to every rank; outputs and goldens stack the ranks on a new first
    /// dimension. `--arg p=peer:NAME:K` passes rank K's (or with +K/-K, the
    /// rank K after/before this one's) buffer NAME; `--arg n=rank` passes the
    /// rank number, `--arg n=ranks` the rank count.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    ranks: u32,
    /// Write an argument's final contents: NAME=FILE (.npy, else raw .bin).
    #[arg(long = "out", value_name = "NAME=FILE")]
    outs: Vec<String>,
    /// Compare an argument's final contents with a golden: NAME=FILE (.npy or .bin).
    #[arg(long = "golden", value_name = "NAME=FILE")]
    goldens: Vec<String>,
    /// Relative tolerance for float comparisons (default per dtype).
    #[arg(long, value_parser = parse_tolerance)]
    rtol: Option<f64>,
    /// Absolute tolerance for float comparisons (default per dtype).
    #[arg(long, value_parser = parse_tolerance)]
    atol: Option<f64>,
    #[command(flatten)]
    machine: MachineFlags,
    /// Per-pipe instruction counts and busy cycles, and what the JIT did.
    #[arg(long)]
    stats: bool,
    #[command(flatten)]
    run: RunFlags,
    /// Print only diagnostics and errors.
    #[arg(long, short)]
    quiet: bool,
    /// Print a machine-readable JSON summary on stdout.
    #[arg(long)]
    json: bool,
}

/// JIT tier-up, cross-check and timeline flags shared by `pto-run KERNEL`
/// and `pto-run case DIR`.
#[derive(clap::Args, Debug)]
pub(crate) struct RunFlags {
    /// Executions of a region before --jit auto compiles it.
    #[arg(long, default_value_t = 2)]
    pub(crate) jit_threshold: u32,
    /// Run the interpreter next to every compiled region and stop at the first difference.
    #[arg(long)]
    pub(crate) crosscheck: bool,
    /// Write the timeline as Chrome trace-event JSON (open in Perfetto or chrome://tracing).
    #[arg(long, value_name = "FILE")]
    pub(crate) trace: Option<PathBuf>,
    /// Write the timeline as a self-contained SVG.
    #[arg(long, value_name = "FILE")]
    pub(crate) timeline: Option<PathBuf>,
    /// Show what the instructions on LINE of the kernel produce each time
    /// they complete: a tile op's destination tile, a store's GM view, a
    /// vector op's registers, a scalar's value (repeatable; LINE:N shows up to
    /// N executions per block, default 8). Watched runs are interpreted.
    #[arg(long, value_name = "LINE[:N]", value_parser = parse_watch)]
    pub(crate) watch: Vec<pto_vm::WatchLine>,
}

fn parse_watch(s: &str) -> Result<pto_vm::WatchLine, String> {
    let num = |t: &str| t.parse::<u32>().ok().filter(|n| *n > 0);
    let parts: Vec<&str> = s.split(':').collect();
    let n = parts.len();
    // LINE, LINE:N, and FILE:LINE / FILE:LINE:N (the kernel's own file)
    let (line, max) = match (num(parts[n - 1]), n.checked_sub(2).map(|i| num(parts[i]))) {
        (Some(l), None) => (l, 8),
        (Some(m), Some(Some(l))) => (l, m),
        (Some(l), Some(None)) => (l, 8),
        _ => {
            return Err(format!(
                "'{s}' is not LINE or LINE:N (a line number of the kernel, N a positive count)"
            ))
        }
    };
    Ok(pto_vm::WatchLine { line, max })
}

/// Machine flags shared by `pto-run KERNEL` and `pto-run case DIR`.
#[derive(clap::Args, Debug)]
pub(crate) struct MachineFlags {
    /// Target profile (default: the module's pto.target_arch, else a2a3).
    #[arg(long, value_parser = parse_profile)]
    profile: Option<ProfileId>,
    /// Number of blocks in the grid.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=65536))]
    blocks: u32,
    /// Scheduler.
    #[arg(long, value_enum, default_value_t = SchedArg::Inorder)]
    sched: SchedArg,
    /// Seed for --sched shuffle.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// What the synchronization checker does with findings.
    #[arg(long, value_enum, default_value_t = CheckArg::Warn)]
    check: CheckArg,
    /// Stop after this many machine steps (0 = no limit).
    #[arg(long, default_value_t = 100_000_000)]
    max_steps: u64,
    /// Stop after this many seconds of wall-clock time (exit 4); no limit by default.
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout)]
    timeout: Option<f64>,
    /// JIT tiering (the environment variable PTOVM_JIT=off also turns it off).
    #[arg(long, value_enum, default_value_t = JitArg::Auto)]
    jit: JitArg,
    /// Keep compiled regions in DIR and reuse them in later runs (created if
    /// missing; its files become executable code, so use a directory you trust).
    #[arg(long, value_name = "DIR")]
    jit_cache: Option<PathBuf>,
    /// Compile tile elementwise ops one by one, never as fused chains.
    #[arg(long)]
    no_fuse: bool,
}

impl MachineFlags {
    /// Turns on `--jit-cache` (a directory that cannot be created or written
    /// is a usage error, exit 2).
    pub(crate) fn apply_jit_cache(&self) -> Result<(), (u8, String)> {
        match &self.jit_cache {
            Some(d) => pto_jit::set_cache_dir(Some(d)).map_err(|e| {
                (
                    2,
                    format!("--jit-cache {}: cannot use the directory: {e}", d.display()),
                )
            }),
            None => Ok(()),
        }
    }

    /// The `--stats` line of `--jit-cache`.
    pub(crate) fn jit_cache_stats(&self) -> Option<String> {
        let d = self.jit_cache.as_ref()?;
        let c = pto_jit::cache_stats();
        let failed = if c.failed > 0 {
            format!(", {} could not be written", c.failed)
        } else {
            String::new()
        };
        Some(format!(
            "jit-cache: {} region(s) loaded from {}, {} stored{failed}",
            c.loaded,
            d.display(),
            c.stored
        ))
    }

    /// The run configuration these flags ask for (profile and watch aside).
    pub(crate) fn config(&self) -> Config {
        Config {
            blocks: self.blocks,
            sched: match self.sched {
                SchedArg::Inorder => Sched::InOrder,
                SchedArg::Timed => Sched::Timed,
                SchedArg::Shuffle => Sched::Shuffle { seed: self.seed },
            },
            check: match self.check {
                CheckArg::Error => CheckMode::Error,
                CheckArg::Warn => CheckMode::Warn,
                CheckArg::Off => CheckMode::Off,
            },
            max_steps: self.max_steps,
            jit: if std::env::var("PTOVM_JIT").is_ok_and(|v| v == "off" || v == "0") {
                pto_vm::JitMode::Off
            } else {
                match self.jit {
                    JitArg::Off => pto_vm::JitMode::Off,
                    JitArg::Auto => pto_vm::JitMode::Auto,
                    JitArg::Always => pto_vm::JitMode::Always,
                }
            },
            jit_fuse: !self.no_fuse,
            watch: Some(pto_vm::Watch {
                deadline: self
                    .timeout
                    .map(|t| std::time::Instant::now() + std::time::Duration::from_secs_f64(t)),
                ..Default::default()
            }),
            ..Config::default()
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum SchedArg {
    /// Program order (deterministic, fastest).
    Inorder,
    /// Cost model with overlapping pipes (simulated cycles).
    Timed,
    /// Adversarial ordering within what the synchronization allows (--seed).
    Shuffle,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum JitArg {
    /// Interpreter only.
    Off,
    /// Compile hot regions.
    Auto,
    /// Compile every eligible region at once.
    Always,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum CheckArg {
    /// Findings fail the run (exit 1).
    Error,
    /// Findings are printed.
    Warn,
    /// No checking.
    Off,
}

fn parse_timeout(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(t) if t > 0.0 && t.is_finite() && t < 1e9 => Ok(t),
        _ => Err(format!("'{s}' is not a positive number of seconds")),
    }
}

fn parse_tolerance(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(t) if t >= 0.0 && t.is_finite() => Ok(t),
        _ => Err(format!("'{s}' is not a finite tolerance >= 0")),
    }
}

fn parse_profile(s: &str) -> Result<ProfileId, String> {
    ProfileId::from_name(s).ok_or_else(|| format!("unknown profile '{s}' (expected a2a3 or a5)"))
}

#[path = "pto_run_case/mod.rs"]
mod case_cmd;

struct Failure(u8, String);

fn fail<T>(code: u8, msg: impl Into<String>) -> Result<T, Failure> {
    Err(Failure(code, msg.into()))
}

fn main() -> ExitCode {
    if std::env::args_os().nth(1).is_some_and(|a| a == "case") {
        return case_cmd::main(std::env::args_os().skip(1));
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match run(&cli) {
        Ok(code) => ExitCode::from(code),
        Err(Failure(code, msg)) => {
            eprintln!("pto-run: {msg}");
            ExitCode::from(code)
        }
    }
}

fn dtype(s: &str) -> Option<DType> {
    DType::from_mlir(match s {
        "u8" => "ui8",
        "u16" => "ui16",
        "u32" => "ui32",
        "u64" => "ui64",
        other => other,
    })
}

fn shape(s: &str) -> Result<Vec<usize>, String> {
    s.split('x')
        .map(|d| {
            d.parse::<usize>()
                .map_err(|_| format!("bad dimension '{d}' in shape '{s}'"))
        })
        .collect()
}

/// The most all argument buffers of a run may take together (every rank
/// has its own copies).
const MAX_TOTAL_ARG_BYTES: u64 = 16 << 30;

/// Bytes of a `zeros`/`random` array of `dt` and `shape`, refused past
/// [`pto_vm::MAX_ARG_BYTES`].
fn array_bytes(spec: &str, dt: DType, shape: &[usize]) -> Result<usize, String> {
    shape
        .iter()
        .try_fold(dt.bytes(), |a, d| a.checked_mul(*d))
        .filter(|&n| n as u64 <= pto_vm::MAX_ARG_BYTES)
        .ok_or_else(|| {
            format!(
                "'{spec}': more than the {} GiB an argument buffer may take",
                pto_vm::MAX_ARG_BYTES >> 30
            )
        })
}

/// A bound buffer argument: its array and where it came from.
struct Bound {
    /// Dtype and shape; its data moves into the run's arguments
    /// ([`split_ranks`]), only its length stays, in `bytes`.
    array: Array,
    from: Option<PathBuf>,
    /// The buffer's size on one rank.
    bytes: usize,
    /// Data not held in memory (`array.data` is empty).
    lazy: Option<Lazy>,
}

/// Where a [`Bound`] buffer's bytes come from when `array.data` does not
/// hold them.
enum Lazy {
    /// A file not read yet, with where its data start ([`read_array`] with
    /// `lazy`): the run reads it straight into GM.
    File(PathBuf, u64),
    /// `zeros:`: untouched GM is zero already.
    Zeros,
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn random(dt: DType, shape: Vec<usize>, seed: u64) -> Array {
    let n: usize = shape.iter().product();
    let mut st = seed;
    let eb = dt.bytes();
    let mut data = vec![0u8; n * eb];
    let float = dt.is_float();
    // a float element: an f64 in [-1, 1), rounded once to the element type
    let unit = |r: u64| (r >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
    if dt == DType::F32 {
        // the common case without the generic element writer (same bits)
        for ch in data.chunks_exact_mut(4) {
            ch.copy_from_slice(&(unit(splitmix(&mut st)) as f32).to_le_bytes());
        }
    } else {
        for ch in data.chunks_exact_mut(eb) {
            let r = splitmix(&mut st);
            let v = if float {
                pto_vm::num::Num::F(unit(r))
            } else {
                pto_vm::num::Num::I((r % 201) as i64 - 100)
            };
            pto_vm::num::write(ch, dt, v);
        }
    }
    Array {
        dtype: dt,
        shape,
        data,
    }
}

/// The array a `--arg`/`--golden` SPEC names. With `lazy`, a raw file (not
/// `.npy`) is only sized: its bytes go straight into GM when the run starts.
fn read_array(spec: &str, want: DType, lazy: bool) -> Result<Bound, String> {
    let parts: Vec<&str> = spec.split(':').collect();
    match parts[0] {
        "zeros" | "random" => {
            let dt = parts.get(1).and_then(|d| dtype(d)).ok_or_else(|| {
                format!(
                    "'{spec}': expected {}:DTYPE:SHAPE (DTYPE f32, f16, bf16, i32, ...)",
                    parts[0]
                )
            })?;
            let sh = shape(
                parts
                    .get(2)
                    .ok_or_else(|| format!("'{spec}': missing SHAPE (e.g. 32x32)"))?,
            )?;
            let seed = parts
                .iter()
                .find_map(|p| p.strip_prefix("seed="))
                .map(|s| s.parse::<u64>().map_err(|_| format!("'{spec}': bad seed")))
                .transpose()?
                .unwrap_or(19);
            let bytes = array_bytes(spec, dt, &sh)?;
            let a = if parts[0] == "zeros" {
                Array {
                    dtype: dt,
                    shape: sh,
                    data: vec![0; bytes],
                }
            } else {
                random(dt, sh, seed)
            };
            Ok(Bound {
                array: a,
                from: None,
                bytes: 0,
                lazy: None,
            })
        }
        path => {
            let p = PathBuf::from(path);
            // a regular file of a size the cap allows, whose bytes need no
            // conversion, is sized now and read straight into GM later
            let size = std::fs::metadata(&p)
                .ok()
                .filter(|m| lazy && m.is_file() && m.len() <= pto_vm::MAX_ARG_BYTES)
                .map(|m| m.len());
            if let (Some(n), true) = (size, path.ends_with(".npy")) {
                if let Some(h) = npy_head(&p)
                    .and_then(|b| npy::parse_header(path, &b).ok())
                    .filter(|h| h.as_is() && (h.offset + h.data_len) as u64 == n)
                {
                    return Ok(Bound {
                        array: Array {
                            dtype: h.dtype,
                            shape: h.shape,
                            data: Vec::new(),
                        },
                        from: Some(p.clone()),
                        bytes: 0,
                        lazy: Some(Lazy::File(p, h.offset as u64)),
                    });
                }
            }
            let size = size.filter(|_| !path.ends_with(".npy")).map(|n| n as usize);
            let lazy = size.map(|_| Lazy::File(p.clone(), 0));
            let bytes = match size {
                Some(_) => Vec::new(),
                None => pto_asm::read_capped(&p, pto_vm::MAX_ARG_BYTES)
                    .map_err(|e| format!("cannot read {path}: {e}"))?,
            };
            let nbytes = size.unwrap_or(bytes.len());
            let a = if path.ends_with(".npy") {
                npy::parse(path, &bytes)?
            } else {
                let dt = match parts.get(1) {
                    Some(d) => dtype(d).ok_or_else(|| format!("'{spec}': unknown dtype '{d}'"))?,
                    None => want,
                };
                if nbytes % dt.bytes() != 0 {
                    return Err(format!(
                        "{path}: {nbytes} bytes is not a whole number of {dt} elements"
                    ));
                }
                let n = nbytes / dt.bytes();
                let sh = match parts.get(2) {
                    Some(s) => {
                        let sh = shape(s)?;
                        let want = sh.iter().try_fold(1usize, |a, d| a.checked_mul(*d));
                        if want != Some(n) {
                            return Err(format!(
                                "{path}: holds {n} {dt} elements, shape {s} needs {}",
                                want.map_or("more than fit in memory".to_string(), |w| w
                                    .to_string())
                            ));
                        }
                        sh
                    }
                    None => vec![n],
                };
                Array {
                    dtype: dt,
                    shape: sh,
                    data: bytes,
                }
            };
            Ok(Bound {
                array: a,
                from: Some(p),
                bytes: 0,
                lazy,
            })
        }
    }
}

/// Where each rank's value of one argument comes from.
enum Src {
    /// The same for every rank.
    Same(Arg),
    /// Rank r gets slice r.
    Split(Vec<Vec<u8>>),
    /// Rank r gets slice r of a file, read straight into its GM.
    FileSplit {
        path: PathBuf,
        offset: u64,
        each: u64,
    },
    /// Seeded random data, a different seed per rank.
    Random(DType, usize, u64),
    /// A pointer to another rank's buffer argument.
    Peer(usize, RankSel),
    /// The rank number.
    Rank,
}

/// Which rank a peer pointer refers to.
#[derive(Clone, Copy)]
enum RankSel {
    Abs(u32),
    Rel(i64),
}

impl Src {
    fn arg(&self, r: u32, ranks: u32) -> Arg {
        match self {
            Src::Same(a) => a.clone(),
            Src::Split(v) => Arg::Buffer(v[r as usize].clone()),
            Src::FileSplit { path, offset, each } => Arg::File {
                path: path.clone(),
                offset: offset + r as u64 * each,
                len: *each,
            },
            Src::Random(dt, n, seed) => {
                Arg::Buffer(random(*dt, vec![*n], seed + 1000 * r as u64).data)
            }
            Src::Peer(arg, sel) => Arg::Peer {
                arg: *arg,
                rank: match sel {
                    RankSel::Abs(k) => *k,
                    RankSel::Rel(d) => (r as i64 + d).rem_euclid(ranks as i64) as u32,
                },
            },
            Src::Rank => Arg::Int(r as i64),
        }
    }

    /// [`Src::arg`] for the last use: moves the data instead of copying it.
    fn into_arg(self, r: u32, ranks: u32) -> Arg {
        match self {
            Src::Same(a) => a,
            Src::Split(mut v) if (r as usize) < v.len() => Arg::Buffer(v.swap_remove(r as usize)),
            s => s.arg(r, ranks),
        }
    }
}

/// `peer:NAME:K`, `peer:NAME:+K`, `peer:NAME:-K`.
fn parse_peer(spec: &str, ranks: u32) -> Result<(String, RankSel), String> {
    let mut it = spec.splitn(3, ':').skip(1);
    let (Some(name), Some(k)) = (it.next(), it.next()) else {
        return Err("expected peer:NAME:RANK (RANK = K, +K or -K)".into());
    };
    let name = name.trim_start_matches('%').to_string();
    let sel = if k.starts_with('+') || k.starts_with('-') {
        RankSel::Rel(
            k.parse::<i64>()
                .map_err(|_| format!("bad rank offset '{k}'"))?,
        )
    } else {
        let a = k.parse::<u32>().map_err(|_| format!("bad rank '{k}'"))?;
        if a >= ranks {
            return Err(format!("rank {a} does not exist with --ranks {ranks}"));
        }
        RankSel::Abs(a)
    };
    Ok((name, sel))
}

/// How one bound buffer reaches the ranks: an array whose first dimension is
/// the rank count is split, random data gets a seed per rank, anything else is
/// the same for every rank. Returns the source and the per-rank array.
/// Fills `buf` from the file at `path` from byte `offset` on (zeros past
/// its end, as GM was filled).
fn read_at(path: &Path, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
    use std::io::{Read, Seek};
    let mut f = std::fs::File::open(path)?;
    f.seek(std::io::SeekFrom::Start(offset))?;
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    buf[n..].fill(0);
    Ok(())
}

/// The first bytes of a `.npy` file, enough for any header numpy writes.
fn npy_head(p: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut b = Vec::new();
    std::fs::File::open(p)
        .ok()?
        .take(1 << 20)
        .read_to_end(&mut b)
        .ok()?;
    Some(b)
}

/// The argument data per rank, and the binding without its data (moved,
/// not copied: inputs can be hundreds of MiB).
fn split_ranks(mut b: Bound, ranks: u32, random: bool, i: usize) -> (Src, Bound) {
    if let Some(Lazy::Zeros) = b.lazy {
        b.lazy = None;
        let total = b.array.shape.iter().product::<usize>() * b.array.dtype.bytes();
        b.bytes = total;
        if ranks > 1 && b.array.shape.len() >= 2 && b.array.shape[0] == ranks as usize {
            b.array.shape.remove(0);
            b.bytes = total / ranks as usize;
        }
        return (Src::Same(Arg::Zeros(b.bytes as u64)), b);
    }
    if let Some(Lazy::File(path, offset)) = b.lazy.take() {
        // a file, sized by its metadata or header: every rank reads it (or
        // its slice of it) straight into its GM
        let total = b.array.shape.iter().product::<usize>() * b.array.dtype.bytes();
        if ranks > 1 && b.array.shape.len() >= 2 && b.array.shape[0] == ranks as usize {
            b.array.shape.remove(0);
            b.bytes = total / ranks as usize;
            let each = b.bytes as u64;
            return (Src::FileSplit { path, offset, each }, b);
        }
        b.bytes = total;
        let len = total as u64;
        return (Src::Same(Arg::File { path, offset, len }), b);
    }
    let data = std::mem::take(&mut b.array.data);
    if ranks > 1 && b.array.shape.len() >= 2 && b.array.shape[0] == ranks as usize {
        let n = data.len() / ranks as usize;
        let parts = data.chunks(n.max(1)).map(|c| c.to_vec()).collect();
        b.array.shape.remove(0);
        b.bytes = n;
        return (Src::Split(parts), b);
    }
    b.bytes = data.len();
    if random && ranks > 1 {
        let n = data.len() / b.array.dtype.bytes();
        return (Src::Random(b.array.dtype, n, 19 + i as u64), b);
    }
    (Src::Same(Arg::Buffer(data)), b)
}

fn kv(s: &str, what: &str) -> Result<(String, String), Failure> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() && !v.is_empty() => {
            Ok((k.trim_start_matches('%').to_string(), v.to_string()))
        }
        _ => fail(2, format!("{what} '{s}' must be NAME=VALUE")),
    }
}

fn load(path: &Path, profile: Option<ProfileId>) -> Result<Kernel, Failure> {
    let m = pto_vm::mem::Mapped::open(path)
        .map_err(|e| Failure(2, format!("cannot read {}: {e}", path.display())))?;
    let bytes = m.bytes();
    if pto_asm::binary::is_elf(bytes) {
        return load_binary(bytes, profile)
            .map_err(|e| Failure(2, format!("{}: {e}", path.display())));
    }
    let src = std::str::from_utf8(bytes).map_err(|_| {
        Failure(
            2,
            format!("{}: neither a ptovm binary nor UTF-8 text", path.display()),
        )
    })?;
    load_text(&path.display().to_string(), src, profile)
        .map_err(|e| Failure(2, e.to_string().trim_end().to_string()))
}

fn run(cli: &Cli) -> Result<u8, Failure> {
    cli.machine
        .apply_jit_cache()
        .map_err(|(c, m)| Failure(c, m))?;
    let kernel = load(&cli.kernel, cli.machine.profile)?;
    let prog = &kernel.program;
    let entry = prog
        .entry(cli.entry.as_deref())
        .ok_or_else(|| match &cli.entry {
            Some(e) => Failure(2, format!("no function @{e} in {}", cli.kernel.display())),
            None => Failure(2, "the kernel has no function".into()),
        })?;
    let func = &prog.funcs[entry];
    let names = prog.arg_names(entry);
    let index_of = |n: &str| -> Option<usize> {
        names.iter().position(|x| x == n).or_else(|| {
            n.strip_prefix('v')
                .and_then(|k| k.parse::<usize>().ok())
                .filter(|k| *k >= 1 && *k <= names.len())
                .map(|k| k - 1)
        })
    };
    let mut given: Vec<Option<String>> = vec![None; names.len()];
    for a in &cli.args {
        let (k, v) = kv(a, "--arg")?;
        let i = index_of(&k).ok_or_else(|| {
            Failure(
                2,
                format!(
                    "--arg {k}: @{} has no argument %{k} (arguments: {})",
                    func.name,
                    names
                        .iter()
                        .map(|n| format!("%{n}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?;
        given[i] = Some(v);
    }
    // goldens are read first: an output without --arg is sized from its golden
    let mut golden_specs: Vec<(usize, String)> = Vec::new();
    for g in &cli.goldens {
        let (k, f) = kv(g, "--golden")?;
        let i =
            index_of(&k).ok_or_else(|| Failure(2, format!("--golden {k}: no such argument")))?;
        golden_specs.push((i, f));
    }
    // bind
    let ranks = cli.ranks;
    // an input file the run reads straight into GM (each rank the file or
    // its slice of it): neither written out nor compared (those are read
    // back and checked against what they held)
    let lazy_ok: Vec<bool> = (0..names.len())
        .map(|i| {
            !golden_specs.iter().any(|g| g.0 == i)
                && !cli.outs.iter().any(|o| {
                    kv(o, "--out")
                        .ok()
                        .and_then(|(k, _)| index_of(&k))
                        .is_some_and(|j| j == i)
                })
        })
        .collect();
    let mut bound: Vec<Option<Bound>> = Vec::new();
    let mut srcs: Vec<Src> = Vec::new();
    for (i, t) in func.arg_types.iter().enumerate() {
        let name = &names[i];
        match t {
            ArgType::GmPtr(_) if given[i].as_deref().is_some_and(|g| g.starts_with("peer:")) => {
                let spec = given[i].clone().unwrap_or_default();
                let (target, sel) = parse_peer(&spec, ranks)
                    .map_err(|e| Failure(2, format!("--arg {name}={spec}: {e}")))?;
                let j = index_of(&target).ok_or_else(|| {
                    Failure(2, format!("--arg {name}={spec}: no argument %{target}"))
                })?;
                if !matches!(func.arg_types.get(j), Some(ArgType::GmPtr(_)))
                    || given[j].as_deref().is_some_and(|g| g.starts_with("peer:"))
                {
                    return fail(
                        2,
                        format!("--arg {name}={spec}: %{target} is not a buffer argument"),
                    );
                }
                srcs.push(Src::Peer(j, sel));
                bound.push(None);
            }
            ArgType::GmPtr(dt) => {
                let b = match &given[i] {
                    Some(spec) => {
                        let mut b = read_array(spec, *dt, lazy_ok[i]).map_err(|e| Failure(2, e))?;
                        if spec.starts_with("zeros:") {
                            // GM starts zeroed: no bytes to hold or copy in,
                            // also for an output (it comes back from GM)
                            b.array.data = Vec::new();
                            b.lazy = Some(Lazy::Zeros);
                        }
                        b
                    }
                    None if golden_specs.iter().any(|g| g.0 == i) => {
                        let f = &golden_specs
                            .iter()
                            .find(|g| g.0 == i)
                            .map(|g| g.1.clone())
                            .unwrap_or_default();
                        let g = read_array(f, *dt, false).map_err(|e| Failure(2, e))?;
                        let mut shape = g.array.shape;
                        if ranks > 1 && shape.len() >= 2 && shape[0] == ranks as usize {
                            // a stacked golden: each rank holds one slice
                            shape.remove(0);
                        }
                        // zeros of one rank's slice of the golden
                        Bound {
                            array: Array {
                                dtype: g.array.dtype,
                                shape,
                                data: Vec::new(),
                            },
                            from: None,
                            bytes: 0,
                            lazy: Some(Lazy::Zeros),
                        }
                    }
                    None => {
                        // sized from the kernel's views; 64 KiB when no view says
                        let bytes = match func.arg_bytes[i] {
                            0 => 64 * 1024,
                            b => b,
                        };
                        if bytes > pto_vm::MAX_ARG_BYTES {
                            return fail(
                                2,
                                format!(
                                    "%{name}: the kernel's views reach {bytes} bytes, more than the {} GiB an argument buffer may take; bind it with --arg",
                                    pto_vm::MAX_ARG_BYTES >> 30
                                ),
                            );
                        }
                        let n = (bytes as usize).div_ceil(dt.bytes());
                        Bound {
                            array: random(*dt, vec![n], 19 + i as u64),
                            from: None,
                            bytes: 0,
                            lazy: None,
                        }
                    }
                };
                if b.array.dtype.bytes() != dt.bytes() && *dt != DType::U8 {
                    return fail(
                        2,
                        format!(
                            "%{name} points to {dt} elements but its data holds {} elements",
                            b.array.dtype
                        ),
                    );
                }
                // same width, another kind (i32 data for f32 elements): the
                // bytes are used as they are, which is rarely what was meant;
                // uint16/int16 bits are how numpy holds bf16
                let bits_of_bf16 =
                    *dt == DType::BF16 && matches!(b.array.dtype, DType::U16 | DType::I16);
                if b.array.dtype != *dt && *dt != DType::U8 && !bits_of_bf16 {
                    if let Some(f) = &b.from {
                        eprintln!(
                            "pto-run: note: %{name} points to {dt} elements and {} holds {} elements: their bytes are used as they are, not converted",
                            f.display(),
                            b.array.dtype
                        );
                    }
                }
                let random = given[i].is_none() && !golden_specs.iter().any(|g| g.0 == i);
                let (src, b) = split_ranks(b, ranks, random, i);
                srcs.push(src);
                bound.push(Some(b));
            }
            ArgType::Int(_) if matches!(given[i].as_deref(), Some("rank")) => {
                srcs.push(Src::Rank);
                bound.push(None);
            }
            ArgType::Int(_) if matches!(given[i].as_deref(), Some("ranks")) => {
                srcs.push(Src::Same(Arg::Int(ranks as i64)));
                bound.push(None);
            }
            ArgType::Int(_) | ArgType::Float(_) => {
                let s = given[i].clone().unwrap_or_else(|| "1".into());
                let v =
                    if matches!(t, ArgType::Float(_)) {
                        Arg::Float(s.parse::<f64>().map_err(|_| {
                            Failure(2, format!("--arg {name}: '{s}' is not a number"))
                        })?)
                    } else {
                        Arg::Int(s.parse::<i64>().map_err(|_| {
                            Failure(2, format!("--arg {name}: '{s}' is not an integer"))
                        })?)
                    };
                srcs.push(Src::Same(v));
                bound.push(None);
            }
            ArgType::Other(ty) => {
                return fail(
                    2,
                    format!("%{name} has type {ty}, which pto-run cannot bind"),
                )
            }
        }
    }
    // every rank gets its own copy of each buffer: bound the total too
    let per_rank: u64 = bound.iter().flatten().map(|b| b.bytes as u64).sum();
    if per_rank.saturating_mul(u64::from(ranks)) > MAX_TOTAL_ARG_BYTES {
        return fail(
            2,
            format!(
                "the argument buffers take {per_rank} bytes per rank, {} over {ranks} ranks: more than the {} GiB a run may take",
                per_rank.saturating_mul(u64::from(ranks)),
                MAX_TOTAL_ARG_BYTES >> 30
            ),
        );
    }
    // outputs (the files are checked against the inputs below)
    let mut outs = Vec::new();
    let mut out_labels = Vec::new();
    for o in &cli.outs {
        let (k, f) = kv(o, "--out")?;
        let i = index_of(&k).ok_or_else(|| Failure(2, format!("--out {k}: no such argument")))?;
        if bound[i].is_none() {
            return fail(
                2,
                format!(
                    "--out {k}: %{} is a scalar or a peer pointer, not a buffer",
                    names[i]
                ),
            );
        }
        out_labels.push(format!("--out {k}={f}"));
        outs.push((i, PathBuf::from(&f)));
    }
    let mut goldens = Vec::new();
    for (i, f) in golden_specs {
        let k = &names[i];
        let Some(b) = &bound[i] else {
            return fail(2, format!("--golden {k}: %{} is a scalar", names[i]));
        };
        let gb = read_array(&f, b.array.dtype, false).map_err(|e| Failure(2, e))?;
        if gb.array.data.is_empty() {
            return fail(2, format!("{f}: the golden for %{k} holds no data"));
        }
        let want = b.bytes * ranks as usize;
        if gb.array.data.len() != want {
            return fail(
                2,
                format!(
                    "{f}: golden has {} bytes, %{} has {want}{}",
                    gb.array.data.len(),
                    names[i],
                    if ranks > 1 {
                        format!(" ({ranks} ranks of {})", b.bytes)
                    } else {
                        String::new()
                    }
                ),
            );
        }
        goldens.push((i, gb.array, f));
    }
    // no file written may be one the run reads or another output
    {
        let mut inputs: Vec<&Path> = vec![&cli.kernel];
        inputs.extend(bound.iter().flatten().filter_map(|b| b.from.as_deref()));
        inputs.extend(goldens.iter().map(|(_, _, f)| Path::new(f.as_str())));
        let mut written: Vec<(String, &Path)> = out_labels
            .into_iter()
            .zip(outs.iter().map(|(_, p)| p.as_path()))
            .collect();
        if let Some(p) = &cli.run.trace {
            written.push((format!("--trace {}", p.display()), p));
        }
        if let Some(p) = &cli.run.timeline {
            written.push((format!("--timeline {}", p.display()), p));
        }
        for (n, (what, p)) in written.iter().enumerate() {
            if inputs.iter().any(|q| pto_vm::case::same_file(p, q)) {
                return fail(
                    2,
                    format!("{what} would overwrite an input; choose another file"),
                );
            }
            if let Some((other, _)) = written[..n]
                .iter()
                .find(|(_, q)| pto_vm::case::same_file(p, q))
            {
                return fail(
                    2,
                    format!("{other} and {what} name the same file; choose another one"),
                );
            }
        }
    }
    let mut cfg = Config {
        profile: kernel.profile,
        trace: cli.run.trace.is_some() || cli.run.timeline.is_some(),
        jit_threshold: cli.run.jit_threshold,
        crosscheck: cli.run.crosscheck,
        watch_lines: cli.run.watch.clone(),
        ..cli.machine.config()
    };
    if !cfg.watch_lines.is_empty() {
        if let Some(m) = pto_vm::machine::watch::missing_lines(prog, &cfg.watch_lines) {
            return fail(2, m);
        }
        // compiled regions (fused chains keep intermediates in registers)
        // would hide what the watched instructions produce
        cfg.jit = pto_vm::JitMode::Off;
    }
    let watch = cfg.watch.clone().unwrap_or_default();
    let progress = Progress::start(&watch, !(cli.quiet || cli.json));
    // the last rank takes the data itself, the others copies
    let mut per_rank: Vec<Vec<Arg>> = (0..ranks - 1)
        .map(|r| srcs.iter().map(|s| s.arg(r, ranks)).collect())
        .collect();
    per_rank.push(
        srcs.into_iter()
            .map(|s| s.into_arg(ranks - 1, ranks))
            .collect(),
    );
    // outputs and goldens come back; other buffers only when the run changed
    // them and the summary shows them
    let show_written = !cli.quiet && !cli.json;
    // a single rank's outputs and goldens are written and compared straight
    // from GM (no copy of a large output); several ranks' are stacked first
    let read_back: Vec<ReadBack> = (0..names.len())
        .map(|i| {
            if outs.iter().any(|o| o.0 == i) || goldens.iter().any(|g| g.0 == i) {
                if ranks == 1 {
                    ReadBack::Visit
                } else {
                    ReadBack::Always
                }
            } else if show_written {
                ReadBack::IfChanged
            } else {
                ReadBack::Never
            }
        })
        .collect();
    // what each argument's final bytes gave: its --out file written, its
    // --golden comparison, its preview
    let mut done: Vec<Option<Finished>> = (0..names.len()).map(|_| None).collect();
    let finish = |i: usize, bytes: &[u8]| {
        finish_buffer(
            FinishCtx {
                outs: &outs,
                goldens: &goldens,
                bound: &bound,
                per_rank: &per_rank,
                ranks,
                rtol: cli.rtol,
                atol: cli.atol,
                preview: show_written,
            },
            i,
            bytes,
        )
    };
    let fin = run_kernel_ranks_visiting(
        &kernel,
        &cfg,
        cli.entry.as_deref(),
        &per_rank,
        &read_back,
        &mut |_, i, bytes| done[i] = Some(finish(i, bytes)),
    );
    progress.finish();
    let mut fin = fin.map_err(|e| Failure(2, e))?;
    let unchanged = |fin: &pto_vm::FinishedRanks, r: usize, i: usize| -> bool {
        fin.unchanged
            .get(r)
            .and_then(|u| u.get(i))
            .copied()
            .unwrap_or(false)
    };
    // every rank's final bytes of each argument, stacked (empty when not
    // read back: an input the run left alone is not copied out again)
    let stacked: Vec<Vec<u8>> = (0..names.len())
        .map(|i| {
            if matches!(read_back[i], ReadBack::Never | ReadBack::Visit)
                || (0..ranks as usize).all(|r| unchanged(&fin, r, i))
            {
                return Ok(Vec::new());
            }
            if ranks == 1 {
                return Ok(std::mem::take(&mut fin.buffers[0][i]));
            }
            let mut v = Vec::new();
            for (r, args) in per_rank.iter().enumerate() {
                match (&args[i], unchanged(&fin, r, i)) {
                    (Arg::Buffer(b), true) => v.extend_from_slice(b),
                    (Arg::Zeros(len), true) => v.resize(v.len() + *len as usize, 0),
                    (Arg::File { path, offset, len }, true) => {
                        // a rank that left its slice alone: its bytes are the file's
                        let start = v.len();
                        v.resize(start + *len as usize, 0);
                        read_at(path, *offset, &mut v[start..]).map_err(|e| {
                            Failure(2, format!("cannot read {}: {e}", path.display()))
                        })?;
                    }
                    _ => v.extend_from_slice(&fin.buffers[r][i]),
                }
            }
            Ok(v)
        })
        .collect::<Result<_, Failure>>()?;
    for (i, d) in done.iter_mut().enumerate() {
        let read = !matches!(read_back[i], ReadBack::Never | ReadBack::Visit)
            && !(0..ranks as usize).all(|r| unchanged(&fin, r, i));
        if d.is_none() && read {
            *d = Some(finish(i, &stacked[i]));
        }
    }
    drop(stacked);
    let src = kernel.source.as_deref();
    for l in pto_vm::machine::watch::render(prog, &fin.out, ranks > 1) {
        eprint!("pto-run: {l}");
    }
    for d in &fin.out.diags.list {
        eprint!("{}", d.render(prog, src));
    }
    let mut code = 0u8;
    let mut err_text = None;
    match &fin.out.error {
        None => {}
        Some(RunError::Fault { inst, message }) => {
            let l = prog.info(*inst).loc;
            let t = format!(
                "{}:{}:{}: runtime fault in '{}': {message}",
                prog.source_name,
                l.line,
                l.col,
                prog.info(*inst).opcode.name()
            );
            eprintln!("{t}");
            err_text = Some(t);
            code = 3;
        }
        Some(RunError::Deadlock) => {
            err_text = Some("deadlock".into());
            code = 1;
        }
        Some(RunError::Limit(n)) => {
            let t = format!("stopped after {n} steps (--max-steps)");
            eprintln!("pto-run: {t}");
            err_text = Some(t);
            code = 4;
        }
        Some(RunError::Timeout(n)) => {
            let t = format!(
                "stopped by --timeout {}s after {n} steps",
                cli.machine.timeout.unwrap_or_default()
            );
            eprintln!("pto-run: {t}");
            err_text = Some(t);
            code = 4;
        }
        Some(RunError::Setup(m)) => return fail(2, m.clone()),
    }
    if code == 0 && cli.machine.check == CheckArg::Error && !fin.out.diags.is_empty() {
        code = 1;
    }
    // timelines (also after a fault or deadlock: they show how far it got)
    if (cli.run.trace.is_some() || cli.run.timeline.is_some())
        && fin.out.trace_dropped > 0
        && !cli.quiet
    {
        eprintln!(
            "pto-run: the timeline holds the first {} pipe instructions per block; {} later ones are not in it",
            pto_vm::machine::MAX_TRACE_EVENTS,
            fin.out.trace_dropped
        );
    }
    let unit = if matches!(cfg.sched, Sched::Timed) {
        "cycles"
    } else {
        "steps"
    };
    for (path, text) in [
        (
            &cli.run.trace,
            cli.run
                .trace
                .as_ref()
                .map(|_| pto_vm::trace::chrome_json(prog, &fin.out.trace, unit)),
        ),
        (
            &cli.run.timeline,
            cli.run.timeline.as_ref().map(|_| {
                let title = format!(
                    "{} — {} ({:?}, {unit})",
                    cli.kernel.display(),
                    func.name,
                    cli.machine.sched
                );
                pto_vm::trace::svg(prog, &fin.out.trace, &title, unit)
            }),
        ),
    ] {
        if let (Some(p), Some(t)) = (path, text) {
            std::fs::write(p, t)
                .map_err(|e| Failure(2, format!("cannot write {}: {e}", p.display())))?;
        }
    }
    // outputs: a file that could not be written fails the run
    for d in done.iter_mut().flatten() {
        if let Some(e) = d.written.take() {
            e?;
        }
    }
    // goldens
    let mut cmp_json = Vec::new();
    for (i, _, f) in &goldens {
        let Some((r, first)) = done[*i].as_ref().and_then(|d| d.compared.as_ref()) else {
            continue;
        };
        let name = &names[*i];
        if r.mismatches > 0 {
            code = code.max(1);
            eprintln!(
                "pto-run: %{name} differs from {f}: {} of {} elements mismatch (max abs error {:.3e}, max rel error {:.3e}); first: {first}",
                r.mismatches,
                r.total,
                r.max_abs,
                r.max_rel,
            );
        } else if !cli.quiet {
            eprintln!(
                "pto-run: %{name} matches {f} ({} elements, max abs error {:.3e})",
                r.total, r.max_abs
            );
        }
        cmp_json.push(format!(
            "{{\"arg\":{},\"golden\":{},\"elements\":{},\"mismatches\":{},\"max_abs\":{},\"max_rel\":{},\"first\":{}}}",
            json_str(name),
            json_str(f),
            r.total,
            r.mismatches,
            json_num(r.max_abs),
            json_num(r.max_rel),
            json_str(first)
        ));
    }
    // what the kernel wrote: a preview of every buffer it changed
    for (i, d) in done.iter().enumerate() {
        if let Some(p) = d.as_ref().and_then(|d| d.preview.as_ref()) {
            eprintln!("pto-run: %{} (v{}) written: {p}", names[i], i + 1);
        }
    }
    if cli.stats && !cli.json {
        print_stats(
            &fin.out.run_stats(),
            matches!(cfg.sched, Sched::Timed),
            &cli.machine,
        );
    }
    if cli.json {
        let diags: Vec<String> = fin
            .out
            .diags
            .list
            .iter()
            .map(|d| {
                let line = d.inst.map(|i| prog.info(i).loc.line).unwrap_or(0);
                let other = d.other.map(|i| prog.info(i).loc.line).unwrap_or(0);
                format!(
                    "{{\"kind\":\"{}\",\"line\":{line},\"other_line\":{other},\"count\":{},\"message\":{}}}",
                    d.kind.name(),
                    d.count,
                    json_str(&d.message)
                )
            })
            .collect();
        println!(
            "{{\"kernel\":{},\"exit\":{code},\"error\":{},\"pipe_instructions\":{},\"cycles\":{},\"diagnostics\":[{}],\"goldens\":[{}],\"watch\":[{}]}}",
            json_str(&cli.kernel.display().to_string()),
            err_text.map_or("null".to_string(), |t| json_str(&t)),
            fin.out.pipe_insts,
            fin.out.cycles,
            diags.join(","),
            cmp_json.join(","),
            pto_vm::machine::watch::render(prog, &fin.out, ranks > 1)
                .iter()
                .map(|w| json_str(w))
                .collect::<Vec<_>>()
                .join(",")
        );
    } else if !cli.quiet {
        let n = fin.out.diags.list.len();
        eprintln!(
            "pto-run: {} on {} block(s){}: {} pipe instructions, {} synchronization finding(s){}",
            func.name,
            cli.machine.blocks,
            if ranks > 1 {
                format!(" x {ranks} ranks")
            } else {
                String::new()
            },
            fin.out.pipe_insts,
            n,
            match (n, &fin.out.error) {
                // a run that stopped early checked only what it ran
                (0, Some(_)) => " before it stopped",
                (0, None) => " (clean)",
                _ => "",
            }
        );
    }
    Ok(code)
}

/// `N dtype elements [first values ...] (min .., max ..)`.
/// What [`finish_buffer`] needs besides the bytes.
struct FinishCtx<'a> {
    outs: &'a [(usize, PathBuf)],
    goldens: &'a [(usize, Array, String)],
    bound: &'a [Option<Bound>],
    per_rank: &'a [Vec<Arg>],
    ranks: u32,
    rtol: Option<f64>,
    atol: Option<f64>,
    preview: bool,
}

/// What one argument's final bytes gave.
struct Finished {
    /// Its `--out` file was written (None: no `--out` for it).
    written: Option<Result<(), Failure>>,
    /// Its `--golden` comparison and the first mismatch described.
    compared: Option<(pto_vm::case::Cmp, String)>,
    /// A preview of what the kernel wrote into it (None: not shown, or the
    /// run left it as it was).
    preview: Option<String>,
}

/// Writes argument `i`'s `--out` file from its final bytes (every rank's,
/// stacked), compares them with its `--golden` and previews them: the same
/// for bytes read back out of GM and for bytes handed over in place.
fn finish_buffer(cx: FinishCtx<'_>, i: usize, bytes: &[u8]) -> Finished {
    let written = cx.outs.iter().find(|o| o.0 == i).map(|(_, path)| {
        let Some(b) = &cx.bound[i] else {
            return Ok(());
        };
        let mut shape = b.array.shape.clone();
        if cx.ranks > 1 {
            shape.insert(0, cx.ranks as usize);
        }
        // the header, then the data as it is (no copy of a large output)
        let head = if path.extension().is_some_and(|e| e == "npy") {
            npy::header(b.array.dtype, &shape).map_err(|e| Failure(2, e))?
        } else {
            Vec::new()
        };
        let cannot =
            |e: std::io::Error| Failure(2, format!("cannot write {}: {e}", path.display()));
        use std::io::Write;
        let mut f = std::fs::File::create(path).map_err(cannot)?;
        f.write_all(&head).map_err(cannot)?;
        f.write_all(bytes).map_err(cannot)
    });
    let compared = cx.goldens.iter().find(|g| g.0 == i).map(|(_, g, _)| {
        let r = pto_vm::case::compare(g.dtype, &g.data, bytes, cx.rtol, cx.atol);
        let first = r.describe_first(g.dtype, &g.data, bytes, &g.shape);
        (r, first)
    });
    // the stacked result against each rank's initial bytes, in place
    let preview = cx.bound[i].as_ref().filter(|_| cx.preview).and_then(|b| {
        let mut at = 0;
        let mut same = true;
        for a in cx.per_rank {
            match &a[i] {
                Arg::Buffer(v) => {
                    same &= bytes.get(at..at + v.len()) == Some(&v[..]);
                    at += v.len();
                }
                Arg::Zeros(len) => {
                    let len = *len as usize;
                    same &= bytes
                        .get(at..at + len)
                        .is_some_and(|b| b.iter().all(|x| *x == 0));
                    at += len;
                }
                _ => {
                    same = false;
                    break;
                }
            }
        }
        (!same || at != bytes.len()).then(|| preview(b.array.dtype, bytes))
    });
    Finished {
        written,
        compared,
        preview,
    }
}

fn preview(dt: DType, data: &[u8]) -> String {
    let es = dt.bytes().max(1);
    // streamed: an output of hundreds of MiB is not decoded into a vector
    let vals = || {
        data.chunks_exact(es)
            .map(|c| match pto_vm::num::read(c, dt) {
                pto_vm::num::Num::F(f) => f,
                pto_vm::num::Num::I(i) => i as f64,
            })
    };
    let count = data.len() / es;
    let short = |v: f64| {
        if v.fract() == 0.0 && v.abs() < 1e15 {
            format!("{v}")
        } else if v.is_finite() && (1e-4..1e6).contains(&v.abs()) {
            let t = format!("{v:.5}");
            t.trim_end_matches('0').to_string()
        } else {
            format!("{v:.4e}")
        }
    };
    let shown: Vec<String> = vals().take(6).map(short).collect();
    let (lo, hi) = vals().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    format!(
        "{} {dt} elements [{}{}] (min {}, max {})",
        count,
        shown.join(", "),
        if count > 6 { ", ..." } else { "" },
        short(lo),
        short(hi)
    )
}

/// Whether two paths name one file: equal after resolving links and `..`
/// (for a file that does not exist yet, its directory is resolved).
fn json_num(v: f64) -> String {
    if v.is_finite() {
        format!("{v}")
    } else {
        "null".into()
    }
}

fn json_str(s: &str) -> String {
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

/// A spinner with the step count, shown on stderr (when it is a terminal) once
/// a run has taken longer than a second.
struct Progress {
    stop: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    fn start(watch: &pto_vm::Watch, wanted: bool) -> Progress {
        use std::io::IsTerminal;
        use std::sync::mpsc::RecvTimeoutError::Timeout;
        if !wanted || !std::io::stderr().is_terminal() {
            return Progress {
                stop: None,
                thread: None,
            };
        }
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let steps = watch.steps.clone();
        let thread = std::thread::spawn(move || {
            // a run that ends within a second never shows a bar
            if rx.recv_timeout(std::time::Duration::from_secs(1)) != Err(Timeout) {
                return;
            }
            let bar = indicatif::ProgressBar::new_spinner();
            bar.set_style(
                indicatif::ProgressStyle::with_template("{spinner} {elapsed} {msg}")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
            );
            loop {
                let n = steps.load(std::sync::atomic::Ordering::Relaxed);
                bar.set_message(format!("{n} steps"));
                bar.tick();
                if rx.recv_timeout(std::time::Duration::from_millis(100)) != Err(Timeout) {
                    break;
                }
            }
            bar.finish_and_clear();
        });
        Progress {
            stop: Some(tx),
            thread: Some(thread),
        }
    }

    fn finish(mut self) {
        // dropping the sender wakes the thread at once
        self.stop.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The `--stats` report on stderr: retired instructions and busy time per
/// pipe, the simulated cycles under `--sched timed`, and what the JIT did.
pub(crate) fn print_stats(st: &pto_vm::machine::RunStats, timed: bool, machine: &MachineFlags) {
    eprintln!("{:<8} {:>10} {:>12}", "pipe", "retired", "busy");
    for (s, p) in st.pipes.iter().enumerate().skip(1) {
        eprintln!(
            "{:<8} {:>10} {:>12}",
            pto_vm::machine::slot_pipe(s).column(),
            p.retired,
            p.busy
        );
    }
    if timed {
        eprintln!("cycles   {:>10}", st.cycles);
    }
    let j = &st.jit;
    eprintln!(
        "jit: {} region(s) compiled ({} bytes, {} us), {} compiled runs, {} interpreted runs below the threshold",
        j.compiled, j.code_bytes, j.compile_us, j.jit_execs, j.interp_execs
    );
    if j.matmul_execs + j.dma_execs + j.scope_execs > 0 {
        eprintln!(
            "jit: {} native matmul run(s), {} row-copy tload/tstore run(s), {} compiled vector-scope run(s) ({} op(s) run by the host inside them)",
            j.matmul_execs, j.dma_execs, j.scope_execs, j.scope_host_ops
        );
    }
    if !j.scope_host_by_op.is_empty() {
        // most frequent first
        let mut by: Vec<_> = j.scope_host_by_op.iter().collect();
        by.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let list: Vec<String> = by.iter().map(|(op, n)| format!("{op} {n}")).collect();
        eprintln!("jit: host ops inside compiled scopes: {}", list.join(", "));
    }
    if j.chain_execs > 0 || j.chains_compiled > 0 {
        // "in parts": chains whose exp runs on the wide single-op path
        let parts = if j.chains_in_parts > 0 {
            format!(" ({} in parts at an exp)", j.chains_in_parts)
        } else {
            String::new()
        };
        eprintln!(
            "jit: {} fused chain(s) compiled{parts}, {} fused chain run(s) ({} ops fused)",
            j.chains_compiled, j.chain_execs, j.chain_ops
        );
    }
    for (why, n) in &j.rejected {
        eprintln!("jit: {n} region(s) rejected: {why}");
    }
    if let Some(line) = machine.jit_cache_stats() {
        eprintln!("{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_f32_takes_the_generic_writers_bits() {
        let got = random(DType::F32, vec![1000], 7);
        let mut st = 7;
        for (i, ch) in got.data.chunks_exact(4).enumerate() {
            let r = splitmix(&mut st);
            let mut want = [0u8; 4];
            let v = (r >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
            pto_vm::num::write(&mut want, DType::F32, pto_vm::num::Num::F(v));
            assert_eq!(ch, want, "element {i}");
        }
    }
}
