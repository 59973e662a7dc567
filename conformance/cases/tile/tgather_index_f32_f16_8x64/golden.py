#!/usr/bin/env python3
"""tgather by index: dst[i, j] = src.flat[idx[i, j]] (flat over the source tile)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(7)
src = rng.standard_normal((8, 32)).astype(np.float32)
idx = rng.integers(0, 8 * 32, (8, 64)).astype(np.int32)
idx[0, :4] = [0, 255, 255, 31]  # both ends, a repeat
hsrc = (rng.standard_normal((1, 32)) * 100).astype(np.float16)
hidx = rng.permutation(32).astype(np.int32).reshape(1, 32)
ins = {1: src, 2: idx, 4: hsrc, 5: hidx}
for k, v in ins.items():
    v.tofile(d / f"v{k}.bin")
np.zeros((8, 64), np.float32).tofile(d / "v3.bin")
np.zeros((1, 32), np.float16).tofile(d / "v6.bin")
src.reshape(-1)[idx].tofile(d / "golden_v3.bin")
hsrc.reshape(-1)[hidx].tofile(d / "golden_v6.bin")
