//! `pto.timg2col` and the FMATRIX registers it reads (`pto.setfmatrix`,
//! `pto.set_img2col_rpt`, `pto.set_img2col_padding`).
//!
//! The registers are per-core state, programmed before the transform (the
//! ISA's manual FMATRIX mode):
//!
//! * `pto.setfmatrix {fmap_h, fmap_w, pad_left, pad_right, pad_top, pad_bottom}`
//!   sets the feature map's height and width and the four zero-padding
//!   widths (the FMATRIX register: W, H, then the pad list left, right,
//!   top, bottom).
//! * `pto.set_img2col_padding {pad_value}` sets the value written where a
//!   window reaches into the padding (default 0).
//! * `pto.set_img2col_rpt {repeat_time, repeat_stride, repeat_mode}` sets the
//!   repeat register. ptovm's `timg2col` always fills the destination's whole
//!   valid region in one instruction (as pto-isa's CPU reference does), so
//!   the repeat setting is recorded but does not change results.
//!
//! `pto.timg2col ins(%src[, %pos_m, %pos_k]) outs(%dst) {stride_h, stride_w,
//! filter_h, filter_w, dilation_h, dilation_w, channel_size}` reads a feature
//! map in NC1HWC0 order from a `mat` tile and writes the im2col matrix into a
//! `left` tile. The source tile holds one pixel per row: row
//! `((n * C1 + c1) * H + h) * W + w`, column `c0`, with `C0 = 32 bytes /
//! element size` columns. `channel_size` (default `C1 * C0` with `N = 1`)
//! fixes `C1 = ceil(channel_size / C0)` and thus `N`. With
//! `OH = (H + pad_top + pad_bottom - dilation_h * (filter_h - 1) - 1) / stride_h + 1`
//! (and `OW` alike), destination element (r, c) is the patch element at
//! `m = pos_m + r`, `k = pos_k + c`:
//!
//! * `n = m / (OH * OW)`, `oh = m % (OH * OW) / OW`, `ow = m % OW`;
//! * `c1 = k / (filter_h * filter_w * C0)`, `c0 = k % C0`,
//!   `kh, kw` = the row-major position `(k % (filter_h * filter_w * C0)) / C0`
//!   in the filter;
//! * the input pixel `(oh * stride_h + kh * dilation_h - pad_top,
//!   ow * stride_w + kw * dilation_w - pad_left)`, or the pad value when it
//!   lies outside the map or `n`/`c1` are past the map.
//!
//! This is the transform of pto-isa's CPU reference (`TIMG2COL`), with the
//! FMATRIX fields taken from the registers instead of a conv-tile object.
//!
//! There are two FMATRIX register sets (feature-map size and padding widths):
//! `setfmatrix {..., fmatrix = "b"}` writes the second, and `timg2col {...,
//! fmatrix = "b"}` reads it (pto-isa's `FMATRIX_B_*` modes: `set_fmatrix_b`
//! and the img2col instruction's `fmatrixCtrl`); without the attribute (or
//! with `"a"`) both use the first. The padding value and repeat registers are
//! shared.

use pto_isa_spec::{DType, Opcode};

use crate::exec::gen::attr_int;
use crate::exec::tile_ops::{
    check_valid, get, in_scalars, in_tile, out_tile, put, short, TileCall,
};
use crate::exec::{fault, Accesses, Fault};
use crate::mem::Local;
use crate::num::Num;
use crate::program::{attr, AttrVal};
use pto_asm::ty::TileLoc;

/// The FMATRIX / img2col registers of one core.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Regs {
    /// Set by `setfmatrix`: (H, W) of the feature map.
    pub fmap: Option<(i64, i64)>,
    /// Padding widths: left, right, top, bottom.
    pub pad: [i64; 4],
    /// The padding value (`set_img2col_padding`): an integer, or a float's
    /// f64 bits.
    pub pad_value: Option<PadValue>,
    /// `set_img2col_rpt`: repeat time, stride, mode.
    pub repeat: (i64, i64, i64),
    /// The second FMATRIX register set (`setfmatrix {fmatrix = "b"}`):
    /// (H, W) and the padding widths.
    pub fmap_b: Option<(i64, i64)>,
    /// Padding widths of the B set: left, right, top, bottom.
    pub pad_b: [i64; 4],
}

/// Whether the op names the second FMATRIX register set (`fmatrix = "b"`;
/// `"a"` or no attribute: the first), as pto-isa's `FMATRIX_B_*` modes write
/// `set_fmatrix_b` and pass `fmatrixCtrl` to the img2col instruction.
fn set_b(call: &TileCall) -> Result<bool, Fault> {
    match crate::exec::tile_ops::attr_sym(call, &["fmatrix"]).as_deref() {
        None | Some("A") => Ok(false),
        Some("B") => Ok(true),
        Some(other) => fault(format!(
            "{}: fmatrix must be \"a\" or \"b\", found {other}",
            short(call)
        )),
    }
}

/// The padding register's value as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadValue {
    /// An integer.
    Int(i64),
    /// A float (its f64 bits).
    Float(u64),
}

/// Executes `timg2col` or one of its register writes.
pub fn run(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    match call.op {
        Opcode::Setfmatrix => setfmatrix(call, local),
        Opcode::SetImg2colPadding => {
            let v = match attr(&call.attrs, "pad_value").or_else(|| attr(&call.attrs, "value")) {
                None => PadValue::Int(0),
                Some(AttrVal::Int(i)) => PadValue::Int(*i),
                Some(AttrVal::Float(f)) => PadValue::Float(f.to_bits()),
                Some(AttrVal::Sym(s)) => {
                    return fault(format!("{}: pad_value = {s} is not a number", short(call)))
                }
            };
            local.img2col.pad_value = Some(v);
            Ok(())
        }
        Opcode::SetImg2colRpt => {
            let time = nonneg(call, "repeat_time", 1)?;
            let stride = nonneg(call, "repeat_stride", 0)?;
            let mode = nonneg(call, "repeat_mode", 0)?;
            if time > 255 || stride > 0xffff || mode > 1 {
                return fault(format!(
                    "{}: repeat_time {time} (at most 255), repeat_stride {stride} (16 bits) or repeat_mode {mode} (0 or 1) is out of range",
                    short(call)
                ));
            }
            local.img2col.repeat = (time, stride, mode);
            Ok(())
        }
        Opcode::TImg2col => img2col(call, local, acc),
        _ => fault(format!("{} is not an img2col op", call.op.name())),
    }
}

/// An integer attribute that must be >= 0 (`default` when absent).
fn nonneg(call: &TileCall, key: &str, default: i64) -> Result<i64, Fault> {
    let v = attr_int(call, key)?.unwrap_or(default);
    if v < 0 {
        return fault(format!("{}: {key} = {v} must not be negative", short(call)));
    }
    Ok(v)
}

/// An integer attribute that must be >= 1 (`1` when absent).
/// A stride, filter size or dilation: at least 1, and at most 65535 (wider
/// than any register field holding it; the window arithmetic then cannot
/// overflow).
fn positive(call: &TileCall, key: &str) -> Result<i64, Fault> {
    let v = attr_int(call, key)?.unwrap_or(1);
    if v < 1 {
        return fault(format!("{}: {key} = {v} must be at least 1", short(call)));
    }
    if v > 0xffff {
        return fault(format!("{}: {key} = {v} is above 65535", short(call)));
    }
    Ok(v)
}

fn setfmatrix(call: &TileCall, local: &mut Local) -> Result<(), Fault> {
    let (Some(h), Some(w)) = (attr_int(call, "fmap_h")?, attr_int(call, "fmap_w")?) else {
        return fault(format!(
            "{}: needs fmap_h and fmap_w (the feature map's height and width)",
            short(call)
        ));
    };
    if !(1..=0xffff).contains(&h) || !(1..=0xffff).contains(&w) {
        return fault(format!(
            "{}: fmap_h {h} and fmap_w {w} must be in 1..=65535",
            short(call)
        ));
    }
    let mut pad = [0; 4];
    for (i, k) in ["pad_left", "pad_right", "pad_top", "pad_bottom"]
        .iter()
        .enumerate()
    {
        pad[i] = nonneg(call, k, 0)?;
        if pad[i] > 255 {
            return fault(format!(
                "{}: {k} = {} does not fit the register's 8 bits",
                short(call),
                pad[i]
            ));
        }
    }
    if set_b(call)? {
        local.img2col.fmap_b = Some((h, w));
        local.img2col.pad_b = pad;
    } else {
        local.img2col.fmap = Some((h, w));
        local.img2col.pad = pad;
    }
    Ok(())
}

fn img2col(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let src = in_tile(call, 0, "source (feature map)")?;
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, src, "source")?;
    check_valid(call, dst, "destination")?;
    if src.loc != TileLoc::Mat || dst.loc != TileLoc::Left {
        return fault(format!(
            "{}: reads a mat tile and writes a left tile (got loc={} -> loc={})",
            short(call),
            src.loc.name(),
            dst.loc.name()
        ));
    }
    if src.elem != dst.elem {
        return fault(format!(
            "{}: source and destination element types differ ({} vs {})",
            short(call),
            src.elem,
            dst.elem
        ));
    }
    if !matches!(
        src.elem,
        DType::I8
            | DType::U8
            | DType::I16
            | DType::U16
            | DType::I32
            | DType::U32
            | DType::F16
            | DType::BF16
            | DType::F32
    ) {
        return fault(format!(
            "{}: element type {} is not supported (8/16/32-bit integers, f16, bf16, f32)",
            short(call),
            src.elem
        ));
    }
    if attr_int(call, "transpose")?.unwrap_or(0) != 0 {
        return fault(format!(
            "{}: the transpose form is not implemented",
            short(call)
        ));
    }
    let regs = local.img2col;
    let b = set_b(call)?;
    let (fmap, pads) = if b {
        (regs.fmap_b, regs.pad_b)
    } else {
        (regs.fmap, regs.pad)
    };
    let Some((fh_map, fw_map)) = fmap else {
        return fault(format!(
            "{}: the FMATRIX register is not set (set {}: run pto.setfmatrix{} first)",
            short(call),
            if b { "B" } else { "A" },
            if b { " {fmatrix = \"b\"}" } else { "" }
        ));
    };
    let [pl, pr, pt, pb] = pads;
    let (sh, sw) = (positive(call, "stride_h")?, positive(call, "stride_w")?);
    let (kh_n, kw_n) = (positive(call, "filter_h")?, positive(call, "filter_w")?);
    let (dh, dw) = (positive(call, "dilation_h")?, positive(call, "dilation_w")?);
    let c0n = 32 / src.elem.bytes() as i64;
    if src.v_col != c0n {
        return fault(format!(
            "{}: the feature-map tile must hold one pixel of C0 = {c0n} {} channels per row (valid region has {} columns)",
            short(call),
            src.elem,
            src.v_col
        ));
    }
    let hw = fh_map * fw_map;
    if src.v_row % hw != 0 {
        return fault(format!(
            "{}: the feature-map tile's {} valid rows are not a whole number of {fh_map}x{fw_map} maps",
            short(call),
            src.v_row
        ));
    }
    let planes = src.v_row / hw; // N * C1
    let c1n = match nonneg(call, "channel_size", 0)? {
        0 => planes,
        cs => (cs + c0n - 1) / c0n,
    };
    if planes % c1n != 0 {
        return fault(format!(
            "{}: channel_size gives C1 = {c1n}, which does not divide the tile's {planes} channel planes",
            short(call)
        ));
    }
    let nn = planes / c1n;
    // the padded extent a window can start in, minus one
    let span = |n: i64, pa: i64, pb: i64, d: i64, k: i64| n + pa + pb - d * (k - 1) - 1;
    let (eh, ew) = (
        span(fh_map, pt, pb, dh, kh_n),
        span(fw_map, pl, pr, dw, kw_n),
    );
    if eh < 0 || ew < 0 {
        return fault(format!(
            "{}: the {kh_n}x{kw_n} filter (dilation {dh}x{dw}) does not fit the padded {fh_map}x{fw_map} map",
            short(call)
        ));
    }
    let (oh_n, ow_n) = (eh / sh + 1, ew / sw + 1);
    let s = in_scalars(call);
    let (pos_m, pos_k) = match (s.first(), s.get(1)) {
        (None, None) => (0, 0),
        (Some(m), Some(k)) => (m.i(), k.i()),
        _ => {
            return fault(format!(
                "{}: takes both pos_m and pos_k or neither",
                short(call)
            ))
        }
    };
    if pos_m < 0 || pos_k < 0 {
        return fault(format!(
            "{}: pos_m {pos_m} and pos_k {pos_k} must not be negative",
            short(call)
        ));
    }
    // the last row's and column's positions must not pass i64
    if pos_m.checked_add(dst.v_row).is_none() || pos_k.checked_add(dst.v_col).is_none() {
        return fault(format!(
            "{}: pos_m {pos_m} and pos_k {pos_k} put the {}x{} destination past 2^63",
            short(call),
            dst.v_row,
            dst.v_col
        ));
    }
    let pad_value = match regs.pad_value {
        None => Num::I(0),
        Some(PadValue::Int(i)) => Num::I(i),
        Some(PadValue::Float(b)) => Num::F(f64::from_bits(b)),
    };
    let kwin = kh_n * kw_n * c0n;
    for r in 0..dst.v_row {
        let m = pos_m + r;
        let n = m / (oh_n * ow_n);
        let oh = m % (oh_n * ow_n) / ow_n;
        let ow = m % ow_n;
        for c in 0..dst.v_col {
            let k = pos_k + c;
            let c1 = k / kwin;
            let c0 = k % c0n;
            let pos = k % kwin / c0n;
            let (kh, kw) = (pos / kw_n, pos % kw_n);
            let ih = oh * sh + kh * dh - pt;
            let iw = ow * sw + kw * dw - pl;
            let v = if n < nn && c1 < c1n && (0..fh_map).contains(&ih) && (0..fw_map).contains(&iw)
            {
                let row = ((n * c1n + c1) * fh_map + ih) * fw_map + iw;
                get(local, src, row, c0, acc)?
            } else {
                pad_value
            };
            put(local, dst, r, c, v, acc)?;
        }
    }
    Ok(())
}
