"""Actuation: activation dynamics, gain and bias, clamping, joint-space actuator forces.

Seed 001 "Forward dynamics" (mj_fwdActuation) and seed 000 <actuator> (<general dyntype gaintype
biastype dynprm gainprm biasprm ctrlrange forcerange actrange actlimited actearly>, shortcuts
motor/position/velocity/intvelocity/damper/cylinder/muscle/adhesion), <joint actuatorfrcrange
actuatorgravcomp>, <tendon actuatorfrcrange>, <option actuatorgroupdisable> and the muscle model of
MuJoCo's documentation ("Muscles": the FL, FV and FP curves, activation time constants).

Outputs (mjData names): ``act_dot`` (na), ``actuator_force`` (nu), ``qfrc_actuator`` (nv).
``ctrl`` itself is never rewritten: a bad control (BADCTRL warning) makes the evaluation use zeros,
as MuJoCo 4.0.0 does (`check_ctrl`).
"""
from __future__ import annotations

import math

from . import argcheck
from ._access import f1, f2, fs, i1, i2, is_, u1
from ._jit import kernel
from ._layout import DF, MF
from .math import vcopy
from . import sleep

from .enums import mjMINVAL as _MINVAL  # noqa: E402
from .enums import mjMAXVAL as _MAXVAL  # noqa: E402
from .enums import (mjDYN_NONE as _DYN_NONE, mjDYN_INTEGRATOR as _DYN_INTEGRATOR,  # noqa
                    mjDYN_FILTER as _DYN_FILTER, mjDYN_FILTEREXACT as _DYN_FILTEREXACT,
                    mjDYN_MUSCLE as _DYN_MUSCLE, mjGAIN_FIXED as _GAIN_FIXED,
                    mjGAIN_AFFINE as _GAIN_AFFINE, mjGAIN_MUSCLE as _GAIN_MUSCLE,
                    mjBIAS_NONE as _BIAS_NONE, mjBIAS_AFFINE as _BIAS_AFFINE,
                    mjBIAS_MUSCLE as _BIAS_MUSCLE, mjTRN_TENDON as _TRN_TENDON,
                    mjJNT_FREE as _JNT_FREE, mjJNT_BALL as _JNT_BALL,
                    mjDSBL_CLAMPCTRL as _DSBL_CLAMPCTRL, mjDSBL_ACTUATION as _DSBL_ACTUATION,
                    mjDSBL_GRAVITY as _DSBL_GRAVITY, mjWARN_BADCTRL as _WARN_BADCTRL)


# ---------------------------------------------------------------------------------------------
# muscle model (MuJoCo documentation, "Muscles")
# ---------------------------------------------------------------------------------------------

@kernel
def muscle_gain_length(L, lmin, lmax):
    """Active force-length curve FL(L): two smooth quadratic halves on each side of L=1."""
    if L < lmin or L > lmax:
        return 0.0
    a = 0.5 * (lmin + 1.0)
    b = 0.5 * (1.0 + lmax)
    if L <= a:
        x = (L - lmin) / max(_MINVAL, a - lmin)
        return 0.5 * x * x
    if L <= 1.0:
        x = (1.0 - L) / max(_MINVAL, 1.0 - a)
        return 1.0 - 0.5 * x * x
    if L <= b:
        x = (L - 1.0) / max(_MINVAL, b - 1.0)
        return 1.0 - 0.5 * x * x
    x = (lmax - L) / max(_MINVAL, lmax - b)
    return 0.5 * x * x


@kernel
def _muscle_scales(length, lengthrange, acc0, prm):
    """Peak force F0, normalized length L and the optimal length L0 of a muscle."""
    F0 = prm[2]
    if F0 < 0.0:
        F0 = prm[3] / max(_MINVAL, acc0)
    L0 = (lengthrange[1] - lengthrange[0]) / max(_MINVAL, prm[1] - prm[0])
    L = prm[0] + (length - lengthrange[0]) / max(_MINVAL, L0)
    return F0, L, L0


@kernel
def muscle_gain(length, velocity, lengthrange, acc0, prm):
    """Muscle gain -F0 * FL(L) * FV(V) (force per unit activation; negative = pulling).
    prm = gainprm: range(2), force, scale, lmin, lmax, vmax, fpmax, fvmax."""
    F0, L, L0 = _muscle_scales(length, lengthrange, acc0, prm)
    lmin, lmax, vmax, fvmax = prm[4], prm[5], prm[6], prm[8]
    V = velocity / max(_MINVAL, L0 * vmax)
    FL = muscle_gain_length(L, lmin, lmax)
    if V <= -1.0:
        FV = 0.0
    elif V <= 0.0:
        FV = (V + 1.0) * (V + 1.0)
    elif V <= fvmax - 1.0:
        x = fvmax - 1.0 - V
        FV = fvmax - x * x / max(_MINVAL, fvmax - 1.0)
    else:
        FV = fvmax
    return -F0 * FL * FV


@kernel
def muscle_gain_vel(length, velocity, lengthrange, acc0, prm):
    """d(muscle_gain)/d(velocity): -F0 * FL(L) * FV'(V) / (L0 * vmax) (for the implicit
    integrators' qDeriv)."""
    F0, L, L0 = _muscle_scales(length, lengthrange, acc0, prm)
    lmin, lmax, vmax, fvmax = prm[4], prm[5], prm[6], prm[8]
    scale = max(_MINVAL, L0 * vmax)
    V = velocity / scale
    FL = muscle_gain_length(L, lmin, lmax)
    if V <= -1.0:
        dFV = 0.0
    elif V <= 0.0:
        dFV = 2.0 * (V + 1.0)
    elif V <= fvmax - 1.0:
        dFV = 2.0 * (fvmax - 1.0 - V) / max(_MINVAL, fvmax - 1.0)
    else:
        dFV = 0.0
    return -F0 * FL * dFV / scale


@kernel
def muscle_bias(length, lengthrange, acc0, prm):
    """Passive muscle force -F0 * FP(L): zero below L=1, quadratic then linear beyond."""
    F0, L, L0 = _muscle_scales(length, lengthrange, acc0, prm)
    lmax, fpmax = prm[5], prm[7]
    b = 0.5 * (1.0 + lmax)
    if L <= 1.0:
        return 0.0
    if L <= b:
        x = (L - 1.0) / max(_MINVAL, b - 1.0)
        return -F0 * fpmax * 0.5 * x * x
    x = (L - b) / max(_MINVAL, b - 1.0)
    return -F0 * fpmax * (0.5 + x)


@kernel
def _sigmoid(x):
    """Quintic smoothstep on [0, 1]."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    return x * x * x * (3.0 * x * (2.0 * x - 5.0) + 10.0)


@kernel
def muscle_dynamics(ctrl, act, prm):
    """Muscle activation rate: (ctrl - act)/tau with tau depending on act and the direction
    (activation / deactivation time constants prm[0], prm[1], smoothing width prm[2])."""
    c = min(1.0, max(0.0, ctrl))
    a = min(1.0, max(0.0, act))
    tau_act = prm[0] * (0.5 + 1.5 * a)
    tau_deact = prm[1] / (0.5 + 1.5 * a)
    width = prm[2]
    dctrl = c - act
    if width < _MINVAL:
        tau = tau_act if dctrl > 0.0 else tau_deact
    else:
        tau = tau_deact + (tau_act - tau_deact) * _sigmoid(dctrl / width + 0.5)
    return dctrl / max(_MINVAL, tau)


# ---------------------------------------------------------------------------------------------
# per-actuator kernels
# ---------------------------------------------------------------------------------------------

@kernel
def actuator_disabled(actuator_group, disableactuator, i):
    """Whether actuator i's group is switched off by opt.disableactuator (groups 0..30)."""
    g = actuator_group[i]
    if g < 0 or g > 30:
        return False
    return (disableactuator >> g) & 1 == 1


@kernel
def next_activation(dyntype, dynprm, actlimited, actrange, act, act_dot, dt):
    """Activation after one step of size dt (exact exponential for filterexact), clamped to
    actrange when actlimited: what the integrators and actearly use."""
    if dyntype == _DYN_FILTEREXACT:
        tau = max(_MINVAL, dynprm[0])
        a = act + act_dot * tau * (1.0 - math.exp(-dt / tau))
    else:
        a = act + act_dot * dt
    if actlimited:
        a = min(actrange[1], max(actrange[0], a))
    return a


@kernel
def actuator_forces(
    # Model:
    dyntype, gaintype, biastype, actadr, actnum, group, ctrllimited, forcelimited, actlimited,
    actearly, dynprm, gainprm, biasprm, ctrlrange, forcerange, actrange, lengthrange, acc0,
    disableflags, disableactuator, dt,
    # Data in:
    ctrl, act, length, velocity, ctrl_bad,
    # Data out:
    act_dot, force,
):
    """act_dot and actuator_force of every actuator from (clamped) ctrl, act, length, velocity;
    with ``ctrl_bad`` (see `check_ctrl`) every control counts as zero, not clamped."""
    clampctrl = not (disableflags & _DSBL_CLAMPCTRL)
    for i in range(dyntype.shape[0]):
        adr = actadr[i]
        nact = actnum[i]
        c = 0.0 if ctrl_bad else ctrl[i]
        if clampctrl and ctrllimited[i] and not ctrl_bad:
            c = min(ctrlrange[i, 1], max(ctrlrange[i, 0], c))
        # activation dynamics
        dt_ = dyntype[i]
        j = adr + nact - 1
        if dt_ != _DYN_NONE:
            if dt_ == _DYN_INTEGRATOR:
                act_dot[j] = c
            elif dt_ == _DYN_FILTER or dt_ == _DYN_FILTEREXACT:
                act_dot[j] = (c - act[j]) / max(_MINVAL, dynprm[i, 0])
            elif dt_ == _DYN_MUSCLE:
                act_dot[j] = muscle_dynamics(c, act[j], dynprm[i])
        # a disabled actuator's activation still evolves; only its force is off
        if actuator_disabled(group, disableactuator, i):
            force[i] = 0.0
            continue
        # gain and bias
        L = length[i]
        V = velocity[i]
        gt = gaintype[i]
        if gt == _GAIN_FIXED:
            gain = gainprm[i, 0]
        elif gt == _GAIN_AFFINE:
            gain = gainprm[i, 0] + gainprm[i, 1] * L + gainprm[i, 2] * V
        else:
            gain = muscle_gain(L, V, lengthrange[i], acc0[i], gainprm[i])
        bt = biastype[i]
        if bt == _BIAS_NONE:
            bias = 0.0
        elif bt == _BIAS_AFFINE:
            bias = biasprm[i, 0] + biasprm[i, 1] * L + biasprm[i, 2] * V
        else:
            bias = muscle_bias(L, lengthrange[i], acc0[i], biasprm[i])
        # input: ctrl, or the activation (the predicted next one with actearly)
        if dt_ == _DYN_NONE:
            inp = c
        elif actearly[i]:
            inp = next_activation(dt_, dynprm[i], actlimited[i], actrange[i], act[j], act_dot[j], dt)
        else:
            inp = act[j]
        f = gain * inp + bias
        if forcelimited[i]:
            f = min(forcerange[i, 1], max(forcerange[i, 0], f))
        force[i] = f


@kernel
def tendon_force_clamp(
    # Model:
    trntype, trnid, tendon_actfrclimited, tendon_actfrcrange,
    # Data out:
    force,
):
    """Scale the forces of actuators on a tendon with actuatorfrcrange so their sum stays in
    range (seed 000 <tendon actuatorfrcrange>)."""
    for t in range(tendon_actfrclimited.shape[0]):
        if not tendon_actfrclimited[t]:
            continue
        total = 0.0
        for i in range(trntype.shape[0]):
            if trntype[i] == _TRN_TENDON and trnid[i, 0] == t:
                total += force[i]
        lo = tendon_actfrcrange[t, 0]
        hi = tendon_actfrcrange[t, 1]
        if total < lo or total > hi:
            clamped = min(hi, max(lo, total))
            s = clamped / total
            for i in range(trntype.shape[0]):
                if trntype[i] == _TRN_TENDON and trnid[i, 0] == t:
                    force[i] *= s


@kernel
def joint_force(
    # Model:
    jnt_type, jnt_dofadr, jnt_actfrclimited, jnt_actfrcrange, jnt_actgravcomp, gravcomp_on,
    # Data in:
    actuator_moment, moment_rownnz, moment_colind, actuator_force, qfrc_gravcomp,
    # Data out:
    qfrc_actuator,
):
    """qfrc_actuator = moment^T force, plus gravity compensation routed to actuators, clamped
    per joint by actuatorfrcrange. The moment rows are visited on their nonzero columns
    (moment_colind, as engine.smooth.transmission records them): the work grows with the
    moments' nonzeros, not nu x nv."""
    qfrc_actuator[:] = 0.0
    for a in range(actuator_force.shape[0]):
        f = actuator_force[a]
        if f == 0.0:
            continue
        # only the moment's nonzeros, as MuJoCo's sparse moment: a NaN or infinite force
        # reaches the actuator's own dofs, not every dof through 0 * inf
        for p in range(moment_rownnz[a]):
            k = moment_colind[a, p]
            mo = actuator_moment[a, k]
            if mo != 0.0:
                qfrc_actuator[k] += mo * f
    for j in range(jnt_type.shape[0]):
        t = jnt_type[j]
        n = 6 if t == _JNT_FREE else (3 if t == _JNT_BALL else 1)
        da = jnt_dofadr[j]
        if gravcomp_on and jnt_actgravcomp[j]:
            for k in range(da, da + n):
                qfrc_actuator[k] += qfrc_gravcomp[k]
        if jnt_actfrclimited[j]:
            lo = jnt_actfrcrange[j, 0]
            hi = jnt_actfrcrange[j, 1]
            for k in range(da, da + n):
                qfrc_actuator[k] = min(hi, max(lo, qfrc_actuator[k]))


# ---------------------------------------------------------------------------------------------
# stage
# ---------------------------------------------------------------------------------------------

@kernel
def check_ctrl(M, D):
    """True when a control, clamped to its ctrlrange where limited, is NaN or beyond 1e10:
    then mjWARN_BADCTRL is counted (lastinfo: the first such actuator) and this evaluation
    uses zero for every control, leaving d.ctrl as the user set it. Measured on MuJoCo 4.0.0:
    counted at every forward evaluation; an infinite control of a ctrllimited actuator is
    clamped first and so is not bad; the zeros are not clamped (test_api_misuse)."""
    ctrl = f1(D, DF.ctrl)
    clampctrl = not (is_(M, MF.opt_disableflags) & _DSBL_CLAMPCTRL)
    limited = u1(M, MF.actuator_ctrllimited)
    rng = f2(M, MF.actuator_ctrlrange)
    for i in range(ctrl.shape[0]):
        x = ctrl[i]
        if clampctrl and limited[i] and x == x:
            x = min(rng[i, 1], max(rng[i, 0], x))
        if x != x or x > _MAXVAL or x < -_MAXVAL:
            i1(D, DF.warning_lastinfo)[_WARN_BADCTRL] = i
            i1(D, DF.warning_number)[_WARN_BADCTRL] += 1
            return True
    return False


@kernel
def fwd_actuation(M, D):
    """mj_fwdActuation: act_dot, actuator_force and qfrc_actuator."""
    ctrl_bad = check_ctrl(M, D)
    disable = is_(M, MF.opt_disableflags)
    act_dot = f1(D, DF.act_dot)
    force = f1(D, DF.actuator_force)
    qfrc_actuator = f1(D, DF.qfrc_actuator)
    # sleeping actuators (seed 001 "Sleeping actuators"): no force, act_dot as it was
    sfilt = sleep.filtering(M, D)
    saved = f2(D, DF.scratch_a)[11]
    if sfilt:
        vcopy(saved, act_dot)
    act_dot[:] = 0.0
    force[:] = 0.0
    nu = force.shape[0]
    if nu == 0 or disable & _DSBL_ACTUATION:
        # no actuator forces at all, not even gravity compensation routed to actuators
        # (measured on the oracle: true also for a model without actuators)
        qfrc_actuator[:] = 0.0
        return
    if True:
        trntype = i1(M, MF.actuator_trntype)
        trnid = i2(M, MF.actuator_trnid)
        actuator_forces(
            i1(M, MF.actuator_dyntype), i1(M, MF.actuator_gaintype), i1(M, MF.actuator_biastype),
            i1(M, MF.actuator_actadr), i1(M, MF.actuator_actnum), i1(M, MF.actuator_group),
            u1(M, MF.actuator_ctrllimited), u1(M, MF.actuator_forcelimited),
            u1(M, MF.actuator_actlimited), u1(M, MF.actuator_actearly),
            f2(M, MF.actuator_dynprm), f2(M, MF.actuator_gainprm), f2(M, MF.actuator_biasprm),
            f2(M, MF.actuator_ctrlrange), f2(M, MF.actuator_forcerange),
            f2(M, MF.actuator_actrange), f2(M, MF.actuator_lengthrange),
            f1(M, MF.actuator_acc0), disable, is_(M, MF.opt_disableactuator),
            fs(M, MF.opt_timestep),
            f1(D, DF.ctrl), f1(D, DF.act), f1(D, DF.actuator_length),
            f1(D, DF.actuator_velocity), ctrl_bad, act_dot, force)
        if sfilt:
            actadr = i1(M, MF.actuator_actadr)
            actnum = i1(M, MF.actuator_actnum)
            for i in range(nu):
                if sleep.actuator_state(M, D, i) == sleep.S_ASLEEP:
                    force[i] = 0.0
                    for j in range(actadr[i], actadr[i] + actnum[i]):
                        act_dot[j] = saved[j]
        tendon_force_clamp(trntype, trnid, u1(M, MF.tendon_actfrclimited),
                           f2(M, MF.tendon_actfrcrange), force)
    from_passive_gravcomp = _gravcomp_on(M)
    joint_force(i1(M, MF.jnt_type), i1(M, MF.jnt_dofadr), u1(M, MF.jnt_actfrclimited),
                f2(M, MF.jnt_actfrcrange), u1(M, MF.jnt_actgravcomp), from_passive_gravcomp,
                f2(D, DF.actuator_moment), i1(D, DF.moment_rownnz), i2(D, DF.moment_colind), force,
                f1(D, DF.qfrc_gravcomp), qfrc_actuator)


@kernel
def _gravcomp_on(M):
    if is_(M, MF.opt_disableflags) & _DSBL_GRAVITY:
        return False
    g = f1(M, MF.opt_gravity)
    return not (g[0] == 0.0 and g[1] == 0.0 and g[2] == 0.0)


# user types: engine.plugin.pipeline (mjcb_act_dyn / gain / bias)
_UNSUPPORTED_DYN = {5: "dcmotor", 6: "pid"}
_UNSUPPORTED_GAIN = {3: "dcmotor", 4: "so3", 5: "pid"}
_UNSUPPORTED_BIAS = {3: "dcmotor", 4: "so3"}


def check_actuation_supported(m):
    """NotImplementedError naming any actuator feature this engine does not model yet."""
    for i in range(m.nu):
        for arr, table, what in ((m.actuator_dyntype, _UNSUPPORTED_DYN, "dyntype"),
                                 (m.actuator_gaintype, _UNSUPPORTED_GAIN, "gaintype"),
                                 (m.actuator_biastype, _UNSUPPORTED_BIAS, "biastype")):
            v = int(arr[i])
            if v in table:
                raise NotImplementedError(
                    f"actuator {i}: <general {what}=\"{table[v]}\"> is not supported yet")
        if m.actuator_ctrlnum.size and int(m.actuator_ctrlnum[i]) != 1:
            raise NotImplementedError(f"actuator {i}: multi-input actuators are not supported yet")
        if m.actuator_actnum[i] > 1:
            raise NotImplementedError(f"actuator {i}: actdim > 1 is not supported yet")
        if int(m.actuator_trntype[i]) > 5:
            raise NotImplementedError(f"actuator {i}: transmission type "
                                      f"{int(m.actuator_trntype[i])} is not supported yet")


def mj_fwdActuation(m, d):
    """Actuator activation rates (act_dot), forces (actuator_force) and their joint-space sum
    (qfrc_actuator), from ctrl, act and the velocity stage's actuator length/velocity/moment."""
    argcheck.pair(m, d, "mj_fwdActuation")
    fwd_actuation(m._A, d._A)
