#!/usr/bin/env python3
"""vexpdif exp(x - max) from f32 and from f16 (EVEN/ODD lanes) into f32; reference exp in float64."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(43)
x = rng.uniform(-20, 5, 256).astype(np.float32)
mx = rng.uniform(0, 5, 256).astype(np.float32)
inf, nan = np.inf, np.nan
ex = [0.0, 3.0, -inf, nan, 1.0, -200.0, 100.0, 2.0, -0.0, inf]
em = [0.0, 3.0, 0.0, 0.0, nan, 0.0, 0.0, -87.0, 0.0, 1.0]
x[: len(ex)], mx[: len(em)] = ex, em
h = rng.uniform(-8, 4, 256).astype(np.float16)
mh = rng.uniform(0, 4, 256).astype(np.float16)
h[:6], mh[:6] = [0.0, 1.0, -inf, nan, 65504, -65504], [0.0, 1.0, 0.0, 0.0, 0.0, 0.0]
for k, v in enumerate((x, mx, h, mh), 1):
    v.tofile(d / f"v{k}.bin")
np.zeros(256, np.float32).tofile(d / "v5.bin")
np.zeros(256, np.float32).tofile(d / "v6.bin")
with np.errstate(all="ignore"):
    np.exp(x.astype(np.float64) - mx.astype(np.float64)).astype(np.float32).tofile(d / "golden_v5.bin")
    e = np.exp(h.astype(np.float64) - mh.astype(np.float64)).astype(np.float32)
out = []
for r in range(0, 256, 128):
    out += [e[r : r + 128 : 2], e[r + 1 : r + 128 : 2]]
np.concatenate(out).tofile(d / "golden_v6.bin")
