"""Measure mujoco's marching-cubes cell table (engine/compiler/sdf_mc_table.py) from its
compiled SDF plugin meshes. Not a test: a tool the table was made with, and the check of it.

    PYTHONPATH=$PWD .venv/bin/python test/engine/sdf_mc_measure.py [--random N] [--seed S]

compiles each plugin (default configs, then N random ones) in mujoco, maps every face to the
one grid cell holding its three vertices' grid edges (the engine's vertex arrays equal
mujoco's, so vertex i of both lies on the same grid edge: engine.compiler.sdf_mesh
.marching_cubes says which), and prints the table in sdf_mc_table's format, with the configs
whose cells disagree with each other or with sdf_mc_table.MEASURED.
"""
from __future__ import annotations

import argparse
import sys

import mujoco
import numpy as np

from engine.compiler import sdf_mc_table, sdf_mesh
from engine.plugin import sdf as psdf


def model_xml(kind, config):
    """A model with one free body whose sdf geom is plugin ``kind`` with ``config``."""
    c = "".join(f'<config key="{k}" value="{v}"/>' for k, v in config.items())
    return (f'<mujoco><extension><plugin plugin="{psdf.NAMES[kind]}"><instance name="p">{c}'
            '</instance></plugin></extension><asset><mesh name="m"><plugin instance="p"/>'
            '</mesh></asset><worldbody><body><freejoint/><geom type="sdf" mesh="m">'
            '<plugin instance="p"/></geom></body></worldbody></mujoco>')


def cell_triangles(m, meshid, kind, attr):
    """{cell linear id: (config, [local edge-id triples in mujoco's order])} of mesh ``meshid``
    of mujoco model ``m``, made by plugin ``kind`` with numeric attributes ``attr``. Raises
    AssertionError when mujoco's vertex count differs from the engine's (the map needs equal
    arrays)."""
    field, _ = sdf_mesh.sdf_field(kind, attr)
    _, _, where = sdf_mesh.marching_cubes(field, psdf.sdf_aabb(kind, attr))
    assert len(where) == m.mesh_vertnum[meshid], "vertex counts differ"
    nz, ny, nx = field.shape
    inside = field < 0
    a, n = m.mesh_faceadr[meshid], m.mesh_facenum[meshid]
    out = {}
    for face in m.mesh_face[a:a + n]:
        w = where[face]                            # (3, 4): axis, i, j, k
        # a cell holds a grid edge when it lies 0 or 1 below it on the edge's two other axes
        lo = np.maximum(w[:, 1:] - (np.arange(3) != w[:, :1]), 0).max(0)
        hi = w[:, 1:].min(0)
        hi = np.minimum(hi, [nx - 2, ny - 2, nz - 2])
        assert (lo == hi).all(), f"face {face} is not in one cell"
        i, j, k = lo
        local = []
        for ax, *p in w:
            o = [p[q] - lo[q] for q in range(3) if q != ax]
            local.append(4 * ax + o[0] + 2 * o[1])
        config = sum(int(inside[k + (c >> 2 & 1), j + (c >> 1 & 1), i + (c & 1)]) << c
                     for c in range(8))
        cell = (k * (ny - 1) + j) * (nx - 1) + i
        out.setdefault(cell, (config, []))[1].append(tuple(local))
    return out


def random_config(rng):
    """(kind, config) of a random plugin: thin tori and bowl shells, gears of many teeth."""
    kind = int(rng.integers(0, 5))
    if kind == psdf.TORUS:
        r1 = rng.uniform(0.1, 1)
        return kind, {"radius1": r1, "radius2": r1 * rng.uniform(0.015, 0.9)}
    if kind == psdf.GEAR:
        return kind, {"alpha": rng.uniform(0, 6.3), "diameter": rng.uniform(0.5, 4),
                      "teeth": int(rng.integers(5, 200)), "thickness": rng.uniform(0.05, 1),
                      "innerdiameter": rng.choice([-1, rng.uniform(0.1, 0.5)])}
    if kind == psdf.BOWL:
        return kind, {"height": rng.uniform(0.05, 0.9), "radius": rng.uniform(1, 2),
                      "thickness": rng.uniform(0.0005, 0.1)}
    return kind, {"radius": rng.uniform(0.1, 0.5)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--random", type=int, default=0, help="random plugin configs to add")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    cases = [(k, {}) for k in range(psdf.NKIND)]
    cases += [random_config(rng) for _ in range(args.random)]
    table, conflicts = {}, set()
    for kind, config in cases:
        try:
            m = mujoco.MjModel.from_xml_string(model_xml(kind, config))
        except ValueError as e:      # e.g. too thin to make a mesh: mujoco refuses it too
            print(f"# skipped {psdf.NAMES[kind]} {config}: {str(e).splitlines()[0]}",
                  file=sys.stderr)
            continue
        attr = psdf.parse_attributes(kind, [str(config.get(k, ""))
                                            for k in psdf.ATTRIBUTES[kind]])
        try:
            cells = cell_triangles(m, 0, kind, attr)
        except AssertionError as e:     # the engine's mesh is not mujoco's: say which
            print(f"# MISMATCH {psdf.NAMES[kind]} {config}: {e}", file=sys.stderr)
            continue
        for cfg, tris in cells.values():
            if table.setdefault(cfg, tris) != tris:
                conflicts.add(cfg)
    for cfg, tris in sorted(table.items()):
        text = " ".join("".join(f"{e:x}" for e in t) for t in tris)
        known = sdf_mc_table.MEASURED.get(cfg)
        flag = "" if known == text else ("  # new" if known is None else "  # DIFFERS")
        print(f"    {cfg}: \"{text}\",{flag}")
    print(f"# {len(table)} configs, {len(conflicts)} with cells that disagree: "
          f"{sorted(conflicts)}", file=sys.stderr)


if __name__ == "__main__":
    main()
