//! Cube <-> vector FIFOs (`tpush_to_aiv` / `tpop_from_aic` / `tfree_from_aic`
//! and the vector-to-cube direction): data hand-off, blocking on the slot
//! count, deadlocks naming the pipe, and the checker's view of the slots.

use pto_vm::{load_text, run_kernel, Arg, Config, Finished, Sched};

const CASE: &str = "../conformance/cases/mixed/fifo_matmul_relu_f32_32x128";

fn case_file(name: &str) -> Vec<u8> {
    let p = format!("{}/{CASE}/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn kernel_text() -> String {
    String::from_utf8(case_file("kernel.pto")).expect("utf-8")
}

fn run(src: &str, sched: Sched) -> Finished {
    let k = load_text("fifo.pto", src, None).unwrap_or_else(|e| panic!("{e}"));
    let cfg = Config {
        profile: k.profile,
        sched,
        max_steps: 1_000_000,
        ..Config::default()
    };
    let args = [
        Arg::Buffer(case_file("v1.bin")),
        Arg::Buffer(case_file("v2.bin")),
        Arg::Buffer(vec![0; 32 * 128 * 4]),
    ];
    run_kernel(&k, &cfg, None, &args).expect("runs")
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn kinds(f: &Finished) -> Vec<&'static str> {
    f.out.diags.list.iter().map(|d| d.kind.name()).collect()
}

fn messages(f: &Finished) -> String {
    f.out
        .diags
        .list
        .iter()
        .map(|d| d.message.clone())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn cube_pushes_matmul_tiles_to_both_subblocks() {
    let want = f32s(&case_file("golden_v3.bin"));
    for sched in [
        Sched::InOrder,
        Sched::Timed,
        Sched::Shuffle { seed: 5 },
        Sched::Shuffle { seed: 17 },
    ] {
        let f = run(&kernel_text(), sched);
        assert!(f.out.error.is_none(), "{sched:?}: {:?}", f.out.error);
        assert!(kinds(&f).is_empty(), "{sched:?}: {}", messages(&f));
        let got = f32s(&f.buffers[2]);
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                (g - w).abs() <= 1e-5 + 1e-5 * w.abs(),
                "{sched:?} [{i}]: {g} vs {w}"
            );
        }
    }
}

#[test]
fn a_pop_nobody_pushes_is_a_deadlock_naming_the_pipe() {
    // the cube pushes 3 entries, the subblocks pop 4
    let src = kernel_text().replacen(
        "%c4 = arith.constant 4 : index",
        "%c4 = arith.constant 3 : index",
        1,
    );
    let f = run(&src, Sched::InOrder);
    assert_eq!(f.out.error, Some(pto_vm::machine::RunError::Deadlock));
    assert_eq!(kinds(&f), ["deadlock"]);
    let m = messages(&f);
    assert!(
        m.contains("tpop on FIFO pipe 0 (cube to vector) for entry 3"),
        "{m}"
    );
}

#[test]
fn a_push_without_a_free_slot_is_a_deadlock() {
    // nobody frees: the third push finds both slots taken
    let src: String = kernel_text()
        .lines()
        .filter(|l| !l.contains("tfree_from_aic"))
        .map(|l| format!("{l}\n"))
        .collect();
    let f = run(&src, Sched::InOrder);
    assert_eq!(f.out.error, Some(pto_vm::machine::RunError::Deadlock));
    let m = messages(&f);
    assert!(
        m.contains("tpush on FIFO pipe 0 (cube to vector) for a free slot"),
        "{m}"
    );
}

#[test]
fn reading_a_slot_after_tfree_is_a_race() {
    // tfree before the relu that reads the slot: the cube's third push may
    // overwrite slot 0 while the relu still reads it
    let text = kernel_text();
    let mut lines: Vec<&str> = text.lines().collect();
    let r = lines
        .iter()
        .position(|l| l.contains("pto.trelu"))
        .expect("relu");
    assert!(lines[r + 1].contains("tfree_from_aic"));
    lines.swap(r, r + 1);
    let src = lines.join("\n");
    let f = run(&src, Sched::InOrder);
    assert!(kinds(&f).contains(&"race"), "{}", messages(&f));
    let m = messages(&f);
    assert!(m.contains("tpush_to_aiv") && m.contains("trelu"), "{m}");
}

const V2C: &str = r#"module attributes {pto.target_arch = "a5"} {
  func.func @v2c(%x: !pto.ptr<f32>, %b: !pto.ptr<f32>, %y: !pto.ptr<f32>) attributes {pto.entry} {
    func.call @v2c_cube(%b, %y) : (!pto.ptr<f32>, !pto.ptr<f32>) -> ()
    func.call @v2c_vector(%x) : (!pto.ptr<f32>) -> ()
    return
  }
  func.func private @v2c_cube(%b: !pto.ptr<f32>, %y: !pto.ptr<f32>) attributes {pto.kernel_kind = #pto.kernel_kind<cube>} {
    %c0_i32 = arith.constant 0 : i32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %fifo = pto.reserve_buffer {name = "v2c_fifo", size = 32768, location = #pto.address_space<mat>, auto = true} -> i32
    pto.aic_initialize_pipe {id = 0, dir_mask = 2, slot_size = 4096}
      (c2v_consumer_buf = %c0_i32 : i32, v2c_consumer_buf = %fifo : i32)
    %bv = pto.make_tensor_view %b, shape = [%c32, %c32], strides = [%c32, %c1] : !pto.tensor_view<32x32xf32>
    %bp = pto.partition_view %bv, offsets = [%c0, %c0], sizes = [%c32, %c32] : !pto.tensor_view<32x32xf32> -> !pto.partition_tensor_view<32x32xf32>
    %yv = pto.make_tensor_view %y, shape = [%c32, %c32], strides = [%c32, %c1] : !pto.tensor_view<32x32xf32>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c32, %c32] : !pto.tensor_view<32x32xf32> -> !pto.partition_tensor_view<32x32xf32>
    %mb = pto.alloc_tile : !pto.tile_buf<loc=mat, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=col_major, slayout=row_major, fractal=512, pad=0>
    %la = pto.alloc_tile : !pto.tile_buf<loc=left, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=col_major, slayout=row_major, fractal=512, pad=0>
    %rb = pto.alloc_tile : !pto.tile_buf<loc=right, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=row_major, slayout=col_major, fractal=512, pad=0>
    %acc = pto.alloc_tile : !pto.tile_buf<loc=acc, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=col_major, slayout=row_major, fractal=1024, pad=0>
    pto.tload ins(%bp : !pto.partition_tensor_view<32x32xf32>) outs(%mb : !pto.tile_buf<loc=mat, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=col_major, slayout=row_major, fractal=512, pad=0>)
    pto.set_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]
    %ma = pto.tpop_from_aiv {id = 0, split = 1} -> !pto.tile_buf<loc=mat, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=col_major, slayout=row_major, fractal=512, pad=0>
    pto.tmov ins(%ma : !pto.tile_buf<loc=mat, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=col_major, slayout=row_major, fractal=512, pad=0>) outs(%la : !pto.tile_buf<loc=left, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=col_major, slayout=row_major, fractal=512, pad=0>)
    pto.tfree_from_aiv {id = 0, split = 1}
    pto.tmov ins(%mb : !pto.tile_buf<loc=mat, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=col_major, slayout=row_major, fractal=512, pad=0>) outs(%rb : !pto.tile_buf<loc=right, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=row_major, slayout=col_major, fractal=512, pad=0>)
    pto.set_flag["PIPE_MTE1", "PIPE_M", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE1", "PIPE_M", "EVENT_ID0"]
    pto.tmatmul ins(%la, %rb : !pto.tile_buf<loc=left, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=col_major, slayout=row_major, fractal=512, pad=0>, !pto.tile_buf<loc=right, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=row_major, slayout=col_major, fractal=512, pad=0>) outs(%acc : !pto.tile_buf<loc=acc, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=col_major, slayout=row_major, fractal=1024, pad=0>)
    pto.set_flag["PIPE_M", "PIPE_FIX", "EVENT_ID0"]
    pto.wait_flag["PIPE_M", "PIPE_FIX", "EVENT_ID0"]
    pto.tstore ins(%acc : !pto.tile_buf<loc=acc, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=col_major, slayout=row_major, fractal=1024, pad=0>) outs(%yp : !pto.partition_tensor_view<32x32xf32>)
    return
  }
  func.func private @v2c_vector(%x: !pto.ptr<f32>) attributes {pto.kernel_kind = #pto.kernel_kind<vector>} {
    %c0_i32 = arith.constant 0 : i32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %fifo = pto.import_reserved_buffer {name = "v2c_fifo", peer_func = @v2c_cube} -> i32
    pto.aiv_initialize_pipe {id = 0, dir_mask = 2, slot_size = 4096}
      (c2v_consumer_buf = %c0_i32 : i32, v2c_consumer_buf = %fifo : i32)
    %sub64 = pto.get_subblock_idx
    %sub = arith.index_cast %sub64 : i64 to index
    %row = arith.muli %sub, %c16 : index
    %xv = pto.make_tensor_view %x, shape = [%c32, %c32], strides = [%c32, %c1] : !pto.tensor_view<32x32xf32>
    %xp = pto.partition_view %xv, offsets = [%row, %c0], sizes = [%c16, %c32] : !pto.tensor_view<32x32xf32> -> !pto.partition_tensor_view<16x32xf32>
    %t = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=32, v_row=16, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    pto.tload ins(%xp : !pto.partition_tensor_view<16x32xf32>) outs(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=32, v_row=16, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    pto.set_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.tpush_to_aic(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=32, v_row=16, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>) {id = 0, split = 1}
    return
  }
}"#;

#[test]
fn vector_subblocks_push_halves_the_cube_pops_as_one_matrix() {
    let x: Vec<f32> = (0..32 * 32).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
    let b: Vec<f32> = (0..32 * 32).map(|i| ((i * 5) % 11) as f32 - 5.0).collect();
    let mut want = vec![0f32; 32 * 32];
    for r in 0..32 {
        for c in 0..32 {
            want[r * 32 + c] = (0..32).map(|k| x[r * 32 + k] * b[k * 32 + c]).sum();
        }
    }
    let bytes = |v: &[f32]| v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>();
    let k = load_text("v2c.pto", V2C, None).unwrap_or_else(|e| panic!("{e}"));
    for sched in [Sched::InOrder, Sched::Shuffle { seed: 9 }] {
        let cfg = Config {
            profile: k.profile,
            sched,
            ..Config::default()
        };
        let args = [
            Arg::Buffer(bytes(&x)),
            Arg::Buffer(bytes(&b)),
            Arg::Buffer(vec![0; 32 * 32 * 4]),
        ];
        let f = run_kernel(&k, &cfg, None, &args).expect("runs");
        assert!(f.out.error.is_none(), "{:?}", f.out.error);
        assert!(kinds(&f).is_empty(), "{}", messages(&f));
        assert_eq!(f32s(&f.buffers[2]), want, "{sched:?}");
    }
}

#[test]
fn gm_entries_hand_off_through_talloc_and_tpop_views() {
    // the case kernel with a GM FIFO: the cube stores each product into the
    // slot talloc_to_aiv hands out, each subblock loads its rows from the
    // popped slot view
    let acc = "!pto.tile_buf<loc=acc, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=col_major, slayout=row_major, fractal=1024, pad=0>";
    let vec = "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=32, v_row=16, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
    let text = kernel_text()
        .replace(
            "%a: !pto.ptr<f32>, %b: !pto.ptr<f32>, %c: !pto.ptr<f32>) attributes {pto.entry}",
            "%a: !pto.ptr<f32>, %b: !pto.ptr<f32>, %c: !pto.ptr<f32>, %ws: !pto.ptr<f32>) attributes {pto.entry}",
        )
        .replace(
            "func.call @fifo_cube(%a, %b) : (!pto.ptr<f32>, !pto.ptr<f32>) -> ()",
            "func.call @fifo_cube(%a, %b, %ws) : (!pto.ptr<f32>, !pto.ptr<f32>, !pto.ptr<f32>) -> ()",
        )
        .replace(
            "func.call @fifo_vector(%c) : (!pto.ptr<f32>) -> ()",
            "func.call @fifo_vector(%c, %ws) : (!pto.ptr<f32>, !pto.ptr<f32>) -> ()",
        )
        .replace(
            "@fifo_cube(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>)",
            "@fifo_cube(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>, %ws: !pto.ptr<f32>)",
        )
        .replace(
            "@fifo_vector(%c: !pto.ptr<f32>)",
            "@fifo_vector(%c: !pto.ptr<f32>, %ws: !pto.ptr<f32>)",
        )
        .replace(
            "    %fifo = pto.import_reserved_buffer {name = \"c2v_fifo\", peer_func = @fifo_vector} -> i32\n",
            "",
        )
        .replace(
            "    %fifo = pto.reserve_buffer {name = \"c2v_fifo\", size = 8192, location = #pto.address_space<vec>, auto = true} -> i32\n",
            "",
        )
        .replace(
            "(c2v_consumer_buf = %fifo : i32, v2c_consumer_buf = %c0_i32 : i32)",
            "(gm_slot_tensor = %slots : !pto.tensor_view<32x32xf32>)",
        )
        .replace(
            "    pto.aic_initialize_pipe",
            "    %slots = pto.make_tensor_view %ws, shape = [%c32, %c32], strides = [%c32, %c1] : !pto.tensor_view<32x32xf32>\n    pto.aic_initialize_pipe",
        )
        .replace(
            "    pto.aiv_initialize_pipe",
            "    %slots = pto.make_tensor_view %ws, shape = [%c32, %c32], strides = [%c32, %c1] : !pto.tensor_view<32x32xf32>\n    pto.aiv_initialize_pipe",
        )
        .replace(
            &format!("      pto.tpush_to_aiv(%acc : {acc}) {{id = 0, split = 1}}"),
            &format!(
                "      %e = pto.talloc_to_aiv {{id = 0, split = 0}} -> !pto.tensor_view<32x32xf32>\n      %ep = pto.partition_view %e, offsets = [%c0, %c0], sizes = [%c32, %c32] : !pto.tensor_view<32x32xf32> -> !pto.partition_tensor_view<32x32xf32>\n      pto.tstore ins(%acc : {acc}) outs(%ep : !pto.partition_tensor_view<32x32xf32>)\n      pto.tpush_to_aiv(%e : !pto.tensor_view<32x32xf32>) {{id = 0, split = 0}}"
            ),
        )
        .replace(
            &format!("      %t = pto.tpop_from_aic {{id = 0, split = 1}} -> {vec}"),
            &format!(
                "      %e = pto.tpop_from_aic {{id = 0, split = 0}} -> !pto.tensor_view<32x32xf32>\n      %ep = pto.partition_view %e, offsets = [%row, %c0], sizes = [%c16, %c32] : !pto.tensor_view<32x32xf32> -> !pto.partition_tensor_view<16x32xf32>\n      %t = pto.alloc_tile : {vec}\n      pto.tload ins(%ep : !pto.partition_tensor_view<16x32xf32>) outs(%t : {vec})\n      pto.set_flag[\"PIPE_MTE2\", \"PIPE_V\", \"EVENT_ID1\"]\n      pto.wait_flag[\"PIPE_MTE2\", \"PIPE_V\", \"EVENT_ID1\"]"
            ),
        )
        .replace(
            "      pto.tfree_from_aic {id = 0, split = 1}",
            "      pto.tfree_from_aic(%e : !pto.tensor_view<32x32xf32>) {id = 0, split = 0}",
        );
    assert!(text.contains("talloc_to_aiv") && text.contains("tload ins(%ep"));
    let k = load_text("gm_fifo.pto", &text, None).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let want = f32s(&case_file("golden_v3.bin"));
    for sched in [Sched::InOrder, Sched::Shuffle { seed: 3 }] {
        let cfg = Config {
            profile: k.profile,
            sched,
            ..Config::default()
        };
        let args = [
            Arg::Buffer(case_file("v1.bin")),
            Arg::Buffer(case_file("v2.bin")),
            Arg::Buffer(vec![0; 32 * 128 * 4]),
            Arg::Buffer(vec![0; 2 * 32 * 32 * 4]),
        ];
        let f = run_kernel(&k, &cfg, None, &args).expect("runs");
        assert!(f.out.error.is_none(), "{:?}", f.out.error);
        let got = f32s(&f.buffers[2]);
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                (g - w).abs() <= 1e-5 + 1e-5 * w.abs(),
                "{sched:?} [{i}]: {g} vs {w}"
            );
        }
        assert!(kinds(&f).is_empty(), "{sched:?}: {}", messages(&f));
    }
}

#[test]
fn a_split_compiled_cube_and_vector_pair_runs_as_one_kernel() {
    // PyPTO's form: no entry that calls both; two public kernels with the
    // same arguments (the vector one may add a trailing subblock index)
    let text = kernel_text();
    let start = text.find("  func.func @fifo_matmul_relu").expect("entry");
    let end = text.find("  func.func private @fifo_cube").expect("cube");
    let mut src = format!("{}{}", &text[..start], &text[end..]);
    src = src
        .replace(
            "func.func private @fifo_cube(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>)",
            "func.func @fifo_cube(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>, %c: !pto.ptr<f32>)",
        )
        .replace(
            "func.func private @fifo_vector(%c: !pto.ptr<f32>)",
            "func.func @fifo_vector(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>, %c: !pto.ptr<f32>, %sb: i32)",
        );
    let f = run(&src, Sched::InOrder);
    assert!(f.out.error.is_none(), "{:?}", f.out.error);
    assert!(kinds(&f).is_empty(), "{}", messages(&f));
    let want = f32s(&case_file("golden_v3.bin"));
    let got = f32s(&f.buffers[2]);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!((g - w).abs() <= 1e-5 + 1e-5 * w.abs(), "[{i}]: {g} vs {w}");
    }
}

#[test]
fn left_right_split_gives_each_subblock_half_the_columns() {
    let v16 = "rows=16, cols=32, v_row=16, v_col=32";
    let v32 = "rows=32, cols=16, v_row=32, v_col=16";
    let src = kernel_text()
        .replace(v16, v32)
        .replace("{id = 0, split = 1}", "{id = 0, split = 2}")
        .replace(
            "%cp = pto.partition_view %cv, offsets = [%row, %col], sizes = [%c16, %c32] : !pto.tensor_view<32x128xf32> -> !pto.partition_tensor_view<16x32xf32>",
            "%cc = arith.addi %col, %row : index\n      %cp = pto.partition_view %cv, offsets = [%c0, %cc], sizes = [%c32, %c16] : !pto.tensor_view<32x128xf32> -> !pto.partition_tensor_view<32x16xf32>",
        )
        .replace(
            "outs(%cp : !pto.partition_tensor_view<16x32xf32>)",
            "outs(%cp : !pto.partition_tensor_view<32x16xf32>)",
        );
    assert!(src.contains("split = 2") && src.contains("%cc = arith.addi"));
    let f = run(&src, Sched::InOrder);
    assert!(f.out.error.is_none(), "{:?}", f.out.error);
    assert!(kinds(&f).is_empty(), "{}", messages(&f));
    let want = f32s(&case_file("golden_v3.bin"));
    let got = f32s(&f.buffers[2]);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!((g - w).abs() <= 1e-5 + 1e-5 * w.abs(), "[{i}]: {g} vs {w}");
    }
}
