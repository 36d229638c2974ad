"""Inverse dynamics: mj_inverse / mj_inverseSkip (seed 001 "Inverse dynamics").

Inputs: qpos, qvel, qacc (and mocap). Output: ``qfrc_inverse``, the joint force that produces qacc:
    qfrc_inverse = M qacc + qfrc_bias - qfrc_passive - qfrc_constraint
so that, after mj_forward, qfrc_inverse = qfrc_applied + J'xfrc_applied + qfrc_actuator.
With no constraint rows yet (see engine.forward), qfrc_constraint is zero; a state where MuJoCo
would have constraint rows raises NotImplementedError, as in forward dynamics.
"""
from __future__ import annotations

from numba import njit

from ._access import f1, i1, is_
from ._layout import DF, MF
from .forward import (_ENBL_ENERGY, _prepare, _raise_status, fwd_position, fwd_velocity,
                      pending_constraints)
from .sensor import energy_pos, energy_vel, sensor_acc, sensor_pos, sensor_vel
from .support import mul_m


@njit(cache=True, nogil=True)
def inverse_skip(M, D, skipstage, skipsensor):
    """mj_inverseSkip: position and velocity stages (unless skipped), then qfrc_inverse."""
    energy = is_(M, MF.opt_enableflags) & _ENBL_ENERGY
    if skipstage < 1:
        fwd_position(M, D)
        if not skipsensor:
            sensor_pos(M, D)
        if energy:
            energy_pos(M, D)
    if skipstage < 2:
        fwd_velocity(M, D)
        if not skipsensor:
            sensor_vel(M, D)
        if energy:
            energy_vel(M, D)
    status = i1(D, DF.fw_status)
    code, obj = pending_constraints(M, D)
    if code != 0:
        status[0] = code
        status[1] = obj
    f1(D, DF.qfrc_constraint)[:] = 0.0
    qinv = f1(D, DF.qfrc_inverse)
    mul_m(i1(M, MF.dof_Madr), i1(M, MF.dof_parentid), f1(D, DF.qM), f1(D, DF.qacc), qinv)
    bias = f1(D, DF.qfrc_bias)
    passive = f1(D, DF.qfrc_passive)
    for i in range(qinv.shape[0]):
        qinv[i] += bias[i] - passive[i]
    if not skipsensor:
        sensor_acc(M, D)


def mj_inverseSkip(m, d, skipstage=0, skipsensor=0):
    """Inverse dynamics skipping the stages below ``skipstage``."""
    _prepare(m, d)
    d.fw_status[0] = 0
    inverse_skip(m._A, d._A, int(skipstage), bool(skipsensor))
    _raise_status(m, d)


def mj_inverse(m, d):
    """qfrc_inverse: the joint force that yields d.qacc at the current state."""
    mj_inverseSkip(m, d, 0, 0)
