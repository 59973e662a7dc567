#!/usr/bin/env python3
"""ptrtoint / inttoptr byte addresses on GM, pto.print and cmo.cacheinvalid."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(77)
x = rng.integers(-(1 << 31), 1 << 31, 16, dtype=np.int64).astype(np.int32)
x.tofile(d / "v1.bin")
np.zeros(4, np.int64).tofile(d / "v2.bin")
hi = (x.view(np.uint16)[9]).astype(np.int64)  # element 4's upper half (little-endian)
np.array([20, x[3], hi, 0], np.int64).tofile(d / "golden_v2.bin")
