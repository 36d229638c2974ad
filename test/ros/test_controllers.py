"""ros2_control's controller interfaces (mj_ros/controllers.py) over loopback: a
FollowJointTrajectory client, as MoveIt is one, drives the default robot; and the generated
control_msgs types carry the upstream type hashes."""
from __future__ import annotations

import json
import pathlib
import sys

import numpy as np
import pytest
import rclpy  # noqa: F401  (required: CI installs ROS 2 through scripts/setup)
from action_msgs.msg import GoalStatus
from control_msgs.action import FollowJointTrajectory
from control_msgs.msg import DynamicJointState, JointTolerance, JointTrajectoryControllerState
from rclpy.action import ActionClient
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from conftest import START_TIMEOUT, needs_stepping

pytestmark = needs_stepping

JTC = "/joint_trajectory_controller"
ARM = ["shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint",
       "wrist_2_joint", "wrist_3_joint"]
JOINTS = ARM + ["finger_left_joint", "finger_right_joint"]  # every position-actuated joint
Result = FollowJointTrajectory.Result

# RIHS01 type hashes of control_msgs as upstream's own build generates them (rosidl_generator_c's
# *__struct.h / *__description.c of control_msgs 6.x, the release ROS 2 Kilted shipped with)
UPSTREAM_HASHES = {
    "action/FollowJointTrajectory":
        "738ebcb7a2d7cfa42f9f1001cc99ce3a4383d1cfe508015d9be8485e4b1c66f6",
    "action/FollowJointTrajectory_Goal":
        "8a9060704b269608f5a340934cc26e66869dd14bdac29e2e7fd9ec8b9882d205",
    "msg/JointTolerance": "c254f9cece0f3b733017b6990fd46d1326e25242d6b8844398c97d9a88e7d648",
    "msg/JointComponentTolerance":
        "739ea7566931944d33830fa10f1bf5e7a7fbdc3172bce7a7eaac642bd6e3ffa4",
    "msg/JointTrajectoryControllerState":
        "6cb9ac0858fc11b54bd6c0a46f032ea243c16856182276d8eb0875f6ce6a8335",
}


def test_generated_control_msgs_have_upstream_type_hashes():
    share = pathlib.Path(sys.prefix) / "share" / "control_msgs"
    found = {}
    for f in share.glob("*/*.json"):
        for h in json.loads(f.read_text())["type_hashes"]:
            if h["type_name"].startswith("control_msgs/"):
                found[h["type_name"].removeprefix("control_msgs/")] = h["hash_string"]
    for name, want in UPSTREAM_HASHES.items():
        assert found.get(name) == "RIHS01_" + want, name


def _point(positions, seconds: float) -> JointTrajectoryPoint:
    pt = JointTrajectoryPoint(positions=[float(q) for q in positions])
    pt.time_from_start.sec = int(seconds)
    pt.time_from_start.nanosec = int(round((seconds - int(seconds)) * 1e9))
    return pt


def _goal(names, points, path=None, goal=None, goal_time=0.0) -> FollowJointTrajectory.Goal:
    g = FollowJointTrajectory.Goal()
    g.trajectory = JointTrajectory(joint_names=list(names),
                                   points=[_point(q, t) for q, t in points])
    g.path_tolerance = [JointTolerance(name=n, position=path) for n in names] if path else []
    g.goal_tolerance = [JointTolerance(name=n, position=goal) for n in names] if goal else []
    g.goal_time_tolerance.sec = int(goal_time)
    g.goal_time_tolerance.nanosec = int(round((goal_time - int(goal_time)) * 1e9))
    return g


class Client:
    """A FollowJointTrajectory client on the probe's node, waiting with deadlines."""

    def __init__(self, probe, sim, controller: str = JTC):
        self.probe, self.sim = probe, sim
        self.client = ActionClient(probe.node, FollowJointTrajectory,
                                   controller + "/follow_joint_trajectory")
        probe.wait(self.client.server_is_ready, START_TIMEOUT, "the action server", sim)
        self.feedback: list = []

    def send(self, goal):
        future = self.client.send_goal_async(goal, feedback_callback=lambda m: self.feedback
                                             .append(m.feedback))
        return self.probe.wait(lambda: future.done() and future.result(), 30, "goal response",
                               self.sim)

    def result(self, handle, timeout: float = 60.0):
        future = handle.get_result_async()
        return self.probe.wait(lambda: future.done() and future.result(), timeout, "the result",
                               self.sim)


def _positions(js, names=JOINTS) -> np.ndarray:
    msg = js[-1][1]
    index = {n: k for k, n in enumerate(msg.name)}
    return np.array([msg.position[index[n]] for n in names])


def test_follow_joint_trajectory_succeeds_within_tolerances(sim, probe):
    s = sim()
    js = probe.subscribe(JointState, "/joint_states", depth=10)
    state = probe.subscribe(JointTrajectoryControllerState, JTC + "/controller_state", depth=10)
    client = Client(probe, s)
    probe.wait(lambda: js and state, START_TIMEOUT, "joint_states and controller_state", s)

    # controller_state: joint_trajectory_controller's message over the position-commanded joints
    msg = state[-1][1]
    assert list(msg.joint_names) == JOINTS
    assert len(msg.reference.positions) == len(msg.feedback.positions) == len(JOINTS)
    assert len(msg.output.positions) == len(JOINTS)
    assert msg.header.stamp.sec > 0 or msg.header.stamp.nanosec > 0

    start = _positions(js)
    target = start.copy()
    target[:6] += [0.4, -0.3, 0.5, 0.3, -0.4, 0.5]
    target[6:] = 0.02
    mid = (start + target) / 2
    # a position-controlled arm lags its reference by a few centiradians while it moves, and
    # sags under gravity at rest (kp finite: 0.014 rad at the elbow here)
    handle = client.send(_goal(JOINTS, [(mid, 1.0), (target, 2.0)], path=0.25, goal=0.03,
                               goal_time=2.0))
    assert handle.accepted
    res = client.result(handle)
    assert res.status == GoalStatus.STATUS_SUCCEEDED, (res.result.error_string, s.output())
    assert res.result.error_code == Result.SUCCESSFUL
    probe.spin_for(0.3)
    np.testing.assert_allclose(_positions(js), target, atol=0.03)
    # feedback during the motion, in the goal's joint order, error = desired - actual
    assert len(client.feedback) >= 10
    fb = client.feedback[len(client.feedback) // 2]
    assert list(fb.joint_names) == JOINTS
    np.testing.assert_allclose(np.subtract(fb.desired.positions, fb.actual.positions),
                               fb.error.positions, atol=1e-12)
    worst = max(max(abs(e) for e in f.error.positions) for f in client.feedback)
    assert worst <= 0.25
    print(f"max path error seen in feedback: {worst:.4f} rad")


def test_goal_checks_cancel_and_path_violation(sim, probe):
    s = sim()
    js = probe.subscribe(JointState, "/joint_states", depth=10)
    client = Client(probe, s)
    probe.wait(lambda: js, START_TIMEOUT, "joint_states", s)
    start = _positions(js)

    # rejected as joint_trajectory_controller rejects them
    bad_name = list(JOINTS[:-1]) + ["no_such_joint"]
    assert not client.send(_goal(bad_name, [(start, 1.0)])).accepted
    assert not client.send(_goal(ARM, [(start[:6], 1.0)])).accepted   # partial: fingers missing
    assert not client.send(_goal(JOINTS, [])).accepted                  # no points
    assert not client.send(_goal(JOINTS, [(start, 1.0), (start, 0.5)])).accepted  # time goes back
    g = _goal(JOINTS, [(start, 1.0)])
    g.trajectory.points[0].positions = list(start[:3])                   # size mismatch
    assert not client.send(g).accepted
    assert s.alive()

    # cancel: the motion stops where the joints are
    far = start.copy()
    far[0] += 2.0
    handle = client.send(_goal(JOINTS, [(far, 6.0)]))
    assert handle.accepted
    probe.spin_for(1.0)
    cancel = handle.cancel_goal_async()
    probe.wait(cancel.done, 30, "cancel response", s)
    res = client.result(handle)
    assert res.status == GoalStatus.STATUS_CANCELED
    probe.spin_for(0.5)
    stopped = _positions(js)[0]
    probe.spin_for(1.0)
    now = _positions(js)[0]
    assert start[0] + 0.05 < stopped < far[0] - 0.5, (start[0], stopped, far[0])
    assert abs(now - stopped) < 0.01, "the joint kept moving after the cancel"

    # a path tolerance the arm cannot keep aborts the goal
    here = _positions(js)
    fast = here.copy()
    fast[0] -= 1.0
    handle = client.send(_goal(JOINTS, [(fast, 1.0)], path=1e-4))
    assert handle.accepted
    res = client.result(handle)
    assert res.status == GoalStatus.STATUS_ABORTED
    assert res.result.error_code == Result.PATH_TOLERANCE_VIOLATED, s.output()
    assert "shoulder_pan_joint" in res.result.error_string

    # the controller's topic: the trajectory is followed, no action involved
    pub = probe.node.create_publisher(JointTrajectory, JTC + "/joint_trajectory", 10)
    probe.wait(lambda: pub.get_subscription_count() > 0, 30, "the controller's topic", s)
    target = _positions(js)
    target[4] += 0.3
    pub.publish(JointTrajectory(joint_names=JOINTS, points=[_point(target, 0.5)]))
    probe.wait(lambda: abs(_positions(js)[4] - target[4]) < 0.01, 60, "topic trajectory", s)
    assert s.alive()


REPO = pathlib.Path(__file__).resolve().parents[2]


def test_controllers_yaml_selects_the_controllers(sim, probe):
    """config/controllers_example.yaml: arm_controller (JTC over the arm, constraints from the
    file), gripper_controller (JointGroupPositionController), joint_state_broadcaster."""
    s = sim(controllers_file=str(REPO / "config" / "controllers_example.yaml"))
    js = probe.subscribe(JointState, "/joint_states", depth=10)
    djs = probe.subscribe(DynamicJointState, "/dynamic_joint_states", depth=10)
    client = Client(probe, s, "/arm_controller")
    probe.wait(lambda: js and djs, START_TIMEOUT, "joint_states and dynamic_joint_states", s)

    # joint_state_broadcaster: every joint, position/velocity/effort, as /joint_states
    msg = djs[-1][1]
    assert list(msg.joint_names) == JOINTS
    assert all(list(v.interface_names) == ["position", "velocity", "effort"]
               for v in msg.interface_values)
    now = _positions(js)
    np.testing.assert_allclose([v.values[0] for v in msg.interface_values], now, atol=0.05)

    # the arm's goal: arm joints only (the fingers belong to another controller)
    start = _positions(js, ARM)
    target = start + [0.3, 0.2, -0.3, 0.2, 0.2, -0.2]
    handle = client.send(_goal(ARM, [(target, 1.0)]))
    assert handle.accepted
    res = client.result(handle)
    assert res.status == GoalStatus.STATUS_SUCCEEDED, (res.result.error_string, s.output())
    probe.spin_for(0.3)
    np.testing.assert_allclose(_positions(js, ARM), target, atol=0.03)  # goal: 0.03 in the file
    assert not client.send(_goal(JOINTS, [(now, 1.0)])).accepted  # fingers: not arm_controller's

    # gripper_controller/commands: one position per joint, in the file's order
    pub = probe.node.create_publisher(Float64MultiArray, "/gripper_controller/commands", 10)
    probe.wait(lambda: pub.get_subscription_count() > 0, 30, "gripper_controller/commands", s)
    pub.publish(Float64MultiArray(data=[0.03, 0.01]))
    fingers = ["finger_left_joint", "finger_right_joint"]
    probe.wait(lambda: np.allclose(_positions(js, fingers), [0.03, 0.01], atol=0.003), 60,
               "fingers at the commanded positions", s)
    # the default controller is not there: the file decides
    topics = {n for n, _ in probe.node.get_topic_names_and_types()}
    assert JTC + "/controller_state" not in topics
    assert "/arm_controller/controller_state" in topics
    assert s.alive()


@pytest.mark.parametrize("text,says", [
    ("controller_manager:\n  ros__parameters:\n    base:\n"
     "      type: diff_drive_controller/DiffDriveController\n",
     "type diff_drive_controller/DiffDriveController"),
    ("controller_manager:\n  ros__parameters:\n    arm:\n"
     "      type: joint_trajectory_controller/JointTrajectoryController\n"
     "arm:\n  ros__parameters:\n    joints: [elbow_joint, no_such_joint]\n",
     "unknown joint 'no_such_joint'"),
    ("controller_manager:\n  ros__parameters:\n    vel:\n"
     "      type: velocity_controllers/JointGroupVelocityController\n"
     "vel:\n  ros__parameters:\n    joints: [elbow_joint]\n",
     "joint 'elbow_joint' has no velocity actuator")])
def test_bad_controllers_file_ends_start_with_one_line(text, says, tmp_path, domain_id):
    import subprocess

    from conftest import ros_env
    f = tmp_path / "controllers.yaml"
    f.write_text(text)
    env = ros_env(domain_id)
    r = subprocess.run([sys.executable, "-m", "mj_ros.sim_node", "--ros-args", "-p",
                        f"controllers_file:={f}"], cwd=str(tmp_path), env=env,
                       capture_output=True, text=True, timeout=START_TIMEOUT)
    assert r.returncode == 1, r.stdout + r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("mj_ros sim: ")]
    assert len(lines) == 1 and says in lines[0], r.stdout + r.stderr


def test_goal_in_lockstep_is_one_batch(sim, probe):
    """In lockstep an accepted goal is a command like the others: its trajectory gets one batch
    of lockstep_steps, and the goal ends within that batch."""
    s = sim(lockstep=True, lockstep_steps=2500)
    js = probe.subscribe(JointState, "/joint_states", depth=10)
    client = Client(probe, s)
    probe.wait(lambda: js, START_TIMEOUT, "the state published at start", s)
    t0 = js[-1][1].header.stamp.sec + js[-1][1].header.stamp.nanosec * 1e-9
    target = _positions(js)
    target[1] -= 0.3
    handle = client.send(_goal(JOINTS, [(target, 1.0)], goal=0.03))
    assert handle.accepted
    res = client.result(handle)
    assert res.status == GoalStatus.STATUS_SUCCEEDED, (res.result.error_string, s.output())
    probe.wait(lambda: js[-1][1].header.stamp.sec + js[-1][1].header.stamp.nanosec * 1e-9
               >= t0 + 2.5 - 1e-6, 30, "the batch's last state", s)
    np.testing.assert_allclose(_positions(js), target, atol=0.03)
    t_end = js[-1][1].header.stamp.sec + js[-1][1].header.stamp.nanosec * 1e-9
    probe.spin_for(1.0)
    assert abs(t_end - (t0 + 2.5)) < 1e-6  # no further steps without a command
