//! The UB-to-UB sorter micro-ops: `vbitsort` (VBS32: sort 32 scores with
//! their indices) and `vmrgsort4` (VMS4: merge four sorted proposal lists),
//! plus `get_vms4_sr`, the sorter's status register.
//!
//! Both work on 8-byte proposal records: the score in the low bytes (an f32
//! in bytes 0..4, an f16 in bytes 0..2 with bytes 2..4 zero), the `u32` index
//! in bytes 4..8. Order is descending by score; ties keep the earlier input
//! (the earlier lane for `vbitsort`, the lower-numbered list for
//! `vmrgsort4`). NaN sorts above every number, as in the tile sorter.
//!
//! * `vbitsort %dst, %src, %idx, %repeat`: repeat `r` sorts the 32 scores at
//!   `src + 32r` elements with the 32 indices at `idx + 32r` and writes 32
//!   records at `dst + 256r` bytes.
//! * `vmrgsort4 %dst, %s0, %s1, %s2, %s3, %count, %config`: `count` holds
//!   the four list lengths in records, 16 bits each (list 0 lowest);
//!   `config` bits 0..8 are the repeat count, bits 8..12 which lists take
//!   part, bit 12 the exhausted mode (stop right after the record that
//!   empties a list). Repeat `r` reads every list and writes `dst` one
//!   merged block (the sum of the lengths) further on. The records each list
//!   gave, 16 bits per list, are left in `VMS4_SR`, which `get_vms4_sr`
//!   returns as four i16.

use std::cmp::Ordering;

use pto_isa_spec::{DType, Opcode};

use crate::exec::vec_ops::{Args, Cx};
use crate::exec::vec_pred::UbMem;
use crate::exec::{Accesses, Fault};
use crate::mem::{Local, Spr};
use crate::value::{Ptr, Space, Val};

/// Executes a sorter op.
pub fn run(cx: &Cx, a: &Args, local: &mut Local, acc: &mut Accesses) -> Result<Vec<Val>, Fault> {
    local.with_spr(|l, spr| run_spr(cx, a, l, spr, acc))
}

/// [`run`] on a unified buffer and the special registers apart.
pub fn run_spr(
    cx: &Cx,
    a: &Args,
    local: &mut dyn UbMem,
    spr: &mut Spr,
    acc: &mut Accesses,
) -> Result<Vec<Val>, Fault> {
    match cx.op {
        Opcode::VBitsort => bitsort(cx, a, local, acc),
        Opcode::VMrgsort4 => mrgsort4(cx, a, local, spr, acc),
        Opcode::GetVms4Sr => {
            let sr = spr.vms4_sr;
            Ok((0..4)
                .map(|k| Val::Int(i64::from((sr >> (16 * k)) as u16 as i16)))
                .collect())
        }
        _ => cx.err("is not a sorter op"),
    }
}

fn ub(cx: &Cx, p: Option<&Ptr>, what: &str) -> Result<Ptr, Fault> {
    match p {
        Some(p) if p.space == Space::Ub => Ok(*p),
        Some(p) => cx.err(format!("needs a UB {what} pointer, got {}", p.space.name())),
        None => cx.err(format!("needs a {what} pointer")),
    }
}

/// Bytes of a score in its record.
fn score_bytes(cx: &Cx, dt: DType) -> Result<usize, Fault> {
    match dt {
        DType::F32 => Ok(4),
        DType::F16 => Ok(2),
        other => cx.err(format!("sorts f32 or f16 scores, not {other}")),
    }
}

fn score(rec: &[u8], sb: usize) -> f64 {
    let dt = if sb == 4 { DType::F32 } else { DType::F16 };
    crate::num::read(rec, dt).f()
}

/// Descending, NaN first; `Less` means `x` goes first.
fn desc(x: f64, y: f64) -> Ordering {
    match (x.is_nan(), y.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        _ => y.partial_cmp(&x).unwrap_or(Ordering::Equal),
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

fn bitsort(
    cx: &Cx,
    a: &Args,
    local: &mut dyn UbMem,
    acc: &mut Accesses,
) -> Result<Vec<Val>, Fault> {
    let dst = ub(cx, a.p.first(), "destination")?;
    let src = ub(cx, a.p.get(1), "score")?;
    let idx = ub(cx, a.p.get(2), "index")?;
    let repeat = a.s.first().and_then(|s| s.as_i64()).unwrap_or(0);
    if !(0..=255).contains(&repeat) {
        return cx.err(format!("repeat count {repeat} is outside 0..=255"));
    }
    let sb = score_bytes(cx, src.elem)?;
    for r in 0..repeat as u64 {
        let scores = read(local, acc, src.addr + r * 32 * sb as u64, 32 * sb as u64)?;
        let ids = read(local, acc, idx.addr + r * 128, 128)?;
        let mut order: Vec<usize> = (0..32).collect();
        // a stable sort: equal scores keep their lane order
        order.sort_by(|&i, &j| desc(score(&scores[i * sb..], sb), score(&scores[j * sb..], sb)));
        let mut out = vec![0u8; 256];
        for (k, &i) in order.iter().enumerate() {
            out[k * 8..k * 8 + sb].copy_from_slice(&scores[i * sb..(i + 1) * sb]);
            out[k * 8 + 4..k * 8 + 8].copy_from_slice(&ids[i * 4..(i + 1) * 4]);
        }
        write(local, acc, dst.addr + r * 256, &out)?;
    }
    Ok(Vec::new())
}

fn mrgsort4(
    cx: &Cx,
    a: &Args,
    local: &mut dyn UbMem,
    spr: &mut Spr,
    acc: &mut Accesses,
) -> Result<Vec<Val>, Fault> {
    let dst = ub(cx, a.p.first(), "destination")?;
    let mut srcs = [dst; 4];
    for (k, s) in srcs.iter_mut().enumerate() {
        *s = ub(cx, a.p.get(1 + k), "source")?;
    }
    let (Some(count), Some(config)) = (
        a.s.first().and_then(|s| s.as_i64()),
        a.s.get(1).and_then(|s| s.as_i64()),
    ) else {
        return cx.err("needs the list lengths and the config word");
    };
    let sb = score_bytes(cx, dst.elem)?;
    let repeat = (config & 0xff) as u64;
    let on = (config >> 8) & 0xf;
    let exhausted = config & (1 << 12) != 0;
    let lens: [u64; 4] = std::array::from_fn(|k| {
        if on & (1 << k) != 0 {
            (count as u64 >> (16 * k)) & 0xffff
        } else {
            0
        }
    });
    let total: u64 = lens.iter().sum();
    let mut sr = 0u64;
    for r in 0..repeat {
        let lists: Vec<Vec<u8>> = (0..4)
            .map(|k| read(local, acc, srcs[k].addr + r * total * 8, lens[k] * 8))
            .collect::<Result<_, _>>()?;
        let mut pos = [0u64; 4];
        let mut out = Vec::with_capacity(total as usize * 8);
        loop {
            // the list whose head goes first; ties go to the lower list
            let mut best: Option<usize> = None;
            for k in 0..4 {
                if pos[k] >= lens[k] {
                    continue;
                }
                let s = score(&lists[k][pos[k] as usize * 8..], sb);
                let better = match best {
                    None => true,
                    Some(b) => desc(s, score(&lists[b][pos[b] as usize * 8..], sb)).is_lt(),
                };
                if better {
                    best = Some(k);
                }
            }
            let Some(k) = best else { break };
            let at = pos[k] as usize * 8;
            out.extend_from_slice(&lists[k][at..at + 8]);
            pos[k] += 1;
            if exhausted && pos[k] == lens[k] {
                break;
            }
        }
        write(local, acc, dst.addr + r * total * 8, &out)?;
        sr = (0..4).fold(0, |w, k| w | ((pos[k] & 0xffff) << (16 * k)));
    }
    spr.vms4_sr = sr;
    Ok(Vec::new())
}
