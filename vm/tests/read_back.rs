//! `run_kernel_ranks_reading`: which buffers come back out of GM after a
//! run, buffers handed to a visitor in place, and `Arg::File` buffers filled
//! straight from a file.

use pto_vm::{
    load_text, run_kernel_ranks_reading, run_kernel_ranks_visiting, run_kernel_reading_into, Arg,
    Config, ReadBack,
};

fn vadd() -> pto_vm::Kernel {
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/vadd.pto"))
        .expect("examples/vadd.pto");
    load_text("vadd.pto", &src, None).expect("loads")
}

fn f32s(v: impl Iterator<Item = f32>) -> Vec<u8> {
    v.flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn only_what_is_asked_for_comes_back() {
    let k = vadd();
    let cfg = Config {
        profile: k.profile,
        ..Config::default()
    };
    let x = f32s((0..1024).map(|i| i as f32));
    let y = f32s((0..1024).map(|i| (i % 7) as f32));
    let want = f32s((0..1024).map(|i| i as f32 + (i % 7) as f32));
    let args = [
        Arg::Buffer(x.clone()),
        Arg::Buffer(y),
        Arg::Buffer(vec![0; 4096]),
    ];
    // x unchanged: not copied out and marked; y never; z (changed) read
    let f = run_kernel_ranks_reading(
        &k,
        &cfg,
        None,
        &[&args[..]],
        &[ReadBack::IfChanged, ReadBack::Never, ReadBack::IfChanged],
    )
    .expect("runs");
    assert!(f.out.error.is_none(), "{:?}", f.out.error);
    assert_eq!(f.unchanged, vec![vec![true, false, false]]);
    assert!(f.buffers[0][0].is_empty() && f.buffers[0][1].is_empty());
    assert_eq!(f.buffers[0][2], want);
    // Always reads even an unchanged buffer; a missing entry is Never
    let f =
        run_kernel_ranks_reading(&k, &cfg, None, &[&args[..]], &[ReadBack::Always]).expect("runs");
    assert_eq!(f.buffers[0][0], x);
    assert!(f.buffers[0][2].is_empty());
    assert_eq!(f.unchanged, vec![vec![false; 3]]);
}

/// `run_kernel_reading_into` fills only the asked-for buffers, reusing the
/// caller's vectors run after run, and empties the others.
#[test]
fn reading_into_reuses_the_vectors_of_the_outputs() {
    let k = vadd();
    let cfg = Config {
        profile: k.profile,
        ..Config::default()
    };
    let x = f32s((0..1024).map(|i| i as f32));
    let y = f32s((0..1024).map(|i| (i % 5) as f32));
    let want = f32s((0..1024).map(|i| i as f32 + (i % 5) as f32));
    let args = [Arg::Buffer(x), Arg::Buffer(y), Arg::Buffer(vec![0; 4096])];
    // stale contents from an earlier caller: cleared or overwritten
    let mut bufs = vec![vec![9u8; 10], vec![9u8; 10], vec![9u8; 8192]];
    let modes = [ReadBack::Never, ReadBack::Never, ReadBack::Always];
    for _ in 0..2 {
        let out = run_kernel_reading_into(&k, &cfg, None, &args, &modes, &mut bufs).expect("runs");
        assert!(out.error.is_none(), "{:?}", out.error);
        assert!(bufs[0].is_empty() && bufs[1].is_empty());
        assert_eq!(bufs[2], want);
        assert!(bufs[2].capacity() >= 8192, "the output's vector was reused");
    }
}

/// An `Arg::Zeros` buffer reads as zeros, also where an earlier run of the
/// process placed other data in the (reused) GM, and comes back as zeros
/// when the kernel leaves it alone.
#[test]
fn zeros_buffers_read_as_zeros_in_a_reused_gm() {
    let k = vadd();
    let cfg = Config {
        profile: k.profile,
        ..Config::default()
    };
    let x = f32s((0..1024).map(|i| i as f32 - 300.0));
    let y = f32s((0..1024).map(|i| (i % 13) as f32 + 0.5));
    let modes = [ReadBack::Never, ReadBack::Always, ReadBack::Always];
    let mut bufs = Vec::new();
    for _ in 0..3 {
        // y's bytes where the zeros go next
        let args = [
            Arg::Buffer(x.clone()),
            Arg::Buffer(y.clone()),
            Arg::Buffer(vec![0; 4096]),
        ];
        run_kernel_reading_into(&k, &cfg, None, &args, &modes, &mut bufs).expect("runs");
        let args = [Arg::Buffer(x.clone()), Arg::Zeros(4096), Arg::Zeros(4096)];
        let out = run_kernel_reading_into(&k, &cfg, None, &args, &modes, &mut bufs).expect("runs");
        assert!(out.error.is_none(), "{:?}", out.error);
        assert_eq!(bufs[1], vec![0; 4096], "the zeros input stayed zero");
        assert_eq!(bufs[2], x, "x + 0 = x");
    }
    // IfChanged: an untouched zeros buffer is marked unchanged
    let args = [Arg::Buffer(x.clone()), Arg::Zeros(4096), Arg::Zeros(4096)];
    let f = run_kernel_ranks_reading(
        &k,
        &cfg,
        None,
        &[&args[..]],
        &[ReadBack::Never, ReadBack::IfChanged, ReadBack::IfChanged],
    )
    .expect("runs");
    assert_eq!(f.unchanged, vec![vec![false, true, false]]);
}

/// A `Visit` buffer reaches the visitor with its final bytes, on every
/// rank, and comes back empty; the others follow their own modes.
#[test]
fn visited_buffers_are_handed_over_in_place() {
    let k = vadd();
    let cfg = Config {
        profile: k.profile,
        ..Config::default()
    };
    let per_rank: Vec<Vec<Arg>> = (0..2)
        .map(|r| {
            vec![
                Arg::Buffer(f32s((0..1024).map(|i| (i + r) as f32))),
                Arg::Buffer(f32s((0..1024).map(|i| (i % 5) as f32))),
                Arg::Buffer(vec![0; 4096]),
            ]
        })
        .collect();
    let mut seen = Vec::new();
    let f = run_kernel_ranks_visiting(
        &k,
        &cfg,
        None,
        &per_rank,
        &[ReadBack::Never, ReadBack::Always, ReadBack::Visit],
        &mut |r, i, bytes| seen.push((r, i, bytes.to_vec())),
    )
    .expect("runs");
    assert!(f.out.error.is_none(), "{:?}", f.out.error);
    assert_eq!(seen.len(), 2);
    for (r, (sr, si, bytes)) in seen.into_iter().enumerate() {
        assert_eq!((sr, si), (r, 2));
        assert_eq!(
            bytes,
            f32s((0..1024).map(|i| (i + r) as f32 + (i % 5) as f32)),
            "rank {r}"
        );
        assert!(f.buffers[r][2].is_empty() && f.buffers[r][0].is_empty());
        assert_eq!(f.buffers[r][1], f32s((0..1024).map(|i| (i % 5) as f32)));
    }
}

#[test]
fn file_buffers_read_straight_into_gm() {
    let k = vadd();
    let cfg = Config {
        profile: k.profile,
        ..Config::default()
    };
    let dir = std::env::temp_dir().join(format!("ptovm-read-back-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let xp = dir.join("x.bin");
    // 1000 of the 1024 elements: the rest of the buffer starts as zeros
    std::fs::write(&xp, f32s((0..1000).map(|i| i as f32 * 0.5))).expect("write");
    let y = f32s((0..1024).map(|i| (i % 3) as f32));
    let args = [
        Arg::File {
            path: xp.clone(),
            offset: 0,
            len: 4096,
        },
        Arg::Buffer(y),
        Arg::Buffer(vec![0; 4096]),
    ];
    let modes = [ReadBack::IfChanged, ReadBack::Never, ReadBack::Always];
    let f = run_kernel_ranks_reading(&k, &cfg, None, &[&args[..]], &modes).expect("runs");
    let want =
        f32s((0..1024).map(|i| if i < 1000 { i as f32 * 0.5 } else { 0.0 } + (i % 3) as f32));
    assert_eq!(f.buffers[0][2], want);
    // the file's buffer is unchanged, compared against the file itself
    assert!(f.unchanged[0][0]);
    // a file that is gone is an error of the run, not a panic
    std::fs::remove_file(&xp).expect("rm");
    let e = run_kernel_ranks_reading(&k, &cfg, None, &[&args[..]], &modes).unwrap_err();
    assert!(e.contains("cannot read") && e.contains("x.bin"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
