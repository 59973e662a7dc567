//! Parser for PTO kernel text (the MLIR subset PTOAS reads, plus PTO-AS statements).

use std::collections::HashMap;

use pto_isa_spec::{Form, Opcode};

use crate::ast::{Alias, Block, Elem, File, Op, Punct, Region, ValueId, ValueInfo};
use crate::attr::Attr;
use crate::diag::{Diagnostic, Loc};
use crate::lexer::{unescape, Lexer, Tok, Token};
use crate::ty::{BLayout, Dim, SLayout, TileBuf, TileLoc, Type, TypeId};

/// Parses a whole file. Returns the file (possibly partial) and every diagnostic.
pub fn parse(source_name: &str, src: &str) -> (File, Vec<Diagnostic>) {
    let mut p = Parser::new(source_name, src);
    p.parse_file();
    p.finish()
}

/// Dialect prefixes whose dotted identifiers start a new op.
const DIALECTS: &[&str] = &[
    "pto",
    "arith",
    "scf",
    "func",
    "cf",
    "memref",
    "llvm",
    "math",
    "builtin",
    "vector",
    "tensor",
    "affine",
    "index",
    "emitc",
    "gpu",
    "linalg",
    "ub",
    "hivm",
    "bufferization",
    "test",
];

/// Attribute keywords followed by `<...>`.
/// Nesting limit of attributes, types and ops together (the decoder allows 256).
const ATTR_DEPTH: u32 = 200;

const ATTR_KEYWORDS: &[&str] = &[
    "dense",
    "array",
    "affine_map",
    "affine_set",
    "strided",
    "sparse",
    "dense_resource",
    "opaque",
    "distinct",
];

#[derive(Clone, Copy)]
struct Named {
    first: ValueId,
    count: u32,
}

struct Forward {
    placeholder: ValueId,
    name: String,
    index: Option<u32>,
    loc: Loc,
    len: u32,
}

struct Parser<'a> {
    lx: Lexer<'a>,
    tok: Token,
    prev_end: u32,
    file: File,
    diags: Vec<Diagnostic>,
    scopes: Vec<HashMap<String, Named>>,
    forwards: Vec<Forward>,
    /// defs per name in the current function, for forward references
    fn_defs: HashMap<String, Vec<Named>>,
    attr_aliases: HashMap<String, Attr>,
    type_aliases: HashMap<String, TypeId>,
    file_loc_name: Option<String>,
    /// guards against runaway recursion on hostile input
    depth: u32,
}

fn is_int_type_name(s: &str) -> Option<Type> {
    let (ctor, rest): (fn(u32) -> Type, &str) = if let Some(r) = s.strip_prefix("si") {
        (Type::SInt, r)
    } else if let Some(r) = s.strip_prefix("ui") {
        (Type::UInt, r)
    } else if let Some(r) = s.strip_prefix('i') {
        (Type::Int, r)
    } else {
        return None;
    };
    if rest.is_empty() || rest.len() > 5 || !rest.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let w: u32 = rest.parse().ok()?;
    if w == 0 || w > 1024 {
        return None;
    }
    Some(ctor(w))
}

fn is_float_type_name(s: &str) -> bool {
    matches!(s, "f16" | "f32" | "f64" | "f80" | "f128" | "bf16" | "tf32")
        || ((s.starts_with("f8") || s.starts_with("f4") || s.starts_with("f6"))
            && s.len() > 2
            && s.bytes().all(|b| b.is_ascii_alphanumeric()))
}

fn is_builtin_type_ident(s: &str) -> bool {
    is_int_type_name(s).is_some()
        || is_float_type_name(s)
        || matches!(
            s,
            "index" | "none" | "vector" | "memref" | "tensor" | "complex" | "tuple"
        )
}

impl<'a> Parser<'a> {
    fn new(source_name: &str, src: &'a str) -> Self {
        let mut lx = Lexer::new(src);
        let tok = lx.next_token();
        Parser {
            lx,
            tok,
            prev_end: 0,
            file: File {
                source_name: source_name.to_string(),
                ..File::default()
            },
            diags: Vec::new(),
            scopes: vec![HashMap::new()],
            forwards: Vec::new(),
            fn_defs: HashMap::new(),
            attr_aliases: HashMap::new(),
            type_aliases: HashMap::new(),
            file_loc_name: None,
            depth: 0,
        }
    }

    fn finish(mut self) -> (File, Vec<Diagnostic>) {
        let map = self.resolve_forwards();
        for op in &mut self.file.items {
            remap(op, &map);
        }
        if let Some(n) = self.file_loc_name.take() {
            self.file.source_name = n;
        }
        (self.file, self.diags)
    }

    // ───────────── token helpers ─────────────

    fn bump(&mut self) -> Token {
        let t = self.tok;
        self.prev_end = t.end;
        self.tok = self.lx.next_token();
        t
    }

    fn text(&self, t: Token) -> &'a str {
        self.lx.text(t)
    }

    fn cur_text(&self) -> &'a str {
        self.lx.text(self.tok)
    }

    fn loc_of(&self, t: Token) -> Loc {
        self.lx.loc(t.start)
    }

    fn peek2(&mut self) -> Token {
        let save = self.lx.pos();
        let t = self.lx.next_token();
        self.lx.reset(save);
        t
    }

    fn peek_n(&mut self, n: usize) -> Vec<Token> {
        let save = self.lx.pos();
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(self.lx.next_token());
        }
        self.lx.reset(save);
        v
    }

    fn err_at(&mut self, t: Token, msg: impl Into<String>) {
        let loc = self.loc_of(t);
        let len = (t.end - t.start).max(1);
        self.diags.push(Diagnostic::error(loc, len, msg));
    }

    fn err_here(&mut self, msg: impl Into<String>) {
        let t = self.tok;
        let found = match t.kind {
            Tok::Eof => "end of file".to_string(),
            _ => format!("'{}'", self.text(t)),
        };
        self.err_at(t, format!("{}, found {found}", msg.into()));
    }

    fn expect(&mut self, k: Tok, what: &str) -> bool {
        if self.tok.kind == k {
            self.bump();
            true
        } else {
            self.err_here(format!("expected {what}"));
            false
        }
    }

    fn first_on_line(&self, t: Token) -> bool {
        let src = self.lx.source().as_bytes();
        let mut i = t.start as usize;
        while i > 0 {
            i -= 1;
            match src[i] {
                b'\n' => return true,
                b' ' | b'\t' | b'\r' => continue,
                _ => return false,
            }
        }
        true
    }

    fn ws_before(&self, t: Token) -> bool {
        let src = self.lx.source().as_bytes();
        t.start > 0 && (src[t.start as usize - 1] as char).is_ascii_whitespace()
    }

    // ───────────── values and scopes ─────────────

    fn new_value(&mut self, name: &str, group_index: Option<u32>, loc: Loc) -> ValueId {
        let id = self.file.values.len() as ValueId;
        self.file.values.push(ValueInfo {
            name: name.to_string(),
            group_index,
            ty: None,
            loc,
        });
        id
    }

    fn define(&mut self, t: Token, count: u32, grouped: bool) -> ValueId {
        let full = self.text(t);
        let name = &full[1..];
        let loc = self.loc_of(t);
        if self.scopes.last().is_some_and(|s| s.contains_key(name)) {
            self.err_at(t, format!("redefinition of value %{name}"));
        }
        let first = self.file.values.len() as ValueId;
        for i in 0..count {
            self.new_value(name, grouped.then_some(i), loc);
        }
        let named = Named { first, count };
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name.to_string(), named);
        }
        self.fn_defs
            .entry(name.to_string())
            .or_default()
            .push(named);
        first
    }

    fn lookup_use(&mut self, t: Token) -> ValueId {
        let full = self.text(t);
        let body = &full[1..];
        let (name, index) = match body.split_once('#') {
            Some((n, i)) => (n, i.parse::<u32>().ok()),
            None => (body, None),
        };
        let found = self.scopes.iter().rev().find_map(|s| s.get(name).copied());
        match found {
            Some(n) => self.select(n, name, index, t),
            None => {
                let loc = self.loc_of(t);
                let ph = self.new_value(name, None, loc);
                self.forwards.push(Forward {
                    placeholder: ph,
                    name: name.to_string(),
                    index,
                    loc,
                    len: t.end - t.start,
                });
                ph
            }
        }
    }

    fn select(&mut self, n: Named, name: &str, index: Option<u32>, t: Token) -> ValueId {
        match index {
            Some(i) if i < n.count => n.first + i,
            Some(i) => {
                self.err_at(
                    t,
                    format!("%{name} has {} result(s); #{i} is out of range", n.count),
                );
                n.first
            }
            None => {
                if n.count != 1 {
                    self.err_at(
                        t,
                        format!(
                            "%{name} names {} results; use %{name}#N to pick one",
                            n.count
                        ),
                    );
                }
                n.first
            }
        }
    }

    /// Resolves forward references of the current isolated scope (a function or a
    /// top-level op); returns placeholder -> definition for the caller to apply.
    fn resolve_forwards(&mut self) -> HashMap<ValueId, ValueId> {
        let mut map: HashMap<ValueId, ValueId> = HashMap::new();
        let fwds = std::mem::take(&mut self.forwards);
        for f in fwds {
            let cand = self
                .fn_defs
                .get(&f.name)
                .and_then(|v| v.iter().find(|n| n.first > f.placeholder).copied());
            match cand {
                Some(n) => {
                    let idx = f.index.unwrap_or(0);
                    if idx < n.count {
                        map.insert(f.placeholder, n.first + idx);
                    } else {
                        self.diags.push(Diagnostic::error(
                            f.loc,
                            f.len,
                            format!(
                                "%{} has {} result(s); #{idx} is out of range",
                                f.name, n.count
                            ),
                        ));
                    }
                }
                None => self.diags.push(Diagnostic::error(
                    f.loc,
                    f.len,
                    format!("use of undefined value %{}", f.name),
                )),
            }
        }
        self.fn_defs.clear();
        map
    }

    // ───────────── file level ─────────────

    fn parse_file(&mut self) {
        loop {
            let kind = self.tok.kind;
            match kind {
                Tok::Eof => break,
                Tok::HashIdent | Tok::BangIdent if self.peek2().kind == Tok::Equal => {
                    self.parse_alias_def()
                }
                Tok::RBrace => {
                    self.err_here("unexpected '}' at top level");
                    self.bump();
                }
                _ => {
                    let before = self.tok.start;
                    if let Some(mut op) = self.parse_op() {
                        // a top-level op is its own isolated scope
                        let map = self.resolve_forwards();
                        remap(&mut op, &map);
                        self.file.items.push(op);
                    }
                    if self.tok.start == before && self.tok.kind != Tok::Eof {
                        self.bump();
                    }
                }
            }
        }
    }

    fn parse_alias_def(&mut self) {
        let t = self.bump();
        let name = self.text(t)[1..].to_string();
        self.bump(); // '='
        if t.kind == Tok::HashIdent {
            if let Some(a) = self.parse_attr(true) {
                self.attr_aliases.insert(name.clone(), a.clone());
                self.file.aliases.push(Alias::Attr(name, a));
            }
        } else if let Some(ty) = self.parse_type() {
            self.type_aliases.insert(name.clone(), ty);
            self.file.aliases.push(Alias::Type(name, ty));
        }
    }

    // ───────────── ops ─────────────

    fn looks_like_result_defs(&mut self) -> bool {
        // %a[:N] (, %b[:N])* =
        let save = self.lx.pos();
        let mut t = self.tok;
        let ok = loop {
            if t.kind != Tok::Value {
                break false;
            }
            t = self.lx.next_token();
            if t.kind == Tok::Colon {
                if self.lx.next_token().kind != Tok::Int {
                    break false;
                }
                t = self.lx.next_token();
            }
            match t.kind {
                Tok::Equal => break true,
                Tok::Comma => t = self.lx.next_token(),
                _ => break false,
            }
        };
        self.lx.reset(save);
        ok
    }

    fn is_op_name(&self, s: &str) -> bool {
        match s.split_once('.') {
            Some((d, rest)) => !rest.is_empty() && DIALECTS.contains(&d),
            None => false,
        }
    }

    fn looks_like_block_label(&mut self) -> bool {
        // ^bb0: or ^bb0( ... ):
        let save = self.lx.pos();
        let mut t = self.lx.next_token();
        let ok = if t.kind == Tok::Colon {
            true
        } else if t.kind == Tok::LParen {
            let mut depth = 1;
            loop {
                t = self.lx.next_token();
                match t.kind {
                    Tok::LParen => depth += 1,
                    Tok::RParen => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    Tok::Eof | Tok::LBrace | Tok::RBrace => break,
                    _ => {}
                }
            }
            self.lx.next_token().kind == Tok::Colon
        } else {
            false
        };
        self.lx.reset(save);
        ok
    }

    fn parse_op(&mut self) -> Option<Op> {
        self.depth += 1;
        let r = if self.depth > 200 {
            self.err_here("nesting too deep");
            self.skip_to_line_end();
            None
        } else {
            self.parse_op_inner()
        };
        self.depth -= 1;
        r
    }

    fn skip_to_line_end(&mut self) {
        let line = self.loc_of(self.tok).line;
        while self.tok.kind != Tok::Eof && self.loc_of(self.tok).line == line {
            self.bump();
        }
    }

    fn parse_op_inner(&mut self) -> Option<Op> {
        let start = self.tok;
        // results
        let mut result_toks: Vec<(Token, u32, bool)> = Vec::new();
        if self.tok.kind == Tok::Value {
            if !self.looks_like_result_defs() {
                self.err_here("expected an operation");
                self.skip_to_line_end();
                return None;
            }
            loop {
                let t = self.bump();
                let (mut n, mut grouped) = (1u32, false);
                if self.tok.kind == Tok::Colon {
                    self.bump();
                    let it = self.bump();
                    n = self.text(it).parse().unwrap_or(0);
                    grouped = true;
                    if n == 0 || n > 4096 {
                        self.err_at(it, "result group size must be between 1 and 4096");
                        n = 1;
                    }
                }
                result_toks.push((t, n, grouped));
                if self.tok.kind == Tok::Comma {
                    self.bump();
                } else {
                    break;
                }
            }
            self.bump(); // '='
        }
        // name
        let name_tok = self.tok;
        let (name, generic) = match self.tok.kind {
            Tok::Ident => (self.text(name_tok).to_string(), false),
            Tok::Str => {
                let t = self.text(name_tok);
                (unescape(&t[1..t.len() - 1]), true)
            }
            _ => {
                self.err_here("expected an operation name");
                self.skip_to_line_end();
                return None;
            }
        };
        self.bump();
        let opcode = Opcode::lookup(&name);
        let loc = self.loc_of(if result_toks.is_empty() {
            name_tok
        } else {
            start
        });
        let Some(opcode) = opcode else {
            // hints for the first unknown names only: a file of a million
            // unknown ops must not pay a table search for each
            let hint = if self.diags.len() < crate::diag::MAX_RENDERED {
                Opcode::suggest(&name)
                    .map(|c| format!("; did you mean '{c}'?"))
                    .unwrap_or_default()
            } else {
                String::new()
            };
            self.err_at(name_tok, format!("unknown operation '{name}'{hint}"));
            // skip the body so parsing can continue with the next op
            let mut scratch = Op {
                opcode: Opcode::Return,
                results: vec![],
                body: vec![],
                regions: vec![],
                loc,
                generic,
            };
            self.parse_body(&mut scratch);
            for (t, n, g) in result_toks {
                self.define(t, n, g);
            }
            return None;
        };
        let mut op = Op {
            opcode,
            results: Vec::new(),
            body: Vec::new(),
            regions: Vec::new(),
            loc,
            generic,
        };
        match opcode {
            Opcode::Func if !generic => self.parse_func(&mut op),
            Opcode::ScfFor if !generic => self.parse_for(&mut op),
            Opcode::ScfWhile if !generic => self.parse_while(&mut op),
            _ => self.parse_body(&mut op),
        }
        // results are defined after the op (not visible in its own regions)
        for (t, n, g) in result_toks {
            let first = self.define(t, n, g);
            op.results.push((first, n));
        }
        self.assign_result_types(&op);
        Some(op)
    }

    fn assign_result_types(&mut self, op: &Op) {
        let n = op.num_results();
        if n == 0 {
            return;
        }
        let tys: Vec<TypeId> = match op.opcode {
            Opcode::ArithCmpi | Opcode::ArithCmpf => {
                let t = self.file.types.intern(Type::Int(1));
                vec![t]
            }
            _ => {
                let arrow = op.arrow_types();
                let colon = op.colon_types();
                if arrow.len() == n {
                    arrow
                } else if colon.len() == 1 && n >= 1 {
                    match self.file.types.get(colon[0]).clone() {
                        Type::Function { outs, .. } if outs.len() == n => outs,
                        _ if n == 1 => colon,
                        _ => Vec::new(),
                    }
                } else if colon.len() > n {
                    colon[colon.len() - n..].to_vec()
                } else if colon.len() == n {
                    colon
                } else {
                    Vec::new()
                }
            }
        };
        // a type that cannot be the declared result kind describes an operand
        let sig = op.opcode.info().signature();
        let kinds = pto_isa_spec::Sig::assign(&sig.results, n);
        let fits = |k: pto_isa_spec::OperandKind, t: &Type| match k {
            pto_isa_spec::OperandKind::Int
            | pto_isa_spec::OperandKind::Float
            | pto_isa_spec::OperandKind::Scalar => {
                t.is_scalar() || t.scalar_dtype().is_some() || matches!(t, Type::Vector { .. })
            }
            _ => true,
        };
        if let Some(kinds) = kinds {
            if kinds
                .iter()
                .zip(&tys)
                .any(|(k, t)| !fits(*k, self.file.types.get(*t)))
            {
                return;
            }
        }
        if tys.len() == n {
            for (v, t) in op.result_values().zip(tys) {
                self.file.values[v as usize].ty = Some(t);
            }
        }
    }

    /// Whether an element ends an operand (so a following `%x` / op name starts a new op).
    fn complete(last: Option<&Elem>) -> bool {
        !matches!(
            last,
            Some(Elem::P(
                Punct::Comma
                    | Punct::Equal
                    | Punct::Colon
                    | Punct::Arrow
                    | Punct::LParen
                    | Punct::LBracket
                    | Punct::Minus
                    | Punct::Less
            ))
        )
    }

    fn parse_body(&mut self, op: &mut Op) {
        let mut depth = 0i32;
        loop {
            let last = op.body.last();
            match self.tok.kind {
                Tok::Eof => break,
                Tok::RBrace => {
                    if depth > 0 {
                        self.err_here("unbalanced brackets in operation");
                    }
                    break;
                }
                Tok::Value => {
                    if depth == 0 && self.looks_like_result_defs() {
                        break;
                    }
                    let t = self.bump();
                    let v = self.lookup_use(t);
                    op.body.push(Elem::Use(v));
                }
                Tok::Ident => {
                    let s = self.cur_text();
                    if depth == 0 && (op.body.is_empty() || Self::complete(last)) {
                        let starts = self.is_op_name(s)
                            || (self.first_on_line(self.tok)
                                && !s.contains('.')
                                && s != "else"
                                && s != "do"
                                && Opcode::lookup(s).is_some());
                        if starts {
                            break;
                        }
                    }
                    if s == "loc" && self.peek2().kind == Tok::LParen {
                        self.parse_loc(op);
                        continue;
                    }
                    if s == "to" && matches!(last, Some(Elem::Type(_))) {
                        self.bump();
                        op.body.push(Elem::Ident("to".into()));
                        if let Some(t) = self.parse_type() {
                            op.body.push(Elem::Type(t));
                        }
                        continue;
                    }
                    if matches!(s, "true" | "false" | "unit")
                        || (ATTR_KEYWORDS.contains(&s) && self.peek2().kind == Tok::Less)
                    {
                        if let Some(a) = self.parse_attr(false) {
                            op.body.push(Elem::Attr(a));
                        }
                        continue;
                    }
                    let t = self.bump();
                    op.body.push(Elem::Ident(self.text(t).to_string()));
                }
                Tok::Str => {
                    if depth == 0
                        && !op.body.is_empty()
                        && Self::complete(last)
                        && self.peek2().kind == Tok::LParen
                        && self.is_op_name(self.cur_text().trim_matches('"'))
                    {
                        break;
                    }
                    let t = self.bump();
                    let s = self.text(t);
                    op.body
                        .push(Elem::Attr(Attr::Str(unescape(&s[1..s.len() - 1]))));
                }
                Tok::Int | Tok::Float | Tok::Minus => {
                    if self.tok.kind == Tok::Minus
                        && !matches!(self.peek2().kind, Tok::Int | Tok::Float)
                    {
                        self.bump();
                        op.body.push(Elem::P(Punct::Minus));
                        continue;
                    }
                    if let Some(a) = self.parse_number(None) {
                        op.body.push(Elem::Attr(a));
                    }
                }
                Tok::HashIdent | Tok::Symbol => {
                    if let Some(a) = self.parse_attr(false) {
                        op.body.push(Elem::Attr(a));
                    }
                }
                Tok::BangIdent => {
                    if let Some(t) = self.parse_type() {
                        op.body.push(Elem::Type(t));
                    }
                }
                Tok::Label => {
                    if depth == 0 && self.looks_like_block_label() {
                        break;
                    }
                    let t = self.bump();
                    op.body.push(Elem::Successor(self.text(t)[1..].to_string()));
                }
                Tok::LParen | Tok::LBracket => {
                    depth += 1;
                    let p = if self.tok.kind == Tok::LParen {
                        Punct::LParen
                    } else {
                        Punct::LBracket
                    };
                    self.bump();
                    op.body.push(Elem::P(p));
                }
                Tok::RParen | Tok::RBracket => {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                    let p = if self.tok.kind == Tok::RParen {
                        Punct::RParen
                    } else {
                        Punct::RBracket
                    };
                    self.bump();
                    op.body.push(Elem::P(p));
                }
                Tok::LBrace => {
                    let is_region = if op.generic {
                        // generic form: regions are inside `( ... )`, the attribute dictionary is outside
                        depth > 0
                    } else {
                        self.brace_is_region(op.opcode, last)
                    };
                    if is_region {
                        let r = self.parse_region();
                        op.body.push(Elem::Region(op.regions.len() as u32));
                        op.regions.push(r);
                    } else {
                        let d = self.parse_dict();
                        op.body.push(Elem::Dict(d));
                    }
                }
                Tok::Less => {
                    let p2 = self.peek2();
                    let next = p2.kind;
                    // a stray `<` right before the op's `loc(...)`: keep it as punctuation
                    let before_loc = next == Tok::Ident && self.text(p2) == "loc" && {
                        let save = (self.tok, self.lx.pos(), self.prev_end);
                        self.bump();
                        self.bump();
                        let is_call = self.tok.kind == Tok::LParen;
                        self.tok = save.0;
                        self.lx.reset(save.1);
                        self.prev_end = save.2;
                        is_call
                    };
                    if matches!(next, Tok::Less | Tok::Value) || before_loc {
                        // `<<<%a, %b>>>` launch syntax: keep the values visible
                        self.punct(op, Punct::Less);
                        continue;
                    }
                    if next == Tok::LBrace {
                        self.bump();
                        let d = self.parse_dict();
                        self.expect(Tok::Greater, "'>' closing properties");
                        op.body.push(Elem::Props(d));
                    } else if let Some(a) = self.parse_attr(false) {
                        op.body.push(Elem::Attr(a));
                    }
                }
                Tok::Colon => {
                    self.bump();
                    op.body.push(Elem::P(Punct::Colon));
                    // `: T, U` type list; a colon used as a keyword separator
                    // (`offset: [0]`, `default: ^bb1`) is kept as punctuation
                    if self.is_type_start() {
                        self.parse_type_list_into(&mut op.body);
                    }
                }
                Tok::Arrow => {
                    self.bump();
                    op.body.push(Elem::P(Punct::Arrow));
                    if self.tok.kind == Tok::LParen {
                        self.bump();
                        op.body.push(Elem::P(Punct::LParen));
                        if self.tok.kind != Tok::RParen {
                            self.parse_type_list_into(&mut op.body);
                        }
                        if self.expect(Tok::RParen, "')' closing the result types") {
                            op.body.push(Elem::P(Punct::RParen));
                        }
                    } else {
                        self.parse_type_list_into(&mut op.body);
                    }
                }
                Tok::Equal => self.punct(op, Punct::Equal),
                Tok::Comma => self.punct(op, Punct::Comma),
                Tok::Question => self.punct(op, Punct::Question),
                Tok::Star => self.punct(op, Punct::Star),
                Tok::Plus => self.punct(op, Punct::Plus),
                Tok::Pipe => self.punct(op, Punct::Pipe),
                Tok::Ellipsis => self.punct(op, Punct::Ellipsis),
                Tok::Greater => self.punct(op, Punct::Greater),
                Tok::Bad => {
                    self.err_here("unexpected character");
                    self.bump();
                }
            }
        }
        if depth != 0 {
            self.err_here("unbalanced '(' or '[' in operation");
        }
    }

    fn punct(&mut self, op: &mut Op, p: Punct) {
        self.bump();
        op.body.push(Elem::P(p));
    }

    fn brace_is_region(&mut self, opcode: Opcode, last: Option<&Elem>) -> bool {
        let region_op = matches!(opcode.info().form, Form::Region | Form::Builtin);
        match last {
            // `attributes {...}` and a dictionary trailing a region are attributes
            Some(Elem::Ident(k)) if k == "attributes" => return false,
            Some(Elem::Region(_)) => return false,
            _ if region_op => return true,
            _ => {}
        }
        let v = self.peek_n(2);
        match (v[0].kind, v[1].kind) {
            (Tok::RBrace, _) => region_op,
            (Tok::Ident, Tok::Equal | Tok::Comma) | (Tok::Str, Tok::Equal | Tok::Comma) => false,
            (Tok::Ident, Tok::RBrace) => Opcode::lookup(self.lx.text(v[0])).is_some(),
            (Tok::Str, Tok::RBrace) => false,
            _ => true,
        }
    }

    fn parse_loc(&mut self, op: &mut Op) {
        self.bump(); // loc
        self.bump(); // (
                     // loc("file":line:col) sets the op's location; anything else is ignored
        if self.tok.kind == Tok::Str {
            let toks = self.peek_n(4);
            if toks[0].kind == Tok::Colon
                && toks[1].kind == Tok::Int
                && toks[2].kind == Tok::Colon
                && toks[3].kind == Tok::Int
            {
                let f = self.text(self.tok);
                let fname = unescape(&f[1..f.len() - 1]);
                let line: u32 = self.lx.text(toks[1]).parse().unwrap_or(0);
                let col: u32 = self.lx.text(toks[3]).parse().unwrap_or(0);
                if line > 0 && col > 0 {
                    op.loc = Loc { line, col };
                    if self.file_loc_name.is_none() {
                        self.file_loc_name = Some(fname);
                    }
                }
            }
        }
        let mut depth = 1;
        while self.tok.kind != Tok::Eof {
            match self.tok.kind {
                Tok::LParen => depth += 1,
                Tok::RParen => {
                    depth -= 1;
                    if depth == 0 {
                        self.bump();
                        break;
                    }
                }
                _ => {}
            }
            self.bump();
        }
    }

    // ───────────── builtin headers ─────────────

    fn parse_func(&mut self, op: &mut Op) {
        if self.tok.kind == Tok::Ident && matches!(self.cur_text(), "private" | "public" | "nested")
        {
            let t = self.bump();
            op.body.push(Elem::Ident(self.text(t).to_string()));
        }
        if self.tok.kind != Tok::Symbol {
            self.err_here("expected function name '@name'");
            self.parse_body(op);
            return;
        }
        if let Some(a) = self.parse_attr(false) {
            op.body.push(Elem::Attr(a));
        }
        self.scopes.push(HashMap::new());
        if self.expect(Tok::LParen, "'(' starting the argument list") {
            op.body.push(Elem::P(Punct::LParen));
            while self.tok.kind != Tok::RParen && self.tok.kind != Tok::Eof {
                if self.tok.kind == Tok::Value {
                    let t = self.bump();
                    let v = self.define(t, 1, false);
                    op.body.push(Elem::Def(v));
                    if self.expect(Tok::Colon, "':' and the argument type") {
                        op.body.push(Elem::P(Punct::Colon));
                        if let Some(ty) = self.parse_type() {
                            self.file.values[v as usize].ty = Some(ty);
                            op.body.push(Elem::Type(ty));
                        }
                    }
                } else if let Some(ty) = self.parse_type() {
                    op.body.push(Elem::Type(ty));
                } else {
                    break;
                }
                if self.tok.kind == Tok::LBrace {
                    let d = self.parse_dict();
                    op.body.push(Elem::Dict(d));
                }
                if self.tok.kind == Tok::Comma {
                    self.bump();
                    op.body.push(Elem::P(Punct::Comma));
                } else {
                    break;
                }
            }
            if self.expect(Tok::RParen, "')' closing the argument list") {
                op.body.push(Elem::P(Punct::RParen));
            }
        }
        // results, attributes, body: the generic grammar handles them
        self.parse_body(op);
        self.scopes.pop();
        // forward references resolve per function
        let map = self.resolve_forwards();
        remap(op, &map);
    }

    fn parse_for(&mut self, op: &mut Op) {
        self.scopes.push(HashMap::new());
        if self.tok.kind != Tok::Value {
            self.err_here("expected the induction variable");
            self.parse_body(op);
            self.scopes.pop();
            return;
        }
        let ivt = self.bump();
        let iv = self.define(ivt, 1, false);
        op.body.push(Elem::Def(iv));
        self.expect(Tok::Equal, "'='");
        op.body.push(Elem::P(Punct::Equal));
        let mut iter_defs = Vec::new();
        // lb to ub step s [iter_args(...)] [-> (...)] [: T] region
        loop {
            match self.tok.kind {
                Tok::Value => {
                    let t = self.bump();
                    let v = self.lookup_use(t);
                    op.body.push(Elem::Use(v));
                }
                Tok::Ident if matches!(self.cur_text(), "to" | "step") => {
                    let t = self.bump();
                    op.body.push(Elem::Ident(self.text(t).into()));
                }
                Tok::Ident if self.cur_text() == "iter_args" => {
                    self.bump();
                    op.body.push(Elem::Ident("iter_args".into()));
                    if !self.expect(Tok::LParen, "'(' after iter_args") {
                        break;
                    }
                    op.body.push(Elem::P(Punct::LParen));
                    while self.tok.kind == Tok::Value {
                        let dt = self.bump();
                        // define after reading the init value (init is an outer use)
                        self.expect(Tok::Equal, "'=' in iter_args");
                        let init = if self.tok.kind == Tok::Value {
                            let t = self.bump();
                            Some(self.lookup_use(t))
                        } else {
                            self.err_here("expected the initial value");
                            None
                        };
                        let d = self.define(dt, 1, false);
                        iter_defs.push(d);
                        op.body.push(Elem::Def(d));
                        op.body.push(Elem::P(Punct::Equal));
                        if let Some(i) = init {
                            op.body.push(Elem::Use(i));
                        }
                        if self.tok.kind == Tok::Comma {
                            self.bump();
                            op.body.push(Elem::P(Punct::Comma));
                        }
                    }
                    if self.expect(Tok::RParen, "')' closing iter_args") {
                        op.body.push(Elem::P(Punct::RParen));
                    }
                }
                _ => break,
            }
        }
        self.parse_body(op);
        self.scopes.pop();
        // types: induction var from `: T` (default index), iter args from `-> (...)`
        let colon = op.colon_types();
        let ivt = match colon.first() {
            Some(t) => *t,
            None => self.file.types.intern(Type::Index),
        };
        self.file.values[iv as usize].ty = Some(ivt);
        let arrow = op.arrow_types();
        if arrow.len() == iter_defs.len() {
            for (d, t) in iter_defs.iter().zip(arrow) {
                self.file.values[*d as usize].ty = Some(t);
            }
        }
    }

    fn parse_while(&mut self, op: &mut Op) {
        self.scopes.push(HashMap::new());
        let mut defs = Vec::new();
        if self.tok.kind == Tok::LParen {
            self.bump();
            op.body.push(Elem::P(Punct::LParen));
            while self.tok.kind == Tok::Value {
                let dt = self.bump();
                self.expect(Tok::Equal, "'=' in the while arguments");
                let init = if self.tok.kind == Tok::Value {
                    let t = self.bump();
                    Some(self.lookup_use(t))
                } else {
                    self.err_here("expected the initial value");
                    None
                };
                let d = self.define(dt, 1, false);
                defs.push(d);
                op.body.push(Elem::Def(d));
                op.body.push(Elem::P(Punct::Equal));
                if let Some(i) = init {
                    op.body.push(Elem::Use(i));
                }
                if self.tok.kind == Tok::Comma {
                    self.bump();
                    op.body.push(Elem::P(Punct::Comma));
                }
            }
            if self.expect(Tok::RParen, "')'") {
                op.body.push(Elem::P(Punct::RParen));
            }
        }
        // `: (T...) -> (U...)` then the before region
        if self.tok.kind == Tok::Colon {
            self.bump();
            op.body.push(Elem::P(Punct::Colon));
            if let Some(t) = self.parse_type() {
                op.body.push(Elem::Type(t));
                if let Type::Function { ins, .. } = self.file.types.get(t).clone() {
                    if ins.len() == defs.len() {
                        for (d, ty) in defs.iter().zip(ins) {
                            self.file.values[*d as usize].ty = Some(ty);
                        }
                    }
                }
            }
        }
        if self.tok.kind == Tok::LBrace {
            let r = self.parse_region();
            op.body.push(Elem::Region(op.regions.len() as u32));
            op.regions.push(r);
        }
        self.scopes.pop();
        self.parse_body(op);
    }

    // ───────────── regions ─────────────

    fn parse_region(&mut self) -> Region {
        self.bump(); // {
        self.scopes.push(HashMap::new());
        let mut region = Region::default();
        let mut block = Block::default();
        let mut started = false;
        loop {
            let kind = self.tok.kind;
            match kind {
                Tok::RBrace => {
                    self.bump();
                    break;
                }
                Tok::Eof => {
                    self.err_here("expected '}' closing the region");
                    break;
                }
                Tok::Label if self.looks_like_block_label() => {
                    if started || !block.ops.is_empty() || block.label.is_some() {
                        region.blocks.push(std::mem::take(&mut block));
                    }
                    started = true;
                    let t = self.bump();
                    block.label = Some(self.text(t)[1..].to_string());
                    if self.tok.kind == Tok::LParen {
                        self.bump();
                        while self.tok.kind == Tok::Value {
                            let at = self.bump();
                            let v = self.define(at, 1, false);
                            block.args.push(v);
                            if self.expect(Tok::Colon, "':' and the block argument type") {
                                if let Some(ty) = self.parse_type() {
                                    self.file.values[v as usize].ty = Some(ty);
                                }
                            }
                            if self.tok.kind == Tok::Comma {
                                self.bump();
                            }
                        }
                        self.expect(Tok::RParen, "')' closing the block arguments");
                    }
                    self.expect(Tok::Colon, "':' after the block label");
                }
                _ => {
                    let before = self.tok.start;
                    if let Some(op) = self.parse_op() {
                        block.ops.push(op);
                    }
                    if self.tok.start == before && self.tok.kind != Tok::Eof {
                        // no progress: drop one token to guarantee termination
                        if self.tok.kind != Tok::RBrace {
                            self.err_here("unexpected token");
                            self.bump();
                        }
                    }
                }
            }
        }
        region.blocks.push(block);
        self.scopes.pop();
        region
    }

    // ───────────── attributes ─────────────

    fn parse_dict(&mut self) -> Vec<(String, Attr)> {
        self.bump(); // {
        let mut out = Vec::new();
        loop {
            let key = match self.tok.kind {
                Tok::RBrace => {
                    self.bump();
                    break;
                }
                Tok::Ident => {
                    let t = self.bump();
                    self.text(t).to_string()
                }
                Tok::Str => {
                    let t = self.bump();
                    let s = self.text(t);
                    unescape(&s[1..s.len() - 1])
                }
                _ => {
                    self.err_here("expected an attribute name or '}'");
                    self.skip_balanced_until_rbrace();
                    break;
                }
            };
            let val = if self.tok.kind == Tok::Equal {
                self.bump();
                self.parse_attr(true).unwrap_or(Attr::Unit)
            } else {
                Attr::Unit
            };
            out.push((key, val));
            match self.tok.kind {
                Tok::Comma => {
                    self.bump();
                }
                Tok::RBrace => {
                    self.bump();
                    break;
                }
                _ => {
                    self.err_here("expected ',' or '}' in attribute dictionary");
                    self.skip_balanced_until_rbrace();
                    break;
                }
            }
        }
        out
    }

    fn skip_balanced_until_rbrace(&mut self) {
        let mut depth = 0;
        while self.tok.kind != Tok::Eof {
            match self.tok.kind {
                Tok::LBrace | Tok::LParen | Tok::LBracket => depth += 1,
                Tok::RParen | Tok::RBracket => depth -= 1,
                Tok::RBrace => {
                    if depth == 0 {
                        self.bump();
                        return;
                    }
                    depth -= 1;
                }
                _ => {}
            }
            self.bump();
        }
    }

    fn parse_number(&mut self, _ty: Option<TypeId>) -> Option<Attr> {
        let neg = if self.tok.kind == Tok::Minus {
            self.bump();
            true
        } else {
            false
        };
        let t = self.bump();
        let s = self.text(t);
        match t.kind {
            Tok::Int => {
                let (v, hex) =
                    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                        (u128::from_str_radix(h, 16).ok(), true)
                    } else {
                        (s.parse::<u128>().ok(), false)
                    };
                match v {
                    Some(v) if v <= u64::MAX as u128 => {
                        let v = v as i128;
                        Some(Attr::Int {
                            value: if neg { -v } else { v },
                            hex,
                            ty: None,
                        })
                    }
                    _ => {
                        self.err_at(t, "integer literal does not fit in 64 bits");
                        None
                    }
                }
            }
            Tok::Float => match s.parse::<f64>() {
                Ok(f) if f.is_finite() => {
                    let f = if neg { -f } else { f };
                    Some(Attr::Float {
                        bits: f.to_bits(),
                        ty: None,
                    })
                }
                _ => {
                    self.err_at(
                        t,
                        "float literal out of range (write it as a hex bit pattern)",
                    );
                    None
                }
            },
            _ => {
                self.err_at(t, "expected a number");
                None
            }
        }
    }

    /// Text between balanced angle brackets starting at the current `<`, normalized:
    /// tokens joined by one space where the source had whitespace.
    fn angle_body(&mut self) -> Option<String> {
        if self.tok.kind != Tok::Less {
            self.err_here("expected '<'");
            return None;
        }
        self.bump();
        let mut depth = 1;
        let mut out = String::new();
        let mut first = true;
        loop {
            match self.tok.kind {
                Tok::Eof => {
                    self.err_here("expected '>'");
                    return None;
                }
                Tok::Bad => {
                    self.err_here("unexpected character");
                    return None;
                }
                Tok::Less | Tok::LParen | Tok::LBracket | Tok::LBrace => depth += 1,
                Tok::Greater | Tok::RParen | Tok::RBracket | Tok::RBrace => {
                    depth -= 1;
                    if depth == 0 {
                        self.bump();
                        return Some(out);
                    }
                }
                _ => {}
            }
            if !first && self.ws_before(self.tok) {
                out.push(' ');
            }
            first = false;
            let t = self.bump();
            out.push_str(self.text(t));
        }
    }

    fn parse_attr(&mut self, typed: bool) -> Option<Attr> {
        // attributes nest (arrays, dictionaries): bound the depth below what the
        // binary decoder accepts, and never recurse without limit
        self.depth += 1;
        let r = if self.depth > ATTR_DEPTH {
            self.err_here("attributes nested too deeply");
            None
        } else {
            self.parse_attr_inner(typed)
        };
        self.depth -= 1;
        r
    }

    fn parse_attr_inner(&mut self, typed: bool) -> Option<Attr> {
        let a = match self.tok.kind {
            Tok::Int | Tok::Float | Tok::Minus => self.parse_number(None)?,
            Tok::Str => {
                let t = self.bump();
                let s = self.text(t);
                Attr::Str(unescape(&s[1..s.len() - 1]))
            }
            Tok::Symbol => {
                let t = self.bump();
                let s = self.text(t)[1..].trim_matches('"').to_string();
                Attr::Symbol(s)
            }
            Tok::HashIdent => {
                let t = self.bump();
                let ns = self.text(t)[1..].to_string();
                if self.tok.kind == Tok::Less {
                    let body = self.angle_body()?;
                    Attr::Dialect {
                        ns,
                        body: Some(body),
                    }
                } else {
                    Attr::Dialect { ns, body: None }
                }
            }
            Tok::Less => {
                let body = self.angle_body()?;
                Attr::Dialect {
                    ns: String::new(),
                    body: Some(body),
                }
            }
            Tok::LBracket => {
                self.bump();
                let mut items = Vec::new();
                while self.tok.kind != Tok::RBracket && self.tok.kind != Tok::Eof {
                    items.push(self.parse_attr(true)?);
                    if self.tok.kind == Tok::Comma {
                        self.bump();
                    } else {
                        break;
                    }
                }
                if !self.expect(Tok::RBracket, "']' closing the array") {
                    return None;
                }
                Attr::Array(items)
            }
            Tok::LBrace => Attr::Dict(self.parse_dict()),
            Tok::BangIdent | Tok::LParen => Attr::Type(self.parse_type()?),
            Tok::Ident => {
                let s = self.cur_text();
                match s {
                    "true" | "false" => {
                        self.bump();
                        Attr::Bool(s == "true")
                    }
                    "unit" => {
                        self.bump();
                        Attr::Unit
                    }
                    _ if ATTR_KEYWORDS.contains(&s) && self.peek2().kind == Tok::Less => {
                        let kw = s.to_string();
                        self.bump();
                        let body = self.angle_body()?;
                        Attr::Keyword { kw, body }
                    }
                    _ if is_builtin_type_ident(s) => Attr::Type(self.parse_type()?),
                    _ => {
                        let t = self.bump();
                        Attr::Keyword {
                            kw: self.text(t).to_string(),
                            body: String::new(),
                        }
                    }
                }
            }
            _ => {
                self.err_here("expected an attribute value");
                return None;
            }
        };
        // typed literal `7 : i32`
        if typed && self.tok.kind == Tok::Colon {
            if let Attr::Int {
                value,
                hex,
                ty: None,
            } = a
            {
                self.bump();
                let ty = self.parse_type()?;
                return Some(Attr::Int {
                    value,
                    hex,
                    ty: Some(ty),
                });
            }
            if let Attr::Float { bits, ty: None } = a {
                self.bump();
                let ty = self.parse_type()?;
                return Some(Attr::Float { bits, ty: Some(ty) });
            }
            if let Attr::Keyword { .. } = a {
                // dense<...> : tensor<...>
                self.bump();
                let ty = self.parse_type()?;
                return Some(Attr::Array(vec![a, Attr::Type(ty)]));
            }
        }
        Some(a)
    }

    // ───────────── types ─────────────

    fn is_type_start(&mut self) -> bool {
        match self.tok.kind {
            Tok::BangIdent | Tok::Less => true,
            Tok::LParen => true,
            Tok::Ident => is_builtin_type_ident(self.cur_text()),
            _ => false,
        }
    }

    fn parse_type_list_into(&mut self, body: &mut Vec<Elem>) {
        loop {
            if !self.is_type_start() {
                self.err_here("expected a type");
                return;
            }
            if let Some(t) = self.parse_type() {
                body.push(Elem::Type(t));
            } else {
                return;
            }
            if self.tok.kind == Tok::Comma {
                let save = (self.tok, self.lx.pos(), self.prev_end);
                self.bump();
                if self.is_type_start() && !(self.tok.kind == Tok::LParen) {
                    body.push(Elem::P(Punct::Comma));
                    continue;
                }
                if self.tok.kind == Tok::LParen {
                    body.push(Elem::P(Punct::Comma));
                    continue;
                }
                // not a type: restore the comma for the caller
                self.tok = save.0;
                self.lx.reset(save.1);
                self.prev_end = save.2;
            }
            return;
        }
    }

    fn intern(&mut self, t: Type) -> TypeId {
        self.file.types.intern(t)
    }

    /// Parses a type at the current token.
    pub(crate) fn parse_type(&mut self) -> Option<TypeId> {
        self.depth += 1;
        let r = if self.depth > 200 {
            self.err_here("type nesting too deep");
            None
        } else {
            self.parse_type_inner()
        };
        self.depth -= 1;
        r
    }

    fn parse_type_inner(&mut self) -> Option<TypeId> {
        match self.tok.kind {
            Tok::Ident => {
                let s = self.cur_text();
                if let Some(t) = is_int_type_name(s) {
                    self.bump();
                    return Some(self.intern(t));
                }
                if is_float_type_name(s) {
                    self.bump();
                    return Some(self.intern(Type::Float(s.to_string())));
                }
                match s {
                    "index" => {
                        self.bump();
                        Some(self.intern(Type::Index))
                    }
                    "none" => {
                        self.bump();
                        Some(self.intern(Type::None))
                    }
                    "vector" | "memref" | "tensor" | "complex" | "tuple" => {
                        let kind = s.to_string();
                        self.bump();
                        self.parse_shaped(kind)
                    }
                    _ => {
                        self.err_here("expected a type");
                        None
                    }
                }
            }
            Tok::BangIdent => {
                let t = self.bump();
                let name = self.text(t)[1..].to_string();
                if self.tok.kind != Tok::Less {
                    if let Some(a) = self.type_aliases.get(&name) {
                        return Some(*a);
                    }
                    let ty = match name.as_str() {
                        "pto.align" => Type::Align,
                        "pto.mask" => Type::Mask(String::new()),
                        _ => Type::Opaque { name, params: None },
                    };
                    return Some(self.intern(ty));
                }
                self.parse_dialect_type(name, t)
            }
            Tok::Less => {
                let t = self.tok;
                let save = (self.tok, self.lx.pos(), self.prev_end);
                self.bump();
                let is_loc = self.tok.kind == Tok::Ident && self.cur_text() == "loc";
                // `<loc=` opens a stripped tile_buf; `< loc(...)` is a stray '<'
                // followed by a source location
                let stripped = is_loc && {
                    self.bump();
                    self.tok.kind == Tok::Equal
                };
                if stripped {
                    // stripped tile_buf: <loc=..., ...>
                    self.tok = save.0;
                    self.lx.reset(save.1);
                    self.prev_end = save.2;
                    return self.parse_dialect_type("pto.tile_buf".into(), t);
                }
                self.tok = save.0;
                self.lx.reset(save.1);
                self.prev_end = save.2;
                let body = self.angle_body()?;
                Some(self.intern(Type::Stripped(body)))
            }
            Tok::LParen => {
                self.bump();
                let mut ins = Vec::new();
                while self.tok.kind != Tok::RParen && self.tok.kind != Tok::Eof {
                    ins.push(self.parse_type()?);
                    if self.tok.kind == Tok::Comma {
                        self.bump();
                    } else {
                        break;
                    }
                }
                if !self.expect(Tok::RParen, "')' closing the function inputs") {
                    return None;
                }
                if !self.expect(Tok::Arrow, "'->' in a function type") {
                    return None;
                }
                let mut outs = Vec::new();
                if self.tok.kind == Tok::LParen {
                    self.bump();
                    while self.tok.kind != Tok::RParen && self.tok.kind != Tok::Eof {
                        outs.push(self.parse_type()?);
                        if self.tok.kind == Tok::Comma {
                            self.bump();
                        } else {
                            break;
                        }
                    }
                    if !self.expect(Tok::RParen, "')' closing the function results") {
                        return None;
                    }
                } else {
                    outs.push(self.parse_type()?);
                }
                Some(self.intern(Type::Function { ins, outs }))
            }
            _ => {
                self.err_here("expected a type");
                None
            }
        }
    }

    /// Scans `16x?x32x` at character level (the MLIR dimension list). Leaves the
    /// lexer positioned at the element type. Returns `None` if there is no list.
    fn scan_dims(&mut self) -> Vec<Dim> {
        // re-lex from the current token start at byte level
        self.lx.reset(self.tok.start as usize);
        let mut dims = Vec::new();
        loop {
            let rest = self.lx.rest();
            let mut i = 0;
            while i < rest.len() && rest[i].is_ascii_whitespace() {
                i += 1;
            }
            let start = i;
            let dim = if i < rest.len() && rest[i] == b'?' {
                i += 1;
                None
            } else {
                while i < rest.len() && rest[i].is_ascii_digit() {
                    i += 1;
                }
                if i == start {
                    break;
                }
                let s = std::str::from_utf8(&rest[start..i]).unwrap_or("0");
                Some(s.parse::<i64>().unwrap_or(i64::MAX))
            };
            let mut j = i;
            while j < rest.len() && (rest[j] == b' ' || rest[j] == b'\t') {
                j += 1;
            }
            if j < rest.len() && rest[j] == b'x' {
                dims.push(dim);
                self.lx.bump(j + 1);
            } else {
                break;
            }
        }
        self.tok = self.lx.next_token();
        dims
    }

    fn parse_shaped(&mut self, kind: String) -> Option<TypeId> {
        if !self.expect(Tok::Less, "'<' after the shaped type name") {
            return None;
        }
        let mut unranked = false;
        let shape = if self.tok.kind == Tok::Star {
            self.bump();
            unranked = true;
            // `*x`
            if self.tok.kind == Tok::Ident && self.cur_text().starts_with('x') {
                // re-lex after the x
                self.lx.reset(self.tok.start as usize + 1);
                self.tok = self.lx.next_token();
            }
            Vec::new()
        } else if matches!(self.tok.kind, Tok::Int | Tok::Question) {
            self.scan_dims()
        } else {
            Vec::new()
        };
        if shape
            .iter()
            .any(|d| d.is_some_and(|v| v < 0 || v == i64::MAX))
        {
            self.err_here("dimension out of range");
            return None;
        }
        let elem = self.parse_type()?;
        let ty = if kind == "vector" {
            if !self.expect(Tok::Greater, "'>' closing the vector type") {
                return None;
            }
            Type::Vector { shape, elem }
        } else {
            let rest = if self.tok.kind == Tok::Comma {
                // trailing layout/space attributes: keep as normalized text
                self.bump();
                let mut out = String::new();
                let mut depth = 0;
                let mut first = true;
                loop {
                    match self.tok.kind {
                        Tok::Eof => {
                            self.err_here("expected '>'");
                            return None;
                        }
                        Tok::Less | Tok::LParen | Tok::LBracket | Tok::LBrace => depth += 1,
                        Tok::Greater if depth == 0 => break,
                        Tok::Greater | Tok::RParen | Tok::RBracket | Tok::RBrace => depth -= 1,
                        _ => {}
                    }
                    if !first && self.ws_before(self.tok) {
                        out.push(' ');
                    }
                    first = false;
                    let t = self.bump();
                    out.push_str(self.text(t));
                }
                Some(out)
            } else {
                None
            };
            if !self.expect(Tok::Greater, "'>' closing the shaped type") {
                return None;
            }
            Type::Shaped {
                kind,
                shape,
                unranked,
                elem,
                rest,
            }
        };
        Some(self.intern(ty))
    }

    fn parse_dialect_type(&mut self, name: String, at: Token) -> Option<TypeId> {
        match name.as_str() {
            "pto.ptr" => {
                self.bump(); // <
                let elem = self.parse_type()?;
                let space = if self.tok.kind == Tok::Comma {
                    self.bump();
                    let t = self.bump();
                    Some(self.text(t).to_string())
                } else {
                    None
                };
                self.expect(Tok::Greater, "'>' closing !pto.ptr")
                    .then(|| self.intern(Type::Ptr { elem, space }))
            }
            "pto.tensor_view" | "pto.partition_tensor_view" | "pto.tile" | "pto.vreg" => {
                self.bump(); // <
                let (shape, elem) = if matches!(self.tok.kind, Tok::Int | Tok::Question) {
                    let shape = self.scan_dims();
                    if shape.contains(&Some(i64::MAX)) {
                        self.err_here("dimension out of range");
                        return None;
                    }
                    (shape, self.parse_type()?)
                } else {
                    // PTO-AS: !pto.tile<f32, 16, 16>
                    let elem = self.parse_type()?;
                    let mut shape = Vec::new();
                    while self.tok.kind == Tok::Comma {
                        self.bump();
                        shape.push(self.parse_dim()?);
                    }
                    (shape, elem)
                };
                if !self.expect(Tok::Greater, "'>' closing the type") {
                    return None;
                }
                let ty = match name.as_str() {
                    "pto.tensor_view" => Type::TensorView { shape, elem },
                    "pto.partition_tensor_view" => Type::PartitionView { shape, elem },
                    "pto.tile" => Type::Tile { shape, elem },
                    _ => {
                        if shape.len() != 1 || shape[0].is_none() {
                            self.err_at(
                                at,
                                "!pto.vreg takes one static lane count, e.g. !pto.vreg<64xf32>",
                            );
                            return None;
                        }
                        Type::VReg {
                            lanes: shape[0].unwrap_or(0),
                            elem,
                        }
                    }
                };
                Some(self.intern(ty))
            }
            "pto.mask" => {
                let body = self.angle_body()?;
                Some(self.intern(Type::Mask(body)))
            }
            "pto.tile_buf" => self.parse_tile_buf(at),
            _ => {
                let params = self.angle_body()?;
                Some(self.intern(Type::Opaque {
                    name,
                    params: Some(params),
                }))
            }
        }
    }

    fn parse_dim(&mut self) -> Option<Dim> {
        match self.tok.kind {
            Tok::Question => {
                self.bump();
                Some(None)
            }
            Tok::Int => {
                let t = self.bump();
                match self.text(t).parse::<i64>() {
                    Ok(v) => Some(Some(v)),
                    Err(_) => {
                        self.err_at(t, "dimension out of range");
                        None
                    }
                }
            }
            _ => {
                self.err_here("expected a dimension (integer or '?')");
                None
            }
        }
    }

    fn parse_tile_buf(&mut self, at: Token) -> Option<TypeId> {
        self.bump(); // <
        let mut tb = TileBuf {
            loc: TileLoc::Vec,
            elem: 0,
            rows: 0,
            cols: 0,
            v_row: None,
            v_col: None,
            blayout: BLayout::RowMajor,
            slayout: SLayout::NoneBox,
            fractal: 512,
            pad: 0,
            compact: 0,
        };
        let mut have_elem = false;
        let mut have_shape = false;
        let mut have_valid = (false, false);
        let mut first = true;
        while self.tok.kind != Tok::Greater {
            if self.tok.kind == Tok::Eof {
                self.err_here("expected '>' closing !pto.tile_buf");
                return None;
            }
            // positional (compact form): `vec`, `16x16xf32`
            let is_kv = self.tok.kind == Tok::Ident && self.peek2().kind == Tok::Equal;
            if !is_kv {
                if first && self.tok.kind == Tok::Ident {
                    let t = self.bump();
                    match TileLoc::from_name(self.text(t)) {
                        Some(l) => tb.loc = l,
                        None => {
                            self.err_at(t, "unknown tile location (expected vec, mat, left, right, acc, bias, scaling...)");
                            return None;
                        }
                    }
                } else if matches!(self.tok.kind, Tok::Int | Tok::Question) {
                    let dims = self.scan_dims();
                    if dims.len() != 2 {
                        self.err_at(at, "tile_buf shape must be ROWSxCOLSxTYPE");
                        return None;
                    }
                    // the same bound as the keyed `rows=`/`cols=` spelling
                    if dims.iter().any(|d| d.is_some_and(|v| v > i32::MAX as i64)) {
                        self.err_at(at, "tile_buf dimension out of range");
                        return None;
                    }
                    tb.rows = dims[0].unwrap_or(-1);
                    tb.cols = dims[1].unwrap_or(-1);
                    tb.elem = self.parse_type()?;
                    have_elem = true;
                    have_shape = true;
                } else {
                    self.err_here("expected 'key=value' in !pto.tile_buf");
                    return None;
                }
            } else {
                let kt = self.bump();
                let key = self.text(kt).to_string();
                self.bump(); // =
                match key.as_str() {
                    "loc" => {
                        let t = self.bump();
                        match TileLoc::from_name(self.text(t)) {
                            Some(l) => tb.loc = l,
                            None => {
                                self.err_at(t, "unknown tile location (expected vec, mat, left, right, acc, bias, scaling...)");
                                return None;
                            }
                        }
                    }
                    "dtype" => {
                        tb.elem = self.parse_type()?;
                        have_elem = true;
                    }
                    "rows" | "cols" | "fractal" | "pad" | "compact" => {
                        let neg = self.tok.kind == Tok::Minus;
                        if neg {
                            self.bump();
                        }
                        let t = self.bump();
                        let txt = self.text(t);
                        let v: Option<i64> = match (key.as_str(), txt) {
                            ("pad", "null") => Some(0),
                            ("pad", "zero") => Some(1),
                            ("pad", "max") => Some(2),
                            ("pad", "min") => Some(3),
                            _ => txt.parse().ok(),
                        };
                        let Some(v) = v.filter(|v| *v <= i32::MAX as i64) else {
                            self.err_at(t, format!("invalid value for tile_buf {key}"));
                            return None;
                        };
                        let v = if neg { -v } else { v };
                        if v < 0 && !matches!(key.as_str(), "rows" | "cols") {
                            self.err_at(t, format!("invalid value for tile_buf {key}"));
                            return None;
                        }
                        match key.as_str() {
                            "rows" => {
                                tb.rows = v;
                                have_shape = true
                            }
                            "cols" => tb.cols = v,
                            "fractal" => tb.fractal = v as u32,
                            "pad" => tb.pad = v as u32,
                            _ => tb.compact = v as u32,
                        }
                    }
                    "v_row" => {
                        tb.v_row = self.parse_dim()?;
                        have_valid.0 = true;
                    }
                    "v_col" => {
                        tb.v_col = self.parse_dim()?;
                        have_valid.1 = true;
                    }
                    "valid" => {
                        let dims = if self.tok.kind == Tok::Int || self.tok.kind == Tok::Question {
                            // `16x?` : scan dims then the last dim has no trailing x
                            let first = self.parse_dim_x()?;
                            let second = self.parse_dim()?;
                            vec![first, second]
                        } else {
                            self.err_here("expected ROWSxCOLS after valid=");
                            return None;
                        };
                        tb.v_row = dims[0];
                        tb.v_col = dims[1];
                        have_valid = (true, true);
                    }
                    "blayout" => {
                        let t = self.bump();
                        tb.blayout = match self.text(t) {
                            "row_major" | "RowMajor" | "0" => BLayout::RowMajor,
                            "col_major" | "ColMajor" | "1" => BLayout::ColMajor,
                            _ => {
                                self.err_at(t, "blayout must be row_major or col_major");
                                return None;
                            }
                        };
                    }
                    "slayout" => {
                        let t = self.bump();
                        tb.slayout = match self.text(t) {
                            "none_box" | "NoneBox" | "0" => SLayout::NoneBox,
                            "row_major" | "RowMajor" | "1" => SLayout::RowMajor,
                            "col_major" | "ColMajor" | "2" => SLayout::ColMajor,
                            _ => {
                                self.err_at(t, "slayout must be none_box, row_major or col_major");
                                return None;
                            }
                        };
                    }
                    _ => {
                        self.err_at(kt, format!("unknown !pto.tile_buf parameter '{key}'"));
                        return None;
                    }
                }
            }
            first = false;
            if self.tok.kind == Tok::Comma {
                self.bump();
            } else if self.tok.kind != Tok::Greater {
                self.err_here("expected ',' or '>' in !pto.tile_buf");
                return None;
            }
        }
        self.bump(); // >
        if !have_elem || !have_shape {
            self.err_at(at, "!pto.tile_buf needs a dtype and rows/cols");
            return None;
        }
        if !have_valid.0 {
            tb.v_row = Some(tb.rows);
        }
        if !have_valid.1 {
            tb.v_col = Some(tb.cols);
        }
        Some(self.intern(Type::TileBuf(tb)))
    }

    fn parse_dim_x(&mut self) -> Option<Dim> {
        // a dimension followed by 'x' glued to the next dimension (`16x?`, `16x8`)
        let d = if self.tok.kind == Tok::Question {
            self.bump();
            None
        } else {
            let t = self.bump();
            Some(self.text(t).parse::<i64>().ok()?)
        };
        // next token is an identifier starting with 'x' (e.g. `x8` or `x`)
        if self.tok.kind == Tok::Ident && self.cur_text().starts_with('x') {
            self.lx.reset(self.tok.start as usize + 1);
            self.tok = self.lx.next_token();
            Some(d)
        } else {
            self.err_here("expected 'x' between valid rows and columns");
            None
        }
    }
}

/// Replaces placeholder value ids (forward references) in an op tree.
fn remap(op: &mut Op, map: &HashMap<ValueId, ValueId>) {
    if map.is_empty() {
        return;
    }
    for e in &mut op.body {
        if let Elem::Use(v) = e {
            if let Some(n) = map.get(v) {
                *v = *n;
            }
        }
    }
    for r in &mut op.regions {
        for b in &mut r.blocks {
            for o in &mut b.ops {
                remap(o, map);
            }
        }
    }
}
