#!/usr/bin/env python3
"""copy_gm_to_cbuf with the set_loop*_outtol1 loops: B^T reaches L1 from a
row-shuffled GM copy (L1 row b + 4i + 8j <- GM row 2b + i + 8j), then
C = A B (16 x 16 x 32, f16 operands, f32 nz2nd)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(4021)

a = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
b = rng.uniform(-1, 1, (16, 32)).astype(np.float16)
bt = b.T.copy()
gm = np.zeros_like(bt)
for j in range(4):
    for i in range(2):
        for k in range(4):
            gm[2 * k + i + 8 * j] = bt[k + 4 * i + 8 * j]
a.tofile(d / "v1.bin")
gm.tofile(d / "v2.bin")
c = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
c.tofile(d / "golden_v3.bin")
