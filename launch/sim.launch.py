"""Start the mj_ros simulator: `ros2 launch mj_ros sim.launch.py [model:=PATH] [speed:=0] ...`.

With no arguments it simulates the default robot (urdf/mj_arm.urdf) in real time with the
parameters of config/sim.yaml. Every argument except params_file, namespace and headless's viewer
maps to the node parameter of the same name. On a machine's first run (or after an engine edit)
the node compiles the engine's kernels before it loads the model, minutes with a progress line
on its stderr; later starts load them from numba's cache.
"""
import os

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, SetEnvironmentVariable
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue


def _default_params_file() -> str:
    try:
        from ament_index_python.packages import get_package_share_directory
        return os.path.join(get_package_share_directory("mj_ros"), "config", "sim.yaml")
    except Exception:  # running from the source tree
        return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                            "config", "sim.yaml")


def generate_launch_description() -> LaunchDescription:
    args = [
        DeclareLaunchArgument("model", default_value="",
                              description="MJCF or URDF file; empty: the default robot"),
        DeclareLaunchArgument("params_file", default_value=_default_params_file(),
                              description="YAML file with the node's parameters"),
        DeclareLaunchArgument("use_sim_time", default_value="true",
                              description="The node's own clock follows the simulation"),
        DeclareLaunchArgument("paused", default_value="false", description="Start paused"),
        DeclareLaunchArgument("speed", default_value="1.0",
                              description="Real-time factor; 0 = as fast as possible"),
        DeclareLaunchArgument("namespace", default_value="", description="Node namespace"),
        DeclareLaunchArgument("headless", default_value="true",
                              description="Run without a viewer (the only mode so far)"),
    ]
    node = Node(
        package="mj_ros",
        executable="sim",
        name="mj_ros_sim",
        namespace=LaunchConfiguration("namespace"),
        output="screen",
        emulate_tty=True,
        parameters=[
            LaunchConfiguration("params_file"),
            {
                "model": LaunchConfiguration("model"),
                "use_sim_time": ParameterValue(LaunchConfiguration("use_sim_time"), value_type=bool),
                "paused": ParameterValue(LaunchConfiguration("paused"), value_type=bool),
                "speed": ParameterValue(LaunchConfiguration("speed"), value_type=float),
                "headless": ParameterValue(LaunchConfiguration("headless"), value_type=bool),
            },
        ],
    )
    # no DDS traffic may leave the machine unless the user's environment says otherwise
    localhost = SetEnvironmentVariable(
        "ROS_AUTOMATIC_DISCOVERY_RANGE",
        os.environ.get("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST"))
    return LaunchDescription([localhost, *args, node])
