#!/usr/bin/env python3
"""Predicate image loads (pldi NORM/US/DS) and stores (psti NORM/PK), pbitcast, pstu of b32 masks."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(82)
p = rng.integers(0, 256, 256).astype(np.uint8)
p.tofile(d / "v1.bin")


def bits(b):
    return np.unpackbits(b, bitorder="little")


def pack(x):
    return np.packbits(np.asarray(x, np.uint8), bitorder="little")


norm = p[32:64]
us = pack(np.repeat(bits(p[0:16]), 2))  # each of 128 bits doubled
ds = pack(bits(p[64:128])[0::2])  # every other bit of 64 bytes
g = np.zeros(192, np.uint8)
g[0:32] = norm
g[32:64] = us
g[64:96] = ds
g[96:112] = pack(bits(p[128:160])[0::2])
g[112:128] = pack(bits(us)[0::2])
g[128:160] = norm
for k, n in enumerate((13, 7)):  # pstu: one bit per b32 lane, 64 lanes = 8 bytes per store
    lanes = np.zeros(64, np.uint8)
    lanes[:n] = 1
    g[160 + 8 * k : 168 + 8 * k] = pack(lanes)
g.tofile(d / "golden_v2.bin")
