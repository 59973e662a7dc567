//! Every element access checks the storage offset its layout produces against
//! the tile's own bytes: a boxed layout whose shape is not a whole number of
//! boxes maps in-shape coordinates past the tile's end, and such an access
//! faults instead of landing in the neighbouring tile.

use pto_asm::ty::{BLayout, SLayout, TileLoc};
use pto_isa_spec::DType;
use pto_vm::value::Tile;
use pto_vm::{load_text, run_kernel, Arg, CheckMode, Config, RunError, Sched};

fn nz(elem: DType, rows: i64, cols: i64) -> Tile {
    Tile {
        loc: TileLoc::Mat,
        addr: 0x1000,
        elem,
        rows,
        cols,
        v_row: rows,
        v_col: cols,
        blayout: BLayout::ColMajor,
        slayout: SLayout::RowMajor,
        fractal: 512,
        pad: 0,
    }
}

/// A 1-byte NZ box is 16 rows x 32 columns: a 32x16 i8 tile holds half a box
/// column, so its second box row starts at byte 512, past its 512 bytes.
#[test]
fn a_partial_box_column_faults_instead_of_leaving_the_tile() {
    let t = nz(DType::I8, 32, 16);
    assert_eq!(t.bytes(), 512);
    assert_eq!(t.elem_addr(15, 15).unwrap(), 0x1000 + 15 * 32 + 15);
    let e = t.elem_addr(16, 0).unwrap_err().to_string();
    assert!(e.contains("outside the tile's 512 bytes"), "{e}");
    // whole boxes: every element of a 32x32 tile stays inside its 1024 bytes
    let t = nz(DType::I8, 32, 32);
    for r in 0..32 {
        for c in 0..32 {
            let a = t.elem_addr(r, c).unwrap();
            assert!((0x1000..0x1000 + 1024).contains(&a));
        }
    }
    assert!(t.elem_addr(32, 0).is_err() && t.elem_addr(0, 32).is_err());
}

/// End to end: a vec ZZ tile may have fewer rows than a box (the verifier
/// allows it, as PTOAS does), but then its second box column starts past the
/// tile; writing it faults at the writing instruction's line.
#[test]
fn a_write_past_a_boxed_tile_faults_at_its_line() {
    let src = r#"module attributes {pto.target_arch = "a2a3"} {
  func.func @k() attributes {pto.entry} {
    %one = arith.constant 1.0 : f16
    %t = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f16, rows=8, cols=32, v_row=8, v_col=32, blayout=row_major, slayout=row_major, fractal=512, pad=0>
    %n = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f16, rows=8, cols=32, v_row=8, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    pto.texpands ins(%one : f16) outs(%t : !pto.tile_buf<loc=vec, dtype=f16, rows=8, cols=32, v_row=8, v_col=32, blayout=row_major, slayout=row_major, fractal=512, pad=0>)
    return
  }
}"#;
    let k = load_text("t.pto", src, None).unwrap_or_else(|e| panic!("does not load:\n{e}"));
    let cfg = Config {
        profile: k.profile,
        sched: Sched::InOrder,
        check: CheckMode::Warn,
        max_steps: 100_000,
        ..Config::default()
    };
    let f = run_kernel(&k, &cfg, None, &[] as &[Arg]).expect("runs");
    match f.out.error {
        Some(RunError::Fault { inst, message }) => {
            assert_eq!(k.program.info(inst).loc.line, 6);
            assert!(
                message.contains("outside the tile's 512 bytes"),
                "{message}"
            );
        }
        other => panic!("expected a fault, got {other:?}"),
    }
}
