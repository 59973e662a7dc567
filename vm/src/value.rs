//! Runtime values of the scalar unit and the descriptors pipe instructions carry.

use pto_asm::ty::{BLayout, SLayout, TileLoc};
use pto_isa_spec::DType;

/// A memory space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Space {
    /// Global memory (shared by all cores).
    Gm,
    /// Unified buffer.
    Ub,
    /// L1.
    L1,
    /// L0A.
    L0a,
    /// L0B.
    L0b,
    /// L0C.
    L0c,
    /// Bias table.
    Bias,
    /// FIXPIPE buffer.
    Fb,
}

impl Space {
    /// Spaces local to a core, in index order.
    pub const LOCAL: [Space; 7] = [
        Space::Ub,
        Space::L1,
        Space::L0a,
        Space::L0b,
        Space::L0c,
        Space::Bias,
        Space::Fb,
    ];

    /// From the address-space spelling of `!pto.ptr<T, space>`.
    pub fn from_name(s: &str) -> Option<Space> {
        Some(match s {
            "gm" | "global" => Space::Gm,
            "ub" | "vec" => Space::Ub,
            "l1" | "mat" | "cbuf" => Space::L1,
            "l0a" | "left" | "ca" => Space::L0a,
            "l0b" | "right" | "cb" => Space::L0b,
            "l0c" | "acc" | "cc" => Space::L0c,
            "bias" | "bt" => Space::Bias,
            "fb" | "scaling" => Space::Fb,
            _ => return None,
        })
    }

    /// The buffer that holds tiles of a location.
    pub fn of_tile(loc: TileLoc) -> Space {
        match loc {
            TileLoc::Vec | TileLoc::Ctrl => Space::Ub,
            TileLoc::Mat => Space::L1,
            TileLoc::Left | TileLoc::ScaleLeft => Space::L0a,
            TileLoc::Right | TileLoc::ScaleRight => Space::L0b,
            TileLoc::Acc => Space::L0c,
            TileLoc::Bias => Space::Bias,
            TileLoc::Scaling => Space::Fb,
        }
    }

    /// Short name for messages.
    pub fn name(self) -> &'static str {
        match self {
            Space::Gm => "GM",
            Space::Ub => "UB",
            Space::L1 => "L1",
            Space::L0a => "L0A",
            Space::L0b => "L0B",
            Space::L0c => "L0C",
            Space::Bias => "BT",
            Space::Fb => "FB",
        }
    }

    /// Index among [`Space::LOCAL`] (GM has none).
    pub fn local_index(self) -> Option<usize> {
        Space::LOCAL.iter().position(|s| *s == self)
    }
}

/// A typed pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ptr {
    /// Space.
    pub space: Space,
    /// Byte address within the space.
    pub addr: u64,
    /// Element type (for `addptr` scaling and vector loads).
    pub elem: DType,
}

/// A GM tensor view (`make_tensor_view` / `partition_view`), up to 5-D.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// Byte address of element (0, ..., 0) in GM.
    pub base: u64,
    /// Element type.
    pub elem: DType,
    /// Shape, right-aligned to 5 dims (leading 1s).
    pub shape: [i64; 5],
    /// Strides in elements, right-aligned.
    pub strides: [i64; 5],
    /// Layout: `nd`, `dn` or `nz`.
    pub layout: ViewLayout,
}

/// GM layout of a view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewLayout {
    /// Row-major N-D.
    Nd,
    /// Column-major (transposed 2-D).
    Dn,
    /// Fractal NZ.
    Nz,
}

impl View {
    /// Number of rows a tile sees (product of the first four dims) and columns (last dim).
    pub fn rows_cols(&self) -> (i64, i64) {
        // saturating: hostile shapes must not overflow (callers bound the count)
        let rows = self.shape[..4]
            .iter()
            .fold(1i64, |a, d| a.saturating_mul(*d));
        (rows, self.shape[4])
    }

    /// Byte address of tile coordinate (r, c), `base + offset(r, c) *
    /// element size`, or None when that overflows or leaves `0..2^63`
    /// (hostile strides).
    pub fn byte_addr(&self, r: i64, c: i64) -> Option<u64> {
        let mut rem = r;
        let mut off = 0i64;
        for d in (0..4).rev() {
            let n = self.shape[d].max(1);
            off = off.checked_add((rem % n).checked_mul(self.strides[d])?)?;
            rem /= n;
        }
        off = off.checked_add(c.checked_mul(self.strides[4])?)?;
        let bytes = off.checked_mul(self.elem.bytes() as i64)?;
        let a = i64::try_from(self.base).ok()?.checked_add(bytes)?;
        u64::try_from(a).ok()
    }

    /// [`View::byte_addr`], or a fault naming the element when hostile
    /// strides or offsets send it below 0 or past 2^63.
    pub fn addr_of(&self, r: i64, c: i64) -> Result<u64, crate::exec::Fault> {
        match self.byte_addr(r, c) {
            Some(a) => Ok(a),
            None => crate::exec::fault(format!(
                "view element ({r}, {c}) lies outside the address space (before 0 or past 2^63: check the view's strides {:?})",
                self.strides
            )),
        }
    }

    /// Element offset (in elements, from `base`) of tile coordinate (r, c).
    /// Saturates where hostile strides overflow (the result then lies far
    /// outside every buffer; [`View::byte_addr`] says so exactly).
    pub fn offset(&self, r: i64, c: i64) -> i64 {
        let mut rem = r;
        let mut off = 0i64;
        for d in (0..4).rev() {
            let n = self.shape[d].max(1);
            off = off.saturating_add((rem % n).saturating_mul(self.strides[d]));
            rem /= n;
        }
        off.saturating_add(c.saturating_mul(self.strides[4]))
    }
}

/// A tile descriptor: where a tile lives and how it is laid out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tile {
    /// Location (selects the buffer).
    pub loc: TileLoc,
    /// Byte address inside the buffer.
    pub addr: u64,
    /// Element type.
    pub elem: DType,
    /// Physical rows.
    pub rows: i64,
    /// Physical columns.
    pub cols: i64,
    /// Valid rows.
    pub v_row: i64,
    /// Valid columns.
    pub v_col: i64,
    /// Block layout.
    pub blayout: BLayout,
    /// Box layout.
    pub slayout: SLayout,
    /// Box size in bytes.
    pub fractal: u32,
    /// Pad value kind (0 null, 1 zero, 2 max, 3 min).
    pub pad: u32,
}

impl Tile {
    /// Bytes of storage.
    pub fn bytes(&self) -> u64 {
        (self.rows * self.cols) as u64 * self.elem.bytes() as u64
    }

    /// Element offset of (r, c) within the tile storage (see the layout module).
    pub fn elem_offset(&self, r: i64, c: i64) -> i64 {
        crate::layout::offset(self, r, c)
    }

    /// Address of element (r, c): faults unless the coordinate lies inside the
    /// tile's shape and the element's bytes lie inside the tile's storage (a
    /// boxed layout can map an in-shape coordinate past the tile's end when
    /// the shape is not a whole number of boxes).
    pub fn elem_addr(&self, r: i64, c: i64) -> Result<u64, crate::exec::Fault> {
        if r < 0 || c < 0 || r >= self.rows || c >= self.cols {
            return crate::exec::fault(format!(
                "element ({r}, {c}) is outside the {}x{} tile",
                self.rows, self.cols
            ));
        }
        let es = self.elem.bytes() as u64;
        let off = crate::layout::offset(self, r, c);
        let size = self.bytes();
        match (off as u64).checked_mul(es) {
            Some(b) if off >= 0 && b + es <= size => Ok(self.addr + b),
            _ => crate::exec::fault(format!(
                "element ({r}, {c}) of the {}x{} {:?} tile maps to byte offset {}, outside the tile's {size} bytes at {:#x}..{:#x}",
                self.rows,
                self.cols,
                self.elem,
                off.saturating_mul(es as i64),
                self.addr,
                self.addr + size
            )),
        }
    }
}

/// A runtime value.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// No value yet / no payload.
    Unit,
    /// Integer or index (sign-extended from its width).
    Int(i64),
    /// Float scalar.
    Float(f64),
    /// Pointer.
    Ptr(Ptr),
    /// GM view.
    View(Box<View>),
    /// Tile.
    Tile(Box<Tile>),
    /// Vector register: 256 bytes.
    VReg(Box<[u8; 256]>),
    /// Predicate: one bit per vreg byte.
    Mask(Box<[u8; 32]>),
    /// An event-id array (`!pto.eventid_array<N>`).
    Ids(Vec<i64>),
    /// A VMI logical vector (`!pto.vmi.vreg<LxT>`): the bytes of its lanes,
    /// little-endian; the element type travels with each op (`exec::vmi`).
    Lanes(Vec<u8>),
    /// A VMI logical mask (`!pto.vmi.mask<L>`): one flag per lane.
    LMask(Vec<bool>),
}

impl Val {
    /// Integer view of a scalar (floats truncate toward zero).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Val::Int(v) => Some(*v),
            Val::Float(f) => Some(*f as i64),
            _ => None,
        }
    }

    /// Float view of a scalar.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Val::Int(v) => Some(*v as f64),
            Val::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// Short description for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Val::Unit => "no value",
            Val::Int(_) => "an integer",
            Val::Float(_) => "a float",
            Val::Ptr(_) => "a pointer",
            Val::View(_) => "a GM view",
            Val::Tile(_) => "a tile",
            Val::VReg(_) => "a vector register",
            Val::Mask(_) => "a mask",
            Val::Ids(_) => "an event-id array",
            Val::Lanes(_) => "a VMI vector",
            Val::LMask(_) => "a VMI mask",
        }
    }
}
