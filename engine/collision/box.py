"""Box colliders: box-box (``box_box``, up to 12 contacts) and capsule-box with up to 2
(``capsule_box`` below), MuJoCo's analytic routines (seed 001, section "接触" (Contacts): the
mjCOLLISIONFUNC table of pair functions).

Box-box, as mujoco 4.0.0 does it (its separating-axis collider, read from MuJoCo's public
engine_collision_box.c and written anew; every epsilon below is the oracle's, checked against
mujoco 4.0.0 to 1e-9 on MuJoCo's own test models and random box pairs). Worked in the frame of
box1: rot = R1^T R2 (columns: box2's axes), pos21 = box2's center, pos12 = box1's center in
box2's frame.
  1. Separation along the 15 candidate axes, sep = |center offset . axis| - radius1 - radius2
     (> 0: apart): any sep above ``margin + 1e-13 * (sum of the six half-sizes)`` means no
     contact. The largest sep wins: the face axes of box1, then of box2 (the first of equal
     values kept); an edge axis (box1 axis i x box2 axis j, skipped when sin^2 of their angle is
     below 1e-16) replaces it only when ``sep - 1e-6 |sep|`` still exceeds the best so far.
     A winning edge axis within ~8 degrees of the best face axis (|cos| > 0.99) whose sep exceeds
     that face's by at most 5 % of |face sep| (+ mjMINVAL) gives the win back to the face.
  2. Edge axis: one contact at the midpoint of the closest points of the two supporting edges
     (corners picked by the signs of the axis in each box's frame; a component below 1e-9 makes
     the corner ambiguous and both are tried, the closer witness pair kept); dist = the witness
     gap along the axis (axis oriented from box1 to box2).
  3. Face axis: its owner is the reference box; the incident face (of the other box, the one
     whose normal is most along the reference normal, oriented against it) is clipped against
     the four side planes of the reference face (x <= sx, -x <= sx, y <= sy, -y <= sy, in that
     order; Sutherland-Hodgman, a pass that removes nothing leaves the polygon as is). Each
     clipped vertex with height z above the reference face <= margin is a contact unless it is
     within sqrt(1e-14 (sx^2 + sy^2)) (in-plane) of an earlier accepted one: dist = z, pos = the
     vertex moved to halfway between the reference face and the incident surface.
Normal from geom1 to geom2 (frame[k, 0:3]); world frame. pos/frame must have >= 12 rows: the
spare columns frame[0:12, 3:9] hold the two clipping buffers (the caller rewrites the tangents).
"""
from __future__ import annotations

import math

from .._jit import kernel
from ..math import mat_mat, mat_t_vec, mat_vec, normalize3, sub3, transpose9

from ..enums import mjMINVAL as _MINVAL  # noqa: E402
_SEPEPS = 1e-13      # separation slack, times the summed half-sizes (rounding of the supports)
_PAREPS = 1e-16      # sin^2 of the angle below which an edge-cross axis is noise
_SGNEPS = 1e-9       # axis component below which a supporting corner is ambiguous
_DUPEPS = 1e-14      # squared in-plane duplicate radius, relative to the reference face
_EDGEBIAS = 1e-6     # relative handicap of an edge axis against the best axis so far
_MAXVERT = 12        # clipping capacity (a quad clipped by 4 half-planes has <= 8 vertices)


@kernel
def _place(k1, v1, k2, v2, k3, v3):
    """The 3-tuple with value v1 at index k1, v2 at k2, v3 at k3 ((k1, k2, k3) a permutation)."""
    x = v1 if k1 == 0 else (v2 if k2 == 0 else v3)
    y = v1 if k1 == 1 else (v2 if k2 == 1 else v3)
    z = v1 if k1 == 2 else (v2 if k2 == 2 else v3)
    return x, y, z


@kernel
def _edge_axis(rot, i, j):
    """Unit box1-frame direction of box1 axis i x box2 axis j (mju_normalize3's fallback +x
    for a vanishing one)."""
    i1 = (i + 1) % 3
    i2 = (i + 2) % 3
    return normalize3(_place(i, 0.0, i1, -rot[3 * i2 + j], i2, rot[3 * i1 + j]))[0]


@kernel
def box_box(size1, pos1, mat1, size2, pos2, mat2, margin, dist, pos, frame):
    """Contacts between two boxes: returns n (<= 12) and fills dist[0:n], pos[0:n],
    frame[0:n, 0:3] (see the module docstring).

    size = half-sizes (3,); pos (3,) and mat (9,, row-major) = world pose; margin (length)."""
    rot = mat_mat(transpose9(mat1), mat2)     # R1^T R2
    pos21 = mat_t_vec(mat1, sub3(pos2, pos1))
    pos12 = mat_t_vec(mat2, sub3(pos1, pos2))
    septol = margin + _SEPEPS * (size1[0] + size1[1] + size1[2] + size2[0] + size2[1] + size2[2])

    # 1. separating axes: code 0..2 face of box1, 3..5 face of box2, 6 + 3 i + j edge pair
    sep_best = -1e10     # -mjMAXVAL
    code = -1
    for i in range(3):
        r2 = abs(rot[3 * i]) * size2[0] + abs(rot[3 * i + 1]) * size2[1] \
            + abs(rot[3 * i + 2]) * size2[2]
        sep = abs(pos21[i]) - size1[i] - r2
        if sep > septol:
            return 0
        if sep > sep_best:
            sep_best = sep
            code = i
    for j in range(3):
        r1 = abs(rot[j]) * size1[0] + abs(rot[3 + j]) * size1[1] + abs(rot[6 + j]) * size1[2]
        sep = abs(pos12[j]) - size2[j] - r1
        if sep > septol:
            return 0
        if sep > sep_best:
            sep_best = sep
            code = 3 + j
    sep_face = sep_best
    code_face = code
    for i in range(3):
        i1 = (i + 1) % 3
        i2 = (i + 2) % 3
        for j in range(3):
            u1 = -rot[3 * i2 + j]
            u2 = rot[3 * i1 + j]
            nrm2 = u1 * u1 + u2 * u2
            if nrm2 < _PAREPS:   # near-parallel edges: the face axes cover this direction
                continue
            inv = 1.0 / math.sqrt(nrm2)
            u1 *= inv
            u2 *= inv
            r1 = size1[i1] * abs(u1) + size1[i2] * abs(u2)
            j1 = (j + 1) % 3
            j2 = (j + 2) % 3
            b1 = u1 * rot[3 * i1 + j1] + u2 * rot[3 * i2 + j1]
            b2 = u1 * rot[3 * i1 + j2] + u2 * rot[3 * i2 + j2]
            r2 = size2[j1] * abs(b1) + size2[j2] * abs(b2)
            sep = abs(u1 * pos21[i1] + u2 * pos21[i2]) - r1 - r2
            if sep > septol:
                return 0
            # faces win near-ties: their patch of contacts is what a resting stack needs
            if sep - _EDGEBIAS * abs(sep) > sep_best and sep > sep_face:
                sep_best = sep
                code = 6 + 3 * i + j
    if code < 0:
        return 0
    if code >= 6:
        # an edge axis nearly along the best face axis and hardly better: the face instead
        ax, ay, az = _edge_axis(rot, (code - 6) // 3, (code - 6) % 3)
        if code_face < 3:
            fd = abs((ax, ay, az)[code_face])
        else:
            f = code_face - 3
            fd = abs(ax * rot[f] + ay * rot[3 + f] + az * rot[6 + f])
        if fd > 0.99 and sep_best < sep_face + 0.05 * abs(sep_face) + _MINVAL:
            code = code_face
    if code >= 6:
        return _edge_contact(size1, pos1, mat1, size2, rot, pos21, code - 6, septol,
                             dist, pos, frame)
    if code < 3:
        return _face_contacts(size1, pos1, mat1, size2, rot, pos21, code, True, margin,
                              dist, pos, frame)
    return _face_contacts(size2, pos2, mat2, size1, rot, pos12, code - 3, False, margin,
                          dist, pos, frame)


@kernel
def _edge_contact(size1, pos1, mat1, size2, rot, pos21, code, septol, dist, pos, frame):
    """One contact for edge pair code = 3 i + j (box1 axis i, box2 axis j), worked in box1's
    frame: the midpoint of the closest points of the two supporting edge segments."""
    i = code // 3
    j = code % 3
    i1 = (i + 1) % 3
    i2 = (i + 2) % 3
    j1 = (j + 1) % 3
    j2 = (j + 2) % 3
    ax, ay, az = _edge_axis(rot, i, j)
    if ax * pos21[0] + ay * pos21[1] + az * pos21[2] < 0:   # orient from box1 to box2
        ax, ay, az = -ax, -ay, -az
    axis = (ax, ay, az)
    # the axis in box2's frame
    a2 = (ax * rot[0] + ay * rot[3] + az * rot[6],
          ax * rot[1] + ay * rot[4] + az * rot[7],
          ax * rot[2] + ay * rot[5] + az * rot[8])
    # a near-zero component leaves the supporting corner to rounding: try both
    amb1 = -1
    if abs(axis[i1]) < _SGNEPS:
        amb1 = i1
    elif abs(axis[i2]) < _SGNEPS:
        amb1 = i2
    amb2 = -1
    if abs(a2[j1]) < _SGNEPS:
        amb2 = j1
    elif abs(a2[j2]) < _SGNEPS:
        amb2 = j2
    dx, dy, dz = rot[j], rot[3 + j], rot[6 + j]     # box2's edge direction
    b = (dx, dy, dz)[i]                             # . box1's edge direction e_i
    den = 1.0 - b * b
    best = 1e10
    w1x = w1y = w1z = w2x = w2y = w2z = 0.0
    for v1 in range(2 if amb1 >= 0 else 1):
        for v2 in range(2 if amb2 >= 0 else 1):
            # box1's edge: corner supporting +axis (component i = 0), maybe flipped
            k1 = size1[i1] if axis[i1] >= 0 else -size1[i1]
            k2 = size1[i2] if axis[i2] >= 0 else -size1[i2]
            if v1 == 1:
                if amb1 == i1:
                    k1 = -k1
                else:
                    k2 = -k2
            # box2's edge: corner supporting -axis, in box2's frame, then in box1's
            h1 = -size2[j1] if a2[j1] >= 0 else size2[j1]
            h2 = -size2[j2] if a2[j2] >= 0 else size2[j2]
            if v2 == 1:
                if amb2 == j1:
                    h1 = -h1
                else:
                    h2 = -h2
            cc = _place(j, 0.0, j1, h1, j2, h2)
            c1 = _place(i, 0.0, i1, k1, i2, k2)
            c2x, c2y, c2z = mat_vec(rot, cc)
            c2x, c2y, c2z = c2x + pos21[0], c2y + pos21[1], c2z + pos21[2]
            ex, ey, ez = c2x - c1[0], c2y - c1[1], c2z - c1[2]
            d1e = (ex, ey, ez)[i]
            d2e = dx * ex + dy * ey + dz * ez
            s = 0.0 if den < _MINVAL else (d1e - b * d2e) / den
            # clamp to the segments, each clamp re-solving the other parameter
            s = _clamp_half(s, size1[i])
            t = _clamp_half(b * s - d2e, size2[j])
            s = _clamp_half(d1e + b * t, size1[i])
            c1 = _place(i, s, i1, k1, i2, k2)
            p2x, p2y, p2z = c2x + dx * t, c2y + dy * t, c2z + dz * t
            gx, gy, gz = p2x - c1[0], p2y - c1[1], p2z - c1[2]
            g2 = gx * gx + gy * gy + gz * gz
            if g2 < best:
                best = g2
                w1x, w1y, w1z = c1[0], c1[1], c1[2]
                w2x, w2y, w2z = p2x, p2y, p2z
    d = (w2x - w1x) * ax + (w2y - w1y) * ay + (w2z - w1z) * az
    if d > septol:
        return 0
    dist[0] = d
    mx, my, mz = mat_vec(mat1, (0.5 * (w1x + w2x), 0.5 * (w1y + w2y), 0.5 * (w1z + w2z)))
    pos[0, 0], pos[0, 1], pos[0, 2] = mx + pos1[0], my + pos1[1], mz + pos1[2]
    frame[0, 0], frame[0, 1], frame[0, 2] = mat_vec(mat1, axis)
    return 1


@kernel
def _clip_pass(frame, src, n, coord, sign, limit):
    """Clip the polygon in frame[0:n, src:src+3] (in-plane x, y and height z) against the
    half-plane sign * v[coord] <= limit; returns (n, src) of the result: untouched when every
    vertex is inside, else written to the other buffer (columns 3:6 <-> 6:9)."""
    inside = True
    for k in range(n):
        if sign * frame[k, src + coord] - limit > 0:
            inside = False
            break
    if inside:
        return n, src
    dst = 6 if src == 3 else 3
    m = 0
    for k in range(n):
        k1 = 0 if k + 1 == n else k + 1
        dp = sign * frame[k, src + coord] - limit
        dq = sign * frame[k1, src + coord] - limit
        if dp <= 0 and m < _MAXVERT:
            for c in range(3):
                frame[m, dst + c] = frame[k, src + c]
            m += 1
        # a vertex exactly on the plane adds no crossing (it was emitted itself)
        if ((dp < 0 and dq > 0) or (dp > 0 and dq < 0)) and m < _MAXVERT:
            t = dp / (dp - dq)
            for c in range(3):
                p = frame[k, src + c]
                frame[m, dst + c] = p + t * (frame[k1, src + c] - p)
            m += 1
    return m, dst


@kernel
def _face_contacts(sref, pref, mref, sinc, rot, poi, a, ref1, margin, dist, pos, frame):
    """Contacts on face axis a of the reference box (sref, pref, mref): box1 when ref1 (then
    rot = R1^T R2 and poi = pos21), else box2 (rot is still R1^T R2; poi = pos12)."""
    # rinc(r, c): component r (reference frame) of the incident box's axis c
    sgn = 1.0 if poi[a] >= 0 else -1.0
    binc = 0
    bv = -1.0
    for k in range(3):
        v = abs(rot[3 * a + k]) if ref1 else abs(rot[3 * k + a])
        if k == 0 or v > bv:
            bv = v
            binc = k
    rab = rot[3 * a + binc] if ref1 else rot[3 * binc + a]
    tinc = -1.0 if sgn * rab > 0 else 1.0     # the incident face opposing the reference normal
    ax = (a + 1) % 3
    ay = (a + 2) % 3
    bu = (binc + 1) % 3
    bw = (binc + 2) % 3
    # incident face center and half-edges in (x, y, z) = (axis ax, axis ay, height above face)
    for r in range(3):
        c = ax if r == 0 else (ay if r == 1 else a)
        rb = rot[3 * c + binc] if ref1 else rot[3 * binc + c]
        ru = rot[3 * c + bu] if ref1 else rot[3 * bu + c]
        rw = rot[3 * c + bw] if ref1 else rot[3 * bw + c]
        cr = poi[c] + tinc * sinc[binc] * rb
        ur = sinc[bu] * ru
        wr = sinc[bw] * rw
        if r == 2:
            cr = sgn * cr - sref[a]
            ur *= sgn
            wr *= sgn
        # corners (+u +w), (-u +w), (-u -w), (+u -w): a cyclic winding
        frame[0, 3 + r] = cr + ur + wr
        frame[1, 3 + r] = cr - ur + wr
        frame[2, 3 + r] = cr - ur - wr
        frame[3, 3 + r] = cr + ur - wr
    n = 4
    src = 3
    n, src = _clip_pass(frame, src, n, 0, 1.0, sref[ax])
    n, src = _clip_pass(frame, src, n, 0, -1.0, sref[ax])
    n, src = _clip_pass(frame, src, n, 1, 1.0, sref[ay])
    n, src = _clip_pass(frame, src, n, 1, -1.0, sref[ay])
    # accepted vertices (x, y, z) into pos rows; near-duplicates from clipping at corners dropped
    dupe2 = _DUPEPS * (sref[ax] * sref[ax] + sref[ay] * sref[ay])
    na = 0
    for k in range(n):
        x, y, z = frame[k, src], frame[k, src + 1], frame[k, src + 2]
        if z > margin:
            continue
        dup = False
        for q in range(na):
            ex = pos[q, 0] - x
            ey = pos[q, 1] - y
            if ex * ex + ey * ey < dupe2:
                dup = True
                break
        if not dup:
            pos[na, 0] = x
            pos[na, 1] = y
            pos[na, 2] = z
            na += 1
    nsg = sgn if ref1 else -sgn
    nx, ny, nz = nsg * mref[a], nsg * mref[3 + a], nsg * mref[6 + a]
    for k in range(na):
        dist[k] = pos[k, 2]
        p = _place(ax, pos[k, 0], ay, pos[k, 1], a, sgn * (sref[a] + 0.5 * pos[k, 2]))
        wx, wy, wz = mat_vec(mref, p)
        pos[k, 0], pos[k, 1], pos[k, 2] = wx + pref[0], wy + pref[1], wz + pref[2]
        frame[k, 0] = nx
        frame[k, 1] = ny
        frame[k, 2] = nz
    return na


# -------------------------------------------------------------------------------------------------
# capsule (geom1) against box (geom2): up to 2 contacts
# -------------------------------------------------------------------------------------------------
_NO_SECOND = -4.0    # "no second point" marker of the segment parameter offset (valid: [-2, 2])
_KIND_NONE = -4      # closest-feature kinds: none found yet,
_KIND_END_LO = -3    # the capsule end at t = -1 against a face (or inside the box),
_KIND_END_HI = -1    # the end at t = +1; kinds 0..8 = an edge of the box: 3 * s_box + s_seg
                     # with s = 0 / 1 / 2 for "clamped at the low end" / "interior" / "high end"


@kernel
def _clamp_half(x, h):
    """x clamped to [-h, h] (no clamping for a non-positive half-size, as MuJoCo's clampVec)."""
    if h > 0:
        if x < -h:
            return -h
        if x > h:
            return h
    return x


@kernel
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
    (ux, uy, uz), gap = normalize3((qx - lx, qy - ly, qz - lz))
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


@kernel
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
