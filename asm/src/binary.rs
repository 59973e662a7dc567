//! The `.ptobin` format: an ELF file (written with `object`, read with `goblin`)
//! whose custom sections hold a module.
//!
//! | section | contents |
//! |---|---|
//! | `.pto.meta` | magic `PTOVMBIN`, format version (u16), isa-spec table hash (u64), profile (u8); read first |
//! | `.pto.consts` | string table, then the interned attribute table |
//! | `.pto.types` | interned types; each refers only to earlier types |
//! | `.pto.text` | value table (type, result-group index), aliases, then the op tree: per op its opcode and LEB128 operands (result groups, body elements, regions) |
//! | `.pto.debug` | source file name, value names, and `line:col` of every op in walk order |
//!
//! All integers are unsigned LEB128 unless noted; ids are dense indices numbered
//! by first appearance in a canonical walk of the module (the printer's order),
//! so text -> binary -> text -> binary is byte-identical. Every field is checked
//! on decode: a corrupt or hostile file yields a [`DecodeError`], never a panic.

use std::collections::HashMap;

use pto_isa_spec::{Opcode, ProfileId, OPS};

use crate::ast::{Alias, Block, Elem, File, Op, Punct, Region, ValueId, ValueInfo};
use crate::attr::Attr;
use crate::diag::Loc;
use crate::ty::{BLayout, Dim, SLayout, TileBuf, TileLoc, Type, TypeId, Types};

/// Magic bytes at the start of `.pto.meta`.
pub const MAGIC: &[u8; 8] = b"PTOVMBIN";
/// Binary format version; bumped on every incompatible change.
pub const FORMAT_VERSION: u16 = 1;

const SEC_META: &str = ".pto.meta";
const SEC_CONSTS: &str = ".pto.consts";
const SEC_TYPES: &str = ".pto.types";
const SEC_TEXT: &str = ".pto.text";
const SEC_DEBUG: &str = ".pto.debug";

const MAX_DEPTH: u32 = 256;

/// Why a binary could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Not an ELF file, or a malformed one.
    #[error("not a ptovm binary: {0}")]
    NotElf(String),
    /// A required section is missing.
    #[error("missing section {0}")]
    MissingSection(&'static str),
    /// The meta section has the wrong magic.
    #[error("bad magic in .pto.meta (not a ptovm binary)")]
    BadMagic,
    /// Written by another format version.
    #[error("binary format version {found}, this ptovm reads version {expected}; re-assemble the kernel with this pto-as")]
    Version {
        /// Found.
        found: u16,
        /// Supported.
        expected: u16,
    },
    /// Built against a different instruction table.
    #[error("binary was built against another instruction table (hash {found:016x}, this ptovm has {expected:016x}); re-assemble the kernel")]
    TableHash {
        /// Found.
        found: u64,
        /// Expected.
        expected: u64,
    },
    /// A field is out of range or truncated.
    #[error("corrupt {section} at byte {offset}: {what}")]
    Corrupt {
        /// Section.
        section: &'static str,
        /// Byte offset inside the section.
        offset: usize,
        /// What was wrong.
        what: String,
    },
}

/// What the decoder returns: the file and the profile recorded in the binary.
#[derive(Debug, Clone)]
pub struct Decoded {
    /// The module.
    pub file: File,
    /// Profile recorded by the assembler, if any.
    pub profile: Option<ProfileId>,
}

// ───────────────────────── writer helpers ─────────────────────────

fn leb(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn zigzag(v: i128) -> u128 {
    ((v << 1) ^ (v >> 127)) as u128
}

fn leb128_wide(out: &mut Vec<u8>, mut v: u128) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn dim_code(d: Dim) -> u64 {
    match d {
        None => 0,
        Some(v) => zigzag(v as i128) as u64 + 1,
    }
}

struct Enc<'a> {
    file: &'a File,
    strings: Vec<String>,
    str_ids: HashMap<String, u32>,
    types: Vec<u8>,
    n_types: u32,
    type_ids: HashMap<TypeId, u32>,
    attrs: Vec<u8>,
    n_attrs: u32,
    attr_ids: HashMap<Vec<u8>, u32>,
    values: Vec<ValueId>,
    value_ids: HashMap<ValueId, u32>,
    locs: Vec<Loc>,
}

impl<'a> Enc<'a> {
    fn str(&mut self, s: &str) -> u32 {
        if let Some(i) = self.str_ids.get(s) {
            return *i;
        }
        let i = self.strings.len() as u32;
        self.strings.push(s.to_string());
        self.str_ids.insert(s.to_string(), i);
        i
    }

    fn ty(&mut self, id: TypeId) -> u32 {
        if let Some(i) = self.type_ids.get(&id) {
            return *i;
        }
        let t = self.file.types.get(id).clone();
        let mut b = Vec::new();
        match &t {
            Type::Index => b.push(0),
            Type::None => b.push(1),
            Type::Int(w) => {
                b.push(2);
                leb(&mut b, *w as u64)
            }
            Type::SInt(w) => {
                b.push(3);
                leb(&mut b, *w as u64)
            }
            Type::UInt(w) => {
                b.push(4);
                leb(&mut b, *w as u64)
            }
            Type::Float(s) => {
                b.push(5);
                let s = self.str(s);
                leb(&mut b, s as u64)
            }
            Type::Vector { shape, elem } => {
                let e = self.ty(*elem);
                b.push(6);
                self.dims(&mut b, shape);
                leb(&mut b, e as u64)
            }
            Type::Shaped {
                kind,
                shape,
                unranked,
                elem,
                rest,
            } => {
                let e = self.ty(*elem);
                let k = self.str(kind);
                let r = rest.as_ref().map(|r| self.str(r));
                b.push(7);
                leb(&mut b, k as u64);
                b.push(*unranked as u8);
                self.dims(&mut b, shape);
                leb(&mut b, e as u64);
                self.opt(&mut b, r);
            }
            Type::Function { ins, outs } => {
                let ins: Vec<u32> = ins.iter().map(|t| self.ty(*t)).collect();
                let outs: Vec<u32> = outs.iter().map(|t| self.ty(*t)).collect();
                b.push(8);
                for l in [ins, outs] {
                    leb(&mut b, l.len() as u64);
                    for t in l {
                        leb(&mut b, t as u64);
                    }
                }
            }
            Type::Ptr { elem, space } => {
                let e = self.ty(*elem);
                let s = space.as_ref().map(|s| self.str(s));
                b.push(9);
                leb(&mut b, e as u64);
                self.opt(&mut b, s);
            }
            Type::TensorView { shape, elem }
            | Type::PartitionView { shape, elem }
            | Type::Tile { shape, elem } => {
                let e = self.ty(*elem);
                b.push(match t {
                    Type::TensorView { .. } => 10,
                    Type::PartitionView { .. } => 11,
                    _ => 13,
                });
                self.dims(&mut b, shape);
                leb(&mut b, e as u64);
            }
            Type::TileBuf(tb) => {
                let e = self.ty(tb.elem);
                b.push(12);
                b.push(tb.loc as u8);
                leb(&mut b, e as u64);
                leb(&mut b, dim_code(Some(tb.rows)));
                leb(&mut b, dim_code(Some(tb.cols)));
                leb(&mut b, dim_code(tb.v_row));
                leb(&mut b, dim_code(tb.v_col));
                b.push(tb.blayout as u8);
                b.push(tb.slayout as u8);
                leb(&mut b, tb.fractal as u64);
                leb(&mut b, tb.pad as u64);
                leb(&mut b, tb.compact as u64);
            }
            Type::VReg { lanes, elem } => {
                let e = self.ty(*elem);
                b.push(14);
                leb(&mut b, dim_code(Some(*lanes)));
                leb(&mut b, e as u64);
            }
            Type::Mask(g) => {
                let g = self.str(g);
                b.push(15);
                leb(&mut b, g as u64);
            }
            Type::Align => b.push(16),
            Type::Opaque { name, params } => {
                let n = self.str(name);
                let p = params.as_ref().map(|p| self.str(p));
                b.push(17);
                leb(&mut b, n as u64);
                self.opt(&mut b, p);
            }
            Type::Stripped(s) => {
                let s = self.str(s);
                b.push(18);
                leb(&mut b, s as u64);
            }
        }
        let i = self.n_types;
        self.n_types += 1;
        self.types.extend_from_slice(&b);
        self.type_ids.insert(id, i);
        i
    }

    fn dims(&mut self, b: &mut Vec<u8>, shape: &[Dim]) {
        leb(b, shape.len() as u64);
        for d in shape {
            leb(b, dim_code(*d));
        }
    }

    fn opt(&mut self, b: &mut Vec<u8>, v: Option<u32>) {
        match v {
            Some(v) => leb(b, v as u64 + 1),
            None => leb(b, 0),
        }
    }

    fn attr_bytes(&mut self, a: &Attr, b: &mut Vec<u8>) {
        match a {
            Attr::Unit => b.push(0),
            Attr::Bool(v) => {
                b.push(1);
                b.push(*v as u8)
            }
            Attr::Int { value, hex, ty } => {
                let t = ty.map(|t| self.ty(t));
                b.push(2);
                b.push(*hex as u8);
                leb128_wide(b, zigzag(*value));
                self.opt(b, t);
            }
            Attr::Float { bits, ty } => {
                let t = ty.map(|t| self.ty(t));
                b.push(3);
                b.extend_from_slice(&bits.to_le_bytes());
                self.opt(b, t);
            }
            Attr::Str(s) => {
                let s = self.str(s);
                b.push(4);
                leb(b, s as u64)
            }
            Attr::Type(t) => {
                let t = self.ty(*t);
                b.push(5);
                leb(b, t as u64)
            }
            Attr::Symbol(s) => {
                let s = self.str(s);
                b.push(6);
                leb(b, s as u64)
            }
            Attr::Array(items) => {
                b.push(7);
                leb(b, items.len() as u64);
                for i in items {
                    self.attr_bytes(i, b);
                }
            }
            Attr::Dict(d) => {
                b.push(8);
                self.dict_bytes(d, b);
            }
            Attr::Dialect { ns, body } => {
                let n = self.str(ns);
                let bo = body.as_ref().map(|x| self.str(x));
                b.push(9);
                leb(b, n as u64);
                self.opt(b, bo);
            }
            Attr::Keyword { kw, body } => {
                let k = self.str(kw);
                let bo = self.str(body);
                b.push(10);
                leb(b, k as u64);
                leb(b, bo as u64);
            }
        }
    }

    fn dict_bytes(&mut self, d: &[(String, Attr)], b: &mut Vec<u8>) {
        leb(b, d.len() as u64);
        for (k, v) in d {
            let k = self.str(k);
            leb(b, k as u64);
            self.attr_bytes(v, b);
        }
    }

    fn attr(&mut self, a: &Attr) -> u32 {
        let mut b = Vec::new();
        self.attr_bytes(a, &mut b);
        if let Some(i) = self.attr_ids.get(&b) {
            return *i;
        }
        let i = self.n_attrs;
        self.n_attrs += 1;
        self.attrs.extend_from_slice(&b);
        self.attr_ids.insert(b, i);
        i
    }

    /// Numbers every value an op tree defines, in print order, so result
    /// groups stay consecutive even when a value is used before it is
    /// defined (forward references in CFG regions).
    fn number_defs(&mut self, op: &Op) {
        for &(first, n) in &op.results {
            for k in 0..n {
                self.val(first + k);
            }
        }
        for e in &op.body {
            match e {
                Elem::Def(v) => {
                    self.val(*v);
                }
                Elem::Region(i) => {
                    if let Some(r) = op.regions.get(*i as usize) {
                        for b in &r.blocks {
                            for a in &b.args {
                                self.val(*a);
                            }
                            for o in &b.ops {
                                self.number_defs(o);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn val(&mut self, v: ValueId) -> u32 {
        if let Some(i) = self.value_ids.get(&v) {
            return *i;
        }
        let i = self.values.len() as u32;
        self.values.push(v);
        self.value_ids.insert(v, i);
        if let Some(t) = self.file.values.get(v as usize).and_then(|x| x.ty) {
            self.ty(t);
        }
        i
    }

    fn op(&mut self, op: &Op, out: &mut Vec<u8>) {
        leb(out, op.opcode as u64);
        out.push(op.generic as u8);
        self.locs.push(op.loc);
        leb(out, op.results.len() as u64);
        for &(first, n) in &op.results {
            let f = self.val(first);
            leb(out, f as u64);
            leb(out, n as u64);
        }
        leb(out, op.body.len() as u64);
        for e in &op.body {
            match e {
                Elem::Use(v) => {
                    let v = self.val(*v);
                    out.push(0);
                    leb(out, v as u64);
                }
                Elem::Def(v) => {
                    let v = self.val(*v);
                    out.push(1);
                    leb(out, v as u64);
                }
                Elem::Ident(s) => {
                    let s = self.str(s);
                    out.push(2);
                    leb(out, s as u64);
                }
                Elem::Attr(a) => {
                    let a = self.attr(a);
                    out.push(3);
                    leb(out, a as u64);
                }
                Elem::Type(t) => {
                    let t = self.ty(*t);
                    out.push(4);
                    leb(out, t as u64);
                }
                Elem::Dict(d) | Elem::Props(d) => {
                    out.push(if matches!(e, Elem::Dict(_)) { 5 } else { 6 });
                    leb(out, d.len() as u64);
                    for (k, v) in d {
                        let k = self.str(k);
                        let v = self.attr(v);
                        leb(out, k as u64);
                        leb(out, v as u64);
                    }
                }
                Elem::Region(i) => {
                    out.push(7);
                    leb(out, *i as u64);
                    // regions are written where they appear (print order)
                    match op.regions.get(*i as usize) {
                        Some(r) => self.region(r, out),
                        None => leb(out, 0),
                    }
                }
                Elem::Successor(s) => {
                    let s = self.str(s);
                    out.push(8);
                    leb(out, s as u64);
                }
                Elem::P(p) => {
                    out.push(9);
                    out.push(*p as u8);
                }
            }
        }
        leb(out, op.regions.len() as u64);
    }

    fn region(&mut self, r: &Region, out: &mut Vec<u8>) {
        leb(out, r.blocks.len() as u64);
        for b in &r.blocks {
            let l = b.label.as_ref().map(|l| self.str(l));
            self.opt(out, l);
            leb(out, b.args.len() as u64);
            for a in &b.args {
                let a = self.val(*a);
                leb(out, a as u64);
            }
            leb(out, b.ops.len() as u64);
            for o in &b.ops {
                self.op(o, out);
            }
        }
    }
}

/// Encodes a file into a `.ptobin` ELF image.
pub fn encode(file: &File, profile: Option<ProfileId>) -> Vec<u8> {
    let mut e = Enc {
        file,
        strings: Vec::new(),
        str_ids: HashMap::new(),
        types: Vec::new(),
        n_types: 0,
        type_ids: HashMap::new(),
        attrs: Vec::new(),
        n_attrs: 0,
        attr_ids: HashMap::new(),
        values: Vec::new(),
        value_ids: HashMap::new(),
        locs: Vec::new(),
    };
    // body of .pto.text (after the value table)
    let mut body = Vec::new();
    leb(&mut body, file.aliases.len() as u64);
    for a in &file.aliases {
        match a {
            Alias::Attr(n, v) => {
                let n = e.str(n);
                let v = e.attr(v);
                body.push(0);
                leb(&mut body, n as u64);
                leb(&mut body, v as u64);
            }
            Alias::Type(n, t) => {
                let n = e.str(n);
                let t = e.ty(*t);
                body.push(1);
                leb(&mut body, n as u64);
                leb(&mut body, t as u64);
            }
        }
    }
    for op in &file.items {
        e.number_defs(op);
    }
    leb(&mut body, file.items.len() as u64);
    for op in &file.items {
        e.op(op, &mut body);
    }
    // value table
    let mut text = Vec::new();
    leb(&mut text, e.values.len() as u64);
    let vals = e.values.clone();
    for v in &vals {
        let info = &file.values[*v as usize];
        let t = info.ty.map(|t| e.ty(t));
        e.opt(&mut text, t);
        leb(&mut text, info.group_index.map_or(0, |g| g as u64 + 1));
    }
    text.extend_from_slice(&body);
    // debug
    let mut debug = Vec::new();
    let src = e.str(&file.source_name);
    leb(&mut debug, src as u64);
    leb(&mut debug, vals.len() as u64);
    for v in &vals {
        let n = e.str(&file.values[*v as usize].name);
        leb(&mut debug, n as u64);
    }
    leb(&mut debug, e.locs.len() as u64);
    for l in e.locs.clone() {
        leb(&mut debug, l.line as u64);
        leb(&mut debug, l.col as u64);
    }
    // consts: strings then attrs
    let mut consts = Vec::new();
    leb(&mut consts, e.strings.len() as u64);
    for s in &e.strings {
        leb(&mut consts, s.len() as u64);
        consts.extend_from_slice(s.as_bytes());
    }
    leb(&mut consts, e.n_attrs as u64);
    consts.extend_from_slice(&e.attrs);
    let mut types = Vec::new();
    leb(&mut types, e.n_types as u64);
    types.extend_from_slice(&e.types);
    // meta
    let mut meta = Vec::new();
    meta.extend_from_slice(MAGIC);
    meta.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    meta.extend_from_slice(&pto_isa_spec::table_hash().to_le_bytes());
    meta.push(match profile {
        None => 0,
        Some(ProfileId::A2A3) => 1,
        Some(ProfileId::A5) => 2,
    });
    write_elf(&[
        (SEC_META, &meta),
        (SEC_CONSTS, &consts),
        (SEC_TYPES, &types),
        (SEC_TEXT, &text),
        (SEC_DEBUG, &debug),
    ])
}

fn write_elf(sections: &[(&str, &[u8])]) -> Vec<u8> {
    use object::elf;
    use object::write::elf::{FileHeader, SectionHeader, Writer};
    let mut buf = Vec::new();
    let mut w = Writer::new(object::Endianness::Little, true, &mut buf);
    w.reserve_file_header();
    let names: Vec<_> = sections
        .iter()
        .map(|(n, _)| w.add_section_name(n.as_bytes()))
        .collect();
    w.reserve_null_section_index();
    for _ in sections {
        w.reserve_section_index();
    }
    w.reserve_shstrtab_section_index();
    let offsets: Vec<usize> = sections
        .iter()
        .map(|(_, d)| w.reserve(d.len(), 8))
        .collect();
    w.reserve_shstrtab();
    w.reserve_section_headers();
    // Writing into a Vec cannot fail; errors here would be bugs in the layout above.
    let hdr = FileHeader {
        os_abi: elf::ELFOSABI_NONE,
        abi_version: 0,
        e_type: elf::ET_REL,
        e_machine: elf::EM_NONE,
        e_entry: 0,
        e_flags: 0,
    };
    if w.write_file_header(&hdr).is_err() {
        return Vec::new();
    }
    for (_, d) in sections {
        w.write_align(8);
        w.write(d);
    }
    w.write_shstrtab();
    w.write_null_section_header();
    for (i, (_, d)) in sections.iter().enumerate() {
        w.write_section_header(&SectionHeader {
            name: Some(names[i]),
            sh_type: elf::SHT_PROGBITS,
            sh_flags: 0,
            sh_addr: 0,
            sh_offset: offsets[i] as u64,
            sh_size: d.len() as u64,
            sh_link: 0,
            sh_info: 0,
            sh_addralign: 8,
            sh_entsize: 0,
        });
    }
    w.write_shstrtab_section_header();
    buf
}

// ───────────────────────── decoder ─────────────────────────

struct Rd<'a> {
    data: &'a [u8],
    pos: usize,
    section: &'static str,
}

impl<'a> Rd<'a> {
    fn new(data: &'a [u8], section: &'static str) -> Self {
        Rd {
            data,
            pos: 0,
            section,
        }
    }

    fn err(&self, what: impl Into<String>) -> DecodeError {
        DecodeError::Corrupt {
            section: self.section,
            offset: self.pos,
            what: what.into(),
        }
    }

    fn u8(&mut self) -> Result<u8, DecodeError> {
        let b = *self
            .data
            .get(self.pos)
            .ok_or_else(|| self.err("unexpected end of section"))?;
        self.pos += 1;
        Ok(b)
    }

    fn leb_wide(&mut self) -> Result<u128, DecodeError> {
        let mut v: u128 = 0;
        let mut shift = 0u32;
        loop {
            let b = self.u8()?;
            if shift >= 128 || (shift == 126 && b > 3) {
                return Err(self.err("LEB128 value too large"));
            }
            v |= ((b & 0x7f) as u128) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
            shift += 7;
        }
    }

    fn leb(&mut self) -> Result<u64, DecodeError> {
        let v = self.leb_wide()?;
        u64::try_from(v).map_err(|_| self.err("LEB128 value too large"))
    }

    fn u32(&mut self) -> Result<u32, DecodeError> {
        let v = self.leb()?;
        u32::try_from(v).map_err(|_| self.err(format!("value {v} too large")))
    }

    /// An id that must be < `limit`.
    fn id(&mut self, limit: usize, what: &str) -> Result<u32, DecodeError> {
        let v = self.leb()?;
        if v as usize >= limit || v > u32::MAX as u64 {
            return Err(self.err(format!("{what} id {v} out of range (have {limit})")));
        }
        Ok(v as u32)
    }

    fn opt_id(&mut self, limit: usize, what: &str) -> Result<Option<u32>, DecodeError> {
        let v = self.leb()?;
        if v == 0 {
            return Ok(None);
        }
        if (v - 1) as usize >= limit || v - 1 > u32::MAX as u64 {
            return Err(self.err(format!("{what} id {} out of range (have {limit})", v - 1)));
        }
        Ok(Some((v - 1) as u32))
    }

    /// A count of items that each take at least one byte.
    fn count(&mut self) -> Result<usize, DecodeError> {
        let n = self.leb()?;
        if n as usize > self.data.len().saturating_sub(self.pos) {
            return Err(self.err(format!("count {n} exceeds the remaining bytes")));
        }
        Ok(n as usize)
    }

    fn bytes(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|e| *e <= self.data.len())
            .ok_or_else(|| self.err("unexpected end of section"))?;
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn dim(&mut self) -> Result<Dim, DecodeError> {
        let v = self.leb()?;
        if v == 0 {
            return Ok(None);
        }
        let z = (v - 1) as u128;
        let d = ((z >> 1) as i128) ^ -((z & 1) as i128);
        i64::try_from(d)
            .map(Some)
            .map_err(|_| self.err("dimension out of range"))
    }

    fn end(&self) -> Result<(), DecodeError> {
        if self.pos != self.data.len() {
            return Err(self.err("trailing bytes"));
        }
        Ok(())
    }
}

fn unzigzag(z: u128) -> i128 {
    ((z >> 1) as i128) ^ -((z & 1) as i128)
}

struct Dec {
    /// SSA: every value is defined at most once
    defined: Vec<bool>,
    strings: Vec<String>,
    attrs: Vec<Attr>,
    types: Types,
    n_types: usize,
    n_values: usize,
    locs: Vec<Loc>,
}

impl Dec {
    fn string(&self, r: &mut Rd) -> Result<String, DecodeError> {
        let i = r.id(self.strings.len(), "string")?;
        Ok(self.strings[i as usize].clone())
    }

    fn opt_string(&self, r: &mut Rd) -> Result<Option<String>, DecodeError> {
        Ok(r.opt_id(self.strings.len(), "string")?
            .map(|i| self.strings[i as usize].clone()))
    }

    fn type_ref(&self, r: &mut Rd, below: usize) -> Result<TypeId, DecodeError> {
        r.id(below, "type")
    }

    fn dims(&self, r: &mut Rd) -> Result<Vec<Dim>, DecodeError> {
        let n = r.count()?;
        (0..n).map(|_| r.dim()).collect()
    }

    fn read_type(&self, r: &mut Rd, k: usize) -> Result<Type, DecodeError> {
        let tag = r.u8()?;
        let width = |r: &mut Rd| -> Result<u32, DecodeError> {
            let w = r.u32()?;
            if w == 0 || w > 1024 {
                return Err(r.err("integer width out of range"));
            }
            Ok(w)
        };
        Ok(match tag {
            0 => Type::Index,
            1 => Type::None,
            2 => Type::Int(width(r)?),
            3 => Type::SInt(width(r)?),
            4 => Type::UInt(width(r)?),
            5 => Type::Float(self.string(r)?),
            6 => {
                let shape = self.dims(r)?;
                Type::Vector {
                    shape,
                    elem: self.type_ref(r, k)?,
                }
            }
            7 => {
                let kind = self.string(r)?;
                let unranked = r.u8()? != 0;
                let shape = self.dims(r)?;
                let elem = self.type_ref(r, k)?;
                let rest = self.opt_string(r)?;
                Type::Shaped {
                    kind,
                    shape,
                    unranked,
                    elem,
                    rest,
                }
            }
            8 => {
                let mut lists = Vec::new();
                for _ in 0..2 {
                    let n = r.count()?;
                    let l: Result<Vec<_>, _> = (0..n).map(|_| self.type_ref(r, k)).collect();
                    lists.push(l?);
                }
                let outs = lists.pop().unwrap_or_default();
                let ins = lists.pop().unwrap_or_default();
                Type::Function { ins, outs }
            }
            9 => {
                let elem = self.type_ref(r, k)?;
                Type::Ptr {
                    elem,
                    space: self.opt_string(r)?,
                }
            }
            10 | 11 | 13 => {
                let shape = self.dims(r)?;
                let elem = self.type_ref(r, k)?;
                match tag {
                    10 => Type::TensorView { shape, elem },
                    11 => Type::PartitionView { shape, elem },
                    _ => Type::Tile { shape, elem },
                }
            }
            12 => {
                let loc = *TileLoc::ALL
                    .get(r.u8()? as usize)
                    .ok_or_else(|| r.err("bad tile location"))?;
                let elem = self.type_ref(r, k)?;
                let rows = r.dim()?.ok_or_else(|| r.err("dynamic rows"))?;
                let cols = r.dim()?.ok_or_else(|| r.err("dynamic cols"))?;
                let v_row = r.dim()?;
                let v_col = r.dim()?;
                let blayout = match r.u8()? {
                    0 => BLayout::RowMajor,
                    1 => BLayout::ColMajor,
                    _ => return Err(r.err("bad blayout")),
                };
                let slayout = match r.u8()? {
                    0 => SLayout::NoneBox,
                    1 => SLayout::RowMajor,
                    2 => SLayout::ColMajor,
                    _ => return Err(r.err("bad slayout")),
                };
                Type::TileBuf(TileBuf {
                    loc,
                    elem,
                    rows,
                    cols,
                    v_row,
                    v_col,
                    blayout,
                    slayout,
                    fractal: r.u32()?,
                    pad: r.u32()?,
                    compact: r.u32()?,
                })
            }
            14 => {
                let lanes = r.dim()?.ok_or_else(|| r.err("dynamic lanes"))?;
                Type::VReg {
                    lanes,
                    elem: self.type_ref(r, k)?,
                }
            }
            15 => Type::Mask(self.string(r)?),
            16 => Type::Align,
            17 => {
                let name = self.string(r)?;
                Type::Opaque {
                    name,
                    params: self.opt_string(r)?,
                }
            }
            18 => Type::Stripped(self.string(r)?),
            t => return Err(r.err(format!("unknown type tag {t}"))),
        })
    }

    fn read_attr(&self, r: &mut Rd, depth: u32) -> Result<Attr, DecodeError> {
        if depth > MAX_DEPTH {
            return Err(r.err("attribute nesting too deep"));
        }
        let tag = r.u8()?;
        Ok(match tag {
            0 => Attr::Unit,
            1 => Attr::Bool(match r.u8()? {
                0 => false,
                1 => true,
                _ => return Err(r.err("bad bool")),
            }),
            2 => {
                let hex = r.u8()? != 0;
                let value = unzigzag(r.leb_wide()?);
                if value > u64::MAX as i128 || value < -(u64::MAX as i128) {
                    return Err(r.err("integer out of range"));
                }
                Attr::Int {
                    value,
                    hex,
                    ty: r.opt_id(self.n_types, "type")?,
                }
            }
            3 => {
                let b = r.bytes(8)?;
                let mut a = [0u8; 8];
                a.copy_from_slice(b);
                Attr::Float {
                    bits: u64::from_le_bytes(a),
                    ty: r.opt_id(self.n_types, "type")?,
                }
            }
            4 => Attr::Str(self.string(r)?),
            5 => Attr::Type(r.id(self.n_types, "type")?),
            6 => Attr::Symbol(self.string(r)?),
            7 => {
                let n = r.count()?;
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    v.push(self.read_attr(r, depth + 1)?);
                }
                Attr::Array(v)
            }
            8 => Attr::Dict(self.read_dict_inline(r, depth)?),
            9 => {
                let ns = self.string(r)?;
                Attr::Dialect {
                    ns,
                    body: self.opt_string(r)?,
                }
            }
            10 => {
                let kw = self.string(r)?;
                Attr::Keyword {
                    kw,
                    body: self.string(r)?,
                }
            }
            t => return Err(r.err(format!("unknown attribute tag {t}"))),
        })
    }

    fn read_dict_inline(&self, r: &mut Rd, depth: u32) -> Result<Vec<(String, Attr)>, DecodeError> {
        let n = r.count()?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            let k = self.string(r)?;
            v.push((k, self.read_attr(r, depth + 1)?));
        }
        Ok(v)
    }

    fn value(&self, r: &mut Rd) -> Result<ValueId, DecodeError> {
        r.id(self.n_values, "value")
    }

    /// Marks values `first..first+n` defined; a second definition is corrupt.
    fn define(&mut self, r: &Rd, first: u32, n: u32) -> Result<(), DecodeError> {
        for v in first..first + n {
            match self.defined.get_mut(v as usize) {
                Some(d) if !*d => *d = true,
                _ => return Err(r.err(format!("value {v} is defined twice"))),
            }
        }
        Ok(())
    }

    fn read_op(&mut self, r: &mut Rd, depth: u32) -> Result<Op, DecodeError> {
        if depth > MAX_DEPTH {
            return Err(r.err("operation nesting too deep"));
        }
        let oc = r.leb()?;
        let opcode = u16::try_from(oc)
            .ok()
            .and_then(Opcode::from_u16)
            .ok_or_else(|| r.err(format!("unknown opcode {oc} (table has {})", OPS.len())))?;
        let generic = match r.u8()? {
            0 => false,
            1 => true,
            _ => return Err(r.err("bad op flags")),
        };
        let loc_index = self.locs.len();
        self.locs.push(Loc::default());
        let nres = r.count()?;
        let mut results = Vec::with_capacity(nres);
        for _ in 0..nres {
            let first = self.value(r)?;
            let n = r.u32()?;
            if n == 0 || first as u64 + n as u64 > self.n_values as u64 {
                return Err(r.err("result group out of range"));
            }
            self.define(r, first, n)?;
            results.push((first, n));
        }
        let nel = r.count()?;
        let mut body = Vec::with_capacity(nel);
        let mut regions_at: Vec<(u32, Region)> = Vec::new();
        for _ in 0..nel {
            let tag = r.u8()?;
            body.push(match tag {
                0 => Elem::Use(self.value(r)?),
                1 => {
                    let v = self.value(r)?;
                    self.define(r, v, 1)?;
                    Elem::Def(v)
                }
                2 => Elem::Ident(self.string(r)?),
                3 => {
                    let a = r.id(self.attrs.len(), "attribute")?;
                    Elem::Attr(self.attrs[a as usize].clone())
                }
                4 => Elem::Type(r.id(self.n_types, "type")?),
                5 | 6 => {
                    let n = r.count()?;
                    let mut d = Vec::with_capacity(n);
                    for _ in 0..n {
                        let k = self.string(r)?;
                        let a = r.id(self.attrs.len(), "attribute")?;
                        d.push((k, self.attrs[a as usize].clone()));
                    }
                    if tag == 5 {
                        Elem::Dict(d)
                    } else {
                        Elem::Props(d)
                    }
                }
                7 => {
                    let i = r.u32()?;
                    let reg = self.read_region(r, depth + 1)?;
                    regions_at.push((i, reg));
                    Elem::Region(i)
                }
                8 => Elem::Successor(self.string(r)?),
                9 => {
                    let p = r.u8()?;
                    Elem::P(
                        *Punct::ALL
                            .get(p as usize)
                            .ok_or_else(|| r.err("bad punctuation"))?,
                    )
                }
                t => return Err(r.err(format!("unknown element tag {t}"))),
            });
        }
        // regions were written inline; this count only cross-checks them
        let nreg = r.leb()? as usize;
        let _ = loc_index;
        // region indices must be exactly 0..nreg, each once
        if regions_at.len() != nreg {
            return Err(r.err("region count mismatch"));
        }
        let mut regions: Vec<Option<Region>> = vec![None; nreg];
        for (i, reg) in regions_at {
            let slot = regions
                .get_mut(i as usize)
                .ok_or_else(|| r.err("region index out of range"))?;
            if slot.is_some() {
                return Err(r.err("region written twice"));
            }
            *slot = Some(reg);
        }
        Ok(Op {
            opcode,
            results,
            body,
            regions: regions.into_iter().map(|x| x.unwrap_or_default()).collect(),
            loc: Loc::default(),
            generic,
        })
    }

    fn read_region(&mut self, r: &mut Rd, depth: u32) -> Result<Region, DecodeError> {
        if depth > MAX_DEPTH {
            return Err(r.err("region nesting too deep"));
        }
        let nb = r.count()?;
        let mut blocks = Vec::with_capacity(nb);
        for _ in 0..nb {
            let label = self.opt_string(r)?;
            let na = r.count()?;
            let mut args = Vec::with_capacity(na);
            for _ in 0..na {
                let v = self.value(r)?;
                self.define(r, v, 1)?;
                args.push(v);
            }
            let no = r.count()?;
            let mut ops = Vec::with_capacity(no);
            for _ in 0..no {
                ops.push(self.read_op(r, depth + 1)?);
            }
            blocks.push(Block { label, args, ops });
        }
        Ok(Region { blocks })
    }
}

fn type_children(t: &Type) -> Vec<TypeId> {
    match t {
        Type::Vector { elem, .. }
        | Type::Shaped { elem, .. }
        | Type::Ptr { elem, .. }
        | Type::TensorView { elem, .. }
        | Type::PartitionView { elem, .. }
        | Type::Tile { elem, .. }
        | Type::VReg { elem, .. } => vec![*elem],
        Type::TileBuf(tb) => vec![tb.elem],
        Type::Function { ins, outs } => ins.iter().chain(outs).copied().collect(),
        _ => Vec::new(),
    }
}

fn sections(bytes: &[u8]) -> Result<HashMap<String, &[u8]>, DecodeError> {
    let elf = goblin::elf::Elf::parse(bytes).map_err(|e| DecodeError::NotElf(e.to_string()))?;
    let mut out = HashMap::new();
    for sh in &elf.section_headers {
        let name = elf.shdr_strtab.get_at(sh.sh_name).unwrap_or("");
        if !name.starts_with(".pto.") {
            continue;
        }
        let start = usize::try_from(sh.sh_offset)
            .map_err(|_| DecodeError::NotElf("section offset".into()))?;
        let len =
            usize::try_from(sh.sh_size).map_err(|_| DecodeError::NotElf("section size".into()))?;
        let data = start
            .checked_add(len)
            .and_then(|end| bytes.get(start..end))
            .ok_or_else(|| DecodeError::NotElf(format!("section {name} lies outside the file")))?;
        out.insert(name.to_string(), data);
    }
    Ok(out)
}

/// Reads the profile recorded in a binary's meta section, checking magic, version
/// and table hash.
fn read_meta(meta: &[u8]) -> Result<Option<ProfileId>, DecodeError> {
    if meta.len() < 8 || &meta[..8] != MAGIC {
        return Err(DecodeError::BadMagic);
    }
    let mut r = Rd::new(&meta[8..], SEC_META);
    let v = r.bytes(2)?;
    let version = u16::from_le_bytes([v[0], v[1]]);
    if version != FORMAT_VERSION {
        return Err(DecodeError::Version {
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    let h = r.bytes(8)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(h);
    let hash = u64::from_le_bytes(a);
    if hash != pto_isa_spec::table_hash() {
        return Err(DecodeError::TableHash {
            found: hash,
            expected: pto_isa_spec::table_hash(),
        });
    }
    let p = match r.u8()? {
        0 => None,
        1 => Some(ProfileId::A2A3),
        2 => Some(ProfileId::A5),
        x => return Err(r.err(format!("unknown profile {x}"))),
    };
    r.end()?;
    Ok(p)
}

/// Decodes a `.ptobin` image. Never panics on hostile input.
pub fn decode(bytes: &[u8]) -> Result<Decoded, DecodeError> {
    let secs = sections(bytes)?;
    let get = |n: &'static str| secs.get(n).copied().ok_or(DecodeError::MissingSection(n));
    let profile = read_meta(get(SEC_META)?)?;
    // strings
    let consts = get(SEC_CONSTS)?;
    let mut rc = Rd::new(consts, SEC_CONSTS);
    let ns = rc.count()?;
    let mut strings = Vec::with_capacity(ns);
    for _ in 0..ns {
        let n = rc.count()?;
        let b = rc.bytes(n)?;
        strings.push(String::from_utf8(b.to_vec()).map_err(|_| rc.err("string is not UTF-8"))?);
    }
    let mut d = Dec {
        defined: Vec::new(),
        strings,
        attrs: Vec::new(),
        types: Types::default(),
        n_types: 0,
        n_values: 0,
        locs: Vec::new(),
    };
    // types
    let mut rt = Rd::new(get(SEC_TYPES)?, SEC_TYPES);
    let nt = rt.count()?;
    let mut depth: Vec<u32> = Vec::with_capacity(nt);
    for k in 0..nt {
        let t = d.read_type(&mut rt, k)?;
        // a type nests its components: bound the depth so printing cannot overflow
        let dep = 1 + type_children(&t)
            .iter()
            .map(|c| depth[*c as usize])
            .max()
            .unwrap_or(0);
        if dep > MAX_DEPTH {
            return Err(rt.err("types nested too deeply"));
        }
        depth.push(dep);
        let id = d.types.intern(t);
        if id as usize != k {
            return Err(rt.err("duplicate type entry"));
        }
    }
    rt.end()?;
    d.n_types = nt;
    // attrs
    let na = rc.count()?;
    for _ in 0..na {
        let a = d.read_attr(&mut rc, 0)?;
        d.attrs.push(a);
    }
    rc.end()?;
    // text
    let mut rx = Rd::new(get(SEC_TEXT)?, SEC_TEXT);
    let nv = rx.count()?;
    let mut values = Vec::with_capacity(nv);
    for _ in 0..nv {
        let ty = rx.opt_id(nt, "type")?;
        let g = rx.leb()?;
        let group_index = if g == 0 {
            None
        } else {
            Some(u32::try_from(g - 1).map_err(|_| rx.err("group index too large"))?)
        };
        values.push(ValueInfo {
            name: String::new(),
            group_index,
            ty,
            loc: Loc::default(),
        });
    }
    d.n_values = nv;
    d.defined = vec![false; nv];
    let nal = rx.count()?;
    let mut aliases = Vec::with_capacity(nal);
    for _ in 0..nal {
        let tag = rx.u8()?;
        let name = d.string(&mut rx)?;
        aliases.push(match tag {
            0 => {
                let a = rx.id(d.attrs.len(), "attribute")?;
                Alias::Attr(name, d.attrs[a as usize].clone())
            }
            1 => Alias::Type(name, rx.id(nt, "type")?),
            _ => return Err(rx.err("bad alias tag")),
        });
    }
    let ni = rx.count()?;
    let mut items = Vec::with_capacity(ni);
    for _ in 0..ni {
        items.push(d.read_op(&mut rx, 0)?);
    }
    rx.end()?;
    let n_ops = d.locs.len();
    let mut file = File {
        source_name: String::new(),
        items,
        types: std::mem::take(&mut d.types),
        values,
        aliases,
    };
    // debug (optional)
    match secs.get(SEC_DEBUG) {
        Some(dbg) => {
            let mut rd = Rd::new(dbg, SEC_DEBUG);
            file.source_name = d.string(&mut rd)?;
            let n = rd.count()?;
            if n != nv {
                return Err(rd.err("value name count does not match the value table"));
            }
            for v in file.values.iter_mut() {
                v.name = d.string(&mut rd)?;
            }
            let nl = rd.count()?;
            if nl != n_ops {
                return Err(rd.err("location count does not match the op count"));
            }
            let mut locs = Vec::with_capacity(nl);
            for _ in 0..nl {
                let line = rd.u32()?;
                let col = rd.u32()?;
                locs.push(Loc { line, col });
            }
            rd.end()?;
            let mut it = locs.into_iter();
            fn set(op: &mut Op, it: &mut std::vec::IntoIter<Loc>) {
                op.loc = it.next().unwrap_or_default();
                // same order as the encoder: body regions in element order
                let order: Vec<u32> = op
                    .body
                    .iter()
                    .filter_map(|e| match e {
                        Elem::Region(i) => Some(*i),
                        _ => None,
                    })
                    .collect();
                for i in order {
                    if let Some(r) = op.regions.get_mut(i as usize) {
                        for b in &mut r.blocks {
                            for o in &mut b.ops {
                                set(o, it);
                            }
                        }
                    }
                }
            }
            for op in &mut file.items {
                set(op, &mut it);
            }
            for (i, v) in file.values.iter_mut().enumerate() {
                if v.name.is_empty()
                    || !v
                        .name
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"_$.-".contains(&b))
                {
                    v.name = format!("v{i}");
                }
            }
        }
        None => {
            // members of a result group share their group's name (`%v3:2`, `%v3#1`)
            for (i, v) in file.values.iter_mut().enumerate() {
                let first = i as u32 - v.group_index.unwrap_or(0).min(i as u32);
                v.name = format!("v{first}");
            }
        }
    }
    Ok(Decoded { file, profile })
}

/// True if `bytes` look like an ELF file (used to tell `.ptobin` from `.pto` input).
pub fn is_elf(bytes: &[u8]) -> bool {
    bytes.starts_with(b"\x7fELF")
}
