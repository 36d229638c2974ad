"""Joint limits that commands are held to: position, effort and velocity, from the model and the
URDF; and the ramp that holds position actuators to the URDF velocity limit.

What a real robot's driver enforces, the simulator enforces too, so a controller under test meets
the same limits (issue 25.5, 20.3 of the project):
  position: the joint's range where it is limited (`jnt_limited`, `jnt_range`; a URDF
            `<limit lower upper>` becomes that range when the model compiles);
  effort:   the joint's actuator force range (`jnt_actfrclimited`, `jnt_actfrcrange`: MJCF
            `actuatorfrcrange`, which a URDF `<limit effort>` becomes), else the widest
            `forcerange` of the force-limited actuators on the joint;
  velocity: the URDF `<limit velocity>` (MuJoCo keeps no joint velocity limit: read from the URDF
            text), absent for MJCF models.
Units: rad, rad/s, N m for hinges; m, m/s, N for slides. No ROS and no engine import.
"""
from __future__ import annotations

import dataclasses
import math
import xml.etree.ElementTree as ET

import numpy as np
from numba import njit


@dataclasses.dataclass(frozen=True)
class JointLimits:
    """The limits of one joint; None where the joint has none."""

    position: tuple[float, float] | None = None
    effort: tuple[float, float] | None = None
    velocity: float | None = None   # > 0


def urdf_velocity_limits(urdf_text: str | None) -> dict[str, float]:
    """`<joint name><limit velocity>` of a URDF text: joint name -> limit (> 0 only; URDF's
    velocity 0 means 'not given' in practice)."""
    if not urdf_text:
        return {}
    try:
        root = ET.fromstring(urdf_text)
    except ET.ParseError:  # the model compiled from it, so this is not expected; no limits then
        return {}
    out = {}
    for joint in root.iter("joint"):
        limit = joint.find("limit")
        name = joint.get("name")
        if limit is None or not name:
            continue
        try:
            v = abs(float(limit.get("velocity", "0")))
        except ValueError:
            continue
        if v > 0 and math.isfinite(v):
            out[name] = v
    return out


def from_model(m, joints, urdf_text: str | None = None) -> dict[str, JointLimits]:
    """Limits of the joints `joints` (name -> JointInfo of mj_ros/commands.py: qposadr, dofadr,
    actuators) of the engine model `m`."""
    velocity = urdf_velocity_limits(urdf_text)
    dof_jnt = np.asarray(m.dof_jntid)
    out = {}
    for name, j in joints.items():
        jid = int(dof_jnt[j.dofadr])
        pos = None
        if bool(m.jnt_limited[jid]):
            lo, hi = (float(x) for x in m.jnt_range[jid])
            if lo < hi:
                pos = (lo, hi)
        eff = None
        if bool(m.jnt_actfrclimited[jid]):
            eff = tuple(float(x) for x in m.jnt_actfrcrange[jid])
        else:
            ranges = [m.actuator_forcerange[a] for a, _ in j.actuators.values()
                      if bool(m.actuator_forcelimited[a])]
            if ranges:
                eff = (min(float(r[0]) for r in ranges), max(float(r[1]) for r in ranges))
        out[name] = JointLimits(pos, eff, velocity.get(name))
    return out


class Ramp:
    """Moves controls towards their goals at most `rate` per second (only where rate is finite):
    position actuators follow a step command at the joint's velocity limit instead of jumping.

    `apply(goal, ctrl)` runs before every step; it writes into preallocated buffers only. Call
    `start()` whenever a goal changes; `active` drops to False once every ramped control reached
    its goal (then `apply` is one copy).
    """

    def __init__(self, rate: np.ndarray, timestep: float):
        rate = np.asarray(rate, dtype=float)
        self.idx = np.flatnonzero(np.isfinite(rate))
        self.step_max = rate[self.idx] * float(timestep)
        n = len(self.idx)
        self._prev, self._goal = np.zeros(n), np.zeros(n)
        self._lo, self._hi = np.zeros(n), np.zeros(n)
        self._moving = np.zeros(n, dtype=bool)
        self.active = False

    def start(self) -> None:
        self.active = len(self.idx) > 0

    def apply(self, goal: np.ndarray, ctrl: np.ndarray) -> None:
        """ctrl := goal, except that ramped entries move at most step_max from their value."""
        if not self.active:
            np.copyto(ctrl, goal)
            return
        i = self.idx
        np.take(ctrl, i, out=self._prev)
        np.copyto(ctrl, goal)
        np.take(goal, i, out=self._goal)
        np.subtract(self._prev, self.step_max, out=self._lo)
        np.add(self._prev, self.step_max, out=self._hi)
        np.clip(self._goal, self._lo, self._hi, out=self._prev)
        ctrl[i] = self._prev
        np.not_equal(self._prev, self._goal, out=self._moving)
        self.active = bool(self._moving.any())


@njit(cache=True, nogil=True)
def _cut_efforts(qvel, u, idx, dof, vmax, sign):
    """u[idx[k]] := 0 where joint dof[k] moves at or beyond vmax[k] and the effort (its sign
    times u) pushes it further."""
    for k in range(idx.shape[0]):
        v = qvel[dof[k]]
        if abs(v) >= vmax[k] and v * sign[k] * u[idx[k]] > 0.0:
            u[idx[k]] = 0.0


class EffortVelocityLimit:
    """The velocity limit of effort-commanded joints (motors, and efforts applied to a joint
    without one): an effort that would speed a joint already at its URDF velocity limit further
    is cut to zero for that step, as ros2_control's joint_limits saturate effort commands; the
    joint coasts back under the limit and the effort resumes. Position actuators (Ramp) and
    velocity actuators (clamped commands) are held to the limit by their commands.

    `apply(qvel, ctrl, qfrc_applied)` runs before every step on the engine's arrays (the
    commands themselves are kept); one compiled loop per array, no allocation.
    """

    def __init__(self, cmap, joint_limits: dict):
        motor_idx, motor_dof, motor_v, motor_s, dof_idx, dof_v = [], [], [], [], [], []
        for name, lim in joint_limits.items():
            j = cmap.joints.get(name)
            if j is None or lim.velocity is None:
                continue
            act = j.actuators.get("motor")
            if act is not None:
                motor_idx.append(act[0])
                motor_dof.append(j.dofadr)
                motor_v.append(lim.velocity)
                motor_s.append(1.0 if act[1] >= 0 else -1.0)
            dof_idx.append(j.dofadr)       # a direct effort on the joint (no motor: qfrc)
            dof_v.append(lim.velocity)
        as_i = lambda x: np.asarray(x, dtype=np.int64)  # noqa: E731
        self._motor = (as_i(motor_idx), as_i(motor_dof), np.asarray(motor_v, float),
                       np.asarray(motor_s, float))
        self._dof = (as_i(dof_idx), as_i(dof_idx), np.asarray(dof_v, float),
                     np.ones(len(dof_idx)))
        self.active = bool(motor_idx or dof_idx)
        if self.active:  # compile (first run) or load the kernel now, not at the first effort
            _cut_efforts(np.zeros(1), np.zeros(1), *(a[:0] for a in self._motor))

    def engaged(self, ctrl: np.ndarray, qfrc_applied: np.ndarray) -> bool:
        """Whether a guarded effort is nonzero (then `apply` may change the inputs from one step
        to the next: the node does not hand several steps to the engine in one call)."""
        return self.active and bool(np.any(ctrl[self._motor[0]]) or
                                    np.any(qfrc_applied[self._dof[0]]))

    def apply(self, qvel: np.ndarray, ctrl: np.ndarray, qfrc_applied: np.ndarray) -> None:
        if self.active:
            _cut_efforts(qvel, ctrl, *self._motor)
            _cut_efforts(qvel, qfrc_applied, *self._dof)
