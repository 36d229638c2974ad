"""History buffers: actuator and sensor delay lines (MuJoCo 4: ``delay``, ``nsample``, ``interp``
on actuators and sensors; mjData.history; mj_readCtrl, mj_readSensor, mj_initCtrlHistory,
mj_initSensorHistory).

An actuator or sensor with ``nsample`` > 0 owns a buffer in ``d.history`` at its historyadr:

    [user, cursor, times[nsample], values[nsample * dim]]

a ring of the last ``nsample`` (time, value) samples, ``cursor`` the slot of the newest (times in
seconds, values in the control's or the sensor's units; dim 1 for an actuator). ``user`` is 0 for
an actuator; for a sensor, the time of its last computation (-timestep at the start). At
MjData creation and reset the samples are zeros at times -nsample*dt ... -dt (dt the timestep).

Each mj_step, with ``t`` the time the step starts at (all measured against mujoco 4.0.0):

- an actuator with a nonzero delay acts on its control read at ``t - delay`` from the buffer as it
  was before this step (so a delay shorter than the timestep still delays by one step), and its
  current control is appended at time ``t``;
- a sensor computes its value at ``t`` as usual and appends it at time ``t``; with a nonzero
  delay ``sensordata`` holds the value read at ``t - delay`` from the buffer before the append.

mj_forward reads the same way but appends nothing. Reading: the newest sample at or after the
newest time, the oldest at or before the oldest time, else the sample at or before the time
(``zoh``) or the line between the two samples around it (``linear``). Cubic interpolation and
sensor update intervals with a buffer raise NotImplementedError.

The delay lines run from Python around the compiled step (one compiled step per mj_step
iteration): models without history buffers take the compiled loop unchanged.

The fields mujoco has and the engine's flat layout does not (``actuator_history``,
``sensor_history``: (nsample, interp) per row; ``nhistory``; ``d.history``) are plain arrays on
the model and data objects.
"""
from __future__ import annotations

import numpy as np

__all__ = ["compile_history", "attach_model", "init_data", "mj_readCtrl", "mj_readSensor",
           "mj_initCtrlHistory", "mj_initSensorHistory", "INTERP"]

INTERP = {"zoh": 0, "linear": 1, "cubic": 2}
from .enums import mjMINVAL as MINVAL  # noqa: E402


# ---- compile ------------------------------------------------------------------------------------

def compile_history(c, acts, sensors):
    """Model fields of the delay lines from the <actuator>/<sensor> elements' delay, nsample,
    interp and interval; buffer addresses: actuators first, then sensors, in order. Returns the
    extras not in the engine's layout: (actuator_history, sensor_history, nhistory)."""
    from .compiler._err import err
    adr = 0
    ahist = np.zeros((len(acts), 2), np.int32)
    aadr = np.full(len(acts), -1, np.int32)
    for i, el in enumerate(acts):
        a = el.attrs
        n = int(a.get("nsample", 0) or 0)
        ahist[i] = n, INTERP[a.get("interp", "zoh") or "zoh"]
        if a.get("delay", 0.0) > 0 and n <= 0:
            raise err(el, "setting delay > 0 without a history buffer", "delay")
        if n > 0:
            aadr[i] = adr
            adr += 2 + 2 * n
    dims = c.v["sensor_dim"]
    shist = np.zeros((len(sensors), 2), np.int32)
    sadr = np.full(len(sensors), -1, np.int32)
    sint = np.zeros((len(sensors), 2))
    for i, el in enumerate(sensors):
        a = el.attrs
        n = int(a.get("nsample", 0) or 0)
        shist[i] = n, INTERP[a.get("interp", "zoh") or "zoh"]
        iv = tuple(a.get("interval", (0.0, 0.0)) or (0.0, 0.0))
        sint[i, :len(iv)] = iv
        if sint[i, 1] > 0:
            raise err(el, "positive phase in sensor", "interval")
        if a.get("delay", 0.0) > 0 and n <= 0:
            raise err(el, "setting delay > 0 without a history buffer", "delay")
        if n > 0:
            sadr[i] = adr
            adr += 2 + n + n * int(dims[i])
    c.v.update(actuator_delay=[el.attrs.get("delay", 0.0) for el in acts],
               actuator_historyadr=aadr,
               sensor_delay=[el.attrs.get("delay", 0.0) for el in sensors],
               sensor_interval=sint, sensor_historyadr=sadr)
    return ahist, shist, adr


def attach_model(m, ahist, shist, nhistory):
    """The extras on the model; ``m._history`` is None for a model without buffers (its steps
    take the compiled loop unchanged)."""
    m.__dict__.update(actuator_history=ahist, sensor_history=shist, nhistory=int(nhistory))
    m.__dict__["_history"] = _plan(m) if nhistory else None


def _plan(m):
    """Per-model tables the step reads: the delayed actuators and sensors."""
    acts = [i for i in range(m.nu) if m.actuator_historyadr[i] >= 0]
    sens = [i for i in range(m.nsensor) if m.sensor_historyadr[i] >= 0]
    for i in sens:
        if m.sensor_interval[i, 0] > 0:
            return NotImplementedError(
                f"sensor {i}: <sensor interval> with a history buffer (sensors updated every "
                "interval seconds) is not supported yet")
    for what, ids, hist in (("actuator", acts, m.actuator_history),
                            ("sensor", sens, m.sensor_history)):
        for i in ids:
            if int(hist[i, 1]) == 2:
                return NotImplementedError(f"{what} {i}: interp=\"cubic\" (cubic spline reads "
                                           "of a history buffer) is not supported yet")
    return {"acts": [i for i in acts if m.actuator_delay[i] != 0],
            "acts_all": acts,
            "sens": sens,
            "sens_delayed": [i for i in sens if m.sensor_delay[i] != 0]}


# ---- data ---------------------------------------------------------------------------------------

def init_data(m, d):
    """d.history at creation and reset: zero samples at times -n dt ... -dt, the newest last;
    a sensor's user slot -dt."""
    n = int(m.__dict__.get("nhistory", 0) or 0)
    h = d.__dict__.get("history")
    if h is None or h.shape != (n,):
        h = np.zeros(n)
        d.__dict__["history"] = h
        # scratch for the step (no allocation per step): the user's controls, fresh sensor values
        d.__dict__["_hist_ctrl"] = np.zeros(m.nu)
        d.__dict__["_hist_sens"] = np.zeros(m.nsensordata)
        d.__dict__["_hist_out"] = np.zeros(1)
    h[:] = 0.0
    if not n:
        return
    dt = float(m.opt.timestep)
    for hist, adrs, is_sensor in ((m.actuator_history, m.actuator_historyadr, False),
                                  (m.sensor_history, m.sensor_historyadr, True)):
        for i, adr in enumerate(adrs):
            if adr < 0:
                continue
            ns = int(hist[i, 0])
            h[adr] = -dt if is_sensor else 0.0
            h[adr + 1] = ns - 1
            h[adr + 2:adr + 2 + ns] = -dt * np.arange(ns, 0, -1)


# ---- reading ------------------------------------------------------------------------------------

def _read(h, adr, n, dim, t, interp, out):
    """The buffer at ``adr`` (n samples of dim values) read at time ``t`` into ``out``; returns
    the slot of an exact (or clamped) sample, or -1 when ``out`` holds an interpolation."""
    cur = int(h[adr + 1])
    times = h[adr + 2:adr + 2 + n]
    vals = h[adr + 2 + n:adr + 2 + n + n * dim]
    old = (cur + 1) % n
    # a sample within mjMINVAL of t is at t: t - delay rounds (0.03 - 0.02 < 0.01), and
    # mujoco 4.0.0 reads the 0.01 sample there (measured: matched at 1e-16, not at 1e-15)
    if t >= times[cur] - MINVAL:
        k = cur
    elif t <= times[old] + MINVAL:
        k = old
    else:
        # walk back from the newest to the first sample at or before t
        k = cur
        for _ in range(n):
            if times[k] <= t + MINVAL:
                break
            k = (k - 1) % n
        if abs(times[k] - t) > MINVAL and interp == 1:
            k1 = (k + 1) % n
            w = (t - times[k]) / (times[k1] - times[k])
            out[:dim] = vals[k * dim:(k + 1) * dim] + w * (vals[k1 * dim:(k1 + 1) * dim]
                                                         - vals[k * dim:(k + 1) * dim])
            return -1
    out[:dim] = vals[k * dim:(k + 1) * dim]
    return k


def _append(h, adr, n, dim, t, value):
    """Add the sample (t, value): after the newest (the oldest dropped) when t is later; at
    the newest time, its value replaced; earlier (a buffer initialised with later times), put
    in time order with the oldest dropped and the newest slot kept (measured: a time before
    every sample replaces the oldest)."""
    cur = int(h[adr + 1])
    times = h[adr + 2:adr + 2 + n]
    vals = h[adr + 2 + n:adr + 2 + n + n * dim].reshape(n, dim)
    if t > times[cur] + MINVAL:
        cur = (cur + 1) % n
        h[adr + 1] = cur
        times[cur] = t
        vals[cur] = value
        return
    if abs(t - times[cur]) <= MINVAL:
        vals[cur] = value
        return
    # chronological slots, oldest first: drop the oldest, shift the older-than-t ones down
    order = [(cur + 1 + k) % n for k in range(n)]
    j = 0
    while j + 1 < n and times[order[j + 1]] < t:
        times[order[j]] = times[order[j + 1]]
        vals[order[j]] = vals[order[j + 1]]
        j += 1
    times[order[j]] = t
    vals[order[j]] = value


# ---- the step -----------------------------------------------------------------------------------

def _plan_of(m):
    p = m.__dict__.get("_history")
    if isinstance(p, Exception):
        raise p
    return p


def _delay_ctrl(m, d, p):
    """d.ctrl of the delayed actuators <- their controls read at time - delay (the user's
    controls kept in d._hist_ctrl)."""
    c = d._hist_ctrl
    c[:] = d.ctrl
    h, t = d.history, d.time
    out = d._hist_out
    for i in p["acts"]:
        _read(h, int(m.actuator_historyadr[i]), int(m.actuator_history[i, 0]), 1,
              t - m.actuator_delay[i], int(m.actuator_history[i, 1]), out)
        d.ctrl[i] = out[0]


def _delay_sensors(m, d, p, t):
    """sensordata of the delayed sensors <- the buffer read at t - delay (before this step's
    sample is appended); the fresh values kept in d._hist_sens."""
    fresh = d._hist_sens
    fresh[:] = d.sensordata
    h = d.history
    for i in p["sens_delayed"]:
        a, dim = int(m.sensor_adr[i]), int(m.sensor_dim[i])
        _read(h, int(m.sensor_historyadr[i]), int(m.sensor_history[i, 0]), dim,
              t - m.sensor_delay[i], int(m.sensor_history[i, 1]), d.sensordata[a:a + dim])


def forward(m, d, run_forward):
    """mj_forward with delayed reads (nothing appended)."""
    p = _plan_of(m)
    _delay_ctrl(m, d, p)
    try:
        run_forward()
    finally:
        d.ctrl[:] = d._hist_ctrl
    _delay_sensors(m, d, p, d.time)


def step(m, d, nstep, step1):
    """``nstep`` steps, each the compiled step (``step1()``) between the delayed reads and the
    appends of this step's controls and sensor values at the time it started."""
    p = _plan_of(m)
    h = d.history
    for _ in range(nstep):
        t = d.time
        _delay_ctrl(m, d, p)
        try:
            step1()
        finally:
            d.ctrl[:] = d._hist_ctrl
        _delay_sensors(m, d, p, t)
        for i in p["acts_all"]:
            _append(h, int(m.actuator_historyadr[i]), int(m.actuator_history[i, 0]), 1, t,
                    d.ctrl[i])
        fresh = d._hist_sens
        for i in p["sens"]:
            a, dim = int(m.sensor_adr[i]), int(m.sensor_dim[i])
            _append(h, int(m.sensor_historyadr[i]), int(m.sensor_history[i, 0]), dim, t,
                    fresh[a:a + dim])


# ---- API ----------------------------------------------------------------------------------------

def _check_id(m, id, n, what):
    if not 0 <= int(id) < n:
        raise ValueError(f"invalid {what} id {id}")
    return int(id)


def mj_readCtrl(m, d, id, time, result, interp):
    """Actuator ``id``'s control at ``time`` minus its delay, read from its history buffer with
    interpolation ``interp`` (0 zero-order hold, 1 linear); without a buffer, d.ctrl[id].
    Returns the sample (a view of d.history or d.ctrl) or ``result`` holding an interpolation."""
    i = _check_id(m, id, m.nu, "actuator")
    adr = int(m.actuator_historyadr[i])
    if adr < 0:
        return d.ctrl[i:i + 1]
    if int(interp) == 2:
        raise NotImplementedError("mj_readCtrl: cubic interpolation is not supported yet")
    n = int(m.actuator_history[i, 0])
    k = _read(d.history, adr, n, 1, float(time) - m.actuator_delay[i], int(interp), result)
    if k < 0:
        return result
    return d.history[adr + 2 + n + k:adr + 3 + n + k]


def mj_readSensor(m, d, id, time, result, interp):
    """Sensor ``id``'s value at ``time`` minus its delay from its history buffer (as
    mj_readCtrl); without a buffer, its sensordata."""
    i = _check_id(m, id, m.nsensor, "sensor")
    adr, a, dim = int(m.sensor_historyadr[i]), int(m.sensor_adr[i]), int(m.sensor_dim[i])
    if adr < 0:
        return d.sensordata[a:a + dim]
    if int(interp) == 2:
        raise NotImplementedError("mj_readSensor: cubic interpolation is not supported yet")
    n = int(m.sensor_history[i, 0])
    k = _read(d.history, adr, n, dim, float(time) - m.sensor_delay[i], int(interp), result)
    if k < 0:
        return result
    return d.history[adr + 2 + n + k * dim:adr + 2 + n + (k + 1) * dim]


def _init(h, adr, n, dim, times, values):
    values = np.asarray(values, float).reshape(-1)
    if values.size != n * dim:
        raise ValueError(f"values must have {n * dim} numbers, got {values.size}")
    if times is not None:
        times = np.asarray(times, float).reshape(-1)
        if times.size != n:
            raise ValueError(f"times must have {n} numbers, got {times.size}")
        h[adr + 2:adr + 2 + n] = times
        h[adr + 1] = n - 1
    # oldest first: from the slot after the newest (the buffer's own times kept as they are
    # when none are given, measured against mujoco 4.0.0)
    cur = int(h[adr + 1])
    for k in range(n):
        j = (cur + 1 + k) % n
        h[adr + 2 + n + j * dim:adr + 2 + n + (j + 1) * dim] = values[k * dim:(k + 1) * dim]


def mj_initCtrlHistory(m, d, id, times, values):
    """Fill actuator ``id``'s buffer with ``values`` (nsample, oldest first) at ``times``
    (nsample, oldest first; None keeps the buffer's times and newest slot)."""
    i = _check_id(m, id, m.nu, "actuator")
    adr = int(m.actuator_historyadr[i])
    if adr < 0:
        raise ValueError(f"actuator {i} has no history buffer")
    _init(d.history, adr, int(m.actuator_history[i, 0]), 1, times, values)


def mj_initSensorHistory(m, d, id, times, values, phase):
    """Fill sensor ``id``'s buffer as mj_initCtrlHistory (values nsample x dim) and set its
    user slot (the time of its last computation) to ``phase``."""
    i = _check_id(m, id, m.nsensor, "sensor")
    adr = int(m.sensor_historyadr[i])
    if adr < 0:
        raise ValueError(f"sensor {i} has no history buffer")
    _init(d.history, adr, int(m.sensor_history[i, 0]), int(m.sensor_dim[i]), times, values)
    d.history[adr] = float(phase)
