#!/usr/bin/env python3
"""tpartargmax/tpartargmin: values and indices; ties and the second source's valid
region as the manual states."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(59)
x = rng.integers(-4, 4, (16, 32)).astype(np.float32)  # many ties
y = rng.integers(-4, 4, (12, 20)).astype(np.float32)
ix = np.arange(16 * 32, dtype=np.uint32).reshape(16, 32)
iy = (10000 + np.arange(12 * 20, dtype=np.uint32)).reshape(12, 20)
for k, v in {1: x, 2: y, 3: ix, 4: iy}.items():
    v.tofile(d / f"v{k}.bin")

yy = np.full((16, 32), np.nan, np.float32)
yy[:12, :20] = y
iyy = np.zeros((16, 32), np.uint32)
iyy[:12, :20] = iy
inside = np.zeros((16, 32), bool)
inside[:12, :20] = True
first_max = ~inside | (x > yy)
first_min = ~inside | (x < yy)
outs = {5: np.where(first_max, x, yy), 6: np.where(first_max, ix, iyy),
        7: np.where(first_min, x, yy), 8: np.where(first_min, ix, iyy)}
for k, v in outs.items():
    t = np.float32 if k in (5, 7) else np.uint32
    np.zeros((16, 32), t).tofile(d / f"v{k}.bin")
    v.astype(t).tofile(d / f"golden_v{k}.bin")
