#!/usr/bin/env python3
"""Predicate image loads (pld NORM/US/DS) and stores (pst NORM/PK) in the areg-offset forms."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(1729)
p = rng.integers(0, 256, 128).astype(np.uint8)
p.tofile(d / "v1.bin")


def bits(b):
    return np.unpackbits(b, bitorder="little")


def pack(x):
    return np.packbits(np.asarray(x, np.uint8), bitorder="little")


g = np.zeros(112, np.uint8)
g[0:32] = p[32:64]
g[32:64] = pack(np.repeat(bits(p[0:16]), 2))
g[64:96] = pack(bits(p[64:128])[0::2])
g[96:112] = pack(bits(p[32:64])[0::2])
g.tofile(d / "golden_v2.bin")
