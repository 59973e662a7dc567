//! VM benchmarks: checker overhead (`--check=warn` vs `off`) on a loop-heavy
//! kernel, and scheduler throughput in pipe instructions per second for the
//! `inorder` and `timed` schedulers.
//!
//! The kernel is the ping-pong seed (examples/sync/03_pingpong_set_wait.pto)
//! stretched to 256 tiles: per tile one DMA in, one vector scope (4 x vlds,
//! vabs, vsts), one DMA out and 8 sync ops.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pto_vm::{load_text, run_kernel, Arg, CheckMode, Config, Kernel, Sched};

const TILES: usize = 256;

fn kernel() -> Kernel {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/sync/03_pingpong_set_wait.pto"
    );
    let src = std::fs::read_to_string(path).expect("seed kernel");
    let src = src.replace(
        "%c8 = arith.constant 8 : index",
        &format!("%c8 = arith.constant {TILES} : index"),
    );
    load_text("pingpong.pto", &src, None).expect("loads")
}

fn args() -> Vec<Arg> {
    let n = TILES * 256;
    let input: Vec<u8> = (0..n)
        .flat_map(|i| (i as f32 - 1000.0).to_le_bytes())
        .collect();
    vec![Arg::Buffer(input), Arg::Zeros(n as u64 * 4)]
}

fn run(k: &Kernel, args: &[Arg], sched: Sched, check: CheckMode) -> u64 {
    let cfg = Config {
        profile: k.profile,
        sched,
        check,
        ..Config::default()
    };
    let f = run_kernel(k, &cfg, None, args).expect("runs");
    assert!(f.out.error.is_none() && f.out.diags.is_empty());
    f.out.pipe_insts
}

fn bench(c: &mut Criterion) {
    let k = kernel();
    let a = args();
    let insts = run(&k, &a, Sched::InOrder, CheckMode::Off);
    let mut g = c.benchmark_group("vm/pingpong256");
    g.sample_size(10);
    g.throughput(Throughput::Elements(insts));
    g.bench_function("inorder/check=off", |b| {
        b.iter(|| run(&k, &a, Sched::InOrder, CheckMode::Off))
    });
    g.bench_function("inorder/check=warn", |b| {
        b.iter(|| run(&k, &a, Sched::InOrder, CheckMode::Warn))
    });
    g.bench_function("timed/check=off", |b| {
        b.iter(|| run(&k, &a, Sched::Timed, CheckMode::Off))
    });
    g.bench_function("timed/check=warn", |b| {
        b.iter(|| run(&k, &a, Sched::Timed, CheckMode::Warn))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
