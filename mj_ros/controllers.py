"""ros2_control's controller interfaces, served by the simulator itself.

A controller under test (MoveIt, rqt_joint_trajectory_controller, a script written for
ros2_control) talks to `ros2_controllers`' controllers by their topic and action names; this module
answers on the same names with the same types, so the client cannot tell the simulator from a
controller_manager:

joint_trajectory_controller/JointTrajectoryController, named `<name>` (default
`joint_trajectory_controller`, over every joint with a position actuator):
  `<name>/follow_joint_trajectory`  control_msgs/action/FollowJointTrajectory
  `<name>/joint_trajectory`         trajectory_msgs/JointTrajectory (no feedback, no result)
  `<name>/controller_state`         control_msgs/msg/JointTrajectoryControllerState

The trajectory itself is followed by the node's trajectory path (mj_ros/commands.py `Trajectory`,
converted to arrays once; position actuators, velocity limits): this module only accepts or
rejects goals, watches the tolerances and reports. Names relative, so a node namespace applies.

Goal checks follow joint_trajectory_controller (ros2_controllers, `validate_trajectory_msg`):
rejected are goals with a multi-DOF trajectory, no points, no or unknown or repeated joint names,
joints missing from the controller's set (partial goals are not allowed, as its default
`allow_partial_joints_goal: false`), per-point position/velocity/acceleration counts that do not
match the names, non-finite values, time_from_start not increasing, or a stamped trajectory that
ends in the past.

Tolerances as joint_trajectory_controller applies them (its `constraints` parameters; per goal the
JointTolerance entries override them: > 0 sets, -1 erases, 0 keeps the default):
  path: |desired - actual| of position (rad or m) and velocity per joint while the trajectory
    runs; a violation aborts with PATH_TOLERANCE_VIOLATED and the joints hold where they are.
  goal: after the last point the goal succeeds once every joint is within its goal position
    tolerance and moves slower than its goal velocity tolerance (default
    `stopped_velocity_tolerance`, 0.01); with goal_time_tolerance > 0, still outside it that long
    after the last point aborts with GOAL_TOLERANCE_VIOLATED (0: wait for it indefinitely).
  A cancel request stops the motion (the joints hold their current positions) and ends the goal
  CANCELED. A newer goal, trajectory or joint command replaces the trajectory: the goal it
  belonged to is aborted, saying so in error_string.

Checks run on sim time after each step at `update_rate`; feedback goes out at
`action_monitor_rate` and the controller state at `state_publish_rate` (Hz of sim time, the
defaults of joint_trajectory_controller's parameters of those names).

Also here: forward command controllers (`<name>/commands`, std_msgs/Float64MultiArray, for
position, velocity or effort), joint_state_broadcaster's /dynamic_joint_states,
controller_manager's `controller_manager/list_controllers` (every controller active), and the
controllers YAML in ros2_control's format that picks them (`from_yaml`; node parameter
`controllers_file`). Every controller has the same small shape for the node: built from the
configuration and the model, `after_step(t)` after each step (state out, goal checks), `reset()`
when the simulation resets; commands go in through the node's command path.
"""
from __future__ import annotations

import dataclasses
import math
import pathlib

import numpy as np
from builtin_interfaces.msg import Duration, Time
from control_msgs.action import FollowJointTrajectory
from control_msgs.msg import DynamicJointState, InterfaceValue, JointTrajectoryControllerState
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.task import Future
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from mj_ros import commands as cmds

DEFAULT_NAME = "joint_trajectory_controller"
UPDATE_RATE = 100.0          # Hz of sim time: tolerance checks (controller_manager update_rate)
ACTION_MONITOR_RATE = 20.0   # Hz of sim time: action feedback
STATE_PUBLISH_RATE = 50.0    # Hz of sim time: <name>/controller_state
STOPPED_VELOCITY_TOLERANCE = 0.01  # rad/s or m/s: "stopped" at the goal
Result = FollowJointTrajectory.Result


@dataclasses.dataclass
class Tolerances:
    """Per joint of the controller (np arrays, 0 = not checked); goal_time in s (0 = none)."""

    path_pos: np.ndarray
    path_vel: np.ndarray
    goal_pos: np.ndarray
    goal_vel: np.ndarray
    goal_time: float = 0.0

    def copy(self) -> "Tolerances":
        return Tolerances(self.path_pos.copy(), self.path_vel.copy(), self.goal_pos.copy(),
                          self.goal_vel.copy(), self.goal_time)


def _override(dst_pos: np.ndarray, dst_vel: np.ndarray, entries, index: dict) -> None:
    """JointTolerance entries onto per-joint arrays: > 0 sets, -1 erases (0 = unchecked here),
    0 keeps the default. Raises CommandError for an unknown joint or another negative value."""
    for e in entries:
        k = index.get(e.name)
        if k is None:
            raise cmds.CommandError(f"tolerance for unknown joint '{e.name}'")
        for value, dst in ((e.position, dst_pos), (e.velocity, dst_vel)):
            if not math.isfinite(value) or (value < 0 and value != -1):
                raise cmds.CommandError(f"tolerance {value} of joint '{e.name}' is not > 0, 0 "
                                        f"or -1")
            if value > 0:
                dst[k] = value
            elif value == -1:
                dst[k] = 0.0


def _seconds(d) -> float:
    return d.sec + d.nanosec * 1e-9


def _duration(t: float) -> Duration:
    sec = math.floor(t)
    return Duration(sec=int(sec), nanosec=min(int(round((t - sec) * 1e9)), 999_999_999))


@dataclasses.dataclass
class _Goal:
    handle: object                 # rclpy ServerGoalHandle
    traj: cmds.Trajectory
    tol: Tolerances
    done: Future                   # the execute coroutine's result
    perm: np.ndarray               # goal joint order -> controller joint order
    started: bool = False          # the node follows traj (in lockstep it may wait its turn)


class JointTrajectoryController:
    """joint_trajectory_controller's ROS face for `joints` (JointInfo with position actuators).

    `sim` is the node: it provides `cmap`, `simclock`, `data`, `count_event()`, `drop(kind,
    err)`, `submit_trajectory(traj, received)`, `current_trajectory()`, `hold_joints(joints)`,
    `position_targets(joints, applied)` and `on_trajectory(msg)`.
    """

    def __init__(self, node, sim, name: str, joints: list, tolerances: Tolerances | None = None,
                 update_rate: float = UPDATE_RATE, action_monitor_rate: float = ACTION_MONITOR_RATE,
                 state_publish_rate: float = STATE_PUBLISH_RATE, allow_partial: bool = False):
        self.node, self.sim, self.name = node, sim, name
        self.rate = update_rate
        self.allow_partial = allow_partial
        self.joints = list(joints)
        for j in self.joints:
            if cmds.POSITION not in j.actuators:
                raise ValueError(f"controller {name}: joint '{j.name}' has no position actuator")
        n = len(self.joints)
        self.names = [j.name for j in self.joints]
        self._index = {nm: k for k, nm in enumerate(self.names)}
        self._qadr = np.asarray([j.qposadr for j in self.joints], dtype=int)
        self._dadr = np.asarray([j.dofadr for j in self.joints], dtype=int)
        zeros = np.zeros(n)
        self.defaults = tolerances or Tolerances(
            zeros.copy(), zeros.copy(), zeros.copy(), np.full(n, STOPPED_VELOCITY_TOLERANCE))
        self._goal: _Goal | None = None
        # goal id -> its _Goal, or why it failed the check in _on_accepted; the execute coroutine
        # takes it (it may start after the goal ended: the step loop finishes goals)
        self._started: dict[bytes, _Goal | str] = {}
        self._check_dt = 1.0 / update_rate
        self._feedback_dt = 1.0 / action_monitor_rate
        self._state_dt = 1.0 / state_publish_rate
        self._next_check = self._next_feedback = self._next_state = -math.inf
        self._state = JointTrajectoryControllerState(joint_names=self.names)
        self._state_pub = node.create_publisher(JointTrajectoryControllerState,
                                                f"{name}/controller_state", 10)
        node.create_subscription(JointTrajectory, f"{name}/joint_trajectory",
                                 self._on_topic, 10)
        self._server = ActionServer(
            node, FollowJointTrajectory, f"{name}/follow_joint_trajectory",
            execute_callback=self._execute, goal_callback=self._on_goal,
            handle_accepted_callback=self._on_accepted, cancel_callback=self._on_cancel)

    # -- goals ------------------------------------------------------------------------------------
    def validate(self, goal) -> tuple[cmds.Trajectory, Tolerances, np.ndarray]:
        """Check a FollowJointTrajectory goal as joint_trajectory_controller does; returns the
        trajectory in sim time, the tolerances and the joint permutation. Raises CommandError."""
        sim, tr = self.sim, goal.trajectory
        if goal.multi_dof_trajectory.joint_names or goal.multi_dof_trajectory.points:
            raise cmds.CommandError("multi-DOF trajectories are not supported")
        if not tr.points:
            raise cmds.CommandError("empty trajectory")
        names = list(tr.joint_names)
        unknown = [nm for nm in names if nm not in self._index]
        if unknown:
            raise cmds.CommandError(f"joint '{unknown[0]}' is not one of {self.name}'s joints "
                                    f"{self.names}")
        if len(set(names)) != len(names):
            raise cmds.CommandError("duplicate joint names")
        missing = [nm for nm in self.names if nm not in names]
        if missing and not self.allow_partial:
            raise cmds.CommandError(f"joints {missing} missing (partial goals are not allowed)")
        n = len(names)
        for k, pt in enumerate(tr.points):
            if len(pt.accelerations) not in (0, n):
                raise cmds.CommandError(f"point {k} accelerations has {len(pt.accelerations)} "
                                        f"entries for {n} names")
        now = sim.simclock.last
        stamp = _seconds(tr.header.stamp)
        points = [(pt.positions, pt.velocities, _seconds(pt.time_from_start))
                  for pt in tr.points]
        if stamp > 0 and stamp + points[-1][2] < now:
            raise cmds.CommandError(f"trajectory ends in the past (at {stamp + points[-1][2]:.3f}"
                                    f" s, now {now:.3f} s)")
        traj = cmds.make_trajectory(sim.cmap, names, points, max(stamp, now), sim.data.qpos)
        tol = self.defaults.copy()
        _override(tol.path_pos, tol.path_vel, goal.path_tolerance, self._index)
        _override(tol.goal_pos, tol.goal_vel, goal.goal_tolerance, self._index)
        gt = _seconds(goal.goal_time_tolerance)
        if gt > 0:
            tol.goal_time = gt
        perm = np.asarray([self._index[nm] for nm in names], dtype=int)
        return traj, tol, perm

    def _on_goal(self, goal) -> GoalResponse:
        self.sim.count_event()
        try:
            self.validate(goal)
        except cmds.CommandError as e:
            self.node.get_logger().warning(f"{self.name}: goal rejected: {e}")
            return GoalResponse.REJECT
        return GoalResponse.ACCEPT

    def _on_accepted(self, handle) -> None:
        """Validated again here, against the state the goal starts from (a step may have run
        between the goal callback and this one)."""
        self.sim.count_event()
        try:
            traj, tol, perm = self.validate(handle.request)
            unstamped = _seconds(handle.request.trajectory.header.stamp) <= 0
        except cmds.CommandError as e:
            self._started[bytes(handle.goal_id.uuid)] = str(e)
            handle.execute()  # rclpy: a goal ends through the execute callback
            return
        if self._goal is not None:
            self._finish(self._goal, "abort", Result.SUCCESSFUL,
                         "preempted by a newer FollowJointTrajectory goal")
        goal = _Goal(handle, traj, tol, Future(), perm)
        self._started[bytes(handle.goal_id.uuid)] = goal
        self._goal = goal
        self._next_check = self._next_feedback = -math.inf
        handle.execute()
        # unstamped: starts when the node applies it (later in lockstep, when it waited its turn)
        if not self.sim.submit_trajectory(traj, self.sim.simclock.last if unstamped else None):
            self._finish(goal, "abort", Result.INVALID_GOAL, "the lockstep queue is full")

    async def _execute(self, handle):
        goal = self._started.pop(bytes(handle.goal_id.uuid))
        if isinstance(goal, str):
            handle.abort()
            return Result(error_code=Result.INVALID_GOAL, error_string=goal)
        await goal.done
        return goal.done.result()

    def _on_cancel(self, handle) -> CancelResponse:
        self.sim.count_event()
        return CancelResponse.ACCEPT

    def _finish(self, goal: _Goal, how: str, code: int, text: str) -> None:
        if goal.handle.is_active:
            getattr(goal.handle, {"succeed": "succeed", "abort": "abort",
                                  "cancel": "canceled"}[how])()
        goal.done.set_result(Result(error_code=code, error_string=text))
        if self._goal is goal:
            self._goal = None

    def _on_topic(self, msg: JointTrajectory) -> None:
        """`<name>/joint_trajectory`: the controller's joints only, then the node's path."""
        unknown = [nm for nm in msg.joint_names if nm not in self._index]
        if unknown:
            self.sim.count_event()
            self.sim.drop(f"{self.name}/joint_trajectory",
                          cmds.CommandError(f"joint '{unknown[0]}' is not one of {self.name}'s"))
            return
        self.sim.on_trajectory(msg)

    def reset(self) -> None:
        """The simulation was reset: an active goal ends (aborted)."""
        if self._goal is not None:
            self._finish(self._goal, "abort", Result.SUCCESSFUL, "simulation reset")

    # -- after each step --------------------------------------------------------------------------
    def after_step(self, t: float) -> None:
        """Check the active goal, send feedback and the controller state when due (sim time
        `t`). Cheap when nothing is due: three comparisons."""
        if t >= self._next_state:
            self._next_state = t + self._state_dt
            self._publish_state(t)
        goal = self._goal
        if goal is None or t < self._next_check:
            return
        self._next_check = t + self._check_dt
        self._check(goal, t)

    def _actual(self) -> tuple[np.ndarray, np.ndarray]:
        d = self.sim.data
        return d.qpos[self._qadr], d.qvel[self._dadr]

    def _check(self, goal: _Goal, t: float) -> None:
        handle = goal.handle
        if self.sim.current_trajectory() is not goal.traj:
            if not goal.started:
                return
            return self._finish(goal, "abort", Result.SUCCESSFUL,
                                "the trajectory was replaced by another command")
        goal.started = True
        if handle.is_cancel_requested:
            self.sim.hold_joints(self.joints)
            return self._finish(goal, "cancel", Result.SUCCESSFUL, "canceled")
        want_p, want_v = goal.traj.sample(t)
        p, v = self._actual()
        p, v = p[goal.perm], v[goal.perm]   # goal order, as the trajectory
        err_p, err_v = want_p - p, want_v - v
        tol = goal.tol
        if t >= self._next_feedback:
            self._next_feedback = t + self._feedback_dt
            self._feedback(goal, t, want_p, want_v, p, v)
        end = goal.traj.end_time
        if t < end:
            bad = self._violation(goal, err_p, err_v, tol.path_pos[goal.perm],
                                  tol.path_vel[goal.perm])
            if bad:
                self.sim.hold_joints(self.joints)
                self._finish(goal, "abort", Result.PATH_TOLERANCE_VIOLATED, f"path {bad}")
            return
        bad = self._violation(goal, err_p, v, tol.goal_pos[goal.perm], tol.goal_vel[goal.perm])
        if not bad:
            return self._finish(goal, "succeed", Result.SUCCESSFUL, "")
        if tol.goal_time > 0 and t > end + tol.goal_time:
            self.sim.hold_joints(self.joints)
            self._finish(goal, "abort", Result.GOAL_TOLERANCE_VIOLATED,
                         f"goal {bad} {t - end:.3f} s after the trajectory's end")

    def _violation(self, goal: _Goal, err_p, err_v, tol_p, tol_v) -> str:
        """'' or which joint is off by how much (the first one); arrays in the goal's order."""
        for what, err, tol in (("position", err_p, tol_p), ("velocity", err_v, tol_v)):
            off = (tol > 0) & (np.abs(err) > tol)
            if off.any():
                k = int(np.flatnonzero(off)[0])
                return (f"{what} tolerance of joint '{self.names[goal.perm[k]]}' violated: "
                        f"{abs(err[k]):.4g} > {tol[k]:.4g}")
        return ""

    def _feedback(self, goal: _Goal, t, want_p, want_v, p, v) -> None:
        fb = FollowJointTrajectory.Feedback()
        fb.header.stamp = Time(sec=int(t), nanosec=int((t - int(t)) * 1e9))
        fb.joint_names = [self.names[k] for k in goal.perm]
        since = _duration(max(0.0, t - float(goal.traj.times[0])))
        fb.desired = JointTrajectoryPoint(positions=want_p.tolist(), velocities=want_v.tolist(),
                                          time_from_start=since)
        fb.actual = JointTrajectoryPoint(positions=p.tolist(), velocities=v.tolist(),
                                         time_from_start=since)
        fb.error = JointTrajectoryPoint(positions=(want_p - p).tolist(),
                                        velocities=(want_v - v).tolist(), time_from_start=since)
        goal.handle.publish_feedback(fb)

    def _publish_state(self, t: float) -> None:
        """reference: the trajectory's sample (or the held targets), feedback: the joints,
        error: reference - feedback, output: the position commands sent to the actuators."""
        if self._state_pub.get_subscription_count() == 0:
            return
        p, v = self._actual()
        traj = self.sim.current_trajectory()
        ref_p, ref_v = self.sim.position_targets(self.joints), np.zeros(len(self.joints))
        if traj is not None:
            ref_p[:], ref_v[:] = self._sample_ours(traj, t, ref_p, ref_v)
        s = self._state
        s.header.stamp = Time(sec=int(t), nanosec=int((t - int(t)) * 1e9))
        s.reference = JointTrajectoryPoint(positions=ref_p.tolist(), velocities=ref_v.tolist())
        s.feedback = JointTrajectoryPoint(positions=p.tolist(), velocities=v.tolist())
        s.error = JointTrajectoryPoint(positions=(ref_p - p).tolist(),
                                       velocities=(ref_v - v).tolist())
        s.output = JointTrajectoryPoint(
            positions=self.sim.position_targets(self.joints, applied=True).tolist())
        self._state_pub.publish(s)

    def _sample_ours(self, traj: cmds.Trajectory, t: float, ref_p, ref_v):
        """A trajectory's sample at t for the controller's joints it covers (others keep their
        held targets)."""
        pos, vel = traj.sample(t)
        for k, j in enumerate(traj.joints):
            c = self._index.get(j.name)
            if c is not None:
                ref_p[c], ref_v[c] = pos[k], vel[k]
        return ref_p, ref_v


def position_joints(cmap: cmds.CommandMap) -> list:
    """The joints a default joint_trajectory_controller drives: those with a position actuator,
    in model order."""
    return [cmap.joints[nm] for nm in cmap.joint_names
            if cmds.POSITION in cmap.joints[nm].actuators]


# -- forward command controllers and joint_state_broadcaster ---------------------------------------

class ForwardCommandController:
    """forward_command_controller's face: `<name>/commands` (std_msgs/Float64MultiArray, one value
    per joint in `joints` order) sets the joints' `interface` (position, velocity or effort)
    through the node's command path (limits, clamping, lockstep order). A message of the wrong
    size or with non-finite values is dropped with a throttled warning, as the node drops any bad
    command."""

    KEYWORD = {"position": "position", "velocity": "velocity", "effort": "effort"}

    def __init__(self, node, sim, name: str, joints: list, interface: str):
        if interface not in self.KEYWORD:
            raise NotImplementedError(f"controller {name}: interface '{interface}' (position, "
                                      f"velocity and effort are simulated)")
        kind = {"position": cmds.POSITION, "velocity": cmds.VELOCITY}.get(interface)
        for j in joints:  # effort needs no actuator: it goes to the joint as a force otherwise
            if kind is not None and kind not in j.actuators:
                raise ValueError(f"controller {name}: joint '{j.name}' has no {kind} actuator")
        self.sim, self.name, self.interface = sim, name, interface
        self.names = [j.name for j in joints]
        self.rate = UPDATE_RATE
        node.create_subscription(Float64MultiArray, f"{name}/commands", self._on_commands, 10)

    def _on_commands(self, msg: Float64MultiArray) -> None:
        self.sim.count_event()
        kind = f"{self.name}/commands"
        if len(msg.data) != len(self.names):
            return self.sim.drop(kind, cmds.CommandError(
                f"{len(msg.data)} values for the {len(self.names)} joints {self.names}"))
        try:
            command = self.sim.cmap.joint_state(self.names, **{
                f: (msg.data if f == self.interface else []) for f in self.KEYWORD})
        except cmds.CommandError as e:
            return self.sim.drop(kind, e)
        self.sim.submit_command(kind, command)

    def after_step(self, t: float) -> None:
        pass

    def reset(self) -> None:
        pass


class JointStateBroadcaster:
    """joint_state_broadcaster's /dynamic_joint_states (control_msgs/DynamicJointState): every
    hinge and slide joint with its position, velocity and effort state interfaces (qpos, qvel,
    qfrc_actuator + qfrc_applied: the effort /joint_states reports), at `rate` Hz of sim time.
    /joint_states itself is the node's own stream (always on)."""

    def __init__(self, node, sim, joints: list, rate: float, name: str = "joint_state_broadcaster"):
        self.sim, self.name, self.names, self.rate = sim, name, [j.name for j in joints], rate
        self._pub = node.create_publisher(DynamicJointState, "/dynamic_joint_states", 10)
        self._qadr = np.asarray([j.qposadr for j in joints], dtype=int)
        self._dadr = np.asarray([j.dofadr for j in joints], dtype=int)
        self._msg = DynamicJointState(joint_names=[j.name for j in joints])
        self._names = ["position", "velocity", "effort"]
        self._dt = 1.0 / rate
        self._next = -math.inf

    def after_step(self, t: float) -> None:
        if t < self._next:
            return
        self._next = t + self._dt
        if self._pub.get_subscription_count() == 0:
            return
        d, msg = self.sim.data, self._msg
        eff = d.qfrc_actuator[self._dadr] + d.qfrc_applied[self._dadr]
        values = np.stack([d.qpos[self._qadr], d.qvel[self._dadr], eff], axis=1).tolist()
        msg.header.stamp = Time(sec=int(t), nanosec=int((t - int(t)) * 1e9))
        msg.interface_values = [InterfaceValue(interface_names=self._names, values=v)
                                for v in values]
        self._pub.publish(msg)

    def reset(self) -> None:
        pass


# -- the controllers YAML --------------------------------------------------------------------------

JTC_TYPE = "joint_trajectory_controller/JointTrajectoryController"
JSB_TYPE = "joint_state_broadcaster/JointStateBroadcaster"
FORWARD_TYPES = {  # type -> the interface it commands (None: the `interface_name` parameter)
    "forward_command_controller/ForwardCommandController": None,
    "position_controllers/JointGroupPositionController": "position",
    "velocity_controllers/JointGroupVelocityController": "velocity",
    "effort_controllers/JointGroupEffortController": "effort",
}


class ControllerConfigError(ValueError):
    """A controllers YAML the node refuses; str(e) names the file, controller and key."""


def _section(doc: dict, name: str) -> dict:
    """`<name>: ros__parameters:` (also under '/<name>' or '/**/<name>')."""
    for key in (name, "/" + name, "/**/" + name):
        sec = doc.get(key)
        if isinstance(sec, dict):
            return sec.get("ros__parameters", {}) or {}
    return {}


def _joints(sim, name: str, prm: dict, where: str) -> list:
    names = prm.get("joints")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise ControllerConfigError(f"{where}: controller {name}: 'joints' must be a non-empty "
                                    f"list of joint names")
    unknown = [n for n in names if n not in sim.cmap.joints]
    if unknown:
        raise ControllerConfigError(f"{where}: controller {name}: unknown joint '{unknown[0]}' "
                                    f"(the model's: {sim.cmap.joint_names})")
    return [sim.cmap.joints[n] for n in names]


def _rate(prm: dict, key: str, default: float, where: str) -> float:
    value = prm.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ControllerConfigError(f"{where}: {key} must be a rate in Hz > 0, got {value!r}")
    return float(value)


def _jtc_tolerances(name: str, prm: dict, joints: list, where: str) -> tuple[Tolerances, bool]:
    """joint_trajectory_controller's `constraints` (goal_time, stopped_velocity_tolerance,
    <joint>: {trajectory, goal}) and `allow_partial_joints_goal`."""
    c = prm.get("constraints", {}) or {}
    n = len(joints)

    def num(v, what):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
                or v < 0:
            raise ControllerConfigError(f"{where}: controller {name}: {what} must be a number "
                                        f">= 0, got {v!r}")
        return float(v)

    stopped = num(c.get("stopped_velocity_tolerance", STOPPED_VELOCITY_TOLERANCE),
                  "constraints.stopped_velocity_tolerance")
    tol = Tolerances(np.zeros(n), np.zeros(n), np.zeros(n), np.full(n, stopped),
                     num(c.get("goal_time", 0.0), "constraints.goal_time"))
    for k, j in enumerate(joints):
        per = c.get(j.name, {}) or {}
        tol.path_pos[k] = num(per.get("trajectory", 0.0), f"constraints.{j.name}.trajectory")
        tol.goal_pos[k] = num(per.get("goal", 0.0), f"constraints.{j.name}.goal")
    return tol, bool(prm.get("allow_partial_joints_goal", False))


def _load(path: str) -> tuple[dict, dict]:
    """(the whole YAML document, controller_manager's ros__parameters)."""
    import yaml
    try:
        doc = yaml.safe_load(pathlib.Path(path).read_text()) or {}
    except (OSError, yaml.YAMLError) as e:
        raise ControllerConfigError(f"controllers_file {path}: {e}") from None
    cm = _section(doc, "controller_manager") if isinstance(doc, dict) else {}
    if not cm:
        raise ControllerConfigError(f"controllers_file {path}: no controller_manager: "
                                    f"ros__parameters: section")
    return doc, cm


def claimed_interfaces(path: str) -> dict[str, str]:
    """joint name -> the command interface the controllers of the YAML at `path` claim
    (joint_trajectory_controller: its first command_interfaces entry; forward command
    controllers: theirs). Read before the model is built: a URDF's `<ros2_control>` joints get
    the actuator of the claimed interface (mj_ros/ros2_control.py). Two controllers claiming
    one joint are refused, as controller_manager refuses them."""
    if not path:
        return {}
    doc, cm = _load(path)
    out, owner = {}, {}
    for name, entry in cm.items():
        if not isinstance(entry, dict) or "type" not in entry:
            continue
        kind, prm = entry["type"], _section(doc, name)
        if kind == JTC_TYPE:
            interface = (list(prm.get("command_interfaces") or ["position"]) or ["position"])[0]
        elif kind in FORWARD_TYPES:
            interface = FORWARD_TYPES[kind] or prm.get("interface_name")
        else:
            continue
        names = prm.get("joints")
        for j in names if isinstance(names, list) else []:
            if j in owner:
                raise ControllerConfigError(
                    f"controllers_file {path}: joint '{j}' is claimed by controllers "
                    f"{owner[j]} and {name}")
            owner[j], out[j] = name, str(interface)
    return out


def from_yaml(node, sim, path: str) -> list:
    """The controllers a ros2_control controllers YAML selects (controller_manager's
    `ros__parameters: <name>: {type: ...}`, each controller's `<name>: ros__parameters:`).
    Raises ControllerConfigError for a file the node cannot follow, NotImplementedError naming a
    controller type or interface it does not simulate."""
    doc, cm = _load(path)
    update_rate = _rate(cm, "update_rate", UPDATE_RATE, path)
    out = []
    for name, entry in cm.items():
        if not isinstance(entry, dict) or "type" not in entry:
            continue  # update_rate and other manager settings
        kind, prm = entry["type"], _section(doc, name)
        where = f"controllers_file {path}"
        if kind == JSB_TYPE:
            out.append(JointStateBroadcaster(node, sim, [sim.cmap.joints[n] for n in
                                                         sim.cmap.joint_names], update_rate,
                                             name))
        elif kind == JTC_TYPE:
            joints = _joints(sim, name, prm, where)
            interfaces = prm.get("command_interfaces", ["position"])
            if list(interfaces) != ["position"]:
                raise NotImplementedError(
                    f"{where}: controller {name}: joint_trajectory_controller with "
                    f"command_interfaces {list(interfaces)} (only [position] is simulated)")
            tol, partial = _jtc_tolerances(name, prm, joints, where)
            try:
                out.append(JointTrajectoryController(
                    node, sim, name, joints, tol, update_rate,
                    _rate(prm, "action_monitor_rate", ACTION_MONITOR_RATE, where),
                    _rate(prm, "state_publish_rate", STATE_PUBLISH_RATE, where), partial))
            except ValueError as e:
                raise ControllerConfigError(f"{where}: {e}") from None
        elif kind in FORWARD_TYPES:
            interface = FORWARD_TYPES[kind] or prm.get("interface_name")
            try:
                out.append(ForwardCommandController(node, sim, name,
                                                    _joints(sim, name, prm, where), interface))
            except ValueError as e:
                raise ControllerConfigError(f"{where}: {e}") from None
        else:
            raise NotImplementedError(f"{where}: controller {name}: type {kind} (simulated: "
                                      f"{', '.join([JSB_TYPE, JTC_TYPE, *FORWARD_TYPES])})")
    return out


def default_controllers(node, sim) -> list:
    """Without a controllers file: a joint_state_broadcaster and one joint_trajectory_controller
    named `joint_trajectory_controller` over the position-actuated joints (if any)."""
    out = [JointStateBroadcaster(node, sim, [sim.cmap.joints[n] for n in sim.cmap.joint_names],
                                 UPDATE_RATE)]
    joints = position_joints(sim.cmap)
    if joints:
        out.append(JointTrajectoryController(node, sim, DEFAULT_NAME, joints))
    return out


def make(node, sim, path: str) -> list:
    """The node's controllers: from the controllers YAML at `path`, else the defaults; and
    controller_manager's list_controllers service that names them."""
    out = from_yaml(node, sim, path) if path else default_controllers(node, sim)
    serve_list_controllers(node, out)
    return out


def controller_state(c) -> dict:
    """The fields of controller_manager_msgs/ControllerState for controller `c`, as
    controller_manager reports an active controller: its type, the command interfaces it
    claims (`<joint>/<interface>`) and the state interfaces it reads."""
    if isinstance(c, JointTrajectoryController):
        kind, claimed = JTC_TYPE, [f"{n}/position" for n in c.names]
        required_state = [f"{n}/{i}" for n in c.names for i in ("position", "velocity")]
    elif isinstance(c, ForwardCommandController):
        kind = next((t for t, i in FORWARD_TYPES.items() if i == c.interface),
                    "forward_command_controller/ForwardCommandController")
        claimed, required_state = [f"{n}/{c.interface}" for n in c.names], []
    else:
        kind, claimed = JSB_TYPE, []
        required_state = [f"{n}/{i}" for n in c.names for i in ("position", "velocity", "effort")]
    return dict(name=c.name, state="active", type=kind, is_async=False,
                update_rate=int(round(min(c.rate, 65535))), claimed_interfaces=claimed,
                required_command_interfaces=list(claimed),
                required_state_interfaces=required_state)


def serve_list_controllers(node, controllers: list):
    """`controller_manager/list_controllers` (controller_manager_msgs/srv/ListControllers,
    relative: a node namespace applies as to a real controller_manager), so `ros2 control
    list_controllers` and rqt_joint_trajectory_controller find the controllers. None (with one
    log line) where controller_manager_msgs is not installed (scripts/setup_ros.sh builds it)."""
    try:
        from controller_manager_msgs.msg import ControllerState
        from controller_manager_msgs.srv import ListControllers
    except ImportError:
        node.get_logger().info("controller_manager_msgs is not installed: no "
                               "controller_manager/list_controllers service")
        return None
    states = [ControllerState(**controller_state(c)) for c in controllers]

    def answer(request, response):
        getattr(node, "count_event", lambda: None)()   # the node's poll loop: work was done
        response.controller = states
        return response
    return node.create_service(ListControllers, "controller_manager/list_controllers", answer)
