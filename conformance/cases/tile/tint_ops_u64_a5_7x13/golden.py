#!/usr/bin/env python3
"""ui64 ops on A5, 7x13 valid: wrapping modulo 2^64, unsigned compare, divide and shift."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(97)
a = rng.integers(0, 2**64 - 1, (7, 13), dtype=np.uint64)
b = rng.integers(1, 2**64 - 1, (7, 13), dtype=np.uint64)
s = rng.integers(0, 64, (7, 13)).astype(np.uint64)
a[0, :4] = [2**64 - 1, 2**63, 5, 0]
b[0, :4] = [1, 2**63 - 1, 2**64 - 1, 3]
a[1, :3] = [3, 2**63 + 1, 1]  # a row whose max is just above 2^63 and min is small
a[2, :3] = [2**63 + 4, 2**63 + 5, 2**63 + 6]  # tcmps gt 2^63 + 5: false, false, true
for k, v in enumerate([a, b, s], start=1):
    v.tofile(d / f"v{k}.bin")
A, B, S = ([int(x) for x in v.reshape(-1)] for v in (a, b, s))
M = 2**64
dv, sh = 7, 5
lanes = [
    [(x + y) % M for x, y in zip(A, B)],
    [(x - y) % M for x, y in zip(A, B)],
    [(x * y) % M for x, y in zip(A, B)],
    [x // y for x, y in zip(A, B)],
    [max(x, y) for x, y in zip(A, B)],
    [min(x, y) for x, y in zip(A, B)],
    [x >> z for x, z in zip(A, S)],
    [x // dv for x in A],
    [x >> sh for x in A],
]
for k, o in enumerate(lanes, start=4):
    np.zeros((7, 13), np.uint64).tofile(d / f"v{k}.bin")
    np.array(o, dtype=np.uint64).reshape(7, 13).tofile(d / f"golden_v{k}.bin")
for k, f in [(13, max), (14, min)]:
    np.zeros((7, 1), np.uint64).tofile(d / f"v{k}.bin")
    np.array([f(r) for r in a.tolist()], dtype=np.uint64).reshape(7, 1).tofile(d / f"golden_v{k}.bin")
# unsigned orderings beyond the lane ops
r = rng.integers(1, 2**64 - 1, (7, 1), dtype=np.uint64)
r[0, 0] = 2**63 + 3
r.tofile(d / "v15.bin")
R = [int(x) for x in r.reshape(-1)]
rows = [A[i * 13:(i + 1) * 13] for i in range(7)]
PS = B[:15]
pmax = [[max(v, PS[i * 5 + j]) if i < 3 and j < 5 else v for j, v in enumerate(row)] for i, row in enumerate(rows)]
rmax = [[max(v, R[i]) for v in row] for i, row in enumerate(rows)]
rdiv = [[v // R[i] for v in row] for i, row in enumerate(rows)]
for k, o in [(16, pmax), (17, rmax), (18, rdiv)]:
    np.zeros((7, 13), np.uint64).tofile(d / f"v{k}.bin")
    np.array(o, dtype=np.uint64).tofile(d / f"golden_v{k}.bin")
for k, o in [(19, [x % y for x, y in zip(A, B)]), (20, [x % dv for x in A])]:
    np.zeros((7, 13), np.uint64).tofile(d / f"v{k}.bin")
    np.array(o, dtype=np.uint64).reshape(7, 13).tofile(d / f"golden_v{k}.bin")
np.zeros((7, 1), np.int32).tofile(d / "v21.bin")
np.array([row.index(max(row)) for row in rows], np.int32).reshape(7, 1).tofile(d / "golden_v21.bin")
gt = np.zeros((8, 32), np.uint8)
for i in range(7):
    bits = np.packbits(np.array([x > y for x, y in zip(rows[i], B[i * 13:(i + 1) * 13])], np.uint8),
                       bitorder="little")
    gt[i, : len(bits)] = bits
np.full((8, 32), 0xAA, np.uint8).tofile(d / "v22.bin")  # tcmp rewrites the whole mask tile
gt.tofile(d / "golden_v22.bin")
big = 2**63 + 5
gts = np.zeros((8, 32), np.uint8)
for i in range(7):
    bits = np.packbits(np.array([x > big for x in rows[i]], np.uint8), bitorder="little")
    gts[i, : len(bits)] = bits
np.full((8, 32), 0xAA, np.uint8).tofile(d / "v23.bin")
gts.tofile(d / "golden_v23.bin")
