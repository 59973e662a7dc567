//! Ops a scope runs through its host: `SInst::Call` hands one instruction
//! to [`AccessSink::op`] with a view of the scope's registers ([`OpRegs`]),
//! so the VM executes it with the interpreter's own code and the compiled
//! scope stays bit-exact for ops the code generator has no native form of
//! (8-bit lanes, integer conversions, predicate algebra...). The compiled
//! code first writes the scalar operands it keeps in SSA variables to their
//! state slots; masks, and the vector registers a host op uses, live in the
//! state already (the scope's other registers are SSA values). An
//! op that reads or writes UB (predicate loads and stores) also gets the
//! scope's UB, after the access log has been handed to the sink (so the
//! host records its accesses in program order).

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder};
use cranelift_frontend::FunctionBuilder;

use super::routine::{self, Routine};
use super::{st_flags, Gen, RegRef, VLane, FAULT_ADDR, FAULT_LEN, HEADER};

/// Callback kind of a host-executed op.
pub(super) const KIND_OP: i64 = 5;
/// Callback kind of a host-executed op that accesses UB (its base and
/// length in the fault words of the state header).
pub(super) const KIND_OP_MEM: i64 = 6;

/// Callback kind of a routine ([`super::SInst::Routine`]), which does not
/// reach the sink.
pub(super) const KIND_ROUTINE: i64 = 8;

/// Status a scope returns when a host-executed op failed.
pub(super) const STATUS_OP: i64 = 6;

/// The registers of a running scope, for a host-executed op.
pub struct OpRegs<'a> {
    words: &'a mut [u64],
    vregs: usize,
    masks: usize,
    ub: Option<&'a mut [u8]>,
}

impl OpRegs<'_> {
    /// The scope's UB (ops that access it only).
    pub fn ub(&mut self) -> Option<&mut [u8]> {
        self.ub.as_deref_mut()
    }

    /// Scalar slot `i` (integers and addresses; floats as their f64 bits).
    pub fn scalar(&self, i: u32) -> Option<i64> {
        self.words.get(HEADER + i as usize).map(|w| *w as i64)
    }

    fn bytes<const N: usize>(&self, at: usize) -> Option<[u8; N]> {
        let ws = self.words.get(at..at + N / 8)?;
        let mut out = [0u8; N];
        for (ch, w) in out.chunks_exact_mut(8).zip(ws) {
            ch.copy_from_slice(&w.to_le_bytes());
        }
        Some(out)
    }

    fn put(&mut self, at: usize, bytes: &[u8]) -> bool {
        let Some(ws) = self.words.get_mut(at..at + bytes.len() / 8) else {
            return false;
        };
        for (w, ch) in ws.iter_mut().zip(bytes.chunks_exact(8)) {
            let mut b = [0u8; 8];
            b.copy_from_slice(ch);
            *w = u64::from_le_bytes(b);
        }
        true
    }

    /// Vector register `i`.
    pub fn vreg(&self, i: u32) -> Option<[u8; 256]> {
        self.bytes(self.vregs + 32 * i as usize)
    }

    /// Mask `i`.
    pub fn mask(&self, i: u32) -> Option<[u8; 32]> {
        self.bytes(self.masks + 4 * i as usize)
    }

    /// Sets vector register `i` (false: no such register).
    pub fn set_vreg(&mut self, i: u32, v: &[u8; 256]) -> bool {
        self.put(self.vregs + 32 * i as usize, v)
    }

    /// Sets mask `i` (false: no such mask).
    pub fn set_mask(&mut self, i: u32, m: &[u8; 32]) -> bool {
        self.put(self.masks + 4 * i as usize, m)
    }

    /// Sets scalar slot `i` (a result the compiled code reloads after the
    /// op; false: no such slot).
    pub fn set_scalar(&mut self, i: u32, v: i64) -> bool {
        match self.words.get_mut(HEADER + i as usize) {
            Some(w) if HEADER + (i as usize) < self.vregs => {
                *w = v as u64;
                true
            }
            _ => false,
        }
    }
}

/// Runs `f` on the registers of the state buffer at `state` (`words` words;
/// `offs` packs the word offsets of the vector registers and the masks).
/// With `mem`, the UB base and length are in the header's fault words.
pub(super) fn with_regs(
    state: *const u8,
    words: u32,
    offs: u64,
    mem: bool,
    f: impl FnOnce(&mut OpRegs) -> bool,
) -> bool {
    if state.is_null() || (words as usize) < HEADER {
        return false;
    }
    // SAFETY: compiled scope code passes the state buffer it runs on
    // (`ScopeCompiled::call` hands it `words` 8-byte aligned words that it
    // borrows exclusively for the call) and does not touch it until this
    // callback returns.
    let words =
        unsafe { std::slice::from_raw_parts_mut(state.cast_mut().cast::<u64>(), words as usize) };
    let ub = if mem {
        let (base, len) = (words[FAULT_ADDR] as *mut u8, words[FAULT_LEN] as usize);
        if base.is_null() {
            return false;
        }
        // SAFETY: the compiled code stored its `base` and `len` parameters
        // here just before the call: the UB slice `ScopeCompiled::call`
        // borrows exclusively for the call, which the code does not touch
        // until this callback returns.
        Some(unsafe { std::slice::from_raw_parts_mut(base, len) })
    } else {
        None
    };
    let mut regs = OpRegs {
        words,
        vregs: (offs & 0xffff_ffff) as usize,
        masks: (offs >> 32) as usize,
        ub,
    };
    f(&mut regs)
}

/// Runs routine `code` on the state buffer at `state` (`words` words): the
/// low 7 bits of `code` are the [`Routine::code`], the bits above the word
/// offset of the second source plus one (zero: none); `offs` packs the word
/// offsets of the source (bits 0..21), the result (21..42) and the mask
/// plus one (42..63, zero: none). False when a register lies outside the
/// buffer.
pub(super) fn routine_regs(state: *const u8, words: u32, offs: u64, code: u32) -> bool {
    let Some((op, lane)) = Routine::decode(code & 0x7f) else {
        return false;
    };
    if state.is_null() {
        return false;
    }
    // SAFETY: compiled scope code passes the state buffer it runs on
    // (`ScopeCompiled::call` hands it `words` 8-byte aligned words that it
    // borrows exclusively for the call) and does not touch it until this
    // callback returns.
    let words =
        unsafe { std::slice::from_raw_parts_mut(state.cast_mut().cast::<u64>(), words as usize) };
    let field = |k: u32| ((offs >> (21 * k)) & 0x1f_ffff) as usize;
    let (a, d, m, b) = (field(0), field(1), field(2), (code >> 7) as usize);
    let r = if cfg!(target_endian = "little") {
        // the words are little-endian, so their bytes in memory are the
        // registers' bytes: read the operands in place
        let n = 8 * words.len();
        let span = |at: usize, len: usize| -> Option<std::ops::Range<usize>> {
            let lo = at.checked_mul(8)?;
            let hi = lo.checked_add(len)?;
            (hi <= n).then_some(lo..hi)
        };
        let Some(ra) = span(a, 256) else {
            return false;
        };
        let rb = match b {
            0 => None,
            _ => match span(b - 1, 256) {
                Some(r) => Some(r),
                None => return false,
            },
        };
        let rm = match m {
            0 => None,
            _ => match span(m - 1, 32) {
                Some(r) => Some(r),
                None => return false,
            },
        };
        let Some(rd) = span(d, 256) else {
            return false;
        };
        let base = words.as_mut_ptr().cast::<u8>();
        // SAFETY: every range was checked to lie inside the `n` bytes of
        // `words` (the same memory, read as bytes, which have no alignment
        // or validity requirement; `[u8; N]` has alignment 1); `words` is
        // not used while these references live.
        let reg = |r: &std::ops::Range<usize>| unsafe { &*base.add(r.start).cast::<[u8; 256]>() };
        // SAFETY: as above.
        let mk = rm
            .as_ref()
            .map(|r| unsafe { &*base.add(r.start).cast::<[u8; 32]>() });
        let apart = |r: &std::ops::Range<usize>| r.end <= rd.start || rd.end <= r.start;
        if apart(&ra) && rb.as_ref().is_none_or(apart) && rm.as_ref().is_none_or(apart) {
            // the result straight into its register: a copy through a
            // buffer reread its 32-byte stores with wider loads, which
            // cannot be forwarded (perf: 12% of the micro-op softmax scope)
            // SAFETY: inside the buffer as above, and disjoint from every
            // operand just checked, so this is the only reference to it.
            let out = unsafe { &mut *base.add(rd.start).cast::<[u8; 256]>() };
            routine::run_into(op, lane, reg(&ra), rb.as_ref().map(reg), mk, out);
            return true;
        }
        let mut r = [0u8; 256];
        routine::run_into(op, lane, reg(&ra), rb.as_ref().map(reg), mk, &mut r);
        r
    } else {
        let bytes = |at: usize, out: &mut [u8]| -> bool {
            let Some(ws) = words.get(at..at + out.len() / 8) else {
                return false;
            };
            for (ch, w) in out.chunks_exact_mut(8).zip(ws) {
                ch.copy_from_slice(&w.to_le_bytes());
            }
            true
        };
        let mut v = [0u8; 256];
        if !bytes(a, &mut v) {
            return false;
        }
        let mut w = [0u8; 256];
        if b > 0 && !bytes(b - 1, &mut w) {
            return false;
        }
        let mut mk = [0u8; 32];
        if m > 0 && !bytes(m - 1, &mut mk) {
            return false;
        }
        let mut r = [0u8; 256];
        routine::run_into(
            op,
            lane,
            &v,
            (b > 0).then_some(&w),
            (m > 0).then_some(&mk),
            &mut r,
        );
        r
    };
    let Some(ws) = words.get_mut(d..d + 32) else {
        return false;
    };
    for (w, ch) in ws.iter_mut().zip(r.chunks_exact(8)) {
        let mut x = [0u8; 8];
        x.copy_from_slice(ch);
        *w = u64::from_le_bytes(x);
    }
    true
}

impl Gen {
    /// `SInst::Routine`: the callback computes the result register from the
    /// sources and the mask in the state buffer (the registers live there).
    pub(super) fn routine(
        &self,
        b: &mut FunctionBuilder,
        k: u32,
        op: Routine,
        lane: VLane,
        (dst, a, rb): (u32, u32, Option<u32>),
        mask: Option<u32>,
    ) {
        let word = |slot: i32| (slot / 8) as u64;
        let offs = word(self.vslot(a))
            | word(self.vslot(dst)) << 21
            | mask.map_or(0, |m| word(self.mslot(m)) + 1) << 42;
        let code = u64::from(op.code(lane)) | rb.map_or(0, |v| word(self.vslot(v)) + 1) << 7;
        self.state_call(b, k, code as u32, offs, KIND_ROUTINE);
    }

    /// Calls the host callback of kind `kind` with `code` and `offs` on the
    /// state buffer, and stops the scope with [`STATUS_OP`] (at inst `k`)
    /// when it reports a failure.
    fn state_call(&self, b: &mut FunctionBuilder, k: u32, code: u32, offs: u64, kind: i64) {
        let code = b.ins().iconst(types::I32, i64::from(code));
        let offs = b.ins().iconst(types::I64, offs as i64);
        let words = b.ins().iconst(types::I32, self.layout.words as i64);
        let kd = b.ins().iconst(types::I32, kind);
        let call = b.ins().call_indirect(
            self.cb_sig,
            self.cb,
            &[self.sink, code, offs, self.state, words, kd],
        );
        let r = b.inst_results(call)[0];
        let ok = b.ins().icmp_imm_s(IntCC::Equal, r, 0);
        self.guard(b, ok, STATUS_OP, k, None);
    }

    /// `SInst::Call`: spills the scalar operands, calls the host, stops the
    /// scope with [`STATUS_OP`] when the op failed, and reloads the scalar
    /// results (a post-update load's advanced address).
    pub(super) fn call_op(
        &self,
        b: &mut FunctionBuilder,
        k: u32,
        srcs: &[RegRef],
        dsts: &[RegRef],
        mem: bool,
    ) {
        let sf = st_flags();
        if mem {
            self.flush(b);
            b.ins()
                .store(sf, self.base, self.state, (FAULT_ADDR * 8) as i32);
            b.ins()
                .store(sf, self.len, self.state, (FAULT_LEN * 8) as i32);
        }
        for r in srcs {
            if let RegRef::S(i) = *r {
                let v = self.var(b, i);
                b.ins()
                    .store(sf, v, self.state, ((HEADER + i as usize) * 8) as i32);
            }
        }
        let offs = (self.layout.vregs as u64) | (self.layout.masks as u64) << 32;
        let kind = if mem { KIND_OP_MEM } else { KIND_OP };
        self.state_call(b, k, k, offs, kind);
        for d in dsts {
            if let RegRef::S(i) = *d {
                let v = b.ins().load(
                    types::I64,
                    st_flags(),
                    self.state,
                    ((HEADER + i as usize) * 8) as i32,
                );
                b.def_var(self.vars[i as usize], v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{compile, AccessSink, SInst, Scope, ScopeStatus};
    use super::{OpRegs, RegRef};

    /// Adds the scalar to every byte of vector 0 into vector 1; fails on a
    /// negative scalar.
    struct Host(Vec<u32>);

    impl AccessSink for Host {
        fn load(&mut self, _: u32, _: u64, _: u64) {}
        fn store(&mut self, _: u32, _: u64, _: u64) {}
        fn barrier(&mut self) {}
        fn op(&mut self, inst: u32, regs: &mut OpRegs) -> bool {
            self.0.push(inst);
            let (Some(s), Some(v)) = (regs.scalar(0), regs.vreg(0)) else {
                return false;
            };
            if s < 0 || regs.ub().is_some() {
                return false;
            }
            let out = v.map(|x| x.wrapping_add(s as u8));
            regs.set_vreg(1, &out)
        }
    }

    #[test]
    fn host_ops_see_spilled_scalars_and_stop_the_scope_when_they_fail() {
        let s = Scope {
            insts: vec![
                SInst::Const { dst: 0, v: 3 },
                SInst::Call {
                    srcs: vec![RegRef::S(0), RegRef::V(0)],
                    dsts: vec![RegRef::V(1)],
                    mem: false,
                },
                SInst::Exit,
            ],
            scalars: 1,
            vregs: 2,
            masks: 0,
        };
        let c = compile(&s).unwrap();
        let mut st = c.new_state();
        st.set_vreg(0, &[7u8; 256]);
        let mut host = Host(Vec::new());
        assert_eq!(c.call(&mut st, &mut [], 10, &mut host), ScopeStatus::Ok);
        assert_eq!(st.vreg(1), [10u8; 256]);
        assert_eq!(host.0, vec![1]);
        let mut s2 = s.clone();
        s2.insts[0] = SInst::Const { dst: 0, v: -1 };
        let c = compile(&s2).unwrap();
        let mut st = c.new_state();
        assert_eq!(
            c.call(&mut st, &mut [], 10, &mut host),
            ScopeStatus::OpFailed { inst: 1 }
        );
    }

    /// Instruction 1 sets scalar 0 to 42 (a post-update access's advanced
    /// pointer); instruction 3 records the scalar it is handed.
    struct Scalars(Vec<i64>);

    impl AccessSink for Scalars {
        fn load(&mut self, _: u32, _: u64, _: u64) {}
        fn store(&mut self, _: u32, _: u64, _: u64) {}
        fn barrier(&mut self) {}
        fn op(&mut self, inst: u32, regs: &mut OpRegs) -> bool {
            match inst {
                1 => regs.set_scalar(0, 42),
                _ => {
                    self.0.extend(regs.scalar(1));
                    true
                }
            }
        }
    }

    #[test]
    fn a_host_op_scalar_result_is_reloaded() {
        let s = Scope {
            insts: vec![
                SInst::Const { dst: 0, v: 3 },
                SInst::Call {
                    srcs: vec![RegRef::S(0)],
                    dsts: vec![RegRef::S(0)],
                    mem: false,
                },
                SInst::Bin {
                    op: super::super::IntOp::Add,
                    dst: 1,
                    a: 0,
                    b: 0,
                    bits: 64,
                    unsigned: false,
                },
                SInst::Call {
                    srcs: vec![RegRef::S(1)],
                    dsts: vec![],
                    mem: false,
                },
                SInst::Exit,
            ],
            scalars: 2,
            vregs: 0,
            masks: 0,
        };
        let c = compile(&s).unwrap();
        let mut st = c.new_state();
        let mut host = Scalars(Vec::new());
        assert_eq!(c.call(&mut st, &mut [], 10, &mut host), ScopeStatus::Ok);
        assert_eq!(host.0, vec![84]);
    }

    /// `routine_regs` writes the result into its register whether or not it
    /// is one of the operands (apart: straight into the state; the same
    /// register: through a buffer), and refuses registers past the buffer.
    #[test]
    fn routine_results_land_in_their_register() {
        use super::super::routine::{self, Routine};
        use super::super::VLane;
        use super::routine_regs;
        // four 32-word registers and a 4-word mask
        let mut words = vec![0u64; 4 * 32 + 4];
        for (i, w) in words.iter_mut().enumerate() {
            // f32 lanes of modest values (two per word), no NaN
            let lo = (i as f32 * 0.37 - 9.0).to_bits();
            let hi = (i as f32 * -0.11 + 3.0).to_bits();
            *w = u64::from(lo) | u64::from(hi) << 32;
        }
        // mask words: every other f32 lane active (4 bits per f32 lane)
        for w in &mut words[128..] {
            *w = 0x0f0f_0f0f_0f0f_0f0f;
        }
        let bytes = |ws: &[u64], at: usize, n: usize| -> Vec<u8> {
            ws[at..at + n / 8]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect()
        };
        for op in [
            Routine::Max,
            Routine::Add,
            Routine::DupLowest,
            Routine::ExpDif,
        ] {
            for (a, b, d) in [(0, 32, 64), (0, 32, 0), (32, 0, 32), (0, 32, 96)] {
                let mut ws = words.clone();
                let ra: [u8; 256] = bytes(&ws, a, 256).try_into().unwrap();
                let rb: [u8; 256] = bytes(&ws, b, 256).try_into().unwrap();
                let mk: [u8; 32] = bytes(&ws, 128, 32).try_into().unwrap();
                let mask = op != Routine::Add;
                let want = routine::run(op, VLane::F32, &ra, Some(&rb), mask.then_some(&mk));
                let offs = a as u64 | (d as u64) << 21 | if mask { 129u64 << 42 } else { 0 };
                let code = op.code(VLane::F32) | (b as u32 + 1) << 7;
                let n = ws.len() as u32;
                assert!(routine_regs(ws.as_mut_ptr().cast(), n, offs, code));
                assert_eq!(bytes(&ws, d, 256), want.to_vec(), "{op:?} {a} {b} {d}");
                // nothing else changed
                for (i, (x, y)) in ws.iter().zip(&words).enumerate() {
                    if !(d..d + 32).contains(&i) {
                        assert_eq!(x, y, "{op:?} {a} {b} {d}: word {i}");
                    }
                }
                // a result register reaching past the buffer is refused
                let far = a as u64 | 120u64 << 21;
                assert!(!routine_regs(ws.as_mut_ptr().cast(), n, far, code));
            }
        }
    }
}
