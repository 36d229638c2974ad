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
* WrenchStamped: force and torque sensors; PointStamped / Vector3Stamped / QuaternionStamped /
  sensor_msgs/Range / control_msgs/DynamicJointState for every other sensor, each stamped, in the
  frame its numbers are in (mj_ros/sensors.py); with `noise_seed` (parameter sensor_noise),
  Gaussian noise of each sensor's MJCF `noise` as standard deviation (`_add_noise`);
* Odometry of a free body: pose = the free joint's qpos (position and w,x,y,z orientation in the
  world frame); twist in child_frame_id (the body), as nav_msgs specifies: linear = the world
  linear velocity of qvel rotated into the body frame, angular = qvel's angular part (MuJoCo's
  free joint already holds it in the body frame);
* /tf: the moving frames from `frames.FrameTable.moving_poses`.
"""
from __future__ import annotations

import numpy as np
from numba import njit
from geometry_msgs.msg import PointStamped, QuaternionStamped, Vector3Stamped, WrenchStamped
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Imu, JointState, Range

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


@njit(cache=True, nogil=True)
def _seed(seed):
    """Seed numba's generator (the one the noise kernel draws from; not numpy's)."""
    np.random.seed(seed)


@njit(cache=True, nogil=True)
def _add_noise(f64, add_dst, add_std, quat_dst, quat_std):
    """Gaussian noise on the serialized sensor values: f64[add_dst[i]] += N(0, add_std[i]^2);
    each quaternion (w, x, y, z at quat_dst[k]) turned by a rotation vector with independent
    N(0, quat_std[k]^2) components (the covariance REP 145 reports about x, y, z), q <- dq q."""
    for i in range(add_dst.shape[0]):
        f64[add_dst[i]] += add_std[i] * np.random.normal(0.0, 1.0)
    for k in range(quat_dst.shape[0]):
        s = quat_std[k]
        rx = s * np.random.normal(0.0, 1.0)
        ry = s * np.random.normal(0.0, 1.0)
        rz = s * np.random.normal(0.0, 1.0)
        ang = np.sqrt(rx * rx + ry * ry + rz * rz)
        if ang < 1e-300:
            continue
        c = np.cos(0.5 * ang)
        f = np.sin(0.5 * ang) / ang
        dw, dx, dy, dz = c, rx * f, ry * f, rz * f
        i0, i1, i2, i3 = quat_dst[k, 0], quat_dst[k, 1], quat_dst[k, 2], quat_dst[k, 3]
        w, x, y, z = f64[i0], f64[i1], f64[i2], f64[i3]
        f64[i0] = dw * w - dx * x - dy * y - dz * z
        f64[i1] = dw * x + dx * w + dy * z - dz * y
        f64[i2] = dw * y - dx * z + dy * w + dz * x
        f64[i3] = dw * z + dx * y - dy * x + dz * w


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


def _sensor_publisher(node, msg_type, topic: str, sensor: str, depth: int):
    """The publisher of one sensor's topic; a topic the node already uses with another type
    (a sensor named `clock`, `joint_states`...) is one clear start-up error."""
    try:
        return node.create_publisher(msg_type, topic, depth)
    except Exception as e:  # rclpy's RCLError: 'existing topic name ... with incompatible type'
        from mj_ros.model_io import ModelLoadError
        raise ModelLoadError(f"sensor '{sensor}': its topic {topic} is already used with another "
                             f"message type (rename the sensor): {str(e).split(',')[0]}") from None


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
                 odometry_bodies=(), tf=None, depth: int = DEPTH, clock_pub=None,
                 noise_seed: int | None = None):
        tp, fp = topic_prefix, frame_prefix
        self._kinds = kinds = sensors.SensorKinds.from_module(mj)
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
        self._ranges = []   # (publisher, Range message, sensordata index): float32 fields
        for o in layout.others:
            a, dim = o.sensor.adr, o.sensor.dim
            frame = world_frame if o.frame == sensors.WORLD else o.frame
            if o.kind == "range":
                self._ranges.append(self._range(node, tp + topic_name(o.name), fp + frame,
                                                o.sensor, depth))
                continue
            if o.kind == "point":
                msg = PointStamped()
                slots = _xyz(msg.point)
            elif o.kind == "vector3":
                msg = Vector3Stamped()
                slots = _xyz(msg.vector)
            elif o.kind == "quaternion":
                msg = QuaternionStamped()
                slots = _wxyz(msg.quaternion)
            else:
                from control_msgs.msg import DynamicJointState, InterfaceValue
                msg = DynamicJointState(joint_names=[o.name], interface_values=[InterfaceValue(
                    interface_names=sensors.interface_names(o.sensor, kinds),
                    values=[0.0] * dim)])
                slots = [Slot(msg.interface_values[0], "values", dim)]
            msg.header.frame_id = fp + frame if frame else ""
            pub = _sensor_publisher(node, type(msg), tp + topic_name(o.name), o.name, depth)
            self.other.entries.append((b.add(pub, msg, slots, [msg.header.stamp]),
                                       list(range(a, a + dim))))

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
        self._noise = None if noise_seed is None else self._noise_plan(layout, dst, src,
                                                                       noise_seed)
        self.odom_sends = [b.publisher(e) for e in self._odom_entries]
        k = len(self._odom_entries)
        self._odom_dst = _index([b.entries[e].floats for e in self._odom_entries]) if k else None
        self._odom_q = np.array([list(r) for r in self._odom_q], dtype=np.intp).reshape(k, 7)
        self._odom_v = np.array([list(r) for r in self._odom_v], dtype=np.intp).reshape(k, 6)
        if self._e_tf is not None:
            tf.bind(b, self._e_tf)

    def _noise_plan(self, layout, dst, src, seed: int):
        """(additive slots and standard deviations, quaternion slot rows and their standard
        deviations) for `_add_noise`: every published sensor value whose MJCF noise > 0."""
        owner = {}
        for g in (*layout.imus, *layout.wrenches):
            for part in ("quat", "gyro", "accel", "force", "torque"):
                sn = getattr(g, part, None)
                if sn is not None:
                    owner.update({i: sn for i in range(sn.adr, sn.adr + sn.dim)})
        for o in layout.others:
            owner.update({i: o.sensor for i in range(o.sensor.adr, o.sensor.adr + o.sensor.dim)})
        quat_types = {self._kinds.types.get("framequat"), self._kinds.types.get("ballquat")}
        add_dst, add_std, quats = [], [], {}
        for d_i, s_i in zip(dst, src):
            sn = owner.get(s_i)
            if sn is None or not sn.noise > 0:
                continue
            if sn.type in quat_types and sn.dim == 4:
                quats.setdefault(sn.name, (sn.noise, [0, 0, 0, 0]))[1][s_i - sn.adr] = d_i
            else:
                add_dst.append(d_i)
                add_std.append(sn.noise)
        _seed(int(seed) % (2 ** 32))
        self._rng = np.random.default_rng(int(seed))   # the rangefinders' (Python path)
        return (np.asarray(add_dst, np.int64), np.asarray(add_std, float),
                np.asarray([q for _, q in quats.values()], np.int64).reshape(-1, 4),
                np.asarray([n for n, _ in quats.values()], float))

    def _range(self, node, topic: str, frame: str, sn, depth: int):
        """A rangefinder as sensor_msgs/Range (float32 fields: published from a message object,
        not the float64 batch), variance = noise^2. MuJoCo reports -1 for no hit within the
        cutoff: published as +inf, REP 117's 'nothing detected'."""
        msg = Range(radiation_type=Range.INFRARED, field_of_view=0.0, min_range=0.0,
                    max_range=float(sn.cutoff) if sn.cutoff > 0 else float("inf"),
                    variance=float(sn.variance))
        msg.header.frame_id = frame
        return _sensor_publisher(node, Range, topic, sn.name, depth), msg, sn.adr, sn.noise

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
        if self._noise is not None:
            _add_noise(f64, *self._noise)
        for _, msg, adr, noise in self._ranges:
            msg.header.stamp.sec, msg.header.stamp.nanosec = sec, nsec
            r = float(d.sensordata[adr])
            if r >= 0 and noise > 0 and self._noise is not None:
                r = max(0.0, r + noise * float(self._rng.standard_normal()))
            msg.range = r if r >= 0 else float("inf")

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
        for pub, msg, _, _ in self._ranges:
            pub.publish(msg)

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
