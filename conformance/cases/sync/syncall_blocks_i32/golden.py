#!/usr/bin/env python3
"""pto.syncall as a barrier across 4 blocks: sums of entries every block wrote before it."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
np.zeros(4, np.int32).tofile(d / "v1.bin")
np.zeros(8, np.int32).tofile(d / "v2.bin")
np.zeros(8, np.int32).tofile(d / "v3.bin")
x1 = np.arange(1, 5)
g = np.array([x1.sum()] * 4 + [(10 * x1).sum()] * 4, np.int32)
g.tofile(d / "golden_v2.bin")
(10 * x1).astype(np.int32).tofile(d / "golden_v1.bin")
