#!/usr/bin/env python3
"""tscatter by index (dst.flat[idx] = src) and by mask pattern P0101 (row and column axis)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(3)
src = (rng.standard_normal((1, 32)) * 10).astype(np.float16)
idx = rng.permutation(32).astype(np.int16).reshape(1, 32)
src.tofile(d / "v1.bin")
idx.tofile(d / "v2.bin")
np.zeros((1, 32), np.float16).tofile(d / "v3.bin")
np.zeros((1, 64), np.float16).tofile(d / "v4.bin")
np.zeros((2, 32), np.float16).tofile(d / "v5.bin")
out = np.zeros(32, np.float16)
out[idx.reshape(-1)] = src.reshape(-1)
out.reshape(1, 32).tofile(d / "golden_v3.bin")
row = np.zeros((1, 64), np.float16)
row[0, 0::2] = src[0]                      # even lanes take the source in order
row.tofile(d / "golden_v4.bin")
col = np.zeros((2, 32), np.float16)
col[0] = src[0]                            # row 0 selected, row 1 zero
col.tofile(d / "golden_v5.bin")
