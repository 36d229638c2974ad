"""Soak run of the node (not a test): hours of simulation at full speed with every stream
subscribed, reporting memory, /clock and step-time drift. Issue 25, point 6.

    python bench/soak.py [--minutes 60] [--window 60] [--model PATH]

The simulator runs as `python -m mj_ros.sim_node` in a subprocess at speed 0 (as fast as it
can), every stream published every step (clock, joint_states, IMU, wrench, sensors, odometry;
/tf at tf_rate, markers, diagnostics at 1 Hz) with the default max_publish_rate; a probe process
subscribes to every topic the node publishes (raw bytes, so that receiving costs it no
deserialization). Per window of wall time it prints:

- rss_mb: the simulator's resident set (VmRSS of its process), MiB;
- steps/s and us/step: from the step count on /diagnostics (wall time per step, publishing
  included); cpu us/step: the simulator process's CPU time (user + system, all threads) per
  step, which other work on the machine changes much less than the wall time;
- rtf: sim seconds per wall second, from /clock stamps received;
- msgs/s: messages received on all other topics;
- load: the machine's 1-minute load average (other work on the same cores shows here).

At the end: RSS growth after the first two windows (the warm-up allocates caches), step-time
drift (mean wall and CPU us/step of the last quarter of the windows over the first quarter), /clock stamps
that went backwards (must be 0) and the longest wall-time gap between two /clock messages.
ROS_AUTOMATIC_DISCOVERY_RANGE is forced to LOCALHOST.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import pathlib
import sys
import tempfile
import time

os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
os.environ.setdefault("MJ_ROS_BENCH_DOMAIN", "12")  # its own ROS domain (bench/node.py)

_spec = importlib.util.spec_from_file_location(
    "bench_node", pathlib.Path(__file__).resolve().parent / "node.py")
bench_node = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_node)

from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
from rosgraph_msgs.msg import Clock  # noqa: E402


def rss_mib(pid: int) -> float:
    """Resident set of process ``pid`` in MiB (Linux /proc), NaN once it has exited."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return float("nan")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` and its threads, seconds (Linux /proc)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def soak(model: str, minutes: float, window: float, log) -> tuple[list[dict], dict, bool]:
    params = dict(speed=0.0, clock_rate=0.0, joint_states_rate=0.0, imu_rate=0.0,
                  wrench_rate=0.0, sensor_rate=0.0, odometry_rate=0.0, diagnostics_rate=1.0)
    if model:
        params["model"] = model
    proc = bench_node.start_sim(params, log)
    probe = bench_node.Probe()
    state = {"last_clock": None, "backwards": 0, "clocks": 0, "gap": 0.0, "t_clock": None,
             "others": 0, "diag": None}

    def on_clock(b):
        now, s = time.monotonic(), bench_node.raw_stamp(b)
        if state["last_clock"] is not None and s < state["last_clock"]:
            state["backwards"] += 1
        if state["t_clock"] is not None:
            state["gap"] = max(state["gap"], now - state["t_clock"])
        state["last_clock"], state["t_clock"] = s, now
        state["clocks"] += 1

    def on_diag(msg):
        for status in msg.status:
            v = {kv.key: kv.value for kv in status.values}
            if "sim_time" in v and "steps" in v:
                state["diag"] = (float(v["sim_time"]), int(v["steps"]))

    def on_other(_b):
        state["others"] += 1

    probe.node.create_subscription(Clock, "/clock", on_clock, 100, raw=True)
    probe.node.create_subscription(DiagnosticArray, "/diagnostics", on_diag, 10)
    rows = []
    try:
        probe.wait(lambda: state["clocks"] > 100 and state["diag"], 300, "/clock, /diagnostics")
        known = {"/clock", "/diagnostics", "/rosout", "/parameter_events"}
        for name, cls in bench_node.published_topics(probe.node, known):
            probe.node.create_subscription(cls, name, on_other, 100, raw=True)
        state["gap"] = 0.0  # start-up and discovery pauses do not count
        t_end = time.monotonic() + minutes * 60.0
        w0 = time.monotonic()
        sim0, steps0 = state["diag"]
        clock0, others0 = state["last_clock"], state["others"]
        cpu0 = cpu_seconds(proc.pid)
        while time.monotonic() < t_end and proc.poll() is None:
            end = min(t_end, w0 + window)
            while time.monotonic() < end:
                probe.ex.spin_once(timeout_sec=0.05)
            w1 = time.monotonic()
            sim1, steps1 = state["diag"]
            dt = w1 - w0
            n = steps1 - steps0
            cpu1 = cpu_seconds(proc.pid)
            rows.append({"t_min": (w1 - (t_end - minutes * 60.0)) / 60.0,
                         "rss_mb": rss_mib(proc.pid), "steps_s": n / dt,
                         "us_step": dt / n * 1e6 if n else float("inf"),
                         "cpu_us_step": (cpu1 - cpu0) / n * 1e6 if n else float("inf"),
                         "rtf": (state["last_clock"] - clock0) / dt,
                         "msgs_s": (state["others"] - others0) / dt,
                         "load": os.getloadavg()[0]})
            r = rows[-1]
            print(f"| {r['t_min']:6.1f} | {r['rss_mb']:7.1f} | {r['steps_s']:8.0f} | "
                  f"{r['us_step']:7.1f} | {r['cpu_us_step']:7.1f} | {r['rtf']:5.2f} | {r['msgs_s']:8.0f} | "
                  f"{r['load']:4.1f} |", flush=True)
            w0, steps0, clock0, others0 = w1, steps1, state["last_clock"], state["others"]
            cpu0 = cpu1
        alive = proc.poll() is None
    finally:
        probe.close()
        bench_node.stop_sim(proc)
    return rows, state, alive


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="", help="model file (default: the node's default robot)")
    ap.add_argument("--minutes", type=float, default=60.0, help="length of the soak (wall)")
    ap.add_argument("--window", type=float, default=60.0, help="seconds per reported window")
    a = ap.parse_args()
    with tempfile.NamedTemporaryFile("w", prefix="mj_ros_soak_", suffix=".log",
                                     delete=False) as log:
        print(f"soak: {a.minutes:g} min, speed 0, every stream every step, all topics "
              f"subscribed; node log {log.name}")
        print("| t (min) | rss (MiB) | steps/s | us/step | cpu us/step | rtf | msgs/s | load |")
        print("|---|---|---|---|---|---|---|---|")
        rows, state, alive = soak(a.model, a.minutes, a.window, log)
    if not rows:
        print("soak: no complete window")
        return 1
    steady = rows[2:] if len(rows) > 4 else rows
    q = max(1, len(rows) // 4)
    first = sum(r["us_step"] for r in rows[:q]) / q
    last = sum(r["us_step"] for r in rows[-q:]) / q
    cfirst = sum(r["cpu_us_step"] for r in rows[:q]) / q
    clast = sum(r["cpu_us_step"] for r in rows[-q:]) / q
    print(f"node alive at the end: {alive}")
    print(f"RSS: {steady[0]['rss_mb']:.1f} -> {rows[-1]['rss_mb']:.1f} MiB after warm-up "
          f"({rows[-1]['rss_mb'] - steady[0]['rss_mb']:+.1f} MiB), peak "
          f"{max(r['rss_mb'] for r in rows):.1f}")
    print(f"wall time per step: first quarter {first:.1f} us, last quarter {last:.1f} us "
          f"(drift {last / first - 1:+.1%}); load average {rows[0]['load']:.1f} -> "
          f"{rows[-1]['load']:.1f}")
    print(f"CPU time per step (the simulator's process; less sensitive to other load): first "
          f"quarter {cfirst:.1f} us, last quarter {clast:.1f} us (drift {clast / cfirst - 1:+.1%})")
    print(f"/clock: {state['clocks']} received, {state['backwards']} backwards, longest gap "
          f"{state['gap'] * 1e3:.0f} ms")
    return 0 if alive and state["backwards"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
