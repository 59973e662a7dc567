#!/usr/bin/env python3
"""settf32mode: tmatmul on TF32-rounded f32 operands (10 mantissa bits,
nearest even), then on full f32 operands; compared with rtol 1e-5."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(107)


def tf32(x):
    b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    low, hi = b & 0x1FFF, b >> 13
    up = (low > 0x1000) | ((low == 0x1000) & (hi & 1 == 1))
    return ((hi + up) << 13).astype(np.uint32).view(np.float32)


a = (1 + rng.random((16, 16))).astype(np.float32) * rng.choice([-1, 1], (16, 16)).astype(np.float32)
b = (1 + rng.random((16, 32))).astype(np.float32)
a.tofile(d / "v1.bin")
b.tofile(d / "v2.bin")
c1 = tf32(a).astype(np.float64) @ tf32(b).astype(np.float64)
c2 = a.astype(np.float64) @ b.astype(np.float64)
for k, o in [(3, c1), (4, c2)]:
    np.zeros((16, 32), np.float32).tofile(d / f"v{k}.bin")
    o.astype(np.float32).tofile(d / f"golden_v{k}.bin")
# the two results must differ beyond the tolerance
assert np.max(np.abs(c1 - c2) / np.abs(c2)) > 1e-4
