#!/usr/bin/env python3
"""Row reductions over a 13x27 f32 valid region: sum, max, min, prod (f64, rounded once)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
x = rng.uniform(-2, 2, (13, 27)).astype(np.float32)
x[1] = rng.uniform(0.9, 1.1, 27)  # a product that stays in range
x[3, 5] = np.nan
x[5, 7] = np.inf
x[6, :] = -0.0
x[7, 2] = -np.inf
x.tofile(d / "v1.bin")
x64 = x.astype(np.float64)
outs = [x64.sum(1), x64.max(1), x64.min(1), np.prod(x64, 1)]
for k, o in enumerate(outs, start=2):
    np.zeros((13, 1), np.float32).tofile(d / f"v{k}.bin")
    o.astype(np.float32).reshape(13, 1).tofile(d / f"golden_v{k}.bin")
