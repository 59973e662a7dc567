#!/usr/bin/env python3
"""f32 tile-tile binary ops and partial ops, 7x13 valid; inf, -0 and x/0 lanes."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(23)
a = rng.uniform(-8, 8, (7, 13)).astype(np.float32)
b = rng.uniform(-4, 4, (7, 13)).astype(np.float32)
a[0, 0], b[0, 0] = np.inf, 2.0
a[1, 0], b[1, 0] = 3.0, 0.0
a[1, 1], b[1, 1] = -5.0, -0.0
a[2, 2], b[2, 2] = -np.inf, 0.5
a.tofile(d / "v1.bin")
b.tofile(d / "v2.bin")
# ps: 3x5 valid, holding b's first 15 elements
inb = np.zeros((7, 13), bool)
inb[:3, :5] = True
ps = np.zeros((7, 13), np.float32)
ps[:3, :5] = b.reshape(-1)[:15].reshape(3, 5)
with np.errstate(all="ignore"):
    outs = [a - b, a * b, a / b, np.maximum(a, b), np.minimum(a, b),
            np.where(inb, a + ps, a), np.where(inb, np.maximum(ps, a), a),
            np.where(inb, np.minimum(a, ps), a), np.where(inb, ps * a, a)]
for k, o in enumerate(outs, start=3):
    np.zeros((7, 13), np.float32).tofile(d / f"v{k}.bin")
    o.astype(np.float32).tofile(d / f"golden_v{k}.bin")
