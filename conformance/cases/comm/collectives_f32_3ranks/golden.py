#!/usr/bin/env python3
"""tbroadcast / tgather / tscatter / treduce (sum, max) over 3 ranks, root 0.
Every vK.bin stacks the 3 ranks' buffers (rank r's slice r); only the root's
bsrc and ssrc matter, the other ranks' copies must stay untouched."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(33)
R, N = 3, 64
f = np.float32
src = rng.uniform(-8, 8, (R, N)).astype(f)
bsrc = rng.uniform(-8, 8, (R, N)).astype(f)
ssrc = rng.uniform(-8, 8, (R, R, N)).astype(f)
src.tofile(d / "v2.bin")
bsrc.tofile(d / "v4.bin")
ssrc.tofile(d / "v6.bin")
# tbroadcast: every rank's bdst = the root's bsrc
np.broadcast_to(bsrc[0], (R, N)).astype(f).tofile(d / "golden_v3.bin")
bsrc.tofile(d / "golden_v4.bin")
# tgather: only the root's gdst is written
gdst = np.zeros((R, R, N), f)
gdst[0] = src
gdst.tofile(d / "golden_v5.bin")
ssrc.tofile(d / "golden_v6.bin")
# tscatter: rank r's sdst = row r of the root's ssrc
ssrc[0].tofile(d / "golden_v7.bin")
# treduce: accumulated in rank order in f32
rsum = np.zeros((R, N), f)
rsum[0] = (src[0] + src[1]) + src[2]
rsum.tofile(d / "golden_v8.bin")
rmax = np.zeros((R, N), f)
rmax[0] = src.max(axis=0)
rmax.tofile(d / "golden_v18.bin")
