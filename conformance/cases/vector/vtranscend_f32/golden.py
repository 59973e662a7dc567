#!/usr/bin/env python3
"""exp, ln|x|, sqrt|x|, rsqrt|x|, 1/x and x/y of f32, computed in float64 and rounded once to f32."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(71)
N, TAIL = 256, 250
x = (rng.standard_normal(N) * 8).astype(np.float32)
y = (rng.standard_normal(N) * 4).astype(np.float32)
den = np.float32(1.5e-40)  # f32 denormal
edge = [np.nan, np.inf, -np.inf, 0.0, -0.0, den, -den, 88.8, -110.0, 1.0, 1e-30, 3e38, -87.0, 0.5, 2.0, 1e-38]
x[: len(edge)] = edge
y[: len(edge)] = [1.0, 2.0, -np.inf, 0.0, 3.0, den, 0.5, 1e-30, np.nan, -0.0, 1e30, 0.25, np.inf, 7.0, -3.0, 1e-10]
x.tofile(d / "v1.bin")
y.tofile(d / "v2.bin")

X, Y = x.astype(np.float64), y.astype(np.float64)
A = np.abs(X)
with np.errstate(all="ignore"):
    outs = [np.exp(X), np.log(A), np.sqrt(A), 1.0 / np.sqrt(A), 1.0 / X, X / Y]
g = np.zeros((len(outs), N), np.float32)
for r, o in enumerate(outs):
    with np.errstate(over="ignore"):
        g[r, :TAIL] = o[:TAIL].astype(np.float32)  # lanes past the plt tail are not stored
g.tofile(d / "golden_v3.bin")
