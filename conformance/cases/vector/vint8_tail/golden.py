#!/usr/bin/env python3
"""Signed/unsigned 8-bit lane arithmetic with a plt_b8 tail predicate on the stores."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(47)
N, R, FILL = 300, 512, 0x5A
a = rng.integers(0, 256, R).astype(np.uint8)
b = rng.integers(0, 256, R).astype(np.uint8)
s = rng.integers(0, 8, R).astype(np.uint8)
ea = [0x80, 0x7F, 0xFF, 0x00, 0x01, 0x80, 0xFF, 0x9C]
eb = [0xFF, 0x01, 0x01, 0x80, 0x7F, 0x80, 0xFF, 0x64]
a[: len(ea)], b[: len(eb)], s[:8] = ea, eb, [7, 1, 0, 7, 7, 3, 4, 2]
a.tofile(d / "v1.bin")
b.tofile(d / "v2.bin")
s.tofile(d / "v3.bin")
nops = 18
np.full(nops * R, FILL, np.uint8).tofile(d / "v4.bin")

ai, bi = a.astype(np.int8).astype(np.int64), b.astype(np.int8).astype(np.int64)
au, bu, S = a.astype(np.int64), b.astype(np.int64), s.astype(np.int64)
outs = [
    ai + bi, ai - bi, np.maximum(ai, bi), np.minimum(ai, bi), np.abs(ai), -ai,
    np.maximum(au, bu), np.minimum(au, bu), au & bu, au | bu, au ^ bu, ~au,
    au << S, au >> S, au + 200, np.minimum(ai, -100), au >> 3, ai << 5,
]
g = np.full((nops, R), FILL, np.uint8)
for k, o in enumerate(outs):
    g[k, :N] = (o[:N] & 0xFF).astype(np.uint8)
g.tofile(d / "golden_v4.bin")
