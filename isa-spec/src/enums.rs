//! Small enumerations shared by the table and its users.

/// An execution pipe of an AI core.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pipe {
    /// Scalar unit.
    S,
    /// Vector pipe.
    V,
    /// Cube (matrix) pipe; the docs also say `PIPE_CUBE`.
    M,
    /// L1 -> L0A/L0B/bias moves.
    Mte1,
    /// GM -> UB/L1 DMA.
    Mte2,
    /// UB -> GM DMA.
    Mte3,
    /// L0C write-back (FIXPIPE).
    Fix,
    /// Every pipe (barrier target only).
    All,
}

impl Pipe {
    /// The real (queue-owning) pipes, in the order the `--stats` columns use.
    pub const QUEUES: [Pipe; 7] = [
        Pipe::S,
        Pipe::Mte1,
        Pipe::Mte2,
        Pipe::Mte3,
        Pipe::V,
        Pipe::M,
        Pipe::Fix,
    ];

    /// Parses `PIPE_MTE2`, `MTE2`, `PIPE_CUBE`, `PIPE_FIXP`, `VEC`, ... (case-insensitive).
    pub fn from_name(s: &str) -> Option<Pipe> {
        let u = s.trim().to_ascii_uppercase();
        let u = u.strip_prefix("PIPE_").unwrap_or(&u);
        Some(match u {
            "S" | "SCALAR" => Pipe::S,
            "V" | "VEC" | "VECTOR" => Pipe::V,
            "M" | "CUBE" => Pipe::M,
            "MTE1" => Pipe::Mte1,
            "MTE2" => Pipe::Mte2,
            "MTE3" => Pipe::Mte3,
            "FIX" | "FIXP" | "FIXPIPE" => Pipe::Fix,
            "ALL" => Pipe::All,
            _ => return None,
        })
    }

    /// The spelling kernels use (`PIPE_MTE2`).
    pub fn name(self) -> &'static str {
        match self {
            Pipe::S => "PIPE_S",
            Pipe::V => "PIPE_V",
            Pipe::M => "PIPE_M",
            Pipe::Mte1 => "PIPE_MTE1",
            Pipe::Mte2 => "PIPE_MTE2",
            Pipe::Mte3 => "PIPE_MTE3",
            Pipe::Fix => "PIPE_FIX",
            Pipe::All => "PIPE_ALL",
        }
    }

    /// Short column name used by `--stats` (scalar, mte1, mte2, mte3, vec, cube, fixp).
    pub fn column(self) -> &'static str {
        match self {
            Pipe::S => "scalar",
            Pipe::V => "vec",
            Pipe::M => "cube",
            Pipe::Mte1 => "mte1",
            Pipe::Mte2 => "mte2",
            Pipe::Mte3 => "mte3",
            Pipe::Fix => "fixp",
            Pipe::All => "all",
        }
    }
}

/// Instruction set an op belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ISet {
    /// `pto.t*` tile instructions.
    Tile,
    /// `pto.v*` vector micro-instructions (inside a vector scope).
    Vector,
    /// Scalar/control: sync, DMA, predicates, pointers, the micro-instruction shell.
    Scalar,
    /// Cube micro-instructions (`pto.mad*`, L1/L0 moves).
    Cube,
    /// Cube<->vector FIFOs and system scheduling.
    System,
    /// Inter-rank communication.
    Comm,
    /// IR-level view, tile-buffer and descriptor ops (PTOAS frontend).
    View,
    /// `builtin`, `func`, `arith`, `scf`, `cf`, `memref`, `llvm` ops kernels use.
    Builtin,
    /// PTOAS's internal vector IR (`pto.vmi.*`); parsed and verified, not executed.
    Vmi,
    /// SIMT extensions (`pto.simt_*`, lane/thread queries, shuffles, atomics).
    Simt,
    /// Compiler-internal or backend ops that appear in PTOAS tests; parsed only.
    Internal,
}

/// How the pipe that executes an op is determined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PipeRule {
    /// Not a pipe instruction: runs on the scalar unit as control, or has no runtime effect.
    None,
    /// Always this pipe.
    Fixed(Pipe),
    /// Named by the op's pipe operand (`set_flag` runs on its source pipe, `wait_flag`
    /// on its destination pipe, `pipe_barrier` on the named pipe...).
    Named,
    /// Decided by the memory locations of the tile operands (`tstore`, `tmov`,
    /// `textract`, `tinsert`, `tpush`, `tpop`): see the op -> pipe table in the docs.
    ByLocation,
}

/// Semantics class: which interpreter group executes an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// Module, function, call, return, structured and unstructured control flow.
    Control,
    /// Integer/float scalar arithmetic on the scalar unit.
    ScalarArith,
    /// Tile elementwise (tile-tile and tile-scalar, fused forms).
    Elementwise,
    /// Tile reductions and expands.
    Reduce,
    /// GM <-> tile memory ops.
    TileMemory,
    /// Matrix multiply families.
    Matmul,
    /// Layout and rearrangement.
    Layout,
    /// Irregular tile ops (gather/scatter, sort, histogram, quant, random...).
    Irregular,
    /// Tile config and placement (`tassign`, quant registers...).
    Config,
    /// Views, tile allocation, descriptors (no data movement).
    View,
    /// Synchronization primitives.
    Sync,
    /// Explicit DMA (`mte_*`, `copy_*`, loop registers).
    Dma,
    /// Vector loads/stores.
    VecMemory,
    /// Vector compute.
    VecCompute,
    /// Predicate generation, algebra, loads/stores.
    Predicate,
    /// Cube micro-ops.
    Cube,
    /// Cube<->vector FIFOs, system scheduling.
    Fifo,
    /// Communication across ranks.
    Comm,
    /// Scalar memory, pointers, queries.
    ScalarMemory,
    /// Debug and miscellaneous (print, trap, keep).
    Misc,
    /// Parsed and verified, not executable by the VM (VMI, SIMT, compiler-internal).
    NotExecutable,
}

impl Class {
    /// Lower-case name (trace categories, reports).
    pub fn name(self) -> &'static str {
        match self {
            Class::Control => "control",
            Class::ScalarArith => "scalar",
            Class::Elementwise => "elementwise",
            Class::Reduce => "reduce",
            Class::TileMemory => "tile-memory",
            Class::Matmul => "matmul",
            Class::Layout => "layout",
            Class::Irregular => "irregular",
            Class::Config => "config",
            Class::View => "view",
            Class::Sync => "sync",
            Class::Dma => "dma",
            Class::VecMemory => "vector-memory",
            Class::VecCompute => "vector",
            Class::Predicate => "predicate",
            Class::Cube => "cube",
            Class::Fifo => "fifo",
            Class::Comm => "comm",
            Class::ScalarMemory => "scalar-memory",
            Class::Misc => "misc",
            Class::NotExecutable => "not-executable",
        }
    }
}

/// The textual form family of an op, used by the verifier to find operands
/// and by the disassembler to choose a layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    /// Destination-passing: `op ins(...) outs(...)`.
    Dps,
    /// `op operands attr-dict : types [-> results]` and similar custom forms.
    Generic,
    /// `op[<A>, <B>, ...]` bracketed immediates (set_flag, record_event, get_buf...).
    Bracket,
    /// Ops with a region body (`pto.vecscope`, `pto.section.cube`, `scf.*`, `func.func`).
    Region,
    /// Builtin ops with a dedicated syntax (`module`, `func.func`, `scf.for`...).
    Builtin,
}
