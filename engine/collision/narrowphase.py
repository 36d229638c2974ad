"""Narrow phase: the collision function for each pair of geom types, like MuJoCo's collision
function table (seed 001, "Contacts": mjCOLLISIONFUNC, upper triangle indexed by geom type).

`collide` takes two geoms with type1 <= type2 and dispatches to the analytic functions of
engine/collision/primitive.py where MuJoCo has them (plane against sphere, capsule, ellipsoid,
cylinder, box, mesh (through the hull polygons, mjModel mesh_poly*); sphere against sphere,
capsule, cylinder, box; capsule against capsule), to engine/collision/box.py for capsule-box
(``capsule_box``, MuJoCo's analytic routine with up to 2 contacts) and box-box (``box_box``), and
to MuJoCo's native convex collider ``nccd_collide`` (engine/collision/nccd.py and multiccd.py:
GJK, EPA and the multi-contact of flat features) for every other pair of sphere, capsule, ellipsoid, cylinder,
box and mesh -- as MuJoCo 4's table (mjc_Convex) does.

Return value: the number of contacts written (>= 0), or a negative code when the pair needs a
routine this build lacks: NEED_SDF (sdf geoms).
Height-field pairs need the hfield's data and the other geom's rbound: the caller (mj_collision,
engine/collision/__init__.py) sends them to engine/collision/hfield.py; ``collide`` answers
NEED_HFIELD for them.
"""
from __future__ import annotations


from . import primitive as pr

from .._jit import kernel

from ..enums import (mjGEOM_PLANE as PLANE, mjGEOM_HFIELD as HFIELD,  # noqa
                     mjGEOM_SPHERE as SPHERE, mjGEOM_CAPSULE as CAPSULE,
                     mjGEOM_ELLIPSOID as ELLIPSOID, mjGEOM_CYLINDER as CYLINDER, mjGEOM_BOX as BOX,
                     mjGEOM_MESH as MESH, mjGEOM_SDF as SDF)
NEED_CONVEX, NEED_HFIELD, NEED_SDF = -1, -2, -3
from ..enums import mjMINVAL  # noqa: E402

from .box import box_box, capsule_box
from .multiccd import nccd_collide


@kernel
def has_function(type1, type2):
    """Whether MuJoCo's table has a collision function for this (type1 <= type2) pair: none for
    plane-plane, plane-hfield and hfield-hfield."""
    if type1 == PLANE:
        return type2 != PLANE and type2 != HFIELD
    if type1 == HFIELD:
        return type2 != HFIELD
    return True


@kernel
def is_analytic(type1, type2):
    """Whether MuJoCo 4 collides this (type1 <= type2) pair of convex types with an analytic
    routine (the pairs it does not send to the convex collider, mjc_Convex): sphere-sphere,
    sphere-capsule, sphere-cylinder, sphere-box, capsule-capsule, capsule-box (multi-contact
    analytic) and box-box (its own multi-contact routine, which the distance query replaces by
    the convex collider)."""
    if type1 == SPHERE:
        return type2 == SPHERE or type2 == CAPSULE or type2 == CYLINDER or type2 == BOX
    if type1 == CAPSULE:
        return type2 == CAPSULE or type2 == BOX
    return False


@kernel
def collide(
    # Model:
    mesh_vertadr, mesh_vertnum, mesh_vert, mesh_graphadr, mesh_graph, mesh_extrema,
    mesh_polyadr, mesh_polynum, mesh_polynormal, mesh_polyvertadr, mesh_polyvertnum,
    mesh_polyvert, mesh_polymapadr, mesh_polymapnum, mesh_polymap,
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
            # MuJoCo 4's rule through the hull polygons (primitive.plane_mesh_poly)
            a = mesh_vertadr[dataid2]
            nv = mesh_vertnum[dataid2]
            g = mesh_graphadr[dataid2]
            nh = mesh_graph[g] if g >= 0 else 0
            gh = g + 2 + nh if g >= 0 else 0
            return pr.plane_mesh_poly(pos1, mat1, pos2, mat2, mesh_vert[a:a + nv],
                                      mesh_graph[gh:gh + nh], mesh_polyadr[dataid2],
                                      mesh_polynum[dataid2], mesh_polynormal, mesh_polyvertadr,
                                      mesh_polyvertnum, mesh_polyvert,
                                      mesh_polymapadr[a:a + nv], mesh_polymapnum[a:a + nv],
                                      mesh_polymap, margin, dist, pos, frame, work_i[0])
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
        if type2 == BOX:
            return capsule_box(pos1, mat1, size1, pos2, mat2, size2, margin, dist, pos, frame)
    elif type1 == BOX and type2 == BOX:
        return box_box(size1, pos1, mat1, size2, pos2, mat2, margin, dist, pos, frame)
    # every other pair: MuJoCo's native collider step for step (mjc_Convex)
    return nccd_collide(mesh_vertadr, mesh_vertnum, mesh_vert, mesh_graphadr, mesh_graph,
                        mesh_extrema, mesh_polyadr, mesh_polynormal, mesh_polyvertadr,
                        mesh_polyvertnum, mesh_polyvert, mesh_polymapadr, mesh_polymapnum,
                        mesh_polymap,
                        type1, dataid1, size1, pos1, mat1, type2, dataid2, size2, pos2,
                        mat2, margin, tolerance, iterations, multiccd, dist, pos, frame,
                        work_f, work_i)

