//! End-to-end tests of the `pto-as` command line: exit codes (0 ok, 1 input
//! error, 2 usage), messages, and the files it writes or refuses to write.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const KERNEL: &str = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%arg0: !pto.ptr<f32>, %n: index) attributes {pto.kernel} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %s = arith.constant 1.5e-3 : f32
    %tv = pto.make_tensor_view %arg0, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %pv = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x16xf32>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>
    pto.tload ins(%pv : !pto.partition_tensor_view<16x16xf32>) outs(%t : !pto.tile_buf<vec, 16x16xf32>)
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
    pto.tmuls ins(%t, %s : !pto.tile_buf<vec, 16x16xf32>, f32) outs(%t : !pto.tile_buf<vec, 16x16xf32>)
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0, %b = %c1) -> (index, index) {
      %a2 = arith.addi %a, %i : index
      scf.yield %a2, %b : index, index
    }
    pto.tstore ins(%t : !pto.tile_buf<vec, 16x16xf32>) outs(%pv : !pto.partition_tensor_view<16x16xf32>)
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }
}
"#;

/// Line 4 uses `%undefined`.
const BAD_KERNEL: &str = r#"module {
  func.func @k() {
    %c0 = arith.constant 0 : index
    %x = arith.addi %c0, %undefined : index
    return
  }
}
"#;

/// A fresh, empty scratch directory for one test, removed when dropped.
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(test: &str) -> Scratch {
    let d = std::env::temp_dir().join(format!("pto-as-cli-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    Scratch(d)
}

/// Runs `pto-as` with `args` in `dir`.
fn pto_as(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pto-as"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run pto-as")
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("pto-as exited by signal")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn assembled(dir: &Path) -> Vec<u8> {
    std::fs::write(dir.join("k.pto"), KERNEL).unwrap();
    let o = pto_as(dir, &["k.pto"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    std::fs::read(dir.join("k.ptobin")).unwrap()
}

#[test]
fn assembles_to_ptobin() {
    let d = scratch("assemble");
    let bin = assembled(&d);
    assert!(bin.starts_with(b"\x7fELF"));
    let dec = pto_asm::binary::decode(&bin).unwrap();
    assert_eq!(dec.profile, Some(pto_isa_spec::ProfileId::A5));
    // explicit -o
    let o = pto_as(&d, &["k.pto", "-o", "other.ptobin"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(std::fs::read(d.join("other.ptobin")).unwrap(), bin);
    // overwriting an existing .ptobin is fine
    let o = pto_as(&d, &["k.pto"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // --check writes nothing
    std::fs::remove_file(d.join("k.ptobin")).unwrap();
    let o = pto_as(&d, &["--check", "k.pto"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!d.join("k.ptobin").exists());
}

#[test]
fn disassembly_reassembles_to_identical_bytes() {
    let d = scratch("dis");
    let bin = assembled(&d);
    let o = pto_as(&d, &["--dis", "k.ptobin"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("pto.tmuls"), "{text}");
    assert!(text.contains("loc(\"k.pto\":"), "{text}");
    std::fs::write(d.join("round.pto"), &text).unwrap();
    let o = pto_as(&d, &["round.pto", "-o", "round.ptobin"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(std::fs::read(d.join("round.ptobin")).unwrap(), bin);
    // --dis -o writes the same text to a file; --dis of text prints it canonically
    let o = pto_as(&d, &["--dis", "k.ptobin", "-o", "dis.pto"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(d.join("dis.pto")).unwrap(), text);
    let o = pto_as(&d, &["--dis", "round.pto"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), text);
    // --no-loc drops the locations
    let o = pto_as(&d, &["--dis", "--no-loc", "k.ptobin"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!stdout(&o).contains("loc("), "{}", stdout(&o));
}

#[test]
fn check_reports_file_line_col_and_caret() {
    let d = scratch("check");
    std::fs::write(d.join("bad.pto"), BAD_KERNEL).unwrap();
    let o = pto_as(&d, &["--check", "bad.pto"]);
    assert_eq!(code(&o), 1);
    let err = stderr(&o);
    assert!(err.contains("bad.pto:4:"), "{err}");
    assert!(err.contains("%undefined"), "{err}");
    assert!(err.contains("error"), "{err}");
    // the offending line, then a caret under it
    let lines: Vec<&str> = err.lines().collect();
    let src_line = lines
        .iter()
        .position(|l| l.contains("arith.addi %c0, %undefined"))
        .unwrap_or_else(|| panic!("source line not shown:\n{err}"));
    let caret = lines.get(src_line + 1).copied().unwrap_or("");
    assert!(caret.trim_end().ends_with('^'), "no caret line:\n{err}");
    // the caret sits under `%undefined`
    let col = lines[src_line].find("%undefined").unwrap();
    assert_eq!(caret.find('^'), Some(col), "caret misplaced:\n{err}");
    // assembling fails the same way and writes nothing
    let o = pto_as(&d, &["bad.pto"]);
    assert_eq!(code(&o), 1);
    assert!(!d.join("bad.ptobin").exists());
}

#[test]
fn usage_errors_exit_2() {
    let d = scratch("usage");
    std::fs::write(d.join("k.pto"), KERNEL).unwrap();
    for args in [
        &["--frobnicate", "k.pto"][..],
        &[][..],
        &["--profile", "a9", "k.pto"][..],
        &["--dis", "--check", "k.pto"][..],
    ] {
        let o = pto_as(&d, args);
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).is_empty(), "{args:?}");
    }
    let o = pto_as(&d, &["--profile", "a9", "k.pto"]);
    assert!(stderr(&o).contains("a9"), "{}", stderr(&o));
    assert!(!d.join("k.ptobin").exists());
    // valid profiles are accepted
    for p in ["a5", "a2a3"] {
        let o = pto_as(&d, &["--check", "--profile", p, "k.pto"]);
        assert_eq!(code(&o), 0, "{p}: {}", stderr(&o));
    }
    // help and version are not errors
    assert_eq!(code(&pto_as(&d, &["--help"])), 0);
    assert_eq!(code(&pto_as(&d, &["--version"])), 0);
}

#[test]
fn missing_input_file() {
    let d = scratch("missing");
    let o = pto_as(&d, &["nope.pto"]);
    assert_eq!(code(&o), 1);
    let err = stderr(&o);
    assert!(err.contains("nope.pto"), "{err}");
    assert!(err.contains("cannot read"), "{err}");
    let o = pto_as(&d, &["--dis", "nope.ptobin"]);
    assert_eq!(code(&o), 1);
}

#[test]
fn corrupt_binary_is_named() {
    let d = scratch("corrupt");
    let bin = assembled(&d);
    let magic = bin.windows(8).position(|w| w == b"PTOVMBIN").unwrap();
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (bin[..bin.len() / 2].to_vec(), "not a ptovm binary"),
        (
            {
                let mut c = bin.clone();
                c[magic] = b'X';
                c
            },
            "magic",
        ),
        (
            {
                let mut c = bin.clone();
                c[magic + 8] ^= 0x7F;
                c
            },
            "version",
        ),
        (
            {
                let mut c = bin.clone();
                c[magic + 12] ^= 0x01;
                c
            },
            "instruction table",
        ),
    ];
    for (k, (bytes, why)) in cases.into_iter().enumerate() {
        let name = format!("bad{k}.ptobin");
        std::fs::write(d.join(&name), bytes).unwrap();
        let o = pto_as(&d, &["--dis", &name]);
        assert_eq!(code(&o), 1, "{name}");
        let err = stderr(&o);
        assert!(err.contains(&name), "{err}");
        assert!(err.contains(why), "expected '{why}' in: {err}");
        assert!(stdout(&o).is_empty());
    }
    // a corruption inside a section is reported with the section and offset
    let flipped = (0..bin.len())
        .map(|i| {
            let mut c = bin.clone();
            c[i] ^= 0xFF;
            c
        })
        .find(|c| {
            matches!(
                pto_asm::binary::decode(c),
                Err(pto_asm::binary::DecodeError::Corrupt {
                    section: ".pto.text",
                    ..
                })
            )
        })
        .expect("some flip corrupts .pto.text");
    std::fs::write(d.join("text.ptobin"), flipped).unwrap();
    let o = pto_as(&d, &["--dis", "text.ptobin"]);
    assert_eq!(code(&o), 1);
    assert!(
        stderr(&o).contains("corrupt .pto.text at byte"),
        "{}",
        stderr(&o)
    );
    // a binary given without --dis is refused
    let o = pto_as(&d, &["k.ptobin"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("--dis"), "{}", stderr(&o));
    // neither ELF nor UTF-8
    std::fs::write(d.join("junk.pto"), [0xFFu8, 0xFE, 0x00, 0x80]).unwrap();
    let o = pto_as(&d, &["junk.pto"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("UTF-8"), "{}", stderr(&o));
}

#[test]
fn refuses_to_overwrite_the_input() {
    let d = scratch("overwrite");
    std::fs::write(d.join("k.pto"), KERNEL).unwrap();
    for out in ["k.pto", "./k.pto", "../{}/k.pto"] {
        let dir_name = d.file_name().unwrap().to_string_lossy().into_owned();
        let out = out.replace("{}", &dir_name);
        let o = pto_as(&d, &["k.pto", "-o", &out]);
        assert_eq!(code(&o), 1, "-o {out}");
        assert!(stderr(&o).contains("refusing"), "{}", stderr(&o));
        assert_eq!(std::fs::read_to_string(d.join("k.pto")).unwrap(), KERNEL);
        // --dis -o onto the input is refused too
        let o = pto_as(&d, &["--dis", "k.pto", "-o", &out]);
        assert_eq!(code(&o), 1, "--dis -o {out}");
        assert_eq!(std::fs::read_to_string(d.join("k.pto")).unwrap(), KERNEL);
    }
    // an existing file that is not a ptovm binary needs --force
    std::fs::write(d.join("notes.txt"), "keep me").unwrap();
    let o = pto_as(&d, &["k.pto", "-o", "notes.txt"]);
    assert_eq!(code(&o), 1);
    assert_eq!(
        std::fs::read_to_string(d.join("notes.txt")).unwrap(),
        "keep me"
    );
    let o = pto_as(&d, &["k.pto", "-o", "notes.txt", "--force"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(std::fs::read(d.join("notes.txt"))
        .unwrap()
        .starts_with(b"\x7fELF"));
    // --force never allows overwriting the input
    let o = pto_as(&d, &["k.pto", "-o", "k.pto", "--force"]);
    assert_eq!(code(&o), 1);
    assert_eq!(std::fs::read_to_string(d.join("k.pto")).unwrap(), KERNEL);
}

/// Endless devices as input or output end in an error, not a read that
/// never returns.
#[test]
fn endless_devices_are_refused() {
    if !Path::new("/dev/zero").exists() {
        return;
    }
    let d = scratch("devices");
    std::fs::write(d.join("k.pto"), KERNEL).unwrap();
    let o = pto_as(&d, &["--dis", "/dev/zero"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("larger than"), "{}", stderr(&o));
    // the output check reads only the first bytes of what is there
    let o = pto_as(&d, &["k.pto", "-o", "/dev/zero"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("not a ptovm binary"), "{}", stderr(&o));
}

#[test]
fn split_input_file_checks_each_chunk() {
    let d = scratch("split");
    let src = format!("{KERNEL}// -----\n{BAD_KERNEL}");
    std::fs::write(d.join("s.pto"), &src).unwrap();
    let o = pto_as(&d, &["--check", "--split-input-file", "s.pto"]);
    assert_eq!(code(&o), 1);
    // line numbers count from the top of the whole file
    let bad_line = KERNEL.lines().count() + 1 + 4;
    let err = stderr(&o);
    assert!(err.contains(&format!("s.pto:{bad_line}:")), "{err}");
    std::fs::write(d.join("ok.pto"), format!("{KERNEL}// -----\n{KERNEL}")).unwrap();
    let o = pto_as(&d, &["--check", "--split-input-file", "ok.pto"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}
