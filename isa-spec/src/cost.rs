//! The timed scheduler's cost model: latency in cycles of one instruction by
//! semantics class and bytes moved or produced. Coarse on purpose: it orders
//! pipes plausibly (DMA is slow, vector is fast, overlap pays) for timelines
//! and `--stats`; it is not a cycle-accurate model of any chip.
//!
//! | class | cycles |
//! |---|---|
//! | DMA, tile memory (`tload`/`tstore`, `mte_*`) | 200 + bytes / 32 |
//! | tile elementwise, reduce, layout | 20 + bytes / 256 |
//! | vector scope | 10 + 1 per executed vector micro-op |
//! | matmul | 50 + bytes / 128 |
//! | sync, config, scalar | 1 |

use crate::Class;

/// Latency in cycles for an instruction of `class` touching `bytes`.
pub fn latency(class: Class, bytes: u64) -> u64 {
    match class {
        Class::Dma | Class::TileMemory => 200 + bytes / 32,
        Class::Elementwise | Class::Reduce | Class::Layout | Class::Irregular => 20 + bytes / 256,
        Class::VecCompute | Class::VecMemory => 10,
        Class::Matmul | Class::Cube => 50 + bytes / 128,
        _ => 1,
    }
}
