#!/usr/bin/env python3
"""Vector -> cube FIFO (tpush_to_aic / tpop_from_aiv / tfree_from_aiv,
split = 1), f32: Y[32j:32j+32] = relu(X[32j:32j+32]) B for j = 0..2."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(41)
x = rng.uniform(-1, 1, (96, 32)).astype(np.float32)
b = rng.uniform(-1, 1, (32, 32)).astype(np.float32)
x.tofile(d / "v1.bin")
b.tofile(d / "v2.bin")
y = np.maximum(x, 0).astype(np.float64) @ b.astype(np.float64)
y.astype(np.float32).tofile(d / "golden_v3.bin")
