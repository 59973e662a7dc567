//! The verifier: SSA dominance, operand counts and kinds from the ISA table,
//! dtype agreement, tile-type legality and profile availability. Reports every
//! error it finds, each with `file:line:col`.

use std::collections::HashSet;

use pto_isa_spec::{Class, Form, Opcode, OperandKind, Pipe, ProfileId, Sig};

use crate::ast::{Elem, File, Imm, Op, Punct, Region, ValueId};
use crate::attr::Attr;
use crate::diag::Diagnostic;
use crate::ty::{SLayout, TileBuf, TileLoc, Type};

/// The profile a file targets: `pto.target_arch` on the module, else `default`.
/// Returns the profile and a warning if an explicit choice disagrees with the file.
pub fn file_profile(file: &File, explicit: Option<ProfileId>) -> (ProfileId, Option<Diagnostic>) {
    let declared = file.items.iter().find_map(|op| {
        if op.opcode != Opcode::Module {
            return None;
        }
        op.attrs()
            .find_map(|(k, v)| {
                (k == "pto.target_arch")
                    .then(|| v.as_str().and_then(ProfileId::from_name))
                    .flatten()
            })
            .or_else(|| {
                // a device spec names the chip: Ascend950 is an A5 part,
                // Ascend910B* an A2/A3 one
                op.attrs().find_map(|(k, v)| {
                    let spec = (k == "pto.device-spec").then(|| v.as_str()).flatten()?;
                    if spec.starts_with("Ascend950") {
                        Some(ProfileId::A5)
                    } else if spec.starts_with("Ascend910") {
                        Some(ProfileId::A2A3)
                    } else {
                        None
                    }
                })
            })
            .map(|p| (p, op.loc))
    });
    match (explicit, declared) {
        (Some(e), Some((d, loc))) if e != d => (
            e,
            Some(Diagnostic::warning(
                loc,
                6,
                format!("module declares pto.target_arch for profile {d}, but --profile {e} was given; using {e}"),
            )),
        ),
        (Some(e), _) => (e, None),
        (None, Some((d, _))) => (d, None),
        (None, None) => (ProfileId::A2A3, None),
    }
}

/// Verifies a parsed file for `profile`. Returns every diagnostic found.
pub fn verify(file: &File, profile: ProfileId) -> Vec<Diagnostic> {
    verify_profile(file, profile, true)
}

/// [`verify`], saying whether `profile` was chosen (given by the caller or
/// declared by the module) or only defaulted.
pub fn verify_profile(file: &File, profile: ProfileId, chosen: bool) -> Vec<Diagnostic> {
    let mut v = Verifier {
        file,
        profile,
        diags: Vec::new(),
        defined: HashSet::new(),
        vecscope_depth: 0,
        simt_depth: 0,
        simt_entry: false,
        entry_func: false,
        core_kind: None,
        rules: crate::verify_rules::Rules::new(file, profile),
    };
    v.rules.profile_chosen = chosen;
    for op in &file.items {
        v.op(op, true);
    }
    v.diags.extend(crate::verify_pipe::check(file));
    v.diags.extend(crate::verify_tileop::check(file));
    v.diags.extend(crate::verify_module::check(file));
    v.diags
}

struct Verifier<'a> {
    file: &'a File,
    profile: ProfileId,
    diags: Vec<Diagnostic>,
    defined: HashSet<ValueId>,
    vecscope_depth: u32,
    /// Nesting of `pto.section.simt` regions around the current op.
    simt_depth: u32,
    /// Whether the enclosing function is a `pto.simt_entry`.
    simt_entry: bool,
    /// Whether the enclosing function is a kernel entry (`pto.entry`,
    /// `pto.kernel`, or the legacy `pto.aicore` / `hacc.entry`).
    entry_func: bool,
    /// The core kind the current op runs on: the innermost
    /// `pto.section.{cube,vector}`, else the function's `pto.kernel_kind`.
    core_kind: Option<&'static str>,
    rules: crate::verify_rules::Rules<'a>,
}

fn op_len(op: &Op) -> u32 {
    op.opcode.name().len() as u32
}

impl<'a> Verifier<'a> {
    fn err(&mut self, op: &Op, msg: impl Into<String>) {
        self.diags.push(Diagnostic::error(op.loc, op_len(op), msg));
    }

    fn ty(&self, v: ValueId) -> Option<&'a Type> {
        let t = self.file.values.get(v as usize)?.ty?;
        Some(self.file.types.get(t))
    }

    fn name(&self, v: ValueId) -> String {
        self.file.value_name(v)
    }

    fn op(&mut self, op: &Op, structured: bool) {
        let info = op.opcode.info();
        // dominance: uses must refer to values defined before (structured regions)
        if structured {
            for u in op.uses() {
                if !self.defined.contains(&u) {
                    let n = self.name(u);
                    self.err(op, format!("{n} is used before it is defined"));
                }
            }
        }
        // header-defined values (function args, loop variables) are visible inside
        for e in &op.body {
            if let Elem::Def(d) = e {
                self.defined.insert(*d);
            }
        }
        if !info.available_on(self.profile) {
            self.err(
                op,
                format!(
                    "'{}' is not available on profile {} (available on: {})",
                    info.name,
                    self.profile,
                    [ProfileId::A2A3, ProfileId::A5]
                        .iter()
                        .filter(|p| info.available_on(**p))
                        .map(|p| p.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
        }
        self.def_types(op);
        self.typed_builtin(op);
        self.annotated_uses(op);
        self.signature(op);
        self.dtypes(op);
        self.sync_operands(op);
        self.rules.check(op, &mut self.diags);
        self.simt_scope(op);
        self.core_context(op);
        let is_simt = op.opcode.name() == "pto.section.simt";
        let saved_entry = self.simt_entry;
        let saved_kind = self.core_kind;
        let saved_entry_func = self.entry_func;
        if op.opcode.name() == "func.func" {
            self.simt_entry = op.attr("pto.simt_entry").is_some();
            self.entry_func = ["pto.entry", "hacc.entry", "pto.kernel", "pto.aicore"]
                .iter()
                .any(|a| op.attr(a).is_some());
            self.core_kind = match op.attr("pto.kernel_kind").and_then(Attr::enum_value) {
                Some("cube") => Some("cube"),
                Some("vector") => Some("vector"),
                _ => None,
            };
        }
        match op.opcode.name() {
            "pto.section.cube" => self.core_kind = Some("cube"),
            "pto.section.vector" => self.core_kind = Some("vector"),
            _ => {}
        }
        if is_simt {
            self.simt_depth += 1;
        }
        let is_scope = matches!(op.opcode.name(), "pto.vecscope" | "pto.strict_vecscope");
        if is_scope {
            if self.vecscope_depth > 0 {
                self.err(op, "vector scopes cannot be nested");
            }
            self.vecscope_depth += 1;
        }
        for r in &op.regions {
            self.region(r);
        }
        if is_scope {
            self.vecscope_depth -= 1;
        }
        if is_simt {
            self.simt_depth -= 1;
        }
        self.simt_entry = saved_entry;
        self.entry_func = saved_entry_func;
        self.core_kind = saved_kind;
        for v in op.result_values() {
            self.defined.insert(v);
        }
    }

    fn region(&mut self, r: &Region) {
        let structured = r.blocks.len() <= 1;
        if !structured {
            // a CFG region: every block's arguments and results dominate per the CFG;
            // ptovm checks only that values exist (graph dominance is not modelled)
            for b in &r.blocks {
                for a in &b.args {
                    self.defined.insert(*a);
                }
                for o in &b.ops {
                    for v in o.result_values() {
                        self.defined.insert(v);
                    }
                }
            }
        }
        for b in &r.blocks {
            for a in &b.args {
                self.defined.insert(*a);
            }
            for o in &b.ops {
                self.op(o, structured);
            }
        }
    }

    /// Frontend tile-pipe initialisation names the side of the cluster it
    /// runs on: the cube side's init must sit in a cube kernel or section,
    /// the vector side's in a vector one.
    fn core_context(&mut self, op: &Op) {
        let want = match op.opcode.name() {
            "pto.aic_initialize_pipe" => "cube",
            "pto.aiv_initialize_pipe" => "vector",
            _ => return,
        };
        if self.core_kind != Some(want) {
            let n = op.opcode.name();
            self.err(
                op,
                format!(
                    "'{n}' must be inside a {want} kernel function or section (pto.kernel_kind = #pto.kernel_kind<{want}> or pto.section.{want})"
                ),
            );
        }
    }

    /// `ins(%a, %b : A, B)` / `outs(...)` annotate each use with its type: a
    /// tile annotated with another tile type than its own (declared 33 rows,
    /// used as 32) is an error, as in MLIR, instead of a silent pick of one.
    fn annotated_uses(&mut self, op: &Op) {
        let b = &op.body;
        let mut i = 0;
        while i + 1 < b.len() {
            let group = matches!(&b[i], Elem::Ident(k) if k == "ins" || k == "outs")
                && matches!(b[i + 1], Elem::P(Punct::LParen));
            if !group {
                i += 1;
                continue;
            }
            let (mut uses, mut tys) = (Vec::new(), Vec::new());
            let mut after_colon = false;
            let mut j = i + 2;
            let mut plain = true;
            while let Some(e) = b.get(j) {
                match e {
                    Elem::P(Punct::RParen) => break,
                    Elem::P(Punct::Comma) => {}
                    Elem::P(Punct::Colon) if !after_colon => after_colon = true,
                    Elem::Use(v) if !after_colon => uses.push(*v),
                    Elem::Type(t) if after_colon => tys.push(*t),
                    _ => plain = false,
                }
                j += 1;
            }
            if plain && uses.len() == tys.len() {
                for (v, t) in uses.iter().zip(&tys) {
                    let Some(own) = self.file.values.get(*v as usize).and_then(|x| x.ty) else {
                        continue;
                    };
                    // tiles only: a view's result type is sometimes
                    // inferred from its source (`partition_view ... : T`)
                    let tiles = matches!(self.file.types.get(own), Type::TileBuf(_))
                        && matches!(self.file.types.get(*t), Type::TileBuf(_));
                    if tiles && own != *t {
                        let ts = |t| crate::printer::type_str(&self.file.types, t);
                        self.err(
                            op,
                            format!(
                                "{} is annotated '{}' here, but its type is '{}'",
                                self.name(*v),
                                ts(*t),
                                ts(own)
                            ),
                        );
                    }
                }
            }
            i = j;
        }
    }

    /// `arith.*` and `math.*` ops in their custom form end in `: T` (only
    /// `arith.constant true`/`false` may leave out its `i1`). A misspelt type
    /// (`: indx`) or a missing one would otherwise leave the result untyped
    /// and the kernel would run on a guess.
    fn typed_builtin(&mut self, op: &Op) {
        let n = op.opcode.name();
        if op.generic || !(n.starts_with("arith.") || n.starts_with("math.")) {
            return;
        }
        let mut colon = false;
        for (i, e) in op.body.iter().enumerate() {
            if !matches!(e, Elem::P(Punct::Colon)) {
                continue;
            }
            colon = true;
            match op.body.get(i + 1) {
                Some(Elem::Type(_)) => {}
                Some(Elem::Ident(s)) => {
                    self.err(
                        op,
                        format!("'{n}' expects a type after ':', got '{s}', which is not a type"),
                    );
                    return;
                }
                _ => {
                    self.err(op, format!("'{n}' expects a type after ':'"));
                    return;
                }
            }
        }
        let bool_const = n == "arith.constant"
            && op
                .body
                .iter()
                .any(|e| matches!(e, Elem::Attr(Attr::Bool(_))));
        if !colon && !bool_const {
            self.err(op, format!("'{n}' expects ': type' after its operands"));
        }
    }

    /// SIMT execution scopes: a `pto.section.simt` runs a thread grid inside
    /// an ordinary kernel (never nested, never inside a `pto.simt_entry`
    /// function, at most 2048 threads); per-thread global loads/stores exist
    /// only inside such a scope, device-scope ones only outside.
    fn simt_scope(&mut self, op: &Op) {
        let in_simt = self.simt_depth > 0 || self.simt_entry;
        match op.opcode.name() {
            "pto.section.simt" => {
                if self.simt_depth > 0 {
                    self.err(
                        op,
                        "'pto.section.simt' nested pto.section.simt is not allowed",
                    );
                    return;
                }
                if self.simt_entry {
                    self.err(
                        op,
                        "'pto.section.simt' must not appear inside a function marked with 'pto.simt_entry' (the function already runs as SIMT threads)",
                    );
                    return;
                }
                let dims = launch_dims(op);
                if dims.len() == 3 {
                    if dims.iter().any(|d| *d < 0) {
                        self.err(
                            op,
                            format!(
                                "'pto.section.simt' requires non-negative i32 launch dimensions, got ({}, {}, {})",
                                dims[0], dims[1], dims[2]
                            ),
                        );
                    } else {
                        let n: i128 = dims.iter().product();
                        if !(1..=2048).contains(&n) {
                            self.err(
                                op,
                                format!(
                                    "'pto.section.simt' SIMT launch dimensions must have a positive product no greater than 2048, got ({}, {}, {})",
                                    dims[0], dims[1], dims[2]
                                ),
                            );
                        }
                    }
                }
            }
            // SIMT code is compiled only by the VPTO backend, which cannot
            // materialise an fp8 immediate: fp8 values come from pto.convert
            "arith.constant" if in_simt => {
                let fp8 = op.result_values().any(|v| {
                    let mut t = self.ty(v);
                    if let Some(Type::Vector { elem, .. }) = t {
                        t = Some(self.file.types.get(*elem));
                    }
                    matches!(t, Some(Type::Float(x)) if x.starts_with("f8E4M3") || x.starts_with("f8E5M2"))
                });
                if fp8 {
                    self.err(
                        op,
                        "'arith.constant' does not support directly constructed FP8 constants in SIMT code (the VPTO backend); produce FP8 values with pto.convert",
                    );
                }
            }
            "pto.ldg" | "pto.stg" if !in_simt => {
                let n = op.opcode.name();
                self.err(
                    op,
                    format!("'{n}' must be inside a pto.simt_entry function or pto.section.simt"),
                );
            }
            "pto.ld_dev" | "pto.st_dev" => {
                let n = op.opcode.name();
                let short = &n[4..];
                let ptr = op.uses().find_map(|v| match self.ty(v) {
                    Some(Type::Ptr { space, elem }) => Some((space.clone(), *elem)),
                    _ => None,
                });
                // the loaded result, or the stored value (the first operand)
                let value = if short == "ld_dev" {
                    op.result_values().next()
                } else {
                    op.uses().next()
                };
                let value_ty = value.and_then(|v| self.file.values.get(v as usize)?.ty);
                if let (Some((_, elem)), Some(vt)) = (&ptr, value_ty) {
                    if *elem != vt {
                        self.err(
                            op,
                            format!(
                                "'{n}' expects {short} value type to match pointer element type ({} vs {})",
                                crate::printer::type_str(&self.file.types, vt),
                                crate::printer::type_str(&self.file.types, *elem)
                            ),
                        );
                        return;
                    }
                }
                if op.attr("l1cache").is_some() || op.attr("l2cache").is_some() {
                    self.err(
                        op,
                        format!("'{n}' does not accept l1cache or l2cache policy attributes"),
                    );
                    return;
                }
                let ptr = ptr.map(|(space, _)| space);
                if in_simt {
                    self.err(
                        op,
                        format!(
                            "'{n}' must be outside pto.simt_entry functions and pto.section.simt"
                        ),
                    );
                } else if ptr
                    .as_ref()
                    .is_some_and(|space| space.as_deref().is_some_and(|s| s != "gm"))
                {
                    self.err(op, format!("'{n}' requires GM pointer"));
                } else if !self.entry_func {
                    self.err(
                        op,
                        format!(
                            "'{n}' requires an enclosing ordinary AICore entry function (pto.entry, pto.kernel or pto.aicore)"
                        ),
                    );
                }
            }
            _ => {}
        }
    }

    /// Types of the values this op defines (results, header arguments) must
    /// be well formed; each malformed type is reported once per op.
    fn def_types(&mut self, op: &Op) {
        let mut defs: Vec<ValueId> = op.result_values().collect();
        defs.extend(op.body.iter().filter_map(|e| match e {
            Elem::Def(d) => Some(*d),
            _ => None,
        }));
        let mut seen = HashSet::new();
        for v in defs {
            let Some(info) = self.file.values.get(v as usize) else {
                continue;
            };
            let Some(t) = info.ty else { continue };
            if !seen.insert(t) {
                continue;
            }
            if let Some(msg) = crate::verify_vmi::type_error(self.file, t)
                .or_else(|| crate::verify_struct::type_error(self.file, t))
                .or_else(|| self.vreg_size_error(t))
            {
                // at the value that carries the type (a function argument's own line)
                let len = info.name.len() as u32 + 1;
                self.diags.push(Diagnostic::error(info.loc, len, msg));
            }
        }
    }

    /// A `!pto.vreg` is one 256-byte vector register.
    fn vreg_size_error(&self, t: crate::ty::TypeId) -> Option<String> {
        let Type::VReg { lanes, elem } = self.file.types.get(t) else {
            return None;
        };
        let bits: i64 = match self.file.types.get(*elem) {
            Type::Opaque { name, params: None } => match name.as_str() {
                "pto.bf16x2" => 32,
                "pto.hif8x2" => 16,
                "pto.hif8" | "pto.f4E2M1x2" | "pto.f4E1M2x2" | "pto.f8E8M0" => 8,
                _ => return None,
            },
            other => other.scalar_dtype()?.bits() as i64,
        };
        let bytes = lanes.saturating_mul(bits) / 8;
        (bytes != 256).then(|| {
            format!(
                "'{}' is {bytes} bytes; a vector register holds exactly 256 bytes",
                crate::printer::type_str(&self.file.types, t)
            )
        })
    }

    fn kind_ok(&self, kind: OperandKind, v: ValueId) -> bool {
        let Some(t) = self.ty(v) else {
            return true; // unknown type: nothing to check
        };
        match kind {
            OperandKind::Any => true,
            OperandKind::Tile => matches!(
                t,
                Type::TileBuf(_)
                    | Type::Tile { .. }
                    | Type::Shaped { .. }
                    | Type::Opaque { .. }
                    | Type::Stripped(_)
            ),
            OperandKind::View => matches!(
                t,
                Type::TensorView { .. }
                    | Type::PartitionView { .. }
                    | Type::Shaped { .. }
                    | Type::Opaque { .. }
            ),
            OperandKind::Ptr => matches!(
                t,
                Type::Ptr { .. } | Type::Opaque { .. } | Type::Shaped { .. } | Type::Stripped(_)
            ),
            // arith ops also work elementwise on builtin vectors
            OperandKind::Int => t.is_int_like() || self.vector_of(t, |e| e.is_int_like()),
            OperandKind::Float => t.is_float() || self.vector_of(t, |e| e.is_float()),
            OperandKind::Scalar => {
                t.is_scalar()
                    || matches!(t, Type::Opaque { .. })
                    || self.vector_of(t, |e| e.is_scalar())
            }
            OperandKind::VReg => matches!(t, Type::VReg { .. } | Type::Opaque { .. }),
            OperandKind::Mask => matches!(t, Type::Mask(_) | Type::Opaque { .. }),
            OperandKind::Align => matches!(t, Type::Align | Type::Opaque { .. }),
            OperandKind::Event => !t.is_scalar() || t.is_int_like(),
        }
    }

    fn vector_of(&self, t: &Type, f: impl Fn(&Type) -> bool) -> bool {
        match t {
            Type::Vector { elem, .. } => f(self.file.types.get(*elem)),
            _ => false,
        }
    }

    fn check_slots(
        &mut self,
        op: &Op,
        what: &str,
        slots: &[pto_isa_spec::SigSlot],
        vals: &[ValueId],
    ) {
        match Sig::assign(slots, vals.len()) {
            None => {
                let (min, max) = Sig::arity(slots);
                let expect = match max {
                    Some(m) if m == min => format!("{min}"),
                    Some(m) => format!("{min} to {m}"),
                    None => format!("at least {min}"),
                };
                self.err(
                    op,
                    format!(
                        "'{}' expects {expect} {what}, found {}",
                        op.opcode.name(),
                        vals.len()
                    ),
                );
            }
            Some(kinds) => {
                for (k, v) in kinds.iter().zip(vals) {
                    if !self.kind_ok(*k, *v) {
                        let n = self.name(*v);
                        let tn = self
                            .file
                            .values
                            .get(*v as usize)
                            .and_then(|x| x.ty)
                            .map(|t| crate::printer::type_str(&self.file.types, t))
                            .unwrap_or_default();
                        self.err(
                            op,
                            format!(
                                "'{}': {what} {n} must be {}, but has type {tn}",
                                op.opcode.name(),
                                k.describe()
                            ),
                        );
                    }
                }
            }
        }
    }

    fn signature(&mut self, op: &Op) {
        let info = op.opcode.info();
        // the generic form `"op"(operands) : (types) -> results` lists the
        // same operands as the custom form only for plain (non-DPS,
        // non-bracket, region-free) ops
        if matches!(info.form, Form::Builtin) || (op.generic && info.form != Form::Generic) {
            return;
        }
        let sig = info.signature();
        match (&sig.outs, info.form) {
            (Some(outs), Form::Dps) => {
                let ins = op.group_values("ins");
                let o = op.group_values("outs");
                if op.group("ins").is_none() && !sig.ins.iter().all(|s| s.min == 0) {
                    self.err(
                        op,
                        format!(
                            "'{}' is written `{} ins(...) outs(...)`",
                            info.name, info.name
                        ),
                    );
                    return;
                }
                self.check_slots(op, "ins operand(s)", &sig.ins, &ins);
                self.check_slots(op, "outs operand(s)", outs, &o);
                self.tile_types(op, ins.iter().chain(o.iter()).copied());
                if info.class == Class::Elementwise {
                    self.elementwise_tiles(op, &ins, &o);
                }
            }
            _ => {
                let uses: Vec<ValueId> = op.uses().collect();
                self.check_slots(op, "operand(s)", &sig.ins, &uses);
            }
        }
        let results: Vec<ValueId> = op.result_values().collect();
        if !(sig.results.is_empty()
            && sig.ins.is_empty()
            && sig.outs.is_none()
            && info.sig.is_empty()
            && results.is_empty())
        {
            self.check_slots(op, "result(s)", &sig.results, &results);
        }
    }

    /// Elementwise tile ops run on the vector pipe over vec tiles, iterating the
    /// destination's valid region; a source whose static valid region is smaller
    /// would be read outside it (docs/decisions.md).
    fn elementwise_tiles(&mut self, op: &Op, ins: &[ValueId], outs: &[ValueId]) {
        // only plain unary/binary lane-wise ops: no scratch, mask or scalar operands
        if !matches!(op.opcode.info().sig, "t | t" | "t t | t") || !same_type_op(op.opcode) {
            return;
        }
        let file = self.file;
        let tile = |v: &ValueId| match file
            .values
            .get(*v as usize)
            .and_then(|x| x.ty)
            .map(|t| file.types.get(t))
        {
            Some(Type::TileBuf(tb)) => Some(*tb),
            _ => None,
        };
        let Some(dst) = outs.first().and_then(tile) else {
            return;
        };
        for v in ins.iter().chain(outs) {
            if let Some(tb) = tile(v) {
                if tb.loc != TileLoc::Vec {
                    let n = self.name(*v);
                    self.err(
                        op,
                        format!(
                            "'{}' runs on the vector pipe and needs vec tiles, but {n} is in {}",
                            op.opcode.name(),
                            tb.loc.name()
                        ),
                    );
                    return;
                }
            }
        }
        for v in ins {
            let Some(src) = tile(v) else { continue };
            let too_small =
                |s: Option<i64>, d: Option<i64>| matches!((s, d), (Some(s), Some(d)) if s < d);
            if too_small(src.v_row, dst.v_row) || too_small(src.v_col, dst.v_col) {
                let n = self.name(*v);
                let d = |x: Option<i64>| x.map_or("?".to_string(), |v| v.to_string());
                self.err(
                    op,
                    format!(
                        "'{}' iterates over the destination's valid region {}x{}, but source {n} is only valid over {}x{}",
                        op.opcode.name(),
                        d(dst.v_row),
                        d(dst.v_col),
                        d(src.v_row),
                        d(src.v_col)
                    ),
                );
            }
        }
    }

    fn tile_types(&mut self, op: &Op, vals: impl Iterator<Item = ValueId>) {
        for v in vals {
            if let Some(Type::TileBuf(tb)) = self.ty(v) {
                let tb = *tb;
                if let Some(msg) = self.tile_illegal(&tb) {
                    let n = self.name(v);
                    self.err(op, format!("illegal tile type for {n}: {msg}"));
                }
            }
        }
    }

    /// Legality of a tile_buf type on the current profile.
    pub(crate) fn tile_illegal(&self, tb: &TileBuf) -> Option<String> {
        if tb.rows <= 0 || tb.cols <= 0 {
            return Some(format!(
                "rows and cols must be positive (rows={}, cols={})",
                tb.rows, tb.cols
            ));
        }
        if let Some(r) = tb.v_row {
            if r < 0 || r > tb.rows {
                return Some(format!("v_row={r} outside 0..={}", tb.rows));
            }
        }
        if let Some(c) = tb.v_col {
            if c < 0 || c > tb.cols {
                return Some(format!("v_col={c} outside 0..={}", tb.cols));
            }
        }
        if tb.pad > 3 {
            return Some(format!(
                "pad={} (expected 0 null, 1 zero, 2 max, 3 min)",
                tb.pad
            ));
        }
        if tb.compact > 3 {
            return Some(format!("compact={} (expected 0..=3)", tb.compact));
        }
        let Some(dt) = self.file.types.get(tb.elem).scalar_dtype() else {
            return None; // opaque element types are not checked
        };
        let bits = dt.bits() as i64;
        let bytes = (tb.rows * tb.cols).saturating_mul(bits) / 8;
        let p = self.profile.profile();
        let cap = match tb.loc {
            TileLoc::Vec => p.ub_bytes,
            TileLoc::Mat => p.l1_bytes,
            TileLoc::Left => p.l0a_bytes,
            TileLoc::Right => p.l0b_bytes,
            TileLoc::Acc => p.l0c_bytes,
            TileLoc::Bias => p.bias_bytes.max(p.ub_bytes),
            TileLoc::Scaling => p.fb_bytes.max(p.ub_bytes),
            TileLoc::ScaleLeft | TileLoc::ScaleRight => p.scale_bytes.max(4096),
            TileLoc::Ctrl => usize::MAX,
        } as i64;
        if bytes > cap {
            return Some(format!(
                "{}x{}x{dt} needs {bytes} bytes, more than the {} bytes of {} on profile {}",
                tb.rows,
                tb.cols,
                cap,
                tb.loc.name(),
                self.profile
            ));
        }
        if tb.slayout != SLayout::NoneBox && !matches!(tb.fractal, 32 | 512 | 1024 | 2048) {
            return Some(format!(
                "fractal={} (expected 32, 512, 1024 or 2048 bytes)",
                tb.fractal
            ));
        }
        None
    }

    fn dtypes(&mut self, op: &Op) {
        let info = op.opcode.info();
        let allowed = info.dtypes.for_profile(self.profile);
        if allowed == pto_isa_spec::DtypeSet::ANY {
            return;
        }
        // the primary data operand: first tile of ins (tile ops), else first vreg
        let primary = match info.form {
            Form::Dps => op.group("ins").and_then(|(vals, _)| {
                vals.into_iter()
                    .find(|v| matches!(self.ty(*v), Some(Type::TileBuf(_) | Type::Tile { .. })))
            }),
            _ => op
                .uses()
                .find(|v| matches!(self.ty(*v), Some(Type::VReg { .. }))),
        };
        let Some(v) = primary else { return };
        let Some(t) = self.file.values[v as usize].ty else {
            return;
        };
        let Some(dt) = self.file.types.elem_dtype(t) else {
            return;
        };
        if !allowed.contains(dt) {
            let n = self.name(v);
            self.err(
                op,
                format!(
                    "'{}' does not support element type {dt} on profile {} ({n}); supported: {:?}",
                    info.name, self.profile, allowed
                ),
            );
        }
        // elementwise tile ops: all tile operands share the element type
        if info.class == Class::Elementwise && info.form == Form::Dps && same_type_op(op.opcode) {
            let mut tiles: Vec<ValueId> = Vec::new();
            for g in ["ins", "outs"] {
                if let Some((vals, _)) = op.group(g) {
                    tiles.extend(
                        vals.into_iter()
                            .filter(|v| matches!(self.ty(*v), Some(Type::TileBuf(_)))),
                    );
                }
            }
            let dts: Vec<_> = tiles
                .iter()
                .filter_map(|v| {
                    self.file.values[*v as usize]
                        .ty
                        .and_then(|t| self.file.types.elem_dtype(t))
                })
                .collect();
            if let Some(first) = dts.first() {
                if let Some(other) = dts.iter().find(|d| *d != first) {
                    self.err(
                        op,
                        format!(
                            "'{}' operands must share one element type, found {first} and {other} (insert a pto.tcvt)",
                            info.name
                        ),
                    );
                }
            }
        }
    }

    /// Pipes and event ids of sync ops must exist on the profile.
    fn sync_operands(&mut self, op: &Op) {
        let info = op.opcode.info();
        if info.class != Class::Sync {
            return;
        }
        let p = self.profile.profile();
        // `set_flag[src, dst, event]`: two pipes and an event id, or the op
        // cannot order anything (it used to fault only when reached)
        let name = op.opcode.name();
        if matches!(
            name,
            "pto.set_flag" | "pto.wait_flag" | "pto.set_flag_dyn" | "pto.wait_flag_dyn"
        ) {
            let imms = op.immediates();
            let pipes = imms
                .iter()
                .filter(|i| i.symbol().is_some_and(|s| Pipe::from_name(s).is_some()))
                .count();
            let event = imms.iter().any(|i| match i {
                Imm::Value(_) | Imm::Attr(Attr::Int { .. }) => true,
                _ => i.symbol().is_some_and(|s| s.starts_with("EVENT_ID")),
            });
            if pipes < 2 || !event {
                self.err(
                    op,
                    format!("'{name}' expects a source pipe, a destination pipe and an event id, e.g. {name}[\"PIPE_MTE2\", \"PIPE_V\", \"EVENT_ID0\"]"),
                );
            }
        }
        for imm in op.immediates() {
            let Some(sym) = imm.symbol() else { continue };
            if let Some(rest) = sym.strip_prefix("EVENT_ID") {
                match rest.parse::<u32>() {
                    Ok(n) if n < p.event_ids => {}
                    Err(_) => self.err(
                        op,
                        format!(
                            "{sym} is not an event id (EVENT_ID0..EVENT_ID{} on profile {})",
                            p.event_ids - 1,
                            self.profile
                        ),
                    ),
                    Ok(_) => self.err(
                        op,
                        format!(
                            "event id {sym} is out of range on profile {} (EVENT_ID0..EVENT_ID{})",
                            self.profile,
                            p.event_ids - 1
                        ),
                    ),
                }
            } else if sym.starts_with("PIPE_") && Pipe::from_name(sym).is_none() {
                self.err(op, format!("unknown pipe {sym} (expected PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_FIX, PIPE_ALL)"));
            }
        }
        // a literal buffer id of get_buf/rls_buf must be in the profile's pool
        if matches!(op.opcode.name(), "pto.get_buf" | "pto.rls_buf") {
            let id = op.immediates().into_iter().find_map(|i| match i {
                Imm::Attr(Attr::Int { value, .. }) => Some(*value),
                _ => None,
            });
            if let Some(id) = id {
                if id < 0 || id >= p.buf_ids as i128 {
                    self.err(
                        op,
                        format!(
                            "buffer id {id} is out of range on profile {} (0..{})",
                            self.profile, p.buf_ids
                        ),
                    );
                }
            }
        }
    }
}

/// Elementwise ops whose operands all share the destination element type.
fn same_type_op(op: Opcode) -> bool {
    let n = op.name();
    !(n.contains("cvt")
        || n.contains("cmp")
        || n.contains("sel")
        || n.contains("quant")
        || n.contains("shl")
        || n.contains("shr")
        || n.contains("conv")
        || n.contains("deq")
        || n.contains("relu")
        || n.contains("addc")
        || n.contains("subc")
        || n.contains("axpy")
        || n.starts_with("pto.tpart"))
}

/// The static `<<<x, y, z>>>` launch dimensions of a SIMT section, if written
/// as integers.
fn launch_dims(op: &Op) -> Vec<i128> {
    let mut out = Vec::new();
    let mut neg = false;
    for e in &op.body {
        match e {
            Elem::P(crate::ast::Punct::Minus) => neg = true,
            Elem::Attr(Attr::Int { value, .. }) => {
                out.push(if neg { -*value } else { *value });
                neg = false;
            }
            Elem::Attr(Attr::Dialect { ns, body: Some(b) }) if ns.is_empty() => {
                let t: String = b
                    .chars()
                    .filter(|c| !c.is_whitespace() && *c != '<' && *c != '>')
                    .collect();
                out.extend(t.split(',').filter_map(|x| x.parse::<i128>().ok()));
            }
            Elem::Use(_) => return Vec::new(),
            Elem::Region(_) => break,
            _ => {}
        }
    }
    out
}
