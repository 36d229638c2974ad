"""Broad phase: which geom pairs reach the narrow phase (seed 001, "Contacts"; computation
chapter, "Collision detection": selection of candidate pairs and filtering).

Bounding volumes: each geom's world axis-aligned box (its local ``geom_aabb`` rotated by
``geom_xmat`` and inflated by the geom's margin plus gap), swept and pruned along one axis
(the axis where the box centers spread most); a candidate pair then also passes the
bounding-sphere test ``|xpos1 - xpos2| <= rbound1 + rbound2 + margin + gap`` (rbound = 0, i.e.
planes, skips it). Planes are infinite and never enter the sweep: each plane is tested against
every other geom.

The sweep order is kept between calls (``col_order``) and re-sorted by insertion sort: from one
time step to the next it is nearly sorted already, so sorting is close to linear in ngeom and
the sweep costs O(ngeom + overlapping pairs), not O(ngeom^2).

Filtering, as MuJoCo's for automatically generated ("dynamic") pairs:
  contype/conaffinity: (contype1 & conaffinity2) or (contype2 & conaffinity1) must be nonzero;
  same weld body (bodies rigidly attached, incl. both welded to the world): excluded;
  both static (each weld body has no dofs: the world, a mocap body, or welded to one): excluded,
    as mujoco 4.0.0 does (a world plane never touches a mocap body's geoms, nor two mocap
    bodies each other; an explicit <pair> still does);
  parent-child (unless mjDSBL_FILTERPARENT): excluded when one weld body is the weld body of the
    other's parent, except when that parent weld body is the world;
  <exclude>: body pair signature (min(b1,b2) << 16) + max(b1,b2) in exclude_signature;
  a geom pair that is also an explicit <pair> is only generated once, as the explicit pair.
"""
from __future__ import annotations

from .._jit import kernel
from ..enums import mjGEOM_PLANE as PLANE  # noqa


@kernel
def world_aabb(
    # Model:
    geom_aabb, geom_margin, geom_gap, override, o_margin,
    # Data in:
    geom_xpos, geom_xmat,
    # Data out:
    aabb,
):
    """aabb[g] = (min xyz, max xyz) of geom g's world bounding box, inflated by its margin
    (o_margin under the override flag) plus gap (length units)."""
    for g in range(geom_aabb.shape[0]):
        c = geom_aabb[g]
        R = geom_xmat[g]
        infl = (o_margin if override else geom_margin[g]) + geom_gap[g]
        for i in range(3):
            ctr = geom_xpos[g, i] + R[3 * i] * c[0] + R[3 * i + 1] * c[1] + R[3 * i + 2] * c[2]
            half = (abs(R[3 * i]) * c[3] + abs(R[3 * i + 1]) * c[4] + abs(R[3 * i + 2]) * c[5]
                    + infl)
            aabb[g, i] = ctr - half
            aabb[g, 3 + i] = ctr + half


@kernel
def sweep_axis(geom_type, aabb):
    """The axis (0, 1, 2) along which the non-plane bounding boxes' centers vary most."""
    best = 0
    bv = -1.0
    for i in range(3):
        n = 0
        s = 0.0
        s2 = 0.0
        for g in range(aabb.shape[0]):
            if geom_type[g] == PLANE:
                continue
            n += 1
            c = 0.5 * (aabb[g, i] + aabb[g, 3 + i])
            s += c
            s2 += c * c
        v = s2 - s * s / max(n, 1)
        if v > bv:
            bv = v
            best = i
    return best


@kernel
def sort_sweep(aabb, axis, order, n):
    """Insertion sort of order[0:n] (geom ids) by the lower bound of their box along axis."""
    for i in range(1, n):
        g = order[i]
        key = aabb[g, axis]
        j = i - 1
        while j >= 0 and aabb[order[j], axis] > key:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = g


@kernel
def can_collide(
    # Model:
    geom_contype, geom_conaffinity, geom_bodyid, body_weldid, body_parentid, body_dofnum,
    exclude_signature, pair_signature, pair_geom1, pair_geom2, filterparent,
    # the pair:
    g1, g2,
):
    """MuJoCo's filter for an automatically generated geom pair (see the module docstring)."""
    if not ((geom_contype[g1] & geom_conaffinity[g2]) or (geom_contype[g2] & geom_conaffinity[g1])):
        return False
    b1 = geom_bodyid[g1]
    b2 = geom_bodyid[g2]
    w1 = body_weldid[b1]
    w2 = body_weldid[b2]
    if w1 == w2:
        return False
    # neither side can move under the dynamics (welded to the world or to a mocap body)
    if body_dofnum[w1] == 0 and body_dofnum[w2] == 0:
        return False
    if filterparent and w1 != 0 and w2 != 0:
        if w1 == body_weldid[body_parentid[w2]] or w2 == body_weldid[body_parentid[w1]]:
            return False
    sig = (min(b1, b2) << 16) + max(b1, b2)
    for i in range(exclude_signature.shape[0]):
        if exclude_signature[i] == sig:
            return False
    for i in range(pair_signature.shape[0]):
        if pair_signature[i] == sig:
            p1 = pair_geom1[i]
            p2 = pair_geom2[i]
            if (p1 == g1 and p2 == g2) or (p1 == g2 and p2 == g1):
                return False
    return True


@kernel
def spheres_apart(geom_rbound, geom_xpos, g1, g2, margin):
    """Whether the bounding spheres (inflated by margin) are disjoint; rbound 0 never is."""
    r1 = geom_rbound[g1]
    r2 = geom_rbound[g2]
    if r1 <= 0.0 or r2 <= 0.0:
        return False
    dx = geom_xpos[g1, 0] - geom_xpos[g2, 0]
    dy = geom_xpos[g1, 1] - geom_xpos[g2, 1]
    dz = geom_xpos[g1, 2] - geom_xpos[g2, 2]
    lim = r1 + r2 + margin
    return dx * dx + dy * dy + dz * dz > lim * lim


@kernel
def boxes_overlap(aabb, g1, g2):
    """Whether two world bounding boxes overlap (closed intervals on all three axes)."""
    for i in range(3):
        if aabb[g1, i] > aabb[g2, 3 + i] or aabb[g2, i] > aabb[g1, 3 + i]:
            return False
    return True


@kernel
def has_nan(aabb, g):
    """Whether geom g's world bounding box has a NaN bound (its pose is NaN)."""
    for i in range(6):
        if aabb[g, i] != aabb[g, i]:
            return True
    return False
