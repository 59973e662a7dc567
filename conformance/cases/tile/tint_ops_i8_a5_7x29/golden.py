#!/usr/bin/env python3
"""i8 ops on A5, 7x29 valid; every result wraps to 8 bits."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(101)
a = rng.integers(-128, 128, (7, 29)).astype(np.int8)
b = rng.integers(1, 128, (7, 29)).astype(np.int8) * rng.choice([-1, 1], (7, 29)).astype(np.int8)
s = rng.integers(0, 8, (7, 29)).astype(np.int8)
a[0, :3], b[0, :3] = [-128, -128, 127], [-1, 1, 1]
for k, v in enumerate([a, b, s], start=1):
    v.tofile(d / f"v{k}.bin")
A, B, S = (v.astype(np.int64) for v in (a, b, s))
q = np.abs(A) // np.abs(B) * np.sign(A) * np.sign(B)
outs = [A + B, A - B, A * B, q, np.maximum(A, B), np.minimum(A, B), A << S, A >> S,
        np.abs(A), -A, np.maximum(A, 0), ~A, A + 100, A * -3]
for k, o in enumerate(outs, start=4):
    np.zeros((7, 29), np.int8).tofile(d / f"v{k}.bin")
    ((np.asarray(o) + 128) % 256 - 128).astype(np.int8).tofile(d / f"golden_v{k}.bin")
