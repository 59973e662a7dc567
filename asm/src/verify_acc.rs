//! Rules of the structured accumulator stores (`pto.mte_l0c_gm`,
//! `pto.mte_l0c_ub`, `pto.mte_l0c_l1`): L0C results leave through FIXPIPE,
//! whose clauses (`unit_flag`, `pre_quant`, `pre_relu`, layout, `loop3`,
//! `sat`, `atomic`, `dst_mode`) must fit the source and destination element
//! types and each other. Each rule reports at the store.

use std::collections::HashMap;

use crate::ast::{Elem, File, Op, Punct, ValueId};
use crate::attr::Attr;
use crate::ty::{Type, TypeId};

/// A clause: its keyword and the elements between its parentheses.
struct Clause<'o> {
    name: String,
    args: &'o [Elem],
}

/// A bare word: an identifier, or an attribute spelled as one.
fn word(e: &Elem) -> Option<&str> {
    match e {
        Elem::Ident(s) => Some(s),
        Elem::Attr(Attr::Keyword { kw, body }) if body.is_empty() => Some(kw),
        Elem::Attr(Attr::Str(s)) => Some(s),
        _ => None,
    }
}

/// Positional operands and clauses of the op's text (before the type list).
fn clauses(op: &Op) -> (Vec<ValueId>, Vec<Clause<'_>>) {
    let body = &op.body;
    let mut pos = Vec::new();
    let mut out = Vec::new();
    let mut i = 0;
    while i < body.len() {
        match &body[i] {
            Elem::P(Punct::Colon) => break,
            Elem::Use(v) if out.is_empty() => pos.push(*v),
            e => {
                if let Some(w) = word(e) {
                    let mut args: &[Elem] = &[];
                    if body.get(i + 1) == Some(&Elem::P(Punct::LParen)) {
                        let start = i + 2;
                        let mut depth = 1;
                        let mut j = start;
                        while j < body.len() {
                            match body[j] {
                                Elem::P(Punct::LParen) => depth += 1,
                                Elem::P(Punct::RParen) => {
                                    depth -= 1;
                                    if depth == 0 {
                                        break;
                                    }
                                }
                                _ => {}
                            }
                            j += 1;
                        }
                        args = &body[start..j.min(body.len())];
                        i = j;
                    }
                    out.push(Clause {
                        name: w.to_string(),
                        args,
                    });
                }
            }
        }
        i += 1;
    }
    (pos, out)
}

/// The value of `key = ...` inside clause arguments: a word or a use.
fn keyed<'a>(args: &'a [Elem], key: &str) -> Option<&'a Elem> {
    args.windows(3).find_map(|w| match w {
        [k, Elem::P(Punct::Equal), v] if word(k) == Some(key) => Some(v),
        _ => None,
    })
}

/// The first use in `args` that is not the value of a `key = %v` pair.
fn payload(args: &[Elem]) -> Option<ValueId> {
    for (i, e) in args.iter().enumerate() {
        if let Elem::Use(v) = e {
            let keyed = i >= 2 && args[i - 1] == Elem::P(Punct::Equal);
            if !keyed {
                return Some(*v);
            }
        }
    }
    None
}

struct Ctx<'a> {
    file: &'a File,
    defs: &'a HashMap<ValueId, &'a Op>,
}

impl Ctx<'_> {
    fn ty(&self, v: ValueId) -> Option<&Type> {
        let t = self.file.values.get(v as usize)?.ty?;
        Some(self.file.types.get(t))
    }
    fn show(&self, t: TypeId) -> String {
        crate::printer::type_str(&self.file.types, t)
    }
    /// Element type of a pointer value and its address space.
    fn ptr(&self, v: ValueId) -> Option<(TypeId, Option<String>)> {
        match self.ty(v)? {
            Type::Ptr { elem, space } => Some((*elem, space.clone())),
            _ => None,
        }
    }
    /// The integer a value is defined as by `arith.constant`.
    fn const_int(&self, v: ValueId) -> Option<i128> {
        let d = self.defs.get(&v)?;
        if d.opcode.name() != "arith.constant" {
            return None;
        }
        d.body.iter().find_map(|e| match e {
            Elem::Attr(Attr::Int { value, .. }) => Some(*value),
            _ => None,
        })
    }
    fn is_f16_bf16_f32(&self, t: &Type) -> bool {
        matches!(t, Type::Float(s) if matches!(s.as_str(), "f16" | "bf16" | "f32"))
    }
    /// A scaling-buffer (FB) pointer payload with an f16/bf16/f32 element.
    fn scaling_payload(&self, v: Option<ValueId>) -> Result<(), &'static str> {
        let Some((elem, space)) = v.and_then(|v| self.ptr(v)) else {
            return Err("requires scaling pointer payload");
        };
        if !matches!(space.as_deref(), Some("fb" | "scaling")) {
            return Err("requires scaling pointer payload");
        }
        if !self.is_f16_bf16_f32(self.file.types.get(elem)) {
            return Err("requires scaling pointer element type to be f16, bf16, or f32");
        }
        Ok(())
    }
}

/// Destination family of a pre_quant mode.
fn quant_dst_ok(mode: &str, dst: &Type) -> bool {
    let f = |s: &str| matches!(dst, Type::Float(x) if x == s);
    let int = |w: u32, unsigned_ok: bool| match dst {
        Type::Int(x) | Type::SInt(x) => *x == w,
        Type::UInt(x) => *x == w && unsigned_ok,
        _ => false,
    };
    match mode {
        "f32_f16" | "qf322f16_pre_vec" | "qf322f16_pre_scalar" | "deqf16_vec" | "deqf16_scalar" => {
            f("f16")
        }
        "f32_bf16"
        | "qf322bf16_pre_vec"
        | "qf322bf16_pre_scalar"
        | "qs322bf16_pre_vec"
        | "qs322bf16_pre_scalar" => f("bf16"),
        "qf322f32_pre_vec" | "qf322f32_pre_scalar" => f("f32"),
        m if m.starts_with("qf322hif8") || m.starts_with("qf322fp8") => {
            matches!(dst, Type::Float(x) if x.starts_with("f8"))
                || matches!(dst, Type::Opaque { name, .. } if name.contains("hif8"))
        }
        "deqs32_int_vec" | "deqs32_int_scalar" => int(32, true),
        "qf162s16_pre_vec" | "qf162s16_pre_scalar" | "deqs16_vec" | "deqs16_scalar" => {
            int(16, false)
        }
        m if m.contains("b8") || m.starts_with("req8") => int(8, true),
        m if m.contains("s4") || m.starts_with("req4") => int(4, true),
        _ => true,
    }
}

fn float_src_mode(m: &str) -> bool {
    m == "f32_f16" || m == "f32_bf16" || m.starts_with("qf32") || m.starts_with("qf16")
}

fn int_src_mode(m: &str) -> bool {
    m.starts_with("deq")
        || m.starts_with("req")
        || m.starts_with("qf162s16")
        || m.starts_with("qs32")
}

/// Runs the accumulator-store rules for `op`.
pub(crate) fn check(file: &File, defs: &HashMap<ValueId, &Op>, op: &Op, e: &mut Vec<String>) {
    let name = op.opcode.name();
    let target = match name {
        "pto.mte_l0c_gm" => "gm",
        "pto.mte_l0c_ub" => "ub",
        "pto.mte_l0c_l1" => "l1",
        _ => return,
    };
    let c = Ctx { file, defs };
    let (pos, cl) = clauses(op);
    let (Some(src), Some(dst)) = (pos.first(), pos.get(1)) else {
        return;
    };
    let (Some((se, _)), Some((de, _))) = (c.ptr(*src), c.ptr(*dst)) else {
        return;
    };
    let (sty, dty) = (file.types.get(se), file.types.get(de));
    let find = |n: &str| cl.iter().find(|x| x.name == n);
    if cl
        .iter()
        .filter(|x| x.name == "sat" || x.name == "nosat")
        .count()
        > 1
    {
        e.push("duplicate sat/nosat clause".into());
        return;
    }
    // pre_quant: payload kind, source and destination element types
    if let Some(pq) = find("pre_quant") {
        let mode = keyed(pq.args, "mode").and_then(word).unwrap_or("");
        let p = payload(pq.args);
        if mode != "no_convert" && !mode.is_empty() {
            if mode.ends_with("_vec") {
                if let Err(m) = c.scaling_payload(p) {
                    e.push(format!("vector pre_quant mode {m}"));
                    return;
                }
            } else if !p
                .and_then(|v| c.ty(v))
                .is_some_and(|t| c.is_f16_bf16_f32(t))
            {
                e.push("scalar pre_quant mode requires f16/bf16/f32 payload".into());
                return;
            }
            let src_ok = match sty {
                Type::Float(s) if s == "f32" => float_src_mode(mode),
                Type::Int(32) | Type::SInt(32) => int_src_mode(mode),
                _ => true,
            };
            if !src_ok || !quant_dst_ok(mode, dty) {
                e.push(format!(
                    "pre_quant mode {mode} is incompatible with source element type '{}' and destination element type '{}'",
                    c.show(se),
                    c.show(de)
                ));
                return;
            }
        }
    }
    // pre_relu: payload per mode, clip per destination type
    if let Some(pr) = find("pre_relu") {
        let mode = keyed(pr.args, "mode").and_then(word).unwrap_or("");
        let p = payload(pr.args);
        let clip = match keyed(pr.args, "clip") {
            Some(Elem::Use(v)) => Some(*v),
            _ => None,
        };
        if let Some(cv) = clip {
            let ct = c.ty(cv);
            let msg = match dty {
                Type::Float(s) if s == "f16" => (!matches!(ct, Some(Type::Float(x)) if x == "f16"))
                    .then_some("clip for f16 destination requires f16 payload"),
                Type::UInt(8) => (!matches!(ct, Some(Type::Int(16) | Type::UInt(16))))
                    .then_some("clip for ui8 destination requires ui16/signless i16 payload"),
                Type::Int(4 | 8 | 16) | Type::SInt(4 | 8 | 16) => (!matches!(ct,
                    Some(Type::Int(4 | 8 | 16) | Type::SInt(4 | 8 | 16))))
                .then_some("clip for signed 4/8/16-bit destination requires signed/signless i4/i8/i16 payload"),
                _ => {
                    e.push(format!(
                        "clip requires destination element type to be f16, ui8, or signed 4/8/16-bit integer, got {}",
                        c.show(de)
                    ));
                    return;
                }
            };
            if let Some(m) = msg {
                e.push(m.into());
                return;
            }
        }
        match mode {
            "no_relu" | "normal_relu" if p.is_some() => {
                e.push(format!("pre_relu mode {mode} does not accept a payload"));
                return;
            }
            "scalar_relu" => {
                let Some(p) = p else {
                    e.push("scalar_relu requires payload".into());
                    return;
                };
                if !c.ty(p).is_some_and(|t| c.is_f16_bf16_f32(t)) {
                    e.push("scalar_relu requires f16/bf16/f32 payload".into());
                    return;
                }
            }
            "vector_relu" => {
                if let Err(m) = c.scaling_payload(p) {
                    e.push(format!("vector_relu {m}"));
                    return;
                }
            }
            "pwl" => {
                e.push(format!(
                    "pwl pre_relu mode is not supported for target_profile mte_l0c_{target}"
                ));
                return;
            }
            _ => {}
        }
    }
    // layout clauses
    if let Some(l) = find("nz2dn") {
        let stride = l.args.iter().find_map(|x| match x {
            Elem::Use(v) => Some(*v),
            _ => None,
        });
        let Some(stride) = stride else {
            e.push("nz2dn requires loop0_src_stride".into());
            return;
        };
        let unit_on = find("unit_flag")
            .and_then(|u| u.args.first().and_then(word))
            .is_some_and(|m| m != "off");
        if unit_on && c.const_int(stride) != Some(1) {
            e.push("unit_flag must be off when nz2dn loop0_src_stride is not 1".into());
            return;
        }
    }
    if find("nz2nz").is_some() && !matches!(dty, Type::Float(s) if s == "f32") {
        e.push(format!(
            "nz2nz requires destination element type to be f32, got {}",
            c.show(de)
        ));
        return;
    }
    if find("atomic").is_some() && target != "gm" {
        e.push("atomic is only supported for mte_l0c_gm".into());
        return;
    }
    if target == "ub" {
        if let Some(dm) = find("dst_mode") {
            let mode = match dm.args.first() {
                Some(Elem::Use(_)) => None,
                Some(x) => match word(x) {
                    Some(w @ ("split_m" | "split_n")) => Some(w),
                    _ => {
                        e.push("expected dst_mode(%sub_blockid), dst_mode(split_m), or dst_mode(split_n)".into());
                        return;
                    }
                },
                None => None,
            };
            if let Some(mode) = mode {
                let transforms = ["pre_quant", "pre_relu", "nz2dn", "nz2nz", "loop3"];
                if cl.iter().any(|x| transforms.contains(&x.name.as_str())) {
                    e.push("dual destination mode cannot be combined with pre_quant, pre_relu, clip, nz2dn, nz2nz, or loop3".into());
                    return;
                }
                let m = pos.get(2).and_then(|v| c.const_int(*v));
                let n = pos.get(3).and_then(|v| c.const_int(*v));
                if mode == "split_m" && m.is_some_and(|m| m % 2 != 0) {
                    e.push(format!(
                        "split-M dual destination requires m to be even, got {}",
                        m.unwrap_or(0)
                    ));
                } else if mode == "split_n" && n.is_some_and(|n| n % 32 != 0) {
                    e.push(format!(
                        "split-N dual destination requires n to be a multiple of 32, got {}",
                        n.unwrap_or(0)
                    ));
                }
            }
        }
    }
}
