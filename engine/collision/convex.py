"""Workspace of the native convex collider (engine/collision/nccd.py) and its flat-feature
multi-contact helpers: polygon / segment clipping, contact emission, a cylinder cap's polygon.

Seed 001 (simulation chapter, "Collision detection"): with the multiccd flag (MuJoCo 4: on unless
mjDSBL_MULTICCD) flat features in contact give several contacts. GJK and EPA live in nccd.py (one
implementation, MuJoCo's native collider step for step); what is here is called from it:
  * _clip_edge (a segment by the prism of a convex polygon), _quad_area (of a polygon's
    quadrilateral, squared, for primitive.py's pick of 4 mesh vertices), _quad_area_mj (the
    area as MuJoCo 4's polygonClip measures it, for nccd._polygon_quad), _emit_edge_points (a
    clipped edge's contacts);
  * _cap_polygon: a cylinder's cap as MuJoCo 4's multiccd sees it (a regular 16-gon, from
    MuJoCo's own cos / sin constants).

Conventions: world frame; geom pose ``pos`` (3,), ``mat`` (9,)
row-major; ``size`` (3,) as in geom_size; contacts written to ``dist[k]``, ``pos[k, 0:3]``,
``frame[k, 0:3]`` (normal from geom1 to geom2); ``dist < 0`` is penetration.

Workspace: the kernels allocate nothing. ``work_f`` (float64, ``CCD_NWF`` x 9) and ``work_i``
(int32, ``CCD_NWI`` x 4) are scratch (``convex_workspace()`` makes a pair; the engine's Data has
them as ``ccd_work`` / ``ccd_iwork`` in SCRATCH_TABLE, sizes fixed in engine/_layout.py). The EPA
polytope holds at most ``CCD_VMAX`` vertices, so ``ccd_iterations`` is effectively capped at
``CCD_VMAX - 8``.
"""
from __future__ import annotations

import math

import numpy as np

from .._jit import kernel

# workspace layout (rows of work_f: 9 columns; rows of work_i: 4 columns); nccd.py details the use
CCD_VMAX = 1024                 # EPA polytope vertices
CCD_FMAX = 2 * CCD_VMAX         # EPA faces (a closed triangulated polytope has 2V - 4)
CCD_EMAX = 1024                 # horizon edges of one EPA expansion
CCD_PMAX = 1024                 # clipped polygon points (multiccd); polygons up to CCD_PMAX / 2
_VOFF = 4                       # EPA vertices: w = a - b (0:3), a on geom1 (3:6), b on geom2 (6:9)
_FOFF = _VOFF + CCD_VMAX        # EPA faces
_POFF = _FOFF + CCD_FMAX        # polygons: 2 * CCD_PMAX rows
CCD_NWF = _POFF + 2 * CCD_PMAX
# work_i: faces; face adjacency; horizon edges; face map
_AOFF = CCD_FMAX
_HOFF = 2 * CCD_FMAX
_SKOFF = 2 * CCD_FMAX + CCD_EMAX
CCD_NWI = 2 * CCD_FMAX + 2 * CCD_EMAX

# multi-contact alignment tolerances (MuJoCo 4, measured): faces anti-parallel within the cosine
# FACE_TOL; an edge in a face's plane within the sine EDGE_TOL (the same angle, ~5.09 degrees:
# the switch from one to two contacts lies between tilts of 5.08 and 5.10 degrees)
FACE_TOL = 0.996
EDGE_TOL = 0.0888
_PMAX = CCD_PMAX


def convex_workspace():
    """Scratch arrays of the convex collider: (work_f (CCD_NWF, 9) float64, work_i (CCD_NWI, 4)
    int32)."""
    return np.zeros((CCD_NWF, 9), np.float64), np.zeros((CCD_NWI, 4), np.int32)


# ---- clipping and contact emission ---------------------------------------------------------------
@kernel
def _clip_edge(Ax, Ay, Az, Bx, By, Bz, W, row, col, m, fx, fy, fz):
    """Parameter range [t0, t1] of segment AB inside the prism (along f) of the convex polygon
    W[row:row+m, col:col+3] (counterclockwise about f); t0 > t1 when outside."""
    return _clip_edge_tol(Ax, Ay, Az, Bx, By, Bz, W, row, col, m, fx, fy, fz, 0.0)


@kernel
def _clip_edge_tol(Ax, Ay, Az, Bx, By, Bz, W, row, col, m, fx, fy, fz, eps):
    """_clip_edge with the polygon's prism widened by eps (length; 0 gives _clip_edge exactly):
    an edge ending on the boundary stays inside despite rounding."""
    t0 = 0.0
    t1 = 1.0
    for i in range(m):
        j = (i + 1) % m
        ax, ay, az = W[row + i, col], W[row + i, col + 1], W[row + i, col + 2]
        ex, ey, ez = W[row + j, col] - ax, W[row + j, col + 1] - ay, W[row + j, col + 2] - az
        sx, sy, sz = ey * fz - ez * fy, ez * fx - ex * fz, ex * fy - ey * fx
        sn = math.sqrt(sx * sx + sy * sy + sz * sz)
        da = (Ax - ax) * sx + (Ay - ay) * sy + (Az - az) * sz - eps * sn
        db = (Bx - ax) * sx + (By - ay) * sy + (Bz - az) * sz - eps * sn
        if da > 0 and db > 0:
            return 1.0, 0.0
        if da > 0:
            t0 = max(t0, da / (da - db))
        elif db > 0:
            t1 = min(t1, da / (da - db))
    return t0, t1


@kernel
def _quad_area(W, row, col, a, b, c, d):
    """Squared norm of the diagonals' cross product (c - a) x (d - b) of the quadrilateral a, b,
    c, d: four times its squared area."""
    p = row
    x1 = W[p + c, col] - W[p + a, col]
    y1 = W[p + c, col + 1] - W[p + a, col + 1]
    z1 = W[p + c, col + 2] - W[p + a, col + 2]
    x2 = W[p + d, col] - W[p + b, col]
    y2 = W[p + d, col + 1] - W[p + b, col + 1]
    z2 = W[p + d, col + 2] - W[p + b, col + 2]
    cx, cy, cz = y1 * z2 - z1 * y2, z1 * x2 - x1 * z2, x1 * y2 - y1 * x2
    return cx * cx + cy * cy + cz * cz


@kernel
def _quad_area_mj(W, row, col, a, b, c, d):
    """The area of the quadrilateral a, b, c, d as MuJoCo 4's quadrilateral search measures it
    (read in libmujoco 4.0.0's polygonClip): half the norm of the diagonals' cross product
    (a - c) x (b - d), sqrt((x^2 + y^2) + z^2) / 2. The square root merges neighbouring squared
    values into one double, so a step whose squared area is one ulp larger is no gain in
    MuJoCo (the ties of a regular 16-gon's quadrilaterals). (a - c) x (b - d) is _quad_area's
    (c - a) x (d - b) bit for bit: negating both factors is exact."""
    return math.sqrt(_quad_area(W, row, col, a, b, c, d)) * 0.5


@kernel
def _emit_edge_points(Ax, Ay, Az, Bx, By, Bz, t0, t1, fx, fy, fz, fo, mh, sg, margin, dist, pos,
                      frame):
    """Contacts at the ends t0, t1 of the clipped edge A + t (B - A) against the face plane
    (f, fo) inflated by mh (half a margin, 0 for polytopes): dist = distance to the plane, pos
    halfway to the inflated plane, normal sg * f. A clip that degenerates to one point gives it
    twice, as mujoco does. MuJoCo 4 clips the edge as a 2-gon (A, B, back to A), so an end cut
    by a side plane (t0 > 0, t1 < 1) is in its clipped list twice (the crossing seen from both
    directions) and an end of the edge itself once; of the points below the margin it reports
    the two ends, or the one end left twice when that is a cut end (measured on mesh / box
    edges, capsule and cylinder side lines tilted so that one end is beyond the margin: 2
    contacts at the cut end, 1 at an uncut end)."""
    n = 0
    kept = 0
    for q in range(2):
        t = t0 if q == 0 else t1
        px, py, pz = Ax + (Bx - Ax) * t, Ay + (By - Ay) * t, Az + (Bz - Az) * t
        gapd = px * fx + py * fy + pz * fz - fo - mh       # to the inflated face plane
        dd = gapd + 2.0 * mh
        if dd < margin:
            dist[n] = dd
            pos[n, 0] = px - 0.5 * gapd * fx
            pos[n, 1] = py - 0.5 * gapd * fy
            pos[n, 2] = pz - 0.5 * gapd * fz
            frame[n, 0] = sg * fx
            frame[n, 1] = sg * fy
            frame[n, 2] = sg * fz
            n += 1
            kept = q
    if n == 1 and ((kept == 0 and t0 > 0) or (kept == 1 and t1 < 1)):
        # the cut end alone below the margin: its two copies in MuJoCo's clipped 2-gon
        dist[1] = dist[0]
        for k in range(3):
            pos[1, k] = pos[0, k]
            frame[1, k] = frame[0, k]
        n = 2
    return n


# ---- cylinder caps as faces (multiccd) -------------------------------------------------------------
# MuJoCo 4's multiccd treats a cylinder's cap as a face: the regular 16-gon inscribed in the cap
# circle with a vertex on the local +x axis (vertices at k * 22.5 degrees, measured by clipping a
# cap by a box edge). nccd.py clips with it (cylinder_polytope, cylinder_caps). Its cosines and
# sines are MuJoCo's own constants (libmujoco 4.0.0's cylinderFace tables: 15 significant digits,
# not the correctly rounded values, and cos(45) != sin(45) there): the 16-gon's vertices, hence
# the clipped polygon and the ties among its quadrilaterals, are MuJoCo's to the last bit.
_NCAP = 16
_CAP_COS = (1.0, 0.923879532511287, 0.707106781186548, 0.38268343236509, 0.0, -0.38268343236509,
            -0.707106781186547, -0.923879532511287, -1.0, -0.923879532511287, -0.707106781186548,
            -0.38268343236509, 0.0, 0.38268343236509, 0.707106781186547, 0.923879532511287)
_CAP_SIN = (0.0, 0.38268343236509, 0.707106781186547, 0.923879532511287, 1.0, 0.923879532511287,
            0.707106781186548, 0.38268343236509, 0.0, -0.38268343236509, -0.707106781186547,
            -0.923879532511287, -1.0, -0.923879532511287, -0.707106781186548, -0.38268343236509)


@kernel
def _reverse_polygon(W, row, col, m):
    """Reverse the vertex order of the polygon W[row:row+m, col:col+3] in place (counterclockwise
    about n -> counterclockwise about -n)."""
    for q in range(m // 2):
        r = m - 1 - q
        for k in range(col, col + 3):
            tmp = W[row + q, k]
            W[row + q, k] = W[row + r, k]
            W[row + r, k] = tmp


@kernel
def _cap_polygon(size, pos, mat, cs, W, row, col):
    """The cap of a cylinder (size = radius, half length) on side cs (+1: +z, -1: -z) as MuJoCo
    4's multiccd sees it: the regular _NCAP-gon inscribed in the cap circle with a vertex on the
    local +x axis, counterclockwise about the cap's outward normal cs * axis, into
    W[row:row+_NCAP, col:col+3] (world frame). Vertex k is MuJoCo's vertex (16 - k) % 16 (MuJoCo
    lists them clockwise from +x: _reverse_polygon of rows 1..15 gives its order), computed as
    MuJoCo does: local (r c, -cs r s, cs h) with its tables' c, s, then
    ((m0 x + m1 y) + m2 z) + pos per row."""
    h = size[1]
    r = size[0]
    z = cs * h
    for k in range(_NCAP):
        j = (_NCAP - k) % _NCAP
        x = r * _CAP_COS[j]
        y = cs * (r * -_CAP_SIN[j])
        W[row + k, col] = (mat[0] * x + mat[1] * y) + mat[2] * z + pos[0]
        W[row + k, col + 1] = (mat[3] * x + mat[4] * y) + mat[5] * z + pos[1]
        W[row + k, col + 2] = (mat[6] * x + mat[7] * y) + mat[8] * z + pos[2]
