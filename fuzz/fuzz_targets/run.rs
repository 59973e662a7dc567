//! Fuzzes execution: bytes -> lossy UTF-8 -> parse + verify + lower; a kernel
//! that is accepted runs its entry on a small GM (every pointer argument bound to
//! a 4 KiB patterned buffer, scalars to small values) under a step limit and a
//! wall-clock deadline, first interpreted, then with every eligible region
//! compiled and cross-checked against the interpreter; half of the inputs run
//! on two ranks, the input's sum also picks one or two blocks, the
//! scheduler, and whether one instruction's line is watched (`--watch`). A
//! fault, deadlock, limit
//! or timeout is a fine outcome; a panic, an abort, a runaway allocation, a hang
//! or a crosscheck mismatch (JIT and interpreter disagree) is a finding.

#![no_main]

use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use pto_vm::program::ArgType;
use pto_vm::{Arg, CheckMode, Config, JitMode, RunError, Sched, Watch};

/// Bytes per pointer argument.
const BUF: usize = 4096;

fn args(kernel: &pto_vm::Kernel, entry: usize) -> Option<Vec<Arg>> {
    let f = &kernel.program.funcs[entry];
    let mut out = Vec::new();
    for (i, t) in f.arg_types.iter().enumerate() {
        out.push(match t {
            ArgType::GmPtr(_) => {
                Arg::Buffer((0..BUF).map(|k| ((k * 37 + i * 11) % 251) as u8).collect())
            }
            ArgType::Int(_) => Arg::Int(i as i64 + 2),
            ArgType::Float(_) => Arg::Float(0.5 + i as f64),
            // pto-run refuses these too
            ArgType::Other(_) => return None,
        });
    }
    Some(out)
}

fn config(kernel: &pto_vm::Kernel, salt: u8, jit: JitMode) -> Config {
    Config {
        profile: kernel.profile,
        blocks: 1 + u32::from(salt & 1),
        sched: if salt & 2 == 0 {
            Sched::InOrder
        } else {
            Sched::Shuffle {
                seed: u64::from(salt),
            }
        },
        check: CheckMode::Warn,
        max_steps: 20_000,
        jit,
        jit_threshold: 1,
        crosscheck: jit != JitMode::Off,
        watch: Some(Watch {
            deadline: Some(Instant::now() + Duration::from_secs(3)),
            ..Watch::default()
        }),
        ..Config::default()
    }
}

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    let Ok(kernel) = pto_vm::load_text("fuzz.pto", &src, None) else {
        return;
    };
    let Some(entry) = kernel.program.entry(None) else {
        return;
    };
    let Some(args) = args(&kernel, entry) else {
        return;
    };
    let salt = data.iter().fold(0u8, |a, b| a.wrapping_add(*b));
    // half of the inputs on two ranks (each with its own copy of the
    // arguments), so the cross-rank and rank-by-block checks run too
    let ranks = if salt & 4 == 0 { 1 } else { 2 };
    let per_rank = vec![args; ranks];
    // every other input also watches the line of one of its instructions
    let watch: Vec<pto_vm::WatchLine> = kernel
        .program
        .insts
        .get(usize::from(salt) * 7 % kernel.program.insts.len().max(1))
        .filter(|_| salt & 8 != 0)
        .map(|i| pto_vm::WatchLine {
            line: i.loc.line,
            max: 2,
        })
        .into_iter()
        .collect();
    for jit in [JitMode::Off, JitMode::Always] {
        let cfg = pto_vm::Config {
            watch_lines: watch.clone(),
            ..config(&kernel, salt, jit)
        };
        let Ok(fin) = pto_vm::run_kernel_ranks(&kernel, &cfg, None, &per_rank) else {
            return;
        };
        // every fault names an instruction of the program
        if let Some(RunError::Fault { inst, message }) = &fin.out.error {
            let _ = kernel.program.info(*inst).loc;
            assert!(
                !message.starts_with("crosscheck"),
                "JIT and interpreter disagree: {message}"
            );
        }
        for d in &fin.out.diags.list {
            let _ = d.render(&kernel.program, kernel.source.as_deref());
        }
        let _ = pto_vm::machine::watch::render(&kernel.program, &fin.out, ranks > 1);
    }
});
