#!/usr/bin/env python3
"""vlds BRC/US/DS/UNPK, vsts PK/PK4/1PT, vldsx2 DINTLV and vstsx2 INTLV on 16-bit data."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(31)
x = rng.integers(0, 1 << 16, 512).astype(np.uint16)
x[:8] = [0, 0xFFFF, 0x8000, 0x7FFF, 1, 0x1234, 0xFEDC, 0x00FF]
w = rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32)
w[:4] = [0xFFFFFFFF, 0x80000000, 0x0001FFFF, 0x12345678]
x.tofile(d / "v1.bin")
w.tofile(d / "v2.bin")
SENT = 0xABCD
o = np.full(10 * 128, SENT, np.uint16)
o.tofile(d / "v3.bin")

R = [o[k * 128 : (k + 1) * 128] for k in range(10)]  # views into o
R[0][:] = x[5]
R[1][:] = np.repeat(x[64:128], 2)
R[2][:] = x[0:256:2]
R[3][0::2], R[3][1::2] = x[128:192], 0  # zero-extended into 32-bit lanes, little-endian
R[4][:64] = (w & 0xFFFF).astype(np.uint16)
R[5][:] = x[256:512:2]
sw = x[256:512].copy()
sw[0::2], sw[1::2] = x[257:512:2], x[256:512:2]
o[768:1024] = sw
R[8][0] = x[300]
R[9][:32] = (w & 0xFF).astype(np.uint8).view(np.uint16)
o.tofile(d / "golden_v3.bin")
