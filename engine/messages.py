"""Warning messages and the user's warning handler (seed 001, "Errors and warnings": mju_warning
and the mju_user_warning hook; mjData.warning counts each mjtWarning).

When the simulation records a warning for the first time (its ``d.warning[w].number`` goes
from 0 to 1), MuJoCo formats a message (`mju_warningText` plus the simulation time) and passes it
to the installed handler, or prints it as ``WARNING: ...`` without one. `warn` does that for the
engine's host code; `set_mju_user_warning` installs the handler as the bindings do (dm_control
installs one when it is imported, as a ctypes callback taking bytes, which is accepted too).
"""
from __future__ import annotations

import sys

from .enums import mjtWarning

_handler = None

# mju_warningText's formats, indexed by mjtWarning (the texts MuJoCo 4.0.0 produces).
_TEXT = {
    mjtWarning.mjWARN_INERTIA: "Inertia matrix is too close to singular, or the effective-metric "
                               "solve failed to converge, at DOF {}. Check model.",
    mjtWarning.mjWARN_CONTACTFULL: "Too many contacts. The arena memory is full, increase arena "
                                   "memory allocation.(ncon = {})",
    mjtWarning.mjWARN_CNSTRFULL: "Insufficient arena memory for the number of constraints "
                                 "generated. Increase arena memory allocation above {} bytes.",
    mjtWarning.mjWARN_BADQPOS: "Nan, Inf or huge value in QPOS at DOF {}. The simulation is "
                               "unstable.",
    mjtWarning.mjWARN_BADQVEL: "Nan, Inf or huge value in QVEL at DOF {}. The simulation is "
                               "unstable.",
    mjtWarning.mjWARN_BADQACC: "Nan, Inf or huge value in QACC at DOF {}. The simulation is "
                               "unstable.",
    mjtWarning.mjWARN_BADCTRL: "Nan, Inf or huge value in CTRL at ACTUATOR {}. The simulation "
                               "is unstable.",
}


def set_mju_user_warning(fn):
    """Install ``fn(message)`` as the warning handler (None restores printing)."""
    global _handler
    if fn is not None and not callable(fn):
        raise TypeError("the warning handler must be callable or None")
    _handler = fn


def get_mju_user_warning():
    """The installed warning handler, or None."""
    return _handler


def mju_warningText(warning, info):
    """The message of warning type ``warning`` (an mjtWarning) with its ``info`` value (a dof,
    an actuator, a count or a size, per type)."""
    try:
        return _TEXT[mjtWarning(int(warning))].format(int(info))
    except ValueError:
        raise ValueError(f"invalid warning type {warning}") from None


def warn(d, warning, info):
    """Report warning ``warning`` of data ``d`` (its first occurrence): the message with the
    simulation time to the handler, or printed as ``WARNING: ...``."""
    msg = f"{mju_warningText(warning, info)} Time = {d.time:.4f}."
    if _handler is None:
        print(f"WARNING: {msg}\n", file=sys.stdout, flush=True)
    else:
        _handler(msg.encode() if type(_handler).__module__ == "ctypes" else msg)


__all__ = ["set_mju_user_warning", "get_mju_user_warning", "mju_warningText"]
