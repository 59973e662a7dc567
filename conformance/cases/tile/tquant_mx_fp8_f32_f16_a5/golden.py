#!/usr/bin/env python3
"""tquant.mx MXFP8 with OCP shared exponents (see vm/src/exec/quant_mx.rs):
exponent = biased_exp(max |x|) - 8 (0 when that is <= 8), scale = 2^(127 - e),
codes = e4m3fn(clip(x * scale, +-448)) to nearest, ties to even."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(103)


def e4m3_value(c):
    s = -1.0 if c & 0x80 else 1.0
    e, m = (c >> 3) & 0xF, c & 7
    if e == 0:
        return s * m / 8 * 2.0**-6
    return s * (1 + m / 8) * 2.0 ** (e - 7)


CODES = [c for c in range(256) if c & 0x7F != 0x7F]
VALS = np.array([e4m3_value(c) for c in CODES])


def encode(x):
    neg = bool(np.signbit(x))
    x = min(max(float(x), -448.0), 448.0)
    dist = np.abs(VALS - x)
    best = np.flatnonzero(dist == dist.min())
    even = [i for i in best if CODES[i] % 2 == 0]
    code = CODES[min(even or best, key=lambda i: CODES[i])]
    # a zero result keeps the sign of x (as a float conversion does)
    return 0x80 if code == 0 and neg else code


def quant(src, axis0):
    src = src.astype(np.float32)
    a = src.T if axis0 else src
    rows, cols = a.shape
    q = np.zeros(a.shape, np.uint8)
    e = np.zeros((rows, cols // 32), np.uint8)
    for r in range(rows):
        for g in range(cols // 32):
            blk = a[r, 32 * g : 32 * g + 32]
            m = np.float32(np.abs(blk).max())
            be = int(m.view(np.uint32) >> 23) & 0xFF
            ex = 0 if be <= 8 else be - 8
            sc = np.uint32((254 - ex) << 23).view(np.float32)
            e[r, g] = ex
            for i, v in enumerate(blk):
                q[r, 32 * g + i] = encode(np.float32(v * sc))
    return (q.T, e.T) if axis0 else (q, e)


def data(shape, groups_along_cols, span):
    x = rng.standard_normal(shape)
    n = shape[0] if groups_along_cols else shape[1]
    g = shape[1] // 32 if groups_along_cols else shape[0] // 32
    mags = 2.0 ** rng.integers(-span, span + 1, (n, g))
    mags[1, 1 % g] = 0
    if groups_along_cols:
        return x * np.repeat(mags, 32, axis=1)
    return x * np.repeat(mags.T, 32, axis=0)


x = data((16, 64), True, 20).astype(np.float32)
y = data((64, 32), False, 10).astype(np.float16)
x.tofile(d / "v1.bin")
y.tofile(d / "v2.bin")
qx, ex = quant(x, False)
qy, ey = quant(y, True)
for k, o in [(3, qx), (4, ex), (5, qy), (6, ey)]:
    np.zeros(o.shape, np.uint8).tofile(d / f"v{k}.bin")
    o.tofile(d / f"golden_v{k}.bin")
