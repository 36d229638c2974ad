"""A lockstep test harness for the mj_ros simulator: command, wait for the batch, read the state.

Start the simulator in lockstep mode (10 steps of 1 ms per command), then this client:

    export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
    scripts/sim --ros-args -p lockstep:=true -p lockstep_steps:=10 &
    .venv/bin/python examples/lockstep_client.py --batches 100

The handshake (mj_ros/lockstep.py): the node publishes its state at start and to every new
/joint_states subscriber while it waits; each command message is one batch of lockstep_steps
steps, after which the node publishes the state of the batch's last step and then
~/lockstep_done (std_msgs/UInt64, the engine steps taken since start). This client drives the
default robot's shoulder_pan_joint along a sine, one command per batch, and prints the joint's
position at the end of each batch.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")

import rclpy  # noqa: E402
from rclpy.qos import QoSProfile, ReliabilityPolicy  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import UInt64  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--node", default="/mj_ros_sim", help="the simulator node's name")
    ap.add_argument("--joint", default="shoulder_pan_joint")
    ap.add_argument("--batches", type=int, default=100)
    ap.add_argument("--timeout", type=float, default=60.0, help="s to wait for the simulator")
    ap.add_argument("--quiet", action="store_true", help="print only the summary")
    a = ap.parse_args(argv)

    rclpy.init()
    node = rclpy.create_node("lockstep_client")
    state: list[JointState] = []
    done: list[int] = []
    reliable = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)
    node.create_subscription(JointState, "/joint_states", state.append, reliable)
    node.create_subscription(UInt64, a.node + "/lockstep_done", lambda m: done.append(m.data),
                             reliable)
    pub = node.create_publisher(JointState, a.node + "/joint_commands", reliable)

    def wait(predicate, what: str) -> None:
        end = time.monotonic() + a.timeout
        while not predicate():
            if time.monotonic() > end:
                raise TimeoutError(f"no {what} within {a.timeout:g} s")
            rclpy.spin_once(node, timeout_sec=0.05)

    try:
        # 1. the state at start (the node sends it to a subscriber that matches while it waits)
        wait(lambda: state, "/joint_states (is the simulator running with lockstep:=true?)")
        wait(lambda: pub.get_subscription_count() > 0, "command subscriber")
        if a.joint not in state[-1].name:
            raise KeyError(f"joint {a.joint!r} is not in /joint_states: {list(state[-1].name)}")
        k = list(state[-1].name).index(a.joint)
        t0 = time.perf_counter()
        for i in range(a.batches):
            # 2. one command, one batch
            n = len(done)
            pub.publish(JointState(name=[a.joint], position=[0.5 * math.sin(0.05 * i)]))
            # 3. the batch-done signal; the state of its last step arrived just before it
            wait(lambda: len(done) > n, f"{a.node}/lockstep_done")
            msg = state[-1]
            if not a.quiet:
                t = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9
                print(f"batch {i}: steps {done[-1]}, sim time {t:.3f} s, "
                      f"{a.joint} {msg.position[k]:+.4f}")
        wall = time.perf_counter() - t0
        print(f"{a.batches} batches in {wall:.2f} s ({a.batches / wall:.0f} batches/s), "
              f"{done[-1] if done else 0} steps in all")
    except (TimeoutError, KeyError) as e:
        sys.stderr.write(f"lockstep_client: {e}\n")
        return 1
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
