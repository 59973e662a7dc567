#!/usr/bin/env python3
"""2 ranks: tput_async into the other rank's recv, tget_async of the other
rank's src. Every vK.bin stacks the 2 ranks' buffers (rank r's slice r)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(12)
R, N = 2, 128
src = rng.uniform(-5, 5, (R, N)).astype(np.float32)
src.tofile(d / "v1.bin")
np.zeros((R, 256), np.uint8).tofile(d / "v4.bin")
other = src[::-1]
other.tofile(d / "golden_v2.bin")
other.tofile(d / "golden_v3.bin")
