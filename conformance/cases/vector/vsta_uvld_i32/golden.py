#!/usr/bin/env python3
"""A vstus stream flushed by vsta (the elements the steps advanced over, nothing else) and uvld."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(5)
x = rng.integers(-1000, 1000, 128).astype(np.int32)
x.tofile(d / "v1.bin")
np.full(64, -1, np.int32).tofile(d / "v2.bin")
g = np.full(64, -1, np.int32)
g[3:10] = x[0:7]
g[10:60] = x[64:114]
g.tofile(d / "golden_v2.bin")
x[5:69].tofile(d / "golden_v3.bin")
