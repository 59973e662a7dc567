#!/usr/bin/env python3
"""GM -> L1 mgather, elem mode (A5): idx[r, c] (a GM i32 array, rows idx_stride
apart) indexes the table as a flat array; gatherOob = zero leaves out-of-range
elements 0. The gather stages the tile in a GM scratch of Rows*Cols elements
in NZ order (C0 = 16 for f16: element (r, c) at (c // 16) * 32 * 16 + r * 16 +
c % 16, zero-filled first, then the valid region), and copies the scratch into
the NZ mat tile; the valid region is 30 x 32 of a 32 x 32 tile, so rows 30 and
31 stay zero. The tile then feeds a matmul.
v1 = table f16 (40 x 24 = 960 elements), v2 = indices i32 32 x 40 (row stride
40, only the first 32 columns of the first 30 rows used), v3 = scratch f16
(1024, its final NZ image is checked), v4 = B f16 32 x 16,
v5 = gathered @ B (f32 32 x 16)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(5151)
f16, f32 = np.float16, np.float32
R, C, C0, VR = 32, 32, 16, 30

table = rng.integers(-4, 5, (40, 24)).astype(f16)
idx = rng.integers(0, 960, (32, 40)).astype(np.int32)
idx[0, 0], idx[4, 17], idx[29, 31], idx[12, 5] = 960, -1, 5000, 959
b = rng.integers(-4, 5, (32, 16)).astype(f16)

flat = table.reshape(-1)
tile = np.zeros((R, C), f16)
for r in range(VR):
    for c in range(C):
        k = int(idx[r, c]) & 0xFFFFFFFF
        if k < flat.size:
            tile[r, c] = flat[k]

scratch = np.zeros(R * C, f16)
for r in range(R):
    for c in range(C):
        scratch[(c // C0) * R * C0 + r * C0 + c % C0] = tile[r, c]

prod = tile.astype(f32) @ b.astype(f32)

table.tofile(d / "v1.bin")
idx.tofile(d / "v2.bin")
np.full(R * C, 7, f16).tofile(d / "v3.bin")  # stale contents the gather overwrites
b.tofile(d / "v4.bin")
np.zeros((32, 16), f32).tofile(d / "v5.bin")
scratch.tofile(d / "golden_v3.bin")
prod.astype(f32).tofile(d / "golden_v5.bin")
