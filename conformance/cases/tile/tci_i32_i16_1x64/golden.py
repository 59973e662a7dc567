#!/usr/bin/env python3
"""tci: ascending, descending (wrapping i16) and wrapping ui16 index sequences."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
outs = [
    (5 + np.arange(48, dtype=np.int64), np.int32),
    (-32760 - np.arange(32, dtype=np.int64), np.int16),
    (65530 + np.arange(16, dtype=np.int64), np.uint16),
]
for k, (v, t) in enumerate(outs, start=1):
    np.zeros(v.shape, t).tofile(d / f"v{k}.bin")
    # integer wrap-around to the element width
    v.astype(np.int64).astype(t).reshape(1, -1).tofile(d / f"golden_v{k}.bin")
