//! Rules of the SIMT low-level scalar ops: per-thread global loads/stores
//! (`pto.ldg`/`pto.stg`) and their value types, atomics, scalar conversions,
//! warp reductions and shuffles, and keep/resume slots.

use crate::ast::{Elem, File, Op, ValueId};
use crate::attr::Attr;
use crate::ty::{Type, TypeId};

fn word(op: &Op, w: &str) -> bool {
    op.body.iter().any(|x| match x {
        Elem::Ident(s) => s == w,
        Elem::Attr(Attr::Keyword { kw, .. }) => kw == w,
        _ => false,
    })
}

fn ty(file: &File, v: ValueId) -> Option<TypeId> {
    file.values.get(v as usize)?.ty
}

fn float(t: &Type, names: &[&str]) -> bool {
    matches!(t, Type::Float(s) if names.contains(&s.as_str()))
}

/// A value type `pto.ldg`/`pto.stg` can move: 8..64-bit integers, f16, bf16,
/// f32, f64, fp8/hif8 scalars, or a 16/32/64-bit packed pair (fp8 also in 4s
/// and 8s).
fn ldg_value_ok(file: &File, t: &Type) -> bool {
    match t {
        Type::Int(w) | Type::SInt(w) | Type::UInt(w) => matches!(w, 8 | 16 | 32 | 64),
        Type::Float(s) => {
            matches!(s.as_str(), "f16" | "bf16" | "f32" | "f64") || s.starts_with("f8")
        }
        Type::Opaque { name, params: None } => name == "pto.hif8" || name == "pto.hif8x2",
        Type::Vector { shape, elem } => {
            let [Some(n)] = shape.as_slice() else {
                return false;
            };
            let el = file.types.get(*elem);
            let bits = match el {
                Type::Float(s) if s.starts_with("f8") => {
                    return matches!(n, 2 | 4 | 8);
                }
                Type::Float(s) => match s.as_str() {
                    "f16" | "bf16" => 16,
                    "f32" => 32,
                    _ => return false,
                },
                Type::Int(w) | Type::SInt(w) | Type::UInt(w) if matches!(w, 8 | 16 | 32) => *w,
                _ => return false,
            };
            *n == 2 && matches!(n * bits as i64, 16 | 32 | 64)
        }
        _ => true, // unknown spellings are not judged
    }
}

/// Runs the SIMT scalar-op rules for `op`.
pub(crate) fn check(file: &File, op: &Op, e: &mut Vec<String>) {
    let name = op.opcode.name();
    let uses: Vec<ValueId> = op.uses().collect();
    let results: Vec<ValueId> = op.result_values().collect();
    let ptr = uses
        .iter()
        .find_map(|v| match file.types.get(ty(file, *v)?) {
            Type::Ptr { space, elem } => Some((space.clone(), *elem)),
            _ => None,
        });
    match name {
        "pto.ldg" | "pto.stg" => {
            let Some((space, _)) = ptr else { return };
            if space.as_deref().is_some_and(|s| s != "gm") {
                e.push("requires GM pointer".into());
                return;
            }
            // the value: ldg's result, stg's first operand
            let v = if name == "pto.ldg" {
                results.first()
            } else {
                uses.first()
            };
            if let Some(t) = v.and_then(|v| ty(file, *v)) {
                if !ldg_value_ok(file, file.types.get(t)) {
                    e.push(format!(
                        "currently supports 8/16/32/64-bit integer, f16/bf16/f32/f64/fp8/hif8, packed vector<2xT> (T = f16/bf16/f32/i8/i16/i32), packed vector<2/4/8xfp8>, and !pto.hif8x2 value type, not {}",
                        crate::printer::type_str(&file.types, t)
                    ));
                }
            }
        }
        n if n.starts_with("pto.atomic_") => {
            let Some((space, elem)) = ptr else { return };
            let ub = space.as_deref().is_some_and(|s| s == "ub" || s == "vec");
            if ub
                && matches!(
                    file.types.get(elem),
                    Type::Int(64) | Type::SInt(64) | Type::UInt(64)
                )
            {
                e.push("does not support i64 UB-space atomics".into());
                return;
            }
            // packed (vector<2xT>) atomics do not return the old value
            let packed = matches!(file.types.get(elem), Type::Vector { .. });
            if let (true, Some(r)) = (packed, results.first()) {
                let used = file.walk().into_iter().any(|o| o.uses().any(|u| u == *r));
                if used {
                    e.push("does not support using the old value result for packed atomics; leave the result unused".into());
                }
            }
        }
        "pto.convert" => {
            let (Some(s), Some(d)) = (
                uses.first().and_then(|v| ty(file, *v)),
                results.first().and_then(|v| ty(file, *v)),
            ) else {
                return;
            };
            let (s, d) = (file.types.get(s), file.types.get(d));
            let sat = word(op, "sat");
            let int32 = matches!(d, Type::Int(32) | Type::SInt(32) | Type::UInt(32));
            let int64 = matches!(d, Type::Int(64) | Type::SInt(64) | Type::UInt(64));
            if float(s, &["f32"]) && (int32 || int64) && !sat {
                e.push("fp32-to-integer conversion requires saturation enable (sat)".into());
            } else if float(s, &["f16", "bf16"]) && int32 && !sat {
                e.push("fp16/bf16-to-integer conversion requires saturation enable (sat)".into());
            }
        }
        "pto.redux_max" | "pto.redux_min" => {
            let int = uses
                .first()
                .and_then(|v| ty(file, *v))
                .is_some_and(|t| matches!(file.types.get(t), Type::Int(_)));
            if int && !word(op, "signed") && !word(op, "unsigned") {
                e.push(
                    "requires explicit signedness for integer redux (signed or unsigned)".into(),
                );
            }
        }
        n if n.starts_with("pto.shuffle_") => {
            if let Some(w) = op.attr("width").and_then(Attr::as_int) {
                if w != 16 && w != 32 {
                    e.push(format!("requires width to be 16 or 32, got {w}"));
                }
            }
        }
        "pto.keep" | "pto.resume" => {
            let v = if name == "pto.keep" {
                uses.first()
            } else {
                results.first()
            };
            let wide = v.and_then(|v| ty(file, *v)).is_some_and(|t| {
                matches!(
                    file.types.get(t),
                    Type::Int(64) | Type::SInt(64) | Type::UInt(64) | Type::Index
                ) || float(file.types.get(t), &["f64"])
            });
            if let Some(slot) = op.attr("slot").and_then(Attr::as_int) {
                if wide && slot % 2 != 0 {
                    e.push(format!(
                        "requires an even slot for 64-bit keep/resume values, got {slot}"
                    ));
                }
            }
        }
        _ => {}
    }
}
