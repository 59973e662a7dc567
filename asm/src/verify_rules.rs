//! Op-specific verifier rules: operand shape agreement, per-profile element
//! types, tile locations and layouts, required attributes. These are the
//! contracts PTOAS's op verifiers enforce; each rule reports an error at the
//! op's location saying what was expected. Called once per op from
//! [`crate::verify`].

use std::collections::HashMap;

use pto_isa_spec::{DType, ProfileId};

use crate::ast::{File, Op, ValueId};
use crate::attr::Attr;
use crate::diag::Diagnostic;
use crate::ty::{BLayout, SLayout, TileBuf, TileLoc, Type, TypeId};

/// Per-file context of the op rules.
pub(crate) struct Rules<'a> {
    file: &'a File,
    profile: ProfileId,
    /// Defining op of each op result.
    defs: HashMap<ValueId, &'a Op>,
    /// Whether the profile was chosen (by the caller or the module) rather
    /// than defaulted; rules that only make sense for one generation's files
    /// are skipped on a defaulted profile.
    pub(crate) profile_chosen: bool,
}

/// A tile operand: its value and type.
#[derive(Clone, Copy)]
struct T {
    v: ValueId,
    tb: TileBuf,
    dt: Option<DType>,
}

impl T {
    fn nd(&self) -> bool {
        self.tb.blayout == BLayout::RowMajor && self.tb.slayout == SLayout::NoneBox
    }
    fn nz(&self) -> bool {
        self.tb.blayout == BLayout::ColMajor && self.tb.slayout == SLayout::RowMajor
    }
    fn row_major(&self) -> bool {
        self.tb.blayout == BLayout::RowMajor
    }
    fn is(&self, d: DType) -> bool {
        self.dt == Some(d)
    }
    fn any(&self, ds: &[DType]) -> bool {
        self.dt.is_some_and(|d| ds.contains(&d))
    }
}

/// `a != b` when both are static.
fn differ(a: Option<i64>, b: Option<i64>) -> bool {
    matches!((a, b), (Some(a), Some(b)) if a != b)
}

fn is_zero(a: Option<i64>) -> bool {
    a == Some(0)
}

/// Logical extent of a dimension: packed fp4 stores two elements per byte
/// along the contiguous dimension.
fn logical(t: &T, d: Option<i64>, dim: usize) -> Option<i64> {
    let packed = matches!(t.dt, Some(DType::F4E2M1 | DType::F4E1M2));
    let packed_dim = if t.tb.blayout == BLayout::ColMajor {
        0
    } else {
        1
    };
    d.map(|x| {
        if packed && dim == packed_dim {
            x * 2
        } else {
            x
        }
    })
}

use DType::*;

impl<'a> Rules<'a> {
    pub(crate) fn new(file: &'a File, profile: ProfileId) -> Self {
        let mut defs = HashMap::new();
        for op in file.walk() {
            for v in op.result_values() {
                defs.insert(v, op);
            }
        }
        Rules {
            file,
            profile,
            defs,
            profile_chosen: true,
        }
    }

    fn a5(&self) -> bool {
        self.profile == ProfileId::A5
    }

    fn tile(&self, v: ValueId) -> Option<T> {
        let t = self.file.values.get(v as usize)?.ty?;
        match self.file.types.get(t) {
            Type::TileBuf(tb) => Some(T {
                v,
                tb: *tb,
                dt: self.file.types.get(tb.elem).scalar_dtype(),
            }),
            _ => None,
        }
    }

    fn vals(op: &Op, g: &str) -> Vec<ValueId> {
        op.group(g).map(|g| g.0).unwrap_or_default()
    }

    /// Tile operands of a group, in order (scalars and indices skipped).
    fn tiles(&self, op: &Op, g: &str) -> Vec<T> {
        Self::vals(op, g)
            .into_iter()
            .filter_map(|v| self.tile(v))
            .collect()
    }

    fn is_scalar(&self, v: ValueId) -> bool {
        self.file
            .values
            .get(v as usize)
            .and_then(|x| x.ty)
            .is_some_and(|t| self.file.types.get(t).is_scalar())
    }

    fn int_attr(op: &Op, k: &str) -> Option<i128> {
        op.attr(k).and_then(Attr::as_int)
    }

    fn enum_attr<'o>(op: &'o Op, k: &str) -> Option<&'o str> {
        op.attr(k).and_then(Attr::enum_value)
    }

    /// Runs every rule for `op`, appending errors to `out`.
    pub(crate) fn check(&self, op: &Op, out: &mut Vec<Diagnostic>) {
        let mut errs: Vec<String> = Vec::new();
        self.rules(op, &mut errs);
        crate::verify_vmi::check(self.file, op, &mut errs);
        crate::verify_vpto::check(self.file, self.profile, op, &mut errs);
        crate::verify_acc::check(self.file, &self.defs, op, &mut errs);
        crate::verify_cube::check(self.file, &self.defs, op, &mut errs);
        crate::verify_simt::check(self.file, op, &mut errs);
        crate::verify_comm::check(self.file, op, &mut errs);
        crate::verify_struct::check(self.file, op, &mut errs);
        crate::verify_mx::check(self.file, self.profile, op, &mut errs);
        let len = op.opcode.name().len() as u32;
        for e in errs {
            out.push(Diagnostic::error(
                op.loc,
                len,
                format!("'{}' {e}", op.opcode.name()),
            ));
        }
    }

    fn rules(&self, op: &Op, e: &mut Vec<String>) {
        let name = op.opcode.name();
        let ins = self.tiles(op, "ins");
        let outs = self.tiles(op, "outs");
        if !self.a5() && self.a2a3_elem_types(name, &ins, &outs, e) {
            return;
        }
        match name {
            // as MLIR's scf.for verifier: a constant step must be positive (a
            // zero step would spin until --max-steps)
            "scf.for" => {
                if let Some(step) = op.uses().nth(2).and_then(|v| self.const_int(v)) {
                    if step <= 0 {
                        e.push(format!(
                            "constant step operand must be positive, got {step}"
                        ));
                    }
                }
            }
            "pto.trowsum" | "pto.trowmax" | "pto.trowmin" | "pto.trowprod" => {
                self.row_reduction(&ins, &outs, true, e)
            }
            "pto.trowargmax" | "pto.trowargmin" => {
                self.row_reduction(&ins, &outs, false, e);
                if e.is_empty() {
                    self.arg_reduction_tmp(&ins, e);
                }
            }
            "pto.tprelu" | "pto.trem" | "pto.trems" | "pto.tsel" | "pto.tci" if !self.a5() => {
                self.a2a3_tmp(name, &ins, &outs, e)
            }
            "pto.tcolsum" => {
                let binary = op.attr("isBinary").and_then(Attr::as_int) == Some(1);
                if let ([s, tmp, ..], true) = (ins.as_slice(), binary) {
                    if let Some(v) = s.tb.v_col.filter(|v| tmp.tb.cols < *v) {
                        e.push(format!(
                            "expects tmp shape[1] to be at least src valid_shape[1] when isBinary is true; got {} vs {v}",
                            tmp.tb.cols
                        ));
                    }
                }
            }
            "pto.tcolargmax" | "pto.tcolargmin" => {
                if let Some(dt) = ins.first().and_then(|s| s.dt) {
                    if !matches!(dt.bits(), 8 | 16 | 32) {
                        e.push(format!(
                            "expects src element type to be 1, 2, or 4 bytes wide, got {dt}"
                        ));
                        return;
                    }
                }
                if let Some(d) = outs.first() {
                    if differ(d.tb.v_row, Some(1)) {
                        e.push("expects dst valid_shape[0] to be 1".into());
                        return;
                    }
                }
                self.arg_reduction_tmp(&ins, e);
            }
            "pto.tgemv" | "pto.tgemv.acc" | "pto.tgemv.bias" => {
                if let (Some(l), Some(d)) = (ins.first(), outs.first()) {
                    if differ(l.tb.v_row, Some(1)) {
                        e.push("expects lhs valid_shape[0] to be 1 for tgemv".into());
                    } else if differ(d.tb.v_row, Some(1)) {
                        e.push("expects dst valid_shape[0] to be 1 for tgemv".into());
                    }
                }
            }
            "pto.trowexpand" => self.row_expand(&ins, &outs, e),
            "pto.tshl" | "pto.tshr" => {
                if let ([a, b, ..], Some(d)) = (ins.as_slice(), outs.first()) {
                    if a.dt != b.dt || a.dt != d.dt {
                        e.push("expects src0, src1, and dst to have the same element type".into());
                    }
                }
            }
            "pto.tcvt" => self.tcvt(op, &ins, &outs, e),
            "pto.tmatmul.mx"
            | "pto.tmatmul.mx.acc"
            | "pto.tmatmul.mx.bias"
            | "pto.tgemv.mx"
            | "pto.tgemv.mx.acc"
            | "pto.tgemv.mx.bias"
                if self.a5() =>
            {
                self.mx_matmul(name, &ins, &outs, e)
            }
            "pto.tgather" => self.tgather(op, &ins, &outs, e),
            "pto.thistogram" => self.thistogram(op, &ins, e),
            "pto.tinsert" => self.tinsert(op, &ins, &outs, e),
            "pto.tload" => self.tload(op, &outs, e),
            "pto.tprefetch" if !self.a5() => {
                let src = Self::vals(op, "ins")
                    .first()
                    .and_then(|v| self.file.values.get(*v as usize)?.ty);
                let src_el = src.and_then(|t| match self.file.types.get(t) {
                    Type::TensorView { elem, .. }
                    | Type::PartitionView { elem, .. }
                    | Type::Shaped { elem, .. } => Some(*elem),
                    _ => None,
                });
                let low = src_el.is_some_and(|t| self.low_precision(t))
                    || outs.first().is_some_and(|d| self.low_precision(d.tb.elem));
                if low {
                    e.push(
                        "expects A2/A3 tprefetch low-precision element types to be unsupported"
                            .into(),
                    );
                }
            }
            "pto.alloc_tile" | "pto.alloc_multi_tile" | "pto.tassign" => {
                if name == "pto.tassign" {
                    // the rebased value is a tile buffer, not a memref
                    let t = op
                        .uses()
                        .next()
                        .and_then(|v| self.file.values.get(v as usize)?.ty)
                        .map(|t| crate::printer::type_str(&self.file.types, t))
                        .unwrap_or_default();
                    if t.starts_with("memref") {
                        e.push(format!(
                            "operand #0 must be a tile buffer (!pto.tile_buf), but got '{t}'"
                        ));
                        return;
                    }
                }
                self.tile_addr(op, e);
                if name == "pto.alloc_tile" {
                    self.alloc_tile(op, e);
                } else if name == "pto.alloc_multi_tile" {
                    self.multi_tile(op, e);
                }
            }
            "pto.multi_tile_get" => self.multi_tile(op, e),
            "pto.inttoptr" => self.inttoptr(op, e),
            "pto.syncall" => self.syncall(op, e),
            "func.func" => self.entry_function(op, e),
            n if n.starts_with("pto.trowexpand")
                && n != "pto.trowexpand"
                && ins.len() == 3
                && !self.a5() =>
            {
                self.row_expand_tmp(&ins, &outs, e)
            }
            "pto.subview" => self.subview(op, e),
            "pto.tfillpad" => {
                if op.attr("mode").is_some() {
                    e.push("does not accept 'mode'; the TFILLPAD lowering follows from the physical shapes and planned addresses".into());
                    return;
                }
                // on L1 only the homogeneous form exists: src and dst share one tile type
                if let (Some(s), Some(d)) = (ins.first(), outs.first()) {
                    if s.tb.loc == TileLoc::Mat && d.tb.loc == TileLoc::Mat && s.tb != d.tb {
                        let f = |x: Option<i64>| x.map_or("?".to_string(), |v| v.to_string());
                        let mut diffs = Vec::new();
                        if s.tb.v_row != d.tb.v_row {
                            diffs.push(format!("v_row ({} vs {})", f(s.tb.v_row), f(d.tb.v_row)));
                        }
                        if s.tb.v_col != d.tb.v_col {
                            diffs.push(format!("v_col ({} vs {})", f(s.tb.v_col), f(d.tb.v_col)));
                        }
                        if s.tb.pad != d.tb.pad {
                            diffs.push(format!("pad ({} vs {})", s.tb.pad, d.tb.pad));
                        }
                        if diffs.is_empty() {
                            diffs.push("shape or layout".into());
                        }
                        e.push(format!(
                            "expects src/dst tile types to be lowerable to TFILLPAD for loc=mat (the heterogeneous form exists only for loc=vec); mismatching fields: {}",
                            diffs.join(", ")
                        ));
                    }
                }
            }
            "pto.cmo.cacheinvalid" | "pto.cmo.cacheclean" | "pto.cmo.cacheflush"
                if op.body.iter().any(
                    |x| matches!(x, crate::ast::Elem::Ident(k) if k == "single_cache_line"),
                ) =>
            {
                let gm = op
                    .uses()
                    .next()
                    .and_then(|v| self.file.values.get(v as usize)?.ty)
                    .map(|t| match self.file.types.get(t) {
                        Type::Ptr { space, .. } => space.as_deref().is_none_or(|s| s == "gm"),
                        _ => true,
                    });
                if gm == Some(false) {
                    e.push(
                        "single_cache_line address expects a GM pointer or GM tensor view".into(),
                    );
                }
            }
            n if n.starts_with("pto.tpush")
                || n.starts_with("pto.tpop")
                || n.starts_with("pto.talloc")
                || n.starts_with("pto.tfree") =>
            {
                self.pipe_entry(op, e)
            }
            "pto.tstore" => self.tstore(op, &ins, e),
            "pto.tscatter" => self.tscatter(op, e),
            "pto.tmrgsort" => {
                // format2: src0, src1[, src2, src3], tmp -> dst, executed
                if let (true, Some(tmp), Some(d)) = (ins.len() >= 3, ins.last(), outs.first()) {
                    if Self::vals(op, "outs").len() == 2 && tmp.tb.cols < d.tb.cols {
                        e.push(format!(
                            "format2 expects tmp.cols >= dst.cols (tmp has {} cols, dst {})",
                            tmp.tb.cols, d.tb.cols
                        ));
                    }
                }
            }
            "pto.taddrelu" | "pto.tsubrelu" | "pto.taddreluconv" | "pto.tmulreluconv"
                if self.a5() =>
            {
                e.push(format!(
                    "is only supported on A2/A3 targets ({} is not available on a5)",
                    &name[4..]
                ));
            }
            "pto.timg2col" => {
                if let (Some(s), Some(d)) = (ins.first(), outs.first()) {
                    if s.tb.loc != TileLoc::Mat || d.tb.loc != TileLoc::Left {
                        e.push(format!(
                            "expects a loc=mat feature map and a loc=left destination, got loc={} -> loc={}",
                            s.tb.loc.name(),
                            d.tb.loc.name()
                        ));
                    } else if s.tb.elem != d.tb.elem {
                        e.push("expects src and dst to have the same element type".into());
                    }
                }
            }
            "pto.setfmatrix" if op.attr("fmap_h").is_none() || op.attr("fmap_w").is_none() => {
                e.push("expects fmap_h and fmap_w attributes".into());
            }
            "pto.tget_scale_addr" => {
                if let Some(d) = outs.first() {
                    if d.tb.loc != TileLoc::Scaling {
                        e.push(format!(
                            "expects dst to be in the scaling address space (loc=scaling), got loc={}",
                            d.tb.loc.name()
                        ));
                    }
                }
            }
            "pto.textract" => self.textract(op, &ins, &outs, e),
            "pto.trsqrt" | "pto.trowexpanddiv" => {
                let hp = Self::enum_attr(op, "precisionType") == Some("high_precision");
                let want = if name == "pto.trsqrt" { 2 } else { 3 };
                if hp && ins.len() < want {
                    e.push("expects tmp when precisionType is high_precision".into());
                }
            }
            "pto.tprint" => {
                let raw = Self::vals(op, "ins");
                if raw.len() > 1 && self.tile(raw[0]).is_none() {
                    e.push("expects tmp only when src is a tile_buf".into());
                }
            }
            "pto.txors" => {
                if let Some(tmp) = ins.get(1) {
                    if !tmp.row_major() {
                        e.push("expects tmp to use row-major layout".into());
                    }
                }
            }
            "pto.tpow" | "pto.tpows" => self.tpow(op, &ins, &outs, e),
            "pto.tadds" | "pto.tsubs" | "pto.tmuls" | "pto.tmaxs" | "pto.tmins" => {
                self.scalar_arith(name, &ins, &outs, e)
            }
            "pto.tquant" => self.tquant(op, &ins, &outs, e),
            "pto.tquant.mx" if self.a5() => crate::verify_mx::tquant_mx(self.file, op, e),
            "pto.aic_initialize_pipe" | "pto.aiv_initialize_pipe" => self.init_pipe(op, e),
            "pto.set_quant_scalar" => {
                if Self::unpublished_attrs(op, e) {
                    return;
                }
                // SET_QUANT_SCALAR takes a float
                let scale = op
                    .uses()
                    .next()
                    .and_then(|v| self.file.values.get(v as usize)?.ty)
                    .map(|t| self.file.types.get(t));
                if let Some(t) = scale.filter(|t| t.is_scalar()) {
                    if t.scalar_dtype() != Some(F32) {
                        let n = crate::printer::type_str(
                            &self.file.types,
                            self.file.values[op.uses().next().unwrap() as usize]
                                .ty
                                .unwrap(),
                        );
                        e.push(format!("expects 'scale' to be f32, got {n}"));
                        return;
                    }
                }
                self.quant_pipe(op, "scalar", e);
            }
            "pto.set_quant_vector" => {
                if Self::unpublished_attrs(op, e) {
                    return;
                }
                if let Some(t) = op.uses().find_map(|v| self.tile(v)) {
                    if t.tb.loc != TileLoc::Scaling {
                        e.push("expects 'scaling_tile' to use loc=scaling".into());
                        return;
                    } else if let Some(dt) = t.dt {
                        if self.a5() && !matches!(dt, F16 | BF16 | F32) {
                            e.push(format!("expects 'scaling_tile' element type to be f16, bf16, or f32 on A5, got {dt}"));
                            return;
                        }
                        // A2/A3 fixpipe reads the quant vector as packed 64-bit words
                        if !self.a5() && self.profile_chosen && !matches!(dt, I64 | U64) {
                            e.push(format!("expects 'scaling_tile' element type to be packed i64/ui64 on A3, got {dt}"));
                            return;
                        }
                    }
                }
                self.quant_pipe(op, "vector", e);
            }
            "pto.fusion_region" => self.fusion_region(op, e),
            "pto.mgather" => {
                let row = op
                    .attr("coalesce")
                    .and_then(Attr::enum_value)
                    .is_some_and(|c| c.ends_with("row"));
                if let (true, Some(idx), Some(d)) = (row, ins.first(), outs.first()) {
                    // one index per destination row
                    let unit = |x: Option<i64>| matches!(x, Some(0 | 1));
                    let ok = (unit(idx.tb.v_row) && idx.tb.v_col == d.tb.v_row)
                        || (idx.tb.v_row == d.tb.v_row && unit(idx.tb.v_col));
                    let known =
                        idx.tb.v_row.is_some() && idx.tb.v_col.is_some() && d.tb.v_row.is_some();
                    if known && !ok {
                        e.push("expects row-coalesce idx valid_shape to be [0|1, dst.valid_row] or [dst.valid_row, 0|1]".into());
                        return;
                    }
                }
                if op.attr("coalesce").is_none() {
                    e.push(
                        "requires attribute 'coalesce' (row or elem; it is never inferred)".into(),
                    );
                } else if outs.first().is_some_and(|d| d.tb.loc == TileLoc::Mat)
                    && Self::vals(op, "ins")
                        .get(1)
                        .is_some_and(|v| self.tile(*v).is_some())
                {
                    e.push("expects GM->L1 mgather idx to be a GM tensor, not a tile".into());
                } else if let Some(d) = outs.first().filter(|d| d.tb.loc == TileLoc::Mat) {
                    // pto-isa MGatherCheckGm2L1: the fp8 family only on A5
                    let fp8 = matches!(d.dt, Some(F8E4M3 | F8E5M2 | HiF8));
                    if fp8 && self.profile_chosen && !self.a5() {
                        e.push("expects GM->L1 mgather dst element type to be i8/ui8/i16/ui16/i32/ui32/f16/bf16/f32 on A2/A3 (fp8 types only on A5)".into());
                    }
                }
            }
            "pto.mscatter" => {
                let extra = ["scatterAtomicOp", "scatterOob", "scatterConflict"]
                    .iter()
                    .any(|k| op.attr(k).is_some());
                if extra && op.attr("coalesce").is_none() {
                    e.push("expects coalesce when scatterAtomicOp/scatterOob/scatterConflict is specified".into());
                }
            }
            _ => {}
        }
    }

    fn row_reduction(&self, ins: &[T], outs: &[T], allow_empty: bool, e: &mut Vec<String>) {
        let (Some(s), Some(d)) = (ins.first(), outs.first()) else {
            return;
        };
        if allow_empty && d.tb.v_row == Some(0) && d.tb.v_col == Some(0) {
            return;
        }
        if is_zero(s.tb.v_row) {
            e.push("expects src valid_shape[0] to be non-zero".into());
        } else if is_zero(s.tb.v_col) {
            e.push("expects src valid_shape[1] to be non-zero".into());
        } else if differ(s.tb.v_row, d.tb.v_row) {
            e.push("expects src and dst to have the same valid_shape[0]".into());
        } else if differ(d.tb.v_col, Some(1)) {
            e.push("expects dst valid_shape[1] to be 1".into());
        }
    }

    /// MX (microscaled) matmul on A5: an fp8/fp8 or fp4/fp4 input pair into
    /// f32 over matmul-compatible logical shapes.
    fn mx_matmul(&self, name: &str, ins: &[T], outs: &[T], e: &mut Vec<String>) {
        let off = usize::from(name.ends_with(".acc"));
        // ins: [acc,] lhs, a_scale, rhs, b_scale [, bias]
        let (Some(lhs), Some(rhs), Some(dst)) = (ins.get(off), ins.get(off + 2), outs.first())
        else {
            return;
        };
        let ty = |t: &T| self.file.types.get(t.tb.elem);
        // (the newer contract accepts only the FN spelling of e4m3; the older
        // corpus also uses f8E4M3, so any e4m3/e5m2 spelling is taken)
        let fp8 = |t: &T| matches!(ty(t), Type::Float(x) if x.starts_with("f8E4M3") || x.starts_with("f8E5M2"));
        let fp4 = |t: &T| matches!(t.dt, Some(F4E2M1 | F4E1M2));
        if !((fp8(lhs) && fp8(rhs)) || (fp4(lhs) && fp4(rhs))) {
            e.push(format!(
                "expects A5 mx lhs/rhs element types to be a supported fp8/fp8 or fp4/fp4 pair (got {} and {})",
                crate::printer::type_str(&self.file.types, lhs.tb.elem),
                crate::printer::type_str(&self.file.types, rhs.tb.elem)
            ));
            return;
        }
        if dst.dt.is_some() && !dst.is(F32) {
            e.push("expects A5 mx result dst to use f32 element type".into());
            return;
        }
        if fp4(lhs) {
            return; // packed operands: logical K differs from the physical shape
        }
        // logical shapes: the static valid extent where there is one
        let lg = |t: &T| {
            (
                t.tb.v_row.unwrap_or(t.tb.rows),
                t.tb.v_col.unwrap_or(t.tb.cols),
            )
        };
        let ((lm, lk), (rk, rn), (dm, dn)) = (lg(lhs), lg(rhs), lg(dst));
        if dm != lm || dn != rn || rk != lk {
            e.push(format!(
                "expects static matmul tile shapes lhs[M,K], rhs[K,N], and dst[M,N] (lhs {lm}x{lk}, rhs {rk}x{rn}, dst {dm}x{dn})"
            ));
        }
        // (the newer contract also wants a physical K that is a multiple of 64
        // and scales of [M, ceil(K/32)] / [ceil(K/32), N]; the older corpus
        // uses K = 32 and full-size scales, so neither is enforced)
    }

    /// Tile-pipe push/pop/alloc/free: `split` picks how a tile is divided
    /// between the two vector subblocks (0 none, 1..=4 the split modes); an
    /// explicit subblock only makes sense for a split entry; a popped tile
    /// whose valid extent is given at run time has a dynamic valid shape.
    fn pipe_entry(&self, op: &Op, e: &mut Vec<String>) {
        if Self::unpublished_attrs(op, e) {
            return;
        }
        let split = Self::int_attr(op, "split");
        // a FIXPIPE pipe (one initialised with an acc_push_epilogue) moves
        // whole accumulator tiles: no split
        if let (Some(sp), Some(id)) = (split, Self::int_attr(op, "id")) {
            let name = op.opcode.name();
            let fixpipe_side = name.ends_with("_to_aiv") || name.ends_with("_from_aic");
            if sp != 0 && fixpipe_side {
                let fixpipe = self.file.walk().into_iter().any(|o| {
                    matches!(
                        o.opcode.name(),
                        "pto.aic_initialize_pipe" | "pto.aiv_initialize_pipe"
                    ) && Self::int_attr(o, "id") == Some(id)
                        && o.attr("acc_push_epilogue").is_some()
                });
                if fixpipe {
                    let what = name
                        .trim_start_matches("pto.")
                        .split('_')
                        .next()
                        .unwrap_or("")
                        .to_uppercase();
                    e.push(format!("expects fixpipe {what} to have split = 0"));
                    return;
                }
            }
        }
        if let Some(sp) = split {
            if !(0..=4).contains(&sp) {
                e.push(format!("expects 'split' to be 0, 1, 2, 3, or 4, got {sp}"));
                return;
            }
        }
        crate::verify_pipe::entry_split(self.file, self.a5(), &self.defs, op, e);
        if !e.is_empty() {
            return;
        }
        let has_subblock = op
            .body
            .iter()
            .any(|x| matches!(x, crate::ast::Elem::Ident(k) if k == "aiv_subblockid"));
        if has_subblock && split == Some(0) {
            e.push("expects 'aiv_subblockid' only when 'split' is 1, 2, 3, or 4".into());
            return;
        }
        if op.opcode.name() == "pto.tpush_to_aiv" {
            self.quant_state(op, e);
            if !e.is_empty() {
                return;
            }
        }
        if op.opcode.name().starts_with("pto.tpop") {
            let scalars = op.uses().filter(|v| self.is_scalar(*v)).count();
            let res = op.result_values().next().and_then(|v| self.tile(v));
            if let (2, Some(r)) = (scalars, res) {
                if r.tb.v_row.is_some() || r.tb.v_col.is_some() {
                    e.push("expects tile result to have dynamic validShape (?, ?) when valid_row/valid_col operands are provided".into());
                }
            }
        }
    }

    /// `pto.subview`'s result valid shape: the explicit `valid [r, c]`
    /// operands (clamped to the sizes) when given, else any static extent
    /// within the sizes; a dynamic result extent needs an explicit operand.
    fn subview(&self, op: &Op, e: &mut Vec<String>) {
        use crate::ast::{Elem, Punct};
        let Some(r) = op.result_values().next().and_then(|v| self.tile(v)) else {
            return;
        };
        let b = &op.body;
        let valid: Vec<ValueId> = b
            .iter()
            .position(|x| matches!(x, Elem::Ident(k) if k == "valid"))
            .filter(|i| b.get(i + 1) == Some(&Elem::P(Punct::LBracket)))
            .map(|i| {
                b[i + 2..]
                    .iter()
                    .take_while(|x| !matches!(x, Elem::P(Punct::RBracket)))
                    .filter_map(|x| match x {
                        Elem::Use(v) => Some(*v),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        let dims = [
            (r.tb.v_row, r.tb.rows, "0", "row"),
            (r.tb.v_col, r.tb.cols, "1", "col"),
        ];
        for (i, (have, size, idx, what)) in dims.into_iter().enumerate() {
            let ok = match valid.get(i) {
                None => have.is_some_and(|h| (0..=size).contains(&h)),
                Some(v) => match self.const_int(*v) {
                    Some(c) => have == Some((c as i64).min(size)),
                    None => have.is_none(),
                },
            };
            if !ok {
                e.push(format!(
                    "expects result valid_shape[{idx}] to match inferred/explicit valid_{what}"
                ));
                return;
            }
        }
    }

    /// `pto.inttoptr` makes a scalar pointer from a 64-bit address; the
    /// pointer only feeds scalar loads and stores (nothing that would need
    /// provenance: views, pointer arithmetic, DMA).
    fn inttoptr(&self, op: &Op, e: &mut Vec<String>) {
        if let Some(a) = op.uses().next() {
            let ok = self
                .file
                .values
                .get(a as usize)
                .and_then(|x| x.ty)
                .is_none_or(|t| {
                    matches!(
                        self.file.types.get(t),
                        Type::Int(64) | Type::SInt(64) | Type::UInt(64)
                    )
                });
            if !ok {
                e.push("address operand must be i64".into());
                return;
            }
        }
        let Some(r) = op.result_values().next() else {
            return;
        };
        if let Some(t) = self.file.values.get(r as usize).and_then(|x| x.ty) {
            if let Type::Ptr { elem, .. } = self.file.types.get(t) {
                if matches!(self.file.types.get(*elem), Type::Index) {
                    e.push("result element type is not supported by EmitC: 'index'".into());
                    return;
                }
            }
        }
        for user in self.file.walk() {
            let uses: Vec<ValueId> = user.uses().collect();
            let Some(pos) = uses.iter().position(|u| *u == r) else {
                continue;
            };
            let ok = match user.opcode.name() {
                "pto.load_scalar" => pos == 0,
                "pto.store_scalar" => pos == 1,
                _ => false,
            };
            if !ok {
                e.push(format!(
                    "result may only be used as the pointer operand of pto.load_scalar or pto.store_scalar, but line {} uses it in {}",
                    user.loc.line,
                    user.opcode.name()
                ));
                return;
            }
        }
    }

    /// The integer an `arith.constant` defines.
    fn const_int(&self, v: ValueId) -> Option<i128> {
        let d = self.defs.get(&v)?;
        if d.opcode.name() != "arith.constant" {
            return None;
        }
        d.body.iter().find_map(|x| match x {
            crate::ast::Elem::Attr(Attr::Int { value, .. }) => Some(*value),
            _ => None,
        })
    }

    /// A local tile's base address is 32-byte aligned.
    fn tile_addr(&self, op: &Op, e: &mut Vec<String>) {
        let addr = if op.opcode.name() == "pto.tassign" {
            op.uses().nth(1)
        } else {
            let b = &op.body;
            b.windows(3).find_map(|w| match w {
                [crate::ast::Elem::Ident(k), crate::ast::Elem::P(crate::ast::Punct::Equal), crate::ast::Elem::Use(v)]
                    if k == "addr" =>
                {
                    Some(*v)
                }
                _ => None,
            })
        };
        if let Some(a) = addr.and_then(|v| self.const_int(v)) {
            if a % 32 != 0 {
                e.push(format!(
                    "addr must be aligned to 32 bytes for local tile memory space, got {a}"
                ));
            }
        }
    }

    /// `!pto.multi_tile_buf<..., count=N>`: N >= 2 slots; a constant slot
    /// index addresses one of them; slot addresses are the planner's.
    fn multi_tile(&self, op: &Op, e: &mut Vec<String>) {
        let count_of = |v: ValueId| -> Option<(i64, String)> {
            let t = self.file.values.get(v as usize)?.ty?;
            match self.file.types.get(t) {
                Type::Opaque {
                    name,
                    params: Some(p),
                } if name == "pto.multi_tile_buf" => {
                    let c = p
                        .rsplit("count")
                        .next()?
                        .trim_start_matches([' ', '='])
                        .split(|c: char| !c.is_ascii_digit())
                        .next()?
                        .parse::<i64>()
                        .ok()?;
                    Some((c, p.clone()))
                }
                _ => None,
            }
        };
        if op.opcode.name() == "pto.alloc_multi_tile" {
            if op.attr("pto.multi_buffer_addrs").is_some() {
                e.push("attribute 'pto.multi_buffer_addrs' is reserved for pto-plan-memory".into());
                return;
            }
            let Some((c, p)) = op.result_values().next().and_then(count_of) else {
                return;
            };
            if c < 2 {
                e.push(format!("multi_tile_buf count must be >= 2, got {c}"));
            } else if p.replace(' ', "").contains("compact=2") {
                e.push("multi_tile_buf slots cannot use row_plus_one compaction, whose padded storage footprint exceeds product(shape) and would overlap adjacent multi-buffer slots".into());
            }
            return;
        }
        let mut uses = op.uses();
        let (Some(mb), Some(slot)) = (uses.next(), uses.next()) else {
            return;
        };
        if let (Some((c, _)), Some(s)) = (count_of(mb), self.const_int(slot)) {
            if s < 0 || s >= c as i128 {
                e.push(format!(
                    "constant slot {s} is out of range for multi_tile_buf count={c}"
                ));
            }
        }
    }

    /// A2/A3 binary row-expand ops with a scratch tile: the expanded operand
    /// is a per-row scalar column (col-major, one column), and the scratch
    /// holds 256 bytes per 8 destination rows (at most 30 blocks).
    fn row_expand_tmp(&self, ins: &[T], outs: &[T], e: &mut Vec<String>) {
        let (Some(d), [a, b, tmp]) = (outs.first(), ins) else {
            return;
        };
        let same = |x: &T| x.tb.v_row == d.tb.v_row && x.tb.v_col == d.tb.v_col;
        let expanded = if same(a) {
            b
        } else if same(b) {
            a
        } else {
            return;
        };
        let mode1 =
            expanded.tb.blayout == BLayout::ColMajor && expanded.tb.v_col.is_none_or(|c| c == 1);
        if !mode1 {
            e.push("expects A2/A3 tmp-form trowexpand to use mode 1 (a col-major per-row scalar expanded operand)".into());
            return;
        }
        let need = match d.tb.v_row {
            Some(r) if (0..256).contains(&r) => (r + 7) / 8 * 256,
            Some(r) if r >= 256 => 30 * 256,
            _ => 8192,
        };
        if let Some(have) = Self::tile_bytes(tmp) {
            if have < need {
                e.push(format!(
                    "expects A2/A3 trowexpand tmp capacity to be at least {need} bytes, but got {have} bytes"
                ));
            }
        }
    }

    /// A2/A3 element types the vector unit has no instruction for: tsel
    /// selects 16/32-bit lanes, the expand-divides divide floats only (A5
    /// adds the integer forms). Returns whether an error was reported.
    fn a2a3_elem_types(&self, name: &str, ins: &[T], outs: &[T], e: &mut Vec<String>) -> bool {
        let msg = match name {
            "pto.tsel" => {
                // ins: mask, src0, src1[, tmp]
                let data = [ins.get(1), ins.get(2), outs.first()];
                let bad = data
                    .iter()
                    .flatten()
                    .find(|t| t.dt.is_some() && !t.any(&[I16, I32, F16, BF16, F32]));
                bad.map(|t| {
                    format!(
                        "expects A2/A3 tsel src0, src1, and dst element type to be i16/i32/f16/bf16/f32, got {}",
                        t.dt.map_or(String::new(), |d| d.to_string())
                    )
                })
            }
            "pto.tcolexpanddiv" | "pto.trowexpanddiv" => {
                let short = &name[4..];
                outs.first()
                    .filter(|d| d.dt.is_some() && !d.any(&[F16, F32]))
                    .map(|d| {
                        format!(
                            "expects A2/A3 {short} element type to be f16 or f32, got {} (the integer forms are A5 only)",
                            d.dt.map_or(String::new(), |x| x.to_string())
                        )
                    })
            }
            _ => None,
        };
        match msg {
            Some(m) => {
                e.push(m);
                true
            }
            None => false,
        }
    }

    /// A function's symbol name (`@name` in its header).
    fn func_name(op: &Op) -> Option<&str> {
        op.body.iter().find_map(|x| match x {
            crate::ast::Elem::Attr(Attr::Symbol(s)) => Some(s.as_str()),
            _ => None,
        })
    }

    /// Callees named by `func.call` ops inside `op`.
    fn callees(op: &Op) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack: Vec<&Op> = vec![op];
        while let Some(o) = stack.pop() {
            for r in &o.regions {
                for b in &r.blocks {
                    for inner in &b.ops {
                        if inner.opcode.name() == "func.call" {
                            if let Some(n) = Self::func_name(inner) {
                                out.push(n.to_string());
                            }
                        }
                        stack.push(inner);
                    }
                }
            }
        }
        out
    }

    /// Kernel entry functions return nothing, and kernels cannot recurse
    /// (there is no call stack to grow on the AI core).
    fn entry_function(&self, op: &Op, e: &mut Vec<String>) {
        if op.attr("pto.entry").is_some() && !op.arrow_types().is_empty() {
            e.push("PTO entry functions must return void".into());
            return;
        }
        let Some(me) = Self::func_name(op) else {
            return;
        };
        // depth-first over the call graph from this function
        let funcs: HashMap<&str, &Op> = self
            .file
            .walk()
            .into_iter()
            .filter(|o| o.opcode.name() == "func.func")
            .filter_map(|o| Self::func_name(o).map(|n| (n, o)))
            .collect();
        let mut seen: Vec<String> = Vec::new();
        let mut todo = Self::callees(op);
        while let Some(c) = todo.pop() {
            if c == me {
                e.push(format!(
                    "recursive function calls are not supported (@{me} reaches itself through func.call)"
                ));
                return;
            }
            if seen.contains(&c) {
                continue;
            }
            if let Some(f) = funcs.get(c.as_str()) {
                todo.extend(Self::callees(f));
            }
            seen.push(c);
        }
    }

    /// `pto.syncall`: the soft (software) barrier counts arrivals in a GM
    /// workspace of at least 16 i32 (one 64-byte block), optionally given
    /// the number of cores as an i32; the hard barrier takes no operands.
    fn syncall(&self, op: &Op, e: &mut Vec<String>) {
        let mode = op.attr("mode").and_then(Attr::enum_value).unwrap_or("");
        let uses: Vec<ValueId> = op.uses().collect();
        if mode == "hard" {
            if !uses.is_empty() {
                e.push("expects hard syncall to have no gm_workspace or used_cores".into());
            }
            return;
        }
        if mode != "soft" {
            return;
        }
        if uses.is_empty() || uses.len() > 2 {
            e.push("expects soft syncall to have gm_workspace and optional used_cores".into());
            return;
        }
        let ty = |v: ValueId| {
            self.file
                .values
                .get(v as usize)
                .and_then(|x| x.ty)
                .map(|t| self.file.types.get(t))
        };
        let (elem, space, count) = match ty(uses[0]) {
            Some(Type::Ptr { elem, space }) => (*elem, space.clone(), None),
            Some(Type::TensorView { shape, elem } | Type::PartitionView { shape, elem }) => (
                *elem,
                Some("gm".to_string()),
                // (an overflowing product is not a small capacity)
                shape
                    .iter()
                    .try_fold(1i64, |a, d| d.and_then(|d| a.checked_mul(d))),
            ),
            Some(Type::Tile { .. } | Type::TileBuf(_)) => {
                e.push("expects soft syncall to have gm_workspace and optional used_cores".into());
                return;
            }
            Some(_) => {
                e.push("operand #0 must be Ptr, TensorView, or PartitionTensorView".into());
                return;
            }
            None => return,
        };
        if !matches!(
            self.file.types.get(elem),
            Type::Int(32) | Type::SInt(32) | Type::UInt(32)
        ) {
            e.push("expects gm_workspace element type to be i32".into());
        } else if space.as_deref().is_some_and(|s| s != "gm") {
            e.push("expects gm_workspace to be in GM address space".into());
        } else if let Some(c) = count.filter(|c| *c < 16) {
            e.push(format!(
                "expects gm_workspace to contain at least 16 i32 elements (64 bytes), but static capacity is {c}"
            ));
        } else if let Some(u) = uses.get(1) {
            if !matches!(ty(*u), Some(Type::Int(32))) {
                e.push("operand #1 (used_cores) must be 32-bit signless integer".into());
            }
        }
    }

    /// Bytes a tile occupies (its physical shape).
    fn tile_bytes(t: &T) -> Option<i64> {
        t.dt.map(|d| {
            t.tb.rows
                .saturating_mul(t.tb.cols)
                .saturating_mul(d.bits() as i64)
                / 8
        })
    }

    /// A2/A3 argmax/argmin reductions keep, per row, the running values and
    /// indices of every 256-byte repeat in `tmp`: it needs that many columns.
    fn arg_reduction_tmp(&self, ins: &[T], e: &mut Vec<String>) {
        if self.a5() {
            return;
        }
        let ([s, tmp, ..], Some(cols)) = (ins, ins.first().and_then(|s| s.tb.v_col)) else {
            return;
        };
        if s.tb.v_row == tmp.tb.v_row && s.tb.v_col == tmp.tb.v_col {
            return;
        }
        let Some(bytes) = s.dt.map(|d| (d.bits() as i64 / 8).max(1)) else {
            return;
        };
        let (repeat, block) = (256 / bytes, 32 / bytes);
        let repeats = cols.saturating_add(repeat - 1) / repeat;
        let min = (repeats.saturating_mul(2).saturating_add(block - 1) / block)
            .saturating_add(repeats.saturating_add(block - 1) / block)
            .saturating_mul(block);
        if tmp.tb.v_col.is_some_and(|c| c < min) {
            e.push(format!(
                "expects A2/A3 tmp valid_shape[1] to be at least {min} for src valid_shape[1] = {cols}"
            ));
        }
    }

    /// The scratch tiles A2/A3 lowerings of tprelu, trem, trems, tsel and tci
    /// need, when the kernel passes one.
    fn a2a3_tmp(&self, name: &str, ins: &[T], outs: &[T], e: &mut Vec<String>) {
        let Some(d) = outs.first() else { return };
        let tmp = match name {
            "pto.tprelu" | "pto.trem" => ins.get(2),
            "pto.tsel" => ins.get(3),
            _ => ins.get(1), // trems (src, scalar, tmp), tci (scalar, tmp)
        };
        let tmp = if name == "pto.tci" { ins.first() } else { tmp };
        let Some(tmp) = tmp else { return };
        match name {
            "pto.tprelu" => {
                if let Some(r) = d.tb.v_row.filter(|r| tmp.tb.rows < r.saturating_add(1)) {
                    e.push(format!(
                        "expects A2/A3 tmp shape[0] to be at least dst valid_shape[0] + 1 ({})",
                        r + 1
                    ));
                } else if let (Some(dc), Some(tc)) = (d.tb.v_col, tmp.tb.v_col) {
                    let need = dc.saturating_add(7) / 8;
                    if tc < need {
                        e.push(format!(
                            "expects A2/A3 tmp valid_shape[1] to be at least ceil(dst valid_shape[1] / 8) ({need})"
                        ));
                    }
                }
            }
            "pto.trem" | "pto.trems" => {
                // (the newer contract asks trem for 2 tmp rows; the older
                // corpus accepts one, so only an empty tmp is rejected here)
                let min_rows = 1;
                if tmp.dt.is_some() && tmp.dt != d.dt {
                    e.push("expects tmp and dst to have the same element type".into());
                } else if tmp.tb.v_row.is_some_and(|r| r < min_rows) {
                    e.push(format!(
                        "expects A2/A3 tmp valid_shape[0] to be at least {min_rows}"
                    ));
                } else if let (Some(dc), Some(tc)) = (d.tb.v_col, tmp.tb.v_col) {
                    if tc < dc {
                        e.push("expects A2/A3 tmp valid columns to cover dst valid columns".into());
                    }
                }
            }
            "pto.tsel" => {
                let bits = d.dt.map(|x| x.bits());
                if let (Some(b @ (16 | 32)), Some(have)) = (bits, Self::tile_bytes(tmp)) {
                    let need = if b == 16 { 16 } else { 8 };
                    if have < need {
                        e.push(format!(
                            "expects tmp capacity to be at least {need} bytes, but got {have} bytes"
                        ));
                    }
                }
            }
            "pto.tci" => {
                let bits = d.dt.map(|x| x.bits());
                if let (Some(b @ (16 | 32)), Some(have)) = (bits, Self::tile_bytes(tmp)) {
                    let need = if b == 32 { 768 } else { 1792 };
                    if have < need {
                        e.push(format!(
                            "expects A2/A3 tmp capacity to be at least {need} bytes for {b}-bit dst element type (got {have})"
                        ));
                    }
                }
            }
            _ => {}
        }
    }

    fn row_expand(&self, ins: &[T], outs: &[T], e: &mut Vec<String>) {
        let (Some(s), Some(d)) = (ins.first(), outs.first()) else {
            return;
        };
        if d.tb.v_row == Some(0) && d.tb.v_col == Some(0) {
            return;
        }
        let msg = if differ(s.tb.v_row, d.tb.v_row) {
            "expects src and dst to have the same valid_shape[0]"
        } else if is_zero(s.tb.v_row) {
            "expects src valid_shape[0] to be non-zero"
        } else if is_zero(s.tb.v_col) {
            "expects src valid_shape[1] to be non-zero"
        } else if is_zero(d.tb.v_row) {
            "expects dst valid_shape[0] to be non-zero"
        } else if is_zero(d.tb.v_col) {
            "expects dst valid_shape[1] to be non-zero"
        } else {
            return;
        };
        e.push(msg.into());
    }

    /// Was the tile produced by a resolved subview (parent's physical shape kept)?
    fn subview_tile(&self, v: ValueId) -> bool {
        self.defs.get(&v).is_some_and(|d| {
            d.opcode.name() == "pto.subview"
                || d.attr("pto.view_semantics").and_then(Attr::as_str) == Some("subview")
        })
    }

    /// A PTO low-precision element type (fp8, hif8, e8m0, packed fp4).
    fn low_precision(&self, t: TypeId) -> bool {
        match self.file.types.get(t) {
            Type::Float(x) => x.starts_with("f8") || x.starts_with("f4") || x.starts_with("f6"),
            Type::Opaque { name, params: None } => {
                name.starts_with("pto.f4")
                    || name.starts_with("pto.hif8")
                    || name.starts_with("pto.f8")
                    || name == "pto.bf16x2"
            }
            _ => false,
        }
    }

    fn tcvt(&self, _op: &Op, ins: &[T], outs: &[T], e: &mut Vec<String>) {
        let (Some(s), Some(d)) = (ins.first(), outs.first()) else {
            return;
        };
        let (sl, dl) = (self.low_precision(s.tb.elem), self.low_precision(d.tb.elem));
        if sl || dl {
            if !self.a5() {
                e.push("expects A2/A3 tcvt low-precision element types to be unsupported".into());
                return;
            }
            // A5: f32 -> fp8/hif8, f16 -> hif8, bf16 <-> fp4 pairs, fp8/hif8 -> f32
            let ty = |t: &T| self.file.types.get(t.tb.elem);
            let f = |t: &T, n: &str| matches!(ty(t), Type::Float(x) if x == n);
            let hif8 = |t: &T| matches!(ty(t), Type::Opaque { name, .. } if name == "pto.hif8");
            let fp8 = |t: &T| matches!(ty(t), Type::Float(x) if x.starts_with("f8"));
            let fp4 = |t: &T| matches!(t.dt, Some(F4E2M1 | F4E1M2));
            let ok = (f(s, "f32") && (fp8(d) || hif8(d)))
                || (f(s, "f16") && hif8(d))
                || (f(s, "bf16") && fp4(d))
                || (fp4(s) && f(d, "bf16"))
                || ((fp8(s) || hif8(s)) && f(d, "f32"));
            if !ok {
                e.push(format!(
                    "expects A5 tcvt low-precision type pairs to match PTO-ISA support (f32->fp8/hif8, f16->hif8, bf16<->fp4, fp8/hif8->f32), got {} -> {}",
                    crate::printer::type_str(&self.file.types, s.tb.elem),
                    crate::printer::type_str(&self.file.types, d.tb.elem)
                ));
                return;
            }
        }
        if !self.subview_tile(s.v) && !self.subview_tile(d.v) {
            let sh = |t: &T| {
                [
                    logical(t, Some(t.tb.rows), 0),
                    logical(t, Some(t.tb.cols), 1),
                ]
            };
            let (a, b) = (sh(s), sh(d));
            if differ(a[0], b[0]) || differ(a[1], b[1]) {
                e.push("expects src and dst to have compatible shapes (same rows and cols)".into());
                return;
            }
        }
        let va = [logical(s, s.tb.v_row, 0), logical(s, s.tb.v_col, 1)];
        let vb = [logical(d, d.tb.v_row, 0), logical(d, d.tb.v_col, 1)];
        if differ(va[0], vb[0]) || differ(va[1], vb[1]) {
            e.push("expects src and dst to have the same valid_shape".into());
        }
    }

    fn tgather(&self, op: &Op, ins: &[T], outs: &[T], e: &mut Vec<String>) {
        let a5 = self.a5();
        let raw = Self::vals(op, "ins");
        let (Some(src), Some(dst)) = (ins.first(), outs.first()) else {
            return;
        };
        if op.attr("maskPattern").is_some() {
            return;
        }
        let k_value = raw.iter().any(|v| self.is_scalar(*v));
        if k_value || outs.len() > 1 {
            // compare form: src, kValue, tmp -> dst, cdst
            let cmp = Self::enum_attr(op, "cmpMode")
                .unwrap_or("eq")
                .to_ascii_lowercase();
            let ok = if a5 {
                src.any(&[F16, F32, I16, U16, I32, U32])
            } else {
                src.any(&[F16, F32]) || (src.any(&[I32, U32]) && cmp == "eq")
            };
            if src.dt.is_some() && !ok {
                e.push(if a5 {
                    "expects A5 compare-form tgather src element type to be i16/i32/f16/f32".into()
                } else {
                    "expects A2/A3 compare-form tgather src element type to be f16/f32, or i32 when cmpMode=eq".into()
                });
            }
            return;
        }
        // index form: src, indices[, tmp] -> dst
        let idx = ins.get(1);
        let tmp = ins.get(2);
        if !a5 && (idx.is_none() || tmp.is_none()) {
            e.push("index-form tgather expects both indices and tmp".into());
            return;
        }
        let Some(idx) = idx else { return };
        if src.dt.is_some() && dst.dt.is_some() && src.dt != dst.dt {
            e.push("expects src and dst to have the same element type".into());
            return;
        }
        if src.dt.is_some() {
            let ok = if a5 {
                src.any(&[I8, U8, I16, U16, I32, U32, F16, F32, F8E4M3, F8E5M2])
            } else {
                src.any(&[I16, U16, I32, U32, F16, F32])
            };
            if !ok {
                e.push(if a5 {
                    "expects A5 gather src/dst element type to be i8/i16/i32/f16/f32".into()
                } else {
                    "expects gather src/dst element type to be i16/i32/f16/f32".into()
                });
                return;
            }
        }
        let idx_ok = if a5 {
            idx.any(&[I32, U32, I16, U16])
        } else {
            idx.any(&[I32, U32])
        };
        if idx.dt.is_some() && !idx_ok {
            e.push(format!(
                "expects indices element type to be i32{}",
                if a5 { " or i16" } else { "" }
            ));
            return;
        }
        if let (false, Some(tmp)) = (a5, tmp) {
            if tmp.dt.is_some() && tmp.dt != idx.dt {
                e.push("expects tmp and indices to have the same element type".into());
            } else if differ(idx.tb.v_row, tmp.tb.v_row) || differ(idx.tb.v_col, tmp.tb.v_col) {
                e.push("expects indices and tmp to have the same valid_shape".into());
            }
        }
    }

    fn thistogram(&self, op: &Op, ins: &[T], e: &mut Vec<String>) {
        let mut byte = Self::int_attr(op, "byte").unwrap_or(1);
        if let Some(Attr::Bool(msb)) = op.attr("isMSB") {
            let legacy = *msb as i128;
            if op.attr("byte").is_some() && byte != legacy {
                e.push("does not allow conflicting 'byte' and legacy 'isMSB' attributes".into());
                return;
            }
            byte = legacy;
        }
        if !(0..=3).contains(&byte) {
            e.push(format!("expects byte to be in range [0, 3], got {byte}"));
            return;
        }
        if !self.a5() {
            e.push(format!(
                "is only supported on A5, not on profile {}",
                self.profile
            ));
            return;
        }
        if let Some(src) = ins.first() {
            if src.any(&[U16, I16]) && byte > 1 {
                e.push("expects byte to be 0 or 1 when src element type is ui16".into());
            }
        }
    }

    fn tinsert(&self, op: &Op, ins: &[T], outs: &[T], e: &mut Vec<String>) {
        let (Some(s), Some(d)) = (ins.first(), outs.first()) else {
            return;
        };
        let pre_quant = op
            .body
            .iter()
            .any(|x| matches!(x, crate::ast::Elem::Ident(k) if k == "pre_quant"));
        let fp = ins.len() > 1;
        let (sl, dl) = (s.tb.loc, d.tb.loc);
        if self.a5() {
            if pre_quant && sl != TileLoc::Acc {
                e.push("expects preQuantScalar form to use loc=acc src".into());
                return;
            }
            let ok = matches!(
                (sl, dl),
                (TileLoc::Acc, TileLoc::Mat | TileLoc::Vec)
                    | (TileLoc::Vec, TileLoc::Mat | TileLoc::Vec)
            );
            if !ok {
                e.push(format!(
                    "expects A5 tinsert to use a supported src/dst loc pair: acc->mat, acc->vec, vec->mat, or vec->vec (got {}->{})",
                    sl.name(),
                    dl.name()
                ));
            }
            return;
        }
        if pre_quant && sl != TileLoc::Acc {
            e.push("preQuantScalar is only valid with src loc=acc".into());
            return;
        }
        match (sl, dl) {
            (TileLoc::Vec, TileLoc::Vec) => {
                if s.dt.is_some() && (s.dt != d.dt || !s.any(&[I8, U8, F16, BF16, F32])) {
                    e.push("expects A2/A3 vec->vec tinsert src/dst to have same supported dtype (i8/f16/bf16/f32)".into());
                }
            }
            (TileLoc::Acc, TileLoc::Mat) => {
                if s.dt.is_none() || d.dt.is_none() {
                    return;
                }
                if fp || pre_quant {
                    let ok = (s.is(F32) && d.any(&[I8, U8]))
                        || (s.any(&[I32, U32]) && d.any(&[I8, U8, F16, I16, U16]));
                    if !ok {
                        e.push("expects A2/A3 acc fp/preQuantScalar tinsert element types to be (src=f32,dst=i8) or (src=i32,dst=i8/f16/i16)".into());
                    }
                } else if !(s.is(F32) && d.any(&[F16, BF16])) {
                    e.push(
                        "expects A2/A3 tinsert element types to be src=f32, dst=f16/bf16".into(),
                    );
                }
            }
            _ => e.push(format!(
                "expects A2/A3 tinsert to use acc->mat or vec->vec (got {}->{})",
                sl.name(),
                dl.name()
            )),
        }
    }

    fn view_dtype(&self, v: ValueId) -> Option<DType> {
        let t = self.file.values.get(v as usize)?.ty?;
        self.file.types.elem_dtype(t)
    }

    /// The constant innermost stride of the tensor view a partition view
    /// (or view) was cut from, following `pto.partition_view` to its
    /// `pto.make_tensor_view`.
    fn innermost_stride(&self, v: ValueId) -> Option<i128> {
        use crate::ast::{Elem, Punct};
        let mut d = *self.defs.get(&v)?;
        if d.opcode.name() == "pto.partition_view" {
            d = self.defs.get(&d.uses().next()?)?;
        }
        if d.opcode.name() != "pto.make_tensor_view" {
            return None;
        }
        let b = &d.body;
        let i = b
            .iter()
            .position(|x| matches!(x, Elem::Ident(k) if k == "strides"))?;
        let strides: Vec<ValueId> = b[i..]
            .iter()
            .skip_while(|x| !matches!(x, Elem::P(Punct::LBracket)))
            .take_while(|x| !matches!(x, Elem::P(Punct::RBracket)))
            .filter_map(|x| match x {
                Elem::Use(v) => Some(*v),
                _ => None,
            })
            .collect();
        self.const_int(*strides.last()?)
    }

    fn tload(&self, op: &Op, outs: &[T], e: &mut Vec<String>) {
        if !self.a5() {
            // A2/A3 MTE2 moves contiguous bursts: the innermost GM stride is 1
            let nd_tile = outs.first().is_some_and(|d| d.nd());
            let src = Self::vals(op, "ins").first().copied();
            if let (true, Some(st)) = (nd_tile, src.and_then(|v| self.innermost_stride(v))) {
                if st != 1 {
                    e.push(format!(
                        "A2/A3 DMA lowering requires a unit innermost stride, got {st}"
                    ));
                }
            }
            return;
        }
        let Some(d) = outs.first() else { return };
        let src = Self::vals(op, "ins")
            .first()
            .and_then(|v| self.view_dtype(*v));
        if let (Some(s), Some(dd)) = (src, d.dt) {
            if s.bits() != dd.bits() {
                e.push(format!(
                    "expects src and dst element types to have the same element size ({s} vs {dd})"
                ));
                return;
            }
        }
        let dn = d.tb.blayout == BLayout::ColMajor && d.tb.slayout == SLayout::NoneBox;
        if d.tb.loc == TileLoc::Vec && !(d.nd() || dn || d.nz()) {
            e.push("expects A5 tload vec dst layout to be ND, DN, or NZ".into());
        }
    }

    fn tstore(&self, op: &Op, ins: &[T], e: &mut Vec<String>) {
        // a static store writes exactly the tile's valid elements
        if let (Some(s), 1) = (ins.first(), ins.len()) {
            let dst = Self::vals(op, "outs")
                .first()
                .and_then(|v| self.file.values.get(*v as usize)?.ty);
            let shape = dst.and_then(|t| match self.file.types.get(t) {
                Type::PartitionView { shape, .. } => Some(shape.clone()),
                _ => None,
            });
            let count = |dims: &[Option<i64>]| -> Option<i64> {
                dims.iter().try_fold(1i64, |a, d| {
                    d.filter(|d| *d > 0).and_then(|d| a.checked_mul(d))
                })
            };
            if let (Some(dc), Some(sc)) = (
                shape.as_deref().and_then(count),
                count(&[s.tb.v_row, s.tb.v_col]),
            ) {
                if dc != sc {
                    e.push(format!(
                        "expects dst static element count ({dc}) to match src valid_shape static element count ({sc})"
                    ));
                    return;
                }
            }
        }
        if !self.a5() {
            return;
        }
        let Some(s) = ins.first() else { return };
        if !matches!(s.tb.loc, TileLoc::Vec | TileLoc::Acc) {
            e.push(format!(
                "expects A5 tstore src to use loc=vec or loc=acc, got loc={}",
                s.tb.loc.name()
            ));
            return;
        }
        if s.tb.loc != TileLoc::Acc || s.dt.is_none() {
            return;
        }
        if !s.any(&[I32, U32, F32]) {
            e.push("expects A5 acc tstore src element type to be i32 or f32".into());
            return;
        }
        let raw = Self::vals(op, "ins");
        let pre_quant = raw.iter().any(|v| self.is_scalar(*v));
        let dst = Self::vals(op, "outs")
            .first()
            .and_then(|v| self.view_dtype(*v));
        if let (true, Some(d)) = (pre_quant, dst) {
            let ok = if s.any(&[I32, U32]) {
                matches!(d, I8 | U8 | F16 | BF16)
            } else {
                matches!(d, I8 | U8 | F16 | BF16 | F32 | HiF8 | F8E4M3)
            };
            if !ok {
                e.push(format!(
                    "expects A5 acc preQuantScalar tstore dst type to be i8/ui8/f16/bf16/f32/hif8/f8E4M3, got {d}"
                ));
            }
        }
    }

    fn tscatter(&self, op: &Op, e: &mut Vec<String>) {
        let tiles = if op.generic {
            op.uses().filter(|v| self.tile(*v).is_some()).count()
        } else {
            self.tiles(op, "ins").len() + self.tiles(op, "outs").len()
        };
        let has_idx = tiles >= 3;
        if has_idx == op.attr("maskPattern").is_some() {
            e.push("expects exactly one of indexes operand or maskPattern attribute".into());
        }
    }

    fn textract(&self, op: &Op, ins: &[T], outs: &[T], e: &mut Vec<String>) {
        let (Some(s), Some(d)) = (ins.first(), outs.first()) else {
            return;
        };
        if !self.a5() {
            return;
        }
        let raw = Self::vals(op, "ins");
        // src, row, col[, preQuantScalar]; the fp form adds a scaling tile
        let pre_quant = raw.len() > 3 && self.is_scalar(raw[3]);
        let fp = ins.get(1);
        let relu =
            Self::enum_attr(op, "reluPreMode").is_some_and(|m| m != "NoRelu" && m != "no_relu");
        let (sl, dl) = (s.tb.loc, d.tb.loc);
        if sl != TileLoc::Acc && s.tb.elem != d.tb.elem {
            e.push("expects src and dst to have the same element type".into());
            return;
        }
        if let Some(fp) = fp {
            if fp.tb.loc != TileLoc::Scaling {
                e.push(format!(
                    "expects fp to use loc=scaling, got loc={}",
                    fp.tb.loc.name()
                ));
                return;
            }
        }
        let dty = self.file.types.get(d.tb.elem);
        let elem_ok = match dty {
            Type::Int(8) | Type::SInt(8) | Type::UInt(8) => true,
            Type::Float(x) => matches!(x.as_str(), "f16" | "bf16" | "f32") || x.starts_with("f8"),
            Type::Opaque { .. } => d.dt.is_some(),
            _ => false,
        };
        if !elem_ok {
            e.push(
                "expects A5 textract element type to be an fp8/f16/bf16/f32 or int8 family type"
                    .into(),
            );
            return;
        }
        if fp.is_some() && pre_quant {
            e.push("expects fp and preQuantScalar to be mutually exclusive".into());
            return;
        }
        for (on, what) in [
            (fp.is_some(), "fp"),
            (pre_quant, "preQuantScalar"),
            (relu, "reluPreMode"),
        ] {
            if on && sl != TileLoc::Acc {
                e.push(format!("expects {what} form to use loc=acc src"));
                return;
            }
        }
        use TileLoc::*;
        let ok_pair = matches!(
            (sl, dl),
            (Mat, Left | Right | Scaling) | (Vec, Mat | Vec) | (Acc, Mat | Vec)
        );
        if !ok_pair {
            e.push(format!(
                "expects A5 textract to use a supported src/dst loc pair (got {}->{})",
                sl.name(),
                dl.name()
            ));
            return;
        }
        let (rm, cm) = (BLayout::RowMajor, BLayout::ColMajor);
        let lay = |t: &T| (t.tb.blayout, t.tb.slayout);
        match (sl, dl) {
            (Mat, _) => {
                let src_ok = match (lay(s), dl) {
                    ((b, SLayout::ColMajor), _) if b == rm => true,
                    ((b, SLayout::RowMajor), _) if b == cm => true,
                    ((b, _), Left) => b == rm,
                    _ => false,
                };
                if !src_ok {
                    e.push("expects A5 textract src to use a supported mat blayout/slayout combination".into());
                } else if dl == Left && d.tb.slayout != SLayout::RowMajor {
                    // (A5 reads every left tile as col_major: only the box layout is checked)
                    e.push("expects A5 left dst to use row_major slayout".into());
                } else if dl == Right && lay(d) != (rm, SLayout::ColMajor) {
                    e.push(
                        "expects A5 right dst to use row_major blayout and col_major slayout"
                            .into(),
                    );
                }
            }
            (Vec, Vec) if !(s.nd() && d.nd()) => {
                e.push("expects A5 vec->vec textract src/dst to use ND layout (blayout=row_major, slayout=none_box)".into());
            }
            (Acc, _) => {
                if lay(s) != (cm, SLayout::RowMajor) {
                    e.push("expects A5 acc-source textract src to use blayout=col_major and slayout=row_major".into());
                    return;
                }
                if dl == Mat && lay(d) != (cm, SLayout::RowMajor) {
                    e.push("expects A5 acc-source textract dst to use blayout=col_major and slayout=row_major".into());
                    return;
                }
                if dl == Vec && !d.nd() {
                    e.push("expects A5 acc->vec textract dst to use ND layout (blayout=row_major, slayout=none_box)".into());
                    return;
                }
                let sty = self.file.types.get(s.tb.elem);
                let f = |t: &Type, n: &str| matches!(t, Type::Float(x) if x == n);
                let i = |t: &Type, w: u32| matches!(t, Type::Int(x) | Type::SInt(x) | Type::UInt(x) if *x == w);
                if fp.is_some() || pre_quant {
                    let ok = if f(sty, "f32") {
                        i(dty, 8)
                            || f(dty, "f16")
                            || f(dty, "bf16")
                            || f(dty, "f32")
                            || matches!(dty, Type::Float(x) if x.starts_with("f8"))
                    } else if i(sty, 32) {
                        i(dty, 8) || f(dty, "f16") || f(dty, "bf16")
                    } else {
                        false
                    };
                    if !ok {
                        e.push("expects A5 acc preQuantScalar textract element types to be (src=f32,dst=i8/fp8/f16/bf16/f32) or (src=i32,dst=i8/f16/bf16)".into());
                    }
                } else {
                    let ok = if f(sty, "f32") {
                        f(dty, "f16") || f(dty, "bf16") || f(dty, "f32")
                    } else {
                        i(sty, 32) && i(dty, 32)
                    };
                    if !ok {
                        e.push("expects A5 acc textract element types to be (src=f32,dst=f16/bf16/f32) or (src=i32,dst=i32)".into());
                    }
                }
            }
            _ => {}
        }
    }

    fn tpow(&self, op: &Op, ins: &[T], outs: &[T], e: &mut Vec<String>) {
        let (Some(b), Some(d)) = (ins.first(), outs.first()) else {
            return;
        };
        let tmp = if op.opcode.name() == "pto.tpow" {
            ins.get(2)
        } else {
            ins.get(1)
        };
        let hp = Self::enum_attr(op, "precisionType") == Some("high_precision");
        let int = b.any(&[I8, U8, I16, U16, I32, U32]);
        if hp && !self.a5() {
            e.push("A2/A3 does not support precisionType=high_precision".into());
            return;
        }
        if hp && b.dt.is_some() && !b.any(&[F16, F32, BF16]) {
            e.push(
                "expects A5 tpow element type to be f16/f32/bf16 when precisionType=high_precision"
                    .into(),
            );
            return;
        }
        let Some(tmp) = tmp else { return };
        if int {
            e.push(
                "does not accept tmp when element type is integer (integer pow takes no tmp)"
                    .into(),
            );
        } else if tmp.dt.is_some() && tmp.dt != d.dt {
            e.push("expects tmp and dst to have the same element type".into());
        } else if !tmp.row_major() {
            e.push("expects tmp to use row-major layout".into());
        } else if differ(tmp.tb.v_row, d.tb.v_row) || differ(tmp.tb.v_col, d.tb.v_col) {
            e.push("expects tmp and dst to have the same valid_shape".into());
        }
    }

    /// Tile-scalar arithmetic: src and dst agree on element type and valid
    /// shape; element types per profile.
    fn scalar_arith(&self, name: &str, ins: &[T], outs: &[T], e: &mut Vec<String>) {
        let (Some(s), Some(d)) = (ins.first(), outs.first()) else {
            return;
        };
        if s.dt.is_some() && d.dt.is_some() && s.dt != d.dt {
            e.push("expects src and dst to have the same element type".into());
        } else if differ(s.tb.v_row, d.tb.v_row) {
            e.push(format!(
                "expects src and dst to have the same valid_shape[0] ({} vs {})",
                s.tb.v_row.unwrap_or(0),
                d.tb.v_row.unwrap_or(0)
            ));
        } else if differ(s.tb.v_col, d.tb.v_col) {
            e.push(format!(
                "expects src and dst to have the same valid_shape[1] ({} vs {})",
                s.tb.v_col.unwrap_or(0),
                d.tb.v_col.unwrap_or(0)
            ));
        } else if let Some(dt) = s.dt {
            let base = [I32, U32, I16, U16, F16, F32];
            let ok = base.contains(&dt) || (self.a5() && matches!(dt, I8 | U8 | BF16));
            if !ok {
                let short = &name[4..];
                e.push(if self.a5() {
                    format!(
                        "expects A5 {short} element type to be i32/i16/i8/f16/bf16/f32, got {dt}"
                    )
                } else {
                    format!("expects A2/A3 {short} element type to be i32/i16/f16/f32, got {dt}")
                });
            }
        }
    }

    fn tquant(&self, op: &Op, ins: &[T], outs: &[T], e: &mut Vec<String>) {
        let qt = Self::enum_attr(op, "quant_type").unwrap_or("");
        // src, fp[, offset] (tiles or memrefs)
        let has_offset = Self::vals(op, "ins").len() >= 3;
        match qt {
            "INT8_SYM" if has_offset => {
                e.push("INT8_SYM quantization must not have an offset operand".into());
                return;
            }
            "INT8_ASYM" if !has_offset => {
                e.push("INT8_ASYM quantization requires an offset operand".into());
                return;
            }
            "INT8_SYM" | "INT8_ASYM" => {}
            _ => return,
        }
        let (Some(s), Some(d)) = (ins.first(), outs.first()) else {
            return;
        };
        if differ(s.tb.v_row, d.tb.v_row) || differ(s.tb.v_col, d.tb.v_col) {
            e.push("expects src and dst to have the same valid_shape".into());
            return;
        }
        if self.a5() {
            return;
        }
        if let Some(tmp) = outs.get(1) {
            if (tmp.tb.rows, tmp.tb.cols) != (s.tb.rows, s.tb.cols) {
                e.push(format!(
                    "expects A2/A3 tmp to have the same shape as src ({}x{}), got {}x{}",
                    s.tb.rows, s.tb.cols, tmp.tb.rows, tmp.tb.cols
                ));
            }
        }
    }

    /// The result tile type of `pto.alloc_tile`: positive shape, valid shape
    /// inside it, a supported fractal size and a 32-byte aligned layout.
    fn alloc_tile(&self, op: &Op, e: &mut Vec<String>) {
        let Some(r) = op.result_values().next().and_then(|v| self.tile(v)) else {
            return;
        };
        let tb = r.tb;
        if tb.rows <= 0 || tb.cols <= 0 {
            e.push(format!(
                "expects result tile_buf rows/cols to be positive (rows={}, cols={})",
                tb.rows, tb.cols
            ));
            return;
        }
        for (v, n, lim) in [(tb.v_row, "v_row", tb.rows), (tb.v_col, "v_col", tb.cols)] {
            if let Some(v) = v {
                if v < 0 || v > lim {
                    e.push(format!(
                        "expects result tile_buf {n} ({v}) to be within 0..={lim}"
                    ));
                    return;
                }
            }
        }
        if !matches!(tb.fractal, 32 | 512 | 1024) {
            e.push(format!(
                "expects result tile_buf fractal size to be one of 32, 512, 1024, got {}",
                tb.fractal
            ));
            return;
        }
        let Some(dt) = r.dt else { return };
        let fp4 = matches!(dt, F4E2M1 | F4E1M2);
        if dt.bits() < 8 && !fp4 {
            return;
        }
        let elem = (dt.bits() as i64 / 8).max(1);
        let align = if fp4 { 16 } else { 32 };
        if tb.slayout == SLayout::NoneBox {
            // 1-row and 1-column tiles are vectors: no row/column stride to align
            if tb.rows == 1 || tb.cols == 1 {
                return;
            }
            let (dim, what) = if tb.blayout == BLayout::RowMajor {
                (
                    tb.cols,
                    "row-major none_box tile row byte size (cols * sizeof(dtype))",
                )
            } else {
                (
                    tb.rows,
                    "col-major none_box tile column byte size (rows * sizeof(dtype))",
                )
            };
            if (dim * elem) % align != 0 {
                e.push(format!(
                    "expects result {what} to be {align}-byte aligned, but got {} bytes",
                    dim * elem
                ));
            }
            return;
        }
        let inner_rows = match tb.fractal {
            1024 | 32 => 16,
            _ if tb.slayout == SLayout::RowMajor => 16,
            _ => 32 / elem,
        };
        let unaligned_ok = tb.loc == TileLoc::Vec || tb.fractal == 32 || tb.rows == 1;
        if !unaligned_ok && tb.rows % inner_rows != 0 {
            e.push(format!(
                "expects result boxed tile rows to be a multiple of innerRows ({inner_rows}), but got {}",
                tb.rows
            ));
        }
        // a box column is 32 bytes (512-byte row-major boxes), 16 elements
        // (col-major 512-byte and 1024-byte boxes) or 2 (32-byte MX boxes);
        // a partial box column would put in-shape elements past the tile's end
        let inner_cols = match tb.fractal {
            1024 => 16,
            32 => 2,
            _ if tb.slayout == SLayout::RowMajor => 32 / elem,
            _ => 16,
        };
        if tb.cols % inner_cols != 0 {
            e.push(format!(
                "expects result boxed tile cols to be a multiple of innerCols ({inner_cols}), but got {}",
                tb.cols
            ));
        }
    }

    /// FIXPIPE frontend attributes that are internal to PTOAS lowering and
    /// may not be written by a kernel.
    fn unpublished_attrs(op: &Op, e: &mut Vec<String>) -> bool {
        const HIDDEN: [&str; 12] = [
            "stPhase",
            "st_phase",
            "atomicType",
            "atomic_type",
            "subBlockId",
            "subBlockid",
            "sub_blockid",
            "clipReluMode",
            "clip_relu_mode",
            "isChannelSplit",
            "is_channel_split",
            "channel_split",
        ];
        if let Some((k, _)) = op.attrs().find(|(k, _)| HIDDEN.contains(&k.as_str())) {
            e.push(format!("does not allow unpublished fixpipe attr '{k}'"));
            return true;
        }
        false
    }

    /// `set_quant_scalar` / `set_quant_vector` feed the FIXPIPE epilogue of
    /// the frontend pipe `id` of the same function, whose quant mode must be
    /// of the matching family.
    fn quant_pipe(&self, op: &Op, family: &str, e: &mut Vec<String>) {
        let id = Self::int_attr(op, "id").unwrap_or(0);
        let Some(f) = crate::verify_pipe::func_of(self.file, op) else {
            return;
        };
        let Some(init) = crate::verify_pipe::frontend_init(f, id) else {
            // lowered pipes carry no frontend id to look up
            let lowered = f
                .walk_names()
                .iter()
                .any(|n| n.starts_with("pto.initialize_l2"));
            if !lowered {
                e.push(format!("expects 'id' = {id} to match a frontend or lowered initialize_pipe op in the same function"));
            }
            return;
        };
        if init.opcode.name() != "pto.aic_initialize_pipe" {
            e.push(format!(
                "expects 'id' = {id} to reference an aic_initialize_pipe or lowered producer pipe"
            ));
            return;
        }
        let Some(q) = Self::epilogue_quant(init) else {
            e.push(format!(
                "expects 'id' = {id} to reference a fixpipe pipe (with acc_push_epilogue)"
            ));
            return;
        };
        let ok = if family == "scalar" {
            q.ends_with("_scalar")
        } else {
            q.ends_with("_vec")
        };
        if !ok {
            e.push(format!("expects 'id' = {id} to reference a pipe with {family} quantization mode, but found non-{family} mode {q}"));
        }
    }

    /// The `quant = ...` mode of an `acc_push_epilogue` attribute.
    fn epilogue_quant(op: &Op) -> Option<String> {
        let body = match op.attr("acc_push_epilogue")? {
            Attr::Dialect { body: Some(b), .. } => b.clone(),
            _ => return None,
        };
        let t: String = body.chars().filter(|c| !c.is_whitespace()).collect();
        let i = t.find("quant=")? + "quant=".len();
        Some(t[i..].split([',', '>']).next()?.to_string())
    }

    /// The ops of the block that holds `op`, if any.
    fn block_of(&self, op: &Op) -> Option<&'a [Op]> {
        self.file.walk().into_iter().find_map(|o| {
            o.regions
                .iter()
                .flat_map(|r| r.blocks.iter())
                .find_map(|b| {
                    b.ops
                        .iter()
                        .any(|x| std::ptr::eq(x, op))
                        .then_some(b.ops.as_slice())
                })
        })
    }

    /// A FIXPIPE push whose pipe quantizes with a scalar (vector) scale
    /// needs that scale set by a preceding `pto.set_quant_scalar`
    /// (`set_quant_vector`) with the pipe's id in the same block.
    fn quant_state(&self, op: &Op, e: &mut Vec<String>) {
        let Some(id) = Self::int_attr(op, "id") else {
            return;
        };
        let Some(block) = self.block_of(op) else {
            return;
        };
        let pos = block.iter().position(|x| std::ptr::eq(x, op)).unwrap_or(0);
        let before = &block[..pos];
        // the pipe's init may sit anywhere in the function; the scale must be
        // set in the push's own block
        let init = crate::verify_pipe::func_of(self.file, op)
            .and_then(|f| crate::verify_pipe::frontend_init(f, id))
            .filter(|o| o.opcode.name() == "pto.aic_initialize_pipe");
        let Some(q) = init.and_then(Self::epilogue_quant) else {
            return;
        };
        // the accumulator element type the epilogue converts from
        let src = op.uses().find_map(|v| self.tile(v)).and_then(|t| t.dt);
        if let Some(dt) = src {
            let want: &[DType] = if q == "no_convert" {
                &[F32, I32]
            } else if q.starts_with("f32_") || q.starts_with("qf32") {
                &[F32]
            } else if q.starts_with("req") || q.starts_with("deq") || q.starts_with("qs32") {
                &[I32]
            } else {
                &[]
            };
            if !want.is_empty() && !want.contains(&dt) {
                e.push(format!(
                    "expects fixpipe TPUSH source element type to match acc_push_epilogue.quant {q} (source {dt})"
                ));
                return;
            }
        }
        let need = if q.ends_with("_scalar") && q != "no_convert" {
            "pto.set_quant_scalar"
        } else if q.ends_with("_vec") {
            "pto.set_quant_vector"
        } else {
            return;
        };
        let set = before
            .iter()
            .any(|o| o.opcode.name() == need && Self::int_attr(o, "id") == Some(id));
        if !set {
            e.push(format!(
                "expects a preceding {need} with id = {id} in the same block (the pipe's epilogue quantizes with {q})"
            ));
        }
    }

    /// The `key = value` fields of an `acc_push_epilogue` attribute.
    fn epilogue_fields(op: &Op) -> Vec<(String, String)> {
        let Some(Attr::Dialect { body: Some(b), .. }) = op.attr("acc_push_epilogue") else {
            return Vec::new();
        };
        let t: String = b.chars().filter(|c| !c.is_whitespace()).collect();
        t.split(',')
            .filter_map(|f| f.split_once('='))
            .map(|(k, v)| (k.to_string(), v.trim_end_matches('>').to_string()))
            .collect()
    }

    fn init_pipe(&self, op: &Op, e: &mut Vec<String>) {
        if Self::unpublished_attrs(op, e) {
            return;
        }
        // one pipe per id in a function
        if let (Some(id), Some(block)) = (Self::int_attr(op, "id"), self.block_of(op)) {
            let dup = block
                .iter()
                .take_while(|o| !std::ptr::eq(*o, op))
                .any(|o| o.opcode == op.opcode && Self::int_attr(o, "id") == Some(id));
            if dup {
                e.push(format!(
                    "requires 'id' to be unique across frontend initialize_pipe ops in the function (id = {id} is initialised twice)"
                ));
                return;
            }
        }
        // the FIXPIPE epilogue's published modes
        const LAYOUTS: [&str; 3] = ["nz2nd", "nz2dn", "nz2nz"];
        const QUANTS: [&str; 15] = [
            "no_convert",
            "f32_f16",
            "f32_bf16",
            "req8_scalar",
            "req8_vec",
            "deqf16_scalar",
            "deqf16_vec",
            "qf322b8_pre_scalar",
            "qf322b8_pre_vec",
            "qf322f16_pre_scalar",
            "qf322bf16_pre_scalar",
            "qs322bf16_pre_scalar",
            "qs322bf16_pre_vec",
            "qf322hif8_pre_scalar",
            "qf322fp8_pre_scalar",
        ];
        const RELUS: [&str; 2] = ["no_relu", "normal_relu"];
        for (k, v) in Self::epilogue_fields(op) {
            let allowed: &[&str] = match k.as_str() {
                "layout" => &LAYOUTS,
                "quant" => &QUANTS,
                "relu" => &RELUS,
                _ => continue,
            };
            if !allowed.contains(&v.as_str()) {
                e.push(format!(
                    "acc_push_epilogue {k} = {v} is not a FIXPIPE frontend mode (expected one of: {})",
                    allowed.join(", ")
                ));
                return;
            }
        }
        if let (Some(q), false) = (Self::epilogue_quant(op), self.a5()) {
            if q.starts_with("qs322bf16_pre") {
                e.push(
                    "expects 'qs322bf16_pre_*' quantization modes to be used only on A5 target"
                        .into(),
                );
                return;
            }
            if q == "qf322hif8_pre_scalar" || q == "qf322fp8_pre_scalar" {
                e.push("expects 'qf322hif8_pre_scalar'/'qf322fp8_pre_scalar' to be used only on A5 target".into());
                return;
            }
        }
        let Some(dir) = Self::int_attr(op, "dir_mask") else {
            return;
        };
        if !(1..=3).contains(&dir) {
            e.push(format!("expects 'dir_mask' to be 1, 2, or 3, got {dir}"));
            return;
        }
        let mut slots = if dir == 3 { 4 } else { 8 };
        if let Some(n) = Self::int_attr(op, "slot_num") {
            if n <= 0 {
                e.push(format!("expects 'slot_num' to be greater than 0, got {n}"));
                return;
            }
            slots = n;
        }
        if let Some(local) = Self::int_attr(op, "local_slot_num") {
            if self.a5() {
                e.push("'local_slot_num' is only supported for a2/a3 frontend pipe lowering, not on a5".into());
                return;
            }
            if local <= 0 {
                e.push("expects 'local_slot_num' to be greater than 0".into());
                return;
            }
            if local > slots {
                e.push(format!(
                    "expects 'local_slot_num' ({local}) to be less than or equal to slot_num ({slots}) for dir_mask = {dir}"
                ));
                return;
            }
        }
        if op.attr("acc_push_epilogue").is_some() && dir != 1 {
            e.push(format!(
                "expects fixpipe pipe (with 'acc_push_epilogue') to have dir_mask = 1 (C2V only), got {dir}"
            ));
        }
    }

    fn fusion_region(&self, op: &Op, e: &mut Vec<String>) {
        let Some(block) = op.regions.first().and_then(|r| r.blocks.first()) else {
            return;
        };
        if !block.args.is_empty() {
            e.push(format!(
                "expects body block to have no arguments, got {}",
                block.args.len()
            ));
            return;
        }
        let Some(y) = block.ops.last().filter(|o| o.opcode.name() == "pto.yield") else {
            e.push("expects body to terminate with pto.yield".into());
            return;
        };
        let results: Vec<ValueId> = op.result_values().collect();
        let yielded: Vec<ValueId> = y.uses().collect();
        if results.len() != yielded.len() {
            e.push(format!(
                "expects pto.yield to return {} values, got {}",
                results.len(),
                yielded.len()
            ));
            return;
        }
        let ty = |v: ValueId| self.file.values.get(v as usize).and_then(|x| x.ty);
        for (i, (r, y)) in results.iter().zip(&yielded).enumerate() {
            if let (Some(a), Some(b)) = (ty(*r), ty(*y)) {
                if a != b {
                    let p = |t| crate::printer::type_str(&self.file.types, t);
                    e.push(format!(
                        "expects yielded value #{i} to have type '{}', got '{}'",
                        p(a),
                        p(b)
                    ));
                    return;
                }
            }
        }
    }
}
