"""Texture assets: procedural (builtin) textures and images from PNG or MuJoCo's texture format
(seed 000, asset/texture), producing mjModel's tex_* fields.

Layouts (checked against the oracle): a 2d texture is height x width texels, top row first; a
cube or skybox texture is six width x width faces stacked vertically in the order right, left,
up, down, front, back (+X, -X, +Y, -Y, +Z, -Z); a cube loaded from one square image
(gridsize "1 1") stores that image once. Colours in [0, 1] become bytes as 255 * c truncated.
"""
from __future__ import annotations

import math
import sys

import numpy as np

from . import png, texture_gradient
from .mt64 import MT64

TYPE = {"2d": 0, "cube": 1, "skybox": 2}
COLORSPACE = {"auto": 0, "linear": 1, "sRGB": 2}
FACES = "RLUDFB"  # right, left, up, down, front, back: the face order in tex_data


class TextureError(ValueError):
    pass


def _byte(c):
    """A colour component as MuJoCo stores it: 255 * c truncated, wrapped to a byte."""
    return np.asarray(np.trunc(255.0 * np.asarray(c, float)), np.int64) & 0xFF


def _checker_face(h, w, rgb1, rgb2, invert=False):
    r = np.arange(h)[:, None] < h // 2
    c = np.arange(w)[None, :] < w // 2
    first = (r == c) ^ invert
    return np.where(first[..., None], rgb1, rgb2)


def _mark(face, a, rng=None):
    """mark edge / cross / random. Random marks draw one number per texel, row by row, from
    mujoco's generator (engine/compiler/mt64.py: std::mt19937_64 seeded 42 per texture, the
    faces of a cube texture one after another from ``rng``); a texel whose draw is below
    ``random`` takes the mark colour."""
    h, w = face.shape[:2]
    m = np.asarray(a["markrgb"], face.dtype)
    if a["mark"] == "random" and a["random"] > 0:
        rng = rng if rng is not None else MT64(42)
        face[rng.random((h, w)) < a["random"]] = m
    if a["mark"] == "edge":
        face[0, :] = face[-1, :] = m
        face[:, 0] = face[:, -1] = m
    elif a["mark"] == "cross":
        face[h // 2, :] = m
        face[:, w // 2] = m
    return face


def _cube_gradient(a, w):
    """The six face images (6, w, w, 3) uint8 of a cube/skybox gradient texture (before
    marks): engine/compiler/texture_gradient.py."""
    out = np.empty((6, w, w, 3), np.uint8)
    texture_gradient.cube_faces(int(w), np.asarray(a["rgb1"], float),
                                np.asarray(a["rgb2"], float), out)
    return out


def builtin(a, ttype):
    """(height, width, data uint8 (h*w*3)) of a procedural texture. Colours become bytes
    (`_byte`) first where every texel takes one of them (checker, flat, marks): `_byte` is per
    texel, so this is the same as converting the float image, without a float image."""
    w = a["width"]
    if w <= 0:
        raise TextureError("builtin texture needs a positive width")
    kind = a["builtin"]
    b1, b2 = (_byte(a[k]).astype(np.uint8) for k in ("rgb1", "rgb2"))
    byte_mark = dict(a, markrgb=_byte(a["markrgb"]).astype(np.uint8))
    if ttype == 0:
        h = a["height"]
        if h <= 0:
            raise TextureError("builtin 2d texture needs a positive height")
        if kind == "checker":
            img = _checker_face(h, w, b1, b2)
        elif kind == "flat":
            img = np.broadcast_to(b1, (h, w, 3)).copy()
        else:  # gradient: radial, rgb1 at the centre (engine/compiler/texture_gradient.py)
            img = np.empty((1, h, w, 3), np.uint8)
            texture_gradient.flat_2d(int(h), int(w), np.asarray(a["rgb1"], float),
                                     np.asarray(a["rgb2"], float), img)
            img = img[0]
        img = _mark(img, byte_mark, MT64(42))
        return h, w, img.ravel()
    rng = MT64(42)
    img = _cube_gradient(a, w) if kind == "gradient" else np.empty((6, w, w, 3), np.uint8)
    for f in range(6):
        if kind == "checker":
            img[f] = _checker_face(w, w, b1, b2, invert=(f >= 4))
        elif kind != "gradient":  # flat
            img[f] = b2 if f == 3 else b1
        _mark(img[f], byte_mark, rng)
    return 6 * w, w, img.ravel()


# the attributes `builtin` reads: with the type, the key of a procedural texture in the cache
_BUILTIN_ATTRS = ("builtin", "width", "height", "rgb1", "rgb2", "mark", "markrgb", "random")


def builtin_cached(a, ttype):
    """`builtin` through the compile cache (engine/compiler/cache.py): keyed on the texture
    type, the attributes `builtin` reads, this module's source and numpy's version."""
    from . import cache
    key = cache.Key("texture")
    key.add("code", cache.code_digest(cache, sys.modules[MT64.__module__], texture_gradient,
                                        sys.modules[__name__]))
    key.add("numpy", np.__version__)
    key.add("type", np.int64(ttype))
    for k in _BUILTIN_ATTRS:
        v = a[k]
        key.add(k, v if isinstance(v, str) else np.asarray(v, np.float64))
    got = cache.load(key)
    if got is not None:
        arrays, meta = got
        try:
            return int(meta["height"]), int(meta["width"]), arrays["data"]
        except (KeyError, TypeError, ValueError):
            pass
    h, w, data = builtin(a, ttype)
    cache.store(key, {"data": np.asarray(data, np.uint8)}, {"height": int(h), "width": int(w)})
    return h, w, data


# the attributes `from_images` and `decode_image` read, besides the files
_IMAGE_ATTRS = ("nchannel", "hflip", "vflip", "gridsize", "gridlayout", "rgb1", "content_type")
_FILE_ATTRS = ("file", "fileright", "fileleft", "fileup", "filedown", "filefront", "fileback")


def image_files(a):
    """The file attributes of texture attributes ``a`` that `from_images` reads: ``file``
    alone, else the six face files that are given."""
    if a.get("file"):
        return ["file"]
    return [k for k in _FILE_ATTRS[1:] if a.get(k)]


def from_images_cached(a, ttype, files):
    """`from_images` of the already read ``files`` (attribute -> (file name, bytes), for the
    attributes `image_files` names) through the compile cache: keyed on the bytes and names of
    the files, the attributes that shape the result, the texture type, the source of this module
    and of the PNG decoder, and numpy's version. Returns (height, width, data, srgb)."""
    from . import cache, png
    key = cache.Key("image")
    key.add("code", cache.code_digest(cache, png, sys.modules[__name__]))
    key.add("numpy", np.__version__)
    key.add("type", np.int64(ttype))
    for k in _IMAGE_ATTRS:
        v = a.get(k)
        key.add(k, v if v is None or isinstance(v, str) else np.asarray(v, np.float64))
    for k in sorted(files):
        fname, blob = files[k]
        key.add(k, fname).add(k + ":bytes", blob)
    got = cache.load(key)
    if got is not None:
        arrays, meta = got
        try:
            return int(meta["height"]), int(meta["width"]), arrays["data"], bool(meta["srgb"])
        except (KeyError, TypeError, ValueError):
            pass

    def load(attr):
        fname, blob = files[attr]
        return decode_image(blob, fname, a.get("content_type"), a["nchannel"])
    h, w, data, srgb = from_images(a, ttype, load)
    data = np.ascontiguousarray(data, np.uint8).ravel()
    cache.store(key, {"data": data}, {"height": int(h), "width": int(w), "srgb": bool(srgb)})
    return h, w, data, srgb


def decode_image(blob, fname, content_type, nchannel):
    """(h, w, nchannel) uint8 of a PNG or MuJoCo texture file (int32 width, int32 height, then
    rgb bytes), top row first, and whether the file declared sRGB."""
    is_png = (content_type == "image/png" if content_type
              else fname.lower().endswith(".png"))
    if is_png:
        try:
            img = png.read_channels(blob, nchannel)
        except png.PNGError as e:
            raise TextureError(f"'{fname}': {e}") from None
        srgb = b"sRGB" in blob[:blob.find(b"IDAT")] if b"IDAT" in blob else False
        return img, srgb
    if len(blob) < 8:
        raise TextureError(f"'{fname}' is too short")
    w, h = (int(x) for x in np.frombuffer(blob[:8], "<i4"))
    if w < 1 or h < 1 or len(blob) != 8 + 3 * w * h:
        raise TextureError(f"'{fname}': unexpected size for a {w}x{h} texture")
    img = np.frombuffer(blob[8:], np.uint8).reshape(h, w, 3)
    if nchannel != 3:
        raise TextureError(f"'{fname}': the custom texture format has 3 channels")
    return img, False


def from_images(a, ttype, load):
    """(height, width, data, srgb) of a texture from file(s). ``load(attr)`` returns
    (image (h, w, c) uint8, srgb) for the file named by attribute ``attr``."""
    nch = a["nchannel"]
    if a.get("file"):
        img, srgb = load("file")
        if a["hflip"]:
            img = img[:, ::-1]
        if a["vflip"]:
            img = img[::-1]
        if ttype == 0:
            h, w = img.shape[:2]
            return h, w, np.ascontiguousarray(img).ravel(), srgb
        gr, gc = a["gridsize"]
        h, w = img.shape[:2]
        if (gr, gc) == (1, 1):
            if h != w:
                raise TextureError("a cube texture from one image needs a square image")
            return h, w, np.ascontiguousarray(img).ravel(), srgb
        if h % gr or w % gc or h // gr != w // gc:
            raise TextureError("image size is not a grid of square faces")
        s = h // gr
        layout = a["gridlayout"]
        if len(layout) < gr * gc:
            raise TextureError("gridlayout is shorter than the grid")
        out = np.empty((6, s, s, nch), np.uint8)
        out[:] = _byte(a["rgb1"])[:nch] if nch >= 3 else _byte(a["rgb1"])[0]
        for k in range(gr * gc):
            ch = layout[k]
            if ch == ".":
                continue
            if ch not in FACES:
                raise TextureError(f"gridlayout has an unknown face '{ch}'")
            r, c = divmod(k, gc)
            out[FACES.index(ch)] = img[r * s:(r + 1) * s, c * s:(c + 1) * s]
        return 6 * s, s, out.ravel(), srgb
    # six separate files
    sides = ("right", "left", "up", "down", "front", "back")
    imgs, size, srgb = [], None, False
    for sd in sides:
        if a.get("file" + sd):
            img, srgb = load("file" + sd)
            if img.shape[0] != img.shape[1] or (size is not None and img.shape[0] != size):
                raise TextureError("cube faces must be square and of one size")
            size = img.shape[0]
            imgs.append(img)
        else:
            imgs.append(None)
    if size is None:
        raise TextureError("texture needs a file, the six face files or a builtin")
    fill = _byte(a["rgb1"]).astype(np.uint8)
    out = [im if im is not None else np.broadcast_to(fill[:nch], (size, size, nch))
           for im in imgs]
    return 6 * size, size, np.concatenate(out).ravel(), srgb
