#!/usr/bin/env python3
"""relu, masked and unmasked vmov, fused multiply-add (one rounding) and x - 1.5 on f32."""
import pathlib
from fractions import Fraction

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(72)
N, TAIL = 256, 250
x = (rng.standard_normal(N) * 100).astype(np.float32)
y = (rng.standard_normal(N) * 3).astype(np.float32)
z = (rng.standard_normal(N) * 300).astype(np.float32)
den = np.float32(2.5e-39)
# lanes 0..2: fma differs from multiply-then-add: (1 + 2^-13) * (1 - 2^-13) - 1 = -2^-26 exactly
x[:8] = [1 + 2.0**-13, 3.0, 1 + 2.0**-12, np.inf, -np.inf, den, -den, 0.0]
y[:8] = [1 - 2.0**-13, 1 / 3, 1 + 2.0**-12, 2.0, 0.5, 1.0, 1.0, -5.0]
z[:8] = [-1.0, -1.0, -1.0, -np.inf, 3.0, 0.0, 0.0, 7.0]
for i, v in enumerate((x, y, z)):
    v.tofile(d / f"v{i + 1}.bin")


def f32_round(q: Fraction) -> np.float32:
    """Nearest f32 to an exact rational (ties to even)."""
    c = np.float32(float(q))
    best = c
    for n in (np.nextafter(c, np.float32(-np.inf)), np.nextafter(c, np.float32(np.inf))):
        dn, db = abs(Fraction(float(n)) - q), abs(Fraction(float(best)) - q)
        if dn < db or (dn == db and (n.view(np.uint32) & 1) == 0):
            best = n
    return best


def fma(a, b, c):
    if not (np.isfinite(a) and np.isfinite(b) and np.isfinite(c)):
        with np.errstate(invalid="ignore"):
            return np.float32(np.float64(a) * np.float64(b) + np.float64(c))
    return f32_round(Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c)))


X = x.astype(np.float64)
relu = np.where(X > 0, X, 0.0)
mov_masked = np.where(np.arange(N) % 64 < 16, X, 0.0)  # the first 16 lanes of each register
mad = np.array([fma(y[i], x[i], z[i]) for i in range(N)], np.float32)
outs = [relu, mov_masked, y.astype(np.float64), mad.astype(np.float64), X - 1.5]
g = np.zeros((len(outs), N), np.float32)
for r, o in enumerate(outs):
    g[r, :TAIL] = np.asarray(o)[:TAIL].astype(np.float32)
assert g[3, 0] == np.float32(-(2.0**-26))
g.tofile(d / "golden_v4.bin")
