//! Tier-up of `tcvt` between f32 and f16/bf16 (default rounding, see
//! `pto_jit::cvt`) and of the row reductions `trowsum`, `trowmax`, `trowmin` on f32/i32
//! tiles (`pto_jit::rowred`): a row-major UB source, results at a constant
//! stride (column 0 of a row-major or column-major destination). The compiled
//! code gives the interpreter's bits (its accumulation order, see
//! `exec::reduce`), reports the same accesses to the checker, and is compared
//! with the interpreter under `--crosscheck`. Anything else (other layouts,
//! overlapping operands, shapes the interpreter reports as faults) runs in
//! the interpreter.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use pto_asm::ty::{BLayout, SLayout, TileLoc};
use pto_isa_spec::{DType, Opcode};
use pto_jit::{
    compile_cvt, compile_row, Cvt, CvtCompiled, EwArgs, Lane, RedOp, RowArgs, RowCompiled, RowRed,
    Status,
};

use crate::exec::tile_ops::{in_tiles, TileCall};
use crate::exec::{fault, Accesses, Fault};
use crate::jitcall::JitCache;
use crate::mem::Local;
use crate::value::{Space, Tile, Val};
use crate::JitMode;

/// Per-run counters of the row-reduction tier.
#[derive(Default)]
pub(crate) struct RowCache {
    counts: Mutex<HashMap<RowRed, u32>>,
    seen: Mutex<std::collections::HashSet<RowRed>>,
    cvt_counts: Mutex<HashMap<Cvt, u32>>,
    cvt_seen: Mutex<std::collections::HashSet<Cvt>>,
}

type CodeMap = Mutex<HashMap<RowRed, Result<Arc<RowCompiled>, String>>>;

fn code_cache() -> &'static CodeMap {
    static CODE: std::sync::OnceLock<CodeMap> = std::sync::OnceLock::new();
    CODE.get_or_init(Default::default)
}

fn get(cache: &JitCache, r: &RowRed) -> Result<Arc<RowCompiled>, String> {
    let res = {
        let mut code = code_cache()
            .lock()
            .map_err(|_| "JIT cache poisoned".to_string())?;
        code.entry(*r)
            .or_insert_with(|| compile_row(r).map(Arc::new).map_err(|e| e.to_string()))
            .clone()
    };
    let rows = &cache.rows();
    if rows.seen.lock().map(|mut s| s.insert(*r)).unwrap_or(false) {
        cache.note_scope(match &res {
            Ok(c) => Ok((c.compile_time, c.code_bytes)),
            Err(e) => Err(e.clone()),
        });
    }
    res
}

/// The region and arguments of a row reduction the JIT can take, or `None`.
fn plan(call: &TileCall) -> Option<(RowRed, RowArgs, &Tile, &Tile)> {
    let op = match call.op {
        Opcode::TRowSum => RedOp::Sum,
        Opcode::TRowMax => RedOp::Max,
        Opcode::TRowMin => RedOp::Min,
        _ => return None,
    };
    let s = *in_tiles(call).first()?;
    let d = match call.outs.first() {
        Some(Val::Tile(t)) => t.as_ref(),
        _ => return None,
    };
    let lane = match s.elem {
        DType::F32 => Lane::F32,
        DType::I32 => Lane::I32,
        _ => return None,
    };
    let plain = |t: &Tile| t.loc == TileLoc::Vec && t.slayout == SLayout::NoneBox;
    let valid = |t: &Tile| t.v_row >= 0 && t.v_col >= 0 && t.v_row <= t.rows && t.v_col <= t.cols;
    if d.elem != s.elem
        || !plain(s)
        || !plain(d)
        || s.blayout != BLayout::RowMajor
        || !matches!(d.blayout, BLayout::RowMajor | BLayout::ColMajor)
        || !valid(s)
        || !valid(d)
        || d.v_row < 1
        || d.v_col < 1
        || s.v_row < d.v_row
        || s.v_col < 1
    {
        return None;
    }
    // results at a constant stride
    let first = d.elem_addr(0, 0).ok()?;
    let stride = if d.v_row > 1 {
        d.elem_addr(1, 0).ok()? as i64 - first as i64
    } else {
        4
    };
    let last = d.elem_addr(d.v_row - 1, 0).ok()? as i64;
    if stride <= 0 || last != first as i64 + (d.v_row - 1) * stride {
        return None;
    }
    // the interpreter writes each result after reducing its row: a
    // destination overlapping the source would be read back; leave it to it
    let (slo, shi) = (s.addr, s.addr + s.bytes());
    if first < shi && slo < last as u64 + 4 {
        return None;
    }
    let args = RowArgs {
        dst: first as i64,
        dst_stride: stride,
        src: s.addr as i64,
        src_stride: s.cols * 4,
        rows: d.v_row,
        cols: s.v_col,
    };
    Some((RowRed { op, lane }, args, s, d))
}

/// Runs a row reduction compiled when the mode and counters say so; `None`
/// when the call is not one the JIT takes (the interpreter runs it).
pub fn run_row_reduce(
    cache: &JitCache,
    mode: JitMode,
    threshold: u32,
    crosscheck: bool,
    call: &TileCall,
    local: &mut Local,
    acc: &mut Accesses,
) -> Option<Result<(), Fault>> {
    if mode == JitMode::Off {
        return None;
    }
    let (region, args, s, d) = plan(call)?;
    if mode == JitMode::Auto {
        let n = cache
            .rows()
            .counts
            .lock()
            .map(|mut c| {
                let e = c.entry(region).or_insert(0);
                *e += 1;
                *e
            })
            .unwrap_or(0);
        if n <= threshold {
            return None;
        }
    }
    let code = get(cache, &region).ok()?;
    Some(run(&code, crosscheck, call, &args, s, d, local, acc).map(|()| cache.note_exec()))
}

#[allow(clippy::too_many_arguments)]
fn run(
    code: &RowCompiled,
    crosscheck: bool,
    call: &TileCall,
    args: &RowArgs,
    s: &Tile,
    d: &Tile,
    local: &mut Local,
    acc: &mut Accesses,
) -> Result<(), Fault> {
    let reference = if crosscheck {
        let mut copy = local.clone();
        crate::exec::reduce::run(call, &mut copy, &mut Accesses::default())?;
        Some(copy)
    } else {
        None
    };
    let size = local.size(Space::Ub);
    let ub = local.slice_mut(Space::Ub, 0, size)?;
    match code.call(ub, args) {
        Status::Ok => {}
        Status::OutOfBounds => {
            return fault(format!(
                "{}: a {}x{} {} operand reaches outside the {size} bytes of UB",
                call.op.name(),
                s.v_row,
                s.v_col,
                s.elem
            ))
        }
        Status::Unknown => return fault("compiled code returned an unknown status"),
    }
    let at = |r: i64| (args.dst + r * args.dst_stride) as u64;
    if acc.on {
        for r in 0..args.rows {
            acc.add(
                Space::Ub,
                (args.src + r * args.src_stride) as u64,
                (args.cols * 4) as u64,
                false,
            );
            acc.add(Space::Ub, at(r), 4, true);
        }
    }
    if let Some(want) = reference {
        for r in 0..args.rows {
            let (x, y) = (
                want.slice(Space::Ub, at(r), 4)?,
                local.slice(Space::Ub, at(r), 4)?,
            );
            let bits = |v: &[u8]| u32::from_le_bytes([v[0], v[1], v[2], v[3]]);
            let (x, y) = (bits(x), bits(y));
            // which NaN operand a sum keeps is the host compiler's choice
            let nan = |v: u32| {
                call.op == Opcode::TRowSum && d.elem == DType::F32 && f32::from_bits(v).is_nan()
            };
            if x != y && !(nan(x) && nan(y)) {
                return fault(format!(
                    "crosscheck: JIT and interpreter differ at row {r} of {}: interpreter {x:#x}, JIT {y:#x}",
                    call.op.name()
                ));
            }
        }
    }
    Ok(())
}

type CvtMap = Mutex<HashMap<Cvt, Result<Arc<CvtCompiled>, String>>>;

fn cvt_cache() -> &'static CvtMap {
    static CODE: std::sync::OnceLock<CvtMap> = std::sync::OnceLock::new();
    CODE.get_or_init(Default::default)
}

fn half_lane(dt: DType) -> Option<Lane> {
    match dt {
        DType::F32 => Some(Lane::F32),
        DType::F16 => Some(Lane::F16),
        DType::BF16 => Some(Lane::BF16),
        _ => None,
    }
}

/// Runs `tcvt` f32 <-> f16/bf16 (rounding RINT or NONE, no saturation to the
/// largest finite value) compiled when the mode and counters say so; `None`
/// when the JIT does not take the call (the interpreter runs it).
pub fn run_cvt(
    cache: &JitCache,
    mode: JitMode,
    threshold: u32,
    crosscheck: bool,
    call: &TileCall,
    local: &mut Local,
    acc: &mut Accesses,
) -> Option<Result<(), Fault>> {
    use crate::exec::convert::{modes, Round, Sat};
    if mode == JitMode::Off || call.op != Opcode::TCvt {
        return None;
    }
    let s = *in_tiles(call).first()?;
    let d = match call.outs.first() {
        Some(Val::Tile(t)) => t.as_ref(),
        _ => return None,
    };
    let region = Cvt {
        from: half_lane(s.elem)?,
        to: half_lane(d.elem)?,
    };
    if (region.from == Lane::F32) == (region.to == Lane::F32) {
        return None;
    }
    let (round, sat) = modes(call).ok()?;
    let plain = |t: &Tile| {
        t.loc == TileLoc::Vec && t.slayout == SLayout::NoneBox && t.blayout == BLayout::RowMajor
    };
    let valid = |t: &Tile| t.v_row >= 0 && t.v_col >= 0 && t.v_row <= t.rows && t.v_col <= t.cols;
    if !matches!(round, Round::Rint | Round::None)
        || sat == Sat::On
        || !plain(s)
        || !plain(d)
        || !valid(s)
        || !valid(d)
        || s.v_row < d.v_row
        || s.v_col < d.v_col
        || (s.addr < d.addr + d.bytes() && d.addr < s.addr + s.bytes())
    {
        return None;
    }
    if mode == JitMode::Auto {
        let n = cache
            .rows()
            .cvt_counts
            .lock()
            .map(|mut c| {
                let e = c.entry(region).or_insert(0);
                *e += 1;
                *e
            })
            .unwrap_or(0);
        if n <= threshold {
            return None;
        }
    }
    let code = {
        let res = {
            let mut m = cvt_cache().lock().ok()?;
            m.entry(region)
                .or_insert_with(|| {
                    compile_cvt(&region)
                        .map(Arc::new)
                        .map_err(|e| e.to_string())
                })
                .clone()
        };
        if cache
            .rows()
            .cvt_seen
            .lock()
            .map(|mut x| x.insert(region))
            .unwrap_or(false)
        {
            cache.note_scope(match &res {
                Ok(c) => Ok((c.compile_time, c.code_bytes)),
                Err(e) => Err(e.clone()),
            });
        }
        res.ok()?
    };
    let (ses, des) = (s.elem.bytes() as i64, d.elem.bytes() as i64);
    let args = EwArgs {
        dst: d.addr as i64,
        dst_stride: d.cols * des,
        a: s.addr as i64,
        a_stride: s.cols * ses,
        rows: d.v_row,
        cols: d.v_col,
        ..EwArgs::default()
    };
    Some(
        run_cvt_code(&code, crosscheck, call, &args, (ses, des), d, local, acc)
            .map(|()| cache.note_exec()),
    )
}

#[allow(clippy::too_many_arguments)]
fn run_cvt_code(
    code: &CvtCompiled,
    crosscheck: bool,
    call: &TileCall,
    args: &EwArgs,
    (ses, des): (i64, i64),
    d: &Tile,
    local: &mut Local,
    acc: &mut Accesses,
) -> Result<(), Fault> {
    let reference = if crosscheck {
        let mut copy = local.clone();
        crate::exec::convert::run(call, &mut copy, &mut Accesses::default())?;
        Some(copy)
    } else {
        None
    };
    let size = local.size(Space::Ub);
    let ub = local.slice_mut(Space::Ub, 0, size)?;
    if code.call(ub, args) != Status::Ok {
        return fault(format!(
            "tcvt: a {}x{} operand reaches outside the {size} bytes of UB",
            args.rows, args.cols
        ));
    }
    if acc.on {
        for r in 0..args.rows {
            acc.add(
                Space::Ub,
                (args.a + r * args.a_stride) as u64,
                (args.cols * ses) as u64,
                false,
            );
            acc.add(
                Space::Ub,
                (args.dst + r * args.dst_stride) as u64,
                (args.cols * des) as u64,
                true,
            );
        }
    }
    if let Some(want) = reference {
        for r in 0..args.rows {
            let at = (args.dst + r * args.dst_stride) as u64;
            let n = (args.cols * des) as u64;
            if want.slice(Space::Ub, at, n)? != local.slice(Space::Ub, at, n)? {
                return fault(format!(
                    "crosscheck: JIT and interpreter differ in row {r} of tcvt {} -> {}",
                    call.op.name(),
                    d.elem
                ));
            }
        }
    }
    Ok(())
}
