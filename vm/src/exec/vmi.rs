//! The VMI layer (`pto.vmi.*`): PTOAS's layout-agnostic vector IR, executed
//! at its logical level. A `!pto.vmi.vreg<LxT>` is a flat sequence of `L`
//! lanes of `T` (any `L`, so one value may span several hardware registers)
//! and a `!pto.vmi.mask<L>` one flag per lane; the physical layouts PTOAS
//! assigns when it lowers VMI (parity halves, parts, packs) never show, since
//! every VMI op is defined on logical lanes.
//!
//! Element types travel with the op: lowering attaches the type of every
//! operand (`$in`, in order) and result (`$out`). Integer signedness follows
//! the element type: `siN` is signed, `uiN` and signless `iN` are unsigned
//! (PTOAS normalises signless to unsigned), except that an int-to-float
//! conversion reads a signless source as signed (it lowers to `sitofp`) and
//! `vmull` multiplies signless `i32` as signed (only `ui32` is unsigned).
//! Masked-off lanes of a computed vector are zero (`pmode = "merge"` keeps
//! the first vector operand's lane); masked-off lanes of a store are not
//! written.

use pto_isa_spec::{DType, Opcode};

use crate::exec::tile::{fmax, fmin};
use crate::exec::vec_convert::{convert, round_to_float, Rnd};
use crate::exec::vec_pred::UbMem;
use crate::exec::{fault, minifloat, Accesses, Fault};
use crate::num::{read, write, Num};
use crate::program::{attr, AttrVal, Attrs};
use crate::value::{Ptr, Space, Val};

/// How an element's bits are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sign {
    Float,
    Signless,
    Signed,
    Unsigned,
}

/// A VMI element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ety {
    dt: DType,
    sign: Sign,
    /// Storage bytes of one lane.
    bytes: usize,
    /// A packed pair (`!pto.bf16x2`, `!pto.f4E1M2x2`...): two `dt` values per lane.
    pair: bool,
}

impl Ety {
    fn parse(s: &str) -> Option<Ety> {
        let s = s.trim().trim_matches('"');
        let s = s.strip_prefix("!pto.").unwrap_or(s);
        let pair = |dt: DType, bytes| Ety {
            dt,
            sign: Sign::Float,
            bytes,
            pair: true,
        };
        match s {
            "bf16x2" => return Some(pair(DType::BF16, 4)),
            "f4E1M2x2" => return Some(pair(DType::F4E1M2, 1)),
            "f4E2M1x2" => return Some(pair(DType::F4E2M1, 1)),
            "index" => {
                return Some(Ety {
                    dt: DType::I64,
                    sign: Sign::Signed,
                    bytes: 8,
                    pair: false,
                })
            }
            _ => {}
        }
        let int = |w: &str, sign: Sign| -> Option<Ety> {
            let w: u32 = w.parse().ok()?;
            let dt = match (w, sign) {
                (1, _) => DType::I1,
                (8, Sign::Signed) => DType::I8,
                (8, _) => DType::U8,
                (16, Sign::Signed) => DType::I16,
                (16, _) => DType::U16,
                (32, Sign::Signed) => DType::I32,
                (32, _) => DType::U32,
                (64, Sign::Signed) => DType::I64,
                (64, _) => DType::U64,
                _ => return None,
            };
            Some(Ety {
                dt,
                sign,
                bytes: dt.bytes(),
                pair: false,
            })
        };
        if let Some(w) = s.strip_prefix("si") {
            return int(w, Sign::Signed);
        }
        if let Some(w) = s.strip_prefix("ui") {
            return int(w, Sign::Unsigned);
        }
        if let Some(w) = s.strip_prefix('i') {
            if w.chars().all(|c| c.is_ascii_digit()) {
                return int(w, Sign::Signless);
            }
        }
        let dt = match s {
            "fp8_e4m3" | "f8E4M3" => DType::F8E4M3,
            "fp8_e5m2" => DType::F8E5M2,
            "f8E8M0" => DType::E8M0,
            other => DType::from_mlir(other)?,
        };
        dt.is_float().then_some(Ety {
            dt,
            sign: Sign::Float,
            bytes: dt.bytes(),
            pair: false,
        })
    }

    fn float(self) -> bool {
        self.sign == Sign::Float
    }

    fn bits(self) -> u32 {
        (self.bytes * 8) as u32
    }

    /// The dtype of a signed reading (int-to-float conversions).
    fn signed_dt(self) -> DType {
        match self.bytes {
            1 => DType::I8,
            2 => DType::I16,
            4 => DType::I32,
            _ => DType::I64,
        }
    }
}

/// A VMI operand or result type.
#[derive(Clone, Copy, Debug)]
enum Ty {
    /// Vector of `n` lanes.
    V(usize, Ety),
    /// Mask of `n` lanes.
    M(usize),
    /// UB pointer to elements.
    P(Ety),
    /// Scalar.
    S(Ety),
    /// Unknown.
    Other,
}

fn parse_ty(s: &str) -> Ty {
    let inner = |p: &str| -> Option<&str> { s.strip_prefix(p)?.strip_suffix('>') };
    if let Some(x) = inner("!pto.vmi.vreg<") {
        if let Some((n, e)) = x.split_once('x') {
            if let (Ok(n), Some(e)) = (n.trim().parse(), Ety::parse(e)) {
                return Ty::V(n, e);
            }
        }
        return Ty::Other;
    }
    if let Some(x) = inner("!pto.vmi.mask<") {
        let n = x.split('x').next().unwrap_or("").trim();
        return n.parse().map(Ty::M).unwrap_or(Ty::Other);
    }
    if let Some(x) = inner("!pto.ptr<") {
        let e = x.rsplit_once(',').map(|(e, _)| e).unwrap_or(x);
        return Ety::parse(e).map(Ty::P).unwrap_or(Ty::Other);
    }
    Ety::parse(s).map(Ty::S).unwrap_or(Ty::Other)
}

/// Reads lane `i`.
fn get(d: &[u8], i: usize, e: Ety) -> Num {
    let b = &d[i * e.bytes..(i + 1) * e.bytes];
    let mut r = [0u8; 8];
    r[..e.bytes].copy_from_slice(b);
    let raw = u64::from_le_bytes(r);
    match e.sign {
        Sign::Float => match e.dt {
            DType::F32 | DType::F16 | DType::BF16 | DType::F64 => read(b, e.dt),
            dt => Num::F(minifloat::decode(raw, dt)),
        },
        Sign::Signed => {
            let sh = 64 - e.bits();
            Num::I(((raw << sh) as i64) >> sh)
        }
        Sign::Signless | Sign::Unsigned => Num::I(raw as i64),
    }
}

/// Writes lane `i` (floats rounded to nearest even, integers wrap).
fn put(d: &mut [u8], i: usize, e: Ety, x: Num) {
    let b = &mut d[i * e.bytes..(i + 1) * e.bytes];
    match e.sign {
        Sign::Float => match e.dt {
            DType::F32 | DType::F16 | DType::BF16 | DType::F64 => write(b, e.dt, x),
            dt => b[0] = minifloat::encode(x.f(), dt, Rnd::R, false) as u8,
        },
        _ => {
            let v = match x {
                Num::I(v) => v,
                Num::F(f) => f as i64,
            };
            b.copy_from_slice(&v.to_le_bytes()[..e.bytes]);
        }
    }
}

/// The operands of one op, with their types.
struct Ops<'a> {
    vals: &'a [Val],
    tys: Vec<Ty>,
    outs: Vec<Ty>,
    attrs: &'a Attrs,
    name: &'static str,
}

/// A vector operand.
#[derive(Clone, Copy)]
struct V<'a> {
    d: &'a [u8],
    n: usize,
    e: Ety,
}

impl V<'_> {
    fn at(&self, i: usize) -> Num {
        get(self.d, i, self.e)
    }
}

impl<'a> Ops<'a> {
    fn err<T>(&self, msg: impl std::fmt::Display) -> Result<T, Fault> {
        fault(format!("'pto.vmi.{}' {msg}", self.name))
    }

    fn vecs(&self) -> Vec<V<'a>> {
        self.vals
            .iter()
            .zip(&self.tys)
            .filter_map(|(v, t)| match (v, t) {
                (Val::Lanes(d), Ty::V(n, e)) => Some(V { d, n: *n, e: *e }),
                _ => None,
            })
            .collect()
    }

    fn vec(&self, k: usize) -> Result<V<'a>, Fault> {
        match self.vecs().get(k) {
            Some(v) => Ok(*v),
            None => self.err(format!("needs vector operand {}", k + 1)),
        }
    }

    fn masks(&self) -> Vec<&'a [bool]> {
        self.vals
            .iter()
            .filter_map(|v| match v {
                Val::LMask(m) => Some(m.as_slice()),
                _ => None,
            })
            .collect()
    }

    /// Scalars with their types.
    fn scalars(&self) -> Vec<(&'a Val, Option<Ety>)> {
        self.vals
            .iter()
            .zip(&self.tys)
            .filter_map(|(v, t)| match (v, t) {
                (Val::Int(_) | Val::Float(_), Ty::S(e)) => Some((v, Some(*e))),
                (Val::Int(_) | Val::Float(_), _) => Some((v, None)),
                _ => None,
            })
            .collect()
    }

    fn int(&self, k: usize) -> Result<i64, Fault> {
        match self.scalars().get(k).and_then(|(v, _)| v.as_i64()) {
            Some(v) => Ok(v),
            None => self.err(format!("needs scalar operand {}", k + 1)),
        }
    }

    fn ptr(&self) -> Result<(Ptr, Ety), Fault> {
        for (v, t) in self.vals.iter().zip(&self.tys) {
            if let Val::Ptr(p) = v {
                let e = match t {
                    Ty::P(e) => *e,
                    _ => return self.err("needs a typed !pto.ptr operand"),
                };
                if p.space != Space::Ub {
                    return self.err(format!("needs a UB pointer, got {}", p.space.name()));
                }
                return Ok((*p, e));
            }
        }
        self.err("needs a pointer operand")
    }

    fn out(&self, k: usize) -> Result<(usize, Ety), Fault> {
        match self.outs.get(k) {
            Some(Ty::V(n, e)) => Ok((*n, *e)),
            _ => self.err(format!("result {} is not a !pto.vmi.vreg", k + 1)),
        }
    }

    fn out_mask_lanes(&self) -> Result<usize, Fault> {
        match self.outs.first() {
            Some(Ty::M(n)) => Ok(*n),
            _ => self.err("result is not a !pto.vmi.mask"),
        }
    }

    fn int_attr(&self, keys: &[&str]) -> Option<i64> {
        keys.iter().find_map(|k| match attr(self.attrs, k) {
            Some(AttrVal::Int(v)) => Some(*v),
            _ => None,
        })
    }

    fn sym(&self, key: &str) -> Option<&'a str> {
        match attr(self.attrs, key) {
            Some(AttrVal::Sym(s)) => Some(s.trim_matches('"')),
            _ => None,
        }
    }

    fn merge(&self) -> bool {
        self.sym("pmode") == Some("merge")
    }
}

fn lanes(n: usize, e: Ety) -> Vec<u8> {
    vec![0u8; n * e.bytes]
}

fn on(m: Option<&[bool]>, i: usize) -> bool {
    m.is_none_or(|m| m.get(i).copied().unwrap_or(false))
}

/// A VMI type as the scope compiler sees it ([`shape`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// `!pto.vmi.vreg<LxT>`: `lanes` lanes of `lane` bytes; `dt` and the
    /// signedness say how a lane reads (packed pairs are `Other`).
    Vec {
        lanes: usize,
        lane: usize,
        dt: DType,
        float: bool,
        signed: bool,
    },
    /// `!pto.vmi.mask<L>`.
    Mask { lanes: usize },
    /// A UB pointer to elements of `lane` bytes.
    Ptr { lane: usize },
    /// Anything else (scalars, pairs).
    Other,
}

/// The [`Shape`] of a VMI type's text (a `$in`/`$out` attribute).
pub(crate) fn shape(ty: &str) -> Shape {
    match parse_ty(ty) {
        Ty::V(lanes, e) if !e.pair => Shape::Vec {
            lanes,
            lane: e.bytes,
            dt: e.dt,
            float: e.float(),
            signed: e.sign == Sign::Signed,
        },
        Ty::M(lanes) => Shape::Mask { lanes },
        Ty::P(e) if !e.pair => Shape::Ptr { lane: e.bytes },
        _ => Shape::Other,
    }
}

/// The bytes of a value of VMI vector type `ty` (packed pairs too).
pub(crate) fn vec_bytes(ty: &str) -> Option<usize> {
    match parse_ty(ty) {
        Ty::V(n, e) => n.checked_mul(e.bytes),
        _ => None,
    }
}

/// The canonical name of a lane-wise binary VMI op (`vadd`, `addf` and
/// `addi` are `add`...), or None.
pub(crate) fn binary_kind(op: Opcode) -> Option<&'static str> {
    let n = op.name().strip_prefix("pto.vmi.")?;
    match n {
        "vadd" | "addf" | "addi" | "vsub" | "subf" | "subi" | "vmul" | "mulf" | "muli" | "vdiv"
        | "divf" | "vmax" | "maxf" | "maxi" | "vmin" | "minf" | "mini" | "vand" | "andi"
        | "vor" | "ori" | "vxor" | "xori" => Some(canon(n)),
        _ => None,
    }
}

/// Whether `op` (a VMI op [`implemented`]) reads or writes UB.
pub fn ub_op(op: Opcode) -> bool {
    matches!(
        op.name().strip_prefix("pto.vmi."),
        Some(
            "vload"
                | "load"
                | "group_load"
                | "vstore"
                | "store"
                | "group_store"
                | "vgather"
                | "vgatherb"
                | "vscatter"
        )
    )
}

/// Whether the interpreter executes `op` (a `pto.vmi.*` op it knows).
pub fn implemented(op: Opcode) -> bool {
    op.name()
        .strip_prefix("pto.vmi.")
        .is_some_and(|n| KNOWN.contains(&n))
}

const KNOWN: &[&str] = &[
    "vadd",
    "addf",
    "addi",
    "vsub",
    "subf",
    "subi",
    "vmul",
    "mulf",
    "muli",
    "vdiv",
    "divf",
    "vmax",
    "maxf",
    "maxi",
    "vmin",
    "minf",
    "mini",
    "vand",
    "andi",
    "vor",
    "ori",
    "vxor",
    "xori",
    "vshl",
    "shli",
    "vshr",
    "shrui",
    "shrsi",
    "vabs",
    "absf",
    "absi",
    "vneg",
    "negf",
    "negi",
    "vrelu",
    "relu",
    "vexp",
    "exp",
    "vln",
    "ln",
    "vsqrt",
    "sqrt",
    "vnot",
    "not",
    "vadds",
    "vmuls",
    "vmaxs",
    "vmins",
    "vshls",
    "vshrs",
    "vexpdif",
    "vaxpy",
    "vlrelu",
    "vprelu",
    "fma",
    "mask_and",
    "mask_or",
    "mask_xor",
    "mask_not",
    "vcmp",
    "vcmps",
    "cmpf",
    "cmpi",
    "vsel",
    "select",
    "vselr",
    "vcadd",
    "vcmax",
    "vcmin",
    "reduce_addi",
    "reduce_addf",
    "reduce_maxf",
    "reduce_minf",
    "reduce_maxi",
    "reduce_mini",
    "group_reduce_addf",
    "group_reduce_maxf",
    "group_reduce_minf",
    "group_reduce_addi",
    "group_reduce_maxi",
    "group_reduce_mini",
    "vbrc",
    "broadcast",
    "group_broadcast",
    "vci",
    "iota",
    "group_iota",
    "create_mask",
    "create_group_mask",
    "pset",
    "constant_mask",
    "vcvt",
    "extf",
    "truncf",
    "fptosi",
    "fptoui",
    "sitofp",
    "extsi",
    "extui",
    "trunci",
    "vinterpret_cast",
    "bitcast",
    "vload",
    "load",
    "vstore",
    "store",
    "group_load",
    "group_store",
    "vgather",
    "vgatherb",
    "vscatter",
    "vmull",
    "vintlv",
    "vdintlv",
    "vdhist",
    "vchist",
];

/// Executes a `pto.vmi.*` op: `srcs` are the operand values in textual order,
/// the result is one value per result of the op.
pub fn run(
    op: Opcode,
    srcs: &[Val],
    attrs: &Attrs,
    ub: &mut dyn UbMem,
    acc: &mut Accesses,
) -> Result<Vec<Val>, Fault> {
    let name = op.name().strip_prefix("pto.vmi.").unwrap_or(op.name());
    let types = |key: &str| -> Vec<Ty> {
        attrs
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| match v {
                AttrVal::Sym(s) => parse_ty(s),
                _ => Ty::Other,
            })
            .collect()
    };
    let o = Ops {
        vals: srcs,
        tys: types("$in"),
        outs: types("$out"),
        attrs,
        name,
    };
    match name {
        "vadd" | "addf" | "addi" | "vsub" | "subf" | "subi" | "vmul" | "mulf" | "muli" | "vdiv"
        | "divf" | "vmax" | "maxf" | "maxi" | "vmin" | "minf" | "mini" | "vshl" | "shli"
        | "vshr" | "shrui" | "shrsi" | "vprelu" => binary(&o),
        "vand" | "andi" | "vor" | "ori" | "vxor" | "xori" => {
            if o.vecs().is_empty() {
                mask_logic(&o)
            } else {
                binary(&o)
            }
        }
        "mask_and" | "mask_or" | "mask_xor" | "mask_not" => mask_logic(&o),
        "vnot" | "not" if o.vecs().is_empty() => mask_logic(&o),
        "vabs" | "absf" | "absi" | "vneg" | "negf" | "negi" | "vrelu" | "relu" | "vexp" | "exp"
        | "vln" | "ln" | "vsqrt" | "sqrt" | "vnot" | "not" => unary(&o),
        "vadds" | "vmuls" | "vmaxs" | "vmins" | "vshls" | "vshrs" | "vlrelu" => vec_scalar(&o),
        "vexpdif" | "vaxpy" | "fma" => fused(&o),
        "vcmp" | "vcmps" | "cmpf" | "cmpi" => compare(&o),
        "vsel" | "select" => select(&o),
        "vselr" => {
            let (src, idx) = (o.vec(0)?, o.vec(1)?);
            let (n, e) = o.out(0)?;
            let mut d = lanes(n, e);
            for i in 0..n {
                let k = idx.at(i).i();
                if k >= 0 && (k as usize) < src.n {
                    put(&mut d, i, e, src.at(k as usize));
                }
            }
            Ok(vec![Val::Lanes(d)])
        }
        "vcadd" | "vcmax" | "vcmin" | "reduce_addi" | "reduce_addf" | "reduce_maxf"
        | "reduce_minf" | "reduce_maxi" | "reduce_mini" | "group_reduce_addf"
        | "group_reduce_maxf" | "group_reduce_minf" | "group_reduce_addi" | "group_reduce_maxi"
        | "group_reduce_mini" => reduce(&o),
        "vbrc" | "broadcast" | "group_broadcast" => broadcast(&o),
        "vci" | "iota" | "group_iota" => iota(&o),
        "create_mask" | "create_group_mask" | "pset" => make_mask(&o),
        "constant_mask" => {
            let n = o.out_mask_lanes()?;
            let Some(text) = o.sym("value") else {
                return o.err("needs a dense value");
            };
            // `[true, false, ...]` (or one splat value), optionally `: type`
            let body = text.split(':').next().unwrap_or("");
            let flags: Vec<bool> = body
                .split(|c: char| c == ',' || c == '[' || c == ']' || c.is_whitespace())
                .filter(|w| !w.is_empty())
                .map(|w| w == "true" || w == "1")
                .collect();
            let r = match flags.as_slice() {
                [one] => vec![*one; n],
                f if f.len() == n => f.to_vec(),
                f => return o.err(format!("has {} values for {n} lanes", f.len())),
            };
            Ok(vec![Val::LMask(r)])
        }
        "vcvt" | "extf" | "truncf" | "fptosi" | "fptoui" | "sitofp" | "extsi" | "extui"
        | "trunci" => cvt(&o),
        "vinterpret_cast" | "bitcast" => {
            let v = o.vec(0)?;
            let (n, e) = o.out(0)?;
            let mut d = lanes(n, e);
            let k = d.len().min(v.d.len());
            d[..k].copy_from_slice(&v.d[..k]);
            Ok(vec![Val::Lanes(d)])
        }
        "vload" | "load" | "group_load" => load(&o, ub, acc),
        "vstore" | "store" | "group_store" => store(&o, ub, acc).map(|_| vec![]),
        "vgather" | "vgatherb" => gather(&o, ub, acc),
        "vscatter" => scatter(&o, ub, acc).map(|_| vec![]),
        "vmull" => {
            let (a, b) = (o.vec(0)?, o.vec(1)?);
            let m = o.masks().first().copied();
            let (n, e) = o.out(0)?;
            let (mut lo, mut hi) = (lanes(n, e), lanes(n, e));
            for i in 0..n.min(a.n) {
                if !on(m, i) {
                    continue;
                }
                // signless i32 multiplies as signed (only ui32 is unsigned)
                let val = |v: &V, i: usize| -> i128 {
                    if v.e.sign == Sign::Unsigned {
                        v.at(i).i() as i128
                    } else {
                        get(
                            &v.at(i).i().to_le_bytes(),
                            0,
                            Ety {
                                sign: Sign::Signed,
                                ..v.e
                            },
                        )
                        .i() as i128
                    }
                };
                let p = val(&a, i) * val(&b, i);
                put(&mut lo, i, e, Num::I(p as i64));
                put(&mut hi, i, e, Num::I((p >> 32) as i64));
            }
            Ok(vec![Val::Lanes(lo), Val::Lanes(hi)])
        }
        "vintlv" | "vdintlv" => {
            let (a, b) = (o.vec(0)?, o.vec(1)?);
            let (n, e) = o.out(0)?;
            let es = e.bytes;
            // the stream a ++ b of 2n lanes, or its interleaving
            let mut lo = lanes(n, e);
            let mut hi = lanes(n, e);
            let src = |k: usize| -> &[u8] {
                if k < n {
                    &a.d[k * es..(k + 1) * es]
                } else {
                    &b.d[(k - n) * es..(k - n + 1) * es]
                }
            };
            for k in 0..2 * n {
                // vintlv: out[k] = (k even ? a : b)[k / 2]; vdintlv is its inverse
                let (from, to) = if name == "vintlv" {
                    (if k % 2 == 0 { k / 2 } else { n + k / 2 }, k)
                } else {
                    (k, if k % 2 == 0 { k / 2 } else { n + k / 2 })
                };
                let dst = if to < n {
                    &mut lo[to * es..(to + 1) * es]
                } else {
                    &mut hi[(to - n) * es..(to - n + 1) * es]
                };
                dst.copy_from_slice(src(from));
            }
            Ok(vec![Val::Lanes(lo), Val::Lanes(hi)])
        }
        "vdhist" | "vchist" => {
            let (accv, src) = (o.vec(0)?, o.vec(1)?);
            let m = o.masks().first().copied();
            let (n, e) = o.out(0)?;
            let mut counts: Vec<i64> = (0..n).map(|b| accv.at(b).i()).collect();
            for i in 0..src.n {
                if !on(m, i) {
                    continue;
                }
                let bin = src.at(i).i() as usize & 0xff;
                if name == "vdhist" {
                    if bin < n {
                        counts[bin] += 1;
                    }
                } else {
                    for c in counts.iter_mut().skip(bin) {
                        *c += 1;
                    }
                }
            }
            let mut d = lanes(n, e);
            for (b, c) in counts.into_iter().enumerate() {
                put(&mut d, b, e, Num::I(c));
            }
            Ok(vec![Val::Lanes(d)])
        }
        _ => o.err("is not implemented in ptovm's interpreter yet"),
    }
}

// ───────────── lane-wise arithmetic ─────────────

fn shift(x: i64, sh: i64, e: Ety, left: bool) -> i64 {
    let bits = e.bits() as i64;
    if left {
        if !(0..bits).contains(&sh) {
            0
        } else {
            x.wrapping_shl(sh as u32)
        }
    } else if e.sign == Sign::Signed {
        x >> sh.clamp(0, 63)
    } else if !(0..bits).contains(&sh) {
        0
    } else {
        (x as u64 >> sh) as i64
    }
}

/// The operation of a binary or vector-scalar op name.
fn canon(name: &str) -> &'static str {
    match name {
        "vadd" | "addf" | "addi" | "vadds" => "add",
        "vsub" | "subf" | "subi" => "sub",
        "vmul" | "mulf" | "muli" | "vmuls" => "mul",
        "vdiv" | "divf" => "div",
        "vmax" | "maxf" | "maxi" | "vmaxs" => "max",
        "vmin" | "minf" | "mini" | "vmins" => "min",
        "vand" | "andi" => "and",
        "vor" | "ori" => "or",
        "vxor" | "xori" => "xor",
        "vshl" | "shli" | "vshls" => "shl",
        "vshr" | "vshrs" => "shr",
        "shrui" => "shru",
        "shrsi" => "shrs",
        "vprelu" => "prelu",
        "vlrelu" => "lrelu",
        _ => "",
    }
}

fn bin_op(name: &str, x: Num, y: Num, e: Ety) -> Num {
    let op = canon(name);
    if e.float() {
        let (a, b) = (x.f(), y.f());
        Num::F(match op {
            "add" => a + b,
            "sub" => a - b,
            "mul" => a * b,
            "div" => a / b,
            "max" => fmax(a, b),
            "min" => fmin(a, b),
            "prelu" => a.max(0.0) + b * a.min(0.0),
            "lrelu" => {
                if a > 0.0 {
                    a
                } else {
                    a * b
                }
            }
            _ => f64::NAN,
        })
    } else {
        let (a, b) = (x.i(), y.i());
        let signed = Ety {
            sign: Sign::Signed,
            ..e
        };
        let unsigned = Ety {
            sign: Sign::Unsigned,
            ..e
        };
        Num::I(match op {
            "add" => a.wrapping_add(b),
            "sub" => a.wrapping_sub(b),
            "mul" => a.wrapping_mul(b),
            "div" => {
                if b == 0 {
                    -1
                } else {
                    a.wrapping_div(b)
                }
            }
            "max" => a.max(b),
            "min" => a.min(b),
            "and" => a & b,
            "or" => a | b,
            "xor" => a ^ b,
            "shl" => shift(a, b, e, true),
            "shr" => shift(a, b, e, false),
            "shru" => shift(get(&a.to_le_bytes(), 0, unsigned).i(), b, unsigned, false),
            "shrs" => shift(get(&a.to_le_bytes(), 0, signed).i(), b, signed, false),
            _ => 0,
        })
    }
}

fn binary(o: &Ops) -> Result<Vec<Val>, Fault> {
    let (a, b) = (o.vec(0)?, o.vec(1)?);
    let m = o.masks().first().copied();
    let (n, e) = o.out(0)?;
    let mut d = lanes(n, e);
    for i in 0..n {
        if on(m, i) {
            put(&mut d, i, e, bin_op(o.name, a.at(i), b.at(i), a.e));
        } else if o.merge() {
            put(&mut d, i, e, a.at(i));
        }
    }
    Ok(vec![Val::Lanes(d)])
}

fn vec_scalar(o: &Ops) -> Result<Vec<Val>, Fault> {
    let a = o.vec(0)?;
    let Some(&(s, _)) = o.scalars().first() else {
        return o.err("needs a scalar operand");
    };
    let y = if a.e.float() {
        Num::F(s.as_f64().unwrap_or(0.0))
    } else {
        Num::I(s.as_i64().unwrap_or(0))
    };
    let m = o.masks().first().copied();
    let (n, e) = o.out(0)?;
    let mut d = lanes(n, e);
    for i in 0..n {
        if on(m, i) {
            put(&mut d, i, e, bin_op(o.name, a.at(i), y, a.e));
        } else if o.merge() {
            put(&mut d, i, e, a.at(i));
        }
    }
    Ok(vec![Val::Lanes(d)])
}

fn unary(o: &Ops) -> Result<Vec<Val>, Fault> {
    let a = o.vec(0)?;
    let m = o.masks().first().copied();
    let (n, e) = o.out(0)?;
    let base = o.name.trim_start_matches('v');
    let mut d = lanes(n, e);
    for i in 0..n {
        if !on(m, i) {
            if o.merge() {
                put(&mut d, i, e, a.at(i));
            }
            continue;
        }
        let x = a.at(i);
        let r = if a.e.float() {
            let v = x.f();
            Num::F(match base {
                "abs" | "absf" => v.abs(),
                "neg" | "negf" => -v,
                "relu" => {
                    if v > 0.0 || v.is_nan() {
                        v
                    } else {
                        0.0
                    }
                }
                "exp" => v.exp(),
                "ln" => v.ln(),
                "sqrt" => v.sqrt(),
                _ => return o.err("is not defined on float vectors"),
            })
        } else {
            let v = x.i();
            Num::I(match base {
                "abs" | "absi" => {
                    let s = get(
                        &v.to_le_bytes(),
                        0,
                        Ety {
                            sign: Sign::Signed,
                            ..a.e
                        },
                    )
                    .i();
                    s.wrapping_abs()
                }
                "neg" | "negi" => v.wrapping_neg(),
                "relu" => {
                    let s = get(
                        &v.to_le_bytes(),
                        0,
                        Ety {
                            sign: Sign::Signed,
                            ..a.e
                        },
                    )
                    .i();
                    s.max(0)
                }
                "not" => !v,
                _ => return o.err("is not defined on integer vectors"),
            })
        };
        put(&mut d, i, e, r);
    }
    Ok(vec![Val::Lanes(d)])
}

fn fused(o: &Ops) -> Result<Vec<Val>, Fault> {
    let vs = o.vecs();
    let m = o.masks().first().copied();
    let (n, e) = o.out(0)?;
    let mut d = lanes(n, e);
    let alpha = o.scalars().first().and_then(|(s, _)| s.as_f64());
    for i in 0..n {
        if !on(m, i) {
            continue;
        }
        let x = |k: usize| vs.get(k).map(|v| v.at(i).f()).unwrap_or(0.0);
        let r = match o.name {
            "vexpdif" => (x(0) - x(1)).exp(),
            "vaxpy" => alpha.unwrap_or(0.0) * x(0) + x(1),
            _ => x(0).mul_add(x(1), x(2)),
        };
        put(&mut d, i, e, Num::F(r));
    }
    Ok(vec![Val::Lanes(d)])
}

fn mask_logic(o: &Ops) -> Result<Vec<Val>, Fault> {
    let ms = o.masks();
    let Some(a) = ms.first() else {
        return o.err("needs a mask operand");
    };
    let b = ms.get(1);
    let r: Vec<bool> = (0..a.len())
        .map(|i| {
            let y = b.map(|b| b.get(i).copied().unwrap_or(false));
            match (o.name, y) {
                ("vand" | "andi" | "mask_and", Some(y)) => a[i] && y,
                ("vor" | "ori" | "mask_or", Some(y)) => a[i] || y,
                ("vxor" | "xori" | "mask_xor", Some(y)) => a[i] ^ y,
                _ => !a[i],
            }
        })
        .collect();
    Ok(vec![Val::LMask(r)])
}

// ───────────── compare, select ─────────────

fn compare(o: &Ops) -> Result<Vec<Val>, Fault> {
    let a = o.vec(0)?;
    let n = o.out_mask_lanes()?;
    let rhs: Box<dyn Fn(usize) -> Num> = match o.vecs().get(1) {
        Some(b) => {
            let b = *b;
            Box::new(move |i| b.at(i))
        }
        None => {
            let Some(&(s, _)) = o.scalars().first() else {
                return o.err("needs a second vector or a scalar");
            };
            let y = if a.e.float() {
                Num::F(s.as_f64().unwrap_or(0.0))
            } else {
                let v = s.as_i64().unwrap_or(0);
                // the scalar has the vector's element type
                get(&v.to_le_bytes(), 0, a.e)
            };
            Box::new(move |_| y)
        }
    };
    let seed = o.masks().first().copied();
    let mode = o
        .sym("cmp")
        .or_else(|| o.sym("predicate"))
        .or_else(|| o.sym("cmp_mode"))
        .unwrap_or("eq")
        .to_ascii_lowercase();
    let mut r = vec![false; n];
    for (i, out) in r.iter_mut().enumerate().take(a.n) {
        if !on(seed, i) {
            continue;
        }
        *out = cmp_lanes(&mode, a.at(i), rhs(i), a.e);
    }
    Ok(vec![Val::LMask(r)])
}

fn cmp_lanes(mode: &str, x: Num, y: Num, e: Ety) -> bool {
    use std::cmp::Ordering as O;
    let (m, ord, unordered) = if e.float() {
        let (m, unord) = match mode.strip_prefix('u') {
            Some(m) => (m, true),
            None => (mode.strip_prefix('o').unwrap_or(mode), mode == "ne"),
        };
        (m, x.f().partial_cmp(&y.f()), unord)
    } else {
        let (m, signed) = match (mode.strip_prefix('s'), mode.strip_prefix('u')) {
            (Some(m), _) => (m, true),
            (_, Some(m)) => (m, false),
            _ => (mode, e.sign == Sign::Signed),
        };
        let key = |v: Num| -> i128 {
            let s = Ety {
                sign: if signed { Sign::Signed } else { Sign::Unsigned },
                ..e
            };
            get(&v.i().to_le_bytes(), 0, s).i() as i128
                & if signed { -1 } else { (1i128 << 64) - 1 }
        };
        (m, Some(key(x).cmp(&key(y))), false)
    };
    match ord {
        None => unordered,
        Some(ord) => match m {
            "eq" => ord == O::Equal,
            "ne" => ord != O::Equal,
            "lt" => ord == O::Less,
            "le" => ord != O::Greater,
            "gt" => ord == O::Greater,
            "ge" => ord != O::Less,
            _ => false,
        },
    }
}

fn select(o: &Ops) -> Result<Vec<Val>, Fault> {
    let Some(m) = o.masks().first().copied() else {
        return o.err("needs a selector mask");
    };
    let (t, f) = (o.vec(0)?, o.vec(1)?);
    let (n, e) = o.out(0)?;
    let es = e.bytes;
    let mut d = lanes(n, e);
    for i in 0..n {
        let src = if on(Some(m), i) { t } else { f };
        d[i * es..(i + 1) * es].copy_from_slice(&src.d[i * es..(i + 1) * es]);
    }
    Ok(vec![Val::Lanes(d)])
}

// ───────────── reductions, broadcasts, index and mask generation ─────────────

fn reduce(o: &Ops) -> Result<Vec<Val>, Fault> {
    let a = o.vec(0)?;
    let m = o.masks().first().copied();
    let (c, e) = o.out(0)?;
    if c == 0 || a.n % c != 0 {
        return o.err(format!("cannot split {} lanes into {c} groups", a.n));
    }
    let gs = a.n / c;
    let kind = if o.name.contains("add") {
        0
    } else if o.name.contains("max") {
        1
    } else {
        2
    };
    let mut d = lanes(c, e);
    for g in 0..c {
        let xs = (g * gs..(g + 1) * gs)
            .filter(|&i| on(m, i))
            .map(|i| a.at(i));
        let r = if e.float() {
            let mut acc = match kind {
                0 => 0.0,
                1 => f64::NEG_INFINITY,
                _ => f64::INFINITY,
            };
            for x in xs {
                acc = match kind {
                    0 => acc + x.f(),
                    1 => fmax(acc, x.f()),
                    _ => fmin(acc, x.f()),
                };
            }
            Num::F(acc)
        } else {
            let (lo, hi) = if e.sign == Sign::Signed {
                (i64::MIN >> (64 - e.bits()), i64::MAX >> (64 - e.bits()))
            } else {
                (
                    0,
                    if e.bits() == 64 {
                        -1
                    } else {
                        (1i64 << e.bits()) - 1
                    },
                )
            };
            let mut acc = match kind {
                0 => 0,
                1 => lo,
                _ => hi,
            };
            for x in xs {
                acc = match kind {
                    0 => acc.wrapping_add(x.i()),
                    1 => acc.max(x.i()),
                    _ => acc.min(x.i()),
                };
            }
            Num::I(acc)
        };
        put(&mut d, g, e, r);
    }
    Ok(vec![Val::Lanes(d)])
}

fn broadcast(o: &Ops) -> Result<Vec<Val>, Fault> {
    let (n, e) = o.out(0)?;
    let mut d = lanes(n, e);
    let es = e.bytes;
    match o.vecs().first() {
        Some(src) => {
            let c = src.n.max(1);
            let gs = n.div_ceil(c).max(1);
            for i in 0..n {
                let k = (i / gs).min(src.n - 1);
                d[i * es..(i + 1) * es].copy_from_slice(&src.d[k * es..(k + 1) * es]);
            }
        }
        None => {
            let Some(&(s, _)) = o.scalars().first() else {
                return o.err("needs a scalar or vector operand");
            };
            let x = if e.float() {
                Num::F(s.as_f64().unwrap_or(0.0))
            } else {
                Num::I(s.as_i64().unwrap_or(0))
            };
            for i in 0..n {
                put(&mut d, i, e, x);
            }
        }
    }
    Ok(vec![Val::Lanes(d)])
}

fn iota(o: &Ops) -> Result<Vec<Val>, Fault> {
    let (n, e) = o.out(0)?;
    let Some(&(s, _)) = o.scalars().first() else {
        return o.err("needs a base scalar");
    };
    let groups = o.int_attr(&["group", "num_groups"]).unwrap_or(1).max(1) as usize;
    let gs = (n / groups).max(1);
    let desc = o
        .sym("order")
        .is_some_and(|s| s.eq_ignore_ascii_case("DESC"));
    let mut d = lanes(n, e);
    for i in 0..n {
        let k = (i % gs) as i64;
        let k = if desc { -k } else { k };
        let x = if e.float() {
            Num::F(s.as_f64().unwrap_or(0.0) + k as f64)
        } else {
            Num::I(s.as_i64().unwrap_or(0).wrapping_add(k))
        };
        put(&mut d, i, e, x);
    }
    Ok(vec![Val::Lanes(d)])
}

fn make_mask(o: &Ops) -> Result<Vec<Val>, Fault> {
    let n = o.out_mask_lanes()?;
    let r: Vec<bool> = match o.name {
        "create_mask" => {
            let k = o.int(0)?;
            (0..n).map(|i| (i as i64) < k).collect()
        }
        "create_group_mask" => {
            let k = o.int(0)?;
            let gs = match o.int_attr(&["group_size"]) {
                Some(g) => g.max(1) as usize,
                None => n / o.int_attr(&["num_groups"]).unwrap_or(1).max(1) as usize,
            };
            (0..n).map(|i| ((i % gs.max(1)) as i64) < k).collect()
        }
        _ => {
            let p = o
                .attrs
                .iter()
                .find_map(|(_, v)| match v {
                    AttrVal::Sym(s) if s.trim_matches('"').starts_with("PAT_") => {
                        Some(s.trim_matches('"'))
                    }
                    _ => None,
                })
                .unwrap_or("PAT_ALL");
            let k = match p {
                "PAT_ALL" => n,
                "PAT_ALLF" => 0,
                "PAT_H" => n / 2,
                "PAT_Q" => n / 4,
                "PAT_M4" => n / 4 * 4,
                "PAT_M3" => n / 3 * 3,
                other => match other.strip_prefix("PAT_VL").and_then(|v| v.parse().ok()) {
                    Some(v) => usize::min(v, n),
                    None => return o.err(format!("has an unknown pattern {other}")),
                },
            };
            (0..n).map(|i| i < k).collect()
        }
    };
    Ok(vec![Val::LMask(r)])
}

// ───────────── conversions ─────────────

fn cvt(o: &Ops) -> Result<Vec<Val>, Fault> {
    let a = o.vec(0)?;
    let (n, e) = o.out(0)?;
    let rnd = match o.sym("rounding").or_else(|| o.sym("rnd")) {
        Some("H") => Rnd::A,
        Some(s) => match Rnd::parse(s) {
            Some(r) => r,
            None => return o.err(format!("has an unknown rounding mode '{s}'")),
        },
        None => Rnd::R,
    };
    let sat = o
        .sym("saturate")
        .or_else(|| o.sym("sat"))
        .map(|s| s == "SAT");
    let mut d = lanes(n, e);
    let m = o.masks().first().copied();
    if a.e.pair || e.pair {
        // packed pairs convert element by element: low half first
        let (sh_in, sh_out) = (a.e.bits() / 2, e.bits() / 2);
        for i in 0..n.min(a.n) {
            let mut r = [0u8; 8];
            r[..a.e.bytes].copy_from_slice(&a.d[i * a.e.bytes..(i + 1) * a.e.bytes]);
            let raw = u64::from_le_bytes(r);
            let mut out = 0u64;
            for h in 0..2 {
                let bits = (raw >> (h * sh_in)) & ((1 << sh_in) - 1);
                let x = scalar_of(bits, a.e.dt);
                let y = float_bits(x, e.dt, rnd, sat.unwrap_or(false));
                out |= (y & ((1 << sh_out) - 1)) << (h * sh_out);
            }
            d[i * e.bytes..(i + 1) * e.bytes].copy_from_slice(&out.to_le_bytes()[..e.bytes]);
        }
        return Ok(vec![Val::Lanes(d)]);
    }
    for i in 0..n.min(a.n) {
        if !on(m, i) {
            continue;
        }
        let x = a.at(i);
        let r = match (a.e.float(), e.float()) {
            (_, true) => {
                let v = if a.e.float() {
                    x.f()
                } else if a.e.sign == Sign::Unsigned {
                    x.i() as u64 as f64
                } else {
                    get(
                        &x.i().to_le_bytes(),
                        0,
                        Ety {
                            sign: Sign::Signed,
                            ..a.e
                        },
                    )
                    .f()
                };
                let b = float_bits(v, e.dt, rnd, sat.unwrap_or(false));
                let mut bytes = [0u8; 8];
                bytes.copy_from_slice(&b.to_le_bytes());
                d[i * e.bytes..(i + 1) * e.bytes].copy_from_slice(&bytes[..e.bytes]);
                continue;
            }
            (true, false) => {
                let to = if e.sign == Sign::Signed {
                    e.signed_dt()
                } else {
                    e.dt
                };
                convert(
                    Num::F(x.f()),
                    DType::F32,
                    to,
                    rnd,
                    Some(sat.unwrap_or(true)),
                )
            }
            (false, false) => {
                let v = x.i() as i128;
                let v = if a.e.sign == Sign::Signed || e.sign == Sign::Signed {
                    get(&x.i().to_le_bytes(), 0, a.e).i() as i128
                } else {
                    v
                };
                let (lo, hi): (i128, i128) = if e.sign == Sign::Signed {
                    (-(1i128 << (e.bits() - 1)), (1i128 << (e.bits() - 1)) - 1)
                } else {
                    (0, (1i128 << e.bits()) - 1)
                };
                let narrowing = e.bits() < a.e.bits();
                let sat = sat.unwrap_or(o.name == "trunci");
                Num::I(if narrowing && sat {
                    v.clamp(lo, hi) as i64
                } else {
                    v as i64
                })
            }
        };
        put(&mut d, i, e, r);
    }
    Ok(vec![Val::Lanes(d)])
}

/// A float of `dt` from its bits.
fn scalar_of(bits: u64, dt: DType) -> f64 {
    match dt {
        DType::F32 | DType::F16 | DType::BF16 | DType::F64 => read(&bits.to_le_bytes(), dt).f(),
        _ => minifloat::decode(bits, dt),
    }
}

/// The bits of `x` rounded to float type `dt`.
fn float_bits(x: f64, dt: DType, rnd: Rnd, sat: bool) -> u64 {
    match dt {
        DType::F32 | DType::F16 | DType::BF16 | DType::F64 => {
            let v = round_to_float(x, dt, rnd, sat);
            let mut b = [0u8; 8];
            write(&mut b, dt, Num::F(v));
            u64::from_le_bytes(b)
        }
        _ => minifloat::encode(x, dt, rnd, sat),
    }
}

// ───────────── memory ─────────────

/// The byte address of element `k` from `p`.
fn addr(o: &Ops, p: &Ptr, e: Ety, k: i64) -> Result<u64, Fault> {
    let a = p.addr as i64 + k * e.bytes as i64;
    if a < 0 {
        return o.err("addresses UB below 0");
    }
    Ok(a as u64)
}

/// Where lane `i` of an `n`-lane access lives, as an element index from the
/// pointer: contiguous, row-strided groups, or 32-byte blocks.
enum Pattern {
    Flat,
    Groups { c: usize, stride: i64 },
    Blocks { stride: i64 },
    Brc,
}

fn pattern(o: &Ops, first_scalar: usize) -> Pattern {
    let extra: Vec<(i64, Option<Ety>)> = o
        .scalars()
        .iter()
        .skip(first_scalar)
        .map(|(v, t)| (v.as_i64().unwrap_or(0), *t))
        .collect();
    if o.sym("dist_mode") == Some("brc") {
        return Pattern::Brc;
    }
    match extra.first() {
        Some(&(s, t)) => {
            let group = o.int_attr(&["group", "num_groups"]);
            match (group, t) {
                (Some(c), _) => Pattern::Groups {
                    c: c.max(1) as usize,
                    stride: s,
                },
                (None, Some(t)) if t.dt == DType::I64 => Pattern::Groups { c: 1, stride: s },
                _ => Pattern::Blocks { stride: s },
            }
        }
        None => Pattern::Flat,
    }
}

fn lane_index(p: &Pattern, n: usize, e: Ety, i: usize) -> i64 {
    match *p {
        Pattern::Flat => i as i64,
        Pattern::Brc => 0,
        Pattern::Groups { c, stride } => {
            let gs = (n / c).max(1);
            (i / gs) as i64 * stride + (i % gs) as i64
        }
        Pattern::Blocks { stride } => {
            let per = (32 / e.bytes).max(1);
            let blk_elems = stride * per as i64;
            (i / per) as i64 * blk_elems + (i % per) as i64
        }
    }
}

fn load(o: &Ops, ub: &mut dyn UbMem, acc: &mut Accesses) -> Result<Vec<Val>, Fault> {
    let (p, pe) = o.ptr()?;
    let off = o.int(0)?;
    let (n, e) = o.out(0)?;
    if o.sym("dist_mode") == Some("unpack") {
        return o.err("with dist_mode = \"unpack\" is not implemented yet");
    }
    let pat = pattern(o, 1);
    let mut d = lanes(n, e);
    // a pointer of another width loads its elements and converts them
    let (es, ps) = (e.bytes, pe.bytes);
    for i in 0..n {
        let a = addr(o, &p, pe, off + lane_index(&pat, n, pe, i))?;
        let src = ub.ub(a, ps as u64)?;
        if ps == es {
            d[i * es..(i + 1) * es].copy_from_slice(src);
        } else {
            put(&mut d, i, e, get(src, 0, pe));
        }
        acc.add(Space::Ub, a, ps as u64, false);
    }
    Ok(vec![Val::Lanes(d)])
}

fn store(o: &Ops, ub: &mut dyn UbMem, acc: &mut Accesses) -> Result<(), Fault> {
    let v = o.vec(0)?;
    let (p, pe) = o.ptr()?;
    let off = o.int(0)?;
    let m = o.masks().first().copied();
    let pat = pattern(o, 1);
    // a pointer of another width stores each lane converted (integers truncate)
    let (es, ps) = (v.e.bytes, pe.bytes);
    for i in 0..v.n {
        if !on(m, i) {
            continue;
        }
        let a = addr(o, &p, pe, off + lane_index(&pat, v.n, pe, i))?;
        let dst = ub.ub_mut(a, ps as u64)?;
        if ps == es {
            dst.copy_from_slice(&v.d[i * es..(i + 1) * es]);
        } else {
            put(dst, 0, pe, v.at(i));
        }
        acc.add(Space::Ub, a, ps as u64, true);
    }
    Ok(())
}

fn gather(o: &Ops, ub: &mut dyn UbMem, acc: &mut Accesses) -> Result<Vec<Val>, Fault> {
    let (p, _) = o.ptr()?;
    let idx = o.vec(0)?;
    let m = o.masks().first().copied();
    let (n, e) = o.out(0)?;
    let es = e.bytes;
    let mut d = lanes(n, e);
    for i in 0..n.min(idx.n) {
        if !on(m, i) {
            continue;
        }
        let k = idx.at(i).i();
        let a = if o.name == "vgatherb" {
            (p.addr as i64 + k) as u64
        } else {
            addr(o, &p, e, k)?
        };
        d[i * es..(i + 1) * es].copy_from_slice(ub.ub(a, es as u64)?);
        acc.add(Space::Ub, a, es as u64, false);
    }
    Ok(vec![Val::Lanes(d)])
}

fn scatter(o: &Ops, ub: &mut dyn UbMem, acc: &mut Accesses) -> Result<(), Fault> {
    let (v, idx) = (o.vec(0)?, o.vec(1)?);
    let (p, _) = o.ptr()?;
    let m = o.masks().first().copied();
    let es = v.e.bytes;
    for i in 0..v.n.min(idx.n) {
        if !on(m, i) {
            continue;
        }
        let a = addr(o, &p, v.e, idx.at(i).i())?;
        ub.ub_mut(a, es as u64)?
            .copy_from_slice(&v.d[i * es..(i + 1) * es]);
        acc.add(Space::Ub, a, es as u64, true);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run1(name: &str, srcs: Vec<Val>, ins: &[&str], outs: &[&str], extra: Attrs) -> Vec<Val> {
        let op = Opcode::lookup(&format!("pto.vmi.{name}")).expect("a VMI opcode");
        let mut attrs = extra;
        attrs.extend(
            ins.iter()
                .map(|t| ("$in".to_string(), AttrVal::Sym(t.to_string()))),
        );
        attrs.extend(
            outs.iter()
                .map(|t| ("$out".to_string(), AttrVal::Sym(t.to_string()))),
        );
        let mut local = crate::mem::Local::new(pto_isa_spec::ProfileId::A5.profile(), None);
        run(op, &srcs, &attrs, &mut local, &mut Accesses::default()).expect("runs")
    }

    fn f32s(v: &[f32]) -> Val {
        Val::Lanes(v.iter().flat_map(|x| x.to_le_bytes()).collect())
    }

    #[test]
    fn grouped_sum_skips_masked_lanes() {
        let x: Vec<f32> = (0..8).map(|i| i as f32).collect();
        let m = Val::LMask((0..8).map(|i| i % 4 != 3).collect());
        let r = run1(
            "vcadd",
            vec![f32s(&x), m],
            &["!pto.vmi.vreg<8xf32>", "!pto.vmi.mask<8xpred>"],
            &["!pto.vmi.vreg<2xf32>"],
            vec![("group".into(), AttrVal::Int(2))],
        );
        // group 0: 0+1+2, group 1: 4+5+6
        assert_eq!(r[0], f32s(&[3.0, 15.0]));
    }

    #[test]
    fn f32_to_fp8_and_signless_compare() {
        let r = run1(
            "vcvt",
            vec![f32s(&[1.0, -2.0, 0.5, 1000.0])],
            &["!pto.vmi.vreg<4xf32>"],
            &["!pto.vmi.vreg<4xf8E4M3FN>"],
            vec![("saturate".into(), AttrVal::Sym("SAT".into()))],
        );
        assert_eq!(r[0], Val::Lanes(vec![0x38, 0xc0, 0x30, 0x7e]));
        // signless i8: 0xff is 255, greater than 1
        let r = run1(
            "vcmp",
            vec![
                Val::Lanes(vec![0xff, 0x01]),
                Val::Lanes(vec![0x01, 0x01]),
                Val::LMask(vec![true, true]),
            ],
            &[
                "!pto.vmi.vreg<2xi8>",
                "!pto.vmi.vreg<2xi8>",
                "!pto.vmi.mask<2xpred>",
            ],
            &["!pto.vmi.mask<2xpred>"],
            vec![("cmp".into(), AttrVal::Sym("gt".into()))],
        );
        assert_eq!(r[0], Val::LMask(vec![true, false]));
    }

    #[test]
    fn interleave_round_trips() {
        let a = f32s(&[0.0, 1.0, 2.0, 3.0]);
        let b = f32s(&[10.0, 11.0, 12.0, 13.0]);
        let ty = "!pto.vmi.vreg<4xf32>";
        let r = run1(
            "vintlv",
            vec![a.clone(), b.clone()],
            &[ty, ty],
            &[ty, ty],
            vec![],
        );
        assert_eq!(r[0], f32s(&[0.0, 10.0, 1.0, 11.0]));
        assert_eq!(r[1], f32s(&[2.0, 12.0, 3.0, 13.0]));
        let back = run1("vdintlv", r, &[ty, ty], &[ty, ty], vec![]);
        assert_eq!(back, vec![a, b]);
    }
}
