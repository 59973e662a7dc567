#!/usr/bin/env python3
"""Legacy loop-register DMA gather/scatter and a UB -> UB burst copy (u8 bytes)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(41)
x = rng.integers(0, 256, 512, dtype=np.uint8)
x.tofile(d / "v1.bin")
np.zeros(128, np.uint8).tofile(d / "v2.bin")

# MTE2: UB[l2*64 + l1*32 + b*16 : +16] = GM[l2*256 + l1*64 + b*32 : +16]
ub = np.zeros(512, np.uint8)
for l2 in range(2):
    for l1 in range(2):
        for b in range(2):
            u, g = l2 * 64 + l1 * 32 + b * 16, l2 * 256 + l1 * 64 + b * 32
            ub[u:u + 16] = x[g:g + 16]
# V: four 32-byte rows from UB 0 (no source gap) to UB 256 with one 32-byte gap
for r in range(4):
    ub[256 + r * 64:256 + r * 64 + 32] = ub[r * 32:r * 32 + 32]
# MTE3: GM[l1*64 + l2*32 : +32] = UB[256 + l1*64 + l2*128 : +32]
out = np.zeros(128, np.uint8)
for l2 in range(2):
    for l1 in range(2):
        g, u = l1 * 64 + l2 * 32, 256 + l1 * 64 + l2 * 128
        out[g:g + 32] = ub[u:u + 32]
out.tofile(d / "golden_v2.bin")
