//! `thistogram ins(%src, %idx) outs(%dst) {byte}`: a per-row cumulative byte
//! histogram, the radix-sort step of the A5 `chistv2` instruction. The manual's
//! page states no semantics; ptovm follows the A5 implementation and the CPU
//! simulator, which agree:
//!
//! For each valid row of `src` (ui16 or ui32), count the selected byte of every
//! valid element that passes the filter into 256 bins, then write the running
//! sums: `dst[row, b] = #{elements with byte <= b}` for `b < 256` (`dst` is ui32
//! with at least 256 valid columns). `idx` is ui8.
//!
//! * ui16: `byte = 1` (or `isMSB = true`, the default) counts the high byte of
//!   every element; `byte = 0` (`isMSB = false`) counts the low byte of the
//!   elements whose high byte equals `idx[row, 0]`.
//! * ui32: `byte = 3` (the default) counts the top byte; `byte = 2` only
//!   elements whose byte 3 equals `idx[0, 0]`; `byte = 1` also needs byte 2 ==
//!   `idx[1, 0]`; `byte = 0` also byte 1 == `idx[2, 0]` (one filter row per
//!   processed byte, shared by every source row).
//!
//! The A5 code steps through the ui16 filters one byte per row, which is
//! `idx[row, 0]` for the column tiles (`Nx1`, col-major) kernels use; for other
//! index tile shapes ptovm reads `idx[row, 0]` through the layout, as the CPU
//! simulator does.

use pto_isa_spec::DType;

use crate::exec::gen::attr_int;
use crate::exec::tile_ops::{check_valid, get, in_tile, out_tile, put, TileCall};
use crate::exec::{fault, Accesses, Fault};
use crate::mem::Local;
use crate::num::Num;

/// Executes `thistogram`.
pub fn run(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let src = in_tile(call, 0, "source")?;
    let idx = in_tile(call, 1, "index tile")?;
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, src, "source")?;
    check_valid(call, idx, "index tile")?;
    check_valid(call, dst, "destination")?;
    if dst.elem != DType::U32 {
        return fault(format!(
            "thistogram: the destination must be ui32, found {}",
            dst.elem
        ));
    }
    if !matches!(idx.elem, DType::U8 | DType::I8) {
        return fault(format!(
            "thistogram: the index tile must be ui8, found {}",
            idx.elem
        ));
    }
    if dst.v_col < 256 || dst.v_row < src.v_row {
        return fault(format!(
            "thistogram: the destination's valid region {}x{} needs {} rows of 256 bins",
            dst.v_row, dst.v_col, src.v_row
        ));
    }
    let wide = match src.elem {
        DType::U16 => false,
        DType::U32 => true,
        other => {
            return fault(format!(
                "thistogram: the source must be ui16 or ui32, found {other}"
            ))
        }
    };
    let byte = match (attr_int(call, "byte")?, attr_int(call, "isMSB")?) {
        (Some(b), _) => b,
        (None, Some(m)) => (m != 0) as i64,
        (None, None) if wide => 3,
        (None, None) => 1,
    };
    let top = if wide { 3 } else { 1 };
    if !(0..=top).contains(&byte) {
        return fault(format!(
            "thistogram: byte {byte} does not exist in a {} source (0..={top})",
            src.elem
        ));
    }
    let idx_at = |local: &Local, r: i64, acc: &mut Accesses| -> Result<u64, Fault> {
        if r >= idx.v_row {
            return fault(format!(
                "thistogram: the filter for byte {byte} needs index row {r}, but the index tile has {} valid rows",
                idx.v_row
            ));
        }
        Ok(get(local, idx, r, 0, acc)?.i() as u64 & 0xff)
    };
    // ui32: (byte position, filter value) pairs every element must match
    let mut filters: Vec<(i64, u64)> = Vec::new();
    if wide {
        for (k, pos) in (byte + 1..=3).rev().enumerate() {
            filters.push((pos, idx_at(local, k as i64, acc)?));
        }
    }
    for r in 0..src.v_row {
        let row_filter = if !wide && byte == 0 {
            Some(idx_at(local, r, acc)?)
        } else {
            None
        };
        let mut counts = [0u64; 256];
        for c in 0..src.v_col {
            let v = get(local, src, r, c, acc)?.i() as u64;
            let b = |p: i64| (v >> (8 * p)) & 0xff;
            let pass =
                filters.iter().all(|&(p, f)| b(p) == f) && row_filter.is_none_or(|f| b(1) == f);
            if pass {
                counts[b(byte) as usize] += 1;
            }
        }
        let mut sum = 0u64;
        for (bin, n) in counts.iter().enumerate() {
            sum += n;
            put(local, dst, r, bin as i64, Num::I(sum as i64), acc)?;
        }
    }
    Ok(())
}
