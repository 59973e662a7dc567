#!/usr/bin/env python3
"""Column reductions over a 9x20 i32 valid region: sum, max, min, prod (wrapping)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
x = rng.integers(-2**31, 2**31, (9, 20), dtype=np.int64).astype(np.int32)
x[:, 3] = rng.integers(-5, 6, 9)
x[:, 4] = 2**31 - 1  # the sum wraps
x.tofile(d / "v1.bin")
x64 = x.astype(np.int64)
outs = [x64.sum(0), x64.max(0), x64.min(0), np.prod(x64, 0)]
for k, o in enumerate(outs, start=2):
    np.zeros((1, 20), np.int32).tofile(d / f"v{k}.bin")
    (o & 0xFFFFFFFF).astype(np.uint32).view(np.int32).reshape(1, 20).tofile(d / f"golden_v{k}.bin")
