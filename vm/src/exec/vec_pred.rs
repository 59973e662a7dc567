//! Predicate algebra, patterns, pack/unpack, (de)interleave, and predicate
//! loads/stores.
//!
//! Predicates produced here are in the hardware image: lane `i` of a `b<8*g>`
//! predicate is bit `i * g`, other bits zero. The algebra ops work on the raw
//! 256-bit image, so they accept either form. Stores write the image of
//! the operand's declared granularity when it is known.

use pto_isa_spec::{DType, Opcode};

use crate::exec::vec_ops::{bit, mask_from, set_bit, Args, Cx, Mask};
use crate::exec::{fault, vector, Accesses, Fault};
use crate::mem::{Local, OutOfBounds};
use crate::value::{Ptr, Space, Val};

fn gran_of(op: Opcode) -> usize {
    use Opcode as O;
    match op {
        O::PintlvB8 | O::PdintlvB8 | O::PgeB8 | O::PltmB8 => 1,
        O::PintlvB16 | O::PdintlvB16 | O::PgeB16 | O::PltmB16 => 2,
        _ => 4,
    }
}

/// UB as the predicate loads and stores see it: the core's local memory,
/// or the UB a compiled vector scope runs on.
pub trait UbMem {
    /// `len` bytes at `at`, bounds-checked.
    fn ub(&self, at: u64, len: u64) -> Result<&[u8], OutOfBounds>;
    /// `len` bytes at `at` to write, bounds-checked.
    fn ub_mut(&mut self, at: u64, len: u64) -> Result<&mut [u8], OutOfBounds>;
}

impl UbMem for Local {
    fn ub(&self, at: u64, len: u64) -> Result<&[u8], OutOfBounds> {
        self.slice(Space::Ub, at, len)
    }

    fn ub_mut(&mut self, at: u64, len: u64) -> Result<&mut [u8], OutOfBounds> {
        self.slice_mut(Space::Ub, at, len)
    }
}

fn bitwise(a: &Mask, b: &Mask, f: impl Fn(u8, u8) -> u8) -> Box<Mask> {
    let mut m = Box::new([0u8; 32]);
    for i in 0..32 {
        m[i] = f(a[i], b[i]);
    }
    m
}

const ALL: Mask = [0xff; 32];

/// The hardware image of `m` at granularity `g` bytes.
pub fn canonical(m: &Mask, g: usize) -> Box<Mask> {
    mask_from(g, |i| bit(m, i * g))
}

fn dist(cx: &Cx) -> String {
    cx.sym_or_pos(&["dist"])
        .unwrap_or("NORM")
        .to_ascii_uppercase()
}

fn addr(cx: &Cx, a: &Args) -> Result<u64, Fault> {
    Ok(place(cx, a)?.0)
}

/// Bytes one offset unit advances: `plds`/`psts` count bytes, the
/// immediate forms `pldi`/`psti` count alignment units of their
/// distribution (32 bytes, 16 for `US`/`PK`), the others elements.
fn unit(cx: &Cx, p: &Ptr) -> i64 {
    use Opcode as O;
    match cx.op {
        O::Plds | O::Psts => 1,
        O::Pldi | O::Psti => match dist(cx).as_str() {
            "US" | "PK" => 16,
            _ => 32,
        },
        _ => p.elem.bytes() as i64,
    }
}

/// The accessed UB byte address and, for the post-update forms (an extra
/// pointer result), the advanced base: those access the base itself.
fn place(cx: &Cx, a: &Args) -> Result<(u64, Option<Val>), Fault> {
    let Some(p) = a.p.first() else {
        return cx.err("needs a UB pointer");
    };
    if p.space != Space::Ub {
        return cx.err(format!("needs a UB pointer, got {}", p.space.name()));
    }
    let off = a.s.first().and_then(|s| s.as_i64()).unwrap_or(0);
    let moved = p.addr as i64 + off * unit(cx, p);
    if moved < 0 {
        return cx.err("addresses a negative UB offset");
    }
    let loads = matches!(cx.op, Opcode::Plds | Opcode::Pld | Opcode::Pldi);
    let nres = match crate::program::attr(cx.attrs, "$nres") {
        Some(crate::program::AttrVal::Int(n)) => *n as usize,
        _ => 0,
    };
    if nres > usize::from(loads) {
        let next = Ptr {
            addr: moved as u64,
            ..*p
        };
        Ok((p.addr, Some(Val::Ptr(next))))
    } else {
        Ok((moved as u64, None))
    }
}

/// Predicate-group ops.
///
/// `local` is None for a register-only op of a compiled scope.
pub fn run(
    cx: &Cx,
    a: &Args,
    local: Option<&mut dyn UbMem>,
    acc: &mut Accesses,
) -> Result<Vec<Val>, Fault> {
    use Opcode as O;
    let m = |i: usize| match a.m.get(i) {
        Some(m) => Ok(*m),
        None => cx.err(format!("needs {} mask operand(s)", i + 1)),
    };
    let out = match cx.op {
        O::Pand | O::Por | O::Pxor => {
            let gate = a.m.get(2).copied().unwrap_or(&ALL);
            let f = match cx.op {
                O::Pand => |x: u8, y: u8| x & y,
                O::Por => |x: u8, y: u8| x | y,
                _ => |x: u8, y: u8| x ^ y,
            };
            let r = bitwise(m(0)?, m(1)?, f);
            bitwise(&r, gate, |x, g| x & g)
        }
        O::Pnot => {
            let gate = a.m.get(1).copied().unwrap_or(&ALL);
            bitwise(m(0)?, gate, |x, g| !x & g)
        }
        O::Psel => {
            let (s0, s1, sel) = (m(0)?, m(1)?, m(2)?);
            let gate = a.m.get(3).copied().unwrap_or(&ALL);
            let mut r = Box::new([0u8; 32]);
            for i in 0..32 {
                r[i] = ((s0[i] & sel[i]) | (s1[i] & !sel[i])) & gate[i];
            }
            r
        }
        O::Ppack | O::Punpack => {
            let src = m(0)?;
            let hi = cx.sym_or_pos(&["part"]).is_some_and(|p| p.contains("HIGH"));
            let base = if hi { 128 } else { 0 };
            let mut r = Box::new([0u8; 32]);
            for i in 0..128 {
                if cx.op == O::Ppack {
                    set_bit(&mut r, base + i, bit(src, 2 * i));
                } else {
                    set_bit(&mut r, 2 * i, bit(src, base + i));
                }
            }
            r
        }
        O::PintlvB8
        | O::PintlvB16
        | O::PintlvB32
        | O::PdintlvB8
        | O::PdintlvB16
        | O::PdintlvB32 => {
            let g = gran_of(cx.op);
            let n = 256 / g;
            let (x, y) = (m(0)?, m(1)?);
            let lane = |k: usize| {
                if k < n {
                    bit(x, k * g)
                } else {
                    bit(y, (k - n) * g)
                }
            };
            let (lo, hi) = if matches!(cx.op, O::PintlvB8 | O::PintlvB16 | O::PintlvB32) {
                // k-th lane of the interleaved stream: even from x, odd from y
                let il = |k: usize| {
                    if k.is_multiple_of(2) {
                        bit(x, (k / 2) * g)
                    } else {
                        bit(y, (k / 2) * g)
                    }
                };
                (mask_from(g, il), mask_from(g, |i| il(i + n)))
            } else {
                (
                    mask_from(g, |i| lane(2 * i)),
                    mask_from(g, |i| lane(2 * i + 1)),
                )
            };
            return Ok(vec![Val::Mask(lo), Val::Mask(hi)]);
        }
        // lane i is on while i + loop * VL is below the bound
        O::PltmB8 | O::PltmB16 | O::PltmB32 => {
            let g = gran_of(cx.op);
            let int = |k: usize| a.s.get(k).and_then(|s| s.as_i64());
            let (Some(lp), Some(bound)) = (int(0), int(1)) else {
                return cx.err("needs a loop index and a bound");
            };
            let vl = (256 / g) as i64;
            mask_from(g, |i| {
                (i as i64).saturating_add(lp.saturating_mul(vl)) < bound
            })
        }
        O::PgeB8 | O::PgeB16 | O::PgeB32 => {
            let g = gran_of(cx.op);
            let p = cx.sym_or_pos(&["pattern"]).unwrap_or("PAT_ALL");
            let pat: Box<Mask> = vector::pattern(p, g)?;
            canonical(&pat, g)
        }
        O::Plds | O::Pld | O::Pldi => {
            let Some(local) = local else {
                return cx.err("needs UB");
            };
            let at = addr(cx, a)?;
            let d = dist(cx);
            let mut r = Box::new([0u8; 32]);
            match d.as_str() {
                "NORM" => {
                    r.copy_from_slice(local.ub(at, 32)?);
                    acc.add(Space::Ub, at, 32, false);
                }
                "US" => {
                    // 128 stored bits, each doubled
                    let s = local.ub(at, 16)?;
                    for i in 0..128 {
                        let b = s[i / 8] & (1 << (i % 8)) != 0;
                        set_bit(&mut r, 2 * i, b);
                        set_bit(&mut r, 2 * i + 1, b);
                    }
                    acc.add(Space::Ub, at, 16, false);
                }
                "DS" => {
                    // every other bit of a 64-byte image
                    let s = local.ub(at, 64)?;
                    for i in 0..256 {
                        set_bit(&mut r, i, s[i / 4] & (1 << ((2 * i) % 8)) != 0);
                    }
                    acc.add(Space::Ub, at, 64, false);
                }
                other => return cx.err(format!("distribution {other} is not implemented")),
            }
            r
        }
        O::Psts | O::Pst | O::Psti => {
            let Some(local) = local else {
                return cx.err("needs UB");
            };
            let src = m(0)?;
            let at = addr(cx, a)?;
            let img = match cx.exact("$src_type") {
                Some(t) if matches!(t, DType::U8 | DType::U16 | DType::U32) => {
                    canonical(src, t.bytes())
                }
                _ => Box::new(*src),
            };
            match dist(cx).as_str() {
                "NORM" => {
                    local.ub_mut(at, 32)?.copy_from_slice(&img[..]);
                    acc.add(Space::Ub, at, 32, true);
                }
                "PK" => {
                    let d = local.ub_mut(at, 16)?;
                    d.fill(0);
                    for i in 0..128 {
                        if bit(&img, 2 * i) {
                            d[i / 8] |= 1 << (i % 8);
                        }
                    }
                    acc.add(Space::Ub, at, 16, true);
                }
                other => return cx.err(format!("distribution {other} is not implemented")),
            }
            return Ok(place(cx, a)?.1.into_iter().collect());
        }
        _ => return fault(format!("'{}' is not a predicate op", cx.op.name())),
    };
    let mut res = vec![Val::Mask(out)];
    if matches!(cx.op, O::Plds | O::Pld | O::Pldi) {
        res.extend(place(cx, a)?.1);
    }
    Ok(res)
}
