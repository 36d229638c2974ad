"""Per-stage time of engine vs the official mujoco, in the same process, on MuJoCo's humanoid
models of growing size (issue 18: where the time goes as the model grows).

    .venv/bin/python bench/stages.py [--steps N] [--models humanoid.xml,22_humanoids.xml,...]

For each model: both engines are stepped 200 times from qpos0 (so contacts exist), then each
public stage function is called N times in a Python loop on that state (each call from Python:
what a user of the stage functions pays, call overhead included; the best of 3 loops, as the
machine is shared), then mj_forward and last mj_step N times; the table
gives us per call for both and the ratio mujoco/engine (1.0: as fast as mujoco).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
HUMANOID = ROOT.parent / "shared" / "models" / "mujoco" / "model" / "humanoid"
MODELS = ["humanoid.xml", "22_humanoids.xml", "humanoid100.xml", "100_humanoids.xml"]
# the stages first, at the state the burn-in left (they do not advance it), then mj_forward and
# mj_step (which does)
STAGES = ["mj_fwdPosition", "mj_kinematics", "mj_comPos", "mj_crb", "mj_factorM", "mj_collision",
          "mj_makeConstraint", "mj_fwdVelocity", "mj_rne", "mj_fwdAcceleration",
          "mj_fwdConstraint", "mj_forward", "mj_step"]


def per_call(f, args, n):
    """Microseconds per call of f(*args), the best of 3 loops of n calls."""
    f(*args)
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(n):
            f(*args)
        best = min(best, time.perf_counter() - t)
    return best / n * 1e6


def bench(path, n):
    import mujoco
    import engine
    mjm = mujoco.MjModel.from_xml_path(str(path))
    mjd = mujoco.MjData(mjm)
    m = engine.MjModel.from_xml_path(str(path))
    d = engine.MjData(m)
    for _ in range(200):
        mujoco.mj_step(mjm, mjd)
        engine.mj_step(m, d)
    mujoco.mj_forward(mjm, mjd)
    engine.mj_forward(m, d)
    print(f"\n{path.name}: nv={m.nv} nbody={m.nbody} ncon={d.ncon}/{mjd.ncon} "
          f"nefc={d.nefc}/{mjd.nefc} (engine/mujoco)")
    print(f"{'stage':22s} {'mujoco us':>10s} {'engine us':>10s} {'ratio':>7s}")
    for name in STAGES:
        fm, fe = getattr(mujoco, name), getattr(engine, name, None)
        if fe is None:
            continue
        if name == "mj_rne":
            tm = per_call(fm, (mjm, mjd, 0, np.zeros(mjm.nv)), n)
            te = per_call(fe, (m, d, 0, np.zeros(m.nv)), n)
        else:
            tm = per_call(fm, (mjm, mjd), n)
            te = per_call(fe, (m, d), n)
        print(f"{name:22s} {tm:10.1f} {te:10.1f} {tm / te:7.2f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--models", default=",".join(MODELS))
    a = ap.parse_args()
    for name in a.models.split(","):
        bench(HUMANOID / name, a.steps)


if __name__ == "__main__":
    main()
