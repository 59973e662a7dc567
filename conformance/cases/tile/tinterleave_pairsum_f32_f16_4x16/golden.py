#!/usr/bin/env python3
"""tinterleave, tdeinterleave (two- and one-source) and tpairreducesum."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(71)
x = rng.standard_normal((4, 16)).astype(np.float32)
y = rng.standard_normal((4, 16)).astype(np.float32)
h = (rng.standard_normal((4, 13)) * 8).astype(np.float16)

stream = np.stack([x, y], axis=2).reshape(4, 32)  # x0 y0 x1 y1 ...
i0, i1 = stream[:, :16], stream[:, 16:]
comb = np.concatenate([i0, i1], axis=1)
d0, d1 = comb[:, 0::2], comb[:, 1::2]              # back to x, y
xw = x.reshape(2, 32)
s0, s1 = xw[:, 0::2], xw[:, 1::2]
hp = np.concatenate([h.astype(np.float64), np.zeros((4, 1))], axis=1)
sums = hp[:, 0:14:2] + hp[:, 1:14:2]               # 7 pairs, the last with a 0 partner
p = np.zeros((4, 13))
p[:, :7] = sums

for k, v in {1: x, 2: y, 9: h}.items():
    v.tofile(d / f"v{k}.bin")
outs = {3: i0, 4: i1, 5: d0, 6: d1, 7: s0, 8: s1, 10: p.astype(np.float16)}
for k, v in outs.items():
    v = np.ascontiguousarray(v)
    np.zeros_like(v).tofile(d / f"v{k}.bin")
    v.tofile(d / f"golden_v{k}.bin")
