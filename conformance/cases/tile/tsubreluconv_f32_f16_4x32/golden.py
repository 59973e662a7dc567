#!/usr/bin/env python3
"""tsubreluconv: convert(max(0, a - b)) for f32->f16 and f16->i8."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(79)
f = (rng.standard_normal((4, 32)) * 100).astype(np.float32)
g = (rng.standard_normal((4, 32)) * 100).astype(np.float32)
f[0, :3], g[0, :3] = [60000.0, 1.0, 0.5], [-60000.0, 2.0, 0.5]  # saturates; negative -> 0; 0
with np.errstate(over="ignore"):  # the f16 cast overflows to inf before the saturation
    fh = np.clip(np.maximum((f - g).astype(np.float32), 0).astype(np.float16), -65504, 65504)

h = (rng.standard_normal((4, 32)) * 60).astype(np.float16)
k = (rng.standard_normal((4, 32)) * 60).astype(np.float16)
h[0, :4], k[0, :4] = [3.75, 2.0, 100.0, -3.0], [1.25, -1.5, -100.0, 1.0]  # 2.5 -> 2, 3.5 -> 4, 200 -> 127
hk = np.maximum((h - k).astype(np.float16).astype(np.float64), 0)
hi = np.minimum(np.rint(hk), 127).astype(np.int8)

for idx, v in {1: f, 2: g, 4: h, 5: k}.items():
    v.tofile(d / f"v{idx}.bin")
for idx, v in {3: fh, 6: hi}.items():
    np.zeros_like(v).tofile(d / f"v{idx}.bin")
    v.tofile(d / f"golden_v{idx}.bin")
