#!/usr/bin/env python3
"""ND -> ZZ and DN -> ZZ repacks of E8M0 exponent bytes, written from the box
definition: 32-byte boxes of 16 rows x 2 lanes, row-major inside a box."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(5)
nd = rng.integers(100, 156, (20, 4)).astype(np.uint8)  # M = 20 rows, G = 4 groups
dn = rng.integers(100, 156, (2, 64)).astype(np.uint8)  # M^ = 2, N = 64

# ND: rows padded to 32; box (row block rb, column pair cp) holds rows 16rb.., lanes 2cp, 2cp+1
padded = np.zeros((32, 4), np.uint8)
padded[:20] = nd
z_nd = []
for rb in range(2):
    for cp in range(2):
        for r in range(16):
            for q in range(2):
                z_nd.append(padded[16 * rb + r, 2 * cp + q])
# DN: the transpose (N x M^) repacked the same way
t = dn.T
z_dn = []
for cb in range(64 // 16):
    for p in range(1):
        for q in range(16):
            for lane in range(2):
                z_dn.append(t[16 * cb + q, 2 * p + lane])
nd.tofile(d / "v1.bin")
dn.tofile(d / "v2.bin")
for k, z in [(3, z_nd), (4, z_dn)]:
    np.zeros(128, np.uint8).tofile(d / f"v{k}.bin")
    np.array(z, np.uint8).tofile(d / f"golden_v{k}.bin")
