//! Module-level and legacy-op rules: the `pto.backend` selector a module may
//! carry, and the legacy memref bridge ops (`pto.declare_tile_memref`,
//! `pto.bind_tile`, `pto.pointer_cast`), which only ever produced memrefs and
//! are retired in current PTOAS. Called once per file from [`crate::verify`].

use crate::ast::{File, Op};
use crate::attr::Attr;
use crate::diag::Diagnostic;
use crate::ty::Type;

fn is_module(op: &Op) -> bool {
    matches!(op.opcode.name(), "builtin.module" | "module")
}

fn err(op: &Op, msg: String) -> Diagnostic {
    Diagnostic::error(op.loc, op.opcode.name().len() as u32, msg)
}

/// Runs the module-level rules over `file`.
pub(crate) fn check(file: &File) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for op in file.walk() {
        if is_module(op) {
            module(op, &mut out);
        }
        if op.opcode.name() == "func.func" {
            manual_reserve(op, &mut out);
        }
        bridge_op(file, op, &mut out);
    }
    out
}

fn module(op: &Op, out: &mut Vec<Diagnostic>) {
    if let Some(b) = op.attr("pto.backend") {
        match b.as_str() {
            Some("emitc" | "vpto") => {}
            Some(other) => out.push(err(
                op,
                format!("invalid pto.backend '{other}'. Expected 'emitc' or 'vpto'"),
            )),
            None => out.push(err(
                op,
                "invalid pto.backend attribute. Expected string value 'emitc' or 'vpto'".into(),
            )),
        }
    }
}

/// The legacy memref bridge ops produce a memref; anything else is neither
/// the old op nor the current IR (where these ops no longer exist).
fn bridge_op(file: &File, op: &Op, out: &mut Vec<Diagnostic>) {
    let name = op.opcode.name();
    if !matches!(
        name,
        "pto.declare_tile_memref" | "pto.bind_tile" | "pto.pointer_cast"
    ) {
        return;
    }
    for v in op.result_values() {
        let Some(t) = file.values.get(v as usize).and_then(|x| x.ty) else {
            continue;
        };
        let memref = matches!(file.types.get(t), Type::Shaped { kind, .. } if kind == "memref");
        if !memref {
            out.push(err(
                op,
                format!(
                    "'{name}' is a retired memref bridge op (current PTOAS no longer registers it); its legacy form produces a memref, not {}",
                    crate::printer::type_str(&file.types, t)
                ),
            ));
        }
    }
}

/// A function that places its reserved buffer by hand (`pto.reserve_buffer`
/// with `auto = false` and a `base`) opts out of memory planning, so none of
/// its local `memref.alloc`s can still be given an address.
fn manual_reserve(func: &Op, out: &mut Vec<Diagnostic>) {
    fn go<'a>(op: &'a Op, out: &mut Vec<&'a Op>) {
        out.push(op);
        for o in op
            .regions
            .iter()
            .flat_map(|r| &r.blocks)
            .flat_map(|b| &b.ops)
        {
            go(o, out);
        }
    }
    let mut ops = Vec::new();
    go(func, &mut ops);
    let manual = ops.iter().any(|o| {
        o.opcode.name() == "pto.reserve_buffer" && matches!(o.attr("auto"), Some(Attr::Bool(false)))
    });
    if !manual {
        return;
    }
    for o in ops.iter().filter(|o| o.opcode.name() == "memref.alloc") {
        out.push(err(
            o,
            "'memref.alloc' cannot use pto.reserve_buffer with auto = false when local memref.alloc still requires PlanMemory allocation".into(),
        ));
    }
}
