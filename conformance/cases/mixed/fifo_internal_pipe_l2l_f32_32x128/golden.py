#!/usr/bin/env python3
"""Internal pipe-handle forms (initialize_l2l_pipe, tpush, tpop, tfree):
Cube -> vector FIFO (tpush_to_aiv / tpop_from_aic, split = 1), f32:
C[:, 32j:32j+32] = relu(A x B[:, 32j:32j+32]) for j = 0..3."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(23)
a = rng.uniform(-1, 1, (32, 32)).astype(np.float32)
b = rng.uniform(-1, 1, (32, 128)).astype(np.float32)
a.tofile(d / "v1.bin")
b.tofile(d / "v2.bin")
np.zeros((32, 128), np.float32).tofile(d / "v3.bin")
c = np.maximum(a.astype(np.float64) @ b.astype(np.float64), 0.0)
c.astype(np.float32).tofile(d / "golden_v3.bin")
