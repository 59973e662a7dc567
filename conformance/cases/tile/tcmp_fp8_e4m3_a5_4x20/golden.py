#!/usr/bin/env python3
"""tcmp/tcmps on fp8 e4m3fn tiles (A5) into packed u8 masks (LSB first, row by row)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(71)
# e4m3fn codes of -1.5 .. 1.5 in half steps
CODE = {-1.5: 0xBC, -1.0: 0xB8, -0.5: 0xB0, 0.0: 0x00, 0.5: 0x30, 1.0: 0x38, 1.5: 0x3C}
a = rng.choice(sorted(CODE), (4, 20))
b = rng.choice(sorted(CODE), (4, 20))
ca = np.vectorize(CODE.get, otypes=[np.uint8])(a)
cb = np.vectorize(CODE.get, otypes=[np.uint8])(b)
ca[0, 0] = 0x7F  # NaN
cb[1, 1] = 0xFF  # NaN
a[0, 0], b[1, 1] = np.nan, np.nan
ca[2, 2], cb[2, 2] = 0x80, 0x00  # -0 == +0
a[2, 2], b[2, 2] = -0.0, 0.0
ca.tofile(d / "v1.bin")
cb.tofile(d / "v2.bin")


def pack(m):
    out = np.zeros((4, 32), np.uint8)
    for r in range(4):
        bits = np.packbits(m[r].astype(np.uint8), bitorder="little")
        out[r, : len(bits)] = bits
    return out


with np.errstate(invalid="ignore"):
    gt, eq, le = a > b, a == b, a <= 0.5
for k, m in enumerate([gt, eq, le], start=3):
    np.full((4, 32), 0xAA, np.uint8).tofile(d / f"v{k}.bin")  # tcmp zeroes the whole mask tile
    pack(m).tofile(d / f"golden_v{k}.bin")
