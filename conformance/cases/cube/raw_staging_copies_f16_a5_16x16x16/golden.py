#!/usr/bin/env python3
"""copy_gm_to_cbuf / copy_cbuf_to_bt / copy_cbuf_to_fbuf around an f16
mad_bias: C = (A B + bias) * q[j], 16 x 16 x 16."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(5)
a = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
b = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
bias = rng.uniform(-2, 2, 16).astype(np.float16)
q = rng.choice(np.array([0.5, 1.0, 1.5, 2.0, 4.0], np.float32), 16)
bt = np.zeros((16, 24), np.float16)
bt[:, :16] = b.T
bt[:, 16:] = 9.0  # never read
a.tofile(d / "v1.bin")
bt.tofile(d / "v2.bin")
bias.tofile(d / "v3.bin")
q.view(np.uint32).astype(np.uint64).tofile(d / "v4.bin")
c = (a.astype(np.float64) @ b.astype(np.float64) + bias).astype(np.float32)
(c * q).astype(np.float32).tofile(d / "golden_v5.bin")
