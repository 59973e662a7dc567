#!/usr/bin/env python3
"""vlds US_B8/DS_B8/UNPK_B8/BRC_B32, vsts PK_B16, vldsx2 DINTLV_B32 and vstsx2 INTLV_B8/INTLV_B32."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(59)
x = rng.integers(0, 256, 1024).astype(np.uint8)
x[:4] = [0, 0xFF, 0x80, 0x7F]
w = rng.integers(0, 1 << 32, 256, dtype=np.uint64).astype(np.uint32)
w[7] = 0xDEADBEEF
x.tofile(d / "v1.bin")
w.tofile(d / "v2.bin")
o = np.full(2560, 0xEE, np.uint8)
o.tofile(d / "v3.bin")

o[0:256] = np.repeat(x[0:128], 2)
o[256:512] = x[0:512:2]
o[512:768] = np.stack([x[512:640], np.zeros(128, np.uint8)], axis=1).ravel()
o[768:1024] = np.full(64, w[7], np.uint32).view(np.uint8)
o[1024:1152] = x[640:896].view(np.uint16).astype(np.uint8)  # low byte of each 16-bit lane
o[1280:1536] = w[1:128:2].copy().view(np.uint8)
o[1536:2048] = np.stack([x[256:512], x[0:256]], axis=1).ravel()
o[2048:2560] = np.stack([w[128:192], w[192:256]], axis=1).ravel().view(np.uint8)
o.tofile(d / "golden_v3.bin")
