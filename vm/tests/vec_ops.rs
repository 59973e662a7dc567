//! Vector micro-ops of the generic dispatch (`exec::vec_ops`), each run as a
//! whole kernel: three input registers (`%x0..%x2`) are loaded from GM, the
//! body computes and stores into `%uo` (512 bytes, copied back to GM).

use half::f16;
use pto_vm::{load_text, run_kernel, Arg, CheckMode, Config};

fn size(t: &str) -> usize {
    match t {
        "f32" | "i32" | "ui32" | "si32" => 4,
        "f16" | "bf16" | "i16" | "ui16" | "si16" => 2,
        "i64" | "si64" | "ui64" => 8,
        _ => 1,
    }
}

fn vreg(t: &str) -> String {
    format!("!pto.vreg<{}x{t}>", 256 / size(t))
}

fn mask(t: &str) -> String {
    format!("!pto.mask<b{}>", 8 * size(t))
}

/// Runs `body` over three 256-byte inputs of type `tin`; returns the 512
/// output bytes (`%uo` is a `tout` UB pointer; `%all` a full `tin` mask,
/// `%allo` a full `tout` mask, `%c0` index 0, `%cN` index N of `tout`).
fn run(tin: &str, tout: &str, ins: [&[u8]; 3], body: &str) -> Vec<u8> {
    let (vi, mi, mo) = (vreg(tin), mask(tin), mask(tout));
    let no = 256 / size(tout);
    let pi = format!("!pto.ptr<{tin}, ub>");
    let po = format!("!pto.ptr<{tout}, ub>");
    let gi = format!("!pto.ptr<{tin}, gm>");
    let go = format!("!pto.ptr<{tout}, gm>");
    let mut loads = String::new();
    for k in 0..3 {
        loads += &format!(
            "    %u{k} = pto.castptr %c{a}_i64 : i64 -> {pi}\n    pto.mte_gm_ub %a{k}, %u{k}, %c0_i64, %c256_i64 nburst(%c1_i64, %c256_i64, %c256_i64) : {gi}, {pi}, i64, i64, i64, i64, i64\n",
            a = 256 * k
        );
    }
    let src = format!(
        r#"module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%a0: {gi}, %a1: {gi}, %a2: {gi}, %o: {go}) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %cN = arith.constant {no} : index
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c256_i64 = arith.constant 256 : i64
    %c512_i64 = arith.constant 512 : i64
    %c4096_i64 = arith.constant 4096 : i64
{loads}    %uo = pto.castptr %c4096_i64 : i64 -> {po}
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.vecscope {{
      %all = pto.pset_b{bi} "PAT_ALL" : {mi}
      %allo = pto.pset_b{bo} "PAT_ALL" : {mo}
      %x0 = pto.vlds %u0[%c0] : {pi} -> {vi}
      %x1 = pto.vlds %u1[%c0] : {pi} -> {vi}
      %x2 = pto.vlds %u2[%c0] : {pi} -> {vi}
{body}
    }}
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.mte_ub_gm %uo, %o, %c512_i64 nburst(%c1_i64, %c512_i64, %c512_i64) : {po}, {go}, i64, i64, i64, i64
    return
  }}
}}
"#,
        bi = 8 * size(tin),
        bo = 8 * size(tout),
    );
    let k = load_text("t.pto", &src, None).unwrap_or_else(|e| panic!("does not load:\n{e}\n{src}"));
    let cfg = Config {
        profile: k.profile,
        check: CheckMode::Error,
        max_steps: 1_000_000,
        ..Config::default()
    };
    let args = [
        Arg::Buffer(ins[0].to_vec()),
        Arg::Buffer(ins[1].to_vec()),
        Arg::Buffer(ins[2].to_vec()),
        Arg::Buffer(vec![0; 512]),
    ];
    let f = run_kernel(&k, &cfg, None, &args).expect("runs");
    assert_eq!(f.out.error, None, "{src}");
    f.buffers[3].clone()
}

/// `vsts %r` of type `t` at lane offset `off` (`%c0` or `%cN`).
fn st(r: &str, t: &str, off: &str) -> String {
    format!(
        "      pto.vsts {r}, %uo[{off}], %allo : {}, !pto.ptr<{t}, ub>, {}\n",
        vreg(t),
        mask(t)
    )
}

fn f32b(v: &[f32]) -> Vec<u8> {
    let mut b: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    b.resize(256, 0);
    b
}
fn i32b(v: &[i32]) -> Vec<u8> {
    let mut b: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    b.resize(256, 0);
    b
}
fn i16b(v: &[i16]) -> Vec<u8> {
    let mut b: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    b.resize(256, 0);
    b
}
fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
fn i32s(b: &[u8]) -> Vec<i32> {
    b.chunks(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
fn i16s(b: &[u8]) -> Vec<i16> {
    b.chunks(2)
        .map(|c| i16::from_le_bytes([c[0], c[1]]))
        .collect()
}

fn ramp(k: f32, off: f32) -> Vec<f32> {
    (0..64).map(|i| i as f32 * k + off).collect()
}

#[test]
fn fused_and_relu_family_f32() {
    let x = ramp(0.5, -16.0);
    let y = ramp(-0.25, 3.0);
    let z = ramp(0.125, 1.0);
    let (vt, mt) = (vreg("f32"), mask("f32"));
    let body = format!(
        "      %s = arith.constant 0.125 : f32
      %lr = pto.vlrelu %x0, %s, %all : {vt}, f32, {mt} -> {vt}
      %pr = pto.vprelu %x0, %x2, %all : {vt}, {vt}, {mt} -> {vt}
      %ax = pto.vaxpy %x0, %x1, %s, %all : {vt}, {vt}, f32, {mt} -> {vt}
      %ma = pto.vmula %x2, %x0, %x1, %all : {vt}, {vt}, {vt}, {mt} -> {vt}
      %ar = pto.vaddrelu %x0, %x1, %all : {vt}, {vt}, {mt} -> {vt}
      %sr = pto.vsubrelu %x0, %x1, %all : {vt}, {vt}, {mt} -> {vt}
      %t0 = pto.vadd %lr, %pr, %all : {vt}, {vt}, {mt} -> {vt}
      %t1 = pto.vmul %ax, %ma, %all : {vt}, {vt}, {mt} -> {vt}
{}{}",
        st("%t0", "f32", "%c0"),
        st("%t1", "f32", "%cN")
    );
    let out = f32s(&run("f32", "f32", [&f32b(&x), &f32b(&y), &f32b(&z)], &body));
    for i in 0..64 {
        let lr = if x[i] < 0.0 { x[i] * 0.125 } else { x[i] };
        let pr = if x[i] < 0.0 { x[i] * z[i] } else { x[i] };
        assert_eq!(out[i], lr + pr, "lane {i}");
        let ax = 0.125 * x[i] + y[i];
        let ma = z[i] + x[i] * y[i];
        assert_eq!(out[64 + i], ax * ma, "lane {i}");
    }
    // relu(a±b) on their own
    let body = format!(
        "      %ar = pto.vaddrelu %x0, %x1, %all : {vt}, {vt}, {mt} -> {vt}
      %sr = pto.vsubrelu %x0, %x1, %all : {vt}, {vt}, {mt} -> {vt}
{}{}",
        st("%ar", "f32", "%c0"),
        st("%sr", "f32", "%cN")
    );
    let out = f32s(&run("f32", "f32", [&f32b(&x), &f32b(&y), &f32b(&z)], &body));
    for i in 0..64 {
        assert_eq!(out[i], (x[i] + y[i]).max(0.0));
        assert_eq!(out[64 + i], (x[i] - y[i]).max(0.0));
    }
}

#[test]
fn bit_counts_and_masked_move_i32() {
    let x: Vec<i32> = (0..64).map(|i: i32| (i * 0x01010101) ^ -(i % 3)).collect();
    let (vt, mt) = (vreg("i32"), mask("i32"));
    let body = format!(
        "      %n = arith.constant 10 : i32
      %m, %rest = pto.plt_b32 %n : i32 -> {mt}, i32
      %b = pto.vbcnt %x0, %all : {vt}, {mt} -> {vt}
      %c = pto.vcls %x0, %all : {vt}, {mt} -> {vt}
      %mv = pto.vmov %x0, %m : {vt}, {mt} -> {vt}
      %t = pto.vadd %b, %mv, %all : {vt}, {vt}, {mt} -> {vt}
{}{}",
        st("%t", "i32", "%c0"),
        st("%c", "i32", "%cN")
    );
    let out = i32s(&run(
        "i32",
        "i32",
        [&i32b(&x), &i32b(&[]), &i32b(&[])],
        &body,
    ));
    for i in 0..64 {
        let mv = if i < 10 { x[i] } else { 0 };
        assert_eq!(out[i], x[i].count_ones() as i32 + mv, "lane {i}");
        // the sign bit itself counts (the pto-isa manual's vcls)
        let cls = if x[i] < 0 {
            x[i].leading_ones()
        } else {
            x[i].leading_zeros()
        } as i32;
        assert_eq!(out[64 + i], cls, "lane {i}");
    }
}

#[test]
fn plt_count_stops_at_zero_after_the_tail() {
    // 70 lanes of b32: 64 + 6, then the chain's count is 0, never negative
    let (vt, mt) = (vreg("i32"), mask("i32"));
    let body = format!(
        "      %n = arith.constant 70 : i32
      %m1, %r1 = pto.plt_b32 %n : i32 -> {mt}, i32
      %m2, %r2 = pto.plt_b32 %r1 : i32 -> {mt}, i32
      %v1 = pto.vbr %r1 : i32 -> {vt}
      %v2 = pto.vbr %r2 : i32 -> {vt}
{}{}",
        st("%v1", "i32", "%c0"),
        st("%v2", "i32", "%cN")
    );
    let out = i32s(&run(
        "i32",
        "i32",
        [&i32b(&[]), &i32b(&[]), &i32b(&[])],
        &body,
    ));
    assert_eq!(out[0], 6);
    assert_eq!(out[64], 0);
}

#[test]
fn vdup_of_a_scalar_zeroes_inactive_lanes() {
    let (vt, mt) = (vreg("i32"), mask("i32"));
    let body = format!(
        "      %c7 = arith.constant 7 : i32
      %m = pto.pset_b32 \"PAT_VL16\" : {mt}
      %v = pto.vdup %c7, %m : i32, {mt} -> {vt}
      %b = pto.vbr %c7 : i32 -> {vt}
{}{}",
        st("%v", "i32", "%c0"),
        st("%b", "i32", "%cN")
    );
    let out = i32s(&run(
        "i32",
        "i32",
        [&i32b(&[]), &i32b(&[]), &i32b(&[])],
        &body,
    ));
    for i in 0..64 {
        assert_eq!(out[i], if i < 16 { 7 } else { 0 }, "vdup lane {i}");
        assert_eq!(out[64 + i], 7, "vbr lane {i}");
    }
}

#[test]
fn bare_intlv_and_dintlv_take_the_element_size_of_their_vectors() {
    let x: Vec<i32> = (0..64).collect();
    let y: Vec<i32> = (100..164).collect();
    let (vt, mt) = (vreg("i32"), mask("i32"));
    // interleave x and y into UB, then split them again with the bare token
    let body = format!(
        "      pto.vstsx2 %x0, %x1, %u2[%c0], \"INTLV\", %all : {vt}, {vt}, !pto.ptr<i32, ub>, index, {mt}
      pto.mem_bar \"VST_VLD\"
      %lo, %hi = pto.vldsx2 %u2[%c0], \"DINTLV\" : !pto.ptr<i32, ub>, index -> {vt}, {vt}
      %d = pto.vsub %hi, %lo, %all : {vt}, {vt}, {mt} -> {vt}
{}{}",
        st("%lo", "i32", "%c0"),
        st("%d", "i32", "%cN")
    );
    let out = i32s(&run(
        "i32",
        "i32",
        [&i32b(&x), &i32b(&y), &i32b(&[])],
        &body,
    ));
    for i in 0..64 {
        assert_eq!(out[i], x[i], "lane {i}");
        assert_eq!(out[64 + i], 100, "lane {i}");
    }
}

#[test]
fn compare_and_select() {
    let x = ramp(1.0, -32.0);
    let y: Vec<f32> = (0..64).map(|i| ((i * 7) % 64) as f32 - 32.0).collect();
    let (vt, mt) = (vreg("f32"), mask("f32"));
    let body = format!(
        "      %z = arith.constant 0.0 : f32
      %lt = pto.vcmp %x0, %x1, %all, \"lt\" : {vt}, {vt}, {mt} -> {mt}
      %sel = pto.vsel %x0, %x1, %lt : {vt}, {vt}, {mt} -> {vt}
      %pos = pto.vcmps %x0, %z, %all, \"ge\" : {vt}, f32, {mt} -> {mt}
      %sel2 = pto.vsel %x0, %x1, %pos : {vt}, {vt}, {mt} -> {vt}
{}{}",
        st("%sel", "f32", "%c0"),
        st("%sel2", "f32", "%cN")
    );
    let out = f32s(&run(
        "f32",
        "f32",
        [&f32b(&x), &f32b(&y), &f32b(&[])],
        &body,
    ));
    for i in 0..64 {
        assert_eq!(out[i], x[i].min(y[i]));
        assert_eq!(out[64 + i], if x[i] >= 0.0 { x[i] } else { y[i] });
    }
}

#[test]
fn unsigned_compare_uses_the_register_type() {
    let x: Vec<i16> = (0..128).map(|i| if i % 2 == 0 { -1 } else { 5 }).collect();
    let (vt, mt) = (vreg("ui16"), mask("ui16"));
    let body = format!(
        "      %s = arith.constant 100 : i16
      %one = arith.constant 1 : i16
      %gt = pto.vcmps %x0, %s, %all, \"gt\" : {vt}, i16, {mt} -> {mt}
      %z = pto.vbr %one : i16 -> {vt}
      %r = pto.vsel %z, %x1, %gt : {vt}, {vt}, {mt} -> {vt}
{}",
        st("%r", "ui16", "%c0")
    );
    let out = i16s(&run(
        "ui16",
        "ui16",
        [&i16b(&x), &i16b(&[]), &i16b(&[])],
        &body,
    ));
    for (i, o) in out.iter().enumerate().take(128) {
        // 0xFFFF > 100 unsigned
        assert_eq!(*o, if i % 2 == 0 { 1 } else { 0 }, "lane {i}");
    }
}

#[test]
fn reductions() {
    let x: Vec<f32> = (0..64).map(|i| ((i * 37) % 64) as f32 - 20.0).collect();
    let (vt, mt) = (vreg("f32"), mask("f32"));
    let body = format!(
        "      %n = arith.constant 40 : i32
      %m, %rest = pto.plt_b32 %n : i32 -> {mt}, i32
      %s = pto.vcadd %x0, %m : {vt}, {mt} -> {vt}
      %mx = pto.vcmax %x0, %all : {vt}, {mt} -> {vt}
      %mn = pto.vcmin %x0, %all : {vt}, {mt} -> {vt}
      %g = pto.vcgadd %x0, %all : {vt}, {mt} -> {vt}
      %gm = pto.vcgmax %x0, %all : {vt}, {mt} -> {vt}
      %p = pto.vcpadd %x0, %all : {vt}, {mt} -> {vt}
      %o8 = arith.constant 8 : index
      %o16 = arith.constant 16 : index
      %o18 = arith.constant 18 : index
      %o20 = arith.constant 20 : index
      %two, %r2 = pto.plt_b32 %n : i32 -> {mt}, i32
      %m2 = pto.pset_b32 \"PAT_VL2\" : {mt}
      %m8 = pto.pset_b32 \"PAT_VL8\" : {mt}
      pto.vsts %g, %uo[%o8], %m8 : {vt}, !pto.ptr<f32, ub>, {mt}
      pto.vsts %gm, %uo[%o16], %m2 : {vt}, !pto.ptr<f32, ub>, {mt}
      pto.vsts %mx, %uo[%o18], %m2 : {vt}, !pto.ptr<f32, ub>, {mt}
      pto.vsts %mn, %uo[%o20], %m2 : {vt}, !pto.ptr<f32, ub>, {mt}
      %m1 = pto.pset_b32 \"PAT_VL1\" : {mt}
      pto.vsts %s, %uo[%c0], %m1 : {vt}, !pto.ptr<f32, ub>, {mt}
{}",
        st("%p", "f32", "%cN")
    );
    let out = run("f32", "f32", [&f32b(&x), &f32b(&[]), &f32b(&[])], &body);
    let o = f32s(&out);
    let u = i32s(&out);
    assert_eq!(o[0], x[..40].iter().sum::<f32>());
    for g in 0..8 {
        assert_eq!(o[8 + g], x[g * 8..g * 8 + 8].iter().sum::<f32>());
    }
    let gmax0 = x[..8].iter().cloned().fold(f32::MIN, f32::max);
    assert_eq!(o[16], gmax0);
    assert_eq!(o[17], x[8..16].iter().cloned().fold(f32::MIN, f32::max));
    let (imax, vmax) = x
        .iter()
        .enumerate()
        .fold((0, f32::MIN), |b, (i, &v)| if v > b.1 { (i, v) } else { b });
    assert_eq!((o[18], u[19]), (vmax, imax as i32));
    let (imin, vmin) = x
        .iter()
        .enumerate()
        .fold((0, f32::MAX), |b, (i, &v)| if v < b.1 { (i, v) } else { b });
    assert_eq!((o[20], u[21]), (vmin, imin as i32));
    let mut acc = 0.0;
    for i in 0..64 {
        acc += x[i];
        assert_eq!(o[64 + i], acc);
    }
}

#[test]
fn max_and_min_reductions_of_no_active_lane_yield_the_identity() {
    // PTOAS micro-ISA doc (10-reduction-ops): vcmax/vcmin start from -INF/+INF
    // (integers: the type's extreme) with index 0, vcgmax/vcgmin per VLane too
    let (vt, mt) = (vreg("f32"), mask("f32"));
    let x: Vec<f32> = (0..64).map(|i| i as f32 - 7.5).collect();
    let body = format!(
        "      %n = arith.constant 8 : i32
      %m, %rest = pto.plt_b32 %n : i32 -> {mt}, i32
      %none = pto.pset_b32 \"PAT_ALLF\" : {mt}
      %mx = pto.vcmax %x0, %none : {vt}, {mt} -> {vt}
      %mn = pto.vcmin %x0, %none : {vt}, {mt} -> {vt}
      %gx = pto.vcgmax %x0, %m : {vt}, {mt} -> {vt}
      %gn = pto.vcgmin %x0, %m : {vt}, {mt} -> {vt}
      %o2 = arith.constant 2 : index
      %o8 = arith.constant 8 : index
      %o16 = arith.constant 16 : index
      %m2 = pto.pset_b32 \"PAT_VL2\" : {mt}
      %m8 = pto.pset_b32 \"PAT_VL8\" : {mt}
      pto.vsts %mx, %uo[%c0], %m2 : {vt}, !pto.ptr<f32, ub>, {mt}
      pto.vsts %mn, %uo[%o2], %m2 : {vt}, !pto.ptr<f32, ub>, {mt}
      pto.vsts %gx, %uo[%o8], %m8 : {vt}, !pto.ptr<f32, ub>, {mt}
      pto.vsts %gn, %uo[%o16], %m8 : {vt}, !pto.ptr<f32, ub>, {mt}
"
    );
    let out = run("f32", "f32", [&f32b(&x), &f32b(&[]), &f32b(&[])], &body);
    let (o, u) = (f32s(&out), i32s(&out));
    assert_eq!((o[0], u[1]), (f32::NEG_INFINITY, 0));
    assert_eq!((o[2], u[3]), (f32::INFINITY, 0));
    // only VLane 0 (lanes 0..7) is active
    assert_eq!(o[8], x[7]);
    assert_eq!(o[16], x[0]);
    for g in 1..8 {
        assert_eq!(o[8 + g], f32::NEG_INFINITY, "vcgmax VLane {g}");
        assert_eq!(o[16 + g], f32::INFINITY, "vcgmin VLane {g}");
    }

    let (vt, mt) = (vreg("i16"), mask("i16"));
    let body = format!(
        "      %none = pto.pset_b16 \"PAT_ALLF\" : {mt}
      %mx = pto.vcmax %x0, %none : {vt}, {mt} -> {vt}
      %mn = pto.vcmin %x0, %none : {vt}, {mt} -> {vt}
      %gn = pto.vcgmin %x0, %none : {vt}, {mt} -> {vt}
      %o2 = arith.constant 2 : index
      %o8 = arith.constant 8 : index
      %m2 = pto.pset_b16 \"PAT_VL2\" : {mt}
      %m8 = pto.pset_b16 \"PAT_VL8\" : {mt}
      pto.vsts %mx, %uo[%c0], %m2 : {vt}, !pto.ptr<i16, ub>, {mt}
      pto.vsts %mn, %uo[%o2], %m2 : {vt}, !pto.ptr<i16, ub>, {mt}
      pto.vsts %gn, %uo[%o8], %m8 : {vt}, !pto.ptr<i16, ub>, {mt}
"
    );
    let out = run(
        "i16",
        "i16",
        [&i16b(&[5; 128]), &i16b(&[]), &i16b(&[])],
        &body,
    );
    let o = i16s(&out);
    assert_eq!(&o[..4], &[i16::MIN, 0, i16::MAX, 0]);
    assert_eq!(&o[8..16], &[i16::MAX; 8]);
}

#[test]
fn vcbmax_and_vcbmin_mark_every_active_lane_equal_to_the_extreme() {
    // PTOAS micro-ISA doc (10-reduction-ops): value in lane 0, the rest 0; the
    // predicate marks the active lanes matching it; no active lane: all clear
    let (vt, mt) = (vreg("i32"), mask("i32"));
    let mut x: Vec<i32> = (0..64).map(|i| (i * 13) % 29 - 14).collect();
    x[3] = 40;
    x[17] = 40;
    x[50] = 99; // inactive: must neither win nor be marked
    x[9] = -30;
    x[30] = -30;
    let body = format!(
        "      %n = arith.constant 48 : i32
      %m, %rest = pto.plt_b32 %n : i32 -> {mt}, i32
      %none = pto.pset_b32 \"PAT_ALLF\" : {mt}
      %one = arith.constant 1 : i32
      %zero = arith.constant 0 : i32
      %v1 = pto.vbr %one : i32 -> {vt}
      %v0 = pto.vbr %zero : i32 -> {vt}
      %mx, %pmx = pto.vcbmax %x0, %m : {vt}, {mt} -> {vt}, {mt}
      %mn, %pmn = pto.vcbmin %x0, %m : {vt}, {mt} -> {vt}, {mt}
      %nx, %pnx = pto.vcbmax %x0, %none : {vt}, {mt} -> {vt}, {mt}
      %fx = pto.vsel %v1, %v0, %pmx : {vt}, {vt}, {mt} -> {vt}
      %o1 = arith.constant 1 : index
      %o2 = arith.constant 2 : index
      %m1 = pto.pset_b32 \"PAT_VL1\" : {mt}
      pto.vsts %mx, %uo[%c0], %allo : {vt}, !pto.ptr<i32, ub>, {mt}
      pto.vsts %mn, %uo[%o1], %m1 : {vt}, !pto.ptr<i32, ub>, {mt}
      pto.vsts %nx, %uo[%o2], %m1 : {vt}, !pto.ptr<i32, ub>, {mt}
{}",
        st("%fx", "i32", "%cN"),
    );
    let out = run("i32", "i32", [&i32b(&x), &i32b(&[]), &i32b(&[])], &body);
    let o = i32s(&out);
    assert_eq!(o[0], 40);
    assert_eq!(o[1], -30);
    assert_eq!(o[2], i32::MIN);
    assert!(
        o[3..64].iter().all(|&v| v == 0),
        "value lanes past 0 are zero"
    );
    let marked: Vec<usize> = (0..64).filter(|&i| o[64 + i] == 1).collect();
    assert_eq!(marked, vec![3, 17]);

    let body = format!(
        "      %n = arith.constant 48 : i32
      %m, %rest = pto.plt_b32 %n : i32 -> {mt}, i32
      %none = pto.pset_b32 \"PAT_ALLF\" : {mt}
      %one = arith.constant 1 : i32
      %zero = arith.constant 0 : i32
      %v1 = pto.vbr %one : i32 -> {vt}
      %v0 = pto.vbr %zero : i32 -> {vt}
      %mn, %pmn = pto.vcbmin %x0, %m : {vt}, {mt} -> {vt}, {mt}
      %nx, %pnx = pto.vcbmax %x0, %none : {vt}, {mt} -> {vt}, {mt}
      %fn = pto.vsel %v1, %v0, %pmn : {vt}, {vt}, {mt} -> {vt}
      %fz = pto.vsel %v1, %v0, %pnx : {vt}, {vt}, {mt} -> {vt}
      %fs = pto.vadd %fz, %fn, %all : {vt}, {vt}, {mt} -> {vt}
{}",
        st("%fs", "i32", "%c0"),
    );
    let out = run("i32", "i32", [&i32b(&x), &i32b(&[]), &i32b(&[])], &body);
    let o = i32s(&out);
    let marked: Vec<usize> = (0..64).filter(|&i| o[i] == 1).collect();
    assert_eq!(
        marked,
        vec![9, 30],
        "vcbmin marks; no active lane marks nothing"
    );
}

#[test]
fn conversions_with_parts_and_rounding() {
    let x: Vec<f32> = (0..64).map(|i| i as f32 * 0.75 - 20.3).collect();
    let y: Vec<f32> = (0..64).map(|i| i as f32 * 1000.5 - 1.0).collect();
    let (vf, mf) = (vreg("f32"), mask("f32"));
    let vh = vreg("f16");
    let body = format!(
        "      %e = pto.vcvt %x0, %all {{rnd = \"R\", sat = \"SAT\", part = \"EVEN\"}} : {vf}, {mf} -> {vh}
      %o = pto.vcvt %x1, %all {{rnd = \"R\", sat = \"SAT\", part = \"ODD\"}} : {vf}, {mf} -> {vh}
      %allh = pto.pset_b16 \"PAT_ALL\" : !pto.mask<b16>
      %h = pto.vor %e, %o, %allh : {vh}, {vh}, !pto.mask<b16> -> {vh}
      pto.vsts %h, %uo[%c0], %allh : {vh}, !pto.ptr<f16, ub>, !pto.mask<b16>
      %w = pto.vcvt %h, %allh {{part = \"ODD\"}} : {vh}, !pto.mask<b16> -> {vf}
      %c64 = arith.constant 64 : index
      %uf = pto.castptr %c4096_i64 : i64 -> !pto.ptr<f32, ub>
      pto.vsts %w, %uf[%c64], %all : {vf}, !pto.ptr<f32, ub>, {mf}
"
    );
    let out = run("f32", "f16", [&f32b(&x), &f32b(&y), &f32b(&[])], &body);
    let h: Vec<f32> = out[..256]
        .chunks(2)
        .map(|c| f16::from_le_bytes([c[0], c[1]]).to_f32())
        .collect();
    let w = f32s(&out[256..]);
    for i in 0..64 {
        assert_eq!(h[2 * i], f16::from_f32(x[i]).to_f32(), "even {i}");
        let sat = f16::from_f32(y[i].min(65504.0)).to_f32();
        assert_eq!(h[2 * i + 1], sat, "odd {i}");
        assert_eq!(w[i], sat, "widened {i}");
    }
}

#[test]
fn float_to_int_rounding_and_narrowing_saturation() {
    let x: Vec<f32> = (0..64).map(|i| i as f32 * 0.5 - 16.25).collect();
    let (vf, mf) = (vreg("f32"), mask("f32"));
    let (vi, vs) = (vreg("i32"), vreg("i16"));
    let body = format!(
        "      %f = pto.vcvt %x0, %all {{rnd = \"F\"}} : {vf}, {mf} -> {vi}
      %a = pto.vcvt %x0, %all {{rnd = \"A\"}} : {vf}, {mf} -> {vi}
      %k = arith.constant 3000 : i32
      %big = pto.vmuls %a, %k, %all : {vi}, i32, {mf} -> {vi}
      %n = pto.vcvt %big, %all {{sat = \"SAT\", part = \"EVEN\"}} : {vi}, {mf} -> {vs}
      %t = pto.vtrc %x0, %all, \"C\" : {vf}, {mf} -> {vf}
      %tc = pto.vcvt %t, %all {{rnd = \"Z\"}} : {vf}, {mf} -> {vi}
      %d = pto.vsub %f, %tc, %all : {vi}, {vi}, {mf} -> {vi}
      pto.vsts %d, %uo[%c0], %all : {vi}, !pto.ptr<i32, ub>, {mf}
      %h = pto.pset_b16 \"PAT_ALL\" : !pto.mask<b16>
      %c128 = arith.constant 128 : index
      %u16 = pto.castptr %c4096_i64 : i64 -> !pto.ptr<i16, ub>
      pto.vsts %n, %u16[%c128], %h : {vs}, !pto.ptr<i16, ub>, !pto.mask<b16>
"
    );
    let out = run("f32", "i32", [&f32b(&x), &f32b(&[]), &f32b(&[])], &body);
    let d = i32s(&out[..256]);
    let n = i16s(&out[256..]);
    for i in 0..64 {
        // floor - ceil = -1 for non-integers, 0 for integers
        let want = if x[i].fract() == 0.0 { 0 } else { -1 };
        assert_eq!(d[i], want, "lane {i}");
        let away = x[i].round() as i32;
        assert_eq!(
            n[2 * i],
            (away * 3000).clamp(-32768, 32767) as i16,
            "lane {i}"
        );
        assert_eq!(n[2 * i + 1], 0);
    }
}

#[test]
fn index_generation_and_rearrangement() {
    let x: Vec<i32> = (0..64).map(|i| i * 10).collect();
    let y: Vec<i32> = (0..64).map(|i| 1000 + i).collect();
    let (vt, mt) = (vreg("i32"), mask("i32"));
    let body = format!(
        "      %seed = arith.constant 5 : i32
      %ci = pto.vci %seed {{order = \"ASC\"}} : i32 -> {vt}
      %lo, %hi = pto.vintlv %x0, %x1 : {vt}, {vt} -> {vt}, {vt}
      %a, %b = pto.vdintlv %lo, %hi : {vt}, {vt} -> {vt}, {vt}
      %amt = arith.constant 3 : i16
      %sl = pto.vslide %a, %b, %amt : {vt}, {vt}, i16 -> {vt}
      %sh = pto.vshift %x0, %amt : {vt}, i16 -> {vt}
      %t = pto.vadd %sl, %ci, %all : {vt}, {vt}, {mt} -> {vt}
{}{}",
        st("%t", "i32", "%c0"),
        st("%sh", "i32", "%cN")
    );
    let out = i32s(&run(
        "i32",
        "i32",
        [&i32b(&x), &i32b(&y), &i32b(&[])],
        &body,
    ));
    for i in 0..64 {
        let sl = if i >= 3 { x[i - 3] } else { y[64 - 3 + i] };
        assert_eq!(out[i], sl + 5 + i as i32, "lane {i}");
        assert_eq!(out[64 + i], if i >= 3 { x[i - 3] } else { 0 }, "lane {i}");
    }
    // interleave halves
    let body = format!(
        "      %lo, %hi = pto.vintlv %x0, %x1 : {vt}, {vt} -> {vt}, {vt}
{}{}",
        st("%lo", "i32", "%c0"),
        st("%hi", "i32", "%cN")
    );
    let out = i32s(&run(
        "i32",
        "i32",
        [&i32b(&x), &i32b(&y), &i32b(&[])],
        &body,
    ));
    for k in 0..128 {
        let want = if k % 2 == 0 { x[k / 2] } else { y[k / 2] };
        assert_eq!(out[k], want);
    }
}

#[test]
fn squeeze_permute_pack_unpack() {
    let x: Vec<i32> = (0..64).map(|i| i * 3 - 70000 * (i % 2)).collect();
    let idx: Vec<i32> = (0..64).map(|i| (63 - i) + 64 * (i % 3)).collect();
    let (vt, mt) = (vreg("i32"), mask("i32"));
    let body = format!(
        "      %z = arith.constant 0 : i32
      %even = pto.vcmps %x0, %z, %all, \"ge\" : {vt}, i32, {mt} -> {mt}
      %sq = pto.vsqz %x0, %even : {vt}, {mt} -> {vt}
      %us = pto.vusqz %x0, %even : {vt}, {mt} -> {vt}
      %pm = pto.vperm %x0, %x1 : {vt}, {vt} -> {vt}
      %t = pto.vadd %sq, %pm, %all : {vt}, {vt}, {mt} -> {vt}
{}{}",
        st("%t", "i32", "%c0"),
        st("%us", "i32", "%cN")
    );
    let out = i32s(&run(
        "i32",
        "i32",
        [&i32b(&x), &i32b(&idx), &i32b(&[])],
        &body,
    ));
    let kept: Vec<i32> = x.iter().copied().filter(|v| *v >= 0).collect();
    let mut count = 0;
    for i in 0..64 {
        let sq = kept.get(i).copied().unwrap_or(0);
        assert_eq!(out[i], sq + x[(idx[i] % 64) as usize], "lane {i}");
        assert_eq!(out[64 + i], count, "lane {i}");
        count += (x[i] >= 0) as i32;
    }
    // pack to u16 (HIGHER half), then sign-extend the upper half back
    let vh = vreg("ui16");
    let vs = vreg("i16");
    let body = format!(
        "      %p = pto.vpack %x0, \"HIGHER\" : {vt} -> {vh}
      %q = pto.vbitcast %p : {vh} -> {vs}
      %one = arith.constant 1 : index
      %s = pto.vsunpack %q, %one : {vs} -> {vt}
      %zx = pto.vzunpack %p, %one : {vh} -> {vt}
{}{}",
        st("%s", "i32", "%c0"),
        st("%zx", "i32", "%cN")
    );
    let out = i32s(&run(
        "i32",
        "i32",
        [&i32b(&x), &i32b(&[]), &i32b(&[])],
        &body,
    ));
    for i in 0..64 {
        assert_eq!(out[i], x[i] as i16 as i32, "lane {i}");
        assert_eq!(out[64 + i], x[i] as u16 as i32, "lane {i}");
    }
}

#[test]
fn carries_and_widening_multiply() {
    let x: Vec<i32> = (0..64)
        .map(|i| (i as u32).wrapping_mul(0x9E37_79B9) as i32)
        .collect();
    let y: Vec<i32> = (0..64)
        .map(|i| (i as u32).wrapping_mul(0x0700_0001) as i32)
        .collect();
    let (vt, mt) = (vreg("ui32"), mask("ui32"));
    let body = format!(
        "      %s, %c = pto.vaddc %x0, %x1, %all : {vt}, {vt}, {mt} -> {vt}, {mt}
      %one = arith.constant 1 : i32
      %ones = pto.vbr %one : i32 -> {vt}
      %zero = pto.vsub %ones, %ones, %all : {vt}, {vt}, {mt} -> {vt}
      %cv = pto.vsel %ones, %zero, %c : {vt}, {vt}, {mt} -> {vt}
      %d, %b = pto.vsubcs %x0, %x1, %c, %all : {vt}, {vt}, {mt}, {mt} -> {vt}, {mt}
      %t = pto.vadd %s, %cv, %all : {vt}, {vt}, {mt} -> {vt}
{}{}",
        st("%t", "ui32", "%c0"),
        st("%d", "ui32", "%cN")
    );
    let out = i32s(&run(
        "ui32",
        "ui32",
        [&i32b(&x), &i32b(&y), &i32b(&[])],
        &body,
    ));
    for i in 0..64 {
        let (a, b) = (x[i] as u32, y[i] as u32);
        let (s, c) = a.overflowing_add(b);
        assert_eq!(out[i] as u32, s.wrapping_add(c as u32), "lane {i}");
        assert_eq!(
            out[64 + i] as u32,
            a.wrapping_sub(b).wrapping_sub(c as u32),
            "lane {i}"
        );
    }
    let (vt, mt) = (vreg("i32"), mask("i32"));
    let body = format!(
        "      %lo, %hi = pto.vmull %x0, %x1, %all : {vt}, {vt}, {mt} -> {vt}, {vt}
{}{}",
        st("%lo", "i32", "%c0"),
        st("%hi", "i32", "%cN")
    );
    let out = i32s(&run(
        "i32",
        "i32",
        [&i32b(&x), &i32b(&y), &i32b(&[])],
        &body,
    ));
    for i in 0..64 {
        let p = x[i] as i64 * y[i] as i64;
        assert_eq!((out[i], out[64 + i]), (p as i32, (p >> 32) as i32));
    }
}

#[test]
fn predicate_algebra_and_stores() {
    let m8 = "!pto.mask<b8>";
    let m16 = "!pto.mask<b16>";
    let body = format!(
        "      %a = pto.pset_b8 \"PAT_VL40\" : {m8}
      %b = pto.pge_b8 \"PAT_VL20\" : {m8}
      %x = pto.pxor %a, %b, %all : {m8}, {m8}, {m8} -> {m8}
      %n = pto.pnot %x, %a : {m8}, {m8} -> {m8}
      %c0b = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c96 = arith.constant 96 : index
      %c128 = arith.constant 128 : index
      %c160 = arith.constant 160 : index
      %c192 = arith.constant 192 : index
      %u8 = pto.castptr %c4096_i64 : i64 -> !pto.ptr<ui8, ub>
      pto.psts %x, %u8[%c0b], \"NORM\" : {m8}, !pto.ptr<ui8, ub>, index
      pto.psts %n, %u8[%c32], \"NORM\" : {m8}, !pto.ptr<ui8, ub>, index
      %h = pto.pset_b16 \"PAT_ALL\" : {m16}
      %f = pto.pset_b16 \"PAT_ALLF\" : {m16}
      %lo, %hi = pto.pdintlv_b16 %h, %f : {m16}, {m16} -> {m16}, {m16}
      pto.psts %lo, %u8[%c64], \"NORM\" : {m16}, !pto.ptr<ui8, ub>, index
      pto.psts %h, %u8[%c96], \"NORM\" : {m16}, !pto.ptr<ui8, ub>, index
      %pk = pto.ppack %a, \"HIGHER\" : {m8} -> {m8}
      pto.psts %pk, %u8[%c128], \"NORM\" : {m8}, !pto.ptr<ui8, ub>, index
      pto.psts %a, %u8[%c160], \"PK\" : {m8}, !pto.ptr<ui8, ub>, index
      pto.mem_bar \"VST_VLD\"
      %us = pto.plds %u8[%c160], \"US\" : !pto.ptr<ui8, ub>, index -> {m8}
      pto.psts %us, %u8[%c192], \"NORM\" : {m8}, !pto.ptr<ui8, ub>, index
"
    );
    let out = run("ui8", "ui8", [&[0; 256], &[0; 256], &[0; 256]], &body);
    let bits = |o: usize, n: usize| -> Vec<bool> {
        (0..n)
            .map(|i| out[o + i / 8] & (1 << (i % 8)) != 0)
            .collect()
    };
    // xor: lanes 20..40; not(x) gated by a: lanes 0..20
    assert_eq!(
        bits(0, 256),
        (0..256).map(|i| (20..40).contains(&i)).collect::<Vec<_>>()
    );
    assert_eq!(bits(32, 256), (0..256).map(|i| i < 20).collect::<Vec<_>>());
    // pdintlv of (all, none) at b16: low = lanes 0..64 on, one bit per lane
    assert_eq!(&out[64..96], &[[0x55u8; 16], [0u8; 16]].concat()[..]);
    // a b16 PAT_ALL stored with its granularity
    assert_eq!(&out[96..128], &[0x55u8; 32]);
    // ppack HIGHER: even bits of a (20 of them) into the upper half
    assert_eq!(
        bits(128, 256),
        (0..256)
            .map(|i| (128..148).contains(&i))
            .collect::<Vec<_>>()
    );
    // PK store then US load: 40 even bits -> 20 packed -> 40 doubled
    assert_eq!(bits(160, 128), (0..128).map(|i| i < 20).collect::<Vec<_>>());
    assert_eq!(bits(192, 256), (0..256).map(|i| i < 40).collect::<Vec<_>>());
}

/// `vmadd %acc, %lhs, %rhs`: lhs * acc + rhs with one rounding (f32 lanes
/// where the separate product would round differently), wrapping for i32.
#[test]
fn vmadd_is_fused() {
    // (1 + 2^-12)^2 - 1 keeps the 2^-24 term only when fused
    let e = 1.0 + f32::powi(2.0, -12);
    let x: Vec<f32> = (0..64).map(|i| if i == 0 { e } else { i as f32 }).collect();
    let y: Vec<f32> = (0..64).map(|i| if i == 0 { e } else { 0.5 }).collect();
    let z: Vec<f32> = (0..64).map(|i| if i == 0 { -1.0 } else { 3.0 }).collect();
    let (vt, mt) = (vreg("f32"), mask("f32"));
    let body = format!(
        "      %r = pto.vmadd %x0, %x1, %x2, %all : {vt}, {vt}, {vt}, {mt} -> {vt}\n{}",
        st("%r", "f32", "%c0")
    );
    let out = f32s(&run("f32", "f32", [&f32b(&x), &f32b(&y), &f32b(&z)], &body));
    assert_eq!(out[0], e.mul_add(e, -1.0));
    assert_ne!(
        out[0],
        e * e - 1.0,
        "a separate product rounds the 2^-24 away"
    );
    for (i, x) in out.iter().enumerate().take(64).skip(1) {
        assert_eq!(*x, 0.5 * i as f32 + 3.0, "lane {i}");
    }
    let (vt, mt) = (vreg("i32"), mask("i32"));
    let body = format!(
        "      %r = pto.vmadd %x0, %x1, %x2, %all : {vt}, {vt}, {vt}, {mt} -> {vt}\n{}",
        st("%r", "i32", "%c0")
    );
    let a: Vec<i32> = (0..64).map(|i| i * 1000).collect();
    let b: Vec<i32> = (0..64).map(|i| 7 - i).collect();
    let c: Vec<i32> = vec![i32::MAX; 64];
    let out = i32s(&run("i32", "i32", [&i32b(&a), &i32b(&b), &i32b(&c)], &body));
    for i in 0..64 {
        assert_eq!(
            out[i],
            b[i].wrapping_mul(a[i]).wrapping_add(c[i]),
            "lane {i}"
        );
    }
}

/// `pltm_b16 %loop, %bound`: lane i is on while i + loop * 128 < bound.
#[test]
fn pltm_masks_the_tail_of_loop_iteration() {
    let (vt, mt) = (vreg("i16"), mask("i16"));
    let body = format!(
        "      %lp = arith.constant 2 : i16
      %bd = arith.constant 300 : i32
      %m = pto.pltm_b16 %lp, %bd : i16, i32 -> {mt}
      %r = pto.vsel %x0, %x1, %m : {vt}, {vt}, {mt} -> {vt}
{}",
        st("%r", "i16", "%c0")
    );
    let out = i16s(&run(
        "i16",
        "i16",
        [&i16b(&[1; 128]), &i16b(&[2; 128]), &[0; 256]],
        &body,
    ));
    // 300 - 256 = 44 lanes on
    for (i, x) in out.iter().enumerate().take(128) {
        assert_eq!(*x, if i < 44 { 1 } else { 2 }, "lane {i}");
    }
}
