#!/usr/bin/env python3
"""SIMT threads from store_vfsimt_info + call of a simt_entry, and from an inline section.simt."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
np.full(48, -1, np.int32).tofile(d / "v1.bin")
g = np.full(48, -1, np.int32)
for y in range(2):
    for x in range(16):
        g[16 * y + x] = x + 100 * y + 2000
g[32:40] = np.arange(8) * 3
g.tofile(d / "golden_v1.bin")
