"""Global callbacks, as MuJoCo's mjcb_* function pointers (seed 001 "Simulation loop": the control
callback is called by mj_forward/mj_step once the state-dependent stages are done, before
actuation).

``set_mjcb_control(fn)`` installs ``fn(m, d)`` (None removes it). While a control callback is set,
mj_step and mj_forward run their stages from Python so that the callback can be called between
them (slower than the compiled loop, which needs no callback). The official bindings expose the
same as ``mujoco.set_mjcb_control``.
"""
from __future__ import annotations

_control = None


def set_mjcb_control(fn):
    """Install the control callback ``fn(m, d)``; None removes it."""
    global _control
    if fn is not None and not callable(fn):
        raise TypeError("mjcb_control must be callable or None")
    _control = fn


def get_mjcb_control():
    """The installed control callback, or None."""
    return _control


def set_mjcb_sensor(fn):
    """User sensors are not supported yet."""
    if fn is not None:
        raise NotImplementedError("mjcb_sensor (user sensors) is not supported yet")


def set_mjcb_passive(fn):
    """User passive forces are not supported yet."""
    if fn is not None:
        raise NotImplementedError("mjcb_passive is not supported yet")
