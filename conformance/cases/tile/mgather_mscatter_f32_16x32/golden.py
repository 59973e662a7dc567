#!/usr/bin/env python3
"""mgather (row mode; elem mode with out-of-range -> 0) and mscatter (row mode, last
write wins; elem mode with atomic add)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(47)
f32 = np.float32
tab = rng.standard_normal((16, 32)).astype(f32)
ridx = np.array([[3, 0, 15, 3, 7, 1, 2, 9]], np.int32)
rows = tab[ridx[0]]
eidx = rng.integers(0, 512, (4, 8)).astype(np.int32)
eidx[0, 0], eidx[1, 1], eidx[2, 2] = 512, -1, 511
flat = tab.reshape(-1)
ok = (eidx >= 0) & (eidx < 512)
elems = np.where(ok, flat[np.clip(eidx, 0, 511)], 0).astype(f32)

ssrc = rng.standard_normal((4, 32)).astype(f32)
sidx = np.array([[5, 2, 5, 0, 0, 0, 0, 0]], np.int32)  # 4 valid; row 5 twice
stab0 = rng.standard_normal((16, 32)).astype(f32)
stab = stab0.copy()
for r in range(4):
    stab[sidx[0, r]] = ssrc[r]

asrc = rng.integers(-8, 8, (2, 8)).astype(f32)
aidx = rng.integers(0, 16, (2, 8)).astype(np.int32)  # repeats accumulate
atab0 = rng.integers(-4, 4, (1, 64)).astype(f32)
atab = atab0.copy()
for i in range(2):
    for j in range(8):
        atab[0, aidx[i, j]] += asrc[i, j]

ins = {1: tab, 2: ridx, 4: eidx, 6: ssrc, 7: sidx, 9: asrc, 10: aidx}
for k, v in ins.items():
    v.tofile(d / f"v{k}.bin")
np.zeros_like(rows).tofile(d / "v3.bin")
np.zeros_like(elems).tofile(d / "v5.bin")
stab0.tofile(d / "v8.bin")
atab0.tofile(d / "v11.bin")
for k, v in {3: rows, 5: elems, 8: stab, 11: atab}.items():
    v.tofile(d / f"golden_v{k}.bin")
