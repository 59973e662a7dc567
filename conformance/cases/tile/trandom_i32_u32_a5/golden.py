#!/usr/bin/env python3
"""trandom: Philox4x32 output, 64 lanes per 256-column chunk, lane l's four
words in columns 4l..4l+3, the 128-bit counter advancing by 64 per chunk and
by ((valid_cols - 1) % 64) + 1 after a row's last chunk (see
vm/src/exec/random.rs)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
MASK = (1 << 32) - 1


def philox(x, k, rounds):
    x, k = list(x), list(k)
    for _ in range(rounds):
        p0 = x[0] * 0xD2511F53
        p1 = x[2] * 0xCD9E8D57
        x = [(p1 >> 32) ^ x[1] ^ k[0], p1 & MASK, (p0 >> 32) ^ x[3] ^ k[1], p0 & MASK]
        k = [(k[0] + 0x9E3779B9) & MASK, (k[1] + 0xBB67AE85) & MASK]
    return x


def trandom(out, vr, vc, key, ctr, rounds):
    c = sum((w & MASK) << (32 * i) for i, w in enumerate(ctr))
    key = [w & MASK for w in key]
    chunks = (vc + 255) // 256
    for r in range(vr):
        for j in range(chunks):
            for lane in range(64):
                n = (c + lane) % (1 << 128)
                words = philox([(n >> (32 * i)) & MASK for i in range(4)], key, rounds)
                for w, v in enumerate(words):
                    col = 256 * j + 4 * lane + w
                    if col < vc:
                        out[r, col] = v
            c = (c + (64 if j + 1 < chunks else (vc - 1) % 64 + 1)) % (1 << 128)


k0, k1 = 305419896, -1698898192
x = np.zeros((4, 256), np.uint32)
trandom(x, 4, 256, [k0, k1], [0, 1, 2, 3], 10)
y = np.zeros((3, 384), np.uint32)
trandom(y, 3, 300, [k1, k0], [-100, -1, 77, 5], 7)
np.zeros((4, 256), np.int32).tofile(d / "v1.bin")
np.zeros((3, 384), np.uint32).tofile(d / "v2.bin")
x.view(np.int32).tofile(d / "golden_v1.bin")
y.tofile(d / "golden_v2.bin")
