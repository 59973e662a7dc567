#!/usr/bin/env python3
"""i32 vec-scalar subtract/and/or/xor (wrapping), popcount, relu and a bitcast round trip through f32 abs."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(73)
N, TAIL = 256, 250
lo, hi = -(1 << 31), 1 << 31
a = rng.integers(lo, hi, N, dtype=np.int64).astype(np.int32)
a[:8] = [lo, hi - 1, -1, 0, 1, -2, 0x0F0F0F0F, -65536]
bits = rng.integers(lo, hi, N, dtype=np.int64).astype(np.int32)
u = bits.view(np.uint32)
snan = ((u & 0x7F800000) == 0x7F800000) & ((u & 0x7FFFFF) != 0) & ((u & 0x400000) == 0)
u[snan] |= 0x400000  # quiet any signalling NaN: the docs do not say whether vabs keeps its payload
# -0.0, -inf, a negative NaN, a negative denormal as raw f32 bits
bits[:4] = np.array([0x80000000, 0xFF800000, 0xFFC00001, 0x80000001], np.uint32).view(np.int32)
a.tofile(d / "v1.bin")
bits.tofile(d / "v2.bin")

A = a.astype(np.int64)
M32 = (1 << 32) - 1
pop = np.array([bin(int(v) & M32).count("1") for v in A], np.int64)
outs = [A + 2147483647, A & 0x0F0F0F0F, A | -65536, A ^ 0x5555AAAA, pop, np.maximum(A, 0),
        bits.astype(np.int64) & 0x7FFFFFFF]
g = np.zeros((len(outs), N), np.int32)
for r, o in enumerate(outs):
    g[r, :TAIL] = (o[:TAIL] & M32).astype(np.uint32).view(np.int32)
g.tofile(d / "golden_v3.bin")
