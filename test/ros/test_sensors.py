"""Sensor streams (mj_ros/sensors.py, outputs.py): frame ids that match the coordinates, a stamp
on every message, the force/torque convention, and the optional Gaussian noise (MJCF `noise` as
standard deviation, seeded, covariance noise^2). Model: test/models/ros/sensor_frames.xml, a
scene that does not move, so every spread in the published values is the node's noise."""
from __future__ import annotations

import pathlib

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
MODEL = REPO / "test" / "models" / "ros" / "sensor_frames.xml"
MASS, G = 2.0, 9.81


def test_frames_and_message_kinds():
    import engine
    from mj_ros import sensors
    layout = sensors.layout_from_model(engine.MjModel.from_xml_path(str(MODEL)), engine)
    assert [(g.name, g.frame) for g in layout.imus] == [("imu", "imu")]
    assert [(g.name, g.frame) for g in layout.wrenches] == [("ft", "ft_site")]
    got = {o.name: (o.kind, o.frame) for o in layout.others}
    assert got == {
        "turned_force": ("vector3", "ft_turned"),   # site sensor: its site's frame
        "tip_pos": ("point", "world"),              # frame sensor without a reference: world
        "tip_in_ref": ("point", "ref_site"),        # ... with reftype/refname: that frame
        "tip_linacc": ("vector3", "world"),         # framelinacc: world, always
        "load_com": ("point", "world"),             # subtree sensors: world
        "pad_touch": ("values", "touchpad"),
        "range": ("range", "ranger"),
        "sim_clock": ("values", ""),                    # no spatial frame
    }


def test_force_torque_convention_on_a_hanging_mass():
    """seed 000 sensor/force: the site is on the child, the force points from the child to the
    parent: a 2 kg load hanging below the sensor reads +m g along the world's up axis expressed
    in the site frame (z for the aligned site, y for the one turned 90 degrees about x); the
    engine agrees with mujoco."""
    import mujoco
    import engine
    for lib in (engine, mujoco):
        m = lib.MjModel.from_xml_path(str(MODEL))
        d = lib.MjData(m)
        for _ in range(5):
            lib.mj_step(m, d)
        lib.mj_forward(m, d)

        def read(name):
            i = lib.mj_name2id(m, lib.mjtObj.mjOBJ_SENSOR, name)
            return d.sensordata[m.sensor_adr[i]:m.sensor_adr[i] + m.sensor_dim[i]]
        np.testing.assert_allclose(read("ft_force"), [0, 0, MASS * G], atol=1e-6,
                                   err_msg=lib.__name__)
        np.testing.assert_allclose(read("turned_force"), [0, MASS * G, 0], atol=1e-6,
                                   err_msg=lib.__name__)
        # torque about the site origin: the load's centre of mass is right below it
        np.testing.assert_allclose(read("ft_torque"), [0, 0, 0], atol=1e-6, err_msg=lib.__name__)


def _node_samples(sim, probe, n: int, **params):
    from control_msgs.msg import DynamicJointState
    from geometry_msgs.msg import PointStamped, Vector3Stamped, WrenchStamped
    from sensor_msgs.msg import Imu, Range
    from conftest import START_TIMEOUT
    s = sim(model=str(MODEL), speed=0.0, sensor_rate=0.0, imu_rate=0.0, wrench_rate=0.0,
            **params)
    topics = {"/imu": Imu, "/ft": WrenchStamped, "/turned_force": Vector3Stamped,
              "/tip_pos": PointStamped, "/tip_in_ref": PointStamped, "/tip_linacc": Vector3Stamped,
              "/load_com": PointStamped, "/pad_touch": DynamicJointState, "/range": Range}
    got = {t: probe.subscribe(ty, t, depth=100000) for t, ty in topics.items()}
    probe.wait(lambda: all(len(v) >= n for v in got.values()), START_TIMEOUT + 60,
               f"{n} messages on every sensor topic", s)
    return s, {t: [m for _, m in v] for t, v in got.items()}


@pytest.fixture
def needs_ros():
    from conftest import needs_stepping  # noqa: F401 (the ROS tests' skip rule)
    import engine
    if not hasattr(engine, "mj_step"):
        pytest.skip("the engine does not step yet")


def test_frame_ids_stamps_and_noise_statistics(sim, probe, needs_ros):
    n = 2000
    s, got = _node_samples(sim, probe, n, sensor_noise=True, seed=7)
    frames = {t: msgs[-1].header.frame_id for t, msgs in got.items()}
    assert frames == {"/imu": "imu", "/ft": "ft_site", "/turned_force": "ft_turned",
                      "/tip_pos": "world", "/tip_in_ref": "ref_site", "/tip_linacc": "world",
                      "/load_com": "world", "/pad_touch": "touchpad", "/range": "ranger"}
    for t, msgs in got.items():   # every message stamped with sim time, in order
        stamps = np.array([m.header.stamp.sec + 1e-9 * m.header.stamp.nanosec for m in msgs])
        assert stamps[-1] > 0 and np.all(np.diff(stamps) >= 0), t

    def check(values, mean, std, what):
        values = np.asarray(values, float)
        assert len(values) >= n
        np.testing.assert_allclose(values.mean(axis=0), mean, atol=5 * std / np.sqrt(len(values)),
                                   err_msg=what)
        np.testing.assert_allclose(values.std(axis=0), std, rtol=0.1, err_msg=what)
        print(f"{what}: std {np.round(values.std(axis=0), 5)} (noise {std})")

    imu = got["/imu"]
    check([[m.linear_acceleration.x, m.linear_acceleration.y, m.linear_acceleration.z]
           for m in imu], [0, 0, G], 0.05, "accelerometer")
    check([[m.angular_velocity.x, m.angular_velocity.y, m.angular_velocity.z] for m in imu],
          [0, 0, 0], 0.01, "gyro")
    # orientation: rotation vectors of q_true^-1 q (small angles), N(0, 0.02^2) per axis
    q_true = np.array([np.cos(np.pi / 12), 0, 0, np.sin(np.pi / 12)])   # 30 deg about z
    rv = []
    for m in imu:
        q = np.array([m.orientation.w, m.orientation.x, m.orientation.y, m.orientation.z])
        assert abs(np.linalg.norm(q) - 1) < 1e-9    # still a unit quaternion
        w, v = q_true[0], -q_true[1:]
        rel_w = w * q[0] - v @ q[1:]
        rel_v = w * q[1:] + q[0] * v + np.cross(v, q[1:])
        rv.append(2 * rel_v * np.sign(rel_w))
    check(rv, [0, 0, 0], 0.02, "framequat")
    m = imu[-1]   # the covariances it reports: noise^2 on the diagonal (REP 145)
    np.testing.assert_allclose(np.reshape(m.linear_acceleration_covariance, (3, 3)),
                               np.eye(3) * 0.05 ** 2, rtol=1e-12)
    np.testing.assert_allclose(np.reshape(m.angular_velocity_covariance, (3, 3)),
                               np.eye(3) * 0.01 ** 2, rtol=1e-12)
    np.testing.assert_allclose(np.reshape(m.orientation_covariance, (3, 3)),
                               np.eye(3) * 0.02 ** 2, rtol=1e-12)
    check([[w.wrench.force.x, w.wrench.force.y, w.wrench.force.z] for w in got["/ft"]],
          [0, 0, MASS * G], 0.5, "force")
    torque = np.array([[w.wrench.torque.x, w.wrench.torque.y, w.wrench.torque.z]
                       for w in got["/ft"]])
    assert np.abs(torque).max() < 1e-9    # noise 0: none added
    check([[p.point.x, p.point.y, p.point.z] for p in got["/tip_pos"]], [0.1, 0.2, 1.3], 0.01,
          "framepos")
    check([d.interface_values[0].values[0] for d in got["/pad_touch"]], 0.0, 0.1, "touch")
    assert got["/pad_touch"][-1].joint_names == ["pad_touch"]
    assert list(got["/pad_touch"][-1].interface_values[0].interface_names) == ["touch"]
    check([r.range for r in got["/range"]], 1.0, 0.003, "rangefinder")
    assert got["/range"][-1].variance == pytest.approx(0.003 ** 2, rel=1e-6)   # float32
    p = got["/tip_in_ref"][-1].point    # in the reference site's frame, noise 0
    assert (p.x, p.y, p.z) == pytest.approx((0.2, 0.4, 1.3), abs=1e-9)


def test_no_noise_by_default(sim, probe, needs_ros):
    s, got = _node_samples(sim, probe, 200)
    acc = np.array([[m.linear_acceleration.x, m.linear_acceleration.y, m.linear_acceleration.z]
                    for m in got["/imu"]])
    np.testing.assert_allclose(acc, np.tile([0, 0, G], (len(acc), 1)), atol=1e-9)
    assert np.ptp([r.range for r in got["/range"]]) == 0.0
    # the covariance still reports the model's noise (what the real sensor would have)
    assert got["/imu"][-1].linear_acceleration_covariance[0] == pytest.approx(0.05 ** 2)


def test_replay_writes_the_same_message_kinds_and_frames(tmp_path):
    """mj-ros-replay's output bag carries every sensor as the node publishes it (without noise)."""
    import bagtools as bt
    from mj_ros import replay
    bag = bt.write_bag(tmp_path / "in", duration=0.2)
    mp = bt.write_map(tmp_path / "map.yaml", text="mode: interpolate\nbodies:\n  target:\n"
                      "    topic: /target_pose\n    type: geometry_msgs/msg/PoseStamped\n"
                      "    frame: world\n")
    out = tmp_path / "out"
    assert replay.main([str(bag), "--model", str(MODEL), "--map", str(mp), "--out", str(out),
                        "--rate", "100"]) == 0
    got = bt.read_bag(out)
    last = {t: msgs[-1][1] for t, msgs in got.items()}
    assert last["/tip_pos"].header.frame_id == "world"
    assert last["/tip_pos"].__msgtype__ == "geometry_msgs/msg/PointStamped"
    assert last["/tip_in_ref"].header.frame_id == "ref_site"
    assert (last["/tip_in_ref"].point.x, last["/tip_in_ref"].point.y) == pytest.approx((0.2, 0.4))
    assert last["/range"].range == pytest.approx(1.0)
    assert last["/range"].variance == pytest.approx(0.003 ** 2)
    touch = last["/pad_touch"]
    assert touch.__msgtype__ == "control_msgs/msg/DynamicJointState"
    assert touch.header.frame_id == "touchpad" and list(touch.joint_names) == ["pad_touch"]
    assert last["/sim_clock"].header.frame_id == ""
    assert last["/ft"].wrench.force.z == pytest.approx(MASS * G, abs=1e-6)
