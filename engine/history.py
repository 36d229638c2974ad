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
(``zoh``) or the line between the two samples around it (``linear``) or the
Catmull-Rom spline through the samples around it (``cubic``; _cubic).

A sensor with an update interval (``interval``: period, phase) is computed only when due (one
period after its last computation, the user slot, which then advances by one period) and appends
then only; otherwise its sensordata keeps its value from before the step (delay 0) or is the
delayed read (delay > 0).

mj_step1 reads the delayed position and velocity sensors; mj_step2 the delayed controls and
acceleration sensors, then appends every buffer at the step's start time (step1, step2).

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
    return {"acts": [i for i in acts if m.actuator_delay[i] != 0],
            "acts_all": acts,
            "sens": sens,
            "sens_interval": [i for i in sens if m.sensor_interval[i, 0] > 0]}


# ---- data ---------------------------------------------------------------------------------------

def init_data(m, d):
    """d.history at creation and reset: zero samples at times -n dt ... -dt, the newest last;
    a sensor's user slot -dt. A sensor with an update interval (period, phase; phase 0 meaning
    -period): samples at phase - (n-1) period ... phase, each rounded up to a multiple of dt
    (when it could have been computed), its user slot the phase (modeling guide "Delays")."""
    n = int(m.__dict__.get("nhistory", 0) or 0)
    h = d.__dict__.get("history")
    if h is None or h.shape != (n,):
        h = np.zeros(n)
        d.__dict__["history"] = h
        # scratch for the step (no allocation per step): the user's controls, fresh sensor values
        d.__dict__["_hist_ctrl"] = np.zeros(m.nu)
        d.__dict__["_hist_sens"] = np.zeros(m.nsensordata)
        # sensordata before a step: what a sensor not due for its update interval keeps
        d.__dict__["_hist_held"] = np.zeros(m.nsensordata)
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
            period = float(m.sensor_interval[i, 0]) if is_sensor else 0.0
            if period > 0:
                phase = float(m.sensor_interval[i, 1]) or -period
                h[adr] = phase
            if period > dt:
                # (a period of at most dt computes every step: the samples stay dt apart)
                # rounded up, with a tolerance: -0.09 / 0.01 is -8.999999999999998 (mujoco
                # 4.0.0 puts that sample at -0.09)
                h[adr + 2:adr + 2 + ns] = dt * np.ceil(
                    (phase - period * np.arange(ns - 1, -1, -1)) / dt - 1e-9)


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
        if abs(times[k] - t) > MINVAL and interp == 2:
            _cubic(times, vals, n, dim, k, old, cur, t, out)
            return -1
    out[:dim] = vals[k * dim:(k + 1) * dim]
    return k


def _slope(times, vals, dim, j, a, b):
    """(vals[b] - vals[a]) / (times[b] - times[a]), the finite-difference tangent at sample j
    (value units per second); zero at the buffer's ends (a or b None)."""
    if a is None or b is None:
        return np.zeros(dim)
    return (vals[b * dim:(b + 1) * dim] - vals[a * dim:(a + 1) * dim]) / (times[b] - times[a])


def _cubic(times, vals, n, dim, k, old, cur, t, out):
    """Catmull-Rom read between samples k and k + 1 (MuJoCo's interp "cubic", modeling guide
    "Delays"): the cubic Hermite spline through the two samples with tangents the central
    differences of their neighbours, in time (nonuniform samples); a tangent at the oldest or
    newest sample is zero (measured on mujoco 4.0.0's mj_readCtrl)."""
    k1 = (k + 1) % n
    m0 = _slope(times, vals, dim, k, None if k == old else (k - 1) % n, k1)
    m1 = _slope(times, vals, dim, k1, k, None if k1 == cur else (k1 + 1) % n)
    h = times[k1] - times[k]
    s = (t - times[k]) / h
    s2, s3 = s * s, s * s * s
    out[:dim] = ((2 * s3 - 3 * s2 + 1) * vals[k * dim:(k + 1) * dim]
                 + (s3 - 2 * s2 + s) * h * m0
                 + (-2 * s3 + 3 * s2) * vals[k1 * dim:(k1 + 1) * dim]
                 + (s3 - s2) * h * m1)


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


def _due(m, d, i, t):
    """Whether sensor i (with an update interval) is computed at time t: one period after its
    last computation (the user slot; measured: a period of 2.5 dt computes at 0, 3, 5, 8, 10
    dt... as the modeling guide's "interval" says)."""
    # no tolerance (measured: at a time of 0.09999999999999999 a sensor computed last at
    # 0.07500000000000001 with a period of 0.025 is not due)
    return t >= d.history[int(m.sensor_historyadr[i])] + m.sensor_interval[i, 0]


def _hold(m, d, p, t, stages=(1, 2, 3)):
    """Sensors with an update interval that are not due at t keep their sensordata from before
    the step (d._hist_held): MuJoCo does not compute them."""
    for i in p["sens_interval"]:
        if int(m.sensor_needstage[i]) in stages and not _due(m, d, i, t):
            a, dim = int(m.sensor_adr[i]), int(m.sensor_dim[i])
            d.sensordata[a:a + dim] = d._hist_held[a:a + dim]


def forward(m, d, run_forward):
    """mj_forward with delayed reads (nothing appended; a due interval sensor is computed but
    its last-computation time is not advanced)."""
    _run_delayed(m, d, _plan_of(m), d.time, run_forward, (1, 2, 3))


def _run_delayed(m, d, p, t, run, stages):
    """``run()`` (stages of the pipeline) with the delayed controls in d.ctrl (the user's put
    back after), then the sensors of those stages (sensor_needstage) not due for their update
    interval held and the delayed ones read at t - delay."""
    d._hist_held[:] = d.sensordata
    _delay_ctrl(m, d, p)
    try:
        run()
    finally:
        d.ctrl[:] = d._hist_ctrl
    _hold(m, d, p, t, stages)
    _fresh_and_delayed(m, d, p, t, stages)


def step(m, d, nstep, step1):
    """``nstep`` steps, each the compiled step (``step1()``) between the delayed reads and the
    appends of this step's controls and sensor values at the time it started."""
    p = _plan_of(m)
    for _ in range(nstep):
        t = d.time
        _run_delayed(m, d, p, t, step1, (1, 2, 3))
        _append_all(m, d, p, t)


def _append_all(m, d, p, t):
    """Append every buffer's sample at time t: the user's controls (d.ctrl) and the sensors'
    fresh values (d._hist_sens); a sensor with an update interval only when due, its last
    computation time then advanced by one period."""
    h, fresh = d.history, d._hist_sens
    for i in p["acts_all"]:
        _append(h, int(m.actuator_historyadr[i]), int(m.actuator_history[i, 0]), 1, t,
                d.ctrl[i])
    for i in p["sens"]:
        adr, a, dim = int(m.sensor_historyadr[i]), int(m.sensor_adr[i]), int(m.sensor_dim[i])
        if m.sensor_interval[i, 0] > 0:
            if not _due(m, d, i, t):
                continue
            h[adr] += m.sensor_interval[i, 0]
        _append(h, adr, int(m.sensor_history[i, 0]), dim, t, fresh[a:a + dim])


def _fresh_and_delayed(m, d, p, t, stages=(1, 2, 3)):
    """For the buffered sensors of the given stages (sensor_needstage): keep the fresh values in
    d._hist_sens, then the delayed ones' sensordata <- the buffer read at t - delay (before this
    step's sample is appended)."""
    fresh, h = d._hist_sens, d.history
    for i in p["sens"]:
        if int(m.sensor_needstage[i]) not in stages:
            continue
        a, dim = int(m.sensor_adr[i]), int(m.sensor_dim[i])
        fresh[a:a + dim] = d.sensordata[a:a + dim]
        if m.sensor_delay[i] != 0:
            _read(h, int(m.sensor_historyadr[i]), int(m.sensor_history[i, 0]), dim,
                  t - m.sensor_delay[i], int(m.sensor_history[i, 1]), d.sensordata[a:a + dim])


def step1(m, d, run_step1):
    """mj_step1 with delay lines (measured against mujoco 4.0.0): the position and velocity
    stages (``run_step1()``), then the delayed position/velocity sensors read at the current
    time; nothing is appended (mj_step2 appends)."""
    p = _plan_of(m)
    d._hist_held[:] = d.sensordata
    run_step1()
    _hold(m, d, p, d.time, (1, 2))
    _fresh_and_delayed(m, d, p, d.time, (1, 2))


def step2(m, d, run_step2):
    """mj_step2 with delay lines: the delayed controls read at the step's start time ``t``, the
    rest of the step (``run_step2()``), the delayed acceleration sensors read at ``t``, then every
    buffer appended at ``t`` (the user's controls; the sensors' fresh values, the position and
    velocity ones kept by mj_step1): mj_step1 + mj_step2 = mj_step (measured)."""
    p = _plan_of(m)
    t = d.time
    _run_delayed(m, d, p, t, run_step2, (3,))
    _append_all(m, d, p, t)


# ---- API ----------------------------------------------------------------------------------------

def _check_id(m, id, n, what):
    if not 0 <= int(id) < n:
        raise ValueError(f"invalid {what} id {id}")
    return int(id)


def mj_readCtrl(m, d, id, time, result, interp):
    """Actuator ``id``'s control at ``time`` minus its delay, read from its history buffer with
    interpolation ``interp`` (0 zero-order hold, 1 linear, 2 cubic); without a buffer,
    d.ctrl[id].
    Returns the sample (a view of d.history or d.ctrl) or ``result`` holding an interpolation."""
    i = _check_id(m, id, m.nu, "actuator")
    adr = int(m.actuator_historyadr[i])
    if adr < 0:
        return d.ctrl[i:i + 1]
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
