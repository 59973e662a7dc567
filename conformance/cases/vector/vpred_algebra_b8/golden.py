#!/usr/bin/env python3
"""Predicate algebra, pack/unpack, (de)interleave, patterns and PK/US/DS predicate loads/stores."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
x = rng.integers(0, 256, 256).astype(np.uint8)
x.tofile(d / "v1.bin")
OUT = 32 * 14 + 96
np.zeros(OUT, np.uint8).tofile(d / "v2.bin")

A, B, C = x > 100, x < 200, x < 30
z = np.zeros(256, bool)


def lanes(bits, g):
    """A predicate image with lane i (granularity g bytes) at bit i*g."""
    out = np.zeros(256, bool)
    out[0 : 256 : g][: len(bits)] = bits
    return out


ppk = z.copy()
ppk[:128] = A[0::2]
pun = z.copy()
pun[0::2] = A[128:]
il = np.empty(512, bool)
il[0::2], il[1::2] = A, B
cat = np.concatenate([A, B])
imgs = [
    A, A & B, A | C, A ^ B, ~A & B, np.where(B, A, C), ppk, pun,
    il[:256], il[256:], cat[0::2], cat[1::2],
    lanes(np.arange(64) < 5, 4), lanes(np.arange(128) < 3, 2),
]
pk = A[0::2]  # 128 bits, 16 bytes
us = np.repeat(pk, 2)
ds = np.concatenate([A, A & B])[0::2]  # DS keeps every other bit of 64 bytes
g = np.concatenate([np.packbits(b, bitorder="little") for b in imgs])
tail = np.concatenate([
    np.packbits(pk, bitorder="little"), np.zeros(16, np.uint8),
    np.packbits(us, bitorder="little"), np.packbits(ds, bitorder="little"),
])
np.concatenate([g, tail]).astype(np.uint8).tofile(d / "golden_v2.bin")
