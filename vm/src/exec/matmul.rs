//! Matrix multiply: `tmatmul`, `tmatmul.acc`, `tmatmul.bias` and the
//! matrix-vector forms `tgemv`, `tgemv.acc`, `tgemv.bias`.
//!
//! `A` (left, M x K) times `B` (right, K x N) into `C` (acc, M x N), with
//! M = A's valid rows, K = A's valid columns, N = B's valid columns. Float
//! inputs (f16, bf16, f32) accumulate in f32 with a fused multiply-add in k
//! order; integer inputs (i8) accumulate in i32, wrapping. `.acc` starts from
//! `C_in` (the first `ins` operand), `.bias` from the bias row (`bias[0][n]`,
//! the third operand). Operands are read through their own layouts (NZ, ZN,
//! ZZ, ...), so any tile layout works.
//!
//! The block-scaled (MX, A5) forms `tmatmul.mx`, `tmatmul.mx.acc`,
//! `tmatmul.mx.bias` and their `tgemv.mx` counterparts take
//! `[C_in,] A, A_scale, B, B_scale [, bias]`: A and B hold fp8 (e4m3fn or
//! e5m2) codes, the scale tiles one E8M0 exponent byte per 32 elements
//! along K. `A_scale` is `M x ceil(K/32)` and `B_scale` is `ceil(K/32) x N`,
//! each read through its own layout; element `(i, k)` of A is taken as
//! `A[i][k] * 2^(A_scale[i][k/32] - 127)` (code 0xFF is NaN), likewise
//! `B[k][j] * 2^(B_scale[k/32][j] - 127)`, and the products accumulate in
//! f32 exactly like the plain forms (the same rule as the cube micro-op
//! `mad_mx`). Scale tiles must have an 8-bit element type (`f8E8M0FNU`, or
//! `ui8`/`i8` read as raw bytes); packed fp4 operands are not implemented.

use pto_isa_spec::{DType, Opcode};

use crate::exec::tile_ops::{
    check_valid, get, get_bits, in_tile, out_tile, put, short, space, TileCall,
};
use crate::exec::{fault, Accesses, Fault};
use crate::mem::Local;
use crate::num::Num;
use crate::value::Tile;
use pto_jit::{Form, Lhs};

/// A validated matmul: operands, sizes, and where accumulation starts.
pub struct Plan<'a> {
    a: &'a Tile,
    b: &'a Tile,
    c: &'a Tile,
    m: i64,
    k: i64,
    n: i64,
    float: bool,
    /// `(tile, is_bias_row)`: C_in or the bias row; `None` starts from zero.
    start: Option<(&'a Tile, bool)>,
    /// MX forms: the A and B scale tiles.
    scales: Option<(&'a Tile, &'a Tile)>,
}

impl Plan<'_> {
    /// Floating-point work (2·m·k·n).
    pub fn flops(&self) -> u64 {
        2 * (self.m * self.k * self.n).max(0) as u64
    }
}

/// Checks a matmul's operands and sizes.
pub fn plan(call: &TileCall) -> Result<Plan<'_>, Fault> {
    use Opcode as O;
    let (ai, init, mx) = match call.op {
        O::TMatmul | O::TGemv => (0, Init::Zero, false),
        O::TMatmulAcc | O::TGemvAcc => (1, Init::Acc, false),
        O::TMatmulBias | O::TGemvBias => (0, Init::Bias, false),
        O::TMatmulMx | O::TGemvMx => (0, Init::Zero, true),
        O::TMatmulMxAcc | O::TGemvMxAcc => (1, Init::Acc, true),
        O::TMatmulMxBias | O::TGemvMxBias => (0, Init::Bias, true),
        _ => return fault(format!("{} is not a matmul", call.op.name())),
    };
    // MX operand order: A, A_scale, B, B_scale
    let bi = if mx { ai + 2 } else { ai + 1 };
    let a = in_tile(call, ai, "left operand A")?;
    let b = in_tile(call, bi, "right operand B")?;
    let c = out_tile(call, 0, "accumulator C")?;
    for (t, n) in [(a, "A"), (b, "B"), (c, "C")] {
        check_valid(call, t, n)?;
    }
    let (m, k, n) = (a.v_row, a.v_col, b.v_col);
    if b.v_row < k {
        return fault(format!(
            "{}: A is {m}x{k} but B has only {} valid rows",
            short(call),
            b.v_row
        ));
    }
    if m > c.rows || n > c.cols {
        return fault(format!(
            "{}: the {m}x{n} product does not fit the {}x{} accumulator",
            short(call),
            c.rows,
            c.cols
        ));
    }
    let float = a.elem.is_float() || b.elem.is_float() || c.elem.is_float();
    if float && !(a.elem.is_float() && b.elem.is_float() && c.elem.is_float()) {
        return fault(format!(
            "{}: mixed float and integer operands ({} x {} -> {})",
            short(call),
            a.elem,
            b.elem,
            c.elem
        ));
    }
    let start = match init {
        Init::Zero => None,
        Init::Acc => {
            let ci = in_tile(call, 0, "accumulator input C_in")?;
            check_valid(call, ci, "C_in")?;
            if m > ci.rows || n > ci.cols {
                return fault(format!(
                    "{}: C_in ({}x{}) is smaller than the {m}x{n} product",
                    short(call),
                    ci.rows,
                    ci.cols
                ));
            }
            Some((ci, false))
        }
        Init::Bias => {
            let bias = in_tile(call, bi + 1 + usize::from(mx), "bias")?;
            check_valid(call, bias, "bias")?;
            if n > bias.cols {
                return fault(format!(
                    "{}: the bias tile has {} columns, the product {n}",
                    short(call),
                    bias.cols
                ));
            }
            Some((bias, true))
        }
    };
    let scales = if mx {
        Some(mx_scales(call, a, b, c, (ai + 1, bi + 1), (m, k, n))?)
    } else {
        None
    };
    Ok(Plan {
        a,
        b,
        c,
        m,
        k,
        n,
        float,
        start,
        scales,
    })
}

/// Checks the MX operands: fp8 data, an f32 accumulator, 8-bit scale tiles
/// whose valid regions cover `M x ceil(K/32)` and `ceil(K/32) x N`.
fn mx_scales<'a>(
    call: &'a TileCall,
    a: &Tile,
    b: &Tile,
    c: &Tile,
    (sai, sbi): (usize, usize),
    (m, k, n): (i64, i64, i64),
) -> Result<(&'a Tile, &'a Tile), Fault> {
    let fp8 = |d: DType| matches!(d, DType::F8E4M3 | DType::F8E5M2);
    let fp4 = |d: DType| matches!(d, DType::F4E2M1 | DType::F4E1M2);
    if fp4(a.elem) || fp4(b.elem) {
        return fault(format!(
            "{}: packed fp4 MX operands are not implemented (fp8 ones are)",
            short(call)
        ));
    }
    if !fp8(a.elem) || !fp8(b.elem) || c.elem != DType::F32 {
        return fault(format!(
            "{}: MX operands must be fp8 x fp8 -> f32, found {} x {} -> {}",
            short(call),
            a.elem,
            b.elem,
            c.elem
        ));
    }
    let sa = in_tile(call, sai, "A scale tile")?;
    let sb = in_tile(call, sbi, "B scale tile")?;
    let groups = (k + 31) / 32;
    for (t, what, rows, cols) in [(sa, "A_scale", m, groups), (sb, "B_scale", groups, n)] {
        if t.elem.bytes() != 1 || t.elem.is_float() && t.elem != DType::E8M0 {
            return fault(format!(
                "{}: {what} must hold E8M0 bytes (f8E8M0FNU, ui8 or i8), found {}",
                short(call),
                t.elem
            ));
        }
        check_valid(call, t, what)?;
        if t.v_row < rows || t.v_col < cols {
            return fault(format!(
                "{}: {what} valid region {}x{} does not cover the {rows}x{cols} scales of K = {k}",
                short(call),
                t.v_row,
                t.v_col
            ));
        }
    }
    Ok((sa, sb))
}

/// The value of an E8M0 scale byte: `2^(e - 127)`, 0xFF is NaN.
fn e8m0(bits: u64) -> f32 {
    match bits as u8 {
        0xff => f32::NAN,
        e => (2f64).powi(e as i32 - 127) as f32,
    }
}

/// Executes a matmul (the interpreter), or `settf32mode` / `sethf32mode`.
pub fn run(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    if matches!(call.op, Opcode::Settf32mode | Opcode::Sethf32mode) {
        return set_mode(call, local);
    }
    let p = plan(call)?;
    interpret(&p, local, acc)
}

/// `settf32mode {enable, mode}`: while enabled, every f32 operand element of
/// the later matmuls (A and B, not the accumulator or bias) is rounded to
/// TF32 (10 mantissa bits, to nearest even; `mode` may only be CAST_ROUND),
/// the rounding the cube micro-op `mad` applies for `tf32_mode`. The mode
/// register belongs to the cube, so the op runs in order on PIPE_M.
/// `sethf32mode {enable = false}` is accepted; enabling HF32 faults (its
/// transform is target-defined).
fn set_mode(call: &TileCall, local: &mut Local) -> Result<(), Fault> {
    let on = crate::exec::tile_ops::attr_sym(call, &["enable", "isEnable"])
        .is_some_and(|v| v == "TRUE" || v == "1");
    if let Some(m) =
        crate::exec::tile_ops::attr_sym(call, &["mode", "tf32TransMode", "hf32TransMode"])
    {
        let nearest = (m.contains("ROUND") || m.contains("RINT"))
            && !["FLOOR", "CEIL", "TRUNC", "ODD", "AWAY", "HYBRID"]
                .iter()
                .any(|o| m.contains(o));
        if !nearest {
            return fault(format!(
                "{}: mode {m} is not implemented (CAST_ROUND is)",
                short(call)
            ));
        }
    }
    if call.op == Opcode::Sethf32mode {
        if on {
            return fault(format!(
                "{}: the HF32 transform is target-defined and not modelled; only enable = false runs",
                short(call)
            ));
        }
        return Ok(());
    }
    local.tf32 = on;
    Ok(())
}

/// Rounds an f32 to TF32: 10 mantissa bits, to nearest even.
fn tf32(x: f32) -> f32 {
    if !x.is_finite() {
        return x;
    }
    let b = x.to_bits();
    let low = b & 0x1fff;
    let mut hi = b >> 13;
    if low > 0x1000 || (low == 0x1000 && hi & 1 == 1) {
        hi += 1;
    }
    f32::from_bits(hi << 13)
}

/// The reference semantics, element by element through the layouts.
pub fn interpret(p: &Plan<'_>, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let (a, b, c, m, k, n, float, start) = (p.a, p.b, p.c, p.m, p.k, p.n, p.float, p.start);
    // A and B once, row-major (MX: scaled by their block exponents)
    let mut av = Vec::with_capacity((m * k).max(0) as usize);
    for i in 0..m {
        for kk in 0..k {
            let mut x = get(local, a, i, kk, acc)?;
            if local.tf32 && a.elem == DType::F32 {
                x = Num::F(tf32(x.f() as f32) as f64);
            }
            if let Some((sa, _)) = p.scales {
                let s = e8m0(get_bits(local, sa, i, kk / 32, acc)?);
                x = Num::F(((x.f() as f32) * s) as f64);
            }
            av.push(x);
        }
    }
    let mut bv = Vec::with_capacity((k * n).max(0) as usize);
    for kk in 0..k {
        for j in 0..n {
            let mut y = get(local, b, kk, j, acc)?;
            if local.tf32 && b.elem == DType::F32 {
                y = Num::F(tf32(y.f() as f32) as f64);
            }
            if let Some((_, sb)) = p.scales {
                let s = e8m0(get_bits(local, sb, kk / 32, j, acc)?);
                y = Num::F(((y.f() as f32) * s) as f64);
            }
            bv.push(y);
        }
    }
    let mut out = Vec::with_capacity((m * n).max(0) as usize);
    for i in 0..m {
        for j in 0..n {
            let s = match start {
                None => Num::I(0),
                Some((t, true)) => get(local, t, 0, j, acc)?,
                Some((t, false)) => get(local, t, i, j, acc)?,
            };
            let v = if float {
                let mut s = s.f() as f32;
                for kk in 0..k {
                    let x = av[(i * k + kk) as usize].f() as f32;
                    let y = bv[(kk * n + j) as usize].f() as f32;
                    s = x.mul_add(y, s);
                }
                Num::F(s as f64)
            } else {
                let mut s = s.i() as i32;
                for kk in 0..k {
                    let x = av[(i * k + kk) as usize].i() as i32;
                    let y = bv[(kk * n + j) as usize].i() as i32;
                    s = s.wrapping_add(x.wrapping_mul(y));
                }
                Num::I(s as i64)
            };
            out.push(v);
        }
    }
    let mut it = out.into_iter();
    for i in 0..m {
        for j in 0..n {
            if let Some(v) = it.next() {
                put(local, c, i, j, v, acc)?;
            }
        }
    }
    Ok(())
}

/// Whether [`native`] can run this plan: float operands of f32/f16/bf16 and
/// an f32 accumulator, or 8-, 16- or 32-bit integer operands and an i32
/// accumulator (wrapping sums, exact in any order), without MX scales.
pub fn native_ok(p: &Plan<'_>) -> bool {
    let w = |d: DType| matches!(d, DType::F32 | DType::F16 | DType::BF16);
    let i = |d: DType| {
        matches!(
            d,
            DType::I8 | DType::U8 | DType::I16 | DType::U16 | DType::I32 | DType::U32
        )
    };
    let (acc, ops) = if p.float {
        (DType::F32, w(p.a.elem) && w(p.b.elem))
    } else {
        (DType::I32, i(p.a.elem) && i(p.b.elem))
    };
    ops && p.scales.is_none() && p.c.elem == acc && p.start.is_none_or(|(t, _)| t.elem == acc)
}

/// Widens one run of stored elements to f32 into `dst` (element stride `step`).
fn widen_run(d: DType, src: &[u8], dst: &mut [f32], at: usize, step: usize) {
    let mut i = at;
    match d {
        DType::F16 if step == 1 && pto_jit::f16_to_f32(src, &mut dst[at..]) == src.len() / 2 => {}
        DType::F16 if step == 1 => {
            // F16C converts eight at a time (half picks it at run time); the
            // element-by-element call below is what dominated f16 matmuls
            use half::slice::HalfFloatSliceExt;
            let mut buf = [half::f16::ZERO; 64];
            for (s, d) in src.chunks(128).zip(dst[at..].chunks_mut(64)) {
                let n = s.len() / 2;
                for (b, c) in buf.iter_mut().zip(s.chunks_exact(2)) {
                    *b = half::f16::from_bits(u16::from_le_bytes([c[0], c[1]]));
                }
                buf[..n].convert_to_f32_slice(&mut d[..n]);
            }
        }
        DType::F16 => {
            for c in src.chunks_exact(2) {
                dst[i] = half::f16::from_le_bytes([c[0], c[1]]).to_f32();
                i += step;
            }
        }
        DType::BF16 => {
            for c in src.chunks_exact(2) {
                dst[i] = half::bf16::from_le_bytes([c[0], c[1]]).to_f32();
                i += step;
            }
        }
        _ if step == 1 => {
            let n = src.len() / 4;
            pto_jit::f32_from_le(src, &mut dst[at..at + n]);
        }
        _ => {
            for c in src.chunks_exact(4) {
                dst[i] = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                i += step;
            }
        }
    }
}

fn outside(o: i64) -> Fault {
    Fault::Msg(format!("element offset {o} lies outside the tile"))
}

/// Per-row and per-column offset tables: every tile layout is separable,
/// `offset(r, c) = offset(r, 0) + offset(0, c)` (checked by the layout
/// module's tests), so a run of stored elements is found without divisions.
fn tables(t: &Tile, rows: i64, cols: i64) -> (Vec<i64>, Vec<i64>) {
    (
        crate::layout::row_offsets(t, rows),
        crate::layout::col_offsets(t, cols),
    )
}

/// Length of the run of consecutive offsets in `tab` starting at `i`.
fn run_len(tab: &[i64], i: usize) -> usize {
    let mut n = 1;
    while i + n < tab.len() && tab[i + n] == tab[i] + n as i64 {
        n += 1;
    }
    n
}

/// Copies the `rows x cols` corner of a tile into an f32 matrix in `form`
/// (row-major, or the 16-column panels the matrix kernel reads `B` from
/// fastest), walking the storage in its contiguous runs (along rows for
/// row-major and NZ/ZZ boxes, down columns for column-major and ZN/NN
/// boxes).
fn pack(
    local: &Local,
    t: &Tile,
    (rows, cols): (i64, i64),
    acc: &mut Accesses,
    (out, form): (&mut Vec<f32>, Form),
) -> Result<(), Fault> {
    let es = t.elem.bytes();
    let store = local.slice(space(t), t.addr, t.bytes())?;
    let (rows, cols) = (rows.max(0) as usize, cols.max(0) as usize);
    let len = form.span(rows, cols).ok_or_else(|| {
        Fault::Msg(format!(
            "matmul operand {rows}x{cols} does not fit {form:?}"
        ))
    })?;
    // every path below writes each element, and the kernel reads nothing
    // else: no need to zero the old ones
    out.resize(len, 0.0);
    out.truncate(len);
    let (rt, ct) = tables(t, rows as i64, cols as i64);
    let along = rowwise(&rt, &ct);
    let uniform = |l: usize| {
        cols.is_multiple_of(l) && (0..cols).step_by(l).all(|c| run_len(&ct[..c + l], c) == l)
    };
    let f32s = |s: &[u8], d: &mut [f32]| {
        pto_jit::f32_from_le(s, d);
    };
    let f16s = |s: &[u8], d: &mut [f32]| {
        pto_jit::f16_to_f32(s, d);
    };
    let bf16s = |s: &[u8], d: &mut [f32]| {
        for (x, c) in d.iter_mut().zip(s.as_chunks::<2>().0) {
            *x = half::bf16::from_le_bytes(*c).to_f32();
        }
    };
    if along && t.elem == DType::F32 && uniform(16) {
        rows_of::<16>((store, 4), &rt, &ct, (out, form), cols, f32s)?;
    } else if along && t.elem == DType::F32 && uniform(8) {
        rows_of::<8>((store, 4), &rt, &ct, (out, form), cols, f32s)?;
    } else if along && t.elem == DType::F16 && uniform(16) && pto_jit::has_f16c() {
        rows_of::<16>((store, 2), &rt, &ct, (out, form), cols, f16s)?;
    } else if along && t.elem == DType::BF16 && uniform(16) {
        rows_of::<16>((store, 2), &rt, &ct, (out, form), cols, bf16s)?;
    } else if !along && t.elem == DType::F32 && col_runs(&rt, cols, 8) {
        f32_cols(store, &rt, &ct, (out, form), cols)?;
    } else if !along && matches!(t.elem, DType::F16 | DType::BF16) && col_runs(&rt, cols, 8) {
        half_cols(t.elem, store, &rt, &ct, (out, form), cols)?;
    } else {
        let widen = |src: &[u8], dst: &mut [f32]| widen_run(t.elem, src, dst, 0, 1);
        pack_runs(store, es, (&rt, &ct), along, (out, form), &widen)?;
    }
    super::tile::record(acc, t, rows as i64, cols as i64, false);
    Ok(())
}

/// Whether a tile's `rt x ct` corner is best walked along its rows (its
/// columns come in runs, or there is one row, or no rows run together).
fn rowwise(rt: &[i64], ct: &[i64]) -> bool {
    ct.len() > 1 && run_len(ct, 0) > 1 || rt.len() <= 1 || run_len(rt, 0) == 1
}

/// The general walk of [`pack`] and [`pack_i32`]: the `rt x ct` corner of a
/// tile stored in `store` (elements of `es` bytes) into `out` in `form`, one
/// contiguous run of stored elements at a time (cut where a panel of `form`
/// ends), `widen` converting a run of `n` elements into `n` values. Along
/// rows (`along`) it writes each run in place; down columns it widens `G`
/// columns of one row band into a small buffer, then writes it out row by
/// row (contiguous writes, no cache thrash).
fn pack_runs<T: Copy + Default>(
    store: &[u8],
    es: usize,
    (rt, ct): (&[i64], &[i64]),
    along: bool,
    (out, form): (&mut [T], Form),
    widen: &dyn Fn(&[u8], &mut [T]),
) -> Result<(), Fault> {
    let (rows, cols) = (rt.len(), ct.len());
    let run_of = |o: i64, run: usize| -> Result<&[u8], Fault> {
        let b = o as usize * es;
        store.get(b..b + run * es).ok_or_else(|| outside(o))
    };
    if along {
        for (r, &ro) in rt.iter().enumerate() {
            let mut c = 0;
            while c < cols {
                let n = run_len(ct, c).min(form.run(c));
                let at = form.at(r, c);
                widen(run_of(ro + ct[c], n)?, &mut out[at..at + n]);
                c += n;
            }
        }
        return Ok(());
    }
    let mut runs = Vec::new();
    let mut r = 0;
    while r < rows {
        let n = run_len(rt, r);
        runs.push((r, n));
        r += n;
    }
    // a group of G columns from a multiple of G lies in one panel (their
    // widths are multiples of 16)
    const G: usize = 16;
    let mut tmp = vec![T::default(); rows.max(1) * G];
    for c0 in (0..cols).step_by(G) {
        let g = G.min(cols - c0);
        for &(r, n) in &runs {
            for j in 0..g {
                widen(run_of(rt[r] + ct[c0 + j], n)?, &mut tmp[j * n..(j + 1) * n]);
            }
            for x in 0..n {
                let at = form.at(r + x, c0);
                let row = &mut out[at..at + g];
                for (j, d) in row.iter_mut().enumerate() {
                    *d = tmp[j * n + x];
                }
            }
        }
    }
    Ok(())
}

/// The general walk of [`unpack`] and [`native_int`]'s write-back: row-major
/// `v` into the `rt x ct` corner of a tile, one run of stored elements at a
/// time, `narrow` writing `n` values as `n` stored elements.
fn unpack_runs<T>(
    store: &mut [u8],
    es: usize,
    (rt, ct): (&[i64], &[i64]),
    v: &[T],
    narrow: &dyn Fn(&[T], &mut [u8]),
) -> Result<(), Fault> {
    let cols = ct.len();
    for (r, &ro) in rt.iter().enumerate() {
        let mut c = 0;
        while c < cols {
            let n = run_len(ct, c);
            let o = (ro + ct[c]) as usize;
            let dst = store
                .get_mut(o * es..(o + n) * es)
                .ok_or_else(|| outside(o as i64))?;
            narrow(&v[r * cols + c..r * cols + c + n], dst);
            c += n;
        }
    }
    Ok(())
}

/// `pack` of a tile of `es`-byte elements whose rows are stored in runs of
/// (a multiple of) `L` elements (row-major and NZ/ZZ boxes), `widen`
/// turning a run's bytes into its `L` values: fixed-size runs the compiler
/// unrolls, instead of the general walk's per-run search and call. `L`
/// divides 16, so a run never crosses a panel of `form`.
fn rows_of<const L: usize>(
    (store, es): (&[u8], usize),
    rt: &[i64],
    ct: &[i64],
    (out, form): (&mut [f32], Form),
    cols: usize,
    widen: impl Fn(&[u8], &mut [f32]),
) -> Result<(), Fault> {
    for (r, &ro) in rt.iter().enumerate() {
        for c in (0..cols).step_by(L) {
            let o = ro + ct[c];
            let b = o as usize * es;
            let src = store.get(b..b + es * L).ok_or_else(|| outside(o))?;
            let at = form.at(r, c);
            widen(src, &mut out[at..at + L]);
        }
    }
    Ok(())
}

/// For each group of 8 columns from a multiple of 8 (of a tile whose
/// columns are stored in runs down its rows): the distance between
/// neighbouring columns, when it is the same across the group and not
/// negative (ZN/NN boxes and column-major tiles).
fn col_strides(ct: &[i64], cols: usize) -> Vec<Option<usize>> {
    (0..cols)
        .step_by(8)
        .map(|c0| {
            let d = ct[c0 + 1] - ct[c0];
            let even = (2..8).all(|j| ct[c0 + j] - ct[c0] == j as i64 * d);
            usize::try_from(d).ok().filter(|_| even)
        })
        .collect()
}

/// The bytes of an 8 x 8 block of `es`-byte elements whose columns start
/// `d` elements apart from element `o` on, each 8 elements long: `None`
/// when they do not all lie in `store`.
fn strided_block(store: &[u8], o: i64, d: usize, es: usize) -> Option<&[u8]> {
    let b = usize::try_from(o).ok()?.checked_mul(es)?;
    let len = d.checked_mul(7)?.checked_add(8)?.checked_mul(es)?;
    store.get(b..b.checked_add(len)?)
}

/// Every aligned group of `l` rows is contiguous down a column, and the
/// matrix is a whole number of `l x l` blocks.
fn col_runs(rt: &[i64], cols: usize, l: usize) -> bool {
    rt.len().is_multiple_of(l)
        && cols.is_multiple_of(l)
        && (0..rt.len())
            .step_by(l)
            .all(|r| run_len(&rt[..r + l], r) == l)
}

/// `pack` of an f32 tile whose columns are stored in runs of (a multiple of)
/// 8 elements (column-major and ZN/NN boxes): each 8 x 8 block is transposed
/// from its column runs into the rows of `out` (`pto_jit::transpose8`; 8
/// columns from a multiple of 8 lie in one panel of `form`).
fn f32_cols(
    store: &[u8],
    rt: &[i64],
    ct: &[i64],
    (out, form): (&mut [f32], Form),
    cols: usize,
) -> Result<(), Fault> {
    // the 8 columns from c0 a fixed distance apart: one bounds check and no
    // table per 8 x 8 block
    let strides = col_strides(ct, cols);
    for r0 in (0..rt.len()).step_by(8) {
        for c0 in (0..cols).step_by(8) {
            let at = form.at(r0, c0);
            let o = rt[r0] + ct[c0];
            if let Some((d, src)) =
                strides[c0 / 8].and_then(|d| Some((d, strided_block(store, o, d, 4)?)))
            {
                if !pto_jit::transpose8_strided(src, 4 * d, &mut out[at..], form.ld()) {
                    return Err(outside(o));
                }
                continue;
            }
            let mut runs = [&[0u8; 32]; 8];
            for (j, run) in runs.iter_mut().enumerate() {
                let o = rt[r0] + ct[c0 + j];
                let b = o as usize * 4;
                *run = store
                    .get(b..b + 32)
                    .and_then(|s| s.try_into().ok())
                    .ok_or_else(|| outside(o))?;
            }
            if !pto_jit::transpose8(runs, &mut out[at..], form.ld()) {
                return Err(outside(rt[r0] + ct[c0]));
            }
        }
    }
    Ok(())
}

/// `pack` of an f16 or bf16 (`dt`) tile whose columns are stored in runs of
/// (a multiple of) 8 elements (column-major and ZN/NN boxes): each 8 x 8
/// block is widened a column run at a time and transposed into the rows of
/// `out` (f16 in one step with F16C).
fn half_cols(
    dt: DType,
    store: &[u8],
    rt: &[i64],
    ct: &[i64],
    (out, form): (&mut [f32], Form),
    cols: usize,
) -> Result<(), Fault> {
    let mut blk = [[0f32; 8]; 8];
    let strides = col_strides(ct, cols);
    for r0 in (0..rt.len()).step_by(8) {
        for c0 in (0..cols).step_by(8) {
            let (at, o) = (form.at(r0, c0), rt[r0] + ct[c0]);
            let f16 = dt == DType::F16;
            let strided = strides[c0 / 8].and_then(|d| Some((d, strided_block(store, o, d, 2)?)));
            if let Some((d, src)) = strided.filter(|_| f16) {
                if pto_jit::transpose8_f16_strided(src, 2 * d, &mut out[at..], form.ld()) {
                    continue;
                }
            }
            let mut runs = [&[0u8; 16]; 8];
            for (j, run) in runs.iter_mut().enumerate() {
                let o = rt[r0] + ct[c0 + j];
                let b = o as usize * 2;
                *run = store
                    .get(b..b + 16)
                    .and_then(|s| s.try_into().ok())
                    .ok_or_else(|| outside(o))?;
            }
            if f16 && pto_jit::transpose8_f16(runs, &mut out[at..], form.ld()) {
                continue;
            }
            for (col, run) in blk.iter_mut().zip(runs) {
                widen_run(dt, run, col, 0, 1);
            }
            if !pto_jit::transpose8_f32(&blk, &mut out[at..], form.ld()) {
                return Err(outside(rt[r0] + ct[c0]));
            }
        }
    }
    Ok(())
}

/// `unpack` into an f32 tile whose rows are stored in runs of (a multiple of) `L`.
fn f32_unrows<const L: usize>(
    store: &mut [u8],
    rt: &[i64],
    ct: &[i64],
    v: &[f32],
    cols: usize,
) -> Result<(), Fault> {
    for (r, &ro) in rt.iter().enumerate() {
        let row = &v[r * cols..(r + 1) * cols];
        for (q, src) in row.chunks_exact(L).enumerate() {
            let o = ro + ct[q * L];
            let b = o as usize * 4;
            let dst = store.get_mut(b..b + 4 * L).ok_or_else(|| outside(o))?;
            pto_jit::f32_to_le(src, dst);
        }
    }
    Ok(())
}

/// Writes a row-major f32 matrix into the `rows x cols` corner of an f32 tile.
fn unpack(
    local: &mut Local,
    t: &Tile,
    rows: i64,
    cols: i64,
    v: &[f32],
    acc: &mut Accesses,
) -> Result<(), Fault> {
    let store = local.slice_mut(space(t), t.addr, t.bytes())?;
    let (rt, ct) = tables(t, rows.max(0), cols.max(0));
    let (rows, cols) = (rows.max(0) as usize, cols.max(0) as usize);
    let uniform = |l: usize| {
        cols.is_multiple_of(l) && (0..cols).step_by(l).all(|c| run_len(&ct[..c + l], c) == l)
    };
    if rows > 0 && uniform(16) {
        f32_unrows::<16>(store, &rt, &ct, v, cols)?;
    } else {
        let narrow = |src: &[f32], dst: &mut [u8]| {
            pto_jit::f32_to_le(src, dst);
        };
        unpack_runs(store, 4, (&rt, &ct), v, &narrow)?;
    }
    super::tile::record(acc, t, rows as i64, cols as i64, true);
    Ok(())
}

/// The same result as [`interpret`] (bit for bit: one FMA per k in k order
/// from the same start), through `pto_jit::matmul_f32` on packed operands.
pub fn native(p: &Plan<'_>, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    if !p.float {
        return native_int(p, local, acc);
    }
    if local.tf32 {
        return interpret(p, local, acc);
    }
    thread_local! {
        // packed A, B and C, reused: three fresh 64 KiB vectors per matmul
        // cost page faults (the allocator hands the memory back each time)
        static SCRATCH: std::cell::RefCell<[Vec<f32>; 3]> = Default::default();
    }
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        let [a, b, c] = &mut *s;
        native_with(p, local, acc, a, b, c)
    })
}

fn native_with(
    p: &Plan<'_>,
    local: &mut Local,
    acc: &mut Accesses,
    a: &mut Vec<f32>,
    b: &mut Vec<f32>,
    c: &mut Vec<f32>,
) -> Result<(), Fault> {
    let (m, k, n) = (p.m.max(0), p.k.max(0), p.n.max(0));
    let (rows_k, rows_n) = (Form::rows(k as usize), Form::rows(n as usize));
    // B in 16-column panels: the 16 columns a register block reads are
    // contiguous, not 4 * n bytes apart
    let panels = Form::panels(16, 16 * k as usize, 16);
    // an f32 A in another buffer than C is read where it lies: the kernels
    // broadcast its elements one at a time, so a copy bought nothing (it
    // took as long as B's transposing pack)
    let a_at = (p.a.elem == DType::F32 && space(p.a) != space(p.c))
        .then(|| lhs_tables(p.a, m, k))
        .flatten();
    let a_span = (space(p.a), p.a.addr, p.a.bytes());
    match &a_at {
        Some(_) => {
            local.slice(a_span.0, a_span.1, a_span.2)?;
            super::tile::record(acc, p.a, m, k, false);
        }
        None => pack(local, p.a, (m, k), acc, (a, rows_k))?,
    }
    pack(local, p.b, (k, n), acc, (b, panels))?;
    type Tables = Option<(Vec<usize>, Vec<usize>)>;
    fn lhs<'x>(at: &'x Tables, packed: &'x [f32], bytes: &'x [u8]) -> Lhs<'x> {
        match at {
            Some((rows, cols)) => Lhs::At { bytes, rows, cols },
            None => Lhs::Rows(packed),
        }
    }
    // C updated where it lies when the kernel can address it (NZ and
    // row-major accumulators) and it starts from zeros or from itself
    let zero = match p.start {
        None => Some(true),
        Some((t, false)) if t == p.c => Some(false),
        _ => None,
    };
    if let Some(zero) = zero {
        let c_span = (space(p.c), p.c.addr, p.c.bytes());
        let (a_bytes, store) = match &a_at {
            Some(_) => local
                .slice_and_mut(a_span, c_span)
                .ok_or_else(|| Fault::Msg("matmul operands in one buffer".into()))??,
            None => (&[][..], local.slice_mut(c_span.0, c_span.1, c_span.2)?),
        };
        if let Some((at, cf)) = form_of(p.c, (m, n), store.len() / 4) {
            let (mu, ku, nu) = (m as usize, k as usize, n as usize);
            let c = (&mut store[4 * at..], cf);
            pto_jit::matmul_f32_le(mu, ku, nu, lhs(&a_at, a, a_bytes), (b, panels), c, zero)
                .map_err(|e| Fault::Msg(e.to_string()))?;
            if !zero {
                super::tile::record(acc, p.c, m, n, false);
            }
            super::tile::record(acc, p.c, m, n, true);
            return Ok(());
        }
    }
    match p.start {
        None => {
            c.clear();
            c.resize((m * n) as usize, 0.0);
        }
        Some((t, false)) => pack(local, t, (m, n), acc, (c, rows_n))?,
        Some((t, true)) => {
            pack(local, t, (1, n), acc, (c, rows_n))?;
            let row = c.clone();
            c.clear();
            for _ in 0..m {
                c.extend_from_slice(&row);
            }
        }
    }
    let a_bytes = match &a_at {
        Some(_) => local.slice(a_span.0, a_span.1, a_span.2)?,
        None => &[][..],
    };
    let (mu, ku, nu) = (m as usize, k as usize, n as usize);
    pto_jit::matmul_f32_in(mu, ku, nu, lhs(&a_at, a, a_bytes), (b, panels), (c, rows_n))
        .map_err(|e| crate::exec::Fault::Msg(e.to_string()))?;
    unpack(local, p.c, m, n, c, acc)
}

/// The row and column offset tables (in elements, from the tile's address)
/// of the `rows x cols` corner of a tile, when they are all non-negative
/// and every element they address lies in the tile; `None` otherwise (the
/// operand is then packed, which reports an element outside the tile).
fn lhs_tables(t: &Tile, rows: i64, cols: i64) -> Option<(Vec<usize>, Vec<usize>)> {
    if rows <= 0 || cols <= 0 {
        return None;
    }
    let (rt, ct) = tables(t, rows, cols);
    let to = |v: Vec<i64>| -> Option<Vec<usize>> {
        v.into_iter().map(|o| usize::try_from(o).ok()).collect()
    };
    let (rt, ct) = (to(rt)?, to(ct)?);
    let last = rt.iter().max()?.checked_add(*ct.iter().max()?)?;
    (last < (t.bytes() / 4) as usize).then_some((rt, ct))
}

/// Where the `rows x cols` corner of an f32 tile lies as a matrix the kernel
/// addresses: the element index of `(0, 0)` and the form of the rest (its
/// rows a fixed stride apart, its columns contiguous or in panels of a power
/// of two of at least 16 columns, as in row-major and NZ tiles), when that
/// form fits the tile's `len` elements; `None` for any other layout.
fn form_of(t: &Tile, (rows, cols): (i64, i64), len: usize) -> Option<(usize, Form)> {
    if rows <= 0 || cols <= 0 || t.elem != DType::F32 {
        return None;
    }
    let (rt, ct) = tables(t, rows, cols);
    let (rows, cols) = (rows as usize, cols as usize);
    let at = usize::try_from(rt[0] + ct[0]).ok()?;
    let w = run_len(&ct, 0);
    let ld = match rt.get(1) {
        Some(r1) => usize::try_from(r1 - rt[0]).ok()?,
        None => w,
    };
    let form = if w == cols {
        Form::rows(ld)
    } else {
        let panel = usize::try_from(ct[w] - ct[0]).ok()?;
        Form::panels(w, panel, ld)
    };
    let linear = rt
        .iter()
        .enumerate()
        .all(|(i, &o)| o - rt[0] == (i * ld) as i64)
        && ct
            .iter()
            .enumerate()
            .all(|(j, &o)| o - ct[0] == form.at(0, j) as i64);
    let span = form.span(rows, cols)?;
    (linear && at.checked_add(span)? <= len).then_some((at, form))
}

/// An integer matmul through `pto_jit::matmul_i32_wrapping`: the operands
/// read as the interpreter reads them (sign- or zero-extended to i32), the
/// same wrapping sums (exact in any order), the same tiles recorded.
fn native_int(p: &Plan<'_>, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let (m, k, n) = (p.m.max(0), p.k.max(0), p.n.max(0));
    let a = pack_i32(local, p.a, m, k, acc)?;
    let b = pack_i32(local, p.b, k, n, acc)?;
    let mut c = match p.start {
        None => vec![0i32; (m * n) as usize],
        Some((t, false)) => pack_i32(local, t, m, n, acc)?,
        Some((t, true)) => pack_i32(local, t, 1, n, acc)?.repeat(m as usize),
    };
    pto_jit::matmul_i32_wrapping(m as usize, k as usize, n as usize, &a, &b, &mut c)
        .map_err(|e| Fault::Msg(e.to_string()))?;
    let d = p.c;
    let store = local.slice_mut(space(d), d.addr, d.bytes())?;
    let narrow = |src: &[i32], dst: &mut [u8]| {
        for (b, x) in dst.chunks_exact_mut(4).zip(src) {
            b.copy_from_slice(&x.to_le_bytes());
        }
    };
    let (rt, ct) = tables(d, m, n);
    unpack_runs(store, 4, (&rt, &ct), &c, &narrow)?;
    super::tile::record(acc, d, m, n, true);
    Ok(())
}

/// The `rows x cols` corner of an integer tile as row-major i32, each
/// element sign- or zero-extended as its type says.
fn pack_i32(
    local: &Local,
    t: &Tile,
    rows: i64,
    cols: i64,
    acc: &mut Accesses,
) -> Result<Vec<i32>, Fault> {
    let es = t.elem.bytes();
    let store = local.slice(space(t), t.addr, t.bytes())?;
    let (rt, ct) = tables(t, rows.max(0), cols.max(0));
    let mut out = vec![0i32; rt.len() * ct.len()];
    let widen = |src: &[u8], dst: &mut [i32]| crate::num::widen_i32(src, t.elem, dst);
    let form = Form::rows(ct.len());
    pack_runs(
        store,
        es,
        (&rt, &ct),
        rowwise(&rt, &ct),
        (&mut out, form),
        &widen,
    )?;
    super::tile::record(acc, t, rows, cols, false);
    Ok(out)
}

#[derive(Clone, Copy)]
enum Init {
    Zero,
    Acc,
    Bias,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::tile_ops::TileCall;
    use crate::value::{Space, Val};
    use pto_asm::ty::{BLayout, SLayout, TileLoc};
    use pto_isa_spec::ProfileId;

    /// The native integer matmul gives the interpreter's accumulator bits
    /// (wrapping sums over operands spanning their types' whole ranges) for
    /// i8, u8 x i8, i16 and i32 operands in row- and column-run layouts,
    /// from zero, from an accumulator tile and from a bias row.
    #[test]
    fn native_integer_matmul_gives_the_interpreters_bits() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for (ae, be) in [
            (DType::I8, DType::I8),
            (DType::U8, DType::I8),
            (DType::I16, DType::I16),
            (DType::I32, DType::I32),
        ] {
            for (a_sl, b_sl) in [
                (SLayout::RowMajor, SLayout::ColMajor),
                (SLayout::ColMajor, SLayout::RowMajor),
            ] {
                for op in [Opcode::TMatmul, Opcode::TMatmulAcc, Opcode::TMatmulBias] {
                    let (m, k, n) = (32i64, 64i64, 64i64);
                    let t = |loc, addr, rows, cols, elem, sl, bl, fractal| Tile {
                        loc,
                        addr,
                        elem,
                        rows,
                        cols,
                        v_row: rows,
                        v_col: cols,
                        blayout: bl,
                        slayout: sl,
                        fractal,
                        pad: 0,
                    };
                    let a = t(TileLoc::Left, 0, m, k, ae, a_sl, BLayout::RowMajor, 512);
                    let b = t(TileLoc::Right, 0, k, n, be, b_sl, BLayout::RowMajor, 512);
                    let c = t(
                        TileLoc::Acc,
                        0,
                        m,
                        n,
                        DType::I32,
                        SLayout::RowMajor,
                        BLayout::ColMajor,
                        1024,
                    );
                    let cin = Tile {
                        addr: 8192,
                        ..c.clone()
                    };
                    let bias = t(
                        TileLoc::Bias,
                        0,
                        1,
                        n,
                        DType::I32,
                        SLayout::NoneBox,
                        BLayout::RowMajor,
                        512,
                    );
                    let mut local = Local::new(ProfileId::A5.profile(), None);
                    for (space, len) in [
                        (Space::L0a, 1 << 14),
                        (Space::L0b, 1 << 14),
                        (Space::L0c, 1 << 15),
                        (Space::Bias, 1 << 9),
                    ] {
                        for x in local.slice_mut(space, 0, len).expect("fits") {
                            seed ^= seed << 13;
                            seed ^= seed >> 7;
                            seed ^= seed << 17;
                            *x = seed as u8;
                        }
                    }
                    let mut ins = match op {
                        Opcode::TMatmulAcc => vec![Val::Tile(Box::new(cin.clone()))],
                        _ => Vec::new(),
                    };
                    ins.push(Val::Tile(Box::new(a.clone())));
                    ins.push(Val::Tile(Box::new(b.clone())));
                    if op == Opcode::TMatmulBias {
                        ins.push(Val::Tile(Box::new(bias.clone())));
                    }
                    let call = TileCall {
                        op,
                        ins,
                        outs: vec![Val::Tile(Box::new(c.clone()))],
                        attrs: Default::default(),
                    };
                    let p = plan(&call).expect("plans");
                    assert!(native_ok(&p), "{ae:?} x {be:?} {op:?}");
                    let mut want = local.clone();
                    interpret(&p, &mut want, &mut Accesses::default()).expect("runs");
                    native(&p, &mut local, &mut Accesses::default()).expect("runs");
                    let bytes = c.bytes();
                    assert!(
                        local.slice(Space::L0c, 0, bytes).expect("c")
                            == want.slice(Space::L0c, 0, bytes).expect("c"),
                        "{ae:?} x {be:?} {op:?} A {a_sl:?} B {b_sl:?}"
                    );
                }
            }
        }
    }

    /// Row-major and NZ accumulators are matrices the kernel updates in
    /// place; a tile whose columns do not come in runs is not.
    #[test]
    fn form_of_finds_row_major_and_nz_tiles() {
        let t = |rows, cols, blayout, slayout, fractal| Tile {
            loc: TileLoc::Acc,
            addr: 0,
            elem: DType::F32,
            rows,
            cols,
            v_row: rows,
            v_col: cols,
            blayout,
            slayout,
            fractal,
            pad: 0,
        };
        let nz = t(32, 48, BLayout::ColMajor, SLayout::RowMajor, 1024);
        let len = 32 * 48;
        assert_eq!(
            form_of(&nz, (5, 37), len),
            Some((0, Form::panels(16, 16 * 32, 16)))
        );
        assert_eq!(form_of(&nz, (32, 48), len - 1), None, "too short");
        let rm = t(8, 40, BLayout::RowMajor, SLayout::NoneBox, 512);
        assert_eq!(form_of(&rm, (3, 33), 320), Some((0, Form::rows(40))));
        let zn = t(32, 48, BLayout::RowMajor, SLayout::ColMajor, 512);
        assert_eq!(form_of(&zn, (32, 48), len), None);
        let f16 = Tile {
            elem: DType::F16,
            ..nz
        };
        assert_eq!(form_of(&f16, (32, 48), len), None);
    }

    /// The native matmul (whose packing transposes column-run tiles 8 x 8
    /// and widens f16 with F16C, and packs B into 16-column panels) gives the
    /// interpreter's accumulator bits for f32 and f16 operands in row-run
    /// (ZZ) and column-run (ZN) layouts, for whole tiles and for valid
    /// regions that end inside a box and inside a panel.
    #[test]
    fn native_packing_gives_the_interpreters_bits_for_row_and_column_runs() {
        for elem in [DType::F32, DType::F16] {
            for ((a_sl, b_sl), (m, k, n), pad) in [
                (SLayout::RowMajor, SLayout::ColMajor),
                (SLayout::ColMajor, SLayout::RowMajor),
            ]
            .into_iter()
            .flat_map(|sl| [(sl, (32i64, 48i64, 64i64), 0), (sl, (5, 19, 37), 11)])
            {
                let t = |loc, rows: i64, cols: i64, elem, sl, fractal| Tile {
                    loc,
                    addr: 0,
                    elem,
                    rows: ((rows + pad) as u64).next_multiple_of(16) as i64,
                    cols: ((cols + pad) as u64).next_multiple_of(16) as i64,
                    v_row: rows,
                    v_col: cols,
                    blayout: BLayout::RowMajor,
                    slayout: sl,
                    fractal,
                    pad: 0,
                };
                let a = t(TileLoc::Left, m, k, elem, a_sl, 512);
                let b = t(TileLoc::Right, k, n, elem, b_sl, 512);
                let c = Tile {
                    blayout: BLayout::ColMajor,
                    ..t(TileLoc::Acc, m, n, DType::F32, SLayout::RowMajor, 1024)
                };
                let mut local = Local::new(ProfileId::A5.profile(), None);
                let mut seed = 0x2545_f491_4f6c_dd1du64;
                for (tile, space) in [(&a, Space::L0a), (&b, Space::L0b)] {
                    let es = tile.elem.bytes() as u64;
                    let bytes = local
                        .slice_mut(space, 0, (tile.rows * tile.cols) as u64 * es)
                        .expect("fits");
                    for ch in bytes.chunks_mut(es as usize) {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        let v = (seed >> 40) as f32 / (1u64 << 20) as f32 - 8.0;
                        crate::num::write(ch, tile.elem, Num::F(f64::from(v)));
                    }
                }
                // the accumulator starts as NaN bytes (a plain matmul must
                // not read it), the other start tile as 0.747 (0x3f3f3f3f)
                let l0c = local.slice_mut(Space::L0c, 0, 1 << 15).expect("l0c");
                l0c[..1 << 14].fill(0xff);
                l0c[1 << 14..].fill(0x3f);
                let cin = Tile {
                    addr: 1 << 14,
                    ..c.clone()
                };
                // a plain matmul (C written where it lies), then `.acc` from C
                // itself (updated where it lies) and from another tile
                let (a, b) = (Val::Tile(Box::new(a)), Val::Tile(Box::new(b)));
                for (op, from) in [
                    (Opcode::TMatmul, None),
                    (Opcode::TMatmulAcc, Some(&c)),
                    (Opcode::TMatmulAcc, Some(&cin)),
                ] {
                    let mut ins = vec![a.clone(), b.clone()];
                    if let Some(t) = from {
                        ins.insert(0, Val::Tile(Box::new(t.clone())));
                    }
                    let call = TileCall {
                        op,
                        ins,
                        outs: vec![Val::Tile(Box::new(c.clone()))],
                        attrs: Default::default(),
                    };
                    let p = plan(&call).expect("plans");
                    assert!(native_ok(&p));
                    let mut want = local.clone();
                    let on = || Accesses {
                        on: true,
                        list: Vec::new(),
                    };
                    let (mut want_acc, mut got_acc) = (on(), on());
                    interpret(&p, &mut want, &mut want_acc).expect("runs");
                    native(&p, &mut local, &mut got_acc).expect("runs");
                    let what = format!("{elem:?} A {a_sl:?} B {b_sl:?} {m}x{k}x{n} {op:?}");
                    let touched = |acc: &Accesses| -> std::collections::BTreeSet<_> {
                        acc.list
                            .iter()
                            .flat_map(|a| {
                                (a.addr..a.addr + a.len).map(move |b| (a.space, b, a.write))
                            })
                            .collect()
                    };
                    assert_eq!(touched(&got_acc), touched(&want_acc), "{what}");
                    let got = local.slice(Space::L0c, 0, 1 << 15).expect("c");
                    let valid = (m * n * 4) as usize;
                    assert!(got.iter().filter(|b| **b != 0xff).count() > valid / 2);
                    assert!(
                        got == want.slice(Space::L0c, 0, 1 << 15).expect("c"),
                        "{what}"
                    );
                }
            }
        }
    }
}
