#!/usr/bin/env python3
"""mad_raw / mad_bias_raw (f16, 16 x 32 x 16) and mad_mx_raw /
mad_mx_bias_raw (f8E4M3 with E8M0 group scales, 16 x 64 x 16)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(61)


def e4m3_codes(shape):
    """Random finite f8E4M3FN codes with exponent fields 4..10."""
    e = rng.integers(4, 11, shape)
    m = rng.integers(0, 8, shape)
    s = rng.integers(0, 2, shape)
    return ((s << 7) | (e << 3) | m).astype(np.uint8)


def e4m3_value(c):
    c = c.astype(np.int64)
    e = (c >> 3) & 0xF
    m = c & 7
    v = np.where(e == 0, m / 8.0 * 2.0**-6, (1 + m / 8.0) * 2.0 ** (e - 7))
    return np.where(c >> 7, -v, v)


a = rng.uniform(-1, 1, (16, 32)).astype(np.float16)
bt = rng.uniform(-1, 1, (16, 32)).astype(np.float16)
bias = rng.uniform(-4, 4, 16).astype(np.float32)
x = e4m3_codes((16, 64))
yt = e4m3_codes((16, 64))
sa = rng.integers(124, 131, (16, 2)).astype(np.uint8)
sb = rng.integers(124, 131, (16, 2)).astype(np.uint8)
for i, v in enumerate([a, bt, bias, x, yt, sa, sb], 1):
    v.tofile(d / f"v{i}.bin")
ab = a.astype(np.float64) @ bt.astype(np.float64).T
f = np.float32
ab.astype(f).tofile(d / "golden_v8.bin")
(2 * ab).astype(f).tofile(d / "golden_v9.bin")
(ab + bias).astype(f).tofile(d / "golden_v10.bin")
ga = np.repeat(2.0 ** (sa.astype(np.float64) - 127), 32, axis=1)
gb = np.repeat(2.0 ** (sb.astype(np.float64) - 127), 32, axis=1)
p = (e4m3_value(x) * ga) @ (e4m3_value(yt) * gb).T
p.astype(f).tofile(d / "golden_v11.bin")
(p + bias).astype(f).tofile(d / "golden_v12.bin")
