use super::*;

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn read(m: &[u8], at: usize, n: usize) -> Vec<f32> {
    m[at..at + 4 * n]
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn binary_add_with_a_tail_and_strides() {
    let k = compile(&Region {
        op: Op::Add,
        lane: Lane::F32,
        operands: Operands::Binary,
    })
    .expect("compiles");
    // 3 rows x 7 cols (one vector + 3 tail), row stride 8 elements
    let mut mem = vec![0u8; 3 * 32 * 3];
    let a: Vec<f32> = (0..24).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..24).map(|i| 100.0 + i as f32).collect();
    mem[..96].copy_from_slice(&f32s(&a));
    mem[96..192].copy_from_slice(&f32s(&b));
    let args = EwArgs {
        dst: 192,
        dst_stride: 32,
        a: 0,
        a_stride: 32,
        b: 96,
        b_stride: 32,
        rows: 3,
        cols: 7,
        scalar: 0,
    };
    assert_eq!(k.call(&mut mem, &args), Status::Ok);
    for r in 0..3 {
        let got = read(&mem, 192 + r * 32, 8);
        for c in 0..7 {
            assert_eq!(got[c], a[r * 8 + c] + b[r * 8 + c]);
        }
        assert_eq!(got[7], 0.0, "column 7 is outside the domain and untouched");
    }
}

#[test]
fn out_of_bounds_and_hostile_arguments_return_a_status() {
    let k = compile(&Region {
        op: Op::Mul,
        lane: Lane::F32,
        operands: Operands::ScalarRight,
    })
    .expect("compiles");
    let mut mem = vec![0u8; 256];
    let good = EwArgs {
        dst: 0,
        dst_stride: 64,
        a: 128,
        a_stride: 64,
        rows: 2,
        cols: 16,
        scalar: 2.0f32.to_bits() as i64,
        ..EwArgs::default()
    };
    assert_eq!(k.call(&mut mem, &good), Status::Ok);
    for bad in [
        EwArgs { rows: 3, ..good },
        EwArgs { a: -64, ..good },
        EwArgs {
            a_stride: -64,
            ..good
        },
        EwArgs {
            cols: i64::MAX / 2,
            ..good
        },
        EwArgs {
            rows: 1 << 40,
            ..good
        },
        EwArgs { dst: 250, ..good },
    ] {
        let before = mem.clone();
        assert_eq!(k.call(&mut mem, &bad), Status::OutOfBounds, "{bad:?}");
        assert_eq!(mem, before, "nothing written on a rejected call");
    }
}

#[test]
fn every_float_op_matches_scalar_rust() {
    let xs: Vec<f32> = vec![
        1.5, -2.25, 0.0, -0.0, 3.0e38, -7.0, 0.1, 1e-40, 9.0, -1.0, 2.0, 0.5,
    ];
    let ys: Vec<f32> = vec![
        0.5,
        4.0,
        -0.0,
        0.0,
        3.0e38,
        7.0,
        0.2,
        1e-40,
        -9.0,
        f32::NAN,
        2.0,
        8.0,
    ];
    let n = xs.len();
    for op in [
        Op::Add,
        Op::Sub,
        Op::Mul,
        Op::Div,
        Op::Max,
        Op::Min,
        Op::Abs,
        Op::Neg,
        Op::Sqrt,
        Op::Rsqrt,
        Op::Recip,
        Op::Relu,
    ] {
        let unary = matches!(
            op,
            Op::Abs | Op::Neg | Op::Sqrt | Op::Rsqrt | Op::Recip | Op::Relu
        );
        let k = compile(&Region {
            op,
            lane: Lane::F32,
            operands: if unary {
                Operands::Unary
            } else {
                Operands::Binary
            },
        })
        .expect("compiles");
        let mut mem = vec![0u8; 3 * 4 * n];
        mem[..4 * n].copy_from_slice(&f32s(&xs));
        mem[4 * n..8 * n].copy_from_slice(&f32s(&ys));
        let args = EwArgs {
            dst: (8 * n) as i64,
            dst_stride: (4 * n) as i64,
            a: 0,
            a_stride: (4 * n) as i64,
            b: (4 * n) as i64,
            b_stride: (4 * n) as i64,
            rows: 1,
            cols: n as i64,
            scalar: 0,
        };
        assert_eq!(k.call(&mut mem, &args), Status::Ok);
        let got = read(&mem, 8 * n, n);
        for i in 0..n {
            let (x, y) = (xs[i], ys[i]);
            let want = match op {
                Op::Add => x + y,
                Op::Sub => x - y,
                Op::Mul => x * y,
                Op::Div => x / y,
                Op::Max => {
                    if x.is_nan() || y.is_nan() {
                        f32::NAN
                    } else if x == 0.0 && y == 0.0 {
                        if x.is_sign_negative() && y.is_sign_negative() {
                            -0.0
                        } else {
                            0.0
                        }
                    } else {
                        x.max(y)
                    }
                }
                Op::Min => {
                    if x.is_nan() || y.is_nan() {
                        f32::NAN
                    } else if x == 0.0 && y == 0.0 {
                        if x.is_sign_negative() || y.is_sign_negative() {
                            -0.0
                        } else {
                            0.0
                        }
                    } else {
                        x.min(y)
                    }
                }
                Op::Abs => x.abs(),
                Op::Neg => -x,
                Op::Sqrt => x.sqrt(),
                Op::Recip => 1.0 / x,
                Op::Rsqrt => (1.0 / f64::from(x).sqrt()) as f32,
                _ => {
                    if x.is_nan() || x > 0.0 {
                        x
                    } else {
                        0.0
                    }
                }
            };
            let same = (want.is_nan() && got[i].is_nan()) || want.to_bits() == got[i].to_bits();
            assert!(
                same,
                "{op:?}({x}, {y}): want {want} ({:#x}), got {} ({:#x})",
                want.to_bits(),
                got[i],
                got[i].to_bits()
            );
        }
    }
}

#[test]
fn integer_ops_wrap() {
    let k = compile(&Region {
        op: Op::Add,
        lane: Lane::I32,
        operands: Operands::ScalarLeft,
    })
    .expect("compiles");
    let vals: Vec<i32> = vec![i32::MAX, -5, 0, 7, i32::MIN];
    let mut mem: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    mem.extend(vec![0u8; 20]);
    let args = EwArgs {
        dst: 20,
        dst_stride: 20,
        a: 0,
        a_stride: 20,
        rows: 1,
        cols: 5,
        scalar: 1,
        ..EwArgs::default()
    };
    assert_eq!(k.call(&mut mem, &args), Status::Ok);
    let got: Vec<i32> = mem[20..40]
        .chunks(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(got, vec![i32::MIN, -4, 1, 8, i32::MIN + 1]);
    assert!(compile(&Region {
        op: Op::Div,
        lane: Lane::I32,
        operands: Operands::Binary
    })
    .is_err());
}

/// Distance in units in the last place between two f32 (same sign class).
fn ulps(a: f32, b: f32) -> u64 {
    if a == b || (a.is_nan() && b.is_nan()) {
        return 0;
    }
    let key = |x: f32| {
        let i = x.to_bits() as i32;
        if i < 0 {
            i64::from(i32::MIN) - i64::from(i)
        } else {
            i64::from(i)
        }
    };
    key(a).abs_diff(key(b))
}

#[test]
fn exp_is_within_its_ulp_bound_everywhere() {
    let k = compile(&Region {
        op: Op::Exp,
        lane: Lane::F32,
        operands: Operands::Unary,
    })
    .expect("compiles");
    // a dense sweep of [-104, 89] (normal, subnormal and overflowing results)
    // plus the special values; odd column count exercises the scalar tail
    let mut xs: Vec<f32> = (0..200_001)
        .map(|i| -104.0 + 193.0 * i as f32 / 200_000.0)
        .collect();
    xs.extend([
        0.0,
        -0.0,
        1e-30,
        -1e-30,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        88.72283,
        88.72284,
        -87.33655,
        -103.97208,
        -103.27893,
        f32::MAX,
        f32::MIN,
    ]);
    let n = xs.len();
    let cols = 13usize;
    let rows = n.div_ceil(cols);
    xs.resize(rows * cols, 1.0);
    let mut mem = f32s(&xs);
    mem.extend(vec![0u8; rows * cols * 4]);
    let args = EwArgs {
        dst: (rows * cols * 4) as i64,
        dst_stride: (cols * 4) as i64,
        a: 0,
        a_stride: (cols * 4) as i64,
        b: 0,
        b_stride: (cols * 4) as i64,
        rows: rows as i64,
        cols: cols as i64,
        scalar: 0,
    };
    assert_eq!(k.call(&mut mem, &args), Status::Ok);
    let got = read(&mem, rows * cols * 4, rows * cols);
    let mut worst = (0u64, 0f32);
    for (x, y) in xs.iter().zip(&got) {
        let want = (*x as f64).exp() as f32;
        let d = ulps(want, *y);
        if d > worst.0 {
            worst = (d, *x);
        }
    }
    eprintln!("exp: worst {} ulp at x = {}", worst.0, worst.1);
    assert!(
        worst.0 <= u64::from(EXP_ULP),
        "{} ulp at x = {}",
        worst.0,
        worst.1
    );
}

#[test]
fn abs_neg_relu_quiet_a_signaling_nan_as_the_interpreter_does() {
    // the interpreter reads f32 into f64, which sets the quiet bit and keeps
    // the payload; abs/neg/relu move a NaN's bits and must do the same
    let snan = f32::from_bits(0x7f80_d959);
    let nsnan = f32::from_bits(0xff80_0001);
    let xs = [snan, nsnan, 1.5, -2.0, f32::NAN, snan, -0.0, snan, nsnan];
    let n = xs.len();
    for (op, want) in [
        (Op::Abs, [0x7fc0_d959u32, 0x7fc0_0001]),
        (Op::Neg, [0xffc0_d959, 0x7fc0_0001]),
        (Op::Relu, [0x7fc0_d959, 0xffc0_0001]),
    ] {
        let k = compile(&Region {
            op,
            lane: Lane::F32,
            operands: Operands::Unary,
        })
        .expect("compiles");
        let w = (4 * n) as i64;
        let mut mem = f32s(&xs);
        mem.extend(vec![0u8; 4 * n]);
        let args = EwArgs {
            dst: w,
            dst_stride: w,
            a: 0,
            a_stride: w,
            b: 0,
            b_stride: w,
            rows: 1,
            cols: n as i64,
            scalar: 0,
        };
        assert_eq!(k.call(&mut mem, &args), Status::Ok);
        let got: Vec<u32> = read(&mem, 4 * n, n).iter().map(|v| v.to_bits()).collect();
        // lanes 0 and 1 in the vector body, 7 and 8 in the tail
        for (i, w) in [
            (0, want[0]),
            (1, want[1]),
            (5, want[0]),
            (7, want[0]),
            (8, want[1]),
        ] {
            assert_eq!(got[i], w, "{op:?} lane {i}: {:#x}", got[i]);
        }
    }
}

/// `call_rows` (one scalar per row, `trowexpand*`) equals calling the region
/// row by row with that row's scalar: the wide f32 add/sub/mul/div path, the
/// row-by-row path of other ops, in place and into another tile, with row
/// padding and a tail; wrong arguments give a status.
#[test]
fn call_rows_equals_one_call_per_row() {
    let (rows, cols, pitch) = (5i64, 37i64, 40i64);
    let n = (rows * pitch) as usize;
    let src: Vec<f32> = (0..n)
        .map(|i| match i % 13 {
            0 => f32::NAN,
            1 => -0.0,
            2 => f32::INFINITY,
            _ => (i as f32 * 0.37).sin() * 50.0,
        })
        .collect();
    let scalars: Vec<f32> = vec![1.5, -0.0, f32::NAN, 3.0e-39, -7.25];
    let bits: Vec<i64> = scalars.iter().map(|s| i64::from(s.to_bits())).collect();
    for op in [Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Max, Op::Min] {
        for operands in [Operands::ScalarRight, Operands::ScalarLeft] {
            let k = compile(&Region {
                op,
                lane: Lane::F32,
                operands,
            })
            .expect("compiles");
            for in_place in [false, true] {
                let base = vec![0u8; 8 * n];
                let mut one = base.clone();
                one[..4 * n].copy_from_slice(&f32s(&src));
                let mut all = one.clone();
                let dst = if in_place { 0 } else { 4 * n as i64 };
                let args = EwArgs {
                    dst,
                    dst_stride: pitch * 4,
                    a: 0,
                    a_stride: pitch * 4,
                    rows,
                    cols,
                    ..EwArgs::default()
                };
                for (r, b) in (0i64..).zip(&bits) {
                    let row = EwArgs {
                        dst: dst + r * pitch * 4,
                        a: r * pitch * 4,
                        rows: 1,
                        scalar: *b,
                        ..args
                    };
                    assert_eq!(k.call(&mut one, &row), Status::Ok);
                }
                assert_eq!(k.call_rows(&mut all, &args, &bits), Status::Ok);
                let same = one.chunks(4).zip(all.chunks(4)).all(|(x, y)| {
                    let (p, q) = (
                        f32::from_le_bytes([x[0], x[1], x[2], x[3]]),
                        f32::from_le_bytes([y[0], y[1], y[2], y[3]]),
                    );
                    p.to_bits() == q.to_bits() || p.is_nan() && q.is_nan()
                });
                assert!(same, "{op:?} {operands:?} in place {in_place}");
            }
        }
    }
    let k = compile(&Region {
        op: Op::Add,
        lane: Lane::F32,
        operands: Operands::ScalarRight,
    })
    .expect("compiles");
    let mut mem = vec![0u8; 4096];
    let args = EwArgs {
        dst_stride: 64,
        a_stride: 64,
        rows: 3,
        cols: 16,
        ..EwArgs::default()
    };
    // one scalar short
    assert_eq!(k.call_rows(&mut mem, &args, &[0, 0]), Status::Unknown);
    // rows past the buffer, and row addresses that overflow
    let far = EwArgs {
        dst: 4096 - 64,
        ..args
    };
    assert_eq!(k.call_rows(&mut mem, &far, &[0; 3]), Status::OutOfBounds);
    let huge = EwArgs {
        dst_stride: i64::MAX / 2,
        ..args
    };
    assert_eq!(k.call_rows(&mut mem, &huge, &[0; 3]), Status::OutOfBounds);
    // not a tile-scalar region
    let bin = compile(&Region {
        op: Op::Add,
        lane: Lane::F32,
        operands: Operands::Binary,
    })
    .expect("compiles");
    assert_eq!(bin.call_rows(&mut mem, &args, &[0; 3]), Status::Unknown);
}
