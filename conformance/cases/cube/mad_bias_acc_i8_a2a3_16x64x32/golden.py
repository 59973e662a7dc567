#!/usr/bin/env python3
"""i8 x i8 -> i32 mad_bias then mad_acc, M = 16, K = 64, N = 32."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(64)
a = rng.integers(-128, 128, (16, 64)).astype(np.int8)
b = rng.integers(-128, 128, (64, 32)).astype(np.int8)
bias = rng.integers(-100000, 100000, 32).astype(np.int32)
a.tofile(d / "v1.bin")
b.T.copy().tofile(d / "v2.bin")
bias.tofile(d / "v3.bin")
ab = a.astype(np.int64) @ b.astype(np.int64)
(ab + bias).astype(np.int32).tofile(d / "golden_v4.bin")
(2 * ab + bias).astype(np.int32).tofile(d / "golden_v5.bin")
