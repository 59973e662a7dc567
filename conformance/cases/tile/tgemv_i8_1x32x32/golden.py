#!/usr/bin/env python3
"""tgemv i8 x i8 -> i32: a 1x32 row vector times a 32x32 matrix, bias and acc forms."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(59)
a = rng.integers(-128, 128, (1, 32)).astype(np.int8)
b = rng.integers(-128, 128, (32, 32)).astype(np.int8)
a[0, :2] = [-128, 127]
b[:2, 0] = [-128, -128]
bias = rng.integers(-100000, 100000, (1, 32)).astype(np.int32)
for k, x in enumerate([a, b, bias], start=1):
    x.tofile(d / f"v{k}.bin")
c = a.astype(np.int64) @ b.astype(np.int64)
for k, o in enumerate([c, c + bias, 2 * c], start=4):
    np.zeros((1, 32), np.int32).tofile(d / f"v{k}.bin")
    o.astype(np.int32).tofile(d / f"golden_v{k}.bin")
