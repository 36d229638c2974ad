"""Support functions (engine/support.py) against the official mujoco's, on real models in random
states (after a full forward pass in both engines). Tolerance: rtol 1e-6, atol 1e-8 (atol for
entries that are zero up to rounding)."""
from __future__ import annotations

import numpy as np
import pytest

from oracle import mujoco
from test_smooth import make_pair

from engine import smooth, support

RTOL, ATOL = 1e-6, 1e-8
CASES = [
    ("humanoid", "mujoco/model/humanoid/humanoid.xml"),
    ("cassie", "menagerie/agility_cassie/cassie.xml"),
    ("iiwa14", "menagerie/kuka_iiwa_14/iiwa14.xml"),
    ("shadow_hand", "menagerie/shadow_hand/right_hand.xml"),
]


@pytest.fixture(params=CASES, ids=[c[0] for c in CASES])
def pair(request):
    mjm, mjd, m, d = make_pair(request.param[1], 7)
    mujoco.mj_forward(mjm, mjd)
    mujoco.mj_rnePostConstraint(mjm, mjd)
    smooth.fwd_position_smooth(m._A, d._A)
    smooth.fwd_velocity_smooth(m._A, d._A)
    d.qacc[:] = mjd.qacc
    smooth.rne_post_constraint(m._A, d._A)
    return mjm, mjd, m, d


def _jac2(fn_mj, fn_ours, mjm, mjd, m, d, *args):
    a = [np.zeros((3, m.nv)) for _ in range(4)]
    fn_mj(mjm, mjd, a[0], a[1], *args)
    fn_ours(m, d, a[2], a[3], *args)
    np.testing.assert_allclose(a[2], a[0], RTOL, ATOL)
    np.testing.assert_allclose(a[3], a[1], RTOL, ATOL)


def test_jacobians(pair):
    mjm, mjd, m, d = pair
    rng = np.random.default_rng(0)
    for b in range(m.nbody):
        pt = rng.standard_normal(3)
        _jac2(mujoco.mj_jac, support.mj_jac, mjm, mjd, m, d, pt, b)
        _jac2(mujoco.mj_jacBody, support.mj_jacBody, mjm, mjd, m, d, b)
        _jac2(mujoco.mj_jacBodyCom, support.mj_jacBodyCom, mjm, mjd, m, d, b)
        a, c = np.zeros((3, m.nv)), np.zeros((3, m.nv))
        mujoco.mj_jacSubtreeCom(mjm, mjd, a, b)
        support.mj_jacSubtreeCom(m, d, c, b)
        np.testing.assert_allclose(c, a, RTOL, ATOL)
        ax = rng.standard_normal(3)
        _jac2(mujoco.mj_jacPointAxis, support.mj_jacPointAxis, mjm, mjd, m, d, pt, ax, b)
    for g in range(0, m.ngeom, max(1, m.ngeom // 10)):
        _jac2(mujoco.mj_jacGeom, support.mj_jacGeom, mjm, mjd, m, d, g)
    for s in range(m.nsite):
        _jac2(mujoco.mj_jacSite, support.mj_jacSite, mjm, mjd, m, d, s)
    # None outputs are allowed
    a = np.zeros((3, m.nv))
    support.mj_jac(m, d, None, a, d.xpos[1], 1)


def test_inertia_products_and_solves(pair):
    mjm, mjd, m, d = pair
    rng = np.random.default_rng(1)
    nv = m.nv
    vec = rng.standard_normal(nv)
    for f_mj, f_ours in ((mujoco.mj_mulM, support.mj_mulM), (mujoco.mj_mulM2, support.mj_mulM2)):
        a, b = np.zeros(nv), np.zeros(nv)
        f_mj(mjm, mjd, a, vec)
        f_ours(m, d, b, vec)
        np.testing.assert_allclose(b, a, RTOL, ATOL)
    y = rng.standard_normal((3, nv))
    a, b = np.zeros((3, nv)), np.zeros((3, nv))
    mujoco.mj_solveM(mjm, mjd, a, y)
    support.mj_solveM(m, d, b, y)
    np.testing.assert_allclose(b, a, RTOL, ATOL)
    s = np.sqrt(mjd.qLDiagInv).reshape(1, nv).copy()
    a, b = np.zeros((1, nv)), np.zeros((1, nv))
    mujoco.mj_solveM2(mjm, mjd, a, y[:1], s)
    support.mj_solveM2(m, d, b, y[:1], s)
    np.testing.assert_allclose(b, a, RTOL, ATOL)
    a, b = np.zeros((nv, nv)), np.zeros((nv, nv))
    mujoco.mj_fullM(mjm, mjd, a)
    support.mj_fullM(m, d, b)
    np.testing.assert_allclose(b, a, RTOL, ATOL)
    # mj_addM (dense destination; the bindings require the sparse index arrays): lower triangle
    full = a
    b = np.ones((nv, nv))
    support.mj_addM(m, d, b)
    np.testing.assert_allclose(b, 1 + np.tril(full), RTOL, ATOL)


def test_object_velocity_acceleration(pair):
    mjm, mjd, m, d = pair
    O = mujoco.mjtObj
    objs = [(O.mjOBJ_BODY, m.nbody), (O.mjOBJ_XBODY, m.nbody), (O.mjOBJ_GEOM, m.ngeom),
            (O.mjOBJ_SITE, m.nsite), (O.mjOBJ_CAMERA, m.ncam)]
    for typ, n in objs:
        for i in range(0, n, max(1, n // 8)):
            for local in (0, 1):
                for f_mj, f_ours in ((mujoco.mj_objectVelocity, support.mj_objectVelocity),
                                     (mujoco.mj_objectAcceleration,
                                      support.mj_objectAcceleration)):
                    a, b = np.zeros(6), np.zeros(6)
                    f_mj(mjm, mjd, int(typ), i, a, local)
                    f_ours(m, d, int(typ), i, b, local)
                    np.testing.assert_allclose(b, a, RTOL, ATOL, err_msg=f"{f_mj.__name__}")


def test_integrate_differentiate_pos(pair):
    mjm, mjd, m, d = pair
    rng = np.random.default_rng(2)
    v = rng.standard_normal(m.nv)
    a, b = mjd.qpos.copy(), mjd.qpos.copy()
    mujoco.mj_integratePos(mjm, a, v, 0.03)
    support.mj_integratePos(m, b, v, 0.03)
    np.testing.assert_allclose(b, a, RTOL, ATOL)
    va, vb = np.zeros(m.nv), np.zeros(m.nv)
    mujoco.mj_differentiatePos(mjm, va, 0.03, mjd.qpos, a)
    support.mj_differentiatePos(m, vb, 0.03, mjd.qpos, a)
    np.testing.assert_allclose(vb, va, RTOL, 1e-7)
    np.testing.assert_allclose(vb, v, 1e-6, 1e-6)
