#!/usr/bin/env python3
"""create_cbuf_matrix + raw_fill_l1 build A (16 x 32 f16) in L1: rows 0-7
are 1.0, rows 8-15 alternate 2.0 (even columns) and -1.0; C = A B."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(27)
b = rng.uniform(-1, 1, (32, 16)).astype(np.float16)
b.T.copy().tofile(d / "v1.bin")
a = np.empty((16, 32), np.float64)
a[:8] = 1.0
a[8:, 0::2] = 2.0
a[8:, 1::2] = -1.0
(a @ b.astype(np.float64)).astype(np.float32).tofile(d / "golden_v2.bin")
