#!/usr/bin/env python3
"""vcadd / vcgadd / vcpadd per 64-lane f32 register; the last register has 48 active lanes."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
rows, lanes, n = 32, 64, 2000
x = rng.uniform(-8, 8, rows * lanes).astype(np.float32)
x.tofile(d / "v1.bin")
for k in (2, 3, 4):
    np.zeros(rows * lanes, np.float32).tofile(d / f"v{k}.bin")
act = (np.arange(rows * lanes) < n).reshape(rows, lanes)
xr = np.where(act, x.reshape(rows, lanes), 0).astype(np.float64)
s = np.zeros((rows, lanes), np.float32)
s[:, 0] = xr.sum(axis=1)
g = np.zeros((rows, lanes), np.float32)
g[:, :8] = xr.reshape(rows, 8, 8).sum(axis=2)
p = np.cumsum(x.reshape(rows, lanes).astype(np.float64), axis=1).astype(np.float32)
s.tofile(d / "golden_v2.bin")
g.tofile(d / "golden_v3.bin")
p.tofile(d / "golden_v4.bin")
