#!/usr/bin/env python3
"""Row softmax of 16x64 f32 (examples/softmax.pto): y = exp(x - rowmax) / rowsum."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
x = rng.uniform(-3, 3, (16, 64)).astype(np.float32)
x[3, :] = 0.0  # a constant row: exactly 1/64 each
e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
y = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
x.tofile(d / "v1.bin")
np.zeros((16, 64), np.float32).tofile(d / "v2.bin")
y.tofile(d / "golden_v2.bin")
