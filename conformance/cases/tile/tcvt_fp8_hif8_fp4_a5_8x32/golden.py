#!/usr/bin/env python3
"""tcvt between f32/f16/bf16 and the A5 8- and 4-bit floats (see kernel.pto).

Each format is described by a decoder of its codes; encoding picks, among the
format's finite values, the neighbour the rounding mode asks for (ties to the
even code for RINT, away from zero for ROUND and for hif8). f32 -> fp8 always
rounds to nearest even without saturation (pto-isa's A5 TCvt.hpp uses
ROUND_R / RS_DISABLE whatever the op's mode), f32/f16 -> hif8 rounds half away
from zero; fp4 has no infinity or NaN, so overflow clamps and NaN becomes +0.
"""
import math
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(2024)


def minifloat(e, m, bias, kind):
    """Decoder for sign/exponent/mantissa codes; kind: 'ieee', 'fn' or 'none'."""
    width = 1 + e + m

    def dec(c):
        s = -1.0 if (c >> (e + m)) & 1 else 1.0
        ex = (c >> m) & ((1 << e) - 1)
        man = c & ((1 << m) - 1)
        if kind == "ieee" and ex == (1 << e) - 1:
            return s * math.inf if man == 0 else math.nan
        if kind == "fn" and ex == (1 << e) - 1 and man == (1 << m) - 1:
            return math.nan
        if ex == 0:
            return s * man / (1 << m) * 2.0 ** (1 - bias)
        return s * (1 + man / (1 << m)) * 2.0 ** (ex - bias)

    return width, dec


def hif8_dec(c):
    if c == 0x80:
        return math.nan
    s = -1.0 if c & 0x80 else 1.0
    r = c & 0x7F
    b = [(r >> (6 - i)) & 1 for i in range(7)]  # b[0] is bit 6
    if b[0] == 1:
        dw, dl = (4 if b[1] else 3), 2
    elif b[1] == 1:
        dw, dl = 2, 2
    elif b[2] == 1:
        dw, dl = 1, 3
    elif b[3] == 1:
        dw, dl = 0, 4
    else:
        man = r & 7
        return s * (2.0 ** (man - 23) if man else 0.0)
    mb = 7 - dl - dw
    man = r & ((1 << mb) - 1)
    ef = (r >> mb) & ((1 << dw) - 1)
    if dw == 0:
        ex = 0
    else:
        mag = (1 << (dw - 1)) | (ef & ((1 << (dw - 1)) - 1))
        ex = -mag if ef >> (dw - 1) else mag
    if dw == 4 and ex == 15 and man == 1:
        return s * math.inf
    return s * 2.0**ex * (1 + man / (1 << mb))


def encoder(dec, width, mode, inf_code=None, nan_code=None):
    """Encode by rounding over the finite non-negative codes; past the largest
    finite value the next step (one more spacing) stands for overflow."""
    sign = 1 << (width - 1)
    fin = sorted((dec(c), c) for c in range(sign) if math.isfinite(dec(c)))
    vals = [v for v, _ in fin]
    maxv, maxc = fin[-1]
    step = maxv - fin[-2][0]
    over = (inf_code if inf_code is not None else nan_code if nan_code is not None else maxc)

    def enc(x):
        if math.isnan(x):
            return nan_code if nan_code is not None else 0
        s = sign if math.copysign(1.0, x) < 0 else 0
        a = abs(x)
        if math.isinf(a):
            return s | over
        i = max(k for k in range(len(vals)) if vals[k] <= a)
        lo_v, lo_c = fin[i]
        if lo_v == a:
            return s | lo_c
        if i + 1 < len(fin):
            hi_v, hi_c = fin[i + 1]
        else:
            hi_v, hi_c = maxv + step, None
        neg = s != 0
        if mode == "rint":
            up = (hi_v - a) < (a - lo_v) or ((hi_v - a) == (a - lo_v) and lo_c & 1 == 1)
        elif mode == "away":
            up = (a - lo_v) >= (hi_v - a)
        elif mode == "trunc":
            up = False
        elif mode == "floor":
            up = neg
        elif mode == "ceil":
            up = not neg
        elif mode == "odd":
            up = lo_c & 1 == 0
        return s | (over if hi_c is None else hi_c) if up else s | lo_c

    return enc


W4, e4m3 = minifloat(4, 3, 7, "fn")
_, e5m2 = minifloat(5, 2, 15, "ieee")
_, e2m1 = minifloat(2, 1, 1, "none")
_, e1m2 = minifloat(1, 2, 1, "none")

# --- inputs -------------------------------------------------------------------
f32 = np.float32
x = (rng.standard_normal((8, 32)) * np.exp2(rng.integers(-12, 12, (8, 32)))).astype(f32)
specials = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-45, -3e-39, 448.0, 464.0, 470.0, -500.0,
            57344.0, 61440.0, 1e6, -1e30, 0.5 + 2**-5, 1.0 + 2**-4, 3.0 * 2**-10, 2**-9, 2**-17,
            2**-16 * 1.5, 2**-22, 2**-24, 32768.0, -3.0e-8, 0.09375, 1.0625, 24576.0]
x.flat[: len(specials)] = specials
x.tofile(d / "v1.bin")


def bf16_bits(a):
    b = np.asarray(a, f32).view(np.uint32).astype(np.uint64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(np.asarray(a, f32)), np.uint16(0x7FC0), r)


def bf16_val(bits):
    return (bits.astype(np.uint32) << 16).view(f32)


yv = (rng.standard_normal((8, 32)) * 2.5).astype(f32)
ys = [np.nan, np.inf, -np.inf, -0.0, 0.0, 0.25, 0.75, 1.25, 2.5, 5.0, -5.0, 7.0, 100.0, -3.5,
      3.75, 0.125, 0.375, -0.625, 1e-40, -1e-39, 1.75, 2.25, 3.5, 4.0, -4.25, 0.0625]
yv.flat[: len(ys)] = ys
y = bf16_bits(yv)
y.tofile(d / "v2.bin")
yf = bf16_val(y).astype(np.float64)

p4a = rng.permutation(np.arange(256, dtype=np.uint8))[:128].reshape(8, 16)
p4b = rng.permutation(np.arange(256, dtype=np.uint8))[:128].reshape(8, 16)
p4a.tofile(d / "v3.bin")
p4b.tofile(d / "v4.bin")
codes = np.arange(256, dtype=np.uint8)
for k in (5, 6, 7):
    rng.permutation(codes).reshape(8, 32).tofile(d / f"v{k}.bin")
c8a = np.fromfile(d / "v5.bin", np.uint8).reshape(8, 32)
c8b = np.fromfile(d / "v6.bin", np.uint8).reshape(8, 32)
c8h = np.fromfile(d / "v7.bin", np.uint8).reshape(8, 32)
h = (rng.standard_normal((8, 32)) * np.exp2(rng.integers(-14, 14, (8, 32)))).astype(np.float16)
h.flat[:10] = [np.nan, np.inf, -np.inf, -0.0, 6e-8, 65504.0, -1e-5, 0.1, 3.0, 20000.0]
h.tofile(d / "v8.bin")

# --- expected -----------------------------------------------------------------


def apply(enc, a):
    return np.vectorize(lambda v: enc(float(v)), otypes=[np.uint8])(a)


def pack(lo_hi):
    return (lo_hi[:, 0::2] & 0xF) | ((lo_hi[:, 1::2] & 0xF) << 4)


outs = {}
outs[9] = apply(encoder(e4m3, 8, "rint", nan_code=0x7F), x.astype(np.float64))
outs[10] = apply(encoder(e5m2, 8, "rint", inf_code=0x7C, nan_code=0x7F), x.astype(np.float64))
outs[11] = apply(encoder(hif8_dec, 8, "away", inf_code=0x6F, nan_code=0x80), x.astype(np.float64))
outs[12] = apply(encoder(hif8_dec, 8, "away", inf_code=0x6F, nan_code=0x80), h.astype(np.float64))
for k, (dec, c) in zip((13, 14, 15), ((e4m3, c8a), (e5m2, c8b), (hif8_dec, c8h))):
    outs[k] = np.vectorize(lambda v: dec(int(v)), otypes=[np.float64])(c).astype(f32)
outs[16] = pack(apply(encoder(e2m1, 4, "rint"), yf))
outs[17] = pack(apply(encoder(e2m1, 4, "floor"), yf))
outs[18] = pack(apply(encoder(e2m1, 4, "trunc"), yf))
outs[19] = pack(apply(encoder(e1m2, 4, "away"), yf[:7, :26]))
outs[20] = pack(apply(encoder(e1m2, 4, "ceil"), yf))
outs[21] = pack(apply(encoder(e1m2, 4, "odd"), yf))
for k, (dec, p) in zip((22, 23), ((e2m1, p4a), (e1m2, p4b))):
    nib = np.stack([p & 0xF, p >> 4], axis=-1).reshape(8, 32)
    outs[k] = bf16_bits(np.vectorize(lambda v: dec(int(v)), otypes=[np.float64])(nib).astype(f32))

for k, o in outs.items():
    o = np.asarray(o)
    np.full(o.nbytes, 0x5A, np.uint8).tofile(d / f"v{k}.bin")
    o.tofile(d / f"golden_v{k}.bin")
