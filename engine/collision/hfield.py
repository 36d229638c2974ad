"""Height-field collisions: <hfield> geoms against convex geoms (seed 001, "Contacts": the hfield
row of the collision table; seed 000, asset/hfield and geom type="hfield").

A height field (hfield_size = (x half-size, y half-size, elevation scale, base depth); data in
[0, 1], nrow x ncol row-major, row -> y, column -> x) is a grid of vertices
``(-size[0] + c * dx, -size[1] + r * dy, data[r, c] * size[2])`` with ``dx = 2 size[0] / (ncol-1)``
and ``dy = 2 size[1] / (nrow-1)``. As MuJoCo does, the field collides as a union of convex
triangular prisms: each grid cell splits into two triangles along its diagonal from (r, c) to
(r+1, c+1); a prism is a triangle of the surface over the same triangle at the base ``z = -size[3]``.
Each prism collides with the other geom through MuJoCo's native convex collider (nccd.py: GJK,
EPA; one contact per prism, no multi-contact).

Steps (measured against MuJoCo 4, see test/engine/test_hfield.py), all in the hfield's frame:
  1. reject when the geom's bounding sphere (rbound + margin) misses the box
     [-size0, size0] x [-size1, size1] x [-size3, size2];
  2. the geom's box along the hfield axes from its support points along +-x, +-y, +-z; reject
     when it misses the hfield box by more than margin;
  3. the sub-grid under that box grown by margin in x and y: columns
     floor/ceil((x + size0) / (2 size0) (ncol-1)), rows alike, clamped to the grid;
  4. prisms row by row (r from rmin to rmax-1), along the row a sliding window of vertices
     (c, r+1), (c, r), (c+1, r+1), (c+1, r), ... so that each new vertex closes a triangle with
     the two before it (2 (cmax - cmin) prisms per row);
  5. a prism whose three top vertices, raised by margin, are all below the geom's lowest point is
     skipped; otherwise the prism (tops not raised) and the geom collide with the margin (each
     shape inflated by margin / 2): a contact when the distance prism-geom is below margin, dist
     = the signed distance (< 0: penetration depth), pos = midpoint of the witness points, normal
     from the prism (geom1) to the geom (geom2), mapped to the world frame. The prism is a
     polytope: without margin its pair with a box or mesh is discrete (nccd.py: exact GJK, EPA
     stops on a repeated support point; the prism's support carries no index, so the repeat is
     the other shape's vertex alone and the depth is often short of the minimum penetration --
     measured against MuJoCo 4.0: every contact equal, test_hfield.py
     test_discrete_polytope_early_stop); one contact per prism, as in MuJoCo (no multi-contact:
     the counts agree on every pose measured);
  6. at most ``maxcon`` (MuJoCo's mjMAXCONPAIR = 50) contacts, in that prism order.

Workspace: ``hf_work`` (SCRATCH_TABLE ``hf_work f 4 18``): row 0 the current prism (6 vertices,
hfield frame, tops not raised: the ``size`` of nccd's prism shape), row 1 the sliding window of
prism vertices (tops raised by margin), row 2 the geom's pose in the hfield frame (pos 0:3, mat
3:12), row 3 the prism centroid (0:3) and the identity (3:12).
"""
from __future__ import annotations

import math


from . import nccd

from .._jit import kernel

HF_ROWS, HF_COLS = 4, 18
from ..enums import mjGEOM_MESH as _MESH  # noqa


@kernel
def _geom_extent(type2, size2, lpos, lmat, va, vn, mesh_vert, mesh_graph, mesh_extrema, work_i,
                 ax, sgn):
    """Coordinate ``ax`` of the geom's support point along ``sgn`` * axis ``ax`` (hfield frame):
    nccd's support of the full shape, meshes by a scan of their vertices (same extreme value)."""
    dx = sgn if ax == 0 else 0.0
    dy = sgn if ax == 1 else 0.0
    dz = sgn if ax == 2 else 0.0
    nccd.reset_warmstart(work_i)
    x, y, z = nccd._sup(type2, size2, lpos, lmat, va, vn, -1, 0, 0.0, 0, mesh_vert, mesh_graph,
                        mesh_extrema, dx, dy, dz, work_i, 1)
    if ax == 0:
        return x
    if ax == 1:
        return y
    return z


@kernel
def _push_vertex(win, x, y, z):
    """Slide the prism window: vertices 0 <- 1 <- 2 and 3 <- 4 <- 5, the new one into 2 and 5
    (bottom z stays, the new top gets z)."""
    for j in range(3):
        win[j] = win[3 + j]
        win[3 + j] = win[6 + j]
        win[9 + j] = win[12 + j]
        win[12 + j] = win[15 + j]
    win[6] = x
    win[7] = y
    win[15] = x
    win[16] = y
    win[17] = z


@kernel
def hfield_collide(
    # Model:
    hfield_size, hfield_nrow, hfield_ncol, hfield_adr, hfield_data,
    mesh_vertadr, mesh_vertnum, mesh_vert, mesh_graphadr, mesh_graph, mesh_extrema,
    # the pair: the hfield (its hfield id, world pose), the convex geom
    hid, pos1, mat1, rbound2, type2, dataid2, size2, pos2, mat2,
    # options: detection threshold (margin + gap), convex tolerance/iterations, max contacts
    margin, tolerance, iterations, maxcon,
    # out:
    dist, pos, frame,
    # scratch: hf_work (4 x 18), the convex collider's ccd_work / ccd_iwork
    hf_work, work_f, work_i,
):
    """Contacts of height field ``hid`` (geom1) with a convex geom (geom2), world frame; see the
    module docstring. Returns the number of contacts written (<= maxcon)."""
    s0 = hfield_size[hid, 0]
    s1 = hfield_size[hid, 1]
    s2 = hfield_size[hid, 2]
    s3 = hfield_size[hid, 3]
    nrow = hfield_nrow[hid]
    ncol = hfield_ncol[hid]
    adr = hfield_adr[hid]

    # geom2 in the hfield frame
    lpos = hf_work[2, 0:3]
    lmat = hf_work[2, 3:12]
    ex = pos2[0] - pos1[0]
    ey = pos2[1] - pos1[1]
    ez = pos2[2] - pos1[2]
    for i in range(3):
        lpos[i] = mat1[i] * ex + mat1[3 + i] * ey + mat1[6 + i] * ez
    rad = rbound2 + margin
    if (s0 < lpos[0] - rad or -s0 > lpos[0] + rad or s1 < lpos[1] - rad or -s1 > lpos[1] + rad
            or s2 < lpos[2] - rad or -s3 > lpos[2] + rad):
        return 0
    for i in range(3):
        for j in range(3):
            lmat[3 * i + j] = (mat1[i] * mat2[j] + mat1[3 + i] * mat2[3 + j]
                               + mat1[6 + i] * mat2[6 + j])

    # the geom's box along the hfield axes
    va = mesh_vertadr[dataid2] if type2 == _MESH else 0
    vn = mesh_vertnum[dataid2] if type2 == _MESH else 0
    xmax = _geom_extent(type2, size2, lpos, lmat, va, vn, mesh_vert, mesh_graph, mesh_extrema,
                         work_i, 0, 1.0)
    xmin = _geom_extent(type2, size2, lpos, lmat, va, vn, mesh_vert, mesh_graph, mesh_extrema,
                         work_i, 0, -1.0)
    ymax = _geom_extent(type2, size2, lpos, lmat, va, vn, mesh_vert, mesh_graph, mesh_extrema,
                         work_i, 1, 1.0)
    ymin = _geom_extent(type2, size2, lpos, lmat, va, vn, mesh_vert, mesh_graph, mesh_extrema,
                         work_i, 1, -1.0)
    zmax = _geom_extent(type2, size2, lpos, lmat, va, vn, mesh_vert, mesh_graph, mesh_extrema,
                         work_i, 2, 1.0)
    zmin = _geom_extent(type2, size2, lpos, lmat, va, vn, mesh_vert, mesh_graph, mesh_extrema,
                         work_i, 2, -1.0)
    if (xmin - margin > s0 or xmax + margin < -s0 or ymin - margin > s1 or ymax + margin < -s1
            or zmin - margin > s2 or zmax + margin < -s3):
        return 0

    # sub-grid under the box grown by margin in x and y (measured: MuJoCo 4 visits the cells a
    # geom within margin of the field's edge reaches)
    xmin -= margin
    xmax += margin
    ymin -= margin
    ymax += margin
    cmin = max(0, int(math.floor((xmin + s0) / (2.0 * s0) * (ncol - 1))))
    cmax = min(ncol - 1, int(math.ceil((xmax + s0) / (2.0 * s0) * (ncol - 1))))
    rmin = max(0, int(math.floor((ymin + s1) / (2.0 * s1) * (nrow - 1))))
    rmax = min(nrow - 1, int(math.ceil((ymax + s1) / (2.0 * s1) * (nrow - 1))))
    dx = (2.0 * s0) / (ncol - 1)
    dy = (2.0 * s1) / (nrow - 1)

    rel = hf_work[0]
    win = hf_work[1]
    cpos = hf_work[3, 0:3]
    ident = hf_work[3, 3:12]
    for j in range(9):
        ident[j] = 1.0 if (j == 0 or j == 4 or j == 8) else 0.0
    for k in range(3):
        win[3 * k + 2] = -s3
    n = 0
    for r in range(rmin, rmax):
        for c in range(cmin, cmax + 1):
            for i in range(2):
                rr = r + 1 - i
                _push_vertex(win, dx * c - s0, dy * rr - s1,
                             hfield_data[adr + rr * ncol + c] * s2 + margin)
                if c == cmin:
                    continue
                # prism height test (tops raised by margin) against the geom's lowest point
                if win[11] < zmin and win[14] < zmin and win[17] < zmin:
                    continue
                # the prism: tops without the margin (the collider inflates by it); its
                # center (GJK's start) is the mean of the 6 vertices
                for j in range(3):
                    cpos[j] = 0.0
                for k in range(6):
                    zk = win[3 * k + 2] - margin if k >= 3 else win[3 * k + 2]
                    rel[3 * k] = win[3 * k]
                    rel[3 * k + 1] = win[3 * k + 1]
                    rel[3 * k + 2] = zk
                    cpos[0] += win[3 * k]
                    cpos[1] += win[3 * k + 1]
                    cpos[2] += zk
                for j in range(3):
                    cpos[j] *= 1.0 / 6.0
                st, dd, ax, ay, az, bx, by, bz, _f = nccd.ccd(
                    mesh_vertadr, mesh_vertnum, mesh_vert, mesh_graphadr, mesh_graph,
                    mesh_extrema, nccd._PRISM, 0, rel, cpos, ident, type2, dataid2, size2, lpos,
                    lmat, margin, tolerance, iterations, work_f, work_i)
                if st == 0:
                    continue
                d = margin + dd
                nx, ny, nz = ax - bx, ay - by, az - bz
                nn = math.sqrt(nx * nx + ny * ny + nz * nz)
                if nn > 1e-15:
                    nx /= nn
                    ny /= nn
                    nz /= nn
                px = 0.5 * (ax + bx)
                py = 0.5 * (ay + by)
                pz = 0.5 * (az + bz)
                dist[n] = d
                for j in range(3):
                    pos[n, j] = pos1[j] + mat1[3 * j] * px + mat1[3 * j + 1] * py \
                        + mat1[3 * j + 2] * pz
                    frame[n, j] = mat1[3 * j] * nx + mat1[3 * j + 1] * ny + mat1[3 * j + 2] * nz
                for j in range(3, 9):
                    frame[n, j] = 0.0
                n += 1
                if n >= maxcon:
                    return n
    return n
