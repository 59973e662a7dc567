#!/usr/bin/env python3
"""tmatmul f16 x f16 -> f32 (fma in k order, f32 accumulator), with bias and acc forms."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
a = rng.uniform(-1, 1, (16, 32)).astype(np.float16)
b = rng.uniform(-1, 1, (32, 16)).astype(np.float16)
bias = rng.uniform(-1, 1, (1, 16)).astype(np.float32)
for k, x in enumerate([a, b, bias], start=1):
    x.tofile(d / f"v{k}.bin")


def mm(init):
    c = init.astype(np.float32).copy()
    for kk in range(32):
        # f16 products are exact in f32 and f64; one rounding per step = fma
        c = (c.astype(np.float64) + np.outer(a[:, kk].astype(np.float64), b[kk, :].astype(np.float64))).astype(np.float32)
    return c


c = mm(np.zeros((16, 16)))
cb = mm(np.broadcast_to(bias, (16, 16)))
cacc = mm(c)
for k, o in enumerate([c, cb, cacc], start=4):
    np.zeros((16, 16), np.float32).tofile(d / f"v{k}.bin")
    o.tofile(d / f"golden_v{k}.bin")
