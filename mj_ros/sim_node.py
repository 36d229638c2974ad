"""The simulator node: loads a model, steps the engine, publishes state, takes commands.

One thread does everything: a loop steps the engine and, between steps, lets rclpy's
EventsExecutor run the callbacks (commands, services), so callbacks never race the physics.
Idle waits (pacing at speed > 0, pause, lockstep) happen inside `spin_once(timeout_sec=...)`, so a
command or service call is handled as soon as it arrives. At speed 0 the loop polls the executor
every `POLL_PERIOD` of wall time while callbacks keep coming, and less often while none do: an
idle `spin_once` costs 80 us or more (far more on a loaded machine), so an idle poll may take at
most `POLL_SHARE` of the wall time (up to `POLL_PERIOD_MAX` between polls). It also polls when it
runs behind the schedule at speed > 0 (so callbacks are never starved). Between two
polls at speed 0 the steps run back to back (`_burst`); steps whose state max_publish_rate holds
back go to the engine in one mj_step(nstep) call when no input changes between them.

The state streams are preserialized (mj_ros/outputs.py, mj_ros/cdr.py): a publication rewrites the
numbers inside ready CDR bytes and hands them to rmw, no Python message objects per step.

Topics, services and parameters: see README and config/sim.yaml; the table is mj_ros/params.py.
"""
from __future__ import annotations

import math
import sys
import time

import numpy as np
import rclpy
import rclpy.utilities
from builtin_interfaces.msg import Time as TimeMsg
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from rcl_interfaces.msg import ParameterDescriptor, SetParametersResult
from rclpy._rclpy_pybind11 import RCLError
from rclpy.event_handler import SubscriptionEventCallbacks
from rclpy.executors import ExternalShutdownException
from rclpy.experimental import EventsExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, String
from std_srvs.srv import SetBool, Trigger
from trajectory_msgs.msg import JointTrajectory

import engine as mj
from engine import warmup
from mj_ros import cameras
from mj_ros import commands as cmds
from mj_ros import controllers
from mj_ros import diagnostics as diag
from mj_ros import engine_api, limits, lockstep, model_io, outputs, sensors
from mj_ros import frames as fr
from mj_ros import scene
from mj_ros import tf as tfio
from mj_ros.clock import Pacer, RateMeter, SimClock, to_stamp
from mj_ros import params
from mj_ros.params import PARAMETERS

POLL_PERIOD = 0.001       # s of wall time between executor polls at speed 0 (while busy)
POLL_PERIOD_MAX = 0.02    # s: the longest gap between polls at speed 0
POLL_SHARE = 0.05         # the share of wall time idle polls may take at speed 0
WAIT_SLICE = 0.05         # s: longest single wait, so shutdown is seen promptly
WARN_PERIOD = 2.0         # s between two warnings of one kind
COMMAND_QOS = 10          # keep-last depth of command subscriptions: a flood is cut here
_ROS_TYPES = {"bool": Parameter.Type.BOOL, "integer": Parameter.Type.INTEGER,
              "double": Parameter.Type.DOUBLE, "string": Parameter.Type.STRING,
              "string_array": Parameter.Type.STRING_ARRAY,
              "double_array": Parameter.Type.DOUBLE_ARRAY,
              "integer_array": Parameter.Type.INTEGER_ARRAY}


class Throttle:
    """Warn at most once per period per key, saying how many were suppressed meanwhile."""

    def __init__(self, logger, period: float = WARN_PERIOD):
        self._logger, self._period = logger, period
        self._last: dict[str, float] = {}
        self._suppressed: dict[str, int] = {}

    def warn(self, key: str, text: str) -> None:
        now = time.monotonic()
        if now - self._last.get(key, -math.inf) < self._period:
            self._suppressed[key] = self._suppressed.get(key, 0) + 1
            return
        n = self._suppressed.pop(key, 0)
        self._last[key] = now
        self._logger.warning(text + (f" ({n} more since the last warning)" if n else ""))


class _Stream:
    """A decimated publication: due when `every` steps passed since it was last published
    (0 = off)."""

    __slots__ = ("every", "last")

    def __init__(self, rate: float, timestep: float):
        if rate < 0:
            self.every = 0
        elif rate == 0:
            self.every = 1
        else:
            self.every = max(1, int(round(1.0 / (rate * timestep))))
        self.last = 0

    def due(self, step: int) -> bool:
        if self.every == 0 or step - self.last < self.every:
            return False
        self.last = step
        return True


class SimNode(Node):
    """ROS 2 node around one engine Model/Data pair."""

    def __init__(self, node_name: str = "mj_ros_sim", **kwargs):
        super().__init__(node_name, **kwargs)
        self._declare_parameters()
        p = self._p
        if not p("headless"):
            raise NotImplementedError("viewer (headless:=false): mj_ros has no viewer yet")
        self._warn = Throttle(self.get_logger())
        clock_pub = outputs.clock_publisher(self)  # before the model load: see clock_publisher

        source = model_io.choose_source(p("model"), p("robot_description"))
        self._model_from_topic = source is None and bool(p("robot_description_topic"))
        if self._model_from_topic:
            source = self._wait_robot_description(p("robot_description_topic"),
                                                  p("robot_description_timeout"))
        if source is None:
            source = model_io.ModelSource("file", str(model_io.default_model_path()),
                                          "default robot")
        from mj_ros import ros2_control as r2c  # URDF <ros2_control> blocks become actuators
        loaded = model_io.load(source, mj, r2c.Gains(
            p("ros2_control_kp"), p("ros2_control_kv"), p("ros2_control_velocity_kv")),
            controllers.claimed_interfaces(p("controllers_file")))
        self.model = loaded.model  # loads the engine's kernels (see main)
        if p("timestep") > 0:
            self.model.opt.timestep = p("timestep")
        try:
            mask = engine_api.disable_mask(mj, p("disable"))
        except ValueError as e:
            raise model_io.ModelLoadError(f"disable: {e}") from None
        self.model.opt.disableflags = int(self.model.opt.disableflags) | mask
        self._mj_step = mj.mj_step
        self._mj_forward = mj.mj_forward
        self._mj_kinematics = mj.mj_kinematics
        self._source = source
        self.data = mj.MjData(self.model)
        m = self.model
        self.timestep = float(m.opt.timestep)

        self.cmap = cmds.CommandMap.from_model(m, mj)
        joint_limits = limits.from_model(m, self.cmap.joints,
                                         fr.urdf_text_of(source.kind, source.value))
        self.cmap.set_limits(joint_limits)
        self._effort_vlimit = limits.EffortVelocityLimit(self.cmap, joint_limits)
        self._effort_guard = False  # a guarded effort is on (set where commands change)
        # commands set the goal; the ramp moves the applied controls towards it (velocity limits)
        self._ctrl_goal = np.zeros(m.nu)
        self._ramp = limits.Ramp(self.cmap.ramp_rate, self.timestep)
        self.layout = sensors.layout_from_model(m, mj)
        self._ctrl_cmd = np.zeros(m.nu)
        self._qfrc_cmd = np.zeros(m.nv)
        self._traj: cmds.Trajectory | None = None
        self._last_command_time = 0.0
        self._timed_out = False
        self._timeout_action = cmds.TimeoutAction(p("command_timeout_action"))
        self._command_timeout = float(p("command_timeout"))
        self._div_idx = diag.divergence_indices(mj)
        self._div_seen = 0
        self._div_detected = 0      # engine resets seen by the step loop since the last report
        self._engine_time = 0.0     # d.time after the last step (or reset)
        self._events = 0            # callbacks run (lets the poll loop drain queued work)
        self._poll_period = POLL_PERIOD  # s of wall time to the next executor poll at speed 0
        self._steps = 0
        self._step_cost = 1e-4      # s of wall per engine step in a batch (running average)
        self._lock = lockstep.Lockstep(self, p("lockstep_steps"), self._warn.warn)
        self._js_subscribers = 0    # /joint_states subscribers seen while idle (see _announce)
        self.stats = diag.SimStats()
        self.simclock = SimClock()
        self.paused = bool(p("paused"))
        self.lockstep = bool(p("lockstep"))
        self.pacer = Pacer(p("speed"), self.timestep)
        self.rate = RateMeter()
        self._init_key = self._initial_keyframe(p("initial_keyframe"))
        self._init_joints = self._initial_joints()

        self._make_publishers()
        self._make_inputs()
        self.controllers = controllers.make(self, self, p("controllers_file"))  # ros2_control's
        self._hardware = None   # topic_based_ros2_control's topics (mj_ros/topic_hardware.py)
        if p("hardware_commands_topic") or p("hardware_states_topic"):
            from mj_ros import topic_hardware
            self._hardware = topic_hardware.TopicHardware(
                self, self, p("hardware_commands_topic"), p("hardware_states_topic"),
                loaded.hardware, loaded.interfaces,
                lockstep.QUEUE_DEPTH if self.lockstep else COMMAND_QOS)
        self._make_tf_and_mocap()
        self._make_scene()
        self.cameras = cameras.from_params(self, m, mj, p)   # camera images (mj_ros/cameras.py)
        self._make_outputs(clock_pub)
        from mj_ros import spawn  # simulation_interfaces: spawn, delete, set entity state
        self.entity_services = spawn.EntityServices(self, mj)
        self._drive_own_clock()
        self.add_on_set_parameters_callback(self._on_set_parameters)
        self.reset_state(first=True)  # publishes the first /clock
        # logged only now: rclpy's first log call in a process looks its caller up among every
        # loaded module (inspect.getmodule), about 60 ms once the engine is loaded
        self.get_logger().info(
            f"model {source.describe()}: {m.njnt} joints, {m.nu} actuators, {m.nsensor} sensors,"
            f" timestep {self.timestep} s")
        for note in loaded.notes:
            self.get_logger().info(note)
        for warning in loaded.warnings:
            self.get_logger().warning(warning)
        self.get_logger().info(
            f"publishing {len(self.layout.imus)} IMU, {len(self.layout.wrenches)} wrench, "
            f"{len(self.layout.others)} other sensor topics; speed {self.pacer.speed:g}"
            + (", paused" if self.paused else "") + (", lockstep" if self.lockstep else ""))

    # -- parameters -------------------------------------------------------------------------------
    def _declare_parameters(self) -> None:
        """Declare every parameter of mj_ros/params.py with its value, typed, read_only where it
        is read at start-up only. Overrides (-p, --params-file, launch) are coerced and checked
        here rather than by rclpy: rclpy refuses `speed:=2` for a double with a traceback, and
        an empty array default has no type of its own (rclpy infers a byte array). A bad value
        raises params.ParameterError (one line, all bad values); overrides that match no
        parameter get one warning line."""
        # rclpy keeps the command line's and params files' values here (no public accessor);
        # they are applied below, so rclpy is told to ignore them
        overrides = dict(getattr(self, "_parameter_overrides", {}) or {})
        errors = []
        for name, (default, text) in PARAMETERS.items():
            value = default
            if name in overrides:
                try:
                    value = params.check(name, overrides[name].value)
                except params.ParameterError as e:
                    errors.append(str(e))
            ptype = _ROS_TYPES[params.type_name(name)]
            desc = ParameterDescriptor(description=text, type=ptype.value,
                                       read_only=name not in params.RUNTIME)
            if name not in params.ARRAY_TYPES:
                self.declare_parameter(name, value, desc, ignore_override=True)
                continue
            # rclpy types a value by inspection ([] would be a byte array): an array is declared
            # by type, given its value, then made read_only (all public calls)
            self.declare_parameter(name, ptype, ParameterDescriptor(description=text),
                                   ignore_override=True)
            self.set_parameters([Parameter(name, ptype, value)])
            self.set_descriptor(name, desc)
        if errors:
            raise params.ParameterError("; ".join(errors))
        unknown = sorted(set(overrides) - set(self._parameters))
        if unknown:
            self.get_logger().warning(
                "unknown parameters ignored (see --help for the list): " + ", ".join(unknown))
        self.add_pre_set_parameters_callback(self._coerce_parameters)

    def _p(self, name: str):
        return self.get_parameter(name).value

    @staticmethod
    def _coerce_parameters(prms: list) -> list:
        """Before rclpy's type check at run time: an integer for a double becomes a double."""
        out = []
        for prm in prms:
            if prm.name in PARAMETERS and prm.type_ in (Parameter.Type.INTEGER,
                                                        Parameter.Type.INTEGER_ARRAY):
                try:
                    value = params.coerce(prm.name, prm.value)
                except params.ParameterError:
                    value = None  # left as it is: rclpy's type check refuses it
                if value is not None and not isinstance(value, int):
                    prm = Parameter(prm.name, _ROS_TYPES[params.type_name(prm.name)], value)
            out.append(prm)
        return out

    def _on_set_parameters(self, prms) -> SetParametersResult:
        """Run-time changes: each value checked as at start-up (params.check), all or none
        applied."""
        values = {}
        for prm in prms:
            if prm.name not in PARAMETERS:
                continue  # use_sim_time and rclpy's own
            try:
                values[prm.name] = params.check(prm.name, prm.value)
            except params.ParameterError as e:
                return SetParametersResult(successful=False, reason=str(e))
        for name, value in values.items():
            if name == "speed":
                self.pacer.set_speed(value)
            elif name == "command_timeout_action":
                self._timeout_action = cmds.TimeoutAction(value)
            elif name == "lockstep":
                if self.lockstep and not value:
                    self._lock.flush()
                self.lockstep = value
                self.pacer.anchor()
            elif name == "paused":
                self._set_paused(value)
            elif name == "command_timeout":
                self._command_timeout = value
            elif name == "lockstep_steps":
                self._lock.steps = value
            elif name == "diagnostics_rate":
                self._diag_period = 1.0 / value if value > 0 else math.inf
                self._diag_next = time.monotonic() + min(self._diag_period, 1.0)
        return SetParametersResult(successful=True)

    def _wait_robot_description(self, topic: str, timeout: float):
        got: list[str] = []
        qos = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                         reliability=ReliabilityPolicy.RELIABLE)
        sub = self.create_subscription(String, topic, lambda msg: got.append(msg.data), qos)
        topic = sub.topic_name  # resolved: /<namespace>/robot_description
        self.get_logger().info(f"waiting up to {timeout:g} s for the model on {topic}")
        deadline = time.monotonic() + timeout
        executor = rclpy.executors.SingleThreadedExecutor(context=self.context)
        executor.add_node(self)
        try:
            while not got and time.monotonic() < deadline and self.context.ok():
                executor.spin_once(timeout_sec=0.1)
        finally:
            executor.remove_node(self)
            executor.shutdown()
            self.destroy_subscription(sub)
        if not got:
            raise model_io.ModelLoadError(f"no robot description on {topic} within {timeout:g} s")
        return model_io.ModelSource("xml", got[-1], f"topic {topic}")

    def _initial_keyframe(self, name: str) -> int:
        m = self.model
        if name:
            k = mj.mj_name2id(m, mj.mjtObj.mjOBJ_KEY, name)
            if k < 0:
                raise model_io.ModelLoadError(f"initial_keyframe '{name}' is not in the model")
            return k
        if m.nkey:
            k = mj.mj_name2id(m, mj.mjtObj.mjOBJ_KEY, "home")
            return k if k >= 0 else -1
        return -1

    def _initial_joints(self) -> list[tuple[int, float]]:
        names, values = self._p("initial_joint_names"), self._p("initial_joint_positions")
        if len(names) != len(values):
            raise model_io.ModelLoadError("initial_joint_names and initial_joint_positions differ "
                                          "in length")
        out = []
        for n, v in zip(names, values):
            j = self.cmap.joints.get(n)
            if j is None:
                raise model_io.ModelLoadError(f"initial_joint_names: unknown joint '{n}'")
            out.append((j.qposadr, float(v)))
        return out

    # -- ROS interfaces ---------------------------------------------------------------------------
    def _make_publishers(self) -> None:
        p, dt = self._p, self.timestep
        self._clock_msg = Clock()  # this node's own clock (use_sim_time) and diagnostics stamps
        self._s_clock = _Stream(p("clock_rate"), dt)
        self._s_js = _Stream(p("joint_states_rate"), dt)
        self._s_imu = _Stream(p("imu_rate"), dt)
        self._s_wrench = _Stream(p("wrench_rate"), dt)
        self._s_other = _Stream(p("sensor_rate"), dt)
        self._s_odom = _Stream(p("odometry_rate"), dt)
        m = self.model
        free = int(mj.mjtJoint.mjJNT_FREE)
        self._odom_bodies = []
        for body in p("odometry_bodies"):
            b = mj.mj_name2id(m, mj.mjtObj.mjOBJ_BODY, body)
            if b < 0:
                raise model_io.ModelLoadError(f"odometry_bodies: unknown body '{body}'")
            jadr = int(m.body_jntadr[b])
            if jadr < 0 or int(m.jnt_type[jadr]) != free:
                raise model_io.ModelLoadError(f"odometry_bodies: body '{body}' has no free joint")
            self._odom_bodies.append((body, int(m.jnt_qposadr[jadr]), int(m.jnt_dofadr[jadr])))

        limit = p("max_publish_rate")
        self._publish_period = 1.0 / limit if limit > 0 else 0.0
        self._next_publish = 0.0
        self.diag_pub = self.create_publisher(DiagnosticArray, "/diagnostics", 10)
        rate = p("diagnostics_rate")
        self._diag_period = 1.0 / rate if rate > 0 else math.inf
        self._diag_next = time.monotonic() + min(self._diag_period, 1.0)
        self._diag_name = f"{self.get_name()}: simulation"

    def _make_outputs(self, clock_pub) -> None:
        """The state streams, preserialized (mj_ros/outputs.py); `clock_pub` made already."""
        p, L = self._p, self.layout
        self.out = outputs.StateOutputs(
            self, self.model, mj, L, self.cmap.joints.values(), topic_prefix=p("topic_prefix"),
            frame_prefix=p("frame_prefix"), world_frame=p("world_frame"),
            odometry_bodies=self._odom_bodies, tf=self._tf, clock_pub=clock_pub,
            noise_seed=p("seed") if p("sensor_noise") else None)
        self.clock_pub, self.js_pub = self.out.clock_pub, self.out.js_pub
        if self._hardware is not None and self._hardware.states_pub is not None:
            self.out.also_send_joint_states(self._hardware.states_pub)
        # the streams with nothing to publish are off
        if not L.imus:
            self._s_imu.every = 0
        if not L.wrenches:
            self._s_wrench.every = 0
        if not L.others:
            self._s_other.every = 0
        if not self._odom_bodies:
            self._s_odom.every = 0
        if self._tf is None or not self._tf.moving_count:
            self._s_tf.every = 0
        self._make_plan()

    def _make_inputs(self) -> None:
        # lockstep runs every command: the subscriptions keep as many as its queue holds
        depth = lockstep.QUEUE_DEPTH if self.lockstep else COMMAND_QOS
        for msg_type, topic, callback in (
                (JointState, "joint_commands", self._on_joint_commands),
                (Float64MultiArray, "ctrl", self._on_ctrl),
                (JointTrajectory, "joint_trajectory", self._on_trajectory)):
            self.create_subscription(msg_type, "~/" + topic, callback, depth,
                                     event_callbacks=self._lost_events(topic))
        self.create_service(SetBool, "~/pause", self._srv_pause)
        self.create_service(Trigger, "~/reset", self._srv_reset)
        self.create_service(Trigger, "~/step", self._srv_step)

    def _make_tf_and_mocap(self) -> None:
        """/tf and /tf_static, the mocap map's subscriptions, and following an external /clock."""
        p, m = self._p, self.model
        self.frames = fr.from_model(m, mj, p("world_frame"),
                                    fr.urdf_text_of(self._source.kind, self._source.value))
        for note in self.frames.notes:
            self.get_logger().warning(note)
        prefix = p("frame_prefix")
        self._tf = None
        self._s_tf = _Stream(p("tf_rate"), self.timestep)
        if p("tf_rate") >= 0:
            self._tf = tfio.TfOutput(self, self.frames, prefix)
            self._tf.publish_static(0, 0)
        self._mocap = None
        self._mocap_input = None
        if p("mocap_map"):
            from mj_ros import mocap as mc  # only with a mocap map: not on the start-up path
            names = [mj.mj_id2name(m, mj.mjtObj.mjOBJ_BODY, i) for i in range(m.nbody)]
            try:
                config = mc.load_config(p("mocap_map"), mc.mocap_bodies(m, names), self.frames,
                                        m.body_parentid)
            except mc.MocapConfigError as e:
                raise model_io.ModelLoadError(str(e)) from None
            self._mocap = mc.MocapDriver(config, self.frames, self._warn.warn)
            self._mocap_input = tfio.MocapInput(self, self._mocap, lambda: self.simclock.last,
                                                self._count_event, prefix)
            self.get_logger().info(
                "mocap: " + ", ".join(f"{s.body} <- {s.topic}"
                                      + (f" [{s.child_frame}]" if s.child_frame else "")
                                      for s in config.sources)
                + f" ({config.mode}, timeout {config.timeout:g} s, stamps {config.stamps})")
        self._following = bool(p("follow_clock"))
        self._clock_target: float | None = None
        if self._following:
            self._s_clock.every = 0  # the external /clock is the only one
            self.create_subscription(Clock, "/clock", self._on_clock, 10)

    def _make_scene(self) -> None:
        """scene_markers and robot_description for ROS viewers (mj_ros/markers.py)."""
        p, m = self._p, self.model
        self._s_markers = _Stream(p("markers_rate"), self.timestep)
        self._markers = None
        groups = [int(g) for g in p("marker_groups")]
        specs = None
        if p("markers_rate") >= 0:
            from mj_ros import markers as mk   # visualization_msgs: only when drawn
            specs = scene.geom_markers(m, groups)
            self._markers = mk.SceneMarkers(self, m, specs,
                                            p("frame_prefix") + p("world_frame"))
        if not self._markers:
            self._s_markers.every = 0
        self._description_pub = None
        if p("publish_robot_description") and not self._model_from_topic:
            from mj_ros import description, markers as mk
            text = fr.urdf_text_of(self._source.kind, self._source.value)
            if text is None:    # MJCF: a URDF of its bodies and visual geoms
                frames = list(self.frames.anchors)[:m.nbody]
                joints = [mj.mj_id2name(m, mj.mjtObj.mjOBJ_JOINT, j) for j in range(m.njnt)]
                specs = scene.geom_markers(m, groups) if specs is None else specs
                text = description.urdf_from_model(m, frames, joints, specs,
                                                   self._model_name())
            self._description_pub = mk.publish_description(self, text)

    def destroy_node(self):
        if getattr(self, "cameras", None):
            self.cameras.close()
        return super().destroy_node()

    def _model_name(self) -> str:
        names = getattr(self.model, "names", b"")
        return names.split(b"\0", 1)[0].decode("utf-8", "replace") if names else "mj_ros"

    def _publish_markers(self) -> None:
        """scene_markers for the state at the stamped time (kinematics as in _publish_tf)."""
        d = self.data
        self._mj_kinematics(self.model, d)
        self._markers.publish(d, *to_stamp(self.simclock.last))

    def _count_event(self) -> None:
        self._events += 1

    def _on_clock(self, msg: Clock) -> None:
        """An external /clock: the first one sets sim time; later ones let the sim step up to
        them. Time never goes back: a clock that does (a looped bag) is ignored until it passes
        the sim time again."""
        self._events += 1
        t = msg.clock.sec + msg.clock.nanosec * 1e-9
        if self._clock_target is None:
            self.simclock = SimClock(t - float(self.data.time))
            self.simclock.now(float(self.data.time))
            self._last_command_time = self.simclock.last
            self._clock_target = t
            self.get_logger().info(f"following /clock from {t:.6f}")
            self.publish_state()  # the state at the new time, for whoever waits for it
            return
        if t < self._clock_target - self.timestep:
            self._warn.warn("clock_back", f"/clock went back from {self._clock_target:.6f} to "
                                          f"{t:.6f}: sim time keeps going forward")
        self._clock_target = max(self._clock_target, t)

    def _clock_due(self) -> bool:
        target = self._clock_target
        return target is not None and self.simclock.last + 0.5 * self.timestep <= target

    def _drive_own_clock(self) -> None:
        """With use_sim_time, set this node's ROS clock from the simulation directly instead of
        through its own /clock subscription (which would cost one callback per step)."""
        ts = getattr(self, "_time_source", None)
        sub = getattr(ts, "_clock_sub", None)
        self._own_time_source = ts if sub is not None else None
        if sub is not None:
            self.destroy_subscription(sub)
            ts._clock_sub = None

    # -- commands ---------------------------------------------------------------------------------
    def count_event(self) -> None:
        """A callback ran (see _drain)."""
        self._events += 1

    def current_trajectory(self) -> cmds.Trajectory | None:
        return self._traj

    def submit_trajectory(self, traj: cmds.Trajectory, received: float | None) -> bool:
        """Follow `traj` (in lockstep: as its own batch, in order with the other commands);
        False: rejected (the lockstep queue is full)."""
        if traj.clamped:
            self._warn.warn("clamp_trajectory", f"{traj.clamped} trajectory positions outside "
                                                f"the joint limits are clamped ({traj.note})")
        return self._submit("joint_trajectory", lambda: self._apply_trajectory(traj, received))

    def hold_joints(self, joints) -> None:
        """Stop following the trajectory; the joints' position actuators hold where they are."""
        self._traj = None
        hold = self.cmap.hold_targets(self.data.qpos)
        keep = np.isin(hold.ctrl_idx, [j.actuators[cmds.POSITION][0] for j in joints])
        self._ctrl_goal[hold.ctrl_idx[keep]] = hold.ctrl_val[keep]
        self._ramp.start()
        self._commanded()

    def position_targets(self, joints, applied: bool = False) -> np.ndarray:
        """The joints' position targets (ctrl / gear of their position actuators): the goals
        commands set, or (`applied`) the controls after the velocity ramp."""
        src = self._ctrl_cmd if applied else self._ctrl_goal
        return np.array([src[j.actuators[cmds.POSITION][0]] / j.actuators[cmds.POSITION][1]
                         for j in joints])

    def drop(self, kind: str, err: Exception) -> None:
        self._drop(kind, err)

    def submit_command(self, kind: str, command: cmds.Command) -> None:
        self._submit(kind, lambda: self._apply_command(command))

    def _drop(self, kind: str, err: Exception) -> None:
        self.stats.dropped_commands += 1
        self._warn.warn("drop_" + kind, f"dropped a {kind} message: {err}")

    def _accept(self, command: cmds.Command) -> None:
        self._ctrl_goal[command.ctrl_idx] = command.ctrl_val
        self._ramp.start()
        self._qfrc_cmd[command.dof_idx] = command.dof_val
        self._effort_guard = self._effort_vlimit.engaged(self._ctrl_goal, self._qfrc_cmd)
        if command.clamped:
            self._warn.warn("clamp", f"{command.clamped} command values clamped to the actuator "
                                     f"and joint limits ({command.note})")
        self._commanded()

    def _commanded(self) -> None:
        self._last_command_time = self.simclock.last
        self._timed_out = False

    def _lost_events(self, topic: str) -> SubscriptionEventCallbacks:
        """The middleware's message-lost event (DDS SAMPLE_LOST: sequence numbers that never
        arrived, e.g. a publisher's queue overflowed): counted and, in lockstep, warned about."""
        def lost(info) -> None:
            self._events += 1
            n = int(info.total_count_change)
            if self.lockstep:
                self.stats.dropped_commands += n
                self._lock.lost_in_transport(topic, n)
        return SubscriptionEventCallbacks(message_lost=lost)

    def _submit(self, kind: str, apply) -> bool:
        """Apply a validated command now, or in lockstep queue it for its own batch; False: the
        lockstep queue was full (the command is rejected with a warning)."""
        if self.lockstep:
            if not self._lock.offer(kind, apply):
                self.stats.dropped_commands += 1
                return False
        else:
            apply()
        return True

    def _apply_command(self, command: cmds.Command) -> None:
        self._traj = None
        self._accept(command)

    def _on_joint_commands(self, msg: JointState) -> None:
        self._events += 1
        try:
            command = self.cmap.joint_state(msg.name, msg.position, msg.velocity, msg.effort)
        except cmds.CommandError as e:
            return self._drop("joint_commands", e)
        self._submit("joint_commands", lambda: self._apply_command(command))

    def _on_ctrl(self, msg: Float64MultiArray) -> None:
        self._events += 1
        try:
            command = self.cmap.ctrl(msg.data)
        except cmds.CommandError as e:
            return self._drop("ctrl", e)
        self._submit("ctrl", lambda: self._apply_command(command))

    def _on_trajectory(self, msg: JointTrajectory) -> None:
        self.on_trajectory(msg)

    def on_trajectory(self, msg: JointTrajectory) -> None:
        """A trajectory_msgs/JointTrajectory command (~/joint_trajectory, a controller's topic)."""
        self._events += 1
        now = self.simclock.last
        stamp = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9
        start = stamp if stamp > 0 else now
        points = [(pt.positions, pt.velocities,
                   pt.time_from_start.sec + pt.time_from_start.nanosec * 1e-9)
                  for pt in msg.points]
        # the trajectory is in published sim time; the engine's is offset by simclock.offset
        try:
            traj = cmds.make_trajectory(self.cmap, msg.joint_names, points, max(start, now),
                                        self.data.qpos)
        except cmds.CommandError as e:
            return self._drop("joint_trajectory", e)
        if traj is None:  # an empty trajectory cancels
            return self._submit("joint_trajectory", lambda: self._apply_trajectory(None, None))
        self.submit_trajectory(traj, now if stamp <= 0 else None)

    def _apply_trajectory(self, traj, received: float | None) -> None:
        """`received`: the sim time an unstamped trajectory arrived at; it starts when applied
        (later, when it waited in the lockstep queue)."""
        if traj is not None and received is not None and self.simclock.last > received:
            traj.times += self.simclock.last - received
        self._traj = traj
        self._commanded()

    # -- services ---------------------------------------------------------------------------------
    def _set_paused(self, paused: bool) -> None:
        if self.paused and not paused:
            self.pacer.anchor()
            self.rate.reset()
        self.paused = paused

    def _srv_pause(self, request, response):
        self._events += 1
        self._set_paused(bool(request.data))
        response.success = True
        response.message = "paused" if self.paused else "running"
        return response

    def _srv_reset(self, request, response):
        self._events += 1
        self.reset_state()
        response.success = True
        response.message = f"reset at sim time {self.simclock.last:.6f}"
        return response

    def _srv_step(self, request, response):
        self._events += 1
        if not self.paused:
            response.success = False
            response.message = "not paused: call ~/pause with data: true first"
            return response
        n = int(self._p("step_count"))
        for _ in range(n):
            self.step()
        self.publish_state()
        response.success = True
        response.message = f"stepped {n} to sim time {self.simclock.last:.6f}"
        return response

    # -- simulation -------------------------------------------------------------------------------
    def reset_state(self, first: bool = False) -> None:
        """Reset to the initial keyframe and joint positions; sim time keeps counting forward."""
        m, d = self.model, self.data
        if self._init_key >= 0:
            mj.mj_resetDataKeyframe(m, d, self._init_key)
        else:
            mj.mj_resetData(m, d)
        for adr, value in self._init_joints:
            d.qpos[adr] = value
        if self._mocap is not None:
            self._mocap.apply(self.simclock.last, d.mocap_pos, d.mocap_quat, d.xpos, d.xquat)
        self._mj_forward(m, d)
        self._ctrl_goal[:] = d.ctrl
        self._qfrc_cmd[:] = 0.0
        hold = self.cmap.hold_targets(d.qpos)
        self._ctrl_goal[hold.ctrl_idx] = hold.ctrl_val
        self._ctrl_cmd[:] = self._ctrl_goal  # holding where it is: nothing to ramp
        self._effort_guard = self._effort_vlimit.engaged(self._ctrl_goal, self._qfrc_cmd)
        self._ramp.active = False
        d.ctrl[:] = self._ctrl_cmd
        self._traj = None
        self._timed_out = False
        for c in getattr(self, "controllers", ()):
            c.reset()
        self.simclock.rebase(float(d.time))
        self._engine_time = float(d.time)
        self._last_command_time = self.simclock.last
        self._div_seen = diag.warning_count(d, self._div_idx)
        self.pacer.anchor()
        if not first:
            self.get_logger().info(f"reset at sim time {self.simclock.last:.6f}")
        self.publish_state()

    def _apply_timeout(self, now: float) -> None:
        timeout = self._command_timeout
        if self._timed_out or now - self._last_command_time <= timeout:
            return
        if self._traj is not None and now <= self._traj.end_time:
            return
        self._timed_out = True
        action = self._timeout_action.value
        self._warn.warn("timeout_" + action, f"no command for {timeout:g} s: {action}")
        if self._timeout_action is cmds.TimeoutAction.ZERO:
            self._traj = None
            command = self.cmap.zero_command(self.data.qpos)
            self._ctrl_goal[command.ctrl_idx] = command.ctrl_val
            self._ramp.start()
            self._qfrc_cmd[:] = 0.0
            self._effort_guard = self._effort_vlimit.engaged(self._ctrl_goal, self._qfrc_cmd)

    def step(self, publish: bool = True) -> None:
        """Apply the commands, advance the engine one step, publish what is due (unless
        `publish` is False: the caller publishes every stream itself)."""
        m, d = self.model, self.data
        now = self.simclock.last
        if self._traj is not None:
            c = cmds.trajectory_command(self.cmap, self._traj, now + self.timestep)
            self._ctrl_goal[c.ctrl_idx] = c.ctrl_val
            self._ramp.start()
        if self._command_timeout > 0:
            self._apply_timeout(now)
        self._ramp.apply(self._ctrl_goal, self._ctrl_cmd)
        d.ctrl[:] = self._ctrl_cmd
        d.qfrc_applied[:] = self._qfrc_cmd
        if self._effort_guard:  # about 6 us: only while an effort on a limited joint is on
            self._effort_vlimit.apply(d.qvel, d.ctrl, d.qfrc_applied)
        self._mj_step(m, d)
        self._steps += 1
        t = self._advance_clock(1)
        if self._mocap is not None:  # the poses for the step that starts at t
            self._mocap.apply(t, d.mocap_pos, d.mocap_quat, d.xpos, d.xquat)
        for c in self.controllers:
            c.after_step(t)
        if not publish:
            return
        if self._publish_period and self.pacer.speed == 0.0:
            now = time.monotonic()  # as fast as possible: publish at most max_publish_rate
            if now < self._next_publish:
                return
            self._next_publish = now + self._publish_period
        self._publish(self._steps)

    def _publish(self, step: int) -> None:
        """Publish the streams due at `step` (each at most at its own rate)."""
        stamped = False
        for stream, publish in self._plan:
            every = stream.every
            if every and step - stream.last >= every:
                stream.last = step
                if not stamped:
                    stamped = True
                    self.out.fill(self.data, *to_stamp(self.simclock.last))
                publish()

    def publish_state(self) -> None:
        """Publish every stream now (after a reset, a service step or a lockstep batch)."""
        self._sync_clock_msg()
        self._set_own_clock()
        self.out.fill(self.data, *to_stamp(self.simclock.last))
        for stream, publish in self._plan:
            if stream.every:
                stream.last = self._steps
                publish()

    def _make_plan(self) -> None:
        """(stream, publish) in publishing order: /clock first, so that a use_sim_time subscriber
        knows the time of what follows."""
        o, d = self.out, self.data
        self._plan = [
            (self._s_clock, o.clock),
            (self._s_tf, self._publish_tf),
            (self._s_js, o.joint_states),
            (self._s_imu, o.imus),
            (self._s_wrench, o.wrenches),
            (self._s_other, o.others),
            (self._s_odom, lambda: o.odometry(d)),
            (self._s_markers, self._publish_markers),
        ]

    def _publish_tf(self) -> None:
        """/tf for the state at the stamped time: mj_step leaves the poses of the state it
        started from, so the kinematics are brought up to date first (the next step recomputes
        them anyway: the trajectory does not change)."""
        d = self.data
        self._mj_kinematics(self.model, d)
        self.out.transforms(d.xpos, d.xquat)

    def _sync_clock_msg(self) -> None:
        c = self._clock_msg.clock
        c.sec, c.nanosec = to_stamp(self.simclock.last)

    def _set_own_clock(self) -> None:
        ts = self._own_time_source
        if ts is not None and ts.ros_time_is_active:
            ts.clock_callback(self._clock_msg)

    def _diagnostics(self) -> None:
        d, st = self.data, self.stats
        div = diag.warning_count(d, self._div_idx)
        # the step loop sees every reset that made d.time restart; the warning counters catch
        # one in the very first step after a reset (time advanced normally there)
        st.new_divergences = max(self._div_detected, div - self._div_seen, 0)
        self._div_detected = 0
        if st.new_divergences:
            st.last_divergence = diag.last_divergence(d, self._div_idx, mj)
        if st.new_divergences:
            self._warn.warn("diverged", f"the simulation diverged and was reset by the engine "
                                        f"({st.new_divergences} times); see /diagnostics")
        st.divergence_resets += st.new_divergences
        self._div_seen = div
        st.new_overruns = self.pacer.overruns - st.step_overruns
        st.step_overruns = self.pacer.overruns
        st.sim_time, st.steps = self.simclock.last, self._steps
        st.speed_target, st.real_time_factor = self.pacer.speed, self.rate.factor
        st.solver_iterations = diag.solver_iterations(d)
        st.paused, st.lockstep = self.paused, self.lockstep
        level, text, values = diag.report(st)
        status = DiagnosticStatus(level=bytes([level]), name=self._diag_name, message=text,
                                  hardware_id=self.get_fully_qualified_name())
        status.values = [KeyValue(key=k, value=v) for k, v in values]
        if self.cameras:
            status.values += [KeyValue(key=k, value=str(v)) for k, v in self.cameras.stats()]
        arr = DiagnosticArray()
        arr.header.stamp = TimeMsg(sec=self._clock_msg.clock.sec,
                                   nanosec=self._clock_msg.clock.nanosec)
        arr.status = [status]
        self.diag_pub.publish(arr)

    # -- the loop ---------------------------------------------------------------------------------
    def _drain(self, executor, budget: int = 64) -> None:
        """Run queued callbacks without waiting (one spin_once per event), and set the time to
        the next poll: `POLL_PERIOD` after callbacks ran, else long enough that idle polls take
        at most `POLL_SHARE` of the wall time."""
        start, first = time.perf_counter(), self._events
        for _ in range(budget):
            before = self._events
            executor.spin_once(timeout_sec=0)
            if self._events == before:
                break
        if self._events != first:
            self._poll_period = POLL_PERIOD
        else:
            cost = time.perf_counter() - start
            self._poll_period = min(POLL_PERIOD_MAX, max(POLL_PERIOD, cost / POLL_SHARE))

    def _announce(self) -> None:
        """While the simulation waits (paused, lockstep between batches): a /joint_states
        subscriber that matched since the last look gets the current state, so a client that
        starts after the node (or after the first publication) sees it without a command."""
        n = self.js_pub.get_subscription_count()
        if n > self._js_subscribers:
            self.publish_state()
        self._js_subscribers = n

    def _housekeeping(self, now: float) -> None:
        self.rate.add(self.simclock.last)
        self._sync_clock_msg()
        self._set_own_clock()
        if now >= self._diag_next:
            self._diag_next = now + self._diag_period
            self._diagnostics()
        if self.cameras:    # between steps: a frame when one is due and the renderer is idle
            self.cameras.tick(self.data, *to_stamp(self.simclock.last), now)

    def _burst(self, until: float) -> None:
        """At speed 0, step until the next executor poll (no callback can run meanwhile, so
        nothing the loop checks per iteration can change). Steps whose state nobody will see
        (max_publish_rate holds the publications back) go to the engine in one call of
        mj_step(nstep) where no input changes from one step to the next."""
        monotonic, step = time.monotonic, self.step
        now = monotonic()
        while now < until:
            k = self._batchable_steps(now)
            if k > 1:
                self._step_batch(k)
                now = monotonic()
                continue
            step()
            now = monotonic()

    def _batchable_steps(self, now: float) -> int:
        """How many steps can go to the engine in one call before the next publication is due:
        0 unless publications are held back by max_publish_rate and the inputs are constant
        (no trajectory, no mocap, no ramp, no effort at a velocity limit's guard, no command
        timeout within the batch, not following /clock)."""
        if (not self._publish_period or self._traj is not None or self._mocap is not None
                or self._ramp.active
                or self._effort_guard):
            return 0
        left = self._next_publish - now
        if left <= 0:
            return 0
        k = int(left / self._step_cost)
        if self._command_timeout > 0 and not self._timed_out:
            margin = self._last_command_time + self._command_timeout - self.simclock.last
            k = min(k, int(margin / self.timestep) - 1)
        return max(0, min(k, 1000))

    def _step_batch(self, k: int) -> None:
        m, d = self.model, self.data
        self._ramp.apply(self._ctrl_goal, self._ctrl_cmd)  # not ramping here: a copy
        d.ctrl[:] = self._ctrl_cmd
        d.qfrc_applied[:] = self._qfrc_cmd
        t0 = time.perf_counter()
        self._mj_step(m, d, k)
        cost = (time.perf_counter() - t0) / k
        self._step_cost = 0.8 * self._step_cost + 0.2 * cost
        self._steps += k
        t = self._advance_clock(k)
        for c in self.controllers:
            c.after_step(t)

    def _advance_clock(self, k: int) -> float:
        """Published sim time after `k` engine steps. The engine resets a diverging simulation
        inside mj_step (d.time restarts at 0, and MuJoCo's reset clears d.warning, so its counters
        cannot count repeated resets): a step that did not advance d.time by about k timesteps
        was such a reset. It is counted for /diagnostics and sim time still advances by k steps,
        so stamps never go back or stand still."""
        et = float(self.data.time)
        if et < self._engine_time + (k - 0.5) * self.timestep:
            self.simclock.rebase(et - k * self.timestep)
            self._div_detected += 1
        self._engine_time = et
        return self.simclock.now(et)

    def run(self, executor, duration: float | None = None) -> None:
        """Step until the context shuts down (or `duration` s of wall time passed)."""
        ctx = self.context
        end = math.inf if duration is None else time.monotonic() + duration
        next_poll = 0.0
        while ctx.ok():
            now = time.monotonic()
            if now >= end:
                break
            polled = now >= next_poll
            if polled:
                next_poll = now + self._poll_period
                self._housekeeping(now)
            if self.paused or (self.lockstep and not self._lock.ready()):
                if polled:
                    self._announce()
                executor.spin_once(timeout_sec=WAIT_SLICE)
                continue
            if self._following:
                if not self._clock_due():
                    executor.spin_once(timeout_sec=WAIT_SLICE)
                    continue
                if polled:
                    self._drain(executor)
                self.step()
                continue
            wait = 0.0 if self.lockstep else self.pacer.wait_time()
            if wait > 0:
                executor.spin_once(timeout_sec=min(wait, WAIT_SLICE))
                continue
            if polled and (self.pacer.speed == 0.0 or wait < -POLL_PERIOD):
                self._drain(executor)  # as fast as possible, or behind schedule: no idle waits
            if not self.lockstep:
                self.step()
                self.pacer.stepped()
                if self.pacer.speed == 0.0:
                    self._burst(min(next_poll, end))
                continue
            last = self._lock.last_step
            self.step(publish=not last)
            self._lock.stepped()
            if last:  # every stream once for the batch's last step, then the batch-done signal
                self.publish_state()
                self._lock.done(self._steps)


def _usage(args) -> int | None:
    """`--help` (exit 0) and stray arguments outside --ros-args (exit 2), before anything
    starts; None: go on."""
    argv = list(sys.argv if args is None else args)
    prog = "mj-ros-sim" if not argv else argv[0].rsplit("/", 1)[-1]
    if prog in ("sim_node.py", "__main__.py", "-c", "-m"):
        prog = "mj-ros-sim"
    rest = rclpy.utilities.remove_ros_args(argv)[1:]
    if any(a in ("-h", "--help") for a in rest):
        sys.stdout.write(params.help_text(prog))
        return 0
    if rest:
        sys.stderr.write(f"{prog}: unknown argument {rest[0]!r}: parameters go after --ros-args "
                         f"as -p NAME:=VALUE (see --help)\n")
        return 2
    return None


def main(args=None) -> int:
    code = _usage(args)
    if code is not None:
        return code
    # The first run on a machine (or after an engine edit) compiles the engine's kernels here,
    # minutes with a progress line on stderr, instead of stalling in the model load without a
    # word; warm, this is a stamp check (ms) and the kernels load from numba's cache when the
    # model compiles. Before rclpy.init, whose SIGINT handler only shuts the ROS context down:
    # Ctrl-C stops a compile.
    try:
        if not warmup.ensure():
            sys.stderr.write("mj_ros sim: the engine's warm-up model went non-finite\n")
    except KeyboardInterrupt:
        return 0
    rclpy.init(args=args)
    node = None
    executor = None
    code = 0
    try:
        node = SimNode()
        executor = EventsExecutor(context=node.context)
        executor.add_node(node)
        node.run(executor)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except RCLError:
        # SIGINT shuts the context down (rclpy's handler) during start-up or between two checks
        # of the loop: making or using a publisher then fails; that is the end of the run, not
        # an error
        if rclpy.ok():
            raise
    except params.ParameterError as e:
        sys.stderr.write(f"mj_ros sim: {e}\n")
        code = 2
    except (model_io.ModelLoadError, NotImplementedError,
            controllers.ControllerConfigError) as e:
        sys.stderr.write(f"mj_ros sim: {e}\n")
        code = 1
    finally:
        if executor is not None:
            executor.shutdown()
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
    return code


if __name__ == "__main__":
    sys.exit(main())
