"""Small rosbag2 files for the mocap/replay tests, written with `rosbags` (no ROS needed)."""
from __future__ import annotations

import math
import pathlib

import numpy as np
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_typestore

STORE = get_typestore(Stores.ROS2_KILTED)
T = STORE.types
T0_NS = 1_700_000_000_000_000_000  # bag time of the first sample (an epoch time, as recorded)
CENTER, RADIUS, PERIOD = np.array([0.2, 0.4, 0.6]), 0.15, 2.0


def circle(t: float):
    """The circular trajectory of the PoseStamped body: position and yaw quaternion (w first)."""
    a = 2 * math.pi * t / PERIOD
    pos = CENTER + RADIUS * np.array([math.cos(a), math.sin(a), 0.0])
    return pos, np.array([math.cos(a / 2), 0.0, 0.0, math.sin(a / 2)])


def line(t: float):
    """The tf-driven body: a straight line with a slow roll."""
    pos = np.array([-0.3 + 0.1 * t, -0.4, 0.5 + 0.05 * t])
    r = 0.4 * t
    return pos, np.array([math.cos(r / 2), math.sin(r / 2), 0.0, 0.0])


def _time(ns: int):
    return T["builtin_interfaces/msg/Time"](sec=ns // 10**9, nanosec=ns % 10**9)


def pose_msg(ns, pos, q, frame="world"):
    return T["geometry_msgs/msg/PoseStamped"](
        header=T["std_msgs/msg/Header"](stamp=_time(ns), frame_id=frame),
        pose=T["geometry_msgs/msg/Pose"](
            position=T["geometry_msgs/msg/Point"](x=float(pos[0]), y=float(pos[1]), z=float(pos[2])),
            orientation=T["geometry_msgs/msg/Quaternion"](x=float(q[1]), y=float(q[2]),
                                                          z=float(q[3]), w=float(q[0]))))


def tf_msg(ns, pos, q, child, parent="world"):
    tr = T["geometry_msgs/msg/TransformStamped"](
        header=T["std_msgs/msg/Header"](stamp=_time(ns), frame_id=parent), child_frame_id=child,
        transform=T["geometry_msgs/msg/Transform"](
            translation=T["geometry_msgs/msg/Vector3"](x=float(pos[0]), y=float(pos[1]),
                                                       z=float(pos[2])),
            rotation=T["geometry_msgs/msg/Quaternion"](x=float(q[1]), y=float(q[2]),
                                                       z=float(q[3]), w=float(q[0]))))
    return T["tf2_msgs/msg/TFMessage"](transforms=[tr])


def write_bag(path, duration=2.0, pose_rate=50.0, tf_rate=40.0, storage="mcap", extra=()):
    """A bag with /target_pose (PoseStamped, circle) and /tf (child 'operator/hand', line), plus
    `extra` (topic, msgtype, [(ns, msg)]) entries; returns the path."""
    plugin = StoragePlugin.MCAP if storage == "mcap" else StoragePlugin.SQLITE3
    path = pathlib.Path(path)
    with Writer(path, version=9, storage_plugin=plugin) as w:
        cp = w.add_connection("/target_pose", "geometry_msgs/msg/PoseStamped", typestore=STORE)
        ct = w.add_connection("/tf", "tf2_msgs/msg/TFMessage", typestore=STORE)
        msgs = []
        for k in range(int(round(duration * pose_rate)) + 1):
            t = k / pose_rate
            ns = T0_NS + int(round(t * 1e9))
            msgs.append((ns, cp, pose_msg(ns, *circle(t))))
        for k in range(int(round(duration * tf_rate)) + 1):
            t = k / tf_rate
            ns = T0_NS + int(round(t * 1e9))
            msgs.append((ns, ct, tf_msg(ns, *line(t), child="operator/hand")))
        known = {"/target_pose": cp, "/tf": ct}
        for topic, msgtype, items in extra:
            c = known.get(topic) or w.add_connection(topic, msgtype, typestore=STORE)
            msgs += [(ns, c, m) for ns, m in items]
        msgs.sort(key=lambda x: x[0])
        for ns, c, m in msgs:
            w.write(c, ns, STORE.serialize_cdr(m, c.msgtype))
    return path


MAP = """
mode: {mode}
timeout: 0.5
bodies:
  target:
    topic: /target_pose
    type: geometry_msgs/msg/PoseStamped
    frame: world
  hand_target:
    tf: operator/hand
    frame: world
"""


def write_map(path, mode="interpolate", text=None):
    path = pathlib.Path(path)
    path.write_text(text if text is not None else MAP.format(mode=mode))
    return path


def read_bag(path):
    """{topic: [(log ns, message)]} of a bag."""
    from rosbags.highlevel import AnyReader
    out: dict[str, list] = {}
    with AnyReader([pathlib.Path(path)], default_typestore=STORE) as r:
        for c, ns, raw in r.messages():
            out.setdefault(c.topic, []).append((ns, r.deserialize(raw, c.msgtype)))
    return out
