#!/usr/bin/env python3
"""set_fpc + copy_matrix_cc_to_gm vector quant (qf322f16_pre_vec,
qf322f32_pre_vec): C = A B (16 x 16 x 32, f16 operands), column j scaled by
the FB quant word FPC points at."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(1917)

a = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
b = rng.uniform(-1, 1, (16, 32)).astype(np.float16)
q = rng.choice(np.array([0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0], np.float32), 64)
a.tofile(d / "v1.bin")
b.T.copy().tofile(d / "v2.bin")
q.view(np.uint32).astype(np.uint64).tofile(d / "v3.bin")
c = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
(c * q[:32]).astype(np.float32).astype(np.float16).tofile(d / "golden_v4.bin")
(c * q[32:]).astype(np.float32).tofile(d / "golden_v5.bin")
