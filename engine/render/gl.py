"""mujoco's low-level rendering API over the engine's CPU renderer: MjvScene, mjv_updateScene,
MjrContext, mjr_setBuffer, mjr_render, mjr_readPixels and a GLContext (seed 001
"Visualization": abstract scene, then rendering into an offscreen framebuffer read back by the
program).

Programs written for mujoco's OpenGL pipeline (gymnasium's MujocoRenderer, dm_control-style
viewers) call, per frame::

    mjv_updateScene(m, d, opt, pert, cam, catmask, scn)   # snapshot what to draw
    mjr_render(viewport, scn, con)                        # draw into the context's framebuffer
    mjr_readPixels(rgb, depth, viewport, con)             # copy it out, rows bottom-up

Here the scene snapshot is an ``engine.Renderer``'s (geom, site and light poses, the camera's
pose taken from the MjvCamera: free, tracking or fixed), the drawing is its rasterizer
(engine/render/raster.py) and the framebuffer is a pair of arrays in the MjrContext, sized by
the model's offscreen buffer (``<visual><global offwidth offheight>``) as mujoco's is. What
mjr_readPixels returns follows OpenGL's conventions, as mujoco's does: row 0 is the bottom of
the viewport, rgb uint8, depth float32 in [0, 1] as the non-linear depth buffer of the
perspective projection with near = znear * extent and far = zfar * extent (linear for an
orthographic camera; 1 where nothing was drawn).

There is no OpenGL: GLContext (also ``engine.egl``, ``engine.osmesa``, ``engine.glfw``, the
modules programs import for MUJOCO_GL) is a CPU context whose make_current and free do nothing.
Not built (raising NotImplementedError): the scene's per-geom records (``scn.geoms``, so
markers added by hand), segmentation by id colour (mjRND_SEGMENT), text overlays, window
buffers.
"""
from __future__ import annotations

import math

import numpy as np

from ..enums import mjRNDSTRING, mjtFontScale, mjtFramebuffer, mjtRndFlag
from ..structs import struct_class
from .renderer import Renderer

_OFFSCREEN = int(mjtFramebuffer.mjFB_OFFSCREEN)
_RND_DEFAULT = tuple(int(on) for _, on, _ in mjRNDSTRING)


class GLContext:
    """A rendering context for mujoco's GLContext(max_width, max_height): the engine draws on
    the CPU, so there is nothing to create, make current or free."""

    def __init__(self, max_width: int, max_height: int):
        self._max_width, self._max_height = int(max_width), int(max_height)
        self._alive = True

    def make_current(self) -> None:
        """No-op (no OpenGL context to bind)."""

    def free(self) -> None:
        """No-op apart from marking the context freed (mujoco's may be freed twice too)."""
        self._alive = False

    def __del__(self):
        self.free()


MjvGLCamera = struct_class("MjvGLCamera", [
    ("pos", np.float32, (3,), 0.0, "eye position, world frame (m)"),
    ("forward", np.float32, (3,), 0.0, "viewing direction, world frame (unit)"),
    ("up", np.float32, (3,), 0.0, "up direction, world frame (unit)"),
    ("frustum_center", np.float32, (), 0.0, "horizontal centre of the near plane (m)"),
    ("frustum_width", np.float32, (), 0.0, "width of the near plane (m; 0: from the aspect)"),
    ("frustum_bottom", np.float32, (), 0.0, "bottom of the near plane (m)"),
    ("frustum_top", np.float32, (), 0.0, "top of the near plane (m)"),
    ("frustum_near", np.float32, (), 0.0, "near clipping distance (m)"),
    ("frustum_far", np.float32, (), 0.0, "far clipping distance (m)"),
    ("orthographic", np.int32, (), 0, "0 perspective, 1 orthographic"),
], "One eye's OpenGL camera of a scene (MuJoCo's mjvGLCamera).")


class MjvScene:
    """The abstract scene (MuJoCo's mjvScene): ``MjvScene()`` or ``MjvScene(model, maxgeom)``.

    mjv_updateScene fills it from a state; mjr_render draws it. Fields kept: ``maxgeom``,
    ``ngeom`` (geoms and sites drawn: mujoco's count adds decoration geoms), ``nlight``
    (headlight and model lights), ``flags`` (mjtRndFlag, mujoco's defaults), ``camera`` (the
    two eyes' MjvGLCamera, half the camera's ipd left and right of it, as mujoco's; the
    perturbation functions read them) and the model-to-room transform (``enabletransform``,
    ``translate``, ``rotate``, ``scale``; the renderer draws the model untransformed)."""

    def __init__(self, model=None, maxgeom: int = 0):
        self.maxgeom = int(maxgeom)
        self.ngeom = 0
        self.nlight = 0
        self.flags = np.array(_RND_DEFAULT, np.uint8)
        self.camera = [MjvGLCamera(), MjvGLCamera()]
        self.enabletransform = 0
        self.translate = np.zeros(3, np.float32)
        self.rotate = np.array([1, 0, 0, 0], np.float32)
        self.scale = 1.0
        self.stereo = 0
        self._model = model
        self._renderer = None

    @property
    def geoms(self):
        raise NotImplementedError("MjvScene.geoms: the scene's per-geom records (mjvGeom) are "
                                  "not built; the engine's scene keeps flat arrays")

    def _renderer_for(self, m):
        if self._renderer is None or self._renderer.model is not m:
            self._model = m
            # drawn at 1x1 until mjr_render gives a viewport (Renderer._resize)
            self._renderer = Renderer(m, 1, 1, max_geom=max(self.maxgeom, 1))
        return self._renderer


def mjv_updateScene(m, d, opt, pert, cam, catmask, scn) -> None:
    """Snapshot into ``scn`` what model ``m`` in state ``d`` shows (its kinematics current, as
    after mj_forward or mj_step) through abstract camera ``cam`` (MjvCamera: free, tracking or
    fixed) with ``opt``'s geom and site groups. ``pert`` and ``catmask`` draw perturbation and
    category decorations in mujoco, which the engine's scene does not draw."""
    if scn.enabletransform:
        raise NotImplementedError("mjv_updateScene: the model-to-room transform "
                                  "(mjvScene.enabletransform) is not built")
    r = scn._renderer_for(m)
    r.update_scene(d, camera=cam, scene_option=opt)
    scn.ngeom = len(r._geo)
    scn.nlight = 1 + int(m.nlight)
    _gl_cameras(m, r, scn.camera)


def _gl_cameras(m, r, eyes):
    """The two eyes of renderer ``r``'s camera (mjv_updateCamera): half the inter-pupillary
    distance (cam_ipd, or vis.global.ipd for a free camera) to each side, the frustum's near
    plane at znear * extent with half-height near * tan(fovy / 2) (fovy / 2 when
    orthographic)."""
    k = r._camid
    mat = r._cam_mat.reshape(3, 3)
    right, up, fwd = mat[:, 0], mat[:, 1], -mat[:, 2]
    ipd = float(m.cam_ipd[k]) if k >= 0 else float(m.vis.global_.ipd)
    fovy = float(m.cam_fovy[k]) if k >= 0 else float(m.vis.global_.fovy)
    extent = float(m.stat.extent)
    near, far = float(m.vis.map.znear) * extent, float(m.vis.map.zfar) * extent
    half = 0.5 * fovy if r._ortho else near * math.tan(math.radians(fovy) / 2.0)
    for side, eye in zip((-0.5, 0.5), eyes):
        eye.pos = r._cam_pos + side * ipd * right
        eye.forward, eye.up = fwd, up
        eye.frustum_center, eye.frustum_width = 0.0, 0.0
        eye.frustum_bottom, eye.frustum_top = -half, half
        eye.frustum_near, eye.frustum_far = near, far
        eye.orthographic = int(r._ortho)


class MjrContext:
    """The rendering context (MuJoCo's mjrContext): ``MjrContext()`` (empty) or
    ``MjrContext(model, fontscale)``, whose offscreen framebuffer is the model's
    offwidth x offheight (pixels). ``free()`` releases it."""

    def __init__(self, model=None, fontscale=int(mjtFontScale.mjFONTSCALE_100)):
        self.fontScale = int(fontscale) if model is not None else 0
        self.windowAvailable = 0
        self.currentBuffer = _OFFSCREEN if model is not None else 0
        if model is None:
            self.offWidth = self.offHeight = self.offSamples = 0
        else:
            g = model.vis.global_
            self.offWidth, self.offHeight = int(g.offwidth), int(g.offheight)
            self.offSamples = int(model.vis.quality.offsamples)
        # the framebuffer, rows bottom-up as OpenGL's: colour and window depth in [0, 1]
        self._rgb = np.zeros((self.offHeight, self.offWidth, 3), np.uint8)
        self._depth = np.ones((self.offHeight, self.offWidth), np.float32)

    def free(self) -> None:
        """Release the framebuffer (mujoco's mjr_freeContext)."""
        self._rgb = np.zeros((0, 0, 3), np.uint8)
        self._depth = np.ones((0, 0), np.float32)
        self.offWidth = self.offHeight = 0


def mjr_setBuffer(framebuffer, con) -> None:
    """Select the framebuffer drawn and read: only the offscreen one exists (no window), so it
    is selected whatever ``framebuffer`` says, as mujoco does when one buffer is available."""
    del framebuffer
    con.currentBuffer = _OFFSCREEN


def _clip(viewport, con):
    """(row0, row1, col0, col1) of ``viewport`` inside the framebuffer (rows from the
    bottom), and the viewport's (height, width)."""
    left, bottom = int(viewport.left), int(viewport.bottom)
    w, h = int(viewport.width), int(viewport.height)
    r0, r1 = max(bottom, 0), min(bottom + h, con.offHeight)
    c0, c1 = max(left, 0), min(left + w, con.offWidth)
    return r0, max(r1, r0), c0, max(c1, c0), h, w


def _window_depth(z, near, far, ortho):
    """OpenGL's depth-buffer value in [0, 1] of axial depth ``z`` (m): linear for an
    orthographic projection, far * (z - near) / (z * (far - near)) for a perspective one."""
    if ortho:
        return np.clip((z - near) / (far - near), 0.0, 1.0)
    return np.clip(far * (z - near) / (np.maximum(z, near) * (far - near)), 0.0, 1.0)


def mjr_render(viewport, scn, con) -> None:
    """Draw scene ``scn`` into ``con``'s framebuffer over ``viewport`` (MjrRect, pixels from
    the bottom-left corner; the part outside the framebuffer is clipped)."""
    if scn.flags[int(mjtRndFlag.mjRND_SEGMENT)]:
        raise NotImplementedError("mjr_render: segmentation rendering (mjRND_SEGMENT) is not "
                                  "built; engine.Renderer.enable_segmentation_rendering is")
    r = scn._renderer
    r0, r1, c0, c1, h, w = _clip(viewport, con)
    if r is None or h <= 0 or w <= 0 or r1 <= r0 or c1 <= c0:
        return
    r._resize(h, w)
    rgb, z = r.render_rgbd()
    m = r.model
    extent = float(m.stat.extent)
    near, far = float(m.vis.map.znear) * extent, float(m.vis.map.zfar) * extent
    depth = _window_depth(z.astype(np.float64), near, far, r._ortho)
    # the image's top row is the viewport's top; framebuffer rows count from the bottom
    bottom, left = int(viewport.bottom), int(viewport.left)
    rows = slice(r0 - bottom, r1 - bottom)
    cols = slice(c0 - left, c1 - left)
    con._rgb[r0:r1, c0:c1] = rgb[::-1][rows, cols]
    con._depth[r0:r1, c0:c1] = depth[::-1][rows, cols]


def mjr_readPixels(rgb, depth, viewport, con) -> None:
    """Copy ``viewport`` of ``con``'s framebuffer into ``rgb`` (uint8, >= 3 * width * height
    values) and ``depth`` (float32, >= width * height), either may be None, row by row from the
    bottom (OpenGL's order), the client buffer starting at its first element."""
    r0, r1, c0, c1, h, w = _clip(viewport, con)
    for buf, dtype, k, what in ((rgb, np.uint8, 3, "rgb"), (depth, np.float32, 1, "depth")):
        if buf is None:
            continue
        if not isinstance(buf, np.ndarray) or buf.dtype != dtype:
            raise TypeError(f"mjr_readPixels: {what} must be a numpy {np.dtype(dtype)} array")
        if buf.size < k * w * h:
            raise ValueError(f"{what} buffer is too small for viewport")
        flat = buf.reshape(-1)
        if not np.shares_memory(flat, buf):
            raise ValueError(f"mjr_readPixels: {what} must be contiguous")
        out = flat[:k * w * h].reshape(h, w, k)
        src = con._rgb if k == 3 else con._depth[..., None]
        out[:] = 0 if k == 3 else 1
        out[r0 - int(viewport.bottom):r1 - int(viewport.bottom),
            c0 - int(viewport.left):c1 - int(viewport.left)] = src[r0:r1, c0:c1]


__all__ = ["GLContext", "MjvGLCamera", "MjvScene", "MjrContext", "mjv_updateScene", "mjr_setBuffer",
           "mjr_render", "mjr_readPixels"]
