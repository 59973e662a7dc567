#!/usr/bin/env python3
"""mad_mx / mad_mx_acc / mad_mx_bias: f8E4M3 x f8E4M3 with E8M0 scales per
32-element K group, f32 accumulation; M = 16, K = 64, N = 32."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(88)
M, K, N, G = 16, 64, 32, 2


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


a = e4m3_codes((M, K))
bt = e4m3_codes((N, K))
sa = rng.integers(124, 131, (M, G)).astype(np.uint8)
sb = rng.integers(124, 131, (N, G)).astype(np.uint8)
bias = rng.uniform(-4, 4, N).astype(np.float32)
for i, x in enumerate([a, bt, sa, sb, bias], 1):
    x.tofile(d / f"v{i}.bin")
ga = np.repeat(2.0 ** (sa.astype(np.float64) - 127), 32, axis=1)
gb = np.repeat(2.0 ** (sb.astype(np.float64) - 127), 32, axis=1)
p = (e4m3_value(a) * ga) @ (e4m3_value(bt) * gb).T
p.astype(np.float32).tofile(d / "golden_v6.bin")
(2 * p).astype(np.float32).tofile(d / "golden_v7.bin")
(p + bias).astype(np.float32).tofile(d / "golden_v8.bin")
