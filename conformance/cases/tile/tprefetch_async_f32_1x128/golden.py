#!/usr/bin/env python3
"""tprefetch_async changes nothing: the copy equals the input."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
x = np.random.default_rng(109).standard_normal(128).astype(np.float32)
x.tofile(d / "v1.bin")
np.zeros(128, np.float32).tofile(d / "v2.bin")
np.zeros(1024, np.int8).tofile(d / "v3.bin")
x.tofile(d / "golden_v2.bin")
np.zeros(1024, np.int8).tofile(d / "golden_v3.bin")
