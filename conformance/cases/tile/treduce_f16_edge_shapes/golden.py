#!/usr/bin/env python3
"""f16 reductions over 1x48, 24x1 and 1x1 valid regions (f64 sums, rounded once)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
row = rng.uniform(-4, 4, (1, 48)).astype(np.float16)
col = rng.uniform(-4, 4, (24, 1)).astype(np.float16)
row.tofile(d / "v1.bin")
col.tofile(d / "v2.bin")
outs = [row.astype(np.float64).sum(), col.astype(np.float64).sum(), row[0, 0]]
for k, o in enumerate(outs, start=3):
    np.zeros((1, 1), np.float16).tofile(d / f"v{k}.bin")
    np.array([[o]]).astype(np.float16).tofile(d / f"golden_v{k}.bin")
