#!/usr/bin/env python3
"""FIXPIPE LOOP3_PARA / CHANNEL_PARA with copy_matrix_cc_to_gm: C = A B
(16 x 32 x 16, f16 operands) written three times side by side (nz2nd, f16),
twice transposed one after the other (nz2dn, f32), and three times by the
structured mte_l0c_gm loop3 form (f32)."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(877)

a = rng.uniform(-1, 1, (16, 32)).astype(np.float16)
b = rng.uniform(-1, 1, (32, 16)).astype(np.float16)
a.tofile(d / "v1.bin")
b.T.copy().tofile(d / "v2.bin")
c = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
np.tile(c, (1, 3)).astype(np.float16).tofile(d / "golden_v3.bin")
np.concatenate([c.T, c.T]).astype(np.float32).tofile(d / "golden_v4.bin")
np.tile(c, (1, 3)).astype(np.float32).tofile(d / "golden_v5.bin")
