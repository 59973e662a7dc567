#!/usr/bin/env python3
"""vsldb/vsstb block strides (both vsldb forms), vgather2, vgather2_bc, vgatherb and vscatter on i32."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(77)
x = rng.integers(-(1 << 31), 1 << 31, 512, dtype=np.int64).astype(np.int32)
gidx = rng.integers(0, 512, 64).astype(np.uint32)
gidx[:4] = [0, 511, 7, 7]  # the ends and a repeated index
sidx = rng.permutation(256)[:64].astype(np.uint32)
for k, v in enumerate([x, gidx, sidx]):
    v.tofile(d / f"v{k + 1}.bin")

blk = x.reshape(64, 8)  # 32-byte blocks of 8 i32
g = np.zeros((4, 256), np.int32)
for b in range(8):
    if b == 0:  # plt 1: block 0 only
        g[0, b * 8 : b * 8 + 8] = blk[1 + 2 * b]
    g[0, 64 + b * 8 : 64 + b * 8 + 8] = blk[3 * b]
    g[1, (2 + 3 * b) * 8 : (2 + 3 * b) * 8 + 8] = blk[b]
g[0, 128:192] = x[40:104]
g[2, :60] = x[gidx[:60]]
g[2, 64:124] = x[gidx[:60]]  # vgather2_bc
for b in range(6):  # vgatherb: 32-byte blocks at byte offsets 32 * (idx & 63)
    g[2, 128 + 8 * b : 136 + 8 * b] = blk[gidx[b] & 63]
g[3, sidx[:50]] = x[64:114]
g.tofile(d / "golden_v4.bin")
