//! `pto-conformance` as CI runs it: the summary table, JUnit XML and the
//! coverage report over the repository's own cases.

use std::process::Command;

#[test]
fn table_junit_and_coverage_over_the_repository_cases() {
    let dir = std::env::temp_dir().join(format!("pto-conformance-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (junit, cov) = (dir.join("results.xml"), dir.join("coverage.tsv"));
    let micro = dir.join("micro.md");
    let out = Command::new(env!("CARGO_BIN_EXE_pto-conformance"))
        .args(["--junit", junit.to_str().expect("utf-8")])
        .args(["--coverage", cov.to_str().expect("utf-8")])
        .args(["--micro-coverage", micro.to_str().expect("utf-8")])
        .output()
        .expect("pto-conformance starts");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // the table: a header and one row per (case, tier), then the summary
    assert!(
        stdout.starts_with("case") && stdout.contains("tier") && stdout.contains("result"),
        "{stdout}"
    );
    let rows = stdout
        .lines()
        .filter(|l| {
            // a row is `<group>/<case> <tier> <result>`, whatever the group
            let mut f = l.split_whitespace();
            f.next().is_some_and(|c| c.contains('/'))
                && f.next()
                    .is_some_and(|t| ["interp", "jit", "crosscheck"].contains(&t))
        })
        .count();
    assert!(rows >= 30, "{stdout}");
    assert!(
        stdout.contains(&format!("{rows} passed, 0 failed")),
        "{stdout}"
    );

    // JUnit: well-formed enough for CI readers, one testcase per row
    let x = std::fs::read_to_string(&junit).expect("junit written");
    assert!(x.starts_with("<?xml"), "{x}");
    assert_eq!(
        x.matches("<testsuite ").count(),
        x.matches("</testsuite>").count()
    );
    assert_eq!(x.matches("<testcase ").count(), rows, "{x}");
    let open = x.matches('<').count();
    let close = x.matches('>').count();
    assert_eq!(open, close, "unbalanced markup");
    assert!(!x.contains("<failure"), "{x}");

    // coverage: exactly the ISA table's universe, in its order
    let c = std::fs::read_to_string(&cov).expect("coverage written");
    let names: Vec<&str> = c
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').next().unwrap_or(""))
        .collect();
    let universe: Vec<&str> = pto_isa_spec::OPS.iter().map(|i| i.name).collect();
    assert_eq!(names, universe);
    assert!(
        c.lines()
            .any(|l| l.starts_with("pto.tadd\t") && !l.ends_with("never\tnever")),
        "tadd is executed"
    );

    // micro coverage: one row per micro-instruction, covered rows name cases
    let m = std::fs::read_to_string(&micro).expect("micro coverage written");
    let listed: Vec<&str> = m
        .lines()
        .filter_map(|l| l.strip_prefix("| `pto."))
        .filter_map(|l| l.split('`').next())
        .collect();
    let micro_ops: Vec<&str> = pto_isa_spec::OPS
        .iter()
        .filter(|i| pto_conformance::micro_group(i).is_some())
        .map(|i| i.name.strip_prefix("pto.").unwrap_or(i.name))
        .collect();
    let mut sorted = listed.clone();
    sorted.sort_unstable();
    let mut want = micro_ops.clone();
    want.sort_unstable();
    assert_eq!(sorted, want);
    let gaps = m.lines().filter(|l| l.ends_with("| **gap** |")).count();
    let line = format!(
        "micro coverage: {} of {}",
        micro_ops.len() - gaps,
        micro_ops.len()
    );
    assert!(m.contains(&line), "{line}\n{m}");
    assert!(String::from_utf8_lossy(&out.stderr).contains(&line));
    assert!(
        m.lines()
            .any(|l| l.starts_with("| `pto.vadd` |") && l.contains("`vector/")),
        "vadd names its cases"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A report path holding something else (a README, notes) is left alone:
/// exit 2 before anything runs; an earlier report of the same kind is
/// replaced.
#[test]
fn reports_never_replace_files_of_another_kind() {
    let dir = std::env::temp_dir().join(format!("pto-conformance-keep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let notes = dir.join("notes.md");
    std::fs::write(&notes, "# my notes\n").expect("write");
    for flag in [
        "--junit",
        "--coverage",
        "--tile-coverage",
        "--micro-coverage",
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_pto-conformance"))
            .args([
                flag,
                notes.to_str().expect("utf-8"),
                "--filter",
                "no-such-case",
            ])
            .output()
            .expect("pto-conformance starts");
        assert_eq!(out.status.code(), Some(2), "{flag}");
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(e.contains("left alone"), "{flag}: {e}");
        assert_eq!(
            std::fs::read_to_string(&notes).expect("read"),
            "# my notes\n",
            "{flag}"
        );
    }
    let junit = dir.join("j.xml");
    for _ in 0..2 {
        let out = Command::new(env!("CARGO_BIN_EXE_pto-conformance"))
            .args([
                "--junit",
                junit.to_str().expect("utf-8"),
                "--filter",
                "no-such-case",
            ])
            .output()
            .expect("pto-conformance starts");
        assert_eq!(out.status.code(), Some(0));
    }
    assert!(std::fs::read_to_string(&junit)
        .expect("read")
        .starts_with("<?xml"));
    let _ = std::fs::remove_dir_all(&dir);
}
