#!/usr/bin/env python3
"""MTE3 atomic add/max/min over f32, f16, bf16, s32, s16, s8 segments, then a plain store."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(71)


def bf16(a):
    """float32 -> bf16 bits (round to nearest even) and the float32 value they hold."""
    b = np.asarray(a, np.float32).view(np.uint32)
    bits = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    return bits, (bits.astype(np.uint32) << 16).view(np.float32)


sa = rng.uniform(-8, 8, 16).astype(np.float32)
da = rng.uniform(-8, 8, 16).astype(np.float32)
sb = rng.uniform(-8, 8, 32).astype(np.float16)
db = rng.uniform(-8, 8, 32).astype(np.float16)
sc_bits, sc = bf16(rng.uniform(-8, 8, 32))
dc_bits, dc = bf16(rng.uniform(-8, 8, 32))
sd = rng.integers(-(1 << 30), 1 << 30, 16, dtype=np.int32)
dd = rng.integers(-(1 << 30), 1 << 30, 16, dtype=np.int32)
se = rng.integers(-30000, 30000, 32, dtype=np.int16)
de = rng.integers(-30000, 30000, 32, dtype=np.int16)
sf = rng.integers(-128, 128, 64, dtype=np.int8)
df = rng.integers(-128, 128, 64, dtype=np.int8)
sg = rng.integers(0, 256, 64, dtype=np.uint8)
dg = rng.integers(0, 256, 64, dtype=np.uint8)

src = b"".join(a.tobytes() for a in [sa, sb, sc_bits, sd, se, sf, sg])
dst = b"".join(a.tobytes() for a in [da, db, dc_bits, dd, de, df, dg])
want = [
    (sa + da).astype(np.float32),
    np.maximum(sb, db),
    bf16(np.minimum(sc, dc))[0],
    (sd.astype(np.int64) + dd).astype(np.int32),
    np.maximum(se, de),
    np.minimum(sf, df),
    sg,
]
np.frombuffer(src, np.uint8).tofile(d / "v1.bin")
np.frombuffer(dst, np.uint8).tofile(d / "v2.bin")
np.frombuffer(b"".join(a.tobytes() for a in want), np.uint8).tofile(d / "golden_v2.bin")
