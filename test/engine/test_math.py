"""engine/math.py kernels against mujoco's mju_* functions on random inputs (rtol 1e-12 level:
the same formulas in double precision; atol 1e-12)."""
from __future__ import annotations

import numpy as np
import pytest

from oracle import mujoco

from engine import math as mm

TOL = dict(rtol=1e-12, atol=1e-12)


def _q(rng):
    q = rng.standard_normal(4)
    return q / np.linalg.norm(q)


@pytest.mark.parametrize("seed", range(5))
def test_quaternions(seed):
    rng = np.random.default_rng(seed)
    a, b = _q(rng), _q(rng)
    v = rng.standard_normal(3)
    r = np.zeros(4)
    mujoco.mju_mulQuat(r, a, b)
    np.testing.assert_allclose(mm.quat_mul(a, b), r, **TOL)
    mat = np.zeros(9)
    mujoco.mju_quat2Mat(mat, a)
    np.testing.assert_allclose(mm.quat2mat(a), mat, **TOL)
    q = np.zeros(4)
    mujoco.mju_mat2Quat(q, mat)
    np.testing.assert_allclose(mm.mat2quat(mat), q, rtol=1e-9, atol=1e-9)
    res = np.zeros(3)
    mujoco.mju_rotVecQuat(res, v, a)
    np.testing.assert_allclose(mm.rot_vec_quat(v, a), res, **TOL)
    axis = v / np.linalg.norm(v)
    mujoco.mju_axisAngle2Quat(q, axis, 0.7)
    np.testing.assert_allclose(mm.axis_angle2quat(axis, 0.7), q, **TOL)
    mujoco.mju_subQuat(res, a, b)
    np.testing.assert_allclose(mm.sub_quat(a, b), res, rtol=1e-9, atol=1e-9)
    qi = a.copy()
    mujoco.mju_quatIntegrate(qi, v, 0.1)
    np.testing.assert_allclose(mm.quat_integrate(a, v, 0.1), qi, rtol=1e-9, atol=1e-9)
    mujoco.mju_quat2Vel(res, a, 0.5)
    np.testing.assert_allclose(mm.quat2vel(a, 0.5), res, rtol=1e-9, atol=1e-9)


def test_degenerate_quaternion_normalises_to_identity():
    assert mm.quat_normalize((0.0, 0.0, 0.0, 0.0)) == (1.0, 0.0, 0.0, 0.0)


@pytest.mark.parametrize("q", [(0.7071067811865475, 0.0, 0.0, -0.7071067811865475),
                               (1 + 4e-16, 0.0, 0.0, 0.0), (1 + 2e-15, 0.0, 0.0, 0.0),
                               (0.5, 0.5, 0.5, 0.5000000000000009), (0.3, -0.2, 0.9, 0.1)])
def test_quat_normalize_bits(q):
    """Bit for bit as mju_normalize4: a norm within mjMINVAL of 1 leaves the quaternion as it is
    (rescaling the first case gives .7071067811865476: body frames of the robotiq 2f85 gripper
    then differ from mujoco's in the last bit, enough to flip an EPA tie between coplanar faces
    and move a line contact's point by 1e-3)."""
    r = np.array(q, float)
    mujoco.mju_normalize4(r)
    assert np.array_equal(np.array(mm.quat_normalize(q)), r), (mm.quat_normalize(q), r)


@pytest.mark.parametrize("seed", range(3))
def test_spatial(seed):
    rng = np.random.default_rng(seed)
    v, u = rng.standard_normal(6), rng.standard_normal(6)
    # cross_motion(v, u) = [w x, 0; v x, w x] u ; cross_force = -cross_motion^T
    w, lin = v[:3], v[3:]
    X = np.zeros((6, 6))
    sk = lambda a: np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    X[:3, :3] = sk(w)
    X[3:, 3:] = sk(w)
    X[3:, :3] = sk(lin)
    np.testing.assert_allclose(mm.cross_motion(v, u), X @ u, **TOL)
    np.testing.assert_allclose(mm.cross_force(v, u), -X.T @ u, **TOL)
    # inert_com + mul_inert_vec = spatial inertia of a body off the origin
    inertia = rng.uniform(0.1, 1, 3)
    mat = mm.quat2mat(_q(rng))
    dif = rng.standard_normal(3)
    ci = mm.inert_com(inertia, mat, dif, 2.0)
    R = np.array(mat).reshape(3, 3)
    Ic = R @ np.diag(inertia) @ R.T
    I_o = Ic + 2.0 * (dif @ dif * np.eye(3) - np.outer(dif, dif))
    S = np.zeros((6, 6))
    S[:3, :3] = I_o
    S[:3, 3:] = 2.0 * sk(dif)
    S[3:, :3] = -2.0 * sk(dif)
    S[3:, 3:] = 2.0 * np.eye(3)
    np.testing.assert_allclose(mm.mul_inert_vec(ci, u), S @ u, rtol=1e-12, atol=1e-12)
