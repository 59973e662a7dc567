#!/usr/bin/env python3
"""FIXPIPE .fp forms (see vm/src/exec/fixpipe_fp.rs): per-column scales from
f32 entries or packed ui64 quant words applied to an i32 accumulator."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(113)
a = rng.integers(-8, 9, (16, 32)).astype(np.int8)
b = rng.integers(-8, 9, (32, 32)).astype(np.int8)
c = a.astype(np.int32) @ b.astype(np.int32)
s = ((np.arange(32) % 5 + 1) / np.float32(16)).astype(np.float32)  # per-column f32 scales
# packed words: scale 2^-e * (1 + m/1024) in bits 13..31, offset 3 at bit 37, unsigned
e = 120 + np.arange(32) % 4
m = (np.arange(32) * 37) % 1024
words = ((e.astype(np.uint64) << np.uint64(10) | m.astype(np.uint64)) << np.uint64(13)) | (np.uint64(3) << np.uint64(37))
ws = ((1 + m / 1024) * 2.0 ** (e - 127)).astype(np.float32)
a.tofile(d / "v1.bin")
b.tofile(d / "v2.bin")
s.tofile(d / "v3.bin")
words.astype(np.uint64).tofile(d / "v4.bin")
q = np.clip(np.rint(c.astype(np.float32) * s), -128, 127).astype(np.int8)
h = np.clip(c[4:12].astype(np.float32) * s, -65504, 65504).astype(np.float16)
g = np.clip(np.rint(c.astype(np.float32) * ws + np.float32(3)), 0, 255).astype(np.uint8)
ins = np.zeros((32, 32), np.int8)
ins[8:24] = q
for k, o in [(5, q), (6, h), (7, g), (8, ins)]:
    np.zeros(o.shape, o.dtype).tofile(d / f"v{k}.bin")
    o.tofile(d / f"golden_v{k}.bin")
