"""The public mjd_* functions: finite-differenced transition and inverse-dynamics Jacobians, and
the analytic derivatives of the quaternion utilities.

Seed 001 ("Derivatives"; the mjd_* functions of MuJoCo's API): ``mjd_transitionFD`` linearises
one step, x' = f(x, u), with x = [dq; qvel; act] (dq: nv tangent coordinates of qpos, the
quaternions' three) and u = ctrl, into d(x') = A dx + B du and d(sensordata) = C dx + D du.
``mjd_inverseFD`` differentiates mj_inverse's qfrc_inverse (and sensordata, and qM) with
respect to qpos (tangent), qvel and qacc. Both work on the caller's MjData and leave its state
as it was.

How the differences are taken (MuJoCo's rules, which the conformance tests compare):
- every perturbed evaluation starts from the same full physics state, control and (unless
  warm starts are disabled) warm start, restored with mj_setState between evaluations;
- positions are nudged along the tangent space (mj_integratePos by eps along one dof) and next
  positions compared with mj_differentiatePos, so quaternions stay unit;
- forward differences by default, centred with ``flg_centered``; a control at its
  ``ctrlrange`` limit is nudged only inward (forward or backward difference), and not at all
  when neither nudge fits the range (its column is zero);
- the stepping is a full mj_step (MuJoCo skips the stages a nudge cannot change, e.g. the
  position stage for a velocity nudge: the values are the same, only the cost differs).

Outputs are optional (None): what is not asked for is not nudged.
"""
from __future__ import annotations

import math

import numpy as np

from . import argcheck
from .enums import mjtDisableBit, mjtIntegrator
from .errors import FatalError
from .state import mj_getState, mj_setState, mj_stateSize, mjtState
from .support import mj_differentiatePos, mj_integratePos

_DSBL_WARMSTART = int(mjtDisableBit.mjDSBL_WARMSTART)
_INT_RK4 = int(mjtIntegrator.mjINT_RK4)
_PHYSICS = int(mjtState.mjSTATE_PHYSICS)
_RESTORE = int(mjtState.mjSTATE_FULLPHYSICS) | int(mjtState.mjSTATE_CTRL)
_WARMSTART = int(mjtState.mjSTATE_WARMSTART)


class _Saved:
    """The caller's full physics state (plus ctrl and warm start), restorable after each nudge."""

    def __init__(self, m, d):
        self.m, self.d = m, d
        self.spec = _RESTORE
        if not int(m.opt.disableflags) & _DSBL_WARMSTART:
            self.spec |= _WARMSTART
        self.buf = np.empty(mj_stateSize(m, self.spec))
        mj_getState(m, d, self.buf, self.spec)

    def restore(self):
        mj_setState(self.m, self.d, self.buf, self.spec)


def _state_diff(m, out, s1, s2, h):
    """out = (s2 - s1) / h for states [qpos; qvel; act], positions in tangent coordinates."""
    nq, nv = m.nq, m.nv
    if nq == nv:
        np.divide(s2 - s1, h, out=out)
    else:
        mj_differentiatePos(m, out[:nv], h, s1[:nq], s2[:nq])
        np.divide(s2[nq:] - s1[nq:], h, out=out[nv:])


def mjd_transitionFD(m, d, eps, flg_centered, A, B, C, D):
    """Finite-differenced transition matrices of one mj_step, in control-theory layout:
    A (2nv+na x 2nv+na) = d next state / d state, B (2nv+na x nu) = d next state / d ctrl,
    C (nsensordata x 2nv+na) = d sensordata / d state, D (nsensordata x nu) = d sensordata /
    d ctrl. Any of A, B, C, D may be None. ``eps`` is the nudge (radians, metres, m/s, ctrl
    units); ``flg_centered`` selects centred differences. The RK4 integrator is not supported
    (as in MuJoCo)."""
    fn = "mjd_transitionFD"
    argcheck.pair(m, d, fn)
    if int(m.opt.integrator) == _INT_RK4:
        raise FatalError(f"{fn}: RK4 integrator is not supported")
    nq, nv, na, nu, ns = m.nq, m.nv, m.na, m.nu, m.nsensordata
    ndx = 2 * nv + na
    A = argcheck.out_array(A, (ndx, ndx), "A", fn, optional=True)
    B = argcheck.out_array(B, (ndx, nu), "B", fn, optional=True)
    C = argcheck.out_array(C, (ns, ndx), "C", fn, optional=True)
    D = argcheck.out_array(D, (ns, nu), "D", fn, optional=True)
    eps = float(eps)
    centered = bool(flg_centered)
    from .forward import mj_step

    saved = _Saved(m, d)
    state = np.empty(nq + nv + na)
    want_sensor = C is not None or D is not None

    def step():
        """One step from the current (nudged) state; returns (next state, sensordata)."""
        mj_step(m, d)
        nxt = np.empty(nq + nv + na)
        mj_getState(m, d, nxt, _PHYSICS)
        sens = d.sensordata.copy() if want_sensor else None
        saved.restore()
        return nxt, sens

    mj_getState(m, d, state, _PHYSICS)
    ctrl = d.ctrl.copy()
    nxt, sens = step()

    def columns(col, plus, minus):
        """Column ``col`` of (A or B, C or D) from the nudged results (None: not nudged)."""
        Y, S = col
        if Y is not None:
            if plus is not None and minus is not None:
                _state_diff(m, Y, minus[0], plus[0], 2 * eps)
            elif plus is not None:
                _state_diff(m, Y, nxt, plus[0], eps)
            elif minus is not None:
                _state_diff(m, Y, minus[0], nxt, eps)
            else:
                Y[:] = 0.0
        if S is not None:
            if plus is not None and minus is not None:
                S[:] = (plus[1] - minus[1]) / (2 * eps)
            elif plus is not None:
                S[:] = (plus[1] - sens) / eps
            elif minus is not None:
                S[:] = (sens - minus[1]) / eps
            else:
                S[:] = 0.0

    # results are built transposed (one nudge = one row) and copied out at the end, as the
    # columns of a C-ordered output are strided
    AT = np.zeros((ndx, ndx)) if A is not None else None
    BT = np.zeros((nu, ndx)) if B is not None else None
    CT = np.zeros((ndx, ns)) if C is not None else None
    DT = np.zeros((nu, ns)) if D is not None else None

    def row(M, i):
        return None if M is None else M[i]

    if B is not None or D is not None:
        lo_hi = m.actuator_ctrlrange
        for i in range(nu):
            limited = bool(m.actuator_ctrllimited[i])
            c = ctrl[i]

            def inside(a, b):
                return a >= lo_hi[i, 0] and a <= lo_hi[i, 1] and b >= lo_hi[i, 0] \
                    and b <= lo_hi[i, 1]
            fwd = not limited or inside(c, c + eps)
            plus = minus = None
            if fwd:
                d.ctrl[i] = c + eps
                plus = step()
            if (centered or not fwd) and (not limited or inside(c - eps, c)):
                d.ctrl[i] = c - eps
                minus = step()
            columns((row(BT, i), row(DT, i)), plus, minus)

    def nudge_all(n, apply, rows_of):
        for i in range(n):
            apply(i, +1)
            plus = step()
            minus = None
            if centered:
                apply(i, -1)
                minus = step()
            columns(rows_of(i), plus, minus)

    if A is not None or C is not None:
        def act_nudge(i, sign):
            d.act[i] += sign * eps

        def vel_nudge(i, sign):
            d.qvel[i] += sign * eps

        dpos = np.zeros(nv)

        def pos_nudge(i, sign):
            dpos[:] = 0.0
            dpos[i] = 1.0
            mj_integratePos(m, d.qpos, dpos, sign * eps)

        nudge_all(na, act_nudge, lambda i: (row(AT, 2 * nv + i), row(CT, 2 * nv + i)))
        nudge_all(nv, vel_nudge, lambda i: (row(AT, nv + i), row(CT, nv + i)))
        nudge_all(nv, pos_nudge, lambda i: (row(AT, i), row(CT, i)))

    for out, T in ((A, AT), (B, BT), (C, CT), (D, DT)):
        if out is not None:
            out[...] = T.T


def mjd_inverseFD(m, d, eps, flg_actuation, DfDq, DfDv, DfDa, DsDq, DsDv, DsDa, DmDq):
    """Finite-differenced (forward differences) Jacobians of mj_inverse, in MuJoCo's transposed
    layout: DfDq, DfDv, DfDa (nv x nv) of qfrc_inverse with respect to qpos (tangent), qvel and
    qacc; DsDq, DsDv, DsDa (nv x nsensordata) of sensordata; DmDq (nv x nC) of the mass matrix
    in its compressed rows d.M. With
    ``flg_actuation``, qfrc_actuator is subtracted from qfrc_inverse. Any output may be None.
    qpos, qvel and qacc are restored; the other mjData fields hold the last evaluation's
    values, as in MuJoCo. Not supported (as in MuJoCo): the RK4 integrator, noslip."""
    fn = "mjd_inverseFD"
    argcheck.pair(m, d, fn)
    if int(m.opt.integrator) == _INT_RK4:
        raise FatalError(f"{fn}: RK4 integrator is not supported")
    if int(m.opt.noslip_iterations):
        raise FatalError(f"{fn}: noslip solver is not supported")
    nv, ns, nC = m.nv, m.nsensordata, m.nC
    outs = {"DfDq": (DfDq, nv), "DfDv": (DfDv, nv), "DfDa": (DfDa, nv), "DsDq": (DsDq, ns),
            "DsDv": (DsDv, ns), "DsDa": (DsDa, ns), "DmDq": (DmDq, nC)}
    o = {k: argcheck.out_array(a, (nv, n), k, fn, optional=True) for k, (a, n) in outs.items()}
    eps = float(eps)
    skipsensor = o["DsDq"] is None and o["DsDv"] is None and o["DsDa"] is None
    from .actuation import mj_fwdActuation
    from .inverse import mj_inverseSkip

    def force(stage):
        mj_inverseSkip(m, d, stage, skipsensor)
        f = d.qfrc_inverse.copy()
        if flg_actuation:
            mj_fwdActuation(m, d)
            f -= d.qfrc_actuator
        return f

    pos = d.qpos.copy()
    f0 = force(0)
    s0 = None if skipsensor else d.sensordata.copy()
    M0 = d.M.copy() if o["DmDq"] is not None else None

    def rows(i, fkey, skey, f, mkey=None):
        if o[fkey] is not None:
            o[fkey][i] = (f - f0) / eps
        if o[skey] is not None:
            o[skey][i] = (d.sensordata - s0) / eps
        if mkey and o[mkey] is not None:
            o[mkey][i] = (d.M - M0) / eps

    if o["DfDa"] is not None or o["DsDa"] is not None:
        for i in range(nv):
            keep = d.qacc[i]
            d.qacc[i] = keep + eps
            f = force(2)        # mjSTAGE_VEL: positions and velocities unchanged
            d.qacc[i] = keep
            rows(i, "DfDa", "DsDa", f)
    if o["DfDv"] is not None or o["DsDv"] is not None:
        for i in range(nv):
            keep = d.qvel[i]
            d.qvel[i] = keep + eps
            f = force(1)        # mjSTAGE_POS
            d.qvel[i] = keep
            rows(i, "DfDv", "DsDv", f)
    if o["DfDq"] is not None or o["DsDq"] is not None or o["DmDq"] is not None:
        dpos = np.zeros(nv)
        for i in range(nv):
            dpos[:] = 0.0
            dpos[i] = 1.0
            mj_integratePos(m, d.qpos, dpos, eps)
            f = force(0)
            d.qpos[:] = pos
            rows(i, "DfDq", "DsDq", f, "DmDq")


def _skew(v):
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def mjd_subQuat(qa, qb, Da, Db):
    """Derivatives of mju_subQuat(res, qa, qb) (the rotation vector from qb to qa) with respect
    to qa and qb as 3x3 matrices in tangent coordinates (row-major, 9 values each; either may be
    None). Db = -Da'."""
    from .mju_api import mju_subQuat
    fn = "mjd_subQuat"
    qa = argcheck.in_array(qa, (4,), "qa", fn)
    qb = argcheck.in_array(qb, (4,), "qb", fn)
    Da = argcheck.out_array(Da, (9,), "Da", fn, optional=True)
    Db = argcheck.out_array(Db, (9,), "Db", fn, optional=True)
    if Da is None and Db is None:
        return
    axis = np.zeros(3)
    mju_subQuat(axis, qa, qb)
    norm = math.sqrt(float(axis @ axis))
    if norm > 1e-15:                            # mju_normalize3: unit axis, else (1, 0, 0)
        axis /= norm
    else:
        axis[:] = (1.0, 0.0, 0.0)
        norm = 0.0
    half = 0.5 * norm
    K = _skew(axis)
    # the inverse of the right Jacobian of SO(3) at angle 2*half: I + half K + c K^2
    c = 1.0 - (1.0 if half < 6e-8 else half / math.tan(half))
    J = np.eye(3) + half * K + c * (K @ K)
    if Da is not None:
        Da[:] = J.reshape(9)
    if Db is not None:
        Db[:] = -J.T.reshape(9)


def mjd_quatIntegrate(vel, scale, Dquat, Dvel, Dscale):
    """Derivatives of mju_quatIntegrate(quat, vel, scale) (quat rotated by the rotation vector
    s = scale*vel) in tangent coordinates: Dquat, Dvel (3x3 row-major, 9 values) and Dscale (3);
    the SO(3) exponential's Jacobians with coefficients a = cos x, b = sin(x)/x,
    c = (1 - cos x)/x^2, d = (x - sin x)/x^3 (x = |s|; a Taylor series below x = 1/32)."""
    fn = "mjd_quatIntegrate"
    vel = argcheck.in_array(vel, (3,), "vel", fn)
    Dquat = argcheck.out_array(Dquat, (9,), "Dquat", fn, optional=True)
    Dvel = argcheck.out_array(Dvel, (9,), "Dvel", fn, optional=True)
    Dscale = argcheck.out_array(Dscale, (3,), "Dscale", fn, optional=True)
    s = float(scale) * vel
    xx = float(s @ s)
    x = math.sqrt(xx)
    a = math.cos(x)
    if abs(x) > 1.0 / 32:
        b = math.sin(x) / x
        c = (1.0 - a) / xx
        dd = (1.0 - b) / xx
    else:
        b = 1 + xx / 6 * (xx / 20 * (1 - xx / 42) - 1)
        c = (1 + xx / 12 * (xx / 30 * (1 - xx / 56) - 1)) / 2
        dd = (1 + xx / 20 * (xx / 42 * (1 - xx / 72) - 1)) / 6
    cross = -_skew(s)
    outer = np.outer(s, s)
    eye = np.eye(3)
    if Dquat is not None:
        Dquat[:] = (a * eye + b * cross + c * outer).reshape(9)
    if Dvel is not None or Dscale is not None:
        dv = b * eye + c * cross + dd * outer
        if Dvel is not None:
            Dvel[:] = dv.reshape(9)
        if Dscale is not None:
            Dscale[:] = dv @ vel


__all__ = ["mjd_transitionFD", "mjd_inverseFD", "mjd_subQuat", "mjd_quatIntegrate"]
