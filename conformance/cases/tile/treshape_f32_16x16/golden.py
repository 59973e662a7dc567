#!/usr/bin/env python3
"""treshape: reinterpretations of the same tile bytes."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(41)
src = rng.standard_normal((16, 16)).astype(np.float32)
col = rng.standard_normal((16, 1)).astype(np.float32)
src.tofile(d / "v1.bin")
col.tofile(d / "v4.bin")
for k, (v, t) in {2: (src.reshape(1, 256), np.float32), 3: (src.view(np.uint16).reshape(16, 32), np.uint16),
                  5: (col.reshape(1, 16), np.float32)}.items():
    np.zeros(v.shape, t).tofile(d / f"v{k}.bin")
    v.astype(t).tofile(d / f"golden_v{k}.bin")
