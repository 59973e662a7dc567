//! Illegal operands of the irregular tile ops (index generators, gathers and
//! scatters, quantization, sorts, reshapes, GM gathers) fault with a message
//! that names the op and the problem, never a panic.

use pto_vm::{load_text, run_kernel, Arg, CheckMode, Config, Finished, RunError, Sched};

fn tile(dt: &str, rows: i64, cols: i64, vr: i64, vc: i64) -> String {
    format!(
        "!pto.tile_buf<loc=vec, dtype={dt}, rows={rows}, cols={cols}, v_row={vr}, v_col={vc}, blayout=row_major, slayout=none_box, fractal=512, pad=0>"
    )
}

/// Runs a kernel whose entry takes `params` (pointer arguments, each bound to
/// 4 KiB of zeros) with `body` as its code.
fn run(params: &str, body: &str) -> Finished {
    let src = format!(
        r#"module attributes {{pto.target_arch = "a5"}} {{
  func.func @k({params}) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
{body}
    return
  }}
}}"#
    );
    let k = load_text("t.pto", &src, None).unwrap_or_else(|e| panic!("does not load:\n{e}\n{src}"));
    let cfg = Config {
        profile: k.profile,
        sched: Sched::InOrder,
        check: CheckMode::Warn,
        max_steps: 1_000_000,
        ..Config::default()
    };
    let n = params.matches("!pto.ptr").count();
    let args: Vec<Arg> = (0..n).map(|_| Arg::Buffer(vec![0; 4096])).collect();
    run_kernel(&k, &cfg, None, &args).expect("runs")
}

fn fault(f: &Finished) -> String {
    match &f.out.error {
        Some(RunError::Fault { message, .. }) => message.clone(),
        other => panic!("expected a fault, got {other:?}"),
    }
}

fn sync(a: &str, b: &str) -> String {
    format!(
        "    pto.set_flag[\"PIPE_{a}\", \"PIPE_{b}\", \"EVENT_ID0\"]\n    pto.wait_flag[\"PIPE_{a}\", \"PIPE_{b}\", \"EVENT_ID0\"]\n"
    )
}

#[test]
fn tgather_with_an_index_past_the_source_faults() {
    let (i, s, d) = (
        tile("i32", 1, 64, 1, 64),
        tile("f32", 1, 32, 1, 32),
        tile("f32", 1, 64, 1, 64),
    );
    let body = format!(
        "    %z = arith.constant 0 : i32\n    %i = pto.alloc_tile : {i}\n    %s = pto.alloc_tile : {s}\n    %t = pto.alloc_tile : {i}\n    %d = pto.alloc_tile : {d}\n    pto.tci ins(%z : i32) outs(%i : {i})\n{}    pto.tgather ins(%s, %i, %t : {s}, {i}, {i}) outs(%d : {d})",
        sync("S", "V")
    );
    let m = fault(&run("", &body));
    assert!(m.contains("tgather") && m.contains("index 32"), "{m}");
}

#[test]
fn tci_with_several_valid_rows_faults() {
    let t = tile("i32", 2, 16, 2, 16);
    let body = format!(
        "    %z = arith.constant 0 : i32\n    %t = pto.alloc_tile : {t}\n    pto.tci ins(%z : i32) outs(%t : {t})"
    );
    let m = fault(&run("", &body));
    assert!(m.contains("tci") && m.contains("2 valid rows"), "{m}");
}

#[test]
fn tsort32_without_tmp_needs_whole_blocks() {
    let (s, i, d) = (
        tile("f32", 1, 48, 1, 40),
        tile("ui32", 1, 48, 1, 40),
        tile("f32", 1, 96, 1, 96),
    );
    let body = format!(
        "    %s = pto.alloc_tile : {s}\n    %i = pto.alloc_tile : {i}\n    %d = pto.alloc_tile : {d}\n    pto.tsort32 ins(%s, %i : {s}, {i}) outs(%d : {d})"
    );
    let m = fault(&run("", &body));
    assert!(m.contains("tsort32") && m.contains("multiple of 32"), "{m}");
}

#[test]
fn tmrgsort_rejects_a_block_length_that_is_not_a_multiple_of_64() {
    let t = tile("f32", 1, 256, 1, 256);
    let body = format!(
        "    %bl = arith.constant 32 : i32\n    %s = pto.alloc_tile : {t}\n    %d = pto.alloc_tile : {t}\n    pto.tmrgsort ins(%s, %bl : {t}, i32) outs(%d : {t})"
    );
    let m = fault(&run("", &body));
    assert!(m.contains("tmrgsort") && m.contains("blockLen 32"), "{m}");
}

#[test]
fn tquant_asym_without_an_offset_faults() {
    let (s, p, d) = (
        tile("f32", 4, 32, 4, 32),
        tile("f32", 4, 8, 4, 1),
        tile("ui8", 4, 32, 4, 32),
    );
    let body = format!(
        "    %s = pto.alloc_tile : {s}\n    %p = pto.alloc_tile : {p}\n    %d = pto.alloc_tile : {d}\n    pto.tquant ins(%s, %p : {s}, {p}) outs(%d : {d}) {{quant_type = #pto<quant_type INT8_ASYM>}}"
    );
    let src = format!("module attributes {{pto.target_arch = \"a5\"}} {{\n  func.func @k() attributes {{pto.entry}} {{\n{body}\n    return\n  }}\n}}");
    // the verifier may already reject it; otherwise the VM faults
    if let Err(e) = load_text("t.pto", &src, None) {
        assert!(e.to_string().contains("offset"), "{e}");
        return;
    }
    let m = fault(&run("", &body));
    assert!(m.contains("tquant") && m.contains("offset"), "{m}");
}

#[test]
fn treshape_to_a_different_byte_size_faults() {
    let (a, b) = (tile("f32", 16, 16, 16, 16), tile("f32", 8, 16, 8, 16));
    let body = format!("    %a = pto.alloc_tile : {a}\n    %b = pto.treshape %a : {a} -> {b}");
    match load_text(
        "t.pto",
        &format!("module attributes {{pto.target_arch = \"a5\"}} {{\n  func.func @k() attributes {{pto.entry}} {{\n{body}\n    return\n  }}\n}}"),
        None,
    ) {
        // the verifier may already reject it; otherwise the VM faults
        Err(e) => assert!(e.to_string().contains("treshape"), "{e}"),
        Ok(_) => {
            let m = fault(&run("", &body));
            assert!(m.contains("treshape") && m.contains("bytes"), "{m}");
        }
    }
}

#[test]
fn mgather_with_an_undefined_out_of_range_index_faults() {
    let (i, d) = (tile("i32", 1, 8, 1, 8), tile("f32", 8, 32, 8, 32));
    let body = format!(
        "    %c4 = arith.constant 4 : index\n    %c32 = arith.constant 32 : index\n    %z = arith.constant 2 : i32\n    %v = pto.make_tensor_view %tab, shape = [%c4, %c32], strides = [%c32, %c1] : !pto.tensor_view<4x32xf32>\n    %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c4, %c32] : !pto.tensor_view<4x32xf32> -> !pto.partition_tensor_view<4x32xf32>\n    %i = pto.alloc_tile : {i}\n    %d = pto.alloc_tile : {d}\n    pto.tci ins(%z : i32) outs(%i : {i})\n{}    pto.mgather ins(%p, %i : !pto.partition_tensor_view<4x32xf32>, {i}) outs(%d : {d}) {{coalesce = #pto<coalesce row>}}",
        sync("S", "V")
    );
    let m = fault(&run("%tab: !pto.ptr<f32>", &body));
    assert!(m.contains("mgather") && m.contains("index 4"), "{m}");
}

/// No backend of pto-isa gathers from a DN table (ND everywhere, NZ on
/// A2/A3): the fault says so instead of calling it unimplemented.
#[test]
fn mgather_from_a_dn_table_is_refused_as_not_in_the_isa() {
    let (i, d) = (tile("i32", 1, 8, 1, 8), tile("f32", 8, 8, 8, 4));
    let body = format!(
        "    %c4 = arith.constant 4 : index\n    %c32 = arith.constant 32 : index\n    %z = arith.constant 0 : i32\n    %v = pto.make_tensor_view %tab, shape = [%c32, %c4], strides = [%c1, %c32] {{layout = #pto.layout<dn>}} : !pto.tensor_view<32x4xf32>\n    %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c32, %c4] : !pto.tensor_view<32x4xf32> -> !pto.partition_tensor_view<32x4xf32>\n    %i = pto.alloc_tile : {i}\n    %d = pto.alloc_tile : {d}\n    pto.tci ins(%z : i32) outs(%i : {i})\n{}    pto.mgather ins(%p, %i : !pto.partition_tensor_view<32x4xf32>, {i}) outs(%d : {d}) {{coalesce = #pto<coalesce row>}}",
        sync("S", "V")
    );
    let m = fault(&run("%tab: !pto.ptr<f32>", &body));
    assert!(m.contains("DN") && m.contains("ND tables"), "{m}");
}

fn mat(dt: &str, rows: i64, cols: i64, bl: &str, sl: &str) -> String {
    format!(
        "!pto.tile_buf<loc=mat, dtype={dt}, rows={rows}, cols={cols}, v_row={rows}, v_col={cols}, blayout={bl}, slayout={sl}, fractal=512, pad=0>"
    )
}

/// GM views over the first two pointer arguments: a 32x16 f16 table `%p`
/// and a 16x16 i32 index array `%q`, plus a 1x64 f16 scratch `%s`.
const GM2L1_VIEWS: &str = "    %c16 = arith.constant 16 : index\n    %c32 = arith.constant 32 : index\n    %c64 = arith.constant 64 : index\n    %v = pto.make_tensor_view %tab, shape = [%c32, %c16], strides = [%c16, %c1] : !pto.tensor_view<32x16xf16>\n    %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c32, %c16] : !pto.tensor_view<32x16xf16> -> !pto.partition_tensor_view<32x16xf16>\n    %w = pto.make_tensor_view %ix, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<16x16xi32>\n    %q = pto.partition_view %w, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<16x16xi32> -> !pto.partition_tensor_view<16x16xi32>\n    %x = pto.make_tensor_view %scr, shape = [%c1, %c64], strides = [%c64, %c1] : !pto.tensor_view<1x64xf16>\n    %s = pto.partition_view %x, offsets = [%c0, %c0], sizes = [%c1, %c64] : !pto.tensor_view<1x64xf16> -> !pto.partition_tensor_view<1x64xf16>\n";
const GM2L1_PARAMS: &str = "%tab: !pto.ptr<f16>, %ix: !pto.ptr<i32>, %scr: !pto.ptr<f16>";

#[test]
fn gm2l1_mgather_needs_an_nz_mat_destination() {
    let d = mat("f16", 16, 16, "row_major", "none_box");
    let body = format!(
        "{GM2L1_VIEWS}    %d = pto.alloc_tile : {d}\n    pto.mgather ins(%p, %q : !pto.partition_tensor_view<32x16xf16>, !pto.partition_tensor_view<16x16xi32>) outs(%d : {d}) {{coalesce = #pto<coalesce row>}}"
    );
    let m = fault(&run(GM2L1_PARAMS, &body));
    assert!(m.contains("GM->L1") && m.contains("NZ"), "{m}");
}

#[test]
fn gm2l1_mgather_elem_needs_a_scratch_of_the_whole_tile() {
    // the 16x16 tile needs 256 scratch elements; the view holds 64
    let d = mat("f16", 16, 16, "col_major", "row_major");
    let body = format!(
        "{GM2L1_VIEWS}    %d = pto.alloc_tile : {d}\n    pto.mgather ins(%p, %q, %s : !pto.partition_tensor_view<32x16xf16>, !pto.partition_tensor_view<16x16xi32>, !pto.partition_tensor_view<1x64xf16>) outs(%d : {d}) {{coalesce = #pto<coalesce elem>}}"
    );
    let m = fault(&run(GM2L1_PARAMS, &body));
    assert!(m.contains("scratch") && m.contains("256"), "{m}");
}

#[test]
fn gm2l1_mgather_row_reads_indices_from_gm() {
    // all-zero indices gather table row 0 (zeros) into every row: runs clean
    let d = mat("f16", 16, 16, "col_major", "row_major");
    let body = format!(
        "{GM2L1_VIEWS}    %d = pto.alloc_tile : {d}\n    pto.mgather ins(%p, %q : !pto.partition_tensor_view<32x16xf16>, !pto.partition_tensor_view<16x16xi32>) outs(%d : {d}) {{coalesce = #pto<coalesce row>}}"
    );
    let f = run(GM2L1_PARAMS, &body);
    assert!(f.out.error.is_none(), "{:?}", f.out.error);
}

#[test]
fn mscatter_from_a_mat_tile_is_rejected() {
    let s = mat("f16", 16, 16, "col_major", "row_major");
    let i = tile("i32", 1, 16, 1, 16);
    let body = format!(
        "{GM2L1_VIEWS}    %d = pto.alloc_tile : {s}\n    %i = pto.alloc_tile : {i}\n    pto.mscatter ins(%d, %i : {s}, {i}) outs(%p : !pto.partition_tensor_view<32x16xf16>) {{coalesce = #pto<coalesce row>}}"
    );
    let m = fault(&run(GM2L1_PARAMS, &body));
    assert!(m.contains("mscatter") && m.contains("no L1 form"), "{m}");
}
