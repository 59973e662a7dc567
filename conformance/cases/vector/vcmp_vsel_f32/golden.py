#!/usr/bin/env python3
"""vcmp / vcmps / pnot / pand / vsel over 1024 f32 with NaN, infinities, ties and +-0."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
x = rng.uniform(-2, 2, 1024).astype(np.float32)
y = rng.uniform(-2, 2, 1024).astype(np.float32)
x[:8] = [np.nan, 1.0, 0.0, -0.0, np.inf, -np.inf, 0.5, 0.25]
y[:8] = [1.0, np.nan, -0.0, 0.0, 1.0, -np.inf, 0.5, 0.25]
y[100:140] = x[100:140]  # ties
x.tofile(d / "v1.bin")
y.tofile(d / "v2.bin")
for k in (3, 4, 5):
    np.zeros(1024, np.float32).tofile(d / f"v{k}.bin")
with np.errstate(invalid="ignore"):
    np.where(x > y, x, y).astype(np.float32).tofile(d / "golden_v3.bin")
    np.where((x < 0.5) & ~(x == y), np.float32(0.5), x).astype(np.float32).tofile(d / "golden_v4.bin")
    np.where(x >= y, 1.0, 0.0).astype(np.float32).tofile(d / "golden_v5.bin")
