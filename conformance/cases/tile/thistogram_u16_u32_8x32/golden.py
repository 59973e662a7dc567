#!/usr/bin/env python3
"""thistogram: per-row cumulative 256-bin histograms of one byte, with radix filters."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(53)


def cum_hist(bytes_, mask):
    return np.cumsum(np.bincount(bytes_[mask], minlength=256)).astype(np.uint32)


# high bytes from a small set so the low-byte filter keeps several elements
h = (rng.integers(0, 4, (8, 32)) * 256 + rng.integers(0, 256, (8, 32))).astype(np.uint16)
hi = rng.integers(0, 4, (8, 1)).astype(np.uint8)
hi[7, 0] = 200  # a filter nothing matches
msb = np.stack([cum_hist(r >> 8, np.ones(32, bool)) for r in h])
lsb = np.stack([cum_hist(r & 0xFF, (r >> 8) == f) for r, f in zip(h, hi[:, 0])])

w = (rng.integers(0, 2, (4, 64)).astype(np.uint32) << 24) | (rng.integers(0, 2, (4, 64)).astype(np.uint32) << 16) \
    | rng.integers(0, 1 << 16, (4, 64)).astype(np.uint32)
wi = np.array([[1], [0], [0], [0]], np.uint8)
b3 = np.stack([cum_hist((r >> 24) & 0xFF, np.ones(64, bool)) for r in w])
b1 = np.stack([cum_hist((r >> 8) & 0xFF, (((r >> 24) & 0xFF) == wi[0, 0]) & (((r >> 16) & 0xFF) == wi[1, 0])) for r in w])

for k, v in {1: h, 2: hi, 5: w, 6: wi}.items():
    v.tofile(d / f"v{k}.bin")
for k, v in {3: msb, 4: lsb, 7: b3, 8: b1}.items():
    np.zeros_like(v).tofile(d / f"v{k}.bin")
    v.tofile(d / f"golden_v{k}.bin")
