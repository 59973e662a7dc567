#!/usr/bin/env python3
"""FIXPIPE epilogues of cube -> vector pipes fed by set_quant_scalar and
set_quant_vector (pto-isa's CPU TPUSH: InitializeQuantScalars +
quantize_element): y = f32(x) * scale (+ offset), rint to even, clamp to the
unsigned (scalar mode into a ui8 consumer) or signed (the word's flag) 8-bit range, then ReLU."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(59)
f32 = np.float32

a = rng.integers(-6, 7, (16, 32)).astype(f32)
b = (rng.integers(-8, 9, (32, 32)) / 2).astype(f32)
# halves and small integers: every product and partial sum is exact in f32
c = (a.astype(np.float64) @ b.astype(np.float64)).astype(f32)


def m1_word(scale, offset, signed):
    """A per-channel quant word: the scale's sign, exponent and top 10
    mantissa bits as the 19-bit M1 at bit 13, the offset at bit 37."""
    bits = int(np.array([scale], f32).view(np.uint32)[0])
    m1 = ((bits >> 31) << 18) | (((bits >> 23) & 0xFF) << 10) | ((bits >> 13) & 0x3FF)
    return (m1 << 13) | (offset << 37) | (signed << 46)


scales = [f32(2.0 ** rng.integers(-4, 2)) * f32(1 + 0.25 * rng.integers(0, 4)) for _ in range(32)]
offsets = [int(rng.integers(0, 60)) for _ in range(32)]
words = np.array([m1_word(s, o, 1) for s, o in zip(scales, offsets)], np.uint64)

# scale 2.5 drives the larger sums past 255 (saturation), negative sums clamp to 0; halves give rint ties
q0 = np.clip(np.rint(c * f32(2.5)), 0, 255).astype(np.uint8)
y1 = c * np.array(scales, f32)[None, :] + np.array(offsets, f32)[None, :]
q1 = np.maximum(np.clip(np.rint(y1.astype(f32)), -128, 127), 0).astype(np.int8)
assert (c * 2.5 > 255.5).any() and (c < 0).any()
for k, x in enumerate([a, b, words], start=1):
    x.tofile(d / f"v{k}.bin")
# both vector subblocks receive the whole entry and store it at rows 16s..16s+15
np.zeros((32, 32), np.uint8).tofile(d / "v4.bin")
np.zeros((32, 32), np.int8).tofile(d / "v5.bin")
np.vstack([q0, q0]).tofile(d / "golden_v4.bin")
np.vstack([q1, q1]).tofile(d / "golden_v5.bin")
