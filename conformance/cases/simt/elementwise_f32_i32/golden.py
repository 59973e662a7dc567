#!/usr/bin/env python3
"""SIMT scalar math, converts and integer helpers, one thread per element of a 8x4x2 launch."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(71)
T = 64
x = rng.uniform(-6.0, 6.0, T).astype(np.float32)
# ties for rint / round / converts, exact integers, signed zero
x[:10] = [2.5, -2.5, 0.5, -0.5, 3.0, -3.0, 1.5, -1.5, 0.0, -0.0]
n = rng.integers(-(1 << 31), 1 << 31, T, dtype=np.int64).astype(np.int32)
m = rng.integers(-(1 << 31), 1 << 31, T, dtype=np.int64).astype(np.int32)
n[:4] = [-(1 << 31), (1 << 31) - 1, -1, 16777217]
m[:4] = [-(1 << 31), -1, -1, 3]
x.tofile(d / "v1.bin")
n.tofile(d / "v2.bin")
m.tofile(d / "v3.bin")
np.zeros(14 * T, np.float32).tofile(d / "v4.bin")
np.zeros(9 * T, np.int32).tofile(d / "v5.bin")

f32 = np.float32
X = x.astype(np.float64)
ax = np.abs(x)
xq = (x * f32(0.25)).astype(np.float64)
ax1 = (ax + f32(1.0)).astype(np.float64)


def half_away(v):
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


fout = [
    np.sqrt(ax.astype(np.float64)),
    np.exp(xq),
    np.log(ax1),
    np.sin(X),
    np.cos(X),
    np.ceil(X),
    np.floor(X),
    np.rint(X),
    half_away(X),
    np.minimum(X, 0.75),
    np.maximum(X, -0.75),
    np.power(ax.astype(np.float64), 1.5),
    X * X - 1.0,  # exact in f64 for f32 inputs, then one rounding like fma
    n.astype(np.float64),
]
np.concatenate([v.astype(np.float32) for v in fout]).tofile(d / "golden_v4.bin")

N = n.astype(np.int64)
M = m.astype(np.int64)
NU = N & 0xFFFFFFFF
MU = M & 0xFFFFFFFF
wide = N * M
t = np.arange(T, dtype=np.int64)
sel = ((t * 30001) ^ M) & 0xFFFFFFFF
# prmt: source bytes 0..3 come from m (second operand), 4..7 from n
src = [(((MU if i < 4 else NU) >> (8 * (i % 4))) & 0xFF) for i in range(8)]
prmt = np.zeros(T, np.int64)
for k in range(4):
    idx = (sel >> (4 * k)) & 7
    byte = np.choose(idx, src)
    prmt |= byte << (8 * k)
x8 = (x * f32(8.0)).astype(np.float64)
ids = np.zeros(T, np.int64)
for tt in range(T):
    tx, ty, tz = tt % 8, tt // 8 % 4, tt // 32
    ids[tt] = tx + 10 * ty + 100 * tz + 1000 * 8 + 10000 * 4 + 100000 * 2
iout = [
    np.trunc(x8),
    np.rint(X),
    (N * M) >> 32,
    (NU * MU) >> 32,
    wide,
    wide >> 32,
    prmt,
    ids,
    np.full(T, 7),  # grid dims and block index of a single-block launch read 0
]
M32 = (1 << 32) - 1
np.concatenate([(v.astype(np.int64) & M32).astype(np.uint32).view(np.int32) for v in iout]).tofile(
    d / "golden_v5.bin"
)
