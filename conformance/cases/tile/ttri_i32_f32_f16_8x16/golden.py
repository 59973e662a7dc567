#!/usr/bin/env python3
"""ttri: lower (diagonal 0, 8x13 valid), upper (diagonal -2) and lower (diagonal 5)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent


def tri(rows, cols, diag, upper):
    i, j = np.indices((rows, cols))
    return (j >= i + diag) if upper else (j <= i + diag)


outs = [(tri(8, 13, 0, False), np.int32), (tri(8, 16, -2, True), np.float32),
        (tri(4, 16, 5, False), np.float16)]
for k, (m, t) in enumerate(outs, start=1):
    np.zeros(m.shape, t).tofile(d / f"v{k}.bin")
    m.astype(t).tofile(d / f"golden_v{k}.bin")
