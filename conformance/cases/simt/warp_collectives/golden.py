#!/usr/bin/env python3
"""SIMT warp collectives over 48 threads (a 32-lane warp and a 16-lane warp), numpy warp model."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(73)
T, W = 48, 32
val = rng.integers(-(1 << 31), 1 << 31, T, dtype=np.int64).astype(np.int32)
val[3] = 12345  # vote_any marker, warp 0 only
val[40] = 7777  # vote_all breaker, warp 1 only
val[5] = -(1 << 31)
val[33] = (1 << 31) - 1
fv = rng.integers(-64, 64, T).astype(np.float32) * np.float32(0.375)
fv[7] = 1e8  # large terms make the f32 sum depend on the fold order
fv[8] = 3.0
fv[9] = -1e8
val.tofile(d / "v1.bin")
fv.tofile(d / "v2.bin")
R, RF = 19, 4
np.zeros(R * T, np.int32).tofile(d / "v3.bin")
np.zeros(RF * T, np.float32).tofile(d / "v4.bin")

M32 = 0xFFFFFFFF
V = val.astype(np.int64)
out = np.zeros((R, T), np.int64)
fout = np.zeros((RF, T), np.float32)
for w0 in range(0, T, W):
    lanes = list(range(min(W, T - w0)))
    n = len(lanes)
    wv = V[w0 : w0 + n]
    wf = fv[w0 : w0 + n]

    def shuffle(vals, src_local, width):
        res = []
        for lane in lanes:
            group, local = lane - lane % width, lane % width
            s = src_local(local)
            ok = 0 <= s < width and group + s < n
            res.append(vals[group + s] if ok else vals[lane])
        return res

    ballot = sum(1 << lane for lane in lanes if wv[lane] > 0)
    allv = int(all(v != 7777 for v in wv))
    anyv = int(any(v == 12345 for v in wv))
    low = [w0 + lane < 40 for lane in lanes]
    uni = int(all(x == low[0] for x in low))
    fsum = np.float32(0)
    for i, x in enumerate(wf):
        fsum = x if i == 0 else np.float32(fsum + x)
    for lane in lanes:
        t = w0 + lane
        out[0, t] = ballot
        out[1, t] = allv | anyv << 1 | uni << 2
    out[2, w0 : w0 + n] = [wv[(lane * 7) % 32] if (lane * 7) % 32 < n else wv[lane] for lane in lanes]
    out[3, w0 : w0 + n] = shuffle(wv, lambda l: l - 3, 16)
    out[4, w0 : w0 + n] = shuffle(wv, lambda l: l + 5, 32)
    out[5, w0 : w0 + n] = shuffle(wv, lambda l: l ^ 6, 16)
    out[6, w0 : w0 + n] = wv.sum()
    out[7, w0 : w0 + n] = wv.max()
    out[8, w0 : w0 + n] = wv.min()
    out[9, w0 : w0 + n] = (wv & M32).max()
    out[10, w0 : w0 + n] = (wv & M32).min()
    for lane in lanes:
        t = w0 + lane
        out[11, t] = 1 << lane
        out[12, t] = (2 << lane) - 1
        out[13, t] = (1 << lane) - 1
        out[14, t] = ~((1 << lane) - 1)
        out[15, t] = ~((2 << lane) - 1)
        out[16, t] = 5 * ((t + 17) % T)
        out[17, t] = lane
        out[18, t] = wv[lane] ^ lane
    fout[0, w0 : w0 + n] = fsum
    fout[1, w0 : w0 + n] = wf.max()
    fout[2, w0 : w0 + n] = wf.min()
    fout[3, w0 : w0 + n] = shuffle(wf, lambda l: l ^ 1, 16)
(out.reshape(-1) & M32).astype(np.uint32).view(np.int32).tofile(d / "golden_v3.bin")
fout.reshape(-1).tofile(d / "golden_v4.bin")
