"""Offline replay speed: a 60 s bag (a 50 Hz PoseStamped circle) replayed at 1 kHz physics into a
mocap target added to the default robot (urdf/mj_arm.urdf has no mocap body of its own, so one is
added through the engine's spec), with the robot's contacts, joint limits and equalities on.

    .venv/bin/python bench/replay.py [--seconds 60] [--rate 100]
"""
from __future__ import annotations

import argparse
import os
import pathlib
import sys
import tempfile
import time

os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "test" / "ros")]

import bagtools as bt  # noqa: E402
import engine  # noqa: E402
from engine.compiler import compile_spec, parse_file  # noqa: E402
from engine.spec import Body  # noqa: E402
from mj_ros import replay  # noqa: E402


def arm_with_target():
    spec = parse_file(str(ROOT / "urdf" / "mj_arm.urdf"))
    base = spec.worldbody.bodies[0]
    target = Body(attrs=dict(base.attrs), file=base.file, line=base.line)
    target.set("name", "target")
    target.set("mocap", True)
    target.set("pos", (0.2, 0.4, 0.6))
    spec.worldbody.add(target)
    return compile_spec(spec)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--rate", type=float, default=100.0, help="output Hz (0 = every step)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        bag = bt.write_bag(tmp / "in", duration=a.seconds, tf_rate=1.0)
        mp = bt.write_map(tmp / "map.yaml", text="bodies:\n  target:\n    topic: /target_pose\n")
        m = arm_with_target()
        engine.mj_step(m, engine.MjData(m))  # load the kernels first
        t = time.perf_counter()
        r = replay.Replay(bag, m, mp, tmp / "out", a.rate, log=lambda s: None)
        s = r.run()
        wall = time.perf_counter() - t
        print(replay.format_summary(s))
        print(f"default robot + mocap target, {a.seconds:g} s bag, output {a.rate:g} Hz: "
              f"{wall:.2f} s wall ({s['duration_s'] / wall:.1f}x real time), "
              f"{s['output_messages']} messages written")


if __name__ == "__main__":
    main()
