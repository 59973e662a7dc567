//! The lowered program: flat per-function code with jumps, every operand
//! decoded once from the AST so the scalar unit and the pipes never look at
//! syntax at run time.

use std::sync::Arc;

use pto_asm::ty::TileBuf;
use pto_asm::Loc;
use pto_isa_spec::{DType, Opcode, Pipe};

use crate::value::{Space, Val, ViewLayout};

/// A register: the value id of the file (each core has its own register file).
pub type Reg = u32;
/// Index of an instruction in [`Program::insts`] (for diagnostics).
pub type InstId = u32;

/// Static facts about one instruction, for diagnostics and traces.
#[derive(Clone, Debug)]
pub struct InstInfo {
    /// Opcode.
    pub opcode: Opcode,
    /// Source location.
    pub loc: Loc,
}

/// Binary scalar operations of the scalar unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// +
    Add,
    /// -
    Sub,
    /// *
    Mul,
    /// signed /
    DivS,
    /// unsigned /
    DivU,
    /// signed % (sign of dividend)
    RemS,
    /// unsigned %
    RemU,
    /// floor division (signed)
    FloorDivS,
    /// ceil division (signed)
    CeilDivS,
    /// ceil division (unsigned)
    CeilDivU,
    /// &
    And,
    /// |
    Or,
    /// ^
    Xor,
    /// <<
    Shl,
    /// >> arithmetic
    ShrS,
    /// >> logical
    ShrU,
    /// signed max
    MaxS,
    /// signed min
    MinS,
    /// unsigned max
    MaxU,
    /// unsigned min
    MinU,
    /// float +
    AddF,
    /// float -
    SubF,
    /// float *
    MulF,
    /// float /
    DivF,
    /// float remainder
    RemF,
    /// float max
    MaxF,
    /// float min
    MinF,
}

/// Comparison predicates (`arith.cmpi` / `arith.cmpf`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pred {
    /// ==
    Eq,
    /// !=
    Ne,
    /// <
    Lt,
    /// <=
    Le,
    /// >
    Gt,
    /// >=
    Ge,
}

/// Scalar conversions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conv {
    /// Integer to integer (wrap or extend to the destination width).
    IntToInt {
        /// Zero-extend (unsigned source).
        unsigned: bool,
    },
    /// Integer to float.
    IntToFloat {
        /// Unsigned source.
        unsigned: bool,
    },
    /// Float to integer (toward zero).
    FloatToInt,
    /// Float to float (rounded to the destination type).
    FloatToFloat,
    /// Unary float negate.
    NegF,
    /// Math functions on floats.
    Math(MathFn),
    /// A pointer's byte address (`pto.ptrtoint`).
    PtrToInt,
}

/// The thread counts of a SIMT launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SimtDims {
    /// Registers holding x, y, z (`pto.simt_launch`, `pto.store_vfsimt_info`).
    Regs([Reg; 3]),
    /// Static counts (`pto.section.simt <<<x, y, z>>>`).
    Fixed([i64; 3]),
}

/// Scalar math functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MathFn {
    /// e^x
    Exp,
    /// ln
    Log,
    /// sqrt
    Sqrt,
    /// 1/sqrt
    Rsqrt,
    /// |x|
    Abs,
}

/// Which tile elementwise operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EwOp {
    /// a + b
    Add,
    /// a - b
    Sub,
    /// a * b
    Mul,
    /// a / b
    Div,
    /// max
    Max,
    /// min
    Min,
    /// |a|
    Abs,
    /// -a
    Neg,
    /// e^a
    Exp,
    /// ln a
    Log,
    /// sqrt a
    Sqrt,
    /// 1/sqrt a
    Rsqrt,
    /// 1/a
    Recip,
    /// max(a, 0)
    Relu,
    /// a & b
    And,
    /// a | b
    Or,
    /// a ^ b
    Xor,
    /// a << b
    Shl,
    /// a >> b
    Shr,
    /// !a
    Not,
}

/// A sync primitive's event id: static or from a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdRef {
    /// Literal.
    Static(i64),
    /// Runtime value.
    Dyn(Reg),
}

/// Vector load/store distribution mode (the subset implemented).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dist {
    /// Contiguous 256 bytes.
    Norm,
    /// Broadcast one element to every lane.
    Brc,
}

/// DMA directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DmaDir {
    /// GM -> UB (MTE2).
    GmToUb,
    /// UB -> GM (MTE3).
    UbToGm,
    /// UB -> UB.
    UbToUb,
}

/// A reduction (`treduce`) or atomic accumulation (`tput` with atomicType).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combine {
    /// Overwrite.
    Store,
    /// Add.
    Sum,
    /// Maximum.
    Max,
    /// Minimum.
    Min,
}

impl Combine {
    /// From a `reduce_op` / `atomic_type` enum value.
    pub fn parse(s: &str) -> Option<Combine> {
        Some(match s.to_ascii_lowercase().as_str() {
            "atomic_none" | "none" => Combine::Store,
            "sum" | "add" | "atomic_add" | "atomicadd" => Combine::Sum,
            "max" | "atomic_max" => Combine::Max,
            "min" | "atomic_min" => Combine::Min,
            _ => return None,
        })
    }
}

/// The communication ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommOp {
    /// `tput`: local GM to remote GM through UB.
    Put,
    /// `tget`: remote GM to local GM through UB.
    Get,
    /// `tput_async`.
    PutAsync,
    /// `tget_async`.
    GetAsync,
    /// `build_async_session`.
    Session,
    /// `wait_async_event`.
    WaitEvent,
    /// `test_async_event`.
    TestEvent,
    /// `tnotify`.
    Notify,
    /// `twait`.
    Wait,
    /// `ttest`.
    Test,
    /// `tbroadcast`.
    Broadcast,
    /// `tgather`.
    Gather,
    /// `tscatter`.
    Scatter,
    /// `treduce`.
    Reduce,
}

impl CommOp {
    /// From the op's short name (`tput`, `tget_async`...).
    pub fn from_short(s: &str) -> Option<CommOp> {
        Some(match s {
            "tput" => CommOp::Put,
            "tget" => CommOp::Get,
            "tput_async" => CommOp::PutAsync,
            "tget_async" => CommOp::GetAsync,
            "build_async_session" => CommOp::Session,
            "wait_async_event" => CommOp::WaitEvent,
            "test_async_event" => CommOp::TestEvent,
            "tnotify" => CommOp::Notify,
            "twait" => CommOp::Wait,
            "ttest" => CommOp::Test,
            "tbroadcast" => CommOp::Broadcast,
            "tgather" => CommOp::Gather,
            "tscatter" => CommOp::Scatter,
            "treduce" => CommOp::Reduce,
            _ => return None,
        })
    }
}

/// An attribute value decoded for the interpreter.
#[derive(Clone, Debug, PartialEq)]
pub enum AttrVal {
    /// Integer / bool.
    Int(i64),
    /// Float.
    Float(f64),
    /// String, enum or keyword value (`ROUND`, `CAST_RINT`, `row`...).
    Sym(String),
}

/// Named attributes of an op (from its dictionaries and `key = value` pairs),
/// plus its positional symbolic immediates under the key `""`.
pub type Attrs = Vec<(String, AttrVal)>;

/// Looks up an attribute.
pub fn attr<'a>(attrs: &'a Attrs, key: &str) -> Option<&'a AttrVal> {
    attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// A pipe instruction's operands (registers, resolved when issued).
#[derive(Clone, Debug)]
pub enum PipeOp {
    /// Any tile instruction handled by the generic dispatch in `exec::tile_ops`:
    /// its `ins(...)` and `outs(...)` operands and attributes.
    Tile {
        /// The instruction.
        op: Opcode,
        /// `ins` operands in order.
        ins: Vec<Reg>,
        /// `outs` operands in order.
        outs: Vec<Reg>,
        /// Attributes.
        attrs: Arc<Attrs>,
    },
    /// `tload`: GM view -> tile.
    TLoad {
        /// View.
        src: Reg,
        /// Tile.
        dst: Reg,
    },
    /// `tstore`: tile -> GM view.
    TStore {
        /// Tile.
        src: Reg,
        /// View.
        dst: Reg,
        /// `atomicType`: overwrite, or add/max/min into GM.
        atomic: Combine,
    },
    /// Tile elementwise with tile operands (unary uses `a` only).
    TEw {
        /// Operation.
        op: EwOp,
        /// First source.
        a: Reg,
        /// Second source (unary: same as a).
        b: Option<Reg>,
        /// Destination.
        dst: Reg,
    },
    /// Tile op scalar.
    TEws {
        /// Operation.
        op: EwOp,
        /// Tile.
        a: Reg,
        /// Scalar.
        s: Reg,
        /// Scalar is the left operand (`tdivs %s, %t`).
        scalar_first: bool,
        /// Destination.
        dst: Reg,
    },
    /// `texpands`: broadcast a scalar into a tile.
    TExpands {
        /// Scalar.
        s: Reg,
        /// Destination tile.
        dst: Reg,
    },
    /// v0.6 grouped DMA (`mte_gm_ub`, `mte_ub_gm`, `mte_ub_ub`).
    Dma {
        /// Direction.
        dir: DmaDir,
        /// Source pointer.
        src: Reg,
        /// Destination pointer.
        dst: Reg,
        /// Bytes per burst.
        len: Reg,
        /// (count, src stride, dst stride) innermost.
        nburst: [Reg; 3],
        /// Outer loops, inner to outer.
        loops: Vec<[Reg; 3]>,
        /// Pad value for UB rows (GM -> UB).
        pad: Option<Reg>,
    },
    /// Legacy `copy_gm_to_ubuf` / `copy_ubuf_to_gm`: bursts plus the loop registers.
    DmaLegacy {
        /// Direction.
        dir: DmaDir,
        /// Source pointer.
        src: Reg,
        /// Destination pointer.
        dst: Reg,
        /// Number of bursts.
        n_burst: Reg,
        /// Bytes per burst.
        len: Reg,
        /// Source start-to-start stride (bytes).
        src_stride: Reg,
        /// Destination start-to-start stride (bytes).
        dst_stride: Reg,
        /// GM -> UB: the `data_select_bit` (pad each UB row to 32 bytes with
        /// the `set_mov_pad_val` register).
        select: Option<Reg>,
    },
    /// A cube micro-op (`mad*`, `mte_gm_l1*`, `mte_l1_*`, `mte_l0c_*`): its value
    /// operands in text order and the structure that indexes them.
    Cube {
        /// The instruction.
        op: Opcode,
        /// Value operands.
        regs: Vec<Reg>,
        /// Positional operands, keywords and clauses.
        form: Arc<crate::exec::cube::Form>,
    },
}

/// Synchronization primitives.
#[derive(Clone, Debug)]
pub enum SyncOp {
    /// `set_flag[src, dst, id]` (runs on `src`).
    SetFlag {
        /// Source pipe.
        src: Pipe,
        /// Destination pipe.
        dst: Pipe,
        /// Event id.
        event: IdRef,
    },
    /// `wait_flag[src, dst, id]` (stalls `dst`).
    WaitFlag {
        /// Source pipe.
        src: Pipe,
        /// Destination pipe.
        dst: Pipe,
        /// Event id.
        event: IdRef,
    },
    /// `pipe_barrier` / `barrier` on one pipe or `PIPE_ALL`.
    Barrier {
        /// Pipe.
        pipe: Pipe,
    },
    /// `get_buf` (acquire) on a pipe.
    GetBuf {
        /// Pipe.
        pipe: Pipe,
        /// Buffer id.
        id: IdRef,
    },
    /// `rls_buf` (release) on a pipe.
    RlsBuf {
        /// Pipe.
        pipe: Pipe,
        /// Buffer id.
        id: IdRef,
    },
    /// Cross-core signal (`set_cross_core`, `sync.set`, `set_intra_block`).
    CrossSet {
        /// Pipe the signal is issued on.
        pipe: Pipe,
        /// Semaphore id.
        id: IdRef,
        /// A2/A3 "mode2": a cube signal reaches both vector subblocks.
        mode2: bool,
    },
    /// Cross-core wait (`wait_flag_dev`, `sync.wait`: whole core; `wait_intra_block`: one pipe).
    CrossWait {
        /// Pipe that stalls (`PipeAll`-like whole-core stall uses `Pipe::S`).
        pipe: Pipe,
        /// Semaphore id.
        id: IdRef,
        /// A2/A3 semantics (whole core stalls; reduce across subblocks on the cube).
        whole_core: bool,
    },
}

/// Vector micro-ops (inside a vector scope only).
#[derive(Clone, Debug)]
pub enum VecOp {
    /// `vlds`.
    Load {
        /// Result.
        dst: Reg,
        /// UB pointer.
        ptr: Reg,
        /// Element offset.
        off: Option<Reg>,
        /// Distribution.
        dist: Dist,
        /// Element type of the result.
        elem: DType,
    },
    /// `vsts`.
    Store {
        /// Vector.
        src: Reg,
        /// UB pointer.
        ptr: Reg,
        /// Element offset.
        off: Option<Reg>,
        /// Mask.
        mask: Option<Reg>,
        /// Element type.
        elem: DType,
    },
    /// Unary/binary lane-wise op.
    Ew {
        /// Operation.
        op: EwOp,
        /// Result.
        dst: Reg,
        /// First source.
        a: Reg,
        /// Second source (binary).
        b: Option<Reg>,
        /// Scalar operand (`vadds` and friends).
        s: Option<Reg>,
        /// Mask.
        mask: Option<Reg>,
        /// Element type.
        elem: DType,
    },
    /// `vbr`/`vdup` of a scalar.
    Broadcast {
        /// Result.
        dst: Reg,
        /// Scalar.
        s: Reg,
        /// `vdup`'s mask: inactive lanes are zero (`vbr` has none).
        mask: Option<Reg>,
        /// Element type.
        elem: DType,
    },
    /// `pset_b*`.
    PSet {
        /// Result.
        dst: Reg,
        /// Pattern (`PAT_ALL`, `PAT_VL8`...).
        pattern: String,
        /// Bytes per lane (1, 2, 4).
        gran: u32,
    },
    /// `plt_b*`: first n lanes, n -= lanes.
    PLt {
        /// Mask result.
        dst: Reg,
        /// Updated count result.
        rest: Option<Reg>,
        /// Count.
        n: Reg,
        /// Bytes per lane.
        gran: u32,
    },
    /// Any vector micro-op handled by the generic dispatch in `exec::vec_ops`:
    /// operands in textual order, results, attributes.
    Generic {
        /// The instruction.
        op: Opcode,
        /// Results.
        dsts: Vec<Reg>,
        /// Operands.
        srcs: Vec<Reg>,
        /// Attributes.
        attrs: Arc<Attrs>,
    },
    /// `mem_bar`.
    MemBar {
        /// `VV_ALL`, `VST_VLD` or `VLD_VST`.
        kind: String,
    },
}

/// One lowered instruction.
#[derive(Clone, Debug)]
pub enum K {
    /// Load a constant.
    Const {
        /// Destination.
        dst: Reg,
        /// Value.
        val: Val,
    },
    /// Binary scalar op; integer results wrap to `dt`.
    Bin {
        /// Op.
        op: BinOp,
        /// Destination.
        dst: Reg,
        /// Left.
        a: Reg,
        /// Right.
        b: Reg,
        /// Result type.
        dt: DType,
    },
    /// Comparison.
    Cmp {
        /// Predicate.
        pred: Pred,
        /// Unsigned integer comparison.
        unsigned: bool,
        /// Float comparison (ordered).
        float: bool,
        /// Destination (i1).
        dst: Reg,
        /// Left.
        a: Reg,
        /// Right.
        b: Reg,
    },
    /// `arith.select`.
    Select {
        /// Destination.
        dst: Reg,
        /// Condition.
        c: Reg,
        /// If true.
        a: Reg,
        /// If false.
        b: Reg,
    },
    /// Conversion or unary scalar math.
    Conv {
        /// Kind.
        conv: Conv,
        /// Destination.
        dst: Reg,
        /// Source.
        src: Reg,
        /// Destination type.
        dt: DType,
        /// Source type.
        from: DType,
    },
    /// Parallel move (yields, iter args, call results).
    Moves {
        /// Destinations.
        dsts: Vec<Reg>,
        /// Sources.
        srcs: Vec<Reg>,
    },
    /// Unconditional jump.
    Jump(usize),
    /// Jump if the register is zero.
    BrFalse {
        /// Condition.
        cond: Reg,
        /// Target.
        target: usize,
    },
    /// Loop head: jump to `target` unless `iv < ub` (signed).
    ForCheck {
        /// Induction variable.
        iv: Reg,
        /// Upper bound.
        ub: Reg,
        /// Exit target.
        target: usize,
    },
    /// `iv += step`.
    ForStep {
        /// Induction variable.
        iv: Reg,
        /// Step.
        step: Reg,
    },
    /// Call a function.
    Call {
        /// Callee index.
        func: usize,
        /// Arguments.
        args: Vec<Reg>,
        /// Result registers.
        dsts: Vec<Reg>,
    },
    /// Return.
    Ret {
        /// Returned values.
        vals: Vec<Reg>,
    },
    /// Grid queries.
    Query {
        /// Destination.
        dst: Reg,
        /// 0 block idx, 1 block num, 2 subblock idx, 3 subblock num.
        what: u8,
    },
    /// Communication across ranks (`pto.comm.*`), run by the scalar unit once
    /// its core's pipes have drained.
    Comm {
        /// Which op.
        op: CommOp,
        /// Operands before the first keyword group (views, scalars, events).
        args: Vec<Reg>,
        /// Staging tiles (`buf(...)` / `recv(...)`).
        staging: Vec<Reg>,
        /// Group members (`group(...)`).
        group: Vec<Reg>,
        /// Result register.
        dst: Option<Reg>,
        /// Attributes (`atomicType`, `notifyOp`, `cmp`, `reduceOp`, `root`).
        attrs: Arc<Attrs>,
    },
    /// `load_scalar` / `store_scalar`: one element at `ptr[off]` (GM or an
    /// on-chip buffer), by the scalar unit.
    ScalarMem {
        /// Load (else store).
        load: bool,
        /// The loaded value's register, or the stored value.
        val: Reg,
        /// Pointer.
        ptr: Reg,
        /// Offset in elements.
        off: Reg,
        /// Element type.
        dt: DType,
    },
    /// `castptr`.
    CastPtr {
        /// Destination.
        dst: Reg,
        /// Source (int or pointer).
        src: Reg,
        /// Space of the result (None: keep).
        space: Option<Space>,
        /// Element type of the result.
        elem: DType,
    },
    /// `addptr` (offset in elements).
    AddPtr {
        /// Destination.
        dst: Reg,
        /// Pointer.
        src: Reg,
        /// Offset.
        off: Reg,
        /// Bytes per element when the pointee is a packed `vector<NxT>`
        /// (0: the pointer's element type).
        stride: u32,
    },
    /// `make_tensor_view`.
    MakeView {
        /// Destination.
        dst: Reg,
        /// Base pointer.
        ptr: Reg,
        /// Dynamic shape operands.
        shape: Vec<Reg>,
        /// Dynamic stride operands.
        strides: Vec<Reg>,
        /// Static shape from the result type (used when no operands).
        static_shape: Vec<Option<i64>>,
        /// Element type.
        elem: DType,
        /// Layout.
        layout: ViewLayout,
    },
    /// `partition_view`.
    PartitionView {
        /// Destination.
        dst: Reg,
        /// Source view.
        src: Reg,
        /// Offsets.
        offsets: Vec<Reg>,
        /// Sizes (operands).
        sizes: Vec<Reg>,
        /// Static sizes from the result type.
        static_sizes: Vec<Option<i64>>,
    },
    /// `alloc_tile` / `declare_tile`.
    AllocTile {
        /// Destination.
        dst: Reg,
        /// Allocation site (static placement key).
        site: u32,
        /// Type.
        tb: TileBuf,
        /// Element dtype.
        elem: DType,
        /// Manual address.
        addr: Option<Reg>,
        /// Dynamic valid rows.
        vrow: Option<Reg>,
        /// Dynamic valid cols.
        vcol: Option<Reg>,
    },
    /// `treshape`: a new tile value over the same bytes.
    Reshape {
        /// Destination.
        dst: Reg,
        /// Source tile.
        src: Reg,
        /// Result type.
        tb: TileBuf,
        /// Result element dtype.
        elem: DType,
    },
    /// `subview`: a window of a tile over the same bytes.
    SubView {
        /// Destination.
        dst: Reg,
        /// Source tile.
        src: Reg,
        /// Row and column offsets.
        at: (Reg, Reg),
        /// Dynamic valid rows and columns (`valid [...]`).
        valid: Option<(Reg, Reg)>,
        /// Result type.
        tb: TileBuf,
        /// Result element dtype.
        elem: DType,
    },
    /// `set_validshape`.
    SetValidShape {
        /// Tile.
        tile: Reg,
        /// Rows.
        r: Reg,
        /// Cols.
        c: Reg,
    },
    /// Enter a `section.cube` / `section.vector`; cores of the other kind skip to `end`.
    Section {
        /// Cube section.
        cube: bool,
        /// Index after the section.
        end: usize,
    },
    /// A pipe instruction, issued into `pipe`'s queue.
    Issue {
        /// Pipe.
        pipe: Pipe,
        /// Operation.
        op: PipeOp,
    },
    /// A vector scope, issued to the V pipe as one unit of work.
    VecScope {
        /// Body code.
        body: Arc<Vec<Inst>>,
        /// Registers the body reads from outside.
        captures: Vec<Reg>,
        /// `strict_vecscope` argument bindings (block arg <- operand).
        binds: Vec<(Reg, Reg)>,
    },
    /// Vector micro-op (vector scopes only).
    Vec(VecOp),
    /// Synchronization.
    Sync(SyncOp),
    /// `declare_eventid_array`: a zeroed array of `n` event ids.
    IdsNew {
        /// Destination.
        dst: Reg,
        /// Length.
        n: usize,
    },
    /// `eventid_array_get`.
    IdsGet {
        /// Destination.
        dst: Reg,
        /// Array.
        arr: Reg,
        /// Index.
        idx: Reg,
    },
    /// `eventid_array_set` (updates the array in place).
    IdsSet {
        /// Array.
        arr: Reg,
        /// Index.
        idx: Reg,
        /// New id.
        val: Reg,
    },
    /// Legacy DMA loop registers (`set_loop_size_*`, `set_loop{1,2}_stride_*`).
    SetLoop {
        /// 0 = loop sizes, 1 = loop1 strides, 2 = loop2 strides, 3 = the
        /// MTE2 NZ parameters (`set_mte2_nz_para`), 4-6 = the FIXPIPE
        /// quant / relu slope / clip registers (`a` = `b` = the word), 7-8 =
        /// the FIXPIPE LOOP3_PARA / CHANNEL_PARA registers (`a` the low 40
        /// bits, `b` the high 24).
        which: u8,
        /// 0 = out->ub (GM to UB), 1 = ub->out.
        dir: u8,
        /// First value (loop1 count / source stride).
        a: Reg,
        /// Second value (loop2 count / destination stride).
        b: Reg,
    },
    /// `set_atomic_{add,max,min,none}` / `set_atomic_{f32,...,s8}`: how UB
    /// to GM transfers issued afterwards combine with GM.
    SetAtomic {
        /// The operation (None: keep).
        op: Option<Combine>,
        /// The element type (None: keep).
        dt: Option<DType>,
    },
    /// `tsync` barrier on an op class that is not a vector op (reported, then a barrier).
    TsyncNonVector {
        /// The class as written.
        class: String,
        /// Its pipe.
        pipe: Pipe,
    },
    /// Ends a vector-scope body.
    End,
    /// No effect.
    Nop,
    /// `pto.get_ctrl` (dst) / `pto.set_ctrl` (src): the core's CTRL register.
    Ctrl {
        /// Read into.
        dst: Option<Reg>,
        /// Written from.
        src: Option<Reg>,
    },
    /// `pto.sbitset0` / `pto.sbitset1`: `src` with bit `bit` cleared or set.
    BitSet {
        /// Result.
        dst: Reg,
        /// Value.
        src: Reg,
        /// Bit index.
        bit: Reg,
        /// Set (else clear).
        set: bool,
    },
    /// `pto.reserve_buffer`: a named consumer slot buffer in this core's
    /// local memory; the result is its byte address.
    ReserveBuf {
        /// Result (i32 address).
        dst: Reg,
        /// The buffer's name.
        name: String,
        /// Bytes.
        size: u64,
        /// Local space.
        space: Space,
        /// Explicit address (`auto = false`).
        base: Option<u64>,
    },
    /// `pto.import_reserved_buffer`: the address of a peer function's
    /// `reserve_buffer` (waits until the peer has placed it).
    ImportBuf {
        /// Result.
        dst: Reg,
        /// The buffer's name.
        name: String,
        /// The peer function.
        peer: String,
    },
    /// `pto.aic_initialize_pipe` / `pto.aiv_initialize_pipe`.
    PipeInit(Box<crate::fifo::PipeInit>),
    /// `set_quant_scalar` (f32 scale) / `set_quant_vector` (scaling tile):
    /// the quant parameter later pushes on pipe `id` convert with.
    SetQuant {
        /// Logical pipe id.
        id: u32,
        /// The scale or the scaling tile.
        src: Reg,
        /// `set_quant_vector`.
        vector: bool,
    },
    /// `tpush_to_aiv` / `tpush_to_aic`.
    FifoPush {
        /// Logical pipe id.
        id: u32,
        /// Cube to vector.
        c2v: bool,
        /// `TileSplitAxis` (0 none, 1 up-down, 2 left-right).
        split: u32,
        /// The tile (or GM entry) pushed.
        entry: Reg,
    },
    /// `tpop_from_aic` / `tpop_from_aiv`.
    FifoPop {
        /// Logical pipe id.
        id: u32,
        /// Cube to vector.
        c2v: bool,
        /// Split.
        split: u32,
        /// Result.
        dst: Reg,
        /// The result tile type (None: a GM entry).
        tile: Option<(TileBuf, DType)>,
    },
    /// `talloc_to_aiv` / `talloc_to_aic`: the producer's next GM slot.
    FifoAlloc {
        /// Logical pipe id.
        id: u32,
        /// Cube to vector.
        c2v: bool,
        /// Result (the slot's GM view).
        dst: Reg,
    },
    /// `tfree_from_aic` / `tfree_from_aiv`.
    FifoFree {
        /// Logical pipe id.
        id: u32,
        /// Cube to vector.
        c2v: bool,
        /// Split.
        split: u32,
    },
    /// Start of a `pto.simt_launch` thread loop (inside the vector scope the
    /// launch lowers to): block dimensions x, y, z; thread (0,0,0) first.
    SimtBegin {
        /// The x, y, z thread counts.
        dims: SimtDims,
        /// The body has a `pto.syncthreads`: every thread of the launch
        /// (not only of a warp) may have to stop and wait.
        barrier: bool,
    },
    /// `pto.syncthreads`: every thread of the launch stops here until all
    /// have arrived.
    SimtSync,
    /// `pto.keep`: saves this thread's `src` in slot `slot` for the next
    /// launch on the core.
    SimtKeep {
        /// Value.
        src: Reg,
        /// Logical slot.
        slot: i64,
    },
    /// `pto.resume`: the value this thread saved in slot `slot` in an
    /// earlier launch.
    SimtResume {
        /// Result.
        dst: Reg,
        /// Logical slot.
        slot: i64,
    },
    /// End of one thread's run: the next thread id, and a jump back to
    /// `target` unless every thread has run.
    SimtNext {
        /// First instruction of the thread body.
        target: usize,
    },
    /// A thread-id query inside a SIMT launch (`what`: 0..3 tid x/y/z,
    /// 3..6 block dim x/y/z, 6 lane id, 7..10 grid dim, 10..13 block idx,
    /// 13..18 lane masks eq/le/lt/ge/gt).
    SimtId {
        /// Destination.
        dst: Reg,
        /// Which id.
        what: u8,
    },
    /// An `arith` binary op on packed `vector<NxT>` SIMT values, lane by
    /// lane.
    PackedBin {
        /// Operation.
        op: BinOp,
        /// Result.
        dst: Reg,
        /// Left operand.
        a: Reg,
        /// Right operand.
        b: Reg,
        /// Lane type.
        dt: pto_isa_spec::DType,
        /// Lanes.
        lanes: u8,
    },
    /// A warp-wide SIMT collective (`pto.vote_*`, `pto.shuffle_*`,
    /// `pto.redux_*`): every thread of the warp stops here and the op
    /// combines their `src` values (see `machine::warp_collective`).
    Warp {
        /// Which collective.
        op: WarpOp,
        /// Result.
        dst: Reg,
        /// This thread's value (the predicate for votes).
        src: Reg,
        /// Shuffle lane index / offset / xor mask.
        arg: Option<Reg>,
        /// Shuffle subgroup width (16 or 32).
        width: u8,
        /// Value type.
        dt: pto_isa_spec::DType,
        /// `unsigned` integer ordering for `redux_max` / `redux_min`.
        unsigned: bool,
    },
    /// A SIMT atomic read-modify-write of one element at `ptr`; `dst` gets
    /// the old value.
    Atomic {
        /// `add` `sub` `min` `max` `and` `or` `xor` `exch` `cas`.
        op: &'static str,
        /// Old value.
        dst: Option<Reg>,
        /// Element pointer.
        ptr: Reg,
        /// Operand (the new value for `cas`).
        val: Reg,
        /// `cas` compare value.
        cmp: Option<Reg>,
        /// Element type (the lane type of a packed value).
        dt: pto_isa_spec::DType,
        /// Lanes of a packed `vector<NxT>` value (1 for a scalar; packed
        /// values are held as their raw bits); each lane combines with its
        /// own element.
        lanes: u8,
        /// `unsigned` integer ordering for min/max.
        unsigned: bool,
    },
    /// SIMT integer helpers: `mulhi` (high half of the product),
    /// `mul_i32toi64` (full 64-bit product) and `prmt` (byte permute).
    IntMath {
        /// `mulhi`, `mul_i32toi64` or `prmt`.
        op: &'static str,
        /// Result.
        dst: Reg,
        /// Operands (`prmt`: a, b, selector).
        args: Vec<Reg>,
        /// Operand width in bits (32 or 64).
        bits: u32,
        /// Unsigned operands.
        unsigned: bool,
    },
    /// SIMT scalar float math (`sqrt` `absf` `exp` `log` `sin` `cos` `ceil`
    /// `floor` `rint` `round` `fmin` `fmax` `pow` `fma`), rounded to `dt`.
    FMath {
        /// Op name without `pto.`.
        op: &'static str,
        /// Result.
        dst: Reg,
        /// Operands.
        args: Vec<Reg>,
        /// Result type (the lane type of packed operands).
        dt: pto_isa_spec::DType,
        /// Lanes of packed `vector<NxT>` operands (1 for scalars).
        lanes: u8,
    },
    /// SIMT scalar `pto.convert` between integer and float types.
    SConvert {
        /// Result.
        dst: Reg,
        /// Operand.
        src: Reg,
        /// Result type.
        to: pto_isa_spec::DType,
        /// Operand type.
        from: pto_isa_spec::DType,
        /// `round(X)` letter for float -> int (`r` `z` `a` `f` `c`).
        round: char,
        /// Integers are unsigned.
        unsigned: bool,
        /// Lanes of a packed `vector<NxT>` conversion (1 for scalars).
        lanes: u8,
    },
    /// A scalar bit reinterpretation (`arith.bitcast`, `llvm.bitcast`).
    Bitcast {
        /// Result.
        dst: Reg,
        /// Operand.
        src: Reg,
        /// Result type.
        to: pto_isa_spec::DType,
        /// Operand type.
        from: pto_isa_spec::DType,
    },
    /// `pto.syncall`: the scalar unit drains its pipes and waits until every
    /// core of the launch of the kind (0 all, 1 vector, 2 cube) arrived.
    SyncAll {
        /// 0 mix, 1 aiv_only, 2 aic_only.
        kind: u8,
    },
    /// `pto.set_mov_pad_val %v : T`: the GM -> UB pad register takes the
    /// bits of `v` as a `T`.
    SetMovPad {
        /// The value.
        val: Reg,
        /// Its type.
        dt: pto_isa_spec::DType,
    },
    /// `pto.trap`: stops the kernel with a fault at this op.
    Trap,
    /// `pto.print ins("format", %val : T)`: the scalar formatted by the C
    /// format string, on standard error.
    Print {
        /// printf-style format.
        fmt: String,
        /// The printed value.
        val: Reg,
        /// Its type.
        dt: pto_isa_spec::DType,
    },
    /// An op ptovm parses but cannot execute yet.
    Unsupported {
        /// Why.
        what: String,
    },
}

/// An instruction with its id.
#[derive(Clone, Debug)]
pub struct Inst {
    /// Id for diagnostics.
    pub id: InstId,
    /// What it does.
    pub k: K,
}

/// A lowered function.
#[derive(Clone, Debug)]
pub struct Func {
    /// Symbol name.
    pub name: String,
    /// Argument registers.
    pub args: Vec<Reg>,
    /// Argument types (for binding kernel inputs).
    pub arg_types: Vec<ArgType>,
    /// Code.
    pub code: Vec<Inst>,
    /// Marked `pto.entry` / `pto.kernel`, or public.
    pub entry: bool,
    /// Whether the body contains `section.cube`/`section.vector` or calls a
    /// function with a `pto.kernel_kind` (mixed kernel).
    pub mixed: bool,
    /// `pto.kernel_kind`: Some(true) cube, Some(false) vector.
    pub kernel_kind: Option<bool>,
    /// Per argument: bytes its static tensor views reach (0 if unknown).
    pub arg_bytes: Vec<u64>,
}

/// What a kernel argument is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgType {
    /// A GM pointer with its element type.
    GmPtr(DType),
    /// An integer or index scalar.
    Int(DType),
    /// A float scalar.
    Float(DType),
    /// Something ptovm cannot bind from the command line.
    Other(String),
}

/// A whole lowered program.
#[derive(Clone, Debug)]
pub struct Program {
    /// Source file name (for diagnostics).
    pub source_name: String,
    /// Functions.
    pub funcs: Vec<Func>,
    /// Instruction facts by id.
    pub insts: Vec<InstInfo>,
    /// Number of registers (values of the file).
    pub n_regs: usize,
    /// Number of tile allocation sites.
    pub n_sites: u32,
    /// Value names (for messages).
    pub value_names: Vec<String>,
    /// Compiled vector scopes kept for later runs of this program.
    pub(crate) scopes: crate::jitscope::ProgramScopes,
}

impl Program {
    /// The entry function: the one marked entry/kernel, else the last public one.
    pub fn entry(&self, name: Option<&str>) -> Option<usize> {
        if let Some(n) = name {
            return self.funcs.iter().position(|f| f.name == n);
        }
        self.funcs
            .iter()
            .position(|f| f.entry)
            .or_else(|| (!self.funcs.is_empty()).then(|| self.funcs.len() - 1))
    }

    /// A function's argument names, without the `%`.
    pub fn arg_names(&self, func: usize) -> Vec<String> {
        self.funcs[func]
            .args
            .iter()
            .map(|r| {
                self.value_names[*r as usize]
                    .trim_start_matches('%')
                    .to_string()
            })
            .collect()
    }

    /// Facts about an instruction.
    pub fn info(&self, id: InstId) -> &InstInfo {
        &self.insts[id as usize]
    }
}

/// The warp-wide SIMT collectives ([`K::Warp`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpOp {
    /// `pto.vote_all`: the predicate holds on every participating lane.
    VoteAll,
    /// `pto.vote_any`: the predicate holds on some participating lane.
    VoteAny,
    /// `pto.vote_uni`: the predicate is the same on every participating lane.
    VoteUni,
    /// `pto.vote_ballot`: bit mask of the lanes whose predicate holds.
    VoteBallot,
    /// `pto.shuffle_idx`: the value of lane `arg` of the subgroup.
    ShuffleIdx,
    /// `pto.shuffle_up`: the value of lane `local - arg`.
    ShuffleUp,
    /// `pto.shuffle_down`: the value of lane `local + arg`.
    ShuffleDown,
    /// `pto.shuffle_bfly`: the value of lane `local ^ arg`.
    ShuffleBfly,
    /// `pto.redux_add`: sum over the participating lanes.
    ReduxAdd,
    /// `pto.redux_max`: maximum over the participating lanes.
    ReduxMax,
    /// `pto.redux_min`: minimum over the participating lanes.
    ReduxMin,
}
