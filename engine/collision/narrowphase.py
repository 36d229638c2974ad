"""Narrow phase: the collision function for each pair of geom types, like MuJoCo's collision
function table (seed 001, "Contacts": mjCOLLISIONFUNC, upper triangle indexed by geom type).

`collide` takes two geoms with type1 <= type2 and dispatches to the analytic functions of
engine/collision/primitive.py where MuJoCo has them (plane against sphere, capsule, ellipsoid,
cylinder, box, mesh; sphere against sphere, capsule, cylinder, box; capsule against capsule),
to ``box_box`` (engine/collision/box.py) for box-box and to the general convex routine
``convex_collide`` (engine/collision/convex.py) for every other pair of convex types. Known gap:
MuJoCo's capsule-box is analytic with up to 2 contacts; here it is the convex routine's single
contact.

Return value: the number of contacts written (>= 0), or a negative code when the pair needs a
routine this build lacks: NEED_CONVEX (convex.py / box.py not present yet), NEED_SDF (sdf geoms).
Height-field pairs need the hfield's data and the other geom's rbound: the caller (mj_collision,
engine/collision/__init__.py) sends them to engine/collision/hfield.py; ``collide`` answers
NEED_HFIELD for them.
"""
from __future__ import annotations

import math

from numba import njit

from . import primitive as pr

from .._access import KERNEL as _J

PLANE, HFIELD, SPHERE, CAPSULE, ELLIPSOID, CYLINDER, BOX, MESH, SDF = range(9)
NEED_CONVEX, NEED_HFIELD, NEED_SDF = -1, -2, -3
mjMINVAL = 1e-15

try:  # the general convex routine (another module's owner); absent until it lands
    from .convex import convex_collide
    HAVE_CONVEX = True
except ImportError:  # pragma: no cover - placeholder until engine/collision/convex.py exists
    HAVE_CONVEX = False

    @njit(**_J)
    def convex_collide(mesh_vertadr, mesh_vertnum, mesh_vert, mesh_graphadr, mesh_graph,
                       type1, dataid1, size1, pos1, mat1, type2, dataid2, size2, pos2, mat2,
                       margin, tolerance, iterations, multiccd, dist, pos, frame, work_f, work_i):
        return NEED_CONVEX

try:
    from .box import box_box
    HAVE_BOXBOX = True
except ImportError:  # pragma: no cover
    HAVE_BOXBOX = False

    @njit(**_J)
    def box_box(size1, pos1, mat1, size2, pos2, mat2, margin, dist, pos, frame):
        return NEED_CONVEX


@njit(**_J)
def has_function(type1, type2):
    """Whether MuJoCo's table has a collision function for this (type1 <= type2) pair: none for
    plane-plane, plane-hfield and hfield-hfield."""
    if type1 == PLANE:
        return type2 != PLANE and type2 != HFIELD
    if type1 == HFIELD:
        return type2 != HFIELD
    return True


@njit(**_J)
def plane_mesh(pos1, mat1, pos2, mat2, vert, margin, dist, pos, frame):
    """Plane-mesh (convex hull vertices, max 4): the deepest vertex, then the vertices extreme
    along the four diagonal directions of the plane's tangent frame expressed in the mesh frame,
    each within margin and not already chosen."""
    n0, n1, n2 = mat1[2], mat1[5], mat1[8]
    nv = vert.shape[0]
    # normal in the mesh frame
    l0 = mat2[0] * n0 + mat2[3] * n1 + mat2[6] * n2
    l1 = mat2[1] * n0 + mat2[4] * n1 + mat2[7] * n2
    l2 = mat2[2] * n0 + mat2[5] * n1 + mat2[8] * n2
    h0 = (pos2[0] - pos1[0]) * n0 + (pos2[1] - pos1[1]) * n1 + (pos2[2] - pos1[2]) * n2
    best = 1e300
    ib = -1
    for i in range(nv):
        d = h0 + vert[i, 0] * l0 + vert[i, 1] * l1 + vert[i, 2] * l2
        if d < best:
            best = d
            ib = i
    if ib < 0 or best > margin:
        return 0
    # tangent directions (local frame): MuJoCo's frame completion of the local normal
    if abs(l1) < 0.5:
        t0, t1, t2 = 0.0, 1.0, 0.0
    else:
        t0, t1, t2 = 0.0, 0.0, 1.0
    p = l0 * t0 + l1 * t1 + l2 * t2
    t0, t1, t2 = t0 - p * l0, t1 - p * l1, t2 - p * l2
    tn = math.sqrt(t0 * t0 + t1 * t1 + t2 * t2)
    t0, t1, t2 = t0 / tn, t1 / tn, t2 / tn
    b0, b1, b2 = l1 * t2 - l2 * t1, l2 * t0 - l0 * t2, l0 * t1 - l1 * t0
    chosen0 = ib
    chosen1 = -1
    chosen2 = -1
    chosen3 = -1
    k = 0
    k += _mesh_vertex(pos1, n0, n1, n2, pos2, mat2, vert, ib, margin, dist, pos, frame, k)
    for q in range(4):
        s1 = 1.0 if (q == 0 or q == 3) else -1.0
        s2 = 1.0 if q < 2 else -1.0
        e0, e1, e2 = s1 * t0 + s2 * b0, s1 * t1 + s2 * b1, s1 * t2 + s2 * b2
        bs = -1e300
        jb = -1
        for i in range(nv):
            d = h0 + vert[i, 0] * l0 + vert[i, 1] * l1 + vert[i, 2] * l2
            if d > margin:
                continue
            s = vert[i, 0] * e0 + vert[i, 1] * e1 + vert[i, 2] * e2
            if s > bs:
                bs = s
                jb = i
        if jb < 0 or jb == chosen0 or jb == chosen1 or jb == chosen2 or jb == chosen3:
            continue
        if k == 1:
            chosen1 = jb
        elif k == 2:
            chosen2 = jb
        else:
            chosen3 = jb
        k += _mesh_vertex(pos1, n0, n1, n2, pos2, mat2, vert, jb, margin, dist, pos, frame, k)
        if k == 4:
            break
    return k


@njit(**_J)
def _mesh_vertex(pos1, n0, n1, n2, pos2, mat2, vert, i, margin, dist, pos, frame, k):
    x, y, z = vert[i, 0], vert[i, 1], vert[i, 2]
    px = pos2[0] + mat2[0] * x + mat2[1] * y + mat2[2] * z
    py = pos2[1] + mat2[3] * x + mat2[4] * y + mat2[5] * z
    pz = pos2[2] + mat2[6] * x + mat2[7] * y + mat2[8] * z
    return pr._plane_point(pos1, n0, n1, n2, px, py, pz, 0.0, margin, dist, pos, frame, k)


@njit(**_J)
def collide(
    # Model:
    mesh_vertadr, mesh_vertnum, mesh_vert, mesh_graphadr, mesh_graph,
    type1, dataid1, size1, pos1, mat1, type2, dataid2, size2, pos2, mat2,
    # options: detection threshold (margin + gap), convex tolerance/iterations, multi-contact
    margin, tolerance, iterations, multiccd,
    # out:
    dist, pos, frame,
    # scratch of the convex routine (Data ccd_work, ccd_iwork):
    work_f, work_i,
):
    """Contacts of one geom pair (type1 <= type2), world frame; see the module docstring."""
    if type1 == HFIELD or type2 == HFIELD:
        return NEED_HFIELD
    if type1 == SDF or type2 == SDF:
        return NEED_SDF
    if type1 == PLANE:
        if type2 == SPHERE:
            return pr.plane_sphere(pos1, mat1, size1, pos2, mat2, size2, margin, dist, pos, frame)
        if type2 == CAPSULE:
            return pr.plane_capsule(pos1, mat1, size1, pos2, mat2, size2, margin, dist, pos,
                                    frame)
        if type2 == ELLIPSOID:
            return pr.plane_ellipsoid(pos1, mat1, size1, pos2, mat2, size2, margin, dist, pos,
                                      frame)
        if type2 == CYLINDER:
            return pr.plane_cylinder(pos1, mat1, size1, pos2, mat2, size2, margin, dist, pos,
                                     frame)
        if type2 == BOX:
            return pr.plane_box(pos1, mat1, size1, pos2, mat2, size2, margin, dist, pos, frame)
        if type2 == MESH:
            a = mesh_vertadr[dataid2]
            return plane_mesh(pos1, mat1, pos2, mat2, mesh_vert[a:a + mesh_vertnum[dataid2]],
                              margin, dist, pos, frame)
        return 0
    if type1 == SPHERE:
        if type2 == SPHERE:
            return pr.sphere_sphere(pos1, mat1, size1, pos2, mat2, size2, margin, dist, pos,
                                    frame)
        if type2 == CAPSULE:
            return pr.sphere_capsule(pos1, mat1, size1, pos2, mat2, size2, margin, dist, pos,
                                     frame)
        if type2 == CYLINDER:
            return pr.sphere_cylinder(pos1, mat1, size1, pos2, mat2, size2, margin, dist, pos,
                                      frame)
        if type2 == BOX:
            return pr.sphere_box(pos1, mat1, size1, pos2, mat2, size2, margin, dist, pos, frame)
    elif type1 == CAPSULE:
        if type2 == CAPSULE:
            return pr.capsule_capsule(pos1, mat1, size1, pos2, mat2, size2, margin, dist, pos,
                                      frame)
    elif type1 == BOX and type2 == BOX:
        return box_box(size1, pos1, mat1, size2, pos2, mat2, margin, dist, pos, frame)
    return convex_collide(mesh_vertadr, mesh_vertnum, mesh_vert, mesh_graphadr, mesh_graph,
                          type1, dataid1, size1, pos1, mat1, type2, dataid2, size2, pos2, mat2,
                          margin, tolerance, iterations, multiccd, dist, pos, frame, work_f,
                          work_i)

