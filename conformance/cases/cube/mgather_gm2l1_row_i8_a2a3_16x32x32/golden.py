#!/usr/bin/env python3
"""GM -> L1 mgather of i8 rows (A2/A3, C0 = 32 bytes = 32 elements): both
matmul operands are gathered from one 48x32 i8 table with row coalescing,
A (16 rows, default undefined out-of-range mode, all indices in range) and
B (32 rows, gatherOob = wrap, index k reads row k mod 48). The i32 product
A @ B shows what the gathers put in the two NZ mat tiles.
v1 = table i8 48x32, v2 = A indices (16 x i32), v3 = B indices (32 x i32),
v4 = A @ B (i32 16x32)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(3232)

table = rng.integers(-128, 128, (48, 32)).astype(np.int8)
ia = rng.integers(0, 48, 16).astype(np.int32)
ib = rng.integers(0, 200, 32).astype(np.int32)
ib[[5, 30]] = [-2, 48]
a = table[ia].astype(np.int64)
b = table[(ib.astype(np.int64) & 0xFFFFFFFF) % 48].astype(np.int64)

table.tofile(d / "v1.bin")
ia.tofile(d / "v2.bin")
ib.tofile(d / "v3.bin")
np.zeros((16, 32), np.int32).tofile(d / "v4.bin")
(a @ b).astype(np.int32).tofile(d / "golden_v4.bin")
