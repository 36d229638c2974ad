"""Procedural meshes: ``<mesh builtin="..." params="...">`` (MuJoCo 4's mjs_makeMesh).

The builtin types and their parameters are those of the MJCF reference (``mesh/builtin``,
``mesh/params``; enum mjtMeshBuiltin in engine.enums). Each generator returns the vertices
in single precision, in the unit frame before ``scale`` (a sphere of radius 1, a plate spanning
[-1, 1]), and the faces or None (a point cloud: the compiler makes its convex hull), exactly as
mujoco's compiler fills the mesh's user vertices before processing them like an inline
``vertex``/``face`` mesh. Single precision matters: mujoco stores the generated vertices as
``float`` and the icosphere's midpoints are computed in float arithmetic, so matching
``mesh_vert`` bit for bit needs float32 steps here too.

Parameters (``params``), by type:

- ``sphere``: subdivisions of the icosahedron, 0..4;
- ``hemisphere``: resolution 0..10 (quad-projected rows from the pole to the equator, capped);
- ``cone``: number of edges, top radius (0: a pyramid with an apex);
- ``supersphere``: resolution >= 3, exponents e (around z) and n (along z), >= 0;
- ``supertorus``: resolution >= 3, tube radius in (0, 1], exponents s (tube) and t (ring) > 0;
- ``wedge``: resolution (azimuth, elevation) > 0, field of view (degrees: (0, 180], (0, 90]),
  foveal gamma in [0, 1]: points on the unit sphere at the bin centres, no faces;
- ``plate``: resolution (x, y) > 0: a grid of cell centres at z = -1, its inertia a shell.

The flexcomp-like types of the enum (grid, box, cylinder, ellipsoid, square, disc) raise
NotImplementedError.
"""
from __future__ import annotations

import math

import numpy as np

from ..enums import mjtMeshBuiltin

__all__ = ["BUILTIN_NAMES", "make_builtin_mesh"]

# MJCF keyword -> enum value (the order of the XML keyword table is not the enum's: look up
# by name, never by position)
BUILTIN_NAMES = {n[len("mjMESH_BUILTIN_"):].lower(): int(v)
                 for n, v in mjtMeshBuiltin.__members__.items()}

_F = np.float32


class BuiltinMeshError(ValueError):
    """A builtin mesh's parameters are invalid (message as mujoco's compiler words it)."""


def _aux_c(w, m):
    """Superquadric cosine: sign(cos w) |cos w|^m."""
    c = math.cos(w)
    return math.copysign(abs(c) ** m, c)


def _aux_s(w, m):
    """Superquadric sine: sign(sin w) |sin w|^m."""
    s = math.sin(w)
    return math.copysign(abs(s) ** m, s)


def _sphere(subdiv):
    """Icosahedron on the unit sphere, each face split in 4 ``subdiv`` times (midpoints pushed
    to the sphere); float arithmetic as mujoco's (phi and the midpoints are floats)."""
    phi = _F((1.0 + math.sqrt(5.0)) / 2.0)
    p = float(phi)
    vert = [[-1.0, p, 0.0], [1.0, p, 0.0], [-1.0, -p, 0.0], [1.0, -p, 0.0],
            [0.0, -1.0, p], [0.0, 1.0, p], [0.0, -1.0, -p], [0.0, 1.0, -p],
            [p, 0.0, -1.0], [p, 0.0, 1.0], [-p, 0.0, -1.0], [-p, 0.0, 1.0]]
    norm = math.sqrt(1.0 + p * p)   # double: phi promoted, as in the C++
    vert = [[_F(float(_F(c)) / norm) for c in v] for v in vert]
    face = [0, 11, 5, 0, 5, 1, 0, 1, 7, 0, 7, 10, 0, 10, 11,
            1, 5, 9, 5, 11, 4, 11, 10, 2, 10, 7, 6, 7, 1, 8,
            3, 9, 4, 3, 4, 2, 3, 2, 6, 3, 6, 8, 3, 8, 9,
            4, 9, 5, 2, 4, 11, 6, 2, 10, 8, 6, 7, 9, 8, 1]
    two = _F(2.0)
    for _ in range(subdiv):
        cache = {}

        def mid(a, b):
            key = (a, b) if a < b else (b, a)
            k = cache.get(key)
            if k is None:
                va, vb = vert[a], vert[b]
                m = [(va[i] + vb[i]) / two for i in range(3)]
                n = _F(np.sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]))
                vert.append([m[0] / n, m[1] / n, m[2] / n])
                k = cache[key] = len(vert) - 1
            return k

        new = []
        for j in range(0, len(face), 3):
            v1, v2, v3 = face[j:j + 3]
            m12, m23, m31 = mid(v1, v2), mid(v2, v3), mid(v3, v1)
            new += [v1, m12, m31, v2, m23, m12, v3, m31, m23, m12, m23, m31]
        face = new
    return np.array(vert, _F), np.array(face, np.int32).reshape(-1, 3)


def _hemisphere(res):
    """Upper unit hemisphere: rows of 4(row+1) points between the pole and the equator (a
    square's sides, interpolated, then projected to the sphere) and a cap at the centre."""
    pole = (0.0, 0.0, 1.0)
    eq = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (-1.0, 0.0, 0.0), (0.0, -1.0, 0.0))
    vert = [pole]
    for row in range(res + 1):
        fac = (row + 1) / (res + 1)
        for side in range(4):
            a, b = eq[side], eq[(side + 1) % 4]
            st = [pole[i] + fac * (a[i] - pole[i]) for i in range(3)]
            en = [pole[i] + fac * (b[i] - pole[i]) for i in range(3)]
            d = [(en[i] - st[i]) / (row + 1) for i in range(3)]
            for i in range(row + 1):
                q = [st[j] + i * d[j] for j in range(3)]
                n = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2])
                vert.append([q[0] / n, q[1] / n, q[2] / n])
    vert.append([0.0, 0.0, 0.0])   # the cap's centre
    nvert = len(vert)
    face = [0, 1, 2, 0, 2, 3, 0, 3, 4, 0, 4, 1]
    for row in range(res):
        s0, c0 = 2 * row * (row + 1) + 1, 4 * (row + 1)
        s1, c1 = s0 + c0, 4 * (row + 2)
        for side in range(4):
            for i in range(row + 2):
                vc, vn = i + (row + 1) * side, i + (row + 2) * side
                face += [s0 + vc % c0, s1 + vn % c1, s1 + (vn + 1) % c1]
                if i < row + 1:
                    face += [s0 + vc % c0, s1 + (vn + 1) % c1, s0 + (vc + 1) % c0]
    start, count = 2 * res * (res + 1) + 1, 4 * (res + 1)
    for i in range(count):
        face += [start + i, nvert - 1, start + (i + 1) % count]
    return np.array(vert, _F), np.array(face, np.int32).reshape(-1, 3)


def _cone(nedge, radius):
    """A regular ``nedge``-gon at z = -1 and one of radius ``radius`` at z = 1 (or the apex
    (0, 0, 1)); a point cloud: its hull is the (truncated) cone."""
    vert = [[math.cos(2 * i * math.pi / nedge), math.sin(2 * i * math.pi / nedge), -1.0]
            for i in range(nedge)]
    if radius > 0:
        # the C++ loop runs i over nedge..2 nedge-1 in the angle too (same angles, other
        # rounding of 2 i pi / nedge): keep it
        vert += [[radius * math.cos(2 * i * math.pi / nedge),
                  radius * math.sin(2 * i * math.pi / nedge), 1.0]
                 for i in range(nedge, 2 * nedge)]
    else:
        vert.append([0.0, 0.0, 1.0])
    return np.array(vert, _F), None


def _supersphere(res, e, n):
    """Superellipsoid: poles at z = -1 and 1 and res-1 rings of res points,
    x = c(v,n) c(u,e), y = c(v,n) s(u,e), z = s(v,n)."""
    vert = [[0.0, 0.0, -1.0]]
    for i in range(1, res):
        v = -math.pi / 2 + i * math.pi / res
        for j in range(res):
            u = -math.pi + j * 2 * math.pi / res
            vert.append([_aux_c(v, n) * _aux_c(u, e), _aux_c(v, n) * _aux_s(u, e),
                         _aux_s(v, n)])
    vert.append([0.0, 0.0, 1.0])
    nvert = len(vert)
    face = []
    for j in range(res):
        face += [0, 1 + (j + 1) % res, 1 + j]
    for i in range(res - 2):
        for j in range(res):
            v1, v2 = 1 + i * res + j, 1 + i * res + (j + 1) % res
            v4, v3 = 1 + (i + 1) * res + j, 1 + (i + 1) * res + (j + 1) % res
            face += [v1, v2, v4, v2, v3, v4]
    last = 1 + (res - 2) * res
    for j in range(res):
        face += [last + j, last + (j + 1) % res, nvert - 1]
    return np.array(vert, _F), np.array(face, np.int32).reshape(-1, 3)


def _supertorus(res, radius, s, t):
    """Supertoroid of ring radius 1 and tube radius ``radius``: res x res points,
    x = (1 + r c(v,s)) c(u,t), y = (1 + r c(v,s)) s(u,t), z = r s(v,s)."""
    vert = np.zeros((res * res, 3), _F)
    for i in range(res):
        for j in range(res):
            u, v = 2 * math.pi * i / res, 2 * math.pi * j / res
            ring = 1 + radius * _aux_c(v, s)
            vert[i * res + j] = (ring * _aux_c(u, t), ring * _aux_s(u, t),
                                 radius * _aux_s(v, s))
    face = []
    for i in range(res):
        for j in range(res):
            i1, j1 = (i + 1) % res, (j + 1) % res
            v1, v2, v3, v4 = i * res + j, i1 * res + j, i1 * res + j1, i * res + j1
            face += [v1, v2, v4, v2, v3, v4]
    return vert, np.array(face, np.int32).reshape(-1, 3)


def _linspace(lo, hi, n):
    """Evenly spaced numbers by repeated addition (mujoco's LinSpace: not numpy's rounding)."""
    inc = (hi - lo) / (n - 1) if n > 1 else 0.0
    out = []
    for _ in range(n):
        out.append(lo)
        lo += inc
    return out


def _wedge(res, fov, gamma):
    """Points on the unit sphere at the centres of an azimuth x elevation grid of bins over the
    field of view (degrees), the bins' edges bent towards the centre by the foveal gamma
    (x -> g x^5 + (1-g) x); azimuth a, elevation e -> (cos e sin a, sin e, -cos e cos a)."""
    def edges(k, f):
        xs = _linspace(-1.0, 1.0, k + 1)
        if gamma:
            g = max(0.0, min(1.0, gamma))
            xs = [g * x ** 5 + (1 - g) * x for x in xs]
        return [x * (f * math.pi / 180) for x in xs]
    xe, ye = edges(res[0], fov[0]), edges(res[1], fov[1])
    vert = np.zeros((res[0] * res[1], 3), _F)
    for i in range(res[0]):
        for j in range(res[1]):
            a, e = 0.5 * (xe[i + 1] + xe[i]), 0.5 * (ye[j + 1] + ye[j])
            vert[i * res[1] + j] = (math.cos(e) * math.sin(a), math.sin(e),
                                    -math.cos(e) * math.cos(a))
    return vert, None


def _plate(res):
    """Cell centres of a res[0] x res[1] grid over [-1, 1]^2 at z = -1, two triangles per
    quad of neighbouring centres."""
    nx, ny = res
    vert = np.zeros((nx * ny, 3), _F)
    face = np.zeros((max(nx - 1, 0) * max(ny - 1, 0), 6), np.int32)
    dx, dy = 2.0 / nx, 2.0 / ny
    for i in range(nx):
        for j in range(ny):
            vert[i * ny + j] = (-1 + (i + 0.5) * dx, -1 + (j + 0.5) * dy, -1.0)
            if i > 0 and j > 0:
                face[(i - 1) * (ny - 1) + j - 1] = (
                    (i - 1) * ny + j - 1, i * ny + j - 1, (i - 1) * ny + j,
                    i * ny + j, (i - 1) * ny + j, i * ny + j - 1)
    return vert, face.reshape(-1, 3)


def make_builtin_mesh(builtin: str, params):
    """(vertices float32 (n, 3), faces int32 (m, 3) or None, inertia override or None) of a
    ``<mesh builtin>``; BuiltinMeshError with mujoco's message for bad parameters."""
    p = [float(x) for x in (params if params is not None else ())]
    np_ = len(p)
    if builtin not in BUILTIN_NAMES or builtin == "none":
        raise BuiltinMeshError(f"unknown builtin mesh type '{builtin}'")

    def need(k, msg):
        if np_ != k:
            raise BuiltinMeshError(msg)

    if builtin == "sphere":
        need(1, "Sphere mesh type requires 1 parameter")
        sub = int(p[0])
        if sub < 0:
            raise BuiltinMeshError("Sphere subdivision cannot be negative")
        if sub > 4:
            raise BuiltinMeshError("Sphere subdivision cannot be greater than 4")
        return (*_sphere(sub), None)
    if builtin == "hemisphere":
        need(1, "Hemisphere mesh type requires 1 parameter")
        res = int(p[0])
        if res < 0:
            raise BuiltinMeshError("Hemisphere resolution cannot be negative")
        if res > 10:
            raise BuiltinMeshError("Hemisphere resolution cannot be greater than 10")
        return (*_hemisphere(res), None)
    if builtin == "cone":
        need(2, "Cone mesh type requires 2 parameters")
        return (*_cone(int(p[0]), p[1]), None)
    if builtin == "supersphere":
        need(3, "Supersphere mesh type requires 3 parameters")
        res = int(p[0])
        if res < 3:
            raise BuiltinMeshError("Supersphere resolution must be greater than 2")
        if p[1] < 0:
            raise BuiltinMeshError("Supersphere 'e' cannot be negative")
        if p[2] < 0:
            raise BuiltinMeshError("Supersphere 'n' cannot be negative")
        return (*_supersphere(res, p[1], p[2]), None)
    if builtin == "supertorus":
        need(4, "Supertorus mesh type requires 4 parameters")
        res = int(p[0])
        if res < 3:
            raise BuiltinMeshError("Supertorus resolution must be greater than 3")
        if p[1] <= 0 or p[1] > 1:
            raise BuiltinMeshError("Supertorus radius must be in (0, 1]")
        if p[2] <= 0:
            raise BuiltinMeshError("Supertorus 's' must be greater than 0")
        if p[3] <= 0:
            raise BuiltinMeshError("Supertorus 't' must be greater than 0")
        return (*_supertorus(res, p[1], p[2], p[3]), None)
    if builtin == "wedge":
        need(5, "Wedge builtin mesh types require 5 parameters")
        res, fov, gamma = (int(p[0]), int(p[1])), (p[2], p[3]), p[4]
        if fov[0] <= 0 or fov[0] > 180:
            raise BuiltinMeshError("fov[0] must be a float between (0, 180] degrees")
        if fov[1] <= 0 or fov[1] > 90:
            raise BuiltinMeshError("`fov[1]` must be a float between (0, 90] degrees")
        if res[0] <= 0 or res[1] <= 0:
            raise BuiltinMeshError("Horizontal and vertical resolutions must be positive")
        if gamma < 0 or gamma > 1:
            raise BuiltinMeshError("`gamma` must be a nonnegative float between [0, 1]")
        return (*_wedge(res, fov, gamma), None)
    if builtin == "plate":
        need(2, "Plate builtin mesh type requires 2 parameters")
        res = (int(p[0]), int(p[1]))
        if res[0] <= 0 or res[1] <= 0:
            raise BuiltinMeshError("Horizontal and vertical resolutions must be positive")
        return (*_plate(res), "shell")
    raise NotImplementedError(f"<mesh builtin=\"{builtin}\"> (a flexcomp-style volume mesh) "
                              "is not supported yet")
