//! MX exponent-layout rules: the X-to-ZZ form of `pto.tmov`, which takes a
//! third, non-scaling tile as scratch and rearranges a grid of 8-bit shared
//! exponents (ui8, hif8, E8M0) from an ND (row-grouped, `grpAxis` axis1) or DN
//! (column-grouped, axis0) tile into the ZZ box layout the cube reads MX
//! scales in. A5 only. These are the shape and capacity contracts of
//! PTOAS's tmov verifier for that form; each is checked on one op.

use pto_isa_spec::ProfileId;

use crate::ast::{File, Op, ValueId};
use crate::attr::Attr;
use crate::ty::{BLayout, SLayout, TileBuf, TileLoc, Type, TypeId};

fn ty(file: &File, v: ValueId) -> Option<&Type> {
    let t = file.values.get(v as usize)?.ty?;
    Some(file.types.get(t))
}

fn tile(file: &File, v: ValueId) -> Option<TileBuf> {
    match ty(file, v)? {
        Type::TileBuf(tb) => Some(*tb),
        _ => None,
    }
}

/// Bytes of one element, for the 8-bit exponent types and the builtin ones.
fn elem_bytes(file: &File, t: TypeId) -> i64 {
    match file.types.get(t) {
        Type::Opaque { .. } => 1,
        other => other
            .scalar_dtype()
            .map_or(1, |d| (i64::from(d.bits()) / 8).max(1)),
    }
}

fn bytes(file: &File, tb: &TileBuf) -> i64 {
    tb.rows
        .saturating_mul(tb.cols)
        .saturating_mul(elem_bytes(file, tb.elem))
}

/// Runs the MX layout rules for `op`.
pub(crate) fn check(file: &File, profile: ProfileId, op: &Op, e: &mut Vec<String>) {
    if op.opcode.name() == "pto.tmov" {
        tmov(file, profile, op, e);
    }
}

fn tmov(file: &File, profile: ProfileId, op: &Op, e: &mut Vec<String>) {
    let ins = op.group("ins").map(|g| g.0).unwrap_or_default();
    let outs = op.group("outs").map(|g| g.0).unwrap_or_default();
    let grp_axis = op.attr("grpAxis").and_then(Attr::enum_value);
    // the third tile: a non-scalar second `ins` operand
    let third = ins
        .get(1)
        .copied()
        .filter(|v| ty(file, *v).is_some_and(|t| !t.is_scalar()));
    let Some(fp) = third else {
        if grp_axis.is_some() {
            e.push("expects grpAxis only on the X-to-ZZ form with a non-scaling third tile".into());
        }
        return;
    };
    let fp_tile = tile(file, fp);
    let has_space = match ty(file, fp) {
        Some(Type::TileBuf(_)) => true,
        Some(Type::Shaped { rest, .. }) => rest.as_deref().is_some_and(|r| r.contains("space")),
        _ => true,
    };
    if !has_space {
        e.push("expects the third tile to have an explicit address space".into());
        return;
    }
    if fp_tile.is_some_and(|t| t.loc == TileLoc::Scaling) {
        // the FP (fixpipe quantisation) form
        if grp_axis.is_some() {
            e.push("expects grpAxis only on the X-to-ZZ form with a non-scaling third tile".into());
        }
        return;
    }
    // X-to-ZZ
    if profile != ProfileId::A5 {
        e.push("X-to-ZZ tmov is only supported on A5".into());
        return;
    }
    if op.result_values().next().is_some() {
        e.push("expects X-to-ZZ tmov not to have results".into());
        return;
    }
    let pre_quant = ins
        .iter()
        .skip(1)
        .any(|v| ty(file, *v).is_some_and(|t| t.is_scalar()));
    let relu = op
        .attr("reluPreMode")
        .and_then(Attr::enum_value)
        .is_some_and(|m| m != "NoRelu" && m != "no_relu");
    if pre_quant || relu || op.attr("accToVecMode").is_some() {
        e.push(
            "expects the X-to-ZZ tmov form not to use preQuantScalar, accToVecMode, or reluPreMode"
                .into(),
        );
        return;
    }
    let (Some(src_v), Some(dst_v)) = (ins.first().copied(), outs.first().copied()) else {
        return;
    };
    let (Some(src), Some(dst), Some(tmp)) = (tile(file, src_v), tile(file, dst_v), fp_tile) else {
        e.push("expects X-to-ZZ src/dst/tmp to be vec tiles".into());
        return;
    };
    if [src.loc, dst.loc, tmp.loc]
        .iter()
        .any(|l| *l != TileLoc::Vec)
    {
        e.push(format!(
            "expects X-to-ZZ src/dst/tmp to be vec tiles (got {}, {}, {})",
            src.loc.name(),
            dst.loc.name(),
            tmp.loc.name()
        ));
        return;
    }
    if src_v == dst_v || src_v == fp || dst_v == fp {
        e.push("expects X-to-ZZ src, dst, and tmp to be distinct tile values".into());
        return;
    }
    let (Some(svr), Some(svc), Some(dvr), Some(dvc)) = (src.v_row, src.v_col, dst.v_row, dst.v_col)
    else {
        e.push("expects static valid and physical shapes for src/dst and a static tmp physical shape for X-to-ZZ".into());
        return;
    };
    if [src.rows, src.cols, dst.rows, dst.cols, tmp.rows, tmp.cols]
        .iter()
        .any(|d| *d < 0)
    {
        e.push("expects static valid and physical shapes for src/dst and a static tmp physical shape for X-to-ZZ".into());
        return;
    }
    if src.elem != dst.elem || src.elem != tmp.elem {
        e.push("expects src, dst, and tmp to share one element type".into());
        return;
    }
    let elem_ok = match file.types.get(src.elem) {
        Type::UInt(8) => true,
        Type::Opaque { name, params: None } => matches!(name.as_str(), "pto.hif8" | "pto.f8E8M0"),
        _ => false,
    };
    if !elem_ok {
        e.push(format!(
            "expects element type to be one of ui8, !pto.hif8, !pto.f8E8M0, got {} (PTO-ISA's ZZ exponent layout takes unsigned bytes)",
            crate::printer::type_str(&file.types, src.elem)
        ));
        return;
    }
    if (src.blayout, src.slayout) != (BLayout::RowMajor, SLayout::NoneBox) {
        e.push("expects src to use blayout=row_major, slayout=none_box".into());
        return;
    }
    if (dst.blayout, dst.slayout) != (BLayout::RowMajor, SLayout::RowMajor) {
        e.push("expects dst to use blayout=row_major, slayout=row_major (ZZ box)".into());
        return;
    }
    if svr.saturating_mul(svc) != dvr.saturating_mul(dvc) {
        e.push(format!(
            "expects src and dst to hold the same exponent count (src valid {svr}x{svc}, dst valid {dvr}x{dvc})"
        ));
        return;
    }
    let (src_bytes, dst_bytes, tmp_bytes) =
        (bytes(file, &src), bytes(file, &dst), bytes(file, &tmp));
    let axis0 = grp_axis.is_some_and(|a| a.contains('0'));
    if !axis0 {
        // ND to ZZ: rows are padded to 16 in place
        if dvc % 2 != 0 {
            e.push(format!("expects ND-to-ZZ dst valid_shape[1] (the grouped exponent column count) to be even, got {dvc}"));
            return;
        }
        if svr != 1 && src.cols != svc {
            e.push(format!(
                "expects ND-to-ZZ src valid elements to form a compact prefix (single-row legacy flat or physical row stride equal to valid cols); src has {} columns for {svc} valid",
                src.cols
            ));
            return;
        }
        let rows16 = (dvr.saturating_add(15) / 16).saturating_mul(16);
        let need = rows16.saturating_mul(dvc);
        if src_bytes < need {
            e.push(format!(
                "expects ND-to-ZZ src physical capacity to cover align16(dst rows) * dst cols = {need} bytes because source padding is zeroed in place, got {src_bytes}"
            ));
            return;
        }
        if dst_bytes < need {
            e.push(format!(
                "expects ND-to-ZZ dst physical capacity to cover align16(dst rows) * dst cols = {need} bytes, got {dst_bytes}"
            ));
            return;
        }
        let tmp_need = (dvr.saturating_add(15) / 16)
            .saturating_mul(dvc)
            .saturating_add(64);
        if tmp_bytes < tmp_need {
            e.push(format!(
                "expects tmp to provide at least {tmp_need} bytes for ND-to-ZZ (64 + ceil(dst rows / 16) * dst cols), got {tmp_bytes}"
            ));
        }
    } else {
        // DN to ZZ: pairs of rows form one group
        if svr < 2 || svr % 2 != 0 {
            e.push(format!("expects DN-to-ZZ src valid_shape[0] to be an even count >= 2, got {svr} (a single row-group produces no output)"));
            return;
        }
        if svc % 16 != 0 {
            e.push(format!(
                "expects DN-to-ZZ src valid_shape[1] to be a multiple of 16, got {svc}"
            ));
            return;
        }
        if src.cols != svc {
            e.push(format!(
                "expects DN-to-ZZ src physical row stride to equal src valid_shape[1] ({} vs {svc})",
                src.cols
            ));
            return;
        }
        let need = svr.saturating_mul(svc);
        if src_bytes < need || dst_bytes < need {
            e.push(format!(
                "expects DN-to-ZZ src/dst physical capacity to cover src valid rows * src valid cols = {need} bytes"
            ));
        }
    }
}

/// A tile's static valid and physical shape.
#[derive(Clone, Copy)]
struct Sh {
    vr: i64,
    vc: i64,
    pr: i64,
    pc: i64,
}

impl Sh {
    fn of(tb: &TileBuf) -> Option<Sh> {
        let (vr, vc) = (tb.v_row?, tb.v_col?);
        (tb.rows >= 0 && tb.cols >= 0).then_some(Sh {
            vr,
            vc,
            pr: tb.rows,
            pc: tb.cols,
        })
    }
    fn cap(&self) -> i64 {
        self.pr.saturating_mul(self.pc)
    }
    /// Valid elements form a prefix of the physical storage.
    fn compact(&self) -> bool {
        self.vr == 1 || self.pc == self.vc
    }
}

fn align(x: i64, a: i64) -> i64 {
    (x.saturating_add(a - 1) / a).saturating_mul(a)
}

/// `pto.tquant.mx ins(src) outs(dst, exp, max, scaling[, exp_zz])`: one
/// shared exponent per 32 source elements along the group axis (axis1:
/// along a row, ND; axis0: down a column, DN), with the grouped tiles'
/// shapes and the strides and capacities PTO-ISA's kernels address.
pub(crate) fn tquant_mx(file: &File, op: &Op, e: &mut Vec<String>) {
    let tiles = |g: &str| -> Vec<TileBuf> {
        op.group(g)
            .map(|g| g.0)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|v| tile(file, v))
            .collect()
    };
    let (ins, outs) = (tiles("ins"), tiles("outs"));
    let (Some(src), [dst, exp, max, scaling, rest @ ..]) = (ins.first(), outs.as_slice()) else {
        return;
    };
    let exp_zz = rest.first();
    let named = [
        ("src", src),
        ("dst", dst),
        ("exp", exp),
        ("max", max),
        ("scaling", scaling),
    ];
    for (n, t) in named.iter().chain(
        exp_zz
            .iter()
            .map(|t| ("exp_zz", *t))
            .collect::<Vec<_>>()
            .iter(),
    ) {
        if t.loc != TileLoc::Vec {
            e.push(format!("expects {n} to be in the vec address space"));
            return;
        }
        if t.blayout != BLayout::RowMajor {
            e.push(format!("expects {n} to use the row_major blayout"));
            return;
        }
        if t.slayout != SLayout::NoneBox {
            e.push(format!("expects {n} to use the none_box slayout"));
            return;
        }
    }
    let dn = op
        .attr("grpAxis")
        .and_then(Attr::enum_value)
        .is_some_and(|a| a.contains('0'));
    let interleave = matches!(op.attr("interleave"), Some(Attr::Bool(true)));
    if interleave && !dn {
        e.push("expects interleave to be used only with grpAxis=axis0".into());
        return;
    }
    if exp_zz.is_some() && dn {
        e.push("expects the deprecated exp_zz form to use grpAxis=axis1; use pto.tmov with a non-scaling tmp for axis0 exponents".into());
        return;
    }
    let fp4 = match op.attr("quant_type").and_then(Attr::enum_value) {
        Some(q) if q.eq_ignore_ascii_case("MXFP8") => false,
        Some(q) if q.eq_ignore_ascii_case("MXFP4_E2M1") => true,
        _ => return,
    };
    let store_mode = op.attr("storeMode").is_some();
    if exp_zz.is_some() != store_mode {
        e.push(if store_mode {
            "expects exp_zz when storeMode is present".into()
        } else {
            "expects storeMode when exp_zz is present".into()
        });
        return;
    }
    let nv = op
        .attr("quantScaleAlg")
        .and_then(Attr::enum_value)
        .is_some_and(|a| a.eq_ignore_ascii_case("nv"));
    if store_mode && nv {
        e.push("storeMode form must not override quantScaleAlg".into());
        return;
    }
    let float = |t: &TileBuf, names: &[&str]| matches!(file.types.get(t.elem), Type::Float(x) if names.contains(&x.as_str()));
    let int8 = |t: &TileBuf| {
        matches!(
            file.types.get(t.elem),
            Type::Int(8) | Type::UInt(8) | Type::SInt(8)
        )
    };
    if !float(src, &["f32", "f16", "bf16"]) {
        e.push("expects src element type to be f32/f16/bf16".into());
        return;
    }
    let b16 = float(src, &["f16", "bf16"]);
    let f32 = !b16;
    if !int8(exp) {
        e.push("expects exp element type to be i8/ui8".into());
        return;
    }
    if exp_zz.is_some_and(|t| !int8(t)) {
        e.push("expects exp_zz element type to be i8/ui8".into());
        return;
    }
    if max.elem != src.elem {
        e.push("expects max element type to match src element type".into());
        return;
    }
    if scaling.elem != src.elem {
        e.push("expects scaling element type to match src element type".into());
        return;
    }
    if !fp4 && !int8(dst) {
        e.push("expects MXFP8 dst element type to be i8/ui8".into());
        return;
    }
    if fp4 {
        let packed =
            matches!(file.types.get(dst.elem), Type::Opaque { name, .. } if name == "pto.f4E2M1x2");
        if !packed {
            e.push("expects MXFP4_E2M1 dst element type to be !pto.f4E2M1x2".into());
            return;
        }
        if !b16 {
            e.push("expects MXFP4_E2M1 src element type to be f16/bf16".into());
            return;
        }
    }
    let mut sh = Vec::new();
    for (n, t) in named {
        match Sh::of(t) {
            Some(s) => sh.push(s),
            None => {
                e.push(format!(
                    "expects static valid and physical shapes for {n} in MX quantization"
                ));
                return;
            }
        }
    }
    let zz = match exp_zz.map(Sh::of) {
        Some(None) => {
            e.push("expects static valid and physical shapes for exp_zz in the deprecated fused MX quantization form".into());
            return;
        }
        Some(Some(s)) => Some(s),
        None => None,
    };
    let (s, d, x, m, c) = (sh[0], sh[1], sh[2], sh[3], sh[4]);
    if s.vr <= 0 || s.vc <= 0 || s.pr < s.vr || s.pc < s.vc {
        e.push("expects positive source valid shape within physical shape".into());
        return;
    }
    let (axis, along) = if dn { (0, s.vr) } else { (1, s.vc) };
    if along % 32 != 0 {
        e.push(format!(
            "expects src valid_shape[{axis}] to be a multiple of 32 when grpAxis is axis{axis}, got {along}"
        ));
        return;
    }
    let groups = s.vr.saturating_mul(s.vc / 32);
    if zz.is_some_and(|z| z.vr.saturating_mul(z.vc) != groups) {
        e.push("expects exp_zz valid element count to equal MX group count".into());
        return;
    }
    let canonical = if dn {
        (s.vr / 32, s.vc)
    } else {
        (s.vr, s.vc / 32)
    };
    let grouped = |n: &str, t: Sh, legacy: bool, e: &mut Vec<String>| {
        let ok = (t.vr, t.vc) == canonical || (!dn && legacy && t.vr == 1 && t.vc == groups);
        if !ok {
            e.push(format!(
                "expects {n} valid_shape to match {} (got [{}, {}])",
                if dn {
                    "canonical [M/32, N] for grpAxis=axis0"
                } else {
                    "canonical [M, N/32] or legacy flat [1, M*N/32] for grpAxis=axis1"
                },
                t.vr,
                t.vc
            ));
        }
        ok
    };
    if !grouped("max", m, true, e) || !grouped("scaling", c, true, e) {
        return;
    }
    if !interleave {
        if !grouped("exp", x, true, e) {
            return;
        }
    } else {
        if s.vr % 64 != 0 {
            e.push("expects src valid rows to be a multiple of 64 when interleave is true".into());
            return;
        }
        if s.pr % 64 != 0 {
            e.push(
                "expects src physical rows to be a multiple of 64 when interleave is true".into(),
            );
            return;
        }
        if x.vr != s.vr / 64 || x.vc != s.vc.saturating_mul(2) {
            e.push("expects exp valid_shape to match [M/64, 2N] for grpAxis=axis0 with interleave=true".into());
            return;
        }
    }
    let pack = if fp4 { 2 } else { 1 };
    if fp4 && s.pc % 2 != 0 {
        e.push(
            "expects MXFP4 src physical cols to be even for packed destination addressing".into(),
        );
        return;
    }
    let dst_cols = s.vc / pack;
    if d.vr != s.vr || d.vc != dst_cols {
        e.push(format!(
            "expects dst valid_shape to be [{}, {dst_cols}] for MX quantization",
            s.vr
        ));
        return;
    }
    if d.pr < s.vr {
        e.push("expects dst physical rows to cover src valid rows".into());
        return;
    }
    let need = |n: &str, t: Sh, k: i64, e: &mut Vec<String>| {
        let ok = t.cap() >= k;
        if !ok {
            e.push(format!(
                "expects {n} physical capacity to cover {k} elements"
            ));
        }
        ok
    };
    let prefix = |stride: i64| (s.vr - 1).saturating_mul(stride).saturating_add(dst_cols);
    if dn {
        if fp4 {
            if d.pc != s.pc / pack {
                e.push(
                    "expects MXFP4 axis0 dst physical cols to equal src physical cols / 2".into(),
                );
                return;
            }
            if !need("dst", d, prefix(s.pc / pack), e) {
                return;
            }
            if (s.pc / pack) % 32 != 0 && float(src, &["f16"]) {
                e.push("does not support FP16 MXFP4 axis0 when packed source stride is not a multiple of 32 bytes".into());
                return;
            }
        } else if !need("dst", d, prefix(d.pc), e) {
            return;
        }
        if m.pc != s.pc {
            e.push("expects max physical cols to equal src physical cols for grpAxis=axis0".into());
            return;
        }
        if c.pc != s.pc {
            e.push(
                "expects scaling physical cols to equal src physical cols for grpAxis=axis0".into(),
            );
            return;
        }
        let aux = (s.vr / 32).saturating_mul(s.pc);
        if !need("max", m, aux, e) || !need("scaling", c, aux, e) {
            return;
        }
        if !interleave {
            if x.pc != s.pc {
                e.push(
                    "expects exp physical cols to equal src physical cols for grpAxis=axis0".into(),
                );
                return;
            }
            if !need("exp", x, aux, e) {
                return;
            }
        } else {
            if x.pr != s.pr / 64 {
                e.push("expects interleaved exp physical rows to be src physical rows / 64".into());
                return;
            }
            if x.pc != align(s.pc.saturating_mul(2), 32) {
                e.push(
                    "expects interleaved exp physical cols to be align32(2 * src physical cols)"
                        .into(),
                );
                return;
            }
        }
        if f32 && interleave {
            e.push("does not support FP32 interleave with the pinned pto-isa revision".into());
            return;
        }
    } else {
        if d.pc != s.pc / pack {
            e.push(if fp4 {
                "expects MXFP4 axis1 dst physical cols to equal src physical cols / 2".into()
            } else {
                "expects MXFP8 axis1 dst physical cols to equal src physical cols".into()
            });
            return;
        }
        if !need("dst", d, prefix(s.pc / pack), e) {
            return;
        }
        for (n, t) in [("max", m), ("scaling", c)] {
            if !t.compact() {
                e.push(format!(
                    "expects {n} valid elements to form a compact physical prefix"
                ));
                return;
            }
        }
        if !need("max", m, groups, e) {
            return;
        }
        if x.pr == 1 {
            // the legacy flat exponent row
            if s.pc != s.vc {
                e.push("expects axis1 flat exp to use a tight source with physical cols equal to valid cols".into());
                return;
            }
            if x.vr != 1 || x.vc != groups {
                e.push(
                    "expects axis1 flat exp valid_shape to match legacy flat [1, M*N/32]".into(),
                );
                return;
            }
            if !need("exp", x, groups, e) {
                return;
            }
            let src_elems = s.pr.saturating_mul(s.pc);
            let valid_elems = s.vr.saturating_mul(s.pc);
            let unroll = src_elems > 1024 && src_elems % 256 == 0 && valid_elems % 256 == 0;
            let scaling_bytes = c.cap().saturating_mul(elem_bytes(file, scaling.elem));
            let (what, need_bytes) = if f32 {
                let g = if unroll {
                    groups.saturating_mul(2)
                } else {
                    groups
                };
                (
                    if unroll {
                        "axis1 flat unrolled f32 scaling"
                    } else {
                        "axis1 flat f32 scaling"
                    },
                    align(g, 64).saturating_mul(4),
                )
            } else if !nv {
                (
                    "axis1 flat B16 OCP scaling",
                    align(groups, 128).saturating_mul(2),
                )
            } else {
                e.push("does not support axis1 flat B16 NV quantization with the pinned pto-isa revisions".into());
                return;
            };
            if scaling_bytes < need_bytes {
                e.push(format!(
                    "expects {what} physical capacity to cover {need_bytes} bytes"
                ));
                return;
            }
        } else {
            if x.vr == 1 {
                e.push("expects legacy flat exp to use physical rows == 1".into());
                return;
            }
            if b16 {
                e.push("does not support axis1 canonical 2D B16 quantization with the pinned pto-isa revision".into());
                return;
            }
            if (x.vr, x.vc) != (s.vr, s.vc / 32) {
                e.push(
                    "expects exp valid_shape to match canonical [M, N/32] for grpAxis=axis1".into(),
                );
                return;
            }
            if x.pr < s.vr || x.pc < s.vc / 32 {
                e.push("expects axis1 canonical exp physical shape to cover [M, N/32]".into());
                return;
            }
            let exp_need = (s.vr - 1).saturating_mul(x.pc).saturating_add(s.vc / 32);
            if !need("exp", x, exp_need, e) || !need("scaling", c, groups, e) {
                return;
            }
        }
    }
    if b16 && s.vc < s.pc && s.pc > 0 && 128 % s.pc == 0 && s.vr.saturating_mul(s.pc) % 128 != 0 {
        e.push("does not support padded B16 source whose VL-aligned padding store has an incomplete final VL".into());
    }
}
