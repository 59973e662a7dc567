#!/usr/bin/env python3
"""load_cbuf_to_ca/cb + mad + mad_acc, f32: C = A B with K = 32 split in two."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(9)
a = rng.uniform(-1, 1, (16, 32)).astype(np.float32)
b = rng.uniform(-1, 1, (32, 16)).astype(np.float32)
a.tofile(d / "v1.bin")
b.T.copy().tofile(d / "v2.bin")
(a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32).tofile(d / "golden_v3.bin")
