//! Matrix multiply: `tmatmul`, `tmatmul.acc`, `tmatmul.bias` and the
//! matrix-vector forms `tgemv`, `tgemv.acc`, `tgemv.bias`.
//!
//! `A` (left, M x K) times `B` (right, K x N) into `C` (acc, M x N), with
//! M = A's valid rows, K = A's valid columns, N = B's valid columns. Float
//! inputs (f16, bf16, f32) accumulate in f32 with a fused multiply-add in k
//! order; integer inputs (i8) accumulate in i32, wrapping. `.acc` starts from
//! `C_in` (the first `ins` operand), `.bias` from the bias row (`bias[0][n]`,
//! the third operand). Operands are read through their own layouts (NZ, ZN,
//! ZZ, ...), so any tile layout works.

use pto_isa_spec::Opcode;

use crate::exec::tile_ops::{check_valid, get, in_tile, out_tile, put, short, TileCall};
use crate::exec::{fault, Accesses, Fault};
use crate::mem::Local;
use crate::num::Num;

/// Executes a matmul.
pub fn run(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    use Opcode as O;
    let (ai, init) = match call.op {
        O::TMatmul | O::TGemv => (0, Init::Zero),
        O::TMatmulAcc | O::TGemvAcc => (1, Init::Acc),
        O::TMatmulBias | O::TGemvBias => (0, Init::Bias),
        _ => return fault(format!("{} is not a matmul", call.op.name())),
    };
    let a = in_tile(call, ai, "left operand A")?;
    let b = in_tile(call, ai + 1, "right operand B")?;
    let c = out_tile(call, 0, "accumulator C")?;
    for (t, n) in [(a, "A"), (b, "B"), (c, "C")] {
        check_valid(call, t, n)?;
    }
    let (m, k, n) = (a.v_row, a.v_col, b.v_col);
    if b.v_row < k {
        return fault(format!(
            "{}: A is {m}x{k} but B has only {} valid rows",
            short(call),
            b.v_row
        ));
    }
    if m > c.rows || n > c.cols {
        return fault(format!(
            "{}: the {m}x{n} product does not fit the {}x{} accumulator",
            short(call),
            c.rows,
            c.cols
        ));
    }
    let float = a.elem.is_float() || b.elem.is_float() || c.elem.is_float();
    if float && !(a.elem.is_float() && b.elem.is_float() && c.elem.is_float()) {
        return fault(format!(
            "{}: mixed float and integer operands ({} x {} -> {})",
            short(call),
            a.elem,
            b.elem,
            c.elem
        ));
    }
    let start = match init {
        Init::Zero => None,
        Init::Acc => {
            let ci = in_tile(call, 0, "accumulator input C_in")?;
            check_valid(call, ci, "C_in")?;
            if m > ci.rows || n > ci.cols {
                return fault(format!(
                    "{}: C_in ({}x{}) is smaller than the {m}x{n} product",
                    short(call),
                    ci.rows,
                    ci.cols
                ));
            }
            Some((ci, false))
        }
        Init::Bias => {
            let bias = in_tile(call, 2, "bias")?;
            check_valid(call, bias, "bias")?;
            if n > bias.cols {
                return fault(format!(
                    "{}: the bias tile has {} columns, the product {n}",
                    short(call),
                    bias.cols
                ));
            }
            Some((bias, true))
        }
    };
    // A and B once, row-major
    let mut av = Vec::with_capacity((m * k).max(0) as usize);
    for i in 0..m {
        for kk in 0..k {
            av.push(get(local, a, i, kk, acc)?);
        }
    }
    let mut bv = Vec::with_capacity((k * n).max(0) as usize);
    for kk in 0..k {
        for j in 0..n {
            bv.push(get(local, b, kk, j, acc)?);
        }
    }
    let mut out = Vec::with_capacity((m * n).max(0) as usize);
    for i in 0..m {
        for j in 0..n {
            let s = match start {
                None => Num::I(0),
                Some((t, true)) => get(local, t, 0, j, acc)?,
                Some((t, false)) => get(local, t, i, j, acc)?,
            };
            let v = if float {
                let mut s = s.f() as f32;
                for kk in 0..k {
                    let x = av[(i * k + kk) as usize].f() as f32;
                    let y = bv[(kk * n + j) as usize].f() as f32;
                    s = x.mul_add(y, s);
                }
                Num::F(s as f64)
            } else {
                let mut s = s.i() as i32;
                for kk in 0..k {
                    let x = av[(i * k + kk) as usize].i() as i32;
                    let y = bv[(kk * n + j) as usize].i() as i32;
                    s = s.wrapping_add(x.wrapping_mul(y));
                }
                Num::I(s as i64)
            };
            out.push(v);
        }
    }
    let mut it = out.into_iter();
    for i in 0..m {
        for j in 0..n {
            if let Some(v) = it.next() {
                put(local, c, i, j, v, acc)?;
            }
        }
    }
    Ok(())
}

#[derive(Clone, Copy)]
enum Init {
    Zero,
    Acc,
    Bias,
}
