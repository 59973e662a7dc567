#!/usr/bin/env python3
"""Two 2x2 convolutions (FMATRIX sets A and B) of a 32-channel 4x8 f16 feature map, computed directly
(padded input, strided and dilated windows) - not through an im2col matrix."""
import pathlib

import numpy as np

d = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(41)
C, H, W, CO, FH, FW, C0 = 32, 4, 8, 16, 2, 2, 16
# small integers and quarters: every product and sum is exact in f32
x = rng.integers(-4, 5, (C, H, W)).astype(np.float16)
wt = (rng.integers(-4, 5, (C, FH, FW, CO)) / 4).astype(np.float16)

# NC1HWC0: one pixel of 16 channels per row, C1 planes of H*W pixels
fmap = x.reshape(C // C0, C0, H, W).transpose(0, 2, 3, 1).reshape(-1, C0)
# weight matrix row k = c1 * (FH*FW*C0) + (kh*FW + kw) * C0 + c0
wmat = np.zeros((C * FH * FW, CO), np.float16)
for c in range(C):
    for kh in range(FH):
        for kw in range(FW):
            wmat[(c // C0) * FH * FW * C0 + (kh * FW + kw) * C0 + c % C0] = wt[c, kh, kw]


def conv(pad, stride, dil, pad_value):
    left, right, top, bottom = pad
    xp = np.full((C, H + top + bottom, W + left + right), pad_value, np.float64)
    xp[:, top : top + H, left : left + W] = x
    oh = (H + top + bottom - dil[0] * (FH - 1) - 1) // stride[0] + 1
    ow = (W + left + right - dil[1] * (FW - 1) - 1) // stride[1] + 1
    y = np.zeros((oh, ow, CO))
    for i in range(oh):
        for j in range(ow):
            for kh in range(FH):
                for kw in range(FW):
                    v = xp[:, i * stride[0] + kh * dil[0], j * stride[1] + kw * dil[1]]
                    y[i, j] += v @ wt[:, kh, kw].astype(np.float64)
    return y.reshape(oh * ow, CO).astype(np.float32)


y1 = conv((1, 0, 1, 0), (1, 1), (1, 1), 0.0)
y2 = conv((1, 0, 1, 1), (1, 2), (2, 1), 0.5)
assert y1.shape == (32, CO) and y2.shape == (16, CO)
fmap.tofile(d / "v1.bin")
wmat.tofile(d / "v2.bin")
for k, y in [(3, y1), (4, y2)]:
    np.zeros_like(y).tofile(d / f"v{k}.bin")
    y.tofile(d / f"golden_v{k}.bin")
