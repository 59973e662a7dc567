#!/usr/bin/env python3
"""SIMT atomics: histogram, integer folds (signed/unsigned), exch/cas on own words, f32 folds."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(72)
T = 64
key = rng.integers(0, 8, T).astype(np.int32)
key[:3] = [5, 5, 5]  # one bin well above the others
val = rng.integers(-(1 << 31), 1 << 31, T, dtype=np.int64).astype(np.int32)
val[:4] = [-(1 << 31), (1 << 31) - 1, -1, 0]
hist0 = np.zeros(8, np.int32)
acc0 = np.array([1000, 0, 0, -1, 0, -1, 0, 0x5A5A5A5A, 0, 0, 0, 0, 0, 0, 0, 0], np.int64)
acc0 = (acc0 & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
own0 = np.zeros(4 * T, np.int32)
own0[:T] = rng.integers(-1000, 1000, T).astype(np.int32)
t = np.arange(T)
own0[T : 2 * T] = np.where(t % 2 == 0, t, t + 1000)
facc0 = np.array([0.5, -100.0, 100.0, 0.0], np.float32)
for i, a in enumerate([key, val, hist0, acc0, own0, facc0], 1):
    a.tofile(d / f"v{i}.bin")

V = val.astype(np.int64)
VU = V & 0xFFFFFFFF
M32 = 0xFFFFFFFF


def i32(a):
    return (np.asarray(a, np.int64) & M32).astype(np.uint32).view(np.int32)


hist = np.bincount(key, minlength=8).astype(np.int32)
acc = acc0.astype(np.int64).copy()
acc[0] = acc[0] - V.sum()
acc[1] = min(acc[1], V.min())
acc[2] = max(acc[2], V.max())
acc[3] = min(acc[3] & M32, VU.min())
acc[4] = max(acc[4] & M32, VU.max())
andv = acc[5] & M32
for v in VU:
    andv &= v | 0xFFFFFF00
acc[5] = andv
orv = acc[6]
for k in key:
    orv |= 1 << int(k)
acc[6] = orv
xorv = acc[7] & M32
for v in VU:
    xorv ^= v
acc[7] = xorv
own = own0.astype(np.int64).copy()
own[2 * T : 3 * T] = own[:T]
own[:T] = 3 * t
own[3 * T :] = own[T : 2 * T]
own[T : 2 * T] = np.where(t % 2 == 0, -t, own[T : 2 * T])
f = ((V & 15) - 8).astype(np.float64)
facc = np.array([0.5 + f.sum(), max(-100.0, f.max()), min(100.0, f.min()), 0.0], np.float32)
i32(hist).tofile(d / "golden_v3.bin")
i32(acc).tofile(d / "golden_v4.bin")
i32(own).tofile(d / "golden_v5.bin")
facc.tofile(d / "golden_v6.bin")
