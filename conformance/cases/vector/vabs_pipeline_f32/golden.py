#!/usr/bin/env python3
"""vabs over 1024 f32 through MTE2 -> V -> MTE3 with set_flag/wait_flag, incl. -0, inf, nan."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
x = rng.uniform(-3, 3, 1024).astype(np.float32)
x[:6] = [-0.0, np.inf, -np.inf, np.nan, -1e-45, -3.4e38]
x.tofile(d / "v1.bin")
np.zeros(1024, np.float32).tofile(d / "v2.bin")
np.abs(x).astype(np.float32).tofile(d / "golden_v2.bin")
