#!/usr/bin/env python3
"""i16 lane arithmetic, bitwise ops, shifts and vec-scalar forms with two's-complement wrap."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(23)
N = 1024
a = rng.integers(-32768, 32768, N).astype(np.int16)
b = rng.integers(-32768, 32768, N).astype(np.int16)
s = rng.integers(0, 16, N).astype(np.int16)
edge = [-32768, 32767, -1, 0, 1, -32768, 32767, 255, -256, 16384, -16385, 181]
a[: len(edge)] = edge
b[: len(edge)] = [-1, 1, -32768, -32768, 32767, 1, -1, 255, 256, 2, 3, 181]
s[: len(edge)] = [15, 1, 0, 15, 14, 0, 15, 8, 7, 1, 2, 3]
a.tofile(d / "v1.bin")
b.tofile(d / "v2.bin")
s.tofile(d / "v3.bin")
np.zeros(19 * N, np.int16).tofile(d / "v4.bin")

A, B, S = a.astype(np.int64), b.astype(np.int64), s.astype(np.int64)
ap = A & 0x7FFF
outs = [
    A + B, A - B, A * B, np.maximum(A, B), np.minimum(A, B),
    np.abs(A), -A, A & B, A | B, A ^ B, ~A,
    A << S, ap >> S,
    A + 1000, A * -3, np.maximum(A, -5), np.minimum(A, 77), A << 3, ap >> 4,
]
# wrap to 16 bits (vabs(-32768) stays -32768: truncation, not saturation)
np.concatenate([o.astype(np.int64).astype(np.uint16).view(np.int16) for o in outs]).tofile(d / "golden_v4.bin")
