#!/usr/bin/env python3
"""256-bin byte histograms (distribution and cumulative) of 1000 ui8 samples on top of ui16 accumulators."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(80)
N, ACTIVE = 1024, 1000
s = rng.integers(0, 256, N).astype(np.uint8)
s[:40] = 7  # a popular bin
s[40:44] = [0, 127, 128, 255]
s[ACTIVE:] = 200  # past the tail: not counted
acc = rng.integers(0, 1 << 16, 256).astype(np.uint16)
acc[:3] = [65535, 65530, 0]  # wrap at 16 bits
s.tofile(d / "v1.bin")
acc.tofile(d / "v2.bin")

cnt = np.bincount(s[:ACTIVE], minlength=256).astype(np.int64)
dist = (acc.astype(np.int64) + cnt) & 0xFFFF
cum = (acc.astype(np.int64) + np.cumsum(cnt)) & 0xFFFF
np.concatenate([dist, cum]).astype(np.uint16).tofile(d / "golden_v3.bin")
