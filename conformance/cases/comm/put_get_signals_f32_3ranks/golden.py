#!/usr/bin/env python3
"""Ring of 3 ranks: tput (plain, then atomic_add), tnotify/twait/ttest, tget.
Every vK.bin stacks the 3 ranks' buffers (rank r's slice r)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(3)
R, N = 3, 64
src = rng.uniform(-10, 10, (R, N)).astype(np.float32)
src.tofile(d / "v2.bin")
prev = np.roll(src, 1, axis=0)  # rank r's previous rank is r - 1
(2 * prev).astype(np.float32).tofile(d / "golden_v3.bin")
prev.tofile(d / "golden_v4.bin")
np.ones(R, np.int32).tofile(d / "golden_v5.bin")
(10 + np.arange(R)).astype(np.int32).tofile(d / "golden_v6.bin")
