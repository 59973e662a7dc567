#!/usr/bin/env python3
"""tgetval/tsetval at linear storage offsets, talias + bitcast, tassign and
tfillpad_inplace on one 8x16 f32 tile (see kernel.pto)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(83)
x = (rng.integers(-800, 800, (8, 16)) / 8).astype(np.float32)
x.tofile(d / "v1.bin")
t = x.copy().reshape(-1)
t[0] = np.float32(t[5] + t[37])
t[127] = t[5]
t = t.reshape(8, 16)
pad = np.full((8, 16), np.inf, np.float32)
pad[:5, :13] = x[:5, :13]
for k, o in [(2, t), (3, t.view(np.uint32)), (4, pad)]:
    np.zeros((8, 16), o.dtype).tofile(d / f"v{k}.bin")
    o.tofile(d / f"golden_v{k}.bin")
