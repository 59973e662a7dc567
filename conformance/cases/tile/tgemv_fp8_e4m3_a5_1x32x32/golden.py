#!/usr/bin/env python3
"""tgemv on A5: fp8 e4m3fn x e4m3fn -> f32, with bias and acc forms.

The inputs are quarter steps in [-3, 3]: every product and every sum is exact
in f32, so the accumulation order does not matter."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(67)


def code(v):
    """e4m3fn code of a value representable in it (normal or zero)."""
    if v == 0:
        return 0
    s = 0x80 if v < 0 else 0
    m, e = np.frexp(abs(v))  # abs(v) = m * 2**e, 0.5 <= m < 1
    mant = int(round((m * 2 - 1) * 8))
    assert (1 + mant / 8) * 2.0 ** (e - 1) == abs(v)
    return s | ((e - 1 + 7) << 3) | mant


vals = np.arange(-12, 13) / 4
a = rng.choice(vals, (1, 32))
b = rng.choice(vals, (32, 32))
bias = (rng.integers(-4000, 4000, (1, 32)) / 64).astype(np.float32)
enc = np.vectorize(code, otypes=[np.uint8])
enc(a).tofile(d / "v1.bin")
enc(b).tofile(d / "v2.bin")
bias.tofile(d / "v3.bin")
c = a @ b
for k, o in enumerate([c, c + bias, 2 * c], start=4):
    np.zeros((1, 32), np.float32).tofile(d / f"v{k}.bin")
    o.astype(np.float32).tofile(d / f"golden_v{k}.bin")
