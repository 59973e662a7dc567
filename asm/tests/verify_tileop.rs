//! PTODSL TileOp helper bodies (asm/src/verify_tileop.rs).

mod common;

use pto_isa_spec::ProfileId;

fn errors(src: &str) -> Vec<(u32, String)> {
    common::errors_on(ProfileId::A5, src)
}

fn helper(header: &str, body: &str) -> String {
    format!(
        "func.func private @h({header}) attributes {{pto.tileop.helper}} {{\n{body}  return\n}}\n"
    )
}

#[test]
fn helpers_hold_only_compute() {
    let ok = helper("", "  %m = pto.pset_b32 \"PAT_ALL\" : !pto.mask<b32>\n");
    assert!(errors(&ok).is_empty(), "{:?}", errors(&ok));
    for (body, why) in [
        ("  pto.barrier <PIPE_V>\n", "pipe synchronization"),
        (
            "  %t = pto.alloc_tile : !pto.tile_buf<vec, 1x16xf32>\n",
            "Tile allocation",
        ),
        (
            "  %z = arith.constant 0 : i32\n  %v = pto.prmt %z, %z, %z : i32, i32, i32 -> i32\n",
            "SIMT operations directly",
        ),
    ] {
        let errs = errors(&helper("", body));
        let line = body.lines().count() as u32 + 1;
        assert!(
            errs.iter().any(|(l, m)| *l == line && m.contains(why)),
            "{body}: {errs:?}"
        );
    }
    // the same ops outside a helper are fine
    assert!(errors("func.func @k() {\n  pto.barrier <PIPE_V>\n  return\n}\n").is_empty());
}

#[test]
fn helpers_return_nothing() {
    let src = "func.func private @h() -> i32 attributes {pto.tileop.helper} {\n  %one = arith.constant 1 : i32\n  return %one : i32\n}\n";
    let errs = errors(src);
    assert!(
        errs.iter()
            .any(|(l, m)| *l == 1 && m.contains("must not return values")),
        "{errs:?}"
    );
}
