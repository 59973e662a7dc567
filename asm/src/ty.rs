//! Types: builtin MLIR types, PTO dialect types, and an interner.

use std::collections::HashMap;

use pto_isa_spec::DType;

/// Index of an interned type.
pub type TypeId = u32;

/// A dimension: a static extent or `?` (dynamic).
pub type Dim = Option<i64>;

/// Memory location of a tile buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum TileLoc {
    /// UB (vector tile).
    Vec,
    /// L1 (cube matrix staging).
    Mat,
    /// L0A.
    Left,
    /// L0B.
    Right,
    /// L0C.
    Acc,
    /// Bias table.
    Bias,
    /// FIXPIPE scaling buffer.
    Scaling,
    /// MX scale for L0A.
    ScaleLeft,
    /// MX scale for L0B.
    ScaleRight,
    /// Scalar / control.
    Ctrl,
}

impl TileLoc {
    /// All locations in encoding order.
    pub const ALL: [TileLoc; 10] = [
        TileLoc::Vec,
        TileLoc::Mat,
        TileLoc::Left,
        TileLoc::Right,
        TileLoc::Acc,
        TileLoc::Bias,
        TileLoc::Scaling,
        TileLoc::ScaleLeft,
        TileLoc::ScaleRight,
        TileLoc::Ctrl,
    ];

    /// Parses `vec`, `mat`, `left`, `right`, `acc`, `bias`, `scaling`, `scale_left`...
    pub fn from_name(s: &str) -> Option<TileLoc> {
        Some(match s.to_ascii_lowercase().as_str() {
            "vec" | "ub" => TileLoc::Vec,
            "mat" | "l1" | "cbuf" => TileLoc::Mat,
            "left" | "l0a" => TileLoc::Left,
            "right" | "l0b" => TileLoc::Right,
            "acc" | "l0c" => TileLoc::Acc,
            "bias" | "bt" => TileLoc::Bias,
            "scaling" | "fb" => TileLoc::Scaling,
            "scale_left" | "scaleleft" | "left_scale" => TileLoc::ScaleLeft,
            "scale_right" | "scaleright" | "right_scale" => TileLoc::ScaleRight,
            "ctrl" | "scalar" => TileLoc::Ctrl,
            _ => return None,
        })
    }

    /// Canonical spelling.
    pub fn name(self) -> &'static str {
        match self {
            TileLoc::Vec => "vec",
            TileLoc::Mat => "mat",
            TileLoc::Left => "left",
            TileLoc::Right => "right",
            TileLoc::Acc => "acc",
            TileLoc::Bias => "bias",
            TileLoc::Scaling => "scaling",
            TileLoc::ScaleLeft => "scale_left",
            TileLoc::ScaleRight => "scale_right",
            TileLoc::Ctrl => "ctrl",
        }
    }
}

/// Block (outer) layout of a tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum BLayout {
    /// Row major.
    RowMajor,
    /// Column major.
    ColMajor,
}

/// Inner-box (fractal) layout of a tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum SLayout {
    /// Plain 2-D, no fractal boxes.
    NoneBox,
    /// Row-major boxes.
    RowMajor,
    /// Column-major boxes.
    ColMajor,
}

/// A `!pto.tile_buf<...>` type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TileBuf {
    /// Memory location.
    pub loc: TileLoc,
    /// Element type.
    pub elem: TypeId,
    /// Physical rows.
    pub rows: i64,
    /// Physical columns.
    pub cols: i64,
    /// Valid rows (`None` = dynamic `?`).
    pub v_row: Dim,
    /// Valid columns.
    pub v_col: Dim,
    /// Block layout.
    pub blayout: BLayout,
    /// Box layout.
    pub slayout: SLayout,
    /// Box size in bytes (512, 1024, 32...).
    pub fractal: u32,
    /// Pad value: 0 null, 1 zero, 2 max, 3 min.
    pub pad: u32,
    /// Compact mode: 0 none, 1 normal, 2 row-plus-one, 3 row-aligned padding.
    pub compact: u32,
}

/// A type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `index`.
    Index,
    /// `none`.
    None,
    /// Signless `iN`.
    Int(u32),
    /// `siN`.
    SInt(u32),
    /// `uiN`.
    UInt(u32),
    /// A float type by spelling (`f16`, `bf16`, `f32`, `f64`, `f8E4M3FN`, ...).
    Float(String),
    /// `vector<4x8xT>`.
    Vector {
        /// Shape.
        shape: Vec<Dim>,
        /// Element type.
        elem: TypeId,
    },
    /// `memref<16x16xT, layout, space>` / `tensor<...>`: shaped builtin types with
    /// trailing attributes kept as normalized text.
    Shaped {
        /// `memref` or `tensor`.
        kind: String,
        /// Shape (empty for unranked `*`; then `unranked` is true).
        shape: Vec<Dim>,
        /// Unranked (`memref<*xf32>`).
        unranked: bool,
        /// Element type.
        elem: TypeId,
        /// Remaining parameters after the element type, normalized text.
        rest: Option<String>,
    },
    /// `(T, U) -> (V)`.
    Function {
        /// Inputs.
        ins: Vec<TypeId>,
        /// Results.
        outs: Vec<TypeId>,
    },
    /// `!pto.ptr<T[, space]>`.
    Ptr {
        /// Pointee.
        elem: TypeId,
        /// Address space (`gm`, `ub`, `l1`, ...), if written.
        space: Option<String>,
    },
    /// `!pto.tensor_view<...>`.
    TensorView {
        /// Shape.
        shape: Vec<Dim>,
        /// Element type.
        elem: TypeId,
    },
    /// `!pto.partition_tensor_view<...>`.
    PartitionView {
        /// Shape.
        shape: Vec<Dim>,
        /// Element type.
        elem: TypeId,
    },
    /// `!pto.tile_buf<...>`.
    TileBuf(TileBuf),
    /// `!pto.tile<16x16xf32>` (Level-1 SSA tile; PTO-AS `!pto.tile<f32, 16, 16>`).
    Tile {
        /// Shape.
        shape: Vec<Dim>,
        /// Element type.
        elem: TypeId,
    },
    /// `!pto.vreg<64xf32>`.
    VReg {
        /// Lanes.
        lanes: i64,
        /// Element type.
        elem: TypeId,
    },
    /// `!pto.mask<b32>` (granularity as written, or empty).
    Mask(String),
    /// `!pto.align`.
    Align,
    /// Any other dialect type: `!name<params>` with normalized params text.
    Opaque {
        /// Name without `!` (`pto.vmi.vreg`).
        name: String,
        /// Parameters between the angle brackets, normalized.
        params: Option<String>,
    },
    /// A stripped type `<...>` whose kind the op implies.
    Stripped(String),
}

impl Type {
    /// The element dtype of a scalar type, or `None`.
    pub fn scalar_dtype(&self) -> Option<DType> {
        match self {
            Type::Index => Some(DType::I64),
            Type::Int(1) => Some(DType::I1),
            Type::Int(w) | Type::SInt(w) => DType::from_mlir(&format!("i{w}")),
            Type::UInt(w) => DType::from_mlir(&format!("ui{w}")),
            Type::Float(s) => DType::from_mlir(s),
            Type::Opaque { name, params: None } => match name.as_str() {
                "pto.hif8" => Some(DType::HiF8),
                "pto.f8E8M0" => Some(DType::E8M0),
                "pto.f4E2M1x2" => Some(DType::F4E2M1),
                "pto.f4E1M2x2" => Some(DType::F4E1M2),
                _ => None,
            },
            _ => None,
        }
    }

    /// True for integer, index and float scalars.
    pub fn is_scalar(&self) -> bool {
        matches!(
            self,
            Type::Index | Type::Int(_) | Type::SInt(_) | Type::UInt(_) | Type::Float(_)
        )
    }

    /// True for integers and index.
    pub fn is_int_like(&self) -> bool {
        matches!(
            self,
            Type::Index | Type::Int(_) | Type::SInt(_) | Type::UInt(_)
        )
    }

    /// True for floats.
    pub fn is_float(&self) -> bool {
        matches!(self, Type::Float(_))
    }
}

/// The type interner of one file.
#[derive(Clone, Debug, Default)]
pub struct Types {
    list: Vec<Type>,
    map: HashMap<Type, TypeId>,
}

impl Types {
    /// Interns a type.
    pub fn intern(&mut self, t: Type) -> TypeId {
        if let Some(id) = self.map.get(&t) {
            return *id;
        }
        let id = self.list.len() as TypeId;
        self.list.push(t.clone());
        self.map.insert(t, id);
        id
    }

    /// The type for an id. Ids come from this interner; an unknown id yields `none`.
    pub fn get(&self, id: TypeId) -> &Type {
        self.list.get(id as usize).unwrap_or(&Type::None)
    }

    /// Number of interned types.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// All types in id order.
    pub fn iter(&self) -> impl Iterator<Item = &Type> {
        self.list.iter()
    }

    /// Element dtype of a scalar, or of the element of a shaped/tile/vreg/ptr type.
    pub fn elem_dtype(&self, id: TypeId) -> Option<DType> {
        match self.get(id) {
            Type::TileBuf(tb) => self.get(tb.elem).scalar_dtype(),
            Type::Tile { elem, .. }
            | Type::VReg { elem, .. }
            | Type::Ptr { elem, .. }
            | Type::TensorView { elem, .. }
            | Type::PartitionView { elem, .. }
            | Type::Vector { elem, .. }
            | Type::Shaped { elem, .. } => self.get(*elem).scalar_dtype(),
            t => t.scalar_dtype(),
        }
    }
}
