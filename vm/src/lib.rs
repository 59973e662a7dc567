//! `pto-vm`: the ptovm machine.
//!
//! * [`program`] / [`lower`]: the verified module lowered to flat code with every
//!   operand decoded once.
//! * [`machine`]: per-core scalar units issuing into in-order pipe queues (MTE1,
//!   MTE2, MTE3, V, M, FIX), a scoreboard that retires queue heads only when the
//!   program's synchronization allows, and the `inorder`, `timed` and `shuffle`
//!   schedulers. Blocks run on a pool of host threads over one shared GM.
//! * [`checker`]: the happens-before checker (vector clocks, shadow memory per
//!   32-byte granule) behind `--check`.
//! * [`exec`]: the reference interpreter, one file per instruction group.
//! * [`mem`]: GM, on-chip buffers and file mapping (the only `unsafe` in the VM).

#![deny(unsafe_code)]

pub mod case;
pub mod checker;
pub mod diag;
pub mod exec;
pub mod fifo;
pub mod header;
pub mod jitcall;
pub mod jitchain;
pub mod jitrow;
pub mod jitscope;
pub mod layout;
pub mod lower;
pub mod machine;
#[allow(unsafe_code)]
pub mod mem;
pub mod npy;
pub mod num;
pub mod program;
pub mod regs;
pub mod trace;
pub mod value;

use pto_isa_spec::ProfileId;

pub use diag::{DiagKind, Diags, RunDiag};
pub use jitcall::JitStats;
pub use machine::watch::{WatchLine, WatchReport};
pub use machine::{run, run_ranks, ArchState, CoreState, RunError, RunOutput, TraceEvent};
pub use program::Program;
pub use value::{Ptr, Space, Val};

/// Which ready agent advances next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Sched {
    /// Program order: the oldest ready instruction runs first. Deterministic.
    #[default]
    InOrder,
    /// Cost model: the agent that can start earliest in simulated cycles runs.
    Timed,
    /// Adversarial: random among ready agents, preferring to issue and to run the
    /// youngest ready instruction, so producers are delayed as long as the
    /// synchronization allows.
    Shuffle {
        /// Seed.
        seed: u64,
    },
}

/// What the happens-before checker does with findings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CheckMode {
    /// Not run.
    Off,
    /// Reported; the run's exit status is unaffected.
    #[default]
    Warn,
    /// Reported; the run fails.
    Error,
}

/// When compiled code replaces the interpreter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum JitMode {
    /// Interpreter only.
    Off,
    /// Compile a region after it ran `jit_threshold` times.
    #[default]
    Auto,
    /// Compile every eligible region the first time it runs.
    Always,
}

/// Run configuration.
#[derive(Clone, Debug)]
pub struct Config {
    /// Target profile.
    pub profile: ProfileId,
    /// Number of blocks in the grid.
    pub blocks: u32,
    /// Scheduler.
    pub sched: Sched,
    /// Checker mode.
    pub check: CheckMode,
    /// Step limit (0 = none).
    pub max_steps: u64,
    /// Override of the UB size in bytes.
    pub ub_bytes: Option<usize>,
    /// Record a timeline.
    pub trace: bool,
    /// Return the final architectural state of every block.
    pub keep_state: bool,
    /// JIT tiering.
    pub jit: JitMode,
    /// Executions of a region before `JitMode::Auto` compiles it.
    pub jit_threshold: u32,
    /// Run the interpreter next to every compiled region and compare results.
    pub crosscheck: bool,
    /// Fuse runs of tile elementwise ops into one compiled loop (`jitchain`).
    pub jit_fuse: bool,
    /// Wall-clock deadline and a live step counter for progress display.
    pub watch: Option<Watch>,
    /// Source lines whose instructions report what they produced
    /// (`--watch`; [`RunOutput::watch`]). A run with watched lines is
    /// interpreted whatever `jit` says.
    pub watch_lines: Vec<WatchLine>,
}

/// What a caller can watch from outside a run: a wall-clock deadline (the run
/// stops with [`RunError::Timeout`]) and a step counter updated as it goes.
#[derive(Clone, Debug, Default)]
pub struct Watch {
    /// Stop once this instant has passed.
    pub deadline: Option<std::time::Instant>,
    /// Machine steps so far (updated every 64 steps).
    pub steps: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            profile: ProfileId::A2A3,
            blocks: 1,
            sched: Sched::InOrder,
            check: CheckMode::Warn,
            max_steps: 0,
            ub_bytes: None,
            trace: false,
            keep_state: false,
            jit: JitMode::Auto,
            jit_threshold: 2,
            crosscheck: false,
            jit_fuse: true,
            watch: None,
            watch_lines: Vec::new(),
        }
    }
}

/// Errors loading a kernel.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// Parse or verify errors, rendered.
    #[error("{0}")]
    Invalid(String),
    /// Binary decode error.
    #[error("{0}")]
    Decode(#[from] pto_asm::binary::DecodeError),
}

/// A loaded kernel: the lowered program and the profile it was verified for.
#[derive(Debug)]
pub struct Kernel {
    /// The program.
    pub program: Program,
    /// Profile.
    pub profile: ProfileId,
    /// Source text, when loaded from text (for diagnostics with carets).
    pub source: Option<String>,
}

/// Parses, verifies and lowers kernel text.
pub fn load_text(name: &str, src: &str, profile: Option<ProfileId>) -> Result<Kernel, LoadError> {
    let c = pto_asm::check_text(name, src, profile);
    if c.diagnostics.has_errors() {
        return Err(LoadError::Invalid(c.diagnostics.render(name, src)));
    }
    let program = lower::lower(&c.file)
        .map_err(|d| LoadError::Invalid(pto_asm::Diagnostics(d).render(name, src)))?;
    Ok(Kernel {
        program,
        profile: c.profile,
        source: Some(src.to_string()),
    })
}

/// Decodes, verifies and lowers a `.ptobin` image.
pub fn load_binary(bytes: &[u8], profile: Option<ProfileId>) -> Result<Kernel, LoadError> {
    let d = pto_asm::binary::decode(bytes)?;
    let (p, _) = pto_asm::verify::file_profile(&d.file, profile.or(d.profile));
    let diags = pto_asm::verify::verify(&d.file, p);
    if diags.iter().any(|x| x.severity == pto_asm::Severity::Error) {
        return Err(LoadError::Invalid(
            pto_asm::Diagnostics(diags).render(&d.file.source_name, ""),
        ));
    }
    let program = lower::lower(&d.file)
        .map_err(|e| LoadError::Invalid(pto_asm::Diagnostics(e).render(&d.file.source_name, "")))?;
    Ok(Kernel {
        program,
        profile: p,
        source: None,
    })
}

/// A kernel argument for [`run_kernel`].
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// A GM buffer with its initial bytes (placed in GM, passed as a pointer).
    Buffer(Vec<u8>),
    /// A GM buffer of `len` bytes filled from the file at `path` from byte
    /// `offset` on (zeros past its end), read straight into GM when the run
    /// starts: a kernel's weights can be hundreds of MiB, and a copy in
    /// between costs as much again. Otherwise like [`Arg::Buffer`].
    File {
        /// The file.
        path: std::path::PathBuf,
        /// Where the buffer's bytes start in it (a `.npy` header's length).
        offset: u64,
        /// The buffer's size in bytes.
        len: u64,
    },
    /// A GM buffer of this many zero bytes. Like an [`Arg::Buffer`] of
    /// zeros, without the bytes to hold or copy: a large output starts as
    /// untouched GM.
    Zeros(u64),
    /// An integer or index scalar.
    Int(i64),
    /// A float scalar.
    Float(f64),
    /// A pointer to argument `arg`'s buffer on rank `rank` (multi-rank runs:
    /// how a kernel gets its peers' addresses).
    Peer {
        /// Argument index (must be an `Arg::Buffer` on that rank).
        arg: usize,
        /// Rank.
        rank: u32,
    },
    /// The same GM buffer as an earlier argument (by index): a launch that
    /// passes one device pointer several times.
    Alias(usize),
}

/// Where a run left the GM buffers of its arguments.
#[derive(Debug)]
pub struct Finished {
    /// The run's output (diagnostics, error, stats, trace).
    pub out: RunOutput,
    /// Final bytes of every `Arg::Buffer`, in argument order (empty for scalars).
    pub buffers: Vec<Vec<u8>>,
}

/// First GM byte address handed to a buffer (address 0 stays unused, so a null
/// pointer faults).
pub const GM_BASE: u64 = 4096;

/// The largest argument buffer `pto-run` and the case runner create from a
/// size they were given (a shape, a `case.toml` entry, a size in
/// `main.cpp`): 4 GiB. Larger sizes are refused with an error rather than
/// left to the allocator, which aborts the process when it cannot comply.
pub const MAX_ARG_BYTES: u64 = 4 << 30;

/// Zeroed GM after the last argument buffer of a rank. A device allocator
/// hands out memory from a large heap, so a DMA that runs past its buffer
/// reads or clobbers neighbouring memory instead of faulting; ptovm gives it
/// this much room and the checker reports it (`gm-out-of-buffer`).
pub const GM_SLACK: u64 = 64 * 1024;

/// Places the arguments in a fresh GM, runs the entry function, reads the
/// buffers back.
pub fn run_kernel(
    kernel: &Kernel,
    cfg: &Config,
    entry: Option<&str>,
    args: &[Arg],
) -> Result<Finished, String> {
    let mut buffers = Vec::new();
    let out = run_kernel_into(kernel, cfg, entry, args, &mut buffers)?;
    Ok(Finished { out, buffers })
}

/// [`run_kernel`] for repeated runs: reads the buffers back into `buffers`
/// (one vector per argument, empty for scalars), reusing the vectors it
/// already holds. A caller that runs a kernel many times (a benchmark, a
/// sweep over inputs) keeps one `buffers` and allocates nothing per run for
/// the results; fresh result vectors are large allocations the allocator
/// maps and unmaps again, and their page faults can cost more than a whole
/// compiled run of a small kernel.
pub fn run_kernel_into(
    kernel: &Kernel,
    cfg: &Config,
    entry: Option<&str>,
    args: &[Arg],
    buffers: &mut Vec<Vec<u8>>,
) -> Result<RunOutput, String> {
    let mut ranks = vec![std::mem::take(buffers)];
    let out = run_ranks_into(kernel, cfg, entry, &[args], None, &mut ranks);
    *buffers = ranks.pop().unwrap_or_default();
    out
}

/// [`run_kernel_into`] reading back only the buffers `read_back` asks for
/// (by argument index; a missing entry is [`ReadBack::Never`]; `Visit` acts as
/// `Never` here): the others come back empty. A caller that runs a kernel
/// repeatedly and looks only at its outputs (as `pto-run` does) does not copy
/// its inputs out of GM again after every run.
pub fn run_kernel_reading_into(
    kernel: &Kernel,
    cfg: &Config,
    entry: Option<&str>,
    args: &[Arg],
    read_back: &[ReadBack],
    buffers: &mut Vec<Vec<u8>>,
) -> Result<RunOutput, String> {
    let mut ranks = vec![std::mem::take(buffers)];
    let mut unchanged = Vec::new();
    let reading = Reading {
        modes: read_back,
        unchanged: &mut unchanged,
        visit: &mut |_, _, _| {},
    };
    let out = run_ranks_into(kernel, cfg, entry, &[args], Some(reading), &mut ranks);
    *buffers = ranks.pop().unwrap_or_default();
    out
}

/// Where a multi-rank run left every rank's buffers.
#[derive(Debug)]
pub struct FinishedRanks {
    /// The merged output of all ranks.
    pub out: RunOutput,
    /// `buffers[r][i]`: final bytes of rank `r`'s argument `i` (empty for scalars).
    pub buffers: Vec<Vec<Vec<u8>>>,
    /// `unchanged[r][i]`: rank `r`'s buffer `i` was not read back because the
    /// run left it as it was ([`ReadBack::IfChanged`]; empty when nothing
    /// asked for that).
    pub unchanged: Vec<Vec<bool>>,
}

/// Runs `args.len()` ranks of the kernel, each over its own GM (rank `r`'s GM
/// is mapped at `r << mem::RANK_SHIFT`); `args[r]` are rank `r`'s arguments.
pub fn run_kernel_ranks<A: AsRef<[Arg]>>(
    kernel: &Kernel,
    cfg: &Config,
    entry: Option<&str>,
    args: &[A],
) -> Result<FinishedRanks, String> {
    let mut buffers = Vec::new();
    let out = run_ranks_into(kernel, cfg, entry, args, None, &mut buffers)?;
    Ok(FinishedRanks {
        out,
        buffers,
        unchanged: Vec::new(),
    })
}

/// Which buffers [`run_kernel_ranks_reading`] reads back after the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadBack {
    /// Always.
    Always,
    /// Only when the run changed it (compared in place in GM); an unchanged
    /// buffer comes back empty and marked in [`FinishedRanks::unchanged`].
    IfChanged,
    /// Never (it comes back empty).
    Never,
    /// Handed in place to the visitor of [`run_kernel_ranks_visiting`] (it
    /// comes back empty): compared without a copy.
    Visit,
}

/// What [`run_kernel_ranks_visiting`] hands its visitor: rank, argument
/// index, and the buffer's bytes in GM.
pub type Visitor<'v> = dyn FnMut(usize, usize, &[u8]) + 'v;

/// [`run_kernel_ranks`] reading back only the buffers `read_back` asks for
/// (by argument index, the same for every rank; a missing entry is
/// `Never`). A caller that checks a few outputs does not copy every input out
/// of GM again: for a kernel with 400 MiB of weights that copy, with its
/// page faults, took longer than the run.
pub fn run_kernel_ranks_reading<A: AsRef<[Arg]>>(
    kernel: &Kernel,
    cfg: &Config,
    entry: Option<&str>,
    args: &[A],
    read_back: &[ReadBack],
) -> Result<FinishedRanks, String> {
    run_kernel_ranks_visiting(kernel, cfg, entry, args, read_back, &mut |_, _, _| {})
}

/// [`run_kernel_ranks_reading`] where a [`ReadBack::Visit`] buffer is not
/// copied out of GM but handed to `visit` in place after the run (rank,
/// argument index, bytes): a case that compares a 128 MiB output with its
/// golden needs no second 128 MiB buffer.
pub fn run_kernel_ranks_visiting<A: AsRef<[Arg]>>(
    kernel: &Kernel,
    cfg: &Config,
    entry: Option<&str>,
    args: &[A],
    read_back: &[ReadBack],
    visit: &mut Visitor<'_>,
) -> Result<FinishedRanks, String> {
    let mut buffers = Vec::new();
    let mut unchanged = Vec::new();
    let out = run_ranks_into(
        kernel,
        cfg,
        entry,
        args,
        Some(Reading {
            modes: read_back,
            unchanged: &mut unchanged,
            visit,
        }),
        &mut buffers,
    )?;
    Ok(FinishedRanks {
        out,
        buffers,
        unchanged,
    })
}

/// What to read back after a run: the mode per argument, where to mark the
/// unchanged buffers, and the visitor of [`ReadBack::Visit`] buffers.
struct Reading<'a, 'v> {
    modes: &'a [ReadBack],
    unchanged: &'a mut Vec<Vec<bool>>,
    visit: &'a mut Visitor<'v>,
}

/// The runs behind [`run_kernel_ranks`] and [`run_kernel_into`]: `buffers[r][i]`
/// receives rank `r`'s argument `i`, reusing the vectors already there.
fn run_ranks_into<A: AsRef<[Arg]>>(
    kernel: &Kernel,
    cfg: &Config,
    entry: Option<&str>,
    args: &[A],
    read_back: Option<Reading<'_, '_>>,
    buffers: &mut Vec<Vec<Vec<u8>>>,
) -> Result<RunOutput, String> {
    let prog = &kernel.program;
    let entry = prog
        .entry(entry)
        .ok_or_else(|| "no entry function (mark one with attributes {pto.entry})".to_string())?;
    if args.is_empty() || args.len() > 256 {
        return Err(format!("{} ranks: ptovm runs 1 to 256", args.len()));
    }
    // place every rank's buffers in its own GM
    let mut places: Vec<Vec<Option<(u64, u64)>>> = Vec::new();
    let mut lens = Vec::new();
    let mut bufs = Vec::new();
    let mut init: Vec<(u64, mem::Fill<'_>)> = Vec::new();
    // each rank's argument contents by argument index (for ReadBack::IfChanged)
    let mut fills: Vec<Vec<Option<mem::Fill<'_>>>> = Vec::new();
    let names = prog.arg_names(entry);
    for (r, rargs) in args.iter().map(|a| a.as_ref()).enumerate() {
        let base = (r as u64) << mem::RANK_SHIFT;
        let mut addr = GM_BASE;
        let mut p = Vec::new();
        let mut pf = Vec::new();
        for a in rargs {
            let fill = match a {
                Arg::Buffer(b) => Some(mem::Fill::Bytes(b)),
                Arg::File { path, offset, len } => Some(mem::Fill::File(path, *offset, *len)),
                Arg::Zeros(len) => Some(mem::Fill::Zeros(*len)),
                _ => None,
            };
            pf.push(fill);
            match (fill, a) {
                (Some(fill), _) => {
                    let blen = fill.len();
                    if blen >= 1 << (mem::RANK_SHIFT - 1) {
                        return Err(format!("a {blen} byte buffer does not fit a rank's GM"));
                    }
                    p.push(Some((base + addr, blen)));
                    init.push((base + addr, fill));
                    let name = names
                        .get(p.len() - 1)
                        .map_or_else(|| format!("argument {}", p.len()), |n| format!("%{n}"));
                    bufs.push(mem::GmBuffer {
                        lo: base + addr,
                        hi: base + addr + blen,
                        name: if args.len() > 1 {
                            format!("{name} of rank {r}")
                        } else {
                            name
                        },
                    });
                    addr = (addr + blen).div_ceil(512) * 512 + 512;
                }
                (None, Arg::Alias(j)) => p.push(p.get(*j).copied().flatten()),
                (None, _) => p.push(None),
            }
        }
        places.push(p);
        fills.push(pf);
        lens.push(addr + GM_SLACK);
    }
    let mut gm = mem::Gm::with_contents(&lens, &init)?;
    gm.set_buffers(bufs);
    let func = &prog.funcs[entry];
    let mut vals = Vec::new();
    for (r, rargs) in args.iter().map(|a| a.as_ref()).enumerate() {
        let mut v = Vec::new();
        for (i, a) in rargs.iter().enumerate() {
            let elem = match func.arg_types.get(i) {
                Some(program::ArgType::GmPtr(d)) => *d,
                _ => pto_isa_spec::DType::U8,
            };
            v.push(match a {
                Arg::Buffer(_) | Arg::File { .. } | Arg::Zeros(_) => {
                    let (at, _) = places[r][i].unwrap_or((0, 0));
                    Val::Ptr(Ptr {
                        space: Space::Gm,
                        addr: at,
                        elem,
                    })
                }
                Arg::Peer { arg, rank } => {
                    let at = places
                        .get(*rank as usize)
                        .and_then(|p| p.get(*arg))
                        .copied()
                        .flatten()
                        .ok_or_else(|| {
                            format!("argument {} points at argument {arg} of rank {rank}, which is not a buffer", i + 1)
                        })?;
                    Val::Ptr(Ptr {
                        space: Space::Gm,
                        addr: at.0,
                        elem,
                    })
                }
                Arg::Alias(j) => {
                    let Some((at, _)) = places[r][i] else {
                        return Err(format!(
                            "argument {} aliases argument {}, which is no buffer",
                            i + 1,
                            j + 1
                        ));
                    };
                    Val::Ptr(Ptr {
                        space: Space::Gm,
                        addr: at,
                        elem,
                    })
                }
                Arg::Int(x) => Val::Int(*x),
                Arg::Float(x) => Val::Float(*x),
            });
        }
        vals.push(v);
    }
    let out = machine::run_ranks(prog, cfg, &mut gm, entry, &vals);
    buffers.resize_with(places.len(), Vec::new);
    let (modes, mut unchanged, mut visit) = match read_back {
        Some(Reading {
            modes,
            unchanged,
            visit,
        }) => (Some(modes), Some(unchanged), Some(visit)),
        None => (None, None, None),
    };
    if let Some(u) = unchanged.as_deref_mut() {
        *u = places.iter().map(|p| vec![false; p.len()]).collect();
    }
    for (r, (p, rb)) in places.iter().zip(buffers.iter_mut()).enumerate() {
        rb.resize_with(p.len(), Vec::new);
        for (i, (q, b)) in p.iter().zip(rb.iter_mut()).enumerate() {
            let mode = match modes {
                None => ReadBack::Always,
                Some(m) => m.get(i).copied().unwrap_or(ReadBack::Never),
            };
            let Some((at, len)) = q else {
                b.clear();
                continue;
            };
            let keep = match (mode, fills[r].get(i).copied().flatten()) {
                (ReadBack::Never, _) => false,
                (ReadBack::Visit, _) => {
                    if let Some(v) = visit.as_deref_mut() {
                        gm.with_exclusive(*at, *len as usize, |bytes| v(r, i, bytes))
                            .map_err(|e| e.to_string())?;
                    }
                    false
                }
                (ReadBack::IfChanged, Some(f)) if gm.holds(*at, &f)? => {
                    if let Some(u) = unchanged.as_deref_mut() {
                        u[r][i] = true;
                    }
                    false
                }
                _ => true,
            };
            if keep {
                gm.read_exclusive_into(*at, *len as usize, b)
                    .map_err(|e| e.to_string())?;
            } else {
                b.clear();
            }
        }
    }
    Ok(out)
}
