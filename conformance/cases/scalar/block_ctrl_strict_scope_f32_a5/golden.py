#!/usr/bin/env python3
"""Per-block queries, a CTRL round trip and a strict_vecscope scale by (block + 1) on 2 blocks."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(83)
x = rng.uniform(-5, 5, 128).astype(np.float32)
x.tofile(d / "v1.bin")
np.zeros(128, np.float32).tofile(d / "v2.bin")
np.full(16, -1, np.int64).tofile(d / "v3.bin")
y = np.concatenate([x[:64] * np.float32(1), x[64:] * np.float32(2)]).astype(np.float32)
y.tofile(d / "golden_v2.bin")
info = np.full(16, -1, np.int64)
pattern = (0xF0 | (1 << 40)) & ~(1 << 4)
for b in range(2):
    info[b * 8:b * 8 + 4] = [b, 2, 1, pattern]
info.tofile(d / "golden_v3.bin")
