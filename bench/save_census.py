"""Saving census: every model of the large corpus (bench/corpus_census.py) written back as MJCF
and recompiled, in this engine and in mujoco 4.0.0 (seed 004, "saving models").

    .venv/bin/python bench/save_census.py [substring ...] [-j JOBS] [--timeout S]
    .venv/bin/python bench/save_census.py --mjb [substring ...] [-j JOBS]

Per model (each in a worker process, so a crash or hang costs that model only): the models mujoco
loads and the engine compiles are written with engine.xml.writer; the written file must compile,
in the engine, to the engine's model of the original (compiler conformance tolerances,
test/engine/compile_corpus.FIELDS) and, in mujoco, to mujoco's model of the original (every
same-named field; integers exact, floats rtol 1e-9 / atol 1e-12, as test/engine/test_save_xml.py).
Prints the counts and each failing model with its first mismatch.

``--mjb``: MJB from the engine to mujoco, over the compiler conformance corpus
(test/engine/compile_corpus.py): each model compiled by the engine is saved with
engine.mj_saveModel and loaded by mujoco 4.0.0, whose arrays must equal those of its own compile
of the file (integers exact, reals rtol/atol 1e-12; narena aside, the engine's budget where
``<size memory>`` is absent); "byte-identical" when the file equals mujoco's mj_saveModel.
A model whose file needs arrays the engine does not build yet counts under the first of them.
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "test"), str(ROOT / "test" / "engine"), str(ROOT / "bench")]


def _compile_both(path):
    """(mujoco's model, the engine's model), or the census result when either fails."""
    import mujoco

    import engine
    try:
        theirs = mujoco.MjModel.from_xml_path(path)
    except Exception:
        return ("not a model", "")
    try:
        ours = engine.MjModel.from_xml_path(path)
    except Exception as e:
        return ("engine does not compile", f"{type(e).__name__}: {str(e)[:100]}")
    return theirs, ours


def run_one(path):
    import mujoco

    import engine
    from compile_corpus import mismatches
    from engine.compiler import parse_file
    from engine.xml.writer import spec_to_xml
    from test_save_xml import mujoco_mismatches
    got = _compile_both(path)
    if isinstance(got[0], str):
        return got
    theirs, ours = got
    try:
        text = spec_to_xml(parse_file(path))
    except Exception as e:
        return "write failed", f"{type(e).__name__}: {str(e)[:150]}"
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "saved.xml")
        with open(out, "w") as f:
            f.write(text)
        try:
            bad = mismatches(engine.MjModel.from_xml_path(out), ours)
        except Exception as e:
            return "engine rejects saved", f"{type(e).__name__}: {str(e)[:150]}"
        if bad:
            return "engine differs", f"{bad[0][0]}: {bad[0][1][:120]}"
        try:
            bad = mujoco_mismatches(mujoco.MjModel.from_xml_path(out), theirs)
        except Exception as e:
            return "mujoco rejects saved", str(e)[:150].replace("\n", " ")
        if bad:
            return "mujoco differs", bad[0][:150]
    return "ok", ""


def run_mjb(path):
    import mujoco
    import numpy as np

    import engine
    got = _compile_both(path)
    if isinstance(got[0], str):
        return got
    theirs, ours = got
    try:
        data = engine.mjb.save(ours)
    except NotImplementedError as e:
        missing = str(e).split("build: ")[1].split(" (a model")[0]
        return f"not built: {missing.split(',')[0]}", missing[:150]
    with tempfile.TemporaryDirectory() as tmp:
        out, ref = os.path.join(tmp, "engine.mjb"), os.path.join(tmp, "mujoco.mjb")
        with open(out, "wb") as f:
            f.write(data)
        mujoco.mj_saveModel(theirs, ref, None)
        with open(ref, "rb") as f:
            identical = f.read() == data
        try:
            loaded = mujoco.MjModel.from_binary_path(out)
        except Exception as e:
            return "mujoco rejects", str(e)[:150].replace("\n", " ")
    for name in dir(theirs):
        y = getattr(theirs, name)
        if not isinstance(y, np.ndarray) or name == "_sizes":
            continue
        x = getattr(loaded, name)
        if x.shape != y.shape:
            return "mujoco loads, differs", f"{name}: shape {x.shape} vs {y.shape}"
        same = (np.array_equal(x, y) if y.dtype.kind in "iub"
                else np.allclose(x, y, rtol=1e-12, atol=1e-12, equal_nan=True))
        if not same:
            return "mujoco loads, differs", name
    return ("ok, byte-identical" if identical else "ok (fields equal, bytes differ)"), ""


def _worker(path, q):
    import warnings
    warnings.simplefilter("ignore")
    try:
        q.put((run_mjb if MODE["mjb"] else run_one)(path))
    except BaseException as e:  # noqa: BLE001  (reported, never hidden)
        q.put(("crash", f"{type(e).__name__}: {str(e)[:150]}"))


MODE = {"mjb": False}


def main(argv=None):
    from corpus_census import corpus_files
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("only", nargs="*")
    ap.add_argument("--mjb", action="store_true", help="MJB engine -> mujoco over the "
                    "compiler conformance corpus")
    ap.add_argument("-j", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=300)
    a = ap.parse_args(argv)
    MODE["mjb"] = a.mjb
    if a.mjb:
        from compile_corpus import corpus
        files = [(n, p) for n, p in corpus() if p.exists()]
    else:
        files = corpus_files()
    items = [(n, p) for n, p in files if not a.only or any(o in n for o in a.only)]
    ctx = mp.get_context("fork")
    counts, fails = {}, []
    running = []
    todo = list(items)
    while todo or running:
        while todo and len(running) < a.j:
            n, p = todo.pop(0)
            q = ctx.Queue()
            pr = ctx.Process(target=_worker, args=(str(p), q))
            pr.start()
            running.append((n, pr, q))
        n, pr, q = running.pop(0)
        pr.join(a.timeout)
        if pr.is_alive():
            pr.kill()
            pr.join()
            res = ("timeout", "")
        else:
            res = q.get() if not q.empty() else ("crash", f"exit code {pr.exitcode}")
        counts[res[0]] = counts.get(res[0], 0) + 1
        if not res[0].startswith(("ok", "not a model", "engine does not compile", "not built")):
            fails.append((n, *res))
        print(f"{n}: {res[0]} {res[1]}", flush=True)
    print("\n== saving census" + (" (MJB engine -> mujoco)" if a.mjb else "") + " ==")
    for k, v in sorted(counts.items(), key=lambda kv: -kv[1]):
        print(f"{v:5d}  {k}")
    for n, k, msg in fails:
        print(f"FAIL {n}: {k}: {msg}")


if __name__ == "__main__":
    main()
