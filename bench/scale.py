"""How the cost of a step grows with the model: engine vs the official mujoco in the same run
(not a test). Issue 18's measurement.

    .venv/bin/python bench/scale.py [--families big,copies,chain,tree] [--max-n 5000]
                                    [--seconds 0.5] [--integrator implicit|implicitfast|...]

Families (every model compiled by each program from the same MJCF text or file):
- big: MuJoCo's own large models (../shared/models/mujoco: humanoid, 22_humanoids, humanoid100,
  100_humanoids, sleep/smooth.xml with its implicit integrator and with implicitfast).
- copies: N = 1, 4, 16, 64 copies of MuJoCo's humanoid on a grid over one floor, made with
  mujoco's MjSpec attach (model text written once by mujoco.MjSpec.to_xml, then compiled by both).
- chain: one serial chain of N hinged capsules hanging from the world (N = 10 .. 450: the inertia
  of a chain is dense, so its factorisation costs up to N^3 in both programs; MJCF nesting ends
  at 496 bodies in mujoco's XML reader).
- tree: a binary tree of N hinged capsules (N = 10 .. --max-n, default 5000), contacts off: the
  inertia is sparse, cost should grow about linearly with nv.
--integrator sets <option integrator> of every model (both programs), e.g. to measure the
implicit integrators on every family; the big family's two sleep/smooth rows then collapse to one.
For each model: microseconds per mj_step from a Python loop (best of three runs of at least
--seconds each, after a warm-up), the ratio mujoco/engine (>= 1 means the engine is faster), and
per family the exponent b of a least-squares fit time ~ nv^b for both programs. Targets (issue
18): ratio >= 0.5 on every model, the engine's exponent within 0.1 of mujoco's.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SHARED = Path(os.environ.get("MJ_ROS_SHARED_MODELS", ROOT.parent / "shared" / "models"))
MJ = SHARED / "mujoco"

BIG = [
    ("humanoid", MJ / "model/humanoid/humanoid.xml", None),
    ("22_humanoids", MJ / "model/humanoid/22_humanoids.xml", None),
    ("humanoid100", MJ / "model/humanoid/humanoid100.xml", None),
    ("100_humanoids", MJ / "model/humanoid/100_humanoids.xml", None),
    ("sleep/smooth (implicit)", MJ / "test/engine/testdata/sleep/smooth.xml", None),
    ("sleep/smooth (implicitfast)", MJ / "test/engine/testdata/sleep/smooth.xml", "implicitfast"),
]


def copies_xml(n: int) -> str:
    """MJCF text of n humanoids (MuJoCo's model/humanoid/humanoid.xml) 2 m apart on a square grid
    over one floor, attached with prefixes by mujoco's MjSpec (the bench may use the oracle to
    build inputs; both programs then compile the same text)."""
    import mujoco
    src = (MJ / "model/humanoid/humanoid.xml").read_text()
    spec = mujoco.MjSpec()
    spec.worldbody.add_geom(type=mujoco.mjtGeom.mjGEOM_PLANE, size=[0, 0, 0.05])
    spec.worldbody.add_light(pos=[0, 0, 10], dir=[0, 0, -1],
                            type=mujoco.mjtLightType.mjLIGHT_DIRECTIONAL)
    side = math.ceil(math.sqrt(n))
    for i in range(n):
        child = mujoco.MjSpec.from_string(src)
        torso = child.worldbody.first_body()
        for key in list(child.keys):  # keyframes of 1 copy do not fit n copies
            child.delete(key)
        frame = spec.worldbody.add_frame(pos=[2.0 * (i % side), 2.0 * (i // side), 0])
        frame.attach_body(torso, f"h{i}_", "")
    spec.option.timestep = 0.005
    return spec.to_xml()


def chain_xml(n: int) -> str:
    """A serial chain of n capsules 0.1 m long, each on a hinge whose axis alternates x / y,
    hanging from the world; no contacts (contype 0)."""
    body = ""
    for i in reversed(range(n)):
        axis = "1 0 0" if i % 2 else "0 1 0"
        pos = "0 0 -0.1" if i else f"0 0 {0.1 * n + 1:g}"
        body = (f'<body pos="{pos}"><joint type="hinge" axis="{axis}" damping="0.01"/>'
                f'<geom type="capsule" size="0.02" fromto="0 0 0 0 0 -0.1" contype="0" '
                f'conaffinity="0" mass="0.1"/>{body}</body>')
    return f'<mujoco><option timestep="0.002"/><worldbody>{body}</worldbody></mujoco>'


def tree_xml(n: int) -> str:
    """A binary tree of n capsules (body k's children are 2k+1 and 2k+2), each on a hinge with
    alternating axes, hanging from the world; no contacts (contype 0)."""
    def sub(k: int) -> str:
        if k >= n:
            return ""
        axis = "1 0 0" if k % 2 else "0 1 0"
        off = "0.05 0 -0.1" if k % 2 else "-0.05 0 -0.1"
        return (f'<body pos="{off if k else "0 0 0"}"><joint type="hinge" axis="{axis}" '
                f'damping="0.01"/><geom type="capsule" size="0.02" fromto="0 0 0 0 0 -0.1" '
                f'contype="0" conaffinity="0" mass="0.1"/>{sub(2 * k + 1)}{sub(2 * k + 2)}'
                f'</body>')
    sys.setrecursionlimit(max(10000, sys.getrecursionlimit()))
    return (f'<mujoco><option timestep="0.002"/><worldbody><frame pos="0 0 20">{sub(0)}</frame>'
            f'</worldbody></mujoco>')


def per_step_us(step, seconds: float) -> float:
    """Best of three: microseconds per call of step() over runs of at least `seconds`."""
    step()
    t = time.perf_counter()
    n = 0
    while time.perf_counter() - t < 0.05 or n < 2:
        step()
        n += 1
    per = (time.perf_counter() - t) / n
    calls = max(2, int(seconds / max(per, 1e-7)))
    best = math.inf
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(calls):
            step()
        best = min(best, (time.perf_counter() - t) / calls)
    return best * 1e6


def measure(name: str, xml: str | None, path: Path | None, integrator: str | None,
            seconds: float) -> dict:
    import mujoco
    import engine
    if path is not None:
        mjm = mujoco.MjModel.from_xml_path(str(path))
        m = engine.MjModel.from_xml_path(str(path))
    else:
        mjm = mujoco.MjModel.from_xml_string(xml)
        m = engine.MjModel.from_xml_string(xml)
    if integrator:
        code = int(getattr(mujoco.mjtIntegrator, "mjINT_" + integrator.upper()))
        mjm.opt.integrator = code
        m.opt.integrator = code
    mjd, d = mujoco.MjData(mjm), engine.MjData(m)
    if mjm.nkey:
        mujoco.mj_resetDataKeyframe(mjm, mjd, 0)
        engine.mj_resetDataKeyframe(m, d, 0)
    for _ in range(3):  # compile/load kernels, warm caches
        engine.mj_step(m, d)
        mujoco.mj_step(mjm, mjd)
    t_mj = per_step_us(lambda: mujoco.mj_step(mjm, mjd), seconds)
    t_en = per_step_us(lambda: engine.mj_step(m, d), seconds)
    return {"name": name, "nv": mjm.nv, "nbody": mjm.nbody, "ncon": int(mjd.ncon),
            "nefc": int(mjd.nefc), "mujoco": t_mj, "engine": t_en, "ratio": t_mj / t_en}


def fit_exponent(rows: list[dict], key: str) -> float:
    """Least-squares slope of log(time) against log(nv)."""
    x = np.log([r["nv"] for r in rows])
    y = np.log([r[key] for r in rows])
    return float(np.polyfit(x, y, 1)[0])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--families", default="big,copies,chain,tree")
    ap.add_argument("--max-n", type=int, default=5000, help="largest generated tree")
    ap.add_argument("--seconds", type=float, default=0.5, help="minimum time per timed run")
    ap.add_argument("--integrator", default=None,
                    help="euler, rk4, implicit or implicitfast for every model")
    a = ap.parse_args()
    fams = a.families.split(",")
    plan: list[tuple[str, str, tuple]] = []
    if "big" in fams:
        big = BIG if a.integrator is None else [
            (name.split(" (")[0], p, None) for name, p, integ in BIG if integ is None]
        plan += [("big", name, (None, p, integ)) for name, p, integ in big]
    if "copies" in fams:
        plan += [("copies", f"humanoid x{n}", (copies_xml(n), None, None)) for n in (1, 4, 16, 64)]
    if "chain" in fams:
        plan += [("chain", f"chain {n}", (chain_xml(n), None, None))
                 for n in (10, 30, 100, 300, 450) if n <= a.max_n]
    if "tree" in fams:
        plan += [("tree", f"tree {n}", (tree_xml(n), None, None))
                 for n in (10, 30, 100, 300, 1000, 3000, 5000) if n <= a.max_n]
    print("| family | model | nv | ncon | nefc | mujoco us/step | engine us/step | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    results: dict[str, list[dict]] = {}
    if a.integrator is not None:
        plan = [(fam, name, (xml, path, a.integrator)) for fam, name, (xml, path, _) in plan]
        print(f"integrator {a.integrator} on every model\n")
    for fam, name, (xml, path, integ) in plan:
        try:
            r = measure(name, xml, path, integ, a.seconds)
        except Exception as e:  # a model the engine cannot run yet is a row, not the end
            print(f"| {fam} | {name} | - | - | - | - | {type(e).__name__}: {e} | - |",
                  flush=True)
            continue
        results.setdefault(fam, []).append(r)
        print(f"| {fam} | {name} | {r['nv']} | {r['ncon']} | {r['nefc']} | {r['mujoco']:.1f} | "
              f"{r['engine']:.1f} | {r['ratio']:.2f} |", flush=True)
    print()
    print("| family | exponent mujoco | exponent engine | difference | worst ratio |")
    print("|---|---|---|---|---|")
    for fam, rows in results.items():
        worst = min(r["ratio"] for r in rows)
        if fam == "big" or len(rows) < 3:
            print(f"| {fam} | - | - | - | {worst:.2f} |")
            continue
        bm, be = fit_exponent(rows, "mujoco"), fit_exponent(rows, "engine")
        print(f"| {fam} | {bm:.2f} | {be:.2f} | {be - bm:+.2f} | {worst:.2f} |")
    print(f"\nload average {os.getloadavg()[0]:.1f} (2 cores: other work on the machine shifts "
          f"both programs' times; the ratio is taken in the same run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
