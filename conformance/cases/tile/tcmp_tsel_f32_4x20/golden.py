#!/usr/bin/env python3
"""tcmp/tcmps into packed u8 masks (LSB first, row by row), tsel/tsels by those masks."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
a = rng.integers(-3, 4, (4, 20)).astype(np.float32) / 2
b = rng.integers(-3, 4, (4, 20)).astype(np.float32) / 2
a[0, 0] = np.nan
b[1, 1] = np.nan
a[2, 2], b[2, 2] = -0.0, 0.0
a.tofile(d / "v1.bin")
b.tofile(d / "v2.bin")


def pack(m):
    out = np.zeros((4, 32), np.uint8)
    for r in range(4):
        bits = np.packbits(m[r].astype(np.uint8), bitorder="little")
        out[r, : len(bits)] = bits
    return out


with np.errstate(invalid="ignore"):
    gt, eq, ne, le = a > b, a == b, a != b, a <= np.float32(0.5)
for k, m in enumerate([gt, eq, ne, le], start=3):
    np.full((4, 32), 0xAA, np.uint8).tofile(d / f"v{k}.bin")  # tcmp zeroes the whole mask tile
    pack(m).tofile(d / f"golden_v{k}.bin")
for k, o in [(7, np.where(gt, a, b)), (8, np.where(le, a, np.float32(-1)))]:
    np.zeros((4, 20), np.float32).tofile(d / f"v{k}.bin")
    o.astype(np.float32).tofile(d / f"golden_v{k}.bin")
