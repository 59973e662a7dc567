#!/usr/bin/env python3
"""2 ranks x 2 blocks: each block puts its half of src into the next rank's
recv; out = recv + src, sum = out[:128] + out[128:]. Every vK.bin stacks the
2 ranks' buffers (rank r's slice r)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(31)
R, N = 2, 256
src = rng.uniform(-8, 8, (R, N)).astype(np.float32)
src.tofile(d / "v1.bin")
np.zeros((R, 1), np.int32).tofile(d / "v5.bin")
recv = np.roll(src, 1, axis=0)  # rank r receives rank r-1's src
out = (recv + src).astype(np.float32)
recv.tofile(d / "golden_v2.bin")
out.tofile(d / "golden_v3.bin")
(out[:, :128] + out[:, 128:]).astype(np.float32).tofile(d / "golden_v4.bin")
