//! Generic dispatch for vector micro-ops inside a vector scope: every `pto.v*`,
//! predicate or vector-scope op that is not one of the built-in fast paths
//! (`vlds`/`vsts` NORM, plain lane-wise ops, `pset`/`plt`) arrives here with
//! its operand values, and returns its result values. Each group lives in its
//! own file; this table says which ops exist.
//!
//! Element types are not part of a register value: lowering passes them as
//! the synthetic attributes `$dst_type` (first result) and `$src_type` (first
//! vector or mask operand), spelled as in MLIR (`f32`, `ui16`, `b32`...).

use pto_isa_spec::{DType, Opcode};

use crate::exec::{
    fault, vec_arith, vec_convert, vec_mem, vec_pred, vec_rearrange, vec_sort, vmi, Accesses, Fault,
};
use crate::mem::Local;
use crate::num::{read, wrap, write, Num};
use crate::program::{attr, AttrVal, Attrs};
use crate::value::{Ptr, Val};

/// The file that executes a vector micro-op.
#[derive(Clone, Copy)]
enum Group {
    Arith,
    Reduce,
    Convert,
    Rearrange,
    Pred,
    Mem,
    Sort,
}

/// Which group executes `op`; `None` when the interpreter lacks it. The one
/// table of what the generic vector path implements.
fn group(op: Opcode) -> Option<Group> {
    use Opcode as O;
    Some(match op {
        O::VLrelu
        | O::VPrelu
        | O::VAddrelu
        | O::VSubrelu
        | O::VAxpy
        | O::VMula
        | O::VMadd
        | O::VMull
        | O::VAddc
        | O::VSubc
        | O::VAddcs
        | O::VSubcs
        | O::VBcnt
        | O::VCls
        | O::VMov
        | O::VExpdif
        | O::VCmp
        | O::VCmps
        | O::VSel
        | O::VSelr
        | O::VSelrv2
        | O::Chistv2
        | O::Dhistv2 => Group::Arith,
        O::VCadd
        | O::VCmax
        | O::VCmin
        | O::VCbmax
        | O::VCbmin
        | O::VCgadd
        | O::VCgmax
        | O::VCgmin
        | O::VCpadd => Group::Reduce,
        O::VCvt
        | O::VMulscvt
        | O::VTrc
        | O::VCi
        | O::VBitcast
        | O::Pbitcast
        | O::VPack
        | O::VSunpack
        | O::VZunpack => Group::Convert,
        O::VIntlv
        | O::VDintlv
        | O::VIntlvv2
        | O::VDintlvv2
        | O::VSlide
        | O::VShift
        | O::VSqz
        | O::VUsqz
        | O::VPerm => Group::Rearrange,
        O::VLdsx2
        | O::VStsx2
        | O::VSldb
        | O::VSstb
        | O::VGather2
        | O::VGather2Bc
        | O::VGatherb
        | O::VScatter
        | O::InitAlign
        | O::VLdas
        | O::VLdus
        | O::VStus
        | O::VStas
        | O::VStur
        | O::VStar
        | O::VSta
        | O::Uvld
        | O::Sprclr
        | O::Sprsti
        | O::Sprsts
        | O::LoadScalar
        | O::StoreScalar
        | O::Pstu => Group::Mem,
        O::Pand
        | O::Por
        | O::Pxor
        | O::Pnot
        | O::Psel
        | O::Ppack
        | O::Punpack
        | O::PintlvB8
        | O::PintlvB16
        | O::PintlvB32
        | O::PdintlvB8
        | O::PdintlvB16
        | O::PdintlvB32
        | O::PgeB8
        | O::PgeB16
        | O::PgeB32
        | O::PltmB8
        | O::PltmB16
        | O::PltmB32
        | O::Plds
        | O::Pld
        | O::Pldi
        | O::Psts
        | O::Pst
        | O::Psti => Group::Pred,
        O::VBitsort | O::VMrgsort4 | O::GetVms4Sr => Group::Sort,
        _ => return None,
    })
}

/// Whether `op` works on registers only (no memory, no special register),
/// so [`run_pure`] executes it.
pub fn pure(op: Opcode) -> bool {
    use Opcode as O;
    match group(op) {
        Some(Group::Arith | Group::Reduce | Group::Convert) => true,
        Some(Group::Rearrange) => op != O::VSqz,
        Some(Group::Pred) => !matches!(op, O::Plds | O::Pld | O::Pldi | O::Psts | O::Pst | O::Psti),
        _ => op == O::VDup,
    }
}

/// Executes a register-only op ([`pure`]) as [`run`] does.
pub fn run_pure(op: Opcode, srcs: &[Val], attrs: &Attrs) -> Result<Vec<Val>, Fault> {
    let a = Args::split(srcs);
    let cx = Cx { op, attrs };
    match group(op) {
        Some(Group::Arith) => vec_arith::run(&cx, &a),
        Some(Group::Reduce) => vec_arith::reduce(&cx, &a),
        Some(Group::Convert) => vec_convert::run(&cx, &a),
        Some(Group::Rearrange) if op != Opcode::VSqz => vec_rearrange::run(&cx, &a),
        Some(Group::Pred) if pure(op) => vec_pred::run(&cx, &a, None, &mut Accesses::default()),
        None if op == Opcode::VDup => vec_rearrange::dup(&cx, &a),
        _ => fault(format!("'{}' needs memory", op.name())),
    }
}

/// Whether `op` is a predicate load or store ([`run_pred_mem`]).
pub fn pred_mem(op: Opcode) -> bool {
    use Opcode as O;
    matches!(op, O::Plds | O::Pld | O::Pldi | O::Psts | O::Pst | O::Psti)
}

/// Executes a predicate load or store ([`pred_mem`]) on `ub` as [`run`] does.
pub fn run_pred_mem(
    op: Opcode,
    srcs: &[Val],
    attrs: &Attrs,
    ub: &mut dyn vec_pred::UbMem,
    acc: &mut Accesses,
) -> Result<Vec<Val>, Fault> {
    if !pred_mem(op) {
        return fault(format!("'{}' is not a predicate load or store", op.name()));
    }
    let a = Args::split(srcs);
    vec_pred::run(&Cx { op, attrs }, &a, Some(ub), acc)
}

/// Whether `op` touches UB and nothing else but its operands: the predicate
/// loads and stores ([`pred_mem`]) and the plain vector loads and stores of
/// the generic path (`vec_mem::ub_only`), which [`run_ub_spr`] executes.
pub fn ub_mem(op: Opcode) -> bool {
    pred_mem(op) || vec_mem::ub_only(op)
}

/// SPR SQZN after a `vsqz`: the bytes the squeeze kept, for a following
/// `vstur`.
fn sqzn(cx: &Cx, a: &Args) -> Result<u64, Fault> {
    let es = cx.src()?.bytes();
    let m = a.m.first().copied();
    let kept = (0..256 / es)
        .filter(|&i| m.is_none_or(|m| bit(m, i * es)))
        .count();
    Ok((kept * es) as u64)
}

/// Whether `op` touches UB and the special registers and nothing else but
/// its operands: the [`ub_mem`] ops, and the unaligned and register-offset
/// streams (`vldas`/`vldus`, `vstus`/`vstur`/`vstas`/`vstar`, `uvld`,
/// `init_align`), the AR ops, `vsqz` (SQZN), gathers and scatters, scalar UB
/// accesses, `pstu` and the sorters; [`run_ub_spr`] executes it.
pub fn ub_spr(op: Opcode) -> bool {
    ub_mem(op)
        || op == Opcode::VSqz
        || vec_mem::handles(op)
        || matches!(group(op), Some(Group::Sort))
}

/// Executes a [`ub_spr`] op on `ub` with the special registers `spr` as
/// [`run`] does on a whole [`Local`].
pub fn run_ub_spr(
    op: Opcode,
    srcs: &[Val],
    attrs: &Attrs,
    ub: &mut dyn vec_pred::UbMem,
    spr: &mut crate::mem::Spr,
    acc: &mut Accesses,
) -> Result<Vec<Val>, Fault> {
    if pred_mem(op) {
        return run_pred_mem(op, srcs, attrs, ub, acc);
    }
    let a = Args::split(srcs);
    let cx = Cx { op, attrs };
    if op == Opcode::VSqz {
        let out = vec_rearrange::run(&cx, &a)?;
        spr.sqzn = sqzn(&cx, &a)?;
        return Ok(out);
    }
    match group(op) {
        Some(Group::Sort) => vec_sort::run_spr(&cx, &a, ub, spr, acc),
        _ if vec_mem::handles(op) => vec_mem::run_spr(&cx, &a, ub, spr, acc),
        _ => fault(format!("'{}' needs more than UB", op.name())),
    }
}

/// Whether the generic path implements `op` (lowering sends only these here).
pub fn implemented(op: Opcode) -> bool {
    group(op).is_some() || vmi::implemented(op)
}

/// Executes a vector micro-op: `srcs` are the operand values in textual order,
/// the result is one value per result of the op. UB accesses go through
/// `local` and are recorded in `acc`.
pub fn run(
    op: Opcode,
    srcs: &[Val],
    attrs: &Attrs,
    local: &mut Local,
    acc: &mut Accesses,
) -> Result<Vec<Val>, Fault> {
    if vmi::implemented(op) {
        return vmi::run(op, srcs, attrs, local, acc);
    }
    let a = Args::split(srcs);
    let cx = Cx { op, attrs };
    match group(op) {
        Some(Group::Arith) => vec_arith::run(&cx, &a),
        Some(Group::Reduce) => vec_arith::reduce(&cx, &a),
        Some(Group::Convert) => vec_convert::run(&cx, &a),
        Some(Group::Rearrange) => {
            let out = vec_rearrange::run(&cx, &a)?;
            if op == Opcode::VSqz {
                local.spr.sqzn = sqzn(&cx, &a)?;
            }
            Ok(out)
        }
        Some(Group::Pred) => vec_pred::run(&cx, &a, Some(local as &mut dyn vec_pred::UbMem), acc),
        // vlds/vsts reach the generic path only for modes the built-in lacks
        Some(Group::Mem) => vec_mem::run(&cx, &a, local, acc),
        Some(Group::Sort) => vec_sort::run(&cx, &a, local, acc),
        None if vec_mem::handles(op) => vec_mem::run(&cx, &a, local, acc),
        None if op == Opcode::VDup => vec_rearrange::dup(&cx, &a),
        None => fault(format!(
            "'{}' is not implemented in ptovm's interpreter yet",
            op.name()
        )),
    }
}

/// A vector register.
pub type VReg = [u8; 256];
/// A predicate register.
pub type Mask = [u8; 32];

/// Operands split by kind, each list in textual order.
pub struct Args<'a> {
    /// Vector registers.
    pub v: Vec<&'a VReg>,
    /// Masks.
    pub m: Vec<&'a Mask>,
    /// Scalars (integers and floats).
    pub s: Vec<&'a Val>,
    /// Pointers.
    pub p: Vec<Ptr>,
}

impl<'a> Args<'a> {
    /// Splits operands by kind.
    pub fn split(srcs: &'a [Val]) -> Args<'a> {
        let mut a = Args {
            v: Vec::new(),
            m: Vec::new(),
            s: Vec::new(),
            p: Vec::new(),
        };
        for x in srcs {
            match x {
                Val::VReg(r) => a.v.push(r),
                Val::Mask(m) => a.m.push(m),
                Val::Int(_) | Val::Float(_) => a.s.push(x),
                Val::Ptr(p) => a.p.push(*p),
                _ => {}
            }
        }
        a
    }
}

/// The op being executed and its attributes.
pub struct Cx<'a> {
    /// The opcode.
    pub op: Opcode,
    /// Its attributes (including `$dst_type` / `$src_type`).
    pub attrs: &'a Attrs,
}

impl Cx<'_> {
    /// A fault naming the op.
    pub fn err<T>(&self, msg: impl std::fmt::Display) -> Result<T, Fault> {
        fault(format!("'{}' {msg}", self.op.name()))
    }

    fn ty(&self, key: &str) -> Option<DType> {
        match attr(self.attrs, key) {
            Some(AttrVal::Sym(s)) => parse_type(s),
            _ => None,
        }
    }

    /// Element type of the first result (falls back to the source type).
    pub fn dst(&self) -> Result<DType, Fault> {
        match self.ty("$dst_type").or_else(|| self.ty("$src_type")) {
            Some(t) => Ok(t),
            None => self.err("needs the element type of its result (no $dst_type attribute)"),
        }
    }

    /// Element type of the first vector/mask operand (falls back to the result type).
    pub fn src(&self) -> Result<DType, Fault> {
        match self.ty("$src_type").or_else(|| self.ty("$dst_type")) {
            Some(t) => Ok(t),
            None => self.err("needs the element type of its source (no $src_type attribute)"),
        }
    }

    /// Raw `$src_type` / `$dst_type` (no fallback).
    pub fn exact(&self, key: &str) -> Option<DType> {
        self.ty(key)
    }

    /// A symbolic attribute by name (quotes stripped).
    pub fn sym(&self, key: &str) -> Option<&str> {
        match attr(self.attrs, key) {
            Some(AttrVal::Sym(s)) => Some(s.trim_matches('"')),
            _ => None,
        }
    }

    /// Positional symbolic immediates (quotes stripped), in order.
    pub fn positional(&self) -> impl Iterator<Item = &str> {
        self.attrs.iter().filter_map(|(k, v)| match v {
            AttrVal::Sym(s) if k.is_empty() => Some(s.trim_matches('"')),
            _ => None,
        })
    }

    /// A named attribute, else the first positional symbol.
    pub fn sym_or_pos(&self, keys: &[&str]) -> Option<&str> {
        keys.iter()
            .find_map(|k| self.sym(k))
            .or_else(|| self.positional().next())
    }
}

/// Parses an element-type spelling; masks (`b8`, `b16`, `b32`) map to an
/// unsigned type of their granularity.
pub fn parse_type(s: &str) -> Option<DType> {
    let s = s.trim_matches('"');
    let s = s.strip_prefix("!pto.").unwrap_or(s);
    match s {
        "b8" => Some(DType::U8),
        "b16" => Some(DType::U16),
        "b32" => Some(DType::U32),
        "b64" => Some(DType::U64),
        // packed fp4 pairs (`!pto.f4E1M2x2`): the fp4 type, one pair per byte
        _ if s.starts_with("f4") && s.ends_with("x2") => DType::from_mlir(&s[..s.len() - 2]),
        _ => DType::from_mlir(s),
    }
}

/// Number of lanes of a register of element type `dt`.
pub fn lanes(dt: DType) -> usize {
    256 / dt.bytes()
}

/// Lane `i` of `v`.
#[inline]
pub fn get(v: &VReg, i: usize, dt: DType) -> Num {
    let es = dt.bytes();
    read(&v[i * es..(i + 1) * es], dt)
}

/// Sets lane `i` of `v`.
#[inline]
pub fn put(v: &mut VReg, i: usize, dt: DType, x: Num) {
    let es = dt.bytes();
    write(&mut v[i * es..(i + 1) * es], dt, x)
}

/// Raw bits of lane `i` (element size `es` bytes, up to 8).
#[inline]
pub fn raw(v: &VReg, i: usize, es: usize) -> u64 {
    let mut b = [0u8; 8];
    b[..es].copy_from_slice(&v[i * es..(i + 1) * es]);
    u64::from_le_bytes(b)
}

/// Sets the raw bits of lane `i`.
#[inline]
pub fn set_raw(v: &mut VReg, i: usize, es: usize, x: u64) {
    v[i * es..(i + 1) * es].copy_from_slice(&x.to_le_bytes()[..es]);
}

/// Whether lane `i` (element size `es`) is on; no mask means all lanes.
#[inline]
pub fn on(m: Option<&Mask>, i: usize, es: usize) -> bool {
    match m {
        None => true,
        Some(m) => bit(m, i * es),
    }
}

/// Bit `b` of a predicate.
#[inline]
pub fn bit(m: &Mask, b: usize) -> bool {
    b < 256 && m[b / 8] & (1 << (b % 8)) != 0
}

/// Sets bit `b` of a predicate.
#[inline]
pub fn set_bit(m: &mut Mask, b: usize, on: bool) {
    if b < 256 {
        if on {
            m[b / 8] |= 1 << (b % 8);
        } else {
            m[b / 8] &= !(1 << (b % 8));
        }
    }
}

/// A predicate with lane `i` (granularity `es` bytes) on iff `f(i)`, in the
/// hardware image: one bit per lane, at bit `i * es`.
pub fn mask_from(es: usize, f: impl Fn(usize) -> bool) -> Box<Mask> {
    let mut m = Box::new([0u8; 32]);
    for i in 0..256 / es {
        if f(i) {
            set_bit(&mut m, i * es, true);
        }
    }
    m
}

/// A scalar operand as an element of type `dt` (integers wrapped to its width).
pub fn scalar(v: &Val, dt: DType) -> Num {
    if dt.is_float() {
        Num::F(v.as_f64().unwrap_or(0.0))
    } else {
        Num::I(wrap(v.as_i64().unwrap_or(0), dt))
    }
}

/// A new zeroed register.
pub fn zreg() -> Box<VReg> {
    Box::new([0u8; 256])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_types_and_masks() {
        assert_eq!(parse_type("f32"), Some(DType::F32));
        assert_eq!(parse_type("ui16"), Some(DType::U16));
        assert_eq!(parse_type("si8"), Some(DType::I8));
        assert_eq!(parse_type("b16"), Some(DType::U16));
        assert_eq!(parse_type("\"b32\""), Some(DType::U32));
        assert_eq!(parse_type("!pto.f4E1M2x2"), Some(DType::F4E1M2));
        assert!(implemented(Opcode::VCmp) && !implemented(Opcode::VAdd));
    }

    #[test]
    fn unimplemented_op_faults() {
        let mut local = Local::new(pto_isa_spec::ProfileId::A5.profile(), None);
        let r = run(
            Opcode::VAdd,
            &[],
            &Vec::new(),
            &mut local,
            &mut Accesses::default(),
        );
        assert!(r.is_err());
    }
}
