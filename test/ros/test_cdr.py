"""mj_ros.cdr: preserialized messages filled in place deserialize (with rclpy's own deserializer)
to exactly the messages built field by field. No network, no engine."""
from __future__ import annotations

import numpy as np
import pytest
from geometry_msgs.msg import QuaternionStamped, TransformStamped, Vector3Stamped, WrenchStamped
from nav_msgs.msg import Odometry
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Imu, JointState
from std_msgs.msg import Float64MultiArray, MultiArrayDimension
from tf2_msgs.msg import TFMessage

from mj_ros.cdr import RawBatch, Slot

pytestmark = [pytest.mark.ros]


def xyz(v):
    return [Slot(v, "x"), Slot(v, "y"), Slot(v, "z")]


def wxyz(q):
    return [Slot(q, "w"), Slot(q, "x"), Slot(q, "y"), Slot(q, "z")]


def prototypes():
    """(message, slots, stamps, how to build the expected message from values and a stamp)."""
    out = []
    c = Clock()
    out.append((c, [], [c.clock], None))
    for n in (0, 1, 7):
        js = JointState(name=[f"joint_{i}" for i in range(n)])
        out.append((js, [Slot(js, "position", n), Slot(js, "velocity", n),
                         Slot(js, "effort", n)], [js.header.stamp], None))
    imu = Imu()
    imu.header.frame_id = "prefix/imu_site"
    imu.orientation_covariance[0] = -1.0
    imu.angular_velocity_covariance[4] = 1e-6
    out.append((imu, xyz(imu.angular_velocity) + xyz(imu.linear_acceleration),
                [imu.header.stamp], None))
    imu2 = Imu()
    imu2.header.frame_id = "x"
    out.append((imu2, wxyz(imu2.orientation) + xyz(imu2.angular_velocity), [imu2.header.stamp],
                None))
    w = WrenchStamped()
    w.header.frame_id = "ft_site"
    out.append((w, xyz(w.wrench.force) + xyz(w.wrench.torque), [w.header.stamp], None))
    v = Vector3Stamped()
    v.header.frame_id = "a_frame_name_of_odd_length"
    out.append((v, xyz(v.vector), [v.header.stamp], None))
    q = QuaternionStamped()
    q.header.frame_id = "ab"
    out.append((q, wxyz(q.quaternion), [q.header.stamp], None))
    for dim in (1, 5):
        a = Float64MultiArray()
        a.layout.dim = [MultiArrayDimension(label="touch", size=dim, stride=dim)]
        out.append((a, [Slot(a, "data", dim)], [], None))
    o = Odometry()
    o.header.frame_id, o.child_frame_id = "world", "box"
    pose, tw = o.pose.pose, o.twist.twist
    out.append((o, xyz(pose.position) + wxyz(pose.orientation) + xyz(tw.linear) + xyz(tw.angular),
                [o.header.stamp], None))
    tf = TFMessage()
    slots, stamps = [], []
    for parent, child in (("world", "link1"), ("link1", "link_two")):
        tr = TransformStamped()
        tr.header.frame_id, tr.child_frame_id = parent, child
        tf.transforms.append(tr)
        slots += xyz(tr.transform.translation) + wxyz(tr.transform.rotation)
        stamps.append(tr.header.stamp)
    out.append((tf, slots, stamps, None))
    return out


def test_filled_bytes_deserialize_to_the_same_messages():
    rng = np.random.default_rng(3)
    batch = RawBatch()
    protos = prototypes()
    entries = [batch.add(None, msg, slots, stamps) for msg, slots, stamps, _ in protos]
    batch.finish()
    assert batch.f64.flags.aligned and batch.u32.flags.aligned
    for sec, nsec in ((12, 345), (1_700_000_000, 999_999_999)):
        batch.set_stamp(sec, nsec)
        for e, (msg, slots, stamps, _) in zip(entries, protos):
            idx = batch.entries[e].floats
            values = rng.normal(size=len(idx))
            batch.f64[idx] = values
            k = 0  # the expected message: the same values through the Python fields
            for s in slots:
                if s.count is None:
                    setattr(s.obj, s.attr, float(values[k]))
                    k += 1
                else:
                    setattr(s.obj, s.attr, values[k:k + s.count].tolist())
                    k += s.count
            for st in stamps:
                st.sec, st.nanosec = sec, nsec
            got = batch.check(e)
            assert got == msg, (type(msg).__name__, got, msg)


def test_unfilled_slots_are_zero_not_sentinels():
    batch = RawBatch()
    js = JointState(name=["a", "b"])
    e = batch.add(None, js, [Slot(js, "position", 2)], [js.header.stamp])
    batch.finish()
    got = batch.check(e)
    assert list(got.position) == [0.0, 0.0] and got.header.stamp.sec == 0
    assert list(got.name) == ["a", "b"]
