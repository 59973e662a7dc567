#!/usr/bin/env python3
"""tcvt f32 -> f16 under each rounding mode; saturated; f32 -> bf16 (RINT, TRUNC)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
x = rng.uniform(-10, 10, (4, 32)).astype(np.float32)
x[0, :8] = [1 + 2.0**-11, -(1 + 2.0**-11), 1 + 3 * 2.0**-11, 70000.0, -70000.0, 65520.0, 1e-8, -1e-8]
x[0, 8:12] = [np.nan, np.inf, -np.inf, -0.0]
x.tofile(d / "v1.bin")
v = x.astype(np.float64)


def f16_mode(v, mode):
    near = v.astype(np.float16)
    with np.errstate(invalid="ignore", over="ignore"):
        up = np.nextafter(near, np.float16(np.inf))
        dn = np.nextafter(near, np.float16(-np.inf))
        nf = near.astype(np.float64)
        lo = np.where(nf < v, near, dn)
        hi = np.where(nf < v, up, near)
        exact = (nf == v) | np.isnan(v) | np.isinf(v)
        lof, hif = lo.astype(np.float64), hi.astype(np.float64)
        if mode == "RINT":
            r = near
        elif mode == "ROUND":
            tie = (v - lof) == (hif - v)
            r = np.where(tie, np.where(v > 0, hi, lo), near)
        elif mode == "FLOOR":
            r = lo
        elif mode == "CEIL":
            r = hi
        elif mode == "TRUNC":
            r = np.where(v > 0, lo, hi)
        else:
            r = np.where((lo.view(np.uint16) & 1) == 1, lo, hi)
        r = np.where(exact, near, r)
        # zero results keep the source's sign
        return np.where(r == 0, np.copysign(np.float16(0), v).astype(np.float16), r).astype(np.float16)


outs = [f16_mode(v, m) for m in ["RINT", "ROUND", "FLOOR", "CEIL", "TRUNC", "ODD"]]
sat = f16_mode(v, "RINT")
sat = np.where(np.isinf(sat) & np.isfinite(v), np.copysign(np.float16(65504), v), sat).astype(np.float16)
outs.append(sat)
for k, o in enumerate(outs, start=2):
    np.zeros((4, 32), np.float16).tofile(d / f"v{k}.bin")
    o.tofile(d / f"golden_v{k}.bin")
b = x.view(np.uint32).astype(np.uint64)
rne = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)
rne = np.where(np.isnan(x), np.uint16(0x7FC0), rne).astype(np.uint16)
trunc = (b >> 16).astype(np.uint16)
trunc = np.where(np.isnan(x), np.uint16(0x7FC0), trunc).astype(np.uint16)
for k, o in [(9, rne), (10, trunc)]:
    np.zeros((4, 32), np.uint16).tofile(d / f"v{k}.bin")
    o.tofile(d / f"golden_v{k}.bin")
