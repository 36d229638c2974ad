"""Every parameter of the simulator node: name, default, description.

One table for the node (which declares them), config/sim.yaml and launch/sim.launch.py (whose
agreement with this table is tested). No ROS import here.
"""
from __future__ import annotations

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
                        "(joint_commands, ctrl or joint_trajectory), lockstep_steps per message."),
    "lockstep_steps": (1, "Steps per command message in lockstep mode."),
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
    "step_count": (1, "Steps taken by one call of the ~/step service (while paused)."),
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
    "mocap_map": ("", "Path of a mocap map YAML (config/mocap_example.yaml): mocap bodies driven "
                      "by PoseStamped/TransformStamped topics or /tf frames. Empty: none."),
    "follow_clock": (False, "Follow an external /clock (e.g. ros2 bag play --clock): sim time "
                            "jumps to the first /clock message, then the simulation steps until "
                            "it reaches each /clock value; the node publishes no /clock."),
    "disable": ([], "MJCF <flag> names to disable, e.g. ['contact']: sets the model's "
                    "opt.disableflags."),
}

ARRAY_TYPES = {"initial_joint_names": "string_array", "initial_joint_positions": "double_array",
               "odometry_bodies": "string_array", "disable": "string_array"}

# rclpy declares use_sim_time itself; the launch file passes it through.
IMPLICIT = ("use_sim_time",)
