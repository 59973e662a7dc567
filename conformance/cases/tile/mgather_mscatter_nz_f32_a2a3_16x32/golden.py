#!/usr/bin/env python3
"""mgather/mscatter on NZ GM tables (A2/A3): the table view has shape
[B, BCols, BRows, 16, C0] (f32: C0 = 8) and holds the logical matrix of
BRows*16 rows and B*BCols*C0 columns; logical (r, c) lives at element
(b // BCols)*s0 + (b % BCols)*s1 + (r // 16)*s2 + (r % 16)*s3 + (c % C0)*s4,
b = c // C0. Row mode moves whole logical rows; elem mode indexes the logical
matrix row-major and walks the tile column block by column block (C0 wide),
row by row inside a block, so a scatter's last write in that order wins."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(2024)
f32 = np.float32
C0 = 8


def nz_offsets(b, bcols, brows):
    """GM element offset of every logical (r, c) of a packed NZ table."""
    s4, s3 = 1, C0
    s2 = 16 * C0
    s1 = brows * s2
    s0 = bcols * s1
    rows, cols = brows * 16, b * bcols * C0
    r = np.arange(rows)[:, None]
    c = np.arange(cols)[None, :]
    blk = c // C0
    return (blk // bcols) * s0 + (blk % bcols) * s1 + (r // 16) * s2 + (r % 16) * s3 + (c % C0) * s4


def to_gm(logical, off):
    g = np.zeros(logical.size, f32)
    g[off.reshape(-1)] = logical.reshape(-1)
    return g


# gather table: shape [2, 2, 2, 16, 8] -> logical 32 x 32
off_big = nz_offsets(2, 2, 2)
tab = rng.integers(-500, 500, (32, 32)).astype(f32)
ridx = rng.integers(0, 32, (1, 16)).astype(np.int32)
ridx[0, 3] = ridx[0, 9]
rows = tab[ridx[0]]  # 16 x 32

eidx = rng.integers(0, 1024, (16, 16)).astype(np.int32)
eidx[0, 0], eidx[5, 7], eidx[15, 15] = 1024, -1, 1023
ok = (eidx >= 0) & (eidx < 1024)
elems = np.where(ok, tab.reshape(-1)[np.clip(eidx, 0, 1023)], 0).astype(f32)

# scatter tables: shape [2, 2, 1, 16, 8] -> logical 16 x 32
off_small = nz_offsets(2, 2, 1)
stab0 = rng.integers(-9, 9, (16, 32)).astype(f32)
sidx = np.array([[4, 0, 15, 4, 7, 1, 2, 9, 3, 5, 6, 8, 10, 11, 12, 13]], np.int32)
stab = stab0.copy()
for r in range(16):
    stab[sidx[0, r]] = rows[r]


def walk(v_row, v_col):
    """The NZ elem-mode walk: column blocks, rows, columns inside a block."""
    for cb in range(0, v_col, C0):
        for i in range(v_row):
            for j in range(cb, min(cb + C0, v_col)):
                yield i, j


# elem scatter, no atomic: duplicates whose winner depends on the walk order
xidx = rng.permutation(512)[:256].reshape(16, 16).astype(np.int32)
xidx[1, 0] = xidx[0, 8]  # row-major order would let (1, 0) win; the NZ walk ends on (0, 8)
xidx[7, 3] = xidx[2, 12]
xtab0 = rng.integers(-9, 9, (16, 32)).astype(f32)
xtab = xtab0.copy().reshape(-1)
for i, j in walk(16, 16):
    xtab[xidx[i, j]] = elems[i, j]
xtab = xtab.reshape(16, 32)

# elem scatter with atomic add: repeated indices accumulate
aidx = rng.integers(0, 64, (16, 16)).astype(np.int32)
atab0 = rng.integers(-9, 9, (16, 32)).astype(f32)
atab = atab0.copy().reshape(-1)
for i, j in walk(16, 16):
    atab[aidx[i, j]] = f32(atab[aidx[i, j]] + elems[i, j])
atab = atab.reshape(16, 32)

to_gm(tab, off_big).tofile(d / "v1.bin")
ridx.tofile(d / "v2.bin")
np.zeros_like(rows).tofile(d / "v3.bin")
rows.tofile(d / "golden_v3.bin")
eidx.tofile(d / "v4.bin")
np.zeros_like(elems).tofile(d / "v5.bin")
elems.tofile(d / "golden_v5.bin")
to_gm(stab0, off_small).tofile(d / "v6.bin")
to_gm(stab, off_small).tofile(d / "golden_v6.bin")
sidx.tofile(d / "v7.bin")
to_gm(xtab0, off_small).tofile(d / "v8.bin")
to_gm(xtab, off_small).tofile(d / "golden_v8.bin")
xidx.tofile(d / "v9.bin")
to_gm(atab0, off_small).tofile(d / "v10.bin")
to_gm(atab, off_small).tofile(d / "golden_v10.bin")
aidx.tofile(d / "v11.bin")
