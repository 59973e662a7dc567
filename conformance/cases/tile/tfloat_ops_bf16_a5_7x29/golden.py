#!/usr/bin/env python3
"""bf16 ops on A5, 7x29 valid: exact results rounded once to bf16 (nearest even)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(107)


def bf16(x):
    """Rounds f64 values to bf16 (8 significant bits, nearest even); returns f64 values."""
    x = np.asarray(x, np.float64)
    m, e = np.frexp(x)  # x = m * 2**e, 0.5 <= |m| < 1
    return np.ldexp(np.rint(m * 256) / 256, e)


def bits(x):
    """bf16 bit patterns of values already representable in bf16."""
    return (np.asarray(x, np.float64).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


a = bf16(rng.uniform(-4, 4, (7, 29)))
b = bf16(rng.uniform(0.5, 4, (7, 29)) * rng.choice([-1, 1], (7, 29)))
p = bf16(rng.uniform(0.01, 9, (7, 29)))
for k, v in enumerate([a, b, p], start=1):
    bits(v).tofile(d / f"v{k}.bin")
m = -1.375
outs = [a + b, a - b, a * b, a / b, np.maximum(a, b), np.minimum(a, b), np.abs(a), -a,
        np.sqrt(p), 1 / b, a * m, a / m]
for k, o in enumerate(outs, start=4):
    np.zeros((7, 29), np.uint16).tofile(d / f"v{k}.bin")
    bits(bf16(o)).tofile(d / f"golden_v{k}.bin")
