"""Global callbacks, as MuJoCo's mjcb_* function pointers (seed 001 "Simulation loop" and
"Callbacks"; seed 002 calls them "physics callbacks", kept for quick prototyping and for code in
Python).

``set_mjcb_control(fn)`` installs ``fn(m, d)`` (None removes it); the official bindings expose the
same names (``mujoco.set_mjcb_control``, ``mujoco.set_mjcb_passive``, ...). Where the engine calls
each one, as MuJoCo's pipeline does:

- ``mjcb_passive(m, d)``: at the end of mj_passive (velocity stage), to add to qfrc_passive;
- ``mjcb_sensor(m, d, stage)``: in mj_sensorPos/Vel/Acc when the model has user sensors
  (mjSENS_USER) of that stage, whose sensordata is cleared first; the stage's cutoff applies after;
- ``mjcb_control(m, d)``: after the position and velocity stages, before actuation;
- ``mjcb_act_dyn(m, d, id)`` -> act_dot, ``mjcb_act_gain(m, d, id)`` -> gain,
  ``mjcb_act_bias(m, d, id)`` -> bias: in mj_fwdActuation for actuators with dyntype, gaintype or
  biastype "user" (without a callback: act_dot 0, gain 1, bias 0, as in MuJoCo).

While any of them has work to do on a model (`python_stages`), mj_step and mj_forward run their
stages from Python (`engine.plugin.pipeline`) so the callbacks can be called between them (slower
than the compiled loop, which needs none).

The contact filter, the timer and the user allocator hooks are not called by the engine yet:
their setters accept None (the state they report) and raise NotImplementedError naming the
callback for a function, so a program that relies on one stops instead of silently running
without it.
"""
from __future__ import annotations

_control = None
_passive = None
_sensor = None
_act_dyn = None
_act_gain = None
_act_bias = None
# True while neither a control nor a passive callback is set: with a model's cached
# "_ext_python" False, mj_step's test for the compiled loop is one global and one dict lookup
idle = True

# callbacks the engine does not call: name -> what it would be for
_NOT_CALLED = {
    "mjcb_contactfilter": "a user contact filter",
    "mjcb_time": "the profiler's timer",
    "mju_user_malloc": "a user allocator (the engine allocates with numpy)",
    "mju_user_free": "a user allocator (the engine allocates with numpy)",
}


def _check(name, fn):
    if fn is not None and not callable(fn):
        raise TypeError(f"{name} must be callable or None")


def set_mjcb_control(fn):
    """Install the control callback ``fn(m, d)``; None removes it."""
    global _control, idle
    _check("mjcb_control", fn)
    _control = fn
    idle = _control is None and _passive is None


def get_mjcb_control():
    """The installed control callback, or None."""
    return _control


def set_mjcb_passive(fn):
    """Install the passive-force callback ``fn(m, d)`` (adds to d.qfrc_passive); None removes
    it."""
    global _passive, idle
    _check("mjcb_passive", fn)
    _passive = fn
    idle = _control is None and _passive is None


def get_mjcb_passive():
    """The installed passive-force callback, or None."""
    return _passive


def set_mjcb_sensor(fn):
    """Install the user-sensor callback ``fn(m, d, stage)`` (fills the sensordata of the
    mjSENS_USER sensors whose needstage is ``stage``, an mjtStage); None removes it."""
    global _sensor
    _check("mjcb_sensor", fn)
    _sensor = fn


def get_mjcb_sensor():
    """The installed user-sensor callback, or None."""
    return _sensor


def set_mjcb_act_dyn(fn):
    """Install the user actuator dynamics ``fn(m, d, id) -> act_dot`` (mjDYN_USER); None
    removes it."""
    global _act_dyn
    _check("mjcb_act_dyn", fn)
    _act_dyn = fn


def get_mjcb_act_dyn():
    """The installed user actuator dynamics callback, or None."""
    return _act_dyn


def set_mjcb_act_gain(fn):
    """Install the user actuator gain ``fn(m, d, id) -> gain`` (mjGAIN_USER); None removes
    it."""
    global _act_gain
    _check("mjcb_act_gain", fn)
    _act_gain = fn


def get_mjcb_act_gain():
    """The installed user actuator gain callback, or None."""
    return _act_gain


def set_mjcb_act_bias(fn):
    """Install the user actuator bias ``fn(m, d, id) -> bias`` (mjBIAS_USER); None removes
    it."""
    global _act_bias
    _check("mjcb_act_bias", fn)
    _act_bias = fn


def get_mjcb_act_bias():
    """The installed user actuator bias callback, or None."""
    return _act_bias


def python_stages(m):
    """True when a step of ``m`` must run its stages from Python: a control or passive
    callback is set, the model has user sensors or user actuators, or instances of plugins that
    run from Python (engine.plugin)."""
    if _control is not None or _passive is not None:
        return True
    ext = m.__dict__.get("_ext_python")
    if ext is False:        # the common case: nothing to call (one lookup on mj_step's path)
        return False
    if ext is None:
        from .plugin.pipeline import needs_python
        user_sensors, always = needs_python(m)
        ext = (user_sensors, always) if user_sensors or always else False
        m.__dict__["_ext_python"] = ext
        if ext is False:
            return False
    return ext[1] or (ext[0] and _sensor is not None)


def _unsupported(name):
    what = _NOT_CALLED[name]

    def setter(fn):
        if fn is not None:
            if not callable(fn):
                raise TypeError(f"{name} must be callable or None")
            raise NotImplementedError(f"{name} ({what}) is not supported by the engine yet")

    def getter():
        return None

    setter.__name__, getter.__name__ = f"set_{name}", f"get_{name}"
    setter.__doc__ = f"Only None (no callback) is accepted: {name}, {what}, is not called yet."
    getter.__doc__ = f"None: the engine calls no {name}."
    return setter, getter


for _name in _NOT_CALLED:
    globals()[f"set_{_name}"], globals()[f"get_{_name}"] = _unsupported(_name)


def mj_resetCallbacks():
    """Remove every installed callback (mujoco: reset the mjcb_* pointers to NULL)."""
    for setter in (set_mjcb_control, set_mjcb_passive, set_mjcb_sensor, set_mjcb_act_dyn,
                   set_mjcb_act_gain, set_mjcb_act_bias):
        setter(None)


__all__ = ["mj_resetCallbacks"] + \
    [f"{p}_mjcb_{n}" for n in ("control", "passive", "sensor", "act_dyn", "act_gain", "act_bias")
     for p in ("set", "get")] + \
    [f"{p}_{n}" for n in _NOT_CALLED for p in ("set", "get")]
