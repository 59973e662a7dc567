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
