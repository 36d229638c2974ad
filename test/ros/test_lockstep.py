"""Lockstep a test harness can drive (issue 20.3): the state at start without a command, one batch
and one ~/lockstep_done per command, no command dropped without a warning, the example client."""
from __future__ import annotations

import subprocess
import sys

import pytest
import rclpy  # noqa: F401  (required: CI installs ROS 2 through scripts/setup)
from diagnostic_msgs.msg import DiagnosticArray
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import UInt64

from conftest import REPO, START_TIMEOUT, needs_stepping, ros_env

pytestmark = [pytest.mark.ros, needs_stepping]

NODE = "/mj_ros_sim"
DT = 0.001
RELIABLE = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)


def stamp(msg) -> float:
    s = msg.clock if isinstance(msg, Clock) else msg.header.stamp
    return s.sec + s.nanosec * 1e-9


def test_state_at_start_then_one_batch_per_command(sim, probe):
    steps, n = 4, 300
    s = sim(lockstep=True, lockstep_steps=steps)
    done = probe.subscribe(UInt64, NODE + "/lockstep_done")
    pub = probe.node.create_publisher(JointState, NODE + "/joint_commands", RELIABLE)
    probe.wait(lambda: pub.get_subscription_count() > 0, START_TIMEOUT, "command subscriber", s)
    probe.spin_for(1.0)
    # a subscriber that comes after the node started still gets the state, with no command
    js = probe.subscribe(JointState, "/joint_states", depth=10000)
    first = probe.wait(lambda: js and js[0][1], 30, "the state at start", s)
    t0 = stamp(first)
    assert not done

    # a burst of n commands: n batches, in order, each ending with its state then lockstep_done
    for k in range(n):
        pub.publish(JointState(name=["shoulder_pan_joint"], position=[0.001 * k]))
    probe.wait(lambda: len(done) >= n, 120, f"{n} lockstep_done", s)
    probe.spin_for(0.5)
    counts = [m.data for _, m in done]
    assert counts == [steps * (k + 1) for k in range(n)]
    # joint_states at its rate (every step by default): each step's state once, none twice
    stamps = [round(stamp(m) / DT) for _, m in js[1:]]
    assert stamps == [round(t0 / DT) + k + 1 for k in range(steps * n)]
    # the state of each batch's last step went out before its done signal
    ends = {round(stamp(m) / DT): when for when, m in js}
    for k in range(n):
        assert ends[round(t0 / DT) + steps * (k + 1)] <= done[k][0]
    assert "lockstep:" not in s.output()  # nothing rejected or lost


def test_flood_gives_batches_or_warnings_and_example_client(sim, probe, domain_id):
    n = 300
    s = sim(lockstep=True, lockstep_steps=1, diagnostics_rate=10.0)
    done = probe.subscribe(UInt64, NODE + "/lockstep_done")
    diag = probe.subscribe(DiagnosticArray, "/diagnostics", depth=100)
    shallow = QoSProfile(depth=5, reliability=ReliabilityPolicy.RELIABLE)
    pub = probe.node.create_publisher(JointState, NODE + "/joint_commands", shallow)
    probe.wait(lambda: pub.get_subscription_count() > 0, START_TIMEOUT, "command subscriber", s)
    probe.spin_for(0.5)
    for k in range(n):  # a publisher queue of 5: the transport may drop some of these
        pub.publish(JointState(name=["elbow_joint"], position=[0.001 * k]))

    def dropped():
        for _, m in reversed(diag):
            values = {kv.key: kv.value for kv in m.status[0].values}
            return int(values["dropped_commands"])
        return None
    probe.wait(lambda: dropped() is not None and len(done) + dropped() >= n, 120,
               "every command batched or reported", s)
    probe.spin_for(1.0)
    assert len(done) + dropped() == n
    if dropped():
        assert "lockstep:" in s.output()  # and warned about
    print(f"flood of {n} through a queue of 5: {len(done)} batches, {dropped()} reported lost")

    # the README's example client drives the same node
    r = subprocess.run([sys.executable, str(REPO / "examples" / "lockstep_client.py"),
                        "--batches", "20", "--quiet", "--timeout", "30"], env=ros_env(domain_id),
                       capture_output=True, text=True, timeout=90)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("20 batches in ")
    assert s.alive() and "Traceback" not in s.output()
