#!/usr/bin/env python3
"""i32 tile-scalar ops, 7x13 valid; every result wraps to 32 bits."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(37)
a = rng.integers(-3000, 3000, (7, 13)).astype(np.int32)
a[a == 0] = 11
a[0, :4] = [2**31 - 1, -2**31, 1, -1]
a[1, :4] = [14, -14, 13, -13]
b = rng.integers(-2**31, 2**31, (7, 13), dtype=np.int64).astype(np.int32)
a.tofile(d / "v1.bin")
b.tofile(d / "v2.bin")
A, B = a.astype(np.int64), b.astype(np.int64)
big, m, dv, num, mask, sh, ex = 2000000000, -37, -7, 1000000, 0x00FF00F0, 5, 3


def tdiv(x, y):
    return np.abs(x) // np.abs(y) * np.sign(x) * np.sign(y)


fm = A - tdiv(A, dv) * dv
rem = np.where((fm != 0) & ((fm < 0) != (dv < 0)), fm + dv, fm)
pw = np.ones_like(A)
for _ in range(ex):
    pw = ((pw * A + 2**31) % 2**32) - 2**31
outs = [A + big, A - big, A * m, tdiv(A, dv), tdiv(num, A), np.maximum(A, m), np.minimum(A, m),
        A & mask, A | mask, A ^ mask, A << sh, A >> sh, rem, fm, pw, A + big + B, A - big + B]
for k, o in enumerate(outs, start=3):
    np.zeros((7, 13), np.int32).tofile(d / f"v{k}.bin")
    (np.asarray(o) & 0xFFFFFFFF).astype(np.uint32).view(np.int32).tofile(d / f"golden_v{k}.bin")
# taxpy: dst = m * a + dst, dst starting as a copy of b
np.zeros((7, 13), np.int32).tofile(d / "v20.bin")
((A * m + B) & 0xFFFFFFFF).astype(np.uint32).view(np.int32).tofile(d / "golden_v20.bin")
