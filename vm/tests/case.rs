//! `pto-run case DIR`: PTOAS-layout case directories (kernel.pto, vK.bin,
//! golden_vK.bin, main.cpp, golden.py) and their exit codes.

use std::path::PathBuf;
use std::process::Command;

/// A temporary case directory, removed when dropped.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("pto-run-case-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("temp dir");
        Dir(d)
    }

    fn path(&self, f: &str) -> PathBuf {
        self.0.join(f)
    }

    fn write(&self, f: &str, bytes: impl AsRef<[u8]>) {
        std::fs::write(self.path(f), bytes).expect("write");
    }

    fn read(&self, f: &str) -> Vec<u8> {
        std::fs::read(self.path(f)).expect("read")
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run(args: &[&str]) -> (i32, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_pto-run"))
        .args(args)
        .output()
        .expect("pto-run starts");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn case(d: &Dir, extra: &[&str]) -> (i32, String) {
    let dir = d.0.display().to_string();
    let mut a = vec!["case", dir.as_str()];
    a.extend_from_slice(extra);
    run(&a)
}

/// `case` with `--out-dir` the case directory itself (the PTOAS convention:
/// outputs overwrite `vK.bin`).
fn case_out(d: &Dir, extra: &[&str]) -> (i32, String) {
    let dir = d.0.display().to_string();
    let mut a = vec!["--out-dir", dir.as_str()];
    a.extend_from_slice(extra);
    case(d, &a)
}

/// examples/vadd.pto: `@vadd(%x, %y, %z)`, z = x + y over 32x32 f32.
fn vadd() -> String {
    std::fs::read_to_string(format!(
        "{}/../examples/vadd.pto",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("examples/vadd.pto")
}

/// The same kernel with the output first and a subtraction:
/// `@vsub(%z, %x, %y)`, z = x - y.
fn vsub_out_first() -> String {
    let sig = "@vadd(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %z: !pto.ptr<f32>)";
    let k = vadd();
    assert!(k.contains(sig) && k.contains("pto.tadd "));
    k.replace(
        sig,
        "@vsub(%z: !pto.ptr<f32>, %x: !pto.ptr<f32>, %y: !pto.ptr<f32>)",
    )
    .replace("pto.tadd ", "pto.tsub ")
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn from_f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn xy() -> (Vec<f32>, Vec<f32>) {
    let x: Vec<f32> = (0..1024).map(|i| i as f32 * 0.5 - 100.0).collect();
    let y: Vec<f32> = (0..1024).map(|i| (i % 37) as f32 * 3.0).collect();
    (x, y)
}

/// A vadd case: v1 = x, v2 = y, golden_v3 = x + y (+ `skew`).
fn vadd_case(name: &str, skew: f32) -> Dir {
    let d = Dir::new(name);
    let (x, y) = xy();
    let z: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a + b + skew).collect();
    d.write("kernel.pto", vadd());
    d.write("v1.bin", f32s(&x));
    d.write("v2.bin", f32s(&y));
    d.write("golden_v3.bin", f32s(&z));
    d
}

#[test]
fn exit_0_on_match_and_the_case_directory_is_left_alone() {
    let d = vadd_case("match", 0.0);
    // the output's initial contents: a kernel that accumulates into its output
    // would read them, so a second run must find them again
    let init: Vec<u8> = (0..4096u32).map(|i| (i * 7) as u8).collect();
    d.write("v3.bin", &init);
    let (x, y) = xy();
    for _ in 0..2 {
        let (c, e) = case(&d, &[]);
        assert_eq!(c, 0, "{e}");
        assert!(e.contains("v3 (%z) matches golden_v3.bin"), "{e}");
        assert!(e.contains("max abs error"), "{e}");
        assert!(
            e.contains("1 output(s) compared (not written: --out-dir D writes them)"),
            "{e}"
        );
        // nothing in the directory changes
        assert_eq!(d.read("v3.bin"), init);
        assert_eq!(d.read("v1.bin"), f32s(&x));
        assert_eq!(d.read("v2.bin"), f32s(&y));
        assert!(!d.path("golden_v1.bin").exists() && !d.path("v4.bin").exists());
    }
    // --out-dir D writes the outputs there (D is created), only them
    let out = d.path("out/run1");
    let out_s = out.display().to_string();
    let (c, e) = case(&d, &["--out-dir", &out_s]);
    assert_eq!(c, 0, "{e}");
    assert!(
        e.contains(&format!("1 output(s) written to {out_s}")),
        "{e}"
    );
    assert_eq!(
        std::fs::read(out.join("v3.bin")).expect("v3"),
        d.read("golden_v3.bin")
    );
    assert_eq!(std::fs::read_dir(&out).expect("dir").count(), 1);
    assert_eq!(d.read("v3.bin"), init);
    // --out-dir DIR is the PTOAS convention: v3.bin is overwritten; a second
    // run takes the written v3.bin as v3's initial contents and still matches
    let (c, e) = case_out(&d, &[]);
    assert_eq!(c, 0, "{e}");
    assert_eq!(d.read("v3.bin"), d.read("golden_v3.bin"));
    let (c, e) = case(&d, &["--quiet"]);
    assert_eq!(c, 0, "{e}");
    assert!(e.is_empty(), "quiet prints nothing on success: {e}");
    // an output directory that cannot be created is bad input, before the run
    let (c, e) = case(
        &d,
        &["--out-dir", &d.path("v1.bin/x").display().to_string()],
    );
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("cannot create output directory"), "{e}");
    assert!(!e.contains("matches"), "{e}");
    // --golden-script always writes into DIR: the two do not combine
    let (c, e) = case(&d, &["--golden-script", "--out-dir", &out_s]);
    assert_eq!(c, 2, "{e}");
}

#[test]
fn exit_1_on_a_wrong_golden() {
    let d = vadd_case("mismatch", 1.0);
    let (c, e) = case_out(&d, &[]);
    assert_eq!(c, 1, "{e}");
    assert!(
        e.contains("differs from golden_v3.bin: 1024 of 1024 elements mismatch"),
        "{e}"
    );
    assert!(e.contains("max abs error 1.000e0"), "{e}");
    // the output is written even so, for inspection
    let (x, y) = xy();
    let want: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a + b).collect();
    assert_eq!(from_f32s(&d.read("v3.bin")), want);
}

#[test]
fn exit_2_for_a_missing_kernel() {
    let d = vadd_case("nokernel", 0.0);
    std::fs::remove_file(d.path("kernel.pto")).expect("rm");
    let (c, e) = case(&d, &[]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("kernel.pto"), "{e}");
    assert_eq!(e.trim_end().lines().count(), 1, "one line: {e}");
    assert!(!d.path("v3.bin").exists());
}

#[test]
fn exit_2_for_a_mis_sized_input() {
    let d = vadd_case("missized", 0.0);
    d.write("v1.bin", vec![0u8; 2048]);
    let (c, e) = case(&d, &[]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("v1.bin: 2048 bytes, expected 4096"), "{e}");
    assert_eq!(e.trim_end().lines().count(), 1, "one line: {e}");
    // not a whole number of f32 elements
    d.write("v1.bin", vec![0u8; 4098]);
    let (c, e) = case(&d, &[]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("v1.bin: 4098 bytes"), "{e}");
    assert!(!d.path("v3.bin").exists(), "nothing written on bad input");
}

#[test]
fn exit_2_without_any_golden() {
    let d = vadd_case("nogolden", 0.0);
    std::fs::remove_file(d.path("golden_v3.bin")).expect("rm");
    let (c, e) = case(&d, &[]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("nothing to compare"), "{e}");
}

/// A host program of our own in the PTOAS style: the launch passes the output
/// first and the two inputs swapped relative to their file numbers.
const MAIN_CPP: &str = r#"
#include "test_common.h"
void LaunchVsub(float *out, float *a, float *b, void *stream);

int main() {
    size_t bytes = 32 * 32 * sizeof(float);
    float *aHost = nullptr, *bHost = nullptr, *outHost = nullptr;
    float *aDev = nullptr, *bDev = nullptr, *outDev = nullptr;
    /* a comes from v2.bin, b from v1.bin */
    ReadFile("./v2.bin", bytes, aHost, bytes);
    ReadFile("./v1.bin", bytes, bHost, bytes);
    ACL_CHECK(aclrtMemcpy(aDev, bytes, aHost, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_CHECK(aclrtMemcpy(bDev, bytes, bHost, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    LaunchVsub(outDev, aDev, bDev, stream);
    ACL_CHECK(aclrtMemcpy(outHost, bytes, outDev, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    WriteFile("./v3.bin", outHost, bytes);
    return 0;
}
"#;

/// The `@vsub(%z, %x, %y)` case main.cpp binds as z = v3, x = v2, y = v1:
/// v1.bin = y, v2.bin = x, golden_v3.bin = x - y (no main.cpp yet).
fn vsub_main_cpp_case(name: &str) -> (Dir, Vec<f32>, Vec<f32>, Vec<f32>) {
    let d = Dir::new(name);
    let (x, y) = xy();
    d.write("kernel.pto", vsub_out_first());
    d.write("v1.bin", f32s(&y));
    d.write("v2.bin", f32s(&x));
    let want: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a - b).collect();
    d.write("golden_v3.bin", f32s(&want));
    (d, x, y, want)
}

#[test]
fn main_cpp_launch_order_is_honored() {
    // kernel: @vsub(%z, %x, %y) computes z = x - y; main.cpp binds z = v3,
    // x = v2, y = v1, so the golden is v2 - v1
    let (d, x, y, want) = vsub_main_cpp_case("maincpp");
    // without main.cpp, argument K takes vK.bin and the case does not match
    let (c, e) = case(&d, &[]);
    assert_ne!(c, 0, "positional binding must not match: {e}");
    let _ = std::fs::remove_file(d.path("v3.bin"));
    d.write("main.cpp", MAIN_CPP);
    let (c, e) = case_out(&d, &[]);
    assert_eq!(c, 0, "{e}");
    assert!(
        e.contains("%z = v3") && e.contains("%x = v2") && e.contains("%y = v1"),
        "{e}"
    );
    assert_eq!(from_f32s(&d.read("v3.bin")), want);
    assert_eq!(d.read("v1.bin"), f32s(&y), "inputs are not rewritten");
    assert_eq!(d.read("v2.bin"), f32s(&x), "inputs are not rewritten");
    // main.cpp's size expression is checked against the files
    d.write("main.cpp", MAIN_CPP.replace("32 * 32 *", "16 * 16 *"));
    let (c, e) = case(&d, &[]);
    assert_eq!(c, 2, "{e}");
    assert!(
        e.contains("v3.bin: 4096 bytes, expected 1024 (main.cpp's size"),
        "{e}"
    );
}

/// Files main.cpp names other than `vK.bin` (`lhs.bin`, `result.bin`) bind by
/// that name, with goldens `golden_<name>.bin`.
#[test]
fn main_cpp_file_names_other_than_vk_bind() {
    let d = Dir::new("named");
    let (x, y) = xy();
    d.write("kernel.pto", vsub_out_first());
    d.write("lhs.bin", f32s(&x));
    d.write("rhs.bin", f32s(&y));
    let want: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a - b).collect();
    d.write("golden_result.bin", f32s(&want));
    d.write(
        "main.cpp",
        MAIN_CPP
            .replace("./v2.bin", "./lhs.bin")
            .replace("./v1.bin", "./rhs.bin")
            .replace("./v3.bin", "./result.bin"),
    );
    let (c, e) = case_out(&d, &[]);
    assert_eq!(c, 0, "{e}");
    assert!(
        e.contains("%x = lhs") && e.contains("%y = rhs") && e.contains("matches golden_result.bin"),
        "{e}"
    );
    assert_eq!(from_f32s(&d.read("result.bin")), want);
    assert!(
        !d.path("v3.bin").exists(),
        "nothing is written under another name"
    );
}

const GOLDEN_PY: &str = r#"
import struct
n = 1024
x = [i * 0.25 for i in range(n)]
y = [float(i % 7) for i in range(n)]
open("v1.bin", "wb").write(struct.pack("<%df" % n, *x))
open("v2.bin", "wb").write(struct.pack("<%df" % n, *y))
open("golden_v3.bin", "wb").write(struct.pack("<%df" % n, *[a + b for a, b in zip(x, y)]))
"#;

#[test]
fn golden_script_generates_the_bins() {
    let d = Dir::new("goldenpy");
    d.write("kernel.pto", vadd());
    d.write("golden.py", GOLDEN_PY);
    // without --golden-script there is nothing to compare
    let (c, e) = case(&d, &[]);
    assert_eq!(c, 2, "{e}");
    assert!(!d.path("v1.bin").exists());
    let (c, e) = case(&d, &["--golden-script"]);
    assert_eq!(c, 0, "{e}");
    assert!(d.path("golden_v3.bin").exists());
    assert_eq!(d.read("v3.bin"), d.read("golden_v3.bin"));
    // a failing script is bad input, with its stderr
    d.write(
        "golden.py",
        "import sys\nsys.exit('golden.py: no numpy here')\n",
    );
    let (c, e) = case(&d, &["--golden-script"]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("no numpy here"), "{e}");
}

#[test]
fn compare_py_judges_what_the_golden_comparison_rejects() {
    let d = Dir::new("comparepy");
    d.write("kernel.pto", vadd());
    // the golden's last element is wrong; the case's compare.py checks the
    // first 1000 elements only
    d.write(
        "golden.py",
        format!(
            "{GOLDEN_PY}\ng = [a + b for a, b in zip(x, y)]\ng[-1] = -1.0\nopen('golden_v3.bin', 'wb').write(struct.pack('<%df' % n, *g))\n"
        ),
    );
    d.write(
        "compare.py",
        "import struct, sys\n\
         g = struct.unpack('<1024f', open('golden_v3.bin', 'rb').read())\n\
         o = struct.unpack('<1024f', open('v3.bin', 'rb').read())\n\
         sys.exit(0 if g[:1000] == o[:1000] else 1)\n",
    );
    let (c, e) = case(&d, &["--golden-script"]);
    assert_eq!(c, 0, "{e}");
    assert!(e.contains("compare.py accepts"), "{e}");
    // without --golden-script no script runs and the mismatch stands
    let (c, e) = case(&d, &[]);
    assert_eq!(c, 1, "{e}");
}

#[test]
fn compare_py_alone_judges_a_case_without_goldens() {
    let d = Dir::new("comparepy_only");
    d.write("kernel.pto", vadd());
    let gen = GOLDEN_PY.replace(
        "open(\"golden_v3.bin\", \"wb\").write(struct.pack(\"<%df\" % n, *[a + b for a, b in zip(x, y)]))",
        "open(\"v3.bin\", \"wb\").write(bytes(4 * n))",
    );
    assert!(!gen.contains("golden_v3"), "{gen}");
    d.write("golden.py", &gen);
    d.write(
        "main.cpp",
        "void LaunchVadd(float *a, float *b, float *c, void *stream);\n\
         int main() { size_t n = 4096; ReadFile(\"./v1.bin\", n, a, n); ReadFile(\"./v2.bin\", n, b, n);\n\
         LaunchVadd(a, b, c, stream); WriteFile(\"./v3.bin\", c, n); }\n",
    );
    d.write(
        "compare.py",
        "import struct, sys\n\
         r = lambda f: struct.unpack('<1024f', open(f, 'rb').read())\n\
         x, y, z = r('v1.bin'), r('v2.bin'), r('v3.bin')\n\
         sys.exit(0 if all(a + b == c for a, b, c in zip(x, y, z)) else 1)\n",
    );
    let (c, e) = case(&d, &["--golden-script"]);
    assert_eq!(c, 0, "{e}");
    assert!(
        e.contains("left to compare.py") && e.contains("compare.py accepts"),
        "{e}"
    );
}

#[test]
fn case_toml_sizes_a_buffer_nothing_else_sizes() {
    let d = vadd_case("toml", 0.0);
    d.write("case.toml", "[args]\nv1 = \"f32:16x16\"\n");
    let (c, e) = case(&d, &[]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("v1.bin: 4096 bytes, expected 1024"), "{e}");
    d.write(
        "case.toml",
        "[args]\nv1 = \"f32:32x32\"\nv2 = \"f32:1024\"\n",
    );
    let (c, e) = case(&d, &[]);
    assert_eq!(c, 0, "{e}");
}

/// A size expression main.cpp's evaluator cannot follow (here a million
/// unary minus signs, which overflowed the stack) is left unevaluated: the
/// files size the buffers and the launch order still binds them.
#[test]
fn hostile_size_expressions_are_given_up_on() {
    let (d, _, _, want) = vsub_main_cpp_case("unary");
    let minus = "- ".repeat(1_000_000);
    d.write(
        "main.cpp",
        MAIN_CPP.replace("32 * 32 * sizeof(float)", &format!("{minus}4096")),
    );
    let (c, e) = case_out(&d, &[]);
    assert_eq!(c, 0, "{e}");
    assert_eq!(from_f32s(&d.read("v3.bin")), want);
}

/// A size past 4 GiB, from case.toml or main.cpp, is refused before
/// anything is allocated (the allocator aborted the process).
#[test]
fn sizes_past_four_gib_are_refused() {
    let d = vadd_case("huge", 0.0);
    d.write("case.toml", "[args]\nv1 = \"f32:4294967296x4294967296\"\n");
    let (c, e) = case(&d, &[]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("more than the 4 GiB"), "{e}");
    let d = Dir::new("hugemain");
    d.write("kernel.pto", vsub_out_first());
    d.write("main.cpp", MAIN_CPP.replace("32 * 32 *", "65536 * 32768 *"));
    let (c, e) = case(&d, &[]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("more than the 4 GiB"), "{e}");
}

#[test]
fn help_documents_the_layout_and_the_write_rule() {
    let (c, _) = run(&["case", "--help"]);
    assert_eq!(c, 0);
    let o = Command::new(env!("CARGO_BIN_EXE_pto-run"))
        .args(["case", "--help"])
        .output()
        .expect("runs");
    let h = String::from_utf8_lossy(&o.stdout);
    assert!(
        h.contains("golden_vK.bin") && h.contains("--golden-script"),
        "{h}"
    );
    assert!(h.contains("Nothing in DIR is changed"), "{h}");
    assert!(h.contains("--out-dir <D>"), "{h}");
    let (c, e) = run(&["case"]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("<DIR>"), "{e}");
    // a missing directory is bad input
    let (c, e) = run(&["case", "/nonexistent/pto-run-case"]);
    assert_eq!(c, 2, "{e}");
}

/// vadd turned into `@vadds(%x, %s: f32, %z)`: z = x + s.
fn vadds() -> String {
    let tile = "!pto.tile_buf<loc=vec, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
    let k: Vec<String> = vadd()
        .lines()
        .filter(|l| !["%yv", "%yp", "%b = "].iter().any(|s| l.contains(s)))
        .map(|l| {
            if l.contains("pto.tadd ") {
                format!("    pto.tadds ins(%a, %s : {tile}, f32) outs(%c : {tile})")
            } else {
                l.replace(
                    "@vadd(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %z: !pto.ptr<f32>)",
                    "@vadds(%x: !pto.ptr<f32>, %s: f32, %z: !pto.ptr<f32>)",
                )
            }
        })
        .collect();
    let k = k.join("\n");
    assert!(k.contains("@vadds(") && k.contains("pto.tadds "));
    k
}

#[test]
fn scalars_come_from_main_cpp_or_case_toml() {
    let d = Dir::new("scalar");
    let (x, _) = xy();
    d.write("kernel.pto", vadds());
    d.write("v1.bin", f32s(&x));
    let want: Vec<f32> = x.iter().map(|a| a + 2.5).collect();
    d.write("golden_v3.bin", f32s(&want));
    let (c, e) = case(&d, &[]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("scalar argument v2 (%s) needs a value"), "{e}");
    d.write("case.toml", "[args]\nv2 = 2.5\n");
    let (c, e) = case_out(&d, &[]);
    assert_eq!(c, 0, "{e}");
    assert_eq!(from_f32s(&d.read("v3.bin")), want);
    std::fs::remove_file(d.path("case.toml")).expect("rm");
    std::fs::remove_file(d.path("v3.bin")).expect("rm");
    d.write(
        "main.cpp",
        r#"
void LaunchVadds(float *x, float s, float *z, void *stream);
int main() {
    const size_t n = 1024;
    float s = 2.5f;
    ReadFile("./v1.bin", n * sizeof(float), xHost, n * sizeof(float));
    aclrtMemcpy(xDev, n * sizeof(float), xHost, n * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE);
    LaunchVadds(xDev, s, zDev, stream);
    aclrtMemcpy(zHost, n * sizeof(float), zDev, n * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
    WriteFile("./v3.bin", zHost, n * sizeof(float));
}
"#,
    );
    let (c, e) = case_out(&d, &[]);
    assert_eq!(c, 0, "{e}");
    assert!(e.contains("%s = v2 = 2.5"), "{e}");
    assert_eq!(from_f32s(&d.read("v3.bin")), want);
}

/// A host program that fills some buffers in a loop over computed file names
/// (which ptovm cannot follow) still binds the arguments it can trace; the
/// rest take their position.
#[test]
fn untraced_launch_arguments_take_their_position() {
    let d = Dir::new("untraced");
    let (x, y) = xy();
    d.write("kernel.pto", vadd());
    d.write("v1.bin", f32s(&y));
    d.write("v2.bin", f32s(&x));
    let want: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a + b).collect();
    d.write("golden_v3.bin", f32s(&want));
    d.write(
        "main.cpp",
        r#"
void LaunchVadd(float *a, float *b, float *out, void *stream);
int main() {
    size_t bytes = 32 * 32 * sizeof(float);
    /* a comes from v2.bin, b from v1.bin; the output file name is computed */
    ReadFile("./v2.bin", bytes, aHost, bytes);
    ReadFile("./v1.bin", bytes, bHost, bytes);
    ACL_CHECK(aclrtMemcpy(aDev, bytes, aHost, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_CHECK(aclrtMemcpy(bDev, bytes, bHost, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    LaunchVadd(aDev, bDev, outDev, stream);
    for (int i = 3; i <= 3; ++i) {
        char path[16];
        std::snprintf(path, sizeof(path), "./v%d.bin", i);
        WriteFile(path, outHost, bytes);
    }
    return 0;
}
"#,
    );
    let (c, e) = case(&d, &[]);
    assert_eq!(c, 0, "{e}");
    assert!(
        e.contains("%x = v2") && e.contains("%y = v1") && e.contains("%z = v3"),
        "{e}"
    );
}

/// `ReadFile` fills a buffer from a smaller file and sets the size variable
/// to the file's size, so `WriteFile` writes back only that many bytes: the
/// PTOAS micro-op cases declare `float` buffers and ship `int16` files.
#[test]
fn read_file_smaller_than_its_buffer() {
    let d = Dir::new("smallfile");
    d.write(
        "kernel.pto",
        r#"module attributes {pto.target_arch = "a5"} {
  func.func @knot(%a: !pto.ptr<i16, gm>, %b: !pto.ptr<i16, gm>) attributes {pto.kernel} {
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %c1024 = arith.constant 1024 : index
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c2048_i64 = arith.constant 2048 : i64
    %ui = pto.castptr %c0_i64 : i64 -> !pto.ptr<i16, ub>
    %uo = pto.castptr %c2048_i64 : i64 -> !pto.ptr<i16, ub>
    pto.mte_gm_ub %a, %ui, %c0_i64, %c2048_i64 nburst(%c1_i64, %c2048_i64, %c2048_i64)
      : !pto.ptr<i16, gm>, !pto.ptr<i16, ub>, i64, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.vecscope {
      %m = pto.pset_b16 "PAT_ALL" : !pto.mask<b16>
      scf.for %i = %c0 to %c1024 step %c128 {
        %v = pto.vlds %ui[%i] : !pto.ptr<i16, ub> -> !pto.vreg<128xi16>
        %n = pto.vnot %v, %m : !pto.vreg<128xi16>, !pto.mask<b16> -> !pto.vreg<128xi16>
        pto.vsts %n, %uo[%i], %m : !pto.vreg<128xi16>, !pto.ptr<i16, ub>, !pto.mask<b16>
      }
    }
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.mte_ub_gm %uo, %b, %c2048_i64 nburst(%c1_i64, %c2048_i64, %c2048_i64)
      : !pto.ptr<i16, ub>, !pto.ptr<i16, gm>, i64, i64, i64, i64
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }
}
"#,
    );
    d.write(
        "main.cpp",
        r#"
void LaunchKnot(float *v1, float *v2, void *stream);
int main() {
    size_t elemCount_v1 = 1024;
    size_t fileSize_v1 = elemCount_v1 * sizeof(float);
    size_t elemCount_v2 = 1024;
    size_t fileSize_v2 = elemCount_v2 * sizeof(float);
    float *v1Host = nullptr, *v1Device = nullptr, *v2Host = nullptr, *v2Device = nullptr;
    ReadFile("./v1.bin", fileSize_v1, v1Host, fileSize_v1);
    ReadFile("./v2.bin", fileSize_v2, v2Host, fileSize_v2);
    ACL_CHECK(aclrtMemcpy(v1Device, fileSize_v1, v1Host, fileSize_v1, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_CHECK(aclrtMemcpy(v2Device, fileSize_v2, v2Host, fileSize_v2, ACL_MEMCPY_HOST_TO_DEVICE));
    LaunchKnot(v1Device, v2Device, stream);
    ACL_CHECK(aclrtMemcpy(v2Host, fileSize_v2, v2Device, fileSize_v2, ACL_MEMCPY_DEVICE_TO_HOST));
    WriteFile("./v2.bin", v2Host, fileSize_v2);
    return 0;
}
"#,
    );
    let x: Vec<i16> = (0..1024).map(|i| (i * 37 - 9000) as i16).collect();
    let bytes = |v: &[i16]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let want: Vec<i16> = x.iter().map(|v| !v).collect();
    d.write("v1.bin", bytes(&x));
    d.write("v2.bin", vec![0u8; 2048]);
    d.write("golden_v2.bin", bytes(&want));
    let (c, e) = case_out(&d, &[]);
    assert_eq!(c, 0, "{e}");
    // the host writes back the 2048 bytes it read, not its 4096-byte buffer
    assert_eq!(d.read("v2.bin"), bytes(&want));
    // a file larger than the buffer is refused, as ReadFile refuses it
    d.write("v1.bin", vec![0u8; 8192]);
    let (c, e) = case(&d, &[]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("v1.bin: 8192 bytes, expected 4096"), "{e}");
}

/// `--stats` prints the per-pipe table and the JIT's counters, as plain
/// `pto-run --stats` does (also with `--quiet`), and changes nothing else.
#[test]
fn stats_print_the_pipe_table_and_the_jit_counters() {
    let d = vadd_case("stats", 0.0);
    let (c, e) = case(&d, &["--stats", "--jit", "always", "--sched", "timed"]);
    assert_eq!(c, 0, "{e}");
    assert!(e.contains("matches golden_v3.bin"), "{e}");
    for want in [
        "pipe        retired         busy",
        "vec ",
        "mte2 ",
        "cycles ",
        "jit: ",
    ] {
        assert!(e.contains(want), "no '{want}' in:\n{e}");
    }
    assert!(e.contains("compiled runs"), "{e}");
    let (c, e) = case(&d, &["--stats", "--quiet"]);
    assert_eq!(c, 0, "{e}");
    assert!(
        e.contains("retired") && !e.contains("matches golden"),
        "{e}"
    );
    let (_, e) = case(&d, &[]);
    assert!(!e.contains("retired"), "no table without --stats: {e}");
}

/// A repository conformance case, run where it lies (nothing is written).
fn repo_case(rel: &str, extra: &[&str]) -> (i32, String) {
    let dir = format!("{}/../conformance/cases/{rel}", env!("CARGO_MANIFEST_DIR"));
    // every file, so a file the run added would show as well
    let before: Vec<_> = std::fs::read_dir(&dir)
        .expect("case dir")
        .map(|e| {
            let p = e.expect("entry").path();
            (p.clone(), std::fs::read(&p).expect("read"))
        })
        .collect();
    let mut a = vec!["case", dir.as_str()];
    a.extend_from_slice(extra);
    let r = run(&a);
    assert_eq!(
        std::fs::read_dir(&dir).expect("case dir").count(),
        before.len()
    );
    for (p, bytes) in before {
        assert_eq!(
            std::fs::read(&p).expect("read"),
            bytes,
            "{} changed",
            p.display()
        );
    }
    r
}

/// The `//!` header of a repository case (ranks and peers, grid size,
/// tolerances, an expected fault) applies under `pto-run case` as under
/// `pto-conformance`; flags given on the command line win over it.
#[test]
fn the_kernel_header_of_a_conformance_case_applies() {
    let (c, e) = repo_case("comm/async_put_get_f32_2ranks", &[]);
    assert_eq!(c, 0, "{e}");
    assert!(e.contains("runs 2 ranks"), "{e}");
    assert!(e.contains("%peer_recv = v5 (peer v2 of rank r+1)"), "{e}");
    assert!(e.contains("%peer_src = v6 (peer v1 of rank r-1)"), "{e}");
    assert!(
        e.contains("v2 (%recv) matches golden_v2.bin (256 elements"),
        "{e}"
    );
    let (c, e) = repo_case("comm/collectives_f32_3ranks", &["-q"]);
    assert_eq!(c, 0, "{e}");
    // blocks = 4 from the header; --blocks 1 on the command line wins
    let (c, e) = repo_case("sync/syncall_blocks_i32", &["-q"]);
    assert_eq!(c, 0, "{e}");
    let (c, e) = repo_case("sync/syncall_blocks_i32", &["-q", "--blocks", "1"]);
    assert_eq!(c, 1, "{e}");
    assert!(e.contains("differs from golden_v1.bin"), "{e}");
    // atol/rtol from the header; explicit tolerances win
    let (c, e) = repo_case("vector/vreduce_sum_f32", &["-q"]);
    assert_eq!(c, 0, "{e}");
    let (c, e) = repo_case(
        "vector/vreduce_sum_f32",
        &["-q", "--rtol", "0", "--atol", "0"],
    );
    assert_eq!(c, 1, "{e}");
    // expect-fault: the fault the case is about, its goldens what came before
    let (c, e) = repo_case("scalar/trap_after_store_i32_a5", &[]);
    assert_eq!(c, 0, "{e}");
    assert!(
        e.contains("the runtime fault is the one the kernel header expects"),
        "{e}"
    );
}

#[test]
fn a_bad_kernel_header_or_peers_with_main_cpp_are_bad_input() {
    let d = vadd_case("header", 0.0);
    d.write("kernel.pto", format!("//! colour = \"blue\"\n{}", vadd()));
    let (c, e) = case(&d, &[]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("kernel.pto: unknown header key 'colour'"), "{e}");
    d.write(
        "kernel.pto",
        format!("//! peers = {{ v3 = \"v1:+1\" }}\n{}", vadd()),
    );
    d.write("main.cpp", MAIN_CPP);
    let (c, e) = case(&d, &[]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("cannot combine"), "{e}");
    std::fs::remove_file(d.path("main.cpp")).expect("rm");
    // a peer must be a pointer to a buffer argument
    d.write(
        "kernel.pto",
        format!("//! scalars = {{ v3 = \"rank\" }}\n{}", vadd()),
    );
    let (c, e) = case(&d, &[]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("v3 (%z) cannot take rank number"), "{e}");
    // stacked files must split evenly into the ranks
    d.write("kernel.pto", format!("//! ranks = 3\n{}", vadd()));
    let (c, e) = case(&d, &[]);
    assert_eq!(c, 2, "{e}");
    assert!(
        e.contains("v1.bin: 4096 bytes, not 3 equal rank slices"),
        "{e}"
    );
}

/// `--trace`/`--timeline` write the run's timeline as `pto-run` does, never
/// over a file of the case, an output or each other.
#[test]
fn timelines_of_a_case_run() {
    let d = vadd_case("timeline", 0.0);
    let out = std::env::temp_dir().join(format!("pto-run-case-{}-tl", std::process::id()));
    std::fs::create_dir_all(&out).expect("dir");
    let (tr, svg) = (out.join("t.json"), out.join("t.svg"));
    let (tr_s, svg_s) = (tr.display().to_string(), svg.display().to_string());
    let (c, e) = case(
        &d,
        &["--sched", "timed", "--trace", &tr_s, "--timeline", &svg_s],
    );
    assert_eq!(c, 0, "{e}");
    let j = std::fs::read_to_string(&tr).expect("trace");
    assert!(
        j.contains("\"traceEvents\"") && j.contains("tadd (line "),
        "{j}"
    );
    assert!(j.contains("\"unit\":\"cycles\""), "{j}");
    let s = std::fs::read_to_string(&svg).expect("svg");
    assert!(s.starts_with("<svg") || s.contains("<svg"), "{s}");
    // refused before the run: a case file, the output --out-dir writes, the other timeline
    let k = d.path("kernel.pto").display().to_string();
    let before = d.read("kernel.pto");
    let (c, e) = case(&d, &["--trace", &k]);
    assert_eq!(c, 2, "{e}");
    assert!(
        e.contains("would overwrite") && e.contains("kernel.pto"),
        "{e}"
    );
    assert_eq!(d.read("kernel.pto"), before);
    let v3 = out.join("v3.bin").display().to_string();
    let (c, e) = case(
        &d,
        &["--out-dir", &out.display().to_string(), "--timeline", &v3],
    );
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("would overwrite the output"), "{e}");
    let (c, e) = case(&d, &["--trace", &tr_s, "--timeline", &tr_s]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("would overwrite --trace"), "{e}");
    let _ = std::fs::remove_dir_all(&out);
}

/// A data file that is a device is refused before anything is read (it
/// used to be read until memory ran out); a host scalar file is read only
/// for its first bytes.
#[test]
fn a_device_as_a_data_file_is_bad_input() {
    let d = vadd_case("device", 0.0);
    std::fs::remove_file(d.path("v1.bin")).expect("rm");
    std::os::unix::fs::symlink("/dev/zero", d.path("v1.bin")).expect("symlink");
    let (c, e) = case(&d, &[]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("v1.bin: not a regular file"), "{e}");
    // so is a host program or header that is one
    std::fs::remove_file(d.path("v1.bin")).expect("rm");
    d.write("v1.bin", f32s(&xy().0));
    for f in ["main.cpp", "case.toml"] {
        std::os::unix::fs::symlink("/dev/zero", d.path(f)).expect("symlink");
        let (c, e) = case(&d, &[]);
        assert_eq!(c, 2, "{e}");
        assert!(e.contains(&format!("{f}: not a regular file")), "{e}");
        std::fs::remove_file(d.path(f)).expect("rm");
    }
    let (c, e) = case(&d, &["-q"]);
    assert_eq!(c, 0, "{e}");
}

/// `--json`: one object on stdout with the exit code, bindings and each
/// output's comparison; bad input as an object too.
#[test]
fn json_reports_a_case_run() {
    let d = vadd_case("json", 1.0);
    let dir = d.0.display().to_string();
    let o = Command::new(env!("CARGO_BIN_EXE_pto-run"))
        .args(["case", &dir, "--json"])
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(1));
    let j = String::from_utf8_lossy(&o.stdout);
    assert_eq!(j.lines().count(), 1, "{j}");
    for want in [
        "\"exit\":1",
        "\"function\":\"vadd\"",
        "\"arg\":\"z\",\"file\":\"v3\",\"elements\":1024,\"mismatches\":1024",
        "\"first\":\"[0] is ",
        "\"written\":null",
        "\"source\":\"v1.bin\"",
    ] {
        assert!(j.contains(want), "{want} in {j}");
    }
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    std::fs::remove_file(d.path("kernel.pto")).expect("rm");
    let o = Command::new(env!("CARGO_BIN_EXE_pto-run"))
        .args(["case", &dir, "--json"])
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(2));
    let j = String::from_utf8_lossy(&o.stdout);
    assert!(
        j.starts_with("{\"case\":") && j.contains("\"exit\":2,\"error\":\"cannot read"),
        "{j}"
    );
}
