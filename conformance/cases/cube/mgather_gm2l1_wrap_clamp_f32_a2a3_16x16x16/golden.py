#!/usr/bin/env python3
"""GM -> L1 mgather on f32 (A2/A3, C0 = 8): row mode with gatherOob = wrap
(index k reads table row k mod 20; -1 is 4294967295 as u32) and elem mode with
gatherOob = clamp (k past the 320-element table reads element 319), the elem
indices coming from a GM array with a row stride of 24. Each gathered 16x16 NZ
mat tile is multiplied by B so the outputs show the L1 contents.
v1 = table f32 20x16, v2 = row indices (16 x i32), v3 = elem indices i32
16x24, v4 = scratch f32 256 (final NZ image checked), v5 = B f32 16x16,
v6 = wrap gather @ B, v7 = clamp gather @ B (f32 16x16)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(8080)
f32 = np.float32
R = C = 16
C0 = 8

table = rng.integers(-6, 7, (20, 16)).astype(f32)
ridx = rng.integers(0, 100, 16).astype(np.int32)
ridx[[2, 11]] = [-1, 20]
eidx = rng.integers(0, 320, (16, 24)).astype(np.int32)
eidx[0, 0], eidx[7, 9], eidx[15, 15], eidx[3, 4] = 320, -7, 100000, 319
b = rng.integers(-6, 7, (16, 16)).astype(f32)

wrap = table[(ridx.astype(np.int64) & 0xFFFFFFFF) % 20]
flat = table.reshape(-1)
clamp = flat[np.minimum(eidx[:, :16].astype(np.int64) & 0xFFFFFFFF, 319)]
scratch = np.zeros(R * C, f32)
for r in range(R):
    for c in range(C):
        scratch[(c // C0) * R * C0 + r * C0 + c % C0] = clamp[r, c]

table.tofile(d / "v1.bin")
ridx.tofile(d / "v2.bin")
eidx.tofile(d / "v3.bin")
np.zeros(R * C, f32).tofile(d / "v4.bin")
b.tofile(d / "v5.bin")
np.zeros((R, C), f32).tofile(d / "v6.bin")
np.zeros((R, C), f32).tofile(d / "v7.bin")
scratch.tofile(d / "golden_v4.bin")
(wrap @ b).astype(f32).tofile(d / "golden_v6.bin")
(clamp @ b).astype(f32).tofile(d / "golden_v7.bin")
