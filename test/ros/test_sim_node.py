"""The simulator node over real rclpy on loopback (issue 5's acceptance)."""
from __future__ import annotations

import math

import pytest
import rclpy  # noqa: F401  (required: CI installs ROS 2 through scripts/setup)
from geometry_msgs.msg import WrenchStamped
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Imu, JointState
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import SetBool, Trigger
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from conftest import START_TIMEOUT, UR5_MODEL, needs_stepping

pytestmark = [pytest.mark.ros, needs_stepping]

NODE = "/mj_ros_sim"
ARM_JOINTS = ["shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint",
              "wrist_2_joint", "wrist_3_joint", "finger_left_joint", "finger_right_joint"]
DT = 0.001


def stamp(msg) -> float:
    s = msg.clock if isinstance(msg, Clock) else msg.header.stamp
    return s.sec + s.nanosec * 1e-9


def periods(box) -> list[float]:
    t = [stamp(m) for _, m in box]
    return [b - a for a, b in zip(t, t[1:])]


def test_default_robot_streams_at_configured_rates(sim, probe):
    s = sim(speed=1.0, joint_states_rate=100.0, imu_rate=200.0, wrench_rate=250.0)
    clock = probe.subscribe(Clock, "/clock")
    js = probe.subscribe(JointState, "/joint_states")
    imu = probe.subscribe(Imu, "/imu")
    ft = probe.subscribe(WrenchStamped, "/ft")
    probe.wait(lambda: len(clock) > 5 and js and imu and ft, START_TIMEOUT, "every stream", s)
    n0 = {k: len(b) for k, b in (("clock", clock), ("js", js), ("imu", imu), ("ft", ft))}
    # wait until a second of sim time passed, however loaded the machine is
    t0 = stamp(clock[-1][1])
    probe.wait(lambda: stamp(clock[-1][1]) - t0 >= 1.0, 60, "1 s of sim time", s)
    for box, period, name in ((clock, DT, "clock"), (js, 0.01, "js"), (imu, 0.005, "imu"),
                              (ft, 0.004, "ft")):
        p = sorted(periods(box[n0[name]:]))
        assert p, name
        assert math.isclose(p[len(p) // 2], period, abs_tol=1e-7), (name, p[:5])
        assert min(p) > period - 1e-7, name  # decimation is exact in sim time
    msg = js[-1][1]
    assert list(msg.name) == ARM_JOINTS
    assert len(msg.position) == len(msg.velocity) == len(msg.effort) == 8
    i = imu[-1][1]
    assert i.header.frame_id == "imu_site"
    assert abs(i.linear_acceleration.z - 9.81) < 0.5  # at rest the accelerometer reads +g
    assert abs(i.orientation.w) > 0.99
    assert i.angular_velocity_covariance[0] == pytest.approx(0.001 ** 2)
    assert ft[-1][1].header.frame_id == "ft_site"
    topics = dict(probe.node.get_topic_names_and_types())
    for t in ("/finger_left_touch", "/finger_right_touch", "/diagnostics",
              NODE + "/joint_commands", NODE + "/ctrl", NODE + "/joint_trajectory"):
        assert t in topics, (t, sorted(topics))
    assert s.alive()


def test_example_robot_data_ur5(sim, probe):
    s = sim(model=UR5_MODEL, speed=0.0)
    js = probe.subscribe(JointState, "/joint_states")
    probe.wait(lambda: js, START_TIMEOUT, "ur5 joint_states", s)
    names = list(js[-1][1].name)
    assert names == ["shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint",
                     "wrist_1_joint", "wrist_2_joint", "wrist_3_joint"]
    t0 = stamp(js[-1][1])
    probe.wait(lambda: stamp(js[-1][1]) > t0 + 0.1, 60, "ur5 sim time advancing", s)
    # a UR5 without actuators: an effort goes to the joint as a generalized force
    pub = probe.node.create_publisher(JointState, NODE + "/joint_commands", 10)
    probe.wait(lambda: pub.get_subscription_count() > 0, 30, "command subscriber", s)
    pub.publish(JointState(name=["shoulder_pan_joint"], effort=[20.0]))
    probe.wait(lambda: js[-1][1].velocity[0] > 0.05, 30, "shoulder_pan turning under effort", s)


def test_position_command_moves_joint(sim, probe):
    s = sim(speed=0.0)
    js = probe.subscribe(JointState, "/joint_states", depth=10)
    probe.wait(lambda: js, START_TIMEOUT, "joint_states", s)
    pub = probe.node.create_publisher(JointState, NODE + "/joint_commands", 10)
    probe.wait(lambda: pub.get_subscription_count() > 0, 30, "command subscriber", s)
    pub.publish(JointState(name=["shoulder_pan_joint", "elbow_joint"], position=[0.8, 1.0]))
    probe.wait(lambda: abs(js[-1][1].position[0] - 0.8) < 0.01
               and abs(js[-1][1].position[2] - 1.0) < 0.02, 60, "joints at target", s)
    # ~/ctrl in actuator order, clamped to ctrlrange (gripper: 0..0.04)
    cpub = probe.node.create_publisher(Float64MultiArray, NODE + "/ctrl", 10)
    probe.wait(lambda: cpub.get_subscription_count() > 0, 30, "ctrl subscriber", s)
    cpub.publish(Float64MultiArray(data=[-0.5, -0.6, 1.4, 0.8, 0.0, 0.0, 1.0, 0.02]))
    probe.wait(lambda: abs(js[-1][1].position[0] + 0.5) < 0.01
               and abs(js[-1][1].position[6] - 0.04) < 0.003
               and abs(js[-1][1].position[7] - 0.02) < 0.003, 60, "ctrl targets reached", s)


def test_trajectory_is_followed_in_sim_time(sim, probe):
    s = sim(speed=0.0)
    js = probe.subscribe(JointState, "/joint_states", depth=10)
    probe.wait(lambda: js, START_TIMEOUT, "joint_states", s)
    pub = probe.node.create_publisher(JointTrajectory, NODE + "/joint_trajectory", 10)
    probe.wait(lambda: pub.get_subscription_count() > 0, 30, "trajectory subscriber", s)
    traj = JointTrajectory(joint_names=["wrist_2_joint"])
    for k, q in enumerate([0.3, 0.6, -0.4]):
        pt = JointTrajectoryPoint(positions=[q])
        pt.time_from_start.sec, pt.time_from_start.nanosec = 0, int((k + 1) * 0.25e9)
        traj.points.append(pt)
    pub.publish(traj)
    probe.wait(lambda: abs(js[-1][1].position[4] + 0.4) < 0.01, 60, "trajectory end", s)


def _state_after(probe, sim, js, reply):
    """Joint positions and velocities at the sim time a ~/step reply reports."""
    t = float(reply.message.split()[-1])
    msg = probe.wait(lambda: next((m for _, m in reversed(js) if abs(stamp(m) - t) < 1e-6), None),
                     30, f"joint_states at {t}", sim)
    return list(msg.position) + list(msg.velocity)


def test_bad_messages_leave_node_alive_and_sim_unchanged(sim, probe):
    s = sim(paused=True, step_count=200)
    js = probe.subscribe(JointState, "/joint_states", depth=1000)
    probe.wait_matched("/joint_states", s, START_TIMEOUT)
    probe.call(Trigger, NODE + "/reset", Trigger.Request(), START_TIMEOUT)
    reference = _state_after(probe, s, js, probe.call(Trigger, NODE + "/step", Trigger.Request()))

    probe.call(Trigger, NODE + "/reset", Trigger.Request())
    jpub = probe.node.create_publisher(JointState, NODE + "/joint_commands", 10)
    cpub = probe.node.create_publisher(Float64MultiArray, NODE + "/ctrl", 10)
    tpub = probe.node.create_publisher(JointTrajectory, NODE + "/joint_trajectory", 10)
    probe.wait(lambda: jpub.get_subscription_count() and cpub.get_subscription_count()
               and tpub.get_subscription_count(), 30, "command subscribers", s)
    bad = [
        JointState(name=["no_such_joint"], position=[0.1]),
        JointState(name=["elbow_joint"], position=[math.nan]),
        JointState(name=["elbow_joint"], position=[0.1, 0.2]),
        JointState(name=["elbow_joint", "elbow_joint"], position=[0.1, 0.2]),
        JointState(name=["elbow_joint"], velocity=[0.3]),  # no velocity actuator
        JointState(name=["elbow_joint"], position=[math.inf]),
        JointState(),
    ]
    for m in bad:
        jpub.publish(m)
    cpub.publish(Float64MultiArray(data=[0.0] * 3))
    cpub.publish(Float64MultiArray(data=[math.nan] * 7))
    tpub.publish(JointTrajectory(joint_names=["nope"],
                                 points=[JointTrajectoryPoint(positions=[1.0])]))
    for i in range(10_000):  # a flood of bad messages
        jpub.publish(bad[i % 3])
    probe.spin_for(1.0)
    reply = probe.call(Trigger, NODE + "/step", Trigger.Request(), timeout=60)
    assert _state_after(probe, s, js, reply) == reference
    assert s.alive()
    out = s.output()
    assert "dropped a joint_commands message" in out and "Traceback" not in out


def test_pause_step_reset_and_clock_never_goes_back(sim, probe):
    s = sim(paused=True, speed=1.0)
    clock = probe.subscribe(Clock, "/clock")
    js = probe.subscribe(JointState, "/joint_states", depth=10)
    probe.wait_matched("/clock", s, START_TIMEOUT)
    probe.wait_matched("/joint_states", s)
    r = probe.call(Trigger, NODE + "/step", Trigger.Request(), START_TIMEOUT)
    assert r.success
    probe.wait(lambda: clock, 30, "clock", s)
    t1 = stamp(clock[-1][1])
    probe.spin_for(0.3)
    assert stamp(clock[-1][1]) == t1  # paused: time stands still
    probe.set_params(NODE, step_count=10)
    probe.call(Trigger, NODE + "/step", Trigger.Request())
    probe.wait(lambda: stamp(clock[-1][1]) >= t1 + 10 * DT - 1e-9, 30, "10 steps", s)
    assert stamp(clock[-1][1]) == pytest.approx(t1 + 10 * DT, abs=1e-9)

    # running: move away from home, then reset; the clock keeps counting forward
    assert probe.call(SetBool, NODE + "/pause", SetBool.Request(data=False)).success
    assert not probe.call(Trigger, NODE + "/step", Trigger.Request()).success  # not paused
    pub = probe.node.create_publisher(JointState, NODE + "/joint_commands", 10)
    probe.wait(lambda: pub.get_subscription_count() > 0, 30, "command subscriber", s)
    pub.publish(JointState(name=["shoulder_pan_joint"], position=[1.0]))
    probe.wait(lambda: js and js[-1][1].position[0] > 0.5, 60, "joint moving", s)
    before = stamp(clock[-1][1])
    assert probe.call(Trigger, NODE + "/reset", Trigger.Request()).success
    probe.wait(lambda: stamp(clock[-1][1]) > before + 0.05, 30, "clock after reset", s)
    msg = probe.wait(lambda: js[-1][1] if stamp(js[-1][1]) > before else None, 30, "js", s)
    assert abs(msg.position[0]) < 0.05  # back at home (shoulder_pan = 0), holding there
    times = [stamp(m) for _, m in clock]
    assert all(b >= a for a, b in zip(times, times[1:])), "clock went back"
    assert probe.call(SetBool, NODE + "/pause", SetBool.Request(data=True)).success
    assert s.stop() == 0
    assert "Traceback" not in s.output()


def test_lockstep_advances_only_on_commands(sim, probe):
    s = sim(lockstep=True, lockstep_steps=5)
    clock = probe.subscribe(Clock, "/clock")
    js = probe.subscribe(JointState, "/joint_states", depth=100)
    pub = probe.node.create_publisher(JointState, NODE + "/joint_commands", 10)
    probe.wait(lambda: pub.get_subscription_count() > 0, START_TIMEOUT, "command subscriber", s)
    probe.wait_matched("/joint_states", s)
    probe.spin_for(0.3)
    t0 = stamp(clock[-1][1]) if clock else 0.0
    for k in range(3):
        n = len(js)
        pub.publish(JointState(name=["elbow_joint"], position=[1.4]))
        probe.wait(lambda: len(js) > n and stamp(js[-1][1]) >= t0 + 5 * (k + 1) * DT - 1e-9, 30,
                   f"lockstep batch {k}", s)
    probe.spin_for(0.3)
    assert stamp(clock[-1][1]) == pytest.approx(t0 + 15 * DT, abs=1e-9)
