#!/usr/bin/env python3
"""tsort32: 32-element blocks sorted descending with their indices (ties: smaller index
first), written as 8-byte (value, index) structures."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(31)
F32 = np.dtype([("v", "<f4"), ("i", "<u4")])
F16 = np.dtype([("v", "<f2"), ("z", "<u2"), ("i", "<u4")])


def sort_blocks(vals, idx, dt):
    out = []
    for j in range(0, len(vals), 32):
        v, i = vals[j:j + 32], idx[j:j + 32]
        order = np.lexsort((i, -v.astype(np.float64)))  # last key first: value desc, then index
        s = np.zeros(len(order), dt)
        s["v"], s["i"] = v[order], i[order]
        out.append(s)
    return np.concatenate(out)


src = rng.integers(-8, 8, (2, 64)).astype(np.float32)  # many ties
src[0, 3], src[0, 40], src[1, 63] = 3e38, -3e38, 0.5  # extremes (pto-run case mis-compares infinities)
idx = rng.permutation(2 * 64).astype(np.uint32).reshape(2, 64) + 1000
dst = np.concatenate([sort_blocks(src[r], idx[r], F32) for r in range(2)])

h = (rng.standard_normal(40) * 4).astype(np.float16)
h[5] = h[6] = h[35] = h[36] = 1.25
hidx = np.arange(40, dtype=np.uint32)[::-1].copy()
hdst = sort_blocks(h, hidx, F16)

for k, v in {1: src, 2: idx, 4: h, 5: hidx}.items():
    v.tofile(d / f"v{k}.bin")
np.zeros(2 * 128, np.float32).tofile(d / "v3.bin")
np.zeros(160, np.float16).tofile(d / "v6.bin")
dst.tofile(d / "golden_v3.bin")
hdst.tofile(d / "golden_v6.bin")
