//! The module AST: ops with syntax-preserving bodies, regions, values.
//!
//! Every op, including `module` and `func.func`, is an [`Op`]: an opcode from the
//! ISA table, the values it defines, a *body* (the op's text after its name as a
//! sequence of [`Elem`]s with SSA names resolved to value ids, types interned and
//! attributes parsed), nested regions, and its source location. One body grammar
//! covers the destination-passing forms, the sync bracket forms, the generic MLIR
//! form and the custom forms PTOAS uses, so the assembler reads the whole corpus
//! without a parser per op; the verifier and the VM read operands through the
//! accessors below, guided by the ISA table.

use pto_isa_spec::Opcode;

use crate::attr::Attr;
use crate::diag::Loc;
use crate::ty::{TypeId, Types};

/// Index of a value in [`File::values`].
pub type ValueId = u32;

/// Punctuation kept in op bodies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Punct {
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `,`
    Comma,
    /// `:`
    Colon,
    /// `=`
    Equal,
    /// `->`
    Arrow,
    /// `?`
    Question,
    /// `*`
    Star,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `|`
    Pipe,
    /// `...`
    Ellipsis,
    /// `<` (rare outside attributes and types)
    Less,
    /// `>`
    Greater,
}

impl Punct {
    /// All punctuation in encoding order.
    pub const ALL: [Punct; 16] = [
        Punct::LParen,
        Punct::RParen,
        Punct::LBracket,
        Punct::RBracket,
        Punct::Comma,
        Punct::Colon,
        Punct::Equal,
        Punct::Arrow,
        Punct::Question,
        Punct::Star,
        Punct::Plus,
        Punct::Minus,
        Punct::Pipe,
        Punct::Ellipsis,
        Punct::Less,
        Punct::Greater,
    ];

    /// Spelling.
    pub fn text(self) -> &'static str {
        match self {
            Punct::LParen => "(",
            Punct::RParen => ")",
            Punct::LBracket => "[",
            Punct::RBracket => "]",
            Punct::Comma => ",",
            Punct::Colon => ":",
            Punct::Equal => "=",
            Punct::Arrow => "->",
            Punct::Question => "?",
            Punct::Star => "*",
            Punct::Plus => "+",
            Punct::Minus => "-",
            Punct::Pipe => "|",
            Punct::Ellipsis => "...",
            Punct::Less => "<",
            Punct::Greater => ">",
        }
    }
}

/// One element of an op body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Elem {
    /// Use of a value.
    Use(ValueId),
    /// Definition of a value in the op's header (function argument, loop
    /// induction variable, `iter_args` / `scf.while` argument).
    Def(ValueId),
    /// A bare keyword or identifier (`ins`, `outs`, `to`, `step`, `PIPE_V`...).
    Ident(String),
    /// An attribute value (literal, string, enum, `#...`, `dense<...>`).
    Attr(Attr),
    /// A type.
    Type(TypeId),
    /// `{k = v, ...}` attribute dictionary.
    Dict(Vec<(String, Attr)>),
    /// `<{k = v, ...}>` properties dictionary (generic form).
    Props(Vec<(String, Attr)>),
    /// The op's region with this index.
    Region(u32),
    /// A successor block label (`^bb1`).
    Successor(String),
    /// Punctuation.
    P(Punct),
}

/// A block of a region.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Block {
    /// `^label` if written.
    pub label: Option<String>,
    /// Block arguments written in the label (`^bb0(%a: i32)`).
    pub args: Vec<ValueId>,
    /// Ops in order.
    pub ops: Vec<Op>,
}

/// A region: blocks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Region {
    /// Blocks; the first is the entry block.
    pub blocks: Vec<Block>,
}

/// An op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Op {
    /// Opcode from the ISA table.
    pub opcode: Opcode,
    /// Result groups: first value id and count (`%r:2` is one group of 2).
    pub results: Vec<(ValueId, u32)>,
    /// The body after the op name.
    pub body: Vec<Elem>,
    /// Nested regions.
    pub regions: Vec<Region>,
    /// Source location of the op name (or of its first result).
    pub loc: Loc,
    /// Whether the op was written in the generic `"name"(...)` form.
    pub generic: bool,
}

/// A value: name (without `%`), type if known, definition location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueInfo {
    /// Name as written (`c0`, `arg0`, `r`); group members share it.
    pub name: String,
    /// Position inside a result group (`%r#1`), if the value is part of one.
    pub group_index: Option<u32>,
    /// Type, when the text gives it.
    pub ty: Option<TypeId>,
    /// Where it is defined.
    pub loc: Loc,
}

/// A parsed file: top-level ops (usually one `module`), types, values, aliases.
#[derive(Clone, Debug, Default)]
pub struct File {
    /// Name used in diagnostics and the debug section.
    pub source_name: String,
    /// Top-level ops.
    pub items: Vec<Op>,
    /// Interned types.
    pub types: Types,
    /// Every value of the file, in definition order.
    pub values: Vec<ValueInfo>,
    /// Attribute and type alias definitions (`#map = ...`, `!t = ...`), in order.
    pub aliases: Vec<Alias>,
}

/// A top-level alias definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Alias {
    /// `#name = attr`.
    Attr(String, Attr),
    /// `!name = type`.
    Type(String, TypeId),
}

impl Op {
    /// The values this op defines, in order.
    pub fn result_values(&self) -> impl Iterator<Item = ValueId> + '_ {
        self.results.iter().flat_map(|&(first, n)| first..first + n)
    }

    /// Number of values defined.
    pub fn num_results(&self) -> usize {
        self.results.iter().map(|&(_, n)| n as usize).sum()
    }

    /// All value uses in the body, in order (nested regions excluded).
    pub fn uses(&self) -> impl Iterator<Item = ValueId> + '_ {
        self.body.iter().filter_map(|e| match e {
            Elem::Use(v) => Some(*v),
            _ => None,
        })
    }

    /// The values of the keyword group `kw(...)`; empty when the op has none.
    pub fn group_values(&self, kw: &str) -> Vec<ValueId> {
        self.group(kw).map(|g| g.0).unwrap_or_default()
    }

    /// The values and types inside the keyword group `kw(...)` (`ins`, `outs`,
    /// `nburst`...). `None` if the op has no such group.
    pub fn group(&self, kw: &str) -> Option<(Vec<ValueId>, Vec<TypeId>)> {
        let start = self
            .body
            .iter()
            .position(|e| matches!(e, Elem::Ident(k) if k == kw))?;
        if self.body.get(start + 1) != Some(&Elem::P(Punct::LParen)) {
            return None;
        }
        let mut depth = 0i32;
        let mut vals = Vec::new();
        let mut tys = Vec::new();
        for e in &self.body[start + 1..] {
            match e {
                Elem::P(Punct::LParen | Punct::LBracket) => depth += 1,
                Elem::P(Punct::RParen | Punct::RBracket) => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                Elem::Use(v) => vals.push(*v),
                Elem::Type(t) => tys.push(*t),
                _ => {}
            }
        }
        Some((vals, tys))
    }

    /// The attribute dictionaries of the body merged (`{...}` and `<{...}>`).
    pub fn attrs(&self) -> impl Iterator<Item = &(String, Attr)> {
        self.body.iter().flat_map(|e| match e {
            Elem::Dict(d) | Elem::Props(d) => d.iter(),
            _ => [].iter(),
        })
    }

    /// Looks up a named attribute in the body's dictionaries, or a `key = value`
    /// pair written inline (`sizes = [...]`, `addr = %a` is a use, not an attr).
    pub fn attr(&self, key: &str) -> Option<&Attr> {
        if let Some((_, a)) = self.attrs().find(|(k, _)| k == key) {
            return Some(a);
        }
        self.body.windows(3).find_map(|w| match w {
            [Elem::Ident(k), Elem::P(Punct::Equal), Elem::Attr(a)] if k == key => Some(a),
            _ => None,
        })
    }

    /// Positional attribute-like items at bracket depth 0 or inside the first
    /// `[...]` group: strings, enums, integers and bare identifiers, in order.
    /// This is how sync ops carry their pipes and event ids in every spelling
    /// (`["PIPE_V", ...]`, `[<PIPE_V>, ...]`, `[#pto.pipe<PIPE_V>, ...]`,
    /// `PIPE_V, PIPE_MTE3, EVENT_ID0`).
    pub fn immediates(&self) -> Vec<Imm<'_>> {
        let mut out = Vec::new();
        let mut depth = 0i32;
        let mut in_types = false;
        for e in &self.body {
            match e {
                Elem::P(Punct::LParen) => depth += 1,
                Elem::P(Punct::LBracket) => depth += 1,
                Elem::P(Punct::RParen | Punct::RBracket) => depth -= 1,
                Elem::P(Punct::Colon | Punct::Arrow) if depth == 0 => in_types = true,
                Elem::Attr(a) if depth <= 1 && !in_types => out.push(Imm::Attr(a)),
                Elem::Ident(s) if depth <= 1 && !in_types => out.push(Imm::Ident(s)),
                Elem::Use(v) if depth <= 1 && !in_types => out.push(Imm::Value(*v)),
                _ => {}
            }
        }
        out
    }

    /// Types written after the top-level `:` (before any `->`), in order.
    pub fn colon_types(&self) -> Vec<TypeId> {
        let mut out = Vec::new();
        let mut depth = 0i32;
        let mut on = false;
        for e in &self.body {
            match e {
                Elem::P(Punct::LParen | Punct::LBracket) => depth += 1,
                Elem::P(Punct::RParen | Punct::RBracket) => depth -= 1,
                Elem::P(Punct::Colon) if depth == 0 => on = true,
                Elem::P(Punct::Arrow) if depth == 0 => on = false,
                Elem::Type(t) if on => out.push(*t),
                _ => {}
            }
        }
        out
    }

    /// Types written after the last top-level `->`, in order.
    pub fn arrow_types(&self) -> Vec<TypeId> {
        let mut out = Vec::new();
        let mut depth = 0i32;
        for e in &self.body {
            match e {
                Elem::P(Punct::LParen | Punct::LBracket) => depth += 1,
                Elem::P(Punct::RParen | Punct::RBracket) => depth -= 1,
                Elem::P(Punct::Arrow) if depth == 0 => out.clear(),
                Elem::Type(t) if !out.is_empty() || self.after_arrow(t) => out.push(*t),
                _ => {}
            }
        }
        out
    }

    fn after_arrow(&self, t: &TypeId) -> bool {
        // true if this exact type element comes after a top-level arrow
        let mut depth = 0i32;
        let mut seen = false;
        for e in &self.body {
            match e {
                Elem::P(Punct::LParen | Punct::LBracket) => depth += 1,
                Elem::P(Punct::RParen | Punct::RBracket) => depth -= 1,
                Elem::P(Punct::Arrow) if depth == 0 => seen = true,
                Elem::Type(x) if std::ptr::eq(x, t) => return seen,
                _ => {}
            }
        }
        false
    }
}

/// A positional immediate of an op (see [`Op::immediates`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Imm<'a> {
    /// An attribute.
    Attr(&'a Attr),
    /// A bare identifier (`PIPE_V` in PTO-AS spelling).
    Ident(&'a str),
    /// An SSA value.
    Value(ValueId),
}

impl<'a> Imm<'a> {
    /// The symbolic value (`PIPE_V`, `EVENT_ID0`, `PAT_ALL`), whatever the spelling.
    pub fn symbol(&self) -> Option<&'a str> {
        match self {
            Imm::Attr(a) => a.enum_value(),
            Imm::Ident(s) => Some(s),
            Imm::Value(_) => None,
        }
    }
}

impl File {
    /// Every op in the file, depth first, with its nesting depth.
    pub fn walk(&self) -> Vec<&Op> {
        fn go<'a>(op: &'a Op, out: &mut Vec<&'a Op>) {
            out.push(op);
            for r in &op.regions {
                for b in &r.blocks {
                    for o in &b.ops {
                        go(o, out);
                    }
                }
            }
        }
        let mut out = Vec::new();
        for op in &self.items {
            go(op, &mut out);
        }
        out
    }

    /// The value's printed name (`%c0`, `%r#1`).
    pub fn value_name(&self, v: ValueId) -> String {
        match self.values.get(v as usize) {
            Some(ValueInfo {
                name,
                group_index: Some(i),
                ..
            }) => format!("%{name}#{i}"),
            Some(info) => format!("%{}", info.name),
            None => format!("%<invalid {v}>"),
        }
    }
}
