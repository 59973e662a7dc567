//! Rules of PTOAS's layout-agnostic vector IR (`pto.vmi.*`): the well-formedness
//! of `!pto.vmi.vreg` / `!pto.vmi.mask` types, and per-op agreement of lane
//! counts, element types and mask granularities. VMI ops are parsed and
//! checked, never executed; these are the contracts an op's operands must meet
//! before any lowering, so a kernel that breaks one is rejected at that op.

use crate::ast::{File, Op, ValueId};
use crate::attr::Attr;
use crate::ty::{Type, TypeId};

/// Signedness of an integer element.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Sign {
    Signless,
    Signed,
    Unsigned,
}

/// What a VMI element type is, from its spelling.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Int(Sign),
    Index,
    Float,
    /// A PTO low-precision float (fp8, hif8, fp4 pairs, bf16 pairs).
    LowFloat,
}

#[derive(Clone, Copy, Debug)]
struct El {
    kind: Kind,
    /// Storage bits of one logical element.
    bits: u32,
}

impl El {
    fn parse(s: &str) -> Option<El> {
        let s = s.trim();
        let int = |rest: &str, sign| {
            rest.parse::<u32>().ok().map(|bits| El {
                kind: Kind::Int(sign),
                bits,
            })
        };
        if let Some(r) = s.strip_prefix("si") {
            return int(r, Sign::Signed);
        }
        if let Some(r) = s.strip_prefix("ui") {
            return int(r, Sign::Unsigned);
        }
        if let Some(r) = s.strip_prefix('i') {
            return int(r, Sign::Signless);
        }
        let f = |bits| {
            Some(El {
                kind: Kind::Float,
                bits,
            })
        };
        let low = |bits| {
            Some(El {
                kind: Kind::LowFloat,
                bits,
            })
        };
        match s {
            "index" => Some(El {
                kind: Kind::Index,
                bits: 64,
            }),
            "f16" | "bf16" => f(16),
            "f32" | "tf32" => f(32),
            "f64" => f(64),
            "!pto.hif8" | "!pto.f4E2M1x2" | "!pto.f4E1M2x2" | "!pto.hif8x2" => low(8),
            "!pto.bf16x2" => low(32),
            _ if s.starts_with("f8") || s.starts_with("f6") || s.starts_with("f4") => f(8),
            _ => None,
        }
    }

    fn int_like(&self) -> bool {
        matches!(self.kind, Kind::Int(_) | Kind::Index)
    }
    fn int(&self) -> bool {
        matches!(self.kind, Kind::Int(_))
    }
    fn int_of(&self, widths: &[u32]) -> bool {
        self.int() && widths.contains(&self.bits)
    }
}

/// A VMI data or mask type.
#[derive(Clone, Debug, PartialEq)]
enum Vmi {
    Vreg {
        lanes: i64,
        elem: String,
        layout: Option<String>,
    },
    Mask {
        lanes: i64,
        gran: String,
        layout: Option<String>,
    },
}

impl Vmi {
    fn lanes(&self) -> i64 {
        match self {
            Vmi::Vreg { lanes, .. } | Vmi::Mask { lanes, .. } => *lanes,
        }
    }
}

/// Splits `NxT[, layout]` (whitespace removed).
fn split_params(p: &str) -> Option<(i64, String, Option<String>)> {
    let p: String = p.chars().filter(|c| !c.is_whitespace()).collect();
    let mut depth = 0i32;
    let mut cut = None;
    for (i, c) in p.char_indices() {
        match c {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                cut = Some(i);
                break;
            }
            _ => {}
        }
    }
    let (head, layout) = match cut {
        Some(i) => (&p[..i], Some(p[i + 1..].to_string())),
        None => (&p[..], None),
    };
    let x = head.find('x')?;
    let lanes = head[..x].parse::<i64>().ok()?;
    Some((lanes, head[x + 1..].to_string(), layout))
}

fn vmi_of(t: &Type) -> Option<Vmi> {
    let Type::Opaque {
        name,
        params: Some(p),
    } = t
    else {
        return None;
    };
    let (lanes, elem, layout) = split_params(p)?;
    match name.as_str() {
        "pto.vmi.vreg" => Some(Vmi::Vreg {
            lanes,
            elem,
            layout,
        }),
        "pto.vmi.mask" => Some(Vmi::Mask {
            lanes,
            gran: elem,
            layout,
        }),
        _ => None,
    }
}

fn gran_bits(g: &str) -> Option<u32> {
    match g {
        "b8" => Some(8),
        "b16" => Some(16),
        "b32" => Some(32),
        _ => None,
    }
}

/// Why a `#pto.vmi.layout<...>` (text with whitespace removed) is malformed.
fn layout_error(l: &str) -> Option<String> {
    let body = l.strip_prefix("#pto.vmi.layout<")?.strip_suffix('>')?;
    let mut parts = body.split(',');
    let head = parts.next().unwrap_or("");
    let (kind, factor) = match head.split_once('=') {
        Some((k, v)) => (k, v.parse::<i64>().ok()),
        None => (head, None),
    };
    let fields: Vec<(&str, Option<i64>)> = parts
        .map(|f| match f.split_once('=') {
            Some((k, v)) => (k, v.parse::<i64>().ok()),
            None => (f, None),
        })
        .collect();
    let show = format!("#pto.vmi.layout<{}>", head.replace('=', " = "));
    for (k, v) in &fields {
        if *k == "lane_stride" && v.is_some_and(|v| v <= 0) {
            return Some(format!("{show} requires lane_stride to be positive"));
        }
    }
    match kind {
        "contiguous" | "deinterleaved" => {
            if kind == "deinterleaved" && !matches!(factor, Some(2 | 4)) {
                return Some(format!("{show} expected factor to be 2 or 4"));
            }
            if fields.iter().any(|(k, _)| *k != "lane_stride") {
                return Some(format!("{show}: expected 'lane_stride = <integer>'"));
            }
        }
        "block_deinterleaved" => {
            if !matches!(factor, Some(2 | 4)) {
                return Some(format!("{show} expected factor to be 2 or 4"));
            }
            if !fields.is_empty() {
                return Some(format!(
                    "{show} does not accept block_elems, slots, or lane_stride"
                ));
            }
        }
        "num_groups" => {
            if factor.is_some_and(|f| f <= 0) {
                return Some(format!("{show} requires num_groups to be positive"));
            }
            for (k, v) in &fields {
                match *k {
                    "slots" if v.is_some_and(|v| v < 0) => {
                        let v = v.unwrap_or(0);
                        return Some(format!(
                            "#pto.vmi.layout<{}, slots = {v}> requires slots to be omitted or positive",
                            head.replace('=', " = ")
                        ));
                    }
                    "slots" | "lane_stride" => {}
                    _ => {
                        return Some(format!(
                            "{show}: expected 'slots = <integer>' or 'lane_stride = <integer>'"
                        ))
                    }
                }
            }
        }
        _ => {
            return Some(format!(
                "unknown VMI layout kind '{kind}' (expected contiguous, deinterleaved, block_deinterleaved or num_groups)"
            ))
        }
    }
    None
}

/// Why a VMI type is malformed, if it is.
pub(crate) fn type_error(file: &File, t: TypeId) -> Option<String> {
    let ty = file.types.get(t);
    let v = vmi_of(ty)?;
    let shown = format!("'{}'", crate::printer::type_str(&file.types, t));
    if v.lanes() <= 0 {
        return Some(format!("{shown} expected a positive element count"));
    }
    let layout = match &v {
        Vmi::Vreg { elem, layout, .. } => {
            if let Some(e) = El::parse(elem) {
                if !matches!(e.bits, 8 | 16 | 32) {
                    return Some(format!(
                        "{shown} expected an 8-bit, 16-bit, or 32-bit logical element type"
                    ));
                }
            }
            layout
        }
        Vmi::Mask { gran, layout, .. } => {
            if !matches!(gran.as_str(), "pred" | "b8" | "b16" | "b32") {
                return Some(format!(
                    "{shown} expected granularity to be one of pred, b8, b16, b32"
                ));
            }
            if gran == "pred" && layout.is_some() {
                return Some(format!("{shown} pred mask must not carry layout"));
            }
            layout
        }
    };
    layout.as_deref().and_then(layout_error)
}

/// The operand and result values of a VMI op, by kind.
struct Operands {
    /// Data operands, then data results.
    vregs: Vec<(Vmi, El)>,
    /// Number of data operands (the rest of `vregs` are results).
    vreg_ins: usize,
    masks: Vec<Vmi>,
    mask_ins: usize,
    /// Memory operands (pointers, memrefs).
    mems: Vec<TypeId>,
    /// Scalar operands (type ids).
    scalars: Vec<TypeId>,
}

fn classify(file: &File, op: &Op) -> Operands {
    let ty = |v: ValueId| file.values.get(v as usize).and_then(|x| x.ty);
    let mut o = Operands {
        vregs: Vec::new(),
        vreg_ins: 0,
        masks: Vec::new(),
        mask_ins: 0,
        mems: Vec::new(),
        scalars: Vec::new(),
    };
    let add = |v: ValueId, is_in: bool, o: &mut Operands| {
        let Some(t) = ty(v) else { return };
        let tt = file.types.get(t);
        match vmi_of(tt) {
            Some(vr @ Vmi::Vreg { .. }) => {
                let Vmi::Vreg { elem, .. } = &vr else {
                    return;
                };
                if let Some(e) = El::parse(elem) {
                    o.vregs.push((vr, e));
                    if is_in {
                        o.vreg_ins += 1;
                    }
                }
            }
            Some(m @ Vmi::Mask { .. }) => {
                o.masks.push(m);
                if is_in {
                    o.mask_ins += 1;
                }
            }
            None if is_in => match tt {
                Type::Ptr { .. } | Type::Shaped { .. } => o.mems.push(t),
                t2 if t2.is_scalar() => o.scalars.push(t),
                _ => {}
            },
            None => {}
        }
    };
    for v in op.uses() {
        add(v, true, &mut o);
    }
    for v in op.result_values() {
        add(v, false, &mut o);
    }
    o
}

/// Element-type classes of VMI compute ops.
#[derive(Clone, Copy)]
enum Class {
    /// i8/i16/i32 or f16/bf16/f32.
    Arith,
    /// i16/i32 or f16/bf16/f32.
    Mul,
    /// i16/i32 or f16/f32.
    MulS,
    /// i8/i16/i32 or f16/f32.
    Neg,
    /// f16 or f32.
    F16F32,
    /// f16, bf16 or f32.
    Float3,
    /// si8/si16/si32 or f16/bf16/f32.
    Abs,
    /// si32 (or signless i32 treated as signed) or f16/f32.
    Relu,
    /// Integer or index.
    IntLike,
    /// Integer.
    Int,
}

impl Class {
    fn ok(self, e: &El, text: &str) -> bool {
        let f16f32 = matches!(text, "f16" | "f32");
        let f3 = matches!(text, "f16" | "bf16" | "f32");
        match self {
            Class::Arith => e.int_of(&[8, 16, 32]) || f3,
            Class::Mul => e.int_of(&[16, 32]) || f3,
            Class::MulS => e.int_of(&[16, 32]) || f16f32,
            Class::Neg => e.int_of(&[8, 16, 32]) || f16f32,
            Class::F16F32 => f16f32,
            Class::Float3 => f3,
            Class::Abs => (e.kind == Kind::Int(Sign::Signed) && e.int_of(&[8, 16, 32])) || f3,
            Class::Relu => (e.kind == Kind::Int(Sign::Signed) && e.bits == 32) || f16f32,
            Class::IntLike => e.int_like(),
            Class::Int => e.int(),
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Class::Arith => "requires i8, i16, i32, f16, bf16, or f32 VMI element type",
            Class::Mul => "requires i16, i32, f16, bf16, or f32 VMI element type",
            Class::MulS => "requires i16, i32, f16, or f32 VMI element type",
            Class::Neg => "requires i8, i16, i32, f16, or f32 VMI element type",
            Class::F16F32 => "requires f16 or f32 VMI element type",
            Class::Float3 => "requires f16, bf16, or f32 VMI element type",
            Class::Abs => "requires si8, si16, si32, f16, bf16, or f32 VMI element type",
            Class::Relu => "requires si32, f16, or f32 VMI element type",
            Class::IntLike => "requires integer-like VMI element type",
            Class::Int => "requires integer VMI element type",
        }
    }
}

/// The shape rule of an op over its data values.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    /// Every data value has the same lane count and element type.
    Same,
    /// Same lane count; element types may differ.
    SameLanes,
}

fn op_rule(name: &str) -> Option<(Option<Class>, Shape)> {
    use Class::*;
    let r = match name {
        "pto.vmi.vadd" | "pto.vmi.vsub" | "pto.vmi.vmin" | "pto.vmi.vmax" | "pto.vmi.vadds"
        | "pto.vmi.vmaxs" | "pto.vmi.vmins" => (Some(Arith), Shape::Same),
        "pto.vmi.vmul" => (Some(Mul), Shape::Same),
        "pto.vmi.vmuls" => (Some(MulS), Shape::Same),
        "pto.vmi.vneg" => (Some(Neg), Shape::Same),
        "pto.vmi.vdiv" | "pto.vmi.vsqrt" | "pto.vmi.vexp" | "pto.vmi.vln" => {
            (Some(F16F32), Shape::Same)
        }
        "pto.vmi.addf" | "pto.vmi.subf" | "pto.vmi.mulf" | "pto.vmi.fma" => {
            (Some(Float3), Shape::Same)
        }
        "pto.vmi.vabs" => (Some(Abs), Shape::Same),
        "pto.vmi.vrelu" => (Some(Relu), Shape::Same),
        "pto.vmi.vand" | "pto.vmi.vor" | "pto.vmi.vxor" | "pto.vmi.vnot" | "pto.vmi.vshl"
        | "pto.vmi.andi" | "pto.vmi.ori" | "pto.vmi.xori" | "pto.vmi.shli" | "pto.vmi.not"
        | "pto.vmi.vshls" | "pto.vmi.vshrs" => (Some(IntLike), Shape::Same),
        "pto.vmi.vshr" | "pto.vmi.shrui" | "pto.vmi.shrsi" => (Some(Int), Shape::Same),
        "pto.vmi.divf" | "pto.vmi.minf" | "pto.vmi.maxf" | "pto.vmi.negf" | "pto.vmi.absf"
        | "pto.vmi.addi" | "pto.vmi.subi" | "pto.vmi.muli" | "pto.vmi.mini" | "pto.vmi.maxi"
        | "pto.vmi.negi" | "pto.vmi.absi" | "pto.vmi.sqrt" | "pto.vmi.exp" | "pto.vmi.ln"
        | "pto.vmi.relu" | "pto.vmi.vsel" | "pto.vmi.select" | "pto.vmi.vintlv"
        | "pto.vmi.vdintlv" | "pto.vmi.compress" | "pto.vmi.vmula" => (None, Shape::Same),
        "pto.vmi.vcmp" | "pto.vmi.vcmps" => (Some(Arith), Shape::SameLanes),
        _ => return None,
    };
    Some(r)
}

/// Runs the VMI rules for `op`, appending messages (without the op name).
pub(crate) fn check(file: &File, op: &Op, e: &mut Vec<String>) {
    let name = op.opcode.name();
    if !name.starts_with("pto.vmi.") {
        return;
    }
    let o = classify(file, op);
    let rule = op_rule(name);
    let mask_logic = matches!(
        name,
        "pto.vmi.vand"
            | "pto.vmi.vor"
            | "pto.vmi.vxor"
            | "pto.vmi.vnot"
            | "pto.vmi.mask_and"
            | "pto.vmi.mask_or"
            | "pto.vmi.mask_xor"
            | "pto.vmi.mask_not"
    ) && o.vregs.is_empty();
    if mask_logic {
        same_masks(&o.masks, e);
        return;
    }
    match name {
        "pto.vmi.constant" | "pto.vmi.constant_mask" => return constant(file, op, &o, e),
        "pto.vmi.vinterpret_cast" | "pto.vmi.bitcast" => return bitcast(&o, e),
        "pto.vmi.vcvt" => {
            convert(op, &o, e);
            if e.is_empty() {
                vcvt(op, &o, e);
            }
            return;
        }
        "pto.vmi.shuffle" => return shuffle(op, &o, e),
        "pto.vmi.channel_split" | "pto.vmi.channel_merge" => return channels(name, &o, e),
        "pto.vmi.active_prefix_index" => {
            if let Some((r, re)) = o.vregs.last() {
                if re.kind != Kind::Int(Sign::Signless) {
                    e.push("requires signless integer result element type".into());
                } else if !matches!(re.bits, 8 | 16 | 32) {
                    e.push("requires i8, i16, or i32 result element type".into());
                } else {
                    mask_matches(o.masks.first(), r, re, e);
                }
            }
            return;
        }
        "pto.vmi.vcadd" => {
            if let Some((s, se)) = o.vregs.first() {
                let float = matches!(se.kind, Kind::Float | Kind::LowFloat);
                if vreg_elem(s) == "!pto.bf16x2" {
                    e.push(
                        "does not support bf16x2 VMI element type; bf16x2 is conversion-only"
                            .into(),
                    );
                } else if float && op.attr("reassoc").is_none() {
                    e.push("floating add-reduction requires reassoc attr (vcadd adds pairwise, not in order)".into());
                } else if se.int_like() && !se.int_of(&[32]) && op.attr("group").is_none() {
                    // the whole-vector integer add-reduction exists for 32-bit
                    // lanes only (grouped reductions widen narrower lanes)
                    e.push(format!(
                        "integer add-reduction requires 32-bit integer source element type, got {}",
                        vreg_elem(s)
                    ));
                } else {
                    mask_matches(o.masks.first(), s, se, e);
                }
            }
            return;
        }
        "pto.vmi.vcmp" | "pto.vmi.vcmps" => {
            if let Some(cmp) = op.attr("cmp").and_then(Attr::enum_value) {
                let ints = o.vregs.first().is_some_and(|(_, el)| el.int_like());
                if ints && cmp.starts_with('o') {
                    e.push(format!(
                        "requires integer compare predicate eq/ne/lt/le/gt/ge (signedness comes from the element type), got '{cmp}'"
                    ));
                    return;
                }
                if !matches!(
                    cmp,
                    "eq" | "ne"
                        | "lt"
                        | "le"
                        | "gt"
                        | "ge"
                        | "oeq"
                        | "one"
                        | "olt"
                        | "ole"
                        | "ogt"
                        | "oge"
                ) {
                    e.push(format!(
                        "unsupported compare predicate '{cmp}'; expected eq/ne/lt/le/gt/ge, or oeq/one/olt/ole/ogt/oge"
                    ));
                    return;
                }
            }
        }
        "pto.vmi.vdhist" | "pto.vmi.vchist" => {
            // acc, source -> result: 128 or 256 unsigned 16-bit bins counting
            // unsigned bytes
            let [(acc, ae), (src, se), ..] = o.vregs.as_slice() else {
                return;
            };
            let unsigned = |el: &El| el.kind != Kind::Int(Sign::Signed);
            if !(ae.int_of(&[16]) && unsigned(ae) && matches!(acc.lanes(), 128 | 256)) {
                e.push("requires acc type to be !pto.vmi.vreg<128x{ui16|i16}> (Bin_N0-only) or !pto.vmi.vreg<256x{ui16|i16}>".into());
            } else if !(se.int_of(&[8]) && unsigned(se)) {
                e.push("requires source type to be !pto.vmi.vreg<Nx{ui8|i8}> (interpreted as unsigned)".into());
            } else if o.masks.first().is_some_and(|m| m.lanes() != src.lanes()) {
                e.push("requires mask logical lane count to match source".into());
            }
            return;
        }
        "pto.vmi.ensure_layout" | "pto.vmi.ensure_mask_layout" => {
            let all: Vec<&Vmi> = o
                .vregs
                .iter()
                .map(|(v, _)| v)
                .chain(o.masks.iter())
                .collect();
            if let [a, b] = all.as_slice() {
                if a.lanes() != b.lanes() || vreg_elem(a) != vreg_elem(b) {
                    e.push(
                        "requires source and result to preserve VMI shape and element type".into(),
                    );
                } else if layout(a).is_none() || layout(b).is_none() {
                    e.push("requires source and result to be layout-assigned".into());
                }
            }
            return;
        }
        "pto.vmi.ensure_mask_granularity" => {
            if let [a, b] = o.masks.as_slice() {
                if a.lanes() != b.lanes() {
                    e.push("requires source and result to preserve VMI mask lane count".into());
                } else if vreg_elem(a) == "pred" || vreg_elem(b) == "pred" {
                    e.push("requires concrete source and result mask granularities".into());
                } else if layout(a).is_some() != layout(b).is_some() {
                    e.push("requires either both source and result to carry layout or neither to carry layout".into());
                }
            }
            return;
        }
        "pto.vmi.vselr" => {
            let [(src, se), (idx, ie), (res, _)] = o.vregs.as_slice() else {
                return;
            };
            if vreg_elem(src) != vreg_elem(res) {
                e.push("requires result element type to match source element type".into());
            } else if idx.lanes() != res.lanes() {
                e.push("requires index lane count to match result lane count".into());
            } else if !ie.int() {
                e.push("requires index element type to be integer".into());
            } else if ie.bits != se.bits {
                e.push(format!(
                    "requires index element storage width to match source element storage width ({} vs {})",
                    ie.bits, se.bits
                ));
            }
            return;
        }
        "pto.vmi.pack" | "pto.vmi.unpack" => {
            // the physical side: !pto.vreg / !pto.mask values
            let (vmi, parts) = if name.ends_with("unpack") {
                (op.uses().next(), op.result_values().collect::<Vec<_>>())
            } else {
                (op.result_values().next(), op.uses().collect::<Vec<_>>())
            };
            let Some(t) = vmi.and_then(|v| file.values.get(v as usize)?.ty) else {
                return;
            };
            let Some(v) = vmi_of(file.types.get(t)) else {
                return;
            };
            if let Some(want) = physical_arity(&v) {
                if want != parts.len() as i64 {
                    e.push(format!(
                        "requires {want} physical parts, got {}",
                        parts.len()
                    ));
                }
            }
            return;
        }
        "pto.vmi.vmula" => {
            // multiply-accumulate lowers to a fused multiply-add: floats only
            if let Some((v, _)) = o.vregs.first() {
                if !matches!(vreg_elem(v), "f16" | "bf16" | "f32") {
                    e.push(format!(
                        "multiply-accumulate is a fused multiply-add and requires f16, bf16, or f32 VMI element type, got {}",
                        vreg_elem(v)
                    ));
                    return;
                }
            }
            same_vregs(&o.vregs, true, e);
            return;
        }
        "pto.vmi.reduce_addi" => {
            if let Some((_, se)) = o.vregs.first() {
                if !se.int_of(&[32]) {
                    e.push("requires 32-bit integer source element type".into());
                }
            }
            return;
        }
        "pto.vmi.extf" | "pto.vmi.truncf" | "pto.vmi.fptosi" | "pto.vmi.fptoui"
        | "pto.vmi.sitofp" | "pto.vmi.extsi" | "pto.vmi.extui" | "pto.vmi.trunci" => {
            return convert(op, &o, e)
        }
        "pto.vmi.vgather" | "pto.vmi.vgatherb" | "pto.vmi.vscatter" | "pto.vmi.gather"
        | "pto.vmi.scatter" => return gather(file, name, &o, e),
        "pto.vmi.vload"
        | "pto.vmi.load"
        | "pto.vmi.vstore"
        | "pto.vmi.store"
        | "pto.vmi.vsstb"
        | "pto.vmi.masked_load"
        | "pto.vmi.masked_store" => return memory(file, op, &o, e),
        "pto.vmi.vexpdif" => {
            if let [(x, xe), (m, _), ..] = o.vregs.as_slice() {
                if !matches!(vreg_elem(x), "f16" | "f32") {
                    e.push("requires x element type to be f16 or f32".into());
                } else if vreg_elem(x) != vreg_elem(m) {
                    e.push("requires x and max to have the same element type".into());
                } else {
                    mask_matches(o.masks.first(), x, xe, e);
                }
            }
            return;
        }
        "pto.vmi.vaddc" | "pto.vmi.vaddcs" => {
            if let Some((v, el)) = o.vregs.first() {
                if !el.int_of(&[32]) {
                    e.push("requires 32-bit integer vector element types".into());
                    return;
                }
                same_vregs(&o.vregs, true, e);
                if e.is_empty() {
                    for m in &o.masks {
                        if m.lanes() != v.lanes() {
                            e.push(
                                "requires mask logical lane count to match data lane count".into(),
                            );
                            break;
                        }
                    }
                }
            }
            return;
        }
        "pto.vmi.create_group_mask" => {
            let n = op.attr("num_groups").and_then(Attr::as_int);
            let g = op.attr("group_size").and_then(Attr::as_int);
            if let (Some(n), Some(g), Some(m)) = (n, g, o.masks.last()) {
                if n > 0 && g > 0 && m.lanes() as i128 != n.saturating_mul(g) {
                    e.push(format!(
                        "requires result lane count ({}) to equal num_groups * group_size ({n} * {g})",
                        m.lanes()
                    ));
                }
            }
            return;
        }
        "pto.vmi.vci" | "pto.vmi.iota" | "pto.vmi.group_iota" => {
            if let Some(ord) = op.attr("order").and_then(Attr::enum_value) {
                if ord != "ASC" && ord != "DESC" {
                    e.push(format!("requires order to be ASC or DESC, got '{ord}'"));
                }
            }
            return;
        }
        "pto.vmi.vbrc" | "pto.vmi.broadcast" => {
            if op.attr("num_groups").is_some() || op.attr("group").is_some() {
                return;
            }
            let Some((r, _)) = o.vregs.last() else { return };
            if o.vreg_ins == 1 {
                let (s, _) = &o.vregs[0];
                if s.lanes() != 1 {
                    e.push("requires VMI vector input to have one logical lane".into());
                } else if vreg_elem(s) != vreg_elem(r) {
                    e.push(
                        "requires VMI vector input element type to match result element type"
                            .into(),
                    );
                }
            } else if let Some(s) = o.scalars.first() {
                let st = crate::printer::type_str(&file.types, *s);
                if st != vreg_elem(r) {
                    e.push(format!(
                        "requires scalar or VMI vector input element type to match result element type ({st} vs {})",
                        vreg_elem(r)
                    ));
                }
            }
            return;
        }
        _ => {}
    }
    let Some((class, shape)) = rule else { return };
    let Some((first, fe)) = o.vregs.first() else {
        return;
    };
    if vreg_elem(first) == "!pto.bf16x2" && class.is_some() {
        e.push("does not support bf16x2 VMI element type; bf16x2 is conversion-only".into());
        return;
    }
    if let Some(c) = class {
        if !c.ok(fe, vreg_elem(first)) {
            e.push(c.describe().into());
            return;
        }
    }
    if matches!(name, "pto.vmi.vshls" | "pto.vmi.vshrs") {
        if let Some(s) = o.scalars.first() {
            if !matches!(file.types.get(*s), Type::Int(16)) {
                e.push(format!(
                    "operand #1 must be 16-bit signless integer (the shift amount), got {}",
                    crate::printer::type_str(&file.types, *s)
                ));
                return;
            }
        }
    }
    let data: Vec<(Vmi, El)> = if shape == Shape::SameLanes {
        o.vregs[..o.vreg_ins].to_vec()
    } else {
        o.vregs.clone()
    };
    match shape {
        Shape::Same => same_vregs(&data, true, e),
        Shape::SameLanes => same_vregs(&data, false, e),
    }
    if !e.is_empty() {
        return;
    }
    // the predication mask (an operand) matches the data it predicates
    if o.mask_ins > 0 && !matches!(name, "pto.vmi.vcmp" | "pto.vmi.vcmps") {
        let (r, re) = o.vregs.last().map_or((first, fe), |(v, el)| (v, el));
        mask_matches(o.masks.first(), r, re, e);
    }
}

fn vreg_elem(v: &Vmi) -> &str {
    match v {
        Vmi::Vreg { elem, .. } => elem,
        Vmi::Mask { gran, .. } => gran,
    }
}

fn layout(v: &Vmi) -> &Option<String> {
    match v {
        Vmi::Vreg { layout, .. } | Vmi::Mask { layout, .. } => layout,
    }
}

fn same_vregs(vs: &[(Vmi, El)], same_elem: bool, e: &mut Vec<String>) {
    let Some((first, _)) = vs.first() else { return };
    let any_layout = vs.iter().any(|(v, _)| layout(v).is_some());
    for (v, _) in vs {
        if v.lanes() != first.lanes() {
            e.push(format!(
                "requires all VMI data values to have the same logical lane count ({} vs {})",
                first.lanes(),
                v.lanes()
            ));
            return;
        }
        if same_elem && vreg_elem(v) != vreg_elem(first) {
            e.push(format!(
                "requires all VMI data values to have the same element type ({} vs {})",
                vreg_elem(first),
                vreg_elem(v)
            ));
            return;
        }
        if any_layout && layout(v).is_none() {
            e.push("requires either all or no VMI data values to carry layout".into());
            return;
        }
    }
}

fn same_masks(ms: &[Vmi], e: &mut Vec<String>) {
    let Some(first) = ms.first() else { return };
    for m in ms {
        if m.lanes() != first.lanes() {
            e.push(format!(
                "requires all VMI mask values to have the same logical lane count ({} vs {})",
                first.lanes(),
                m.lanes()
            ));
            return;
        }
        if vreg_elem(m) != vreg_elem(first) {
            e.push(format!(
                "requires all VMI mask values to have the same granularity ({} vs {})",
                vreg_elem(first),
                vreg_elem(m)
            ));
            return;
        }
    }
}

fn mask_matches(m: Option<&Vmi>, data: &Vmi, el: &El, e: &mut Vec<String>) {
    let Some(m) = m else { return };
    if m.lanes() != data.lanes() {
        e.push(format!(
            "requires mask logical lane count to match data lane count ({} vs {})",
            m.lanes(),
            data.lanes()
        ));
        return;
    }
    if let Some(g) = gran_bits(vreg_elem(m)) {
        if g != el.bits {
            e.push(format!(
                "requires mask granularity to match data element width (mask {}, data {})",
                vreg_elem(m),
                vreg_elem(data)
            ));
        }
    }
}

fn constant(file: &File, op: &Op, o: &Operands, e: &mut Vec<String>) {
    let is_mask = op.opcode.name() == "pto.vmi.constant_mask";
    let Some(value) = op.attr("value") else {
        return;
    };
    let what = if is_mask { "dense mask" } else { "dense" };
    let dense = match value {
        Attr::Array(a) => match a.as_slice() {
            [Attr::Keyword { kw, .. }, Attr::Type(t)] if kw == "dense" => Some(*t),
            _ => None,
        },
        _ => None,
    };
    let Some(t) = dense else {
        e.push(format!(
            "requires {} constant attribute",
            if is_mask {
                "dense elements mask"
            } else {
                "dense elements"
            }
        ));
        return;
    };
    let Type::Shaped { shape, elem, .. } = file.types.get(t) else {
        return;
    };
    let count: Option<i64> = shape
        .iter()
        .try_fold(1i64, |a, d| d.and_then(|d| a.checked_mul(d)));
    let elem_s = crate::printer::type_str(&file.types, *elem);
    let (lanes, want) = if is_mask {
        let Some(m) = o.masks.last() else { return };
        (m.lanes(), "i1".to_string())
    } else {
        let Some((r, _)) = o.vregs.last() else { return };
        (r.lanes(), vreg_elem(r).to_string())
    };
    if elem_s != want {
        e.push(if is_mask {
            format!("requires dense mask constant element type to be i1, got {elem_s}")
        } else {
            format!("requires dense constant element type to match result element type ({elem_s} vs {want})")
        });
    } else if count.is_some_and(|c| c != lanes) {
        e.push(format!(
            "requires {what} constant element count to match result logical lane count ({} vs {lanes})",
            count.unwrap_or(0)
        ));
    }
}

fn bitcast(o: &Operands, e: &mut Vec<String>) {
    if let [(s, se), (r, re)] = o.vregs.as_slice() {
        let a = s.lanes().saturating_mul(se.bits as i64);
        let b = r.lanes().saturating_mul(re.bits as i64);
        if a != b {
            e.push(format!(
                "requires source and result to carry the same total number of bits ({a} vs {b})"
            ));
        }
    }
}

fn convert(op: &Op, o: &Operands, e: &mut Vec<String>) {
    if let [(s, se), (r, re)] = o.vregs.as_slice() {
        if s.lanes() != r.lanes() {
            e.push(format!(
                "requires source and result logical lane counts to match ({} vs {})",
                s.lanes(),
                r.lanes()
            ));
            return;
        }
        // the integer extensions: signedness names the extension
        let signed = |x: &El| x.kind == Kind::Int(Sign::Signed);
        let unsigned = |x: &El| matches!(x.kind, Kind::Int(Sign::Unsigned | Sign::Signless));
        let msg = match op.opcode.name() {
            "pto.vmi.extsi" if !(signed(se) && signed(re)) => {
                Some("requires signed integer source and result element types")
            }
            "pto.vmi.extui" if !(unsigned(se) && unsigned(re)) => {
                Some("requires unsigned or signless integer source and result element types")
            }
            "pto.vmi.extsi" | "pto.vmi.extui" if se.bits >= re.bits => {
                Some("requires result element type to be wider than source element type")
            }
            "pto.vmi.trunci" if !(se.int_like() && re.int_like()) => {
                Some("requires integer source and result element types")
            }
            "pto.vmi.trunci" if se.bits <= re.bits => {
                Some("requires result element type to be narrower than source element type")
            }
            "pto.vmi.sitofp" if !signed(se) => Some("requires signed integer source element type"),
            _ => None,
        };
        if let Some(m) = msg {
            e.push(m.into());
            return;
        }
    }
    if let Some(sat) = op.attr("saturate").and_then(Attr::enum_value) {
        if sat != "SAT" && sat != "NOSAT" {
            e.push(format!(
                "saturate attr must be 'SAT' or 'NOSAT', got '{sat}'"
            ));
            return;
        }
    }
    if let Some(rnd) = op
        .attr("rounding")
        .or_else(|| op.attr("rnd"))
        .and_then(Attr::enum_value)
    {
        if !matches!(rnd, "R" | "A" | "H" | "Z" | "F" | "C" | "O") {
            e.push(format!(
                "rounding must be one of R, A, F, C, Z, O, H, got '{rnd}'"
            ));
        }
    }
}

/// Whether a memory operand type may live in UB: a pointer or memref whose
/// address space, when written, is the vector buffer.
fn ub_backed(file: &File, m: TypeId) -> bool {
    match file.types.get(m) {
        Type::Ptr { space, .. } => space
            .as_deref()
            .is_none_or(|s| matches!(s, "ub" | "vec" | "6")),
        Type::Shaped { rest, .. } => rest
            .as_deref()
            .is_none_or(|r| !(r.contains("gm") || r.contains("mat") || r.contains("l1"))),
        _ => true,
    }
}

fn gather(file: &File, name: &str, o: &Operands, e: &mut Vec<String>) {
    // gathers read and scatters write the vector buffer only
    if let Some(m) = o.mems.first() {
        if !ub_backed(file, *m) {
            let role = if name.ends_with("scatter") {
                "destination"
            } else {
                "source"
            };
            e.push(format!("requires memory {role} to be UB-backed"));
            return;
        }
    }
    // vgather: src, offsets, mask -> result; vscatter: value, dst, offsets, mask
    let offsets = if name.ends_with("scatter") {
        o.vregs.get(1)
    } else {
        o.vregs.first()
    };
    let Some((_, oe)) = offsets else { return };
    let ok = oe.int() && oe.kind != Kind::Int(Sign::Signed) && matches!(oe.bits, 16 | 32);
    if !ok {
        e.push("requires signless or unsigned 16-bit or 32-bit integer offsets".into());
        return;
    }
    if name == "pto.vmi.vgatherb" {
        return;
    }
    same_vregs(&o.vregs, false, e);
}

fn memory(file: &File, op: &Op, o: &Operands, e: &mut Vec<String>) {
    let name = op.opcode.name();
    let Some((data, de)) = o.vregs.first() else {
        return;
    };
    let store = name.contains("store") || name.contains("sstb");
    if store {
        if let Some(p) = op.attr("pmode").and_then(Attr::enum_value) {
            if p != "zero" {
                e.push(format!(
                    "pmode \"{p}\" is not supported for stores: a store cannot keep the destination's old contents on inactive lanes (omit pmode)"
                ));
                return;
            }
        }
    }
    // a group store may pack 32-bit integer data into bytes
    let packed_group = store
        && op.attr("group").is_some()
        && de.int_of(&[32])
        && o.mems.first().is_some_and(|m| {
            matches!(file.types.get(*m), Type::Ptr { elem, .. } | Type::Shaped { elem, .. }
                if matches!(file.types.get(*elem), Type::Int(8) | Type::UInt(8) | Type::SInt(8)))
        });
    let role = if store { "destination" } else { "source" };
    if let Some(m) = o.mems.first() {
        if !ub_backed(file, *m) {
            e.push(format!("requires memory {role} to be UB-backed"));
            return;
        }
        let me = match file.types.get(*m) {
            Type::Ptr { elem, .. } | Type::Shaped { elem, .. } => {
                Some(crate::printer::type_str(&file.types, *elem))
            }
            _ => None,
        };
        if let (Some(me), false) = (me, packed_group) {
            if me != vreg_elem(data) {
                e.push(format!(
                    "requires memory {role} element type to match VMI data element type ({me} vs {})",
                    vreg_elem(data)
                ));
                return;
            }
        }
    }
    same_vregs(&o.vregs, true, e);
    if e.is_empty() && store {
        mask_matches(o.masks.first(), data, de, e);
    }
}

fn is(e: &str, names: &[&str]) -> bool {
    names.contains(&e)
}

/// `pto.vmi.vcvt`: the conversion direction follows from the element
/// kinds and widths; rounding, saturation and supported pairs follow from it.
fn vcvt(op: &Op, o: &Operands, e: &mut Vec<String>) {
    let [(s, se), (r, re)] = o.vregs.as_slice() else {
        return;
    };
    let (st, dt) = (vreg_elem(s), vreg_elem(r));
    let fp = |x: &El| matches!(x.kind, Kind::Float | Kind::LowFloat);
    let fp4 = |t: &str| t.starts_with("!pto.f4");
    let bf16x2 = |t: &str| t == "!pto.bf16x2";
    // fp->fp pairs with a special contract: (rounding required, saturation required)
    let fp_contract = if fp(se) && fp(re) {
        if (bf16x2(st) && fp4(dt)) || (fp4(st) && bf16x2(dt)) {
            Some(false)
        } else if st == "bf16" && dt == "f16" {
            Some(true)
        } else {
            None
        }
    } else {
        None
    };
    if (bf16x2(st) || bf16x2(dt)) && fp_contract.is_none() {
        e.push("unsupported conversion involving bf16x2 element type".into());
        return;
    }
    let packed = |t: &str| fp4(t) || t == "!pto.hif8x2";
    if fp(se) && fp(re) && (packed(st) || packed(dt)) && fp_contract.is_none() {
        e.push(format!(
            "unsupported packed fp-to-fp conversion element type pair ({st} -> {dt})"
        ));
        return;
    }
    #[derive(PartialEq)]
    enum Dir {
        FpWiden,
        FpNarrow,
        FpToSi,
        FpToUi,
        SiToFp,
        IntWiden,
        IntNarrow,
    }
    let dir = if fp(se) && fp(re) {
        if re.bits > se.bits {
            Dir::FpWiden
        } else if re.bits < se.bits {
            Dir::FpNarrow
        } else if fp_contract.is_none() {
            e.push(format!(
                "same-width fp-to-fp conversion is not supported for {st} -> {dt}"
            ));
            return;
        } else {
            Dir::FpNarrow
        }
    } else if fp(se) && re.int_like() {
        if re.kind == Kind::Int(Sign::Signed) {
            Dir::FpToSi
        } else {
            Dir::FpToUi
        }
    } else if se.int_like() && fp(re) {
        if se.kind != Kind::Int(Sign::Signed) {
            e.push(
                "int-to-fp conversion requires explicitly signed integer source element type"
                    .into(),
            );
            return;
        }
        Dir::SiToFp
    } else if se.int_like() && re.int_like() {
        if re.bits > se.bits {
            Dir::IntWiden
        } else if re.bits < se.bits {
            Dir::IntNarrow
        } else {
            e.push("int-to-int conversion must change element bit-width".into());
            return;
        }
    } else {
        return;
    };
    if let Some(rnd) = op.attr("rounding").and_then(Attr::enum_value) {
        if !matches!(dir, Dir::FpNarrow | Dir::FpToSi | Dir::FpToUi) {
            e.push("'rounding' attribute is only valid for floating-point narrowing or floating-point-to-integer conversions".into());
            return;
        }
        let ok = if dir == Dir::FpNarrow {
            if fp_contract == Some(false) {
                matches!(rnd, "R" | "A" | "F" | "Z" | "C")
            } else {
                matches!(rnd, "R" | "A" | "H" | "Z")
            }
        } else {
            matches!(rnd, "R" | "A" | "F" | "C" | "Z")
        };
        if !ok {
            e.push(if dir == Dir::FpNarrow {
                format!("rounding must be 'R' (nearest-even), 'A' (away-from-zero), 'H' (half-up), or 'Z' (toward-zero), got '{rnd}'")
            } else {
                format!("rounding must be 'R', 'A', 'F', 'C', or 'Z' for floating-point-to-integer conversions, got '{rnd}'")
            });
            return;
        }
    }
    let sat = op.attr("saturate").and_then(Attr::enum_value);
    let ibits = re.bits;
    match dir {
        Dir::FpToSi | Dir::FpToUi => {
            // supported pairs and whether they can overflow (need a saturate mode)
            let contract = if dir == Dir::FpToSi {
                match (st, ibits) {
                    ("f32", 32) | ("f32", 16) | ("f16", 16) | ("f16", 8) | ("bf16", 32) => {
                        Some(true)
                    }
                    ("f16", 32) => Some(false),
                    _ => None,
                }
            } else {
                match (st, ibits) {
                    ("f16", 8) => Some(true),
                    _ => None,
                }
            };
            let what = if dir == Dir::FpToSi {
                "fp-to-si"
            } else {
                "fp-to-ui"
            };
            match (contract, sat) {
                (None, _) => e.push(format!(
                    "unsupported {what} conversion element type pair ({st} -> {dt})"
                )),
                (Some(true), None) => e.push(format!(
                    "'saturate' attribute is required for this {what} conversion; write 'SAT' or 'NOSAT'"
                )),
                (Some(false), Some(_)) => e.push(format!(
                    "'saturate' attribute is not valid for this {what} conversion (no overflow possible)"
                )),
                _ => {}
            }
        }
        _ => {
            let need =
                dir == Dir::IntNarrow || (dir == Dir::FpNarrow && fp_contract != Some(false));
            if need {
                // (a narrowing without a saturate mode is accepted: kernels in
                // the corpus rely on the default)
                match sat {
                    Some("SAT")
                        if dir == Dir::IntNarrow
                            && is(st, &["si32"])
                            && is(dt, &["si8"]) =>
                    {
                        e.push("si32 -> si8 int-narrow does not support saturate=\"SAT\" (no native form; use \"NOSAT\")".into())
                    }
                    _ => {}
                }
            } else if sat.is_some() {
                e.push(if dir == Dir::FpNarrow {
                    "'saturate' attribute is not valid for this fp-to-fp narrow conversion (no saturation)".into()
                } else {
                    "'saturate' attribute is only valid for fp-narrow / int-narrow conversions".into()
                });
            }
        }
    }
}

fn shuffle(op: &Op, o: &Operands, e: &mut Vec<String>) {
    let [(s, _), (r, _)] = o.vregs.as_slice() else {
        return;
    };
    if vreg_elem(s) != vreg_elem(r) {
        e.push("requires result element type to match source element type".into());
        return;
    }
    let idx: Vec<i128> = match op.attr("indices") {
        Some(Attr::Keyword { body, .. }) => body
            .split(|c: char| c == ',' || c == ':' || c.is_whitespace())
            .filter_map(|t| t.trim().parse::<i128>().ok())
            .collect(),
        Some(Attr::Array(a)) => a.iter().filter_map(Attr::as_int).collect(),
        _ => return,
    };
    if idx.len() as i64 != r.lanes() {
        e.push(format!(
            "requires shuffle index count ({}) to match result logical lane count ({})",
            idx.len(),
            r.lanes()
        ));
    } else if let Some(bad) = idx.iter().find(|i| **i < 0 || **i >= s.lanes() as i128) {
        e.push(format!(
            "requires every shuffle index to select an existing source logical lane (index {bad}, source has {})",
            s.lanes()
        ));
    }
}

fn channels(name: &str, o: &Operands, e: &mut Vec<String>) {
    let split = name.ends_with("split");
    let (wide, parts): (&(Vmi, El), &[(Vmi, El)]) = if split {
        let Some(w) = o.vregs.first() else { return };
        (w, &o.vregs[1..])
    } else {
        let Some(w) = o.vregs.last() else { return };
        (w, &o.vregs[..o.vregs.len() - 1])
    };
    if parts.len() < 2 {
        e.push(format!(
            "requires at least two channel {}",
            if split { "results" } else { "inputs" }
        ));
        return;
    }
    let first = &parts[0].0;
    if parts
        .iter()
        .any(|(p, _)| p.lanes() != first.lanes() || vreg_elem(p) != vreg_elem(&wide.0) && split)
    {
        e.push(
            "requires every channel result to have equal lane count and source element type".into(),
        );
        return;
    }
    if !split
        && parts
            .iter()
            .any(|(p, _)| p.lanes() != first.lanes() || vreg_elem(p) != vreg_elem(first))
    {
        e.push("requires all channel inputs to have the same lane count and element type".into());
        return;
    }
    let total = first.lanes().saturating_mul(parts.len() as i64);
    if split && wide.0.lanes() != total {
        e.push(format!(
            "requires source lane count ({}) to equal result count times per-channel lane count ({} x {})",
            wide.0.lanes(),
            parts.len(),
            first.lanes()
        ));
        return;
    }
    if !split && (wide.0.lanes() != total || vreg_elem(&wide.0) != vreg_elem(first)) {
        e.push("requires result lane count and element type to match merged channels".into());
        return;
    }
    // layouts: channels contiguous; the wide value contiguous or deinterleaved by the count
    let any = layout(&wide.0).is_some() || parts.iter().any(|(p, _)| layout(p).is_some());
    if !any {
        return;
    }
    let contiguous = |l: &Option<String>| {
        l.as_deref()
            .is_some_and(|l| l.starts_with("#pto.vmi.layout<contiguous"))
    };
    if parts.iter().any(|(p, _)| !contiguous(layout(p))) {
        e.push(
            format!(
                "requires layout-assigned {name} {} to be contiguous",
                if split { "results" } else { "inputs" }
            )
            .replace("pto.vmi.", ""),
        );
        return;
    }
    let n = parts.len();
    if n == 2 || n == 4 {
        let want = format!("#pto.vmi.layout<deinterleaved={n}>");
        let wl = layout(&wide.0).clone().unwrap_or_default();
        if !contiguous(layout(&wide.0)) && wl != want {
            e.push(if split {
                "requires layout-assigned channel_split source to be contiguous or deinterleaved by result count".into()
            } else {
                "requires layout-assigned channel_merge result to be contiguous or deinterleaved by input count".into()
            });
        }
    }
}

/// How many physical registers carry a VMI value, for the dense layouts
/// (contiguous or deinterleaved without lane stride); `None` when the layout
/// is absent or not one of those.
fn physical_arity(v: &Vmi) -> Option<i64> {
    let (n, per_part, l) = match v {
        Vmi::Vreg {
            lanes,
            elem,
            layout,
        } => {
            let bits = El::parse(elem)?.bits as i64;
            if bits == 0 || 2048 % bits != 0 {
                return None;
            }
            (*lanes, 2048 / bits, layout.as_deref()?)
        }
        Vmi::Mask {
            lanes,
            gran,
            layout,
        } => {
            let per = match gran.as_str() {
                "b8" => 256,
                "b16" => 128,
                "b32" => 64,
                _ => return None,
            };
            (*lanes, per, layout.as_deref()?)
        }
    };
    let body = l.strip_prefix("#pto.vmi.layout<")?.strip_suffix('>')?;
    let f: i64 = if body == "contiguous" {
        1
    } else {
        body.strip_prefix("deinterleaved=")?.parse().ok()?
    };
    if !(1..=64).contains(&f) {
        return None;
    }
    Some(
        (0..f)
            .map(|p| {
                let in_part = (n - p + f - 1).max(0) / f;
                (in_part + per_part - 1) / per_part
            })
            .sum(),
    )
}
