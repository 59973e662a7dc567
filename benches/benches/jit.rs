//! Interpreter vs JIT on the same work, measured in one run:
//! one tile elementwise op (TADD, TMUL, TMULS, TEXP) on 64x64 and 128x128 f32 tiles,
//! a fused chain (TSUB, TEXP, TMUL; and TSUB, TMUL, TADD without exp)
//! against the same ops one by one,
//! TROWSUM, TCVT f32 -> f16 and f16 TADD/TMUL/TEXP, TMATMUL at 64^3 and 128^3,
//! the op alone (`exec`) and whole kernels through the machine (`kernel`),
//! plus JIT compile time per region. `benches/report.py` turns the results
//! into BENCHMARKS.md.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pto_asm::ty::{BLayout, SLayout, TileLoc};
use pto_isa_spec::{DType, ProfileId};
use pto_jit::{compile, EwArgs, Lane, Op, Operands, Region};
use pto_vm::exec::{tile, Accesses};
use pto_vm::mem::Local;
use pto_vm::program::EwOp;
use pto_vm::value::Tile;
use pto_vm::{
    load_text, run_kernel, run_kernel_reading_into, Arg, CheckMode, Config, JitMode, Kernel,
    ReadBack,
};

fn tile_at(addr: u64, n: i64) -> Tile {
    Tile {
        loc: TileLoc::Vec,
        addr,
        elem: DType::F32,
        rows: n,
        cols: n,
        v_row: n,
        v_col: n,
        blayout: BLayout::RowMajor,
        slayout: SLayout::NoneBox,
        fractal: 512,
        pad: 0,
    }
}

fn ops(c: &mut Criterion) {
    for n in [64i64, 128] {
        let bytes = (n * n * 4) as u64;
        let mut local = Local::new(ProfileId::A5.profile(), None);
        let (a, b, d) = (tile_at(0, n), tile_at(bytes, n), tile_at(2 * bytes, n));
        for (name, ew, op, operands) in [
            ("tadd", EwOp::Add, Op::Add, Operands::Binary),
            ("tmul", EwOp::Mul, Op::Mul, Operands::Binary),
            ("tmuls", EwOp::Mul, Op::Mul, Operands::ScalarRight),
            ("texp", EwOp::Exp, Op::Exp, Operands::Unary),
        ] {
            let mut g = c.benchmark_group(format!("exec/{name}/{n}x{n}/f32"));
            g.throughput(Throughput::Elements((n * n) as u64));
            g.sample_size(20);
            g.bench_function("interp", |bch| {
                bch.iter(|| {
                    let mut acc = Accesses::default();
                    let r = if operands == Operands::Binary {
                        tile::tew(&mut local, ew, &a, Some(&b), &d, &mut acc)
                    } else if operands == Operands::Unary {
                        tile::tew(&mut local, ew, &a, None, &d, &mut acc)
                    } else {
                        tile::tews(
                            &mut local,
                            ew,
                            &a,
                            pto_vm::num::Num::F(1.5),
                            false,
                            &d,
                            &mut acc,
                        )
                    };
                    black_box(r).expect("runs")
                })
            });
            let code = compile(&Region {
                op,
                lane: Lane::F32,
                operands,
            })
            .expect("compiles");
            let args = EwArgs {
                dst: d.addr as i64,
                dst_stride: n * 4,
                a: a.addr as i64,
                a_stride: n * 4,
                b: b.addr as i64,
                b_stride: n * 4,
                rows: n,
                cols: n,
                scalar: 1.5f32.to_bits() as i64,
            };
            let size = local.size(pto_vm::Space::Ub);
            g.bench_function("jit", |bch| {
                bch.iter(|| {
                    let ub = local.slice_mut(pto_vm::Space::Ub, 0, size).expect("ub");
                    black_box(code.call(ub, &args))
                })
            });
            g.finish();
        }
    }
    let mut g = c.benchmark_group("compile");
    g.sample_size(10);
    g.bench_function("region/tadd/f32", |bch| {
        bch.iter(|| {
            compile(&Region {
                op: Op::Add,
                lane: Lane::F32,
                operands: Operands::Binary,
            })
            .expect("compiles")
        })
    });
    g.finish();
}

/// The chain `t = a - b; t = exp(t); d = t * c` on n x n f32 tiles: the
/// interpreter op by op, the single-op regions one by one, and one fused
/// chain (`pto_jit::chain`: one pass, t kept in a register between the ops).
fn chains(c: &mut Criterion) {
    use pto_jit::chain::{self, Chain, ChainArgs, ChainOp};
    for n in [64i64, 128] {
        let bytes = (n * n * 4) as u64;
        // five 128x128 f32 tiles need more than A5's 256 KiB of UB
        let mut local = Local::new(ProfileId::A5.profile(), Some(5 * bytes as usize));
        let tiles: Vec<Tile> = (0..5).map(|k| tile_at(k * bytes, n)).collect();
        let (a, b, cc, t, d) = (&tiles[0], &tiles[1], &tiles[2], &tiles[3], &tiles[4]);
        {
            let ub = local
                .slice_mut(pto_vm::Space::Ub, 0, 3 * bytes)
                .expect("ub");
            for (i, w) in ub.chunks_mut(4).enumerate() {
                let x = ((i % 97) as f32 - 48.0) / 16.0;
                w.copy_from_slice(&x.to_le_bytes());
            }
        }
        let mut g = c.benchmark_group(format!("exec/chain_sub_exp_mul/{n}x{n}/f32"));
        g.throughput(Throughput::Elements((n * n) as u64));
        g.sample_size(20);
        g.bench_function("interp", |bch| {
            bch.iter(|| {
                let mut acc = Accesses::default();
                tile::tew(&mut local, EwOp::Sub, a, Some(b), t, &mut acc).expect("runs");
                tile::tew(&mut local, EwOp::Exp, t, None, t, &mut acc).expect("runs");
                black_box(tile::tew(&mut local, EwOp::Mul, t, Some(cc), d, &mut acc)).expect("runs")
            })
        });
        let region = |op, operands| {
            compile(&Region {
                op,
                lane: Lane::F32,
                operands,
            })
            .expect("compiles")
        };
        let (sub, exp, mul) = (
            region(Op::Sub, Operands::Binary),
            region(Op::Exp, Operands::Unary),
            region(Op::Mul, Operands::Binary),
        );
        let ew = |dst: &Tile, x: &Tile, y: &Tile| EwArgs {
            dst: dst.addr as i64,
            dst_stride: n * 4,
            a: x.addr as i64,
            a_stride: n * 4,
            b: y.addr as i64,
            b_stride: n * 4,
            rows: n,
            cols: n,
            scalar: 0,
        };
        let (sa, ea, ma) = (ew(t, a, b), ew(t, t, t), ew(d, t, cc));
        let size = local.size(pto_vm::Space::Ub);
        g.bench_function("jit", |bch| {
            bch.iter(|| {
                let ub = local.slice_mut(pto_vm::Space::Ub, 0, size).expect("ub");
                sub.call(ub, &sa);
                exp.call(ub, &ea);
                black_box(mul.call(ub, &ma))
            })
        });
        let op = |op, operands, a, b, dst| ChainOp {
            op,
            operands,
            a,
            b,
            dst,
        };
        let fused = chain::compile(&Chain {
            lane: Lane::F32,
            ops: vec![
                op(Op::Sub, Operands::Binary, 0, 1, 3),
                op(Op::Exp, Operands::Unary, 3, 3, 3),
                op(Op::Mul, Operands::Binary, 3, 2, 4),
            ],
            slots: 5,
        })
        .expect("compiles");
        let args = ChainArgs {
            tiles: tiles.iter().map(|x| (x.addr as i64, n * 4)).collect(),
            scalars: vec![0; 3],
            rows: n,
            cols: n,
        };
        g.bench_function("fused", |bch| {
            bch.iter(|| {
                let ub = local.slice_mut(pto_vm::Space::Ub, 0, size).expect("ub");
                black_box(fused.call(ub, &args))
            })
        });
        // the same chain as one Cranelift loop (its exp on 4 lanes), and in
        // parts with other block sizes (0: one block, the whole domain)
        let one_loop = chain::compile_fused(&fused.chain).expect("compiles");
        g.bench_function("fused_one_loop", |bch| {
            bch.iter(|| {
                let ub = local.slice_mut(pto_vm::Space::Ub, 0, size).expect("ub");
                black_box(one_loop.call(ub, &args))
            })
        });
        if fused.in_parts() {
            for block in [1024i64, 0] {
                g.bench_function(format!("fused_block{block}"), |bch| {
                    let block = if block == 0 { i64::MAX } else { block };
                    bch.iter(|| {
                        let ub = local.slice_mut(pto_vm::Space::Ub, 0, size).expect("ub");
                        black_box(fused.call_blocked(ub, &args, block))
                    })
                });
            }
        }
        g.finish();
        // a chain without exp, `t = a - b; t = t * c; d = t + a`: one loop
        // against the ops one by one
        let mut g = c.benchmark_group(format!("exec/chain_sub_mul_add/{n}x{n}/f32"));
        g.throughput(Throughput::Elements((n * n) as u64));
        g.sample_size(20);
        let add = region(Op::Add, Operands::Binary);
        let (m2, a2) = (ew(t, t, cc), ew(d, t, a));
        g.bench_function("jit", |bch| {
            bch.iter(|| {
                let ub = local.slice_mut(pto_vm::Space::Ub, 0, size).expect("ub");
                sub.call(ub, &sa);
                mul.call(ub, &m2);
                black_box(add.call(ub, &a2))
            })
        });
        let plain = chain::compile(&Chain {
            lane: Lane::F32,
            ops: vec![
                op(Op::Sub, Operands::Binary, 0, 1, 3),
                op(Op::Mul, Operands::Binary, 3, 2, 3),
                op(Op::Add, Operands::Binary, 3, 0, 4),
            ],
            slots: 5,
        })
        .expect("compiles");
        g.bench_function("fused", |bch| {
            bch.iter(|| {
                let ub = local.slice_mut(pto_vm::Space::Ub, 0, size).expect("ub");
                black_box(plain.call(ub, &args))
            })
        });
        g.finish();
    }
}

/// TROWSUM (f32 rows into an Nx1 col-major tile), TCVT f32 -> f16 and f16
/// TADD/TMUL/TEXP on 64x64 and 128x128 tiles: interpreter vs compiled region.
fn breadth(c: &mut Criterion) {
    use pto_vm::exec::{convert, reduce, tile_ops::TileCall};
    use pto_vm::Val;
    for n in [64i64, 128] {
        let f32_bytes = (n * n * 4) as u64;
        let typed = |addr: u64, elem: DType| Tile {
            elem,
            ..tile_at(addr, n)
        };
        let mut local = Local::new(ProfileId::A5.profile(), None);
        let size = local.size(pto_vm::Space::Ub);
        {
            // values of every sign and size, the same for each tier
            let ub = local
                .slice_mut(pto_vm::Space::Ub, 0, 2 * f32_bytes)
                .expect("ub");
            for (i, ch) in ub.chunks_mut(4).enumerate() {
                ch.copy_from_slice(&((i % 97) as f32 * 0.37 - 17.0).to_le_bytes());
            }
        }
        let call = |op, src: Tile, dst: Tile| TileCall {
            op,
            ins: vec![Val::Tile(Box::new(src))],
            outs: vec![Val::Tile(Box::new(dst))],
            attrs: Default::default(),
        };
        // trowsum: n x n f32 -> n x 1 col-major
        let src = typed(0, DType::F32);
        let col = Tile {
            cols: 1,
            v_col: 1,
            blayout: BLayout::ColMajor,
            ..typed(2 * f32_bytes, DType::F32)
        };
        let rs = call(pto_isa_spec::Opcode::TRowSum, src.clone(), col);
        let mut g = c.benchmark_group(format!("exec/trowsum/{n}x{n}/f32"));
        g.throughput(Throughput::Elements((n * n) as u64));
        g.sample_size(20);
        g.bench_function("interp", |bch| {
            bch.iter(|| {
                black_box(reduce::run(&rs, &mut local, &mut Accesses::default())).expect("runs")
            })
        });
        let code = pto_jit::compile_row(&pto_jit::RowRed {
            op: pto_jit::RedOp::Sum,
            lane: pto_jit::RedLane::F32,
        })
        .expect("compiles");
        let args = pto_jit::RowArgs {
            dst: (2 * f32_bytes) as i64,
            dst_stride: 4,
            src: 0,
            src_stride: n * 4,
            rows: n,
            cols: n,
        };
        g.bench_function("jit", |bch| {
            bch.iter(|| {
                let ub = local.slice_mut(pto_vm::Space::Ub, 0, size).expect("ub");
                black_box(code.call(ub, &args))
            })
        });
        g.finish();
        // tcvt f32 -> f16
        let half = typed(2 * f32_bytes, DType::F16);
        let cv = call(pto_isa_spec::Opcode::TCvt, src.clone(), half.clone());
        let mut g = c.benchmark_group(format!("exec/tcvt/{n}x{n}/f32-f16"));
        g.throughput(Throughput::Elements((n * n) as u64));
        g.sample_size(20);
        g.bench_function("interp", |bch| {
            bch.iter(|| {
                black_box(convert::run(&cv, &mut local, &mut Accesses::default())).expect("runs")
            })
        });
        let code = pto_jit::compile_cvt(&pto_jit::Cvt {
            from: Lane::F32,
            to: Lane::F16,
        })
        .expect("compiles");
        let args = EwArgs {
            dst: half.addr as i64,
            dst_stride: n * 2,
            a: 0,
            a_stride: n * 4,
            rows: n,
            cols: n,
            ..EwArgs::default()
        };
        g.bench_function("jit", |bch| {
            bch.iter(|| {
                let ub = local.slice_mut(pto_vm::Space::Ub, 0, size).expect("ub");
                black_box(code.call(ub, &args))
            })
        });
        g.finish();
        // f16 tadd / tmul on the converted tile
        let (a, d) = (half.clone(), typed(3 * f32_bytes, DType::F16));
        for (name, ew, op) in [
            ("tadd", EwOp::Add, Op::Add),
            ("tmul", EwOp::Mul, Op::Mul),
            ("texp", EwOp::Exp, Op::Exp),
        ] {
            let unary = op == Op::Exp;
            let mut g = c.benchmark_group(format!("exec/{name}/{n}x{n}/f16"));
            g.throughput(Throughput::Elements((n * n) as u64));
            g.sample_size(20);
            g.bench_function("interp", |bch| {
                bch.iter(|| {
                    let mut acc = Accesses::default();
                    let b = if unary { None } else { Some(&a) };
                    black_box(tile::tew(&mut local, ew, &a, b, &d, &mut acc)).expect("runs")
                })
            });
            let code = compile(&Region {
                op,
                lane: Lane::F16,
                operands: if unary {
                    Operands::Unary
                } else {
                    Operands::Binary
                },
            })
            .expect("compiles");
            let args = EwArgs {
                dst: d.addr as i64,
                dst_stride: n * 2,
                a: a.addr as i64,
                a_stride: n * 2,
                b: a.addr as i64,
                b_stride: n * 2,
                rows: n,
                cols: n,
                scalar: 0,
            };
            g.bench_function("jit", |bch| {
                bch.iter(|| {
                    let ub = local.slice_mut(pto_vm::Space::Ub, 0, size).expect("ub");
                    black_box(code.call(ub, &args))
                })
            });
            g.finish();
        }
    }
}

/// The regions added for breadth (issue #7), 64x64 only: TCOLSUM f32,
/// TPOW f32 (tile ^ tile, bases in (0, 8], exponents in [-4, 4]) and TLOG
/// f16, interpreter against the compiled region on the same UB.
fn breadth_more(c: &mut Criterion) {
    use pto_vm::exec::{irregular, reduce, tile_ops::TileCall};
    use pto_vm::Val;
    let n = 64i64;
    let f32_bytes = (n * n * 4) as u64;
    let mut local = Local::new(ProfileId::A5.profile(), None);
    let size = local.size(pto_vm::Space::Ub);
    {
        let ub = local
            .slice_mut(pto_vm::Space::Ub, 0, 2 * f32_bytes)
            .expect("ub");
        for (i, ch) in ub.chunks_mut(4).enumerate() {
            let v = if i < (n * n) as usize {
                (i % 97) as f32 * 0.08 + 0.05
            } else {
                (i % 89) as f32 * 0.09 - 4.0
            };
            ch.copy_from_slice(&v.to_le_bytes());
        }
    }
    let (a, b, d) = (
        tile_at(0, n),
        tile_at(f32_bytes, n),
        tile_at(2 * f32_bytes, n),
    );
    let tc = |op, ins: Vec<Tile>, dst: Tile| TileCall {
        op,
        ins: ins.into_iter().map(|t| Val::Tile(Box::new(t))).collect(),
        outs: vec![Val::Tile(Box::new(dst))],
        attrs: Default::default(),
    };
    // tcolsum: n x n -> 1 x n (row 0 of a row-major tile)
    let row = Tile {
        rows: 1,
        v_row: 1,
        ..d.clone()
    };
    let cs = tc(pto_isa_spec::Opcode::TColSum, vec![a.clone()], row);
    let mut g = c.benchmark_group(format!("breadth/tcolsum/{n}x{n}/f32"));
    g.throughput(Throughput::Elements((n * n) as u64));
    g.sample_size(20);
    g.bench_function("interp", |bch| {
        bch.iter(|| {
            black_box(reduce::run(&cs, &mut local, &mut Accesses::default())).expect("runs")
        })
    });
    let code = pto_jit::compile_col(&pto_jit::RowRed {
        op: pto_jit::RedOp::Sum,
        lane: pto_jit::RedLane::F32,
    })
    .expect("compiles");
    let args = pto_jit::RowArgs {
        dst: d.addr as i64,
        dst_stride: 4,
        src: 0,
        src_stride: n * 4,
        rows: n,
        cols: n,
    };
    g.bench_function("jit", |bch| {
        bch.iter(|| {
            let ub = local.slice_mut(pto_vm::Space::Ub, 0, size).expect("ub");
            black_box(code.call(ub, &args))
        })
    });
    g.finish();
    // tpow: a ^ b
    let pw = tc(
        pto_isa_spec::Opcode::TPow,
        vec![a.clone(), b.clone()],
        d.clone(),
    );
    let mut g = c.benchmark_group(format!("breadth/tpow/{n}x{n}/f32"));
    g.throughput(Throughput::Elements((n * n) as u64));
    g.sample_size(20);
    g.bench_function("interp", |bch| {
        bch.iter(|| {
            black_box(irregular::run(&pw, &mut local, &mut Accesses::default())).expect("runs")
        })
    });
    let code = compile(&Region {
        op: Op::Pow,
        lane: Lane::F32,
        operands: Operands::Binary,
    })
    .expect("compiles");
    let ew = EwArgs {
        dst: d.addr as i64,
        dst_stride: n * 4,
        a: 0,
        a_stride: n * 4,
        b: b.addr as i64,
        b_stride: n * 4,
        rows: n,
        cols: n,
        scalar: 0,
    };
    g.bench_function("jit", |bch| {
        bch.iter(|| {
            let ub = local.slice_mut(pto_vm::Space::Ub, 0, size).expect("ub");
            black_box(code.call(ub, &ew))
        })
    });
    g.finish();
    // f16 tlog: the bases as f16 (positive)
    let h = Tile {
        elem: DType::F16,
        ..tile_at(3 * f32_bytes, n)
    };
    {
        let ub = local
            .slice_mut(pto_vm::Space::Ub, h.addr, (n * n * 2) as u64)
            .expect("ub");
        for (i, ch) in ub.chunks_mut(2).enumerate() {
            let v = half::f16::from_f32((i % 97) as f32 * 0.08 + 0.05);
            ch.copy_from_slice(&v.to_le_bytes());
        }
    }
    let hd = Tile {
        addr: 3 * f32_bytes + (n * n * 2) as u64,
        ..h.clone()
    };
    let mut g = c.benchmark_group(format!("breadth/tlog/{n}x{n}/f16"));
    g.throughput(Throughput::Elements((n * n) as u64));
    g.sample_size(20);
    g.bench_function("interp", |bch| {
        bch.iter(|| {
            let mut acc = Accesses::default();
            black_box(tile::tew(&mut local, EwOp::Log, &h, None, &hd, &mut acc)).expect("runs")
        })
    });
    let code = compile(&Region {
        op: Op::Log,
        lane: Lane::F16,
        operands: Operands::Unary,
    })
    .expect("compiles");
    let ew = EwArgs {
        dst: hd.addr as i64,
        dst_stride: n * 2,
        a: h.addr as i64,
        a_stride: n * 2,
        b: h.addr as i64,
        b_stride: n * 2,
        rows: n,
        cols: n,
        scalar: 0,
    };
    g.bench_function("jit", |bch| {
        bch.iter(|| {
            let ub = local.slice_mut(pto_vm::Space::Ub, 0, size).expect("ub");
            black_box(code.call(ub, &ew))
        })
    });
    g.finish();
}

/// A fused f16 chain (TSUB, TEXP, TMUL) on 64x64 tiles: the interpreter op
/// by op against the fused region.
fn breadth_half_chain(c: &mut Criterion) {
    use pto_jit::chain::{self, Chain, ChainArgs, ChainOp};
    let n = 64i64;
    let bytes = (n * n * 2) as u64;
    let mut local = Local::new(ProfileId::A5.profile(), None);
    let tiles: Vec<Tile> = (0..5)
        .map(|k| Tile {
            elem: DType::F16,
            ..tile_at(k * bytes, n)
        })
        .collect();
    let (a, b, cc, t, d) = (&tiles[0], &tiles[1], &tiles[2], &tiles[3], &tiles[4]);
    {
        let ub = local
            .slice_mut(pto_vm::Space::Ub, 0, 3 * bytes)
            .expect("ub");
        for (i, w) in ub.chunks_mut(2).enumerate() {
            let x = half::f16::from_f32(((i % 97) as f32 - 48.0) / 16.0);
            w.copy_from_slice(&x.to_le_bytes());
        }
    }
    let mut g = c.benchmark_group(format!("breadth/chain_sub_exp_mul/{n}x{n}/f16"));
    g.throughput(Throughput::Elements((n * n) as u64));
    g.sample_size(20);
    g.bench_function("interp", |bch| {
        bch.iter(|| {
            let mut acc = Accesses::default();
            tile::tew(&mut local, EwOp::Sub, a, Some(b), t, &mut acc).expect("runs");
            tile::tew(&mut local, EwOp::Exp, t, None, t, &mut acc).expect("runs");
            black_box(tile::tew(&mut local, EwOp::Mul, t, Some(cc), d, &mut acc)).expect("runs")
        })
    });
    let op = |op, operands, a, b, dst| ChainOp {
        op,
        operands,
        a,
        b,
        dst,
    };
    let fused = chain::compile(&Chain {
        lane: Lane::F16,
        ops: vec![
            op(Op::Sub, Operands::Binary, 0, 1, 3),
            op(Op::Exp, Operands::Unary, 3, 3, 3),
            op(Op::Mul, Operands::Binary, 3, 2, 4),
        ],
        slots: 5,
    })
    .expect("compiles");
    let args = ChainArgs {
        tiles: tiles.iter().map(|x| (x.addr as i64, n * 2)).collect(),
        scalars: vec![0; 3],
        rows: n,
        cols: n,
    };
    let size = local.size(pto_vm::Space::Ub);
    g.bench_function("fused", |bch| {
        bch.iter(|| {
            let ub = local.slice_mut(pto_vm::Space::Ub, 0, size).expect("ub");
            black_box(fused.call(ub, &args))
        })
    });
    // the old body: one Cranelift loop, the exp inside it
    let one_loop = chain::compile_fused(&fused.chain).expect("compiles");
    g.bench_function("fused_one_loop", |bch| {
        bch.iter(|| {
            let ub = local.slice_mut(pto_vm::Space::Ub, 0, size).expect("ub");
            black_box(one_loop.call(ub, &args))
        })
    });
    g.finish();
    // without exp: `t = a - b; t = t * c; d = t + a`
    let mut g = c.benchmark_group(format!("breadth/chain_sub_mul_add/{n}x{n}/f16"));
    g.throughput(Throughput::Elements((n * n) as u64));
    g.sample_size(20);
    let plain = chain::compile(&Chain {
        lane: Lane::F16,
        ops: vec![
            op(Op::Sub, Operands::Binary, 0, 1, 3),
            op(Op::Mul, Operands::Binary, 3, 2, 3),
            op(Op::Add, Operands::Binary, 3, 0, 4),
        ],
        slots: 5,
    })
    .expect("compiles");
    g.bench_function("fused", |bch| {
        bch.iter(|| {
            let ub = local.slice_mut(pto_vm::Space::Ub, 0, size).expect("ub");
            black_box(plain.call(ub, &args))
        })
    });
    g.finish();
}

/// TMATMUL 64^3 and 128^3 through the interpreter and the native matrix
/// region, f32 and f16 inputs (A in a ZZ left tile, B in a ZN right tile, C in
/// an NZ acc tile, as on a2a3), plus the bare kernel on packed operands
/// (A row-major, B and C in 16-column panels, as the region runs it).
fn matmul(c: &mut Criterion) {
    use pto_vm::exec::{matmul as mm, tile_ops::TileCall};
    use pto_vm::Val;
    for (n, dt) in [
        (64i64, DType::F32),
        (64, DType::F16),
        (128, DType::F32),
        (128, DType::F16),
        (64, DType::I8),
        (128, DType::I8),
    ] {
        let es = dt.bytes() as u64;
        let acc_dt = if dt.is_float() {
            DType::F32
        } else {
            DType::I32
        };
        let t = |loc, addr, elem, bl, sl, fractal| Tile {
            loc,
            addr,
            elem,
            rows: n,
            cols: n,
            v_row: n,
            v_col: n,
            blayout: bl,
            slayout: sl,
            fractal,
            pad: 0,
        };
        let a = t(
            TileLoc::Left,
            0,
            dt,
            BLayout::RowMajor,
            SLayout::RowMajor,
            512,
        );
        let b = t(
            TileLoc::Right,
            0,
            dt,
            BLayout::RowMajor,
            SLayout::ColMajor,
            512,
        );
        let cc = t(
            TileLoc::Acc,
            0,
            acc_dt,
            BLayout::ColMajor,
            SLayout::RowMajor,
            1024,
        );
        let mut local = Local::new(ProfileId::A5.profile(), None);
        // small integers: exact in f16 and in any summation order
        for (tile, space) in [(&a, pto_vm::Space::L0a), (&b, pto_vm::Space::L0b)] {
            let bytes = local
                .slice_mut(space, 0, (n * n) as u64 * es)
                .expect("fits");
            for (i, ch) in bytes.chunks_mut(es as usize).enumerate() {
                let v = ((i * 7) % 5) as i64 - 2;
                let x = if dt.is_float() {
                    pto_vm::num::Num::F(v as f64)
                } else {
                    pto_vm::num::Num::I(v)
                };
                pto_vm::num::write(ch, tile.elem, x);
            }
        }
        let call = TileCall {
            op: pto_isa_spec::Opcode::TMatmul,
            ins: vec![
                Val::Tile(Box::new(a.clone())),
                Val::Tile(Box::new(b.clone())),
            ],
            outs: vec![Val::Tile(Box::new(cc.clone()))],
            attrs: Default::default(),
        };
        let mut g = c.benchmark_group(format!("exec/tmatmul/{n}x{n}x{n}/{dt}"));
        g.throughput(Throughput::Elements((2 * n * n * n) as u64));
        g.sample_size(10);
        g.bench_function("interp", |bch| {
            bch.iter(|| {
                let mut acc = Accesses::default();
                black_box(mm::run(&call, &mut local, &mut acc)).expect("runs")
            })
        });
        g.bench_function("jit", |bch| {
            bch.iter(|| {
                let mut acc = Accesses::default();
                let p = mm::plan(&call).expect("plan");
                black_box(mm::native(&p, &mut local, &mut acc)).expect("runs")
            })
        });
        if dt == DType::F32 {
            let (pa, pb) = (
                vec![1.5f32; (n * n) as usize],
                vec![0.5f32; (n * n) as usize],
            );
            let mut pc = vec![0f32; (n * n) as usize];
            // B in 16-column panels and C in NZ's, as the region hands them over
            let nn = n as usize;
            let panels = pto_jit::Form::panels(16, 16 * nn, 16);
            g.bench_function("kernel", |bch| {
                bch.iter(|| {
                    pto_jit::matmul_f32_in(
                        nn,
                        nn,
                        nn,
                        pto_jit::Lhs::Rows(&pa),
                        (&pb, panels),
                        (&mut pc, panels),
                    )
                    .expect("fits")
                })
            });
        }
        if dt == DType::I8 {
            // i8 values widened to i32, as the region hands them over
            let (pa, pb) = (vec![-7i32; (n * n) as usize], vec![5i32; (n * n) as usize]);
            let mut pc = vec![0i32; (n * n) as usize];
            g.bench_function("kernel", |bch| {
                bch.iter(|| {
                    let (m, k, nn) = (n as usize, n as usize, n as usize);
                    pto_jit::matmul_i32_wrapping(m, k, nn, &pa, &pb, &mut pc).expect("fits")
                })
            });
        }
        g.finish();
    }
}

/// The cube micro-op `mad` (L0A x L0B -> L0C, NZ operands) at 64^3 and
/// 128^3 on f32, f16 and i8 operands: the interpreter's element loop
/// against the native path (`exec::cube::mad_native`: unpack,
/// `pto_jit::matmul_f32` or `matmul_i32_wrapping`, pack).
fn mad(c: &mut Criterion) {
    use pto_vm::exec::cube::{self, MadPlan, Mem, MxScales};
    for (n, dt) in [
        (64u64, DType::F32),
        (64, DType::F16),
        (128, DType::F32),
        (128, DType::F16),
        (64, DType::BF16),
        (128, DType::BF16),
        (64, DType::I8),
        (128, DType::I8),
    ] {
        let es = dt.bytes() as u64;
        let acc_dt = if dt.is_float() {
            DType::F32
        } else {
            DType::I32
        };
        let ptr = |space, elem| pto_vm::Ptr {
            space,
            addr: 0,
            elem,
        };
        let p = MadPlan::plain(
            ptr(pto_vm::Space::L0a, dt),
            ptr(pto_vm::Space::L0b, dt),
            ptr(pto_vm::Space::L0c, acc_dt),
            (n, n, n),
        );
        let mut local = Local::new(ProfileId::A5.profile(), None);
        // small integers: exact in f16 and in any summation order
        for space in [pto_vm::Space::L0a, pto_vm::Space::L0b] {
            let bytes = local.slice_mut(space, 0, n * n * es).expect("fits");
            for (i, ch) in bytes.chunks_mut(es as usize).enumerate() {
                let v = ((i * 7) % 5) as i64 - 2;
                let x = if dt.is_float() {
                    pto_vm::num::Num::F(v as f64)
                } else {
                    pto_vm::num::Num::I(v)
                };
                pto_vm::num::write(ch, dt, x);
            }
        }
        let gm = pto_vm::mem::Gm::new(64);
        let mut g = c.benchmark_group(format!("exec/mad/{n}x{n}x{n}/{dt}"));
        g.throughput(Throughput::Elements(2 * n * n * n));
        g.sample_size(10);
        for (name, native) in [("interp", false), ("jit", true)] {
            g.bench_function(name, |bch| {
                bch.iter(|| {
                    let mut mx = MxScales::default();
                    let mut acc = Accesses::default();
                    let mut m = Mem {
                        gm: &gm,
                        local: &mut local,
                        mx: &mut mx,
                        subs: Vec::new(),
                        cube: None,
                        acc: &mut acc,
                        far: Vec::new(),
                    };
                    if native {
                        assert!(black_box(cube::mad_native(&p, &mut m)).expect("runs"));
                    } else {
                        black_box(cube::mad_interpret(&p, &mut m)).expect("runs");
                    }
                })
            });
        }
        g.finish();
    }
}

/// The (name, JIT mode, checker mode) combinations whole-kernel benchmarks compare.
const TIERS: [(&str, JitMode, CheckMode); 4] = [
    ("interp/check=off", JitMode::Off, CheckMode::Off),
    ("interp/check=warn", JitMode::Off, CheckMode::Warn),
    ("jit/check=off", JitMode::Always, CheckMode::Off),
    ("jit/check=warn", JitMode::Always, CheckMode::Warn),
];

/// Read-back modes for `n` arguments: the buffers at indices `outs` after
/// every run, nothing else.
fn read_back(n: usize, outs: &[usize]) -> Vec<ReadBack> {
    (0..n)
        .map(|i| {
            if outs.contains(&i) {
                ReadBack::Always
            } else {
                ReadBack::Never
            }
        })
        .collect()
}

/// Benchmarks whole runs of `k` on `args`; each run must end without a fault
/// or a diagnostic. The buffers at indices `outs` are read back after every
/// run, the others not, as `pto-run` does with its outputs.
fn bench_runs(
    g: &mut criterion::BenchmarkGroup<criterion::measurement::WallTime>,
    id: &str,
    k: &Kernel,
    (args, outs): (&[Arg], &[usize]),
    jit: JitMode,
    check: CheckMode,
) {
    let cfg = Config {
        profile: k.profile,
        jit,
        check,
        ..Config::default()
    };
    // the outputs are read back into the same vectors every run, as a
    // caller that runs a kernel repeatedly would (`run_kernel_reading_into`)
    let modes = read_back(args.len(), outs);
    let mut bufs = Vec::new();
    g.bench_function(id, |b| {
        b.iter(|| {
            let out =
                run_kernel_reading_into(k, &cfg, None, args, &modes, &mut bufs).expect("runs");
            assert!(out.error.is_none() && out.diags.list.is_empty(), "{id}");
            out
        })
    });
}

fn kernels(c: &mut Criterion) {
    // the tile-level vadd example: 2 x tload, tadd, tstore on 32x32 f32, once
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/vadd.pto");
    let src = std::fs::read_to_string(path).expect("example");
    let k = load_text("vadd.pto", &src, None).expect("loads");
    let x: Vec<u8> = (0..1024).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let args = [Arg::Buffer(x.clone()), Arg::Buffer(x), Arg::Zeros(4096)];
    let mut g = c.benchmark_group("kernel/vadd32x32");
    g.sample_size(20);
    for (name, jit, check) in [
        ("interp/check=off", JitMode::Off, CheckMode::Off),
        ("interp/check=warn", JitMode::Off, CheckMode::Warn),
        ("jit/check=off", JitMode::Always, CheckMode::Off),
        ("jit/check=warn", JitMode::Always, CheckMode::Warn),
    ] {
        let cfg = Config {
            profile: k.profile,
            jit,
            check,
            ..Config::default()
        };
        g.bench_function(name, |b| {
            b.iter(|| run_kernel(&k, &cfg, None, &args).expect("runs"))
        });
    }
    g.finish();

    // 64 tiles of 64x64 f32 through tload, tadd, tstore with their events
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/kernels/vadd_loop.pto");
    let src = std::fs::read_to_string(path).expect("bench kernel");
    let k = load_text("vadd_loop.pto", &src, None).expect("loads");
    let n = 4096 * 64;
    let x: Vec<u8> = (0..n)
        .flat_map(|i| ((i % 97) as f32).to_le_bytes())
        .collect();
    let args = [
        Arg::Buffer(x.clone()),
        Arg::Buffer(x),
        Arg::Zeros(n as u64 * 4),
    ];
    let mut g = c.benchmark_group("kernel/vadd_loop64x64x64");
    g.sample_size(10);
    for (name, jit, check) in TIERS {
        bench_runs(&mut g, name, &k, (&args, &[2]), jit, check);
    }
    g.finish();
}

fn scopes(c: &mut Criterion) {
    // a pto.vecscope loop over 16 KiB of f32 (vlds, vadd or vexp, vsts under a
    // plt tail mask; f16sel: f16 lanes, vadd, vcmps, vsel; vmi: the VMI ops
    // vload, vadd, vbrc, vmul, vstore on 256-lane vectors; vmicvt: a VMI
    // f16 -> f32 vcvt, multiply and add; reduce: vmul, vcadd, vcmax and
    // vadd per 64-lane row; softmax: vcmax, vdup, vexpdif, vcadd, vdiv per
    // row), run `reps` times
    // per kernel over the same UB data: the difference between 32 and 0
    // repetitions is 32 scope runs
    for name in [
        "vadd", "vexp", "f16sel", "vmi", "vmicvt", "reduce", "softmax",
    ] {
        let file = format!("vscope_{name}.pto");
        let path = format!("{}/kernels/{file}", env!("CARGO_MANIFEST_DIR"));
        let src = std::fs::read_to_string(path).expect("bench kernel");
        let k = load_text(&file, &src, None).expect("loads");
        let x: Vec<u8> = (0..4096)
            .flat_map(|i| ((i % 97) as f32 * 0.25 - 12.0).to_le_bytes())
            .collect();
        let mut g = c.benchmark_group(format!("kernel/vscope_{name}16k"));
        g.sample_size(20);
        for (tier, jit, check, reps) in [
            ("interp/check=off/x0", JitMode::Off, CheckMode::Off, 0),
            ("interp/check=off/x32", JitMode::Off, CheckMode::Off, 32),
            ("interp/check=warn/x32", JitMode::Off, CheckMode::Warn, 32),
            ("jit/check=off/x0", JitMode::Always, CheckMode::Off, 0),
            ("jit/check=off/x32", JitMode::Always, CheckMode::Off, 32),
            ("jit/check=warn/x32", JitMode::Always, CheckMode::Warn, 32),
        ] {
            bench_runs(&mut g, tier, &k, (&scope_args(&x, reps), &[2]), jit, check);
        }
        g.finish();
        if selected(&format!("kernel/vscope_{name}16k")) {
            // per scope run: 32 repetitions minus none, as the columns above
            let (x32, x0) = (scope_args(&x, 32), scope_args(&x, 0));
            let work: [(f64, &[Arg]); 2] = [(1.0, &x32), (-1.0, &x0)];
            paired(&format!("kernel_vscope_{name}16k"), &k, &[2], &work);
        }
    }
}

/// A scope benchmark kernel's arguments: two inputs, the output, `reps`.
fn scope_args(x: &[u8], reps: i64) -> [Arg; 4] {
    [
        Arg::Buffer(x.to_vec()),
        Arg::Buffer(x.to_vec()),
        Arg::Zeros(16384),
        Arg::Int(reps),
    ]
}

/// End-to-end kernels: the whole run (GM setup, every instruction, the
/// checker, read-back), interpreter vs JIT.
fn e2e(c: &mut Criterion) {
    let root = env!("CARGO_MANIFEST_DIR");
    let f32s = |n: usize| -> Vec<u8> {
        (0..n)
            .flat_map(|i| (((i * 37) % 101) as f32 * 0.03 - 1.5).to_le_bytes())
            .collect()
    };
    let f16s = |n: usize| -> Vec<u8> {
        (0..n)
            .flat_map(|i| half::f16::from_f32(((i * 13) % 17) as f32 * 0.125 - 1.0).to_le_bytes())
            .collect()
    };
    let pingpong =
        std::fs::read_to_string(format!("{root}/../examples/sync/03_pingpong_set_wait.pto"))
            .expect("seed")
            .replace(
                "%c8 = arith.constant 8 : index",
                "%c8 = arith.constant 256 : index",
            );
    // (name, kernel text, arguments, the outputs read back after each run)
    let kernels: Vec<(&str, String, Vec<Arg>, &[usize])> = vec![
        (
            "softmax1024x64",
            std::fs::read_to_string(format!("{root}/kernels/softmax_rows.pto")).expect("kernel"),
            vec![Arg::Buffer(f32s(65536)), Arg::Zeros(262144)],
            &[1],
        ),
        (
            "rmsnorm1024x64",
            std::fs::read_to_string(format!("{root}/kernels/rmsnorm_rows.pto")).expect("kernel"),
            vec![Arg::Buffer(f32s(65536)), Arg::Zeros(262144)],
            &[1],
        ),
        (
            "pingpong256x256",
            pingpong,
            vec![Arg::Buffer(f32s(65536)), Arg::Zeros(262144)],
            &[1],
        ),
        (
            "pingpong64x1024",
            std::fs::read_to_string(format!("{root}/kernels/pingpong_4k.pto")).expect("kernel"),
            vec![Arg::Buffer(f32s(65536)), Arg::Zeros(262144)],
            &[1],
        ),
        (
            "matmul_bias_relu32x64x32",
            std::fs::read_to_string(format!("{root}/../examples/mixed_matmul_relu.pto"))
                .expect("example"),
            vec![
                Arg::Buffer(f16s(2048)),
                Arg::Buffer(f16s(2048)),
                Arg::Buffer(f32s(1024)),
                Arg::Zeros(4096),
                Arg::Zeros(4096),
            ],
            &[4],
        ),
    ];
    for (name, src, args, outs) in kernels {
        let k = load_text(&format!("{name}.pto"), &src, None).expect("loads");
        let mut g = c.benchmark_group(format!("e2e/{name}"));
        g.sample_size(10);
        for (tier, jit, check) in TIERS {
            bench_runs(&mut g, tier, &k, (&args, outs), jit, check);
        }
        g.finish();
        if selected(&format!("e2e/{name}")) {
            paired(&format!("e2e_{name}"), &k, outs, &[(1.0, &args)]);
        }
    }
}

/// Whether the command line's benchmark filters (if any) select `id`.
fn selected(id: &str) -> bool {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    filters.is_empty() || filters.iter().any(|f| id.contains(f.as_str()))
}

/// The JIT's speed-up on runs of `k`, from alternating batches of
/// interpreter and JIT runs: this host's speed drifts by up to ~30% between
/// the seconds criterion spends on one tier and the next, which moves a
/// ratio of two separately measured medians as much; a ratio taken from
/// neighbouring batches sees the same drift on both sides. A tier's work is
/// the weighted sum of the run times of `work`'s argument sets (one set
/// with weight 1 for a whole kernel; 32 repetitions minus none for a
/// scope), each timed in batches of at least ~3 ms. Each round times the
/// interpreter's work between two of the JIT's and divides; the median,
/// minimum and maximum of 31 rounds per checker mode go to
/// target/paired/FILE.json for benches/report.py.
fn paired(file: &str, k: &Kernel, outs: &[usize], work: &[(f64, &[Arg])]) {
    use std::time::{Duration, Instant};
    let mut bufs = Vec::new();
    let mut batch = |cfg: &Config, args: &[Arg], n: u32| {
        let modes = read_back(args.len(), outs);
        let t = Instant::now();
        for _ in 0..n {
            let out = run_kernel_reading_into(k, cfg, None, args, &modes, &mut bufs).expect("runs");
            assert!(out.error.is_none() && out.diags.list.is_empty(), "{file}");
        }
        t.elapsed().as_secs_f64() / f64::from(n)
    };
    let per = |t: f64| {
        (Duration::from_millis(3).as_secs_f64() / t)
            .ceil()
            .clamp(1.0, 1e4) as u32
    };
    let mut json = Vec::new();
    for (mode, check) in [("off", CheckMode::Off), ("warn", CheckMode::Warn)] {
        let cfg = |jit| Config {
            profile: k.profile,
            jit,
            check,
            ..Config::default()
        };
        let (interp, jit) = (cfg(JitMode::Off), cfg(JitMode::Always));
        // warm up (the JIT compiles its regions) and size the batches
        let nj: Vec<u32> = work.iter().map(|(_, a)| per(batch(&jit, a, 3))).collect();
        let ni: Vec<u32> = work
            .iter()
            .map(|(_, a)| per(batch(&interp, a, 1)))
            .collect();
        let mut tier = |cfg: &Config, ns: &[u32]| -> f64 {
            work.iter()
                .zip(ns)
                .map(|((w, a), n)| w * batch(cfg, a, *n))
                .sum()
        };
        let mut ratios: Vec<f64> = (0..31)
            .map(|_| {
                let j1 = tier(&jit, &nj);
                let i = tier(&interp, &ni);
                let j2 = tier(&jit, &nj);
                i / ((j1 + j2) / 2.0)
            })
            .collect();
        ratios.sort_by(f64::total_cmp);
        json.push(format!(
            "\"{mode}\": {{\"median\": {:.3}, \"min\": {:.3}, \"max\": {:.3}, \"rounds\": {}}}",
            ratios[ratios.len() / 2],
            ratios[0],
            ratios[ratios.len() - 1],
            ratios.len()
        ));
    }
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../target/paired");
    let write = std::fs::create_dir_all(dir).and_then(|()| {
        std::fs::write(
            format!("{dir}/{file}.json"),
            format!("{{{}}}\n", json.join(", ")),
        )
    });
    if let Err(e) = write {
        eprintln!("paired ratios {file} not written: {e}");
    }
}

/// Regions added for breadth (issue #7), 64x64: the arg reductions on f32
/// (i32 indices), f16 row and column sums, and tpow on i32, interpreter
/// against the compiled region on the same UB.
fn breadth_reduce(c: &mut Criterion) {
    use pto_isa_spec::Opcode as O;
    use pto_jit::{RedLane, RedOp};
    use pto_vm::exec::{reduce, tile_ops::TileCall};
    use pto_vm::Val;
    let n = 64i64;
    let mut local = Local::new(ProfileId::A5.profile(), None);
    let size = local.size(pto_vm::Space::Ub);
    {
        let ub = local
            .slice_mut(pto_vm::Space::Ub, 0, (n * n * 4) as u64)
            .expect("ub");
        for (i, ch) in ub.chunks_mut(4).enumerate() {
            // values with ties (f32), or two f16 values per word
            let v = ((i * 37) % 101) as f32 * 0.25 - 12.0;
            ch.copy_from_slice(&v.to_le_bytes());
        }
    }
    let dst_at = (n * n * 4) as u64;
    for (name, op, red, lane, by_col) in [
        (
            "trowargmax",
            O::TRowArgMax,
            RedOp::ArgMax(4),
            RedLane::F32,
            false,
        ),
        (
            "tcolargmax",
            O::TColArgMax,
            RedOp::ArgMax(4),
            RedLane::F32,
            true,
        ),
        ("trowsum", O::TRowSum, RedOp::Sum, RedLane::F16, false),
        ("tcolsum", O::TColSum, RedOp::Sum, RedLane::F16, true),
    ] {
        let (elem, eb) = if lane == RedLane::F16 {
            (DType::F16, 2)
        } else {
            (DType::F32, 4)
        };
        let src = Tile {
            elem,
            ..tile_at(0, n)
        };
        let delem = if matches!(red, RedOp::ArgMax(_)) {
            DType::I32
        } else {
            elem
        };
        // results: row 0 of a 1 x n row-major tile, or column 0 of an n x 1
        // col-major tile: consecutive either way
        let dst = if by_col {
            Tile {
                elem: delem,
                rows: 1,
                v_row: 1,
                ..tile_at(dst_at, n)
            }
        } else {
            Tile {
                elem: delem,
                cols: 1,
                v_col: 1,
                blayout: BLayout::ColMajor,
                ..tile_at(dst_at, n)
            }
        };
        let call = TileCall {
            op,
            ins: vec![Val::Tile(Box::new(src))],
            outs: vec![Val::Tile(Box::new(dst))],
            attrs: Default::default(),
        };
        let tag = if lane == RedLane::F16 { "f16" } else { "f32" };
        let mut g = c.benchmark_group(format!("breadth/{name}/{n}x{n}/{tag}"));
        g.throughput(Throughput::Elements((n * n) as u64));
        g.sample_size(20);
        g.bench_function("interp", |bch| {
            bch.iter(|| {
                black_box(reduce::run(&call, &mut local, &mut Accesses::default())).expect("runs")
            })
        });
        let r = pto_jit::RowRed { op: red, lane };
        let code = if by_col {
            pto_jit::compile_col(&r)
        } else {
            pto_jit::compile_row(&r)
        }
        .expect("compiles");
        let args = pto_jit::RowArgs {
            dst: dst_at as i64,
            dst_stride: red.out_bytes(lane),
            src: 0,
            src_stride: n * eb,
            rows: n,
            cols: n,
        };
        g.bench_function("jit", |bch| {
            bch.iter(|| {
                let ub = local.slice_mut(pto_vm::Space::Ub, 0, size).expect("ub");
                black_box(code.call(ub, &args))
            })
        });
        g.finish();
    }
    // tpow on i32: bases in [-4, 4], exponents in [0, 12]
    let bytes = (n * n * 4) as u64;
    {
        let ub = local
            .slice_mut(pto_vm::Space::Ub, 0, 2 * bytes)
            .expect("ub");
        for (i, ch) in ub.chunks_mut(4).enumerate() {
            let v = if i < (n * n) as usize {
                (i % 9) as i32 - 4
            } else {
                (i % 13) as i32
            };
            ch.copy_from_slice(&v.to_le_bytes());
        }
    }
    let it = |addr| Tile {
        elem: DType::I32,
        ..tile_at(addr, n)
    };
    let call = TileCall {
        op: O::TPow,
        ins: vec![Val::Tile(Box::new(it(0))), Val::Tile(Box::new(it(bytes)))],
        outs: vec![Val::Tile(Box::new(it(2 * bytes)))],
        attrs: Default::default(),
    };
    let mut g = c.benchmark_group(format!("breadth/tpow/{n}x{n}/i32"));
    g.throughput(Throughput::Elements((n * n) as u64));
    g.sample_size(20);
    g.bench_function("interp", |bch| {
        bch.iter(|| {
            black_box(pto_vm::exec::irregular::run(
                &call,
                &mut local,
                &mut Accesses::default(),
            ))
            .expect("runs")
        })
    });
    let code = compile(&Region {
        op: Op::Pow,
        lane: Lane::I32,
        operands: Operands::Binary,
    })
    .expect("compiles");
    let args = EwArgs {
        dst: (2 * bytes) as i64,
        dst_stride: n * 4,
        a: 0,
        a_stride: n * 4,
        b: bytes as i64,
        b_stride: n * 4,
        rows: n,
        cols: n,
        scalar: 0,
    };
    g.bench_function("jit", |bch| {
        bch.iter(|| {
            let ub = local.slice_mut(pto_vm::Space::Ub, 0, size).expect("ub");
            black_box(code.call(ub, &args))
        })
    });
    g.finish();
}

criterion_group!(
    benches,
    ops,
    chains,
    breadth,
    breadth_more,
    breadth_reduce,
    breadth_half_chain,
    matmul,
    mad,
    kernels,
    scopes,
    e2e
);
criterion_main!(benches);
