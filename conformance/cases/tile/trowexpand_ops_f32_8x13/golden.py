#!/usr/bin/env python3
"""Row-broadcast binary ops, f32: x (8x13) op s[i] (8x1); f64 math, rounded once."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
x = rng.uniform(-3, 3, (8, 13)).astype(np.float32)
s = rng.uniform(0.5, 2, (8, 1)).astype(np.float32)
s[3, 0] = -1.25
s[5, 0] = np.nan
x.tofile(d / "v1.bin")
s.tofile(d / "v2.bin")
a, b = x.astype(np.float64), s.astype(np.float64)
with np.errstate(invalid="ignore"):
    outs = [a + b, a - b, a * b, a / b, np.maximum(a, b), np.minimum(a, b), np.exp(a - b),
            b - a, np.broadcast_to(b, (8, 13))]
for k, o in enumerate(outs, start=3):
    np.zeros((8, 13), np.float32).tofile(d / f"v{k}.bin")
    o.astype(np.float32).tofile(d / f"golden_v{k}.bin")
