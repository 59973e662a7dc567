#!/usr/bin/env python3
"""i32 row/column broadcasts and broadcast binary ops, 8x13 valid; wrapping products."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(53)
x = rng.integers(-10**6, 10**6, (8, 13)).astype(np.int32)
x[0, 0] = 2**31 - 1
s = rng.integers(1, 5000, (8, 1)).astype(np.int32) * rng.choice([-1, 1], (8, 1)).astype(np.int32)
c = rng.integers(1, 5000, (1, 13)).astype(np.int32) * rng.choice([-1, 1], (1, 13)).astype(np.int32)
for k, v in enumerate([x, s, c], start=1):
    v.tofile(d / f"v{k}.bin")
X, S, C = (v.astype(np.int64) for v in (x, s, c))


def tdiv(p, q):
    return np.abs(p) // np.abs(q) * np.sign(p) * np.sign(q)


def binops(v):
    return [X + v, X - v, X * v, tdiv(X, v), np.maximum(X, v), np.minimum(X, v)]


outs = [np.broadcast_to(S, (8, 13)), np.broadcast_to(C, (8, 13))] + binops(S) + binops(C)
for k, o in enumerate(outs, start=4):
    np.zeros((8, 13), np.int32).tofile(d / f"v{k}.bin")
    (np.asarray(o) & 0xFFFFFFFF).astype(np.uint32).view(np.int32).tofile(d / f"golden_v{k}.bin")
