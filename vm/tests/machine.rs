//! Machine behaviour beyond the seeds: tile-level kernels, cross-core sync,
//! bounds and profile errors, runtime sync diagnostics.

use pto_vm::{
    load_text, run_kernel, run_kernel_into, Arg, CheckMode, Config, DiagKind, Finished, Kernel,
    RunError, Sched,
};

fn load(src: &str) -> Kernel {
    load_text("t.pto", src, None).unwrap_or_else(|e| panic!("does not load:\n{e}"))
}

fn go(k: &Kernel, sched: Sched, args: &[Arg]) -> Finished {
    let cfg = Config {
        profile: k.profile,
        sched,
        check: CheckMode::Warn,
        max_steps: 1_000_000,
        ..Config::default()
    };
    run_kernel(k, &cfg, None, args).expect("runs")
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Repeated runs reading back into one set of vectors get what `run_kernel`
/// returns each time, reuse the vectors, and drop stale extra entries.
#[test]
fn run_kernel_into_reuses_the_result_vectors() {
    let src = std::fs::read_to_string(format!(
        "{}/../examples/vadd.pto",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("example");
    let k = load(&src);
    let cfg = Config {
        profile: k.profile,
        check: CheckMode::Warn,
        ..Config::default()
    };
    // stale contents: more vectors than arguments, the wrong lengths
    let mut bufs = vec![vec![9u8; 8192], vec![1; 3], Vec::new(), vec![5; 7]];
    for round in 0..3 {
        let x: Vec<f32> = (0..1024).map(|i| (i + round) as f32).collect();
        let args = [
            Arg::Buffer(bytes(&x)),
            Arg::Buffer(bytes(&x)),
            Arg::Buffer(vec![0; 4096]),
        ];
        let out = run_kernel_into(&k, &cfg, None, &args, &mut bufs).expect("runs");
        assert_eq!(out.error, None);
        let whole = run_kernel(&k, &cfg, None, &args).expect("runs");
        assert_eq!(bufs, whole.buffers, "round {round}");
        assert_eq!(bufs.len(), 3);
        assert_eq!(f32s(&bufs[2]), x.iter().map(|v| v + v).collect::<Vec<_>>());
    }
    // the first vector kept its (larger) allocation
    assert!(bufs[0].capacity() >= 8192);
}

#[test]
fn tile_level_vadd_example_runs_and_its_missing_wait_is_a_race() {
    let src = std::fs::read_to_string(format!(
        "{}/../examples/vadd.pto",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("example");
    let x: Vec<f32> = (0..1024).map(|i| i as f32 * 0.5).collect();
    let y: Vec<f32> = (0..1024).map(|i| 1000.0 - i as f32).collect();
    let args = [
        Arg::Buffer(bytes(&x)),
        Arg::Buffer(bytes(&y)),
        Arg::Buffer(vec![0; 4096]),
    ];
    let k = load(&src);
    for sched in [Sched::InOrder, Sched::Timed, Sched::Shuffle { seed: 7 }] {
        let f = go(&k, sched, &args);
        assert_eq!(f.out.error, None);
        assert!(f.out.diags.is_empty(), "{:?}", f.out.diags.list);
        let z = f32s(&f.buffers[2]);
        assert!(z
            .iter()
            .zip(x.iter().zip(&y))
            .all(|(z, (a, b))| *z == a + b));
    }
    let broken: String = src
        .lines()
        .filter(|l| !l.contains("wait_flag[\"PIPE_MTE2\""))
        .collect::<Vec<_>>()
        .join("\n");
    let k = load(&broken);
    let f = go(&k, Sched::InOrder, &args);
    let race = f
        .out
        .diags
        .list
        .iter()
        .find(|d| d.kind == DiagKind::Race)
        .expect("race reported");
    let text = race.render(&k.program, Some(&broken));
    assert!(text.contains("read-after-write race on UB"), "{text}");
    assert!(text.contains("pto.tadd"), "{text}");
    assert!(text.contains("pto.tload"), "{text}");
    assert!(
        text.contains("insert pto.set_flag[\"PIPE_MTE2\", \"PIPE_V\""),
        "{text}"
    );
}

const MIXED_A5: &str = r#"
module attributes {pto.target_arch = "a5"} {
  func.func @k(%out: !pto.ptr<f32, gm>) attributes {pto.entry} {
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c256_i64 = arith.constant 256 : i64
    %c0 = arith.constant 0 : index
    %sub64 = pto.get_subblock_idx
    %sub = arith.index_cast %sub64 : i64 to index
    %off = arith.muli %sub, %c0 : index
    pto.section.cube {
      // tell vector subblock 0 (id 1) and subblock 1 (id 17) to go
      pto.set_intra_block <PIPE_S>, 1
      pto.set_intra_block <PIPE_S>, 17
    }
    pto.section.vector {
      pto.wait_intra_block <PIPE_MTE3>, 1
      %ub = pto.castptr %c0_i64 : i64 -> !pto.ptr<f32, ub>
      %e = arith.muli %sub, %c0 : index
      %g = pto.addptr %out, %e : !pto.ptr<f32, gm> -> !pto.ptr<f32, gm>
      pto.mte_ub_gm %ub, %g, %c256_i64 nburst(%c1_i64, %c256_i64, %c256_i64) : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
    }
    return
  }
}"#;

#[test]
fn a5_intra_block_signals_reach_one_subblock_each() {
    let k = load(MIXED_A5);
    let f = go(&k, Sched::InOrder, &[Arg::Buffer(vec![0; 1024])]);
    assert_eq!(f.out.error, None, "{:?}", f.out.diags.list);
    // without the signal to subblock 1 (id 17), subblock 1 waits forever
    let k = load(&MIXED_A5.replace("pto.set_intra_block <PIPE_S>, 17", ""));
    let f = go(&k, Sched::InOrder, &[Arg::Buffer(vec![0; 1024])]);
    assert_eq!(f.out.error, Some(RunError::Deadlock));
    let d = &f.out.diags.list[0];
    assert_eq!(d.kind, DiagKind::Deadlock);
    assert!(
        d.message.contains("cross-core semaphore 1"),
        "{}",
        d.message
    );
}

const MIXED_A3: &str = r#"
module attributes {pto.target_arch = "a2a3"} {
  func.func @k() attributes {pto.entry} {
    pto.section.vector {
      pto.sync.set <PIPE_S>, 3
    }
    pto.section.cube {
      // mode2 reduce: one wait needs a signal from each vector subblock
      pto.sync.wait <PIPE_S>, 3
    }
    return
  }
}"#;

#[test]
fn a2a3_cross_core_wait_reduces_both_subblocks() {
    let k = load(MIXED_A3);
    let f = go(&k, Sched::InOrder, &[]);
    assert_eq!(f.out.error, None, "{:?}", f.out.diags.list);
    // a second wait needs two more signals that never come
    let k = load(&MIXED_A3.replace(
        "pto.sync.wait <PIPE_S>, 3",
        "pto.sync.wait <PIPE_S>, 3\n      pto.sync.wait <PIPE_S>, 3",
    ));
    let f = go(&k, Sched::InOrder, &[]);
    assert_eq!(f.out.error, Some(RunError::Deadlock));
}

#[test]
fn out_of_bounds_ub_access_is_a_fault_naming_the_line_and_bounds() {
    // 200 KiB is past the 192 KiB UB of a2a3
    let src = r#"
module attributes {pto.target_arch = "a2a3"} {
  func.func @k(%src: !pto.ptr<f32, gm>) attributes {pto.entry} {
    %c1_i64 = arith.constant 1 : i64
    %c0_i64 = arith.constant 0 : i64
    %c256_i64 = arith.constant 256 : i64
    %far = arith.constant 204800 : i64
    %ub = pto.castptr %far : i64 -> !pto.ptr<f32, ub>
    pto.mte_gm_ub %src, %ub, %c0_i64, %c256_i64 nburst(%c1_i64, %c256_i64, %c256_i64) : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    return
  }
}"#;
    let k = load(src);
    let f = go(&k, Sched::InOrder, &[Arg::Buffer(vec![0; 256])]);
    match f.out.error {
        Some(RunError::Fault { inst, message }) => {
            assert_eq!(k.program.info(inst).loc.line, 9);
            assert!(
                message.contains("outside the 196608 bytes of UB"),
                "{message}"
            );
        }
        other => panic!("expected a fault, got {other:?}"),
    }
    // the same kernel fits a5's 256 KiB UB
    let k5 = load_text("t.pto", &src.replace("a2a3", "a5"), None).expect("loads");
    let f = go(&k5, Sched::InOrder, &[Arg::Buffer(vec![0; 256])]);
    assert_eq!(f.out.error, None);
}

#[test]
fn double_set_and_dynamic_event_ids_are_diagnosed() {
    let src = r#"
module attributes {pto.target_arch = "a2a3"} {
  func.func @k(%id: i64) attributes {pto.entry} {
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID3"]
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID3"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID3"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID3"]
    pto.set_flag_dyn[#pto.pipe<PIPE_V>, #pto.pipe<PIPE_MTE3>, %id]
    pto.wait_flag_dyn[#pto.pipe<PIPE_V>, #pto.pipe<PIPE_MTE3>, %id]
    return
  }
}"#;
    let k = load(src);
    let f = go(&k, Sched::InOrder, &[Arg::Int(21)]);
    let kinds = f.out.diags.kinds();
    assert!(kinds.contains(&DiagKind::DoubleSet), "{kinds:?}");
    assert!(kinds.contains(&DiagKind::BadEventId), "{kinds:?}");
}

#[test]
fn vector_alias_needs_a_mem_bar() {
    let body = |bar: &str| {
        format!(
            r#"
module attributes {{pto.target_arch = "a5"}} {{
  func.func @k() attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %c0_i64 = arith.constant 0 : i64
    %ub = pto.castptr %c0_i64 : i64 -> !pto.ptr<f32, ub>
    pto.vecscope {{
      %all = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      %v = pto.vlds %ub[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      pto.vsts %v, %ub[%c0], %all : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>
      {bar}
      %w = pto.vlds %ub[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
    }}
    return
  }}
}}"#
        )
    };
    let f = go(&load(&body("")), Sched::InOrder, &[]);
    assert_eq!(f.out.diags.kinds(), vec![DiagKind::VectorAlias]);
    let f = go(&load(&body("pto.mem_bar \"VST_VLD\"")), Sched::InOrder, &[]);
    assert!(f.out.diags.is_empty(), "{:?}", f.out.diags.list);
}

#[test]
fn held_buffer_and_step_limit() {
    let src = r#"
module attributes {pto.target_arch = "a5"} {
  func.func @k() attributes {pto.entry} {
    pto.get_buf "PIPE_V", 5, 0
    return
  }
}"#;
    let f = go(&load(src), Sched::InOrder, &[]);
    assert_eq!(f.out.diags.kinds(), vec![DiagKind::HeldBuffer]);
    let spin = r#"
module attributes {pto.target_arch = "a5"} {
  func.func @k() attributes {pto.entry} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %big = arith.constant 1000000000 : index
    scf.for %i = %c0 to %big step %c1 {
      pto.barrier #pto.pipe<PIPE_V>
    }
    return
  }
}"#;
    let k = load(spin);
    let cfg = Config {
        profile: k.profile,
        max_steps: 10_000,
        ..Config::default()
    };
    let f = run_kernel(&k, &cfg, None, &[]).expect("runs");
    assert_eq!(f.out.error, Some(RunError::Limit(10_000)));
}

#[test]
fn legacy_copy_uses_the_loop_registers() {
    // 2 x 2 bursts of 16 bytes gathered from a strided GM layout into packed UB,
    // then stored back contiguously
    let src = r#"
module attributes {pto.target_arch = "a2a3"} {
  func.func @k(%src: !pto.ptr<ui8, gm>, %dst: !pto.ptr<ui8, gm>) attributes {pto.entry} {
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %c16 = arith.constant 16 : i64
    %c32 = arith.constant 32 : i64
    %c64 = arith.constant 64 : i64
    %c128 = arith.constant 128 : i64
    %false = arith.constant false
    %ub = pto.castptr %c0 : i64 -> !pto.ptr<ui8, ub>
    pto.set_loop_size_outtoub %c2, %c1 : i64, i64
    pto.set_loop1_stride_outtoub %c128, %c64 : i64, i64
    pto.copy_gm_to_ubuf %src, %ub, %c0, %c2, %c16, %c0, %c0, %false, %c0, %c32, %c32 : !pto.ptr<ui8, gm>, !pto.ptr<ui8, ub>, i64, i64, i64, i64, i64, i1, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.copy_ubuf_to_gm %ub, %dst, %c0, %c1, %c128, %c0, %c128, %c128 : !pto.ptr<ui8, ub>, !pto.ptr<ui8, gm>, i64, i64, i64, i64, i64, i64
    return
  }
}"#;
    let k = load(src);
    let input: Vec<u8> = (0..=255).collect();
    let f = go(
        &k,
        Sched::InOrder,
        &[Arg::Buffer(input), Arg::Buffer(vec![0; 128])],
    );
    assert_eq!(f.out.error, None, "{:?}", f.out.diags.list);
    assert!(f.out.diags.is_empty(), "{:?}", f.out.diags.list);
    let out = &f.buffers[1];
    // loop1 i (GM stride 128, UB stride 64) x burst j (GM stride 32, UB stride 32), 16 bytes each
    for i in 0..2usize {
        for j in 0..2usize {
            let ub = i * 64 + j * 32;
            let gm = i * 128 + j * 32;
            assert_eq!(
                &out[ub..ub + 16],
                (gm as u8..gm as u8 + 16).collect::<Vec<_>>().as_slice()
            );
        }
    }
}

#[test]
fn tsync_on_a_non_vector_class_is_reported() {
    let src = r#"
module attributes {pto.target_arch = "a2a3"} {
  func.func @k() attributes {pto.entry} {
    pto.tsync #pto.op<TLOAD>
    pto.tsync #pto.op<TADD>
    return
  }
}"#;
    let c = pto_asm::check_text("t.pto", src, None);
    if c.diagnostics.has_errors() {
        // the barrier spelling is PTO-AS only; nothing to check if the verifier refuses it
        return;
    }
    let f = go(&load(src), Sched::InOrder, &[]);
    assert_eq!(f.out.diags.kinds(), vec![DiagKind::TsyncNonVector]);
}

#[test]
fn event_id_arrays_feed_dynamic_flags() {
    let src = r#"
module attributes {pto.target_arch = "a2a3"} {
  func.func @k() attributes {pto.entry} {
    %arr = pto.declare_eventid_array -> !pto.eventid_array<4>
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    pto.eventid_array_set %arr[%c3], %c5 : !pto.eventid_array<4>
    %e = pto.eventid_array_get %arr[%c3] : !pto.eventid_array<4>
    pto.set_flag_dyn[#pto.pipe<PIPE_MTE2>, #pto.pipe<PIPE_MTE3>, %e]
    pto.wait_flag_dyn[#pto.pipe<PIPE_MTE2>, #pto.pipe<PIPE_MTE3>, %e]
    %z = pto.eventid_array_get %arr[%c0] : !pto.eventid_array<4>
    pto.set_flag_dyn[#pto.pipe<PIPE_MTE2>, #pto.pipe<PIPE_MTE3>, %z]
    pto.wait_flag_dyn[#pto.pipe<PIPE_MTE2>, #pto.pipe<PIPE_MTE3>, %z]
    return
  }
}"#;
    let f = go(&load(src), Sched::InOrder, &[]);
    assert_eq!(f.out.error, None);
    assert!(f.out.diags.is_empty(), "{:?}", f.out.diags.list);
    // waiting on the id of another slot (0) never sees the set on id 5
    let stale = src.replace(
        "pto.wait_flag_dyn[#pto.pipe<PIPE_MTE2>, #pto.pipe<PIPE_MTE3>, %e]",
        "pto.wait_flag_dyn[#pto.pipe<PIPE_MTE2>, #pto.pipe<PIPE_MTE3>, %c0]",
    );
    let f = go(&load(&stale), Sched::InOrder, &[]);
    assert_eq!(f.out.error, Some(RunError::Deadlock));
}

#[test]
fn an_event_on_one_pipe_is_a_bad_pipe() {
    let src = r#"
module attributes {pto.target_arch = "a5"} {
  func.func @k() attributes {pto.entry} {
    pto.set_flag["PIPE_V", "PIPE_V", "EVENT_ID0"]
    return
  }
}"#;
    let f = go(&load(src), Sched::InOrder, &[]);
    assert_eq!(f.out.diags.kinds(), vec![DiagKind::BadPipe]);
}

/// `mte_ub_ub` counts its burst length and its gaps in 32-byte units, and a gap
/// runs from the end of one burst to the start of the next (PTOAS micro-ISA
/// DMA doc): len 1, nburst(2, src gap 1, dst gap 0) takes UB rows 0 and 2.
#[test]
fn ub_to_ub_copy_counts_32_byte_units_and_gaps() {
    let src = r#"
module attributes {pto.target_arch = "a5"} {
  func.func @k(%src: !pto.ptr<ui8, gm>, %dst: !pto.ptr<ui8, gm>) attributes {pto.entry} {
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %c64 = arith.constant 64 : i64
    %c128 = arith.constant 128 : i64
    %c256 = arith.constant 256 : i64
    %a = pto.castptr %c0 : i64 -> !pto.ptr<ui8, ub>
    %b = pto.castptr %c256 : i64 -> !pto.ptr<ui8, ub>
    pto.mte_gm_ub %src, %a, %c0, %c128 nburst(%c1, %c128, %c128) : !pto.ptr<ui8, gm>, !pto.ptr<ui8, ub>, i64, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.mte_ub_ub %a, %b, %c1 nburst(%c2, %c1, %c0) : !pto.ptr<ui8, ub>, !pto.ptr<ui8, ub>, i64, i64, i64, i64
    pto.barrier #pto.pipe<PIPE_ALL>
    pto.mte_ub_gm %b, %dst, %c64 nburst(%c1, %c64, %c64) : !pto.ptr<ui8, ub>, !pto.ptr<ui8, gm>, i64, i64, i64, i64
    return
  }
}"#;
    let k = load(src);
    let input: Vec<u8> = (0..128).collect();
    let f = go(
        &k,
        Sched::InOrder,
        &[Arg::Buffer(input), Arg::Buffer(vec![0; 64])],
    );
    assert_eq!(f.out.error, None, "{:?}", f.out.diags.list);
    assert!(f.out.diags.is_empty(), "{:?}", f.out.diags.list);
    let out = &f.buffers[1];
    assert_eq!(&out[..32], (0..32).collect::<Vec<u8>>().as_slice());
    assert_eq!(&out[32..], (64..96).collect::<Vec<u8>>().as_slice());
}

#[test]
fn load_and_store_scalar_through_gm_and_ub() {
    // out[i] = in[in[0]] + i for i in 0..4, through a UB scratch word too
    let src = r#"
module attributes {pto.target_arch = "a5"} {
  func.func @k(%in: !pto.ptr<i32, gm>, %out: !pto.ptr<i32, gm>) attributes {pto.entry} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c0_i64 = arith.constant 0 : i64
    %ub = pto.castptr %c0_i64 : i64 -> !pto.ptr<i32, ub>
    %i0 = pto.load_scalar %in[%c0] : !pto.ptr<i32, gm> -> i32
    %j = arith.index_cast %i0 : i32 to index
    %v = pto.load_scalar %in[%j] : !pto.ptr<i32, gm> -> i32
    pto.store_scalar %v, %ub[%c1] : !pto.ptr<i32, ub>, i32
    %w = pto.load_scalar %ub[%c1] : !pto.ptr<i32, ub> -> i32
    scf.for %i = %c0 to %c4 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %s = arith.addi %w, %ii : i32
      pto.store_scalar %s, %out[%i] : !pto.ptr<i32, gm>, i32
    }
    return
  }
}"#;
    let k = load(src);
    let input: Vec<u8> = [3i32, 10, 20, 70]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let f = go(
        &k,
        Sched::InOrder,
        &[Arg::Buffer(input), Arg::Buffer(vec![0; 16])],
    );
    assert_eq!(f.out.error, None, "{:?}", f.out.diags.list);
    let got: Vec<i32> = f.buffers[1]
        .chunks(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(got, vec![70, 71, 72, 73]);
    // an index past GM is a fault naming the bounds, not a crash (raw pointer
    // accesses are checked against the GM, not against one argument buffer)
    let bad: Vec<u8> = [1i32 << 24, 0, 0, 0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let f = go(
        &k,
        Sched::InOrder,
        &[Arg::Buffer(bad), Arg::Buffer(vec![0; 16])],
    );
    match &f.out.error {
        Some(RunError::Fault { message, .. }) => assert!(message.contains("outside"), "{message}"),
        other => panic!("expected a fault, got {other:?}"),
    }
}

/// The cube's `copy_cbuf_to_ubuf` writes a vector subblock's UB: the
/// checker sees that write, so a handoff signalled on a pipe that does not
/// follow the copy (FIX instead of MTE1) is a race.
#[test]
fn cube_copy_into_subblock_ub_is_checked() {
    let src = r#"
module attributes {pto.target_arch = "a5"} {
  func.func @k(%out: !pto.ptr<f32, gm>) attributes {pto.entry} {
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c8_i64 = arith.constant 8 : i64
    %c256_i64 = arith.constant 256 : i64
    pto.section.cube {
      %l1 = pto.castptr %c0_i64 : i64 -> !pto.ptr<f32, l1>
      %ubc = pto.castptr %c0_i64 : i64 -> !pto.ptr<f32, ub>
      pto.copy_cbuf_to_ubuf %l1, %ubc, %c0_i64, %c1_i64, %c8_i64, %c0_i64, %c0_i64
        : !pto.ptr<f32, l1>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
      pto.set_intra_block <PIPE>, 1
      pto.set_intra_block <PIPE>, 17
    }
    pto.section.vector {
      pto.wait_intra_block <PIPE_MTE3>, 1
      %sub = pto.get_subblock_idx
      %is0 = arith.cmpi eq, %sub, %c0_i64 : i64
      scf.if %is0 {
        %ub = pto.castptr %c0_i64 : i64 -> !pto.ptr<f32, ub>
        pto.mte_ub_gm %ub, %out, %c256_i64 nburst(%c1_i64, %c256_i64, %c256_i64) : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
      }
    }
    return
  }
}"#;
    let races = |pipe: &str| {
        let k = load(&src.replace("<PIPE>", &format!("<{pipe}>")));
        let f = go(&k, Sched::InOrder, &[Arg::Buffer(vec![0; 1024])]);
        assert_eq!(f.out.error, None, "{:?}", f.out.diags.list);
        f.out
            .diags
            .list
            .iter()
            .filter(|d| d.kind == DiagKind::Race)
            .count()
    };
    assert_eq!(races("PIPE_MTE1"), 0);
    assert!(races("PIPE_FIX") > 0);
}

/// The scalar unit's own loads and stores are checked: reading what an
/// MTE3 copy wrote to GM needs that pipe's `set_flag`/`wait_flag` to PIPE_S
/// (or a PIPE_ALL barrier), and a DMA that reads what the scalar unit stored
/// is ordered by issue.
#[test]
fn scalar_unit_accesses_are_checked() {
    let src = r#"
module attributes {pto.target_arch = "a5"} {
  func.func @k(%x: !pto.ptr<i32, gm>, %y: !pto.ptr<i32, gm>, %out: !pto.ptr<i32, gm>) attributes {pto.entry} {
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c32_i64 = arith.constant 32 : i64
    %seven = arith.constant 7 : i32
    %ub = pto.castptr %c0_i64 : i64 -> !pto.ptr<i32, ub>
    pto.store_scalar %seven, %x[%c3] : !pto.ptr<i32, gm>, i32
    pto.mte_gm_ub %x, %ub, %c0_i64, %c32_i64 nburst(%c1_i64, %c32_i64, %c32_i64) : !pto.ptr<i32, gm>, !pto.ptr<i32, ub>, i64, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.mte_ub_gm %ub, %y, %c32_i64 nburst(%c1_i64, %c32_i64, %c32_i64) : !pto.ptr<i32, ub>, !pto.ptr<i32, gm>, i64, i64, i64, i64
    <SYNC>
    %v = pto.load_scalar %y[%c3] : !pto.ptr<i32, gm> -> i32
    pto.store_scalar %v, %out[%c0] : !pto.ptr<i32, gm>, i32
    return
  }
}"#;
    let run = |sync: &str| {
        let k = load(&src.replace("<SYNC>", sync));
        let f = go(
            &k,
            Sched::InOrder,
            &[
                Arg::Buffer(vec![0; 32]),
                Arg::Buffer(vec![0; 32]),
                Arg::Buffer(vec![0; 4]),
            ],
        );
        assert_eq!(f.out.error, None, "{:?}", f.out.diags.list);
        let races: Vec<String> = f
            .out
            .diags
            .list
            .iter()
            .filter(|d| d.kind == DiagKind::Race)
            .map(|d| d.render(&k.program, None))
            .collect();
        (races, f.buffers[2].clone())
    };
    let (races, out) = run("");
    assert_eq!(races.len(), 1, "{races:?}");
    assert!(
        races[0].contains("read-after-write race on GM") && races[0].contains("PIPE_MTE3"),
        "{}",
        races[0]
    );
    // in program order the copy has completed, so the value is right even
    // though the sync is missing
    assert_eq!(out, 7i32.to_le_bytes());
    for fix in [
        r#"pto.set_flag["PIPE_MTE3", "PIPE_S", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE3", "PIPE_S", "EVENT_ID0"]"#,
        r#"pto.barrier #pto.pipe<PIPE_ALL>"#,
    ] {
        let (races, out) = run(fix);
        assert!(races.is_empty(), "{fix}: {races:?}");
        assert_eq!(out, 7i32.to_le_bytes());
    }
}

#[test]
fn trap_stops_the_kernel_with_a_fault_at_its_line() {
    // the store before the trap happens, the one after it does not
    let src = r#"
module attributes {pto.target_arch = "a5"} {
  func.func @k(%out: !pto.ptr<i32, gm>) attributes {pto.entry} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %v = arith.constant 7 : i32
    pto.store_scalar %v, %out[%c0] : !pto.ptr<i32, gm>, i32
    pto.trap
    pto.store_scalar %v, %out[%c1] : !pto.ptr<i32, gm>, i32
    return
  }
}"#;
    let k = load(src);
    let f = go(&k, Sched::InOrder, &[Arg::Buffer(vec![0; 8])]);
    match &f.out.error {
        Some(RunError::Fault { inst, message }) => {
            assert_eq!(k.program.info(*inst).loc.line, 8);
            assert!(message.contains("pto.trap"), "{message}");
        }
        other => panic!("expected a fault, got {other:?}"),
    }
    assert_eq!(f.buffers[0], [7, 0, 0, 0, 0, 0, 0, 0]);
}

#[test]
fn a_block_that_never_reaches_syncall_is_a_deadlock() {
    // block 1 skips the barrier and finishes; block 0 waits for it forever
    let src = r#"
module attributes {pto.target_arch = "a5"} {
  func.func @k(%out: !pto.ptr<i32, gm>) attributes {pto.entry} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i64
    %v = arith.constant 7 : i32
    %bi = pto.get_block_idx
    %first = arith.cmpi eq, %bi, %zero : i64
    scf.if %first {
      pto.syncall() mode = #pto.sync_all_mode<hard>, core_type = #pto.sync_core_type<aiv_only>
      pto.store_scalar %v, %out[%c0] : !pto.ptr<i32, gm>, i32
    }
    return
  }
}"#;
    let k = load(src);
    let cfg = Config {
        profile: k.profile,
        blocks: 2,
        check: CheckMode::Warn,
        max_steps: 1_000_000,
        ..Config::default()
    };
    let f = run_kernel(&k, &cfg, None, &[Arg::Buffer(vec![0; 4])]).expect("runs");
    assert_eq!(f.out.error, Some(RunError::Deadlock));
    let text: Vec<String> = f.out.diags.list.iter().map(|d| format!("{d:?}")).collect();
    assert!(
        text.iter()
            .any(|t| t.contains("syncall #0: 1 of the 2 vector cores")),
        "{text:?}"
    );
    assert_eq!(f.buffers[0], [0; 4]);
}

#[test]
fn vector_scope_captures_follow_the_registers_they_snapshot() {
    // The scalar unit reuses a vector scope's last captures while the
    // captured registers hold the same values: a capture that changes every
    // iteration (%u, %o) and one that changes only in its sign bit (%z: -0.0,
    // then 0.0, which compare equal as floats) must both be snapshotted again.
    let src = r#"
module attributes {pto.target_arch = "a5"} {
  func.func @k(%src: !pto.ptr<f32, gm>, %dst: !pto.ptr<f32, gm>) attributes {pto.entry} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c256_i64 = arith.constant 256 : i64
    %c1024_i64 = arith.constant 1024 : i64
    %c2048_i64 = arith.constant 2048 : i64
    %pz = arith.constant 0.0 : f32
    %nz = arith.constant -0.0 : f32
    %ub = pto.castptr %c0_i64 : i64 -> !pto.ptr<f32, ub>
    %out = pto.castptr %c1024_i64 : i64 -> !pto.ptr<f32, ub>
    %sign = pto.castptr %c2048_i64 : i64 -> !pto.ptr<f32, ub>
    scf.for %i = %c0 to %c4 step %c1 {
      %r = arith.remui %i, %c2 : index
      %odd = arith.cmpi eq, %r, %c1 : index
      %z = arith.select %odd, %pz, %nz : f32
      %off = arith.muli %i, %c64 : index
      %g = pto.addptr %src, %off : !pto.ptr<f32, gm> -> !pto.ptr<f32, gm>
      %h = pto.addptr %dst, %off : !pto.ptr<f32, gm> -> !pto.ptr<f32, gm>
      %u = pto.addptr %ub, %off : !pto.ptr<f32, ub> -> !pto.ptr<f32, ub>
      %o = pto.addptr %out, %off : !pto.ptr<f32, ub> -> !pto.ptr<f32, ub>
      pto.mte_gm_ub %g, %u, %c0_i64, %c256_i64 nburst(%c1_i64, %c256_i64, %c256_i64) : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
      pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
      pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
      pto.vecscope {
        %all = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
        %v = pto.vlds %u[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
        pto.vsts %v, %o[%c0], %all : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>
      }
      pto.vecscope {
        %all = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
        %s = pto.vbr %z : f32 -> !pto.vreg<64xf32>
        pto.vsts %s, %sign[%c0], %all : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>
      }
      pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
      pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
      pto.mte_ub_gm %o, %h, %c256_i64 nburst(%c1_i64, %c256_i64, %c256_i64) : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
    }
    %hs = pto.addptr %dst, %c256 : !pto.ptr<f32, gm> -> !pto.ptr<f32, gm>
    pto.mte_ub_gm %sign, %hs, %c256_i64 nburst(%c1_i64, %c256_i64, %c256_i64) : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
    return
  }
}"#;
    let k = load(src);
    let x: Vec<f32> = (0..256).map(|i| i as f32 * 0.25 - 7.0).collect();
    for sched in [Sched::InOrder, Sched::Timed, Sched::Shuffle { seed: 3 }] {
        for jit in [pto_vm::JitMode::Off, pto_vm::JitMode::Always] {
            let cfg = Config {
                profile: k.profile,
                sched,
                jit,
                check: CheckMode::Warn,
                max_steps: 1_000_000,
                ..Config::default()
            };
            let args = [Arg::Buffer(bytes(&x)), Arg::Buffer(vec![0xff; 320 * 4])];
            let f = run_kernel(&k, &cfg, None, &args).expect("runs");
            assert_eq!(f.out.error, None, "{:?}", f.out.diags.list);
            assert!(f.out.diags.is_empty(), "{:?}", f.out.diags.list);
            let out = f32s(&f.buffers[1]);
            assert_eq!(&out[..256], &x[..], "{sched:?} {jit:?}");
            // the last iteration's %z is +0.0
            assert!(
                out[256..].iter().all(|v| v.to_bits() == 0),
                "{sched:?} {jit:?}: {:?}",
                &out[256..260]
            );
        }
    }
}
