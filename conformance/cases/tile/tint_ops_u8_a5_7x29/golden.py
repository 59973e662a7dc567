#!/usr/bin/env python3
"""ui8 ops on A5, 7x29 valid: wrapping modulo 256, unsigned compare, divide and shift."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(103)
a = rng.integers(0, 256, (7, 29)).astype(np.uint8)
b = rng.integers(1, 256, (7, 29)).astype(np.uint8)
s = rng.integers(0, 8, (7, 29)).astype(np.uint8)
for k, v in enumerate([a, b, s], start=1):
    v.tofile(d / f"v{k}.bin")
A, B, S = (v.astype(np.int64) for v in (a, b, s))
outs = [A + B, A - B, A * B, A // B, np.maximum(A, B), np.minimum(A, B), A >> S, 255 - A,
        np.maximum(A, 200), A // 7]
for k, o in enumerate(outs, start=4):
    np.zeros((7, 29), np.uint8).tofile(d / f"v{k}.bin")
    (np.asarray(o) % 256).astype(np.uint8).tofile(d / f"golden_v{k}.bin")
