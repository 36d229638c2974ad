"""Forward dynamics, integrators and stepping: mj_forward, mj_step, mj_step1/2 and friends.

Seed 001 "Simulation loop" (mj_step = checkPos, checkVel, forward, checkAcc, integrate;
mj_step1/mj_step2), "Forward dynamics" (mj_forwardSkip and its stages), "State and control" and
"Errors and warnings" (bad qpos/qvel/qacc: warning, auto-reset). Integrators (seed 000 <option
integrator>): semi-implicit Euler with implicit joint damping (unless eulerdamp is disabled),
RK4, implicit and implicitfast (velocity derivatives of the damping, actuator and fluid forces
and, for implicit, of the bias forces, written in MuJoCo's sparse D layout; `engine.derivative`
builds the fluid and bias parts; implicit factors M - h*qDeriv with a pivot-free sparse LU,
implicitfast its symmetric part in M's CSR rows with mj_factorM's L'DL).

Constraints (seed 001 "Constraint model", "Solver"): the position stage detects contacts
(`engine.collision`) and builds the constraint rows (`engine.constraint.make_constraint`), the
velocity stage their reference accelerations, and `fwd_constraint` solves for qacc
(`engine.solver.solve`). Conditions the compiled code cannot raise itself (a full contact or
constraint arena, a collision routine not built yet) are reported in ``fw_status`` and raised by
the Python wrappers: `engine.errors.ArenaFullError` names `<size memory>`.

Speed: `step(M, D, nstep)` is one compiled call for the whole loop; nothing is allocated in it.
With a control callback (`engine.set_mjcb_control`), mj_step runs the same stages from Python so
the callback can be called between them.
"""
from __future__ import annotations

import math
from time import perf_counter as _clock

import numpy as np

from . import argcheck
from . import timer as _timer
from . import callbacks
from ._access import f1, f2, fs, i1, i2, is_, u1
from ._jit import kernel
from ._layout import DF, MF
from . import collision as _collision, constraint as _constraint
from .collision import nccd as _nccd
from .actuation import actuator_disabled, fwd_actuation, muscle_gain_vel, next_activation
from .collision import collision
from .constraint import make_constraint, reference_constraint
from .derivative import (add_outer_sparse, fluid_vel_derivative, lu_factor_sparse,
                         lu_solve_sparse, rne_vel_derivative, single_free_tree)
from .errors import ArenaFullError, UnexpectedError
from .enums import mjtTimer as _mjtTimer
from . import island as _island
from .island import island
from .passive import apply_ft, passive
from .sensor import energy_pos, energy_vel, sensor_acc, sensor_pos, sensor_vel
from .smooth import (camlight, com_pos, fwd_position_smooth, factor_m_kernel,
                     fwd_velocity_smooth, kinematics, tendon, transmission_body)
from .solver import solve
from .math import vcopy
from .support import integrate_pos, integrate_pos_awake, solve_m
from . import sleep

from .enums import mjMINVAL as _MINVAL  # noqa: E402
from .enums import mjMAXVAL as _MAXVAL  # noqa: E402
from .enums import (mjINT_EULER as _INT_EULER, mjINT_RK4 as _INT_RK4,  # noqa
                    mjINT_IMPLICIT as _INT_IMPLICIT, mjINT_IMPLICITFAST as _INT_IMPLICITFAST,
                    mjDSBL_SPRING as _DSBL_SPRING, mjDSBL_DAMPER as _DSBL_DAMPER,
                    mjDSBL_GRAVITY as _DSBL_GRAVITY, mjDSBL_CLAMPCTRL as _DSBL_CLAMPCTRL,
                    mjDSBL_ACTUATION as _DSBL_ACTUATION, mjDSBL_EULERDAMP as _DSBL_EULERDAMP,
                    mjDSBL_AUTORESET as _DSBL_AUTORESET, mjENBL_ENERGY as _ENBL_ENERGY,
                    mjWARN_BADQPOS as _WARN_BADQPOS, mjWARN_BADQVEL as _WARN_BADQVEL,
                    mjWARN_BADQACC as _WARN_BADQACC, mjJNT_FREE as _JNT_FREE,
                    mjJNT_BALL as _JNT_BALL, mjDYN_NONE as _DYN_NONE,
                    mjGAIN_AFFINE as _GAIN_AFFINE, mjGAIN_MUSCLE as _GAIN_MUSCLE,
                    mjBIAS_AFFINE as _BIAS_AFFINE, mjTRN_JOINT as _TRN_JOINT,
                    mjTRN_JOINTINPARENT as _TRN_JOINTINPARENT, mjTRN_TENDON as _TRN_TENDON)

from .enums import mjENBL_FWDINV as _ENBL_FWDINV  # noqa
from .enums import mjSLEEP_INIT as _SLEEP_INIT  # noqa
# <option><flag> settings this engine does not simulate: mjtEnableBit diagexact, ipc,
# speculative and mjtDisableBit nativeccd (libccd's MPR). Forward dynamics stops on them and the
# Python wrappers raise NotImplementedError naming the flags.
from .enums import mjENBL_DIAGEXACT, mjENBL_IPC, mjENBL_SPECULATIVE, mjDSBL_NATIVECCD  # noqa
_ENBL_UNSUPPORTED = mjENBL_DIAGEXACT | mjENBL_IPC | mjENBL_SPECULATIVE
_DSBL_UNSUPPORTED = mjDSBL_NATIVECCD

# fw_status[0] codes set by compiled stages (fw_status[1:]: details); raised by `_raise_status`
STATUS_OK = 0
STATUS_CONTACTFULL = _collision.STATUS_CONTACTFULL
STATUS_CNSTRFULL = _constraint.STATUS_CNSTRFULL
STATUS_OPTION = 11   # fw_status[1], [2]: the unsupported enable and disable bits
STATUS_FWDINV = 12   # mj_step's compiled loop stopped before a step: fwdinv runs in Python


# =============================================================================================
# checks and reset
# =============================================================================================

@kernel
def _is_bad(x):
    return x != x or x > _MAXVAL or x < -_MAXVAL


@kernel
def _warning(D, w, info):
    i1(D, DF.warning_lastinfo)[w] = info
    i1(D, DF.warning_number)[w] += 1


@kernel
def reset_data(M, D):
    """mj_resetData: zero all of Data, qpos = qpos0, equality activity from eq_active0,
    warnings cleared, no islands, every tree fully awake -- with sleep enabled the static
    bodies' poses computed once and the sleep="init" trees put to sleep (`reset_sleep`) --
    then mocap poses from the model (after the sleep setup, as MuJoCo orders it). Returns
    (trees marked init, trees put to sleep)."""
    D[0][:] = 0.0
    D[1][:] = 0
    D[2][:] = 0
    vcopy(f1(D, DF.qpos), f1(M, MF.qpos0))
    ea = u1(D, DF.eq_active)
    vcopy(ea, u1(M, MF.eq_active0))
    i1(D, DF.tree_island)[:] = -1
    i1(D, DF.dof_island)[:] = -1
    ninit, nslept = reset_sleep(M, D)
    mocapid = i1(M, MF.body_mocapid)
    bpos = f2(M, MF.body_pos)
    bquat = f2(M, MF.body_quat)
    mpos = f2(D, DF.mocap_pos)
    mquat = f2(D, DF.mocap_quat)
    for b in range(mocapid.shape[0]):
        k = mocapid[b]
        if k >= 0:
            vcopy(mpos[k], bpos[b])
            vcopy(mquat[k], bquat[b])
    return ninit, nslept


@kernel
def reset_sleep(M, D):
    """The sleep part of mj_resetData (seed 001, "Sleeping islands"): all trees fully awake;
    with sleep enabled, the poses of static bodies computed once (kinematics, comPos,
    camlight, tendons with static bodies counted awake), or, when trees are marked
    sleep="init", a whole forward pass after which those trees are made ready and mj_sleep
    puts them to sleep; one that cannot sleep (its island holds a tree not marked init) is
    left fully awake, the other trees keep what mj_sleep counted. Returns (trees marked init,
    trees put to sleep)."""
    tree_asleep = i1(D, DF.tree_asleep)
    policy = i1(M, MF.tree_sleep_policy)
    ntree = tree_asleep.shape[0]
    for t in range(ntree):
        tree_asleep[t] = sleep.AWAKE_COUNT
    ninit = 0
    nslept = 0
    if sleep.enabled(M):
        for t in range(ntree):
            if policy[t] == _SLEEP_INIT:
                ninit += 1
        sleep.update_sleep(M, D, True)
        if ninit == 0:
            kinematics(M, D)
            com_pos(M, D)
            camlight(M, D)
            tendon(M, D)
        else:
            forward_skip(M, D, 0, False)
            for t in range(ntree):
                tree_asleep[t] = -1 if policy[t] == _SLEEP_INIT else sleep.AWAKE_COUNT
            nslept = sleep.sleep(M, D)
            for t in range(ntree):
                if policy[t] == _SLEEP_INIT and tree_asleep[t] < 0:
                    tree_asleep[t] = sleep.AWAKE_COUNT
            f1(D, DF.qacc_smooth)[:] = 0.0
            f1(D, DF.qfrc_smooth)[:] = 0.0
            # no constraint rows (the contacts found stay listed, as in MuJoCo)
            i1(D, DF.ne)[0] = 0
            i1(D, DF.nf)[0] = 0
            i1(D, DF.nl)[0] = 0
            i1(D, DF.nefc)[0] = 0
            i1(D, DF.nJ)[0] = 0
            i1(D, DF.nisland)[0] = 0
            i1(D, DF.nidof)[0] = 0
    sleep.update_sleep(M, D, False)
    return ninit, nslept


@kernel
def _check(M, D, field, w):
    """Shared body of mj_checkPos/Vel: on the first bad value warn and auto-reset (unless
    disabled); after a reset the warning is recorded again (counts as MuJoCo 4.0.0's)."""
    x = f1(D, field)
    for i in range(x.shape[0]):
        if _is_bad(x[i]):
            _warning(D, w, i)
            if not is_(M, MF.opt_disableflags) & _DSBL_AUTORESET:
                # the reset clears the counters; the warning is then recorded again
                reset_data(M, D)
                _warning(D, w, i)
            return True
    return False


@kernel
def check_pos(M, D):
    """mj_checkPos: qpos NaN/Inf/|x|>1e10 -> mjWARN_BADQPOS and reset."""
    return _check(M, D, DF.qpos, _WARN_BADQPOS)


@kernel
def check_vel(M, D):
    """mj_checkVel: qvel NaN/Inf/|x|>1e10 -> mjWARN_BADQVEL and reset."""
    return _check(M, D, DF.qvel, _WARN_BADQVEL)


@kernel
def check_acc(M, D):
    """mj_checkAcc: qacc bad -> mjWARN_BADQACC, reset and recompute forward dynamics."""
    if _check(M, D, DF.qacc, _WARN_BADQACC):
        forward_skip(M, D, 0, False)
        return True
    return False


# =============================================================================================
# stages
# =============================================================================================

@kernel
def fwd_position(M, D):
    """mj_fwdPosition: kinematics, inertia, tendons, transmissions, then contacts, the
    constraint rows and their islands (mj_island, unless mjDSBL_ISLAND)."""
    fwd_position_smooth(M, D)
    collision(M, D)
    # a sleeping tree touched by an awake one wakes; collision runs again to find the contacts
    # of the woken island that were skipped as sleeping (seed 001, "Sleeping islands")
    if sleep.wake_collision(M, D):
        sleep.update_sleep(M, D, False)
        collision(M, D)
    if sleep.wake_equality(M, D):
        sleep.update_sleep(M, D, False)
    make_constraint(M, D)
    island(M, D)
    transmission_body(M, D)


@kernel
def fwd_velocity(M, D):
    """mj_fwdVelocity: com velocities, bias forces, passive forces, and the constraint rows'
    velocities and reference accelerations."""
    fwd_velocity_smooth(M, D)
    passive(M, D)
    reference_constraint(M, D)


@kernel
def xfrc_to_qfrc(
    # Model:
    body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid,
    # Data in:
    xfrc_applied, xipos, cdof, subtree_com,
    # Data out:
    qfrc,
):
    """qfrc += J^T xfrc_applied (force and torque applied at each body's center of mass).

    A NaN or infinite component reaches every dof, as in MuJoCo's mj_applyFT, whose dense
    J^T f multiplies it by the zero Jacobian entries of the dofs outside the body's chain
    (0 * inf = NaN): a bad xfrc_applied, even on a body without dofs, then makes qacc bad and
    mj_checkAcc warns and resets (measured on MuJoCo 4.0.0, test_api_misuse)."""
    for b in range(1, xfrc_applied.shape[0]):
        x = xfrc_applied[b]
        if (x[0] == 0.0 and x[1] == 0.0 and x[2] == 0.0 and x[3] == 0.0 and x[4] == 0.0
                and x[5] == 0.0):
            continue
        apply_ft(body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid, cdof,
                 subtree_com, x[0:3], x[3:6], xipos[b], b, qfrc)
        z = (0.0 * x[0] + 0.0 * x[1] + 0.0 * x[2] + 0.0 * x[3] + 0.0 * x[4] + 0.0 * x[5])
        if z != z:
            for k in range(qfrc.shape[0]):
                qfrc[k] += z


@kernel
def fwd_acceleration(M, D):
    """mj_fwdAcceleration: qfrc_smooth = passive - bias + applied + actuator + J'xfrc, and the
    unconstrained acceleration qacc_smooth = M^-1 qfrc_smooth."""
    qfrc_smooth = f1(D, DF.qfrc_smooth)
    qfrc_passive = f1(D, DF.qfrc_passive)
    qfrc_bias = f1(D, DF.qfrc_bias)
    qfrc_applied = f1(D, DF.qfrc_applied)
    qfrc_actuator = f1(D, DF.qfrc_actuator)
    # sleeping dofs keep the forces (and so the accelerations) they had when they fell asleep
    sfilt = sleep.filtering(M, D)
    n = is_(D, DF.nv_awake) if sfilt else qfrc_smooth.shape[0]
    ind = i1(D, DF.dof_awake_ind)
    for j in range(n):
        i = ind[j] if sfilt else j
        qfrc_smooth[i] = qfrc_passive[i] - qfrc_bias[i] + qfrc_applied[i] + qfrc_actuator[i]
    xfrc_to_qfrc(i1(M, MF.body_parentid), i1(M, MF.body_rootid), i1(M, MF.body_dofnum),
                 i1(M, MF.body_dofadr), i1(M, MF.dof_parentid), f2(D, DF.xfrc_applied),
                 f2(D, DF.xipos), f2(D, DF.cdof), f2(D, DF.subtree_com), qfrc_smooth)
    # all dofs: the factor is block diagonal by tree and a sleeping tree's qpos and forces are
    # unchanged, so its qacc_smooth comes out bitwise as it was
    solve_m(i1(M, MF.M_rownnz), i1(M, MF.M_rowadr), i1(M, MF.M_colind), f1(D, DF.qLD),
            f1(D, DF.qLDiagInv), qfrc_smooth, f1(D, DF.qacc_smooth))


@kernel
def fwd_constraint(M, D):
    """mj_fwdConstraint: solve for qacc, efc_force and qfrc_constraint (qacc = qacc_smooth
    when there are no constraint rows)."""
    solve(M, D)


@kernel
def position_velocity(M, D, skipstage, skipsensor):
    """The position and velocity stages with their sensors and energies, skipping the stages
    below ``skipstage`` (mjtStage): the first half of forward and of inverse dynamics."""
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


@kernel
def options_unsupported(M, D):
    """True (and fw_status = STATUS_OPTION with the offending bits) when opt.enableflags or
    opt.disableflags ask for something this engine does not simulate."""
    e = is_(M, MF.opt_enableflags) & _ENBL_UNSUPPORTED
    x = is_(M, MF.opt_disableflags) & _DSBL_UNSUPPORTED
    if e == 0 and x == 0:
        return False
    st = i1(D, DF.fw_status)
    st[0] = STATUS_OPTION
    st[1] = e
    st[2] = x
    return True


@kernel
def forward_skip(M, D, skipstage, skipsensor):
    """mj_forwardSkip: the forward pipeline, skipping stages below ``skipstage`` (mjtStage)."""
    if options_unsupported(M, D):
        return
    position_velocity(M, D, skipstage, skipsensor)
    fwd_actuation(M, D)
    fwd_acceleration(M, D)
    fwd_constraint(M, D)
    if not skipsensor:
        sensor_acc(M, D)


# =============================================================================================
# integration
# =============================================================================================

@kernel
def advance(M, D, act_dot, qacc, qvel_pos):
    """mj_advance: act += act_dot*h (exact for filterexact, clamped to actrange), qvel += qacc*h,
    qpos integrated with ``qvel_pos`` (the new qvel when None-like: pass D's qvel), time += h.
    ``qacc`` and ``qvel_pos`` must not be D's qacc (forward_skip may recompute it).

    Sleep (seed 001, "Sleeping islands"): after the activations, slow islands are put to sleep
    (mj_sleep zeroes their qvel and qacc), and if any was, the velocity stages run again
    (mj_forwardSkip from mjSTAGE_POS) before the sleep arrays are updated; then only the awake
    dofs' velocities and positions advance."""
    h = fs(M, MF.opt_timestep)
    act = f1(D, DF.act)
    if act.shape[0] > 0:
        dyntype = i1(M, MF.actuator_dyntype)
        actadr = i1(M, MF.actuator_actadr)
        actnum = i1(M, MF.actuator_actnum)
        dynprm = f2(M, MF.actuator_dynprm)
        actlimited = u1(M, MF.actuator_actlimited)
        actrange = f2(M, MF.actuator_actrange)
        for i in range(dyntype.shape[0]):
            for j in range(actadr[i], actadr[i] + actnum[i]):
                act[j] = next_activation(dyntype[i], dynprm[i], actlimited[i], actrange[i],
                                         act[j], act_dot[j], h)
    if sleep.sleep(M, D):
        forward_skip(M, D, 1, False)
        sleep.update_sleep(M, D, False)
    qvel = f1(D, DF.qvel)
    sleep.add_scaled_awake(M, D, qvel, qacc, h)
    if sleep.filtering(M, D):
        integrate_pos_awake(i1(M, MF.jnt_type), i1(M, MF.jnt_qposadr), i1(M, MF.jnt_dofadr),
                            i1(M, MF.jnt_bodyid), i1(D, DF.body_awake), f1(D, DF.qpos),
                            qvel_pos, h)
    else:
        integrate_pos(i1(M, MF.jnt_type), i1(M, MF.jnt_qposadr), i1(M, MF.jnt_dofadr),
                      f1(D, DF.qpos), qvel_pos, h)
    t = f1(D, DF.time)
    t[0] += h
    # the next step's solver starts from this step's constrained acceleration
    vcopy(f1(D, DF.qacc_warmstart), f1(D, DF.qacc))


@kernel
def dof_damping_derivative(M, D, out):
    """out[k] = d(damper force)/d(qvel[k]) of the per-dof dampers: the dof's own (with its
    polynomial terms) plus the dampers of actuators on its joint, which act per dof with
    gear[0]^2-scaled coefficients (see passive.dampers). Returns whether any is nonzero."""
    damping = f1(M, MF.dof_damping)
    dpoly = f2(M, MF.dof_dampingpoly)
    qvel = f1(D, DF.qvel)
    anyd = False
    for k in range(out.shape[0]):
        out[k] = _ddamp(damping[k], dpoly[k], qvel[k])
    adamp = f1(M, MF.actuator_damping)
    apoly = f2(M, MF.actuator_dampingpoly)
    trntype = i1(M, MF.actuator_trntype)
    trnid = i2(M, MF.actuator_trnid)
    gear = f2(M, MF.actuator_gear)
    jnt_type = i1(M, MF.jnt_type)
    jnt_dofadr = i1(M, MF.jnt_dofadr)
    for a in range(adamp.shape[0]):
        b = adamp[a]
        p = apoly[a]
        if b == 0.0 and p[0] == 0.0 and p[1] == 0.0:
            continue
        tt = trntype[a]
        if tt != _TRN_JOINT and tt != _TRN_JOINTINPARENT:
            continue
        g2 = gear[a, 0] * gear[a, 0]
        j = trnid[a, 0]
        n = 6 if jnt_type[j] == _JNT_FREE else (3 if jnt_type[j] == _JNT_BALL else 1)
        for k in range(jnt_dofadr[j], jnt_dofadr[j] + n):
            out[k] += g2 * _ddamp(b, p, qvel[k])
    for k in range(out.shape[0]):
        if out[k] != 0.0:
            anyd = True
    return anyd


@kernel
def euler(M, D):
    """mj_Euler: semi-implicit Euler; the per-dof dampers are integrated implicitly, solving
    (M + h*diag(dD/dqvel)) qacc = qfrc_smooth + qfrc_constraint, unless eulerdamp or dampers
    are disabled. As measured on MuJoCo 4.0.0, diag holds the derivative of each dof damper
    (damping + polynomial terms at the current qvel) and of the actuator dampers on joints;
    tendon dampers are left explicit."""
    nv = f1(D, DF.qvel).shape[0]
    diag = f2(D, DF.scratch_v)[1]
    dampers = False
    if not is_(M, MF.opt_disableflags) & (_DSBL_EULERDAMP | _DSBL_DAMPER):
        dampers = dof_damping_derivative(M, D, diag)
    if not dampers:
        qacc = f2(D, DF.scratch_v)[0]
        vcopy(qacc, f1(D, DF.qacc))
        advance(M, D, f1(D, DF.act_dot), qacc, f1(D, DF.qvel))
        return
    # M + h*diag in M's CSR layout (each row ends at its diagonal), factored and solved as
    # mj_factorM / mj_solveM do: the rows are contiguous, no walk along parent chains
    rownnz = i1(M, MF.M_rownnz)
    rowadr = i1(M, MF.M_rowadr)
    colind = i1(M, MF.M_colind)
    h = fs(M, MF.opt_timestep)
    Mcsr = f1(D, DF.M)
    A = f1(D, DF.scratch_M)[:Mcsr.shape[0]]
    vcopy(A, Mcsr)
    for i in range(nv):
        A[rowadr[i] + rownnz[i] - 1] += h * diag[i]
    invd = f2(D, DF.scratch_v)[2]
    factor_m_kernel(rownnz, rowadr, colind, A, A, invd)
    qacc = f2(D, DF.scratch_v)[0]
    qfs = f1(D, DF.qfrc_smooth)
    qfc = f1(D, DF.qfrc_constraint)
    for i in range(nv):
        qacc[i] = qfs[i] + qfc[i]
    solve_m(rownnz, rowadr, colind, A, invd, qacc, qacc)
    advance(M, D, f1(D, DF.act_dot), qacc, f1(D, DF.qvel))


# ---- RK4 ------------------------------------------------------------------------------------
# 4-stage Runge-Kutta (classic tableau) on (qpos, qvel, act). On the quaternion joints it is the
# Lie-group form (Runge-Kutta-Munthe-Kaas), which is what MuJoCo 4.0.0 does (measured: its stage
# positions, observed from a control callback, are q0 (+) h*sum_j A_ij K_j with K_j =
# dexp^-1(Y_j) applied to the stage angular velocity, to 1e-17): each stage's position is the
# initial one moved by a tangent vector Y_i = h*sum_j A_ij K_j, and the derivative of Y along a
# rotation is not the angular velocity w but K = dexp^-1_{-Y}(w) = w + Y x w / 2 +
# c(|Y|) Y x (Y x w), c(t) = (1 - (t/2) cot(t/2)) / t^2. Translations and scalar joints have
# K = qvel. The final position is q0 (+) h*sum_j B_j K_j; velocities and activations are the
# classic linear combination.
# scratch_v rows: 0-3 stage K (tangent derivative), 4-7 stage qacc, 8 qvel0, 9 current Y/h or
# combined K, 10 combined acceleration; scratch_a rows: 0-3 stage act_dot, 4 act0, 5 combined
# act_dot; scratch_q row 0: qpos0.
_RK_A = (0.5, 0.5, 1.0)      # stage i uses A[i-1] times the previous stage's derivative
_RK_B = (1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0)


@kernel
def _dexpinv_coef(t):
    """(1 - (t/2) cot(t/2)) / t^2 (series below 1e-3, where the closed form cancels)."""
    if t < 1e-3:
        t2 = t * t
        return 1.0 / 12.0 + t2 / 720.0 + t2 * t2 / 30240.0
    return (1.0 - 0.5 * t / math.tan(0.5 * t)) / (t * t)


@kernel
def rk_tangent_derivative(jnt_type, jnt_dofadr, Y, h, w, K):
    """K = d(Y)/dt for the stage at tangent offset h*Y moving with velocity w (qvel layout):
    K = w except on the rotational dofs of ball and free joints (see the RK4 note)."""
    vcopy(K, w)
    for j in range(jnt_type.shape[0]):
        t = jnt_type[j]
        if t == _JNT_BALL:
            a = jnt_dofadr[j]
        elif t == _JNT_FREE:
            a = jnt_dofadr[j] + 3
        else:
            continue
        y0, y1, y2 = h * Y[a], h * Y[a + 1], h * Y[a + 2]
        w0, w1, w2 = w[a], w[a + 1], w[a + 2]
        c0 = y1 * w2 - y2 * w1
        c1 = y2 * w0 - y0 * w2
        c2 = y0 * w1 - y1 * w0
        cc0 = y1 * c2 - y2 * c1
        cc1 = y2 * c0 - y0 * c2
        cc2 = y0 * c1 - y1 * c0
        c = _dexpinv_coef(math.sqrt(y0 * y0 + y1 * y1 + y2 * y2))
        K[a] = w0 + 0.5 * c0 + c * cc0
        K[a + 1] = w1 + 0.5 * c1 + c * cc1
        K[a + 2] = w2 + 0.5 * c2 + c * cc2


@kernel
def rk4_begin(M, D):
    """Save the initial state and the first stage's derivatives (from the forward just run)."""
    V = f2(D, DF.scratch_v)
    Aa = f2(D, DF.scratch_a)
    vcopy(f2(D, DF.scratch_q)[0], f1(D, DF.qpos))
    vcopy(V[8], f1(D, DF.qvel))
    vcopy(Aa[4], f1(D, DF.act))
    vcopy(V[0], f1(D, DF.qvel))
    vcopy(V[4], f1(D, DF.qacc))
    vcopy(Aa[0], f1(D, DF.act_dot))


@kernel
def rk4_stage_state(M, D, i, time0):
    """Set D's state to stage i's (1..3): X0 (+) h*A[i-1]*F[i-1], and store the stage's tangent
    derivative K_i (from its velocity, before the forward pass: like MuJoCo, a control
    callback that edits qvel does not change it)."""
    h = fs(M, MF.opt_timestep)
    a = _RK_A[i - 1]
    V = f2(D, DF.scratch_v)
    Aa = f2(D, DF.scratch_a)
    qpos = f1(D, DF.qpos)
    vcopy(qpos, f2(D, DF.scratch_q)[0])
    qvel = f1(D, DF.qvel)
    act = f1(D, DF.act)
    for k in range(qvel.shape[0]):
        V[9, k] = a * V[i - 1, k]
        qvel[k] = V[8, k] + h * a * V[4 + i - 1, k]
    jnt_type = i1(M, MF.jnt_type)
    jnt_dofadr = i1(M, MF.jnt_dofadr)
    integrate_pos(jnt_type, i1(M, MF.jnt_qposadr), jnt_dofadr, qpos, V[9], h)
    rk_tangent_derivative(jnt_type, jnt_dofadr, V[9], h, qvel, V[i])
    for k in range(act.shape[0]):
        act[k] = Aa[4, k] + h * a * Aa[i - 1, k]
    f1(D, DF.time)[0] = time0 + (0.5 if i < 3 else 1.0) * h


@kernel
def rk4_stage_store(M, D, i):
    """Store stage i's derivatives (qacc, act_dot) after its forward pass."""
    V = f2(D, DF.scratch_v)
    vcopy(V[4 + i], f1(D, DF.qacc))
    vcopy(f2(D, DF.scratch_a)[i], f1(D, DF.act_dot))


@kernel
def rk4_finish(M, D, time0):
    """Restore the initial state and advance it with the B-weighted derivatives."""
    V = f2(D, DF.scratch_v)
    Aa = f2(D, DF.scratch_a)
    nv = V.shape[1]
    na = Aa.shape[1]
    for k in range(nv):
        V[9, k] = 0.0
        V[10, k] = 0.0
    for k in range(na):
        Aa[5, k] = 0.0
    for s in range(4):
        b = _RK_B[s]
        for k in range(nv):
            V[9, k] += b * V[s, k]
            V[10, k] += b * V[4 + s, k]
        for k in range(na):
            Aa[5, k] += b * Aa[s, k]
    vcopy(f1(D, DF.qpos), f2(D, DF.scratch_q)[0])
    vcopy(f1(D, DF.qvel), V[8])
    vcopy(f1(D, DF.act), Aa[4])
    f1(D, DF.time)[0] = time0
    advance(M, D, Aa[5], V[10], V[9])


@kernel
def rk4(M, D):
    """mj_RungeKutta(4) with the forward passes compiled in (no control callback)."""
    time0 = fs(D, DF.time)
    rk4_begin(M, D)
    for i in range(1, 4):
        rk4_stage_state(M, D, i, time0)
        forward_skip(M, D, 0, True)
        rk4_stage_store(M, D, i)
    rk4_finish(M, D, time0)


# ---- implicit / implicitfast -----------------------------------------------------------------

@kernel
def smooth_vel_derivative(M, D, flg_bias, qd):
    """mjd_smooth_vel: qd = qDeriv = d(qfrc_smooth)/d(qvel), written directly in the sparse D
    layout (`engine.derivative`; products outside it are dropped, as MuJoCo does): damper
    derivatives (dofs, tendons, actuators, with their polynomial terms), affine actuator
    gain/bias velocity terms, fluid forces (`engine.derivative.fluid_vel_derivative`;
    implicitfast takes the symmetric part of each body's/geom's local derivative, as measured
    on MuJoCo 4.0.0), and with ``flg_bias`` minus the derivative of the Coriolis/centrifugal
    forces (`engine.derivative.rne_vel_derivative`, mjd_rne_vel)."""
    nv = f1(D, DF.qvel).shape[0]
    for k in range(qd.shape[0]):
        qd[k] = 0.0
    D_rownnz = i1(M, MF.D_rownnz)
    D_rowadr = i1(M, MF.D_rowadr)
    D_colind = i1(M, MF.D_colind)
    ind = i1(D, DF.scratch_ind)
    disable = is_(M, MF.opt_disableflags)
    ten_J = f2(D, DF.ten_J)
    moment = f2(D, DF.actuator_moment)
    # actuators with velocity-dependent gain or bias: d(force)/d(actuator_velocity) times
    # moment moment'. As measured on MuJoCo 4.0.0: affine gain/bias velocity terms and the
    # muscle force-velocity curve; the gain multiplies the clamped ctrl (dyntype none), the
    # predicted next activation (actearly) or act; an actuator whose force is clamped (its
    # forcerange, its tendon's actuatorfrcrange, or -- for joint transmissions -- its joint's
    # actuatorfrcrange, boundary included) contributes nothing.
    if not disable & _DSBL_ACTUATION:
        dyntype = i1(M, MF.actuator_dyntype)
        gaintype = i1(M, MF.actuator_gaintype)
        biastype = i1(M, MF.actuator_biastype)
        gainprm = f2(M, MF.actuator_gainprm)
        biasprm = f2(M, MF.actuator_biasprm)
        dynprm = f2(M, MF.actuator_dynprm)
        actadr = i1(M, MF.actuator_actadr)
        actnum = i1(M, MF.actuator_actnum)
        actearly = u1(M, MF.actuator_actearly)
        actlimited = u1(M, MF.actuator_actlimited)
        actrange = f2(M, MF.actuator_actrange)
        group = i1(M, MF.actuator_group)
        dis_act = is_(M, MF.opt_disableactuator)
        ctrllimited = u1(M, MF.actuator_ctrllimited)
        ctrlrange = f2(M, MF.actuator_ctrlrange)
        forcelimited = u1(M, MF.actuator_forcelimited)
        forcerange = f2(M, MF.actuator_forcerange)
        lengthrange = f2(M, MF.actuator_lengthrange)
        acc0 = f1(M, MF.actuator_acc0)
        trntype = i1(M, MF.actuator_trntype)
        trnid = i2(M, MF.actuator_trnid)
        force = f1(D, DF.actuator_force)
        ctrl = f1(D, DF.ctrl)
        act = f1(D, DF.act)
        act_dot = f1(D, DF.act_dot)
        alen = f1(D, DF.actuator_length)
        avel = f1(D, DF.actuator_velocity)
        h = fs(M, MF.opt_timestep)
        for a in range(dyntype.shape[0]):
            if actuator_disabled(group, dis_act, a):
                continue
            gt = gaintype[a]
            if gt == _GAIN_AFFINE:
                gv = gainprm[a, 2]
            elif gt == _GAIN_MUSCLE:
                gv = muscle_gain_vel(alen[a], avel[a], lengthrange[a], acc0[a], gainprm[a])
            else:
                gv = 0.0
            bv = biasprm[a, 2] if biastype[a] == _BIAS_AFFINE else 0.0
            if gv == 0.0 and bv == 0.0:
                continue
            if forcelimited[a] and (force[a] <= forcerange[a, 0] or force[a] >= forcerange[a, 1]):
                continue
            if _transmission_clamped(M, D, trntype[a], trnid[a, 0]):
                continue
            if gv != 0.0:
                j = actadr[a] + actnum[a] - 1
                if dyntype[a] == _DYN_NONE:
                    c = ctrl[a]
                    if ctrllimited[a] and not disable & _DSBL_CLAMPCTRL:
                        c = min(ctrlrange[a, 1], max(ctrlrange[a, 0], c))
                elif actearly[a]:
                    c = next_activation(dyntype[a], dynprm[a], actlimited[a], actrange[a],
                                        act[j], act_dot[j], h)
                else:
                    c = act[j]
                s = bv + gv * c
            else:
                s = bv
            add_outer_sparse(D_rownnz, D_rowadr, D_colind, moment[a], s, ind, qd)
    # dampers (dofs with the actuator dampers on joints; tendons with those on tendons)
    if not disable & _DSBL_DAMPER:
        diag = f2(D, DF.scratch_v)[1]
        dof_damping_derivative(M, D, diag)
        D_diag = i1(M, MF.D_diag)
        for i in range(nv):
            qd[D_rowadr[i] + D_diag[i]] -= diag[i]
        tdamp = f1(M, MF.tendon_damping)
        tpoly = f2(M, MF.tendon_dampingpoly)
        tvel = f1(D, DF.ten_velocity)
        adamp = f1(M, MF.actuator_damping)
        apoly = f2(M, MF.actuator_dampingpoly)
        trntype = i1(M, MF.actuator_trntype)
        trnid = i2(M, MF.actuator_trnid)
        gear = f2(M, MF.actuator_gear)
        for t in range(tdamp.shape[0]):
            dt_ = _ddamp(tdamp[t], tpoly[t], tvel[t])
            for a in range(adamp.shape[0]):
                if trntype[a] == _TRN_TENDON and trnid[a, 0] == t:
                    dt_ += gear[a, 0] * gear[a, 0] * _ddamp(adamp[a], apoly[a], tvel[t])
            if dt_ != 0.0:
                add_outer_sparse(D_rownnz, D_rowadr, D_colind, ten_J[t], -dt_, ind, qd)
    # fluid forces: like the forces themselves (mj_passive), present unless both springs and
    # dampers are disabled (measured on MuJoCo 4.0.0: disabling dampers alone keeps them)
    if (disable & (_DSBL_SPRING | _DSBL_DAMPER)) != (_DSBL_SPRING | _DSBL_DAMPER):
        fluid_vel_derivative(M, D, qd, is_(M, MF.opt_integrator) == _INT_IMPLICITFAST)
    if flg_bias and nv > 0:
        rne_vel_derivative(M, D, False, qd)


@kernel
def _transmission_clamped(M, D, trntype, trnid):
    """Whether the actuatorfrcrange of the actuator's tendon (sum of its actuators' forces) or
    joint (its dofs' qfrc_actuator) is active, boundary included."""
    if trntype == _TRN_TENDON:
        if not u1(M, MF.tendon_actfrclimited)[trnid]:
            return False
        trn = i1(M, MF.actuator_trntype)
        tid = i2(M, MF.actuator_trnid)
        force = f1(D, DF.actuator_force)
        total = 0.0
        for i in range(trn.shape[0]):
            if trn[i] == _TRN_TENDON and tid[i, 0] == trnid:
                total += force[i]
        rng = f2(M, MF.tendon_actfrcrange)[trnid]
        # the tendon's forces were scaled so their sum is the bound: allow its rounding
        tol = 1e-12 * (1.0 + abs(total))
        return total <= rng[0] + tol or total >= rng[1] - tol
    if trntype == _TRN_JOINT or trntype == _TRN_JOINTINPARENT:
        if not u1(M, MF.jnt_actfrclimited)[trnid]:
            return False
        t = i1(M, MF.jnt_type)[trnid]
        n = 6 if t == _JNT_FREE else (3 if t == _JNT_BALL else 1)
        da = i1(M, MF.jnt_dofadr)[trnid]
        rng = f2(M, MF.jnt_actfrcrange)[trnid]
        qa = f1(D, DF.qfrc_actuator)
        for k in range(da, da + n):
            if qa[k] <= rng[0] or qa[k] >= rng[1]:
                return True
    return False


@kernel
def _ddamp(b, p, v):
    """d/dv of the damper magnitude b*v + p0*v|v| + p1*v^3."""
    return b + 2.0 * p[0] * abs(v) + 3.0 * p[1] * v * v


@kernel
def implicit(M, D):
    """mj_implicit: qacc = (M - h*qDeriv)^-1 (qfrc_smooth + qfrc_constraint), then advance.

    implicit: qLU = M - h*qDeriv gathered in the D layout (mapM2D), factored in place by the
    sparse LU without pivoting (`engine.derivative.lu_factor_sparse`, mju_factorLUSparse) and
    solved (mju_solveLUSparse). implicitfast leaves out the bias-force derivative, so its
    matrix is symmetric: qH = M - h*qDeriv gathered in M's CSR layout (mapD2M: entries of
    qDeriv outside M's pattern are dropped), factored with mj_factorM's L'DL kernel into
    qH/qHDiagInv and solved like mj_solveM. As measured on MuJoCo 4.0.0, on kinematic trees
    moved by a single free joint (floating bodies) implicitfast's step equals implicit's (the
    gyroscopic derivative and the unsymmetrised fluid derivative are used) while qDeriv still
    holds implicitfast's derivative: those trees' rows are re-solved with the LU of their own
    block of M - h*(qDeriv - dbias/dqvel) (trees do not couple, so the block solve is exact).
    MuJoCo keeps only qDeriv's sparsity pattern (dof pairs on one kinematic chain) and solves
    with that: couplings across branches are dropped (measured: the step equals
    (M - h*qDeriv)^-1 qfrc with qDeriv as stored). No nv x nv matrix is formed."""
    nv = f1(D, DF.qvel).shape[0]
    flg_bias = is_(M, MF.opt_integrator) == _INT_IMPLICIT
    qd = f1(D, DF.qDeriv)
    smooth_vel_derivative(M, D, flg_bias, qd)
    h = fs(M, MF.opt_timestep)
    D_rownnz = i1(M, MF.D_rownnz)
    D_rowadr = i1(M, MF.D_rowadr)
    D_colind = i1(M, MF.D_colind)
    D_diag = i1(M, MF.D_diag)
    dof_parentid = i1(M, MF.dof_parentid)
    mapM2D = i1(M, MF.mapM2D)
    Mcsr = f1(D, DF.M)
    ind = i1(D, DF.scratch_ind)
    qacc = f2(D, DF.scratch_v)[0]
    qfrc = f2(D, DF.scratch_v)[1]
    qfs = f1(D, DF.qfrc_smooth)
    qfc = f1(D, DF.qfrc_constraint)
    for i in range(nv):
        qfrc[i] = qfs[i] + qfc[i]
    if flg_bias:
        LU = f1(D, DF.qLU)
        for p in range(LU.shape[0]):
            c = mapM2D[p]
            LU[p] = (Mcsr[c] if c >= 0 else 0.0) - h * qd[p]
        lu_factor_sparse(D_rownnz, D_rowadr, D_colind, D_diag, dof_parentid, 0, nv, ind, LU)
        lu_solve_sparse(D_rownnz, D_rowadr, D_colind, D_diag, LU, 0, nv, qfrc, qacc)
    else:
        M_rownnz = i1(M, MF.M_rownnz)
        M_rowadr = i1(M, MF.M_rowadr)
        M_colind = i1(M, MF.M_colind)
        mapD2M = i1(M, MF.mapD2M)
        qH = f1(D, DF.qH)
        for c in range(qH.shape[0]):
            qH[c] = Mcsr[c] - h * qd[mapD2M[c]]
        qHDiagInv = f1(D, DF.qHDiagInv)
        factor_m_kernel(M_rownnz, M_rowadr, M_colind, qH, qH, qHDiagInv)
        solve_m(M_rownnz, M_rowadr, M_colind, qH, qHDiagInv, qfrc, qacc)
        _free_trees_like_implicit(M, D, qfrc, qacc)
    advance(M, D, f1(D, DF.act_dot), qacc, f1(D, DF.qvel))


@kernel
def _free_trees_like_implicit(M, D, qfrc, qacc):
    """implicitfast on the trees moved by a single free joint (see `implicit`): qacc of their
    dofs from the LU of their block of M - h*(qDeriv - dbias/dqvel), in scratch_D."""
    tree_dofadr = i1(M, MF.tree_dofadr)
    tree_dofnum = i1(M, MF.tree_dofnum)
    dof_jntid = i1(M, MF.dof_jntid)
    jnt_type = i1(M, MF.jnt_type)
    anyfree = False
    for t in range(tree_dofadr.shape[0]):
        if single_free_tree(tree_dofadr, tree_dofnum, dof_jntid, jnt_type, t):
            anyfree = True
            break
    if not anyfree:
        return
    D_rownnz = i1(M, MF.D_rownnz)
    D_rowadr = i1(M, MF.D_rowadr)
    D_colind = i1(M, MF.D_colind)
    D_diag = i1(M, MF.D_diag)
    mapM2D = i1(M, MF.mapM2D)
    Mcsr = f1(D, DF.M)
    qd = f1(D, DF.qDeriv)
    A = f1(D, DF.scratch_D)
    h = fs(M, MF.opt_timestep)
    for t in range(tree_dofadr.shape[0]):
        if single_free_tree(tree_dofadr, tree_dofnum, dof_jntid, jnt_type, t):
            lo = tree_dofadr[t]
            for p in range(D_rowadr[lo], D_rowadr[lo + 5] + D_rownnz[lo + 5]):
                A[p] = qd[p]
    rne_vel_derivative(M, D, True, A)
    for t in range(tree_dofadr.shape[0]):
        if not single_free_tree(tree_dofadr, tree_dofnum, dof_jntid, jnt_type, t):
            continue
        lo = tree_dofadr[t]
        for p in range(D_rowadr[lo], D_rowadr[lo + 5] + D_rownnz[lo + 5]):
            c = mapM2D[p]
            A[p] = (Mcsr[c] if c >= 0 else 0.0) - h * A[p]
        lu_factor_sparse(D_rownnz, D_rowadr, D_colind, D_diag, i1(M, MF.dof_parentid), lo,
                         lo + 6, i1(D, DF.scratch_ind), A)
        lu_solve_sparse(D_rownnz, D_rowadr, D_colind, D_diag, A, lo, lo + 6, qfrc, qacc)


@kernel
def integrate(M, D):
    """Dispatch on opt.integrator (after a forward pass)."""
    integ = is_(M, MF.opt_integrator)
    if integ == _INT_RK4:
        rk4(M, D)
    elif integ == _INT_IMPLICIT or integ == _INT_IMPLICITFAST:
        implicit(M, D)
    else:
        euler(M, D)


# =============================================================================================
# step
# =============================================================================================

@kernel
def step(M, D, nstep):
    """nstep calls of mj_step in one compiled loop. Returns the number of completed steps (less
    than nstep when a constraint MuJoCo would solve appears: see fw_status)."""
    status = i1(D, DF.fw_status)
    status[0] = 0
    if options_unsupported(M, D):
        return 0
    if is_(M, MF.opt_enableflags) & _ENBL_FWDINV:
        # mj_compareFwdInv between forward dynamics and integration: the Python loop does it
        status[0] = STATUS_FWDINV
        return 0
    for s in range(nstep):
        check_pos(M, D)
        check_vel(M, D)
        forward_skip(M, D, 0, False)
        if status[0] != 0:
            return s
        check_acc(M, D)
        integrate(M, D)
    return nstep


@kernel
def step1(M, D):
    """mj_step1: checks, position and velocity stages with their sensors and energy."""
    i1(D, DF.fw_status)[0] = 0
    check_pos(M, D)
    check_vel(M, D)
    position_velocity(M, D, 0, False)


@kernel
def step2_forward(M, D):
    """The forward half of mj_step2: actuation, acceleration, constraint, acc sensors."""
    fwd_actuation(M, D)
    fwd_acceleration(M, D)
    fwd_constraint(M, D)
    sensor_acc(M, D)


@kernel
def step2_integrate(M, D):
    """The rest of mj_step2: checkAcc, then the implicit integrator when opt.integrator is
    implicit or implicitfast, else Euler (RK4 needs the whole step: mj_step2 falls back to
    Euler, as MuJoCo does)."""
    check_acc(M, D)
    integ = is_(M, MF.opt_integrator)
    if integ == _INT_IMPLICIT or integ == _INT_IMPLICITFAST:
        implicit(M, D)
    else:
        euler(M, D)


@kernel
def forward_full(M, D, skipstage, skipsensor):
    """mj_forwardSkip from a clean constraint status."""
    i1(D, DF.fw_status)[0] = 0
    forward_skip(M, D, skipstage, skipsensor)


# =============================================================================================
# the compiled entry
# =============================================================================================

# run() operations: the mj_* function each one performs
(OP_FORWARD, OP_STEP, OP_STEP1, OP_STEP2_INTEGRATE, OP_CHECKPOS, OP_CHECKVEL, OP_CHECKACC,
 OP_EULER, OP_IMPLICIT, OP_RK4, OP_RK4_FINISH, OP_RESET, OP_POSITION_VELOCITY) = range(13)


@kernel
def run(M, D, op, n, skipstage, skipsensor, time0):
    """Perform ``op`` (an OP_* code) and return two integers whose meaning depends on it:

    OP_FORWARD            mj_forwardSkip(skipstage, skipsensor) from a clean fw_status
    OP_POSITION_VELOCITY  its position and velocity stages only (for a control callback)
    OP_STEP               n steps: (steps completed, 0)
    OP_STEP1              mj_step1's compiled part
    OP_STEP2_INTEGRATE    mj_step2's checkAcc and integrator
    OP_CHECKPOS/VEL/ACC   mj_checkPos / mj_checkVel / mj_checkAcc: (1 if it reset, 0)
    OP_EULER, OP_IMPLICIT, OP_RK4   the integrators after a forward pass
    OP_RK4_FINISH         the last RK4 stage from the state at time0 (mj_RungeKutta with a
                          control callback)
    OP_RESET              mj_resetData: (trees marked sleep="init", trees put to sleep)

    Why one entry: one compiled call from Python for every mj_* function that can reach
    forward dynamics, with the argument types the Python side passes (`_run`); each operation is
    a kernel of its own, called by symbol (engine._jit)."""
    a = 0
    b = 0
    if op == OP_FORWARD:
        forward_full(M, D, skipstage, skipsensor)
    elif op == OP_POSITION_VELOCITY:
        position_velocity(M, D, skipstage, skipsensor)
    elif op == OP_STEP:
        a = step(M, D, n)
    elif op == OP_STEP1:
        step1(M, D)
    elif op == OP_STEP2_INTEGRATE:
        step2_integrate(M, D)
    elif op == OP_CHECKPOS:
        a = 1 if check_pos(M, D) else 0
    elif op == OP_CHECKVEL:
        a = 1 if check_vel(M, D) else 0
    elif op == OP_CHECKACC:
        a = 1 if check_acc(M, D) else 0
    elif op == OP_EULER:
        euler(M, D)
    elif op == OP_IMPLICIT:
        implicit(M, D)
    elif op == OP_RK4:
        rk4(M, D)
    elif op == OP_RK4_FINISH:
        rk4_finish(M, D, time0)
    elif op == OP_RESET:
        a, b = reset_data(M, D)
    return a, b


def _run(m, d, op, n=0, skipstage=0, skipsensor=False, time0=0.0):
    """`run` from Python, with the argument types its one compiled version takes."""
    return (_RUN_ENTRY or _run_entry(m, d))(m._A, d._A, op, int(n), int(skipstage),
                                            bool(skipsensor), float(time0))


_RUN_ENTRY = None


def _run_entry(m, d):
    """`run`'s compiled entry for the argument types `_run` passes, compiled or loaded on first
    use; after that it is called directly. One entry serves every model and data: their ``_A``
    all come from `engine._layout.Arena.buffers` (float64, int32 and uint8 buffers and a 2-d
    int64 table, C-contiguous np.zeros), so they all have the same numba types. Why: numba's
    dispatcher types every argument on each call (two tuples of four arrays), about half of what
    a call from Python costs (measured: 7.2-8.8 us through the dispatcher, 4.1 us direct, on a
    loaded machine; issue 18, small models). The entry unboxes its arguments as the dispatcher
    does once it has typed them."""
    global _RUN_ENTRY
    from numba import typeof
    sig = tuple(typeof(x) for x in (m._A, d._A, 0, 0, 0, False, 0.0))
    cres = run.overloads.get(sig)
    if cres is None:
        run.compile(sig)
        cres = run.overloads[sig]
    _RUN_ENTRY = cres.entry_point
    return _RUN_ENTRY


# =============================================================================================
# Python API
# =============================================================================================

def check_model(m):
    """Raise NotImplementedError for model features the engine does not simulate yet (checked
    once per model: none of them depends on the options)."""
    big = m.__dict__.get("_fwd_checked")
    if big is None:
        from .actuation import check_actuation_supported
        from .passive import check_passive_supported
        from .sensor import check_sensors_supported
        check_passive_supported(m)
        check_actuation_supported(m)
        check_sensors_supported(m)
        from .flex import check_flex_supported
        check_flex_supported(m)
        # the largest mesh polygon, and the most polygons at a hull vertex (multiccd's features)
        big = max([0] + [int(x.max()) for x in (m.mesh_polyvertnum, m.mesh_polymapnum) if x.size])
        m.__dict__["_fwd_checked"] = big
    if big > _nccd.MAX_POLYVERT and not int(m.opt.disableflags) & _collision.DSBL_MULTICCD:
        raise NotImplementedError(
            f"multiccd (<option><flag multiccd>) with a mesh polygon of {big} vertices or a hull "
            f"vertex on {big} polygons: the contact workspace holds {_nccd.MAX_POLYVERT}; "
            "disable multiccd for this model")


def _raise_status(m, d):
    """Raise what a compiled stage reported in fw_status (and clear it)."""
    code = int(d.fw_status[0])
    if code == STATUS_OK:
        return
    if code == STATUS_OPTION:
        e, x = int(d.fw_status[1]), int(d.fw_status[2])
        d.fw_status[0] = 0
        from .xml.schema import DISABLE_FLAGS, ENABLE_FLAGS
        flags = [f'{n}="enable"' for i, n in enumerate(ENABLE_FLAGS) if e >> i & 1]
        flags += [f'{n}="disable"' for i, n in enumerate(DISABLE_FLAGS) if x >> i & 1]
        raise NotImplementedError(f"<option><flag {' '.join(flags)}/> is not supported yet "
                                  "(opt.enableflags / opt.disableflags)")
    if code in (STATUS_CONTACTFULL, STATUS_CNSTRFULL):
        need = int(d.fw_status[1])
        d.fw_status[0] = 0
        from .data import capacity
        ncon, nj = capacity(m)
        what, cap = ("contacts", ncon) if code == STATUS_CONTACTFULL else ("constraint rows", nj)
        raise ArenaFullError(
            f"at time {d.time:.6g} the model needs at least {need} {what} but this MjData holds "
            f"{cap}: increase <size memory> (now "
            f"{'the default guess' if m.__dict__.get('narena', -1) < 0 else m.narena} bytes), "
            "or set <size nconmax/njmax>, and create a new MjData")
    if code == sleep.STATUS_SLEEP_TENDONEQ:
        eq = int(d.fw_status[1])
        d.fw_status[0] = 0
        raise NotImplementedError(
            f"tendon equality {eq} with sleep enabled: MuJoCo 4.0.0 stops there too "
            "(mj_wakeEquality: tendon equality does not yet support sleeping)")
    if code == sleep.STATUS_SLEEP_CONTACT:
        b1, b2 = int(d.fw_status[1]), int(d.fw_status[2])
        d.fw_status[0] = 0
        raise UnexpectedError(f"internal: contact between sleeping bodies {b1} and {b2}")
    _collision.raise_status(m, d)
    _constraint._check(d)
    _island.raise_status(m, d)
    if int(d.fw_status[0]) != STATUS_OK:
        c = int(d.fw_status[0])
        d.fw_status[0] = 0
        raise UnexpectedError(f"internal: unknown fw_status code {c}")


def _prepare(m, d):
    """Model checks before a stage or a step."""
    check_model(m)


def mj_fwdPosition(m, d):
    """Position-dependent computations (kinematics, inertia, tendons, transmissions)."""
    argcheck.pair(m, d, "mj_fwdPosition")
    fwd_position(m._A, d._A)


def mj_fwdVelocity(m, d):
    """Velocity-dependent computations (com velocities, bias and passive forces)."""
    argcheck.pair(m, d, "mj_fwdVelocity")
    fwd_velocity(m._A, d._A)


def mj_fwdAcceleration(m, d):
    """qfrc_smooth and qacc_smooth."""
    argcheck.pair(m, d, "mj_fwdAcceleration")
    fwd_acceleration(m._A, d._A)


def mj_fwdConstraint(m, d):
    """Constraint stage (no constraint rows yet: qacc = qacc_smooth)."""
    argcheck.pair(m, d, "mj_fwdConstraint")
    _prepare(m, d)
    d.fw_status[0] = 0
    fwd_constraint(m._A, d._A)
    _raise_status(m, d)


def _python_forward(m, d, skipstage, skipsensor):
    """mj_forwardSkip from Python, calling the callbacks and Python plugins between stages
    (engine.plugin.pipeline)."""
    from .plugin import pipeline
    pipeline.forward(m, d, skipstage, skipsensor)


def _forward(m, d, skipstage, skipsensor):
    """mj_forwardSkip after its argument checks."""
    if m.__dict__.get("_history") is not None and not d.__dict__.get("_in_history"):
        # delay lines (engine.history): the controls and sensors read back in time
        from . import history
        d.__dict__["_in_history"] = True
        try:
            history.forward(m, d, lambda: _forward(m, d, skipstage, skipsensor))
        finally:
            d.__dict__["_in_history"] = False
        return
    _prepare(m, d)
    d.fw_status[0] = 0
    if (callbacks.idle and m.__dict__.get("_ext_python") is False) or \
            not callbacks.python_stages(m):
        _run(m, d, OP_FORWARD, skipstage=skipstage, skipsensor=skipsensor)
    else:
        _python_forward(m, d, int(skipstage), bool(skipsensor))
    _raise_status(m, d)


def mj_forwardSkip(m, d, skipstage=0, skipsensor=0):
    """Forward dynamics skipping the stages below ``skipstage`` (mjtStage), optionally without
    sensors."""
    argcheck.pair(m, d, "mj_forwardSkip")
    _forward(m, d, argcheck.integer(skipstage, "skipstage", "mj_forwardSkip"), skipsensor)


_TIMER_STEP, _TIMER_FORWARD = int(_mjtTimer.mjTIMER_STEP), int(_mjtTimer.mjTIMER_FORWARD)


def mj_forward(m, d):
    """Forward dynamics: every stage from qpos, qvel, act, ctrl and the applied forces; the
    call's duration goes to d.timer[mjTIMER_FORWARD]."""
    t0 = _clock()
    try:    # argcheck.pair inlined: one identity test on the hot path
        if d._msig is not m._sig:
            argcheck.pair_slow(m, d, "mj_forward")
    except AttributeError:
        argcheck.pair_slow(m, d, "mj_forward")
    _forward(m, d, 0, 0)
    _timer.add(d, _TIMER_FORWARD, _clock() - t0, 1)


def mj_checkPos(m, d):
    """Reset and warn (mjWARN_BADQPOS) if qpos has NaN/Inf or |x| > 1e10."""
    argcheck.pair(m, d, "mj_checkPos")
    _run(m, d, OP_CHECKPOS)


def mj_checkVel(m, d):
    """Reset and warn (mjWARN_BADQVEL) if qvel is bad."""
    argcheck.pair(m, d, "mj_checkVel")
    _run(m, d, OP_CHECKVEL)


def mj_checkAcc(m, d):
    """Reset, warn (mjWARN_BADQACC) and recompute forward dynamics if qacc is bad."""
    argcheck.pair(m, d, "mj_checkAcc")
    _run(m, d, OP_CHECKACC)


def mj_Euler(m, d):
    """Semi-implicit Euler step from the current forward results."""
    argcheck.pair(m, d, "mj_Euler")
    _run(m, d, OP_EULER)


def mj_implicit(m, d):
    """Implicit(-fast) step from the current forward results."""
    argcheck.pair(m, d, "mj_implicit")
    _prepare(m, d)
    _run(m, d, OP_IMPLICIT)


def mj_RungeKutta(m, d, N=4):
    """Runge-Kutta step (N=4 only) from the current forward results."""
    argcheck.pair(m, d, "mj_RungeKutta")
    if N != 4:
        raise NotImplementedError("mj_RungeKutta: only N=4 is supported")
    _prepare(m, d)
    if not callbacks.python_stages(m):
        _run(m, d, OP_RK4)
        _raise_status(m, d)
        return
    M, D = m._A, d._A
    time0 = d.time
    rk4_begin(M, D)
    for i in range(1, 4):
        rk4_stage_state(M, D, i, time0)
        d.fw_status[0] = 0
        _python_forward(m, d, 0, True)
        _raise_status(m, d)
        rk4_stage_store(M, D, i)
    _run(m, d, OP_RK4_FINISH, time0=time0)


def mj_step(m, d, nstep=1):
    """Advance the simulation ``nstep`` times (checks, forward dynamics, integrator); the
    call's duration and nstep go to d.timer[mjTIMER_STEP] (engine/timer.py).

    The common case (no Python callback or plugin stage, no delay lines, every step completed
    in the compiled loop) is written out here: a control loop pays this function's own lines
    and one compiled call per step, nothing more (issue 18, small models)."""
    t0 = _clock()
    try:    # argcheck.pair inlined: one identity test on the hot path
        if d._msig is not m._sig:
            argcheck.pair_slow(m, d, "mj_step")
    except AttributeError:
        argcheck.pair_slow(m, d, "mj_step")
    if type(nstep) is not int:
        nstep = argcheck.integer(nstep, "nstep", "mj_step")
    md = m.__dict__
    if callbacks.idle and md.get("_ext_python") is False and md.get("_history") is None \
            and md.get("_fwd_checked", _NOT_CHECKED) <= _nccd.MAX_POLYVERT:
        done = (_RUN_ENTRY or _run_entry(m, d))(m._A, d._A, OP_STEP, nstep, 0, False,
                                                0.0)[0]
        if done == nstep:
            t = d.__dict__.get("_timer") or _timer.lists(d)
            t[0][_TIMER_STEP] += _clock() - t0
            t[1][_TIMER_STEP] += nstep
            return
        # the compiled loop stopped (a status to raise, fwdinv): the general path goes on
        # from there
        _mj_step(m, d, nstep, done)
    else:
        _mj_step(m, d, nstep)
    _timer.add(d, _TIMER_STEP, _clock() - t0, nstep)


# m.__dict__["_fwd_checked"] before check_model has run: keeps mj_step off its fast path
_NOT_CHECKED = 1 << 62


def _mj_step(m, d, nstep, done=None):
    """mj_step after its argument checks; ``done``: steps the compiled loop already made."""
    if done is None:
        if m.__dict__.get("_history") is not None and not d.__dict__.get("_in_history"):
            # delay lines (engine.history): one compiled step at a time between their
            # reads/appends
            from . import history
            d.__dict__["_in_history"] = True
            try:
                history.step(m, d, nstep, lambda: _mj_step(m, d, 1))
            finally:
                d.__dict__["_in_history"] = False
            return
        if (callbacks.idle and m.__dict__.get("_ext_python") is False) or \
                not callbacks.python_stages(m):
            check_model(m)
            done = _run(m, d, OP_STEP, nstep)[0]
        else:   # plugins written as kernels: their compiled loop (engine.plugin.compiled)
            from .plugin.pipeline import compiled_step
            kstep = compiled_step(m)
            if kstep is not None:
                check_model(m)
                done = kstep(m._A, d._A, d.plugin_state, m.__dict__["_plugin_config_num"],
                             nstep)
    if done is not None:
        if done == nstep:
            return
        if d.fw_status[0] != STATUS_FWDINV:
            _raise_status(m, d)
        d.fw_status[0] = 0
        nstep -= done
    _prepare(m, d)
    integ = int(m.opt.integrator)
    fwdinv = int(m.opt.enableflags) & _ENBL_FWDINV
    from .plugin import pipeline
    plugins = int(m.nplugin)
    for _ in range(nstep):
        _run(m, d, OP_CHECKPOS)
        _run(m, d, OP_CHECKVEL)
        d.fw_status[0] = 0
        _python_forward(m, d, 0, False)
        _raise_status(m, d)
        _run(m, d, OP_CHECKACC)
        if fwdinv:
            mj_compareFwdInv(m, d)
        if integ == _INT_RK4:
            mj_RungeKutta(m, d, 4)
        elif integ in (_INT_IMPLICIT, _INT_IMPLICITFAST):
            _run(m, d, OP_IMPLICIT)
        else:
            _run(m, d, OP_EULER)
        if plugins:
            pipeline.advance_hook(m, d)


def mj_compareFwdInv(m, d):
    """Compare forward and inverse dynamics at the current forward solution, keeping it:
    solver_fwdinv[0] = |qfrc_constraint(forward) - qfrc_constraint(inverse)|,
    solver_fwdinv[1] = |qfrc_applied + J'xfrc_applied + qfrc_actuator - qfrc_inverse| (both 0
    without constraint rows). mj_step and mj_step2 call it when opt.enableflags has fwdinv
    (seed 001, "Forward and inverse dynamics" diagnostics). Leaves qfrc_inverse and the rows'
    efc_state from the inverse pass, as MuJoCo does."""
    argcheck.pair(m, d, "mj_compareFwdInv")
    from .inverse import inverse_skip, check_inverse_options
    check_inverse_options(m)
    d.solver_fwdinv[:] = 0.0
    nefc = d.nefc
    if nefc == 0:
        return
    M, D = m._A, d._A
    qforce = d.qfrc_applied + d.qfrc_actuator
    xfrc_to_qfrc(m.body_parentid, m.body_rootid, m.body_dofnum, m.body_dofadr, m.dof_parentid,
                 d.xfrc_applied, d.xipos, d.cdof, d.subtree_com, qforce)
    qfrc_constraint = d.qfrc_constraint.copy()
    efc_force = d.efc_force.copy()
    inverse_skip(M, D, 2, True)  # mjSTAGE_VEL: positions and velocities stay as forward left them
    d.solver_fwdinv.flat[0] = np.linalg.norm(qfrc_constraint - d.qfrc_constraint)
    d.solver_fwdinv.flat[1] = np.linalg.norm(qforce - d.qfrc_inverse)
    d.qfrc_constraint[:] = qfrc_constraint
    d.efc_force[:] = efc_force


def mj_step1(m, d):
    """First half of a step: checks, position and velocity stages (then set ctrl)."""
    argcheck.pair(m, d, "mj_step1")
    if m.__dict__.get("_history") is not None:
        # delay lines (engine.history): the delayed position and velocity sensors
        from . import history
        history.step1(m, d, lambda: _step1(m, d))
    else:
        _step1(m, d)
    cb = callbacks.get_mjcb_control()
    if cb is not None:
        cb(m, d)


def _step1(m, d):
    """mj_step1 before the control callback."""
    _prepare(m, d)
    if callbacks.python_stages(m):
        from .plugin import pipeline
        d.fw_status[0] = 0
        _run(m, d, OP_CHECKPOS)
        _run(m, d, OP_CHECKVEL)
        pipeline.position_velocity(m, d)
    else:
        _run(m, d, OP_STEP1)


def mj_step2(m, d):
    """Second half of a step: actuation, acceleration, constraints, sensors, then Euler or the
    implicit integrator (see step2_integrate)."""
    argcheck.pair(m, d, "mj_step2")
    if m.__dict__.get("_history") is not None:
        # delay lines (engine.history): delayed controls and acceleration sensors, appends
        from . import history
        history.step2(m, d, lambda: _step2(m, d))
    else:
        _step2(m, d)


def _step2(m, d):
    """mj_step2 (the checks done)."""
    _prepare(m, d)
    d.fw_status[0] = 0
    python = callbacks.python_stages(m)
    if python:
        from .plugin import pipeline
        pipeline.after_control(m, d)
    else:
        step2_forward(m._A, d._A)
    _raise_status(m, d)
    if int(m.opt.enableflags) & _ENBL_FWDINV:
        _run(m, d, OP_CHECKACC)  # as step2_integrate does first (a second call changes nothing)
        mj_compareFwdInv(m, d)
    _run(m, d, OP_STEP2_INTEGRATE)
    if python and int(m.nplugin):
        pipeline.advance_hook(m, d)
