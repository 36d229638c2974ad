"""Steps per second with the scene asleep vs awake, engine vs the official mujoco (seed 001
"Sleeping islands": the point of sleeping is the work it skips).

    .venv/bin/python bench/sleep.py [--bodies N] [--steps N]

Scene: a pile of N free boxes and spheres dropped on a plane, with sleep enabled. Each engine
steps it until every tree sleeps; then steps/s are timed asleep (nothing moves) and awake (the
same resting state with sleep disabled, so every tree is simulated). The ratio asleep/awake of
each engine is what sleeping buys; the engine's ratio is compared with mujoco's.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SLEEP_BIT = 1 << 4


def scene(n):
    """XML of n free bodies in a loose grid above a plane (each comes to rest on its own)."""
    bodies = []
    side = int(n ** 0.5 + 0.999)
    for i in range(n):
        x, y = (i % side) * 0.35, (i // side) * 0.35
        geom = ('<geom type="box" size=".1 .1 .1"/>' if i % 2 == 0
                else '<geom type="sphere" size=".1"/>')
        bodies.append(f'<body pos="{x:.3f} {y:.3f} {0.15 + 0.05 * (i % 3):.3f}"><freejoint/>'
                      f'{geom}</body>')
    return ('<mujoco><option><flag sleep="enable"/></option><worldbody>'
            '<geom type="plane" size="20 20 .1"/>' + "".join(bodies) + '</worldbody></mujoco>')


def rate(step, m, d, nstep):
    step(m, d)
    t0 = time.perf_counter()
    for _ in range(nstep):
        step(m, d)
    return nstep / (time.perf_counter() - t0)


def measure(lib, xml, nstep):
    m = lib.MjModel.from_xml_string(xml)
    d = lib.MjData(m)
    for k in range(20000):
        lib.mj_step(m, d)
        if d.ntree_awake == 0:
            break
    else:
        raise RuntimeError("the pile did not fall asleep")
    settle = d.time
    asleep = rate(lib.mj_step, m, d, nstep)
    assert d.ntree_awake == 0
    m.opt.enableflags &= ~SLEEP_BIT
    awake = rate(lib.mj_step, m, d, nstep)
    return settle, asleep, awake


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bodies", type=int, default=64)
    ap.add_argument("--steps", type=int, default=500)
    a = ap.parse_args()
    import mujoco
    import engine
    xml = scene(a.bodies)
    print(f"{a.bodies} free bodies on a plane, {a.steps} steps per measurement")
    print(f"{'':8s} {'asleep at':>10s} {'asleep/s':>10s} {'awake/s':>10s} {'ratio':>7s}")
    out = {}
    for name, lib in (("mujoco", mujoco), ("engine", engine)):
        settle, asleep, awake = measure(lib, xml, a.steps)
        out[name] = asleep / awake
        print(f"{name:8s} {settle:9.3f}s {asleep:10.0f} {awake:10.0f} {asleep / awake:7.2f}")
    print(f"engine ratio / mujoco ratio: {out['engine'] / out['mujoco']:.2f}")


if __name__ == "__main__":
    main()
