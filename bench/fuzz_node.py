"""The node under fuzzed messages, the long run (issue 25, point 6; the fast subset is
test/ros/test_message_fuzz.py). Not a test: prints what happened.

    python bench/fuzz_node.py [--per-input 2000] [--seed 25] [--rounds 5] [--model PATH]

Starts the simulator (default robot unless --model) at speed 1, finds every input in the graph
(topics it subscribes to, its services except the parameter ones, its action servers: see
test/ros/msgfuzz.py), and sends --per-input fuzzed messages to each, --rounds times with
successive seeds. After every round: the node must be alive and have answered every request,
/clock must not have gone backwards, and a valid command must still move a joint. Prints per
round the counts and the node's warnings by kind; exits 1 on the first failure.
ROS_AUTOMATIC_DISCOVERY_RANGE is forced to LOCALHOST.
"""
from __future__ import annotations

import argparse
import collections
import importlib.util
import math
import os
import pathlib
import re
import sys
import tempfile
import time

os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
os.environ.setdefault("MJ_ROS_BENCH_DOMAIN", "13")  # its own ROS domain (bench/node.py)
HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "test" / "ros"))
_spec = importlib.util.spec_from_file_location("bench_node", HERE / "node.py")
bench_node = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_node)

import msgfuzz  # noqa: E402
from rosgraph_msgs.msg import Clock  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_srvs.srv import SetBool, Trigger  # noqa: E402

NODE = "/mj_ros_sim"


def call(probe, srv, name, req, timeout=60.0):
    client = probe.node.create_client(srv, name)
    probe.wait(client.service_is_ready, timeout, name)
    f = client.call_async(req)
    probe.wait(f.done, timeout, f"reply of {name}")
    probe.node.destroy_client(client)
    return f.result()


def warnings_by_kind(log_path: str) -> collections.Counter:
    """The node's WARN/ERROR lines, numbers and quoted names blanked so that kinds count."""
    kinds = collections.Counter()
    for line in pathlib.Path(log_path).read_text(errors="replace").splitlines():
        if "[WARN]" in line or "[ERROR]" in line:
            text = line.split("]: ", 1)[-1]
            text = re.sub(r"'[^']*'", "'…'", text)
            text = re.sub(r"[-+]?\d[\d.e+-]*", "#", text)
            kinds[text[:110]] += 1
    return kinds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-input", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=25)
    ap.add_argument("--model", default="")
    a = ap.parse_args()
    params = {"speed": 1.0}
    if a.model:
        params["model"] = a.model
    log = tempfile.NamedTemporaryFile("w", prefix="mj_ros_fuzz_", suffix=".log", delete=False)
    proc = bench_node.start_sim(params, log)
    probe = bench_node.Probe()
    stamps, js = [], []
    probe.node.create_subscription(Clock, "/clock", lambda m: stamps.append(
        m.clock.sec + m.clock.nanosec * 1e-9), 1000)
    probe.node.create_subscription(JointState, "/joint_states", lambda m: js.append(m), 10)
    ok = True
    try:
        probe.wait(lambda: js, 300, "/joint_states")
        joints = list(js[-1].name)
        inputs = msgfuzz.node_inputs(probe.node, NODE.lstrip("/"))
        print(f"node log {log.name}")
        print("inputs: " + ", ".join(n for group in inputs for n, _ in group))
        jpub = probe.node.create_publisher(JointState, NODE + "/joint_commands", 10)
        for r in range(a.rounds):
            t0 = time.monotonic()
            fuzzer = msgfuzz.Fuzzer(seed=a.seed + r, names=joints + ["world", "mj_arm"])
            st = msgfuzz.run(probe.node, lambda t: probe.ex.spin_once(timeout_sec=t), fuzzer,
                             inputs, a.per_input, alive=lambda: proc.poll() is None)
            alive = proc.poll() is None
            drops = [(i, x, b) for i, (x, b) in enumerate(zip(stamps, stamps[1:])) if b < x]
            back = len(drops)
            if drops:
                print(f"  /clock backwards, first: {drops[:3]} of {len(stamps)} stamps")
            moved = False
            if alive:
                call(probe, SetBool, NODE + "/pause", SetBool.Request(data=False))
                call(probe, Trigger, NODE + "/reset", Trigger.Request())
                target = 0.3 if r % 2 else -0.3
                end = time.monotonic() + 60
                while time.monotonic() < end and not moved:
                    jpub.publish(JointState(name=[joints[0]], position=[target]))
                    probe.ex.spin_once(timeout_sec=0.05)
                    m = js[-1]
                    q = m.position[list(m.name).index(joints[0])]
                    moved = all(math.isfinite(v) for v in m.position) and abs(q - target) < 0.05
            print(f"round {r} (seed {a.seed + r}, {time.monotonic() - t0:.0f} s): "
                  f"{st['published']} published, {st['requests']} requests / {st['replies']} "
                  f"replies, {st['goals']} goals / {st['goal_responses']} responses; alive "
                  f"{alive}, unanswered {st['unanswered_by_input'] or 0}, /clock backwards "
                  f"{back}, commandable after {moved}", flush=True)
            if not (alive and st["unanswered"] == 0 and back == 0 and moved):
                ok = False
                break
    finally:
        probe.close()
        bench_node.stop_sim(proc)
        log.close()
    text = pathlib.Path(log.name).read_text(errors="replace")
    print(f"tracebacks in the node's output: {text.count('Traceback')}")
    print("the node's warnings by kind (count, text with numbers and names blanked):")
    for kind, n in warnings_by_kind(log.name).most_common(40):
        print(f"  {n:7d}  {kind}")
    return 0 if ok and "Traceback" not in text else 1


if __name__ == "__main__":
    sys.exit(main())
