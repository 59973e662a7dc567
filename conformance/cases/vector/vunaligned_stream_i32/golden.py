#!/usr/bin/env python3
"""Unaligned load and store streams (vldas/vldus, vstus/vstas, vsqz + vstur/vstar) and the AR register."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(76)
x = rng.integers(-1000, 1000, 512).astype(np.int32)
x[:4] = [-1, 0, -(1 << 31), (1 << 31) - 1]
x.tofile(d / "v1.bin")

g = np.zeros((4, 256), np.int32)
g[0, :192] = x[3:195]
chunks = [x[0:5], x[64:128], x[128:145], x[192:225]]
stream = np.concatenate(chunks)
g[1, 1 : 1 + stream.size] = stream
kept = x[:256][x[:256] >= 0]
g[2, : kept.size] = kept
g[3, 0] = g[3, 2] = kept.size * 4  # AR counts bytes
g.tofile(d / "golden_v2.bin")
