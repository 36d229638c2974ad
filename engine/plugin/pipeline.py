"""The forward pipeline run stage by stage from Python, for what the compiled loop cannot call:
the physics callbacks (engine.callbacks) and plugins written in Python (engine.plugin).

Each stage is the same compiled kernel the compiled loop runs; between them this module calls,
at MuJoCo's points (seed 001 "Forward dynamics", seed 002; mujoco's engine_forward.c,
engine_passive.c, engine_sensor.c):

- mj_sensorPos/Vel/Acc: user sensors cleared, ``mjcb_sensor(m, d, stage)``, then plugin
  sensors of that needstage (NONE counts as POS), then the stage's cutoff for both;
- mj_passive (end of the velocity stage): ``mjcb_passive``, then passive plugins;
- before actuation: ``mjcb_control``;
- mj_fwdActuation: user dynamics/gain/bias (``mjcb_act_*``), plugin actuator_act_dot, plugin
  compute (its actuator_force), then forcerange clamps and qfrc_actuator again;
- after the integrator (mj_advance): plugin ``advance``.
"""
from __future__ import annotations

import math

import numpy as np

from .. import callbacks
from ..enums import (mjMINVAL, mjtBias, mjtDisableBit, mjtDyn, mjtEnableBit, mjtGain,
                     mjtIntegrator, mjtJoint, mjtSensor, mjtTrn)

_SENS_USER, _SENS_PLUGIN = int(mjtSensor.mjSENS_USER), int(mjtSensor.mjSENS_PLUGIN)
_DYN_FILTEREXACT, _DYN_USER = int(mjtDyn.mjDYN_FILTEREXACT), int(mjtDyn.mjDYN_USER)
_GAIN_FIXED, _GAIN_AFFINE, _GAIN_USER = (int(mjtGain.mjGAIN_FIXED), int(mjtGain.mjGAIN_AFFINE),
                                         int(mjtGain.mjGAIN_USER))
_BIAS_NONE, _BIAS_AFFINE, _BIAS_USER = (int(mjtBias.mjBIAS_NONE), int(mjtBias.mjBIAS_AFFINE),
                                        int(mjtBias.mjBIAS_USER))
_TRN_TENDON = int(mjtTrn.mjTRN_TENDON)
_JNT_FREE, _JNT_BALL = int(mjtJoint.mjJNT_FREE), int(mjtJoint.mjJNT_BALL)
_DSBL_CLAMPCTRL = int(mjtDisableBit.mjDSBL_CLAMPCTRL)
_DSBL_GRAVITY = int(mjtDisableBit.mjDSBL_GRAVITY)
_DSBL_ACTUATION = int(mjtDisableBit.mjDSBL_ACTUATION)
_DSBL_SENSOR = int(mjtDisableBit.mjDSBL_SENSOR)
_DSBL_SPRING = int(mjtDisableBit.mjDSBL_SPRING)
_DSBL_DAMPER = int(mjtDisableBit.mjDSBL_DAMPER)
_ENBL_ENERGY = int(mjtEnableBit.mjENBL_ENERGY)
_INT_RK4 = int(mjtIntegrator.mjINT_RK4)


def _info(m):
    """Per-model facts the hooks need (cached on the model)."""
    inf = m.__dict__.get("_ext_info")
    if inf is None:
        from .registry import ACTUATOR, PASSIVE, SENSOR, mjp_getPluginAtSlot
        st = np.asarray(m.sensor_type)
        user_act = [i for i in range(m.nu) if int(m.actuator_dyntype[i]) == _DYN_USER
                    or int(m.actuator_gaintype[i]) == _GAIN_USER
                    or int(m.actuator_biastype[i]) == _BIAS_USER]
        plugins = [mjp_getPluginAtSlot(int(s)) for s in getattr(m, "plugin", ())]
        caps = [int(p.capabilities) for p in plugins]
        inf = dict(
            user_sensors={s: [i for i in range(m.nsensor) if st[i] == _SENS_USER
                              and int(m.sensor_needstage[i]) == s] for s in (1, 2, 3)},
            plugin_sensors={s: [i for i in range(m.nsensor) if st[i] == _SENS_PLUGIN
                                and max(1, int(m.sensor_needstage[i])) == s] for s in (1, 2, 3)},
            user_act=user_act, plugins=plugins,
            sensor_inst={s: [k for k, p in enumerate(plugins) if caps[k] & SENSOR
                             and max(1, int(p.needstage)) == s] for s in (1, 2, 3)},
            actuator_inst=[k for k, c in enumerate(caps) if c & ACTUATOR],
            passive_inst=[k for k, c in enumerate(caps) if c & PASSIVE],
            advance_inst=[k for k, p in enumerate(plugins) if p.advance is not None])
        m.__dict__["_ext_info"] = inf
    return inf


def needs_python(m):
    """(has user sensors, always needs the Python stages) for model ``m``: user actuators and
    plugin instances with a stage (not SDF-only) always do; user sensors only while
    mjcb_sensor is set."""
    from .registry import SDF
    inf = _info(m)
    has_user = any(inf["user_sensors"].values())
    # a plugin that is only an SDF has no stage to run (the collisions call its kernels)
    staged = [p for p in inf["plugins"] if int(p.capabilities) & ~SDF or p.advance is not None]
    return has_user, bool(inf["user_act"] or staged)


def compiled_step(m):
    """The compiled mj_step loop with the model's plugin kernels (engine.plugin.compiled), when
    plugins written as kernels are the only reason for the Python stages; else None."""
    if (callbacks.get_mjcb_control() is not None or callbacks.get_mjcb_passive() is not None
            or int(m.opt.integrator) == _INT_RK4):   # RK4's inner stages run without plugins
        return None
    inf = _info(m)
    if inf["user_act"] or (callbacks.get_mjcb_sensor() is not None
                           and any(inf["user_sensors"].values())):
        return None
    fn = m.__dict__.get("_plugin_step", False)
    if fn is False:
        from .compiled import config_array, step_kernel
        fn = step_kernel(m)
        config_array(m)
        m.__dict__["_plugin_step"] = fn
    return fn


# ---- data: plugin state and plugin data (seed 002 "插件状态") -----------------------------------
def init_data(m, d):
    """d.plugin_state (npluginstate floats, zero) and d.plugin_data (each instance's init
    result), at MjData creation (mj_makeData calls init)."""
    dd = d.__dict__
    dd["plugin_state"] = np.zeros(int(getattr(m, "npluginstate", 0)))
    dd["plugin_data"] = [None] * int(m.nplugin)
    for k, p in enumerate(_info(m)["plugins"]):
        dd["plugin_data"][k] = p.init(m, d, k)


def reset_data(m, d):
    """mj_resetData's part for plugins: state zeroed, then each instance's reset."""
    if not int(getattr(m, "nplugin", 0)) or "plugin_state" not in d.__dict__:
        return
    d.plugin_state[:] = 0.0
    for k, p in enumerate(_info(m)["plugins"]):
        a, n = int(m.plugin_stateadr[k]), int(m.plugin_statenum[k])
        p.reset(m, d.plugin_state[a:a + n], d.plugin_data[k], k)


def copy_data(m, dst, src):
    """mj_copyData's part for plugins: state copied, plugin data made by each plugin's copy."""
    if not int(getattr(m, "nplugin", 0)):
        return
    dst.__dict__["plugin_state"] = src.plugin_state.copy()
    dst.__dict__["plugin_data"] = [p.copy(m, dst, src, k)
                                   for k, p in enumerate(_info(m)["plugins"])]


# ---- stage hooks ---------------------------------------------------------------------------------
def _cutoff(m, d, ids):
    for s in ids:
        c = m.sensor_cutoff[s]
        if c <= 0:
            continue
        a, n = int(m.sensor_adr[s]), int(m.sensor_dim[s])
        x = d.sensordata[a:a + n]
        if int(m.sensor_datatype[s]) == 0:      # real
            np.clip(x, -c, c, out=x)
        elif int(m.sensor_datatype[s]) == 1:    # positive
            np.minimum(x, c, out=x)


def sensor_hook(m, d, stage):
    """After the compiled sensors of ``stage``: user sensors, plugin sensors, their cutoff."""
    if int(m.opt.disableflags) & _DSBL_SENSOR:
        return
    inf = _info(m)
    users = inf["user_sensors"][stage]
    if users:
        for s in users:
            a = int(m.sensor_adr[s])
            d.sensordata[a:a + int(m.sensor_dim[s])] = 0.0
        cb = callbacks.get_mjcb_sensor()
        if cb is not None:
            cb(m, d, stage)
    from .registry import SENSOR
    for k in inf["sensor_inst"][stage]:
        inf["plugins"][k].compute(m, d, k, SENSOR)
    _cutoff(m, d, users + inf["plugin_sensors"][stage])


def passive_hook(m, d):
    """End of mj_passive: the passive callback and passive plugins add to qfrc_passive."""
    if int(m.opt.disableflags) & _DSBL_SPRING and int(m.opt.disableflags) & _DSBL_DAMPER:
        return
    cb = callbacks.get_mjcb_passive()
    if cb is not None:
        cb(m, d)
    inf = _info(m)
    if inf["passive_inst"]:
        from .registry import PASSIVE
        for k in inf["passive_inst"]:
            inf["plugins"][k].compute(m, d, k, PASSIVE)


def next_activation(m, i, act, act_dot):
    """The act of actuator ``i`` after one step at rate act_dot (exact for filterexact),
    clamped to its actrange: mj_fwdActuation's actearly input."""
    if int(m.actuator_dyntype[i]) == _DYN_FILTEREXACT:
        tau = max(mjMINVAL, m.actuator_dynprm[i, 0])
        act = act + act_dot * tau * (1 - math.exp(-m.opt.timestep / tau))
    else:
        act = act + act_dot * m.opt.timestep
    if m.actuator_actlimited[i]:
        act = min(max(act, m.actuator_actrange[i, 0]), m.actuator_actrange[i, 1])
    return act


def actuation_hook(m, d):
    """After the compiled mj_fwdActuation: the actuators it cannot compute (user types, plugin
    actuators) done as MuJoCo does, then the force clamps and qfrc_actuator again."""
    inf = _info(m)
    if not (inf["user_act"] or inf["actuator_inst"]) or m.nu == 0:
        return
    if int(m.opt.disableflags) & _DSBL_ACTUATION:
        return
    from .registry import ACTUATOR
    ctrl = np.array(d.ctrl, dtype=float)
    if not int(m.opt.disableflags) & _DSBL_CLAMPCTRL:
        lim = m.actuator_ctrllimited.astype(bool)
        ctrl[lim] = np.clip(ctrl[lim], m.actuator_ctrlrange[lim, 0], m.actuator_ctrlrange[lim, 1])
    if not np.all(np.isfinite(ctrl)):
        ctrl[:] = 0.0
    changed = []
    dyn_cb, gain_cb, bias_cb = (callbacks.get_mjcb_act_dyn(), callbacks.get_mjcb_act_gain(),
                                callbacks.get_mjcb_act_bias())
    for i in inf["user_act"]:
        if int(m.actuator_plugin[i]) >= 0:
            continue
        adr, num = int(m.actuator_actadr[i]), int(m.actuator_actnum[i])
        if int(m.actuator_dyntype[i]) == _DYN_USER and adr >= 0:
            d.act_dot[adr:adr + num] = 0.0
            if dyn_cb is not None:
                if num == 1:
                    d.act_dot[adr] = dyn_cb(m, d, i)
                else:
                    dyn_cb(m, d, i)
    for k in inf["actuator_inst"]:
        i_s = np.nonzero(np.asarray(m.actuator_plugin) == k)[0]
        for i in i_s:
            adr, num = int(m.actuator_actadr[i]), int(m.actuator_actnum[i])
            if adr >= 0 and int(m.actuator_dyntype[i]) == 0:
                d.act_dot[adr:adr + num] = 0.0   # MuJoCo zeroes a plugin actuator's act_dot
        p = inf["plugins"][k]
        if p.actuator_act_dot is not None:
            p.actuator_act_dot(m, d, k)
    for i in inf["user_act"]:
        if int(m.actuator_plugin[i]) >= 0:
            continue
        gt, bt = int(m.actuator_gaintype[i]), int(m.actuator_biastype[i])
        L, V = d.actuator_length[i], d.actuator_velocity[i]
        g, b = m.actuator_gainprm[i], m.actuator_biasprm[i]
        if gt == _GAIN_USER:
            gain = gain_cb(m, d, i) if gain_cb is not None else 1.0
        elif gt == _GAIN_FIXED:
            gain = g[0]
        elif gt == _GAIN_AFFINE:
            gain = g[0] + g[1] * L + g[2] * V
        else:
            raise NotImplementedError(f"actuator {i}: a user callback with gaintype {gt}")
        if bt == _BIAS_USER:
            bias = bias_cb(m, d, i) if bias_cb is not None else 0.0
        elif bt == _BIAS_NONE:
            bias = 0.0
        elif bt == _BIAS_AFFINE:
            bias = b[0] + b[1] * L + b[2] * V
        else:
            raise NotImplementedError(f"actuator {i}: a user callback with biastype {bt}")
        adr = int(m.actuator_actadr[i])
        if adr < 0:
            inp = ctrl[i]
        else:
            j = adr + int(m.actuator_actnum[i]) - 1
            inp = (next_activation(m, i, d.act[j], d.act_dot[j]) if m.actuator_actearly[i]
                   else d.act[j])
        d.actuator_force[i] = gain * inp + bias
        changed.append(i)
    for k in inf["actuator_inst"]:
        inf["plugins"][k].compute(m, d, k, ACTUATOR)
        changed.extend(np.nonzero(np.asarray(m.actuator_plugin) == k)[0].tolist())
    for i in changed:
        if int(m.actuator_trntype[i]) == _TRN_TENDON and \
                m.tendon_actfrclimited[int(m.actuator_trnid[i, 0])]:
            raise NotImplementedError(f"actuator {i}: a user or plugin actuator on a tendon with "
                                      "actuatorfrcrange")
        if m.actuator_forcelimited[i]:
            d.actuator_force[i] = min(max(d.actuator_force[i], m.actuator_forcerange[i, 0]),
                                      m.actuator_forcerange[i, 1])
    _joint_force(m, d)


def _joint_force(m, d):
    """qfrc_actuator = moment' force + actuator gravity compensation, clamped per joint."""
    q = d.qfrc_actuator
    q[:] = 0.0
    for a in range(m.nu):
        f = d.actuator_force[a]
        if f == 0.0:
            continue
        cols = d.moment_colind[a, :int(d.moment_rownnz[a])]
        q[cols] += d.actuator_moment[a, cols] * f
    g = m.opt.gravity
    on = not int(m.opt.disableflags) & _DSBL_GRAVITY and (g[0] or g[1] or g[2])
    for j in range(m.njnt):
        t = int(m.jnt_type[j])
        n = 6 if t == _JNT_FREE else (3 if t == _JNT_BALL else 1)
        a = int(m.jnt_dofadr[j])
        if on and m.jnt_actgravcomp[j]:
            q[a:a + n] += d.qfrc_gravcomp[a:a + n]
        if m.jnt_actfrclimited[j]:
            np.clip(q[a:a + n], m.jnt_actfrcrange[j, 0], m.jnt_actfrcrange[j, 1], out=q[a:a + n])


def advance_hook(m, d):
    """After the integrator's mj_advance: each plugin's advance."""
    inf = _info(m)
    for k in inf["advance_inst"]:
        inf["plugins"][k].advance(m, d, k)


# ---- the stages ----------------------------------------------------------------------------------
def position_velocity(m, d, skipstage=0, skipsensor=False):
    """The position and velocity stages with their sensors, energy and hooks."""
    from ..forward import fwd_position, fwd_velocity
    from ..sensor import energy_pos, energy_vel, sensor_pos, sensor_vel
    M, D = m._A, d._A
    energy = int(m.opt.enableflags) & _ENBL_ENERGY
    if skipstage < 1:
        fwd_position(M, D)
        if not skipsensor:
            sensor_pos(M, D)
            sensor_hook(m, d, 1)
        if energy:
            energy_pos(M, D)
    if skipstage < 2:
        fwd_velocity(M, D)
        passive_hook(m, d)
        if not skipsensor:
            sensor_vel(M, D)
            sensor_hook(m, d, 2)
        if energy:
            energy_vel(M, D)


def after_control(m, d, skipsensor=False):
    """Actuation, acceleration, constraint and acceleration sensors, with their hooks (the
    forward half of mj_step2)."""
    from ..actuation import fwd_actuation
    from ..forward import fwd_acceleration, fwd_constraint
    from ..sensor import sensor_acc
    M, D = m._A, d._A
    fwd_actuation(M, D)
    actuation_hook(m, d)
    fwd_acceleration(M, D)
    fwd_constraint(M, D)
    if not skipsensor:
        sensor_acc(M, D)
        sensor_hook(m, d, 3)


def forward(m, d, skipstage=0, skipsensor=False):
    """mj_forwardSkip with the callbacks and Python plugins called at their points."""
    position_velocity(m, d, skipstage, skipsensor)
    cb = callbacks.get_mjcb_control()
    if cb is not None:
        cb(m, d)
    after_control(m, d, skipsensor)
