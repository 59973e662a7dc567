//! The A5 cube micro-ops: `mte_gm_l1`, `mte_gm_l1_frac` (ND/DN -> NZ),
//! `mte_l1_l0a`/`mte_l1_l0b` (and the legacy `load_cbuf_to_ca`/`cb`),
//! `mte_l1_ub`, `mte_l1_bt`, `mte_l1_fb`, the `mad` family and the FIXPIPE
//! write-backs `mte_l0c_gm`/`mte_l0c_ub`/`mte_l0c_l1`.
//!
//! Layouts (ptovm's model; only the cube micro-ops read L0A/L0B, so the
//! operand layouts there are internal to this file, see docs/decisions.md):
//! - L1 holds NZ matrices: element `(r, c)` of an `R x C` matrix with
//!   `C0 = 32 / sizeof(T)` sits at element offset
//!   `((c / C0) * Rpad + r) * C0 + c % C0`, `Rpad = roundup(R, 16)`.
//! - L0A holds the left `M x K` operand as NZ with `Rpad = roundup(M, 16)`;
//!   in GEMV mode (`m = 1` without `disable_gemv`) the row is contiguous.
//! - L0B holds the right `K x N` operand as the NZ of its transpose (`N x K`).
//! - L0C holds `M x N` results (f32/i32) as NZ with 16-wide column blocks and a
//!   row pitch of `roundup(M, 16)`; FIXPIPE reads it with its `src_stride`.

use pto_jit::Form as MatForm;
use std::sync::Arc;

use pto_asm::ast::{Elem, Op, Punct};
use pto_asm::attr::Attr;
use pto_asm::ty::TypeId;
use pto_isa_spec::{DType, Opcode};

use crate::exec::dma::{burst_addrs, bursts};
use crate::exec::{fault, meter, Accesses, Fault};
use crate::mem::{Gm, Local};
use crate::num::{self, Num};
use crate::program::{attr, AttrVal, Attrs};
use crate::value::{Ptr, Space, Val};

/// One argument of a keyword clause.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// The value with this index in the op's operand list.
    V(usize),
    /// A symbol (`qf322f16_pre_scalar`, `split_m`, `f32`...).
    S(String),
}

/// A keyword clause `name(arg, key = arg, ...)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Clause {
    /// Keyword.
    pub name: String,
    /// Arguments with their optional keys.
    pub args: Vec<(Option<String>, Arg)>,
}

/// The operand structure of a cube micro-op, from its text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Form {
    /// Positional operands (indices into the value list).
    pub lead: Vec<usize>,
    /// Bare keywords (`nd2nz`, `nz2nd`, `disable_gemv`, `sat`...).
    pub flags: Vec<String>,
    /// Keyword clauses.
    pub clauses: Vec<Clause>,
    /// Attributes (`transpose = true`...).
    pub attrs: Arc<Attrs>,
}

impl Form {
    fn flag(&self, f: &str) -> bool {
        self.flags.iter().any(|x| x == f)
    }
    fn clause(&self, n: &str) -> Option<&Clause> {
        self.clauses.iter().find(|c| c.name == n)
    }
}

impl Clause {
    fn vals(&self) -> Vec<usize> {
        self.args
            .iter()
            .filter_map(|(k, a)| match (k, a) {
                (None, Arg::V(i)) => Some(*i),
                _ => None,
            })
            .collect()
    }
    fn key(&self, k: &str) -> Option<&Arg> {
        self.args
            .iter()
            .find(|(kk, _)| kk.as_deref() == Some(k))
            .map(|(_, a)| a)
    }
    fn syms(&self) -> Vec<&str> {
        self.args
            .iter()
            .filter_map(|(k, a)| match (k, a) {
                (None, Arg::S(s)) => Some(s.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// Whether ptovm lowers `op` as a cube micro-op.
pub fn lowers(op: Opcode) -> bool {
    use Opcode as O;
    matches!(
        op,
        O::Mad
            | O::MadAcc
            | O::MadBias
            | O::MadMx
            | O::MadMxAcc
            | O::MadMxBias
            | O::MadRaw
            | O::MadBiasRaw
            | O::MadMxRaw
            | O::MadMxBiasRaw
            | O::MteL1L0aMx
            | O::MteL1L0bMx
            | O::MteGmL1
            | O::MteGmL1Frac
            | O::MteL1L0a
            | O::MteL1L0b
            | O::MteL1Bt
            | O::MteL1Fb
            | O::MteL1Ub
            | O::MteL0cL1
            | O::MteL0cGm
            | O::MteL0cUb
            | O::LoadCbufToCa
            | O::LoadCbufToCb
            | O::CopyCbufToUbuf
            | O::CopyUbufToCbuf
            | O::MteUbL1
            | O::CopyGmToCbuf
            | O::CopyCbufToBt
            | O::CopyCbufToFbuf
            | O::RawFillL1
            | O::CreateCbufMatrix
            | O::CopyGmToCbufMultiNd2nz
            | O::CopyGmToCbufMultiDn2nz
            | O::CopyMatrixCcToGm
            | O::CopyMatrixCcToCbuf
            | O::CopyMatrixCcToUb
    )
}

fn attr_sym(a: &Attr) -> Option<String> {
    match a {
        Attr::Keyword { kw, body } if body.is_empty() => Some(kw.clone()),
        Attr::Bool(b) => Some(b.to_string()),
        other => other.enum_value().map(str::to_string),
    }
}

/// Reads the operand structure of a cube micro-op: its value operands in
/// order, and the form that indexes them.
pub fn form(op: &Op, attrs: Arc<Attrs>, tyname: &dyn Fn(TypeId) -> String) -> (Vec<u32>, Form) {
    let mut regs = Vec::new();
    let mut f = Form {
        attrs,
        ..Form::default()
    };
    let body = &op.body;
    let mut i = 0;
    while i < body.len() {
        match &body[i] {
            Elem::P(Punct::Colon) => break,
            Elem::Use(v) => {
                f.lead.push(regs.len());
                regs.push(*v);
            }
            Elem::Ident(k) if body.get(i + 1) == Some(&Elem::P(Punct::LParen)) => {
                let mut c = Clause {
                    name: k.clone(),
                    args: Vec::new(),
                };
                let mut key: Option<String> = None;
                let mut j = i + 2;
                while j < body.len() && body[j] != Elem::P(Punct::RParen) {
                    let arg = match &body[j] {
                        Elem::Ident(s) if body.get(j + 1) == Some(&Elem::P(Punct::Equal)) => {
                            key = Some(s.clone());
                            j += 2;
                            continue;
                        }
                        Elem::Ident(s) => Some(Arg::S(s.clone())),
                        Elem::Use(v) => {
                            regs.push(*v);
                            Some(Arg::V(regs.len() - 1))
                        }
                        Elem::Attr(a) => attr_sym(a).map(Arg::S),
                        Elem::Type(t) => Some(Arg::S(tyname(*t))),
                        _ => None,
                    };
                    if let Some(a) = arg {
                        c.args.push((key.take(), a));
                    }
                    j += 1;
                }
                f.clauses.push(c);
                i = j;
            }
            Elem::Ident(k) => f.flags.push(k.clone()),
            Elem::Attr(a) => {
                if let Some(s) = attr_sym(a) {
                    f.flags.push(s)
                }
            }
            _ => {}
        }
        i += 1;
    }
    (regs, f)
}

/// A resolved cube micro-op.
#[derive(Clone, Debug)]
pub struct CubeCall {
    /// The instruction.
    pub op: Opcode,
    /// Its value operands, read when issued.
    pub vals: Vec<Val>,
    /// Its structure.
    pub form: Arc<Form>,
    /// The core's CTRL register when the op was issued (the raw `mad*_raw`
    /// forms take their tf32 / saturation modes from it).
    pub ctrl: i64,
    /// The MTE2 NZ parameter register when the op was issued (the raw
    /// `copy_gm_to_cbuf_multi_*` forms read it).
    pub nz_para: Option<u64>,
    /// The FIXPIPE quant / relu slope / clip / LOOP3_PARA / CHANNEL_PARA /
    /// FPC registers when issued.
    pub fix: [Option<u64>; 6],
    /// The GM -> L1 loop registers (`set_loop_size_outtol1`,
    /// `set_loop{1,2}_stride_outtol1`) when issued.
    pub outtol1: [u64; 3],
}

impl CubeCall {
    /// Whether the op's GM accesses are plain reads and writes (every cube
    /// op but a FIXPIPE write-back with an `atomic(...)` clause; the raw
    /// forms' CTRL atomic modes are refused when run).
    pub fn plain_gm(&self) -> bool {
        self.form.clause("atomic").is_none()
    }

    fn val(&self, i: usize) -> Result<&Val, Fault> {
        match self.vals.get(i) {
            Some(v) => Ok(v),
            None => fault(format!("'{}' is missing an operand", self.op.name())),
        }
    }
    fn ptr_at(&self, i: usize) -> Result<Ptr, Fault> {
        match self.val(i)? {
            Val::Ptr(p) => Ok(*p),
            v => fault(format!(
                "'{}' expects a pointer operand, found {}",
                self.op.name(),
                v.kind()
            )),
        }
    }
    fn int_at(&self, i: usize) -> Result<i64, Fault> {
        match self.val(i)? {
            Val::Int(v) => Ok(*v),
            v => fault(format!(
                "'{}' expects an integer operand, found {}",
                self.op.name(),
                v.kind()
            )),
        }
    }
    fn num_at(&self, i: usize) -> Result<f64, Fault> {
        match self.val(i)? {
            Val::Int(v) => Ok(*v as f64),
            Val::Float(v) => Ok(*v),
            v => fault(format!(
                "'{}' expects a scalar operand, found {}",
                self.op.name(),
                v.kind()
            )),
        }
    }
    /// The k-th positional operand.
    fn lead(&self, k: usize) -> Result<usize, Fault> {
        match self.form.lead.get(k) {
            Some(i) => Ok(*i),
            None => fault(format!(
                "'{}' expects at least {} positional operands",
                self.op.name(),
                k + 1
            )),
        }
    }
    fn ptr(&self, k: usize, want: Space) -> Result<Ptr, Fault> {
        let p = self.ptr_at(self.lead(k)?)?;
        if p.space != want {
            return fault(format!(
                "'{}' expects operand {} in {}, got a {} pointer",
                self.op.name(),
                k + 1,
                want.name(),
                p.space.name()
            ));
        }
        Ok(p)
    }
    fn int(&self, k: usize) -> Result<i64, Fault> {
        self.int_at(self.lead(k)?)
    }
    /// A non-negative count or extent.
    fn count(&self, k: usize) -> Result<u64, Fault> {
        let v = self.int(k)?;
        if !(0..=(1 << 24)).contains(&v) {
            return fault(format!(
                "'{}': operand {} is {v}, outside [0, 2^24]",
                self.op.name(),
                k + 1
            ));
        }
        Ok(v as u64)
    }
    fn triple(&self, c: &Clause) -> Result<(u64, i64, i64), Fault> {
        match c.vals().as_slice() {
            [a, b, d] => {
                let n = self.int_at(*a)?;
                if !(0..=(1 << 24)).contains(&n) {
                    return fault(format!(
                        "'{}': {} count {n} out of range",
                        self.op.name(),
                        c.name
                    ));
                }
                Ok((n as u64, self.int_at(*b)?, self.int_at(*d)?))
            }
            _ => fault(format!(
                "'{}': {}(...) needs three operands",
                self.op.name(),
                c.name
            )),
        }
    }
}

/// MX scales staged by `mte_l1_l0a_mx` / `mte_l1_l0b_mx`: per side, the
/// number of rows (M or N), of 32-element K groups, and the E8M0 bytes
/// row-major `[row][group]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MxScales {
    /// Left (index 0) and right (index 1).
    pub side: [(u64, u64, Vec<u8>); 2],
}

/// Upper bound on the elements or bytes one cube op may touch.
const MAX_WORK: u64 = 1 << 28;

/// Memory the op may touch: this core's buffers, plus the UB of the vector
/// subblocks when the op runs on the cube core of a mixed cluster.
pub struct Mem<'a> {
    /// GM.
    pub gm: &'a Gm,
    /// This core's buffers.
    pub local: &'a mut Local,
    /// This core's staged MX scales.
    pub mx: &'a mut MxScales,
    /// The vector subblocks' buffers (empty outside mixed clusters).
    pub subs: Vec<&'a mut Local>,
    /// On a vector core of a mixed cluster: the cube core's buffers, whose
    /// L1 `copy_ubuf_to_cbuf` writes.
    pub cube: Option<&'a mut Local>,
    /// Accesses of this core, for the checker.
    pub acc: &'a mut Accesses,
    /// Accesses to another core's buffers (a vector subblock's UB, the
    /// cube's L1), for the checker.
    pub far: Vec<(Far, crate::exec::Access)>,
}

/// Whose buffer a [`Mem::far`] access touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Far {
    /// Vector subblock `n` of the cluster.
    Sub(usize),
    /// The cluster's cube core.
    Cube,
}

impl Mem<'_> {
    fn read(&mut self, s: Space, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        match s {
            Space::Gm => self.gm.read(addr, out)?,
            _ => out.copy_from_slice(self.local.slice(s, addr, out.len() as u64)?),
        }
        self.acc.add(s, addr, out.len() as u64, false);
        Ok(())
    }
    fn write(&mut self, s: Space, addr: u64, data: &[u8]) -> Result<(), Fault> {
        match s {
            Space::Gm => self.gm.write(addr, data)?,
            _ => self
                .local
                .slice_mut(s, addr, data.len() as u64)?
                .copy_from_slice(data),
        }
        self.acc.add(s, addr, data.len() as u64, true);
        Ok(())
    }
    /// Writes into UB subblock `sub` (this core's UB outside a mixed cluster).
    fn write_ub(&mut self, sub: usize, addr: u64, data: &[u8]) -> Result<(), Fault> {
        if self.subs.is_empty() {
            return self.write(Space::Ub, addr, data);
        }
        match self.subs.get_mut(sub) {
            Some(l) => {
                l.slice_mut(Space::Ub, addr, data.len() as u64)?
                    .copy_from_slice(data);
                if self.acc.on && !data.is_empty() {
                    let a = crate::exec::Access {
                        space: Space::Ub,
                        addr,
                        len: data.len() as u64,
                        write: true,
                    };
                    self.far.push((Far::Sub(sub), a));
                }
                Ok(())
            }
            None => fault(format!("UB subblock {sub} does not exist")),
        }
    }
    fn get(&mut self, s: Space, addr: u64, dt: DType) -> Result<Num, Fault> {
        let mut b = [0u8; 8];
        let n = dt.bytes();
        self.read(s, addr, &mut b[..n])?;
        Ok(num::read(&b[..n], dt))
    }
    fn put(&mut self, s: Space, addr: u64, dt: DType, v: Num) -> Result<(), Fault> {
        let mut b = [0u8; 8];
        let n = dt.bytes();
        num::write(&mut b[..n], dt, v);
        self.write(s, addr, &b[..n])
    }
}

fn addr(base: u64, off: i64) -> Result<u64, Fault> {
    match i64::try_from(base).ok().and_then(|b| b.checked_add(off)) {
        Some(a) if a >= 0 => Ok(a as u64),
        _ => fault("cube op address became negative or overflowed (check the strides)"),
    }
}

fn roundup(v: u64, m: u64) -> u64 {
    v.div_ceil(m) * m
}

/// Elements per 32-byte C0 row of `dt`.
fn c0(dt: DType) -> Result<u64, Fault> {
    let b = dt.bytes() as u64;
    if b == 0 || b > 4 {
        return fault(format!("cube ops do not take {dt:?} elements"));
    }
    Ok(32 / b)
}

/// C0 (elements per row of a column block) of a FIXPIPE NZ destination:
/// 32 bytes for 1- and 2-byte elements; 16 for f32/i32 (the accumulator's
/// own 64-byte rows), or 8 f32 with the channel split (xt bit 42,
/// `nz2nz(1)`), which PTOAS allows for f32 destinations only (pto-isa
/// `GetTmovAccDstStride`, `TStoreAccNZ`'s shape check; PTOAS
/// `docs/designs/acc-store-structured-interface.md`).
fn fixpipe_nz_c0(name: &str, ddt: DType, split: bool) -> Result<u64, Fault> {
    match (ddt.bytes(), split) {
        (_, true) if ddt != DType::F32 => fault(format!(
            "'{name}': the channel split needs an f32 destination, not {ddt:?}"
        )),
        (_, true) => Ok(8),
        (4, false) => Ok(16),
        (b @ (1 | 2), false) => Ok(32 / b as u64),
        _ => fault(format!("'{name}' does not write {ddt:?} elements")),
    }
}

/// Destination element offset of accumulator element `(i, j)` in a FIXPIPE
/// NZ write-back: `dc0`-wide column blocks `dst_stride` elements start to
/// start (pto-isa sets `Rows * c0Size` for an NZ tile, `GetTmovAccDstStride`
/// and `TStoreAccNZ`; PTOAS: "start-to-start stride in destination
/// elements"), rows `dc0` elements apart inside a block.
fn fixpipe_nz_off(i: u64, j: u64, dst_stride: u64, dc0: u64) -> u64 {
    (j / dc0) * dst_stride + i * dc0 + j % dc0
}

/// Where a FIXPIPE write-back (`mte_l0c_gm`/`l1`/`ub`) puts accumulator
/// element `(i, j)` of its `mm x nn` result.
struct FixDst {
    /// ND (`nz2nd`), DN (`nz2dn`) or NZ.
    layout: FixLayout,
    dst_stride: u64,
    /// Elements per row of an NZ column block.
    dc0: u64,
    /// UB destination mode: subblock 0 or 1, 2 split_m, 3 split_n.
    sub_sel: Option<usize>,
    mm: u64,
    nn: u64,
}

#[derive(Clone, Copy, PartialEq)]
enum FixLayout {
    Nd,
    Dn,
    Nz,
}

impl FixDst {
    /// The subblock (UB split modes; 0 otherwise) and the destination
    /// element offset of `(i, j)`.
    fn offset(&self, i: u64, j: u64) -> (usize, u64) {
        let (ti, tj, sub) = match self.sub_sel {
            Some(2) => {
                let h = self.mm / 2;
                if i < h {
                    (i, j, 0)
                } else {
                    (i - h, j, 1)
                }
            }
            Some(3) => {
                let h = self.nn / 2;
                if j < h {
                    (i, j, 0)
                } else {
                    (i, j - h, 1)
                }
            }
            Some(s) => (i, j, s),
            None => (i, j, 0),
        };
        let off = match self.layout {
            FixLayout::Nd => ti * self.dst_stride + tj,
            FixLayout::Dn => tj * self.dst_stride + ti,
            FixLayout::Nz => fixpipe_nz_off(ti, tj, self.dst_stride, self.dc0),
        };
        (sub, off)
    }
}

/// Element offset of `(r, c)` in an NZ matrix with `rpad` padded rows.
#[inline(always)]
fn nz(r: u64, c: u64, rpad: u64, c0: u64) -> u64 {
    // C0 is 32 bytes of 1-, 2- or 4-byte elements (or 16 f32): a power of
    // two, so the block and the column in it are a shift and a mask (a
    // division per element was most of what the layout copies spent)
    let (blk, col) = if c0.is_power_of_two() {
        (c >> c0.trailing_zeros(), c & (c0 - 1))
    } else {
        (c / c0, c % c0)
    };
    (blk * rpad + r) * c0 + col
}

/// Runs a cube micro-op.
pub fn run(call: &CubeCall, m: &mut Mem<'_>) -> Result<(), Fault> {
    use Opcode as O;
    match call.op {
        O::MteGmL1 | O::CopyGmToCbuf => burst_copy(call, m, Space::Gm, Space::L1),
        O::MteL1Ub => l1_ub(call, m),
        O::MteUbL1 => ub_l1(call, m),
        O::MteGmL1Frac | O::CopyGmToCbufMultiNd2nz | O::CopyGmToCbufMultiDn2nz => {
            gm_l1_frac(call, m)
        }
        O::MteL1L0a | O::LoadCbufToCa => l1_l0(call, m, Space::L0a),
        O::MteL1L0b | O::LoadCbufToCb => l1_l0(call, m, Space::L0b),
        O::MteL1Bt | O::CopyCbufToBt => l1_bt(call, m),
        O::MteL1Fb | O::CopyCbufToFbuf => l1_fb(call, m),
        O::Mad
        | O::MadAcc
        | O::MadBias
        | O::MadMx
        | O::MadMxAcc
        | O::MadMxBias
        | O::MadRaw
        | O::MadBiasRaw
        | O::MadMxRaw
        | O::MadMxBiasRaw => mad(call, m),
        O::MteL1L0aMx => mx_load(call, m, 0),
        O::MteL1L0bMx => mx_load(call, m, 1),
        O::MteL0cGm | O::MteL0cUb | O::MteL0cL1 => fixpipe(call, m),
        O::CopyMatrixCcToGm | O::CopyMatrixCcToCbuf | O::CopyMatrixCcToUb => matrix_cc(call, m),
        O::CopyCbufToUbuf | O::CopyUbufToCbuf => cbuf_ubuf(call, m),
        O::RawFillL1 | O::CreateCbufMatrix => fill_l1(call, m),
        _ => fault(format!("'{}' is not a cube micro-op", call.op.name())),
    }
}

/// `mte_gm_l1`: `len` bytes per burst, `nburst(count, src_stride,
/// dst_stride)` and outer `loop(...)` groups, byte strides start to start. A
/// stride of 0 with more than one burst means contiguous bursts.
/// `copy_gm_to_cbuf (src, dst, n_burst, len_burst, src_stride, dst_stride)`
/// is the raw op PTOAS expands `mte_gm_l1` into, with the same values; its
/// outer loops come from the registers PTOAS sets for the first two `loop`
/// groups (VPTOExpandWrapperOps `packLoopSize`/`packLoopPair`, pto-isa A5
/// `TLoad`): `set_loop_size_outtol1` = loop2 count << 21 | loop1 count,
/// `set_loop{1,2}_stride_outtol1` = destination stride << 40 | source stride,
/// bytes; loop1 runs inside loop2, both outside the bursts.
fn burst_copy(call: &CubeCall, m: &mut Mem<'_>, s_sp: Space, d_sp: Space) -> Result<(), Fault> {
    let src = call.ptr(0, s_sp)?;
    let dst = call.ptr(1, d_sp)?;
    let raw = call.op == Opcode::CopyGmToCbuf;
    let len = call.count(if raw { 3 } else { 2 })?;
    let mut groups = Vec::new();
    if raw {
        groups.push((call.count(2)?, call.int(4)?, call.int(5)?, true));
        let [size, l1, l2] = call.outtol1;
        let stride = |w: u64| ((w & ((1 << 40) - 1)) as i64, ((w >> 40) & 0x1F_FFFF) as i64);
        let (s1, d1) = stride(l1);
        let (s2, d2) = stride(l2);
        let (n1, n2) = (size & 0x1F_FFFF, (size >> 21) & 0xF_FFFF);
        if n1 == 0 || n2 == 0 {
            return fault(format!(
                "'{}': set_loop_size_outtol1 holds a zero loop count ({n1}, {n2})",
                call.op.name()
            ));
        }
        groups.push((n1, s1, d1, false));
        groups.push((n2, s2, d2, false));
    }
    for c in &call.form.clauses {
        if c.name == "nburst" || c.name == "loop" {
            let (n, ss, ds) = call.triple(c)?;
            groups.push((n, ss, ds, c.name == "nburst"));
        }
    }
    let mut levels = Vec::new();
    let mut inner = len as i64;
    let mut have_nb = false;
    for (n, mut ss, mut ds, nb) in groups {
        have_nb |= nb;
        if n > 1 && ss == 0 {
            ss = inner;
        }
        if n > 1 && ds == 0 {
            ds = inner;
        }
        inner = ds.max(ss).saturating_mul(n as i64);
        levels.push((n, ss, ds));
    }
    if !have_nb {
        return fault(format!("'{}' needs nburst(...)", call.op.name()));
    }
    let Ok(total) = bursts(levels.iter().map(|l| l.0), len, MAX_WORK) else {
        return fault(format!("'{}' moves too many bytes", call.op.name()));
    };
    let mut buf = vec![0u8; len as usize];
    for k in 0..total {
        meter::charge(buf.len() as u64 + 16)?;
        let (Some(sa), Some(da)) = burst_addrs(k, &levels, src.addr, dst.addr) else {
            return fault("cube op address became negative or overflowed (check the strides)");
        };
        m.read(s_sp, sa, &mut buf)?;
        if d_sp == Space::Ub {
            m.write_ub(0, da, &buf)?;
        } else {
            m.write(d_sp, da, &buf)?;
        }
    }
    Ok(())
}

/// `mte_l1_ub`: PTOAS hands `len` and the `nburst` strides to the hardware
/// L1 -> UB copy unchanged, which counts 32-byte blocks: `len` blocks per burst,
/// strides are gaps (end of one burst to the start of the next) in blocks;
/// `loop(...)` strides stay bytes (PTOAS applies them as byte offsets).
fn l1_ub(call: &CubeCall, m: &mut Mem<'_>) -> Result<(), Fault> {
    let src = call.ptr(0, Space::L1)?;
    let dst = call.ptr(1, Space::Ub)?;
    let len = call.count(2)?.saturating_mul(32);
    let mut levels = Vec::new();
    for c in &call.form.clauses {
        if c.name == "nburst" {
            let (n, sg, dg) = call.triple(c)?;
            let l = len as i64;
            levels.insert(
                0,
                (
                    n,
                    l.saturating_add(sg.saturating_mul(32)),
                    l.saturating_add(dg.saturating_mul(32)),
                ),
            );
        } else if c.name == "loop" {
            levels.push(call.triple(c)?);
        }
    }
    if levels.is_empty() {
        return fault("'pto.mte_l1_ub' needs nburst(...)");
    }
    let Ok(total) = bursts(levels.iter().map(|l| l.0), len, MAX_WORK) else {
        return fault("'pto.mte_l1_ub' moves too many bytes");
    };
    let mut buf = vec![0u8; len as usize];
    for k in 0..total {
        meter::charge(buf.len() as u64 + 16)?;
        let (Some(sa), Some(da)) = burst_addrs(k, &levels, src.addr, dst.addr) else {
            return fault("cube op address became negative or overflowed (check the strides)");
        };
        m.read(Space::L1, sa, &mut buf)?;
        m.write_ub(0, da, &buf)?;
    }
    Ok(())
}

/// `pto.mte_ub_l1 %ub, %l1, %len nburst(%n, %src_gap, %dst_gap)` (vector
/// MTE3: its UB -> the cube core's L1, or the core's own L1 without a cube):
/// `n` bursts of `len` 32-byte blocks, the next burst `(len + gap) * 32`
/// bytes on (the PTOAS micro-ISA's UB copy burst model, as `mte_ub_ub`).
fn ub_l1(call: &CubeCall, m: &mut Mem<'_>) -> Result<(), Fault> {
    let src = call.ptr(0, Space::Ub)?;
    let dst = call.ptr(1, Space::L1)?;
    if src.addr % 32 != 0 || dst.addr % 32 != 0 {
        return fault("'pto.mte_ub_l1' needs 32-byte aligned UB and L1 addresses");
    }
    let len = call.count(2)?.saturating_mul(32);
    let mut group = None;
    for c in &call.form.clauses {
        match c.name.as_str() {
            "nburst" if group.is_none() => group = Some(call.triple(c)?),
            other => {
                return fault(format!(
                    "'pto.mte_ub_l1' takes one nburst(...) group, not {other}(...)"
                ))
            }
        }
    }
    let Some((n, sg, dg)) = group else {
        return fault("'pto.mte_ub_l1' needs nburst(%n_burst, %src_gap, %dst_gap)");
    };
    if n.saturating_mul(len) > MAX_WORK {
        return fault("'pto.mte_ub_l1' moves too many bytes");
    }
    let (ss, ds) = (
        (len as i64).saturating_add(sg.saturating_mul(32)),
        (len as i64).saturating_add(dg.saturating_mul(32)),
    );
    let mut buf = vec![0u8; len as usize];
    // saturated offsets land outside every buffer and fault there
    for k in 0..n as i64 {
        meter::charge(buf.len() as u64 + 16)?;
        m.read(Space::Ub, addr(src.addr, k.saturating_mul(ss))?, &mut buf)?;
        write_l1(m, addr(dst.addr, k.saturating_mul(ds))?, &buf)?;
    }
    Ok(())
}

/// Writes `buf` at `at` in the cube core's L1 (recorded for the checker as
/// that core's access), or in this core's own L1 outside a mixed cluster.
fn write_l1(m: &mut Mem<'_>, at: u64, buf: &[u8]) -> Result<(), Fault> {
    let len = buf.len() as u64;
    if let Some(c) = m.cube.as_mut() {
        c.slice_mut(Space::L1, at, len)?.copy_from_slice(buf);
        if m.acc.on && len > 0 {
            let a = crate::exec::Access {
                space: Space::L1,
                addr: at,
                len,
                write: true,
            };
            m.far.push((Far::Cube, a));
        }
        Ok(())
    } else {
        m.write(Space::L1, at, buf)
    }
}

/// The CCE-level `copy_cbuf_to_ubuf` (cube MTE1: L1 -> the UB of subblock
/// `sub_blockid`) and `copy_ubuf_to_cbuf` (vector MTE3: its UB -> the cube
/// core's L1): `(src, dst, sub_blockid, nburst, len, src_gap, dst_gap)`,
/// lengths and gaps (end of one burst to the start of the next) in 32-byte
/// blocks.
fn cbuf_ubuf(call: &CubeCall, m: &mut Mem<'_>) -> Result<(), Fault> {
    let to_ub = call.op == Opcode::CopyCbufToUbuf;
    let (ss, ds) = if to_ub {
        (Space::L1, Space::Ub)
    } else {
        (Space::Ub, Space::L1)
    };
    let src = call.ptr(0, ss)?;
    let dst = call.ptr(1, ds)?;
    let sub = call.int(2)?;
    if !(0..=1).contains(&sub) {
        return fault(format!(
            "'{}': sub_blockid {sub} is not 0 or 1",
            call.op.name()
        ));
    }
    let n = call.count(3)?;
    let len = call.count(4)?.saturating_mul(32);
    let (sg, dg) = (call.count(5)? * 32, call.count(6)? * 32);
    if n.saturating_mul(len) > MAX_WORK {
        return fault(format!("'{}' moves too many bytes", call.op.name()));
    }
    let mut buf = vec![0u8; len as usize];
    for k in 0..n {
        meter::charge(buf.len() as u64 + 16)?;
        m.read(ss, src.addr + k * (len + sg), &mut buf)?;
        let at = dst.addr + k * (len + dg);
        if to_ub {
            m.write_ub(sub as usize, at, &buf)?;
        } else {
            write_l1(m, at, &buf)?;
        }
    }
    Ok(())
}

/// `raw_fill_l1 (dst, byte_offset, raw_value, repeat_times, block_num_32b,
/// dst_gap_32b) {fill_word_bits}` and the `create_cbuf_matrix (dst,
/// raw_value, repeat_times, block_num_32b, dst_gap_32b) {fill_word_bits}` it
/// expands into (the PTOAS op definitions): `repeat_times` runs of
/// `block_num_32b` 32-byte blocks, `dst_gap_32b` blocks apart (end to
/// start), filled with the low 16 bits of `raw_value` repeated
/// (`fill_word_bits = 16`) or all 32 bits (`32`). The address must be 32-byte
/// aligned and the counts in [0, 32767].
fn fill_l1(call: &CubeCall, m: &mut Mem<'_>) -> Result<(), Fault> {
    let name = call.op.name();
    let dst = call.ptr(0, Space::L1)?;
    let wrapper = call.op == Opcode::RawFillL1;
    let k = if wrapper { 2 } else { 1 };
    let offset = if wrapper { call.int(1)? } else { 0 };
    let raw = call.int(k)? as u32;
    let geo = |i: usize| -> Result<u64, Fault> {
        let v = call.int(i)?;
        if !(0..=32767).contains(&v) {
            return fault(format!(
                "'{name}': operand {} is {v}, outside [0, 32767]",
                i + 1
            ));
        }
        Ok(v as u64)
    };
    let (reps, blocks, gap) = (geo(k + 1)?, geo(k + 2)?, geo(k + 3)?);
    let bits = match attr(&call.form.attrs, "fill_word_bits") {
        Some(AttrVal::Int(b @ (16 | 32))) => *b,
        _ => return fault(format!("'{name}' needs fill_word_bits = 16 or 32")),
    };
    if offset < 0 {
        return fault(format!("'{name}': negative byte_offset {offset}"));
    }
    let base = addr(dst.addr, offset)?;
    if base % 32 != 0 {
        return fault(format!(
            "'{name}': destination L1 address {base} is not 32-byte aligned"
        ));
    }
    let word: [u8; 4] = if bits == 16 {
        let h = (raw as u16).to_le_bytes();
        [h[0], h[1], h[0], h[1]]
    } else {
        raw.to_le_bytes()
    };
    let run: Vec<u8> = word
        .iter()
        .copied()
        .cycle()
        .take((blocks * 32) as usize)
        .collect();
    for r in 0..reps {
        meter::charge(run.len() as u64 + 16)?;
        m.write(Space::L1, base + r * (blocks + gap) * 32, &run)?;
    }
    Ok(())
}

/// `mte_gm_l1_frac`: logical `n x d` from GM (ND rows or DN columns) into L1 NZ.
/// `copy_gm_to_cbuf_multi_{nd,dn}2nz (src, dst, sid, loop1_src_stride,
/// l2_cache_ctrl, n_value, d_value, loop4_src_stride, smallc0_en)` is the raw
/// op PTOAS expands it into: the source strides and shape are operands, the
/// group count and destination loop 2/3/4 strides come from the
/// `set_mte2_nz_para` register (16-bit fields from bit 0 up).
/// The operands of an `mte_gm_l1_frac` / `copy_gm_to_cbuf_multi_*2nz`: a
/// logical `nv x dv` matrix per group, `groups` of them.
struct Frac {
    nv: u64,
    dv: u64,
    groups: u64,
    /// Source row (ND) or column (DN) stride in bytes, and group stride.
    inner: i64,
    outer: i64,
    /// Destination loop 2/3/4 strides (in 32-byte units).
    l2: i64,
    l3: i64,
    l4: i64,
    dn: bool,
}

impl Frac {
    fn of(call: &CubeCall) -> Result<Frac, Fault> {
        let name = call.op.name();
        let raw = matches!(
            call.op,
            Opcode::CopyGmToCbufMultiNd2nz | Opcode::CopyGmToCbufMultiDn2nz
        );
        let (nv, dv, inner, outer, smallc0, groups, l2, l3, l4, dn);
        if raw {
            let Some(w) = call.nz_para else {
                return fault(format!(
                    "'{name}' needs the NZ parameters: set_mte2_nz_para was not executed"
                ));
            };
            let field = |k: u32| ((w >> (16 * k)) & 0xFFFF) as i64;
            (groups, l2, l3, l4) = (field(0), field(1), field(2), field(3));
            (inner, nv, dv, outer) = (call.int(3)?, call.int(5)?, call.int(6)?, call.int(7)?);
            smallc0 = call.int(8)?;
            dn = call.op == Opcode::CopyGmToCbufMultiDn2nz;
        } else {
            dn = if call.form.flag("dn2nz") {
                true
            } else if call.form.flag("nd2nz") {
                false
            } else {
                return fault("'pto.mte_gm_l1_frac' needs nd2nz or dn2nz");
            };
            let f = &call.form;
            let get = |n: &str, k: usize| -> Result<Vec<i64>, Fault> {
                let Some(c) = f.clause(n) else {
                    return fault(format!("'pto.mte_gm_l1_frac' needs {n}(...)"));
                };
                let v = c.vals();
                if v.len() < k {
                    return fault(format!("'pto.mte_gm_l1_frac': {n}(...) needs {k} operands"));
                }
                v.iter().map(|i| call.int_at(*i)).collect()
            };
            let shape = get("shape", 2)?;
            let sl = get("src_layout", 1)?;
            let dg = get("dst_group", 4)?;
            smallc0 = match f.clause("ctrl").and_then(|c| c.vals().get(1).copied()) {
                Some(i) => call.int_at(i)?,
                None => 0,
            };
            (nv, dv) = (shape[0], shape[1]);
            (inner, outer) = (sl[0], sl.get(1).copied().unwrap_or(0));
            (groups, l2, l3, l4) = (dg[0], dg[1], dg[2], dg[3]);
        }
        if smallc0 != 0 {
            return fault(format!("'{name}' with small-C0 packing is not implemented"));
        }
        // each count in [0, 2^24] (as `CubeCall::count`), then the padded work
        // bounded: a hostile count must not run an empty loop 2^62 times
        for (what, v) in [
            ("row count", nv),
            ("column count", dv),
            ("group count", groups),
        ] {
            if !(0..=(1 << 24)).contains(&v) {
                return fault(format!("'{name}': {what} {v} is outside [0, 2^24]"));
            }
        }
        Ok(Frac {
            nv: nv as u64,
            dv: dv as u64,
            groups: groups as u64,
            inner,
            outer,
            l2,
            l3,
            l4,
            dn,
        })
    }

    /// Byte offset in L1 of element `(n, d)` of group `g` (elements of `es`
    /// bytes, `c0` per 32-byte row); None when it overflows.
    fn dst_offset(&self, g: i64, n: i64, d: i64, c0: i64, es: i64) -> Option<i64> {
        sum_of_products(&[
            (n * 32, self.l2),
            ((d / c0) * 32, self.l3),
            (g * 32, self.l4),
            (d % c0, es),
        ])
    }
}

/// The sum of `index * stride` terms; None when it overflows (hostile strides
/// fault instead of wrapping).
fn sum_of_products(terms: &[(i64, i64)]) -> Option<i64> {
    terms
        .iter()
        .try_fold(0i64, |a, &(i, st)| a.checked_add(i.checked_mul(st)?))
}

/// `mte_gm_l1_frac`: logical `n x d` from GM (ND rows or DN columns) into L1 NZ.
/// `copy_gm_to_cbuf_multi_{nd,dn}2nz (src, dst, sid, loop1_src_stride,
/// l2_cache_ctrl, n_value, d_value, loop4_src_stride, smallc0_en)` is the raw
/// op PTOAS expands it into: the source strides and shape are operands, the
/// group count and destination loop 2/3/4 strides come from the
/// `set_mte2_nz_para` register (16-bit fields from bit 0 up).
fn gm_l1_frac(call: &CubeCall, m: &mut Mem<'_>) -> Result<(), Fault> {
    let name = call.op.name();
    let src = call.ptr(0, Space::Gm)?;
    let dst = call.ptr(1, Space::L1)?;
    let f = Frac::of(call)?;
    let Frac {
        nv,
        dv,
        groups,
        inner,
        outer,
        dn,
        ..
    } = f;
    let dt = dst.elem;
    let es = dt.bytes() as i64;
    let c0 = c0(dt)?;
    let dpad = roundup(dv, c0);
    if nv == 0 || dpad == 0 || groups == 0 {
        // no element to move or pad
        return Ok(());
    }
    if nv.saturating_mul(dpad).saturating_mul(groups) > MAX_WORK {
        return fault(format!(
            "'{name}' moves {groups} x {nv} x {dpad} elements, more than ptovm allows in one op"
        ));
    }
    let zero = vec![0u8; es as usize];
    let mut b = vec![0u8; es as usize];
    let overflow = || {
        Fault::Msg(format!(
            "'{name}': an address overflows (check the strides)"
        ))
    };
    let off = |terms: &[(i64, i64)]| sum_of_products(terms).ok_or_else(overflow);
    // ND rows with the whole destination in L1: each row's elements read
    // from GM at once and written straight into L1; a row that cannot
    // (an overflow, a read outside GM) goes element by element below
    let row_bytes = dv.saturating_mul(es as u64);
    let fast = if dn || row_bytes > 1 << 20 {
        None
    } else {
        frac_span(&f, dst.addr, (groups, nv, dpad), c0 as i64, es)
            .filter(|&(lo, len)| m.local.slice(Space::L1, lo, len).is_ok())
    };
    let mut row = vec![
        0u8;
        if fast.is_some() {
            row_bytes as usize
        } else {
            0
        }
    ];
    let mut wr = RunRec::new(Space::L1, true);
    for g in 0..groups as i64 {
        for n in 0..nv as i64 {
            meter::charge(dpad + 1)?;
            if let Some((lo, len)) = fast {
                let from = off(&[(g, outer), (n, inner)])
                    .ok()
                    .and_then(|so| addr(src.addr, so).ok());
                if let Some(a) = from.filter(|&a| m.gm.read(a, &mut row).is_ok()) {
                    m.acc.add(Space::Gm, a, row.len() as u64, false);
                    let out = m.local.slice_mut(Space::L1, lo, len)?;
                    for d in 0..dpad as i64 {
                        // in range: frac_span computed every offset
                        let da =
                            dst.addr as i64 + f.dst_offset(g, n, d, c0 as i64, es).unwrap_or(0);
                        let at = (da as u64 - lo) as usize;
                        let e = es as usize;
                        if d < dv as i64 {
                            out[at..at + e]
                                .copy_from_slice(&row[d as usize * e..(d as usize + 1) * e]);
                        } else {
                            out[at..at + e].fill(0);
                        }
                        wr.add(m.acc, da as u64, es as u64);
                    }
                    continue;
                }
            }
            // the fast rows' writes first, in order
            wr.flush(m.acc);
            for d in 0..dpad as i64 {
                let doff = f.dst_offset(g, n, d, c0 as i64, es).ok_or_else(overflow)?;
                let da = addr(dst.addr, doff)?;
                if d < dv as i64 {
                    let so = if dn {
                        off(&[(g, outer), (d, inner), (n, es)])?
                    } else {
                        off(&[(g, outer), (n, inner), (d, es)])?
                    };
                    m.read(Space::Gm, addr(src.addr, so)?, &mut b)?;
                    m.write(Space::L1, da, &b)?;
                } else {
                    m.write(Space::L1, da, &zero)?;
                }
            }
        }
    }
    wr.flush(m.acc);
    Ok(())
}

/// The L1 bytes `[lo, lo + len)` an `mte_gm_l1_frac` of `groups x nv x dpad`
/// elements writes, when every destination offset computes and lies at or
/// above address 0.
fn frac_span(
    f: &Frac,
    base: u64,
    (groups, nv, dpad): (u64, u64, u64),
    c0: i64,
    es: i64,
) -> Option<(u64, u64)> {
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    for g in 0..groups as i64 {
        for n in 0..nv as i64 {
            for d in 0..dpad as i64 {
                let o = f.dst_offset(g, n, d, c0, es)?;
                lo = lo.min(o);
                hi = hi.max(o);
            }
        }
    }
    let lo = (base as i64).checked_add(lo).filter(|a| *a >= 0)?;
    let hi = (base as i64).checked_add(hi)?.checked_add(es)?;
    Some((lo as u64, (hi - lo) as u64))
}

/// `mte_l1_l0a` / `mte_l1_l0b` (shape form `rows, cols, start_row, start_col`
/// with optional `transpose`) and the full-control form / `load_cbuf_to_c{a,b}`
/// (`m_start, k_start, m_step, k_step, src_stride, dst_stride`: whole 16 x C0
/// fractals).
fn l1_l0(call: &CubeCall, m: &mut Mem<'_>, dsp: Space) -> Result<(), Fault> {
    let src = call.ptr(0, Space::L1)?;
    let dst = call.ptr(1, dsp)?;
    let dt = src.elem;
    let es = dt.bytes() as u64;
    let c0 = c0(dt)?;
    let transpose = matches!(attr(&call.form.attrs, "transpose"), Some(AttrVal::Int(1)))
        || matches!(attr(&call.form.attrs, "transpose"), Some(AttrVal::Sym(s)) if s == "true");
    let full = call.form.lead.len() >= 8;
    if full {
        if transpose {
            return fault(format!(
                "'{}' full-control form with transpose is not implemented",
                call.op.name()
            ));
        }
        let (ms, ks, mst, kst, ss, ds) = (
            call.count(2)?,
            call.count(3)?,
            call.count(4)?,
            call.count(5)?,
            call.count(6)?,
            call.count(7)?,
        );
        let frac = 16 * 32;
        if mst.saturating_mul(kst).saturating_mul(frac) > MAX_WORK {
            return fault(format!(
                "'{}' moves {mst} x {kst} fractals ({} bytes), more than ptovm allows in one op",
                call.op.name(),
                mst.saturating_mul(kst).saturating_mul(frac)
            ));
        }
        let mut b = vec![0u8; frac as usize];
        for mb in 0..mst {
            meter::charge(kst * frac + 16)?;
            for kb in 0..kst {
                let so = ((ks + kb) * ss + ms + mb) * frac;
                let dof = (kb * ds + mb) * frac;
                m.read(Space::L1, src.addr + so, &mut b)?;
                m.write(dsp, dst.addr + dof, &b)?;
            }
        }
        return Ok(());
    }
    if transpose && es == 1 && dsp == Space::L0a {
        // the transpose granularity of 8-bit operands (32 x 32 blocks) is not
        // pinned by the docs; refuse rather than guess
        return fault(format!(
            "'{}' with transpose on 8-bit elements is not implemented",
            call.op.name()
        ));
    }
    // 8-bit right operands: L1 holds K x N in 512-byte fractals of 32 K-rows
    // by 16 N-columns (N contiguous), fractal (k / 32, n / 16) at index
    // (k / 32) * ceil(N / 16) + n / 16; the load transposes each fractal into
    // the 16 x 32 L0B fractal at the same index (the PTOAS mad_hif8 case's
    // packing and golden)
    let b8_right = transpose && es == 1 && dsp == Space::L0b;
    let transpose = transpose && es != 1;
    // shape form: (rows, cols) are (m, k) for L0A and (k, n) for L0B
    let (rows, cols, r0, c0s) = (
        call.count(2)?,
        call.count(3)?,
        call.count(4)?,
        call.count(5)?,
    );
    if rows.saturating_mul(cols) > MAX_WORK {
        return fault(format!("'{}' moves too many elements", call.op.name()));
    }
    let a_side = dsp == Space::L0a;
    // byte offsets (source in L1, destination in L0) of element (r, c)
    let offsets = |r: u64, c: u64| {
        // logical element (r, c) of the operand; its source in the L1 NZ
        // matrix: untransposed the L1 matrix is the operand as the L0
        // layout stores it, transposed it is the other orientation
        let (lr, lc) = (r + r0, c + c0s);
        let (sr, sc, spad) = match (a_side, transpose) {
            // L0A: L1 holds M x K
            (true, false) => (lr, lc, roundup(rows + r0, 16)),
            // L0A transposed: L1 holds K x M
            (true, true) => (lc, lr, roundup(cols + c0s, 16)),
            // L0B: L1 holds N x K
            (false, false) => (lc, lr, roundup(cols + c0s, 16)),
            // L0B transposed: L1 holds K x N
            (false, true) => (lr, lc, roundup(rows + r0, 16)),
        };
        let so = if b8_right {
            // (lr, lc) = (k, n) of the L1 K x N matrix
            let nb = roundup(cols + c0s, 16) / 16;
            ((lr / 32) * nb + lc / 16) * 512 + (lr % 32) * 16 + lc % 16
        } else {
            nz(sr, sc, spad, c0) * es
        };
        (so, l0_offset(a_side, (r, c), (rows, cols), c0) * es)
    };
    if copy_elements(
        m,
        (Space::L1, src.addr),
        (dsp, dst.addr),
        es,
        (rows, cols),
        offsets,
    )? {
        return Ok(());
    }
    // some element lies outside its buffer: element by element, so the
    // fault names the first one
    let mut b = vec![0u8; es as usize];
    for r in 0..rows {
        meter::charge(cols + 1)?;
        for c in 0..cols {
            let (so, dof) = offsets(r, c);
            m.read(Space::L1, src.addr + so, &mut b)?;
            m.write(dsp, dst.addr + dof, &b)?;
        }
    }
    Ok(())
}

/// Accesses of one op gathered into contiguous runs before they are
/// recorded: one [`Accesses::add`] per run instead of one per element, the
/// same bytes.
struct RunRec {
    space: Space,
    write: bool,
    run: Option<(u64, u64)>,
}

impl RunRec {
    fn new(space: Space, write: bool) -> RunRec {
        RunRec {
            space,
            write,
            run: None,
        }
    }

    #[inline]
    fn add(&mut self, acc: &mut Accesses, addr: u64, len: u64) {
        match &mut self.run {
            Some((a, l)) if *a + *l == addr => *l += len,
            run => {
                if let Some((a, l)) = run.replace((addr, len)) {
                    acc.add(self.space, a, l, self.write);
                }
            }
        }
    }

    fn flush(&mut self, acc: &mut Accesses) {
        if let Some((a, l)) = self.run.take() {
            acc.add(self.space, a, l, self.write);
        }
    }
}

/// Writes of one op into one space gathered into contiguous runs. Runs are
/// written in element order (a run is written before a write that does not
/// extend it), so overlapping writes end as element-by-element writes
/// would; a run that does not fit is written element by element, so its
/// fault names the first element outside, as an unbatched write would.
struct Pending {
    space: Space,
    es: usize,
    start: u64,
    buf: Vec<u8>,
}

impl Pending {
    fn new(space: Space, es: usize) -> Pending {
        Pending {
            space,
            es: es.max(1),
            start: 0,
            buf: Vec::new(),
        }
    }

    fn push(&mut self, m: &mut Mem<'_>, addr: u64, bytes: &[u8]) -> Result<(), Fault> {
        if !self.buf.is_empty() && self.start.checked_add(self.buf.len() as u64) != Some(addr) {
            self.flush(m)?;
        }
        if self.buf.is_empty() {
            self.start = addr;
        }
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= 1 << 16 {
            self.flush(m)?;
        }
        Ok(())
    }

    fn flush(&mut self, m: &mut Mem<'_>) -> Result<(), Fault> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let mut r = m.write(self.space, self.start, &self.buf);
        if r.is_err() {
            // nothing was written: again element by element, up to the
            // first that does not fit
            r = Ok(());
            for (k, e) in self.buf.chunks(self.es).enumerate() {
                if let Err(f) = m.write(self.space, self.start + (k * self.es) as u64, e) {
                    r = Err(f);
                    break;
                }
            }
        }
        self.buf.clear();
        r
    }
}

/// Copies the `rows x cols` elements of `es` bytes that `offsets(r, c)`
/// places (byte offsets from the source and destination bases) between two
/// of this core's buffers (different spaces), with direct slice copies and
/// run-merged accesses: the same bytes moved and recorded as one
/// `Mem::read` and `Mem::write` per element. `offsets` must be separable,
/// `offsets(r, c) = offsets(r, 0) + offsets(0, c) - offsets(0, 0)` (NZ
/// layouts are: a function of the row plus one of the column), so it is
/// called once per row and column, not per element (debug builds check
/// every element). Returns false, having done nothing, when some element
/// lies outside its buffer (the caller then goes element by element, so the
/// fault names the first such element).
fn copy_elements(
    m: &mut Mem<'_>,
    (ssp, sbase): (Space, u64),
    (dsp, dbase): (Space, u64),
    es: u64,
    (rows, cols): (u64, u64),
    offsets: impl Fn(u64, u64) -> (u64, u64),
) -> Result<bool, Fault> {
    if rows == 0 || cols == 0 {
        return Ok(true);
    }
    // more elements than the destination holds: some lie outside it (the
    // tables below are never larger than the buffer)
    if rows.saturating_mul(cols).saturating_mul(es) > m.local.size(dsp) {
        return Ok(false);
    }
    let (s00, d00) = offsets(0, 0);
    let rt: Vec<(u64, u64)> = (0..rows).map(|r| offsets(r, 0)).collect();
    let ct: Vec<(u64, u64)> = (0..cols)
        .map(|c| {
            let (so, d) = offsets(0, c);
            (so.wrapping_sub(s00), d.wrapping_sub(d00))
        })
        .collect();
    let at = |r: usize, c: usize| (rt[r].0.wrapping_add(ct[c].0), rt[r].1.wrapping_add(ct[c].1));
    let (mut smax, mut dmax) = (0u64, 0u64);
    for r in 0..rt.len() {
        for c in 0..ct.len() {
            let (so, d) = at(r, c);
            smax = smax.max(so);
            dmax = dmax.max(d);
        }
    }
    let Some(span) = smax
        .checked_add(es)
        .and_then(|len| m.local.slice(ssp, sbase, len).ok())
        .map(|s| s.to_vec())
    else {
        return Ok(false);
    };
    let Some(out) = dmax
        .checked_add(es)
        .and_then(|len| m.local.slice_mut(dsp, dbase, len).ok())
    else {
        return Ok(false);
    };
    let (mut rd, mut wr) = (RunRec::new(ssp, false), RunRec::new(dsp, true));
    // one element: a fixed-size move for the element sizes there are
    fn mv<const N: usize>(out: &mut [u8], d: usize, span: &[u8], so: usize) {
        let x: [u8; N] = std::array::from_fn(|i| span[so + i]);
        out[d..d + N].copy_from_slice(&x);
    }
    let n = es as usize;
    for r in 0..rt.len() {
        meter::charge(cols + 1)?;
        for c in 0..ct.len() {
            let (so, d) = at(r, c);
            debug_assert_eq!(
                (so, d),
                offsets(r as u64, c as u64),
                "offsets not separable"
            );
            let (so_, d_) = (so as usize, d as usize);
            match n {
                1 => out[d_] = span[so_],
                2 => mv::<2>(out, d_, &span, so_),
                4 => mv::<4>(out, d_, &span, so_),
                _ => out[d_..d_ + n].copy_from_slice(&span[so_..so_ + n]),
            }
            rd.add(m.acc, sbase + so, es);
            wr.add(m.acc, dbase + d, es);
        }
    }
    rd.flush(m.acc);
    wr.flush(m.acc);
    Ok(true)
}

/// The element offset of logical `(r, c)` of a `rows x cols` operand in L0:
/// L0A holds M x K (rows x cols) in NZ, L0B N x K (cols x rows) in NZ.
#[inline(always)]
fn l0_offset(a_side: bool, (r, c): (u64, u64), (rows, cols): (u64, u64), c0: u64) -> u64 {
    if a_side {
        nz(r, c, roundup(rows, 16), c0)
    } else {
        nz(c, r, roundup(cols, 16), c0)
    }
}

/// `mte_l1_bt`: bursts of `len` 64-byte destination units; f16/bf16 sources
/// widen to f32 bias values. `copy_cbuf_to_bt (src, dst, conv_control,
/// n_burst, len_burst, src_gap, dst_gap)` is the raw op PTOAS expands it into
/// (the same values; `conv_control` is 1 for an f16 source): with
/// `conv_control` 1 a 16-bit float source widens to f32, with 0 the bytes
/// are copied.
fn l1_bt(call: &CubeCall, m: &mut Mem<'_>) -> Result<(), Fault> {
    let name = call.op.name();
    let src = call.ptr(0, Space::L1)?;
    let dst = call.ptr(1, Space::Bias)?;
    let raw = call.op == Opcode::CopyCbufToBt;
    let (len, n, sg, dg) = if raw {
        (call.count(4)?, call.count(3)?, call.int(5)?, call.int(6)?)
    } else {
        let Some(nb) = call.form.clause("nburst") else {
            return fault("'pto.mte_l1_bt' needs nburst(...)");
        };
        let (n, sg, dg) = call.triple(nb)?;
        (call.count(2)?, n, sg, dg)
    };
    let (sdt, ddt) = (src.elem, dst.elem);
    let can_widen = matches!(sdt, DType::F16 | DType::BF16) && ddt == DType::F32;
    let widen = if raw {
        match call.int(2)? {
            0 => false,
            1 if can_widen => true,
            1 => {
                return fault(format!(
                    "'{name}': conv_control 1 widens f16/bf16 to f32, not {sdt:?} to {ddt:?}"
                ))
            }
            c => return fault(format!("'{name}': conv_control {c} is not 0 or 1")),
        }
    } else {
        can_widen
    };
    if !widen && sdt.bytes() != ddt.bytes() {
        return fault(format!("'{name}' does not convert {sdt:?} to {ddt:?}"));
    }
    let unit = 64u64;
    let vals = len * unit / ddt.bytes() as u64;
    if n.saturating_mul(vals) > MAX_WORK {
        return fault(format!("'{name}' moves too many elements"));
    }
    let (ses, des) = (sdt.bytes() as u64, ddt.bytes() as u64);
    // saturated offsets land outside every buffer and fault there
    let sunit = (unit * ses / des) as i64;
    let pitch = |gap: i64, u: i64| (len as i64).saturating_add(gap).saturating_mul(u);
    let (sp, dp) = (pitch(sg, sunit), pitch(dg, unit as i64));
    for k in 0..n as i64 {
        let sb = addr(src.addr, k.saturating_mul(sp))?;
        let db = addr(dst.addr, k.saturating_mul(dp))?;
        meter::charge(vals + 1)?;
        for i in 0..vals {
            let v = m.get(Space::L1, sb.saturating_add(i * ses), sdt)?;
            m.put(Space::Bias, db.saturating_add(i * des), ddt, v)?;
        }
    }
    Ok(())
}

/// `mte_l1_fb`: a byte copy in 64-byte units. `copy_cbuf_to_fbuf (src, dst,
/// n_burst, len_burst, src_gap, dst_gap)` is the raw op PTOAS expands it
/// into, with the same values.
fn l1_fb(call: &CubeCall, m: &mut Mem<'_>) -> Result<(), Fault> {
    let src = call.ptr(0, Space::L1)?;
    let dst = call.ptr(1, Space::Fb)?;
    let (len, n, sg, dg) = if call.op == Opcode::CopyCbufToFbuf {
        (call.count(3)?, call.count(2)?, call.int(4)?, call.int(5)?)
    } else {
        let Some(nb) = call.form.clause("nburst") else {
            return fault("'pto.mte_l1_fb' needs nburst(...)");
        };
        let (n, sg, dg) = call.triple(nb)?;
        (call.count(2)?, n, sg, dg)
    };
    let unit = 64u64;
    if n.saturating_mul(len.saturating_mul(unit)) > MAX_WORK {
        return fault(format!("'{}' moves too many bytes", call.op.name()));
    }
    let mut b = vec![0u8; (len * unit) as usize];
    for k in 0..n as i64 {
        meter::charge(b.len() as u64 + 16)?;
        // saturated offsets land outside every buffer and fault there
        let so = k.saturating_mul((len as i64).saturating_add(sg).saturating_mul(unit as i64));
        let dof = k.saturating_mul((len as i64).saturating_add(dg).saturating_mul(unit as i64));
        m.read(Space::L1, addr(src.addr, so)?, &mut b)?;
        m.write(Space::Fb, addr(dst.addr, dof)?, &b)?;
    }
    Ok(())
}

/// `mte_l1_l0a_mx` / `mte_l1_l0b_mx` (shape form): the L1 scale fragments
/// hold E8M0 bytes in rows of the data tile's M (left) or N (right), two K
/// groups per row in each 32-byte fragment column (`[row][group]` for K <= 64).
fn mx_load(call: &CubeCall, m: &mut Mem<'_>, side: usize) -> Result<(), Fault> {
    let src = call.ptr(0, Space::L1)?;
    let _dst = call.ptr(1, if side == 0 { Space::L0a } else { Space::L0b })?;
    if call.form.lead.len() != 6 {
        return fault(format!(
            "'{}' full MX form is not implemented",
            call.op.name()
        ));
    }
    let (a, b, r0, c0s) = (
        call.count(2)?,
        call.count(3)?,
        call.count(4)?,
        call.count(5)?,
    );
    if r0 != 0 || c0s != 0 {
        return fault(format!(
            "'{}' with a nonzero start is not implemented",
            call.op.name()
        ));
    }
    let (rows, k) = if side == 0 { (a, b) } else { (b, a) };
    let groups = k.div_ceil(32);
    if rows.saturating_mul(groups) > MAX_WORK {
        return fault(format!("'{}' is too large", call.op.name()));
    }
    let rpad = roundup(rows, 16);
    let mut v = vec![0u8; (rows * groups) as usize];
    for r in 0..rows {
        meter::charge(groups + 1)?;
        for g in 0..groups {
            let off = ((g / 2) * rpad + r) * 2 + g % 2;
            let mut b = [0u8; 1];
            m.read(Space::L1, src.addr + off, &mut b)?;
            v[(r * groups + g) as usize] = b[0];
        }
    }
    m.mx.side[side] = (rows, groups, v);
    Ok(())
}

fn e8m0(b: u8) -> f32 {
    if b == 0xff {
        f32::NAN
    } else {
        (2.0f64).powi(b as i32 - 127) as f32
    }
}

/// Rounds an f32 to TF32 (10 mantissa bits), ties to even or away from zero.
fn tf32(x: f32, away: bool) -> f32 {
    if !x.is_finite() {
        return x;
    }
    let b = x.to_bits();
    let drop = 13;
    let half = 1u32 << (drop - 1);
    let low = b & ((1 << drop) - 1);
    let mut hi = b >> drop;
    if low > half || (low == half && (away || hi & 1 == 1)) {
        hi += 1;
    }
    f32::from_bits(hi << drop)
}

/// The fields of a raw `mad*_raw` config word, as PTOAS packs it
/// (VPTOExpandWrapperOps `packMadXt`): m in bits [0, 12), k in [12, 24), n in
/// [24, 36), the unit-flag mode in [55, 57) (synchronization only),
/// disable_gemv in bit 61, "initialise from the bias table" in bit 62,
/// "initialise with zero" in bit 63 (neither: accumulate into L0C).
struct MadXt {
    m: u64,
    n: u64,
    k: u64,
    disable_gemv: bool,
    from_bias: bool,
    zero: bool,
}

fn mad_xt(name: &str, xt: u64) -> Result<MadXt, Fault> {
    let unknown = xt & (((1u64 << 19) - 1) << 36 | 0xF << 57);
    if unknown != 0 {
        return fault(format!(
            "'{name}': config word {xt:#x} sets bits outside m/k/n, unit flag, disable_gemv and the init mode ({unknown:#x})"
        ));
    }
    let x = MadXt {
        m: xt & 0xFFF,
        k: (xt >> 12) & 0xFFF,
        n: (xt >> 24) & 0xFFF,
        disable_gemv: xt >> 61 & 1 == 1,
        from_bias: xt >> 62 & 1 == 1,
        zero: xt >> 63 & 1 == 1,
    };
    if x.from_bias && x.zero {
        return fault(format!(
            "'{name}': config word {xt:#x} asks for both bias and zero initialisation"
        ));
    }
    Ok(x)
}

/// `mad`, `mad_acc`, `mad_bias` (and the MX forms); the raw forms take m, n,
/// k, GEMV and the accumulator initialisation from a packed config word and
/// the tf32 / saturation modes from CTRL (bits 46/47 tf32 and round-away, bit
/// 48 set = no saturation, bit 45 HiF8 operands: PTOAS `buildMadSemanticCtrl`).
/// Where a `mad*` op writes its result and its shape: the L0C pointer, M and
/// N (for `--watch`, which shows the result as its `M x N` matrix: element
/// `(i, j)` at [`l0c_offset`]). None for other ops or operands that do not
/// decode (the op itself faults on those).
fn mad_result(call: &CubeCall) -> Option<(Ptr, u64, u64)> {
    let f = MadForm::of(call.op)?;
    let c = call.ptr(2, Space::L0c).ok()?;
    let (mm, nn) = if f.raw {
        let x = mad_xt(call.op.name(), call.int(f.k0()).ok()? as u64).ok()?;
        (x.m, x.n)
    } else {
        (call.count(f.k0()).ok()?, call.count(f.k0() + 1).ok()?)
    };
    (mm > 0 && nn > 0).then_some((c, mm, nn))
}

/// A matrix a cube op wrote, as `--watch` shows it: `rows x cols` elements
/// of `dst.elem` at [`Matrix::offset`] bytes from `dst.addr` in `dst.space`.
pub(crate) struct Matrix {
    /// What the matrix is ("result", "left operand (M x K)", ...).
    pub what: &'static str,
    pub dst: Ptr,
    pub rows: u64,
    pub cols: u64,
    /// Rows are `groups` matrices of `rows / groups` rows stacked.
    pub groups: u64,
    at: MatrixAt,
}

/// How a [`Matrix`] maps `(row, column)` to its storage.
enum MatrixAt {
    /// A `mad*` result in L0C (M rows).
    L0c,
    /// An L0A (`a_side`) or L0B operand moved by `mte_l1_l0a`/`l0b`.
    L0 { a_side: bool, c0: u64 },
    /// An `mte_gm_l1_frac` destination.
    Frac(Frac, u64),
    /// A FIXPIPE write-back's destination (its first `loop3` pass).
    Fix(FixDst),
}

impl Matrix {
    /// The byte offset of `(r, c)` from `dst.addr`; None when it overflows.
    pub(crate) fn offset(&self, r: u64, c: u64) -> Option<u64> {
        let es = self.dst.elem.bytes() as u64;
        match &self.at {
            MatrixAt::L0c => l0c_offset(r, c, self.rows).checked_mul(es),
            MatrixAt::L0 { a_side, c0 } => {
                l0_offset(*a_side, (r, c), (self.rows, self.cols), *c0).checked_mul(es)
            }
            MatrixAt::Frac(f, c0) => {
                let nv = f.nv.max(1);
                let off = f.dst_offset(
                    (r / nv) as i64,
                    (r % nv) as i64,
                    c as i64,
                    *c0 as i64,
                    es as i64,
                )?;
                u64::try_from(off).ok()
            }
            MatrixAt::Fix(f) => f.offset(r, c).1.checked_mul(es),
        }
    }
}

/// The matrix a cube op writes, in its logical shape: a `mad*` result (M x
/// N), an L0A/L0B operand (the shape form of `mte_l1_l0a`/`l0b`: M x K or
/// K x N), an `mte_gm_l1_frac` destination (its groups of `n x d` stacked).
/// None for other ops, and for operands that do not decode (the op itself
/// faults on those).
pub(crate) fn written_matrix(call: &CubeCall) -> Option<Matrix> {
    use Opcode as O;
    let (what, dst, rows, cols, groups, at) = match call.op {
        O::MteGmL1Frac | O::CopyGmToCbufMultiNd2nz | O::CopyGmToCbufMultiDn2nz => {
            let dst = call.ptr(1, Space::L1).ok()?;
            let f = Frac::of(call).ok()?;
            let c0 = c0(dst.elem).ok()?;
            (
                "matrix",
                dst,
                f.nv.checked_mul(f.groups)?,
                f.dv,
                f.groups,
                MatrixAt::Frac(f, c0),
            )
        }
        O::MteL1L0a | O::LoadCbufToCa | O::MteL1L0b | O::LoadCbufToCb
            if call.form.lead.len() < 8 =>
        {
            let a_side = matches!(call.op, O::MteL1L0a | O::LoadCbufToCa);
            let src = call.ptr(0, Space::L1).ok()?;
            let mut dst = call
                .ptr(1, if a_side { Space::L0a } else { Space::L0b })
                .ok()?;
            // the op moves the source's elements
            dst.elem = src.elem;
            let c0 = c0(src.elem).ok()?;
            let (rows, cols) = (call.count(2).ok()?, call.count(3).ok()?);
            let what = if a_side {
                "left operand (M x K)"
            } else {
                "right operand (K x N)"
            };
            (what, dst, rows, cols, 1, MatrixAt::L0 { a_side, c0 })
        }
        // FIXPIPE to GM or L1 (a UB destination may be the other
        // subblock's, which this core's buffers do not show)
        O::MteL0cGm | O::MteL0cL1 | O::CopyMatrixCcToGm | O::CopyMatrixCcToCbuf => {
            let parts = if matches!(call.op, O::MteL0cGm | O::MteL0cL1) {
                FixParts::of(call).ok()?
            } else {
                FixParts::of_raw(call).ok()?
            };
            let place = parts.place(call.op.name()).ok()?;
            let what = match parts.layout {
                FixLayout::Nd => "result as written (ND)",
                FixLayout::Dn => "result as written (DN)",
                FixLayout::Nz => "result as written (NZ)",
            };
            (what, parts.dst, parts.mm, parts.nn, 1, MatrixAt::Fix(place))
        }
        _ => {
            let (c, m, n) = mad_result(call)?;
            ("result", c, m, n, 1, MatrixAt::L0c)
        }
    };
    (rows > 0 && cols > 0).then_some(Matrix {
        what,
        dst,
        rows,
        cols,
        groups,
        at,
    })
}

/// Which `mad*` form an opcode is.
#[derive(Clone, Copy)]
struct MadForm {
    /// Takes a packed config word (`mad*_raw`).
    raw: bool,
    /// MX operands with group scales.
    mx: bool,
    /// Has a bias-table operand (the fourth).
    bias: bool,
}

impl MadForm {
    fn of(op: Opcode) -> Option<MadForm> {
        use Opcode as O;
        let (raw, mx, bias) = match op {
            O::Mad | O::MadAcc => (false, false, false),
            O::MadBias => (false, false, true),
            O::MadMx | O::MadMxAcc => (false, true, false),
            O::MadMxBias => (false, true, true),
            O::MadRaw => (true, false, false),
            O::MadBiasRaw => (true, false, true),
            O::MadMxRaw => (true, true, false),
            O::MadMxBiasRaw => (true, true, true),
            _ => return None,
        };
        Some(MadForm { raw, mx, bias })
    }

    /// Operand index of the shape (m, n, k) or of the config word.
    fn k0(self) -> usize {
        if self.bias {
            4
        } else {
            3
        }
    }
}

/// The element offset of `(i, j)` of an `M x N` result in L0C (16-wide
/// column blocks, `roundup(M, 16)` rows).
pub(crate) fn l0c_offset(i: u64, j: u64, m: u64) -> u64 {
    nz(i, j, roundup(m, 16), 16)
}

/// A `mad`-family op's operands and modes, read and checked from its call
/// (what [`mad_interpret`] and [`mad_native`] run).
#[derive(Clone, Copy, Debug)]
pub struct MadPlan {
    name: &'static str,
    a: crate::value::Ptr,
    b: crate::value::Ptr,
    c: crate::value::Ptr,
    bias: Option<crate::value::Ptr>,
    mm: u64,
    nn: u64,
    kk: u64,
    /// Starts from L0C's contents.
    acc_form: bool,
    /// Starts from the bias table.
    bias_form: bool,
    /// GEMV mode: the left operand is one contiguous row.
    gemv: bool,
    /// Integer operands, i32 accumulator.
    int: bool,
    /// MX operands with staged group scales.
    mx: bool,
    /// tf32 rounding of the operands (`Some(away)`).
    tf: Option<bool>,
    /// Saturation: NaN operands read as 0, infinities as the finite
    /// extrema, the running sum clamped to the finite range.
    sat: bool,
}

/// Whether `op` is of the `mad` family.
pub fn is_mad(op: Opcode) -> bool {
    MadForm::of(op).is_some()
}

/// Reads and checks a `mad`-family op's operands and modes.
pub fn mad_plan(call: &CubeCall) -> Result<MadPlan, Fault> {
    use Opcode as O;
    let name = call.op.name();
    let a = call.ptr(0, Space::L0a)?;
    let b = call.ptr(1, Space::L0b)?;
    let c = call.ptr(2, Space::L0c)?;
    let Some(form) = MadForm::of(call.op) else {
        return fault(format!("'{name}' is not a mad op"));
    };
    let MadForm { raw, mx, .. } = form;
    let bias_operand = form.bias;
    let bias = if bias_operand {
        Some(call.ptr(3, Space::Bias)?)
    } else {
        None
    };
    let k0 = form.k0();
    let (mm, nn, kk, acc_form, bias_form, disable_gemv) = if raw {
        let x = mad_xt(name, call.int(k0)? as u64)?;
        if x.from_bias != bias_operand {
            return fault(format!(
                "'{name}': the config word's bias initialisation (bit 62) must be set exactly when the op has a bias operand"
            ));
        }
        (
            x.m,
            x.n,
            x.k,
            !x.zero && !x.from_bias,
            x.from_bias,
            x.disable_gemv,
        )
    } else {
        let (mm, nn, kk) = (call.count(k0)?, call.count(k0 + 1)?, call.count(k0 + 2)?);
        (
            mm,
            nn,
            kk,
            matches!(call.op, O::MadAcc | O::MadMxAcc),
            bias_operand,
            call.form.flag("disable_gemv"),
        )
    };
    if mm == 0 || nn == 0 || kk == 0 {
        return fault(format!("'{name}': m, n and k must be positive"));
    }
    if mm.saturating_mul(nn).saturating_mul(kk) > MAX_WORK {
        return fault(format!("'{name}' is too large"));
    }
    let gemv = mm == 1 && !disable_gemv;
    let (adt, bdt, cdt) = (a.elem, b.elem, c.elem);
    let int = !adt.is_float() && !mx;
    if (!mx && int == bdt.is_float()) || (int && cdt != DType::I32) || (!int && cdt != DType::F32) {
        return fault(format!(
            "'{}' does not take {adt:?} x {bdt:?} -> {cdt:?}",
            call.op.name()
        ));
    }
    let ctrl_bit = |b: u32| (call.ctrl >> b) & 1 == 1;
    if raw && ctrl_bit(45) != (adt == DType::HiF8) {
        return fault(format!(
            "'{name}': CTRL bit 45 (HiF8 operands) does not match the {adt:?} operands"
        ));
    }
    let tf = if raw {
        ctrl_bit(46).then(|| {
            if ctrl_bit(47) {
                "round_away".to_string()
            } else {
                "round".to_string()
            }
        })
    } else {
        call.form
            .clause("tf32_mode")
            .map(|c| c.syms().first().map(|s| s.to_string()).unwrap_or_default())
    };
    if tf.is_some() && (adt != DType::F32 || bdt != DType::F32) {
        return fault(format!(
            "'{}': tf32_mode needs f32 operands",
            call.op.name()
        ));
    }
    let away = tf.as_deref() == Some("round_away");
    let tf = tf.map(|_| away);
    // sat: nan inputs read as 0, infinities as the finite extrema, and the
    // running sum saturates to the finite f32 range
    let sat = if raw {
        !ctrl_bit(48)
    } else {
        call.form.flag("sat")
    };
    Ok(MadPlan {
        name,
        a,
        b,
        c,
        bias,
        mm,
        nn,
        kk,
        acc_form,
        bias_form,
        gemv,
        int,
        mx,
        tf,
        sat,
    })
}

impl MadPlan {
    /// The plan of `pto.mad a, b, c, m, n, k disable_gemv` (C = A B, no
    /// flags): for benchmarks and library callers that drive the op
    /// directly.
    pub fn plain(
        a: crate::value::Ptr,
        b: crate::value::Ptr,
        c: crate::value::Ptr,
        (m, n, k): (u64, u64, u64),
    ) -> MadPlan {
        MadPlan {
            name: "mad",
            a,
            b,
            c,
            bias: None,
            mm: m.max(1),
            nn: n.max(1),
            kk: k.max(1),
            acc_form: false,
            bias_form: false,
            gemv: false,
            int: !a.elem.is_float(),
            mx: false,
            tf: None,
            sat: false,
        }
    }

    /// The left and right operand element types.
    pub fn operand_types(&self) -> (DType, DType) {
        (self.a.elem, self.b.elem)
    }

    /// The L0C bytes the result spans, `(address, length)`.
    pub fn result_span(&self) -> (u64, u64) {
        let last = nz(self.mm - 1, self.nn - 1, roundup(self.mm, 16), 16);
        (self.c.addr, (last + 1) * 4)
    }
}

/// Runs a `mad`-family op in the interpreter.
fn mad(call: &CubeCall, m: &mut Mem<'_>) -> Result<(), Fault> {
    mad_interpret(&mad_plan(call)?, m)
}

/// An operand element of a float `mad` as the multiply reads it: saturated
/// (NaN 0, infinities the finite extrema) and rounded to tf32 when asked.
#[inline]
fn mad_operand(mut f: f32, sat: bool, tf: Option<bool>) -> f32 {
    if sat {
        f = if f.is_nan() {
            0.0
        } else {
            f.clamp(-f32::MAX, f32::MAX)
        };
    }
    match tf {
        Some(away) => tf32(f, away),
        None => f,
    }
}

/// Whether [`mad_native`] takes the op: float operands (f32, f16, bf16)
/// into an f32 accumulator, or 8-, 16- or 32-bit integer operands into an
/// i32 one, without MX scales, any bias of the accumulator's type.
pub fn mad_native_ok(p: &MadPlan) -> bool {
    let f = |d: DType| matches!(d, DType::F32 | DType::F16 | DType::BF16);
    let i = |d: DType| {
        matches!(
            d,
            DType::I8 | DType::U8 | DType::I16 | DType::U16 | DType::I32 | DType::U32
        )
    };
    let acc = if p.int { DType::I32 } else { DType::F32 };
    let operands = if p.int {
        i(p.a.elem) && i(p.b.elem)
    } else {
        f(p.a.elem) && f(p.b.elem)
    };
    operands && !p.mx && p.c.elem == acc && p.bias.is_none_or(|b| b.elem == acc)
}

/// An accumulator lane of the native `mad`: f32 for float operands, i32
/// (wrapping) for integer ones.
trait MadLane: Copy + Default {
    /// Widens a run of stored elements of type `dt` (operands, or the
    /// accumulator and bias in the lane's own type), as the interpreter
    /// reads them.
    fn decode(src: &[u8], dt: DType, out: &mut [Self]);
    /// Stores accumulator values as little-endian bytes.
    fn encode(src: &[Self], out: &mut [u8]);
    /// Transposes the row-major `rows x cols` matrix `src` into `dst`
    /// (`cols x rows`), in the form the lane's `matmul` reads `b` in, which
    /// it returns; `dst` is sized for it.
    fn transpose(src: &[Self], dims: (usize, usize), dst: &mut Vec<Self>) -> MatForm;
    /// `c += a b` with the interpreter's arithmetic and order, `b` in the
    /// form `transpose` gave.
    fn matmul(
        mkn: (usize, usize, usize),
        a: &[Self],
        b: (&[Self], MatForm),
        c: &mut [Self],
    ) -> Result<(), Fault>;
    /// Whether the lane has `matmul_le`.
    const IN_PLACE: bool;
    /// `matmul` on an accumulator stored as little-endian bytes in `cf`,
    /// where it lies, from zeros when `zero` (only when `IN_PLACE`).
    fn matmul_le(
        mkn: (usize, usize, usize),
        a: &[Self],
        b: (&[Self], MatForm),
        c: (&mut [u8], MatForm),
        zero: bool,
    ) -> Result<(), Fault>;
    /// The operands as the multiply reads them (tf32, saturation).
    fn operands(v: &mut [Self], sat: bool, tf: Option<bool>);
    /// Whether a saturating multiply's results need the interpreter.
    fn overflowed(v: &[Self]) -> bool;
}

impl MadLane for f32 {
    fn decode(src: &[u8], dt: DType, out: &mut [f32]) {
        decode_run(src, dt, out)
    }
    fn encode(src: &[f32], out: &mut [u8]) {
        pto_jit::f32_to_le(src, out);
    }
    fn transpose(src: &[f32], (rows, cols): (usize, usize), dst: &mut Vec<f32>) -> MatForm {
        // 16-column panels: the columns a register block reads contiguous
        let form = MatForm::panels(16, 16 * cols, 16);
        dst.clear();
        dst.resize(form.span(cols, rows).unwrap_or(0), 0.0);
        transpose(src, (rows, cols), (dst, form));
        form
    }
    fn matmul(
        (m, k, n): (usize, usize, usize),
        a: &[f32],
        b: (&[f32], MatForm),
        c: &mut [f32],
    ) -> Result<(), Fault> {
        pto_jit::matmul_f32_in(m, k, n, pto_jit::Lhs::Rows(a), b, (c, MatForm::rows(n)))
            .map_err(|e| Fault::Msg(e.to_string()))
    }
    const IN_PLACE: bool = true;
    fn matmul_le(
        (m, k, n): (usize, usize, usize),
        a: &[f32],
        b: (&[f32], MatForm),
        c: (&mut [u8], MatForm),
        zero: bool,
    ) -> Result<(), Fault> {
        pto_jit::matmul_f32_le(m, k, n, pto_jit::Lhs::Rows(a), b, c, zero)
            .map_err(|e| Fault::Msg(e.to_string()))
    }
    fn operands(v: &mut [f32], sat: bool, tf: Option<bool>) {
        if sat || tf.is_some() {
            for x in v {
                *x = mad_operand(*x, sat, tf);
            }
        }
    }
    fn overflowed(v: &[f32]) -> bool {
        v.iter().any(|x| !x.is_finite())
    }
}

impl MadLane for i32 {
    fn decode(src: &[u8], dt: DType, out: &mut [i32]) {
        crate::num::widen_i32(src, dt, out)
    }
    fn encode(src: &[i32], out: &mut [u8]) {
        for (x, o) in src.iter().zip(out.chunks_exact_mut(4)) {
            o.copy_from_slice(&x.to_le_bytes());
        }
    }
    fn transpose(src: &[i32], (rows, cols): (usize, usize), dst: &mut Vec<i32>) -> MatForm {
        dst.clear();
        dst.resize(rows * cols, 0);
        for r0 in (0..rows).step_by(8) {
            for c in 0..cols {
                for r in r0..rows.min(r0 + 8) {
                    dst[c * rows + r] = src[r * cols + c];
                }
            }
        }
        MatForm::rows(rows)
    }
    fn matmul(
        (m, k, n): (usize, usize, usize),
        a: &[i32],
        (b, _): (&[i32], MatForm),
        c: &mut [i32],
    ) -> Result<(), Fault> {
        // `b` is row-major: `transpose` above
        pto_jit::matmul_i32_wrapping(m, k, n, a, b, c).map_err(|e| Fault::Msg(e.to_string()))
    }
    const IN_PLACE: bool = false;
    fn matmul_le(
        _: (usize, usize, usize),
        _: &[i32],
        _: (&[i32], MatForm),
        _: (&mut [u8], MatForm),
        _: bool,
    ) -> Result<(), Fault> {
        Err(Fault::Msg(
            "i32 accumulators are not updated in place".into(),
        ))
    }
    fn operands(_: &mut [i32], _: bool, _: Option<bool>) {}
    fn overflowed(_: &[i32]) -> bool {
        false
    }
}

/// Records the accesses to the `rows x cols` elements of an NZ matrix (`c0`
/// columns per block, `rpad` rows per block, `es`-byte elements) at `base`:
/// one range per full column block, one per row of a partial last block.
/// The same bytes as the interpreter's element-by-element accesses.
#[allow(clippy::too_many_arguments)]
fn record_nz(
    acc: &mut Accesses,
    s: Space,
    base: u64,
    (rows, cols): (u64, u64),
    rpad: u64,
    c0: u64,
    es: u64,
    write: bool,
) {
    for kb in 0..cols.div_ceil(c0) {
        let w = c0.min(cols - kb * c0);
        let at = base + kb * rpad * c0 * es;
        if w == c0 {
            acc.add(s, at, rows * c0 * es, write);
        } else {
            for r in 0..rows {
                acc.add(s, at + r * c0 * es, w * es, write);
            }
        }
    }
}

/// Widens a run of stored f32/f16/bf16 elements into `out` (exactly).
fn decode_run(src: &[u8], dt: DType, out: &mut [f32]) {
    match dt {
        DType::F32 => {
            pto_jit::f32_from_le(src, out);
        }
        DType::F16 => {
            let done = pto_jit::f16_to_f32(src, out);
            for (x, c) in out[done..].iter_mut().zip(src[2 * done..].chunks_exact(2)) {
                *x = half::f16::from_bits(u16::from_le_bytes([c[0], c[1]])).to_f32();
            }
        }
        _ => {
            for (x, c) in out.iter_mut().zip(src.chunks_exact(2)) {
                *x = f32::from_bits(u32::from(u16::from_le_bytes([c[0], c[1]])) << 16);
            }
        }
    }
}

/// Unpacks the `rows x cols` elements of an NZ matrix in `src` (`c0`
/// columns per block, `rpad` rows per block) into the row-major `dst`
/// (`rows x cols`), a contiguous run per row of each column block.
fn unpack_nz<T: MadLane>(
    src: &[u8],
    dt: DType,
    (rows, cols): (usize, usize),
    rpad: usize,
    c0: usize,
    dst: &mut [T],
) {
    let es = dt.bytes();
    for kb in 0..cols.div_ceil(c0) {
        let w = c0.min(cols - kb * c0);
        for r in 0..rows {
            let at = (kb * rpad + r) * c0 * es;
            let o = r * cols + kb * c0;
            T::decode(&src[at..at + w * es], dt, &mut dst[o..o + w]);
        }
    }
}

/// `dst` (`cols x rows`, in `form`) = the transpose of the row-major `src`
/// (`rows x cols`), 8 x 8 blocks at a time (8 columns of `dst` from a
/// multiple of 8 lie in one panel: their widths are multiples of 16).
fn transpose(src: &[f32], (rows, cols): (usize, usize), (dst, form): (&mut [f32], MatForm)) {
    let (r8, c8) = (rows / 8 * 8, cols / 8 * 8);
    for r0 in (0..r8).step_by(8) {
        for c0 in (0..c8).step_by(8) {
            // block rows r0.. of src become block columns r0.. of dst
            let blk: [[f32; 8]; 8] = std::array::from_fn(|t| {
                let at = (r0 + t) * cols + c0;
                std::array::from_fn(|u| src[at + u])
            });
            let o = form.at(c0, r0);
            if !pto_jit::transpose8_f32(&blk, &mut dst[o..], form.ld()) {
                for (t, row) in blk.iter().enumerate() {
                    for (u, x) in row.iter().enumerate() {
                        dst[form.at(c0 + u, r0 + t)] = *x;
                    }
                }
            }
        }
    }
    for r in 0..rows {
        let from = if r < r8 { c8 } else { 0 };
        for c in from..cols {
            dst[form.at(c, r)] = src[r * cols + c];
        }
    }
}

/// A `mad` through a native matrix kernel: the operands unpacked from their
/// NZ layouts (float operands: A to row-major f32, B into 16-column panels,
/// and `pto_jit::matmul_f32_le` on the NZ accumulator where it lies, the
/// same FMAs in k order from the same start as [`mad_interpret`], so the
/// same bits, except that a NaN result may carry another payload: operand
/// order decides it; a saturating multiply works on a copy of C) or to
/// row-major i32 (integer operands: `pto_jit::matmul_i32_wrapping`, exact
/// in any order). Returns false, having written nothing, when the interpreter must
/// run it: an operand outside its buffer (the interpreter reports which
/// element), or a saturating multiply whose result is not finite (the
/// interpreter clamps each partial sum; when none overflows, the clamps
/// change nothing). Only for ops [`mad_native_ok`] takes.
pub fn mad_native(p: &MadPlan, m: &mut Mem<'_>) -> Result<bool, Fault> {
    thread_local! {
        // unpacked A, B and C, reused across calls
        static F: std::cell::RefCell<[Vec<f32>; 3]> = Default::default();
        static I: std::cell::RefCell<[Vec<i32>; 3]> = Default::default();
        // A's row and column offsets for `mad_direct`
        static IDX: std::cell::RefCell<[Vec<usize>; 2]> = Default::default();
    }
    if p.int {
        I.with(|s| {
            let mut s = s.borrow_mut();
            let [a, b, c] = &mut *s;
            mad_native_with(p, m, a, b, c)
        })
    } else {
        F.with(|s| {
            let mut s = s.borrow_mut();
            let [a, b, c] = &mut *s;
            if let Some(done) = IDX.with(|t| mad_direct(p, m, (a, b), &mut t.borrow_mut()))? {
                return Ok(done);
            }
            mad_native_with(p, m, a, b, c)
        })
    }
}

/// Where a `mad`'s operands lie in L0A, L0B and L0C.
struct MadExtent {
    /// The last element of A, B and C it reads, in elements of its type.
    last: (u64, u64, u64),
    /// A's and B's C0.
    c0: (u64, u64),
}

fn mad_extent(p: &MadPlan) -> Result<MadExtent, Fault> {
    let (ca, cb) = (c0(p.a.elem)?, c0(p.b.elem)?);
    let (mm, nn, kk) = (p.mm, p.nn, p.kk);
    let (mpad, npad) = (roundup(mm, 16), roundup(nn, 16));
    let a_last = if p.gemv {
        kk - 1
    } else {
        nz(mm - 1, kk - 1, mpad, ca)
    };
    let b_last = nz(nn - 1, kk - 1, npad, cb);
    let c_last = nz(mm - 1, nn - 1, mpad, 16);
    Ok(MadExtent {
        last: (a_last, b_last, c_last),
        c0: (ca, cb),
    })
}

/// Charges the work the interpreter charges for a `mad`.
fn mad_charge(p: &MadPlan) -> Result<(), Fault> {
    let (mm, nn, kk) = (p.mm, p.nn, p.kk);
    meter::charge(
        mm.saturating_mul(kk + 1)
            .saturating_add(kk.saturating_mul(nn + 1))
            .saturating_add(mm.saturating_mul(nn).saturating_mul(kk + 1)),
    )
}

/// The bias row (the accumulator's bytes as they are) into every one of
/// the `m` rows of C, stored in `cf`.
fn bias_rows(out: &mut [u8], row: &[u8], m: usize, cf: MatForm) {
    for i in 0..m {
        for (j, x) in row.chunks_exact(4).enumerate() {
            let at = cf.at(i, j) * 4;
            out[at..at + 4].copy_from_slice(x);
        }
    }
}

/// A plain `mad` (no GEMV, saturation or tf32) of f32 operands, or of f16
/// ones on a host with F16C, into f32, with its operands used where they
/// lie: an f32 A read through its NZ offset tables (an f16 A widened run by
/// run into `av`), B's 8 x 8 blocks transposed (and widened) straight out
/// of its N x K NZ into 16-column panels in `bv`, C updated in L0C. What
/// [`mad_native_with`] does without unpacking A and B into zeroed row-major
/// copies and transposing B's copy again (half of a 128^3 f32 mad). `None`
/// when it does not apply (other types or modes, `n` or `k` not a multiple
/// of 8, an operand outside its buffer).
fn mad_direct(
    p: &MadPlan,
    m: &mut Mem<'_>,
    (av, bv): (&mut Vec<f32>, &mut Vec<f32>),
    [rows, cols]: &mut [Vec<usize>; 2],
) -> Result<Option<bool>, Fault> {
    let ab = [p.a.elem, p.b.elem];
    let bf16 = ab == [DType::BF16; 2];
    // a 2-byte type, widened to f32 on the way (f16 with F16C only)
    let half = (ab == [DType::F16; 2] && pto_jit::has_f16c()) || bf16;
    let es = if half { 2 } else { 4 };
    let (mm, nn, kk) = (p.mm, p.nn, p.kk);
    let dims = mm > 0 && nn > 0 && kk > 0 && nn % 8 == 0 && kk % 8 == 0;
    let types = (half || ab == [DType::F32; 2]) && p.c.elem == DType::F32;
    if !types || !dims || p.gemv || p.sat || p.tf.is_some() || p.mx {
        return Ok(None);
    }
    let MadExtent {
        last: (a_last, b_last, c_last),
        c0: (ca, cb),
    } = mad_extent(p)?;
    let (mpad, npad) = (roundup(mm, 16), roundup(nn, 16));
    let (m_, n_, k_) = (mm as usize, nn as usize, kk as usize);
    let a_span = (Space::L0a, p.a.addr, (a_last + 1) * es as u64);
    let c_span = (Space::L0c, p.c.addr, (c_last + 1) * 4);
    let bias = match p.bias {
        Some(bp) => match m.local.slice(Space::Bias, bp.addr, nn * 4) {
            Ok(s) => Some(s.to_vec()).filter(|_| p.bias_form),
            Err(_) => return Ok(None),
        },
        None => None,
    };
    let (Ok(asrc), Ok(bsrc)) = (
        m.local.slice(a_span.0, a_span.1, a_span.2),
        m.local
            .slice(Space::L0b, p.b.addr, (b_last + 1) * es as u64),
    ) else {
        return Ok(None);
    };
    if m.local.slice(c_span.0, c_span.1, c_span.2).is_err() {
        return Ok(None);
    }
    mad_charge(p)?;
    // B(kk, j) is element (j, kk) of its transpose's NZ: the 8 values of
    // column j from a row kk0 = 8 t lie together, columns C0 apart
    let bf = MatForm::panels(16, 16 * k_, 16);
    let len = bf.span(k_, n_).unwrap_or(0);
    bv.resize(len, 0.0);
    bv.truncate(len);
    let (cau, cbu, mpu, npu) = (ca as usize, cb as usize, mpad as usize, npad as usize);
    for kk0 in (0..k_).step_by(8) {
        for j0 in (0..n_).step_by(8) {
            let o = es * ((kk0 / cbu) * npu * cbu + j0 * cbu + kk0 % cbu);
            let out = &mut bv[bf.at(kk0, j0)..];
            let ok = bsrc.get(o..).is_some_and(|src| match (half, bf16) {
                (true, true) => bf16_block(src, 2 * cbu, out, bf.ld()),
                (true, false) => pto_jit::transpose8_f16_strided(src, 2 * cbu, out, bf.ld()),
                _ => pto_jit::transpose8_strided(src, 4 * cbu, out, bf.ld()),
            });
            if !ok {
                return fault("mad: a block of B outside L0B");
            }
        }
    }
    // A(i, kk) at (kk / C0) * mpad * C0 + i * C0 + kk % C0
    rows.clear();
    rows.extend((0..m_).map(|i| i * cau));
    cols.clear();
    cols.extend((0..k_).map(|c| (c / cau) * mpu * cau + c % cau));
    if half {
        av.resize(m_ * k_, 0.0);
        av.truncate(m_ * k_);
        for (i, row) in av.chunks_exact_mut(k_).enumerate() {
            for kb in (0..k_).step_by(cau) {
                let w = cau.min(k_ - kb);
                let o = 2 * (rows[i] + cols[kb]);
                let (src, dst) = (&asrc[o..o + 2 * w], &mut row[kb..kb + w]);
                match bf16 {
                    // as the copying path widens (`decode_run`)
                    true => decode_run(src, DType::BF16, dst),
                    false => {
                        pto_jit::f16_to_f32(src, dst);
                    }
                }
            }
        }
    }
    let cf = MatForm::panels(16, 16 * mpu, 16);
    let (abytes, out) = match half {
        true => (&[][..], m.local.slice_mut(c_span.0, c_span.1, c_span.2)?),
        false => m
            .local
            .slice_and_mut(a_span, c_span)
            .ok_or_else(|| Fault::Msg("mad: L0A and L0C are one buffer".into()))??,
    };
    if let Some(row) = &bias {
        bias_rows(out, row, m_, cf);
    }
    let zero = !p.acc_form && bias.is_none();
    let a = match half {
        true => pto_jit::Lhs::Rows(av),
        false => pto_jit::Lhs::At {
            bytes: abytes,
            rows,
            cols,
        },
    };
    pto_jit::matmul_f32_le(m_, k_, n_, a, (bv, bf), (out, cf), zero)
        .map_err(|e| Fault::Msg(e.to_string()))?;
    let esu = es as u64;
    record_mad(p, m.acc, (mpad, npad), (ca, cb), (esu, esu));
    Ok(Some(true))
}

/// One 8 x 8 block of a bf16 B for [`mad_direct`]: the 8 runs of 8 values at
/// `src`, `stride` bytes apart, widened as the copying path does
/// ([`decode_run`]) and written transposed into `out` (row length `ld`).
/// False when a run or the block leaves `src` or `out`.
fn bf16_block(src: &[u8], stride: usize, out: &mut [f32], ld: usize) -> bool {
    let mut blk = [[0f32; 8]; 8];
    for (j, col) in blk.iter_mut().enumerate() {
        let Some(run) = src.get(j * stride..j * stride + 16) else {
            return false;
        };
        decode_run(run, DType::BF16, col);
    }
    pto_jit::transpose8_f32(&blk, out, ld)
}

fn mad_native_with<T: MadLane>(
    p: &MadPlan,
    m: &mut Mem<'_>,
    av: &mut Vec<T>,
    bv: &mut Vec<T>,
    cv: &mut Vec<T>,
) -> Result<bool, Fault> {
    let (adt, bdt) = (p.a.elem, p.b.elem);
    let (mm, nn, kk) = (p.mm, p.nn, p.kk);
    let (mpad, npad) = (roundup(mm, 16), roundup(nn, 16));
    let (aes, bes) = (adt.bytes() as u64, bdt.bytes() as u64);
    // the last element each operand reads
    let MadExtent {
        last: (a_last, b_last, c_last),
        c0: (ca, cb),
    } = mad_extent(p)?;
    let local = &*m.local;
    let (Ok(asrc), Ok(bsrc), Ok(csrc)) = (
        local.slice(Space::L0a, p.a.addr, (a_last + 1) * aes),
        local.slice(Space::L0b, p.b.addr, (b_last + 1) * bes),
        local.slice(Space::L0c, p.c.addr, (c_last + 1) * 4),
    ) else {
        return Ok(false);
    };
    let bias = match p.bias {
        Some(bp) => match local.slice(Space::Bias, bp.addr, nn * 4) {
            Ok(s) => Some(s),
            Err(_) => return Ok(false),
        },
        None => None,
    };
    // the work the interpreter charges
    mad_charge(p)?;
    let (m_, n_, k_) = (mm as usize, nn as usize, kk as usize);
    let cdt = p.c.elem;
    av.clear();
    av.resize(m_ * k_, T::default());
    if p.gemv {
        T::decode(asrc, adt, av);
    } else {
        unpack_nz(asrc, adt, (m_, k_), mpad as usize, ca as usize, av);
    }
    // B is stored as the NZ of its transpose (N x K): unpack that, then
    // transpose it (C keeps the scratch for it until its own turn)
    cv.clear();
    cv.resize(n_ * k_, T::default());
    unpack_nz(bsrc, bdt, (n_, k_), npad as usize, cb as usize, cv);
    let bf = T::transpose(cv, (n_, k_), bv);
    T::operands(av, p.sat, p.tf);
    T::operands(bv, p.sat, p.tf);
    // C (NZ: 16-column panels of 16-element rows) updated where it lies,
    // from zeros, itself or the bias, unless a saturating multiply may need
    // the interpreter after all
    if T::IN_PLACE && !p.sat {
        let cf = MatForm::panels(16, 16 * mpad as usize, 16);
        let bias_row = bias.filter(|_| p.bias_form).map(<[u8]>::to_vec);
        let out = m.local.slice_mut(Space::L0c, p.c.addr, (c_last + 1) * 4)?;
        if let Some(row) = &bias_row {
            bias_rows(out, row, m_, cf);
        }
        let zero = !p.acc_form && bias_row.is_none();
        T::matmul_le((m_, k_, n_), av, (bv, bf), (out, cf), zero)?;
        record_mad(p, m.acc, (mpad, npad), (ca, cb), (aes, bes));
        return Ok(true);
    }
    cv.clear();
    cv.resize(m_ * n_, T::default());
    if p.acc_form {
        unpack_nz(csrc, cdt, (m_, n_), mpad as usize, 16, cv);
    } else if p.bias_form {
        if let Some(bias) = bias {
            T::decode(bias, cdt, &mut cv[..n_]);
            let (row, rest) = cv.split_at_mut(n_);
            for r in rest.chunks_exact_mut(n_) {
                r.copy_from_slice(row);
            }
        }
    }
    T::matmul((m_, k_, n_), av, (bv, bf), cv)?;
    if p.sat && T::overflowed(cv) {
        return Ok(false);
    }
    let out = m.local.slice_mut(Space::L0c, p.c.addr, (c_last + 1) * 4)?;
    for jb in 0..n_.div_ceil(16) {
        let w = 16.min(n_ - jb * 16);
        for i in 0..m_ {
            let at = (jb * mpad as usize + i) * 16 * 4;
            let from = i * n_ + jb * 16;
            T::encode(&cv[from..from + w], &mut out[at..at + w * 4]);
        }
    }
    record_mad(p, m.acc, (mpad, npad), (ca, cb), (aes, bes));
    Ok(true)
}

/// The accesses of a `mad` that ran natively: what the interpreter records.
fn record_mad(
    p: &MadPlan,
    acc: &mut Accesses,
    (mpad, npad): (u64, u64),
    (ca, cb): (u64, u64),
    (aes, bes): (u64, u64),
) {
    let (mm, nn, kk) = (p.mm, p.nn, p.kk);
    if p.gemv {
        acc.add(Space::L0a, p.a.addr, kk * aes, false);
    } else {
        record_nz(acc, Space::L0a, p.a.addr, (mm, kk), mpad, ca, aes, false);
    }
    record_nz(acc, Space::L0b, p.b.addr, (nn, kk), npad, cb, bes, false);
    if let Some(bp) = p.bias {
        acc.add(Space::Bias, bp.addr, nn * 4, false);
    }
    if p.acc_form {
        record_nz(acc, Space::L0c, p.c.addr, (mm, nn), mpad, 16, 4, false);
    }
    record_nz(acc, Space::L0c, p.c.addr, (mm, nn), mpad, 16, 4, true);
}

/// The interpreter's `mad`: element by element, one FMA per k in k order.
pub fn mad_interpret(p: &MadPlan, m: &mut Mem<'_>) -> Result<(), Fault> {
    let MadPlan {
        name,
        a,
        b,
        c,
        bias,
        mm,
        nn,
        kk,
        acc_form,
        bias_form,
        gemv,
        int,
        mx,
        tf,
        sat,
    } = *p;
    let (adt, bdt, cdt) = (a.elem, b.elem, c.elem);
    let (ca, cb) = (c0(adt)?, c0(bdt)?);
    let (mpad, npad) = (roundup(mm, 16), roundup(nn, 16));
    let (aes, bes) = (adt.bytes() as u64, bdt.bytes() as u64);
    let mut av = Vec::with_capacity((mm * kk) as usize);
    for i in 0..mm {
        meter::charge(kk + 1)?;
        for k in 0..kk {
            let off = if gemv { k } else { nz(i, k, mpad, ca) };
            av.push(m.get(Space::L0a, a.addr + off * aes, adt)?);
        }
    }
    let mut bv = Vec::with_capacity((kk * nn) as usize);
    for k in 0..kk {
        meter::charge(nn + 1)?;
        for j in 0..nn {
            bv.push(m.get(Space::L0b, b.addr + nz(j, k, npad, cb) * bes, bdt)?);
        }
    }
    let mut bias_v = Vec::new();
    if let Some(bp) = bias {
        if bp.elem != cdt {
            return fault(format!(
                "'{}': the bias type must match the accumulator",
                name
            ));
        }
        for j in 0..nn {
            bias_v.push(m.get(Space::Bias, bp.addr + j * 4, cdt)?);
        }
    }
    // MX: scale each operand by its staged E8M0 group scale
    let mut a_sc = Vec::new();
    let mut b_sc = Vec::new();
    if mx {
        let (lr, lg, lv) = &m.mx.side[0];
        let (rr, rg, rv) = &m.mx.side[1];
        let groups = kk.div_ceil(32);
        if *lr < mm || *lg < groups || *rr < nn || *rg < groups {
            return fault(format!(
                "'{}': the staged MX scales do not cover {mm} x {nn} x {kk}",
                name
            ));
        }
        for i in 0..mm {
            for k in 0..kk {
                a_sc.push(e8m0(lv[(i * lg + k / 32) as usize]));
            }
        }
        for k in 0..kk {
            for j in 0..nn {
                b_sc.push(e8m0(rv[(j * rg + k / 32) as usize]));
            }
        }
    }
    // 8-bit float operands are read as codes: decode them, then apply MX scales
    for (dt, v, sc) in [(adt, &mut av, &a_sc), (bdt, &mut bv, &b_sc)] {
        if dt.bytes() == 1 && dt.is_float() {
            for (i, x) in v.iter_mut().enumerate() {
                let f = fp8(*x, dt)? as f64;
                *x = Num::F(f * sc.get(i).copied().unwrap_or(1.0) as f64);
            }
        } else if mx {
            return fault(format!("'{}' takes 8-bit float operands", name));
        }
    }
    let conv = |x: Num| -> f32 { mad_operand(x.f() as f32, sat, tf) };
    for i in 0..mm {
        for j in 0..nn {
            meter::charge(kk + 1)?;
            let at = c.addr + nz(i, j, mpad, 16) * 4;
            let v = if int {
                let mut s: i32 = if acc_form {
                    m.get(Space::L0c, at, cdt)?.i() as i32
                } else if bias_form {
                    bias_v[j as usize].i() as i32
                } else {
                    0
                };
                for k in 0..kk {
                    let x = av[(i * kk + k) as usize].i() as i32;
                    let y = bv[(k * nn + j) as usize].i() as i32;
                    s = s.wrapping_add(x.wrapping_mul(y));
                }
                Num::I(s as i64)
            } else {
                let mut s: f32 = if acc_form {
                    m.get(Space::L0c, at, cdt)?.f() as f32
                } else if bias_form {
                    bias_v[j as usize].f() as f32
                } else {
                    0.0
                };
                for k in 0..kk {
                    let x = conv(av[(i * kk + k) as usize]);
                    let y = conv(bv[(k * nn + j) as usize]);
                    s = x.mul_add(y, s);
                    if sat {
                        s = s.clamp(-f32::MAX, f32::MAX);
                    }
                }
                Num::F(s as f64)
            };
            m.put(Space::L0c, at, cdt, v)?;
        }
    }
    Ok(())
}

/// Decodes an 8-bit float operand of an MX multiply.
fn fp8(x: Num, dt: DType) -> Result<f32, Fault> {
    if dt.bytes() != 1 || !crate::exec::minifloat::supported(dt) {
        return fault(format!(
            "MX multiplies take 8-bit float operands, not {dt:?}"
        ));
    }
    // `num::read` decodes fp8/HiF8 elements to their values already
    Ok(match x {
        Num::F(f) => f as f32,
        Num::I(bits) => crate::exec::minifloat::decode(bits as u64 & 0xff, dt) as f32,
    })
}

/// The scale of a 64-bit FIXPIPE quant word: bits [13, 32) hold an f32 with a
/// 10-bit mantissa (sign, exponent, mantissa).
fn quant_word_scale(w: u64) -> f32 {
    let m1 = ((w >> 13) & 0x7FFFF) as u32;
    f32::from_bits(m1 << 13)
}

/// A loop3 repeat that moves its source: the sources disagree on the unit
/// of the source stride (PTOAS's micro-ISA reference semantics step
/// `src_stride3 * 32` bytes; pto-isa's A5 NHWC store computes it as
/// `rows * channels / 16`, i.e. 16 accumulator elements, 64 bytes for
/// f32/i32), so only a stride of 0 (every pass reads the same source) runs.
fn loop3_src_stride_pinned(name: &str, reps: u64, s3: i64) -> Result<(), Fault> {
    if reps > 1 && s3 != 0 {
        return fault(format!(
            "'{name}' with a loop3 source stride ({s3}) is not implemented: \
             the sources disagree on its unit"
        ));
    }
    Ok(())
}

/// FIXPIPE write-back `mte_l0c_{gm,ub,l1}`.
/// The operands of a FIXPIPE write-back that say where its result goes.
struct FixParts {
    dsp: Space,
    dst: Ptr,
    sub_sel: Option<usize>,
    mm: u64,
    nn: u64,
    src_stride: u64,
    dst_stride: u64,
    layout: FixLayout,
    /// `nz2nz(1)`: the f32 channel split.
    split: bool,
}

impl FixParts {
    fn of(call: &CubeCall) -> Result<FixParts, Fault> {
        let name = call.op.name();
        let (dsp, sub_sel) = match call.op {
            Opcode::MteL0cGm => (Space::Gm, None),
            Opcode::MteL0cL1 => (Space::L1, None),
            _ => {
                let Some(c) = call.form.clause("dst_mode") else {
                    return fault("'pto.mte_l0c_ub' needs dst_mode(...)");
                };
                let sel = match (c.vals().first(), c.syms().first()) {
                    (Some(&i), _) => {
                        let s = call.int_at(i)?;
                        if !(0..=1).contains(&s) {
                            return fault(format!("'{name}': UB subblock {s} is not 0 or 1"));
                        }
                        Some(s as usize)
                    }
                    (None, Some(&"split_m")) => Some(2),
                    (None, Some(&"split_n")) => Some(3),
                    _ => return fault(format!("'{name}': unknown dst_mode")),
                };
                (Space::Ub, sel)
            }
        };
        let dst = call.ptr(1, dsp)?;
        let (mm, nn) = (call.count(2)?, call.count(3)?);
        let src_stride = call.count(4)?;
        let dst_stride = call.count(5)?;
        let f = &call.form;
        let layout = if f.flag("nz2nd") {
            FixLayout::Nd
        } else if f.clause("nz2dn").is_some() {
            FixLayout::Dn
        } else {
            FixLayout::Nz
        };
        // nz2nz(%split): NZ with the f32 channel split when split is 1 (PTOAS
        // maps it to xt bit 42); no clause or nz2nz(0): plain NZ
        let split = match f.clause("nz2nz").and_then(|c| c.vals().first().copied()) {
            Some(i) => match call.int_at(i)? {
                0 => false,
                1 => true,
                s => return fault(format!("'{name}': nz2nz split {s} is not 0 or 1")),
            },
            None => false,
        };
        Ok(FixParts {
            dsp,
            dst,
            sub_sel,
            mm,
            nn,
            src_stride,
            dst_stride,
            layout,
            split,
        })
    }

    /// The destination mapping, with the NZ column-block width for the
    /// destination type.
    fn place(&self, name: &str) -> Result<FixDst, Fault> {
        let dc0 = if self.layout == FixLayout::Nz {
            fixpipe_nz_c0(name, self.dst.elem, self.split)?
        } else {
            1
        };
        Ok(FixDst {
            layout: self.layout,
            dst_stride: self.dst_stride,
            dc0,
            sub_sel: self.sub_sel,
            mm: self.mm,
            nn: self.nn,
        })
    }
}

fn fixpipe(call: &CubeCall, m: &mut Mem<'_>) -> Result<(), Fault> {
    let name = call.op.name();
    let src = call.ptr(0, Space::L0c)?;
    let parts = FixParts::of(call)?;
    let FixParts {
        dsp,
        dst,
        sub_sel,
        mm,
        nn,
        src_stride,
        ..
    } = parts;
    let f = &call.form;
    let sdt = src.elem;
    let ddt = dst.elem;
    // pre-quant
    enum Quant {
        None,
        Scalar(f32),
        Vec(Ptr),
    }
    let quant = match f.clause("pre_quant") {
        None => Quant::None,
        Some(c) => {
            let mode = match c.key("mode") {
                Some(Arg::S(s)) => s.clone(),
                _ => return fault(format!("'{name}': pre_quant needs a mode")),
            };
            let p = c.vals().first().copied();
            match mode.as_str() {
                "f32_f16" | "f32_bf16" => Quant::None,
                "qf322f16_pre_scalar" | "qf322bf16_pre_scalar" | "qf322f32_pre_scalar" => {
                    let Some(p) = p else {
                        return fault(format!("'{name}': {mode} needs a payload"));
                    };
                    Quant::Scalar(call.num_at(p)? as f32)
                }
                "qf322f16_pre_vec" | "qf322bf16_pre_vec" | "qf322f32_pre_vec" => {
                    let Some(p) = p else {
                        return fault(format!("'{name}': {mode} needs a payload"));
                    };
                    let pp = call.ptr_at(p)?;
                    if pp.space != Space::Fb {
                        return fault(format!("'{name}': {mode} needs an fb payload pointer"));
                    }
                    Quant::Vec(pp)
                }
                other => {
                    return fault(format!(
                        "'{name}' with pre_quant mode {other} is not implemented"
                    ))
                }
            }
        }
    };
    // pre-relu and clip
    enum Relu {
        None,
        Normal,
        Scalar(f32),
        Vec(Ptr),
    }
    let mut clip = None;
    let relu = match f.clause("pre_relu") {
        None => Relu::None,
        Some(c) => {
            if let Some(Arg::V(i)) = c.key("clip") {
                clip = Some(call.num_at(*i)? as f32);
            }
            let mode = match c.key("mode") {
                Some(Arg::S(s)) => s.clone(),
                _ => return fault(format!("'{name}': pre_relu needs a mode")),
            };
            let p = c.vals().first().copied();
            match (mode.as_str(), p) {
                ("no_relu", _) => Relu::None,
                ("normal_relu", _) => Relu::Normal,
                ("scalar_relu", Some(p)) => Relu::Scalar(call.num_at(p)? as f32),
                ("vector_relu", Some(p)) => {
                    let pp = call.ptr_at(p)?;
                    if pp.space != Space::Fb {
                        return fault(format!("'{name}': vector_relu needs an fb payload pointer"));
                    }
                    Relu::Vec(pp)
                }
                (other, _) => {
                    return fault(format!(
                        "'{name}': pre_relu mode {other} needs a payload or is unknown"
                    ))
                }
            }
        }
    };
    let sat = !f.flag("nosat");
    let (reps, s3, d3) = match f.clause("loop3") {
        Some(c) => call.triple(c)?,
        None => (1, 0, 0),
    };
    loop3_src_stride_pinned(name, reps, s3)?;
    // loop3 repeats the whole write-back: bound all of it, not one pass
    if mm.saturating_mul(nn).saturating_mul(reps) > MAX_WORK {
        return fault(format!(
            "'{name}' writes {reps} x {mm} x {nn} elements, more than ptovm allows in one op"
        ));
    }
    // nz2dn's loop0 source stride: 1 walks the NZ accumulator row by row
    // (pto-isa's TStoreAccNCHW: "loop0SrcStirde is 1 when src layout is
    // NZ"); no source says how another stride walks it
    if let Some(c) = f.clause("nz2dn") {
        if let Some(&i) = c.vals().first() {
            let l0 = call.int_at(i)?;
            if l0 != 1 {
                return fault(format!(
                    "'{name}' with nz2dn loop0 source stride {l0} (not 1) is not implemented"
                ));
            }
        }
    }
    if !matches!(sdt, DType::F32 | DType::I32) {
        return fault(format!(
            "'{name}' reads f32 or i32 accumulators, not {sdt:?}"
        ));
    }
    let des = ddt.bytes() as u64;
    let place = parts.place(name)?;
    let atomic = match f.clause("atomic") {
        Some(c) => match c.key("op") {
            Some(Arg::S(s)) if s == "add" || s == "max" || s == "min" => Some(s.clone()),
            _ => return fault(format!("'{name}': atomic(...) needs op = add|max|min")),
        },
        None => None,
    };
    if atomic.is_some() && dsp != Space::Gm {
        return fault(format!("'{name}': atomic is only valid for GM"));
    }
    // the destination written in contiguous runs (not with atomic updates,
    // which read what earlier elements wrote, nor into split subblocks)
    let batch = atomic.is_none() && !(dsp == Space::Ub && sub_sel.is_some());
    let mut pend = Pending::new(dsp, des as usize);
    let res = (|| -> Result<(), Fault> {
        for r in 0..reps {
            // every pass reads the same source (loop3_src_stride_pinned)
            let sbase = src.addr;
            let dbase = (r as i64)
                .checked_mul(d3)
                .and_then(|e| e.checked_mul(des as i64))
                .and_then(|o| (dst.addr as i64).checked_add(o))
                .filter(|a| *a >= 0);
            let Some(dbase) = dbase else {
                return fault(format!(
                    "'{name}': loop3 pass {r} starts outside the address space (destination stride {d3} elements)"
                ));
            };
            for i in 0..mm {
                meter::charge(nn + 1)?;
                for j in 0..nn {
                    let sa = sbase + ((j / 16) * src_stride + i) * 64 + (j % 16) * 4;
                    let raw = m.get(Space::L0c, sa, sdt)?;
                    let mut x = raw.f() as f32;
                    match &quant {
                        Quant::None => {}
                        Quant::Scalar(s) => x *= *s,
                        Quant::Vec(p) => {
                            let w = m.get(Space::Fb, p.addr + j * 8, DType::U64)?.i() as u64;
                            x *= quant_word_scale(w);
                        }
                    }
                    match &relu {
                        Relu::None => {}
                        Relu::Normal => x = x.max(0.0),
                        Relu::Scalar(al) => {
                            if x < 0.0 {
                                x *= *al
                            }
                        }
                        Relu::Vec(p) => {
                            let al =
                                m.get(Space::Fb, p.addr + j * p.elem.bytes() as u64, p.elem)?;
                            if x < 0.0 {
                                x *= al.f() as f32
                            }
                        }
                    }
                    if let Some(cl) = clip {
                        x = x.min(cl);
                    }
                    let v = if ddt.is_float() {
                        let mut y = x as f64;
                        if sat && ddt != DType::F32 {
                            let lim = match ddt {
                                DType::F16 => 65504.0,
                                DType::BF16 => 3.389_531_389_251_535_5e38,
                                _ => f64::MAX,
                            };
                            if y.is_nan() {
                                y = 0.0;
                            }
                            y = y.clamp(-lim, lim);
                        }
                        Num::F(y)
                    } else if sdt == DType::I32 && matches!(quant, Quant::None) {
                        Num::I(raw.i())
                    } else {
                        return fault(format!(
                            "'{name}' to {ddt:?} without a matching pre_quant mode is not implemented"
                        ));
                    };
                    // destination element offset
                    let (sub, off) = place.offset(i, j);
                    let off = off as i64 * des as i64;
                    let da = addr(dbase as u64, off)?;
                    let mut b = [0u8; 8];
                    let v = match (&atomic, dsp) {
                        (Some(op), Space::Gm) => {
                            let old = m.get(Space::Gm, da, ddt)?;
                            combine(op, old, v, ddt)
                        }
                        _ => v,
                    };
                    num::write(&mut b[..des as usize], ddt, v);
                    match (dsp, sub_sel) {
                        (Space::Ub, Some(_)) => m.write_ub(sub, da, &b[..des as usize])?,
                        _ if batch => pend.push(m, da, &b[..des as usize])?,
                        _ => m.write(dsp, da, &b[..des as usize])?,
                    }
                }
            }
        }
        Ok(())
    })();
    // a run still pending holds writes that came before any fault of the loop
    let flushed = pend.flush(m);
    flushed.and(res)
}

/// The raw FIXPIPE copies `copy_matrix_cc_to_gm` / `copy_matrix_cc_to_cbuf
/// (src, dst, xm, xt)` PTOAS expands `mte_l0c_gm` / `mte_l0c_l1` into
/// (VPTOExpandWrapperOps `packCopyMatrixCcToGmXm` / `packCopyMatrixCcToGmXt`):
/// xm = sid [0, 4) | n [4, 16) | m [16, 32) | dst_stride [32, 64); xt =
/// src_stride [0, 16) | l2 cache [16, 20) | quant mode bit 5 at 29 | clip
/// [30, 32) | unit flag [32, 34) | quant mode bits 0-4 at [34, 39) | relu
/// [39, 42) | channel split 42 | nz2nd 43 | nz2dn 62. `copy_matrix_cc_to_ub
/// (src, dst, config0, config1)` (`mte_l0c_ub`) packs config0 like xm (sid 0)
/// and config1 like xt but with the UB destination mode in [16, 18) (0
/// single: the subblock in bit 18; 1 split_m, 2 split_n: halves to the two
/// subblocks, no conversion). ptovm runs the
/// conversions `no_convert` (0), `f32_f16` (1) and `f32_bf16` (16), the
/// scalar quant modes (15/32/34), the vector quant modes (14/31/33, their
/// FB words at the address `set_fpc` gives) and the
/// relu / clip modes to an ND (nz2nd), DN (nz2dn, with
/// CHANNEL_PARA's loop0 source stride 1) or NZ destination, repeated as
/// LOOP3_PARA says, saturating unless CTRL bit 48 says no-sat (as the
/// wrapper does without `nosat`), the channel split (bit 42: f32 NZ with
/// 8-wide column blocks); other loop0 strides
/// and CTRL's atomic and NaN-preserving modes are refused as not
/// implemented.
impl FixParts {
    /// Where a raw `copy_matrix_cc_*` write-back puts its result, from its
    /// xm/xt words (see [`matrix_cc`]).
    fn of_raw(call: &CubeCall) -> Result<FixParts, Fault> {
        let name = call.op.name();
        let dsp = match call.op {
            Opcode::CopyMatrixCcToGm => Space::Gm,
            Opcode::CopyMatrixCcToUb => Space::Ub,
            _ => Space::L1,
        };
        let dst = call.ptr(1, dsp)?;
        let (xm, xt) = (call.int(2)? as u64, call.int(3)? as u64);
        // UB: the destination subblock(s); the other copies keep bits 16-19
        // for the L2 cache control
        let sub_sel = if dsp == Space::Ub {
            match (xt >> 16) & 3 {
                0 => Some(((xt >> 18) & 1) as usize),
                1 => Some(2),
                2 => Some(3),
                d => return fault(format!("'{name}': UB destination mode {d} does not exist")),
            }
        } else {
            None
        };
        let (nd, dn) = ((xt >> 43) & 1 == 1, (xt >> 62) & 1 == 1);
        let layout = match (nd, dn) {
            (true, true) => return fault(format!("'{name}': nz2nd and nz2dn are both set")),
            (true, false) => FixLayout::Nd,
            (false, true) => FixLayout::Dn,
            (false, false) => FixLayout::Nz,
        };
        Ok(FixParts {
            dsp,
            dst,
            sub_sel,
            mm: (xm >> 16) & 0xFFFF,
            nn: (xm >> 4) & 0xFFF,
            src_stride: xt & 0xFFFF,
            dst_stride: xm >> 32,
            layout,
            split: (xt >> 42) & 1 == 1,
        })
    }
}

fn matrix_cc(call: &CubeCall, m: &mut Mem<'_>) -> Result<(), Fault> {
    let name = call.op.name();
    let src = call.ptr(0, Space::L0c)?;
    let parts = FixParts::of_raw(call)?;
    let FixParts {
        dsp,
        dst,
        sub_sel: dual,
        mm,
        nn,
        src_stride,
        layout,
        split,
        ..
    } = parts;
    let xt = call.int(3)? as u64;
    let quant = ((xt >> 34) & 0x1F) | ((xt >> 29) & 1) << 5;
    let reg = |k: usize, what: &str| -> Result<u64, Fault> {
        call.fix[k].ok_or_else(|| {
            Fault::Msg(format!(
                "'{name}' needs {what}, which was not executed before it"
            ))
        })
    };
    // pre-relu: 0 none, 1 normal, 2 scalar (slope from set_relu_alpha)
    let relu: Option<Option<f32>> = match (xt >> 39) & 7 {
        0 => None,
        1 => Some(None),
        2 => Some(Some(f32::from_bits(reg(1, "set_relu_alpha")? as u32))),
        r => return fault(format!("'{name}' with relu mode {r} is not implemented")),
    };
    let clip_on = (xt >> 30) & 3;
    let unsupported = [
        (((call.ctrl as u64) >> 6) & 0x1F, "CTRL atomic mode"),
        (
            ((call.ctrl as u64) >> 50) & 1,
            "CTRL NaN-preserving saturation",
        ),
    ];
    for (v, what) in unsupported {
        if v != 0 {
            return fault(format!("'{name}' with {what} is not implemented"));
        }
    }
    let (nd, dn) = (layout == FixLayout::Nd, layout == FixLayout::Dn);
    // nz2dn: CHANNEL_PARA[63:48] is the loop0 source stride in C0 units;
    // 1 reads the NZ accumulator row by row (pto-isa TStoreAccNCHW, PTOAS
    // packChannelConfig); other strides are not pinned by any source
    if dn {
        let l0 = reg(4, "set_channel_para")? >> 48;
        if l0 != 1 {
            return fault(format!(
                "'{name}' with nz2dn loop0 source stride {l0} (not 1) is not implemented"
            ));
        }
    }
    // LOOP3_PARA: count [0, 16), source stride [16, 32) in C0 units,
    // destination stride [32, 64) in destination elements (pto-isa
    // tstore_common.hpp, PTOAS packLoop3Config); the whole m x n write-back
    // repeats `count` times. Before any set_loop3_para: one pass.
    let (reps, s3, d3) = match call.fix[3] {
        Some(w) => (w & 0xFFFF, (w >> 16) & 0xFFFF, w >> 32),
        None => (1, 0, 0),
    };
    loop3_src_stride_pinned(name, reps, s3 as i64)?;
    let (sdt, ddt) = (src.elem, dst.elem);
    let ok = match quant {
        0 => sdt == ddt && matches!(sdt, DType::F32 | DType::I32),
        1 | 31 | 32 => sdt == DType::F32 && ddt == DType::F16,
        16 | 33 | 34 => sdt == DType::F32 && ddt == DType::BF16,
        14 | 15 => sdt == DType::F32 && ddt == DType::F32,
        q => return fault(format!("'{name}' with quant mode {q} is not implemented")),
    };
    // scalar quant modes (qf322f32/f16/bf16_pre_scalar): the f32 scale from
    // set_quant_pre's low 32 bits
    let scale = if matches!(quant, 15 | 32 | 34) {
        Some(f32::from_bits(reg(0, "set_quant_pre")? as u32))
    } else {
        None
    };
    // vector quant modes (qf322f32/f16/bf16_pre_vec, 14/31/33): one 64-bit
    // quant word per output column in FB, at the address FPC[15:8] holds in
    // 128-byte units (PTOAS buildAccStoreFpcValue; pto-isa SET_QUANT_VECTOR
    // and TStoreAccFp: set_fpc((fb >> 7) << 8))
    let vec_quant = if matches!(quant, 14 | 31 | 33) {
        Some(((reg(5, "set_fpc")? >> 8) & 0xFF) << 7)
    } else {
        None
    };
    // clip: the f16 bits from set_fix_clip_relu (f16 destinations)
    let clip = match clip_on {
        0 => None,
        1 if ddt == DType::F16 => {
            Some(half::f16::from_bits(reg(2, "set_fix_clip_relu")? as u16).to_f32())
        }
        c => {
            return fault(format!(
                "'{name}' with clip mode {c} to {ddt:?} is not implemented"
            ))
        }
    };
    if relu.is_some() && sdt != DType::F32 {
        return fault(format!("'{name}': relu takes f32 accumulators"));
    }
    if !ok {
        return fault(format!(
            "'{name}': quant mode {quant} does not convert {sdt:?} to {ddt:?}"
        ));
    }
    if matches!(dual, Some(2 | 3)) && (quant != 0 || relu.is_some() || clip.is_some()) {
        return fault(format!(
            "'{name}': a split UB destination does not combine with a conversion"
        ));
    }
    if mm.saturating_mul(nn).saturating_mul(reps) > MAX_WORK {
        return fault(format!("'{name}' is too large"));
    }
    let sat = (call.ctrl >> 48) & 1 == 0;
    let des = ddt.bytes() as u64;
    if split && (nd || dn) {
        return fault(format!(
            "'{name}': the channel split is an NZ write-back mode, not nz2nd/nz2dn"
        ));
    }
    let place = parts.place(name)?;
    // GM and L1 destinations are written in contiguous runs
    let mut pend = Pending::new(dsp, des as usize);
    let res = (|| -> Result<(), Fault> {
        let mut b = [0u8; 8];
        for r in 0..reps {
            let sbase = src.addr;
            let dbase = dst.addr + r * d3 * des;
            for i in 0..mm {
                meter::charge(nn + 1)?;
                for j in 0..nn {
                    let sa = sbase + ((j / 16) * src_stride + i) * 64 + (j % 16) * 4;
                    let raw = m.get(Space::L0c, sa, sdt)?;
                    let v = if quant == 0 && relu.is_none() {
                        raw
                    } else {
                        let mut x = raw.f() as f32;
                        if let Some(sc) = scale {
                            x *= sc;
                        }
                        if let Some(fb) = vec_quant {
                            x *= quant_word_scale(
                                m.get(Space::Fb, fb + j * 8, DType::U64)?.i() as u64
                            );
                        }
                        match relu {
                            Some(None) => x = x.max(0.0),
                            Some(Some(al)) if x < 0.0 => x *= al,
                            _ => {}
                        }
                        if let Some(cl) = clip {
                            x = x.min(cl);
                        }
                        let mut y = x as f64;
                        if sat && ddt != DType::F32 {
                            let lim = if ddt == DType::F16 {
                                65504.0
                            } else {
                                3.389_531_389_251_535_5e38
                            };
                            y = if y.is_nan() { 0.0 } else { y.clamp(-lim, lim) };
                        }
                        Num::F(y)
                    };
                    let (sub, off) = place.offset(i, j);
                    num::write(&mut b[..des as usize], ddt, v);
                    let at = addr(dbase, (off * des) as i64)?;
                    if dsp == Space::Ub {
                        m.write_ub(sub, at, &b[..des as usize])?;
                    } else {
                        pend.push(m, at, &b[..des as usize])?;
                    }
                }
            }
        }
        Ok(())
    })();
    let flushed = pend.flush(m);
    flushed.and(res)
}

fn combine(op: &str, old: Num, new: Num, dt: DType) -> Num {
    if dt.is_float() {
        let (a, b) = (old.f(), new.f());
        Num::F(match op {
            "add" => num::round_float(a + b, dt),
            "max" => a.max(b),
            _ => a.min(b),
        })
    } else {
        let (a, b) = (old.i(), new.i());
        Num::I(num::wrap(
            match op {
                "add" => a.wrapping_add(b),
                "max" => a.max(b),
                _ => a.min(b),
            },
            dt,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Ptr;
    use pto_isa_spec::ProfileId;
    use std::collections::BTreeSet;

    /// The bytes a list of accesses covers, with their direction.
    fn bytes(acc: &Accesses) -> BTreeSet<(Space, u64, bool)> {
        acc.list
            .iter()
            .flat_map(|a| (a.addr..a.addr + a.len).map(move |b| (a.space, b, a.write)))
            .collect()
    }

    /// Fills `len` bytes of `s` at `addr` with `dt` elements: random values
    /// of magnitude up to `scale`, with a NaN or an infinity now and then
    /// when `specials`.
    #[allow(clippy::too_many_arguments)]
    fn fill(
        local: &mut Local,
        s: Space,
        addr: u64,
        len: u64,
        dt: DType,
        scale: f32,
        specials: bool,
        seed: &mut u64,
    ) {
        let buf = local.slice_mut(s, addr, len).expect("fits");
        for ch in buf.chunks_mut(dt.bytes()) {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            let u = (*seed >> 40) as f32 / (1u64 << 24) as f32;
            let mut v = (u * 2.0 - 1.0) * scale;
            if specials {
                match *seed % 97 {
                    0 => v = f32::NAN,
                    1 => v = f32::INFINITY,
                    2 => v = f32::NEG_INFINITY,
                    _ => {}
                }
            }
            let x = if dt.is_float() {
                Num::F(f64::from(v))
            } else {
                // the whole range of the type, wrapping included
                Num::I((*seed >> 3) as i64)
            };
            crate::num::write(ch, dt, x);
        }
    }

    /// The native `mad` gives the interpreter's L0C bits (NaN payloads
    /// aside) and touches the same bytes, for f32/f16/bf16 operands and
    /// 8/16/32-bit integer ones (wrapping sums over the types' whole ranges), GEMV
    /// and NZ left operands, every start (zero, L0C, bias), tf32 rounding,
    /// saturation (with results that overflow, which the native path hands
    /// back to the interpreter) and shapes off the 16 x 16 grid.
    #[test]
    fn native_mad_gives_the_interpreters_bits_and_accesses() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut native_runs = 0;
        let mut fallbacks = 0;
        let shapes = [
            (1, 24, 40),
            (20, 24, 40),
            (16, 16, 16),
            (33, 17, 70),
            (5, 48, 3),
            (1, 3, 1),
        ];
        let types = [
            (DType::F32, DType::F32),
            (DType::F16, DType::F16),
            (DType::BF16, DType::BF16),
            (DType::F32, DType::F16),
            (DType::I8, DType::I8),
            (DType::U8, DType::I8),
            (DType::I16, DType::U16),
            (DType::I32, DType::I32),
        ];
        for (mm, nn, kk) in shapes {
            for (adt, bdt) in types {
                for start in 0..3 {
                    for (sat, tf, big, specials) in [
                        (false, None, false, false),
                        (false, None, false, true),
                        (true, None, false, true),
                        (true, None, true, false),
                        (false, Some(false), false, false),
                        (true, Some(true), false, false),
                    ] {
                        if tf.is_some() && (adt, bdt) != (DType::F32, DType::F32) {
                            continue;
                        }
                        let int = !adt.is_float();
                        if int && (big || specials) {
                            continue;
                        }
                        let cdt = if int { DType::I32 } else { DType::F32 };
                        for gemv in [false, true] {
                            if gemv && mm != 1 {
                                continue;
                            }
                            let scale = if big && adt == DType::F32 { 1e30 } else { 4.0 };
                            let ptr = |space, addr, elem| Ptr { space, addr, elem };
                            let p = MadPlan {
                                name: "mad",
                                a: ptr(Space::L0a, 64, adt),
                                b: ptr(Space::L0b, 32, bdt),
                                c: ptr(Space::L0c, 128, cdt),
                                bias: (start == 2).then(|| ptr(Space::Bias, 256, cdt)),
                                mm,
                                nn,
                                kk,
                                acc_form: start == 1,
                                bias_form: start == 2,
                                gemv,
                                int,
                                mx: false,
                                tf,
                                sat,
                            };
                            assert!(mad_native_ok(&p));
                            let mut local = Local::new(ProfileId::A5.profile(), None);
                            let (ab, bb) = (adt.bytes() as u64, bdt.bytes() as u64);
                            let alen = roundup(mm, 16) * roundup(kk, 32) * ab;
                            let blen = roundup(nn, 16) * roundup(kk, 32) * bb;
                            let clen = roundup(mm, 16) * roundup(nn, 16) * 4;
                            fill(
                                &mut local,
                                Space::L0a,
                                64,
                                alen,
                                adt,
                                scale,
                                specials,
                                &mut seed,
                            );
                            fill(
                                &mut local,
                                Space::L0b,
                                32,
                                blen,
                                bdt,
                                scale,
                                specials,
                                &mut seed,
                            );
                            fill(
                                &mut local,
                                Space::L0c,
                                128,
                                clen,
                                cdt,
                                8.0,
                                false,
                                &mut seed,
                            );
                            fill(
                                &mut local,
                                Space::Bias,
                                256,
                                nn * 4,
                                cdt,
                                8.0,
                                false,
                                &mut seed,
                            );
                            let gm = Gm::new(64);
                            let mut want = local.clone();
                            let run = |l: &mut Local, native: bool| {
                                let mut mx = MxScales::default();
                                let mut acc = Accesses {
                                    on: true,
                                    list: Vec::new(),
                                };
                                let mut mem = Mem {
                                    gm: &gm,
                                    local: l,
                                    mx: &mut mx,
                                    subs: Vec::new(),
                                    cube: None,
                                    acc: &mut acc,
                                    far: Vec::new(),
                                };
                                let done = if native {
                                    mad_native(&p, &mut mem).expect("runs")
                                } else {
                                    mad_interpret(&p, &mut mem).expect("runs");
                                    true
                                };
                                (done, acc)
                            };
                            let (_, want_acc) = run(&mut want, false);
                            let (done, got_acc) = run(&mut local, true);
                            let what = format!("{mm}x{nn}x{kk} {adt:?}x{bdt:?} start {start} sat {sat} tf {tf:?} big {big} gemv {gemv}");
                            if !done {
                                // only a saturating multiply hands back, and
                                // then it has written nothing
                                assert!(sat && !int, "{what}");
                                fallbacks += 1;
                                continue;
                            }
                            native_runs += 1;
                            assert_eq!(bytes(&got_acc), bytes(&want_acc), "{what}");
                            let got = local.slice(Space::L0c, 0, 1 << 16).expect("l0c");
                            let exp = want.slice(Space::L0c, 0, 1 << 16).expect("l0c");
                            for i in (0..got.len()).step_by(4) {
                                let (g, w) = (&got[i..i + 4], &exp[i..i + 4]);
                                let nan = |x: &[u8]| {
                                    f32::from_le_bytes([x[0], x[1], x[2], x[3]]).is_nan()
                                };
                                assert!(g == w || (nan(g) && nan(w)), "{what}: L0C byte {i}");
                            }
                        }
                    }
                }
            }
        }
        assert!(native_runs > 380, "{native_runs}");
        assert!(fallbacks > 0);
    }
}
