#!/usr/bin/env python3
"""Arg reductions over an 8x13 f32 valid region (first index of the extreme value)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
x = rng.integers(-6, 7, (8, 13)).astype(np.float32)  # small integers: many ties
x[2, :] = 1.5
x[4, 9] = np.inf
x[5, 0] = -np.inf
x.tofile(d / "v1.bin")
outs = [(x.argmax(1), np.int32, (8, 1)), (x.argmin(1), np.int32, (8, 1)),
        (x.argmax(0), np.uint32, (1, 13)), (x.argmin(0), np.uint32, (1, 13))]
for k, (o, t, s) in enumerate(outs, start=2):
    np.zeros(s, t).tofile(d / f"v{k}.bin")
    o.astype(t).reshape(s).tofile(d / f"golden_v{k}.bin")
