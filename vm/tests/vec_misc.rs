//! Micro-ops with state outside SSA or outside vector scopes, each run as a
//! whole kernel: the sorter (`vbitsort`, `vmrgsort4`, `get_vms4_sr`), the
//! SPR AR of `vstur`, MTE3 atomics (`set_atomic_*`), the cache-bypassing
//! scalar pair (`ld_dev`/`st_dev`) and calls inside a vector scope.

use pto_vm::{load_text, run_kernel, Arg, CheckMode, Config};

/// Runs `src`'s entry on `args` with the checker on; returns the buffers.
fn run(src: &str, args: &[Arg]) -> Vec<Vec<u8>> {
    let k = load_text("t.pto", src, None).unwrap_or_else(|e| panic!("does not load:\n{e}\n{src}"));
    let cfg = Config {
        profile: k.profile,
        check: CheckMode::Error,
        max_steps: 1_000_000,
        ..Config::default()
    };
    let f = run_kernel(&k, &cfg, None, args).expect("runs");
    assert_eq!(f.out.error, None, "{src}");
    assert!(
        f.out.diags.list.is_empty(),
        "checker findings: {:?}\n{src}",
        f.out.diags.list
    );
    f.buffers
}

fn f32b(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn u32b(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// (score, index) records of 8 bytes.
fn records(b: &[u8]) -> Vec<(f32, u32)> {
    b.chunks_exact(8)
        .map(|c| {
            (
                f32::from_le_bytes([c[0], c[1], c[2], c[3]]),
                u32::from_le_bytes([c[4], c[5], c[6], c[7]]),
            )
        })
        .collect()
}

const SORT: &str = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%s: !pto.ptr<f32, gm>, %i: !pto.ptr<ui32, gm>, %o: !pto.ptr<f32, gm>,
               %m: !pto.ptr<f32, gm>, %sr: !pto.ptr<i16, gm>) attributes {pto.kernel} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c48 = arith.constant 48 : index
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c256_i64 = arith.constant 256 : i64
    %c512_i64 = arith.constant 512 : i64
    %c1024_i64 = arith.constant 1024 : i64
    %c2048_i64 = arith.constant 2048 : i64
    %count = arith.constant COUNT : i64
    %config = arith.constant CONFIG : i64
    %us = pto.castptr %c0_i64 : i64 -> !pto.ptr<f32, ub>
    %ui = pto.castptr %c256_i64 : i64 -> !pto.ptr<ui32, ub>
    %uo = pto.castptr %c512_i64 : i64 -> !pto.ptr<f32, ub>
    %um = pto.castptr %c1024_i64 : i64 -> !pto.ptr<f32, ub>
    %l1 = pto.addptr %uo, %c16 : !pto.ptr<f32, ub> -> !pto.ptr<f32, ub>
    %l2 = pto.addptr %uo, %c32 : !pto.ptr<f32, ub> -> !pto.ptr<f32, ub>
    %l3 = pto.addptr %uo, %c48 : !pto.ptr<f32, ub> -> !pto.ptr<f32, ub>
    pto.mte_gm_ub %s, %us, %c0_i64, %c256_i64 nburst(%c1_i64, %c256_i64, %c256_i64)
      : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    pto.mte_gm_ub %i, %ui, %c0_i64, %c256_i64 nburst(%c1_i64, %c256_i64, %c256_i64)
      : !pto.ptr<ui32, gm>, !pto.ptr<ui32, ub>, i64, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    %ouidx = pto.castptr %c512_i64 : i64 -> !pto.ptr<ui32, ub>
    pto.vbitsort %ouidx, %us, %ui, %c2 : !pto.ptr<ui32, ub>, !pto.ptr<f32, ub>, !pto.ptr<ui32, ub>, index
    pto.pipe_barrier["PIPE_V"]
    pto.vmrgsort4 %um, %uo, %l1, %l2, %l3, %count, %config
      : !pto.ptr<f32, ub>, !pto.ptr<f32, ub>, !pto.ptr<f32, ub>, !pto.ptr<f32, ub>, !pto.ptr<f32, ub>, i64, i64
    pto.set_flag["PIPE_V", "PIPE_S", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_S", "EVENT_ID0"]
    %n0, %n1, %n2, %n3 = pto.get_vms4_sr : i16, i16, i16, i16
    pto.store_scalar %n0, %sr[%c0] : !pto.ptr<i16, gm>, i16
    pto.store_scalar %n1, %sr[%c1] : !pto.ptr<i16, gm>, i16
    pto.store_scalar %n2, %sr[%c2] : !pto.ptr<i16, gm>, i16
    pto.store_scalar %n3, %sr[%c3] : !pto.ptr<i16, gm>, i16
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.mte_ub_gm %uo, %o, %c512_i64 nburst(%c1_i64, %c512_i64, %c512_i64)
      : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
    pto.mte_ub_gm %um, %m, %c512_i64 nburst(%c1_i64, %c512_i64, %c512_i64)
      : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }
}
"#;

/// Runs SORT: 64 scores/indices sorted as two blocks of 32 into `o`, then
/// the four 8-record lists at `o`, `o+64B`, `o+128B`, `o+192B` merged into `m`.
type Records = Vec<(f32, u32)>;

fn sort(scores: &[f32], count: u64, config: u64) -> (Records, Records, [i16; 4]) {
    let src = SORT
        .replace("COUNT", &count.to_string())
        .replace("CONFIG", &config.to_string());
    let idx: Vec<u32> = (0..64).map(|i| 1000 + i).collect();
    let b = run(
        &src,
        &[
            Arg::Buffer(f32b(scores)),
            Arg::Buffer(u32b(&idx)),
            Arg::Buffer(vec![0; 512]),
            Arg::Buffer(vec![0; 512]),
            Arg::Buffer(vec![0; 8]),
        ],
    );
    let sr = std::array::from_fn(|k| i16::from_le_bytes([b[4][2 * k], b[4][2 * k + 1]]));
    (records(&b[2]), records(&b[3]), sr)
}

#[test]
fn bitsort_blocks_then_merge_four_lists() {
    // block 0: a descending ramp with ties; block 1: an ascending ramp
    let mut s: Vec<f32> = (0..32).map(|i| (i / 2) as f32).collect();
    s.extend((0..32).map(|i| -(i as f32)));
    let (sorted, merged, sr) = sort(&s, 8 | 8 << 16 | 8 << 32 | 8 << 48, 1 | 0xf << 8);
    // block 0: 15, 15, 14, 14...; ties keep the earlier lane (index)
    assert_eq!(
        &sorted[..4],
        &[(15.0, 1030), (15.0, 1031), (14.0, 1028), (14.0, 1029)]
    );
    assert_eq!(sorted[31], (0.0, 1001));
    // block 1 starts 256 bytes on: 0, -1, -2...
    assert_eq!(&sorted[32..34], &[(0.0, 1032), (-1.0, 1033)]);
    // lists of 8 records: block 0 records 0..8 (15..12) and 8..16 (11..8),
    // 16..24 (7..4), 24..32 (3..0); the merge is all of block 0 in order
    assert_eq!(&merged[..32], &sorted[..32]);
    assert_eq!(sr, [8, 8, 8, 8]);
}

#[test]
fn merge_exhausted_stops_when_a_list_empties() {
    // lists 0..3 hold block 0's records 0..8, 8..16, 16..24, 24..32: list 0
    // (the largest) empties first, after 8 records
    let s: Vec<f32> = (0..64).map(|i| 100.0 - i as f32).collect();
    let (sorted, merged, sr) = sort(&s, 8 | 8 << 16 | 8 << 32 | 8 << 48, 1 | 0xf << 8 | 1 << 12);
    assert_eq!(&merged[..8], &sorted[..8]);
    assert_eq!(merged[8], (0.0, 0), "nothing after the stop");
    assert_eq!(sr, [8, 0, 0, 0]);
    // only lists 1 and 3 take part (mask 0b1010)
    let (sorted, merged, sr) = sort(&s, 8 | 8 << 16 | 8 << 32 | 8 << 48, 1 | 0xa << 8);
    assert_eq!(&merged[..8], &sorted[8..16]);
    assert_eq!(&merged[8..16], &sorted[24..32]);
    assert_eq!(sr, [0, 8, 0, 8]);
}

/// `vsqz` keeps `n` lanes (SQZN = 4n bytes); `vstur` stores them at base +
/// AR and, with POST_UPDATE, moves AR on; `sprsts` stores AR.
#[test]
fn vstur_streams_squeezed_lanes_through_ar() {
    let src = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%a: !pto.ptr<f32, gm>, %o: !pto.ptr<f32, gm>, %ar: !pto.ptr<ui32, gm>) attributes {pto.kernel} {
    %c0 = arith.constant 0 : index
    %c0_i32 = arith.constant 0 : i32
    %c4_i32 = arith.constant 4 : i32
    %c3_i32 = arith.constant 3 : i32
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c32_i64 = arith.constant 32 : i64
    %c256_i64 = arith.constant 256 : i64
    %c512_i64 = arith.constant 512 : i64
    %c1024_i64 = arith.constant 1024 : i64
    %ua = pto.castptr %c0_i64 : i64 -> !pto.ptr<f32, ub>
    %uo = pto.castptr %c512_i64 : i64 -> !pto.ptr<f32, ub>
    %uar = pto.castptr %c1024_i64 : i64 -> !pto.ptr<ui32, ub>
    pto.mte_gm_ub %a, %ua, %c0_i64, %c256_i64 nburst(%c1_i64, %c256_i64, %c256_i64)
      : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.vecscope {
      pto.sprclr "AR"
      %v = pto.vlds %ua[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      %m4, %r4 = pto.plt_b32 %c4_i32 : i32 -> !pto.mask<b32>, i32
      %m3, %r3 = pto.plt_b32 %c3_i32 : i32 -> !pto.mask<b32>, i32
      %s4 = pto.vsqz %v, %m4 : !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
      %al0 = pto.init_align : !pto.align
      %al1 = pto.vstur %al0, %s4, %uo, "POST_UPDATE" : !pto.align, !pto.vreg<64xf32>, !pto.ptr<f32, ub> -> !pto.align
      %s3 = pto.vsqz %v, %m3 : !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
      %al2 = pto.vstur %al1, %s3, %uo, "NO_POST_UPDATE" : !pto.align, !pto.vreg<64xf32>, !pto.ptr<f32, ub> -> !pto.align
      pto.vstar %al2, %uo : !pto.align, !pto.ptr<f32, ub>
      pto.sprsts "AR", %uar[%c0_i32] : !pto.ptr<ui32, ub>, i32
    }
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.mte_ub_gm %uo, %o, %c32_i64 nburst(%c1_i64, %c32_i64, %c32_i64)
      : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
    pto.mte_ub_gm %uar, %ar, %c32_i64 nburst(%c1_i64, %c32_i64, %c32_i64)
      : !pto.ptr<ui32, ub>, !pto.ptr<ui32, gm>, i64, i64, i64, i64
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }
}
"#;
    let a: Vec<f32> = (0..64).map(|i| i as f32 + 1.0).collect();
    let b = run(
        src,
        &[
            Arg::Buffer(f32b(&a)),
            Arg::Buffer(vec![0; 32]),
            Arg::Buffer(vec![0; 32]),
        ],
    );
    let o: Vec<f32> = b[1]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    // 4 lanes at AR = 0, then 3 lanes at AR = 16 bytes; AR stays 16
    assert_eq!(o, [1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0, 0.0]);
    assert_eq!(u32s(&b[2])[0], 16);
}

/// `set_atomic_s32` + `set_atomic_add` make the next UB -> GM copy add into
/// GM; `set_atomic_none` restores plain stores.
#[test]
fn mte3_atomics_follow_the_atomic_registers() {
    let src = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%a: !pto.ptr<i32, gm>, %o: !pto.ptr<i32, gm>, %p: !pto.ptr<i32, gm>, %q: !pto.ptr<f32, gm>) attributes {pto.kernel} {
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c32_i64 = arith.constant 32 : i64
    %u = pto.castptr %c0_i64 : i64 -> !pto.ptr<i32, ub>
    %uf = pto.castptr %c0_i64 : i64 -> !pto.ptr<f32, ub>
    pto.mte_gm_ub %a, %u, %c0_i64, %c32_i64 nburst(%c1_i64, %c32_i64, %c32_i64)
      : !pto.ptr<i32, gm>, !pto.ptr<i32, ub>, i64, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.set_atomic_s32
    pto.set_atomic_max
    pto.mte_ub_gm %u, %o, %c32_i64 nburst(%c1_i64, %c32_i64, %c32_i64)
      : !pto.ptr<i32, ub>, !pto.ptr<i32, gm>, i64, i64, i64, i64
    pto.barrier #pto.pipe<PIPE_MTE3>
    pto.set_atomic_add
    pto.mte_ub_gm %u, %o, %c32_i64 nburst(%c1_i64, %c32_i64, %c32_i64)
      : !pto.ptr<i32, ub>, !pto.ptr<i32, gm>, i64, i64, i64, i64
    pto.set_atomic_none
    pto.mte_ub_gm %u, %p, %c32_i64 nburst(%c1_i64, %c32_i64, %c32_i64)
      : !pto.ptr<i32, ub>, !pto.ptr<i32, gm>, i64, i64, i64, i64
    pto.set_atomic_f32
    pto.set_atomic_add
    pto.mte_ub_gm %uf, %q, %c32_i64 nburst(%c1_i64, %c32_i64, %c32_i64)
      : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
    pto.set_atomic_none
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }
}
"#;
    let a: Vec<u32> = (0..8).map(|i| i * 10).collect();
    let o: Vec<u32> = (0..8).map(|i| 35 - i).collect();
    let b = run(
        src,
        &[
            Arg::Buffer(u32b(&a)),
            Arg::Buffer(u32b(&o)),
            Arg::Buffer(u32b(&[7; 8])),
            Arg::Buffer(f32b(&[0.5; 8])),
        ],
    );
    // max(a, o) + a
    let want: Vec<u32> = (0..8).map(|i| (i * 10).max(35 - i) + i * 10).collect();
    assert_eq!(u32s(&b[1]), want);
    // atomics off: a plain copy
    assert_eq!(u32s(&b[2]), a);
    // f32 add of the i32 bit patterns read as f32 (tiny denormals) into 0.5
    let q: Vec<f32> = b[3]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let fa: Vec<f32> = a.iter().map(|x| f32::from_bits(*x) + 0.5).collect();
    assert_eq!(q, fa);
}

/// `ld_dev`/`st_dev`: one GM element read and written by the scalar unit.
#[test]
fn ld_dev_st_dev_move_one_gm_element() {
    let src = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%s: !pto.ptr<i32, gm>, %d: !pto.ptr<i32, gm>) attributes {pto.aicore} {
    %c2 = arith.constant 2 : index
    %c5 = arith.constant 5 : index
    %v = pto.ld_dev %s[%c2] : !pto.ptr<i32, gm> -> i32
    pto.st_dev %v, %d[%c5] : !pto.ptr<i32, gm>, i32
    return
  }
}
"#;
    let b = run(
        src,
        &[
            Arg::Buffer(u32b(&[1, 2, 0xdead_beef, 4])),
            Arg::Buffer(vec![0; 32]),
        ],
    );
    assert_eq!(u32s(&b[1]), [0, 0, 0, 0, 0, 0xdead_beef, 0, 0]);
}

/// A call inside a vector scope runs the callee's vector ops in the scope,
/// with its results returned to the caller.
#[test]
fn call_inside_a_vector_scope_is_inlined() {
    let src = r#"module attributes {pto.target_arch = "a5"} {
  func.func private @twice(%x: !pto.vreg<64xf32>, %m: !pto.mask<b32>, %out: !pto.ptr<f32, ub>, %off: index) -> !pto.vreg<64xf32> {
    %y = pto.vadd %x, %x, %m : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
    pto.vsts %y, %out[%off], %m : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>
    return %y : !pto.vreg<64xf32>
  }
  func.func @k(%a: !pto.ptr<f32, gm>, %o: !pto.ptr<f32, gm>) attributes {pto.kernel} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c256_i64 = arith.constant 256 : i64
    %c512_i64 = arith.constant 512 : i64
    %ua = pto.castptr %c0_i64 : i64 -> !pto.ptr<f32, ub>
    %uo = pto.castptr %c512_i64 : i64 -> !pto.ptr<f32, ub>
    pto.mte_gm_ub %a, %ua, %c0_i64, %c256_i64 nburst(%c1_i64, %c256_i64, %c256_i64)
      : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.vecscope {
      %m = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      %x = pto.vlds %ua[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      %y = func.call @twice(%x, %m, %uo, %c0) : (!pto.vreg<64xf32>, !pto.mask<b32>, !pto.ptr<f32, ub>, index) -> !pto.vreg<64xf32>
      %z = func.call @twice(%y, %m, %uo, %c64) : (!pto.vreg<64xf32>, !pto.mask<b32>, !pto.ptr<f32, ub>, index) -> !pto.vreg<64xf32>
    }
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.mte_ub_gm %uo, %o, %c512_i64 nburst(%c1_i64, %c512_i64, %c512_i64)
      : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }
}
"#;
    let a: Vec<f32> = (0..64).map(|i| i as f32).collect();
    let b = run(src, &[Arg::Buffer(f32b(&a)), Arg::Buffer(vec![0; 512])]);
    let o: Vec<f32> = b[1]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let want: Vec<f32> = a
        .iter()
        .map(|x| 2.0 * x)
        .chain(a.iter().map(|x| 4.0 * x))
        .collect();
    assert_eq!(o, want);
}

/// `vscatter`: active request i writes value lane i at dest + offsets[i];
/// 8-bit data takes every other byte with 16-bit offsets.
#[test]
fn vscatter_writes_active_lanes_at_their_offsets() {
    let src = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%a: !pto.ptr<f32, gm>, %o: !pto.ptr<f32, gm>, %o8: !pto.ptr<ui8, gm>) attributes {pto.kernel} {
    %c0 = arith.constant 0 : index
    %c60_i32 = arith.constant 60 : i32
    %c63_i32 = arith.constant 63 : i32
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c256_i64 = arith.constant 256 : i64
    %c512_i64 = arith.constant 512 : i64
    %c1024_i64 = arith.constant 1024 : i64
    %ua = pto.castptr %c0_i64 : i64 -> !pto.ptr<f32, ub>
    %uo = pto.castptr %c512_i64 : i64 -> !pto.ptr<f32, ub>
    %u8 = pto.castptr %c1024_i64 : i64 -> !pto.ptr<ui8, ub>
    %ua8 = pto.castptr %c0_i64 : i64 -> !pto.ptr<ui8, ub>
    pto.mte_gm_ub %a, %ua, %c0_i64, %c256_i64 nburst(%c1_i64, %c256_i64, %c256_i64)
      : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.vecscope {
      %v = pto.vlds %ua[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      %i = pto.vci %c63_i32 {order = "DESC"} : i32 -> !pto.vreg<64xi32>
      %m, %r = pto.plt_b32 %c60_i32 : i32 -> !pto.mask<b32>, i32
      pto.vscatter %v, %uo, %i, %m : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.vreg<64xi32>, !pto.mask<b32>
      %b = pto.vlds %ua8[%c0] : !pto.ptr<ui8, ub> -> !pto.vreg<256xui8>
      %i16 = pto.vci %c0_i16 {order = "ASC"} : i16 -> !pto.vreg<128xi16>
      %all = pto.pset_b16 "PAT_ALL" : !pto.mask<b16>
      pto.vscatter %b, %u8, %i16, %all : !pto.vreg<256xui8>, !pto.ptr<ui8, ub>, !pto.vreg<128xi16>, !pto.mask<b16>
    }
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.mte_ub_gm %uo, %o, %c256_i64 nburst(%c1_i64, %c256_i64, %c256_i64)
      : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
    pto.mte_ub_gm %u8, %o8, %c256_i64 nburst(%c1_i64, %c256_i64, %c256_i64)
      : !pto.ptr<ui8, ub>, !pto.ptr<ui8, gm>, i64, i64, i64, i64
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }
}
"#
    .replace(
        "    %c0_i64 = arith.constant 0 : i64\n",
        "    %c0_i64 = arith.constant 0 : i64\n    %c0_i16 = arith.constant 0 : i16\n",
    );
    let a: Vec<f32> = (0..64).map(|i| i as f32 + 0.5).collect();
    let b = run(
        &src,
        &[
            Arg::Buffer(f32b(&a)),
            Arg::Buffer(vec![0; 256]),
            Arg::Buffer(vec![0; 256]),
        ],
    );
    let o: Vec<f32> = b[1]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    // lane i (the first 60 active) goes to element 63 - i
    for (e, x) in o.iter().enumerate() {
        let want = if e >= 4 { a[63 - e] } else { 0.0 };
        assert_eq!(*x, want, "element {e}");
    }
    // 8-bit: request i writes byte 2i of the source at offset i
    let src8 = f32b(&a);
    for i in 0..128 {
        assert_eq!(b[2][i], src8[2 * i], "byte {i}");
    }
    assert!(b[2][128..].iter().all(|&x| x == 0));
}

/// `copy_ubuf_to_cbuf` on the vector subblocks writes the cube core's L1;
/// `copy_cbuf_to_ubuf` on the cube writes the UB of subblock `sub_blockid`.
/// Subblock 1's intra-block ids reach the cube as 16-31, the mirror of the
/// cube's sets.
#[test]
fn cbuf_ubuf_copies_cross_the_mixed_cluster() {
    let src = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%src: !pto.ptr<i16, gm>, %dst: !pto.ptr<i16, gm>) attributes {pto.kernel} {
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c2_i64 = arith.constant 2 : i64
    %c8_i64 = arith.constant 8 : i64
    %c128_i64 = arith.constant 128 : i64
    %c1024_i64 = arith.constant 1024 : i64
    %l1 = pto.castptr %c1024_i64 : i64 -> !pto.ptr<i16, l1>
    %ub0 = pto.castptr %c0_i64 : i64 -> !pto.ptr<i16, ub>
    %ub1 = pto.castptr %c1024_i64 : i64 -> !pto.ptr<i16, ub>
    pto.section.vector {
      %sb = pto.get_subblock_idx
      %is0 = arith.cmpi eq, %sb, %c0_i64 : i64
      scf.if %is0 {
        pto.mte_gm_ub %src, %ub0, %c0_i64, %c128_i64 nburst(%c1_i64, %c128_i64, %c128_i64)
          : !pto.ptr<i16, gm>, !pto.ptr<i16, ub>, i64, i64, i64, i64, i64
        pto.set_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
        pto.wait_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
        // two bursts of 2 blocks with a 2-block gap in L1
        pto.copy_ubuf_to_cbuf %ub0, %l1, %c0_i64, %c2_i64, %c2_i64, %c0_i64, %c2_i64
          : !pto.ptr<i16, ub>, !pto.ptr<i16, l1>, i64, i64, i64, i64, i64
      }
      pto.set_intra_block <PIPE_MTE3>, 0
      pto.wait_intra_block <PIPE_MTE3>, 1
      %is1 = arith.cmpi eq, %sb, %c1_i64 : i64
      scf.if %is1 {
        pto.mte_ub_gm %ub1, %dst, %c128_i64 nburst(%c2_i64, %c128_i64, %c128_i64)
          : !pto.ptr<i16, ub>, !pto.ptr<i16, gm>, i64, i64, i64, i64
      }
      pto.barrier #pto.pipe<PIPE_ALL>
    }
    pto.section.cube {
      pto.wait_intra_block <PIPE_MTE1>, 0
      pto.wait_intra_block <PIPE_MTE1>, 16
      // all 256 L1 bytes to subblock 1's UB
      pto.copy_cbuf_to_ubuf %l1, %ub1, %c1_i64, %c1_i64, %c8_i64, %c0_i64, %c0_i64
        : !pto.ptr<i16, l1>, !pto.ptr<i16, ub>, i64, i64, i64, i64, i64
      pto.set_intra_block <PIPE_MTE1>, 1
      pto.set_intra_block <PIPE_MTE1>, 17
    }
    return
  }
}
"#;
    let x: Vec<u8> = (0..128u32).map(|i| (i * 3 + 1) as u8).collect();
    let b = run(src, &[Arg::Buffer(x.clone()), Arg::Buffer(vec![0; 256])]);
    // bursts of 64 bytes land at 0 and 128 in L1, zeros between
    assert_eq!(&b[1][..64], &x[..64]);
    assert!(b[1][64..128].iter().all(|&v| v == 0));
    assert_eq!(&b[1][128..192], &x[64..128]);
}
