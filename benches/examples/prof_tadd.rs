#![allow(unsafe_code)]
//! TADD 64x64 f32 through the compiled region at several tile placements.
use pto_jit::{compile, EwArgs, Lane, Op, Operands, Region};

fn main() {
    raw();
    let code = compile(&Region {
        op: Op::Add,
        lane: Lane::F32,
        operands: Operands::Binary,
    })
    .unwrap();
    let mut big = vec![0u8; 257 * 1024];
    let off = big.as_ptr().align_offset(4096);
    let mem = &mut big[off..off + 256 * 1024];
    for (i, c) in mem.chunks_mut(4).enumerate() {
        c.copy_from_slice(&((i % 97) as f32 * 0.37 - 17.0).to_le_bytes());
    }
    let n = 64i64;
    for (a, b, d) in [
        (0, 16384, 32768),
        (0, 16384 + 64 * 5, 32768 + 64 * 11),
        (0, 16384, 0),
        (0, 16384 + 1024, 32768 + 2048),
    ] {
        let args = EwArgs {
            dst: d,
            dst_stride: n * 4,
            a,
            a_stride: n * 4,
            b,
            b_stride: n * 4,
            rows: n,
            cols: n,
            scalar: 0,
        };
        for _ in 0..1000 {
            std::hint::black_box(code.call(mem, &args));
        }
        let iters = 20000;
        let mut best = f64::MAX;
        for _ in 0..30 {
            let t = std::time::Instant::now();
            for _ in 0..iters {
                std::hint::black_box(code.call(mem, &args));
            }
            best = best.min(t.elapsed().as_secs_f64() * 1e9 / iters as f64);
        }
        println!("a={a} b={b} d={d}: {best:.1} ns (min of 30)");
    }
}

#[target_feature(enable = "avx512f")]
unsafe fn add512(x: *const f32, y: *const f32, d: *mut f32, n: usize) {
    use std::arch::x86_64::*;
    let mut i = 0;
    while i + 64 <= n {
        let a0 = _mm512_loadu_ps(x.add(i));
        let b0 = _mm512_loadu_ps(y.add(i));
        let a1 = _mm512_loadu_ps(x.add(i + 16));
        let b1 = _mm512_loadu_ps(y.add(i + 16));
        let a2 = _mm512_loadu_ps(x.add(i + 32));
        let b2 = _mm512_loadu_ps(y.add(i + 32));
        let a3 = _mm512_loadu_ps(x.add(i + 48));
        let b3 = _mm512_loadu_ps(y.add(i + 48));
        _mm512_storeu_ps(d.add(i), _mm512_add_ps(a0, b0));
        _mm512_storeu_ps(d.add(i + 16), _mm512_add_ps(a1, b1));
        _mm512_storeu_ps(d.add(i + 32), _mm512_add_ps(a2, b2));
        _mm512_storeu_ps(d.add(i + 48), _mm512_add_ps(a3, b3));
        i += 64;
    }
}
#[target_feature(enable = "avx2")]
unsafe fn add256(x: *const f32, y: *const f32, d: *mut f32, n: usize) {
    use std::arch::x86_64::*;
    let mut i = 0;
    while i + 8 <= n {
        _mm256_storeu_ps(
            d.add(i),
            _mm256_add_ps(_mm256_loadu_ps(x.add(i)), _mm256_loadu_ps(y.add(i))),
        );
        i += 8;
    }
}
pub fn raw() {
    let mut big = vec![0f32; 65 * 1024];
    let off = big.as_ptr().align_offset(4096);
    let mem = &mut big[off..off + 64 * 1024];
    for (a, b, d) in [
        (0usize, 4096usize, 8192usize),
        (0, 4096, 0),
        (0, 4096 + 16 * 3, 8192 + 16 * 7),
    ] {
        for w in [512, 256] {
            let iters = 20000;
            let p = mem.as_mut_ptr();
            let mut best = f64::MAX;
            for _ in 0..30 {
                let t = std::time::Instant::now();
                for _ in 0..iters {
                    unsafe {
                        if w == 512 {
                            add512(p.add(a), p.add(b), p.add(d), 4096)
                        } else {
                            add256(p.add(a), p.add(b), p.add(d), 4096)
                        }
                    }
                    std::hint::black_box(&mut *mem);
                }
                best = best.min(t.elapsed().as_secs_f64() * 1e9 / iters as f64);
            }
            println!("raw{w} a={a} b={b} d={d}: {best:.1} ns");
        }
    }
}
