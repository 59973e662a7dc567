//! Rules of the inter-core communication ops (`pto.comm.*`, async puts/gets
//! and prefetches): the GM views they move must have shapes the transfer
//! engine can address.

use crate::ast::{File, Op, ValueId};
use crate::ty::{Dim, Type};

/// Shape of a GM view operand, and whether it is a partition view.
fn view(file: &File, v: ValueId) -> Option<(Vec<Dim>, bool)> {
    let t = file.values.get(v as usize)?.ty?;
    match file.types.get(t) {
        Type::TensorView { shape, .. } => Some((shape.clone(), false)),
        Type::PartitionView { shape, .. } => Some((shape.clone(), true)),
        Type::Shaped {
            kind,
            shape,
            unranked: false,
            ..
        } if kind == "memref" => Some((shape.clone(), false)),
        _ => None,
    }
}

fn elem(file: &File, v: ValueId) -> Option<crate::ty::TypeId> {
    let t = file.values.get(v as usize)?.ty?;
    match file.types.get(t) {
        Type::TensorView { elem, .. }
        | Type::PartitionView { elem, .. }
        | Type::Shaped { elem, .. } => Some(*elem),
        _ => None,
    }
}

/// Runs the communication rules for `op`.
pub(crate) fn check(file: &File, op: &Op, e: &mut Vec<String>) {
    let name = op.opcode.name();
    let short = match name.strip_prefix("pto.comm.") {
        Some(s) => s,
        None if matches!(
            name,
            "pto.tput_async" | "pto.tget_async" | "pto.tprefetch_async"
        ) =>
        {
            &name[4..]
        }
        None => return,
    };
    let views: Vec<(ValueId, Vec<Dim>, bool)> = op
        .uses()
        .filter_map(|v| view(file, v).map(|(s, p)| (v, s, p)))
        .collect();
    let vname = |v: ValueId| file.value_name(v);
    match short {
        // asynchronous DMA: one flat contiguous static range
        "tput_async" | "tget_async" | "tprefetch_async" => {
            let roles: &[&str] = if short == "tprefetch_async" {
                &["src"]
            } else {
                &["dst", "src"]
            };
            for ((v, shape, _), role) in views.iter().zip(roles) {
                if shape.iter().any(|d| d.is_none()) {
                    e.push(format!(
                        "expects {role} ({}) to have a static shape",
                        vname(*v)
                    ));
                    return;
                }
                let lead_ones =
                    shape.len() <= 1 || shape[..shape.len() - 1].iter().all(|d| *d == Some(1));
                if !lead_ones {
                    e.push(format!(
                        "expects {role} ({}) to be a static flat contiguous logical 1D GM view",
                        vname(*v)
                    ));
                    return;
                }
            }
        }
        // point-to-point: dynamic extents only on partition views, shapes alike
        "tput" | "tget" => {
            for (i, (v, shape, part)) in views.iter().take(2).enumerate() {
                let role = if i == 0 { "dst" } else { "src" };
                if shape.iter().any(|d| d.is_none()) && !part {
                    e.push(format!(
                        "allows dynamic dimensions on {role} ({}) only for partition_tensor_view",
                        vname(*v)
                    ));
                    return;
                }
                if shape.iter().any(|d| d.is_some_and(|d| d <= 0)) {
                    e.push(format!(
                        "expects every static dimension of {role} ({}) to be positive",
                        vname(*v)
                    ));
                    return;
                }
            }
            if let [(d, ds, _), (s, ss, _), ..] = views.as_slice() {
                if elem(file, *d) != elem(file, *s) {
                    e.push("expects src and dst to have the same element type".into());
                } else if ds != ss {
                    e.push(
                        "expects src and dst to have the same static/dynamic shape signature"
                            .into(),
                    );
                }
            }
        }
        // collectives and signals: static GM views
        "tbroadcast" | "treduce" | "tscatter" | "tgather" | "tnotify" | "twait" | "ttest" => {
            for (v, shape, _) in &views {
                if shape.iter().any(|d| d.is_none()) {
                    e.push(format!(
                        "does not support dynamic dimensions on {}",
                        vname(*v).trim_start_matches('%')
                    ));
                    return;
                }
                if shape.iter().any(|d| d.is_some_and(|d| d <= 0)) {
                    e.push(format!(
                        "expects every static dimension of {} to be positive",
                        vname(*v).trim_start_matches('%')
                    ));
                    return;
                }
            }
        }
        _ => {}
    }
}
