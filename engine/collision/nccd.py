"""MuJoCo's native convex collider ("nativeccd"): GJK, EPA and the polygon multi-contact (the
last in engine/collision/multiccd.py, with the pair entry point ``nccd_collide``).

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
from .convex import CCD_VMAX, CCD_FMAX, CCD_EMAX, _VOFF, _FOFF, _AOFF, _HOFF, _SKOFF

_PRISM = 1       # one triangular prism of a height field (engine/collision/hfield.py)
from ..enums import (mjGEOM_SPHERE as _SPHERE, mjGEOM_CAPSULE as _CAPSULE,  # noqa
                     mjGEOM_ELLIPSOID as _ELLIPSOID, mjGEOM_CYLINDER as _CYLINDER,
                     mjGEOM_BOX as _BOX, mjGEOM_MESH as _MESH)

from ..enums import mjMINVAL as MINVAL  # noqa: E402
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
