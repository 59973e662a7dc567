//! Element types and per-profile dtype sets.

/// An element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum DType {
    I1,
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F16,
    BF16,
    F32,
    F64,
    /// fp8 e4m3 (A5)
    F8E4M3,
    /// fp8 e5m2 (A5)
    F8E5M2,
    /// HiFloat8 (A5)
    HiF8,
    /// packed fp4 e2m1, two per byte (A5)
    F4E2M1,
    /// packed fp4 e1m2, two per byte (A5)
    F4E1M2,
    /// MX scale, exponent only (A5)
    E8M0,
    /// int4, two per byte (A2/A3 tcvt)
    I4,
}

impl DType {
    /// All element types, in encoding order.
    pub const ALL: [DType; 20] = [
        DType::I1,
        DType::I8,
        DType::U8,
        DType::I16,
        DType::U16,
        DType::I32,
        DType::U32,
        DType::I64,
        DType::U64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
        DType::F8E4M3,
        DType::F8E5M2,
        DType::HiF8,
        DType::F4E2M1,
        DType::F4E1M2,
        DType::E8M0,
        DType::I4,
    ];

    /// Parses an MLIR element-type spelling (`f32`, `bf16`, `i8`, `si8`, `ui16`,
    /// `f8E4M3FN`, `f8E5M2`, `f4E2M1FN`, `f8E8M0FNU`, `hif8`...).
    pub fn from_mlir(s: &str) -> Option<DType> {
        Some(match s {
            "i1" => DType::I1,
            "i8" | "si8" => DType::I8,
            "ui8" | "u8" => DType::U8,
            "i16" | "si16" => DType::I16,
            "ui16" | "u16" => DType::U16,
            "i32" | "si32" => DType::I32,
            "ui32" | "u32" => DType::U32,
            "i64" | "si64" | "index" => DType::I64,
            "ui64" | "u64" => DType::U64,
            "f16" => DType::F16,
            "bf16" => DType::BF16,
            "f32" => DType::F32,
            "f64" => DType::F64,
            "f8E4M3" | "f8E4M3FN" | "f8e4m3" | "f8E4M3FNUZ" => DType::F8E4M3,
            "f8E5M2" | "f8E5M2FNUZ" | "f8e5m2" => DType::F8E5M2,
            "hif8" | "hifloat8" => DType::HiF8,
            "f4E2M1FN" | "f4E2M1" | "f4e2m1" => DType::F4E2M1,
            "f4E1M2" | "f4e1m2" | "f4E1M2FN" => DType::F4E1M2,
            "f8E8M0FNU" | "f8E8M0" | "e8m0" => DType::E8M0,
            "i4" | "si4" => DType::I4,
            _ => return None,
        })
    }

    /// Size in bits (4 for packed fp4/int4).
    pub fn bits(self) -> u32 {
        match self {
            DType::I1 => 1,
            DType::I4 | DType::F4E2M1 | DType::F4E1M2 => 4,
            DType::I8 | DType::U8 | DType::F8E4M3 | DType::F8E5M2 | DType::HiF8 | DType::E8M0 => 8,
            DType::I16 | DType::U16 | DType::F16 | DType::BF16 => 16,
            DType::I32 | DType::U32 | DType::F32 => 32,
            DType::I64 | DType::U64 | DType::F64 => 64,
        }
    }

    /// Storage bytes of one element (packed 4-bit types count one byte per pair,
    /// reported here as 1; callers that pack must halve).
    pub fn bytes(self) -> usize {
        (self.bits().max(8) / 8) as usize
    }

    /// True for floating-point types (including fp8/fp4/hif8/e8m0).
    pub fn is_float(self) -> bool {
        matches!(
            self,
            DType::F16
                | DType::BF16
                | DType::F32
                | DType::F64
                | DType::F8E4M3
                | DType::F8E5M2
                | DType::HiF8
                | DType::F4E2M1
                | DType::F4E1M2
                | DType::E8M0
        )
    }

    /// True for integer types (signed or unsigned, including i1).
    pub fn is_int(self) -> bool {
        !self.is_float()
    }

    /// True for signed integers.
    pub fn is_signed_int(self) -> bool {
        matches!(
            self,
            DType::I8 | DType::I16 | DType::I32 | DType::I64 | DType::I4
        )
    }

    /// The spelling ptovm prints.
    pub fn mlir_name(self) -> &'static str {
        match self {
            DType::I1 => "i1",
            DType::I8 => "i8",
            DType::U8 => "ui8",
            DType::I16 => "i16",
            DType::U16 => "ui16",
            DType::I32 => "i32",
            DType::U32 => "ui32",
            DType::I64 => "i64",
            DType::U64 => "ui64",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::F8E4M3 => "f8E4M3FN",
            DType::F8E5M2 => "f8E5M2",
            DType::HiF8 => "hif8",
            DType::F4E2M1 => "f4E2M1FN",
            DType::F4E1M2 => "f4E1M2",
            DType::E8M0 => "f8E8M0FNU",
            DType::I4 => "i4",
        }
    }

    fn bit(self) -> u32 {
        1 << (self as u8)
    }
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.mlir_name())
    }
}

/// A set of element types.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DtypeSet(pub u32);

impl DtypeSet {
    /// No type.
    pub const EMPTY: DtypeSet = DtypeSet(0);
    /// Every type (no check).
    pub const ANY: DtypeSet = DtypeSet(u32::MAX);

    /// Builds a set from a slice (usable in constants).
    pub const fn of(ts: &[DType]) -> DtypeSet {
        let mut m = 0u32;
        let mut i = 0;
        while i < ts.len() {
            m |= 1 << (ts[i] as u8);
            i += 1;
        }
        DtypeSet(m)
    }

    /// Union (usable in constants).
    pub const fn with(self, other: DtypeSet) -> DtypeSet {
        DtypeSet(self.0 | other.0)
    }

    /// Membership.
    pub fn contains(self, t: DType) -> bool {
        self.0 & t.bit() != 0
    }

    /// Members, in encoding order.
    pub fn iter(self) -> impl Iterator<Item = DType> {
        DType::ALL.into_iter().filter(move |t| self.contains(*t))
    }
}

impl std::fmt::Debug for DtypeSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if *self == DtypeSet::ANY {
            return f.write_str("any");
        }
        let names: Vec<_> = self.iter().map(|t| t.mlir_name()).collect();
        write!(f, "{{{}}}", names.join(","))
    }
}

/// Element types an op accepts on each profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DtypeRule {
    /// Accepted on `a2a3`.
    pub a2a3: DtypeSet,
    /// Accepted on `a5`.
    pub a5: DtypeSet,
}

use DType::*;

impl DtypeRule {
    const fn same(s: DtypeSet) -> DtypeRule {
        DtypeRule { a2a3: s, a5: s }
    }
    /// No dtype check (views, sync, control, dtype-agnostic copies).
    pub const ANY: DtypeRule = DtypeRule::same(DtypeSet::ANY);
    /// `std`: A2/A3 {i16,i32,f16,f32}; A5 adds {i8,u8,u16,u32,i64,u64,bf16}.
    pub const STD: DtypeRule = DtypeRule {
        a2a3: DtypeSet::of(&[I16, I32, F16, F32]),
        a5: DtypeSet::of(&[I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32]),
    };
    /// `fp`: f16, f32.
    pub const FP: DtypeRule = DtypeRule::same(DtypeSet::of(&[F16, F32]));
    /// `fp+bf`: f16, bf16, f32.
    pub const FPBF: DtypeRule = DtypeRule::same(DtypeSet::of(&[F16, BF16, F32]));
    /// `i16+fp`: i16, f16, f32 (`taddrelu`, A2/A3 only in PTOAS's verifier).
    pub const I16FP: DtypeRule = DtypeRule::same(DtypeSet::of(&[I16, F16, F32]));
    /// `int`: 8-32-bit integers.
    pub const INT: DtypeRule = DtypeRule::same(DtypeSet::of(&[I8, U8, I16, U16, I32, U32]));
    /// `int+64`: 8-64-bit integers.
    pub const INT64: DtypeRule =
        DtypeRule::same(DtypeSet::of(&[I8, U8, I16, U16, I32, U32, I64, U64]));
    /// `all`: every integer plus f16/bf16/f32 (A5 also fp8).
    pub const ALL: DtypeRule = DtypeRule {
        a2a3: DtypeSet::of(&[I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32]),
        a5: DtypeSet::of(&[
            I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F8E4M3, F8E5M2, HiF8,
        ]),
    };
    /// Matmul inputs: i8, f16, bf16, f32 (A5 adds fp8/fp4 via the MX forms).
    pub const MATMUL: DtypeRule = DtypeRule {
        a2a3: DtypeSet::of(&[I8, I32, F16, BF16, F32]),
        a5: DtypeSet::of(&[I8, I32, F16, BF16, F32, F8E4M3, F8E5M2, HiF8]),
    };
    /// MX matmul inputs (A5 only).
    pub const MX: DtypeRule = DtypeRule {
        a2a3: DtypeSet::EMPTY,
        a5: DtypeSet::of(&[F8E4M3, F8E5M2, F4E2M1, F4E1M2, HiF8, E8M0, F32, BF16, F16]),
    };

    /// The set for `profile`.
    pub fn for_profile(&self, p: crate::ProfileId) -> DtypeSet {
        match p {
            crate::ProfileId::A2A3 => self.a2a3,
            crate::ProfileId::A5 => self.a5,
        }
    }
}
