//! Generic dispatch for vector micro-ops inside a vector scope: every `pto.v*`,
//! predicate or vector-scope op that is not one of the built-in fast paths
//! (`vlds`/`vsts` NORM, plain lane-wise ops, `pset`/`plt`) arrives here with
//! its operand values, and returns its result values. Each group lives in its
//! own file; this table says which ops exist.

use pto_isa_spec::Opcode;

use crate::exec::{fault, Accesses, Fault};
use crate::mem::Local;
use crate::program::Attrs;
use crate::value::Val;

/// Whether the generic path implements `op` (lowering sends only these here).
pub fn implemented(op: Opcode) -> bool {
    let _ = op;
    false
}

/// Executes a vector micro-op: `srcs` are the operand values in textual order,
/// the result is one value per result of the op. UB accesses go through
/// `local` and are recorded in `acc`.
pub fn run(
    op: Opcode,
    srcs: &[Val],
    attrs: &Attrs,
    local: &mut Local,
    acc: &mut Accesses,
) -> Result<Vec<Val>, Fault> {
    let _ = (srcs, attrs, local, acc);
    fault(format!(
        "'{}' is not implemented in ptovm's interpreter yet",
        op.name()
    ))
}
