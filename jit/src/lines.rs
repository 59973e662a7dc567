//! Reductions that keep every line (a row of a row reduction, a column of
//! a column reduction) in its own vector lane: four lines at a time, each
//! lane stepping through its line strictly in order, as the interpreter
//! (`vm/src/exec/reduce.rs`) does. This serves the arg reductions
//! (`trowargmax`, `trowargmin`, `tcolargmax`, `tcolargmin`) on every
//! [`RedLane`] and the sums, maxima and minima on the lanes the dedicated
//! f32/i32 loops of `rowred` do not take (16- and 8-bit lanes, u32).
//!
//! Elements are widened to 32-bit lanes as they are loaded: f16/bf16 to f32
//! (exact), i16/i8 sign-extended, u16/u8 zero-extended. Then, bit-identical
//! to the interpreter:
//!
//! - float sums accumulate in f64 from the line's first element and round
//!   once at the end the way the interpreter's write does: to f32; to f16
//!   through f32 (what `half` does on x86-64 with F16C, so the caller must
//!   only use it there); to bf16 correctly rounded (f64 to f32 rounding to
//!   odd, then to bf16 to nearest even);
//! - integer sums wrap (in 32 bits, then truncated to the element);
//! - float max/min are IEEE 754-2019 maximum/minimum with the NaN rule of
//!   the f32 loops (`rowred::nan_rule`), exact in the half types;
//! - an arg reduction keeps the first index whose element compares strictly
//!   greater (less) than the best so far: a NaN first element stays the
//!   answer, a later NaN never replaces anything, -0 and +0 tie.
//!
//! Lines come in groups of four. A group short of four lines (the last row
//! group, or fewer than four columns) repeats its last line in the spare
//! lanes: they compute and store the same result at the same place. With
//! four or more columns, a column reduction's last group moves back to the
//! last four columns, so its loads stay whole vectors.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, BlockArg, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::FunctionBuilder;

use crate::codegen::{heap_flags, prove_rows};
use crate::half::{from_f32, to_f32, L};
use crate::rowred::{entry, little, nan_rule, shuffle, RedLane, RedOp, RowRed, UP};
use crate::Lane;

/// Whether this emitter builds `r` (the dedicated loops take f32/i32 sums,
/// maxima and minima).
pub(crate) fn takes(r: RowRed) -> bool {
    let arg = matches!(r.op, RedOp::ArgMax(_) | RedOp::ArgMin(_));
    arg || !matches!(r.lane, RedLane::F32 | RedLane::I32)
}

/// How a group reads its four lanes' elements.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Four adjacent elements of one row: one (widening) vector load.
    Contiguous,
    /// One scalar load per lane.
    Gather,
}

/// The function of a row (`by_col` false) or column reduction over the
/// arguments of [`crate::RowArgs`].
pub(crate) fn emit(b: &mut FunctionBuilder, r: RowRed, by_col: bool) {
    let (base, len, a, ret_ok, ret_bad) = entry(b);
    let (dst, ds, src, ss, rows, cols) = (a[0], a[1], a[2], a[3], a[4], a[5]);
    let eb = r.lane.bytes();
    let ob = r.op.out_bytes(r.lane);
    let row_bytes = b.ins().imul_imm_s(cols, eb);
    let obv = b.ins().iconst(types::I64, ob);
    let ext_dst = if by_col {
        // one result per column: dst + (cols - 1) * ds + ob
        let cm1 = b.ins().iadd_imm_s(cols, -1);
        let span = b.ins().imul(cm1, ds);
        let span = b.ins().iadd_imm_s(span, ob);
        let zero = b.ins().iconst(types::I64, 0);
        (dst, zero, span)
    } else {
        (dst, ds, obv)
    };
    prove_rows(
        b,
        &a,
        rows,
        cols,
        len,
        &[(src, ss, row_bytes), ext_dst],
        ret_ok,
        ret_bad,
    );
    let g = Geo {
        sbase: b.ins().iadd(base, src),
        dbase: b.ins().iadd(base, dst),
        ss,
        ds,
        lines: if by_col { cols } else { rows },
        n: if by_col { rows } else { cols },
        by_col,
    };

    let ghead = b.create_block();
    let gbody = b.create_block();
    let gnext = b.create_block();
    b.append_block_param(ghead, types::I64);
    b.append_block_param(gnext, types::I64);
    let zero = b.ins().iconst(types::I64, 0);
    b.ins().jump(ghead, &[zero.into()]);

    b.switch_to_block(ghead);
    let gi = b.block_params(ghead)[0];
    let more = b.ins().icmp(IntCC::SignedLessThan, gi, g.lines);
    b.ins().brif(more, gbody, &[], ret_ok, &[]);

    b.switch_to_block(gbody);
    let last = b.ins().iadd_imm_s(g.lines, -1);
    let clamped = |b: &mut FunctionBuilder| -> [Value; 4] {
        [0i64, 1, 2, 3].map(|i| {
            let l = b.ins().iadd_imm_s(gi, i);
            let over = b.ins().icmp(IntCC::SignedGreaterThan, l, last);
            b.ins().select(over, last, l)
        })
    };
    if by_col {
        let contig = b.create_block();
        let gather = b.create_block();
        let wide = b
            .ins()
            .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, g.lines, 4);
        b.ins().brif(wide, contig, &[], gather, &[]);

        b.switch_to_block(contig);
        let back = b.ins().iadd_imm_s(g.lines, -4);
        let past = b.ins().icmp(IntCC::SignedGreaterThan, gi, back);
        let c0 = b.ins().select(past, back, gi);
        let ls = [0i64, 1, 2, 3].map(|i| b.ins().iadd_imm_s(c0, i));
        group(b, &g, r, Mode::Contiguous, ls);
        b.ins().jump(gnext, &[gi.into()]);

        b.switch_to_block(gather);
        let ls = clamped(b);
        group(b, &g, r, Mode::Gather, ls);
        b.ins().jump(gnext, &[gi.into()]);
    } else {
        let ls = clamped(b);
        group(b, &g, r, Mode::Gather, ls);
        b.ins().jump(gnext, &[gi.into()]);
    }

    b.switch_to_block(gnext);
    let gi = b.block_params(gnext)[0];
    let gn = b.ins().iadd_imm_s(gi, 4);
    b.ins().jump(ghead, &[gn.into()]);

    crate::codegen::emit_exits(b, ret_ok, ret_bad);
}

/// Host addresses and shape.
struct Geo {
    sbase: Value,
    dbase: Value,
    ss: Value,
    ds: Value,
    /// Lines (results).
    lines: Value,
    /// Elements per line.
    n: Value,
    by_col: bool,
}

fn half_lane(l: RedLane) -> Lane {
    if l == RedLane::BF16 {
        Lane::BF16
    } else {
        Lane::F16
    }
}

/// Element `off` bytes into each lane's line as a 4-lane vector: f32x4 for
/// float lanes, i32x4 for integers.
fn load(b: &mut FunctionBuilder, r: RowRed, mode: Mode, ps: &[Value; 4], off: Value) -> Value {
    let hf = heap_flags();
    let v = match mode {
        Mode::Contiguous => {
            let q = b.ins().iadd(ps[0], off);
            match r.lane {
                RedLane::F32 | RedLane::I32 | RedLane::U32 => b.ins().load(types::I32X4, hf, q, 0),
                RedLane::I16 => b.ins().sload16x4(hf, q, 0),
                RedLane::U16 | RedLane::F16 | RedLane::BF16 => b.ins().uload16x4(hf, q, 0),
                // no 8-to-32-bit widening vector load: four byte loads
                RedLane::I8 | RedLane::U8 => {
                    let mut v = None;
                    for i in 0..4u8 {
                        let s = if r.lane == RedLane::I8 {
                            b.ins().sload8(types::I32, hf, q, i32::from(i))
                        } else {
                            b.ins().uload8(types::I32, hf, q, i32::from(i))
                        };
                        v = Some(match v {
                            None => b.ins().splat(types::I32X4, s),
                            Some(v) => b.ins().insertlane(v, s, i),
                        });
                    }
                    v.expect("four lanes")
                }
            }
        }
        Mode::Gather => {
            let mut v = None;
            for (i, &p) in ps.iter().enumerate() {
                let q = b.ins().iadd(p, off);
                let s = match r.lane {
                    RedLane::F32 | RedLane::I32 | RedLane::U32 => {
                        b.ins().load(types::I32, hf, q, 0)
                    }
                    RedLane::I16 => b.ins().sload16(types::I32, hf, q, 0),
                    RedLane::I8 => b.ins().sload8(types::I32, hf, q, 0),
                    RedLane::U8 => b.ins().uload8(types::I32, hf, q, 0),
                    RedLane::U16 | RedLane::F16 | RedLane::BF16 => {
                        b.ins().uload16(types::I32, hf, q, 0)
                    }
                };
                v = Some(match v {
                    None => b.ins().splat(types::I32X4, s),
                    Some(v) => b.ins().insertlane(v, s, i as u8),
                });
            }
            v.expect("four lanes")
        }
    };
    match r.lane {
        RedLane::F32 => b.ins().bitcast(types::F32X4, little(), v),
        RedLane::F16 | RedLane::BF16 => to_f32(b, &L { vector: true }, half_lane(r.lane), v),
        _ => v,
    }
}

/// Accumulator types of a group.
fn acc_types(r: RowRed) -> Vec<Type> {
    let vt = if r.lane.is_float() {
        types::F32X4
    } else {
        types::I32X4
    };
    match r.op {
        RedOp::Sum if r.lane.is_float() => vec![types::F64X2, types::F64X2],
        RedOp::ArgMax(_) | RedOp::ArgMin(_) => vec![vt, types::I32X4],
        _ => vec![vt],
    }
}

/// Lanes 0-1 and 2-3 of an f32x4 as two f64x2.
fn widen(b: &mut FunctionBuilder, x: Value) -> [Value; 2] {
    let up = shuffle(b, types::F32X4, x, x, &UP);
    [b.ins().fvpromote_low(x), b.ins().fvpromote_low(up)]
}

/// The accumulators after the line's first element.
fn init(b: &mut FunctionBuilder, r: RowRed, x: Value) -> Vec<Value> {
    match r.op {
        RedOp::Sum if r.lane.is_float() => widen(b, x).to_vec(),
        RedOp::ArgMax(_) | RedOp::ArgMin(_) => {
            let z = b.ins().iconst(types::I32, 0);
            vec![x, b.ins().splat(types::I32X4, z)]
        }
        _ => vec![x],
    }
}

/// One step: element `x` (index `k`, i64) into the accumulators.
fn step(b: &mut FunctionBuilder, r: RowRed, acc: &[Value], x: Value, k: Value) -> Vec<Value> {
    let fl = r.lane.is_float();
    let unsigned = r.lane == RedLane::U32;
    match r.op {
        RedOp::Sum if fl => {
            let w = widen(b, x);
            vec![b.ins().fadd(acc[0], w[0]), b.ins().fadd(acc[1], w[1])]
        }
        RedOp::Sum => vec![b.ins().iadd(acc[0], x)],
        RedOp::Max if fl => vec![b.ins().fmax(acc[0], x)],
        RedOp::Min if fl => vec![b.ins().fmin(acc[0], x)],
        RedOp::Max if unsigned => vec![b.ins().umax(acc[0], x)],
        RedOp::Min if unsigned => vec![b.ins().umin(acc[0], x)],
        RedOp::Max => vec![b.ins().smax(acc[0], x)],
        RedOp::Min => vec![b.ins().smin(acc[0], x)],
        RedOp::ArgMax(_) | RedOp::ArgMin(_) => {
            let max = matches!(r.op, RedOp::ArgMax(_));
            let best = acc[0];
            // x better than best: strictly (NaN compares false)
            let c = if fl {
                let cc = if max {
                    FloatCC::GreaterThan
                } else {
                    FloatCC::LessThan
                };
                b.ins().fcmp(cc, x, best)
            } else {
                let cc = match (max, unsigned) {
                    (true, false) => IntCC::SignedGreaterThan,
                    (true, true) => IntCC::UnsignedGreaterThan,
                    (false, false) => IntCC::SignedLessThan,
                    (false, true) => IntCC::UnsignedLessThan,
                };
                b.ins().icmp(cc, x, best)
            };
            let best = if fl {
                let cf = b.ins().bitcast(types::F32X4, little(), c);
                b.ins().bitselect(cf, x, best)
            } else {
                b.ins().bitselect(c, x, best)
            };
            let k32 = b.ins().ireduce(types::I32, k);
            let ks = b.ins().splat(types::I32X4, k32);
            vec![best, b.ins().bitselect(c, ks, acc[1])]
        }
    }
}

/// f64 to f32 rounding to odd (inexact results get their last bit set,
/// from the f32 toward zero): the f32 then rounds to bf16 as the f64 would.
fn demote_odd(b: &mut FunctionBuilder, v: Value) -> Value {
    let t = b.ins().fdemote(types::F32, v);
    let back = b.ins().fpromote(types::F64, t);
    let exact = b.ins().fcmp(FloatCC::Equal, back, v);
    let nan = b.ins().fcmp(FloatCC::Unordered, v, v);
    let keep = b.ins().bor(exact, nan);
    let bits = b.ins().bitcast(types::I32, MemFlagsData::new(), t);
    let ab = b.ins().fabs(back);
    let av = b.ins().fabs(v);
    let away = b.ins().fcmp(FloatCC::GreaterThan, ab, av);
    let less = b.ins().iadd_imm_s(bits, -1);
    let tz = b.ins().select(away, less, bits);
    let odd = b.ins().bor_imm_u(tz, 1);
    let odd = b.ins().bitcast(types::F32, MemFlagsData::new(), odd);
    b.ins().select(keep, t, odd)
}

/// Lane `i`'s result as the value to store (f32, or i32 bits / index).
fn result(b: &mut FunctionBuilder, r: RowRed, g: &Geo, acc: &[Value], i: u8) -> Value {
    let sl = L { vector: false };
    match r.op {
        RedOp::ArgMax(_) | RedOp::ArgMin(_) => b.ins().extractlane(acc[1], i),
        RedOp::Sum if r.lane.is_float() => {
            let v = b.ins().extractlane(acc[usize::from(i / 2)], i % 2);
            match r.lane {
                RedLane::F32 => b.ins().fdemote(types::F32, v),
                RedLane::BF16 => {
                    let t = demote_odd(b, v);
                    from_f32(b, &sl, Lane::BF16, t)
                }
                _ => {
                    let t = b.ins().fdemote(types::F32, v);
                    from_f32(b, &sl, Lane::F16, t)
                }
            }
        }
        _ if r.lane.is_float() => {
            let s = b.ins().extractlane(acc[0], i);
            let s = nan_rule(b, s, g.n);
            if r.lane == RedLane::F32 {
                s
            } else {
                from_f32(b, &sl, half_lane(r.lane), s)
            }
        }
        _ => b.ins().extractlane(acc[0], i),
    }
}

fn store(b: &mut FunctionBuilder, bytes: i64, v: Value, d: Value) {
    let hf = heap_flags();
    match bytes {
        1 => {
            b.ins().istore8(hf, v, d, 0);
        }
        2 => {
            b.ins().istore16(hf, v, d, 0);
        }
        8 => {
            let w = b.ins().uextend(types::I64, v);
            b.ins().store(hf, w, d, 0);
        }
        _ => {
            b.ins().store(hf, v, d, 0);
        }
    }
}

/// One group of four lines (`ls`: their indices): every lane reduces its
/// line in order, then each result is stored. Leaves the builder in the
/// block after the stores.
fn group(b: &mut FunctionBuilder, g: &Geo, r: RowRed, mode: Mode, ls: [Value; 4]) {
    let eb = r.lane.bytes();
    // each line's first element, and the bytes between consecutive elements
    let ps = ls.map(|l| {
        let o = if g.by_col {
            b.ins().imul_imm_s(l, eb)
        } else {
            b.ins().imul(l, g.ss)
        };
        b.ins().iadd(g.sbase, o)
    });
    let step_bytes = if g.by_col {
        g.ss
    } else {
        b.ins().iconst(types::I64, eb)
    };
    let tys = acc_types(r);
    let head = b.create_block();
    let body = b.create_block();
    let end = b.create_block();
    for blk in [head, body] {
        b.append_block_param(blk, types::I64); // byte offset
        b.append_block_param(blk, types::I64); // index
        for &t in &tys {
            b.append_block_param(blk, t);
        }
    }
    for &t in &tys {
        b.append_block_param(end, t);
    }
    let zero = b.ins().iconst(types::I64, 0);
    let x = load(b, r, mode, &ps, zero);
    let acc = init(b, r, x);
    let one = b.ins().iconst(types::I64, 1);
    let mut carry: Vec<BlockArg> = vec![step_bytes.into(), one.into()];
    carry.extend(acc.iter().map(|&v| BlockArg::from(v)));
    b.ins().jump(head, &carry);

    b.switch_to_block(head);
    let p = b.block_params(head).to_vec();
    let more = b.ins().icmp(IntCC::SignedLessThan, p[1], g.n);
    let all: Vec<BlockArg> = p.iter().map(|&v| BlockArg::from(v)).collect();
    let fin: Vec<BlockArg> = p[2..].iter().map(|&v| BlockArg::from(v)).collect();
    b.ins().brif(more, body, &all, end, &fin);

    b.switch_to_block(body);
    let p = b.block_params(body).to_vec();
    let x = load(b, r, mode, &ps, p[0]);
    let acc = step(b, r, &p[2..], x, p[1]);
    let on = b.ins().iadd(p[0], step_bytes);
    let kn = b.ins().iadd_imm_s(p[1], 1);
    let mut carry: Vec<BlockArg> = vec![on.into(), kn.into()];
    carry.extend(acc.iter().map(|&v| BlockArg::from(v)));
    b.ins().jump(head, &carry);

    b.switch_to_block(end);
    let acc = b.block_params(end).to_vec();
    let ob = r.op.out_bytes(r.lane);
    for (i, &l) in ls.iter().enumerate() {
        let v = result(b, r, g, &acc, i as u8);
        let o = b.ins().imul(l, g.ds);
        let d = b.ins().iadd(g.dbase, o);
        store(b, ob, v, d);
    }
}
