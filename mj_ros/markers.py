"""The node's picture of the scene for ROS viewers, over rclpy (the logic is in scene.py and
description.py).

- `scene_markers` (visualization_msgs/MarkerArray, transient local, at `markers_rate`): one
  marker per visual geom in the world frame, id = geom id, namespace "geoms", stamped with sim
  time. RViz: add a MarkerArray display on this topic; Foxglove shows it in its 3D panel.
- `robot_description` (std_msgs/String, transient local, once): the URDF the model came from,
  or for an MJCF model one generated from it (description.py), as robot_state_publisher offers
  it; RViz's RobotModel display reads it and the node's /tf moves it. Not published when the
  node took its model from that topic (its owner publishes it).
"""
from __future__ import annotations

import numpy as np
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String
from visualization_msgs.msg import Marker, MarkerArray

from mj_ros import scene as sc

LATCHED_QOS = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL,
                         reliability=ReliabilityPolicy.RELIABLE)
NAMESPACE = "geoms"


class SceneMarkers:
    """Publishes the visual geoms of model `m` as one MarkerArray; messages built once, poses
    and stamps refilled at each publish."""

    def __init__(self, node, m, markers: list[sc.GeomMarker], frame_id: str):
        self.m = m
        self.geoms = np.array([mk.geom for mk in markers], np.int64)
        self.pub = node.create_publisher(MarkerArray, "scene_markers", LATCHED_QOS)
        self.msg = MarkerArray()
        for mk in markers:
            k = Marker()
            k.header.frame_id = frame_id
            k.ns, k.id, k.type, k.action = NAMESPACE, mk.geom, mk.type, Marker.ADD
            k.scale.x, k.scale.y, k.scale.z = (float(s) for s in mk.scale)
            k.color.r, k.color.g, k.color.b, k.color.a = (float(c) for c in mk.rgba)
            k.mesh_resource = mk.mesh_resource
            self.msg.markers.append(k)

    def __len__(self) -> int:
        return len(self.msg.markers)

    def publish(self, d, sec: int, nanosec: int) -> None:
        """Publish the poses of data `d` (its kinematics current) at time (sec, nanosec)."""
        if not len(self.geoms):
            return
        pos, quat = sc.geom_poses(self.m, d, self.geoms)
        for k, p, q in zip(self.msg.markers, pos.tolist(), quat.tolist()):
            k.header.stamp.sec, k.header.stamp.nanosec = sec, nanosec
            pp, qq = k.pose.position, k.pose.orientation
            pp.x, pp.y, pp.z = p
            qq.w, qq.x, qq.y, qq.z = q
        self.pub.publish(self.msg)


def publish_description(node, text: str):
    """Publish `text` once on `robot_description` (transient local); returns the publisher,
    which must live as long as late subscribers should get the message."""
    pub = node.create_publisher(String, "robot_description", LATCHED_QOS)
    pub.publish(String(data=text))
    return pub
