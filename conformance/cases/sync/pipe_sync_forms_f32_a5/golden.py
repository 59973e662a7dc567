#!/usr/bin/env python3
"""out = |x|; out2 = 2*out (read back from GM) + x, through buffer tokens, dynamic and op-class events."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(23)
x = rng.uniform(-4, 4, 256).astype(np.float32)
x.tofile(d / "v1.bin")
np.zeros(256, np.float32).tofile(d / "v2.bin")
np.full(256, 7.0, np.float32).tofile(d / "v3.bin")
a = np.abs(x)
a.tofile(d / "golden_v2.bin")
((a + a) + x).astype(np.float32).tofile(d / "golden_v3.bin")
