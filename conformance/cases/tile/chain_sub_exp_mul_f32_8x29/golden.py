#!/usr/bin/env python3
"""Fused chain t = exp(a - b), d = (t * c) * 0.25 over 8x29 f32 (each op rounded to f32)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(71)
a = rng.uniform(-4, 4, (8, 29)).astype(np.float32)
b = rng.uniform(-4, 4, (8, 29)).astype(np.float32)
c = rng.uniform(-2, 2, (8, 29)).astype(np.float32)
a[0, 0], b[0, 0] = -60.0, 60.0  # exp(-120): 0 in f32
a[1, 1], b[1, 1] = 3.0, 3.0  # exp(0) = 1 exactly
c[2, 2] = -0.0
for k, v in enumerate([a, b, c], start=1):
    v.tofile(d / f"v{k}.bin")
diff = (a - b).astype(np.float32)
t = np.exp(diff.astype(np.float64)).astype(np.float32)
out = ((t * c).astype(np.float32) * np.float32(0.25)).astype(np.float32)
for k, v in [(4, t), (5, out)]:
    np.zeros((8, 29), np.float32).tofile(d / f"v{k}.bin")
    v.tofile(d / f"golden_v{k}.bin")
