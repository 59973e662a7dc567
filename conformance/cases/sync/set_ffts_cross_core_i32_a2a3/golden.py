#!/usr/bin/env python3
"""Vector subblocks copy x to work in chunks behind three semaphore forms; cube computes 2*lo + hi."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(57)
x = rng.integers(-100000, 100000, 128, dtype=np.int32)
x.tofile(d / "v1.bin")
np.zeros(128, np.int32).tofile(d / "v2.bin")
np.full(64, -1, np.int32).tofile(d / "v3.bin")
x.tofile(d / "golden_v2.bin")
(2 * x[:64] + x[64:]).astype(np.int32).tofile(d / "golden_v3.bin")
np.zeros(8, np.int64).tofile(d / "v4.bin")
np.zeros(8, np.int64).tofile(d / "golden_v4.bin")
