//! Tier-up of `tcvt` between f32 and f16/bf16 (default rounding, see
//! `pto_jit::cvt`) and of the row reductions `trowsum`, `trowmax`, `trowmin`,
//! `trowargmax`, `trowargmin` and column reductions `tcolsum`, `tcolmax`,
//! `tcolmin`, `tcolargmax`, `tcolargmin` on f32/i32/u32/f16/bf16/i16/u16
//! tiles (`pto_jit::rowred`; f16 sums only where the interpreter's f16
//! write rounds through f32, x86-64 with F16C; arg forms into any integer
//! destination but i1): a row-major UB source, results at a constant stride
//! (column 0, or row 0, of a row-major or column-major destination). The compiled
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
    compile, compile_col, compile_cvt, compile_row, Compiled, Cvt, CvtCompiled, EwArgs, Lane, Op,
    Operands, RedLane, RedOp, Region, RowArgs, RowCompiled, RowRed, Status,
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
    counts: Mutex<HashMap<(RowRed, bool), u32>>,
    seen: Mutex<std::collections::HashSet<(RowRed, bool)>>,
    cvt_counts: Mutex<HashMap<Cvt, u32>>,
    cvt_seen: Mutex<std::collections::HashSet<Cvt>>,
    pow_counts: Mutex<HashMap<Region, u32>>,
    pow_seen: Mutex<std::collections::HashSet<Region>>,
}

/// Compiled reductions by region and direction (`true`: by column).
type CodeMap = Mutex<HashMap<(RowRed, bool), Result<Arc<RowCompiled>, String>>>;

fn code_cache() -> &'static CodeMap {
    static CODE: std::sync::OnceLock<CodeMap> = std::sync::OnceLock::new();
    CODE.get_or_init(Default::default)
}

/// Counts one more execution of `key` and says whether it may run compiled:
/// always outside `--jit auto`, else once it ran more than `threshold` times.
pub(crate) fn ripe<K: std::hash::Hash + Eq>(
    counts: &Mutex<HashMap<K, u32>>,
    key: K,
    mode: JitMode,
    threshold: u32,
) -> bool {
    if mode != JitMode::Auto {
        return true;
    }
    let n = counts
        .lock()
        .map(|mut c| {
            let e = c.entry(key).or_insert(0);
            *e += 1;
            *e
        })
        .unwrap_or(0);
    n > threshold
}

/// The code for `key` from a process-wide map, compiled on first use; the
/// first time this run meets `key`, its compile time and size (or why it
/// was rejected) go into the run's stats.
fn fetch<K: std::hash::Hash + Eq + Copy, C>(
    cache: &JitCache,
    code: &Mutex<HashMap<K, Result<Arc<C>, String>>>,
    seen: &Mutex<std::collections::HashSet<K>>,
    key: K,
    compile: impl FnOnce(&K) -> Result<C, String>,
    stats: impl Fn(&C) -> (std::time::Duration, usize),
) -> Result<Arc<C>, String> {
    let res = {
        let mut m = code.lock().map_err(|_| "JIT cache poisoned".to_string())?;
        m.entry(key)
            .or_insert_with(|| compile(&key).map(Arc::new))
            .clone()
    };
    if seen.lock().map(|mut s| s.insert(key)).unwrap_or(false) {
        cache.note_scope(match &res {
            Ok(c) => Ok(stats(c)),
            Err(e) => Err(e.clone()),
        });
    }
    res
}

fn get(cache: &JitCache, r: &(RowRed, bool)) -> Result<Arc<RowCompiled>, String> {
    let compile = |r: &(RowRed, bool)| {
        let c = if r.1 {
            compile_col(&r.0)
        } else {
            compile_row(&r.0)
        };
        c.map_err(|e| e.to_string())
    };
    let stats = |c: &RowCompiled| (c.compile_time, c.code_bytes);
    fetch(cache, code_cache(), &cache.rows().seen, *r, compile, stats)
}

/// The source lane of a reduction the JIT takes.
fn red_lane(dt: DType) -> Option<RedLane> {
    Some(match dt {
        DType::F32 => RedLane::F32,
        DType::I32 => RedLane::I32,
        DType::U32 => RedLane::U32,
        DType::F16 => RedLane::F16,
        DType::BF16 => RedLane::BF16,
        DType::I16 => RedLane::I16,
        DType::U16 => RedLane::U16,
        DType::I8 => RedLane::I8,
        DType::U8 => RedLane::U8,
        _ => return None,
    })
}

/// Whether the interpreter's f64 -> f16 write rounds through f32 (what
/// `half` does with F16C, which the compiled f16 sums reproduce).
fn f16_via_f32() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("f16c")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The region (and whether it reduces columns) and arguments of a row or
/// column reduction (or arg-reduction) the JIT can take, or `None`.
fn plan(call: &TileCall) -> Option<((RowRed, bool), RowArgs, &Tile, &Tile)> {
    let s = *in_tiles(call).first()?;
    let d = match call.outs.first() {
        Some(Val::Tile(t)) => t.as_ref(),
        _ => return None,
    };
    // the index width of an arg form (its destination: any integer but i1)
    let idx = match d.elem {
        DType::I8 | DType::U8 => 1,
        DType::I16 | DType::U16 => 2,
        DType::I32 | DType::U32 => 4,
        DType::I64 | DType::U64 => 8,
        _ => 0,
    };
    let arg = |w: u8| if w == 0 { None } else { Some(w) };
    let (op, by_col) = match call.op {
        Opcode::TRowSum => (RedOp::Sum, false),
        Opcode::TRowMax => (RedOp::Max, false),
        Opcode::TRowMin => (RedOp::Min, false),
        Opcode::TColSum => (RedOp::Sum, true),
        Opcode::TColMax => (RedOp::Max, true),
        Opcode::TColMin => (RedOp::Min, true),
        Opcode::TRowArgMax => (RedOp::ArgMax(arg(idx)?), false),
        Opcode::TRowArgMin => (RedOp::ArgMin(arg(idx)?), false),
        Opcode::TColArgMax => (RedOp::ArgMax(arg(idx)?), true),
        Opcode::TColArgMin => (RedOp::ArgMin(arg(idx)?), true),
        _ => return None,
    };
    let lane = red_lane(s.elem)?;
    let is_arg = matches!(op, RedOp::ArgMax(_) | RedOp::ArgMin(_));
    if lane == RedLane::F16 && op == RedOp::Sum && !f16_via_f32() {
        return None;
    }
    let (eb, ob) = (lane.bytes(), op.out_bytes(lane));
    let plain = |t: &Tile| t.loc == TileLoc::Vec && t.slayout == SLayout::NoneBox;
    let valid = |t: &Tile| t.v_row >= 0 && t.v_col >= 0 && t.v_row <= t.rows && t.v_col <= t.cols;
    if (!is_arg && d.elem != s.elem)
        || !plain(s)
        || !plain(d)
        || s.blayout != BLayout::RowMajor
        || !matches!(d.blayout, BLayout::RowMajor | BLayout::ColMajor)
        || !valid(s)
        || !valid(d)
        || d.v_row < 1
        || d.v_col < 1
        || s.v_row < 1
        || s.v_col < 1
        || (!by_col && s.v_row < d.v_row)
        || (by_col && s.v_col < d.v_col)
    {
        return None;
    }
    // results at a constant stride: column 0 of the destination's valid rows
    // (row form) or row 0 of its valid columns (column form)
    let n = if by_col { d.v_col } else { d.v_row };
    let at = |k: i64| {
        if by_col {
            d.elem_addr(0, k)
        } else {
            d.elem_addr(k, 0)
        }
    };
    let first = at(0).ok()?;
    let stride = if n > 1 {
        at(1).ok()? as i64 - first as i64
    } else {
        ob
    };
    let last = at(n - 1).ok()? as i64;
    if stride <= 0 || last != first as i64 + (n - 1) * stride {
        return None;
    }
    // the interpreter writes each result after reducing its line: a
    // destination overlapping the source would be read back; leave it to it
    let (slo, shi) = (s.addr, s.addr + s.bytes());
    if first < shi && slo < last as u64 + ob as u64 {
        return None;
    }
    let args = RowArgs {
        dst: first as i64,
        dst_stride: stride,
        src: s.addr as i64,
        src_stride: s.cols * eb,
        rows: if by_col { s.v_row } else { d.v_row },
        cols: if by_col { d.v_col } else { s.v_col },
    };
    Some(((RowRed { op, lane }, by_col), args, s, d))
}

/// Runs a row or column reduction (or `tpow`/`tpows`, see [`run_pow`])
/// compiled when the mode and counters say so; `None` when the call is not
/// one the JIT takes (the interpreter runs it).
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
    if matches!(call.op, Opcode::TPow | Opcode::TPows) {
        return run_pow(cache, mode, threshold, crosscheck, call, local, acc);
    }
    let (region, args, s, d) = plan(call)?;
    if !ripe(&cache.rows().counts, region, mode, threshold) {
        cache.note_cold();
        return None;
    }
    let code = get(cache, &region).ok()?;
    let shape = Shape {
        by_col: region.1,
        eb: region.0.lane.bytes(),
        ob: region.0.op.out_bytes(region.0.lane),
        float_sum: region.0.op == RedOp::Sum && region.0.lane.is_float(),
    };
    Some(run(&code, crosscheck, call, &args, shape, s, d, local, acc).map(|()| cache.note_exec()))
}

/// What `run` needs of a reduction's region.
#[derive(Clone, Copy)]
struct Shape {
    by_col: bool,
    /// Bytes per source element and per result.
    eb: i64,
    ob: i64,
    /// A float sum (any NaN matches any NaN in the crosscheck).
    float_sum: bool,
}

#[allow(clippy::too_many_arguments)]
fn run(
    code: &RowCompiled,
    crosscheck: bool,
    call: &TileCall,
    args: &RowArgs,
    shape: Shape,
    s: &Tile,
    d: &Tile,
    local: &mut Local,
    acc: &mut Accesses,
) -> Result<(), Fault> {
    let reference = crate::jitcall::reference(crosscheck, local, |copy, scratch| {
        crate::exec::reduce::run(call, copy, scratch)
    })?;
    let size = local.size(Space::Ub);
    // the results land in the destination tile (see `Local::whole_mut`)
    let ub = local.whole_mut(Space::Ub, d.addr, d.addr.saturating_add(d.bytes()))?;
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
    let Shape {
        by_col,
        eb,
        ob,
        float_sum,
    } = shape;
    // results: one per row (row form) or per column (column form)
    let results = if by_col { args.cols } else { args.rows };
    if acc.on {
        for r in 0..args.rows {
            acc.add(
                Space::Ub,
                (args.src + r * args.src_stride) as u64,
                (args.cols * eb) as u64,
                false,
            );
        }
        for r in 0..results {
            acc.add(Space::Ub, at(r), ob as u64, true);
        }
    }
    if let Some(want) = reference {
        for r in 0..results {
            let (x, y) = (
                want.slice(Space::Ub, at(r), ob as u64)?,
                local.slice(Space::Ub, at(r), ob as u64)?,
            );
            // which NaN operand a float sum keeps is the host compiler's choice
            let nan = |v: &[u8]| float_sum && crate::num::read(v, d.elem).f().is_nan();
            if x != y && !(nan(x) && nan(y)) {
                return fault(format!(
                    "crosscheck: JIT and interpreter differ at {} {r} of {}: interpreter {x:02x?}, JIT {y:02x?}",
                    if by_col { "column" } else { "row" },
                    call.op.name()
                ));
            }
        }
    }
    Ok(())
}

type PowMap = Mutex<HashMap<Region, Result<Arc<Compiled>, String>>>;

fn pow_cache() -> &'static PowMap {
    static CODE: std::sync::OnceLock<PowMap> = std::sync::OnceLock::new();
    CODE.get_or_init(Default::default)
}

/// `tpow` (tile ^ tile) and `tpows` (tile ^ scalar) on row-major f32 UB
/// tiles through the compiled `Pow` region (`pto_jit::mathf`), within
/// `pto_jit::POW_ULP` of the interpreter's f64 `powf` rounded to f32, special
/// values exactly; on i32 tiles bit-identical to the interpreter's integer
/// power (an i32 scalar exponent only). A scalar exponent that is not an f32 value (the
/// interpreter uses it unrounded), operands overlapping the destination
/// other than in place, or valid regions the interpreter would report stay
/// interpreted (`None`).
pub fn run_pow(
    cache: &JitCache,
    mode: JitMode,
    threshold: u32,
    crosscheck: bool,
    call: &TileCall,
    local: &mut Local,
    acc: &mut Accesses,
) -> Option<Result<(), Fault>> {
    let d = match call.outs.first() {
        Some(Val::Tile(t)) => t.as_ref(),
        _ => return None,
    };
    let a = match call.ins.first() {
        Some(Val::Tile(t)) => t.as_ref(),
        _ => return None,
    };
    // i32 tiles: the interpreter's exact integer power
    let int = d.elem == DType::I32;
    let (b, scalar, operands) = match (call.op, call.ins.get(1)) {
        (Opcode::TPow, Some(Val::Tile(t))) => (Some(t.as_ref()), 0, Operands::Binary),
        // an i32 exponent the interpreter reads as it is (wider ones stay there)
        (Opcode::TPows, Some(Val::Int(i))) if int => {
            let e = i32::try_from(*i).ok()?;
            (None, i64::from(e as u32), Operands::ScalarRight)
        }
        (Opcode::TPows, Some(v @ (Val::Float(_) | Val::Int(_)))) if !int => {
            let f = match v {
                Val::Float(f) => *f,
                Val::Int(i) => *i as f64,
                _ => return None,
            };
            if !f.is_nan() && f64::from(f as f32) != f {
                return None;
            }
            (None, i64::from((f as f32).to_bits()), Operands::ScalarRight)
        }
        _ => return None,
    };
    let plain = |t: &Tile| {
        t.loc == TileLoc::Vec
            && t.slayout == SLayout::NoneBox
            && t.blayout == BLayout::RowMajor
            && t.elem == if int { DType::I32 } else { DType::F32 }
    };
    let srcs = [Some(a), b];
    if !plain(d)
        || d.v_row < 0
        || d.v_col < 0
        || d.v_row > d.rows
        || d.v_col > d.cols
        || srcs.iter().flatten().any(|t| {
            !plain(t)
                || t.v_row < d.v_row
                || t.v_col < d.v_col
                // overlapping the destination other than in place
                || (t.addr < d.addr + d.bytes()
                    && d.addr < t.addr + t.bytes()
                    && (t.addr != d.addr || t.cols != d.cols))
        })
    {
        return None;
    }
    let region = Region {
        op: Op::Pow,
        lane: if int { Lane::I32 } else { Lane::F32 },
        operands,
    };
    if !ripe(&cache.rows().pow_counts, region, mode, threshold) {
        cache.note_cold();
        return None;
    }
    let code = fetch(
        cache,
        pow_cache(),
        &cache.rows().pow_seen,
        region,
        |r| compile(r).map_err(|e| e.to_string()),
        |c| (c.compile_time, c.code_bytes),
    )
    .ok()?;
    let bt = b.unwrap_or(a);
    let args = EwArgs {
        dst: d.addr as i64,
        dst_stride: d.cols * 4,
        a: a.addr as i64,
        a_stride: a.cols * 4,
        b: bt.addr as i64,
        b_stride: bt.cols * 4,
        rows: d.v_row,
        cols: d.v_col,
        scalar,
    };
    Some(
        run_pow_code(&code, crosscheck, call, &args, &srcs, local, acc).map(|()| cache.note_exec()),
    )
}

#[allow(clippy::too_many_arguments)]
fn run_pow_code(
    code: &Compiled,
    crosscheck: bool,
    call: &TileCall,
    args: &EwArgs,
    srcs: &[Option<&Tile>; 2],
    local: &mut Local,
    acc: &mut Accesses,
) -> Result<(), Fault> {
    let reference = crate::jitcall::reference(crosscheck, local, |copy, scratch| {
        crate::exec::irregular::run(call, copy, scratch)
    })?;
    let size = local.size(Space::Ub);
    // the op writes only the destination's rows (4-byte lanes)
    let (lo, hi) = crate::mem::rows_span(
        args.dst,
        args.rows,
        args.dst_stride,
        args.cols.saturating_mul(4),
    );
    let ub = local.whole_mut(Space::Ub, lo, hi)?;
    if code.call(ub, args) != Status::Ok {
        return fault(format!(
            "{}: a {}x{} operand reaches outside the {size} bytes of UB",
            call.op.name(),
            args.rows,
            args.cols
        ));
    }
    if acc.on {
        for r in 0..args.rows {
            for t in srcs.iter().flatten() {
                acc.add(
                    Space::Ub,
                    t.addr + (r * t.cols * 4) as u64,
                    (args.cols * 4) as u64,
                    false,
                );
            }
            acc.add(
                Space::Ub,
                (args.dst + r * args.dst_stride) as u64,
                (args.cols * 4) as u64,
                true,
            );
        }
    }
    if let Some(want) = reference {
        for r in 0..args.rows {
            let at = (args.dst + r * args.dst_stride) as u64;
            let n = (args.cols * 4) as u64;
            let (x, y) = (
                want.slice(Space::Ub, at, n)?,
                local.slice(Space::Ub, at, n)?,
            );
            for (c, (p, q)) in x.chunks(4).zip(y.chunks(4)).enumerate() {
                let f = |v: &[u8]| f32::from_le_bytes([v[0], v[1], v[2], v[3]]);
                let (p, q) = (f(p), f(q));
                let key = |v: f32| {
                    let i = v.to_bits() as i32;
                    if i < 0 {
                        i64::from(i32::MIN) - i64::from(i)
                    } else {
                        i64::from(i)
                    }
                };
                let close = if args_int(code) {
                    p.to_bits() == q.to_bits()
                } else {
                    (p.is_nan() && q.is_nan())
                        || (!p.is_nan()
                            && !q.is_nan()
                            && key(p).abs_diff(key(q)) <= u64::from(pto_jit::POW_ULP))
                };
                if !close {
                    return fault(format!(
                        "crosscheck: JIT and interpreter differ at element ({r}, {c}) of {}: interpreter {p:e}, JIT {q:e}",
                        call.op.name()
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Whether a compiled `Pow` works on i32 lanes (compared exactly).
fn args_int(code: &Compiled) -> bool {
    code.region.lane == Lane::I32
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
    if !ripe(&cache.rows().cvt_counts, region, mode, threshold) {
        cache.note_cold();
        return None;
    }
    let code = fetch(
        cache,
        cvt_cache(),
        &cache.rows().cvt_seen,
        region,
        |r| compile_cvt(r).map_err(|e| e.to_string()),
        |c| (c.compile_time, c.code_bytes),
    )
    .ok()?;
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
    let reference = crate::jitcall::reference(crosscheck, local, |copy, scratch| {
        crate::exec::convert::run(call, copy, scratch)
    })?;
    let size = local.size(Space::Ub);
    // the conversion writes only the destination's rows
    let (lo, hi) = crate::mem::rows_span(
        args.dst,
        args.rows,
        args.dst_stride,
        args.cols.saturating_mul(des),
    );
    let ub = local.whole_mut(Space::Ub, lo, hi)?;
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
