//! The diagnostics catalogue (examples/diagnostics/<kind>.pto): every kernel
//! triggers exactly the diagnostic it is named after. docs/diagnostics.md
//! shows the same kernels.

use pto_vm::{load_text, run_kernel, run_kernel_ranks, Arg, Config};

#[test]
fn each_catalogue_kernel_triggers_its_diagnostic() {
    let dir = format!("{}/../examples/diagnostics", env!("CARGO_MANIFEST_DIR"));
    let mut seen = 0;
    for e in std::fs::read_dir(&dir).expect("catalogue exists") {
        let p = e.expect("entry").path();
        if p.extension().is_none_or(|x| x != "pto") {
            continue;
        }
        let kind = p
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("name")
            .to_string();
        let src = std::fs::read_to_string(&p).expect("read");
        let k = load_text(&p.display().to_string(), &src, None)
            .unwrap_or_else(|e| panic!("{kind}: {e}"));
        let entry = k.program.entry(None).expect("entry");
        let args: Vec<Arg> = k.program.funcs[entry]
            .arg_types
            .iter()
            .map(|_| Arg::Buffer(vec![0; 4096]))
            .collect();
        let cfg = Config {
            profile: k.profile,
            max_steps: 100_000,
            // blocks race only when there are several
            blocks: if kind == "block-race" { 2 } else { 1 },
            ..Config::default()
        };
        let f = if kind == "rank-race" {
            // two ranks, the last argument naming the next rank's second
            let n = 2;
            let ranks: Vec<Vec<Arg>> = (0..n)
                .map(|r| {
                    let mut a = args.clone();
                    if let Some(last) = a.last_mut() {
                        *last = Arg::Peer {
                            arg: 1,
                            rank: (r + 1) % n,
                        };
                    }
                    a
                })
                .collect();
            run_kernel_ranks(&k, &cfg, None, &ranks).expect("runs").out
        } else {
            run_kernel(&k, &cfg, None, &args).expect("runs").out
        };
        let kinds: Vec<&str> = f.diags.list.iter().map(|d| d.kind.name()).collect();
        assert!(
            !kinds.is_empty() && kinds.iter().all(|k| *k == kind),
            "{kind}: reported {kinds:?}"
        );
        seen += 1;
    }
    assert_eq!(seen, 15, "one kernel per runtime diagnostic kind");
}

#[test]
fn a_double_buffered_trace_is_valid_json_and_overlaps_mte2_with_v() {
    let path = format!(
        "{}/../examples/sync/03_pingpong_set_wait.pto",
        env!("CARGO_MANIFEST_DIR")
    );
    let src = std::fs::read_to_string(path).expect("seed");
    let k = load_text("pingpong.pto", &src, None).expect("loads");
    let cfg = Config {
        profile: k.profile,
        sched: pto_vm::Sched::Timed,
        trace: true,
        ..Config::default()
    };
    let input: Vec<u8> = (0..2048).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let f = run_kernel(
        &k,
        &cfg,
        None,
        &[Arg::Buffer(input), Arg::Buffer(vec![0; 8192])],
    )
    .expect("runs");
    let json = pto_vm::trace::chrome_json(&k.program, &f.out.trace, "cycles");
    // structurally valid JSON: balanced, parses as a single object
    assert!(
        json.trim_start().starts_with("{\"displayTimeUnit\"") && json.trim_end().ends_with("]}")
    );
    let mut depth = 0i32;
    let mut in_str = false;
    let mut esc = false;
    for c in json.chars() {
        match (in_str, esc, c) {
            (true, true, _) => esc = false,
            (true, false, '\\') => esc = true,
            (true, false, '"') => in_str = false,
            (false, _, '"') => in_str = true,
            (false, _, '{' | '[') => depth += 1,
            (false, _, '}' | ']') => depth -= 1,
            _ => {}
        }
        assert!(depth >= 0);
    }
    assert_eq!(depth, 0);
    assert!(
        json.contains("\"ph\":\"s\"") && json.contains("\"ph\":\"f\""),
        "flow arrows for set->wait edges"
    );
    let slices = |p: pto_isa_spec::Pipe| -> Vec<(u64, u64)> {
        f.out
            .trace
            .iter()
            .filter(|e| e.pipe == p && e.end > e.start + 1)
            .map(|e| (e.start, e.end))
            .collect()
    };
    let (m, v) = (
        slices(pto_isa_spec::Pipe::Mte2),
        slices(pto_isa_spec::Pipe::V),
    );
    let overlap = m.iter().any(|a| v.iter().any(|b| a.0 < b.1 && b.0 < a.1));
    assert!(
        overlap,
        "MTE2 and V should overlap in a double-buffered kernel under --sched timed"
    );
    let svg = pto_vm::trace::svg(&k.program, &f.out.trace, "t", "cycles");
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
}
