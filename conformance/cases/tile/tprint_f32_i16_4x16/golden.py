#!/usr/bin/env python3
"""tprint leaves the data alone: the tiles are stored back unchanged."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(89)
x = (rng.integers(-9999, 9999, (4, 16)) / 16).astype(np.float32)
i = rng.integers(-30000, 30000, (4, 16)).astype(np.int16)
x.tofile(d / "v1.bin")
i.tofile(d / "v3.bin")
np.zeros((4, 16), np.float32).tofile(d / "v2.bin")
np.zeros((4, 16), np.int16).tofile(d / "v4.bin")
x.tofile(d / "golden_v2.bin")
i.tofile(d / "golden_v4.bin")
