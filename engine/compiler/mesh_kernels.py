"""Compiled loops of the compiler's mesh processing (engine/compiler/mesh.py, hull.py).

A mesh's mass properties and its hull polygons' normals are sums over its triangles or polygon
edges. As numpy expressions they are a dozen passes over (m, 3) temporaries; on the small meshes
of most robots (1-5 thousand triangles) numpy's per-call cost dominated them (measured on the
Allegro hand's 14 meshes: 24 ms for the mass properties, 1.9 ms here). These kernels do one pass
each and sum in triangle order, as MuJoCo's compiler loops do (numpy sums pairwise: the results
differ from it by rounding, ~1e-15 relative).

Kernels are compiled in the warm-up (its model has a mesh) and never allocate: results go to
arrays the caller passes.
"""
from __future__ import annotations

import math

from .._jit import kernel

# mass_properties modes: how a triangle's pyramid (or its area) weighs it
MODE_LEGACY, MODE_SIGNED, MODE_SHELL = 0, 1, 2


@kernel
def _pyramid(ax, ay, az, bx, by, bz, cx, cy, cz):
    """Signed volume of the pyramid with apex at the origin over triangle (a, b, c):
    a . (b x c) / 6."""
    return (ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx)) / 6.0


@kernel
def mass_properties(v, f, mode, out):
    """Measure, centre of mass and second moment of triangles ``f`` (m, 3) int64 of vertices
    ``v`` (n, 3) float64, asset frame (seed 000 asset/mesh ``inertia``; the pyramid
    decomposition of engine/compiler/mesh.py `_mass_properties`).

    ``mode``: MODE_LEGACY (absolute pyramid volumes), MODE_SIGNED (signed: ``exact``,
    ``convex``) or MODE_SHELL (area-weighted triangles). Solid: pass 1 puts the apex at the
    area-weighted centroid of the faces (the mean centroid if the area is zero) and gives the
    centre of mass; pass 2 puts it at that centre and gives the volume and the second moment.

    ``out`` (15,): [total face area, pass-1 volume (shell: the area), measure (volume [L^3],
    shell: area [L^2]), com (3) [L], C (3x3 row-major) = sum_k w_k (sum_i x_i x_i^T + s s^T)
    with x_i the corners relative to the com, s their sum and w_k = volume/20 (area/12)]."""
    m = f.shape[0]
    area_sum = 0.0
    fx = fy = fz = 0.0        # area-weighted centroid sums
    mx = my = mz = 0.0        # centroid sums
    for k in range(m):
        a, b, c = f[k, 0], f[k, 1], f[k, 2]
        ux, uy, uz = v[b, 0] - v[a, 0], v[b, 1] - v[a, 1], v[b, 2] - v[a, 2]
        wx, wy, wz = v[c, 0] - v[a, 0], v[c, 1] - v[a, 1], v[c, 2] - v[a, 2]
        nx, ny, nz = uy * wz - uz * wy, uz * wx - ux * wz, ux * wy - uy * wx
        ar = 0.5 * math.sqrt(nx * nx + ny * ny + nz * nz)
        gx = ((v[a, 0] + v[b, 0]) + v[c, 0]) / 3
        gy = ((v[a, 1] + v[b, 1]) + v[c, 1]) / 3
        gz = ((v[a, 2] + v[b, 2]) + v[c, 2]) / 3
        area_sum += ar
        fx += gx * ar
        fy += gy * ar
        fz += gz * ar
        mx += gx
        my += gy
        mz += gz
    out[0] = area_sum
    if area_sum > 0:
        fx, fy, fz = fx / area_sum, fy / area_sum, fz / area_sum
    else:
        fx, fy, fz = mx / m, my / m, mz / m
    if mode == MODE_SHELL:
        px, py, pz = fx, fy, fz
        out[1] = area_sum
    else:
        tot = sx = sy = sz = 0.0
        for k in range(m):
            a, b, c = f[k, 0], f[k, 1], f[k, 2]
            vol = _pyramid(v[a, 0] - fx, v[a, 1] - fy, v[a, 2] - fz,
                           v[b, 0] - fx, v[b, 1] - fy, v[b, 2] - fz,
                           v[c, 0] - fx, v[c, 1] - fy, v[c, 2] - fz)
            if mode == MODE_LEGACY:
                vol = abs(vol)
            tot += vol
            sx += (((v[a, 0] + v[b, 0]) + v[c, 0]) + fx) * vol
            sy += (((v[a, 1] + v[b, 1]) + v[c, 1]) + fy) * vol
            sz += (((v[a, 2] + v[b, 2]) + v[c, 2]) + fz) * vol
        out[1] = tot
        px, py, pz = sx / (4.0 * tot), sy / (4.0 * tot), sz / (4.0 * tot)
    out[3], out[4], out[5] = px, py, pz
    for i in range(6, 15):
        out[i] = 0.0
    measure = 0.0
    for k in range(m):
        a, b, c = f[k, 0], f[k, 1], f[k, 2]
        ax, ay, az = v[a, 0] - px, v[a, 1] - py, v[a, 2] - pz
        bx, by, bz = v[b, 0] - px, v[b, 1] - py, v[b, 2] - pz
        cx, cy, cz = v[c, 0] - px, v[c, 1] - py, v[c, 2] - pz
        if mode == MODE_SHELL:
            ux, uy, uz = bx - ax, by - ay, bz - az
            wx, wy, wz = cx - ax, cy - ay, cz - az
            nx, ny, nz = uy * wz - uz * wy, uz * wx - ux * wz, ux * wy - uy * wx
            w = 0.5 * math.sqrt(nx * nx + ny * ny + nz * nz) / 12.0
        else:
            vol = _pyramid(ax, ay, az, bx, by, bz, cx, cy, cz)
            if mode == MODE_LEGACY:
                vol = abs(vol)
            measure += vol
            w = vol / 20.0
        s0, s1, s2 = (ax + bx) + cx, (ay + by) + cy, (az + bz) + cz
        out[6] += w * (ax * ax + bx * bx + cx * cx + s0 * s0)
        out[7] += w * (ax * ay + bx * by + cx * cy + s0 * s1)
        out[8] += w * (ax * az + bx * bz + cx * cz + s0 * s2)
        out[10] += w * (ay * ay + by * by + cy * cy + s1 * s1)
        out[11] += w * (ay * az + by * bz + cy * cz + s1 * s2)
        out[14] += w * (az * az + bz * bz + cz * cz + s2 * s2)
    out[9], out[12], out[13] = out[7], out[8], out[11]
    out[2] = area_sum if mode == MODE_SHELL else measure


@kernel
def polygon_normals(vert, flat, num, out):
    """Unit normal (+z if it vanishes) of each closed polygon: ``num[p]`` counter-clockwise
    vertex ids each, one polygon after the other in ``flat``, ids into ``vert`` (n, 3). The
    normal is the direction of the area vector sum_i q_i x q_(i+1), summed in vertex order
    (engine/compiler/hull.py `hull_polygons`). ``out`` (len(num), 3)."""
    adr = 0
    for p in range(num.shape[0]):
        k = num[p]
        sx = sy = sz = 0.0
        for i in range(k):
            q = flat[adr + i]
            r = flat[adr + (i + 1) % k]
            sx += vert[q, 1] * vert[r, 2] - vert[q, 2] * vert[r, 1]
            sy += vert[q, 2] * vert[r, 0] - vert[q, 0] * vert[r, 2]
            sz += vert[q, 0] * vert[r, 1] - vert[q, 1] * vert[r, 0]
        ln = math.sqrt(sx * sx + sy * sy + sz * sz)
        if ln > 0:
            out[p, 0], out[p, 1], out[p, 2] = sx / ln, sy / ln, sz / ln
        else:
            out[p, 0], out[p, 1], out[p, 2] = 0.0, 0.0, 1.0
        adr += k
