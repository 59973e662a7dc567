#!/usr/bin/env python3
"""tmatmul.mx on A5: e4m3fn A x e5m2 B with E8M0 block scales -> f32.

Each 32-element block of K has one scale per row of A (A_scale, M x K/32)
and one per column of B (B_scale, K/32 x N); an element counts as
code_value * 2**(scale - 127). Values are small multiples of 1/4 and the
scales within 2**-3 .. 2**3, so every scaled product and every sum is exact
in f32 and the accumulation order does not matter."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(71)
M, K, N = 16, 64, 32
G = K // 32


def code(v, mbits, bias):
    """Code of a normal (or zero) value in a 1-e-m float with `mbits` mantissa bits."""
    if v == 0:
        return 0
    s = 0x80 if v < 0 else 0
    m, e = np.frexp(abs(v))  # abs(v) = m * 2**e, 0.5 <= m < 1
    mant = int(round((m * 2 - 1) * 2**mbits))
    assert (1 + mant / 2**mbits) * 2.0 ** (e - 1) == abs(v)
    return s | ((e - 1 + bias) << mbits) | mant


e4m3 = np.vectorize(lambda v: code(v, 3, 7), otypes=[np.uint8])
e5m2 = np.vectorize(lambda v: code(v, 2, 15), otypes=[np.uint8])
a = rng.choice(np.arange(-12, 13) / 4, (M, K))
b = rng.choice(np.array([0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.5, 3]), (K, N))
b *= rng.choice([-1, 1], (K, N))
sa = rng.integers(124, 131, (M, G)).astype(np.uint8)
sb = rng.integers(124, 131, (G, N)).astype(np.uint8)
bias = (rng.integers(-4000, 4000, (1, N)) / 64).astype(np.float32)
e4m3(a).tofile(d / "v1.bin")
sa.tofile(d / "v2.bin")
e5m2(b).tofile(d / "v3.bin")
sb.tofile(d / "v4.bin")
bias.tofile(d / "v5.bin")
sa_full = np.repeat(2.0 ** (sa.astype(np.int64) - 127), 32, axis=1)
sb_full = np.repeat(2.0 ** (sb.astype(np.int64) - 127), 32, axis=0)
c = (a * sa_full) @ (b * sb_full)
for k, o in enumerate([c, c + bias, 2 * c], start=6):
    np.zeros((M, N), np.float32).tofile(d / f"v{k}.bin")
    o.astype(np.float32).tofile(d / f"golden_v{k}.bin")
