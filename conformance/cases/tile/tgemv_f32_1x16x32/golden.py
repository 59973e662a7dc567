#!/usr/bin/env python3
"""tgemv f32: 1x16 row vector times 16x32 matrix, fma in k order (f32), bias and acc forms."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
a = rng.uniform(-1, 1, (1, 16)).astype(np.float32)
b = rng.uniform(-1, 1, (16, 32)).astype(np.float32)
bias = rng.uniform(-1, 1, (1, 32)).astype(np.float32)
for k, x in enumerate([a, b, bias], start=1):
    x.tofile(d / f"v{k}.bin")


def mv(init):
    c = init.astype(np.float32).copy()
    for kk in range(16):
        # a*b + c in f64 is exact enough for f32 operands to round like an fma
        c = (a[0, kk].astype(np.float64) * b[kk].astype(np.float64) + c.astype(np.float64)).astype(np.float32)
    return c.reshape(1, 32)


c = mv(np.zeros(32))
cb = mv(bias[0])
cacc = mv(c[0])
for k, o in enumerate([c, cb, cacc], start=4):
    np.zeros((1, 32), np.float32).tofile(d / f"v{k}.bin")
    o.tofile(d / f"golden_v{k}.bin")
