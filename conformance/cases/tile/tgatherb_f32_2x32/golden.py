#!/usr/bin/env python3
"""tgatherb: each 32-byte destination block copies the source bytes at off[r, b]."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(5)
src = rng.standard_normal((4, 32)).astype(np.float32)
off = np.zeros((2, 8), np.int32)
off[:, :4] = rng.integers(0, (512 - 32) // 4 + 1, (2, 4)) * 4
off[0, 0] = 0
off[1, 3] = 480  # the last block of the source
src.tofile(d / "v1.bin")
off.tofile(d / "v2.bin")
np.zeros((2, 32), np.float32).tofile(d / "v3.bin")
b = src.tobytes()
out = bytearray()
for r in range(2):
    for k in range(4):
        o = int(off[r, k])
        out += b[o:o + 32]
np.frombuffer(bytes(out), np.float32).reshape(2, 32).tofile(d / "golden_v3.bin")
