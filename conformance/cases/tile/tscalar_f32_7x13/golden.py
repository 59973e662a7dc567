#!/usr/bin/env python3
"""f32 tile-scalar ops, 7x13 valid, with inf, -inf, 0 and -0 lanes."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(31)
a = rng.uniform(-6, 6, (7, 13)).astype(np.float32)
a[0, :4] = [np.inf, -np.inf, 0.0, -0.0]
a[1, :2] = [0.5, -0.5]
a.tofile(d / "v1.bin")
f = np.float32
with np.errstate(all="ignore"):
    outs = [a - f(1.5), a * f(-2.5), a / f(-0.75), f(-0.75) / a,
            np.maximum(a, f(0.5)), np.minimum(a, f(0.5))]
for k, o in enumerate(outs, start=2):
    np.zeros((7, 13), np.float32).tofile(d / f"v{k}.bin")
    o.astype(np.float32).tofile(d / f"golden_v{k}.bin")
