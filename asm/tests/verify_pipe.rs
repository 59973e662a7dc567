//! Cross-function tile-pipe contracts (asm/src/verify_pipe.rs).

mod common;

use pto_isa_spec::ProfileId;

fn errors(src: &str) -> Vec<(u32, String)> {
    common::errors_on(ProfileId::A5, src)
}

fn has(errs: &[(u32, String)], line: u32, text: &str) -> bool {
    errs.iter().any(|(l, m)| *l == line && m.contains(text))
}

const ACC: &str = "!pto.tile_buf<loc=acc, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=col_major, slayout=row_major, fractal=1024, pad=0>";

/// A cube kernel pushing to a vector kernel through a reserved buffer.
/// `cube_init` / `vec_init` are the attribute dictionaries of the two inits,
/// `pop_ty` the popped tile type, `push_split` / `pop_split` the split modes.
fn pair(cube_init: &str, vec_init: &str, pop_ty: &str, push_split: u32, pop_split: u32) -> String {
    format!(
        "module {{
  func.func @cube() attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{
    %z = arith.constant 0 : i32
    %buf = pto.import_reserved_buffer {{name = \"q\", peer_func = @vec}} -> i32
    pto.aic_initialize_pipe {cube_init} (c2v_consumer_buf = %buf : i32, v2c_consumer_buf = %z : i32)
    %acc = pto.alloc_tile : {ACC}
    pto.tpush_to_aiv(%acc : {ACC}) {{id = 0, split = {push_split}}}
    return
  }}
  func.func @vec() attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
    %z = arith.constant 0 : i32
    %buf = pto.reserve_buffer {{name = \"q\", size = 4096, location = #pto.address_space<vec>, auto = true}} -> i32
    pto.aiv_initialize_pipe {vec_init} (c2v_consumer_buf = %buf : i32, v2c_consumer_buf = %z : i32)
    %t = pto.tpop_from_aic {{id = 0, split = {pop_split}}} -> {pop_ty}
    pto.tfree_from_aic {{id = 0, split = {pop_split}}}
    return
  }}
}}
"
    )
}

const VEC_F32: &str = "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
const PLAIN: &str = "{id = 0, dir_mask = 1, slot_size = 1024}";

#[test]
fn a_complete_pair_is_accepted() {
    let errs = errors(&pair(PLAIN, PLAIN, VEC_F32, 0, 0));
    assert!(errs.is_empty(), "{errs:?}");
}

#[test]
fn peer_halves_agree_on_split_and_shape() {
    let errs = errors(&pair(PLAIN, PLAIN, VEC_F32, 1, 0));
    assert!(has(&errs, 13, "conflicting pipe split usage"), "{errs:?}");
    let nosplit = "{id = 0, dir_mask = 1, slot_size = 1024, nosplit = false}";
    let errs = errors(&pair(nosplit, PLAIN, VEC_F32, 0, 0));
    assert!(has(&errs, 5, "'nosplit = false' conflicts"), "{errs:?}");
    let bigger = "{id = 0, dir_mask = 1, slot_size = 2048}";
    let errs = errors(&pair(PLAIN, bigger, VEC_F32, 0, 0));
    assert!(
        has(&errs, 5, "agree on direction and pipe shape"),
        "{errs:?}"
    );
}

#[test]
fn a_reserved_buffer_pipe_needs_its_peer() {
    // the vector side never initialises its half
    let src = pair(PLAIN, PLAIN, VEC_F32, 0, 0).replace(
        "    pto.aiv_initialize_pipe {id = 0, dir_mask = 1, slot_size = 1024} (c2v_consumer_buf = %buf : i32, v2c_consumer_buf = %z : i32)\n",
        "",
    );
    let errs = errors(&src);
    assert!(
        has(&errs, 5, "complete compatible peer init pair"),
        "{errs:?}"
    );
    // a lowered pipe on an opaque address needs an explicit flag base
    let src = "func.func @k(%a: i32) attributes {pto.kernel_kind = #pto.kernel_kind<cube>} {\n  %p = pto.initialize_l2l_pipe {dir_mask = 1, slot_size = 1024, slot_num = 8}(%a : i32) -> !pto.pipe\n  return\n}\n";
    let errs = errors(src);
    assert!(
        has(&errs, 2, "when 'flag_base' is not explicit"),
        "{errs:?}"
    );
    assert!(errors(&src.replace("slot_num = 8", "slot_num = 8, flag_base = 0")).is_empty());
}

#[test]
fn peer_func_resolves_to_one_visible_function() {
    let src = |vis: &str| {
        format!(
            "module {{\n  module attributes {{pto.backend = \"vpto\"}} {{\n    func.func @c() {{\n      %i = pto.import_reserved_buffer {{name = \"q\", peer_func = @p}} -> i32\n      return\n    }}\n  }}\n  module attributes {{pto.backend = \"vpto\"}} {{\n    func.func {vis} @p() {{\n      %b = pto.reserve_buffer {{name = \"q\", size = 4096, location = #pto.address_space<vec>, auto = true}} -> i32\n      return\n    }}\n  }}\n}}\n"
        )
    };
    assert!(errors(&src("public")).is_empty());
    let errs = errors(&src("private"));
    assert!(
        has(&errs, 4, "expects 'peer_func' to reference"),
        "{errs:?}"
    );
    // the buffer must exist in the peer
    let errs = errors(&src("public").replace("name = \"q\", size", "name = \"r\", size"));
    assert!(has(&errs, 4, "matching peer reserve_buffer"), "{errs:?}");
}

#[test]
fn pipes_share_sixteen_flag_ids_per_function() {
    let mut cube = String::new();
    let mut vec = String::new();
    for i in 0..9 {
        cube += &format!("    %i{i} = pto.import_reserved_buffer {{name = \"f{i}\", peer_func = @v}} -> i32\n    %p{i} = pto.initialize_l2l_pipe {{dir_mask = 1, slot_size = 1024, slot_num = 8}}(%i{i} : i32) -> !pto.pipe\n");
        vec += &format!("    %r{i} = pto.reserve_buffer {{name = \"f{i}\", size = 4096, location = #pto.address_space<vec>, auto = true}} -> i32\n    %p{i} = pto.initialize_l2l_pipe {{dir_mask = 1, slot_size = 1024, slot_num = 8}}(%r{i} : i32) -> !pto.pipe\n");
    }
    let src = format!("module {{\n  func.func @c() {{\n{cube}    return\n  }}\n  func.func @v() {{\n{vec}    return\n  }}\n}}\n");
    let errs = errors(&src);
    assert!(
        has(&errs, 20, "fit within 16 hardware flag ids"),
        "{errs:?}"
    );
}

#[test]
fn fixpipe_consumer_matches_the_epilogue() {
    let ep = |q: &str| {
        format!("{{id = 0, dir_mask = 1, slot_size = 1024, nosplit = true, acc_push_epilogue = #pto.acc_push_epilogue<layout = nz2nd, quant = {q}, relu = no_relu>}}")
    };
    assert!(errors(&pair(&ep("no_convert"), &ep("no_convert"), VEC_F32, 0, 0)).is_empty());
    let errs = errors(&pair(&ep("no_convert"), &ep("f32_f16"), VEC_F32, 0, 0));
    assert!(
        has(&errs, 5, "acc_push_epilogue.quant to match peer consumer"),
        "{errs:?}"
    );
    let errs = errors(&pair(&ep("no_convert"), PLAIN, VEC_F32, 0, 0));
    assert!(
        has(&errs, 5, "peer consumer pipe init to also have"),
        "{errs:?}"
    );
    let errs = errors(&pair(
        &ep("no_convert"),
        &ep("no_convert"),
        &VEC_F32.replace("f32", "i32"),
        0,
        0,
    ));
    assert!(has(&errs, 13, "producer source element type"), "{errs:?}");
    let errs = errors(&pair(&ep("f32_f16"), &ep("f32_f16"), VEC_F32, 0, 0));
    assert!(
        has(
            &errs,
            13,
            "consumer element type to match acc_push_epilogue.quant f32_f16"
        ),
        "{errs:?}"
    );
    let errs = errors(&pair(
        &ep("no_convert"),
        &ep("no_convert"),
        &VEC_F32.replace("row_major, slayout", "col_major, slayout"),
        0,
        0,
    ));
    assert!(has(&errs, 13, "consumer tile layout"), "{errs:?}");
    let small = ep("no_convert").replace("1024", "512");
    let errs = errors(&pair(&ep("no_convert"), &small, VEC_F32, 0, 0));
    assert!(
        has(
            &errs,
            13,
            "consumer-side fixpipe slot_size to be at least 1024"
        ),
        "{errs:?}"
    );
    // no tpop at all: the consumer entry type is unknown
    let src = pair(&ep("no_convert"), &ep("no_convert"), VEC_F32, 0, 0).replace(
        &format!("    %t = pto.tpop_from_aic {{id = 0, split = 0}} -> {VEC_F32}\n"),
        "",
    );
    let errs = errors(&src);
    assert!(has(&errs, 13, "at least one tpop_from_aic"), "{errs:?}");
}

#[test]
fn odd_splits_need_a_gm_backed_c2v_tile_pipe() {
    let acc = |vr: u32| {
        format!("!pto.tile_buf<loc=acc, dtype=f32, rows=16, cols=16, v_row={vr}, v_col=16, blayout=col_major, slayout=row_major, fractal=1024, pad=0>")
    };
    let src = |operands: &str, vr: u32, split: u32| {
        let t = acc(vr);
        format!(
            "func.func @k(%g: !pto.ptr<f32>, %b: i32) attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %v = pto.make_tensor_view %g, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<16x16xf32>
  pto.aic_initialize_pipe {{id = 0, dir_mask = 1, slot_size = 1024}} ({operands})
  %t = pto.alloc_tile : {t}
  pto.tpush_to_aiv(%t : {t}) {{id = 0, split = {split}}}
  return
}}
"
        )
    };
    let gm = "gm_slot_tensor = %v : !pto.tensor_view<16x16xf32>, c2v_consumer_buf = %b : i32";
    let errs = errors(&src(gm, 15, 3));
    assert!(errs.is_empty(), "{errs:?}");
    let errs = errors(&src("c2v_consumer_buf = %b : i32", 15, 3));
    assert!(
        has(
            &errs,
            7,
            "only for a unidirectional C2V GM-backed tile pipe"
        ),
        "{errs:?}"
    );
    let errs = errors(&src(gm, 16, 3));
    assert!(
        has(&errs, 7, "statically odd valid-row count for split = 3"),
        "{errs:?}"
    );
    let errs = errors(&src(gm, 15, 1));
    assert!(
        has(&errs, 7, "statically even valid-row count for split = 1"),
        "{errs:?}"
    );
}

#[test]
fn a_quant_scale_is_set_in_the_pushing_block() {
    let src = |push_in_if: bool| {
        let push = format!(
            "pto.tpush_to_aiv(%acc : {acc}) {{id = 0, split = 0}}",
            acc = ACC.replace("f32", "i32")
        );
        let body = if push_in_if {
            format!("    scf.if %t {{\n      {push}\n    }}\n")
        } else {
            format!("    {push}\n")
        };
        format!(
            "func.func @k(%b: i32, %s: f32, %t: i1) attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{
    pto.aic_initialize_pipe {{id = 0, dir_mask = 1, slot_size = 512, nosplit = true, acc_push_epilogue = #pto.acc_push_epilogue<layout = nz2nd, quant = deqf16_scalar, relu = no_relu>}} (c2v_consumer_buf = %b : i32)
    %acc = pto.alloc_tile : {acc}
    pto.set_quant_scalar(%s : f32) {{id = 0}}
{body}    return
}}
",
            acc = ACC.replace("f32", "i32")
        )
    };
    let errs = errors(&src(true));
    assert!(
        has(
            &errs,
            6,
            "expects a preceding pto.set_quant_scalar with id = 0 in the same block"
        ),
        "{errs:?}"
    );
    let errs = errors(&src(false));
    assert!(
        !errs.iter().any(|(_, m)| m.contains("preceding")),
        "{errs:?}"
    );
}

#[test]
fn a_global_tensor_entry_is_one_gm_slot() {
    let src = |entry: &str| {
        format!(
            "func.func @k(%g: !pto.tensor_view<16x16xf32>) attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{
  %p = \"pto.initialize_l2g2l_pipe\"(%g) <{{dir_mask = 1 : i8, slot_size = 1024 : i32, slot_num = 8 : i32, flag_base = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0>}}> : (!pto.tensor_view<16x16xf32>) -> !pto.pipe
  %e = pto.declare_global -> !pto.tensor_view<{entry}>
  pto.talloc(%e, %p : !pto.tensor_view<{entry}>, !pto.pipe) {{split = 0}}
  return
}}
"
        )
    };
    assert!(
        errors(&src("16x16xf32")).is_empty(),
        "{:?}",
        errors(&src("16x16xf32"))
    );
    let errs = errors(&src("16x32xf32"));
    assert!(
        has(
            &errs,
            4,
            "entry dimension 1 (32) to match initialize_l2g2l_pipe gm_addr dimension 16"
        ),
        "{errs:?}"
    );
    let errs = errors(&src("16x16xf16"));
    assert!(has(&errs, 4, "element type"), "{errs:?}");
}

#[test]
fn gm_slot_pipes_pair_by_id_for_split_use() {
    let half = |kind: &str, init: &str, ops: &str| {
        format!("  func.func @{kind}(%g: !pto.tensor_view<4x64x128xf32>) attributes {{pto.kernel_kind = #pto.kernel_kind<{kind}>}} {{\n    pto.{init} {{id = 0, dir_mask = 1, slot_size = 131072}} (gm_slot_tensor = %g : !pto.tensor_view<4x64x128xf32>)\n{ops}    return\n  }}\n")
    };
    let src = |split: u32| {
        format!(
            "module {{\n{}{}}}\n",
            half("cube", "aic_initialize_pipe", "    %e = pto.talloc_to_aiv {id = 0, split = 0} -> !pto.tensor_view<4x64x128xf32>\n    pto.tpush_to_aiv(%e : !pto.tensor_view<4x64x128xf32>) {id = 0, split = 0}\n"),
            half("vector", "aiv_initialize_pipe", &format!("    %e = pto.tpop_from_aic {{id = 0, split = {split}}} -> !pto.tensor_view<4x64x128xf32>\n    pto.tfree_from_aic(%e : !pto.tensor_view<4x64x128xf32>) {{id = 0, split = {split}}}\n"))
        )
    };
    assert!(errors(&src(0)).is_empty(), "{:?}", errors(&src(0)));
    let errs = errors(&src(1));
    assert!(has(&errs, 9, "conflicting pipe split usage"), "{errs:?}");
}

#[test]
fn quant_setters_feed_a_fixpipe_pipe_of_their_family() {
    let src = |quant: &str, set: &str| {
        format!(
            "func.func @k(%b: i32, %s: f32, %h: f16) attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{
  pto.aic_initialize_pipe {{id = 0, dir_mask = 1, slot_size = 512, nosplit = true, acc_push_epilogue = #pto.acc_push_epilogue<layout = nz2nd, quant = {quant}, relu = no_relu>}} (c2v_consumer_buf = %b : i32)
  {set}
  return
}}
"
        )
    };
    let setter = |src: &str| -> Vec<(u32, String)> {
        errors(src)
            .into_iter()
            .filter(|(_, m)| m.starts_with("'pto.set_quant"))
            .collect()
    };
    assert!(setter(&src(
        "deqf16_scalar",
        "pto.set_quant_scalar(%s : f32) {id = 0}"
    ))
    .is_empty());
    let errs = errors(&src(
        "deqf16_vec",
        "pto.set_quant_scalar(%s : f32) {id = 0}",
    ));
    assert!(has(&errs, 3, "scalar quantization mode"), "{errs:?}");
    let errs = errors(&src(
        "deqf16_scalar",
        "pto.set_quant_scalar(%s : f32) {id = 1}",
    ));
    assert!(has(&errs, 3, "expects 'id' = 1 to match"), "{errs:?}");
    let errs = errors(&src(
        "deqf16_scalar",
        "pto.set_quant_scalar(%h : f16) {id = 0}",
    ));
    assert!(has(&errs, 3, "expects 'scale' to be f32"), "{errs:?}");
}

#[test]
fn eight_bit_fixpipe_results_name_their_signedness() {
    let ep = |q: &str| {
        format!("{{id = 0, dir_mask = 1, slot_size = 1024, nosplit = true, acc_push_epilogue = #pto.acc_push_epilogue<layout = nz2nd, quant = {q}, relu = no_relu>}}")
    };
    let pop = |dt: &str| VEC_F32.replace("f32", dt);
    let i32_pair = |q: &str, dt: &str| {
        pair(&ep(q), &ep(q), &pop(dt), 0, 0).replace(
            "dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=col_major",
            "dtype=i32, rows=16, cols=16, v_row=16, v_col=16, blayout=col_major",
        )
    };
    let elem = |src: &str| {
        errors(src)
            .iter()
            .any(|(_, m)| m.contains("consumer element type"))
    };
    assert!(!elem(&i32_pair("req8_scalar", "ui8")));
    assert!(!elem(&i32_pair("req8_vec", "si8")));
    let errs = errors(&i32_pair("req8_scalar", "i8"));
    assert!(has(&errs, 13, "quant req8_scalar"), "{errs:?}");
    let errs = errors(&i32_pair("req8_vec", "ui8"));
    assert!(has(&errs, 13, "quant req8_vec"), "{errs:?}");
}

#[test]
fn reserved_buffers_are_placed_one_way() {
    let src = |attrs: &str| {
        format!("func.func @k() {{\n  %b = pto.reserve_buffer {{name = \"q\", {attrs}}} -> i32\n  return\n}}\n")
    };
    let ok = "size = 4096, location = #pto.address_space<vec>, auto = true";
    assert!(errors(&src(ok)).is_empty(), "{:?}", errors(&src(ok)));
    assert!(errors(&src(
        "size = 4096, location = #pto.address_space<vec>, auto = false, base = 0"
    ))
    .is_empty());
    for (attrs, why) in [
        (
            "size = 4096, location = #pto.address_space<vec>, auto = true, base = 0",
            "unexpected 'base' on auto reserve_buffer",
        ),
        (
            "size = 4096, location = #pto.address_space<vec>, auto = false",
            "expects 'base' when 'auto' is false",
        ),
        (
            "size = 0, location = #pto.address_space<vec>, auto = true",
            "'size' to be greater than 0",
        ),
        (
            "size = 4096, location = #pto.address_space<acc>, auto = true",
            "'location' to be",
        ),
    ] {
        let errs = errors(&src(attrs));
        assert!(has(&errs, 2, why), "{attrs}: {errs:?}");
    }
    let twice = format!(
        "func.func @k() {{\n  %a = pto.reserve_buffer {{name = \"q\", {ok}}} -> i32\n  %b = pto.reserve_buffer {{name = \"q\", {ok}}} -> i32\n  return\n}}\n"
    );
    assert!(has(&errors(&twice), 3, "unique within the function"));
}
