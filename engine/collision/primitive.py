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

from numba import njit

from .._access import KERNEL as _J, kernel
from .box import sphere_box_at
from .convex import _quad_area
mjMINVAL = 1e-15


@njit(inline="always", **_J)
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

    Coincident centers (e.g. two capsule segments that cross): the normal is the cross product
    of the two geoms' z axes (rows of ``mat1``, ``mat2``), or +x when those are parallel, as
    MuJoCo's sphere-sphere chooses (checked against mujoco 4.0.0 on dm_control's manipulator)."""
    dx, dy, dz = qx - cx, qy - cy, qz - cz
    ln = math.sqrt(dx * dx + dy * dy + dz * dz)
    d = ln - r1 - r2
    if d > margin:
        return 0
    if ln < mjMINVAL:
        a0, a1, a2 = _axis(mat1, 2)
        b0, b1, b2 = _axis(mat2, 2)
        nx, ny, nz = a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0
        ln = math.sqrt(nx * nx + ny * ny + nz * nz)
        if ln < mjMINVAL:
            nx, ny, nz = 1.0, 0.0, 0.0
        else:
            nx, ny, nz = nx / ln, ny / ln, nz / ln
    else:
        nx, ny, nz = dx / ln, dy / ln, dz / ln
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
def _segment_point(p0, p1, p2, a0, a1, a2, h, qx, qy, qz):
    """Parameter in [-h, h] of the point of segment p + t a closest to q."""
    t = (qx - p0) * a0 + (qy - p1) * a1 + (qz - p2) * a2
    return min(max(t, -h), h)


@kernel
def capsule_capsule(pos1, mat1, size1, pos2, mat2, size2, margin, dist, pos, frame):
    """Capsule-capsule: the closest points of the two segments as two spheres (max 2: for
    parallel segments whose projections overlap, both ends of the overlap)."""
    a0, a1, a2 = _axis(mat1, 2)
    b0, b1, b2 = _axis(mat2, 2)
    h1, h2 = size1[1], size2[1]
    r1, r2 = size1[0], size2[0]
    # minimize |p1 + s a - p2 - t b|^2 over s in [-h1,h1], t in [-h2,h2]
    w0, w1, w2 = pos1[0] - pos2[0], pos1[1] - pos2[1], pos1[2] - pos2[2]
    ab = a0 * b0 + a1 * b1 + a2 * b2
    aw = a0 * w0 + a1 * w1 + a2 * w2
    bw = b0 * w0 + b1 * w1 + b2 * w2
    det = 1.0 - ab * ab
    # parallel test on the determinant of the unnormalised (half-length scaled) axes
    if det * h1 * h1 * h2 * h2 < mjMINVAL:
        # parallel: where the projections of the segments overlap, a contact at each end of
        # the overlap, all with the normal and distance of the two lines
        sa = -aw + ab * h2
        sb = -aw - ab * h2
        lo = max(-h1, min(sa, sb))
        hi = min(h1, max(sa, sb))
        if lo <= hi:
            # offset from line 1 to line 2, perpendicular to the axis
            o0, o1, o2 = -w0 + a0 * aw, -w1 + a1 * aw, -w2 + a2 * aw
            k = 0
            for s in (lo, hi):
                cx, cy, cz = pos1[0] + a0 * s, pos1[1] + a1 * s, pos1[2] + a2 * s
                k += _sphere_point(cx, cy, cz, r1, cx + o0, cy + o1, cz + o2, r2, mat1, mat2,
                                   margin, dist, pos, frame, k)
            return k
        # disjoint projections: the nearest ends, reported twice as for an overlap of length 0
        s = h1 if min(sa, sb) > h1 else -h1
        cx, cy, cz = pos1[0] + a0 * s, pos1[1] + a1 * s, pos1[2] + a2 * s
        t = _segment_point(pos2[0], pos2[1], pos2[2], b0, b1, b2, h2, cx, cy, cz)
        k = 0
        for _ in range(2):
            k += _sphere_point(cx, cy, cz, r1, pos2[0] + b0 * t, pos2[1] + b1 * t,
                               pos2[2] + b2 * t, r2, mat1, mat2, margin, dist, pos, frame, k)
        return k
    s = (ab * bw - aw) / det
    t = (bw - ab * aw) / det
    s = min(max(s, -h1), h1)
    t = ab * s + bw
    if t < -h2 or t > h2:
        t = min(max(t, -h2), h2)
        s = min(max(ab * t - aw, -h1), h1)
    return _sphere_point(pos1[0] + a0 * s, pos1[1] + a1 * s, pos1[2] + a2 * s, r1,
                         pos2[0] + b0 * t, pos2[1] + b1 * t, pos2[2] + b2 * t, r2, mat1, mat2,
                         margin, dist, pos, frame, 0)


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
