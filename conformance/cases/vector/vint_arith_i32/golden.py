#!/usr/bin/env python3
"""i32 lane arithmetic, bitwise ops, shifts and vec-scalar forms with two's-complement wrap."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(53)
N = 1024
lo, hi = -(1 << 31), 1 << 31
a = rng.integers(lo, hi, N, dtype=np.int64).astype(np.int32)
b = rng.integers(lo, hi, N, dtype=np.int64).astype(np.int32)
s = rng.integers(0, 32, N).astype(np.int32)
edge = [lo, hi - 1, -1, 0, 1, lo, hi - 1, 65535, -65536, 1 << 30, -(1 << 30) - 1, 46341]
a[: len(edge)] = edge
b[: len(edge)] = [-1, 1, lo, lo, hi - 1, 1, -1, 65537, 65536, 2, 3, 46341]
s[: len(edge)] = [31, 1, 0, 31, 30, 0, 31, 16, 15, 1, 2, 3]
a.tofile(d / "v1.bin")
b.tofile(d / "v2.bin")
s.tofile(d / "v3.bin")
np.zeros(19 * N, np.int32).tofile(d / "v4.bin")

A, B, S = (v.astype(np.int64) for v in (a, b, s))
ap = A & 0x7FFFFFFF
M32 = (1 << 32) - 1
outs = [
    A + B, A - B, (A * B) & M32, np.maximum(A, B), np.minimum(A, B),
    np.abs(A), -A, A & B, A | B, A ^ B, ~A,
    (A << S) & M32, ap >> S,
    A + 1000000000, A * -3, np.maximum(A, -5), np.minimum(A, 77), (A << 29) & M32, ap >> 17,
]
# wrap to 32 bits (vabs/vneg of INT_MIN stay INT_MIN: truncation, not saturation)
np.concatenate([(o & M32).astype(np.uint32).view(np.int32) for o in outs]).tofile(d / "golden_v4.bin")
