#!/usr/bin/env python3
"""tpack: C-style casts of the valid region (3x20 of 3x32 GM rows)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(101)
x = rng.integers(-(2**31), 2**31, (3, 32), dtype=np.int64).astype(np.int32)
f = (rng.standard_normal((3, 32)) * 1000).astype(np.float32)
h = rng.integers(-(2**15), 2**15, (3, 32), dtype=np.int64).astype(np.int16)
for k, a in [(1, x), (2, f), (3, h)]:
    a.tofile(d / f"v{k}.bin")
for k, (src, t) in enumerate([(x, np.int16), (x, np.int8), (f, np.float16), (h, np.uint8)], start=4):
    out = np.zeros((3, 32), t)
    out[:, :20] = src[:, :20].astype(t)
    np.zeros((3, 32), t).tofile(d / f"v{k}.bin")
    out.tofile(d / f"golden_v{k}.bin")
