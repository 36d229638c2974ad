"""Actuator length ranges computed by simulation (seed 000 ``compiler/lengthrange`` and the
actuator ``lengthrange`` attribute; MuJoCo's mj_setLengthRange).

Runs once per compiled model, after the qpos0 constants (``_setconst_dyn``): the simulation
reads the joint-space inertia and the constraint machinery of the finished model. For every
actuator selected by ``mode`` that has no usable range, the model is simulated twice from qpos0,
once pushing the actuator's length down and once up, and the extreme length reached during the
last ``interval`` seconds of each run becomes the range.

The simulation (as MuJoCo 4.0.0 does it, checked against the official bindings):

* options: ``opt.disableflags`` is *replaced* by frictionloss | contact | spring | damper |
  gravity | actuation (so joint/tendon limits and equality constraints stay active even when
  the model disables them), ``opt.timestep`` is the lengthrange ``timestep`` when positive;
  both are restored afterwards (here sensors are disabled too: they do not act on the motion);
* each step: the velocity is scaled by exp(-h / max(0.01, timeconst)) (a non-physical damper),
  the position and velocity stages run (mj_step1), the applied joint force is the actuator's
  moment row scaled so that inv(M) f has norm ``accel`` (sign: -1 shortens, +1 lengthens),
  then clipped to norm ``maxforce`` when positive, then the rest of the step (mj_step2: the
  Euler integrator, or the implicit one for implicit/implicitfast; RK4 falls back to Euler);
* the actuator length read is the one of the step's position stage; it is recorded while
  time > inttotal - interval; the run ends when time >= inttotal.

Failures raise CompileError with MuJoCo's message (which names the actuator index): an
auto-reset during the run (time back to 0), an empty range, or a run whose length still moves
more than ``tolrange`` times the range during the recorded interval.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import CompileError

from ..enums import mjtBias, mjtGain, mjtTrn

from ..enums import mjMINVAL as MINVAL  # noqa: E402
_GAIN_MUSCLE, _GAIN_USER = int(mjtGain.mjGAIN_MUSCLE), int(mjtGain.mjGAIN_USER)
_BIAS_MUSCLE, _BIAS_USER = int(mjtBias.mjBIAS_MUSCLE), int(mjtBias.mjBIAS_USER)
_TRN_JOINT, _TRN_JOINTINPARENT = int(mjtTrn.mjTRN_JOINT), int(mjtTrn.mjTRN_JOINTINPARENT)
_TRN_TENDON = int(mjtTrn.mjTRN_TENDON)

DEFAULTS = {"mode": "muscle", "useexisting": True, "uselimit": False, "accel": 20.0,
            "maxforce": 0.0, "timeconst": 1.0, "timestep": 0.01, "inttotal": 10.0,
            "interval": 2.0, "tolrange": 0.05}


def _selected(m, i, mode):
    """Does ``mode`` (none / muscle / muscleuser / all) apply to actuator i?"""
    if mode == "none":
        return False
    if mode == "all":
        return True
    muscle = m.actuator_gaintype[i] == _GAIN_MUSCLE or m.actuator_biastype[i] == _BIAS_MUSCLE
    if mode == "muscle":
        return bool(muscle)
    user = m.actuator_gaintype[i] == _GAIN_USER or m.actuator_biastype[i] == _BIAS_USER
    return bool(muscle or user)


def pending(m, opt):
    """Indices of the actuators whose range must be computed or copied from limits."""
    out = []
    for i in range(m.nu):
        if not _selected(m, i, opt["mode"]):
            continue
        lo, hi = m.actuator_lengthrange[i]
        if opt["useexisting"] and lo < hi:
            continue
        out.append(i)
    return out


MODES = ("none", "muscle", "muscleuser", "all")     # mjtLRMode order


def set_length_range(m, index, options, error=CompileError):
    """mj_setLengthRange for one actuator: nothing when ``options["mode"]`` does not select it
    or (``useexisting``) it has a range already; its joint's or tendon's limits with
    ``uselimit``; else the simulation. Failures raise ``error`` with MuJoCo's message."""
    opt = dict(DEFAULTS)
    opt.update(options)
    if index not in pending(m, opt):
        return
    if opt["uselimit"] and _copy_limit(m, index):
        return
    try:
        _simulate_all(m, [index], opt, None)
    except CompileError as e:
        if error is CompileError:
            raise
        raise error(e.message) from None


def set_length_ranges(m, options, file=None):
    """Fill ``m.actuator_lengthrange`` for the actuators ``options`` (the <compiler><lengthrange>
    attributes; missing ones take their defaults) selects. Raises CompileError naming the
    actuator when a simulation does not converge."""
    opt = dict(DEFAULTS)
    opt.update({k: v for k, v in (options or {}).items() if v is not None})
    todo = pending(m, opt)
    if not todo:
        return
    sim = []
    for i in todo:
        if opt["uselimit"] and _copy_limit(m, i):
            continue
        sim.append(i)
    if not sim:
        return
    _simulate_all(m, sim, opt, file)


def _copy_limit(m, i):
    """uselimit: a limited joint's or tendon's range becomes the actuator's (as given: the
    gear does not scale it). Returns False when the transmission has no limit to copy."""
    trn, obj = int(m.actuator_trntype[i]), int(m.actuator_trnid[i, 0])
    if trn in (_TRN_JOINT, _TRN_JOINTINPARENT) and m.jnt_limited[obj]:
        m.actuator_lengthrange[i] = m.jnt_range[obj]
        return True
    if trn == _TRN_TENDON and m.tendon_limited[obj]:
        m.actuator_lengthrange[i] = m.tendon_range[obj]
        return True
    return False


def _simulate_all(m, actuators, opt, file):
    from ..data import MjData
    from ..enums import mjtDisableBit as B

    if getattr(m, "nflex", 0):
        raise NotImplementedError("actuator lengthrange computation (<compiler><lengthrange>) "
                                  "in a model with flex objects: flexes are not simulated yet")
    saved = {k: getattr(m, k).copy() for k in ("opt_disableflags", "opt_timestep")}
    # MuJoCo's set; sensors are skipped as well (they never feed back into the dynamics), so
    # that models with sensors or actuator types the engine cannot evaluate yet still compile
    m.opt_disableflags[0] = int(B.mjDSBL_FRICTIONLOSS | B.mjDSBL_CONTACT | B.mjDSBL_SPRING
                                | B.mjDSBL_DAMPER | B.mjDSBL_GRAVITY | B.mjDSBL_ACTUATION
                                | B.mjDSBL_SENSOR)
    if opt["timestep"] > 0:
        m.opt_timestep[0] = opt["timestep"]
    try:
        d = MjData(m)
        for i in actuators:
            _length_range(m, d, i, opt, file)
    finally:
        for k, v in saved.items():
            getattr(m, k)[:] = v


def _length_range(m, d, i, opt, file):
    """Both runs for actuator i, then the checks of the result."""
    lmin, lmax = [0.0, 0.0], [0.0, 0.0]
    for side in (0, 1):
        ok, lo, hi = _run(m, d, i, side, opt)
        if not ok:
            raise CompileError(f"Unstable lengthrange simulation in actuator {i}", file)
        lmin[side], lmax[side] = lo, hi
        m.actuator_lengthrange[i, side] = lo if side == 0 else hi
    r0, r1 = (float(x) for x in m.actuator_lengthrange[i])
    dif = r1 - r0
    if dif <= 0:
        raise CompileError(f"Invalid lengthrange ({r0:g}, {r1:g}) in actuator {i}", file)
    # MuJoCo's two messages differ in the indentation of their last line
    for side, indent in ((0, "  "), (1, " ")):
        if lmax[side] - lmin[side] > opt["tolrange"] * dif:
            raise CompileError(
                f"Lengthrange computation did not converge in actuator {i}:\n"
                f"  eval ({lmin[side]:g}, {lmax[side]:g})\n{indent}range ({r0:g}, {r1:g})", file)


def _run(m, d, i, side, opt):
    """One damped run from qpos0 pushing actuator i's length down (side 0) or up (side 1).
    Returns (stable, min length, max length) over the recorded interval."""
    from ..forward import OP_STEP1, OP_STEP2_INTEGRATE, _raise_status, _run as run, step2_forward
    from ..io import mj_resetData
    from ..support import solve_m

    M, D = m._A, d._A
    mj_resetData(m, d)
    h = float(m.opt_timestep[0])
    decay = math.exp(-h / max(0.01, opt["timeconst"]))
    accel = (2 * side - 1) * opt["accel"]
    maxforce, inttotal = opt["maxforce"], opt["inttotal"]
    tstart = inttotal - opt["interval"]
    rownnz, rowadr, colind = m.M_rownnz, m.M_rowadr, m.M_colind
    qvel, qfrc, moment = d.qvel, d.qfrc_applied, d.actuator_moment[i]
    qLD, qLDiagInv, length = d.qLD, d.qLDiagInv, d.actuator_length
    x = np.zeros(m.nv)
    y = np.zeros(m.nv)
    time_view = d._arena.views["time"]
    lo = hi = 0.0
    updated = False
    tprev = time_view[0]
    while time_view[0] < inttotal:
        qvel *= decay
        run(m, d, OP_STEP1)
        # the force whose acceleration inv(M) f has norm |accel|, along the moment row
        y[:] = moment
        solve_m(rownnz, rowadr, colind, qLD, qLDiagInv, y, x)
        nrm = math.sqrt(float(x @ x))
        np.multiply(moment, accel / max(MINVAL, nrm), out=qfrc)
        if maxforce > 0:
            nrm = math.sqrt(float(qfrc @ qfrc))
            if nrm > maxforce:
                qfrc *= maxforce / max(MINVAL, nrm)
        d.fw_status[0] = 0
        step2_forward(M, D)
        if d.fw_status[0]:
            _raise_status(m, d)
        run(m, d, OP_STEP2_INTEGRATE)
        t = time_view[0]
        if t <= tprev:
            # an automatic reset (bad qpos/qvel/qacc) sent time back: unstable. Not just
            # t == 0: a reset in mj_step1's checks is followed by the step's integration
            return False, 0.0, 0.0
        tprev = t
        if t > tstart:
            L = float(length[i])
            if L < lo or not updated:
                lo = L
            if L > hi or not updated:
                hi = L
            updated = True
    return True, lo, hi
