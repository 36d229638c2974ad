"""mj_geomDistance: the smallest signed distance between two geoms, and the segment realizing it.

MuJoCo API reference "mj_geomDistance" and XML reference "collision sensors" (sensor/distance,
sensor/normal, sensor/fromto): the pair is run through the narrow phase with the margin set to
``distmax``, independently of the collision filters (contype/conaffinity, exclusions, pairs), and
the deepest of the returned contacts is taken. Pairs the narrow phase sends to the native convex
collider -- and box-box, which MuJoCo's distance query also sends there instead of the
multi-contact box-box routine -- are measured by the collider in distance mode
(``nccd.ccd_distance``, MuJoCo's mjc_ccd with a distance cutoff: GJK's distance, EPA's depth;
no margin, no multi-contact). Result: the signed distance in length units (negative =
penetration), or ``distmax`` when nothing is found below it; ``fromto`` (6,) = the point on
geom1's surface then the point on geom2's surface, world frame, zeros when nothing is found.

Pairs with an sdf geom go through its narrow phase (mjc_SDF's gradient descent, which keeps
only points with distance <= 0 whatever the margin, so a separated pair gives ``distmax``; a
plane's routine on the sdf geom's mesh), as mujoco 4.0.0 does (measured). For the other pairs
(and those) the segment is rebuilt from the contact (midpoint ``pos``, unit normal from
the first to the second geom of the narrow phase's order, ``dist``): the ends are
``pos -+ dist/2 normal``. When the narrow phase took the geoms in the other order (it wants
type1 <= type2) the ends are swapped so that ``fromto`` still runs from ``geom1`` to ``geom2``.
"""
from __future__ import annotations

from .. import argcheck
from .._access import f1, f2, i1, i2, fs, is_
from .._jit import kernel
from .._layout import DF, MF
from . import pair_contacts
from . import narrowphase as npx
from . import nccd

NEED_SDF = npx.NEED_SDF


@kernel
def geom_distance(M, D, geom1, geom2, distmax, fromto):
    """Signed distance between geoms ``geom1`` and ``geom2`` (length units), searching up to
    ``distmax``; ``fromto`` (6,) receives the segment from geom1's surface to geom2's (world
    frame; zeros when the distance is not below distmax). Needs the geom poses (position stage).
    Uses the narrow phase's staging rows col_t* and the collider's scratch as workspace. Returns
    distmax when the pair has no collision routine, and for the sdf pairs the narrow phase does
    not build (NEED_SDF: the Python wrapper refuses those beforehand)."""
    for k in range(6):
        fromto[k] = 0.0
    gtype = i1(M, MF.geom_type)
    flip = gtype[geom1] > gtype[geom2]
    g1 = geom2 if flip else geom1
    g2 = geom1 if flip else geom2
    t1, t2 = gtype[g1], gtype[g2]
    if not npx.has_function(t1, t2):
        return distmax
    gdata = i1(M, MF.geom_dataid)
    size = f2(M, MF.geom_size)
    xpos = f2(D, DF.geom_xpos)
    xmat = f2(D, DF.geom_xmat)
    tdist = f1(D, DF.col_tdist)
    tpos = f2(D, DF.col_tpos)
    tframe = f2(D, DF.col_tframe)
    tol = fs(M, MF.opt_ccd_tolerance)
    it = is_(M, MF.opt_ccd_iterations)
    if t1 != npx.PLANE and t1 != npx.HFIELD and t2 != npx.SDF and not npx.is_analytic(t1, t2):
        # MuJoCo's distance query: the convex collider in distance mode (box-box too)
        found, dd, ax, ay, az, bx, by, bz = nccd.ccd_distance(
            i1(M, MF.mesh_vertadr), i1(M, MF.mesh_vertnum), f2(M, MF.mesh_vert),
            i1(M, MF.mesh_graphadr), i1(M, MF.mesh_graph), i2(M, MF.mesh_extrema),
            t1, gdata[g1], size[g1], xpos[g1], xmat[g1], t2, gdata[g2], size[g2], xpos[g2],
            xmat[g2], distmax, tol, it, f2(D, DF.ccd_work), i2(D, DF.ccd_iwork))
        if not (found and dd < distmax):
            return distmax
        if flip:
            ax, ay, az, bx, by, bz = bx, by, bz, ax, ay, az
        fromto[0], fromto[1], fromto[2] = ax, ay, az
        fromto[3], fromto[4], fromto[5] = bx, by, bz
        return dd
    n = pair_contacts(M, D, g1, g2, distmax, 0)     # (< 0: a status, no contacts)
    dist = distmax
    best = -1
    for k in range(n):
        if tdist[k] < dist:
            dist = tdist[k]
            best = k
    if best >= 0:
        # ends of the segment: pos -+ dist/2 normal in the narrow phase's order, swapped back
        h = -0.5 * dist if flip else 0.5 * dist
        nrm = tframe[best]
        p = tpos[best]
        for k in range(3):
            fromto[k] = p[k] - h * nrm[k]
            fromto[3 + k] = p[k] + h * nrm[k]
    return dist


@kernel
def _geom_distance_entry(M, D, geom1, geom2, distmax, fromto):
    return geom_distance(M, D, geom1, geom2, distmax, fromto)


def _first_party_sdf(m, g):
    """Whether sdf geom ``g``'s distance is one of engine.plugin.sdf's kernels."""
    from ..plugin import sdf as psdf
    p = int(m.geom_plugin[g])
    return p >= 0 and 0 <= int(m.plugin[p]) - psdf.SLOT0 < psdf.NKIND


def sdf_unsupported(m, g1, g2):
    """Why the distance of geoms g1, g2 is not computed here (an sdf geom without a first-party
    SDF plugin: mesh sdfs, user plugins; a mesh-sdf pair, mujoco's mjc_MeshSDF), or None.
    mj_geomDistance and the distance / normal / fromto sensors refuse those pairs."""
    for g in (g1, g2):
        if int(m.geom_type[g]) == npx.SDF and not _first_party_sdf(m, g):
            return (f"sdf geom {g} has no first-party SDF plugin (mesh sdfs and user plugins are "
                    "not supported yet)")
    if sorted((int(m.geom_type[g1]), int(m.geom_type[g2]))) == [npx.MESH, npx.SDF]:
        return "mesh-sdf pairs (mujoco's mjc_MeshSDF) are not supported yet"
    return None


def mj_geomDistance(m, d, geom1, geom2, distmax, fromto=None):
    """Smallest signed distance between two geoms (mujoco's mj_geomDistance): length units,
    negative for penetration, ``distmax`` when none is found below it; ``fromto`` (6,), when
    given, receives the segment from geom1's surface to geom2's (world frame; zeros when none).
    Needs the position stage (geom_xpos, geom_xmat)."""
    fn = "mj_geomDistance"
    argcheck.pair(m, d, fn)
    import numpy as np
    g1 = argcheck.index(geom1, m.ngeom, "geom1", fn)
    g2 = argcheck.index(geom2, m.ngeom, "geom2", fn)
    why = sdf_unsupported(m, g1, g2)
    if why:
        raise NotImplementedError(f"mj_geomDistance: {why}")
    fromto = argcheck.out_array(fromto, (6,), "fromto", fn, optional=True)
    buf = np.zeros(6)
    dist = _geom_distance_entry(m._A, d._A, g1, g2, float(distmax), buf)
    if fromto is not None:
        fromto[...] = buf
    return float(dist)
