"""engine.Renderer: mujoco.Renderer's API (update_scene, render, depth and segmentation modes)
over the engine's CPU renderer (engine/render/raster.py).

Semantics as mujoco's renderer (mujoco/rendering/classic/renderer.py, read not copied):
- ``Renderer(model, height=240, width=320, max_geom=10000)``; a size above the model's offscreen
  buffer (``<visual><global offwidth offheight>``) raises ValueError with mujoco's message.
- ``update_scene(data, camera=-1, scene_option=None)`` takes the state *now* (geom and light
  poses, the camera's pose): a later change of ``data`` does not change the image until the
  next update. ``camera`` is a camera name, id (-1: the model's free camera) or an MjvCamera.
- ``render(out=None)``: rgb (h, w, 3) uint8; with depth rendering (h, w) float32 axial depth in
  metres (far plane where empty); with segmentation (h, w, 2) int32 (object id, mjtObj type)
  per pixel, (-1, -1) where empty. Enabling one of depth and segmentation disables the other.
- ``close()``; a context manager; render after close raises RuntimeError.

Technology, chosen by measurement on this project's 2-core machine (README, "Camera images"),
for 320x240 frames of the Menagerie KUKA iiwa 14 scene (74k mesh triangles):
- MuJoCo's own OpenGL renderer through Mesa's software EGL: 340-640 ms per frame (and a GPU
  cannot be assumed on a pip-only machine), so OpenGL is no fast path here;
- ray casting every pixel with the engine's mj_ray kernel (every triangle of every mesh):
  1.6 ms per ray, 125 s per frame; a BVH per mesh would cut that to some tens of box and
  triangle tests per ray, an estimated 1-3 us, 80-230 ms per frame: still above 33 ms;
- this numba z-buffer rasterizer (each triangle projected once, back faces culled; most cover
  less than a pixel) with primitives intersected per pixel: 3 ms of CPU for visibility and
  8 ms for shading per frame, with depth exact as a ray caster's (raster.py).
"""
from __future__ import annotations

import numpy as np

from ..enums import mjtCamera, mjtLightType, mjtObj
from ..names import mj_name2id
from ..visualize import MjvCamera, MjvOption, mjv_defaultFreeCamera
from . import raster
from .camera import camera_pose, intrinsics
from .scene import SceneGeometry
from .texture import MipTextures, skybox

_OBJ_CAMERA = int(mjtObj.mjOBJ_CAMERA)
_DIRECTIONAL = int(mjtLightType.mjLIGHT_DIRECTIONAL)


class Renderer:
    """Renders a model's scene offscreen on the CPU (module docstring)."""

    def __init__(self, model, height: int = 240, width: int = 320, max_geom: int = 10000,
                 font_scale=None) -> None:
        self._closed = True
        buffer_width = model.vis.global_.offwidth
        buffer_height = model.vis.global_.offheight
        if width > buffer_width:
            raise ValueError(f"""
Image width {width} > framebuffer width {buffer_width}. Either reduce the image
width or specify a larger offscreen framebuffer in the model XML using the
clause:
<visual>
  <global offwidth="my_width"/>
</visual>""".lstrip())
        if height > buffer_height:
            raise ValueError(f"""
Image height {height} > framebuffer height {buffer_height}. Either reduce the
image height or specify a larger offscreen framebuffer in the model XML using
the clause:
<visual>
  <global offheight="my_height"/>
</visual>""".lstrip())
        self._model = model
        self._width, self._height = int(width), int(height)
        self._max_geom = int(max_geom)
        self._scene_option = MjvOption()
        self._geometry = {}
        self._textures = MipTextures(model)
        self._sky_rgb, self._sky_w = skybox(model)
        self._geo = self._geometry_for(self._scene_option)
        h, w = self._height, self._width
        self._zbuf = np.empty((h, w))
        self._gbuf = np.empty((h, w), np.int32)
        self._fbuf = np.zeros((h, w), np.int32)
        # the scene: state copied by update_scene (the items' poses: _geometry_for)
        nl = int(model.nlight) + 1
        self._light_xpos = np.zeros((nl, 3))
        self._light_xdir = np.zeros((nl, 3))
        self._light_active = np.zeros(nl, np.uint8)
        self._light_directional = np.ones(nl, np.uint8)
        self._light_directional[1:] = np.asarray(model.light_type) == _DIRECTIONAL
        self._light_ambient = np.zeros((nl, 3))
        self._light_diffuse = np.zeros((nl, 3))
        self._light_specular = np.zeros((nl, 3))
        self._light_attenuation = np.zeros((nl, 3))
        self._light_attenuation[0, 0] = 1.0
        self._light_cutoff = np.full(nl, 180.0)
        self._light_exponent = np.zeros(nl)
        if nl > 1:
            self._light_ambient[1:] = model.light_ambient
            self._light_diffuse[1:] = model.light_diffuse
            self._light_specular[1:] = model.light_specular
            self._light_attenuation[1:] = model.light_attenuation
            self._light_cutoff[1:] = model.light_cutoff
            self._light_exponent[1:] = model.light_exponent
        # OpenGL spot cones: the cosine of the half-angle, "no cone" (-2) at 180 degrees or more
        self._light_coscutoff = np.where(self._light_cutoff < 180.0,
                                         np.cos(np.radians(self._light_cutoff)), -2.0)
        self._cam_pos = np.zeros(3)
        self._cam_mat = np.eye(3).reshape(9).copy()
        self._camid = -1
        self._intrinsics = intrinsics(model, -1, w, h)
        self._ortho = False
        self._have_scene = False
        self._depth_rendering = False
        self._segmentation_rendering = False
        self._closed = False

    # -- mujoco.Renderer's properties and modes --------------------------------------------

    @property
    def model(self):
        return self._model

    @property
    def height(self):
        return self._height

    @property
    def width(self):
        return self._width

    @property
    def scene(self):
        raise NotImplementedError("engine.Renderer.scene: the abstract scene (mjvScene) is not "
                                  "built; the renderer keeps its own geometry")

    def enable_depth_rendering(self):
        self._segmentation_rendering = False
        self._depth_rendering = True

    def disable_depth_rendering(self):
        self._depth_rendering = False

    def enable_segmentation_rendering(self):
        self._segmentation_rendering = True
        self._depth_rendering = False

    def disable_segmentation_rendering(self):
        self._segmentation_rendering = False

    # -- scene -------------------------------------------------------------------------------

    def _geometry_for(self, option):
        def shown(groups):
            return tuple(int(i) for i, on in enumerate(np.asarray(groups)) if on)
        key = (shown(option.geomgroup), shown(option.sitegroup))
        if key not in self._geometry:
            self._geometry[key] = SceneGeometry(self._model, *key)
        geo = self._geometry[key]
        if len(geo) > self._max_geom:
            # mujoco's scene holds max_geom geoms and drops the rest (with a warning)
            raise ValueError(f"engine.Renderer: the scene has {len(geo)} geoms and sites, "
                             f"more than max_geom={self._max_geom}")
        if geo is not getattr(self, "_geo", None):
            self._xpos = np.zeros((len(geo), 3))
            self._xmat = np.tile(np.eye(3).reshape(9), (len(geo), 1))
        return geo

    def update_scene(self, data, camera=-1, scene_option=None):
        """Take the scene from ``data`` (geom, light and camera poses: its kinematics must be
        current, as after mj_forward or mj_step) seen by ``camera`` (name, id, -1 for the free
        camera, or an MjvCamera) with ``scene_option``'s geom groups (default: 0, 1, 2)."""
        m = self._model
        if not isinstance(camera, MjvCamera):
            camera_id = camera
            if isinstance(camera_id, str):
                camera_id = mj_name2id(m, _OBJ_CAMERA, camera_id)
                if camera_id == -1:
                    raise ValueError(f'The camera "{camera}" does not exist.')
            if camera_id < -1 or camera_id >= m.ncam:
                raise ValueError(f"The camera id {camera_id} is out of range "
                                 f"[-1, {m.ncam}).")
            camera = MjvCamera()
            camera.fixedcamid = camera_id
            if camera_id == -1:
                camera.type = int(mjtCamera.mjCAMERA_FREE)
                mjv_defaultFreeCamera(m, camera)
            else:
                camera.type = int(mjtCamera.mjCAMERA_FIXED)
        pos, mat, camid, self._ortho = camera_pose(m, data, camera)
        self._geo = self._geometry_for(scene_option or self._scene_option)
        self._cam_pos[:] = pos
        self._cam_mat[:] = mat
        self._camid = camid
        self._intrinsics = intrinsics(m, camid, self._width, self._height, self._ortho)
        self._geo.gather(data, self._xpos, self._xmat)
        # the headlight: directional along the camera's axis (seed 000 "visual/headlight")
        hl = m.vis.headlight
        self._light_active[0] = bool(hl.active)
        self._light_xdir[0] = -np.asarray(mat).reshape(3, 3)[:, 2]
        self._light_ambient[0], self._light_diffuse[0] = hl.ambient, hl.diffuse
        self._light_specular[0] = hl.specular
        if m.nlight:
            self._light_active[1:] = np.asarray(m.light_active) != 0
            self._light_xpos[1:] = data.light_xpos
            self._light_xdir[1:] = data.light_xdir
        self._have_scene = True

    def _resize(self, height: int, width: int) -> None:
        """Draw the next frames at width x height pixels (engine.render.gl's mjr_render draws
        one scene into viewports of any size; the scene taken by update_scene is kept)."""
        h, w = int(height), int(width)
        if (h, w) == (self._height, self._width):
            return
        self._height, self._width = h, w
        self._zbuf = np.empty((h, w))
        self._gbuf = np.empty((h, w), np.int32)
        self._fbuf = np.zeros((h, w), np.int32)
        self._intrinsics = intrinsics(self._model, self._camid, w, h, self._ortho)

    # -- rendering ---------------------------------------------------------------------------

    def _visibility(self):
        m, geo = self._model, self._geo
        extent = float(m.stat.extent)
        near, far = float(m.vis.map.znear) * extent, float(m.vis.map.zfar) * extent
        fx, fy, px, py = self._intrinsics
        n = len(geo) if self._have_scene else 0
        vcam = np.empty((geo.max_vert, 3))
        vscr = np.empty((geo.max_vert, 2))
        raster.visibility(geo.kind[:n], geo.shape, geo.type, geo.size, geo.rbound, self._xpos,
                          self._xmat, geo.shape_vertadr, geo.shape_vertnum, geo.shape_faceadr,
                          geo.shape_facenum, geo.shape_vert, geo.shape_face, self._cam_pos,
                          self._cam_mat, fx, fy, px, py, self._ortho, near, far, vcam,
                          vscr, self._zbuf,
                          self._gbuf, self._fbuf)

    def _shade(self, rgb):
        m, geo, tx = self._model, self._geo, self._textures
        fx, fy, px, py = self._intrinsics
        raster.shade(self._zbuf, self._gbuf, self._fbuf, geo.shape, geo.shape_vertadr,
                     geo.shape_vert, geo.shape_face, geo.corner_normal, geo.type, geo.size,
                     self._xpos,
                     self._xmat, geo.rgba, geo.matid, m.mat_emission, m.mat_specular,
                     m.mat_shininess, m.mat_texid[:, 1] if m.nmat else np.zeros(0, np.int32),
                     m.mat_texrepeat, m.mat_texuniform, tx.mip_rgb, tx.mip_adr, tx.mip_w,
                     tx.mip_h, tx.mip_n, self._light_active,
                     self._light_directional, self._light_xpos, self._light_xdir,
                     self._light_ambient, self._light_diffuse, self._light_specular,
                     self._light_attenuation, self._light_coscutoff, self._light_exponent,
                     self._sky_rgb, self._sky_w, self._cam_pos, self._cam_mat, fx, fy, px,
                     py, self._ortho, rgb)

    def render(self, *, out=None):
        """The image of the last update_scene (module docstring for the three modes)."""
        if self._closed:
            raise RuntimeError("render cannot be called after close.")
        h, w = self._height, self._width
        if self._depth_rendering:
            shape, dtype = (h, w), np.float32
        elif self._segmentation_rendering:
            shape, dtype = (h, w, 2), np.int32
        else:
            shape, dtype = (h, w, 3), np.uint8
        if out is not None and out.shape != shape:
            raise ValueError(
                f"Expected `out.shape == {shape}`. Got `out.shape={out.shape}` instead. When "
                "using depth rendering, the out array should be of shape `(height, width)`, "
                "when using segmentation rendering `(height, width, 2)`, and otherwise "
                f"`(height, width, 3)`. Got `(self.height, self.width)={(h, w)}`, "
                f"`self._depth_rendering={self._depth_rendering}`, and "
                f"`self._segmentation_rendering={self._segmentation_rendering}`.")
        buffer = (out if out is not None and out.dtype == dtype and out.flags.c_contiguous
                  else np.empty(shape, dtype))
        self._visibility()
        if self._depth_rendering:
            buffer[:] = self._zbuf
        elif self._segmentation_rendering:
            item, hit = self._gbuf, self._gbuf >= 0
            if len(self._geo):
                buffer[..., 0] = np.where(hit, self._geo.objid[item], -1)
                buffer[..., 1] = np.where(hit, self._geo.objtype[item], -1)
            else:
                buffer[:] = -1
        else:
            self._shade(buffer)
        if out is not None:
            if out is not buffer:
                np.copyto(out, buffer, casting="unsafe")
            return out
        return buffer

    def render_rgbd(self, rgb=None, depth=None):
        """The rgb image (h, w, 3 uint8) and the depth image (h, w float32, m) of the last
        update_scene from one visibility pass (an engine extension: mujoco renders twice).
        Writes into ``rgb`` / ``depth`` when given; returns both."""
        if self._closed:
            raise RuntimeError("render cannot be called after close.")
        h, w = self._height, self._width
        rgb = np.empty((h, w, 3), np.uint8) if rgb is None else rgb
        depth = np.empty((h, w), np.float32) if depth is None else depth
        if rgb.shape != (h, w, 3) or rgb.dtype != np.uint8 or depth.shape != (h, w):
            raise ValueError(f"render_rgbd: expected rgb uint8 {(h, w, 3)} and depth {(h, w)}")
        self._visibility()
        depth[:] = self._zbuf
        self._shade(rgb)
        return rgb, depth

    def close(self) -> None:
        """Free the renderer's buffers; render raises afterwards."""
        self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.close()
