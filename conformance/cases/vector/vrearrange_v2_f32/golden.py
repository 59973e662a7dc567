#!/usr/bin/env python3
"""vselr, vintlvv2/vdintlvv2 halves, vcgmin with empty VLanes, vzunpack parts; results as raw u32 bits."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(75)
N, L, TAIL = 256, 64, 250
x = rng.standard_normal(N).astype(np.float32) * 10
x[:5] = [-0.0, np.inf, -np.inf, 1.5e-40, 2.0]
x[45], x[50] = np.nan, 0.0  # outside vcgmin's 40 lanes: the docs do not say how min treats NaN or +-0
idx = rng.integers(0, L, N).astype(np.uint32)
idx[:L] = np.arange(L)[::-1]  # the first register reversed
y = rng.standard_normal(N).astype(np.float32)
w = rng.integers(0, 1 << 32, N, dtype=np.uint64).astype(np.uint32)
for k, v in enumerate([x, idx, y, w]):
    v.tofile(d / f"v{k + 1}.bin")

regs = []
for r in range(N // L):
    s = slice(r * L, (r + 1) * L)
    xr, yr, ir, wr = x[s], y[s], idx[s], w[s]
    il = np.empty(2 * L, np.float32)
    il[0::2], il[1::2] = xr, yr
    cat = np.concatenate([xr, yr])
    gm = np.zeros(L, np.float32)
    act = np.arange(L) < 40
    for g in range(8):
        v = xr[g * 8:(g + 1) * 8][act[g * 8:(g + 1) * 8]]
        gm[g] = np.inf if v.size == 0 else v.min()
    h = wr.view(np.uint16)
    regs.append([xr[ir], il[:L], il[L:], cat[0::2], cat[1::2], gm, h[:L].astype(np.uint32), h[L:].astype(np.uint32)])

g = np.zeros((8, N), np.uint32)
for r, parts in enumerate(regs):
    for k, p in enumerate(parts):
        g[k, r * L:(r + 1) * L] = np.asarray(p).view(np.uint32) if p.dtype == np.float32 else p
g[:, TAIL:] = 0  # lanes past the plt tail are not stored
g.tofile(d / "golden_v5.bin")
