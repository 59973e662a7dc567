//! Assembler throughput on a ~1 MB synthetic kernel (see
//! `pto_benches::synthetic_kernel`): `parse+verify` in MB/s of source text,
//! `encode` and `decode` in MB/s of binary.
//!
//! Run with `cargo bench -p pto-benches --bench asm`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pto_asm::binary;

const TARGET_BYTES: usize = 1 << 20;

fn asm(c: &mut Criterion) {
    let src = pto_benches::synthetic_kernel(TARGET_BYTES);
    let checked = pto_asm::check_text("bench.pto", &src, None);
    assert!(
        !checked.diagnostics.has_errors(),
        "synthetic kernel rejected:\n{}",
        checked.diagnostics.render("bench.pto", &src)
    );
    let profile = Some(checked.profile);
    let bin = binary::encode(&checked.file, profile);
    assert!(binary::decode(&bin).is_ok());
    eprintln!(
        "asm bench input: {} bytes of text, {} ops, {} bytes of binary",
        src.len(),
        checked.file.walk().len(),
        bin.len()
    );

    let mut g = c.benchmark_group("asm");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(10));

    g.throughput(Throughput::Bytes(src.len() as u64));
    g.bench_function("parse+verify", |b| {
        b.iter(|| pto_asm::check_text("bench.pto", black_box(&src), None))
    });

    g.throughput(Throughput::Bytes(bin.len() as u64));
    g.bench_function("encode", |b| {
        b.iter(|| binary::encode(black_box(&checked.file), profile))
    });
    g.bench_function("decode", |b| b.iter(|| binary::decode(black_box(&bin))));
    g.finish();
}

criterion_group!(benches, asm);
criterion_main!(benches);
