#!/usr/bin/env python3
"""Internal pipe-handle forms (initialize_l2g2l_pipe, talloc, tpush, tpop,
tfree) for GM-entry FIFOs both ways: C = relu(X B)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
x = rng.uniform(-1, 1, (32, 32)).astype(np.float32)
b = rng.uniform(-1, 1, (32, 32)).astype(np.float32)
x.tofile(d / "v1.bin")
b.tofile(d / "v2.bin")
c = np.maximum(x.astype(np.float64) @ b.astype(np.float64), 0)
c.astype(np.float32).tofile(d / "golden_v3.bin")
np.zeros((32, 32), np.float32).tofile(d / "v4.bin")
np.zeros((32, 32), np.float32).tofile(d / "v5.bin")
