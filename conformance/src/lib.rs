//! `pto-conformance`: the case format, the runner and the coverage report.
//!
//! A case is a directory:
//!
//! ```text
//! conformance/cases/<name>/
//!   kernel.pto        the kernel; leading `//!` lines form an optional TOML header
//!   golden.py         the numpy generator that wrote the .bin files (not run by tests)
//!   vK.bin            initial contents of pointer argument K (1-based), raw little-endian
//!   golden_vK.bin     expected final contents of argument K
//! ```
//!
//! Header keys (all optional): `tiers = ["interp", "jit", "crosscheck"]` (the default),
//! `profile = "a2a3" | "a5"`, `atol`, `rtol`, `expect-fail = "reason"` (a case
//! that then passes is an error), `expect-fault = "text"` (the run must stop
//! with a runtime fault whose `kernel.pto:LINE:COL: runtime fault: ...`
//! message contains the text; the goldens then hold what the kernel wrote
//! before it), `entry = "name"`, `blocks = N`,
//! `sched = "inorder" | "timed" | "shuffle"`, `scalars = { v3 = 16 }`,
//! `check = "error" | "warn" | "off"` (default `error`: cases must be sync-clean),
//! `ranks = R` with `peers = { v4 = "v2:+1" }` and `scalars = { v1 = "rank" }`
//! (multi-rank cases: every `vK.bin`/`golden_vK.bin` stacks the R ranks' data).

use std::path::{Path, PathBuf};

use pto_vm::header::parse as parse_header;
pub use pto_vm::header::{CaseHeader as Header, RankArg, Tier};
use pto_vm::program::ArgType;
use pto_vm::{load_text, run_kernel_ranks, Arg, CheckMode, Config, JitMode, RunError, Sched};

/// One conformance case.
#[derive(Clone, Debug)]
pub struct Case {
    /// Case directory.
    pub dir: PathBuf,
    /// Name (path relative to the root it was found under).
    pub name: String,
    /// Header.
    pub header: Header,
}

/// The outcome of one (case, tier) run.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Outputs matched the goldens and the checker found nothing.
    Pass,
    /// An output differs.
    Mismatch {
        /// Argument (1-based).
        arg: usize,
        /// Elements that differ.
        count: usize,
        /// Elements compared.
        total: usize,
        /// Largest absolute error.
        max_abs: f64,
        /// The first differing elements with their values
        /// (`pto_vm::case::Cmp::describe_first`).
        first: String,
    },
    /// The kernel could not run, or the checker reported findings.
    Error(String),
    /// A known failure failed as expected.
    ExpectedFail(String),
    /// A known failure passed: the expect-fail entry must go.
    UnexpectedPass(String),
    /// Not run on this tier.
    Skipped(String),
}

impl Outcome {
    /// True for outcomes that do not fail a run.
    pub fn ok(&self) -> bool {
        matches!(
            self,
            Outcome::Pass | Outcome::ExpectedFail(_) | Outcome::Skipped(_)
        )
    }

    /// One-line description.
    pub fn describe(&self) -> String {
        match self {
            Outcome::Pass => "pass".into(),
            Outcome::Mismatch {
                arg,
                count,
                total,
                max_abs,
                first,
            } => format!("v{arg}: {count} of {total} elements differ (max abs error {max_abs:.3e}, first: {first})"),
            Outcome::Error(e) => e.clone(),
            Outcome::ExpectedFail(r) => format!("expected failure: {r}"),
            Outcome::UnexpectedPass(r) => format!("passed, but is marked expect-fail ({r}): remove the mark"),
            Outcome::Skipped(r) => format!("skipped: {r}"),
        }
    }
}

/// A malformed case.
#[derive(Debug, thiserror::Error)]
#[error("{case}: {msg}")]
pub struct CaseError {
    /// Case directory.
    pub case: String,
    /// What is wrong.
    pub msg: String,
}

/// A case's data file: a regular file of at most an argument buffer's size
/// (a device such as `/dev/zero` is an error, not an endless read).
fn read_data(p: &Path) -> std::io::Result<Vec<u8>> {
    if !std::fs::metadata(p)?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    pto_asm::read_capped(p, pto_vm::MAX_ARG_BYTES)
}

/// A case's kernel text, capped as `pto-as` caps it.
fn read_kernel(p: &Path) -> Result<String, String> {
    if !std::fs::metadata(p).map_err(|e| e.to_string())?.is_file() {
        return Err("not a regular file".into());
    }
    let b = pto_asm::read_capped(p, pto_asm::MAX_KERNEL_BYTES).map_err(|e| e.to_string())?;
    String::from_utf8(b).map_err(|_| "not UTF-8 text".into())
}

/// Finds every case (a directory holding `kernel.pto`) under `root`, sorted by name.
/// Each directory is visited once, however symlinks lead back to it.
pub fn discover(root: &Path) -> Result<Vec<Case>, CaseError> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    let mut seen = std::collections::HashSet::new();
    while let Some(d) = stack.pop() {
        if let Ok(c) = std::fs::canonicalize(&d) {
            if !seen.insert(c) {
                continue;
            }
        }
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            }
        }
        let k = d.join("kernel.pto");
        if k.is_file() {
            let name = d.strip_prefix(root).unwrap_or(&d).display().to_string();
            let text = read_kernel(&k).map_err(|e| CaseError {
                case: name.clone(),
                msg: format!("cannot read kernel.pto: {e}"),
            })?;
            let header = parse_header(&text).map_err(|msg| CaseError {
                case: name.clone(),
                msg,
            })?;
            out.push(Case {
                dir: d.clone(),
                name: if name.is_empty() {
                    d.display().to_string()
                } else {
                    name
                },
                header,
            });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// Runs one case on one tier. Also returns the per-opcode execution counts.
pub fn run(case: &Case, tier: Tier) -> (Outcome, Vec<u64>) {
    let (o, counts) = run_inner(case, tier);
    let o = match (&case.header.expect_fail, o) {
        (Some(r), Outcome::Pass) => Outcome::UnexpectedPass(r.clone()),
        (Some(r), Outcome::Mismatch { .. } | Outcome::Error(_)) => Outcome::ExpectedFail(r.clone()),
        (_, o) => o,
    };
    (o, counts)
}

fn run_inner(case: &Case, tier: Tier) -> (Outcome, Vec<u64>) {
    if !case.header.tiers.contains(&tier) {
        return (
            Outcome::Skipped(format!("case does not list tier {}", tier.name())),
            Vec::new(),
        );
    }
    let kp = case.dir.join("kernel.pto");
    let src = match read_kernel(&kp) {
        Ok(s) => s,
        Err(e) => {
            return (
                Outcome::Error(format!("cannot read kernel.pto: {e}")),
                Vec::new(),
            )
        }
    };
    let kernel = match load_text(&kp.display().to_string(), &src, case.header.profile) {
        Ok(k) => k,
        Err(e) => {
            return (
                Outcome::Error(e.to_string().trim_end().to_string()),
                Vec::new(),
            )
        }
    };
    let prog = &kernel.program;
    let Some(entry) = prog.entry(case.header.entry.as_deref()) else {
        return (Outcome::Error("no entry function".into()), Vec::new());
    };
    let func = &prog.funcs[entry];
    let ranks = case.header.ranks as usize;
    // per-argument values of every rank: `args[r][i]`
    let mut args: Vec<Vec<Arg>> = vec![Vec::new(); ranks];
    let mut dtypes = Vec::new();
    for (i, t) in func.arg_types.iter().enumerate() {
        let k = i + 1;
        if let Some((_, ra)) = case.header.rank_args.iter().find(|a| a.0 == k) {
            let ok = match ra {
                RankArg::Peer { arg, .. } => {
                    matches!(t, ArgType::GmPtr(_))
                        && matches!(func.arg_types.get(arg - 1), Some(ArgType::GmPtr(_)))
                        && !case.header.rank_args.iter().any(|a| a.0 == *arg)
                }
                _ => matches!(t, ArgType::Int(_)),
            };
            if !ok {
                return (
                    Outcome::Error(format!(
                        "v{k} = {ra:?} does not fit argument {k} ({t:?}); peers must point at buffer arguments"
                    )),
                    Vec::new(),
                );
            }
            for (r, a) in args.iter_mut().enumerate() {
                a.push(ra.arg(r as u32, ranks as u32));
            }
            dtypes.push(None);
            continue;
        }
        match t {
            ArgType::GmPtr(dt) => {
                let p = case.dir.join(format!("v{k}.bin"));
                let data = match read_data(&p) {
                    Ok(d) => d,
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        return (
                            Outcome::Error(format!("cannot read v{k}.bin: {e}")),
                            Vec::new(),
                        )
                    }
                    Err(_) => {
                        // an output with only a golden starts zeroed
                        match std::fs::metadata(case.dir.join(format!("golden_v{k}.bin"))) {
                            Ok(m) if m.len() <= pto_vm::MAX_ARG_BYTES => vec![0; m.len() as usize],
                            Ok(m) => {
                                return (
                                    Outcome::Error(format!(
                                        "golden_v{k}.bin has {} bytes, more than an argument buffer may take",
                                        m.len()
                                    )),
                                    Vec::new(),
                                )
                            }
                            Err(_) => {
                                return (
                                    Outcome::Error(format!(
                                        "missing v{k}.bin for pointer argument {k}"
                                    )),
                                    Vec::new(),
                                )
                            }
                        }
                    }
                };
                // several ranks: the file stacks their data, rank r's slice r
                if data.len() % ranks != 0 {
                    return (
                        Outcome::Error(format!(
                            "v{k}.bin has {} bytes, not {ranks} equal rank slices",
                            data.len()
                        )),
                        Vec::new(),
                    );
                }
                let n = data.len() / ranks;
                for (r, a) in args.iter_mut().enumerate() {
                    a.push(Arg::Buffer(data[r * n..(r + 1) * n].to_vec()));
                }
                dtypes.push(Some(*dt));
            }
            ArgType::Int(_) | ArgType::Float(_) => {
                let Some(v) = case.header.scalars.iter().find(|s| s.0 == k).map(|s| s.1) else {
                    return (
                        Outcome::Error(format!(
                            "scalar argument v{k} needs a value in the header's scalars table"
                        )),
                        Vec::new(),
                    );
                };
                for a in args.iter_mut() {
                    a.push(if matches!(t, ArgType::Float(_)) {
                        Arg::Float(v)
                    } else {
                        Arg::Int(v as i64)
                    });
                }
                dtypes.push(None);
            }
            ArgType::Other(ty) => {
                return (
                    Outcome::Error(format!(
                        "argument {k} has type {ty}, which cases cannot bind"
                    )),
                    Vec::new(),
                )
            }
        }
    }
    let cfg = Config {
        profile: kernel.profile,
        blocks: case.header.blocks.unwrap_or(1),
        sched: case.header.sched.unwrap_or(Sched::InOrder),
        check: case.header.check.unwrap_or(CheckMode::Error),
        max_steps: 200_000_000,
        jit: if tier == Tier::Interp {
            JitMode::Off
        } else {
            JitMode::Always
        },
        crosscheck: tier == Tier::Crosscheck,
        ..Config::default()
    };
    let fin = match run_kernel_ranks(&kernel, &cfg, case.header.entry.as_deref(), &args) {
        Ok(f) => f,
        Err(e) => return (Outcome::Error(e), Vec::new()),
    };
    let counts = fin.out.op_counts.clone();
    let stopped = fin.out.error.as_ref().map(|e| match e {
        RunError::Fault { inst, message } => {
            let l = prog.info(*inst).loc;
            format!("kernel.pto:{}:{}: runtime fault: {message}", l.line, l.col)
        }
        other => format!("{other:?}"),
    });
    match (&case.header.expect_fault, stopped) {
        (None, Some(msg)) => return (Outcome::Error(msg), counts),
        (Some(want), None) => {
            return (
                Outcome::Error(format!(
                    "expected a runtime fault containing '{want}', but the run finished"
                )),
                counts,
            )
        }
        (Some(want), Some(msg)) if !msg.contains(want.as_str()) => {
            return (
                Outcome::Error(format!(
                    "expected a runtime fault containing '{want}', got: {msg}"
                )),
                counts,
            )
        }
        _ => {}
    }
    if case.header.check.unwrap_or(CheckMode::Error) == CheckMode::Error
        && !fin.out.diags.is_empty()
    {
        let d = &fin.out.diags.list[0];
        return (
            Outcome::Error(format!(
                "checker: {} ({} finding(s))",
                d.render(prog, Some(&src)).lines().next().unwrap_or(""),
                fin.out.diags.list.len()
            )),
            counts,
        );
    }
    let mut goldens = 0;
    for (i, dt) in dtypes.iter().enumerate() {
        let Some(dt) = dt else { continue };
        let gp = case.dir.join(format!("golden_v{}.bin", i + 1));
        let want = match read_data(&gp) {
            Ok(w) => w,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                return (
                    Outcome::Error(format!("cannot read golden_v{}.bin: {e}", i + 1)),
                    counts,
                )
            }
        };
        goldens += 1;
        // every rank's final bytes, stacked in rank order
        let got: Vec<u8> = fin.buffers.iter().flat_map(|b| b[i].clone()).collect();
        if want.len() != got.len() {
            return (
                Outcome::Error(format!(
                    "golden_v{}.bin has {} bytes, the buffer {}",
                    i + 1,
                    want.len(),
                    got.len()
                )),
                counts,
            );
        }
        let c = pto_vm::case::compare(
            *dt,
            &want,
            &got,
            Some(case.header.rtol.unwrap_or(0.0)),
            Some(case.header.atol.unwrap_or(0.0)),
        );
        if c.mismatches > 0 {
            return (
                Outcome::Mismatch {
                    arg: i + 1,
                    count: c.mismatches,
                    total: c.total,
                    max_abs: c.max_abs,
                    first: c.describe_first(*dt, &want, &got, &[]),
                },
                counts,
            );
        }
    }
    if goldens == 0 {
        return (
            Outcome::Error("the case has no golden_vK.bin".into()),
            counts,
        );
    }
    (Outcome::Pass, counts)
}

/// Coverage of the instruction universe by executed cases.
#[derive(Clone, Debug, Default)]
pub struct Coverage {
    /// Executions per opcode in the interpreter.
    pub interp: Vec<u64>,
    /// Executions per opcode in the JIT tiers (compiled or interpreted).
    pub jit: Vec<u64>,
}

impl Coverage {
    /// Adds counts of one run.
    pub fn add(&mut self, tier: Tier, counts: &[u64]) {
        let v = if tier == Tier::Jit {
            &mut self.jit
        } else {
            &mut self.interp
        };
        if v.len() < counts.len() {
            v.resize(counts.len(), 0);
        }
        for (a, b) in v.iter_mut().zip(counts) {
            *a += b;
        }
    }

    /// Report lines for every op of the ISA table: `op set interp jit`.
    pub fn report(&self) -> String {
        let mut s = String::from("instruction\tset\tinterpreter\tjit\n");
        let (mut hit, mut total) = (0, 0);
        for info in pto_isa_spec::OPS {
            let i = self.interp.get(info.opcode as usize).copied().unwrap_or(0);
            let j = self.jit.get(info.opcode as usize).copied().unwrap_or(0);
            total += 1;
            if i > 0 || j > 0 {
                hit += 1;
            }
            s.push_str(&format!(
                "{}\t{:?}\t{}\t{}\n",
                info.name,
                info.set,
                if i > 0 { i.to_string() } else { "never".into() },
                if j > 0 { j.to_string() } else { "never".into() }
            ));
        }
        s.push_str(&format!(
            "# {hit} of {total} instructions executed by at least one case\n"
        ));
        s
    }
}

/// The repository's own case root.
pub fn default_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("cases")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hostile case trees: a symlink back to an ancestor is walked once, and a
    /// device as a data file is an error of that case, not an endless read.
    #[test]
    fn symlink_loops_and_devices_in_a_case_tree() {
        let root = std::env::temp_dir().join(format!("ptovm-conf-hostile-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let case = root.join("c");
        std::fs::create_dir_all(&case).unwrap();
        let src =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/tile/chain_sub_exp_mul_f32_8x29");
        for f in std::fs::read_dir(&src).unwrap() {
            let f = f.unwrap().path();
            std::fs::copy(&f, case.join(f.file_name().unwrap())).unwrap();
        }
        std::os::unix::fs::symlink(&root, case.join("loop")).unwrap();
        let found = discover(&root).unwrap();
        assert_eq!(
            found.len(),
            1,
            "{:?}",
            found.iter().map(|c| &c.name).collect::<Vec<_>>()
        );
        assert_eq!(run(&found[0], Tier::Interp).0, Outcome::Pass);
        std::fs::remove_file(case.join("v1.bin")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", case.join("v1.bin")).unwrap();
        match run(&found[0], Tier::Interp).0 {
            Outcome::Error(e) => {
                assert!(e.contains("cannot read v1.bin: not a regular file"), "{e}")
            }
            o => panic!("{o:?}"),
        }
        std::fs::remove_file(case.join("v1.bin")).unwrap();
        std::fs::copy(src.join("v1.bin"), case.join("v1.bin")).unwrap();
        std::fs::remove_file(case.join("golden_v4.bin")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", case.join("golden_v4.bin")).unwrap();
        match run(&found[0], Tier::Interp).0 {
            Outcome::Error(e) => assert!(e.contains("cannot read golden_v4.bin"), "{e}"),
            o => panic!("{o:?}"),
        }
        let _ = std::fs::remove_dir_all(&root);
    }

    /// `expect-fault`: the repository's trap case passes; the same case
    /// fails when the text does not match the fault, and when the kernel
    /// does not fault at all.
    #[test]
    fn expect_fault_needs_the_named_fault() {
        let root =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/scalar/trap_after_store_i32_a5");
        let text = std::fs::read_to_string(root.join("kernel.pto")).unwrap();
        let case = Case {
            dir: root.clone(),
            name: "trap".into(),
            header: parse_header(&text).unwrap(),
        };
        assert!(case.header.expect_fault.is_some());
        assert_eq!(run(&case, Tier::Interp).0, Outcome::Pass);
        let other = Case {
            header: Header {
                expect_fault: Some("some other fault".into()),
                ..case.header.clone()
            },
            ..case.clone()
        };
        match run(&other, Tier::Interp).0 {
            Outcome::Error(e) => assert!(e.contains("got: kernel.pto:24:5"), "{e}"),
            o => panic!("{o:?}"),
        }
        // the same kernel without its trap finishes: an error, as is a
        // fault in a case that expects none
        let dir = std::env::temp_dir().join(format!("ptovm-expect-fault-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for f in [
            "v1.bin",
            "v2.bin",
            "v3.bin",
            "golden_v1.bin",
            "golden_v3.bin",
        ] {
            std::fs::copy(root.join(f), dir.join(f)).unwrap();
        }
        std::fs::write(dir.join("kernel.pto"), text.replace("    pto.trap\n", "")).unwrap();
        let untrapped = Case {
            dir: dir.clone(),
            ..case.clone()
        };
        match run(&untrapped, Tier::Interp).0 {
            Outcome::Error(e) => assert!(e.contains("but the run finished"), "{e}"),
            o => panic!("{o:?}"),
        }
        let plain = Case {
            header: Header {
                expect_fault: None,
                ..case.header.clone()
            },
            ..case
        };
        assert!(matches!(run(&plain, Tier::Interp).0, Outcome::Error(e) if e.contains("pto.trap")));
        assert!(parse_header("//! expect-fault = \"\"\n").is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn header_parses_and_rejects_unknown_keys() {
        let h = parse_header("//! tiers = [\"interp\", \"jit\"]\n//! profile = \"a5\"\n//! atol = 1e-6\n//! scalars = { v3 = 16 }\nmodule {}\n").unwrap();
        assert_eq!(h.tiers, vec![Tier::Interp, Tier::Jit]);
        assert_eq!(h.profile, Some(pto_isa_spec::ProfileId::A5));
        assert_eq!(h.scalars, vec![(3, 16.0)]);
        assert!(parse_header("//! colour = 3\n")
            .unwrap_err()
            .contains("unknown header key"));
        assert!(parse_header("//! tiers = [\"fast\"]\n").is_err());
        assert_eq!(
            parse_header("// plain comment\nmodule {}").unwrap(),
            Header::default()
        );
    }
}

/// The dtype classes of the tile coverage report.
pub const CLASSES: [&str; 3] = ["float", "int", "low-precision float"];

/// The class of an element type: f16/bf16/f32/f64 are `float`, the integers
/// `int`, fp8/hif8/fp4/e8m0 `low-precision float`; i1 and packed i4 have none.
pub fn dtype_class(d: pto_isa_spec::DType) -> Option<&'static str> {
    use pto_isa_spec::DType as D;
    match d {
        D::F16 | D::BF16 | D::F32 | D::F64 => Some("float"),
        D::I8 | D::U8 | D::I16 | D::U16 | D::I32 | D::U32 | D::I64 | D::U64 => Some("int"),
        D::F8E4M3 | D::F8E5M2 | D::HiF8 | D::F4E2M1 | D::F4E1M2 | D::E8M0 => {
            Some("low-precision float")
        }
        D::I1 | D::I4 => None,
    }
}

/// Which dtype classes each tile instruction is exercised with by passing
/// cases: an op counts for a class when a case that passed executed it and the
/// op's own text has a tile (or vector register) of that class among its
/// operands or results.
#[derive(Clone, Debug, Default)]
pub struct ClassCoverage {
    hit: std::collections::BTreeMap<usize, std::collections::BTreeSet<&'static str>>,
    /// Ops a passing case executed, with or without a classed operand.
    ran: std::collections::BTreeSet<usize>,
}

impl ClassCoverage {
    /// Adds a passing run of `case` with its per-opcode execution counts.
    pub fn add(&mut self, case: &Case, counts: &[u64]) {
        let Ok(src) = read_kernel(&case.dir.join("kernel.pto")) else {
            return;
        };
        let (file, _) = pto_asm::parse("kernel.pto", &src);
        for op in file.walk() {
            let o = op.opcode as usize;
            if counts.get(o).copied().unwrap_or(0) == 0 {
                continue;
            }
            self.ran.insert(o);
            for v in op.uses().chain(op.result_values()) {
                let ty = file.values.get(v as usize).and_then(|i| i.ty);
                let shaped = ty.is_some_and(|t| {
                    matches!(
                        file.types.get(t),
                        pto_asm::ty::Type::TileBuf(_)
                            | pto_asm::ty::Type::Tile { .. }
                            | pto_asm::ty::Type::VReg { .. }
                    )
                });
                if let (true, Some(c)) = (
                    shaped,
                    ty.and_then(|t| file.types.elem_dtype(t))
                        .and_then(dtype_class),
                ) {
                    self.hit.entry(o).or_default().insert(c);
                }
            }
        }
    }

    /// The classes an op's dtype rule allows on any profile (empty: no rule).
    fn supported(info: &pto_isa_spec::OpInfo) -> Vec<&'static str> {
        let r = info.dtypes;
        if r.a2a3 == pto_isa_spec::DtypeSet::ANY {
            return Vec::new();
        }
        CLASSES
            .into_iter()
            .filter(|c| {
                pto_isa_spec::DType::ALL.iter().any(|d| {
                    dtype_class(*d) == Some(c) && (r.a2a3.contains(*d) || r.a5.contains(*d))
                })
            })
            .collect()
    }

    /// A Markdown report over every tile instruction of the ISA table, and
    /// the number of (instruction, class) pairs covered out of those allowed.
    pub fn report(&self) -> (String, usize, usize) {
        let mut rows = String::new();
        let (mut covered, mut total) = (0, 0);
        for info in pto_isa_spec::OPS {
            if info.set != pto_isa_spec::ISet::Tile {
                continue;
            }
            let sup = Self::supported(info);
            let hit = self.hit.get(&(info.opcode as usize));
            let has = |c: &str| hit.is_some_and(|h| h.contains(c));
            let (done, gaps): (Vec<&str>, Vec<&str>) = sup.iter().copied().partition(|c| has(c));
            total += sup.len();
            covered += done.len();
            let extra: Vec<&str> = hit
                .map(|h| h.iter().copied().filter(|c| !sup.contains(c)).collect())
                .unwrap_or_default();
            let allowed = if sup.is_empty() {
                "any (no dtype rule)".to_string()
            } else {
                sup.join(", ")
            };
            let mut cov: Vec<String> = done.iter().map(|c| c.to_string()).collect();
            cov.extend(extra.iter().map(|c| c.to_string()));
            rows.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                info.name,
                allowed,
                if cov.is_empty() && self.ran.contains(&(info.opcode as usize)) {
                    "executed (no tile operand)".into()
                } else if cov.is_empty() {
                    "—".into()
                } else {
                    cov.join(", ")
                },
                if gaps.is_empty() {
                    if sup.is_empty()
                        && cov.is_empty()
                        && !self.ran.contains(&(info.opcode as usize))
                    {
                        "no case".to_string()
                    } else {
                        String::new()
                    }
                } else {
                    gaps.iter()
                        .map(|c| c.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ));
        }
        let head = format!(
            "# Tile instruction coverage by dtype class\n\n\
             Generated by `pto-conformance --tile-coverage FILE` from the ISA table and the \
             repository's passing cases: an instruction counts for a dtype class when a passing \
             case executed it with a tile of that class among its operands. \
             {covered} of {total} (instruction, allowed class) pairs are covered.\n\n\
             | instruction | classes the ISA table allows | covered by a passing case | gaps |\n\
             |---|---|---|---|\n"
        );
        (head + &rows, covered, total)
    }
}

/// The groups of the micro-instruction coverage report, in report order.
pub const MICRO_GROUPS: [&str; 7] = [
    "vector and predicate",
    "DMA",
    "cube",
    "system and pipe sync",
    "comm",
    "SIMT",
    "scalar, config and control",
];

/// The micro-coverage group of an instruction of the ISA table, or `None`
/// for tile, view, builtin, VMI and compiler-internal ops. Vector and cube
/// data movers (`mte_*`, `copy_*`) and the DMA loop registers are `DMA`.
pub fn micro_group(info: &pto_isa_spec::OpInfo) -> Option<&'static str> {
    use pto_isa_spec::{Class as C, ISet as S};
    let short = info.name.strip_prefix("pto.").unwrap_or(info.name);
    let mover = short.starts_with("mte_") || short.starts_with("copy_");
    Some(match (info.set, info.class) {
        (S::Vector, _) | (S::Scalar, C::Predicate) => MICRO_GROUPS[0],
        (_, C::Dma) | (S::Cube, _) if mover || info.class == C::Dma => MICRO_GROUPS[1],
        (S::Cube, _) => MICRO_GROUPS[2],
        (S::System, _) | (S::Scalar, C::Sync) => MICRO_GROUPS[3],
        (S::Comm, _) => MICRO_GROUPS[4],
        (S::Simt, _) => MICRO_GROUPS[5],
        (S::Scalar, _) => MICRO_GROUPS[6],
        _ => return None,
    })
}

/// Which passing cases execute each micro-instruction (every op that
/// [`micro_group`] places in a group).
#[derive(Clone, Debug, Default)]
pub struct MicroCoverage {
    cases: std::collections::BTreeMap<usize, std::collections::BTreeSet<String>>,
}

impl MicroCoverage {
    /// Adds a passing run of the case named `case` with its per-opcode counts.
    pub fn add(&mut self, case: &str, counts: &[u64]) {
        for (o, n) in counts.iter().enumerate() {
            if *n > 0 {
                self.cases.entry(o).or_default().insert(case.to_string());
            }
        }
    }

    /// A Markdown report with one table per group, and the number of
    /// micro-instructions some passing case executes out of all of them.
    pub fn report(&self) -> (String, usize, usize) {
        let (mut covered, mut total) = (0, 0);
        let mut body = String::new();
        let mut summary = String::from("| group | covered | instructions |\n|---|---|---|\n");
        for g in MICRO_GROUPS {
            let (mut gc, mut gt) = (0, 0);
            let mut rows = String::new();
            let mut gaps = Vec::new();
            for info in pto_isa_spec::OPS {
                if micro_group(info) != Some(g) {
                    continue;
                }
                gt += 1;
                let names = self.cases.get(&(info.opcode as usize));
                let cell = match names {
                    Some(n) if !n.is_empty() => {
                        gc += 1;
                        n.iter()
                            .map(|c| format!("`{c}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                    _ => {
                        gaps.push(format!("`{}`", info.name));
                        "**gap**".to_string()
                    }
                };
                rows.push_str(&format!("| `{}` | {cell} |\n", info.name));
            }
            covered += gc;
            total += gt;
            summary.push_str(&format!("| {g} | {gc} | {gt} |\n"));
            body.push_str(&format!(
                "\n## {g}: {gc} of {gt}\n\n| instruction | cases that execute it |\n|---|---|\n{rows}"
            ));
            if !gaps.is_empty() {
                body.push_str(&format!("\nGaps: {}.\n", gaps.join(" ")));
            }
        }
        let head = format!(
            "# Micro-instruction coverage\n\n\
             Generated by `pto-conformance --micro-coverage FILE` from the ISA table and the \
             repository's cases: an instruction is covered when a case that passed (on any \
             tier) executed it at least once. Tile, view, builtin, VMI and compiler-internal \
             ops are not listed here (see [tile-coverage.md](tile-coverage.md)). Vector and \
             cube data movers (`mte_*`, `copy_*`) and the DMA loop registers are under DMA. \
             The interpreter has no single table of what it does not implement, so gaps carry \
             no reason column; `docs/decisions.md` and the README list the known unimplemented \
             ops.\n\nmicro coverage: {covered} of {total}\n\n{summary}"
        );
        (head + &body, covered, total)
    }
}
