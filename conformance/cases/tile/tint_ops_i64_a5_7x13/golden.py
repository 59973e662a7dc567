#!/usr/bin/env python3
"""i64 ops on A5, 7x13 valid; results wrap modulo 2^64 (Python integers, then wrapped)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(113)
a = rng.integers(-2**63, 2**63 - 1, (7, 13), dtype=np.int64)
b = rng.integers(-2**63, 2**63 - 1, (7, 13), dtype=np.int64)
b[b == 0] = 3
b[2] = rng.integers(-1000, 1000, 13)
b[2][b[2] == 0] = 7
s = rng.integers(0, 64, (7, 13)).astype(np.int64)
a[0, :3], b[0, :3] = [-2**63, 2**63 - 1, -7], [-1, 2**63 - 1, 2]
a[3] = rng.integers(-9, 10, 13)
for k, v in enumerate([a, b, s], start=1):
    v.tofile(d / f"v{k}.bin")


def w(v):
    return (v + 2**63) % 2**64 - 2**63


def tdiv(x, y):
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


A, B, S = (v.tolist() for v in (a, b, s))
lane = [
    lambda x, y, z: x + y, lambda x, y, z: x - y, lambda x, y, z: x * y, lambda x, y, z: tdiv(x, y),
    lambda x, y, z: max(x, y), lambda x, y, z: min(x, y), lambda x, y, z: x << z, lambda x, y, z: x >> z,
    lambda x, y, z: x % y, lambda x, y, z: x - tdiv(x, y) * y,
]
for k, f in enumerate(lane, start=4):
    o = [[w(f(x, y, z)) for x, y, z in zip(ra, rb, rs)] for ra, rb, rs in zip(A, B, S)]
    np.zeros((7, 13), np.int64).tofile(d / f"v{k}.bin")
    np.array(o, np.int64).tofile(d / f"golden_v{k}.bin")
prod = []
for r in A:
    p = 1
    for x in r:
        p = w(p * x)
    prod.append(p)
for k, o in [(14, [w(sum(r)) for r in A]), (15, [max(r) for r in A]), (16, prod)]:
    np.zeros((7, 1), np.int64).tofile(d / f"v{k}.bin")
    np.array(o, np.int64).reshape(7, 1).tofile(d / f"golden_v{k}.bin")
