"""Sim time that never goes back, real-time pacing and the measured real-time factor.

Pure Python, no ROS: the node asks these objects when to step and what time to stamp.
"""
from __future__ import annotations

import collections
import time


class SimClock:
    """Published sim time = engine time + offset, kept monotonic across resets.

    The engine's `d.time` restarts at a reset (by service, or when the engine resets a diverging
    simulation); the offset grows by what was lost, so /clock and every stamp keep counting forward
    and tf buffers never see time go back.
    """

    def __init__(self, start: float = 0.0):
        self.offset = float(start)
        self._last = float(start)

    def now(self, engine_time: float) -> float:
        t = engine_time + self.offset
        if t < self._last:  # the engine's time went back without notice (divergence reset)
            self.offset += self._last - t
            t = self._last
        self._last = t
        return t

    def rebase(self, engine_time: float) -> None:
        """Call after resetting the engine: the next stamp continues from the last one."""
        self.offset = self._last - engine_time

    @property
    def last(self) -> float:
        return self._last


def to_stamp(t: float) -> tuple[int, int]:
    """Seconds -> (sec, nanosec) of builtin_interfaces/Time."""
    ns = int(round(t * 1e9))
    return ns // 1_000_000_000, ns % 1_000_000_000


class Pacer:
    """Decides when the next step is due on the wall clock for a target speed.

    speed > 0: sim time advances `speed` times as fast as wall time (1 = real time), on an absolute
    schedule so timer jitter does not accumulate. A step that starts later than one period after its
    due time counts as an overrun; when the loop falls `max_lag` seconds behind it re-anchors instead
    of racing to catch up. speed == 0: as fast as possible (always due).
    """

    def __init__(self, speed: float, timestep: float, max_lag: float = 0.1,
                 clock=time.monotonic):
        self.timestep = float(timestep)
        self.max_lag = float(max_lag)
        self._clock = clock
        self.overruns = 0
        self.reanchors = 0
        self.set_speed(speed)

    def set_speed(self, speed: float) -> None:
        if not speed >= 0.0:
            raise ValueError(f"speed must be >= 0, got {speed}")
        self.speed = float(speed)
        self.anchor()

    def anchor(self) -> None:
        """Restart the schedule now (after pause, reset of speed, ...)."""
        self._wall0 = self._clock()
        self._steps = 0

    def wait_time(self) -> float:
        """Seconds until the next step is due (<= 0: step now)."""
        if self.speed == 0.0:
            return 0.0
        due = self._wall0 + self._steps * self.timestep / self.speed
        late = self._clock() - due
        if late > self.max_lag:
            self.reanchors += 1
            self.overruns += 1
            self.anchor()
            return 0.0
        return -late

    def stepped(self) -> None:
        """Record that one step was taken."""
        if self.speed != 0.0:
            due = self._wall0 + self._steps * self.timestep / self.speed
            if self._clock() - due > self.timestep / self.speed:
                self.overruns += 1
        self._steps += 1


class RateMeter:
    """Real-time factor over a sliding wall-time window: sim seconds / wall seconds."""

    def __init__(self, window: float = 2.0, clock=time.monotonic):
        self.window = window
        self._clock = clock
        self._samples: collections.deque[tuple[float, float]] = collections.deque()

    def add(self, sim_time: float) -> None:
        now = self._clock()
        self._samples.append((now, sim_time))
        while len(self._samples) > 2 and now - self._samples[0][0] > self.window:
            self._samples.popleft()

    def reset(self) -> None:
        self._samples.clear()

    @property
    def factor(self) -> float:
        if len(self._samples) < 2:
            return 0.0
        (w0, s0), (w1, s1) = self._samples[0], self._samples[-1]
        return (s1 - s0) / (w1 - w0) if w1 > w0 else 0.0
