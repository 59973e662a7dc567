#!/usr/bin/env python3
"""vbitsort (2 repeats of 32) and a 4-list vmrgsort4 of its blocks: descending, stable, 8-byte records."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(78)
# many equal scores inside a block (vbitsort keeps input order), none shared between the blocks:
# the docs pin no tie order between vmrgsort4 lists, and lists 2/3 only repeat records of lists 0/1
s = rng.integers(-20, 20, 64).astype(np.float32) * np.float32(0.25)
s[32:] += np.float32(0.125)
s[:6] = [np.inf, -np.inf, 1.5e-40, -1.5e-40, 3e38, -3e38]
s[40:42] = [2.5e38, -2.5e38]
idx = (np.arange(64, dtype=np.uint32) * 7 + 1000).astype(np.uint32)
s.tofile(d / "v1.bin")
idx.tofile(d / "v2.bin")


def records(sc, ix):
    r = np.zeros((len(sc), 2), np.uint32)
    r[:, 0] = np.asarray(sc, np.float32).view(np.uint32)
    r[:, 1] = ix
    return r


blocks = []
for b in range(2):
    sc, ix = s[32 * b : 32 * b + 32], idx[32 * b : 32 * b + 32]
    order = sorted(range(32), key=lambda k: -float(sc[k]))  # Python's sort is stable
    blocks.append((sc[order], ix[order]))
lists = [blocks[0], blocks[1], (blocks[0][0][:10], blocks[0][1][:10]), (blocks[1][0][:5], blocks[1][1][:5])]
merged = [(float(sc[k]), l, k, int(ix[k]), sc[k]) for l, (sc, ix) in enumerate(lists) for k in range(len(sc))]
merged.sort(key=lambda t: (-t[0], t[1], t[2]))
assert not set(s[:32].tolist()) & set(s[32:].tolist())

g = np.zeros(416, np.uint32)
g[:128] = np.concatenate([records(*blk) for blk in blocks]).reshape(-1)
m = records([t[4] for t in merged], [t[3] for t in merged]).reshape(-1)
g[256 : 256 + m.size] = m
g.tofile(d / "golden_v3.bin")
