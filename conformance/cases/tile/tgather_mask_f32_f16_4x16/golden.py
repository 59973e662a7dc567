#!/usr/bin/env python3
"""tgather by mask pattern: P0101 row axis, P0010 column axis, P1000 on f16."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(11)
src = rng.standard_normal((4, 16)).astype(np.float32)
h = (rng.standard_normal((1, 32)) * 10).astype(np.float16)
src.tofile(d / "v1.bin")
h.tofile(d / "v4.bin")
for k, s, t in [(2, (1, 32), np.float32), (3, (1, 16), np.float32), (5, (1, 8), np.float16)]:
    np.zeros(s, t).tofile(d / f"v{k}.bin")
src[:, 0::2].reshape(1, 32).tofile(d / "golden_v2.bin")   # even columns, row by row
src[1::4, :].reshape(1, 16).tofile(d / "golden_v3.bin")   # rows with r % 4 == 1
h[:, 3::4].reshape(1, 8).tofile(d / "golden_v5.bin")      # lanes with k % 4 == 3
