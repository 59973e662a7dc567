//! Lane-wise vector arithmetic beyond the built-in fast paths (fused and
//! SFU ops, carries, bit counts, masked moves), compare/select and the
//! cross-lane reductions.
//!
//! Masked-off lanes of a computed register are zero; compare results are
//! predicates in the hardware image (one bit per lane at bit `i * size`).

use pto_isa_spec::{DType, Opcode};

use crate::exec::vec_ops::{
    get, lanes, mask_from, on, put, raw, scalar, set_raw, zreg, Args, Cx, Mask, VReg,
};
use crate::exec::Fault;
use crate::num::{round_float, wrap, Num};
use crate::value::Val;

fn relu(x: Num, dt: DType) -> Num {
    if dt.is_float() {
        let v = x.f();
        Num::F(if v > 0.0 || v.is_nan() { v } else { 0.0 })
    } else {
        Num::I(x.i().max(0))
    }
}

fn add(x: Num, y: Num, dt: DType) -> Num {
    if dt.is_float() {
        Num::F(x.f() + y.f())
    } else {
        Num::I(wrap(x.i().wrapping_add(y.i()), dt))
    }
}

fn sub(x: Num, y: Num, dt: DType) -> Num {
    if dt.is_float() {
        Num::F(x.f() - y.f())
    } else {
        Num::I(wrap(x.i().wrapping_sub(y.i()), dt))
    }
}

fn mul(x: Num, y: Num, dt: DType) -> Num {
    if dt.is_float() {
        Num::F(x.f() * y.f())
    } else {
        Num::I(wrap(x.i().wrapping_mul(y.i()), dt))
    }
}

/// `x < 0 ? x * a : x` (leaky / parametric ReLU).
fn leaky(x: Num, a: Num, dt: DType) -> Num {
    let neg = if dt.is_float() {
        x.f() < 0.0
    } else {
        x.i() < 0
    };
    if neg {
        mul(x, a, dt)
    } else {
        x
    }
}

/// Lane-wise map over up to three registers.
fn map(dt: DType, regs: &[&VReg], mask: Option<&Mask>, f: impl Fn(&[Num]) -> Num) -> Box<VReg> {
    let es = dt.bytes();
    let mut out = zreg();
    let mut xs = [Num::I(0); 3];
    for i in 0..lanes(dt) {
        if !on(mask, i, es) {
            continue;
        }
        for (k, r) in regs.iter().enumerate().take(3) {
            xs[k] = get(r, i, dt);
        }
        put(&mut out, i, dt, f(&xs[..regs.len().min(3)]));
    }
    out
}

fn need_v<'a>(cx: &Cx, a: &Args<'a>, n: usize) -> Result<(), Fault> {
    if a.v.len() < n {
        return cx.err(format!("needs {n} vector operand(s), got {}", a.v.len()));
    }
    Ok(())
}

fn need_s(cx: &Cx, a: &Args, dt: DType) -> Result<Num, Fault> {
    match a.s.first() {
        Some(v) => Ok(scalar(v, dt)),
        None => cx.err("needs a scalar operand"),
    }
}

/// Comparison by mode name (`eq`, `ne`, `lt`, `le`, `gt`, `ge`; any case,
/// optional `CMP_` prefix).
fn compare(mode: &str, x: Num, y: Num, dt: DType) -> Option<bool> {
    let m = mode.to_ascii_lowercase();
    let m = m.strip_prefix("cmp_").unwrap_or(&m);
    let ord = if dt.is_float() {
        x.f().partial_cmp(&y.f())
    } else {
        Some(x.i().cmp(&y.i()))
    };
    use std::cmp::Ordering as O;
    Some(match m {
        "eq" => ord == Some(O::Equal),
        "ne" => ord != Some(O::Equal),
        "lt" => ord == Some(O::Less),
        "le" => matches!(ord, Some(O::Less | O::Equal)),
        "gt" => ord == Some(O::Greater),
        "ge" => matches!(ord, Some(O::Greater | O::Equal)),
        _ => return None,
    })
}

/// Count of leading bits after the sign bit that equal it (`w`-bit lane).
/// Leading sign bits of the `w`-bit value `x`: how many bits from the MSB
/// down equal the sign bit, the sign bit itself included (the pto-isa
/// manual: "counts how many bits from the MSB are equal to the sign bit";
/// 0 and -1 give `w`). Arm's CLS excludes the sign bit and is one less.
fn cls(x: i64, w: u32) -> i64 {
    let v = (x as u64) << (64 - w);
    let v = if (v as i64) < 0 { !v } else { v };
    v.leading_zeros().min(w) as i64
}

/// Lane-wise, fused, carry, compare and select ops.
pub fn run(cx: &Cx, a: &Args) -> Result<Vec<Val>, Fault> {
    use Opcode as O;
    let m0 = a.m.first().copied();
    let out = match cx.op {
        O::VLrelu => {
            need_v(cx, a, 1)?;
            let dt = cx.dst()?;
            let s = need_s(cx, a, dt)?;
            map(dt, &a.v[..1], m0, |x| leaky(x[0], s, dt))
        }
        O::VPrelu => {
            need_v(cx, a, 2)?;
            let dt = cx.dst()?;
            map(dt, &a.v[..2], m0, |x| leaky(x[0], x[1], dt))
        }
        O::VAddrelu | O::VSubrelu => {
            need_v(cx, a, 2)?;
            let dt = cx.dst()?;
            let is_add = cx.op == O::VAddrelu;
            map(dt, &a.v[..2], m0, |x| {
                let r = if is_add {
                    add(x[0], x[1], dt)
                } else {
                    sub(x[0], x[1], dt)
                };
                relu(r, dt)
            })
        }
        O::VAxpy => {
            // %x, %y, %alpha: alpha * x + y, rounded once
            need_v(cx, a, 2)?;
            let dt = cx.dst()?;
            let s = need_s(cx, a, dt)?;
            map(dt, &a.v[..2], m0, |x| add(mul(s, x[0], dt), x[1], dt))
        }
        O::VMula => {
            // %acc, %lhs, %rhs: acc + lhs * rhs, rounded once
            need_v(cx, a, 3)?;
            let dt = cx.dst()?;
            map(dt, &a.v[..3], m0, |x| add(x[0], mul(x[1], x[2], dt), dt))
        }
        O::VMadd => {
            // %acc, %lhs, %rhs: lhs * acc + rhs, fused (one rounding)
            need_v(cx, a, 3)?;
            let dt = cx.dst()?;
            map(dt, &a.v[..3], m0, |x| {
                if dt == DType::F32 {
                    let (p, q, r) = (x[1].f() as f32, x[0].f() as f32, x[2].f() as f32);
                    Num::F(f64::from(p.mul_add(q, r)))
                } else if dt.is_float() {
                    Num::F(x[1].f().mul_add(x[0].f(), x[2].f()))
                } else {
                    Num::I(wrap(
                        x[1].i().wrapping_mul(x[0].i()).wrapping_add(x[2].i()),
                        dt,
                    ))
                }
            })
        }
        O::VMull => return mull(cx, a),
        O::Chistv2 | O::Dhistv2 => return hist(cx, a),
        O::VAddc | O::VSubc | O::VAddcs | O::VSubcs => return carry(cx, a),
        O::VBcnt => {
            need_v(cx, a, 1)?;
            let dt = cx.dst()?;
            let w = dt.bits();
            map(dt, &a.v[..1], m0, |x| {
                let bits = (x[0].i() as u64) & (u64::MAX >> (64 - w));
                Num::I(bits.count_ones() as i64)
            })
        }
        O::VCls => {
            need_v(cx, a, 1)?;
            let dt = cx.dst()?;
            let w = dt.bits();
            map(dt, &a.v[..1], m0, |x| Num::I(cls(x[0].i(), w)))
        }
        O::VMov => {
            need_v(cx, a, 1)?;
            match m0 {
                None => Box::new(*a.v[0]),
                Some(m) => {
                    let dt = cx.dst()?;
                    let es = dt.bytes();
                    let mut out = zreg();
                    for i in 0..lanes(dt) {
                        if on(Some(m), i, es) {
                            set_raw(&mut out, i, es, raw(a.v[0], i, es));
                        }
                    }
                    out
                }
            }
        }
        O::VExpdif => return expdif(cx, a),
        O::VCmp | O::VCmps => {
            need_v(cx, a, 1)?;
            let dt = cx.src()?;
            let es = dt.bytes();
            let mode = cx
                .sym_or_pos(&["cmp_mode", "mode", "cmpMode"])
                .unwrap_or("eq")
                .to_string();
            let rhs: Option<Num> = if cx.op == O::VCmps {
                Some(need_s(cx, a, dt)?)
            } else {
                need_v(cx, a, 2)?;
                None
            };
            if compare(&mode, Num::I(0), Num::I(0), dt).is_none() {
                return cx.err(format!("has an unknown compare mode '{mode}'"));
            }
            let m = mask_from(es, |i| {
                let x = get(a.v[0], i, dt);
                let y = match rhs {
                    Some(s) => s,
                    None => get(a.v[1], i, dt),
                };
                on(m0, i, es) && compare(&mode, x, y, dt).unwrap_or(false)
            });
            return Ok(vec![Val::Mask(m)]);
        }
        O::VSel => {
            need_v(cx, a, 2)?;
            let Some(m) = m0 else {
                return cx.err("needs a select mask");
            };
            let es = cx.dst()?.bytes();
            let mut out = zreg();
            for i in 0..256 / es {
                let src = if on(Some(m), i, es) { a.v[0] } else { a.v[1] };
                set_raw(&mut out, i, es, raw(src, i, es));
            }
            out
        }
        O::VSelr | O::VSelrv2 => {
            // register select by lane index: dst[i] = src[idx[i] mod N];
            // `vselrv2` is another encoding with vselr's visible result (the
            // pto-isa manual) and vselr's operand contract (PTOAS verifies
            // both with one lane-select rule)
            need_v(cx, a, 2)?;
            let es = cx.dst()?.bytes();
            let n = 256 / es;
            let mut out = zreg();
            for i in 0..n {
                let j = (raw(a.v[1], i, es) as usize) % n;
                set_raw(&mut out, i, es, raw(a.v[0], j, es));
            }
            out
        }
        _ => return cx.err("is not an arithmetic op"),
    };
    Ok(vec![Val::VReg(out)])
}

/// `dhistv2 %acc, %src, %mask, %bin` / `chistv2`: 256 ui8 samples into the
/// 128 ui16 bins `128 * bin ..` of a 256-bin histogram (`bin` 0 or 1), added to
/// `acc` (16-bit wrap). `dhistv2` counts the samples equal to a bin,
/// `chistv2` those at or below it: cumulative over all 256 bins, so the high
/// half includes the low half's samples. The PTOAS VMI manual's lowering of
/// `vdhist`/`vchist` (bin 0 = bins 0..127, bin 1 = 128..255, "global
/// cumulative" confirmed on A5) pins both.
fn hist(cx: &Cx, a: &Args) -> Result<Vec<Val>, Fault> {
    need_v(cx, a, 2)?;
    let half = match a.s.first().and_then(|s| s.as_i64()) {
        Some(b @ (0 | 1)) => b as usize,
        Some(b) => return cx.err(format!("bin {b} is not 0 or 1")),
        None => return cx.err("needs a bin operand (0 or 1)"),
    };
    let m0 = a.m.first().copied();
    let mut count = [0u64; 256];
    for i in 0..256 {
        if on(m0, i, 1) {
            count[raw(a.v[1], i, 1) as usize] += 1;
        }
    }
    let cumulative = cx.op == Opcode::Chistv2;
    let mut out = zreg();
    let mut below: u64 = count[..128 * half].iter().sum();
    for b in 0..128 {
        let k = 128 * half + b;
        below += count[k];
        let n = if cumulative { below } else { count[k] };
        set_raw(&mut out, b, 2, (raw(a.v[0], b, 2) + n) & 0xffff);
    }
    Ok(vec![Val::VReg(out)])
}

/// `vmull`: full product of 32-bit lanes, as (low, high) halves.
fn mull(cx: &Cx, a: &Args) -> Result<Vec<Val>, Fault> {
    need_v(cx, a, 2)?;
    let dt = cx.dst()?;
    let es = dt.bytes();
    let w = dt.bits();
    let m0 = a.m.first().copied();
    let (mut lo, mut hi) = (zreg(), zreg());
    for i in 0..lanes(dt) {
        if !on(m0, i, es) {
            continue;
        }
        let p = get(a.v[0], i, dt).i() as i128 * get(a.v[1], i, dt).i() as i128;
        set_raw(&mut lo, i, es, p as u64);
        set_raw(&mut hi, i, es, (p >> w) as u64);
    }
    Ok(vec![Val::VReg(lo), Val::VReg(hi)])
}

/// `vaddc`/`vsubc`/`vaddcs`/`vsubcs`: unsigned add/sub with a carry (borrow)
/// predicate out; the `*cs` forms take a carry (borrow) predicate in.
fn carry(cx: &Cx, a: &Args) -> Result<Vec<Val>, Fault> {
    need_v(cx, a, 2)?;
    let dt = cx.dst()?;
    let es = dt.bytes();
    let w = dt.bits();
    let with_in = matches!(cx.op, Opcode::VAddcs | Opcode::VSubcs);
    let add = matches!(cx.op, Opcode::VAddc | Opcode::VAddcs);
    let (cin, mask) = if with_in {
        (a.m.first().copied(), a.m.get(1).copied())
    } else {
        (None, a.m.first().copied())
    };
    if with_in && cin.is_none() {
        return cx.err("needs a carry-in predicate");
    }
    let lim = 1i128 << w;
    let mut out = zreg();
    let mut flags = vec![false; lanes(dt)];
    for (i, flag) in flags.iter_mut().enumerate() {
        if !on(mask, i, es) {
            continue;
        }
        let x = raw(a.v[0], i, es) as i128;
        let y = raw(a.v[1], i, es) as i128;
        let c = (with_in && on(cin, i, es)) as i128;
        let r = if add { x + y + c } else { x - y - c };
        *flag = if add { r >= lim } else { r < 0 };
        set_raw(&mut out, i, es, r.rem_euclid(lim) as u64);
    }
    Ok(vec![Val::VReg(out), Val::Mask(mask_from(es, |i| flags[i]))])
}

/// `vexpdif %x, %max[, %mask][, part]`: exp(x - max); a narrower source is
/// widened from its EVEN or ODD lanes.
fn expdif(cx: &Cx, a: &Args) -> Result<Vec<Val>, Fault> {
    need_v(cx, a, 2)?;
    let st = cx.src()?;
    let dt = cx.dst()?;
    let (ss, ds) = (st.bytes(), dt.bytes());
    let part = match cx.sym_or_pos(&["part"]) {
        Some(p) if p.ends_with("ODD") => 1,
        _ => 0,
    };
    let m0 = a.m.first().copied();
    let mut out = zreg();
    for i in 0..lanes(dt) {
        let j = if ds > ss { i * (ds / ss) + part } else { i };
        if j >= lanes(st) || !on(m0, j, ss) {
            continue;
        }
        let x = get(a.v[0], j, st).f() - get(a.v[1], j, st).f();
        put(&mut out, i, dt, Num::F(x.exp()));
    }
    Ok(vec![Val::VReg(out)])
}

/// Tree sum of `xs` in type `dt`, rounding at every level like the hardware adder tree.
fn tree_sum(mut xs: Vec<Num>, dt: DType) -> Num {
    if xs.is_empty() {
        return if dt.is_float() {
            Num::F(0.0)
        } else {
            Num::I(0)
        };
    }
    while xs.len() > 1 {
        let mut next = Vec::with_capacity(xs.len().div_ceil(2));
        for p in xs.chunks(2) {
            let s = if p.len() == 2 {
                add(p[0], p[1], dt)
            } else {
                p[0]
            };
            next.push(match s {
                Num::F(f) => Num::F(round_float(f, dt)),
                i => i,
            });
        }
        xs = next;
    }
    xs[0]
}

/// The start value of a max (`max`) or min reduction, what it yields with no
/// active lane: -inf/+inf for floats, the type's smallest/largest integer.
fn identity(dt: DType, max: bool) -> Num {
    if dt.is_float() {
        return Num::F(if max {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
    }
    let bits = dt.bits();
    match (dt.is_signed_int(), max) {
        (true, true) => Num::I(wrap(1i64 << (bits - 1).min(63), dt)),
        (true, false) => Num::I(wrap((1i64 << (bits - 1).min(63)).wrapping_sub(1), dt)),
        (false, true) => Num::I(0),
        (false, false) => Num::I(wrap(-1, dt)),
    }
}

/// Extreme of the active lanes: (value, first index). `max` picks the largest.
fn extreme(xs: &[(usize, Num)], dt: DType, max: bool) -> Option<(Num, usize)> {
    let mut best: Option<(Num, usize)> = None;
    for &(i, x) in xs {
        let better = match best {
            None => true,
            Some((b, _)) => {
                if dt.is_float() {
                    let (x, b) = (x.f(), b.f());
                    (x.is_nan() && !b.is_nan()) || if max { x > b } else { x < b }
                } else if max {
                    x.i() > b.i()
                } else {
                    x.i() < b.i()
                }
            }
        };
        if better {
            best = Some((x, i));
        }
    }
    best
}

/// Reductions: `vcadd`, `vcmax`/`vcmin` (value in lane 0, index in lane 1),
/// `vcbmax`/`vcbmin` (value in lane 0 and a predicate of the lanes equal to
/// it), `vcgadd`/`vcgmax`/`vcgmin` (one result per 32-byte VLane, packed into
/// the low lanes), `vcpadd` (inclusive prefix sum).
pub fn reduce(cx: &Cx, a: &Args) -> Result<Vec<Val>, Fault> {
    need_v(cx, a, 1)?;
    let dt = cx.dst()?;
    let es = dt.bytes();
    let n = lanes(dt);
    let m0 = a.m.first().copied();
    let v = a.v[0];
    let active: Vec<(usize, Num)> = (0..n)
        .filter(|&i| on(m0, i, es))
        .map(|i| (i, get(v, i, dt)))
        .collect();
    let mut out = zreg();
    use Opcode as O;
    match cx.op {
        O::VCadd => {
            put(
                &mut out,
                0,
                dt,
                tree_sum(active.iter().map(|x| x.1).collect(), dt),
            );
        }
        O::VCmax | O::VCmin => {
            // no active lane: the identity and index 0 (the micro-ISA doc)
            let max = cx.op == O::VCmax;
            let (x, idx) = extreme(&active, dt, max).unwrap_or((identity(dt, max), 0));
            put(&mut out, 0, dt, x);
            set_raw(&mut out, 1, es, idx as u64);
        }
        O::VCbmax | O::VCbmin => {
            // value in lane 0 (the identity when no lane is active) and the
            // active lanes equal to it; both zero signs match a zero
            let max = cx.op == O::VCbmax;
            let x = extreme(&active, dt, max).map_or(identity(dt, max), |x| x.0);
            put(&mut out, 0, dt, x);
            let hit = mask_from(es, |i| {
                let y = get(v, i, dt);
                on(m0, i, es)
                    && if dt.is_float() {
                        y.f() == x.f()
                    } else {
                        y.i() == x.i()
                    }
            });
            return Ok(vec![Val::VReg(out), Val::Mask(hit)]);
        }
        O::VCgadd | O::VCgmax | O::VCgmin => {
            let per = 32 / es;
            for g in 0..8 {
                let xs: Vec<(usize, Num)> = active
                    .iter()
                    .copied()
                    .filter(|(i, _)| i / per == g)
                    .collect();
                let r = match cx.op {
                    O::VCgadd => tree_sum(xs.iter().map(|x| x.1).collect(), dt),
                    // a VLane with no active lane yields the identity
                    op => {
                        let max = op == O::VCgmax;
                        extreme(&xs, dt, max).map_or(identity(dt, max), |x| x.0)
                    }
                };
                put(&mut out, g, dt, r);
            }
        }
        O::VCpadd => {
            let mut acc = if dt.is_float() {
                Num::F(0.0)
            } else {
                Num::I(0)
            };
            for (i, x) in active {
                acc = add(acc, x, dt);
                if let Num::F(f) = acc {
                    acc = Num::F(round_float(f, dt));
                }
                put(&mut out, i, dt, acc);
            }
        }
        _ => return cx.err("is not a reduction"),
    }
    Ok(vec![Val::VReg(out)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cls_counts_the_sign_bit_and_its_copies() {
        assert_eq!(cls(0, 32), 32);
        assert_eq!(cls(-1, 32), 32);
        assert_eq!(cls(1, 16), 15);
        assert_eq!(cls(-2, 8), 7);
        assert_eq!(cls(0x40, 8), 1);
        assert_eq!(cls(i32::MIN as i64, 32), 1);
    }

    #[test]
    fn compare_modes() {
        let d = DType::F32;
        assert_eq!(compare("lt", Num::F(1.0), Num::F(2.0), d), Some(true));
        assert_eq!(compare("CMP_GE", Num::F(1.0), Num::F(2.0), d), Some(false));
        assert_eq!(compare("ne", Num::F(f64::NAN), Num::F(1.0), d), Some(true));
        assert_eq!(
            compare("eq", Num::F(f64::NAN), Num::F(f64::NAN), d),
            Some(false)
        );
        assert_eq!(compare("bogus", Num::I(0), Num::I(0), DType::I32), None);
    }
}
