#!/usr/bin/env python3
"""vaxpy / vlrelu / vprelu / vmula / vaddrelu / vsubrelu over 1000 of 1024 f32 lanes."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
n, total = 1000, 1024
x = rng.uniform(-8, 8, total).astype(np.float32)
y = rng.uniform(-8, 8, total).astype(np.float32)
x[:4] = [0.0, -0.0, 3.0, -3.0]
y[:4] = [-1.0, 1.0, -3.0, 3.0]
x.tofile(d / "v1.bin")
y.tofile(d / "v2.bin")
for k in (3, 4, 5):
    np.zeros(total, np.float32).tofile(d / f"v{k}.bin")

a = np.float32(0.125)
axpy = np.zeros(total, np.float32)
axpy[:n] = (a * x[:n] + y[:n]).astype(np.float32)
lr = np.where(x < 0, x * a, x).astype(np.float32)
pr = np.where(y < 0, y * np.abs(x), y).astype(np.float32)
mula = np.zeros(total, np.float32)
# fused: one rounding of y + lr * pr
mula[:n] = (y[:n].astype(np.float64) + lr[:n].astype(np.float64) * pr[:n].astype(np.float64)).astype(np.float32)
rel = np.zeros(total, np.float32)
rel[:n] = (np.maximum(x[:n] + y[:n], 0) + np.maximum(x[:n] - y[:n], 0)).astype(np.float32)
axpy.tofile(d / "golden_v3.bin")
mula.tofile(d / "golden_v4.bin")
rel.tofile(d / "golden_v5.bin")
