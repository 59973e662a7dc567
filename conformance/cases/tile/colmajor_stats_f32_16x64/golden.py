#!/usr/bin/env python3
"""Column-major per-row statistics (rmsnorm-style) and a column-major 13x3 pair.

s = sqrt(rowsum(x*x) / 64 + 1e-3), y = x / s per row; q = max((p + p) * p, -5)
on the valid 13x3 of a 16x4 column-major tile (the rest of v5 stays 0).
Each op rounds to f32; the row sum is accumulated in f64 left to right and
rounded once (the interpreter's order).
"""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(23)
x = rng.uniform(-3, 3, (16, 64)).astype(np.float32)
x[3, :] = 0.0  # a zero row: s = sqrt(1e-3)
x[5, 7] = -0.0
p = rng.uniform(-4, 4, (4, 16)).astype(np.float32)  # column-major: p[col][row]
p[1, 2] = -0.0
p[2, 12] = 1.0e-40  # subnormal
x.tofile(d / "v1.bin")
p.tofile(d / "v2.bin")

f32 = np.float32
e = (x * x).astype(f32)
s = np.array([f32(sum(float(v) for v in row)) for row in e], dtype=f32)
s = (s * f32(0.015625)).astype(f32)
s = (s + f32(1.0e-3)).astype(f32)
s = np.sqrt(s.astype(np.float64)).astype(f32)
y = (x / s[:, None]).astype(f32)
q = np.zeros((4, 16), f32)
v = p[:3, :13]
t = (v + v).astype(f32)
t = (t * v).astype(f32)
q[:3, :13] = np.maximum(t, f32(-5.0))
for k, out in [(3, y), (4, s), (5, q)]:
    np.zeros(out.shape, f32).tofile(d / f"v{k}.bin")
    out.tofile(d / f"golden_v{k}.bin")
