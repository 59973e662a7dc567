#!/usr/bin/env python3
"""GM -> L1 mgather, row mode (A2/A3): table rows picked by a GM index array
land in an NZ mat tile, which then feeds a matmul (so the result shows what
the gather put in L1). Two gathers: gatherOob = clamp (an index past the
table reads its last row; a negative one is a huge u32 and clamps too) and
gatherOob = zero (the whole tile is zeroed first; out-of-range rows stay 0).
v1 = table f16 64x32, v2 = clamp indices (32 x i32), v3 = zero-mode indices,
v4 = B f16 32x16, v5 = gather_clamp @ B (f32 32x16), v6 = gather_zero @ B.
Small integer values keep every product and sum exact."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(4411)
f16, f32 = np.float16, np.float32

table = rng.integers(-4, 5, (64, 32)).astype(f16)
idx_clamp = rng.integers(0, 64, 32).astype(np.int32)
idx_clamp[[3, 17, 30]] = [64, 1000, -1]
idx_zero = rng.integers(0, 64, 32).astype(np.int32)
idx_zero[[0, 9, 31]] = [64, 77, -5]
b = rng.integers(-4, 5, (32, 16)).astype(f16)


def gather(idx, mode):
    out = np.zeros((32, 32), f32)
    for r, k in enumerate(idx.astype(np.int64) & 0xFFFFFFFF):
        if k < 64:
            out[r] = table[k]
        elif mode == "clamp":
            out[r] = table[63]
    return out


c_clamp = gather(idx_clamp, "clamp") @ b.astype(f32)
c_zero = gather(idx_zero, "zero") @ b.astype(f32)

for name, arr in [("v1", table), ("v2", idx_clamp), ("v3", idx_zero), ("v4", b)]:
    arr.tofile(d / f"{name}.bin")
c_clamp.astype(f32).tofile(d / "golden_v5.bin")
c_zero.astype(f32).tofile(d / "golden_v6.bin")
np.zeros((32, 16), f32).tofile(d / "v5.bin")
np.zeros((32, 16), f32).tofile(d / "v6.bin")
