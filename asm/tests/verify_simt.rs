//! SIMT scope rules (asm/src/verify.rs): sections are not nested, not inside
//! `pto.simt_entry` functions, launch at most 2048 threads; per-thread
//! global accesses live inside a SIMT scope, device-scope ones outside.

mod common;

use pto_isa_spec::ProfileId;

#[track_caller]
fn rejects(src: &str, line: u32, msg: &str) {
    common::rejects_at(ProfileId::A5, src, line, msg)
}

#[track_caller]
fn accepts(src: &str) {
    common::accepts_on(ProfileId::A5, src)
}

#[test]
fn sections_are_flat_and_bounded() {
    let nested = "func.func @k() attributes {pto.kernel} {\n  pto.section.simt <<<32, 1, 1>>> {\n    pto.section.simt <<<32, 1, 1>>> {\n    }\n  }\n  return\n}\n";
    rejects(nested, 3, "nested pto.section.simt");
    let big = "func.func @k() attributes {pto.kernel} {\n  pto.section.simt <<<64, 64, 1>>> {\n  }\n  return\n}\n";
    rejects(big, 2, "no greater than 2048");
    let ok = "func.func @k() attributes {pto.kernel} {\n  pto.section.simt <<<32, 2, 1>>> {\n  }\n  return\n}\n";
    accepts(ok);
    let entry = "func.func @k() attributes {pto.simt_entry} {\n  pto.section.simt <<<32, 1, 1>>> {\n  }\n  return\n}\n";
    rejects(entry, 2, "pto.simt_entry");
}

#[test]
fn global_thread_accesses_need_a_simt_scope() {
    let outside = "func.func @k(%gm: !pto.ptr<i32, gm>) attributes {pto.aicore} {\n  %c0 = arith.constant 0 : index\n  %v = pto.ldg %gm[%c0] : !pto.ptr<i32, gm> -> i32\n  return\n}\n";
    rejects(
        outside,
        3,
        "must be inside a pto.simt_entry function or pto.section.simt",
    );
    let inside = "func.func @k(%gm: !pto.ptr<i32, gm>) attributes {pto.simt_entry} {\n  %c0 = arith.constant 0 : index\n  %v = pto.ldg %gm[%c0] : !pto.ptr<i32, gm> -> i32\n  return\n}\n";
    accepts(inside);
    let dev = "func.func @k(%gm: !pto.ptr<i32, gm>) attributes {pto.simt_entry} {\n  %c0 = arith.constant 0 : index\n  %v = pto.ld_dev %gm[%c0] : !pto.ptr<i32, gm> -> i32\n  return\n}\n";
    rejects(dev, 3, "must be outside pto.simt_entry functions");
}

#[test]
fn simt_scalar_op_contracts() {
    let conv = "func.func @k() attributes {pto.aicore} {\n  %f = arith.constant 1.0 : f32\n  %b = pto.convert %f round(z) nosat signed : f32 -> i32\n  return\n}\n";
    rejects(conv, 3, "requires saturation enable");
    let ok = conv.replace("nosat", "sat");
    accepts(&ok);
    let atomic = "func.func @k(%p: !pto.ptr<i64, ub>) attributes {pto.aicore} {\n  %v = arith.constant 1 : i64\n  %o = pto.atomic_add %p, %v signed : !pto.ptr<i64, ub>, i64 -> i64\n  return\n}\n";
    rejects(atomic, 3, "i64 UB-space atomics");
    let ldg = "func.func @k(%p: !pto.ptr<vector<4xf32>, gm>) attributes {pto.simt_entry} {\n  %c0 = arith.constant 0 : index\n  %v = pto.ldg %p[%c0] : !pto.ptr<vector<4xf32>, gm> -> vector<4xf32>\n  return\n}\n";
    rejects(ldg, 3, "packed vector<2xT>");
    accepts(&ldg.replace("4xf32", "2xf32"));
}

#[test]
fn packed_atomics_return_no_old_value() {
    let src = |use_it: &str| {
        format!(
            "func.func @k(%p: !pto.ptr<vector<2xbf16>, gm>, %v: vector<2xbf16>) attributes {{pto.simt_entry}} {{\n  %o = pto.atomic_add %p, %v : !pto.ptr<vector<2xbf16>, gm>, vector<2xbf16> -> vector<2xbf16>\n{use_it}  return\n}}\n"
        )
    };
    rejects(
        &src("  func.call @use(%o) : (vector<2xbf16>) -> ()\n"),
        2,
        "old value result for packed atomics",
    );
    accepts(&src(""));
}

#[test]
fn device_scope_accesses_in_an_entry_function() {
    let f = |attrs: &str, load: &str| {
        format!("func.func @k(%gm: !pto.ptr<i32, gm>){attrs} {{\n  %c0 = arith.constant 0 : index\n  %v = pto.ld_dev %gm[%c0]{load}\n  return\n}}\n")
    };
    let entry = " attributes {pto.aicore}";
    let plain = " : !pto.ptr<i32, gm> -> i32";
    accepts(&f(entry, plain));
    common::rejects_at_col(
        ProfileId::A5,
        &f(entry, " : !pto.ptr<i32, gm> -> i16"),
        3,
        3,
        "'pto.ld_dev' expects ld_dev value type to match pointer element type (i16 vs i32)",
    );
    common::rejects_at_col(
        ProfileId::A5,
        &f("", plain),
        3,
        3,
        "'pto.ld_dev' requires an enclosing ordinary AICore entry function",
    );
    common::rejects_at_col(
        ProfileId::A5,
        &f(
            entry,
            " {l1cache = #pto.l1cache<cache>} : !pto.ptr<i32, gm> -> i32",
        ),
        3,
        3,
        "does not accept l1cache or l2cache policy attributes",
    );
}

#[test]
fn simt_code_builds_fp8_with_convert() {
    let f = |ty: &str| {
        format!("func.func @k() attributes {{pto.kernel}} {{\n  pto.section.simt <<<32, 1, 1>>> {{\n    %v = arith.constant dense<0.0> : vector<4x{ty}>\n  }}\n  return\n}}\n")
    };
    common::rejects_at_col(
        ProfileId::A5,
        &f("f8E4M3FN"),
        3,
        5,
        "'arith.constant' does not support directly constructed FP8 constants",
    );
    accepts(&f("f16"));
    // outside a SIMT scope the constant is left to the backend
    let outside = "func.func @k() attributes {pto.kernel} {\n  %v = arith.constant dense<0.0> : vector<4xf8E5M2>\n  return\n}\n";
    accepts(outside);
}
