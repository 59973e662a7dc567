//! `tstore` of an accumulator tile through the FIXPIPE with a scalar
//! pre-quantization word (`tstore ins(%acc, %word : ..., i64) outs(%view)`)
//! and/or `reluPreMode = normal_relu`; `textract` from an acc tile
//! (`ins(%acc, %row, %col[, %word])`) converts its elements the same way
//! ([`Conv`]).
//!
//! This follows pto-isa's CPU model of the scalar FIXPIPE path
//! (`TSTORE(dst, src, preQuantScalar)`): the 64-bit word carries the scale
//! M1 as an f32 in bits 0..32, the i16 shift in bits 32..36 (plus one), the
//! offset in bits 37..46 and the signed flag in bit 46. With
//! `y = f32(x) * M1` (in f32), the source -> destination pair picks the mode:
//!
//! | source -> destination | result |
//! |---|---|
//! | f32 or i32 -> i8/ui8 | `clamp(rint_even(y + offset))` to [-128, 127] (signed flag) or [0, 255] |
//! | i32 -> f16 | `f16(clamp(y, ±65504))` |
//! | f32 -> f16 | `f16(clamp(y, ±65504))` for finite `y` (inf and NaN pass) |
//! | f32 -> bf16 | `bf16(y)` |
//! | i32 -> i16 | `i16(x >> shift)` (wrapping) |
//!
//! Other pairs (f32 -> f32, i32 -> bf16, fp8/hif8 destinations) have no mode
//! in the CPU model and fault as not implemented. ReLU applies to the mode's
//! result before the final conversion; without a word it applies to the
//! source value, which then casts to the destination (f32/i32 to
//! f32/i32/f16/bf16; floats round to nearest even). An `atomicType` combines the converted value with
//! what GM holds, in the view's element type.

use pto_isa_spec::DType;

use crate::exec::tile_ops::{attr_sym, check_valid, get, in_scalars, in_tile, short, TileCall};
use crate::exec::{fault, Accesses, Fault};
use crate::mem::{Gm, Local};
use crate::num::{read, write, Num};
use crate::program::Combine;
use crate::value::{Space, Val};
use pto_asm::ty::TileLoc;

/// The scalar quant word's fields.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Word {
    scale: f32,
    offset: f32,
    signed: bool,
    shift: u32,
}

fn decode(w: u64) -> Word {
    Word {
        scale: f32::from_bits(w as u32),
        offset: ((w >> 37) & 0x1ff) as f32,
        signed: (w >> 46) & 1 == 1,
        shift: ((w >> 32) & 0xf) as u32 + 1,
    }
}

/// The scalar quant modes of the CPU model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// f32/i32 -> i8/ui8.
    Int8,
    /// i32 -> f16.
    Deq16,
    /// f32 -> f16.
    F16,
    /// f32 -> bf16.
    Bf16,
    /// i32 -> i16.
    Shift16,
}

fn mode(src: DType, dst: DType) -> Option<Mode> {
    Some(match (src, dst) {
        (DType::F32 | DType::I32, DType::I8 | DType::U8) => Mode::Int8,
        (DType::I32, DType::F16) => Mode::Deq16,
        (DType::F32, DType::F16) => Mode::F16,
        (DType::F32, DType::BF16) => Mode::Bf16,
        (DType::I32, DType::I16) => Mode::Shift16,
        _ => return None,
    })
}

fn relu_f(v: f32, on: bool) -> f32 {
    if on && v < 0.0 {
        0.0
    } else {
        v
    }
}

fn quantize(x: Num, m: Mode, w: Word, relu: bool) -> Num {
    let y = x.f() as f32 * w.scale;
    match m {
        Mode::Int8 => {
            let (lo, hi) = if w.signed {
                (-128.0, 127.0)
            } else {
                (0.0, 255.0)
            };
            let r = (y + w.offset).round_ties_even();
            let r = if r.is_nan() { 0.0 } else { r.clamp(lo, hi) };
            Num::I(relu_f(r, relu) as i64)
        }
        Mode::Deq16 => Num::F(relu_f(y.clamp(-65504.0, 65504.0), relu) as f64),
        Mode::F16 => {
            let c = if y.is_finite() {
                y.clamp(-65504.0, 65504.0)
            } else {
                y
            };
            Num::F(relu_f(c, relu) as f64)
        }
        Mode::Bf16 => Num::F(relu_f(y, relu) as f64),
        Mode::Shift16 => {
            let v = ((x.i() as i32) >> w.shift.min(31)) as i16;
            Num::I(if relu && v < 0 { 0 } else { v as i64 })
        }
    }
}

/// Whether the op asks for ReLU (`reluPreMode = normal_relu`).
pub(crate) fn relu_on(call: &TileCall) -> bool {
    attr_sym(call, &["reluPreMode", "relu_pre_mode"])
        .is_some_and(|s| s != "0" && !s.contains("NO_RELU") && !s.contains("NORELU"))
}

/// The FIXPIPE element conversion of one op: a scalar quant mode (with its
/// word) or a plain cast, and ReLU.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Conv {
    quant: Option<(Mode, Word)>,
    relu: bool,
}

impl Conv {
    /// The conversion from `src` to `dst` elements with an optional quant
    /// word, ReLU from the op's `reluPreMode`.
    pub(crate) fn new(
        call: &TileCall,
        src: DType,
        dst: DType,
        word: Option<u64>,
    ) -> Result<Conv, Fault> {
        let relu = relu_on(call);
        let quant = match word {
            Some(w) => match mode(src, dst) {
                Some(m) => Some((m, decode(w))),
                None => {
                    return fault(format!(
                        "{}: a scalar pre-quantization from {src} to {dst} is not implemented (pto-isa's CPU model defines f32/i32 -> i8/ui8, i32 -> f16/i16, f32 -> f16/bf16)",
                        short(call)
                    ))
                }
            },
            None => {
                // the CPU model's unquantized path is a plain cast; the
                // manual lists these acc destinations
                let plain = matches!(src, DType::F32 | DType::I32)
                    && matches!(dst, DType::I32 | DType::F32 | DType::F16 | DType::BF16);
                if !plain {
                    return fault(format!(
                        "{}: an acc conversion from {src} to {dst} needs a quantization word",
                        short(call)
                    ));
                }
                None
            }
        };
        Ok(Conv { quant, relu })
    }

    /// Converts one accumulator element (the result still rounds or wraps
    /// to the destination type when written).
    pub(crate) fn apply(&self, x: Num) -> Num {
        match self.quant {
            Some((m, w)) => quantize(x, m, w, self.relu),
            None => match x {
                Num::F(f) => Num::F(if self.relu && f < 0.0 { 0.0 } else { f }),
                Num::I(i) => Num::I(if self.relu && i < 0 { 0 } else { i }),
            },
        }
    }
}

/// Executes a quantizing or ReLU `tstore` from an acc tile.
pub fn run(call: &TileCall, gm: &Gm, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let src = in_tile(call, 0, "source")?;
    check_valid(call, src, "source")?;
    if src.loc != TileLoc::Acc {
        return fault(format!(
            "{}: a quantization word or reluPreMode needs an acc source (FIXPIPE), got loc={}",
            short(call),
            src.loc.name()
        ));
    }
    let Some(Val::View(v)) = call.outs.first() else {
        return fault(format!(
            "{}: the destination must be a GM view",
            short(call)
        ));
    };
    let (vr, vc) = v.rows_cols();
    if src.v_row > vr || src.v_col > vc {
        return fault(format!(
            "{}: a {}x{} valid region does not fit the {vr}x{vc} GM view",
            short(call),
            src.v_row,
            src.v_col
        ));
    }
    let conv = Conv::new(
        call,
        src.elem,
        v.elem,
        in_scalars(call).first().map(|n| n.i() as u64),
    )?;
    let how = match attr_sym(call, &["atomicType"]) {
        None => Combine::Store,
        Some(a) => match Combine::parse(&a) {
            Some(c) => c,
            None => {
                return fault(format!(
                    "{}: atomicType {a} is not implemented",
                    short(call)
                ))
            }
        },
    };
    let ds = v.elem.bytes();
    let mut b = vec![0u8; ds];
    for r in 0..src.v_row {
        for c in 0..src.v_col {
            let x = get(local, src, r, c, acc)?;
            let y = conv.apply(x);
            let addr = crate::exec::comm::view_addr(v, r, c)?;
            let y = if how == Combine::Store {
                y
            } else {
                // the converted value meets GM in the view's type
                write(&mut b, v.elem, y);
                let conv = read(&b, v.elem);
                gm.read(addr, &mut b)?;
                acc.add(Space::Gm, addr, ds as u64, false);
                crate::exec::comm::combine(how, read(&b, v.elem), conv, v.elem)
            };
            write(&mut b, v.elem, y);
            gm.write(addr, &b)?;
            acc.add(Space::Gm, addr, ds as u64, true);
        }
    }
    Ok(())
}
