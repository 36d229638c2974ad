"""Flex collisions: contacts of flex vertices and elements with geoms, with other flexes and
within a flex (seed 000 <flex><contact> contype / conaffinity / condim / priority / friction /
solmix / solref / solimp / margin / gap / selfcollide / activelayers; <flex> radius; seed 001
"Deformable objects" and "Contacts"; MuJoCo 4.0.0's mj_collision: mj_collidePlaneFlex,
mj_collideGeomElem, mj_collideElems).

What collides (MuJoCo's bodyflex pairs):
- a body's geoms against a flex, when the bitmasks of the body (body_contype/conaffinity: the OR
  of its geoms') and of the flex match, then per geom (geom_contype/conaffinity vs the flex's):
  * a plane against every flex vertex, a sphere of the flex radius: contact while the vertex is
    within margin + gap + radius of the plane, dist = height - radius, normal = the plane's z,
    pos halfway into the overlap; ids (geom, vert);
  * any other geom against each element (only the active layers of a dim-3 flex: MuJoCo's flex
    bounding-volume hierarchy holds those), skipped when an element vertex is on the geom's
    body: dim 1 elements are capsules (radius = flex radius, between the two vertices) for the
    sphere / capsule / box primitives; sphere against a dim 2 triangle (with radius) as
    mjraw_SphereTriangle; ids (geom, elem);
- two flexes: every element pair whose boxes overlap within margin + gap, skipped when they share
  a vertex body (dim 1: capsule-capsule);
- a flex with itself (non-rigid, contype & conaffinity, selfcollide != none): every pair of
  active elements, with margin and gap 0 (dim 1: capsule-capsule).
All contacts are kept: mujoco 4.0.0 does not thin a bodyflex pair's contacts to mjMAXCONPAIR
(measured: 81 plane-vertex contacts of one plane and one flex in model/flex/pinch.xml).

Not built (fw_status STATUS_FLEX, raised as NotImplementedError by the caller when a pair needs
it): the convex element collider (mjc_ConvexElem: dim 3 elements, and dim 2 elements against
capsule, box, ellipsoid, cylinder, mesh), height field-element, SDF-flex, and touching
triangle-triangle and tetrahedron pairs.

Sleep: once a tree sleeps, a flex whose vertex trees all sleep is asleep (flex_sleep_state): its
pairs with world geoms and static planes and its self-collisions are skipped, and its pairs with
other bodies and flexes when neither side is awake (MuJoCo's broadphase rules).

Contacts are staged as the geom contacts are (engine/collision/__init__.py) with the sort key
(body, nbody + flex, 2, geom, elem or vert): after the geom contacts of lower body pairs, as
MuJoCo's bodyflex pairs come sorted by signature, and in the (geom, elem/vert) order its
midphase path sorts them in; flex-flex pairs key (nbody + f1, nbody + f2), self-collisions
(nbody + nflex + f, ...) after everything. col_flex holds each staged contact's
(flex0, flex1, elem0, elem1, vert0, vert1).
"""
from __future__ import annotations

import math

from .. import math as mm
from .._access import f1, f2, i1, i2, is_, fs, u1
from .._jit import kernel
from .._layout import DF, MF
from .. import sleep
from . import narrowphase as npx
from . import nccd
from .box import capsule_box
from .mixing import apply_override, mix_params
from .primitive import capsule_capsule, sphere_capsule

from ..enums import mjMINVAL, mjENBL_OVERRIDE as ENBL_OVERRIDE  # noqa: E402
STATUS_FLEX = 24    # fw_status[1]: geom type (-1: element pair), [2], [3]: the flex dims
from ..enums import mjFLEXSELF_NONE as SELF_NONE  # noqa: E402
KIND_FLEX = 2


@kernel
def _fail(D, gtype, dim1, dim2):
    st = i1(D, DF.fw_status)
    st[0] = STATUS_FLEX
    st[1] = gtype
    st[2] = dim1
    st[3] = dim2
    return -1


@kernel
def _stage(D, ncon, need, n, b1, b2, ka, kb, g, fl0, fl1, e0, e1, v0, v1, flip):
    """Copy the n contacts of col_t* into the staging rows with their sort key and flex ids;
    ``flip`` reverses the normals (a box given second to the capsule-box primitive)."""
    tdist = f1(D, DF.col_tdist)
    tpos = f2(D, DF.col_tpos)
    tframe = f2(D, DF.col_tframe)
    cdist = f1(D, DF.col_dist)
    cpos = f2(D, DF.col_pos)
    cframe = f2(D, DF.col_frame)
    info = i2(D, DF.col_info)
    cflex = i2(D, DF.col_flex)
    cap = cdist.shape[0]
    for k in range(n):
        need += 1
        if ncon >= cap:
            continue
        cdist[ncon] = tdist[k]
        s = -1.0 if flip else 1.0
        for j in range(3):
            cpos[ncon, j] = tpos[k, j]
            cframe[ncon, j] = s * tframe[k, j]
        for j in range(3, 9):
            cframe[ncon, j] = 0.0
        key = (b1, b2, KIND_FLEX, ka, kb, g, -1, -1)
        for j in range(8):
            info[ncon, j] = key[j]
        ids = (fl0, fl1, e0, e1, v0, v1)
        for j in range(6):
            cflex[ncon, j] = ids[j]
        ncon += 1
    return ncon, need


@kernel
def _capsule(vx, a, b, radius):
    """MuJoCo's mj_makeCapsule of flex vertices a, b: (pos, mat, size) with the segment along
    the capsule's z axis, half length |a - b| / 2, radius the flex radius."""
    pa = (vx[a, 0], vx[a, 1], vx[a, 2])
    pb = (vx[b, 0], vx[b, 1], vx[b, 2])
    dif, ln = mm.normalize3(mm.sub3(pa, pb))
    pos = mm.scl3(mm.add3(pa, pb), 0.5)
    # mju_quatZ2Vec normalizes its (already unit) argument again: the same bits as MuJoCo
    vn, n = mm.normalize3(dif)
    mat = mm.quat2mat(mm.quat_z2vec(vn, n))
    return pos, mat, (radius, 0.5 * ln, 0.0)


@kernel
def _area_sign(p1x, p1y, p2x, p2y, p3x, p3y):
    v = (p1x - p3x) * (p2y - p3y) - (p2x - p3x) * (p1y - p3y)
    return 1.0 if v > 0 else (-1.0 if v < 0 else 0.0)


@kernel
def _point_segment(px, py, ux, uy, vx, vy):
    """Nearest point of segment (u, v) to p in the plane, and its distance."""
    ax, ay = vx - ux, vy - uy
    a = (ax * (px - ux) + ay * (py - uy)) / max(mjMINVAL, ax * ax + ay * ay)
    if a <= 0:
        rx, ry = ux, uy
    elif a >= 1:
        rx, ry = vx, vy
    else:
        rx, ry = ux + ax * a, uy + ay * a
    return rx, ry, math.sqrt((rx - px) * (rx - px) + (ry - py) * (ry - py))


@kernel
def sphere_triangle(s, rs, t1, t2, t3, rt, margin, dist, pos, frame):
    """Sphere (centre s, radius rs) against a triangle t1 t2 t3 thickened by rt (MuJoCo's
    mjraw_SphereTriangle): the nearest point of the triangle to the centre (its projection when
    inside, else the nearest edge point, found in 2-D coordinates of the triangle plane); one
    contact while the distance is within margin + rs + rt, normal from the sphere to the
    triangle. Returns 0 or 1 (row 0 of dist, pos, frame)."""
    rbound = margin + rs + rt
    S = mm.sub3(s, t1)
    A = mm.sub3(t2, t1)
    B = mm.sub3(t3, t1)
    N, _ = mm.normalize3(mm.cross3(A, B))
    dst_s = mm.dot3(N, S)
    if abs(dst_s) > rbound:
        return 0
    P = mm.add_scl3(S, N, -dst_s)
    V1, lena = mm.normalize3(A)
    V2, _ = mm.normalize3(mm.cross3(N, A))
    bx, by = mm.dot3(V1, B), mm.dot3(V2, B)
    px, py = mm.dot3(V1, P), mm.dot3(V2, P)
    s1 = _area_sign(px, py, 0.0, 0.0, lena, 0.0)
    s2 = _area_sign(px, py, lena, 0.0, bx, by)
    s3 = _area_sign(px, py, bx, by, 0.0, 0.0)
    if s1 == s2 and s2 == s3:
        X = P
    else:
        x0, y0, d0 = _point_segment(px, py, 0.0, 0.0, lena, 0.0)
        x1, y1, d1 = _point_segment(px, py, lena, 0.0, bx, by)
        x2, y2, d2 = _point_segment(px, py, bx, by, 0.0, 0.0)
        if d0 < d1 and d0 < d2:
            xb, yb = x0, y0
        elif d1 < d2:
            xb, yb = x1, y1
        else:
            xb, yb = x2, y2
        X = mm.add_scl3(mm.scl3(V1, xb), V2, yb)
    nrm, dst = mm.normalize3(mm.sub3(X, S))
    if dst > rbound:
        return 0
    d = dst - rs - rt
    p = mm.add_scl3(s, nrm, rs + d / 2)
    dist[0] = d
    for j in range(3):
        pos[0, j] = p[j]
        frame[0, j] = nrm[j]
    for j in range(3, 9):
        frame[0, j] = 0.0
    return 1


@kernel
def triangle_closest(p, a, b, c):
    """Barycentric weights (wa, wb, wc) of the point of triangle abc closest to p (Voronoi
    regions of the vertices, edges and face; Ericson, Real-Time Collision Detection 5.1.5)."""
    ab, ac, ap = mm.sub3(b, a), mm.sub3(c, a), mm.sub3(p, a)
    d1, d2 = mm.dot3(ab, ap), mm.dot3(ac, ap)
    if d1 <= 0 and d2 <= 0:
        return 1.0, 0.0, 0.0
    bp = mm.sub3(p, b)
    d3, d4 = mm.dot3(ab, bp), mm.dot3(ac, bp)
    if d3 >= 0 and d4 <= d3:
        return 0.0, 1.0, 0.0
    vc = d1 * d4 - d3 * d2
    if vc <= 0 and d1 >= 0 and d3 <= 0:
        v = d1 / (d1 - d3)
        return 1.0 - v, v, 0.0
    cp = mm.sub3(p, c)
    d5, d6 = mm.dot3(ab, cp), mm.dot3(ac, cp)
    if d6 >= 0 and d5 <= d6:
        return 0.0, 0.0, 1.0
    vb = d5 * d2 - d1 * d6
    if vb <= 0 and d2 >= 0 and d6 <= 0:
        w = d2 / (d2 - d6)
        return 1.0 - w, 0.0, w
    va = d3 * d6 - d5 * d4
    if va <= 0 and (d4 - d3) >= 0 and (d5 - d6) >= 0:
        w = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        return 0.0, 1.0 - w, w
    den = 1.0 / (va + vb + vc)
    v, w = vb * den, vc * den
    return 1.0 - v - w, v, w


@kernel
def _point_tri_dist2(p, a, b, c):
    """Squared distance from point p to triangle abc."""
    wa, wb, wc = triangle_closest(p, a, b, c)
    q = mm.add3(mm.scl3(a, wa), mm.add3(mm.scl3(b, wb), mm.scl3(c, wc)))
    d = mm.sub3(p, q)
    return mm.dot3(d, d)


@kernel
def _seg_seg_dist2(p1, q1, p2, q2):
    """Squared distance between segments p1q1 and p2q2 (clamped closest parameters)."""
    d1, d2, r = mm.sub3(q1, p1), mm.sub3(q2, p2), mm.sub3(p1, p2)
    a, e, f = mm.dot3(d1, d1), mm.dot3(d2, d2), mm.dot3(d2, r)
    if a <= mjMINVAL and e <= mjMINVAL:
        return mm.dot3(r, r)
    if a <= mjMINVAL:
        s, t = 0.0, min(max(f / e, 0.0), 1.0)
    else:
        c = mm.dot3(d1, r)
        if e <= mjMINVAL:
            t, s = 0.0, min(max(-c / a, 0.0), 1.0)
        else:
            b = mm.dot3(d1, d2)
            den = a * e - b * b
            s = min(max((b * f - c * e) / den, 0.0), 1.0) if den > mjMINVAL else 0.0
            t = (b * s + f) / e
            if t < 0:
                t, s = 0.0, min(max(-c / a, 0.0), 1.0)
            elif t > 1:
                t, s = 1.0, min(max((b - c) / a, 0.0), 1.0)
    d = mm.sub3(mm.add_scl3(p1, d1, s), mm.add_scl3(p2, d2, t))
    return mm.dot3(d, d)


@kernel
def _seg_crosses_tri(p, q, a, b, c):
    """Whether segment pq passes through triangle abc (a crossing of its plane inside it)."""
    n = mm.cross3(mm.sub3(b, a), mm.sub3(c, a))
    dp, dq = mm.dot3(n, mm.sub3(p, a)), mm.dot3(n, mm.sub3(q, a))
    if (dp > 0 and dq > 0) or (dp < 0 and dq < 0) or dp == dq:
        return False
    x = mm.add_scl3(p, mm.sub3(q, p), dp / (dp - dq))
    s1 = mm.dot3(n, mm.cross3(mm.sub3(b, a), mm.sub3(x, a)))
    s2 = mm.dot3(n, mm.cross3(mm.sub3(c, b), mm.sub3(x, b)))
    s3 = mm.dot3(n, mm.cross3(mm.sub3(a, c), mm.sub3(x, c)))
    return (s1 >= 0 and s2 >= 0 and s3 >= 0) or (s1 <= 0 and s2 <= 0 and s3 <= 0)


@kernel
def _v(vx, i):
    return (vx[i, 0], vx[i, 1], vx[i, 2])


@kernel
def triangles_apart(vx, a0, a1, a2, b0, b1, b2, thr):
    """Whether triangles (a0 a1 a2) and (b0 b1 b2) (vertex rows of vx) are farther apart than
    thr: the closest points of two disjoint triangles are a vertex and a face or two edges, and
    two triangles that meet have an edge of one through the other. A conservative pre-test
    (exact up to rounding) before the element collider, which is not built."""
    A = (_v(vx, a0), _v(vx, a1), _v(vx, a2))
    B = (_v(vx, b0), _v(vx, b1), _v(vx, b2))
    t2 = thr * thr
    for i in range(3):
        if _point_tri_dist2(A[i], B[0], B[1], B[2]) <= t2:
            return False
        if _point_tri_dist2(B[i], A[0], A[1], A[2]) <= t2:
            return False
        for j in range(3):
            if _seg_seg_dist2(A[i], A[(i + 1) % 3], B[j], B[(j + 1) % 3]) <= t2:
                return False
        if _seg_crosses_tri(A[i], A[(i + 1) % 3], B[0], B[1], B[2]):
            return False
        if _seg_crosses_tri(B[i], B[(i + 1) % 3], A[0], A[1], A[2]):
            return False
    return True


@kernel
def _sphere_box_apart(c, r, aabb):
    """MuJoCo's filterSphereBox: the sphere's box misses the element's (centre, half size)."""
    for j in range(3):
        if c[j] + r < aabb[j] - aabb[3 + j] or c[j] - r > aabb[j] + aabb[3 + j]:
            return True
    return False


@kernel
def _boxes_apart(a, b, margin):
    """MuJoCo's filterBox of two (centre, half size) boxes grown by margin."""
    for j in range(3):
        if a[j] + a[3 + j] + margin < b[j] - b[3 + j]:
            return True
        if b[j] + b[3 + j] + margin < a[j] - a[3 + j]:
            return True
    return False


@kernel
def elem_active(M, f, e):
    """mj_isElemActive: dim < 3, or the element's layer below flex_activelayers."""
    if i1(M, MF.flex_dim)[f] < 3:
        return True
    return i1(M, MF.flex_elemlayer)[i1(M, MF.flex_elemadr)[f] + e] < \
        i1(M, MF.flex_activelayers)[f]


@kernel
def _margin(M, m):
    """mj_assignMargin: opt.o_margin under the override flag."""
    if is_(M, MF.opt_enableflags) & ENBL_OVERRIDE:
        return fs(M, MF.opt_o_margin)
    return m


@kernel
def _plane_flex(M, D, g, f, b, nbody, ncon, need):
    """mj_collidePlaneFlex: every vertex of flex f against plane geom g."""
    radius = f1(M, MF.flex_radius)[f]
    gp = f2(D, DF.geom_xpos)[g]
    gm = f2(D, DF.geom_xmat)[g]
    n0, n1, n2 = gm[2], gm[5], gm[8]
    thr = _margin(M, f1(M, MF.geom_margin)[g] + f1(M, MF.flex_margin)[f]) + \
        f1(M, MF.geom_gap)[g] + f1(M, MF.flex_gap)[f] + radius
    va = i1(M, MF.flex_vertadr)[f]
    vx = f2(D, DF.flexvert_xpos)
    tdist = f1(D, DF.col_tdist)
    tpos = f2(D, DF.col_tpos)
    tframe = f2(D, DF.col_tframe)
    for i in range(i1(M, MF.flex_vertnum)[f]):
        v = vx[va + i]
        dist = (v[0] - gp[0]) * n0 + (v[1] - gp[1]) * n1 + (v[2] - gp[2]) * n2
        if dist > thr:
            continue
        d = dist - radius
        s = -d * 0.5 - radius
        tdist[0] = d
        tpos[0, 0] = v[0] + n0 * s
        tpos[0, 1] = v[1] + n1 * s
        tpos[0, 2] = v[2] + n2 * s
        tframe[0, 0] = n0
        tframe[0, 1] = n1
        tframe[0, 2] = n2
        ncon, need = _stage(D, ncon, need, 1, b, nbody + f, g, i, g, -1, f, -1, -1, -1, i,
                            False)
    return ncon, need


@kernel
def _geom_elem(M, D, g, f, e, b, nbody, ncon, need):
    """mj_collideGeomElem: geom g (not a plane) against element e of flex f; (ncon, need, code)."""
    dim = i1(M, MF.flex_dim)[f]
    gtype = i1(M, MF.geom_type)[g]
    thr = _margin(M, f1(M, MF.geom_margin)[g] + f1(M, MF.flex_margin)[f]) + \
        f1(M, MF.geom_gap)[g] + f1(M, MF.flex_gap)[f]
    gp = f2(D, DF.geom_xpos)[g]
    if _sphere_box_apart(gp, f1(M, MF.geom_rbound)[g] + thr,
                         f2(D, DF.flexelem_aabb)[i1(M, MF.flex_elemadr)[f] + e]):
        return ncon, need, 0
    gb = i1(M, MF.geom_bodyid)[g]
    ed = i1(M, MF.flex_elemdataadr)[f] + e * (dim + 1)
    elem = i1(M, MF.flex_elem)
    va = i1(M, MF.flex_vertadr)[f]
    vbody = i1(M, MF.flex_vertbodyid)
    for i in range(dim + 1):
        if gb >= 0 and gb == vbody[va + elem[ed + i]]:
            return ncon, need, 0
    gm = f2(D, DF.geom_xmat)[g]
    size = f2(M, MF.geom_size)[g]
    vx = f2(D, DF.flexvert_xpos)
    radius = f1(M, MF.flex_radius)[f]
    tdist = f1(D, DF.col_tdist)
    tpos = f2(D, DF.col_tpos)
    tframe = f2(D, DF.col_tframe)
    flip = False
    if dim == 1 and (gtype == npx.SPHERE or gtype == npx.CAPSULE or gtype == npx.BOX):
        cp, cm, cs = _capsule(vx, va + elem[ed], va + elem[ed + 1], radius)
        if gtype == npx.SPHERE:
            n = sphere_capsule(gp, gm, size, cp, cm, cs, thr, tdist, tpos, tframe)
        elif gtype == npx.CAPSULE:
            n = capsule_capsule(gp, gm, size, cp, cm, cs, thr, tdist, tpos, tframe)
        else:
            n = capsule_box(cp, cm, cs, gp, gm, size, thr, tdist, tpos, tframe)
            flip = True
    elif dim == 1 and gtype != npx.HFIELD and gtype != npx.SDF:
        # MuJoCo's convex element collider (not built): a capsule element farther than the
        # detection distance from the geom (GJK distance, nccd) has no contact
        cp, cm, cs = _capsule(vx, va + elem[ed], va + elem[ed + 1], radius)
        found = nccd.ccd_distance(
            i1(M, MF.mesh_vertadr), i1(M, MF.mesh_vertnum), f2(M, MF.mesh_vert),
            i1(M, MF.mesh_graphadr), i1(M, MF.mesh_graph), i2(M, MF.mesh_extrema),
            npx.CAPSULE, 0, cs, cp, cm, gtype, i1(M, MF.geom_dataid)[g], size, gp, gm, thr,
            fs(M, MF.opt_ccd_tolerance), is_(M, MF.opt_ccd_iterations), f2(D, DF.ccd_work),
            i2(D, DF.ccd_iwork))[0]
        if found == 0:
            return ncon, need, 0
        return ncon, need, _fail(D, gtype, dim, 0)
    elif dim == 2 and gtype == npx.SPHERE:
        n = sphere_triangle(gp, size[0], vx[va + elem[ed]], vx[va + elem[ed + 1]],
                            vx[va + elem[ed + 2]], radius, thr, tdist, tpos, tframe)
    else:
        return ncon, need, _fail(D, gtype, dim, 0)
    ncon, need = _stage(D, ncon, need, n, b, nbody + f, g, e, g, -1, f, -1, e, -1, -1, flip)
    return ncon, need, 0


@kernel
def _elems(M, D, f1_, e1, f2_, e2, b1, b2, ncon, need):
    """mj_collideElems: element e1 of flex f1_ against e2 of f2_ (margin, gap 0 within a flex);
    (ncon, need, code)."""
    dim = i1(M, MF.flex_dim)
    d1, d2 = dim[f1_], dim[f2_]
    fmargin = f1(M, MF.flex_margin)
    fgap = f1(M, MF.flex_gap)
    thr = 0.0
    if f1_ != f2_:
        thr = _margin(M, fmargin[f1_] + fmargin[f2_]) + fgap[f1_] + fgap[f2_]
    elemadr = i1(M, MF.flex_elemadr)
    aabb = f2(D, DF.flexelem_aabb)
    if _boxes_apart(aabb[elemadr[f1_] + e1], aabb[elemadr[f2_] + e2], thr):
        return ncon, need, 0
    elem = i1(M, MF.flex_elem)
    eda = i1(M, MF.flex_elemdataadr)
    vadr = i1(M, MF.flex_vertadr)
    vbody = i1(M, MF.flex_vertbodyid)
    ed1 = eda[f1_] + e1 * (d1 + 1)
    ed2 = eda[f2_] + e2 * (d2 + 1)
    for i in range(d1 + 1):
        bb = vbody[vadr[f1_] + elem[ed1 + i]]
        for j in range(d2 + 1):
            if bb >= 0 and bb == vbody[vadr[f2_] + elem[ed2 + j]]:
                return ncon, need, 0
    vx = f2(D, DF.flexvert_xpos)
    radius = f1(M, MF.flex_radius)
    if d1 == 2 and d2 == 2:
        # separated triangles give no contact; touching ones need the element collider
        if triangles_apart(vx, vadr[f1_] + elem[ed1], vadr[f1_] + elem[ed1 + 1],
                           vadr[f1_] + elem[ed1 + 2], vadr[f2_] + elem[ed2],
                           vadr[f2_] + elem[ed2 + 1], vadr[f2_] + elem[ed2 + 2],
                           thr + radius[f1_] + radius[f2_]):
            return ncon, need, 0
        return ncon, need, _fail(D, -1, d1, d2)
    if d1 != 1 or d2 != 1:
        return ncon, need, _fail(D, -1, d1, d2)
    p1, m1, s1 = _capsule(vx, vadr[f1_] + elem[ed1], vadr[f1_] + elem[ed1 + 1], radius[f1_])
    p2, m2, s2 = _capsule(vx, vadr[f2_] + elem[ed2], vadr[f2_] + elem[ed2 + 1], radius[f2_])
    n = capsule_capsule(p1, m1, s1, p2, m2, s2, thr, f1(D, DF.col_tdist), f2(D, DF.col_tpos),
                        f2(D, DF.col_tframe))
    ncon, need = _stage(D, ncon, need, n, b1, b2, 0, 0, -1, f1_, f2_, e1, e2, -1, -1, False)
    return ncon, need, 0


@kernel
def flex_sleep_state(M, D, f):
    """A flex's sleep state (as MuJoCo's mj_sleepState of a flex): awake when a tree of its
    vertex bodies is awake, static when they have no tree, else asleep."""
    treeid = i1(M, MF.body_treeid)
    tree_awake = i1(D, DF.tree_awake)
    vbody = i1(M, MF.flex_vertbodyid)
    va = i1(M, MF.flex_vertadr)[f]
    state = sleep.S_STATIC
    for i in range(va, va + i1(M, MF.flex_vertnum)[f]):
        t = treeid[vbody[i]]
        if t >= 0:
            if tree_awake[t]:
                return sleep.S_AWAKE
            state = sleep.S_ASLEEP
    return state


@kernel
def _has_plane(M, b):
    gt = i1(M, MF.geom_type)
    a = i1(M, MF.body_geomadr)[b]
    for g in range(a, a + i1(M, MF.body_geomnum)[b]):
        if gt[g] == npx.PLANE:
            return True
    return False


@kernel
def _mask_match(t1, a1, t2, a2):
    """Not MuJoCo's filterBitmask: whether the two objects' bitmasks let them collide."""
    return (t1 & a2) != 0 or (t2 & a1) != 0


@kernel
def flex_collide(M, D, ncon, need):
    """Every flex contact (see the module docstring) into the staging rows after ncon;
    returns (ncon, need, code), code < 0 when a pair needs a routine not built (fw_status)."""
    fct = i1(M, MF.flex_contype)
    fca = i1(M, MF.flex_conaffinity)
    nflex = fct.shape[0]
    gtype = i1(M, MF.geom_type)
    gct = i1(M, MF.geom_contype)
    gca = i1(M, MF.geom_conaffinity)
    bct = i1(M, MF.body_contype)
    bca = i1(M, MF.body_conaffinity)
    geomadr = i1(M, MF.body_geomadr)
    geomnum = i1(M, MF.body_geomnum)
    nbody = bct.shape[0]
    elemnum = i1(M, MF.flex_elemnum)
    elemadr = i1(M, MF.flex_elemadr)
    aabb = f2(D, DF.flexelem_aabb)
    rbound = f1(M, MF.geom_rbound)
    gmargin = f1(M, MF.geom_margin)
    ggap = f1(M, MF.geom_gap)
    fmargin = f1(M, MF.flex_margin)
    fgap = f1(M, MF.flex_gap)
    gxpos = f2(D, DF.geom_xpos)
    filtering = sleep.filtering(M, D)
    body_awake = i1(D, DF.body_awake)
    treeid = i1(M, MF.body_treeid)
    weldid = i1(M, MF.body_weldid)
    # ---- body : flex
    for b in range(nbody):
        if geomnum[b] == 0 or (bct[b] == 0 and bca[b] == 0):
            continue
        for f in range(nflex):
            if (fct[f] == 0 and fca[f] == 0) or not _mask_match(bct[b], bca[b], fct[f], fca[f]):
                continue
            if filtering:
                fs_ = flex_sleep_state(M, D, f)
                if b == 0 or (weldid[b] == 0 and _has_plane(M, b)):
                    # MuJoCo's always-tested pairs (world geoms, static planes): unless asleep
                    if fs_ == sleep.S_ASLEEP:
                        continue
                elif fs_ != sleep.S_AWAKE and not (body_awake[b] == sleep.S_AWAKE
                                                   and treeid[b] >= 0):
                    continue
            for g in range(geomadr[b], geomadr[b] + geomnum[b]):
                if not _mask_match(gct[g], gca[g], fct[f], fca[f]):
                    continue
                if gtype[g] == npx.PLANE:
                    ncon, need = _plane_flex(M, D, g, f, b, nbody, ncon, need)
                elif gtype[g] == npx.SDF or gtype[g] == npx.HFIELD:
                    return ncon, need, _fail(D, gtype[g], i1(M, MF.flex_dim)[f], 0)
            for g in range(geomadr[b], geomadr[b] + geomnum[b]):
                if gtype[g] == npx.PLANE or not _mask_match(gct[g], gca[g], fct[f], fca[f]):
                    continue
                # the bounding test here, before the element's call (most elements fail it)
                reach = rbound[g] + _margin(M, gmargin[g] + fmargin[f]) + ggap[g] + fgap[f]
                for e in range(elemnum[f]):
                    if _sphere_box_apart(gxpos[g], reach, aabb[elemadr[f] + e]):
                        continue
                    if not elem_active(M, f, e):
                        continue
                    ncon, need, code = _geom_elem(M, D, g, f, e, b, nbody, ncon, need)
                    if code < 0:
                        return ncon, need, code
    # ---- flex : flex
    for fa in range(nflex):
        for fb in range(fa + 1, nflex):
            if not _mask_match(fct[fa], fca[fa], fct[fb], fca[fb]):
                continue
            if filtering and flex_sleep_state(M, D, fa) != sleep.S_AWAKE and \
                    flex_sleep_state(M, D, fb) != sleep.S_AWAKE:
                continue
            for e1 in range(elemnum[fa]):
                for e2 in range(elemnum[fb]):
                    ncon, need, code = _elems(M, D, fa, e1, fb, e2, nbody + fa, nbody + fb,
                                              ncon, need)
                    if code < 0:
                        return ncon, need, code
    # ---- self-collisions: after everything else (MuJoCo runs them last)
    rigid = u1(M, MF.flex_rigid)
    selfc = i1(M, MF.flex_selfcollide)
    for f in range(nflex):
        if rigid[f] or (fct[f] & fca[f]) == 0 or selfc[f] == SELF_NONE:
            continue
        if filtering and flex_sleep_state(M, D, f) == sleep.S_ASLEEP:
            continue
        key = nbody + nflex + f
        for e1 in range(elemnum[f]):
            if not elem_active(M, f, e1):
                continue
            for e2 in range(e1 + 1, elemnum[f]):
                # margin and gap are 0 within a flex: the boxes as they are
                if _boxes_apart(aabb[elemadr[f] + e1], aabb[elemadr[f] + e2], 0.0):
                    continue
                if not elem_active(M, f, e2):
                    continue
                ncon, need, code = _elems(M, D, f, e1, f, e2, key, key, ncon, need)
                if code < 0:
                    return ncon, need, code
    return ncon, need, 0


@kernel
def _side_static(M, f, e, v):
    """Whether the bodies of a flex side (vertex v, or element e's vertices) are all static."""
    dofnum = i1(M, MF.body_dofnum)
    weld = i1(M, MF.body_weldid)
    vbody = i1(M, MF.flex_vertbodyid)
    va = i1(M, MF.flex_vertadr)[f]
    if v >= 0:
        return dofnum[weld[vbody[va + v]]] == 0
    dim = i1(M, MF.flex_dim)[f]
    ed = i1(M, MF.flex_elemdataadr)[f] + e * (dim + 1)
    elem = i1(M, MF.flex_elem)
    for i in range(dim + 1):
        if dofnum[weld[vbody[va + elem[ed + i]]]] != 0:
            return False
    return True


@kernel
def flex_contact_params(M, D, s, override, friction, solref, solreffriction, solimp):
    """Parameters of staged flex contact s, as MuJoCo's flex paths give them: (condim,
    includemargin, static). Side 1 is a flex, side 0 a geom or a flex; mixed as geoms are
    (mixing.mix_params) from the geom's and the flex's <contact> attributes; the margin is the
    sum of the two sides' margins (opt.o_margin under override), 0 within one flex;
    solreffriction 0. ``static``: no side has a moving body (MuJoCo then excludes the contact,
    contact.exclude = 3, as it finds no dof in its Jacobian)."""
    info = i2(D, DF.col_info)[s]
    cf = i2(D, DF.col_flex)[s]
    g = info[5]
    fa, fb = cf[0], cf[1]
    fpri = i1(M, MF.flex_priority)
    fcond = i1(M, MF.flex_condim)
    ffric = f2(M, MF.flex_friction)
    fsmix = f1(M, MF.flex_solmix)
    fsref = f2(M, MF.flex_solref)
    fsimp = f2(M, MF.flex_solimp)
    fmargin = f1(M, MF.flex_margin)
    solreffriction[0] = 0.0
    solreffriction[1] = 0.0
    if g >= 0:
        dim = mix_params(i1(M, MF.geom_priority)[g], i1(M, MF.geom_condim)[g],
                         f2(M, MF.geom_friction)[g], f1(M, MF.geom_solmix)[g],
                         f2(M, MF.geom_solref)[g], f2(M, MF.geom_solimp)[g],
                         fpri[fb], fcond[fb], ffric[fb], fsmix[fb], fsref[fb], fsimp[fb],
                         friction, solref, solimp)
        margin = _margin(M, f1(M, MF.geom_margin)[g] + fmargin[fb])
        b = i1(M, MF.geom_bodyid)[g]
        static0 = i1(M, MF.body_dofnum)[i1(M, MF.body_weldid)[b]] == 0
    else:
        dim = mix_params(fpri[fa], fcond[fa], ffric[fa], fsmix[fa], fsref[fa], fsimp[fa],
                         fpri[fb], fcond[fb], ffric[fb], fsmix[fb], fsref[fb], fsimp[fb],
                         friction, solref, solimp)
        margin = 0.0 if fa == fb else _margin(M, fmargin[fa] + fmargin[fb])
        static0 = _side_static(M, fa, cf[2], cf[4])
    apply_override(override, f1(M, MF.opt_o_solref), f1(M, MF.opt_o_solimp),
                   f1(M, MF.opt_o_friction), friction, solref, solreffriction, solimp)
    static = static0 and _side_static(M, fb, cf[3], cf[5])
    return dim, margin, static
