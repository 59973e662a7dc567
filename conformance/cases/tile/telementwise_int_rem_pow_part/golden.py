#!/usr/bin/env python3
"""Integer trem/tfmod/tpow (wrapping) and partial add/max with a 2x8 second source."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(19)
a = rng.integers(-1000, 1000, (4, 16)).astype(np.int32)
b = rng.integers(1, 50, (4, 16)).astype(np.int32) * rng.choice([-1, 1], (4, 16)).astype(np.int32)
e = rng.integers(0, 10, (4, 16)).astype(np.int32)
for k, x in enumerate([a, b, e], start=1):
    x.tofile(d / f"v{k}.bin")
A, B, E = (x.astype(np.int64) for x in (a, b, e))
fm = np.fmod(A, B)
rem = np.where((fm != 0) & ((fm < 0) != (B < 0)), fm + B, fm)
pw = np.ones_like(A)
for i in range(10):
    pw = np.where(E > i, (pw * A) & 0xFFFFFFFF, pw)
pw = pw.astype(np.uint32).view(np.int32)
inb = np.zeros((4, 16), bool)
inb[:2, :8] = True
# the 2x8 view over b's storage holds its first 16 elements
BS = np.zeros((4, 16), np.int64)
BS[:2, :8] = B.reshape(-1)[:16].reshape(2, 8)
padd = np.where(inb, A + BS, A)
pmax = np.where(inb, np.maximum(A, BS), A)
for k, o in enumerate([rem, fm, pw, padd, pmax], start=4):
    np.zeros((4, 16), np.int32).tofile(d / f"v{k}.bin")
    np.asarray(o).astype(np.int32).tofile(d / f"golden_v{k}.bin")
