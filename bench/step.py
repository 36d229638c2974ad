"""Steps per second of engine vs the official mujoco, in the same run, on two corpora:
contact-free models (contacts and limits disabled by flag; issue 3's target: ratio >= 0.5 from a
Python loop) and contact-rich ones as shipped (default solver settings; issue 4's target: >= 0.3);
and flex models with their contacts (issue 24).

    .venv/bin/python bench/step.py [--steps N] [--corpus free|contact|flex|all] [--models a,b,...]

For each model: a Python loop of single mj_step calls (what a control loop does) and
mj_step(nstep=100) calls; the ratio engine/mujoco and its geometric mean. Also the first-call time
of the engine (compilation, or loading numba's cache) measured in a fresh subprocess: "cold" with
an empty cache directory, "cached" with the cache filled.
"""
from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "test"))

SITE = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
SHARED = Path(os.environ.get("MJ_ROS_SHARED_MODELS", ROOT.parent / "shared" / "models"))
MODELS = {
    "pendulum(dm)": SITE / "dm_control/suite/pendulum.xml",
    "cartpole(dm)": SITE / "dm_control/suite/cartpole.xml",
    "reacher(gym)": SITE / "gymnasium/envs/mujoco/assets/reacher.xml",
    "half_cheetah(gym)": SITE / "gymnasium/envs/mujoco/assets/half_cheetah.xml",
    "iiwa14(menagerie)": SHARED / "menagerie/kuka_iiwa_14/iiwa14.xml",
    "humanoid(mujoco)": SHARED / "mujoco/model/humanoid/humanoid.xml",
}
CONTACT_MODELS = {
    "ant(gym)": SITE / "gymnasium/envs/mujoco/assets/ant.xml",
    "humanoid(gym)": SITE / "gymnasium/envs/mujoco/assets/humanoid.xml",
    "hopper(gym)": SITE / "gymnasium/envs/mujoco/assets/hopper.xml",
    "walker2d(gym)": SITE / "gymnasium/envs/mujoco/assets/walker2d.xml",
    "half_cheetah(gym)+c": SITE / "gymnasium/envs/mujoco/assets/half_cheetah.xml",
    "barkour(menagerie)": SHARED / "menagerie/google_barkour_vb/scene.xml",
}
# flex models (issue 24), with their contacts, compiled by the engine's own compiler (the copy
# from mujoco's compiled model does not carry every flex field the engine builds)
FLEX_MODELS = {
    "pinch(mujoco flex)": SHARED / "mujoco/model/flex/pinch.xml",
    "cable on geoms(test)": ROOT / "test/models/flex/flex_contact_cable.xml",
}
NO_CONTACT_LIMIT = (1 << 4) | (1 << 3)


def load_pair(path, contacts=False, own=False):
    """(mujoco model, data, engine model, data); ``own``: the engine compiles the file itself."""
    import mujoco
    from oracle import model_from_mujoco
    import engine  # noqa: F401
    from engine.data import MjData
    mjm = mujoco.MjModel.from_xml_path(str(path))
    if not contacts:
        mjm.opt.disableflags |= NO_CONTACT_LIMIT
    m = engine.MjModel.from_xml_path(str(path)) if own else model_from_mujoco(mjm)
    return mjm, mujoco.MjData(mjm), m, MjData(m)


def rate(fn, n, repeat=3):
    best = math.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn(n)
        best = min(best, time.perf_counter() - t)
    return n / best


def bench_model(path, steps, contacts=False, own=False):
    import mujoco
    from engine.forward import mj_step
    mjm, mjd, m, d = load_pair(path, contacts, own)
    mj_step(m, d, 2)

    def eng_loop(n):
        for _ in range(n):
            mj_step(m, d)

    def mj_loop(n):
        for _ in range(n):
            mujoco.mj_step(mjm, mjd)

    def eng_batch(n):
        for _ in range(n // 100):
            mj_step(m, d, 100)

    def mj_batch(n):
        for _ in range(n // 100):
            mujoco.mj_step(mjm, mjd, 100)

    out = {}
    for name, e, o in (("loop", eng_loop, mj_loop), ("nstep=100", eng_batch, mj_batch)):
        engine.io.mj_resetData(m, d)
        mujoco.mj_resetData(mjm, mjd)
        re = rate(e, steps)
        ro = rate(o, steps)
        out[name] = (re, ro)
    return out


def startup(cache_dir):
    code = ("import time; t=time.perf_counter(); import sys; sys.path.insert(0,%r); "
            "sys.path.insert(0,%r); import engine; from bench.step import load_pair; "
            "from engine.forward import mj_step; mjm, mjd, m, d = load_pair(%r); mj_step(m, d); "
            "print(time.perf_counter()-t)") % (str(ROOT), str(ROOT / "test"),
                                                str(MODELS["humanoid(mujoco)"]))
    env = dict(os.environ, MJ_ROS_NUMBA_CACHE=cache_dir)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       cwd=str(ROOT))
    if r.returncode:
        return float("nan")
    return float(r.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    import engine
    import engine.io
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--corpus", choices=("free", "contact", "flex", "all"), default="all")
    ap.add_argument("--models", default=None, help="names from either corpus, comma-separated")
    ap.add_argument("--no-startup", action="store_true")
    a = ap.parse_args()
    corpora = {"free": [(n, p, False) for n, p in MODELS.items()],
               "contact": [(n, p, True) for n, p in CONTACT_MODELS.items()],
               "flex": [(n, p, "flex") for n, p in FLEX_MODELS.items()]}
    todo = (corpora["free"] + corpora["contact"] + corpora["flex"] if a.corpus == "all"
            else corpora[a.corpus])
    if a.models:
        want = set(a.models.split(","))
        todo = [t for t in todo if t[0] in want]
    rows = []
    for name, p, contacts in todo:
        if not Path(p).exists():
            print(f"skip {name}: {p} missing")
            continue
        r = bench_model(p, a.steps, bool(contacts), contacts == "flex")
        kind = "flex    " if contacts == "flex" else ("contact " if contacts else "free    ")
        rows.append((kind + name, r))
    print(f"{'model':28s} {'engine loop':>12s} {'mujoco loop':>12s} {'ratio':>6s} "
          f"{'engine n100':>12s} {'mujoco n100':>12s} {'ratio':>6s}")
    for kind in ("free", "contact", "flex"):
        gl, gb = [], []
        for name, r in rows:
            if not name.startswith(kind):
                continue
            (el, ol), (eb, ob) = r["loop"], r["nstep=100"]
            gl.append(el / ol)
            gb.append(eb / ob)
            print(f"{name:28s} {el:12.0f} {ol:12.0f} {el / ol:6.2f} {eb:12.0f} {ob:12.0f} "
                  f"{eb / ob:6.2f}")
        if gl:
            print(f"{'geometric mean ' + kind:28s} {'':12s} {'':12s} "
                  f"{math.exp(np.mean(np.log(gl))):6.2f} {'':12s} {'':12s} "
                  f"{math.exp(np.mean(np.log(gb))):6.2f}")
    if not a.no_startup:
        with tempfile.TemporaryDirectory() as tmp:
            cold = startup(tmp)
            warm = startup(tmp)
        print(f"first call (import + load + first mj_step, humanoid): cold compile {cold:.1f} s, "
              f"cached {warm:.1f} s")
