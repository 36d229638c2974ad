"""engine's mj_* support functions (engine/api_support.py) against mujoco on the same model and
state: a humanoid-like chain with free, ball, hinge and slide joints, contacts and a keyframe,
after a few random steps (so rotations are not identity). Tolerance 1e-9 (same formulas,
summation order may differ) unless stated."""
from __future__ import annotations

import numpy as np
import pytest

from oracle import mujoco

import engine

XML = """
<mujoco>
  <option cone="elliptic"/>
  <worldbody>
    <geom type="plane" size="5 5 .1"/>
    <body name="torso" pos="0 0 .09">
      <freejoint/>
      <geom type="capsule" size=".1" fromto="0 0 0 0 0 .3"/>
      <body name="arm" pos=".15 0 .2">
        <joint type="ball"/>
        <geom type="capsule" size=".05" fromto="0 0 0 .3 0 0"/>
        <body name="hand" pos=".3 0 0">
          <joint name="elbow" type="hinge" axis="0 1 0"/>
          <joint type="slide" axis="1 0 0" range="-.1 .1"/>
          <geom type="box" size=".05 .04 .03"/>
        </body>
      </body>
    </body>
    <body mocap="true" name="target" pos="1 0 1"/>
  </worldbody>
  <actuator><motor joint="elbow" gear="1" name="a0" ctrlrange="-1 1"/></actuator>
  <keyframe><key name="k0" qpos="0 0 .6 1 0 0 0 1 0 0 0 0 0"/></keyframe>
</mujoco>
"""
TOL = dict(rtol=1e-9, atol=1e-9)


@pytest.fixture
def pair():
    ms = mujoco.MjModel.from_xml_string(XML), engine.MjModel.from_xml_string(XML)
    ds = mujoco.MjData(ms[0]), engine.MjData(ms[1])
    rng = np.random.default_rng(0)
    qvel = 0.1 * rng.standard_normal(ms[0].nv)
    qpos = ms[0].qpos0.copy()
    qpos[3:7] = (0.99, 0.05, -0.08, 0.1)          # tilted torso, still touching the floor
    qpos[7:11] = rng.standard_normal(4)          # ball joint
    qpos[11:13] = (0.4, 0.05)
    for m, d in zip(ms, ds):
        # one forward on a set state (no trajectory: contact steps amplify rounding)
        d.qpos[:] = qpos
        d.qvel[:] = qvel
        d.ctrl[:] = 0.3
        lib = mujoco if m is ms[0] else engine
        lib.mj_normalizeQuat(m, d.qpos)
        lib.mj_forward(m, d)
    return ms, ds


def both(name, ms, ds, *args, model_only=False, data_only=False):
    out = []
    for lib, m, d in ((mujoco, ms[0], ds[0]), (engine, ms[1], ds[1])):
        a = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
        pre = [m] if not data_only else []
        pre += [d] if not model_only else []
        out.append((getattr(lib, name)(*pre, *a), a))
    return out


def test_state_nonzero(pair):
    (ms, ds) = pair
    np.testing.assert_allclose(ds[1].qpos, ds[0].qpos, atol=1e-8)
    assert ds[0].nefc > 0 and ds[1].nefc == ds[0].nefc


def test_set_keyframe_normalize(pair):
    ms, ds = pair
    for lib, m, d in ((mujoco, ms[0], ds[0]), (engine, ms[1], ds[1])):
        d.mocap_pos[0] = (0.1, 0.2, 0.3)
        lib.mj_setKeyframe(m, d, 0)
    for f in ("key_time", "key_qpos", "key_qvel", "key_act", "key_ctrl", "key_mpos",
              "key_mquat"):
        np.testing.assert_allclose(np.asarray(getattr(ms[1], f)).reshape(-1),
                                   np.asarray(getattr(ms[0], f)).reshape(-1), atol=1e-8,
                                   err_msg=f"mismatch: {f}")
    with pytest.raises(IndexError):
        engine.mj_setKeyframe(ms[1], ds[1], 1)
    q = np.random.default_rng(1).standard_normal(ms[0].nq)
    (_, a), (_, b) = both("mj_normalizeQuat", ms, ds, q, model_only=True)
    np.testing.assert_allclose(b[0], a[0], **TOL)


def test_jacobian_products(pair):
    ms, ds = pair
    nefc, nv = ds[0].nefc, ms[0].nv
    rng = np.random.default_rng(2)
    v, w = rng.standard_normal(nv), rng.standard_normal(nefc)
    (_, a), (_, b) = both("mj_mulJacVec", ms, ds, np.zeros(nefc), v)
    # constraint rows may be ordered alike (same pipeline); compare sorted as a fallback check
    np.testing.assert_allclose(b[0], a[0], rtol=1e-7, atol=1e-7)
    (_, a), (_, b) = both("mj_mulJacTVec", ms, ds, np.zeros(nv), w)
    np.testing.assert_allclose(b[0], a[0], rtol=1e-7, atol=1e-7)


def test_apply_ft_and_mass(pair):
    ms, ds = pair
    args = (np.array([1.0, -2, 0.5]), np.array([0.1, 0.2, -0.3]), np.array([0.4, 0.1, 0.9]), 3,
            np.ones(ms[0].nv))
    (_, a), (_, b) = both("mj_applyFT", ms, ds, *args)
    np.testing.assert_allclose(b[4], a[4], rtol=1e-8, atol=1e-8)
    assert engine.mj_getTotalmass(ms[1]) == pytest.approx(mujoco.mj_getTotalmass(ms[0]),
                                                           rel=1e-12)
    mujoco.mj_setTotalmass(ms[0], 7.5)
    engine.mj_setTotalmass(ms[1], 7.5)
    for f in ("body_mass", "body_inertia", "body_subtreemass"):
        np.testing.assert_allclose(getattr(ms[1], f), getattr(ms[0], f), rtol=1e-12,
                                   err_msg=f"mismatch: {f}")


def test_queries_and_defaults(pair):
    ms, _ = pair
    for solver in (0, 1, 2):
        for cone in (0, 1):
            for jac in (0, 1, 2):
                for m in ms:
                    m.opt.solver, m.opt.cone, m.opt.jacobian = solver, cone, jac
                for f in ("mj_isDual", "mj_isPyramidal", "mj_isSparse"):
                    assert getattr(engine, f)(ms[1]) == getattr(mujoco, f)(ms[0]), f
    a = [np.zeros(2), np.zeros(5)]
    b = [np.zeros(2), np.zeros(5)]
    mujoco.mj_defaultSolRefImp(*a)
    engine.mj_defaultSolRefImp(*b)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    ms[1].opt.timestep = 0.5
    ms[1].opt.gravity = (1, 2, 3)
    engine.mj_defaultOption(ms[1].opt)
    ref = mujoco.MjOption()
    for f in ("timestep", "gravity", "wind", "impratio", "tolerance", "iterations",
              "integrator", "cone", "solver", "jacobian", "disableflags", "enableflags",
              "noslip_iterations", "ls_iterations", "density", "viscosity", "o_margin"):
        np.testing.assert_allclose(getattr(ms[1].opt, f), getattr(ref, f), err_msg=f)


@pytest.mark.parametrize("sameframe", range(5))
def test_local2global(pair, sameframe):
    ms, ds = pair
    pos, quat = np.array([0.1, -0.2, 0.3]), np.array([0.8, 0.2, -0.1, 0.3])
    quat /= np.linalg.norm(quat)
    (_, a), (_, b) = both("mj_local2Global", ms, ds, np.zeros(3), np.zeros(9), pos, quat, 3,
                          sameframe, data_only=True)
    np.testing.assert_allclose(b[0], a[0], rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(b[1], a[1], rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("body", [1, 2, 3])
def test_angmom(pair, body):
    ms, ds = pair
    nv = ms[0].nv
    pt = ds[0].xpos[body] + np.array([0.05, -0.02, 0.1])
    assert pt.shape == (3,)
    (_, a), (_, b) = both("mj_angmomMat", ms, ds, np.zeros((3, nv)), body)
    np.testing.assert_allclose(b[0], a[0], rtol=1e-7, atol=1e-7)


def test_fwd_kinematics(pair):
    ms, ds = pair
    for lib, m, d in ((mujoco, ms[0], ds[0]), (engine, ms[1], ds[1])):
        d.qpos[7:11] = (0.9, 0.1, 0.3, -0.2)
        d.xpos[:] = 0
        lib.mj_fwdKinematics(m, d)
    for f in ("xpos", "xquat", "xipos", "subtree_com", "geom_xpos", "cdof"):
        np.testing.assert_allclose(getattr(ds[1], f), getattr(ds[0], f), rtol=1e-7, atol=1e-7,
                                   err_msg=f"mismatch: {f}")
