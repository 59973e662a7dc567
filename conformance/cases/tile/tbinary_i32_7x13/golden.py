#!/usr/bin/env python3
"""i32 tile-tile binary ops (wrapping), shifts, taddc/tsubc, partial min/mul."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(29)
a = rng.integers(-100000, 100000, (7, 13)).astype(np.int32)
b = rng.integers(1, 3000, (7, 13)).astype(np.int32) * rng.choice([-1, 1], (7, 13)).astype(np.int32)
s = rng.integers(0, 32, (7, 13)).astype(np.int32)
a[0, :4] = [2**31 - 1, -2**31, 2**31 - 1, -2**31 + 5]
b[0, :4] = [1, -1, 2**31 - 1, -2**30]
a[1, :3] = [7, -7, -7]
b[1, :3] = [-2, 2, -2]
for k, x in enumerate([a, b, s], start=1):
    x.tofile(d / f"v{k}.bin")
A, B, S = (x.astype(np.int64) for x in (a, b, s))
q = np.abs(A) // np.abs(B) * np.sign(A) * np.sign(B)
inb = np.zeros((7, 13), bool)
inb[:3, :5] = True
PS = np.zeros((7, 13), np.int64)
PS[:3, :5] = B.reshape(-1)[:15].reshape(3, 5)
outs = [A + B, A - B, A * B, q, np.maximum(A, B), np.minimum(A, B), A & B, A | B, A ^ B,
        A << S, A >> S, A + B + S, A - B + S,
        np.where(inb, np.minimum(A, PS), A), np.where(inb, PS * A, A)]
for k, o in enumerate(outs, start=4):
    np.zeros((7, 13), np.int32).tofile(d / f"v{k}.bin")
    (np.asarray(o) & 0xFFFFFFFF).astype(np.uint32).view(np.int32).tofile(d / f"golden_v{k}.bin")
