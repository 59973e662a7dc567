//! Lowering: the verified module AST to a [`Program`] of flat code.
//!
//! Structured control flow becomes jumps (`scf.for` -> head check, body, step;
//! `scf.if` -> branch; `scf.while` -> before/after blocks), yields become
//! parallel moves, calls get frames. Every pipe instruction's operands are
//! decoded here once. Ops ptovm does not execute yet lower to
//! [`K::Unsupported`] and fail only if the kernel reaches them.

use std::collections::HashMap;
use std::sync::Arc;

use pto_asm::ast::{Elem, File, Imm, Op, Punct, Region};
use pto_asm::attr::Attr;
use pto_asm::diag::Diagnostic;
use pto_asm::ty::{Type, TypeId};
use pto_isa_spec::{DType, Opcode, Pipe, PipeRule};

use crate::program::*;
use crate::value::{Space, Val, ViewLayout};

/// Lowers a verified file.
pub fn lower(file: &File) -> Result<Program, Vec<Diagnostic>> {
    let mut l = Lowerer {
        file,
        insts: Vec::new(),
        funcs: HashMap::new(),
        fops: Vec::new(),
        inlining: Vec::new(),
        simt_info: None,
        pipes: HashMap::new(),
        cube_fn: None,
        sites: 0,
        errors: Vec::new(),
    };
    let mut fops: Vec<&Op> = Vec::new();
    fn collect<'a>(op: &'a Op, out: &mut Vec<&'a Op>) {
        if op.opcode == Opcode::Func {
            out.push(op);
        }
        if op.opcode == Opcode::Module {
            for r in &op.regions {
                for b in &r.blocks {
                    for o in &b.ops {
                        collect(o, out);
                    }
                }
            }
        }
    }
    for op in &file.items {
        collect(op, &mut fops);
    }
    for (i, f) in fops.iter().enumerate() {
        if let Some(Attr::Symbol(n)) = f.body.iter().find_map(|e| match e {
            Elem::Attr(a @ Attr::Symbol(_)) => Some(a),
            _ => None,
        }) {
            l.funcs.insert(n.clone(), i);
        }
    }
    l.fops = fops.clone();
    let mut funcs = Vec::new();
    for f in &fops {
        l.simt_info = None;
        funcs.push(l.func(f));
    }
    // a function that calls a cube kernel and a vector kernel is a mixed
    // kernel (one that calls only vector or only cube kernels runs on one core)
    let kinds: Vec<Option<bool>> = funcs.iter().map(|f: &Func| f.kernel_kind).collect();
    for f in funcs.iter_mut() {
        let called = |cube: bool| {
            f.code.iter().any(|i| {
                matches!(&i.k, K::Call { func, .. } if kinds.get(*func).copied().flatten() == Some(cube))
            })
        };
        if called(true) && called(false) {
            f.mixed = true;
        }
    }
    if !l.errors.is_empty() {
        return Err(l.errors);
    }
    Ok(Program {
        source_name: file.source_name.clone(),
        funcs,
        insts: l.insts,
        n_regs: file.values.len(),
        n_sites: l.sites,
        value_names: (0..file.values.len() as u32)
            .map(|v| file.value_name(v))
            .collect(),
        scopes: Default::default(),
    })
}

struct Lowerer<'a> {
    file: &'a File,
    insts: Vec<InstInfo>,
    funcs: HashMap<String, usize>,
    /// The functions, in `funcs` order (calls inside vector scopes inline them).
    fops: Vec<&'a Op>,
    /// Calls being inlined, innermost last: the call's result registers and
    /// the `return` jumps to patch to the end of the inlined body.
    inlining: Vec<(Vec<Reg>, Vec<usize>)>,
    /// The x, y, z registers of the last `pto.store_vfsimt_info` lowered in
    /// the current function: the launch dimensions of a later `func.call`
    /// to a `pto.simt_entry` function.
    simt_info: Option<[Reg; 3]>,
    /// The pipe handles `pto.initialize_l2l_pipe` / `initialize_l2g2l_pipe`
    /// defined so far: the handle's register -> (pipe id = flag_base,
    /// dir_mask), read by the internal `tpush`/`tpop`/`tfree`/`talloc`.
    pipes: HashMap<Reg, (u32, u32)>,
    /// The kernel kind of the function being lowered (Some(true): cube).
    cube_fn: Option<bool>,
    sites: u32,
    errors: Vec<Diagnostic>,
}

/// Where `scf.yield` / `scf.condition` inside a region send their values.
#[derive(Clone)]
enum YieldTo {
    /// Move into these registers.
    Regs(Vec<Reg>),
    /// `scf.while` before-region: condition decides.
    WhileCond {
        after_args: Vec<Reg>,
        results: Vec<Reg>,
    },
    /// Nowhere (function body, vecscope...).
    None,
}

struct Code {
    code: Vec<Inst>,
    /// indices of `Jump(usize::MAX)` placeholders that jump to the current loop/while exit
    exits: Vec<usize>,
}

fn dtype_of(file: &File, t: TypeId) -> Option<DType> {
    file.types.elem_dtype(t)
}

impl<'a> Lowerer<'a> {
    fn inst(&mut self, op: &Op, k: K) -> Inst {
        let id = self.insts.len() as InstId;
        self.insts.push(InstInfo {
            opcode: op.opcode,
            loc: op.loc,
        });
        Inst { id, k }
    }

    fn ty(&self, v: Reg) -> Option<&'a Type> {
        let t = self.file.values.get(v as usize)?.ty?;
        Some(self.file.types.get(t))
    }

    /// A SIMT packed value type (`vector<NxT>` of at most 64 bits): the
    /// lane type and count. Packed values live as `Val::Lanes` (the lanes'
    /// bytes, little-endian).
    fn packed(&self, v: Reg) -> Option<(DType, usize)> {
        let (shape, elem) = match self.ty(v)? {
            Type::Vector { shape, elem } => (shape, elem),
            Type::Opaque { name, params: None } if name == "pto.hif8x2" => {
                return Some((DType::HiF8, 2))
            }
            _ => return None,
        };
        let [Some(n)] = shape.as_slice() else {
            return None;
        };
        let dt = self.file.types.get(*elem).scalar_dtype()?;
        let n = usize::try_from(*n).ok()?;
        (n >= 1 && n * dt.bytes() <= 8).then_some((dt, n))
    }

    /// Bytes of a pointer's pointee when it is a packed `vector<NxT>` (0
    /// otherwise: the element type's size applies).
    fn packed_pointee_bytes(&self, v: Reg) -> u32 {
        let Some(Type::Ptr { elem, .. }) = self.ty(v) else {
            return 0;
        };
        match self.file.types.get(*elem) {
            Type::Vector { shape, elem } => {
                let n: i64 = shape.iter().map(|d| d.unwrap_or(0)).product();
                let es = self
                    .file
                    .types
                    .get(*elem)
                    .scalar_dtype()
                    .map_or(0, |d| d.bytes() as i64);
                u32::try_from(n * es).unwrap_or(0)
            }
            _ => 0,
        }
    }

    /// `dense<x>` / `dense<[x, y, ..]>` of a packed type: its lanes' bytes.
    fn packed_const(&self, dst: Reg, body: &str) -> Option<Val> {
        let (dt, n) = self.packed(dst)?;
        let body = body.trim();
        let items: Vec<&str> = match body.strip_prefix('[').and_then(|b| b.strip_suffix(']')) {
            Some(list) => list.split(',').map(str::trim).collect(),
            None => vec![body; n],
        };
        if items.len() != n {
            return None;
        }
        let es = dt.bytes();
        let mut bytes = vec![0u8; n * es];
        for (i, t) in items.iter().enumerate() {
            let num = if dt.is_float() {
                crate::num::Num::F(t.parse::<f64>().ok()?)
            } else {
                crate::num::Num::I(match *t {
                    "true" => 1,
                    "false" => 0,
                    t => t.parse::<i64>().ok()?,
                })
            };
            crate::num::write(&mut bytes[i * es..(i + 1) * es], dt, num);
        }
        bytes.resize(8, 0);
        let mut b = [0u8; 8];
        b.copy_from_slice(&bytes);
        Some(Val::Int(i64::from_le_bytes(b)))
    }

    /// A SIMT scalar's memory / bit type: a packed value's raw bits are an
    /// unsigned integer of its total width.
    fn sdtype(&self, v: Reg) -> DType {
        match self.packed(v) {
            Some((dt, n)) => match dt.bytes() * n {
                1 => DType::U8,
                2 => DType::U16,
                4 => DType::U32,
                _ => DType::U64,
            },
            None => self.vdtype(v),
        }
    }

    /// The lane type of a packed value, else the value's type.
    fn ldtype(&self, v: Reg) -> DType {
        self.packed(v).map_or_else(|| self.vdtype(v), |p| p.0)
    }

    fn lanes(&self, v: Reg) -> u8 {
        self.packed(v).map_or(1, |p| p.1 as u8)
    }

    fn vdtype(&self, v: Reg) -> DType {
        self.file
            .values
            .get(v as usize)
            .and_then(|x| x.ty)
            .and_then(|t| dtype_of(self.file, t))
            .unwrap_or(DType::I64)
    }

    fn func(&mut self, f: &Op) -> Func {
        self.cube_fn = f.attrs().find_map(|(k, a)| {
            (k == "pto.kernel_kind").then(|| a.enum_value().map(|v| v == "cube"))?
        });
        let name = f
            .body
            .iter()
            .find_map(|e| match e {
                Elem::Attr(Attr::Symbol(s)) => Some(s.clone()),
                _ => None,
            })
            .unwrap_or_default();
        let args: Vec<Reg> = f
            .body
            .iter()
            .filter_map(|e| match e {
                Elem::Def(v) => Some(*v),
                _ => None,
            })
            .collect();
        let arg_types = args
            .iter()
            .map(|a| match self.ty(*a) {
                Some(Type::Ptr { elem, .. }) => ArgType::GmPtr(
                    self.file
                        .types
                        .get(*elem)
                        .scalar_dtype()
                        .unwrap_or(DType::U8),
                ),
                Some(t) if t.is_int_like() => ArgType::Int(t.scalar_dtype().unwrap_or(DType::I64)),
                Some(t) if t.is_float() => ArgType::Float(t.scalar_dtype().unwrap_or(DType::F32)),
                Some(t) => ArgType::Other(format!("{t:?}")),
                None => ArgType::Other("unknown".into()),
            })
            .collect();
        let private = f
            .body
            .iter()
            .any(|e| matches!(e, Elem::Ident(s) if s == "private"));
        let entry = f
            .attrs()
            .any(|(k, _)| k == "pto.entry" || k == "pto.kernel")
            || !private;
        let mut c = Code {
            code: Vec::new(),
            exits: Vec::new(),
        };
        let mut mixed = false;
        if let Some(r) = f.regions.first() {
            mixed = region_has_sections(r);
            self.region(r, &mut c, &YieldTo::None, false);
        }
        // falling off the end returns
        let end = self.inst(f, K::Ret { vals: vec![] });
        c.code.push(end);
        let arg_bytes = args.iter().map(|a| self.view_extent(f, *a)).collect();
        let kernel_kind = f.attrs().find_map(|(k, a)| {
            (k == "pto.kernel_kind").then(|| a.enum_value().map(|v| v == "cube"))?
        });
        Func {
            name,
            args,
            arg_types,
            code: c.code,
            entry,
            mixed,
            kernel_kind,
            arg_bytes,
        }
    }

    /// Bytes the statically shaped tensor views built directly on `arg` cover.
    fn view_extent(&self, f: &Op, arg: Reg) -> u64 {
        let mut best = 0u64;
        let mut stack: Vec<&Op> = vec![f];
        while let Some(op) = stack.pop() {
            for r in &op.regions {
                for b in &r.blocks {
                    stack.extend(b.ops.iter());
                }
            }
            if op.opcode.name() != "pto.make_tensor_view" || op.uses().next() != Some(arg) {
                continue;
            }
            let Some(v) = op.result_values().next() else {
                continue;
            };
            if let Some(Type::TensorView { shape, .. }) = self.ty(v) {
                if shape.iter().all(|d| d.is_some()) {
                    let n: i64 = shape.iter().map(|d| d.unwrap_or(1).max(1)).product();
                    best = best.max(n as u64 * self.vdtype(v).bytes() as u64);
                }
            }
        }
        best
    }

    fn region(&mut self, r: &Region, c: &mut Code, y: &YieldTo, in_vec: bool) {
        if r.blocks.len() > 1 {
            if let Some(op) = r.blocks.iter().flat_map(|b| b.ops.first()).next() {
                let i = self.inst(
                    op,
                    K::Unsupported {
                        what: "regions with several blocks (unstructured control flow)".into(),
                    },
                );
                c.code.push(i);
            }
            return;
        }
        for b in &r.blocks {
            for op in &b.ops {
                self.op(op, c, y, in_vec);
            }
        }
    }

    fn uses(op: &Op) -> Vec<Reg> {
        op.uses().collect()
    }

    /// Values of `kw = [ ... ]` or `kw(...)`.
    fn kw_list(op: &Op, kw: &str) -> Vec<Reg> {
        let Some(i) = op
            .body
            .iter()
            .position(|e| matches!(e, Elem::Ident(k) if k == kw))
        else {
            return Vec::new();
        };
        let mut depth = 0;
        let mut out = Vec::new();
        for e in &op.body[i + 1..] {
            match e {
                Elem::P(Punct::Equal) if depth == 0 => {}
                Elem::P(Punct::LBracket | Punct::LParen) => depth += 1,
                Elem::P(Punct::RBracket | Punct::RParen) => {
                    depth -= 1;
                    if depth <= 0 {
                        break;
                    }
                }
                Elem::Use(v) if depth > 0 => out.push(*v),
                _ if depth == 0 => break,
                _ => {}
            }
        }
        out
    }

    /// The value of `kw = %v`.
    fn kw_value(op: &Op, kw: &str) -> Option<Reg> {
        op.body.windows(3).find_map(|w| match w {
            [Elem::Ident(k), Elem::P(Punct::Equal), Elem::Use(v)] if k == kw => Some(*v),
            _ => None,
        })
    }

    /// All `kw(...)` groups (for repeated `loop(...)`).
    fn kw_groups(op: &Op, kw: &str) -> Vec<Vec<Reg>> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < op.body.len() {
            if matches!(&op.body[i], Elem::Ident(k) if k == kw)
                && op.body.get(i + 1) == Some(&Elem::P(Punct::LParen))
            {
                let mut vals = Vec::new();
                let mut j = i + 2;
                while j < op.body.len() && op.body[j] != Elem::P(Punct::RParen) {
                    if let Elem::Use(v) = op.body[j] {
                        vals.push(v);
                    }
                    j += 1;
                }
                out.push(vals);
                i = j;
            }
            i += 1;
        }
        out
    }

    /// Uses before the first keyword group / colon.
    fn leading_uses(op: &Op) -> Vec<Reg> {
        let mut out = Vec::new();
        for e in &op.body {
            match e {
                Elem::Use(v) => out.push(*v),
                Elem::Ident(_) | Elem::P(Punct::Colon) | Elem::Dict(_) => break,
                _ => {}
            }
        }
        out
    }

    /// Issues `op` to `pipe` from its first `ins` and first `outs` value, or
    /// reports it unsupported with `why` when either is missing.
    fn issue_in_out(
        &mut self,
        op: &Op,
        c: &mut Code,
        pipe: Pipe,
        make: impl FnOnce(Reg, Reg) -> PipeOp,
        why: &str,
    ) {
        let ins = op.group_values("ins");
        let outs = op.group_values("outs");
        match (ins.first(), outs.first()) {
            (Some(&a), Some(&d)) => self.push(
                op,
                c,
                K::Issue {
                    pipe,
                    op: make(a, d),
                },
            ),
            _ => self.unsupported(op, c, why),
        }
    }

    /// A tile of `dst`'s `!pto.tile_buf` type at a fresh allocation site;
    /// `place` is the optional byte address and valid row/column registers.
    fn alloc_tile(
        &mut self,
        op: &Op,
        c: &mut Code,
        dst: Reg,
        place: (Option<Reg>, Option<Reg>, Option<Reg>),
    ) {
        let Some(Type::TileBuf(tb)) = self.ty(dst) else {
            return self.unsupported(op, c, "result is not a !pto.tile_buf");
        };
        let tb = *tb;
        let elem = self
            .file
            .types
            .get(tb.elem)
            .scalar_dtype()
            .unwrap_or(DType::U8);
        let site = self.sites;
        self.sites += 1;
        let (addr, vrow, vcol) = place;
        self.push(
            op,
            c,
            K::AllocTile {
                dst,
                site,
                tb,
                elem,
                addr,
                vrow,
                vcol,
            },
        );
    }

    fn unsupported(&mut self, op: &Op, c: &mut Code, why: &str) {
        let i = self.inst(
            op,
            K::Unsupported {
                what: format!("'{}' {why}", op.opcode.name()),
            },
        );
        c.code.push(i);
    }

    fn push(&mut self, op: &Op, c: &mut Code, k: K) {
        let i = self.inst(op, k);
        c.code.push(i);
    }

    fn results(op: &Op) -> Vec<Reg> {
        op.result_values().collect()
    }

    fn pipe_sym(s: &str) -> Option<Pipe> {
        Pipe::from_name(s)
    }

    /// Pipe from an op-class name (`TLOAD`, `TVEC`...), for record/wait_event and get_buf.
    fn class_pipe(s: &str) -> Option<Pipe> {
        Some(match s {
            "TLOAD" => Pipe::Mte2,
            "TSTORE_VEC" => Pipe::Mte3,
            "TSTORE_ACC" | "TMOV_M2S" | "TMOV_V2M" => Pipe::Fix,
            "TMOV_M2L" | "TMOV_M2B" => Pipe::Mte1,
            "TMOV_M2V" | "TVEC" | "TVECWAIT_EVENT" => Pipe::V,
            "TMATMUL" => Pipe::M,
            _ => return Self::pipe_sym(s),
        })
    }

    fn event_ref(imm: &Imm) -> Option<IdRef> {
        match imm {
            Imm::Value(v) => Some(IdRef::Dyn(*v)),
            Imm::Attr(Attr::Int { value, .. }) => Some(IdRef::Static(*value as i64)),
            other => {
                let s = other.symbol()?;
                let n = s.strip_prefix("EVENT_ID").unwrap_or(s);
                n.parse::<i64>().ok().map(IdRef::Static)
            }
        }
    }

    fn sync(&mut self, op: &Op, c: &mut Code) {
        let imms = op.immediates();
        let name = op.opcode.name();
        let pipes: Vec<Pipe> = imms
            .iter()
            .filter_map(|i| i.symbol().and_then(Self::class_pipe))
            .collect();
        let k = match name {
            "pto.set_flag" | "pto.wait_flag" | "pto.set_flag_dyn" | "pto.wait_flag_dyn"
            | "pto.record_event" | "pto.wait_event" => {
                let ev = imms
                    .iter()
                    .skip(2)
                    .find_map(Self::event_ref)
                    .or_else(|| imms.iter().rev().find_map(Self::event_ref));
                match (pipes.first(), pipes.get(1), ev) {
                    (Some(&src), Some(&dst), Some(event)) => {
                        if name.starts_with("pto.set") || name == "pto.record_event" {
                            SyncOp::SetFlag { src, dst, event }
                        } else {
                            SyncOp::WaitFlag { src, dst, event }
                        }
                    }
                    _ => return self.unsupported(
                        op,
                        c,
                        "has operands ptovm cannot decode (expected src pipe, dst pipe, event id)",
                    ),
                }
            }
            "pto.tsync" => {
                // barrier form names an op class (TADD, TLOAD...); only vector classes are allowed
                // (an `ins(...)` operand list is the event form: the symbols of
                // its types are not op classes)
                let class = imms
                    .iter()
                    .find_map(|i| i.symbol())
                    .map(|s| s.to_string())
                    .filter(|_| op.group_values("ins").is_empty());
                let Some(class) = class else {
                    // event-wait form on tiles/views: wait for everything issued so far
                    return self.push(op, c, K::Sync(SyncOp::Barrier { pipe: Pipe::All }));
                };
                let pipe = Opcode::lookup(&format!("pto.{}", class.to_ascii_lowercase()))
                    .and_then(|o| match o.info().pipe {
                        PipeRule::Fixed(p) => Some(p),
                        _ => None,
                    })
                    .or_else(|| Self::class_pipe(&class))
                    .unwrap_or(Pipe::V);
                if pipe != Pipe::V {
                    return self.push(op, c, K::TsyncNonVector { class, pipe });
                }
                SyncOp::Barrier { pipe }
            }
            // a memory fence: everything issued before it completes first
            "pto.fence.barrier_all" => SyncOp::Barrier { pipe: Pipe::All },
            "pto.barrier" | "pto.barrier_sync" => match pipes.first() {
                Some(&pipe) => SyncOp::Barrier { pipe },
                None => SyncOp::Barrier { pipe: Pipe::All },
            },
            // the `_dyn` forms take the buffer id as a register
            "pto.get_buf" | "pto.rls_buf" | "pto.get_buf_dyn" | "pto.rls_buf_dyn" => {
                let pipe = pipes.first().copied();
                let id = imms.iter().find_map(|i| match i {
                    Imm::Attr(Attr::Int { value, .. }) => Some(IdRef::Static(*value as i64)),
                    Imm::Value(v) => Some(IdRef::Dyn(*v)),
                    _ => None,
                });
                match (pipe, id) {
                    (Some(pipe), Some(id)) if name.starts_with("pto.get_buf") => {
                        SyncOp::GetBuf { pipe, id }
                    }
                    (Some(pipe), Some(id)) => SyncOp::RlsBuf { pipe, id },
                    _ => return self.unsupported(op, c, "needs a pipe and a buffer id"),
                }
            }
            "pto.set_intra_block"
            | "pto.sync.set"
            | "pto.set_cross_core"
            | "pto.set_cross_block" => {
                let id = imms.iter().rev().find_map(Self::event_ref);
                match id {
                    Some(id) => SyncOp::CrossSet {
                        pipe: pipes.first().copied().unwrap_or(Pipe::S),
                        id,
                        mode2: name != "pto.set_intra_block",
                    },
                    None => return self.unsupported(op, c, "needs a semaphore id"),
                }
            }
            "pto.wait_intra_block"
            | "pto.sync.wait"
            | "pto.wait_flag_dev"
            | "pto.wait_cross_block" => {
                let id = imms.iter().rev().find_map(Self::event_ref);
                let whole = name != "pto.wait_intra_block";
                match id {
                    Some(id) => SyncOp::CrossWait {
                        pipe: if whole {
                            Pipe::S
                        } else {
                            pipes.first().copied().unwrap_or(Pipe::S)
                        },
                        id,
                        whole_core: whole,
                    },
                    None => return self.unsupported(op, c, "needs a semaphore id"),
                }
            }
            "pto.mem_bar" => {
                let kind = imms
                    .iter()
                    .find_map(|i| i.symbol())
                    .unwrap_or("VV_ALL")
                    .to_string();
                return self.push(op, c, K::Vec(VecOp::MemBar { kind }));
            }
            // ptovm has no data cache or write buffer between the scalar unit
            // and memory: its stores are visible at once, so cache
            // clean/invalidate and the data barrier change nothing
            // `cmo.cacheinvalid` (a line or a whole address space) likewise
            "pto.dcci" | "pto.dsb" | "pto.cmo.cacheinvalid" => return self.push(op, c, K::Nop),
            // the FFTS flag base address: ptovm's cross-core semaphores are
            // scoreboard state, not memory at that address, so nothing reads it
            "pto.set_ffts" => return self.push(op, c, K::Nop),
            // all-core barrier across the blocks of the launch; the GM
            // workspace of the soft mode is not used (ptovm's barrier needs none)
            "pto.syncall" => {
                let ty = match attr(&Self::attrs_of(op), "core_type") {
                    Some(AttrVal::Sym(s)) => s.clone(),
                    _ => "mix".to_string(),
                };
                let kind = match ty.as_str() {
                    t if t.contains("aiv") => 1,
                    t if t.contains("aic") => 2,
                    t if t.contains("mix") => 0,
                    t => {
                        return self.unsupported(
                            op,
                            c,
                            &format!("has an unknown core_type {t} (aiv_only, aic_only or mix)"),
                        )
                    }
                };
                return self.push(op, c, K::SyncAll { kind });
            }
            _ => {
                return self.unsupported(op, c, "is a synchronization op ptovm does not model yet")
            }
        };
        self.push(op, c, K::Sync(k));
    }

    /// Decodes an op's attributes for the interpreter: dictionary entries,
    /// `key = literal` pairs, and positional symbols (under the key "").
    fn attrs_of(op: &Op) -> Arc<Attrs> {
        fn val(a: &Attr) -> Option<AttrVal> {
            Some(match a {
                Attr::Int { value, .. } => AttrVal::Int(*value as i64),
                Attr::Bool(b) => AttrVal::Int(*b as i64),
                Attr::Float { bits, .. } => AttrVal::Float(f64::from_bits(*bits)),
                Attr::Unit => AttrVal::Int(1),
                Attr::Keyword { kw, body } if body.is_empty() => AttrVal::Sym(kw.clone()),
                other => AttrVal::Sym(other.enum_value()?.to_string()),
            })
        }
        let mut out: Attrs = Vec::new();
        for (k, a) in op.attrs() {
            if let Some(v) = val(a) {
                out.push((k.clone(), v));
            }
        }
        for w in op.body.windows(3) {
            if let [Elem::Ident(k), Elem::P(Punct::Equal), Elem::Attr(a)] = w {
                if let Some(v) = val(a) {
                    out.push((k.clone(), v));
                }
            }
        }
        for i in op.immediates() {
            if let Imm::Attr(a) = i {
                if let Some(v) = val(a) {
                    out.push((String::new(), v));
                }
            }
        }
        Arc::new(out)
    }

    /// [`Self::attrs_of`] plus the bare markers some tile ops carry inside
    /// `ins(...)`: a `"row"`/`"col"` axis string (under `axis`) and `no_tmp`.
    fn tile_attrs(op: &Op) -> Arc<Attrs> {
        let mut out = (*Self::attrs_of(op)).clone();
        for e in &op.body {
            match e {
                Elem::Attr(Attr::Str(s)) if s == "row" || s == "col" => {
                    out.push(("axis".into(), AttrVal::Sym(s.clone())))
                }
                Elem::Ident(k) if k == "no_tmp" => out.push(("no_tmp".into(), AttrVal::Int(1))),
                _ => {}
            }
        }
        Arc::new(out)
    }

    fn static_shape(t: Option<&Type>) -> Vec<Option<i64>> {
        match t {
            Some(Type::TensorView { shape, .. } | Type::PartitionView { shape, .. }) => {
                shape.clone()
            }
            _ => Vec::new(),
        }
    }

    fn pipe_of(&self, op: &Op, tile: Option<Reg>) -> Pipe {
        match op.opcode.info().pipe {
            PipeRule::Fixed(p) => p,
            PipeRule::ByLocation => {
                let loc = tile.and_then(|t| match self.ty(t) {
                    Some(Type::TileBuf(tb)) => Some(tb.loc),
                    _ => None,
                });
                match loc {
                    Some(pto_asm::ty::TileLoc::Acc) => Pipe::Fix,
                    _ => Pipe::Mte3,
                }
            }
            _ => Pipe::V,
        }
    }

    /// The executing pipe of a tile op: fixed by the table, or (for `BYLOC`
    /// ops) from the memory locations of its first source and destination,
    /// following PTOAS's op -> pipe table.
    fn pipe_of_locs(&self, op: &Op, ins: &[Reg], outs: &[Reg]) -> Pipe {
        use pto_asm::ty::TileLoc as L;
        let loc = |v: Option<&Reg>| match v.and_then(|v| self.ty(*v)) {
            Some(Type::TileBuf(tb)) => Some(tb.loc),
            Some(Type::TensorView { .. } | Type::PartitionView { .. }) => None,
            _ => None,
        };
        match op.opcode.info().pipe {
            PipeRule::Fixed(p) => p,
            PipeRule::ByLocation => match (loc(ins.first()), loc(outs.first())) {
                (Some(L::Acc), _) => Pipe::Fix,
                (
                    Some(L::Mat),
                    Some(L::Left | L::Right | L::Bias | L::Scaling | L::ScaleLeft | L::ScaleRight),
                ) => Pipe::Mte1,
                (Some(L::Vec), Some(L::Mat)) => Pipe::Fix,
                // GM -> L1 mgather: the nd2nz / GM -> cbuf DMA (PTOAS
                // SyncMacroModel, pto-isa MGatherGm2L1*Impl)
                (None, Some(L::Mat)) if op.opcode == Opcode::MGather => Pipe::Mte2,
                (Some(L::Vec | L::Mat), None) => Pipe::Mte3,
                _ => Pipe::V,
            },
            _ => Pipe::V,
        }
    }

    fn ew_op(name: &str) -> Option<EwOp> {
        Some(match name {
            "tadd" | "tadds" | "vadd" | "vadds" => EwOp::Add,
            "tsub" | "tsubs" | "vsub" | "vsubs" => EwOp::Sub,
            "tmul" | "tmuls" | "vmul" | "vmuls" => EwOp::Mul,
            "tdiv" | "tdivs" | "vdiv" => EwOp::Div,
            "tmax" | "tmaxs" | "vmax" | "vmaxs" => EwOp::Max,
            "tmin" | "tmins" | "vmin" | "vmins" => EwOp::Min,
            "tabs" | "vabs" => EwOp::Abs,
            "tneg" | "vneg" => EwOp::Neg,
            "texp" | "vexp" => EwOp::Exp,
            "tlog" | "vln" => EwOp::Log,
            "tsqrt" | "vsqrt" => EwOp::Sqrt,
            "trsqrt" | "vrsqrt" => EwOp::Rsqrt,
            "trecip" | "vrec" => EwOp::Recip,
            "trelu" | "vrelu" => EwOp::Relu,
            "tand" | "tands" | "vand" | "vands" => EwOp::And,
            "tor" | "tors" | "vor" | "vors" => EwOp::Or,
            "txor" | "txors" | "vxor" | "vxors" => EwOp::Xor,
            "tshl" | "tshls" | "vshl" | "vshls" => EwOp::Shl,
            "tshr" | "tshrs" | "vshr" | "vshrs" => EwOp::Shr,
            "tnot" | "vnot" => EwOp::Not,
            _ => return None,
        })
    }

    fn op(&mut self, op: &Op, c: &mut Code, y: &YieldTo, in_vec: bool) {
        let name = op.opcode.name();
        let short = name.strip_prefix("pto.").unwrap_or(name);
        let u = Self::uses(op);
        let res = Self::results(op);
        let r0 = res.first().copied();
        match op.opcode {
            Opcode::ArithConstant => {
                let Some(dst) = r0 else { return };
                let val = op.body.iter().find_map(|e| match e {
                    Elem::Attr(Attr::Int { value, .. }) => {
                        let dt = self.vdtype(dst);
                        if dt.is_float() {
                            // hex bit pattern of a float
                            let bits = *value as u64;
                            let f = match dt {
                                DType::F32 => f32::from_bits(bits as u32) as f64,
                                DType::F16 => half::f16::from_bits(bits as u16).to_f64(),
                                DType::BF16 => half::bf16::from_bits(bits as u16).to_f64(),
                                _ => f64::from_bits(bits),
                            };
                            Some(Val::Float(f))
                        } else {
                            Some(Val::Int(crate::num::wrap(*value as i64, dt)))
                        }
                    }
                    Elem::Attr(Attr::Float { bits, .. }) => Some(Val::Float(
                        crate::num::round_float(f64::from_bits(*bits), self.vdtype(dst)),
                    )),
                    Elem::Attr(Attr::Bool(b)) => Some(Val::Int(*b as i64)),
                    Elem::Attr(Attr::Keyword { kw, body }) if kw == "dense" => {
                        self.packed_const(dst, body)
                    }
                    _ => None,
                });
                match val {
                    Some(val) => self.push(op, c, K::Const { dst, val }),
                    None => self.unsupported(
                        op,
                        c,
                        "has a constant kind ptovm cannot execute (dense/vector constants)",
                    ),
                }
            }
            Opcode::ArithAddi
            | Opcode::ArithSubi
            | Opcode::ArithMuli
            | Opcode::ArithDivsi
            | Opcode::ArithDivui
            | Opcode::ArithRemsi
            | Opcode::ArithRemui
            | Opcode::ArithFloordivsi
            | Opcode::ArithCeildivsi
            | Opcode::ArithCeildivui
            | Opcode::ArithAndi
            | Opcode::ArithOri
            | Opcode::ArithXori
            | Opcode::ArithShli
            | Opcode::ArithShrsi
            | Opcode::ArithShrui
            | Opcode::ArithMaxsi
            | Opcode::ArithMinsi
            | Opcode::ArithMaxui
            | Opcode::ArithMinui
            | Opcode::ArithAddf
            | Opcode::ArithSubf
            | Opcode::ArithMulf
            | Opcode::ArithDivf
            | Opcode::ArithRemf
            | Opcode::ArithMaximumf
            | Opcode::ArithMinimumf
            | Opcode::ArithMaxnumf
            | Opcode::ArithMinnumf => {
                let bop = match op.opcode {
                    Opcode::ArithAddi => BinOp::Add,
                    Opcode::ArithSubi => BinOp::Sub,
                    Opcode::ArithMuli => BinOp::Mul,
                    Opcode::ArithDivsi => BinOp::DivS,
                    Opcode::ArithDivui => BinOp::DivU,
                    Opcode::ArithRemsi => BinOp::RemS,
                    Opcode::ArithRemui => BinOp::RemU,
                    Opcode::ArithFloordivsi => BinOp::FloorDivS,
                    Opcode::ArithCeildivsi => BinOp::CeilDivS,
                    Opcode::ArithCeildivui => BinOp::CeilDivU,
                    Opcode::ArithAndi => BinOp::And,
                    Opcode::ArithOri => BinOp::Or,
                    Opcode::ArithXori => BinOp::Xor,
                    Opcode::ArithShli => BinOp::Shl,
                    Opcode::ArithShrsi => BinOp::ShrS,
                    Opcode::ArithShrui => BinOp::ShrU,
                    Opcode::ArithMaxsi => BinOp::MaxS,
                    Opcode::ArithMinsi => BinOp::MinS,
                    Opcode::ArithMaxui => BinOp::MaxU,
                    Opcode::ArithMinui => BinOp::MinU,
                    Opcode::ArithAddf => BinOp::AddF,
                    Opcode::ArithSubf => BinOp::SubF,
                    Opcode::ArithMulf => BinOp::MulF,
                    Opcode::ArithDivf => BinOp::DivF,
                    Opcode::ArithRemf => BinOp::RemF,
                    Opcode::ArithMaximumf | Opcode::ArithMaxnumf => BinOp::MaxF,
                    _ => BinOp::MinF,
                };
                match (r0, u.as_slice()) {
                    (Some(dst), [a, b]) if self.packed(dst).is_some() => {
                        let (dt, n) = self.packed(dst).unwrap_or((DType::I64, 1));
                        self.push(
                            op,
                            c,
                            K::PackedBin {
                                op: bop,
                                dst,
                                a: *a,
                                b: *b,
                                dt,
                                lanes: n as u8,
                            },
                        )
                    }
                    (Some(dst), [a, b]) => {
                        let dt = self.vdtype(dst);
                        self.push(
                            op,
                            c,
                            K::Bin {
                                op: bop,
                                dst,
                                a: *a,
                                b: *b,
                                dt,
                            },
                        )
                    }
                    _ => self.unsupported(op, c, "needs two operands and a result"),
                }
            }
            Opcode::ArithCmpi | Opcode::ArithCmpf => {
                let pred_s = op.body.iter().find_map(|e| match e {
                    Elem::Ident(s) => Some(s.clone()),
                    Elem::Attr(Attr::Str(s)) => Some(s.clone()),
                    _ => None,
                });
                let p = pred_s.as_deref().unwrap_or("");
                let (pred, unsigned) = match p {
                    "eq" | "oeq" | "ueq" => (Pred::Eq, false),
                    "ne" | "one" | "une" => (Pred::Ne, false),
                    "slt" | "olt" | "ult_f" => (Pred::Lt, false),
                    "sle" | "ole" => (Pred::Le, false),
                    "sgt" | "ogt" => (Pred::Gt, false),
                    "sge" | "oge" => (Pred::Ge, false),
                    "ult" => (Pred::Lt, op.opcode == Opcode::ArithCmpi),
                    "ule" => (Pred::Le, op.opcode == Opcode::ArithCmpi),
                    "ugt" => (Pred::Gt, op.opcode == Opcode::ArithCmpi),
                    "uge" => (Pred::Ge, op.opcode == Opcode::ArithCmpi),
                    _ => {
                        return self.unsupported(
                            op,
                            c,
                            &format!("predicate '{p}' is not supported"),
                        )
                    }
                };
                match (r0, u.as_slice()) {
                    (Some(dst), [a, b]) => self.push(
                        op,
                        c,
                        K::Cmp {
                            pred,
                            unsigned,
                            float: op.opcode == Opcode::ArithCmpf,
                            dst,
                            a: *a,
                            b: *b,
                        },
                    ),
                    _ => self.unsupported(op, c, "needs two operands"),
                }
            }
            Opcode::ArithBitcast | Opcode::LlvmBitcast
                if r0.is_some_and(|d| {
                    self.packed(d).is_some()
                        || matches!(
                            self.ty(d),
                            Some(Type::Int(_) | Type::SInt(_) | Type::UInt(_) | Type::Float(_))
                        )
                }) && u.first().is_some_and(|s| {
                    self.packed(*s).is_some()
                        || matches!(
                            self.ty(*s),
                            Some(Type::Int(_) | Type::SInt(_) | Type::UInt(_) | Type::Float(_))
                        )
                }) =>
            {
                let (Some(dst), Some(&src)) = (r0, u.first()) else {
                    return;
                };
                // packed values are their raw bits
                let (to, from) = (self.sdtype(dst), self.sdtype(src));
                if to.bytes() != from.bytes() || to.bytes() == 0 || to.bytes() > 8 {
                    return self.unsupported(op, c, "bitcasts between scalars of different widths");
                }
                self.push(op, c, K::Bitcast { dst, src, to, from })
            }
            Opcode::ArithSelect => match (r0, u.as_slice()) {
                (Some(dst), [cnd, a, b]) => self.push(
                    op,
                    c,
                    K::Select {
                        dst,
                        c: *cnd,
                        a: *a,
                        b: *b,
                    },
                ),
                _ => self.unsupported(op, c, "needs three operands"),
            },
            Opcode::ArithIndexCast
            | Opcode::ArithIndexCastui
            | Opcode::ArithTrunci
            | Opcode::ArithExtsi
            | Opcode::ArithExtui
            | Opcode::ArithSitofp
            | Opcode::ArithUitofp
            | Opcode::ArithFptosi
            | Opcode::ArithFptoui
            | Opcode::ArithExtf
            | Opcode::ArithTruncf
            | Opcode::ArithNegf
            | Opcode::MathExp
            | Opcode::MathLog
            | Opcode::MathSqrt
            | Opcode::MathRsqrt
            | Opcode::MathAbsf => {
                let conv = match op.opcode {
                    Opcode::ArithIndexCast | Opcode::ArithTrunci | Opcode::ArithExtsi => {
                        Conv::IntToInt { unsigned: false }
                    }
                    Opcode::ArithIndexCastui | Opcode::ArithExtui => {
                        Conv::IntToInt { unsigned: true }
                    }
                    Opcode::ArithSitofp => Conv::IntToFloat { unsigned: false },
                    Opcode::ArithUitofp => Conv::IntToFloat { unsigned: true },
                    Opcode::ArithFptosi | Opcode::ArithFptoui => Conv::FloatToInt,
                    Opcode::ArithExtf | Opcode::ArithTruncf => Conv::FloatToFloat,
                    Opcode::ArithNegf => Conv::NegF,
                    Opcode::MathExp => Conv::Math(MathFn::Exp),
                    Opcode::MathLog => Conv::Math(MathFn::Log),
                    Opcode::MathSqrt => Conv::Math(MathFn::Sqrt),
                    Opcode::MathRsqrt => Conv::Math(MathFn::Rsqrt),
                    _ => Conv::Math(MathFn::Abs),
                };
                match (r0, u.first()) {
                    (Some(dst), Some(src)) => {
                        let dt = self.vdtype(dst);
                        let from = self.vdtype(*src);
                        self.push(
                            op,
                            c,
                            K::Conv {
                                conv,
                                dst,
                                src: *src,
                                dt,
                                from,
                            },
                        )
                    }
                    _ => self.unsupported(op, c, "needs an operand and a result"),
                }
            }
            Opcode::ScfFor => self.lower_for(op, c, in_vec),
            Opcode::ScfIf => {
                let Some(&cond) = u.first() else {
                    return self.unsupported(op, c, "needs a condition");
                };
                let br = c.code.len();
                self.push(
                    op,
                    c,
                    K::BrFalse {
                        cond,
                        target: usize::MAX,
                    },
                );
                let yt = YieldTo::Regs(res.clone());
                if let Some(r) = op.regions.first() {
                    self.region(r, c, &yt, in_vec);
                }
                if op.regions.len() > 1 {
                    let j = c.code.len();
                    self.push(op, c, K::Jump(usize::MAX));
                    let else_start = c.code.len();
                    c.code[br].k = K::BrFalse {
                        cond,
                        target: else_start,
                    };
                    self.region(&op.regions[1], c, &yt, in_vec);
                    let end = c.code.len();
                    c.code[j].k = K::Jump(end);
                } else {
                    let end = c.code.len();
                    c.code[br].k = K::BrFalse { cond, target: end };
                }
            }
            Opcode::ScfWhile => self.lower_while(op, c, in_vec),
            Opcode::ScfYield => match y {
                YieldTo::Regs(dsts) if !dsts.is_empty() => self.push(
                    op,
                    c,
                    K::Moves {
                        dsts: dsts.clone(),
                        srcs: u,
                    },
                ),
                _ => {}
            },
            Opcode::ScfCondition => {
                if let YieldTo::WhileCond {
                    after_args,
                    results,
                    ..
                } = y
                {
                    let Some((&cond, rest)) = u.split_first() else {
                        return self.unsupported(op, c, "needs a condition");
                    };
                    // false: results <- args, exit; true: after args <- args, fall through
                    let br = c.code.len();
                    self.push(
                        op,
                        c,
                        K::BrFalse {
                            cond,
                            target: usize::MAX,
                        },
                    );
                    self.push(
                        op,
                        c,
                        K::Moves {
                            dsts: after_args.clone(),
                            srcs: rest.to_vec(),
                        },
                    );
                    let j = c.code.len();
                    self.push(op, c, K::Jump(usize::MAX)); // to after-region start, patched by while
                    let fl = c.code.len();
                    c.code[br].k = K::BrFalse { cond, target: fl };
                    self.push(
                        op,
                        c,
                        K::Moves {
                            dsts: results.clone(),
                            srcs: rest.to_vec(),
                        },
                    );
                    let x = c.code.len();
                    self.push(op, c, K::Jump(usize::MAX)); // exit, patched by while
                    c.exits.push(j);
                    c.exits.push(x);
                }
            }
            Opcode::Return if !self.inlining.is_empty() => {
                // the end of an inlined call: results, then past the body
                let dsts = self
                    .inlining
                    .last()
                    .map(|x| x.0.clone())
                    .unwrap_or_default();
                if !dsts.is_empty() {
                    self.push(op, c, K::Moves { dsts, srcs: u });
                }
                let j = c.code.len();
                self.push(op, c, K::Jump(usize::MAX));
                if let Some(top) = self.inlining.last_mut() {
                    top.1.push(j);
                }
            }
            Opcode::Return => self.push(op, c, K::Ret { vals: u }),
            Opcode::Call if in_vec => self.inline_call(op, &u, &res, c),
            Opcode::Call => {
                let callee = op.body.iter().find_map(|e| match e {
                    Elem::Attr(Attr::Symbol(s)) => Some(s.clone()),
                    _ => None,
                });
                let simt_entry = callee
                    .as_ref()
                    .and_then(|s| self.funcs.get(s))
                    .and_then(|i| self.fops.get(*i))
                    .is_some_and(|f| f.attr("pto.simt_entry").is_some());
                if simt_entry {
                    // a SIMT entry called from vector-side code: a launch
                    // with the dimensions pto.store_vfsimt_info configured
                    return match self.simt_info {
                        Some(dims) => self.simt_run(op, SimtDims::Regs(dims), &u, None, c),
                        None => self.unsupported(
                            op,
                            c,
                            "calls a pto.simt_entry function without a preceding pto.store_vfsimt_info in this function",
                        ),
                    };
                }
                match callee.and_then(|s| self.funcs.get(&s).copied()) {
                    Some(func) => self.push(
                        op,
                        c,
                        K::Call {
                            func,
                            args: u,
                            dsts: res,
                        },
                    ),
                    None => {
                        self.unsupported(op, c, "calls a function that is not defined in this file")
                    }
                }
            }
            _ => self.pto_op(op, short, &u, &res, c, in_vec),
        }
    }

    /// A call inside a vector scope: the vector unit has no call stack, so
    /// the callee's body is lowered in place (arguments moved into its
    /// parameters, each `return` moving the results and jumping past it).
    fn inline_call(&mut self, op: &Op, u: &[Reg], res: &[Reg], c: &mut Code) {
        let callee = op.body.iter().find_map(|e| match e {
            Elem::Attr(Attr::Symbol(s)) => Some(s.clone()),
            _ => None,
        });
        let Some(f) = callee
            .and_then(|s| self.funcs.get(&s).copied())
            .and_then(|i| self.fops.get(i).copied())
        else {
            return self.unsupported(op, c, "calls a function that is not defined in this file");
        };
        if self.inlining.len() >= 16 {
            return self.unsupported(
                op,
                c,
                "inside a pto.vecscope nests calls more than 16 deep (recursion cannot be inlined)",
            );
        }
        let params: Vec<Reg> = f
            .body
            .iter()
            .filter_map(|e| match e {
                Elem::Def(v) => Some(*v),
                _ => None,
            })
            .collect();
        if params.len() != u.len() {
            return self.unsupported(
                op,
                c,
                &format!(
                    "passes {} argument(s) to a function taking {}",
                    u.len(),
                    params.len()
                ),
            );
        }
        let Some(body) = f.regions.first() else {
            return self.unsupported(op, c, "calls a function without a body");
        };
        if !params.is_empty() {
            self.push(
                op,
                c,
                K::Moves {
                    dsts: params,
                    srcs: u.to_vec(),
                },
            );
        }
        self.inlining.push((res.to_vec(), Vec::new()));
        self.region(body, c, &YieldTo::None, true);
        let (_, jumps) = self.inlining.pop().unwrap_or_default();
        let end = c.code.len();
        for j in jumps {
            c.code[j].k = K::Jump(end);
        }
    }

    /// `pto.simt_launch @f<<<x, y, z>>>(args)`: one unit of work on PIPE_V (a
    /// vector scope) that runs the entry function's body once per thread,
    /// sequentially in thread-id order (x fastest). See docs/decisions.md.
    fn simt_launch(&mut self, op: &Op, u: &[Reg], c: &mut Code) {
        let [x, y, z, args @ ..] = u else {
            return self.unsupported(op, c, "needs x, y and z thread counts");
        };
        self.simt_run(op, SimtDims::Regs([*x, *y, *z]), args, None, c)
    }

    /// A SIMT thread loop in its own vector scope: the body of the called
    /// entry function (`region` None) or of a `pto.section.simt` region.
    fn simt_run(
        &mut self,
        op: &Op,
        dims: SimtDims,
        args: &[Reg],
        region: Option<&Region>,
        c: &mut Code,
    ) {
        let mut body = Code {
            code: Vec::new(),
            exits: Vec::new(),
        };
        let begin = self.inst(
            op,
            K::SimtBegin {
                dims,
                barrier: false,
            },
        );
        body.code.push(begin);
        let top = body.code.len();
        match region {
            None => self.inline_call(op, args, &[], &mut body),
            Some(r) => {
                for b in &r.blocks {
                    for o in &b.ops {
                        self.op(o, &mut body, &YieldTo::None, true);
                    }
                }
            }
        }
        if body.code.iter().any(|i| matches!(i.k, K::SimtSync)) {
            body.code[0].k = K::SimtBegin {
                dims,
                barrier: true,
            };
        }
        let next = self.inst(op, K::SimtNext { target: top });
        body.code.push(next);
        let end = self.inst(op, K::End);
        body.code.push(end);
        let captures = free_regs(&body.code);
        self.push(
            op,
            c,
            K::VecScope {
                body: Arc::new(body.code),
                captures,
                binds: Vec::new(),
            },
        );
    }

    fn lower_for(&mut self, op: &Op, c: &mut Code, in_vec: bool) {
        // body: Def(iv) = Use(lb) to Use(ub) step Use(step) [iter_args(Def = Use, ...)]
        let mut defs = Vec::new();
        let mut uses = Vec::new();
        for e in &op.body {
            match e {
                Elem::Def(v) => defs.push(*v),
                Elem::Use(v) => uses.push(*v),
                Elem::Region(_) => break,
                _ => {}
            }
        }
        if defs.is_empty() || uses.len() < 3 {
            return self.unsupported(op, c, "is missing its bounds");
        }
        let iv = defs[0];
        let (lb, ub, step) = (uses[0], uses[1], uses[2]);
        let iters = defs[1..].to_vec();
        let inits = uses[3..].to_vec();
        let res = Self::results(op);
        self.push(
            op,
            c,
            K::Moves {
                dsts: vec![iv],
                srcs: vec![lb],
            },
        );
        if !iters.is_empty() {
            self.push(
                op,
                c,
                K::Moves {
                    dsts: iters.clone(),
                    srcs: inits,
                },
            );
        }
        let head = c.code.len();
        self.push(
            op,
            c,
            K::ForCheck {
                iv,
                ub,
                target: usize::MAX,
            },
        );
        if let Some(r) = op.regions.first() {
            self.region(r, c, &YieldTo::Regs(iters.clone()), in_vec);
        }
        self.push(op, c, K::ForStep { iv, step });
        self.push(op, c, K::Jump(head));
        let end = c.code.len();
        c.code[head].k = K::ForCheck {
            iv,
            ub,
            target: end,
        };
        if !res.is_empty() {
            self.push(
                op,
                c,
                K::Moves {
                    dsts: res,
                    srcs: iters,
                },
            );
        }
    }

    fn lower_while(&mut self, op: &Op, c: &mut Code, in_vec: bool) {
        let mut defs = Vec::new();
        let mut inits = Vec::new();
        for e in &op.body {
            match e {
                Elem::Def(v) => defs.push(*v),
                Elem::Use(v) => inits.push(*v),
                Elem::Region(_) => break,
                _ => {}
            }
        }
        let res = Self::results(op);
        let after_args = op
            .regions
            .get(1)
            .and_then(|r| r.blocks.first())
            .map(|b| b.args.clone())
            .unwrap_or_default();
        self.push(
            op,
            c,
            K::Moves {
                dsts: defs.clone(),
                srcs: inits,
            },
        );
        let before = c.code.len();
        let saved = std::mem::take(&mut c.exits);
        if let Some(r) = op.regions.first() {
            let y = YieldTo::WhileCond {
                after_args: after_args.clone(),
                results: res,
            };
            self.region(r, c, &y, in_vec);
        }
        let fix = std::mem::replace(&mut c.exits, saved);
        let after = c.code.len();
        if let Some(r) = op.regions.get(1) {
            self.region(r, c, &YieldTo::Regs(defs.clone()), in_vec);
        }
        self.push(op, c, K::Jump(before));
        let end = c.code.len();
        // patch: first of each pair jumps to the after region, second exits
        for (n, idx) in fix.iter().enumerate() {
            c.code[*idx].k = K::Jump(if n % 2 == 0 { after } else { end });
        }
    }

    /// The cube <-> vector FIFO ops; None for any other op.
    fn fifo_op(
        &mut self,
        op: &Op,
        short: &str,
        u: &[Reg],
        r0: Option<Reg>,
        c: &mut Code,
    ) -> Option<K> {
        let raw = |k: &str| {
            op.attrs()
                .find(|(n, _)| n.as_str() == k)
                .map(|(_, a)| a.clone())
        };
        let int = |k: &str| match raw(k) {
            Some(Attr::Int { value, .. }) => Some(value as i64),
            _ => None,
        };
        let text = |k: &str| match raw(k) {
            Some(Attr::Str(s)) | Some(Attr::Symbol(s)) => Some(s),
            Some(a) => a.enum_value().map(|s| s.to_string()),
            None => None,
        };
        let id = int("id").unwrap_or(0).max(0) as u32;
        let split = int("split").unwrap_or(0).max(0) as u32;
        Some(match short {
            "reserve_buffer" => {
                let dst = r0?;
                let space = match text("location").as_deref() {
                    Some("mat") | Some("cbuf") => Space::L1,
                    _ => Space::Ub,
                };
                K::ReserveBuf {
                    dst,
                    name: text("name").unwrap_or_default(),
                    size: int("size").unwrap_or(0).max(0) as u64,
                    space,
                    base: int("base").map(|b| b.max(0) as u64),
                }
            }
            "import_reserved_buffer" => K::ImportBuf {
                dst: r0?,
                name: text("name").unwrap_or_default(),
                peer: text("peer_func").unwrap_or_default(),
            },
            "aic_initialize_pipe" | "aiv_initialize_pipe" => {
                K::PipeInit(Box::new(crate::fifo::PipeInit {
                    id,
                    dir_mask: int("dir_mask").unwrap_or(1).clamp(1, 3) as u32,
                    slot_size: int("slot_size").unwrap_or(0).max(0) as u64,
                    slot_num: int("slot_num").map(|n| n.max(1) as u64),
                    c2v_buf: Self::kw_value(op, "c2v_consumer_buf"),
                    v2c_buf: Self::kw_value(op, "v2c_consumer_buf"),
                    gm_tensor: Self::kw_value(op, "gm_slot_tensor"),
                    epilogue: match raw("acc_push_epilogue") {
                        Some(Attr::Dialect { body: Some(b), .. }) => {
                            Some(crate::fifo::Epilogue::parse(&b))
                        }
                        Some(_) => Some(crate::fifo::Epilogue::parse("")),
                        None => None,
                    },
                }))
            }
            "set_quant_scalar" | "set_quant_vector" => {
                let Some(&src) = u.first() else {
                    self.unsupported(op, c, "needs its scale operand");
                    return None;
                };
                K::SetQuant {
                    id,
                    src,
                    vector: short == "set_quant_vector",
                }
            }
            "tpush_to_aiv" | "tpush_to_aic" => {
                let Some(&entry) = u.first() else {
                    self.unsupported(op, c, "needs the pushed tile");
                    return None;
                };
                K::FifoPush {
                    id,
                    c2v: short == "tpush_to_aiv",
                    split,
                    entry,
                }
            }
            "tpop_from_aic" | "tpop_from_aiv" => {
                let dst = r0?;
                let tile = match self.ty(dst) {
                    Some(Type::TileBuf(tb)) => Some((
                        *tb,
                        self.file
                            .types
                            .get(tb.elem)
                            .scalar_dtype()
                            .unwrap_or(DType::U8),
                    )),
                    _ => None,
                };
                K::FifoPop {
                    id,
                    c2v: short == "tpop_from_aic",
                    split,
                    dst,
                    tile,
                }
            }
            "get_ctrl" => K::Ctrl {
                dst: Some(r0?),
                src: None,
            },
            "set_ctrl" => K::Ctrl {
                dst: None,
                src: Some(*u.first()?),
            },
            "sbitset0" | "sbitset1" => match (r0, u) {
                (Some(dst), [src, bit]) => K::BitSet {
                    dst,
                    src: *src,
                    bit: *bit,
                    set: short == "sbitset1",
                },
                _ => return None,
            },
            "talloc_to_aiv" | "talloc_to_aic" => K::FifoAlloc {
                id,
                c2v: short == "talloc_to_aiv",
                dst: r0?,
            },
            "tfree_from_aic" | "tfree_from_aiv" => K::FifoFree {
                id,
                c2v: short == "tfree_from_aic",
                split,
            },
            // The internal pipe-handle forms PTOAS lowers the frontend ops
            // into (PTOLowerFrontendPipeOpsPass): the init gives a handle,
            // cube and vector inits pair by flag_base, and dir_mask 1 / 2 / 3
            // puts the consumer buffer(s) in local_addr (c2v or v2c) /
            // local_addr (c2v) + peer_local_addr (v2c), after the GM slots
            // of an l2g2l pipe.
            "initialize_l2l_pipe" | "initialize_l2g2l_pipe" => {
                let dst = r0?;
                let id = int("flag_base")
                    .or_else(|| int("__pto.frontend_id"))
                    .unwrap_or(0)
                    .max(0) as u32;
                let dir_mask = int("dir_mask").unwrap_or(1);
                if !(1..=3).contains(&dir_mask) {
                    self.unsupported(op, c, "needs dir_mask 1, 2 or 3");
                    return None;
                }
                let (gm, local) = if short == "initialize_l2g2l_pipe" {
                    (u.first().copied(), u.get(1..).unwrap_or(&[]))
                } else {
                    (None, u)
                };
                let (c2v_buf, v2c_buf) = match (dir_mask, local) {
                    (1, [l, ..]) => (Some(*l), None),
                    (2, [l, ..]) => (None, Some(*l)),
                    (3, [l, p, ..]) => (Some(*l), Some(*p)),
                    (3, [l]) => (Some(*l), None),
                    _ => (None, None),
                };
                self.pipes.insert(dst, (id, dir_mask as u32));
                K::PipeInit(Box::new(crate::fifo::PipeInit {
                    id,
                    dir_mask: dir_mask as u32,
                    slot_size: int("slot_size").unwrap_or(0).max(0) as u64,
                    slot_num: int("slot_num").map(|n| n.max(1) as u64),
                    c2v_buf,
                    v2c_buf,
                    gm_tensor: gm,
                    epilogue: match raw("acc_push_epilogue") {
                        Some(Attr::Dialect { body: Some(b), .. }) => {
                            Some(crate::fifo::Epilogue::parse(&b))
                        }
                        Some(_) => Some(crate::fifo::Epilogue::parse("")),
                        None => None,
                    },
                }))
            }
            // a GM descriptor a later talloc / tpop binds (PTOAS: "whose
            // address is assigned later"); nothing happens until then
            "declare_global" => {
                r0?;
                K::Nop
            }
            "tpush" | "tpop" | "tfree" | "talloc" => {
                let Some((pipe, &(id, dir))) = u
                    .iter()
                    .enumerate()
                    .find_map(|(i, r)| self.pipes.get(r).map(|p| (i, p)))
                else {
                    self.unsupported(
                        op,
                        c,
                        "needs a pipe handle from an initialize_l2l_pipe / initialize_l2g2l_pipe lowered before it",
                    );
                    return None;
                };
                if u.len() > pipe + 1 {
                    self.unsupported(op, c, "with aiv_subblockid is not implemented");
                    return None;
                }
                // the producer side pushes / allocates, the consumer pops /
                // frees: on a one-way pipe the direction is the pipe's, on a
                // two-way one the function's core decides
                let producer = matches!(short, "tpush" | "talloc");
                let c2v = match (dir, self.cube_fn) {
                    (1, _) => true,
                    (2, _) => false,
                    (_, Some(cube)) => cube == producer,
                    (_, None) => {
                        self.unsupported(
                            op,
                            c,
                            "on a two-way pipe needs a function with pto.kernel_kind",
                        );
                        return None;
                    }
                };
                let entry = if pipe > 0 { Some(u[0]) } else { None };
                match (short, entry) {
                    ("tpush", Some(entry)) => K::FifoPush {
                        id,
                        c2v,
                        split,
                        entry,
                    },
                    ("tpop", Some(dst)) => {
                        let tile = match self.ty(dst) {
                            Some(Type::TileBuf(tb)) => Some((
                                *tb,
                                self.file
                                    .types
                                    .get(tb.elem)
                                    .scalar_dtype()
                                    .unwrap_or(DType::U8),
                            )),
                            _ => None,
                        };
                        K::FifoPop {
                            id,
                            c2v,
                            split,
                            dst,
                            tile,
                        }
                    }
                    ("talloc", Some(dst)) => K::FifoAlloc { id, c2v, dst },
                    ("tfree", _) => K::FifoFree { id, c2v, split },
                    _ => {
                        self.unsupported(op, c, "needs its entry operand");
                        return None;
                    }
                }
            }
            _ => return None,
        })
    }

    fn tile_dtype(&self, v: Reg) -> DType {
        self.vdtype(v)
    }

    #[allow(clippy::too_many_arguments)]
    fn pto_op(&mut self, op: &Op, short: &str, u: &[Reg], res: &[Reg], c: &mut Code, in_vec: bool) {
        let info = op.opcode.info();
        let r0 = res.first().copied();
        if info.class == pto_isa_spec::Class::Sync {
            return self.sync(op, c);
        }
        if in_vec && crate::exec::vec_ops::implemented(op.opcode) {
            return self.generic_vec(op, u, res, c);
        }
        match op.opcode {
            // the UB sorter ops are written outside vector scopes: each is a
            // scope of its own on PIPE_V
            Opcode::VBitsort | Opcode::VMrgsort4 if !in_vec => {
                let mut body = Code {
                    code: Vec::new(),
                    exits: Vec::new(),
                };
                self.generic_vec(op, u, res, &mut body);
                let end = self.inst(op, K::End);
                body.code.push(end);
                let captures = free_regs(&body.code);
                return self.push(
                    op,
                    c,
                    K::VecScope {
                        body: Arc::new(body.code),
                        captures,
                        binds: Vec::new(),
                    },
                );
            }
            // a status register the scalar unit reads (after syncing with V)
            Opcode::GetVms4Sr => return self.generic_vec(op, u, res, c),
            _ => {}
        }
        if info.class == pto_isa_spec::Class::Comm {
            return self.lower_comm(op, short, res, c);
        }
        if let Some(k) = self.fifo_op(op, short, u, r0, c) {
            return self.push(op, c, k);
        }
        match short {
            "simt_launch" => self.simt_launch(op, u, c),
            "get_tid_x" | "get_tid_y" | "get_tid_z" | "get_block_dim_x" | "get_block_dim_y"
            | "get_block_dim_z" | "get_laneid" | "get_grid_dim_x" | "get_grid_dim_y"
            | "get_grid_dim_z" | "get_block_idx_x" | "get_block_idx_y" | "get_block_idx_z"
            | "get_lanemask_eq" | "get_lanemask_le" | "get_lanemask_lt" | "get_lanemask_ge"
            | "get_lanemask_gt" | "get_veccoreid" | "get_clock32" | "get_clock64" => {
                let what = match short {
                    "get_tid_x" => 0,
                    "get_tid_y" => 1,
                    "get_tid_z" => 2,
                    "get_block_dim_x" => 3,
                    "get_block_dim_y" => 4,
                    "get_block_dim_z" => 5,
                    "get_laneid" => 6,
                    "get_grid_dim_x" => 7,
                    "get_grid_dim_y" => 8,
                    "get_grid_dim_z" => 9,
                    "get_block_idx_x" => 10,
                    "get_block_idx_y" => 11,
                    "get_block_idx_z" => 12,
                    "get_lanemask_eq" => 13,
                    "get_lanemask_le" => 14,
                    "get_lanemask_lt" => 15,
                    "get_lanemask_ge" => 16,
                    "get_lanemask_gt" => 17,
                    "get_veccoreid" => 18,
                    "get_clock32" => 19,
                    _ => 20,
                };
                if let Some(dst) = r0 {
                    self.push(op, c, K::SimtId { dst, what });
                }
            }
            "syncthreads" => self.push(op, c, K::SimtSync),
            // ptovm's memory is sequentially consistent: a fence orders nothing more
            "threadfence" | "threadfence_block" => self.push(op, c, K::Nop),
            "keep" | "resume" => {
                let slot = op.attrs().find_map(|(k, a)| match a {
                    Attr::Int { value, .. } if k == "slot" => Some(*value as i64),
                    _ => None,
                });
                let Some(slot) = slot.filter(|s| (0..=122).contains(s)) else {
                    return self.unsupported(op, c, "needs a slot attribute in [0, 122]");
                };
                match (short, r0, u.first()) {
                    ("keep", _, Some(&src)) => self.push(op, c, K::SimtKeep { src, slot }),
                    ("resume", Some(dst), _) => self.push(op, c, K::SimtResume { dst, slot }),
                    _ => self.unsupported(op, c, "needs a value (keep) or a result (resume)"),
                }
            }
            "vote_all" | "vote_any" | "vote_uni" | "vote_ballot" | "shuffle_idx" | "shuffle_up"
            | "shuffle_down" | "shuffle_bfly" | "redux_add" | "redux_max" | "redux_min" => {
                self.warp_op(op, short, u, r0, c)
            }
            "sqrt" | "absf" | "exp" | "log" | "sin" | "cos" | "ceil" | "floor" | "rint"
            | "round" | "fmin" | "fmax" | "pow" | "fma" => {
                const NAMES: [&str; 14] = [
                    "sqrt", "absf", "exp", "log", "sin", "cos", "ceil", "floor", "rint", "round",
                    "fmin", "fmax", "pow", "fma",
                ];
                let opn = NAMES
                    .iter()
                    .copied()
                    .find(|n| *n == short)
                    .unwrap_or("sqrt");
                match r0 {
                    Some(dst) => {
                        let dt = self.ldtype(dst);
                        self.push(
                            op,
                            c,
                            K::FMath {
                                op: opn,
                                dst,
                                args: u.to_vec(),
                                dt,
                                lanes: self.lanes(dst),
                            },
                        )
                    }
                    None => self.unsupported(op, c, "needs a result"),
                }
            }
            "convert" => {
                let unsigned = op.body.iter().any(|e| match e {
                    Elem::Ident(w) => w == "unsigned",
                    Elem::Attr(Attr::Keyword { kw, .. }) => kw == "unsigned",
                    _ => false,
                });
                // round(X): the identifier after `round`
                let mut round = 'r';
                let mut it = op.body.iter().peekable();
                while let Some(e) = it.next() {
                    if matches!(e, Elem::Ident(w) if w == "round") {
                        for x in it.by_ref() {
                            if let Elem::Ident(w) = x {
                                round = w.chars().next().unwrap_or('r');
                                break;
                            }
                        }
                        break;
                    }
                }
                match (r0, u.first()) {
                    (Some(dst), Some(&src)) => {
                        let (to, from) = (self.ldtype(dst), self.ldtype(src));
                        let lanes = self.lanes(src);
                        if lanes != self.lanes(dst) {
                            return self.unsupported(
                                op,
                                c,
                                "converts between different lane counts",
                            );
                        }
                        self.push(
                            op,
                            c,
                            K::SConvert {
                                dst,
                                src,
                                to,
                                from,
                                round,
                                unsigned,
                                lanes,
                            },
                        )
                    }
                    _ => self.unsupported(op, c, "needs an operand and a result"),
                }
            }
            "mulhi" | "mul_i32toi64" | "prmt" => {
                let opn: &'static str = match short {
                    "mulhi" => "mulhi",
                    "prmt" => "prmt",
                    _ => "mul_i32toi64",
                };
                let unsigned = op.body.iter().any(|e| match e {
                    Elem::Ident(w) => w == "unsigned",
                    Elem::Attr(Attr::Keyword { kw, .. }) => kw == "unsigned",
                    _ => false,
                });
                let need = if opn == "prmt" { 3 } else { 2 };
                match (r0, u.get(..need)) {
                    (Some(dst), Some(args)) => {
                        let bits = (self.vdtype(args[0]).bytes() * 8) as u32;
                        self.push(
                            op,
                            c,
                            K::IntMath {
                                op: opn,
                                dst,
                                args: args.to_vec(),
                                bits,
                                unsigned,
                            },
                        )
                    }
                    _ => self.unsupported(op, c, "needs its operands and a result"),
                }
            }
            "atomic_add" | "atomic_sub" | "atomic_min" | "atomic_max" | "atomic_and"
            | "atomic_or" | "atomic_xor" | "atomic_exch" | "atomic_cas" => {
                let name = &short["atomic_".len()..];
                let opn: &'static str = match name {
                    "add" => "add",
                    "sub" => "sub",
                    "min" => "min",
                    "max" => "max",
                    "and" => "and",
                    "or" => "or",
                    "xor" => "xor",
                    "exch" => "exch",
                    _ => "cas",
                };
                let unsigned = op.body.iter().any(|e| match e {
                    Elem::Ident(w) => w == "unsigned",
                    Elem::Attr(Attr::Keyword { kw, .. }) => kw == "unsigned",
                    _ => false,
                });
                let (ptr, cmp, val) = match (opn, u) {
                    ("cas", [p, c, v, ..]) => (*p, Some(*c), *v),
                    (_, [p, v, ..]) if opn != "cas" => (*p, None, *v),
                    _ => return self.unsupported(op, c, "needs a pointer and value operands"),
                };
                let dt = self.ldtype(val);
                let lanes = self.lanes(val);
                self.push(
                    op,
                    c,
                    K::Atomic {
                        op: opn,
                        dst: r0,
                        ptr,
                        val,
                        cmp,
                        dt,
                        lanes,
                        unsigned,
                    },
                );
            }
            "get_block_idx" | "get_block_num" | "get_subblock_idx" | "get_subblock_num" => {
                let what = match short {
                    "get_block_idx" => 0,
                    "get_block_num" => 1,
                    "get_subblock_idx" => 2,
                    _ => 3,
                };
                if let Some(dst) = r0 {
                    self.push(op, c, K::Query { dst, what });
                }
            }
            // one element at ptr[off]: the scalar unit's loads and stores;
            // ld_dev/st_dev bypass the scalar data cache (which ptovm does
            // not model); SIMT threads' per-thread load/ldg/store/stg
            "load_scalar" | "store_scalar" | "ld_dev" | "st_dev" | "load" | "ldg" | "store"
            | "stg" => {
                let load = matches!(short, "load_scalar" | "ld_dev" | "load" | "ldg");
                let k = match (load, u, r0) {
                    (true, [ptr, off, ..], Some(val)) => K::ScalarMem {
                        load,
                        val,
                        ptr: *ptr,
                        off: *off,
                        dt: self.sdtype(val),
                    },
                    (false, [val, ptr, off, ..], _) => K::ScalarMem {
                        load,
                        val: *val,
                        ptr: *ptr,
                        off: *off,
                        dt: self.sdtype(*val),
                    },
                    _ => return self.unsupported(op, c, "needs a pointer, an offset and a value"),
                };
                self.push(op, c, k);
            }
            // one tile element at a linear storage offset, by the scalar
            // unit (machine::scalar_mem takes the tile as its base)
            "tgetval" => {
                let ins = op.group_values("ins");
                match (r0, ins.as_slice()) {
                    (Some(val), [tile, off, ..]) => {
                        let dt = self.vdtype(*tile);
                        self.push(
                            op,
                            c,
                            K::ScalarMem {
                                load: true,
                                val,
                                ptr: *tile,
                                off: *off,
                                dt,
                            },
                        )
                    }
                    _ => self.unsupported(op, c, "needs ins(tile, offset) and a result"),
                }
            }
            "tsetval" => {
                let ins = op.group_values("ins");
                let outs = op.group_values("outs");
                match (ins.as_slice(), outs.first()) {
                    ([off, val, ..], Some(&tile)) => {
                        let dt = self.vdtype(tile);
                        self.push(
                            op,
                            c,
                            K::ScalarMem {
                                load: false,
                                val: *val,
                                ptr: tile,
                                off: *off,
                                dt,
                            },
                        )
                    }
                    _ => self.unsupported(op, c, "needs ins(offset, value) and outs(tile)"),
                }
            }
            // a pointer's byte address in ptovm's address space (GM: the
            // offset into the rank's GM plus `rank << 40`); `inttoptr` is
            // `castptr` from an integer
            "ptrtoint" => match (r0, u.first()) {
                (Some(dst), Some(&src)) => {
                    let dt = self.vdtype(dst);
                    self.push(
                        op,
                        c,
                        K::Conv {
                            conv: Conv::PtrToInt,
                            dst,
                            src,
                            dt,
                            from: DType::U64,
                        },
                    )
                }
                _ => self.unsupported(op, c, "needs a pointer and a result"),
            },
            "trap" => self.push(op, c, K::Trap),
            "print" => {
                let fmt = op.body.iter().find_map(|e| match e {
                    Elem::Attr(Attr::Str(s)) => Some(s.clone()),
                    _ => None,
                });
                let vals = op.group_values("ins");
                match (fmt, vals.as_slice()) {
                    (Some(fmt), [val]) => {
                        let dt = self.vdtype(*val);
                        self.push(op, c, K::Print { fmt, val: *val, dt })
                    }
                    _ => self.unsupported(
                        op,
                        c,
                        "needs ins(\"format\", %scalar : type): one format string and one scalar",
                    ),
                }
            }
            "castptr" | "inttoptr" => {
                let (Some(dst), Some(&src)) = (r0, u.first()) else {
                    return self.unsupported(op, c, "needs a source and a result");
                };
                let (space, elem) = match self.ty(dst) {
                    Some(Type::Ptr { elem, space }) => (
                        space.as_deref().and_then(Space::from_name),
                        self.file
                            .types
                            .get(*elem)
                            .scalar_dtype()
                            .unwrap_or(DType::U8),
                    ),
                    _ => (None, DType::U8),
                };
                self.push(
                    op,
                    c,
                    K::CastPtr {
                        dst,
                        src,
                        space,
                        elem,
                    },
                );
            }
            "addptr" => match (r0, u) {
                (Some(dst), [src, off]) => self.push(
                    op,
                    c,
                    K::AddPtr {
                        dst,
                        src: *src,
                        off: *off,
                        stride: self.packed_pointee_bytes(dst),
                    },
                ),
                _ => self.unsupported(op, c, "needs a pointer and an offset"),
            },
            "make_tensor_view" => {
                let Some(dst) = r0 else { return };
                let Some(&ptr) = u.first() else {
                    return self.unsupported(op, c, "needs a base pointer");
                };
                let layout = match op.attr("layout").and_then(|a| a.enum_value()) {
                    Some("dn") => ViewLayout::Dn,
                    Some("nz") => ViewLayout::Nz,
                    _ => ViewLayout::Nd,
                };
                let elem = self.vdtype(dst);
                self.push(
                    op,
                    c,
                    K::MakeView {
                        dst,
                        ptr,
                        shape: Self::kw_list(op, "shape"),
                        strides: Self::kw_list(op, "strides"),
                        static_shape: Self::static_shape(self.ty(dst)),
                        elem,
                        layout,
                    },
                );
            }
            "partition_view" => {
                let (Some(dst), Some(&src)) = (r0, u.first()) else {
                    return self.unsupported(op, c, "needs a source view");
                };
                self.push(
                    op,
                    c,
                    K::PartitionView {
                        dst,
                        src,
                        offsets: Self::kw_list(op, "offsets"),
                        sizes: Self::kw_list(op, "sizes"),
                        static_sizes: Self::static_shape(self.ty(dst)),
                    },
                );
            }
            "alloc_tile" | "declare_tile" => {
                let Some(dst) = r0 else { return };
                let place = (
                    Self::kw_value(op, "addr"),
                    Self::kw_value(op, "valid_row"),
                    Self::kw_value(op, "valid_col"),
                );
                self.alloc_tile(op, c, dst, place);
            }
            "declare_eventid_array" => {
                let Some(dst) = r0 else { return };
                let n = match self.ty(dst) {
                    Some(Type::Opaque {
                        params: Some(p), ..
                    }) => p.trim().parse::<usize>().unwrap_or(0),
                    _ => 0,
                };
                if n == 0 || n > 64 {
                    return self.unsupported(
                        op,
                        c,
                        "needs a result type !pto.eventid_array<N> with 1 <= N <= 64",
                    );
                }
                self.push(op, c, K::IdsNew { dst, n });
            }
            "eventid_array_get" => match (r0, u) {
                (Some(dst), [arr, idx]) => self.push(
                    op,
                    c,
                    K::IdsGet {
                        dst,
                        arr: *arr,
                        idx: *idx,
                    },
                ),
                _ => self.unsupported(op, c, "needs an array and an index"),
            },
            "eventid_array_set" => match u {
                [arr, idx, val] => self.push(
                    op,
                    c,
                    K::IdsSet {
                        arr: *arr,
                        idx: *idx,
                        val: *val,
                    },
                ),
                _ => self.unsupported(op, c, "needs an array, an index and a value"),
            },
            "subview" => {
                let (Some(dst), [src, r, col, rest @ ..]) = (r0, u) else {
                    return self.unsupported(
                        op,
                        c,
                        "needs a source tile, two offsets and a result",
                    );
                };
                let Some(Type::TileBuf(tb)) = self.ty(dst) else {
                    return self.unsupported(op, c, "result is not a !pto.tile_buf");
                };
                let tb = *tb;
                let elem = self
                    .file
                    .types
                    .get(tb.elem)
                    .scalar_dtype()
                    .unwrap_or(DType::U8);
                let valid = match rest {
                    [vr, vc] => Some((*vr, *vc)),
                    [] => None,
                    _ => {
                        return self.unsupported(
                            op,
                            c,
                            "takes two offsets and an optional valid [rows, cols]",
                        )
                    }
                };
                self.push(
                    op,
                    c,
                    K::SubView {
                        dst,
                        src: *src,
                        at: (*r, *col),
                        valid,
                        tb,
                        elem,
                    },
                );
            }
            // `treshape`, and `talias` / `bitcast`: the same bytes under the
            // result's type
            "treshape" | "talias" | "bitcast" => {
                let (Some(dst), Some(&src)) = (r0, u.first()) else {
                    return self.unsupported(op, c, "needs a source tile and a result");
                };
                let Some(Type::TileBuf(tb)) = self.ty(dst) else {
                    return self.unsupported(op, c, "result is not a !pto.tile_buf");
                };
                let tb = *tb;
                let elem = self
                    .file
                    .types
                    .get(tb.elem)
                    .scalar_dtype()
                    .unwrap_or(DType::U8);
                self.push(op, c, K::Reshape { dst, src, tb, elem });
            }
            // `tassign %tile, %addr`: the result's type placed at a byte address
            "tassign" => {
                let (Some(dst), [_, addr, ..]) = (r0, u) else {
                    return self.unsupported(op, c, "needs a tile, an address and a result");
                };
                self.alloc_tile(op, c, dst, (Some(*addr), None, None));
            }
            "set_validshape" => match u {
                [t, r, col, ..] => self.push(
                    op,
                    c,
                    K::SetValidShape {
                        tile: *t,
                        r: *r,
                        c: *col,
                    },
                ),
                _ => self.unsupported(op, c, "needs a tile, rows and cols"),
            },
            "section.cube" | "section.vector" => {
                let s = c.code.len();
                self.push(
                    op,
                    c,
                    K::Section {
                        cube: short == "section.cube",
                        end: usize::MAX,
                    },
                );
                for r in &op.regions {
                    self.region(r, c, &YieldTo::None, in_vec);
                }
                let end = c.code.len();
                c.code[s].k = K::Section {
                    cube: short == "section.cube",
                    end,
                };
            }
            // configures the launch of later calls to pto.simt_entry
            // functions (operands z, y, x); executes nothing itself
            "store_vfsimt_info" => match u {
                [z, y, x] => {
                    self.simt_info = Some([*x, *y, *z]);
                    self.push(op, c, K::Nop)
                }
                _ => self.unsupported(op, c, "needs the z, y and x thread counts"),
            },
            "section.simt" => {
                if in_vec {
                    return self.unsupported(op, c, "is inside a vector scope");
                }
                // `<<<x, y, z>>>` reads as integers or as one `<...>` body
                let mut found: Vec<i64> = Vec::new();
                for e in &op.body {
                    match e {
                        Elem::Attr(Attr::Int { value, .. }) => found.push(*value as i64),
                        Elem::Attr(Attr::Dialect { ns, body: Some(b) }) if ns.is_empty() => {
                            let t: String = b
                                .chars()
                                .filter(|c| !c.is_whitespace() && *c != '<' && *c != '>')
                                .collect();
                            found.extend(t.split(',').filter_map(|x| x.parse::<i64>().ok()));
                        }
                        Elem::Region(_) => break,
                        _ => {}
                    }
                }
                let [x, y, z] = found[..] else {
                    return self.unsupported(op, c, "needs <<<x, y, z>>> launch dimensions");
                };
                let dims = [x, y, z];
                self.simt_run(op, SimtDims::Fixed(dims), &[], op.regions.first(), c)
            }
            "vecscope" | "strict_vecscope" => {
                if in_vec {
                    return self.unsupported(op, c, "is nested inside another vector scope");
                }
                let mut body = Code {
                    code: Vec::new(),
                    exits: Vec::new(),
                };
                let mut binds = Vec::new();
                if let Some(r) = op.regions.first() {
                    if short == "strict_vecscope" {
                        if let Some(b) = r.blocks.first() {
                            binds = b.args.iter().copied().zip(u.iter().copied()).collect();
                        }
                    }
                    // lower the single block (strict scopes have a labelled entry block)
                    for b in &r.blocks {
                        for o in &b.ops {
                            self.op(o, &mut body, &YieldTo::None, true);
                        }
                    }
                }
                let end = self.inst(op, K::End);
                body.code.push(end);
                let captures = free_regs(&body.code);
                self.push(
                    op,
                    c,
                    K::VecScope {
                        body: Arc::new(body.code),
                        captures,
                        binds,
                    },
                );
            }
            "tload" | "tprefetch" => self.issue_in_out(
                op,
                c,
                Pipe::Mte2,
                |src, dst| PipeOp::TLoad { src, dst },
                "needs ins(view) and outs(tile)",
            ),
            "tstore" => {
                let ins = op.group_values("ins");
                let outs = op.group_values("outs");
                // a pre-quantization word or ReLU: the FIXPIPE's element path
                let relu = matches!(
                    attr(&Self::attrs_of(op), "reluPreMode"),
                    Some(AttrVal::Sym(m)) if !m.eq_ignore_ascii_case("no_relu") && !m.eq_ignore_ascii_case("norelu")
                );
                if ins.len() > 1 || relu {
                    if self.pipe_of(op, ins.first().copied()) != Pipe::Fix {
                        return self.unsupported(
                            op,
                            c,
                            "with a quantization word or reluPreMode needs an acc source",
                        );
                    }
                    return self.push(
                        op,
                        c,
                        K::Issue {
                            pipe: Pipe::Fix,
                            op: PipeOp::Tile {
                                op: op.opcode,
                                ins,
                                outs,
                                attrs: Self::tile_attrs(op),
                            },
                        },
                    );
                }
                let atomic = match attr(&Self::attrs_of(op), "atomicType") {
                    None => Combine::Store,
                    Some(AttrVal::Sym(a)) => match Combine::parse(a) {
                        Some(x) => x,
                        None => return self.unsupported(op, c, &format!("with atomicType {a}")),
                    },
                    Some(_) => return self.unsupported(op, c, "with a non-enum atomicType"),
                };
                match (ins.first(), outs.first()) {
                    (Some(&src), Some(&dst)) => {
                        // vec tiles leave through MTE3, acc tiles through FIXPIPE
                        let pipe = self.pipe_of(op, Some(src));
                        if pipe != Pipe::Mte3 && pipe != Pipe::Fix {
                            return self.unsupported(
                                op,
                                c,
                                "from this tile location is not implemented",
                            );
                        }
                        self.push(
                            op,
                            c,
                            K::Issue {
                                pipe,
                                op: PipeOp::TStore { src, dst, atomic },
                            },
                        )
                    }
                    _ => self.unsupported(op, c, "needs ins(tile) and outs(view)"),
                }
            }
            // GM -> L2 prefetch: ptovm models no L2, so the prefetch has no
            // visible effect and its event (-1, never pending) is complete at
            // once; contexts and sessions are plain handles
            "make_prefetch_async_context" | "get_prefetch_async_session" | "tprefetch_async" => {
                let Some(dst) = r0 else {
                    return self.unsupported(op, c, "needs a result");
                };
                let val = Val::Int(if short == "tprefetch_async" { -1 } else { 0 });
                self.push(op, c, K::Const { dst, val });
            }
            // the cube's mode register: in order with the matmuls on PIPE_M
            "settf32mode" | "sethf32mode" => self.push(
                op,
                c,
                K::Issue {
                    pipe: Pipe::M,
                    op: PipeOp::Tile {
                        op: op.opcode,
                        ins: Vec::new(),
                        outs: Vec::new(),
                        attrs: Self::tile_attrs(op),
                    },
                },
            ),
            // the FMATRIX registers feed MTE1's img2col: written in order
            // with it on PIPE_MTE1
            "setfmatrix" | "set_img2col_rpt" | "set_img2col_padding" => self.push(
                op,
                c,
                K::Issue {
                    pipe: Pipe::Mte1,
                    op: PipeOp::Tile {
                        op: op.opcode,
                        ins: Vec::new(),
                        outs: Vec::new(),
                        attrs: Self::tile_attrs(op),
                    },
                },
            ),
            // drained before and after: the print sees program order
            "tprint" => {
                let ins = op.group_values("ins");
                let barrier = K::Sync(SyncOp::Barrier { pipe: Pipe::All });
                self.push(op, c, barrier.clone());
                self.push(
                    op,
                    c,
                    K::Issue {
                        pipe: Pipe::S,
                        op: PipeOp::Tile {
                            op: op.opcode,
                            ins,
                            outs: Vec::new(),
                            attrs: Self::tile_attrs(op),
                        },
                    },
                );
                self.push(op, c, barrier);
            }
            "texpands" => self.issue_in_out(
                op,
                c,
                Pipe::V,
                |s, dst| PipeOp::TExpands { s, dst },
                "needs a scalar and a tile",
            ),
            "set_loop_size_outtoub"
            | "set_loop_size_ubtoout"
            | "set_loop1_stride_outtoub"
            | "set_loop1_stride_ubtoout"
            | "set_loop2_stride_outtoub"
            | "set_loop2_stride_ubtoout" => match u {
                [a, b] => {
                    let which = if short.starts_with("set_loop_size") {
                        0
                    } else if short.starts_with("set_loop1") {
                        1
                    } else {
                        2
                    };
                    let dir = if short.ends_with("outtoub") { 0 } else { 1 };
                    self.push(
                        op,
                        c,
                        K::SetLoop {
                            which,
                            dir,
                            a: *a,
                            b: *b,
                        },
                    )
                }
                _ => self.unsupported(op, c, "needs two operands"),
            },
            "set_mte2_nz_para"
            | "set_quant_pre"
            | "set_relu_alpha"
            | "set_fix_clip_relu"
            | "set_loop_size_outtol1"
            | "set_loop1_stride_outtol1"
            | "set_loop2_stride_outtol1"
            | "set_fpc" => match u {
                [a] => self.push(
                    op,
                    c,
                    K::SetLoop {
                        which: match short {
                            "set_mte2_nz_para" => 3,
                            "set_quant_pre" => 4,
                            "set_relu_alpha" => 5,
                            "set_fix_clip_relu" => 6,
                            "set_loop_size_outtol1" => 9,
                            "set_loop1_stride_outtol1" => 10,
                            "set_loop2_stride_outtol1" => 11,
                            _ => 12,
                        },
                        dir: 0,
                        a: *a,
                        b: *a,
                    },
                ),
                _ => self.unsupported(op, c, "needs one operand"),
            },
            "set_loop3_para" | "set_channel_para" => match u {
                [a, b] => self.push(
                    op,
                    c,
                    K::SetLoop {
                        which: if short == "set_loop3_para" { 7 } else { 8 },
                        dir: 0,
                        a: *a,
                        b: *b,
                    },
                ),
                _ => self.unsupported(op, c, "needs two operands"),
            },
            "set_mov_pad_val" => match u {
                [v] => {
                    let dt = self.vdtype(*v);
                    self.push(op, c, K::SetMovPad { val: *v, dt })
                }
                _ => self.unsupported(op, c, "needs one pad value"),
            },
            "set_atomic_add" | "set_atomic_max" | "set_atomic_min" | "set_atomic_none" => {
                let how = Combine::parse(short.trim_start_matches("set_"));
                self.push(op, c, K::SetAtomic { op: how, dt: None })
            }
            "set_atomic_f32" | "set_atomic_f16" | "set_atomic_bf16" | "set_atomic_s32"
            | "set_atomic_s16" | "set_atomic_s8" => {
                let dt = match short.trim_start_matches("set_atomic_") {
                    "f32" => DType::F32,
                    "f16" => DType::F16,
                    "bf16" => DType::BF16,
                    "s32" => DType::I32,
                    "s16" => DType::I16,
                    _ => DType::I8,
                };
                self.push(
                    op,
                    c,
                    K::SetAtomic {
                        op: None,
                        dt: Some(dt),
                    },
                )
            }
            "mte_gm_ub" | "copy_gm_to_ubuf" | "mte_ub_gm" | "copy_ubuf_to_gm" | "mte_ub_ub" => {
                self.lower_dma(op, short, u, c)
            }
            _ if crate::exec::cube::lowers(op.opcode) => {
                let file = self.file;
                let (regs, form) =
                    crate::exec::cube::form(op, Self::attrs_of(op), &|t| type_name(file, t));
                let pipe = self.pipe_of(op, None);
                self.push(
                    op,
                    c,
                    K::Issue {
                        pipe,
                        op: PipeOp::Cube {
                            op: op.opcode,
                            regs,
                            form: Arc::new(form),
                        },
                    },
                )
            }
            _ if !in_vec
                && info.form == pto_isa_spec::Form::Dps
                && info.set == pto_isa_spec::ISet::Tile
                && crate::exec::tile_ops::implemented(op.opcode) =>
            {
                let ins = op.group_values("ins");
                let outs = op.group_values("outs");
                let pipe = self.pipe_of_locs(op, &ins, &outs);
                self.push(
                    op,
                    c,
                    K::Issue {
                        pipe,
                        op: PipeOp::Tile {
                            op: op.opcode,
                            ins,
                            outs,
                            attrs: Self::tile_attrs(op),
                        },
                    },
                );
            }
            _ if !in_vec
                && info.form == pto_isa_spec::Form::Dps
                && info.set == pto_isa_spec::ISet::Tile =>
            {
                // tile elementwise
                let Some(ew) = Self::ew_op(short) else {
                    return self.unsupported(
                        op,
                        c,
                        "is not implemented in ptovm's interpreter yet",
                    );
                };
                let ins = op.group_values("ins");
                let outs = op.group_values("outs");
                let Some(&dst) = outs.first() else {
                    return self.unsupported(op, c, "has no destination");
                };
                let is_tile =
                    |v: &Reg| matches!(self.ty(*v), Some(Type::TileBuf(_) | Type::Tile { .. }));
                let pipe = self.pipe_of(op, Some(dst));
                let k = match ins.as_slice() {
                    [a] if is_tile(a) => PipeOp::TEw {
                        op: ew,
                        a: *a,
                        b: None,
                        dst,
                    },
                    [a, b] if is_tile(a) && is_tile(b) && !short.ends_with('s') => PipeOp::TEw {
                        op: ew,
                        a: *a,
                        b: Some(*b),
                        dst,
                    },
                    [a, s] if is_tile(a) && !is_tile(s) => PipeOp::TEws {
                        op: ew,
                        a: *a,
                        s: *s,
                        scalar_first: false,
                        dst,
                    },
                    [s, a] if is_tile(a) && !is_tile(s) => PipeOp::TEws {
                        op: ew,
                        a: *a,
                        s: *s,
                        scalar_first: true,
                        dst,
                    },
                    [a, b, ..] if is_tile(a) && is_tile(b) => PipeOp::TEw {
                        op: ew,
                        a: *a,
                        b: Some(*b),
                        dst,
                    },
                    _ => {
                        return self.unsupported(
                            op,
                            c,
                            "has an operand form ptovm does not implement yet",
                        )
                    }
                };
                let _ = self.tile_dtype(dst);
                self.push(op, c, K::Issue { pipe, op: k });
            }
            // ── vector micro-ops (inside a vector scope) ──
            "vlds" => {
                let (Some(dst), Some(&ptr)) = (r0, u.first()) else {
                    return self.unsupported(op, c, "needs a pointer and a result");
                };
                let dist = match op.attr("dist").and_then(|a| a.enum_value()) {
                    _ if res.len() > 1 => return self.generic_vec(op, u, res, c),
                    Some(d) if d.starts_with("BRC") && d != "BRC_BLK" => Dist::Brc,
                    None | Some("NORM") => Dist::Norm,
                    // other distributions and post-update: exec::vec_mem
                    Some(_) => return self.generic_vec(op, u, res, c),
                };
                let elem = self.vdtype(dst);
                self.push(
                    op,
                    c,
                    K::Vec(VecOp::Load {
                        dst,
                        ptr,
                        off: u.get(1).copied(),
                        dist,
                        elem,
                    }),
                );
            }
            "vsts" => {
                if let Some(d) = op.attr("dist").and_then(|a| a.enum_value()) {
                    if !d.starts_with("NORM") {
                        return self.generic_vec(op, u, res, c);
                    }
                }
                if !res.is_empty() {
                    return self.generic_vec(op, u, res, c);
                }
                // %v, %ptr[%off], %mask  or  %v, %ptr, %mask
                let sub = op
                    .body
                    .iter()
                    .any(|e| matches!(e, Elem::P(Punct::LBracket)));
                let (src, ptr) = match u {
                    [s, p, ..] => (*s, *p),
                    _ => return self.unsupported(op, c, "needs a vector and a pointer"),
                };
                let (off, mask) = if sub {
                    (u.get(2).copied(), u.get(3).copied())
                } else {
                    (None, u.get(2).copied())
                };
                let elem = self.vdtype(src);
                self.push(
                    op,
                    c,
                    K::Vec(VecOp::Store {
                        src,
                        ptr,
                        off,
                        mask,
                        elem,
                    }),
                );
            }
            "pset_b8" | "pset_b16" | "pset_b32" => {
                let Some(dst) = r0 else { return };
                let pattern = op
                    .immediates()
                    .iter()
                    .find_map(|i| i.symbol())
                    .unwrap_or("PAT_ALL")
                    .to_string();
                let gran = short[6..].parse::<u32>().unwrap_or(32) / 8;
                self.push(op, c, K::Vec(VecOp::PSet { dst, pattern, gran }));
            }
            "plt_b8" | "plt_b16" | "plt_b32" => {
                let (Some(dst), Some(&n)) = (r0, u.first()) else {
                    return self.unsupported(op, c, "needs a count");
                };
                let gran = short[5..].parse::<u32>().unwrap_or(32) / 8;
                self.push(
                    op,
                    c,
                    K::Vec(VecOp::PLt {
                        dst,
                        rest: res.get(1).copied(),
                        n,
                        gran,
                    }),
                );
            }
            "vdup"
                if u.first()
                    .is_some_and(|v| matches!(self.ty(*v), Some(Type::VReg { .. }))) =>
            {
                // lane broadcast from a register: exec::vec_rearrange
                self.generic_vec(op, u, res, c)
            }
            "vbr" | "vdup" => match (r0, u.first()) {
                (Some(dst), Some(&s)) => {
                    let elem = self.vdtype(dst);
                    let mask = u[1..]
                        .iter()
                        .copied()
                        .find(|v| matches!(self.ty(*v), Some(Type::Mask(_))));
                    self.push(op, c, K::Vec(VecOp::Broadcast { dst, s, mask, elem }))
                }
                _ => self.unsupported(op, c, "needs a scalar"),
            },
            _ if info.set == pto_isa_spec::ISet::Vector && Self::ew_op(short).is_some() => {
                let Some(dst) = r0 else { return };
                let ew = Self::ew_op(short).unwrap_or(EwOp::Add);
                let elem = self.vdtype(dst);
                let is_v = |v: &Reg| matches!(self.ty(*v), Some(Type::VReg { .. }));
                let is_m = |v: &Reg| matches!(self.ty(*v), Some(Type::Mask(_)));
                let vs: Vec<Reg> = u.iter().copied().filter(|v| is_v(v)).collect();
                let ms: Vec<Reg> = u.iter().copied().filter(|v| is_m(v)).collect();
                let ss: Vec<Reg> = u.iter().copied().filter(|v| !is_v(v) && !is_m(v)).collect();
                let Some(&a) = vs.first() else {
                    return self.unsupported(op, c, "needs a vector operand");
                };
                self.push(
                    op,
                    c,
                    K::Vec(VecOp::Ew {
                        op: ew,
                        dst,
                        a,
                        b: vs.get(1).copied(),
                        s: ss.first().copied(),
                        mask: ms.first().copied(),
                        elem,
                    }),
                );
            }
            _ => {
                let why = if info.class == pto_isa_spec::Class::NotExecutable {
                    "is a compiler-internal op (parsed and verified, never executed by ptovm)"
                } else {
                    "is not implemented in ptovm's interpreter yet"
                };
                self.unsupported(op, c, why);
            }
        }
    }

    /// A warp-wide SIMT collective: `pto.vote_*`, `pto.shuffle_*` (with an
    /// optional `{width = 16|32}` subgroup) and `pto.redux_*`.
    fn warp_op(&mut self, op: &Op, short: &str, u: &[Reg], r0: Option<Reg>, c: &mut Code) {
        let wop = match short {
            "vote_all" => WarpOp::VoteAll,
            "vote_any" => WarpOp::VoteAny,
            "vote_uni" => WarpOp::VoteUni,
            "vote_ballot" => WarpOp::VoteBallot,
            "shuffle_idx" => WarpOp::ShuffleIdx,
            "shuffle_up" => WarpOp::ShuffleUp,
            "shuffle_down" => WarpOp::ShuffleDown,
            "shuffle_bfly" => WarpOp::ShuffleBfly,
            "redux_add" => WarpOp::ReduxAdd,
            "redux_max" => WarpOp::ReduxMax,
            _ => WarpOp::ReduxMin,
        };
        let shuffle = short.starts_with("shuffle_");
        let (Some(dst), Some(&src)) = (r0, u.first()) else {
            return self.unsupported(op, c, "needs a value operand and a result");
        };
        let arg = u.get(1).copied();
        if shuffle != arg.is_some() || u.len() > 2 {
            return self.unsupported(op, c, "has the wrong number of operands");
        }
        let mut width = 32;
        for (k, a) in op.attrs() {
            if k == "width" {
                match a {
                    Attr::Int { value: 16, .. } => width = 16,
                    Attr::Int { value: 32, .. } => width = 32,
                    _ => return self.unsupported(op, c, "width must be 16 or 32"),
                }
            }
        }
        let unsigned = op.body.iter().any(|e| match e {
            Elem::Ident(w) => w == "unsigned",
            Elem::Attr(Attr::Keyword { kw, .. }) => kw == "unsigned",
            _ => false,
        });
        let dt = self.vdtype(src);
        self.push(
            op,
            c,
            K::Warp {
                op: wop,
                dst,
                src,
                arg,
                width,
                dt,
                unsigned,
            },
        );
    }

    /// `pto.comm.*`: leading operands, staging tiles, group members.
    fn lower_comm(&mut self, op: &Op, short: &str, res: &[Reg], c: &mut Code) {
        let Some(k) = CommOp::from_short(short.trim_start_matches("comm.")) else {
            return self.unsupported(op, c, "is a communication op ptovm does not model yet");
        };
        let mut staging: Vec<Reg> = Self::kw_groups(op, "buf").concat();
        staging.extend(Self::kw_groups(op, "recv").concat());
        self.push(
            op,
            c,
            K::Comm {
                op: k,
                args: Self::leading_uses(op),
                staging,
                group: Self::kw_groups(op, "group").concat(),
                dst: res.first().copied(),
                attrs: Self::attrs_of(op),
            },
        );
    }

    /// A vector micro-op for the generic dispatch in `exec::vec_ops` (which
    /// takes precedence over every built-in vector path, vlds/vsts included).
    fn generic_vec(&mut self, op: &Op, u: &[Reg], res: &[Reg], c: &mut Code) {
        // element types travel as synthetic attributes: `$dst_type` of the
        // first result, `$src_type` of the first vector/mask operand
        let mut attrs = (*Self::attrs_of(op)).clone();
        let elem_name = |v: Reg| -> Option<String> {
            let t = self.file.values.get(v as usize)?.ty?;
            match self.file.types.get(t) {
                Type::VReg { elem, .. } => Some(crate::lower::type_name(self.file, *elem)),
                Type::Mask(g) => Some(g.clone()),
                other if other.is_scalar() => Some(crate::lower::type_name(self.file, t)),
                Type::Ptr { elem, .. } => Some(crate::lower::type_name(self.file, *elem)),
                _ => None,
            }
        };
        if let Some(t) = res.first().and_then(|r| elem_name(*r)) {
            attrs.push(("$dst_type".into(), AttrVal::Sym(t)));
        }
        let src = u
            .iter()
            .find(|v| matches!(self.ty(**v), Some(Type::VReg { .. } | Type::Mask(_))));
        if let Some(t) = src.and_then(|r| elem_name(*r)) {
            attrs.push(("$src_type".into(), AttrVal::Sym(t)));
        }
        attrs.push(("$nres".into(), AttrVal::Int(res.len() as i64)));
        if crate::exec::vmi::implemented(op.opcode) {
            // VMI ops read the full type of every operand and result
            let full = |v: &Reg| -> String {
                let t = self.file.values.get(*v as usize).and_then(|x| x.ty);
                t.map(|t| type_name(self.file, t)).unwrap_or_default()
            };
            attrs.extend(u.iter().map(|v| ("$in".into(), AttrVal::Sym(full(v)))));
            // dense constants (`constant_mask`'s value) as their element text
            for (k, a) in op.attrs() {
                // `dense<...> : tensor<...>` parses as [dense, type]
                let a = match a {
                    Attr::Array(v) => v.first().unwrap_or(a),
                    a => a,
                };
                if let Attr::Keyword { kw, body } = a {
                    if kw == "dense" {
                        attrs.push((k.clone(), AttrVal::Sym(body.clone())));
                    }
                }
            }
            attrs.extend(res.iter().map(|v| ("$out".into(), AttrVal::Sym(full(v)))));
        }
        self.push(
            op,
            c,
            K::Vec(VecOp::Generic {
                op: op.opcode,
                dsts: res.to_vec(),
                srcs: u.to_vec(),
                attrs: Arc::new(attrs),
            }),
        );
    }

    fn lower_dma(&mut self, op: &Op, short: &str, u: &[Reg], c: &mut Code) {
        let dir = match short {
            "mte_gm_ub" | "copy_gm_to_ubuf" => DmaDir::GmToUb,
            "mte_ub_gm" | "copy_ubuf_to_gm" => DmaDir::UbToGm,
            _ => DmaDir::UbToUb,
        };
        let pipe = match dir {
            DmaDir::GmToUb => Pipe::Mte2,
            DmaDir::UbToGm => Pipe::Mte3,
            DmaDir::UbToUb => Pipe::V,
        };
        // the legacy copy_* spellings share the opcode but have no nburst(...) group
        let legacy = Self::kw_groups(op, "nburst").is_empty() && u.len() >= 8;
        let k = if legacy {
            // copy_gm_to_ubuf: src, dst, sid, n_burst, len_burst, lpad, rpad, data_select, l2ctl, gm_stride, ub_stride
            // copy_ubuf_to_gm: src, dst, sid, n_burst, len_burst, l2ctl, dst_stride, src_stride
            match (dir, u) {
                (DmaDir::GmToUb, [src, dst, _sid, n, len, _l, _r, ds, _l2, gs, us, ..]) => {
                    PipeOp::DmaLegacy {
                        dir,
                        src: *src,
                        dst: *dst,
                        n_burst: *n,
                        len: *len,
                        src_stride: *gs,
                        dst_stride: *us,
                        select: Some(*ds),
                    }
                }
                (DmaDir::UbToGm, [src, dst, _sid, n, len, _l2, ds, ss, ..]) => PipeOp::DmaLegacy {
                    dir,
                    src: *src,
                    dst: *dst,
                    n_burst: *n,
                    len: *len,
                    src_stride: *ss,
                    dst_stride: *ds,
                    select: None,
                },
                _ => {
                    return self.unsupported(op, c, "has an operand list ptovm does not recognise")
                }
            }
        } else {
            let lead = Self::leading_uses(op);
            let nb = Self::kw_groups(op, "nburst");
            let loops = Self::kw_groups(op, "loop");
            let pad = Self::kw_groups(op, "pad");
            let (src, dst, len) = match (dir, lead.as_slice()) {
                (DmaDir::GmToUb, [s, d, _l2, len]) => (*s, *d, *len),
                (_, [s, d, len, ..]) => (*s, *d, *len),
                _ => return self.unsupported(op, c, "needs src, dst and a burst length"),
            };
            let Some(nb) = nb.first().filter(|g| g.len() == 3) else {
                return self.unsupported(op, c, "needs nburst(count, src_stride, dst_stride)");
            };
            let mut lps = Vec::new();
            for l in &loops {
                if l.len() != 3 {
                    return self.unsupported(op, c, "has a loop(...) group that is not a triple");
                }
                lps.push([l[0], l[1], l[2]]);
            }
            PipeOp::Dma {
                dir,
                src,
                dst,
                len,
                nburst: [nb[0], nb[1], nb[2]],
                loops: lps,
                pad: pad.first().and_then(|p| p.first().copied()),
            }
        };
        self.push(op, c, K::Issue { pipe, op: k });
    }
}

fn region_has_sections(r: &Region) -> bool {
    r.blocks.iter().any(|b| {
        b.ops.iter().any(|o| {
            matches!(o.opcode.name(), "pto.section.cube" | "pto.section.vector")
                || o.regions.iter().any(region_has_sections)
        })
    })
}

/// Registers read by `code` but not written by it (captured from outside).
fn free_regs(code: &[Inst]) -> Vec<Reg> {
    let mut written = std::collections::HashSet::new();
    let mut read = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut r = |v: Reg, read: &mut Vec<Reg>| {
        if seen.insert(v) {
            read.push(v);
        }
    };
    for i in code {
        let (ins, outs) = crate::regs::io(&i.k);
        for v in ins {
            r(v, &mut read);
        }
        for v in outs {
            written.insert(v);
        }
    }
    // registers written inside are captured too: harmless (overwritten before use)
    let _ = written;
    read
}

/// The MLIR spelling of a type (`f32`, `bf16`, `ui8`, `b32` masks...).
pub(crate) fn type_name(file: &File, t: TypeId) -> String {
    pto_asm::printer::type_str(&file.types, t)
}
