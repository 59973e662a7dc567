#!/usr/bin/env python3
"""Elementwise extras, f32, 7x13 valid region; f64 math rounded once to f32."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
a = rng.uniform(-8, 8, (7, 13)).astype(np.float32)
b = rng.uniform(-3, 3, (7, 13)).astype(np.float32)
b[np.abs(b) < 0.1] = 0.5
p = rng.uniform(0.5, 2, (7, 13)).astype(np.float32)
e = rng.uniform(-2, 2, (7, 13)).astype(np.float32)
for k, x in enumerate([a, b, p, e], start=1):
    x.tofile(d / f"v{k}.bin")
A, B, P, E = (x.astype(np.float64) for x in (a, b, p, e))
s3, s2, sl = -1.5, 2.5, 0.125


def rem(x, y):
    r = np.fmod(x, y)
    return np.where((r != 0) & ((r < 0) != (y < 0)), r + y, r)


relu = lambda x: np.maximum(x, 0)
outs = [rem(A, B), np.fmod(A, B), P ** E, np.where(A > 0, A, A * B), A + B + P, A - B + P,
        relu(A + B), relu(A - B), rem(A, s3), np.fmod(A, s3), P ** s2, np.where(A > 0, A, A * sl),
        A + s3 + B, A - s3 + B,
        s3 * A + P, A * B + P, A * P + B, relu(A * P + B)]
for k, o in enumerate(outs, start=5):
    np.zeros((7, 13), np.float32).tofile(d / f"v{k}.bin")
    o.astype(np.float32).tofile(d / f"golden_v{k}.bin")
