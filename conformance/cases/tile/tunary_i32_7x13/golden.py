#!/usr/bin/env python3
"""i32 unary ops, 7x13 valid; tabs/tneg wrap at INT32_MIN, trecip truncates."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(43)
a = rng.integers(-50000, 50000, (7, 13)).astype(np.int32)
a[a == 0] = 3
a[0, :5] = [2**31 - 1, -2**31, 1, -1, 2]
a.tofile(d / "v1.bin")
A = a.astype(np.int64)
outs = [np.abs(A), -A, ~A, np.maximum(A, 0), np.where(np.abs(A) == 1, A, 0)]
for k, o in enumerate(outs, start=2):
    np.zeros((7, 13), np.int32).tofile(d / f"v{k}.bin")
    (np.asarray(o) & 0xFFFFFFFF).astype(np.uint32).view(np.int32).tofile(d / f"golden_v{k}.bin")
