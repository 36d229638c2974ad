"""Contact census against the official mujoco: every geom pair of every corpus model at random
states, compared as sets keyed by geom pair (issue 4's conformance measure).

Not a test (it asserts nothing): it reports, per type pair, how many geom pairs get the same
contact count in both engines and how many contacts agree in dist, pos and normal (1e-9 for
MuJoCo's analytic pairs, 1e-6 for the rest), with the worst error of each kind, so a session can
see where the collider stands on every real model at once.

    .venv/bin/python bench/contacts.py [--tight] [--ours] [--states N] [--only SUBSTR] [-v]

--ours compiles the models with our compiler (default: ours on a copy of mujoco's compiled model,
which isolates the collider); --tight sets ccd_tolerance 1e-12 and 200 ccd iterations in both.
"""
from __future__ import annotations

import argparse
import glob
import os
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent / "test")]
sys.path.append(str(HERE.parent / "test" / "engine"))  # after the root: test/engine is no package

import mujoco  # noqa: E402  (the oracle: benchmarks and tests only)

import engine  # noqa: E402
from compile_corpus import DMC, ERD, GYM, corpus  # noqa: E402
from oracle import MODELS, model_from_mujoco  # noqa: E402
from test_collision import ANALYTIC, census_states  # noqa: E402
from test_urdf import ERD_MODELS, absolutize  # noqa: E402

TYPES = ("plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh", "sdf")


def models():
    """(id, path, is_urdf) of the census: the compiler corpus, MuJoCo's engine-test models with
    geoms, dm_control's stacker and the example-robot-data URDFs."""
    out = [(k, p, False) for k, p in corpus()]
    out.append(("dm_control/stacker", DMC / "stacker.xml", False))
    testdata = MODELS / "mujoco" / "test" / "engine" / "testdata"
    for p in sorted(glob.glob(str(testdata / "*.xml")) + glob.glob(str(testdata / "*" / "*.xml"))):
        out.append(("testdata/" + os.path.relpath(p, testdata), Path(p), False))
    out += [("erd/" + r.split("/")[-1], ERD / r, True) for r in ERD_MODELS]
    return out


def load(path, is_urdf, ours):
    """(mujoco model, our model or None) for path; raises on a model mujoco rejects."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if is_urdf:
            mm = mujoco.MjModel.from_xml_string(absolutize(path.read_text(), str(path)))
        else:
            mm = mujoco.MjModel.from_xml_path(str(path))
        m = engine.MjModel.from_xml_path(str(path)) if ours else None
    return mm, m


def census(mm, m, nstates, tight, seed, res, worst, verbose, mid):
    """Adds the model's per-type-pair tallies to res: [count-agreeing pairs, pairs, agreeing
    contacts, contacts]; worst[type pair] keeps the largest (dist, pos, normal) error seen."""
    if m is None:
        m = model_from_mujoco(mm)
    for mx in (mm, m):
        if tight:
            mx.opt.ccd_tolerance, mx.opt.ccd_iterations = 1e-12, 200
    for it, a, b in census_states(mm, m, nstates, seed):
        for key in set(a) | set(b):
            t = tuple(sorted((int(mm.geom_type[key[0]]), int(mm.geom_type[key[1]]))))
            name = f"{TYPES[t[0]]}-{TYPES[t[1]]}"
            tol = 1e-9 if t in ANALYTIC else 1e-6
            r = res.setdefault(name, [0, 0, 0, 0])
            ca, cb = a.get(key, []), b.get(key, [])
            r[1] += 1
            r[3] += max(len(ca), len(cb))
            if len(ca) != len(cb):
                if verbose:
                    print(f"  {mid} state {it} geoms {key} {name}: count {len(ca)} vs {len(cb)}")
                continue
            r[0] += 1
            w = worst.setdefault(name, [0.0, 0.0, 0.0])
            for x in ca:
                y = min(cb, key=lambda y: np.linalg.norm(y["pos"] - x["pos"]))
                e = (abs(y["dist"] - x["dist"]), np.abs(y["pos"] - x["pos"]).max(),
                     np.abs(y["n"] - x["n"]).max())
                w[:] = np.maximum(w, e)
                if max(e) < tol:
                    r[2] += 1
                elif verbose:
                    print(f"  {mid} state {it} geoms {key} {name}: errors "
                          f"{e[0]:.1e} {e[1]:.1e} {e[2]:.1e}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tight", action="store_true", help="ccd_tolerance 1e-12 in both")
    ap.add_argument("--ours", action="store_true", help="our compiler's models")
    ap.add_argument("--states", type=int, default=24)
    ap.add_argument("--only", default="", help="models whose id contains this")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every mismatch")
    args = ap.parse_args()
    total, worst = {}, {}
    for mid, path, is_urdf in models():
        if args.only not in mid or not path.exists():
            continue
        try:
            mm, m = load(path, is_urdf, args.ours)
        except Exception as e:  # noqa: BLE001  (a model either engine rejects is reported)
            print(f"{mid}: not loaded ({type(e).__name__}: {str(e).splitlines()[0][:100]})")
            continue
        if mm.ngeom < 2:
            continue
        res = {}
        try:
            census(mm, m, args.states, args.tight, 3, res, worst, args.verbose, mid)
        except NotImplementedError as e:
            print(f"{mid}: {e}")
            continue
        except Exception as e:  # noqa: BLE001  (reported; the census goes on)
            print(f"{mid}: FAILED {type(e).__name__}: {str(e).splitlines()[0][:100]}")
            continue
        bad = {k: v for k, v in res.items() if v[0] < v[1] or v[2] < v[3]}
        print(f"{mid}: {sum(v[3] for v in res.values())} contacts"
              + ("" if not bad else " | " + ", ".join(
                  f"{k} {v[0]}/{v[1]} {v[2]}/{v[3]}" for k, v in sorted(bad.items()))))
        for k, v in res.items():
            t = total.setdefault(k, [0, 0, 0, 0])
            t[:] = [x + y for x, y in zip(t, v)]
    print("\ntype pair            pairs(count ok)    contacts(within tol)   worst dist/pos/normal")
    for k, (c, n, ok, nc) in sorted(total.items()):
        w = worst.get(k, [0, 0, 0])
        print(f"{k:20s} {c:7d}/{n:<7d}      {ok:7d}/{nc:<7d}        "
              f"{w[0]:.1e} {w[1]:.1e} {w[2]:.1e}")


if __name__ == "__main__":
    main()
