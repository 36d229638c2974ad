"""engine.Renderer against mujoco.Renderer (OpenGL through EGL here) and against mj_ray.

Tolerances (why):
- Depth against mj_ray (engine's and mujoco's), every geom type, at sampled pixels: relative
  2e-7 (the float32 output's rounding; the renderer intersects in float64 with mj_ray's
  routines or the face's plane).
- Depth against mujoco's OpenGL depth on planar surfaces (planes, boxes, meshes), away from
  silhouette edges: z^2 / (near * 2^23) + 1e-6 m, two steps of a 24-bit depth buffer at depth
  z after mujoco linearises it; (far - near) / 2^22 + 1e-6 m for an orthographic camera, whose
  depth buffer is linear: its 24-bit step plus mujoco's float32 arithmetic on a [0, 1] value
  scaled by far - near (measured up to 2.7 steps). Spheres, capsules, ellipsoids and cylinders are tessellated by
  OpenGL, so they are compared with mj_ray only.
- Segmentation: >= 99% of pixels equal to mujoco's (silhouette pixels differ by tessellation
  and rasterization rules).
- Colour: a flat face lit head-on by the headlight equals rgba * (ambient + diffuse) within 2
  levels of 255; the mean colour of each primitive's segment within 40 levels of mujoco's
  (MuJoCo smooths mesh normals and adds reflections; ours is flat-shaded).
"""
from __future__ import annotations

import numpy as np
import pytest

from oracle import TEST_MODELS, mujoco, shared_model

import engine

SCENE = TEST_MODELS / "render_scene.xml"
H, W = 240, 320
PLANAR = (int(engine.mjtGeom.mjGEOM_PLANE), int(engine.mjtGeom.mjGEOM_BOX),
          int(engine.mjtGeom.mjGEOM_MESH))


@pytest.fixture
def mj_gl(monkeypatch):
    """mujoco.Renderer with an EGL context whatever MUJOCO_GL was when mujoco was imported
    (mujoco picks its GL platform at import); skips where no EGL library loads."""
    from mujoco.rendering.classic import gl_context
    try:
        from mujoco import egl
        monkeypatch.setattr(gl_context, "GLContext", egl.GLContext)

        def make(m, h=H, w=W):
            return mujoco.Renderer(m, h, w)
        make(mujoco.MjModel.from_xml_string("<mujoco/>"), 8, 8).close()
    except Exception as exc:    # noqa: BLE001 - any GL failure means: no oracle images here
        pytest.skip(f"mujoco's renderer has no OpenGL context here: {exc}")
    return make


def _pair(path, noise=0.0, seed=0):
    mm = mujoco.MjModel.from_xml_path(str(path))
    md = mujoco.MjData(mm)
    em = engine.MjModel.from_xml_path(str(path))
    ed = engine.MjData(em)
    if noise:
        q = mm.qpos0 + noise * np.random.default_rng(seed).standard_normal(mm.nq)
        md.qpos[:] = q
        ed.qpos[:] = q
    mujoco.mj_forward(mm, md)
    engine.mj_forward(em, ed)
    return mm, md, em, ed


def _both(mj_gl, mm, md, em, ed, camera, mode):
    """mujoco's and the engine's image of one mode ("rgb", "depth", "seg")."""
    out = []
    for r, d in ((mj_gl(mm), md), (engine.Renderer(em, H, W), ed)):
        with r:
            if mode == "depth":
                r.enable_depth_rendering()
            elif mode == "seg":
                r.enable_segmentation_rendering()
            r.update_scene(d, camera)
            out.append(r.render())
    return out


def _interior(seg):
    """Pixels whose 4 neighbours show the same object (not on a silhouette edge)."""
    s = seg[..., 0]
    ok = np.zeros(s.shape, bool)
    ok[1:-1, 1:-1] = ((s[1:-1, 1:-1] == s[:-2, 1:-1]) & (s[1:-1, 1:-1] == s[2:, 1:-1])
                      & (s[1:-1, 1:-1] == s[1:-1, :-2]) & (s[1:-1, 1:-1] == s[1:-1, 2:]))
    return ok


CASES = [(SCENE, "front", 0.0), (SCENE, "sensor", 0.0), (SCENE, -1, 0.0), (SCENE, "ortho", 0.0),
         ("menagerie/kuka_iiwa_14/scene.xml", -1, 0.3),
         ("menagerie/ufactory_xarm7/scene.xml", -1, 0.3),
         ("menagerie/google_barkour_vb/scene_hfield_mjx.xml", -1, 0.0),   # a height field
         ("menagerie/shadow_hand/scene_right.xml", -1, 0.2)]


def _path(p):
    return p if not isinstance(p, str) else shared_model(p)


@pytest.mark.parametrize("path,camera,noise", CASES)
def test_segmentation_and_depth_match_mujoco(mj_gl, path, camera, noise):
    mm, md, em, ed = _pair(_path(path), noise)
    ms, es = _both(mj_gl, mm, md, em, ed, camera, "seg")
    assert es.dtype == np.int32 and es.shape == (H, W, 2)
    agree = (ms == es).all(-1).mean()
    assert agree >= 0.99, f"segmentation agrees at {agree:.4f} of pixels"
    mdp, edp = _both(mj_gl, mm, md, em, ed, camera, "depth")
    assert edp.dtype == np.float32 and edp.shape == (H, W)
    near = em.vis.map.znear * em.stat.extent
    gid = es[..., 0]
    sel = ((ms[..., 0] == gid) & (gid >= 0) & _interior(es)
           & (es[..., 1] == int(engine.mjtObj.mjOBJ_GEOM))
           & np.isin(em.geom_type[np.maximum(gid, 0)], PLANAR))
    assert sel.sum() > 1000
    z = edp[sel].astype(float)
    far = em.vis.map.zfar * em.stat.extent
    # two steps of the 24-bit depth buffer: nonlinear in perspective, linear in orthographic
    ortho = isinstance(camera, str) and em.cam_projection[em.camera(camera).id] == 1
    tol = ((far - near) / 2 ** 22 if ortho else z ** 2 / (near * 2 ** 23)) + 1e-6
    bad = np.abs(mdp[sel] - z) > tol
    assert bad.mean() <= 0.001, (f"{bad.sum()} of {sel.sum()} planar pixels off mujoco's "
                                 f"depth: max {np.abs(mdp[sel] - z).max()}")
    # empty pixels: both at the far plane
    empty = (gid < 0) & (ms[..., 0] < 0)
    np.testing.assert_allclose(edp[empty], far, rtol=1e-6)


def _pixel_rays(r, em, ed, camera, pix):
    """World origins and axial-unit directions (k, 3) of the pixels ``pix`` (k, 2: row, col)
    of renderer ``r``'s camera (its last update_scene): from the camera's position, or for an
    orthographic camera from the pixel's place on the image plane along the axis."""
    fx, fy, px, py = r._intrinsics
    rows, cols = pix[:, 0], pix[:, 1]
    uv = np.stack([(cols + 0.5 - px) / fx, -(rows + 0.5 - py) / fy, np.zeros(len(pix))], 1)
    rot = r._cam_mat.reshape(3, 3)
    if r._ortho:
        return r._cam_pos + uv @ rot.T, np.tile(-rot[:, 2], (len(pix), 1))
    return np.tile(r._cam_pos, (len(pix), 1)), (uv - [0, 0, 1]) @ rot.T


@pytest.mark.parametrize("path,camera,noise", CASES)
def test_depth_equals_mj_ray(path, camera, noise):
    """At sampled pixels the depth is mj_ray's distance along the pixel's ray (axial units),
    engine's and mujoco's, and the segment is mj_ray's geom (off silhouette edges)."""
    mm, md, em, ed = _pair(_path(path), noise)
    r = engine.Renderer(em, H, W)
    r.update_scene(ed, camera)
    r.enable_segmentation_rendering()
    seg = r.render()
    r.enable_depth_rendering()
    depth = r.render()
    far = em.vis.map.zfar * em.stat.extent
    near = em.vis.map.znear * em.stat.extent
    rng = np.random.default_rng(1)
    pix = np.stack([rng.integers(0, H, 400), rng.integers(0, W, 400)], 1)
    origins, dirs = _pixel_rays(r, em, ed, camera, pix)
    group = np.array([1, 1, 1, 0, 0, 0], np.uint8)
    inner = _interior(seg)
    checked = 0
    for (row, col), pos, v in zip(pix, origins, dirs):
        gid_e = np.array([-1], np.int32)
        gid_m = np.array([-1], np.int32)
        xe = engine.mj_ray(em, ed, pos, v, group, 1, -1, gid_e)
        xm = mujoco.mj_ray(mm, md, pos, v, group, 1, -1, gid_m)
        assert xe == pytest.approx(xm, rel=1e-9, abs=1e-12)
        if seg[row, col, 1] == int(engine.mjtObj.mjOBJ_SITE):
            continue    # sites are drawn (as mujoco's renderer does), mj_ray does not see them
        if 0 <= xe < near:      # nearer than the near plane: clipped, what is behind shows
            assert depth[row, col] > near
            continue
        if xe < 0 or xe > far:
            assert depth[row, col] == pytest.approx(far, rel=1e-6)
            assert seg[row, col, 0] == -1 or not inner[row, col]
            continue
        assert depth[row, col] == pytest.approx(xe, rel=2e-7, abs=1e-7), (row, col)
        if inner[row, col]:
            assert seg[row, col, 0] == gid_e[0], (row, col)
            assert seg[row, col, 1] == int(engine.mjtObj.mjOBJ_GEOM)
        checked += 1
    assert checked > 100


def test_flat_face_colour(mj_gl):
    """The box's -y face seen head-on (free camera along +y) under the headlight alone:
    rgba * (ambient + diffuse), the material's specular being 0; mujoco gives the same."""
    mm, md, em, ed = _pair(SCENE)
    cam_e = engine.MjvCamera()
    cam_m = mujoco.MjvCamera()
    for cam in (cam_e, cam_m):
        cam.type = int(engine.mjtCamera.mjCAMERA_FREE)
        cam.lookat[:] = ed.geom("box").xpos
        cam.distance, cam.azimuth, cam.elevation = 0.5, 90.0, 0.0
    er = engine.Renderer(em, H, W)
    er.update_scene(ed, cam_e)
    img = er.render()
    hl = em.vis.headlight
    want = np.round(255 * np.asarray(em.mat("flat").rgba[:3]) * (hl.ambient + hl.diffuse))
    np.testing.assert_allclose(img[H // 2, W // 2], want, atol=2)
    mr = mj_gl(mm)
    mr.update_scene(md, cam_m)
    np.testing.assert_allclose(mr.render()[H // 2, W // 2], want, atol=3)


def test_segment_colours_close_to_mujoco(mj_gl):
    mm, md, em, ed = _pair(SCENE)
    mimg, eimg = _both(mj_gl, mm, md, em, ed, "front", "rgb")
    mseg, eseg = _both(mj_gl, mm, md, em, ed, "front", "seg")
    for name in ("box", "sphere", "capsule", "ellipsoid", "cylinder", "mesh"):
        g = em.geom(name).id
        me = eimg[eseg[..., 0] == g].mean(0)
        mm_ = mimg[mseg[..., 0] == g].mean(0)
        assert np.abs(me - mm_).max() < 40, (name, me, mm_)


def test_update_scene_snapshot_and_modes():
    em = engine.MjModel.from_xml_path(str(SCENE))
    ed = engine.MjData(em)
    engine.mj_forward(em, ed)
    with engine.Renderer(em, 120, 160) as r:
        blank = r.render()                      # no scene yet: background only
        assert blank.shape == (120, 160, 3) and blank.dtype == np.uint8
        r.update_scene(ed, "front")
        a = r.render()
        ed.qpos[2] += 0.3                       # moving the body after the update
        engine.mj_forward(em, ed)
        np.testing.assert_array_equal(r.render(), a)
        r.update_scene(ed, "front")
        assert not np.array_equal(r.render(), a)
        out = np.zeros((120, 160, 3), np.uint8)
        assert r.render(out=out) is out
        with pytest.raises(ValueError, match="Expected `out.shape"):
            r.render(out=np.zeros((120, 160), np.uint8))
        r.enable_depth_rendering()
        assert r.render().shape == (120, 160)
        r.enable_segmentation_rendering()       # turns depth off, as mujoco's
        assert r.render().shape == (120, 160, 2)
        rgb, depth = r.render_rgbd()
        r.disable_segmentation_rendering()
        np.testing.assert_array_equal(rgb, r.render())
        r.enable_depth_rendering()
        np.testing.assert_array_equal(depth, r.render())
        # groups: the hidden group-3 box appears when group 3 is shown
        opt = engine.MjvOption()
        opt.geomgroup[3] = 1
        r.enable_segmentation_rendering()
        r.update_scene(ed, "front", opt)
        assert (r.render()[..., 0] == em.geom("hidden").id).any()
        # sites: drawn in groups 0-2 (objtype mjOBJ_SITE), group 4 only when shown
        site = int(engine.mjtObj.mjOBJ_SITE)
        r.update_scene(ed, "front")
        seg = r.render()
        for name in ("marker", "marker_box"):
            assert ((seg[..., 0] == em.site(name).id) & (seg[..., 1] == site)).any(), name
        assert not ((seg[..., 0] == em.site("hidden_site").id) & (seg[..., 1] == site)).any()
        opt = engine.MjvOption()
        opt.sitegroup[4] = 1
        r.update_scene(ed, "front", opt)
        seg = r.render()
        assert ((seg[..., 0] == em.site("hidden_site").id) & (seg[..., 1] == site)).any()
    with pytest.raises(RuntimeError, match="after close"):
        r.render()


def test_errors_as_mujoco(mj_gl):
    mm = mujoco.MjModel.from_xml_path(str(SCENE))
    md = mujoco.MjData(mm)
    em = engine.MjModel.from_xml_path(str(SCENE))
    ed = engine.MjData(em)
    for h, w in ((H, 641), (481, W)):
        with pytest.raises(ValueError) as want:
            mujoco.Renderer(mm, h, w)
        with pytest.raises(ValueError) as got:
            engine.Renderer(em, h, w)
        assert str(got.value) == str(want.value)
    mr, er = mj_gl(mm), engine.Renderer(em, H, W)
    for cam in ("nope", 3, -2):
        with pytest.raises(ValueError) as want:
            mr.update_scene(md, cam)
        with pytest.raises(ValueError) as got:
            er.update_scene(ed, cam)
        assert str(got.value) == str(want.value)


def test_near_plane_clips_as_mujoco(mj_gl):
    """A camera 1 cm above the box's top face looking across it: the face's triangles cross the
    near plane (the clipped path of raster.py). Segmentation as mujoco's; depth = mj_ray's
    where the surface is beyond the near plane, something farther where it is nearer."""
    mm, md, em, ed = _pair(SCENE)
    cams = []
    for lib in (engine, mujoco):
        cam = lib.MjvCamera()
        cam.type = int(engine.mjtCamera.mjCAMERA_FREE)
        cam.lookat[:] = ed.geom("box").xpos + np.array([0.0, 0.0, 0.12])
        cam.distance, cam.azimuth, cam.elevation = 0.03, 90.0, -20.0
        cams.append(cam)
    er = engine.Renderer(em, H, W)
    er.update_scene(ed, cams[0])
    er.enable_segmentation_rendering()
    es = er.render()
    er.enable_depth_rendering()
    depth = er.render()
    mr = mj_gl(mm)
    mr.update_scene(md, cams[1])
    mr.enable_segmentation_rendering()
    assert (mr.render() == es).all(-1).mean() >= 0.99
    near = em.vis.map.znear * em.stat.extent
    pix = np.stack(np.meshgrid(np.arange(0, H, 8), np.arange(0, W, 8), indexing="ij"),
                   -1).reshape(-1, 2)
    origins, dirs = _pixel_rays(er, em, ed, None, pix)
    group = np.array([1, 1, 1, 0, 0, 0], np.uint8)
    clipped = 0
    for (row, col), pos, v in zip(pix, origins, dirs):
        x = engine.mj_ray(em, ed, pos, v, group, 1, -1, np.zeros(1, np.int32))
        if 0 <= x < near:
            clipped += 1
            assert depth[row, col] > near
        elif x >= near * (1 + 1e-6):
            assert depth[row, col] == pytest.approx(x, rel=2e-7, abs=1e-7), (row, col)
    assert clipped > 10


def test_corner_normals_smooth_but_keep_creases():
    from engine.render.scene import _BOX_CORNERS, _BOX_FACES, corner_normals
    # a box: every corner keeps its face's normal (90 degree creases)
    cn = corner_normals(_BOX_CORNERS, _BOX_FACES)
    v = _BOX_CORNERS[_BOX_FACES]
    fn = np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0])
    fn /= np.linalg.norm(fn, axis=1, keepdims=True)
    np.testing.assert_allclose(cn, np.repeat(fn[:, None], 3, 1), atol=1e-12)
    # a gentle fold (10 degrees) is smoothed: the shared edge's corners get the average normal
    a = np.radians(10)
    vert = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0],
                     [0, 2, np.sin(a)], [1, 2, np.sin(a)]], float)
    face = np.array([[0, 1, 3], [0, 3, 2], [2, 3, 5], [2, 5, 4]])
    cn = corner_normals(vert, face)
    shared = cn[1, 1]           # vertex 3 in the first strip's second face
    assert shared[2] > 0.99 and shared[1] < 0.0 and abs(shared[1]) < np.sin(a)
    np.testing.assert_allclose(cn[0, 0], [0, 0, 1], atol=1e-12)   # vertex 0: flat part only
