#!/usr/bin/env python3
"""FIXPIPE write-backs of a bf16 matmul (M = 24, K = 32, N = 32): f32 to the
two subblocks' UBs (split_m), per-column quant and relu slopes to bf16 via L1,
per-column quant + scalar relu + clip to f16 in GM."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(77)
M, K, N = 24, 32, 32


def bf16_bits(x):
    """f32 -> bf16 bits, round to nearest even."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return u.astype(np.uint16)


def bf16_value(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


a = bf16_value(bf16_bits(rng.uniform(-2, 2, (M, K))))
b = bf16_value(bf16_bits(rng.uniform(-2, 2, (K, N))))
q = rng.choice(np.array([0.25, 0.5, 0.75, 1.5, 2.0], np.float32), N)
alpha = rng.choice(np.array([0.0, 0.125, 0.25, 0.5], np.float32), N)
bf16_bits(a.T).tofile(d / "v1.bin")
bf16_bits(b.T).tofile(d / "v2.bin")
# a FIXPIPE quant word carries the f32 scale's top 19 bits in bits 13..31
q.view(np.uint32).astype(np.uint64).tofile(d / "v3.bin")
alpha.tofile(d / "v4.bin")
c = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
c.tofile(d / "golden_v5.bin")
y = c * q
bf16_bits(np.where(y < 0, y * alpha, y)).tofile(d / "golden_v6.bin")
x = c * q
x = np.where(x < 0, x * np.float32(0.125), x)
np.minimum(x, 2.0).astype(np.float16).tofile(d / "golden_v7.bin")
