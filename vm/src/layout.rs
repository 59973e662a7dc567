//! The one place that maps a tile coordinate (row, col) to its element offset in
//! tile storage, for every layout: plain row/column major and the boxed fractal
//! layouts (NZ, ZN, ZZ, NN) with 512-byte, 1024-byte (acc) and 32-byte (MX) boxes.

use pto_asm::ty::{BLayout, SLayout};

use crate::value::Tile;

/// Inner box shape (rows, cols) in elements for a tile.
pub fn box_shape(t: &Tile) -> (i64, i64) {
    let es = t.elem.bytes().max(1) as i64;
    match t.fractal {
        1024 => (16, 16),
        32 => {
            if t.slayout == SLayout::RowMajor {
                (16, 2)
            } else {
                (2, 16)
            }
        }
        _ => {
            if t.slayout == SLayout::ColMajor {
                (32 / es, 16)
            } else {
                (16, 32 / es)
            }
        }
    }
}

/// Element offset of (r, c) inside the tile's storage.
pub fn offset(t: &Tile, r: i64, c: i64) -> i64 {
    match (t.blayout, t.slayout) {
        (BLayout::RowMajor, SLayout::NoneBox) => r * t.cols + c,
        (BLayout::ColMajor, SLayout::NoneBox) => c * t.rows + r,
        (bl, sl) => {
            let (ir, ic) = box_shape(t);
            let (rb, ri, cb, ci) = (r / ir, r % ir, c / ic, c % ic);
            let inner = ir * ic;
            match (bl, sl) {
                // NZ: boxes run down the columns first; each box row-major
                (BLayout::ColMajor, SLayout::RowMajor) => {
                    cb * t.rows * ic + rb * inner + ri * ic + ci
                }
                // ZN
                (BLayout::RowMajor, SLayout::ColMajor) => {
                    rb * t.cols * ir + cb * inner + ci * ir + ri
                }
                // ZZ; a one-row tile (pto-isa exempts one-row boxed tiles
                // from whole boxes) holds its columns in order
                (BLayout::RowMajor, SLayout::RowMajor) if t.rows == 1 => c,
                (BLayout::RowMajor, SLayout::RowMajor) => {
                    rb * t.cols * ir + cb * inner + ri * ic + ci
                }
                // NN
                _ => cb * t.rows * ic + rb * inner + ci * ir + ri,
            }
        }
    }
}

/// `offset(r, 0)` for `r` in `0..n` (a tile's per-row offset table).
pub fn row_offsets(t: &Tile, n: i64) -> Vec<i64> {
    let period = if t.slayout == SLayout::NoneBox {
        1
    } else {
        box_shape(t).0
    };
    periodic(n, period, |r| offset(t, r, 0))
}

/// `offset(0, c)` for `c` in `0..n` (a tile's per-column offset table).
pub fn col_offsets(t: &Tile, n: i64) -> Vec<i64> {
    let period = if t.slayout == SLayout::NoneBox {
        1
    } else {
        box_shape(t).1
    };
    periodic(n, period, |c| offset(t, 0, c))
}

/// `f(0..n)` for an `f` with `f(i + p) = f(i) + (f(p) - f(0))`, which every
/// layout's offsets along one axis satisfy with `p` the box's extent on that
/// axis (box `b` starts a fixed stride after box `b - 1`), and linear inside
/// the first box (`f(i) = f(0) + i * (f(1) - f(0))` for `i < p`: a box is row
/// or column major). Evaluates `f` three times (no divisions per element).
fn periodic(n: i64, p: i64, f: impl Fn(i64) -> i64) -> Vec<i64> {
    let (n, p) = (n.max(0) as usize, p.max(1) as usize);
    let mut v: Vec<i64> = Vec::with_capacity(n);
    if n == 0 {
        return v;
    }
    let f0 = f(0);
    let inner = if n > 1 && p > 1 { f(1) - f0 } else { 0 };
    v.extend((0..n.min(p)).map(|i| f0 + i as i64 * inner));
    if n > p {
        let step = f(p as i64) - f0;
        for i in p..n {
            v.push(v[i - p] + step);
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use pto_asm::ty::TileLoc;
    use pto_isa_spec::DType;

    fn tile(bl: BLayout, sl: SLayout, rows: i64, cols: i64, elem: DType, fractal: u32) -> Tile {
        Tile {
            loc: TileLoc::Vec,
            addr: 0,
            elem,
            rows,
            cols,
            v_row: rows,
            v_col: cols,
            blayout: bl,
            slayout: sl,
            fractal,
            pad: 0,
        }
    }

    /// Every (box layout, in-box layout) pair a tile can have.
    const LAYOUTS: [(BLayout, SLayout); 6] = [
        (BLayout::RowMajor, SLayout::NoneBox),
        (BLayout::ColMajor, SLayout::NoneBox),
        (BLayout::ColMajor, SLayout::RowMajor),
        (BLayout::RowMajor, SLayout::ColMajor),
        (BLayout::RowMajor, SLayout::RowMajor),
        (BLayout::ColMajor, SLayout::ColMajor),
    ];

    #[test]
    fn a_one_row_zz_tile_is_its_storage_in_order() {
        let t = tile(BLayout::RowMajor, SLayout::RowMajor, 1, 128, DType::U8, 512);
        for c in 0..128 {
            assert_eq!(offset(&t, 0, c), c);
        }
    }

    #[test]
    fn every_layout_is_a_bijection() {
        for (bl, sl) in LAYOUTS {
            for (elem, fractal) in [
                (DType::F32, 512),
                (DType::F16, 512),
                (DType::I8, 512),
                (DType::F32, 1024),
            ] {
                let t = tile(bl, sl, 32, 64, elem, fractal);
                let mut seen = vec![false; 32 * 64];
                for r in 0..32 {
                    for c in 0..64 {
                        let o = offset(&t, r, c) as usize;
                        assert!(
                            o < seen.len() && !seen[o],
                            "{bl:?}/{sl:?}/{elem:?} ({r},{c}) -> {o}"
                        );
                        seen[o] = true;
                    }
                }
            }
        }
    }

    /// The native matmul packs operands with per-row and per-column offset
    /// tables; that needs offset(r, c) = offset(r, 0) + offset(0, c).
    #[test]
    fn every_layout_is_separable() {
        for (bl, sl) in LAYOUTS {
            for (elem, fractal) in [
                (DType::F32, 512),
                (DType::F16, 512),
                (DType::F32, 1024),
                (DType::F16, 32),
            ] {
                let t = tile(bl, sl, 32, 64, elem, fractal);
                for r in 0..32 {
                    for c in 0..64 {
                        assert_eq!(
                            offset(&t, r, c),
                            offset(&t, r, 0) + offset(&t, 0, c),
                            "{bl:?}/{sl:?}/{elem:?}/{fractal} ({r},{c})"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn offset_tables_match_offset_everywhere() {
        for (bl, sl) in LAYOUTS {
            for (elem, fractal) in [
                (DType::F32, 512),
                (DType::F16, 512),
                (DType::I8, 512),
                (DType::F32, 1024),
                (DType::F16, 32),
            ] {
                for (rows, cols) in [(32, 64), (1, 64), (64, 32), (48, 96)] {
                    let t = tile(bl, sl, rows, cols, elem, fractal);
                    let want: Vec<i64> = (0..rows).map(|r| offset(&t, r, 0)).collect();
                    assert_eq!(
                        row_offsets(&t, rows),
                        want,
                        "{bl:?}/{sl:?}/{elem:?}/{fractal} rows"
                    );
                    let want: Vec<i64> = (0..cols).map(|c| offset(&t, 0, c)).collect();
                    assert_eq!(
                        col_offsets(&t, cols),
                        want,
                        "{bl:?}/{sl:?}/{elem:?}/{fractal} cols"
                    );
                }
            }
        }
    }

    #[test]
    fn nz_boxes_are_row_major_inside() {
        let t = tile(
            BLayout::ColMajor,
            SLayout::RowMajor,
            32,
            32,
            DType::F16,
            512,
        );
        // f16 box is 16x16: (0,1) is next to (0,0); (1,0) is 16 further; (0,16) starts box column 1
        assert_eq!(offset(&t, 0, 1), 1);
        assert_eq!(offset(&t, 1, 0), 16);
        assert_eq!(offset(&t, 16, 0), 256);
        assert_eq!(offset(&t, 0, 16), 32 * 16);
    }
}
