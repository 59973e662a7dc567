#!/usr/bin/env python3
"""vmulscvt f32 -> f16: f32 product with 0.5, then f16 rounding "A" (ties away) into EVEN or ODD lanes."""
import pathlib
from fractions import Fraction

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(81)
N = 256
x = (rng.standard_normal(N) * 3000).astype(np.float32)
x[np.abs(x) < 4e-4] = 1.0  # keep products out of f16's subnormal range
# f16 ties and near-ties (after the factor 0.5): 1 + 2^-11 is halfway between f16 neighbours
ties = np.array([2 * (1 + 2.0**-11), -2 * (1 + 2.0**-11), 2 * (1 + 3 * 2.0**-11), 0.0, 2 * 65504.0,
                 2 * (1 + 2.0**-12), -2 * (1 + 2.0**-12), 2 * 1000.25], np.float32)
for base in (0, 64, 128, 192):
    x[base : base + len(ties)] = ties
x.tofile(d / "v1.bin")


def to_f16(p: np.float32, mode: str) -> np.float16:
    q = Fraction(float(p))
    c = np.float16(float(p))  # nearest-even candidate
    lo = c if Fraction(float(c)) <= q else np.nextafter(c, np.float16(-np.inf))
    hi = c if Fraction(float(c)) >= q else np.nextafter(c, np.float16(np.inf))
    if lo == hi:
        return lo
    if mode == "Z":
        return lo if q > 0 else hi
    if mode == "F":
        return lo
    dl, dh = q - Fraction(float(lo)), Fraction(float(hi)) - q
    if dl != dh:
        return lo if dl < dh else hi
    if mode == "A":
        return hi if q > 0 else lo
    return lo if (lo.view(np.uint16) & 1) == 0 else hi  # R: ties to even


g = np.zeros((4, 128), np.float16)
for k, (mode, odd) in enumerate([("A", 0), ("A", 1), ("A", 0), ("A", 1)]):
    p = (x[64 * k : 64 * k + 64] * np.float32(0.5)).astype(np.float32)
    g[k, odd::2] = [to_f16(v, mode) for v in p]
g.tofile(d / "golden_v2.bin")
