//! MX exponent-layout rules (asm/src/verify_mx.rs): the X-to-ZZ `pto.tmov`.

mod common;

use pto_isa_spec::ProfileId;

/// `pto.tmov ins(%s, %t) outs(%d)` on line 2 over the given tile types,
/// with `attrs` appended.
fn x2zz(src: &str, tmp: &str, dst: &str, attrs: &str) -> String {
    let t = |x: &str| format!("!pto.tile_buf<{x}>");
    format!(
        "func.func @f(%s: {s}, %t: {tt}, %d: {d}) {{\n  pto.tmov ins(%s : {s}, %t : {tt}) outs(%d : {d}){attrs}\n  return\n}}\n",
        s = t(src),
        tt = t(tmp),
        d = t(dst)
    )
}

#[track_caller]
fn rejects(src: &str, msg: &str) {
    common::rejects_at_col(ProfileId::A5, src, 2, 3, msg)
}

#[track_caller]
fn accepts(src: &str) {
    common::accepts_on(ProfileId::A5, src)
}

const SRC: &str = "vec, 16x4xui8";
const TMP: &str = "vec, 1x80xui8";
const DST: &str = "vec, 16x4xui8, slayout=row_major";
const AXIS0: &str = " {grpAxis = #pto<mx_group_axis axis0>}";

#[test]
fn x2zz_nd_form() {
    accepts(&x2zz(SRC, TMP, DST, ""));
    common::rejects_at_col(
        ProfileId::A2A3,
        &x2zz(SRC, TMP, DST, ""),
        2,
        3,
        "'pto.tmov' X-to-ZZ tmov is only supported on A5",
    );
    rejects(
        &x2zz(SRC, "mat, 1x80xui8", DST, ""),
        "src/dst/tmp to be vec tiles",
    );
    rejects(
        &x2zz(
            "vec, 16x4xi8",
            "vec, 1x80xi8",
            "vec, 16x4xi8, slayout=row_major",
            "",
        ),
        "element type to be one of ui8, !pto.hif8, !pto.f8E8M0",
    );
    rejects(
        &x2zz(SRC, "vec, 1x80x!pto.f8E8M0", DST, ""),
        "share one element type",
    );
    rejects(&x2zz(SRC, TMP, "vec, 16x4xui8", ""), "(ZZ box)");
    rejects(
        &x2zz(
            SRC,
            TMP,
            DST,
            " {reluPreMode = #pto<relu_pre_mode normal_relu>}",
        ),
        "not to use preQuantScalar, accToVecMode, or reluPreMode",
    );
    rejects(
        &x2zz(
            "vec, 16x3xui8",
            "vec, 1x80xui8",
            "vec, 16x3xui8, slayout=row_major",
            "",
        ),
        "dst valid_shape[1] (the grouped exponent column count) to be even",
    );
    // 20 valid rows pad to 32: 64 + 2 * 4 bytes of scratch, 128 bytes of src and dst
    let s = "vec, 32x4xui8, valid=20x4";
    let d = "vec, 32x4xui8, valid=20x4, slayout=row_major";
    accepts(&x2zz(s, "vec, 1x72xui8", d, ""));
    rejects(
        &x2zz(s, "vec, 1x71xui8", d, ""),
        "tmp to provide at least 72 bytes",
    );
    rejects(
        &x2zz("vec, 20x4xui8", "vec, 1x72xui8", d, ""),
        "src physical capacity to cover align16(dst rows) * dst cols",
    );
    rejects(
        &x2zz("vec, 32x32xui8, valid=20x4", "vec, 1x72xui8", d, ""),
        "compact prefix",
    );
}

#[test]
fn x2zz_dn_form() {
    accepts(&x2zz(
        "vec, 2x16xui8",
        "vec, 1x1xui8",
        "vec, 2x16xui8, slayout=row_major",
        AXIS0,
    ));
    rejects(
        &x2zz(
            "vec, 3x16xui8",
            "vec, 1x1xui8",
            "vec, 3x16xui8, slayout=row_major",
            AXIS0,
        ),
        "DN-to-ZZ src valid_shape[0] to be an even count >= 2",
    );
    rejects(
        &x2zz(
            "vec, 2x8xui8",
            "vec, 1x1xui8",
            "vec, 2x8xui8, slayout=row_major",
            AXIS0,
        ),
        "DN-to-ZZ src valid_shape[1] to be a multiple of 16",
    );
    rejects(
        &x2zz(
            "vec, 2x32xui8, valid=2x16",
            "vec, 1x1xui8",
            "vec, 2x16xui8, slayout=row_major",
            AXIS0,
        ),
        "DN-to-ZZ src physical row stride",
    );
}

#[test]
fn grp_axis_only_on_x2zz() {
    let src = "!pto.tile_buf<acc, 32x32xf32, blayout=col_major, slayout=row_major>";
    let fp = "!pto.tile_buf<scaling, 1x32xf16>";
    let dst = "!pto.tile_buf<mat, 32x32xi8>";
    let f = |attrs: &str| {
        format!("func.func @f(%s: {src}, %f: {fp}, %d: {dst}) {{\n  pto.tmov ins(%s : {src}, %f : {fp}) outs(%d : {dst}){attrs}\n  return\n}}\n")
    };
    rejects(&f(AXIS0), "grpAxis only on the X-to-ZZ form");
    let tensor = "func.func @f(%s: !pto.tile_buf<vec, 16x4xui8>, %t: tensor<1x80xui8>, %d: !pto.tile_buf<vec, 16x4xui8, slayout=row_major>) {\n  pto.tmov ins(%s : !pto.tile_buf<vec, 16x4xui8>, %t : tensor<1x80xui8>) outs(%d : !pto.tile_buf<vec, 16x4xui8, slayout=row_major>)\n  return\n}\n";
    rejects(tensor, "third tile to have an explicit address space");
}

/// `pto.tquant.mx ins(src) outs(dst, exp, max, scaling)` on line 2.
fn quant(tiles: [&str; 5], attrs: &str) -> String {
    let t: Vec<String> = tiles
        .iter()
        .map(|x| format!("!pto.tile_buf<{x}>"))
        .collect();
    format!(
        "func.func @f(%s: {0}, %d: {1}, %x: {2}, %m: {3}, %c: {4}) {{\n  pto.tquant.mx ins(%s : {0}) outs(%d, %x, %m, %c : {1}, {2}, {3}, {4}) {{quant_type = #pto<quant_type MXFP8>{attrs}}}\n  return\n}}\n",
        t[0], t[1], t[2], t[3], t[4]
    )
}

#[test]
fn mx_quant_nd_groups_a_row() {
    // 16x32 f32: one group per row, legacy flat exponents [1, 16], scaling of one 256-byte VL
    let ok = [
        "vec, 16x32xf32",
        "vec, 16x32xi8",
        "vec, 1x16xui8",
        "vec, 1x16xf32",
        "vec, 1x64xf32, valid=1x16",
    ];
    accepts(&quant(ok, ""));
    let mut t = ok;
    t[4] = "vec, 1x32xf32, valid=1x16";
    rejects(
        &quant(t, ""),
        "'pto.tquant.mx' expects axis1 flat f32 scaling physical capacity to cover 256 bytes",
    );
    let mut t = ok;
    t[0] = "vec, 16x48xf32";
    rejects(
        &quant(t, ""),
        "src valid_shape[1] to be a multiple of 32 when grpAxis is axis1",
    );
    let mut t = ok;
    t[2] = "vec, 2x8xui8";
    rejects(
        &quant(t, ""),
        "exp valid_shape to match canonical [M, N/32] or legacy flat [1, M*N/32]",
    );
    let mut t = ok;
    t[1] = "vec, 16x64xi8, valid=16x32";
    rejects(
        &quant(t, ""),
        "MXFP8 axis1 dst physical cols to equal src physical cols",
    );
    rejects(
        &quant(ok, ", interleave = true"),
        "interleave to be used only with grpAxis=axis0",
    );
}

#[test]
fn mx_quant_dn_groups_a_column() {
    // 32x32 f32 grouped down the columns: exponents, max and scaling are [1, 32]
    let ok = [
        "vec, 32x32xf32",
        "vec, 32x32xi8",
        "vec, 1x32xui8",
        "vec, 1x32xf32",
        "vec, 1x32xf32",
    ];
    accepts(&quant(ok, ", grpAxis = #pto<mx_group_axis axis0>"));
    let mut t = ok;
    t[0] = "vec, 16x32xf32";
    t[1] = "vec, 16x32xi8";
    rejects(
        &quant(t, ", grpAxis = #pto<mx_group_axis axis0>"),
        "src valid_shape[0] to be a multiple of 32 when grpAxis is axis0, got 16",
    );
    let mut t = ok;
    t[3] = "vec, 1x64xf32, valid=1x32";
    rejects(
        &quant(t, ", grpAxis = #pto<mx_group_axis axis0>"),
        "max physical cols to equal src physical cols for grpAxis=axis0",
    );
}
