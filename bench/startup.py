"""Start-up time of the simulator, warm (not a test): launch to the first /clock. Prints a table.

    .venv/bin/python bench/startup.py [--runs 7] [--only sim|node]

Commands, on the default robot with default parameters, run alternately:
- `scripts/sim`: what a user types (bash, the venv's setup check, then the node);
- `python -m mj_ros.sim_node`: the node alone.
Both run from this checkout. Before each run a fresh probe node (own rclpy Context, domain
MJ_ROS_BENCH_DOMAIN, default 14) subscribes to /clock; then the command starts and the probe
waits for its first /clock. Two figures per run, in seconds after the launch:
- received: when the probe got its first /clock, i.e. what a subscriber waiting for the
  simulator sees. It includes DDS discovery: measured here (Fast DDS, LOCALHOST), a subscriber
  often learns of the new node only at its own next participant announcement (one every 3 s),
  and the node's /clock messages published before that are lost;
- published: received minus that message's sim time. At speed 1 sim time follows wall time from
  the first publication (sim time 0), so this is when the node published its first /clock (a
  little late if the node falls behind real time meanwhile).
Median, min and max over the runs. The kernels must be in numba's cache for a warm start: the
bench runs engine.warmup.ensure() first (on a cold machine that compiles them, minutes).
ROS_AUTOMATIC_DISCOVERY_RANGE is forced to LOCALHOST.
"""
from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import rclpy  # noqa: E402
from rclpy.experimental import EventsExecutor  # noqa: E402
from rosgraph_msgs.msg import Clock  # noqa: E402

DOMAIN = int(os.environ.get("MJ_ROS_BENCH_DOMAIN", "14"))
TIMEOUT = 120.0  # s to wait for the first /clock of one run
COMMANDS = {
    "sim": ("scripts/sim", ["bash", str(ROOT / "scripts" / "sim")]),
    "node": ("python -m mj_ros.sim_node", [sys.executable, "-m", "mj_ros.sim_node"]),
}


def first_clock(cmd: list[str], log) -> tuple[float, float]:
    """Launch `cmd` (cwd: this checkout, so `-m mj_ros.sim_node` imports it) and return (s from
    the launch to the first /clock received, that message's sim time in s)."""
    ctx = rclpy.Context()
    rclpy.init(context=ctx, domain_id=DOMAIN)
    node = rclpy.create_node("startup_probe", context=ctx)
    ex = EventsExecutor(context=ctx)
    ex.add_node(node)
    got: list[tuple[float, float]] = []
    node.create_subscription(
        Clock, "/clock",
        lambda m: got.append((time.perf_counter(), m.clock.sec + m.clock.nanosec * 1e-9)), 10)
    env = dict(os.environ, ROS_DOMAIN_ID=str(DOMAIN))
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        while not got and time.perf_counter() - t0 < TIMEOUT and proc.poll() is None:
            ex.spin_once(timeout_sec=0.01)
        if not got:
            raise SystemExit(f"bench: no /clock from {' '.join(cmd)} (log {log.name})")
        return got[0][0] - t0, got[0][1]
    finally:
        _stop(proc)
        ex.shutdown()
        node.destroy_node()
        rclpy.try_shutdown(context=ctx)


def _stop(proc: subprocess.Popen) -> None:
    """SIGINT to the command's process group (bash and the node), SIGKILL if it hangs."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)


def _spread(xs: list[float]) -> str:
    return f"{statistics.median(xs):.2f} s ({min(xs):.2f}-{max(xs):.2f})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7, help="runs per command")
    ap.add_argument("--only", choices=sorted(COMMANDS), help="one command only")
    a = ap.parse_args()
    from engine import warmup
    warmup.ensure()
    keys = [a.only] if a.only else list(COMMANDS)
    results: dict[str, list[tuple[float, float]]] = {k: [] for k in keys}
    with tempfile.NamedTemporaryFile("w", prefix="mj_ros_startup_", suffix=".log",
                                     delete=False) as log:
        for _ in range(a.runs):
            for k in keys:  # alternately, so that a change in the machine's load hits both
                results[k].append(first_clock(COMMANDS[k][1], log))
    print(f"checkout {ROOT}; default robot, warm; {a.runs} runs each; log {log.name}")
    print("| command | first /clock received | first /clock published | runs: received "
          "(sim time of that message) |")
    print("|---|---|---|---|")
    for k in keys:
        rec = [r for r, _ in results[k]]
        pub = [r - s for r, s in results[k]]
        runs = ", ".join(f"{r:.2f} ({s:.2f})" for r, s in results[k])
        print(f"| {COMMANDS[k][0]} | {_spread(rec)} | {_spread(pub)} | {runs} |")
    print("(median (min-max), s after the launch; published = received - sim time, see the "
          "docstring)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
