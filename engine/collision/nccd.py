"""MuJoCo's native convex collider ("nativeccd"): GJK, EPA and the polygon multi-contact.

Seed 001 (simulation chapter, "Collision detection"): pairs without an analytic routine go
through the general convex collider; meshes collide as the convex hull of their vertices, and
with the multiccd flag (MuJoCo 4: on unless mjDSBL_MULTICCD) flat features in contact give
several contacts. This is the engine's one GJK / EPA: every pair MuJoCo 4 sends to mjc_Convex
(sphere, capsule, ellipsoid, cylinder, box, mesh without an analytic routine; see
narrowphase.is_analytic), the height-field prisms (hfield.py) and the distance query
(``ccd_distance``, distance.py).

This module follows the published algorithms that MuJoCo's native collider is built from, step
for step, so that its answers (including those of EPA stopped at ``ccd_tolerance``, and the
choice among equal support points) are the same as MuJoCo's:

  * support functions: box corners and mesh vertices carry an index (box corner bits x=1, y=2,
    z=4; mesh vertex id); a mesh with a hull graph (mjModel.mesh_graph) and >= 10 vertices is
    searched by steepest-ascent hill climbing from the previous answer, smaller ones by a scan
    that keeps the previous answer on ties; the climb starts from mjModel.mesh_extrema (the
    extreme hull vertex of each of 27 grid directions) or the previous answer when that is at
    least as far. A pair margin m > 0 inflates each shape by m / 2.
  * GJK (Gilbert, Johnson, Keerthi 1988) with the signed-volume distance sub-algorithm
    (Montanari, Petrinic, Barbieri, ACM ToG 2017), Frank-Wolfe duality-gap stop; in contact mode
    a separating support plane ends it early.
  * Spheres and capsules first run GJK on their core (point / segment), and so does every pair
    with a margin (the shapes without it); a core distance above the tolerance gives the contact
    directly (inflated by radius + margin / 2 on each side); otherwise GJK + EPA run on the full
    (inflated) shapes.
  * EPA (van den Bergen 2001) from a tetrahedron (or a hexahedron grown around a GJK triangle or
    segment), face map of candidate faces, horizon by depth-first search over face adjacency;
    discrete pairs (boxes, meshes, a height-field prism against either; no margin) stop on a
    repeated support point (a pair of support indices, the prism's always -1).
  * multi-contact (box / mesh pairs): the features of both shapes at the EPA face (from the
    support indices; for a pair with a margin separated within it, the final GJK simplex of the
    core pass) give candidate face normals through mjModel.mesh_polymap / mesh_polynormal; a
    face pair anti-parallel (or an edge in a face's plane) within the alignment tolerance is
    clipped (Sutherland-Hodgman against the face's side planes), at most 4 points (largest
    quadrilateral). The features are the shapes' own vertices, without the margin.
  * capsule against a mesh: the mesh feature (GJK simplex of the core pass, or the EPA face)
    gives the candidate polygons; one whose plane holds the axis gives two contacts along the
    side line. Cylinder against a box or mesh (cylinder_polytope): the polytope rules with the
    cylinder's cap (a 16-gon) as a face and its side line as an edge. Capsule / cylinder
    against a cylinder (cylinder_caps): a cap holding the cylinder's final feature is a 16-gon
    face against the other's axis / side line (2 contacts) or cap (up to 4).

Measured against MuJoCo 4.0.0 where it departs from the published description (each found by
probing the oracle on real Menagerie meshes; see test/engine/test_nccd.py):
  * GJK in contact mode runs the distance sub-algorithm to the end (no switch to a tetrahedron
    intersection search at the 4th vertex); its distance is the norm of the final iterate;
  * GJK's next iterate is the sub-algorithm's nearest point itself (the origin projected on the
    segment / triangle), not the barycentric sum of the vertices: equal in exact arithmetic,
    but mujoco's iterates are the projections bit for bit, and on curved shapes the last bits
    decide where GJK stops (sphere / capsule against ellipsoid or cylinder: 1e-5 in the
    normal); an iterate within ccd_tolerance of the origin ends GJK (mjMINVAL^2 for boxes /
    meshes without margin); witness weights of a triangle are its signed sub-areas (_bary);
  * EPA stops when the newest support point's bound is within ccd_tolerance of the nearest
    face (upper_k - lower), not the best bound so far: at the default tolerance this is the
    difference between 62 and 74 of 74 cylinder-cylinder contacts on MuJoCo's
    spheres_cylinders.xml (deep contacts 1e-3 apart in the normal); the polytope is built at
    distance 0 (mujoco's "assume touching" before it);
  * a cylinder's support along a direction square to its axis is on the top cap's rim;
  * face and edge alignment tolerances are the cosine / sine of ~5.09 degrees (FACE_TOL,
    EDGE_TOL); only faces turned towards the other geom are candidates (face-face: n1 . d <
    -EDGE_TOL |d| and n2 . d > EDGE_TOL |d|, d = x2 - x1 the witnesses; edge-face: the face's
    normal . (direction to the edge's geom) > MINVAL); among face pairs the best aligned wins,
    among (face, edge) pairs the first in polygon order; geom2's edge is tried first when
    geom2's feature is a vertex / edge, geom1 has candidate faces and (geom2 has none or a
    lower-dimensional feature), else geom1's edge first, then the other way round; a vertex /
    edge feature's segment is its edge whether or not its two vertices share a polygon (read in
    libmujoco 4.0.0's mjc_multicontact; mesh vertices off every hull polygon do come out of the
    support, e.g. robotiq 2f85 and bunnies.xml);
  * polygons of any size: MuJoCo 4 takes a mesh polygon whole (the cone of MuJoCo's
    conemesh_box.xml has a 500-gon base) and its clip buffers are sized from the model; ours
    holds polygons up to MAX_POLYVERT = CCD_PMAX / 2 vertices (clipped: up to CCD_PMAX points);
  * face-face, whichever features name the polygons: geom2's polygon (MuJoCo's vertex order:
    a mesh polygon backwards) clipped by the side planes of geom1's, along geom1's normal n1;
    each point x2 is projected along n1 onto geom1's face plane (x1 = x2 - h n1), dist = -h
    (n1 . n2) (the gap along geom2's normal n2), pos = x1 - dist / 2 n2, normal -n2; points
    with h > margin are dropped before more than 4 are pruned (_polygon_quad, MuJoCo's local
    search on half the norm of the diagonals' cross product); the clip (_clip_mj), the pruning
    and a cylinder cap's 16-gon (convex._cap_polygon) in MuJoCo 4's arithmetic, read in
    libmujoco 4.0.0 (cylinderFace, polygonClip) and matched bit for bit: the ties among equal
    quadrilaterals of a cap's 16-gon are then broken as in MuJoCo; measured on
    example-robot-data self-collisions, 2439 of 2442 face-face contacts within 1e-6 (most to
    1e-15), before 1787;
  * a face's plane goes through its first vertex in MuJoCo's order: hull polygons of real
    meshes are planar only to float rounding (1e-6 .. 1e-4 out of plane), so the reference
    vertex shows in the distances; edge-face: the edge's clipped ends, each with its own
    distance to that plane (engine/collision/convex.py helpers);
  * an edge (or a capsule / cylinder side line) is clipped as a 2-gon, so an end cut by a side
    plane is in the clipped list twice: when it is the only end below the margin it is reported
    twice (2 contacts), an uncut end once (convex._emit_edge_points; measured on box / mesh
    edges and capsule / cylinder side lines tilted over a mesh cube's face edge: 19 + 17 + 15
    of 150 random poses changed from 1 to mujoco's 2 contacts, all 150 then agreeing).

Conventions: world frame; pose ``pos`` (3,), ``mat`` (9,) row-major;
contacts in ``dist[k]``, ``pos[k]``, ``frame[k, 0:3]`` (normal from geom1 to geom2).
Workspace (no allocation): ``W`` = work_f (CCD_NWF x 9 float64), ``I`` = work_i (CCD_NWI x 4
int32), sizes in engine/collision/convex.py (convex_workspace()); the layout is below.
"""
from __future__ import annotations

import math

from .._jit import kernel
from ..math import normalize3
from .convex import (CCD_VMAX, CCD_FMAX, CCD_EMAX, _VOFF, _FOFF, _POFF, _AOFF, _HOFF, _SKOFF,
                     FACE_TOL, EDGE_TOL, _PMAX, _clip_edge, _clip_edge_tol, _emit_edge_points,
                     _quad_area_mj, _cap_polygon, _reverse_polygon, _NCAP)

_PRISM = 1       # one triangular prism of a height field (engine/collision/hfield.py)
_SPHERE = 2
_CAPSULE = 3
_ELLIPSOID = 4
_CYLINDER = 5
_BOX = 6
_MESH = 7

MINVAL = 1e-15
MINVAL2 = 1e-30
MAXVAL2 = 1e20
BIG = 1.7976931348623157e308     # DBL_MAX
FLT_MAX = 3.4028234663852886e38
HILLCLIMB_MIN = 10
MAX_POLYVERT = 512      # mesh polygon vertices / polygons at a vertex taken (CCD_PMAX / 2)

# ---- workspace layout ------------------------------------------------------------------------
# W rows 0:4      GJK simplex: vert (0:3), vert1 on geom1 (3:6), vert2 on geom2 (6:9)
# W rows _VOFF+v  EPA polytope vertex v (same columns); its support indices in I[_HOFF+v, 2:4]
# W rows _FOFF+f  EPA face f: v (0:3) = projection of the origin on its plane, dist2 (3)
# I rows f        EPA face f: vertices (0:3), map index (3) (-1: not in map, -2: deleted)
# I rows _AOFF+f  EPA face f: adjacent faces across edges (v0v1, v1v2, v2v0)
# I rows _HOFF+k  horizon edge k: face (0), edge (1)
# I rows _SKOFF+i face map: entry i in column 0 (i < CCD_EMAX) or 1 (i - CCD_EMAX)
_SIDX = _SKOFF + CCD_EMAX - 16   # simplex support indices (4 rows, columns 2:4)
_TIDX = _SKOFF + CCD_EMAX - 12   # their support indices (4 rows, columns 2:4)
_OBJ = _SKOFF + CCD_EMAX - 8     # per-object warm start: [vertindex1, vertindex2] in row
#                                  _OBJ columns 2:4, [meshindex1, meshindex2] in row _OBJ + 1
_TSIM = _VOFF + CCD_VMAX - 4     # scratch copy of a simplex (4 rows of W)
_MAXV = CCD_VMAX - 8             # EPA vertex capacity


# ---- support functions -----------------------------------------------------------------------
@kernel
def _mesh_sup(vadr, vnum, gadr, md, mesh_vert, mesh_graph, mesh_extrema, lx, ly, lz, I, k):
    """Mesh vertex (id in the mesh) farthest along local l, MuJoCo's search and warm start."""
    vi = I[_OBJ, 2 + k]
    if gadr < 0 or vnum < HILLCLIMB_MIN:
        imax = 0
        best = -FLT_MAX
        if vi >= 0:
            imax = vi
            v = mesh_vert[vadr + imax]
            best = lx * v[0] + ly * v[1] + lz * v[2]
        for i in range(vnum):
            v = mesh_vert[vadr + i]
            s = lx * v[0] + ly * v[1] + lz * v[2]
            if s > best:
                best = s
                imax = i
        I[_OBJ, 2 + k] = imax
        return imax
    nv = mesh_graph[gadr]
    eadr = gadr + 2
    gid = gadr + 2 + nv
    edge = gadr + 2 + 2 * nv
    # seed: the precomputed extreme vertex for the direction's cell of a 3x3x3 grid (each
    # component below -0.4, between, above 0.4), unless the previous answer is at least as far
    cx = (1 if lx > 0.4 else 0) + 1 - (1 if lx < -0.4 else 0)
    cy = (1 if ly > 0.4 else 0) + 1 - (1 if ly < -0.4 else 0)
    cz = (1 if lz > 0.4 else 0) + 1 - (1 if lz < -0.4 else 0)
    imax = mesh_extrema[md, 9 * cx + 3 * cy + cz]
    v = mesh_vert[vadr + mesh_graph[gid + imax]]
    best = lx * v[0] + ly * v[1] + lz * v[2]
    mi = I[_OBJ + 1, 2 + k]
    if mi >= 0:
        v = mesh_vert[vadr + mesh_graph[gid + mi]]
        sc = lx * v[0] + ly * v[1] + lz * v[2]
        if not best > sc:
            imax = mi
            best = sc
    # steepest ascent over the hull graph's neighbours
    while True:
        prev = imax
        j = edge + mesh_graph[eadr + prev]
        while mesh_graph[j] >= 0:
            loc = mesh_graph[j]
            v = mesh_vert[vadr + mesh_graph[gid + loc]]
            s = lx * v[0] + ly * v[1] + lz * v[2]
            if s > best:
                best = s
                imax = loc
            j += 1
        if imax == prev:
            break
    I[_OBJ + 1, 2 + k] = imax
    g = mesh_graph[gid + imax]
    I[_OBJ, 2 + k] = g
    return g


@kernel
def _sup(t, size, pos, mat, vadr, vnum, gadr, md, margin, mode, mesh_vert, mesh_graph,
         mesh_extrema, dx, dy, dz, I, k):
    """World support point of object k (0: geom1, 1: geom2) along unit direction d.

    mode 0: the full shape, a margin > 0 inflating it by margin / 2; 1: the core without margin
    (a sphere's center, a capsule's axis segment, the other shapes themselves). The
    support index (box corner, mesh vertex) is left in I[_OBJ, 2 + k]. A height-field prism
    (t = _PRISM) has its 6 vertices in ``size`` (18: bottom triangle, then the top one above
    it, world coordinates) and no frame: MuJoCo's prism support searches the top triangle when
    d points up (d_z >= 0), else the bottom one, first maximum on ties; it leaves no support
    index (MuJoCo's prism support sets none: -1 in the EPA's repeated-vertex test)."""
    if t == _PRISM:
        i0 = 0 if dz < 0 else 3
        best = size[3 * i0] * dx + size[3 * i0 + 1] * dy + size[3 * i0 + 2] * dz
        for i in range(i0 + 1, i0 + 3):
            sc = size[3 * i] * dx + size[3 * i + 1] * dy + size[3 * i + 2] * dz
            if sc > best:
                best = sc
                i0 = i
        x, y, z = size[3 * i0], size[3 * i0 + 1], size[3 * i0 + 2]
        if margin > 0 and mode == 0:
            x += dx * 0.5 * margin
            y += dy * 0.5 * margin
            z += dz * 0.5 * margin
        return x, y, z
    lx = mat[0] * dx + mat[3] * dy + mat[6] * dz
    ly = mat[1] * dx + mat[4] * dy + mat[7] * dz
    lz = mat[2] * dx + mat[5] * dy + mat[8] * dz
    tx = 0.0
    ty = 0.0
    tz = 0.0
    if t == _SPHERE:
        if mode == 0:
            x = size[0] * dx + pos[0]
            y = size[0] * dy + pos[1]
            z = size[0] * dz + pos[2]
        else:
            x, y, z = pos[0], pos[1], pos[2]
        if margin > 0 and mode == 0:
            x += dx * 0.5 * margin
            y += dy * 0.5 * margin
            z += dz * 0.5 * margin
        return x, y, z
    elif t == _CAPSULE:
        if mode == 0:
            tx = lx * size[0]
            ty = ly * size[0]
            tz = lz * size[0]
        tz += size[1] if lz >= 0 else -size[1]
    elif t == _ELLIPSOID:
        sx = lx * size[0]
        sy = ly * size[1]
        sz = lz * size[2]
        nn = math.sqrt(sx * sx + sy * sy + sz * sz)
        if nn < MINVAL:
            tx = size[0]
        else:
            # (1 / |s|) * size grouped as in MuJoCo's support, for the same rounding
            inv = 1.0 / nn
            tx = sx * (inv * size[0])
            ty = sy * (inv * size[1])
            tz = sz * (inv * size[2])
    elif t == _CYLINDER:
        nn = lx * lx + ly * ly
        if nn >= MINVAL2:
            nn = size[0] / math.sqrt(nn)
            tx = lx * nn
            ty = ly * nn
        # a direction square to the axis picks the top cap's rim (not the side's middle):
        # measured against MuJoCo 4.0, where GJK's iterate lands exactly square to a cylinder's
        # axis between two rim points of one cap
        tz = size[1] if lz >= 0 else -size[1]
    elif t == _BOX:
        tx = size[0] if lx >= 0 else -size[0]
        ty = size[1] if ly >= 0 else -size[1]
        tz = size[2] if lz >= 0 else -size[2]
        c = 0
        if tx > 0:
            c |= 1
        if ty > 0:
            c |= 2
        if tz > 0:
            c |= 4
        I[_OBJ, 2 + k] = c
    elif t == _MESH:
        i = _mesh_sup(vadr, vnum, gadr, md, mesh_vert, mesh_graph, mesh_extrema, lx, ly, lz, I,
                      k)
        v = mesh_vert[vadr + i]
        tx = v[0]
        ty = v[1]
        tz = v[2]
    x = mat[0] * tx + mat[1] * ty + mat[2] * tz + pos[0]
    y = mat[3] * tx + mat[4] * ty + mat[5] * tz + pos[1]
    z = mat[6] * tx + mat[7] * ty + mat[8] * tz + pos[2]
    if margin > 0 and mode == 0:
        x += dx * 0.5 * margin
        y += dy * 0.5 * margin
        z += dz * 0.5 * margin
    return x, y, z


@kernel
def _vsup(t1, s1, p1, m1, va1, vn1, ga1, md1, t2, s2, p2, m2, va2, vn2, ga2, md2, margin, mode,
          mesh_vert, mesh_graph, mesh_extrema, dx, dy, dz, W, I, row, irow):
    """Minkowski support along unit d into W[row] (vert, vert1, vert2) and the support indices
    into I[irow, 2:4]."""
    ax, ay, az = _sup(t1, s1, p1, m1, va1, vn1, ga1, md1, margin, mode, mesh_vert, mesh_graph,
                      mesh_extrema, dx, dy, dz, I, 0)
    bx, by, bz = _sup(t2, s2, p2, m2, va2, vn2, ga2, md2, margin, mode, mesh_vert, mesh_graph,
                      mesh_extrema, -dx, -dy, -dz, I, 1)
    r = W[row]
    r[3] = ax
    r[4] = ay
    r[5] = az
    r[6] = bx
    r[7] = by
    r[8] = bz
    r[0] = ax - bx
    r[1] = ay - by
    r[2] = az - bz
    I[irow, 2] = I[_OBJ, 2] if t1 == _BOX or t1 == _MESH else -1
    I[irow, 3] = I[_OBJ, 3] if t2 == _BOX or t2 == _MESH else -1


# ---- GJK -------------------------------------------------------------------------------------
@kernel
def _det3(ax, ay, az, bx, by, bz, cx, cy, cz):
    return ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx)


@kernel
def _same(a, b):
    return (a > 0 and b > 0) or (a < 0 and b < 0)


@kernel
def _s1d(W, i1, i2):
    """Point of segment (W[i1], W[i2]) nearest the origin: (l1, l2, x, y, z), barycentric
    weights and the point itself. The point is the origin's projection on the line (or W[i2]
    when that falls outside), not the weighted sum: measured against MuJoCo 4.0, whose GJK
    iterates are these projections bit for bit (the weighted sum differs in the last bits, which
    on curved shapes steers GJK to a different stop)."""
    ax, ay, az = W[i1, 0], W[i1, 1], W[i1, 2]
    bx, by, bz = W[i2, 0], W[i2, 1], W[i2, 2]
    ex, ey, ez = bx - ax, by - ay, bz - az
    sc = -((bx * ex + by * ey + bz * ez) / (ex * ex + ey * ey + ez * ez))
    px, py, pz = bx + sc * ex, by + sc * ey, bz + sc * ez
    mu = ax - bx
    idx = 0
    mx = mu
    mu = ay - by
    if abs(mu) >= abs(mx):
        mx = mu
        idx = 1
    mu = az - bz
    if abs(mu) >= abs(mx):
        mx = mu
        idx = 2
    if idx == 0:
        c1, c2 = px - bx, ax - px
    elif idx == 1:
        c1, c2 = py - by, ay - py
    else:
        c1, c2 = pz - bz, az - pz
    if _same(mx, c1) and _same(mx, c2):
        return c1 / mx, c2 / mx, px, py, pz
    return 0.0, 1.0, bx, by, bz


@kernel
def _origin_on_plane(nx, ny, nz, px, py, pz, last):
    """Projection of the origin on the plane through p with normal n: (status, x, y, z); status
    0: n vanishes, 1: projected, 2: n unreliable (n . p == 0 or |n|^2 <= mjMINVAL), try another.
    The last try (``last``) always projects."""
    nv = nx * px + ny * py + nz * pz
    nn = nx * nx + ny * ny + nz * nz
    if not last:
        if nn == 0:
            return 0, 0.0, 0.0, 0.0
        if nv == 0 or nn <= MINVAL:
            return 2, 0.0, 0.0, 0.0
    s = nv / nn
    return 1, nx * s, ny * s, nz * s


@kernel
def _proj_plane(ax, ay, az, bx, by, bz, cx, cy, cz):
    """Projection of the origin on the plane through a, b, c: (ok, x, y, z); ok 0 if degenerate
    (three cross products tried in turn, as the reference does for rounding robustness)."""
    d21x, d21y, d21z = bx - ax, by - ay, bz - az
    d31x, d31y, d31z = cx - ax, cy - ay, cz - az
    d32x, d32y, d32z = cx - bx, cy - by, cz - bz
    # n = (c - b) x (b - a), through b
    st, x, y, z = _origin_on_plane(d32y * d21z - d32z * d21y, d32z * d21x - d32x * d21z,
                                   d32x * d21y - d32y * d21x, bx, by, bz, False)
    if st != 2:
        return st, x, y, z
    # n = (b - a) x (c - a), through a
    st, x, y, z = _origin_on_plane(d21y * d31z - d21z * d31y, d21z * d31x - d21x * d31z,
                                   d21x * d31y - d21y * d31x, ax, ay, az, False)
    if st != 2:
        return st, x, y, z
    # n = (c - a) x (c - b), through c
    return _origin_on_plane(d31y * d32z - d31z * d32y, d31z * d32x - d31x * d32z,
                            d31x * d32y - d31y * d32x, cx, cy, cz, True)


@kernel
def _area2(px, py, ax, ay, bx, by):
    """Signed area (x2) of the 2-D triangle (p, a, b), as a cofactor sum."""
    return px * ay + py * bx + ax * by - px * by - py * ax - bx * ay


@kernel
def _tri_minors(ax, ay, az, bx, by, bz, cx, cy, cz):
    m14 = by * cz - bz * cy - ay * cz + az * cy + ay * bz - az * by
    m24 = bx * cz - bz * cx - ax * cz + az * cx + ax * bz - az * bx
    m34 = bx * cy - by * cx - ax * cy + ay * cx + ax * by - ay * bx
    return m14, m24, m34


@kernel
def _bary(ax, ay, az, bx, by, bz, cx, cy, cz, px, py, pz):
    """Barycentric coordinates of point p (in the plane of triangle a, b, c): the signed areas of
    the sub-triangles at p against the triangle's normal n = (b - a) x (c - a), over |n|^2.
    MuJoCo 4.0's witness points (GJK triangle, EPA face) agree with this form to the last bits
    or so, where the projected-cofactor form drifts by up to 1e-11 on thin triangles (measured
    on sphere/capsule/ellipsoid pairs)."""
    e1x, e1y, e1z = bx - ax, by - ay, bz - az
    e2x, e2y, e2z = cx - ax, cy - ay, cz - az
    nx = e1y * e2z - e1z * e2y
    ny = e1z * e2x - e1x * e2z
    nz = e1x * e2y - e1y * e2x
    t = nx * nx + ny * ny + nz * nz
    ux, uy, uz = ax - px, ay - py, az - pz
    vx, vy, vz = bx - px, by - py, bz - pz
    wx, wy, wz = cx - px, cy - py, cz - pz
    l0 = (nx * (vy * wz - vz * wy) + ny * (vz * wx - vx * wz) + nz * (vx * wy - vy * wx)) / t
    l1 = (nx * (wy * uz - wz * uy) + ny * (wz * ux - wx * uz) + nz * (wx * uy - wy * ux)) / t
    l2 = (nx * (uy * vz - uz * vy) + ny * (uz * vx - ux * vz) + nz * (ux * vy - uy * vx)) / t
    return l0, l1, l2


@kernel
def _s2d(W, i1, i2, i3):
    """Point of triangle (W[i1], W[i2], W[i3]) nearest the origin: (l1, l2, l3, x, y, z). Which
    feature holds it is decided by the signs of the projected cofactors (Montanari et al.); the
    point is the origin's projection on that feature (see _s1d), its weights from _bary."""
    ax, ay, az = W[i1, 0], W[i1, 1], W[i1, 2]
    bx, by, bz = W[i2, 0], W[i2, 1], W[i2, 2]
    cx, cy, cz = W[i3, 0], W[i3, 1], W[i3, 2]
    ok, px, py, pz = _proj_plane(ax, ay, az, bx, by, bz, cx, cy, cz)
    if ok == 0:
        l0, l1, x, y, z = _s1d(W, i1, i2)
        return l0, l1, 0.0, x, y, z
    m14, m24, m34 = _tri_minors(ax, ay, az, bx, by, bz, cx, cy, cz)
    u1, u2, u3 = abs(m14), abs(m24), abs(m34)
    # drop the axis along which the triangle's shadow is largest
    if u1 >= u2 and u1 >= u3:
        mmax = m14
        a0, a1, b0, b1, c0, c1, p0, p1 = ay, az, by, bz, cy, cz, py, pz
    elif u2 >= u3:
        mmax = m24
        a0, a1, b0, b1, c0, c1, p0, p1 = ax, az, bx, bz, cx, cz, px, pz
    else:
        mmax = m34
        a0, a1, b0, b1, c0, c1, p0, p1 = ax, ay, bx, by, cx, cy, px, py
    c31 = _area2(p0, p1, b0, b1, c0, c1)
    c32 = _area2(p0, p1, c0, c1, a0, a1)
    c33 = _area2(p0, p1, a0, a1, b0, b1)
    k1 = _same(mmax, c31)
    k2 = _same(mmax, c32)
    k3 = _same(mmax, c33)
    if k1 and k2 and k3:
        l0, l1, l2 = _bary(ax, ay, az, bx, by, bz, cx, cy, cz, px, py, pz)
        return l0, l1, l2, px, py, pz
    l0 = l1 = l2 = 0.0
    rx = ry = rz = 0.0
    dmin = BIG
    if not k1:
        q0, q1, x, y, z = _s1d(W, i2, i3)
        l0, l1, l2 = 0.0, q0, q1
        rx, ry, rz = x, y, z
        dmin = x * x + y * y + z * z
    if not k2:
        q0, q1, x, y, z = _s1d(W, i1, i3)
        d = x * x + y * y + z * z
        if d < dmin:
            l0, l1, l2 = q0, 0.0, q1
            rx, ry, rz = x, y, z
            dmin = d
    if not k3:
        q0, q1, x, y, z = _s1d(W, i1, i2)
        d = x * x + y * y + z * z
        if d < dmin:
            l0, l1, l2 = q0, q1, 0.0
            rx, ry, rz = x, y, z
    return l0, l1, l2, rx, ry, rz


@kernel
def _s3d(W):
    """Point of tetrahedron W[0:4] nearest the origin: (l1, l2, l3, l4, x, y, z); the origin
    itself when inside, else the nearest face's point (_s2d)."""
    s1, s2, s3, s4 = W[0], W[1], W[2], W[3]
    c41 = -_det3(s2[0], s2[1], s2[2], s3[0], s3[1], s3[2], s4[0], s4[1], s4[2])
    c42 = _det3(s1[0], s1[1], s1[2], s3[0], s3[1], s3[2], s4[0], s4[1], s4[2])
    c43 = -_det3(s1[0], s1[1], s1[2], s2[0], s2[1], s2[2], s4[0], s4[1], s4[2])
    c44 = _det3(s1[0], s1[1], s1[2], s2[0], s2[1], s2[2], s3[0], s3[1], s3[2])
    mdet = c41 + c42 + c43 + c44
    k1 = _same(mdet, c41)
    k2 = _same(mdet, c42)
    k3 = _same(mdet, c43)
    k4 = _same(mdet, c44)
    if k1 and k2 and k3 and k4:
        return c41 / mdet, c42 / mdet, c43 / mdet, c44 / mdet, 0.0, 0.0, 0.0
    l0 = l1 = l2 = l3 = 0.0
    rx = ry = rz = 0.0
    dmin = BIG
    for f in range(4):
        if f == 0:
            if k1:
                continue
            a, b, c = 1, 2, 3
        elif f == 1:
            if k2:
                continue
            a, b, c = 0, 2, 3
        elif f == 2:
            if k3:
                continue
            a, b, c = 0, 1, 3
        else:
            if k4:
                continue
            a, b, c = 0, 1, 2
        q0, q1, q2, x, y, z = _s2d(W, a, b, c)
        d = x * x + y * y + z * z
        if d < dmin:
            dmin = d
            rx, ry, rz = x, y, z
            r0 = r1 = r2 = r3 = 0.0
            for q in range(3):
                vq = a if q == 0 else (b if q == 1 else c)
                lq = q0 if q == 0 else (q1 if q == 1 else q2)
                if vq == 0:
                    r0 = lq
                elif vq == 1:
                    r1 = lq
                elif vq == 2:
                    r2 = lq
                else:
                    r3 = lq
            l0, l1, l2, l3 = r0, r1, r2, r3
    return l0, l1, l2, l3, rx, ry, rz


@kernel
def _copyv(W, I, dst, src, idst, isrc):
    for c in range(9):
        W[dst, c] = W[src, c]
    I[idst, 2] = I[isrc, 2]
    I[idst, 3] = I[isrc, 3]


@kernel
def _gjk(t1, s1, p1, m1, va1, vn1, ga1, md1, t2, s2, p2, m2, va2, vn2, ga2, md2, margin, mode,
         mesh_vert, mesh_graph, mesh_extrema, W, I, cutoff, tol, kmax, discrete):
    """GJK from the geom centers: (n, dist, x1x, x1y, x1z, x2x, x2y, x2z).

    cutoff > 0: distance mode (n = 0 when the shapes are farther apart than cutoff), else
    contact mode (n = 0 as soon as a support plane separates the shapes). W[0:n] is the final
    simplex (n = 4: a tetrahedron holding the origin). Measured against MuJoCo 4: the contact
    mode runs the distance sub-algorithm to the end (no switch to a tetrahedron intersection
    search at the 4th vertex), which fixes the EPA start for curved shapes."""
    get_dist = cutoff > 0
    xk0 = p1[0] - p2[0]
    xk1 = p1[1] - p2[1]
    xk2 = p1[2] - p2[2]
    l0, l1, l2, l3 = 1.0, 0.0, 0.0, 0.0
    n = 0
    eps = 0.0 if discrete else 0.5 * tol * tol
    # an iterate within the tolerance of the origin ends GJK (touching or overlapping): measured
    # against MuJoCo 4.0 (a deep capsule-cylinder pair with a margin, where going on to a
    # tetrahedron starts EPA elsewhere); shapes with finite convergence use mjMINVAL^2
    min2 = MINVAL2 if discrete else tol * tol
    c2 = cutoff * cutoff
    xn = 0.0
    k = 0
    while k < kmax:
        xn2 = xk0 * xk0 + xk1 * xk1 + xk2 * xk2
        if xn2 < min2:
            break
        xn = math.sqrt(xn2)
        inv = 1.0 / xn
        dx, dy, dz = -(xk0 * inv), -(xk1 * inv), -(xk2 * inv)
        _vsup(t1, s1, p1, m1, va1, vn1, ga1, md1, t2, s2, p2, m2, va2, vn2, ga2, md2, margin, mode,
              mesh_vert, mesh_graph, mesh_extrema, dx, dy, dz, W, I, n, _SIDX + n)
        sx, sy, sz = W[n, 0], W[n, 1], W[n, 2]
        if xk0 * (xk0 - sx) + xk1 * (xk1 - sy) + xk2 * (xk2 - sz) < eps:
            if k == 0:
                n = 1
            break
        vs = xk0 * sx + xk1 * sy + xk2 * sz
        if not get_dist:
            if vs > 0:
                return 0, BIG, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
        elif cutoff < BIG:
            if vs > 0 and vs * vs / xn2 >= c2:
                return 0, BIG, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
        # the next iterate is the sub-algorithm's nearest point itself (see _s1d)
        m = n + 1
        if m == 4:
            l0, l1, l2, l3, nx0, nx1, nx2 = _s3d(W)
        elif m == 3:
            l0, l1, l2, nx0, nx1, nx2 = _s2d(W, 0, 1, 2)
            l3 = 0.0
        elif m == 2:
            l0, l1, nx0, nx1, nx2 = _s1d(W, 0, 1)
            l2 = l3 = 0.0
        else:
            l0, l1, l2, l3 = 1.0, 0.0, 0.0, 0.0
            nx0, nx1, nx2 = W[0, 0], W[0, 1], W[0, 2]
        # keep the vertices with nonzero weight
        n = 0
        for q in range(4):
            lq = l0 if q == 0 else (l1 if q == 1 else (l2 if q == 2 else l3))
            if lq == 0:
                continue
            if q != n:
                _copyv(W, I, n, q, _SIDX + n, _SIDX + q)
            if n == 0:
                l0 = lq
            elif n == 1:
                l1 = lq
            elif n == 2:
                l2 = lq
            else:
                l3 = lq
            n += 1
        if n < 1:
            return 0, BIG, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
        for q in range(n, 4):
            if q == 1:
                l1 = 0.0
            elif q == 2:
                l2 = 0.0
            elif q == 3:
                l3 = 0.0
        if abs(nx0 - xk0) < MINVAL and abs(nx1 - xk1) < MINVAL and abs(nx2 - xk2) < MINVAL:
            break
        xk0, xk1, xk2 = nx0, nx1, nx2
        if n == 4:
            break
        k += 1
    a0 = a1 = a2 = b0 = b1 = b2 = 0.0
    for q in range(n):
        lq = l0 if q == 0 else (l1 if q == 1 else (l2 if q == 2 else l3))
        a0 += lq * W[q, 3]
        a1 += lq * W[q, 4]
        a2 += lq * W[q, 5]
        b0 += lq * W[q, 6]
        b1 += lq * W[q, 7]
        b2 += lq * W[q, 8]
    # the distance is the norm of the final iterate (zero when the origin is inside)
    xn = math.sqrt(xk0 * xk0 + xk1 * xk1 + xk2 * xk2)
    return n, xn, a0, a1, a2, b0, b1, b2


# ---- EPA -------------------------------------------------------------------------------------
@kernel
def _map_get(I, i):
    if i < CCD_EMAX:
        return I[_SKOFF + i, 0]
    return I[_SKOFF + i - CCD_EMAX, 1]


@kernel
def _map_set(I, i, f):
    if i < CCD_EMAX:
        I[_SKOFF + i, 0] = f
    else:
        I[_SKOFF + i - CCD_EMAX, 1] = f


@kernel
def _attach(W, I, nf, a, b, c, j0, j1, j2):
    """Face nf = (a, b, c) with adjacency (j0, j1, j2); returns its squared distance to the
    origin (0 when the plane is degenerate)."""
    I[nf, 0] = a
    I[nf, 1] = b
    I[nf, 2] = c
    I[_AOFF + nf, 0] = j0
    I[_AOFF + nf, 1] = j1
    I[_AOFF + nf, 2] = j2
    A = W[_VOFF + c]
    B = W[_VOFF + b]
    C = W[_VOFF + a]
    ok, x, y, z = _proj_plane(A[0], A[1], A[2], B[0], B[1], B[2], C[0], C[1], C[2])
    F = W[_FOFF + nf]
    if ok == 0:
        return 0.0
    F[0] = x
    F[1] = y
    F[2] = z
    F[3] = x * x + y * y + z * z
    I[nf, 3] = -1
    return F[3]


@kernel
def _insert(W, I, nv, row, irow):
    _copyv(W, I, _VOFF + nv, row, _HOFF + nv, irow)


@kernel
def _epa_sup(t1, s1, p1, m1, va1, vn1, ga1, md1, t2, s2, p2, m2, va2, vn2, ga2, md2, margin,
             mesh_vert, mesh_graph, mesh_extrema, W, I, nv, dx, dy, dz, dn):
    ux, uy, uz = 1.0, 0.0, 0.0
    if dn > MINVAL:
        ux, uy, uz = dx / dn, dy / dn, dz / dn
    _vsup(t1, s1, p1, m1, va1, vn1, ga1, md1, t2, s2, p2, m2, va2, vn2, ga2, md2, margin, 0,
          mesh_vert, mesh_graph, mesh_extrema, ux, uy, uz, W, I, _VOFF + nv, _HOFF + nv)


@kernel
def _same_side(W, a, b, c, d):
    """Whether the origin and point d lie strictly on the same side of plane (a, b, c)."""
    e1x, e1y, e1z = W[b, 0] - W[a, 0], W[b, 1] - W[a, 1], W[b, 2] - W[a, 2]
    e2x, e2y, e2z = W[c, 0] - W[a, 0], W[c, 1] - W[a, 1], W[c, 2] - W[a, 2]
    nx = e1y * e2z - e1z * e2y
    ny = e1z * e2x - e1x * e2z
    nz = e1x * e2y - e1y * e2x
    d1 = nx * (W[d, 0] - W[a, 0]) + ny * (W[d, 1] - W[a, 1]) + nz * (W[d, 2] - W[a, 2])
    d2 = nx * (-W[a, 0]) + ny * (-W[a, 1]) + nz * (-W[a, 2])
    return (d1 > 0 and d2 > 0) or (d1 < 0 and d2 < 0)


@kernel
def _tetra_has_origin(W, a, b, c, d):
    return (_same_side(W, a, b, c, d) and _same_side(W, b, c, d, a)
            and _same_side(W, c, d, a, b) and _same_side(W, d, a, b, c))


@kernel
def _tri_coords(A, B, C, px, py, pz):
    """Affine coordinates of p in triangle (A, B, C) (the largest 2-D shadow)."""
    m14, m24, m34 = _tri_minors(A[0], A[1], A[2], B[0], B[1], B[2], C[0], C[1], C[2])
    u1, u2, u3 = abs(m14), abs(m24), abs(m34)
    if u1 >= u2 and u1 >= u3:
        mmax, x, y = m14, 1, 2
    elif u2 >= u3:
        mmax, x, y = m24, 0, 2
    else:
        mmax, x, y = m34, 0, 1
    p = (px, py, pz)
    c31 = _area2(p[x], p[y], B[x], B[y], C[x], C[y])
    c32 = _area2(p[x], p[y], C[x], C[y], A[x], A[y])
    c33 = _area2(p[x], p[y], A[x], A[y], B[x], B[y])
    return c31 / mmax, c32 / mmax, c33 / mmax


@kernel
def _tri_point(W, a, b, c, d):
    """Whether point W[d] lies in triangle (W[a], W[b], W[c])."""
    A, B, C = W[a], W[b], W[c]
    l0, l1, l2 = _tri_coords(A, B, C, W[d, 0], W[d, 1], W[d, 2])
    if l0 < 0 or l1 < 0 or l2 < 0:
        return False
    x = A[0] * l0 + B[0] * l1 + C[0] * l2 - W[d, 0]
    y = A[1] * l0 + B[1] * l1 + C[1] * l2 - W[d, 1]
    z = A[2] * l0 + B[2] * l1 + C[2] * l2 - W[d, 2]
    return math.sqrt(x * x + y * y + z * z) < MINVAL


@kernel
def _polytope3(t1, s1, p1, m1, va1, vn1, ga1, md1, t2, s2, p2, m2, va2, vn2, ga2, md2, margin,
               mesh_vert, mesh_graph, mesh_extrema, W, I, gdist):
    """Hexahedron around the GJK triangle W[0:3]: (status, nverts, nfaces); status 0 = ok."""
    e1x, e1y, e1z = W[1, 0] - W[0, 0], W[1, 1] - W[0, 1], W[1, 2] - W[0, 2]
    e2x, e2y, e2z = W[2, 0] - W[0, 0], W[2, 1] - W[0, 1], W[2, 2] - W[0, 2]
    nx = e1y * e2z - e1z * e2y
    ny = e1z * e2x - e1x * e2z
    nz = e1x * e2y - e1y * e2x
    nn = math.sqrt(nx * nx + ny * ny + nz * nz)
    if nn < MINVAL:
        return 4, 0, 0
    for q in range(3):
        _insert(W, I, q, q, _SIDX + q)
    _epa_sup(t1, s1, p1, m1, va1, vn1, ga1, md1, t2, s2, p2, m2, va2, vn2, ga2, md2, margin,
             mesh_vert, mesh_graph, mesh_extrema, W, I, 3, -nx, -ny, -nz, nn)     # v5
    _epa_sup(t1, s1, p1, m1, va1, vn1, ga1, md1, t2, s2, p2, m2, va2, vn2, ga2, md2, margin,
             mesh_vert, mesh_graph, mesh_extrema, W, I, 4, nx, ny, nz, nn)        # v4
    V = _VOFF
    if _tri_point(W, V, V + 1, V + 2, V + 4):
        return 5, 0, 0
    if _tri_point(W, V, V + 1, V + 2, V + 3):
        return 6, 0, 0
    if gdist > 10 * MINVAL and not _tetra_has_origin(W, V, V + 1, V + 2, V + 4) \
            and not _tetra_has_origin(W, V, V + 1, V + 2, V + 3):
        return 7, 0, 0
    v1, v2, v3, v4, v5 = 0, 1, 2, 4, 3
    if _attach(W, I, 0, v4, v1, v2, 1, 3, 2) < MINVAL2:
        return 8, 0, 0
    if _attach(W, I, 1, v4, v3, v1, 2, 4, 0) < MINVAL2:
        return 8, 0, 0
    if _attach(W, I, 2, v4, v2, v3, 0, 5, 1) < MINVAL2:
        return 8, 0, 0
    if _attach(W, I, 3, v5, v2, v1, 5, 0, 4) < MINVAL2:
        return 8, 0, 0
    if _attach(W, I, 4, v5, v1, v3, 3, 1, 5) < MINVAL2:
        return 8, 0, 0
    if _attach(W, I, 5, v5, v3, v2, 4, 2, 3) < MINVAL2:
        return 8, 0, 0
    for q in range(6):
        _map_set(I, q, q)
        I[q, 3] = q
    return 0, 5, 6


@kernel
def _replace3(W, I, a, b, c):
    """Make polytope vertices a, b, c the GJK triangle W[0:3]."""
    for q in range(3):
        v = a if q == 0 else (b if q == 1 else c)
        _copyv(W, I, _TSIM + q, _VOFF + v, _TIDX + q, _HOFF + v)
    for q in range(3):
        _copyv(W, I, q, _TSIM + q, _SIDX + q, _TIDX + q)


@kernel
def _rot120(ax, ay, az, vx, vy, vz):
    """v rotated by 120 degrees about axis a."""
    n = math.sqrt(ax * ax + ay * ay + az * az)
    u1, u2, u3 = ax / n, ay / n, az / n
    s = 0.86602540378
    c = -0.5
    r0 = c + u1 * u1 * (1 - c)
    r1 = u1 * u2 * (1 - c) - u3 * s
    r2 = u1 * u3 * (1 - c) + u2 * s
    r3 = u2 * u1 * (1 - c) + u3 * s
    r4 = c + u2 * u2 * (1 - c)
    r5 = u2 * u3 * (1 - c) - u1 * s
    r6 = u1 * u3 * (1 - c) - u2 * s
    r7 = u2 * u3 * (1 - c) + u1 * s
    r8 = c + u3 * u3 * (1 - c)
    return (r0 * vx + r1 * vy + r2 * vz, r3 * vx + r4 * vy + r5 * vz,
            r6 * vx + r7 * vy + r8 * vz)


@kernel
def _polytope(t1, s1, p1, m1, va1, vn1, ga1, md1, t2, s2, p2, m2, va2, vn2, ga2, md2, margin,
              mesh_vert, mesh_graph, mesh_extrema, W, I, nsimplex, gdist):
    """Initial EPA polytope from the GJK simplex: (status, nverts, nfaces, nmap)."""
    V = _VOFF
    if nsimplex == 4:
        for q in range(4):
            _insert(W, I, q, q, _SIDX + q)
        if _attach(W, I, 0, 0, 1, 2, 1, 3, 2) < MINVAL2:
            _replace3(W, I, 0, 1, 2)
            nsimplex = 3
        elif _attach(W, I, 1, 0, 3, 1, 2, 3, 0) < MINVAL2:
            _replace3(W, I, 0, 3, 1)
            nsimplex = 3
        elif _attach(W, I, 2, 0, 2, 3, 0, 3, 1) < MINVAL2:
            _replace3(W, I, 0, 2, 3)
            nsimplex = 3
        elif _attach(W, I, 3, 3, 2, 1, 2, 0, 1) < MINVAL2:
            _replace3(W, I, 3, 2, 1)
            nsimplex = 3
        else:
            if not _tetra_has_origin(W, V, V + 1, V + 2, V + 3):
                return 10, 0, 0
            for q in range(4):
                _map_set(I, q, q)
                I[q, 3] = q
            return 0, 4, 4
    if nsimplex == 2:
        dx, dy, dz = W[1, 0] - W[0, 0], W[1, 1] - W[0, 1], W[1, 2] - W[0, 2]
        idx = 0
        val = BIG
        for q in range(3):
            a = abs(dx) if q == 0 else (abs(dy) if q == 1 else abs(dz))
            if a < val:
                val = a
                idx = q
        ex, ey, ez = (1.0 if idx == 0 else 0.0), (1.0 if idx == 1 else 0.0), \
            (1.0 if idx == 2 else 0.0)
        d1x, d1y, d1z = ey * dz - ez * dy, ez * dx - ex * dz, ex * dy - ey * dx
        d2x, d2y, d2z = _rot120(dx, dy, dz, d1x, d1y, d1z)
        d3x, d3y, d3z = _rot120(dx, dy, dz, d2x, d2y, d2z)
        _insert(W, I, 0, 0, _SIDX)
        _insert(W, I, 1, 1, _SIDX + 1)
        _epa_sup(t1, s1, p1, m1, va1, vn1, ga1, md1, t2, s2, p2, m2, va2, vn2, ga2, md2, margin,
                 mesh_vert, mesh_graph, mesh_extrema, W, I, 2, d1x, d1y, d1z,
                 math.sqrt(d1x * d1x + d1y * d1y + d1z * d1z))
        _epa_sup(t1, s1, p1, m1, va1, vn1, ga1, md1, t2, s2, p2, m2, va2, vn2, ga2, md2, margin,
                 mesh_vert, mesh_graph, mesh_extrema, W, I, 3, d2x, d2y, d2z,
                 math.sqrt(d2x * d2x + d2y * d2y + d2z * d2z))
        _epa_sup(t1, s1, p1, m1, va1, vn1, ga1, md1, t2, s2, p2, m2, va2, vn2, ga2, md2, margin,
                 mesh_vert, mesh_graph, mesh_extrema, W, I, 4, d3x, d3y, d3z,
                 math.sqrt(d3x * d3x + d3y * d3y + d3z * d3z))
        v1, v2, v3, v4, v5 = 0, 1, 2, 3, 4
        done = False
        for f in range(6):
            if f == 0:
                a, b, c, j0, j1, j2 = v1, v3, v4, 1, 3, 2
            elif f == 1:
                a, b, c, j0, j1, j2 = v1, v5, v3, 2, 4, 0
            elif f == 2:
                a, b, c, j0, j1, j2 = v1, v4, v5, 0, 5, 1
            elif f == 3:
                a, b, c, j0, j1, j2 = v2, v4, v3, 5, 0, 4
            elif f == 4:
                a, b, c, j0, j1, j2 = v2, v3, v5, 3, 1, 5
            else:
                a, b, c, j0, j1, j2 = v2, v5, v4, 4, 2, 3
            if _attach(W, I, f, a, b, c, j0, j1, j2) < MINVAL2:
                _replace3(W, I, a, b, c)
                nsimplex = 3
                done = True
                break
        if not done:
            # the hexahedron must be convex: the segment v1 v2 pierces triangle v3 v4 v5
            ox, oy, oz = W[V, 0], W[V, 1], W[V, 2]
            rx, ry, rz = W[V + 1, 0] - ox, W[V + 1, 1] - oy, W[V + 1, 2] - oz
            q3x, q3y, q3z = W[V + 2, 0] - ox, W[V + 2, 1] - oy, W[V + 2, 2] - oz
            q4x, q4y, q4z = W[V + 3, 0] - ox, W[V + 3, 1] - oy, W[V + 3, 2] - oz
            q5x, q5y, q5z = W[V + 4, 0] - ox, W[V + 4, 1] - oy, W[V + 4, 2] - oz
            vol1 = _det3(q3x, q3y, q3z, q4x, q4y, q4z, rx, ry, rz)
            vol2 = _det3(q4x, q4y, q4z, q5x, q5y, q5z, rx, ry, rz)
            vol3 = _det3(q5x, q5y, q5z, q3x, q3y, q3z, rx, ry, rz)
            if not ((vol1 >= 0 and vol2 >= 0 and vol3 >= 0)
                    or (vol1 <= 0 and vol2 <= 0 and vol3 <= 0)):
                return 2, 0, 0
            for q in range(6):
                _map_set(I, q, q)
                I[q, 3] = q
            return 0, 5, 6
    st, nv, nf = _polytope3(t1, s1, p1, m1, va1, vn1, ga1, md1, t2, s2, p2, m2, va2, vn2, ga2, md2,
                            margin, mesh_vert, mesh_graph, mesh_extrema, W, I, gdist)
    return st, nv, nf


@kernel
def _get_edge(I, f, v):
    if I[f, 0] == v:
        return 0
    if I[f, 1] == v:
        return 1
    return 2


@kernel
def _delete(I, f, nmap):
    idx = I[f, 3]
    if idx >= 0:
        nmap -= 1
        last = _map_get(I, nmap)
        _map_set(I, idx, last)
        I[last, 3] = idx
    I[f, 3] = -2
    return nmap


@kernel
def _horizon(W, I, f0, wrow, nmap):
    """Delete the faces visible from point W[wrow] (depth-first from face f0, the same visiting
    order as the recursive search) and collect the horizon edges: (nedges, nmap)."""
    wx, wy, wz = W[wrow, 0], W[wrow, 1], W[wrow, 2]
    nmap = _delete(I, f0, nmap)
    ne = 0
    for e0 in range(3):
        g = I[_AOFF + f0, e0]
        vtx = I[f0, (e0 + 1) % 3]
        if e0 > 0 and I[g, 3] <= -2:
            continue
        ge = _get_edge(I, g, vtx)
        # recursive visibility search from (g, ge)
        vis, ne, nmap = _visit(W, I, g, ge, wx, wy, wz, ne, nmap)
        if not vis and ne < CCD_EMAX - 16:
            I[_HOFF + ne, 0] = g
            I[_HOFF + ne, 1] = ge
            ne += 1
    return ne, nmap


@kernel
def _visible(W, f, wx, wy, wz):
    F = W[_FOFF + f]
    return F[0] * wx + F[1] * wy + F[2] * wz - F[3] > MINVAL


@kernel
def _visit(W, I, f, e, wx, wy, wz, ne, nmap):
    """Iterative form of the recursive horizon search from face f entered through edge e:
    (visible, nedges, nmap). Stack frames in I[_AOFF + CCD_FMAX - 1 - d, 3] hold
    face * 8 + entry edge * 2 + step (step 0/1: which of the two further edges is next)."""
    if not _visible(W, f, wx, wy, wz):
        return False, ne, nmap
    nmap = _delete(I, f, nmap)
    top = _AOFF + CCD_FMAX - 1
    depth = 0
    I[top, 3] = f * 8 + e * 2
    while depth >= 0:
        code = I[top - depth, 3]
        cf = code // 8
        ce = (code // 2) % 4
        step = code % 2
        kk = step + 1
        i = (ce + kk) % 3
        if step == 0:
            I[top - depth, 3] = cf * 8 + ce * 2 + 1
        else:
            depth -= 1
        g = I[_AOFF + cf, i]
        if I[g, 3] > -2:
            ge = _get_edge(I, g, I[cf, (i + 1) % 3])
            if _visible(W, g, wx, wy, wz):
                nmap = _delete(I, g, nmap)
                depth += 1
                I[top - depth, 3] = g * 8 + ge * 2
            elif ne < CCD_EMAX - 16:
                I[_HOFF + ne, 0] = g
                I[_HOFF + ne, 1] = ge
                ne += 1
    return True, ne, nmap


@kernel
def _epa(t1, s1, p1, m1, va1, vn1, ga1, md1, t2, s2, p2, m2, va2, vn2, ga2, md2, margin,
         mesh_vert, mesh_graph, mesh_extrema, W, I, nv, nf, nmap, tol, kmax, discrete):
    """EPA: (face, dist, x1 (3), x2 (3)); face < 0 when no answer."""
    if discrete:
        tol = MINVAL
    upper = BIG
    upper2 = BIG
    face = -1
    # face capacity as in the reference: 6 per iteration, at least 6 * 170
    maxfaces = min(6 * max(kmax, 170), CCD_FMAX)
    k = 0
    while k < kmax:
        pface = face
        lower2 = BIG
        face = -1
        for i in range(nmap):
            f = _map_get(I, i)
            if W[_FOFF + f, 3] < lower2:
                face = f
                lower2 = W[_FOFF + f, 3]
        if lower2 > upper2 or face < 0:
            face = pface
            break
        if lower2 <= 0:
            break
        if nv >= _MAXV:
            break
        lower = math.sqrt(lower2)
        F = W[_FOFF + face]
        wi = nv
        _epa_sup(t1, s1, p1, m1, va1, vn1, ga1, md1, t2, s2, p2, m2, va2, vn2, ga2, md2, margin,
                 mesh_vert, mesh_graph, mesh_extrema, W, I, wi, F[0], F[1], F[2], lower)
        nv += 1
        w = W[_VOFF + wi]
        upk = (F[0] * w[0] + F[1] * w[1] + F[2] * w[2]) / lower
        if upk < upper:
            upper = upk
            upper2 = upper * upper
        # stop on this iteration's bound, not the best one so far: measured against MuJoCo 4.0
        # (its EPA on curved shapes runs on while the new support point is farther than the
        # tolerance from the nearest face, though an earlier one already bounded the depth)
        if upk - lower < tol:
            break
        if discrete:
            rep = False
            for i in range(nv - 1):
                if I[_HOFF + wi, 2] == I[_HOFF + i, 2] and I[_HOFF + wi, 3] == I[_HOFF + i, 3]:
                    rep = True
                    break
            if rep:
                break
        ne, nmap = _horizon(W, I, face, _VOFF + wi, nmap)
        if ne < 3:
            face = -1
            break
        if ne > maxfaces - nf:
            break
        bad = False
        for i in range(ne):
            cur = nf + i
            prv = nf + ne - 1 if i == 0 else cur - 1
            nxt = nf + (i + 1) % ne
            hf = I[_HOFF + i, 0]
            he = I[_HOFF + i, 1]
            a = I[hf, he]
            b = I[hf, (he + 1) % 3]
            I[_AOFF + hf, he] = cur
            d2 = _attach(W, I, cur, wi, b, a, prv, hf, nxt)
            if d2 == 0:
                bad = True
                nf = cur + 1
                break
            if d2 >= lower2 and d2 <= upper2:
                _map_set(I, nmap, cur)
                I[cur, 3] = nmap
                nmap += 1
        if bad:
            face = -1
            break
        nf += ne
        if nmap == 0:
            break
        k += 1
    if face < 0:
        return -1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    F = W[_FOFF + face]
    A = W[_VOFF + I[face, 0]]
    B = W[_VOFF + I[face, 1]]
    C = W[_VOFF + I[face, 2]]
    l0, l1, l2 = _bary(A[0], A[1], A[2], B[0], B[1], B[2], C[0], C[1], C[2], F[0], F[1], F[2])
    x1x = A[3] * l0 + B[3] * l1 + C[3] * l2
    x1y = A[4] * l0 + B[4] * l1 + C[4] * l2
    x1z = A[5] * l0 + B[5] * l1 + C[5] * l2
    x2x = A[6] * l0 + B[6] * l1 + C[6] * l2
    x2y = A[7] * l0 + B[7] * l1 + C[7] * l2
    x2z = A[8] * l0 + B[8] * l1 + C[8] * l2
    return face, -math.sqrt(F[3]), x1x, x1y, x1z, x2x, x2y, x2z


# ---- driver ----------------------------------------------------------------------------------
@kernel
def reset_warmstart(I):
    """Forget both objects' support warm starts (previous vertex index, hill-climb start)."""
    for c in range(2, 4):
        I[_OBJ, c] = -1
        I[_OBJ + 1, c] = -1


@kernel
def _obj(mesh_vertadr, mesh_vertnum, mesh_graphadr, t, d):
    """Mesh arguments of a collision object: (vertadr, vertnum, graphadr, mesh id); zeros and
    graphadr -1 for the other shapes."""
    if t == _MESH:
        return mesh_vertadr[d], mesh_vertnum[d], mesh_graphadr[d], d
    return 0, 0, -1, 0


@kernel
def _core(t1, s1, p1, m1, va1, vn1, ga1, md1, t2, s2, p2, m2, va2, vn2, ga2, md2, margin, cutoff,
          mesh_vert, mesh_graph, mesh_extrema, W, I, tol, kmax):
    """GJK between the cores: spheres and capsules shrunk to their point / segment, every shape
    without its margin, distance cutoff ``cutoff`` between the full shapes. Returns (shallow, n,
    dist, x1 (3), x2 (3)): shallow when the cores' distance is above the tolerance -- then the
    answer is that distance less radius + margin / 2 on each side, the witnesses moved out by
    as much along the normal (n = 0: beyond the cutoff); otherwise the full shapes need GJK +
    EPA."""
    fm1 = 0.5 * margin + (s1[0] if (t1 == _SPHERE or t1 == _CAPSULE) else 0.0)
    fm2 = 0.5 * margin + (s2[0] if (t2 == _SPHERE or t2 == _CAPSULE) else 0.0)
    discrete = (t1 == _BOX or t1 == _MESH) and (t2 == _BOX or t2 == _MESH)
    n, dist, ax, ay, az, bx, by, bz = _gjk(
        t1, s1, p1, m1, va1, vn1, ga1, md1, t2, s2, p2, m2, va2, vn2, ga2, md2, margin, 1,
        mesh_vert, mesh_graph, mesh_extrema, W, I, cutoff + fm1 + fm2, tol, kmax, discrete)
    if not dist > tol:
        return False, n, dist, ax, ay, az, bx, by, bz
    if n == 0:
        return True, 0, BIG, ax, ay, az, bx, by, bz
    nx, ny, nz = bx - ax, by - ay, bz - az
    nn = math.sqrt(nx * nx + ny * ny + nz * nz)
    if nn > MINVAL:
        nx /= nn
        ny /= nn
        nz /= nn
    return (True, n, dist - (fm1 + fm2), ax + fm1 * nx, ay + fm1 * ny, az + fm1 * nz,
            bx - fm2 * nx, by - fm2 * ny, bz - fm2 * nz)


@kernel
def ccd(mesh_vertadr, mesh_vertnum, mesh_vert, mesh_graphadr, mesh_graph, mesh_extrema,
        t1, d1, s1, p1, m1, t2, d2, s2, p2, m2, margin, tol, kmax, W, I):
    """One convex collision (MuJoCo's mjc_ccd in contact mode): (status, dist, x1 (3), x2 (3),
    face). status 0: no contact; 1: contact from the core distance (spheres / capsules, or any
    pair with a margin; shallow; face = the size of the final GJK simplex W[0:face]); 2: contact
    from EPA (face = its final face, for multi-contact)."""
    va1, vn1, ga1, md1 = _obj(mesh_vertadr, mesh_vertnum, mesh_graphadr, t1, d1)
    va2, vn2, ga2, md2 = _obj(mesh_vertadr, mesh_vertnum, mesh_graphadr, t2, d2)
    reset_warmstart(I)
    # polytopes (box, mesh, height-field prism) without margin: finite GJK, EPA stops on a
    # repeated support point. The prism's support carries no index (-1), so against it the
    # repeat is one of the other shape's vertex alone: EPA then often stops at its first faces,
    # short of the minimum penetration. Measured against MuJoCo 4.0 at its geom poses
    # (test_hfield.py test_discrete_polytope_early_stop, margin 0): box 316 of 316 and mesh 212
    # of 212 contacts equal this way, 43 and 18 with EPA run to the tolerance (the minimum depth)
    discrete = (margin == 0 and (t1 == _BOX or t1 == _MESH or t1 == _PRISM)
                and (t2 == _BOX or t2 == _MESH))
    if t1 == _SPHERE or t1 == _CAPSULE or t2 == _SPHERE or t2 == _CAPSULE or margin > 0:
        # the core pass, every shape without its margin (measured against MuJoCo 4: a box
        # within the margin of a mesh face gets the exact normal and witness, GJK between the
        # polytopes; a penetrating one the inflated shapes' EPA answer)
        shallow, n, dist, ax, ay, az, bx, by, bz = _core(
            t1, s1, p1, m1, va1, vn1, ga1, md1, t2, s2, p2, m2, va2, vn2, ga2, md2, margin, 0.0,
            mesh_vert, mesh_graph, mesh_extrema, W, I, tol, kmax)
        if shallow:
            if n == 0 or not dist < 0:
                return 0, BIG, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1
            return 1, dist, ax, ay, az, bx, by, bz, n
        # deep: GJK and EPA on the full shapes (the support warm starts carry over)
    n, dist, ax, ay, az, bx, by, bz = _gjk(t1, s1, p1, m1, va1, vn1, ga1, md1, t2, s2, p2, m2,
                                           va2, vn2, ga2, md2, margin, 0, mesh_vert, mesh_graph,
                                           mesh_extrema, W, I, 0.0, tol, kmax, discrete)
    if not (dist <= tol and n > 1):
        return 0, BIG, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1
    # the reference sets the distance to 0 ("touching") before building the polytope, so the
    # origin-in-hexahedron test of _polytope3 never runs in contact mode
    st, nv, nf = _polytope(t1, s1, p1, m1, va1, vn1, ga1, md1, t2, s2, p2, m2, va2, vn2, ga2,
                           md2, margin, mesh_vert, mesh_graph, mesh_extrema, W, I, n, 0.0)
    if st != 0:
        return 0, BIG, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1
    face, dist, ax, ay, az, bx, by, bz = _epa(t1, s1, p1, m1, va1, vn1, ga1, md1, t2, s2, p2, m2,
                                              va2, vn2, ga2, md2, margin, mesh_vert, mesh_graph,
                                              mesh_extrema, W, I, nv, nf, nf, tol, kmax, discrete)
    if face < 0 or not dist < 0:
        return 0, BIG, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1
    return 2, dist, ax, ay, az, bx, by, bz, face


@kernel
def ccd_distance(mesh_vertadr, mesh_vertnum, mesh_vert, mesh_graphadr, mesh_graph, mesh_extrema,
                 t1, d1, s1, p1, m1, t2, d2, s2, p2, m2, distmax, tol, kmax, W, I):
    """Signed distance of two convex geoms (type1 <= type2), MuJoCo's mjc_ccd in distance mode
    (the distance query mj_geomDistance of pairs without an analytic routine, and box-box): no
    margin; GJK with cutoff ``distmax`` (length), EPA when the shapes overlap. Returns (found,
    dist, x1 (3), x2 (3)): dist < 0 is the penetration depth; x1, x2 are the witness points on
    geom1 and geom2 (world frame); found = 0 when the distance is beyond distmax."""
    va1, vn1, ga1, md1 = _obj(mesh_vertadr, mesh_vertnum, mesh_graphadr, t1, d1)
    va2, vn2, ga2, md2 = _obj(mesh_vertadr, mesh_vertnum, mesh_graphadr, t2, d2)
    reset_warmstart(I)
    discrete = (t1 == _BOX or t1 == _MESH) and (t2 == _BOX or t2 == _MESH)
    if t1 == _SPHERE or t1 == _CAPSULE or t2 == _SPHERE or t2 == _CAPSULE:
        # the cores (point, segment) first
        shallow, n, dist, ax, ay, az, bx, by, bz = _core(
            t1, s1, p1, m1, va1, vn1, ga1, md1, t2, s2, p2, m2, va2, vn2, ga2, md2, 0.0, distmax,
            mesh_vert, mesh_graph, mesh_extrema, W, I, tol, kmax)
        if shallow:
            if n == 0 or dist > distmax:
                return 0, BIG, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
            return 1, dist, ax, ay, az, bx, by, bz
    n, dist, ax, ay, az, bx, by, bz = _gjk(t1, s1, p1, m1, va1, vn1, ga1, md1, t2, s2, p2, m2,
                                           va2, vn2, ga2, md2, 0.0, 0, mesh_vert, mesh_graph,
                                           mesh_extrema, W, I, distmax, tol, kmax, discrete)
    if n == 0:
        return 0, BIG, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    if dist <= tol and n > 1:
        # overlapping: EPA's depth; touching (0, GJK's witnesses) when EPA has no answer
        dist = 0.0
        st, nv, nf = _polytope(t1, s1, p1, m1, va1, vn1, ga1, md1, t2, s2, p2, m2, va2, vn2,
                               ga2, md2, 0.0, mesh_vert, mesh_graph, mesh_extrema, W, I, n, dist)
        if st == 0:
            face, de, ex, ey, ez, fx, fy, fz = _epa(t1, s1, p1, m1, va1, vn1, ga1, md1, t2, s2,
                                                    p2, m2, va2, vn2, ga2, md2, 0.0, mesh_vert,
                                                    mesh_graph, mesh_extrema, W, I, nv, nf, nf,
                                                    tol, kmax, discrete)
            if face >= 0:
                return 1, de, ex, ey, ez, fx, fy, fz
    return 1, dist, ax, ay, az, bx, by, bz


# ---- multi-contact ---------------------------------------------------------------------------
_NRM = _FOFF + CCD_FMAX // 2   # candidate face normals: geom1 in columns 0:3, geom2 in 3:6
_EV = _FOFF              # end vertices of candidate edges (columns 0:3)


@kernel
def _feature(a, b, c):
    """Dimension of the feature spanned by support indices (a, b, c) and its two first distinct
    indices: (dim, i0, i1, which of the three rows gives i1)."""
    if a != b:
        return (2 if (c == a or c == b) else 3), a, b, 1
    if a != c:
        return 2, a, c, 2
    return 1, a, a, 0


@kernel
def _feat_point(t, size, pos, mat, vadr, mesh_vert, idx):
    """World position of support index idx of a box (corner bits x=1, y=2, z=4) or mesh (vertex
    id): the shape itself, without margin (the same expression as _sup, so the same rounding)."""
    if t == _BOX:
        tx = size[0] if idx & 1 else -size[0]
        ty = size[1] if idx & 2 else -size[1]
        tz = size[2] if idx & 4 else -size[2]
    else:
        v = mesh_vert[vadr + idx]
        tx = v[0]
        ty = v[1]
        tz = v[2]
    return (mat[0] * tx + mat[1] * ty + mat[2] * tz + pos[0],
            mat[3] * tx + mat[4] * ty + mat[5] * tz + pos[1],
            mat[6] * tx + mat[7] * ty + mat[8] * tz + pos[2])


@kernel
def _box_normals2(mat, dx, dy, dz, W, col, I, icol):
    """The box face whose outward normal is within FACE_TOL of direction d (local test)."""
    lx = mat[0] * dx + mat[3] * dy + mat[6] * dz
    ly = mat[1] * dx + mat[4] * dy + mat[7] * dz
    lz = mat[2] * dx + mat[5] * dy + mat[8] * dz
    s = 1.0 / math.sqrt(lx * lx + ly * ly + lz * lz)
    lx *= s
    ly *= s
    lz *= s
    for i in range(6):
        ax = i // 2
        sg = 1.0 if i % 2 == 0 else -1.0
        c = (lx if ax == 0 else (ly if ax == 1 else lz)) * sg
        if c > FACE_TOL:
            W[_NRM, col] = sg * mat[ax]
            W[_NRM, col + 1] = sg * mat[3 + ax]
            W[_NRM, col + 2] = sg * mat[6 + ax]
            I[0, icol] = i
            return 1
    return 0


@kernel
def _box_normals(mat, dim, a, b, c, dx, dy, dz, W, col, I, icol):
    """Outward normals (world) of the box faces holding the feature with corners a, b, c
    (bits x=1, y=2, z=4), into W[_NRM + k, col:col+3], face ids (0..5 = +x, -x, +y, -y, +z,
    -z) into I[k, icol]; returns their number."""
    if dim == 1:
        for ax in range(3):
            sg = 1.0 if a & (1 << ax) else -1.0
            W[_NRM + ax, col] = sg * mat[ax]
            W[_NRM + ax, col + 1] = sg * mat[3 + ax]
            W[_NRM + ax, col + 2] = sg * mat[6 + ax]
            I[ax, icol] = 2 * ax + (0 if sg > 0 else 1)
        return 3
    cnt = 0
    for ax in range(3):
        bit = 1 << ax
        if dim == 3:
            on = (a & bit) != 0 and (b & bit) != 0 and (c & bit) != 0
            off = (a & bit) == 0 and (b & bit) == 0 and (c & bit) == 0
        else:
            on = (a & bit) != 0 and (b & bit) != 0
            off = (a & bit) == 0 and (b & bit) == 0
        if on or off:
            sg = 1.0 if on else -1.0
            if cnt < 2:
                W[_NRM + cnt, col] = sg * mat[ax]
                W[_NRM + cnt, col + 1] = sg * mat[3 + ax]
                W[_NRM + cnt, col + 2] = sg * mat[6 + ax]
                I[cnt, icol] = 2 * ax + (0 if sg > 0 else 1)
            cnt += 1
    if (dim == 3 and cnt == 1) or (dim == 2 and cnt == 2):
        return cnt
    return _box_normals2(mat, dx, dy, dz, W, col, I, icol)


@kernel
def _common(mesh_polymap, adr1, num1, adr2, num2, I, icol, k0):
    """Up to 2 polygon ids common to two vertex polygon lists, into I[k0 + k, icol]."""
    cnt = 0
    for i in range(num1):
        for j in range(num2):
            if mesh_polymap[adr1 + i] == mesh_polymap[adr2 + j]:
                I[k0 + cnt, icol] = mesh_polymap[adr1 + i]
                cnt += 1
                if cnt == 2:
                    return 2
    return cnt


@kernel
def _mesh_normals(polyadr, vadr, mesh_polynormal, mesh_polymapadr, mesh_polymapnum, mesh_polymap,
                  mat, dim, a, b, c, W, col, I, icol):
    """Outward normals (world) of the mesh polygons holding the feature with vertices a, b, c;
    polygon ids into I[k, icol]; returns their number."""
    if dim == 1:
        n = min(mesh_polymapnum[vadr + a], MAX_POLYVERT)
        for k in range(n):
            I[k, icol] = mesh_polymap[mesh_polymapadr[vadr + a] + k]
    else:
        n = _common(mesh_polymap, mesh_polymapadr[vadr + a], mesh_polymapnum[vadr + a],
                    mesh_polymapadr[vadr + b], mesh_polymapnum[vadr + b], I, icol, 0)
        if n == 0:
            return 0
        if dim == 3:
            # the polygons of the edge (a, b) that also hold c
            m = 0
            adr3 = mesh_polymapadr[vadr + c]
            for i in range(n):
                for j in range(mesh_polymapnum[vadr + c]):
                    if I[i, icol] == mesh_polymap[adr3 + j] and m < 1:
                        I[m, icol] = I[i, icol]
                        m += 1
            if m == 0:
                return 0
            n = 1
    for k in range(n):
        pn = mesh_polynormal[polyadr + I[k, icol]]
        W[_NRM + k, col] = mat[0] * pn[0] + mat[1] * pn[1] + mat[2] * pn[2]
        W[_NRM + k, col + 1] = mat[3] * pn[0] + mat[4] * pn[1] + mat[5] * pn[2]
        W[_NRM + k, col + 2] = mat[6] * pn[0] + mat[7] * pn[1] + mat[8] * pn[2]
    return n


@kernel
def _edge_dirs(t, size, pos, mat, vadr, polyadr, mesh_vert, mesh_polyvertadr, mesh_polyvertnum,
               mesh_polyvert, mesh_polymapadr, mesh_polymapnum, mesh_polymap,
               dim, ia, ib, Ax, Ay, Az, Bx, By, Bz, W, col):
    """Unit directions of the candidate edges at a vertex / edge feature of a box or mesh, from
    point A; their other ends into W[_EV + k, 0:3]. Returns their number."""
    if dim == 2:
        ex, ey, ez = Bx - Ax, By - Ay, Bz - Az
        en = math.sqrt(ex * ex + ey * ey + ez * ez)
        if en < MINVAL:
            return 0
        W[_EV, 0] = Bx
        W[_EV, 1] = By
        W[_EV, 2] = Bz
        W[_NRM, col] = ex / en
        W[_NRM, col + 1] = ey / en
        W[_NRM, col + 2] = ez / en
        return 1
    n = 0
    if t == _BOX:
        for ax in range(3):
            lx = size[0] if ia & 1 else -size[0]
            ly = size[1] if ia & 2 else -size[1]
            lz = size[2] if ia & 4 else -size[2]
            if ax == 0:
                lx = -lx
            elif ax == 1:
                ly = -ly
            else:
                lz = -lz
            x = mat[0] * lx + mat[1] * ly + mat[2] * lz + pos[0]
            y = mat[3] * lx + mat[4] * ly + mat[5] * lz + pos[1]
            z = mat[6] * lx + mat[7] * ly + mat[8] * lz + pos[2]
            W[_EV + n, 0] = x
            W[_EV + n, 1] = y
            W[_EV + n, 2] = z
            ex, ey, ez = x - Ax, y - Ay, z - Az
            en = math.sqrt(ex * ex + ey * ey + ez * ez)
            W[_NRM + n, col] = ex / en
            W[_NRM + n, col + 1] = ey / en
            W[_NRM + n, col + 2] = ez / en
            n += 1
        return n
    # mesh: in each polygon at the vertex, the edge to the polygon's previous vertex
    num = min(mesh_polymapnum[vadr + ia], MAX_POLYVERT)
    for i in range(num):
        p = polyadr + mesh_polymap[mesh_polymapadr[vadr + ia] + i]
        adr = mesh_polyvertadr[p]
        nvp = mesh_polyvertnum[p]
        for j in range(nvp):
            if mesh_polyvert[adr + j] == ia:
                k = nvp - 1 if j == 0 else j - 1
                v = mesh_vert[vadr + mesh_polyvert[adr + k]]
                x = mat[0] * v[0] + mat[1] * v[1] + mat[2] * v[2] + pos[0]
                y = mat[3] * v[0] + mat[4] * v[1] + mat[5] * v[2] + pos[1]
                z = mat[6] * v[0] + mat[7] * v[1] + mat[8] * v[2] + pos[2]
                W[_EV + n, 0] = x
                W[_EV + n, 1] = y
                W[_EV + n, 2] = z
                ex, ey, ez = x - Ax, y - Ay, z - Az
                en = math.sqrt(ex * ex + ey * ey + ez * ez)
                if en < MINVAL:
                    en = 1.0
                W[_NRM + n, col] = ex / en
                W[_NRM + n, col + 1] = ey / en
                W[_NRM + n, col + 2] = ez / en
                n += 1
                break
    return n


@kernel
def _face_poly(t, size, pos, mat, vadr, polyadr, mesh_vert, mesh_polyvertadr, mesh_polyvertnum,
               mesh_polyvert, fid, W, row, col):
    """Vertices (world) of box face / mesh polygon fid, counterclockwise about its outward
    normal, into W[row:row+m, col:col+3]; returns m."""
    if t == _BOX:
        ax = fid // 2
        sg = 1.0 if fid % 2 == 0 else -1.0
        u = (ax + 1) % 3
        v = (ax + 2) % 3
        for q in range(4):
            l0 = l1 = l2 = 0.0
            # corners (+,+) (-,+) (-,-) (+,-) in the (u, v) axes: ccw about +axis
            su = 1.0 if (q == 0 or q == 3) else -1.0
            sv = 1.0 if (q == 0 or q == 1) else -1.0
            if sg < 0:
                sv = -sv       # reverse the turn for the - face
            lo = (sg * size[ax], su * size[u], sv * size[v])
            if ax == 0:
                l0, l1, l2 = lo[0], lo[1], lo[2]
            elif ax == 1:
                l1, l2, l0 = lo[0], lo[1], lo[2]
            else:
                l2, l0, l1 = lo[0], lo[1], lo[2]
            W[row + q, col] = mat[0] * l0 + mat[1] * l1 + mat[2] * l2 + pos[0]
            W[row + q, col + 1] = mat[3] * l0 + mat[4] * l1 + mat[5] * l2 + pos[1]
            W[row + q, col + 2] = mat[6] * l0 + mat[7] * l1 + mat[8] * l2 + pos[2]
        return 4
    p = polyadr + fid
    adr = mesh_polyvertadr[p]
    m = min(mesh_polyvertnum[p], MAX_POLYVERT)
    for q in range(m):
        v = mesh_vert[vadr + mesh_polyvert[adr + q]]
        W[row + q, col] = mat[0] * v[0] + mat[1] * v[1] + mat[2] * v[2] + pos[0]
        W[row + q, col + 1] = mat[3] * v[0] + mat[4] * v[1] + mat[5] * v[2] + pos[1]
        W[row + q, col + 2] = mat[6] * v[0] + mat[7] * v[1] + mat[8] * v[2] + pos[2]
    return m


# corner sign patterns of box faces 0..5 (+x, -x, +y, -y, +z, -z) in MuJoCo's order: the
# reverse of _face_poly's counterclockwise list, starting at this index of it
_BOX_FACE_START = (0, 0, 2, 0, 1, 3)


@kernel
def _mj_first(t, fid, m):
    """Row, in _face_poly's list of face fid (m vertices), of the vertex MuJoCo lists first:
    a mesh polygon's last stored vertex (MuJoCo lists mesh polygons backwards), a box face's
    first corner in MuJoCo's order."""
    return _BOX_FACE_START[fid] if t == _BOX else m - 1


@kernel
def _mj_face_order(t, fid, W, row, col, m):
    """Reorder a face polygon from _face_poly's counterclockwise list (about the outward normal)
    into MuJoCo's: clockwise, starting at the last polygon vertex of a mesh (MuJoCo lists mesh
    polygons backwards) or at MuJoCo's first corner of a box face. Uses W[row:row+m, 3:6]."""
    s = _mj_first(t, fid, m)
    for k in range(m):
        j = (s - k) % m
        W[row + k, 3] = W[row + j, col]
        W[row + k, 4] = W[row + j, col + 1]
        W[row + k, 5] = W[row + j, col + 2]
    for k in range(m):
        W[row + k, col] = W[row + k, 3]
        W[row + k, col + 1] = W[row + k, 4]
        W[row + k, col + 2] = W[row + k, 5]


@kernel
def _clip_mj(W, row, csub, m, cclip, mc, nx, ny, nz):
    """Sutherland-Hodgman clip of the polygon W[row:row+m, csub:csub+3] by the side planes of
    the polygon W[row:row+mc, cclip:cclip+3], in MuJoCo 4's arithmetic (libmujoco 4.0.0's
    polygonClip, read in the binary and matched bit for bit): edge e's plane has the unit normal
    p = normalize((v[e+1] - v[e]) x ((v[e] + n) - v[e])) ((1, 0, 0) below MINVAL) through
    v[e]; a point P is inside when d(P) = (P - v[e]) . p > -MINVAL; an edge PQ adds Q when both
    ends are inside, else (one end inside) its crossing P + t (Q - P), t = d(P) / (d(P) - d(Q))
    when that is in [0, 1], and then Q when Q is inside. Ping-pongs between csub and the third
    column group; returns (count, column of the result)."""
    src = csub
    other = 3 if (csub != 3 and cclip != 3) else (0 if (csub != 0 and cclip != 0) else 6)
    for e in range(mc):
        f = e + 1 if e + 1 < mc else 0
        ax, ay, az = W[row + e, cclip], W[row + e, cclip + 1], W[row + e, cclip + 2]
        d2x, d2y, d2z = (ax + nx) - ax, (ay + ny) - ay, (az + nz) - az
        d1x = W[row + f, cclip] - ax
        d1y = W[row + f, cclip + 1] - ay
        d1z = W[row + f, cclip + 2] - az
        (px, py, pz), _ = normalize3((d1y * d2z - d1z * d2y, d1z * d2x - d1x * d2z,
                                      d1x * d2y - d1y * d2x))
        dst = other if src == csub else csub
        k = 0
        for i in range(m):
            j = i + 1 if i + 1 < m else 0
            Px, Py, Pz = W[row + i, src], W[row + i, src + 1], W[row + i, src + 2]
            Qx, Qy, Qz = W[row + j, src], W[row + j, src + 1], W[row + j, src + 2]
            dP = (Px - ax) * px + (Py - ay) * py + (Pz - az) * pz
            dQ = (Qx - ax) * px + (Qy - ay) * py + (Qz - az) * pz
            in1 = dP > -MINVAL
            in2 = dQ > -MINVAL
            if not in1 and not in2:
                continue
            if not (in1 and in2) and k < _PMAX:
                den = dP - dQ
                if den != 0.0:
                    t = dP / den
                    if 0.0 <= t <= 1.0:
                        W[row + k, dst] = t * (Qx - Px) + Px
                        W[row + k, dst + 1] = t * (Qy - Py) + Py
                        W[row + k, dst + 2] = t * (Qz - Pz) + Pz
                        k += 1
            if in2 and k < _PMAX:
                W[row + k, dst] = Qx
                W[row + k, dst + 1] = Qy
                W[row + k, dst + 2] = Qz
                k += 1
        m = k
        src = dst
    return m, src


@kernel
def _polygon_quad(W, row, col, n):
    """MuJoCo's pruning of a clipped polygon to 4 points: from the first four vertices, each
    start vertex a in turn pushes d forward while the quadrilateral's area grows, and after
    each such step c, then b (a local search, not the global maximum). A step is taken only
    when the new area is strictly larger, the area being MuJoCo 4's (convex._quad_area_mj:
    half the norm of (a - c) x (b - d), with its square root, which breaks the ties of a
    16-gon's equal quadrilaterals as MuJoCo does; the squared area picks differently on ~1% of
    clipped cap-on-cap polygons). At the end of each a, b is moved off a (then c off b, d off
    c) only when equal; so a may catch up with b and a "quadrilateral" with a == b (a
    triangle, one point twice) can win, as in MuJoCo (reported twice). Returns the indices
    (a, b, c, d)."""
    a, b, c, d = 0, 1, 2, 3
    r0, r1, r2, r3 = 0, 1, 2, 3
    m = _quad_area_mj(W, row, col, a, b, c, d)
    for a in range(n):
        while True:
            dn = d + 1 if d + 1 < n else 0
            mn = _quad_area_mj(W, row, col, a, b, c, dn)
            if mn <= m:
                break
            m = mn
            d = dn
            r0, r1, r2, r3 = a, b, c, d
            while True:
                cn = c + 1 if c + 1 < n else 0
                mn = _quad_area_mj(W, row, col, a, b, cn, d)
                if mn <= m:
                    break
                m = mn
                c = cn
                r0, r1, r2, r3 = a, b, c, d
            while True:
                bn = b + 1 if b + 1 < n else 0
                mn = _quad_area_mj(W, row, col, a, bn, c, d)
                if mn <= m:
                    break
                m = mn
                b = bn
                r0, r1, r2, r3 = a, b, c, d
        if b == a:
            b = b + 1 if b + 1 < n else 0
            if c == b:
                c = c + 1 if c + 1 < n else 0
                if d == c:
                    d = d + 1 if d + 1 < n else 0
    return r0, r1, r2, r3


@kernel
def _emit_clipped(W, R, col, m, n1x, n1y, n1z, n2x, n2y, n2z, margin, dist, pos, frame):
    """Contacts at the clipped polygon W[R:R+m, col:col+3] (points x2 on geom2's face, clipped
    by the prism of geom1's face W[R:R+mA, 0:3] in MuJoCo's order), MuJoCo 4's rule (measured
    on example-robot-data meshes: every census contact within 1e-6, the cases examined to
    1e-15): each x2 is projected along n1 onto geom1's face
    plane (through its first vertex in MuJoCo's order, W[R, 0:3]): x1 = x2 - h n1, h = n1 .
    (x2 - W[R]); dist = (x1 - x2) . n2 = -h (n1 . n2), the gap measured along geom2's normal;
    pos = x1 - dist / 2 n2 (halfway from x1 to geom2's face plane through x2); normal -n2.
    Points with h > margin (h measured along n1 from that first vertex, as MuJoCo 4's
    polygonClip filters: it keeps h <= margin) are dropped first; more than 4 left are pruned
    by MuJoCo's local quadrilateral search (_polygon_quad), 4 or fewer lose exact repeats
    (MINVAL per coordinate). Returns the number written."""
    c = n1x * n2x + n1y * n2y + n1z * n2z
    ox, oy, oz = W[R, 0], W[R, 1], W[R, 2]
    # drop the points beyond the margin, compacting the list in place (MuJoCo prunes what is
    # left: measured, a 5-gon with 2 points below the surface gives both)
    k = 0
    for q in range(m):
        px, py, pz = W[R + q, col], W[R + q, col + 1], W[R + q, col + 2]
        h = (px - ox) * n1x + (py - oy) * n1y + (pz - oz) * n1z
        if h <= margin:
            W[R + k, col] = px
            W[R + k, col + 1] = py
            W[R + k, col + 2] = pz
            k += 1
    m = k
    s0, s1, s2, s3 = 0, 1, 2, 3
    pruned = m > 4
    if pruned:
        s0, s1, s2, s3 = _polygon_quad(W, R, col, m)
        m = 4
    n = 0
    for q in range(m):
        s = s0 if q == 0 else (s1 if q == 1 else (s2 if q == 2 else s3))
        px, py, pz = W[R + s, col], W[R + s, col + 1], W[R + s, col + 2]
        dup = False
        if not pruned:
            for r in range(q):
                if (abs(W[R + r, col] - px) < MINVAL and abs(W[R + r, col + 1] - py) < MINVAL
                        and abs(W[R + r, col + 2] - pz) < MINVAL):
                    dup = True
                    break
        if dup:
            continue
        h = n1x * (px - ox) + n1y * (py - oy) + n1z * (pz - oz)
        dd = -h * c
        dist[n] = dd
        pos[n, 0] = px - h * n1x - 0.5 * dd * n2x
        pos[n, 1] = py - h * n1y - 0.5 * dd * n2y
        pos[n, 2] = pz - h * n1z - 0.5 * dd * n2z
        frame[n, 0] = -n2x
        frame[n, 1] = -n2y
        frame[n, 2] = -n2z
        n += 1
    return n


@kernel
def multicontact(mesh_vertadr, mesh_vert, mesh_polyadr, mesh_polynormal, mesh_polyvertadr,
                 mesh_polyvertnum, mesh_polyvert, mesh_polymapadr, mesh_polymapnum, mesh_polymap,
                 t1, d1, s1, p1, m1, t2, d2, s2, p2, m2, a1, b1, c1, a2, b2, c2,
                 x1x, x1y, x1z, x2x, x2y, x2z, margin, dist, pos, frame, W, I):
    """Several contacts between a face of one box / mesh and a face or edge of the other, chosen
    from the support indices of the final feature (MuJoCo's multiccd): (a1, b1, c1) on geom1 and
    (a2, b2, c2) on geom2 are those of the three vertices of the final EPA face, or of the final
    GJK simplex (repeated to three) of a pair separated within its margin. The feature points
    are the shapes' own vertices, without the margin (measured against MuJoCo 4: with a margin
    its edge-face contacts lie on the shapes, not on the inflated EPA vertices). x2 - x1 (the
    witnesses) picks a box face when the feature alone does not. Face-face contacts follow
    _emit_clipped, edge-face ones _emit_edge_points against the face's plane through its first
    vertex in MuJoCo's order (_mj_first); which pair is tried is in the module docstring
    (MuJoCo 4's order and direction tests). Returns the number written, 0 when the features are
    not aligned or nothing is left of the clip within the margin (the caller keeps the single
    contact)."""
    va1 = mesh_vertadr[d1] if t1 == _MESH else 0
    va2 = mesh_vertadr[d2] if t2 == _MESH else 0
    pa1 = mesh_polyadr[d1] if t1 == _MESH else 0
    pa2 = mesh_polyadr[d2] if t2 == _MESH else 0
    dim1, i1a, i1b, _ = _feature(a1, b1, c1)
    dim2, i2a, i2b, _ = _feature(a2, b2, c2)
    # the first vertex's points (A) and the points of the second distinct index (B) on each geom
    A1x, A1y, A1z = _feat_point(t1, s1, p1, m1, va1, mesh_vert, i1a)
    B1x, B1y, B1z = _feat_point(t1, s1, p1, m1, va1, mesh_vert, i1b)
    A2x, A2y, A2z = _feat_point(t2, s2, p2, m2, va2, mesh_vert, i2a)
    B2x, B2y, B2z = _feat_point(t2, s2, p2, m2, va2, mesh_vert, i2b)
    dx, dy, dz = x2x - x1x, x2y - x1y, x2z - x1z
    if t1 == _BOX:
        nn1 = _box_normals(m1, dim1, i1a, i1b, c1, -dx, -dy, -dz, W, 0, I, 0)
    else:
        nn1 = _mesh_normals(pa1, va1, mesh_polynormal, mesh_polymapadr, mesh_polymapnum,
                            mesh_polymap, m1, dim1, i1a, i1b, c1, W, 0, I, 0)
    if t2 == _BOX:
        nn2 = _box_normals(m2, dim2, i2a, i2b, c2, dx, dy, dz, W, 3, I, 1)
    else:
        nn2 = _mesh_normals(pa2, va2, mesh_polynormal, mesh_polymapadr, mesh_polymapnum,
                            mesh_polymap, m2, dim2, i2a, i2b, c2, W, 3, I, 1)
    # face-face: the best anti-parallel pair among the faces turned towards the other geom:
    # n1 . d < -EDGE_TOL |d| and n2 . d > EDGE_TOL |d|, d = x2 - x1 (MuJoCo 4, read in
    # libmujoco 4.0.0's mjc_multicontact)
    fi = -1
    fj = -1
    best = -FACE_TOL
    dtol = math.sqrt(dx * dx + dy * dy + dz * dz) * EDGE_TOL
    for i in range(nn1):
        if W[_NRM + i, 0] * dx + W[_NRM + i, 1] * dy + W[_NRM + i, 2] * dz >= -dtol:
            continue
        for j in range(nn2):
            if dtol >= W[_NRM + j, 3] * dx + W[_NRM + j, 4] * dy + W[_NRM + j, 5] * dz:
                continue
            c = (W[_NRM + i, 0] * W[_NRM + j, 3] + W[_NRM + i, 1] * W[_NRM + j, 4]
                 + W[_NRM + i, 2] * W[_NRM + j, 5])
            if c < best:
                best = c
                fi = i
                fj = j
    R = _POFF
    if fi >= 0:
        id1 = I[fi, 0]
        id2 = I[fj, 1]
        n1x, n1y, n1z = W[_NRM + fi, 0], W[_NRM + fi, 1], W[_NRM + fi, 2]
        n2x, n2y, n2z = W[_NRM + fj, 3], W[_NRM + fj, 4], W[_NRM + fj, 5]
        mA = _face_poly(t1, s1, p1, m1, va1, pa1, mesh_vert, mesh_polyvertadr, mesh_polyvertnum,
                        mesh_polyvert, id1, W, R, 0)
        mB = _face_poly(t2, s2, p2, m2, va2, pa2, mesh_vert, mesh_polyvertadr, mesh_polyvertnum,
                        mesh_polyvert, id2, W, R, 6)
        if mA < 3 or mB < 3:
            return 0
        # geom1's face clips geom2's, both in MuJoCo's vertex order, side planes along n1;
        # points on geom2's face (MuJoCo 4, measured: whatever the features' polygon counts)
        _mj_face_order(t1, id1, W, R, 0, mA)
        _mj_face_order(t2, id2, W, R, 6, mB)
        m, col = _clip_mj(W, R, 6, mB, 0, mA, n1x, n1y, n1z)
        if m == 0:
            return 0
        return _emit_clipped(W, R, col, m, n1x, n1y, n1z, n2x, n2y, n2z, margin, dist, pos,
                             frame)
    # edge-face (MuJoCo 4's order, read in libmujoco 4.0.0): geom2's edge first when geom2's
    # feature is a vertex / edge, geom1 has candidate faces and (geom2 has none, or geom2's
    # feature is of lower dimension); else geom1's edge first; then the other. An edge needs a
    # vertex / edge feature (its segment is taken whether or not its vertices share a polygon),
    # the other geom candidate faces; only faces turned towards the edge's geom count
    # (n2 . d > MINVAL for geom2's, n1 . (-d) > MINVAL for geom1's, d = x2 - x1); the first
    # (face, edge) pair within EDGE_TOL wins.
    ei = -1
    fk = -1
    edge1 = False
    ecol = fcol = 0
    nn1f = nn1
    nn2f = nn2
    two_first = nn1f > 0 and dim2 < 3 and (nn2f == 0 or dim2 < dim1)
    for k in range(2):
        which = (1 - k) if two_first else k
        if which == 0:
            if dim1 == 3 or nn2f == 0:
                continue
            ne = _edge_dirs(t1, s1, p1, m1, va1, pa1, mesh_vert, mesh_polyvertadr,
                            mesh_polyvertnum, mesh_polyvert, mesh_polymapadr, mesh_polymapnum,
                            mesh_polymap, dim1, i1a, i1b, A1x, A1y, A1z, B1x, B1y, B1z, W, 0)
            nf = nn2f
            ecol, fcol = 0, 3
            sx, sy, sz = dx, dy, dz
        else:
            if dim2 == 3 or nn1f == 0:
                continue
            if k == 1:
                # the first try overwrote geom1's face normals with its edge directions
                if t1 == _BOX:
                    _box_normals(m1, dim1, i1a, i1b, c1, -dx, -dy, -dz, W, 0, I, 0)
                else:
                    _mesh_normals(pa1, va1, mesh_polynormal, mesh_polymapadr, mesh_polymapnum,
                                  mesh_polymap, m1, dim1, i1a, i1b, c1, W, 0, I, 0)
            ne = _edge_dirs(t2, s2, p2, m2, va2, pa2, mesh_vert, mesh_polyvertadr,
                            mesh_polyvertnum, mesh_polyvert, mesh_polymapadr, mesh_polymapnum,
                            mesh_polymap, dim2, i2a, i2b, A2x, A2y, A2z, B2x, B2y, B2z, W, 3)
            nf = nn1f
            ecol, fcol = 3, 0
            sx, sy, sz = -dx, -dy, -dz
        # the first (face, edge) pair within the tolerance, faces turned towards the edge
        for i in range(nf):
            if (MINVAL >= W[_NRM + i, fcol] * sx + W[_NRM + i, fcol + 1] * sy
                    + W[_NRM + i, fcol + 2] * sz):
                continue
            for j in range(ne):
                c = (W[_NRM + j, ecol] * W[_NRM + i, fcol] + W[_NRM + j, ecol + 1]
                     * W[_NRM + i, fcol + 1] + W[_NRM + j, ecol + 2] * W[_NRM + i, fcol + 2])
                if abs(c) < EDGE_TOL and ei < 0:
                    ei = j
                    fk = i
        if ei >= 0:
            edge1 = which == 0
            break
    if ei < 0:
        return 0
    fx, fy, fz = W[_NRM + fk, fcol], W[_NRM + fk, fcol + 1], W[_NRM + fk, fcol + 2]
    if edge1:
        Ax, Ay, Az = A1x, A1y, A1z
        mp = _face_poly(t2, s2, p2, m2, va2, pa2, mesh_vert, mesh_polyvertadr, mesh_polyvertnum,
                        mesh_polyvert, I[fk, 1], W, R, 6)
        sg = -1.0
    else:
        Ax, Ay, Az = A2x, A2y, A2z
        mp = _face_poly(t1, s1, p1, m1, va1, pa1, mesh_vert, mesh_polyvertadr, mesh_polyvertnum,
                        mesh_polyvert, I[fk, 0], W, R, 6)
        sg = 1.0
    Bx, By, Bz = W[_EV + ei, 0], W[_EV + ei, 1], W[_EV + ei, 2]
    if mp < 3:
        return 0
    # the face plane through the face's first vertex in MuJoCo's order (a mesh polygon's last
    # stored one): hull polygons are planar only to float rounding, ~1e-5 on real meshes
    # (measured: each clipped end's distance to that plane, to 1e-15)
    v0 = _mj_first(t2, I[fk, 1], mp) if edge1 else _mj_first(t1, I[fk, 0], mp)
    fo = fx * W[R + v0, 6] + fy * W[R + v0, 7] + fz * W[R + v0, 8]
    t0, t1_ = _clip_edge(Ax, Ay, Az, Bx, By, Bz, W, R, 6, mp, fx, fy, fz)
    if t0 > t1_:
        return 0
    return _emit_edge_points(Ax, Ay, Az, Bx, By, Bz, t0, t1_, fx, fy, fz, fo, 0.0, sg, margin,
                             dist, pos, frame)


@kernel
def _side_line(wx, wy, wz, pos, mat, h):
    """Ends A, B of the line through w parallel to a round geom's axis (pose pos, mat), between
    the axial coordinates -h and h: (Ax, Ay, Az, Bx, By, Bz)."""
    ax, ay, az = mat[2], mat[5], mat[8]
    s = (wx - pos[0]) * ax + (wy - pos[1]) * ay + (wz - pos[2]) * az
    return (wx + (-h - s) * ax, wy + (-h - s) * ay, wz + (-h - s) * az,
            wx + (h - s) * ax, wy + (h - s) * ay, wz + (h - s) * az)


@kernel
def _face_along_axis(W, nn, nx, ny, nz, ax, ay, az):
    """The first of the nn candidate polytope faces (outward normals in W rows _NRM.., columns
    3:6) that faces the round shape (against the contact normal n) and lies along its axis a
    (normal within EDGE_TOL of perpendicular to a): the face a side line rests on. -1: none."""
    for k in range(nn):
        fx, fy, fz = W[_NRM + k, 3], W[_NRM + k, 4], W[_NRM + k, 5]
        if fx * nx + fy * ny + fz * nz >= 0:
            continue
        if abs(ax * fx + ay * fy + az * fz) < EDGE_TOL:
            return k
    return -1


@kernel
def round_multicontact(mesh_vertadr, mesh_vert, mesh_polyadr, mesh_polynormal, mesh_polyvertadr,
                       mesh_polyvertnum, mesh_polyvert, mesh_polymapadr, mesh_polymapnum,
                       mesh_polymap, tc, sc, pc, mc, d2, p2, m2, ia, ib, ic, nx, ny, nz,
                       wx, wy, wz, margin, dist, pos, frame, W, I):
    """Two contacts of a capsule or cylinder (geom1) along a face of a mesh (geom2) when its axis
    lies in the face's plane (MuJoCo 4's multiccd for round shapes, measured): the mesh feature
    (support indices ia, ib, ic of the final GJK simplex or EPA face) gives the candidate
    polygons in mesh_polymap order; the first one facing the capsule whose normal is within
    EDGE_TOL of perpendicular to the axis is taken. The side line through the witness w (on
    the surface) parallel to the axis, between the axial ends, is clipped by the polygon's
    prism; each end keeps its own distance to the polygon's plane (pos halfway, normal = minus
    the polygon's outward normal; ends beyond the margin are dropped; an end cut by the prism
    left alone is reported twice, convex._emit_edge_points). Returns the number written (0:
    none)."""
    va = mesh_vertadr[d2]
    pa = mesh_polyadr[d2]
    dim, i0, i1, r = _feature(ia, ib, ic)
    nn = _mesh_normals(pa, va, mesh_polynormal, mesh_polymapadr, mesh_polymapnum, mesh_polymap,
                       m2, dim, i0, i1, ic, W, 3, I, 1)
    fk = _face_along_axis(W, nn, nx, ny, nz, mc[2], mc[5], mc[8])
    if fk < 0:
        return 0
    fx, fy, fz = W[_NRM + fk, 3], W[_NRM + fk, 4], W[_NRM + fk, 5]
    R = _POFF
    mp = _face_poly(_MESH, sc, p2, m2, va, pa, mesh_vert, mesh_polyvertadr, mesh_polyvertnum,
                    mesh_polyvert, I[fk, 1], W, R, 6)
    if mp < 3:
        return 0
    fo = fx * W[R, 6] + fy * W[R, 7] + fz * W[R, 8]
    h = sc[1]
    # the face plane is inflated by half the margin for a capsule (whose witness w already
    # carries its own half margin); a cylinder's side line does not move with the margin
    mh = 0.5 * margin if tc == _CAPSULE else 0.0
    # the side line through w parallel to the axis, over the whole axial extent [-h, h]
    Ax, Ay, Az, Bx, By, Bz = _side_line(wx, wy, wz, pc, mc, h)
    t0, t1_ = _clip_edge_tol(Ax, Ay, Az, Bx, By, Bz, W, R, 6, mp, fx, fy, fz, 1e-10)
    if t0 > t1_:
        return 0
    return _emit_edge_points(Ax, Ay, Az, Bx, By, Bz, t0, t1_, fx, fy, fz, fo, mh, -1.0, margin,
                             dist, pos, frame)


@kernel
def _cap_side(W, I, st, face, col, pos, mat):
    """Cap of a cylinder holding the final feature of a collision (ccd's status st and face):
    +1 / -1 when every support point of it on the cylinder (W columns col:col+3 of the EPA face
    vertices, or of the GJK simplex W[0:face] when st == 1) lies on the rim of the +z / -z cap
    (the sign of its axial coordinate), else 0 (a side feature: points on both rims)."""
    ax, ay, az = mat[2], mat[5], mat[8]
    n = 3 if st == 2 else face
    s = 0
    for k in range(n):
        r = _VOFF + I[face, k] if st == 2 else k
        z = (W[r, col] - pos[0]) * ax + (W[r, col + 1] - pos[1]) * ay + (W[r, col + 2] - pos[2]) * az
        sk = 1 if z > 0 else (-1 if z < 0 else 0)
        if sk == 0 or (k > 0 and sk != s):
            return 0
        s = sk
    return s


@kernel
def _line_on_cap(sc, pc, mc, cs, sl, pl, ml, wx, wy, wz, mh, sg, margin, dist, pos, frame, W):
    """Two contacts of a round geom's side line against the cap cs (+1 / -1) of a cylinder
    (size sc, pose pc, mc): the line through w parallel to the round geom's axis (pose pl, ml)
    over its axial extent [-sl[1], sl[1]] is clipped by the prism of the cap's 16-gon; each end
    keeps its own distance to the cap plane (raised by mh: half a margin that w carries), pos
    halfway, normal sg * the cap's outward normal. Returns the number written."""
    R = _POFF
    cx, cy, cz = cs * mc[2], cs * mc[5], cs * mc[8]
    _cap_polygon(sc, pc, mc, cs, W, R, 6)
    fo = cx * W[R, 6] + cy * W[R, 7] + cz * W[R, 8]
    Ax, Ay, Az, Bx, By, Bz = _side_line(wx, wy, wz, pl, ml, sl[1])
    t0, t1 = _clip_edge_tol(Ax, Ay, Az, Bx, By, Bz, W, R, 6, _NCAP, cx, cy, cz, 1e-10)
    if t0 > t1:
        return 0
    return _emit_edge_points(Ax, Ay, Az, Bx, By, Bz, t0, t1, cx, cy, cz, fo, mh, sg, margin, dist,
                             pos, frame)


@kernel
def _witness_normal(x1x, x1y, x1z, x2x, x2y, x2z):
    """(True, unit vector from witness x2 to x1), or (False, 0, 0, 0) when they are closer
    than MINVAL: no normal to build contacts on."""
    nx, ny, nz = x1x - x2x, x1y - x2y, x1z - x2z
    nn = math.sqrt(nx * nx + ny * ny + nz * nz)
    if nn < MINVAL:
        return False, 0.0, 0.0, 0.0
    return True, nx / nn, ny / nn, nz / nn


@kernel
def cylinder_caps(mesh_vertadr, mesh_vertnum, mesh_vert, mesh_graphadr, mesh_graph, mesh_extrema,
                  t1, d1, s1, p1, m1, d2, s2, p2, m2, st, face, x1x, x1y, x1z, x2x, x2y, x2z,
                  margin, tol, kmax, dist, pos, frame, W, I):
    """MuJoCo 4's multiccd with a cylinder's cap as a face against a capsule or cylinder
    (geom1; geom2 the cylinder), calibrated on probes of mujoco 4.0.0: the cap (the regular
    16-gon of convex._cap_polygon) of a cylinder whose final feature lies on that cap's rim
    (_cap_side) is a face; a capsule's axis or the side line of a cylinder whose feature is on
    both rims is an edge (the line through its witness parallel to the axis, over its axial
    extent). An edge within EDGE_TOL of a cap's plane is clipped by the cap's prism: two
    contacts, each end with its own distance to the cap plane, pos halfway, normal along the
    cap normal (from geom1 to geom2); geom2's cap against geom1's edge is tried first, then
    geom1's cap against geom2's side line. Two caps anti-parallel within FACE_TOL: as two
    polytope faces (geom2's cap clipped by geom1's, _emit_clipped: points at or beyond the
    margin dropped). A cylinder's contacts do not move with the margin (measured): its features
    and witnesses come from the collision without margin (when that one penetrates; else the
    witnesses less margin / 2 along the normal). x1, x2: the witnesses of ccd's answer (st,
    face). Returns the number written, 0 for none."""
    ok, nx, ny, nz = _witness_normal(x1x, x1y, x1z, x2x, x2y, x2z)
    if not ok:
        return 0
    sg2 = _cap_side(W, I, st, face, 6, p2, m2)
    sg1 = _cap_side(W, I, st, face, 3, p1, m1) if t1 == _CYLINDER else 0
    mh = 0.5 * margin
    w1x, w1y, w1z, w2x, w2y, w2z = x1x, x1y, x1z, x2x, x2y, x2z
    if t1 == _CYLINDER and margin > 0:
        mh = 0.0
        st0 = 0
        if st == 2:
            st0, _, a0x, a0y, a0z, b0x, b0y, b0z, f0 = ccd(
                mesh_vertadr, mesh_vertnum, mesh_vert, mesh_graphadr, mesh_graph, mesh_extrema,
                t1, d1, s1, p1, m1, _CYLINDER, d2, s2, p2, m2, 0.0, tol, kmax, W, I)
            if st0 == 2:
                sg2 = _cap_side(W, I, 2, f0, 6, p2, m2)
                sg1 = _cap_side(W, I, 2, f0, 3, p1, m1)
                w1x, w1y, w1z, w2x, w2y, w2z = a0x, a0y, a0z, b0x, b0y, b0z
        if st0 != 2:
            h = 0.5 * margin
            w1x, w1y, w1z = x1x - h * nx, x1y - h * ny, x1z - h * nz
            w2x, w2y, w2z = x2x + h * nx, x2y + h * ny, x2z + h * nz
    R = _POFF
    if sg2 != 0:
        c2x, c2y, c2z = sg2 * m2[2], sg2 * m2[5], sg2 * m2[8]
        if sg1 != 0 and sg1 * (m1[2] * c2x + m1[5] * c2y + m1[8] * c2z) < -FACE_TOL:
            # cap against cap, as two polytope faces (measured: test_convex's 40 random cap pairs
            # within 1e-6, since the 16-gons, the clip and the pruning follow MuJoCo's arithmetic
            # bit for bit; before, 39, the other a tie of the 16-gons' quadrilaterals): geom2's
            # cap clipped by the side planes of geom1's, both from the local +x vertex clockwise
            # about their outward normals; points beyond the margin dropped before the pruning
            # to 4 (measured: mujoco reports none of them, 6 tilted cap-on-cap poses)
            c1x, c1y, c1z = sg1 * m1[2], sg1 * m1[5], sg1 * m1[8]
            _cap_polygon(s1, p1, m1, sg1, W, R, 0)
            _reverse_polygon(W, R + 1, 0, _NCAP - 1)
            _cap_polygon(s2, p2, m2, sg2, W, R, 6)
            _reverse_polygon(W, R + 1, 6, _NCAP - 1)
            m, col = _clip_mj(W, R, 6, _NCAP, 0, _NCAP, c1x, c1y, c1z)
            if m == 0:
                return 0
            return _emit_clipped(W, R, col, m, c1x, c1y, c1z, c2x, c2y, c2z, margin, dist, pos,
                                 frame)
        if abs(m1[2] * c2x + m1[5] * c2y + m1[8] * c2z) < EDGE_TOL:
            # geom1's edge (capsule axis / cylinder side line) in the plane of geom2's cap
            return _line_on_cap(s2, p2, m2, sg2, s1, p1, m1, w1x, w1y, w1z, mh, -1.0, margin,
                                dist, pos, frame, W)
        return 0
    if sg1 != 0:
        # geom2's side line in the plane of geom1's cap
        c1x, c1y, c1z = sg1 * m1[2], sg1 * m1[5], sg1 * m1[8]
        if abs(m2[2] * c1x + m2[5] * c1y + m2[8] * c1z) < EDGE_TOL:
            return _line_on_cap(s1, p1, m1, sg1, s2, p2, m2, w2x, w2y, w2z, mh, 1.0, margin,
                                dist, pos, frame, W)
    return 0


@kernel
def cylinder_polytope(mesh_vertadr, mesh_vert, mesh_polyadr, mesh_polynormal, mesh_polyvertadr,
                      mesh_polyvertnum, mesh_polyvert, mesh_polymapadr, mesh_polymapnum,
                      mesh_polymap, s1, p1, m1, t2, d2, s2, p2, m2, st, face,
                      x1x, x1y, x1z, x2x, x2y, x2z, margin, dist, pos, frame, W, I):
    """MuJoCo 4's multiccd of a cylinder (geom1) against a box or mesh (geom2), the polytope
    rules of ``multicontact`` with the cylinder's feature as one side (world frame; measured
    against mujoco 4.0.0, see test_convex.py). The cylinder's feature is its cap (the regular
    16-gon of convex._cap_polygon, normal c = +-axis) when every support point of the final
    feature lies on that cap's rim (_cap_side), else its side line; the polytope's are the faces
    and edges of its support indices (_box_normals / _mesh_normals, _edge_dirs). The feature is
    that of the EPA face (st == 2; with a margin, of the inflated shapes) or of the core GJK
    simplex (st == 1: a pair with a margin separated within it); its points are on the shapes
    themselves, without the margin (as for polytopes):
      * cap against a face anti-parallel within FACE_TOL (the best aligned): the face (MuJoCo's
        vertex order) clipped by the side planes of the cap (starting at the local +x vertex,
        clockwise about c), _emit_clipped: dist along the face normal n2 from each point's
        projection onto the cap plane, normal -n2; points at or beyond the margin dropped,
        more than 4 left pruned by _polygon_quad (a box tilted on a cap gives 2 or 3);
      * else the side line (through the cylinder point of the feature's first vertex, along
        the axis, over its length; whatever the cylinder's feature) within EDGE_TOL of the
        plane of a polytope face facing the cylinder (the first): clipped by the face's prism,
        each end with its own distance to the face plane, normal -face normal; when such a
        face exists this is the answer, also when the side line misses it (then the single
        contact: a box corner in a cap with an edge within EDGE_TOL of the cap plane always
        has one, the face across that edge);
      * else, when the polytope's feature is an edge or a vertex (not a face), its edge, or
        the first of the edges at its vertex (_edge_dirs' order: mesh_polymap's polygons, the
        edge to each one's previous vertex; a box's x, y, z neighbours), within EDGE_TOL of
        the cap plane: clipped by the cap's prism, each end with its own distance to the cap
        plane, normal c (mujoco 4's mjc_multicontact, read in its binary and measured: a mesh
        vertex in a cap whose faces are all off the axis gives 2 contacts: the G1's head_link
        mesh in its right shoulder's cylinder cap, state 7 of bench/contacts.py).
    x1, x2: the witnesses of ccd's answer (st, face). Returns the number written, 0 for none
    (the caller keeps the single contact)."""
    ok, nx, ny, nz = _witness_normal(x1x, x1y, x1z, x2x, x2y, x2z)
    if not ok:
        return 0
    # the feature: the polytope's support indices and the cylinder's points (W columns 3:6) of
    # the EPA face, or of the core GJK simplex (st == 1); the side line goes through the
    # cylinder point of its first vertex (measured: the line's angular position is that
    # point's, to 1e-15, also with a margin, whose EPA runs on the inflated shapes)
    if st == 2:
        r0 = _VOFF + I[face, 0]
        i0, i1, i2 = I[_HOFF + I[face, 0], 3], I[_HOFF + I[face, 1], 3], I[_HOFF + I[face, 2], 3]
    else:
        r0 = 0
        i0 = I[_SIDX, 3]
        i1 = I[_SIDX + min(1, face - 1), 3]
        i2 = I[_SIDX + min(2, face - 1), 3]
    wx, wy, wz = W[r0, 3], W[r0, 4], W[r0, 5]
    if st == 2 and margin > 0:
        # that point on the inflated cylinder: back onto the cylinder, at the same angle
        ax, ay, az = m1[2], m1[5], m1[8]
        qx, qy, qz = wx - p1[0], wy - p1[1], wz - p1[2]
        sa = qx * ax + qy * ay + qz * az
        qx, qy, qz = qx - sa * ax, qy - sa * ay, qz - sa * az
        qn = math.sqrt(qx * qx + qy * qy + qz * qz)
        if qn > MINVAL:
            wx = p1[0] + s1[0] / qn * qx
            wy = p1[1] + s1[0] / qn * qy
            wz = p1[2] + s1[0] / qn * qz
    cs = _cap_side(W, I, st, face, 3, p1, m1)
    va2 = mesh_vertadr[d2] if t2 == _MESH else 0
    pa2 = mesh_polyadr[d2] if t2 == _MESH else 0
    dim2, j0, j1, _ = _feature(i0, i1, i2)
    if t2 == _BOX:
        nn2 = _box_normals(m2, dim2, j0, j1, i2, x2x - x1x, x2y - x1y, x2z - x1z, W, 3, I, 1)
    else:
        nn2 = _mesh_normals(pa2, va2, mesh_polynormal, mesh_polymapadr, mesh_polymapnum,
                            mesh_polymap, m2, dim2, j0, j1, i2, W, 3, I, 1)
    R = _POFF
    c1x, c1y, c1z = cs * m1[2], cs * m1[5], cs * m1[8]      # the cap's outward normal
    if cs != 0:
        fj = -1
        best = -FACE_TOL
        for j in range(nn2):
            c = c1x * W[_NRM + j, 3] + c1y * W[_NRM + j, 4] + c1z * W[_NRM + j, 5]
            if c < best:
                best = c
                fj = j
        if fj >= 0:
            # cap against a face: the face clipped by the cap, both in MuJoCo's order
            fid = I[fj, 1]
            n2x, n2y, n2z = W[_NRM + fj, 3], W[_NRM + fj, 4], W[_NRM + fj, 5]
            _cap_polygon(s1, p1, m1, cs, W, R, 0)
            _reverse_polygon(W, R + 1, 0, _NCAP - 1)   # clockwise about c from the +x vertex
            mB = _face_poly(t2, s2, p2, m2, va2, pa2, mesh_vert, mesh_polyvertadr,
                            mesh_polyvertnum, mesh_polyvert, fid, W, R, 6)
            if mB < 3:
                return 0
            _mj_face_order(t2, fid, W, R, 6, mB)
            m, col = _clip_mj(W, R, 6, mB, 0, _NCAP, c1x, c1y, c1z)
            if m == 0:
                return 0
            return _emit_clipped(W, R, col, m, c1x, c1y, c1z, n2x, n2y, n2z, margin, dist, pos,
                                 frame)
    # side line against a face facing the cylinder (whatever its feature: measured, a rim
    # feature of a cylinder lying on a face gives the side line)
    fk = _face_along_axis(W, nn2, nx, ny, nz, m1[2], m1[5], m1[8])
    if fk >= 0:
        fx, fy, fz = W[_NRM + fk, 3], W[_NRM + fk, 4], W[_NRM + fk, 5]
        mp = _face_poly(t2, s2, p2, m2, va2, pa2, mesh_vert, mesh_polyvertadr, mesh_polyvertnum,
                        mesh_polyvert, I[fk, 1], W, R, 6)
        if mp >= 3:
            fo = fx * W[R, 6] + fy * W[R, 7] + fz * W[R, 8]
            Ax, Ay, Az, Bx, By, Bz = _side_line(wx, wy, wz, p1, m1, s1[1])
            t0, t1 = _clip_edge_tol(Ax, Ay, Az, Bx, By, Bz, W, R, 6, mp, fx, fy, fz, 1e-10)
            if t0 <= t1:
                return _emit_edge_points(Ax, Ay, Az, Bx, By, Bz, t0, t1, fx, fy, fz, fo, 0.0,
                                         -1.0, margin, dist, pos, frame)
        # mujoco 4 stops at the first face along the axis, also when the side line misses it
        # (a box corner in a cap with an edge within EDGE_TOL of its plane: the face across
        # that edge is such a face, and the single contact stays)
        return 0
    if cs == 0 or dim2 == 3:
        return 0
    # cap against an edge of the polytope's feature (its edge, or one at its vertex) in its plane
    A2x, A2y, A2z = _feat_point(t2, s2, p2, m2, va2, mesh_vert, j0)
    B2x, B2y, B2z = _feat_point(t2, s2, p2, m2, va2, mesh_vert, j1)
    ne = _edge_dirs(t2, s2, p2, m2, va2, pa2, mesh_vert, mesh_polyvertadr, mesh_polyvertnum,
                    mesh_polyvert, mesh_polymapadr, mesh_polymapnum, mesh_polymap, dim2, j0,
                    j1, A2x, A2y, A2z, B2x, B2y, B2z, W, 3)
    ei = -1
    for j in range(ne):
        c = c1x * W[_NRM + j, 3] + c1y * W[_NRM + j, 4] + c1z * W[_NRM + j, 5]
        if abs(c) < EDGE_TOL:
            ei = j
            break
    if ei < 0:
        return 0
    Bx, By, Bz = W[_EV + ei, 0], W[_EV + ei, 1], W[_EV + ei, 2]
    _cap_polygon(s1, p1, m1, cs, W, R, 6)
    fo = c1x * W[R, 6] + c1y * W[R, 7] + c1z * W[R, 8]
    t0, t1 = _clip_edge(A2x, A2y, A2z, Bx, By, Bz, W, R, 6, _NCAP, c1x, c1y, c1z)
    if t0 > t1:
        return 0
    return _emit_edge_points(A2x, A2y, A2z, Bx, By, Bz, t0, t1, c1x, c1y, c1z, fo, 0.0, 1.0,
                             margin, dist, pos, frame)


@kernel
def nccd_collide(mesh_vertadr, mesh_vertnum, mesh_vert, mesh_graphadr, mesh_graph, mesh_extrema,
                 mesh_polyadr, mesh_polynormal, mesh_polyvertadr, mesh_polyvertnum, mesh_polyvert,
                 mesh_polymapadr, mesh_polymapnum, mesh_polymap,
                 t1, d1, s1, p1, m1, t2, d2, s2, p2, m2, margin, tol, kmax, multiccd,
                 dist, pos, frame, W, I):
    """Contacts of two convex geoms (type1 <= type2) by the native collider; returns n."""
    st, dd, ax, ay, az, bx, by, bz, face = ccd(mesh_vertadr, mesh_vertnum, mesh_vert,
                                               mesh_graphadr, mesh_graph, mesh_extrema,
                                               t1, d1, s1, p1, m1,
                                               t2, d2, s2, p2, m2, margin, tol, kmax, W, I)
    if st == 0:
        return 0
    if multiccd and (t1 == _BOX or t1 == _MESH) and (t2 == _BOX or t2 == _MESH):
        # the support indices of the final feature: the EPA face (penetrating), or (st == 1: a
        # pair with a margin, separated within it) the core GJK simplex W[0:face], its last
        # vertex repeated to three (MuJoCo 4 gives the polygon contacts in both cases, measured)
        if st == 2:
            r0, r1, r2 = _HOFF + I[face, 0], _HOFF + I[face, 1], _HOFF + I[face, 2]
        else:
            r0, r1, r2 = _SIDX, _SIDX + min(1, face - 1), _SIDX + min(2, face - 1)
        n = multicontact(mesh_vertadr, mesh_vert, mesh_polyadr, mesh_polynormal,
                         mesh_polyvertadr, mesh_polyvertnum, mesh_polyvert, mesh_polymapadr,
                         mesh_polymapnum, mesh_polymap, t1, d1, s1, p1, m1, t2, d2, s2, p2, m2,
                         I[r0, 2], I[r1, 2], I[r2, 2], I[r0, 3], I[r1, 3], I[r2, 3],
                         ax, ay, az, bx, by, bz, margin, dist, pos, frame, W, I)
        if n > 0:
            return n
    if multiccd and t2 == _CYLINDER and (t1 == _CAPSULE or t1 == _CYLINDER):
        n = cylinder_caps(mesh_vertadr, mesh_vertnum, mesh_vert, mesh_graphadr, mesh_graph,
                          mesh_extrema, t1, d1, s1, p1, m1, d2, s2, p2, m2, st, face,
                          ax, ay, az, bx, by, bz, margin, tol, kmax, dist, pos, frame, W, I)
        if n > 0:
            return n
    nx, ny, nz = ax - bx, ay - by, az - bz
    nn = math.sqrt(nx * nx + ny * ny + nz * nz)
    if nn > MINVAL:
        nx /= nn
        ny /= nn
        nz /= nn
    if multiccd and t1 == _CYLINDER and (t2 == _MESH or t2 == _BOX):
        n = cylinder_polytope(mesh_vertadr, mesh_vert, mesh_polyadr, mesh_polynormal,
                              mesh_polyvertadr, mesh_polyvertnum, mesh_polyvert, mesh_polymapadr,
                              mesh_polymapnum, mesh_polymap, s1, p1, m1, t2, d2, s2, p2, m2, st,
                              face, ax, ay, az, bx, by, bz, margin, dist, pos, frame, W, I)
        if n > 0:
            return n
    if multiccd and t1 == _CAPSULE and t2 == _MESH:
        # a capsule along a mesh face (capsule-box is analytic: not here): the mesh feature of
        # the EPA face, or (st == 1, shallow) of the core GJK simplex
        if st == 1:
            ns = face
            ia = I[_SIDX, 3]
            ib = I[_SIDX + min(1, ns - 1), 3]
            ic = I[_SIDX + min(2, ns - 1), 3]
        else:
            ia = I[_HOFF + I[face, 0], 3]
            ib = I[_HOFF + I[face, 1], 3]
            ic = I[_HOFF + I[face, 2], 3]
        n = round_multicontact(mesh_vertadr, mesh_vert, mesh_polyadr, mesh_polynormal,
                               mesh_polyvertadr, mesh_polyvertnum, mesh_polyvert,
                               mesh_polymapadr, mesh_polymapnum, mesh_polymap, t1, s1, p1, m1,
                               d2, p2, m2, ia, ib, ic, nx, ny, nz, ax, ay, az,
                               margin, dist, pos, frame, W, I)
        if n > 0:
            return n
    dist[0] = margin + dd
    pos[0, 0] = 0.5 * (ax + bx)
    pos[0, 1] = 0.5 * (ay + by)
    pos[0, 2] = 0.5 * (az + bz)
    frame[0, 0] = nx
    frame[0, 1] = ny
    frame[0, 2] = nz
    return 1
