#!/usr/bin/env python3
"""FIXPIPE NZ write-back with dst_stride in destination elements: C = A B
(16 x 16 x 32, f16 operands) as f16 NZ (C0 16, 24-row blocks), f32 NZ with
the channel split (C0 8) from nz2nz(1), and the raw copy's f32 NZ without
(C0 16) and with (C0 8) the split, 20-row blocks."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(2026)

a = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
b = rng.uniform(-1, 1, (16, 32)).astype(np.float16)
a.tofile(d / "v1.bin")
b.T.copy().tofile(d / "v2.bin")
c = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)


def nz(mat, c0, rows, dt):
    """Column blocks of c0, `rows` rows each (rows >= 16), -7 in the padding."""
    blocks = mat.shape[1] // c0
    out = np.full((blocks, rows, c0), -7.0, dt)
    for k in range(blocks):
        out[k, :16, :] = mat[:, k * c0:(k + 1) * c0]
    return out


for i, (c0, rows, dt) in zip(
    (3, 4, 5, 6),
    ((16, 24, np.float16), (8, 16, np.float32), (16, 20, np.float32), (8, 20, np.float32)),
):
    np.full(nz(c, c0, rows, dt).shape, -7.0, dt).tofile(d / f"v{i}.bin")
    nz(c, c0, rows, dt).tofile(d / f"golden_v{i}.bin")
