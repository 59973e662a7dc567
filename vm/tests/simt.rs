//! `pto.simt_launch`: the entry function's body runs once per thread, in
//! thread-id order, as one vector-pipe unit of work (docs/decisions.md).

use pto_vm::{load_text, run_kernel, Arg, CheckMode, Config};

fn run(src: &str, args: &[Arg]) -> Result<Vec<Vec<u8>>, String> {
    let k = load_text("t.pto", src, None).unwrap_or_else(|e| panic!("does not load:\n{e}\n{src}"));
    let cfg = Config {
        profile: k.profile,
        check: CheckMode::Error,
        max_steps: 1_000_000,
        ..Config::default()
    };
    let f = run_kernel(&k, &cfg, None, args).expect("runs");
    if let Some(e) = f.out.error {
        return Err(format!("{e:?}"));
    }
    assert!(
        f.out.diags.list.is_empty(),
        "checker findings: {:?}\n{src}",
        f.out.diags.list
    );
    Ok(f.buffers)
}

fn i32s(b: &[u8]) -> Vec<i32> {
    b.chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn i32b(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// GM in, GM out: out[t] = 2 * in[t] + 100 * ty, out[8 + t] = lane id,
/// over a 4x2x1 launch (t = ty * 4 + tx).
const GM: &str = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%in: !pto.ptr<i32, gm>, %out: !pto.ptr<i32, gm>) attributes {pto.kernel} {
    %x = arith.constant DX : i32
    %y = arith.constant DY : i32
    %z = arith.constant 1 : i32
    pto.simt_launch @body<<<%x, %y, %z>>>(%in, %out) : (!pto.ptr<i32, gm>, !pto.ptr<i32, gm>) -> ()
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }
  func.func @body(%in: !pto.ptr<i32, gm>, %out: !pto.ptr<i32, gm>) attributes {pto.simt_entry} {
    %tx = pto.get_tid_x : i32
    %ty = pto.get_tid_y : i32
    %bx = pto.get_block_dim_x : i32
    %lane = pto.get_laneid : i32
    %c2 = arith.constant 2 : i32
    %c8 = arith.constant 8 : i32
    %c100 = arith.constant 100 : i32
    %row = arith.muli %ty, %bx : i32
    %t = arith.addi %row, %tx : i32
    %ti = arith.index_castui %t : i32 to index
    %v = pto.load %in[%ti] : !pto.ptr<i32, gm> -> i32
    %v2 = arith.muli %v, %c2 : i32
    %bias = arith.muli %ty, %c100 : i32
    %r = arith.addi %v2, %bias : i32
    pto.store %r, %out[%ti] : !pto.ptr<i32, gm>, i32
    %l = arith.addi %t, %c8 : i32
    %li = arith.index_castui %l : i32 to index
    pto.stg %lane, %out[%li] : !pto.ptr<i32, gm>, i32
    return
  }
}"#;

#[test]
fn gm_launch_runs_every_thread() {
    let src = GM.replace("DX", "4").replace("DY", "2");
    let input: Vec<i32> = (0..8).map(|i| i * 3 - 5).collect();
    let b = run(&src, &[Arg::Buffer(i32b(&input)), Arg::Buffer(vec![0; 64])]).unwrap();
    let out = i32s(&b[1]);
    for t in 0..8 {
        let ty = t as i32 / 4;
        assert_eq!(out[t], 2 * input[t] + 100 * ty, "thread {t}");
        assert_eq!(out[8 + t], t as i32, "lane of thread {t}");
    }
}

#[test]
fn bad_thread_counts_fault() {
    let zero = GM.replace("DX", "0").replace("DY", "2");
    let e = run(&zero, &[Arg::Buffer(vec![0; 32]), Arg::Buffer(vec![0; 64])]).unwrap_err();
    assert!(e.contains("at least 1"), "{e}");
    let huge = GM.replace("DX", "65536").replace("DY", "65536");
    let e = run(&huge, &[Arg::Buffer(vec![0; 32]), Arg::Buffer(vec![0; 64])]).unwrap_err();
    assert!(e.contains("cap"), "{e}");
}

#[test]
fn out_of_buffer_accesses_are_reported() {
    // 16 threads index past the 8-element input and the 16-element output:
    // the checker reports them (GM itself is bounds-checked, not faulting)
    let src = GM.replace("DX", "4").replace("DY", "4");
    let k = load_text("t.pto", &src, None).expect("loads");
    let cfg = Config {
        profile: k.profile,
        check: CheckMode::Warn,
        ..Config::default()
    };
    let args = [Arg::Buffer(vec![0; 32]), Arg::Buffer(vec![0; 64])];
    let f = run_kernel(&k, &cfg, None, &args).expect("runs");
    let msgs: Vec<String> = f.out.diags.list.iter().map(|d| d.message.clone()).collect();
    assert!(
        msgs.iter().any(|m| m.contains("'pto.load' reads GM")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter().any(|m| m.contains("'pto.stg' writes GM")),
        "{msgs:?}"
    );
}

/// UB through the vector pipe: threads write tid into UB, MTE3 copies out
/// after a V -> MTE3 flag (the checker sees the launch as one V unit).
const UB: &str = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%out: !pto.ptr<i32, gm>) attributes {pto.kernel} {
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c64_i64 = arith.constant 64 : i64
    %x = arith.constant 16 : i32
    %one = arith.constant 1 : i32
    %ub = pto.castptr %c0_i64 : i64 -> !pto.ptr<i32, ub>
    pto.simt_launch @w<<<%x, %one, %one>>>(%ub) : (!pto.ptr<i32, ub>) -> ()
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.mte_ub_gm %ub, %out, %c64_i64
      nburst(%c1_i64, %c64_i64, %c64_i64)
      : !pto.ptr<i32, ub>, !pto.ptr<i32, gm>, i64, i64, i64, i64
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }
  func.func @w(%dst: !pto.ptr<i32, ub>) attributes {pto.simt_entry} {
    %tx = pto.get_tid_x : i32
    %c7 = arith.constant 7 : i32
    %v = arith.muli %tx, %c7 : i32
    %i = arith.index_castui %tx : i32 to index
    pto.store %v, %dst[%i] : !pto.ptr<i32, ub>, i32
    return
  }
}"#;

#[test]
fn ub_launch_then_mte3() {
    let b = run(UB, &[Arg::Buffer(vec![0; 64])]).unwrap();
    let want: Vec<i32> = (0..16).map(|t| t * 7).collect();
    assert_eq!(i32s(&b[0]), want);
}

#[test]
fn tid_outside_launch_faults() {
    let src = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%out: !pto.ptr<i32, gm>) attributes {pto.kernel} {
    %c0 = arith.constant 0 : index
    %t = pto.get_tid_x : i32
    pto.store %t, %out[%c0] : !pto.ptr<i32, gm>, i32
    return
  }
}"#;
    let e = run(src, &[Arg::Buffer(vec![0; 4])]).unwrap_err();
    assert!(e.contains("outside a pto.simt_launch"), "{e}");
}

/// Atomics: 16 threads each add their tid into out[0] (old values land in
/// out[1 + tid]), then scalar-level max (signed/unsigned), cas and exch.
const ATOMICS: &str = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%out: !pto.ptr<i32, gm>) attributes {pto.kernel} {
    %x = arith.constant 16 : i32
    %one = arith.constant 1 : i32
    pto.simt_launch @t<<<%x, %one, %one>>>(%out) : (!pto.ptr<i32, gm>) -> ()
    pto.barrier #pto.pipe<PIPE_ALL>
    %c17 = arith.constant 17 : index
    %c18 = arith.constant 18 : index
    %c19 = arith.constant 19 : index
    %c20 = arith.constant 20 : index
    %c21 = arith.constant 21 : index
    %m1 = arith.constant -1 : i32
    %v3 = arith.constant 3 : i32
    %v9 = arith.constant 9 : i32
    %p17 = pto.addptr %out, %c17 : !pto.ptr<i32, gm> -> !pto.ptr<i32, gm>
    %p18 = pto.addptr %out, %c18 : !pto.ptr<i32, gm> -> !pto.ptr<i32, gm>
    %p19 = pto.addptr %out, %c19 : !pto.ptr<i32, gm> -> !pto.ptr<i32, gm>
    %p20 = pto.addptr %out, %c20 : !pto.ptr<i32, gm> -> !pto.ptr<i32, gm>
    %a = pto.atomic_max %p17, %m1 l2cache(nmfv) signed : !pto.ptr<i32, gm>, i32 -> i32
    %b = pto.atomic_max %p18, %m1 l2cache(nmfv) unsigned : !pto.ptr<i32, gm>, i32 -> i32
    %c = pto.atomic_cas %p19, %v3, %v9 l2cache(nmfv) signed : !pto.ptr<i32, gm>, i32 -> i32
    %d = pto.atomic_exch %p20, %v9 l2cache(nmfv) signed : !pto.ptr<i32, gm>, i32 -> i32
    pto.store %d, %out[%c21] : !pto.ptr<i32, gm>, i32
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }
  func.func @t(%out: !pto.ptr<i32, gm>) attributes {pto.simt_entry} {
    %tx = pto.get_tid_x : i32
    %c1 = arith.constant 1 : i32
    %old = pto.atomic_add %out, %tx l2cache(nmfv) signed : !pto.ptr<i32, gm>, i32 -> i32
    %i = arith.addi %tx, %c1 : i32
    %ii = arith.index_castui %i : i32 to index
    pto.store %old, %out[%ii] : !pto.ptr<i32, gm>, i32
    return
  }
}"#;

#[test]
fn atomics_in_and_outside_a_launch() {
    let mut init = vec![0i32; 24];
    init[17] = 5; // signed max(5, -1) = 5; unsigned max picks 0xffffffff
    init[18] = 5;
    init[19] = 3; // cas 3 -> 9 succeeds
    init[20] = 4; // exch 4 -> 9, old 4 stored at [21]
    let b = run(ATOMICS, &[Arg::Buffer(i32b(&init))]).unwrap();
    let out = i32s(&b[0]);
    assert_eq!(out[0], (0..16).sum::<i32>());
    for t in 0..16 {
        // threads run in tid order: thread t saw the sum of 0..t
        assert_eq!(out[1 + t], (0..t as i32).sum::<i32>(), "thread {t}");
    }
    assert_eq!(&out[17..22], &[5, -1, 9, 9, 4]);
}

#[test]
fn get_buf_dyn_with_a_register_id_around_a_launch() {
    let src = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%out: !pto.ptr<i32, gm>) attributes {pto.kernel} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %x = arith.constant 8 : i32
    %one = arith.constant 1 : i32
    scf.for %it = %c0 to %c2 step %c1 {
      %id = arith.andi %it, %c1 : index
      pto.get_buf_dyn "PIPE_V", %id, 0
      pto.simt_launch @t<<<%x, %one, %one>>>(%out) : (!pto.ptr<i32, gm>) -> ()
      pto.barrier #pto.pipe<PIPE_ALL>
      pto.rls_buf_dyn "PIPE_V", %id, 0
    }
    return
  }
  func.func @t(%out: !pto.ptr<i32, gm>) attributes {pto.simt_entry} {
    %tx = pto.get_tid_x : i32
    %i = arith.index_castui %tx : i32 to index
    %v = pto.load %out[%i] : !pto.ptr<i32, gm> -> i32
    %w = arith.addi %v, %tx : i32
    pto.store %w, %out[%i] : !pto.ptr<i32, gm>, i32
    return
  }
}"#;
    let b = run(src, &[Arg::Buffer(vec![0; 32])]).unwrap();
    let want: Vec<i32> = (0..8).map(|t| 2 * t).collect();
    assert_eq!(i32s(&b[0]), want);
}

#[test]
fn mulhi_wide_multiply_and_byte_permute() {
    let src = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%out: !pto.ptr<i32, gm>) attributes {pto.kernel} {
    %one = arith.constant 1 : i32
    pto.simt_launch @t<<<%one, %one, %one>>>(%out) : (!pto.ptr<i32, gm>) -> ()
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }
  func.func @t(%out: !pto.ptr<i32, gm>) attributes {pto.simt_entry} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %a = arith.constant -7 : i32
    %b = arith.constant 1073741824 : i32
    %pa = arith.constant 287454020 : i32
    %pb = arith.constant -1430532899 : i32
    %sel = arith.constant 29251 : i32
    %hs = pto.mulhi %a, %b signed : i32, i32 -> i32
    %hu = pto.mulhi %a, %b unsigned : i32, i32 -> i32
    %w = pto.mul_i32toi64 %a, %b signed : i32, i32 -> i64
    %wl = arith.trunci %w : i64 to i32
    %p = pto.prmt %pa, %pb, %sel : i32, i32, i32 -> i32
    pto.store %hs, %out[%c0] : !pto.ptr<i32, gm>, i32
    pto.store %hu, %out[%c1] : !pto.ptr<i32, gm>, i32
    pto.store %wl, %out[%c2] : !pto.ptr<i32, gm>, i32
    pto.store %p, %out[%c3] : !pto.ptr<i32, gm>, i32
    return
  }
}"#;
    let b = run(src, &[Arg::Buffer(vec![0; 16])]).unwrap();
    let out = i32s(&b[0]);
    let (a, bb) = (-7i64, 1i64 << 30);
    assert_eq!(out[0], ((a * bb) >> 32) as i32);
    assert_eq!(out[1], (((a as u32 as u64) * (bb as u64)) >> 32) as i32);
    assert_eq!(out[2], (a * bb) as i32);
    // selector 0x7243: bytes [3, 4, 2, 7] of b=0xAABBCCDD (0..4), a=0x11223344 (4..8)
    assert_eq!(out[3] as u32, 0x11BB_44AA);
}

#[test]
fn scalar_float_math_and_convert() {
    let src = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%out: !pto.ptr<i32, gm>) attributes {pto.kernel} {
    %one = arith.constant 1 : i32
    pto.simt_launch @t<<<%one, %one, %one>>>(%out) : (!pto.ptr<i32, gm>) -> ()
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }
  func.func @t(%out: !pto.ptr<i32, gm>) attributes {pto.simt_entry} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %two = arith.constant 2.0 : f32
    %ten = arith.constant 10.0 : f32
    %neg = arith.constant -2.5 : f32
    %big = arith.constant 3.0e10 : f32
    %n7 = arith.constant -7 : i32
    %p = pto.pow %two, %ten : f32, f32 -> f32
    %f = pto.fma %two, %ten, %neg : f32, f32, f32 -> f32
    %fl = pto.floor %neg : f32 -> f32
    %pi = pto.convert %p round(z) sat signed : f32 -> i32
    %fi = pto.convert %f round(z) sat signed : f32 -> i32
    %fli = pto.convert %fl round(z) sat signed : f32 -> i32
    %r = pto.convert %neg round(r) sat signed : f32 -> i32
    %s = pto.convert %big round(z) sat signed : f32 -> i32
    %h = pto.convert %n7 round(r) nosat signed : i32 -> f16
    %hi = pto.convert %h round(z) sat signed : f16 -> i32
    pto.store %pi, %out[%c0] : !pto.ptr<i32, gm>, i32
    pto.store %fi, %out[%c1] : !pto.ptr<i32, gm>, i32
    pto.store %fli, %out[%c2] : !pto.ptr<i32, gm>, i32
    pto.store %r, %out[%c3] : !pto.ptr<i32, gm>, i32
    pto.store %s, %out[%c4] : !pto.ptr<i32, gm>, i32
    %c5 = arith.constant 5 : index
    pto.store %hi, %out[%c5] : !pto.ptr<i32, gm>, i32
    return
  }
}"#;
    let b = run(src, &[Arg::Buffer(vec![0; 24])]).unwrap();
    // pow 1024; fma 17 (17.5 truncated); floor -3; -2.5 to even -2;
    // 3e10 saturates; -7 through f16
    assert_eq!(i32s(&b[0]), vec![1024, 17, -3, -2, i32::MAX, -7]);
}

#[test]
fn scalar_bitcast_keeps_the_bits() {
    let src = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%out: !pto.ptr<i32, gm>) attributes {pto.kernel} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %h = arith.constant -2.0 : f16
    %f = arith.constant 1.0 : f32
    %hb = llvm.bitcast %h : f16 to i16
    %fb = arith.bitcast %f : f32 to i32
    %hw = arith.extui %hb : i16 to i32
    pto.store %hw, %out[%c0] : !pto.ptr<i32, gm>, i32
    pto.store %fb, %out[%c1] : !pto.ptr<i32, gm>, i32
    return
  }
}"#;
    let b = run(src, &[Arg::Buffer(vec![0; 8])]).unwrap();
    assert_eq!(i32s(&b[0]), vec![0xC000, 0x3F80_0000]);
}

/// Warp-wide collectives over a 40-thread launch (a full warp and a warp of
/// 8): out[t * 6 + k] for k = ballot(lane even), shuffle_down(v, 1) in
/// subgroups of 16, shuffle_idx(v, 5), redux_add(lane + 1),
/// redux_max unsigned (lane 0 holds -1), and a redux_add repeated in a loop
/// (three rounds of collectives).
const WARP: &str = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%out: !pto.ptr<i32, gm>) attributes {pto.kernel} {
    %x = arith.constant 40 : i32
    %one = arith.constant 1 : i32
    pto.simt_launch @body<<<%x, %one, %one>>>(%out) : (!pto.ptr<i32, gm>) -> ()
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }
  func.func @body(%out: !pto.ptr<i32, gm>) attributes {pto.simt_entry} {
    %tx = pto.get_tid_x : i32
    %lane = pto.get_laneid : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c5 = arith.constant 5 : i32
    %c6 = arith.constant 6 : i32
    %c1000 = arith.constant 1000 : i32
    %m1 = arith.constant -1 : i32
    %low = arith.andi %lane, %c1 : i32
    %even = arith.cmpi eq, %low, %c0 : i32
    %ballot = pto.vote_ballot %even : i1 -> i32
    %v = arith.addi %tx, %c1000 : i32
    %down = pto.shuffle_down %v, %c1 {width = 16 : i32} : i32, i32 -> i32
    %idx = pto.shuffle_idx %v, %c5 : i32, i32 -> i32
    %lp1 = arith.addi %lane, %c1 : i32
    %sum = pto.redux_add %lp1 signed : i32 -> i32
    %is0 = arith.cmpi eq, %lane, %c0 : i32
    %e = arith.select %is0, %m1, %lane : i1, i32
    %umax = pto.redux_max %e unsigned : i32 -> i32
    %i0 = arith.constant 0 : index
    %i1 = arith.constant 1 : index
    %i3 = arith.constant 3 : index
    %acc = scf.for %i = %i0 to %i3 step %i1 iter_args(%a = %c1) -> (i32) {
      %s = pto.redux_add %a signed : i32 -> i32
      scf.yield %s : i32
    }
    %base = arith.muli %tx, %c6 : i32
    %b0 = arith.index_castui %base : i32 to index
    pto.stg %ballot, %out[%b0] : !pto.ptr<i32, gm>, i32
    %p1 = arith.addi %base, %c1 : i32
    %b1 = arith.index_castui %p1 : i32 to index
    pto.stg %down, %out[%b1] : !pto.ptr<i32, gm>, i32
    %p2 = arith.addi %p1, %c1 : i32
    %b2 = arith.index_castui %p2 : i32 to index
    pto.stg %idx, %out[%b2] : !pto.ptr<i32, gm>, i32
    %p3 = arith.addi %p2, %c1 : i32
    %b3 = arith.index_castui %p3 : i32 to index
    pto.stg %sum, %out[%b3] : !pto.ptr<i32, gm>, i32
    %p4 = arith.addi %p3, %c1 : i32
    %b4 = arith.index_castui %p4 : i32 to index
    pto.stg %umax, %out[%b4] : !pto.ptr<i32, gm>, i32
    %p5 = arith.addi %p4, %c1 : i32
    %b5 = arith.index_castui %p5 : i32 to index
    pto.stg %acc, %out[%b5] : !pto.ptr<i32, gm>, i32
    return
  }
}"#;

#[test]
fn warp_collectives_exchange_between_the_threads_of_a_warp() {
    let b = run(WARP, &[Arg::Buffer(vec![0; 40 * 6 * 4])]).unwrap();
    let out = i32s(&b[0]);
    for t in 0..40usize {
        let (warp, lane) = (t / 32, t % 32);
        let n = if warp == 0 { 32 } else { 8 };
        let r = &out[t * 6..t * 6 + 6];
        let ballot = (0..n).filter(|l| l % 2 == 0).fold(0u32, |m, l| m | 1 << l);
        assert_eq!(r[0], ballot as i32, "ballot, thread {t}");
        // source lane + 1 must be inside the 16-lane group and exist
        let src = if lane % 16 != 15 && lane + 1 < n {
            t + 1
        } else {
            t
        };
        assert_eq!(r[1], 1000 + src as i32, "shuffle_down, thread {t}");
        assert_eq!(
            r[2],
            1000 + (warp * 32 + 5) as i32,
            "shuffle_idx, thread {t}"
        );
        assert_eq!(r[3], (n * (n + 1) / 2) as i32, "redux_add, thread {t}");
        assert_eq!(r[4], -1, "unsigned redux_max, thread {t}");
        assert_eq!(r[5], (n * n * n) as i32, "redux_add in a loop, thread {t}");
    }
}

/// Threads that skip a collective (an `scf.if` on the lane id) do not take
/// part in it; threads at two different collectives are a clear fault.
#[test]
fn warp_collectives_under_divergent_control_flow() {
    let src = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%out: !pto.ptr<i32, gm>) attributes {pto.kernel} {
    %x = arith.constant 32 : i32
    %one = arith.constant 1 : i32
    pto.simt_launch @body<<<%x, %one, %one>>>(%out) : (!pto.ptr<i32, gm>) -> ()
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }
  func.func @body(%out: !pto.ptr<i32, gm>) attributes {pto.simt_entry} {
    %lane = pto.get_laneid : i32
    %c4 = arith.constant 4 : i32
    %c7 = arith.constant 7 : i32
    %low = arith.cmpi ult, %lane, %c4 : i32
    %li = arith.index_castui %lane : i32 to index
    %r = scf.if %low -> (i32) {
      %s = pto.redux_add %c7 signed : i32 -> i32
      scf.yield %s : i32
    } else {
      ELSE
      scf.yield %c4 : i32
    }
    pto.stg %r, %out[%li] : !pto.ptr<i32, gm>, i32
    return
  }
}"#;
    let b = run(&src.replace("ELSE", ""), &[Arg::Buffer(vec![0; 128])]).unwrap();
    let out = i32s(&b[0]);
    for (l, v) in out.iter().enumerate() {
        assert_eq!(*v, if l < 4 { 28 } else { 4 }, "lane {l}");
    }
    let e = run(
        &src.replace("ELSE", "%m = pto.redux_max %c7 signed : i32 -> i32"),
        &[Arg::Buffer(vec![0; 128])],
    )
    .unwrap_err();
    assert!(e.contains("different warp-wide ops"), "{e}");
}

/// Packed `vector<2xf16>` atomics combine lane by lane; `addptr` on a
/// packed pointer steps whole vectors; a CAS whose compare value differs in
/// one lane leaves that lane alone.
#[test]
fn packed_atomics_work_lane_by_lane() {
    let src = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%p: !pto.ptr<vector<2xf16>, gm>) attributes {pto.kernel} {
    %one = arith.constant 1 : i32
    %a = pto.castptr %p : !pto.ptr<vector<2xf16>, gm> -> i64
    pto.simt_launch @body<<<%one, %one, %one>>>(%a) : (i64) -> ()
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }
  func.func @body(%a: i64) attributes {pto.simt_entry} {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %p = pto.castptr %a : i64 -> !pto.ptr<vector<2xf16>, gm>
    %v = arith.constant dense<[1.500000e+00, -2.000000e+00]> : vector<2xf16>
    %cmp = arith.constant dense<[3.000000e+00, 9.000000e+00]> : vector<2xf16>
    %q = pto.addptr %p, %c1 : !pto.ptr<vector<2xf16>, gm> -> !pto.ptr<vector<2xf16>, gm>
    %r = pto.addptr %p, %c2 : !pto.ptr<vector<2xf16>, gm> -> !pto.ptr<vector<2xf16>, gm>
    %o1 = pto.atomic_add %p, %v : !pto.ptr<vector<2xf16>, gm>, vector<2xf16> -> vector<2xf16>
    %o2 = pto.atomic_max %q, %v : !pto.ptr<vector<2xf16>, gm>, vector<2xf16> -> vector<2xf16>
    %o3 = pto.atomic_cas %r, %cmp, %v : !pto.ptr<vector<2xf16>, gm>, vector<2xf16> -> vector<2xf16>
    return
  }
}"#;
    let h = |x: f32| half::f16::from_f32(x).to_bits();
    let input = [1.0f32, 1.0, 0.0, -5.0, 3.0, 4.0];
    let bytes: Vec<u8> = input.iter().flat_map(|x| h(*x).to_le_bytes()).collect();
    let b = run(src, &[Arg::Buffer(bytes)]).unwrap();
    let out: Vec<u16> = b[0]
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    let want = [2.5f32, -1.0, 1.5, -2.0, 1.5, 4.0];
    assert_eq!(out, want.iter().map(|x| h(*x)).collect::<Vec<_>>());
}

/// Packed `vector<2xT>` SIMT values are their raw bits: math and converts
/// work lane by lane, `llvm.bitcast` and stores move the bits.
#[test]
fn packed_math_converts_and_bitcasts() {
    let src = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%out: !pto.ptr<i32, gm>) attributes {pto.kernel} {
    %one = arith.constant 1 : i32
    pto.simt_launch @body<<<%one, %one, %one>>>(%out) : (!pto.ptr<i32, gm>) -> ()
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }
  func.func @body(%out: !pto.ptr<i32, gm>) attributes {pto.simt_entry} {
    %i0 = arith.constant 0 : index
    %i1 = arith.constant 1 : index
    %i2 = arith.constant 2 : index
    %four = arith.constant dense<[4.000000e+00, 9.000000e+00]> : vector<2xf16>
    %three = arith.constant dense<3.000000e+00> : vector<2xf16>
    %f2 = arith.constant dense<[1.000000e+00, -2.500000e+00]> : vector<2xf32>
    %s = pto.sqrt %four : vector<2xf16> -> vector<2xf16>
    %m = pto.fma %s, %three, %three : vector<2xf16>, vector<2xf16>, vector<2xf16> -> vector<2xf16>
    %h = pto.convert %f2 round(r) nosat : vector<2xf32> -> vector<2xf16>
    %mb = llvm.bitcast %m : vector<2xf16> to i32
    %hb = llvm.bitcast %h : vector<2xf16> to i32
    %r = pto.shuffle_idx %h, %i0_i32 : vector<2xf16>, i32 -> vector<2xf16>
    %rb = llvm.bitcast %r : vector<2xf16> to i32
    pto.stg %mb, %out[%i0] : !pto.ptr<i32, gm>, i32
    pto.stg %hb, %out[%i1] : !pto.ptr<i32, gm>, i32
    pto.stg %rb, %out[%i2] : !pto.ptr<i32, gm>, i32
    return
  }
}"#
    .replace(
        "    %i2 = arith.constant 2 : index\n",
        "    %i2 = arith.constant 2 : index\n    %i0_i32 = arith.constant 0 : i32\n",
    );
    let b = run(&src, &[Arg::Buffer(vec![0; 12])]).unwrap();
    let h = |x: f32| half::f16::from_f32(x).to_bits() as u32;
    let pair = |a: f32, b: f32| (h(a) | h(b) << 16) as i32;
    assert_eq!(
        i32s(&b[0]),
        vec![pair(9.0, 12.0), pair(1.0, -2.5), pair(1.0, -2.5)]
    );
}

/// `arith` ops on packed values work lane by lane (not on the raw bits).
#[test]
fn packed_arith_works_lane_by_lane() {
    let src = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%out: !pto.ptr<i32, gm>) attributes {pto.kernel} {
    %one = arith.constant 1 : i32
    pto.simt_launch @body<<<%one, %one, %one>>>(%out) : (!pto.ptr<i32, gm>) -> ()
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }
  func.func @body(%out: !pto.ptr<i32, gm>) attributes {pto.simt_entry} {
    %i0 = arith.constant 0 : index
    %i1 = arith.constant 1 : index
    %a = arith.constant dense<[1.500000e+00, -2.000000e+00]> : vector<2xf16>
    %s = arith.addf %a, %a : vector<2xf16>
    %b = llvm.bitcast %s : vector<2xf16> to i32
    pto.stg %b, %out[%i0] : !pto.ptr<i32, gm>, i32
    %x = arith.constant dense<[32767, -5]> : vector<2xi16>
    %y = arith.constant dense<[1, 7]> : vector<2xi16>
    %z = arith.addi %x, %y : vector<2xi16>
    %zb = llvm.bitcast %z : vector<2xi16> to i32
    pto.stg %zb, %out[%i1] : !pto.ptr<i32, gm>, i32
    return
  }
}"#;
    let b = run(src, &[Arg::Buffer(vec![0; 8])]).unwrap();
    let h = |x: f32| half::f16::from_f32(x).to_bits() as u32;
    let out = i32s(&b[0]);
    assert_eq!(out[0], (h(3.0) | h(-4.0) << 16) as i32);
    // lanes wrap on their own: 32767 + 1 = -32768, -5 + 7 = 2
    assert_eq!(out[1], (0x8000u32 | 2 << 16) as i32);
}

/// `pto.syncthreads` holds every thread of the launch until all arrive:
/// thread t reads what thread t + 1 (a later thread, across warps) stored
/// before the barrier; a shuffle in the same launch still exchanges only
/// within a warp. `pto.keep` / `pto.resume` carry a per-thread value into
/// the next launch.
#[test]
fn syncthreads_and_keep_resume() {
    let src = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%out: !pto.ptr<i32, gm>) attributes {pto.kernel} {
    %x = arith.constant 40 : i32
    %one = arith.constant 1 : i32
    %c0 = arith.constant 0 : i64
    %ub = pto.castptr %c0 : i64 -> !pto.ptr<i32, ub>
    pto.simt_launch @stage0<<<%x, %one, %one>>>(%ub, %out) : (!pto.ptr<i32, ub>, !pto.ptr<i32, gm>) -> ()
    pto.simt_launch @stage1<<<%x, %one, %one>>>(%out) : (!pto.ptr<i32, gm>) -> ()
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }
  func.func @stage0(%ub: !pto.ptr<i32, ub>, %out: !pto.ptr<i32, gm>) attributes {pto.simt_entry} {
    %t = pto.get_tid_x : i32
    %c1 = arith.constant 1 : i32
    %c3 = arith.constant 3 : i32
    %c40 = arith.constant 40 : i32
    %c100 = arith.constant 100 : i32
    %v = arith.addi %t, %c100 : i32
    %ti = arith.index_castui %t : i32 to index
    pto.store %v, %ub[%ti] : !pto.ptr<i32, ub>, i32
    pto.syncthreads
    %n = arith.addi %t, %c1 : i32
    %nm = arith.remui %n, %c40 : i32
    %ni = arith.index_castui %nm : i32 to index
    %w = pto.load %ub[%ni] : !pto.ptr<i32, ub> -> i32
    %s = pto.shuffle_idx %t, %c3 : i32, i32 -> i32
    pto.stg %w, %out[%ti] : !pto.ptr<i32, gm>, i32
    %o = arith.addi %t, %c40 : i32
    %oi = arith.index_castui %o : i32 to index
    pto.stg %s, %out[%oi] : !pto.ptr<i32, gm>, i32
    %k = arith.muli %t, %c3 : i32
    pto.keep %k {slot = 7 : i64} : i32
    return
  }
  func.func @stage1(%out: !pto.ptr<i32, gm>) attributes {pto.simt_entry} {
    %k = pto.resume {slot = 7 : i64} : i32
    %t = pto.get_tid_x : i32
    %c80 = arith.constant 80 : i32
    %o = arith.addi %t, %c80 : i32
    %oi = arith.index_castui %o : i32 to index
    pto.stg %k, %out[%oi] : !pto.ptr<i32, gm>, i32
    return
  }
}"#;
    let b = run(src, &[Arg::Buffer(vec![0; 120 * 4])]).unwrap();
    let out = i32s(&b[0]);
    for t in 0..40 {
        assert_eq!(out[t], 100 + ((t as i32 + 1) % 40), "barrier, thread {t}");
        assert_eq!(out[40 + t], (t / 32 * 32 + 3) as i32, "shuffle, thread {t}");
        assert_eq!(out[80 + t], 3 * t as i32, "keep/resume, thread {t}");
    }
}

/// Shuffle deltas past the lane range (i64 extremes, whose sum or difference
/// with the lane would overflow) name no lane: every thread keeps its value.
#[test]
fn shuffles_by_extreme_deltas_keep_each_lanes_value() {
    let src = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%out: !pto.ptr<i32, gm>) attributes {pto.kernel} {
    %x = arith.constant 32 : i32
    %one = arith.constant 1 : i32
    pto.simt_launch @body<<<%x, %one, %one>>>(%out) : (!pto.ptr<i32, gm>) -> ()
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }
  func.func @body(%out: !pto.ptr<i32, gm>) attributes {pto.simt_entry} {
    %tx = pto.get_tid_x : i32
    %max = arith.constant 9223372036854775807 : i64
    %min = arith.constant -9223372036854775808 : i64
    %c2 = arith.constant 2 : i32
    %down = pto.shuffle_down %tx, %max : i32, i64 -> i32
    %up = pto.shuffle_up %tx, %min : i32, i64 -> i32
    %base = arith.muli %tx, %c2 : i32
    %b0 = arith.index_castui %base : i32 to index
    pto.stg %down, %out[%b0] : !pto.ptr<i32, gm>, i32
    %one = arith.constant 1 : i32
    %p1 = arith.addi %base, %one : i32
    %b1 = arith.index_castui %p1 : i32 to index
    pto.stg %up, %out[%b1] : !pto.ptr<i32, gm>, i32
    return
  }
}"#;
    let b = run(src, &[Arg::Buffer(vec![0; 32 * 2 * 4])]).unwrap();
    let out = i32s(&b[0]);
    for t in 0..32 {
        assert_eq!(
            (out[2 * t], out[2 * t + 1]),
            (t as i32, t as i32),
            "thread {t}"
        );
    }
}
