#!/usr/bin/env python3
"""Compare-form tgather: per source row, the indices offset + r * cols + c of
the elements that are > k (gt) or == k (eq) packed from column 0 of the dst
row, the row's count in cdst[r] (pto-isa's A2/A3 TGATHER compare form)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(47)
R, C = 4, 64

s1 = rng.normal(0.5, 1.0, (R, C)).astype(np.float32)
s1[0, :6] = [np.nan, np.inf, -np.inf, 0.5, np.nextafter(np.float32(0.5), np.float32(1)), 1e-42]
s1[2, :] = -1.0  # a row without a match
s1[3, :] = 2.0  # a row where every element matches
s2 = rng.integers(-2, 3, (R, C)).astype(np.float16)
s2[1, :4] = [np.float16(-0.0), np.float16(np.nan), np.float16(np.inf), np.float16(6e-8)]
s3 = rng.integers(-5, 0, (R, C)).astype(np.int32)


def gather(src, hit, offset):
    dst = np.full((R, C), -1, np.int32)
    cnt = np.full((1, 8), -1, np.int32)
    for r in range(R):
        cols = np.nonzero(hit[r])[0]
        dst[r, : len(cols)] = offset + r * C + cols
        cnt[0, r] = len(cols)
    return dst, cnt


with np.errstate(invalid="ignore"):
    results = [
        (s1, gather(s1, s1 > np.float32(0.5), 7)),
        (s2, gather(s2, s2 == np.float16(0.0), 0)),
        (s3, gather(s3, s3 == -3, 100)),
    ]
k = 1
for src, (dst, cnt) in results:
    src.tofile(d / f"v{k}.bin")
    np.full((R, C), -1, np.int32).tofile(d / f"v{k + 1}.bin")
    np.full((1, 8), -1, np.int32).tofile(d / f"v{k + 2}.bin")
    dst.tofile(d / f"golden_v{k + 1}.bin")
    cnt.tofile(d / f"golden_v{k + 2}.bin")
    k += 3
