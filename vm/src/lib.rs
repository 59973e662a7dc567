//! `pto-vm`: the ptovm machine.
//!
//! Status: this crate holds the machine's public shape; execution arrives with
//! the VM issue. The design (see `../shared/ARCHITECTURE.md`):
//!
//! * [`ArchState`]: global memory and, per core, the on-chip buffers sized by the
//!   profile, scalar and vector registers, flag and buffer-token state: a plain
//!   value two runs can compare.
//! * [`Machine`]: configuration, per-pipe in-order queues, the scheduler and the
//!   tracer, stepping an [`ArchState`].
//! * Each core's scalar unit walks the control program and issues every pipe
//!   instruction, operands resolved, into its pipe's queue; the scoreboard
//!   retires queue heads in the order the program's synchronization allows.

use pto_isa_spec::{Pipe, ProfileId};

/// Which ready pipe advances next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Sched {
    /// Program order: fastest, deterministic.
    #[default]
    InOrder,
    /// Cost model with per-op-class latencies; pipes overlap as on hardware.
    Timed,
    /// Adversarial: delays producers as long as synchronization allows.
    Shuffle {
        /// Random seed.
        seed: u64,
    },
}

/// What the happens-before checker does with a finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CheckMode {
    /// Not run.
    Off,
    /// Reported, run continues.
    #[default]
    Warn,
    /// Reported and the run fails.
    Error,
}

/// Run configuration.
#[derive(Clone, Debug)]
pub struct Config {
    /// Target profile.
    pub profile: ProfileId,
    /// Number of blocks (cores) in the grid.
    pub blocks: u32,
    /// Scheduler.
    pub sched: Sched,
    /// Checker mode.
    pub check: CheckMode,
    /// Step limit (0 = none).
    pub max_steps: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            profile: ProfileId::A2A3,
            blocks: 1,
            sched: Sched::InOrder,
            check: CheckMode::Warn,
            max_steps: 0,
        }
    }
}

/// Architectural state: memories, registers, sync state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArchState {
    /// Global memory shared by all cores.
    pub gm: Vec<u8>,
    /// Per-core state.
    pub cores: Vec<CoreState>,
}

/// One core's on-chip state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CoreState {
    /// Unified buffer.
    pub ub: Vec<u8>,
    /// L1.
    pub l1: Vec<u8>,
    /// L0A.
    pub l0a: Vec<u8>,
    /// L0B.
    pub l0b: Vec<u8>,
    /// L0C.
    pub l0c: Vec<u8>,
}

/// The machine: configuration plus state.
#[derive(Debug)]
pub struct Machine {
    /// Configuration.
    pub config: Config,
    /// State.
    pub state: ArchState,
}

/// Per-pipe statistics a run reports.
#[derive(Clone, Debug, Default)]
pub struct PipeStats {
    /// Pipe.
    pub pipe: Option<Pipe>,
    /// Instructions retired.
    pub retired: u64,
    /// Busy cycles (timed scheduler).
    pub busy_cycles: u64,
}
