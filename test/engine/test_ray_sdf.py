"""Rays on sdf geoms (mujoco's mj_raySdf, seed 002 "sdf"): mj_ray, mj_multiRay and the
rangefinder against mujoco 4.0.0 on its own models (test/engine/testdata/ray/sdf.xml, the
model/plugin/sdf gear and nut/bolt).

Measured engine - mujoco over 3000 random rays of random lengths |vec| in [0.2, 3] x the
distance: the same hits, geoms and misses; x to 8.9e-16 (in |vec| units: mujoco 4.0.0 divides
the marched length by |vec|); normals to 4.4e-15 on the torus' analytic gradient. Tolerances:
X_TOL 1e-12, N_TOL 1e-9 (the gear's and bolt's forward-difference gradients).
"""
from __future__ import annotations

import os

import mujoco
import numpy as np
import pytest

import engine

MODELS = "/work/shared/models/mujoco/"
RAY_SDF = MODELS + "test/engine/testdata/ray/sdf.xml"
SDF = MODELS + "model/plugin/sdf/"
needs_models = pytest.mark.skipif(not os.path.exists(RAY_SDF), reason="MuJoCo's models not found")
X_TOL = 1e-12
N_TOL = 1e-9


def _pair(path):
    e, m = engine.MjModel.from_xml_path(path), mujoco.MjModel.from_xml_path(path)
    ed, md = engine.MjData(e), mujoco.MjData(m)
    engine.mj_forward(e, ed)
    mujoco.mj_forward(m, md)
    return e, ed, m, md


def _rays(m, d, n, seed):
    """n (pnt, vec) aimed near the sdf geoms, of random lengths."""
    rng = np.random.default_rng(seed)
    sdf = np.nonzero(m.geom_type == mujoco.mjtGeom.mjGEOM_SDF)[0]
    out = []
    for _ in range(n):
        c = d.geom_xpos[rng.choice(sdf)]
        p = c + rng.normal(size=3) * 2 * m.geom_rbound[sdf].max()
        v = (c + rng.normal(size=3) * 0.5 * m.geom_rbound[sdf].max() - p) * rng.uniform(0.2, 3)
        out.append((p, v))
    return out


@needs_models
@pytest.mark.parametrize("path,n", [(RAY_SDF, 1500), (SDF + "gear.xml", 300),
                                    (SDF + "nutbolt.xml", 300)])
def test_mj_ray_sdf_matches_mujoco(path, n):
    e, ed, m, md = _pair(path)
    ge, gm = np.zeros(1, np.int32), np.zeros(1, np.int32)
    ne, nm = np.zeros(3), np.zeros(3)
    hits = 0
    for p, v in _rays(m, md, n, 1):
        x = mujoco.mj_ray(m, md, p, v, None, 1, -1, gm, nm)
        y = engine.mj_ray(e, ed, p, v, None, 1, -1, ge, ne)
        assert ge[0] == gm[0], (p, v, x, y)
        assert abs(x - y) <= X_TOL, (p, v, x, y)
        np.testing.assert_allclose(ne, nm, atol=N_TOL)
        hits += m.geom_type[gm[0]] == mujoco.mjtGeom.mjGEOM_SDF if gm[0] >= 0 else 0
    assert hits > n // 10


@needs_models
def test_mj_multiRay_sdf_matches_mujoco():
    e, ed, m, md = _pair(RAY_SDF)
    rays = _rays(m, md, 200, 2)
    pnt = rays[0][0]
    vec = np.array([v + p - pnt for p, v in rays]).ravel()
    out = []
    for lib, mm, dd in ((engine, e, ed), (mujoco, m, md)):
        gid, dist, nrm = np.zeros(200, np.int32), np.zeros(200), np.zeros(600)
        lib.mj_multiRay(mm, dd, pnt, vec, None, 1, -1, gid, dist, nrm, 200, mujoco.mjMAXVAL)
        out.append((gid, dist, nrm))
    np.testing.assert_array_equal(out[0][0], out[1][0])
    np.testing.assert_allclose(out[0][1], out[1][1], atol=X_TOL)
    np.testing.assert_allclose(out[0][2], out[1][2], atol=N_TOL)
    assert (out[1][0] >= 0).sum() > 20


@needs_models
def test_rangefinder_on_sdf_matches_mujoco():
    """The model's rangefinder (distance and normal) swinging over the torus: 300 steps."""
    e, ed, m, md = _pair(RAY_SDF)
    seen = 0
    for _ in range(300):
        engine.mj_step(e, ed)
        mujoco.mj_step(m, md)
        np.testing.assert_allclose(ed.sensordata, md.sensordata, atol=1e-12)
        seen += md.sensordata[0] >= 0
    assert seen > 10


@needs_models
def test_ray_on_mesh_sdf_raises():
    """An sdf geom made from a mesh file (cow.xml; mujoco builds an octree) is not built: a
    ray that reaches its box raises NotImplementedError naming it."""
    e = engine.MjModel.from_xml_path(SDF + "cow.xml")
    ed = engine.MjData(e)
    engine.mj_kinematics(e, ed)     # (mj_forward would reach the cows' collisions)
    g = engine.mj_name2id(e, engine.mjtObj.mjOBJ_GEOM, "cow1")
    with pytest.raises(NotImplementedError, match="sdf"):
        engine.mj_ray(e, ed, ed.geom_xpos[g] + [0, 0, 3], np.array([0, 0, -1.0]), None, 1, -1)
