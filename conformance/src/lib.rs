//! `pto-conformance`: the case format, runner and coverage report.
//!
//! Status: case discovery and execution arrive with the pto-run/conformance
//! issue; the types below are the format's shape.
//!
//! A case is a directory with a kernel (`kernel.pto`), inputs `vK.bin` by
//! argument position, expected outputs `golden_vK.bin` (the PTOAS golden
//! convention: raw little-endian, no header) and an optional TOML header in the
//! kernel (tiers, profile, tolerance, `expect-fail = "reason"`).

use std::path::PathBuf;

use pto_isa_spec::ProfileId;

/// How a case is executed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// Reference interpreter.
    Interp,
    /// JIT where possible.
    Jit,
    /// Interpreter and JIT side by side, compared at every region exit.
    Crosscheck,
}

/// One conformance case.
#[derive(Clone, Debug)]
pub struct Case {
    /// Case directory.
    pub dir: PathBuf,
    /// Tiers to run.
    pub tiers: Vec<Tier>,
    /// Profile.
    pub profile: ProfileId,
    /// Absolute / relative tolerance for float outputs.
    pub atol: f64,
    /// Relative tolerance.
    pub rtol: f64,
    /// Known failure with its reason; a case that then passes is an error.
    pub expect_fail: Option<String>,
}

/// The outcome of one (case, tier) run.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Outputs matched the goldens.
    Pass,
    /// Outputs differ.
    Mismatch {
        /// Elements that differ.
        count: usize,
        /// Largest absolute error.
        max_abs: f64,
    },
    /// The kernel could not run.
    Error(String),
}
