"""General convex narrow phase: GJK distance, EPA penetration depth, multi-contact for flat faces.

Seed 001 (simulation chapter, "collision detection"): geom pairs without an analytic function go
through the general convex collider; meshes collide through the convex hull of their vertices
(seed 000, <mesh>). Options (seed 000, <option>): ``ccd_tolerance`` ends the iterations early,
``ccd_iterations`` bounds them; flag ``multiccd`` (in MuJoCo 4 a *disable* bit, i.e. on by default)
adds contacts over the flat patch two faces share.

Algorithms (written from the literature, not from any implementation):
  * GJK (Gilbert, Johnson, Keerthi 1988; van den Bergen 1999): distance between the cores of the
    two shapes through the Minkowski difference A - B, closest point of the simplex by Voronoi
    region tests (Ericson, "Real-Time Collision Detection", 5.1).
  * EPA (van den Bergen 2001): when the cores overlap, grow a polytope inside A - B toward its
    boundary point nearest the origin.
  * Spheres and capsules collide as their core (point, segment) inflated by the radius, so their
    answers are exact whenever the cores do not overlap.
  * multiccd (box and mesh hulls only; calibrated against MuJoCo 4, see _multiccd): the witness
    features of both shapes along the EPA normal (support sets) and the faces holding them are
    found. Face-face (faces anti-parallel within cos 0.996): geom1's face is clipped
    (Sutherland-Hodgman) by the prism of geom2's face along geom1's normal, at most 4 points are
    kept (largest-area quadrilateral), normal = -(geom2's face normal), dist = distance to
    geom2's face plane, pos halfway. Edge-face (|edge . face normal| < 0.0888): the edge is
    clipped by the face, normal = that face's normal (sign from geom1 to geom2).
  * multiccd for a capsule / cylinder against a box / mesh (_multiccd_round, calibrated against
    MuJoCo 4 by probing): axis in the plane of a face at the witness (same 0.0888 tolerance) ->
    up to 2 contacts along the line through the witness parallel to the axis; a cylinder cap
    facing a face (cos 0.996) -> the cap as a 16-gon clipped by the face, 4 points. Ellipsoids,
    spheres and round-round pairs keep the single contact.

Conventions (/tmp/contact_interfaces.md): world frame; geom pose ``pos`` (3,), ``mat`` (9,)
row-major; ``size`` (3,) as in geom_size; contacts written to ``dist[k]``, ``pos[k, 0:3]``,
``frame[k, 0:3]`` (normal from geom1 to geom2; the caller completes the tangent rows); ``dist < 0``
is penetration; a contact exists when ``dist < margin``.

Workspace: the kernels allocate nothing. ``work_f`` (float64, ``CCD_NWF`` x 9) and ``work_i``
(int32, ``CCD_NWI`` x 4) are scratch (``convex_workspace()`` makes a pair; the engine's Data has
them as ``ccd_work`` / ``ccd_iwork`` in SCRATCH_TABLE). The EPA polytope holds at most
``CCD_VMAX`` vertices, so ``ccd_iterations`` is effectively capped at ``CCD_VMAX - 4``.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .._access import KERNEL as _J

# geom types (mjtGeom); _PRISM (the hfield type) is one triangular prism of a height field
# (engine/collision/hfield.py): its ``size`` argument holds the 6 vertices (x, y, z each) in the
# geom frame, bottom triangle 0..2 then top triangle 3..5 (same x, y as the bottom ones)
_PRISM = 1
_SPHERE = 2
_CAPSULE = 3
_ELLIPSOID = 4
_CYLINDER = 5
_BOX = 6
_MESH = 7

# workspace layout (rows of work_f: 9 columns; rows of work_i: 4 columns)
CCD_VMAX = 1024                 # EPA polytope vertices
CCD_FMAX = 2 * CCD_VMAX         # EPA faces (a closed triangulated polytope has 2V - 4)
CCD_EMAX = 1024                 # horizon edges of one EPA expansion
CCD_PMAX = 256                  # polygon points for face clipping (multiccd)
_SOFF = 0                       # GJK simplex: 4 rows (w, a, b)
_VOFF = 4                       # EPA vertices: w = a - b (0:3), a on geom1 (3:6), b on geom2 (6:9)
_FOFF = _VOFF + CCD_VMAX        # EPA faces: outward normal (0:3), distance to origin (3)
_POFF = _FOFF + CCD_FMAX        # polygons: 2 * CCD_PMAX rows
CCD_NWF = _POFF + 2 * CCD_PMAX
# work_i: faces (v0, v1, v2, alive); face adjacency (across edges v0v1, v1v2, v2v0);
# horizon edges (v0, v1, outside face, its edge index); depth-first stack (face, next edge)
_AOFF = CCD_FMAX
_HOFF = 2 * CCD_FMAX
_SKOFF = 2 * CCD_FMAX + CCD_EMAX
CCD_NWI = 2 * CCD_FMAX + 2 * CCD_EMAX

_EPS = 1e-15


def convex_workspace():
    """Scratch arrays for convex_collide: (work_f (CCD_NWF, 9) float64, work_i (CCD_NWI, 4) int32)."""
    return np.zeros((CCD_NWF, 9), np.float64), np.zeros((CCD_NWI, 4), np.int32)


# ---- support functions ----------------------------------------------------------------------------
@njit(**_J)
def _mesh_support(vadr, vnum, mesh_vert, gadr, mesh_graph, lx, ly, lz, hint):
    """Vertex of mesh (vadr, vnum) farthest along local direction l: (index in the mesh, hint).

    With the hull graph (mesh_graph at gadr: numvert, numface, vert_edgeadr, vert_globalid,
    edge_localid lists ended by -1, face triples) this hill-climbs from the hull vertex ``hint``
    (a convex polytope has no local maximum but the global one); without it, scans all vertices."""
    if gadr < 0 or vnum <= 16:
        best = -1e300
        ib = 0
        for i in range(vnum):
            v = mesh_vert[vadr + i]
            s = v[0] * lx + v[1] * ly + v[2] * lz
            if s > best:
                best = s
                ib = i
        return ib, hint
    nv = mesh_graph[gadr]
    eadr = gadr + 2
    gid = gadr + 2 + nv
    edge = gadr + 2 + 2 * nv
    cur = hint
    if cur < 0 or cur >= nv:
        cur = 0
    v = mesh_vert[vadr + mesh_graph[gid + cur]]
    best = v[0] * lx + v[1] * ly + v[2] * lz
    while True:
        nxt = -1
        k = edge + mesh_graph[eadr + cur]
        while mesh_graph[k] >= 0:
            nb = mesh_graph[k]
            v = mesh_vert[vadr + mesh_graph[gid + nb]]
            s = v[0] * lx + v[1] * ly + v[2] * lz
            if s > best:
                best = s
                nxt = nb
            k += 1
        if nxt < 0:
            break
        cur = nxt
    return mesh_graph[gid + cur], cur


@njit(**_J)
def _support(gtype, size, pos, mat, vadr, vnum, mesh_vert, gadr, mesh_graph, dx, dy, dz, hint):
    """World point of the geom's core farthest along world direction d: (x, y, z, hint).

    The core of a sphere is its center, of a capsule its axis segment (the radius is added by
    the caller); other shapes are their own core. Meshes: the hull of their vertices."""
    lx = mat[0] * dx + mat[3] * dy + mat[6] * dz
    ly = mat[1] * dx + mat[4] * dy + mat[7] * dz
    lz = mat[2] * dx + mat[5] * dy + mat[8] * dz
    px = 0.0
    py = 0.0
    pz = 0.0
    if gtype == _CAPSULE:
        pz = size[1] if lz >= 0 else -size[1]
    elif gtype == _ELLIPSOID:
        sx = size[0] * lx
        sy = size[1] * ly
        sz = size[2] * lz
        n = math.sqrt(sx * sx + sy * sy + sz * sz)
        if n > _EPS:
            px = size[0] * sx / n
            py = size[1] * sy / n
            pz = size[2] * sz / n
    elif gtype == _CYLINDER:
        r = math.sqrt(lx * lx + ly * ly)
        if r > _EPS:
            px = size[0] * lx / r
            py = size[0] * ly / r
        pz = size[1] if lz >= 0 else -size[1]
    elif gtype == _BOX:
        px = size[0] if lx >= 0 else -size[0]
        py = size[1] if ly >= 0 else -size[1]
        pz = size[2] if lz >= 0 else -size[2]
    elif gtype == _MESH:
        i, hint = _mesh_support(vadr, vnum, mesh_vert, gadr, mesh_graph, lx, ly, lz, hint)
        v = mesh_vert[vadr + i]
        px = v[0]
        py = v[1]
        pz = v[2]
    elif gtype == _PRISM:
        # a top vertex beats the bottom one below it exactly when dir points up
        k0 = 9 if lz >= 0 else 0
        best = size[k0] * lx + size[k0 + 1] * ly + size[k0 + 2] * lz
        kb = k0
        for k in range(k0 + 3, k0 + 9, 3):
            s = size[k] * lx + size[k + 1] * ly + size[k + 2] * lz
            if s > best:
                best = s
                kb = k
        px = size[kb]
        py = size[kb + 1]
        pz = size[kb + 2]
    return (pos[0] + mat[0] * px + mat[1] * py + mat[2] * pz,
            pos[1] + mat[3] * px + mat[4] * py + mat[5] * pz,
            pos[2] + mat[6] * px + mat[7] * py + mat[8] * pz, hint)


@njit(**_J)
def _radius(gtype, size):
    """Radius inflating the core: spheres and capsules."""
    if gtype == _SPHERE or gtype == _CAPSULE:
        return size[0]
    return 0.0


@njit(**_J)
def _msupport(t1, s1, p1, m1, va1, vn1, ga1, t2, s2, p2, m2, va2, vn2, ga2, mesh_vert, mesh_graph,
              dx, dy, dz, h1, h2, W, row):
    """Support of A - B along d (A = core of geom1, B = core of geom2) into W[row]: w, a, b.

    Returns the hill-climbing hints (h1, h2)."""
    ax, ay, az, h1 = _support(t1, s1, p1, m1, va1, vn1, mesh_vert, ga1, mesh_graph, dx, dy, dz, h1)
    bx, by, bz, h2 = _support(t2, s2, p2, m2, va2, vn2, mesh_vert, ga2, mesh_graph, -dx, -dy, -dz,
                              h2)
    r = W[row]
    r[0] = ax - bx
    r[1] = ay - by
    r[2] = az - bz
    r[3] = ax
    r[4] = ay
    r[5] = az
    r[6] = bx
    r[7] = by
    r[8] = bz
    return h1, h2


# ---- GJK -------------------------------------------------------------------------------------------
@njit(**_J)
def _copyrow(W, dst, src):
    if dst != src:
        for k in range(9):
            W[dst, k] = W[src, k]


@njit(**_J)
def _closest_segment(W, i, j):
    """Closest point to the origin on segment W[i]W[j]: (x, y, z, la, lb), la + lb = 1."""
    ax, ay, az = W[i, 0], W[i, 1], W[i, 2]
    ex, ey, ez = W[j, 0] - ax, W[j, 1] - ay, W[j, 2] - az
    ee = ex * ex + ey * ey + ez * ez
    t = 0.0
    if ee > 0:
        t = -(ax * ex + ay * ey + az * ez) / ee
    if t <= 0:
        return ax, ay, az, 1.0, 0.0
    if t >= 1:
        return W[j, 0], W[j, 1], W[j, 2], 0.0, 1.0
    return ax + t * ex, ay + t * ey, az + t * ez, 1.0 - t, t


@njit(**_J)
def _closest_triangle(W, i, j, k):
    """Closest point to the origin on triangle W[i]W[j]W[k]: (x, y, z, la, lb, lc) (Voronoi regions)."""
    ax, ay, az = W[i, 0], W[i, 1], W[i, 2]
    bx, by, bz = W[j, 0], W[j, 1], W[j, 2]
    cx, cy, cz = W[k, 0], W[k, 1], W[k, 2]
    abx, aby, abz = bx - ax, by - ay, bz - az
    acx, acy, acz = cx - ax, cy - ay, cz - az
    d1 = -(abx * ax + aby * ay + abz * az)
    d2 = -(acx * ax + acy * ay + acz * az)
    if d1 <= 0 and d2 <= 0:
        return ax, ay, az, 1.0, 0.0, 0.0
    d3 = -(abx * bx + aby * by + abz * bz)
    d4 = -(acx * bx + acy * by + acz * bz)
    if d3 >= 0 and d4 <= d3:
        return bx, by, bz, 0.0, 1.0, 0.0
    vc = d1 * d4 - d3 * d2
    if vc <= 0 and d1 >= 0 and d3 <= 0:
        v = d1 / (d1 - d3)
        return ax + v * abx, ay + v * aby, az + v * abz, 1.0 - v, v, 0.0
    d5 = -(abx * cx + aby * cy + abz * cz)
    d6 = -(acx * cx + acy * cy + acz * cz)
    if d6 >= 0 and d5 <= d6:
        return cx, cy, cz, 0.0, 0.0, 1.0
    vb = d5 * d2 - d1 * d6
    if vb <= 0 and d2 >= 0 and d6 <= 0:
        w = d2 / (d2 - d6)
        return ax + w * acx, ay + w * acy, az + w * acz, 1.0 - w, 0.0, w
    va = d3 * d6 - d5 * d4
    if va <= 0 and (d4 - d3) >= 0 and (d5 - d6) >= 0:
        w = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        return (bx + w * (cx - bx), by + w * (cy - by), bz + w * (cz - bz), 0.0, 1.0 - w, w)
    den = va + vb + vc
    if den == 0:
        return ax, ay, az, 1.0, 0.0, 0.0
    v = vb / den
    w = vc / den
    return (ax + abx * v + acx * w, ay + aby * v + acy * w, az + abz * v + acz * w,
            1.0 - v - w, v, w)


@njit(**_J)
def _keep(W, n, l0, l1, l2, l3):
    """Drop simplex rows with zero barycentric weight; returns the new count."""
    m = 0
    for q in range(n):
        lq = l0 if q == 0 else (l1 if q == 1 else (l2 if q == 2 else l3))
        if lq > 0:
            _copyrow(W, m, q)
            m += 1
    return m


@njit(**_J)
def _simplex_closest(W, n):
    """Closest point to the origin of the simplex W[0:n] (n = 1..4), reducing it to the smallest
    sub-simplex that holds that point. Returns (n, x, y, z); n = 4 means the origin is inside."""
    if n == 1:
        return 1, W[0, 0], W[0, 1], W[0, 2]
    if n == 2:
        x, y, z, la, lb = _closest_segment(W, 0, 1)
        return _keep(W, 2, la, lb, 0.0, 0.0), x, y, z
    if n == 3:
        x, y, z, la, lb, lc = _closest_triangle(W, 0, 1, 2)
        return _keep(W, 3, la, lb, lc, 0.0), x, y, z
    # tetrahedron: faces opposite each vertex
    best = 1e300
    bx = by = bz = 0.0
    b0 = b1 = b2 = b3 = 0.0
    inside = True
    for f in range(4):
        # face (i, j, k) opposite vertex o
        if f == 0:
            i, j, k, o = 1, 2, 3, 0
        elif f == 1:
            i, j, k, o = 0, 2, 3, 1
        elif f == 2:
            i, j, k, o = 0, 1, 3, 2
        else:
            i, j, k, o = 0, 1, 2, 3
        ex, ey, ez = W[j, 0] - W[i, 0], W[j, 1] - W[i, 1], W[j, 2] - W[i, 2]
        fx, fy, fz = W[k, 0] - W[i, 0], W[k, 1] - W[i, 1], W[k, 2] - W[i, 2]
        nx, ny, nz = ey * fz - ez * fy, ez * fx - ex * fz, ex * fy - ey * fx
        so = nx * (W[o, 0] - W[i, 0]) + ny * (W[o, 1] - W[i, 1]) + nz * (W[o, 2] - W[i, 2])
        sp = -(nx * W[i, 0] + ny * W[i, 1] + nz * W[i, 2])
        if so * sp < 0 or so == 0:
            inside = False
    if inside:
        return 4, 0.0, 0.0, 0.0
    # outside: the nearest of the four faces' nearest points (all faces, not only those that
    # face the origin: a flat tetrahedron makes the side tests unreliable)
    for f in range(4):
        if f == 0:
            i, j, k = 1, 2, 3
        elif f == 1:
            i, j, k = 0, 2, 3
        elif f == 2:
            i, j, k = 0, 1, 3
        else:
            i, j, k = 0, 1, 2
        if True:
            x, y, z, la, lb, lc = _closest_triangle(W, i, j, k)
            dd = x * x + y * y + z * z
            if dd < best:
                best = dd
                bx, by, bz = x, y, z
                lam0 = lam1 = lam2 = lam3 = 0.0
                for q in range(3):
                    vq = i if q == 0 else (j if q == 1 else k)
                    lq = la if q == 0 else (lb if q == 1 else lc)
                    if vq == 0:
                        lam0 = lq
                    elif vq == 1:
                        lam1 = lq
                    elif vq == 2:
                        lam2 = lq
                    else:
                        lam3 = lq
                b0, b1, b2, b3 = lam0, lam1, lam2, lam3
    return _keep(W, 4, b0, b1, b2, b3), bx, by, bz


@njit(**_J)
def _witness(W, n):
    """Witness points (on A, on B) of the current GJK simplex, from its barycentric weights."""
    if n == 1:
        return W[0, 3], W[0, 4], W[0, 5], W[0, 6], W[0, 7], W[0, 8]
    if n == 2:
        x, y, z, l0, l1 = _closest_segment(W, 0, 1)
        l2 = 0.0
    else:
        x, y, z, l0, l1, l2 = _closest_triangle(W, 0, 1, 2)
    ax = ay = az = bx = by = bz = 0.0
    for q in range(3 if n == 3 else 2):
        lq = l0 if q == 0 else (l1 if q == 1 else l2)
        ax += lq * W[q, 3]
        ay += lq * W[q, 4]
        az += lq * W[q, 5]
        bx += lq * W[q, 6]
        by += lq * W[q, 7]
        bz += lq * W[q, 8]
    return ax, ay, az, bx, by, bz


@njit(**_J)
def _gjk(t1, s1, p1, m1, va1, vn1, ga1, t2, s2, p2, m2, va2, vn2, ga2, mesh_vert, mesh_graph,
         W, cutoff, tol, iterations):
    """GJK on the cores: (status, n, vx, vy, vz, h1, h2).

    status 0: the cores are farther apart than ``cutoff`` (no contact possible); 1: separated,
    v = closest point of A - B to the origin, simplex W[0:n] holds its witnesses; 2: the cores
    overlap (or touch), W[0:n] is a simplex holding the origin (n = 4 unless degenerate)."""
    vx = p1[0] - p2[0]
    vy = p1[1] - p2[1]
    vz = p1[2] - p2[2]
    if vx * vx + vy * vy + vz * vz < 1e-20:
        vx, vy, vz = 1.0, 0.0, 0.0
    h1 = 0
    h2 = 0
    h1, h2 = _msupport(t1, s1, p1, m1, va1, vn1, ga1, t2, s2, p2, m2, va2, vn2, ga2, mesh_vert,
                       mesh_graph, -vx, -vy, -vz, h1, h2, W, 0)
    n = 1
    vx, vy, vz = W[0, 0], W[0, 1], W[0, 2]
    c2 = cutoff * cutoff if cutoff > 0 else 0.0
    for _ in range(iterations):
        vv = vx * vx + vy * vy + vz * vz
        if vv < 1e-30:
            return 2, n, vx, vy, vz, h1, h2
        h1, h2 = _msupport(t1, s1, p1, m1, va1, vn1, ga1, t2, s2, p2, m2, va2, vn2, ga2,
                           mesh_vert, mesh_graph, -vx, -vy, -vz, h1, h2, W, n)
        wx, wy, wz = W[n, 0], W[n, 1], W[n, 2]
        vw = vx * wx + vy * wy + vz * wz
        # lower bound on the distance: vw / |v|
        if vw > 0 and vw * vw > vv * c2 and cutoff >= 0:
            return 0, n, vx, vy, vz, h1, h2
        # upper minus lower bound, times |v|
        if vv - vw <= tol * tol + 1e-14 * vv:
            return 1, n, vx, vy, vz, h1, h2
        dup = False
        for q in range(n):
            ex, ey, ez = W[q, 0] - wx, W[q, 1] - wy, W[q, 2] - wz
            if ex * ex + ey * ey + ez * ez < 1e-28:
                dup = True
        if dup:
            return 1, n, vx, vy, vz, h1, h2
        for q in range(n + 1):
            _copyrow(W, _POFF + q, q)
        n1, ux, uy, uz = _simplex_closest(W, n + 1)
        if n1 == 4:
            return 2, n1, ux, uy, uz, h1, h2
        if ux * ux + uy * uy + uz * uz >= vv:
            # no progress (rounding in a flat simplex): keep the previous simplex and point
            for q in range(n):
                _copyrow(W, q, _POFF + q)
            return 1, n, vx, vy, vz, h1, h2
        n, vx, vy, vz = n1, ux, uy, uz
    vv = vx * vx + vy * vy + vz * vz
    if vv < 1e-30:
        return 2, n, vx, vy, vz, h1, h2
    return 1, n, vx, vy, vz, h1, h2


# ---- EPA -------------------------------------------------------------------------------------------
@njit(**_J)
def _face_set(W, I, f, a, b, c):
    """Make face f = (a, b, c) (vertex indices into the EPA vertex rows), outward by winding."""
    A = W[_VOFF + a]
    B = W[_VOFF + b]
    C = W[_VOFF + c]
    ex, ey, ez = B[0] - A[0], B[1] - A[1], B[2] - A[2]
    fx, fy, fz = C[0] - A[0], C[1] - A[1], C[2] - A[2]
    nx, ny, nz = ey * fz - ez * fy, ez * fx - ex * fz, ex * fy - ey * fx
    nn = math.sqrt(nx * nx + ny * ny + nz * nz)
    F = W[_FOFF + f]
    I[f, 0] = a
    I[f, 1] = b
    I[f, 2] = c
    I[f, 3] = 1
    if nn < 1e-300:
        F[0] = 0.0
        F[1] = 0.0
        F[2] = 0.0
        F[3] = 1e300
        return
    nx /= nn
    ny /= nn
    nz /= nn
    F[0] = nx
    F[1] = ny
    F[2] = nz
    # distance of the plane from the origin: average over the vertices (rounding symmetry)
    F[3] = (nx * (A[0] + B[0] + C[0]) + ny * (A[1] + B[1] + C[1]) + nz * (A[2] + B[2] + C[2])) / 3.0


@njit(**_J)
def _epa(t1, s1, p1, m1, va1, vn1, ga1, t2, s2, p2, m2, va2, vn2, ga2, mesh_vert, mesh_graph,
         W, I, n, h1, h2, tol, iterations):
    """EPA from the GJK simplex W[0:n] holding the origin.

    Returns (depth, nx, ny, nz, ax, ay, az, bx, by, bz): the outward normal n of A - B at its
    boundary point nearest the origin (= the contact normal from geom1 to geom2), the depth
    (>= 0) and the witness points a (geom1 core), b (geom2 core) with a - b = depth * n."""
    # complete a degenerate simplex to a tetrahedron
    for _ in range(8):
        if n >= 4:
            break
        if n == 1:
            dx, dy, dz = 1.0, 0.0, 0.0
        elif n == 2:
            ex, ey, ez = W[1, 0] - W[0, 0], W[1, 1] - W[0, 1], W[1, 2] - W[0, 2]
            # any vector orthogonal to the segment
            if abs(ex) <= abs(ey) and abs(ex) <= abs(ez):
                dx, dy, dz = 0.0, -ez, ey
            elif abs(ey) <= abs(ez):
                dx, dy, dz = -ez, 0.0, ex
            else:
                dx, dy, dz = -ey, ex, 0.0
        else:
            ex, ey, ez = W[1, 0] - W[0, 0], W[1, 1] - W[0, 1], W[1, 2] - W[0, 2]
            fx, fy, fz = W[2, 0] - W[0, 0], W[2, 1] - W[0, 1], W[2, 2] - W[0, 2]
            dx, dy, dz = ey * fz - ez * fy, ez * fx - ex * fz, ex * fy - ey * fx
        added = False
        for sgn in (1.0, -1.0):
            h1, h2 = _msupport(t1, s1, p1, m1, va1, vn1, ga1, t2, s2, p2, m2, va2, vn2, ga2,
                               mesh_vert, mesh_graph, sgn * dx, sgn * dy, sgn * dz, h1, h2, W, n)
            # new point must leave the affine hull of the simplex
            gap = (W[n, 0] - W[0, 0]) * dx + (W[n, 1] - W[0, 1]) * dy + (W[n, 2] - W[0, 2]) * dz
            if n == 1:
                ex, ey, ez = W[1, 0] - W[0, 0], W[1, 1] - W[0, 1], W[1, 2] - W[0, 2]
                gap = math.sqrt(ex * ex + ey * ey + ez * ez)
            if abs(gap) > 1e-12 * math.sqrt(dx * dx + dy * dy + dz * dz) + 1e-300:
                added = True
                break
        if not added:
            if n == 1:
                # try the other axes
                for ax_ in range(2):
                    dx, dy, dz = (0.0, 1.0, 0.0) if ax_ == 0 else (0.0, 0.0, 1.0)
                    h1, h2 = _msupport(t1, s1, p1, m1, va1, vn1, ga1, t2, s2, p2, m2, va2, vn2,
                                       ga2, mesh_vert, mesh_graph, dx, dy, dz, h1, h2, W, n)
                    ex, ey, ez = W[1, 0] - W[0, 0], W[1, 1] - W[0, 1], W[1, 2] - W[0, 2]
                    if ex * ex + ey * ey + ez * ez > 1e-24:
                        added = True
                        break
            if not added:
                break
        n += 1
    if n < 4:
        # flat Minkowski difference: touching, zero depth
        ax, ay, az, bx, by, bz = _witness(W, min(n, 3))
        return 0.0, 1.0, 0.0, 0.0, ax, ay, az, bx, by, bz
    for q in range(4):
        _copyrow(W, _VOFF + q, q)
    nv = 4
    # orient the 4 faces outward
    ori = 0.0
    ex, ey, ez = W[1, 0] - W[0, 0], W[1, 1] - W[0, 1], W[1, 2] - W[0, 2]
    fx, fy, fz = W[2, 0] - W[0, 0], W[2, 1] - W[0, 1], W[2, 2] - W[0, 2]
    gx, gy, gz = W[3, 0] - W[0, 0], W[3, 1] - W[0, 1], W[3, 2] - W[0, 2]
    ori = gx * (ey * fz - ez * fy) + gy * (ez * fx - ex * fz) + gz * (ex * fy - ey * fx)
    if ori < 0:   # vertex 3 on the positive side of (0, 1, 2): wind faces the other way
        _face_set(W, I, 0, 0, 1, 2)
        _face_set(W, I, 1, 0, 3, 1)
        _face_set(W, I, 2, 0, 2, 3)
        _face_set(W, I, 3, 1, 3, 2)
    else:
        _face_set(W, I, 0, 0, 2, 1)
        _face_set(W, I, 1, 0, 1, 3)
        _face_set(W, I, 2, 0, 3, 2)
        _face_set(W, I, 3, 1, 2, 3)
    nf = 4
    # adjacency of the tetrahedron: neighbor across edge e = (v_e, v_e+1) has the reverse edge
    for f in range(4):
        for e in range(3):
            a = I[f, e]
            b = I[f, (e + 1) % 3]
            for g in range(4):
                if g != f:
                    for j in range(3):
                        if I[g, j] == b and I[g, (j + 1) % 3] == a:
                            I[_AOFF + f, e] = g
    best = 0
    maxit = min(iterations, CCD_VMAX - 4)
    for it in range(maxit + 1):
        # face nearest the origin
        best = -1
        bd = 1e300
        for f in range(nf):
            if I[f, 3] and W[_FOFF + f, 3] < bd:
                bd = W[_FOFF + f, 3]
                best = f
        if best < 0 or nv >= CCD_VMAX or it == maxit:
            break
        F = W[_FOFF + best]
        nx, ny, nz = F[0], F[1], F[2]
        h1, h2 = _msupport(t1, s1, p1, m1, va1, vn1, ga1, t2, s2, p2, m2, va2, vn2, ga2,
                           mesh_vert, mesh_graph, nx, ny, nz, h1, h2, W, _VOFF + nv)
        w = W[_VOFF + nv]
        if nx * w[0] + ny * w[1] + nz * w[2] - bd < tol:
            break
        # remove the faces that see w, connected to the best face (depth-first over adjacency);
        # the edges from removed to kept faces form the horizon
        ne = 0
        ns = 1
        I[best, 3] = 0
        I[_SKOFF, 0] = best
        I[_SKOFF, 1] = 0
        ok = True
        while ns > 0:
            f = I[_SKOFF + ns - 1, 0]
            e = I[_SKOFF + ns - 1, 1]
            if e == 3:
                ns -= 1
                continue
            I[_SKOFF + ns - 1, 1] = e + 1
            g = I[_AOFF + f, e]
            if I[g, 3] == 0:
                continue
            Fg = W[_FOFF + g]
            A = W[_VOFF + I[g, 0]]
            if Fg[0] * (w[0] - A[0]) + Fg[1] * (w[1] - A[1]) + Fg[2] * (w[2] - A[2]) > 0:
                if ns >= CCD_EMAX:
                    ok = False
                    break
                I[g, 3] = 0
                I[_SKOFF + ns, 0] = g
                I[_SKOFF + ns, 1] = 0
                ns += 1
            else:
                if ne >= CCD_EMAX:
                    ok = False
                    break
                gi = 0
                for j in range(3):
                    if I[_AOFF + g, j] == f:
                        gi = j
                I[_HOFF + ne, 0] = I[f, e]
                I[_HOFF + ne, 1] = I[f, (e + 1) % 3]
                I[_HOFF + ne, 2] = g
                I[_HOFF + ne, 3] = gi
                ne += 1
        if not ok or ne < 3:
            break
        # new faces (a, b, w) on the horizon edges, filling dead slots first
        slot = 0
        for q in range(ne):
            while slot < nf and I[slot, 3]:
                slot += 1
            if slot >= CCD_FMAX:
                ok = False
                break
            _face_set(W, I, slot, I[_HOFF + q, 0], I[_HOFF + q, 1], nv)
            g = I[_HOFF + q, 2]
            I[_AOFF + slot, 0] = g
            I[_AOFF + g, I[_HOFF + q, 3]] = slot
            I[_HOFF + q, 2] = slot
            if slot == nf:
                nf += 1
        if not ok:
            break
        for q in range(ne):
            s = I[_HOFF + q, 2]
            a = I[_HOFF + q, 0]
            b = I[_HOFF + q, 1]
            for r in range(ne):
                if I[_HOFF + r, 0] == b:      # its edge (w, b) is our edge (b, w)
                    I[_AOFF + s, 1] = I[_HOFF + r, 2]
                if I[_HOFF + r, 1] == a:      # its edge (a, w) is our edge (w, a)
                    I[_AOFF + s, 2] = I[_HOFF + r, 2]
        nv += 1
    # witness points: barycentric coordinates of depth * n in the best face
    F = W[_FOFF + best]
    nx, ny, nz, depth = F[0], F[1], F[2], F[3]
    A = W[_VOFF + I[best, 0]]
    B = W[_VOFF + I[best, 1]]
    C = W[_VOFF + I[best, 2]]
    qx, qy, qz = depth * nx, depth * ny, depth * nz
    # areas of the sub-triangles opposite each vertex, projected on n
    la = _tri_area_n(qx, qy, qz, B, C, nx, ny, nz)
    lb = _tri_area_n(qx, qy, qz, C, A, nx, ny, nz)
    lc = _tri_area_n(qx, qy, qz, A, B, nx, ny, nz)
    s = la + lb + lc
    if s != 0:
        la /= s
        lb /= s
        lc /= s
    else:
        la = 1.0
        lb = lc = 0.0
    ax = la * A[3] + lb * B[3] + lc * C[3]
    ay = la * A[4] + lb * B[4] + lc * C[4]
    az = la * A[5] + lb * B[5] + lc * C[5]
    bx = la * A[6] + lb * B[6] + lc * C[6]
    by = la * A[7] + lb * B[7] + lc * C[7]
    bz = la * A[8] + lb * B[8] + lc * C[8]
    return depth, nx, ny, nz, ax, ay, az, bx, by, bz


@njit(**_J)
def _tri_area_n(qx, qy, qz, B, C, nx, ny, nz):
    """Signed area (x2) of triangle (q, B, C) along n."""
    ex, ey, ez = B[0] - qx, B[1] - qy, B[2] - qz
    fx, fy, fz = C[0] - qx, C[1] - qy, C[2] - qz
    return nx * (ey * fz - ez * fy) + ny * (ez * fx - ex * fz) + nz * (ex * fy - ey * fx)


# ---- driver ----------------------------------------------------------------------------------------
@njit(**_J)
def _mesh_args(gtype, dataid, mesh_vertadr, mesh_vertnum, mesh_graphadr):
    if gtype == _MESH:
        return mesh_vertadr[dataid], mesh_vertnum[dataid], mesh_graphadr[dataid]
    return 0, 0, -1


@njit(**_J)
def convex_pair(mesh_vertadr, mesh_vertnum, mesh_vert, mesh_graphadr, mesh_graph,
                type1, dataid1, size1, pos1, mat1, type2, dataid2, size2, pos2, mat2,
                margin, tolerance, iterations, work_f, work_i):
    """Distance or penetration of two convex geoms (GJK, then EPA on overlap).

    Returns (found, dist, nx, ny, nz, ax, ay, az, bx, by, bz): found = 0 when the surfaces are
    farther apart than ``margin``; dist = signed distance between the surfaces (< 0: depth of
    penetration); n = unit normal from geom1 to geom2; a, b = witness points on the surfaces of
    geom1 and geom2 (world frame)."""
    va1, vn1, ga1 = _mesh_args(type1, dataid1, mesh_vertadr, mesh_vertnum, mesh_graphadr)
    va2, vn2, ga2 = _mesh_args(type2, dataid2, mesh_vertadr, mesh_vertnum, mesh_graphadr)
    r1 = _radius(type1, size1)
    r2 = _radius(type2, size2)
    cutoff = margin + r1 + r2
    W = work_f
    status, n, vx, vy, vz, h1, h2 = _gjk(type1, size1, pos1, mat1, va1, vn1, ga1,
                                         type2, size2, pos2, mat2, va2, vn2, ga2,
                                         mesh_vert, mesh_graph, W, cutoff, tolerance, iterations)
    if status == 0:
        return 0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    if status == 1:
        d = math.sqrt(vx * vx + vy * vy + vz * vz)
        ax, ay, az, bx, by, bz = _witness(W, n)
        # normal from a to b: -v
        nx, ny, nz = -vx / d, -vy / d, -vz / d
        dist = d
    else:
        depth, nx, ny, nz, ax, ay, az, bx, by, bz = _epa(
            type1, size1, pos1, mat1, va1, vn1, ga1, type2, size2, pos2, mat2, va2, vn2, ga2,
            mesh_vert, mesh_graph, W, work_i, n, h1, h2, tolerance, iterations)
        dist = -depth
    dist -= r1 + r2
    if dist >= margin:
        return 0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    ax += r1 * nx
    ay += r1 * ny
    az += r1 * nz
    bx -= r2 * nx
    by -= r2 * ny
    bz -= r2 * nz
    return 1, dist, nx, ny, nz, ax, ay, az, bx, by, bz


@njit(**_J)
def convex_collide(mesh_vertadr, mesh_vertnum, mesh_vert, mesh_graphadr, mesh_graph,
                   type1, dataid1, size1, pos1, mat1, type2, dataid2, size2, pos2, mat2,
                   margin, tolerance, iterations, multiccd, dist, pos, frame, work_f, work_i):
    """Contacts between two convex geoms (seed 001 "collision detection": general convex collider).

    Model: mesh_vertadr/mesh_vertnum (nmesh,), mesh_vert (nmeshvert, 3) in the mesh (= geom)
    frame, mesh_graphadr (nmesh,), mesh_graph (nmeshgraph,) MuJoCo's hull graph (-1 adr: none);
    type/dataid/size of each geom; opt.ccd_tolerance, opt.ccd_iterations; multiccd = 1 when the
    multiccd flag is on (MuJoCo 4: mjDSBL_MULTICCD clear).
    Data in: geom pose pos (3,), mat (9,) row-major, world frame; margin (length).
    Data out: dist (n,), pos (n, 3) (midpoint of the witness points), frame (n, 9) row 0:3 = unit
    normal from geom1 to geom2. work_f / work_i: scratch (see module docstring).
    Returns the number of contacts n (<= 8)."""
    found, d, nx, ny, nz, ax, ay, az, bx, by, bz = convex_pair(
        mesh_vertadr, mesh_vertnum, mesh_vert, mesh_graphadr, mesh_graph,
        type1, dataid1, size1, pos1, mat1, type2, dataid2, size2, pos2, mat2,
        margin, tolerance, iterations, work_f, work_i)
    if not found:
        return 0
    if multiccd and (type1 == _BOX or type1 == _MESH) and (type2 == _BOX or type2 == _MESH):
        va1, vn1, ga1 = _mesh_args(type1, dataid1, mesh_vertadr, mesh_vertnum, mesh_graphadr)
        va2, vn2, ga2 = _mesh_args(type2, dataid2, mesh_vertadr, mesh_vertnum, mesh_graphadr)
        if (type1 == _BOX or ga1 >= 0) and (type2 == _BOX or ga2 >= 0):
            n = _multiccd(mesh_vert, mesh_graph, type1, size1, pos1, mat1, va1, vn1, ga1,
                          type2, size2, pos2, mat2, va2, vn2, ga2, nx, ny, nz, margin,
                          dist, pos, frame, work_f)
            if n > 0:
                return n
    # (capsule-box is analytic in mujoco: only capsule-mesh, cylinder-box, cylinder-mesh here)
    if multiccd and ((type1 == _CAPSULE and type2 == _MESH) or
                     (type1 == _CYLINDER and (type2 == _BOX or type2 == _MESH))):
        va2, vn2, ga2 = _mesh_args(type2, dataid2, mesh_vertadr, mesh_vertnum, mesh_graphadr)
        if type2 == _BOX or ga2 >= 0:
            n = _multiccd_round(mesh_vert, mesh_graph, type1, size1, pos1, mat1,
                                type2, size2, pos2, mat2, va2, vn2, ga2, nx, ny, nz,
                                ax, ay, az, margin, dist, pos, frame, work_f)
            if n > 0:
                return n
    dist[0] = d
    pos[0, 0] = 0.5 * (ax + bx)
    pos[0, 1] = 0.5 * (ay + by)
    pos[0, 2] = 0.5 * (az + bz)
    frame[0, 0] = nx
    frame[0, 1] = ny
    frame[0, 2] = nz
    return 1


# ---- multiccd: several contacts between flat features of two polytopes ---------------------------
# Calibrated against MuJoCo 4 (mjDSBL_MULTICCD clear), box/mesh pairs:
#   * face-face when a face of geom1 and a face of geom2 next to the EPA witness features are
#     anti-parallel within _FACE_COS (cosine of their angle);
#   * otherwise edge-face when an edge at geom1's witness feature lies in the plane of a face at
#     geom2's (|edge . face normal| < _EDGE_SIN), or the other way round.
_FACE_COS = 0.996
_EDGE_SIN = 0.0888
_PMAX = CCD_PMAX
_FEPS = 1e-9                    # support-set / coplanarity tolerance (length)


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


@njit(**_J)
def _is_real_edge(gtype, size, pos, mat, va, gadr, mesh_vert, mesh_graph, foff, ga, gb):
    """Whether hull edge (global ids ga, gb) separates two non-coplanar triangles (not a
    triangulation diagonal of a flat face)."""
    nf = mesh_graph[gadr + 1]
    n1x = n1y = n1z = 0.0
    found = 0
    for j in range(nf):
        t = foff + 3 * j
        hit = 0
        for q in range(3):
            g = mesh_graph[t + q]
            if g == ga or g == gb:
                hit += 1
        if hit == 2:
            nx, ny, nz, off = _poly_face(gtype, size, pos, mat, va, gadr, mesh_vert, mesh_graph,
                                         foff, j)
            if found == 0:
                n1x, n1y, n1z = nx, ny, nz
                found = 1
            elif nx * n1x + ny * n1y + nz * n1z < 1.0 - 1e-9:
                return True
    return False


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
def _multiccd(mesh_vert, mesh_graph, t1, s1, p1, m1, va1, vn1, ga1, t2, s2, p2, m2, va2, vn2,
              ga2, nx, ny, nz, margin, dist, pos, frame, W):
    """Contacts over the flat features of two polytopes (box, mesh hull) around the EPA normal n
    (geom1 -> geom2). Returns the number of contacts written, 0 when neither face-face nor
    edge-face applies (the caller keeps the single EPA contact)."""
    c1, a1, b1, mx1 = _support_set(t1, s1, p1, m1, va1, vn1, ga1, mesh_vert, mesh_graph,
                                   nx, ny, nz)
    c2, a2, b2, mx2 = _support_set(t2, s2, p2, m2, va2, vn2, ga2, mesh_vert, mesh_graph,
                                   -nx, -ny, -nz)
    fo1 = _poly_face_off(ga1, mesh_graph) if t1 == _MESH else 0
    fo2 = _poly_face_off(ga2, mesh_graph) if t2 == _MESH else 0
    nf1 = _poly_nface(t1, ga1, mesh_graph)
    nf2 = _poly_nface(t2, ga2, mesh_graph)
    # face-face: the most anti-parallel pair of faces holding the two witness features
    best = _FACE_COS
    j1 = -1
    j2 = -1
    for i in range(nf1):
        ux, uy, uz, uo = _poly_face(t1, s1, p1, m1, va1, ga1, mesh_vert, mesh_graph, fo1, i)
        if ux * nx + uy * ny + uz * nz < 1.0 - 2 * _FACE_COS:   # cheap reject: not near n
            continue
        if not _face_has_feature(t1, s1, p1, m1, va1, vn1, ga1, mesh_vert, mesh_graph,
                                 ux, uy, uz, uo, nx, ny, nz, mx1):
            continue
        for j in range(nf2):
            vx, vy, vz, vo = _poly_face(t2, s2, p2, m2, va2, ga2, mesh_vert, mesh_graph, fo2, j)
            c = -(ux * vx + uy * vy + uz * vz)
            if c >= best and (j1 < 0 or c > best):
                if _face_has_feature(t2, s2, p2, m2, va2, vn2, ga2, mesh_vert, mesh_graph,
                                     vx, vy, vz, vo, -nx, -ny, -nz, mx2):
                    best = c
                    j1 = i
                    j2 = j
    R = _POFF
    if j1 >= 0:
        f1x, f1y, f1z, o1 = _poly_face(t1, s1, p1, m1, va1, ga1, mesh_vert, mesh_graph, fo1, j1)
        f2x, f2y, f2z, o2 = _poly_face(t2, s2, p2, m2, va2, ga2, mesh_vert, mesh_graph, fo2, j2)
        # incident polygon (geom1's face) in columns 0:3, reference (geom2's face) in 6:9,
        # counterclockwise about f1 (= clockwise about its own normal f2)
        m1n = _face_polygon(t1, s1, p1, m1, va1, vn1, ga1, mesh_vert, mesh_graph, f1x, f1y, f1z,
                            W, R, 0, R + _PMAX, 0)
        m2n = _face_polygon(t2, s2, p2, m2, va2, vn2, ga2, mesh_vert, mesh_graph, f2x, f2y, f2z,
                            W, R, 6, R + _PMAX, 1)
        if m1n < 3 or m2n < 3:
            return 0
        for q in range(m2n // 2):      # reverse: ccw about f2 -> ccw about f1
            r = m2n - 1 - q
            for k in range(6, 9):
                tmp = W[R + q, k]
                W[R + q, k] = W[R + r, k]
                W[R + r, k] = tmp
        m, col = _clip_polygon(W, R, 0, m1n, 6, m2n, f1x, f1y, f1z)
        if m == 0:
            return 0
        # p on geom1's face; its distance to geom2's face plane along n = -f2
        return _emit_face_points(W, R, col, m, f2x, f2y, f2z, o2, margin, dist, pos, frame)
    # edge-face: candidates (face of geom2, edge of geom1) then (face of geom1, edge of geom2);
    # box edges in x, y, z order win in enumeration order, mesh edges by smallest |e . f|
    bk = 1e300
    bwhich = 0
    bj = -1
    bu = -1
    bv = -1
    for which in range(2):
        if which == 0:
            tf, sf, pf, mf, vaf, vnf, gaf, fof, nff = t2, s2, p2, m2, va2, vn2, ga2, fo2, nf2
            te, se, pe, me, vae, gae = t1, s1, p1, m1, va1, ga1
            ce, ae, be, mxf = c1, a1, b1, mx2
            dxf, dyf, dzf = -nx, -ny, -nz
        else:
            tf, sf, pf, mf, vaf, vnf, gaf, fof, nff = t1, s1, p1, m1, va1, vn1, ga1, fo1, nf1
            te, se, pe, me, vae, gae = t2, s2, p2, m2, va2, ga2
            ce, ae, be, mxf = c2, a2, b2, mx1
            dxf, dyf, dzf = nx, ny, nz
        if ce > 2:
            continue
        foe = _poly_face_off(gae, mesh_graph) if te == _MESH else 0
        for j in range(nff):
            fx, fy, fz, fo = _poly_face(tf, sf, pf, mf, vaf, gaf, mesh_vert, mesh_graph, fof, j)
            if not _face_has_feature(tf, sf, pf, mf, vaf, vnf, gaf, mesh_vert, mesh_graph,
                                     fx, fy, fz, fo, dxf, dyf, dzf, mxf):
                continue
            # edges at the witness feature of the other geom
            ne = 1 if ce == 2 else (3 if te == _BOX else 0)
            nbadr = 0
            if ce == 1 and te == _MESH:
                nvm = mesh_graph[gae]
                nbadr = gae + 2 + 2 * nvm + mesh_graph[gae + 2 + ae]
                ne = 0
                while mesh_graph[nbadr + ne] >= 0:
                    ne += 1
            for q in range(ne):
                u = ae
                if ce == 2:
                    v = be
                elif te == _BOX:
                    v = ae ^ (4 if q == 0 else (2 if q == 1 else 1))
                else:
                    v = mesh_graph[nbadr + q]
                    gid0 = gae + 2 + mesh_graph[gae]
                    if not _is_real_edge(te, se, pe, me, vae, gae, mesh_vert, mesh_graph, foe,
                                         mesh_graph[gid0 + u], mesh_graph[gid0 + v]):
                        continue
                Ax, Ay, Az = _poly_vert(te, se, pe, me, vae, gae, mesh_vert, mesh_graph, u)
                Bx, By, Bz = _poly_vert(te, se, pe, me, vae, gae, mesh_vert, mesh_graph, v)
                ex, ey, ez = Bx - Ax, By - Ay, Bz - Az
                en = math.sqrt(ex * ex + ey * ey + ez * ez)
                if en < 1e-300:
                    continue
                k = abs(ex * fx + ey * fy + ez * fz) / en
                if k >= _EDGE_SIN:
                    continue
                key = -1.0 if te == _BOX else k
                if key < bk:
                    bk = key
                    bwhich = which
                    bj = j
                    bu = u
                    bv = v
    if bj < 0:
        return 0
    if bwhich == 0:
        tf, sf, pf, mf, vaf, vnf, gaf, fof = t2, s2, p2, m2, va2, vn2, ga2, fo2
        te, se, pe, me, vae, gae = t1, s1, p1, m1, va1, ga1
        sg = -1.0
    else:
        tf, sf, pf, mf, vaf, vnf, gaf, fof = t1, s1, p1, m1, va1, vn1, ga1, fo1
        te, se, pe, me, vae, gae = t2, s2, p2, m2, va2, ga2
        sg = 1.0
    fx, fy, fz, fo = _poly_face(tf, sf, pf, mf, vaf, gaf, mesh_vert, mesh_graph, fof, bj)
    mp = _face_polygon(tf, sf, pf, mf, vaf, vnf, gaf, mesh_vert, mesh_graph, fx, fy, fz,
                       W, R, 6, R + _PMAX, 1)
    if mp < 3:
        return 0
    Ax, Ay, Az = _poly_vert(te, se, pe, me, vae, gae, mesh_vert, mesh_graph, bu)
    Bx, By, Bz = _poly_vert(te, se, pe, me, vae, gae, mesh_vert, mesh_graph, bv)
    t0, t1_ = _clip_edge(Ax, Ay, Az, Bx, By, Bz, W, R, 6, mp, fx, fy, fz)
    if t0 > t1_:
        return 0
    return _emit_edge_points(Ax, Ay, Az, Bx, By, Bz, t0, t1_, fx, fy, fz, fo, 0.0, sg, margin,
                             dist, pos, frame)


@njit(**_J)
def _emit_edge_points(Ax, Ay, Az, Bx, By, Bz, t0, t1, fx, fy, fz, fo, mh, sg, margin, dist, pos,
                      frame):
    """Contacts at the ends t0, t1 of the clipped edge A + t (B - A) against the face plane
    (f, fo) inflated by mh (half a margin, 0 for polytopes): dist = distance to the plane, pos
    halfway to the inflated plane, normal sg * f. A clip that degenerates to one point gives it
    twice, as mujoco does."""
    n = 0
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
    cx, cy, cz = pc[0] + cs * h * ax, pc[1] + cs * h * ay, pc[2] + cs * h * az
    r = sc[0]
    ux, uy, uz = mc[0], mc[3], mc[6]
    vx, vy, vz = mc[1], mc[4], mc[7]
    # cap polygon counterclockwise about its outward normal cs * axis
    for k in range(_NCAP):
        th = 2.0 * math.pi * k / _NCAP
        co = r * math.cos(th)
        si = cs * r * math.sin(th)
        W[R + k, 0] = cx + co * ux + si * vx
        W[R + k, 1] = cy + co * uy + si * vy
        W[R + k, 2] = cz + co * uz + si * vz
    mpn = _face_polygon(tp, sp, pp, mp, vap, vnp, gap, mesh_vert, mesh_graph, fx, fy, fz,
                        W, R, 6, R + _PMAX, 1)
    if mpn < 3:
        return 0
    # the cap is geom1's face (the round geom comes first: capsule 3, cylinder 5 < box 6,
    # mesh 7): clip it by the prism of p's face along the cap normal (as for polytopes)
    g1x, g1y, g1z = cs * ax, cs * ay, cs * az
    for q in range(mpn // 2):      # p's face ccw about f -> ccw about the cap normal (~ -f)
        rr = mpn - 1 - q
        for k in range(6, 9):
            tmp = W[R + q, k]
            W[R + q, k] = W[R + rr, k]
            W[R + rr, k] = tmp
    m, col = _clip_polygon(W, R, 0, _NCAP, 6, mpn, g1x, g1y, g1z)
    rfx, rfy, rfz, rfo = fx, fy, fz, fo
    if m == 0:
        return 0
    # mujoco keeps every selected cap point, also those farther than the margin (measured: a cap
    # tilted by 3 and 5 degrees on a box face gives 4 contacts, one with dist > 0 at margin 0)
    return _emit_face_points(W, R, col, m, rfx, rfy, rfz, rfo, 1e300, dist, pos, frame)


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
