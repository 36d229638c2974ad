"""Mocap input: the map, sample validation and timing (pure), and the live node driven through
topics the way `ros2 bag play --clock` drives it."""
from __future__ import annotations

import math
import pathlib
import time

import numpy as np
import pytest

from conftest import START_TIMEOUT
from mj_ros import frames as fr
from mj_ros import mocap as mc

MODELS = pathlib.Path(__file__).resolve().parents[1] / "models" / "ros"


# -- pure ------------------------------------------------------------------------------------------
class _Model:
    """Just the fields frames.build and the map need: world, link1 (hinge), target (mocap)."""
    nbody, nsite, ncam = 3, 1, 0
    body_jntnum = np.array([0, 1, 0])
    body_mocapid = np.array([-1, -1, 0])
    body_parentid = np.array([0, 0, 0])
    body_pos = np.zeros((3, 3))
    body_quat = np.tile([1.0, 0, 0, 0], (3, 1))
    site_bodyid = np.array([2])
    site_pos = np.array([[0, 0, 0.1]])
    site_quat = np.array([[1.0, 0, 0, 0]])


def _table():
    return fr.build(_Model, ["world", "link1", "target"], ["target_site"])


def _config(**bodies):
    data = {"bodies": bodies or {"target": {"topic": "/p"}}}
    return mc.parse_config(data, {"target": (2, 0)}, _table(), _Model.body_parentid)


@pytest.mark.parametrize("bodies, message", [
    ({"nope": {"topic": "/p"}}, "not a mocap body of the model (mocap bodies: target)"),
    ({"target": {"topic": "/p", "frame": "map"}}, "source frame 'map' is neither the world"),
    ({"target": {"topic": "/p", "frame": "target_site"}}, "moves with the body itself"),
    ({"target": {"topic": "/p", "tf": "x"}}, "give exactly one of 'topic'"),
    ({"target": {"tf": "link1"}}, "is published by the simulation itself"),
    ({"target": {"topic": "/p", "type": "sensor_msgs/msg/Imu"}}, "is not geometry_msgs"),
    ({"target": {"topic": "/p", "offset": {"xyz": [0, 0]}}}, "offset.xyz: expected 3"),
    ({"target": {"topic": "/p", "colour": 1}}, "unknown keys ['colour']"),
])
def test_bad_maps_get_one_clear_message(bodies, message):
    with pytest.raises(mc.MocapConfigError) as e:
        _config(**bodies)
    assert message in str(e.value)


def test_map_accepts_sim_frames_and_offsets():
    c = _config(target={"topic": "p", "frame": "link1", "offset": {"xyz": [0, 0, 1],
                                                                   "rpy": [0, 0, math.pi]}})
    s = c.sources[0]
    assert (s.topic, s.frame, s.kind) == ("/p", "link1", mc.POSE)
    assert np.allclose(s.offset_quat, [0, 0, 0, 1], atol=1e-12)
    with pytest.raises(mc.MocapConfigError, match="mocap map not found"):
        mc.load_config("/no/such/map.yaml", {}, _table(), _Model.body_parentid)


def test_track_validates_and_interpolates():
    tr = mc.Track()
    q_a = (1.0, 0.0, 0.0, 0.0)
    q_b = (math.cos(0.5), 0.0, 0.0, math.sin(0.5))  # 1 rad about z
    assert tr.add(0.0, (0, 0, 0), q_a) is None
    assert "NaN" in tr.add(0.5, (math.nan, 0, 0), q_a)
    assert "zero quaternion" in tr.add(0.5, (0, 0, 0), (0, 0, 0, 0))
    assert "normalised and applied" in tr.add(1.0, (1, 2, 3), tuple(2 * v for v in q_b))
    assert "out of order" in tr.add(0.7, (5, 5, 5), q_a)
    assert (tr.accepted, tr.dropped, tr.normalized) == (2, 3, 1)
    assert tr.at(-0.1, True, 0) is None
    p, q, age = tr.at(0.25, True, 0)
    assert np.allclose(p, (0.25, 0.5, 0.75)) and age == 0.0
    assert np.allclose(q, (math.cos(0.125), 0, 0, math.sin(0.125)))  # slerp: a quarter of 1 rad
    p, q, age = tr.at(0.25, False, 0)  # hold
    assert p == (0, 0, 0) and age == 0.25
    p, _, _ = tr.at(0.25, True, 0.5)  # the gap (1 s) exceeds the timeout: no interpolation
    assert p == (0, 0, 0)
    p, q, age = tr.at(3.0, True, 0)
    assert np.allclose(p, (1, 2, 3)) and age == 2.0 and np.isclose(np.linalg.norm(q), 1)


def test_driver_applies_offset_frame_and_reports_staleness():
    c = _config(target={"topic": "/p", "frame": "link1",
                        "offset": {"xyz": [0.1, 0, 0]}})
    c.timeout = 0.2
    warnings = []
    drv = mc.MocapDriver(c, _table(), lambda k, t: warnings.append(t))
    assert drv.add(0, 0.0, "link1", (0, 0, 1), (0, 0, 0, 1))  # 180 deg about z, in link1
    assert not drv.add(0, 0.1, "world", (0, 0, 1), (1, 0, 0, 0))  # wrong frame: dropped
    xpos = np.array([[0, 0, 0], [1.0, 0, 0], [0, 0, 0]])
    xquat = np.tile([1.0, 0, 0, 0], (3, 1))
    mpos, mquat = np.zeros((1, 3)), np.zeros((1, 4))
    drv.apply(0.1, mpos, mquat, xpos, xquat)
    assert np.allclose(mpos[0], [0.9, 0, 1]) and np.allclose(np.abs(mquat[0]), [0, 0, 0, 1])
    assert not any("no sample" in w for w in warnings)
    drv.apply(0.5, mpos, mquat, xpos, xquat)
    assert drv.stale_events == 1 and any("holding the last pose" in w for w in warnings)
    assert any("expected 'link1'" in w for w in warnings)


def test_fused_urdf_links_keep_their_frames():
    import engine
    path = MODELS / "fused.urdf"
    m = engine.MjModel.from_xml_path(str(path))
    t = fr.from_model(m, engine, "world", fr.urdf_text_of("file", str(path)))
    static = {s.child: s for s in t.static}
    assert set(static) >= {"base_footprint", "base_link", "tool0", "tool_tip"}
    assert static["base_link"].parent == "base_footprint"
    assert np.allclose(static["base_link"].pos, [0, 0, 0.05])
    assert (static["tool0"].parent, static["tool_tip"].parent) == ("arm", "tool0")
    assert list(zip(t.moving_parent, t.moving_child)) == [("base_link", "arm")]
    d = engine.MjData(m)
    engine.mj_kinematics(m, d)
    pos, quat = t.moving_poses(d.xpos, d.xquat)
    assert np.allclose(pos[0], [0, 0, 0.1]) and np.allclose(quat[0], [1, 0, 0, 0])


# -- live: the node follows a bag played over topics with its /clock -------------------------------
def _play(probe, s, bag, tf, lead=0.1, speed=4.0):
    """Publish a bag's messages and a /clock like `ros2 bag play --clock`, messages `lead` s of bag
    time ahead of the clock (as a player's queue delivers them), at `speed` x real time."""
    from rosbags.highlevel import AnyReader
    from rosgraph_msgs.msg import Clock
    from geometry_msgs.msg import PoseStamped
    from tf2_msgs.msg import TFMessage
    import bagtools as bt
    types = {"/target_pose": PoseStamped, "/tf": TFMessage}
    pubs = {t: probe.node.create_publisher(m, t, 100) for t, m in types.items()}
    clock = probe.node.create_publisher(Clock, "/clock", 10)
    probe.wait(lambda: all(p.get_subscription_count() for p in pubs.values())
               and clock.get_subscription_count(), START_TIMEOUT, "the node's subscriptions", s)
    with AnyReader([bag], default_typestore=bt.STORE) as r:
        items = [(ns, c.topic, raw) for c, ns, raw in r.messages()]
    items.sort(key=lambda x: x[0])
    t0 = items[0][0]
    # handshake: the first /clock until the node answers with its state at that time
    first = Clock()
    first.clock.sec, first.clock.nanosec = t0 // 10**9, t0 % 10**9

    def answered():
        clock.publish(first)
        probe.spin_for(0.1)
        return any(tr.child_frame_id == "target" for _, m in tf for tr in m.transforms)
    probe.wait(answered, START_TIMEOUT, "the node's state at the first /clock", s)
    wall0 = time.monotonic()
    i = 0
    end = items[-1][0] + int(0.2e9)
    for now_ns in range(t0, end, 10_000_000):  # /clock at 100 Hz of bag time
        while i < len(items) and items[i][0] <= now_ns + lead * 1e9:
            pubs[items[i][1]].publish(items[i][2])  # the recorded CDR bytes, unchanged
            i += 1
        msg = Clock()
        msg.clock.sec, msg.clock.nanosec = now_ns // 10**9, now_ns % 10**9
        clock.publish(msg)
        due = wall0 + (now_ns - t0) * 1e-9 / speed
        probe.spin_for(max(0.0, due - time.monotonic()))
    return end


def test_live_node_follows_bag_through_topics(sim, probe, tmp_path):
    import bagtools as bt
    from tf2_msgs.msg import TFMessage
    bag = bt.write_bag(tmp_path / "in")
    mp = bt.write_map(tmp_path / "map.yaml")
    s = sim(model=str(MODELS / "mocap_tf.xml"), mocap_map=str(mp), follow_clock=True,
            tf_rate=100.0)
    tf = probe.subscribe(TFMessage, "/tf", depth=1000)
    end_ns = _play(probe, s, bag, tf)
    last = (end_ns - int(0.2e9) - bt.T0_NS) * 1e-9  # the last sample's bag time
    def reached():  # the node's own /tf (the probe also hears the bag's /tf it published)
        return any(tr.child_frame_id == "target" and _rel(tr.header) >= last - 1e-6
                   for _, msg in tf[-50:] for tr in msg.transforms)
    probe.wait(reached, 120, "the sim to reach the end of the bag", s)
    chord = bt.RADIUS * (1 - math.cos(math.pi * 0.02 / bt.PERIOD))
    checked = 0
    for _, msg in tf:
        for tr in msg.transforms:
            t = _rel(tr.header)
            if t < 0.02 or t > last:  # before the first interval / after the last sample
                continue
            v, r = tr.transform.translation, tr.transform.rotation
            p, q = np.array([v.x, v.y, v.z]), np.array([r.w, r.x, r.y, r.z])
            if tr.child_frame_id == "target":
                want_p, want_q = bt.circle(t)
                assert np.linalg.norm(p - want_p) <= chord * 1.01 + 1e-6, t
            elif tr.child_frame_id == "hand_target":
                want_p, want_q = bt.line(t)
                assert np.linalg.norm(p - want_p) < 1e-6, t
            else:
                continue
            assert fr.quat_angle(q, want_q) < 1e-5, (tr.child_frame_id, t)
            checked += 1
    assert checked > 200, checked  # ~190 stamps at 100 Hz for each of the two bodies

    # bad samples: dropped or normalised with a warning, the node keeps running
    from geometry_msgs.msg import PoseStamped
    pub = probe.node.create_publisher(PoseStamped, "/target_pose", 10)
    probe.wait(lambda: pub.get_subscription_count(), 30, "target_pose subscriber", s)
    for pos, quat, frame, sec in (([math.nan, 0, 0], [1, 0, 0, 0], "world", 0),
                                  ([0, 0, 1], [0, 0, 0, 2], "world", 0),
                                  ([0, 0, 1], [0, 0, 0, 1], "map", 0),
                                  ([0, 0, 1], [0, 0, 0, 1], "world", 5)):
        msg = PoseStamped()
        msg.header.frame_id = frame
        msg.header.stamp.sec = bt.T0_NS // 10**9 + sec
        p, o = msg.pose.position, msg.pose.orientation
        p.x, p.y, p.z = (float(v) for v in pos)
        o.w, o.x, o.y, o.z = (float(v) for v in quat)
        pub.publish(msg)
    probe.wait(lambda: all(w in s.output() for w in ("NaN or Inf", "expected 'world'")), 30,
               "warnings about the bad samples", s)
    assert s.alive() and "Traceback" not in s.output()


def _rel(header) -> float:
    import bagtools as bt
    return (header.stamp.sec * 10**9 + header.stamp.nanosec - bt.T0_NS) * 1e-9
