//! Generic dispatch for tile instructions: every `pto.t*` op that is not one of
//! the VM's built-in fast paths (`tload`, `tstore`, plain elementwise) arrives
//! here with its resolved `ins`/`outs` operands and attributes. Each
//! instruction group lives in its own file; this table says which ops exist.

use pto_isa_spec::Opcode;

use crate::exec::{fault, Accesses, Fault};
use crate::mem::{Gm, Local};
use crate::program::Attrs;
use crate::value::Val;

/// A resolved tile instruction.
#[derive(Clone, Debug)]
pub struct TileCall {
    /// The instruction.
    pub op: Opcode,
    /// `ins` operands (tiles, views, scalars) as values at issue time.
    pub ins: Vec<Val>,
    /// `outs` operands.
    pub outs: Vec<Val>,
    /// Attributes.
    pub attrs: std::sync::Arc<Attrs>,
}

/// Whether the generic path implements `op` (lowering sends only these here).
pub fn implemented(op: Opcode) -> bool {
    let _ = op;
    false
}

/// Executes a tile instruction.
pub fn run(call: &TileCall, gm: &Gm, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let _ = (gm, local, acc);
    fault(format!(
        "'{}' is not implemented in ptovm's interpreter yet",
        call.op.name()
    ))
}
