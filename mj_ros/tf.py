"""The node's tf output and mocap input over rclpy (the logic is in frames.py and mocap.py).

/tf: the moving frames (bodies with joints, mocap bodies) relative to their parents, stamped with
sim time, at `tf_rate`. /tf_static (transient local, one message with every fixed frame, as tf2's
static broadcaster does): bodies fixed in their parent, sites, cameras, fused URDF links.

Mocap sources: geometry_msgs/PoseStamped or TransformStamped topics, or child frames on /tf, as the
mocap map says; every sample is validated by `mocap.Track` (bad ones dropped with a throttled
warning that says why).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from geometry_msgs.msg import PoseStamped, TransformStamped
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from tf2_msgs.msg import TFMessage

from mj_ros import frames as fr
from mj_ros.cdr import RawBatch, Slot

if TYPE_CHECKING:  # mj_ros.mocap loads with the first MocapInput: not on the start-up path
    from mj_ros import mocap as mc

STATIC_QOS = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST,
                        durability=DurabilityPolicy.TRANSIENT_LOCAL,
                        reliability=ReliabilityPolicy.RELIABLE)
TF_QOS = 100
MOCAP_QOS = 100  # a burst of samples (a bag played fast) is kept, not cut to the newest


def _fill(tr: TransformStamped, pos, quat) -> None:
    v, r = tr.transform.translation, tr.transform.rotation
    v.x, v.y, v.z = float(pos[0]), float(pos[1]), float(pos[2])
    r.w, r.x, r.y, r.z = float(quat[0]), float(quat[1]), float(quat[2]), float(quat[3])


class TfOutput:
    """Publishes one model's frames; messages are built once and refilled."""

    def __init__(self, node, table: fr.FrameTable, prefix: str = ""):
        self.table = table
        self.pub = node.create_publisher(TFMessage, "/tf", TF_QOS)
        self.static_pub = node.create_publisher(TFMessage, "/tf_static", STATIC_QOS)
        self._msg = TFMessage()
        for parent, child in zip(table.moving_parent, table.moving_child):
            tr = TransformStamped()
            tr.header.frame_id, tr.child_frame_id = prefix + parent, prefix + child
            self._msg.transforms.append(tr)
        self._static = TFMessage()
        for s in table.static:
            tr = TransformStamped()
            tr.header.frame_id, tr.child_frame_id = prefix + s.parent, prefix + s.child
            _fill(tr, s.pos, s.quat)
            self._static.transforms.append(tr)

    @property
    def moving_count(self) -> int:
        return len(self._msg.transforms)

    def add_to(self, batch: RawBatch) -> int:
        """Put the /tf message into a `cdr.RawBatch` (before its `finish`); returns the entry."""
        slots, stamps = [], []
        for tr in self._msg.transforms:
            v, r = tr.transform.translation, tr.transform.rotation
            slots += [Slot(v, "x"), Slot(v, "y"), Slot(v, "z"),
                      Slot(r, "w"), Slot(r, "x"), Slot(r, "y"), Slot(r, "z")]
            stamps.append(tr.header.stamp)
        return batch.add(self.pub, self._msg, slots, stamps)

    def bind(self, batch: RawBatch, entry: int) -> None:
        """After the batch's `finish`: publish_raw fills and sends that entry."""
        idx = batch.entries[entry].floats.reshape(-1, 7).astype(np.int64)
        self._fill_args = (*self.table.kernel_args(), np.empty((len(idx), 7)), batch.f64, idx)
        self._send = batch.publisher(entry)

    def publish_raw(self, xpos, xquat) -> None:
        """Like `publish`, through the batch (whose stamps the caller has set)."""
        fr.moving_poses_into(xpos, xquat, *self._fill_args)
        self._send()

    def publish_static(self, sec: int, nsec: int) -> None:
        for tr in self._static.transforms:
            tr.header.stamp.sec, tr.header.stamp.nanosec = sec, nsec
        self.static_pub.publish(self._static)

    def publish(self, sec: int, nsec: int, xpos, xquat) -> None:
        if not self._msg.transforms:
            return
        pos, quat = self.table.moving_poses(xpos, xquat)
        for tr, p, q in zip(self._msg.transforms, pos, quat):
            tr.header.stamp.sec, tr.header.stamp.nanosec = sec, nsec
            _fill(tr, p, q)
        self.pub.publish(self._msg)


class MocapInput:
    """Subscriptions that feed a `mocap.MocapDriver`.

    now(): the node's current (published) sim time, used for stamps = arrival and unstamped
    messages; count(): called once per message (the node's event counter).
    """

    def __init__(self, node, driver: mc.MocapDriver, now, count, frame_prefix: str = ""):
        from mj_ros import mocap as mc
        self.driver = driver
        self._now, self._count, self._prefix = now, count, frame_prefix
        self._by_header = driver.config.stamps == "header"
        self.subs = []
        for topic, kind in driver.config.topics().items():
            if kind == mc.POSE:
                cb, t = self._pose_cb(topic), PoseStamped
            elif kind == mc.TRANSFORM:
                cb, t = self._transform_cb(topic), TransformStamped
            else:
                cb, t = self._on_tf, TFMessage
            qos = STATIC_QOS if topic == "/tf_static" else MOCAP_QOS
            self.subs.append(node.create_subscription(t, topic, cb, qos))

    def _stamp(self, header) -> float:
        if not self._by_header or (header.stamp.sec == 0 and header.stamp.nanosec == 0):
            return self._now()
        return header.stamp.sec + header.stamp.nanosec * 1e-9

    def _frame(self, frame_id: str) -> str:
        f = (frame_id or "").lstrip("/")
        p = self._prefix
        return f[len(p):] if p and f.startswith(p) else f

    def _pose_cb(self, topic: str):
        idx = self.driver.by_topic[topic]

        def cb(msg: PoseStamped) -> None:
            self._count()
            p, o = msg.pose.position, msg.pose.orientation
            for i in idx:
                self.driver.add(i, self._stamp(msg.header), self._frame(msg.header.frame_id),
                                (p.x, p.y, p.z), (o.w, o.x, o.y, o.z))
        return cb

    def _transform_cb(self, topic: str):
        idx = self.driver.by_topic[topic]

        def cb(msg: TransformStamped) -> None:
            self._count()
            v, r = msg.transform.translation, msg.transform.rotation
            for i in idx:
                self.driver.add(i, self._stamp(msg.header), self._frame(msg.header.frame_id),
                                (v.x, v.y, v.z), (r.w, r.x, r.y, r.z))
        return cb

    def _on_tf(self, msg: TFMessage) -> None:
        self._count()
        self.driver.add_tf(msg.transforms, lambda tr: self._stamp(tr.header), self._prefix)
