"""Per-data timers (seed 001 "Diagnostics": mjData.timer, mjTimerStat; mjtTimer indexes them).

mujoco times its API calls and the stages inside them. The engine's step runs as one compiled
kernel, where no clock is read, so it times what it runs from Python: each mj_step call adds
its duration and its nstep steps to ``d.timer[mjTIMER_STEP]``, mj_forward to
``mjTIMER_FORWARD`` and mj_inverse to ``mjTIMER_INVERSE``; the stage timers (position,
velocity, ..., collision) stay 0 with number 0, mujoco's values for a stage that did not run.
mj_resetData clears them, as mujoco's does.
"""
from __future__ import annotations

import numpy as np

from .enums import mjtTimer
from .structs import struct_class

NTIMER = int(mjtTimer.mjNTIMER)

MjTimerStat = struct_class("MjTimerStat", [
    ("duration", np.float64, (), 0.0, "total time spent (s)"),
    ("number", np.int32, (), 0, "number of calls or steps timed"),
], "One timer of an MjData (MuJoCo's mjTimerStat).")


def lists(d):
    """The (durations, numbers) lists of ``d``'s timers, made on first use."""
    t = d.__dict__.get("_timer")
    if t is None:       # made once per MjData, on its first timed call
        t = d.__dict__["_timer"] = ([0.0] * NTIMER, [0] * NTIMER)
    return t


def add(d, k: int, seconds: float, n: int) -> None:
    """Timer ``k`` of ``d`` += ``seconds`` over ``n`` calls (Python lists: a numpy element
    update would cost a microsecond per step)."""
    t = d.__dict__.get("_timer") or lists(d)
    t[0][k] += seconds
    t[1][k] += n


def clear(d) -> None:
    """Zero every timer of ``d`` (mj_resetData)."""
    t = d.__dict__.get("_timer")
    if t is not None:
        t[0][:] = [0.0] * NTIMER
        t[1][:] = [0] * NTIMER


class _TimerView(MjTimerStat):
    """One of d.timer: an MjTimerStat whose fields read and write the data's timer k."""

    __slots__ = ("_t", "_k")

    def __init__(self, t, k):
        MjTimerStat.__init__(self)
        object.__setattr__(self, "_t", t)
        object.__setattr__(self, "_k", k)

    duration = property(lambda self: float(self._t[0][self._k]),
                        lambda self, v: self._t[0].__setitem__(self._k, float(v)))
    number = property(lambda self: int(self._t[1][self._k]),
                      lambda self, v: self._t[1].__setitem__(self._k, int(v)))

    def __copy__(self):
        out = MjTimerStat()
        out.duration, out.number = self.duration, self.number
        return out

    def __repr__(self):
        return repr(self.__copy__())


def _timer(d):
    """d.timer: the NTIMER MjTimerStat of ``d`` (views: writes reach the data)."""
    t = lists(d)
    return [_TimerView(t, k) for k in range(NTIMER)]


def install(cls) -> None:
    """Give MjData class ``cls`` its ``timer`` property."""
    cls.timer = property(_timer, doc=_timer.__doc__)
