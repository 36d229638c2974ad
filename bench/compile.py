"""Load + compile time per model, engine vs the official mujoco, in the same run.

    .venv/bin/python bench/compile.py [substring-filter] [--repeat N]
    .venv/bin/python bench/compile.py --menagerie [substring-filter] [--repeat N]

Default: one row per model of the conformance corpus (test/engine/compile_corpus.py): the best
of N wall-clock times for each and the ratio engine/mujoco (> 1: we are slower), then the
geometric mean.

``--menagerie``: the Menagerie scenes (scene*.xml under ../shared/models/menagerie), each timed
warm and cold in this process, by both. *Warm*: the asset caches filled by an earlier compile
of the same scene, as a user's second run finds them (the engine's compile cache on disk;
mujoco's in-process asset cache, which keeps processed meshes and textures between compiles).
*Cold*: both caches emptied before every compile (an empty cache directory for the engine;
mujoco.mj_clearCache for mujoco), as a first run on a machine. The last column compares the
engine cold with mujoco warm. The engine's cache lives in a temporary directory here
(MJ_ROS_MESH_CACHE), never the user's.

Numba kernels are not involved in compiling, except the qpos0 constants (setconst), which use
the engine's compiled position stage: run once beforehand (python -m engine.warmup) so their
compile is cached.
"""
import argparse
import glob
import math
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "test"), str(ROOT / "test" / "engine")]

import mujoco  # noqa: E402  (the oracle: benchmarks may import it)

import engine  # noqa: E402
from engine.compiler import cache  # noqa: E402
from compile_corpus import corpus  # noqa: E402
from oracle import MODELS  # noqa: E402


def best_time(fn, repeat, before=None):
    """Best wall-clock time [s] of ``fn()`` over ``repeat`` calls (``before()`` untimed)."""
    best = math.inf
    for _ in range(repeat):
        if before is not None:
            before()
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def bench_corpus(args):
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
        print(f"geometric mean ratio engine/mujoco over {len(ratios)} models: "
              f"{geomean(ratios):.1f}")


def menagerie_scenes():
    """Paths of the Menagerie scene files, sorted."""
    return sorted(Path(p) for p in glob.glob(str(MODELS / "menagerie" / "*" / "scene*.xml")))


def bench_menagerie(args):
    scenes = [p for p in menagerie_scenes()
              if args.filter in str(p.relative_to(MODELS / "menagerie"))]
    if not scenes:
        print(f"no Menagerie scenes under {MODELS / 'menagerie'}")
        return
    tmp = Path(tempfile.mkdtemp(prefix="mj_ros_bench_cache_"))
    warm_dir, cold_dir = tmp / "warm", tmp / "cold"

    def empty_cold():
        cache.flush()   # the last compile's entries, still being written, must not land later
        shutil.rmtree(cold_dir, ignore_errors=True)

    def use(d):
        os.environ["MJ_ROS_MESH_CACHE"] = str(d)

    mj_cache = mujoco.mj_getCache()
    print(f"{'scene':40s} {'mujoco':>7s} {'engine':>7s} {'ratio':>6s} | {'mujoco':>7s} "
          f"{'engine':>7s} {'ratio':>6s} | {'ratio to':>8s}")
    print(f"{'':40s} {'warm ms':>7s} {'warm ms':>7s} {'':>6s} | {'cold ms':>7s} "
          f"{'cold ms':>7s} {'':>6s} | {'mj warm':>8s}")
    rows = []
    try:
        for p in scenes:
            name = str(p.relative_to(MODELS / "menagerie"))
            load_mj = lambda: mujoco.MjModel.from_xml_path(str(p))  # noqa: E731
            load_en = lambda: engine.MjModel.from_xml_path(str(p))  # noqa: E731
            mc = best_time(load_mj, args.repeat, before=lambda: mujoco.mj_clearCache(mj_cache))
            load_mj()                                         # fills mujoco's cache
            mw = best_time(load_mj, args.repeat)
            use(cold_dir)
            ec = best_time(load_en, args.repeat, before=empty_cold)
            use(warm_dir)
            load_en()                                         # fills the engine's cache
            ew = best_time(load_en, args.repeat)
            rows.append((ew / mw, ec / mc, ec / mw))
            print(f"{name:40s} {mw * 1e3:7.1f} {ew * 1e3:7.1f} {ew / mw:6.2f} | {mc * 1e3:7.1f} "
                  f"{ec * 1e3:7.1f} {ec / mc:6.2f} | {ec / mw:8.2f}", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for i, what in enumerate(("warm / mujoco warm", "cold / mujoco cold",
                              "cold / mujoco warm")):
        r = [row[i] for row in rows]
        print(f"engine {what}: geometric mean {geomean(r):.2f}, worst {max(r):.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("filter", nargs="?", default="")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--menagerie", action="store_true",
                    help="time the Menagerie scenes warm and cold (see the module docstring)")
    args = ap.parse_args()
    if args.menagerie:
        bench_menagerie(args)
    else:
        bench_corpus(args)


if __name__ == "__main__":
    main()
