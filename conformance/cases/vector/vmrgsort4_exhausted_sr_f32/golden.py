#!/usr/bin/env python3
"""vmrgsort4 exhausted mode over four sorted 8-record lists, and get_vms4_sr's per-list counts."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(97)
scores = rng.permutation(np.arange(32)).astype(np.float32) * np.float32(0.75) - np.float32(9)
lists = []
for k in range(4):
    s = np.sort(scores[k * 8:(k + 1) * 8])[::-1]
    idx = np.arange(8, dtype=np.uint32) + np.uint32(100 * (k + 1))
    lists.append(list(zip(s.tolist(), idx.tolist())))


def rec(s, i):
    return np.float32(s).tobytes() + np.uint32(i).tobytes()


sentinel = bytes([0xAB, 0xCD]) * 128
inp = b"".join(rec(s, i) for lst in lists for s, i in lst) + sentinel
np.frombuffer(inp, np.uint8).tofile(d / "v1.bin")
np.zeros(256, np.uint8).tofile(d / "v2.bin")
np.full(4, -1, np.int16).tofile(d / "v3.bin")

# merge the largest head first (all scores distinct); stop once a list empties
heads = [0, 0, 0, 0]
merged = b""
while True:
    k = max((k for k in range(4) if heads[k] < 8), key=lambda k: lists[k][heads[k]][0])
    merged += rec(*lists[k][heads[k]])
    heads[k] += 1
    if heads[k] == 8:
        break
out = merged + sentinel[len(merged):]
np.frombuffer(out, np.uint8).tofile(d / "golden_v2.bin")
np.array(heads, np.int16).tofile(d / "golden_v3.bin")
print("counts", heads)
