#!/usr/bin/env python3
"""tmatmul i8 x i8 -> i32, with bias and acc forms."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
a = rng.integers(-128, 128, (16, 32)).astype(np.int8)
b = rng.integers(-128, 128, (32, 32)).astype(np.int8)
bias = rng.integers(-100000, 100000, (1, 32)).astype(np.int32)
for k, x in enumerate([a, b, bias], start=1):
    x.tofile(d / f"v{k}.bin")
c = a.astype(np.int64) @ b.astype(np.int64)
outs = [c, c + bias, 2 * c]
for k, o in enumerate(outs, start=4):
    np.zeros((16, 32), np.int32).tofile(d / f"v{k}.bin")
    o.astype(np.int32).tofile(d / f"golden_v{k}.bin")
