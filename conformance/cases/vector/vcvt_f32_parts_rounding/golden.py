#!/usr/bin/env python3
"""vcvt f32->f16 EVEN/ODD (+vor, SAT), f16->f32 ODD, f32->i32 floor, vtrc round-half-away."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
x = rng.uniform(-300, 300, 1024).astype(np.float32)
x[:12] = [0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 1e6, -7e4, 65519.0, 1e-8, -0.0, 3.0]
x[64:70] = [1e6, -1e6, 0.1, -0.1, 2049.5, -2049.5]
x.tofile(d / "v1.bin")
np.zeros(1024, np.float16).tofile(d / "v2.bin")
np.zeros(1024, np.int32).tofile(d / "v3.bin")
np.zeros(1024, np.float32).tofile(d / "v4.bin")
np.zeros(512, np.float32).tofile(d / "v5.bin")

f16max = np.float32(65504.0)
h = np.clip(x, -f16max, f16max).astype(np.float16)
# values that round past the f16 maximum saturate too
h = np.where(np.isinf(h), np.sign(x).astype(np.float16) * np.float16(65504.0), h)
g2 = np.empty(1024, np.float16)
odd = np.empty(512, np.float32)
for base in range(0, 1024, 128):
    g2[base : base + 128 : 2] = h[base : base + 64]
    g2[base + 1 : base + 128 : 2] = h[base + 64 : base + 128]
    odd[base // 2 : base // 2 + 64] = h[base + 64 : base + 128].astype(np.float32)
g2.tofile(d / "golden_v2.bin")
np.floor(x).astype(np.int32).tofile(d / "golden_v3.bin")
(np.sign(x) * np.floor(np.abs(x) + 0.5)).astype(np.float32).tofile(d / "golden_v4.bin")
odd.tofile(d / "golden_v5.bin")
