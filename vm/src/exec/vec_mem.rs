//! Vector loads and stores beyond the built-in NORM/BRC fast paths: the
//! distribution modes of `vlds` (upsample, downsample, unpack, channel split,
//! deinterleave) and `vsts` (pack, channel merge, one point), the dual forms
//! `vldsx2`/`vstsx2` (deinterleave/interleave of two registers), and the
//! post-update forms whose extra result is the base pointer advanced by the
//! offset (the access itself then uses the base unmodified).
//!
//! Mode names carry the element width they act on (`UNPK_B16`: 16-bit
//! elements widened into 32-bit lanes; `PK_B64`: 64-bit lanes stored as
//! their low 32 bits). A store's mask selects source lanes at the source
//! lane width.

use pto_isa_spec::Opcode;

use crate::exec::vec_ops::{bit, zreg, Args, Cx, VReg};
use crate::exec::vec_pred::UbMem;
use crate::exec::{Accesses, Fault};
use crate::mem::{Local, Spr};
use crate::program::{attr, AttrVal};
use crate::value::{Ptr, Space, Val};

/// Whether this file executes `op` when lowering routes it here.
pub fn handles(op: Opcode) -> bool {
    ub_only(op)
        || matches!(
            op,
            Opcode::VGather2
                | Opcode::VGather2Bc
                | Opcode::VGatherb
                | Opcode::VScatter
                | Opcode::InitAlign
                | Opcode::VLdas
                | Opcode::VLdus
                | Opcode::VStus
                | Opcode::VStas
                | Opcode::VStur
                | Opcode::VStar
                | Opcode::VSta
                | Opcode::Uvld
                | Opcode::Sprclr
                | Opcode::Sprsti
                | Opcode::Sprsts
                | Opcode::LoadScalar
                | Opcode::StoreScalar
                | Opcode::Pstu
        )
}

fn dist(cx: &Cx) -> String {
    cx.sym_or_pos(&["dist"])
        .unwrap_or("NORM")
        .to_ascii_uppercase()
}

/// Bytes of the element width a mode names (`_B8` -> 1, `_B64` -> 8).
fn width(mode: &str) -> Option<usize> {
    let b = mode.rsplit_once("_B")?.1;
    b.parse::<usize>().ok().map(|w| w / 8)
}

fn results(cx: &Cx) -> usize {
    match attr(cx.attrs, "$nres") {
        Some(AttrVal::Int(n)) => *n as usize,
        _ => 1,
    }
}

/// The UB byte address of the access and the post-updated pointer, if any.
fn place(cx: &Cx, a: &Args, post: bool) -> Result<(u64, Ptr, Option<Val>), Fault> {
    let Some(p) = a.p.first().copied() else {
        return cx.err("needs a UB pointer");
    };
    if p.space != Space::Ub {
        return cx.err(format!("needs a UB pointer, got {}", p.space.name()));
    }
    let off = a.s.first().and_then(|s| s.as_i64()).unwrap_or(0);
    let es = p.elem.bytes() as i64;
    let moved = p.addr as i64 + off * es;
    if moved < 0 {
        return cx.err("addresses a negative UB offset");
    }
    if post {
        let next = Ptr {
            addr: moved as u64,
            ..p
        };
        Ok((p.addr, p, Some(Val::Ptr(next))))
    } else {
        Ok((moved as u64, p, None))
    }
}

fn read(local: &dyn UbMem, acc: &mut Accesses, at: u64, len: u64) -> Result<Vec<u8>, Fault> {
    acc.add(Space::Ub, at, len, false);
    Ok(local.ub(at, len)?.to_vec())
}

fn write(local: &mut dyn UbMem, acc: &mut Accesses, at: u64, bytes: &[u8]) -> Result<(), Fault> {
    acc.add(Space::Ub, at, bytes.len() as u64, true);
    local.ub_mut(at, bytes.len() as u64)?.copy_from_slice(bytes);
    Ok(())
}

/// Whether `op` touches nothing but UB bytes and its operands (no special
/// register, no alignment state), so [`run_ub`] executes it on any
/// [`UbMem`]: `vlds`/`vsts` in a distribution mode, `vldsx2`/`vstsx2` and
/// the block-strided `vsldb`/`vsstb`.
pub fn ub_only(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::VLds
            | Opcode::VSts
            | Opcode::VLdsx2
            | Opcode::VStsx2
            | Opcode::VSldb
            | Opcode::VSstb
    )
}

/// Executes an [`ub_only`] op with `ub` as the unified buffer.
pub fn run_ub(
    cx: &Cx,
    a: &Args,
    local: &mut dyn UbMem,
    acc: &mut Accesses,
) -> Result<Vec<Val>, Fault> {
    let mode = dist(cx);
    match cx.op {
        Opcode::VLds => {
            let post = results(cx) > 1;
            let (at, _, next) = place(cx, a, post)?;
            let es = cx.dst()?.bytes();
            let v = load(cx, &mode, es, local, acc, at)?;
            let mut out = vec![Val::VReg(v)];
            out.extend(next);
            Ok(out)
        }
        Opcode::VLdsx2 => {
            let post = results(cx) > 2;
            let (at, _, next) = place(cx, a, post)?;
            // bare DINTLV: the element size of the result
            let w = match mode.as_str() {
                "DINTLV" => cx.dst().ok().map(|t| t.bytes()).filter(|&b| b > 0),
                _ => width(&mode),
            };
            let Some(w) = w.filter(|_| mode.starts_with("DINTLV")) else {
                return cx.err(format!("distribution mode {mode} is not implemented yet"));
            };
            let src = read(local, acc, at, 512)?;
            let (mut lo, mut hi) = (zreg(), zreg());
            for i in 0..256 / w {
                lo[i * w..(i + 1) * w].copy_from_slice(&src[2 * i * w..(2 * i + 1) * w]);
                hi[i * w..(i + 1) * w].copy_from_slice(&src[(2 * i + 1) * w..(2 * i + 2) * w]);
            }
            let mut out = vec![Val::VReg(lo), Val::VReg(hi)];
            out.extend(next);
            Ok(out)
        }
        Opcode::VSts => {
            let post = results(cx) > 0;
            let (at, _, next) = place(cx, a, post)?;
            let Some(v) = a.v.first() else {
                return cx.err("needs a vector operand");
            };
            let es = cx.src()?.bytes();
            store(cx, &mode, es, v, a.m.first().copied(), local, acc, at)?;
            Ok(next.into_iter().collect())
        }
        Opcode::VStsx2 => {
            let post = results(cx) > 0;
            let (at, _, next) = place(cx, a, post)?;
            let (Some(lo), Some(hi)) = (a.v.first(), a.v.get(1)) else {
                return cx.err("needs two vector operands");
            };
            // bare INTLV (the docs' name of the family): the element size of
            // the stored vectors
            let w = match mode.as_str() {
                "INTLV" => cx.src().ok().map(|t| t.bytes()).filter(|&b| b > 0),
                _ => width(&mode),
            };
            let Some(w) = w.filter(|_| mode.starts_with("INTLV")) else {
                return cx.err(format!("distribution mode {mode} is not implemented yet"));
            };
            // the predicate is ignored by every INTLV form
            for i in 0..256 / w {
                write(local, acc, at + (2 * i * w) as u64, &lo[i * w..(i + 1) * w])?;
                write(
                    local,
                    acc,
                    at + ((2 * i + 1) * w) as u64,
                    &hi[i * w..(i + 1) * w],
                )?;
            }
            Ok(next.into_iter().collect())
        }
        Opcode::VSldb | Opcode::VSstb => blocks(cx, a, local, acc),
        _ => cx.err("is not a UB-only load or store"),
    }
}

/// Executes a load/store routed here.
pub fn run(cx: &Cx, a: &Args, local: &mut Local, acc: &mut Accesses) -> Result<Vec<Val>, Fault> {
    local.with_spr(|l, spr| run_spr(cx, a, l, spr, acc))
}

/// [`run`] on a unified buffer and the special registers apart (a compiled
/// vector scope's host ops have the scope's UB, not a whole [`Local`]).
pub fn run_spr(
    cx: &Cx,
    a: &Args,
    local: &mut dyn UbMem,
    spr: &mut Spr,
    acc: &mut Accesses,
) -> Result<Vec<Val>, Fault> {
    match cx.op {
        op if ub_only(op) => run_ub(cx, a, local, acc),
        Opcode::InitAlign
        | Opcode::VLdas
        | Opcode::VLdus
        | Opcode::VStus
        | Opcode::VStas
        | Opcode::VStar
        | Opcode::VSta
        | Opcode::Uvld => unaligned(cx, a, local, acc),
        // register-offset unaligned store: the SQZN bytes the last vsqz kept
        // go to base + AR; POST_UPDATE advances AR past them
        Opcode::VStur => {
            let Some(p) = a.p.first().copied() else {
                return cx.err("needs a UB pointer");
            };
            if p.space != Space::Ub {
                return cx.err(format!("needs a UB pointer, got {}", p.space.name()));
            }
            let Some(v) = a.v.first() else {
                return cx.err("needs a vector operand");
            };
            let n = spr.sqzn.min(256);
            let at = p.addr + spr.ar;
            write(local, acc, at, &v[..n as usize])?;
            let post = match cx.sym_or_pos(&["mode"]) {
                Some("POST_UPDATE") => true,
                Some("NO_POST_UPDATE") => false,
                Some(m) => return cx.err(format!("mode {m} is not POST_UPDATE or NO_POST_UPDATE")),
                None => return cx.err("needs a mode (POST_UPDATE or NO_POST_UPDATE)"),
            };
            if post {
                spr.ar += n;
            }
            Ok(vec![Val::Unit])
        }
        // predicate unaligned store, write-through: one bit per lane of the
        // mask's granularity, packed; the base advances past them
        Opcode::Pstu => {
            let (Some(p), Some(m)) = (a.p.first().copied(), a.m.first()) else {
                return cx.err("needs a mask and a UB pointer");
            };
            if p.space != Space::Ub {
                return cx.err(format!("needs a UB pointer, got {}", p.space.name()));
            }
            let g = cx.src()?.bytes();
            let lanes = 256 / g;
            let mut packed = vec![0u8; lanes / 8];
            for i in 0..lanes {
                if bit(m, i * g) {
                    packed[i / 8] |= 1 << (i % 8);
                }
            }
            write(local, acc, p.addr, &packed)?;
            let next = Ptr {
                addr: p.addr + packed.len() as u64,
                ..p
            };
            Ok(vec![Val::Unit, Val::Ptr(next)])
        }
        // one UB element to or from a scalar (inside a vector scope)
        Opcode::LoadScalar | Opcode::StoreScalar => {
            let Some(p) = a.p.first().copied() else {
                return cx.err("needs a pointer");
            };
            if p.space != Space::Ub {
                return cx.err(format!(
                    "inside a vector scope needs a UB pointer, got {}",
                    p.space.name()
                ));
            }
            let load = cx.op == Opcode::LoadScalar;
            let off =
                a.s.get(usize::from(!load))
                    .and_then(|s| s.as_i64())
                    .unwrap_or(0);
            let es = p.elem.bytes();
            let at = p.addr as i64 + off * es as i64;
            if at < 0 {
                return cx.err("addresses a negative UB offset");
            }
            let at = at as u64;
            if load {
                let b = read(local, acc, at, es as u64)?;
                Ok(vec![match crate::num::read(&b, p.elem) {
                    crate::num::Num::F(f) => Val::Float(f),
                    crate::num::Num::I(i) => Val::Int(i),
                }])
            } else {
                let Some(v) = a.s.first() else {
                    return cx.err("needs a value");
                };
                let x = if p.elem.is_float() {
                    crate::num::Num::F(v.as_f64().unwrap_or(0.0))
                } else {
                    crate::num::Num::I(v.as_i64().unwrap_or(0))
                };
                let mut b = vec![0u8; es];
                crate::num::write(&mut b, p.elem, x);
                write(local, acc, at, &b)?;
                Ok(Vec::new())
            }
        }
        // SPR AR: only the unaligned register-offset stores (vstur) move it
        Opcode::Sprclr => {
            spr.ar = 0;
            Ok(Vec::new())
        }
        Opcode::Sprsti | Opcode::Sprsts => {
            let Some(p) = a.p.first().copied() else {
                return cx.err("needs a UB pointer");
            };
            let off = a.s.first().and_then(|s| s.as_i64()).unwrap_or(0);
            let unit = if cx.op == Opcode::Sprsti { 4 } else { 1 };
            let moved = p.addr as i64 + off * unit;
            if moved < 0 {
                return cx.err("addresses a negative UB offset");
            }
            let post = results(cx) > 0;
            let at = if post { p.addr } else { moved as u64 };
            let ar = (spr.ar as u32).to_le_bytes();
            write(local, acc, at, &ar)?;
            Ok(if post {
                vec![Val::Ptr(Ptr {
                    addr: moved as u64,
                    ..p
                })]
            } else {
                Vec::new()
            })
        }
        Opcode::VScatter => {
            // request i (active at the offsets' width) writes one element at
            // dest + offsets[i] elements: 16-bit offsets for 8- and 16-bit
            // data (128 requests; 8-bit data takes every other byte), 32-bit
            // for 32-bit data; equal offsets: the last request wins
            let (Some(p), Some(v), Some(idx)) = (a.p.first(), a.v.first(), a.v.get(1)) else {
                return cx.err("needs a vector, a UB pointer and an offset vector");
            };
            if p.space != Space::Ub {
                return cx.err(format!("needs a UB pointer, got {}", p.space.name()));
            }
            let es = p.elem.bytes();
            let (ow, step) = match es {
                1 => (2, 2),
                2 => (2, 2),
                4 => (4, 4),
                _ => {
                    return cx.err(format!(
                        "scatters 8-, 16- or 32-bit elements, not {}",
                        p.elem
                    ))
                }
            };
            let m = a.m.first().copied();
            for i in 0..256 / ow {
                if m.is_some_and(|m| !bit(m, i * ow)) {
                    continue;
                }
                let mut k = [0u8; 8];
                k[..ow].copy_from_slice(&idx[i * ow..(i + 1) * ow]);
                let at = p.addr + u64::from_le_bytes(k) * es as u64;
                write(local, acc, at, &v[i * step..i * step + es])?;
            }
            Ok(Vec::new())
        }
        Opcode::VGatherb => {
            // block b (on when b32 predicate lane b is) loads the 32 bytes at
            // base + offsets[b] bytes; lanes 0..7 of the ui32 offsets count
            let (Some(p), Some(idx)) = (a.p.first(), a.v.first()) else {
                return cx.err("needs a UB pointer and an offset vector");
            };
            if p.space != Space::Ub {
                return cx.err(format!("needs a UB pointer, got {}", p.space.name()));
            }
            if p.addr % 32 != 0 {
                return cx.err(format!(
                    "needs a 32-byte aligned source, got UB address {}",
                    p.addr
                ));
            }
            let m = a.m.first().copied();
            let mut v = zreg();
            for b in 0..8 {
                if m.is_some_and(|m| !bit(m, b * 4)) {
                    continue;
                }
                let mut k = [0u8; 4];
                k.copy_from_slice(&idx[b * 4..b * 4 + 4]);
                let off = u64::from(u32::from_le_bytes(k));
                if off % 32 != 0 {
                    return cx.err(format!(
                        "block {b}: byte offset {off} is not 32-byte aligned"
                    ));
                }
                v[b * 32..(b + 1) * 32].copy_from_slice(&read(local, acc, p.addr + off, 32)?);
            }
            Ok(vec![Val::VReg(v)])
        }
        Opcode::VGather2 | Opcode::VGather2Bc => {
            // lane i (active) loads source element offsets[i]; 8-bit sources
            // zero-extend into 16-bit lanes. vgather2_bc: the compatibility
            // form with 32-bit offsets, so 32-bit elements only
            let (Some(p), Some(idx)) = (a.p.first(), a.v.first()) else {
                return cx.err("needs a UB pointer and an offset vector");
            };
            if p.space != Space::Ub {
                return cx.err(format!("needs a UB pointer, got {}", p.space.name()));
            }
            let lw = cx.dst()?.bytes();
            if cx.op == Opcode::VGather2Bc && lw != 4 {
                return cx.err("gathers 32-bit elements (its offsets are 32-bit)");
            }
            let sw = p.elem.bytes().min(lw);
            let m = a.m.first().copied();
            let mut v = zreg();
            for i in 0..256 / lw {
                if m.is_some_and(|m| !bit(m, i * lw)) {
                    continue;
                }
                let mut k = [0u8; 8];
                k[..lw].copy_from_slice(&idx[i * lw..(i + 1) * lw]);
                let at = p.addr + u64::from_le_bytes(k) * sw as u64;
                v[i * lw..i * lw + sw].copy_from_slice(&read(local, acc, at, sw as u64)?);
            }
            Ok(vec![Val::VReg(v)])
        }
        _ => cx.err("is not a load or store"),
    }
}

/// `vsldb`/`vsstb`: eight 32-byte blocks, block `b` at `base +
/// repeat_stride + b * block_stride` blocks; a masked-off block loads zeros
/// or is not written (a block is on when its first byte's predicate bit is).
fn blocks(cx: &Cx, a: &Args, local: &mut dyn UbMem, acc: &mut Accesses) -> Result<Vec<Val>, Fault> {
    let Some(p) = a.p.first().copied() else {
        return cx.err("needs a UB pointer");
    };
    if p.space != Space::Ub {
        return cx.err(format!("needs a UB pointer, got {}", p.space.name()));
    }
    let stride = |k: usize| a.s.get(k).and_then(|s| s.as_i64()).unwrap_or(0);
    let (bs, rs) = (stride(0), stride(1));
    let m = a.m.first().copied();
    let load = cx.op == Opcode::VSldb;
    // like the other post-update forms: without the pointer result the
    // access starts `repeat_stride` blocks in; with it, at the base, and the
    // result is the base advanced by `repeat_stride` blocks
    let post = results(cx) > usize::from(load);
    let first = if post { 0 } else { rs };
    let mut v = zreg();
    for b in 0..8usize {
        if m.is_some_and(|m| !bit(m, b * 32)) {
            continue;
        }
        let at = p.addr as i64 + (first + b as i64 * bs) * 32;
        if at < 0 {
            return cx.err("addresses a negative UB offset");
        }
        if load {
            v[b * 32..(b + 1) * 32].copy_from_slice(&read(local, acc, at as u64, 32)?);
        } else {
            let Some(src) = a.v.first() else {
                return cx.err("needs a vector operand");
            };
            write(local, acc, at as u64, &src[b * 32..(b + 1) * 32])?;
        }
    }
    let next = Val::Ptr(Ptr {
        addr: (p.addr as i64 + rs * 32).max(0) as u64,
        ..p
    });
    let n = results(cx);
    let mut out = Vec::new();
    if load {
        out.push(Val::VReg(v));
    }
    if out.len() < n {
        out.push(next);
    }
    Ok(out)
}

/// Unaligned streams, write-through: an unaligned load reads its 256 bytes
/// at any address, and a store step writes its elements at once, so the
/// alignment state (`!pto.align`, a unit value here) carries nothing and a
/// flush writes nothing. The memory a well-formed stream leaves is the same.
fn unaligned(
    cx: &Cx,
    a: &Args,
    local: &mut dyn UbMem,
    acc: &mut Accesses,
) -> Result<Vec<Val>, Fault> {
    let ptr = || -> Result<Ptr, Fault> {
        match a.p.first() {
            Some(p) if p.space == Space::Ub => Ok(*p),
            Some(p) => cx.err(format!("needs a UB pointer, got {}", p.space.name())),
            None => cx.err("needs a UB pointer"),
        }
    };
    let advance = |p: Ptr, n: i64| -> Result<Val, Fault> {
        let at = p.addr as i64 + n * p.elem.bytes() as i64;
        if at < 0 {
            return cx.err("addresses a negative UB offset");
        }
        Ok(Val::Ptr(Ptr {
            addr: at as u64,
            ..p
        }))
    };
    let count = || a.s.first().and_then(|s| s.as_i64()).unwrap_or(0);
    match cx.op {
        Opcode::InitAlign | Opcode::VLdas => Ok(vec![Val::Unit]),
        Opcode::VLdus => {
            let p = ptr()?;
            let mut v = zreg();
            v.copy_from_slice(&read(local, acc, p.addr, 256)?);
            let mut out = vec![Val::VReg(v), Val::Unit];
            if results(cx) > 2 {
                out.push(advance(p, count())?);
            }
            Ok(out)
        }
        // uvld: 256 bytes at `base + offset` elements, any alignment (PTOAS
        // expands it into vldas + vldus at that address)
        Opcode::Uvld => {
            let p = ptr()?;
            let Val::Ptr(at) = advance(p, count())? else {
                return cx.err("needs a UB pointer");
            };
            let mut v = zreg();
            v.copy_from_slice(&read(local, acc, at.addr, 256)?);
            Ok(vec![Val::VReg(v)])
        }
        Opcode::VStus => {
            // the stream advances by `count` elements: those are written
            let p = ptr()?;
            let Some(v) = a.v.first() else {
                return cx.err("needs a vector operand");
            };
            let n = count();
            let bytes = (n.max(0) as usize * p.elem.bytes()).min(256);
            write(local, acc, p.addr, &v[..bytes])?;
            let mut out = vec![Val::Unit];
            if results(cx) > 1 {
                out.push(advance(p, n)?);
            }
            Ok(out)
        }
        // vstar: the register-offset flush, vsta: the index-offset flush
        // (vpto-spec v0.2); nothing is buffered
        Opcode::VStar | Opcode::VSta => {
            ptr()?;
            Ok(Vec::new())
        }
        _ => {
            // vstas: the flush; the post-update form returns the advanced base
            let p = ptr()?;
            Ok(if results(cx) > 0 {
                vec![advance(p, count())?]
            } else {
                Vec::new()
            })
        }
    }
}

fn load(
    cx: &Cx,
    mode: &str,
    es: usize,
    local: &dyn UbMem,
    acc: &mut Accesses,
    at: u64,
) -> Result<Box<VReg>, Fault> {
    let mut v = zreg();
    // BRC_BLK replicates one 32-byte block
    let w = if mode == "BRC_BLK" {
        32
    } else {
        width(mode).unwrap_or(es)
    };
    let kind = mode.split("_B").next().unwrap_or(mode);
    match kind {
        "NORM" => v.copy_from_slice(&read(local, acc, at, 256)?),
        "BRC" => {
            let s = read(local, acc, at, w as u64)?;
            for ch in v.chunks_mut(w) {
                ch.copy_from_slice(&s);
            }
        }
        // each element twice
        "US" => {
            let s = read(local, acc, at, 128)?;
            for i in 0..128 / w {
                for k in 0..2 {
                    v[(2 * i + k) * w..(2 * i + k + 1) * w].copy_from_slice(&s[i * w..(i + 1) * w]);
                }
            }
        }
        // every k-th element
        "DS" | "SPLT2CHN" | "SPLT4CHN" | "DINTLV" => {
            let k = if kind == "SPLT4CHN" { 4 } else { 2 };
            let s = read(local, acc, at, (256 * k) as u64)?;
            for i in 0..256 / w {
                v[i * w..(i + 1) * w].copy_from_slice(&s[k * i * w..(k * i + 1) * w]);
            }
        }
        // w-byte elements into the low part of 2w-byte lanes, zero-extended
        "UNPK" => {
            let s = read(local, acc, at, 128)?;
            for i in 0..128 / w {
                v[2 * i * w..(2 * i + 1) * w].copy_from_slice(&s[i * w..(i + 1) * w]);
            }
        }
        _ => return cx.err(format!("distribution mode {mode} is not implemented yet")),
    }
    Ok(v)
}

#[allow(clippy::too_many_arguments)]
fn store(
    cx: &Cx,
    mode: &str,
    es: usize,
    v: &VReg,
    m: Option<&crate::exec::vec_ops::Mask>,
    local: &mut dyn UbMem,
    acc: &mut Accesses,
    at: u64,
) -> Result<(), Fault> {
    let w = width(mode).unwrap_or(es);
    let kind = mode.split("_B").next().unwrap_or(mode);
    let on = |i: usize, lw: usize| m.is_none_or(|m| bit(m, i * lw));
    match kind {
        "NORM" => {
            for i in 0..256 / w {
                if on(i, w) {
                    write(local, acc, at + (i * w) as u64, &v[i * w..(i + 1) * w])?;
                }
            }
        }
        // the low half (PK) or quarter (PK4) of each w-byte lane, packed
        "PK" | "PK4" => {
            let n = if kind == "PK4" { w / 4 } else { w / 2 };
            for i in 0..256 / w {
                if on(i, w) {
                    write(local, acc, at + (i * n) as u64, &v[i * w..i * w + n])?;
                }
            }
        }
        // lane 0 only; the predicate is ignored
        "1PT" => write(local, acc, at, &v[..w])?,
        _ => return cx.err(format!("distribution mode {mode} is not implemented yet")),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::exec::vec_ops;
    use crate::program::Attrs;

    fn attrs(kv: &[(&str, AttrVal)]) -> Attrs {
        kv.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
    }

    #[test]
    fn unpack_load_and_pack_store() {
        let mut local = Local::new(pto_isa_spec::ProfileId::A5.profile(), None);
        let mut acc = Accesses::default();
        let halves: Vec<u8> = (0..128u8).collect();
        local
            .slice_mut(Space::Ub, 0, 128)
            .unwrap()
            .copy_from_slice(&halves);
        let ub = |addr| {
            Val::Ptr(Ptr {
                space: Space::Ub,
                addr,
                elem: pto_isa_spec::DType::U16,
            })
        };
        let a = attrs(&[
            ("dist", AttrVal::Sym("UNPK_B16".into())),
            ("$dst_type", AttrVal::Sym("ui32".into())),
            ("$nres", AttrVal::Int(1)),
        ]);
        let r = vec_ops::run(
            Opcode::VLds,
            &[ub(0), Val::Int(0)],
            &a,
            &mut local,
            &mut acc,
        )
        .unwrap();
        let Val::VReg(v) = &r[0] else { panic!() };
        // half i lands in the low half of 32-bit lane i
        assert_eq!(&v[4..8], &[2, 3, 0, 0]);
        // PK_B32 stores the low half of each 32-bit lane: the halves again
        let a = attrs(&[
            ("dist", AttrVal::Sym("PK_B32".into())),
            ("$src_type", AttrVal::Sym("ui32".into())),
            ("$nres", AttrVal::Int(0)),
        ]);
        let out = vec_ops::run(
            Opcode::VSts,
            &[r[0].clone(), ub(512), Val::Int(0)],
            &a,
            &mut local,
            &mut acc,
        )
        .unwrap();
        assert!(out.is_empty());
        assert_eq!(local.slice(Space::Ub, 512, 128).unwrap(), &halves[..]);
    }

    #[test]
    fn scalar_store_then_load_in_ub() {
        let mut local = Local::new(pto_isa_spec::ProfileId::A5.profile(), None);
        let mut acc = Accesses::default();
        let p = Val::Ptr(Ptr {
            space: Space::Ub,
            addr: 64,
            elem: pto_isa_spec::DType::I16,
        });
        let none = attrs(&[]);
        let st = [Val::Int(-3), p.clone(), Val::Int(2)];
        vec_ops::run(Opcode::StoreScalar, &st, &none, &mut local, &mut acc).unwrap();
        assert_eq!(
            local.slice(Space::Ub, 68, 2).unwrap(),
            &(-3i16).to_le_bytes()
        );
        let ld = [p, Val::Int(2)];
        let r = vec_ops::run(Opcode::LoadScalar, &ld, &none, &mut local, &mut acc).unwrap();
        assert_eq!(r, vec![Val::Int(-3)]);
    }

    #[test]
    fn pstu_packs_one_bit_per_lane_and_advances() {
        let mut local = Local::new(pto_isa_spec::ProfileId::A5.profile(), None);
        let mut acc = Accesses::default();
        let p = Ptr {
            space: Space::Ub,
            addr: 0,
            elem: pto_isa_spec::DType::U32,
        };
        // b32 mask with the first 13 lanes on: bits at 4-byte granularity
        let m = crate::exec::vec_ops::mask_from(4, |i| i < 13);
        let a = attrs(&[("$src_type", AttrVal::Sym("b32".into()))]);
        let srcs = [Val::Unit, Val::Mask(m), Val::Ptr(p)];
        let r = vec_ops::run(Opcode::Pstu, &srcs, &a, &mut local, &mut acc).unwrap();
        assert_eq!(
            local.slice(Space::Ub, 0, 8).unwrap(),
            &[0xff, 0x1f, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(r[1], Val::Ptr(Ptr { addr: 8, ..p }));
    }

    #[test]
    fn mode_widths() {
        assert_eq!(width("UNPK_B16"), Some(2));
        assert_eq!(width("PK_B64"), Some(8));
        assert_eq!(width("PK4_B32"), Some(4));
        assert_eq!(width("NORM"), None);
    }
}
