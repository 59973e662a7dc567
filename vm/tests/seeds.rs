//! The five seed programs of the synchronization contract, run under every
//! scheduler, and every variant with one synchronization op deleted.

use pto_vm::{load_text, run_kernel, Arg, CheckMode, Config, DiagKind, Finished, Kernel, Sched};

const SEEDS: &[(&str, usize)] = &[
    ("01_set_wait_pipeline.pto", 1024),
    ("02_buf_pipeline.pto", 1024),
    ("03_pingpong_set_wait.pto", 2048),
    ("04_pingpong_buf.pto", 2048),
    ("05_mte3_barrier.pto", 1024),
];

fn path(name: &str) -> String {
    format!("{}/../examples/sync/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn input(n: usize, salt: u32) -> Vec<f32> {
    (0..n)
        .map(|i| {
            let x = (i as u32).wrapping_mul(2654435761).wrapping_add(salt) % 2001;
            (x as f32 - 1000.0) / 7.0
        })
        .collect()
}

fn bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn floats(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn load(name: &str, src: &str) -> Kernel {
    load_text(name, src, None).unwrap_or_else(|e| panic!("{name} does not load:\n{e}"))
}

/// Runs a seed and returns (output, expected).
fn run(
    name: &str,
    k: &Kernel,
    n: usize,
    sched: Sched,
    check: CheckMode,
) -> (Finished, Vec<f32>, Vec<f32>) {
    let cfg = Config {
        profile: k.profile,
        sched,
        check,
        max_steps: 5_000_000,
        ..Config::default()
    };
    let a = input(n, 1);
    if name.starts_with("05") {
        let b = input(n, 2);
        let f = run_kernel(
            k,
            &cfg,
            None,
            &[
                Arg::Buffer(bytes(&a)),
                Arg::Buffer(bytes(&b)),
                Arg::Buffer(vec![0; n * 4]),
            ],
        )
        .expect("runs");
        let out = floats(&f.buffers[2]);
        (f, out, b)
    } else {
        let f = run_kernel(
            k,
            &cfg,
            None,
            &[Arg::Buffer(bytes(&a)), Arg::Buffer(vec![0; n * 4])],
        )
        .expect("runs");
        let out = floats(&f.buffers[1]);
        let want = a.iter().map(|x| x.abs()).collect();
        (f, out, want)
    }
}

fn scheds() -> Vec<Sched> {
    let mut v = vec![Sched::InOrder, Sched::Timed];
    v.extend((0..8).map(|seed| Sched::Shuffle { seed }));
    v
}

#[test]
fn seeds_are_correct_and_clean_under_every_scheduler() {
    for (name, n) in SEEDS {
        let src = std::fs::read_to_string(path(name)).expect("seed exists");
        let k = load(name, &src);
        for sched in scheds() {
            let (f, out, want) = run(name, &k, *n, sched, CheckMode::Warn);
            assert_eq!(f.out.error, None, "{name} under {sched:?}");
            let msgs: Vec<String> = f
                .out
                .diags
                .list
                .iter()
                .map(|d| d.render(&k.program, Some(&src)))
                .collect();
            assert!(
                f.out.diags.is_empty(),
                "{name} under {sched:?} reports:\n{}",
                msgs.join("\n")
            );
            assert_eq!(
                out, want,
                "{name} under {sched:?} computes the wrong result"
            );
        }
    }
}

fn sync_lines(src: &str) -> Vec<usize> {
    src.lines()
        .enumerate()
        .filter(|(_, l)| {
            let t = l.trim_start();
            !t.starts_with("//")
                && [
                    "pto.set_flag",
                    "pto.wait_flag",
                    "pto.get_buf",
                    "pto.rls_buf",
                    "pto.barrier",
                ]
                .iter()
                .any(|k| t.starts_with(k))
        })
        .map(|(i, _)| i)
        .collect()
}

fn without_line(src: &str, i: usize) -> String {
    src.lines()
        .enumerate()
        .map(|(j, l)| if j == i { "" } else { l })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_missing_sync_is_diagnosed() {
    let mut total = 0;
    for (name, n) in SEEDS {
        let src = std::fs::read_to_string(path(name)).expect("seed exists");
        for line in sync_lines(&src) {
            total += 1;
            let variant = without_line(&src, line);
            let k = load(name, &variant);
            let (f, _, want) = run(name, &k, *n, Sched::InOrder, CheckMode::Warn);
            let kinds = f.out.diags.kinds();
            let what = format!(
                "{name} without line {}: `{}`",
                line + 1,
                src.lines().nth(line).unwrap_or("").trim()
            );
            assert!(!kinds.is_empty(), "{what}: nothing reported");
            for d in &f.out.diags.list {
                if d.kind == DiagKind::Race || d.kind == DiagKind::SamePipeWaw {
                    let (a, b) = (d.inst.expect("later op"), d.other.expect("earlier op"));
                    let (la, lb) = (k.program.info(a).loc.line, k.program.info(b).loc.line);
                    assert!(
                        la > 0 && lb > 0 && la != lb,
                        "{what}: race must name two lines, got {la} and {lb}"
                    );
                    assert!(d.fix.is_some(), "{what}: race without a suggested fix");
                }
            }
            if kinds.contains(&DiagKind::Deadlock) {
                assert!(f.out.error.is_some(), "{what}: a deadlock stops the run");
                continue;
            }
            // a race that can corrupt data must show up as a wrong result under shuffle
            let corrupting =
                kinds.contains(&DiagKind::Race) || kinds.contains(&DiagKind::SamePipeWaw);
            if corrupting {
                let wrong = (0..20).any(|seed| {
                    let (g, out, _) = run(name, &k, *n, Sched::Shuffle { seed }, CheckMode::Off);
                    g.out.error.is_some() || out != want
                });
                assert!(
                    wrong,
                    "{what}: reported {kinds:?} but no shuffle seed of 20 produced a wrong result"
                );
            }
        }
    }
    assert!(total >= 40, "expected many variants, tried {total}");
}

#[test]
fn prime_without_drain_reports_unpaired_set() {
    let src = std::fs::read_to_string(path("03_pingpong_set_wait.pto")).expect("seed");
    let drains: Vec<usize> = src
        .lines()
        .enumerate()
        .skip_while(|(_, l)| !l.contains("// drain"))
        .filter(|(_, l)| l.trim_start().starts_with("pto.wait_flag"))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(drains.len(), 4);
    let mut v = src.clone();
    for i in drains.iter().rev() {
        v = without_line(&v, *i);
    }
    let k = load("nodrain", &v);
    let (f, out, want) = run("03", &k, 2048, Sched::InOrder, CheckMode::Warn);
    assert_eq!(out, want);
    let unpaired = f
        .out
        .diags
        .list
        .iter()
        .filter(|d| d.kind == DiagKind::UnpairedSet)
        .count();
    assert_eq!(unpaired, 4, "{:?}", f.out.diags.list);
}
