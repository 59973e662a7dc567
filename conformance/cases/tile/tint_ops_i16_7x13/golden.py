#!/usr/bin/env python3
"""i16 integer ops, 7x13 valid; every result wraps to 16 bits."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(83)
a = rng.integers(-2**15, 2**15, (7, 13)).astype(np.int16)
b = rng.integers(1, 300, (7, 13)).astype(np.int16) * rng.choice([-1, 1], (7, 13)).astype(np.int16)
s = rng.integers(0, 16, (7, 13)).astype(np.int16)
a[0, :4] = [2**15 - 1, -2**15, -2**15, 7]
b[0, :4] = [1, -1, 1, -2]
for k, v in enumerate([a, b, s], start=1):
    v.tofile(d / f"v{k}.bin")
A, B, S = (v.astype(np.int64) for v in (a, b, s))


def w(v):
    return (np.asarray(v) + 2**15) % 2**16 - 2**15


def tdiv(x, y):
    return np.abs(x) // np.abs(y) * np.sign(x) * np.sign(y)


big, m, sh, dv = 30000, -300, 3, -7
fm = A - tdiv(A, dv) * dv
rem = np.where((fm != 0) & ((fm < 0) != (dv < 0)), fm + dv, fm)
outs = [A + B, A - B, A * B, tdiv(A, B), np.maximum(A, B), np.minimum(A, B), A & B, A | B, A ^ B,
        A << S, A >> S, np.abs(A), -A, ~A, np.maximum(A, 0), np.maximum(w(A + B), 0),
        A + big, A * m, A >> sh, tdiv(A, dv), rem, fm]
for k, o in enumerate(outs, start=4):
    np.zeros((7, 13), np.int16).tofile(d / f"v{k}.bin")
    w(o).astype(np.int16).tofile(d / f"golden_v{k}.bin")
