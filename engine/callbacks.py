"""Global callbacks, as MuJoCo's mjcb_* function pointers (seed 001 "Simulation loop" and
"Callbacks": the control callback is called by mj_forward/mj_step once the state-dependent
stages are done, before actuation).

``set_mjcb_control(fn)`` installs ``fn(m, d)`` (None removes it). While a control callback is set,
mj_step and mj_forward run their stages from Python so that the callback can be called between
them (slower than the compiled loop, which needs no callback). The official bindings expose the
same as ``mujoco.set_mjcb_control``.

The other callbacks (user passive forces, user sensors, user actuator dynamics/gain/bias, the
contact filter, the timer) and the user allocator hooks are not called by the engine yet:
their setters accept None (the state they report) and raise NotImplementedError naming the
callback for a function, so a program that relies on one stops instead of silently running
without it.
"""
from __future__ import annotations

_control = None

# callbacks the engine does not call: name -> what it would be for
_NOT_CALLED = {
    "mjcb_passive": "user passive forces",
    "mjcb_sensor": "user sensors (mjSENS_USER)",
    "mjcb_act_dyn": "user actuator dynamics (mjDYN_USER)",
    "mjcb_act_gain": "user actuator gain (mjGAIN_USER)",
    "mjcb_act_bias": "user actuator bias (mjBIAS_USER)",
    "mjcb_contactfilter": "a user contact filter",
    "mjcb_time": "the profiler's timer",
    "mju_user_malloc": "a user allocator (the engine allocates with numpy)",
    "mju_user_free": "a user allocator (the engine allocates with numpy)",
}


def set_mjcb_control(fn):
    """Install the control callback ``fn(m, d)``; None removes it."""
    global _control
    if fn is not None and not callable(fn):
        raise TypeError("mjcb_control must be callable or None")
    _control = fn


def get_mjcb_control():
    """The installed control callback, or None."""
    return _control


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
    set_mjcb_control(None)


__all__ = ["set_mjcb_control", "get_mjcb_control", "mj_resetCallbacks"] + \
    [f"{p}_{n}" for n in _NOT_CALLED for p in ("set", "get")]
