#!/usr/bin/env python3
"""64-bit add and subtract through u32 carry chains (vaddc/vaddcs, vsubc/vsubcs)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(74)
N, TAIL = 256, 250
M = (1 << 32) - 1
a = rng.integers(0, 1 << 64, N, dtype=np.uint64)
b = rng.integers(0, 1 << 64, N, dtype=np.uint64)
edge_a = [M, (1 << 64) - 1, 0, 1 << 32, (1 << 64) - 1, M, 5, 0]
edge_b = [1, 1, 1, 1, (1 << 64) - 1, M, 5, (1 << 64) - 1]
a[: len(edge_a)] = edge_a
b[: len(edge_b)] = edge_b
for k, v in enumerate([a & M, a >> 32, b & M, b >> 32]):
    v.astype(np.uint32).tofile(d / f"v{k + 1}.bin")

A, B = [int(v) for v in a], [int(v) for v in b]
s = [x + y for x, y in zip(A, B)]
t = [(x - y) % (1 << 64) for x, y in zip(A, B)]
outs = [
    [v & M for v in s],
    [(v >> 32) & M for v in s],
    [int((x & M) + (y & M) > M) for x, y in zip(A, B)],
    [v >> 64 for v in s],
    [v & M for v in t],
    [v >> 32 for v in t],
]
g = np.zeros((len(outs), N), np.uint32)
for r, o in enumerate(outs):
    g[r, :TAIL] = np.array(o[:TAIL], np.uint64).astype(np.uint32)
g.tofile(d / "golden_v5.bin")
