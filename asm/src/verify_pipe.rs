//! Whole-module tile-pipe contracts: the rules that relate ops in different
//! functions. A `pto.import_reserved_buffer` names a `pto.reserve_buffer` in a
//! peer function; the two halves of a cube/vector pipe (frontend
//! `pto.aic_/aiv_initialize_pipe`, or the lowered `pto.initialize_l2l_pipe`)
//! are paired through those buffers; a pipe's split usage, hardware flag ids
//! and FIXPIPE epilogue must agree across the pair. Called once per file from
//! [`crate::verify`].

use std::collections::{BTreeMap, HashMap};

use crate::ast::{Elem, File, Op, Punct, ValueId};
use crate::attr::Attr;
use crate::diag::Diagnostic;
use crate::ty::{BLayout, SLayout, TileLoc, Type};

/// Hardware flag ids a function has for its pipes.
const FLAG_IDS: i128 = 16;

/// A function and where it sits.
struct Func<'a> {
    op: &'a Op,
    name: String,
    /// Index of the innermost enclosing `module`, if any.
    module: Option<usize>,
    private: bool,
    /// `pto.ptodsl.logical_name`, the name a specialised function answers to.
    logical: Option<String>,
}

/// An op inside a function.
#[derive(Clone, Copy)]
struct In<'a> {
    op: &'a Op,
    func: usize,
}

/// One pipe initialisation.
struct Init<'a> {
    op: &'a Op,
    func: usize,
    frontend: bool,
    dir: i128,
    /// Peer keys: (owner function, reserved buffer name, direction).
    keys: Vec<(String, String, i128)>,
}

struct Ctx<'a> {
    file: &'a File,
    funcs: Vec<Func<'a>>,
    /// Modules: op and parent module index.
    modules: Vec<(&'a Op, Option<usize>)>,
    /// Ops inside functions, in file order.
    ops: Vec<In<'a>>,
    defs: HashMap<ValueId, In<'a>>,
    diags: Vec<Diagnostic>,
}

fn int(op: &Op, k: &str) -> Option<i128> {
    op.attr(k).and_then(Attr::as_int)
}

fn string(op: &Op, k: &str) -> Option<String> {
    op.attr(k).and_then(Attr::as_str).map(str::to_string)
}

fn symbol(op: &Op, k: &str) -> Option<String> {
    match op.attr(k)? {
        Attr::Symbol(s) => Some(s.clone()),
        a => a.as_str().map(str::to_string),
    }
}

/// The value written as `key = %v` in an op's operand list.
fn named_use(op: &Op, key: &str) -> Option<ValueId> {
    op.body.windows(3).find_map(|w| match w {
        [Elem::Ident(k), Elem::P(Punct::Equal), Elem::Use(v)] if k == key => Some(*v),
        _ => None,
    })
}

fn func_symbol(op: &Op) -> Option<String> {
    op.body.iter().find_map(|x| match x {
        Elem::Attr(Attr::Symbol(s)) => Some(s.clone()),
        _ => None,
    })
}

fn callees(op: &Op) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![op];
    while let Some(o) = stack.pop() {
        if o.opcode.name() == "func.call" {
            if let Some(s) = func_symbol(o) {
                out.push(s);
            }
        }
        for r in &o.regions {
            for b in &r.blocks {
                stack.extend(b.ops.iter());
            }
        }
    }
    out
}

impl<'a> Ctx<'a> {
    fn collect(&mut self, op: &'a Op, module: Option<usize>, func: Option<usize>) {
        let name = op.opcode.name();
        let (mut module, mut func) = (module, func);
        if name == "builtin.module" || name == "module" {
            self.modules.push((op, module));
            module = Some(self.modules.len() - 1);
        } else if name == "func.func" {
            self.funcs.push(Func {
                op,
                name: func_symbol(op).unwrap_or_default(),
                module,
                private: op
                    .body
                    .iter()
                    .any(|e| matches!(e, Elem::Ident(k) if k == "private")),
                logical: string(op, "pto.ptodsl.logical_name"),
            });
            func = Some(self.funcs.len() - 1);
        } else if let Some(f) = func {
            let i = In { op, func: f };
            self.ops.push(i);
            for v in op.result_values() {
                self.defs.insert(v, i);
            }
        }
        for r in &op.regions {
            for b in &r.blocks {
                for o in &b.ops {
                    self.collect(o, module, func);
                }
            }
        }
    }

    fn err(&mut self, op: &Op, msg: impl std::fmt::Display) {
        let n = op.opcode.name();
        self.diags.push(Diagnostic::error(
            op.loc,
            n.len() as u32,
            format!("'{n}' {msg}"),
        ));
    }

    /// The function a `peer_func` reference names, seen from function `from`:
    /// a function of the same module, else the single public function of
    /// another module with that name (or PTODSL logical name).
    fn peer(&self, from: usize, sym: &str) -> Option<usize> {
        let here = self.funcs[from].module;
        let local: Vec<usize> = (0..self.funcs.len())
            .filter(|i| self.funcs[*i].module == here && self.funcs[*i].name == sym)
            .collect();
        if local.len() == 1 {
            return Some(local[0]);
        }
        if !local.is_empty() {
            return None;
        }
        let other: Vec<usize> = (0..self.funcs.len())
            .filter(|i| {
                let f = &self.funcs[*i];
                f.module != here
                    && !f.private
                    && (f.name == sym || f.logical.as_deref() == Some(sym))
            })
            .collect();
        (other.len() == 1).then(|| other[0])
    }

    /// `reserve_buffer` ops named `name` in function `f`.
    fn reserve_in(&self, f: usize, name: &str) -> Option<&'a Op> {
        self.ops.iter().find_map(|i| {
            (i.func == f
                && i.op.opcode.name() == "pto.reserve_buffer"
                && string(i.op, "name").as_deref() == Some(name))
            .then_some(i.op)
        })
    }

    /// The peer key of a buffer address: the owning function and buffer name.
    fn key(&self, v: ValueId, func: usize) -> Option<(String, String)> {
        let d = self.defs.get(&v)?;
        let name = string(d.op, "name")?;
        match d.op.opcode.name() {
            "pto.reserve_buffer" => Some((self.funcs[func].name.clone(), name)),
            "pto.import_reserved_buffer" => {
                let sym = symbol(d.op, "peer_func")?;
                let p = self.peer(d.func, &sym)?;
                Some((self.funcs[p].name.clone(), name))
            }
            _ => None,
        }
    }

    /// A reserved buffer: a named, positive-size range of UB or L1, placed by
    /// memory planning (`auto = true`) or at an explicit `base`.
    fn reserves(&mut self) {
        let mut seen: HashMap<(usize, String), ()> = HashMap::new();
        for i in self.ops.clone() {
            if i.op.opcode.name() != "pto.reserve_buffer" {
                continue;
            }
            let op = i.op;
            if let Some(n) = int(op, "size").filter(|n| *n <= 0) {
                self.err(op, format!("expects 'size' to be greater than 0, got {n}"));
                continue;
            }
            if let Some(Attr::Dialect { body: Some(b), .. }) = op.attr("location") {
                let space = b.trim_matches(|c| c == '<' || c == '>' || c == ' ');
                if space != "vec" && space != "mat" {
                    self.err(
                        op,
                        format!("expects 'location' to be #pto.address_space<vec> or #pto.address_space<mat>, got {space}"),
                    );
                    continue;
                }
            }
            let auto = int(op, "auto").map(|a| a != 0);
            let base = int(op, "base");
            if auto == Some(false) && base.is_none() {
                self.err(op, "expects 'base' when 'auto' is false");
                continue;
            }
            if auto == Some(true) && base.is_some() {
                self.err(
                    op,
                    "unexpected 'base' on auto reserve_buffer: memory planning assigns it (write auto = false to place it yourself)",
                );
                continue;
            }
            if let Some(b) = base.filter(|b| *b < 0) {
                self.err(
                    op,
                    format!("expects 'base' to be non-negative when present, got {b}"),
                );
                continue;
            }
            if let Some(n) = string(op, "name") {
                if seen.insert((i.func, n.clone()), ()).is_some() {
                    self.err(
                        op,
                        format!("requires 'name' to be unique within the function (\"{n}\" is reserved twice)"),
                    );
                }
            }
        }
    }

    fn imports(&mut self) {
        let mut seen: HashMap<(usize, String, String), ()> = HashMap::new();
        for i in self.ops.clone() {
            if i.op.opcode.name() != "pto.import_reserved_buffer" {
                continue;
            }
            let Some(sym) = symbol(i.op, "peer_func") else {
                continue;
            };
            let Some(p) = self.peer(i.func, &sym) else {
                self.err(
                    i.op,
                    format!("expects 'peer_func' to reference an existing func.func: @{sym} names no single visible function (a peer in another module must be public and unique)"),
                );
                continue;
            };
            // a peer cloned in from another module must be a leaf
            if self.funcs[p].module != self.funcs[i.func].module {
                if let Some(c) = callees(self.funcs[p].op).first() {
                    self.err(
                        i.op,
                        format!("imports from @{} in another module, which calls @{c}; a peer_func in another module must be a leaf function", self.funcs[p].name),
                    );
                    continue;
                }
            }
            if let Some(name) = string(i.op, "name") {
                if seen
                    .insert((i.func, name.clone(), sym.clone()), ())
                    .is_some()
                {
                    self.err(
                        i.op,
                        format!("requires (name, peer_func) to be unique within the function (\"{name}\" from @{sym} is imported twice)"),
                    );
                    continue;
                }
                if self.reserve_in(p, &name).is_none() {
                    self.err(
                        i.op,
                        format!(
                            "expects matching peer reserve_buffer \"{name}\" to exist in @{}",
                            self.funcs[p].name
                        ),
                    );
                }
            }
        }
    }

    /// Modules assembled as children of a mixed-backend module may not export
    /// two public specialisations of one PTODSL logical name.
    fn logical_names(&mut self) {
        let backends: Vec<String> = self
            .modules
            .iter()
            .filter_map(|(m, _)| string(m, "pto.backend"))
            .collect();
        if backends.iter().all(|b| *b == backends[0]) {
            return;
        }
        let mut seen: HashMap<(Option<usize>, String), usize> = HashMap::new();
        for i in 0..self.funcs.len() {
            let f = &self.funcs[i];
            let Some(l) = f.logical.clone() else { continue };
            if f.private {
                continue;
            }
            if seen.insert((f.module, l.clone()), i).is_some() {
                let op = self.funcs[i].op;
                self.err(
                    op,
                    format!("is a second public specialisation of PTODSL logical name '@{l}' in one module; a mixed-backend child may export only one"),
                );
            }
        }
    }

    fn inits(&mut self) -> Vec<Init<'a>> {
        let mut out = Vec::new();
        for i in self.ops.clone() {
            let name = i.op.opcode.name();
            let frontend = matches!(name, "pto.aic_initialize_pipe" | "pto.aiv_initialize_pipe");
            let lowered = matches!(
                name,
                "pto.initialize_l2l_pipe" | "pto.initialize_l2g2l_pipe"
            );
            if !frontend && !lowered {
                continue;
            }
            let Some(dir) = int(i.op, "dir_mask") else {
                continue;
            };
            let bufs: Vec<(Option<ValueId>, i128)> = if frontend {
                let c2v = named_use(i.op, "c2v_consumer_buf");
                let v2c = named_use(i.op, "v2c_consumer_buf");
                match dir {
                    1 => vec![(c2v, 1)],
                    2 => vec![(v2c, 2)],
                    _ => vec![(c2v, 1), (v2c, 2)],
                }
            } else {
                // operands: local address (l2l), or gm address then local (l2g2l)
                let uses: Vec<ValueId> = i.op.uses().collect();
                let local = if name == "pto.initialize_l2l_pipe" {
                    uses.first().copied()
                } else {
                    uses.get(1).copied()
                };
                let d = if dir == 3 { 1 } else { dir };
                vec![(local, d)]
            };
            let global_only = bufs.iter().all(|(v, _)| v.is_none());
            let mut keys = Vec::new();
            if global_only && frontend {
                let id = int(i.op, "id").unwrap_or(0);
                keys.push((String::new(), format!("gm-slot pipe id {id}"), dir));
            }
            for (v, d) in &bufs {
                if let Some((owner, n)) = v.and_then(|v| self.key(v, i.func)) {
                    keys.push((owner, n, *d));
                }
            }
            if lowered && keys.is_empty() && !global_only && i.op.attr("flag_base").is_none() {
                self.err(
                    i.op,
                    "requires local_addr to come from pto.reserve_buffer or pto.import_reserved_buffer when 'flag_base' is not explicit",
                );
            }
            // (a pipe written without its consumer buffer is left to the op's signature)
            if frontend
                && i.op.attr("acc_push_epilogue").is_some()
                && named_use(i.op, "c2v_consumer_buf").is_some()
                && keys.is_empty()
            {
                self.err(
                    i.op,
                    "expects fixpipe pipe 'c2v_consumer_buf' to trace to reserve_buffer or import_reserved_buffer for peer contract verification",
                );
            }
            out.push(Init {
                op: i.op,
                func: i.func,
                frontend,
                dir,
                keys,
            });
        }
        out
    }

    /// Inits connected through shared peer keys.
    fn components(inits: &[Init<'a>]) -> Vec<Vec<usize>> {
        let mut by_key: BTreeMap<&(String, String, i128), Vec<usize>> = BTreeMap::new();
        for (i, x) in inits.iter().enumerate() {
            for k in &x.keys {
                by_key.entry(k).or_default().push(i);
            }
        }
        let mut parent: Vec<usize> = (0..inits.len()).collect();
        fn find(p: &mut [usize], x: usize) -> usize {
            let mut r = x;
            while p[r] != r {
                r = p[r];
            }
            p[x] = r;
            r
        }
        for v in by_key.values() {
            for w in v.windows(2) {
                let (a, b) = (find(&mut parent, w[0]), find(&mut parent, w[1]));
                parent[a] = b;
            }
        }
        let mut comps: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (i, x) in inits.iter().enumerate() {
            if x.keys.is_empty() {
                continue;
            }
            let r = find(&mut parent, i);
            comps.entry(r).or_default().push(i);
        }
        let mut out: Vec<Vec<usize>> = comps.into_values().collect();
        out.sort_by_key(|c| c[0]);
        out
    }

    /// The tile-pipe data ops of function `f` that use frontend pipe `id`.
    fn entries(&self, f: usize, id: i128, names: &[&str]) -> Vec<&'a Op> {
        self.ops
            .iter()
            .filter(|i| {
                i.func == f
                    && names.contains(&i.op.opcode.name())
                    && int(i.op, "id").unwrap_or(0) == id
            })
            .map(|i| i.op)
            .collect()
    }

    /// Split usage of an init's data ops: (saw split = 0, saw split != 0).
    fn split_usage(&self, x: &Init<'a>) -> (bool, bool) {
        let ops: Vec<&Op> = if x.frontend {
            let id = int(x.op, "id").unwrap_or(0);
            let names: &[&str] = if x.op.opcode.name() == "pto.aic_initialize_pipe" {
                &[
                    "pto.tpush_to_aiv",
                    "pto.tpop_from_aiv",
                    "pto.talloc_to_aiv",
                    "pto.tfree_from_aiv",
                ]
            } else {
                &[
                    "pto.tpush_to_aic",
                    "pto.tpop_from_aic",
                    "pto.talloc_to_aic",
                    "pto.tfree_from_aic",
                ]
            };
            self.entries(x.func, id, names)
        } else {
            let pipe: Vec<ValueId> = x.op.result_values().collect();
            self.ops
                .iter()
                .filter(|i| i.op.uses().any(|u| pipe.contains(&u)))
                .map(|i| i.op)
                .filter(|o| {
                    matches!(
                        o.opcode.name(),
                        "pto.tpush" | "pto.tpop" | "pto.talloc" | "pto.tfree"
                    )
                })
                .collect()
        };
        let mut none = false;
        let mut some = false;
        for o in ops {
            match int(o, "split") {
                Some(0) => none = true,
                Some(_) => some = true,
                None => {}
            }
        }
        (none, some)
    }

    fn pairing(&mut self, inits: &[Init<'a>]) {
        let comps = Self::components(inits);
        // flag ids used per function
        let mut flags: HashMap<usize, i128> = HashMap::new();
        for c in &comps {
            let first = &inits[c[0]];
            let fixpipe = c
                .iter()
                .any(|i| inits[*i].op.attr("acc_push_epilogue").is_some());
            let mut funcs: Vec<usize> = c.iter().map(|i| inits[*i].func).collect();
            funcs.sort();
            funcs.dedup();
            if first.keys.iter().all(|k| k.0.is_empty()) {
                // GM-slot-only pipes pair by id; only their split use is checked
                if let [a, b] = c.as_slice() {
                    self.split_agreement(&inits[*a], &inits[*b]);
                }
                continue;
            }
            if c.len() != 2 || funcs.len() != 2 {
                if fixpipe && c.len() == 1 && first.op.opcode.name() == "pto.aic_initialize_pipe" {
                    self.err(
                        first.op,
                        "expects peer consumer function to contain a matching aiv_initialize_pipe with the same consumer buffer contract",
                    );
                } else if !(fixpipe && c.len() == 1) {
                    let peers = if c.len() == 1 {
                        "has no peer init in another function".to_string()
                    } else {
                        format!(
                            "is one of {} inits in {} function(s) sharing its buffers",
                            c.len(),
                            funcs.len()
                        )
                    };
                    self.err(
                        first.op,
                        format!("requires a complete compatible peer init pair (one init in each of two functions) when local_addr comes from pto.reserve_buffer or pto.import_reserved_buffer; this pipe {peers}"),
                    );
                }
                continue;
            }
            let (a, b) = (&inits[c[0]], &inits[c[1]]);
            if fixpipe {
                self.fixpipe(a, b);
            } else {
                self.split_agreement(a, b);
                if a.dir != b.dir
                    || int(a.op, "slot_size") != int(b.op, "slot_size")
                    || int(a.op, "slot_num") != int(b.op, "slot_num")
                {
                    self.err(
                        a.op,
                        "requires peer pipe init ops to agree on direction and pipe shape (dir_mask, slot_size, slot_num)",
                    );
                }
            }
            if c.iter().any(|i| inits[*i].op.attr("flag_base").is_some()) {
                continue;
            }
            let width = if first.dir == 3 { 4 } else { 2 };
            for f in funcs {
                let used = flags.entry(f).or_insert(0);
                *used += width;
                if *used > FLAG_IDS {
                    let n = self.funcs[f].name.clone();
                    self.err(
                        first.op,
                        format!("requires all pipe components in a function to fit within {FLAG_IDS} hardware flag ids (@{n} needs {used})"),
                    );
                    break;
                }
            }
        }
    }

    /// The two halves of one pipe must agree on whether entries are split.
    fn split_agreement(&mut self, a: &Init<'a>, b: &Init<'a>) {
        let mut inferred: Option<(bool, &Op)> = None;
        for x in [a, b] {
            let (none, some) = self.split_usage(x);
            if none && some {
                self.err(
                    x.op,
                    "cannot mix 'split = 0' with 'split = 1', 'split = 2', 'split = 3', or 'split = 4' on the same logical pipe",
                );
                return;
            }
            if !(none || some) {
                continue;
            }
            if let Some((prev, _)) = inferred {
                if prev != none {
                    self.err(
                        x.op,
                        "conflicting pipe split usage across peer pipe init ops (one side splits entries between the vector subblocks, the other does not)",
                    );
                    return;
                }
            }
            inferred = Some((none, x.op));
        }
        let Some((nosplit, _)) = inferred else {
            return;
        };
        for x in [a, b] {
            if let Some(explicit) = int(x.op, "nosplit") {
                if (explicit != 0) != nosplit {
                    let msg = if explicit != 0 {
                        "explicit 'nosplit = true' conflicts with downstream users that require split = 1, 2, 3, or 4"
                    } else {
                        "explicit 'nosplit = false' conflicts with downstream users that require split = 0"
                    };
                    self.err(x.op, msg);
                    return;
                }
            }
        }
    }

    fn tile_of(&self, v: ValueId) -> Option<crate::ty::TileBuf> {
        let t = self.file.values.get(v as usize)?.ty?;
        match self.file.types.get(t) {
            Type::TileBuf(tb) => Some(*tb),
            _ => None,
        }
    }

    fn elem_name(&self, tb: &crate::ty::TileBuf) -> String {
        crate::printer::type_str(&self.file.types, tb.elem)
    }

    /// FIXPIPE pipes: both halves carry the same epilogue, and the vector
    /// side's popped tiles are what the epilogue produces from the pushed
    /// accumulator.
    fn fixpipe(&mut self, a: &Init<'a>, b: &Init<'a>) {
        let (cube, vec) = if a.op.opcode.name() == "pto.aic_initialize_pipe" {
            (a, b)
        } else {
            (b, a)
        };
        if cube.op.opcode.name() != "pto.aic_initialize_pipe"
            || vec.op.opcode.name() != "pto.aiv_initialize_pipe"
        {
            return;
        }
        let fields = |op: &Op| -> Option<BTreeMap<String, String>> {
            let Attr::Dialect { body: Some(b), .. } = op.attr("acc_push_epilogue")? else {
                return Some(BTreeMap::new());
            };
            let t: String = b.chars().filter(|c| !c.is_whitespace()).collect();
            Some(
                t.trim_matches(|c| c == '<' || c == '>')
                    .split(',')
                    .filter_map(|f| f.split_once('='))
                    .map(|(k, v)| (k.to_string(), v.trim_end_matches('>').to_string()))
                    .collect(),
            )
        };
        let (Some(pe), Some(ce)) = (fields(cube.op), fields(vec.op)) else {
            if cube.op.attr("acc_push_epilogue").is_some() {
                self.err(
                    cube.op,
                    "expects peer consumer pipe init to also have 'acc_push_epilogue' for fixpipe contract consistency",
                );
            } else {
                self.err(
                    vec.op,
                    "expects peer producer pipe init to also have 'acc_push_epilogue' for fixpipe contract consistency",
                );
            }
            return;
        };
        for k in ["layout", "quant", "relu"] {
            if pe.get(k) != ce.get(k) {
                let s = |m: &BTreeMap<String, String>| m.get(k).cloned().unwrap_or_default();
                self.err(
                    cube.op,
                    format!(
                        "expects acc_push_epilogue.{k} to match peer consumer (producer has {}, consumer has {})",
                        s(&pe),
                        s(&ce)
                    ),
                );
                return;
            }
        }
        let vid = int(vec.op, "id").unwrap_or(0);
        let pops = self.entries(vec.func, vid, &["pto.tpop_from_aic"]);
        if pops.is_empty() {
            self.err(
                vec.op,
                format!("expects at least one tpop_from_aic for fixpipe pipe id = {vid} to resolve the consumer entry type"),
            );
            return;
        }
        let ty = |o: &Op| {
            o.result_values()
                .next()
                .and_then(|v| self.file.values.get(v as usize)?.ty)
        };
        let t0 = ty(pops[0]);
        if pops.iter().any(|p| ty(p) != t0) {
            self.err(
                vec.op,
                format!("expects all tpop_from_aic results for fixpipe pipe id = {vid} to use the same tile type"),
            );
            return;
        }
        let Some(dst) = pops[0].result_values().next().and_then(|v| self.tile_of(v)) else {
            return;
        };
        let quant = ce.get("quant").cloned().unwrap_or_default();
        let layout = ce.get("layout").cloned().unwrap_or_default();
        let de = self.elem_name(&dst);
        let consumer_ok = match quant.as_str() {
            "no_convert" => matches!(de.as_str(), "f32" | "i32" | "si32" | "ui32"),
            "f32_f16" | "deqf16_scalar" | "deqf16_vec" | "qf322f16_pre_scalar" => de == "f16",
            "f32_bf16" | "qf322bf16_pre_scalar" | "qs322bf16_pre_scalar" | "qs322bf16_pre_vec" => {
                de == "bf16"
            }
            // 8-bit results name their signedness: si8/ui8 (vector scales: si8)
            "req8_scalar" | "qf322b8_pre_scalar" => matches!(de.as_str(), "si8" | "ui8"),
            "req8_vec" | "qf322b8_pre_vec" => de == "si8",
            _ => true,
        };
        if !consumer_ok {
            self.err(
                vec.op,
                format!("expects consumer element type to match acc_push_epilogue.quant {quant} (tpop_from_aic result has {de})"),
            );
            return;
        }
        let layout_ok = dst.loc == TileLoc::Vec
            && match layout.as_str() {
                "nz2nd" => dst.blayout == BLayout::RowMajor && dst.slayout == SLayout::NoneBox,
                "nz2dn" => dst.blayout == BLayout::ColMajor && dst.slayout == SLayout::NoneBox,
                "nz2nz" => dst.blayout == BLayout::ColMajor && dst.slayout == SLayout::RowMajor,
                _ => true,
            };
        if !layout_ok {
            self.err(
                vec.op,
                format!("expects consumer tile layout to match acc_push_epilogue.layout {layout}"),
            );
            return;
        }
        let bits: i64 = match de.as_str() {
            "f32" | "i32" | "si32" | "ui32" => 32,
            "f16" | "bf16" => 16,
            _ => 8,
        };
        let need = dst.rows * dst.cols * bits / 8;
        if let Some(s) = int(vec.op, "slot_size") {
            if s < need as i128 {
                self.err(
                    vec.op,
                    format!("expects consumer-side fixpipe slot_size to be at least {need} bytes for the resolved post-fixpipe consumer entry (slot_size = {s})"),
                );
                return;
            }
        }
        if let Some(s) = int(cube.op, "slot_size") {
            if s < need as i128 {
                self.err(
                    vec.op,
                    format!("expects peer producer fixpipe slot_size to be at least {need} bytes for the resolved post-fixpipe consumer entry (producer slot_size = {s})"),
                );
                return;
            }
        }
        let cid = int(cube.op, "id").unwrap_or(0);
        for push in self.entries(cube.func, cid, &["pto.tpush_to_aiv"]) {
            let Some(src) = push.uses().find_map(|v| self.tile_of(v)) else {
                continue;
            };
            let se = self.elem_name(&src);
            let int32 = matches!(se.as_str(), "i32" | "si32" | "ui32");
            let ok = match quant.as_str() {
                "no_convert" => (se == "f32" || int32) && se == de,
                "f32_f16"
                | "f32_bf16"
                | "qf322b8_pre_scalar"
                | "qf322b8_pre_vec"
                | "qf322f16_pre_scalar"
                | "qf322bf16_pre_scalar"
                | "qf322hif8_pre_scalar"
                | "qf322fp8_pre_scalar" => se == "f32",
                "req8_scalar"
                | "req8_vec"
                | "deqf16_scalar"
                | "deqf16_vec"
                | "qs322bf16_pre_scalar"
                | "qs322bf16_pre_vec" => int32,
                _ => true,
            };
            if !ok {
                self.err(
                    vec.op,
                    format!("expects producer source element type and consumer tpop result element type to satisfy acc_push_epilogue.quant {quant} (pushed {se}, popped {de})"),
                );
                return;
            }
        }
    }
}

/// Checks the cross-function pipe contracts of `file`.
pub(crate) fn check(file: &File) -> Vec<Diagnostic> {
    let mut c = Ctx {
        file,
        funcs: Vec::new(),
        modules: Vec::new(),
        ops: Vec::new(),
        defs: HashMap::new(),
        diags: Vec::new(),
    };
    for op in &file.items {
        c.collect(op, None, None);
    }
    if !c.ops.iter().any(|i| {
        let n = i.op.opcode.name();
        n.contains("initialize") || n.contains("reserve")
    }) && c.funcs.iter().all(|f| f.logical.is_none())
    {
        return Vec::new();
    }
    c.reserves();
    c.imports();
    c.logical_names();
    let inits = c.inits();
    c.pairing(&inits);
    c.diags
}

impl Op {
    /// Opcode names of this op and every op nested in it.
    pub(crate) fn walk_names(&self) -> Vec<&'static str> {
        let mut out = vec![self.opcode.name()];
        for r in &self.regions {
            for b in &r.blocks {
                for o in &b.ops {
                    out.extend(o.walk_names());
                }
            }
        }
        out
    }
}

/// Whether `op` is `target` or holds it in a region.
fn contains(op: &Op, target: &Op) -> bool {
    std::ptr::eq(op, target)
        || op
            .regions
            .iter()
            .flat_map(|r| r.blocks.iter())
            .flat_map(|b| b.ops.iter())
            .any(|o| contains(o, target))
}

/// The function that holds `op`.
pub(crate) fn func_of<'a>(file: &'a File, op: &Op) -> Option<&'a Op> {
    file.walk()
        .into_iter()
        .filter(|f| f.opcode.name() == "func.func")
        .find(|f| contains(f, op))
}

/// The frontend pipe init with `id` in function `f`.
pub(crate) fn frontend_init(f: &Op, id: i128) -> Option<&Op> {
    let mut stack = vec![f];
    while let Some(o) = stack.pop() {
        if matches!(
            o.opcode.name(),
            "pto.aic_initialize_pipe" | "pto.aiv_initialize_pipe"
        ) && int(o, "id").unwrap_or(0) == id
        {
            return Some(o);
        }
        for r in &o.regions {
            for b in &r.blocks {
                stack.extend(b.ops.iter());
            }
        }
    }
    None
}

/// Split modes of one tile-pipe data op. Odd modes (3, 4) hand the two
/// vector subblocks unequal halves; they exist only for tiles moving cube to
/// vector through a GM-backed pipe that also has a local consumer buffer,
/// the split axis must then be odd (even for modes 1, 2), and the consumer
/// must say how much of its half is valid.
pub(crate) fn entry_split(
    file: &File,
    a5: bool,
    defs: &HashMap<ValueId, &Op>,
    op: &Op,
    e: &mut Vec<String>,
) {
    let name = op.opcode.name();
    let Some(split) = int(op, "split") else {
        return;
    };
    let odd = split == 3 || split == 4;
    let ty = |v: ValueId| file.values.get(v as usize)?.ty.map(|t| file.types.get(t));
    // the entry is an operand (push, free, internal alloc) or the result
    let entry = op
        .uses()
        .filter_map(ty)
        .find(|t| matches!(t, Type::TileBuf(_) | Type::TensorView { .. }))
        .or_else(|| op.result_values().next().and_then(ty));
    let view = matches!(entry, Some(Type::TensorView { .. }));
    let frontend = name.ends_with("_aiv") || name.ends_with("_aic");
    if odd {
        if frontend {
            if !(name.ends_with("_to_aiv") || name.ends_with("_from_aic")) {
                e.push(
                    "supports odd split modes (split = 3 or 4) only for C2V GM-backed tile pipes"
                        .into(),
                );
                return;
            }
            let init = func_of(file, op).and_then(|f| frontend_init(f, int(op, "id").unwrap_or(0)));
            if let Some(init) = init {
                let gm = named_use(init, "gm_slot_tensor").is_some()
                    || (!a5 && named_use(init, "gm_slot_buffer").is_some());
                if int(init, "dir_mask") != Some(1)
                    || !gm
                    || named_use(init, "c2v_consumer_buf").is_none()
                {
                    e.push("supports odd split modes (split = 3 or 4) only for a unidirectional C2V GM-backed tile pipe with both GM slot and C2V consumer buffers".into());
                    return;
                }
            }
        } else {
            let init = op
                .uses()
                .filter(|v| matches!(ty(*v), Some(Type::Opaque { name, .. }) if name == "pto.pipe"))
                .find_map(|v| defs.get(&v));
            if let Some(init) = init {
                let ok = init.opcode.name() == "pto.initialize_l2g2l_pipe"
                    && int(init, "dir_mask") == Some(1)
                    && init.uses().count() >= 2;
                if !ok {
                    e.push("supports odd split modes (split = 3 or 4) only for a unidirectional C2V pto.initialize_l2g2l_pipe with a local consumer buffer".into());
                    return;
                }
            }
        }
        if view {
            e.push("supports odd split modes (split = 3 or 4) only for tile entries (odd GlobalTensor offsets are not implemented)".into());
            return;
        }
    }
    // a GlobalTensor entry is one slot of the pipe's GM slot tensor
    if let Some(Type::TensorView { shape, elem }) = entry {
        let slots = if frontend {
            func_of(file, op)
                .and_then(|f| frontend_init(f, int(op, "id").unwrap_or(0)))
                .and_then(|i| named_use(i, "gm_slot_tensor"))
                .map(|v| (v, "gm_slot_tensor"))
        } else {
            op.uses()
                .filter_map(|v| defs.get(&v))
                .find(|i| i.opcode.name() == "pto.initialize_l2g2l_pipe")
                .and_then(|i| i.uses().next())
                .map(|v| (v, "initialize_l2g2l_pipe gm_addr"))
        };
        if let Some((v, what)) = slots {
            if let Some(Type::TensorView { shape: s, elem: se }) = ty(v) {
                if se != elem {
                    e.push(format!(
                        "expects pipe entry element type to match {what} element type"
                    ));
                    return;
                }
                if s.len() != shape.len() {
                    e.push(format!("expects pipe entry rank to match {what} rank"));
                    return;
                }
                for (i, (a, b)) in shape.iter().zip(s).enumerate() {
                    if let (Some(a), Some(b)) = (a, b) {
                        if a != b {
                            e.push(format!(
                                "expects pipe entry dimension {i} ({a}) to match {what} dimension {b}"
                            ));
                            return;
                        }
                    }
                }
            }
        }
    }
    // the producer's split axis parity
    if matches!(name, "pto.tpush_to_aiv" | "pto.tpush") && split != 0 {
        let (r, c) = match entry {
            Some(Type::TileBuf(tb)) => (tb.v_row, tb.v_col),
            Some(Type::TensorView { shape, .. }) if shape.len() == 2 => (shape[0], shape[1]),
            _ => (None, None),
        };
        let rows = split == 1 || split == 3;
        if let Some(n) = if rows { r } else { c } {
            if (n % 2 != 0) != odd {
                e.push(format!(
                    "expects a statically {} valid-{} count for split = {split} (got {n})",
                    if odd { "odd" } else { "even" },
                    if rows { "row" } else { "column" }
                ));
                return;
            }
        }
    }
    if name == "pto.tpop_from_aic" && odd && !view {
        let valid = op.uses().count() - op.group_values("aiv_subblockid").len();
        if valid < 2 {
            e.push("expects odd C2V split tpop to provide per-sub-core valid_row and valid_col operands".into());
        }
    }
}
