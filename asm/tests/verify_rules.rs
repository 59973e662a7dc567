//! Op-specific verifier rules (asm/src/verify_rules.rs): each rule rejects a
//! small kernel at the offending op's line with the expected message, and
//! accepts a near miss.

use pto_asm::{check_text, Severity};
use pto_isa_spec::ProfileId;

/// A `!pto.tile_buf` type.
#[allow(clippy::too_many_arguments)]
fn tb(loc: &str, dt: &str, rows: i64, cols: i64, vr: i64, vc: i64, bl: &str, sl: &str) -> String {
    format!(
        "!pto.tile_buf<loc={loc}, dtype={dt}, rows={rows}, cols={cols}, v_row={vr}, v_col={vc}, blayout={bl}, slayout={sl}, fractal=512, pad=0>"
    )
}

/// A row-major vec tile with a full valid region.
fn vec(dt: &str, rows: i64, cols: i64) -> String {
    tb("vec", dt, rows, cols, rows, cols, "row_major", "none_box")
}

/// A kernel that allocates `tiles` (`%t0`, `%t1`...) and then runs `body`;
/// scalars `%c0 : index`, `%f : f32`, `%i : i64` are available.
fn kernel(tiles: &[String], body: &str) -> String {
    let mut s = String::from(
        "func.func @k() {\n  %c0 = arith.constant 0 : index\n  %f = arith.constant 1.0 : f32\n  %i = arith.constant 0 : i64\n",
    );
    for (n, t) in tiles.iter().enumerate() {
        s += &format!("  %t{n} = pto.alloc_tile : {t}\n");
    }
    s += &format!("  {body}\n  return\n}}\n");
    s
}

/// Errors as (line, message).
fn errors(src: &str, p: ProfileId) -> Vec<(u32, String)> {
    check_text("t.pto", src, Some(p))
        .diagnostics
        .0
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| (d.loc.line, d.message.clone()))
        .collect()
}

/// The body line of [`kernel`].
fn body_line(tiles: &[String]) -> u32 {
    5 + tiles.len() as u32
}

#[track_caller]
fn rejects(tiles: &[String], body: &str, p: ProfileId, msg: &str) {
    let src = kernel(tiles, body);
    let errs = errors(&src, p);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == body_line(tiles) && m.contains(msg)),
        "expected `{msg}` at line {}, got {errs:?}\n{src}",
        body_line(tiles)
    );
}

#[track_caller]
fn accepts(tiles: &[String], body: &str, p: ProfileId) {
    let src = kernel(tiles, body);
    let errs = errors(&src, p);
    assert!(errs.is_empty(), "expected no errors, got {errs:?}\n{src}");
}

/// `pto.OP ins(%t0, ... : types) outs(%tN : type)` over the given tiles: the
/// last tile is the destination.
fn dps(op: &str, tiles: &[String]) -> String {
    let n = tiles.len() - 1;
    let ins: Vec<String> = (0..n).map(|i| format!("%t{i}")).collect();
    format!(
        "pto.{op} ins({} : {}) outs(%t{n} : {})",
        ins.join(", "),
        tiles[..n].join(", "),
        tiles[n]
    )
}

use ProfileId::{A2A3, A5};

#[test]
fn row_reduction_dst_is_one_column() {
    let bad = [
        vec("f32", 16, 16),
        vec("f32", 16, 16),
        tb("vec", "f32", 16, 1, 16, 0, "col_major", "none_box"),
    ];
    rejects(
        &bad,
        &dps("trowmax", &bad),
        A5,
        "expects dst valid_shape[1] to be 1",
    );
    let good = [
        vec("f32", 16, 16),
        vec("f32", 16, 16),
        tb("vec", "f32", 16, 1, 16, 1, "col_major", "none_box"),
    ];
    accepts(&good, &dps("trowmax", &good), A5);
    // a 0x0 destination is the no-op replay marker
    let marker = [
        vec("f32", 16, 16),
        vec("f32", 16, 16),
        tb("vec", "f32", 16, 1, 0, 0, "col_major", "none_box"),
    ];
    accepts(&marker, &dps("trowmax", &marker), A5);
}

#[test]
fn row_expand_dst_not_empty() {
    let bad = [
        tb("vec", "f32", 16, 1, 16, 1, "col_major", "none_box"),
        tb("vec", "f32", 16, 16, 16, 0, "row_major", "none_box"),
    ];
    rejects(
        &bad,
        &dps("trowexpand", &bad),
        A5,
        "expects dst valid_shape[1] to be non-zero",
    );
    let good = [
        tb("vec", "f32", 16, 1, 16, 1, "col_major", "none_box"),
        vec("f32", 16, 16),
    ];
    accepts(&good, &dps("trowexpand", &good), A5);
}

#[test]
fn shift_operands_share_element_type() {
    let bad = [vec("i16", 1, 64), vec("i16", 1, 64), vec("i32", 1, 64)];
    rejects(
        &bad,
        &dps("tshl", &bad),
        A5,
        "expects src0, src1, and dst to have the same element type",
    );
    let good = [vec("i16", 1, 64), vec("i16", 1, 64), vec("i16", 1, 64)];
    accepts(&good, &dps("tshl", &good), A5);
}

#[test]
fn tcvt_shapes_agree() {
    let bad = [vec("f32", 16, 32), vec("f16", 16, 16)];
    rejects(
        &bad,
        &dps("tcvt", &bad),
        A2A3,
        "expects src and dst to have compatible shapes",
    );
    let bad_valid = [
        vec("f32", 16, 16),
        tb("vec", "f16", 16, 16, 8, 16, "row_major", "none_box"),
    ];
    rejects(
        &bad_valid,
        &dps("tcvt", &bad_valid),
        A2A3,
        "expects src and dst to have the same valid_shape",
    );
    let good = [vec("f32", 16, 16), vec("f16", 16, 16)];
    accepts(&good, &dps("tcvt", &good), A2A3);
}

#[test]
fn tgather_index_form_types() {
    let bad = [
        vec("i8", 1, 32),
        vec("i32", 1, 32),
        vec("i32", 1, 32),
        vec("i8", 1, 32),
    ];
    rejects(
        &bad,
        &dps("tgather", &bad),
        A2A3,
        "expects gather src/dst element type to be i16/i32/f16/f32",
    );
    let no_tmp = [vec("f16", 1, 32), vec("i32", 1, 32), vec("f16", 1, 32)];
    rejects(
        &no_tmp,
        &dps("tgather", &no_tmp),
        A2A3,
        "index-form tgather expects both indices and tmp",
    );
    // A5 makes tmp optional
    accepts(&no_tmp, &dps("tgather", &no_tmp), A5);
    let good = [
        vec("f16", 1, 32),
        vec("i32", 1, 32),
        vec("i32", 1, 32),
        vec("f16", 1, 32),
    ];
    accepts(&good, &dps("tgather", &good), A2A3);
}

#[test]
fn thistogram_is_a5_only_and_byte_in_range() {
    let t = [
        vec("ui16", 8, 32),
        tb("vec", "ui8", 8, 1, 8, 1, "col_major", "none_box"),
        vec("ui32", 8, 256),
    ];
    rejects(&t, &dps("thistogram", &t), A2A3, "is only supported on A5");
    let body = format!("{} {{byte = 4}}", dps("thistogram", &t));
    rejects(&t, &body, A5, "expects byte to be in range [0, 3]");
    let body = format!("{} {{byte = 2}}", dps("thistogram", &t));
    rejects(
        &t,
        &body,
        A5,
        "expects byte to be 0 or 1 when src element type is ui16",
    );
    let body = format!("{} {{byte = 1}}", dps("thistogram", &t));
    accepts(&t, &body, A5);
}

#[test]
fn tinsert_loc_pairs_and_types() {
    let acc = tb("acc", "f32", 32, 32, 32, 32, "col_major", "row_major");
    let vec_src = vec("f32", 32, 32);
    let body = |s: &str, d: &str| {
        format!("pto.tinsert ins(%t0, %c0, %c0 : {s}, index, index) outs(%t1 : {d})")
    };
    let bad = [vec_src.clone(), acc.clone()];
    rejects(
        &bad,
        &body(&vec_src, &acc),
        A5,
        "expects A5 tinsert to use a supported src/dst loc pair",
    );
    let mat32 = tb("mat", "f32", 32, 32, 32, 32, "col_major", "row_major");
    let bad = [acc.clone(), mat32.clone()];
    rejects(
        &bad,
        &body(&acc, &mat32),
        A2A3,
        "expects A2/A3 tinsert element types to be src=f32, dst=f16/bf16",
    );
    let mat16 = tb("mat", "f16", 32, 32, 32, 32, "col_major", "row_major");
    let good = [acc.clone(), mat16.clone()];
    accepts(&good, &body(&acc, &mat16), A2A3);
}

#[test]
fn tload_a5_vec_layout_and_element_size() {
    let t = tb("vec", "f16", 16, 32, 16, 32, "row_major", "row_major");
    let src = |dt: &str| {
        format!(
            "func.func @k(%p: !pto.partition_tensor_view<16x32x{dt}>) {{\n  %t = pto.alloc_tile : {t}\n  pto.tload ins(%p : !pto.partition_tensor_view<16x32x{dt}>) outs(%t : {t})\n  return\n}}\n"
        )
    };
    let errs = errors(&src("f16"), A5);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 3
                && m.contains("expects A5 tload vec dst layout to be ND, DN, or NZ")),
        "{errs:?}"
    );
    let errs = errors(&src("f32"), A5);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 3 && m.contains("same element size")),
        "{errs:?}"
    );
    // the layout rule is A5's
    assert!(errors(&src("f16"), A2A3).is_empty());
}

#[test]
fn tstore_a5_source_location() {
    let src = |t: &str| {
        format!(
            "func.func @k(%p: !pto.partition_tensor_view<16x32xf32>) {{\n  %t = pto.alloc_tile : {t}\n  pto.tstore ins(%t : {t}) outs(%p : !pto.partition_tensor_view<16x32xf32>)\n  return\n}}\n"
        )
    };
    let mat = tb("mat", "f32", 16, 32, 16, 32, "col_major", "row_major");
    let errs = errors(&src(&mat), A5);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 3 && m.contains("expects A5 tstore src to use loc=vec or loc=acc")),
        "{errs:?}"
    );
    assert!(errors(&src(&vec("f32", 16, 32)), A5).is_empty());
}

#[test]
fn tmrgsort_format2_tmp_width() {
    let t = [
        vec("f32", 1, 256),
        vec("f32", 1, 256),
        vec("f32", 1, 128),
        vec("f32", 1, 256),
    ];
    // format2 carries the executed counts as a second result group
    let b = format!(
        "pto.tmrgsort ins(%t0, %t1, %t2 {{exhausted = false}} : {}, {}, {}) outs(%t3, %ex : {}, vector<4xi16>)",
        t[0], t[1], t[2], t[3]
    );
    let src = kernel(
        &t,
        &format!("%ex = arith.constant dense<0> : vector<4xi16>\n  {b}"),
    );
    let errs = errors(&src, A2A3);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == body_line(&t) + 1
                && m.contains("format2 expects tmp.cols >= dst.cols")),
        "{errs:?}"
    );
}

#[test]
fn scalar_arith_valid_shapes_agree() {
    let bad = [
        tb("vec", "f32", 4, 64, 1, 64, "row_major", "none_box"),
        vec("f32", 4, 64),
    ];
    let body = |t: &[String]| {
        format!(
            "pto.tadds ins(%t0, %f : {}, f32) outs(%t1 : {})",
            t[0], t[1]
        )
    };
    rejects(
        &bad,
        &body(&bad),
        A5,
        "expects src and dst to have the same valid_shape[0]",
    );
    let good = [vec("f32", 4, 64), vec("f32", 4, 64)];
    accepts(&good, &body(&good), A5);
}

#[test]
fn tquant_offset_matches_mode() {
    let t = [
        vec("f32", 32, 32),
        tb("vec", "f32", 32, 1, 32, 1, "col_major", "none_box"),
        vec("ui8", 32, 32),
    ];
    let body = format!(
        "pto.tquant ins(%t0, %t1 : {}, {}) outs(%t2 : {}) {{quant_type = #pto<quant_type INT8_ASYM>}}",
        t[0], t[1], t[2]
    );
    rejects(
        &t,
        &body,
        A2A3,
        "INT8_ASYM quantization requires an offset operand",
    );
    let t2 = [t[0].clone(), t[1].clone(), vec("i8", 32, 32)];
    let body = format!(
        "pto.tquant ins(%t0, %t1 : {}, {}) outs(%t2 : {}) {{quant_type = #pto<quant_type INT8_SYM>}}",
        t2[0], t2[1], t2[2]
    );
    accepts(&t2, &body, A2A3);
}

#[test]
fn alloc_tile_layout_alignment() {
    // the error points at the alloc_tile line (line 5)
    let bad = [vec("f32", 2, 7)];
    let errs = errors(&kernel(&bad, "%u = arith.constant 0 : index"), A2A3);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 5 && m.contains("to be 32-byte aligned, but got 28 bytes")),
        "{errs:?}"
    );
    let boxed = [tb("mat", "f32", 8, 8, 8, 8, "col_major", "row_major")];
    let errs = errors(&kernel(&boxed, "%u = arith.constant 0 : index"), A2A3);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 5 && m.contains("multiple of innerRows (16)")),
        "{errs:?}"
    );
    // a 1-byte NZ box is 16 x 32: 16 columns would be half a box column
    let half = [tb("mat", "i8", 32, 16, 32, 16, "col_major", "row_major")];
    let errs = errors(&kernel(&half, "%u = arith.constant 0 : index"), A2A3);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 5
                && m.contains("cols to be a multiple of innerCols (32), but got 16")),
        "{errs:?}"
    );
    // the right operand's ZN box is 32 x 16: the same shape is whole boxes there
    accepts(
        &[tb("right", "i8", 32, 16, 32, 16, "row_major", "col_major")],
        "%u = arith.constant 0 : index",
        A2A3,
    );
    accepts(&[vec("f32", 2, 8)], "%u = arith.constant 0 : index", A2A3);
    // a 1-row tile has no row stride to align
    accepts(&[vec("f32", 1, 7)], "%u = arith.constant 0 : index", A2A3);
}

#[test]
fn init_pipe_slot_numbers() {
    rejects(
        &[],
        "pto.aic_initialize_pipe {id = 0, dir_mask = 1, slot_size = 1024, slot_num = 0}",
        A2A3,
        "expects 'slot_num' to be greater than 0",
    );
    rejects(
        &[],
        "pto.aic_initialize_pipe {id = 0, dir_mask = 3, slot_size = 1024, local_slot_num = 5}",
        A2A3,
        "to be less than or equal to slot_num (4) for dir_mask = 3",
    );
    // (a cube-side init sits in a cube kernel)
    let src = "func.func @k() attributes {pto.kernel_kind = #pto.kernel_kind<cube>} {\n  pto.aic_initialize_pipe {id = 0, dir_mask = 3, slot_size = 1024, local_slot_num = 4}\n  return\n}\n";
    assert!(errors(src, A2A3).is_empty(), "{:?}", errors(src, A2A3));
}

#[test]
fn fusion_region_yields_its_results() {
    let src = "func.func @k() {\n  %0 = pto.fusion_region {\n    pto.yield() : () -> ()\n  } : index\n  return\n}\n";
    let errs = errors(src, A5);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 2 && m.contains("expects pto.yield to return 1 values, got 0")),
        "{errs:?}"
    );
    let ok = "func.func @k() {\n  %c0 = arith.constant 0 : index\n  %0 = pto.fusion_region {\n    pto.yield(%c0) : (index) -> ()\n  } : index\n  return\n}\n";
    assert!(errors(ok, A5).is_empty(), "{:?}", errors(ok, A5));
}

#[test]
fn a5_textract_loc_pairs_layouts_and_types() {
    let a5 = ProfileId::A5;
    let acc = tb("acc", "f32", 16, 16, 16, 16, "col_major", "row_major");
    let left = tb("left", "f32", 16, 16, 16, 16, "col_major", "row_major");
    let body = |tiles: &[String]| {
        format!(
            "pto.textract ins(%t0, %c0, %c0 : {}, index, index) outs(%t1 : {})",
            tiles[0], tiles[1]
        )
    };
    let t = [acc.clone(), left];
    rejects(&t, &body(&t), a5, "supported src/dst loc pair");
    let mat = tb("mat", "f32", 16, 16, 16, 16, "col_major", "row_major");
    let t = [acc.clone(), mat];
    accepts(&t, &body(&t), a5);
    let mat16 = tb("mat", "f16", 16, 16, 16, 16, "col_major", "row_major");
    let t = [acc, mat16.clone()];
    accepts(&t, &body(&t), a5);
    let right_bad = tb("right", "f16", 16, 16, 16, 16, "col_major", "row_major");
    let t = [mat16.clone(), right_bad];
    rejects(
        &t,
        &body(&t),
        a5,
        "right dst to use row_major blayout and col_major slayout",
    );
    let vec_f32 = vec("f32", 16, 16);
    let t = [vec("f16", 16, 16), vec_f32];
    rejects(&t, &body(&t), a5, "same element type");
}

#[test]
fn a2a3_scratch_tiles_are_large_enough() {
    let a3 = ProfileId::A2A3;
    let f32v = |r, c, vr, vc| tb("vec", "f32", r, c, vr, vc, "row_major", "none_box");
    let u8v = |r, c, vr, vc| tb("vec", "ui8", r, c, vr, vc, "row_major", "none_box");
    let d = f32v(16, 64, 16, 64);
    // tprelu: tmp rows >= dst valid rows + 1, valid cols >= ceil(cols / 8)
    let t = [d.clone(), d.clone(), u8v(16, 32, 16, 8), d.clone()];
    rejects(
        &t,
        &dps("tprelu", &t),
        a3,
        "tmp shape[0] to be at least dst valid_shape[0] + 1 (17)",
    );
    let t = [d.clone(), d.clone(), u8v(17, 32, 17, 8), d.clone()];
    accepts(&t, &dps("tprelu", &t), a3);
    // trowargmax: tmp holds values and indices of every 256-byte repeat
    let s = f32v(16, 128, 13, 127);
    let dst = tb("vec", "ui32", 16, 1, 13, 1, "col_major", "none_box");
    let t = [s.clone(), f32v(16, 8, 13, 8), dst.clone()];
    rejects(
        &t,
        &dps("trowargmax", &t),
        a3,
        "at least 16 for src valid_shape[1] = 127",
    );
    let t = [s, f32v(16, 16, 13, 16), dst];
    accepts(&t, &dps("trowargmax", &t), a3);
}

#[test]
fn a5_mx_matmul_input_pairs_and_shapes() {
    let a5 = ProfileId::A5;
    let lhs = |dt: &str| tb("left", dt, 16, 64, 16, 64, "col_major", "row_major");
    let rhs = |dt: &str, k| tb("right", dt, k, 16, k, 16, "row_major", "col_major");
    let sa = tb("scaling", "f16", 16, 16, 16, 2, "row_major", "none_box");
    let sb = tb("scaling", "f16", 16, 16, 2, 16, "col_major", "none_box");
    let dst = tb("acc", "f32", 16, 16, 16, 16, "col_major", "row_major");
    let t = [
        lhs("f8E4M3FN"),
        sa.clone(),
        rhs("!pto.f4E1M2x2", 64),
        sb.clone(),
        dst.clone(),
    ];
    rejects(&t, &dps("tmatmul.mx", &t), a5, "fp8/fp8 or fp4/fp4 pair");
    let t = [
        lhs("f8E4M3FN"),
        sa.clone(),
        rhs("f8E5M2", 32),
        sb.clone(),
        dst.clone(),
    ];
    rejects(
        &t,
        &dps("tmatmul.mx", &t),
        a5,
        "lhs[M,K], rhs[K,N], and dst[M,N]",
    );
    let t = [lhs("f8E4M3FN"), sa, rhs("f8E5M2", 64), sb, dst];
    accepts(&t, &dps("tmatmul.mx", &t), a5);
}

#[test]
fn tile_addresses_multi_buffers_and_static_stores() {
    let a3 = ProfileId::A2A3;
    let t = vec("f16", 32, 64);
    let src = format!(
        "func.func @k() {{\n  %a = arith.constant 70660 : i64\n  %t = pto.alloc_tile addr = %a : {t}\n  return\n}}\n"
    );
    let errs = errors(&src, a3);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 3 && m.contains("aligned to 32 bytes")),
        "{errs:?}"
    );
    assert!(errors(&src.replace("70660", "70656"), a3).is_empty());
    let mb = "func.func @k() {\n  %m = pto.alloc_multi_tile : !pto.multi_tile_buf<vec, 16x16xf16, count=1>\n  return\n}\n";
    let errs = errors(mb, a3);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 2 && m.contains("count must be >= 2")),
        "{errs:?}"
    );
    // a static tstore writes exactly the tile's valid elements
    let tile = tb("vec", "f32", 64, 64, 32, 32, "row_major", "none_box");
    let st = format!(
        "func.func @k(%p: !pto.partition_tensor_view<64x64xf32>) {{\n  %t = pto.alloc_tile : {tile}\n  pto.tstore ins(%t : {tile}) outs(%p : !pto.partition_tensor_view<64x64xf32>)\n  return\n}}\n"
    );
    let errs = errors(&st, a3);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 3 && m.contains("static element count")),
        "{errs:?}"
    );
    assert!(errors(&st.replace("64x64xf32", "32x32xf32"), a3).is_empty());
}

#[test]
fn tile_pipe_split_modes() {
    let a5 = ProfileId::A5;
    let t = vec("f32", 8, 16);
    let push = |attrs: &str| {
        format!(
            "func.func @k() {{\n  %t = pto.alloc_tile : {t}\n  %s = pto.get_subblock_idx\n  pto.tpush_to_aic(%t : {t}) {{{attrs}}} aiv_subblockid(%s)\n  return\n}}\n"
        )
    };
    let errs = errors(&push("id = 0, split = 0"), a5);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 4 && m.contains("aiv_subblockid")),
        "{errs:?}"
    );
    let errs = errors(&push("id = 0, split = 5"), a5);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 4 && m.contains("0, 1, 2, 3, or 4")),
        "{errs:?}"
    );
    let errs = errors(&push("id = 0, split = 1"), a5);
    assert!(!errs.iter().any(|(_, m)| m.contains("split")), "{errs:?}");
}

#[test]
fn inttoptr_feeds_only_scalar_accesses() {
    let a3 = ProfileId::A2A3;
    let src = "func.func @k(%a: i64, %i: index) {\n  %c0 = arith.constant 0 : index\n  %p = pto.inttoptr %a : i64 -> !pto.ptr<ui32>\n  %q = pto.addptr %p, %i : !pto.ptr<ui32> -> !pto.ptr<ui32>\n  return\n}\n";
    let errs = errors(src, a3);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 3 && m.contains("only be used as the pointer operand")),
        "{errs:?}"
    );
    let ok = "func.func @k(%a: i64) {\n  %c0 = arith.constant 0 : index\n  %p = pto.inttoptr %a : i64 -> !pto.ptr<ui32>\n  %v = pto.load_scalar %p[%c0] : !pto.ptr<ui32> -> ui32\n  return\n}\n";
    assert!(errors(ok, a3).is_empty(), "{:?}", errors(ok, a3));
    let bad =
        "func.func @k(%a: i32) {\n  %p = pto.inttoptr %a : i32 -> !pto.ptr<ui32>\n  return\n}\n";
    assert!(errors(bad, a3)
        .iter()
        .any(|(l, m)| *l == 2 && m.contains("must be i64")));
}

#[test]
fn pipe_init_sits_on_its_side_of_the_cluster() {
    let a5 = ProfileId::A5;
    let body = "pto.aic_initialize_pipe {id = 0, dir_mask = 1, slot_size = 1024}";
    let plain = format!("func.func @k() {{\n  {body}\n  return\n}}\n");
    let errs = errors(&plain, a5);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 2 && m.contains("cube kernel function or section")),
        "{errs:?}"
    );
    let cube = format!("func.func @k() attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{\n  {body}\n  return\n}}\n");
    assert!(errors(&cube, a5).is_empty(), "{:?}", errors(&cube, a5));
}

#[test]
fn subview_valid_shapes_and_l1_fillpad() {
    let a5 = ProfileId::A5;
    let src = tb("vec", "f32", 16, 128, 16, 128, "row_major", "none_box");
    let sub = |vr: &str| {
        format!("!pto.tile_buf<loc=vec, dtype=f32, rows=5, cols=128, v_row={vr}, v_col=128, blayout=row_major, slayout=none_box, fractal=512, pad=0>")
    };
    let prog = |valid: &str, vr: &str| {
        format!(
            "func.func @k() {{\n  %c0 = arith.constant 0 : index\n  %c5 = arith.constant 5 : index\n  %c128 = arith.constant 128 : index\n  %s = pto.alloc_tile : {src}\n  %t = pto.subview %s[%c0, %c0] sizes [5, 128]{valid} : {src} -> {}\n  return\n}}\n",
            sub(vr)
        )
    };
    let errs = errors(&prog("", "?"), a5);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 6 && m.contains("valid_shape[0]")),
        "{errs:?}"
    );
    let errs = errors(&prog(" valid [%c5, %c128]", "0"), a5);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 6 && m.contains("valid_shape[0]")),
        "{errs:?}"
    );
    assert!(errors(&prog(" valid [%c5, %c128]", "5"), a5).is_empty());
    assert!(errors(&prog("", "3"), a5).is_empty());
}

#[test]
fn a2a3_tload_needs_unit_innermost_stride() {
    let a3 = ProfileId::A2A3;
    let t = tb("vec", "f32", 16, 32, 16, 32, "row_major", "none_box");
    let prog = |inner: &str| {
        format!(
            "func.func @k(%p: !pto.ptr<f32, gm>) {{\n  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n  %c2 = arith.constant 2 : index\n  %c16 = arith.constant 16 : index\n  %c32 = arith.constant 32 : index\n  %c64 = arith.constant 64 : index\n  %v = pto.make_tensor_view %p, shape = [%c16, %c32], strides = [%c64, {inner}] : !pto.tensor_view<?x?xf32>\n  %s = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c16, %c32] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x32xf32>\n  %t = pto.alloc_tile : {t}\n  pto.tload ins(%s : !pto.partition_tensor_view<16x32xf32>) outs(%t : {t})\n  return\n}}\n"
        )
    };
    let errs = errors(&prog("%c2"), a3);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 11 && m.contains("unit innermost stride")),
        "{errs:?}"
    );
    assert!(
        errors(&prog("%c1"), a3).is_empty(),
        "{:?}",
        errors(&prog("%c1"), a3)
    );
}

#[test]
fn fixpipe_frontend_attrs_modes_and_splits() {
    let init = |quant: &str, extra: &str| {
        format!(
            "func.func @k() attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{\n  pto.aic_initialize_pipe {{id = 0, dir_mask = 1, slot_size = 512, nosplit = true, acc_push_epilogue = #pto.acc_push_epilogue<layout = nz2nd, quant = {quant}, relu = no_relu>}}{extra}\n  return\n}}\n"
        )
    };
    let errs = errors(&init("qs322bf16_pre_vec", ""), A2A3);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 2 && m.contains("only on A5 target")),
        "{errs:?}"
    );
    assert!(errors(&init("qs322bf16_pre_vec", ""), A5).is_empty());
    let errs = errors(&init("no_convert", " {subBlockId = 1 : i64}"), A5);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 2 && m.contains("unpublished fixpipe attr 'subBlockId'")),
        "{errs:?}"
    );
    // the device spec names the chip
    let spec = init("qs322bf16_pre_vec", "").replace(
        "func.func @k()",
        "module attributes {\"pto.device-spec\" = \"Ascend950\"} {\nfunc.func @k()",
    ) + "}\n";
    let checked = pto_asm::check_text("t.pto", &spec, None);
    assert_eq!(checked.profile, ProfileId::A5);
}

#[test]
fn a2a3_row_expand_scratch() {
    let a3 = ProfileId::A2A3;
    let d = vec("f32", 16, 16);
    let col = tb("vec", "f32", 16, 1, 16, 1, "col_major", "none_box");
    let t = [d.clone(), col.clone(), vec("f32", 1, 64), d.clone()];
    rejects(
        &t,
        &dps("trowexpandmax", &t),
        a3,
        "at least 512 bytes, but got 256 bytes",
    );
    let t = [d.clone(), col, vec("f32", 1, 128), d.clone()];
    accepts(&t, &dps("trowexpandmax", &t), a3);
    let t = [d.clone(), vec("f32", 16, 8), vec("f32", 1, 2048), d];
    rejects(&t, &dps("trowexpandadd", &t), a3, "use mode 1");
}

#[test]
fn syncall_workspace() {
    let a3 = ProfileId::A2A3;
    let prog = |ty: &str, mode: &str| {
        format!("func.func @k(%g: {ty}) {{\n  pto.syncall(%g : {ty}) mode = #pto.sync_all_mode<{mode}>, core_type = #pto.sync_core_type<aiv_only>\n  return\n}}\n")
    };
    let errs = errors(&prog("!pto.tensor_view<15xi32>", "soft"), a3);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 2 && m.contains("at least 16 i32")),
        "{errs:?}"
    );
    let errs = errors(&prog("!pto.ptr<f32, gm>", "soft"), a3);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 2 && m.contains("element type to be i32")),
        "{errs:?}"
    );
    assert!(errors(&prog("!pto.ptr<i32, gm>", "soft"), a3).is_empty());
    let errs = errors(&prog("!pto.ptr<i32, gm>", "hard"), a3);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 2 && m.contains("no gm_workspace")),
        "{errs:?}"
    );
}

#[test]
fn entries_return_void_and_calls_do_not_recurse() {
    let a3 = ProfileId::A2A3;
    let nonvoid = "func.func @k(%a: i32) -> i32 attributes {pto.entry} {\n  return %a : i32\n}\n";
    let errs = errors(nonvoid, a3);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 1 && m.contains("must return void")),
        "{errs:?}"
    );
    let rec = "func.func @k(%a: i32) attributes {pto.entry} {\n  func.call @h(%a) : (i32) -> ()\n  return\n}\nfunc.func private @h(%a: i32) {\n  func.call @k(%a) : (i32) -> ()\n  return\n}\n";
    let errs = errors(rec, a3);
    assert!(
        errs.iter().any(|(l, m)| *l == 1 && m.contains("recursive")),
        "{errs:?}"
    );
    let ok = "func.func @k(%a: i32) attributes {pto.entry} {\n  func.call @h(%a) : (i32) -> ()\n  return\n}\nfunc.func private @h(%a: i32) {\n  return\n}\n";
    assert!(errors(ok, a3).is_empty(), "{:?}", errors(ok, a3));
}

#[test]
fn fixpipe_epilogue_modes_are_published_ones() {
    let init = |relu: &str| {
        format!(
            "func.func @k() attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{\n  pto.aic_initialize_pipe {{id = 0, dir_mask = 1, slot_size = 512, nosplit = true, acc_push_epilogue = #pto.acc_push_epilogue<layout = nz2nd, quant = deqf16_scalar, relu = {relu}>}}\n  return\n}}\n"
        )
    };
    let errs = errors(&init("scalar_relu"), A5);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 2 && m.contains("relu = scalar_relu")),
        "{errs:?}"
    );
    assert!(errors(&init("normal_relu"), A5).is_empty());
}

#[test]
fn fixpipe_push_needs_its_quant_scale_set() {
    let acc = tb("acc", "i32", 16, 16, 16, 16, "col_major", "row_major");
    let prog = |set: &str| {
        format!(
            "func.func @k() attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{\n  pto.aic_initialize_pipe {{id = 0, dir_mask = 1, slot_size = 512, nosplit = true, acc_push_epilogue = #pto.acc_push_epilogue<layout = nz2nd, quant = deqf16_scalar, relu = no_relu>}}\n  %s = arith.constant 1.0 : f32\n{set}  %t = pto.alloc_tile : {acc}\n  pto.tpush_to_aiv(%t : {acc}) {{id = 0, split = 0}}\n  return\n}}\n"
        )
    };
    let errs = errors(&prog(""), A5);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 5 && m.contains("preceding pto.set_quant_scalar")),
        "{errs:?}"
    );
    let ok = prog("  pto.set_quant_scalar(%s : f32) {id = 0}\n");
    let errs = errors(&ok, A5);
    assert!(
        !errs.iter().any(|(_, m)| m.contains("preceding")),
        "{errs:?}"
    );
}

#[test]
fn fixpipe_push_source_matches_quant_mode() {
    let acc = tb("acc", "i32", 16, 16, 16, 16, "col_major", "row_major");
    let src = format!(
        "func.func @k() attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{\n  pto.aic_initialize_pipe {{id = 0, dir_mask = 1, slot_size = 512, nosplit = true, acc_push_epilogue = #pto.acc_push_epilogue<layout = nz2nd, quant = f32_f16, relu = no_relu>}}\n  %t = pto.alloc_tile : {acc}\n  pto.tpush_to_aiv(%t : {acc}) {{id = 0, split = 0}}\n  return\n}}\n"
    );
    let errs = errors(&src, A5);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 4 && m.contains("source element type")),
        "{errs:?}"
    );
    let f = src.replace("dtype=i32", "dtype=f32");
    assert!(errors(&f, A5).is_empty(), "{:?}", errors(&f, A5));
}

#[test]
fn one_pipe_init_per_id() {
    let init = "pto.aic_initialize_pipe {id = 0, dir_mask = 1, slot_size = 512}";
    let src = format!(
        "func.func @k() attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{\n  {init}\n  {init}\n  return\n}}\n"
    );
    let errs = errors(&src, A5);
    assert!(
        errs.iter().any(|(l, m)| *l == 3 && m.contains("unique")),
        "{errs:?}"
    );
}

#[test]
fn a2a3_select_and_expand_divide_element_types() {
    let (a3, a5) = (ProfileId::A2A3, ProfileId::A5);
    let sel = |dt: &str| {
        vec![
            vec(dt, 2, 128),
            vec(dt, 2, 128),
            vec(dt, 2, 128),
            vec(dt, 1, 64),
            vec(dt, 2, 128),
        ]
    };
    let t = sel("i8");
    rejects(
        &t,
        &dps("tsel", &t),
        a3,
        "'pto.tsel' expects A2/A3 tsel src0, src1, and dst element type to be i16/i32/f16/bf16/f32, got i8",
    );
    accepts(&t, &dps("tsel", &t), a5);
    let t = sel("i16");
    accepts(&t, &dps("tsel", &t), a3);
    let div = |dt: &str| vec![vec(dt, 16, 64), vec(dt, 1, 64), vec(dt, 16, 64)];
    let t = div("i32");
    rejects(
        &t,
        &dps("tcolexpanddiv", &t),
        a3,
        "expects A2/A3 tcolexpanddiv element type to be f16 or f32, got i32",
    );
    accepts(&t, &dps("tcolexpanddiv", &t), a5);
    let t = div("f32");
    accepts(&t, &dps("tcolexpanddiv", &t), a3);
}

#[test]
fn gm2l1_mgather_fp8_destination_is_a5_only() {
    let m = tb("mat", "f8E4M3FN", 32, 32, 32, 32, "col_major", "row_major");
    let src = format!(
        "func.func @k(%mem: !pto.partition_tensor_view<64x32xf8E4M3FN>, %idx: !pto.partition_tensor_view<1x32xi32>) {{\n  %d = pto.alloc_tile : {m}\n  pto.mgather ins(%mem, %idx : !pto.partition_tensor_view<64x32xf8E4M3FN>, !pto.partition_tensor_view<1x32xi32>) outs(%d : {m}) {{coalesce = #pto<coalesce row>}}\n  return\n}}\n"
    );
    let msg = "fp8 types only on A5";
    let a3 = errors(&src, A2A3);
    assert!(a3.iter().any(|(l, e)| *l == 3 && e.contains(msg)), "{a3:?}");
    let a5 = errors(&src, A5);
    assert!(!a5.iter().any(|(_, e)| e.contains(msg)), "{a5:?}");
}
