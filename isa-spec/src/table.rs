//! THE instruction table. One line per instruction; see `docs/add-an-instruction.md`.
//!
//! Columns: `Opcode: "canonical.spelling" [aliases], set, pipe, class, form,
//! "signature", dtypes, profiles, "summary";`
//!
//! * pipe: `NONE` (scalar-unit control / no runtime effect), `S`, `V`, `M`, `MTE1`,
//!   `MTE2`, `MTE3`, `FIX`, `NAMED` (the op names its pipe), `BYLOC` (from the
//!   memory locations of its tile operands).
//! * signature: see [`crate::Sig`].
//! * dtypes: a [`DtypeRule`] constant (`ANY`, `STD`, `FP`, `FPBF`, `INT`, `INT64`,
//!   `ALL`, `MATMUL`, `MX`).
//! * profiles: `BOTH`, `A2A3`, `A5`.

use crate::{Class, DtypeRule, Form, ISet, OpInfo, Pipe, PipeRule, ProfileMask};

const NONE: PipeRule = PipeRule::None;
const S: PipeRule = PipeRule::Fixed(Pipe::S);
const V: PipeRule = PipeRule::Fixed(Pipe::V);
const M: PipeRule = PipeRule::Fixed(Pipe::M);
const MTE1: PipeRule = PipeRule::Fixed(Pipe::Mte1);
const MTE2: PipeRule = PipeRule::Fixed(Pipe::Mte2);
const MTE3: PipeRule = PipeRule::Fixed(Pipe::Mte3);
const FIX: PipeRule = PipeRule::Fixed(Pipe::Fix);
const NAMED: PipeRule = PipeRule::Named;
const BYLOC: PipeRule = PipeRule::ByLocation;

const ANY: DtypeRule = DtypeRule::ANY;
const STD: DtypeRule = DtypeRule::STD;
const FP: DtypeRule = DtypeRule::FP;
const FPBF: DtypeRule = DtypeRule::FPBF;
const I16FP: DtypeRule = DtypeRule::I16FP;
const INT: DtypeRule = DtypeRule::INT;
const INT64: DtypeRule = DtypeRule::INT64;
const ALL: DtypeRule = DtypeRule::ALL;
const MATMUL: DtypeRule = DtypeRule::MATMUL;
const MX: DtypeRule = DtypeRule::MX;

const BOTH: ProfileMask = ProfileMask::BOTH;
const A2A3: ProfileMask = ProfileMask::A2A3;
const A5: ProfileMask = ProfileMask::A5;

macro_rules! ops {
    ($( $id:ident : $name:literal $([$($alias:literal),* $(,)?])?, $set:ident, $pipe:ident,
        $class:ident, $form:ident, $sig:literal, $dt:ident, $prof:ident, $summary:literal; )*) => {
        /// Every instruction ptovm knows, in table order. The discriminant is the
        /// binary encoding.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u16)]
        pub enum Opcode { $( #[doc = $summary] $id, )* }

        /// The table, indexed by `Opcode as usize`.
        pub static OPS: &[OpInfo] = &[ $( OpInfo {
            opcode: Opcode::$id,
            name: $name,
            aliases: &[ $($($alias),*)? ],
            set: ISet::$set,
            pipe: $pipe,
            class: Class::$class,
            form: Form::$form,
            sig: $sig,
            dtypes: $dt,
            profiles: $prof,
            summary: $summary,
        }, )* ];
    };
}

ops! {
    // ───────────────────────── builtin / func / control ─────────────────────────
    Module: "builtin.module" ["module"], Builtin, NONE, Control, Builtin, "", ANY, BOTH, "top-level container of functions";
    Func: "func.func", Builtin, NONE, Control, Builtin, "", ANY, BOTH, "function definition or declaration";
    Return: "func.return" ["return"], Builtin, NONE, Control, Generic, "x*", ANY, BOTH, "return from the function";
    Call: "func.call" ["call"], Builtin, NONE, Control, Generic, "x* -> x*", ANY, BOTH, "call a function by symbol";
    CallIndirect: "func.call_indirect", Builtin, NONE, Control, Generic, "x+ -> x*", ANY, BOTH, "call through a function value";
    ScfFor: "scf.for", Builtin, NONE, Control, Builtin, "i i i x* -> x*", ANY, BOTH, "counted loop with optional iter_args";
    ScfIf: "scf.if", Builtin, NONE, Control, Builtin, "i -> x*", ANY, BOTH, "two-way branch with optional results";
    ScfYield: "scf.yield", Builtin, NONE, Control, Generic, "x*", ANY, BOTH, "region terminator passing values";
    ScfWhile: "scf.while", Builtin, NONE, Control, Builtin, "x* -> x*", ANY, BOTH, "while loop: before region tests, after region iterates";
    ScfCondition: "scf.condition", Builtin, NONE, Control, Generic, "i x*", ANY, BOTH, "while-loop condition and forwarded values";
    ScfExecuteRegion: "scf.execute_region", Builtin, NONE, Control, Region, "-> x*", ANY, BOTH, "run a region once";
    ScfIndexSwitch: "scf.index_switch", Builtin, NONE, Control, Region, "i -> x*", ANY, BOTH, "multi-way branch on an index";
    CfBr: "cf.br", Builtin, NONE, Control, Generic, "x*", ANY, BOTH, "unconditional branch";
    CfCondBr: "cf.cond_br", Builtin, NONE, Control, Generic, "i x*", ANY, BOTH, "conditional branch";
    CfSwitch: "cf.switch", Builtin, NONE, Control, Generic, "i x*", ANY, BOTH, "multi-way branch";
    CfAssert: "cf.assert", Builtin, NONE, Control, Generic, "i", ANY, BOTH, "abort with a message if false";
    UnrealizedCast: "builtin.unrealized_conversion_cast", Builtin, NONE, ScalarArith, Generic, "x* -> x*", ANY, BOTH, "type bridge left by partial lowering";
    // arith
    ArithConstant: "arith.constant", Builtin, NONE, ScalarArith, Generic, "-> x", ANY, BOTH, "constant";
    ArithAddi: "arith.addi", Builtin, NONE, ScalarArith, Generic, "i i -> i", ANY, BOTH, "integer add (wraps)";
    ArithSubi: "arith.subi", Builtin, NONE, ScalarArith, Generic, "i i -> i", ANY, BOTH, "integer subtract (wraps)";
    ArithMuli: "arith.muli", Builtin, NONE, ScalarArith, Generic, "i i -> i", ANY, BOTH, "integer multiply (wraps)";
    ArithDivsi: "arith.divsi", Builtin, NONE, ScalarArith, Generic, "i i -> i", ANY, BOTH, "signed divide, toward zero";
    ArithDivui: "arith.divui", Builtin, NONE, ScalarArith, Generic, "i i -> i", ANY, BOTH, "unsigned divide";
    ArithCeildivsi: "arith.ceildivsi", Builtin, NONE, ScalarArith, Generic, "i i -> i", ANY, BOTH, "signed divide rounding up";
    ArithCeildivui: "arith.ceildivui", Builtin, NONE, ScalarArith, Generic, "i i -> i", ANY, BOTH, "unsigned divide rounding up";
    ArithFloordivsi: "arith.floordivsi", Builtin, NONE, ScalarArith, Generic, "i i -> i", ANY, BOTH, "signed divide rounding down";
    ArithRemsi: "arith.remsi", Builtin, NONE, ScalarArith, Generic, "i i -> i", ANY, BOTH, "signed remainder";
    ArithRemui: "arith.remui", Builtin, NONE, ScalarArith, Generic, "i i -> i", ANY, BOTH, "unsigned remainder";
    ArithAndi: "arith.andi", Builtin, NONE, ScalarArith, Generic, "i i -> i", ANY, BOTH, "bitwise and";
    ArithOri: "arith.ori", Builtin, NONE, ScalarArith, Generic, "i i -> i", ANY, BOTH, "bitwise or";
    ArithXori: "arith.xori", Builtin, NONE, ScalarArith, Generic, "i i -> i", ANY, BOTH, "bitwise xor";
    ArithShli: "arith.shli", Builtin, NONE, ScalarArith, Generic, "i i -> i", ANY, BOTH, "shift left";
    ArithShrsi: "arith.shrsi", Builtin, NONE, ScalarArith, Generic, "i i -> i", ANY, BOTH, "arithmetic shift right";
    ArithShrui: "arith.shrui", Builtin, NONE, ScalarArith, Generic, "i i -> i", ANY, BOTH, "logical shift right";
    ArithMaxsi: "arith.maxsi", Builtin, NONE, ScalarArith, Generic, "i i -> i", ANY, BOTH, "signed max";
    ArithMinsi: "arith.minsi", Builtin, NONE, ScalarArith, Generic, "i i -> i", ANY, BOTH, "signed min";
    ArithMaxui: "arith.maxui", Builtin, NONE, ScalarArith, Generic, "i i -> i", ANY, BOTH, "unsigned max";
    ArithMinui: "arith.minui", Builtin, NONE, ScalarArith, Generic, "i i -> i", ANY, BOTH, "unsigned min";
    ArithCmpi: "arith.cmpi", Builtin, NONE, ScalarArith, Generic, "i i -> i", ANY, BOTH, "integer compare (eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge)";
    ArithCmpf: "arith.cmpf", Builtin, NONE, ScalarArith, Generic, "f f -> i", ANY, BOTH, "float compare";
    ArithSelect: "arith.select", Builtin, NONE, ScalarArith, Generic, "i x x -> x", ANY, BOTH, "c ? a : b";
    ArithIndexCast: "arith.index_cast", Builtin, NONE, ScalarArith, Generic, "i -> i", ANY, BOTH, "signed cast between index and integer";
    ArithIndexCastui: "arith.index_castui", Builtin, NONE, ScalarArith, Generic, "i -> i", ANY, BOTH, "unsigned cast between index and integer";
    ArithTrunci: "arith.trunci", Builtin, NONE, ScalarArith, Generic, "i -> i", ANY, BOTH, "integer truncate";
    ArithExtsi: "arith.extsi", Builtin, NONE, ScalarArith, Generic, "i -> i", ANY, BOTH, "sign extend";
    ArithExtui: "arith.extui", Builtin, NONE, ScalarArith, Generic, "i -> i", ANY, BOTH, "zero extend";
    ArithSitofp: "arith.sitofp", Builtin, NONE, ScalarArith, Generic, "i -> f", ANY, BOTH, "signed int to float";
    ArithUitofp: "arith.uitofp", Builtin, NONE, ScalarArith, Generic, "i -> f", ANY, BOTH, "unsigned int to float";
    ArithFptosi: "arith.fptosi", Builtin, NONE, ScalarArith, Generic, "f -> i", ANY, BOTH, "float to signed int (toward zero)";
    ArithFptoui: "arith.fptoui", Builtin, NONE, ScalarArith, Generic, "f -> i", ANY, BOTH, "float to unsigned int (toward zero)";
    ArithExtf: "arith.extf", Builtin, NONE, ScalarArith, Generic, "f -> f", ANY, BOTH, "float extend";
    ArithTruncf: "arith.truncf", Builtin, NONE, ScalarArith, Generic, "f -> f", ANY, BOTH, "float truncate (round to nearest even)";
    ArithBitcast: "arith.bitcast", Builtin, NONE, ScalarArith, Generic, "s -> s", ANY, BOTH, "bit reinterpretation";
    ArithAddf: "arith.addf", Builtin, NONE, ScalarArith, Generic, "f f -> f", ANY, BOTH, "float add";
    ArithSubf: "arith.subf", Builtin, NONE, ScalarArith, Generic, "f f -> f", ANY, BOTH, "float subtract";
    ArithMulf: "arith.mulf", Builtin, NONE, ScalarArith, Generic, "f f -> f", ANY, BOTH, "float multiply";
    ArithDivf: "arith.divf", Builtin, NONE, ScalarArith, Generic, "f f -> f", ANY, BOTH, "float divide";
    ArithRemf: "arith.remf", Builtin, NONE, ScalarArith, Generic, "f f -> f", ANY, BOTH, "float remainder (fmod)";
    ArithNegf: "arith.negf", Builtin, NONE, ScalarArith, Generic, "f -> f", ANY, BOTH, "float negate";
    ArithMaximumf: "arith.maximumf" ["arith.maxf"], Builtin, NONE, ScalarArith, Generic, "f f -> f", ANY, BOTH, "float max (NaN propagating)";
    ArithMinimumf: "arith.minimumf" ["arith.minf"], Builtin, NONE, ScalarArith, Generic, "f f -> f", ANY, BOTH, "float min (NaN propagating)";
    ArithMaxnumf: "arith.maxnumf", Builtin, NONE, ScalarArith, Generic, "f f -> f", ANY, BOTH, "float max (NaN ignoring)";
    ArithMinnumf: "arith.minnumf", Builtin, NONE, ScalarArith, Generic, "f f -> f", ANY, BOTH, "float min (NaN ignoring)";
    // math
    MathExp: "math.exp", Builtin, NONE, ScalarArith, Generic, "f -> f", ANY, BOTH, "e^x";
    MathLog: "math.log", Builtin, NONE, ScalarArith, Generic, "f -> f", ANY, BOTH, "ln x";
    MathSqrt: "math.sqrt", Builtin, NONE, ScalarArith, Generic, "f -> f", ANY, BOTH, "square root";
    MathRsqrt: "math.rsqrt", Builtin, NONE, ScalarArith, Generic, "f -> f", ANY, BOTH, "1/sqrt(x)";
    MathAbsf: "math.absf", Builtin, NONE, ScalarArith, Generic, "f -> f", ANY, BOTH, "float abs";
    MathAbsi: "math.absi", Builtin, NONE, ScalarArith, Generic, "i -> i", ANY, BOTH, "integer abs";
    MathTanh: "math.tanh", Builtin, NONE, ScalarArith, Generic, "f -> f", ANY, BOTH, "hyperbolic tangent";
    MathSin: "math.sin", Builtin, NONE, ScalarArith, Generic, "f -> f", ANY, BOTH, "sine";
    MathCos: "math.cos", Builtin, NONE, ScalarArith, Generic, "f -> f", ANY, BOTH, "cosine";
    MathLog2: "math.log2", Builtin, NONE, ScalarArith, Generic, "f -> f", ANY, BOTH, "base-2 logarithm";
    MathExp2: "math.exp2", Builtin, NONE, ScalarArith, Generic, "f -> f", ANY, BOTH, "2^x";
    MathPowf: "math.powf", Builtin, NONE, ScalarArith, Generic, "f f -> f", ANY, BOTH, "x^y for floats";
    MathFloor: "math.floor", Builtin, NONE, ScalarArith, Generic, "f -> f", ANY, BOTH, "round toward -inf";
    MathCeil: "math.ceil", Builtin, NONE, ScalarArith, Generic, "f -> f", ANY, BOTH, "round toward +inf";
    MathFma: "math.fma", Builtin, NONE, ScalarArith, Generic, "f f f -> f", ANY, BOTH, "fused a * b + c";
    MathErf: "math.erf", Builtin, NONE, ScalarArith, Generic, "f -> f", ANY, BOTH, "error function";
    // memref
    MemrefAlloc: "memref.alloc", Builtin, NONE, View, Generic, "i* -> x", ANY, BOTH, "allocate a local buffer";
    MemrefAlloca: "memref.alloca", Builtin, NONE, View, Generic, "i* -> x", ANY, BOTH, "allocate a stack buffer";
    MemrefDealloc: "memref.dealloc", Builtin, NONE, View, Generic, "x", ANY, BOTH, "free a local buffer";
    MemrefReinterpretCast: "memref.reinterpret_cast", Builtin, NONE, View, Generic, "x i* -> x", ANY, BOTH, "view a buffer with new offset/sizes/strides";
    MemrefSubview: "memref.subview", Builtin, NONE, View, Generic, "x i* -> x", ANY, BOTH, "strided sub-window of a memref";
    MemrefCast: "memref.cast", Builtin, NONE, View, Generic, "x -> x", ANY, BOTH, "memref type cast";
    MemrefLoad: "memref.load", Builtin, NONE, ScalarMemory, Generic, "x i* -> s", ANY, BOTH, "scalar load from a memref";
    MemrefStore: "memref.store", Builtin, NONE, ScalarMemory, Generic, "s x i*", ANY, BOTH, "scalar store to a memref";
    MemrefCopy: "memref.copy", Builtin, NONE, View, Generic, "x x", ANY, BOTH, "copy one memref into another";
    // llvm (left in some lowered PTOAS tests)
    LlvmAlloca: "llvm.alloca", Internal, NONE, NotExecutable, Generic, "x* -> x*", ANY, BOTH, "LLVM stack allocation";
    LlvmLoad: "llvm.load", Internal, NONE, NotExecutable, Generic, "x* -> x*", ANY, BOTH, "LLVM load";
    LlvmStore: "llvm.store", Internal, NONE, NotExecutable, Generic, "x* -> x*", ANY, BOTH, "LLVM store";
    LlvmBitcast: "llvm.bitcast", Internal, NONE, NotExecutable, Generic, "x* -> x*", ANY, BOTH, "LLVM bitcast";
    LlvmGep: "llvm.getelementptr", Internal, NONE, NotExecutable, Generic, "x* -> x*", ANY, BOTH, "LLVM address computation";
    LlvmExtractElement: "llvm.extractelement", Internal, NONE, NotExecutable, Generic, "x* -> x*", ANY, BOTH, "LLVM vector element read";
    LlvmIntToPtr: "llvm.inttoptr", Internal, NONE, NotExecutable, Generic, "x* -> x*", ANY, BOTH, "LLVM int to pointer";
    LlvmPtrToInt: "llvm.ptrtoint", Internal, NONE, NotExecutable, Generic, "x* -> x*", ANY, BOTH, "LLVM pointer to int";

    // ═════════════════════════ pto dialect ═════════════════════════
    // Sections follow the ISA inventory: tile (pto.t*), view/tile-buf IR, system
    // FIFOs, comm, scalar/control (sync, DMA, predicates, shell), vector (pto.v*),
    // cube micro-ops, then parse-only sets: Internal (backend/compiler ops), Vmi
    // (pto.vmi.*) and Simt. Operand signatures were checked against every use in
    // the PTOAS test corpus.

    // ── tile: elementwise tile-tile (pto.t*, ins/outs, vector pipe) ──
    TAdd: "pto.tadd", Tile, V, Elementwise, Dps, "t t | t", STD, BOTH, "lane-wise a + b";
    TSub: "pto.tsub", Tile, V, Elementwise, Dps, "t t | t", STD, BOTH, "lane-wise a - b";
    TMul: "pto.tmul", Tile, V, Elementwise, Dps, "t t | t", STD, BOTH, "lane-wise a * b";
    TDiv: "pto.tdiv", Tile, V, Elementwise, Dps, "t t | t", ALL, BOTH, "lane-wise a / b";
    TMax: "pto.tmax", Tile, V, Elementwise, Dps, "t t | t", STD, BOTH, "lane-wise maximum";
    TMin: "pto.tmin", Tile, V, Elementwise, Dps, "t t | t", STD, BOTH, "lane-wise minimum";
    TAbs: "pto.tabs", Tile, V, Elementwise, Dps, "t | t", ALL, BOTH, "lane-wise absolute value";
    TNeg: "pto.tneg", Tile, V, Elementwise, Dps, "t | t", ALL, BOTH, "lane-wise negation";
    TAnd: "pto.tand", Tile, V, Elementwise, Dps, "t t | t", INT, BOTH, "bitwise and of two tiles";
    TOr: "pto.tor", Tile, V, Elementwise, Dps, "t t | t", INT, BOTH, "bitwise or of two tiles";
    TXor: "pto.txor", Tile, V, Elementwise, Dps, "t t t? | t", INT, BOTH, "bitwise xor of two tiles, optional scratch tile";
    TNot: "pto.tnot", Tile, V, Elementwise, Dps, "t | t", INT, BOTH, "bitwise complement";
    TShl: "pto.tshl", Tile, V, Elementwise, Dps, "t t | t", INT64, BOTH, "shift left by per-element count";
    TShr: "pto.tshr", Tile, V, Elementwise, Dps, "t t | t", INT64, BOTH, "shift right by per-element count";
    TExp: "pto.texp", Tile, V, Elementwise, Dps, "t | t", FPBF, BOTH, "e to the power x";
    TLog: "pto.tlog", Tile, V, Elementwise, Dps, "t | t", FPBF, BOTH, "natural logarithm";
    TSqrt: "pto.tsqrt", Tile, V, Elementwise, Dps, "t | t", FPBF, BOTH, "square root";
    TRsqrt: "pto.trsqrt", Tile, V, Elementwise, Dps, "t t? | t", FPBF, BOTH, "reciprocal square root, optional scratch tile";
    TRecip: "pto.trecip", Tile, V, Elementwise, Dps, "t | t", ALL, BOTH, "reciprocal 1/x";
    TRelu: "pto.trelu", Tile, V, Elementwise, Dps, "t | t", ALL, BOTH, "max(x, 0)";
    TPrelu: "pto.tprelu", Tile, V, Elementwise, Dps, "t t t? | t", FPBF, BOTH, "parametric ReLU with per-element slope tile";
    TRem: "pto.trem", Tile, V, Elementwise, Dps, "t t t? | t", ALL, BOTH, "remainder taking the divisor's sign";
    TFmod: "pto.tfmod", Tile, V, Elementwise, Dps, "t t | t", ALL, BOTH, "C fmod: remainder taking the dividend's sign";
    TPow: "pto.tpow", Tile, V, Elementwise, Dps, "t t t? | t", ALL, BOTH, "base raised to per-element exponent";
    TCmp: "pto.tcmp", Tile, V, Elementwise, Dps, "t t | t", ALL, BOTH, "compare two tiles into a packed bit mask";
    TCvt: "pto.tcvt", Tile, V, Elementwise, Dps, "t t? | t", ANY, BOTH, "element type conversion with rounding and saturation";
    TSel: "pto.tsel", Tile, V, Elementwise, Dps, "t t t t? | t", ANY, BOTH, "per-element select by mask tile: bit ? src0 : src1";
    TAddc: "pto.taddc", Tile, V, Elementwise, Dps, "t t t | t", STD, BOTH, "three-way sum a + b + c";
    TSubc: "pto.tsubc", Tile, V, Elementwise, Dps, "t t t | t", STD, BOTH, "a - b + c";
    TAddRelu: "pto.taddrelu", Tile, V, Elementwise, Dps, "t t | t", I16FP, A2A3, "relu(a + b)";
    TSubRelu: "pto.tsubrelu", Tile, V, Elementwise, Dps, "t t | t", FP, BOTH, "relu(a - b)";
    TMuladdDst: "pto.tmuladddst", Tile, V, Elementwise, Dps, "t t | t", FP, BOTH, "dst = a * b + dst";
    TFusedMuladd: "pto.tfusedmuladd", Tile, V, Elementwise, Dps, "t t | t", FP, BOTH, "dst = a * dst + b";
    TFusedMuladdRelu: "pto.tfusedmuladdrelu", Tile, V, Elementwise, Dps, "t t | t", FP, BOTH, "dst = relu(a * dst + b)";
    TAddReluConv: "pto.taddreluconv", Tile, V, Elementwise, Dps, "t t | t", ANY, BOTH, "convert(relu(a + b)) to a narrower type";
    TSubReluConv: "pto.tsubreluconv", Tile, V, Elementwise, Dps, "t t | t", FP, BOTH, "convert(relu(a - b)) to a narrower type";
    TAddDeqRelu: "pto.tadddeqrelu", Tile, V, Elementwise, Dps, "t t s t? | t", ANY, BOTH, "relu((a + b) * dequant scale) as half";
    TPartAdd: "pto.tpartadd", Tile, V, Elementwise, Dps, "t t | t", ALL, BOTH, "add where both valid, else copy the valid input";
    TPartMax: "pto.tpartmax", Tile, V, Elementwise, Dps, "t t | t", ALL, BOTH, "max where both valid, else copy the valid input";
    TPartMin: "pto.tpartmin", Tile, V, Elementwise, Dps, "t t | t", ALL, BOTH, "min where both valid, else copy the valid input";
    TPartMul: "pto.tpartmul", Tile, V, Elementwise, Dps, "t t | t", ALL, BOTH, "multiply where both valid, else copy the valid input";

    // ── tile: tile-scalar and immediate ──
    TAdds: "pto.tadds", Tile, V, Elementwise, Dps, "t s | t", STD, BOTH, "tile plus scalar";
    TSubs: "pto.tsubs", Tile, V, Elementwise, Dps, "t s | t", STD, BOTH, "tile minus scalar";
    TMuls: "pto.tmuls", Tile, V, Elementwise, Dps, "t s | t", STD, BOTH, "tile times scalar";
    TDivs: "pto.tdivs", Tile, V, Elementwise, Dps, "x x | t", ANY, BOTH, "tile / scalar or scalar / tile (operand order decides)";
    TMaxs: "pto.tmaxs", Tile, V, Elementwise, Dps, "t s | t", STD, BOTH, "maximum with a scalar";
    TMins: "pto.tmins", Tile, V, Elementwise, Dps, "t s | t", STD, BOTH, "minimum with a scalar";
    TAnds: "pto.tands", Tile, V, Elementwise, Dps, "t s | t", INT, BOTH, "bitwise and with a scalar";
    TOrs: "pto.tors", Tile, V, Elementwise, Dps, "t s | t", INT, BOTH, "bitwise or with a scalar";
    TXors: "pto.txors", Tile, V, Elementwise, Dps, "t s t? | t", INT, BOTH, "bitwise xor with a scalar, optional scratch tile";
    TShls: "pto.tshls", Tile, V, Elementwise, Dps, "t s | t", INT64, BOTH, "shift left by a scalar count";
    TShrs: "pto.tshrs", Tile, V, Elementwise, Dps, "t s | t", INT64, BOTH, "shift right by a scalar count";
    TRems: "pto.trems", Tile, V, Elementwise, Dps, "t s t? | t", ALL, BOTH, "remainder by a scalar (divisor's sign)";
    TFmods: "pto.tfmods", Tile, V, Elementwise, Dps, "t s | t", ALL, BOTH, "fmod by a scalar (dividend's sign)";
    TPows: "pto.tpows", Tile, V, Elementwise, Dps, "t s t? | t", ALL, BOTH, "tile raised to a scalar exponent";
    TLrelu: "pto.tlrelu", Tile, V, Elementwise, Dps, "t s | t", FPBF, BOTH, "leaky ReLU with scalar slope";
    TAxpy: "pto.taxpy", Tile, V, Elementwise, Dps, "t s | t", ALL, BOTH, "dst = s * src + dst";
    TAddsc: "pto.taddsc", Tile, V, Elementwise, Dps, "t s t | t", STD, BOTH, "a + s + b";
    TSubsc: "pto.tsubsc", Tile, V, Elementwise, Dps, "t s t | t", STD, BOTH, "a - s + b";
    TCmps: "pto.tcmps", Tile, V, Elementwise, Dps, "t x | t", ALL, BOTH, "compare with a scalar into a packed bit mask";
    TSels: "pto.tsels", Tile, V, Elementwise, Dps, "t t t? s | t", ANY, BOTH, "select between two tiles by a scalar mode";
    TExpands: "pto.texpands", Tile, BYLOC, Elementwise, Dps, "s | t", ANY, BOTH, "broadcast a scalar into every element";

    // ── tile: reductions and broadcasts ──
    TRowSum: "pto.trowsum", Tile, V, Reduce, Dps, "t t? | t", ALL, BOTH, "sum of each row";
    TRowMax: "pto.trowmax", Tile, V, Reduce, Dps, "t t? | t", ALL, BOTH, "maximum of each row";
    TRowMin: "pto.trowmin", Tile, V, Reduce, Dps, "t t? | t", ALL, BOTH, "minimum of each row";
    TRowProd: "pto.trowprod", Tile, V, Reduce, Dps, "t t? | t", ALL, BOTH, "product of each row";
    TColSum: "pto.tcolsum", Tile, V, Reduce, Dps, "t t? | t", ALL, BOTH, "sum of each column";
    TColMax: "pto.tcolmax", Tile, V, Reduce, Dps, "t | t", ALL, BOTH, "maximum of each column";
    TColMin: "pto.tcolmin", Tile, V, Reduce, Dps, "t | t", ALL, BOTH, "minimum of each column";
    TColProd: "pto.tcolprod", Tile, V, Reduce, Dps, "t | t", ALL, BOTH, "product of each column";
    TRowArgMax: "pto.trowargmax", Tile, V, Reduce, Dps, "t t? | t", ALL, BOTH, "column index of each row's maximum";
    TRowArgMin: "pto.trowargmin", Tile, V, Reduce, Dps, "t t? | t", ALL, BOTH, "column index of each row's minimum";
    TColArgMax: "pto.tcolargmax", Tile, V, Reduce, Dps, "t t? | t", ALL, BOTH, "row index of each column's maximum";
    TColArgMin: "pto.tcolargmin", Tile, V, Reduce, Dps, "t t? | t", ALL, BOTH, "row index of each column's minimum";
    TRowExpand: "pto.trowexpand", Tile, V, Reduce, Dps, "t | t", ALL, BOTH, "broadcast the first element of each row across the row";
    TColExpand: "pto.tcolexpand", Tile, V, Reduce, Dps, "t | t", ALL, BOTH, "broadcast the first element of each column down the column";
    TRowExpandAdd: "pto.trowexpandadd", Tile, V, Reduce, Dps, "t t t? | t", ALL, BOTH, "add a per-row value to each row";
    TRowExpandSub: "pto.trowexpandsub", Tile, V, Reduce, Dps, "t t t? | t", ALL, BOTH, "subtract a per-row value from each row";
    TRowExpandMul: "pto.trowexpandmul", Tile, V, Reduce, Dps, "t t t? | t", ALL, BOTH, "multiply each row by a per-row value";
    TRowExpandDiv: "pto.trowexpanddiv", Tile, V, Reduce, Dps, "t t t? | t", ALL, BOTH, "divide each row by a per-row value";
    TRowExpandMax: "pto.trowexpandmax", Tile, V, Reduce, Dps, "t t t? | t", ALL, BOTH, "max of each element and its row value";
    TRowExpandMin: "pto.trowexpandmin", Tile, V, Reduce, Dps, "t t t? | t", ALL, BOTH, "min of each element and its row value";
    TRowExpandExpdif: "pto.trowexpandexpdif", Tile, V, Reduce, Dps, "t t t? | t", FP, BOTH, "exp(x - row value) per element";
    TColExpandAdd: "pto.tcolexpandadd", Tile, V, Reduce, Dps, "t t | t", ALL, BOTH, "add a per-column value to each column";
    TColExpandSub: "pto.tcolexpandsub", Tile, V, Reduce, Dps, "t t | t", ALL, BOTH, "subtract a per-column value from each column";
    TColExpandMul: "pto.tcolexpandmul", Tile, V, Reduce, Dps, "t t | t", ALL, BOTH, "multiply each column by a per-column value";
    TColExpandDiv: "pto.tcolexpanddiv", Tile, V, Reduce, Dps, "t t | t", ALL, BOTH, "divide each column by a per-column value";
    TColExpandMax: "pto.tcolexpandmax", Tile, V, Reduce, Dps, "t t | t", ALL, BOTH, "max of each element and its column value";
    TColExpandMin: "pto.tcolexpandmin", Tile, V, Reduce, Dps, "t t | t", ALL, BOTH, "min of each element and its column value";
    TColExpandExpdif: "pto.tcolexpandexpdif", Tile, V, Reduce, Dps, "t t | t", FP, BOTH, "exp(x - column value) per element";
    TPairReduceSum: "pto.tpairreducesum", Tile, V, Reduce, Dps, "t | t", FP, BOTH, "sum adjacent pairs into the lower half, zero the rest";

    // ── tile: GM <-> tile memory ──
    TLoad: "pto.tload", Tile, MTE2, TileMemory, Dps, "g | t", ANY, BOTH, "copy a GM window into a tile's valid region";
    TStore: "pto.tstore", Tile, BYLOC, TileMemory, Dps, "t x? i? | g", ANY, BOTH, "copy a tile to GM, optional quant/relu/atomic";
    TStoreFp: "pto.tstore.fp", Tile, FIX, TileMemory, Dps, "t t | g", ANY, BOTH, "accumulator tile to GM with vector quant parameters";
    TPrefetch: "pto.tprefetch", Tile, MTE2, TileMemory, Dps, "g | t", ANY, BOTH, "prefetch a GM window into a tile";
    TPrefetchAsync: "pto.tprefetch_async", Tile, NONE, TileMemory, Generic, "g x -> e", ANY, BOTH, "asynchronous GM to L2 prefetch, returns an event";
    MakePrefetchAsyncContext: "pto.make_prefetch_async_context", View, NONE, View, Generic, "p -> x", ANY, BOTH, "build a prefetch context from a GM workspace";
    GetPrefetchAsyncSession: "pto.get_prefetch_async_session", View, NONE, View, Generic, "x -> e", ANY, BOTH, "session handle of a prefetch context";
    MGather: "pto.mgather", Tile, BYLOC, TileMemory, Dps, "g x x? | t", ANY, BOTH, "gather GM elements or rows by an index tile (or GM indices into an NZ mat tile)";
    MScatter: "pto.mscatter", Tile, BYLOC, TileMemory, Dps, "t t | g", ANY, BOTH, "scatter tile elements or rows into GM by index";

    // ── tile: matrix multiply ──
    TMatmul: "pto.tmatmul", Tile, M, Matmul, Dps, "t t | t -> t?", MATMUL, BOTH, "C = A * B over the valid M, K, N";
    TMatmulAcc: "pto.tmatmul.acc", Tile, M, Matmul, Dps, "t t t | t -> t?", MATMUL, BOTH, "C = C_in + A * B";
    TMatmulBias: "pto.tmatmul.bias", Tile, M, Matmul, Dps, "t t t | t -> t?", MATMUL, BOTH, "C = A * B + bias row";
    TMatmulMx: "pto.tmatmul.mx", Tile, M, Matmul, Dps, "t t t t | t -> t?", MX, BOTH, "block-scaled (MX) matmul";
    TMatmulMxAcc: "pto.tmatmul.mx.acc", Tile, M, Matmul, Dps, "t t t t t | t -> t?", MX, BOTH, "block-scaled matmul accumulating into C";
    TMatmulMxBias: "pto.tmatmul.mx.bias", Tile, M, Matmul, Dps, "t t t t t | t -> t?", MX, BOTH, "block-scaled matmul plus bias";
    TGemv: "pto.tgemv", Tile, M, Matmul, Dps, "t t | t -> t?", MATMUL, BOTH, "matrix-vector product (M = 1)";
    TGemvAcc: "pto.tgemv.acc", Tile, M, Matmul, Dps, "t t t | t -> t?", MATMUL, BOTH, "matrix-vector product accumulating into C";
    TGemvBias: "pto.tgemv.bias", Tile, M, Matmul, Dps, "t t t | t -> t?", MATMUL, BOTH, "matrix-vector product plus bias";
    TGemvMx: "pto.tgemv.mx", Tile, M, Matmul, Dps, "t t t t | t -> t?", MX, BOTH, "block-scaled matrix-vector product";
    TGemvMxAcc: "pto.tgemv.mx.acc", Tile, M, Matmul, Dps, "t t t t t | t -> t?", MX, BOTH, "block-scaled matrix-vector product, accumulating";
    TGemvMxBias: "pto.tgemv.mx.bias", Tile, M, Matmul, Dps, "t t t t t | t -> t?", MX, BOTH, "block-scaled matrix-vector product plus bias";

    // ── tile: layout and rearrangement ──
    TMov: "pto.tmov", Tile, BYLOC, Layout, Dps, "t x? i? | t -> t?", ANY, BOTH, "move between tile roles/layouts, optional conversion";
    TMovFp: "pto.tmov.fp", Tile, FIX, Layout, Dps, "t t | t", ANY, BOTH, "accumulator move with vector quant parameters";
    TExtract: "pto.textract", Tile, BYLOC, Layout, Dps, "t i i x? | t", ANY, BOTH, "extract a sub-tile at (row, col)";
    TExtractFp: "pto.textract.fp", Tile, FIX, Layout, Dps, "t t i i | t", ANY, BOTH, "extract a sub-tile with quant parameters";
    TInsert: "pto.tinsert", Tile, BYLOC, Layout, Dps, "t i i x? i? | t", ANY, BOTH, "write a sub-tile into dst at (row, col)";
    TInsertFp: "pto.tinsert.fp", Tile, FIX, Layout, Dps, "t t i i | t", ANY, BOTH, "insert a sub-tile with quant parameters";
    TReshape: "pto.treshape", Tile, S, Layout, Generic, "t -> t", ANY, BOTH, "reinterpret tile bytes with a new shape";
    TTrans: "pto.ttrans", Tile, V, Layout, Dps, "t t? | t", ANY, BOTH, "2-D transpose";
    TConcat: "pto.tconcat", Tile, V, Layout, Dps, "t t | t", ANY, BOTH, "concatenate two tiles along columns";
    TConcatIdx: "pto.tconcatidx", Tile, V, Layout, Dps, "t t t t | t", ANY, BOTH, "column concatenation with per-row index control";
    TFillPad: "pto.tfillpad", Tile, BYLOC, Layout, Dps, "t | t", ANY, BOTH, "fill outside the valid region with the pad value";
    TFillPadInplace: "pto.tfillpad_inplace", Tile, BYLOC, Layout, Dps, "t | t", ANY, BOTH, "pad fill in place";
    TFillPadExpand: "pto.tfillpad_expand", Tile, BYLOC, Layout, Dps, "t | t", ANY, BOTH, "pad fill into a larger destination";
    TImg2col: "pto.timg2col", Tile, MTE1, Layout, Dps, "t i? i? | t", ANY, BOTH, "image-to-column transform for convolution";
    TPack: "pto.tpack", Tile, V, Layout, Dps, "t | t", ANY, BOTH, "pack elements into a narrower representation";
    TInterleave: "pto.tinterleave", Tile, V, Layout, Dps, "t t | t t", ANY, BOTH, "interleave even/odd elements of two tiles";
    TDeinterleave: "pto.tdeinterleave", Tile, V, Layout, Dps, "t t? | t t", ANY, BOTH, "split even/odd elements into two tiles";
    TBitcast: "pto.bitcast", Tile, NONE, Layout, Generic, "t -> t", ANY, BOTH, "reinterpret tile elements as another dtype";

    // ── tile: irregular and complex ──
    TCi: "pto.tci", Tile, S, Irregular, Dps, "s t? | t", ANY, BOTH, "fill with an arithmetic index sequence";
    TGather: "pto.tgather", Tile, V, Irregular, Dps, "t x* | t t?", ANY, BOTH, "gather by index tile, compare, or mask pattern";
    TGatherb: "pto.tgatherb", Tile, V, Irregular, Dps, "t t | t", ANY, BOTH, "gather by byte offsets";
    TScatter: "pto.tscatter", Tile, V, Irregular, Dps, "t t? | t", ANY, BOTH, "scatter elements to flat indices or by mask pattern";
    THistogram: "pto.thistogram", Tile, V, Irregular, Dps, "t t | t", ANY, A5, "per-row 256-bin byte histogram";
    TMrgSort: "pto.tmrgsort", Tile, V, Irregular, Dps, "t x* | t x?", ANY, BOTH, "merge sorted lists, optionally reporting progress";
    TSort32: "pto.tsort32", Tile, V, Irregular, Dps, "t t t? | t", ANY, BOTH, "sort 32-element blocks with their indices";
    TQuant: "pto.tquant", Tile, V, Irregular, Dps, "t t t? t? | t t?", ANY, BOTH, "quantize with per-group scale tiles";
    TQuantMx: "pto.tquant.mx", Tile, V, Irregular, Dps, "t | t t t t t?", ANY, A5, "quantize to MX formats with exponent/max/scale tiles";
    TDequant: "pto.tdequant", Tile, V, Irregular, Dps, "t t t | t", ANY, BOTH, "(x - offset_row) * scale_row";
    TRandom: "pto.trandom", Tile, V, Irregular, Dps, "x x x* | t", ANY, BOTH, "counter-based random numbers from key/counter words";
    TPartArgMax: "pto.tpartargmax", Tile, V, Irregular, Dps, "t t t t | t t", ANY, BOTH, "partial max with index output";
    TPartArgMin: "pto.tpartargmin", Tile, V, Irregular, Dps, "t t t t | t t", ANY, BOTH, "partial min with index output";
    TPrint: "pto.tprint", Tile, NONE, Misc, Dps, "x x? |", ANY, BOTH, "debug print a tile or GM view";
    TTri: "pto.ttri", Tile, V, Irregular, Dps, "i | t", ANY, BOTH, "0/1 upper or lower triangular mask";
    TSetval: "pto.tsetval", Tile, S, Irregular, Dps, "i s | t", ANY, BOTH, "write one scalar element at a linear offset";
    TGetval: "pto.tgetval", Tile, S, Irregular, Dps, "t i | -> s", ANY, BOTH, "read one element at a linear offset";
    TGetScaleAddr: "pto.tget_scale_addr", Tile, S, Config, Dps, "t | t", ANY, A5, "bind a scale tile to src address >> 4";

    // ── tile: sync and config ──
    TSync: "pto.tsync", Tile, NAMED, Sync, Dps, "x* |", ANY, BOTH, "wait on events or barrier one op class";
    TAssign: "pto.tassign", Tile, S, Config, Generic, "t i -> t", ANY, BOTH, "bind a tile to an on-chip byte address";
    TAlias: "pto.talias", Tile, NONE, View, Generic, "t -> t", ANY, BOTH, "alias view sharing the source storage";
    Setfmatrix: "pto.setfmatrix", Tile, S, Config, Generic, "x*", ANY, BOTH, "program the FMATRIX registers for img2col";
    SetImg2colRpt: "pto.set_img2col_rpt", Tile, S, Config, Generic, "x*", ANY, BOTH, "set the img2col repeat register";
    SetImg2colPadding: "pto.set_img2col_padding", Tile, S, Config, Generic, "x*", ANY, BOTH, "set the img2col padding register";
    Sethf32mode: "pto.sethf32mode", Tile, S, Config, Generic, "x*", ANY, A5, "set cube HF32 mode";
    Settf32mode: "pto.settf32mode", Tile, S, Config, Generic, "x*", ANY, A5, "set cube TF32 mode";
    SetQuantScalar: "pto.set_quant_scalar", Tile, S, Config, Generic, "s", ANY, BOTH, "set the scalar quant parameter for later pushes";
    SetQuantVector: "pto.set_quant_vector", Tile, S, Config, Generic, "t", ANY, BOTH, "set the per-channel quant vector for later pushes";

    // ── view / tile-buffer / descriptor IR ops (PTOAS frontend; no data movement) ──
    AllocTile: "pto.alloc_tile", View, NONE, View, Generic, "i? i? i? -> t", ANY, BOTH, "declare a tile buffer, optional address and valid shape";
    AllocMultiTile: "pto.alloc_multi_tile", View, NONE, View, Generic, "i? i? i? -> t", ANY, BOTH, "declare an N-slot multi-buffer tile";
    MultiTileGet: "pto.multi_tile_get", View, NONE, View, Generic, "t i -> t", ANY, BOTH, "select one slot of a multi-buffer tile";
    DeclareTile: "pto.declare_tile", View, NONE, View, Generic, "-> t", ANY, BOTH, "declare a tile whose address is bound later";
    DeclareTileMemref: "pto.declare_tile_memref", View, NONE, View, Generic, "-> x", ANY, BOTH, "legacy: declare a memref-backed tile";
    DeclareGlobal: "pto.declare_global", View, NONE, View, Generic, "-> g", ANY, BOTH, "declare a GM descriptor bound later";
    BindTile: "pto.bind_tile", View, NONE, View, Generic, "x i? i? -> x", ANY, BOTH, "legacy: bind tile config to a buffer";
    PointerCast: "pto.pointer_cast", View, NONE, View, Generic, "i* -> x", ANY, BOTH, "legacy: make a buffer from raw addresses";
    MakeTensorView: "pto.make_tensor_view", View, NONE, View, Generic, "p i* -> g", ANY, BOTH, "wrap a GM pointer as a shaped, strided view";
    PartitionView: "pto.partition_view", View, NONE, View, Generic, "g i* -> g", ANY, BOTH, "sub-window of a tensor view";
    GetTensorViewDim: "pto.get_tensor_view_dim", View, NONE, View, Generic, "g i -> i", ANY, BOTH, "runtime size of one view dimension";
    GetTensorViewStride: "pto.get_tensor_view_stride", View, NONE, View, Generic, "g i -> i", ANY, BOTH, "runtime stride of one view dimension";
    TensorViewAddr: "pto.tensor_view_addr", View, NONE, View, Generic, "g -> x", ANY, BOTH, "base pointer of a tensor view";
    TileBufAddr: "pto.tile_buf_addr", View, NONE, View, Generic, "t -> x", ANY, BOTH, "UB pointer of a tile (inside a vector scope)";
    Subview: "pto.subview", View, NONE, View, Generic, "x i* -> x", ANY, BOTH, "sub-tile view at runtime offsets, no copy";
    Subset: "pto.subset", View, NONE, View, Generic, "t i* -> t", ANY, BOTH, "strided sub-tile view at runtime offsets";
    SetValidshape: "pto.set_validshape", View, NONE, View, Generic, "t i i", ANY, BOTH, "set a dynamic tile's valid rows and columns";
    GetValidshape: "pto.get_validshape", View, NONE, View, Generic, "t -> i i", ANY, BOTH, "read a tile's valid rows and columns";
    TileValidRows: "pto.tile_valid_rows", View, NONE, View, Generic, "t -> i", ANY, BOTH, "valid row count of a tile";
    TileValidCols: "pto.tile_valid_cols", View, NONE, View, Generic, "t -> i", ANY, BOTH, "valid column count of a tile";

    // ── system: cube <-> vector FIFOs and pipe handles ──
    TPush: "pto.tpush", System, BYLOC, Fifo, Generic, "x e i?", ANY, BOTH, "push a tile or GM entry into a pipe FIFO slot";
    TPop: "pto.tpop", System, BYLOC, Fifo, Generic, "x e i?", ANY, BOTH, "bind a consumer tile to the next FIFO slot";
    TFree: "pto.tfree", System, S, Fifo, Generic, "x? e", ANY, BOTH, "release the consumer's current FIFO slot";
    TAlloc: "pto.talloc", System, S, Fifo, Generic, "g e", ANY, BOTH, "reserve the next producer slot as a GM view";
    TPushToAiv: "pto.tpush_to_aiv", System, BYLOC, Fifo, Generic, "x i?", ANY, BOTH, "cube-side push of a tile to the vector core";
    TPushToAic: "pto.tpush_to_aic", System, BYLOC, Fifo, Generic, "x i?", ANY, BOTH, "vector-side push of a tile to the cube core";
    TPopFromAic: "pto.tpop_from_aic", System, BYLOC, Fifo, Generic, "i? i? i? -> x", ANY, BOTH, "vector-side pop of a tile pushed by the cube";
    TPopFromAiv: "pto.tpop_from_aiv", System, BYLOC, Fifo, Generic, "i? i? -> x", ANY, BOTH, "cube-side pop of a tile pushed by the vector core";
    TFreeFromAic: "pto.tfree_from_aic", System, S, Fifo, Generic, "x?", ANY, BOTH, "vector-side release of a popped cube slot";
    TFreeFromAiv: "pto.tfree_from_aiv", System, S, Fifo, Generic, "x?", ANY, BOTH, "cube-side release of a popped vector slot";
    TAllocToAiv: "pto.talloc_to_aiv", System, S, Fifo, Generic, "-> g", ANY, BOTH, "cube-side reservation of a GM FIFO entry for the vector core";
    TAllocToAic: "pto.talloc_to_aic", System, S, Fifo, Generic, "-> g", ANY, BOTH, "vector-side reservation of a GM FIFO entry for the cube";
    AicInitializePipe: "pto.aic_initialize_pipe", System, NONE, Fifo, Generic, "x*", ANY, BOTH, "cube-kernel FIFO initialisation";
    AivInitializePipe: "pto.aiv_initialize_pipe", System, NONE, Fifo, Generic, "x*", ANY, BOTH, "vector-kernel FIFO initialisation";
    InitializeL2g2lPipe: "pto.initialize_l2g2l_pipe", System, NONE, Fifo, Generic, "x x? x? -> e", ANY, BOTH, "create a local-GM-local pipe handle";
    InitializeL2lPipe: "pto.initialize_l2l_pipe", System, NONE, Fifo, Generic, "x x? -> e", ANY, BOTH, "create a local-to-local pipe handle";
    ReserveBuffer: "pto.reserve_buffer", System, NONE, Fifo, Generic, "-> i", ANY, BOTH, "reserve a named local consumer slot buffer";
    ImportReservedBuffer: "pto.import_reserved_buffer", System, NONE, Fifo, Generic, "-> i", ANY, BOTH, "import a peer function's reserved buffer";
    SetFfts: "pto.set_ffts", System, S, Sync, Generic, "p", ANY, BOTH, "set the FFTS flag base pointer";

    // ── comm: inter-rank communication (GM <-> GM, signals, collectives) ──
    CommTput: "pto.comm.tput" ["pto.tput"], Comm, NONE, Comm, Generic, "x x x x?", ANY, BOTH, "remote write staged through UB ping/pong tiles";
    CommTget: "pto.comm.tget" ["pto.tget"], Comm, NONE, Comm, Generic, "x x x x?", ANY, BOTH, "remote read staged through UB ping/pong tiles";
    CommTputAsync: "pto.comm.tput_async" ["pto.tput_async"], Comm, NONE, Comm, Generic, "x x e -> e", ANY, BOTH, "asynchronous GM to remote GM write";
    CommTgetAsync: "pto.comm.tget_async" ["pto.tget_async"], Comm, NONE, Comm, Generic, "x x e -> e", ANY, BOTH, "asynchronous remote GM to GM read";
    CommBuildAsyncSession: "pto.comm.build_async_session" ["pto.build_async_session"], Comm, NONE, Comm, Generic, "x x -> e", ANY, BOTH, "create an async DMA session handle";
    CommWaitAsyncEvent: "pto.comm.wait_async_event" ["pto.wait_async_event"], Comm, NONE, Comm, Generic, "e e -> i", ANY, BOTH, "block until an async transfer completes";
    CommTestAsyncEvent: "pto.comm.test_async_event" ["pto.test_async_event"], Comm, NONE, Comm, Generic, "e e -> i", ANY, BOTH, "poll an async transfer without blocking";
    CommTnotify: "pto.comm.tnotify" ["pto.tnotify"], Comm, NONE, Comm, Generic, "x i", ANY, BOTH, "set or atomically add a remote i32 signal";
    CommTwait: "pto.comm.twait" ["pto.twait"], Comm, NONE, Comm, Generic, "x i", ANY, BOTH, "block until signals satisfy a comparison";
    CommTtest: "pto.comm.ttest" ["pto.ttest"], Comm, NONE, Comm, Generic, "x i -> i", ANY, BOTH, "non-blocking signal comparison";
    CommTbroadcast: "pto.comm.tbroadcast" ["pto.tbroadcast"], Comm, NONE, Comm, Generic, "x x x? x*", ANY, BOTH, "root copies data to every group member";
    CommTgather: "pto.comm.tgather", Comm, NONE, Comm, Generic, "x x x? x*", ANY, BOTH, "concatenate rows from every group member";
    CommTscatter: "pto.comm.tscatter", Comm, NONE, Comm, Generic, "x x x? x*", ANY, BOTH, "split rows across group members";
    CommTreduce: "pto.comm.treduce" ["pto.treduce"], Comm, NONE, Comm, Generic, "x x x x? x*", ANY, BOTH, "element-wise reduction across group members";

    // ── scalar/control: pipeline and cross-core synchronisation ──
    SetFlag: "pto.set_flag", Scalar, NAMED, Sync, Bracket, "", ANY, BOTH, "signal event (src pipe, dst pipe, id)";
    WaitFlag: "pto.wait_flag", Scalar, NAMED, Sync, Bracket, "", ANY, BOTH, "stall the dst pipe until (src, dst, id) is signalled";
    SetFlagDyn: "pto.set_flag_dyn", Scalar, NAMED, Sync, Bracket, "i", ANY, BOTH, "set_flag with a runtime event id";
    WaitFlagDyn: "pto.wait_flag_dyn", Scalar, NAMED, Sync, Bracket, "i", ANY, BOTH, "wait_flag with a runtime event id";
    RecordEvent: "pto.record_event", Scalar, NAMED, Sync, Bracket, "", ANY, BOTH, "signal an event between two op classes";
    WaitEvent: "pto.wait_event", Scalar, NAMED, Sync, Bracket, "", ANY, BOTH, "wait for an event between two op classes";
    GetBuf: "pto.get_buf", Scalar, NAMED, Sync, Bracket, "i*", ANY, BOTH, "acquire a buffer-id token for a pipe";
    RlsBuf: "pto.rls_buf", Scalar, NAMED, Sync, Bracket, "i*", ANY, BOTH, "release a buffer-id token for a pipe";
    GetBufDyn: "pto.get_buf_dyn", Scalar, NAMED, Sync, Generic, "i", ANY, BOTH, "acquire a buffer-id token with a runtime id";
    RlsBufDyn: "pto.rls_buf_dyn", Scalar, NAMED, Sync, Generic, "i", ANY, BOTH, "release a buffer-id token with a runtime id";
    Barrier: "pto.barrier" ["pto.pipe_barrier"], Scalar, NAMED, Sync, Generic, "", ANY, BOTH, "drain all earlier work of one pipe";
    BarrierSync: "pto.barrier_sync", Scalar, NAMED, Sync, Generic, "", ANY, BOTH, "pipe barrier named by an op class";
    MemBar: "pto.mem_bar", Scalar, V, Sync, Generic, "", ANY, BOTH, "order aliased UB vector loads and stores in a vector scope";
    SyncSet: "pto.sync.set", Scalar, NAMED, Sync, Generic, "i?", ANY, BOTH, "raise a cube <-> vector FFTS flag";
    SyncWait: "pto.sync.wait", Scalar, NAMED, Sync, Generic, "i?", ANY, BOTH, "wait for a cube <-> vector FFTS flag";
    SetCrossBlock: "pto.set_cross_block", Scalar, NAMED, Sync, Generic, "i?", ANY, BOTH, "signal a cross-block flag";
    WaitCrossBlock: "pto.wait_cross_block", Scalar, NAMED, Sync, Generic, "i?", ANY, BOTH, "wait for a cross-block flag";
    SetIntraBlock: "pto.set_intra_block", Scalar, NAMED, Sync, Generic, "i?", ANY, BOTH, "signal a per-subblock semaphore";
    WaitIntraBlock: "pto.wait_intra_block" ["pto.wait_intra_core"], Scalar, NAMED, Sync, Generic, "i?", ANY, BOTH, "wait on a per-subblock semaphore";
    SetCrossCore: "pto.set_cross_core", Scalar, S, Sync, Generic, "i*", ANY, A2A3, "A2/A3 cube <-> vector semaphore signal";
    WaitFlagDev: "pto.wait_flag_dev", Scalar, S, Sync, Generic, "i*", ANY, A2A3, "A2/A3 semaphore wait; stalls the whole core";
    Syncall: "pto.syncall", Scalar, S, Sync, Generic, "x? i?", ANY, BOTH, "all-core barrier (hardware or GM polling)";
    FenceBarrierAll: "pto.fence.barrier_all", Scalar, S, Sync, Generic, "", ANY, BOTH, "memory fence for a visibility scope";
    CmoCacheinvalid: "pto.cmo.cacheinvalid", Scalar, S, Sync, Generic, "x?", ANY, BOTH, "invalidate data cache lines for a memory space";
    Dsb: "pto.dsb", Scalar, S, Sync, Generic, "", ANY, BOTH, "data synchronisation barrier";
    Dcci: "pto.dcci", Scalar, S, Sync, Generic, "p", ANY, BOTH, "clean/invalidate data cache";

    // ── scalar/control: DMA (GM <-> UB, UB <-> UB, UB -> L1) and loop registers ──
    MteGmUb: "pto.mte_gm_ub" ["pto.copy_gm_to_ubuf"], Scalar, MTE2, Dma, Generic, "p p i i i i i s*", ANY, BOTH, "grouped strided GM -> UB copy, optional row pad";
    MteUbGm: "pto.mte_ub_gm" ["pto.copy_ubuf_to_gm"], Scalar, MTE3, Dma, Generic, "p p i i i i i*", ANY, BOTH, "grouped strided UB -> GM copy";
    MteUbUb: "pto.mte_ub_ub" ["pto.copy_ubuf_to_ubuf"], Scalar, V, Dma, Generic, "p p i i i i i?", ANY, BOTH, "UB -> UB burst copy in 32-byte units";
    MteUbL1: "pto.mte_ub_l1", Cube, MTE3, Cube, Generic, "x x i i i i", ANY, BOTH, "UB -> L1 burst copy in 32-byte units";
    SetLoopSizeOuttoub: "pto.set_loop_size_outtoub", Scalar, S, Dma, Generic, "i i", ANY, BOTH, "loop1/loop2 counts for GM -> UB DMA";
    SetLoop1StrideOuttoub: "pto.set_loop1_stride_outtoub", Scalar, S, Dma, Generic, "i i", ANY, BOTH, "loop1 src/dst strides for GM -> UB DMA";
    SetLoop2StrideOuttoub: "pto.set_loop2_stride_outtoub", Scalar, S, Dma, Generic, "i i", ANY, BOTH, "loop2 src/dst strides for GM -> UB DMA";
    SetLoopSizeUbtoout: "pto.set_loop_size_ubtoout", Scalar, S, Dma, Generic, "i i", ANY, BOTH, "loop1/loop2 counts for UB -> GM DMA";
    SetLoop1StrideUbtoout: "pto.set_loop1_stride_ubtoout", Scalar, S, Dma, Generic, "i i", ANY, BOTH, "loop1 src/dst strides for UB -> GM DMA";
    SetLoop2StrideUbtoout: "pto.set_loop2_stride_ubtoout", Scalar, S, Dma, Generic, "i i", ANY, BOTH, "loop2 src/dst strides for UB -> GM DMA";
    SetLoopSizeOuttol1: "pto.set_loop_size_outtol1", Scalar, S, Dma, Generic, "i", ANY, BOTH, "loop counts for GM -> L1 DMA";
    SetLoop1StrideOuttol1: "pto.set_loop1_stride_outtol1", Scalar, S, Dma, Generic, "i", ANY, BOTH, "loop1 strides for GM -> L1 DMA";
    SetLoop2StrideOuttol1: "pto.set_loop2_stride_outtol1", Scalar, S, Dma, Generic, "i", ANY, BOTH, "loop2 strides for GM -> L1 DMA";
    SetLoop3Para: "pto.set_loop3_para", Scalar, S, Dma, Generic, "i i", ANY, BOTH, "FIXPIPE LOOP3_PARA (write-back repeat count and strides)";
    SetChannelPara: "pto.set_channel_para", Scalar, S, Dma, Generic, "i i", ANY, BOTH, "FIXPIPE CHANNEL_PARA (nz2dn loop0 source stride)";
    SetMte2NzPara: "pto.set_mte2_nz_para", Scalar, S, Dma, Generic, "i", ANY, BOTH, "ND -> NZ repack parameters for GM -> L1 DMA";
    SetPadValOuttol1: "pto.set_pad_val_outtol1", Scalar, S, Dma, Generic, "i", ANY, BOTH, "pad value for GM -> L1 DMA";
    SetMovPadVal: "pto.set_mov_pad_val", Scalar, S, Dma, Generic, "x", ANY, BOTH, "pad value for GM -> UB DMA";

    // ── scalar/control: predicate (mask) loads and stores ──
    Plds: "pto.plds", Scalar, V, Predicate, Generic, "p i -> m p?", ANY, BOTH, "load a predicate from UB at a register offset";
    Pld: "pto.pld", Scalar, V, Predicate, Generic, "p i? -> m", ANY, BOTH, "load a predicate from UB";
    Pldi: "pto.pldi", Scalar, V, Predicate, Generic, "p i -> m p?", ANY, BOTH, "load a predicate from UB at an immediate offset";
    Psts: "pto.psts", Scalar, V, Predicate, Generic, "m p i -> p?", ANY, BOTH, "store a predicate to UB at a register offset";
    Pst: "pto.pst", Scalar, V, Predicate, Generic, "m p i?", ANY, BOTH, "store a predicate to UB";
    Psti: "pto.psti", Scalar, V, Predicate, Generic, "m p i -> p?", ANY, BOTH, "store a predicate to UB at an immediate offset";
    Pstu: "pto.pstu", Scalar, V, Predicate, Generic, "a m p -> a p", ANY, BOTH, "streaming unaligned predicate store";

    // ── scalar/control: predicate generation and algebra ──
    PsetB8: "pto.pset_b8", Scalar, V, Predicate, Generic, "-> m", ANY, BOTH, "static 8-bit-granule mask pattern";
    PsetB16: "pto.pset_b16", Scalar, V, Predicate, Generic, "-> m", ANY, BOTH, "static 16-bit-granule mask pattern";
    PsetB32: "pto.pset_b32", Scalar, V, Predicate, Generic, "-> m", ANY, BOTH, "static 32-bit-granule mask pattern";
    PgeB8: "pto.pge_b8", Scalar, V, Predicate, Generic, "-> m", ANY, BOTH, "8-bit-granule pattern-token mask";
    PgeB16: "pto.pge_b16", Scalar, V, Predicate, Generic, "-> m", ANY, BOTH, "16-bit-granule pattern-token mask";
    PgeB32: "pto.pge_b32", Scalar, V, Predicate, Generic, "-> m", ANY, BOTH, "32-bit-granule pattern-token mask";
    PltB8: "pto.plt_b8", Scalar, V, Predicate, Generic, "i -> m i", ANY, BOTH, "first-n-lanes mask (8-bit), returns n minus lanes";
    PltB16: "pto.plt_b16", Scalar, V, Predicate, Generic, "i -> m i", ANY, BOTH, "first-n-lanes mask (16-bit), returns n minus lanes";
    PltB32: "pto.plt_b32", Scalar, V, Predicate, Generic, "i -> m i", ANY, BOTH, "first-n-lanes mask (32-bit), returns n minus lanes";
    PltmB8: "pto.pltm_b8", Scalar, V, Predicate, Generic, "i i -> m", ANY, BOTH, "lanes-below-limit mask (8-bit)";
    PltmB16: "pto.pltm_b16", Scalar, V, Predicate, Generic, "i i -> m", ANY, BOTH, "lanes-below-limit mask (16-bit)";
    PltmB32: "pto.pltm_b32", Scalar, V, Predicate, Generic, "i i -> m", ANY, BOTH, "lanes-below-limit mask (32-bit)";
    Pand: "pto.pand", Scalar, V, Predicate, Generic, "m m m -> m", ANY, BOTH, "gated predicate and";
    Por: "pto.por", Scalar, V, Predicate, Generic, "m m m -> m", ANY, BOTH, "gated predicate or";
    Pxor: "pto.pxor", Scalar, V, Predicate, Generic, "m m m -> m", ANY, BOTH, "gated predicate xor";
    Pnot: "pto.pnot", Scalar, V, Predicate, Generic, "m m -> m", ANY, BOTH, "gated predicate not";
    Psel: "pto.psel", Scalar, V, Predicate, Generic, "m m m m? -> m", ANY, BOTH, "bitwise predicate select";
    Ppack: "pto.ppack", Scalar, V, Predicate, Generic, "m -> m", ANY, BOTH, "place a predicate into one half, zero the other";
    Punpack: "pto.punpack", Scalar, V, Predicate, Generic, "m -> m", ANY, BOTH, "extract one half of a predicate";
    Pbitcast: "pto.pbitcast", Scalar, V, Predicate, Generic, "m -> m", ANY, BOTH, "reinterpret a predicate at another granularity";
    PintlvB8: "pto.pintlv_b8", Scalar, V, Predicate, Generic, "m m -> m m", ANY, BOTH, "interleave two 8-bit-granule predicates";
    PintlvB16: "pto.pintlv_b16", Scalar, V, Predicate, Generic, "m m -> m m", ANY, BOTH, "interleave two 16-bit-granule predicates";
    PintlvB32: "pto.pintlv_b32", Scalar, V, Predicate, Generic, "m m -> m m", ANY, BOTH, "interleave two 32-bit-granule predicates";
    PdintlvB8: "pto.pdintlv_b8", Scalar, V, Predicate, Generic, "m m -> m m", ANY, BOTH, "deinterleave two 8-bit-granule predicates";
    PdintlvB16: "pto.pdintlv_b16", Scalar, V, Predicate, Generic, "m m -> m m", ANY, BOTH, "deinterleave two 16-bit-granule predicates";
    PdintlvB32: "pto.pdintlv_b32", Scalar, V, Predicate, Generic, "m m -> m m", ANY, BOTH, "deinterleave two 32-bit-granule predicates";

    // ── scalar/control: micro-instruction shell (queries, pointers, scalar memory, scopes) ──
    GetBlockIdx: "pto.get_block_idx", Scalar, S, ScalarMemory, Generic, "-> i", ANY, BOTH, "this block's index in [0, block_num)";
    GetBlockNum: "pto.get_block_num", Scalar, S, ScalarMemory, Generic, "-> i", ANY, BOTH, "number of blocks in the launch";
    GetSubblockIdx: "pto.get_subblock_idx", Scalar, S, ScalarMemory, Generic, "-> i", ANY, BOTH, "this vector subblock's index";
    GetSubblockNum: "pto.get_subblock_num", Scalar, S, ScalarMemory, Generic, "-> i", ANY, BOTH, "number of vector subblocks per block";
    Castptr: "pto.castptr", Scalar, S, ScalarMemory, Generic, "x -> x", ANY, BOTH, "cast between integer address and typed pointer";
    Addptr: "pto.addptr", Scalar, S, ScalarMemory, Generic, "p i -> p", ANY, BOTH, "advance a pointer by an element offset";
    Ptrtoint: "pto.ptrtoint", Scalar, S, ScalarMemory, Generic, "p -> i", ANY, BOTH, "pointer to byte address";
    Inttoptr: "pto.inttoptr", Scalar, S, ScalarMemory, Generic, "i -> p", ANY, BOTH, "byte address to pointer";
    LoadScalar: "pto.load_scalar", Scalar, S, ScalarMemory, Generic, "p i -> s", ANY, BOTH, "load one scalar element from memory";
    StoreScalar: "pto.store_scalar", Scalar, S, ScalarMemory, Generic, "s p i", ANY, BOTH, "store one scalar element to memory";
    LdDev: "pto.ld_dev", Scalar, S, ScalarMemory, Generic, "p i -> s", ANY, BOTH, "load a GM scalar bypassing the data cache";
    StDev: "pto.st_dev", Scalar, S, ScalarMemory, Generic, "s p i", ANY, BOTH, "store a GM scalar bypassing the data cache";
    Vecscope: "pto.vecscope", Scalar, V, Control, Region, "", ANY, BOTH, "vector-function scope; vreg/mask/align live only inside";
    StrictVecscope: "pto.strict_vecscope", Scalar, V, Control, Region, "x*", ANY, BOTH, "vector scope with explicit captured values";
    SectionCube: "pto.section.cube", Scalar, NONE, Control, Region, "", ANY, BOTH, "code that runs only on the cube core";
    SectionVector: "pto.section.vector", Scalar, NONE, Control, Region, "", ANY, BOTH, "code that runs only on the vector cores";
    InitAlign: "pto.init_align", Scalar, V, ScalarMemory, Generic, "-> a", ANY, BOTH, "zeroed alignment state for an unaligned store stream";
    GetVms4Sr: "pto.get_vms4_sr", Scalar, V, ScalarMemory, Generic, "-> i i i i", ANY, BOTH, "read the merge-sort status register";
    GetCtrl: "pto.get_ctrl", Scalar, S, ScalarMemory, Generic, "-> i", ANY, BOTH, "read the control register";
    SetCtrl: "pto.set_ctrl", Scalar, S, Config, Generic, "i", ANY, BOTH, "write the control register";
    Sbitset0: "pto.sbitset0", Scalar, S, ScalarMemory, Generic, "i i -> i", ANY, BOTH, "clear one bit of a scalar";
    Sbitset1: "pto.sbitset1", Scalar, S, ScalarMemory, Generic, "i i -> i", ANY, BOTH, "set one bit of a scalar";
    SetStoreAtomicCfg: "pto.set_store_atomic_cfg", Scalar, S, Config, Generic, "i", ANY, BOTH, "configure atomic GM stores";
    SetAtomicAdd: "pto.set_atomic_add", Scalar, S, Config, Generic, "", ANY, BOTH, "subsequent GM stores atomically add";
    SetAtomicMax: "pto.set_atomic_max", Scalar, S, Config, Generic, "", ANY, BOTH, "subsequent GM stores atomically take max";
    SetAtomicMin: "pto.set_atomic_min", Scalar, S, Config, Generic, "", ANY, BOTH, "subsequent GM stores atomically take min";
    SetAtomicNone: "pto.set_atomic_none", Scalar, S, Config, Generic, "", ANY, BOTH, "disable atomic GM stores";
    SetAtomicF32: "pto.set_atomic_f32", Scalar, S, Config, Generic, "", ANY, BOTH, "atomic store element type f32";
    SetAtomicF16: "pto.set_atomic_f16", Scalar, S, Config, Generic, "", ANY, BOTH, "atomic store element type f16";
    SetAtomicBf16: "pto.set_atomic_bf16", Scalar, S, Config, Generic, "", ANY, BOTH, "atomic store element type bf16";
    SetAtomicS32: "pto.set_atomic_s32", Scalar, S, Config, Generic, "", ANY, BOTH, "atomic store element type i32";
    SetAtomicS16: "pto.set_atomic_s16", Scalar, S, Config, Generic, "", ANY, BOTH, "atomic store element type i16";
    SetAtomicS8: "pto.set_atomic_s8", Scalar, S, Config, Generic, "", ANY, BOTH, "atomic store element type i8";
    Print: "pto.print", Scalar, NONE, Misc, Dps, "s |", ANY, BOTH, "debug print of a scalar with a format string";
    Trap: "pto.trap", Scalar, NONE, Misc, Generic, "", ANY, BOTH, "abort execution";

    // ── vector: UB <-> vreg loads and stores (pto.v*, inside a vector scope) ──
    VLds: "pto.vlds", Vector, V, VecMemory, Generic, "p i -> v p?", ANY, BOTH, "UB to vreg load with a distribution mode";
    VLdsx2: "pto.vldsx2", Vector, V, VecMemory, Generic, "p i -> v v p?", ANY, BOTH, "dual load with deinterleave";
    VLdas: "pto.vldas", Vector, V, VecMemory, Generic, "p -> a", ANY, BOTH, "prime alignment state for an unaligned load stream";
    VLdus: "pto.vldus", Vector, V, VecMemory, Generic, "p a i? -> v a p?", ANY, BOTH, "unaligned load using the primed alignment state";
    Uvld: "pto.uvld", Vector, V, VecMemory, Generic, "p i -> v", ANY, BOTH, "unaligned vector load";
    VSld: "pto.vsld", Vector, V, VecMemory, Generic, "p i -> v", ANY, BOTH, "fixed-pattern strided load";
    VSldb: "pto.vsldb", Vector, V, VecMemory, Generic, "p i i? m -> v p?", ANY, BOTH, "block-strided 2-D load";
    VGather2: "pto.vgather2", Vector, V, VecMemory, Generic, "p v x -> v", ANY, BOTH, "indexed element gather";
    VGatherb: "pto.vgatherb", Vector, V, VecMemory, Generic, "p v x -> v", ANY, BOTH, "gather of 32-byte blocks";
    VGather2Bc: "pto.vgather2_bc", Vector, V, VecMemory, Generic, "p v x -> v", ANY, BOTH, "masked indexed gather (compatibility form)";
    VSts: "pto.vsts", Vector, V, VecMemory, Generic, "v p i m -> p?", ANY, BOTH, "vreg to UB store with a distribution mode";
    VStsx2: "pto.vstsx2", Vector, V, VecMemory, Generic, "v v p i m", ANY, BOTH, "dual interleaved store";
    VSst: "pto.vsst", Vector, V, VecMemory, Generic, "v p i", ANY, BOTH, "fixed-pattern strided store";
    VSstb: "pto.vsstb", Vector, V, VecMemory, Generic, "v p i i? m -> p?", ANY, BOTH, "block-strided 2-D store";
    VScatter: "pto.vscatter", Vector, V, VecMemory, Generic, "v p v x", ANY, BOTH, "indexed element scatter";
    VStu: "pto.vstu", Vector, V, VecMemory, Generic, "a i v p -> a x?", ANY, A5, "unaligned store stream step";
    VStus: "pto.vstus", Vector, V, VecMemory, Generic, "a i v p -> a p?", ANY, A5, "unaligned store stream step, scalar offset";
    VStur: "pto.vstur", Vector, V, VecMemory, Generic, "a v p -> a", ANY, A5, "unaligned store stream step, register offset";
    VSta: "pto.vsta", Vector, V, VecMemory, Generic, "a p i?", ANY, BOTH, "flush an unaligned store stream";
    VStas: "pto.vstas", Vector, V, VecMemory, Generic, "a p i -> p?", ANY, BOTH, "flush an unaligned store stream, scalar offset";
    VStar: "pto.vstar", Vector, V, VecMemory, Generic, "a p", ANY, BOTH, "flush an unaligned store stream, register offset";
    Sprclr: "pto.sprclr", Vector, V, VecMemory, Generic, "", ANY, BOTH, "clear the special-purpose store register";
    Sprsti: "pto.sprsti", Vector, V, VecMemory, Generic, "p i -> p?", ANY, BOTH, "store the special-purpose register, immediate offset";
    Sprsts: "pto.sprsts", Vector, V, VecMemory, Generic, "p i -> p?", ANY, BOTH, "store the special-purpose register, scalar offset";

    // ── vector: materialisation ──
    VBr: "pto.vbr", Vector, V, VecCompute, Generic, "s -> v", ANY, BOTH, "broadcast a scalar to every lane";
    VDup: "pto.vdup", Vector, V, VecCompute, Generic, "x m? -> v", ANY, BOTH, "duplicate a scalar or one selected lane";
    VCi: "pto.vci", Vector, V, VecCompute, Generic, "s -> v", ANY, BOTH, "lane-index vector seed + i";

    // ── vector: unary ──
    VAbs: "pto.vabs", Vector, V, VecCompute, Generic, "v m -> v", ANY, BOTH, "lane-wise absolute value";
    VNeg: "pto.vneg", Vector, V, VecCompute, Generic, "v m -> v", ANY, BOTH, "lane-wise negation";
    VExp: "pto.vexp", Vector, V, VecCompute, Generic, "v m -> v", FPBF, BOTH, "lane-wise e^x";
    VLn: "pto.vln", Vector, V, VecCompute, Generic, "v m -> v", FPBF, BOTH, "lane-wise natural log";
    VSqrt: "pto.vsqrt", Vector, V, VecCompute, Generic, "v m -> v", FPBF, BOTH, "lane-wise square root";
    VRsqrt: "pto.vrsqrt", Vector, V, VecCompute, Generic, "v m -> v", FPBF, BOTH, "lane-wise 1/sqrt(x)";
    VRec: "pto.vrec", Vector, V, VecCompute, Generic, "v m -> v", FPBF, BOTH, "lane-wise reciprocal";
    VRelu: "pto.vrelu", Vector, V, VecCompute, Generic, "v m -> v", ANY, BOTH, "lane-wise max(x, 0)";
    VNot: "pto.vnot", Vector, V, VecCompute, Generic, "v m -> v", INT, BOTH, "lane-wise bitwise not";
    VBcnt: "pto.vbcnt", Vector, V, VecCompute, Generic, "v m -> v", INT, BOTH, "lane-wise population count";
    VCls: "pto.vcls", Vector, V, VecCompute, Generic, "v m -> v", INT, BOTH, "lane-wise count of leading sign bits";
    VMov: "pto.vmov", Vector, V, VecCompute, Generic, "v m? -> v", ANY, BOTH, "register copy, masked if a mask is given";

    // ── vector: binary ──
    VAdd: "pto.vadd", Vector, V, VecCompute, Generic, "v v m -> v", ANY, BOTH, "lane-wise a + b";
    VSub: "pto.vsub", Vector, V, VecCompute, Generic, "v v m -> v", ANY, BOTH, "lane-wise a - b";
    VMul: "pto.vmul", Vector, V, VecCompute, Generic, "v v m -> v", ANY, BOTH, "lane-wise a * b";
    VDiv: "pto.vdiv", Vector, V, VecCompute, Generic, "v v m -> v", ANY, BOTH, "lane-wise a / b";
    VMax: "pto.vmax", Vector, V, VecCompute, Generic, "v v m -> v", ANY, BOTH, "lane-wise maximum";
    VMin: "pto.vmin", Vector, V, VecCompute, Generic, "v v m -> v", ANY, BOTH, "lane-wise minimum";
    VAnd: "pto.vand", Vector, V, VecCompute, Generic, "v v m -> v", ANY, BOTH, "lane-wise bitwise and";
    VOr: "pto.vor", Vector, V, VecCompute, Generic, "v v m -> v", ANY, BOTH, "lane-wise bitwise or";
    VXor: "pto.vxor", Vector, V, VecCompute, Generic, "v v m -> v", ANY, BOTH, "lane-wise bitwise xor";
    VShl: "pto.vshl", Vector, V, VecCompute, Generic, "v v m -> v", INT64, BOTH, "per-lane shift left";
    VShr: "pto.vshr", Vector, V, VecCompute, Generic, "v v m -> v", INT64, BOTH, "per-lane shift right (arithmetic for signed)";
    VAddc: "pto.vaddc", Vector, V, VecCompute, Generic, "v v m -> v m", ANY, BOTH, "add producing a carry mask";
    VSubc: "pto.vsubc", Vector, V, VecCompute, Generic, "v v m -> v m", ANY, BOTH, "subtract producing a borrow mask";
    VPrelu: "pto.vprelu", Vector, V, VecCompute, Generic, "v v m -> v", FPBF, BOTH, "PReLU with per-lane slope";
    VAddrelu: "pto.vaddrelu", Vector, V, VecCompute, Generic, "v v m -> v", FPBF, BOTH, "relu(a + b)";
    VSubrelu: "pto.vsubrelu", Vector, V, VecCompute, Generic, "v v m -> v", FPBF, BOTH, "relu(a - b)";

    // ── vector: vector-scalar ──
    VAdds: "pto.vadds", Vector, V, VecCompute, Generic, "v s m -> v", ANY, BOTH, "add a broadcast scalar";
    VSubs: "pto.vsubs", Vector, V, VecCompute, Generic, "v s m -> v", ANY, BOTH, "subtract a broadcast scalar";
    VMuls: "pto.vmuls", Vector, V, VecCompute, Generic, "v s m -> v", ANY, BOTH, "multiply by a broadcast scalar";
    VMaxs: "pto.vmaxs", Vector, V, VecCompute, Generic, "v s m -> v", ANY, BOTH, "max with a broadcast scalar";
    VMins: "pto.vmins", Vector, V, VecCompute, Generic, "v s m -> v", ANY, BOTH, "min with a broadcast scalar";
    VAnds: "pto.vands", Vector, V, VecCompute, Generic, "v s m -> v", INT, BOTH, "bitwise and with a scalar";
    VOrs: "pto.vors", Vector, V, VecCompute, Generic, "v s m -> v", INT, BOTH, "bitwise or with a scalar";
    VXors: "pto.vxors", Vector, V, VecCompute, Generic, "v s m -> v", INT, BOTH, "bitwise xor with a scalar";
    VShls: "pto.vshls", Vector, V, VecCompute, Generic, "v s m -> v", INT, BOTH, "shift left by a scalar";
    VShrs: "pto.vshrs", Vector, V, VecCompute, Generic, "v s m -> v", INT, BOTH, "shift right by a scalar";
    VLrelu: "pto.vlrelu", Vector, V, VecCompute, Generic, "v s m -> v", FPBF, BOTH, "leaky ReLU with scalar slope";
    VAddcs: "pto.vaddcs", Vector, V, VecCompute, Generic, "v v m m -> v m", ANY, BOTH, "add with carry-in and carry-out";
    VSubcs: "pto.vsubcs", Vector, V, VecCompute, Generic, "v v m m -> v m", ANY, BOTH, "subtract with borrow-in and borrow-out";

    // ── vector: conversion ──
    VCvt: "pto.vcvt", Vector, V, VecCompute, Generic, "v m -> v", ANY, BOTH, "type conversion with rounding, saturation and part";
    VTrc: "pto.vtrc", Vector, V, VecCompute, Generic, "v m -> v", FPBF, BOTH, "round to integral value, same type";
    VBitcast: "pto.vbitcast", Vector, V, VecCompute, Generic, "v -> v", ANY, BOTH, "reinterpret vreg bits as another type";
    VMulscvt: "pto.vmulscvt", Vector, V, VecCompute, Generic, "v s m -> v", ANY, BOTH, "multiply by a scalar then convert";

    // ── vector: reductions ──
    VCadd: "pto.vcadd", Vector, V, VecCompute, Generic, "v m -> v", ANY, BOTH, "sum of active lanes into lane 0";
    VCmax: "pto.vcmax", Vector, V, VecCompute, Generic, "v m -> v", ANY, BOTH, "max of active lanes with its index";
    VCmin: "pto.vcmin", Vector, V, VecCompute, Generic, "v m -> v", ANY, BOTH, "min of active lanes with its index";
    VCgadd: "pto.vcgadd", Vector, V, VecCompute, Generic, "v m -> v", ANY, BOTH, "sum within each 32-byte lane group";
    VCgmax: "pto.vcgmax", Vector, V, VecCompute, Generic, "v m -> v", ANY, BOTH, "max within each 32-byte lane group";
    VCgmin: "pto.vcgmin", Vector, V, VecCompute, Generic, "v m -> v", ANY, BOTH, "min within each 32-byte lane group";
    VCpadd: "pto.vcpadd", Vector, V, VecCompute, Generic, "v m -> v", ANY, BOTH, "inclusive prefix sum over lanes";
    VCbmax: "pto.vcbmax", Vector, V, VecCompute, Generic, "v m -> v m", ANY, BOTH, "max of active lanes plus a predicate of its position";
    VCbmin: "pto.vcbmin", Vector, V, VecCompute, Generic, "v m -> v m", ANY, BOTH, "min of active lanes plus a predicate of its position";
    Chistv2: "pto.chistv2", Vector, V, VecCompute, Generic, "v v m i -> v", ANY, BOTH, "cumulative byte histogram step";
    Dhistv2: "pto.dhistv2", Vector, V, VecCompute, Generic, "v v m i -> v", ANY, BOTH, "distribution byte histogram step";

    // ── vector: compare and select ──
    VCmp: "pto.vcmp", Vector, V, VecCompute, Generic, "v v m -> m", ANY, BOTH, "compare two vregs into a predicate";
    VCmps: "pto.vcmps", Vector, V, VecCompute, Generic, "v s m -> m", ANY, BOTH, "compare with a scalar into a predicate";
    VSel: "pto.vsel", Vector, V, VecCompute, Generic, "v v m -> v", ANY, BOTH, "mask ? a : b per lane";
    VSelr: "pto.vselr", Vector, V, VecCompute, Generic, "v v -> v", ANY, A5, "select with reversed polarity";
    VSelrv2: "pto.vselrv2", Vector, V, VecCompute, Generic, "v v -> v", ANY, A5, "reversed-polarity select, second form";

    // ── vector: rearrangement ──
    VIntlv: "pto.vintlv", Vector, V, VecCompute, Generic, "v v -> v v", ANY, BOTH, "interleave two vregs";
    VDintlv: "pto.vdintlv", Vector, V, VecCompute, Generic, "v v -> v v", ANY, BOTH, "deinterleave two vregs";
    VIntlvv2: "pto.vintlvv2", Vector, V, VecCompute, Generic, "v v -> v", ANY, BOTH, "interleave, returning one half";
    VDintlvv2: "pto.vdintlvv2", Vector, V, VecCompute, Generic, "v v -> v", ANY, BOTH, "deinterleave, returning one half";
    VSlide: "pto.vslide", Vector, V, VecCompute, Generic, "v v i -> v", ANY, BOTH, "window of concat(b, a) at a lane offset";
    VShift: "pto.vshift", Vector, V, VecCompute, Generic, "v i -> v", ANY, BOTH, "shift lanes with zero fill";
    VSqz: "pto.vsqz", Vector, V, VecCompute, Generic, "v m -> v", ANY, BOTH, "compress active lanes to the front";
    VUsqz: "pto.vusqz", Vector, V, VecCompute, Generic, "v m -> v", ANY, BOTH, "expand front lanes back to active positions";
    VPerm: "pto.vperm", Vector, V, VecCompute, Generic, "v v -> v", ANY, BOTH, "in-register table lookup";
    VPack: "pto.vpack", Vector, V, VecCompute, Generic, "v x? x? -> v", ANY, BOTH, "narrow wide lanes into one vreg";
    VSunpack: "pto.vsunpack", Vector, V, VecCompute, Generic, "v i -> v", ANY, BOTH, "sign-extend one half to wider lanes";
    VZunpack: "pto.vzunpack", Vector, V, VecCompute, Generic, "v i -> v", ANY, BOTH, "zero-extend one half to wider lanes";

    // ── vector: SFU / fused ──
    VExpdif: "pto.vexpdif", Vector, V, VecCompute, Generic, "v v m? -> v", FPBF, BOTH, "exp(x - max)";
    VAxpy: "pto.vaxpy", Vector, V, VecCompute, Generic, "v v s m -> v", FPBF, BOTH, "alpha * x + y";
    VMadd: "pto.vmadd", Vector, V, VecCompute, Generic, "v v v m -> v", ANY, BOTH, "fused multiply-add";
    VMula: "pto.vmula", Vector, V, VecCompute, Generic, "v v v m -> v", ANY, BOTH, "acc + lhs * rhs";
    VMull: "pto.vmull", Vector, V, VecCompute, Generic, "v v m -> v v", ANY, BOTH, "widening multiply, low and high halves";
    VAddreluconv: "pto.vaddreluconv", Vector, V, VecCompute, Generic, "v v m? -> v", ANY, BOTH, "relu(a + b) converted to a narrower type";
    VMulconv: "pto.vmulconv", Vector, V, VecCompute, Generic, "v v m? -> v", ANY, BOTH, "a * b converted to a narrower type";
    VTranspose: "pto.vtranspose", Vector, V, VecMemory, Generic, "p p i", ANY, BOTH, "UB to UB transpose";
    VSort32: "pto.vsort32", Vector, V, VecMemory, Generic, "p p i", ANY, BOTH, "UB to UB sort of 32-element blocks";
    VBitsort: "pto.vbitsort", Vector, V, VecMemory, Generic, "p p p i", ANY, BOTH, "sort 32 score/index pairs, descending";
    VMrgsort4: "pto.vmrgsort4" ["pto.vmrgsort"], Vector, V, VecMemory, Generic, "p p p p p i i", ANY, BOTH, "merge four sorted lists in UB";

    // ── cube: matrix multiply-accumulate micro-ops ──
    Mad: "pto.mad", Cube, M, Cube, Generic, "x x x i i i", ANY, BOTH, "L0C = L0A * L0B for m, n, k";
    MadAcc: "pto.mad_acc", Cube, M, Cube, Generic, "x x x i i i", ANY, BOTH, "L0C += L0A * L0B";
    MadBias: "pto.mad_bias", Cube, M, Cube, Generic, "x x x x i i i", ANY, BOTH, "L0C = L0A * L0B + bias table row";
    MadMx: "pto.mad_mx", Cube, M, Cube, Generic, "x x x i i i", ANY, A5, "block-scaled (MX) multiply with preloaded scales";
    MadMxAcc: "pto.mad_mx_acc", Cube, M, Cube, Generic, "x x x i i i", ANY, A5, "block-scaled multiply-accumulate";
    MadMxBias: "pto.mad_mx_bias", Cube, M, Cube, Generic, "x x x x i i i", ANY, A5, "block-scaled multiply plus bias";
    MadRaw: "pto.mad_raw", Cube, M, Cube, Generic, "x x x i", ANY, BOTH, "multiply with a packed raw config word";
    MadBiasRaw: "pto.mad_bias_raw", Cube, M, Cube, Generic, "x x x x i", ANY, BOTH, "multiply plus bias with a packed raw config word";
    MadMxRaw: "pto.mad_mx_raw", Cube, M, Cube, Generic, "x x x i", ANY, A5, "MX multiply with a packed raw config word";
    MadMxBiasRaw: "pto.mad_mx_bias_raw", Cube, M, Cube, Generic, "x x x x i", ANY, A5, "MX multiply plus bias with a packed raw config word";

    // ── cube: data movement (GM/L1/L0/bias/fixpipe buffers) ──
    MteGmL1: "pto.mte_gm_l1", Cube, MTE2, Cube, Generic, "x x i i i i i*", ANY, BOTH, "GM -> L1 burst copy";
    MteGmL1Frac: "pto.mte_gm_l1_frac", Cube, MTE2, Cube, Generic, "x x i*", ANY, BOTH, "GM ND/DN -> L1 NZ fractal repack";
    MteL1L0a: "pto.mte_l1_l0a", Cube, MTE1, Cube, Generic, "x x i*", ANY, BOTH, "L1 -> L0A (left operand) load";
    MteL1L0b: "pto.mte_l1_l0b", Cube, MTE1, Cube, Generic, "x x i*", ANY, BOTH, "L1 -> L0B (right operand) load";
    MteL1L0aMx: "pto.mte_l1_l0a_mx", Cube, MTE1, Cube, Generic, "x x i*", ANY, BOTH, "L1 -> left MX scale buffer load";
    MteL1L0bMx: "pto.mte_l1_l0b_mx", Cube, MTE1, Cube, Generic, "x x i*", ANY, BOTH, "L1 -> right MX scale buffer load";
    MteL1Bt: "pto.mte_l1_bt", Cube, MTE1, Cube, Generic, "x x i i i i", ANY, BOTH, "stage a bias table from L1";
    MteL1Fb: "pto.mte_l1_fb", Cube, FIX, Cube, Generic, "x x i i i i", ANY, BOTH, "stage fixpipe parameters from L1";
    MteL1Ub: "pto.mte_l1_ub", Cube, MTE1, Cube, Generic, "x x i i i i i*", ANY, BOTH, "L1 -> UB copy";
    MteL0cL1: "pto.mte_l0c_l1", Cube, FIX, Cube, Generic, "x x i i i i x*", ANY, BOTH, "fixpipe L0C -> L1 write-back";
    MteL0cGm: "pto.mte_l0c_gm", Cube, FIX, Cube, Generic, "x x i i i i x*", ANY, BOTH, "fixpipe L0C -> GM write-back";
    MteL0cUb: "pto.mte_l0c_ub", Cube, FIX, Cube, Generic, "x x i i i i x*", ANY, BOTH, "fixpipe L0C -> UB write-back";
    RawFillL1: "pto.raw_fill_l1", Cube, MTE2, Cube, Generic, "x i i i i i", ANY, BOTH, "fill a strided L1 region with a bit pattern";
    CreateCbufMatrix: "pto.create_cbuf_matrix", Cube, MTE2, Cube, Generic, "x i i i i", ANY, BOTH, "fill an L1 matrix with a raw pattern";
    CopyGmToCbuf: "pto.copy_gm_to_cbuf", Cube, MTE2, Cube, Generic, "x x i i i i", ANY, BOTH, "CCE-level GM -> L1 copy";
    CopyGmToCbufMultiNd2nz: "pto.copy_gm_to_cbuf_multi_nd2nz", Cube, MTE2, Cube, Generic, "x x i i i i i i i", ANY, BOTH, "CCE-level GM ND -> L1 NZ repack";
    CopyGmToCbufMultiDn2nz: "pto.copy_gm_to_cbuf_multi_dn2nz", Cube, MTE2, Cube, Generic, "x x i i i i i i i", ANY, BOTH, "CCE-level GM DN -> L1 NZ repack";
    CopyCbufToUbuf: "pto.copy_cbuf_to_ubuf", Cube, MTE1, Cube, Generic, "x x i i i i i", ANY, BOTH, "CCE-level L1 -> UB copy";
    CopyUbufToCbuf: "pto.copy_ubuf_to_cbuf", Cube, MTE3, Cube, Generic, "x x i i i i i", ANY, BOTH, "CCE-level UB -> L1 copy";
    CopyCbufToBt: "pto.copy_cbuf_to_bt", Cube, MTE1, Cube, Generic, "x x i i i i i", ANY, BOTH, "CCE-level L1 -> bias table copy";
    CopyCbufToFbuf: "pto.copy_cbuf_to_fbuf", Cube, FIX, Cube, Generic, "x x i i i i", ANY, BOTH, "CCE-level L1 -> fixpipe buffer copy";
    LoadCbufToCa: "pto.load_cbuf_to_ca", Cube, MTE1, Cube, Generic, "x x i i i i i i", ANY, BOTH, "CCE-level L1 -> L0A load";
    LoadCbufToCb: "pto.load_cbuf_to_cb", Cube, MTE1, Cube, Generic, "x x i i i i i i", ANY, BOTH, "CCE-level L1 -> L0B load";
    LoadCbufToCaS4: "pto.load_cbuf_to_ca_s4", Cube, MTE1, Cube, Generic, "x x i i i i i i i", ANY, BOTH, "CCE-level L1 -> L0A load of 4-bit data";
    LoadCbufToCbS4: "pto.load_cbuf_to_cb_s4", Cube, MTE1, Cube, Generic, "x x i i i i i i i", ANY, BOTH, "CCE-level L1 -> L0B load of 4-bit data";
    LoadCbufToCaMx: "pto.load_cbuf_to_ca_mx", Cube, MTE1, Cube, Generic, "x x i i i i i i", ANY, A5, "CCE-level L1 -> left MX scale load";
    LoadCbufToCbMx: "pto.load_cbuf_to_cb_mx", Cube, MTE1, Cube, Generic, "x x i i i i i i", ANY, A5, "CCE-level L1 -> right MX scale load";
    CopyMatrixCcToGm: "pto.copy_matrix_cc_to_gm", Cube, FIX, Cube, Generic, "x x i i", ANY, BOTH, "CCE-level L0C -> GM fixpipe copy";
    CopyMatrixCcToCbuf: "pto.copy_matrix_cc_to_cbuf", Cube, FIX, Cube, Generic, "x x i i", ANY, BOTH, "CCE-level L0C -> L1 fixpipe copy";
    CopyMatrixCcToUb: "pto.copy_matrix_cc_to_ub", Cube, FIX, Cube, Generic, "x x i i", ANY, BOTH, "CCE-level L0C -> UB fixpipe copy";
    SetQuantPre: "pto.set_quant_pre", Cube, S, Config, Generic, "i", ANY, BOTH, "fixpipe pre-quant parameter register";
    SetReluAlpha: "pto.set_relu_alpha", Cube, S, Config, Generic, "i", ANY, BOTH, "fixpipe relu slope register";
    SetFixClipRelu: "pto.set_fix_clip_relu", Cube, S, Config, Generic, "i", ANY, BOTH, "fixpipe relu clip register";
    SetFpc: "pto.set_fpc", Cube, S, Config, Generic, "i", ANY, BOTH, "fixpipe parameter-control register";

    // ── view-level scalar containers: event-id arrays, stack arrays and structs ──
    DeclareEventidArray: "pto.declare_eventid_array", View, NONE, ScalarMemory, Generic, "-> e", ANY, BOTH, "declare a small array of event ids";
    EventidArrayGet: "pto.eventid_array_get", View, NONE, ScalarMemory, Generic, "e i -> i", ANY, BOTH, "read one event id from an event-id array";
    EventidArraySet: "pto.eventid_array_set", View, NONE, ScalarMemory, Generic, "e i i", ANY, BOTH, "write one event id into an event-id array";
    DeclareLocalArray: "pto.declare_local_array", View, NONE, ScalarMemory, Generic, "-> x", ANY, BOTH, "declare a fixed-shape stack array";
    LocalArrayGet: "pto.local_array_get", View, NONE, ScalarMemory, Generic, "x i* -> s", ANY, BOTH, "read one element of a stack array";
    LocalArraySet: "pto.local_array_set", View, NONE, ScalarMemory, Generic, "x i* s", ANY, BOTH, "write one element of a stack array";
    DeclareStruct: "pto.declare_struct", View, NONE, ScalarMemory, Generic, "-> x", ANY, BOTH, "declare a stack struct of mixed scalars";
    StructGet: "pto.struct_get", View, NONE, ScalarMemory, Generic, "x -> x", ANY, BOTH, "read one struct field by constant path";
    StructSet: "pto.struct_set", View, NONE, ScalarMemory, Generic, "x x", ANY, BOTH, "write one struct field by constant path";

    // ── internal: A2/A3 raw-UB vector backend ops (pto.ub.*), lowered by PTOAS only ──
    UbVadd: "pto.ub.vadd", Internal, V, NotExecutable, Generic, "x x x x x x x x x x", ANY, BOTH, "raw UB repeat-strided add";
    UbVsub: "pto.ub.vsub", Internal, V, NotExecutable, Generic, "x x x x x x x x x x", ANY, BOTH, "raw UB repeat-strided subtract";
    UbVmul: "pto.ub.vmul", Internal, V, NotExecutable, Generic, "x x x x x x x x x x", ANY, BOTH, "raw UB repeat-strided multiply";
    UbVdiv: "pto.ub.vdiv", Internal, V, NotExecutable, Generic, "x x x x x x x x x x", ANY, BOTH, "raw UB repeat-strided divide";
    UbVmax: "pto.ub.vmax", Internal, V, NotExecutable, Generic, "x x x x x x x x x x", ANY, BOTH, "raw UB repeat-strided maximum";
    UbVmin: "pto.ub.vmin", Internal, V, NotExecutable, Generic, "x x x x x x x x x x", ANY, BOTH, "raw UB repeat-strided minimum";
    UbVand: "pto.ub.vand", Internal, V, NotExecutable, Generic, "x x x x x x x x x x", ANY, BOTH, "raw UB repeat-strided bitwise and";
    UbVor: "pto.ub.vor", Internal, V, NotExecutable, Generic, "x x x x x x x x x x", ANY, BOTH, "raw UB repeat-strided bitwise or";
    UbVaddrelu: "pto.ub.vaddrelu", Internal, V, NotExecutable, Generic, "x x x x x x x x x x", ANY, BOTH, "raw UB repeat-strided relu(a + b)";
    UbVnot: "pto.ub.vnot", Internal, V, NotExecutable, Generic, "x x x x x x x", ANY, BOTH, "raw UB repeat-strided bitwise not";
    UbVabs: "pto.ub.vabs", Internal, V, NotExecutable, Generic, "x x x x x x x", ANY, BOTH, "raw UB repeat-strided absolute value";
    UbVrelu: "pto.ub.vrelu", Internal, V, NotExecutable, Generic, "x x x x x x x", ANY, BOTH, "raw UB repeat-strided ReLU";
    UbVexp: "pto.ub.vexp", Internal, V, NotExecutable, Generic, "x x x x x x x", ANY, BOTH, "raw UB repeat-strided exponential";
    UbVln: "pto.ub.vln", Internal, V, NotExecutable, Generic, "x x x x x x x", ANY, BOTH, "raw UB repeat-strided natural log";
    UbVsqrt: "pto.ub.vsqrt", Internal, V, NotExecutable, Generic, "x x x x x x x", ANY, BOTH, "raw UB repeat-strided square root";
    UbVrsqrt: "pto.ub.vrsqrt", Internal, V, NotExecutable, Generic, "x x x x x x x", ANY, BOTH, "raw UB repeat-strided reciprocal square root";
    UbVshl: "pto.ub.vshl", Internal, V, NotExecutable, Generic, "x x x x x x x x", ANY, BOTH, "raw UB repeat-strided shift left by a scalar";
    UbVshr: "pto.ub.vshr", Internal, V, NotExecutable, Generic, "x x x x x x x x", ANY, BOTH, "raw UB repeat-strided shift right by a scalar";
    UbVmuls: "pto.ub.vmuls", Internal, V, NotExecutable, Generic, "x x x x x x x x", ANY, BOTH, "raw UB repeat-strided multiply by a scalar";
    UbVadds: "pto.ub.vadds", Internal, V, NotExecutable, Generic, "x x x x x x x x", ANY, BOTH, "raw UB repeat-strided add a scalar";
    UbVmaxs: "pto.ub.vmaxs", Internal, V, NotExecutable, Generic, "x x x x x x x x", ANY, BOTH, "raw UB repeat-strided max with a scalar";
    UbVmins: "pto.ub.vmins", Internal, V, NotExecutable, Generic, "x x x x x x x x", ANY, BOTH, "raw UB repeat-strided min with a scalar";
    UbVdup: "pto.ub.vdup", Internal, V, NotExecutable, Generic, "x x x x x x x", ANY, BOTH, "raw UB repeat-strided scalar fill";
    UbSetMask: "pto.ub.set_mask", Internal, V, NotExecutable, Generic, "x x", ANY, BOTH, "set the raw-UB vector lane mask";
    UbSetMaskCount: "pto.ub.set_mask_count", Internal, V, NotExecutable, Generic, "", ANY, BOTH, "switch raw-UB ops to count mask mode";
    UbSetMaskNorm: "pto.ub.set_mask_norm", Internal, V, NotExecutable, Generic, "", ANY, BOTH, "switch raw-UB ops to normal mask mode";

    // ── internal: compiler-scheduled fusion regions ──
    FusionRegion: "pto.fusion_region", Internal, NONE, NotExecutable, Region, "-> x*", ANY, BOTH, "region holding one scheduled tile-fusion group";
    FusionYield: "pto.yield", Internal, NONE, NotExecutable, Generic, "x*", ANY, BOTH, "terminator of a fusion region";

    // ── VMI: PTOAS's layout-agnostic vector IR (pto.vmi.*); parsed and checked, not executed ──
    VmiConstant: "pto.vmi.constant", Vmi, V, NotExecutable, Generic, "-> x", ANY, BOTH, "logical vector constant";
    VmiBroadcast: "pto.vmi.broadcast", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "splat a scalar or 1-lane vector";
    VmiIota: "pto.vmi.iota", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "index vector from a scalar base";
    VmiGroupIota: "pto.vmi.group_iota", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "index vector repeating per group";
    VmiCreateMask: "pto.vmi.create_mask", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "prefix mask of the first n lanes";
    VmiCreateGroupMask: "pto.vmi.create_group_mask", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "prefix mask per lane group";
    VmiConstantMask: "pto.vmi.constant_mask", Vmi, V, NotExecutable, Generic, "-> x", ANY, BOTH, "constant predicate mask";
    VmiMaskAnd: "pto.vmi.mask_and", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "mask and";
    VmiMaskOr: "pto.vmi.mask_or", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "mask or";
    VmiMaskXor: "pto.vmi.mask_xor", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "mask xor";
    VmiMaskNot: "pto.vmi.mask_not", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "mask not";
    VmiAddf: "pto.vmi.addf", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "float lane-wise add";
    VmiAddi: "pto.vmi.addi", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "integer lane-wise add";
    VmiSubf: "pto.vmi.subf", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "float lane-wise subtract";
    VmiSubi: "pto.vmi.subi", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "integer lane-wise subtract";
    VmiMulf: "pto.vmi.mulf", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "float lane-wise multiply";
    VmiMuli: "pto.vmi.muli", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "integer lane-wise multiply";
    VmiFma: "pto.vmi.fma", Vmi, V, NotExecutable, Generic, "x x x -> x", ANY, BOTH, "float fused multiply-add";
    VmiDivf: "pto.vmi.divf", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "float lane-wise divide";
    VmiMinf: "pto.vmi.minf", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "float lane-wise minimum";
    VmiMaxf: "pto.vmi.maxf", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "float lane-wise maximum";
    VmiMini: "pto.vmi.mini", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "integer lane-wise minimum";
    VmiMaxi: "pto.vmi.maxi", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "integer lane-wise maximum";
    VmiNegf: "pto.vmi.negf", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "float negation";
    VmiNegi: "pto.vmi.negi", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "integer negation";
    VmiAbsf: "pto.vmi.absf", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "float absolute value";
    VmiAbsi: "pto.vmi.absi", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "integer absolute value";
    VmiSqrt: "pto.vmi.sqrt", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "float square root";
    VmiExp: "pto.vmi.exp", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "float e^x";
    VmiLn: "pto.vmi.ln", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "float natural log";
    VmiRelu: "pto.vmi.relu", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "max(x, 0)";
    VmiAndi: "pto.vmi.andi", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "integer bitwise and";
    VmiOri: "pto.vmi.ori", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "integer bitwise or";
    VmiXori: "pto.vmi.xori", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "integer bitwise xor";
    VmiShli: "pto.vmi.shli", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "integer shift left";
    VmiShrui: "pto.vmi.shrui", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "logical shift right";
    VmiShrsi: "pto.vmi.shrsi", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "arithmetic shift right";
    VmiNot: "pto.vmi.not", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "integer bitwise not";
    VmiCmpf: "pto.vmi.cmpf", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "float compare into a mask";
    VmiCmpi: "pto.vmi.cmpi", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "integer compare into a mask";
    VmiSelect: "pto.vmi.select", Vmi, V, NotExecutable, Generic, "x x x -> x", ANY, BOTH, "mask ? a : b";
    VmiActivePrefixIndex: "pto.vmi.active_prefix_index", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "per-lane count of active lanes before it";
    VmiCompress: "pto.vmi.compress", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "pack active lanes to the front";
    VmiCompressStore: "pto.vmi.compress_store", Vmi, V, NotExecutable, Generic, "x x x x", ANY, BOTH, "store active lanes contiguously";
    VmiReduceAddi: "pto.vmi.reduce_addi", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "masked integer sum reduction";
    VmiReduceAddf: "pto.vmi.reduce_addf", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "masked float sum reduction";
    VmiReduceMaxf: "pto.vmi.reduce_maxf", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "masked float max reduction";
    VmiReduceMinf: "pto.vmi.reduce_minf", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "masked float min reduction";
    VmiReduceMaxi: "pto.vmi.reduce_maxi", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "masked integer max reduction";
    VmiReduceMini: "pto.vmi.reduce_mini", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "masked integer min reduction";
    VmiGroupReduceAddf: "pto.vmi.group_reduce_addf", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "float sum within each lane group";
    VmiGroupReduceMaxf: "pto.vmi.group_reduce_maxf", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "float max within each lane group";
    VmiGroupReduceMinf: "pto.vmi.group_reduce_minf", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "float min within each lane group";
    VmiGroupReduceAddi: "pto.vmi.group_reduce_addi", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "integer sum within each lane group";
    VmiGroupReduceMaxi: "pto.vmi.group_reduce_maxi", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "integer max within each lane group";
    VmiGroupReduceMini: "pto.vmi.group_reduce_mini", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "integer min within each lane group";
    VmiGroupBroadcast: "pto.vmi.group_broadcast", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "spread group-slot values over their groups";
    VmiVdhist: "pto.vmi.vdhist", Vmi, V, NotExecutable, Generic, "x x x -> x", ANY, BOTH, "distribution histogram step";
    VmiVchist: "pto.vmi.vchist", Vmi, V, NotExecutable, Generic, "x x x -> x", ANY, BOTH, "cumulative histogram step";
    VmiExtf: "pto.vmi.extf", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "float widening";
    VmiTruncf: "pto.vmi.truncf", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "float narrowing";
    VmiFptosi: "pto.vmi.fptosi", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "float to signed integer";
    VmiFptoui: "pto.vmi.fptoui", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "float to unsigned integer";
    VmiSitofp: "pto.vmi.sitofp", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "signed integer to float";
    VmiExtsi: "pto.vmi.extsi", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "sign extension";
    VmiExtui: "pto.vmi.extui", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "zero extension";
    VmiTrunci: "pto.vmi.trunci", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "saturating integer narrowing";
    VmiBitcast: "pto.vmi.bitcast", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "reinterpret vector bits";
    VmiLoad: "pto.vmi.load", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "contiguous logical load";
    VmiDeinterleaveLoad: "pto.vmi.deinterleave_load", Vmi, V, NotExecutable, Generic, "x x -> x x", ANY, BOTH, "two-way deinterleaving load";
    VmiGroupLoad: "pto.vmi.group_load", Vmi, V, NotExecutable, Generic, "x x x -> x", ANY, BOTH, "grouped load with a row stride";
    VmiGroupSlotLoad: "pto.vmi.group_slot_load", Vmi, V, NotExecutable, Generic, "x x x -> x", ANY, BOTH, "load one value per group into group slots";
    VmiGroupBroadcastLoad: "pto.vmi.group_broadcast_load", Vmi, V, NotExecutable, Generic, "x x x -> x", ANY, BOTH, "load one value per group and broadcast it";
    VmiStrideLoad: "pto.vmi.stride_load", Vmi, V, NotExecutable, Generic, "x x x x x -> x", ANY, BOTH, "block-strided load";
    VmiMaskedLoad: "pto.vmi.masked_load", Vmi, V, NotExecutable, Generic, "x x x x -> x", ANY, BOTH, "masked load with passthrough lanes";
    VmiGather: "pto.vmi.gather", Vmi, V, NotExecutable, Generic, "x x x x -> x", ANY, BOTH, "masked indexed gather with passthrough";
    VmiExpandLoad: "pto.vmi.expand_load", Vmi, V, NotExecutable, Generic, "x x x x -> x", ANY, BOTH, "dense stream loaded into active lanes";
    VmiStore: "pto.vmi.store", Vmi, V, NotExecutable, Generic, "x x x", ANY, BOTH, "contiguous logical store";
    VmiInterleaveStore: "pto.vmi.interleave_store", Vmi, V, NotExecutable, Generic, "x x x x", ANY, BOTH, "two-way interleaving store";
    VmiGroupStore: "pto.vmi.group_store", Vmi, V, NotExecutable, Generic, "x x x x", ANY, BOTH, "grouped store with a row stride";
    VmiMaskedStore: "pto.vmi.masked_store", Vmi, V, NotExecutable, Generic, "x x x x", ANY, BOTH, "masked store";
    VmiStrideStore: "pto.vmi.stride_store", Vmi, V, NotExecutable, Generic, "x x x x x x", ANY, BOTH, "block-strided store";
    VmiScatter: "pto.vmi.scatter", Vmi, V, NotExecutable, Generic, "x x x x", ANY, BOTH, "masked indexed scatter";
    VmiShuffle: "pto.vmi.shuffle", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "static lane permutation";
    VmiChannelSplit: "pto.vmi.channel_split", Vmi, V, NotExecutable, Generic, "x -> x*", ANY, BOTH, "split interleaved channels";
    VmiChannelMerge: "pto.vmi.channel_merge", Vmi, V, NotExecutable, Generic, "x* -> x", ANY, BOTH, "interleave channels into one vector";
    VmiEnsureLayout: "pto.vmi.ensure_layout", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "materialise a data layout";
    VmiEnsureMaskLayout: "pto.vmi.ensure_mask_layout", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "materialise a mask layout";
    VmiEnsureMaskGranularity: "pto.vmi.ensure_mask_granularity", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "materialise a mask granularity";
    VmiUnpack: "pto.vmi.unpack", Vmi, V, NotExecutable, Generic, "x -> x*", ANY, BOTH, "split a logical value into physical parts";
    VmiPack: "pto.vmi.pack", Vmi, V, NotExecutable, Generic, "x* -> x", ANY, BOTH, "join physical parts into a logical value";
    VmiVbrc: "pto.vmi.vbrc", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "broadcast scalar or group slots to a vector";
    VmiVci: "pto.vmi.vci", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "index vector from a scalar base";
    VmiPset: "pto.vmi.pset", Vmi, V, NotExecutable, Generic, "-> x", ANY, BOTH, "all-lanes-active mask";
    VmiPge: "pto.vmi.pge", Vmi, V, NotExecutable, Generic, "-> x", ANY, BOTH, "first-n-lanes mask";
    VmiPlt: "pto.vmi.plt", Vmi, V, NotExecutable, Generic, "x -> x x", ANY, BOTH, "tail mask from a remainder, with updated remainder";
    VmiVadd: "pto.vmi.vadd", Vmi, V, NotExecutable, Generic, "x x x* -> x", ANY, BOTH, "lane-wise add";
    VmiVaddc: "pto.vmi.vaddc", Vmi, V, NotExecutable, Generic, "x x x -> x x", ANY, BOTH, "add with carry-out mask";
    VmiVaddcs: "pto.vmi.vaddcs", Vmi, V, NotExecutable, Generic, "x x x x -> x x", ANY, BOTH, "add with carry-in and carry-out";
    VmiVsub: "pto.vmi.vsub", Vmi, V, NotExecutable, Generic, "x x x* -> x", ANY, BOTH, "lane-wise subtract";
    VmiVmul: "pto.vmi.vmul", Vmi, V, NotExecutable, Generic, "x x x* -> x", ANY, BOTH, "lane-wise multiply";
    VmiVdiv: "pto.vmi.vdiv", Vmi, V, NotExecutable, Generic, "x x x* -> x", ANY, BOTH, "lane-wise divide";
    VmiVmin: "pto.vmi.vmin", Vmi, V, NotExecutable, Generic, "x x x* -> x", ANY, BOTH, "lane-wise minimum";
    VmiVmax: "pto.vmi.vmax", Vmi, V, NotExecutable, Generic, "x x x* -> x", ANY, BOTH, "lane-wise maximum";
    VmiVneg: "pto.vmi.vneg", Vmi, V, NotExecutable, Generic, "x x* -> x", ANY, BOTH, "lane-wise negation";
    VmiVabs: "pto.vmi.vabs", Vmi, V, NotExecutable, Generic, "x x* -> x", ANY, BOTH, "lane-wise absolute value";
    VmiVsqrt: "pto.vmi.vsqrt", Vmi, V, NotExecutable, Generic, "x x* -> x", ANY, BOTH, "lane-wise square root";
    VmiVexp: "pto.vmi.vexp", Vmi, V, NotExecutable, Generic, "x x* -> x", ANY, BOTH, "lane-wise e^x";
    VmiVln: "pto.vmi.vln", Vmi, V, NotExecutable, Generic, "x x* -> x", ANY, BOTH, "lane-wise natural log";
    VmiVrelu: "pto.vmi.vrelu", Vmi, V, NotExecutable, Generic, "x x* -> x", ANY, BOTH, "lane-wise ReLU";
    VmiVand: "pto.vmi.vand", Vmi, V, NotExecutable, Generic, "x x x* -> x", ANY, BOTH, "lane-wise bitwise and";
    VmiVor: "pto.vmi.vor", Vmi, V, NotExecutable, Generic, "x x x* -> x", ANY, BOTH, "lane-wise bitwise or";
    VmiVxor: "pto.vmi.vxor", Vmi, V, NotExecutable, Generic, "x x x* -> x", ANY, BOTH, "lane-wise bitwise xor";
    VmiVshl: "pto.vmi.vshl", Vmi, V, NotExecutable, Generic, "x x x* -> x", ANY, BOTH, "lane-wise shift left";
    VmiVshr: "pto.vmi.vshr", Vmi, V, NotExecutable, Generic, "x x x* -> x", ANY, BOTH, "lane-wise shift right by signedness";
    VmiVnot: "pto.vmi.vnot", Vmi, V, NotExecutable, Generic, "x x* -> x", ANY, BOTH, "lane-wise bitwise not";
    VmiVcmp: "pto.vmi.vcmp", Vmi, V, NotExecutable, Generic, "x x x -> x", ANY, BOTH, "compare two vectors into a mask";
    VmiVcmps: "pto.vmi.vcmps", Vmi, V, NotExecutable, Generic, "x x x -> x", ANY, BOTH, "compare with a scalar into a mask";
    VmiVadds: "pto.vmi.vadds", Vmi, V, NotExecutable, Generic, "x x x -> x", ANY, BOTH, "add a scalar";
    VmiVmuls: "pto.vmi.vmuls", Vmi, V, NotExecutable, Generic, "x x x -> x", ANY, BOTH, "multiply by a scalar";
    VmiVmaxs: "pto.vmi.vmaxs", Vmi, V, NotExecutable, Generic, "x x x -> x", ANY, BOTH, "max with a scalar";
    VmiVmins: "pto.vmi.vmins", Vmi, V, NotExecutable, Generic, "x x x -> x", ANY, BOTH, "min with a scalar";
    VmiVshls: "pto.vmi.vshls", Vmi, V, NotExecutable, Generic, "x x x -> x", ANY, BOTH, "shift left by a scalar";
    VmiVshrs: "pto.vmi.vshrs", Vmi, V, NotExecutable, Generic, "x x x -> x", ANY, BOTH, "shift right by a scalar";
    VmiVsel: "pto.vmi.vsel", Vmi, V, NotExecutable, Generic, "x x x -> x", ANY, BOTH, "per-lane select by mask";
    VmiVcadd: "pto.vmi.vcadd", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "sum reduction to scalar or group vector";
    VmiVcmax: "pto.vmi.vcmax", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "max reduction to scalar or group vector";
    VmiVcmin: "pto.vmi.vcmin", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "min reduction to scalar or group vector";
    VmiVcvt: "pto.vmi.vcvt", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "element type conversion";
    VmiVload: "pto.vmi.vload", Vmi, V, NotExecutable, Generic, "x x x? x? x? -> x*", ANY, BOTH, "unified logical load";
    VmiVstore: "pto.vmi.vstore", Vmi, V, NotExecutable, Generic, "x* x x x? x? x? x*", ANY, BOTH, "unified logical store";
    VmiVsstb: "pto.vmi.vsstb", Vmi, V, NotExecutable, Generic, "x x x x x", ANY, BOTH, "block store with zero repeat stride";
    VmiVinterpretCast: "pto.vmi.vinterpret_cast", Vmi, V, NotExecutable, Generic, "x -> x", ANY, BOTH, "reinterpret vector bits";
    VmiVselr: "pto.vmi.vselr", Vmi, V, NotExecutable, Generic, "x x -> x", ANY, BOTH, "dynamic lane select";
    VmiVintlv: "pto.vmi.vintlv", Vmi, V, NotExecutable, Generic, "x x x -> x x", ANY, BOTH, "interleave two vectors";
    VmiVdintlv: "pto.vmi.vdintlv", Vmi, V, NotExecutable, Generic, "x x x -> x x", ANY, BOTH, "deinterleave two vectors";
    VmiVgather: "pto.vmi.vgather", Vmi, V, NotExecutable, Generic, "x x x -> x", ANY, BOTH, "masked 32-bit indexed gather";
    VmiVgatherb: "pto.vmi.vgatherb", Vmi, V, NotExecutable, Generic, "x x x -> x", ANY, BOTH, "masked byte-granularity gather";
    VmiVscatter: "pto.vmi.vscatter", Vmi, V, NotExecutable, Generic, "x x x x", ANY, BOTH, "masked indexed scatter";
    VmiVexpdif: "pto.vmi.vexpdif", Vmi, V, NotExecutable, Generic, "x x x -> x", ANY, BOTH, "exp(x - max)";
    VmiVaxpy: "pto.vmi.vaxpy", Vmi, V, NotExecutable, Generic, "x x x x -> x", ANY, BOTH, "alpha * x + y";
    VmiVlrelu: "pto.vmi.vlrelu", Vmi, V, NotExecutable, Generic, "x x x -> x", ANY, BOTH, "leaky ReLU";
    VmiVprelu: "pto.vmi.vprelu", Vmi, V, NotExecutable, Generic, "x x x -> x", ANY, BOTH, "parametric ReLU";
    VmiVmull: "pto.vmi.vmull", Vmi, V, NotExecutable, Generic, "x x x -> x x", ANY, BOTH, "widening multiply, low and high results";
    VmiVmula: "pto.vmi.vmula", Vmi, V, NotExecutable, Generic, "x x x x* -> x", ANY, BOTH, "acc + lhs * rhs";

    // ── SIMT: per-thread code launched on the vector core; parsed and checked, not executed ──
    SimtLaunch: "pto.simt_launch", Simt, S, NotExecutable, Generic, "i i i x*", ANY, BOTH, "launch a SIMT entry function over a thread grid";
    SectionSimt: "pto.section.simt", Simt, S, NotExecutable, Region, "", ANY, BOTH, "inline SIMT code region";
    SimtStoreVfsimtInfo: "pto.store_vfsimt_info", Simt, S, NotExecutable, Generic, "i i i", ANY, BOTH, "set SIMT launch dimensions";
    SimtSyncthreads: "pto.syncthreads", Simt, S, NotExecutable, Generic, "", ANY, BOTH, "barrier across all threads of the launch";
    SimtThreadfence: "pto.threadfence", Simt, S, NotExecutable, Generic, "", ANY, BOTH, "thread memory fence";
    SimtThreadfenceBlock: "pto.threadfence_block", Simt, S, NotExecutable, Generic, "", ANY, BOTH, "block-scoped thread memory fence";
    SimtKeep: "pto.keep", Simt, S, NotExecutable, Generic, "x", ANY, BOTH, "save a scalar for the next SIMT entry";
    SimtResume: "pto.resume", Simt, S, NotExecutable, Generic, "-> x", ANY, BOTH, "restore a scalar saved by a previous SIMT entry";
    SimtLoad: "pto.load", Simt, S, NotExecutable, Generic, "x x -> x", ANY, BOTH, "load one element through a pointer";
    SimtStore: "pto.store", Simt, S, NotExecutable, Generic, "x x x", ANY, BOTH, "store one element through a pointer";
    SimtLdg: "pto.ldg", Simt, S, NotExecutable, Generic, "x x -> x", ANY, BOTH, "GM load with cache control";
    SimtStg: "pto.stg", Simt, S, NotExecutable, Generic, "x x x", ANY, BOTH, "GM store with cache control";
    SimtGetTidX: "pto.get_tid_x", Simt, S, NotExecutable, Generic, "-> i", ANY, BOTH, "thread index, x";
    SimtGetTidY: "pto.get_tid_y", Simt, S, NotExecutable, Generic, "-> i", ANY, BOTH, "thread index, y";
    SimtGetTidZ: "pto.get_tid_z", Simt, S, NotExecutable, Generic, "-> i", ANY, BOTH, "thread index, z";
    SimtGetBlockDimX: "pto.get_block_dim_x", Simt, S, NotExecutable, Generic, "-> i", ANY, BOTH, "threads per block, x";
    SimtGetBlockDimY: "pto.get_block_dim_y", Simt, S, NotExecutable, Generic, "-> i", ANY, BOTH, "threads per block, y";
    SimtGetBlockDimZ: "pto.get_block_dim_z", Simt, S, NotExecutable, Generic, "-> i", ANY, BOTH, "threads per block, z";
    SimtGetGridDimX: "pto.get_grid_dim_x", Simt, S, NotExecutable, Generic, "-> i", ANY, BOTH, "blocks per grid, x";
    SimtGetGridDimY: "pto.get_grid_dim_y", Simt, S, NotExecutable, Generic, "-> i", ANY, BOTH, "blocks per grid, y";
    SimtGetGridDimZ: "pto.get_grid_dim_z", Simt, S, NotExecutable, Generic, "-> i", ANY, BOTH, "blocks per grid, z";
    SimtGetBlockIdxX: "pto.get_block_idx_x", Simt, S, NotExecutable, Generic, "-> i", ANY, BOTH, "block index, x";
    SimtGetBlockIdxY: "pto.get_block_idx_y", Simt, S, NotExecutable, Generic, "-> i", ANY, BOTH, "block index, y";
    SimtGetBlockIdxZ: "pto.get_block_idx_z", Simt, S, NotExecutable, Generic, "-> i", ANY, BOTH, "block index, z";
    SimtGetVeccoreid: "pto.get_veccoreid", Simt, S, NotExecutable, Generic, "-> i", ANY, BOTH, "vector core id";
    SimtGetLaneid: "pto.get_laneid", Simt, S, NotExecutable, Generic, "-> i", ANY, BOTH, "lane id within the warp";
    SimtGetClock32: "pto.get_clock32", Simt, S, NotExecutable, Generic, "-> i", ANY, BOTH, "32-bit cycle counter";
    SimtGetClock64: "pto.get_clock64", Simt, S, NotExecutable, Generic, "-> i", ANY, BOTH, "64-bit cycle counter";
    SimtGetLanemaskEq: "pto.get_lanemask_eq", Simt, S, NotExecutable, Generic, "-> i", ANY, BOTH, "bit mask of this lane";
    SimtGetLanemaskLe: "pto.get_lanemask_le", Simt, S, NotExecutable, Generic, "-> i", ANY, BOTH, "bit mask of lanes at or below this one";
    SimtGetLanemaskLt: "pto.get_lanemask_lt", Simt, S, NotExecutable, Generic, "-> i", ANY, BOTH, "bit mask of lanes below this one";
    SimtGetLanemaskGe: "pto.get_lanemask_ge", Simt, S, NotExecutable, Generic, "-> i", ANY, BOTH, "bit mask of lanes at or above this one";
    SimtGetLanemaskGt: "pto.get_lanemask_gt", Simt, S, NotExecutable, Generic, "-> i", ANY, BOTH, "bit mask of lanes above this one";
    SimtVoteAll: "pto.vote_all", Simt, S, NotExecutable, Generic, "x -> x", ANY, BOTH, "true if the predicate holds on every lane";
    SimtVoteAny: "pto.vote_any", Simt, S, NotExecutable, Generic, "x -> x", ANY, BOTH, "true if the predicate holds on any lane";
    SimtVoteUni: "pto.vote_uni", Simt, S, NotExecutable, Generic, "x -> x", ANY, BOTH, "true if the predicate is uniform across lanes";
    SimtVoteBallot: "pto.vote_ballot", Simt, S, NotExecutable, Generic, "x -> x", ANY, BOTH, "bit mask of lanes where the predicate holds";
    SimtShuffleIdx: "pto.shuffle_idx", Simt, S, NotExecutable, Generic, "x x -> x", ANY, BOTH, "read a value from an indexed lane";
    SimtShuffleUp: "pto.shuffle_up", Simt, S, NotExecutable, Generic, "x x -> x", ANY, BOTH, "read a value from a lower lane";
    SimtShuffleDown: "pto.shuffle_down", Simt, S, NotExecutable, Generic, "x x -> x", ANY, BOTH, "read a value from a higher lane";
    SimtShuffleBfly: "pto.shuffle_bfly", Simt, S, NotExecutable, Generic, "x x -> x", ANY, BOTH, "read a value from lane xor mask";
    SimtReduxAdd: "pto.redux_add", Simt, S, NotExecutable, Generic, "x -> x", ANY, BOTH, "warp-wide sum";
    SimtReduxMax: "pto.redux_max", Simt, S, NotExecutable, Generic, "x -> x", ANY, BOTH, "warp-wide maximum";
    SimtReduxMin: "pto.redux_min", Simt, S, NotExecutable, Generic, "x -> x", ANY, BOTH, "warp-wide minimum";
    SimtAtomicCas: "pto.atomic_cas", Simt, S, NotExecutable, Generic, "x x x -> x", ANY, BOTH, "atomic compare-and-swap";
    SimtAtomicExch: "pto.atomic_exch", Simt, S, NotExecutable, Generic, "x x -> x", ANY, BOTH, "atomic exchange";
    SimtAtomicAdd: "pto.atomic_add", Simt, S, NotExecutable, Generic, "x x -> x", ANY, BOTH, "atomic add, returns the old value";
    SimtAtomicSub: "pto.atomic_sub", Simt, S, NotExecutable, Generic, "x x -> x", ANY, BOTH, "atomic subtract, returns the old value";
    SimtAtomicMin: "pto.atomic_min", Simt, S, NotExecutable, Generic, "x x -> x", ANY, BOTH, "atomic minimum, returns the old value";
    SimtAtomicMax: "pto.atomic_max", Simt, S, NotExecutable, Generic, "x x -> x", ANY, BOTH, "atomic maximum, returns the old value";
    SimtAtomicAnd: "pto.atomic_and", Simt, S, NotExecutable, Generic, "x x -> x", ANY, BOTH, "atomic and, returns the old value";
    SimtAtomicOr: "pto.atomic_or", Simt, S, NotExecutable, Generic, "x x -> x", ANY, BOTH, "atomic or, returns the old value";
    SimtAtomicXor: "pto.atomic_xor", Simt, S, NotExecutable, Generic, "x x -> x", ANY, BOTH, "atomic xor, returns the old value";
    SimtPrmt: "pto.prmt", Simt, S, NotExecutable, Generic, "x x x -> x", ANY, BOTH, "byte permute of two words";
    SimtMulhi: "pto.mulhi", Simt, S, NotExecutable, Generic, "x x -> x", ANY, BOTH, "high half of an integer product";
    SimtMulI32toi64: "pto.mul_i32toi64", Simt, S, NotExecutable, Generic, "x x -> x", ANY, BOTH, "widening 32x32 -> 64 multiply";
    SimtSqrt: "pto.sqrt", Simt, S, NotExecutable, Generic, "x -> x", ANY, BOTH, "scalar square root";
    SimtAbsf: "pto.absf", Simt, S, NotExecutable, Generic, "x -> x", ANY, BOTH, "scalar float absolute value";
    SimtExp: "pto.exp", Simt, S, NotExecutable, Generic, "x -> x", ANY, BOTH, "scalar e^x";
    SimtLog: "pto.log", Simt, S, NotExecutable, Generic, "x -> x", ANY, BOTH, "scalar natural log";
    SimtSin: "pto.sin", Simt, S, NotExecutable, Generic, "x -> x", ANY, BOTH, "scalar sine";
    SimtCos: "pto.cos", Simt, S, NotExecutable, Generic, "x -> x", ANY, BOTH, "scalar cosine";
    SimtCeil: "pto.ceil", Simt, S, NotExecutable, Generic, "x -> x", ANY, BOTH, "round toward +inf";
    SimtFloor: "pto.floor", Simt, S, NotExecutable, Generic, "x -> x", ANY, BOTH, "round toward -inf";
    SimtRint: "pto.rint", Simt, S, NotExecutable, Generic, "x -> x", ANY, BOTH, "round to nearest even";
    SimtRound: "pto.round", Simt, S, NotExecutable, Generic, "x -> x", ANY, BOTH, "round half away from zero";
    SimtFmin: "pto.fmin", Simt, S, NotExecutable, Generic, "x x -> x", ANY, BOTH, "scalar float minimum";
    SimtFmax: "pto.fmax", Simt, S, NotExecutable, Generic, "x x -> x", ANY, BOTH, "scalar float maximum";
    SimtPow: "pto.pow", Simt, S, NotExecutable, Generic, "x x -> x", ANY, BOTH, "scalar power";
    SimtFma: "pto.fma", Simt, S, NotExecutable, Generic, "x x x -> x", ANY, BOTH, "scalar fused multiply-add";
    SimtConvert: "pto.convert", Simt, S, NotExecutable, Generic, "x -> x", ANY, BOTH, "scalar or packed-pair type conversion";
}
