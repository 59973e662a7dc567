//! Type annotations in op text (asm/src/verify.rs): `arith.*` / `math.*` ops
//! carry their type after `:` (`typed_builtin`), and a tile use annotated in
//! `ins(...)`/`outs(...)` has the tile's own type (`annotated_uses`).

mod common;

use pto_isa_spec::ProfileId;

/// A function body of `lines`.
fn func(lines: &str) -> String {
    format!("func.func @f() {{\n{lines}\n  return\n}}\n")
}

#[test]
fn a_misspelt_or_missing_type_is_an_error() {
    let p = ProfileId::A2A3;
    common::rejects_at(
        p,
        &func("  %c0 = arith.constant 0 : indx"),
        2,
        "expects a type after ':', got 'indx', which is not a type",
    );
    common::rejects_at(
        p,
        &func("  %c0 = arith.constant 0"),
        2,
        "'arith.constant' expects ': type' after its operands",
    );
    common::rejects_at(
        p,
        &func("  %c0 = arith.constant 0 : index\n  %a = arith.addi %c0, %c0"),
        3,
        "'arith.addi' expects ': type'",
    );
    common::rejects_at(
        p,
        &func("  %x = arith.constant 1.0 : f32\n  %e = math.exp %x : f3"),
        3,
        "got 'f3'",
    );
}

#[test]
fn typed_forms_and_bool_constants_pass() {
    let ok = func(
        "  %t = arith.constant true\n  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : i32\n  %i = arith.index_cast %c0 : index to i32\n  %s = arith.addi %i, %c1 : i32\n  %b = arith.cmpi slt, %i, %s : i32\n  %m = arith.select %b, %i, %s : i32\n  %x = arith.constant 1.0 : f32\n  %e = math.exp %x : f32",
    );
    let e = common::errors_on(ProfileId::A2A3, &ok);
    assert!(e.is_empty(), "{e:?}");
}

/// A row-major vec tile type of `rows` x 32 f32.
fn tile(rows: i64) -> String {
    format!("!pto.tile_buf<loc=vec, dtype=f32, rows={rows}, cols=32, v_row={rows}, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>")
}

#[test]
fn a_tile_use_annotated_with_another_type_is_an_error() {
    let (t32, t16) = (tile(32), tile(16));
    let src = |ann_b: &str| {
        func(&format!(
            "  %a = pto.alloc_tile : {t32}\n  %b = pto.alloc_tile : {t32}\n  %c = pto.alloc_tile : {t32}\n  pto.tadd ins(%a, %b : {t32}, {ann_b}) outs(%c : {t32})"
        ))
    };
    common::rejects_at(
        ProfileId::A2A3,
        &src(&t16),
        5,
        &format!("%b is annotated '{t16}' here, but its type is '{t32}'"),
    );
    let e = common::errors_on(ProfileId::A2A3, &src(&t32));
    assert!(e.is_empty(), "{e:?}");
}
