#!/usr/bin/env python3
"""f32 unary ops, 7x13 valid; f64 math rounded once to f32, edge lanes +-inf/+-0."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(41)
a = rng.uniform(-9, 9, (7, 13)).astype(np.float32)
a[0, :4] = [np.inf, -np.inf, 0.0, -0.0]
p = rng.uniform(0.01, 50, (7, 13)).astype(np.float32)
p[0, :3] = [0.0, np.inf, 1.0]
a.tofile(d / "v1.bin")
p.tofile(d / "v2.bin")
A, P = a.astype(np.float64), p.astype(np.float64)
with np.errstate(all="ignore"):
    outs = [np.abs(A), -A, np.log(P), np.sqrt(P), 1 / np.sqrt(P), 1 / A, np.maximum(A, 0)]
for k, o in enumerate(outs, start=3):
    np.zeros((7, 13), np.float32).tofile(d / f"v{k}.bin")
    o.astype(np.float32).tofile(d / f"golden_v{k}.bin")
