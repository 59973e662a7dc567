#!/usr/bin/env python3
"""tstore (and one textract) of i32 and f32 acc tiles with a scalar FIXPIPE
pre-quantization word and ReLU (pto-isa's CPU model of the scalar quant modes)."""
import pathlib
import struct

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(23)


def word(scale, offset=0, signed=0, shift_field=0):
    bits = struct.unpack("<I", struct.pack("<f", scale))[0]
    return bits | (shift_field << 32) | (offset << 37) | (signed << 46)


def fields(w):
    scale = np.frombuffer(struct.pack("<I", w & 0xFFFFFFFF), np.float32)[0]
    return scale, np.float32((w >> 37) & 0x1FF), (w >> 46) & 1, ((w >> 32) & 0xF) + 1


def to_int8(x, w, relu=False):
    scale, off, signed, _ = fields(w)
    y = np.rint(x.astype(np.float32) * scale + off)
    y = np.clip(y, -128, 127) if signed else np.clip(y, 0, 255)
    return np.maximum(y, 0) if relu else y


def bf16_bits(x):
    b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


a8 = rng.integers(-128, 128, (16, 32)).astype(np.int8)
b8 = rng.integers(-128, 128, (32, 32)).astype(np.int8)
# small integers: the f16 products and f32 sums are exact
a16 = rng.integers(-8, 9, (16, 32)).astype(np.float16)
b16 = rng.integers(-8, 9, (32, 32)).astype(np.float16)
ci = a8.astype(np.int64) @ b8.astype(np.int64)
cf = (a16.astype(np.float64) @ b16.astype(np.float64)).astype(np.float32)
init12 = rng.normal(0, 4, (16, 32)).astype(np.float32)

f32 = np.float32
outs = {
    5: to_int8(ci, word(1 / 256, 3, 1)).astype(np.int8),
    6: to_int8(ci, word(1 / 512, 0, 1), relu=True).astype(np.uint8),
    7: np.clip(ci.astype(f32) * f32(1 / 64), -65504, 65504).astype(np.float16),
    8: np.maximum((ci >> 5).astype(np.int16), 0).astype(np.int16),
    9: np.maximum(np.clip(cf * f32(0.5), -65504, 65504), 0).astype(np.float16),
    10: bf16_bits(cf * f32(3.0)),
    11: to_int8(cf, word(0.25, 0, 1)).astype(np.int8),
    12: init12 + np.maximum(cf, 0),
    13: to_int8(ci, word(1 / 256, 3, 1), relu=True).astype(np.int8),
}
for k, x in enumerate([a8, b8, a16, b16], start=1):
    x.tofile(d / f"v{k}.bin")
for k, g in outs.items():
    (init12 if k == 12 else np.zeros_like(g)).tofile(d / f"v{k}.bin")
    g.tofile(d / f"golden_v{k}.bin")
