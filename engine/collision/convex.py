"""Workspace of the native convex collider (engine/collision/nccd.py) and its flat-feature
multi-contact helpers: polygon / segment clipping, contact emission, and the multi-contact of a
capsule or cylinder against a box or mesh face.

Seed 001 (simulation chapter, "Collision detection"): with the multiccd flag (MuJoCo 4: on unless
mjDSBL_MULTICCD) flat features in contact give several contacts. GJK and EPA live in nccd.py (one
implementation, MuJoCo's native collider step for step); what is here is called from it:
  * _clip_polygon (Sutherland-Hodgman clip of a polygon by the prism of a convex polygon),
    _clip_edge (a segment by that prism), _emit_face_points (at most 4 points: the largest-area
    quadrilateral; dist to the reference face plane, pos halfway), _emit_edge_points;
  * _multiccd_round (calibrated against MuJoCo 4 by probing, see the comment block below): a
    capsule / cylinder against a box face or a mesh hull face -- the side line along a face
    (edge-face), or a cylinder cap (the 16-gon) facing it (face-face). Box faces come from the
    box; mesh faces from the hull graph's triangles (mjModel.mesh_graph), merged by coplanarity
    (_FEPS).

Conventions (/tmp/contact_interfaces.md): world frame; geom pose ``pos`` (3,), ``mat`` (9,)
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
from numba import njit

from .._access import KERNEL as _J

_CAPSULE = 3
_CYLINDER = 5
_BOX = 6
_MESH = 7

# workspace layout (rows of work_f: 9 columns; rows of work_i: 4 columns); nccd.py details the use
CCD_VMAX = 1024                 # EPA polytope vertices
CCD_FMAX = 2 * CCD_VMAX         # EPA faces (a closed triangulated polytope has 2V - 4)
CCD_EMAX = 1024                 # horizon edges of one EPA expansion
CCD_PMAX = 256                  # polygon points for face clipping (multiccd)
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
_FACE_COS = FACE_TOL
_EDGE_SIN = EDGE_TOL
_PMAX = CCD_PMAX
_FEPS = 1e-9                    # support-set / coplanarity tolerance (length)


def convex_workspace():
    """Scratch arrays of the convex collider: (work_f (CCD_NWF, 9) float64, work_i (CCD_NWI, 4)
    int32)."""
    return np.zeros((CCD_NWF, 9), np.float64), np.zeros((CCD_NWI, 4), np.int32)


# ---- polytope faces (box, mesh hull triangles) ---------------------------------------------------
@njit(**_J)
def _poly_nv(gtype, vnum, gadr, mesh_graph):
    """Number of vertices of the polytope (box corners, mesh hull vertices)."""
    if gtype == _BOX:
        return 8
    if gadr >= 0:
        return mesh_graph[gadr]
    return vnum


@njit(**_J)
def _poly_vert(gtype, size, pos, mat, va, gadr, mesh_vert, mesh_graph, k):
    """World position of polytope vertex k (box: corner with bit 2/1/0 = sign of x/y/z)."""
    if gtype == _BOX:
        px = size[0] if k & 4 else -size[0]
        py = size[1] if k & 2 else -size[1]
        pz = size[2] if k & 1 else -size[2]
    else:
        gi = k
        if gadr >= 0:
            gi = mesh_graph[gadr + 2 + mesh_graph[gadr] + k]
        v = mesh_vert[va + gi]
        px = v[0]
        py = v[1]
        pz = v[2]
    return (pos[0] + mat[0] * px + mat[1] * py + mat[2] * pz,
            pos[1] + mat[3] * px + mat[4] * py + mat[5] * pz,
            pos[2] + mat[6] * px + mat[7] * py + mat[8] * pz)


@njit(**_J)
def _poly_face_off(gadr, mesh_graph):
    """Index in mesh_graph of the hull's face triples (global vertex ids)."""
    nv = mesh_graph[gadr]
    e0 = gadr + 2 + 2 * nv
    k = e0 + mesh_graph[gadr + 2 + nv - 1]
    while mesh_graph[k] >= 0:
        k += 1
    return k + 1


@njit(**_J)
def _poly_nface(gtype, gadr, mesh_graph):
    if gtype == _BOX:
        return 6
    if gadr < 0:
        return 0
    return mesh_graph[gadr + 1]


@njit(**_J)
def _poly_face(gtype, size, pos, mat, va, gadr, mesh_vert, mesh_graph, foff, j):
    """Outward unit normal (world) and plane offset (n . x on the plane) of face j
    (box: axis j // 2, sign + for even j; mesh: hull triangle j)."""
    if gtype == _BOX:
        k = j // 2
        s = 1.0 if j % 2 == 0 else -1.0
        nx, ny, nz = s * mat[k], s * mat[3 + k], s * mat[6 + k]
        return nx, ny, nz, nx * pos[0] + ny * pos[1] + nz * pos[2] + size[k]
    t = foff + 3 * j
    a = mesh_vert[va + mesh_graph[t]]
    b = mesh_vert[va + mesh_graph[t + 1]]
    c = mesh_vert[va + mesh_graph[t + 2]]
    ex, ey, ez = b[0] - a[0], b[1] - a[1], b[2] - a[2]
    fx, fy, fz = c[0] - a[0], c[1] - a[1], c[2] - a[2]
    lx, ly, lz = ey * fz - ez * fy, ez * fx - ex * fz, ex * fy - ey * fx
    ln = math.sqrt(lx * lx + ly * ly + lz * lz)
    if ln < 1e-300:
        return 0.0, 0.0, 0.0, -1e300
    lx /= ln
    ly /= ln
    lz /= ln
    # orient outward: the hull lies below the plane; use the geom center (mesh frame origin is
    # the hull's center of mass, inside the hull)
    if lx * a[0] + ly * a[1] + lz * a[2] < 0:
        lx, ly, lz = -lx, -ly, -lz
    nx = mat[0] * lx + mat[1] * ly + mat[2] * lz
    ny = mat[3] * lx + mat[4] * ly + mat[5] * lz
    nz = mat[6] * lx + mat[7] * ly + mat[8] * lz
    wx = pos[0] + mat[0] * a[0] + mat[1] * a[1] + mat[2] * a[2]
    wy = pos[1] + mat[3] * a[0] + mat[4] * a[1] + mat[5] * a[2]
    wz = pos[2] + mat[6] * a[0] + mat[7] * a[1] + mat[8] * a[2]
    return nx, ny, nz, nx * wx + ny * wy + nz * wz


@njit(**_J)
def _support_set(gtype, size, pos, mat, va, vn, gadr, mesh_vert, mesh_graph, dx, dy, dz):
    """Vertices within _FEPS of the support plane along d: (count, first, second, max)."""
    nv = _poly_nv(gtype, vn, gadr, mesh_graph)
    best = -1e300
    for k in range(nv):
        x, y, z = _poly_vert(gtype, size, pos, mat, va, gadr, mesh_vert, mesh_graph, k)
        s = x * dx + y * dy + z * dz
        if s > best:
            best = s
    cnt = 0
    i0 = -1
    i1 = -1
    for k in range(nv):
        x, y, z = _poly_vert(gtype, size, pos, mat, va, gadr, mesh_vert, mesh_graph, k)
        if x * dx + y * dy + z * dz >= best - _FEPS:
            if cnt == 0:
                i0 = k
            elif cnt == 1:
                i1 = k
            cnt += 1
    return cnt, i0, i1, best


@njit(**_J)
def _face_has_feature(gtype, size, pos, mat, va, vn, gadr, mesh_vert, mesh_graph,
                      fx, fy, fz, off, dx, dy, dz, smax):
    """Whether every vertex of the support set along d (max smax) lies on the plane (f, off)."""
    if off < -1e299:
        return False
    nv = _poly_nv(gtype, vn, gadr, mesh_graph)
    for k in range(nv):
        x, y, z = _poly_vert(gtype, size, pos, mat, va, gadr, mesh_vert, mesh_graph, k)
        if x * dx + y * dy + z * dz >= smax - _FEPS:
            if abs(x * fx + y * fy + z * fz - off) > _FEPS:
                return False
    return True


@njit(**_J)
def _face_polygon(gtype, size, pos, mat, va, vn, gadr, mesh_vert, mesh_graph, fx, fy, fz,
                  W, row, col, keyrow, keycol):
    """Vertices of the face with outward normal f, counterclockwise about f, into
    W[row:row+m, col:col+3] (sort keys in W[keyrow:, keycol]); returns m."""
    cnt, i0, i1, smax = _support_set(gtype, size, pos, mat, va, vn, gadr, mesh_vert, mesh_graph,
                                     fx, fy, fz)
    nv = _poly_nv(gtype, vn, gadr, mesh_graph)
    m = 0
    cx = cy = cz = 0.0
    for k in range(nv):
        x, y, z = _poly_vert(gtype, size, pos, mat, va, gadr, mesh_vert, mesh_graph, k)
        if x * fx + y * fy + z * fz >= smax - _FEPS and m < _PMAX:
            W[row + m, col] = x
            W[row + m, col + 1] = y
            W[row + m, col + 2] = z
            cx += x
            cy += y
            cz += z
            m += 1
    if m < 3:
        return m
    cx /= m
    cy /= m
    cz /= m
    ux, uy, uz = W[row, col] - cx, W[row, col + 1] - cy, W[row, col + 2] - cz
    un = math.sqrt(ux * ux + uy * uy + uz * uz)
    ux /= un
    uy /= un
    uz /= un
    wx, wy, wz = fy * uz - fz * uy, fz * ux - fx * uz, fx * uy - fy * ux
    for q in range(m):
        px, py, pz = W[row + q, col] - cx, W[row + q, col + 1] - cy, W[row + q, col + 2] - cz
        W[keyrow + q, keycol] = math.atan2(px * wx + py * wy + pz * wz, px * ux + py * uy + pz * uz)
    # insertion sort by angle
    for q in range(1, m):
        key = W[keyrow + q, keycol]
        x, y, z = W[row + q, col], W[row + q, col + 1], W[row + q, col + 2]
        r = q - 1
        while r >= 0 and W[keyrow + r, keycol] > key:
            W[keyrow + r + 1, keycol] = W[keyrow + r, keycol]
            W[row + r + 1, col] = W[row + r, col]
            W[row + r + 1, col + 1] = W[row + r, col + 1]
            W[row + r + 1, col + 2] = W[row + r, col + 2]
            r -= 1
        W[keyrow + r + 1, keycol] = key
        W[row + r + 1, col] = x
        W[row + r + 1, col + 1] = y
        W[row + r + 1, col + 2] = z
    return m


# ---- clipping and contact emission ---------------------------------------------------------------
@njit(**_J)
def _clip_edge(Ax, Ay, Az, Bx, By, Bz, W, row, col, m, fx, fy, fz):
    """Parameter range [t0, t1] of segment AB inside the prism (along f) of the convex polygon
    W[row:row+m, col:col+3] (counterclockwise about f); t0 > t1 when outside."""
    return _clip_edge_tol(Ax, Ay, Az, Bx, By, Bz, W, row, col, m, fx, fy, fz, 0.0)


@njit(**_J)
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


@njit(**_J)
def _clip_polygon(W, row, csrc, m, crefc, mr, fx, fy, fz):
    """Clip polygon W[row:row+m, csrc:csrc+3] by the prism (along f) of the convex polygon
    W[row:row+mr, crefc:crefc+3] (counterclockwise about f), ping-ponging between columns
    0:3 and 3:6. Returns (count, column of the result)."""
    src = csrc
    for i in range(mr):
        j = (i + 1) % mr
        ax, ay, az = W[row + i, crefc], W[row + i, crefc + 1], W[row + i, crefc + 2]
        ex = W[row + j, crefc] - ax
        ey = W[row + j, crefc + 1] - ay
        ez = W[row + j, crefc + 2] - az
        sx, sy, sz = ey * fz - ez * fy, ez * fx - ex * fz, ex * fy - ey * fx
        dst = 3 if src == 0 else 0
        k = 0
        for q in range(m):
            r = (q + 1) % m
            Px, Py, Pz = W[row + q, src], W[row + q, src + 1], W[row + q, src + 2]
            Qx, Qy, Qz = W[row + r, src], W[row + r, src + 1], W[row + r, src + 2]
            dp = (Px - ax) * sx + (Py - ay) * sy + (Pz - az) * sz
            dq = (Qx - ax) * sx + (Qy - ay) * sy + (Qz - az) * sz
            if dp <= 0 and k < _PMAX:
                W[row + k, dst] = Px
                W[row + k, dst + 1] = Py
                W[row + k, dst + 2] = Pz
                k += 1
            if dp * dq < 0 and k < _PMAX:
                t = dp / (dp - dq)
                W[row + k, dst] = Px + (Qx - Px) * t
                W[row + k, dst + 1] = Py + (Qy - Py) * t
                W[row + k, dst + 2] = Pz + (Qz - Pz) * t
                k += 1
        m = k
        src = dst
        if m == 0:
            break
    return m, src


@njit(**_J)
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


@njit(**_J)
def _emit_face_points(W, R, col, m, f2x, f2y, f2z, o2, margin, dist, pos, frame):
    """Contacts at the clipped polygon W[R:R+m, col:col+3] (points on geom1's face): at most 4
    (largest-area quadrilateral), dist to geom2's face plane (f2, o2), pos halfway, normal -f2."""
    sel0, sel1, sel2, sel3 = 0, 1, 2, 3
    if m > 4:
        ba = -1.0
        for a in range(m):
            for b in range(a + 1, m):
                for c in range(b + 1, m):
                    for d in range(c + 1, m):
                        ar = _quad_area(W, R, col, a, b, c, d)
                        if ar > ba * (1 + 1e-12) + 1e-300:
                            ba = ar
                            sel0, sel1, sel2, sel3 = a, b, c, d
        m = 4
    n = 0
    for q in range(m):
        s = q
        if q == 0:
            s = sel0
        elif q == 1:
            s = sel1
        elif q == 2:
            s = sel2
        else:
            s = sel3
        px, py, pz = W[R + s, col], W[R + s, col + 1], W[R + s, col + 2]
        dd = px * f2x + py * f2y + pz * f2z - o2
        if dd < margin:
            dist[n] = dd
            pos[n, 0] = px - 0.5 * dd * f2x
            pos[n, 1] = py - 0.5 * dd * f2y
            pos[n, 2] = pz - 0.5 * dd * f2z
            frame[n, 0] = -f2x
            frame[n, 1] = -f2y
            frame[n, 2] = -f2z
            n += 1
    return n


@njit(**_J)
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


# ---- multiccd for capsules and cylinders against a polytope --------------------------------------
# Calibrated against MuJoCo 4 (multiccd on) with a capsule / cylinder on a box or mesh cube:
#   * edge-face: the capsule / cylinder axis lies in the plane of a face of the polytope that holds
#     the polytope's witness feature (|axis . face normal| < _EDGE_SIN, the polytope edge-face
#     tolerance: the switch from 1 to 2 contacts happens between tilts of 84.90 and 84.92 degrees);
#     the "edge" is the line through the primary witness point on the round geom parallel to its
#     axis, between the axial coordinates -h and +h (capsule: the core segment shifted by the
#     witness offset's component perpendicular to the axis, i.e. NOT the radius along the face
#     normal; cylinder: the side line through the rim witness). It is clipped by the face's prism;
#     each end keeps its own distance to the face plane, pos halfway, normal = the face normal.
#     Margin m: the capsule is inflated by m/2 (witness = core point + (r + m/2) normal) and the
#     face plane by m/2, dist = distance between them + m, pos halfway between them; the cylinder's
#     answer does not move with the margin (measured to 1e-9 for m = 0.01, 0.03).
#   * face-face (cylinder only): a cap whose normal is anti-parallel to such a face within
#     _FACE_COS is the regular 16-gon inscribed in the cap circle with a vertex on the local +x
#     axis (vertices at k * 22.5 degrees, measured by clipping a cap by a box edge); it is clipped
#     like a polytope face (geom1's face by the prism of geom2's face).
_NCAP = 16
_ONFACE = 1.0 - 1e-8           # cos: contact normal within 1.4e-4 rad of a face normal


@njit(**_J)
def _reverse_polygon(W, row, col, m):
    """Reverse the vertex order of the polygon W[row:row+m, col:col+3] in place (counterclockwise
    about n -> counterclockwise about -n)."""
    for q in range(m // 2):
        r = m - 1 - q
        for k in range(col, col + 3):
            tmp = W[row + q, k]
            W[row + q, k] = W[row + r, k]
            W[row + r, k] = tmp


@njit(**_J)
def _cap_polygon(size, pos, mat, cs, W, row, col):
    """The cap of a cylinder (size = radius, half length) on side cs (+1: +z, -1: -z) as MuJoCo
    4's multiccd sees it: the regular _NCAP-gon inscribed in the cap circle with a vertex on the
    local +x axis, counterclockwise about the cap's outward normal cs * axis, into
    W[row:row+_NCAP, col:col+3] (world frame)."""
    h = size[1]
    r = size[0]
    cx, cy, cz = pos[0] + cs * h * mat[2], pos[1] + cs * h * mat[5], pos[2] + cs * h * mat[8]
    ux, uy, uz = mat[0], mat[3], mat[6]
    vx, vy, vz = mat[1], mat[4], mat[7]
    for k in range(_NCAP):
        th = 2.0 * math.pi * k / _NCAP
        co = r * math.cos(th)
        si = cs * r * math.sin(th)
        W[row + k, col] = cx + co * ux + si * vx
        W[row + k, col + 1] = cy + co * uy + si * vy
        W[row + k, col + 2] = cz + co * uz + si * vz


@njit(**_J)
def _round_axis_feature(tc, sc, mc, tp, sp, pp, mp, vap, vnp, gap, mesh_vert, mesh_graph, fop, nfp,
                        dpx, dpy, dpz):
    """Face of the polytope (at its support feature along dp) best aligned with the round geom:
    (kind, face): kind 1 = edge-face (axis in the face plane), 2 = cap face-face, 0 = none."""
    cnt, i0, i1, smax = _support_set(tp, sp, pp, mp, vap, vnp, gap, mesh_vert, mesh_graph,
                                     dpx, dpy, dpz)
    ax, ay, az = mc[2], mc[5], mc[8]
    # the face best aligned with dp; when it is within _ONFACE of dp the contact is inside that
    # face (the EPA normal of a curved shape carries ~1e-6 of error, which turns the face's
    # support set into one vertex) and it is the only candidate; otherwise the witness is an edge
    # or vertex and every face holding it is a candidate
    fbest = -1
    cbest = -2.0
    for j in range(nfp):
        fx, fy, fz, fo = _poly_face(tp, sp, pp, mp, vap, gap, mesh_vert, mesh_graph, fop, j)
        c = fx * dpx + fy * dpy + fz * dpz
        if c > cbest and _face_has_feature(tp, sp, pp, mp, vap, vnp, gap, mesh_vert, mesh_graph,
                                           fx, fy, fz, fo, dpx, dpy, dpz, smax):
            cbest = c
            fbest = j
    kind = 0
    best = -1
    bk = -2.0
    for j in range(nfp):
        if cbest > _ONFACE and j != fbest:
            continue
        fx, fy, fz, fo = _poly_face(tp, sp, pp, mp, vap, gap, mesh_vert, mesh_graph, fop, j)
        if fx * dpx + fy * dpy + fz * dpz < 0.0:
            continue
        if not _face_has_feature(tp, sp, pp, mp, vap, vnp, gap, mesh_vert, mesh_graph,
                                 fx, fy, fz, fo, dpx, dpy, dpz, smax):
            continue
        # among the qualifying faces the one facing the round geom best (largest f . dp)
        k = abs(ax * fx + ay * fy + az * fz)
        c = fx * dpx + fy * dpy + fz * dpz
        if c <= bk:
            continue
        if k < _EDGE_SIN:
            kind = 1
            bk = c
            best = j
        elif tc == _CYLINDER and k > _FACE_COS:
            kind = 2
            bk = c
            best = j
    return kind, best


@njit(**_J)
def _multiccd_round(mesh_vert, mesh_graph, tc, sc, pc, mc, tp, sp, pp, mp, vap, vnp, gap,
                    nx, ny, nz, wx, wy, wz, margin, dist, pos, frame, W, caponly=False):
    """Contacts of a capsule / cylinder (c) against a box / mesh hull (p) when the round geom's
    axis is parallel to a face of p at the witness feature, or (cylinder) its cap faces it.

    n = primary contact normal from geom1 to geom2, w = primary witness point on the round geom's
    surface. The round geom is geom1 (MuJoCo orders pairs by type). caponly: only the cylinder
    cap case (engine/collision/nccd.py takes the side-line case from the mesh polygons). Returns
    the number of contacts written, 0 when no feature pair applies (the caller keeps the single
    contact)."""
    # direction from p toward c, along which p's facing feature is its support set
    dpx, dpy, dpz = -nx, -ny, -nz
    fop = _poly_face_off(gap, mesh_graph) if tp == _MESH else 0
    nfp = _poly_nface(tp, gap, mesh_graph)
    kind, j = _round_axis_feature(tc, sc, mc, tp, sp, pp, mp, vap, vnp, gap, mesh_vert,
                                  mesh_graph, fop, nfp, dpx, dpy, dpz)
    if kind == 0 or (caponly and kind != 2):
        return 0
    fx, fy, fz, fo = _poly_face(tp, sp, pp, mp, vap, gap, mesh_vert, mesh_graph, fop, j)
    # normal from geom1 (c) to geom2 (p): minus p's outward face normal
    sg = -1.0
    R = _POFF
    ax, ay, az = mc[2], mc[5], mc[8]
    h = sc[1]
    if kind == 1:
        mh = 0.0
        if tc == _CAPSULE:
            # capsule inflated by margin / 2 along the contact normal (out of the capsule)
            mh = 0.5 * margin
            wx += mh * nx
            wy += mh * ny
            wz += mh * nz
        s = (wx - pc[0]) * ax + (wy - pc[1]) * ay + (wz - pc[2]) * az
        Ax, Ay, Az = wx + (-h - s) * ax, wy + (-h - s) * ay, wz + (-h - s) * az
        Bx, By, Bz = wx + (h - s) * ax, wy + (h - s) * ay, wz + (h - s) * az
        mpn = _face_polygon(tp, sp, pp, mp, vap, vnp, gap, mesh_vert, mesh_graph, fx, fy, fz,
                            W, R, 6, R + _PMAX, 1)
        if mpn < 3:
            return 0
        t0, t1_ = _clip_edge_tol(Ax, Ay, Az, Bx, By, Bz, W, R, 6, mpn, fx, fy, fz, 1e-10)
        if t0 > t1_:
            return 0
        return _emit_edge_points(Ax, Ay, Az, Bx, By, Bz, t0, t1_, fx, fy, fz, fo, mh, sg,
                                 margin, dist, pos, frame)
    # cylinder cap (16-gon) against face j of p; the cap facing p has outward normal -f
    cs = -1.0 if ax * fx + ay * fy + az * fz > 0 else 1.0
    _cap_polygon(sc, pc, mc, cs, W, R, 0)
    mpn = _face_polygon(tp, sp, pp, mp, vap, vnp, gap, mesh_vert, mesh_graph, fx, fy, fz,
                        W, R, 6, R + _PMAX, 1)
    if mpn < 3:
        return 0
    # the cap is geom1's face (the round geom comes first: capsule 3, cylinder 5 < box 6,
    # mesh 7): clip it by the prism of p's face along the cap normal (as for polytopes)
    g1x, g1y, g1z = cs * ax, cs * ay, cs * az
    _reverse_polygon(W, R, 6, mpn)    # p's face ccw about f -> ccw about the cap normal (~ -f)
    m, col = _clip_polygon(W, R, 0, _NCAP, 6, mpn, g1x, g1y, g1z)
    rfx, rfy, rfz, rfo = fx, fy, fz, fo
    if m == 0:
        return 0
    # mujoco keeps every selected cap point, also those farther than the margin (measured: a cap
    # tilted by 3 and 5 degrees on a box face gives 4 contacts, one with dist > 0 at margin 0)
    return _emit_face_points(W, R, col, m, rfx, rfy, rfz, rfo, 1e300, dist, pos, frame)
