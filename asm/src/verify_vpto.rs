//! Rules of the vector micro-ops (`pto.v*`, predicate and special-register
//! loads/stores): element types a compute op accepts, conversion part and
//! rounding modes, gather/scatter offset widths, store distributions' mask
//! granularity, and post-update results. Each reports at the op.

use pto_isa_spec::ProfileId;

use crate::ast::{File, Op, ValueId};
use crate::attr::Attr;
use crate::ty::{Type, TypeId};

/// An element type as the vector ops see it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum E {
    /// Integer: bits, unsigned, explicitly signed.
    Int(u32, bool, bool),
    /// f16, bf16, f32...: bits and whether bf16.
    Float(u32, bool),
    /// A low-precision float (fp8, hif8, e8m0, packed fp4, bf16x2): storage bits,
    /// and whether it is a packed fp4 pair.
    Low(u32, bool),
}

impl E {
    fn of(t: &Type) -> Option<E> {
        Some(match t {
            Type::Int(w) => E::Int(*w, false, false),
            Type::SInt(w) => E::Int(*w, false, true),
            Type::UInt(w) => E::Int(*w, true, false),
            Type::Float(s) => match s.as_str() {
                "f16" => E::Float(16, false),
                "bf16" => E::Float(16, true),
                "f32" | "tf32" => E::Float(32, false),
                "f64" => E::Float(64, false),
                _ if s.starts_with("f8") => E::Low(8, false),
                _ => return None,
            },
            Type::Opaque { name, params: None } => match name.as_str() {
                "pto.hif8" | "pto.f8E8M0" | "pto.e8m0" => E::Low(8, false),
                "pto.f4E2M1x2" | "pto.f4E1M2x2" => E::Low(8, true),
                "pto.hif8x2" => E::Low(16, false),
                "pto.bf16x2" => E::Low(32, false),
                _ => return None,
            },
            _ => return None,
        })
    }

    fn bits(self) -> u32 {
        match self {
            E::Int(b, ..) | E::Float(b, _) | E::Low(b, _) => b,
        }
    }
}

/// A vector register operand: its element and type.
#[derive(Clone, Copy)]
struct V {
    el: Option<E>,
    ty: TypeId,
}

struct Ops<'a> {
    file: &'a File,
    /// Operand values in order.
    ins: Vec<ValueId>,
    /// Result values in order.
    outs: Vec<ValueId>,
}

impl<'a> Ops<'a> {
    fn ty(&self, v: ValueId) -> Option<TypeId> {
        self.file.values.get(v as usize)?.ty
    }
    fn vreg(&self, v: ValueId) -> Option<V> {
        let t = self.ty(v)?;
        match self.file.types.get(t) {
            Type::VReg { elem, .. } => Some(V {
                el: E::of(self.file.types.get(*elem)),
                ty: t,
            }),
            _ => None,
        }
    }
    fn vregs(&self, vals: &[ValueId]) -> Vec<V> {
        vals.iter().filter_map(|v| self.vreg(*v)).collect()
    }
    fn mask(&self, vals: &[ValueId]) -> Option<String> {
        vals.iter()
            .find_map(|v| match self.file.types.get(self.ty(*v)?) {
                Type::Mask(g) => Some(g.trim().to_string()),
                _ => None,
            })
    }
    fn ptrs(&self, vals: &[ValueId]) -> Vec<TypeId> {
        vals.iter()
            .filter_map(|v| self.ty(*v))
            .filter(|t| matches!(self.file.types.get(*t), Type::Ptr { .. }))
            .collect()
    }
    fn ptr_elem(&self, t: TypeId) -> Option<E> {
        match self.file.types.get(t) {
            Type::Ptr { elem, .. } => E::of(self.file.types.get(*elem)),
            _ => None,
        }
    }
    fn show(&self, t: TypeId) -> String {
        crate::printer::type_str(&self.file.types, t)
    }
}

/// String-valued attribute `k` (dictionary or `k = "v"`), if any.
fn str_attr<'o>(op: &'o Op, k: &str) -> Option<&'o str> {
    op.attr(k).and_then(Attr::enum_value)
}

/// Runs the vector micro-op rules for `op`, appending messages.
pub(crate) fn check(file: &File, profile: ProfileId, op: &Op, e: &mut Vec<String>) {
    let name = op.opcode.name();
    if name.starts_with("pto.vmi.") || !name.starts_with("pto.") {
        return;
    }
    let o = Ops {
        file,
        ins: op.uses().collect(),
        outs: op.result_values().collect(),
    };
    // the raw repeat-strided UB instructions address UB only
    if name.starts_with("pto.ub.") {
        let off_ub = o.ptrs(&o.ins).into_iter().find(|t| {
            matches!(file.types.get(*t), Type::Ptr { space: Some(sp), .. } if sp != "ub" && sp != "vec")
        });
        if let Some(t) = off_ub {
            e.push(format!("requires UB-backed operands, got {}", o.show(t)));
        }
        return;
    }
    post_update(name, &o, e);
    if !e.is_empty() {
        return;
    }
    let short = &name[4..];
    // compute ops whose first vector operand must not be low precision
    let role = match short {
        "vadd" | "vsub" | "vmul" | "vdiv" | "vmax" | "vmin" => Some("lhs"),
        "vmuls" | "vadds" | "vmaxs" | "vmins" | "vlrelu" => Some("input"),
        "vexp" | "vln" | "vsqrt" | "vneg" | "vrelu" | "vabs" | "vsqz" | "vcadd" | "vcmax"
        | "vcmin" | "vshl" | "vshr" => Some("operand"),
        "vsel" => Some("src0"),
        _ => None,
    };
    let vin = o.vregs(&o.ins);
    // elementwise ops keep their vector type: a result declared as another
    // type (f32 lanes in, `vreg<128xf16>` out) would otherwise run silently
    // with the declared type ignored (PTOAS's verifiers, same messages)
    let same = match short {
        "vabs" | "vexp" | "vln" | "vsqrt" | "vneg" | "vrelu" | "vnot" => {
            Some("requires matching register vector shape")
        }
        "vadd" | "vsub" | "vmul" | "vdiv" | "vand" | "vor" | "vxor" => {
            Some("requires matching register vector shapes")
        }
        "vmax" | "vmin" => Some("lhs, rhs, and result must have the same vector type"),
        "vadds" | "vmuls" | "vmaxs" | "vmins" | "vlrelu" => {
            Some("requires input and result to have matching vector types")
        }
        _ => None,
    };
    if let Some(msg) = same {
        let tys: Vec<TypeId> = vin.iter().chain(&o.vregs(&o.outs)).map(|v| v.ty).collect();
        if tys.windows(2).any(|w| w[0] != w[1]) {
            let list: Vec<String> = tys.iter().map(|t| o.show(*t)).collect();
            e.push(format!("{msg}, got {}", list.join(", ")));
            return;
        }
    }
    // bitwise ops see low-precision lanes only as raw 8-bit payloads
    if matches!(short, "vand" | "vor" | "vxor" | "vnot") {
        if let Some(v) = vin.first() {
            if matches!(v.el, Some(E::Low(bits, _)) if bits != 8) {
                let el = match file.types.get(v.ty) {
                    Type::VReg { elem, .. } => crate::printer::type_str(&file.types, *elem),
                    _ => o.show(v.ty),
                };
                let el = el.trim_start_matches("!pto.");
                e.push(format!(
                    "does not support {el} vector elements; low-precision bitwise operations require an 8-bit payload type"
                ));
                return;
            }
        }
    }
    if let (Some(role), Some(v)) = (role, vin.first()) {
        if matches!(v.el, Some(E::Low(..))) {
            e.push(format!(
                "{role} type must not use low-precision vector element type ({}); low-precision vector elements are only supported by memory and conversion ops (vlds/vsts/vcvt/vmulscvt/vpack)",
                o.show(v.ty)
            ));
            return;
        }
    }
    match short {
        "vrelu" => {
            if let Some(el) = vin.first().and_then(|v| v.el) {
                let ok = match el {
                    E::Int(b, unsigned, _) => b == 32 && !unsigned,
                    E::Float(b, bf) => !bf && (b == 16 || b == 32),
                    E::Low(..) => false,
                };
                if !ok {
                    e.push("requires si32/i32/f16/f32 vector element type".into());
                }
            }
        }
        "vdiv" if profile == ProfileId::A5 => {
            if let (Some(v), Some(m)) = (vin.first(), o.mask(&o.ins)) {
                if let Some(E::Int(b, unsigned, _)) = v.el {
                    let ok = (b == 16 && !unsigned && m == "b16") || (b == 32 && m == "b32");
                    if !ok {
                        e.push(format!(
                            "integer division on A5 supports only signed or signless i16 vectors with a b16 mask and i32 vectors with a b32 mask, not '{}' with '!pto.mask<{m}>'",
                            o.show(v.ty)
                        ));
                    }
                }
            }
        }
        "vcvt" => vcvt(op, &o, e),
        "vmulscvt" => {
            let strs: Vec<&str> = op
                .immediates()
                .into_iter()
                .filter_map(|i| match i {
                    crate::ast::Imm::Attr(Attr::Str(s)) => Some(s.as_str()),
                    _ => None,
                })
                .collect();
            let rnd = str_attr(op, "rnd").or(strs.first().copied());
            let part = str_attr(op, "part").or(strs.get(1).copied());
            if let Some(r) = rnd {
                if r != "A" && r != "ROUND_A" {
                    e.push(format!("currently only supports rnd A, got {r}"));
                    return;
                }
            }
            if let Some(p) = part {
                if !matches!(p, "EVEN" | "ODD" | "PART_EVEN" | "PART_ODD") {
                    e.push(format!("part must be EVEN or ODD, got {p}"));
                }
            }
        }
        "vgather2" => vgather2(&o, e),
        "vscatter" => {
            if let [val, offs, ..] = vin.as_slice() {
                let (Some(ve), Some(E::Int(ob, ..))) = (val.el, offs.el) else {
                    return;
                };
                let want = if ve.bits() == 32 { 32 } else { 16 };
                if matches!(ve.bits(), 8 | 16 | 32) && ob != want {
                    e.push(format!(
                        "requires {want}-bit offset vector elements for {}-bit values",
                        ve.bits()
                    ));
                }
            }
        }
        "vsts" => {
            let Some(dist) = str_attr(op, "dist") else {
                return;
            };
            let want = match dist {
                "MRG4CHN_B8" | "MRG2CHN_B16" | "PK_B32" | "PK_B64" | "PK4_B32" => "b32",
                "MRG2CHN_B8" | "PK_B16" => "b16",
                _ => return,
            };
            if let Some(m) = o.mask(&o.ins) {
                if !m.is_empty() && m != want {
                    e.push(format!(
                        "mask type must be !pto.mask<{want}> for dist {dist}, got !pto.mask<{m}>"
                    ));
                }
            }
        }
        _ => {}
    }
}

/// A load or store that returns its advanced base pointer returns it with the
/// base's own type.
fn post_update(name: &str, o: &Ops, e: &mut Vec<String>) {
    let short = &name[4..];
    let memory = short.starts_with("vld")
        || short.starts_with("vst")
        || short.starts_with("vsld")
        || short.starts_with("vsst")
        || matches!(
            short,
            "plds" | "pldi" | "psts" | "psti" | "sprsti" | "sprsts"
        );
    if !memory {
        return;
    }
    let Some(base) = o.ptrs(&o.ins).first().copied() else {
        return;
    };
    if let Some(upd) = o.ptrs(&o.outs).first() {
        if *upd != base {
            let what = if short == "vldus" { "source" } else { "base" };
            e.push(format!(
                "requires updated base result to match {what} type ({} vs {})",
                o.show(*upd),
                o.show(base)
            ));
        }
    }
}

fn vcvt(op: &Op, o: &Ops, e: &mut Vec<String>) {
    let (Some(s), Some(r)) = (
        o.vregs(&o.ins).first().copied(),
        o.vregs(&o.outs).first().copied(),
    ) else {
        return;
    };
    let (Some(se), Some(re)) = (s.el, r.el) else {
        return;
    };
    let Some(part) = str_attr(op, "part") else {
        return;
    };
    let part = part.trim_start_matches("PART_");
    let packed_fp4 = matches!(se, E::Low(_, true)) || matches!(re, E::Low(_, true));
    let (hi, lo) = (se.bits().max(re.bits()), se.bits().min(re.bits()).max(1));
    let family = if packed_fp4 || hi / lo == 4 {
        Some(true)
    } else if hi / lo == 2 {
        Some(false)
    } else {
        None
    };
    let even_odd = matches!(part, "EVEN" | "ODD");
    let packed = matches!(part, "P0" | "P1" | "P2" | "P3");
    if !even_odd && !packed {
        e.push(format!(
            "part must be one of EVEN/ODD/P0/P1/P2/P3, got {part}"
        ));
        return;
    }
    match family {
        Some(true) if !packed => {
            e.push("part must be P0, P1, P2, or P3 for packed vcvt forms".into())
        }
        Some(false) if !even_odd => {
            e.push("part must be EVEN or ODD for 8/16 and 16/32 vcvt forms".into())
        }
        _ => {}
    }
}

fn vgather2(o: &Ops, e: &mut Vec<String>) {
    let Some(src) = o.ptrs(&o.ins).first().and_then(|p| o.ptr_elem(*p)) else {
        return;
    };
    let (Some(offs), Some(res)) = (
        o.vregs(&o.ins).first().copied(),
        o.vregs(&o.outs).first().copied(),
    ) else {
        return;
    };
    let (Some(oe), Some(re)) = (offs.el, res.el) else {
        return;
    };
    let (want_off, want_mask) = match src {
        E::Int(8, su, _) => {
            let ok = matches!(re, E::Int(16, ru, _) if ru == su);
            if !ok {
                e.push("8-bit gather requires i8/ui8 source and matching i16/ui16 result".into());
                return;
            }
            (16, "b16")
        }
        E::Int(16, ..) | E::Float(16, _) => (16, "b16"),
        E::Int(32, ..) | E::Float(32, _) => (32, "b32"),
        _ => return,
    };
    match oe {
        E::Int(b, _, signed) if b == want_off && !signed => {}
        _ => {
            e.push(format!(
                "requires ui{want_off}/i{want_off} offset vector elements, got {}",
                o.show(offs.ty)
            ));
            return;
        }
    }
    if let Some(m) = o.mask(&o.ins) {
        if !m.is_empty() && m != want_mask {
            e.push(format!(
                "mask type must be !pto.mask<{want_mask}>, got !pto.mask<{m}>"
            ));
        }
    }
}
