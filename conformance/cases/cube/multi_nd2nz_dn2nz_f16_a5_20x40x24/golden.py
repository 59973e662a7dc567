#!/usr/bin/env python3
"""copy_gm_to_cbuf_multi_nd2nz (A row-major) and _dn2nz (B column-major)
with set_mte2_nz_para: C = A B, 20 x 40 x 24, f16 in, f32 out."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(202)
a = rng.uniform(-1, 1, (20, 40)).astype(np.float16)
b = rng.uniform(-1, 1, (40, 24)).astype(np.float16)
a.tofile(d / "v1.bin")
b.T.copy().tofile(d / "v2.bin")
(a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32).tofile(d / "golden_v3.bin")
