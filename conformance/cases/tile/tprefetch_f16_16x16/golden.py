#!/usr/bin/env python3
"""tprefetch fills the tile like tload; the kernel stores it back unchanged."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
x = np.random.default_rng(43).standard_normal((16, 16)).astype(np.float16)
x.tofile(d / "v1.bin")
np.zeros_like(x).tofile(d / "v2.bin")
x.tofile(d / "golden_v2.bin")
