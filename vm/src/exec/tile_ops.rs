//! Generic dispatch for tile instructions: every `pto.t*` op that is not one of
//! the VM's built-in fast paths (`tload`, `tstore`, plain elementwise) arrives
//! here with its resolved `ins`/`outs` operands and attributes. Each
//! instruction group lives in its own file; this table says which ops exist.
//!
//! This file also holds the small operand and element helpers the group files
//! share: typed element access through the layout module (every access is
//! bounds-checked and recorded for the hazard checker), operand decoding, and
//! attribute lookup.

use pto_isa_spec::{DType, Opcode};

use crate::exec::{
    convert, expand, fault, gather, gen, hist, img2col, irregular, layout_ops, matmul, mgather,
    quant, quant_mx, random, reduce, sort, Accesses, Fault,
};
use crate::mem::{Gm, Local};
use crate::num::{read, write, Num};
use crate::program::{attr, AttrVal, Attrs};
use crate::value::{Space, Tile, Val};

/// A resolved tile instruction.
#[derive(Clone, Debug)]
pub struct TileCall {
    /// The instruction.
    pub op: Opcode,
    /// `ins` operands (tiles, views, scalars) as values at issue time.
    pub ins: Vec<Val>,
    /// `outs` operands.
    pub outs: Vec<Val>,
    /// Attributes.
    pub attrs: std::sync::Arc<Attrs>,
}

/// An instruction group's entry point.
type Group = fn(&TileCall, &mut Local, &mut Accesses) -> Result<(), Fault>;

/// Which group file executes `op`; `None` when the interpreter lacks it. This
/// is the one table of what the generic path implements.
fn group(op: Opcode) -> Option<Group> {
    use Opcode as O;
    Some(match op {
        O::TRowSum
        | O::TRowMax
        | O::TRowMin
        | O::TRowProd
        | O::TColSum
        | O::TColMax
        | O::TColMin
        | O::TColProd
        | O::TRowArgMax
        | O::TRowArgMin
        | O::TColArgMax
        | O::TColArgMin
        | O::TPairReduceSum => reduce::run,
        O::TRowExpand
        | O::TColExpand
        | O::TRowExpandAdd
        | O::TRowExpandSub
        | O::TRowExpandMul
        | O::TRowExpandDiv
        | O::TRowExpandMax
        | O::TRowExpandMin
        | O::TRowExpandExpdif
        | O::TColExpandAdd
        | O::TColExpandSub
        | O::TColExpandMul
        | O::TColExpandDiv
        | O::TColExpandMax
        | O::TColExpandMin
        | O::TColExpandExpdif => expand::run,
        O::TCvt => convert::run,
        O::TCmp
        | O::TCmps
        | O::TSel
        | O::TSels
        | O::TPrelu
        | O::TLrelu
        | O::TRem
        | O::TRems
        | O::TFmod
        | O::TFmods
        | O::TPow
        | O::TPows
        | O::TAddc
        | O::TSubc
        | O::TAddsc
        | O::TSubsc
        | O::TAxpy
        | O::TAddRelu
        | O::TSubRelu
        | O::TMuladdDst
        | O::TFusedMuladd
        | O::TFusedMuladdRelu
        | O::TPartAdd
        | O::TPartMax
        | O::TPartMin
        | O::TPartMul
        | O::TPartArgMax
        | O::TPartArgMin
        | O::TAddReluConv
        | O::TSubReluConv
        | O::TAddDeqRelu => irregular::run,
        O::TMov
        | O::TExtract
        | O::TInsert
        | O::TTrans
        | O::TFillPad
        | O::TFillPadInplace
        | O::TFillPadExpand
        | O::TConcat
        | O::TConcatIdx
        | O::TInterleave
        | O::TDeinterleave
        | O::TPack => layout_ops::run,
        O::TCi | O::TTri => gen::run,
        O::TImg2col | O::Setfmatrix | O::SetImg2colRpt | O::SetImg2colPadding => img2col::run,
        O::TGather | O::TScatter | O::TGatherb => gather::run,
        O::TQuant | O::TDequant => quant::run,
        O::TQuantMx => quant_mx::run,
        O::TSort32 | O::TMrgSort => sort::run,
        O::THistogram => hist::run,
        O::TRandom => random::run,
        O::TMatmul
        | O::TMatmulAcc
        | O::TMatmulBias
        | O::TGemv
        | O::TGemvAcc
        | O::TGemvBias
        | O::TMatmulMx
        | O::TMatmulMxAcc
        | O::TMatmulMxBias
        | O::TGemvMx
        | O::TGemvMxAcc
        | O::TGemvMxBias
        | O::Settf32mode
        | O::Sethf32mode => matmul::run,
        _ => return None,
    })
}

/// Whether the generic path implements `op` (lowering sends only these here).
pub fn implemented(op: Opcode) -> bool {
    group(op).is_some()
        || matches!(
            op,
            Opcode::MGather
                | Opcode::MScatter
                | Opcode::TPrint
                | Opcode::TMovFp
                | Opcode::TExtractFp
                | Opcode::TInsertFp
                | Opcode::TStoreFp
        )
}

/// Executes a tile instruction.
pub fn run(call: &TileCall, gm: &Gm, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    if matches!(call.op, Opcode::MGather | Opcode::MScatter) {
        return mgather::run(call, gm, local, acc);
    }
    if matches!(
        call.op,
        Opcode::TMovFp | Opcode::TExtractFp | Opcode::TInsertFp | Opcode::TStoreFp
    ) {
        return crate::exec::fixpipe_fp::run(call, gm, local, acc);
    }
    if call.op == Opcode::TStore {
        return crate::exec::fixpipe_quant::run(call, gm, local, acc);
    }
    if call.op == Opcode::TPrint {
        return crate::exec::print::run(call, gm, local, acc);
    }
    match group(call.op) {
        Some(g) => g(call, local, acc),
        None => fault(format!(
            "'{}' is not implemented in ptovm's interpreter yet",
            call.op.name()
        )),
    }
}

// ---------------------------------------------------------------------------
// Shared helpers for the group files.

/// Short op name for messages (`trowsum`).
pub(crate) fn short(call: &TileCall) -> &'static str {
    let n = call.op.name();
    n.strip_prefix("pto.").unwrap_or(n)
}

/// The tile operands of `ins`, in order (scalars skipped).
pub(crate) fn in_tiles(call: &TileCall) -> Vec<&Tile> {
    call.ins
        .iter()
        .filter_map(|v| match v {
            Val::Tile(t) => Some(&**t),
            _ => None,
        })
        .collect()
}

/// The scalar operands of `ins`, in order.
pub(crate) fn in_scalars(call: &TileCall) -> Vec<Num> {
    call.ins.iter().filter_map(scalar_of).collect()
}

/// A scalar value as a number (integers stay integers).
pub(crate) fn scalar_of(v: &Val) -> Option<Num> {
    match v {
        Val::Int(i) => Some(Num::I(*i)),
        Val::Float(f) => Some(Num::F(*f)),
        _ => None,
    }
}

/// The `i`-th tile among the `ins` operands, or a fault naming what is missing.
pub(crate) fn in_tile<'a>(call: &'a TileCall, i: usize, what: &str) -> Result<&'a Tile, Fault> {
    match in_tiles(call).get(i) {
        Some(t) => Ok(t),
        None => fault(format!(
            "{}: missing {what} (tile operand {} of ins)",
            short(call),
            i + 1
        )),
    }
}

/// The `i`-th `outs` operand as a tile.
pub(crate) fn out_tile<'a>(call: &'a TileCall, i: usize, what: &str) -> Result<&'a Tile, Fault> {
    match call.outs.get(i) {
        Some(Val::Tile(t)) => Ok(t),
        Some(v) => fault(format!(
            "{}: {what} (outs operand {}) must be a tile, found {}",
            short(call),
            i + 1,
            v.kind()
        )),
        None => fault(format!(
            "{}: missing {what} (outs operand {})",
            short(call),
            i + 1
        )),
    }
}

/// The `i`-th scalar among the `ins` operands.
pub(crate) fn in_scalar(call: &TileCall, i: usize, what: &str) -> Result<Num, Fault> {
    match in_scalars(call).get(i) {
        Some(v) => Ok(*v),
        None => fault(format!("{}: missing scalar {what}", short(call))),
    }
}

/// Checks that a tile's valid region fits its storage.
pub(crate) fn check_valid(call: &TileCall, t: &Tile, what: &str) -> Result<(), Fault> {
    if t.v_row < 0 || t.v_col < 0 || t.v_row > t.rows || t.v_col > t.cols {
        return fault(format!(
            "{}: {what} valid region {}x{} does not fit the {}x{} tile",
            short(call),
            t.v_row,
            t.v_col,
            t.rows,
            t.cols
        ));
    }
    Ok(())
}

/// Checks that `src`'s valid region covers `rows` x `cols`.
pub(crate) fn check_covers(
    call: &TileCall,
    src: &Tile,
    rows: i64,
    cols: i64,
    what: &str,
) -> Result<(), Fault> {
    check_valid(call, src, what)?;
    if src.v_row < rows || src.v_col < cols {
        return fault(format!(
            "{}: {what} valid region {}x{} is smaller than the {}x{} it must provide (reads outside the valid region)",
            short(call),
            src.v_row,
            src.v_col,
            rows,
            cols
        ));
    }
    Ok(())
}

pub(crate) fn space(t: &Tile) -> Space {
    Space::of_tile(t.loc)
}

fn elem_addr(t: &Tile, r: i64, c: i64) -> Result<(u64, u64), Fault> {
    Ok((t.elem_addr(r, c)?, t.elem.bytes() as u64))
}

/// Reads element (r, c) of a tile (must be inside the tile's storage).
pub(crate) fn get(
    local: &Local,
    t: &Tile,
    r: i64,
    c: i64,
    acc: &mut Accesses,
) -> Result<Num, Fault> {
    let (addr, es) = elem_addr(t, r, c)?;
    let s = local.slice(space(t), addr, es)?;
    acc.add(space(t), addr, es, false);
    Ok(read(s, t.elem))
}

/// Writes element (r, c) of a tile, rounding/wrapping to its type.
pub(crate) fn put(
    local: &mut Local,
    t: &Tile,
    r: i64,
    c: i64,
    v: Num,
    acc: &mut Accesses,
) -> Result<(), Fault> {
    let (addr, es) = elem_addr(t, r, c)?;
    let s = local.slice_mut(space(t), addr, es)?;
    write(s, t.elem, v);
    acc.add(space(t), addr, es, true);
    Ok(())
}

/// Writes the raw bytes of one element (no conversion).
pub(crate) fn put_bits(
    local: &mut Local,
    t: &Tile,
    r: i64,
    c: i64,
    bits: u64,
    acc: &mut Accesses,
) -> Result<(), Fault> {
    let (addr, es) = elem_addr(t, r, c)?;
    let s = local.slice_mut(space(t), addr, es)?;
    s.copy_from_slice(&bits.to_le_bytes()[..es as usize]);
    acc.add(space(t), addr, es, true);
    Ok(())
}

/// Reads the raw bits of one element.
pub(crate) fn get_bits(
    local: &Local,
    t: &Tile,
    r: i64,
    c: i64,
    acc: &mut Accesses,
) -> Result<u64, Fault> {
    let (addr, es) = elem_addr(t, r, c)?;
    let s = local.slice(space(t), addr, es)?;
    acc.add(space(t), addr, es, false);
    let mut b = [0u8; 8];
    b[..es as usize].copy_from_slice(s);
    Ok(u64::from_le_bytes(b))
}

/// Pad value of a tile's `pad` kind (0 null/zero, max, min).
pub(crate) fn pad_value(t: &Tile) -> Num {
    let f = t.elem.is_float();
    match t.pad {
        2 if f => Num::F(f64::INFINITY),
        3 if f => Num::F(f64::NEG_INFINITY),
        // u64 elements are held as their bits: its maximum is all ones
        2 if t.elem == DType::U64 => Num::I(u64::MAX as i64),
        2 => Num::I(int_range(t.elem).1),
        3 => Num::I(int_range(t.elem).0),
        _ if f => Num::F(0.0),
        _ => Num::I(0),
    }
}

/// Range (min, max) of an integer type.
pub(crate) fn int_range(dt: DType) -> (i64, i64) {
    match dt {
        DType::I8 => (i8::MIN as i64, i8::MAX as i64),
        DType::U8 => (0, u8::MAX as i64),
        DType::I16 => (i16::MIN as i64, i16::MAX as i64),
        DType::U16 => (0, u16::MAX as i64),
        DType::I32 => (i32::MIN as i64, i32::MAX as i64),
        DType::U32 => (0, u32::MAX as i64),
        DType::U64 => (0, i64::MAX),
        DType::I1 => (0, 1),
        _ => (i64::MIN, i64::MAX),
    }
}

/// A symbolic attribute (first of `keys` present), upper-cased, without any
/// `CAST_` prefix handling (callers normalise).
pub(crate) fn attr_sym(call: &TileCall, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| match attr(&call.attrs, k)? {
        AttrVal::Sym(s) => Some(s.trim_matches('"').to_ascii_uppercase()),
        AttrVal::Int(i) => Some(i.to_string()),
        AttrVal::Float(f) => Some(f.to_string()),
    })
}

/// NaN-propagating maximum: IEEE 754-2019 maximum (+0 > -0, so the result
/// does not depend on the order of a reduction), what the JIT computes.
pub(crate) fn fmax(x: f64, y: f64) -> f64 {
    super::tile::fmax(x, y)
}

/// NaN-propagating minimum (IEEE 754-2019 minimum, as [`fmax`]).
pub(crate) fn fmin(x: f64, y: f64) -> f64 {
    super::tile::fmin(x, y)
}
