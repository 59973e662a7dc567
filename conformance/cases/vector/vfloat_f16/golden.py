#!/usr/bin/env python3
"""f16 vadd/vsub/vmul/vmax/vmin/vabs/vneg, vadds/vmuls/vmaxs/vmins, vaxpy and vmula with IEEE edge values."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(37)
N = 512
a = rng.uniform(-4, 4, N).astype(np.float16)
b = rng.uniform(-4, 4, N).astype(np.float16)
c = rng.uniform(-4, 4, N).astype(np.float16)
inf, nan = np.inf, np.nan
ea = [nan, 1.0, inf, inf, -inf, 0.0, -0.0, 65504, -65504, 6e-8, 6e-8, -3.0, 2.0, 0.0, 300, 1.0]
eb = [1.0, nan, -inf, inf, 1.0, -0.0, 0.0, 65504, 65504, 6e-8, -6e-8, -3.0, nan, 5.0, 300, -1.0]
ec = [0.0, 0.0, 0.0, 1.0, 2.0, -0.0, 0.0, 0.0, 1.0, 0.0, 0.0, nan, 0.0, inf, -90000 / 2, 1.0]
a[: len(ea)], b[: len(eb)], c[: len(ec)] = ea, eb, ec
b[200:240] = a[200:240]  # ties for vmax/vmin
m = np.where(np.isnan(a), np.float16(2.5), a)  # vmax/vmin see NaN only as second operand
for k, v in enumerate((a, b, c, m), 1):
    v.tofile(d / f"v{k}.bin")
np.zeros(13 * N, np.float16).tofile(d / "v5.bin")

A, B, C, Mm = (v.astype(np.float64) for v in (a, b, c, m))  # products and these sums are exact in f64
z = np.float64(0)
with np.errstate(all="ignore"):
    outs = [
        A + B, A - B, A * B,
        np.where(Mm > B, Mm, B), np.where(Mm < B, Mm, B),
        np.abs(A), -A,
        A + 1.5, A * -0.75, np.where(Mm > z, Mm, z), np.where(Mm < z, Mm, z),
        -1.25 * A + B, C + A * B,
    ]
    np.concatenate([o.astype(np.float16) for o in outs]).tofile(d / "golden_v5.bin")
