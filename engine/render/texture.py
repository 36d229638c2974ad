"""Textures for the renderer: mip levels of the model's 2D textures and the skybox (seed 000
"texture").

A pixel far away or at a grazing angle covers many texels; sampling one of them makes the
checker floors of most scenes sparkle (measured: the KUKA scene's floor at 320x240). OpenGL,
and so MuJoCo's renderer, samples a mip level whose texels are about a pixel wide instead.
The levels are box-filtered halvings of the texture, built once per model:

  mip_rgb (N, 3) float32: every level of every texture, rows of texels (0-1);
  mip_adr (ntex, NLEVEL) int32: first row of a level; mip_w, mip_h (ntex, NLEVEL) int32: its
  size; mip_n (ntex,) int32: its number of levels (0 for a texture that is not 2D).
"""
from __future__ import annotations

import numpy as np

from ..enums import mjtTexture

NLEVEL = 16     # enough for a 32768-texel side


class MipTextures:
    """Mip levels of every 2D texture of model ``m`` (module docstring)."""

    def __init__(self, m):
        ntex = int(m.ntex)
        self.mip_adr = np.zeros((ntex, NLEVEL), np.int32)
        self.mip_w = np.zeros((ntex, NLEVEL), np.int32)
        self.mip_h = np.zeros((ntex, NLEVEL), np.int32)
        self.mip_n = np.zeros(ntex, np.int32)
        rows, n = [], 0
        for t in range(ntex):
            if int(m.tex_type[t]) != int(mjtTexture.mjTEXTURE_2D):
                continue
            w, h, c = int(m.tex_width[t]), int(m.tex_height[t]), int(m.tex_nchannel[t])
            adr = int(m.tex_adr[t])
            img = np.asarray(m.tex_data[adr:adr + w * h * c], np.float32).reshape(h, w, c)
            img = img[..., :3] / 255.0 if c >= 3 else np.repeat(img[..., :1] / 255.0, 3, -1)
            for k in range(NLEVEL):
                self.mip_adr[t, k], self.mip_w[t, k], self.mip_h[t, k] = n, img.shape[1], \
                    img.shape[0]
                rows.append(img.reshape(-1, 3))
                n += img.shape[0] * img.shape[1]
                self.mip_n[t] = k + 1
                if img.shape[0] == 1 and img.shape[1] == 1:
                    break
                # halve each side (an odd side drops its last texel), averaging 2x2 blocks
                hh, ww = max(1, img.shape[0] // 2), max(1, img.shape[1] // 2)
                ys = np.minimum(np.arange(2 * hh).reshape(hh, 2), img.shape[0] - 1)
                xs = np.minimum(np.arange(2 * ww).reshape(ww, 2), img.shape[1] - 1)
                img = img[ys][:, :, xs].mean(axis=(1, 3))
        self.mip_rgb = (np.concatenate(rows) if rows else np.zeros((1, 3))).astype(np.float32)


def skybox(m):
    """(rgb (6 w w, 3) float32 0-1, w) of the model's skybox (its first texture of type
    skybox: six square faces stacked, in OpenGL's cube-map order +x -x +y -y +z -z), or
    (a 1-row placeholder, 0) without one."""
    for t in range(int(m.ntex)):
        if int(m.tex_type[t]) != int(mjtTexture.mjTEXTURE_SKYBOX):
            continue
        w, h, c = int(m.tex_width[t]), int(m.tex_height[t]), int(m.tex_nchannel[t])
        if h != 6 * w:      # a skybox from one image (not six faces): not drawn yet
            break
        adr = int(m.tex_adr[t])
        img = np.asarray(m.tex_data[adr:adr + w * h * c], np.float32).reshape(-1, c)
        rgb = img[:, :3] / 255.0 if c >= 3 else np.repeat(img[:, :1] / 255.0, 3, -1)
        return rgb.astype(np.float32), w
    return np.zeros((1, 3), np.float32), 0
