#!/usr/bin/env python3
"""tmov / textract / tinsert / ttrans / tfillpad / tconcat on f32 tiles."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
x = rng.uniform(-5, 5, (8, 16)).astype(np.float32)
x.tofile(d / "v1.bin")
np.zeros((8, 16), np.float32).tofile(d / "v2.bin")
flat = x.reshape(-1)
ext = x[2:6, 3:9]
ins = np.zeros((8, 16), np.float32)
ins[3:7, 9:15] = ext
fp = np.full((8, 16), np.inf, np.float32)
fp[:5, :11] = flat[: 5 * 11].reshape(5, 11)  # a 5x11 view over x's storage
cat = np.concatenate([flat[:40].reshape(8, 5), flat[:56].reshape(8, 7)], axis=1)
outs = [x, ext, ins, x.T, fp, cat]
for k, o in enumerate(outs, start=3):
    np.zeros(o.shape, np.float32).tofile(d / f"v{k}.bin")
    np.ascontiguousarray(o).astype(np.float32).tofile(d / f"golden_v{k}.bin")
