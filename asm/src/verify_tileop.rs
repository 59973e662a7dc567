//! PTODSL TileOp helpers (`func.func` marked `pto.tileop.helper`): bodies
//! that PTOAS wraps in one vector or cube section of its caller. They take
//! tiles and scalars, return nothing, and hold only compute: no pipe
//! synchronisation, data movement, direct SIMT work, tile allocation or
//! high-level tile ops, and no calls. Called once per file from
//! [`crate::verify`].

use pto_isa_spec::{ISet, Pipe, PipeRule};

use crate::ast::{Elem, File, Op, Punct};
use crate::diag::Diagnostic;

/// Ops that synchronise pipes, cores or blocks, or set up pipes.
const SYNC: [&str; 27] = [
    "pto.record_event",
    "pto.wait_event",
    "pto.barrier_sync",
    "pto.aic_initialize_pipe",
    "pto.aiv_initialize_pipe",
    "pto.initialize_l2g2l_pipe",
    "pto.initialize_l2l_pipe",
    "pto.declare_event_id_array",
    "pto.event_id_array_get",
    "pto.event_id_array_set",
    "pto.set_flag",
    "pto.wait_flag",
    "pto.set_flag_dyn",
    "pto.wait_flag_dyn",
    "pto.get_buf",
    "pto.rls_buf",
    "pto.sync_set",
    "pto.sync_wait",
    "pto.set_cross_block",
    "pto.wait_cross_block",
    "pto.set_intra_block",
    "pto.wait_intra_block",
    "pto.barrier",
    "pto.fence_barrier_all",
    "pto.tsync",
    "pto.sync_all",
    "pto.dsb",
];

/// Tile-level ops outside the `pto.t*` set that allocate or bind tiles.
const TILE: [&str; 6] = [
    "pto.alloc_tile",
    "pto.alloc_multi_tile",
    "pto.reserve_buffer",
    "pto.tprefetch_async",
    "pto.tassign",
    "pto.tensor_view_addr",
];

/// Why `op` may not appear in a TileOp helper, if it may not.
fn forbidden(op: &Op) -> Option<&'static str> {
    let name = op.opcode.name();
    let info = op.opcode.info();
    if matches!(name, "pto.section.cube" | "pto.section.vector") {
        return Some("tileop helpers must not contain pre-existing sections");
    }
    let mte = matches!(
        info.pipe,
        PipeRule::Fixed(Pipe::Mte1 | Pipe::Mte2 | Pipe::Mte3)
    );
    if mte && info.set != ISet::Tile {
        return Some("tileop helpers must not contain MTE data movement");
    }
    if SYNC.contains(&name) || info.aliases.iter().any(|a| SYNC.contains(a)) {
        return Some("tileop helpers must not contain pipe synchronization");
    }
    if info.set == ISet::Simt && !name.contains("launch") {
        return Some(
            "tileop helpers must launch a @pto.simt helper instead of containing SIMT operations directly",
        );
    }
    if info.set == ISet::Tile || TILE.contains(&name) {
        return Some("tileop helpers must not contain Tile allocation or high-level TileOps");
    }
    if name == "func.call" {
        return Some(
            "tileop helpers must not call another helper; use pto.simt_launch for SIMT work",
        );
    }
    None
}

fn first_forbidden(op: &Op) -> Option<(&Op, &'static str)> {
    for r in &op.regions {
        for b in &r.blocks {
            for o in &b.ops {
                if let Some(why) = forbidden(o) {
                    return Some((o, why));
                }
                if let Some(x) = first_forbidden(o) {
                    return Some(x);
                }
            }
        }
    }
    None
}

/// Checks every TileOp helper of `file`.
pub(crate) fn check(file: &File) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for f in file.walk() {
        if f.opcode.name() != "func.func" || f.attr("pto.tileop.helper").is_none() {
            continue;
        }
        // a result list follows `->` in the header
        let returns = f
            .body
            .iter()
            .take_while(|e| !matches!(e, Elem::Region(_)))
            .any(|e| matches!(e, Elem::P(Punct::Arrow)));
        if returns {
            out.push(Diagnostic::error(
                f.loc,
                f.opcode.name().len() as u32,
                "'func.func' tileop helpers must not return values; write results through mutable Tile parameters",
            ));
            continue;
        }
        if let Some((o, why)) = first_forbidden(f) {
            out.push(Diagnostic::error(o.loc, o.opcode.name().len() as u32, why));
        }
    }
    out
}
