"""/tf and /tf_static from the live node over real rclpy: every expected frame, poses equal to the
engine's xpos/xquat at the stamped sim time."""
from __future__ import annotations

import math
import pathlib

import numpy as np
import pytest
import rclpy  # noqa: F401  (required: CI installs ROS 2 through scripts/setup)
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from std_srvs.srv import Trigger
from tf2_msgs.msg import TFMessage

from conftest import START_TIMEOUT

pytestmark = [pytest.mark.ros]

MODELS = pathlib.Path(__file__).resolve().parents[1] / "models" / "ros"
NODE = "/mj_ros_sim"
STATIC_QOS = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                        reliability=ReliabilityPolicy.RELIABLE)


def stamp(h) -> float:
    return h.stamp.sec + h.stamp.nanosec * 1e-9


def qmul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return np.array([aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw])


def qmat(q):
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def world_poses(transforms, world):
    """Compose parent->child transforms into world poses {frame: (pos, rotation matrix)}."""
    edges = {}
    for tr in transforms:
        v, r = tr.transform.translation, tr.transform.rotation
        edges[tr.child_frame_id] = (tr.header.frame_id, np.array([v.x, v.y, v.z]),
                                    qmat((r.w, r.x, r.y, r.z)))
    out = {world: (np.zeros(3), np.eye(3))}

    def pose(f, depth=0):
        if f not in out:
            assert depth < 50 and f in edges, f"frame {f} is not connected to {world}"
            parent, p, rm = edges[f]
            pp, pr = pose(parent, depth + 1)
            out[f] = (pp + pr @ p, pr @ rm)
        return out[f]
    for f in edges:
        pose(f)
    return out


def _tf_at(probe, s, box, t):
    return probe.wait(lambda: next((m for _, m in reversed(box)
                                    if m.transforms and abs(stamp(m.transforms[0].header) - t)
                                    < 1e-6), None), 60, f"/tf at {t}", s)


def test_tf_frames_equal_engine_poses(sim, probe):
    import engine
    s = sim(model=str(MODELS / "mocap_tf.xml"), paused=True, step_count=137,
            initial_keyframe="start", frame_prefix="r1/", tf_rate=0.0)
    tf = probe.subscribe(TFMessage, "/tf")
    got_static = []
    probe.node.create_subscription(TFMessage, "/tf_static", got_static.append, STATIC_QOS)
    probe.wait_matched("/tf", s, START_TIMEOUT)
    probe.wait(lambda: got_static, 60, "/tf_static", s)
    reply = probe.call(Trigger, NODE + "/step", Trigger.Request(), START_TIMEOUT)
    t = float(reply.message.split()[-1])
    assert t == pytest.approx(0.137)
    dyn = _tf_at(probe, s, tf, t)
    static = got_static[-1].transforms
    moving = {tr.child_frame_id: tr.header.frame_id for tr in dyn.transforms}
    assert moving == {"r1/link1": "r1/world", "r1/link2": "r1/link1", "r1/target": "r1/world",
                      "r1/hand_target": "r1/world"}
    fixed = {tr.child_frame_id: tr.header.frame_id for tr in static}
    assert fixed == {"r1/pedestal": "r1/world", "r1/pedestal_cap": "r1/pedestal",
                     "r1/tip_mass": "r1/link2", "r1/hand_pointer": "r1/hand_target",
                     "r1/pedestal_top": "r1/pedestal", "r1/tip": "r1/link2",
                     "r1/target_marker": "r1/target", "r1/tip_cam": "r1/link2",
                     "r1/tip_cam_optical": "r1/tip_cam"}
    assert all(stamp(tr.header) == pytest.approx(t) for tr in dyn.transforms)
    poses = world_poses(list(dyn.transforms) + list(static), "r1/world")

    # the same 137 steps in the engine, in this process
    m = engine.MjModel.from_xml_path(str(MODELS / "mocap_tf.xml"))
    d = engine.MjData(m)
    engine.mj_resetDataKeyframe(m, d, 0)
    engine.mj_step(m, d, 137)
    engine.mj_forward(m, d)  # poses (and cameras) of the state at t
    assert d.time == pytest.approx(t)
    for b in range(1, m.nbody):
        p, r = poses["r1/" + m.body(b).name]
        np.testing.assert_allclose(p, d.xpos[b], atol=1e-9, err_msg=m.body(b).name)
        np.testing.assert_allclose(r, d.xmat[b].reshape(3, 3), atol=1e-9, err_msg=m.body(b).name)
    for i in range(m.nsite):
        p, r = poses["r1/" + m.site(i).name]
        np.testing.assert_allclose(p, d.site_xpos[i], atol=1e-9)
        np.testing.assert_allclose(r, d.site_xmat[i].reshape(3, 3), atol=1e-9)
    p, r = poses["r1/tip_cam"]
    np.testing.assert_allclose(p, d.cam_xpos[0], atol=1e-9)
    po, ro = poses["r1/tip_cam_optical"]  # looks along +z where the camera looks along -z
    np.testing.assert_allclose(ro[:, 2], -r[:, 2], atol=1e-12)
    assert abs(d.qpos[0] - 0.3) > 1e-3  # the pendulum did swing: the test is not at rest
    assert s.alive() and "Traceback" not in s.output()


def test_fused_urdf_links_and_rate(sim, probe):
    s = sim(model=str(MODELS / "fused.urdf"), speed=1.0, tf_rate=50.0, disable="[limit]")
    tf = probe.subscribe(TFMessage, "/tf")
    got_static = []
    probe.node.create_subscription(TFMessage, "/tf_static", got_static.append, STATIC_QOS)
    probe.wait(lambda: len(tf) > 5 and got_static, START_TIMEOUT, "/tf and /tf_static", s)
    times = [stamp(m.transforms[0].header) for _, m in tf[-5:]]
    assert all(math.isclose(b - a, 0.02, abs_tol=1e-7) for a, b in zip(times, times[1:])), times
    last = tf[-1][1]
    assert [(tr.header.frame_id, tr.child_frame_id) for tr in last.transforms] == \
        [("base_link", "arm")]
    poses = world_poses(list(last.transforms) + list(got_static[-1].transforms), "world")
    assert set(poses) == {"world", "base_footprint", "base_link", "arm", "tool0", "tool_tip"}
    # tool_tip from the URDF's joint origins, computed independently
    pa, ra = poses["arm"]

    def rot(axis, a):
        c, s_ = math.cos(a), math.sin(a)
        return {"x": np.array([[1, 0, 0], [0, c, -s_], [0, s_, c]]),
                "y": np.array([[c, 0, s_], [0, 1, 0], [-s_, 0, c]])}[axis]
    p0, r0 = pa + ra @ [0, 0, 0.4], ra @ rot("y", 1.5707963)
    p1, r1 = p0 + r0 @ [0.02, 0, 0.05], r0 @ rot("x", 0.3)
    np.testing.assert_allclose(poses["tool_tip"][0], p1, atol=1e-9)
    np.testing.assert_allclose(poses["tool_tip"][1], r1, atol=1e-9)
    np.testing.assert_allclose(poses["base_link"][0], [0, 0, 0.05], atol=1e-12)
