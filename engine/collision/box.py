"""Box colliders: box-box with up to 8 contacts (seed 001, "collision detection": analytic
box-box) and capsule-box with up to 2 (``capsule_box`` below, MuJoCo's analytic routine).

Box-box algorithm (separating-axis test, then feature clipping; written from the textbook method,
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


# -------------------------------------------------------------------------------------------------
# capsule (geom1) against box (geom2): up to 2 contacts
# -------------------------------------------------------------------------------------------------
_MINVAL = 1e-15      # mjMINVAL: the degenerate-case threshold MuJoCo uses in this routine
_NO_SECOND = -4.0    # "no second point" marker of the segment parameter offset (valid: [-2, 2])
_KIND_NONE = -4      # closest-feature kinds: none found yet,
_KIND_END_LO = -3    # the capsule end at t = -1 against a face (or inside the box),
_KIND_END_HI = -1    # the end at t = +1; kinds 0..8 = an edge of the box: 3 * s_box + s_seg
                     # with s = 0 / 1 / 2 for "clamped at the low end" / "interior" / "high end"


@njit(**_J)
def _clamp_half(x, h):
    """x clamped to [-h, h] (no clamping for a non-positive half-size, as MuJoCo's clampVec)."""
    if h > 0:
        if x < -h:
            return -h
        if x > h:
            return h
    return x


@njit(**_J)
def sphere_box_at(cx, cy, cz, r, pos2, mat2, size2, margin, dist, pos, frame, k):
    """Sphere of radius r centered at world point c against the box (pos2, mat2, size2): writes
    contact row k (normal from the sphere to the box) and returns 1, or 0 when the gap exceeds
    margin. Worked in the box frame:
      * center outside the box: against the nearest box point q; normal = direction c -> q,
        dist = |q - c| - r, pos = midway between q and the sphere's surface point toward q;
      * center inside (|q - c| <= mjMINVAL): through the box face nearest to the center, faces
        tried in the order -x, +x, -y, +y, -z, +z and the first of equally near faces kept (the
        oracle's order: it decides the normal at a center exactly midway); dist = -(depth of
        the center below that face) - r, pos = center moved along the normal by half of
        (r - depth)."""
    # center in the box frame: R2^T (c - p2)
    dx, dy, dz = cx - pos2[0], cy - pos2[1], cz - pos2[2]
    lx = mat2[0] * dx + mat2[3] * dy + mat2[6] * dz
    ly = mat2[1] * dx + mat2[4] * dy + mat2[7] * dz
    lz = mat2[2] * dx + mat2[5] * dy + mat2[8] * dz
    qx = _clamp_half(lx, size2[0])
    qy = _clamp_half(ly, size2[1])
    qz = _clamp_half(lz, size2[2])
    ux, uy, uz = qx - lx, qy - ly, qz - lz
    gap = math.sqrt(ux * ux + uy * uy + uz * uz)
    if gap < _MINVAL:
        ux, uy, uz = 1.0, 0.0, 0.0
    else:
        inv = 1.0 / gap
        ux, uy, uz = ux * inv, uy * inv, uz * inv
    if gap - r > margin:
        return 0
    if gap <= _MINVAL:
        # inside: the nearest face; normal (box frame) = +axis for a "-" face, -axis for "+"
        near = 2.0 * (size2[0] + size2[1] + size2[2])
        ax = 0
        sg = 1.0
        loc = (lx, ly, lz)
        for f in range(6):
            a = f // 2
            face = size2[a] if f % 2 else -size2[a]
            depth = abs(face - loc[a])
            if depth < near:
                near = depth
                ax = a
                sg = -1.0 if f % 2 else 1.0
        ux = sg if ax == 0 else 0.0
        uy = sg if ax == 1 else 0.0
        uz = sg if ax == 2 else 0.0
        half = 0.5 * (r - near)
        px, py, pz = lx + ux * half, ly + uy * half, lz + uz * half
        d = -near - r
    else:
        px = 0.5 * qx + 0.5 * (lx + ux * r)
        py = 0.5 * qy + 0.5 * (ly + uy * r)
        pz = 0.5 * qz + 0.5 * (lz + uz * r)
        d = gap - r
    dist[k] = d
    pos[k, 0] = mat2[0] * px + mat2[1] * py + mat2[2] * pz + pos2[0]
    pos[k, 1] = mat2[3] * px + mat2[4] * py + mat2[5] * pz + pos2[1]
    pos[k, 2] = mat2[6] * px + mat2[7] * py + mat2[8] * pz + pos2[2]
    frame[k, 0] = mat2[0] * ux + mat2[1] * uy + mat2[2] * uz
    frame[k, 1] = mat2[3] * ux + mat2[4] * uy + mat2[5] * uz
    frame[k, 2] = mat2[6] * ux + mat2[7] * uy + mat2[8] * uz
    for j in range(3, 9):
        frame[k, j] = 0.0
    return 1


@njit(**_J)
def capsule_box(pos1, mat1, size1, pos2, mat2, size2, margin, dist, pos, frame):
    """Capsule (geom1: radius size1[0], half-length size1[1] along its local z) against box
    (geom2: half-sizes size2): returns n <= 2 and fills dist[0:n], pos[0:n], frame[0:n, 0:3]
    (unit normal from the capsule to the box), world frame; margin = detection threshold.

    MuJoCo's analytic capsule-box (seed 001, section "接触" (Contacts): the mjCOLLISIONFUNC table
    of pair functions; the algorithm read from MuJoCo's public engine_collision_box.c and
    written anew, checked against the oracle mujoco 4.0.0 to 1e-9). In the box frame the
    capsule segment is c + t h, t in [-1, 1] (h = half-axis):
      1. the feature of the box nearest to the segment: each segment end whose point lies
         outside the box along at most one axis (inside or over a face), by the squared distance
         to the box; then the 12 edges, by the squared distance from the edge's closest point to
         the segment's (a clamped 2x2 line-line solve: edge parameter clamped first, the segment
         one after it), an edge replacing the best so far only when nearer by more than mjMINVAL
         (keeps the face end for an axis parallel to a face); edges parallel to the axis
         (|det| < mjMINVAL) are skipped;
      2. a second point on the segment where the capsule lies along a face or crosses an edge
         (the oracle's octant tests on the signs of h against the nearest corner/edge): the
         farthest parameter from the first point that stays over the box (limited by the box
         extent over |h| per axis), none for an end inside the box or pointing at a corner;
      3. each point's sphere of radius size1[0] against the box (sphere_box_at).
    Contacts whose surface gap exceeds margin are dropped."""
    rad = size1[0]
    hl = size1[1]
    s = (size2[0], size2[1], size2[2])
    # capsule center and half-axis in the box frame
    dx, dy, dz = pos1[0] - pos2[0], pos1[1] - pos2[1], pos1[2] - pos2[2]
    c = (mat2[0] * dx + mat2[3] * dy + mat2[6] * dz,
         mat2[1] * dx + mat2[4] * dy + mat2[7] * dz,
         mat2[2] * dx + mat2[5] * dy + mat2[8] * dz)
    wx, wy, wz = mat1[2], mat1[5], mat1[8]
    a = (mat2[0] * wx + mat2[3] * wy + mat2[6] * wz,
         mat2[1] * wx + mat2[4] * wy + mat2[7] * wz,
         mat2[2] * wx + mat2[5] * wy + mat2[8] * wz)
    h = (a[0] * hl, a[1] * hl, a[2] * hl)
    # octant of the half-axis: bit k set when h points to +k
    octant = (1 if h[0] > 0 else 0) + (2 if h[1] > 0 else 0) + (4 if h[2] > 0 else 0)

    # 1. nearest feature (squared distances; the start value is the oracle's, a length)
    best = margin + 2.0 * (rad + hl + s[0] + s[1] + s[2])
    tbest = 0.0         # segment parameter of the first contact point
    xbest = 0.0         # edge parameter of the box point (edge kinds)
    kind = _KIND_NONE
    endface = -1        # end kinds: the one axis the end is beyond (-1: end inside the box)
    corner = 0          # edge kinds: corner bits of the nearest box corner / the edge's base
    edge = 0            # edge kinds: the edge's axis
    for e in (-1.0, 1.0):
        nout = 0
        fax = -1
        d2 = 0.0
        for k in range(3):
            p = c[k] + h[k] * e
            if p < -s[k]:
                nout += 1
                fax = k
                d2 += (-s[k] - p) * (-s[k] - p)
            elif p > s[k]:
                nout += 1
                fax = k
                d2 += (s[k] - p) * (s[k] - p)
        if nout > 1:
            continue
        if d2 < best:
            best = d2
            tbest = e
            kind = _KIND_END_LO if e < 0 else _KIND_END_HI
            endface = fax
    mc = hl * hl
    for j in range(3):
        for base in range(8):
            if base & (1 << j):
                continue
            # edge midpoint m (component j = 0), edge = m + x1 s_j e_j
            m0 = (s[0] if base & 1 else -s[0]) if j != 0 else 0.0
            m1 = (s[1] if base & 2 else -s[1]) if j != 1 else 0.0
            m2 = (s[2] if base & 4 else -s[2]) if j != 2 else 0.0
            f0, f1, f2 = m0 - c[0], m1 - c[1], m2 - c[2]
            fj = f0 if j == 0 else (f1 if j == 1 else f2)
            ma = s[j] * s[j]
            mb = -s[j] * h[j]
            u = -s[j] * fj
            v = h[0] * f0 + h[1] * f1 + h[2] * f2
            det = ma * mc - mb * mb
            if abs(det) < _MINVAL:
                continue
            idet = 1.0 / det
            x1 = (mc * u - mb * v) * idet    # along the edge, in [-1, 1]
            x2 = (ma * v - mb * u) * idet    # along the segment, in [-1, 1]
            c1 = 1
            c2 = 1
            if x1 > 1:
                x1 = 1.0
                c1 = 2
                x2 = (v - mb) * (1.0 / mc)
            elif x1 < -1:
                x1 = -1.0
                c1 = 0
                x2 = (v + mb) * (1.0 / mc)
            if x2 > 1 or x2 < -1:
                if x2 > 1:
                    x2 = 1.0
                    c2 = 2
                    x1 = (u - mb) * (1.0 / ma)
                else:
                    x2 = -1.0
                    c2 = 0
                    x1 = (u + mb) * (1.0 / ma)
                if x1 > 1:
                    x1 = 1.0
                    c1 = 2
                elif x1 < -1:
                    x1 = -1.0
                    c1 = 0
            g0 = f0 - h[0] * x2
            g1 = f1 - h[1] * x2
            g2 = f2 - h[2] * x2
            if j == 0:
                g0 += s[0] * x1
            elif j == 1:
                g1 += s[1] * x1
            else:
                g2 += s[2] * x1
            d2 = g0 * g0 + g1 * g1 + g2 * g2
            if d2 < best - _MINVAL:
                best = d2
                tbest = x2
                xbest = x1
                kind = 3 * c1 + c2
                corner = base + (1 << j) * (1 if c1 == 2 else 0)
                edge = j
    if kind == _KIND_NONE:
        return 0

    # 2. the second point: offset `second` (in units of h) from tbest
    second = _NO_SECOND
    if kind >= 0 and kind // 3 != 1:
        # nearest box point is a corner: a second point unless the axis points at the corner
        rel = octant ^ corner
        if rel != 0 and rel != 7:
            if rel == 1 or rel == 2 or rel == 4:
                sgn = 1.0
                toward = 1.0 - tbest    # room to the end the offset goes to
                back = 1.0 + tbest
            else:
                sgn = -1.0
                rel = 7 - rel
                back = 1.0 - tbest
                toward = 1.0 + tbest
            ax = 0 if rel == 1 else (1 if rel == 2 else 2)
            if a[ax] * a[ax] > 0.5:
                # mostly along the corner's edge: up to the other corner of that edge
                second = toward
                lim = 2.0 * s[ax] / abs(h[ax])
                if lim < second:
                    second = lim
                second *= sgn
            else:
                # across a face: until the segment leaves the face over either in-face axis
                second = back
                lim = 2.0 * s[(ax + 1) % 3] / abs(h[(ax + 1) % 3])
                if lim < second:
                    second = lim
                lim = 2.0 * s[(ax + 2) % 3] / abs(h[(ax + 2) % 3])
                if lim < second:
                    second = lim
                second *= -sgn
    elif kind >= 0:
        # nearest box point inside an edge: a second point for a capsule crossing the edge
        rel = (octant ^ corner) & (7 - (1 << edge))
        if rel == 1 or rel == 2 or rel == 4:
            ax = edge
            ax1 = (edge + 1) % 3
            ax2 = (edge + 2) % 3
            if abs(a[ax1]) > abs(a[ax2]):
                ax1 = ax2
            ax2 = 3 - ax - ax1          # the face axis the capsule is most inclined to
            if rel & (1 << ax2):
                sgn = 1.0
                second = 1.0 - tbest
            else:
                sgn = -1.0
                second = 1.0 + tbest
            lim = 2.0 * s[ax2] / abs(h[ax2])
            if lim < second:
                second = lim
            if ((octant & (1 << ax)) != 0) == ((rel & (1 << ax2)) != 0):
                room = 1.0 - xbest
            else:
                room = 1.0 + xbest
            lim = s[ax] * room / abs(h[ax])
            if lim < second:
                second = lim
            second *= sgn
    elif endface != -1:
        # an end over a face: toward the other end while the segment stays over that face
        sgn = 1.0 if kind == _KIND_END_LO else -1.0
        second = 2.0
        for k in range(3):
            if k != endface:
                q = c[k] + h[k] * (-sgn)
                lim = (s[k] - q) / h[k] * sgn
                if lim > 0 and lim < second:
                    second = lim
                lim = (-s[k] - q) / h[k] * sgn
                if lim > 0 and lim < second:
                    second = lim
        second *= sgn

    # 3. spheres at the point(s), back in the world frame
    n = 0
    for which in range(2):
        if which == 0:
            t = tbest
        elif second > -3.0:
            t = second + tbest
        else:
            break
        p0 = c[0] + h[0] * t
        p1 = c[1] + h[1] * t
        p2 = c[2] + h[2] * t
        n += sphere_box_at(mat2[0] * p0 + mat2[1] * p1 + mat2[2] * p2 + pos2[0],
                            mat2[3] * p0 + mat2[4] * p1 + mat2[5] * p2 + pos2[1],
                            mat2[6] * p0 + mat2[7] * p1 + mat2[8] * p2 + pos2[2],
                            rad, pos2, mat2, size2, margin, dist, pos, frame, n)
    return n
