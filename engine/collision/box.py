"""Box-box collision with up to 8 contacts (seed 001, "collision detection": analytic box-box).

Algorithm (separating-axis test, then feature clipping; written from the textbook method,
Ericson "Real-Time Collision Detection" 4.4 / 5.2.1, and calibrated against the oracle):
  * the 15 candidate axes (3 face normals of each box, 9 edge-edge cross products) give the
    overlap ``r1 + r2 - |d . a|``; the smallest overlap of the 6 face axes wins unless an edge
    axis overlaps less than 0.95 times it (faces are preferred: they give a stable patch);
  * no contact when the winning overlap is below ``-margin`` (separated by more than margin);
  * face axis: the face of that box is the reference face; the most anti-parallel face of the
    other box is the incident face; the incident quad is clipped against the four side planes of
    the reference rectangle (Sutherland-Hodgman); every vertex of the resulting polygon whose
    signed distance to the reference plane is below ``margin`` is a contact, with
    ``dist`` = that signed distance and ``pos`` = halfway between the vertex and the plane;
  * edge axis: one contact at the midpoint of the closest points of the two supporting edges,
    ``dist`` = minus the overlap.
Normal from geom1 to geom2 (frame[k, 0:3]); world frame; pos/frame must have >= 8 rows (their
spare columns frame[:, 3:9] are used as clipping buffers, the caller rewrites the tangents).
"""
from __future__ import annotations

import math

from numba import njit

from .._access import KERNEL as _J

_EDGE_BIAS = 0.95


@njit(**_J)
def _ax(mat, i):
    """Column i of the row-major rotation (axis i of the box frame in world)."""
    return mat[i], mat[3 + i], mat[6 + i]


@njit(**_J)
def _proj(size, mat, ax, ay, az):
    """Half-extent of the box along unit world direction a."""
    r = 0.0
    for k in range(3):
        cx, cy, cz = _ax(mat, k)
        r += size[k] * abs(cx * ax + cy * ay + cz * az)
    return r


@njit(**_J)
def box_box(size1, pos1, mat1, size2, pos2, mat2, margin, dist, pos, frame):
    """Contacts between two boxes: returns n (<= 8) and fills dist[0:n], pos[0:n], frame[0:n, 0:3].

    size = half-sizes (3,); pos (3,) and mat (9,, row-major) = world pose; margin (length)."""
    dx = pos2[0] - pos1[0]
    dy = pos2[1] - pos1[1]
    dz = pos2[2] - pos1[2]
    # face axes
    best = 1e300
    bwho = 0
    bi = 0
    bnx = bny = bnz = 0.0
    for who in range(2):
        for i in range(3):
            if who == 0:
                ax, ay, az = _ax(mat1, i)
            else:
                ax, ay, az = _ax(mat2, i)
            s = dx * ax + dy * ay + dz * az
            ov = _proj(size1, mat1, ax, ay, az) + _proj(size2, mat2, ax, ay, az) - abs(s)
            if ov < best:
                best = ov
                bwho = who
                bi = i
                sg = 1.0 if s >= 0 else -1.0
                bnx, bny, bnz = sg * ax, sg * ay, sg * az
    # edge axes
    ebest = 1e300
    ei = -1
    ej = -1
    enx = eny = enz = 0.0
    for i in range(3):
        ux, uy, uz = _ax(mat1, i)
        for j in range(3):
            vx, vy, vz = _ax(mat2, j)
            cx, cy, cz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
            cn = math.sqrt(cx * cx + cy * cy + cz * cz)
            if cn < 1e-6:
                continue
            cx /= cn
            cy /= cn
            cz /= cn
            s = dx * cx + dy * cy + dz * cz
            ov = _proj(size1, mat1, cx, cy, cz) + _proj(size2, mat2, cx, cy, cz) - abs(s)
            if ov < _EDGE_BIAS * best and ov < ebest:
                ebest = ov
                ei = i
                ej = j
                sg = 1.0 if s >= 0 else -1.0
                enx, eny, enz = sg * cx, sg * cy, sg * cz
    if ei >= 0:
        if ebest < -margin:
            return 0
        return _edge_contact(size1, pos1, mat1, size2, pos2, mat2, ei, ej, enx, eny, enz, ebest,
                             dist, pos, frame)
    if best < -margin:
        return 0
    if bwho == 0:
        return _face_contacts(size1, pos1, mat1, size2, pos2, mat2, bi, bnx, bny, bnz, 1.0,
                              margin, dist, pos, frame)
    return _face_contacts(size2, pos2, mat2, size1, pos1, mat1, bi, -bnx, -bny, -bnz, -1.0,
                          margin, dist, pos, frame)


@njit(**_J)
def _edge_contact(size1, pos1, mat1, size2, pos2, mat2, i, j, nx, ny, nz, ov, dist, pos, frame):
    """One contact between the edge of box1 along axis i farthest along n and the edge of box2
    along axis j farthest along -n: midpoint of the closest points of the two lines."""
    c1x, c1y, c1z = pos1[0], pos1[1], pos1[2]
    c2x, c2y, c2z = pos2[0], pos2[1], pos2[2]
    for k in range(3):
        if k != i:
            ax, ay, az = _ax(mat1, k)
            sg = size1[k] if ax * nx + ay * ny + az * nz >= 0 else -size1[k]
            c1x += sg * ax
            c1y += sg * ay
            c1z += sg * az
        if k != j:
            ax, ay, az = _ax(mat2, k)
            sg = size2[k] if ax * nx + ay * ny + az * nz >= 0 else -size2[k]
            c2x -= sg * ax
            c2y -= sg * ay
            c2z -= sg * az
    ux, uy, uz = _ax(mat1, i)
    vx, vy, vz = _ax(mat2, j)
    wx, wy, wz = c1x - c2x, c1y - c2y, c1z - c2z
    b = ux * vx + uy * vy + uz * vz
    dd = ux * wx + uy * wy + uz * wz
    e = vx * wx + vy * wy + vz * wz
    den = 1.0 - b * b
    t = 0.0
    s = 0.0
    if den > 1e-300:
        t = (b * e - dd) / den
        s = (e - b * dd) / den
    dist[0] = -ov
    pos[0, 0] = 0.5 * (c1x + t * ux + c2x + s * vx)
    pos[0, 1] = 0.5 * (c1y + t * uy + c2y + s * vy)
    pos[0, 2] = 0.5 * (c1z + t * uz + c2z + s * vz)
    frame[0, 0] = nx
    frame[0, 1] = ny
    frame[0, 2] = nz
    return 1


@njit(**_J)
def _face_contacts(sR, pR, mR, sI, pI, mI, i, nx, ny, nz, sgn, margin, dist, pos, frame):
    """Reference face: face i of box R with outward normal n (toward box I). Incident face of I
    clipped against the reference rectangle; contact normal = sgn * n."""
    # reference face center and in-plane axes
    ax, ay, az = _ax(mR, i)
    sf = sR[i] if ax * nx + ay * ny + az * nz >= 0 else -sR[i]
    crx, cry, crz = pR[0] + sf * ax, pR[1] + sf * ay, pR[2] + sf * az
    # incident face: axis of I most aligned with n, on the side facing -n
    k = 0
    bd = -1.0
    for q in range(3):
        bx, by, bz = _ax(mI, q)
        c = abs(bx * nx + by * ny + bz * nz)
        if c > bd:
            bd = c
            k = q
    bx, by, bz = _ax(mI, k)
    sk = -sI[k] if bx * nx + by * ny + bz * nz >= 0 else sI[k]
    cix, ciy, ciz = pI[0] + sk * bx, pI[1] + sk * by, pI[2] + sk * bz
    k1 = (k + 1) % 3
    k2 = (k + 2) % 3
    e1x, e1y, e1z = _ax(mI, k1)
    e2x, e2y, e2z = _ax(mI, k2)
    e1x, e1y, e1z = e1x * sI[k1], e1y * sI[k1], e1z * sI[k1]
    e2x, e2y, e2z = e2x * sI[k2], e2y * sI[k2], e2z * sI[k2]
    # incident quad into buffer A = frame[:, 3:6]
    for q in range(4):
        s1 = 1.0 if q == 0 or q == 3 else -1.0
        s2 = 1.0 if q < 2 else -1.0
        frame[q, 3] = cix + s1 * e1x + s2 * e2x
        frame[q, 4] = ciy + s1 * e1y + s2 * e2y
        frame[q, 5] = ciz + s1 * e1z + s2 * e2z
    npt = 4
    src = 3
    # clip against the 4 side planes of the reference rectangle
    for p in range(4):
        a = (i + 1) % 3 if p < 2 else (i + 2) % 3
        ux, uy, uz = _ax(mR, a)
        if p % 2 == 1:
            ux, uy, uz = -ux, -uy, -uz
        h = sR[a]
        dst = 6 if src == 3 else 3
        m = 0
        for q in range(npt):
            r = (q + 1) % npt
            Px, Py, Pz = frame[q, src], frame[q, src + 1], frame[q, src + 2]
            Qx, Qy, Qz = frame[r, src], frame[r, src + 1], frame[r, src + 2]
            dp = (Px - crx) * ux + (Py - cry) * uy + (Pz - crz) * uz - h
            dq = (Qx - crx) * ux + (Qy - cry) * uy + (Qz - crz) * uz - h
            if dp <= 0 and m < 8:
                frame[m, dst] = Px
                frame[m, dst + 1] = Py
                frame[m, dst + 2] = Pz
                m += 1
            if dp * dq < 0 and m < 8:
                t = dp / (dp - dq)
                frame[m, dst] = Px + (Qx - Px) * t
                frame[m, dst + 1] = Py + (Qy - Py) * t
                frame[m, dst + 2] = Pz + (Qz - Pz) * t
                m += 1
        npt = m
        src = dst
        if npt == 0:
            return 0
    n = 0
    for q in range(npt):
        Px, Py, Pz = frame[q, src], frame[q, src + 1], frame[q, src + 2]
        dd = (Px - crx) * nx + (Py - cry) * ny + (Pz - crz) * nz
        if dd < margin:
            dist[n] = dd
            # rows >= n of the buffers are still unread: safe to write row n
            pos[n, 0] = Px - 0.5 * dd * nx
            pos[n, 1] = Py - 0.5 * dd * ny
            pos[n, 2] = Pz - 0.5 * dd * nz
            n += 1
    for q in range(n):
        frame[q, 0] = sgn * nx
        frame[q, 1] = sgn * ny
        frame[q, 2] = sgn * nz
    return n
