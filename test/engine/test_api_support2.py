"""More of the drop-in API against mujoco 4.0.0: mj_multiRay, mj_invPosition/Velocity/
Constraint, mj_setConst, mj_extractState, mj_resetCtrl, mj_defaultVisual, mj_insideSite, the
error classes and constants. Tolerances: 1e-12 where the same arithmetic runs (rays, inverse
stages), 1e-9 for mj_setConst's inverse-inertia solves."""
import numpy as np
import pytest

import engine
import mujoco

MODELS = "/work/shared/models/mujoco/model"
SCENE = """
<mujoco>
  <worldbody>
    <geom type="plane" size="5 5 .1"/>
    <body pos="0 0 1">
      <freejoint/>
      <geom type="box" size=".2 .1 .3"/>
      <site name="s_sphere" type="sphere" size=".15"/>
      <site name="s_box" type="box" size=".1 .2 .3" pos=".3 0 0" euler="0 30 0"/>
      <site name="s_caps" type="capsule" size=".1 .2" pos="0 .3 0"/>
      <site name="s_cyl" type="cylinder" size=".1 .2" pos="0 -.3 0"/>
      <site name="s_ell" type="ellipsoid" size=".1 .2 .3" pos="0 0 .5"/>
    </body>
    <body pos="3 0 0.5">
      <geom type="sphere" size=".5"/>
    </body>
    <body pos="0 3 0.5">
      <joint type="hinge" axis="0 1 0"/>
      <geom type="capsule" size=".1 .4" group="3"/>
      <body pos="0 0 .5"><joint axis="1 0 0"/><geom type="cylinder" size=".2 .1"/></body>
    </body>
  </worldbody>
</mujoco>
"""


def _pair(xml=None, path=None):
    if path:
        return engine.MjModel.from_xml_path(path), mujoco.MjModel.from_xml_path(path)
    return engine.MjModel.from_xml_string(xml), mujoco.MjModel.from_xml_string(xml)


@pytest.mark.parametrize("cutoff", [100.0, 2.0, 0.6])
@pytest.mark.parametrize("normals", [False, True])
def test_multi_ray(cutoff, normals):
    me, mm = _pair(SCENE)
    de, dm = engine.MjData(me), mujoco.MjData(mm)
    engine.mj_forward(me, de)
    mujoco.mj_forward(mm, dm)
    rng = np.random.default_rng(1)
    nray = 400
    vec = rng.standard_normal((nray, 3))
    vec[:, 2] -= 0.5
    pnt = np.array([0.5, 0.4, 1.5])
    res = {}
    for mod, m, d in ((engine, me, de), (mujoco, mm, dm)):
        for group in (None, np.array([1, 1, 1, 0, 1, 1], np.uint8)):
            gid = np.zeros(nray, np.int32)
            dist = np.zeros(nray)
            nrm = np.zeros(3 * nray) if normals else None
            mod.mj_multiRay(m, d, pnt, vec.reshape(-1), group, 1, -1, gid, dist, nrm, nray,
                            cutoff)
            res.setdefault(mod.__name__, []).append((gid, dist, nrm))
    for (ge, de_, ne), (gm, dm_, nm) in zip(res["engine"], res["mujoco"]):
        np.testing.assert_array_equal(ge, gm)
        np.testing.assert_allclose(de_, dm_, rtol=1e-12, atol=1e-12)
        if normals:
            np.testing.assert_allclose(ne, nm, atol=1e-9)
    hits = (res["mujoco"][0][0] >= 0).sum()
    assert 0 < hits < nray          # the scene is hit and missed


def test_inverse_stages():
    me, mm = _pair(path=f"{MODELS}/humanoid/humanoid.xml")
    out = {}
    for mod, m in ((engine, me), (mujoco, mm)):
        d = mod.MjData(m)
        d.qpos[:] = m.key_qpos[0] if m.nkey else m.qpos0
        d.qpos[2] = 0.7
        d.qpos[7:] = 0.4           # some joints at their limits
        rng = np.random.default_rng(2)
        d.qvel[:] = 0.1 * rng.standard_normal(m.nv)
        d.qacc[:] = rng.standard_normal(m.nv)
        mod.mj_invPosition(m, d)
        mod.mj_invVelocity(m, d)
        mod.mj_invConstraint(m, d)
        out[mod.__name__] = (d.qfrc_constraint.copy(), d.efc_force.copy(), d.qfrc_bias.copy(),
                             d.nefc)
    e, m_ = out["engine"], out["mujoco"]
    assert e[3] == m_[3] and m_[3] > 0
    for a, b in zip(e[:3], m_[:3]):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)


SETCONST_FIELDS = ("actuator_acc0", "body_invweight0", "body_subtreemass", "cam_pos0",
                   "cam_poscom0", "dof_M0", "dof_invweight0", "dof_length", "geom_sameframe",
                   "light_poscom0", "tendon_invweight0", "tendon_length0", "actuator_length0",
                   "eq_data", "site_sameframe")


@pytest.mark.parametrize("path", ["humanoid/humanoid.xml", "car/car.xml"])
def test_set_const(path):
    me, mm = _pair(path=f"{MODELS}/{path}")
    for m in (me, mm):
        m.body_mass[2] *= 2.5
        m.body_inertia[2] *= 1.5
        m.geom_pos[3] += (0.01, 0.02, 0.0)
        m.body_pos[3] += (0.0, 0.0, 0.05)
        m.dof_armature[:] += 0.01
    de, dm = engine.MjData(me), mujoco.MjData(mm)
    de.qpos[:] = dm.qpos[:] = 0.1
    before = {f: getattr(mm, f).copy() for f in SETCONST_FIELDS}
    engine.mj_setConst(me, de)
    mujoco.mj_setConst(mm, dm)
    changed = [f for f in SETCONST_FIELDS if not np.array_equal(before[f], getattr(mm, f))]
    assert "dof_M0" in changed and "body_subtreemass" in changed
    for f in SETCONST_FIELDS:
        np.testing.assert_allclose(getattr(me, f), getattr(mm, f), rtol=1e-9, atol=1e-12,
                                   err_msg=f)
    for f in ("extent", "meaninertia", "meanmass"):
        assert getattr(me.stat, f) == pytest.approx(getattr(mm.stat, f), rel=1e-12)
    np.testing.assert_allclose(de.qpos, dm.qpos, atol=1e-15)
    np.testing.assert_allclose(de.xpos, dm.xpos, atol=1e-12)


def test_extract_state():
    me, mm = _pair(path=f"{MODELS}/humanoid/humanoid.xml")
    S = mujoco.mjtState
    src_sig = int(S.mjSTATE_FULLPHYSICS)
    for mod, m in ((engine, me), (mujoco, mm)):
        d = mod.MjData(m)
        d.qvel[:] = np.arange(m.nv) * 0.1
        d.time = 2.5
        src = np.zeros(mod.mj_stateSize(m, src_sig))
        mod.mj_getState(m, d, src, src_sig)
        for sig in (int(S.mjSTATE_QVEL), int(S.mjSTATE_TIME | S.mjSTATE_QPOS)):
            dst = np.zeros(mod.mj_stateSize(m, sig))
            mod.mj_extractState(m, src, src_sig, dst, sig)
            ref = np.zeros_like(dst)
            mod.mj_getState(m, d, ref, sig)
            np.testing.assert_array_equal(dst, ref)
    # a component missing from the source: mujoco 4.0.0 ends the process (mju_error in a
    # binding without a handler, measured); the engine raises
    with pytest.raises(ValueError, match="subset"):
        engine.mj_extractState(me, np.zeros(me.nv), int(S.mjSTATE_QVEL), np.zeros(me.nq),
                               int(S.mjSTATE_QPOS))


def test_inside_site():
    me, mm = _pair(SCENE)
    de, dm = engine.MjData(me), mujoco.MjData(mm)
    engine.mj_forward(me, de)
    mujoco.mj_forward(mm, dm)
    rng = np.random.default_rng(3)
    pts = rng.uniform(-0.6, 0.6, (2000, 3)) + (0, 0, 1)
    for s in range(me.nsite):
        a = [engine.mj_insideSite(me, de, s, p) for p in pts]
        b = [mujoco.mj_insideSite(mm, dm, s, p) for p in pts]
        assert a == b and 0 < sum(b) < len(b)
    with pytest.raises(IndexError):
        engine.mj_insideSite(me, de, me.nsite, pts[0])


def test_reset_ctrl_default_visual_and_constants():
    me, mm = _pair(path=f"{MODELS}/humanoid/humanoid.xml")
    for mod, m in ((engine, me), (mujoco, mm)):
        d = mod.MjData(m)
        d.ctrl[:] = 0.7
        mod.mj_resetCtrl(m, d)
        assert not d.ctrl.any()
        m.vis.headlight.ambient[:] = 0.9
        m.vis.global_.offwidth = 33
        mod.mj_defaultVisual(m.vis)
        assert m.vis.global_.offwidth == 640
    np.testing.assert_array_equal(me.vis.headlight.ambient, mm.vis.headlight.ambient)
    assert engine.MJTNUM_BYTES == mujoco.MJTNUM_BYTES
    assert engine.MJTNUM_DTYPE == mujoco.MJTNUM_DTYPE
    assert type(me.vis.headlight) is engine.MjVisualHeadlight
    assert type(me.vis.rgba) is engine.MjVisualRgba
    me.opt.integrator = int(mujoco.mjtIntegrator.mjINT_RK4)
    with pytest.raises(engine.FatalError, match="RK4"):
        engine.mjd_transitionFD(me, engine.MjData(me), 1e-6, 0, None, None, None, None)


@pytest.mark.parametrize("path", ["humanoid/humanoid.xml", "car/car.xml",
                                  "slider_crank/slider_crank.xml"])
def test_jac_dot(path):
    me, mm = _pair(path=f"{MODELS}/{path}")
    rng = np.random.default_rng(4)
    qvel = rng.standard_normal(me.nv)
    res = {}
    for mod, m in ((engine, me), (mujoco, mm)):
        d = mod.MjData(m)
        d.qvel[:] = qvel
        for _ in range(5):
            mod.mj_step(m, d)
        out = []
        for body in range(m.nbody):
            jp, jr = np.zeros((3, m.nv)), np.zeros((3, m.nv))
            mod.mj_jacDot(m, d, jp, jr, d.xpos[body] + (0.05, -0.02, 0.03), body)
            out.append((jp, jr))
        res[mod.__name__] = out
    for (a, b), (c, e) in zip(res["engine"], res["mujoco"]):
        np.testing.assert_allclose(a, c, atol=1e-10)
        np.testing.assert_allclose(b, e, atol=1e-10)
    assert max(np.abs(c).max() for c, _ in res["mujoco"]) > 0.1




def test_set_length_range():
    """mj_setLengthRange on each muscle of a tendon model with its range cleared, with the
    model's own <lengthrange inttotal="30"> options, against the ranges mujoco's compiler
    computed with those options (the solver converged tightly: 1e-9 relative, see
    test_lengthrange.py). mujoco's own mj_setLengthRange is not called: on this model, inside
    pytest, mujoco 4.0.0 was seen looping without end on instability warnings (QPOS/QACC
    resets); the engine ends such a run with its "Unstable lengthrange simulation" error when
    an automatic reset sends time back."""
    from pathlib import Path
    text = (Path(__file__).resolve().parents[1] / "models/lengthrange_tendons.xml").read_text()
    text = text.replace("<option", '<option tolerance="1e-14"', 1)
    me, mm = engine.MjModel.from_xml_string(text), mujoco.MjModel.from_xml_string(text)
    oe, om = engine.MjLROpt(), mujoco.MjLROpt()
    engine.mj_defaultLROpt(oe)
    mujoco.mj_defaultLROpt(om)
    for f in ("mode", "useexisting", "uselimit", "accel", "maxforce", "timeconst", "timestep",
              "inttotal", "interval", "tolrange"):
        assert getattr(oe, f) == getattr(om, f), f
    oe.inttotal = 30
    for i in range(me.nu):
        me.actuator_lengthrange[i] = 0
        engine.mj_setLengthRange(me, engine.MjData(me), i, oe)
    np.testing.assert_allclose(me.actuator_lengthrange, mm.actuator_lengthrange, rtol=1e-9,
                               atol=1e-12)
    # not selected by the mode: left alone
    oe.mode = 0
    me.actuator_lengthrange[0] = 0
    engine.mj_setLengthRange(me, engine.MjData(me), 0, oe)
    assert not me.actuator_lengthrange[0].any()


def test_add_contact():
    me, mm = _pair(SCENE)
    out = {}
    for mod, m in ((engine, me), (mujoco, mm)):
        d = mod.MjData(m)
        d.qpos[2] = 0.25                    # the box on the floor
        mod.mj_forward(m, d)
        n0 = d.ncon
        assert n0 > 0
        con = mod.MjContact()
        con.dist, con.pos, con.geom1, con.geom2 = -0.01, (1, 2, 3), 0, 1
        con.frame[:] = (0, 0, 1, 1, 0, 0, 0, 1, 0)
        con.friction[:] = (1, 1, .005, .0001, .0001)
        con.dim = 3
        assert mod.mj_addContact(m, d, con) == 0
        out[mod.__name__] = (n0, d.ncon, d.contact.dist.copy(), d.contact.pos.copy(),
                             d.contact.geom.copy(), d.contact.frame.copy())
    for a, b in zip(out["engine"], out["mujoco"]):
        np.testing.assert_allclose(a, b, atol=1e-12)


def test_upright_capsule_contact_frame():
    """A capsule standing upright on a plane: MuJoCo's first tangent is the capsule's axis,
    parallel to the normal; made orthogonal it vanishes and mju_normalize3 makes it (1, 0, 0).
    (Found with mj_addContact's test: the engine left both tangents zero, so the contact had
    no friction rows' directions.)"""
    xml = """<mujoco><worldbody><geom type="plane" size="5 5 .1"/>
      <body pos="0 0 .5"><freejoint/><geom type="capsule" size=".1 .4"/></body>
      </worldbody></mujoco>"""
    me, mm = _pair(xml)
    de, dm = engine.MjData(me), mujoco.MjData(mm)
    for _ in range(50):
        engine.mj_step(me, de)
        mujoco.mj_step(mm, dm)
    assert dm.ncon == de.ncon == 1
    np.testing.assert_allclose(de.contact.frame, dm.contact.frame, atol=1e-12)
    np.testing.assert_allclose(de.qpos, dm.qpos, atol=1e-12)
