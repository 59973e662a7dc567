#!/usr/bin/env python3
"""mte_ub_l1 (with a source gap) and copy_cbuf_to_ubuf around a cube matmul: C = A B,
f16 operands, f32 accumulation, f16 result (M = 32, K = 16, N = 16)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(16)
a = rng.uniform(-1, 1, (32, 16)).astype(np.float16)
b = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
a.tofile(d / "v1.bin")
b.T.copy().tofile(d / "v2.bin")
c = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
c.astype(np.float16).tofile(d / "golden_v3.bin")
