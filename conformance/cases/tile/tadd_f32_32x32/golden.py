#!/usr/bin/env python3
"""tadd, f32, 32x32 tiles loaded from and stored to ND views: z = x + y."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
x = rng.uniform(-3, 3, (32, 32)).astype(np.float32)
y = rng.uniform(-3, 3, (32, 32)).astype(np.float32)
x.tofile(d / "v1.bin")
y.tofile(d / "v2.bin")
np.zeros((32, 32), np.float32).tofile(d / "v3.bin")
(x + y).astype(np.float32).tofile(d / "golden_v3.bin")
