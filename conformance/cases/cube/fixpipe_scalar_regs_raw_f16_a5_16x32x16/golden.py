#!/usr/bin/env python3
"""FIXPIPE scalar registers with copy_matrix_cc_to_gm: C = A B (16 x 32 x 16,
f16 operands), q = 0.5, alpha = 0.25, clip = 2.0."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(131)


def bf16_bits(x):
    """f32 -> bf16 bits, round to nearest even."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return u.astype(np.uint16)


a = rng.uniform(-1, 1, (16, 32)).astype(np.float16)
b = rng.uniform(-1, 1, (32, 16)).astype(np.float16)
a.tofile(d / "v1.bin")
b.T.copy().tofile(d / "v2.bin")
c = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
y = c * np.float32(0.5)
h = np.minimum(np.where(y < 0, y * np.float32(0.25), y), np.float32(2.0))
h.astype(np.float16).tofile(d / "golden_v3.bin")
np.maximum(y, 0).astype(np.float32).tofile(d / "golden_v4.bin")
bf16_bits(y).tofile(d / "golden_v5.bin")
