//! Rules of the cube-side buffer micro-ops: L1 -> L0A/L0B loads
//! (`pto.load_cbuf_to_c{a,b}*`, `pto.mte_l1_l0{a,b}*`), the L1 raw fill
//! (`pto.raw_fill_l1`, `pto.create_cbuf_matrix`) and `pto.mad`: the address
//! spaces each moves between, the element types it takes, and the ranges of
//! the hardware control fields its scalar operands fill.

use std::collections::HashMap;

use crate::ast::{Elem, File, Op, ValueId};
use crate::attr::Attr;
use crate::ty::{Type, TypeId};

/// On-chip address space of a pointer or memref operand.
fn space_of(file: &File, t: TypeId) -> Option<&'static str> {
    let raw = match file.types.get(t) {
        Type::Ptr { space, .. } => space.clone()?,
        Type::Shaped { rest, .. } => {
            let r = rest.as_deref()?;
            let i = r.find("address_space<")? + "address_space<".len();
            r[i..].split('>').next()?.trim().to_string()
        }
        _ => return None,
    };
    Some(match raw.to_ascii_lowercase().as_str() {
        "gm" => "gm",
        "ub" | "vec" => "vec",
        "l1" | "mat" | "cbuf" => "mat",
        "l0a" | "left" | "ca" => "left",
        "l0b" | "right" | "cb" => "right",
        "l0c" | "acc" | "cc" => "acc",
        "fb" | "scaling" => "scaling",
        _ => return None,
    })
}

fn elem_of(file: &File, t: TypeId) -> Option<&Type> {
    match file.types.get(t) {
        Type::Ptr { elem, .. } | Type::Shaped { elem, .. } => Some(file.types.get(*elem)),
        _ => None,
    }
}

fn fp4(t: &Type) -> bool {
    matches!(t, Type::Opaque { name, params: None } if name.starts_with("pto.f4"))
}

struct Ctx<'a> {
    file: &'a File,
    defs: &'a HashMap<ValueId, &'a Op>,
}

impl Ctx<'_> {
    fn ty(&self, v: ValueId) -> Option<TypeId> {
        self.file.values.get(v as usize)?.ty
    }
    /// The integer an `arith.constant` defines.
    fn const_int(&self, v: ValueId) -> Option<i128> {
        let d = self.defs.get(&v)?;
        if d.opcode.name() != "arith.constant" {
            return None;
        }
        let mut neg = false;
        for e in &d.body {
            match e {
                Elem::P(crate::ast::Punct::Minus) => neg = true,
                Elem::Attr(Attr::Int { value, .. }) => {
                    return Some(if neg { -value } else { *value })
                }
                _ => {}
            }
        }
        None
    }
    /// Checks a constant control field against `lo..=hi`.
    fn field(&self, v: Option<&ValueId>, name: &str, lo: i128, hi: i128, e: &mut Vec<String>) {
        let Some(x) = v.and_then(|v| self.const_int(*v)) else {
            return;
        };
        if x < lo {
            e.push(match lo {
                0 => format!("{name} must be non-negative, got {x}"),
                _ => format!("{name} must be greater than zero, got {x}"),
            });
        } else if x > hi {
            e.push(format!(
                "{name} must be <= {hi} to fit the hardware control field, got {x}"
            ));
        }
    }
}

/// Runs the cube buffer rules for `op`.
pub(crate) fn check(file: &File, defs: &HashMap<ValueId, &Op>, op: &Op, e: &mut Vec<String>) {
    let name = op.opcode.name();
    let c = Ctx { file, defs };
    let uses: Vec<ValueId> = op.uses().collect();
    let Some(short) = name.strip_prefix("pto.") else {
        return;
    };
    if short.starts_with("load_cbuf_to_c") || short.starts_with("mte_l1_l0") {
        load_l1_l0(&c, short, op, &uses, e);
    } else if short == "raw_fill_l1" || short == "create_cbuf_matrix" {
        raw_fill(&c, short, op, &uses, e);
    } else if matches!(short, "mad" | "mad_acc" | "mad_bias") {
        mad(&c, op, &uses, e);
    } else if short.starts_with("mad_mx") && has_word(op, "tf32_mode") {
        // the MX forms decode fp8/fp4 operands: there is no tf32 rounding
        // to choose, and their syntax has no tf32_mode clause
        e.push(format!(
            "takes no tf32_mode clause (only pto.mad, pto.mad_acc and pto.mad_bias do); expected ':' after the {} clauses",
            name
        ));
    }
}

/// Whether `op`'s custom syntax carries the bare keyword `w`.
fn has_word(op: &Op, w: &str) -> bool {
    op.body.iter().any(|x| match x {
        Elem::Ident(s) => s == w,
        Elem::Attr(Attr::Keyword { kw, .. }) => kw == w,
        _ => false,
    })
}

fn load_l1_l0(c: &Ctx, short: &str, op: &Op, uses: &[ValueId], e: &mut Vec<String>) {
    let (Some(src), Some(dst)) = (
        uses.first().and_then(|v| c.ty(*v)),
        uses.get(1).and_then(|v| c.ty(*v)),
    ) else {
        return;
    };
    let to_left = short.starts_with("load_cbuf_to_ca") || short.starts_with("mte_l1_l0a");
    if let Some(s) = space_of(c.file, src) {
        if s != "mat" {
            e.push(format!("requires MAT source, got {s}"));
            return;
        }
    }
    let want = if to_left { "left" } else { "right" };
    if let Some(d) = space_of(c.file, dst) {
        if d != want {
            e.push(format!(
                "requires {} destination, got {d}",
                want.to_uppercase()
            ));
            return;
        }
    }
    let (se, de) = (elem_of(c.file, src), elem_of(c.file, dst));
    let s4 = short.ends_with("_s4");
    if short.starts_with("load_cbuf_to_c") && !short.ends_with("_mx") {
        if s4 {
            if se.is_some_and(|t| !fp4(t)) {
                e.push("requires packed FP4 source element type f4e1m2x2 or f4e2m1x2".into());
                return;
            }
            if de.is_some_and(|t| !fp4(t)) {
                e.push("requires packed FP4 destination element type f4e1m2x2 or f4e2m1x2".into());
                return;
            }
            if let (Some(a), Some(b)) = (se, de) {
                if a != b {
                    e.push(
                        "requires source and destination packed FP4 element types to match".into(),
                    );
                    return;
                }
            }
        } else if se.is_some_and(fp4) {
            e.push("packed FP4 source requires the S4 load operation".into());
            return;
        } else if de.is_some_and(fp4) {
            e.push("packed FP4 destination requires the S4 load operation".into());
            return;
        }
        // m_start, k_start, m_step, k_step, src_stride, dst_stride[, transpose]
        let f = &uses[2..];
        let fields: [(&str, i128, i128); 7] = [
            ("m_start", 0, 65535),
            ("k_start", 0, 65535),
            ("m_step", 1, 255),
            ("k_step", 1, 255),
            ("src_stride", 1, 65535),
            ("dst_stride", 1, 65535),
            ("transpose", 0, 1),
        ];
        for (i, (n, lo, hi)) in fields.iter().enumerate() {
            c.field(f.get(i), n, *lo, *hi, e);
            if !e.is_empty() {
                return;
            }
        }
    } else if short.starts_with("mte_l1_l0") {
        mte_l1_l0_form(c, short, op, uses, e);
    }
}

/// The operand forms of `pto.mte_l1_l0{a,b}[_mx]`: four shape-derived
/// operands (m/k or k/n, start_row, start_col) or six full hardware control
/// operands, positionally or as named clauses, never mixed or partial.
fn mte_l1_l0_form(c: &Ctx, short: &str, op: &Op, uses: &[ValueId], e: &mut Vec<String>) {
    use crate::ast::Punct;
    let mx = short.ends_with("_mx");
    let b_side = short.starts_with("mte_l1_l0b");
    let body = &op.body;
    let mut named: Vec<(&str, ValueId)> = Vec::new();
    for w in body.windows(4) {
        if let [Elem::Ident(k), Elem::P(Punct::LParen), Elem::Use(v), Elem::P(Punct::RParen)] = w {
            named.push((k.as_str(), *v));
        }
    }
    let shape: [&str; 4] = if b_side {
        ["k", "n", "start_row", "start_col"]
    } else {
        ["m", "k", "start_row", "start_col"]
    };
    let full: [&str; 6] = if mx {
        [
            "x_start",
            "y_start",
            "x_step",
            "y_step",
            "src_stride",
            "dst_stride",
        ]
    } else {
        [
            "m_start",
            "k_start",
            "m_step",
            "k_step",
            "src_stride",
            "dst_stride",
        ]
    };
    let tag = if mx { " MX" } else { "" };
    let fields: Vec<(&str, ValueId)> = if named.is_empty() {
        let pos = &uses[2.min(uses.len())..];
        match pos.len() {
            4 => shape.iter().copied().zip(pos.iter().copied()).collect(),
            6 => full.iter().copied().zip(pos.iter().copied()).collect(),
            _ => {
                e.push(format!(
                    "expects either four shape-derived or six full positional{tag} operands, got {}",
                    pos.len()
                ));
                return;
            }
        }
    } else {
        let has_shape = named.iter().any(|(k, _)| shape.contains(k));
        let has_full = named.iter().any(|(k, _)| full.contains(k));
        if has_shape && has_full {
            e.push(if mx {
                "cannot mix shape-derived MX operands with full MX operands".into()
            } else {
                "cannot mix shape-derived operands with full control operands".into()
            });
            return;
        }
        let (need, form): (&[&str], &str) = if has_shape {
            (&shape, "shape-derived")
        } else {
            (&full, if mx { "full MX" } else { "full control" })
        };
        let form = if has_shape && mx {
            "shape-derived MX"
        } else {
            form
        };
        if let Some(missing) = need.iter().find(|k| !named.iter().any(|(n, _)| n == *k)) {
            e.push(format!("{form} form requires {missing}"));
            return;
        }
        named.clone()
    };
    for (k, v) in &fields {
        if matches!(*k, "start_row" | "start_col") || full.contains(k) {
            c.field(Some(v), k, 0, i128::MAX, e);
            if !e.is_empty() {
                return;
            }
        }
    }
    if mx {
        // LOAD.MX addresses: source 32-byte, destination 16-byte aligned
        for (i, (what, align)) in [("source", 32), ("destination", 16)].iter().enumerate() {
            let addr = uses
                .get(i)
                .and_then(|v| c.defs.get(v))
                .filter(|d| d.opcode.name() == "pto.castptr")
                .and_then(|d| d.uses().next())
                .and_then(|a| c.const_int(a));
            if let Some(a) = addr.filter(|a| a % align != 0) {
                e.push(format!(
                    "statically known LOAD.MX {what} address must be aligned to {align} bytes, got {a}"
                ));
                return;
            }
        }
    }
}

fn raw_fill(c: &Ctx, short: &str, op: &Op, uses: &[ValueId], e: &mut Vec<String>) {
    let Some(dst) = uses.first().and_then(|v| c.ty(*v)) else {
        return;
    };
    if let Some(s) = space_of(c.file, dst) {
        if s != "mat" {
            let shown = match s {
                "vec" => "vec/ub",
                "mat" => "mat/l1",
                x => x,
            };
            e.push(format!(
                "requires dst in the mat/l1 address space, got {shown}"
            ));
            return;
        }
    }
    let bits = op.attr("fill_word_bits").and_then(Attr::as_int);
    if short == "create_cbuf_matrix" {
        let el = elem_of(c.file, dst);
        let view = match el {
            Some(Type::UInt(w @ (16 | 32))) => Some(*w as i128),
            Some(t) => {
                let shown = match t {
                    Type::Int(w) => format!("i{w}"),
                    Type::UInt(w) => format!("ui{w}"),
                    Type::SInt(w) => format!("si{w}"),
                    Type::Float(s) => s.clone(),
                    _ => "?".into(),
                };
                e.push(format!(
                    "requires a ui16 or ui32 destination view, got element type '{shown}'"
                ));
                return;
            }
            None => None,
        };
        if let Some(b) = bits {
            if b != 16 && b != 32 {
                e.push(format!("fill_word_bits must be 16 or 32, got {b}"));
            } else if view.is_some_and(|v| v != b) {
                e.push(format!(
                    "fill_word_bits {b} does not match the {}-bit destination view",
                    view.unwrap_or(0)
                ));
            }
        }
        return;
    }
    if let Some(b) = bits {
        if b != 16 && b != 32 {
            e.push(format!("fill_word_bits must be 16 or 32, got {b}"));
            return;
        }
    }
    // dst, byte_offset, value, repeat_times, block_num_32b, dst_gap_32b
    let (off, rep, blk, gap) = (uses.get(1), uses.get(3), uses.get(4), uses.get(5));
    for (v, n) in [
        (off, "byte_offset"),
        (rep, "repeat_times"),
        (blk, "block_num_32b"),
        (gap, "dst_gap_32b"),
    ] {
        c.field(v, n, 0, i128::MAX, e);
        if !e.is_empty() {
            return;
        }
    }
    if let Some(o) = off.and_then(|v| c.const_int(*v)) {
        if o % 32 != 0 {
            e.push(format!(
                "byte_offset must be a multiple of 32 bytes, got {o}"
            ));
            return;
        }
    }
    for (v, n) in [
        (rep, "repeat_times"),
        (blk, "block_num_32b"),
        (gap, "dst_gap_32b"),
    ] {
        if let Some(x) = v.and_then(|v| c.const_int(*v)) {
            if x > 32767 {
                e.push(format!("{n} must be <= 32767, got {x}"));
                return;
            }
        }
    }
}

fn mad(c: &Ctx, op: &Op, uses: &[ValueId], e: &mut Vec<String>) {
    let el = |i: usize| {
        uses.get(i)
            .and_then(|v| c.ty(*v))
            .and_then(|t| elem_of(c.file, t))
    };
    let (Some(l), Some(r), Some(d)) = (el(0), el(1), el(2)) else {
        return;
    };
    let hif8 = |t: &Type| matches!(t, Type::Opaque { name, .. } if name == "pto.hif8");
    let float = |t: &Type| matches!(t, Type::Float(_)) || matches!(t, Type::Opaque { .. });
    let f32 = |t: &Type| matches!(t, Type::Float(s) if s == "f32");
    let word = |w: &str| has_word(op, w);
    if hif8(l) != hif8(r) {
        e.push("requires lhs/rhs to both use hif8 or both use non-hif8 element types".into());
    } else if (word("sat") || word("nosat")) && !(float(l) && float(r) && float(d)) {
        e.push("requires sat/nosat only for floating lhs/rhs/dst element types".into());
    } else if word("tf32_mode") && !(f32(l) && f32(r) && f32(d)) {
        e.push("requires tf32_mode only for f32 lhs/rhs/dst element types".into());
    }
}
