#!/usr/bin/env python3
"""Cube micro-ops, f16 x f16 -> f32, M = 20, K = 40, N = 24: mad_bias (f32
out), mad_acc (quant 0.5, relu, f16 out), mad (column-major f32 out)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(51)
M, K, N = 20, 40, 24
a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
bias = np.zeros(32, np.float16)
bias[:N] = rng.uniform(-2, 2, N).astype(np.float16)
a.tofile(d / "v1.bin")
b.tofile(d / "v2.bin")
bias.tofile(d / "v3.bin")
ab = a.astype(np.float64) @ b.astype(np.float64)
c = (ab + bias[:N].astype(np.float64)).astype(np.float32)
c.tofile(d / "golden_v4.bin")
r = np.maximum(0.5 * (c.astype(np.float64) + ab), 0).astype(np.float32).astype(np.float16)
r.tofile(d / "golden_v5.bin")
ab.astype(np.float32).T.copy().tofile(d / "golden_v6.bin")
