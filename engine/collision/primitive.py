"""Analytic narrow-phase pair functions (MuJoCo's primitive colliders: computation chapter,
"Collision detection"; seed 001, "Contacts"; seed 000, <geom> type/size/margin).

Every function takes the two geoms' world poses (``pos`` (3,), ``mat`` (9,) row-major, so local
axis k is ``(mat[k], mat[3+k], mat[6+k])``), their ``size`` (3,) and the detection threshold
``margin`` (length units: the pair's margin plus gap), and writes up to its maximum number of
contacts into the caller's rows ``dist[k]``, ``pos[k, 0:3]``, ``frame[k, 0:3]`` (the unit normal,
from geom1 to geom2; the caller completes the tangent rows) for k = 0..n-1, returning n.
``dist`` is the signed surface distance (negative = penetration) and ``pos`` the point midway
between the two surfaces along the normal. Geom1 has the lower geom type (MuJoCo's upper-triangle
collision table), e.g. plane-sphere, sphere-box.
"""
from __future__ import annotations

import math


from .._jit import kernel
from .box import sphere_box_at
from .convex import _quad_area
from ..enums import mjMINVAL  # noqa: E402


@kernel
def _axis(mat, k):
    return mat[k], mat[3 + k], mat[6 + k]


@kernel
def _emit(dist, pos, frame, k, d, px, py, pz, nx, ny, nz):
    dist[k] = d
    pos[k, 0] = px
    pos[k, 1] = py
    pos[k, 2] = pz
    frame[k, 0] = nx
    frame[k, 1] = ny
    frame[k, 2] = nz
    for j in range(3, 9):
        frame[k, j] = 0.0


@kernel
def _sphere_point(cx, cy, cz, r1, qx, qy, qz, r2, mat1, mat2, margin, dist, pos, frame, k):
    """Sphere (center c, radius r1) against sphere (center q, radius r2); normal c -> q.

    The arithmetic of mujoco 4.0.0's sphere-sphere (read in libmujoco.so.4.0.0, which its
    sphere-capsule and capsule-capsule also call): the pair is rejected when the squared center
    distance exceeds (margin + r1 + r2)^2, and unit vectors are scaled by the reciprocal of
    their length (not divided by it).
    Coincident centers (e.g. two capsule segments that cross): the normal is the cross product
    of the two geoms' z axes (rows of ``mat1``, ``mat2``), or +x when those are parallel, as
    MuJoCo's sphere-sphere chooses (checked against mujoco 4.0.0 on dm_control's manipulator)."""
    dx, dy, dz = qx - cx, qy - cy, qz - cz
    ln2 = dx * dx + dy * dy + dz * dz
    lim = margin + r1 + r2
    if ln2 > lim * lim:
        return 0
    ln = math.sqrt(ln2)
    d = ln - r1 - r2
    if ln < mjMINVAL:
        a0, a1, a2 = _axis(mat1, 2)
        b0, b1, b2 = _axis(mat2, 2)
        nx, ny, nz = a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0
        ln = math.sqrt(nx * nx + ny * ny + nz * nz)
        if ln < mjMINVAL:
            nx, ny, nz = 1.0, 0.0, 0.0
        else:
            inv = 1.0 / ln
            nx, ny, nz = nx * inv, ny * inv, nz * inv
    else:
        inv = 1.0 / ln
        nx, ny, nz = dx * inv, dy * inv, dz * inv
    s = r1 + 0.5 * d
    _emit(dist, pos, frame, k, d, cx + nx * s, cy + ny * s, cz + nz * s, nx, ny, nz)
    return 1


# ---------------------------------------------------------------------------------------------
# plane (geom1) against the other types: the plane is the half-space below the geom's local z=0
# ---------------------------------------------------------------------------------------------
@kernel
def _plane_point(pos1, n0, n1, n2, px, py, pz, rad, margin, dist, pos, frame, k):
    """A point (sphere of radius rad) against the plane through pos1 with normal n."""
    d = (px - pos1[0]) * n0 + (py - pos1[1]) * n1 + (pz - pos1[2]) * n2 - rad
    if d > margin:
        return 0
    s = rad + 0.5 * d
    _emit(dist, pos, frame, k, d, px - n0 * s, py - n1 * s, pz - n2 * s, n0, n1, n2)
    return 1


@kernel
def plane_sphere(pos1, mat1, size1, pos2, mat2, size2, margin, dist, pos, frame):
    """Plane-sphere: one contact at the sphere's deepest point (max 1)."""
    n0, n1, n2 = _axis(mat1, 2)
    return _plane_point(pos1, n0, n1, n2, pos2[0], pos2[1], pos2[2], size2[0], margin,
                        dist, pos, frame, 0)


@kernel
def plane_capsule(pos1, mat1, size1, pos2, mat2, size2, margin, dist, pos, frame):
    """Plane-capsule: the two end spheres of the capsule's segment (max 2)."""
    n0, n1, n2 = _axis(mat1, 2)
    a0, a1, a2 = _axis(mat2, 2)
    h = size2[1]
    k = _plane_point(pos1, n0, n1, n2, pos2[0] + a0 * h, pos2[1] + a1 * h, pos2[2] + a2 * h,
                     size2[0], margin, dist, pos, frame, 0)
    k += _plane_point(pos1, n0, n1, n2, pos2[0] - a0 * h, pos2[1] - a1 * h, pos2[2] - a2 * h,
                      size2[0], margin, dist, pos, frame, k)
    # MuJoCo's first tangent here is the capsule's axis (made orthogonal to the normal later)
    for i in range(k):
        frame[i, 3], frame[i, 4], frame[i, 5] = a0, a1, a2
    return k


@kernel
def plane_box(pos1, mat1, size1, pos2, mat2, size2, margin, dist, pos, frame):
    """Plane-box: the box corners not above the box center (along the plane normal) and within
    margin, in corner order (x sign alternating fastest, then y, then z; negative first), at
    most 4."""
    n0, n1, n2 = _axis(mat1, 2)
    k = 0
    for i in range(8):
        sx = size2[0] if i & 1 else -size2[0]
        sy = size2[1] if i & 2 else -size2[1]
        sz = size2[2] if i & 4 else -size2[2]
        ox = mat2[0] * sx + mat2[1] * sy + mat2[2] * sz
        oy = mat2[3] * sx + mat2[4] * sy + mat2[5] * sz
        oz = mat2[6] * sx + mat2[7] * sy + mat2[8] * sz
        if ox * n0 + oy * n1 + oz * n2 > 0:  # corners above the center never touch first
            continue
        px = pos2[0] + ox
        py = pos2[1] + oy
        pz = pos2[2] + oz
        k += _plane_point(pos1, n0, n1, n2, px, py, pz, 0.0, margin, dist, pos, frame, k)
        if k == 4:
            break
    return k


@kernel
def plane_cylinder(pos1, mat1, size1, pos2, mat2, size2, margin, dist, pos, frame):
    """Plane-cylinder (max 4): the deepest rim point of the disc nearer the plane, the matching
    rim point of the far disc, and two more points of the near disc's rim completing an
    equilateral triangle with the first (so an upright cylinder rests on 3 points)."""
    n0, n1, n2 = _axis(mat1, 2)
    a0, a1, a2 = _axis(mat2, 2)
    r, h = size2[0], size2[1]
    prj = n0 * a0 + n1 * a1 + n2 * a2
    if prj > 0:  # make the axis point towards the plane
        a0, a1, a2, prj = -a0, -a1, -a2, -prj
    dist0 = (pos2[0] - pos1[0]) * n0 + (pos2[1] - pos1[1]) * n1 + (pos2[2] - pos1[2]) * n2
    # direction in the disc plane towards the plane: -n without its axial part
    v0, v1, v2 = prj * a0 - n0, prj * a1 - n1, prj * a2 - n2
    ln = math.sqrt(v0 * v0 + v1 * v1 + v2 * v2)
    if ln < mjMINVAL:  # axis parallel to the normal: any rim direction, use the local x axis
        v0, v1, v2 = mat2[0] * r, mat2[3] * r, mat2[6] * r
    else:
        v0, v1, v2 = v0 * r / ln, v1 * r / ln, v2 * r / ln
    prjv = v0 * n0 + v1 * n1 + v2 * n2
    k = 0
    # near disc, deepest rim point
    k += _plane_point(pos1, n0, n1, n2, pos2[0] + a0 * h + v0, pos2[1] + a1 * h + v1,
                      pos2[2] + a2 * h + v2, 0.0, margin, dist, pos, frame, k)
    # far disc, same rim direction
    k += _plane_point(pos1, n0, n1, n2, pos2[0] - a0 * h + v0, pos2[1] - a1 * h + v1,
                      pos2[2] - a2 * h + v2, 0.0, margin, dist, pos, frame, k)
    # triangle on the near disc: rim points at +-120 degrees from v
    d3 = dist0 + prj * h - 0.5 * prjv
    if d3 <= margin:
        s = math.sqrt(3.0) / 2.0
        w0 = (v1 * a2 - v2 * a1) * s
        w1 = (v2 * a0 - v0 * a2) * s
        w2 = (v0 * a1 - v1 * a0) * s
        for sg in (1.0, -1.0):
            k += _plane_point(pos1, n0, n1, n2, pos2[0] + a0 * h - 0.5 * v0 + sg * w0,
                              pos2[1] + a1 * h - 0.5 * v1 + sg * w1,
                              pos2[2] + a2 * h - 0.5 * v2 + sg * w2, 0.0, margin,
                              dist, pos, frame, k)
    return k


@kernel
def plane_ellipsoid(pos1, mat1, size1, pos2, mat2, size2, margin, dist, pos, frame):
    """Plane-ellipsoid: one contact at the ellipsoid's support point along -normal (max 1)."""
    n0, n1, n2 = _axis(mat1, 2)
    # -n in the ellipsoid frame
    u0 = -(mat2[0] * n0 + mat2[3] * n1 + mat2[6] * n2)
    u1 = -(mat2[1] * n0 + mat2[4] * n1 + mat2[7] * n2)
    u2 = -(mat2[2] * n0 + mat2[5] * n1 + mat2[8] * n2)
    a, b, c = size2[0], size2[1], size2[2]
    ln = math.sqrt((a * u0) ** 2 + (b * u1) ** 2 + (c * u2) ** 2)
    if ln < mjMINVAL:
        return 0
    l0, l1, l2 = a * a * u0 / ln, b * b * u1 / ln, c * c * u2 / ln
    px = pos2[0] + mat2[0] * l0 + mat2[1] * l1 + mat2[2] * l2
    py = pos2[1] + mat2[3] * l0 + mat2[4] * l1 + mat2[5] * l2
    pz = pos2[2] + mat2[6] * l0 + mat2[7] * l1 + mat2[8] * l2
    return _plane_point(pos1, n0, n1, n2, px, py, pz, 0.0, margin, dist, pos, frame, 0)


# ---------------------------------------------------------------------------------------------
# sphere (geom1) against sphere, capsule, cylinder, box
# ---------------------------------------------------------------------------------------------
@kernel
def sphere_sphere(pos1, mat1, size1, pos2, mat2, size2, margin, dist, pos, frame):
    """Sphere-sphere: one contact along the line of centers (max 1)."""
    return _sphere_point(pos1[0], pos1[1], pos1[2], size1[0], pos2[0], pos2[1], pos2[2],
                         size2[0], mat1, mat2, margin, dist, pos, frame, 0)


@kernel
def sphere_capsule(pos1, mat1, size1, pos2, mat2, size2, margin, dist, pos, frame):
    """Sphere-capsule: sphere against the closest point of the capsule's segment (max 1)."""
    a0, a1, a2 = _axis(mat2, 2)
    h = size2[1]
    t = (pos1[0] - pos2[0]) * a0 + (pos1[1] - pos2[1]) * a1 + (pos1[2] - pos2[2]) * a2
    t = min(max(t, -h), h)
    return _sphere_point(pos1[0], pos1[1], pos1[2], size1[0], pos2[0] + a0 * t,
                         pos2[1] + a1 * t, pos2[2] + a2 * t, size2[0], mat1, mat2, margin,
                         dist, pos, frame, 0)


@kernel
def sphere_cylinder(pos1, mat1, size1, pos2, mat2, size2, margin, dist, pos, frame):
    """Sphere-cylinder (max 1): against the side (closest axis point, radius R), a cap (flat
    face), or the rim edge, by where the sphere center lies in the cylinder frame."""
    r1 = size1[0]
    R, h = size2[0], size2[1]
    d0, d1, d2 = pos1[0] - pos2[0], pos1[1] - pos2[1], pos1[2] - pos2[2]
    # center in the cylinder frame
    x = mat2[0] * d0 + mat2[3] * d1 + mat2[6] * d2
    y = mat2[1] * d0 + mat2[4] * d1 + mat2[7] * d2
    z = mat2[2] * d0 + mat2[5] * d1 + mat2[8] * d2
    a0, a1, a2 = _axis(mat2, 2)
    rad2 = x * x + y * y
    rad = math.sqrt(rad2)
    side = rad2 >= R * R
    cap = abs(z) >= h
    if side and not cap:
        # sphere against the axis point at the same height, inflated by R
        return _sphere_point(pos1[0], pos1[1], pos1[2], r1, pos2[0] + a0 * z, pos2[1] + a1 * z,
                             pos2[2] + a2 * z, R, mat1, mat2, margin, dist, pos, frame, 0)
    if side and cap:
        # rim edge: closest point of the rim circle
        s = R / rad
        zz = h if z > 0 else -h
        lx, ly = x * s, y * s
        qx = pos2[0] + mat2[0] * lx + mat2[1] * ly + mat2[2] * zz
        qy = pos2[1] + mat2[3] * lx + mat2[4] * ly + mat2[5] * zz
        qz = pos2[2] + mat2[6] * lx + mat2[7] * ly + mat2[8] * zz
        return _sphere_point(pos1[0], pos1[1], pos1[2], r1, qx, qy, qz, 0.0, mat1, mat2, margin,
                             dist, pos, frame, 0)
    if cap:
        sg = 1.0 if z > 0 else -1.0
        d = abs(z) - h - r1
        nx, ny, nz = -sg * a0, -sg * a1, -sg * a2  # from the sphere into the cylinder
    else:
        # center inside the cylinder: leave through the nearest of side and cap
        pside = R - rad
        pcap = h - abs(z)
        if pside < pcap and rad > mjMINVAL:
            d = -pside - r1
            lx, ly = -x / rad, -y / rad
            nx = mat2[0] * lx + mat2[1] * ly
            ny = mat2[3] * lx + mat2[4] * ly
            nz = mat2[6] * lx + mat2[7] * ly
        else:
            sg = 1.0 if z > 0 else -1.0
            d = -pcap - r1
            nx, ny, nz = -sg * a0, -sg * a1, -sg * a2
    if d > margin:
        return 0
    s = r1 + 0.5 * d
    _emit(dist, pos, frame, 0, d, pos1[0] + nx * s, pos1[1] + ny * s, pos1[2] + nz * s,
          nx, ny, nz)
    return 1


@kernel
def sphere_box(pos1, mat1, size1, pos2, mat2, size2, margin, dist, pos, frame):
    """Sphere-box (max 1): the sphere against the box's closest point, or through its nearest
    face when the center is inside (box.sphere_box_at, shared with capsule-box)."""
    return sphere_box_at(pos1[0], pos1[1], pos1[2], size1[0], pos2, mat2, size2, margin,
                         dist, pos, frame, 0)


# ---------------------------------------------------------------------------------------------
# capsule (geom1) against capsule
# ---------------------------------------------------------------------------------------------
@kernel
def _clamp01(x):
    return 0.0 if x < 0.0 else (1.0 if x > 1.0 else x)


@kernel
def _weights_at(t, wa, s_start, s_end):
    """(weight on segment 1, weight on segment 2) for the weight t on segment 2: (wa, t) when t
    is in [0, 1], else segment 2's nearer end with the weight of segment 1's point closest to
    it (s_start for its start, s_end for its end, clamped to [0, 1])."""
    if t < 0.0:
        return _clamp01(s_start), 0.0
    if t > 1.0:
        return _clamp01(s_end), 1.0
    return wa, t


@kernel
def capsule_capsule(pos1, mat1, size1, pos2, mat2, size2, margin, dist, pos, frame):
    """Capsule-capsule: the closest points of the two segments as two spheres (max 2: for
    near-parallel segments, each end of segment 1 against segment 2).

    Arithmetic of mujoco 4.0.0 (libmujoco.so.4.0.0's mjraw_CapsuleCapsule and the segment
    weights it calls; no fused multiply-add): the segments run from endpoint A0 = p1 - h1 a to
    A1 = p1 + h1 a (B0, B1 likewise); the closest points are A0 + wa (A1 - A0) and
    B0 + wb (B1 - B0) for weights in [0, 1]; each pair of points is one sphere-sphere test."""
    h1, h2 = size1[1], size2[1]
    a0, a1, a2 = _axis(mat1, 2)
    b0, b1, b2 = _axis(mat2, 2)
    va0, va1, va2 = h1 * a0, h1 * a1, h1 * a2
    vb0, vb1, vb2 = h2 * b0, h2 * b1, h2 * b2
    # segment endpoints (start = center - half axis, end = half axis + center)
    p0x, p0y, p0z = pos1[0] - va0, pos1[1] - va1, pos1[2] - va2
    p1x, p1y, p1z = va0 + pos1[0], va1 + pos1[1], va2 + pos1[2]
    q0x, q0y, q0z = pos2[0] - vb0, pos2[1] - vb1, pos2[2] - vb2
    q1x, q1y, q1z = vb0 + pos2[0], vb1 + pos2[1], vb2 + pos2[2]
    # segment vectors (end - start: not 2 h a, bit for bit)
    ux, uy, uz = p1x - p0x, p1y - p0y, p1z - p0z
    vx, vy, vz = q1x - q0x, q1y - q0y, q1z - q0z
    uu = ux * ux + uy * uy + uz * uz
    vv = vx * vx + vy * vy + vz * vz
    # weights (wa, wb) of up to two point pairs
    n = 1
    wa, wb, wa2, wb2 = 0.0, 0.0, 0.0, 0.0
    if uu > mjMINVAL or vv > mjMINVAL:
        rx, ry, rz = p0x - q0x, p0y - q0y, p0z - q0z  # start 1 - start 2
        rv = rx * vx + ry * vy + rz * vz
        if uu <= mjMINVAL:  # segment 1 is a point
            wb = _clamp01(rv / vv)
        else:
            ur = ux * rx + uy * ry + uz * rz
            # weight on segment 1 of the point closest to start 2, and to end 2
            s_start = -ur / uu
            if vv <= mjMINVAL:  # segment 2 is a point
                wa = _clamp01(s_start)
            else:
                uv = ux * vx + uy * vy + uz * vz
                s_end = (uv - ur) / uu
                cx = uy * vz - uz * vy
                cy = uz * vx - ux * vz
                cz = ux * vy - uy * vx
                cc = cx * cx + cy * cy + cz * cz
                if cc > uu * 1e-8 * vv:
                    # skew: wa from the cross products, clamped; wb follows from wa; when wb
                    # leaves [0, 1] it is clamped and wa is recomputed from that end of 2
                    ex = rz * vy - ry * vz
                    ey = rx * vz - rz * vx
                    ez = ry * vx - rx * vy
                    wa = _clamp01((cx * ex + cy * ey + cz * ez) / cc)
                    wa, wb = _weights_at((uv * wa + rv) / vv, wa, s_start, s_end)
                else:
                    # (near) parallel: start 1 against segment 2, then end 1 against segment 2,
                    # falling back to segment 2's nearer end projected on segment 1
                    n = 2
                    wa, wb = _weights_at(rv / vv, 0.0, s_start, s_end)
                    wa2, wb2 = _weights_at((rv + uv) / vv, 1.0, s_start, s_end)
    k = 0
    for i in range(n):
        sa = wa if i == 0 else wa2
        sb = wb if i == 0 else wb2
        k += _sphere_point(sa * ux + p0x, sa * uy + p0y, sa * uz + p0z, size1[0],
                           sb * vx + q0x, sb * vy + q0y, sb * vz + q0z, size2[0], mat1, mat2,
                           margin, dist, pos, frame, k)
    return k


# ---------------------------------------------------------------------------------------------
# plane (geom1) against a mesh's convex hull, through the hull's polygons (merged coplanar faces)
# ---------------------------------------------------------------------------------------------
@kernel
def plane_mesh_poly(pos1, mat1, pos2, mat2, vert, hullvert, polyadr, polynum, polynormal,
                    polyvertadr, polyvertnum, polyvert, polymapadr, polymapnum, polymap,
                    margin, dist, pos, frame, sel):
    """Plane-mesh (max 4 contacts), using the hull's polygons (mjModel mesh_poly* fields).

    Rule found against mujoco 4.0.0 (seed 001 "Contacts" only says plane-mesh is analytic):
    the deepest hull vertex along -normal (first index on ties); of the polygons containing it
    (mesh_polymap), the one whose outward normal is most opposed to the plane normal; its
    vertices are the candidates: all of them when it has <= 4 vertices, else 4 picked by a local
    area search anchored at the deepest vertex (below). A candidate makes a contact when its
    distance to the plane is <= margin and it lies below the mesh frame origin along the plane
    normal (a vertex above the center never touches first, as for plane-box). Known gap: for
    polygons of more than 4 vertices mujoco's choice of the 4 still differs in ~4% of random
    poses (test_mesh_poly).

    vert: (nvert, 3) this mesh's vertices (mesh frame); hullvert: hull vertex ids (local), in
    mesh_graph's order (ties go to the first); empty when the model has no hull graph: then the
    vertices belonging to a polygon are scanned in index order;
    polyvert holds local vertex ids, polymap local polygon ids (offset by polyadr);
    polymapadr/polymapnum: this mesh's rows (indexed by local vertex id); sel: int scratch (>=4).
    """
    n0, n1, n2 = mat1[2], mat1[5], mat1[8]
    # -normal in the mesh frame (towards the plane)
    l0 = -(mat2[0] * n0 + mat2[3] * n1 + mat2[6] * n2)
    l1 = -(mat2[1] * n0 + mat2[4] * n1 + mat2[7] * n2)
    l2 = -(mat2[2] * n0 + mat2[5] * n1 + mat2[8] * n2)
    h0 = (pos2[0] - pos1[0]) * n0 + (pos2[1] - pos1[1]) * n1 + (pos2[2] - pos1[2]) * n2
    # deepest hull vertex: largest projection on -normal
    best = -1e300
    ib = -1
    nh = hullvert.shape[0]
    for j in range(nh if nh > 0 else vert.shape[0]):
        if nh > 0:
            i = hullvert[j]
        else:  # no hull graph (our compiler): the vertices of some polygon are the hull's
            i = j
            if polynum > 0 and polymapnum[i] == 0:
                continue
        s = vert[i, 0] * l0 + vert[i, 1] * l1 + vert[i, 2] * l2
        if s > best:
            best = s
            ib = i
    if ib < 0 or h0 - best > margin:
        return 0
    # polygon containing ib most opposed to the plane normal
    kb = -1
    ab = -1e300
    for t in range(polymapnum[ib]):
        k = polyadr + polymap[polymapadr[ib] + t]
        a = polynormal[k, 0] * l0 + polynormal[k, 1] * l1 + polynormal[k, 2] * l2
        if a > ab:
            ab = a
            kb = k
    if kb < 0:  # no polygon data: the deepest vertex alone
        return _plane_vertex(pos1, n0, n1, n2, pos2, mat2, vert, ib, margin, dist, pos, frame, 0)
    adr = polyvertadr[kb]
    nv = polyvertnum[kb]
    if nv <= 4:
        nsel = nv
        for t in range(nv):
            sel[t] = polyvert[adr + t]
    else:
        # 4 of the polygon's vertices, as mujoco 4.0.0 picks them (probed): the deepest vertex
        # a, then b, c, d from the three that follow it in polygon order, pushed forward (d,
        # then c, then b, as long as each step grows the quadrilateral's area) while pushing d
        # grows it; the same local search as nccd's pruning of a clipped polygon, anchored at a
        s = 0
        while polyvert[adr + s] != ib:
            s += 1
        b, c, d = 1, 2, 3
        m = _quad_area(vert, 0, 0, ib, polyvert[adr + (s + b) % nv],
                       polyvert[adr + (s + c) % nv], polyvert[adr + (s + d) % nv])
        while True:
            dn = (d + 1) % nv
            mn = _quad_area(vert, 0, 0, ib, polyvert[adr + (s + b) % nv],
                            polyvert[adr + (s + c) % nv], polyvert[adr + (s + dn) % nv])
            if mn <= m:
                break
            m, d = mn, dn
            while True:
                cn = (c + 1) % nv
                mn = _quad_area(vert, 0, 0, ib, polyvert[adr + (s + b) % nv],
                                polyvert[adr + (s + cn) % nv], polyvert[adr + (s + d) % nv])
                if mn <= m:
                    break
                m, c = mn, cn
            while True:
                bn = (b + 1) % nv
                mn = _quad_area(vert, 0, 0, ib, polyvert[adr + (s + bn) % nv],
                                polyvert[adr + (s + c) % nv], polyvert[adr + (s + d) % nv])
                if mn <= m:
                    break
                m, b = mn, bn
        sel[0] = ib
        sel[1] = polyvert[adr + (s + b) % nv]
        sel[2] = polyvert[adr + (s + c) % nv]
        sel[3] = polyvert[adr + (s + d) % nv]
        nsel = 4
    k = 0
    for t in range(nsel):
        i = sel[t]
        dup = False
        for u in range(t):
            if sel[u] == i:
                dup = True
        if dup:
            continue
        # below the mesh center along the plane normal
        if vert[i, 0] * l0 + vert[i, 1] * l1 + vert[i, 2] * l2 <= 0:
            continue
        k += _plane_vertex(pos1, n0, n1, n2, pos2, mat2, vert, i, margin, dist, pos, frame, k)
    return k


@kernel
def _plane_vertex(pos1, n0, n1, n2, pos2, mat2, vert, i, margin, dist, pos, frame, k):
    x, y, z = vert[i, 0], vert[i, 1], vert[i, 2]
    px = pos2[0] + mat2[0] * x + mat2[1] * y + mat2[2] * z
    py = pos2[1] + mat2[3] * x + mat2[4] * y + mat2[5] * z
    pz = pos2[2] + mat2[6] * x + mat2[7] * y + mat2[8] * z
    return _plane_point(pos1, n0, n1, n2, px, py, pz, 0.0, margin, dist, pos, frame, k)
