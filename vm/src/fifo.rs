//! Cube <-> vector FIFOs (`tpush_to_aiv`/`tpop_from_aic`/`tfree_from_aic` and
//! the vector-to-cube direction): the pipe configuration, the per-cluster
//! slot accounting the scoreboard blocks on, and the copy of one entry into
//! the consumer's slot.
//!
//! Model (A5 local-to-local path, also used for A2/A3 tile entries): a pipe
//! has `slot_num` slots of `slot_size` bytes in the consumer's buffer (the
//! `reserve_buffer` named by the init). The n-th push of a producer writes
//! slot `n % slot_num`; it waits until every consumer has freed entry
//! `n - slot_num`. The m-th pop of a consumer waits until every producer has
//! pushed entry m, then binds the result tile to slot `m % slot_num`. The
//! cube is the only producer (consumer) of a cube-to-vector (vector-to-cube)
//! pipe; both vector subblocks take part in every entry.

use pto_asm::ty::{BLayout, SLayout, TileLoc};

use crate::exec::{fault, Accesses, Fault};
use crate::mem::Local;
use crate::num;
use crate::program::{InstId, Reg};
use crate::value::{Space, Tile};

/// What `pto.aic_initialize_pipe` / `pto.aiv_initialize_pipe` says.
#[derive(Clone, Debug)]
pub struct PipeInit {
    /// Logical pipe id.
    pub id: u32,
    /// 1 cube to vector, 2 vector to cube, 3 both.
    pub dir_mask: u32,
    /// Bytes of one unsplit entry.
    pub slot_size: u64,
    /// Explicit `slot_num` (default 8, or 4 per direction for `dir_mask = 3`).
    pub slot_num: Option<u64>,
    /// Cube-to-vector consumer buffer (UB address).
    pub c2v_buf: Option<Reg>,
    /// Vector-to-cube consumer buffer (L1 address).
    pub v2c_buf: Option<Reg>,
    /// GM slot descriptor of a global-only FIFO.
    pub gm_tensor: Option<Reg>,
    /// `acc_push_epilogue<layout = .., quant = .., relu = ..>` (FIXPIPE
    /// conversion of cube-to-vector pushes).
    pub epilogue: Option<Epilogue>,
}

/// The FIXPIPE epilogue a cube-to-vector pipe applies to pushed acc tiles.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Epilogue {
    /// `nz2nd` (the only layout ptovm runs), `nz2dn`, `nz2nz`.
    pub layout: String,
    /// The quant mode (`no_convert`, `f32_f16`, `qf322b8_pre_scalar`, ...).
    pub quant: String,
    /// `no_relu`, `normal_relu`, ...
    pub relu: String,
}

impl Epilogue {
    /// Parses the body of `#pto.acc_push_epilogue<layout = a, quant = b, relu = c>`.
    pub fn parse(body: &str) -> Epilogue {
        let t: String = body.chars().filter(|c| !c.is_whitespace()).collect();
        let mut e = Epilogue {
            layout: "nz2nd".into(),
            quant: "no_convert".into(),
            relu: "no_relu".into(),
        };
        for f in t.trim_matches(|c| c == '<' || c == '>').split(',') {
            if let Some((k, v)) = f.split_once('=') {
                let v = v.trim_end_matches('>').to_ascii_lowercase();
                match k {
                    "layout" => e.layout = v,
                    "quant" => e.quant = v,
                    "relu" => e.relu = v,
                    _ => {}
                }
            }
        }
        e
    }

    /// Whether the mode takes its parameters from `set_quant_vector` (per
    /// column) rather than `set_quant_scalar`.
    pub fn vector(&self) -> bool {
        self.quant.ends_with("_vec")
    }

    /// Whether the mode needs a `set_quant_*` parameter.
    pub fn needs_param(&self) -> bool {
        !matches!(self.quant.as_str(), "no_convert" | "f32_f16" | "f32_bf16")
    }
}

/// A pipe's quant parameter register as `set_quant_scalar` /
/// `set_quant_vector` left it when a push issued.
#[derive(Clone, Debug)]
pub enum QuantReg {
    /// The f32 scale of `set_quant_scalar`.
    Scalar(f32),
    /// The scaling (FB) tile of `set_quant_vector`: one ui64 quant word per
    /// output column in row 0.
    Vector(Box<Tile>),
}

/// The per-element conversion of one push through an epilogue.
#[derive(Clone, Debug)]
pub struct EpConv {
    /// The consumer's element type.
    pub out: pto_isa_spec::DType,
    mode: EpMode,
    relu: bool,
    /// Per output column (scale, offset, signed); one entry repeats.
    params: Vec<(f32, f32, bool)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EpMode {
    /// A cast (rounding to nearest even).
    Plain,
    /// `rint(x * scale + offset)` clamped to [-128, 127] or [0, 255].
    Int8,
    /// `x * scale` clamped to +-65504 (NaN and inf pass for f32 sources).
    F16,
    /// `x * scale` then cast.
    Scaled,
}

impl EpConv {
    /// The conversion of an `src` acc tile through `e` into a consumer of
    /// element type `consumer`, with the quant register `q` (read from
    /// `local`, FB accesses logged in `acc`).
    pub fn new(
        e: &Epilogue,
        src: pto_isa_spec::DType,
        consumer: Option<pto_isa_spec::DType>,
        q: Option<&QuantReg>,
        cols: i64,
        local: &Local,
        acc: &mut Accesses,
    ) -> Result<EpConv, Fault> {
        use pto_isa_spec::DType as D;
        if e.layout != "nz2nd" {
            return fault(format!(
                "acc_push_epilogue layout {} is not implemented (ptovm runs nz2nd)",
                e.layout
            ));
        }
        let relu = match e.relu.as_str() {
            "no_relu" => false,
            "normal_relu" => true,
            other => {
                return fault(format!(
                    "acc_push_epilogue relu = {other} is not implemented"
                ))
            }
        };
        let int8 = |c: Option<D>| match c {
            Some(d @ (D::I8 | D::U8)) => Ok(d),
            other => fault(format!(
                "acc_push_epilogue quant = {}: the consumer must pop an i8/ui8 tile, found {}",
                e.quant,
                other.map_or("no tile".to_string(), |d| d.to_string())
            )),
        };
        let need = |want: D| {
            if src == want {
                Ok(())
            } else {
                fault(format!(
                    "acc_push_epilogue quant = {} converts {want} accumulators, the pushed tile holds {src}",
                    e.quant
                ))
            }
        };
        let (mode, out) = match e.quant.as_str() {
            "no_convert" => (EpMode::Plain, src),
            "f32_f16" => (need(D::F32).map(|_| EpMode::Plain)?, D::F16),
            "f32_bf16" => (need(D::F32).map(|_| EpMode::Plain)?, D::BF16),
            "qf322b8_pre_scalar" | "qf322b8_pre_vec" => {
                need(D::F32)?;
                (EpMode::Int8, int8(consumer)?)
            }
            "req8_scalar" | "req8_vec" => {
                need(D::I32)?;
                (EpMode::Int8, int8(consumer)?)
            }
            "deqf16_scalar" | "deqf16_vec" => {
                need(D::I32)?;
                (EpMode::F16, D::F16)
            }
            "qf322f16_pre_scalar" | "qf322f16_pre_vec" => {
                need(D::F32)?;
                (EpMode::F16, D::F16)
            }
            "qf322bf16_pre_scalar" | "qf322bf16_pre_vec" => {
                need(D::F32)?;
                (EpMode::Scaled, D::BF16)
            }
            "qs322bf16_pre_scalar" | "qs322bf16_pre_vec" => {
                need(D::I32)?;
                (EpMode::Scaled, D::BF16)
            }
            other => {
                return fault(format!(
                    "acc_push_epilogue quant = {other} is not implemented (no public source gives its rounding and saturation)"
                ))
            }
        };
        if let Some(c) = consumer {
            if c.bytes() != out.bytes() {
                return fault(format!(
                    "acc_push_epilogue quant = {} produces {out}, the consumer pops {c}",
                    e.quant
                ));
            }
        }
        let params = if !e.needs_param() {
            vec![(1.0, 0.0, true)]
        } else {
            match (e.vector(), q) {
                (false, Some(QuantReg::Scalar(f))) => {
                    // SET_QUANT_SCALAR<OutType>: the f32 bits, bit 46 set for a
                    // signed 8-bit output; no offset
                    vec![(*f, 0.0, out != D::U8)]
                }
                (true, Some(QuantReg::Vector(t))) => {
                    let words = matches!(t.elem, D::U64 | D::I64);
                    if !(words || t.elem.is_float()) || t.v_col < cols {
                        return fault(format!(
                            "set_quant_vector: the scaling tile must hold at least {cols} ui64 quant words or float scales in row 0 (found {}x{} {})",
                            t.v_row, t.v_col, t.elem
                        ));
                    }
                    let sp = Space::of_tile(t.loc);
                    let es = t.elem.bytes() as u64;
                    (0..cols)
                        .map(|c| {
                            let a = t.elem_addr(0, c)?;
                            let b = local.slice(sp, a, es)?;
                            acc.add(sp, a, es, false);
                            Ok(if words {
                                decode_vector_word(u64::from_le_bytes(
                                    b.try_into().unwrap_or([0; 8]),
                                ))
                            } else {
                                // a float payload is the scale alone (as the
                                // `.fp` forms read A5's float scaling tiles)
                                (num::read(b, t.elem).f() as f32, 0.0, out != D::U8)
                            })
                        })
                        .collect::<Result<Vec<_>, Fault>>()?
                }
                (v, _) => {
                    return fault(format!(
                        "acc_push_epilogue quant = {}: no pto.{} for this pipe has run",
                        e.quant,
                        if v {
                            "set_quant_vector"
                        } else {
                            "set_quant_scalar"
                        }
                    ))
                }
            }
        };
        Ok(EpConv {
            out,
            mode,
            relu,
            params,
        })
    }

    /// Converts element `x` of output column `c`.
    pub fn apply(&self, x: num::Num, c: i64) -> num::Num {
        use num::Num;
        let (scale, offset, signed) = self.params[(c.max(0) as usize).min(self.params.len() - 1)];
        let relu = |v: f64| if self.relu && v < 0.0 { 0.0 } else { v };
        match self.mode {
            EpMode::Plain => match x {
                Num::F(f) => Num::F(relu(f)),
                Num::I(i) => Num::I(if self.relu && i < 0 { 0 } else { i }),
            },
            EpMode::Int8 => {
                let y = x.f() as f32 * scale + offset;
                let (lo, hi) = if signed {
                    (-128.0, 127.0)
                } else {
                    (0.0, 255.0)
                };
                let r = if y.is_nan() {
                    0.0
                } else {
                    (y as f64).round_ties_even().clamp(lo, hi)
                };
                Num::I(relu(r) as i64)
            }
            EpMode::F16 => {
                let y = x.f() as f32 * scale;
                let y = if y.is_finite() {
                    y.clamp(-65504.0, 65504.0)
                } else {
                    y
                };
                Num::F(relu(y as f64))
            }
            EpMode::Scaled => Num::F(relu((x.f() as f32 * scale) as f64)),
        }
    }
}

/// (scale, offset, signed) of a per-channel quant word: the 19-bit M1
/// (sign, 8-bit exponent, 10-bit mantissa) in bits 13..32, the offset in bits
/// 37..46, the signed flag in bit 46 (pto-isa's `extract_m1_from_quant`).
fn decode_vector_word(w: u64) -> (f32, f32, bool) {
    let m1 = ((w >> 13) & 0x7ffff) as u32;
    let (sign, exp, man) = ((m1 >> 18) & 1, (m1 >> 10) & 0xff, m1 & 0x3ff);
    let scale = if exp == 0 && man == 0 {
        0.0
    } else {
        f32::from_bits(sign << 31 | exp << 23 | man << 13)
    };
    (scale, ((w >> 37) & 0x1ff) as f32, (w >> 46) & 1 == 1)
}

/// One push or free: what the other side joins when it takes it.
#[derive(Clone, Debug)]
pub struct Mark {
    /// Checker clock of the agent that did it.
    pub vc: Option<crate::checker::Vc>,
    /// When it completed (timed scheduler).
    pub time: u64,
    /// The instruction.
    pub inst: InstId,
}

/// The state of one direction of one logical pipe in a cluster.
#[derive(Clone, Debug, Default)]
pub struct Fifo {
    /// Slots.
    pub slot_num: u64,
    /// Bytes per slot.
    pub slot_size: u64,
    /// Consumer buffer address (set by either side's init).
    pub base: Option<u64>,
    /// GM slot descriptor (global-only FIFO).
    pub gm: Option<crate::value::View>,
    /// Per producer party: its pushes in order.
    pub pushes: Vec<Vec<Mark>>,
    /// Per consumer party: entries popped.
    pub pops: Vec<u64>,
    /// Per consumer party: its frees in order.
    pub frees: Vec<Vec<Mark>>,
    /// Per producer party: entries allocated with `talloc` (global entries).
    pub allocs: Vec<u64>,
    /// The FIXPIPE epilogue of a cube-to-vector pipe.
    pub epilogue: Option<Epilogue>,
}

impl Fifo {
    /// A FIFO for direction `c2v` with the given geometry.
    pub fn new(c2v: bool, slot_num: u64, slot_size: u64) -> Self {
        let (np, nc) = if c2v { (1, 2) } else { (2, 1) };
        Fifo {
            slot_num: slot_num.max(1),
            slot_size,
            base: None,
            gm: None,
            pushes: vec![Vec::new(); np],
            pops: vec![0; nc],
            frees: vec![Vec::new(); nc],
            allocs: vec![0; np],
            epilogue: None,
        }
    }

    /// Whether producer `p` may write its next entry: its slot has been freed
    /// by every consumer. Returns the consumer that still holds it otherwise.
    pub fn slot_free(&self, p: usize, n: u64) -> Result<(), usize> {
        let _ = p;
        if n < self.slot_num {
            return Ok(());
        }
        let need = n - self.slot_num;
        match self.frees.iter().position(|f| (f.len() as u64) <= need) {
            Some(c) => Err(c),
            None => Ok(()),
        }
    }

    /// Whether consumer `c` may pop its next entry: every producer pushed it.
    /// Returns a producer that has not otherwise.
    pub fn entry_ready(&self, c: usize) -> Result<(), usize> {
        let m = self.pops.get(c).copied().unwrap_or(0);
        match self.pushes.iter().position(|p| (p.len() as u64) <= m) {
            Some(p) => Err(p),
            None => Ok(()),
        }
    }

    /// Byte offset of entry `n` in the consumer buffer.
    pub fn slot_offset(&self, n: u64) -> u64 {
        (n % self.slot_num).saturating_mul(self.slot_size)
    }
}

/// Copies the producer's part of one entry into a consumer slot.
///
/// Cube to vector: `src` is the producer tile (acc); the consumer `sub` gets
/// rows `[sub * R/2, ...)` (split 1), columns `[sub * C/2, ...)` (split 2) or
/// the whole valid region (split 0), row-major with the entry's column count
/// at `addr` in its UB. Vector to cube: subblock `sub`'s vec tile is inserted
/// into an NZ matrix of the whole entry at `addr` in the cube's L1, at row
/// `sub * rows` (split 1) or column `sub * cols` (split 2).
#[allow(clippy::too_many_arguments)]
pub fn copy_entry(
    src_local: &Local,
    src: &Tile,
    dst_local: &mut Local,
    addr: u64,
    c2v: bool,
    split: u32,
    sub: i64,
    slot_size: u64,
    conv: Option<&EpConv>,
    src_acc: &mut Accesses,
    dst_acc: &mut Accesses,
) -> Result<(), Fault> {
    if split > 2 {
        return fault(format!(
            "split mode {split} (odd splits) is not implemented for local FIFOs"
        ));
    }
    let (vr, vc) = (src.v_row, src.v_col);
    let dst;
    // (source row, source col) of destination (0, 0); rows x cols copied;
    // destination offset
    let (sr, sc, rows, cols, dr, dc);
    if c2v {
        let (cr, cc) = match split {
            1 => (src.rows / 2, src.cols),
            2 => (src.rows, src.cols / 2),
            _ => (src.rows, src.cols),
        };
        let (pr, pc) = match split {
            1 => (vr / 2, vc),
            2 => (vr, vc / 2),
            _ => (vr, vc),
        };
        dst = Tile {
            loc: TileLoc::Vec,
            addr,
            elem: conv.map_or(src.elem, |c| c.out),
            rows: cr,
            cols: cc,
            v_row: pr,
            v_col: pc,
            blayout: BLayout::RowMajor,
            slayout: SLayout::NoneBox,
            fractal: 512,
            pad: 0,
        };
        (sr, sc) = match split {
            1 => (sub * pr, 0),
            2 => (0, sub * pc),
            _ => (0, 0),
        };
        (rows, cols, dr, dc) = (pr, pc, 0, 0);
    } else {
        let (cr, cc) = match split {
            1 => (src.rows.saturating_mul(2), src.cols),
            2 => (src.rows, src.cols.saturating_mul(2)),
            _ => (src.rows, src.cols),
        };
        dst = Tile {
            loc: TileLoc::Mat,
            addr,
            elem: src.elem,
            rows: cr.saturating_add(15) / 16 * 16,
            cols: cc,
            v_row: cr,
            v_col: cc,
            blayout: BLayout::ColMajor,
            slayout: SLayout::RowMajor,
            fractal: 512,
            pad: 0,
        };
        (dr, dc) = match split {
            1 => (sub * vr, 0),
            2 => (0, sub * vc),
            _ => (0, 0),
        };
        (sr, sc, rows, cols) = (0, 0, vr, vc);
    }
    let es = src.elem.bytes() as u64;
    let des = dst.elem.bytes() as u64;
    let bytes = (dst.rows.saturating_mul(dst.cols)).max(0) as u64 * des;
    if bytes > slot_size {
        return fault(format!(
            "the FIFO entry needs {bytes} bytes ({}x{} {:?}), the slot holds {slot_size}",
            dst.rows, dst.cols, src.elem
        ));
    }
    let (ss, ds) = (Space::of_tile(src.loc), Space::of_tile(dst.loc));
    for r in 0..rows {
        crate::exec::meter::charge(cols.max(0) as u64 + 1)?;
        for c in 0..cols {
            let sa = src.elem_addr(r + sr, c + sc)?;
            let da = dst.elem_addr(r + dr, c + dc)?;
            let mut v = num::read(src_local.slice(ss, sa, es)?, src.elem);
            if let Some(cv) = conv {
                v = cv.apply(v, c + sc);
            }
            num::write(dst_local.slice_mut(ds, da, des)?, dst.elem, v);
            src_acc.add(ss, sa, es, false);
            dst_acc.add(ds, da, des, true);
        }
    }
    Ok(())
}
