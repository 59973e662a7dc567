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

/// A DMA shows its destination, one row per burst.
#[test]
fn a_dma_shows_its_destination() {
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
        "GM -> UB 0x0: 1 burst(s) of 1024 bytes; as 1 x 256 f32: min 0, max 255\n    [0, 1, 2, 3, 4, 5, 6, 7, ...]\n"
    );
    // the second ping tile: elements 512..768
    assert!(w[1].text.contains("min 512, max 767"), "{}", w[1].text);
}

/// A `mad` shows its result matrix and a raw FIXPIPE write-back
/// (`copy_matrix_cc_to_gm`) the result as it wrote it, also with the
/// checker off.
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
            ":{mad}:5 'pto.mad' #1 (block 0): L0C 0x0 as the 16x16 f32 result: min "
        )),
        "{}",
        r.watch[0]
    );
    // the raw write-back: its 16 x 16 ND result, as the golden has it
    let text = &r.watch[1];
    assert!(
        text.contains("%c_gm + 0x0 as the 16x16 f32 result as written (ND): min "),
        "{text}"
    );
    let golden: Vec<f64> = std::fs::read(format!("{dir}/golden_v3.bin"))
        .expect("golden")
        .chunks_exact(4)
        .map(|b| f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])))
        .collect();
    for (i, row) in shown_rows(text).iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            let want = golden[i * 16 + j];
            assert!(
                (v - want).abs() <= 1e-5,
                "({i}, {j}): {v} vs {want}\n{text}"
            );
        }
    }
}

/// A DMA of several bursts shows one row per burst at its destination
/// addresses (here 4 bursts of 8 f32, 64 bytes apart in UB).
#[test]
fn a_strided_dma_shows_one_row_per_burst() {
    let src = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%x: !pto.ptr<f32, gm>, %y: !pto.ptr<f32, gm>) attributes {pto.entry} {
    %c0_i64 = arith.constant 0 : i64
    %c4_i64 = arith.constant 4 : i64
    %c32_i64 = arith.constant 32 : i64
    %c64_i64 = arith.constant 64 : i64
    %u = pto.castptr %c0_i64 : i64 -> !pto.ptr<f32, ub>
    pto.mte_gm_ub %x, %u, %c0_i64, %c32_i64 nburst(%c4_i64, %c32_i64, %c64_i64) : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.mte_ub_gm %u, %y, %c32_i64 nburst(%c4_i64, %c64_i64, %c32_i64) : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
    return
  }
}
"#;
    let k = load_text("strided.pto", src, None).expect("loads");
    let cfg = Config {
        profile: k.profile,
        jit: JitMode::Off,
        watch_lines: vec![WatchLine {
            line: line_of(src, "pto.mte_gm_ub"),
            max: 1,
        }],
        ..Config::default()
    };
    let x = f32s((0..64).map(|i| i as f32));
    let f = run_kernel(&k, &cfg, None, &[Arg::Buffer(x), Arg::Buffer(vec![0; 128])]).expect("runs");
    assert!(f.out.error.is_none(), "{:?}", f.out.error);
    let w = &f.out.watch;
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(
        w[0].text,
        "GM -> UB 0x0: 4 burst(s) of 32 bytes; as 4 x 8 f32: min 0, max 31\n    \
         [0, 1, 2, 3, 4, 5, 6, 7]\n    [8, 9, 10, 11, 12, 13, 14, 15]\n    \
         [16, 17, 18, 19, 20, 21, 22, 23]\n    [24, 25, 26, 27, 28, 29, 30, 31]\n"
    );
}

/// A `mad` shows its result as the M x N matrix, not in L0C's fractal
/// order: here 20 x 24 (two 16-wide column blocks, rows padded to 32),
/// checked against what FIXPIPE then writes to GM as ND.
#[test]
fn a_mad_shows_its_m_by_n_result() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../conformance/cases/cube/mad_bias_acc_f16_a5_20x40x24"
    );
    let src = std::fs::read_to_string(format!("{dir}/kernel.pto")).expect("case kernel");
    let mad = line_of(&src, "    pto.mad_bias %l0a");
    let mut opts = pto_vm::case::CaseOptions::default();
    opts.config.watch_lines = vec![WatchLine { line: mad, max: 1 }];
    let r = pto_vm::case::run_case(std::path::Path::new(dir), &opts).expect("runs");
    assert_eq!(r.code, 0, "{:?}", r.error);
    let text = &r.watch[0];
    assert!(
        text.contains("L0C 0x0 as the 20x24 f32 result: min "),
        "{text}"
    );
    assert!(text.contains("... 12 more rows"), "{text}");
    // the ND copy FIXPIPE writes next
    let golden: Vec<f32> = std::fs::read(format!("{dir}/golden_v4.bin"))
        .expect("golden")
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    assert_eq!(golden.len(), 20 * 24);
    let rows = shown_rows(text);
    // min and max over all 20 x 24, the second column block included
    let (lo, hi) = golden.iter().fold((f64::MAX, f64::MIN), |(l, h), g| {
        (l.min(f64::from(*g)), h.max(f64::from(*g)))
    });
    for (got, want) in [
        (shown_stat(text, "min "), lo),
        (shown_stat(text, "max "), hi),
    ] {
        assert!(
            (got - want).abs() <= 1e-3 * want.abs().max(1.0),
            "{got} vs {want}\n{text}"
        );
    }
    assert_eq!(rows.len(), 8, "{text}");
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.len(), 8, "{text}");
        for (j, v) in row.iter().enumerate() {
            let g = f64::from(golden[i * 24 + j]);
            assert!(
                (v - g).abs() <= 1e-3 * g.abs().max(1.0),
                "({i}, {j}): {v} vs {g}\n{text}"
            );
        }
    }
}

/// The rows of numbers a report's grid shows (its corner, `...` dropped).
fn shown_rows(text: &str) -> Vec<Vec<f64>> {
    text.lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix('[')?
                .strip_suffix(']')
                .map(str::to_owned)
        })
        .map(|l| {
            l.split(", ")
                .filter(|v| *v != "...")
                .map(|v| v.parse::<f64>().expect("a number"))
                .collect()
        })
        .collect()
}

/// The number after `key` (`"min "`, `"max "`) in a report.
fn shown_stat(text: &str, key: &str) -> f64 {
    let at = text.find(key).expect(key) + key.len();
    let v: String = text[at..]
        .chars()
        .take_while(|c| !matches!(c, ',' | '\n'))
        .collect();
    v.trim().parse().expect("a number")
}

/// The NZ copy of a GM matrix into L1 and the L0A/L0B loads show the
/// matrices they moved in their logical shape (M x K, K x N), and FIXPIPE
/// write-backs the M x N result as they wrote it (ND or DN in GM), not in
/// storage order: checked against the case's inputs and goldens, corner
/// element by element and min/max over the whole matrix.
#[test]
fn cube_operands_show_as_their_logical_matrices() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../conformance/cases/cube/mad_bias_acc_f16_a5_20x40x24"
    );
    let src = std::fs::read_to_string(format!("{dir}/kernel.pto")).expect("case kernel");
    let f16s = |name: &str| -> Vec<f64> {
        std::fs::read(format!("{dir}/{name}"))
            .expect("input")
            .chunks_exact(2)
            .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f64())
            .collect()
    };
    let f32s = |name: &str| -> Vec<f64> {
        std::fs::read(format!("{dir}/{name}"))
            .expect("golden")
            .chunks_exact(4)
            .map(|b| f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])))
            .collect()
    };
    let (a, b) = (f16s("v1.bin"), f16s("v2.bin"));
    // the FIXPIPE write-backs: C (ND, 20 x 24) and T (DN, columns of 20)
    let (c, t) = (f32s("golden_v4.bin"), f32s("golden_v6.bin"));
    // (line, report head, data, element (i, j) of it at i * rs + j * cs)
    for (needle, head, data, (rs, cs)) in [
        (
            "    pto.mte_gm_l1_frac %a_gm",
            "L1 0x0 as the 20x40 f16 matrix: min ",
            &a,
            (40, 1),
        ),
        (
            "    pto.mte_l1_l0a",
            "L0A 0x0 as the 20x40 f16 left operand (M x K): min ",
            &a,
            (40, 1),
        ),
        (
            "    pto.mte_l1_l0b",
            "L0B 0x0 as the 40x24 f16 right operand (K x N): min ",
            &b,
            (24, 1),
        ),
        (
            "    pto.mte_l0c_gm %l0c, %c_gm",
            "%c_gm + 0x0 as the 20x24 f32 result as written (ND): min ",
            &c,
            (24, 1),
        ),
        (
            "    pto.mte_l0c_gm %l0c, %t_gm",
            "%t_gm + 0x0 as the 20x24 f32 result as written (DN): min ",
            &t,
            (1, 20),
        ),
    ] {
        let mut opts = pto_vm::case::CaseOptions::default();
        opts.config.watch_lines = vec![WatchLine {
            line: line_of(&src, needle),
            max: 1,
        }];
        let r = pto_vm::case::run_case(std::path::Path::new(dir), &opts).expect("runs");
        assert_eq!(r.code, 0, "{:?}", r.error);
        let text = &r.watch[0];
        assert!(text.contains(head), "{text}");
        let (lo, hi) = data
            .iter()
            .fold((f64::MAX, f64::MIN), |(l, h), v| (l.min(*v), h.max(*v)));
        // printed with six significant digits
        for (got, want) in [
            (shown_stat(text, "min "), lo),
            (shown_stat(text, "max "), hi),
        ] {
            assert!((got - want).abs() <= 1e-5, "{got} vs {want}\n{text}");
        }
        let rows = shown_rows(text);
        assert_eq!(rows.len(), 8, "{text}");
        for (i, row) in rows.iter().enumerate() {
            assert_eq!(row.len(), 8, "{text}");
            for (j, v) in row.iter().enumerate() {
                let want = data[i * rs + j * cs];
                assert!(
                    (v - want).abs() <= 1e-3,
                    "({i}, {j}): {v} vs {want}\n{text}"
                );
            }
        }
    }
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
