"""A small PNG decoder (zlib + numpy), for height fields and textures loaded from PNG files.

Implements the PNG specification (ISO/IEC 15948): every colour type (grey, RGB, palette,
grey+alpha, RGBA), bit depths 1/2/4/8/16, the five scanline filters and Adam7 interlacing. The
result is converted to 8 bits per channel the way the loader MuJoCo documents for its assets
behaves (seed 000, asset/hfield "converted internally to grey-scale", asset/texture): 16-bit
samples keep their high byte, low-depth grey samples are scaled to 0..255, palette entries are
expanded, and a grey request takes the red channel of a colour image. Verified against the oracle
in test/engine/test_compiler.py.
"""
from __future__ import annotations

import struct
import zlib

import numpy as np
import numba

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
# Adam7 passes: (row start, column start, row step, column step)
_ADAM7 = ((0, 0, 8, 8), (0, 4, 8, 8), (4, 0, 8, 4), (0, 2, 4, 4), (2, 0, 4, 2), (0, 1, 2, 2),
          (1, 0, 2, 1))


class PNGError(ValueError):
    """The bytes are not a PNG image this decoder can read."""


# A self-contained kernel (no layout fields or enums, inlined nowhere), so numba's own per-file
# cache suffices and it stays out of the engine-wide cache key (engine/__init__.py).
@numba.jit(nopython=True, cache=True, nogil=True)
def _unfilter_kernel(data, start, h, stride, bpp, out):
    """Undo the scanline filters of h rows (1 filter byte + stride bytes each) from data[start:]
    into out (h, stride); returns the number of bytes consumed or -1 on a bad filter type."""
    pos = start
    for r in range(h):
        ftype = data[pos]
        pos += 1
        for i in range(stride):
            x = np.int32(data[pos + i])
            a = np.int32(out[r, i - bpp]) if i >= bpp else np.int32(0)
            b = np.int32(out[r - 1, i]) if r > 0 else np.int32(0)
            c = np.int32(out[r - 1, i - bpp]) if (r > 0 and i >= bpp) else np.int32(0)
            if ftype == 0:
                pred = 0
            elif ftype == 1:
                pred = a
            elif ftype == 2:
                pred = b
            elif ftype == 3:
                pred = (a + b) >> 1
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                if pa <= pb and pa <= pc:
                    pred = a
                elif pb <= pc:
                    pred = b
                else:
                    pred = c
            else:
                return -1
            out[r, i] = (x + pred) & 0xFF
        pos += stride
    return pos - start


def _unfilter(data, h, stride, bpp):
    """Undo the per-scanline filters; ``data`` holds h rows of (1 filter byte + stride bytes)."""
    if len(data) < h * (1 + stride):
        raise PNGError("truncated image data")
    out = np.zeros((h, stride), np.uint8)
    used = _unfilter_kernel(np.frombuffer(data, np.uint8), 0, h, stride, bpp, out)
    if used < 0:
        raise PNGError("unknown scanline filter")
    return out, used


def _samples(rows, w, depth, nch):
    """Unpacked samples (h, w, nch) as integers of the file's bit depth."""
    h = rows.shape[0]
    if depth == 8:
        return rows[:, :w * nch].reshape(h, w, nch).astype(np.int32)
    if depth == 16:
        v = rows[:, :2 * w * nch].reshape(h, w * nch, 2).astype(np.int32)
        return (v[..., 0] * 256 + v[..., 1]).reshape(h, w, nch)
    bits = np.unpackbits(rows, axis=1)[:, :w * nch * depth].reshape(h, w * nch, depth)
    weights = (1 << np.arange(depth - 1, -1, -1)).astype(np.int32)
    return (bits.astype(np.int32) @ weights).reshape(h, w, nch)


def decode(blob):
    """Decode PNG bytes into (rgba uint8 array of shape (h, w, 4), colour type, has_alpha)."""
    if not blob.startswith(_SIGNATURE):
        raise PNGError("not a PNG file (bad signature)")
    pos = len(_SIGNATURE)
    ihdr = None
    palette = trns = None
    idat = []
    while pos + 8 <= len(blob):
        n, ctype = struct.unpack(">I4s", blob[pos:pos + 8])
        body = blob[pos + 8:pos + 8 + n]
        pos += 12 + n
        if ctype == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif ctype == b"PLTE":
            palette = np.frombuffer(body, np.uint8).reshape(-1, 3)
        elif ctype == b"tRNS":
            trns = body
        elif ctype == b"IDAT":
            idat.append(body)
        elif ctype == b"IEND":
            break
    if ihdr is None:
        raise PNGError("missing IHDR chunk")
    w, h, depth, color, _, _, interlace = ihdr
    if color not in _CHANNELS or depth not in (1, 2, 4, 8, 16):
        raise PNGError(f"unsupported colour type {color} / bit depth {depth}")
    if w == 0 or h == 0:
        raise PNGError("empty image")
    nch = _CHANNELS[color]
    try:
        data = zlib.decompress(b"".join(idat))
    except zlib.error as e:
        raise PNGError(f"corrupt image data: {e}") from None
    bpp = max(1, nch * depth // 8)
    if interlace:
        img = np.zeros((h, w, nch), np.int32)
        pos = 0
        for r0, c0, dr, dc in _ADAM7:
            ph, pw = (h - r0 + dr - 1) // dr, (w - c0 + dc - 1) // dc
            if ph <= 0 or pw <= 0:
                continue
            stride = (pw * nch * depth + 7) // 8
            rows, used = _unfilter(data[pos:], ph, stride, bpp)
            pos += used
            img[r0::dr, c0::dc] = _samples(rows, pw, depth, nch)
    else:
        stride = (w * nch * depth + 7) // 8
        rows, _ = _unfilter(data, h, stride, bpp)
        img = _samples(rows, w, depth, nch)
    # to 8-bit RGBA
    rgba = np.full((h, w, 4), 255, np.int32)
    if color == 3:
        if palette is None:
            raise PNGError("palette image without PLTE chunk")
        idx = img[..., 0]
        if idx.max() >= len(palette):
            raise PNGError("palette index out of range")
        rgba[..., :3] = palette[idx]
        if trns is not None:
            alpha = np.full(len(palette), 255, np.int32)
            alpha[:len(trns)] = np.frombuffer(trns, np.uint8)[:len(palette)]
            rgba[..., 3] = alpha[idx]
        return rgba.astype(np.uint8), color, trns is not None
    key = None
    if trns is not None and color in (0, 2):
        key = np.frombuffer(trns, ">u2").astype(np.int32)[:nch]
        keymask = np.all(img[..., :nch] == key, axis=-1)
    if depth == 16:
        img = img >> 8
    elif depth < 8:
        img = img * 255 // ((1 << depth) - 1)
    if color in (0, 4):
        rgba[..., :3] = img[..., :1]
        if color == 4:
            rgba[..., 3] = img[..., 1]
    else:
        rgba[..., :nch] = img
    if key is not None:
        rgba[keymask, 3] = 0
    return rgba.astype(np.uint8), color, color in (4, 6) or key is not None


def read_grey(blob):
    """Grey levels (h, w) uint8 of a PNG, top row first; colour images give their red channel."""
    rgba, _, _ = decode(blob)
    return rgba[..., 0]


def read_channels(blob, nchannel):
    """The image as (h, w, nchannel) uint8, top row first: 1 = grey (red channel), 3 = RGB,
    4 = RGBA."""
    rgba, _, _ = decode(blob)
    if nchannel == 1:
        return rgba[..., :1]
    if nchannel == 3:
        return rgba[..., :3]
    if nchannel == 4:
        return rgba
    raise PNGError(f"unsupported number of channels {nchannel}")
