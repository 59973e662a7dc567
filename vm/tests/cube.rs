//! The A5 cube micro-ops, each family pinned with hand-computed values:
//! GM -> L1 (NZ) -> L0A/L0B -> `mad*` -> L0C -> FIXPIPE write-back.

use half::f16;
use pto_vm::{load_text, run_kernel, Arg, CheckMode, Config};

const HEAD: &str = r#"module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<cube>} {
  func.func @k(%a_gm: !pto.ptr<f16, gm>, %b_gm: !pto.ptr<f16, gm>, %x_gm: !pto.ptr<f32, gm>, %o_gm: !pto.ptr<f32, gm>, %h_gm: !pto.ptr<f16, gm>) attributes {pto.kernel} {
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %c16 = arith.constant 16 : i64
    %c32 = arith.constant 32 : i64
    %c64 = arith.constant 64 : i64
    %c512 = arith.constant 512 : i64
    %c1024 = arith.constant 1024 : i64
    %false = arith.constant false
    %l1_a = pto.castptr %c0 : i64 -> !pto.ptr<f16, l1>
    %l1_b = pto.castptr %c512 : i64 -> !pto.ptr<f16, l1>
    %l1_x = pto.castptr %c1024 : i64 -> !pto.ptr<f32, l1>
    %l0a = pto.castptr %c0 : i64 -> !pto.ptr<f16, l0a>
    %l0b = pto.castptr %c0 : i64 -> !pto.ptr<f16, l0b>
    %l0c = pto.castptr %c0 : i64 -> !pto.ptr<f32, l0c>
    %bt = pto.castptr %c0 : i64 -> !pto.ptr<f32, bt>
    pto.mte_gm_l1_frac %a_gm, %l1_a, nd2nz, shape(%c2, %c16), src_layout(%c32),
        dst_group(%c1, %c1, %c16, %c0), ctrl(%c0, %false)
      : !pto.ptr<f16, gm>, !pto.ptr<f16, l1>, nd2nz, shape i64, i64, src_layout(i64),
        dst_group i64, i64, i64, i64, ctrl i64, i1
    pto.mte_gm_l1_frac %b_gm, %l1_b, nd2nz, shape(%c16, %c16), src_layout(%c32),
        dst_group(%c1, %c1, %c16, %c0), ctrl(%c0, %false)
      : !pto.ptr<f16, gm>, !pto.ptr<f16, l1>, nd2nz, shape i64, i64, src_layout(i64),
        dst_group i64, i64, i64, i64, ctrl i64, i1
    pto.mte_gm_l1 %x_gm, %l1_x, %c64 nburst(%c1, %c0, %c0)
      : !pto.ptr<f32, gm>, !pto.ptr<f32, l1>, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]
    pto.mte_l1_l0a %l1_a, %l0a, %c2, %c16, %c0, %c0
      : !pto.ptr<f16, l1>, !pto.ptr<f16, l0a>, i64, i64, i64, i64
    pto.mte_l1_l0b %l1_b, %l0b, %c16, %c16, %c0, %c0 {transpose = true}
      : !pto.ptr<f16, l1>, !pto.ptr<f16, l0b>, i64, i64, i64, i64
    pto.mte_l1_bt %l1_x, %bt, %c1 nburst(%c1, %c0, %c0)
      : !pto.ptr<f32, l1>, !pto.ptr<f32, bt>, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE1", "PIPE_M", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE1", "PIPE_M", "EVENT_ID0"]
"#;

const TAIL: &str = r#"    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }
}
"#;

/// A (2 x 16): row 0 all ones, row 1 = -k. B (16 x 16): row 0 = n, else 2 on
/// the diagonal. So A @ B = [[0, n + 2 ...], [0, -2n ...]].
fn inputs() -> Vec<Arg> {
    let mut a = Vec::new();
    for k in 0..16 {
        a.push(f16::from_f32(1.0));
        let _ = k;
    }
    for k in 0..16 {
        a.push(f16::from_f32(-(k as f32)));
    }
    let mut b = Vec::new();
    for k in 0..16 {
        for n in 0..16 {
            let v = if k == 0 {
                n as f32
            } else if k == n {
                2.0
            } else {
                0.0
            };
            b.push(f16::from_f32(v));
        }
    }
    let x: Vec<f32> = (0..16).map(|n| 100.0 + n as f32).collect();
    let h = |v: &[f16]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    vec![
        Arg::Buffer(h(&a)),
        Arg::Buffer(h(&b)),
        Arg::Buffer(x.iter().flat_map(|v| v.to_le_bytes()).collect()),
        Arg::Buffer(vec![0; 2 * 16 * 4]),
        Arg::Buffer(vec![0; 2 * 16 * 2]),
    ]
}

fn product(i: usize, n: usize) -> f32 {
    match (i, n) {
        (_, 0) => 0.0,
        (0, n) => n as f32 + 2.0,
        (_, n) => -2.0 * n as f32,
    }
}

fn run(body: &str) -> Result<(Vec<f32>, Vec<f32>), String> {
    let src = format!("{HEAD}{body}{TAIL}");
    let k = load_text("t.pto", &src, None).unwrap_or_else(|e| panic!("does not load:\n{e}\n{src}"));
    let cfg = Config {
        profile: k.profile,
        check: CheckMode::Error,
        max_steps: 1_000_000,
        ..Config::default()
    };
    let f = run_kernel(&k, &cfg, None, &inputs())?;
    if let Some(e) = f.out.error {
        return Err(format!("{e:?}"));
    }
    let o = f.buffers[3]
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let h = f.buffers[4]
        .chunks(2)
        .map(|c| f16::from_le_bytes([c[0], c[1]]).to_f32())
        .collect();
    Ok((o, h))
}

const STORE: &str = r#"    pto.set_flag["PIPE_M", "PIPE_FIX", "EVENT_ID0"]
    pto.wait_flag["PIPE_M", "PIPE_FIX", "EVENT_ID0"]
    pto.mte_l0c_gm %l0c, %o_gm, %c2, %c16, %c16, %c16, %c0, %c0, nz2nd
      : !pto.ptr<f32, l0c>, !pto.ptr<f32, gm>, i64, i64, i64, i64, i64, i64
"#;

const MAD: &str = "    pto.mad %l0a, %l0b, %l0c, %c2, %c16, %c16 disable_gemv\n      : !pto.ptr<f16, l0a>, !pto.ptr<f16, l0b>, !pto.ptr<f32, l0c>, i64, i64, i64\n";

#[test]
fn mad_nz_layouts_and_nz2nd_writeback() {
    let (o, _) = run(&format!("{MAD}{STORE}")).unwrap();
    for i in 0..2 {
        for n in 0..16 {
            assert_eq!(o[i * 16 + n], product(i, n), "C[{i}][{n}]");
        }
    }
}

#[test]
fn mad_acc_adds_to_l0c() {
    let acc = "    pto.mad_acc %l0a, %l0b, %l0c, %c2, %c16, %c16 disable_gemv\n      : !pto.ptr<f16, l0a>, !pto.ptr<f16, l0b>, !pto.ptr<f32, l0c>, i64, i64, i64\n";
    let (o, _) = run(&format!("{MAD}{acc}{STORE}")).unwrap();
    for i in 0..2 {
        for n in 0..16 {
            assert_eq!(o[i * 16 + n], 2.0 * product(i, n), "C[{i}][{n}]");
        }
    }
}

#[test]
fn mad_bias_adds_the_bias_row() {
    let bias = "    pto.mad_bias %l0a, %l0b, %l0c, %bt, %c2, %c16, %c16 disable_gemv\n      : !pto.ptr<f16, l0a>, !pto.ptr<f16, l0b>, !pto.ptr<f32, l0c>, !pto.ptr<f32, bt>, i64, i64, i64\n";
    let (o, _) = run(&format!("{bias}{STORE}")).unwrap();
    for i in 0..2 {
        for n in 0..16 {
            assert_eq!(o[i * 16 + n], product(i, n) + 100.0 + n as f32);
        }
    }
}

#[test]
fn fixpipe_quant_relu_clip_to_f16() {
    let store = r#"    pto.set_flag["PIPE_M", "PIPE_FIX", "EVENT_ID0"]
    pto.wait_flag["PIPE_M", "PIPE_FIX", "EVENT_ID0"]
    %half = arith.constant 5.000000e-01 : f32
    %alpha = arith.constant 2.500000e-01 : f32
    %clip = arith.constant 4.000000e+00 : f16
    pto.mte_l0c_gm %l0c, %h_gm, %c2, %c16, %c16, %c16, %c0, %c0,
      pre_quant(%half, mode = qf322f16_pre_scalar),
      pre_relu(%alpha, mode = scalar_relu, clip = %clip),
      nz2nd
      : !pto.ptr<f32, l0c>, !pto.ptr<f16, gm>, i64, i64, i64, i64, i64, i64, f32, f32, f16
"#;
    let (_, h) = run(&format!("{MAD}{store}")).unwrap();
    for i in 0..2 {
        for n in 0..16 {
            let x = product(i, n) * 0.5;
            let want = if x < 0.0 { x * 0.25 } else { x }.min(4.0);
            assert_eq!(h[i * 16 + n], want, "C[{i}][{n}]");
        }
    }
}

#[test]
fn fixpipe_nz2dn_swaps_the_destination() {
    let store = r#"    pto.set_flag["PIPE_M", "PIPE_FIX", "EVENT_ID0"]
    pto.wait_flag["PIPE_M", "PIPE_FIX", "EVENT_ID0"]
    pto.mte_l0c_gm %l0c, %o_gm, %c2, %c16, %c16, %c2, %c0, %c0, nz2dn(%c1)
      : !pto.ptr<f32, l0c>, !pto.ptr<f32, gm>, i64, i64, i64, i64, i64, i64, i64
"#;
    let (o, _) = run(&format!("{MAD}{store}")).unwrap();
    for i in 0..2 {
        for n in 0..16 {
            assert_eq!(o[n * 2 + i], product(i, n));
        }
    }
}

#[test]
fn wrong_space_faults() {
    let bad = "    pto.mad %l0b, %l0b, %l0c, %c2, %c16, %c16\n      : !pto.ptr<f16, l0b>, !pto.ptr<f16, l0b>, !pto.ptr<f32, l0c>, i64, i64, i64\n";
    let e = run(bad).unwrap_err();
    assert!(e.contains("operand 1 in L0A"), "{e}");
}

/// `mte_gm_l1_frac nd2nz` packs a 2 x 20 f16 matrix into NZ (16-row fractals of
/// 16 columns, the second column block 16 rows further, lanes 20..32 zero);
/// `mte_l1_ub` copies 32-byte blocks.
#[test]
fn nd2nz_packs_fractals_and_l1_ub_counts_blocks() {
    let src = r#"module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<cube>} {
  func.func @k(%a_gm: !pto.ptr<f16, gm>, %o_gm: !pto.ptr<f16, gm>) attributes {pto.kernel} {
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %c16 = arith.constant 16 : i64
    %c20 = arith.constant 20 : i64
    %c32 = arith.constant 32 : i64
    %c40 = arith.constant 40 : i64
    %c1024 = arith.constant 1024 : i64
    %false = arith.constant false
    %l1 = pto.castptr %c0 : i64 -> !pto.ptr<f16, l1>
    %ub = pto.castptr %c0 : i64 -> !pto.ptr<f16, ub>
    pto.mte_gm_l1_frac %a_gm, %l1, nd2nz, shape(%c2, %c20), src_layout(%c40),
        dst_group(%c1, %c1, %c16, %c0), ctrl(%c0, %false)
      : !pto.ptr<f16, gm>, !pto.ptr<f16, l1>, nd2nz, shape i64, i64, src_layout(i64),
        dst_group i64, i64, i64, i64, ctrl i64, i1
    pto.set_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]
    pto.mte_l1_ub %l1, %ub, %c32 nburst(%c1, %c0, %c0)
      : !pto.ptr<f16, l1>, !pto.ptr<f16, ub>, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE1", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE1", "PIPE_MTE3", "EVENT_ID0"]
    pto.mte_ub_gm %ub, %o_gm, %c1024 nburst(%c1, %c1024, %c1024)
      : !pto.ptr<f16, ub>, !pto.ptr<f16, gm>, i64, i64, i64, i64
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }
}
"#;
    let k = load_text("t.pto", src, None).unwrap_or_else(|e| panic!("does not load:\n{e}"));
    let cfg = Config {
        profile: k.profile,
        check: CheckMode::Error,
        max_steps: 1_000_000,
        ..Config::default()
    };
    let a: Vec<u8> = (0..40)
        .flat_map(|i| f16::from_f32(1.0 + i as f32).to_le_bytes())
        .collect();
    let f = run_kernel(
        &k,
        &cfg,
        None,
        &[Arg::Buffer(a), Arg::Buffer(vec![0xff; 1024])],
    )
    .expect("runs");
    assert_eq!(f.out.error, None);
    let o: Vec<f32> = f.buffers[1]
        .chunks(2)
        .map(|c| f16::from_le_bytes([c[0], c[1]]).to_f32())
        .collect();
    assert_eq!(o.len(), 512);
    for r in 0..2 {
        for c in 0..32 {
            let at = ((c / 16) * 16 + r) * 16 + c % 16;
            let want = if c < 20 {
                1.0 + (r * 20 + c) as f32
            } else {
                0.0
            };
            assert_eq!(o[at], want, "A[{r}][{c}] at {at}");
        }
    }
}

/// `mad_mx`: f8E4M3 ones times ones, scaled per 32-element K group by the
/// staged E8M0 scales (left `[m][group]`, right `[n][group]`): even rows
/// 2^0 * 2^-1 * 32 + 2^0 * 2^0 * 32 = 48, odd rows 2^1 * 2^-1 * 32 + 32 = 64.
#[test]
fn mad_mx_applies_group_scales() {
    let src = r#"module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<cube>} {
  func.func @k(%a_gm: !pto.ptr<f8E4M3FN, gm>, %b_gm: !pto.ptr<f8E4M3FN, gm>, %sa_gm: !pto.ptr<f8E4M3FN, gm>, %sb_gm: !pto.ptr<f8E4M3FN, gm>, %o_gm: !pto.ptr<f32, gm>) attributes {pto.kernel} {
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c16 = arith.constant 16 : i64
    %c32 = arith.constant 32 : i64
    %c64 = arith.constant 64 : i64
    %c1024 = arith.constant 1024 : i64
    %c2048 = arith.constant 2048 : i64
    %c2080 = arith.constant 2080 : i64
    %l1_a = pto.castptr %c0 : i64 -> !pto.ptr<f8E4M3FN, l1>
    %l1_b = pto.castptr %c1024 : i64 -> !pto.ptr<f8E4M3FN, l1>
    %l1_sa = pto.castptr %c2048 : i64 -> !pto.ptr<f8E4M3FN, l1>
    %l1_sb = pto.castptr %c2080 : i64 -> !pto.ptr<f8E4M3FN, l1>
    %l0a = pto.castptr %c0 : i64 -> !pto.ptr<f8E4M3FN, l0a>
    %l0b = pto.castptr %c0 : i64 -> !pto.ptr<f8E4M3FN, l0b>
    %l0c = pto.castptr %c0 : i64 -> !pto.ptr<f32, l0c>
    pto.mte_gm_l1 %a_gm, %l1_a, %c1024 nburst(%c1, %c0, %c0)
      : !pto.ptr<f8E4M3FN, gm>, !pto.ptr<f8E4M3FN, l1>, i64, i64, i64, i64
    pto.mte_gm_l1 %b_gm, %l1_b, %c1024 nburst(%c1, %c0, %c0)
      : !pto.ptr<f8E4M3FN, gm>, !pto.ptr<f8E4M3FN, l1>, i64, i64, i64, i64
    pto.mte_gm_l1 %sa_gm, %l1_sa, %c32 nburst(%c1, %c0, %c0)
      : !pto.ptr<f8E4M3FN, gm>, !pto.ptr<f8E4M3FN, l1>, i64, i64, i64, i64
    pto.mte_gm_l1 %sb_gm, %l1_sb, %c32 nburst(%c1, %c0, %c0)
      : !pto.ptr<f8E4M3FN, gm>, !pto.ptr<f8E4M3FN, l1>, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]
    pto.mte_l1_l0a %l1_a, %l0a, %c16, %c64, %c0, %c0
      : !pto.ptr<f8E4M3FN, l1>, !pto.ptr<f8E4M3FN, l0a>, i64, i64, i64, i64
    pto.mte_l1_l0b %l1_b, %l0b, %c64, %c16, %c0, %c0
      : !pto.ptr<f8E4M3FN, l1>, !pto.ptr<f8E4M3FN, l0b>, i64, i64, i64, i64
    pto.mte_l1_l0a_mx %l1_sa, %l0a, %c16, %c64, %c0, %c0
      : !pto.ptr<f8E4M3FN, l1>, !pto.ptr<f8E4M3FN, l0a>, i64, i64, i64, i64
    pto.mte_l1_l0b_mx %l1_sb, %l0b, %c64, %c16, %c0, %c0
      : !pto.ptr<f8E4M3FN, l1>, !pto.ptr<f8E4M3FN, l0b>, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE1", "PIPE_M", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE1", "PIPE_M", "EVENT_ID0"]
    pto.mad_mx %l0a, %l0b, %l0c, %c16, %c16, %c64 disable_gemv
      : !pto.ptr<f8E4M3FN, l0a>, !pto.ptr<f8E4M3FN, l0b>, !pto.ptr<f32, l0c>, i64, i64, i64
    pto.set_flag["PIPE_M", "PIPE_FIX", "EVENT_ID0"]
    pto.wait_flag["PIPE_M", "PIPE_FIX", "EVENT_ID0"]
    pto.mte_l0c_gm %l0c, %o_gm, %c16, %c16, %c16, %c16, %c0, %c0, nz2nd
      : !pto.ptr<f32, l0c>, !pto.ptr<f32, gm>, i64, i64, i64, i64, i64, i64
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }
}
"#;
    let k = load_text("t.pto", src, None).unwrap_or_else(|e| panic!("does not load:\n{e}"));
    let cfg = Config {
        profile: k.profile,
        check: CheckMode::Error,
        max_steps: 1_000_000,
        ..Config::default()
    };
    let sa: Vec<u8> = (0..16).flat_map(|m| [127 + (m % 2) as u8, 127]).collect();
    let sb: Vec<u8> = (0..16).flat_map(|_| [126u8, 127]).collect();
    let args = [
        Arg::Buffer(vec![0x38; 1024]),
        Arg::Buffer(vec![0x38; 1024]),
        Arg::Buffer(sa),
        Arg::Buffer(sb),
        Arg::Buffer(vec![0; 1024]),
    ];
    let f = run_kernel(&k, &cfg, None, &args).expect("runs");
    assert_eq!(f.out.error, None);
    let o: Vec<f32> = f.buffers[4]
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    for m in 0..16 {
        for n in 0..16 {
            let want = if m % 2 == 0 { 48.0 } else { 64.0 };
            assert_eq!(o[m * 16 + n], want, "C[{m}][{n}]");
        }
    }
}

/// Logical 16 x 64 left and 64 x 16 right i8 operands.
fn a_at(m: usize, k: usize) -> i8 {
    ((m * 7 + k * 3) % 11) as i8 - 5
}
fn b_at(k: usize, n: usize) -> i8 {
    ((k * 5 + n * 13) % 9) as i8 - 4
}
/// A in L1 as NZ (16 x 32-byte fractals, column blocks outer).
fn a_l1() -> Vec<u8> {
    let mut v = vec![0u8; 1024];
    for m in 0..16 {
        for k in 0..64 {
            v[((k / 32) * 16 + m) * 32 + k % 32] = a_at(m, k) as u8;
        }
    }
    v
}
/// B (K x N) in L1 as 32 x 16 fractals with N contiguous, the layout the
/// PTOAS mad_hif8 case packs for a transposed 8-bit right operand.
fn b_l1() -> Vec<u8> {
    let mut v = vec![0u8; 1024];
    for k in 0..64 {
        for n in 0..16 {
            v[(k / 32) * 512 + (k % 32) * 16 + n] = b_at(k, n) as u8;
        }
    }
    v
}

/// The 8-bit right operand with `transpose = true` reads K x N in 32 x 16
/// fractals (N contiguous) and the matmul computes A x B from them.
#[test]
fn mte_l1_l0b_transpose_on_8_bit_transposes_32x16_fractals() {
    let body = |t: &str| {
        format!(
            r#"module attributes {{pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<cube>}} {{
  func.func @k(%a_gm: !pto.ptr<i8, gm>, %b_gm: !pto.ptr<i8, gm>, %o_gm: !pto.ptr<i32, gm>) attributes {{pto.kernel}} {{
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c16 = arith.constant 16 : i64
    %c64 = arith.constant 64 : i64
    %c1024 = arith.constant 1024 : i64
    %l1_a = pto.castptr %c0 : i64 -> !pto.ptr<i8, l1>
    %l1_b = pto.castptr %c1024 : i64 -> !pto.ptr<i8, l1>
    %l0a = pto.castptr %c0 : i64 -> !pto.ptr<i8, l0a>
    %l0b = pto.castptr %c0 : i64 -> !pto.ptr<i8, l0b>
    %l0c = pto.castptr %c0 : i64 -> !pto.ptr<i32, l0c>
    pto.mte_gm_l1 %a_gm, %l1_a, %c1024 nburst(%c1, %c0, %c0)
      : !pto.ptr<i8, gm>, !pto.ptr<i8, l1>, i64, i64, i64, i64
    pto.mte_gm_l1 %b_gm, %l1_b, %c1024 nburst(%c1, %c0, %c0)
      : !pto.ptr<i8, gm>, !pto.ptr<i8, l1>, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]
    pto.mte_l1_l0a %l1_a, %l0a, %c16, %c64, %c0, %c0
      : !pto.ptr<i8, l1>, !pto.ptr<i8, l0a>, i64, i64, i64, i64
    pto.mte_l1_l0b %l1_b, %l0b, %c64, %c16, %c0, %c0{t}
      : !pto.ptr<i8, l1>, !pto.ptr<i8, l0b>, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE1", "PIPE_M", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE1", "PIPE_M", "EVENT_ID0"]
    pto.mad %l0a, %l0b, %l0c, %c16, %c16, %c64 disable_gemv
      : !pto.ptr<i8, l0a>, !pto.ptr<i8, l0b>, !pto.ptr<i32, l0c>, i64, i64, i64
    pto.set_flag["PIPE_M", "PIPE_FIX", "EVENT_ID0"]
    pto.wait_flag["PIPE_M", "PIPE_FIX", "EVENT_ID0"]
    pto.mte_l0c_gm %l0c, %o_gm, %c16, %c16, %c16, %c16, %c0, %c0, nz2nd
      : !pto.ptr<i32, l0c>, !pto.ptr<i32, gm>, i64, i64, i64, i64, i64, i64
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }}
}}
"#
        )
    };
    let out = |t: &str| {
        let src = body(t);
        let k = load_text("t.pto", &src, None).unwrap_or_else(|e| panic!("does not load:\n{e}"));
        let cfg = Config {
            profile: k.profile,
            check: CheckMode::Error,
            ..Config::default()
        };
        let args = [
            Arg::Buffer(a_l1()),
            Arg::Buffer(b_l1()),
            Arg::Buffer(vec![0; 1024]),
        ];
        let f = run_kernel(&k, &cfg, None, &args).expect("runs");
        assert_eq!(f.out.error, None);
        f.buffers[2].clone()
    };
    let got: Vec<i32> = out(" {transpose = true}")
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    for m in 0..16 {
        for n in 0..16 {
            let want: i32 = (0..64).map(|k| a_at(m, k) as i32 * b_at(k, n) as i32).sum();
            assert_eq!(got[m * 16 + n], want, "C[{m}][{n}]");
        }
    }
}

/// The raw `copy_cbuf_to_bt` takes its conversion from `conv_control`: 1
/// widens a 16-bit float source to f32 (what PTOAS passes for an f16 source),
/// anything else asked of it is refused.
#[test]
fn copy_cbuf_to_bt_widens_only_16_bit_floats() {
    let body = |conv: &str| {
        format!(
            "    %conv = arith.constant {conv}\n    pto.copy_cbuf_to_bt %l1_x, %bt, %conv, %c1, %c1, %c0, %c0\n      : !pto.ptr<f32, l1>, !pto.ptr<f32, bt>, i1, i64, i64, i64, i64\n    pto.set_flag[\"PIPE_MTE1\", \"PIPE_M\", \"EVENT_ID1\"]\n    pto.wait_flag[\"PIPE_MTE1\", \"PIPE_M\", \"EVENT_ID1\"]\n    pto.mad_bias %l0a, %l0b, %l0c, %bt, %c2, %c16, %c16 disable_gemv\n      : !pto.ptr<f16, l0a>, !pto.ptr<f16, l0b>, !pto.ptr<f32, l0c>, !pto.ptr<f32, bt>, i64, i64, i64\n{STORE}"
        )
    };
    // f32 bias values copied as bytes: the same result as mte_l1_bt
    let (o, _) = run(&body("false")).unwrap();
    for i in 0..2 {
        for n in 0..16 {
            assert_eq!(o[i * 16 + n], product(i, n) + 100.0 + n as f32);
        }
    }
    let e = run(&body("true")).unwrap_err();
    assert!(e.contains("conv_control 1 widens f16/bf16 to f32"), "{e}");
}

/// `mad_raw` decodes m | k << 12 | n << 24 and the init bits 61-63 of its
/// config word and reads tf32 from CTRL bit 46 (set with `set_ctrl`, refused
/// for f16 operands like the wrapper's tf32_mode); a word with other bits
/// set, or a bias init without a bias operand, is refused.
#[test]
fn mad_raw_reads_the_packed_config_word() {
    let raw = |word: i64, ctrl: i64| {
        format!(
            "    %xt = arith.constant {word} : i64\n    %ctl = arith.constant {ctrl} : i64\n    pto.set_ctrl %ctl : i64\n    pto.mad_raw %l0a, %l0b, %l0c, %xt\n      : !pto.ptr<f16, l0a>, !pto.ptr<f16, l0b>, !pto.ptr<f32, l0c>, i64\n{STORE}"
        )
    };
    let (m, k, n) = (2i64, 16i64, 16i64);
    let base = m | k << 12 | n << 24 | 1 << 61;
    let zero = base | i64::MIN; // bit 63: initialise with zero
    let (o, _) = run(&raw(zero, 0)).unwrap();
    for i in 0..2 {
        for j in 0..16 {
            assert_eq!(o[i * 16 + j], product(i, j), "C[{i}][{j}]");
        }
    }
    // tf32 on f16 operands is refused, as the wrapper's tf32_mode is
    let e = run(&raw(zero, 1 << 46)).unwrap_err();
    assert!(e.contains("tf32_mode needs f32 operands"), "{e}");
    let e = run(&raw(zero | 1 << 40, 0)).unwrap_err();
    assert!(e.contains("sets bits outside"), "{e}");
    let e = run(&raw(base | 1 << 62, 0)).unwrap_err();
    assert!(e.contains("bias initialisation (bit 62)"), "{e}");
}

/// `raw_fill_l1` refuses a destination off the 32-byte grid (a dynamic
/// offset at run time; the verifier catches constant ones) and a fill word
/// width other than 16 or 32 (the PTOAS op definition's preconditions).
#[test]
fn raw_fill_l1_checks_alignment_and_word_width() {
    let src = |bits: i64| {
        format!(
            r#"module attributes {{pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<cube>}} {{
  func.func @k(%o: !pto.ptr<f32, gm>, %off: i64) attributes {{pto.kernel}} {{
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %v = arith.constant 7 : i32
    %l1 = pto.castptr %c0 : i64 -> !pto.ptr<ui16, l1>
    pto.raw_fill_l1 %l1, %off, %v, %c1, %c1, %c0 {{fill_word_bits = {bits} : i64}}
      : !pto.ptr<ui16, l1>, i64, i32, i64, i64, i64
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }}
}}
"#
        )
    };
    let run = |off: i64| {
        let k = load_text("t.pto", &src(16), None).unwrap_or_else(|e| panic!("{e}"));
        let cfg = Config {
            profile: k.profile,
            ..Config::default()
        };
        let args = [Arg::Buffer(vec![0; 64]), Arg::Int(off)];
        let f = run_kernel(&k, &cfg, None, &args).expect("runs");
        f.out.error.map(|e| format!("{e:?}"))
    };
    assert_eq!(run(64), None);
    let e = run(16).expect("misaligned");
    assert!(e.contains("not 32-byte aligned"), "{e}");
    let e = load_text("t.pto", &src(8), None).expect_err("bad width");
    assert!(e.to_string().contains("fill_word_bits"), "{e}");
}

/// `copy_gm_to_cbuf_multi_nd2nz` takes its group count and destination
/// strides from the `set_mte2_nz_para` register: without it the copy faults;
/// with it (1 group, loop2 stride 1, loop3 stride 16) it packs like
/// `mte_gm_l1_frac` with the same values.
#[test]
fn multi_nd2nz_reads_the_nz_para_register() {
    let src = |para: &str| {
        format!(
            r#"module attributes {{pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<cube>}} {{
  func.func @k(%a_gm: !pto.ptr<f16, gm>, %o_gm: !pto.ptr<f16, gm>) attributes {{pto.kernel}} {{
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %c20 = arith.constant 20 : i64
    %c32 = arith.constant 32 : i64
    %c40 = arith.constant 40 : i64
    %c1024 = arith.constant 1024 : i64
    %false = arith.constant false
    %para = arith.constant 68719542273 : i64
    %l1 = pto.castptr %c0 : i64 -> !pto.ptr<f16, l1>
    %ub = pto.castptr %c0 : i64 -> !pto.ptr<f16, ub>
{para}    pto.copy_gm_to_cbuf_multi_nd2nz %a_gm, %l1, %c0, %c40, %c0, %c2, %c20, %c0, %false
      : !pto.ptr<f16, gm>, !pto.ptr<f16, l1>, i64, i64, i64, i64, i64, i64, i1
    pto.set_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]
    pto.mte_l1_ub %l1, %ub, %c32 nburst(%c1, %c0, %c0)
      : !pto.ptr<f16, l1>, !pto.ptr<f16, ub>, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE1", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE1", "PIPE_MTE3", "EVENT_ID0"]
    pto.mte_ub_gm %ub, %o_gm, %c1024 nburst(%c1, %c1024, %c1024)
      : !pto.ptr<f16, ub>, !pto.ptr<f16, gm>, i64, i64, i64, i64
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }}
}}
"#
        )
    };
    let run = |para: &str| {
        let text = src(para);
        let k = load_text("t.pto", &text, None).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let cfg = Config {
            profile: k.profile,
            check: CheckMode::Error,
            ..Config::default()
        };
        let a: Vec<u8> = (0..40)
            .flat_map(|i| f16::from_f32(1.0 + i as f32).to_le_bytes())
            .collect();
        let f = run_kernel(
            &k,
            &cfg,
            None,
            &[Arg::Buffer(a), Arg::Buffer(vec![0xff; 1024])],
        )
        .expect("runs");
        (f.out.error.map(|e| format!("{e:?}")), f.buffers[1].clone())
    };
    let (e, _) = run("");
    let e = e.expect("faults without the register");
    assert!(e.contains("set_mte2_nz_para was not executed"), "{e}");
    let (e, o) = run("    pto.set_mte2_nz_para %para : i64\n");
    assert_eq!(e, None);
    let o: Vec<f32> = o
        .chunks(2)
        .map(|c| f16::from_le_bytes([c[0], c[1]]).to_f32())
        .collect();
    // the 2 x 20 matrix as NZ: 16-row fractals of 16 columns, lanes 20..32 zero
    for r in 0..2 {
        for c in 0..32 {
            let at = ((c / 16) * 16 + r) * 16 + c % 16;
            let want = if c < 20 {
                1.0 + (r * 20 + c) as f32
            } else {
                0.0
            };
            assert_eq!(o[at], want, "A[{r}][{c}] at {at}");
        }
    }
}

/// `copy_matrix_cc_to_gm` decodes PTOAS's packed xm / xt words: m = 2,
/// n = 16, strides 16, no_convert + nz2nd writes the product like
/// `mte_l0c_gm ... nz2nd`; a pwl relu mode in xt, an atomic mode in CTRL, or
/// a scalar quant mode before `set_quant_pre` is refused rather than ignored.
#[test]
fn copy_matrix_cc_to_gm_decodes_xm_and_xt() {
    let xm: i64 = 16 << 4 | 2 << 16 | 16 << 32;
    let xt: i64 = 16 | 1 << 43;
    let body = |xt: i64, ctrl: i64| {
        format!(
            "{MAD}    pto.set_flag[\"PIPE_M\", \"PIPE_FIX\", \"EVENT_ID0\"]\n    pto.wait_flag[\"PIPE_M\", \"PIPE_FIX\", \"EVENT_ID0\"]\n    %ctl = arith.constant {ctrl} : i64\n    pto.set_ctrl %ctl : i64\n    %xm = arith.constant {xm} : i64\n    %xt = arith.constant {xt} : i64\n    pto.copy_matrix_cc_to_gm %l0c, %o_gm, %xm, %xt\n      : !pto.ptr<f32, l0c>, !pto.ptr<f32, gm>, i64, i64\n"
        )
    };
    let (o, _) = run(&body(xt, 0)).unwrap();
    for i in 0..2 {
        for n in 0..16 {
            assert_eq!(o[i * 16 + n], product(i, n), "C[{i}][{n}]");
        }
    }
    let e = run(&body(xt | 4 << 39, 0)).unwrap_err();
    assert!(e.contains("with relu mode 4 is not implemented"), "{e}");
    let e = run(&body(xt, 1 << 6)).unwrap_err();
    assert!(e.contains("CTRL atomic mode"), "{e}");
    // a scalar quant mode (qf322f32_pre_scalar = 15) reads set_quant_pre
    let e = run(&body(xt | 15 << 34, 0)).unwrap_err();
    assert!(e.contains("needs set_quant_pre"), "{e}");
}

/// LOOP3_PARA / CHANNEL_PARA with the raw copy: a loop3 repeat that moves
/// its source (the sources disagree on the stride's unit) and an nz2dn
/// loop0 stride other than 1 fault; nz2dn before any set_channel_para
/// faults; the structured form refuses the same values.
#[test]
fn loop3_and_channel_para_refuse_unpinned_values() {
    let xm_nd: i64 = 16 << 4 | 2 << 16 | 16 << 32;
    // DN: column pitch 2 (the 2 x 16 output buffer)
    let xm_dn: i64 = 16 << 4 | 2 << 16 | 2 << 32;
    let body = |loop3: i64, chan_hi: Option<i64>, xt: i64| {
        let xm = if xt >> 62 & 1 == 1 { xm_dn } else { xm_nd };
        let chan = match chan_hi {
            Some(h) => format!(
                "    %ch = arith.constant {h} : i64\n    pto.set_channel_para %z, %ch : i64, i64\n"
            ),
            None => String::new(),
        };
        format!(
            "{MAD}    pto.set_flag[\"PIPE_M\", \"PIPE_FIX\", \"EVENT_ID0\"]\n    pto.wait_flag[\"PIPE_M\", \"PIPE_FIX\", \"EVENT_ID0\"]\n    %z = arith.constant 0 : i64\n    %l3 = arith.constant {loop3} : i64\n    pto.set_loop3_para %l3, %z : i64, i64\n{chan}    %xm = arith.constant {xm} : i64\n    %xt = arith.constant {xt} : i64\n    pto.copy_matrix_cc_to_gm %l0c, %o_gm, %xm, %xt\n      : !pto.ptr<f32, l0c>, !pto.ptr<f32, gm>, i64, i64\n"
        )
    };
    let nd: i64 = 16 | 1 << 43;
    let dn: i64 = 16 | 1 << 62;
    // count 1: one pass, as without the register
    let (o, _) = run(&body(1, None, nd)).unwrap();
    assert_eq!(o[17], product(1, 1));
    let e = run(&body(2 | 4 << 16, None, nd)).unwrap_err();
    assert!(
        e.contains("loop3 source stride (4) is not implemented"),
        "{e}"
    );
    let e = run(&body(1, None, dn)).unwrap_err();
    assert!(e.contains("needs set_channel_para"), "{e}");
    let e = run(&body(1, Some(2 << 8), dn)).unwrap_err();
    assert!(e.contains("loop0 source stride 2 (not 1)"), "{e}");
    // DN: C[i][n] at n * 2 + i
    let (o, _) = run(&body(1, Some(1 << 8), dn)).unwrap();
    for n in 0..16 {
        for i in 0..2 {
            assert_eq!(o[n * 2 + i], product(i, n), "C[{i}][{n}]");
        }
    }
    let s = format!(
        "{MAD}    pto.set_flag[\"PIPE_M\", \"PIPE_FIX\", \"EVENT_ID0\"]\n    pto.wait_flag[\"PIPE_M\", \"PIPE_FIX\", \"EVENT_ID0\"]\n    %z = arith.constant 0 : i64\n    %two = arith.constant 2 : i64\n    %m2 = arith.constant 2 : i64\n    %n16 = arith.constant 16 : i64\n    pto.mte_l0c_gm %l0c, %o_gm, %m2, %n16, %n16, %n16, %z, %z, nz2dn(%two)\n      : !pto.ptr<f32, l0c>, !pto.ptr<f32, gm>, i64, i64, i64, i64, i64, i64, i64\n"
    );
    let e = run(&s).unwrap_err();
    assert!(e.contains("loop0 source stride 2 (not 1)"), "{e}");
}

/// FIXPIPE NZ write-back: `dst_stride` is the start-to-start distance of the
/// C0-wide column blocks in destination elements; the channel split (xt bit
/// 42) makes an f32 destination's C0 8 instead of 16 and is refused for
/// other destination types.
#[test]
fn nz_writeback_strides_in_elements_and_channel_split() {
    let body = |xm: i64, xt: i64, dst: &str, ty: &str| {
        format!(
            "{MAD}    pto.set_flag[\"PIPE_M\", \"PIPE_FIX\", \"EVENT_ID0\"]\n    pto.wait_flag[\"PIPE_M\", \"PIPE_FIX\", \"EVENT_ID0\"]\n    %xm = arith.constant {xm} : i64\n    %xt = arith.constant {xt} : i64\n    pto.copy_matrix_cc_to_gm %l0c, {dst}, %xm, %xt\n      : !pto.ptr<f32, l0c>, !pto.ptr<{ty}, gm>, i64, i64\n"
        )
    };
    // f32 with the split: 8-wide blocks of 2 rows, 16 elements apart
    let (o, _) = run(&body(
        16 << 4 | 2 << 16 | 16 << 32,
        16 | 1 << 42,
        "%o_gm",
        "f32",
    ))
    .unwrap();
    for i in 0..2 {
        for n in 0..16 {
            assert_eq!(
                o[(n / 8) * 16 + i * 8 + n % 8],
                product(i, n),
                "C[{i}][{n}]"
            );
        }
    }
    // f16 without the split: one 16-wide block, rows 16 elements apart
    let (_, h) = run(&body(
        16 << 4 | 2 << 16 | 32 << 32,
        16 | 1 << 34,
        "%h_gm",
        "f16",
    ))
    .unwrap();
    for i in 0..2 {
        for n in 0..16 {
            assert_eq!(h[i * 16 + n], product(i, n), "C[{i}][{n}]");
        }
    }
    let e = run(&body(
        16 << 4 | 2 << 16 | 32 << 32,
        16 | 1 << 34 | 1 << 42,
        "%h_gm",
        "f16",
    ))
    .unwrap_err();
    assert!(e.contains("channel split needs an f32 destination"), "{e}");
}
