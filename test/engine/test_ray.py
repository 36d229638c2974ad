"""Ray casting (mju_rayGeom, mj_ray, rangefinder) against the official mujoco."""
import numpy as np
import pytest

from oracle import mujoco, shared_model

import engine
from engine import ray

TYPES = {"plane": 0, "sphere": 2, "capsule": 3, "ellipsoid": 4, "cylinder": 5, "box": 6}


@pytest.mark.parametrize("gtype", list(TYPES))
def test_ray_geom_matches_mujoco(gtype):
    rng = np.random.default_rng(TYPES[gtype])
    hits = 0
    for _ in range(400):
        size = rng.uniform(0.1, 1.0, 3)
        pos = rng.normal(size=3) * 0.3
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        mat = np.zeros(9)
        mujoco.mju_quat2Mat(mat, q)
        # half the rays start near/inside the geom, half far away aiming at it
        pnt = pos + rng.normal(size=3) * (0.3 if rng.random() < 0.5 else 3.0)
        vec = pos - pnt + rng.normal(size=3) * 0.5
        if rng.random() < 0.3:
            vec *= rng.uniform(0.1, 5.0)
        want = mujoco.mju_rayGeom(pos, mat, size, pnt, vec, TYPES[gtype])
        got = ray.mju_rayGeom(pos, mat, size, pnt, vec, TYPES[gtype])
        hits += want >= 0
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12), (gtype, pos, q, size, pnt, vec)
    assert hits > 50  # the sample exercises hits, not only misses


SCENE = """<mujoco><default><geom contype="0" conaffinity="0"/></default><asset><mesh name="tet" vertex="0 0 0  .3 0 0  0 .3 0  0 0 .3"/></asset>
<worldbody><geom type="plane" size="2 2 .1"/>
 <body pos="0 0 1"><freejoint/><geom type="box" size=".1 .2 .3" rgba="1 1 1 0"/>
  <site name="down" pos="0 0 -.4" zaxis="0 0 -1"/><site name="side" pos=".2 0 0" zaxis="1 0 0"/>
 </body>
 <body pos="0 0 2" euler="10 20 30"><geom type="sphere" size=".1" group="2"/>
  <geom type="capsule" size=".05 .2" pos=".5 0 0"/></body>
 <body pos=".8 .1 1" euler="30 0 10"><geom type="mesh" mesh="tet"/></body>
 <body pos="-1 0 1"><geom type="cylinder" size=".2 .3"/><geom type="ellipsoid" size=".1 .2 .3" pos="0 .5 0"/></body>
</worldbody>
<sensor><rangefinder site="down"/><rangefinder site="side"/><rangefinder site="side" cutoff=".3"/></sensor>
</mujoco>"""


def test_mj_ray_and_rangefinder_match_mujoco():
    mjm = mujoco.MjModel.from_xml_string(SCENE)
    mjd = mujoco.MjData(mjm)
    m = engine.MjModel.from_xml_string(SCENE)
    d = engine.MjData(m)
    rng = np.random.default_rng(0)
    for trial in range(20):
        mjd.qpos[:] = d.qpos[:] = np.r_[rng.normal(size=3) * 0.3 + [0, 0, 1],
                                        rng.normal(size=4)]
        mujoco.mj_forward(mjm, mjd)
        engine.mj_forward(m, d)
        np.testing.assert_allclose(d.sensordata, mjd.sensordata, rtol=1e-9, atol=1e-12)
        for _ in range(20):
            pnt = rng.normal(size=3) * 1.5 + [0, 0, 1]
            vec = rng.normal(size=3)
            for group, static, excl in ((None, 1, -1), (np.array([1, 1, 0, 1, 1, 1], np.uint8), 0, 1)):
                gw, gg = np.array([-1], np.int32), np.array([-1], np.int32)
                nw, ng = np.full(3, 7.0), np.full(3, 7.0)
                want = mujoco.mj_ray(mjm, mjd, pnt, vec, group, static, excl, gw, nw)
                got = engine.mj_ray(m, d, pnt, vec, group, static, excl, gg, ng)
                assert got == pytest.approx(want, rel=1e-9, abs=1e-12)
                assert gg[0] == gw[0]
                np.testing.assert_allclose(ng, nw, atol=1e-9)


def test_mj_ray_on_menagerie_meshes():
    path = shared_model("menagerie/trossen_wx250s/wx250s.xml")
    mjm = mujoco.MjModel.from_xml_path(str(path))
    m = engine.MjModel.from_xml_path(str(path))
    mjd, d = mujoco.MjData(mjm), engine.MjData(m)
    mjm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    m.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    mujoco.mj_kinematics(mjm, mjd)
    engine.mj_kinematics(m, d)
    rng = np.random.default_rng(1)
    nhit = 0
    for _ in range(100):
        pnt = rng.normal(size=3) * 0.5 + [0, 0, 0.4]
        vec = -pnt + rng.normal(size=3) * 0.2
        gw, gg = np.array([-1], np.int32), np.array([-1], np.int32)
        nw, ng = np.zeros(3), np.zeros(3)
        want = mujoco.mj_ray(mjm, mjd, pnt, vec, None, 1, -1, gw, nw)
        got = engine.mj_ray(m, d, pnt, vec, None, 1, -1, gg, ng)
        nhit += want >= 0
        # mujoco keeps mesh vertices in float32 (1e-7 relative)
        assert got == pytest.approx(want, rel=1e-6, abs=1e-9) and gg[0] == gw[0]
        np.testing.assert_allclose(ng, nw, atol=1e-6)
        if gw[0] >= 0 and mjm.geom_type[gw[0]] == mujoco.mjtGeom.mjGEOM_MESH:
            nmw, nmg = np.zeros(3), np.zeros(3)
            xw = mujoco.mj_rayMesh(mjm, mjd, gw[0], pnt, vec, nmw)
            xg = engine.mj_rayMesh(m, d, gw[0], pnt, vec, nmg)
            assert xg == pytest.approx(xw, rel=1e-6, abs=1e-9)
            np.testing.assert_allclose(nmg, nmw, atol=1e-6)
    assert nhit > 10


_TYPES = ("sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh")


@pytest.mark.parametrize("gtype", _TYPES)
def test_mj_ray_normal_from_outside_and_inside(gtype):
    """mj_ray's normal is the hit surface's outward normal, also for rays leaving a solid."""
    xml = f"""<mujoco><asset><mesh name="m" scale=".1 .12 .08"
        vertex="-1 -1 -1 1 -1 -1 1 1 -1 -1 1 -1 -1 -1 1 1 -1 1 1 1 1 -1 1 1"/></asset>
      <worldbody><body euler="20 30 40"><geom type="{gtype}" size=".1 .15 .08"
        {'mesh="m"' if gtype == "mesh" else ""}/></body></worldbody></mujoco>"""
    mjm, m = mujoco.MjModel.from_xml_string(xml), engine.MjModel.from_xml_string(xml)
    mjd, d = mujoco.MjData(mjm), engine.MjData(m)
    mujoco.mj_forward(mjm, mjd)
    engine.mj_kinematics(m, d)
    rng = np.random.default_rng(len(gtype))
    nhit = 0
    for it in range(400):
        pnt = rng.normal(size=3) * (0.02 if it % 2 else 0.6)
        vec = rng.normal(size=3) * 0.05 - pnt
        nw, ng = np.zeros(3), np.zeros(3)
        gw, gg = np.array([-1], np.int32), np.array([-1], np.int32)
        want = mujoco.mj_ray(mjm, mjd, pnt, vec, None, 1, -1, gw, nw)
        got = engine.mj_ray(m, d, pnt, vec, None, 1, -1, gg, ng)
        # mesh vertices are float32 in mujoco: 1e-7 relative on the hit, more on the normal
        tol = 1e-6 if gtype == "mesh" else 1e-9
        assert got == pytest.approx(want, rel=tol, abs=1e-12) and gg[0] == gw[0]
        np.testing.assert_allclose(ng, nw, atol=tol, err_msg=f"ray {it}")
        nhit += want >= 0
    assert nhit > 300
