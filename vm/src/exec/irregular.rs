//! Elementwise tile ops beyond the built-in fast path: compare into packed bit
//! masks (`tcmp`, `tcmps`), select by mask (`tsel`, `tsels`), `tprelu`,
//! `tlrelu`, remainders (`trem`/`trems` take the divisor's sign,
//! `tfmod`/`tfmods` the dividend's), powers, three-operand sums (`taddc`,
//! `tsubc`, `taddsc`, `tsubsc`), `taxpy`, fused forms, and the partial ops
//! `tpart{add,max,min,mul}` and `tpartarg{max,min}` (values with their indices:
//! the first source wins only when strictly greater (smaller), so ties and NaN
//! take the second; where only one source is valid it is copied with its index),
//! `taddreluconv` (`convert(max(0, a + b))`: the sum in the source type, f32 ->
//! f16, f16 -> i8, i16 -> i8, round to nearest even and saturate; an i16 sum
//! wraps), `tsubreluconv` (the same with `a - b`) and `tadddeqrelu` (`half(max(0, f32(a + b) * deqScale))` from i32
//! sources, the sum wrapping, saturating to the largest finite half).
//!
//! The iteration domain is the destination's valid region. Floats compute in
//! f64 and round once to the destination type (fused multiply-adds into a half
//! type round through f32 first, per decisions.md); integers wrap.
//!
//! Masks: `tcmp`/`tcmps` write one mask row per source row, bit `j` of the row
//! in word `j / W`, bit `j % W`, least significant bit first, where `W` is the
//! mask element's width in bits (8 for i8/u8, 32 for i32/u32). Words past the
//! source's valid columns, and the rest of the mask tile, are zeroed.
//! `tsel`/`tsels` read masks the same way; bit 1 selects the first source.

use pto_isa_spec::{DType, Opcode};

use crate::exec::tile_ops::{
    attr_sym, check_covers, check_valid, get, get_bits, in_scalar, in_tile, in_tiles, out_tile,
    put, put_bits, scalar_of, short, TileCall,
};
use crate::exec::{fault, Accesses, Fault};
use crate::mem::Local;
use crate::num::{int_key, round_float, wrap, Num};
use crate::value::{Tile, Val};

/// Executes one of this file's ops.
pub fn run(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    use Opcode as O;
    match call.op {
        O::TCmp | O::TCmps => cmp(call, local, acc),
        O::TSel | O::TSels => sel(call, local, acc),
        O::TPartAdd | O::TPartMax | O::TPartMin | O::TPartMul => part(call, local, acc),
        O::TPartArgMax | O::TPartArgMin => partarg(call, local, acc),
        O::TAddReluConv | O::TSubReluConv | O::TAddDeqRelu => add_relu_conv(call, local, acc),
        _ => lanes(call, local, acc),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

fn cmp_mode(call: &TileCall) -> Result<Cmp, Fault> {
    let s = attr_sym(call, &["cmpMode", "cmp_mode", "mode", "cmp"])
        .or_else(|| {
            call.attrs.iter().find_map(|(k, v)| match v {
                crate::program::AttrVal::Sym(s) if k.is_empty() => Some(s.to_ascii_uppercase()),
                _ => None,
            })
        })
        .unwrap_or_else(|| "EQ".to_string());
    let u = s.trim_matches('"');
    let u = u.strip_prefix("CMP_").unwrap_or(u);
    Ok(match u {
        "EQ" => Cmp::Eq,
        "NE" => Cmp::Ne,
        "LT" => Cmp::Lt,
        "LE" => Cmp::Le,
        "GT" => Cmp::Gt,
        "GE" => Cmp::Ge,
        other => return fault(format!("{}: unknown compare mode '{other}'", short(call))),
    })
}

fn compare(mode: Cmp, x: Num, y: Num, dt: DType) -> bool {
    if dt.is_float() {
        let (a, b) = (x.f(), y.f());
        match mode {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
        }
    } else {
        let (a, b) = (int_key(x, dt), int_key(y, dt));
        match mode {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
        }
    }
}

fn mask_width(call: &TileCall, m: &Tile) -> Result<i64, Fault> {
    if m.elem.is_float() {
        return fault(format!(
            "{}: the mask tile must have an integer element type, found {}",
            short(call),
            m.elem
        ));
    }
    Ok(m.elem.bits().clamp(8, 64) as i64)
}

/// `tcmp` / `tcmps`.
fn cmp(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let mode = cmp_mode(call)?;
    let a = in_tile(call, 0, "first source")?;
    let dst = out_tile(call, 0, "mask destination")?;
    check_valid(call, a, "source")?;
    check_valid(call, dst, "mask destination")?;
    let w = mask_width(call, dst)?;
    // the second operand: a tile (tcmp; tcmps compares with its element (0, 0)) or a scalar
    let b_tile = in_tiles(call).get(1).copied();
    let scalar = match call.op {
        Opcode::TCmps => match b_tile {
            Some(t) => {
                check_valid(call, t, "second source")?;
                Some(get(local, t, 0, 0, acc)?)
            }
            None => Some(in_scalar(call, 0, "to compare with")?),
        },
        _ => None,
    };
    let (rows, cols) = (a.v_row, a.v_col);
    if rows > dst.v_row {
        return fault(format!(
            "{}: the source has {rows} valid rows but the mask destination only {}",
            short(call),
            dst.v_row
        ));
    }
    let words = (cols + w - 1) / w;
    if words > dst.cols {
        return fault(format!(
            "{}: {cols} columns need {words} mask words per row but the mask tile has {} columns",
            short(call),
            dst.cols
        ));
    }
    let b = match (scalar, b_tile) {
        (None, Some(t)) => {
            check_covers(call, t, rows, cols, "second source")?;
            Some(t)
        }
        (None, None) => return fault(format!("{}: missing second source tile", short(call))),
        _ => None,
    };
    let mut bits = vec![0u64; (rows * words).max(0) as usize];
    for r in 0..rows {
        for c in 0..cols {
            let x = get(local, a, r, c, acc)?;
            let y = match (scalar, b) {
                (Some(s), _) => s,
                (None, Some(b)) => get(local, b, r, c, acc)?,
                _ => Num::I(0),
            };
            if compare(mode, x, y, a.elem) {
                bits[(r * words + c / w) as usize] |= 1u64 << (c % w);
            }
        }
    }
    // zero the whole mask tile, then write the packed rows
    for r in 0..dst.rows {
        for c in 0..dst.cols {
            let v = if r < rows && c < words {
                bits[(r * words + c) as usize]
            } else {
                0
            };
            put_bits(local, dst, r, c, v, acc)?;
        }
    }
    Ok(())
}

/// Reads mask bit (r, c).
fn mask_bit(
    call: &TileCall,
    local: &Local,
    m: &Tile,
    w: i64,
    r: i64,
    c: i64,
    acc: &mut Accesses,
) -> Result<bool, Fault> {
    let word = c / w;
    if r >= m.rows || word >= m.cols {
        return fault(format!(
            "{}: mask bit ({r}, {c}) is in word ({r}, {word}), outside the {}x{} mask tile",
            short(call),
            m.rows,
            m.cols
        ));
    }
    Ok((get_bits(local, m, r, word, acc)? >> (c % w)) & 1 == 1)
}

/// `tsel` (mask, src0, src1[, tmp]) and `tsels` (mask, src[, tmp], scalar).
fn sel(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let m = in_tile(call, 0, "mask")?;
    let a = in_tile(call, 1, "first source")?;
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, dst, "destination")?;
    check_covers(call, a, dst.v_row, dst.v_col, "first source")?;
    let w = mask_width(call, m)?;
    let other = if call.op == Opcode::TSels {
        Err(in_scalar(call, 0, "to select")?)
    } else {
        let b = in_tile(call, 2, "second source")?;
        check_covers(call, b, dst.v_row, dst.v_col, "second source")?;
        Ok(b)
    };
    let mut vals = Vec::with_capacity((dst.v_row * dst.v_col).max(0) as usize);
    for r in 0..dst.v_row {
        for c in 0..dst.v_col {
            let v = if mask_bit(call, local, m, w, r, c, acc)? {
                get(local, a, r, c, acc)?
            } else {
                match other {
                    Ok(b) => get(local, b, r, c, acc)?,
                    Err(s) => s,
                }
            };
            vals.push(v);
        }
    }
    let mut it = vals.into_iter();
    for r in 0..dst.v_row {
        for c in 0..dst.v_col {
            if let Some(v) = it.next() {
                put(local, dst, r, c, v, acc)?;
            }
        }
    }
    Ok(())
}

/// `tpart{add,max,min,mul}`: the op where both sources are valid, else a copy
/// of the one that is; elements valid in neither are left unchanged.
fn part(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let a = in_tile(call, 0, "first source")?;
    let b = in_tile(call, 1, "second source")?;
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, a, "first source")?;
    check_valid(call, b, "second source")?;
    check_valid(call, dst, "destination")?;
    let mut vals = Vec::new();
    for r in 0..dst.v_row {
        for c in 0..dst.v_col {
            let ina = r < a.v_row && c < a.v_col;
            let inb = r < b.v_row && c < b.v_col;
            let v = match (ina, inb) {
                (true, true) => {
                    let (x, y) = (get(local, a, r, c, acc)?, get(local, b, r, c, acc)?);
                    Some(binop(call.op, x, y, dst.elem))
                }
                (true, false) => Some(get(local, a, r, c, acc)?),
                (false, true) => Some(get(local, b, r, c, acc)?),
                (false, false) => None,
            };
            vals.push((r, c, v));
        }
    }
    for (r, c, v) in vals {
        if let Some(v) = v {
            put(local, dst, r, c, v, acc)?;
        }
    }
    Ok(())
}

/// `taddreluconv`, `tsubreluconv` and `tadddeqrelu`.
fn add_relu_conv(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let name = short(call);
    let a = in_tile(call, 0, "first source")?;
    let b = in_tile(call, 1, "second source")?;
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, dst, "destination")?;
    check_covers(call, a, dst.v_row, dst.v_col, "first source")?;
    check_covers(call, b, dst.v_row, dst.v_col, "second source")?;
    if a.elem != b.elem {
        return fault(format!(
            "{name}: the sources' element types differ ({} and {})",
            a.elem, b.elem
        ));
    }
    let deq = call.op == Opcode::TAddDeqRelu;
    let sub = call.op == Opcode::TSubReluConv;
    let scale = if deq {
        if (a.elem, dst.elem) != (DType::I32, DType::F16) {
            return fault(format!(
                "tadddeqrelu: needs i32 sources and an f16 destination, found {} -> {}",
                a.elem, dst.elem
            ));
        }
        Some(round_float(in_scalar(call, 0, "deqScale")?.f(), DType::F32))
    } else {
        match (a.elem, dst.elem) {
            (DType::F32, DType::F16) | (DType::F16, DType::I8) | (DType::I16, DType::I8) => None,
            (s, d) => {
                return fault(format!(
                    "{name}: {s} -> {d} is not a supported pair (f32 -> f16, f16 -> i8, i16 -> i8)"
                ))
            }
        }
    };
    const HALF_MAX: f64 = 65504.0;
    for r in 0..dst.v_row {
        for c in 0..dst.v_col {
            let (x, y) = (get(local, a, r, c, acc)?, get(local, b, r, c, acc)?);
            let v = match (scale, a.elem) {
                (Some(s), _) => {
                    let sum = round_float(
                        wrap(x.i().wrapping_add(y.i()), DType::I32) as f64,
                        DType::F32,
                    );
                    let t = round_float(sum * s, DType::F32).max(0.0);
                    Num::F(round_float(t, DType::F16).clamp(-HALF_MAX, HALF_MAX))
                }
                (None, DType::I16) => {
                    let s = if sub {
                        x.i().wrapping_sub(y.i())
                    } else {
                        x.i().wrapping_add(y.i())
                    };
                    let sum = wrap(s, DType::I16).max(0);
                    Num::I(sum.min(127))
                }
                (None, src) => {
                    let s = if sub { x.f() - y.f() } else { x.f() + y.f() };
                    let sum = round_float(s, src);
                    let t = if sum.is_nan() { sum } else { sum.max(0.0) };
                    if dst.elem == DType::F16 {
                        Num::F(round_float(t, DType::F16).clamp(-HALF_MAX, HALF_MAX))
                    } else if t.is_nan() {
                        Num::I(0)
                    } else {
                        Num::I(t.round_ties_even().min(127.0) as i64)
                    }
                }
            };
            put(local, dst, r, c, v, acc)?;
        }
    }
    Ok(())
}

/// `tpartarg{max,min} ins(%v0, %v1, %i0, %i1) outs(%v, %i)`.
fn partarg(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let v0 = in_tile(call, 0, "first value source")?;
    let v1 = in_tile(call, 1, "second value source")?;
    let i0 = in_tile(call, 2, "first index source")?;
    let i1 = in_tile(call, 3, "second index source")?;
    let dv = out_tile(call, 0, "value destination")?;
    let di = out_tile(call, 1, "index destination")?;
    for (t, w) in [
        (v0, "first value source"),
        (v1, "second value source"),
        (dv, "value destination"),
        (di, "index destination"),
    ] {
        check_valid(call, t, w)?;
    }
    if v0.elem != dv.elem || v1.elem != dv.elem {
        return fault(format!(
            "{}: value sources ({}, {}) and destination ({}) element types differ",
            short(call),
            v0.elem,
            v1.elem,
            dv.elem
        ));
    }
    if [i0, i1, di].iter().any(|t| t.elem.is_float()) {
        return fault(format!("{}: index tiles must hold integers", short(call)));
    }
    if di.v_row < dv.v_row || di.v_col < dv.v_col {
        return fault(format!(
            "{}: the index destination's valid region {}x{} is smaller than the value destination's {}x{}",
            short(call),
            di.v_row,
            di.v_col,
            dv.v_row,
            dv.v_col
        ));
    }
    let float = dv.elem.is_float();
    let max = call.op == Opcode::TPartArgMax;
    let mut out = Vec::new();
    for r in 0..dv.v_row {
        for c in 0..dv.v_col {
            let in0 = r < v0.v_row && c < v0.v_col;
            let in1 = r < v1.v_row && c < v1.v_col;
            let first = match (in0, in1) {
                (true, true) => {
                    let (x, y) = (get(local, v0, r, c, acc)?, get(local, v1, r, c, acc)?);
                    match (float, max) {
                        (true, true) => x.f() > y.f(),
                        (true, false) => x.f() < y.f(),
                        (false, true) => int_key(x, dv.elem) > int_key(y, dv.elem),
                        (false, false) => int_key(x, dv.elem) < int_key(y, dv.elem),
                    }
                }
                (true, false) => true,
                (false, true) => false,
                (false, false) => continue,
            };
            let (vt, it) = if first { (v0, i0) } else { (v1, i1) };
            let v = get(local, vt, r, c, acc)?;
            let i = get(local, it, r, c, acc)?;
            out.push((r, c, v, i));
        }
    }
    for (r, c, v, i) in out {
        put(local, dv, r, c, v, acc)?;
        put(local, di, r, c, i, acc)?;
    }
    Ok(())
}

fn binop(op: Opcode, x: Num, y: Num, dt: DType) -> Num {
    use Opcode as O;
    if dt.is_float() {
        let (a, b) = (x.f(), y.f());
        Num::F(match op {
            O::TPartAdd => a + b,
            O::TPartMul => a * b,
            O::TPartMax => crate::exec::tile_ops::fmax(a, b),
            _ => crate::exec::tile_ops::fmin(a, b),
        })
    } else {
        let (a, b) = (x.i(), y.i());
        Num::I(match op {
            O::TPartAdd => a.wrapping_add(b),
            O::TPartMul => a.wrapping_mul(b),
            O::TPartMax if int_key(x, dt) > int_key(y, dt) => a,
            O::TPartMax => b,
            _ if int_key(x, dt) < int_key(y, dt) => a,
            _ => b,
        })
    }
}

/// An operand of a lane-wise op.
#[derive(Clone, Copy)]
enum Opnd<'a> {
    Tile(&'a Tile),
    Scalar(Num),
}

/// Lane-wise ops with tile and scalar operands.
fn lanes(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    use Opcode as O;
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, dst, "destination")?;
    // operands in `ins` order: tiles and scalars
    let mut ops: Vec<Opnd> = Vec::new();
    for v in &call.ins {
        match v {
            Val::Tile(t) => ops.push(Opnd::Tile(t)),
            other => match scalar_of(other) {
                Some(s) => ops.push(Opnd::Scalar(s)),
                None => {
                    return fault(format!(
                        "{}: unexpected operand ({}) in ins",
                        short(call),
                        other.kind()
                    ))
                }
            },
        }
    }
    // how many leading operands the op reads (the rest are scratch tiles)
    let (n, reads_dst) = match call.op {
        O::TPrelu | O::TRem | O::TFmod | O::TPow | O::TAddRelu | O::TSubRelu => (2, false),
        O::TRems | O::TFmods | O::TPows | O::TLrelu => (2, false),
        O::TAddc | O::TSubc | O::TAddsc | O::TSubsc => (3, false),
        O::TAxpy | O::TMuladdDst | O::TFusedMuladd | O::TFusedMuladdRelu => (2, true),
        _ => return fault(format!("{} is not handled here", call.op.name())),
    };
    if ops.len() < n {
        return fault(format!(
            "{}: needs {n} operands in ins, found {}",
            short(call),
            ops.len()
        ));
    }
    let ops = &ops[..n];
    for (k, o) in ops.iter().enumerate() {
        if let Opnd::Tile(t) = o {
            check_covers(call, t, dst.v_row, dst.v_col, &format!("operand {}", k + 1))?;
        }
    }
    let dt = dst.elem;
    let mut vals = Vec::with_capacity((dst.v_row * dst.v_col).max(0) as usize);
    for r in 0..dst.v_row {
        for c in 0..dst.v_col {
            let mut x = [Num::I(0); 4];
            for (k, o) in ops.iter().enumerate() {
                x[k] = match o {
                    Opnd::Tile(t) => get(local, t, r, c, acc)?,
                    Opnd::Scalar(s) => *s,
                };
            }
            if reads_dst {
                x[n] = get(local, dst, r, c, acc)?;
            }
            vals.push(lane(call.op, &x, dt));
        }
    }
    let mut it = vals.into_iter();
    for r in 0..dst.v_row {
        for c in 0..dst.v_col {
            if let Some(v) = it.next() {
                put(local, dst, r, c, v, acc)?;
            }
        }
    }
    Ok(())
}

/// Remainder with the divisor's sign (floats).
fn rem_floor(a: f64, b: f64) -> f64 {
    let r = a % b;
    if r != 0.0 && ((r < 0.0) != (b < 0.0)) {
        r + b
    } else {
        r
    }
}

/// Multiply-add for the fused forms: half types round through f32.
fn mul_add(a: f64, b: f64, c: f64, dt: DType) -> f64 {
    let v = a.mul_add(b, c);
    match dt {
        DType::F16 | DType::BF16 => round_float(v, DType::F32),
        _ => v,
    }
}

fn relu_f(x: f64) -> f64 {
    if x > 0.0 || x.is_nan() {
        x
    } else {
        0.0
    }
}

fn lane(op: Opcode, x: &[Num; 4], dt: DType) -> Num {
    use Opcode as O;
    if dt.is_float() {
        let (a, b, c) = (x[0].f(), x[1].f(), x[2].f());
        Num::F(match op {
            O::TPrelu | O::TLrelu => {
                if a > 0.0 || a.is_nan() {
                    a
                } else {
                    a * b
                }
            }
            O::TRem | O::TRems => rem_floor(a, b),
            O::TFmod | O::TFmods => a % b,
            O::TPow | O::TPows => a.powf(b),
            O::TAddRelu => relu_f(a + b),
            O::TSubRelu => relu_f(a - b),
            O::TAddc | O::TAddsc => a + b + c,
            O::TSubc | O::TSubsc => a - b + c,
            // dst = s * src + dst
            O::TAxpy => mul_add(b, a, c, dt),
            // dst = a * b + dst
            O::TMuladdDst => mul_add(a, b, c, dt),
            // dst = a * dst + b
            O::TFusedMuladd => mul_add(a, c, b, dt),
            O::TFusedMuladdRelu => relu_f(mul_add(a, c, b, dt)),
            _ => f64::NAN,
        })
    } else {
        let (a, b, c) = (x[0].i(), x[1].i(), x[2].i());
        // the sum wraps in the element type first: relu of a wrapped result is never negative
        let relu = |v: i64| wrap(v, dt).max(0);
        Num::I(match op {
            O::TPrelu | O::TLrelu => {
                if a > 0 {
                    a
                } else {
                    a.wrapping_mul(b)
                }
            }
            O::TRem | O::TRems | O::TFmod | O::TFmods if dt == DType::U64 => {
                // u64 elements are held as their bits: the unsigned remainder (no signs)
                if b == 0 {
                    0
                } else {
                    ((a as u64) % (b as u64)) as i64
                }
            }
            O::TRem | O::TRems => {
                if b == 0 {
                    0
                } else {
                    let r = a.wrapping_rem(b);
                    if r != 0 && ((r < 0) != (b < 0)) {
                        r + b
                    } else {
                        r
                    }
                }
            }
            O::TFmod | O::TFmods => {
                if b == 0 {
                    0
                } else {
                    a.wrapping_rem(b)
                }
            }
            O::TPow | O::TPows => int_pow(a, b),
            O::TAddRelu => relu(a.wrapping_add(b)),
            O::TSubRelu => relu(a.wrapping_sub(b)),
            O::TAddc | O::TAddsc => a.wrapping_add(b).wrapping_add(c),
            O::TSubc | O::TSubsc => a.wrapping_sub(b).wrapping_add(c),
            O::TAxpy => b.wrapping_mul(a).wrapping_add(c),
            O::TMuladdDst => a.wrapping_mul(b).wrapping_add(c),
            O::TFusedMuladd => a.wrapping_mul(c).wrapping_add(b),
            O::TFusedMuladdRelu => relu(a.wrapping_mul(c).wrapping_add(b)),
            _ => 0,
        })
    }
}

/// Integer power (wrapping); negative exponents give the truncated reciprocal.
fn int_pow(a: i64, b: i64) -> i64 {
    if b < 0 {
        return match a {
            1 => 1,
            -1 => {
                if b % 2 == 0 {
                    1
                } else {
                    -1
                }
            }
            _ => 0,
        };
    }
    let mut result: i64 = 1;
    let mut base = a;
    let mut e = b as u64;
    while e > 0 {
        if e & 1 == 1 {
            result = result.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        e >>= 1;
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remainders_take_the_right_sign() {
        assert_eq!(rem_floor(-7.0, 3.0), 2.0);
        assert_eq!(rem_floor(7.0, -3.0), -2.0);
        assert_eq!(rem_floor(6.0, 3.0), 0.0);
        let x = [Num::I(-7), Num::I(3), Num::I(0), Num::I(0)];
        assert_eq!(lane(Opcode::TRem, &x, DType::I32), Num::I(2));
        assert_eq!(lane(Opcode::TFmod, &x, DType::I32), Num::I(-1));
        assert_eq!(int_pow(3, 4), 81);
        assert_eq!(int_pow(2, -1), 0);
    }

    #[test]
    fn integer_relu_sees_the_wrapped_sum() {
        let x = [Num::I(i32::MAX as i64), Num::I(1), Num::I(0), Num::I(0)];
        assert_eq!(lane(Opcode::TAddRelu, &x, DType::I32), Num::I(0));
        let y = [Num::I(i32::MIN as i64), Num::I(1), Num::I(0), Num::I(0)];
        assert_eq!(
            lane(Opcode::TSubRelu, &y, DType::I32),
            Num::I(i32::MAX as i64)
        );
        let u = [Num::I(u64::MAX as i64), Num::I(10), Num::I(0), Num::I(0)];
        assert_eq!(lane(Opcode::TRem, &u, DType::U64), Num::I(5));
        assert_eq!(lane(Opcode::TFmods, &u, DType::U64), Num::I(5));
        let z = [Num::I(100), Num::I(50), Num::I(0), Num::I(0)];
        assert_eq!(lane(Opcode::TAddRelu, &z, DType::I8), Num::I(0));
    }
}
