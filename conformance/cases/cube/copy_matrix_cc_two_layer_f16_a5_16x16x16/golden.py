#!/usr/bin/env python3
"""copy_matrix_cc_to_gm / copy_matrix_cc_to_cbuf: C = A B (f32), then
D = bf16(f16(C) B), 16 x 16 x 16, f16 operands."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(71)


def bf16_bits(x):
    """f32 -> bf16 bits, round to nearest even."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return u.astype(np.uint16)


a = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
b = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
a.tofile(d / "v1.bin")
b.T.copy().tofile(d / "v2.bin")
c = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
c.tofile(d / "golden_v3.bin")
dd = (c.astype(np.float16).astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
bf16_bits(dd).tofile(d / "golden_v4.bin")
