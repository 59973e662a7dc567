#!/usr/bin/env python3
"""taddreluconv (f32->f16, f16->i8, i16->i8) and tadddeqrelu (i32 -> f16)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(73)
f = (rng.standard_normal((4, 32)) * 100).astype(np.float32)
g = (rng.standard_normal((4, 32)) * 100).astype(np.float32)
f[0, :2], g[0, :2] = [60000.0, -1.0], [60000.0, -1.0]  # saturates at 65504; negative -> 0
with np.errstate(over="ignore"):  # the f16 cast overflows to inf before the saturation
    fh = np.clip(np.maximum((f + g).astype(np.float32), 0).astype(np.float16), -65504, 65504)

h = (rng.standard_normal((4, 32)) * 60).astype(np.float16)
k = (rng.standard_normal((4, 32)) * 60).astype(np.float16)
h[0, :4], k[0, :4] = [1.25, 2.0, 100.0, -3.0], [1.25, 0.5, 100.0, 1.0]  # 2.5 -> 2, 200 -> 127
hk = np.maximum((h + k).astype(np.float16).astype(np.float64), 0)
hi = np.minimum(np.rint(hk), 127).astype(np.int8)

s = rng.integers(-20000, 20000, (4, 32)).astype(np.int16)
t = rng.integers(-20000, 20000, (4, 32)).astype(np.int16)
s[0, :2], t[0, :2] = [30000, 100], [30000, 20]  # the first sum wraps negative -> 0
st = (s.astype(np.int64) + t.astype(np.int64)).astype(np.int16).astype(np.int64)
si = np.clip(st, 0, 127).astype(np.int8)

p = rng.integers(-5_000_000, 5_000_000, (4, 32)).astype(np.int32)
q = rng.integers(-5_000_000, 5_000_000, (4, 32)).astype(np.int32)
p[0, 0], q[0, 0] = 2_000_000_000, 2_000_000_000  # wraps negative -> 0
pq_sum = (p.astype(np.int64) + q.astype(np.int64)).astype(np.int32).astype(np.float32)
pq = np.clip(np.maximum((pq_sum * np.float32(0.001)).astype(np.float32), 0), 0, 65504).astype(np.float16)

for idx, v in {1: f, 2: g, 4: h, 5: k, 7: s, 8: t, 10: p, 11: q}.items():
    v.tofile(d / f"v{idx}.bin")
for idx, v in {3: fh, 6: hi, 9: si, 12: pq}.items():
    np.zeros_like(v).tofile(d / f"v{idx}.bin")
    v.tofile(d / f"golden_v{idx}.bin")
