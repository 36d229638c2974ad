"""The node's state streams: /clock, joint_states, IMU, wrench, other sensors, odometry and /tf.

Every one of these messages has a fixed shape for a given model (names, frame ids and array
lengths never change), so they are built once, serialized once into a `cdr.RawBatch`, and each
publication only rewrites the numbers in place (numpy gathers from the engine's arrays into the
serialized bytes) and publishes the bytes: no Python message objects per step, no per-field
Python assignments, no rclpy Python-to-C conversion. One compiled call (`StateOutputs.fill`)
writes the stamps and every joint and sensor number of every message; each publication is then
only the send of its bytes. Subscribers receive exactly the messages the
Python objects would have produced (tested in test/ros/test_outputs.py).

What each message holds (unchanged from the Python-object version):

* joint_states: position = qpos, velocity = qvel, effort = qfrc_actuator + qfrc_applied, for the
  hinge and slide joints in `CommandMap` order;
* Imu: orientation (framequat w,x,y,z), angular_velocity (gyro), linear_acceleration
  (accelerometer) from sensordata; covariances from the sensors' noise; a missing part is marked
  (REP 145) and an IMU without framequat reports the identity orientation;
* WrenchStamped: force and torque sensors; Vector3Stamped / QuaternionStamped / Float64MultiArray
  for every other sensor;
* Odometry of a free body: pose = the free joint's qpos (position and w,x,y,z orientation in the
  world frame); twist in child_frame_id (the body), as nav_msgs specifies: linear = the world
  linear velocity of qvel rotated into the body frame, angular = qvel's angular part (MuJoCo's
  free joint already holds it in the body frame);
* /tf: the moving frames from `frames.FrameTable.moving_poses`.
"""
from __future__ import annotations

import numpy as np
from numba import njit
from geometry_msgs.msg import QuaternionStamped, Vector3Stamped, WrenchStamped
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Imu, JointState
from std_msgs.msg import Float64MultiArray, MultiArrayDimension

from mj_ros import frames as fr
from mj_ros import sensors
from mj_ros.cdr import RawBatch, Slot
from mj_ros.topics import topic_name


def _index(idx):
    """A slice where the indices are contiguous and increasing (faster to assign through)."""
    idx = np.asarray(idx, dtype=np.intp).ravel()
    if len(idx) and np.array_equal(idx, np.arange(idx[0], idx[0] + len(idx))):
        return slice(int(idx[0]), int(idx[0]) + len(idx))
    return idx


def _xyz(v) -> list[Slot]:
    return [Slot(v, "x"), Slot(v, "y"), Slot(v, "z")]


def _wxyz(q) -> list[Slot]:
    return [Slot(q, "w"), Slot(q, "x"), Slot(q, "y"), Slot(q, "z")]


@njit(cache=True, nogil=True)
def _fill_state(f64, u32, stamp_idx, sec, nsec, js_dst, qadr, dadr, qpos, qvel, qfrc_actuator,
                qfrc_applied, sens_dst, sens_src, sensordata):
    """Write one stamp into every header (stamp_idx[k] = the u32 words of sec and nanosec) and
    gather joint_states (js_dst rows: position, velocity, effort slots) and the sensor slots
    (f64[sens_dst[i]] = sensordata[sens_src[i]]) into the serialized batch."""
    for k in range(stamp_idx.shape[0]):
        u32[stamp_idx[k, 0]] = sec
        u32[stamp_idx[k, 1]] = nsec
    for j in range(qadr.shape[0]):
        f64[js_dst[0, j]] = qpos[qadr[j]]
        f64[js_dst[1, j]] = qvel[dadr[j]]
        f64[js_dst[2, j]] = qfrc_actuator[dadr[j]] + qfrc_applied[dadr[j]]
    for i in range(sens_src.shape[0]):
        f64[sens_dst[i]] = sensordata[sens_src[i]]


class _SensorStream:
    """Messages whose numbers all come from sensordata (filled by `StateOutputs.fill`)."""

    def __init__(self):
        self.entries: list[tuple[int, list[int]]] = []  # (batch entry, sensordata index per slot)
        self.sends: list = []

    def bind(self, batch: RawBatch) -> tuple[list[int], list[int]]:
        """The senders; returns (slots in batch.f64, sensordata indices) for the gather."""
        dst, src = [], []
        for e, sidx in self.entries:
            dst.extend(batch.entries[e].floats.tolist())
            src.extend(sidx)
            self.sends.append(batch.publisher(e))
        return dst, src

    def send(self) -> None:
        for send in self.sends:
            send()


DEPTH = 10  # keep-last depth of every state stream's publisher


def clock_publisher(node, depth: int = DEPTH):
    """The /clock publisher. The node makes it before it loads the model (which takes a second
    or more, see sim_node), so that subscribers already waiting are matched by the time the
    first /clock goes out: a volatile publisher does not resend what an unmatched subscriber
    missed."""
    return node.create_publisher(Clock, "/clock", depth)


class StateOutputs:
    """Creates the publishers of the state streams and publishes them from an MjData.
    `clock_pub`: the /clock publisher if the node made it already (`clock_publisher`)."""

    def __init__(self, node, model, mj, layout: sensors.SensorLayout, joints, *,
                 topic_prefix: str = "", frame_prefix: str = "", world_frame: str = "world",
                 odometry_bodies=(), tf=None, depth: int = DEPTH, clock_pub=None):
        tp, fp = topic_prefix, frame_prefix
        self.batch = b = RawBatch()
        self.clock_pub = clock_pub if clock_pub is not None else clock_publisher(node, depth)
        msg = Clock()
        self._e_clock = b.add(self.clock_pub, msg, [], [msg.clock])

        self.js_pub = node.create_publisher(JointState, tp + "joint_states", depth)
        joints = list(joints)
        n = len(joints)
        self._js_qadr = np.array([j.qposadr for j in joints], dtype=np.intp)
        self._js_dadr = np.array([j.dofadr for j in joints], dtype=np.intp)
        msg = JointState(name=[j.name for j in joints])
        self._e_js = b.add(self.js_pub, msg, [Slot(msg, "position", n), Slot(msg, "velocity", n),
                                              Slot(msg, "effort", n)], [msg.header.stamp])

        self.imu = _SensorStream()
        for g in layout.imus:
            msg = Imu()
            msg.header.frame_id = fp + g.frame
            oc, gc, ac = sensors.imu_covariances(g)
            msg.orientation_covariance, msg.angular_velocity_covariance = oc, gc
            msg.linear_acceleration_covariance = ac
            slots, src = [], []
            if g.quat is None:
                msg.orientation.w = 1.0
            else:
                slots += _wxyz(msg.orientation)
                src += range(g.quat.adr, g.quat.adr + 4)
            if g.gyro is not None:
                slots += _xyz(msg.angular_velocity)
                src += range(g.gyro.adr, g.gyro.adr + 3)
            if g.accel is not None:
                slots += _xyz(msg.linear_acceleration)
                src += range(g.accel.adr, g.accel.adr + 3)
            pub = node.create_publisher(Imu, tp + topic_name(g.name), depth)
            self.imu.entries.append((b.add(pub, msg, slots, [msg.header.stamp]), src))

        self.wrench = _SensorStream()
        for g in layout.wrenches:
            msg = WrenchStamped()
            msg.header.frame_id = fp + g.frame
            slots = _xyz(msg.wrench.force) + _xyz(msg.wrench.torque)
            src = list(range(g.force.adr, g.force.adr + 3)) + \
                list(range(g.torque.adr, g.torque.adr + 3))
            pub = node.create_publisher(WrenchStamped, tp + topic_name(g.name), depth)
            self.wrench.entries.append((b.add(pub, msg, slots, [msg.header.stamp]), src))

        self.other = _SensorStream()
        for o in layout.others:
            a, dim = o.sensor.adr, o.sensor.dim
            if o.kind == "vector3":
                msg = Vector3Stamped()
                slots, stamps = _xyz(msg.vector), [msg.header.stamp]
            elif o.kind == "quaternion":
                msg = QuaternionStamped()
                slots, stamps = _wxyz(msg.quaternion), [msg.header.stamp]
            else:
                msg = Float64MultiArray()
                msg.layout.dim = [MultiArrayDimension(label=o.name, size=dim, stride=dim)]
                slots, stamps = [Slot(msg, "data", dim)], []
            if stamps:
                msg.header.frame_id = fp + (o.frame or world_frame)
            pub = node.create_publisher(type(msg), tp + topic_name(o.name), depth)
            self.other.entries.append((b.add(pub, msg, slots, stamps), list(range(a, a + dim))))

        self._odom_entries, self._odom_q, self._odom_v = [], [], []
        for body, qadr, dadr in odometry_bodies:
            from nav_msgs.msg import Odometry  # only with odometry_bodies: not at every start-up
            msg = Odometry()
            msg.header.frame_id = fp + world_frame
            msg.child_frame_id = fp + body
            pose, tw = msg.pose.pose, msg.twist.twist
            slots = _xyz(pose.position) + _wxyz(pose.orientation) + _xyz(tw.linear) + \
                _xyz(tw.angular)
            pub = node.create_publisher(Odometry, tp + topic_name(body) + "/odom", depth)
            self._odom_entries.append(b.add(pub, msg, slots, [msg.header.stamp]))
            self._odom_q.append(range(qadr, qadr + 7))
            self._odom_v.append(range(dadr, dadr + 6))

        self.tf = tf
        self._e_tf = None
        if tf is not None and tf.moving_count:
            self._e_tf = tf.add_to(b)

        b.finish()
        self.f64 = b.f64
        self.send_clock = b.publisher(self._e_clock)
        js = b.entries[self._e_js].floats.reshape(3, n)  # position, velocity, effort slots
        self.send_js = b.publisher(self._e_js)
        dst, src = [], []
        for s in (self.imu, self.wrench, self.other):
            sd, ss = s.bind(b)
            dst += sd
            src += ss
        # the fill kernel's plan: (buffers, stamps, joint_states slots and joint addresses,
        # sensor slots and sensordata indices)
        self._plan = (b.f64, b.u32, b.stamp_index, np.ascontiguousarray(js, np.int64),
                      self._js_qadr.astype(np.int64), self._js_dadr.astype(np.int64),
                      np.asarray(dst, np.int64), np.asarray(src, np.int64))
        self.odom_sends = [b.publisher(e) for e in self._odom_entries]
        k = len(self._odom_entries)
        self._odom_dst = _index([b.entries[e].floats for e in self._odom_entries]) if k else None
        self._odom_q = np.array([list(r) for r in self._odom_q], dtype=np.intp).reshape(k, 7)
        self._odom_v = np.array([list(r) for r in self._odom_v], dtype=np.intp).reshape(k, 6)
        if self._e_tf is not None:
            tf.bind(b, self._e_tf)

    def also_send_joint_states(self, pub) -> None:
        """Publish the joint_states bytes on `pub` as well (topic_based_ros2_control's states
        topic, mj_ros/topic_hardware.py): one message filled once, sent twice."""
        import dataclasses
        b = self.batch
        b.entries.append(dataclasses.replace(b.entries[self._e_js], pub=pub))
        first, second = self.send_js, b.publisher(len(b.entries) - 1)

        def both() -> None:
            first()
            second()
        self.send_js = both

    @property
    def has_odometry(self) -> bool:
        return bool(self.odom_sends)

    def fill(self, d, sec: int, nsec: int) -> None:
        """Stamp every message with (sec, nsec) and write d's joint states and sensor values
        into the batch (call before publishing what is due; odometry and /tf fill their own)."""
        f64, u32, stamps, js, qadr, dadr, dst, src = self._plan
        _fill_state(f64, u32, stamps, sec, nsec, js, qadr, dadr, d.qpos, d.qvel,
                    d.qfrc_actuator, d.qfrc_applied, dst, src, d.sensordata)

    def clock(self) -> None:
        self.send_clock()

    def joint_states(self) -> None:
        self.send_js()

    def imus(self) -> None:
        self.imu.send()

    def wrenches(self) -> None:
        self.wrench.send()

    def others(self) -> None:
        self.other.send()

    def odometry(self, d) -> None:
        if not self.odom_sends:
            return
        q = d.qpos[self._odom_q]                  # (k, 7): position, quaternion w,x,y,z
        v = d.qvel[self._odom_v]                  # (k, 6): world linear, body angular
        lin = fr.qrot(fr.qconj(q[:, 3:]), v[:, :3])  # linear velocity in the body frame
        self.f64[self._odom_dst] = np.concatenate([q, lin, v[:, 3:]], axis=1).ravel()
        for send in self.odom_sends:
            send()

    def transforms(self, xpos, xquat) -> None:
        if self._e_tf is not None:
            self.tf.publish_raw(xpos, xquat)
