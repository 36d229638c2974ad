"""Turn command messages into actuator controls and generalized forces.

Pure: no ROS and no engine import. The node hands in the fields of a message as plain sequences and
gets back a validated `Command` (which control / dof entries to set to which values) or a
`CommandError` that says why the whole message is dropped. Nothing is applied partially: a message
with one bad entry changes nothing.

Mapping of sensor_msgs/JointState (by joint name, hinge and slide joints only):
  position -> the joint's position actuator (ctrl = gear * position),
  velocity -> the joint's velocity actuator (ctrl = gear * velocity),
  effort   -> the joint's motor (ctrl = effort / gear) or, where the joint has no motor, straight to
              the joint as a generalized force (qfrc_applied).
Each field is optional (empty) or has one entry per name. A position or velocity for a joint without
the matching actuator is an error. Values are clamped to the actuators' ctrlrange and, once
`set_limits` was given the joints' limits (mj_ros/limits.py), to those: positions to the joint
range, velocities to the velocity limit, efforts (motor controls and direct generalized forces)
to the effort limit. `Command.clamped` counts the clamped values and `Command.note` names the
first one, for the node's throttled warning.

Actuators are told apart from their gain and bias parameters as MuJoCo's shortcuts set them:
  position: gain = [kp], bias = [0, -kp, -kv];  velocity: gain = [kv], bias = [0, 0, -kv];
  motor: gain = [1], bias = 0. Anything else is 'general': reachable only through ~/ctrl.
"""
from __future__ import annotations

import dataclasses
import enum
import math
from typing import Sequence

import numpy as np

POSITION, VELOCITY, MOTOR, GENERAL = "position", "velocity", "motor", "general"


class CommandError(ValueError):
    """A command message that is dropped as a whole; str(e) says why."""


def classify_actuator(gainprm: Sequence[float], biasprm: Sequence[float]) -> str:
    g0 = float(gainprm[0])
    b = [float(x) for x in biasprm[:3]]
    rest_gain = any(float(x) != 0.0 for x in gainprm[1:])
    if rest_gain or g0 == 0.0 or b[0] != 0.0:
        return GENERAL
    if b[1] == -g0:
        return POSITION
    if b[1] == 0.0 and b[2] == -g0:
        return VELOCITY
    if g0 == 1.0 and b[1] == 0.0 and b[2] == 0.0 and not any(float(x) for x in biasprm):
        return MOTOR
    return GENERAL


@dataclasses.dataclass
class Command:
    """Entries to write: ctrl[ctrl_idx] = ctrl_val, qfrc_applied[dof_idx] = dof_val."""

    ctrl_idx: np.ndarray
    ctrl_val: np.ndarray
    dof_idx: np.ndarray
    dof_val: np.ndarray
    clamped: int = 0  # how many values were clamped into range
    note: str = ""    # the first clamped value: "<what>: <value> -> <clamped>"


@dataclasses.dataclass(frozen=True)
class JointInfo:
    name: str
    qposadr: int
    dofadr: int
    actuators: dict  # kind -> (actuator index, gear)


class TimeoutAction(str, enum.Enum):
    HOLD = "hold"   # keep the last command
    ZERO = "zero"   # zero efforts and velocities; position actuators hold the current position


class CommandMap:
    """What each joint and actuator of a model accepts. Built once per model."""

    def __init__(self, joints: Sequence[JointInfo], nu: int, ctrlrange: np.ndarray,
                 ctrllimited: np.ndarray, kinds: Sequence[str]):
        self.joints = {j.name: j for j in joints}
        self.joint_names = [j.name for j in joints]
        self.nu = int(nu)
        self.kinds = list(kinds)
        lo = np.full(self.nu, -np.inf)
        hi = np.full(self.nu, np.inf)
        limited = np.asarray(ctrllimited, dtype=bool).reshape(-1)[: self.nu]
        rng = np.asarray(ctrlrange, dtype=float).reshape(self.nu, 2) if self.nu else \
            np.zeros((0, 2))
        lo[limited] = rng[limited, 0]
        hi[limited] = rng[limited, 1]
        self.ctrl_lo, self.ctrl_hi = lo, hi
        self.ctrl_what = [f"ctrl[{i}]" for i in range(self.nu)]
        for j in joints:
            for kind, (a, _) in j.actuators.items():
                self.ctrl_what[a] = f"{kind} of joint '{j.name}'"
        self.dof_range: dict[int, tuple[float, float]] = {}  # dofadr -> effort limits
        self.ramp_rate = np.full(self.nu, np.inf)  # ctrl units per s (position actuators)

    def set_limits(self, limits: dict) -> None:
        """Tighten the bounds with the joints' limits (name -> mj_ros.limits.JointLimits):
        ctrl = gear * position (position actuators), gear * velocity (velocity actuators),
        effort / gear (motors); direct efforts to the effort limit; position actuators ramp at
        gear * velocity limit."""
        for name, lim in limits.items():
            j = self.joints.get(name)
            if j is None:
                continue
            for kind, (a, g) in j.actuators.items():
                bound = None
                if kind == POSITION and lim.position is not None:
                    bound = (g * lim.position[0], g * lim.position[1])
                elif kind == VELOCITY and lim.velocity is not None:
                    bound = (-abs(g) * lim.velocity, abs(g) * lim.velocity)
                elif kind == MOTOR and lim.effort is not None:
                    bound = (lim.effort[0] / g, lim.effort[1] / g)
                if bound is not None:
                    self.ctrl_lo[a] = max(self.ctrl_lo[a], min(bound))
                    self.ctrl_hi[a] = min(self.ctrl_hi[a], max(bound))
                if kind == POSITION and lim.velocity is not None:
                    self.ramp_rate[a] = abs(g) * lim.velocity
            if lim.effort is not None:
                self.dof_range[j.dofadr] = lim.effort

    @classmethod
    def from_model(cls, m, mj) -> "CommandMap":
        hinge, slide = int(mj.mjtJoint.mjJNT_HINGE), int(mj.mjtJoint.mjJNT_SLIDE)
        trn_joint = int(mj.mjtTrn.mjTRN_JOINT)
        gear = getattr(m, "actuator_gear", None)
        kinds, by_joint = [], {}
        for i in range(int(m.nu)):
            kind = classify_actuator(m.actuator_gainprm[i], m.actuator_biasprm[i])
            kinds.append(kind)
            if int(m.actuator_trntype[i]) != trn_joint or kind == GENERAL:
                continue
            g = float(gear[i][0]) if gear is not None else 1.0
            if g == 0.0:
                continue
            by_joint.setdefault(int(m.actuator_trnid[i][0]), {}).setdefault(kind, (i, g))
        joints = []
        for j in range(int(m.njnt)):
            if int(m.jnt_type[j]) not in (hinge, slide):
                continue
            name = mj.mj_id2name(m, mj.mjtObj.mjOBJ_JOINT, j)
            if not name:
                continue
            joints.append(JointInfo(name, int(m.jnt_qposadr[j]), int(m.jnt_dofadr[j]),
                                    dict(by_joint.get(j, {}))))
        return cls(joints, int(m.nu), np.asarray(m.actuator_ctrlrange),
                   np.asarray(m.actuator_ctrllimited), kinds)

    # -- helpers ----------------------------------------------------------------------------------
    def _clamp(self, idx: np.ndarray, val: np.ndarray) -> tuple[np.ndarray, int, str]:
        out = np.clip(val, self.ctrl_lo[idx], self.ctrl_hi[idx])
        changed = np.flatnonzero(out != val)
        if not len(changed):
            return out, 0, ""
        k = changed[0]
        return out, len(changed), f"{self.ctrl_what[idx[k]]}: {val[k]:g} -> {out[k]:g}"

    def _clamp_efforts(self, joints, idx: list, val: list) -> tuple[np.ndarray, int, str]:
        """Direct efforts (qfrc_applied) to the joints' effort limits."""
        out = np.asarray(val, dtype=float)
        count, note = 0, ""
        for k, dof in enumerate(idx):
            rng = self.dof_range.get(dof)
            if rng is None:
                continue
            v = min(max(out[k], rng[0]), rng[1])
            if v != out[k]:
                count += 1
                if not note:
                    note = f"effort of joint '{joints[k].name}': {out[k]:g} -> {v:g}"
                out[k] = v
        return out, count, note

    def _lookup(self, names: Sequence[str]) -> list[JointInfo]:
        if len(set(names)) != len(names):
            raise CommandError("duplicate joint names")
        out = []
        for n in names:
            j = self.joints.get(n)
            if j is None:
                raise CommandError(f"unknown joint '{n}'")
            out.append(j)
        return out

    @staticmethod
    def _field(values: Sequence[float], n: int, what: str) -> np.ndarray | None:
        if values is None or len(values) == 0:
            return None
        if len(values) != n:
            raise CommandError(f"{what} has {len(values)} entries for {n} names")
        arr = np.asarray(values, dtype=float)
        if not np.all(np.isfinite(arr)):
            raise CommandError(f"{what} is not finite")
        return arr

    # -- messages ---------------------------------------------------------------------------------
    def joint_state(self, names: Sequence[str], position: Sequence[float],
                    velocity: Sequence[float], effort: Sequence[float]) -> Command:
        """sensor_msgs/JointState -> Command (raises CommandError)."""
        names = list(names)
        if not names:
            raise CommandError("no joint names")
        joints = self._lookup(names)
        pos = self._field(position, len(names), "position")
        vel = self._field(velocity, len(names), "velocity")
        eff = self._field(effort, len(names), "effort")
        if pos is None and vel is None and eff is None:
            raise CommandError("no position, velocity or effort")
        ctrl_idx, ctrl_val, dof_idx, dof_val, dof_joint = [], [], [], [], []
        for k, j in enumerate(joints):
            for values, kind in ((pos, POSITION), (vel, VELOCITY)):
                if values is None:
                    continue
                act = j.actuators.get(kind)
                if act is None:
                    raise CommandError(f"joint '{j.name}' has no {kind} actuator")
                ctrl_idx.append(act[0])
                ctrl_val.append(values[k] * act[1])
            if eff is not None:
                act = j.actuators.get(MOTOR)
                if act is not None:
                    ctrl_idx.append(act[0])
                    ctrl_val.append(eff[k] / act[1])
                else:
                    dof_idx.append(j.dofadr)
                    dof_val.append(eff[k])
                    dof_joint.append(j)
        idx = np.asarray(ctrl_idx, dtype=int)
        val, clamped, note = self._clamp(idx, np.asarray(ctrl_val, dtype=float))
        dval, dclamped, dnote = self._clamp_efforts(dof_joint, dof_idx, dof_val)
        return Command(idx, val, np.asarray(dof_idx, dtype=int), dval, clamped + dclamped,
                       note or dnote)

    def ctrl(self, data: Sequence[float]) -> Command:
        """std_msgs/Float64MultiArray in actuator order -> Command (raises CommandError)."""
        if len(data) != self.nu:
            raise CommandError(f"ctrl has {len(data)} entries, the model has {self.nu} actuators")
        arr = np.asarray(data, dtype=float)
        if not np.all(np.isfinite(arr)):
            raise CommandError("ctrl is not finite")
        idx = np.arange(self.nu)
        val, clamped, note = self._clamp(idx, arr)
        return Command(idx, val, np.zeros(0, dtype=int), np.zeros(0), clamped, note)

    def hold_targets(self, qpos: np.ndarray) -> Command:
        """Position actuators to the joints' current positions (what a robot does at start-up)."""
        idx, val = [], []
        for j in self.joints.values():
            act = j.actuators.get(POSITION)
            if act is not None:
                idx.append(act[0])
                val.append(float(qpos[j.qposadr]) * act[1])
        i = np.asarray(idx, dtype=int)
        v, clamped, note = self._clamp(i, np.asarray(val, dtype=float))
        return Command(i, v, np.zeros(0, dtype=int), np.zeros(0), clamped, note)

    def zero_command(self, qpos: np.ndarray) -> Command:
        """The 'zero' timeout action: velocity/motor/general controls and direct efforts to zero
        (clamped into range), position actuators hold the current position."""
        hold = self.hold_targets(qpos)
        held = set(hold.ctrl_idx.tolist())
        rest = np.asarray([i for i in range(self.nu) if i not in held], dtype=int)
        zeros = self._clamp(rest, np.zeros(len(rest)))[0]
        return Command(np.concatenate([hold.ctrl_idx, rest]).astype(int),
                       np.concatenate([hold.ctrl_val, zeros]), np.zeros(0, dtype=int),
                       np.zeros(0), 0)


# -- trajectories ----------------------------------------------------------------------------------

@dataclasses.dataclass
class Trajectory:
    """A joint trajectory in absolute sim time, sampled by `sample(t)`.

    Between points: cubic Hermite when every point has velocities, else linear. Before the first
    point the trajectory starts from the joints' positions when it was accepted; after the last
    point it holds the last positions (velocity 0). Converted to arrays once, at receipt: a
    sample costs a binary search, whatever the trajectory's length.
    """

    joints: list[JointInfo]
    times: np.ndarray       # (k,) absolute sim times, strictly increasing
    positions: np.ndarray   # (k, n)
    velocities: np.ndarray | None  # (k, n) or None
    ctrl_idx: np.ndarray | None = None  # (n,) the joints' position actuators
    gear: np.ndarray | None = None      # (n,) their gears
    clamped: int = 0        # point positions outside the actuators' / joints' limits
    note: str = ""          # the first of them

    @property
    def end_time(self) -> float:
        return float(self.times[-1])

    def sample(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        times, q = self.times, self.positions
        if t <= times[0]:
            return q[0].copy(), np.zeros(q.shape[1])
        if t >= times[-1]:
            return q[-1].copy(), np.zeros(q.shape[1])
        i = int(np.searchsorted(times, t, side="right")) - 1
        t0, t1 = times[i], times[i + 1]
        h = t1 - t0
        s = (t - t0) / h
        if self.velocities is None:
            return q[i] + s * (q[i + 1] - q[i]), (q[i + 1] - q[i]) / h
        v = self.velocities
        h00, h10 = 2 * s**3 - 3 * s**2 + 1, s**3 - 2 * s**2 + s
        h01, h11 = -2 * s**3 + 3 * s**2, s**3 - s**2
        pos = h00 * q[i] + h10 * h * v[i] + h01 * q[i + 1] + h11 * h * v[i + 1]
        d00, d10 = (6 * s**2 - 6 * s) / h, 3 * s**2 - 4 * s + 1
        d01, d11 = (-6 * s**2 + 6 * s) / h, 3 * s**2 - 2 * s
        vel = d00 * q[i] + d10 * v[i] + d01 * q[i + 1] + d11 * v[i + 1]
        return pos, vel


def _rows(rows: Sequence[Sequence[float]], n: int, what: str, optional: bool) -> np.ndarray | None:
    """(k, n) array of per-point rows, checked: n entries each (or, if `optional`, none in every
    point: None) and finite. Raises CommandError naming the first bad point."""
    lengths = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
    if optional and not lengths.any():
        return None
    bad = np.flatnonzero(lengths != n)
    if len(bad):
        k = int(bad[0])
        if optional and lengths[k] == 0:
            return None  # some points without velocities: linear interpolation
        if lengths[k] == 0:
            raise CommandError(f"point {k} has no {what}")
        raise CommandError(f"point {k} {what} has {lengths[k]} entries for {n} names")
    arr = np.array([np.asarray(r, dtype=float) for r in rows]).reshape(len(rows), n)
    finite = np.isfinite(arr).all(axis=1)
    if not finite.all():
        raise CommandError(f"point {int(np.flatnonzero(~finite)[0])} {what} is not finite")
    return arr


def make_trajectory(cmap: CommandMap, joint_names: Sequence[str],
                    points: Sequence[tuple[Sequence[float], Sequence[float], float]],
                    start_time: float, qpos: np.ndarray) -> Trajectory | None:
    """Validate a trajectory_msgs/JointTrajectory given as (positions, velocities,
    time_from_start seconds) per point. Returns None for an empty one (which cancels)."""
    names = list(joint_names)
    if not points:
        return None
    if not names:
        raise CommandError("trajectory has no joint names")
    joints = cmap._lookup(names)
    for j in joints:
        if POSITION not in j.actuators:
            raise CommandError(f"joint '{j.name}' has no position actuator for a trajectory")
    n = len(names)
    tfs = np.fromiter((p[2] for p in points), dtype=float, count=len(points))
    bad = np.flatnonzero(~np.isfinite(tfs) | (tfs < 0))
    if len(bad):
        raise CommandError(f"point {int(bad[0])}: bad time_from_start")
    times = start_time + tfs
    back = np.flatnonzero(np.diff(times) <= 0)
    if len(back):
        raise CommandError(f"point {int(back[0]) + 1}: time_from_start is not increasing")
    positions = _rows([p[0] for p in points], n, "positions", optional=False)
    velocities = _rows([p[1] for p in points], n, "velocities", optional=True)
    first = 0  # the row of the message's point 0
    if times[0] > start_time:  # start from where the joints are
        first = 1
        current = np.array([float(qpos[j.qposadr]) for j in joints])
        times = np.concatenate([[start_time], times])
        positions = np.vstack([current, positions])
        if velocities is not None:
            velocities = np.vstack([np.zeros(n), velocities])
    idx = np.asarray([j.actuators[POSITION][0] for j in joints], dtype=int)
    gear = np.asarray([j.actuators[POSITION][1] for j in joints], dtype=float)
    ctrl = positions * gear
    outside = (ctrl < cmap.ctrl_lo[idx]) | (ctrl > cmap.ctrl_hi[idx])
    clamped, note = int(outside.sum()), ""
    if clamped:
        k, c = (int(x[0]) for x in np.nonzero(outside))
        note = (f"trajectory point {k - first}: {cmap.ctrl_what[idx[c]]}: {ctrl[k, c]:g} -> "
                f"{np.clip(ctrl[k, c], cmap.ctrl_lo[idx[c]], cmap.ctrl_hi[idx[c]]):g}")
    return Trajectory(joints, times, positions, velocities, idx, gear, clamped, note)


def trajectory_command(cmap: CommandMap, traj: Trajectory, t: float) -> Command:
    pos, _ = traj.sample(t)
    val = np.clip(pos * traj.gear, cmap.ctrl_lo[traj.ctrl_idx], cmap.ctrl_hi[traj.ctrl_idx])
    return Command(traj.ctrl_idx, val, _NO_IDX, _NO_VAL)


_NO_IDX, _NO_VAL = np.zeros(0, dtype=int), np.zeros(0)
