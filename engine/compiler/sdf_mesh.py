"""The mesh of an SDF plugin's <mesh> (seed 002 "sdf"; MuJoCo builds it with marching cubes when
a <mesh> names a plugin instance instead of a file): its vertices and faces, which the mesh phase
then processes like a file's (mass, inertia, the frame of mesh_vert).

MuJoCo's rule, followed here:
- the box is the plugin's sdf_aabb (center c, half-sizes h); the grid has n_k = floor(300 h_k /
  (h_x + h_y + h_z)) + 1 samples along axis k, at c_k - h_k + 2 h_k i / (n_k - 1) (evaluated in
  that order, in double precision), and the field is stored in single precision;
- a vertex lies on every grid edge whose ends differ in sign (inside: value < 0), at the linear
  zero crossing t = v_a / (v_a - v_b) from its lower end, computed in single precision in grid
  units, then mapped back with c_k - h_k + 2 h_k x / (n_k - 1) and rounded to single precision;
  vertices are shared by the cells around an edge, none repeated;
- cells are visited x fastest, then y, then z; each emits the triangles of its corner signs'
  config from the table mujoco uses (engine/compiler/sdf_mc_table.py, measured from its meshes),
  and a vertex is numbered when the first cell that uses it is visited (within a cell, in edge
  order: measured in the interior, where the new edges are a cell's three edges at its (1, 1, 1)
  corner, x before y before z). So the vertex and face arrays equal mujoco's, not only as sets.
The 24 configs mujoco's meshes never showed (sdf_mc_table) are triangulated by this module's
own rule (`_cell_triangles`): on a cube face whose diagonal corners alternate in sign, the
inside corners are kept apart, so neighbouring cells agree and the surface is closed; each loop
of crossings is fanned from its first vertex, oriented with its normal toward the outside. Every
measured entry has this rule's topology; only the diagonals inside a loop may differ.
"""
from __future__ import annotations

import math

import numpy as np

from .._jit import kernel
from ..plugin.sdf import sdf_aabb, sdf_distance
from .sdf_mc_table import MEASURED

GRID_SAMPLES = 300.0    # samples along the three axes together

# cube corner c is at (c & 1, c >> 1 & 1, c >> 2 & 1); edges 0-3 run along x, 4-7 along y,
# 8-11 along z (the ends' corner ids, lower end first)
_EDGES = ((0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7),
          (0, 4), (1, 5), (2, 6), (3, 7))
# the six faces, corners in cyclic order
_FACES = ((0, 2, 6, 4), (1, 3, 7, 5), (0, 1, 5, 4), (2, 3, 7, 6), (0, 1, 3, 2), (4, 5, 7, 6))


def _corner(c):
    return np.array([c & 1, (c >> 1) & 1, (c >> 2) & 1], float)


def _edge_id(a, b):
    for k, (p, q) in enumerate(_EDGES):
        if {p, q} == {a, b}:
            return k
    raise AssertionError


def _cell_triangles(config):
    """The triangles (edge-id triples) of one cell whose inside corners are the bits of
    ``config``, with normals toward the outside (module docstring)."""
    inside = [(config >> c) & 1 for c in range(8)]
    nbr = {}

    def link(e1, e2):
        nbr.setdefault(e1, []).append(e2)
        nbr.setdefault(e2, []).append(e1)
    for f in _FACES:
        es = [_edge_id(f[i], f[(i + 1) % 4]) for i in range(4)]
        cross = [i for i in range(4) if inside[f[i]] != inside[f[(i + 1) % 4]]]
        if len(cross) == 2:
            link(es[cross[0]], es[cross[1]])
        elif len(cross) == 4:
            # alternating face: cut off each inside corner on its own
            if inside[f[0]]:
                link(es[3], es[0])
                link(es[1], es[2])
            else:
                link(es[0], es[1])
                link(es[2], es[3])
    tris, seen = [], set()
    for start in sorted(nbr):
        if start in seen:
            continue
        loop, prev, cur = [start], None, start
        seen.add(start)
        while True:
            a, b = nbr[cur]
            nxt = b if a == prev else a
            if nxt == start:
                break
            loop.append(nxt)
            seen.add(nxt)
            prev, cur = cur, nxt
        mid = [(_corner(_EDGES[e][0]) + _corner(_EDGES[e][1])) / 2 for e in loop]
        normal = sum(np.cross(mid[i], mid[(i + 1) % len(mid)]) for i in range(len(mid)))
        out = sum(_corner(q) - _corner(p) if inside[p] else _corner(p) - _corner(q)
                  for p, q in (_EDGES[e] for e in loop))
        if normal @ out < 0:
            loop = loop[::-1]
        tris += [(loop[0], loop[i], loop[i + 1]) for i in range(1, len(loop) - 1)]
    return tris


def _measured(config):
    """MEASURED[config] as edge-id triples."""
    return [tuple(int(ch, 16) for ch in t) for t in MEASURED[config].split()]


_TABLE = [_measured(c) if c in MEASURED else _cell_triangles(c) for c in range(256)]


def grid_size(aabb):
    """Samples (nx, ny, nz) of the grid over half-sizes aabb[3:6] (module docstring)."""
    total = aabb[3] + aabb[4] + aabb[5]
    return tuple(int(math.floor(GRID_SAMPLES / total * aabb[3 + k])) + 1 for k in range(3))


@kernel
def _fill_field(kind, attr, aabb, field):
    """field[k, j, i] = the plugin's distance at grid sample (i, j, k), in single precision."""
    nz, ny, nx = field.shape
    for i in range(nx):
        x = aabb[0] - aabb[3] + 2 * aabb[3] * i / (nx - 1)
        for j in range(ny):
            y = aabb[1] - aabb[4] + 2 * aabb[4] * j / (ny - 1)
            for k in range(nz):
                z = aabb[2] - aabb[5] + 2 * aabb[5] * k / (nz - 1)
                field[k, j, i] = sdf_distance(kind, attr, x, y, z)


def sdf_field(kind, attr):
    """(field (nz, ny, nx) float32, aabb (6,)): the plugin's distance at the grid samples."""
    aabb = np.asarray(sdf_aabb(kind, attr), float)
    nx, ny, nz = grid_size(aabb)
    field = np.empty((nz, ny, nx), np.float32)
    _fill_field(kind, np.asarray(attr, float), aabb, field)
    return field, aabb


def sdf_mesh(kind, attr):
    """(vertices (nv, 3) float64 holding single-precision values, faces (nf, 3) int32) of SDF
    plugin ``kind`` with numeric attributes ``attr``, in the plugin frame."""
    vert, faces, _ = marching_cubes(*sdf_field(kind, attr))
    return vert, faces


def marching_cubes(field, aabb):
    """(vertices, faces, grid edge of each vertex (nv, 4): axis 0/1/2 for x/y/z and the grid
    index (i, j, k) of its lower end) of the surface field < 0 sampled over box ``aabb``."""
    nz, ny, nx = field.shape
    inside = field < 0
    f32 = np.float32
    ncell = np.array([nx - 1, ny - 1, nz - 1])
    ids, verts, keys, where, nvert = [], [], [], [], 0
    # one vertex per sign-changing grid edge, along x, then y, then z
    for axis in (2, 1, 0):      # array axes of x, y, z
        lo = [slice(None)] * 3
        hi = [slice(None)] * 3
        lo[axis], hi[axis] = slice(0, -1), slice(1, None)
        lo, hi = tuple(lo), tuple(hi)
        cross = inside[lo] != inside[hi]
        idx = np.full(cross.shape, -1, np.int64)
        k, j, i = np.nonzero(cross)
        idx[k, j, i] = np.arange(nvert, nvert + len(k))
        nvert += len(k)
        va, vb = field[lo][k, j, i], field[hi][k, j, i]
        g = [i.astype(f32), j.astype(f32), k.astype(f32)]
        g[2 - axis] = g[2 - axis] + va / (va - vb)
        verts.append(np.stack(g, 1))
        ids.append(idx)
        # the first cell using this edge (module docstring) is the lowest around it: one lower
        # along each other axis unless on the grid's low boundary; the edge's id in that cell
        # counts the other axes' offsets (x before y before z) after the 4 ids of each axis
        p = np.stack([i, j, k], 1)
        where.append(np.concatenate([np.full((len(i), 1), 2 - axis), p], 1))
        off = (p > 0).astype(np.int64)
        off[:, 2 - axis] = 0
        cell = p - off
        o = [off[:, a] for a in range(3) if a != 2 - axis]
        local = 4 * (2 - axis) + o[0] + 2 * o[1]
        keys.append(((cell[:, 2] * ncell[1] + cell[:, 1]) * ncell[0] + cell[:, 0]) * 12 + local)
    gv = np.concatenate(verts)
    n = np.array([nx, ny, nz], float)
    vert = ((2 * aabb[3:6] * gv.astype(float) / (n - 1) + aabb[0:3]) - aabb[3:6])
    vert = vert.astype(f32).astype(float)
    # renumber the vertices in mujoco's order (first use)
    order = np.argsort(np.concatenate(keys), kind="stable")
    rank = np.empty(nvert, np.int64)
    rank[order] = np.arange(nvert)
    vert = vert[order]
    where = np.concatenate(where)[order]
    ids = [np.where(x >= 0, rank[np.maximum(x, 0)], -1) for x in ids]
    # cells: config bits in corner order, and the global vertex of each cell edge
    c = inside
    config = (c[:-1, :-1, :-1] * 1 + c[:-1, :-1, 1:] * 2 + c[:-1, 1:, :-1] * 4
              + c[:-1, 1:, 1:] * 8 + c[1:, :-1, :-1] * 16 + c[1:, :-1, 1:] * 32
              + c[1:, 1:, :-1] * 64 + c[1:, 1:, 1:] * 128).astype(np.int64)
    X, Y, Z = ids
    edge = (X[:-1, :-1, :], X[:-1, 1:, :], X[1:, :-1, :], X[1:, 1:, :],
            Y[:-1, :, :-1], Y[:-1, :, 1:], Y[1:, :, :-1], Y[1:, :, 1:],
            Z[:, :-1, :-1], Z[:, :-1, 1:], Z[:, 1:, :-1], Z[:, 1:, 1:])
    flat = config.ravel()
    cells = np.nonzero((flat != 0) & (flat != 255))[0]
    cfg = flat[cells]
    order, faces = [], []
    shape = config.shape
    for cf in np.unique(cfg):
        sel = cells[cfg == cf]
        kk, jj, ii = np.unravel_index(sel, shape)
        for t, tri in enumerate(_TABLE[cf]):
            faces.append(np.stack([edge[e][kk, jj, ii] for e in tri], 1))
            order.append(sel * 8 + t)
    faces = np.concatenate(faces)
    faces = faces[np.argsort(np.concatenate(order), kind="stable")]
    if (faces < 0).any():
        raise AssertionError("marching cubes: a cell edge without a vertex")
    return vert, faces.astype(np.int32), where
