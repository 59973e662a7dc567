//! One test per grammar feature the PTOAS corpus uses (pto-format.md §1): each
//! parses with no diagnostics, verifies, and round-trips through the binary.

use pto_asm::ast::{Elem, Imm};
use pto_asm::binary::{decode, encode};
use pto_asm::printer::{print_file, PrintOptions};
use pto_asm::{check_text, parse, File, Severity};
use pto_isa_spec::{Opcode, ProfileId};

fn ok(src: &str) -> File {
    let c = check_text("t.pto", src, None);
    assert!(
        !c.diagnostics.has_errors(),
        "unexpected errors:\n{}",
        c.diagnostics.render("t.pto", src)
    );
    // round trip: text -> bin -> text -> bin is byte-identical
    let b1 = encode(&c.file, Some(c.profile));
    let d = decode(&b1).expect("decodes");
    let text = print_file(&d.file, PrintOptions::default());
    let (f2, diags) = parse("t.pto", &text);
    assert!(
        diags.is_empty(),
        "canonical text re-parses: {diags:?}\n{text}"
    );
    assert_eq!(
        encode(&f2, Some(c.profile)),
        b1,
        "byte-identical round trip\n{text}"
    );
    c.file
}

fn err(src: &str) -> String {
    let c = check_text("t.pto", src, None);
    assert!(c.diagnostics.has_errors(), "expected an error for:\n{src}");
    c.diagnostics.render("t.pto", src)
}

fn find(f: &File, op: Opcode) -> &pto_asm::Op {
    f.walk()
        .into_iter()
        .find(|o| o.opcode == op)
        .expect("op present")
}

const TB: &str = "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>";

#[test]
fn module_func_call_return() {
    let f = ok(r#"
module attributes {pto.target_arch = "a5", "pto.device-spec" = "Ascend910B1"} {
  func.func private @helper(%x: i32) -> i32 {
    %c1 = arith.constant 1 : i32
    %y = arith.addi %x, %c1 : i32
    return %y : i32
  }
  func.func @main(%a: i32) attributes {pto.entry} {
    %r = func.call @helper(%a) : (i32) -> i32
    return
  }
}"#);
    let call = find(&f, Opcode::Call);
    assert_eq!(call.num_results(), 1);
    let v = call.result_values().next().unwrap();
    assert!(matches!(
        f.types.get(f.values[v as usize].ty.unwrap()),
        pto_asm::ty::Type::Int(32)
    ));
}

#[test]
fn scf_for_iter_args_if_results_while() {
    let f = ok(r#"
func.func @k(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f32) {
    %t = arith.cmpi slt, %i, %c1 : index
    %v = scf.if %t -> (f32) {
      scf.yield %acc : f32
    } else {
      %w = arith.addf %acc, %acc : f32
      scf.yield %w : f32
    }
    scf.yield %v : f32
  }
  %r:2 = scf.while (%a = %c0, %b = %z) : (index, f32) -> (index, f32) {
    %cond = arith.cmpi slt, %a, %n : index
    scf.condition(%cond) %a, %b : index, f32
  } do {
  ^bb0(%a2: index, %b2: f32):
    %a3 = arith.addi %a2, %c1 : index
    scf.yield %a3, %b2 : index, f32
  }
  %last = arith.addi %r#0, %c1 : index
  return
}"#);
    let w = find(&f, Opcode::ScfWhile);
    assert_eq!(w.results, vec![(w.results[0].0, 2)]);
    assert_eq!(w.regions.len(), 2);
    assert_eq!(w.regions[1].blocks[0].label.as_deref(), Some("bb0"));
}

#[test]
fn dps_grouped_interleaved_and_attr_inside_ins() {
    let src = format!(
        r#"func.func @k() {{
  %a = pto.alloc_tile : {TB}
  %b = pto.alloc_tile : {TB}
  %c = pto.alloc_tile : {TB}
  pto.tadd ins(%a, %b : {TB}, {TB}) outs(%c : {TB})
  pto.tmov ins(%a : {TB}) outs(%c : {TB})
  pto.tcvt ins(%a {{rmode = #pto<round_mode ROUND>}} : {TB}) outs(%c : {TB})
  return
}}"#
    );
    let f = ok(&src);
    let add = find(&f, Opcode::TAdd);
    assert_eq!(add.group("ins").unwrap().0.len(), 2);
    assert_eq!(add.group("outs").unwrap().0.len(), 1);
    let cvt = f
        .walk()
        .into_iter()
        .find(|o| o.opcode.name() == "pto.tcvt")
        .unwrap();
    assert!(cvt.attr("rmode").is_some());
}

#[test]
fn views_alloc_subset_addptr() {
    let src = r#"module attributes {pto.target_arch = "a2a3"} {
func.func @k(%p: !pto.ptr<f32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %v = pto.make_tensor_view %p, shape = [%n, %c16], strides = [%c16, %c1] {layout = #pto.layout<nd>} : !pto.tensor_view<?x16xf32>
  %pv = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x16xf32> -> !pto.partition_tensor_view<16x16xf32>
  %t = pto.alloc_tile valid_row = %c16 valid_col = %c16 : !pto.tile_buf<vec, 16x16xf32, valid=?x?>
  pto.tload ins(%pv : !pto.partition_tensor_view<16x16xf32>) outs(%t : !pto.tile_buf<vec, 16x16xf32, valid=?x?>)
  %q = pto.addptr %p, %c16 : <f32> -> <f32>
  return
}
}"#;
    let f = ok(src);
    let mk = find(&f, Opcode::lookup("pto.make_tensor_view").unwrap());
    assert_eq!(mk.uses().count(), 5);
    assert!(mk.attr("layout").is_some());
}

#[test]
fn sync_forms_in_every_spelling() {
    let f = ok(r#"
func.func @k() {
  pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
  pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
  pto.set_flag[<PIPE_V>, <PIPE_MTE3>, <EVENT_ID1>]
  pto.wait_flag[#pto.pipe<PIPE_V>, #pto.pipe<PIPE_MTE3>, #pto.event<EVENT_ID1>]
  pto.barrier <PIPE_ALL>
  pto.barrier #pto.pipe<PIPE_ALL>
  pto.get_buf "PIPE_V", 0, 0
  pto.rls_buf "PIPE_V", 0, 0
  pto.get_buf[#pto.pipe_event_type<TLOAD>, 1]
  pto.rls_buf[#pto.pipe_event_type<TLOAD>, 1] {mode = 0}
  pto.record_event[#pto.sync_op_type<TLOAD>, #pto.sync_op_type<TVEC>, <EVENT_ID2>]
  pto.wait_event[#pto.pipe_event_type<TLOAD>, #pto.pipe_event_type<TVEC>, <EVENT_ID2>]
  return
}"#);
    let syms: Vec<Vec<String>> = f
        .walk()
        .into_iter()
        .filter(|o| matches!(o.opcode, Opcode::SetFlag | Opcode::WaitFlag))
        .map(|o| {
            o.immediates()
                .iter()
                .filter_map(Imm::symbol)
                .map(str::to_string)
                .collect()
        })
        .collect();
    assert_eq!(syms[0], ["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]);
    assert_eq!(syms[2], ["PIPE_V", "PIPE_MTE3", "EVENT_ID1"]);
    assert_eq!(syms[3], ["PIPE_V", "PIPE_MTE3", "EVENT_ID1"]);
}

#[test]
fn get_buf_with_pipe_after_the_id() {
    ok(r#"
func.func @k(%id: i64, %mode: i64) {
  pto.get_buf %id, "PIPE_MTE2", %mode : i64, i64
  pto.rls_buf "PIPE_MTE2", %id, %mode : i64, i64
  return
}"#);
}

#[test]
fn regions_sections_and_vecscope() {
    let f = ok(r#"
module attributes {pto.target_arch = "a5"} {
func.func @k(%p: !pto.ptr<f32, ub>) {
  %c0 = arith.constant 0 : index
  pto.section.cube {
    pto.barrier #pto.pipe<PIPE_ALL>
  }
  pto.section.vector {
    pto.vecscope {
      %m = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      %v = pto.vlds %p[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      %w = pto.vadd %v, %v, %m : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
      pto.vsts %w, %p[%c0], %m : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>
    }
    pto.strict_vecscope(%p) {
    ^bb0(%q: !pto.ptr<f32, ub>):
      %m2 = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
    } : (!pto.ptr<f32, ub>) -> ()
  }
  return
}
}"#);
    assert!(
        find(&f, Opcode::lookup("pto.vecscope").unwrap())
            .regions
            .len()
            == 1
    );
}

#[test]
fn stripped_types_and_enums_and_compact_tile() {
    ok(r#"
func.func @k(%a: !pto.tile_buf<vec, 16x16xf16, valid=16x?, blayout=row_major, pad=1>) {
  pto.tprint ins(%a : !pto.tile_buf<vec, 16x16xf16, valid=16x?, blayout=row_major, pad=1>)
  return
}"#);
}

#[test]
fn generic_form_hex_float_and_loc() {
    let f = ok(r#"
func.func @k() {
  %one = arith.constant 0x3F800000 : f32 loc("orig.pto":7:3)
  %x = "arith.addf"(%one, %one) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
  return
}"#);
    let c = find(&f, Opcode::ArithConstant);
    assert_eq!((c.loc.line, c.loc.col), (7, 3));
    assert_eq!(f.source_name, "orig.pto");
    let g = find(&f, Opcode::ArithAddf);
    assert!(g.generic);
    assert!(g.body.iter().any(|e| matches!(e, Elem::Props(_))));
}

#[test]
fn pto_as_assembly_statements() {
    let (f, d) = parse(
        "t.pto",
        "func.func @k() {\n  set_flag PIPE_MTE2, PIPE_V, EVENT_ID0\n  wait_flag PIPE_MTE2, PIPE_V, EVENT_ID0\n  pipe_barrier PIPE_V\n  return\n}\n",
    );
    assert!(d.is_empty(), "{d:?}");
    let set = find(&f, Opcode::SetFlag);
    let syms: Vec<_> = set
        .immediates()
        .iter()
        .filter_map(Imm::symbol)
        .map(str::to_string)
        .collect();
    assert_eq!(syms, ["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]);
}

#[test]
fn errors_point_at_the_line_with_a_caret() {
    let r = err("func.func @k() {\n  %a = arith.addi %nope, %nope : i32\n  return\n}\n");
    assert!(
        r.contains("t.pto:2:19: error: use of undefined value %nope"),
        "{r}"
    );
    assert!(r.contains("^^^^^"), "{r}");
    let r = err("func.func @k() {\n  pto.no_such_op\n}\n");
    assert!(
        r.contains("t.pto:2:3: error: unknown operation 'pto.no_such_op'"),
        "{r}"
    );
    assert!(!r.contains("did you mean"), "{r}");
    // a near miss names the op it probably is
    let r = err("func.func @k() {\n  pto.wait_flg[\"PIPE_MTE2\", \"PIPE_V\", \"EVENT_ID0\"]\n}\n");
    assert!(
        r.contains("unknown operation 'pto.wait_flg'; did you mean 'pto.wait_flag'?"),
        "{r}"
    );
}

#[test]
fn verifier_reports_all_errors() {
    let src = format!(
        r#"module attributes {{pto.target_arch = "a2a3"}} {{
func.func @k(%x: i32) {{
  %a = pto.alloc_tile : {TB}
  pto.tadd ins(%a : {TB}) outs(%a : {TB})
  pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID16"]
  pto.tmuls ins(%x, %x : i32, i32) outs(%a : {TB})
  return
}}
}}"#
    );
    let c = check_text("t.pto", &src, None);
    assert!(
        c.diagnostics.error_count() >= 3,
        "{}",
        c.diagnostics.render("t.pto", &src)
    );
    let r = c.diagnostics.render("t.pto", &src);
    assert!(
        r.contains("t.pto:4:3: error: 'pto.tadd' expects 2 ins operand(s), found 1"),
        "{r}"
    );
    assert!(
        r.contains("t.pto:5:3: error: event id EVENT_ID16 is out of range on profile a2a3"),
        "{r}"
    );
    // a malformed id is named as such, not as out of range
    let bad = src.replace("EVENT_ID16", "EVENT_ID_0");
    let r = check_text("t.pto", &bad, None)
        .diagnostics
        .render("t.pto", &bad);
    assert!(
        r.contains("t.pto:5:3: error: EVENT_ID_0 is not an event id (EVENT_ID0..EVENT_ID15 on profile a2a3)"),
        "{r}"
    );
    assert!(
        r.contains("t.pto:6:3: error: 'pto.tmuls': ins operand(s) %x must be a tile"),
        "{r}"
    );
}

#[test]
fn profile_availability_and_dtypes() {
    let bf = TB.replace("dtype=f32", "dtype=bf16");
    let src = format!(
        "func.func @k() {{\n  %a = pto.alloc_tile : {bf}\n  pto.tadd ins(%a, %a : {bf}, {bf}) outs(%a : {bf})\n  return\n}}\n"
    );
    let c = check_text("t.pto", &src, Some(ProfileId::A2A3));
    let r = c.diagnostics.render("t.pto", &src);
    assert!(
        r.contains("does not support element type bf16 on profile a2a3"),
        "{r}"
    );
    let c = check_text("t.pto", &src, Some(ProfileId::A5));
    assert!(!c.diagnostics.has_errors());
    let src =
        "func.func @k(%a: i64, %b: i64) {\n  pto.set_cross_core %a, %b : i64, i64\n  return\n}\n";
    let c = check_text("t.pto", src, Some(ProfileId::A5));
    assert!(c
        .diagnostics
        .render("t.pto", src)
        .contains("not available on profile a5"));
}

#[test]
fn tile_legality() {
    let big = TB
        .replace("rows=16", "rows=1024")
        .replace("cols=16", "cols=1024")
        .replace("v_row=16", "v_row=1024")
        .replace("v_col=16", "v_col=1024");
    let src = format!("func.func @k() {{\n  %a = pto.alloc_tile : {big}\n  pto.tabs ins(%a : {big}) outs(%a : {big})\n  return\n}}\n");
    let r = err(&src);
    assert!(
        r.contains("needs 4194304 bytes, more than the 196608 bytes of vec on profile a2a3"),
        "{r}"
    );
    let bad = TB.replace("v_row=16", "v_row=17");
    let src = format!("func.func @k() {{\n  %a = pto.alloc_tile : {bad}\n  pto.tabs ins(%a : {bad}) outs(%a : {bad})\n  return\n}}\n");
    assert!(err(&src).contains("v_row=17 outside 0..=16"));
}

#[test]
fn split_input_keeps_line_numbers() {
    let chunks = pto_asm::split_input("a\n// -----\nb\nc\n// -----\nd\n");
    assert_eq!(chunks.len(), 3);
    assert_eq!(chunks[1].lines().position(|l| l == "b"), Some(2));
    assert_eq!(chunks[2].lines().position(|l| l == "d"), Some(5));
}

#[test]
fn severity_is_exported() {
    let (_, d) = parse(
        "t.pto",
        "func.func @k() {\n  %x = arith.addi %y, %y : i32\n}\n",
    );
    assert!(d.iter().all(|d| d.severity == Severity::Error));
}

#[test]
fn timg2col_and_its_fmatrix_registers() {
    let mat = TB
        .replace("loc=vec", "loc=mat")
        .replace("dtype=f32", "dtype=f16")
        .replace(
            "blayout=row_major, slayout=none_box",
            "blayout=col_major, slayout=row_major",
        );
    let left = TB
        .replace("loc=vec", "loc=left")
        .replace("dtype=f32", "dtype=f16")
        .replace("slayout=none_box", "slayout=row_major");
    let body = |dst: &str, fm: &str| {
        format!(
            "func.func @k() {{\n  %c0 = arith.constant 0 : index\n  %s = pto.alloc_tile : {mat}\n  %d = pto.alloc_tile : {dst}\n  pto.setfmatrix {fm}\n  pto.set_img2col_rpt {{repeat_time = 1}}\n  pto.set_img2col_padding {{pad_value = 0.0}}\n  pto.timg2col ins(%s, %c0, %c0 : {mat}, index, index) outs(%d : {dst}) {{filter_h = 3, filter_w = 3, stride_h = 2}}\n  return\n}}\n"
        )
    };
    let fm = "{fmap_h = 4, fmap_w = 4, pad_left = 1}";
    let f = ok(&body(&left, fm));
    assert_eq!(find(&f, Opcode::TImg2col).uses().count(), 4);
    let r = err(&body(&TB.replace("dtype=f32", "dtype=f16"), fm));
    assert!(
        r.contains("loc=left destination, got loc=mat -> loc=vec"),
        "{r}"
    );
    let r = err(&body(&left.replace("dtype=f16", "dtype=f32"), fm));
    assert!(r.contains("same element type"), "{r}");
    let r = err(&body(&left, "{fmap_h = 4}"));
    assert!(r.contains("expects fmap_h and fmap_w"), "{r}");
}

#[test]
fn a_flag_op_without_its_event_or_pipes_is_an_error() {
    for (sync, bad) in [
        (r#"pto.set_flag["PIPE_MTE2", "PIPE_V"]"#, true),
        (r#"pto.wait_flag["PIPE_V", "EVENT_ID0"]"#, true),
        (r#"pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]"#, false),
        (
            "pto.wait_flag[#pto.pipe<PIPE_MTE2>, #pto.pipe<PIPE_V>, #pto.event<EVENT_ID1>]",
            false,
        ),
    ] {
        let src = format!("func.func @k() {{\n  {sync}\n  return\n}}\n");
        let c = check_text("t.pto", &src, None);
        let r = c.diagnostics.render("t.pto", &src);
        assert_eq!(
            r.contains("expects a source pipe, a destination pipe and an event id"),
            bad,
            "{sync}: {r}"
        );
    }
}

#[test]
fn a_constant_loop_step_must_be_positive() {
    for (step, bad) in [("0", true), ("-1", true), ("1", false)] {
        let src = format!(
            "func.func @k() {{\n  %c0 = arith.constant 0 : index\n  %c8 = arith.constant 8 : index\n  %s = arith.constant {step} : index\n  scf.for %i = %c0 to %c8 step %s {{\n  }}\n  return\n}}\n"
        );
        let r = check_text("t.pto", &src, None)
            .diagnostics
            .render("t.pto", &src);
        assert_eq!(
            r.contains(&format!(
                "t.pto:5:3: error: 'scf.for' constant step operand must be positive, got {step}"
            )),
            bad,
            "{r}"
        );
    }
}
