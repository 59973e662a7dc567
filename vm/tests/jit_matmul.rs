//! The native matrix region == the interpreter on random `tmatmul`,
//! `tmatmul.acc` (from C itself and from another tile) and `tmatmul.bias`:
//! shapes with every row, column and k remainder, f32/f16/bf16 and i8
//! operands, row-major, column-major and boxed (ZZ, ZN, NZ, NN) layouts for
//! every operand, valid regions smaller than the storage, values with
//! infinities and signed zeros. The accumulator's bytes and the accesses the
//! checker sees must match; a NaN result matches any NaN (operand order and
//! the host's default NaN decide a payload).

use proptest::prelude::*;
use pto_asm::ty::{BLayout, SLayout, TileLoc};
use pto_isa_spec::{DType, Opcode, ProfileId};
use pto_vm::exec::{matmul as mm, tile_ops::TileCall, Accesses};
use pto_vm::mem::Local;
use pto_vm::num::{write, Num};
use pto_vm::value::Tile;
use pto_vm::{Space, Val};
use std::collections::BTreeSet;

/// (block layout, box layout, fractal bytes): row-major, column-major, ZZ,
/// ZN, NZ, NN, and the accumulator's 16 x 16 NZ.
const LAYOUTS: [(BLayout, SLayout, u32); 7] = [
    (BLayout::RowMajor, SLayout::NoneBox, 512),
    (BLayout::ColMajor, SLayout::NoneBox, 512),
    (BLayout::RowMajor, SLayout::RowMajor, 512),
    (BLayout::RowMajor, SLayout::ColMajor, 512),
    (BLayout::ColMajor, SLayout::RowMajor, 512),
    (BLayout::ColMajor, SLayout::ColMajor, 512),
    (BLayout::ColMajor, SLayout::RowMajor, 1024),
];

#[derive(Clone, Copy, Debug)]
enum Start {
    Zero,
    AccSelf,
    AccOther,
    Bias,
}

#[derive(Debug, Clone)]
struct Case {
    mkn: (i64, i64, i64),
    pad: (i64, i64),
    elem: DType,
    layouts: [usize; 4],
    start: Start,
    seed: u64,
}

fn case() -> impl Strategy<Value = Case> {
    (
        (1i64..=40, 1i64..=40, 1i64..=40),
        (0i64..20, 0i64..20),
        prop_oneof![
            Just(DType::F32),
            Just(DType::F16),
            Just(DType::BF16),
            Just(DType::I8)
        ],
        [0usize..7, 0usize..7, 0usize..7, 0usize..7],
        prop_oneof![
            Just(Start::Zero),
            Just(Start::AccSelf),
            Just(Start::AccOther),
            Just(Start::Bias)
        ],
        any::<u64>(),
    )
        .prop_map(|(mkn, pad, elem, layouts, start, seed)| Case {
            mkn,
            pad,
            elem,
            layouts,
            start,
            seed,
        })
}

fn tile(loc: TileLoc, elem: DType, (rows, cols): (i64, i64), pad: i64, layout: usize) -> Tile {
    let (blayout, slayout, fractal) = LAYOUTS[layout];
    // the 16 x 16 NZ box holds 4-byte elements only
    let fractal = if fractal == 1024 && elem.bytes() != 4 {
        512
    } else {
        fractal
    };
    let up = |v: i64| (v + pad + 31) / 32 * 32;
    Tile {
        loc,
        addr: 0,
        elem,
        rows: up(rows),
        cols: up(cols),
        v_row: rows,
        v_col: cols,
        blayout,
        slayout,
        fractal,
        pad: 0,
    }
}

fn xorshift(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

/// Fills `len` bytes of `space` with `dt` values: small numbers with a
/// signed zero or an infinity now and then (floats), the full range (ints).
fn fill(local: &mut Local, space: Space, len: u64, dt: DType, seed: &mut u64) {
    let es = dt.bytes();
    let bytes = local.slice_mut(space, 0, len).expect("fits");
    for ch in bytes.chunks_mut(es) {
        let r = xorshift(seed);
        let v = if dt.is_float() {
            Num::F(match r % 64 {
                0 => f64::INFINITY,
                1 => f64::NEG_INFINITY,
                2 => -0.0,
                3 => 0.0,
                _ => ((r >> 20) % 4096) as f64 / 256.0 - 8.0,
            })
        } else {
            Num::I((r >> 20) as i64)
        };
        write(ch, dt, v);
    }
}

/// Every byte an access list touches, with its direction.
fn touched(acc: &Accesses) -> BTreeSet<(Space, u64, bool)> {
    acc.list
        .iter()
        .flat_map(|a| (a.addr..a.addr + a.len).map(move |b| (a.space, b, a.write)))
        .collect()
}

/// Whether two accumulators hold the same values: the same bytes, except
/// that an f32 NaN matches any NaN.
fn same(got: &[u8], want: &[u8], float: bool) -> Option<usize> {
    got.chunks_exact(4)
        .zip(want.chunks_exact(4))
        .position(|(g, w)| {
            let (g, w) = (
                u32::from_le_bytes(g.try_into().expect("4")),
                u32::from_le_bytes(w.try_into().expect("4")),
            );
            let nan = |x: u32| float && f32::from_bits(x).is_nan();
            g != w && !(nan(g) && nan(w))
        })
}

fn check(c: &Case) -> Result<(), TestCaseError> {
    let (m, k, n) = c.mkn;
    let acc_dt = if c.elem.is_float() {
        DType::F32
    } else {
        DType::I32
    };
    let a = tile(TileLoc::Left, c.elem, (m, k), c.pad.0, c.layouts[0]);
    let b = tile(TileLoc::Right, c.elem, (k, n), c.pad.1, c.layouts[1]);
    let cc = tile(TileLoc::Acc, acc_dt, (m, n), c.pad.0, c.layouts[2]);
    let cin = Tile {
        addr: 1 << 15,
        ..tile(TileLoc::Acc, acc_dt, (m, n), c.pad.1, c.layouts[3])
    };
    let bias = Tile {
        rows: 1,
        v_row: 1,
        ..tile(TileLoc::Bias, acc_dt, (1, n), 0, 0)
    };
    let mut local = Local::new(ProfileId::A5.profile(), None);
    let mut seed = c.seed | 1;
    fill(&mut local, Space::L0a, 1 << 14, c.elem, &mut seed);
    fill(&mut local, Space::L0b, 1 << 14, c.elem, &mut seed);
    fill(&mut local, Space::L0c, 1 << 16, acc_dt, &mut seed);
    fill(&mut local, Space::Bias, 256, acc_dt, &mut seed);
    let t = |t: &Tile| Val::Tile(Box::new(t.clone()));
    let (op, ins) = match c.start {
        Start::Zero => (Opcode::TMatmul, vec![t(&a), t(&b)]),
        Start::AccSelf => (Opcode::TMatmulAcc, vec![t(&cc), t(&a), t(&b)]),
        Start::AccOther => (Opcode::TMatmulAcc, vec![t(&cin), t(&a), t(&b)]),
        Start::Bias => (Opcode::TMatmulBias, vec![t(&a), t(&b), t(&bias)]),
    };
    let call = TileCall {
        op,
        ins,
        outs: vec![t(&cc)],
        attrs: Default::default(),
    };
    let p = mm::plan(&call).map_err(|e| TestCaseError::fail(format!("plan: {e:?}")))?;
    prop_assert!(mm::native_ok(&p));
    let on = || Accesses {
        on: true,
        list: Vec::new(),
    };
    let (mut want_acc, mut got_acc) = (on(), on());
    let mut want = local.clone();
    mm::interpret(&p, &mut want, &mut want_acc).expect("interprets");
    mm::native(&p, &mut local, &mut got_acc).expect("runs natively");
    prop_assert_eq!(touched(&got_acc), touched(&want_acc));
    let got = local.slice(Space::L0c, 0, 1 << 16).expect("l0c");
    let exp = want.slice(Space::L0c, 0, 1 << 16).expect("l0c");
    if let Some(i) = same(got, exp, c.elem.is_float()) {
        return Err(TestCaseError::fail(format!(
            "L0C byte {}: native {:02x?}, interpreter {:02x?}",
            4 * i,
            &got[4 * i..4 * i + 4],
            &exp[4 * i..4 * i + 4]
        )));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(192)
    ))]

    #[test]
    fn native_matmul_equals_the_interpreter(c in case()) {
        check(&c)?;
    }
}
