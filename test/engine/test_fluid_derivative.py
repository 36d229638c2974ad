"""Fluid-force velocity derivatives (engine.derivative) and the implicit / implicitfast
integrators with fluid forces, against finite differences and the official mujoco.

Measured on MuJoCo 4.0.0 (and asserted here):
- qDeriv holds d(qfrc_fluid)/d(qvel) = sum over bodies (inertia-box model) or geoms (ellipsoid
  model) of Jl' B Jl, B the exact 6x6 derivative of the local force w.r.t. the local velocity.
- implicitfast replaces each B by (B + B')/2, except on kinematic trees moved by one free joint
  only (floating bodies), where B is kept and the step equals implicit's (the gyroscopic
  derivative enters the solve but not qDeriv); this holds without fluid forces too.
- fluid forces and their derivatives exist unless both springs and dampers are disabled (then
  mj_passive adds no passive force at all: no gravity compensation either).
"""
import numpy as np
import pytest

from oracle import mujoco, shared_model, TEST_MODELS, GYM, DM
from test_forward import both
from test_passive import load, randomise

import engine
from engine.derivative import (ellipsoid_fluid_deriv, fluid_deriv_kernel,
                               inertia_box_fluid_deriv)
from engine.passive import _ellipsoid_force, _inertia_box_force

INTEGRATORS = ["mjINT_IMPLICIT", "mjINT_IMPLICITFAST"]


def rel_err(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return np.abs(a - b).max(initial=0) / max(1.0, np.abs(b).max(initial=0))


def qderiv_err(a, b):
    """max |a - b| relative to max |b| (qDeriv entries are often far below 1)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    return np.abs(a - b).max(initial=0) / max(1e-300, np.abs(b).max(initial=0))


# ---------------------------------------------------------------------------------------------
# the kernels alone against finite differences
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(6))
def test_local_derivatives_match_finite_differences(seed):
    rng = np.random.default_rng(seed)
    lvel = rng.normal(size=6)
    rho, mu = rng.uniform(0.5, 1500), rng.uniform(1e-5, 0.1)
    # ellipsoid model; seed 0 is a thin plate (den far below MINVAL, still a valid state)
    s = np.array([0.025, 0.01, 1e-4]) if seed == 0 else rng.uniform(0.02, 0.3, 3)
    prm = np.r_[rng.uniform(0.3, 1.5), rng.uniform(0.1, 2, 5), rng.uniform(0.001, 0.1, 6)]
    B = np.zeros((6, 6))
    ellipsoid_fluid_deriv(lvel, rho, mu, s, prm, B, np.zeros((5, 3)))
    f, g, F = np.zeros(6), np.zeros(6), np.zeros((6, 6))
    h = 1e-6
    for j in range(6):
        lp, lm = lvel.copy(), lvel.copy()
        lp[j] += h
        lm[j] -= h
        _ellipsoid_force(lp, rho, mu, s, prm, f)
        _ellipsoid_force(lm, rho, mu, s, prm, g)
        F[:, j] = (f - g) / (2 * h)
    assert qderiv_err(B, F) < 1e-7
    # inertia-box model
    mass, inertia = rng.uniform(0.1, 2), rng.uniform(0.01, 0.1, 3)
    inertia_box_fluid_deriv(mass, inertia, lvel, rho, mu, B)
    for j in range(6):
        lp, lm = lvel.copy(), lvel.copy()
        lp[j] += h
        lm[j] -= h
        _inertia_box_force(mass, inertia, lp, rho, mu, f)
        _inertia_box_force(mass, inertia, lm, rho, mu, g)
        F[:, j] = (f - g) / (2 * h)
    assert qderiv_err(B, F) < 1e-7


def _kernel_dense(mjm, mjd, symmetric):
    """fluid_deriv_kernel on the oracle's model and data arrays, written in qDeriv's sparse D
    layout and scattered into a dense nv x nv matrix (the fluid derivative only couples dofs
    on one chain, all inside the layout)."""
    m = mjm
    qd = np.zeros(m.nD)
    fluid_deriv_kernel(
        m.body_parentid, m.body_rootid, m.body_dofnum, m.body_dofadr, m.dof_parentid,
        m.body_mass, m.body_inertia, m.body_geomadr, m.body_geomnum, m.geom_type, m.geom_size,
        m.geom_fluid, m.opt.density, m.opt.viscosity, m.opt.wind, m.body_treeid,
        m.tree_dofadr, m.tree_dofnum, m.dof_jntid, m.jnt_type,
        m.D_rownnz, m.D_rowadr, m.D_colind,
        mjd.xipos, mjd.ximat, mjd.geom_xpos, mjd.geom_xmat, mjd.cvel, mjd.cdof,
        mjd.subtree_com, symmetric, np.zeros(6), np.zeros((6, 6)), np.zeros((5, 3)),
        np.zeros((6, m.nv)), qd)
    Q = np.zeros((m.nv, m.nv))
    for i in range(m.nv):
        for k in range(m.D_rowadr[i], m.D_rowadr[i] + m.D_rownnz[i]):
            Q[i, m.D_colind[k]] = qd[k]
    return Q


@pytest.mark.parametrize("xml", ["fluid_implicit.xml", "fluid.xml"])
def test_joint_space_derivative_matches_finite_differences(xml):
    """Jl' B Jl against central differences of mujoco's qfrc_fluid over qvel."""
    mjm = load(TEST_MODELS / xml)
    mjd = mujoco.MjData(mjm)
    for seed in range(3):
        randomise(mjm, mjd, seed)
        mujoco.mj_forward(mjm, mjd)
        Q = _kernel_dense(mjm, mjd, False)
        v0 = mjd.qvel.copy()
        F = np.zeros_like(Q)
        h = 1e-6
        for k in range(mjm.nv):
            mjd.qvel[:] = v0
            mjd.qvel[k] += h
            mujoco.mj_forward(mjm, mjd)
            fp = mjd.qfrc_fluid.copy()
            mjd.qvel[k] -= 2 * h
            mujoco.mj_forward(mjm, mjd)
            F[:, k] = (fp - mjd.qfrc_fluid) / (2 * h)
        mjd.qvel[:] = v0
        assert qderiv_err(Q, F) < 1e-6, f"{xml} seed {seed}"


# ---------------------------------------------------------------------------------------------
# mj_step against mujoco
# ---------------------------------------------------------------------------------------------

OWN = TEST_MODELS / "fluid_implicit.xml"


def _path(kind, rel):
    if kind == "shared":
        return shared_model(rel)
    if kind == "own":
        return TEST_MODELS / rel
    return rel


QDERIV_MODELS = [
    ("own", "fluid_implicit.xml"), ("own", "fluid.xml"),
    ("file", GYM + "swimmer.xml"), ("file", DM + "fish.xml"), ("file", DM + "swimmer.xml"),
    ("shared", "mujoco/model/balloons/balloons.xml"),
    ("shared", "mujoco/test/engine/testdata/derivative/tumbling_thin_object.xml"),
    ("shared", "mujoco/test/engine/testdata/derivative/tumbling_thin_object_ellipsoid.xml"),
]


@pytest.mark.parametrize("integ", INTEGRATORS)
@pytest.mark.parametrize("kind,rel", QDERIV_MODELS)
def test_qderiv_and_step_match_mujoco(kind, rel, integ):
    mjm = load(_path(kind, rel))
    mjm.opt.integrator = int(getattr(mujoco.mjtIntegrator, integ))
    for seed in range(3):
        m, d, mjd = both(mjm, seed)
        engine.forward.mj_step(m, d, 1)
        mujoco.mj_step(mjm, mjd, 1)
        e = qderiv_err(d.qDeriv, mjd.qDeriv)
        assert e < 1e-8, f"{rel} {integ} seed {seed}: qDeriv rel err {e:.3g}"
        for f in ("qpos", "qvel", "qfrc_fluid"):
            e = rel_err(getattr(d, f), getattr(mjd, f))
            assert e < 1e-9, f"{rel} {integ} seed {seed}: {f} rel err {e:.3g}"


TRAJ = [
    ("own", "fluid_implicit.xml", 1000), ("own", "fluid.xml", 1000),
    ("file", GYM + "swimmer.xml", 1000), ("file", DM + "swimmer.xml", 1000),
    ("file", DM + "fish.xml", 1000), ("shared", "mujoco/model/balloons/balloons.xml", 1000),
    ("shared", "mujoco/test/engine/testdata/derivative/tumbling_thin_object.xml", 1000),
    ("shared", "mujoco/test/engine/testdata/derivative/tumbling_thin_object_ellipsoid.xml",
     1000),
]


@pytest.mark.parametrize("integ", INTEGRATORS)
@pytest.mark.parametrize("kind,rel,nstep", TRAJ)
def test_trajectories_match_mujoco(kind, rel, nstep, integ):
    mjm = load(_path(kind, rel))
    mjm.opt.integrator = int(getattr(mujoco.mjtIntegrator, integ))
    m, d, mjd = both(mjm, 1, qvel_scale=0.5)
    engine.forward.mj_step(m, d, nstep)
    mujoco.mj_step(mjm, mjd, nstep)
    for f in ("qpos", "qvel"):
        e = rel_err(getattr(d, f), getattr(mjd, f))
        assert e < 1e-6, f"{rel} {integ}: {f} rel err {e:.3g} after {nstep} steps"
    assert abs(d.time - mjd.time) < 1e-9


@pytest.mark.parametrize("flags", ["mjDSBL_DAMPER", "mjDSBL_SPRING", "both"])
@pytest.mark.parametrize("integ", INTEGRATORS)
def test_disabled_springs_dampers(flags, integ):
    """Disabling dampers (or springs) alone keeps fluid forces and their derivatives; disabling
    both removes every passive force."""
    mjm = load(OWN)
    mjm.opt.integrator = int(getattr(mujoco.mjtIntegrator, integ))
    bits = (["mjDSBL_DAMPER", "mjDSBL_SPRING"] if flags == "both" else [flags])
    for b in bits:
        mjm.opt.disableflags |= int(getattr(mujoco.mjtDisableBit, b))
    m, d, mjd = both(mjm, 4)
    engine.forward.mj_step(m, d, 1)
    mujoco.mj_step(mjm, mjd, 1)
    assert qderiv_err(d.qDeriv, mjd.qDeriv) < 1e-8 if np.any(mjd.qDeriv) else not np.any(d.qDeriv)
    for f in ("qpos", "qvel", "qfrc_fluid", "qfrc_passive"):
        assert rel_err(getattr(d, f), getattr(mjd, f)) < 1e-9, f


def test_floating_body_implicitfast_steps_like_implicit():
    """A tree moved only by a free joint (no fluid here): MuJoCo 4.0.0's implicitfast step takes
    the gyroscopic derivative, qDeriv does not hold it."""
    xml = """<mujoco><option integrator="implicitfast"/><worldbody>
      <body><freejoint/><geom type="ellipsoid" size=".1 .05 .02" mass=".2" pos=".1 .02 0"
        euler="10 20 30"/><body pos=".3 0 0"><geom size=".05" mass=".1"/></body></body>
      <body pos="1 0 0"><freejoint/><geom type="box" size=".1 .05 .02" mass=".2"/>
        <body pos=".2 0 0"><joint axis="0 1 0" damping=".1"/><geom size=".05" mass=".1"/></body>
      </body></worldbody></mujoco>"""
    mjm = load(xml)
    m, d, mjd = both(mjm, 5, qvel_scale=2.0)
    engine.forward.mj_step(m, d, 1)
    mujoco.mj_step(mjm, mjd, 1)
    assert qderiv_err(d.qDeriv, mjd.qDeriv) < 1e-9
    for f in ("qpos", "qvel"):
        assert rel_err(getattr(d, f), getattr(mjd, f)) < 1e-12, f
    engine.forward.mj_step(m, d, 499)
    mujoco.mj_step(mjm, mjd, 499)
    for f in ("qpos", "qvel"):
        assert rel_err(getattr(d, f), getattr(mjd, f)) < 1e-8, f
