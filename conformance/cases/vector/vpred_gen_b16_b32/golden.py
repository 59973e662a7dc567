#!/usr/bin/env python3
"""Predicate patterns, plt/pltm tail masks with post-update counts, governed algebra, b16/b32 (de)interleave."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent


def img(on, g):
    """32-byte hardware image: lane i (granularity g bytes) at bit i*g."""
    bits = np.zeros(256, bool)
    bits[0::g] = on
    return bits


def first(n, g):
    return np.arange(256 // g) < n


def plt(n, vl):
    return first(n, 256 // vl), (0 if n < vl else n - vl)


def intlv(x, y):
    s = np.empty(2 * len(x), bool)
    s[0::2], s[1::2] = x, y
    return s[: len(x)], s[len(x) :]


def dintlv(x, y):
    s = np.concatenate([x, y])
    return s[0::2], s[1::2]


L16, L32 = 128, 64
imgs = [img(first(32, 1), 1), img(first(16, 2), 2), img(first(64, 4), 4), img(first(0, 4), 4),
        img(first(8, 2), 2), img(first(128, 1), 1)]
counts = []
n = 300
for _ in range(4):
    m, n = plt(n, L16)
    imgs.append(img(m, 2))
    counts.append(n)
n = 70
for _ in range(2):
    m, n = plt(n, L32)
    imgs.append(img(m, 4))
    counts.append(n)
C = m
m, n = plt(255, 256)
imgs.append(img(m, 1))
counts.append(n)
idx = lambda g: np.arange(256 // g)  # noqa: E731
imgs += [img(idx(4) + 2 * 64 < 150, 4), img(idx(2) + 128 < 130, 2), img(idx(1) < 7, 1)]
A, B, G = first(44, 2), first(8, 2), first(32, 2)
imgs += [img(G & A & B, 2), img(G & (A | B), 2), img(G & (A ^ B), 2), img(G & ~A, 2), img(np.where(G, B, A), 2)]
imgs += [img(x, 2) for x in intlv(A, G) + dintlv(A, G)]
D = idx(4) < 40
imgs += [img(x, 4) for x in intlv(C, D) + dintlv(C, D)]
imgs.append(imgs[18])
out = np.concatenate([np.packbits(b, bitorder="little") for b in imgs])
np.zeros(len(out), np.uint8).tofile(d / "v1.bin")
out.tofile(d / "golden_v1.bin")
np.zeros(8, np.int32).tofile(d / "v2.bin")
# only the counts that stay >= 0 (plt_b16 300 -> 172 -> 44, plt_b32 70 -> 6); see kernel.pto
np.array([counts[0], counts[1], counts[4], 0, 0, 0, 0, 0], np.int32).tofile(d / "golden_v2.bin")
