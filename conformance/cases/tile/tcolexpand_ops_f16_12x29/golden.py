#!/usr/bin/env python3
"""Column-broadcast binary ops, f16: x (12x29) op c[j] (1x29); plus mode-2 row expand."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
x = rng.uniform(-3, 3, (12, 29)).astype(np.float16)
c = rng.uniform(0.5, 2, (1, 29)).astype(np.float16)
c[0, 4] = -0.0
c[0, 7] = np.inf
blk = rng.uniform(-2, 2, (12, 16)).astype(np.float16)
x.tofile(d / "v1.bin")
c.tofile(d / "v2.bin")
blk.tofile(d / "v3.bin")
a, b = x.astype(np.float64), c.astype(np.float64)
with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
    outs = [a + b, a - b, a * b, a / b, np.maximum(a, b), np.minimum(a, b), np.exp(a - b),
            np.broadcast_to(b, (12, 29)), a * blk.astype(np.float64)[:, np.arange(29) % 16]]
for k, o in enumerate(outs, start=4):
    np.zeros((12, 29), np.float16).tofile(d / f"v{k}.bin")
    o.astype(np.float16).tofile(d / f"golden_v{k}.bin")
