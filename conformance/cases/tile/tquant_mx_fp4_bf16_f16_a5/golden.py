#!/usr/bin/env python3
"""tquant.mx MXFP4_E2M1 with OCP shared exponents (pto-isa's CPU model, include/pto/cpu/TQuant.hpp):
m = max over the group of |x| truncated to bf16 (NaN if any element is NaN),
exponent = biased_exp(m) - 2 (0 when that is <= 2; 0xFF for NaN), scale = 2^(127 - e)
(NaN for e = 0xFF: every code of the group is then 0x7), code = e2m1(x * scale) to nearest,
ties to even, saturating at +-6 (x * scale rounded to bf16 first for a bf16 source).
Codes pack two per byte along the columns, the even column in the low nibble."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(404)

E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]  # codes 0..7


def e2m1(v):
    v = float(v)
    neg = np.signbit(v)
    a = min(abs(v), 6.0)
    dist = [abs(a - w) for w in E2M1]
    best = [i for i, t in enumerate(dist) if t == min(dist)]
    code = [i for i in best if i % 2 == 0][0] if len(best) > 1 else best[0]
    return code | (8 if neg else 0)


def bf16_rne(v):
    b = np.float32(v).view(np.uint32).astype(np.uint64)
    return np.uint32(((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16).view(np.float32)


def quant(src, axis0, is_bf16):
    a = (src.T if axis0 else src).astype(np.float32)
    rows, cols = a.shape
    q = np.zeros(a.shape, np.uint8)
    e = np.zeros((rows, cols // 32), np.uint8)
    ms = np.zeros((rows, cols // 32), np.float32)
    ss = np.zeros((rows, cols // 32), np.float32)
    for r in range(rows):
        for g in range(cols // 32):
            blk = a[r, 32 * g : 32 * g + 32]
            tb = (blk.view(np.uint32) >> 16) & 0x7FFF
            m = np.uint32(int(tb.max()) << 16).view(np.float32)
            be = int(m.view(np.uint32) >> 23) & 0xFF
            if np.isnan(m):
                ex, sc = 0xFF, m
            else:
                ex = 0 if be <= 2 else be - 2
                sc = np.uint32((254 - ex) << 23).view(np.float32)
            e[r, g], ms[r, g], ss[r, g] = ex, m, sc
            for i, v in enumerate(blk):
                if np.isnan(sc):
                    q[r, 32 * g + i] = 7
                else:
                    y = np.float32(v * sc)
                    q[r, 32 * g + i] = e2m1(bf16_rne(y) if is_bf16 else y)
    if axis0:
        q, e, ms, ss = q.T, e.T, ms.T, ss.T
    packed = (q[:, 0::2] | (q[:, 1::2] << 4)).astype(np.uint8)
    return packed, e, ms, ss


def to_bf16_bits(x):
    return (bf16_rne_arr(x).view(np.uint32) >> 16).astype(np.uint16)


def bf16_rne_arr(x):
    b = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    r = (((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), np.float32(np.nan), r)


# x: bf16 16x64, 32 groups along columns with magnitudes 2^-12..2^12
xm = 2.0 ** rng.integers(-12, 13, (16, 2))
x = rng.standard_normal((16, 64)) * np.repeat(xm, 32, axis=1)
x[1, 32:] = 0.0
x[1, 40] = -0.0
x[2, :32] = rng.standard_normal(32) * 1e-39  # bf16 subnormals
x[3, 5] = np.nan
x[4, 33] = -np.inf
x[5, :8] = [6.0, 5.0, 3.5, -2.5, 0.25, 0.75, -0.2, 7.0]
xb = to_bf16_bits(x.astype(np.float32))
xf = (xb.astype(np.uint32) << 16).view(np.float32)
xb.tofile(d / "v1.bin")
# y: f16 64x64, groups along rows (axis0), magnitudes 2^-6..2^6
ym = 2.0 ** rng.integers(-6, 7, (2, 64))
y = (rng.standard_normal((64, 64)) * np.repeat(ym, 32, axis=0)).astype(np.float16)
y[32:, 3] = 0.0
y[:32, 4] = np.float16(2.0**-20)
y[7, 9] = np.float16(np.inf)
y.tofile(d / "v2.bin")

qx, ex, mx, sx = quant(xf, False, True)
qy, ey, _, _ = quant(y.astype(np.float32), True, False)
outs = {3: qx, 4: ex.reshape(1, 32), 5: to_bf16_bits(mx.reshape(1, 32)), 6: to_bf16_bits(sx.reshape(1, 32)), 7: qy, 8: ey}
for k, o in outs.items():
    np.full(o.nbytes, 0x5A, np.uint8).tofile(d / f"v{k}.bin")
    o.tofile(d / f"golden_v{k}.bin")
