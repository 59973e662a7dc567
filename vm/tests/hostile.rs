//! Hostile kernels: each parses and verifies (or is rejected by the verifier
//! for a clear reason) but has operands chosen to break the VM: a tile far
//! larger than any buffer, a DMA with 2^31 bursts, a tensor view with a
//! negative stride, a loop with step 0, a loop of 2^62 iterations. Each must end in a clean error naming
//! the instruction's line and the bound it broke, never a panic, a runaway
//! allocation or a hang.

use pto_vm::{load_text, run_kernel, Arg, CheckMode, Config, JitMode, RunError};

/// Runs `src`'s entry with one 4 KiB buffer per pointer argument and expects a
/// fault at `line` whose message contains `want`.
fn expect_fault(src: &str, nbufs: usize, line: u32, want: &str) {
    expect_fault_with(src, nbufs, &[], line, want)
}

/// Runs `src`'s entry on `nbufs` 4 KiB buffers and then the integer
/// arguments `ints` (within a 10 s deadline, so a hang fails rather than
/// stalls the suite).
fn run_hostile(src: &str, nbufs: usize, ints: &[i64]) -> (pto_vm::Kernel, pto_vm::Finished) {
    run_hostile_in(src, nbufs, ints, JitMode::Off)
}

/// [`run_hostile`] in the given JIT tier.
fn run_hostile_in(
    src: &str,
    nbufs: usize,
    ints: &[i64],
    jit: JitMode,
) -> (pto_vm::Kernel, pto_vm::Finished) {
    let k = load_text("h.pto", src, None).unwrap_or_else(|e| panic!("does not load:\n{e}"));
    let cfg = Config {
        profile: k.profile,
        check: CheckMode::Warn,
        max_steps: 20_000,
        jit,
        jit_threshold: 0,
        watch: Some(pto_vm::Watch {
            deadline: Some(std::time::Instant::now() + std::time::Duration::from_secs(10)),
            ..pto_vm::Watch::default()
        }),
        ..Config::default()
    };
    let mut args: Vec<Arg> = (0..nbufs).map(|_| Arg::Buffer(vec![0; 4096])).collect();
    args.extend(ints.iter().map(|v| Arg::Int(*v)));
    let f = run_kernel(&k, &cfg, None, &args).expect("runs");
    (k, f)
}

/// As [`expect_fault`], with integer arguments after the buffers.
/// Both tiers: the interpreter, and the JIT compiling every region it takes
/// at first use (its regions check bounds on their own).
fn expect_fault_with(src: &str, nbufs: usize, ints: &[i64], line: u32, want: &str) {
    for jit in [JitMode::Off, JitMode::Always] {
        let (k, f) = run_hostile_in(src, nbufs, ints, jit);
        match f.out.error {
            Some(RunError::Fault { inst, message }) => {
                assert_eq!(k.program.info(inst).loc.line, line, "{jit:?}: {message}");
                assert!(message.contains(want), "{jit:?}: {message}");
            }
            other => panic!("{jit:?}: expected a fault containing '{want}', got {other:?}"),
        }
    }
}

/// A 65536x65536 f32 tile (16 GiB) is refused before anything is allocated.
#[test]
fn a_tile_larger_than_its_buffer_is_refused_by_the_verifier() {
    let src = r#"module attributes {pto.target_arch = "a2a3"} {
  func.func @k(%x: !pto.ptr<f32>) attributes {pto.entry} {
    %a = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f32, rows=65536, cols=65536, v_row=65536, v_col=65536, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    %one = arith.constant 1.0 : f32
    pto.texpands ins(%one : f32) outs(%a : !pto.tile_buf<loc=vec, dtype=f32, rows=65536, cols=65536, v_row=65536, v_col=65536, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    return
  }
}"#;
    let e = load_text("h.pto", src, None).expect_err("a 16 GiB tile must not load");
    let e = e.to_string();
    assert!(
        e.contains("h.pto:5:") && e.contains("17179869184 bytes") && e.contains("196608"),
        "{e}"
    );
}

/// A legacy GM -> UB copy with nburst = 2^31 faults instead of looping over
/// 32 GiB.
#[test]
fn a_dma_with_two_to_the_31_bursts_faults() {
    expect_fault(
        r#"module attributes {pto.target_arch = "a2a3"} {
  func.func @k(%src: !pto.ptr<ui8, gm>) attributes {pto.entry} {
    %c0 = arith.constant 0 : i64
    %big = arith.constant 2147483648 : i64
    %c16 = arith.constant 16 : i64
    %false = arith.constant false
    %ub = pto.castptr %c0 : i64 -> !pto.ptr<ui8, ub>
    pto.copy_gm_to_ubuf %src, %ub, %c0, %big, %c16, %c0, %c0, %false, %c0, %c16, %c16 : !pto.ptr<ui8, gm>, !pto.ptr<ui8, ub>, i64, i64, i64, i64, i64, i1, i64, i64, i64
    return
  }
}"#,
        1,
        8,
        "more than ptovm allows in one transfer",
    );
}

/// A row stride of -4096 elements sends the load below GM's start: a fault
/// naming the range, not a wrapped address.
#[test]
fn a_negative_stride_view_faults_outside_gm() {
    expect_fault(
        r#"module attributes {pto.target_arch = "a2a3"} {
  func.func @k(%x: !pto.ptr<f32>) attributes {pto.entry} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cm = arith.constant -4096 : index
    %c32 = arith.constant 32 : index
    %xv = pto.make_tensor_view %x, shape = [%c32, %c32], strides = [%cm, %c1] : !pto.tensor_view<32x32xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c32, %c32] : !pto.tensor_view<32x32xf32> -> !pto.partition_tensor_view<32x32xf32>
    %a = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    pto.tload ins(%xp : !pto.partition_tensor_view<32x32xf32>) outs(%a : !pto.tile_buf<loc=vec, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    return
  }
}"#,
        1,
        10,
        "view element (1, 0) lies outside the address space",
    );
}

/// `scf.for` with step 0 would never end: it faults at the loop (a constant
/// zero step is refused by the verifier; this one is computed).
#[test]
fn a_loop_with_step_zero_faults() {
    expect_fault(
        r#"module attributes {pto.target_arch = "a2a3"} {
  func.func @k() attributes {pto.entry} {
    %c0 = arith.constant 0 : index
    %c10 = arith.constant 10 : index
    %z = arith.subi %c10, %c10 : index
    scf.for %i = %c0 to %c10 step %z {
    }
    return
  }
}"#,
        0,
        6,
        "step must be positive, got 0",
    );
}

/// `scf.for` over 2^62 iterations of scalar work stops at the step limit (a
/// step runs at most a bounded batch of scalar instructions), and a wall-clock
/// deadline stops it too.
#[test]
fn a_two_to_the_62_iteration_loop_stops_at_the_step_limit_and_the_deadline() {
    let src = r#"module attributes {pto.target_arch = "a2a3"} {
  func.func @k() attributes {pto.entry} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %big = arith.constant 4611686018427387904 : index
    %s = scf.for %i = %c0 to %big step %c1 iter_args(%a = %c0) -> (index) {
      %n = arith.addi %a, %i : index
      scf.yield %n : index
    }
    return
  }
}"#;
    let k = load_text("h.pto", src, None).unwrap_or_else(|e| panic!("does not load:\n{e}"));
    let cfg = Config {
        profile: k.profile,
        max_steps: 50,
        jit: JitMode::Off,
        ..Config::default()
    };
    let f = run_kernel(&k, &cfg, None, &[] as &[Arg]).expect("runs");
    assert!(
        matches!(f.out.error, Some(RunError::Limit(50))),
        "{:?}",
        f.out.error
    );
    let cfg = Config {
        max_steps: 0,
        watch: Some(pto_vm::Watch {
            deadline: Some(std::time::Instant::now() + std::time::Duration::from_millis(200)),
            ..pto_vm::Watch::default()
        }),
        ..cfg
    };
    let f = run_kernel(&k, &cfg, None, &[] as &[Arg]).expect("runs");
    assert!(
        matches!(f.out.error, Some(RunError::Timeout(_))),
        "{:?}",
        f.out.error
    );
}

/// Fuzz finding: f16 inputs holding NaNs and values near 6e4 (whose products
/// overflow, and inf - inf is NaN) gave NaN accumulators whose payloads
/// differ between the native matmul kernel and the interpreter (operand order
/// decides the payload x86 keeps), and `--crosscheck` stopped the run. Both
/// tiers must agree on every non-NaN bit and on where the NaNs are, and the
/// cross-check accepts a NaN for a NaN.
#[test]
fn matmul_nan_payloads_do_not_fail_the_crosscheck() {
    let src = include_str!("../../examples/matmul.pto");
    let k = load_text("matmul.pto", src, None).expect("loads");
    let pat =
        |i: usize| -> Vec<u8> { (0..4096).map(|k| ((k * 37 + i * 11) % 251) as u8).collect() };
    let a = pat(0);
    let nans = a
        .chunks(2)
        .filter(|h| half::f16::from_le_bytes([h[0], h[1]]).is_nan())
        .count();
    assert!(nans > 0, "the pattern must hold NaNs to test anything");
    let run = |jit: JitMode, crosscheck: bool| {
        let cfg = Config {
            profile: k.profile,
            check: CheckMode::Warn,
            jit,
            jit_threshold: 1,
            crosscheck,
            ..Config::default()
        };
        let args = vec![
            Arg::Buffer(a.clone()),
            Arg::Buffer(pat(1)),
            Arg::Buffer(vec![0; 4096]),
        ];
        let f = run_kernel(&k, &cfg, None, &args).expect("runs");
        assert!(f.out.error.is_none(), "{:?}", f.out.error);
        f
    };
    run(JitMode::Always, true);
    let out = |f: &pto_vm::Finished| -> Vec<u32> {
        f.buffers[2]
            .chunks(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    };
    let (x, y) = (
        out(&run(JitMode::Off, false)),
        out(&run(JitMode::Always, false)),
    );
    let nan = |v: u32| v & 0x7f80_0000 == 0x7f80_0000 && v & 0x007f_ffff != 0;
    assert!(x.iter().any(|&v| nan(v)), "the product must hold NaNs");
    for (i, (p, q)) in x.iter().zip(&y).enumerate() {
        assert!(
            p == q || (nan(*p) && nan(*q)),
            "element {i}: {p:#x} vs {q:#x}"
        );
    }
}

/// Expects `src` to be refused at load time with an error at `line` whose
/// text contains `want`.
fn expect_rejected(src: &str, line: u32, want: &str) {
    let e = load_text("h.pto", src, None)
        .err()
        .unwrap_or_else(|| panic!("loads, expected an error at line {line}: {want}"))
        .to_string();
    assert!(
        e.contains(&format!("h.pto:{line}:")) && e.contains(want),
        "{e}"
    );
}

const DYN_FLAGS: &str = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%id: i64) attributes {pto.entry} {
    pto.set_flag_dyn[#pto.pipe<PIPE_MTE2>, #pto.pipe<PIPE_V>, %id]
    pto.wait_flag_dyn[#pto.pipe<PIPE_MTE2>, #pto.pipe<PIPE_V>, %id]
    return
  }
}"#;

/// A runtime event id of 2^32 + 3 must not be truncated to EVENT_ID3 (which
/// would silently pair with another event): it faults at the set_flag_dyn,
/// naming the value, and so do negative ids.
#[test]
fn a_dynamic_event_id_beyond_32_bits_or_negative_faults() {
    expect_fault_with(
        DYN_FLAGS,
        0,
        &[(1 << 32) + 3],
        3,
        "id 4294967299 is outside 0..2^32",
    );
    expect_fault_with(DYN_FLAGS, 0, &[-1], 3, "id -1 is outside 0..2^32");
    expect_fault_with(DYN_FLAGS, 0, &[i64::MIN], 3, "is outside 0..2^32");
}

/// An id in 32 bits but past EVENT_ID15 is a bad-event-id diagnostic at
/// each op, and the run goes on without touching any event.
#[test]
fn a_dynamic_event_id_past_the_profile_is_diagnosed_at_each_op() {
    let (k, f) = run_hostile(DYN_FLAGS, 0, &[16]);
    assert!(f.out.error.is_none(), "{:?}", f.out.error);
    let lines: Vec<(pto_vm::DiagKind, u32)> = f
        .out
        .diags
        .list
        .iter()
        .map(|d| (d.kind, k.program.info(d.inst.expect("at an op")).loc.line))
        .collect();
    assert_eq!(
        lines,
        [
            (pto_vm::DiagKind::BadEventId, 3),
            (pto_vm::DiagKind::BadEventId, 4)
        ],
        "{:?}",
        f.out.diags.list
    );
    assert!(f.out.diags.list[0]
        .message
        .contains("event id 16 is outside EVENT_ID0..EVENT_ID15"));
}

/// A static event id past the profile's range never reaches the VM.
#[test]
fn a_static_event_id_out_of_range_is_refused_at_its_line() {
    expect_rejected(
        r#"module attributes {pto.target_arch = "a2a3"} {
  func.func @k() attributes {pto.entry} {
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID99"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    return
  }
}"#,
        3,
        "event id EVENT_ID99 is out of range on profile a2a3",
    );
}

/// Buffer tokens with a runtime id of 2^40 fault like event ids.
#[test]
fn a_dynamic_buffer_id_of_two_to_the_40_faults() {
    expect_fault_with(
        r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%id: i64) attributes {pto.entry} {
    pto.get_buf_dyn "PIPE_V", %id, 0
    pto.rls_buf_dyn "PIPE_V", %id, 0
    return
  }
}"#,
        0,
        &[1 << 40],
        3,
        "id 1099511627776 is outside 0..2^32",
    );
}

/// A legacy GM -> UB copy (`copy_gm_to_ubuf`) after `set_loop_size_outtoub`
/// and `set_loop1_stride_outtoub`; the copy is on line 14.
fn legacy_copy(size: (i64, i64), n_burst: i64, len: i64, loop1_src_stride: i64) -> String {
    format!(
        r#"module attributes {{pto.target_arch = "a2a3"}} {{
  func.func @k(%src: !pto.ptr<ui8, gm>) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : i64
    %c32 = arith.constant 32 : i64
    %a = arith.constant {} : i64
    %b = arith.constant {} : i64
    %nb = arith.constant {n_burst} : i64
    %len = arith.constant {len} : i64
    %s1 = arith.constant {loop1_src_stride} : i64
    %false = arith.constant false
    %ub = pto.castptr %c0 : i64 -> !pto.ptr<ui8, ub>
    pto.set_loop_size_outtoub %a, %b : i64, i64
    pto.set_loop1_stride_outtoub %s1, %c32 : i64, i64
    pto.copy_gm_to_ubuf %src, %ub, %c0, %nb, %len, %c0, %c0, %false, %c0, %c32, %c32 : !pto.ptr<ui8, gm>, !pto.ptr<ui8, ub>, i64, i64, i64, i64, i64, i1, i64, i64, i64
    return
  }}
}}"#,
        size.0, size.1
    )
}

/// set_loop_size registers holding (2^40, 2^40) loop counts over 2^40
/// bursts: the burst count overflowed u64 (a panic in debug builds); now the
/// copy faults as too large.
#[test]
fn legacy_loop_registers_with_two_to_the_40_counts_fault() {
    expect_fault(
        &legacy_copy((1 << 40, 1 << 40), 1 << 40, 16, 32),
        1,
        14,
        "more than ptovm allows in one transfer",
    );
}

/// A loop1 source stride of i64::MAX: the second loop iteration's offset
/// overflowed i64 (a panic in debug builds, a wrapped address in release);
/// now it faults at the copy.
#[test]
fn a_legacy_loop_stride_of_i64_max_faults() {
    expect_fault(
        &legacy_copy((2, 1), 1, 16, i64::MAX),
        1,
        14,
        "DMA address became negative or overflowed",
    );
}

/// `mte_gm_ub` with stride fields chosen to break it.
fn mte_gm_ub(n: i64, src_stride: i64, dst_stride: i64, len: i64) -> String {
    format!(
        r#"module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%src: !pto.ptr<f32, gm>) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : i64
    %n = arith.constant {n} : i64
    %ss = arith.constant {src_stride} : i64
    %ds = arith.constant {dst_stride} : i64
    %len = arith.constant {len} : i64
    %ub = pto.castptr %c0 : i64 -> !pto.ptr<f32, ub>
    pto.mte_gm_ub %src, %ub, %c0, %len nburst(%n, %ss, %ds) : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    return
  }}
}}"#
    )
}

/// 2^62 bursts of 0 bytes passed the byte limit and then looped 2^62 times
/// (a hang past any deadline: the deadline is checked between steps). A
/// burst of no bytes moves nothing, so the copy is done at once; with 64-byte
/// bursts the same count faults as too large.
#[test]
fn two_to_the_62_empty_bursts_finish_and_full_ones_fault() {
    // on a thread, so a regression fails here instead of hanging the suite
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let (_, f) = run_hostile(&mte_gm_ub(1 << 62, 0, 0, 0), 1, &[]);
        let _ = tx.send(f.out.error);
    });
    match rx.recv_timeout(std::time::Duration::from_secs(20)) {
        Ok(e) => assert!(e.is_none(), "{e:?}"),
        Err(e) => panic!("2^62 empty bursts did not finish in 20 s: {e}"),
    }
    expect_fault(
        &mte_gm_ub(1 << 62, 0, 0, 64),
        1,
        9,
        "more than ptovm allows in one transfer",
    );
}

/// Zero strides are legal (every burst lands on the same bytes); strides of
/// 2^62 and i64::MAX send the second burst outside GM / UB: a fault naming
/// the range, never a wrapped address.
#[test]
fn zero_and_huge_mte_strides() {
    let (_, f) = run_hostile(&mte_gm_ub(4, 0, 0, 64), 1, &[]);
    assert!(f.out.error.is_none(), "{:?}", f.out.error);
    expect_fault(&mte_gm_ub(4, 1 << 62, 64, 64), 1, 9, "GM access");
    expect_fault(
        &mte_gm_ub(3, 64, i64::MAX, 64),
        1,
        9,
        "is outside the 262144 bytes of UB",
    );
}

/// The cube's GM -> L1 copies: four groups of 2^24 (a burst count of 2^96
/// overflowed u64), a source stride of i64::MAX (the offset overflowed), and
/// an nd2nz repack whose destination strides are i64::MAX.
#[test]
fn cube_gm_to_l1_copies_with_hostile_counts_and_strides_fault() {
    let cube = |body: &str| {
        format!(
            r#"module attributes {{pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<cube>}} {{
  func.func @k(%x_gm: !pto.ptr<f32, gm>) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : i64
    %c16 = arith.constant 16 : i64
    %c64 = arith.constant 64 : i64
    %big = arith.constant 16777216 : i64
    %max = arith.constant 9223372036854775807 : i64
    %false = arith.constant false
    %l1_x = pto.castptr %c0 : i64 -> !pto.ptr<f32, l1>
{body}
    return
  }}
}}"#
        )
    };
    expect_fault(
        &cube("    pto.mte_gm_l1 %x_gm, %l1_x, %c64 nburst(%big, %c0, %c0) loop(%big, %c0, %c0) loop(%big, %c0, %c0) loop(%big, %c0, %c0)\n      : !pto.ptr<f32, gm>, !pto.ptr<f32, l1>, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64"),
        1,
        10,
        "'pto.mte_gm_l1' moves too many bytes",
    );
    expect_fault(
        &cube("    pto.mte_gm_l1 %x_gm, %l1_x, %c64 nburst(%c16, %max, %c64)\n      : !pto.ptr<f32, gm>, !pto.ptr<f32, l1>, i64, i64, i64, i64"),
        1,
        10,
        "cube op address became negative or overflowed",
    );
    expect_fault(
        &cube("    pto.mte_gm_l1_frac %x_gm, %l1_x, nd2nz, shape(%c16, %c16), src_layout(%max),\n        dst_group(%c16, %max, %max, %max), ctrl(%c0, %false)\n      : !pto.ptr<f32, gm>, !pto.ptr<f32, l1>, nd2nz, shape i64, i64, src_layout(i64),\n        dst_group i64, i64, i64, i64, ctrl i64, i1"),
        1,
        10,
        "'pto.mte_gm_l1_frac': an address overflows",
    );
}

/// Vector loads and stores with a distribution mode ptovm does not know
/// fault at the op (the verifier leaves the token open); a store whose
/// distribution packs to b16 lanes but whose mask is b32 never loads.
#[test]
fn unknown_and_mismatched_vector_distributions() {
    let vec = |ld: &str, st: &str| {
        format!(
            r#"module attributes {{pto.target_arch = "a5"}} {{
  func.func @k() attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %c0_i64 = arith.constant 0 : i64
    %ub = pto.castptr %c0_i64 : i64 -> !pto.ptr<f32, ub>
    pto.vecscope {{
      %all = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      %v = pto.vlds %ub[%c0]{ld} : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      pto.vsts %v, %ub[%c0], %all{st} : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>
    }}
    return
  }}
}}"#
        )
    };
    expect_fault(
        &vec(r#" {dist = "BOGUS"}"#, ""),
        0,
        8,
        "'pto.vlds' distribution mode BOGUS is not implemented",
    );
    expect_fault(
        &vec("", r#" {dist = "NOPE"}"#),
        0,
        9,
        "'pto.vsts' distribution mode NOPE is not implemented",
    );
    expect_rejected(
        &vec("", r#" {dist = "PK_B16"}"#),
        9,
        "mask type must be !pto.mask<b16> for dist PK_B16, got !pto.mask<b32>",
    );
}

/// FIFO ops outside a mixed kernel fault at the op; in the mixed FIFO
/// kernel, popping from a pipe id nothing initialised faults naming the pipe.
#[test]
fn fifo_ops_without_their_pipe_fault() {
    let tile = "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=32, v_row=16, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
    expect_fault(
        &format!(
            r#"module attributes {{pto.target_arch = "a5"}} {{
  func.func @k() attributes {{pto.entry}} {{
    %t = pto.tpop_from_aic {{id = 0, split = 1}} -> {tile}
    return
  }}
}}"#
        ),
        0,
        3,
        "tpop_from_aic needs a mixed kernel",
    );
    let src = include_str!("../../conformance/cases/mixed/fifo_matmul_relu_f32_32x128/kernel.pto");
    let pop = format!("%t = pto.tpop_from_aic {{id = 0, split = 1}} -> {tile}");
    let line = src.lines().position(|l| l.contains(&pop)).expect("the pop") as u32 + 1;
    let bad = src.replacen(&pop, &pop.replace("id = 0", "id = 5"), 1);
    let k = load_text("h.pto", &bad, None).unwrap_or_else(|e| panic!("does not load:\n{e}"));
    let cfg = Config {
        profile: k.profile,
        max_steps: 1_000_000,
        jit: JitMode::Off,
        ..Config::default()
    };
    let args = [
        Arg::Buffer(vec![0; 1 << 16]),
        Arg::Buffer(vec![0; 1 << 16]),
        Arg::Buffer(vec![0; 1 << 16]),
    ];
    let f = run_kernel(&k, &cfg, None, &args).expect("runs");
    match f.out.error {
        Some(RunError::Fault { inst, message }) => {
            assert_eq!(k.program.info(inst).loc.line, line, "{message}");
            assert!(
                message.contains("FIFO pipe 5: no pto.aic_initialize_pipe/aiv_initialize_pipe"),
                "{message}"
            );
        }
        other => panic!("expected a fault at line {line}, got {other:?}"),
    }
}

/// A FIFO set up with a direction mask of 7 and a split of 9 is refused at
/// the lines that say so.
#[test]
fn fifo_setup_with_nonsense_fields_is_refused() {
    expect_rejected(
        r#"module attributes {pto.target_arch = "a5"} {
  func.func @k() attributes {pto.kernel_kind = #pto.kernel_kind<vector>} {
    pto.aiv_initialize_pipe {id = 0, dir_mask = 7, slot_size = 4096, slot_num = 2}
    pto.tfree_from_aic {id = 0, split = 9}
    return
  }
}"#,
        3,
        "expects 'dir_mask' to be 1, 2, or 3, got 7",
    );
}

/// Cross-core semaphore ids from a register: 2^40 and -3 fault at the
/// set_intra_block / wait_intra_block that reads them.
#[test]
fn a_dynamic_semaphore_id_beyond_32_bits_or_negative_faults() {
    let src = |set: &str, wait: &str| {
        format!(
            r#"module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%id: i64) attributes {{pto.entry}} {{
    pto.section.cube {{
      pto.set_intra_block <PIPE_S>, {set}
      pto.set_intra_block <PIPE_S>, 17
    }}
    pto.section.vector {{
      pto.wait_intra_block <PIPE_MTE3>, {wait}
    }}
    return
  }}
}}"#
        )
    };
    expect_fault_with(
        &src("%id", "1"),
        0,
        &[1 << 40],
        4,
        "id 1099511627776 is outside 0..2^32",
    );
    expect_fault_with(&src("1", "%id"), 0, &[-3], 8, "id -3 is outside 0..2^32");
}

/// A cross-core semaphore id from a register that fits 32 bits but not the
/// profile (99 on a5, which has 0..31) is diagnosed at the op that names it.
#[test]
fn a_dynamic_semaphore_id_past_the_profile_is_diagnosed() {
    let src = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%id: i64) attributes {pto.entry} {
    pto.section.cube {
      pto.set_intra_block <PIPE_S>, %id
      pto.set_intra_block <PIPE_S>, 1
      pto.set_intra_block <PIPE_S>, 17
    }
    pto.section.vector {
      pto.wait_intra_block <PIPE_MTE3>, 1
    }
    return
  }
}"#;
    let (k, f) = run_hostile(src, 0, &[99]);
    let bad: Vec<(u32, &str)> = f
        .out
        .diags
        .list
        .iter()
        .filter(|d| d.kind == pto_vm::DiagKind::BadEventId)
        .map(|d| {
            (
                k.program.info(d.inst.expect("at an op")).loc.line,
                d.message.as_str(),
            )
        })
        .collect();
    assert_eq!(bad.len(), 1, "{:?}", f.out.diags.list);
    assert_eq!(bad[0].0, 4);
    assert!(
        bad[0]
            .1
            .contains("cross-core semaphore id 99 is outside 0..31 of profile a5"),
        "{}",
        bad[0].1
    );
    // an id in range is not diagnosed
    let (_, f) = run_hostile(src, 0, &[2]);
    assert!(
        f.out
            .diags
            .list
            .iter()
            .all(|d| d.kind != pto_vm::DiagKind::BadEventId),
        "{:?}",
        f.out.diags.list
    );
}

/// Gaps of i64::MAX in the vector's UB -> L1 copy and the cube's L1 -> FB
/// copy: the next burst's offset saturates and the copy faults at its line
/// naming the range (the offsets once overflowed: a panic in debug builds).
#[test]
fn ub_to_l1_and_l1_to_fb_copies_with_huge_gaps_fault() {
    expect_fault(
        r#"module attributes {pto.target_arch = "a5"} {
  func.func @k() attributes {pto.entry} {
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %max = arith.constant 9223372036854775807 : i64
    %ub = pto.castptr %c0 : i64 -> !pto.ptr<f32, ub>
    %l1 = pto.castptr %c0 : i64 -> !pto.ptr<f32, l1>
    pto.mte_ub_l1 %ub, %l1, %c1 nburst(%c2, %max, %c0) : !pto.ptr<f32, ub>, !pto.ptr<f32, l1>, i64, i64, i64, i64
    return
  }
}"#,
        0,
        9,
        "UB access [0x7fffffffffffffff, 0x800000000000001f) is outside the 262144 bytes of UB",
    );
    expect_fault(
        r#"module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<cube>} {
  func.func @k() attributes {pto.entry} {
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %max = arith.constant 9223372036854775807 : i64
    %l1 = pto.castptr %c0 : i64 -> !pto.ptr<f32, l1>
    %fb = pto.castptr %c0 : i64 -> !pto.ptr<f32, fb>
    pto.mte_l1_fb %l1, %fb, %c1 nburst(%c2, %c0, %max) : !pto.ptr<f32, l1>, !pto.ptr<f32, fb>, i64, i64, i64, i64
    return
  }
}"#,
        0,
        9,
        "FB access [0x7fffffffffffffff, 0x800000000000003f) is outside the 4096 bytes of FB",
    );
}

/// As [`expect_fault`], on a thread with a 30 s limit: the op under test
/// once looped inside one step (where the run's deadline is not checked),
/// so a regression fails here instead of hanging the suite.
fn expect_fault_soon(src: String, nbufs: usize, line: u32, want: &'static str) {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        expect_fault(&src, nbufs, line, want);
        let _ = tx.send(());
    });
    match rx.recv_timeout(std::time::Duration::from_secs(30)) {
        Ok(()) => {}
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("no fault containing '{want}' within 30 s (a hang)")
        }
        Err(e) => panic!("the run panicked: {e}"),
    }
}

/// An a5 cube kernel over one f32 GM buffer with constants chosen to break
/// cube ops; `body` starts on line 18.
fn cube_kernel(body: &str) -> String {
    format!(
        r#"module attributes {{pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<cube>}} {{
  func.func @k(%x_gm: !pto.ptr<f32, gm>) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %c16 = arith.constant 16 : i64
    %c128 = arith.constant 128 : i64
    %big = arith.constant 16777216 : i64
    %huge = arith.constant 4611686018427387904 : i64
    %max = arith.constant 9223372036854775807 : i64
    %neg = arith.constant -1 : i64
    %min = arith.constant -9223372036854775808 : i64
    %false = arith.constant false
    %l1 = pto.castptr %c0 : i64 -> !pto.ptr<f32, l1>
    %l0a = pto.castptr %c0 : i64 -> !pto.ptr<f32, l0a>
    %l0c = pto.castptr %c0 : i64 -> !pto.ptr<f32, l0c>
    %bt = pto.castptr %c0 : i64 -> !pto.ptr<f32, bt>
{body}
    return
  }}
}}"#
    )
}

/// `mte_gm_l1_frac` with a group count of 2^62 (or a negative one) over an
/// empty shape looped 2^62 times doing nothing (a hang): the count faults
/// as out of range. 2^24 groups of 2^24 empty rows (each count in range)
/// move nothing and finish at once.
#[test]
fn gm_l1_frac_with_hostile_group_counts() {
    let frac = |shape: &str, groups: &str| {
        cube_kernel(&format!(
            "    pto.mte_gm_l1_frac %x_gm, %l1, nd2nz, shape({shape}), src_layout(%c16),\n        dst_group({groups}, %c1, %c16, %c0), ctrl(%c0, %false)\n      : !pto.ptr<f32, gm>, !pto.ptr<f32, l1>, nd2nz, shape i64, i64, src_layout(i64),\n        dst_group i64, i64, i64, i64, ctrl i64, i1"
        ))
    };
    expect_fault_soon(
        frac("%c0, %c16", "%huge"),
        1,
        18,
        "'pto.mte_gm_l1_frac': group count 4611686018427387904 is outside [0, 2^24]",
    );
    expect_fault_soon(
        frac("%c16, %c16", "%neg"),
        1,
        18,
        "'pto.mte_gm_l1_frac': group count -1 is outside [0, 2^24]",
    );
    expect_fault_soon(
        frac("%max, %c16", "%c1"),
        1,
        18,
        "'pto.mte_gm_l1_frac': row count 9223372036854775807 is outside [0, 2^24]",
    );
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let (_, f) = run_hostile(&frac("%big, %c0", "%big"), 1, &[]);
        let _ = tx.send(f.out.error);
    });
    match rx.recv_timeout(std::time::Duration::from_secs(30)) {
        Ok(e) => assert!(e.is_none(), "{e:?}"),
        Err(e) => panic!("2^24 x 2^24 empty rows did not finish in 30 s: {e}"),
    }
}

/// The full-control `mte_l1_l0a` (whole fractals: m_start, k_start, m_step,
/// k_step, src_stride, dst_stride) with 128 x 2^24 fractals whose zero
/// strides keep every copy in bounds: it copied 1 TiB (a hang); now it
/// faults as too large.
#[test]
fn full_control_l1_to_l0a_with_two_to_the_31_fractals_faults() {
    expect_fault_soon(
        cube_kernel("    pto.mte_l1_l0a %l1, %l0a, %c0, %c0, %c128, %big, %c0, %c0\n      : !pto.ptr<f32, l1>, !pto.ptr<f32, l0a>, i64, i64, i64, i64, i64, i64"),
        1,
        18,
        "'pto.mte_l1_l0a' moves 128 x 16777216 fractals",
    );
}

/// The shape-form `mte_l1_l0a` of 2^24 x 16 f32 elements (within the work
/// cap, far past L0A): the copy's fast path builds per-row tables only for
/// what the destination can hold, so this faults at the first element
/// outside L0A instead of allocating gigabytes first.
#[test]
fn shape_form_l1_to_l0a_past_l0a_faults_without_allocating() {
    expect_fault_soon(
        cube_kernel("    pto.mte_l1_l0a %l1, %l0a, %big, %c16, %c0, %c0\n      : !pto.ptr<f32, l1>, !pto.ptr<f32, l0a>, i64, i64, i64, i64"),
        1,
        18,
        "outside the",
    );
}

/// A FIXPIPE write-back whose column blocks overlap in L0C (source stride 0:
/// the first block's 16th column lies past the second block's last): the
/// L0C bytes it reads are copied once for the whole result, and that copy
/// must reach the furthest byte any element reads, not just the last
/// element's (a panic before it did). The result reads as it did element by
/// element.
#[test]
fn fixpipe_with_overlapping_column_blocks_reads_every_element() {
    let src = cube_kernel(
        "    %c17 = arith.constant 17 : i64\n    pto.mte_l0c_gm %l0c, %x_gm, %c2, %c17, %c0, %c17, %c0, %c0, nz2nd\n      : !pto.ptr<f32, l0c>, !pto.ptr<f32, gm>, i64, i64, i64, i64, i64, i64",
    );
    let (_, f) = run_hostile(&src, 1, &[]);
    assert!(f.out.error.is_none(), "{:?}", f.out.error);
}

/// `mte_l1_bt` with a source gap of i64::MAX: the second burst's offset
/// overflowed i64 (a panic in debug builds); now it faults at its line
/// naming the range.
#[test]
fn l1_to_bt_copy_with_an_i64_max_gap_faults() {
    expect_fault_soon(
        cube_kernel("    pto.mte_l1_bt %l1, %bt, %c1 nburst(%c2, %max, %c0)\n      : !pto.ptr<f32, l1>, !pto.ptr<f32, bt>, i64, i64, i64, i64"),
        1,
        18,
        "is outside the 524288 bytes of L1",
    );
    expect_fault_soon(
        cube_kernel("    pto.mte_l1_bt %l1, %bt, %c1 nburst(%c2, %c0, %max)\n      : !pto.ptr<f32, l1>, !pto.ptr<f32, bt>, i64, i64, i64, i64"),
        1,
        18,
        "bytes of BT",
    );
}

/// FIXPIPE `mte_l0c_gm` repeated 2^24 times by `loop3` over a 16 x 16
/// write-back with a destination stride of 0 (every pass in bounds): 2^32
/// element conversions (a hang); a loop3 destination stride of i64::MAX or
/// i64::MIN overflowed (a panic in debug builds). All fault at the op.
#[test]
fn fixpipe_loop3_with_hostile_count_and_stride_faults() {
    let fix = |loop3: &str| {
        cube_kernel(&format!(
            "    pto.mte_l0c_gm %l0c, %x_gm, %c16, %c16, %c16, %c16, %c0, %c0, nz2nd, loop3({loop3})\n      : !pto.ptr<f32, l0c>, !pto.ptr<f32, gm>, i64, i64, i64, i64, i64, i64, i64, i64, i64"
        ))
    };
    expect_fault_soon(
        fix("%big, %c0, %c0"),
        1,
        18,
        "'pto.mte_l0c_gm' writes 16777216 x 16 x 16 elements",
    );
    expect_fault_soon(
        fix("%c2, %c0, %max"),
        1,
        18,
        "'pto.mte_l0c_gm': loop3 pass 1 starts outside the address space",
    );
    // a negative source stride was read as 0 and the copy ran; every
    // nonzero source stride is refused alike
    expect_fault_soon(
        fix("%c2, %neg, %c0"),
        1,
        18,
        "'pto.mte_l0c_gm' with a loop3 source stride (-1) is not implemented",
    );
    expect_fault_soon(
        fix("%c2, %c0, %min"),
        1,
        18,
        "'pto.mte_l0c_gm': loop3 pass 1 starts outside the address space",
    );
}

const ACC: &str = "!pto.tile_buf<loc=acc, dtype=i32, rows=16, cols=32, v_row=16, v_col=32, blayout=col_major, slayout=row_major, fractal=1024, pad=0>";
const SCALES: &str = "!pto.tile_buf<loc=scaling, dtype=f32, rows=1, cols=32, v_row=1, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
const VH: &str = "!pto.tile_buf<loc=vec, dtype=f16, rows=8, cols=32, v_row=8, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>";

/// An a5 kernel with an i32 acc tile `%c`, f32 scales `%sf`, an f16 vec tile
/// `%vh` and a 16 x 32 f16 GM view `%gp` whose row stride is 2^62 elements;
/// `body` is on line 16.
fn acc_kernel(body: &str) -> String {
    format!(
        r#"module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%g: !pto.ptr<f16>) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %max = arith.constant 9223372036854775807 : index
    %huge = arith.constant 4611686018427387904 : index
    %w = arith.constant 1065353216 : i64
    %c = pto.alloc_tile : {ACC}
    %sf = pto.alloc_tile : {SCALES}
    %vh = pto.alloc_tile : {VH}
    %gv = pto.make_tensor_view %g, shape = [%c16, %c32], strides = [%huge, %c1] : !pto.tensor_view<16x32xf16>
    %gp = pto.partition_view %gv, offsets = [%c0, %c0], sizes = [%c16, %c32] : !pto.tensor_view<16x32xf16> -> !pto.partition_tensor_view<16x32xf16>
{body}
    return
  }}
}}"#
    )
}

/// `textract.fp` at row i64::MAX: the window's end overflowed (a panic in
/// debug builds); now the window faults as outside the source tile.
#[test]
fn textract_fp_at_row_i64_max_faults() {
    expect_fault_soon(
        acc_kernel(&format!(
            "    pto.textract.fp ins(%c, %sf, %max, %c0 : {ACC}, {SCALES}, index, index) outs(%vh : {VH})"
        )),
        1,
        16,
        "a 8x32 window at (9223372036854775807, 0) is outside the 16x32 source tile",
    );
    expect_fault_soon(
        acc_kernel(&format!(
            "    pto.tinsert.fp ins(%c, %sf, %c0, %max : {ACC}, {SCALES}, index, index) outs(%vh : {VH})"
        )),
        1,
        16,
        "a 16x32 block at (0, 9223372036854775807) is outside the 8x32 destination tile",
    );
}

/// FIXPIPE stores from an acc tile (`tstore.fp`, and `tstore` with a
/// scalar quant word) into a view whose row stride is 2^62 f16 elements:
/// row 1's byte offset overflowed i64 (a panic in debug builds); now the
/// store faults naming the element.
#[test]
fn fixpipe_stores_through_a_view_with_a_huge_stride_fault() {
    expect_fault_soon(
        acc_kernel(&format!(
            "    pto.tstore.fp ins(%c, %sf : {ACC}, {SCALES}) outs(%gp : !pto.partition_tensor_view<16x32xf16>)"
        )),
        1,
        16,
        "view element (1, 0) lies outside the address space",
    );
    expect_fault_soon(
        acc_kernel(&format!(
            "    pto.tstore ins(%c : {ACC}, %w : i64) outs(%gp : !pto.partition_tensor_view<16x32xf16>)"
        )),
        1,
        16,
        "view element (1, 0) lies outside the address space",
    );
}

/// `comm.tput` from a view whose row stride is 2^62 elements: the element
/// addresses overflowed (a panic in debug builds); now it faults.
#[test]
fn comm_put_from_a_view_with_a_huge_stride_faults() {
    expect_fault_soon(
        r#"module attributes {pto.target_arch = "a2a3"} {
  func.func @k(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>) attributes {pto.entry} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %huge = arith.constant 4611686018427387904 : index
    %av = pto.make_tensor_view %a, shape = [%c2, %c64], strides = [%huge, %c1] : !pto.tensor_view<2x64xf32>
    %ap = pto.partition_view %av, offsets = [%c0, %c0], sizes = [%c2, %c64] : !pto.tensor_view<2x64xf32> -> !pto.partition_tensor_view<2x64xf32>
    %bv = pto.make_tensor_view %b, shape = [%c2, %c64], strides = [%c64, %c1] : !pto.tensor_view<2x64xf32>
    %bp = pto.partition_view %bv, offsets = [%c0, %c0], sizes = [%c2, %c64] : !pto.tensor_view<2x64xf32> -> !pto.partition_tensor_view<2x64xf32>
    %t = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=64, v_row=1, v_col=64, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    pto.comm.tput(%bp, %ap, buf(%t) : !pto.partition_tensor_view<2x64xf32>, !pto.partition_tensor_view<2x64xf32>, !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=64, v_row=1, v_col=64, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    return
  }
}"#
        .to_string(),
        2,
        13,
        "view element (1, 0) lies outside the address space",
    );
}

/// A root-driven collective on two ranks whose `root` attribute is `root`;
/// the collective is on line 19, run by rank 0.
fn collective_with_root(op: &str, root: i64) -> String {
    let t = "!pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=64, v_row=1, v_col=64, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
    let pv = "!pto.partition_tensor_view<1x64xf32>";
    let gv = "!pto.partition_tensor_view<2x64xf32>";
    let (first, ty) = match op {
        "tgather" | "tscatter" => ("%gp", gv),
        _ => ("%sp", pv),
    };
    format!(
        r#"module attributes {{pto.target_arch = "a2a3"}} {{
  func.func @k(%me: i32, %src: !pto.ptr<f32>, %g0: !pto.ptr<f32>, %g1: !pto.ptr<f32>) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0 : i32
    %sv = pto.make_tensor_view %src, shape = [%c1, %c64], strides = [%c64, %c1] : !pto.tensor_view<1x64xf32>
    %sp = pto.partition_view %sv, offsets = [%c0, %c0], sizes = [%c1, %c64] : !pto.tensor_view<1x64xf32> -> {pv}
    %gv = pto.make_tensor_view %src, shape = [%c2, %c64], strides = [%c64, %c1] : !pto.tensor_view<2x64xf32>
    %gp = pto.partition_view %gv, offsets = [%c0, %c0], sizes = [%c2, %c64] : !pto.tensor_view<2x64xf32> -> {gv}
    %g0v = pto.make_tensor_view %g0, shape = [%c1, %c64], strides = [%c64, %c1] : !pto.tensor_view<1x64xf32>
    %g0p = pto.partition_view %g0v, offsets = [%c0, %c0], sizes = [%c1, %c64] : !pto.tensor_view<1x64xf32> -> {pv}
    %g1v = pto.make_tensor_view %g1, shape = [%c1, %c64], strides = [%c64, %c1] : !pto.tensor_view<1x64xf32>
    %g1p = pto.partition_view %g1v, offsets = [%c0, %c0], sizes = [%c1, %c64] : !pto.tensor_view<1x64xf32> -> {pv}
    %t = pto.alloc_tile : {t}
    %is0 = arith.cmpi eq, %me, %zero : i32
    scf.if %is0 {{
      pto.comm.{op}({first}, recv(%t), group(%g0p, %g1p) : {ty}, {t}, {pv}, {pv}) {{root = {root} : i32}}
    }}
    return
  }}
}}"#
    )
}

/// A collective's `root` outside its group (7 or -1 with two members) was
/// ignored; it faults at the op naming the root and the group size, and an
/// in-group root runs.
#[test]
fn a_collective_root_outside_the_group_faults() {
    let run = |op: &str, root: i64| {
        let src = collective_with_root(op, root);
        let k = load_text("h.pto", &src, None).unwrap_or_else(|e| panic!("does not load:\n{e}"));
        let cfg = Config {
            profile: k.profile,
            jit: JitMode::Off,
            ..Config::default()
        };
        let args: Vec<Vec<Arg>> = (0..2)
            .map(|r| {
                vec![
                    Arg::Int(r),
                    Arg::Buffer(vec![0; 512]),
                    Arg::Peer { arg: 1, rank: 0 },
                    Arg::Peer { arg: 1, rank: 1 },
                ]
            })
            .collect();
        let f = pto_vm::run_kernel_ranks(&k, &cfg, None, &args).expect("runs");
        (k, f.out.error)
    };
    for (op, root) in [("tbroadcast", 7), ("tgather", -1), ("tscatter", 2)] {
        let want = format!("{op}: root {root} is outside the group of 2 members (0..=1)");
        match run(op, root) {
            (k, Some(RunError::Fault { inst, message })) => {
                assert_eq!(k.program.info(inst).loc.line, 19, "{message}");
                assert!(message.contains(&want), "{message}");
            }
            (_, other) => panic!("expected a fault containing '{want}', got {other:?}"),
        }
    }
    assert_eq!(run("tbroadcast", 1).1, None);
}

/// `tgather` into a 3-D view whose middle stride is 2^62: the contiguity
/// check of the row split multiplied stride by extent and overflowed (a
/// panic in debug builds); now such a view is refused as not contiguous.
#[test]
fn a_gather_into_a_view_with_a_huge_outer_stride_faults() {
    let t = "!pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=64, v_row=1, v_col=64, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
    let pv = "!pto.partition_tensor_view<1x64xf32>";
    let tv3 = "!pto.tensor_view<2x2x64xf32>";
    let pv3 = "!pto.partition_tensor_view<2x2x64xf32>";
    expect_fault_soon(
        format!(
            r#"module attributes {{pto.target_arch = "a2a3"}} {{
  func.func @k(%src: !pto.ptr<f32>, %dst: !pto.ptr<f32>) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %huge = arith.constant 4611686018427387904 : index
    %sv = pto.make_tensor_view %src, shape = [%c1, %c64], strides = [%c64, %c1] : !pto.tensor_view<1x64xf32>
    %sp = pto.partition_view %sv, offsets = [%c0, %c0], sizes = [%c1, %c64] : !pto.tensor_view<1x64xf32> -> {pv}
    %dv = pto.make_tensor_view %dst, shape = [%c2, %c2, %c64], strides = [%c64, %huge, %c1] : {tv3}
    %dp = pto.partition_view %dv, offsets = [%c0, %c0, %c0], sizes = [%c2, %c2, %c64] : {tv3} -> {pv3}
    %t = pto.alloc_tile : {t}
    pto.comm.tgather(%dp, recv(%t), group(%sp) : {pv3}, {t}, {pv}) {{root = 0 : i32}}
    return
  }}
}}"#
        ),
        2,
        13,
        "row-split collectives need views whose outer dims are contiguous",
    );
}

/// A `tnotify` / `twait` value of 2^32 + 3 was truncated to the i32 signal
/// 3 (the notify set 3 and the wait for 2^32 + 3 then passed); both fault
/// naming the value.
#[test]
fn a_signal_value_beyond_i32_faults() {
    let src = |value: &str| {
        format!(
            r#"module attributes {{pto.target_arch = "a2a3"}} {{
  func.func @k(%sig: !pto.ptr<i32>, %v: i64) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %three = arith.constant 3 : i64
    %sv = pto.make_tensor_view %sig, shape = [%c1], strides = [%c1] : !pto.tensor_view<1xi32>
    %sp = pto.partition_view %sv, offsets = [%c0], sizes = [%c1] : !pto.tensor_view<1xi32> -> !pto.partition_tensor_view<1xi32>
    pto.comm.tnotify(%sp, {value} : !pto.partition_tensor_view<1xi32>, i64) {{notifyOp = #pto<notify_op set>}}
    pto.comm.twait(%sp, %v : !pto.partition_tensor_view<1xi32>, i64) {{cmp = #pto<wait_cmp eq>}}
    return
  }}
}}"#
        )
    };
    expect_fault_with(
        &src("%v"),
        1,
        &[(1 << 32) + 3],
        8,
        "tnotify: signal value 4294967299 is outside the i32 range of signals",
    );
    expect_fault_with(
        &src("%three"),
        1,
        &[(1 << 32) + 3],
        9,
        "twait: signal value 4294967299 is outside the i32 range of signals",
    );
    expect_fault_with(
        &src("%three"),
        1,
        &[i64::MIN],
        9,
        "twait: signal value -9223372036854775808 is outside",
    );
    let (_, f) = run_hostile(&src("%three"), 1, &[3]);
    assert!(f.out.error.is_none(), "{:?}", f.out.error);
}

/// A view whose row stride is 2^62 elements: `tload`/`tstore` (element and
/// row-copy paths, interpreted and compiled), `tprint`, and a partition at a
/// nonzero row of it fault naming the address space instead of overflowing
/// (a debug-build panic before).
#[test]
fn views_with_a_two_to_the_62_row_stride_fault() {
    let kernel = |body: &str| {
        format!(
            r#"module attributes {{pto.target_arch = "a2a3"}} {{
  func.func @k(%x: !pto.ptr<f32>) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %big = arith.constant 4611686018427387904 : index
    %xv = pto.make_tensor_view %x, shape = [%c4, %c8], strides = [%big, %c1] : !pto.tensor_view<4x8xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c4, %c8] : !pto.tensor_view<4x8xf32> -> !pto.partition_tensor_view<4x8xf32>
    %a = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f32, rows=4, cols=8, v_row=4, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>
{body}
    return
  }}
}}"#
        )
    };
    let ty = "!pto.tile_buf<loc=vec, dtype=f32, rows=4, cols=8, v_row=4, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
    let load =
        format!("    pto.tload ins(%xp : !pto.partition_tensor_view<4x8xf32>) outs(%a : {ty})");
    let store =
        format!("    pto.tstore ins(%a : {ty}) outs(%xp : !pto.partition_tensor_view<4x8xf32>)");
    let print = "    pto.tprint ins(%xp : !pto.partition_tensor_view<4x8xf32>)".to_string();
    let part = "    %p1 = pto.partition_view %xv, offsets = [%c2, %c0], sizes = [%c2, %c8] : !pto.tensor_view<4x8xf32> -> !pto.partition_tensor_view<2x8xf32>".to_string();
    for body in [load, store, print] {
        expect_fault(&kernel(&body), 1, 12, "outside the address space");
    }
    expect_fault(
        &kernel(&part),
        1,
        12,
        "moves the view outside the address space",
    );
    // the compiled tier's row copies say the same
    for body in [
        format!("    pto.tload ins(%xp : !pto.partition_tensor_view<4x8xf32>) outs(%a : {ty})"),
        format!("    pto.tstore ins(%a : {ty}) outs(%xp : !pto.partition_tensor_view<4x8xf32>)"),
    ] {
        let src = kernel(&body);
        let k = load_text("h.pto", &src, None).expect("loads");
        let cfg = Config {
            profile: k.profile,
            jit: JitMode::Always,
            ..Config::default()
        };
        let f = run_kernel(&k, &cfg, None, &[Arg::Buffer(vec![0; 4096])]).expect("runs");
        match f.out.error {
            Some(RunError::Fault { message, .. }) => {
                assert!(message.contains("outside the address space"), "{message}")
            }
            e => panic!("a fault, not {e:?}"),
        }
    }
}

/// `addptr` by an element count whose byte offset overflows i64 faults.
#[test]
fn addptr_past_the_address_space_faults() {
    expect_fault(
        r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%x: !pto.ptr<f32, gm>) attributes {pto.entry} {
    %big = arith.constant 4611686018427387904 : index
    %p = pto.addptr %x, %big : !pto.ptr<f32, gm> -> !pto.ptr<f32, gm>
    return
  }
}"#,
        1,
        4,
        "overflows the address space",
    );
}

/// A `tput` of a zero-stride view of 2^25 rows (128 MiB of f32 from one
/// address) is refused before any address list is built: it used to take
/// seconds and gigabytes at the old cap of 2^28 elements.
#[test]
fn comm_put_of_a_two_to_the_25_element_view_faults_at_once() {
    expect_fault_soon(
        r#"module attributes {pto.target_arch = "a2a3"} {
  func.func @k(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>) attributes {pto.entry} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %rows = arith.constant 33554432 : index
    %av = pto.make_tensor_view %a, shape = [%rows, %c1], strides = [%c0, %c1] : !pto.tensor_view<?x1xf32>
    %ap = pto.partition_view %av, offsets = [%c0, %c0], sizes = [%rows, %c1] : !pto.tensor_view<?x1xf32> -> !pto.partition_tensor_view<?x1xf32>
    %bv = pto.make_tensor_view %b, shape = [%rows, %c1], strides = [%c0, %c1] : !pto.tensor_view<?x1xf32>
    %bp = pto.partition_view %bv, offsets = [%c0, %c0], sizes = [%rows, %c1] : !pto.tensor_view<?x1xf32> -> !pto.partition_tensor_view<?x1xf32>
    %t = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=64, v_row=1, v_col=64, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    pto.comm.tput(%bp, %ap, buf(%t) : !pto.partition_tensor_view<?x1xf32>, !pto.partition_tensor_view<?x1xf32>, !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=64, v_row=1, v_col=64, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    return
  }
}"#
        .to_string(),
        2,
        11,
        "33554432x1 view is too large to transfer",
    );
}

const VF: &str = "!pto.tile_buf<loc=vec, dtype=f16, rows=16, cols=32, v_row=16, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
const VF2: &str = "!pto.tile_buf<loc=vec, dtype=f16, rows=2, cols=32, v_row=2, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>";

/// `textract` (from an acc tile with a quant word, and from a vec tile),
/// `tinsert` and `subview` at a row or column of i64::MAX: the window's end
/// overflowed (a panic in debug builds); now each faults as outside its
/// tile.
#[test]
fn textract_tinsert_and_subview_at_i64_max_fault() {
    expect_fault_soon(
        acc_kernel(&format!(
            "    pto.textract ins(%c, %max, %c0, %w : {ACC}, index, index, i64) outs(%vh : {VH})"
        )),
        1,
        16,
        "a 8x32 window at (9223372036854775807, 0) is outside the 16x32 source tile",
    );
    let vec = |body: &str| {
        acc_kernel(&format!(
            "    %vf = pto.alloc_tile : {VF}\n    %vf2 = pto.alloc_tile : {VF2}\n{body}"
        ))
    };
    expect_fault_soon(
        vec(&format!(
            "    pto.textract ins(%vf, %c0, %max : {VF}, index, index) outs(%vh : {VH})"
        )),
        1,
        18,
        "a 8x32 window at (0, 9223372036854775807) is outside the 16x32 source tile",
    );
    expect_fault_soon(
        vec(&format!(
            "    pto.tinsert ins(%vh, %max, %c0 : {VH}, index, index) outs(%vf : {VF})"
        )),
        1,
        18,
        "a 8x32 block at (9223372036854775807, 0) does not fit the 16x32 destination tile",
    );
    expect_fault_soon(
        vec(&format!(
            "    %r = pto.subview %vf[%max, %c0] sizes [2, 32] : {VF} -> {VF2}\n    pto.tmov ins(%r : {VF2}) outs(%vf2 : {VF2})"
        )),
        1,
        18,
        "subview: the 2x32 window (valid 2x32) at (9223372036854775807, 0) leaves the 16x32 source",
    );
}

/// A DMA that runs past the end of GM names the argument buffer it started in.
#[test]
fn a_dma_past_the_end_of_gm_names_the_buffer_it_left() {
    expect_fault(
        r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%x: !pto.ptr<f32, gm>) attributes {pto.entry} {
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %big = arith.constant 200000 : i64
    %ub = pto.castptr %c0_i64 : i64 -> !pto.ptr<f32, ub>
    pto.mte_gm_ub %x, %ub, %c0_i64, %big nburst(%c1_i64, %big, %big) : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    return
  }
}"#,
        1,
        7,
        "; it starts in %x (4096 bytes at 0x1000) and runs 195904 bytes past its end",
    );
}
