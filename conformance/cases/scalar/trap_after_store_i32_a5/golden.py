#!/usr/bin/env python3
"""pto.trap after a tile copy and a scalar store: both are in GM, out[1] = 9 is not."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
np.full(8, -1, np.int32).tofile(d / "v1.bin")
np.arange(8, dtype=np.int32).tofile(d / "v2.bin")
np.zeros(8, np.int32).tofile(d / "v3.bin")
out = np.full(8, -1, np.int32)
out[0] = 7
out.tofile(d / "golden_v1.bin")
np.arange(8, dtype=np.int32).tofile(d / "golden_v3.bin")  # copied before the trap
