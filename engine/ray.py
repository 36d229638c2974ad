"""Ray casting: mj_ray, mju_rayGeom, mj_rayMesh (seed 001 "Ray collisions"; the rangefinder and
touch sensors use them).

A ray is ``pnt + x * vec`` for ``x >= 0``; every function returns the ``x`` of the first surface
the ray meets (in units of ``|vec|``, so with a unit ``vec`` it is a distance in metres), or -1
when it meets none. A ray starting inside a solid meets the surface on its way out. Geoms are
intersected in their local frame (``pos``, row-major ``mat``), with MuJoCo's geom sizes.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ._access import f2, i1, i2
from ._access import KERNEL as _J
from ._layout import DF, MF

# mjtGeom
_PLANE, _HFIELD, _SPHERE, _CAPSULE, _ELLIPSOID, _CYLINDER, _BOX, _MESH = 0, 1, 2, 3, 4, 5, 6, 7
_NGROUP = 6


@njit(**_J)
def _nearest(x, best):
    """The smaller of two candidate hits, ignoring misses (< 0)."""
    if x < 0.0:
        return best
    if best < 0.0 or x < best:
        return x
    return best


@njit(**_J)
def _quadratic(a, b, c):
    """Smallest x >= 0 with a x^2 + 2 b x + c = 0, or -1."""
    if a < 1e-15:
        return -1.0
    det = b * b - a * c
    if det < 0.0:
        return -1.0
    sq = math.sqrt(det)
    x1 = (-b - sq) / a
    if x1 >= 0.0:
        return x1
    x2 = (-b + sq) / a
    return x2 if x2 >= 0.0 else -1.0


@njit(**_J)
def _ray_sphere(p0, p1, p2, v0, v1, v2, r):
    return _quadratic(v0 * v0 + v1 * v1 + v2 * v2, p0 * v0 + p1 * v1 + p2 * v2,
                      p0 * p0 + p1 * p1 + p2 * p2 - r * r)


@njit(**_J)
def _ray_capsule(p0, p1, p2, v0, v1, v2, r, h):
    # the side (infinite cylinder clipped to |z| <= h), then the end caps: each root of an end
    # sphere counts only on its outer half (beyond z = +-h), where it is the capsule's surface
    best = -1.0
    a = v0 * v0 + v1 * v1
    if a > 1e-15:
        b = p0 * v0 + p1 * v1
        det = b * b - a * (p0 * p0 + p1 * p1 - r * r)
        if det >= 0.0:
            sq = math.sqrt(det)
            for x in ((-b - sq) / a, (-b + sq) / a):
                if x >= 0.0 and abs(p2 + x * v2) <= h:
                    best = _nearest(x, best)
    a = v0 * v0 + v1 * v1 + v2 * v2
    if a > 1e-15:
        for s in (-1.0, 1.0):
            q2 = p2 - s * h
            b = p0 * v0 + p1 * v1 + q2 * v2
            det = b * b - a * (p0 * p0 + p1 * p1 + q2 * q2 - r * r)
            if det < 0.0:
                continue
            sq = math.sqrt(det)
            for x in ((-b - sq) / a, (-b + sq) / a):
                if x >= 0.0 and s * (q2 + x * v2) >= 0.0:
                    best = _nearest(x, best)
    return best


@njit(**_J)
def _ray_cylinder(p0, p1, p2, v0, v1, v2, r, h):
    best = -1.0
    a = v0 * v0 + v1 * v1
    c = p0 * p0 + p1 * p1 - r * r
    if a > 1e-15:
        det = (p0 * v0 + p1 * v1) ** 2 - a * c
        if det >= 0.0:
            sq = math.sqrt(det)
            for x in ((-(p0 * v0 + p1 * v1) - sq) / a, (-(p0 * v0 + p1 * v1) + sq) / a):
                if x >= 0.0 and abs(p2 + x * v2) <= h:
                    best = _nearest(x, best)
    if abs(v2) > 1e-15:
        for s in (-1.0, 1.0):
            x = (s * h - p2) / v2
            if x >= 0.0:
                qx, qy = p0 + x * v0, p1 + x * v1
                if qx * qx + qy * qy <= r * r:
                    best = _nearest(x, best)
    return best


@njit(**_J)
def _ray_box(p, v, size):
    best = -1.0
    for k in range(3):
        if abs(v[k]) < 1e-15:
            continue
        for s in (-1.0, 1.0):
            x = (s * size[k] - p[k]) / v[k]
            if x < 0.0:
                continue
            inside = True
            for j in range(3):
                if j != k and abs(p[j] + x * v[j]) > size[j]:
                    inside = False
            if inside:
                best = _nearest(x, best)
    return best


@njit(**_J)
def _ray_triangle(p, v, a, b, c):
    """x >= 0 where the ray meets triangle abc (both sides), or -1 (Moller-Trumbore)."""
    e1 = (b[0] - a[0], b[1] - a[1], b[2] - a[2])
    e2 = (c[0] - a[0], c[1] - a[1], c[2] - a[2])
    q = (v[1] * e2[2] - v[2] * e2[1], v[2] * e2[0] - v[0] * e2[2], v[0] * e2[1] - v[1] * e2[0])
    det = e1[0] * q[0] + e1[1] * q[1] + e1[2] * q[2]
    if abs(det) < 1e-15:
        return -1.0
    inv = 1.0 / det
    t = (p[0] - a[0], p[1] - a[1], p[2] - a[2])
    u = (t[0] * q[0] + t[1] * q[1] + t[2] * q[2]) * inv
    if u < 0.0 or u > 1.0:
        return -1.0
    r = (t[1] * e1[2] - t[2] * e1[1], t[2] * e1[0] - t[0] * e1[2], t[0] * e1[1] - t[1] * e1[0])
    w = (v[0] * r[0] + v[1] * r[1] + v[2] * r[2]) * inv
    if w < 0.0 or u + w > 1.0:
        return -1.0
    x = (e2[0] * r[0] + e2[1] * r[1] + e2[2] * r[2]) * inv
    return x if x >= 0.0 else -1.0


@njit(**_J)
def _local(pos, mat, pnt, vec):
    """The ray in the geom's frame: (mat^T (pnt - pos), mat^T vec) as tuples."""
    d0, d1, d2 = pnt[0] - pos[0], pnt[1] - pos[1], pnt[2] - pos[2]
    lp = (mat[0] * d0 + mat[3] * d1 + mat[6] * d2, mat[1] * d0 + mat[4] * d1 + mat[7] * d2,
          mat[2] * d0 + mat[5] * d1 + mat[8] * d2)
    lv = (mat[0] * vec[0] + mat[3] * vec[1] + mat[6] * vec[2],
          mat[1] * vec[0] + mat[4] * vec[1] + mat[7] * vec[2],
          mat[2] * vec[0] + mat[5] * vec[1] + mat[8] * vec[2])
    return lp, lv


@njit(**_J)
def ray_geom(pos, mat, size, pnt, vec, geomtype):
    """mju_rayGeom: x of the first hit of ``pnt + x vec`` on a primitive geom, or -1.

    Planes are hit from their front (+z) side within their half-sizes (infinite when 0).
    """
    lp, lv = _local(pos, mat, pnt, vec)
    return ray_geom_local(lp, lv, size, geomtype)


@njit(**_J)
def ray_geom_local(lp, lv, size, geomtype):
    """`ray_geom` for a ray already in the geom's frame."""
    if geomtype == _PLANE:
        # only the front side (the +z half-space) is seen
        if lv[2] > -1e-15:
            return -1.0
        x = -lp[2] / lv[2]
        if x < 0.0:
            return -1.0
        for k in range(2):
            if size[k] > 0.0 and abs(lp[k] + x * lv[k]) > size[k]:
                return -1.0
        return x
    if geomtype == _SPHERE:
        return _ray_sphere(lp[0], lp[1], lp[2], lv[0], lv[1], lv[2], size[0])
    if geomtype == _CAPSULE:
        return _ray_capsule(lp[0], lp[1], lp[2], lv[0], lv[1], lv[2], size[0], size[1])
    if geomtype == _ELLIPSOID:
        # a unit sphere after scaling each axis by 1/size (x is unchanged by the scaling)
        return _ray_sphere(lp[0] / size[0], lp[1] / size[1], lp[2] / size[2],
                           lv[0] / size[0], lv[1] / size[1], lv[2] / size[2], 1.0)
    if geomtype == _CYLINDER:
        return _ray_cylinder(lp[0], lp[1], lp[2], lv[0], lv[1], lv[2], size[0], size[1])
    if geomtype == _BOX:
        return _ray_box(lp, lv, size)
    return -1.0


@njit(**_J)
def ray_mesh(mesh_vertadr, mesh_faceadr, mesh_facenum, mesh_vert, mesh_face, meshid, lp, lv):
    """mj_rayMesh in the mesh geom's frame: nearest hit over the mesh's triangles, or -1."""
    vadr = mesh_vertadr[meshid]
    fadr = mesh_faceadr[meshid]
    best = -1.0
    for f in range(fadr, fadr + mesh_facenum[meshid]):
        a = mesh_vert[vadr + mesh_face[f, 0]]
        b = mesh_vert[vadr + mesh_face[f, 1]]
        c = mesh_vert[vadr + mesh_face[f, 2]]
        best = _nearest(_ray_triangle(lp, lv, a, b, c), best)
    return best


@njit(**_J)
def ray(M, D, pnt, vec, geomgroup, use_group, flg_static, bodyexclude):
    """mj_ray over every visible geom (alpha > 0), except those of ``bodyexclude``, static ones
    (on bodies welded to the world) unless ``flg_static``, and, when ``use_group``, those whose
    group (0-5) is off in ``geomgroup``. Returns (x, geomid); (-1, -1) when nothing is hit."""
    gtype = i1(M, MF.geom_type)
    gbody = i1(M, MF.geom_bodyid)
    ggroup = i1(M, MF.geom_group)
    gdata = i1(M, MF.geom_dataid)
    rgba = f2(M, MF.geom_rgba)
    size = f2(M, MF.geom_size)
    weld = i1(M, MF.body_weldid)
    xpos = f2(D, DF.geom_xpos)
    xmat = f2(D, DF.geom_xmat)
    best, bestid = -1.0, -1
    for g in range(gtype.shape[0]):
        b = gbody[g]
        if b == bodyexclude or rgba[g, 3] == 0.0:
            continue
        if not flg_static and weld[b] == 0:
            continue
        if use_group and (ggroup[g] < 0 or ggroup[g] >= _NGROUP or not geomgroup[ggroup[g]]):
            continue
        lp, lv = _local(xpos[g], xmat[g], pnt, vec)
        if gtype[g] == _MESH:
            x = ray_mesh(i1(M, MF.mesh_vertadr), i1(M, MF.mesh_faceadr), i1(M, MF.mesh_facenum),
                         f2(M, MF.mesh_vert), i2(M, MF.mesh_face), gdata[g], lp, lv)
        else:
            x = ray_geom_local(lp, lv, size[g], gtype[g])
        if x >= 0.0 and (best < 0.0 or x < best):
            best, bestid = x, g
    return best, bestid


def check_ray_supported(m):
    """NotImplementedError for geoms rays cannot meet yet (height fields)."""
    if m.ngeom and np.any(m.geom_type == _HFIELD):
        raise NotImplementedError("rays (rangefinder, mj_ray) against <hfield> geoms are not "
                                  "supported yet")


def mj_ray(m, d, pnt, vec, geomgroup, flg_static, bodyexclude, geomid=None, normal=None):
    """Intersect the ray ``pnt + x vec`` (x >= 0) with the visible geoms; returns x of the
    nearest surface or -1, and writes the geom's id into ``geomid[0]`` (-1 when none)."""
    if normal is not None:
        raise NotImplementedError("mj_ray: the surface normal output is not supported yet")
    check_ray_supported(m)
    pnt = np.ascontiguousarray(pnt, float).reshape(3)
    vec = np.ascontiguousarray(vec, float).reshape(3)
    use_group = geomgroup is not None
    group = (np.ascontiguousarray(geomgroup, np.uint8).reshape(_NGROUP) if use_group
             else np.zeros(_NGROUP, np.uint8))
    x, g = ray(m._A, d._A, pnt, vec, group, use_group, bool(flg_static), int(bodyexclude))
    if geomid is not None:
        geomid[0] = g
    return x


def mju_rayGeom(pos, mat, size, pnt, vec, geomtype):
    """x of the first hit of ``pnt + x vec`` on a primitive geom, or -1."""
    f = lambda a, n: np.ascontiguousarray(a, float).reshape(n)  # noqa: E731
    return ray_geom(f(pos, 3), f(mat, 9), f(size, 3), f(pnt, 3), f(vec, 3), int(geomtype))
