#!/usr/bin/env python3
"""Every 8-bit float code survives tload -> tmov -> tstore unchanged (e4m3fn, e5m2)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
codes = np.arange(256, dtype=np.uint8).reshape(8, 32)
for k in (1, 2):
    codes.tofile(d / f"v{k}.bin")
    np.zeros((8, 32), np.uint8).tofile(d / f"v{k + 2}.bin")
    codes.tofile(d / f"golden_v{k + 2}.bin")
