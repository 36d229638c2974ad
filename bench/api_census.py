"""Census of the official `mujoco` module's public names and which of them `engine` provides.

Run ``.venv/bin/python bench/api_census.py [--write]``: prints per-group coverage and the missing
names; ``--write`` replaces the table between the API-census markers of README.md.

Which names count (the exclusion rule, printed with the table):
- public: the names of ``dir(mujoco)`` not starting with ``_``;
- not counted: modules (``np``, ``os``, ``glfw``, ``rendering``, ...) and typing helpers (``Any``,
  ``IO``, ``Sequence``, ``TypeAlias``, ``Union``) the module happens to import;
- rendering-only, not counted: OpenGL rendering (``mjr_*`` functions, ``Mjr*`` classes except
  ``MjrRect``, ``mjr*`` enums, ``GLContext``, ``Renderer``), the abstract scene
  (``MjvScene``, ``MjvGeom``, ``MjvLight``, ``MjvGLCamera``, ``MjvFigure``,
  ``mj_printScene``, ``mj_printFormattedScene``) and the ``mjv_*`` functions that build or move
  the scene or its camera: every ``mjv_*`` except ``mjv_default*`` and the perturbation ones
  (``mjv_*Perturb*``, which write ``d.xfrc_applied`` / mocap poses: physics).
A name counts as provided when ``engine`` has it and it is not a placeholder that only raises
NotImplementedError when made or called (``_not_built`` set on it).
"""
from __future__ import annotations

import argparse
import re
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BEGIN = "<!-- api-census:begin (bench/api_census.py --write) -->"
END = "<!-- api-census:end -->"

TYPING = {"Any", "IO", "Sequence", "TypeAlias", "Union"}
SCENE_CLASSES = {"MjvScene", "MjvGeom", "MjvLight", "MjvGLCamera", "MjvFigure"}
SCENE_FUNCS = {"mj_printScene", "mj_printFormattedScene"}

GROUPS = ("mj_*", "mju_*", "mjd_*", "Mj* classes", "mjt* enums", "constants", "callbacks",
          "other")


def excluded(name, obj):
    """Why ``name`` is not counted (a short reason), or None when it is."""
    if name.startswith("_"):
        return "private"
    if isinstance(obj, types.ModuleType):
        return "module"
    if name in TYPING:
        return "typing"
    if name.startswith(("mjr_", "mjr")) or name in ("GLContext", "Renderer"):
        return "rendering"
    if name.startswith("Mjr") and name != "MjrRect":
        return "rendering"
    if name in SCENE_CLASSES or name in SCENE_FUNCS:
        return "rendering"
    if name.startswith("mjv_") and not name.startswith("mjv_default") and "Perturb" not in name:
        return "rendering"
    return None


def group(name, obj):
    """The census group of a counted name."""
    if name.startswith(("set_mjcb_", "get_mjcb_", "set_mju_user", "get_mju_user")):
        return "callbacks"
    if name.startswith("mjd_"):
        return "mjd_*"
    if name.startswith("mju_"):
        return "mju_*"
    if name.startswith(("mj_", "mjv_")):
        return "mj_*"
    if name.startswith("mjt"):
        return "mjt* enums"
    if name.startswith("Mj") and isinstance(obj, type):
        return "Mj* classes"
    if re.match(r"mj[A-Z]", name) and not callable(obj):
        return "constants"
    return "other"


def provided(engine, name):
    """True when ``engine`` has ``name`` as a working object (not a NotImplementedError
    placeholder)."""
    obj = getattr(engine, name, None)
    if obj is None and not hasattr(engine, name):
        return False
    return not getattr(obj, "_not_built", False)


def census():
    """{group: [(name, provided)]} and {reason: [names]} of the excluded names."""
    import mujoco
    import engine
    groups = {g: [] for g in GROUPS}
    skipped = {}
    for name in sorted(dir(mujoco)):
        obj = getattr(mujoco, name)
        why = excluded(name, obj)
        if why:
            skipped.setdefault(why, []).append(name)
            continue
        groups[group(name, obj)].append((name, provided(engine, name)))
    return groups, skipped


def table(groups, skipped, version):
    """The Markdown written between the README's markers."""
    tot = sum(len(v) for v in groups.values())
    have = sum(ok for v in groups.values() for _, ok in v)
    lines = [BEGIN, "",
             f"Coverage of the public names of `mujoco` {version} outside rendering: "
             f"**{have}/{tot} ({100.0 * have / tot:.1f}%)**. Not counted: "
             + ", ".join(f"{k} {len(v)}" for k, v in sorted(skipped.items()))
             + " (rule: `bench/api_census.py`).", "",
             "| group | provided | total | missing |", "|---|---|---|---|"]
    for g in GROUPS:
        rows = groups[g]
        if not rows:
            continue
        miss = [n for n, ok in rows if not ok]
        lines.append(f"| {g} | {len(rows) - len(miss)} | {len(rows)} | "
                     + (", ".join(f"`{n}`" for n in miss) or "-") + " |")
    lines += ["", "<details><summary>every counted name</summary>", ""]
    for g in GROUPS:
        if groups[g]:
            lines.append(f"- {g}: " + ", ".join(
                (f"`{n}`" if ok else f"~~`{n}`~~") for n, ok in groups[g]))
    lines += ["", "</details>", "", END]
    return "\n".join(lines), have, tot


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--write", action="store_true", help="update README.md between the markers")
    args = ap.parse_args(argv)
    import mujoco
    groups, skipped = census()
    text, have, tot = table(groups, skipped, mujoco.__version__)
    for g in GROUPS:
        rows = groups[g]
        if rows:
            miss = [n for n, ok in rows if not ok]
            print(f"{g:12s} {len(rows) - len(miss):4d}/{len(rows):<4d} missing: "
                  + " ".join(miss))
    print(f"total {have}/{tot} = {100.0 * have / tot:.1f}% of non-rendering names; excluded: "
          + ", ".join(f"{k} {len(v)}" for k, v in sorted(skipped.items())))
    if args.write:
        readme = ROOT / "README.md"
        src = readme.read_text()
        if BEGIN in src and END in src:
            head, rest = src.split(BEGIN, 1)
            src = head + text + rest.split(END, 1)[1]
        else:
            src = src.rstrip("\n") + "\n\n## API coverage\n\n" + text + "\n"
        readme.write_text(src)
        print(f"wrote {readme}")


if __name__ == "__main__":
    main()
