#!/usr/bin/env python3
"""In-register rearrangement of i32 registers: interleave, slide, shift, squeeze, permute, pack/unpack."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
a = rng.integers(-100000, 100000, 512).astype(np.int32)
b = rng.integers(0, 1 << 20, 512).astype(np.int32)
a.tofile(d / "v1.bin")
b.tofile(d / "v2.bin")
np.zeros(1024, np.int32).tofile(d / "v3.bin")
for k in range(4, 9):
    np.zeros(512, np.int32).tofile(d / f"v{k}.bin")
L = 64
ci = np.arange(L, dtype=np.int32) + 100
sh = np.concatenate([np.zeros(5, np.int32), ci[:-5]])
g3, g4, g5, g6, g7 = (np.zeros(1024, np.int32),) + tuple(np.zeros(512, np.int32) for _ in range(4))
for r in range(0, 512, L):
    ra, rb = a[r : r + L], b[r : r + L]
    il = np.empty(2 * L, np.int32)
    il[0::2], il[1::2] = ra, rb
    g3[2 * r : 2 * r + 2 * L] = il
    g4[r : r + L] = np.concatenate([rb[L - 5 :], ra[: L - 5]]) + sh
    keep = ra[ra >= 0]
    g5[r : r + len(keep)] = keep
    g6[r : r + L] = np.concatenate([[0], np.cumsum(ra >= 0)[:-1]])
    g7[r : r + L] = ra[rb % L]
g8 = a.astype(np.int16).astype(np.int32)
for k, g in zip(range(3, 9), (g3, g4, g5, g6, g7, g8)):
    g.tofile(d / f"golden_v{k}.bin")
