//! `Config::watch_lines` (`--watch`): what the instructions of a source line
//! produced, each time they complete, in the interpreter.

use pto_vm::{load_text, run_kernel, Arg, Config, JitMode, WatchLine};

fn example(rel: &str) -> String {
    std::fs::read_to_string(format!("{}/../examples/{rel}", env!("CARGO_MANIFEST_DIR")))
        .expect("example exists")
}

/// The 1-based line of the first source line containing `pat`.
fn line_of(src: &str, pat: &str) -> u32 {
    src.lines().position(|l| l.contains(pat)).expect(pat) as u32 + 1
}

fn f32s(v: impl Iterator<Item = f32>) -> Vec<u8> {
    v.flat_map(|x| x.to_le_bytes()).collect()
}

/// A tile op shows its destination tile, a store its view: the values the
/// kernel computed (x + y), with the range over the valid region.
#[test]
fn a_tile_op_shows_its_destination_and_a_store_its_view() {
    let src = example("vadd.pto");
    let k = load_text("vadd.pto", &src, None).expect("loads");
    let (add, store) = (line_of(&src, "pto.tadd"), line_of(&src, "pto.tstore"));
    let cfg = Config {
        profile: k.profile,
        jit: JitMode::Off,
        watch_lines: vec![
            WatchLine { line: add, max: 8 },
            WatchLine {
                line: store,
                max: 8,
            },
        ],
        ..Config::default()
    };
    let x = f32s((0..1024).map(|i| i as f32 * 0.5));
    let y = f32s((0..1024).map(|i| (i % 4) as f32));
    let f = run_kernel(
        &k,
        &cfg,
        None,
        &[Arg::Buffer(x), Arg::Buffer(y), Arg::Buffer(vec![0; 4096])],
    )
    .expect("runs");
    assert!(f.out.error.is_none(), "{:?}", f.out.error);
    let w = &f.out.watch;
    assert_eq!(w.len(), 2, "{w:?}");
    assert_eq!((w[0].line, w[0].hit, w[0].block), (add, 1, 0));
    // x[1023] + y[1023] = 511.5 + 3 is the largest element
    assert!(
        w[0].text
            .starts_with("UB tile f32 32x32 (valid 32x32): min 0, max 514.5\n    [0, 1.5, 3, 4.5, 2, 3.5, 5, 6.5, ...]\n"),
        "{}",
        w[0].text
    );
    assert!(
        w[1].text
            .starts_with("GM view f32 32x32: min 0, max 514.5\n    [0, 1.5, 3, 4.5,"),
        "{}",
        w[1].text
    );
    assert_eq!(f.out.watch_counts, vec![(add, 1), (store, 1)]);
    let text = pto_vm::machine::watch::render(&k.program, &f.out, false).join("");
    assert!(
        text.contains(&format!(
            "watch vadd.pto:{add}:5 'pto.tadd' #1 (block 0): UB tile"
        )),
        "{text}"
    );
}

/// Vector ops inside a scope show their registers, scalar instructions their
/// values; a line's reports stop at its limit and its executions are still
/// counted (and said so when rendered).
#[test]
fn scope_registers_scalars_and_limits() {
    let src = example("sync/03_pingpong_set_wait.pto");
    let k = load_text("pp.pto", &src, None).expect("loads");
    let (mul, abs) = (line_of(&src, "arith.muli %i"), line_of(&src, "pto.vabs"));
    let cfg = Config {
        profile: k.profile,
        jit: JitMode::Off,
        watch_lines: vec![
            WatchLine { line: mul, max: 3 },
            WatchLine { line: abs, max: 1 },
        ],
        ..Config::default()
    };
    // the ping-pong kernel takes |x| of 2048 floats
    let x = f32s((0..2048).map(|i| -(i as f32)));
    let f = run_kernel(
        &k,
        &cfg,
        None,
        &[Arg::Buffer(x), Arg::Buffer(vec![0; 8192])],
    )
    .expect("runs");
    assert!(f.out.error.is_none(), "{:?}", f.out.error);
    let muls: Vec<&str> = f
        .out
        .watch
        .iter()
        .filter(|w| w.line == mul)
        .map(|w| w.text.as_str())
        .collect();
    assert_eq!(muls, vec!["0\n", "512\n", "1024\n"]);
    let abs_reports: Vec<_> = f.out.watch.iter().filter(|w| w.line == abs).collect();
    assert_eq!(abs_reports.len(), 1);
    assert!(
        abs_reports[0]
            .text
            .starts_with("vreg 64 x f32: min 0, max 63\n    [0, 1, 2, 3,"),
        "{}",
        abs_reports[0].text
    );
    // a vsts shows what it stored
    let st = line_of(&src, "pto.vsts %a, %out0");
    let cfg = Config {
        watch_lines: vec![WatchLine { line: st, max: 1 }],
        ..cfg.clone()
    };
    let g = run_kernel(
        &k,
        &cfg,
        None,
        &[
            Arg::Buffer(f32s((0..2048).map(|i| -(i as f32)))),
            Arg::Buffer(vec![0; 8192]),
        ],
    )
    .expect("runs");
    assert!(
        g.out.watch[0]
            .text
            .starts_with("stored vreg 64 x f32: min 0, max 63\n"),
        "{}",
        g.out.watch[0].text
    );
    let counts = f.out.watch_counts.clone();
    assert!(
        counts.contains(&(mul, 4)) && counts.iter().any(|c| c.0 == abs && c.1 > 1),
        "{counts:?}"
    );
    let text = pto_vm::machine::watch::render(&k.program, &f.out, false).join("");
    assert!(
        text.contains(&format!("watch pp.pto:{mul}: 4 execution(s), 3 shown")),
        "{text}"
    );
}

/// A DMA shows its first burst at the destination.
#[test]
fn a_dma_shows_its_first_burst() {
    let src = example("sync/03_pingpong_set_wait.pto");
    let k = load_text("pp.pto", &src, None).expect("loads");
    let dma = line_of(&src, "pto.mte_gm_ub %g0");
    let cfg = Config {
        profile: k.profile,
        jit: JitMode::Off,
        watch_lines: vec![WatchLine { line: dma, max: 2 }],
        ..Config::default()
    };
    let x = f32s((0..2048).map(|i| i as f32));
    let f = run_kernel(
        &k,
        &cfg,
        None,
        &[Arg::Buffer(x), Arg::Buffer(vec![0; 8192])],
    )
    .expect("runs");
    let w = &f.out.watch;
    assert_eq!(w.len(), 2, "{w:?}");
    assert_eq!(
        w[0].text,
        "GM -> UB 0x0: 1 burst(s) of 1024 bytes; burst as 256 x f32: min 0, max 255\n    [0, 1, 2, 3, 4, 5, 6, 7, ...]\n"
    );
    // the second ping tile: elements 512..768
    assert!(w[1].text.contains("min 512, max 767"), "{}", w[1].text);
}

/// A cube op shows the first range it wrote, in the type of its operand
/// pointer into that buffer (storage order), also with the checker off.
#[test]
fn a_cube_op_shows_what_it_wrote() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../conformance/cases/cube/copy_matrix_cc_two_layer_f16_a5_16x16x16"
    );
    let src = std::fs::read_to_string(format!("{dir}/kernel.pto")).expect("case kernel");
    let mad = line_of(&src, "    pto.mad %l0a, %l0b, %l0c");
    let back = line_of(&src, "    pto.copy_matrix_cc_to_gm %l0c, %c_gm");
    let mut opts = pto_vm::case::CaseOptions::default();
    opts.config.check = pto_vm::CheckMode::Off;
    opts.config.watch_lines = vec![
        WatchLine { line: mad, max: 1 },
        WatchLine { line: back, max: 1 },
    ];
    let r = pto_vm::case::run_case(std::path::Path::new(dir), &opts).expect("runs");
    assert_eq!(r.code, 0, "{:?}", r.error);
    assert!(
        r.watch[0].contains(&format!(
            ":{mad}:5 'pto.mad' #1 (block 0): wrote L0C [0x0, 0x400): 256 x f32: min "
        )),
        "{}",
        r.watch[0]
    );
    assert!(
        r.watch[1].contains("wrote bytes [0x0, 0x400) of %c_gm: 256 x f32: min "),
        "{}",
        r.watch[1]
    );
}

/// Lines without an instruction are named; without watches nothing is kept.
#[test]
fn unwatchable_lines_are_named_and_no_watch_costs_nothing() {
    let src = example("vadd.pto");
    let k = load_text("vadd.pto", &src, None).expect("loads");
    let m = pto_vm::machine::watch::missing_lines(
        &k.program,
        &[
            WatchLine { line: 1, max: 8 },
            WatchLine { line: 9999, max: 8 },
        ],
    );
    assert_eq!(
        m.as_deref(),
        Some("--watch 1, 9999: no instruction on that line of vadd.pto")
    );
    let cfg = Config {
        profile: k.profile,
        ..Config::default()
    };
    let f = run_kernel(&k, &cfg, None, &[]).expect("runs");
    assert!(f.out.watch.is_empty() && f.out.watch_counts.is_empty());
}
