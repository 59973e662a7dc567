//! Vector micro-ops of the VM subset: `vlds`/`vsts` (NORM, BRC load),
//! lane-wise unary/binary/vector-scalar ops, `vbr`, `pset_b*`, `plt_b*`.
//!
//! A vector register is 256 bytes; a mask has one bit per register byte, so an
//! N-lane op with element size s reads lane i's bit at i*s. Masked-off lanes of
//! compute results are zero (docs/decisions: zeroing by default); masked-off
//! lanes of `vsts` never write memory.

use pto_isa_spec::DType;

use crate::exec::{fault, tile::ew, Accesses, Fault};
use crate::mem::Local;
use crate::num::{read, write, Num};
use crate::program::EwOp;
use crate::value::{Ptr, Space};

/// A full mask.
pub fn all_mask() -> Box<[u8; 32]> {
    Box::new([0xff; 32])
}

/// Whether lane `i` of an op with element size `es` is active.
pub fn lane_on(m: &[u8; 32], i: usize, es: usize) -> bool {
    let bit = i * es;
    bit < 256 && m[bit / 8] & (1 << (bit % 8)) != 0
}

/// Mask with the first `n` lanes (of element size `es`) active.
pub fn first_lanes(n: usize, es: usize) -> Box<[u8; 32]> {
    let mut m = Box::new([0u8; 32]);
    for b in 0..(n * es).min(256) {
        m[b / 8] |= 1 << (b % 8);
    }
    m
}

/// `pset_b*` pattern.
pub fn pattern(p: &str, es: usize) -> Result<Box<[u8; 32]>, Fault> {
    let lanes = 256 / es;
    let n = match p.trim_matches('"') {
        "PAT_ALL" => lanes,
        "PAT_ALLF" => 0,
        "PAT_H" => lanes / 2,
        "PAT_Q" => lanes / 4,
        "PAT_M4" => lanes / 4 * 4,
        "PAT_M3" => lanes / 3 * 3,
        other => match other
            .strip_prefix("PAT_VL")
            .and_then(|n| n.parse::<usize>().ok())
        {
            Some(n) => n.min(lanes),
            None => return fault(format!("unknown predicate pattern {other}")),
        },
    };
    Ok(first_lanes(n, es))
}

fn ub_addr(p: &Ptr, off: i64, es: usize) -> Result<u64, Fault> {
    if p.space != Space::Ub {
        return fault(format!(
            "vector load/store needs a UB pointer, got {}",
            p.space.name()
        ));
    }
    let a = p.addr as i64 + off * es as i64;
    if a < 0 {
        return fault("vector access at a negative UB address");
    }
    Ok(a as u64)
}

/// `vlds` NORM: 256 contiguous bytes; BRC: one element broadcast.
pub fn load(
    local: &Local,
    p: &Ptr,
    off: i64,
    elem: DType,
    brc: bool,
    acc: &mut Accesses,
) -> Result<Box<[u8; 256]>, Fault> {
    let es = elem.bytes();
    let a = ub_addr(p, off, es)?;
    let mut v = Box::new([0u8; 256]);
    if brc {
        let s = local.slice(Space::Ub, a, es as u64)?;
        acc.add(Space::Ub, a, es as u64, false);
        for ch in v.chunks_mut(es) {
            ch.copy_from_slice(s);
        }
    } else {
        v.copy_from_slice(local.slice(Space::Ub, a, 256)?);
        acc.add(Space::Ub, a, 256, false);
    }
    Ok(v)
}

/// `vsts` NORM: active lanes only.
pub fn store(
    local: &mut Local,
    v: &[u8; 256],
    p: &Ptr,
    off: i64,
    elem: DType,
    mask: &[u8; 32],
    acc: &mut Accesses,
) -> Result<(u64, u64), Fault> {
    let es = elem.bytes();
    let a = ub_addr(p, off, es)?;
    // bounds-check the whole register span even when lanes are masked off
    local.slice(Space::Ub, a, 256)?;
    let dst = local.slice_mut(Space::Ub, a, 256)?;
    let mut lo = u64::MAX;
    let mut hi = 0;
    for i in 0..256 / es {
        if lane_on(mask, i, es) {
            dst[i * es..(i + 1) * es].copy_from_slice(&v[i * es..(i + 1) * es]);
            lo = lo.min(a + (i * es) as u64);
            hi = hi.max(a + ((i + 1) * es) as u64);
        }
    }
    if hi > lo {
        acc.add(Space::Ub, lo, hi - lo, true);
        Ok((lo, hi))
    } else {
        Ok((a, a))
    }
}

/// Lane-wise op: `b` is a second register, `s` a scalar (vector-scalar form).
pub fn lanewise(
    op: EwOp,
    a: &[u8; 256],
    b: Option<&[u8; 256]>,
    s: Option<Num>,
    mask: &[u8; 32],
    elem: DType,
) -> Box<[u8; 256]> {
    let es = elem.bytes();
    let mut out = Box::new([0u8; 256]);
    // bitwise ops act on the lanes' bytes: going through a number would
    // canonicalize NaN patterns of float lanes (fp8 0xff reads back as 0x7f)
    let bitwise = matches!(op, EwOp::And | EwOp::Or | EwOp::Xor | EwOp::Not);
    let mut sb = [0u8; 8];
    if let (true, Some(s)) = (bitwise, s) {
        write(&mut sb[..es], elem, s);
    }
    for i in 0..256 / es {
        if !lane_on(mask, i, es) {
            continue; // zeroing
        }
        if bitwise {
            for k in 0..es {
                let x = a[i * es + k];
                let y = match (b, s) {
                    (Some(b), _) => b[i * es + k],
                    (None, Some(_)) => sb[k],
                    (None, None) => x,
                };
                out[i * es + k] = match op {
                    EwOp::And => x & y,
                    EwOp::Or => x | y,
                    EwOp::Xor => x ^ y,
                    _ => !x,
                };
            }
            continue;
        }
        let x = read(&a[i * es..], elem);
        let y = match (b, s) {
            (Some(b), _) => read(&b[i * es..], elem),
            (None, Some(s)) => s,
            (None, None) => x,
        };
        write(&mut out[i * es..(i + 1) * es], elem, ew(op, x, y, elem));
    }
    out
}

/// `vbr`: broadcast a scalar.
pub fn broadcast(s: Num, elem: DType) -> Box<[u8; 256]> {
    let es = elem.bytes();
    let mut out = Box::new([0u8; 256]);
    for i in 0..256 / es {
        write(&mut out[i * es..(i + 1) * es], elem, s);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_select_lanes_by_granularity() {
        let m = first_lanes(3, 4);
        assert!(lane_on(&m, 2, 4) && !lane_on(&m, 3, 4));
        assert_eq!(pattern("PAT_ALL", 4).unwrap(), all_mask());
        assert!(!lane_on(&pattern("PAT_VL8", 2).unwrap(), 8, 2));
        assert!(pattern("PAT_BOGUS", 4).is_err());
    }

    #[test]
    fn masked_off_lanes_are_zero() {
        let mut a = [0u8; 256];
        for ch in a.chunks_mut(4) {
            ch.copy_from_slice(&1.5f32.to_le_bytes());
        }
        let r = lanewise(
            EwOp::Add,
            &a,
            Some(&a),
            None,
            &first_lanes(1, 4),
            DType::F32,
        );
        assert_eq!(f32::from_le_bytes([r[0], r[1], r[2], r[3]]), 3.0);
        assert_eq!(f32::from_le_bytes([r[4], r[5], r[6], r[7]]), 0.0);
    }

    #[test]
    fn bitwise_ops_keep_float_nan_patterns() {
        // fp8 e4m3fn 0xff and 0x7f are both NaN; the sign bit must survive
        let a = [0xffu8; 256];
        let b = [0xf0u8; 256];
        let r = lanewise(EwOp::And, &a, Some(&b), None, &all_mask(), DType::F8E4M3);
        assert!(r.iter().all(|&x| x == 0xf0));
        let r = lanewise(EwOp::Not, &b, None, None, &all_mask(), DType::F8E4M3);
        assert!(r.iter().all(|&x| x == 0x0f));
        // a signalling f32 NaN is not quieted by xor with zero
        let mut s = [0u8; 256];
        for ch in s.chunks_mut(4) {
            ch.copy_from_slice(&0x7f80_0001u32.to_le_bytes());
        }
        let r = lanewise(
            EwOp::Xor,
            &s,
            Some(&[0u8; 256]),
            None,
            &all_mask(),
            DType::F32,
        );
        assert_eq!(&r[..4], &0x7f80_0001u32.to_le_bytes());
    }
}
