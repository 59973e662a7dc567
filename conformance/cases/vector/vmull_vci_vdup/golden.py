#!/usr/bin/env python3
"""vmull (signed 32x32->64, low/high words), vci ASC/DESC on i32/si16/f32, vdup scalar/vector, vbr i32/i8."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(41)
a = rng.integers(-(1 << 31), 1 << 31, 256, dtype=np.int64).astype(np.int32)
b = rng.integers(-(1 << 31), 1 << 31, 256, dtype=np.int64).astype(np.int32)
ea = [-(1 << 31), -(1 << 31), 2147483647, -1, 0, 65536, -65536, 46341]
eb = [-(1 << 31), 2147483647, 2147483647, -1, -5, 65536, 65536, 46341]
a[: len(ea)], b[: len(eb)] = ea, eb
a[63] = 123456789  # the HIGHEST lane of the first register
a.tofile(d / "v1.bin")
b.tofile(d / "v2.bin")
np.zeros(512, np.int32).tofile(d / "v3.bin")
np.full(384, -7, np.int32).tofile(d / "v4.bin")
np.zeros(128, np.int16).tofile(d / "v5.bin")
np.zeros(64, np.float32).tofile(d / "v6.bin")
np.zeros(256, np.int8).tofile(d / "v7.bin")

p = [int(x) * int(y) for x, y in zip(a, b)]  # exact products
lo = np.array([q & 0xFFFFFFFF for q in p], np.uint32).view(np.int32)
hi = np.array([(q >> 32) & 0xFFFFFFFF for q in p], np.uint32).view(np.int32)
np.concatenate([lo, hi]).tofile(d / "golden_v3.bin")
i = np.arange(64)
rows = [
    -3 + i, 1000 - i, np.full(64, a[0]), np.full(64, a[63]),
    np.full(64, 77), np.full(64, 2147483647),
]
np.concatenate(rows).astype(np.int32).tofile(d / "golden_v4.bin")
(np.arange(128) - 64).astype(np.int16).tofile(d / "golden_v5.bin")
(np.float32(0.5) - np.arange(64, dtype=np.float32)).tofile(d / "golden_v6.bin")
np.full(256, -2, np.int8).tofile(d / "golden_v7.bin")
