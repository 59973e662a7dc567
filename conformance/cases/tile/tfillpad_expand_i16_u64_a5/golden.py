#!/usr/bin/env python3
"""tfillpad_expand: i16 padded with -32768 into 32x32, ui64 with 2^64 - 1 and 0 into 16x16."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(109)
x = rng.integers(-2**15, 2**15, (5, 11)).astype(np.int16)
y = rng.integers(0, 2**64 - 1, (5, 11), dtype=np.uint64)
x.tofile(d / "v1.bin")
y.tofile(d / "v2.bin")
xm = np.full((32, 32), -2**15, np.int16)
xm[:5, :11] = x
ymax = np.full((16, 16), 2**64 - 1, np.uint64)
ymax[:5, :11] = y
ymin = np.zeros((16, 16), np.uint64)
ymin[:5, :11] = y
for k, o in [(3, xm), (4, ymax), (5, ymin)]:
    np.ones_like(o).tofile(d / f"v{k}.bin")
    o.tofile(d / f"golden_v{k}.bin")
