#!/usr/bin/env python3
"""SIMT packed vector<2xT> pairs: lane-by-lane f16/f32/i16 math, converts, shuffle, packed atomics."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(74)
T = 32
# quarter steps in [-8, 8]: every f16 sum below is exact, whatever the order
a = (rng.integers(-32, 33, 2 * T) / 4).astype(np.float16)
b = (rng.integers(-32, 33, 2 * T) / 4).astype(np.float16)
c = rng.uniform(-300.0, 300.0, 2 * T).astype(np.float32)
c[:4] = [65504.0, 70000.0, 1.0 + 2.0**-11, -(1.0 + 3 * 2.0**-11)]  # f16 max, overflow, ties
n = rng.integers(-(1 << 15), 1 << 15, 2 * T).astype(np.int16)
n[:2] = [-(1 << 15), (1 << 15) - 1]
acc0 = np.array([0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 0.0, 4.0], np.float16)
for i, v in enumerate([a, b, c, n], 1):
    v.tofile(d / f"v{i}.bin")
np.zeros(7 * 2 * T, np.float16).tofile(d / "v5.bin")
np.zeros(2 * 2 * T, np.float32).tofile(d / "v6.bin")
np.zeros(2 * 2 * T, np.int16).tofile(d / "v7.bin")
acc0.tofile(d / "v8.bin")

A, B, C = (v.astype(np.float64) for v in (a, b, c))
pairs = np.arange(2 * T)
bfly = (pairs // 2 ^ 1) * 2 + pairs % 2  # lane t reads lane t ^ 1, pair order kept
h = [A * B + A, np.maximum(A, B), np.minimum(A, B), np.sqrt(np.abs(A)), C, A + B, A[bfly]]
np.concatenate([v.astype(np.float16) for v in h]).tofile(d / "golden_v5.bin")
w0 = a.astype(np.float32)
w1 = (C * C + w0.astype(np.float64)).astype(np.float32)
np.concatenate([w0, w1]).tofile(d / "golden_v6.bin")
N = n.astype(np.int64)
q = [(N + N), (N * N)]
np.concatenate([(v & 0xFFFF).astype(np.uint16).view(np.int16) for v in q]).tofile(d / "golden_v7.bin")
acc = acc0.astype(np.float64).reshape(4, 2)
acc += A.reshape(T, 2).reshape(8, 4, 2).sum(axis=0)
acc.reshape(-1).astype(np.float16).tofile(d / "golden_v8.bin")
