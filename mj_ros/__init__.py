"""mj_ros: the ROS 2 node around the `engine` physics package (see DESIGN.md)."""
