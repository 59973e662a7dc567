//! `--timeout` inside one operation: kernels whose single ops are sized to
//! run for many seconds (a DMA of 2^30 bursts, a cube GM -> L1 repack of
//! 2^28 elements, a FIXPIPE write-back of 2^20 passes, a broadcast to 16
//! views of 2^24 elements, a SIMT launch and a vector scope of ~10^8
//! steps). The machine checks the deadline only between steps; these ops
//! charge the work meter (`exec::meter`) as they go, so a run with a 0.3 s
//! deadline stops with `RunError::Timeout`, whatever the op. Only the error
//! kind is asserted, never a duration (each run is on a thread with a
//! generous limit, so a regression fails instead of hanging the suite).

use pto_vm::{load_text, run_kernel, Arg, CheckMode, Config, JitMode, RunError};
use std::time::{Duration, Instant};

/// Runs `src`'s entry on `nbufs` 4 KiB buffers with a 0.3 s deadline in
/// `jit` and returns the run's error.
fn run_with_deadline(src: &str, nbufs: usize, jit: JitMode) -> Option<RunError> {
    let k = load_text("d.pto", src, None).unwrap_or_else(|e| panic!("does not load:\n{e}"));
    let cfg = Config {
        profile: k.profile,
        check: CheckMode::Warn,
        jit,
        jit_threshold: 0,
        watch: Some(pto_vm::Watch {
            deadline: Some(Instant::now() + Duration::from_millis(300)),
            ..pto_vm::Watch::default()
        }),
        ..Config::default()
    };
    let args: Vec<Arg> = (0..nbufs).map(|_| Arg::Buffer(vec![0; 4096])).collect();
    let t0 = Instant::now();
    let f = run_kernel(&k, &cfg, None, &args).expect("runs");
    eprintln!("{jit:?}: stopped after {:?}", t0.elapsed());
    f.out.error
}

/// Expects a timeout in both tiers, each run on a thread given 60 s.
fn expect_timeout(src: String, nbufs: usize) {
    for jit in [JitMode::Off, JitMode::Always] {
        let (tx, rx) = std::sync::mpsc::channel();
        let s = src.clone();
        std::thread::spawn(move || {
            let _ = tx.send(run_with_deadline(&s, nbufs, jit));
        });
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(Some(RunError::Timeout(_))) => {}
            Ok(other) => panic!("{jit:?}: expected a timeout, got {other:?}"),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                panic!("{jit:?}: the run ignored its deadline for 60 s")
            }
            Err(e) => panic!("{jit:?}: the run panicked: {e}"),
        }
    }
}

/// 2^30 four-byte bursts from one GM address to one UB address (zero
/// strides): within ptovm's 4 GiB per-transfer cap, and tens of seconds.
#[test]
fn a_dma_of_two_to_the_30_bursts_stops_at_the_deadline() {
    expect_timeout(
        r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%src: !pto.ptr<f32, gm>) attributes {pto.entry} {
    %c0 = arith.constant 0 : i64
    %n = arith.constant 1073741824 : i64
    %len = arith.constant 4 : i64
    %ub = pto.castptr %c0 : i64 -> !pto.ptr<f32, ub>
    pto.mte_gm_ub %src, %ub, %c0, %len nburst(%n, %c0, %c0) : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    return
  }
}"#
        .to_string(),
        1,
    );
}

/// A cube kernel over one f32 GM buffer; `body` may use `%c0`, `%c8`,
/// `%c16`, `%false`, `%l1` and `%l0c`.
fn cube_kernel(body: &str) -> String {
    format!(
        r#"module attributes {{pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<cube>}} {{
  func.func @k(%x_gm: !pto.ptr<f32, gm>) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : i64
    %c8 = arith.constant 8 : i64
    %c16 = arith.constant 16 : i64
    %false = arith.constant false
    %l1 = pto.castptr %c0 : i64 -> !pto.ptr<f32, l1>
    %l0c = pto.castptr %c0 : i64 -> !pto.ptr<f32, l0c>
{body}
    return
  }}
}}"#
    )
}

/// `mte_gm_l1_frac` of 8192 groups of 4096 x 8 elements (2^28, the cube
/// ops' cap) with zero strides: every element lands on the same L1 bytes.
#[test]
fn a_cube_gm_to_l1_repack_of_two_to_the_28_elements_stops_at_the_deadline() {
    expect_timeout(
        cube_kernel(
            "    %n = arith.constant 4096 : i64
    %g = arith.constant 8192 : i64
    pto.mte_gm_l1_frac %x_gm, %l1, nd2nz, shape(%n, %c8), src_layout(%c0),
        dst_group(%g, %c0, %c0, %c0), ctrl(%c0, %false)
      : !pto.ptr<f32, gm>, !pto.ptr<f32, l1>, nd2nz, shape i64, i64, src_layout(i64),
        dst_group i64, i64, i64, i64, ctrl i64, i1",
        ),
        1,
    );
}

/// A FIXPIPE write-back of a 16 x 16 accumulator repeated 2^20 times by
/// `loop3` onto the same GM rows.
#[test]
fn a_fixpipe_write_back_of_two_to_the_20_passes_stops_at_the_deadline() {
    expect_timeout(
        cube_kernel(
            "    %reps = arith.constant 1048576 : i64
    pto.mte_l0c_gm %l0c, %x_gm, %c16, %c16, %c16, %c16, %c0, %c0, nz2nd, loop3(%reps, %c0, %c0)
      : !pto.ptr<f32, l0c>, !pto.ptr<f32, gm>, i64, i64, i64, i64, i64, i64, i64, i64, i64",
        ),
        1,
    );
}

/// `tbroadcast` of a 2^24-element zero-stride view to a group of 16 such
/// views (2^28 element moves in one op).
#[test]
fn a_broadcast_to_sixteen_views_of_two_to_the_24_elements_stops_at_the_deadline() {
    let pv = "!pto.partition_tensor_view<16777216x1xf32>";
    let tv = "!pto.tensor_view<16777216x1xf32>";
    let t = "!pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=64, v_row=1, v_col=64, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
    let group = vec!["%bp"; 16].join(", ");
    let tys = vec![pv; 16].join(", ");
    expect_timeout(
        format!(
            r#"module attributes {{pto.target_arch = "a2a3"}} {{
  func.func @k(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %rows = arith.constant 16777216 : index
    %av = pto.make_tensor_view %a, shape = [%rows, %c1], strides = [%c0, %c1] : {tv}
    %ap = pto.partition_view %av, offsets = [%c0, %c0], sizes = [%rows, %c1] : {tv} -> {pv}
    %bv = pto.make_tensor_view %b, shape = [%rows, %c1], strides = [%c0, %c1] : {tv}
    %bp = pto.partition_view %bv, offsets = [%c0, %c0], sizes = [%rows, %c1] : {tv} -> {pv}
    %t = pto.alloc_tile : {t}
    pto.comm.tbroadcast(%ap, recv(%t), group({group}) : {pv}, {t}, {tys}) {{root = 0 : i32}}
    return
  }}
}}"#
        ),
        2,
    );
}

/// A SIMT launch of 65536 threads that each loop 1000 times: one pipe op
/// of ~10^8 interpreted steps.
#[test]
fn a_simt_launch_of_many_long_threads_stops_at_the_deadline() {
    expect_timeout(
        r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%out: !pto.ptr<i32, gm>) attributes {pto.kernel} {
    %x = arith.constant 1024 : i32
    %y = arith.constant 64 : i32
    %one = arith.constant 1 : i32
    pto.simt_launch @body<<<%x, %y, %one>>>(%out) : (!pto.ptr<i32, gm>) -> ()
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }
  func.func @body(%out: !pto.ptr<i32, gm>) attributes {pto.simt_entry} {
    %tx = pto.get_tid_x : i32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 1000 : index
    scf.for %i = %c0 to %n step %c1 {
      %v = arith.addi %tx, %tx : i32
    }
    return
  }
}"#
        .to_string(),
        1,
    );
}

/// A vector scope whose loop of sixteen dependent `vadd`s runs 9 x 10^7
/// times (past the scope's step cap when interpreted, but many seconds
/// before it gets there; compiled, within its fuel, and with neither memory
/// nor host ops, so only the compiled code's tick reaches the host). The
/// chain is carried from one iteration to the next: since the compiled scope
/// keeps registers in SSA values, a chain of `vadd`s on a loop-invariant
/// register whose result nothing reads was dropped (or could be hoisted),
/// and the loop finished in 0.2 s, inside the deadline; this one takes 3.6 s
/// compiled (release build, this host).
#[test]
fn a_long_vector_scope_stops_at_the_deadline() {
    expect_timeout(
        r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%z: !pto.ptr<f32, gm>) attributes {pto.entry} {
    %c0_i64 = arith.constant 0 : i64
    %ux = pto.castptr %c0_i64 : i64 -> !pto.ptr<f32, ub>
    pto.vecscope {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %cend = arith.constant 90000000 : index
      %all = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      %a = pto.vlds %ux[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      %r = scf.for %i = %c0 to %cend step %c1 iter_args(%acc = %a) -> (!pto.vreg<64xf32>) {
          %b0 = pto.vadd %acc, %a, %all : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
          %b1 = pto.vadd %b0, %a, %all : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
          %b2 = pto.vadd %b1, %a, %all : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
          %b3 = pto.vadd %b2, %a, %all : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
          %b4 = pto.vadd %b3, %a, %all : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
          %b5 = pto.vadd %b4, %a, %all : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
          %b6 = pto.vadd %b5, %a, %all : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
          %b7 = pto.vadd %b6, %a, %all : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
          %b8 = pto.vadd %b7, %a, %all : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
          %b9 = pto.vadd %b8, %a, %all : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
          %b10 = pto.vadd %b9, %a, %all : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
          %b11 = pto.vadd %b10, %a, %all : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
          %b12 = pto.vadd %b11, %a, %all : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
          %b13 = pto.vadd %b12, %a, %all : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
          %b14 = pto.vadd %b13, %a, %all : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
          %b15 = pto.vadd %b14, %a, %all : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
          scf.yield %b15 : !pto.vreg<64xf32>
      }
    }
    return
  }
}"#
        .to_string(),
        1,
    );
}
