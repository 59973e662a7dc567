#!/usr/bin/env python3
"""tmrgsort: descending merges of sorted (value, index) structure lists; ties take the
earlier block or list; exhausted = true stops when one list is consumed."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(37)
F32 = np.dtype([("v", "<f4"), ("i", "<u4")])
F16 = np.dtype([("v", "<f2"), ("z", "<u2"), ("i", "<u4")])


def sorted_list(n, dt, vt, base, scale=4):
    s = np.zeros(n, dt)
    s["v"] = -np.sort(-rng.integers(-scale, scale, n).astype(vt))  # ties across lists
    s["i"] = base + np.arange(n)
    return s


def merge(lists, out_n, exhausted=False):
    pos = [0] * len(lists)
    out = []
    while len(out) < out_n:
        best = None
        for k, lst in enumerate(lists):
            if pos[k] < len(lst) and (best is None or lst["v"][pos[k]] > lists[best]["v"][pos[best]]):
                best = k
        if best is None:
            break
        out.append(lists[best][pos[best]])
        pos[best] += 1
        if exhausted and any(p == len(lst) for p, lst in zip(pos, lists)):
            break
    return np.array(out, lists[0].dtype)


blocks = [sorted_list(64, F32, np.float32, 100 * b) for b in range(4)]
one = merge(blocks, 256)
l0 = sorted_list(64, F32, np.float32, 0, 20)
l1 = sorted_list(64, F32, np.float32, 1000, 20)
l1["v"][-8:] = -23.0 - np.arange(8)  # a tail below every value of list 0
two = merge([l0, l1], 128)
hl = [sorted_list(16, F16, np.float16, 100 * k) for k in range(4)]
four = merge(hl, 64)
# exhausted: list 0 runs out first (its smallest value beats list 1's tail)
ex_part = merge([l0, l1], 128, exhausted=True)
ex = np.zeros(128, F32)
ex["v"] = -7.0  # loaded before the merge; untouched after the stop
ex[: len(ex_part)] = ex_part

np.concatenate(blocks).tofile(d / "v1.bin")
l0.tofile(d / "v3.bin")
l1.tofile(d / "v4.bin")
for k in range(4):
    hl[k].tofile(d / f"v{6 + k}.bin")
np.zeros(512, np.float32).tofile(d / "v2.bin")
np.zeros(256, np.float32).tofile(d / "v5.bin")
np.zeros(256, np.float16).tofile(d / "v10.bin")
pre = np.zeros(128, F32)
pre["v"] = -7.0
pre.tofile(d / "v11.bin")
one.tofile(d / "golden_v2.bin")
two.tofile(d / "golden_v5.bin")
four.tofile(d / "golden_v10.bin")
ex.tofile(d / "golden_v11.bin")
print("exhausted merge wrote", len(ex_part), "of 128")
