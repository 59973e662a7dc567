#!/usr/bin/env python3
"""tquant INT8 sym/asym (per-row scale, offset; rint ties to even, saturation, NaN -> 0)
and tdequant of i8 and i16 tiles."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(23)
f32 = np.float32

x = (rng.standard_normal((32, 32)) * 40).astype(f32)
scale = rng.uniform(0.25, 4.0, (32, 1)).astype(f32)
scale[0] = 1.0
scale[1] = 0.5
off = rng.integers(-20, 150, (32, 1)).astype(f32)
off[0] = 0.5
# ties: 0.5, 1.5, 2.5, -0.5, -2.5 with scale 1 (row 0) and 2*k+1 with scale 0.5 (row 1)
x[0, :6] = [0.5, 1.5, 2.5, -0.5, -2.5, 127.5]
x[1, :4] = [1.0, 3.0, 5.0, -7.0]
x[2, :4] = [1e6, -1e6, np.inf, -np.inf]  # saturation
x[3, 0] = np.nan


def quant(t, lo, hi):
    q = np.clip(np.rint(t), lo, hi)
    return np.where(np.isnan(t), 0, q)


t = (x * scale).astype(f32)
sym = quant(t, -128, 127).astype(np.int8)
asym = quant((t + off).astype(f32), 0, 255).astype(np.uint8)

q = rng.integers(-128, 128, (16, 32)).astype(np.int8)
qs = rng.uniform(0.01, 2.0, (16, 1)).astype(f32)
qo = rng.integers(-10, 10, (16, 1)).astype(f32)
deq = ((q.astype(f32) - qo).astype(f32) * qs).astype(f32)

w = rng.integers(-32768, 32768, (8, 10)).astype(np.int16)
ws = rng.uniform(1e-4, 1e-2, (8, 1)).astype(f32)
wo = rng.uniform(-100, 100, (8, 1)).astype(f32)
wdeq = ((w.astype(f32) - wo).astype(f32) * ws).astype(f32)

ins = {1: x, 2: scale, 3: off, 6: q, 7: qs, 8: qo, 10: w, 11: ws, 12: wo}
for k, v in ins.items():
    v.tofile(d / f"v{k}.bin")
for k, v in {4: sym, 5: asym, 9: deq, 13: wdeq}.items():
    np.zeros_like(v).tofile(d / f"v{k}.bin")
    v.tofile(d / f"golden_v{k}.bin")
