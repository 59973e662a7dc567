//! Benchmarks for ptovm: the criterion benches live in `benches/`, this library
//! holds the input generators they share.
//!
//! [`synthetic_kernel`] builds a large, realistic `.pto` text that verifies
//! without errors: functions whose bodies repeat a block of tile ops (`tload`,
//! `tadd`, `tmuls`, `tstore`), sync ops in both spellings, an `scf.for` with
//! `iter_args`, an `scf.if` and a vector scope (`vlds`/`vadd`/`vsts`), each copy
//! with its own SSA names.

use std::fmt::Write;

const TILE: &str = "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=64, v_row=16, v_col=64, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
const PVIEW: &str = "!pto.partition_tensor_view<16x64xf32>";
const TVIEW: &str = "!pto.tensor_view<?x?xf32>";

/// One repetition of the kernel body; every SSA name carries the suffix `_{i}`.
fn block(out: &mut String, i: usize) {
    let _ = write!(
        out,
        r#"    %c0_{i} = arith.constant 0 : index
    %c1_{i} = arith.constant 1 : index
    %c16_{i} = arith.constant 16 : index
    %c64_{i} = arith.constant 64 : index
    %scale_{i} = arith.constant 5.000000e-01 : f32
    %tv_{i} = pto.make_tensor_view %arg0, shape = [%c64_{i}, %c64_{i}], strides = [%c64_{i}, %c1_{i}] : {TVIEW}
    %pv_{i} = pto.partition_view %tv_{i}, offsets = [%c0_{i}, %c0_{i}], sizes = [%c16_{i}, %c64_{i}] : {TVIEW} -> {PVIEW}
    %a_{i} = pto.alloc_tile : {TILE}
    %b_{i} = pto.alloc_tile : !pto.tile_buf<vec, 16x64xf32>
    pto.tload ins(%pv_{i} : {PVIEW}) outs(%a_{i} : {TILE})
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
    pto.tadd ins(%a_{i}, %a_{i} : {TILE}, {TILE}) outs(%a_{i} : {TILE})
    pto.tmuls ins(%a_{i}, %scale_{i} : {TILE}, f32) outs(%a_{i} : {TILE})
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID1"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID1"]
    pto.tstore ins(%a_{i} : {TILE}) outs(%pv_{i} : {PVIEW})
    %r_{i}:2 = scf.for %k_{i} = %c0_{i} to %n step %c1_{i} iter_args(%x_{i} = %c0_{i}, %y_{i} = %m) -> (index, i32) {{
      %x2_{i} = arith.addi %x_{i}, %k_{i} : index
      %y2_{i} = arith.muli %y_{i}, %m : i32
      scf.yield %x2_{i}, %y2_{i} : index, i32
    }}
    %cond_{i} = arith.cmpi slt, %r_{i}#0, %c16_{i} : index
    %sel_{i} = scf.if %cond_{i} -> (i32) {{
      scf.yield %r_{i}#1 : i32
    }} else {{
      scf.yield %m : i32
    }}
    %addr_{i} = arith.constant 0 : i64
    %ub_{i} = pto.castptr %addr_{i} : i64 -> !pto.ptr<f32, ub>
    pto.vecscope {{
      %mask_{i} = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      scf.for %off_{i} = %c0_{i} to %c64_{i} step %c64_{i} {{
        %v_{i} = pto.vlds %ub_{i}[%off_{i}] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
        %w_{i} = pto.vadd %v_{i}, %v_{i}, %mask_{i} : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
        pto.vsts %w_{i}, %ub_{i}[%off_{i}], %mask_{i} : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>
      }}
    }}
    pto.barrier #pto.pipe<PIPE_ALL>
"#
    );
}

/// A module of about `target_bytes` bytes (at least one block): functions of
/// 32 blocks each, targeting profile a5. The text verifies with no errors.
pub fn synthetic_kernel(target_bytes: usize) -> String {
    let mut out = String::with_capacity(target_bytes + 8192);
    out.push_str("module attributes {pto.target_arch = \"a5\"} {\n");
    let mut i = 0;
    let mut f = 0;
    while i == 0 || out.len() < target_bytes {
        let _ = writeln!(
            out,
            "  func.func @bench_{f}(%arg0: !pto.ptr<f32>, %n: index, %m: i32) attributes {{pto.kernel}} {{"
        );
        for _ in 0..32 {
            block(&mut out, i);
            i += 1;
            if out.len() >= target_bytes {
                break;
            }
        }
        out.push_str("    return\n  }\n");
        f += 1;
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_kernel_verifies() {
        let src = synthetic_kernel(64 * 1024);
        assert!(src.len() >= 64 * 1024);
        let c = pto_asm::check_text("bench.pto", &src, None);
        assert!(
            !c.diagnostics.has_errors(),
            "{}",
            c.diagnostics.render("bench.pto", &src)
        );
    }
}
