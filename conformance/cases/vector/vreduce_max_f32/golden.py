#!/usr/bin/env python3
"""vcmax / vcmin (value + first index) / vcgmax per 64-lane f32 register; last register 16 active lanes;
vcgmax of a VLane with no active lane is -inf (the micro-ISA doc's start value)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
rows, lanes, n = 32, 64, 2000
x = rng.integers(-50, 50, rows * lanes).astype(np.float32)  # small integers: many ties
x[lanes * 31 + 50] = 1000.0  # masked off: must not win
x.tofile(d / "v1.bin")
for k in (2, 3, 4):
    np.zeros(rows * lanes, np.float32).tofile(d / f"v{k}.bin")
act = (np.arange(rows * lanes) < n).reshape(rows, lanes)
xr = x.reshape(rows, lanes)


def ext(fill, pick):
    out = np.zeros((rows, lanes), np.float32)
    bits = out.view(np.uint32)
    for r in range(rows):
        v = np.where(act[r], xr[r], fill)
        i = int(pick(v))
        out[r, 0] = v[i]
        bits[r, 1] = i
    return out


ext(-np.inf, np.argmax).tofile(d / "golden_v2.bin")
g = np.zeros((rows, lanes), np.float32)
g[:, :8] = np.where(act, xr, -np.inf).reshape(rows, 8, 8).max(axis=2)
g.tofile(d / "golden_v3.bin")
ext(np.inf, np.argmin).tofile(d / "golden_v4.bin")
