#!/usr/bin/env python3
"""vcls on i16/i32 (count of leading bits equal to the sign bit, the sign bit included) and vselrv2."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(4242)


def edge(bits, n):
    """Random values of every magnitude, plus 0, -1, 1, -2 and the extremes."""
    sh = rng.integers(0, bits, n)
    mag = rng.integers(0, 1 << 62, n, dtype=np.int64) >> (62 - sh)
    v = np.where(rng.integers(0, 2, n) == 1, -mag - 1, mag)
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    v[:6] = [0, -1, 1, -2, lo, hi]
    return v


def cls(v, bits):
    u = v & ((1 << bits) - 1)
    sign = (u >> (bits - 1)) & 1
    out = np.zeros_like(v)
    for i, (x, s) in enumerate(zip(u, sign)):
        k = 0
        while k < bits and ((int(x) >> (bits - 1 - k)) & 1) == s:
            k += 1
        out[i] = k
    return out


a = edge(16, 256).astype(np.int16)
b = edge(32, 128).astype(np.int32)
idx = rng.integers(0, 64, 128).astype(np.int32)
a.tofile(d / "v1.bin")
b.tofile(d / "v2.bin")
idx.tofile(d / "v3.bin")
np.zeros(256, np.int16).tofile(d / "v4.bin")
np.zeros(128, np.int32).tofile(d / "v5.bin")
np.zeros(128, np.int32).tofile(d / "v6.bin")
cls(a.astype(np.int64), 16).astype(np.int16).tofile(d / "golden_v4.bin")
cls(b.astype(np.int64), 32).astype(np.int32).tofile(d / "golden_v5.bin")
g6 = np.concatenate([b[r : r + 64][idx[r : r + 64]] for r in (0, 64)]).astype(np.int32)
g6.tofile(d / "golden_v6.bin")
