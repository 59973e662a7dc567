//! VMI ops (`pto.vmi.*`) in compiled vector scopes.
//!
//! A VMI vector of `L` lanes of `T` (`B = L * size(T)` bytes) lives in
//! `ceil(B / 256)` consecutive 256-byte vector registers of the scope, its
//! lanes in order (the last register's bytes past `B` are zero). A VMI mask
//! of `L` lanes lives in `ceil(L * g / 256)` consecutive masks in the
//! hardware format at granularity `g` bytes per lane (lane `i` is bit
//! `i * g`), `g` being the lane size of the compiled ops that read it (1
//! when only host-executed ops do), so register `j` of a vector and mask
//! `j` of its mask cover the same lanes.
//!
//! Ops whose values span whole registers and that the code generator has a
//! lane-wise form of compile natively, one scope instruction per register
//! ([`SInst::Seq`]): plain loads and stores (no distribution, pattern or
//! stride attribute; the pointer's element size is the lane size), masks
//! from `create_mask`, scalar broadcasts (f32 lanes from a float, integer
//! lanes from an integer), f16/bf16 to f32 `vcvt` (exact), `vsel`, the lane-wise add/sub/mul/max/min (and div on
//! floats, and/or/xor on integers) and float abs/neg/sqrt, each unmasked or
//! under a mask (masked-off lanes zero, as VMI defines them without
//! `pmode`). Every other VMI op runs in the host with the interpreter's own
//! code (`exec::vmi::run`), so it is bit-exact by construction.

use std::collections::HashMap;

use pto_isa_spec::{DType, Opcode};
use pto_jit::vscope::{RegRef, SInst, VLane};
use pto_jit::Op;

use super::Kind;
use crate::exec::vmi::{self, Shape};
use crate::program::{AttrVal, Attrs, Reg};

/// A natively compiled VMI op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Form {
    /// `vload %p[%off]`: `lane`-byte elements.
    Load { lane: u8 },
    /// `vstore %v, %p[%off] [, %mask]`.
    Store { lane: u8, mask: Option<Reg> },
    /// `create_mask %n`.
    CreateMask,
    /// `vbrc %s`.
    Bcast { lane: VLane, int_scalar: bool },
    /// `vcvt` of f16/bf16 lanes to f32 (exact).
    Widen { from: VLane },
    /// `vsel %mask, %t, %f`: `t`'s lane where the mask is set, else `f`'s.
    Sel { lane: u8, mask: Reg },
    /// A lane-wise op on one (`b` none) or two vectors.
    Ew {
        op: Op,
        lane: VLane,
        b: bool,
        mask: Option<Reg>,
    },
}

impl Form {
    /// The granularity this op needs of its mask operand.
    pub(super) fn mask_need(self) -> Option<(Reg, u8)> {
        match self {
            Form::Store {
                lane,
                mask: Some(m),
            } => Some((m, lane)),
            Form::Ew {
                lane,
                mask: Some(m),
                ..
            } => Some((m, lane.bytes())),
            Form::Sel { lane, mask } => Some((mask, lane)),
            _ => None,
        }
    }
}

/// The types an op's lowering attached (`$in` or `$out`), in order.
fn types<'a>(attrs: &'a Attrs, key: &str) -> Vec<&'a str> {
    attrs
        .iter()
        .filter(|(k, _)| k == key)
        .filter_map(|(_, v)| match v {
            AttrVal::Sym(s) => Some(s.as_str()),
            _ => None,
        })
        .collect()
}

/// The largest VMI vector a scope compiles (the scope compiler's 1024
/// registers), in bytes, and the most lanes of a VMI mask (1024 masks at 4
/// bytes a lane).
const MAX_BYTES: usize = 1024 * 256;
const MAX_LANES: usize = 1024 * 64;

/// The kinds of a VMI op's results, from their types.
pub(super) fn result_kinds(op: Opcode, attrs: &Attrs, n: usize) -> Result<Vec<Kind>, String> {
    let outs = types(attrs, "$out");
    if outs.len() != n {
        return super::reject(format!("'{}' with untyped results", op.name()));
    }
    let big = |what: &str| format!("'{}' with a {what} too large to compile", op.name());
    outs.iter()
        .map(|t| match vmi::shape(t) {
            Shape::Mask { lanes } if lanes <= MAX_LANES => Ok(Kind::L {
                lanes: lanes as u32,
                g: 0,
            }),
            Shape::Mask { .. } => Err(big("mask")),
            _ => match vmi::vec_bytes(t) {
                Some(bytes) if bytes <= MAX_BYTES => Ok(Kind::W {
                    bytes: bytes as u32,
                }),
                Some(_) => Err(big("vector")),
                None => super::reject(format!("'{}' with a {t} result", op.name())),
            },
        })
        .collect()
}

/// The scope's lane type of a VMI vector type.
fn vlane(s: Shape) -> Option<VLane> {
    let Shape::Vec { dt, .. } = s else {
        return None;
    };
    Some(match dt {
        DType::F32 => VLane::F32,
        DType::F16 => VLane::F16,
        DType::BF16 => VLane::BF16,
        DType::I32 => VLane::I32,
        DType::U32 => VLane::U32,
        DType::I16 => VLane::I16,
        DType::U16 => VLane::U16,
        _ => return None,
    })
}

/// Whether a vector shape fills whole 256-byte registers.
fn whole(s: Shape) -> bool {
    matches!(s, Shape::Vec { lanes, lane, .. } if lanes > 0 && (lanes * lane) % 256 == 0)
}

/// How `op` compiles natively, if it does (the operands' kinds in `kind`).
pub(super) fn form(
    op: Opcode,
    attrs: &Attrs,
    srcs: &[Reg],
    kind: &dyn Fn(Reg) -> Option<Kind>,
) -> Option<Form> {
    // any attribute beyond the types (distributions, strides, groups,
    // pmode, rounding, saturation...) leaves the op to the host
    let plain = attrs.iter().all(|(k, _)| {
        matches!(
            k.as_str(),
            "$in" | "$out" | "$nres" | "$src_type" | "$dst_type"
        )
    });
    if !plain {
        return None;
    }
    let ins: Vec<Shape> = types(attrs, "$in").iter().map(|t| vmi::shape(t)).collect();
    let outs: Vec<Shape> = types(attrs, "$out").iter().map(|t| vmi::shape(t)).collect();
    if ins.len() != srcs.len() {
        return None;
    }
    let k = |i: usize| srcs.get(i).and_then(|r| kind(*r));
    let is_int = |i: usize| k(i) == Some(Kind::Int);
    let is_ub = |i: usize| matches!(k(i), Some(Kind::Ptr { ub: true, .. }));
    let name = op.name().strip_prefix("pto.vmi.")?;
    let lanes_of = |s: Shape| match s {
        Shape::Vec { lanes, .. } | Shape::Mask { lanes } => lanes,
        _ => 0,
    };
    // a mask operand at position i covering the vector's lanes
    let mask_at = |i: usize, of: Shape| -> Option<Option<Reg>> {
        match (srcs.get(i), ins.get(i)) {
            (None, None) => Some(None),
            (Some(r), Some(Shape::Mask { lanes }))
                if *lanes == lanes_of(of) && matches!(k(i), Some(Kind::L { .. })) =>
            {
                Some(Some(*r))
            }
            _ => None,
        }
    };
    match name {
        "vload" | "load" => {
            let out = *outs.first()?;
            let Shape::Vec { lane, .. } = out else {
                return None;
            };
            let ok = srcs.len() == 2
                && is_ub(0)
                && is_int(1)
                && ins[0] == Shape::Ptr { lane }
                && whole(out)
                && matches!(lane, 1 | 2 | 4);
            ok.then_some(Form::Load { lane: lane as u8 })
        }
        "vstore" | "store" => {
            let v = *ins.first()?;
            let Shape::Vec { lane, .. } = v else {
                return None;
            };
            let ok = (3..=4).contains(&srcs.len())
                && matches!(k(0), Some(Kind::W { .. }))
                && is_ub(1)
                && is_int(2)
                && ins[1] == Shape::Ptr { lane }
                && whole(v)
                && matches!(lane, 1 | 2 | 4);
            let mask = mask_at(3, v)?;
            ok.then_some(Form::Store {
                lane: lane as u8,
                mask,
            })
        }
        "create_mask" => {
            let ok =
                srcs.len() == 1 && is_int(0) && matches!(outs.first(), Some(Shape::Mask { .. }));
            ok.then_some(Form::CreateMask)
        }
        "vcvt" | "extf" => {
            let (src, out) = (*ins.first()?, *outs.first()?);
            let from = vlane(src).filter(|l| matches!(l, VLane::F16 | VLane::BF16))?;
            let ok = srcs.len() == 1
                && matches!(k(0), Some(Kind::W { .. }))
                && vlane(out) == Some(VLane::F32)
                && lanes_of(src) == lanes_of(out)
                && whole(src)
                && whole(out);
            ok.then_some(Form::Widen { from })
        }
        "vsel" | "select" => {
            let out = *outs.first()?;
            let Shape::Vec { lane, .. } = out else {
                return None;
            };
            let ok = srcs.len() == 3
                && matches!(ins[0], Shape::Mask { lanes } if lanes == lanes_of(out))
                && matches!(k(0), Some(Kind::L { .. }))
                && (1..3).all(|i| ins[i] == out && matches!(k(i), Some(Kind::W { .. })))
                && whole(out)
                && matches!(lane, 1 | 2 | 4);
            ok.then_some(Form::Sel {
                lane: lane as u8,
                mask: srcs[0],
            })
        }
        "vbrc" | "broadcast" => {
            let out = *outs.first()?;
            let lane = vlane(out)?;
            let int_scalar = match (lane, k(0)?) {
                (VLane::F32, Kind::Float) => false,
                (l, Kind::Int) if !l.is_float() => true,
                _ => return None,
            };
            (srcs.len() == 1 && whole(out)).then_some(Form::Bcast { lane, int_scalar })
        }
        _ => {
            let out = *outs.first()?;
            let lane = vlane(out)?;
            let (op, two) = match vmi::binary_kind(op) {
                Some(b) => (
                    match b {
                        "add" => Op::Add,
                        "sub" => Op::Sub,
                        "mul" => Op::Mul,
                        "div" if lane.is_float() => Op::Div,
                        "max" => Op::Max,
                        "min" => Op::Min,
                        "and" if !lane.is_float() => Op::And,
                        "or" if !lane.is_float() => Op::Or,
                        "xor" if !lane.is_float() => Op::Xor,
                        _ => return None,
                    },
                    true,
                ),
                None => (
                    match name {
                        "vabs" | "absf" if lane.is_float() => Op::Abs,
                        "vneg" | "negf" if lane.is_float() => Op::Neg,
                        "vsqrt" | "sqrt" if lane.is_float() => Op::Sqrt,
                        _ => return None,
                    },
                    false,
                ),
            };
            let nv = if two { 2 } else { 1 };
            let same = (0..nv).all(|i| ins.get(i) == Some(&out));
            let vecs = (0..nv).all(|i| matches!(k(i), Some(Kind::W { .. })));
            let ok = same
                && vecs
                && whole(out)
                && (nv..=nv + 1).contains(&srcs.len())
                && pto_jit::vscope::ew_supported(op, lane);
            let mask = mask_at(nv, out)?;
            ok.then_some(Form::Ew {
                op,
                lane,
                b: two,
                mask,
            })
        }
    }
}

/// Registers of a register's slot: every vector register of a VMI vector,
/// every mask of a VMI mask, else the one slot.
pub(super) fn refs(slot: RegRef, k: Kind) -> Vec<RegRef> {
    match (slot, k) {
        (RegRef::V(b), Kind::W { bytes }) => (b..b + vregs_of(bytes)).map(RegRef::V).collect(),
        (RegRef::M(b), Kind::L { lanes, g }) => {
            (b..b + masks_of(lanes, g)).map(RegRef::M).collect()
        }
        (s, _) => vec![s],
    }
}

/// Vector registers of a VMI vector of `bytes` bytes.
pub(super) fn vregs_of(bytes: u32) -> u32 {
    bytes.div_ceil(256).max(1)
}

/// Masks of a VMI mask of `lanes` lanes at granularity `g`.
pub(super) fn masks_of(lanes: u32, g: u8) -> u32 {
    (lanes.saturating_mul(u32::from(g.max(1))))
        .div_ceil(256)
        .max(1)
}

/// The granularity of every VMI mask register: the lane size the first
/// compiled op that reads it needs (in body order), carried through moves
/// (loop-carried values); 1 when no compiled op reads it. A compiled op
/// that needs another granularity of the same mask runs in the host
/// instead ([`Form::mask_need`] against the kind, when translating).
pub(super) fn granularities(
    needs: &[(Reg, u8)],
    moves: &[(Reg, Reg)],
    kinds: &mut HashMap<Reg, Kind>,
) {
    let mut g: HashMap<Reg, u8> = HashMap::new();
    for &(r, v) in needs {
        g.entry(r).or_insert(v);
    }
    loop {
        let mut changed = false;
        for &(d, s) in moves {
            for (a, b) in [(d, s), (s, d)] {
                if let Some(v) = g.get(&a).copied() {
                    if let std::collections::hash_map::Entry::Vacant(e) = g.entry(b) {
                        e.insert(v);
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    for (r, k) in kinds.iter_mut() {
        if let Kind::L { lanes, .. } = *k {
            *k = Kind::L {
                lanes,
                g: g.get(r).copied().unwrap_or(1),
            };
        }
    }
}

/// Scalar temporaries for [`emit`].
pub(super) trait Temps {
    /// A fresh scalar slot.
    fn temp(&self) -> u32;
}

/// The native instructions of `f` (`dst`: the result's first register,
/// `src`: each operand's first register, `kinds` of the operands; `g` of
/// the result mask for `create_mask`), or None when `create_mask`'s lanes
/// do not fill whole masks.
pub(super) fn emit(
    f: Form,
    dst: Option<(RegRef, Kind)>,
    src: &[(RegRef, Kind)],
    t: &dyn Temps,
) -> Option<SInst> {
    let s = |i: usize| match src.get(i) {
        Some((RegRef::S(x), _)) => Some(*x),
        _ => None,
    };
    let v = |i: usize| match src.get(i) {
        Some((RegRef::V(x), _)) => Some(*x),
        _ => None,
    };
    let m = |i: usize| match src.get(i) {
        Some((RegRef::M(x), _)) => Some(*x),
        _ => None,
    };
    // the pointer to register j's bytes: p + 256 j
    let chunk_ptr = |out: &mut Vec<SInst>, p: u32, j: u32| -> u32 {
        if j == 0 {
            return p;
        }
        let (c, q) = (t.temp(), t.temp());
        out.push(SInst::Const {
            dst: c,
            v: 256 * i64::from(j),
        });
        out.push(SInst::AddPtr {
            dst: q,
            src: p,
            off: c,
            es: 1,
        });
        q
    };
    let mut out = Vec::new();
    match f {
        Form::Load { lane } => {
            let (RegRef::V(d), Kind::W { bytes }) = dst? else {
                return None;
            };
            let (p, off) = (s(0)?, s(1)?);
            for j in 0..vregs_of(bytes) {
                let q = chunk_ptr(&mut out, p, j);
                out.push(SInst::Load {
                    dst: d + j,
                    ptr: q,
                    off: Some(off),
                    es: lane,
                    brc: false,
                });
            }
        }
        Form::Store { lane, mask } => {
            let (RegRef::V(x), Kind::W { bytes }) = *src.first()? else {
                return None;
            };
            let (p, off) = (s(1)?, s(2)?);
            let mk = match mask {
                Some(_) => Some(m(3)?),
                None => None,
            };
            for j in 0..vregs_of(bytes) {
                let q = chunk_ptr(&mut out, p, j);
                out.push(SInst::Store {
                    src: x + j,
                    ptr: q,
                    off: Some(off),
                    mask: mk.map(|mk| mk + j),
                    es: lane,
                });
            }
        }
        Form::CreateMask => {
            let (RegRef::M(d), Kind::L { lanes, g }) = dst? else {
                return None;
            };
            if (u64::from(lanes) * u64::from(g)) % 256 != 0 || !matches!(g, 1 | 2 | 4) {
                return None;
            }
            let n = masks_of(lanes, g);
            let mut cur = s(0)?;
            for j in 0..n {
                let rest = (j + 1 < n).then(|| t.temp());
                out.push(SInst::PLt {
                    dst: d + j,
                    rest,
                    n: cur,
                    gran: g,
                });
                if let Some(r) = rest {
                    cur = r;
                }
            }
        }
        Form::Bcast { lane, int_scalar } => {
            let (RegRef::V(d), Kind::W { bytes }) = dst? else {
                return None;
            };
            let sv = s(0)?;
            for j in 0..vregs_of(bytes) {
                out.push(SInst::Bcast {
                    dst: d + j,
                    s: sv,
                    int_scalar,
                    mask: None,
                    lane,
                });
            }
        }
        Form::Widen { from } => {
            let (RegRef::V(d), Kind::W { bytes }) = dst? else {
                return None;
            };
            // f32 register j: half lanes 64 j.. = half j % 2 of register j / 2
            let a = v(0)?;
            for j in 0..vregs_of(bytes) {
                out.push(SInst::VCvt {
                    from,
                    to: VLane::F32,
                    dst: d + j,
                    a: a + j / 2,
                    mask: None,
                    part: 2 + (j % 2) as u8,
                    sat: false,
                });
            }
        }
        Form::Sel { lane, .. } => {
            let (RegRef::V(d), Kind::W { bytes }) = dst? else {
                return None;
            };
            let (mk, t, f) = (m(0)?, v(1)?, v(2)?);
            for j in 0..vregs_of(bytes) {
                out.push(SInst::VSel {
                    es: lane,
                    dst: d + j,
                    a: t + j,
                    b: f + j,
                    mask: mk + j,
                });
            }
        }
        Form::Ew { op, lane, b, mask } => {
            let (RegRef::V(d), Kind::W { bytes }) = dst? else {
                return None;
            };
            let a = v(0)?;
            let (bv, mi) = if b { (Some(v(1)?), 2) } else { (None, 1) };
            let mk = match mask {
                Some(_) => Some(m(mi)?),
                None => None,
            };
            for j in 0..vregs_of(bytes) {
                out.push(SInst::Ew {
                    op,
                    lane,
                    dst: d + j,
                    a: a + j,
                    b: bv.map(|x| x + j),
                    s: None,
                    mask: mk.map(|mk| mk + j),
                });
            }
        }
    }
    Some(SInst::Seq(out))
}
