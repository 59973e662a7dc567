//! The X -> ZZ form of `tmov` (`tmov ins(%exp, %tmp) outs(%zz)`, A5): repacks
//! the E8M0 exponents of an MX quantization into the cube's ZZ scale order.
//!
//! The result is a byte stream written from the start of the destination's
//! storage: 32-byte boxes of 16 rows x 2 group lanes, row-major inside the
//! box (pto-isa's CPU `ReorderExponentZZ` and the manual's DN -> ZZ formula):
//!
//! * ND -> ZZ (default, `grpAxis = axis1`): the exponents are an `M x G`
//!   matrix (the destination's valid shape; the source's valid elements in
//!   row-major order). Rows are padded with zeros to a multiple of 16; the
//!   stream is `[row block][column pair][row in block][lane]`, byte
//!   `E[16 rb + r][2 cp + q]`. The padding rows are zeroed in the source
//!   too (the A5 implementation pads in place).
//! * DN -> ZZ (`grpAxis = axis0`): the exponents are the source's
//!   `M^ x N` valid region (`M^` even, `N` a multiple of 16); the stream is
//!   `[column block][row pair][column in block][lane]`, byte
//!   `E[2 p + lane][16 cb + q]` (the transpose, then ND -> ZZ).
//!
//! `tmp` is the A5 gather-index scratch and holds nothing observable.

use crate::exec::tile_ops::{
    attr_sym, check_valid, get, in_tile, out_tile, short, space, TileCall,
};
use crate::exec::{fault, Accesses, Fault};
use crate::mem::Local;

/// Executes an X -> ZZ `tmov`.
pub fn run(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let src = in_tile(call, 0, "source exponents")?;
    let dst = out_tile(call, 0, "ZZ destination")?;
    check_valid(call, src, "source")?;
    check_valid(call, dst, "destination")?;
    if src.elem.bytes() != 1 || dst.elem.bytes() != 1 || src.elem != dst.elem {
        return fault(format!(
            "{}: the X-to-ZZ form moves one-byte exponents (got {} -> {})",
            short(call),
            src.elem,
            dst.elem
        ));
    }
    let axis0 = attr_sym(call, &["grpAxis", "grp_axis"]).is_some_and(|a| a.contains('0'));
    let (svr, svc) = (src.v_row, src.v_col);
    let mut stream = Vec::new();
    if axis0 {
        if svr % 2 != 0 || svc % 16 != 0 {
            return fault(format!(
                "{}: DN-to-ZZ needs an even number of exponent rows and a multiple of 16 columns (source valid {svr}x{svc})",
                short(call)
            ));
        }
        let mut e = vec![vec![0u8; svc as usize]; svr as usize];
        for (r, row) in e.iter_mut().enumerate() {
            for (c, b) in row.iter_mut().enumerate() {
                *b = get(local, src, r as i64, c as i64, acc)?.i() as u8;
            }
        }
        for cb in 0..(svc / 16) as usize {
            for p in 0..(svr / 2) as usize {
                for q in 0..16 {
                    for lane in 0..2 {
                        stream.push(e[2 * p + lane][16 * cb + q]);
                    }
                }
            }
        }
    } else {
        let (m, g) = (dst.v_row, dst.v_col);
        if g % 2 != 0 || svr * svc != m * g {
            return fault(format!(
                "{}: ND-to-ZZ needs an even exponent column count and as many source exponents as destination ones (source valid {svr}x{svc}, destination {m}x{g})",
                short(call)
            ));
        }
        let mut flat = Vec::with_capacity((m * g) as usize);
        for r in 0..svr {
            for c in 0..svc {
                flat.push(get(local, src, r, c, acc)?.i() as u8);
            }
        }
        let m16 = (m + 15) / 16 * 16;
        let at = |r: i64, c: i64| if r < m { flat[(r * g + c) as usize] } else { 0 };
        for rb in 0..m16 / 16 {
            for cp in 0..g / 2 {
                for r in 0..16 {
                    for q in 0..2 {
                        stream.push(at(16 * rb + r, 2 * cp + q));
                    }
                }
            }
        }
        // the padding rows are zeroed in the (compact) source
        if m16 > m {
            let pad = ((m16 - m) * g) as u64;
            if src.bytes() < (m16 * g) as u64 {
                return fault(format!(
                    "{}: the source's {} bytes cannot hold the {} exponents padded to {m16} rows",
                    short(call),
                    src.bytes(),
                    m16 * g
                ));
            }
            let at = src.addr + (m * g) as u64;
            local.slice_mut(space(src), at, pad)?.fill(0);
            acc.add(space(src), at, pad, true);
        }
    }
    let n = stream.len() as u64;
    if n > dst.bytes() {
        return fault(format!(
            "{}: the {n}-byte ZZ stream does not fit the destination's {} bytes",
            short(call),
            dst.bytes()
        ));
    }
    local
        .slice_mut(space(dst), dst.addr, n)?
        .copy_from_slice(&stream);
    acc.add(space(dst), dst.addr, n, true);
    Ok(())
}
