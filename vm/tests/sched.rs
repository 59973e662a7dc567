//! The scheduler's cached readiness against a full rescan.
//!
//! The in-order, timed and shuffle schedulers pick from a per-core cache of
//! which agents can run, which the machine updates only where state changes
//! (a push, a pop, a token set or taken, a buffer or semaphore change). In
//! builds with debug assertions (`cargo test`'s default) every pick is
//! checked against a rescan of every scalar unit and queue head, and a
//! stale entry panics: the block's run ends in an internal error. These
//! tests run every example (single core, mixed cube + vector clusters,
//! grids, ranks, the diagnostics with their deadlocks and double sets)
//! under every scheduler and several shuffle seeds through a debug
//! `pto-run`, so a state change without its hook shows up as that error.

use std::process::Command;

fn examples(dir: &str) -> Vec<String> {
    let root = format!("{}/../examples/{dir}", env!("CARGO_MANIFEST_DIR"));
    let mut v: Vec<String> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{root}: {e}"))
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "pto"))
        .map(|p| p.display().to_string())
        .collect();
    v.sort();
    v
}

/// Extra arguments an example needs (from its header comment).
fn extra(path: &str) -> Vec<&'static str> {
    if path.ends_with("comm/ring_put.pto") {
        vec![
            "--ranks",
            "2",
            "--arg",
            "sig=zeros:i32:1",
            "--arg",
            "peer_recv=peer:recv:+1",
            "--arg",
            "peer_sig=peer:sig:+1",
        ]
    } else if path.ends_with("grid_abs.pto") {
        vec!["--blocks", "3"]
    } else {
        vec![]
    }
}

fn scheds() -> Vec<Vec<String>> {
    let mut v = vec![
        vec!["--sched".to_string(), "inorder".to_string()],
        vec!["--sched".to_string(), "timed".to_string()],
    ];
    for seed in [1, 3, 7, 11, 29] {
        v.push(vec![
            "--sched".into(),
            "shuffle".into(),
            "--seed".into(),
            seed.to_string(),
        ]);
    }
    v
}

fn check_all(dir: &str) {
    let kernels = examples(dir);
    assert!(!kernels.is_empty(), "no examples in {dir}");
    let mut runs = 0;
    for k in &kernels {
        for s in scheds() {
            let o = Command::new(env!("CARGO_BIN_EXE_pto-run"))
                .arg(k)
                .args(extra(k))
                .args(&s)
                .args(["--check", "warn", "--timeout", "120"])
                .output()
                .expect("pto-run starts");
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(
                !err.contains("stale scheduler readiness") && !err.contains("internal error"),
                "{k} {s:?}: the scheduler's cache disagrees with a rescan:\n{err}"
            );
            // 0 clean, 1 findings, 3 fault (diagnostics examples); never a
            // setup error or a crash
            let code = o.status.code();
            assert!(
                matches!(code, Some(0 | 1 | 3)),
                "{k} {s:?}: exit {code:?}\n{err}"
            );
            runs += 1;
        }
    }
    assert_eq!(runs, kernels.len() * scheds().len());
}

#[test]
fn top_level_examples_pick_from_a_fresh_cache() {
    check_all("");
}

#[test]
fn sync_examples_pick_from_a_fresh_cache() {
    check_all("sync");
}

#[test]
fn diagnostics_examples_pick_from_a_fresh_cache() {
    check_all("diagnostics");
}

#[test]
fn comm_examples_pick_from_a_fresh_cache() {
    check_all("comm");
}
