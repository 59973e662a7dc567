//! Canonical text printer. Its output re-parses to the same module, so
//! text -> binary -> text -> binary is byte-identical.

use std::fmt::Write;

use pto_isa_spec::Opcode;

use crate::ast::{Alias, Elem, File, Op, Punct, Region};
use crate::attr::Attr;
use crate::lexer::escape;
use crate::ty::{BLayout, Dim, SLayout, Type, TypeId, Types};

/// Printer options.
#[derive(Clone, Copy, Debug)]
pub struct PrintOptions {
    /// Append `loc("file":line:col)` to every op (keeps source lines through a
    /// round trip; needed for byte-identical binaries).
    pub locs: bool,
}

impl Default for PrintOptions {
    fn default() -> Self {
        PrintOptions { locs: true }
    }
}

/// Prints a file in canonical form.
pub fn print_file(file: &File, opts: PrintOptions) -> String {
    let mut p = Printer {
        file,
        out: String::new(),
        opts,
    };
    for a in &file.aliases {
        match a {
            Alias::Attr(n, v) => {
                let s = p.attr(v);
                let _ = writeln!(p.out, "#{n} = {s}");
            }
            Alias::Type(n, t) => {
                let s = type_str(&file.types, *t);
                let _ = writeln!(p.out, "!{n} = {s}");
            }
        }
    }
    for op in &file.items {
        p.op(op, 0);
    }
    p.out
}

struct Printer<'a> {
    file: &'a File,
    out: String,
    opts: PrintOptions,
}

fn is_bare_ident(s: &str) -> bool {
    let mut cs = s.chars();
    matches!(cs.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '.')
}

/// Formats an f64 so that it re-lexes as a float with the same value.
pub fn fmt_float(f: f64) -> String {
    let s = format!("{f:?}");
    let s = if let Some((m, e)) = s.split_once('e') {
        if m.contains('.') {
            format!("{m}e{e}")
        } else {
            format!("{m}.0e{e}")
        }
    } else if s.contains('.') {
        s
    } else {
        format!("{s}.0")
    };
    s
}

fn dims_str(shape: &[Dim]) -> String {
    let mut s = String::new();
    for d in shape {
        match d {
            Some(v) => {
                let _ = write!(s, "{v}x");
            }
            None => s.push_str("?x"),
        }
    }
    s
}

fn dim_str(d: Dim) -> String {
    match d {
        Some(v) => v.to_string(),
        None => "?".into(),
    }
}

/// Prints a type.
pub fn type_str(types: &Types, id: TypeId) -> String {
    let t = |i: TypeId| type_str(types, i);
    match types.get(id) {
        Type::Index => "index".into(),
        Type::None => "none".into(),
        Type::Int(w) => format!("i{w}"),
        Type::SInt(w) => format!("si{w}"),
        Type::UInt(w) => format!("ui{w}"),
        Type::Float(s) => s.clone(),
        Type::Vector { shape, elem } => format!("vector<{}{}>", dims_str(shape), t(*elem)),
        Type::Shaped {
            kind,
            shape,
            unranked,
            elem,
            rest,
        } => {
            let dims = if *unranked {
                "*x".to_string()
            } else {
                dims_str(shape)
            };
            match rest {
                Some(r) => format!("{kind}<{dims}{}, {r}>", t(*elem)),
                None => format!("{kind}<{dims}{}>", t(*elem)),
            }
        }
        Type::Function { ins, outs } => {
            let ins: Vec<_> = ins.iter().map(|i| t(*i)).collect();
            let single = outs.len() == 1 && !matches!(types.get(outs[0]), Type::Function { .. });
            let outs_s: Vec<_> = outs.iter().map(|i| t(*i)).collect();
            if single {
                format!("({}) -> {}", ins.join(", "), outs_s[0])
            } else {
                format!("({}) -> ({})", ins.join(", "), outs_s.join(", "))
            }
        }
        Type::Ptr { elem, space } => match space {
            Some(s) => format!("!pto.ptr<{}, {s}>", t(*elem)),
            None => format!("!pto.ptr<{}>", t(*elem)),
        },
        Type::TensorView { shape, elem } => {
            format!("!pto.tensor_view<{}{}>", dims_str(shape), t(*elem))
        }
        Type::PartitionView { shape, elem } => {
            format!(
                "!pto.partition_tensor_view<{}{}>",
                dims_str(shape),
                t(*elem)
            )
        }
        Type::Tile { shape, elem } => format!("!pto.tile<{}{}>", dims_str(shape), t(*elem)),
        Type::VReg { lanes, elem } => format!("!pto.vreg<{lanes}x{}>", t(*elem)),
        Type::Mask(g) if g.is_empty() => "!pto.mask".into(),
        Type::Mask(g) => format!("!pto.mask<{g}>"),
        Type::Align => "!pto.align".into(),
        Type::TileBuf(tb) => {
            let bl = match tb.blayout {
                BLayout::RowMajor => "row_major",
                BLayout::ColMajor => "col_major",
            };
            let sl = match tb.slayout {
                SLayout::NoneBox => "none_box",
                SLayout::RowMajor => "row_major",
                SLayout::ColMajor => "col_major",
            };
            let mut s = format!(
                "!pto.tile_buf<loc={}, dtype={}, rows={}, cols={}, v_row={}, v_col={}, blayout={bl}, slayout={sl}, fractal={}, pad={}",
                tb.loc.name(),
                t(tb.elem),
                tb.rows,
                tb.cols,
                dim_str(tb.v_row),
                dim_str(tb.v_col),
                tb.fractal,
                tb.pad
            );
            if tb.compact != 0 {
                let _ = write!(s, ", compact={}", tb.compact);
            }
            s.push('>');
            s
        }
        Type::Opaque { name, params } => match params {
            Some(p) => format!("!{name}<{p}>"),
            None => format!("!{name}"),
        },
        Type::Stripped(b) => format!("<{b}>"),
    }
}

/// Prints an attribute.
pub fn attr_str(types: &Types, a: &Attr) -> String {
    match a {
        Attr::Unit => "unit".into(),
        Attr::Bool(b) => b.to_string(),
        Attr::Int { value, hex, ty } => {
            let v = if *hex {
                if *value < 0 {
                    format!("-0x{:X}", value.unsigned_abs())
                } else {
                    format!("0x{value:X}")
                }
            } else {
                value.to_string()
            };
            match ty {
                Some(t) => format!("{v} : {}", type_str(types, *t)),
                None => v,
            }
        }
        Attr::Float { bits, ty } => {
            let v = fmt_float(f64::from_bits(*bits));
            match ty {
                Some(t) => format!("{v} : {}", type_str(types, *t)),
                None => v,
            }
        }
        Attr::Str(s) => format!("\"{}\"", escape(s)),
        Attr::Type(t) => type_str(types, *t),
        Attr::Symbol(s) => {
            if is_bare_ident(s) {
                format!("@{s}")
            } else {
                format!("@\"{s}\"")
            }
        }
        Attr::Array(items) => {
            let v: Vec<_> = items.iter().map(|i| attr_str(types, i)).collect();
            format!("[{}]", v.join(", "))
        }
        Attr::Dict(d) => dict_str(types, d),
        Attr::Dialect { ns, body } => match (ns.is_empty(), body) {
            (true, Some(b)) => format!("<{b}>"),
            (true, None) => "<>".into(),
            (false, Some(b)) => format!("#{ns}<{b}>"),
            (false, None) => format!("#{ns}"),
        },
        Attr::Keyword { kw, body } => {
            if body.is_empty() {
                kw.clone()
            } else {
                format!("{kw}<{body}>")
            }
        }
    }
}

/// Prints an attribute dictionary.
pub fn dict_str(types: &Types, d: &[(String, Attr)]) -> String {
    let v: Vec<_> = d
        .iter()
        .map(|(k, a)| {
            let key = if is_bare_ident(k) {
                k.clone()
            } else {
                format!("\"{}\"", escape(k))
            };
            match a {
                Attr::Unit => key,
                _ => format!("{key} = {}", attr_str(types, a)),
            }
        })
        .collect();
    format!("{{{}}}", v.join(", "))
}

impl Printer<'_> {
    fn attr(&self, a: &Attr) -> String {
        attr_str(&self.file.types, a)
    }

    fn ty(&self, t: TypeId) -> String {
        type_str(&self.file.types, t)
    }

    fn op(&mut self, op: &Op, indent: usize) {
        let pad = "  ".repeat(indent);
        self.out.push_str(&pad);
        if !op.results.is_empty() {
            let mut parts = Vec::new();
            for &(first, n) in &op.results {
                let info = &self.file.values[first as usize];
                if info.group_index.is_some() {
                    parts.push(format!("%{}:{n}", info.name));
                } else {
                    parts.push(format!("%{}", info.name));
                }
            }
            self.out.push_str(&parts.join(", "));
            self.out.push_str(" = ");
        }
        if op.generic {
            let _ = write!(self.out, "\"{}\"", op.opcode.name());
        } else {
            // MLIR prints these two without their dialect prefix
            self.out.push_str(match op.opcode {
                Opcode::Module => "module",
                Opcode::Return => "return",
                o => o.name(),
            });
        }
        let mut prev: Option<&Elem> = None;
        for e in &op.body {
            if need_space(prev, e, op.generic) {
                self.out.push(' ');
            }
            match e {
                Elem::Use(v) | Elem::Def(v) => {
                    let n = self.file.value_name(*v);
                    self.out.push_str(&n);
                }
                Elem::Ident(s) => self.out.push_str(s),
                Elem::Attr(a) => {
                    let s = self.attr(a);
                    self.out.push_str(&s);
                }
                Elem::Type(t) => {
                    let s = self.ty(*t);
                    self.out.push_str(&s);
                }
                Elem::Dict(d) => {
                    let s = dict_str(&self.file.types, d);
                    self.out.push_str(&s);
                }
                Elem::Props(d) => {
                    let s = dict_str(&self.file.types, d);
                    self.out.push('<');
                    self.out.push_str(&s);
                    self.out.push('>');
                }
                Elem::Region(i) => match op.regions.get(*i as usize) {
                    Some(r) => self.region(r, indent),
                    None => self.out.push_str("{}"),
                },
                Elem::Successor(l) => {
                    self.out.push('^');
                    self.out.push_str(l);
                }
                Elem::P(p) => self.out.push_str(p.text()),
            }
            prev = Some(e);
        }
        if self.opts.locs && op.loc.line > 0 {
            let _ = write!(
                self.out,
                " loc(\"{}\":{}:{})",
                escape(&self.file.source_name),
                op.loc.line,
                op.loc.col
            );
        }
        self.out.push('\n');
    }

    fn region(&mut self, r: &Region, indent: usize) {
        self.out.push_str("{\n");
        let pad = "  ".repeat(indent);
        for (i, b) in r.blocks.iter().enumerate() {
            if let Some(l) = &b.label {
                let args: Vec<_> = b
                    .args
                    .iter()
                    .map(|v| {
                        let ty = self.file.values[*v as usize]
                            .ty
                            .map(|t| self.ty(t))
                            .unwrap_or_else(|| "none".into());
                        format!("{}: {ty}", self.file.value_name(*v))
                    })
                    .collect();
                if args.is_empty() {
                    let _ = writeln!(self.out, "{pad}^{l}:");
                } else {
                    let _ = writeln!(self.out, "{pad}^{l}({}):", args.join(", "));
                }
            } else if i > 0 {
                // an unlabeled non-entry block cannot be written; give it a label
                let _ = writeln!(self.out, "{pad}^bb{i}:");
            }
            for o in &b.ops {
                self.op(o, indent + 1);
            }
        }
        self.out.push_str(&pad);
        self.out.push('}');
    }
}

fn need_space(prev: Option<&Elem>, e: &Elem, generic: bool) -> bool {
    use Elem::P;
    if matches!((prev, e), (Some(Elem::Def(_)), P(Punct::Colon))) {
        return false; // `%arg0: type`
    }
    if matches!(prev, Some(P(Punct::Minus))) {
        return true; // never glue `-` to what follows: `-` `>` would re-lex as `->`
    }
    match e {
        P(Punct::Comma | Punct::RParen | Punct::RBracket | Punct::Greater) => return false,
        P(Punct::LParen | Punct::LBracket) => {
            return match prev {
                None => !(generic || matches!(e, P(Punct::LBracket))),
                Some(Elem::Ident(_) | Elem::Use(_) | Elem::Successor(_)) => false,
                Some(Elem::Attr(Attr::Symbol(_))) => false,
                Some(P(Punct::LParen | Punct::LBracket | Punct::Less)) => false,
                _ => true,
            };
        }
        _ => {}
    }
    !matches!(prev, Some(P(Punct::LParen | Punct::LBracket | Punct::Less)))
}
