//! `pto-jit`: compiles hot regions (a vector-scope body, a run of tile ops on one
//! pipe between sync points, a matmul) to native code with Cranelift.
//!
//! Status: the interface is fixed; code generation is not implemented yet, so
//! [`compile`] rejects every region and the VM runs everything in its
//! interpreter. Cranelift types never leave this crate. Compiled code will
//! never trap: every bounds or divide check branches to an exit that returns a
//! [`Status`].

use pto_isa_spec::Opcode;

/// A region the VM asks the JIT to compile: a straight-line or loop body of
/// pipe instructions without sync points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// The ops of the region, in order (by opcode; operands are resolved by the VM).
    pub ops: Vec<Opcode>,
    /// A key identifying shapes, dtypes and profile, for the compile cache.
    pub key: String,
}

/// Why a region was not compiled.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Reject {
    /// The JIT does not handle this op or shape (yet).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// Cranelift failed.
    #[error("codegen failed: {0}")]
    Codegen(String),
}

/// What compiled code returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Status {
    /// Ran to the end of the region.
    Ok = 0,
    /// An address left the buffers the region may touch.
    OutOfBounds = 1,
    /// Integer division by zero.
    DivByZero = 2,
}

/// A compiled region (placeholder until code generation lands).
#[derive(Debug)]
pub struct Compiled {
    /// Size of the generated code in bytes.
    pub code_bytes: usize,
}

/// Compiles a region, or says why not.
pub fn compile(region: &Region) -> Result<Compiled, Reject> {
    Err(Reject::Unsupported(format!(
        "the JIT is not implemented yet ({} ops in region {})",
        region.ops.len(),
        region.key
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_region_is_rejected_until_codegen_exists() {
        let r = Region {
            ops: vec![Opcode::TAdd],
            key: "tadd/f32/16x16/a5".into(),
        };
        assert!(matches!(compile(&r), Err(Reject::Unsupported(_))));
    }
}
