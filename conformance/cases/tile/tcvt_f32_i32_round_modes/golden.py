#!/usr/bin/env python3
"""tcvt f32 -> i32 under each rounding mode, saturating (NaN -> 0)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
x = rng.uniform(-100, 100, (4, 32)).astype(np.float32)
x[0, :16] = np.arange(-8, 8) + 0.5  # ties
x[1, :8] = [0.25, -0.25, 0.75, -0.75, 1e10, -1e10, np.inf, -np.inf]
x[1, 8:12] = [np.nan, -0.0, 2147483520.0, -2147483648.0]
x.tofile(d / "v1.bin")
v = x.astype(np.float64)


def odd(v):
    f = np.floor(v)
    return np.where(f == v, v, np.where(np.mod(f, 2) == 1, f, f + 1))


with np.errstate(invalid="ignore"):
    outs = [np.rint(v), np.sign(v) * np.floor(np.abs(v) + 0.5), np.floor(v), np.ceil(v), np.trunc(v), odd(v)]
for k, o in enumerate(outs, start=2):
    o = np.nan_to_num(o, nan=0.0, posinf=2.0**31, neginf=-2.0**31)
    o = np.clip(o, -2.0**31, 2.0**31 - 1).astype(np.int64).astype(np.int32)
    np.zeros((4, 32), np.int32).tofile(d / f"v{k}.bin")
    o.tofile(d / f"golden_v{k}.bin")
