//! Running a case directory in the PTOAS golden layout (`pto-run case DIR`).
//!
//! ```text
//! DIR/
//!   kernel.pto       the kernel
//!   vK.bin           initial contents of argument K (1-based), raw little-endian
//!   golden_vK.bin    expected final contents of argument K (K is an output)
//!   main.cpp         optional: the host program; read for the binding and sizes
//!   case.toml        optional: sizes/scalars no other source gives
//!   golden.py        optional: writes the .bin files (run with --golden-script)
//! ```
//!
//! Which file feeds which kernel argument: the kernel launch in `main.cpp`
//! when it can be traced (launch argument -> device buffer -> host buffer ->
//! `ReadFile`/`WriteFile`), else argument K takes `vK.bin`. A buffer's size:
//! the `main.cpp` size expression when it can be evaluated, else the existing
//! `vK.bin` / `golden_vK.bin`, else `case.toml`'s `[args] vK = "f32:32x32"`,
//! else the bytes the kernel's views reach. Scalars come from the launch call
//! (literals or `int32_t v4 = 16;` style assignments) or `[args] vK = 16`.
//!
//! This module does no printing; [`run_case`] returns a [`CaseReport`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use pto_isa_spec::{DType, ProfileId};

use crate::header::RankArg;
use crate::program::ArgType;
use crate::{load_text, Arg, CheckMode, Config, RunError};

/// A case that cannot run, with the exit code it maps to (2 bad input).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseError {
    /// Exit code.
    pub code: u8,
    /// One-line message.
    pub msg: String,
}

fn bad<T>(msg: impl Into<String>) -> Result<T, CaseError> {
    Err(CaseError {
        code: 2,
        msg: msg.into(),
    })
}

/// How to run a case.
#[derive(Clone, Debug, Default)]
pub struct CaseOptions {
    /// Run `python3 golden.py` in the case directory first, and let its
    /// `compare.py` judge outputs the golden comparison rejects.
    pub golden_script: bool,
    /// Run configuration (its `profile` is replaced by the kernel's).
    pub config: Config,
    /// Profile override (else the kernel's `pto.target_arch`, else a2a3).
    pub profile: Option<ProfileId>,
    /// Entry function.
    pub entry: Option<String>,
    /// Relative tolerance (default per dtype, see [`compare`]).
    pub rtol: Option<f64>,
    /// Absolute tolerance (default per dtype).
    pub atol: Option<f64>,
    /// Where each output is written as `vK.bin` (created if missing). `None`
    /// writes nothing, so a case directory is never changed unasked (a rerun
    /// starts from the same `vK.bin`); with `golden_script` the outputs always
    /// go to the case directory, where `compare.py` reads them (the PTOAS
    /// convention: `golden.py` has just rewritten the inputs).
    pub out_dir: Option<PathBuf>,
    /// Which of `config`'s grid size, scheduler and checker mode the caller
    /// chose; the others take the kernel header's values when it has them.
    pub chosen: Chosen,
    /// Write the run's timeline as Chrome trace-event JSON here.
    pub trace: Option<PathBuf>,
    /// Write the run's timeline as SVG here.
    pub timeline: Option<PathBuf>,
}

/// Settings a caller chose explicitly (a command-line flag), which win over
/// the `//!` header of a case's kernel ([`crate::header`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Chosen {
    /// `config.blocks`.
    pub blocks: bool,
    /// `config.sched`.
    pub sched: bool,
    /// `config.check`.
    pub check: bool,
}

/// How one kernel argument was bound.
#[derive(Clone, Debug, PartialEq)]
pub struct Binding {
    /// Argument position (0-based).
    pub arg: usize,
    /// SSA name without `%`.
    pub name: String,
    /// The file number K (`vK.bin`) it is bound to.
    pub k: usize,
    /// The file's stem: `vK`, or the name main.cpp reads (`input` for
    /// `input.bin`, golden `golden_input.bin`).
    pub file: String,
    /// Element type (pointers).
    pub dtype: Option<DType>,
    /// Buffer bytes (pointers).
    pub bytes: usize,
    /// Scalar value (scalars).
    pub scalar: Option<f64>,
    /// Has a golden: an output.
    pub output: bool,
    /// Where the initial contents came from.
    pub source: String,
}

/// Result of comparing one buffer with its golden.
#[derive(Clone, Debug, PartialEq)]
pub struct Cmp {
    /// Elements compared.
    pub total: usize,
    /// Elements outside tolerance.
    pub mismatches: usize,
    /// Largest absolute error.
    pub max_abs: f64,
    /// Largest relative error.
    pub max_rel: f64,
    /// First (up to 5) mismatching indices.
    pub first: Vec<usize>,
}

/// Compares `got` with the golden `want` element by element: `|a-b| <= atol +
/// rtol*|a|`, NaN equals NaN. Default tolerances: f32/f64 1e-5/1e-6, f16
/// 1e-3/1e-3, bf16 1e-2/1e-2, integers exact (the same as `pto-run --golden`).
/// Integer elements are compared as integers, so 64-bit values an f64 cannot
/// hold apart still differ.
pub fn compare(dt: DType, want: &[u8], got: &[u8], rtol: Option<f64>, atol: Option<f64>) -> Cmp {
    let es = dt.bytes();
    let (dr, da) = match dt {
        DType::F32 | DType::F64 => (1e-5, 1e-6),
        DType::F16 => (1e-3, 1e-3),
        DType::BF16 => (1e-2, 1e-2),
        _ => (0.0, 0.0),
    };
    let (rtol, atol) = (rtol.unwrap_or(dr), atol.unwrap_or(da));
    let n = want.len().min(got.len()) / es;
    let mut c = Cmp {
        total: want.len() / es,
        mismatches: 0,
        max_abs: 0.0,
        max_rel: 0.0,
        first: Vec::new(),
    };
    // byte-identical runs of elements match with no error (equal bits:
    // equal values, or NaN and NaN): only the runs that differ are decoded,
    // so an output of hundreds of MiB that matches costs one memcmp
    const RUN: usize = 1024;
    let differing = (0..n).step_by(RUN).filter(|&lo| {
        let hi = (lo + RUN).min(n);
        want[lo * es..hi * es] != got[lo * es..hi * es]
    });
    for i in differing.flat_map(|lo| lo..(lo + RUN).min(n)) {
        let (wa, wb) = (&want[i * es..], &got[i * es..]);
        let ok = match (int_value(wa, dt), int_value(wb, dt)) {
            (Some(a), Some(b)) => {
                // the exact difference, rounded once for the tolerance test
                let d = (a - b).unsigned_abs() as f64;
                let av = a.unsigned_abs() as f64;
                c.max_abs = c.max_abs.max(d);
                if a != 0 {
                    c.max_rel = c.max_rel.max(d / av);
                }
                a == b || d <= atol + rtol * av
            }
            _ => {
                let a = crate::num::read(wa, dt).f();
                let b = crate::num::read(wb, dt).f();
                if a.is_nan() || b.is_nan() {
                    a.is_nan() && b.is_nan()
                } else if a == b {
                    true // also equal infinities, whose difference is NaN
                } else if a.is_infinite() || b.is_infinite() {
                    false // an infinite tolerance must not accept any value
                } else {
                    let d = (a - b).abs();
                    c.max_abs = c.max_abs.max(d);
                    if a != 0.0 {
                        c.max_rel = c.max_rel.max(d / a.abs());
                    }
                    d <= atol + rtol * a.abs()
                }
            }
        };
        if !ok {
            c.mismatches += 1;
            if c.first.len() < 5 {
                c.first.push(i);
            }
        }
    }
    c
}

/// An integer element's exact value (`None` for float types).
fn int_value(b: &[u8], dt: DType) -> Option<i128> {
    if !dt.is_int() {
        return None;
    }
    let v = crate::num::read(b, dt).i();
    Some(if dt == DType::U64 {
        v as u64 as i128
    } else {
        v as i128
    })
}

/// One element for a person: floats in their own type's shortest form
/// (`0.1`, `-0.0`, `NaN`, `inf`), integers as integers.
pub fn format_elem(b: &[u8], dt: DType) -> String {
    if let Some(v) = int_value(b, dt) {
        return v.to_string();
    }
    match (dt, crate::num::read(b, dt)) {
        // every f16/bf16 value is an f32, printed the shortest way
        (DType::F32 | DType::F16 | DType::BF16, v) => format!("{:?}", v.f() as f32),
        (_, crate::num::Num::F(v)) => format!("{v:?}"),
        // packed fp4 and e8m0 scales: their bits
        (_, crate::num::Num::I(v)) => format!("{v:#04x}"),
    }
}

impl Cmp {
    /// The first mismatching elements (at most 3) with their values, e.g.
    /// `[0, 1] is 2.0, golden 1.0; [0, 2] is 3.0, golden 1.0`. Indices are
    /// per dimension of `shape` when it holds the golden's element count,
    /// else flat.
    pub fn describe_first(&self, dt: DType, want: &[u8], got: &[u8], shape: &[usize]) -> String {
        let es = dt.bytes();
        let dims = shape.len() > 1
            && shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d)) == Some(self.total);
        let mut parts = Vec::new();
        for &i in self.first.iter().take(3) {
            let at = if dims {
                let mut rest = i;
                let mut idx = vec![0; shape.len()];
                for (k, &d) in shape.iter().enumerate().rev() {
                    idx[k] = rest % d.max(1);
                    rest /= d.max(1);
                }
                format!("{idx:?}")
            } else {
                format!("[{i}]")
            };
            let (Some(w), Some(g)) = (
                want.get(i * es..(i + 1) * es),
                got.get(i * es..(i + 1) * es),
            ) else {
                continue;
            };
            parts.push(format!(
                "{at} is {}, golden {}",
                format_elem(g, dt),
                format_elem(w, dt)
            ));
        }
        parts.join("; ")
    }
}

/// One output compared with its golden.
#[derive(Clone, Debug)]
pub struct OutputReport {
    /// File number K.
    pub k: usize,
    /// The file's stem (`vK` or main.cpp's name).
    pub file: String,
    /// SSA name of the argument.
    pub name: String,
    /// Element type.
    pub dtype: DType,
    /// The `vK.bin` written (`None` without an output directory).
    pub written: Option<PathBuf>,
    /// The comparison with `golden_vK.bin`.
    pub cmp: Cmp,
    /// The first mismatching elements with their values
    /// ([`Cmp::describe_first`]); empty when the output matches.
    pub first: String,
}

/// What a case run did.
#[derive(Clone, Debug)]
pub struct CaseReport {
    /// Entry function name.
    pub func: String,
    /// Argument bindings, in argument order.
    pub bindings: Vec<Binding>,
    /// Heuristic decisions worth telling the user (main.cpp not understood...).
    pub notes: Vec<String>,
    /// Rendered checker diagnostics.
    pub diagnostics: Vec<String>,
    /// Runtime error (fault, deadlock, step limit), rendered.
    pub error: Option<String>,
    /// Outputs, compared.
    pub outputs: Vec<OutputReport>,
    /// Pipe instructions retired.
    pub pipe_insts: u64,
    /// Per-pipe statistics, the simulated cycles (`--sched timed`) and the
    /// JIT's counters: what `pto-run --stats` prints.
    pub stats: crate::machine::RunStats,
    /// Exit code: 0 all match, 1 mismatch / checker error / deadlock, 3 fault, 4 limit.
    pub code: u8,
    /// Where the outputs were written (`None`: nowhere).
    pub out_dir: Option<PathBuf>,
    /// `--watch` reports, rendered (`machine::watch::render`).
    pub watch: Vec<String>,
}

// ---------------------------------------------------------------- main.cpp

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Id(String),
    Num(String),
    Str(String),
    P(char),
}

fn lex(src: &str) -> Vec<Tok> {
    let c: Vec<char> = src.chars().collect();
    let mut i = 0;
    let mut out = Vec::new();
    while i < c.len() {
        let ch = c[i];
        if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && c.get(i + 1) == Some(&'*') {
            i += 2;
            while i < c.len() && !(c[i] == '*' && c.get(i + 1) == Some(&'/')) {
                i += 1;
            }
            i += 2;
        } else if ch == '#' {
            // preprocessor line
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '"' || ch == '\'' {
            let q = ch;
            let mut s = String::new();
            i += 1;
            while i < c.len() && c[i] != q {
                if c[i] == '\\' {
                    i += 1;
                }
                if let Some(x) = c.get(i) {
                    s.push(*x);
                }
                i += 1;
            }
            i += 1;
            out.push(Tok::Str(s));
        } else if ch.is_ascii_digit()
            || (ch == '.' && c.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let mut s = String::new();
            while i < c.len() && (c[i].is_ascii_alphanumeric() || c[i] == '.' || c[i] == '\'') {
                if c[i] != '\'' {
                    s.push(c[i]);
                }
                i += 1;
            }
            out.push(Tok::Num(s));
        } else if ch.is_alphabetic() || ch == '_' {
            let mut s = String::new();
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                s.push(c[i]);
                i += 1;
            }
            out.push(Tok::Id(s));
        } else {
            out.push(Tok::P(ch));
            i += 1;
        }
    }
    out
}

fn num_lit(s: &str) -> Option<f64> {
    let t = s.trim_end_matches(['u', 'U', 'l', 'L', 'f', 'F']);
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return i64::from_str_radix(h, 16).ok().map(|v| v as f64);
    }
    t.parse::<f64>().ok()
}

fn sizeof(ty: &str) -> Option<f64> {
    if ty.contains('*') {
        return Some(8.0);
    }
    let t = ty
        .replace("const", "")
        .replace("std::", "")
        .replace("::", "")
        .trim()
        .to_string();
    Some(match t.as_str() {
        "float" | "int" | "int32_t" | "uint32_t" | "unsigned" | "unsigned int" => 4.0,
        "aclFloat16" | "__fp16" | "half" | "bfloat16_t" | "bfloat16" | "int16_t" | "uint16_t"
        | "short" => 2.0,
        "double" | "int64_t" | "uint64_t" | "size_t" | "long" | "long long" => 8.0,
        "int8_t" | "uint8_t" | "char" | "bool" => 1.0,
        _ => return None,
    })
}

fn tok_text(t: &[Tok]) -> String {
    let mut s = String::new();
    for x in t {
        match x {
            Tok::Id(v) | Tok::Num(v) => {
                if s.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                    s.push(' ');
                }
                s.push_str(v);
            }
            Tok::Str(v) => s.push_str(v),
            Tok::P(c) => s.push(*c),
        }
    }
    s
}

/// A small C expression evaluator: literals, variables with a visible
/// initializer, `sizeof(T)`, casts, `+ - * /` and parentheses.
struct Eval<'a> {
    vars: &'a HashMap<String, Vec<Tok>>,
    depth: u32,
    /// Nesting of [`Self::factor`] itself (unary signs, casts): bounded so
    /// that `- - - ... 4` a million times long gives up instead of
    /// overflowing the stack.
    factors: u32,
}

impl Eval<'_> {
    fn eval(&mut self, t: &[Tok]) -> Option<f64> {
        if self.depth > 32 {
            return None;
        }
        let mut p = 0;
        let v = self.expr(t, &mut p)?;
        (p == t.len()).then_some(v)
    }

    fn expr(&mut self, t: &[Tok], p: &mut usize) -> Option<f64> {
        let mut v = self.term(t, p)?;
        while let Some(Tok::P(c @ ('+' | '-'))) = t.get(*p) {
            *p += 1;
            let r = self.term(t, p)?;
            v = if *c == '+' { v + r } else { v - r };
        }
        Some(v)
    }

    fn term(&mut self, t: &[Tok], p: &mut usize) -> Option<f64> {
        let mut v = self.factor(t, p)?;
        while let Some(Tok::P(c @ ('*' | '/'))) = t.get(*p) {
            *p += 1;
            let r = self.factor(t, p)?;
            v = if *c == '*' {
                v * r
            } else if r == 0.0 {
                return None;
            } else if v.fract() == 0.0 && r.fract() == 0.0 {
                (v / r).trunc()
            } else {
                v / r
            };
        }
        Some(v)
    }

    fn group(t: &[Tok], p: &mut usize) -> Option<(usize, usize)> {
        // t[*p] is '(' ; returns the inner range and moves past ')'
        if t.get(*p) != Some(&Tok::P('(')) {
            return None;
        }
        let start = *p + 1;
        let mut d = 0;
        while let Some(x) = t.get(*p) {
            match x {
                Tok::P('(') => d += 1,
                Tok::P(')') => {
                    d -= 1;
                    if d == 0 {
                        let r = (start, *p);
                        *p += 1;
                        return Some(r);
                    }
                }
                _ => {}
            }
            *p += 1;
        }
        None
    }

    fn factor(&mut self, t: &[Tok], p: &mut usize) -> Option<f64> {
        if self.factors >= 256 {
            return None;
        }
        self.factors += 1;
        let v = self.factor_inner(t, p);
        self.factors -= 1;
        v
    }

    fn factor_inner(&mut self, t: &[Tok], p: &mut usize) -> Option<f64> {
        match t.get(*p)? {
            Tok::Num(s) => {
                *p += 1;
                num_lit(s)
            }
            Tok::P('-') => {
                *p += 1;
                Some(-self.factor(t, p)?)
            }
            Tok::P('+') => {
                *p += 1;
                self.factor(t, p)
            }
            Tok::P('(') => {
                let (a, b) = Self::group(t, p)?;
                // C cast `(size_t)x` or a parenthesized expression
                let inner = &t[a..b];
                if inner
                    .iter()
                    .all(|x| matches!(x, Tok::Id(_) | Tok::P('*' | ':')))
                    && inner
                        .iter()
                        .any(|x| matches!(x, Tok::Id(n) if sizeof(n).is_some()))
                    && *p < t.len()
                    && !matches!(t[*p], Tok::P('*' | '/' | '+' | '-' | ')'))
                {
                    return self.factor(t, p);
                }
                self.depth += 1;
                let v = self.eval(inner);
                self.depth -= 1;
                v
            }
            Tok::Id(name) => {
                *p += 1;
                if name == "sizeof" {
                    let (a, b) = Self::group(t, p)?;
                    return sizeof(&tok_text(&t[a..b]));
                }
                if name.ends_with("_cast") {
                    // static_cast<T>(e)
                    while *p < t.len() && t[*p] != Tok::P('(') {
                        *p += 1;
                    }
                    let (a, b) = Self::group(t, p)?;
                    self.depth += 1;
                    let v = self.eval(&t[a..b]);
                    self.depth -= 1;
                    return v;
                }
                let e = self.vars.get(name)?;
                self.depth += 1;
                let v = self.eval(e);
                self.depth -= 1;
                v
            }
            _ => None,
        }
    }
}

/// What `main.cpp` says about a case.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MainCpp {
    /// Bytes of each `vK` file, where a size expression could be evaluated.
    pub bytes: HashMap<usize, u64>,
    /// Element counts (`size_t elemCount_vK = N;`).
    pub elems: HashMap<usize, u64>,
    /// Files `ReadFile` reads.
    pub reads: Vec<usize>,
    /// Some `ReadFile` names its file in a way the parser does not follow
    /// (a formatted path), so any file may be an input.
    pub opaque_reads: bool,
    /// Files `WriteFile` writes.
    pub writes: Vec<usize>,
    /// The chosen kernel launch: its name and, per launch argument (the
    /// trailing stream dropped later), what it is.
    pub launch: Option<(String, Vec<LaunchArg>)>,
    /// Why no launch was chosen, when there are several or none.
    pub launch_note: Option<String>,
    /// Stems of files not named `vK.bin` (`input.bin`), by the key standing
    /// for them (`NAMED_FILE_BASE + i`).
    pub stems: HashMap<usize, String>,
}

/// Keys at and above this stand for files main.cpp names other than `vK.bin`.
pub const NAMED_FILE_BASE: usize = 1_000_000;

/// The key of a file main.cpp reads or writes: K for `vK.bin`, else a key
/// from `NAMED_FILE_BASE` up for any other `NAME.bin` (not `golden_*`).
fn file_key(s: &str, stems: &mut HashMap<usize, String>) -> Option<usize> {
    if let Some(k) = file_k(s) {
        return Some(k);
    }
    let stem = s.rsplit('/').next()?.strip_suffix(".bin")?;
    if stem.is_empty() || stem.starts_with("golden_") {
        return None;
    }
    if let Some((k, _)) = stems.iter().find(|(_, v)| v.as_str() == stem) {
        return Some(*k);
    }
    let k = NAMED_FILE_BASE + stems.len();
    stems.insert(k, stem.to_string());
    Some(k)
}

/// One argument of the kernel launch call.
#[derive(Clone, Debug, PartialEq)]
pub enum LaunchArg {
    /// Traced to the file `vK.bin`.
    File(usize),
    /// A buffer of its own that the host filled with a copy (`memcpy`) of
    /// the buffer read from `vK.bin`.
    CopyOf(usize),
    /// A number (a literal, or a variable with a constant initializer).
    Scalar(f64),
    /// Not understood (the text of the argument).
    Unknown(String),
}

fn file_k(s: &str) -> Option<usize> {
    let name = s.rsplit('/').next()?;
    name.strip_prefix('v')?
        .strip_suffix(".bin")?
        .parse::<usize>()
        .ok()
        .filter(|k| *k >= 1)
}

fn last_id(t: &[Tok]) -> Option<&str> {
    t.iter().rev().find_map(|x| match x {
        Tok::Id(s) => Some(s.as_str()),
        _ => None,
    })
}

/// A function of main.cpp that forwards its parameters to `ReadFile` or
/// `WriteFile` (`static bool readExact(const char *path, void *dst, size_t
/// size) { size_t n = size; return ReadFile(path, n, dst, size) && ...; }`).
struct FileWrapper {
    name: String,
    /// `ReadFile` or `WriteFile`.
    inner: String,
    /// Per argument of the inner call: the wrapper parameter it is.
    params: Vec<Option<usize>>,
    /// Token range of the body.
    body: (usize, usize),
}

/// The index of the token closing the bracket opened at `t[open]`.
fn closing(t: &[Tok], open: usize, o: char, c: char) -> Option<usize> {
    let mut d = 0i32;
    for (j, x) in t.iter().enumerate().skip(open) {
        if *x == Tok::P(o) {
            d += 1;
        } else if *x == Tok::P(c) {
            d -= 1;
            if d == 0 {
                return Some(j);
            }
        }
    }
    None
}

/// The items of the parenthesised list at `t[open]`, split at top-level commas.
fn list_items(t: &[Tok], open: usize, close: usize) -> Vec<Vec<Tok>> {
    let mut out = vec![Vec::new()];
    let mut d = 0i32;
    for x in &t[open + 1..close] {
        match x {
            Tok::P('(' | '[' | '{') => d += 1,
            Tok::P(')' | ']' | '}') => d -= 1,
            Tok::P(',') if d == 0 => {
                out.push(Vec::new());
                continue;
            }
            _ => {}
        }
        if let Some(l) = out.last_mut() {
            l.push(x.clone());
        }
    }
    if out.len() == 1 && out[0].is_empty() {
        out.clear();
    }
    out
}

fn file_wrappers(t: &[Tok]) -> Vec<FileWrapper> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut i = 0;
    while i < t.len() {
        match &t[i] {
            Tok::P('{') => depth += 1,
            Tok::P('}') => depth -= 1,
            Tok::Id(name) if depth == 0 && t.get(i + 1) == Some(&Tok::P('(')) => {
                let Some(close) = closing(t, i + 1, '(', ')') else {
                    break;
                };
                if t.get(close + 1) != Some(&Tok::P('{')) {
                    i = close;
                    i += 1;
                    continue;
                }
                let Some(end) = closing(t, close + 1, '{', '}') else {
                    break;
                };
                let params: Vec<Option<String>> = list_items(t, i + 1, close)
                    .iter()
                    .map(|p| last_id(p).map(str::to_string))
                    .collect();
                let inner = (close + 2..end).find(|&j| {
                    matches!(&t[j], Tok::Id(n) if n == "ReadFile" || n == "WriteFile")
                        && t.get(j + 1) == Some(&Tok::P('('))
                });
                if let Some(j) = inner {
                    if let Some(c) = closing(t, j + 1, '(', ')') {
                        let map: Vec<Option<usize>> = list_items(t, j + 1, c)
                            .iter()
                            .map(|a| match a.as_slice() {
                                [Tok::Id(x)] => params.iter().position(|p| p.as_deref() == Some(x)),
                                _ => None,
                            })
                            .collect();
                        // only a function that forwards its path parameter
                        if let (Tok::Id(inner), Some(Some(_))) = (&t[j], map.first()) {
                            out.push(FileWrapper {
                                name: name.clone(),
                                inner: inner.clone(),
                                params: map,
                                body: (close + 1, end + 1),
                            });
                        }
                    }
                }
                // skip the body: nothing at depth 0 inside it
                i = end + 1;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Parses a PTOAS `main.cpp` heuristically. `entry` (the kernel's entry
/// function name) picks among several launches.
pub fn parse_main_cpp(src: &str, entry: &str) -> MainCpp {
    let t = lex(src);
    let mut vars: HashMap<String, Vec<Tok>> = HashMap::new();
    // (name, args, brace depth)
    let mut calls: Vec<(String, Vec<Vec<Tok>>, u32)> = Vec::new();
    // the token index of each call's name
    let mut call_at: Vec<usize> = Vec::new();
    let mut depth = 0u32;
    for i in 0..t.len() {
        match &t[i] {
            Tok::P('{') => depth += 1,
            Tok::P('}') => depth = depth.saturating_sub(1),
            Tok::Id(name) => {
                if t.get(i + 1) == Some(&Tok::P('='))
                    && t.get(i + 2) != Some(&Tok::P('='))
                    && !matches!(
                        t.get(i.wrapping_sub(1)),
                        Some(Tok::P('=' | '!' | '<' | '>'))
                    )
                {
                    let mut j = i + 2;
                    let mut pd = 0i32;
                    while j < t.len() {
                        match t[j] {
                            Tok::P('(') => pd += 1,
                            Tok::P(')') => pd -= 1,
                            Tok::P(';') | Tok::P(',') if pd <= 0 => break,
                            _ => {}
                        }
                        j += 1;
                    }
                    vars.entry(name.clone())
                        .or_insert_with(|| t[i + 2..j.min(t.len())].to_vec());
                }
                if t.get(i + 1) == Some(&Tok::P('(')) {
                    let mut args = Vec::new();
                    let mut cur = Vec::new();
                    let mut pd = 0i32;
                    let mut j = i + 1;
                    while j < t.len() {
                        match &t[j] {
                            Tok::P(')') if pd == 1 => break,
                            Tok::P(',') if pd == 1 => args.push(std::mem::take(&mut cur)),
                            Tok::P('(') if pd == 0 => pd = 1,
                            x => {
                                match x {
                                    Tok::P('(') => pd += 1,
                                    Tok::P(')') => pd -= 1,
                                    _ => {}
                                }
                                cur.push(x.clone());
                            }
                        }
                        j += 1;
                    }
                    args.push(cur);
                    if args.len() == 1 && args[0].is_empty() {
                        args.clear();
                    }
                    calls.push((name.clone(), args, depth));
                    call_at.push(i);
                }
            }
            _ => {}
        }
    }
    let mut m = MainCpp::default();
    let mut ev = Eval {
        vars: &vars,
        depth: 0,
        factors: 0,
    };
    for (name, v) in &vars {
        if let Some(k) = name
            .strip_prefix("elemCount_")
            .and_then(|s| file_k(&format!("{s}.bin")))
        {
            if let Some(n) = ev.eval(v).filter(|n| *n >= 0.0 && n.fract() == 0.0) {
                m.elems.insert(k, n as u64);
            }
        }
    }
    // host/device buffer -> file
    let mut buf_file: HashMap<String, usize> = HashMap::new();
    let mut copy_file: HashMap<String, usize> = HashMap::new();
    let mut h2d: Vec<(String, String)> = Vec::new(); // (device, host)
                                                     // arrays of file names (`const char *paths[N] = {"./a.bin", ...}`), used
                                                     // by hosts that loop over their buffers: `device[i]` is file `paths[i]`
    let mut file_arrays: Vec<Vec<usize>> = Vec::new();
    for i in 0..t.len() {
        if t[i] != Tok::P('=') || t.get(i + 1) != Some(&Tok::P('{')) || i < 1 {
            continue;
        }
        if t[i - 1] != Tok::P(']') {
            continue;
        }
        let mut names = Vec::new();
        let mut j = i + 2;
        while let Some(x) = t.get(j) {
            match x {
                Tok::Str(f) if f.ends_with(".bin") => names.push(f.clone()),
                Tok::P(',') => {}
                _ => break,
            }
            j += 1;
        }
        if t.get(j) == Some(&Tok::P('}')) && !names.is_empty() {
            let keys: Vec<usize> = names
                .iter()
                .filter_map(|f| file_key(f, &mut m.stems))
                .collect();
            if keys.len() == names.len() {
                file_arrays.push(keys);
            }
        }
    }
    // `NAME[...]` with NAME not a plain buffer: the element index, if a literal
    let indexed = |a: &[Tok]| -> Option<Option<usize>> {
        let close = a.iter().rposition(|x| *x == Tok::P(']'))?;
        let open = a[..close].iter().rposition(|x| *x == Tok::P('['))?;
        match &a[open + 1..close] {
            [Tok::Num(n)] => Some(n.parse().ok()),
            _ => Some(None),
        }
    };
    let wrappers = file_wrappers(&t);
    for (ci, (name, args, d)) in calls.iter().enumerate() {
        // the ReadFile/WriteFile inside a wrapper's body reads its
        // parameters, and its definition (depth 0) is no call
        if wrappers
            .iter()
            .any(|w| (w.body.0..w.body.1).contains(&call_at[ci]) || (*d == 0 && &w.name == name))
        {
            continue;
        }
        // a call to a wrapper is its inner call with the caller's arguments
        let inner;
        let (name, args) = match wrappers.iter().find(|w| &w.name == name) {
            Some(w) => {
                inner = w
                    .params
                    .iter()
                    .map(|p| p.and_then(|p| args.get(p).cloned()).unwrap_or_default())
                    .collect::<Vec<_>>();
                (&w.inner, &inner)
            }
            None => (name, args),
        };
        let file = args.first().and_then(|a| match a.as_slice() {
            [Tok::Str(s)] => file_key(s, &mut m.stems),
            _ => None,
        });
        // ReadFile(paths[i], ...) / WriteFile(paths[i], ...) in a loop over a file array
        if file.is_none() && file_arrays.len() != 1 && name == "ReadFile" {
            m.opaque_reads = true;
        }
        if file.is_none() && file_arrays.len() == 1 {
            let over_array = args.first().is_some_and(|a| indexed(a).is_some());
            match name.as_str() {
                "ReadFile" if over_array => m.reads.extend(file_arrays[0].iter().copied()),
                "ReadFile" => m.opaque_reads = true,
                "WriteFile" if over_array => m.writes.extend(file_arrays[0].iter().copied()),
                _ => {}
            }
        }
        match (name.as_str(), file) {
            ("ReadFile", Some(k)) => {
                m.reads.push(k);
                // ReadFile(path, size_in_out, buf, capacity): the size variable is
                // in/out (often declared 0 and assigned before each call), so the
                // capacity says more; a size that evaluates to 0 says nothing
                let size = [3, 1]
                    .iter()
                    .filter_map(|i| args.get(*i).and_then(|a| ev.eval(a)))
                    .find(|b| *b > 0.0);
                if let Some(b) = size {
                    m.bytes.entry(k).or_insert(b as u64);
                }
                if let Some(h) = args.get(2).and_then(|a| last_id(a)) {
                    buf_file.entry(h.to_string()).or_insert(k);
                }
            }
            ("WriteFile", Some(k)) => {
                m.writes.push(k);
                // a size variable declared 0 and assigned at run time says nothing
                if let Some(b) = args.get(2).and_then(|a| ev.eval(a)).filter(|b| *b > 0.0) {
                    m.bytes.entry(k).or_insert(b as u64);
                }
                if let Some(h) = args.get(1).and_then(|a| last_id(a)) {
                    buf_file.entry(h.to_string()).or_insert(k);
                }
            }
            // a host buffer filled from another one: a copy of its file
            ("memcpy", _) if args.len() >= 2 => {
                if let (Some(d), Some(s)) = (last_id(&args[0]), last_id(&args[1])) {
                    if let Some(k) = buf_file.get(s).copied() {
                        if !buf_file.contains_key(d) {
                            copy_file.entry(d.to_string()).or_insert(k);
                        }
                    }
                }
            }
            ("aclrtMemcpy", _) if args.len() >= 5 => {
                let (Some(d), Some(s), Some(kind)) =
                    (last_id(&args[0]), last_id(&args[2]), last_id(&args[4]))
                else {
                    continue;
                };
                if kind.contains("HOST_TO_DEVICE") {
                    h2d.push((d.to_string(), s.to_string()));
                } else if kind.contains("DEVICE_TO_HOST") {
                    h2d.push((s.to_string(), d.to_string()));
                }
            }
            _ => {}
        }
    }
    let mut dev_file: HashMap<String, usize> = HashMap::new();
    let mut dev_copy: HashMap<String, usize> = HashMap::new();
    for (d, h) in &h2d {
        if let Some(k) = buf_file.get(h) {
            dev_file.entry(d.clone()).or_insert(*k);
        } else if let Some(k) = copy_file.get(h) {
            dev_copy.entry(d.clone()).or_insert(*k);
        }
    }
    // the launch: a call to Launch* inside a body (prototypes sit at depth 0)
    let launches: Vec<&(String, Vec<Vec<Tok>>, u32)> = calls
        .iter()
        .filter(|c| c.0.starts_with("Launch") && c.2 > 0)
        .collect();
    let norm = |s: &str| s.to_ascii_lowercase().replace('_', "");
    let chosen = match launches.as_slice() {
        [] => {
            m.launch_note = Some("main.cpp: no Launch* call found".into());
            None
        }
        [one] => Some(*one),
        many => {
            let c = many
                .iter()
                .find(|c| norm(c.0.trim_start_matches("Launch")) == norm(entry))
                .copied();
            if c.is_none() {
                m.launch_note = Some(format!(
                    "main.cpp: {} launches and none named after @{entry}",
                    many.len()
                ));
            }
            c
        }
    };
    if let Some((name, args, _)) = chosen {
        let la = args
            .iter()
            .map(|a| {
                let text = tok_text(a);
                if let Some(id) = last_id(a) {
                    if let Some(k) = dev_file.get(id).or_else(|| buf_file.get(id)) {
                        return LaunchArg::File(*k);
                    }
                    if let Some(k) = dev_copy.get(id).or_else(|| copy_file.get(id)) {
                        return LaunchArg::CopyOf(*k);
                    }
                    if let Some(k) = id
                        .strip_prefix('v')
                        .map(|s| {
                            s.chars()
                                .take_while(|c| c.is_ascii_digit())
                                .collect::<String>()
                        })
                        .and_then(|d| d.parse::<usize>().ok())
                        .filter(|k| *k >= 1 && (m.reads.contains(k) || m.writes.contains(k)))
                    {
                        return LaunchArg::File(k);
                    }
                }
                if let (Some(Some(i)), [keys]) = (indexed(a), file_arrays.as_slice()) {
                    if let Some(k) = keys.get(i) {
                        return LaunchArg::File(*k);
                    }
                }
                match ev.eval(a) {
                    Some(v) => LaunchArg::Scalar(v),
                    None => LaunchArg::Unknown(text),
                }
            })
            .collect();
        m.launch = Some((name.clone(), la));
    }
    m
}

/// `launch.cpp`'s wrapper `launch(params...)`: for each argument of the
/// kernel call (`kernel<<<...>>>(args)`) in its body, the index of the
/// wrapper parameter it forwards (`None` when it forwards none). A wrapper
/// may pass one parameter to several kernel arguments.
pub fn parse_launch_cpp(src: &str, launch: &str) -> Option<Vec<Option<usize>>> {
    let t = lex(src);
    // splits a parenthesised list starting at t[open] into its items
    let items = |open: usize| -> Option<(Vec<Vec<Tok>>, usize)> {
        let (mut out, mut cur, mut d) = (Vec::new(), Vec::new(), 0i32);
        for (j, x) in t.iter().enumerate().skip(open) {
            match x {
                Tok::P('(') => {
                    d += 1;
                    if d == 1 {
                        continue;
                    }
                }
                Tok::P(')') => {
                    d -= 1;
                    if d == 0 {
                        out.push(cur);
                        return Some((out, j));
                    }
                }
                Tok::P(',') if d == 1 => {
                    out.push(std::mem::take(&mut cur));
                    continue;
                }
                _ => {}
            }
            cur.push(x.clone());
        }
        None
    };
    for i in 0..t.len() {
        if t[i] != Tok::Id(launch.to_string()) || t.get(i + 1) != Some(&Tok::P('(')) {
            continue;
        }
        let (params, close) = items(i + 1)?;
        if t.get(close + 1) != Some(&Tok::P('{')) {
            continue; // a prototype
        }
        let names: Vec<Option<&str>> = params.iter().map(|p| last_id(p)).collect();
        // the kernel call: `<<<` ... `>>>` then the argument list
        let mut k = close + 2;
        while k + 2 < t.len() && t[k..k + 3] != [Tok::P('>'), Tok::P('>'), Tok::P('>')] {
            if t[k] == Tok::P('}') {
                return None;
            }
            k += 1;
        }
        if t.get(k + 3) != Some(&Tok::P('(')) {
            return None;
        }
        let (args, _) = items(k + 3)?;
        return Some(
            args.iter()
                .map(|a| {
                    let id = last_id(a)?;
                    names.iter().position(|n| *n == Some(id))
                })
                .collect(),
        );
    }
    None
}

/// The block count of the kernel call in `launch.cpp`'s wrapper `launch`
/// (`kernel<<<N, ...>>>`), evaluated with the wrapper's local constants and
/// the given values of its parameters (`None` where unknown).
pub fn launch_blocks(src: &str, launch: &str, params: &[Option<f64>]) -> Option<u32> {
    let t = lex(src);
    let start = (0..t.len()).find(|&i| {
        t[i] == Tok::Id(launch.to_string()) && t.get(i + 1) == Some(&Tok::P('(')) && {
            // a definition: the parameter list is followed by a body
            let mut d = 0;
            let mut j = i + 1;
            while j < t.len() {
                match t[j] {
                    Tok::P('(') => d += 1,
                    Tok::P(')') => {
                        d -= 1;
                        if d == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            t.get(j + 1) == Some(&Tok::P('{'))
        }
    })?;
    let mut vars: HashMap<String, Vec<Tok>> = HashMap::new();
    // parameters: the last identifier of each comma-separated item
    let mut k = start + 2;
    let mut idx = 0;
    let mut last: Option<String> = None;
    while k < t.len() && t[k] != Tok::P(')') {
        match &t[k] {
            Tok::Id(s) => last = Some(s.clone()),
            Tok::P(',') => {
                if let (Some(n), Some(Some(v))) = (last.take(), params.get(idx)) {
                    vars.insert(n, vec![Tok::Num(format!("{v}"))]);
                }
                idx += 1;
            }
            _ => {}
        }
        k += 1;
    }
    if let (Some(n), Some(Some(v))) = (last.take(), params.get(idx)) {
        vars.insert(n, vec![Tok::Num(format!("{v}"))]);
    }
    // local `name = expr;` definitions up to the kernel call
    let mut j = k;
    while j + 2 < t.len() && t[j..j + 3] != [Tok::P('<'), Tok::P('<'), Tok::P('<')] {
        if let (Tok::Id(n), Some(Tok::P('='))) = (&t[j], t.get(j + 1)) {
            let end = (j + 2..t.len()).find(|&e| t[e] == Tok::P(';'))?;
            vars.entry(n.clone())
                .or_insert_with(|| t[j + 2..end].to_vec());
        }
        if t[j] == Tok::P('}') {
            return None;
        }
        j += 1;
    }
    let first = j + 3;
    let end = (first..t.len()).find(|&e| t[e] == Tok::P(','))?;
    let mut ev = Eval {
        vars: &vars,
        depth: 0,
        factors: 0,
    };
    let n = ev.eval(&t[first..end])?;
    (1.0..=65536.0).contains(&n).then_some(n as u32)
}

/// Whether two paths name one file: both resolved through the file system
/// (a file that does not exist yet through its directory), so `./x` and
/// `d/../x` or a symlink compare equal.
pub fn same_file(a: &Path, b: &Path) -> bool {
    fn resolve(p: &Path) -> Option<PathBuf> {
        if let Ok(c) = std::fs::canonicalize(p) {
            return Some(c);
        }
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        Some(std::fs::canonicalize(dir).ok()?.join(p.file_name()?))
    }
    match (resolve(a), resolve(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

// ---------------------------------------------------------------- case.toml

#[derive(Clone, Debug)]
enum TomlArg {
    Buf(DType, u64),
    Scalar(f64),
}

/// A case's text file (kernel, host program, header): `None` when it does
/// not exist; a device or a file over `pto-as`'s 256 MiB cap is bad input,
/// not an endless read.
fn read_text(p: &Path) -> Result<Option<String>, CaseError> {
    match std::fs::metadata(p) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return bad(format!("cannot read {}: {e}", p.display())),
        Ok(m) if !m.is_file() => {
            return bad(format!("cannot read {}: not a regular file", p.display()))
        }
        Ok(_) => {}
    }
    let b = pto_asm::read_capped(p, pto_asm::MAX_KERNEL_BYTES).map_err(|e| CaseError {
        code: 2,
        msg: format!("cannot read {}: {e}", p.display()),
    })?;
    match String::from_utf8(b) {
        Ok(t) => Ok(Some(t)),
        Err(_) => bad(format!("cannot read {}: not UTF-8 text", p.display())),
    }
}

fn parse_case_toml(path: &Path) -> Result<HashMap<usize, TomlArg>, CaseError> {
    let mut out = HashMap::new();
    let Some(text) = read_text(path)? else {
        return Ok(out);
    };
    let f = path.display();
    let t: toml::Table = text.parse::<toml::Table>().map_err(|e| CaseError {
        code: 2,
        msg: format!(
            "{f}: {}",
            e.to_string().lines().next().unwrap_or("bad TOML")
        ),
    })?;
    for (key, v) in &t {
        if key != "args" {
            return bad(format!(
                "{f}: unknown key '{key}' (expected an [args] table)"
            ));
        }
        let Some(tb) = v.as_table() else {
            return bad(format!("{f}: 'args' must be a table"));
        };
        for (name, x) in tb {
            let Some(k) = name.strip_prefix('v').and_then(|n| n.parse::<usize>().ok()) else {
                return bad(format!("{f}: [args] key '{name}' is not vK"));
            };
            let a = if let Some(s) = x.as_str() {
                let (d, sh) = s.split_once(':').unwrap_or((s, ""));
                let dt = DType::from_mlir(d).ok_or_else(|| CaseError {
                    code: 2,
                    msg: format!("{f}: {name} = \"{s}\": unknown dtype '{d}' (expected DTYPE:SHAPE, e.g. \"f32:32x32\")"),
                })?;
                let mut n = 1u64;
                for dim in sh.split('x') {
                    let d = dim.trim().parse::<u64>().map_err(|_| CaseError {
                        code: 2,
                        msg: format!("{f}: {name} = \"{s}\": bad shape (expected DTYPE:SHAPE, e.g. \"f32:32x32\")"),
                    })?;
                    n = n.saturating_mul(d);
                }
                if n.saturating_mul(dt.bytes() as u64) > crate::MAX_ARG_BYTES {
                    return bad(format!(
                        "{f}: {name} = \"{s}\": more than the {} GiB an argument buffer may take",
                        crate::MAX_ARG_BYTES >> 30
                    ));
                }
                TomlArg::Buf(dt, n)
            } else if let Some(i) = x.as_integer() {
                TomlArg::Scalar(i as f64)
            } else if let Some(v) = x.as_float() {
                TomlArg::Scalar(v)
            } else {
                return bad(format!(
                    "{f}: [args] {name} must be \"DTYPE:SHAPE\" or a number"
                ));
            };
            out.insert(k, a);
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------- the run

fn run_golden_script(dir: &Path) -> Result<Option<String>, CaseError> {
    if !dir.join("golden.py").is_file() {
        return Ok(Some(format!(
            "--golden-script: no golden.py in {}; nothing run",
            dir.display()
        )));
    }
    let o = std::process::Command::new("python3")
        .arg("golden.py")
        .current_dir(dir)
        .output()
        .map_err(|e| CaseError {
            code: 2,
            msg: format!("cannot run python3 golden.py: {e}"),
        })?;
    if !o.status.success() {
        let err = String::from_utf8_lossy(&o.stderr);
        return bad(format!(
            "python3 golden.py failed ({}): {}",
            o.status,
            err.trim_end()
        ));
    }
    Ok(None)
}

/// A case's data file, at most an argument buffer's worth
/// ([`crate::MAX_ARG_BYTES`]; a device such as `/dev/zero` is an error, not
/// an endless read).
fn read_bin(p: &Path) -> Result<Option<Vec<u8>>, CaseError> {
    match std::fs::metadata(p) {
        Ok(m) if !m.is_file() => {
            return bad(format!(
                "cannot read {}: not a regular file (a case's data are files)",
                p.display()
            ))
        }
        _ => {}
    }
    match pto_asm::read_capped(p, crate::MAX_ARG_BYTES) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => bad(format!("cannot read {}: {e}", p.display())),
    }
}

/// An output's golden file, its size checked when the case was bound.
struct Golden {
    path: PathBuf,
    len: u64,
}

/// The bytes of a golden file (which must still hold `len` bytes).
fn read_golden(g: &Golden) -> Result<Vec<u8>, CaseError> {
    match read_bin(&g.path)? {
        Some(b) if b.len() as u64 == g.len => Ok(b),
        Some(b) => bad(format!(
            "{}: {} bytes now, {} when the case was bound (changed during the run?)",
            g.path.display(),
            b.len(),
            g.len
        )),
        None => bad(format!(
            "{}: gone (removed during the run?)",
            g.path.display()
        )),
    }
}

/// A case's data file's size (`None` when it does not exist), checked as
/// [`read_bin`] checks it, for a file read straight into GM later.
fn stat_bin(p: &Path) -> Result<Option<u64>, CaseError> {
    match std::fs::metadata(p) {
        Ok(m) if !m.is_file() => bad(format!(
            "cannot read {}: not a regular file (a case's data are files)",
            p.display()
        )),
        Ok(m) if m.len() > crate::MAX_ARG_BYTES => bad(format!(
            "cannot read {}: larger than {} bytes",
            p.display(),
            crate::MAX_ARG_BYTES
        )),
        Ok(m) => Ok(Some(m.len())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => bad(format!("cannot read {}: {e}", p.display())),
    }
}

/// The first `n` bytes of a file (fewer when it is shorter), and whether
/// the file holds exactly `n`: a host scalar read from a file takes only
/// its first bytes, however large the file.
fn read_head(p: &Path, n: u64) -> Option<(Vec<u8>, bool)> {
    use std::io::Read;
    let f = std::fs::File::open(p).ok()?;
    let meta = f.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    let mut b = Vec::new();
    f.take(n).read_to_end(&mut b).ok()?;
    Some((b, meta.len() == n))
}

/// Runs the case in `dir`: binds, runs, writes every output's final contents
/// to `vK.bin`, compares with `golden_vK.bin`.
pub fn run_case(dir: &Path, opts: &CaseOptions) -> Result<CaseReport, CaseError> {
    let mut notes = Vec::new();
    let out_dir = if opts.golden_script {
        Some(dir.to_path_buf())
    } else {
        opts.out_dir.clone()
    };
    if let Some(o) = &out_dir {
        // before anything runs: a run must not end in an unwritable output
        if let Err(e) = std::fs::create_dir_all(o) {
            return bad(format!(
                "cannot create output directory {}: {e}",
                o.display()
            ));
        }
    }
    if opts.golden_script {
        notes.extend(run_golden_script(dir)?);
    }
    let kp = dir.join("kernel.pto");
    let src = match read_text(&kp)? {
        Some(s) => s,
        None => return bad(format!("cannot read {}: no such file", kp.display())),
    };
    // a repository case's `//!` header: its settings apply unless the caller
    // chose otherwise
    let header = crate::header::parse(&src).map_err(|m| CaseError {
        code: 2,
        msg: format!("{}: {m}", kp.display()),
    })?;
    let entry_name = opts.entry.clone().or_else(|| header.entry.clone());
    let kernel = load_text(
        &kp.display().to_string(),
        &src,
        opts.profile.or(header.profile),
    )
    .map_err(|e| CaseError {
        code: 2,
        msg: e.to_string().trim_end().to_string(),
    })?;
    let prog = &kernel.program;
    let entry = prog.entry(entry_name.as_deref()).ok_or_else(|| CaseError {
        code: 2,
        msg: match &entry_name {
            Some(e) => format!("no function @{e} in {}", kp.display()),
            None => format!("{}: no entry function", kp.display()),
        },
    })?;
    let func = &prog.funcs[entry];
    let names = prog.arg_names(entry);
    let nargs = func.arg_types.len();

    // main.cpp
    let mc = read_text(&dir.join("main.cpp"))?.map(|t| parse_main_cpp(&t, &func.name));
    let launch_cpp = read_text(&dir.join("launch.cpp"))?;
    let mut ks: Vec<usize> = (1..=nargs).collect();
    let stem = |k: usize| {
        mc.as_ref()
            .and_then(|m| m.stems.get(&k).cloned())
            .unwrap_or_else(|| format!("v{k}"))
    };
    let mut launch_scalars: Vec<Option<f64>> = vec![None; nargs];
    // arguments bound to a copy of a file, not to the file's buffer
    let mut copies: Vec<usize> = Vec::new();
    let mut launch_grid: Option<u32> = None;
    if let Some(m) = &mc {
        notes.extend(m.launch_note.clone());
        if let Some((lname, la)) = &m.launch {
            // the wrapper's parameter values: numbers, or scalars the host read from a file
            let param_vals: Vec<Option<f64>> = la
                .iter()
                .map(|a| match a {
                    LaunchArg::Scalar(v) => Some(*v),
                    LaunchArg::File(k) => read_head(&dir.join(format!("{}.bin", stem(*k))), 4)
                        .filter(|(b, exact)| *exact && b.len() == 4)
                        .map(|(b, _)| i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64),
                    LaunchArg::Unknown(_) | LaunchArg::CopyOf(_) => None,
                })
                .collect();
            launch_grid = launch_cpp
                .as_deref()
                .and_then(|src| launch_blocks(src, lname, &param_vals));
            let mut la = la.clone();
            // launch.cpp's wrapper says which launch argument feeds each kernel argument
            let wrapper = launch_cpp
                .as_deref()
                .and_then(|src| parse_launch_cpp(src, lname))
                .filter(|map| map.len() == nargs);
            let aliasing = wrapper.is_some();
            if let Some(map) = wrapper {
                la = map
                    .iter()
                    .map(|p| match p.and_then(|p| la.get(p)) {
                        Some(a) => a.clone(),
                        None => LaunchArg::Unknown("a value launch.cpp computes".into()),
                    })
                    .collect();
            }
            if la.len() == nargs + 1 {
                la.pop(); // the stream
            }
            if la.len() != nargs {
                notes.push(format!(
                    "main.cpp: {lname} passes {} argument(s), @{} takes {nargs}; binding argument K to vK.bin",
                    la.len(),
                    func.name
                ));
            } else {
                let mut order = Vec::new();
                let mut ok = true;
                for (i, (a, t)) in la.iter().zip(&func.arg_types).enumerate() {
                    match (a, t) {
                        (LaunchArg::File(k), ArgType::GmPtr(_))
                            if aliasing || !order.contains(k) =>
                        {
                            order.push(*k)
                        }
                        (LaunchArg::CopyOf(k), ArgType::GmPtr(_)) => {
                            order.push(*k);
                            copies.push(i);
                        }
                        (LaunchArg::Scalar(v), ArgType::Int(_) | ArgType::Float(_)) => {
                            launch_scalars[i] = Some(*v);
                            order.push(0);
                        }
                        // a scalar the host read from a file (`ReadFile("v8.bin", .., &v8Host)`)
                        (LaunchArg::File(k), ArgType::Int(dt) | ArgType::Float(dt)) => {
                            let p = dir.join(format!("{}.bin", stem(*k)));
                            if let Some((b, _)) = read_head(&p, 8) {
                                // the file holds the host's value, 4 or 8 bytes wide
                                if b.len() >= 4 {
                                    let w = if b.len() >= 8 && dt.bytes() == 8 {
                                        8
                                    } else {
                                        4
                                    };
                                    let v = if dt.is_float() {
                                        if w == 8 {
                                            f64::from_le_bytes(b[..8].try_into().unwrap_or([0; 8]))
                                        } else {
                                            f32::from_le_bytes(b[..4].try_into().unwrap_or([0; 4]))
                                                as f64
                                        }
                                    } else if w == 8 {
                                        i64::from_le_bytes(b[..8].try_into().unwrap_or([0; 8]))
                                            as f64
                                    } else {
                                        i32::from_le_bytes(b[..4].try_into().unwrap_or([0; 4]))
                                            as f64
                                    };
                                    launch_scalars[i] = Some(v);
                                }
                            }
                            order.push(0);
                        }
                        (_, ArgType::Int(_) | ArgType::Float(_)) => order.push(0),
                        // a pointer the host fills some way ptovm cannot follow
                        // (a loop over computed file names): its position,
                        // unless a traced argument already reads that file
                        (LaunchArg::Unknown(_), ArgType::GmPtr(_)) => order.push(usize::MAX),
                        (a, _) => {
                            let what = match a {
                                LaunchArg::File(k) => format!("{}.bin, bound twice", stem(*k)),
                                LaunchArg::CopyOf(k) => format!("a copy of {}.bin", stem(*k)),
                                LaunchArg::Scalar(v) => format!("the number {v}"),
                                LaunchArg::Unknown(t) => format!("'{t}'"),
                            };
                            notes.push(format!(
                                "main.cpp: cannot trace launch argument {} of {lname} ({what}) to a vK.bin; binding argument K to vK.bin",
                                i + 1
                            ));
                            ok = false;
                            break;
                        }
                    }
                }
                if ok {
                    let untraced: Vec<usize> = (0..order.len())
                        .filter(|&i| order[i] == usize::MAX)
                        .collect();
                    for &i in &untraced {
                        if order.contains(&(i + 1)) {
                            notes.push(format!(
                                "main.cpp: cannot trace launch argument {} of {lname} to a vK.bin, and v{} feeds another argument; binding argument K to vK.bin",
                                i + 1,
                                i + 1
                            ));
                            ok = false;
                            break;
                        }
                        order[i] = i + 1;
                    }
                }
                if !ok {
                    copies.clear();
                }
                if ok {
                    // scalars keep their position as K
                    for (i, k) in order.iter_mut().enumerate() {
                        if *k == 0 {
                            *k = i + 1;
                        }
                    }
                    ks = order;
                }
            }
        }
    }
    let toml = parse_case_toml(&dir.join("case.toml"))?;
    let ranks = header.ranks as usize;
    let multi = ranks > 1 || !header.rank_args.is_empty();
    if ranks > 1 {
        notes.push(format!(
            "the kernel header runs {ranks} ranks: every .bin stacks their data, rank r's slice r"
        ));
    }
    if multi && mc.is_some() {
        return bad(format!(
            "{}: a kernel header with ranks or peers and a main.cpp cannot combine (which file feeds which rank?)",
            kp.display()
        ));
    }

    let mut bindings: Vec<Binding> = Vec::new();
    let mut args = Vec::new();
    let mut any_golden = false;
    // each output's golden file, read when its output is compared (one at a
    // time: two 128 MiB goldens are not held at once)
    let mut goldens: Vec<Option<Golden>> = Vec::new();
    // bytes the host writes back per argument: its buffer, or the smaller
    // file `ReadFile` filled it from (which sets the size variable to the
    // file's size, so the later `WriteFile` writes that many bytes)
    let mut file_lens: Vec<usize> = Vec::new();
    let mut first_arg: HashMap<usize, usize> = HashMap::new();
    for (i, t) in func.arg_types.iter().enumerate() {
        let k = ks[i];
        let sk = stem(k);
        let name = names[i].clone();
        if let Some((_, ra)) = header.rank_args.iter().find(|a| a.0 == k) {
            // a per-rank value: the rank's number, the rank count or a peer
            // pointer (set per rank below)
            let ok = match ra {
                RankArg::Peer { arg, .. } => {
                    matches!(t, ArgType::GmPtr(_))
                        && matches!(func.arg_types.get(arg - 1), Some(ArgType::GmPtr(_)))
                        && !header.rank_args.iter().any(|a| a.0 == *arg)
                }
                _ => matches!(t, ArgType::Int(_)),
            };
            if !ok {
                return bad(format!(
                    "{}: v{k} (%{name}) cannot take {}; peers must point at buffer arguments and rank numbers at integers",
                    kp.display(),
                    ra.describe()
                ));
            }
            bindings.push(Binding {
                arg: i,
                name,
                k,
                file: sk.clone(),
                dtype: None,
                bytes: 0,
                scalar: None,
                output: false,
                source: ra.describe(),
            });
            args.push(Arg::Int(0));
            goldens.push(None);
            file_lens.push(0);
            continue;
        }
        match t {
            ArgType::GmPtr(dt) if first_arg.contains_key(&k) && !copies.contains(&i) => {
                // the launch passes this file's buffer again
                let j = first_arg[&k];
                bindings.push(Binding {
                    arg: i,
                    name,
                    k,
                    file: sk.clone(),
                    dtype: Some(*dt),
                    bytes: bindings[j].bytes,
                    scalar: None,
                    output: false,
                    source: format!("{sk}.bin (same buffer as %{})", names[j]),
                });
                args.push(Arg::Alias(j));
                goldens.push(None);
                file_lens.push(bindings[j].bytes);
            }
            ArgType::GmPtr(dt) => {
                let copy = copies.contains(&i);
                first_arg.entry(k).or_insert(i);
                let es = dt.bytes() as u64;
                let vp = dir.join(format!("{sk}.bin"));
                let mut gp = dir.join(format!("golden_{sk}.bin"));
                // `out_X.bin` is often checked against `golden_X.bin`
                if let Some(x) = sk.strip_prefix("out_") {
                    let alt = dir.join(format!("golden_{x}.bin"));
                    if !gp.is_file() && alt.is_file() {
                        gp = alt;
                    }
                }
                // a copy is an input only: the file's golden is its buffer's
                let golden = if copy {
                    None
                } else {
                    stat_bin(&gp)?.map(|len| Golden {
                        path: gp.clone(),
                        len,
                    })
                };
                // with a main.cpp, a pure output (never read) starts zeroed
                let pure_out = mc
                    .as_ref()
                    .is_some_and(|m| !m.opaque_reads && !m.reads.contains(&k) && golden.is_some());
                // the run reads the file straight into GM (each rank its
                // slice of it)
                let input_len = if pure_out { None } else { stat_bin(&vp)? };
                if mc.as_ref().is_some_and(|m| m.reads.contains(&k)) && input_len.is_none() {
                    return bad(format!("{}: missing (main.cpp reads it)", vp.display()));
                }
                // the file's byte size (in main.cpp's host type) over its
                // element count (in the kernel argument's type)
                let main_bytes = mc.as_ref().and_then(|m| {
                    m.bytes
                        .get(&k)
                        .copied()
                        .or_else(|| m.elems.get(&k).map(|n| n * es))
                });
                let toml_bytes = match toml.get(&k) {
                    Some(TomlArg::Buf(tdt, n)) => {
                        if tdt.bytes() != dt.bytes() {
                            return bad(format!(
                                "case.toml: v{k} is declared {tdt}, but %{name} points to {dt}"
                            ));
                        }
                        Some(n.saturating_mul(es))
                    }
                    Some(TomlArg::Scalar(_)) => {
                        return bad(format!(
                            "case.toml: v{k} is a number, but %{name} is a pointer (write \"DTYPE:SHAPE\")"
                        ))
                    }
                    None => None,
                };
                let views = func.arg_bytes.get(i).copied().unwrap_or(0);
                let (size, why) = if let Some(b) = main_bytes {
                    (b, "main.cpp's size")
                } else if let Some(n) = input_len {
                    (n, "")
                } else if let Some(g) = &golden {
                    (g.len, "")
                } else if let Some(b) = toml_bytes {
                    (b, "case.toml")
                } else if views > 0 {
                    (views, "the kernel's views")
                } else {
                    return bad(format!(
                        "cannot size {sk} (%{name}): no {sk}.bin, golden_{sk}.bin or main.cpp size, and the kernel's views do not say; add v{k} = \"{dt}:SHAPE\" under [args] in case.toml"
                    ));
                };
                // main.cpp's size is the buffer ReadFile fills: a smaller
                // file is read whole and leaves the rest of it untouched
                let file_len = match input_len {
                    Some(n)
                        if main_bytes.is_some()
                            && mc.as_ref().is_some_and(|m| m.reads.contains(&k))
                            && n > 0
                            && n < size =>
                    {
                        n
                    }
                    _ => size,
                };
                let golden_len = golden.as_ref().map(|g| g.len);
                for (p, data) in [(&vp, input_len), (&gp, golden_len)] {
                    let Some(n) = data else { continue };
                    if !why.is_empty() && n != size && n != file_len {
                        return bad(format!(
                            "{}: {n} bytes, expected {size} ({why} for %{name})",
                            p.display()
                        ));
                    }
                    if !n.is_multiple_of(es) {
                        return bad(format!(
                            "{}: {n} bytes is not a whole number of {dt} elements (expected a multiple of {es} bytes)",
                            p.display()
                        ));
                    }
                }
                if let (Some(a), Some(g)) = (input_len, golden_len) {
                    if a != g {
                        return bad(format!(
                            "{}: {a} bytes, expected {g} (the size of golden_{sk}.bin)",
                            vp.display(),
                        ));
                    }
                }
                if let Some(tb) = toml_bytes {
                    if tb != size {
                        let p = if input_len.is_some() { &vp } else { &gp };
                        return bad(format!(
                            "{}: {size} bytes, expected {tb} (case.toml's v{k})",
                            p.display()
                        ));
                    }
                }
                if size > crate::MAX_ARG_BYTES {
                    return bad(format!(
                        "%{name} ({sk}): {size} bytes is more than the {} GiB an argument buffer may take",
                        crate::MAX_ARG_BYTES >> 30
                    ));
                }
                if size < views {
                    let p = if input_len.is_some() { &vp } else { &gp };
                    return bad(format!(
                        "{}: {size} bytes, expected {views} (the kernel's views of %{name} reach {views} bytes)",
                        p.display()
                    ));
                }
                let source = if input_len.is_some() {
                    format!("{sk}.bin")
                } else {
                    if golden.is_none() {
                        notes.push(format!(
                            "%{name}: no {sk}.bin or golden_{sk}.bin; starts zeroed ({size} bytes)"
                        ));
                    }
                    "zeros".to_string()
                };
                any_golden |= golden.is_some();
                bindings.push(Binding {
                    arg: i,
                    name,
                    k,
                    file: sk.clone(),
                    dtype: Some(*dt),
                    bytes: size as usize,
                    scalar: None,
                    output: golden.is_some(),
                    source,
                });
                args.push(match input_len {
                    Some(_) => Arg::File {
                        path: vp.clone(),
                        offset: 0,
                        len: size,
                    },
                    None => Arg::Buffer(vec![0; size as usize]),
                });
                goldens.push(golden);
                file_lens.push(file_len as usize);
            }
            ArgType::Int(_) | ArgType::Float(_) => {
                let from_header = header.scalars.iter().find(|s| s.0 == k).map(|s| s.1);
                let v = match (launch_scalars[i], toml.get(&k), from_header) {
                    (Some(v), _, _) => v,
                    (None, Some(TomlArg::Scalar(v)), _) => *v,
                    (None, None, Some(v)) => v,
                    _ => {
                        return bad(format!(
                            "scalar argument v{k} (%{name}) needs a value: add v{k} = NUMBER under [args] in case.toml"
                        ))
                    }
                };
                bindings.push(Binding {
                    arg: i,
                    name,
                    k,
                    file: sk.clone(),
                    dtype: None,
                    bytes: 0,
                    scalar: Some(v),
                    output: false,
                    source: "scalar".into(),
                });
                args.push(if matches!(t, ArgType::Float(_)) {
                    Arg::Float(v)
                } else {
                    Arg::Int(v as i64)
                });
                goldens.push(None);
                file_lens.push(0);
            }
            ArgType::Other(ty) => {
                return bad(format!(
                    "argument v{k} (%{name}) has type {ty}, which a case cannot bind"
                ))
            }
        }
    }
    // no goldens, but the case's compare.py judges the files main.cpp writes
    let script_outputs: Vec<usize> = match &mc {
        Some(m) if !any_golden && opts.golden_script && dir.join("compare.py").is_file() => m
            .writes
            .iter()
            .filter_map(|k| bindings.iter().position(|b| b.k == *k && b.dtype.is_some()))
            .collect(),
        _ => Vec::new(),
    };
    if !any_golden && script_outputs.is_empty() {
        return bad(format!(
            "no golden_vK.bin for any pointer argument in {}: nothing to compare (generate them, e.g. with --golden-script)",
            dir.display()
        ));
    }

    // no timeline file may be a file of the case, an output or the other
    let mut keep: Vec<(String, PathBuf)> = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            keep.push((format!("{}", e.path().display()), e.path()));
        }
    }
    if let Some(o) = &out_dir {
        for b in bindings.iter().filter(|b| b.output) {
            let p = o.join(format!("{}.bin", b.file));
            keep.push((format!("the output {}", p.display()), p));
        }
    }
    for (flag, p) in [("--trace", &opts.trace), ("--timeline", &opts.timeline)] {
        let Some(p) = p else { continue };
        if let Some((what, _)) = keep.iter().find(|(_, q)| same_file(p, q)) {
            return bad(format!(
                "{flag} {} would overwrite {what}; choose another file",
                p.display()
            ));
        }
        keep.push((format!("{flag} {}", p.display()), p.clone()));
    }
    let mut cfg = Config {
        profile: kernel.profile,
        trace: opts.trace.is_some() || opts.timeline.is_some(),
        ..opts.config.clone()
    };
    if let (false, Some(b)) = (opts.chosen.blocks, header.blocks) {
        cfg.blocks = b;
    }
    if let (false, Some(sc)) = (opts.chosen.sched, header.sched) {
        cfg.sched = sc;
    }
    if let (false, Some(c)) = (opts.chosen.check, header.check) {
        cfg.check = c;
    }
    if !cfg.watch_lines.is_empty() {
        if let Some(m) = crate::machine::watch::missing_lines(prog, &cfg.watch_lines) {
            return bad(m);
        }
        // compiled regions would hide what the watched instructions produce
        cfg.jit = crate::JitMode::Off;
    }
    let rtol = opts.rtol.or(header.rtol);
    let atol = opts.atol.or(header.atol);
    // the launch's block count, unless the command line chose one
    if let Some(n) = launch_grid.filter(|n| *n > 1 && cfg.blocks == 1) {
        notes.push(format!("launch.cpp launches {n} blocks"));
        cfg.blocks = n;
    }
    // only outputs come back out of GM (inputs can be hundreds of MiB), and
    // an output that is only compared is compared in place
    let read_back: Vec<crate::ReadBack> = (0..args.len())
        .map(|i| {
            let golden = goldens.get(i).is_some_and(|g| g.is_some());
            let out = bindings
                .get(i)
                .is_some_and(|b| b.output || script_outputs.contains(&i))
                || golden;
            if golden && !multi && out_dir.is_none() && !script_outputs.contains(&i) {
                crate::ReadBack::Visit
            } else if out {
                crate::ReadBack::Always
            } else {
                crate::ReadBack::Never
            }
        })
        .collect();
    // results of the outputs compared in place, by argument
    let mut compared: HashMap<usize, Result<(Cmp, String), CaseError>> = HashMap::new();
    let fin = if multi {
        // each rank runs over its own slice of every stacked file
        // (docs/cases.md), the results stacked back in rank order
        let mut per_rank: Vec<Vec<Arg>> = vec![Vec::with_capacity(args.len()); ranks];
        for (i, a) in args.iter().enumerate() {
            let b = &bindings[i];
            if let Some((_, ra)) = header.rank_args.iter().find(|x| x.0 == b.k) {
                for (r, pr) in per_rank.iter_mut().enumerate() {
                    pr.push(ra.arg(r as u32, ranks as u32));
                }
                continue;
            }
            let total = match a {
                Arg::Buffer(data) => data.len() as u64,
                Arg::File { len, .. } | Arg::Zeros(len) => *len,
                _ => 0,
            };
            if matches!(a, Arg::Buffer(_) | Arg::File { .. } | Arg::Zeros(_))
                && total % ranks as u64 != 0
            {
                return bad(format!(
                    "{}.bin: {total} bytes, not {ranks} equal rank slices",
                    b.file
                ));
            }
            let n = total / ranks as u64;
            match a {
                Arg::Buffer(data) => {
                    let n = n as usize;
                    for (r, pr) in per_rank.iter_mut().enumerate() {
                        pr.push(Arg::Buffer(data[r * n..(r + 1) * n].to_vec()));
                    }
                }
                Arg::File { path, offset, .. } => {
                    for (r, pr) in per_rank.iter_mut().enumerate() {
                        pr.push(Arg::File {
                            path: path.clone(),
                            offset: offset + r as u64 * n,
                            len: n,
                        });
                    }
                }
                Arg::Zeros(_) => per_rank.iter_mut().for_each(|pr| pr.push(Arg::Zeros(n))),
                other => per_rank.iter_mut().for_each(|pr| pr.push(other.clone())),
            }
        }
        let f =
            crate::run_kernel_ranks_reading(&kernel, &cfg, Some(&func.name), &per_rank, &read_back)
                .map_err(|e| CaseError { code: 2, msg: e })?;
        let stacked: Vec<Vec<u8>> = (0..args.len())
            .map(|i| {
                f.buffers
                    .iter()
                    .flat_map(|b| b[i].iter().copied())
                    .collect()
            })
            .collect();
        crate::Finished {
            out: f.out,
            buffers: stacked,
        }
    } else {
        let dtypes: Vec<Option<DType>> = bindings.iter().map(|b| b.dtype).collect();
        let mut visit = |_: usize, i: usize, bytes: &[u8]| {
            let (Some(Some(g)), Some(Some(dt))) = (goldens.get(i), dtypes.get(i)) else {
                return;
            };
            let got = &bytes[..file_lens[i].min(bytes.len())];
            let r = read_golden(g).map(|want| {
                let cmp = compare(*dt, &want, got, rtol, atol);
                let first = cmp.describe_first(*dt, &want, got, &[]);
                (cmp, first)
            });
            compared.insert(i, r);
        };
        let mut f = crate::run_kernel_ranks_visiting(
            &kernel,
            &cfg,
            Some(&func.name),
            &[&args[..]],
            &read_back,
            &mut visit,
        )
        .map_err(|e| CaseError { code: 2, msg: e })?;
        crate::Finished {
            out: f.out,
            buffers: f.buffers.pop().unwrap_or_default(),
        }
    };
    let watch = crate::machine::watch::render(prog, &fin.out, multi);
    let diagnostics: Vec<String> = fin
        .out
        .diags
        .list
        .iter()
        .map(|d| d.render(prog, Some(&src)))
        .collect();
    // timelines (also after a fault or deadlock: they show how far it got)
    if cfg.trace && fin.out.trace_dropped > 0 {
        notes.push(format!(
            "the timeline holds the first {} pipe instructions per block; {} later ones are not in it",
            crate::machine::MAX_TRACE_EVENTS,
            fin.out.trace_dropped
        ));
    }
    let unit = if matches!(cfg.sched, crate::Sched::Timed) {
        "cycles"
    } else {
        "steps"
    };
    if let Some(p) = &opts.trace {
        let t = crate::trace::chrome_json(prog, &fin.out.trace, unit);
        std::fs::write(p, t).map_err(|e| CaseError {
            code: 2,
            msg: format!("cannot write {}: {e}", p.display()),
        })?;
    }
    if let Some(p) = &opts.timeline {
        let title = format!("{} — {} ({:?}, {unit})", kp.display(), func.name, cfg.sched);
        let t = crate::trace::svg(prog, &fin.out.trace, &title, unit);
        std::fs::write(p, t).map_err(|e| CaseError {
            code: 2,
            msg: format!("cannot write {}: {e}", p.display()),
        })?;
    }
    let mut code = 0u8;
    // the fault as a case header's `expect-fault` names it
    let mut header_fault = None;
    let mut error = match &fin.out.error {
        None => None,
        Some(RunError::Fault { inst, message }) => {
            let l = prog.info(*inst).loc;
            code = 3;
            header_fault = Some(format!(
                "kernel.pto:{}:{}: runtime fault: {message}",
                l.line, l.col
            ));
            Some(format!(
                "{}:{}:{}: runtime fault in '{}': {message}",
                prog.source_name,
                l.line,
                l.col,
                prog.info(*inst).opcode.name()
            ))
        }
        Some(RunError::Deadlock) => {
            code = 1;
            Some("deadlock".into())
        }
        Some(RunError::Limit(n)) => {
            code = 4;
            Some(format!("stopped after {n} steps (--max-steps)"))
        }
        Some(RunError::Timeout(n)) => {
            code = 4;
            Some(format!(
                "stopped by the wall-clock deadline after {n} steps"
            ))
        }
        Some(RunError::Setup(m)) => return bad(m.clone()),
    };
    if let Some(want) = &header.expect_fault {
        match &header_fault {
            Some(f) if f.contains(want.as_str()) => {
                // the case is about this fault: its goldens hold what the
                // kernel wrote before it
                notes.push(format!(
                    "the runtime fault is the one the kernel header expects ('{want}')"
                ));
                error = None;
                code = 0;
            }
            Some(_) => notes.push(format!(
                "the kernel header expects a runtime fault containing '{want}'"
            )),
            None if error.is_none() => {
                notes.push(format!(
                    "the kernel header expects a runtime fault containing '{want}', but the run finished"
                ));
                code = 1;
            }
            None => {}
        }
    }
    if let Some(why) = &header.expect_fail {
        notes.push(format!(
            "the kernel header marks this case as a known failure: {why}"
        ));
    }
    if code == 0 && cfg.check == CheckMode::Error && !diagnostics.is_empty() {
        code = 1;
    }
    let code_before_compare = code;
    for &i in &script_outputs {
        let b = &bindings[i];
        let p = out_dir
            .as_deref()
            .unwrap_or(dir)
            .join(format!("{}.bin", b.file));
        let got = &fin.buffers[b.arg];
        let got = &got[..file_lens[b.arg].min(got.len())];
        std::fs::write(&p, got).map_err(|e| CaseError {
            code: 2,
            msg: format!("cannot write {}: {e}", p.display()),
        })?;
    }
    if !script_outputs.is_empty() && code == 0 {
        // nothing to compare byte-wise: the script is the only judge
        code = 1;
        notes.push(format!(
            "no goldens; {} output(s) main.cpp writes are left to compare.py",
            script_outputs.len()
        ));
    }
    // write every output when asked (also after a fault: a stale vK.bin
    // must not survive)
    let mut outputs = Vec::new();
    for b in &bindings {
        let Some(g) = &goldens[b.arg] else { continue };
        let Some(dt) = b.dtype else { continue };
        let got = &fin.buffers[b.arg];
        let got = &got[..file_lens[b.arg].min(got.len())];
        let written = match &out_dir {
            Some(o) => {
                let p = o.join(format!("{}.bin", b.file));
                std::fs::write(&p, got).map_err(|e| CaseError {
                    code: 2,
                    msg: format!("cannot write {}: {e}", p.display()),
                })?;
                Some(p)
            }
            None => None,
        };
        let (cmp, first) = match compared.remove(&b.arg) {
            Some(r) => r?,
            None => {
                let want = read_golden(g)?;
                let cmp = compare(dt, &want, got, rtol, atol);
                let first = cmp.describe_first(dt, &want, got, &[]);
                (cmp, first)
            }
        };
        if cmp.mismatches > 0 {
            code = code.max(1);
        }
        outputs.push(OutputReport {
            k: b.k,
            file: b.file.clone(),
            name: b.name.clone(),
            dtype: dt,
            written,
            cmp,
            first,
        });
    }
    // with --golden-script the case's own scripts are trusted: its compare.py
    // (what the PTOAS harness runs) may check fewer elements or looser
    // tolerances than the byte-for-byte golden comparison
    if opts.golden_script
        && code_before_compare == 0
        && code == 1
        && dir.join("compare.py").is_file()
    {
        match std::process::Command::new("python3")
            .arg("compare.py")
            .current_dir(dir)
            .output()
        {
            Ok(o) if o.status.success() => {
                notes.push(
                    "the case's compare.py accepts the outputs the golden_vK.bin comparison rejects"
                        .into(),
                );
                code = 0;
            }
            Ok(_) => notes.push("the case's compare.py rejects the outputs too".into()),
            Err(e) => notes.push(format!("cannot run python3 compare.py: {e}")),
        }
    }
    Ok(CaseReport {
        func: func.name.clone(),
        bindings,
        notes,
        diagnostics,
        error,
        outputs,
        pipe_insts: fin.out.pipe_insts,
        stats: fin.out.run_stats(),
        code,
        out_dir,
        watch,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte-identical runs compare skips change nothing: mismatches,
    /// largest errors and the first indices are those of an element-by-element
    /// pass, for differences in the first, a middle and the last (short) run.
    #[test]
    fn compare_skips_identical_runs_without_changing_the_result() {
        let n = 3 * 1024 + 100;
        let want: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
        let mut got = want.clone();
        for (i, d) in [(5usize, 1.0f32), (1500, -0.25), (1501, 3.0), (n - 1, 0.5)] {
            got[i] += d;
        }
        got[2000] = f32::NAN;
        let b = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
        let c = compare(DType::F32, &b(&want), &b(&got), None, None);
        assert_eq!(c.total, n);
        assert_eq!(c.mismatches, 5);
        assert_eq!(c.first, vec![5, 1500, 1501, 2000, n - 1]);
        assert!((c.max_abs - 3.0).abs() < 1e-6, "{}", c.max_abs);
        // identical buffers: nothing decoded, nothing off
        let c = compare(
            DType::BF16,
            &vec![7u8; 1 << 20],
            &vec![7u8; 1 << 20],
            None,
            None,
        );
        assert_eq!((c.total, c.mismatches, c.max_abs), (1 << 19, 0, 0.0));
    }

    #[test]
    fn fixed_size_layout() {
        let src = r#"
void LaunchK(float *v1, float *v2, void *stream);
int main() {
    size_t fileSize = 32 * 32 * sizeof(float);
    ReadFile("./v1.bin", fileSize, srcHost0, fileSize);
    aclrtMemcpy(srcDevice0, fileSize, srcHost0, fileSize, ACL_MEMCPY_HOST_TO_DEVICE);
    LaunchK(srcDevice0, dstDevice0, stream);
    aclrtMemcpy(dstHost0, fileSize, dstDevice0, fileSize, ACL_MEMCPY_DEVICE_TO_HOST);
    WriteFile("./v2.bin", dstHost0, fileSize);
}"#;
        let m = parse_main_cpp(src, "k");
        assert_eq!(m.bytes.get(&1), Some(&4096));
        assert_eq!(m.bytes.get(&2), Some(&4096));
        assert_eq!(
            m.launch.map(|l| l.1),
            Some(vec![
                LaunchArg::File(1),
                LaunchArg::File(2),
                LaunchArg::Unknown("stream".into())
            ])
        );
    }

    #[test]
    fn elem_counts_casts_and_scalars() {
        let src = r#"
int main() {
    constexpr int rows = 16;
    size_t elemCount_v2 = 1024;
    size_t fileSize_v2 = elemCount_v2 * sizeof(aclFloat16);
    const size_t outBytes = static_cast<size_t>(rows) * 8 * sizeof(float);
    int32_t n = 7;
    ReadFile("./v2.bin", fileSize_v2, v2Host, fileSize_v2);
    ACL_CHECK(aclrtMemcpy(v2Device, fileSize_v2, v2Host, fileSize_v2, ACL_MEMCPY_HOST_TO_DEVICE));
    LaunchA(v2Device, n, stream);
    LaunchB(v2Device, (uint8_t *)outDev, 3, stream);
    WriteFile("./v1.bin", outHost, outBytes);
    aclrtMemcpy(outHost, outBytes, outDev, outBytes, ACL_MEMCPY_DEVICE_TO_HOST);
}"#;
        let m = parse_main_cpp(src, "b");
        assert_eq!(m.elems.get(&2), Some(&1024));
        assert_eq!(m.bytes.get(&2), Some(&2048));
        assert_eq!(m.bytes.get(&1), Some(&512));
        let (name, la) = m.launch.expect("launch chosen by entry name");
        assert_eq!(name, "LaunchB");
        assert_eq!(la[0], LaunchArg::File(2));
        assert_eq!(la[1], LaunchArg::File(1));
        assert_eq!(la[2], LaunchArg::Scalar(3.0));
        let m = parse_main_cpp(src, "zzz");
        assert!(m.launch.is_none() && m.launch_note.is_some());
    }

    #[test]
    fn read_file_in_out_size_declared_zero() {
        let src = r#"
int main() {
    constexpr size_t N = 256;
    constexpr size_t BYTES = N * sizeof(float);
    size_t sz = 0;
    sz = BYTES; ReadFile("./v1.bin", sz, hostA, BYTES);
    sz = BYTES; ReadFile("./v2.bin", sz, hostB, 0);
}"#;
        let m = parse_main_cpp(src, "k");
        assert_eq!(m.bytes.get(&1), Some(&1024));
        // neither the capacity (0) nor the in/out variable (declared 0) says
        assert_eq!(m.bytes.get(&2), None);
    }

    #[test]
    fn file_helpers_forward_to_read_file_and_write_file() {
        let src = r#"
static bool readExact(const char *path, void *dst, size_t size) {
    size_t inputSize = size;
    return ReadFile(path, inputSize, dst, size) && inputSize == size;
}
static bool writeExact(const char *path, void *src, size_t size) {
    return WriteFile(path, src, size);
}
void LaunchK(float *a, float *o, void *stream);
int main() {
    constexpr size_t kElem = 40 * 50;
    constexpr size_t kSize = kElem * sizeof(__fp16);
    FILE_CHECK(readExact("./lhs.bin", aHost, kSize), "./lhs.bin");
    FILE_CHECK(readExact("./out.bin", oHost, 4096), "./out.bin");
    ACL_CHECK(aclrtMemcpy(aDev, kSize, aHost, kSize, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_CHECK(aclrtMemcpy(oDev, 4096, oHost, 4096, ACL_MEMCPY_HOST_TO_DEVICE));
    LaunchK(aDev, oDev, stream);
    ACL_CHECK(aclrtMemcpy(oHost, 4096, oDev, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
    FILE_CHECK(writeExact("./out.bin", oHost, 4096), "./out.bin");
}"#;
        let m = parse_main_cpp(src, "k");
        assert!(!m.opaque_reads, "the helpers' own ReadFile is not a read");
        let key = |stem: &str| m.stems.iter().find(|(_, v)| *v == stem).map(|(k, _)| *k);
        let (a, o) = (key("lhs").unwrap(), key("out").unwrap());
        assert_eq!(m.bytes.get(&a), Some(&4000));
        assert_eq!(m.bytes.get(&o), Some(&4096));
        assert!(m.reads.contains(&a) && m.reads.contains(&o) && m.writes == vec![o]);
        let (_, la) = m.launch.unwrap();
        assert_eq!(la[..2], [LaunchArg::File(a), LaunchArg::File(o)]);
    }

    #[test]
    fn host_copies_bind_as_copies_of_the_file() {
        let src = r#"
void LaunchK(uint8_t *a, uint8_t *a8, float *c, void *stream);
int main() {
    size_t aSize = 1024;
    size_t cSize = 4096;
    ReadFile("./v1.bin", inputSize, aHost, aSize);
    std::memcpy(aFp8Host, aHost, aSize);
    ReadFile("./v3.bin", inputSize, cHost, cSize);
    ACL_CHECK(aclrtMemcpy(aDevice, aSize, aHost, aSize, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_CHECK(aclrtMemcpy(aFp8Device, aSize, aFp8Host, aSize, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_CHECK(aclrtMemcpy(cDevice, cSize, cHost, cSize, ACL_MEMCPY_HOST_TO_DEVICE));
    LaunchK(aDevice, aFp8Device, cDevice, stream);
}"#;
        let (_, la) = parse_main_cpp(src, "k").launch.unwrap();
        assert_eq!(
            la[..3],
            [LaunchArg::File(1), LaunchArg::CopyOf(1), LaunchArg::File(3)]
        );
    }

    #[test]
    fn launch_wrapper_forwards_one_pointer_to_several_arguments() {
        let src = r#"
void LaunchK(float *p0, float *p1, void *stream);
void LaunchK(float * p0, float * p1, void *stream) {
  k_kernel<<<1, nullptr, stream>>>((__gm__ half *)p0, (__gm__ float *)p0, (__gm__ float *)p1, 4);
}"#;
        assert_eq!(
            parse_launch_cpp(src, "LaunchK"),
            Some(vec![Some(0), Some(0), Some(1), None])
        );
        assert_eq!(parse_launch_cpp(src, "LaunchOther"), None);
    }

    #[test]
    fn wide_integers_compare_exactly() {
        let a = (1i64 << 60).to_le_bytes();
        let b = ((1i64 << 60) + 1).to_le_bytes();
        // the two are one f64: a float comparison would call them equal
        assert_eq!((1i64 << 60) as f64, ((1i64 << 60) + 1) as f64);
        let c = compare(DType::I64, &a, &b, None, None);
        assert_eq!((c.mismatches, c.max_abs), (1, 1.0));
        assert_eq!(
            c.describe_first(DType::I64, &a, &b, &[1]),
            "[0] is 1152921504606846977, golden 1152921504606846976"
        );
        let u = u64::MAX.to_le_bytes();
        let c = compare(DType::U64, &u, &(u64::MAX - 1).to_le_bytes(), None, None);
        assert_eq!(c.mismatches, 1);
        assert_eq!(
            c.describe_first(DType::U64, &u, &u, &[1]),
            "[0] is 18446744073709551615, golden 18446744073709551615"
        );
        // a tolerance still applies to integers
        let c = compare(DType::I64, &a, &b, None, Some(1.0));
        assert_eq!(c.mismatches, 0);
    }

    #[test]
    fn first_mismatches_name_their_index_and_values() {
        let want: Vec<u8> = [1.0f32, 1.0, 1.0, 1.0, 1.0, 1.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let got: Vec<u8> = [1.0f32, 2.0, 0.1, f32::NAN, -0.0, 1.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let c = compare(DType::F32, &want, &got, None, None);
        assert_eq!(c.first, vec![1, 2, 3, 4]);
        assert_eq!(
            c.describe_first(DType::F32, &want, &got, &[2, 3]),
            "[0, 1] is 2.0, golden 1.0; [0, 2] is 0.1, golden 1.0; [1, 0] is NaN, golden 1.0"
        );
        // a shape that does not hold the elements: flat indices
        assert_eq!(
            c.describe_first(DType::F32, &want, &got, &[4]),
            "[1] is 2.0, golden 1.0; [2] is 0.1, golden 1.0; [3] is NaN, golden 1.0"
        );
        let h: Vec<u8> = [half::f16::from_f32(0.1), half::f16::NEG_ZERO]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let z = [0u8; 4];
        let c = compare(DType::F16, &z, &h, None, None);
        assert_eq!(
            c.describe_first(DType::F16, &z, &h, &[2]),
            "[0] is 0.099975586, golden 0.0"
        );
    }

    #[test]
    fn equal_infinities_match() {
        let inf = f32::INFINITY.to_le_bytes();
        let c = compare(DType::F32, &inf, &inf, None, None);
        assert_eq!(c.mismatches, 0);
        let c = compare(
            DType::F32,
            &inf,
            &(-f32::INFINITY).to_le_bytes(),
            None,
            None,
        );
        assert_eq!(c.mismatches, 1);
    }

    #[test]
    fn host_loops_over_a_file_array() {
        let src = r#"
void LaunchK(int *a, int *b, void *stream);
int main() {
  const char *paths[2] = {"./lhs.bin", "./out.bin"};
  void *device[2] = {};
  for (size_t i = 0; i < 2; ++i) { ReadFile(paths[i], sz, host[i], sizes[i]); }
  LaunchK(static_cast<int *>(device[0]), static_cast<int *>(device[1]), stream);
  for (size_t i = 1; i < 2; ++i) { WriteFile(paths[i], host[i], sizes[i]); }
}"#;
        let m = parse_main_cpp(src, "k");
        let (_, la) = m.launch.expect("a launch");
        let lhs = *m.stems.iter().find(|(_, v)| *v == "lhs").expect("lhs").0;
        let out = *m.stems.iter().find(|(_, v)| *v == "out").expect("out").0;
        assert_eq!(la[..2], [LaunchArg::File(lhs), LaunchArg::File(out)]);
        assert!(m.reads.contains(&out) && m.writes.contains(&out));
        // a formatted path hides which files are read
        let m = parse_main_cpp(
            "int main() { snprintf(path, 32, \"./v%zu.bin\", i + 1); ReadFile(path, s, h, s); }",
            "k",
        );
        assert!(m.opaque_reads);
    }

    #[test]
    fn launch_block_count_from_the_wrapper() {
        let src = r#"
void LaunchK(float *v1, int32_t v9, void *stream) {
  const int32_t blockRows = 8;
  const int32_t blocks = (v9 + blockRows - 1) / blockRows;
  k<<<blocks, nullptr, stream>>>((__gm__ float *)v1, v9);
}
void LaunchJ(float *v1, void *stream) { j<<<2, nullptr, stream>>>(v1); }"#;
        assert_eq!(launch_blocks(src, "LaunchK", &[None, Some(24.0)]), Some(3));
        assert_eq!(launch_blocks(src, "LaunchK", &[None, None]), None);
        assert_eq!(launch_blocks(src, "LaunchJ", &[None]), Some(2));
    }
}
