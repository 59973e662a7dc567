//! In-register rearrangement: interleave/deinterleave, slide/shift,
//! compress/expand, permute. Only the element size matters here.

use pto_isa_spec::Opcode;

use crate::exec::vec_ops::{on, raw, set_raw, zreg, Args, Cx, VReg};
use crate::exec::Fault;
use crate::value::Val;

/// Lane `i` of the concatenation `a ++ b` (each `n` lanes).
fn cat(a: &VReg, b: &VReg, i: usize, n: usize, es: usize) -> u64 {
    if i < n {
        raw(a, i, es)
    } else {
        raw(b, i - n, es)
    }
}

/// The pair (low, high) of an interleave: low = a0 b0 a1 b1 ..., high the rest.
fn interleave(a: &VReg, b: &VReg, es: usize) -> [Box<VReg>; 2] {
    let n = 256 / es;
    let (mut lo, mut hi) = (zreg(), zreg());
    for k in 0..2 * n {
        let src = if k % 2 == 0 { a } else { b };
        let x = raw(src, k / 2, es);
        if k < n {
            set_raw(&mut lo, k, es, x);
        } else {
            set_raw(&mut hi, k - n, es, x);
        }
    }
    [lo, hi]
}

/// The pair (even, odd) of a deinterleave of the stream `a ++ b`.
fn deinterleave(a: &VReg, b: &VReg, es: usize) -> [Box<VReg>; 2] {
    let n = 256 / es;
    let (mut ev, mut od) = (zreg(), zreg());
    for i in 0..n {
        set_raw(&mut ev, i, es, cat(a, b, 2 * i, n, es));
        set_raw(&mut od, i, es, cat(a, b, 2 * i + 1, n, es));
    }
    [ev, od]
}

fn half(cx: &Cx) -> usize {
    match cx.sym_or_pos(&["part"]) {
        Some(p) if p.contains("HIGH") || p.contains("ODD") || p.ends_with('1') => 1,
        _ => 0,
    }
}

/// Rearrangement-group ops.
pub fn run(cx: &Cx, a: &Args) -> Result<Vec<Val>, Fault> {
    use Opcode as O;
    let Some(&v0) = a.v.first() else {
        return cx.err("needs a vector operand");
    };
    let es = cx.dst()?.bytes();
    let n = 256 / es;
    let two = || match a.v.get(1) {
        Some(v) => Ok(*v),
        None => cx.err("needs two vector operands"),
    };
    let amount = || match a.s.first().and_then(|s| s.as_i64()) {
        Some(k) => Ok(k),
        None => cx.err("needs a scalar amount"),
    };
    let out = match cx.op {
        O::VIntlv => {
            let [lo, hi] = interleave(v0, two()?, es);
            return Ok(vec![Val::VReg(lo), Val::VReg(hi)]);
        }
        O::VDintlv => {
            let [ev, od] = deinterleave(v0, two()?, es);
            return Ok(vec![Val::VReg(ev), Val::VReg(od)]);
        }
        O::VIntlvv2 => {
            let [lo, hi] = interleave(v0, two()?, es);
            if half(cx) == 0 {
                lo
            } else {
                hi
            }
        }
        O::VDintlvv2 => {
            let [ev, od] = deinterleave(v0, two()?, es);
            if half(cx) == 0 {
                ev
            } else {
                od
            }
        }
        O::VSlide => {
            // window of {src1, src0} at offset: dst[i] = i >= amt ? src0[i-amt] : src1[n-amt+i]
            let v1 = two()?;
            let k = amount()?.clamp(0, n as i64) as usize;
            let mut out = zreg();
            for i in 0..n {
                let x = if i >= k {
                    raw(v0, i - k, es)
                } else {
                    raw(v1, n - k + i, es)
                };
                set_raw(&mut out, i, es, x);
            }
            out
        }
        O::VShift => {
            let k = amount()?;
            let mut out = zreg();
            for i in 0..n {
                let j = i as i64 - k;
                if (0..n as i64).contains(&j) {
                    set_raw(&mut out, i, es, raw(v0, j as usize, es));
                }
            }
            out
        }
        O::VSqz => {
            let m = a.m.first().copied();
            let mut out = zreg();
            let mut j = 0;
            for i in 0..n {
                if on(m, i, es) {
                    set_raw(&mut out, j, es, raw(v0, i, es));
                    j += 1;
                }
            }
            out
        }
        O::VUsqz => {
            // lane i receives the number of active lanes before it (hardware
            // behaviour observed by the PTOAS vusqz case)
            let m = a.m.first().copied();
            let mut out = zreg();
            let mut count = 0u64;
            for i in 0..n {
                set_raw(&mut out, i, es, count);
                if on(m, i, es) {
                    count += 1;
                }
            }
            out
        }
        O::VPerm => {
            let idx = two()?;
            let mut out = zreg();
            for i in 0..n {
                let j = (raw(idx, i, es) as usize) % n;
                set_raw(&mut out, i, es, raw(v0, j, es));
            }
            out
        }
        _ => return cx.err("is not a rearrangement"),
    };
    Ok(vec![Val::VReg(out)])
}

/// `vdup` of a register: its lowest or highest lane in every (active) lane.
pub fn dup(cx: &Cx, a: &Args) -> Result<Vec<Val>, Fault> {
    let Some(v) = a.v.first() else {
        return cx.err("needs a vector operand");
    };
    let dt = cx.dst()?;
    let es = dt.bytes();
    let n = 256 / es;
    let k = match cx.sym_or_pos(&["position"]) {
        Some(p) if p.eq_ignore_ascii_case("HIGHEST") => n - 1,
        _ => 0,
    };
    let m = a.m.first().copied();
    let mut out = Box::new([0u8; 256]);
    for i in 0..n {
        if m.is_none_or(|m| crate::exec::vec_ops::bit(m, i * es)) {
            let (src, dst) = (&v[k * es..(k + 1) * es], i * es);
            out[dst..dst + es].copy_from_slice(src);
        }
    }
    Ok(vec![Val::VReg(out)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::{AttrVal, Attrs};

    #[test]
    fn dup_broadcasts_the_lowest_or_highest_lane() {
        let mut v = [0u8; 256];
        for (i, ch) in v.chunks_mut(4).enumerate() {
            ch.copy_from_slice(&(i as u32).to_le_bytes());
        }
        let attrs: Attrs = vec![
            ("$dst_type".into(), AttrVal::Sym("ui32".into())),
            ("position".into(), AttrVal::Sym("HIGHEST".into())),
        ];
        let cx = Cx {
            op: Opcode::VDup,
            attrs: &attrs,
        };
        let srcs = [Val::VReg(Box::new(v))];
        let r = dup(&cx, &Args::split(&srcs)).unwrap();
        let Val::VReg(out) = &r[0] else { panic!() };
        assert_eq!(&out[8..12], &63u32.to_le_bytes());
    }
}
