"""Ray casting: mj_ray, mju_rayGeom, mj_rayMesh, mj_rayHfield (seed 001 "Ray collisions"; the
rangefinder and touch sensors use them), and sdf geoms (seed 002 "sdf") as mujoco's mj_raySdf.

A ray is ``pnt + x * vec`` for ``x >= 0``; every function returns the ``x`` of the first surface
the ray meets (in units of ``|vec|``, so with a unit ``vec`` it is a distance in metres), or -1
when it meets none. A ray starting inside a solid meets the surface on its way out. Geoms are
intersected in their local frame (``pos``, row-major ``mat``), with MuJoCo's geom sizes.
"""
from __future__ import annotations

import math

import numpy as np

from . import argcheck
from ._access import f1, f2, i1, i2
from ._jit import kernel
from ._layout import DF, MF
from .collision.sdf import sdf_params
from .plugin import sdf as psdf

# mjtGeom
from .enums import (mjGEOM_PLANE as _PLANE, mjGEOM_HFIELD as _HFIELD,  # noqa
                    mjGEOM_SPHERE as _SPHERE, mjGEOM_CAPSULE as _CAPSULE,
                    mjGEOM_ELLIPSOID as _ELLIPSOID, mjGEOM_CYLINDER as _CYLINDER,
                    mjGEOM_BOX as _BOX, mjGEOM_MESH as _MESH, mjGEOM_SDF as _SDF)
# mj_raySdf's sphere tracing: at most this many steps, a hit when the distance is below
# _SDF_HIT, given up when above _SDF_FAR (length units)
_SDF_STEPS = 40
_SDF_HIT = 1e-7
_SDF_FAR = 1e6
_NGROUP = 6


@kernel
def _nearest(x, best):
    """The smaller of two candidate hits, ignoring misses (< 0)."""
    if x < 0.0:
        return best
    if best < 0.0 or x < best:
        return x
    return best


@kernel
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


@kernel
def _ray_sphere(p0, p1, p2, v0, v1, v2, r):
    return _quadratic(v0 * v0 + v1 * v1 + v2 * v2, p0 * v0 + p1 * v1 + p2 * v2,
                      p0 * p0 + p1 * p1 + p2 * p2 - r * r)


@kernel
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


@kernel
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


@kernel
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


@kernel
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


@kernel
def _local(pos, mat, pnt, vec):
    """The ray in the geom's frame: (mat^T (pnt - pos), mat^T vec) as tuples."""
    d0, d1, d2 = pnt[0] - pos[0], pnt[1] - pos[1], pnt[2] - pos[2]
    lp = (mat[0] * d0 + mat[3] * d1 + mat[6] * d2, mat[1] * d0 + mat[4] * d1 + mat[7] * d2,
          mat[2] * d0 + mat[5] * d1 + mat[8] * d2)
    lv = (mat[0] * vec[0] + mat[3] * vec[1] + mat[6] * vec[2],
          mat[1] * vec[0] + mat[4] * vec[1] + mat[7] * vec[2],
          mat[2] * vec[0] + mat[5] * vec[1] + mat[8] * vec[2])
    return lp, lv


@kernel
def ray_geom(pos, mat, size, pnt, vec, geomtype):
    """mju_rayGeom: x of the first hit of ``pnt + x vec`` on a primitive geom, or -1.

    Planes are hit from their front (+z) side within their half-sizes (infinite when 0).
    """
    lp, lv = _local(pos, mat, pnt, vec)
    return ray_geom_local(lp, lv, size, geomtype)


@kernel
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


@kernel
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


@kernel
def _ray_basis(v):
    """Two vectors spanning the plane normal to ``v`` (not normalised): v x e, v x (v x e) with e
    the axis along v's smallest component, so that axis-aligned rays get exact axis vectors."""
    a0, a1, a2 = abs(v[0]), abs(v[1]), abs(v[2])
    if a0 <= a1 and a0 <= a2:
        b = (0.0, v[2], -v[1])
    elif a1 <= a2:
        b = (-v[2], 0.0, v[0])
    else:
        b = (v[1], -v[0], 0.0)
    c = (v[1] * b[2] - v[2] * b[1], v[2] * b[0] - v[0] * b[2], v[0] * b[1] - v[1] * b[0])
    return b, c


@kernel
def _tri_hit(p, v, b, c, a0, a1, a2, b0, b1, b2, c0, c1, c2, best, n):
    """``p + x v`` on triangle (a, b, c) seen from both sides; when the hit is nearer than ``best``
    (< 0: none yet) returns it with the triangle's unit normal turned to +z, else (best, n).

    The inside test is done in the plane normal to the ray (basis ``b``, ``c`` from _ray_basis):
    the projected triangle must contain the ray's point, boundary included (so rays through a
    shared edge or vertex, where projected coordinates are exactly 0, hit); a triangle seen
    edge-on is missed."""
    # projected vertices relative to the ray's point
    qa0 = b[0] * (a0 - p[0]) + b[1] * (a1 - p[1]) + b[2] * (a2 - p[2])
    qa1 = c[0] * (a0 - p[0]) + c[1] * (a1 - p[1]) + c[2] * (a2 - p[2])
    qb0 = b[0] * (b0 - p[0]) + b[1] * (b1 - p[1]) + b[2] * (b2 - p[2])
    qb1 = c[0] * (b0 - p[0]) + c[1] * (b1 - p[1]) + c[2] * (b2 - p[2])
    qc0 = b[0] * (c0 - p[0]) + b[1] * (c1 - p[1]) + b[2] * (c2 - p[2])
    qc1 = c[0] * (c0 - p[0]) + c[1] * (c1 - p[1]) + c[2] * (c2 - p[2])
    if ((qa0 > 0.0 and qb0 > 0.0 and qc0 > 0.0) or (qa0 < 0.0 and qb0 < 0.0 and qc0 < 0.0)
            or (qa1 > 0.0 and qb1 > 0.0 and qc1 > 0.0)
            or (qa1 < 0.0 and qb1 < 0.0 and qc1 < 0.0)):
        return best, n
    # barycentric (s, t) of the origin: s (qa - qc) + t (qb - qc) = -qc
    m00, m01 = qa0 - qc0, qb0 - qc0
    m10, m11 = qa1 - qc1, qb1 - qc1
    det = m00 * m11 - m01 * m10
    if abs(det) < 1e-15:
        return best, n
    s = (m11 * -qc0 - m01 * -qc1) / det
    t = (-m10 * -qc0 + m00 * -qc1) / det
    if s < 0.0 or t < 0.0 or s + t > 1.0:
        return best, n
    # the plane of the triangle
    e10, e11, e12 = a0 - c0, a1 - c1, a2 - c2
    e20, e21, e22 = b0 - c0, b1 - c1, b2 - c2
    m0, m1, m2 = e11 * e22 - e12 * e21, e12 * e20 - e10 * e22, e10 * e21 - e11 * e20
    den = v[0] * m0 + v[1] * m1 + v[2] * m2
    if abs(den) < 1e-15:
        return best, n
    x = -((p[0] - c0) * m0 + (p[1] - c1) * m1 + (p[2] - c2) * m2) / den
    if x < 0.0 or (best >= 0.0 and x >= best):
        return best, n
    nn = math.sqrt(m0 * m0 + m1 * m1 + m2 * m2)
    if m2 < 0.0:
        nn = -nn
    return x, (m0 / nn, m1 / nn, m2 / nn)


@kernel
def ray_hfield(hfield_size, hfield_nrow, hfield_ncol, hfield_adr, hfield_data, hid, lp, lv):
    """mj_rayHfield in the hfield geom's frame: (x, normal) of the nearest hit, x = -1 when none.

    The solid is the union of the base box [-size0, size0] x [-size1, size1] x [-size3, 0], the
    surface triangles (two per grid cell, split along the (r, c)-(r+1, c+1) diagonal; see
    engine/collision/hfield.py for the grid) and the four side walls between z = 0 and the border
    profile of the surface. Triangles are seen from both sides; a ray from inside meets the
    surface on its way out. Normals (unit, hfield frame): the box face's outward normal, the wall's
    outward normal, the surface triangle's normal with positive z (measured against MuJoCo 4).
    """
    s0, s1, s2, s3 = hfield_size[hid, 0], hfield_size[hid, 1], hfield_size[hid, 2], hfield_size[hid, 3]
    nr, nc, adr = hfield_nrow[hid], hfield_ncol[hid], hfield_adr[hid]
    dx = 2.0 * s0 / (nc - 1)
    dy = 2.0 * s1 / (nr - 1)
    # the ray's parameter interval inside the field's bounding box (slabs), grown a little so
    # that rays along the box faces keep their cells
    lo = (-s0, -s1, -s3)
    hi = (s0, s1, s2)
    t0, t1 = 0.0, math.inf
    for k in range(3):
        pad = 1e-9 * (hi[k] - lo[k]) + 1e-12
        if abs(lv[k]) < 1e-15:
            if lp[k] < lo[k] - pad or lp[k] > hi[k] + pad:
                return -1.0, (0.0, 0.0, 0.0)
            continue
        a = (lo[k] - pad - lp[k]) / lv[k]
        b = (hi[k] + pad - lp[k]) / lv[k]
        if a > b:
            a, b = b, a
        t0 = max(t0, a)
        t1 = min(t1, b)
    if t0 > t1:
        return -1.0, (0.0, 0.0, 0.0)
    n = (0.0, 0.0, 0.0)
    # base box, centre z = -size3/2: from outside its entry face, from inside its exit face
    best = -1.0
    for k in range(3):
        if abs(lv[k]) < 1e-15:
            continue
        for sg in (-1.0, 1.0):
            if k == 2:
                x = ((-0.5 * s3 + sg * 0.5 * s3) - lp[2]) / lv[2]
            else:
                x = (sg * hi[k] - lp[k]) / lv[k]
            if x < 0.0 or (best >= 0.0 and x >= best):
                continue
            ok = True
            for j in range(2):
                if j != k and abs(lp[j] + x * lv[j]) > hi[j]:
                    ok = False
            if k != 2 and ok:
                z = lp[2] + x * lv[2]
                ok = -s3 <= z <= 0.0
            if ok:
                best = x
                n = (sg if k == 0 else 0.0, sg if k == 1 else 0.0, sg if k == 2 else 0.0)
    # side walls: planes x = +-size0 (profile along a column) and y = +-size1 (along a row)
    for k in range(2):
        if abs(lv[k]) < 1e-15:
            continue
        for sg in (-1.0, 1.0):
            x = (sg * hi[k] - lp[k]) / lv[k]
            if x < 0.0 or (best >= 0.0 and x >= best):
                continue
            z = lp[2] + x * lv[2]
            if z < 0.0:
                continue
            j = 1 - k
            w = lp[j] + x * lv[j]
            if abs(w) > hi[j]:
                continue
            step = dy if k == 0 else dx
            cnt = nr if k == 0 else nc
            f = (w + hi[j]) / step
            i = min(max(int(math.floor(f)), 0), cnt - 2)
            f -= i
            if k == 0:
                c = 0 if sg < 0.0 else nc - 1
                h0 = hfield_data[adr + i * nc + c]
                h1 = hfield_data[adr + (i + 1) * nc + c]
            else:
                r = 0 if sg < 0.0 else nr - 1
                h0 = hfield_data[adr + r * nc + i]
                h1 = hfield_data[adr + r * nc + i + 1]
            if z <= s2 * (h0 + f * (h1 - h0)):
                best = x
                n = (sg if k == 0 else 0.0, sg if k == 1 else 0.0, 0.0)
    # surface triangles over the cells the segment [t0, t1] spans in x and y (one cell of slack)
    xa, xb = lp[0] + t0 * lv[0], lp[0] + t1 * lv[0]
    ya, yb = lp[1] + t0 * lv[1], lp[1] + t1 * lv[1]
    cmin = min(max(int(math.floor((min(xa, xb) + s0) / dx)) - 1, 0), nc - 2)
    cmax = min(max(int(math.floor((max(xa, xb) + s0) / dx)) + 1, 0), nc - 2)
    rmin = min(max(int(math.floor((min(ya, yb) + s1) / dy)) - 1, 0), nr - 2)
    rmax = min(max(int(math.floor((max(ya, yb) + s1) / dy)) + 1, 0), nr - 2)
    bas0, bas1 = _ray_basis(lv)
    for r in range(rmin, rmax + 1):
        ya = -s1 + r * dy
        yb = -s1 + (r + 1) * dy
        for c in range(cmin, cmax + 1):
            xa = -s0 + c * dx
            xb = -s0 + (c + 1) * dx
            z00 = s2 * hfield_data[adr + r * nc + c]
            z01 = s2 * hfield_data[adr + r * nc + c + 1]
            z10 = s2 * hfield_data[adr + (r + 1) * nc + c]
            z11 = s2 * hfield_data[adr + (r + 1) * nc + c + 1]
            best, n = _tri_hit(lp, lv, bas0, bas1, xa, ya, z00, xb, ya, z01, xb, yb, z11, best, n)
            best, n = _tri_hit(lp, lv, bas0, bas1, xa, ya, z00, xb, yb, z11, xa, yb, z10, best, n)
    return best, n


@kernel
def ray(M, D, pnt, vec, geomgroup, use_group, flg_static, bodyexclude):
    """mj_ray over every visible geom (alpha > 0), except those of ``bodyexclude``, static ones
    (on bodies welded to the world) unless ``flg_static``, and, when ``use_group``, those whose
    group (0-5) is off in ``geomgroup``. Returns (x, geomid); (-1, -1) when nothing is hit."""
    return ray_cutoff(M, D, pnt, vec, geomgroup, use_group, flg_static, bodyexclude, -1.0)


@kernel
def ray_cutoff(M, D, pnt, vec, geomgroup, use_group, flg_static, bodyexclude, cutoff):
    """`ray`, also ignoring the geoms whose bounding sphere (geom_rbound) lies entirely farther
    than ``cutoff`` from ``pnt`` (cutoff < 0: none ignored; planes never: mj_multiRay's
    rule)."""
    gtype = i1(M, MF.geom_type)
    gbody = i1(M, MF.geom_bodyid)
    ggroup = i1(M, MF.geom_group)
    gdata = i1(M, MF.geom_dataid)
    rgba = f2(M, MF.geom_rgba)
    size = f2(M, MF.geom_size)
    rbound = f1(M, MF.geom_rbound)
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
        if cutoff >= 0.0 and rbound[g] > 0.0:    # rbound 0: a plane, unbounded
            dx = xpos[g, 0] - pnt[0]
            dy = xpos[g, 1] - pnt[1]
            dz = xpos[g, 2] - pnt[2]
            if math.sqrt(dx * dx + dy * dy + dz * dz) - rbound[g] > cutoff:
                continue
        lp, lv = _local(xpos[g], xmat[g], pnt, vec)
        if gtype[g] == _HFIELD:
            x, _ = ray_hfield(f2(M, MF.hfield_size), i1(M, MF.hfield_nrow), i1(M, MF.hfield_ncol),
                              i1(M, MF.hfield_adr), f1(M, MF.hfield_data), gdata[g], lp, lv)
        elif gtype[g] == _MESH:
            x = ray_mesh(i1(M, MF.mesh_vertadr), i1(M, MF.mesh_faceadr), i1(M, MF.mesh_facenum),
                         f2(M, MF.mesh_vert), i2(M, MF.mesh_face), gdata[g], lp, lv)
        elif gtype[g] == _SDF:
            x = ray_sdf(M, D, g, lp, lv)
        else:
            x = ray_geom_local(lp, lv, size[g], gtype[g])
        if x >= 0.0 and (best < 0.0 or x < best):
            best, bestid = x, g
    return best, bestid


@kernel
def _sdf_attributes(M, D, g):
    """(plugin kind, attributes row) of sdf geom ``g`` (the row is ccd_work's first, scratch
    outside the collision stage); raises for an sdf geom whose distance is not built."""
    a = f2(D, DF.ccd_work)[0]
    plugin = i1(M, MF.geom_plugin)[g]
    kind = -1
    if plugin >= 0:
        kind = sdf_params(M, plugin, a)
    if kind < 0:
        raise NotImplementedError("rays on sdf geoms without a first-party SDF plugin (mesh "
                                  "sdfs, user plugins) are not supported yet")
    return kind, a


@kernel
def _unit(v):
    """(v / |v|, |v|) as mju_normalize3 computes it ((1, 0, 0) when |v| < 1e-15)."""
    n = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    if n < 1e-15:
        return (1.0, 0.0, 0.0), n
    inv = 1.0 / n
    return (v[0] * inv, v[1] * inv, v[2] * inv), n


@kernel
def _sdf_march(kind, a, lp, u):
    """mj_raySdf's sphere tracing from lp along unit u: the marched length at the surface, or
    -1 (module constants _SDF_*)."""
    total = 0.0
    for _ in range(_SDF_STEPS):
        dist = abs(psdf.sdf_distance(kind, a, lp[0] + u[0] * total, lp[1] + u[1] * total,
                                     lp[2] + u[2] * total))
        total += dist
        if dist < _SDF_HIT:
            return total
        if dist > _SDF_FAR:
            break
    return -1.0


@kernel
def ray_sdf(M, D, g, lp, lv):
    """mj_raySdf in sdf geom ``g``'s frame: sphere tracing of the plugin's distance (evaluated
    at geom-frame points, as mujoco does) along the unit direction of ``lv``, after a test
    against the box of half-sizes geom_size. Returns x in units of |lv| as every ray (the
    marched length / |lv|; mujoco 4.0.0 measured), or -1."""
    if _ray_box(lp, lv, f2(M, MF.geom_size)[g]) < 0.0:
        return -1.0
    kind, a = _sdf_attributes(M, D, g)
    u, norm = _unit(lv)
    total = _sdf_march(kind, a, lp, u)
    if total < 0.0:
        return -1.0
    return total / norm


@kernel
def _sdf_normal(M, D, g, lp, lv):
    """The plugin's gradient (geom frame, not normalised) where `ray_sdf`'s march ends (the
    march redone, so the point is mujoco's to the bit: the gear's and bolt's forward-difference
    gradients would magnify a last-bit difference 1e8 times)."""
    kind, a = _sdf_attributes(M, D, g)
    u, _ = _unit(lv)
    total = _sdf_march(kind, a, lp, u)
    grad = f2(D, DF.ccd_work)[2]
    psdf.sdf_gradient(kind, a, lp[0] + u[0] * total, lp[1] + u[1] * total,
                      lp[2] + u[2] * total, grad)
    return grad[0], grad[1], grad[2]


@kernel
def _mesh_face_normal(M, meshid, lp, lv, x):
    """Unit normal (mesh frame) of the triangle of mesh ``meshid`` that the local ray
    ``lp + x lv`` meets at ``x`` (the face whose hit is nearest to ``x``): the face's winding
    normal (faces wind counter-clockwise seen from outside, so it points out of the mesh)."""
    vadr = i1(M, MF.mesh_vertadr)[meshid]
    fadr = i1(M, MF.mesh_faceadr)[meshid]
    vert = f2(M, MF.mesh_vert)
    face = i2(M, MF.mesh_face)
    bestf, err = -1, math.inf
    for f in range(fadr, fadr + i1(M, MF.mesh_facenum)[meshid]):
        xf = _ray_triangle(lp, lv, vert[vadr + face[f, 0]], vert[vadr + face[f, 1]],
                           vert[vadr + face[f, 2]])
        if xf >= 0.0 and abs(xf - x) < err:
            bestf, err = f, abs(xf - x)
    if bestf < 0:
        return 0.0, 0.0, 0.0
    a, b, c = vert[vadr + face[bestf, 0]], vert[vadr + face[bestf, 1]], vert[vadr + face[bestf, 2]]
    e1 = (b[0] - a[0], b[1] - a[1], b[2] - a[2])
    e2 = (c[0] - a[0], c[1] - a[1], c[2] - a[2])
    return (e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
            e1[0] * e2[1] - e1[1] * e2[0])


@kernel
def ray_normal(M, D, g, pnt, vec, x):
    """Outward unit normal (world frame) of geom ``g``'s surface where the ray ``pnt + x vec``
    meets it (a ray leaving a solid from inside gets the outward normal too, as MuJoCo's
    mj_ray); zeros when ``g`` < 0 (a miss)."""
    if g < 0:
        return 0.0, 0.0, 0.0
    mat = f2(D, DF.geom_xmat)[g]
    lp, lv = _local(f2(D, DF.geom_xpos)[g], mat, pnt, vec)
    t = i1(M, MF.geom_type)[g]
    size = f2(M, MF.geom_size)[g]
    p = (lp[0] + x * lv[0], lp[1] + x * lv[1], lp[2] + x * lv[2])
    if t == _MESH:
        n = _mesh_face_normal(M, i1(M, MF.geom_dataid)[g], lp, lv, x)
    elif t == _SDF:
        n = _sdf_normal(M, D, g, lp, lv)
    elif t == _HFIELD:
        _, n = ray_hfield(f2(M, MF.hfield_size), i1(M, MF.hfield_nrow), i1(M, MF.hfield_ncol),
                          i1(M, MF.hfield_adr), f1(M, MF.hfield_data), i1(M, MF.geom_dataid)[g],
                          lp, lv)
    else:
        n = primitive_normal_local(t, size, p)
    nn = math.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2])
    if nn > 0.0:
        n = (n[0] / nn, n[1] / nn, n[2] / nn)
    # geom frame to world: mat n (row-major mat)
    return (mat[0] * n[0] + mat[1] * n[1] + mat[2] * n[2],
            mat[3] * n[0] + mat[4] * n[1] + mat[5] * n[2],
            mat[6] * n[0] + mat[7] * n[1] + mat[8] * n[2])


@kernel
def primitive_normal_local(t, size, p):
    """Outward normal (geom frame, not normalised) of a primitive geom of type ``t`` and
    ``size`` at the surface point ``p`` (geom frame); a plane's is +z."""
    n = (0.0, 0.0, 1.0)
    if t == _SPHERE:
        n = p
    elif t == _CAPSULE:
        n = (p[0], p[1], p[2] - min(max(p[2], -size[1]), size[1]))
    elif t == _ELLIPSOID:
        n = (p[0] / size[0] ** 2, p[1] / size[1] ** 2, p[2] / size[2] ** 2)
    elif t == _CYLINDER:
        # the cap or the side, whichever surface the point lies on (nearest to it)
        if abs(abs(p[2]) - size[1]) < abs(math.hypot(p[0], p[1]) - size[0]):
            n = (0.0, 0.0, math.copysign(1.0, p[2]))
        else:
            n = (p[0], p[1], 0.0)
    elif t == _BOX:
        k, best = 0, math.inf
        for j in range(3):
            if abs(abs(p[j]) - size[j]) < best:
                k, best = j, abs(abs(p[j]) - size[j])
        n = (math.copysign(1.0, p[0]) if k == 0 else 0.0,
             math.copysign(1.0, p[1]) if k == 1 else 0.0,
             math.copysign(1.0, p[2]) if k == 2 else 0.0)
    return n


def _normal_out(m, d, g, pnt, vec, x, normal):
    """normal[:] = the outward unit normal (world) at the hit of geom g, zeros on a miss."""
    if normal is not None:
        normal[:] = ray_normal(m._A, d._A, int(g) if x >= 0.0 else -1, pnt, vec, float(x))


def _typed_ray_args(m, d, geomid, gtype, what, pnt, vec, normal, fn):
    """The arguments of mj_rayHfield / mj_rayMesh checked: (geom id, pnt, vec, normal or
    None). The geom must be of type ``gtype`` (mujoco stops the process with "geom with <what>
    type expected": the ray routines read the geom's data by its type)."""
    argcheck.pair(m, d, fn)
    g = argcheck.index(geomid, m.ngeom, "geomid", fn)
    if int(m.geom_type[g]) != gtype:
        raise ValueError(f"{fn}: geomid {g} is not a {what} geom (geom type "
                         f"{int(m.geom_type[g])}): geom with {what} type expected")
    return (g, argcheck.in_array(pnt, (3,), "pnt", fn), argcheck.in_array(vec, (3,), "vec", fn),
            argcheck.out_array(normal, (3,), "normal", fn, optional=True))


def mj_rayHfield(m, d, geomid, pnt, vec, normal=None):
    """Intersect ``pnt + x vec`` (x >= 0) with the height-field geom ``geomid``: x of the nearest
    hit or -1; ``normal`` (optional, 3) gets the surface's unit normal in the world frame (zeros
    on a miss)."""
    g, pnt, vec, normal = _typed_ray_args(m, d, geomid, _HFIELD, "hfield", pnt, vec, normal,
                                          "mj_rayHfield")
    lp, lv = _local(d.geom_xpos[g], d.geom_xmat[g], pnt, vec)
    x, _ = ray_hfield(m.hfield_size, m.hfield_nrow, m.hfield_ncol, m.hfield_adr, m.hfield_data,
                      int(m.geom_dataid[g]), lp, lv)
    _normal_out(m, d, g, pnt, vec, x, normal)
    return x


def mj_rayMesh(m, d, geomid, pnt, vec, normal=None):
    """Intersect ``pnt + x vec`` (x >= 0) with the mesh geom ``geomid``: x of the nearest hit on
    its triangles or -1; ``normal`` (optional, 3) gets the hit face's outward unit normal in the
    world frame (zeros on a miss)."""
    g, pnt, vec, normal = _typed_ray_args(m, d, geomid, _MESH, "mesh", pnt, vec, normal,
                                          "mj_rayMesh")
    lp, lv = _local(d.geom_xpos[g], d.geom_xmat[g], pnt, vec)
    x = ray_mesh(m.mesh_vertadr, m.mesh_faceadr, m.mesh_facenum, m.mesh_vert, m.mesh_face,
                 int(m.geom_dataid[g]), lp, lv)
    _normal_out(m, d, g, pnt, vec, x, normal)
    return x


def mj_ray(m, d, pnt, vec, geomgroup, flg_static, bodyexclude, geomid=None, normal=None):
    """Intersect the ray ``pnt + x vec`` (x >= 0) with the visible geoms; returns x of the
    nearest surface or -1, and writes the geom's id into ``geomid[0]`` (-1 when none) and, when
    given, the hit surface's outward unit normal (world frame) into ``normal`` (zeros on a
    miss)."""
    fn = "mj_ray"
    argcheck.pair(m, d, fn)
    pnt = argcheck.in_array(pnt, (3,), "pnt", fn)
    vec = argcheck.in_array(vec, (3,), "vec", fn)
    use_group = geomgroup is not None
    group = (argcheck.in_array(geomgroup, (_NGROUP,), "geomgroup", fn, dtype=np.uint8)
             if use_group else np.zeros(_NGROUP, np.uint8))
    geomid = argcheck.out_array(geomid, (1,), "geomid", fn, dtype=np.dtype(np.int32),
                                optional=True)
    normal = argcheck.out_array(normal, (3,), "normal", fn, optional=True)
    # any integer, as in mujoco: it is only compared with body ids (-1 or another non-id
    # excludes nothing); kept inside the kernel's integer type
    body = argcheck.integer(bodyexclude, "bodyexclude", fn)
    body = body if -1 <= body < m.nbody else -1
    x, g = ray(m._A, d._A, pnt, vec, group, use_group, bool(flg_static), body)
    if geomid is not None:
        geomid[0] = g
    _normal_out(m, d, g, pnt, vec, x, normal)
    return x


@kernel
def multi_ray(M, D, pnt, vecs, geomgroup, use_group, flg_static, bodyexclude, cutoff, dist,
              geomid):
    """`ray_cutoff` for each row of ``vecs`` (nray x 3) from the same ``pnt``."""
    for r in range(vecs.shape[0]):
        dist[r], geomid[r] = ray_cutoff(M, D, pnt, vecs[r], geomgroup, use_group, flg_static,
                                        bodyexclude, cutoff)


def mj_multiRay(m, d, pnt, vec, geomgroup, flg_static, bodyexclude, geomid, dist, normal, nray,
                cutoff):
    """Intersect ``nray`` rays from ``pnt`` (directions: the rows of ``vec``, 3*nray values) with
    the visible geoms, as mj_ray does for each, ignoring the geoms whose bounding sphere lies
    farther than ``cutoff`` from ``pnt``. Writes the nearest geom id (-1: none) into
    ``geomid``, the distance in units of each direction's length (-1: none) into ``dist`` and,
    when given, the hit surface's unit normal (world frame) into ``normal`` (3*nray)."""
    fn = "mj_multiRay"
    argcheck.pair(m, d, fn)
    n = argcheck.integer(nray, "nray", fn)
    if n < 0:
        raise ValueError(f"{fn}: nray must be >= 0, got {n}")
    pnt = argcheck.in_array(pnt, (3,), "pnt", fn)
    vecs = argcheck.in_array(vec, (3 * n,), "vec", fn).reshape(n, 3)
    use_group = geomgroup is not None
    group = (argcheck.in_array(geomgroup, (_NGROUP,), "geomgroup", fn, dtype=np.uint8)
             if use_group else np.zeros(_NGROUP, np.uint8))
    geomid = argcheck.out_array(geomid, (n,), "geomid", fn, dtype=np.dtype(np.int32))
    dist = argcheck.out_array(dist, (n,), "dist", fn)
    normal = argcheck.out_array(normal, (3 * n,), "normal", fn, optional=True)
    body = argcheck.integer(bodyexclude, "bodyexclude", fn)
    body = body if -1 <= body < m.nbody else -1
    ids = np.empty(n, np.int64)
    multi_ray(m._A, d._A, pnt, vecs, group, use_group, bool(flg_static), body,
              max(float(cutoff), 0.0), dist, ids)
    geomid[:] = ids
    if normal is not None:
        nrm = normal.reshape(n, 3)
        for r in range(n):
            _normal_out(m, d, int(ids[r]), pnt, vecs[r], float(dist[r]), nrm[r])


def mju_rayGeom(pos, mat, size, pnt, vec, geomtype):
    """x of the first hit of ``pnt + x vec`` on a primitive geom, or -1."""
    fn = "mju_rayGeom"
    t = argcheck.integer(geomtype, "geomtype", fn)
    if t not in (_PLANE, _SPHERE, _CAPSULE, _ELLIPSOID, _CYLINDER, _BOX):
        # mujoco: mjERROR "unexpected geom type"
        raise ValueError(f"{fn}: geomtype {t} is not a primitive geom type (plane, sphere, "
                         "capsule, ellipsoid, cylinder, box)")
    a = [argcheck.in_array(v, (n,), name, fn) for v, n, name in (
        (pos, 3, "pos"), (mat, 9, "mat"), (size, 3, "size"), (pnt, 3, "pnt"), (vec, 3, "vec"))]
    return ray_geom(*a, t)
