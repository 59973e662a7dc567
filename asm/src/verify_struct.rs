//! Rules of stack-local structs (`!pto.struct<...>`): a struct lives in the
//! function that declares it with `pto.declare_struct`, holds scalar-storable
//! fields (or nested structs), and is read and written through field paths
//! that end at a scalar. It never crosses a function or region boundary.

use crate::ast::{Elem, File, Op, Punct, ValueId};
use crate::attr::Attr;
use crate::ty::{Type, TypeId};

/// The field type spellings of a `!pto.struct<...>` type, if `t` is one.
fn fields(file: &File, t: TypeId) -> Option<Vec<String>> {
    match file.types.get(t) {
        Type::Opaque {
            name,
            params: Some(p),
        } if name == "pto.struct" => Some(split_top(p)),
        _ => None,
    }
}

/// Splits at top-level commas.
fn split_top(p: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in p.chars() {
        match c {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

fn is_struct(s: &str) -> bool {
    s.starts_with("!pto.struct<")
}

/// Nested field list of a struct spelling.
fn nested(s: &str) -> Vec<String> {
    let inner = s
        .strip_prefix("!pto.struct<")
        .and_then(|x| x.strip_suffix('>'))
        .unwrap_or("");
    split_top(inner)
}

/// Whether a field spelling can be stored in a struct slot: 8..64-bit
/// integers, index, f16/bf16/f32/f64, or a nested struct of such.
fn storable(s: &str) -> bool {
    if is_struct(s) {
        return nested(s).iter().all(|f| storable(f));
    }
    let int = |r: &str| {
        r.parse::<u32>()
            .is_ok_and(|w| matches!(w, 8 | 16 | 32 | 64))
    };
    if let Some(r) = s.strip_prefix("si").or_else(|| s.strip_prefix("ui")) {
        return int(r);
    }
    if let Some(r) = s.strip_prefix('i') {
        return int(r);
    }
    matches!(s, "index" | "f16" | "bf16" | "f32" | "f64")
}

/// Why a struct type is malformed, if it is.
pub(crate) fn type_error(file: &File, t: TypeId) -> Option<String> {
    let fs = fields(file, t)?;
    let bad = fs.iter().find(|f| !storable(f))?;
    Some(format!(
        "struct field type '{bad}' is not scalar-storable (fields are 8..64-bit integers, index, f16/bf16/f32/f64 or nested structs)"
    ))
}

fn ty(file: &File, v: ValueId) -> Option<TypeId> {
    file.values.get(v as usize)?.ty
}

/// The constant field path `[i, j, ...]` written after the struct operand.
fn path(op: &Op) -> Vec<i128> {
    let mut out = Vec::new();
    let mut on = false;
    for e in &op.body {
        match e {
            Elem::P(Punct::LBracket) if !on => on = true,
            Elem::P(Punct::RBracket) if on => break,
            Elem::Attr(Attr::Int { value, .. }) if on => out.push(*value),
            _ => {}
        }
    }
    out
}

/// Runs the struct rules for `op`.
pub(crate) fn check(file: &File, op: &Op, e: &mut Vec<String>) {
    let name = op.opcode.name();
    let struct_val = |v: ValueId| ty(file, v).is_some_and(|t| fields(file, t).is_some());
    match name {
        "func.func" => {
            let args: Vec<ValueId> = op
                .body
                .iter()
                .filter_map(|x| match x {
                    Elem::Def(d) => Some(*d),
                    _ => None,
                })
                .collect();
            if let Some(i) = args.iter().position(|a| struct_val(*a)) {
                e.push(format!(
                    "argument {i} is a stack-local struct, but a stack-local struct must not be a function argument; structs must originate from 'pto.declare_struct' in the same function"
                ));
                return;
            }
            if op.arrow_types().iter().any(|t| fields(file, *t).is_some()) {
                e.push("a stack-local struct must not be returned from a function".into());
            }
        }
        "func.return" | "return" | "scf.yield" => {
            if op.uses().any(struct_val) {
                e.push("stack-local struct must not escape the scope that declares it".into());
            }
        }
        "pto.struct_get" | "pto.struct_set" => {
            let Some(s) = op.uses().next() else { return };
            let Some(mut fs) = ty(file, s).and_then(|t| fields(file, t)) else {
                return;
            };
            let p = path(op);
            for (depth, i) in p.iter().enumerate() {
                let Some(f) = usize::try_from(*i).ok().and_then(|i| fs.get(i)).cloned() else {
                    e.push(format!(
                        "struct path index {i} is out of range (the struct has {} fields)",
                        fs.len()
                    ));
                    return;
                };
                if depth + 1 == p.len() {
                    if is_struct(&f) {
                        e.push(format!(
                            "struct path must end at a scalar field, but field {i} is '{f}'"
                        ));
                    }
                } else if is_struct(&f) {
                    fs = nested(&f);
                } else {
                    e.push(format!(
                        "struct path continues past scalar field {i} ('{f}')"
                    ));
                    return;
                }
            }
        }
        "pto.declare_struct" => {}
        _ => {
            if op.result_values().any(struct_val) {
                e.push("only 'pto.declare_struct' may produce a !pto.struct result".into());
            }
        }
    }
}
