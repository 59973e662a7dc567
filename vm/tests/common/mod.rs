//! Helpers the compiled-scope tests share.

use pto_vm::{load_text, run_kernel, Arg, CheckMode, Config, JitMode, JitStats};

/// What one run of an `(x, y, z)` kernel left.
pub struct Ran {
    /// z's final bytes.
    pub z: Vec<u8>,
    /// Executions per instruction.
    pub counts: Vec<u64>,
    /// The run's fault, if any.
    pub error: Option<String>,
    /// Diagnostics.
    pub diags: usize,
    /// JIT statistics.
    pub jit: JitStats,
}

/// Runs a kernel of three buffers (x and y given, z of `z` bytes of 0xa5)
/// with the checker on.
pub fn run_xyz(src: &str, x: &[u8], y: &[u8], z: usize, jit: JitMode, crosscheck: bool) -> Ran {
    let k = load_text("k.pto", src, None).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let cfg = Config {
        profile: k.profile,
        jit,
        crosscheck,
        check: CheckMode::Warn,
        ..Config::default()
    };
    let args = [
        Arg::Buffer(x.to_vec()),
        Arg::Buffer(y.to_vec()),
        Arg::Buffer(vec![0xa5; z]),
    ];
    let f = run_kernel(&k, &cfg, None, &args).expect("runs");
    Ran {
        z: f.buffers[2].clone(),
        counts: f.out.op_counts.clone(),
        error: f.out.error.as_ref().map(|e| format!("{e:?}")),
        diags: f.out.diags.list.len(),
        jit: f.out.jit.clone(),
    }
}
