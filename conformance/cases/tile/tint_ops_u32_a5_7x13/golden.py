#!/usr/bin/env python3
"""ui32 ops on A5, 7x13 valid: wrapping modulo 2^32, unsigned compare, divide and shift."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(89)
a = rng.integers(0, 2**32, (7, 13), dtype=np.uint64).astype(np.uint32)
b = rng.integers(1, 2**32, (7, 13), dtype=np.uint64).astype(np.uint32)
s = rng.integers(0, 32, (7, 13)).astype(np.uint32)
a[0, :4] = [2**32 - 1, 2**31, 5, 0]
b[0, :4] = [1, 2**31 - 1, 2**32 - 1, 3]
for k, v in enumerate([a, b, s], start=1):
    v.tofile(d / f"v{k}.bin")
A, B, S = (v.astype(np.uint64) for v in (a, b, s))
M = np.uint64(2**32)
big, dv, sh = np.uint64(3000000000), np.uint64(7), np.uint64(5)
outs = [(A + B) % M, (A + M - B) % M, (A * B) % M, A // B, np.maximum(A, B), np.minimum(A, B),
        A >> S, (M - 1) - A, (A + big) % M, np.maximum(A, big), np.minimum(A, big), A // dv, A >> sh]
for k, o in enumerate(outs, start=4):
    np.zeros((7, 13), np.uint32).tofile(d / f"v{k}.bin")
    np.asarray(o).astype(np.uint32).tofile(d / f"golden_v{k}.bin")
