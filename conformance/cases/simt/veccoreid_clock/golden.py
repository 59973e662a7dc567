#!/usr/bin/env python3
"""SIMT get_veccoreid (the block index of a vector-only kernel) and clock consistency."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
np.full(192, -1, np.int32).tofile(d / "v1.bin")
g = np.zeros((2, 3, 32), np.int32)
for b in range(2):
    g[b, 0] = b
    g[b, 1] = 1
    g[b, 2] = 1
g.tofile(d / "golden_v1.bin")
