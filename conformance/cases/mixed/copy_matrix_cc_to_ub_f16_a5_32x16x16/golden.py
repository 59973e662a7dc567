#!/usr/bin/env python3
"""copy_matrix_cc_to_ub: C = A B (32 x 16 x 16, f16 operands) split by rows
over the two subblocks (f32), and whole as f16 to subblock 1."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(93)
a = rng.uniform(-1, 1, (32, 16)).astype(np.float16)
b = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
a.tofile(d / "v1.bin")
b.T.copy().tofile(d / "v2.bin")
c = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
c.tofile(d / "golden_v3.bin")
c.astype(np.float16).tofile(d / "golden_v4.bin")
