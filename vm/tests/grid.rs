//! A grid kernel gives the same GM for 1, 2 and 8 blocks.

use pto_vm::{load_text, run_kernel, Arg, Config, Sched};

#[test]
fn two_and_eight_blocks_match_one_block() {
    let path = format!("{}/../examples/grid_abs.pto", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(path).expect("example exists");
    let k = load_text("grid_abs.pto", &src, None).expect("loads");
    let input: Vec<u8> = (0..4096)
        .flat_map(|i| ((i as f32) * if i % 3 == 0 { -0.5 } else { 0.25 }).to_le_bytes())
        .collect();
    let run = |blocks: u32, sched: Sched| {
        let cfg = Config {
            profile: k.profile,
            blocks,
            sched,
            ..Config::default()
        };
        let f = run_kernel(
            &k,
            &cfg,
            None,
            &[Arg::Buffer(input.clone()), Arg::Buffer(vec![0; 4096 * 4])],
        )
        .expect("runs");
        assert_eq!(f.out.error, None, "{blocks} blocks");
        assert!(
            f.out.diags.is_empty(),
            "{blocks} blocks: {:?}",
            f.out.diags.list
        );
        f.buffers[1].clone()
    };
    let one = run(1, Sched::InOrder);
    let want: Vec<u8> = input
        .chunks(4)
        .flat_map(|c| {
            f32::from_le_bytes([c[0], c[1], c[2], c[3]])
                .abs()
                .to_le_bytes()
        })
        .collect();
    assert_eq!(one, want);
    assert_eq!(run(2, Sched::InOrder), one);
    assert_eq!(run(8, Sched::InOrder), one);
    assert_eq!(run(8, Sched::Shuffle { seed: 3 }), one);
    assert_eq!(run(2, Sched::Timed), one);
}
