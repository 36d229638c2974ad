"""Census of the model corpus: which models the engine loads, compiles, steps and follows mujoco on.

    .venv/bin/python bench/corpus_census.py [substring ...] [-j JOBS] [--steps N] [--json OUT]

The corpus: every MJCF file (``*.xml``) under ../shared/models (Menagerie, MuJoCo's example models
and engine test data), dm_control's suite and gymnasium's MuJoCo assets, kept when the official
mujoco (the oracle) loads it: included fragments and files mujoco rejects are not models.

Stages, counted per model:

- *loadable*: ``mujoco.MjModel.from_xml_path`` succeeds (the corpus proper);
- *compiled*: ``engine.MjModel.from_xml_path`` succeeds;
- *stepped*: ``engine.MjData`` then N calls of ``mj_step`` (default 50) raise nothing;
- *agreeing*: max |qpos_engine - qpos_mujoco| after the same N steps from qpos0 with zero
  controls is within 1e-6 (``TOL``). Models between 1e-6 and 1e-3 are listed with their error
  (chaotic ones such as piles of contacts amplify rounding: each is named, not hidden); above
  1e-3 (``DIVERGED``) a model is divergent.

Each model runs in a worker process (a crash or a hang costs that model only: ``--timeout``
seconds, counted as a failure of the stage it reached). Failures are grouped by cause: the
exception type and the first line of its message, with paths, numbers and quoted names
replaced so that one cause over many models counts once.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import re
import site
import sys
import time
import traceback
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED_MODELS = Path(os.environ.get("MJ_ROS_SHARED_MODELS", ROOT.parent / "shared" / "models"))

TOL = 1e-6       # agreement: qpos after N steps (double rounding over 50 steps of smooth dynamics)
DIVERGED = 1e-3  # beyond this a model does not follow mujoco at all


def corpus_files() -> list[tuple[str, Path]]:
    """(id, path) of every candidate MJCF file, in a fixed order."""
    out = []
    if SHARED_MODELS.is_dir():
        for p in sorted(SHARED_MODELS.rglob("*.xml")):
            out.append((str(p.relative_to(SHARED_MODELS)), p))
    sp = Path(next(p for p in site.getsitepackages() if p.endswith("site-packages")))
    for tag, d in (("dm_control", sp / "dm_control" / "suite"),
                   ("gymnasium", sp / "gymnasium" / "envs" / "mujoco" / "assets")):
        for p in sorted(d.glob("*.xml")):
            out.append((f"{tag}/{p.name}", p))
    return out


_CAUSE_SUBS = [
    (re.compile(r"(/[\w.\-+]+)+(\.\w+)?"), "<path>"),
    (re.compile(r"'[^']*'"), "'…'"),
    (re.compile(r'"[^"]*"'), '"…"'),
    (re.compile(r"-?\d+(\.\d+)?(e-?\d+)?"), "N"),
]


def cause(exc_type: str, msg: str) -> str:
    """A failure's cause: exception type + the message's first line, made model-independent."""
    line = (msg.strip().splitlines() or [""])[0]
    for rx, rep in _CAUSE_SUBS:
        line = rx.sub(rep, line)
    return f"{exc_type}: {line[:110]}"


def run_one(path: str, nstep: int) -> dict:
    """Every stage of one model in this process; returns the stage reached and the numbers."""
    import numpy as np
    import mujoco  # the oracle (benchmarks may import it)
    import engine

    r = {"stage": "none"}

    def fail(stage, e):
        r.update(fail=stage, exc=type(e).__name__, msg=str(e)[:500],
                 where=traceback.format_exc(limit=-1).strip().splitlines()[-3:])
        return r

    try:
        mjm = mujoco.MjModel.from_xml_path(path)
    except Exception as e:  # not a model mujoco loads: outside the corpus
        return fail("load", e)
    r["stage"] = "loadable"
    r["nq"], r["nv"] = int(mjm.nq), int(mjm.nv)
    t = time.perf_counter()
    try:
        m = engine.MjModel.from_xml_path(path)
    except Exception as e:
        return fail("compile", e)
    r["t_compile"] = time.perf_counter() - t
    r["stage"] = "compiled"
    t = time.perf_counter()
    try:
        d = engine.MjData(m)
        engine.mj_step(m, d, nstep)
        qpos = np.array(d.qpos)
    except Exception as e:
        return fail("step", e)
    r["t_step"] = time.perf_counter() - t
    r["stage"] = "stepped"
    mjd = mujoco.MjData(mjm)
    mujoco.mj_step(mjm, mjd, nstep)
    ref = np.array(mjd.qpos)
    if qpos.shape != ref.shape:
        r["err"] = float("inf")
        r["msg"] = f"qpos shape {qpos.shape} vs {ref.shape}"
    else:
        err = np.abs(qpos - ref)
        r["err"] = float(np.max(err)) if err.size else 0.0
        if not np.isfinite(r["err"]):
            r["err"] = float("inf")
    if r["err"] <= TOL:
        r["stage"] = "agreeing"
    return r


def _worker(conn, nstep):
    """Runs models sent through ``conn`` until it receives None."""
    # mujoco's compiler warnings (attach conflicts...) go to fd 1: keep the report clean
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    while True:
        path = conn.recv()
        if path is None:
            return
        conn.send(run_one(path, nstep))


class Worker:
    """One worker process; restarted after a timeout or a crash."""

    def __init__(self, nstep):
        self.nstep = nstep
        self._start()

    def _start(self):
        self.conn, child = mp.Pipe()
        self.proc = mp.Process(target=_worker, args=(child, self.nstep), daemon=True)
        self.proc.start()

    def submit(self, path):
        self.path, self.t0 = path, time.perf_counter()
        self.conn.send(path)

    def poll(self, timeout):
        """Result dict when done, None while running; a dict with fail='timeout'/'crash' else."""
        if self.conn.poll(0.05):
            try:
                return self.conn.recv()
            except EOFError:
                pass
        elif self.proc.is_alive() and time.perf_counter() - self.t0 < timeout:
            return None
        what = "timeout" if self.proc.is_alive() else f"crash (exit {self.proc.exitcode})"
        self.proc.kill()
        self.proc.join()
        self._start()
        return {"stage": "unknown", "fail": "worker", "exc": what.split()[0].capitalize(),
                "msg": what}

    def close(self):
        self.conn.send(None)
        self.proc.join(5)


def census(items, jobs, nstep, timeout, progress=True):
    """{id: result} over ``items`` [(id, path)], ``jobs`` worker processes."""
    results, todo = {}, list(items)
    workers = [Worker(nstep) for _ in range(max(1, min(jobs, len(todo))))]
    busy = {}
    while todo or busy:
        for w in workers:
            if w not in busy and todo:
                key, path = todo.pop(0)
                w.submit(str(path))
                busy[w] = key
        for w in list(busy):
            r = w.poll(timeout)
            if r is not None:
                key = busy.pop(w)
                r["time"] = time.perf_counter() - w.t0
                results[key] = r
                if progress:
                    tag = r.get("fail") or r["stage"]
                    extra = f" err {r['err']:.1e}" if "err" in r else ""
                    print(f"[{len(results)}/{len(items)}] {key}: {tag}{extra} "
                          f"({r['time']:.1f} s)", file=sys.stderr, flush=True)
    for w in workers:
        w.close()
    return results


def report(results, nstep):
    """The census table: counts per stage, failures by cause, the models off mujoco."""
    models = {k: r for k, r in results.items() if r["stage"] != "none"}
    n = len(models)
    count = lambda st: sum(r["stage"] in st for r in models.values())  # noqa: E731
    compiled = count({"compiled", "stepped", "agreeing"})
    stepped = count({"stepped", "agreeing"})
    agreeing = count({"agreeing"})
    print(f"candidates {len(results)}: loadable by mujoco {n}, compiled {compiled}, "
          f"stepped {stepped} ({nstep} steps), agreeing {agreeing} (qpos within {TOL:g})")
    groups = defaultdict(list)
    for k, r in models.items():
        if "fail" in r:
            groups[(r["fail"], cause(r["exc"], r["msg"]))].append(k)
    print(f"\nfailures by cause ({sum(map(len, groups.values()))} models):")
    for (stage, c), ks in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"  {len(ks):3d}  [{stage}] {c}")
        for k in sorted(ks):
            print(f"         {k}")
    off = sorted(((r["err"], k) for k, r in models.items()
                  if r["stage"] == "stepped"), reverse=True)
    print(f"\nstepped but off mujoco ({len(off)}; divergent > {DIVERGED:g}: "
          f"{sum(e > DIVERGED for e, _ in off)}):")
    for e, k in off:
        print(f"  {e:9.2e}  {k}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("filter", nargs="*", help="keep ids containing any of these substrings")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="worker processes (default 1)")
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per model")
    ap.add_argument("--json", help="write the per-model results here")
    ap.add_argument("--from-json", help="report a saved census instead of running one")
    args = ap.parse_args(argv)
    if args.from_json:
        report(json.loads(Path(args.from_json).read_text()), args.steps)
        return
    items = [(k, p) for k, p in corpus_files()
             if not args.filter or any(f in k for f in args.filter)]
    t = time.perf_counter()
    results = census(items, args.jobs, args.steps, args.timeout)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, sort_keys=True))
    report(results, args.steps)
    print(f"\n({time.perf_counter() - t:.0f} s)")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
