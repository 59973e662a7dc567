//! Runs one end-to-end benchmark kernel N times (for profilers).
//! `cargo run --release -p pto-benches --example prof_e2e -- KERNEL TIER N`
use pto_vm::{load_text, run_kernel_into, Arg, CheckMode, Config, JitMode};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let root = env!("CARGO_MANIFEST_DIR");
    let (src, name) = match a[1].as_str() {
        "pp256" => (
            std::fs::read_to_string(format!("{root}/../examples/sync/03_pingpong_set_wait.pto"))
                .unwrap()
                .replace(
                    "%c8 = arith.constant 8 : index",
                    "%c8 = arith.constant 256 : index",
                ),
            "pp256.pto",
        ),
        "pp4k" => (
            std::fs::read_to_string(format!("{root}/kernels/pingpong_4k.pto")).unwrap(),
            "pp4k.pto",
        ),
        "softmax" => (
            std::fs::read_to_string(format!("{root}/kernels/softmax_rows.pto")).unwrap(),
            "softmax.pto",
        ),
        "rmsnorm" => (
            std::fs::read_to_string(format!("{root}/kernels/rmsnorm_rows.pto")).unwrap(),
            "rmsnorm.pto",
        ),
        k if k.ends_with(".pto") => (std::fs::read_to_string(k).unwrap(), "file.pto"),
        k => panic!("unknown {k}"),
    };
    let jit = if a[2] == "jit" {
        JitMode::Always
    } else {
        JitMode::Off
    };
    let n: usize = a[3].parse().unwrap();
    let k = load_text(name, &src, None).unwrap();
    let x: Vec<u8> = (0..65536)
        .flat_map(|i| (((i * 37) % 101) as f32 * 0.03 - 1.5).to_le_bytes())
        .collect();
    let args = vec![Arg::Buffer(x), Arg::Buffer(vec![0; 262144])];
    let cfg = Config {
        profile: k.profile,
        jit,
        check: if std::env::var("CHECK_OFF").is_ok() {
            CheckMode::Off
        } else {
            CheckMode::Warn
        },
        ..Config::default()
    };
    let mut bufs = Vec::new();
    let o = run_kernel_into(&k, &cfg, None, &args, &mut bufs).unwrap();
    eprintln!(
        "pipe insts {} ops {}",
        o.pipe_insts,
        o.op_counts.iter().sum::<u64>()
    );
    let t = std::time::Instant::now();
    timed(n, &k, &cfg, &args, &mut bufs);
    eprintln!("{:.1} us/run", t.elapsed().as_secs_f64() * 1e6 / n as f64);
}

#[inline(never)]
fn timed(n: usize, k: &pto_vm::Kernel, cfg: &Config, args: &[Arg], bufs: &mut Vec<Vec<u8>>) {
    for _ in 0..n {
        let out = run_kernel_into(k, cfg, None, args, bufs).unwrap();
        assert!(out.error.is_none() && out.diags.list.is_empty());
    }
}
