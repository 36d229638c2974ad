"""The node over real rclpy on loopback: odometry of free bodies, the model from a transient-local
robot_description topic, the command timeout (hold / zero) and /diagnostics."""
from __future__ import annotations

import pathlib

import numpy as np
import pytest
import rclpy  # noqa: F401  (required: CI installs ROS 2 through scripts/setup)
from diagnostic_msgs.msg import DiagnosticArray
from nav_msgs.msg import Odometry
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, String
from std_srvs.srv import Trigger
from tf2_msgs.msg import TFMessage

from conftest import START_TIMEOUT, needs_stepping

pytestmark = [pytest.mark.ros, needs_stepping]

MODELS = pathlib.Path(__file__).resolve().parents[1] / "models" / "ros"
NODE = "/mj_ros_sim"
DT = 0.001
LATCHED = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                     reliability=ReliabilityPolicy.RELIABLE)


def stamp(msg) -> float:
    s = msg.clock if isinstance(msg, Clock) else msg.header.stamp
    return s.sec + s.nanosec * 1e-9


def qmat(w, x, y, z):
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def qmul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return np.array([aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw])


def at(probe, sim, box, t, what):
    """The message of `box` stamped `t` (waiting for it)."""
    return probe.wait(lambda: next((m for _, m in reversed(box) if abs(stamp(m) - t) < 1e-7),
                                   None), 60, f"{what} at {t}", sim)


# -- odometry ----------------------------------------------------------------------------------------
def test_odometry_of_a_free_body_equals_the_engine_state(sim, probe):
    import engine
    model = str(MODELS / "free_body.xml")
    s = sim(model=model, paused=True, step_count=250, initial_keyframe="throw",
            odometry_bodies="['box']", odometry_rate=0.0)
    odom = probe.subscribe(Odometry, "/box/odom")
    probe.wait_matched("/box/odom", s, START_TIMEOUT)
    reply = probe.call(Trigger, NODE + "/step", Trigger.Request(), START_TIMEOUT)
    t = float(reply.message.split()[-1])
    assert t == pytest.approx(0.25)
    msg = at(probe, s, odom, t, "odometry")
    prev = at(probe, s, odom, t - DT, "odometry")  # every step is published (odometry_rate 0)
    assert msg.header.frame_id == "world" and msg.child_frame_id == "box"

    # the same 250 steps in the engine, in this process
    m = engine.MjModel.from_xml_path(model)
    d = engine.MjData(m)
    engine.mj_resetDataKeyframe(m, d, 0)
    engine.mj_step(m, d, 250)
    assert d.time == pytest.approx(t)
    p, o = msg.pose.pose.position, msg.pose.pose.orientation
    q = np.array([o.w, o.x, o.y, o.z])
    np.testing.assert_allclose([p.x, p.y, p.z], d.qpos[0:3], atol=1e-12)
    np.testing.assert_allclose(q, d.qpos[3:7], atol=1e-12)
    lin, ang = msg.twist.twist.linear, msg.twist.twist.angular
    v_body = np.array([lin.x, lin.y, lin.z])
    w_body = np.array([ang.x, ang.y, ang.z])
    r = qmat(*q)
    # nav_msgs: the twist is in child_frame_id (the body); MuJoCo's free joint holds the linear
    # velocity in the world frame and the angular one in the body frame
    np.testing.assert_allclose(r @ v_body, d.qvel[0:3], atol=1e-12)
    np.testing.assert_allclose(w_body, d.qvel[3:6], atol=1e-12)
    assert np.linalg.norm(w_body) > 1.0 and np.linalg.norm(v_body) > 0.5  # not at rest

    # the convention independently of MuJoCo's: finite differences of the published poses
    pp, po = prev.pose.pose.position, prev.pose.pose.orientation
    q0 = np.array([po.w, po.x, po.y, po.z])
    v_fd = (np.array([p.x, p.y, p.z]) - np.array([pp.x, pp.y, pp.z])) / DT
    np.testing.assert_allclose(r @ v_body, v_fd, atol=2e-3)
    dq = qmul(q0 * [1, -1, -1, -1], q)  # q0^-1 q: the rotation over the step, in the body frame
    np.testing.assert_allclose(2.0 * dq[1:] / DT, w_body, atol=0.05)
    assert s.alive() and "Traceback" not in s.output()


# -- robot_description from a transient-local topic ---------------------------------------------------
def test_model_from_transient_local_robot_description_topic(sim, probe):
    urdf = (MODELS / "fused.urdf").read_text()
    pub = probe.node.create_publisher(String, "/robot_description", LATCHED)
    pub.publish(String(data=urdf))  # published before the node exists: only durability delivers it
    s = sim(robot_description_topic="robot_description", disable="['limit']", speed=0.0)
    js = probe.subscribe(JointState, "/joint_states", depth=10)
    static = []
    probe.node.create_subscription(TFMessage, "/tf_static", static.append, LATCHED)
    probe.wait(lambda: js and static, START_TIMEOUT, "joint_states and tf_static", s)
    assert list(js[-1][1].name) == ["j1"]
    children = {tr.child_frame_id for tr in static[-1].transforms}
    assert {"tool0", "tool_tip", "base_link"} <= children  # the URDF's fused links, from the text
    # the node logs where its model came from right after its first publications
    probe.wait(lambda: "topic /robot_description" in s.output(), 30, "the model's origin logged",
               s)


def test_robot_description_topic_without_publisher_is_one_clear_error(sim):
    s = sim(robot_description_topic="no_description_here", robot_description_timeout=0.5)
    assert s.proc.wait(START_TIMEOUT) == 1
    out = s.output()
    assert "no robot description on" in out and "Traceback" not in out


# -- command timeout ---------------------------------------------------------------------------------
def _joint(msg, name):
    i = list(msg.name).index(name)
    return msg.position[i], msg.velocity[i], msg.effort[i]


def test_command_timeout_hold_then_zero(sim, probe):
    s = sim(model=str(MODELS / "timeout.xml"), speed=2.0, command_timeout=0.2,
            command_timeout_action="hold")
    # deep enough for 2.5 s of states at speed 2: a command's effect lasts 0.1 s of wall time
    # before the timeout acts, and a probe starved of CPU (CI) must still find its states
    js = probe.subscribe(JointState, "/joint_states", depth=5000)
    probe.wait(lambda: js, START_TIMEOUT, "joint_states", s)
    jpub = probe.node.create_publisher(JointState, NODE + "/joint_commands", 10)
    cpub = probe.node.create_publisher(Float64MultiArray, NODE + "/ctrl", 10)
    probe.wait(lambda: jpub.get_subscription_count() and cpub.get_subscription_count(), 30,
               "command subscribers", s)

    def command(spin, swing, push, what):
        n = len(js)
        cpub.publish(Float64MultiArray(data=[spin, swing]))  # actuator order: spin_vel, swing_pos
        jpub.publish(JointState(name=["push"], effort=[push]))
        # the first state with the new direct effort: the commands arrived by then
        msg = probe.wait(lambda: next((m for _, m in js[n:] if _joint(m, "push")[2] == push),
                                      None), 60, what, s)
        return stamp(msg)

    def state_after(t, what):
        return probe.wait(lambda: js[-1][1] if stamp(js[-1][1]) > t else None, 60, what, s)

    # hold: after the timeout the last command stays in force
    t_cmd = command(3.0, 1.0, 2.0, "first command applied")
    msg = state_after(t_cmd + 0.2 + 0.5, "0.5 s after the timeout (hold)")
    spin, swing, push = (_joint(msg, n) for n in ("spin", "swing", "push"))
    assert spin[1] == pytest.approx(3.0, abs=0.05)      # still spinning at the commanded speed
    assert swing[0] == pytest.approx(1.0, abs=0.02)     # at the commanded position
    assert push[2] == 2.0                                # the effort still applied
    assert "no command for 0.2 s: hold" in s.output()

    # zero: velocities and efforts go to zero, position actuators hold where the joints are
    probe.set_params(NODE, command_timeout_action="zero")
    t_cmd = command(-3.0, 0.5, -2.0, "second command applied")
    before = probe.wait(lambda: next((m for _, m in js if t_cmd + 0.1 < stamp(m) < t_cmd + 0.19),
                                     None), 60, "a state before the timeout", s)
    assert _joint(before, "spin")[1] == pytest.approx(-3.0, abs=0.05)
    msg = state_after(t_cmd + 0.2 + 0.5, "0.5 s after the timeout (zero)")
    spin, swing, push = (_joint(msg, n) for n in ("spin", "swing", "push"))
    assert abs(spin[1]) < 0.05 and abs(spin[2]) < 0.05   # the velocity actuator stopped the wheel
    assert push[2] == 0.0                                 # no effort any more
    # held where it was at the timeout: on its (overdamped) way from 1.0 to the 0.5 target
    assert 0.52 < swing[0] < 0.9 and abs(swing[1]) < 0.05
    later = state_after(stamp(msg) + 0.3, "later (zero)")
    assert _joint(later, "swing")[0] == pytest.approx(swing[0], abs=2e-3)
    assert "no command for 0.2 s: zero" in s.output()
    # a new command after the timeout is obeyed again
    command(1.0, 0.5, 1.0, "command after the timeout")
    assert s.alive() and "Traceback" not in s.output()


# -- diagnostics -------------------------------------------------------------------------------------
def _values(arr):
    st = arr.status[0]
    return st, {kv.key: kv.value for kv in st.values}


def test_diagnostics_rtf_overruns_divergence_and_solver(sim, probe):
    s = sim(model=str(MODELS / "diverge.xml"), speed=1.0, diagnostics_rate=5.0)
    diag = probe.subscribe(DiagnosticArray, "/diagnostics", depth=100)
    clock = probe.subscribe(Clock, "/clock", depth=1000)

    def report(pred, what):
        return probe.wait(lambda: next((_values(m) for _, m in reversed(diag)
                                        if pred(*_values(m))), None), 60, what, s)
    st, v = report(lambda st, v: int(v["divergence_resets"]) > 0 and float(v["sim_time"]) > 0.2
                   and float(v["real_time_factor"]) > 0, "a divergence reset reported")
    assert st.name.startswith("mj_ros_sim") and st.hardware_id == NODE
    assert st.level == b"\x01" and "diverged" in st.message       # WARN
    assert "mjWARN_BADQACC" in v["last_divergence"]
    # the model blows up in every step: every step is one reset, and sim time still advances
    assert int(v["divergence_resets"]) > 10
    assert 0.0 < float(v["real_time_factor"]) < 1.5               # paced at speed 1
    assert int(v["solver_iterations"]) >= 0 and int(v["step_overruns"]) >= 0
    assert v["speed_target"] == "1" and v["paused"] == "false"
    probe.wait(lambda: len(clock) > 30, 60, "/clock", s)
    times = [stamp(m) for _, m in clock]
    assert all(b > a for a, b in zip(times, times[1:])), \
        "/clock stood still or went back across the engine's resets"
    assert "the simulation diverged and was reset by the engine" in s.output()

    # a speed no machine can keep up with: every step is late
    overruns = int(v["step_overruns"])
    probe.set_params(NODE, speed=1.0e6)
    report(lambda st, v: int(v["step_overruns"]) > overruns + 10 and v["speed_target"] == "1e+06",
           "step overruns reported")
    probe.set_params(NODE, speed=1.0)  # behind schedule, the node still serves its callbacks
    assert s.alive() and "Traceback" not in s.output()
