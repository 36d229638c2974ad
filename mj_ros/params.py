"""Every parameter of the simulator node: name, default, description, type, check.

One table for the node (which declares them), config/sim.yaml and launch/sim.launch.py (whose
agreement with this table is tested), and `scripts/sim --help`. No ROS import here: the node
turns these into rclpy declarations (mj_ros/sim_node.py, `_declare_parameters`).

Values are checked by one function, `check`, at start-up (a bad override ends the start with one
line) and at run time (a bad set_parameters is refused with the same text as its reason).
"""
from __future__ import annotations

import math

# name: (default, description). Empty-list defaults take their type from ARRAY_TYPES.
PARAMETERS: dict[str, tuple[object, str]] = {
    "model": ("", "Path of an MJCF or URDF file. Empty: robot_description, then the default robot."),
    "robot_description": ("", "Robot XML text (URDF or MJCF) used when `model` is empty."),
    "robot_description_topic": (
        "", "If set and neither model nor robot_description is: wait for the XML on this "
            "transient-local std_msgs/String topic (e.g. 'robot_description')."),
    "robot_description_timeout": (10.0, "Seconds to wait on robot_description_topic."),
    "timestep": (0.0, "Physics timestep override in seconds; 0 keeps the model's."),
    "speed": (1.0, "Target real-time factor; 0 runs as fast as possible."),
    "lockstep": (False, "Hardware-in-the-loop lockstep: advance only after each command message "
                        "(joint_commands, ctrl or joint_trajectory), one batch of lockstep_steps "
                        "per message, in order; ~/lockstep_done (UInt64, steps so far) after "
                        "each batch's state (README, Lockstep)."),
    "lockstep_steps": (1, "Steps per command message in lockstep mode (1 to 1000000)."),
    "paused": (False, "Start paused (resume with the ~/pause service, data: false)."),
    "headless": (True, "Run without a viewer (the only mode so far)."),
    "initial_keyframe": ("", "Keyframe to start from and reset to. Empty: 'home' if the model has "
                             "it, else the model's reference configuration."),
    "initial_joint_names": ([], "Joints set after the keyframe to initial_joint_positions."),
    "initial_joint_positions": ([], "Positions for initial_joint_names (same order)."),
    "clock_rate": (0.0, "Hz of sim time for /clock; 0 = every step, < 0 = off."),
    "joint_states_rate": (0.0, "Hz of sim time for joint_states; 0 = every step, < 0 = off."),
    "imu_rate": (0.0, "Hz of sim time for sensor_msgs/Imu topics; 0 = every step, < 0 = off."),
    "wrench_rate": (0.0, "Hz of sim time for WrenchStamped topics; 0 = every step, < 0 = off."),
    "sensor_rate": (100.0, "Hz of sim time for the other sensors' topics; 0 = every step, "
                           "< 0 = off."),
    "odometry_rate": (100.0, "Hz of sim time for nav_msgs/Odometry; 0 = every step, < 0 = off."),
    "odometry_bodies": ([], "Free bodies published as nav_msgs/Odometry on "
                            "<topic_prefix><body>/odom."),
    "max_publish_rate": (1000.0, "At speed 0 only: publish state at most this often per wall-clock "
                                 "second (each stream still at most at its own rate); 0 = no "
                                 "limit. Publishing every stream every step costs ~20-35 us of "
                                 "DDS time per message that has a subscriber."),
    "diagnostics_rate": (1.0, "Hz of wall time for /diagnostics; <= 0 = off."),
    "frame_prefix": ("", "Prefix of every frame id (multi-robot setups), e.g. 'robot1/'."),
    "topic_prefix": ("", "Prefix of the joint_states and sensor topic names, e.g. 'sim/'."),
    "world_frame": ("world", "Frame id of the world (odometry parent)."),
    "command_timeout": (0.0, "Sim seconds without a command before the timeout action; 0 = never."),
    "command_timeout_action": ("hold", "'hold' keeps the last command; 'zero' zeroes efforts and "
                                       "velocities and holds the current joint positions."),
    "step_count": (1, "Steps taken by one call of the ~/step service (while paused; 1 to "
                      "1000000)."),
    "tf_rate": (100.0, "Hz of sim time for /tf (bodies with joints and mocap bodies); 0 = every "
                       "step, < 0 = no /tf and no /tf_static. /tf_static (fixed bodies, sites, "
                       "cameras, fused URDF links) is published once, transient local."),
    "markers_rate": (10.0, "Hz of sim time for the scene_markers MarkerArray (one marker per "
                           "visual geom, world frame); 0 = every step, < 0 = off."),
    "marker_groups": ([0, 1, 2], "Geom groups drawn as markers and in a generated "
                                 "robot_description (MuJoCo's viewer shows 0-2 by default)."),
    "publish_robot_description": (True, "Publish the model's URDF (an MJCF model's generated "
                                        "from it) on robot_description, transient local, unless "
                                        "the model came from that topic."),
    "cameras": ([], "MJCF <camera> names published as images (<camera>/image_raw rgb8, "
                    "<camera>/depth/image_raw 32FC1 in metres, <camera>/camera_info; frame "
                    "<camera>_optical). Empty: no images; ['all']: every camera."),
    "camera_rate": (30.0, "Hz of wall time for camera images (rendered off the physics thread; "
                          "a frame due while the last one renders is dropped)."),
    "camera_width": (320, "Image width in pixels of cameras without a resolution attribute."),
    "camera_height": (240, "Image height in pixels of cameras without a resolution attribute."),
    "mocap_map": ("", "Path of a mocap map YAML (config/mocap_example.yaml): mocap bodies driven "
                      "by PoseStamped/TransformStamped topics or /tf frames. Empty: none."),
    "follow_clock": (False, "Follow an external /clock (e.g. ros2 bag play --clock): sim time "
                            "jumps to the first /clock message, then the simulation steps until "
                            "it reaches each /clock value; the node publishes no /clock."),
    "disable": ([], "MJCF <flag> names to disable, e.g. ['contact']: sets the model's "
                    "opt.disableflags."),
    "controllers_file": ("", "A controllers YAML in ros2_control's format "
                             "(config/controllers_example.yaml): joint_state_broadcaster, "
                             "joint_trajectory_controller and forward command controllers by "
                             "name. Empty: /dynamic_joint_states and a joint_trajectory_controller "
                             "over the position-actuated joints."),
    "ros2_control_kp": (1000.0, "Position gain (N m/rad or N/m) of the actuators a URDF's "
                                "<ros2_control> position interfaces get, unless the joint's "
                                "block has <param name=\"kp\">."),
    "ros2_control_kv": (50.0, "Damping gain (N m s/rad or N s/m) of those position actuators, "
                              "unless <param name=\"kv\">."),
    "ros2_control_velocity_kv": (100.0, "Gain (N m s/rad or N s/m) of the actuators a URDF's "
                                        "<ros2_control> velocity interfaces get, unless "
                                        "<param name=\"velocity_kv\">."),
    "hardware_commands_topic": (
        "/robot_joint_command", "topic_based_ros2_control's commands topic (its "
        "joint_commands_topic default): sensor_msgs/JointState whose filled position, velocity "
        "and effort arrays command the joints (README, 'Your own controller_manager'). Empty: "
        "off."),
    "hardware_states_topic": (
        "/robot_joint_states", "topic_based_ros2_control's states topic (its joint_states_topic "
        "default): the joint states, as on joint_states, at joint_states_rate. Empty: off."),
    "sensor_noise": (False, "Add zero-mean Gaussian noise to the published sensor values, with "
                            "each MJCF sensor's `noise` as its standard deviation (the "
                            "covariances the messages report are noise^2 either way)."),
    "seed": (0, "Seed of the sensor noise generator (sensor_noise)."),
}

ARRAY_TYPES = {"initial_joint_names": "string_array", "initial_joint_positions": "double_array",
               "odometry_bodies": "string_array", "disable": "string_array",
               "cameras": "string_array"}

# rclpy declares use_sim_time itself; the launch file passes it through.
IMPLICIT = ("use_sim_time",)

# Parameters the node reads while it runs; every other one is read at start-up only and declared
# read_only (a run-time change would be silently ignored otherwise).
RUNTIME = ("speed", "lockstep", "lockstep_steps", "paused", "command_timeout",
           "command_timeout_action", "step_count", "diagnostics_rate")

TIMEOUT_ACTIONS = ("hold", "zero")


class ParameterError(ValueError):
    """A parameter value the node refuses; str(e) is the one line to show."""


def type_name(name: str) -> str:
    """The ROS type of a parameter: bool, integer, double, string, string_array, double_array,
    integer_array."""
    if name in ARRAY_TYPES:
        return ARRAY_TYPES[name]
    default = PARAMETERS[name][0]
    if isinstance(default, list) and default and all(
            isinstance(v, int) and not isinstance(v, bool) for v in default):
        return "integer_array"
    for py, ros in ((bool, "bool"), (int, "integer"), (float, "double"), (str, "string")):
        if isinstance(default, py):
            return ros
    raise TypeError(f"parameter {name}: no ROS type for {default!r}")


def _finite(v) -> bool:
    return math.isfinite(v)


# name -> (predicate on the coerced value, what the value must be). Rates may be negative (off).
_CHECKS = {
    "robot_description_timeout": (lambda v: _finite(v) and v > 0, "a number of seconds > 0"),
    "timestep": (lambda v: _finite(v) and v >= 0, "a number of seconds >= 0 (0: the model's)"),
    "speed": (lambda v: _finite(v) and v >= 0, "a real-time factor >= 0 (0: as fast as possible)"),
    "lockstep_steps": (lambda v: 1 <= v <= 1_000_000, "an integer from 1 to 1000000"),
    "marker_groups": (lambda v: all(0 <= g < 6 for g in v), "geom groups from 0 to 5"),
    "step_count": (lambda v: 1 <= v <= 1_000_000, "an integer from 1 to 1000000"),
    "max_publish_rate": (lambda v: _finite(v) and v >= 0, "a rate in Hz >= 0 (0: no limit)"),
    "command_timeout": (lambda v: _finite(v) and v >= 0, "a number of seconds >= 0 (0: never)"),
    "command_timeout_action": (lambda v: v in TIMEOUT_ACTIONS, "one of " + ", ".join(
        TIMEOUT_ACTIONS)),
    "initial_joint_positions": (lambda v: all(map(_finite, v)), "finite numbers"),
    "ros2_control_kp": (lambda v: _finite(v) and v >= 0, "a gain >= 0"),
    "ros2_control_kv": (lambda v: _finite(v) and v >= 0, "a gain >= 0"),
    "ros2_control_velocity_kv": (lambda v: _finite(v) and v >= 0, "a gain >= 0"),
    "camera_rate": (lambda v: _finite(v) and v > 0, "a rate in Hz > 0"),
    "camera_width": (lambda v: 1 <= v <= 8192, "an integer from 1 to 8192"),
    "camera_height": (lambda v: 1 <= v <= 8192, "an integer from 1 to 8192"),
    "cameras": (lambda v: len(set(v)) == len(v) and ("all" not in v or v == ["all"]),
                "distinct camera names, or ['all'] alone"),
}
for _rate in ("clock_rate", "joint_states_rate", "imu_rate", "wrench_rate", "sensor_rate",
              "odometry_rate", "diagnostics_rate", "tf_rate"):
    _CHECKS[_rate] = (_finite, "a finite rate in Hz")


def _describe(value) -> str:
    if isinstance(value, bool):
        return f"the bool {str(value).lower()}"
    if isinstance(value, int):
        return f"the integer {value}"
    if isinstance(value, float):
        return f"the double {value!r}"
    if isinstance(value, str):
        return f"the string {value!r}"
    return repr(value)


def coerce(name: str, value):
    """`value` as the parameter's type: an integer where a double is expected becomes a double
    (ROS users write `speed:=2`), integers in a double array likewise. Raises ParameterError for
    any other type mismatch."""
    kind = type_name(name)
    is_int = isinstance(value, int) and not isinstance(value, bool)
    if kind == "double" and is_int:
        return float(value)
    if kind == "double_array" and isinstance(value, (list, tuple)) and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        return [float(v) for v in value]
    if kind == "string_array" and isinstance(value, (list, tuple)) and all(
            isinstance(v, str) for v in value):
        return list(value)
    if kind == "integer_array" and isinstance(value, (list, tuple)) and all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        return [int(v) for v in value]
    ok = {"bool": isinstance(value, bool), "integer": is_int,
          "double": isinstance(value, float), "string": isinstance(value, str)}.get(kind, False)
    if not ok:
        raise ParameterError(f"parameter {name}: expected {kind.replace('_', ' ')}, got "
                             f"{_describe(value)}")
    return value


def check(name: str, value):
    """Coerce and check one value; returns the value to use, raises ParameterError (one line)."""
    value = coerce(name, value)
    rule = _CHECKS.get(name)
    if rule is not None and not rule[0](value):
        raise ParameterError(f"parameter {name}: must be {rule[1]}, got {_describe(value)}")
    return value


def help_text(prog: str) -> str:
    """`--help` of the simulator: usage and every parameter with its type, default and meaning."""
    lines = [f"usage: {prog} [-h] [--ros-args -p NAME:=VALUE ... --params-file FILE ...]", "",
             "The mj_ros simulator node: loads an MJCF or URDF model, steps the physics engine,",
             "publishes /clock, /joint_states, sensors and /tf, takes commands. Parameters",
             "(run-time settable ones marked *; all others are read at start-up only):", ""]
    for name, (default, text) in PARAMETERS.items():
        mark = "*" if name in RUNTIME else " "
        shown = "[]" if name in ARRAY_TYPES else repr(default).replace("True", "true").replace(
            "False", "false")
        lines.append(f" {mark}{name} ({type_name(name)}, default {shown})")
        lines.append(f"      {text}")
    lines += ["", "Example: " + prog + " --ros-args -p speed:=2 -p lockstep:=true",
              "Every ROS process here needs ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST."]
    return "\n".join(lines) + "\n"
