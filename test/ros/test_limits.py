"""Commands held to the actuator and joint limits (issue 25.5, 20.3): position, effort and velocity
limits from the model and the URDF, the velocity ramp of position actuators, and a trajectory's
per-step cost independent of its length."""
from __future__ import annotations

import os
import statistics
import time

import numpy as np
import pytest
import rclpy
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState

import engine as mj
from conftest import REPO, START_TIMEOUT, needs_stepping
from mj_ros import commands as cmds
from mj_ros import frames as fr
from mj_ros import limits

ARM = str(REPO / "urdf" / "mj_arm.urdf")
NODE = "/mj_ros_sim"
# the default robot's URDF <limit> tags (urdf/mj_arm.urdf)
PAN_VMAX, ELBOW_EFFORT, PAN_RANGE = 2.0, 100.0, (-3.1, 3.1)


@pytest.fixture(scope="module")
def arm():
    m = mj.MjModel.from_xml_path(ARM)
    cmap = cmds.CommandMap.from_model(m, mj)
    lim = limits.from_model(m, cmap.joints, fr.urdf_text_of("file", ARM))
    cmap.set_limits(lim)
    return m, cmap, lim


def test_limits_come_from_the_model_and_the_urdf(arm):
    _, _, lim = arm
    pan = lim["shoulder_pan_joint"]
    assert pan.position == PAN_RANGE and pan.velocity == PAN_VMAX and pan.effort == (-150, 150)
    assert lim["elbow_joint"].effort == (-ELBOW_EFFORT, ELBOW_EFFORT)
    assert lim["finger_left_joint"].velocity == 0.2
    assert limits.urdf_velocity_limits(None) == {} and limits.urdf_velocity_limits("<robot") == {}


def test_mjcf_limits_from_ranges_and_forcerange():
    m = mj.MjModel.from_xml_string("""<mujoco><compiler angle="radian"/><worldbody><body>
      <joint name="a" type="hinge" range="-1 2" limited="true"/>
      <joint name="b" type="slide" actuatorfrcrange="-5 5"/>
      <joint name="c" type="hinge"/>
      <geom size="0.1"/></body></worldbody>
      <actuator><motor joint="c" forcerange="-7 3" forcelimited="true"/>
                <position joint="a" kp="10"/></actuator></mujoco>""")
    cmap = cmds.CommandMap.from_model(m, mj)
    lim = limits.from_model(m, cmap.joints, None)
    assert lim["a"] == limits.JointLimits((-1.0, 2.0), None, None)
    assert lim["b"] == limits.JointLimits(None, (-5.0, 5.0), None)
    assert lim["c"] == limits.JointLimits(None, (-7.0, 3.0), None)
    cmap.set_limits(lim)
    c = cmap.joint_state(["a", "b", "c"], [], [], [0.0, 1e6, -1e6])
    assert c.dof_val.tolist() == [0.0, 5.0] and c.ctrl_val.tolist() == [-7.0]
    c = cmap.joint_state(["a"], [9.0], [], [])
    assert c.ctrl_val.tolist() == [2.0] and c.clamped == 1


def test_effort_position_and_ctrl_are_clamped_with_a_note(arm):
    _, cmap, _ = arm
    c = cmap.joint_state(["elbow_joint", "wrist_1_joint"], [], [], [1e6, -5.0])
    assert c.dof_val.tolist() == [ELBOW_EFFORT, -5.0] and c.clamped == 1
    assert c.note == "effort of joint 'elbow_joint': 1e+06 -> 100"
    c = cmap.joint_state(["shoulder_pan_joint"], [7.0], [], [])
    assert c.ctrl_val.tolist() == [PAN_RANGE[1]] and "position of joint" in c.note
    c = cmap.ctrl([9.0] * cmap.nu)
    assert c.clamped == cmap.nu and c.ctrl_val[0] == 3.1
    # velocity limits make a ramp of the position actuators (ctrl units = gear * rad per s)
    assert cmap.ramp_rate[0] == PAN_VMAX and np.isinf(cmds.CommandMap.from_model(
        mj.MjModel.from_xml_path(ARM), mj).ramp_rate).all()


def test_ramp_moves_at_the_rate_then_copies():
    ramp = limits.Ramp(np.array([2.0, np.inf]), 0.01)
    goal, ctrl = np.array([1.0, 5.0]), np.zeros(2)
    ramp.start()
    path = []
    for _ in range(60):
        ramp.apply(goal, ctrl)
        path.append(ctrl.copy())
    path = np.array(path)
    assert path[0].tolist() == pytest.approx([0.02, 5.0])  # unramped entries jump
    assert np.max(np.diff(path[:, 0])) <= 0.02 + 1e-12
    assert path[49, 0] == pytest.approx(1.0) and path[-1, 0] == 1.0 and not ramp.active
    goal[1] = -1.0
    ramp.apply(goal, ctrl)  # inactive: a plain copy
    assert ctrl.tolist() == [1.0, -1.0]


def test_trajectory_step_cost_does_not_grow_with_its_length(domain_id):
    """Median wall time of a node step following a 100,000-point trajectory against a 10-point
    one: a ratio, not an absolute time (the machine is shared). Before the conversion moved to
    receipt it was about 30x (the whole trajectory converted every step)."""
    from mj_ros.sim_node import SimNode
    ctx = rclpy.Context()
    rclpy.init(context=ctx, domain_id=domain_id)
    node = SimNode(context=ctx, parameter_overrides=[Parameter("speed", value=0.0),
                                                    Parameter("model", value=ARM)])
    try:
        def trajectory(k):
            t = (np.arange(k) + 1) * 1e-3
            pts = [([0.3 * np.sin(x)], [], x) for x in t]
            return cmds.make_trajectory(node.cmap, ["elbow_joint"], pts, node.simclock.last,
                                        node.data.qpos)

        def cost(traj, steps=300, repeats=5):
            node._traj = traj
            runs = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                for _ in range(steps):
                    node.step()
                runs.append((time.perf_counter() - t0) / steps)
            return statistics.median(runs)

        short, long_ = trajectory(10), trajectory(100_000)
        cost(short, 100, 1)  # warm
        ratio = min(cost(long_) / cost(short) for _ in range(2))
        print(f"step cost ratio 100,000 / 10 points: {ratio:.2f}")
        assert ratio < 2.0
    finally:
        node.destroy_node()
        rclpy.try_shutdown(context=ctx)


@needs_stepping
@pytest.mark.ros
def test_node_clamps_a_huge_effort_and_ramps_a_step_at_the_velocity_limit(sim, probe):
    s = sim(speed=0.0, max_publish_rate=0.0)
    js = probe.subscribe(JointState, "/joint_states", depth=100000)
    probe.wait(lambda: js, START_TIMEOUT, "joint_states", s)
    pub = probe.node.create_publisher(JointState, NODE + "/joint_commands", 10)
    probe.wait(lambda: pub.get_subscription_count() > 0, 30, "command subscriber", s)
    n0 = len(js)
    pub.publish(JointState(name=["shoulder_pan_joint"], position=[2.0]))
    probe.wait(lambda: abs(js[-1][1].position[0] - 2.0) < 0.01, 60, "pan at 2.0", s)
    pan_v = [abs(m.velocity[0]) for _, m in js[n0:]]
    # a step of 2 rad: at most the 2 rad/s limit (PD tracking of the ramp: within 5 %)
    assert max(pan_v) <= PAN_VMAX * 1.05, max(pan_v)
    assert max(pan_v) > PAN_VMAX * 0.8  # and it did move at about the limit

    n1 = len(js)
    pub.publish(JointState(name=["elbow_joint"], effort=[1e6]))
    probe.spin_for(2.0)
    out = s.output()
    assert "clamped to the actuator and joint limits (effort of joint 'elbow_joint': 1e+06 -> " \
           "100)" in out, out
    assert "diverged" not in out and s.alive()
    elbow_v = [abs(m.velocity[2]) for _, m in js[n1:]]
    assert elbow_v and max(elbow_v) < 50.0  # 100 N m against the position actuator
    assert os.environ.get("ROS_AUTOMATIC_DISCOVERY_RANGE") == "LOCALHOST"
