"""Pure unit tests of the node's logic: no ROS, no engine."""
from __future__ import annotations

import math

import numpy as np
import pytest

from mj_ros import commands as cmds
from mj_ros import diagnostics as diag
from mj_ros.clock import Pacer, RateMeter, SimClock, to_stamp
from mj_ros.sensors import Sensor, SensorKinds, group_sensors, imu_covariances

KINDS = SensorKinds(framequat=17, gyro=3, accelerometer=1, force=4, torque=5, site=6)
TOUCH, JOINTPOS, BODY = 0, 8, 1


def sensor(name, type_, adr, dim=3, noise=0.0, objtype=6, objname="s"):
    return Sensor(name, type_, adr, dim, noise, objtype, objname)


# -- sensors ---------------------------------------------------------------------------------------
def test_imu_and_wrench_grouped_by_name_convention():
    layout = group_sensors([
        sensor("imu_quat", 17, 0, 4, objname="imu_site"),
        sensor("imu_gyro", 3, 4, noise=0.001, objname="imu_site"),
        sensor("imu_accel", 1, 7, noise=0.01, objname="imu_site"),
        sensor("ft_force", 4, 10, objname="ft_site"),
        sensor("ft_torque", 5, 13, objname="ft_site"),
        sensor("tip_touch", TOUCH, 16, 1, objname="tip"),
    ], KINDS)
    assert [(g.name, g.frame) for g in layout.imus] == [("imu", "imu_site")]
    g = layout.imus[0]
    assert (g.quat.adr, g.gyro.adr, g.accel.adr) == (0, 4, 7)
    assert [(w.name, w.force.adr, w.torque.adr) for w in layout.wrenches] == [("ft", 10, 13)]
    assert [(o.name, o.kind) for o in layout.others] == [("tip_touch", "values")]
    oc, gc, ac = imu_covariances(g)
    assert oc == [0.0] * 9 and gc[0] == pytest.approx(1e-6) and ac[4] == pytest.approx(1e-4)


def test_grouped_by_site_when_names_do_not_follow_the_convention():
    layout = group_sensors([
        sensor("a", 3, 0, objname="s1"), sensor("b", 1, 3, objname="s1"),
        sensor("c", 4, 6, objname="s2"), sensor("d", 5, 9, objname="s2"),
        sensor("e", 1, 12, objname="s3"),          # an accelerometer alone is still an IMU
        sensor("f", 4, 15, objname="s4"),          # a force alone is not a wrench
        sensor("q", 17, 18, 4, objtype=BODY, objname="torso"),  # framequat of a body: other
    ], KINDS)
    assert [(g.name, g.gyro and g.gyro.name, g.accel and g.accel.name) for g in layout.imus] == \
        [("s1", "a", "b"), ("s3", None, "e")]
    assert imu_covariances(layout.imus[1])[1][0] == -1.0  # no gyro: marked unknown (REP 145)
    assert [w.name for w in layout.wrenches] == ["s2"]
    assert [(o.name, o.kind) for o in layout.others] == [("f", "vector3"), ("q", "quaternion")]


def test_second_sensor_of_one_role_is_published_alone():
    layout = group_sensors([sensor("g1", 3, 0), sensor("g2", 3, 3)], KINDS)
    assert [g.gyro.name for g in layout.imus] == ["g1"]
    assert [o.name for o in layout.others] == ["g2"]


# -- commands --------------------------------------------------------------------------------------
def arm_map():
    joints = [
        cmds.JointInfo("j_pos", 0, 0, {cmds.POSITION: (0, 1.0)}),
        cmds.JointInfo("j_vel", 1, 1, {cmds.VELOCITY: (1, 2.0)}),
        cmds.JointInfo("j_mot", 2, 2, {cmds.MOTOR: (2, 4.0)}),
        cmds.JointInfo("j_free", 3, 3, {}),
    ]
    rng = np.array([[-1, 1], [-5, 5], [-2, 2], [0, 0]], dtype=float)
    return cmds.CommandMap(joints, 4, rng, np.array([1, 1, 1, 0]),
                           [cmds.POSITION, cmds.VELOCITY, cmds.MOTOR, cmds.GENERAL])


def test_classify_actuators():
    assert cmds.classify_actuator([50, 0, 0], [0, -50, -3]) == cmds.POSITION
    assert cmds.classify_actuator([7, 0, 0], [0, 0, -7]) == cmds.VELOCITY
    assert cmds.classify_actuator([1, 0, 0], [0, 0, 0]) == cmds.MOTOR
    assert cmds.classify_actuator([1, 2, 0], [0, 0, 0]) == cmds.GENERAL
    assert cmds.classify_actuator([3, 0, 0], [1, -3, 0]) == cmds.GENERAL


def test_joint_state_maps_fields_to_actuators_and_generalized_forces():
    cm = arm_map()
    c = cm.joint_state(["j_pos"], [0.5], [], [])
    assert c.ctrl_idx.tolist() == [0] and c.ctrl_val.tolist() == [0.5]
    c = cm.joint_state(["j_vel"], [], [1.0], [])
    assert c.ctrl_idx.tolist() == [1] and c.ctrl_val.tolist() == [2.0]  # gear 2
    c = cm.joint_state(["j_mot", "j_free", "j_pos"], [], [], [4.0, 3.0, 1.5])
    assert c.ctrl_idx.tolist() == [2] and c.ctrl_val.tolist() == [1.0]  # effort / gear
    assert c.dof_idx.tolist() == [3, 0] and c.dof_val.tolist() == [3.0, 1.5]
    c = cm.joint_state(["j_pos"], [3.0], [], [])
    assert c.ctrl_val.tolist() == [1.0] and c.clamped == 1


@pytest.mark.parametrize("names,pos,vel,eff,why", [
    (["nope"], [0.0], [], [], "unknown joint"),
    (["j_pos"], [math.nan], [], [], "not finite"),
    (["j_pos"], [0.1, 0.2], [], [], "entries"),
    (["j_pos", "j_pos"], [0.1, 0.2], [], [], "duplicate"),
    (["j_pos"], [], [1.0], [], "no velocity actuator"),
    (["j_free"], [0.1], [], [], "no position actuator"),
    ([], [], [], [], "no joint names"),
    (["j_pos"], [], [], [], "no position"),
])
def test_bad_joint_states_are_rejected_whole(names, pos, vel, eff, why):
    with pytest.raises(cmds.CommandError, match=why):
        arm_map().joint_state(names, pos, vel, eff)


def test_ctrl_array():
    cm = arm_map()
    c = cm.ctrl([2.0, 0.0, -9.0, 7.0])
    assert c.ctrl_val.tolist() == [1.0, 0.0, -2.0, 7.0] and c.clamped == 2
    with pytest.raises(cmds.CommandError, match="4 actuators"):
        cm.ctrl([0.0])
    with pytest.raises(cmds.CommandError, match="finite"):
        cm.ctrl([0.0, math.inf, 0.0, 0.0])


def test_trajectory_interpolation_and_validation():
    cm = arm_map()
    qpos = np.array([0.2, 0, 0, 0])
    tr = cmds.make_trajectory(cm, ["j_pos"], [([0.6], [], 1.0), ([0.0], [], 2.0)], 10.0, qpos)
    assert tr.sample(10.0)[0][0] == pytest.approx(0.2)     # starts where the joint is
    assert tr.sample(10.5)[0][0] == pytest.approx(0.4)
    assert tr.sample(11.5)[0][0] == pytest.approx(0.3)
    assert tr.sample(99.0)[0][0] == pytest.approx(0.0)     # holds the last point
    c = cmds.trajectory_command(cm, tr, 10.5)
    assert c.ctrl_idx.tolist() == [0] and c.ctrl_val[0] == pytest.approx(0.4)
    tr = cmds.make_trajectory(cm, ["j_pos"], [([0.0], [0.0], 0.0), ([1.0], [0.0], 1.0)], 0.0,
                              qpos)
    assert tr.sample(0.5)[0][0] == pytest.approx(0.5) and tr.sample(0.5)[1][0] == pytest.approx(1.5)
    assert cmds.make_trajectory(cm, ["j_pos"], [], 0.0, qpos) is None
    with pytest.raises(cmds.CommandError, match="increasing"):
        cmds.make_trajectory(cm, ["j_pos"], [([0.1], [], 1.0), ([0.2], [], 1.0)], 0.0, qpos)
    with pytest.raises(cmds.CommandError, match="position actuator"):
        cmds.make_trajectory(cm, ["j_vel"], [([0.1], [], 1.0)], 0.0, qpos)


def test_zero_command_holds_positions_and_zeroes_the_rest():
    c = arm_map().zero_command(np.array([0.3, 9, 9, 9]))
    assert dict(zip(c.ctrl_idx.tolist(), c.ctrl_val.tolist())) == {0: 0.3, 1: 0.0, 2: 0.0, 3: 0.0}


# -- clock -----------------------------------------------------------------------------------------
def test_sim_clock_never_goes_back():
    c = SimClock()
    assert c.now(1.0) == 1.0
    c.rebase(0.0)                 # reset: the engine restarts at 0
    assert c.now(0.0) == 1.0 and c.now(0.001) == pytest.approx(1.001)
    assert c.now(0.0) == pytest.approx(1.001)  # unannounced reset (divergence): held, not back
    assert c.now(0.002) == pytest.approx(1.003)
    assert to_stamp(1.5) == (1, 500_000_000) and to_stamp(2.0000000004) == (2, 0)


def test_pacer_schedule_and_overruns():
    now = [0.0]
    p = Pacer(speed=2.0, timestep=0.01, max_lag=0.1, clock=lambda: now[0])
    assert p.wait_time() == 0.0
    p.stepped()
    assert p.wait_time() == pytest.approx(0.005)   # 0.01 s of sim at speed 2
    now[0] = 0.005
    p.stepped()
    now[0] = 0.03                                  # late by 0.02 > one period: overrun
    p.stepped()
    assert p.overruns == 1
    now[0] = 1.0
    assert p.wait_time() == 0.0 and p.reanchors == 1  # far behind: re-anchor, no catch-up race
    assert Pacer(0.0, 0.001).wait_time() == 0.0
    with pytest.raises(ValueError):
        Pacer(-1.0, 0.001)


def test_rate_meter():
    now = [0.0]
    r = RateMeter(window=10, clock=lambda: now[0])
    for k in range(11):
        now[0] = k * 0.1
        r.add(k * 0.5)
    assert r.factor == pytest.approx(5.0)


def test_diagnostics_report():
    level, text, values = diag.report(diag.SimStats(new_divergences=2, divergence_resets=2))
    assert level == diag.WARN and "reset 2 times" in text
    assert dict(values)["divergence_resets"] == "2"


def test_solver_iterations_is_the_slowest_island():
    class D:
        solver_niter = np.array([3, 0, 7, 1] + [0] * 16, np.int32)
    assert diag.solver_iterations(D()) == 7
    D.solver_niter = np.zeros(20, np.int32)
    assert diag.solver_iterations(D()) == 0
    D.solver_niter = 5
    assert diag.solver_iterations(D()) == 5


def test_moving_poses_kernel_equals_quaternion_algebra():
    """FrameTable.moving_poses (one compiled loop) = relative(compose(parent, offset), child)
    computed with the module's array quaternion algebra, fused-link offsets included."""
    from mj_ros import frames as fr
    rng = np.random.default_rng(5)
    nbody, n = 7, 5
    xpos = rng.normal(size=(nbody, 3))
    xquat = rng.normal(size=(nbody, 4))
    xquat /= np.linalg.norm(xquat, axis=1, keepdims=True)
    off_q = rng.normal(size=(n, 4))
    off_q /= np.linalg.norm(off_q, axis=1, keepdims=True)
    off_q[0] = fr.IDENTITY_Q
    off_p = rng.normal(size=(n, 3))
    off_p[0] = 0.0
    parent, child = np.array([0, 1, 1, 3, 2]), np.array([1, 2, 3, 4, 6])
    t = fr.FrameTable("world", [], [f"c{k}" for k in range(n)], [f"p{k}" for k in range(n)],
                      child, parent, off_p, off_q, {}, [])
    pos, quat = t.moving_poses(xpos, xquat)
    pp, pq = fr.compose(xpos[parent], xquat[parent], off_p, off_q)
    want_p, want_q = fr.relative(pp, pq, xpos[child], xquat[child])
    np.testing.assert_allclose(pos, want_p, atol=1e-12)
    np.testing.assert_allclose(quat, want_q, atol=1e-12)
