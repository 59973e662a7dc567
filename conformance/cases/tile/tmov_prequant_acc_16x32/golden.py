#!/usr/bin/env python3
"""tmov of i32 and f32 acc tiles into vec tiles with a scalar FIXPIPE
pre-quantization word (scale f32 in bits 0..32, shift-1 in 32..36, offset in
37..46, signed flag bit 46) and ReLU, as pto-isa's TMOV(dst, src,
preQuantScalar) loads the word with set_quant_pre and picks the scalar mode."""
import pathlib
import struct

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(31)


def word(scale, offset=0, signed=0, shift_field=0):
    bits = struct.unpack("<I", struct.pack("<f", scale))[0]
    return bits | (shift_field << 32) | (offset << 37) | (signed << 46)


def to_int8(x, scale, off, signed, relu=False):
    y = np.rint(x.astype(np.float32) * np.float32(scale) + np.float32(off))
    y = np.clip(y, -128, 127) if signed else np.clip(y, 0, 255)
    return np.maximum(y, 0) if relu else y


def bf16_bits(x):
    b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


a8 = rng.integers(-128, 128, (16, 32)).astype(np.int8)
b8 = rng.integers(-128, 128, (32, 32)).astype(np.int8)
# small integers: the f16 products and f32 sums are exact
a16 = rng.integers(-16, 17, (16, 32)).astype(np.float16)
b16 = rng.integers(-16, 17, (32, 32)).astype(np.float16)
ci = a8.astype(np.int64) @ b8.astype(np.int64)
cf = (a16.astype(np.float64) @ b16.astype(np.float64)).astype(np.float32)
f32 = np.float32
outs = {
    5: to_int8(ci, 1 / 256, 3, 1, relu=True).astype(np.int8),
    6: (ci >> 4).astype(np.int16),
    # x64 pushes the larger sums past the f16 range: clamped to +-65504
    7: np.clip(cf * f32(64.0), -65504, 65504).astype(np.float16),
    8: bf16_bits(np.maximum(cf * f32(3.0), 0)),
    9: to_int8(ci, 1 / 128, 100, 0).astype(np.uint8),
}
assert np.any(np.abs(cf * 64) > 65504)
for k, x in enumerate([a8, b8, a16, b16], start=1):
    x.tofile(d / f"v{k}.bin")
for k, g in outs.items():
    np.zeros_like(g).tofile(d / f"v{k}.bin")
    g.tofile(d / f"golden_v{k}.bin")
