#!/usr/bin/env python3
"""tcvt integer <-> integer (saturation on/off) and int <-> float conversions."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
a = rng.integers(-100000, 100000, (4, 16)).astype(np.int32)
a[0, :8] = [32767, 32768, -32768, -32769, 255, 256, -1, 2**31 - 1]
a[1, :4] = [16777217, -16777219, 2**30 + 65, -(2**31)]
h = rng.uniform(-200, 200, (4, 16)).astype(np.float16)
h[0, :6] = [2.5, -2.5, 127.5, -128.5, np.nan, np.inf]
u = rng.integers(0, 256, (4, 32)).astype(np.uint8)
s = rng.integers(-32768, 32768, (4, 16)).astype(np.int16)
for k, x in enumerate([a, h, u, s], start=1):
    x.tofile(d / f"v{k}.bin")
a64 = a.astype(np.int64)
u8on = np.clip(a64, 0, 255).astype(np.uint8)
with np.errstate(invalid="ignore"):
    hv = h.astype(np.float64)
    hv[np.isnan(hv)] = 0.0
    i8 = np.nan_to_num(np.sign(hv) * np.floor(np.abs(hv) + 0.5), nan=0, posinf=127, neginf=-128)
outs = [np.clip(a64, -32768, 32767).astype(np.int16),
        a.astype(np.int16),  # wraps
        u8on,
        a.astype(np.float32),  # round to nearest even
        None,  # filled below
        np.clip(i8, -128, 127).astype(np.int8)[:, :16],
        u.astype(np.float16),
        s.astype(np.float32)]
# i32 -> f32 toward zero: the largest f32 not above |x|
t = a.astype(np.float32)
t = np.where(np.abs(t.astype(np.float64)) > np.abs(a64), np.nextafter(t, np.float32(0)), t).astype(np.float32)
outs[4] = t
shapes = [(4, 16), (4, 16), (4, 16), (4, 16), (4, 16), (4, 16), (4, 32), (4, 16)]
for k, (o, shp) in enumerate(zip(outs, shapes), start=5):
    np.zeros(shp, o.dtype).tofile(d / f"v{k}.bin")
    o.tofile(d / f"golden_v{k}.bin")
