#!/usr/bin/env python3
"""vcbmax/vcbmin: extreme of the active lanes in lane 0 and the active lanes equal to it."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(79)
N, L, TAIL = 256, 64, 250
x = rng.integers(-6, 7, N).astype(np.float32) * np.float32(0.5)  # many ties
x[64:70] = [np.inf, 1.0, np.inf, -np.inf, 2.0, -np.inf]  # register 1: infinite extremes, tied
x[130] = 1.5e-40  # a denormal
x[TAIL:] = [1e30, -1e30, 1e30, -1e30, 1e30, -1e30]  # inactive: must not win
x.tofile(d / "v1.bin")

g = np.zeros((4, N), np.float32)
for r in range(N // L):
    act = np.arange(r * L, (r + 1) * L) < TAIL
    v = x[r * L : (r + 1) * L]
    for k, f in ((0, np.max), (2, np.min)):
        e = f(v[act])
        g[k, r * L] = e
        g[k + 1, r * L : (r + 1) * L] = (act & (v == e)).astype(np.float32)
g[:, TAIL:] = 0
g.tofile(d / "golden_v2.bin")
