//! GM races between blocks (`block-race`): a write of one block that
//! overlaps another block's access between the same two `pto.syncall`
//! barriers is reported; disjoint parts, a barrier in between, and atomic
//! stores are not.

use pto_vm::{load_text, run_kernel, Arg, CheckMode, Config, DiagKind, JitMode};

/// Runs `src` on `blocks` blocks (x: 1024 f32 in, y: 1024 f32 out) and
/// returns the block-race messages.
fn races(src: &str, blocks: u32, jit: JitMode) -> Vec<String> {
    let x: Vec<u8> = (0..1024).flat_map(|i| (i as f32).to_le_bytes()).collect();
    races_with(
        src,
        blocks,
        jit,
        &[Arg::Buffer(x), Arg::Buffer(vec![0; 4096])],
    )
}

/// Runs `src` on `blocks` blocks with `args` and returns the block-race
/// messages.
fn races_with(src: &str, blocks: u32, jit: JitMode, args: &[Arg]) -> Vec<String> {
    let k = load_text("b.pto", src, None).unwrap_or_else(|e| panic!("does not load:\n{e}"));
    let cfg = Config {
        profile: k.profile,
        check: CheckMode::Warn,
        blocks,
        jit,
        jit_threshold: 0,
        ..Config::default()
    };
    let out = run_kernel(&k, &cfg, None, args).expect("runs").out;
    assert!(out.error.is_none(), "{:?}", out.error);
    out.diags
        .list
        .iter()
        .filter(|d| d.kind == DiagKind::BlockRace)
        .map(|d| d.message.clone())
        .collect()
}

/// A kernel: each block copies 256 f32 of x, starting at element
/// `in_off(b)`, to y at `out_off(b)`; then `after` runs (b is the block index
/// as index, the UB buffer is %ub, the GM pointers %x and %y).
fn kernel(in_off: &str, out_off: &str, after: &str) -> String {
    format!(
        r#"module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%x: !pto.ptr<f32, gm>, %y: !pto.ptr<f32, gm>) attributes {{pto.entry}} {{
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c1024_i64 = arith.constant 1024 : i64
    %c256 = arith.constant 256 : index
    %bi = pto.get_block_idx
    %b = arith.index_cast %bi : i64 to index
    %ub = pto.castptr %c0_i64 : i64 -> !pto.ptr<f32, ub>
    %io = {in_off}
    %oo = {out_off}
    %g = pto.addptr %x, %io : !pto.ptr<f32, gm> -> !pto.ptr<f32, gm>
    %h = pto.addptr %y, %oo : !pto.ptr<f32, gm> -> !pto.ptr<f32, gm>
    pto.mte_gm_ub %g, %ub, %c0_i64, %c1024_i64 nburst(%c1_i64, %c1024_i64, %c1024_i64) : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
{after}
    pto.mte_ub_gm %ub, %h, %c1024_i64 nburst(%c1_i64, %c1024_i64, %c1024_i64) : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }}
}}"#
    )
}

const PER_BLOCK: &str = "arith.muli %b, %c256 : index";
const ZERO: &str = "arith.constant 0 : index";

#[test]
fn blocks_writing_one_range_race_and_their_own_parts_do_not() {
    for jit in [JitMode::Off, JitMode::Always] {
        // every block writes y[0..256): a WAW between each pair of blocks
        let r = races(&kernel(PER_BLOCK, ZERO, ""), 2, jit);
        assert_eq!(
            r,
            vec!["blocks 0 and 1 both write bytes [0x0, 0x400) of %y, and nothing orders the two blocks"],
            "{jit:?}"
        );
        // each block its own quarter of x and y
        assert!(races(&kernel(PER_BLOCK, PER_BLOCK, ""), 4, jit).is_empty());
        // all blocks read the same x: reads never race with reads
        assert!(races(&kernel(ZERO, PER_BLOCK, ""), 4, jit).is_empty());
        // one block: nothing to compare
        assert!(races(&kernel(PER_BLOCK, ZERO, ""), 1, jit).is_empty());
    }
}

/// Block b writes x[256 b..] first, then reads the next block's part: a read
/// of what another block writes, unless a syncall separates them.
#[test]
fn a_read_of_another_blocks_write_races_unless_a_syncall_separates_them() {
    let next = "pto.addptr %x, %nx : !pto.ptr<f32, gm> -> !pto.ptr<f32, gm>";
    let body = |barrier: &str| {
        let after = format!(
            r#"    %own = pto.addptr %x, %io : !pto.ptr<f32, gm> -> !pto.ptr<f32, gm>
    pto.mte_ub_gm %ub, %own, %c1024_i64 nburst(%c1_i64, %c1024_i64, %c1024_i64) : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
    pto.barrier #pto.pipe<PIPE_ALL>
{barrier}
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %b1 = arith.addi %b, %c1 : index
    %nb = arith.remui %b1, %c4 : index
    %nx = arith.muli %nb, %c256 : index
    %gx = {next}
    pto.mte_gm_ub %gx, %ub, %c0_i64, %c1024_i64 nburst(%c1_i64, %c1024_i64, %c1024_i64) : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID1"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID1"]"#
        );
        kernel(PER_BLOCK, PER_BLOCK, &after)
    };
    for jit in [JitMode::Off, JitMode::Always] {
        let r = races(&body(""), 4, jit);
        assert!(!r.is_empty(), "{jit:?}");
        assert!(
            r.iter()
                .all(|m| m.contains("reads bytes [0x") && m.contains("of %x, which block")),
            "{r:?}"
        );
        let synced = "    pto.syncall() mode = #pto.sync_all_mode<hard>, core_type = #pto.sync_core_type<aiv_only>";
        assert!(races(&body(synced), 4, jit).is_empty(), "{jit:?}");
    }
}

/// Blocks accumulating into one range with atomic adds is the point of
/// atomics: not a race.
#[test]
fn atomic_stores_of_all_blocks_into_one_range_are_not_races() {
    let atomic = "    pto.set_atomic_f32\n    pto.set_atomic_add";
    for jit in [JitMode::Off, JitMode::Always] {
        assert!(races(&kernel(PER_BLOCK, ZERO, atomic), 4, jit).is_empty());
    }
}

/// The cube's FIXPIPE write-back (`mte_l0c_gm`) is a plain GM write: two
/// blocks writing C to the same place race, each block its own rows do not,
/// and an `atomic(...)` write-back (blocks combining partial products) is
/// not compared. The GM -> L1 loads of the shared A and B are reads only.
#[test]
fn fixpipe_write_backs_of_two_blocks_race_unless_apart_or_atomic() {
    let base = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../conformance/cases/cube/multi_nd2nz_dn2nz_f16_a5_20x40x24/kernel.pto"
    ))
    .expect("case kernel");
    let store = "pto.mte_l0c_gm %l0c, %c_gm, %c20, %c24, %c32, %c24, %c0, %c0, nz2nd";
    assert!(base.contains(store));
    let a: Vec<u8> = (0..800u16).flat_map(|i| half_bits(i % 7)).collect();
    let b: Vec<u8> = (0..960u16).flat_map(|i| half_bits(i % 5)).collect();
    let args = [
        Arg::Buffer(a),
        Arg::Buffer(b),
        Arg::Buffer(vec![0; 2 * 1920]),
    ];
    let run = |src: &str| races_with(src, 2, JitMode::Off, &args);
    let same = run(&base);
    assert_eq!(same.len(), 1, "{same:?}");
    assert!(
        same[0].contains("blocks 0 and 1 both write bytes [0x0, 0x780) of %c_gm"),
        "{same:?}"
    );
    let apart = base.replace(
        store,
        "%bi = pto.get_block_idx\n    %b = arith.index_cast %bi : i64 to index\n    %c480 = arith.constant 480 : index\n    %off = arith.muli %b, %c480 : index\n    %c_b = pto.addptr %c_gm, %off : !pto.ptr<f32, gm> -> !pto.ptr<f32, gm>\n    pto.mte_l0c_gm %l0c, %c_b, %c20, %c24, %c32, %c24, %c0, %c0, nz2nd",
    );
    assert_eq!(run(&apart), Vec::<String>::new());
    let atomic = base.replace(store, &format!("{store}, atomic(type = f32, op = add)"));
    assert_eq!(run(&atomic), Vec::<String>::new());
}

/// The bits of a small whole number as f16.
fn half_bits(v: u16) -> [u8; 2] {
    // 0..7 exactly: exponent 15 + floor(log2 v), mantissa the rest
    if v == 0 {
        return [0, 0];
    }
    let e = 15 - v.leading_zeros() as u16;
    let m = (v - (1 << e)) << (10 - e);
    ((e + 15) << 10 | m).to_le_bytes()
}
