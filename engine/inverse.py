"""Inverse dynamics: mj_inverse / mj_inverseSkip (seed 001 "Inverse dynamics").

Inputs: qpos, qvel, qacc (and mocap). Output: ``qfrc_inverse``, the joint force that produces qacc:
    qfrc_inverse = M qacc + qfrc_bias - qfrc_passive - qfrc_constraint
so that, after mj_forward, qfrc_inverse = qfrc_applied + J'xfrc_applied + qfrc_actuator.
qfrc_constraint comes from the constraint rows at the given qacc (mj_constraintUpdate with
jar = J qacc - aref: the soft constraints make the inverse unique, seed 001 "Inverse dynamics").
"""
from __future__ import annotations

from . import argcheck, enums
from ._access import f1, i1
from ._jit import kernel
from ._layout import DF, MF
from .enums import mjtEnableBit
from .forward import _prepare, _raise_status, fwd_position, fwd_velocity, position_velocity
from .sensor import sensor_acc
from .jacobian import jac, mul_j
from .solver import all_rows, constraint_update
from .support import mul_m

_ENBL_INVDISCRETE = int(mjtEnableBit.mjENBL_INVDISCRETE)
_ENBL_SLEEP = int(mjtEnableBit.mjENBL_SLEEP)


@kernel
def inverse_constraint(M, D):
    """mj_invConstraint: qfrc_constraint and efc_force at the given qacc, from
    jar = J qacc - aref (zero without constraint rows)."""
    nefc = i1(D, DF.nefc)[0]
    if nefc == 0:
        f1(D, DF.qfrc_constraint)[:] = 0.0
        return
    jar = f1(D, DF.inv_jar)
    rows, nr, dofs, nd = all_rows(D)
    mul_j(jac(M, D), rows, nr, dofs, nd, f1(D, DF.qacc), jar)
    aref = f1(D, DF.efc_aref)
    for r in range(nefc):
        jar[r] -= aref[r]
    constraint_update(M, D, jar, False)


@kernel
def inverse_skip(M, D, skipstage, skipsensor):
    """mj_inverseSkip: position and velocity stages (unless skipped), then qfrc_inverse."""
    position_velocity(M, D, skipstage, skipsensor)
    inverse_constraint(M, D)
    qinv = f1(D, DF.qfrc_inverse)
    cons = f1(D, DF.qfrc_constraint)
    mul_m(i1(M, MF.dof_Madr), i1(M, MF.dof_parentid), f1(D, DF.qM), f1(D, DF.qacc), qinv)
    bias = f1(D, DF.qfrc_bias)
    passive = f1(D, DF.qfrc_passive)
    for i in range(qinv.shape[0]):
        qinv[i] += bias[i] - passive[i] - cons[i]
    if not skipsensor:
        sensor_acc(M, D)


def check_inverse_options(m):
    """NotImplementedError for the options inverse dynamics does not support yet."""
    if int(m.opt.enableflags) & _ENBL_INVDISCRETE:
        raise NotImplementedError('<option><flag invdiscrete="enable"/> (discrete-time inverse '
                                  "dynamics) is not supported yet")
    if int(m.opt.enableflags) & _ENBL_SLEEP:
        raise NotImplementedError('inverse dynamics with <option><flag sleep="enable"/> '
                                  "(sleeping islands) is not supported yet")


def mj_inverseSkip(m, d, skipstage=0, skipsensor=0):
    """Inverse dynamics skipping the stages below ``skipstage``."""
    argcheck.pair(m, d, "mj_inverseSkip")
    check_inverse_options(m)
    from . import callbacks
    if (callbacks.get_mjcb_passive() is not None or m.nplugin
            or (callbacks.get_mjcb_sensor() is not None
                and (m.sensor_type == enums.mjtSensor.mjSENS_USER).any())):
        # the compiled inverse pipeline cannot call them (seed 002): refuse, not ignore
        raise NotImplementedError("mj_inverse with mjcb_passive, mjcb_sensor (user sensors) or "
                                  "engine plugins is not supported yet")
    _prepare(m, d)
    d.fw_status[0] = 0
    inverse_skip(m._A, d._A, argcheck.integer(skipstage, "skipstage", "mj_inverseSkip"),
                 bool(skipsensor))
    _raise_status(m, d)


def mj_inverse(m, d):
    """qfrc_inverse: the joint force that yields d.qacc at the current state (the call's
    duration goes to d.timer[mjTIMER_INVERSE])."""
    from time import perf_counter
    from . import timer
    t0 = perf_counter()
    argcheck.pair(m, d, "mj_inverse")
    mj_inverseSkip(m, d, 0, 0)
    timer.add(d, int(enums.mjtTimer.mjTIMER_INVERSE), perf_counter() - t0, 1)


def mj_invPosition(m, d):
    """Position-dependent computations of inverse dynamics: those of mj_fwdPosition (the
    discrete-time inverse's mass-matrix adjustment, <flag invdiscrete>, is not supported)."""
    argcheck.pair(m, d, "mj_invPosition")
    check_inverse_options(m)
    _prepare(m, d)
    d.fw_status[0] = 0
    fwd_position(m._A, d._A)
    _raise_status(m, d)


def mj_invVelocity(m, d):
    """Velocity-dependent computations of inverse dynamics: those of mj_fwdVelocity."""
    argcheck.pair(m, d, "mj_invVelocity")
    check_inverse_options(m)
    fwd_velocity(m._A, d._A)


def mj_invConstraint(m, d):
    """Inverse constraint dynamics: efc_force and qfrc_constraint from d.qacc through the soft
    constraints' analytical formula (needs the position stage's rows: mj_invPosition)."""
    argcheck.pair(m, d, "mj_invConstraint")
    check_inverse_options(m)
    inverse_constraint(m._A, d._A)
