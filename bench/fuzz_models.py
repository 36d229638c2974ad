"""Model fuzzing: mutated copies of real MJCF/URDF models through the engine and the official
mujoco (4.0.0, the oracle), each decision classified (issue 25: validation parity).

    MJ_ROS_SHARED_MODELS=../shared/models PYTHONPATH=$PWD .venv/bin/python bench/fuzz_models.py \
        [--n 3000] [--seed 0] [--models SUBSTR,...] [--out OUT.json] [-j 2] [--timeout 60]

Each variant is one real model (``MODELS``: Menagerie robots, MuJoCo's example models and engine
test data, gymnasium/dm_control assets, example-robot-data URDFs) with one mutation of a kind
(``KINDS``), drawn with a fixed seed: numeric attributes set to 0, negative, +-1e30, inf or nan,
too few or too many values, empty; elements deleted or repeated (names duplicated); references
renamed to names that do not exist; a 1000-deep body chain (URDF: a 1000-link chain); a huge
``<replicate count>``; a mesh file truncated or corrupted (a copy, in a temporary folder).

Both programs load the variant (``from_xml_path``) and take 10 steps, each in a worker process
with a timeout (a crash or a hang costs that variant only). The decision of each pair:

- ``both_accept`` / ``both_reject``: the same decision;
- ``engine_only_reject``: mujoco accepts what the engine rejects (listed with both messages);
- ``engine_accepts_invalid``: the engine accepts what mujoco rejects (a bad class);
- ``internal``: the engine raised anything but its documented model error (``engine.XMLError``,
  which ``CompileError`` is) or ``NotImplementedError`` (a feature named as not built yet), e.g.
  KeyError, IndexError, RecursionError, numba errors (a bad class);
- ``crash``: the engine's worker died of a signal (a bad class);
- ``hang``: the engine timed out where mujoco finished (a bad class);
- ``mujoco_fails``: mujoco itself crashed or timed out (not counted against the engine).

The report prints the counts per class and per mutation kind, then every case of a bad class and
of ``engine_only_reject`` with both messages. ``--out`` writes every variant's record as JSON.
"""
from __future__ import annotations

import argparse
import copy
import json
import multiprocessing as mp
import os
import random
import shutil
import site
import sys
import tempfile
import time
import traceback
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED_MODELS = Path(os.environ.get("MJ_ROS_SHARED_MODELS", ROOT.parent / "shared" / "models"))
SITE = Path(next(p for p in site.getsitepackages() if p.endswith("site-packages")))
ERD = SITE / "cmeel.prefix" / "share" / "example-robot-data" / "robots"
NSTEP = 10
STARTUP_TIMEOUT = 900   # a worker's first kernel load (a cold cache compiles for minutes)
BAD = ("internal", "crash", "hang", "engine_accepts_invalid")

# (id, path): models both programs compile (checked again at run time: a model either one rejects
# unmutated is dropped with a line in the report).
_MEN = ["kuka_iiwa_14/iiwa14.xml", "robotiq_2f85/2f85.xml", "shadow_hand/right_hand.xml",
        "wonik_allegro/right_hand.xml", "agility_cassie/cassie.xml", "trossen_wx250s/wx250s.xml",
        "ufactory_xarm7/xarm7.xml", "skydio_x2/x2.xml", "google_barkour_vb/barkour_vb.xml",
        "unitree_h1/h1.xml"]
_MJ = ["model/humanoid/humanoid.xml", "model/slider_crank/slider_crank.xml",
       "model/tendon_arm/arm26.xml", "model/car/car.xml", "model/balloons/balloons.xml",
       "model/adhesion/active_adhesion.xml", "model/replicate/leaves.xml",
       "test/engine/testdata/actuation/activation.xml", "test/engine/testdata/actuation/damper.xml",
       "test/engine/testdata/sensor/contact.xml", "test/engine/testdata/connect.xml",
       "test/engine/testdata/weld.xml", "test/engine/testdata/inertia.xml",
       "test/engine/testdata/tendon_springlength.xml", "test/engine/testdata/frame.xml"]
_GYM = ["ant", "hopper", "reacher", "swimmer"]
_DM = ["cartpole", "acrobot", "finger"]
_ERD = ["ur_description/urdf/ur5_robot.urdf", "panda_description/urdf/panda.urdf",
        "double_pendulum_description/urdf/double_pendulum.urdf",
        "solo_description/robots/solo12.urdf", "z1_description/urdf/z1.urdf"]


def models() -> list[tuple[str, Path]]:
    out = [("menagerie/" + r, SHARED_MODELS / "menagerie" / r) for r in _MEN]
    out += [("mujoco/" + r, SHARED_MODELS / "mujoco" / r) for r in _MJ]
    out += [(f"gymnasium/{f}", SITE / "gymnasium/envs/mujoco/assets" / f"{f}.xml") for f in _GYM]
    out += [(f"dm_control/{f}", SITE / "dm_control/suite" / f"{f}.xml") for f in _DM]
    out += [("erd/" + r, ERD / r) for r in _ERD]
    return [(k, p) for k, p in out if p.exists()]


# ---- mutations --------------------------------------------------------------------------------
KINDS = ["num_zero", "num_negative", "num_huge", "num_inf", "num_nan", "num_few", "num_many",
         "attr_empty", "elem_delete", "elem_repeat", "ref_missing", "deep_chain",
         "replicate_huge", "mesh_corrupt"]
REF_ATTRS = {"joint", "joint1", "joint2", "body", "body1", "body2", "geom", "geom1", "geom2",
             "site", "site1", "site2", "tendon", "tendon1", "tendon2", "mesh", "material",
             "texture", "class", "childclass", "objname", "refsite", "target", "actuator",
             "cranksite", "slidersite", "sidesite", "hfield", "link", "parent", "child"}
SKIP_NUM = {"name", "file", "class", "childclass", "type", "mode", "meshdir", "texturedir",
            "assetdir", "filename", "content_type", "builtin", "mark"}


def _is_num(v: str) -> bool:
    parts = v.split()
    if not parts:
        return False
    try:
        [float(x) for x in parts]
        return True
    except ValueError:
        return False


def _elements(root):
    return [e for e in root.iter() if isinstance(e.tag, str)]


def _numeric(root):
    return [(e, a) for e in _elements(root) for a, v in e.attrib.items()
            if a not in SKIP_NUM and _is_num(v)]


def _set_num(e, a, rng, value):
    parts = e.attrib[a].split()
    if rng.random() < 0.5 or len(parts) == 1:
        parts[rng.randrange(len(parts))] = value
    else:
        parts = [value] * len(parts)
    e.set(a, " ".join(parts))


def _chain_mjcf(root, depth):
    wb = root.find("worldbody")
    if wb is None:
        return False
    parent = wb
    for i in range(depth):
        b = ET.SubElement(parent, "body", name=f"fz_chain{i}", pos="0 0 0.01")
        ET.SubElement(b, "joint", name=f"fz_chain_j{i}", axis="0 1 0")
        ET.SubElement(b, "geom", type="capsule", size="0.002", fromto="0 0 0 0 0 0.01",
                      contype="0", conaffinity="0")
        parent = b
    return True


def _chain_urdf(root, depth):
    links = root.findall("link")
    if not links:
        return False
    prev = links[0].get("name")
    for i in range(depth):
        ln = ET.SubElement(root, "link", name=f"fz_l{i}")
        inert = ET.SubElement(ln, "inertial")
        ET.SubElement(inert, "mass", value="0.01")
        ET.SubElement(inert, "inertia", ixx="1e-6", iyy="1e-6", izz="1e-6", ixy="0", ixz="0",
                      iyz="0")
        j = ET.SubElement(root, "joint", name=f"fz_j{i}", type="revolute")
        ET.SubElement(j, "parent", link=prev)
        ET.SubElement(j, "child", link=f"fz_l{i}")
        ET.SubElement(j, "origin", xyz="0 0 0.01")
        ET.SubElement(j, "axis", xyz="0 1 0")
        ET.SubElement(j, "limit", lower="-1", upper="1", effort="1", velocity="1")
        prev = f"fz_l{i}"
    return True


def _mesh_file(root, model_path: Path):
    """(element, absolute path) of the mesh files the model names in its own file."""
    out = []
    is_urdf = root.tag == "robot"
    meshdir = ""
    for c in root.iter("compiler"):
        meshdir = c.get("meshdir") or c.get("assetdir") or meshdir
    for e in _elements(root):
        if e.tag == "mesh" and (e.get("file") or e.get("filename")):
            f = e.get("filename") if is_urdf else e.get("file")
            p = Path(f) if os.path.isabs(f) else model_path.parent / meshdir / f
            if p.suffix.lower() in (".stl", ".obj", ".msh") and p.exists():
                out.append((e, p))
    return out


def mutate(root, kind, rng, model_path: Path, tmpdir: Path):
    """Apply a mutation of ``kind`` to the tree ``root`` in place; a description, or None when the
    model has nothing it applies to."""
    els = _elements(root)
    is_urdf = root.tag == "robot"
    if kind.startswith("num_") or kind == "attr_empty":
        cands = _numeric(root)
        if not cands:
            return None
        e, a = rng.choice(cands)
        old = e.attrib[a]
        if kind == "num_zero":
            _set_num(e, a, rng, "0")
        elif kind == "num_negative":
            parts = e.attrib[a].split()
            i = rng.randrange(len(parts))
            parts[i] = "-1" if float(parts[i]) == 0 else repr(-abs(float(parts[i])))
            e.set(a, " ".join(parts))
        elif kind == "num_huge":
            _set_num(e, a, rng, rng.choice(["1e30", "-1e30"]))
        elif kind == "num_inf":
            _set_num(e, a, rng, rng.choice(["inf", "-inf"]))
        elif kind == "num_nan":
            _set_num(e, a, rng, "nan")
        elif kind == "num_few":
            parts = old.split()
            e.set(a, " ".join(parts[:max(0, len(parts) - rng.randint(1, max(1, len(parts))))]))
        elif kind == "num_many":
            e.set(a, old + " " + " ".join(["1"] * rng.randint(1, 4)))
        else:
            e.set(a, "")
        return f"<{e.tag} {a}='{old}'> -> '{e.attrib[a]}'"
    if kind in ("elem_delete", "elem_repeat"):
        parent_of = {c: p for p in els for c in p if isinstance(c.tag, str)}
        cands = [e for e in els if e in parent_of]
        named = [e for e in cands if e.get("name")]
        if not cands:
            return None
        # a repeated named element is a duplicated name: draw those more often
        e = rng.choice(named if named and kind == "elem_repeat" and rng.random() < 0.6
                       else cands)
        p = parent_of[e]
        if kind == "elem_delete":
            p.remove(e)
            return f"deleted <{e.tag} name='{e.get('name', '')}'>"
        p.insert(list(p).index(e) + 1, copy.deepcopy(e))
        return f"repeated <{e.tag} name='{e.get('name', '')}'>"
    if kind == "ref_missing":
        cands = [(e, a) for e in els for a in e.attrib if a in REF_ATTRS
                 and not (a == "class" and e.tag == "default")
                 and not (is_urdf and a == "name")]
        if not cands:
            return None
        e, a = rng.choice(cands)
        old = e.attrib[a]
        e.set(a, "fz_nonexistent")
        return f"<{e.tag} {a}='{old}'> -> 'fz_nonexistent'"
    if kind == "deep_chain":
        depth = rng.choice([200, 1000])
        ok = _chain_urdf(root, depth) if is_urdf else _chain_mjcf(root, depth)
        return f"{depth}-deep chain" if ok else None
    if kind == "replicate_huge":
        wb = root.find("worldbody")
        if is_urdf or wb is None:
            return None
        kids = [c for c in wb if c.tag in ("body", "geom", "site")]
        if not kids:
            return None
        c = rng.choice(kids)
        count = rng.choice(["4294967296", "2147483648", "-1", "0", "2.5", "1e3", "30"])
        rep = ET.Element("replicate", count=count, offset="0.1 0 0")
        i = list(wb).index(c)
        wb.remove(c)
        rep.append(c)
        wb.insert(i, rep)
        return f"<replicate count='{count}'> around <{c.tag} name='{c.get('name', '')}'>"
    if kind == "mesh_corrupt":
        files = _mesh_file(root, model_path)
        if not files:
            return None
        e, src = rng.choice(files)
        data = src.read_bytes()
        how = rng.choice(["truncate", "empty", "garbage", "header_only", "flip"])
        if how == "truncate":
            data = data[:rng.randrange(1, max(2, len(data)))]
        elif how == "empty":
            data = b""
        elif how == "garbage":
            data = bytes(rng.randrange(256) for _ in range(rng.choice([10, 84, 200, 2000])))
        elif how == "header_only":
            data = data[:84]
        else:
            b = bytearray(data)
            for _ in range(20):
                i = rng.randrange(len(b))
                b[i] = rng.randrange(256)
            data = bytes(b)
        dst = tmpdir / f"fz_{rng.randrange(10**9)}{src.suffix}"
        dst.write_bytes(data)
        e.set("filename" if is_urdf else "file", str(dst))
        return f"mesh {src.name} {how} ({len(data)} bytes)"
    raise ValueError(kind)


# ---- variant files -------------------------------------------------------------------------------
def _mirror(model_path: Path, work: Path) -> Path:
    """A folder under ``work`` whose entries are symlinks to those of the model's folder, so a
    variant written there finds its includes, meshes and textures by the same relative paths."""
    d = work / ("m_" + str(abs(hash(str(model_path.parent)))))
    if not d.exists():
        d.mkdir(parents=True)
        for entry in model_path.parent.iterdir():
            os.symlink(entry, d / entry.name)
    return d


def _urdf_text(model_path: Path) -> str:
    """URDF text with package:// and relative mesh paths made absolute (both loaders read it)."""
    text = model_path.read_text()
    text = text.replace("package://example-robot-data/robots/", str(ERD) + "/")
    return text


def make_variants(items, n, seed, work: Path):
    """[(variant id, model id, kind, description, path)], n variants over the models, kinds taken
    in turn so each gets about n/len(KINDS)."""
    rng = random.Random(seed)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))  # serializing 1000-deep chains
    out = [(f"{mid}#orig", mid, "orig", "unmutated", _write(mid, p, None, work, 0))
           for mid, p in items]
    parsed = {}
    for mid, p in items:
        text = _urdf_text(p) if p.suffix == ".urdf" else p.read_text()
        parsed[mid] = (ET.fromstring(text), p)
    k = 0
    tries = 0
    while len(out) < n + len(items) and tries < 20 * n:
        tries += 1
        kind = KINDS[k % len(KINDS)]
        mid, p = items[rng.randrange(len(items))]
        root = copy.deepcopy(parsed[mid][0])
        desc = mutate(root, kind, rng, p, work)
        if desc is None:
            continue
        k += 1
        vid = f"{mid}#{k}"
        out.append((vid, mid, kind, desc, _write(mid, p, root, work, k)))
    return out


def _write(mid, p: Path, root, work: Path, k: int) -> str:
    if p.suffix == ".urdf":
        d = work / "urdf"
        d.mkdir(exist_ok=True)
        dst = d / f"v{k}_{p.name}"
        dst.write_text(_urdf_text(p) if root is None else ET.tostring(root, encoding="unicode"))
        return str(dst)
    if root is None:
        return str(p)
    dst = _mirror(p, work) / f"fz_v{k}_{p.name}"
    dst.write_text(ET.tostring(root, encoding="unicode"))
    return str(dst)


# ---- running one variant -----------------------------------------------------------------------
def run_one(prog: str, path: str) -> dict:
    """Load and step ``path`` with ``prog`` ('engine' or 'mujoco') in this process."""
    import warnings
    warnings.simplefilter("ignore")
    if prog == "mujoco":
        import mujoco
        try:
            m = mujoco.MjModel.from_xml_path(path)
        except Exception as e:
            return {"res": "reject", "exc": type(e).__name__, "msg": str(e)[:400]}
        d = mujoco.MjData(m)
        mujoco.mj_step(m, d, NSTEP)
        return {"res": "accept"}
    import engine
    stage = "compile"
    try:
        m = engine.MjModel.from_xml_path(path)
        stage = "step"
        d = engine.MjData(m)
        engine.mj_step(m, d, NSTEP)
    except engine.XMLError as e:
        return {"res": "reject", "exc": type(e).__name__, "msg": str(e)[:400], "stage": stage}
    except NotImplementedError as e:
        return {"res": "unsupported", "exc": "NotImplementedError", "msg": str(e)[:400],
                "stage": stage}
    except BaseException as e:  # noqa: BLE001 - every other exception is the finding
        tb = traceback.format_exc(limit=-3).strip().splitlines()
        where = " | ".join(ln.strip() for ln in tb if ln.strip().startswith("File"))[-300:]
        return {"res": "internal", "exc": type(e).__name__, "msg": str(e)[:400],
                "stage": stage, "where": where}
    return {"res": "accept"}


def _serve(conn, prog):
    # mujoco's and the engine's warnings may go to fd 1/2: keep the report clean
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    # load the kernels before the first variant: their first load is not the variant's time
    import numpy as np  # noqa: F401
    tiny = Path(tempfile.mkdtemp()) / "tiny.xml"
    tiny.write_text('<mujoco><worldbody><geom type="plane" size="1 1 1"/><body pos="0 0 .1">'
                    '<freejoint/><geom size=".05"/></body></worldbody></mujoco>')
    run_one(prog, str(tiny))
    conn.send("ready")
    while True:
        path = conn.recv()
        if path is None:
            return
        conn.send(run_one(prog, path))


class Worker:
    """A worker process for one program; restarted after a timeout or a crash."""

    def __init__(self, prog):
        self.prog = prog
        self._start()

    def _start(self):
        self.conn, child = mp.Pipe()
        self.proc = mp.Process(target=_serve, args=(child, self.prog), daemon=True)
        self.proc.start()
        if not self.conn.poll(STARTUP_TIMEOUT) or self.conn.recv() != "ready":
            raise RuntimeError(f"{self.prog} worker did not start in {STARTUP_TIMEOUT} s")

    def run(self, path, timeout):
        self.conn.send(path)
        if self.conn.poll(timeout):
            try:
                return self.conn.recv()
            except EOFError:
                pass
        alive = self.proc.is_alive()
        self.proc.kill()
        self.proc.join()
        code = self.proc.exitcode
        self._start()
        if alive:
            return {"res": "timeout", "msg": f"no answer in {timeout} s"}
        return {"res": "crash", "msg": f"worker died (exit code {code})"}

    def close(self):
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()


def classify(mj: dict, en: dict) -> str:
    if mj["res"] in ("timeout", "crash"):
        return "mujoco_fails"
    if en["res"] == "crash":
        return "crash"
    if en["res"] == "timeout":
        return "hang"
    if en["res"] == "internal":
        return "internal"
    if en["res"] == "accept":
        return "both_accept" if mj["res"] == "accept" else "engine_accepts_invalid"
    return "both_reject" if mj["res"] == "reject" else "engine_only_reject"


def _slot(variants, results, lock, timeout, progress, total, log):
    mjw, enw = Worker("mujoco"), Worker("engine")
    try:
        while True:
            with lock:
                if not variants:
                    return
                vid, mid, kind, desc, path = variants.pop(0)
            t = time.perf_counter()
            mj = mjw.run(path, timeout)
            en = enw.run(path, timeout)
            r = {"id": vid, "model": mid, "kind": kind, "desc": desc, "path": path,
                 "class": classify(mj, en), "mujoco": mj, "engine": en,
                 "time": round(time.perf_counter() - t, 2)}
            with lock:
                results.append(r)
                if log is not None:
                    log.write(json.dumps(r) + "\n")
                    log.flush()
                if progress:
                    print(f"[{len(results)}/{total}] {vid} {kind}: {r['class']} ({r['time']} s)",
                          file=sys.stderr, flush=True)
    finally:
        mjw.close()
        enw.close()


def run(variants, jobs=2, timeout=60.0, progress=True, log=None):
    """Every variant through both programs on ``jobs`` slots (each an engine and a mujoco
    worker); the records, in the variants' order (each also written to the file ``log`` as a
    JSON line when it is done, so a long run can be read while it goes)."""
    import threading
    todo, results, lock = list(variants), [], threading.Lock()
    order = {v[0]: i for i, v in enumerate(variants)}
    threads = [threading.Thread(target=_slot, args=(todo, results, lock, timeout, progress,
                                                    len(variants), log)) for _ in range(jobs)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return sorted(results, key=lambda r: order[r["id"]])


def report(results, dropped):
    classes = ["both_accept", "both_reject", "engine_only_reject", "engine_accepts_invalid",
               "internal", "crash", "hang", "mujoco_fails"]
    lines = [f"variants: {len(results)} (+ {len(dropped)} models dropped: unmutated model "
             f"not accepted by both)"]
    for mid, why in dropped:
        lines.append(f"  dropped {mid}: {why}")
    c = Counter(r["class"] for r in results)
    lines.append("per class: " + ", ".join(f"{k} {c.get(k, 0)}" for k in classes))
    per = defaultdict(Counter)
    for r in results:
        per[r["kind"]][r["class"]] += 1
    lines.append(f"{'kind':16s}" + "".join(f"{k[:12]:>13s}" for k in classes))
    for kind in ["orig"] + KINDS:
        if kind in per:
            lines.append(f"{kind:16s}" + "".join(f"{per[kind].get(k, 0):13d}" for k in classes))
    for cls in list(BAD) + ["engine_only_reject"]:
        rows = [r for r in results if r["class"] == cls]
        if rows:
            lines.append(f"\n== {cls} ({len(rows)})")
        for r in rows:
            en, mj = r["engine"], r["mujoco"]
            lines.append(f"- {r['id']} [{r['kind']}] {r['desc']}")
            lines.append(f"    engine: {en.get('exc', en['res'])}: {en.get('msg', '')[:300]}"
                         + (f" @ {en['where']}" if en.get("where") else ""))
            lines.append(f"    mujoco: {mj.get('exc', mj['res'])}: "
                         f"{mj.get('msg', '')[:300]}".replace("\n", " "))
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=3000, help="mutated variants (default 3000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--models", default="", help="comma-separated substrings of model ids")
    ap.add_argument("--out", default="", help="write every record as JSON here (and each as a "
                    "JSON line to OUT + 'l' while the run goes)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per program and variant")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    items = models()
    if a.models:
        subs = a.models.split(",")
        items = [(k, p) for k, p in items if any(s in k for s in subs)]
    work = Path(tempfile.mkdtemp(prefix="fuzz_models_"))
    try:
        variants = make_variants(items, a.n, a.seed, work)
        t = time.perf_counter()
        log = open(a.out + "l", "w") if a.out else None
        res = run(variants, a.jobs, a.timeout, not a.quiet, log)
        base = {r["model"]: r for r in res if r["kind"] == "orig"}
        dropped = [(m, f"engine {r['engine']['res']}, mujoco {r['mujoco']['res']}: "
                    f"{r['engine'].get('msg') or r['mujoco'].get('msg', '')}"[:200])
                   for m, r in base.items() if r["class"] != "both_accept"]
        bad_models = {m for m, _ in dropped}
        kept = [r for r in res if r["model"] not in bad_models]
        print(report(kept, dropped))
        print(f"\n{len(res)} variants in {time.perf_counter() - t:.0f} s")
        if a.out:
            Path(a.out).write_text(json.dumps(res, indent=1))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
