#!/usr/bin/env python3
"""tconcatidx: per-row concatenation of x[:, :ix/4] and y[:, :iy/4]; the rest stays."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(61)
x = rng.standard_normal((8, 32)).astype(np.float32)
y = rng.standard_normal((8, 32)).astype(np.float32)
n0 = np.array([32, 0, 5, 17, 1, 32, 0, 9])
n1 = np.array([32, 7, 0, 17, 30, 0, 0, 23])
ix = (n0 * 4).astype(np.int32).reshape(8, 1)
iy = (n1 * 4).astype(np.int32).reshape(8, 1)
pre = np.full((8, 64), -1.0, np.float32)
out = pre.copy()
for r in range(8):
    row = np.concatenate([x[r, :n0[r]], y[r, :n1[r]]])
    out[r, :len(row)] = row
for k, v in {1: x, 2: y, 3: ix, 4: iy, 5: pre}.items():
    v.tofile(d / f"v{k}.bin")
out.tofile(d / "golden_v5.bin")
