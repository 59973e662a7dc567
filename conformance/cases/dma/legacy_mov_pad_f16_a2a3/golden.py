#!/usr/bin/env python3
"""Legacy GM -> UB copy with data_select_bit: rows padded to 32 bytes with the set_mov_pad_val value."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(31)
x = rng.uniform(-4, 4, 48).astype(np.float16)
x.tofile(d / "v1.bin")
np.zeros(128, np.float16).tofile(d / "v2.bin")
g = np.zeros((8, 16), np.float16)
g[:4, :12] = x.reshape(4, 12)
g[:4, 12:] = np.float16(-7.5)
g[4:, :12] = x.reshape(4, 12)
g.tofile(d / "golden_v2.bin")
