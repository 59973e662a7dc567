#!/usr/bin/env python3
"""Row reductions on i32 (wrapping), column max/min/prod on f32, 9x20 valid."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(47)
x = rng.integers(-2**31, 2**31, (9, 20), dtype=np.int64).astype(np.int32)
x[1] = rng.integers(-9, 10, 20)
x[2] = rng.integers(-2, 3, 20)
x[2][x[2] == 0] = 1
# halves up to 2 in magnitude: every column product is exact in f32, whatever the order
y = rng.choice(np.float32([-2, -1.5, -1, -0.5, 0.5, 1, 1.5, 2]), (9, 20)).astype(np.float32)
y[0, 0], y[3, 1] = np.inf, -np.inf
x.tofile(d / "v1.bin")
y.tofile(d / "v2.bin")
X = x.astype(np.int64)


def wrap(v):
    return (np.asarray(v) + 2**31) % 2**32 - 2**31


prod = np.ones(9, np.int64)
for j in range(20):
    prod = wrap(prod * X[:, j])
rows = [wrap(X.sum(1)), X.max(1), X.min(1), prod]
for k, o in enumerate(rows, start=3):
    np.zeros((9, 1), np.int32).tofile(d / f"v{k}.bin")
    o.astype(np.int32).reshape(9, 1).tofile(d / f"golden_v{k}.bin")
cp = y[0].copy()
for i in range(1, 9):
    cp = (cp * y[i]).astype(np.float32)
cols = [y.max(0), y.min(0), cp]
for k, o in enumerate(cols, start=7):
    np.zeros((1, 20), np.float32).tofile(d / f"v{k}.bin")
    o.astype(np.float32).reshape(1, 20).tofile(d / f"golden_v{k}.bin")
