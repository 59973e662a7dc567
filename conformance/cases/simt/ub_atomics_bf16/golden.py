#!/usr/bin/env python3
"""SIMT UB atomics between syncthreads, bf16 rounding, f16 warp reductions, i64 shuffle."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(75)
T = 64
key = rng.integers(-5000, 5000, T).astype(np.int32)
# quarter steps in [-20, 20]: exact in bf16, with .5 ties for round / rint
xf = (rng.integers(-80, 81, T) / 4).astype(np.float32)
xf[:6] = [2.5, -2.5, 0.5, -0.5, 3.5, -0.25]
hv = (rng.integers(-40, 41, T) / 4).astype(np.float16)


def bf16_bits(a):
    """f32 -> bf16 bits, round to nearest even (inputs here are exact)."""
    u = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return u.astype(np.uint16)


def bf16_round(a):
    """f64 -> bf16 bits with one rounding (nearest, ties to even)."""
    a = np.asarray(a, np.float64)
    lo = (np.asarray(a, np.float32).view(np.uint32) & 0xFFFF0000).view(np.float32)
    lo = np.where(np.abs(lo.astype(np.float64)) > np.abs(a), np.nextafter(lo, np.float32(0)), lo)
    lob = bf16_bits_trunc(lo)
    hib = lob + 1  # next bf16 away from zero (same sign)
    dl = np.abs(a - bf16_val(lob))
    dh = np.abs(a - bf16_val(hib))
    pick_hi = (dh < dl) | ((dh == dl) & (lob & 1 == 1))
    return np.where(pick_hi, hib, lob).astype(np.uint16)


def bf16_bits_trunc(a):
    return (np.asarray(a, np.float32).view(np.uint32) >> 16).astype(np.uint16)


def bf16_val(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


xb = bf16_bits(xf)
key.tofile(d / "v1.bin")
xb.tofile(d / "v2.bin")
hv.tofile(d / "v3.bin")
np.zeros(17, np.int32).tofile(d / "v4.bin")
np.zeros(5 * T, np.uint16).tofile(d / "v5.bin")
np.zeros(3 * T, np.float16).tofile(d / "v6.bin")
np.zeros(T, np.int64).tofile(d / "v7.bin")

hist = np.bincount(key & 15, minlength=16).astype(np.int64)
hist = np.append(hist, max(-1000, int(key.max())))
hist.astype(np.int32).tofile(d / "golden_v4.bin")

X = bf16_val(xb)
half_away = np.sign(X) * np.floor(np.abs(X) + 0.5)
rows = [np.ceil(X), np.floor(X), half_away, np.rint(X), np.sqrt(np.abs(X))]
np.concatenate([bf16_round(r) for r in rows]).tofile(d / "golden_v5.bin")

H = hv.astype(np.float64).reshape(2, 32)
ho = np.zeros((3, 2, 32))
ho[0] = H.sum(axis=1, keepdims=True)
ho[1] = H.max(axis=1, keepdims=True)
ho[2] = H.min(axis=1, keepdims=True)
ho.reshape(-1).astype(np.float16).tofile(d / "golden_v6.bin")

t = np.arange(T, dtype=np.int64)
v64 = (t << 33) + key.astype(np.int64)
lane = t % 32
src = np.where((lane % 16) + 2 < 16, t + 2, t)
v64[src].tofile(d / "golden_v7.bin")
