//! `pto-run` as a user runs it: every exit code, bad data files, outputs that
//! must not overwrite inputs.

use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pto-run"))
}

fn example(p: &str) -> String {
    format!("{}/../examples/{p}", env!("CARGO_MANIFEST_DIR"))
}

/// This test's scratch directory (tests run on threads named after them).
fn scratch_dir() -> PathBuf {
    let t = std::thread::current();
    let name = t.name().unwrap_or("main").replace("::", "-");
    std::env::temp_dir().join(format!("pto-run-test-{}-{name}", std::process::id()))
}

fn tmp(name: &str) -> PathBuf {
    let d = scratch_dir();
    std::fs::create_dir_all(&d).expect("temp dir");
    d.join(name)
}

/// Removes the test's scratch directory when the test ends, pass or fail.
struct Cleanup;

impl Drop for Cleanup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(scratch_dir());
    }
}

fn run(args: &[&str]) -> (i32, String, String) {
    let o = bin().args(args).output().expect("pto-run starts");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn npy_f32(path: &Path, v: &[f32]) {
    let a = pto_vm::npy::Array {
        dtype: pto_isa_spec::DType::F32,
        shape: vec![v.len()],
        data: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
    };
    std::fs::write(path, pto_vm::npy::write(&a).expect("npy")).expect("write");
}

#[test]
fn exit_0_runs_an_example_cleanly() {
    let (c, _, e) = run(&[&example("sync/01_set_wait_pipeline.pto")]);
    assert_eq!(c, 0, "{e}");
    assert!(e.contains("(clean)"), "{e}");
    // a preview of what the kernel wrote
    assert!(
        e.contains("written: ") && e.contains(" f32 elements ["),
        "{e}"
    );
}

#[test]
fn exit_0_and_1_for_goldens_and_outputs() {
    let _cleanup = Cleanup;
    let x: Vec<f32> = (0..1024).map(|i| i as f32 - 512.0).collect();
    let gold: Vec<f32> = x.iter().map(|v| v.abs()).collect();
    let (xi, gi, out) = (tmp("x.npy"), tmp("g.npy"), tmp("y.npy"));
    npy_f32(&xi, &x);
    npy_f32(&gi, &gold);
    let k = example("sync/01_set_wait_pipeline.pto");
    let (c, _, e) = run(&[
        &k,
        "--arg",
        &format!("v1={}", xi.display()),
        "--arg",
        "dst=zeros:f32:1024",
        "--golden",
        &format!("v2={}", gi.display()),
        "--out",
        &format!("v2={}", out.display()),
    ]);
    assert_eq!(c, 0, "{e}");
    assert!(e.contains("matches"), "{e}");
    let y =
        pto_vm::npy::parse("y", &std::fs::read(&out).expect("output written")).expect("valid npy");
    assert_eq!(y.shape, vec![1024]);
    // a wrong golden is a mismatch: exit 1 with the first elements and values
    npy_f32(&gi, &x);
    let (c, _, e) = run(&[
        &k,
        "--arg",
        &format!("v1={}", xi.display()),
        "--golden",
        &format!("v2={}", gi.display()),
    ]);
    assert_eq!(c, 1, "{e}");
    assert!(
        e.contains("512 of 1024 elements mismatch") && e.contains(
                "first: [0] is 512.0, golden -512.0; [1] is 511.0, golden -511.0; [2] is 510.0, golden -510.0"
            ),
        "{e}"
    );
    // the same in the JSON summary
    let (c, out, _) = run(&[
        &k,
        "--arg",
        &format!("v1={}", xi.display()),
        "--golden",
        &format!("v2={}", gi.display()),
        "--json",
    ]);
    assert_eq!(c, 1);
    assert!(
        out.contains("\"mismatches\":512")
            && out.contains("\"first\":\"[0] is 512.0, golden -512.0; [1] is 511.0"),
        "{out}"
    );
}

#[test]
fn no_output_overwrites_an_input_or_another_output() {
    let _cleanup = Cleanup;
    let x: Vec<f32> = (0..1024).map(|i| i as f32 - 512.0).collect();
    let gold: Vec<f32> = x.iter().map(|v| v.abs()).collect();
    let (xi, gi) = (tmp("x.npy"), tmp("g.npy"));
    npy_f32(&xi, &x);
    npy_f32(&gi, &gold);
    let kernel = tmp("k.pto");
    std::fs::copy(example("sync/01_set_wait_pipeline.pto"), &kernel).expect("copy");
    let before: Vec<Vec<u8>> = [&xi, &gi, &kernel]
        .iter()
        .map(|p| std::fs::read(p).expect("read"))
        .collect();
    let (k, x_arg, g_arg) = (
        kernel.display().to_string(),
        format!("v1={}", xi.display()),
        format!("v2={}", gi.display()),
    );
    // another spelling of the same file: through the directory's `..`
    let d = tmp("sub");
    std::fs::create_dir_all(&d).expect("dir");
    let twin = |n: &str| d.join("..").join(n).display().to_string();
    for (extra, want) in [
        (
            vec!["--out".to_string(), format!("v2={}", twin("x.npy"))],
            "would overwrite an input",
        ),
        (
            vec!["--out".to_string(), format!("v2={}", twin("g.npy"))],
            "would overwrite an input",
        ),
        (
            vec!["--trace".to_string(), k.clone()],
            "would overwrite an input",
        ),
        (
            vec![
                "--out".to_string(),
                format!("v2={}", tmp("y.npy").display()),
                "--timeline".to_string(),
                twin("y.npy"),
            ],
            "name the same file",
        ),
        (
            vec![
                "--out".to_string(),
                format!("v1={}", tmp("y.npy").display()),
                "--out".to_string(),
                format!("v2={}", twin("y.npy")),
            ],
            "name the same file",
        ),
    ] {
        let mut a = vec![k.as_str(), "--arg", &x_arg, "--golden", &g_arg];
        a.extend(extra.iter().map(String::as_str));
        let (c, _, e) = run(&a);
        assert_eq!(c, 2, "{extra:?}: {e}");
        assert!(e.contains(want), "{extra:?}: {e}");
        // refused before the run: nothing was written
        assert!(!tmp("y.npy").exists(), "{extra:?}");
    }
    let after: Vec<Vec<u8>> = [&xi, &gi, &kernel]
        .iter()
        .map(|p| std::fs::read(p).expect("read"))
        .collect();
    assert!(before == after, "an input changed");
}

#[test]
fn npy_inputs_in_any_byte_or_dimension_order_and_kind_notes() {
    let _cleanup = Cleanup;
    // [[0, 1], [2, 3], ...] as a 512x2 Fortran-order, big-endian f32 array:
    // the columns one after the other, each element's bytes reversed
    let (rows, cols) = (512usize, 2usize);
    let mut data = Vec::new();
    for c in 0..cols {
        for r in 0..rows {
            data.extend_from_slice(&((r * cols + c) as f32).to_be_bytes());
        }
    }
    let mut h = "{'descr': '>f4', 'fortran_order': True, 'shape': (512, 2), }".to_string();
    while !(10 + h.len() + 1).is_multiple_of(64) {
        h.push(' ');
    }
    h.push('\n');
    let mut file = b"\x93NUMPY\x01\x00".to_vec();
    file.extend_from_slice(&(h.len() as u16).to_le_bytes());
    file.extend_from_slice(h.as_bytes());
    file.extend_from_slice(&data);
    let (xi, out) = (tmp("x.npy"), tmp("y.npy"));
    std::fs::write(&xi, file).expect("write");
    let k = example("sync/01_set_wait_pipeline.pto");
    let (c, _, e) = run(&[
        &k,
        "--arg",
        &format!("v1={}", xi.display()),
        "--out",
        &format!("v2={}", out.display()),
        "-q",
    ]);
    assert_eq!(c, 0, "{e}");
    // the kernel writes |x|: the values in C order
    let y = pto_vm::npy::parse("y", &std::fs::read(&out).expect("output")).expect("npy");
    let want: Vec<u8> = (0..1024).flat_map(|i| (i as f32).to_le_bytes()).collect();
    // (an unbound pointer is 64 KiB; the kernel writes the first 4 KiB)
    assert!(y.data[..4096] == want[..], "not read as C order");
    assert!(!e.contains("note:"), "{e}");
    // int32 data for f32 elements runs bit for bit, with a note
    let ints = pto_vm::npy::Array {
        dtype: pto_isa_spec::DType::I32,
        shape: vec![1024],
        data: (0..1024i32).flat_map(|v| v.to_le_bytes()).collect(),
    };
    std::fs::write(&xi, pto_vm::npy::write(&ints).expect("npy")).expect("write");
    let (c, _, e) = run(&[&k, "--arg", &format!("v1={}", xi.display()), "-q"]);
    assert_eq!(c, 0, "{e}");
    assert!(
        e.contains("note: %src points to f32 elements") && e.contains("holds i32 elements"),
        "{e}"
    );
}

/// A little-endian C-order `.npy` input goes straight from the file into GM
/// from its header's end on: a version-2 header of an odd length, and a
/// one-column Fortran-order array (the same bytes as C order).
#[test]
fn npy_inputs_read_straight_from_their_data_offset() {
    let _cleanup = Cleanup;
    let k = example("sync/01_set_wait_pipeline.pto");
    for (descr_order, shape) in [
        ("'fortran_order': False", "(1024,)"),
        ("'fortran_order': True", "(1024, 1)"),
    ] {
        let mut h = format!("{{'descr': '<f4', {descr_order}, 'shape': {shape}, }}");
        h.push_str(&" ".repeat(201));
        h.push('\n');
        let mut file = b"\x93NUMPY\x02\x00".to_vec();
        file.extend_from_slice(&(h.len() as u32).to_le_bytes());
        file.extend_from_slice(h.as_bytes());
        file.extend((0..1024).flat_map(|i| (i as f32 - 500.0).to_le_bytes()));
        let (xi, out) = (tmp("x2.npy"), tmp("y2.npy"));
        std::fs::write(&xi, file).expect("write");
        let (c, _, e) = run(&[
            &k,
            "--arg",
            &format!("v1={}", xi.display()),
            "--out",
            &format!("v2={}", out.display()),
            "-q",
        ]);
        assert_eq!(c, 0, "{e}");
        let y = pto_vm::npy::parse("y", &std::fs::read(&out).expect("output")).expect("npy");
        let want: Vec<u8> = (0..1024)
            .flat_map(|i| (i as f32 - 500.0).abs().to_le_bytes())
            .collect();
        assert!(y.data[..4096] == want[..], "{descr_order}");
    }
}

#[test]
fn exit_1_for_checker_errors() {
    let _cleanup = Cleanup;
    let src = std::fs::read_to_string(example("sync/01_set_wait_pipeline.pto")).expect("example");
    let broken: String = src
        .lines()
        .filter(|l| !l.contains("wait_flag[\"PIPE_MTE2\""))
        .collect::<Vec<_>>()
        .join("\n");
    let p = tmp("race.pto");
    std::fs::write(&p, broken).expect("write");
    let (c, _, e) = run(&[p.to_str().expect("utf8"), "--check", "error"]);
    assert_eq!(c, 1, "{e}");
    assert!(e.contains("race: read-after-write race on UB"), "{e}");
    let (c, _, _) = run(&[p.to_str().expect("utf8"), "--check", "warn"]);
    assert_eq!(c, 0);
}

#[test]
fn exit_2_for_bad_input_and_usage() {
    let _cleanup = Cleanup;
    let k = example("sync/01_set_wait_pipeline.pto");
    assert_eq!(run(&["--sched", "sideways", &k]).0, 2);
    assert_eq!(run(&["/no/such/kernel.pto"]).0, 2);
    assert_eq!(run(&[&k, "--arg", "nosuch=zeros:f32:4"]).0, 2);
    // truncated .npy, wrong dtype .npy, wrong shape raw file
    let good = tmp("good.npy");
    npy_f32(&good, &[1.0; 1024]);
    let bytes = std::fs::read(&good).expect("read");
    let trunc = tmp("trunc.npy");
    std::fs::write(&trunc, &bytes[..bytes.len() - 3]).expect("write");
    let (c, _, e) = run(&[&k, "--arg", &format!("v1={}", trunc.display())]);
    assert_eq!(c, 2);
    assert!(
        e.contains("trunc.npy") && e.contains("needs 4096 bytes"),
        "{e}"
    );
    let f64s = tmp("f64.npy");
    std::fs::write(
        &f64s,
        pto_vm::npy::write(&pto_vm::npy::Array {
            dtype: pto_isa_spec::DType::F64,
            shape: vec![4],
            data: vec![0; 32],
        })
        .expect("npy"),
    )
    .expect("write");
    let (c, _, e) = run(&[&k, "--arg", &format!("v1={}", f64s.display())]);
    assert_eq!(c, 2);
    assert!(
        e.contains("points to f32 elements but its data holds f64"),
        "{e}"
    );
    let raw = tmp("raw.bin");
    std::fs::write(&raw, [0u8; 40]).expect("write");
    let (c, _, e) = run(&[&k, "--arg", &format!("v1={}:f32:4x4", raw.display())]);
    assert_eq!(c, 2);
    assert!(
        e.contains("raw.bin: holds 10 f32 elements, shape 4x4 needs 16"),
        "{e}"
    );
    // sizes past 4 GiB, or past the address space, are refused (they
    // aborted the process in the allocator)
    for spec in [
        "v1=zeros:f32:100000000000000",
        "v1=random:f32:4000000000x4000000000",
        "v1=zeros:f32:1024x1048577",
    ] {
        let (c, _, e) = run(&[&k, "--arg", spec]);
        assert_eq!(c, 2, "{spec}: {e}");
        assert!(e.contains("more than the 4 GiB"), "{spec}: {e}");
    }
    let empty = tmp("empty.bin");
    std::fs::write(&empty, []).expect("write");
    // an unbound pointer whose views reach past 4 GiB is not sized from them
    let big = tmp("bigview.pto");
    std::fs::write(
        &big,
        "module attributes {pto.target_arch = \"a5\"} {\n  func.func @k(%p: !pto.ptr<f32, gm>) attributes {pto.entry} {\n    %c1 = arith.constant 1 : index\n    %cb = arith.constant 1000000000 : index\n    %v = pto.make_tensor_view %p, shape = [%cb, %cb], strides = [%cb, %c1] : !pto.tensor_view<1000000000x1000000000xf32>\n    return\n  }\n}\n",
    )
    .expect("write");
    let (c, _, e) = run(&[big.to_str().expect("utf-8")]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("bind it with --arg"), "{e}");
    // every rank has its own copy: 64 ranks of 300 MiB pass 16 GiB
    let (c, _, e) = run(&[
        &example("comm/ring_put.pto"),
        "--ranks",
        "64",
        "--arg",
        "src=zeros:f32:300x262144",
    ]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("more than the 16 GiB"), "{e}");
    // a tolerance that is not a finite number >= 0, an empty golden
    assert_eq!(run(&[&k, "--rtol", "nan"]).0, 2);
    assert_eq!(run(&[&k, "--atol", "inf"]).0, 2);
    let (c, _, e) = run(&[&k, "--golden", &format!("v2={}", empty.display())]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("holds no data"), "{e}");
    let (c, _, e) = run(&[
        &k,
        "--arg",
        &format!("v1={}:f32:4294967296x4294967296", empty.display()),
    ]);
    assert_eq!(c, 2);
    assert!(e.contains("more than fit in memory"), "{e}");
    // an output naming an input is refused and the input survives
    let (c, _, e) = run(&[
        &k,
        "--arg",
        &format!("v1={}", good.display()),
        "--out",
        &format!("v2={}", good.display()),
    ]);
    assert_eq!(c, 2, "{e}");
    assert_eq!(std::fs::read(&good).expect("read"), bytes);
}

#[test]
fn exit_3_for_runtime_faults_and_4_for_limits() {
    let _cleanup = Cleanup;
    let src = r#"module attributes {pto.target_arch = "a2a3"} {
  func.func @k(%src: !pto.ptr<f32, gm>) attributes {pto.entry} {
    %c1 = arith.constant 1 : i64
    %c0 = arith.constant 0 : i64
    %c256 = arith.constant 256 : i64
    %far = arith.constant 204800 : i64
    %ub = pto.castptr %far : i64 -> !pto.ptr<f32, ub>
    pto.mte_gm_ub %src, %ub, %c0, %c256 nburst(%c1, %c256, %c256) : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    return
  }
}
"#;
    let p = tmp("oob.pto");
    std::fs::write(&p, src).expect("write");
    let (c, _, e) = run(&[p.to_str().expect("utf8")]);
    assert_eq!(c, 3, "{e}");
    assert!(
        e.contains("oob.pto:8:5: runtime fault in 'pto.mte_gm_ub'")
            && e.contains("196608 bytes of UB"),
        "{e}"
    );
    let (c, _, e) = run(&[
        &example("sync/03_pingpong_set_wait.pto"),
        "--max-steps",
        "10",
    ]);
    assert_eq!(c, 4, "{e}");
    // a runaway scalar loop: --max-steps bounds scalar instructions too (a
    // step runs up to 4096 of them, so 2^62 iterations ran for hours)
    let spin = tmp("spin.pto");
    std::fs::write(
        &spin,
        "module attributes {pto.target_arch = \"a5\"} {\n  func.func @k() attributes {pto.entry} {\n    %c0 = arith.constant 0 : index\n    %c1 = arith.constant 1 : index\n    %big = arith.constant 4611686018427387904 : index\n    %s = scf.for %i = %c0 to %big step %c1 iter_args(%a = %c0) -> (index) {\n      %n = arith.addi %a, %i : index\n      scf.yield %n : index\n    }\n    return\n  }\n}\n",
    )
    .expect("write");
    let (c, _, e) = run(&[spin.to_str().expect("utf8"), "--max-steps", "100000"]);
    assert_eq!(c, 4, "{e}");
    assert!(e.contains("--max-steps"), "{e}");
}

#[test]
fn json_summary_is_machine_readable() {
    let (c, out, _) = run(&[&example("vadd.pto"), "--json", "--sched", "timed"]);
    assert_eq!(c, 0);
    assert!(
        out.starts_with("{\"kernel\":")
            && out.contains("\"exit\":0")
            && out.contains("\"diagnostics\":[]"),
        "{out}"
    );
}

/// Every top-level example (the ones the README points users at) runs to
/// completion with no synchronization finding, under the shuffling scheduler too.
#[test]
fn every_top_level_example_runs_clean() {
    let dir = format!("{}/../examples", env!("CARGO_MANIFEST_DIR"));
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("examples dir") {
        let p = entry.expect("entry").path();
        if p.extension().and_then(|e| e.to_str()) != Some("pto") {
            continue;
        }
        let k = p.display().to_string();
        for sched in [
            &["--sched", "inorder"][..],
            &["--sched", "shuffle", "--seed", "5"],
        ] {
            let mut args = vec![k.as_str(), "--check", "error"];
            args.extend_from_slice(sched);
            let (c, _, e) = run(&args);
            assert_eq!(c, 0, "{k} {sched:?}: {e}");
            assert!(e.contains("(clean)"), "{k}: {e}");
        }
        n += 1;
    }
    assert!(n >= 4, "only {n} examples found in {dir}");
}

/// Writes f16 operands A (m x k) and B (k x n) as raw files and their f32
/// product C as a golden `.npy` (PREFIX_a.bin, PREFIX_b.bin, PREFIX_c.npy
/// in this test's scratch directory). The values are eighths and quarters:
/// every product and partial sum is exact in f32, so C is exact whatever
/// order a kernel sums in.
fn product_files(prefix: &str, (m, k, n): (usize, usize, usize)) -> (PathBuf, PathBuf, PathBuf) {
    let f16s = |v: &[f32]| -> Vec<u8> {
        v.iter()
            .flat_map(|x| half::f16::from_f32(*x).to_le_bytes())
            .collect()
    };
    let a: Vec<f32> = (0..m * k)
        .map(|i| ((i * 7 % 13) as f32 - 6.0) / 8.0)
        .collect();
    let b: Vec<f32> = (0..k * n)
        .map(|i| ((i * 5 % 11) as f32 - 5.0) / 4.0)
        .collect();
    let mut c = vec![0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
        }
    }
    let files = (
        tmp(&format!("{prefix}_a.bin")),
        tmp(&format!("{prefix}_b.bin")),
        tmp(&format!("{prefix}_c.npy")),
    );
    std::fs::write(&files.0, f16s(&a)).expect("write a");
    std::fs::write(&files.1, f16s(&b)).expect("write b");
    npy_f32(&files.2, &c);
    files
}

/// The matmul example computes A x B (f16 in, f32 out) through the cube data path.
#[test]
fn matmul_example_matches_a_cpu_product() {
    let _cleanup = Cleanup;
    let (m, k, n) = (32usize, 64usize, 32usize);
    let (ai, bi, gi) = product_files("mm", (m, k, n));
    let (code, _, e) = run(&[
        &example("matmul.pto"),
        "--arg",
        &format!("v1={}:f16:32x64", ai.display()),
        "--arg",
        &format!("v2={}:f16:64x32", bi.display()),
        "--golden",
        &format!("v3={}", gi.display()),
    ]);
    assert_eq!(code, 0, "{e}");
    assert!(e.contains("matches"), "{e}");
}

/// The micro-level cube example (mte_gm_l1_frac, mte_l1_l0a/l0b, mad,
/// mte_l0c_gm, no dimension on the 16 grid) computes A x B in every JIT
/// tier, and the compiled tiers run its mad natively.
#[test]
fn cube_mad_example_matches_a_cpu_product_in_every_jit_tier() {
    let _cleanup = Cleanup;
    let (m, k, n) = (40usize, 72usize, 56usize);
    let (ai, bi, gi) = product_files("cm", (m, k, n));
    for tier in [
        &["--jit", "off"][..],
        &["--jit", "always"],
        &["--jit", "always", "--crosscheck"],
    ] {
        let mut args = vec![
            example("cube_mad.pto"),
            "--arg".into(),
            format!("v1={}:f16:40x72", ai.display()),
            "--arg".into(),
            format!("v2={}:f16:72x56", bi.display()),
            "--golden".into(),
            format!("v3={}", gi.display()),
            "--rtol".into(),
            "0".into(),
            "--atol".into(),
            "0".into(),
            "--check".into(),
            "error".into(),
            "--stats".into(),
        ];
        args.extend(tier.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, _, e) = run(&args);
        assert_eq!(code, 0, "{tier:?}: {e}");
        assert!(e.contains("matches"), "{tier:?}: {e}");
        let native = e.contains("1 native matmul run(s)");
        assert_eq!(native, tier[1] == "always", "{tier:?}: {e}");
    }
}

/// Deleting any one `wait_flag` of the cube example leaves a race that the
/// checker names with both ops (the layout copies, the mad and the
/// write-back record what they touch), and the compiled tier (native mad)
/// reports exactly what the interpreter does.
#[test]
fn each_missing_wait_in_the_cube_example_is_the_same_race_in_every_tier() {
    let _cleanup = Cleanup;
    let src = std::fs::read_to_string(example("cube_mad.pto")).expect("example");
    for (pair, reader, writer) in [
        (
            "\"PIPE_MTE2\", \"PIPE_MTE1\"",
            "pto.mte_l1_l0a",
            "pto.mte_gm_l1_frac",
        ),
        ("\"PIPE_MTE1\", \"PIPE_M\"", "pto.mad", "pto.mte_l1_l0a"),
        ("\"PIPE_M\", \"PIPE_FIX\"", "pto.mte_l0c_gm", "pto.mad"),
    ] {
        let wait = format!("wait_flag[{pair}");
        assert!(src.contains(&wait), "{wait}");
        let text: String = src
            .lines()
            .filter(|l| !l.contains(&wait))
            .map(|l| format!("{l}\n"))
            .collect();
        let k = tmp("nowait.pto");
        std::fs::write(&k, text).expect("write kernel");
        let k = k.display().to_string();
        let races: Vec<Vec<String>> = ["off", "always"]
            .iter()
            .map(|jit| {
                let (c, _, e) = run(&[&k, "--check", "error", "--jit", jit]);
                assert_ne!(c, 0, "{pair} --jit {jit}: {e}");
                let want = format!("'{reader}' on");
                let after = format!("not ordered after '{writer}'");
                assert!(
                    e.lines()
                        .any(|l| l.contains("race") && l.contains(&want) && l.contains(&after)),
                    "{pair} --jit {jit}: {e}"
                );
                e.lines()
                    .filter(|l| l.contains("race"))
                    .map(String::from)
                    .collect()
            })
            .collect();
        assert_eq!(races[0], races[1], "{pair}");
    }
}

/// `--timeout` stops a run that would go on for a long time (exit 4), and a
/// non-positive or non-numeric value is a usage error (exit 2).
#[test]
fn timeout_stops_a_long_run_with_exit_4() {
    let _cleanup = Cleanup;
    let k = tmp("spin.pto");
    std::fs::write(
        &k,
        "module {\n  func.func @spin(%n: index) attributes {pto.entry} {\n    %c0 = arith.constant 0 : index\n    %c1 = arith.constant 1 : index\n    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {\n      %a = arith.addi %acc, %i : index\n      scf.yield %a : index\n    }\n    return\n  }\n}\n",
    )
    .expect("write kernel");
    let k = k.display().to_string();
    let (c, _, e) = run(&[
        &k,
        "--arg",
        "n=100000000000",
        "--max-steps",
        "0",
        "--timeout",
        "0.3",
    ]);
    assert_eq!(c, 4, "{e}");
    assert!(e.contains("--timeout"), "{e}");
    assert!(
        !e.contains("(clean)"),
        "a stopped run is not reported clean: {e}"
    );
    for bad in ["0", "-1", "soon"] {
        let (c, _, e) = run(&[&k, "--arg", "n=1", "--timeout", bad]);
        assert_eq!(c, 2, "--timeout {bad}: {e}");
    }
    let (c, _, e) = run(&[&k, "--arg", "n=1000", "--timeout", "60"]);
    assert_eq!(c, 0, "{e}");
}

/// `--ranks`: a stacked input is split per rank, peers are bound with
/// `peer:NAME:+K`, outputs and goldens stack the ranks again.
#[test]
fn ranks_split_inputs_bind_peers_and_stack_outputs() {
    let _c = Cleanup;
    let k = example("comm/ring_put.pto");
    let n = 3usize;
    let src: Vec<f32> = (0..n * 128).map(|i| i as f32 * 0.25).collect();
    let a = pto_vm::npy::Array {
        dtype: pto_isa_spec::DType::F32,
        shape: vec![n, 1, 128],
        data: src.iter().flat_map(|x| x.to_le_bytes()).collect(),
    };
    let sp = tmp("src.npy");
    std::fs::write(&sp, pto_vm::npy::write(&a).expect("npy")).expect("write");
    // rank r gets its own row plus the previous rank's
    let want: Vec<f32> = (0..n * 128)
        .map(|i| src[i] + src[(i + (n - 1) * 128) % (n * 128)])
        .collect();
    let gp = tmp("golden.npy");
    let g = pto_vm::npy::Array {
        data: want.iter().flat_map(|x| x.to_le_bytes()).collect(),
        ..a.clone()
    };
    std::fs::write(&gp, pto_vm::npy::write(&g).expect("npy")).expect("write");
    let op = tmp("out.npy");
    let spec = |s: &Path| format!("src={}", s.display());
    let base = [
        k.as_str(),
        "--ranks",
        "3",
        "--arg",
        "peer_recv=peer:recv:+1",
        "--arg",
        "peer_sig=peer:sig:+1",
        "--arg",
        "sig=zeros:i32:1",
        "--check",
        "error",
    ];
    let mut args: Vec<String> = base.iter().map(|s| s.to_string()).collect();
    args.extend([
        "--arg".into(),
        spec(&sp),
        "--golden".into(),
        format!("out={}", gp.display()),
        "--out".into(),
        format!("out={}", op.display()),
    ]);
    let argv: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let (c, _, e) = run(&argv);
    assert_eq!(c, 0, "{e}");
    assert!(e.contains("x 3 ranks") && e.contains("(clean)"), "{e}");
    let out = pto_vm::npy::parse("out.npy", &std::fs::read(&op).expect("out")).expect("npy");
    assert_eq!(out.shape, vec![3, 1, 128]);
    assert_eq!(out.data, g.data);
    // a peer that names no buffer, and a rank that does not exist
    for bad in [
        "peer_sig=peer:nope:+1",
        "peer_sig=peer:sig:7",
        "peer_sig=peer:sig",
    ] {
        let mut a2: Vec<&str> = base.to_vec();
        a2.extend(["--arg", bad]);
        let (c, _, e) = run(&a2);
        assert_eq!(c, 2, "{bad}: {e}");
        assert!(
            e.lines().count() <= 2 && e.contains("peer_sig"),
            "{bad}: {e}"
        );
    }
}

/// The mixed cube + vector example: relu(A x B + bias) with the product handed
/// from the cube core to both vector cores through GM and a cross-core
/// semaphore; without the semaphore wait the checker names the race.
#[test]
fn mixed_cube_vector_example_matches_numpy_style_reference() {
    let _cleanup = Cleanup;
    let (m, k, n) = (32usize, 64usize, 32usize);
    let f16s = |v: &[f32]| -> Vec<u8> {
        v.iter()
            .flat_map(|x| half::f16::from_f32(*x).to_le_bytes())
            .collect()
    };
    let a: Vec<f32> = (0..m * k)
        .map(|i| ((i * 7 % 13) as f32 - 6.0) / 8.0)
        .collect();
    let b: Vec<f32> = (0..k * n)
        .map(|i| ((i * 5 % 11) as f32 - 5.0) / 4.0)
        .collect();
    let bias: Vec<f32> = (0..m * n).map(|i| (i % 9) as f32 - 4.0).collect();
    let mut c = vec![0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let s: f32 = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
            c[i * n + j] = (s + bias[i * n + j]).max(0.0);
        }
    }
    assert!(c.contains(&0.0) && c.iter().any(|x| *x > 0.0));
    let (ai, bi, bs, gi) = (tmp("a.bin"), tmp("b.bin"), tmp("bias.npy"), tmp("c.npy"));
    std::fs::write(&ai, f16s(&a)).expect("write a");
    std::fs::write(&bi, f16s(&b)).expect("write b");
    npy_f32(&bs, &bias);
    npy_f32(&gi, &c);
    let k_path = example("mixed_matmul_relu.pto");
    let args = [
        format!("v1={}:f16:32x64", ai.display()),
        format!("v2={}:f16:64x32", bi.display()),
        format!("v3={}", bs.display()),
        format!("v5={}", gi.display()),
    ];
    let argv = |src: &str| -> Vec<String> {
        vec![
            src.to_string(),
            "--arg".into(),
            args[0].clone(),
            "--arg".into(),
            args[1].clone(),
            "--arg".into(),
            args[2].clone(),
            "--arg".into(),
            "v4=zeros:f32:32x32".into(),
            "--golden".into(),
            args[3].clone(),
            "--check".into(),
            "error".into(),
        ]
    };
    for sched in ["inorder", "timed", "shuffle"] {
        let mut v = argv(&k_path);
        v.extend(["--sched".to_string(), sched.to_string()]);
        let v: Vec<&str> = v.iter().map(|s| s.as_str()).collect();
        let (code, _, e) = run(&v);
        assert_eq!(code, 0, "{sched}: {e}");
        assert!(e.contains("matches") && e.contains("(clean)"), "{e}");
    }
    // drop the vector cores' wait on the cube's semaphore
    let src = std::fs::read_to_string(&k_path).expect("example");
    let broken = tmp("no_wait.pto");
    std::fs::write(
        &broken,
        src.replace("pto.sync.wait <PIPE_MTE2>, 1", "")
            .replace("pto.sync.set <PIPE_FIX>, 1", ""),
    )
    .expect("write");
    let mut v = argv(&broken.display().to_string());
    v.extend(["--sched".to_string(), "timed".to_string()]);
    let v: Vec<&str> = v.iter().map(|s| s.as_str()).collect();
    let (code, _, e) = run(&v);
    assert_eq!(code, 1, "{e}");
    assert!(e.contains("race"), "{e}");
}

/// `--jit-cache DIR`: the second run loads what the first compiled, gives the
/// same output, and a damaged entry is recompiled, never run.
#[test]
fn jit_cache_reuses_compiled_regions_and_survives_damaged_entries() {
    let _c = Cleanup;
    let dir = tmp("cache");
    let d = dir.to_str().expect("utf-8");
    let kernel = example("sync/03_pingpong_set_wait.pto");
    let go = |out: &Path| {
        let (code, _, err) = run(&[
            &kernel,
            "--jit",
            "always",
            "--stats",
            "--jit-cache",
            d,
            "--out",
            &format!("v2={}", out.display()),
        ]);
        assert_eq!(code, 0, "{err}");
        let line = err
            .lines()
            .find(|l| l.starts_with("jit-cache:"))
            .unwrap_or_else(|| panic!("no jit-cache line in:\n{err}"))
            .to_string();
        (line, std::fs::read(out).expect("output written"))
    };
    let (first, out1) = go(&tmp("o1.npy"));
    assert!(
        first.contains("0 region(s) loaded") && first.contains("1 stored"),
        "{first}"
    );
    let (second, out2) = go(&tmp("o2.npy"));
    assert!(
        second.contains("1 region(s) loaded") && second.contains("0 stored"),
        "{second}"
    );
    assert_eq!(out1, out2);
    // flip one byte of every entry: each is a miss and is rewritten
    for e in std::fs::read_dir(&dir).expect("cache dir") {
        let p = e.expect("entry").path();
        let mut b = std::fs::read(&p).expect("entry");
        let n = b.len() / 2;
        b[n] ^= 0x5a;
        std::fs::write(&p, b).expect("damage");
    }
    let (third, out3) = go(&tmp("o3.npy"));
    assert!(
        third.contains("0 region(s) loaded") && third.contains("1 stored"),
        "{third}"
    );
    assert_eq!(out1, out3);
    // a path that cannot be a directory is a usage error
    let file = tmp("plain-file");
    std::fs::write(&file, b"x").expect("file");
    let (code, _, err) = run(&[&kernel, "--jit-cache", file.to_str().expect("utf-8")]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--jit-cache"), "{err}");
}

/// A long traced run keeps the first MAX_TRACE_EVENTS pipe instructions
/// per block and says how many later ones are not in the timeline (it grew
/// by one event per instruction up to --max-steps).
#[test]
fn long_traces_are_capped_with_a_note() {
    let _cleanup = Cleanup;
    let k = tmp("manysync.pto");
    std::fs::write(
        &k,
        "module attributes {pto.target_arch = \"a5\"} {\n  func.func @k() attributes {pto.entry} {\n    %c0 = arith.constant 0 : index\n    %c1 = arith.constant 1 : index\n    %n = arith.constant 530000 : index\n    scf.for %i = %c0 to %n step %c1 {\n      pto.set_flag[\"PIPE_MTE2\", \"PIPE_V\", \"EVENT_ID0\"]\n      pto.wait_flag[\"PIPE_MTE2\", \"PIPE_V\", \"EVENT_ID0\"]\n    }\n    return\n  }\n}\n",
    )
    .expect("write");
    let t = tmp("many.json");
    let (c, _, e) = run(&[
        k.to_str().expect("utf-8"),
        "--trace",
        t.to_str().expect("utf-8"),
    ]);
    assert_eq!(c, 0, "{e}");
    let dropped = 2 * 530_000 - pto_vm::machine::MAX_TRACE_EVENTS;
    assert!(
        e.contains(&format!("{dropped} later ones are not in it")),
        "{e}"
    );
    assert!(std::fs::metadata(&t).expect("trace written").len() > 0);
}

/// Ranks read their slices of a stacked input file straight into GM; when
/// only rank 0 changes its slice, the "written:" summary shows rank 0's new
/// values next to rank 1's untouched ones (read back from the file).
#[test]
fn ranks_read_their_slices_of_a_file_and_the_summary_shows_all_ranks() {
    let _cleanup = Cleanup;
    let t = "!pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=128, v_row=1, v_col=128, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
    let pv = "!pto.partition_tensor_view<1x128xf32>";
    let k = format!(
        r#"module attributes {{pto.target_arch = "a2a3"}} {{
  func.func @twice_on_rank0(%me: i32, %x: !pto.ptr<f32>) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0 : i32
    %xv = pto.make_tensor_view %x, shape = [%c1, %c128], strides = [%c128, %c1] : !pto.tensor_view<1x128xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c1, %c128] : !pto.tensor_view<1x128xf32> -> {pv}
    %a = pto.alloc_tile : {t}
    %is0 = arith.cmpi eq, %me, %zero : i32
    scf.if %is0 {{
      pto.tload ins(%xp : {pv}) outs(%a : {t})
      pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
      pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
      pto.tadd ins(%a, %a : {t}, {t}) outs(%a : {t})
      pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
      pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
      pto.tstore ins(%a : {t}) outs(%xp : {pv})
    }}
    return
  }}
}}
"#
    );
    let kp = tmp("twice.pto");
    std::fs::write(&kp, k).expect("write");
    // 2 ranks x 128: rank 0 holds 1..=128, rank 1 holds -1000 - i
    let x: Vec<f32> = (0..256)
        .map(|i| {
            if i < 128 {
                i as f32 + 1.0
            } else {
                -1000.0 - (i - 128) as f32
            }
        })
        .collect();
    let xp = tmp("x.bin");
    std::fs::write(
        &xp,
        x.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
    )
    .expect("write");
    let (c, _, e) = run(&[
        kp.to_str().expect("utf8"),
        "--ranks",
        "2",
        "--arg",
        "me=rank",
        "--arg",
        &format!("x={}:f32:2x128", xp.display()),
    ]);
    assert_eq!(c, 0, "{e}");
    assert!(
        e.contains(
            "%x (v2) written: 256 f32 elements [2, 4, 6, 8, 10, 12, ...] (min -1127, max 256)"
        ),
        "{e}"
    );
}

/// `--watch LINE[:N]` prints what a line's instructions produced (also from
/// `pto-run case`); a line without an instruction or a malformed spec is a
/// usage error.
#[test]
fn watch_prints_a_lines_results() {
    let k = example("vadd.pto");
    let src = std::fs::read_to_string(&k).expect("example");
    let add = src
        .lines()
        .position(|l| l.contains("pto.tadd"))
        .expect("tadd")
        + 1;
    let (c, out, e) = run(&[&k, "--watch", &format!("{add}:1"), "--jit", "always", "-q"]);
    assert_eq!(c, 0, "{e}");
    assert!(out.is_empty(), "{out}");
    assert!(
        e.contains(&format!("pto-run: watch {k}:{add}:5 'pto.tadd' #1 (block 0): UB tile f32 32x32 (valid 32x32): min ")),
        "{e}"
    );
    let (c, _, e) = run(&[&k, "--watch", "1"]);
    assert_eq!(c, 2, "{e}");
    assert!(
        e.contains("--watch 1: no instruction on that line of"),
        "{e}"
    );
    let (c, _, e) = run(&[&k, "--watch", "x:y"]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("is not LINE or LINE:N"), "{e}");
    let case = format!(
        "{}/../conformance/cases/tile/tadd_f32_32x32",
        env!("CARGO_MANIFEST_DIR")
    );
    let ksrc = std::fs::read_to_string(format!("{case}/kernel.pto")).expect("case kernel");
    let add = ksrc
        .lines()
        .position(|l| l.contains("pto.tadd"))
        .expect("tadd")
        + 1;
    let (c, _, e) = run(&["case", &case, "--watch", &add.to_string(), "-q"]);
    assert_eq!(c, 0, "{e}");
    assert!(
        e.contains(&format!(":{add}:5 'pto.tadd' #1 (block 0): UB tile f32")),
        "{e}"
    );
}
