#!/usr/bin/env python3
"""subview: contiguous and strided windows of a tile, read and written in place."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(67)
src = rng.standard_normal((16, 32)).astype(np.float32)
par = rng.standard_normal((16, 32)).astype(np.float32)
src.tofile(d / "v1.bin")
par.tofile(d / "v4.bin")
np.zeros((2, 32), np.float32).tofile(d / "v2.bin")
np.zeros((4, 8), np.float32).tofile(d / "v3.bin")
src[4:6, :].tofile(d / "golden_v2.bin")
(src[2:6, 8:16] + np.float32(1)).astype(np.float32).tofile(d / "golden_v3.bin")
out = par.copy()
out[10:13, 24:29] = 7.0
out.tofile(d / "golden_v4.bin")
