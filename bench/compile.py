"""Load + compile time per model, engine vs the official mujoco, in the same run.

    .venv/bin/python bench/compile.py [substring-filter] [--repeat N]

Prints one row per model of the conformance corpus (test/engine/compile_corpus.py): the best of N
wall-clock times for each and the ratio engine/mujoco (> 1: we are slower), then the geometric
mean. Numba kernels are not involved in compiling, except the qpos0 constants (setconst), which
use the engine's compiled position stage: run once beforehand so their compile is cached.
"""
import argparse
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "test"), str(ROOT / "test" / "engine")]

import mujoco  # noqa: E402  (the oracle: benchmarks may import it)

import engine  # noqa: E402
from compile_corpus import corpus  # noqa: E402


def best_time(fn, repeat):
    best = math.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("filter", nargs="?", default="")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rows, ratios = [], []
    for name, path in corpus():
        if args.filter not in name or not path.exists():
            continue
        try:
            mujoco.MjModel.from_xml_path(str(path))
            engine.MjModel.from_xml_path(str(path))
        except Exception as e:  # unsupported here or rejected by mujoco: reported, not timed
            rows.append((name, None, None, f"{type(e).__name__}: {str(e)[:60]}"))
            continue
        tm = best_time(lambda: mujoco.MjModel.from_xml_path(str(path)), args.repeat)
        te = best_time(lambda: engine.MjModel.from_xml_path(str(path)), args.repeat)
        rows.append((name, te, tm, ""))
        ratios.append(te / tm)
    print(f"{'model':45s} {'engine ms':>10s} {'mujoco ms':>10s} {'ratio':>7s}")
    for name, te, tm, note in rows:
        if te is None:
            print(f"{name:45s} {'-':>10s} {'-':>10s} {'-':>7s}  {note}")
        else:
            print(f"{name:45s} {te * 1e3:10.1f} {tm * 1e3:10.1f} {te / tm:7.1f}")
    if ratios:
        gm = math.exp(sum(map(math.log, ratios)) / len(ratios))
        print(f"geometric mean ratio engine/mujoco over {len(ratios)} models: {gm:.1f}")


if __name__ == "__main__":
    main()
