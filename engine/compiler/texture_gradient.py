"""Gradient textures (``<texture builtin="gradient">``, seed 000 asset/texture) as mujoco 4.0.0's
compiler makes them, texel by texel (measured byte-exact on its 2d, cube and skybox gradients).

Colours mix by a sigmoid of a position p in [-1, 1]: alpha = (1 + sqrt(2) p / sqrt(1 + p^2)) / 2,
clipped to [0, 1], texel byte = 255 (alpha c1 + (1 - alpha) c2) truncated (and wrapped to a
byte). Texel (row r, column c) sits at x = 2c/(w-1) - 1, y = 1 - 2r/(h-1):
- 2d: p = 2 |(x, y)| - 1, rgb2 at +1 (rgb1 at the centre);
- cube / skybox, on a face at distance 1: the four side faces (right, left, front, back) by the
  elevation asin(y / |(x, y, 1)|) / (pi/2), up by 1 - acos(1 / |(x, y, 1)|) / (pi/2), down by its
  negative, rgb1 at +1.
A side of one texel divides 0 by 0 as the C code does: the NaN texel becomes byte 0.

Loops over texels (compiled kernels): the elementwise numpy version cost 10x the time of the
symmetric one it replaced on a 2048-texel skybox, and the C library's asin / acos are the ones
MuJoCo's compiler calls.
"""
from __future__ import annotations

import math

import numpy as np

from .._jit import kernel

_INV_CORRECTION = math.sqrt(2.0)    # 1 / (1/sqrt(2)): MuJoCo divides by its "correction"


@kernel
def _byte(pos, c1, c2, out, f, i, j):
    """Texel bytes of ``out[f, i, j, :]`` (a stack of images) for sigmoid position ``pos``."""
    a = 0.5 * (1.0 + pos / math.sqrt(1.0 + pos * pos) * _INV_CORRECTION)
    if a < 0.0:
        a = 0.0
    elif a > 1.0:
        a = 1.0
    for ch in range(3):
        v = 255.0 * (a * c1[ch] + (1.0 - a) * c2[ch])
        out[f, i, j, ch] = np.uint8(np.int64(v) & 0xFF) if v == v else np.uint8(0)


@kernel
def cube_faces(w, c1, c2, out):
    """The six faces (6, w, w, 3) uint8 ``out`` of a cube / skybox gradient."""
    d = float(w - 1)
    half = 0.5 * math.pi
    for r in range(w):
        y = 1.0 - 2.0 * r / d
        for c in range(w):
            x = 2.0 * c / d - 1.0
            n = math.sqrt(1.0 + x * x + y * y)
            side = math.asin(y / n) / half
            up = 1.0 - math.acos(1.0 / n) / half
            _byte(side, c1, c2, out, 0, r, c)
            _byte(up, c1, c2, out, 2, r, c)
            _byte(-up, c1, c2, out, 3, r, c)
            for ch in range(3):     # left, front and back as right
                out[1, r, c, ch] = out[0, r, c, ch]
                out[4, r, c, ch] = out[0, r, c, ch]
                out[5, r, c, ch] = out[0, r, c, ch]


@kernel
def flat_2d(h, w, c1, c2, out):
    """A 2d radial gradient (1, h, w, 3) uint8 ``out``: rgb1 ``c1`` at the centre."""
    for r in range(h):
        y = 1.0 - 2.0 * r / float(h - 1)
        for c in range(w):
            x = 2.0 * c / float(w - 1) - 1.0
            _byte(2.0 * math.sqrt(x * x + y * y) - 1.0, c2, c1, out, 0, r, c)
