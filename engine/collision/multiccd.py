"""MuJoCo's native convex collider, part 2: the polygon multi-contact (multiccd) and the pair entry
point ``nccd_collide`` (engine/collision/narrowphase.py calls it for every pair without an
analytic routine).

``nccd_collide`` runs the GJK / EPA of engine/collision/nccd.py (``ccd``) for one contact and,
with the multiccd flag (MuJoCo 4: on unless mjDSBL_MULTICCD), the box / mesh face-face and
edge-face clipping (``multicontact``), capsules along a mesh face (``round_multicontact``) and the
cylinder rules (``cylinder_polytope``, ``cylinder_caps``). The rules, and where they were measured
against MuJoCo 4.0.0, are in nccd.py's docstring; the workspace ``W`` / ``I`` layout is nccd.py's.
"""
from __future__ import annotations

import math

from .._jit import kernel
from ..math import normalize3
from .convex import (CCD_FMAX, _FOFF, _POFF, _VOFF, _HOFF, FACE_TOL, EDGE_TOL, _PMAX, _clip_edge,
                     _clip_edge_tol, _emit_edge_points, _quad_area_mj, _cap_polygon,
                     _reverse_polygon, _NCAP)
from .nccd import (MAX_POLYVERT, MINVAL, _BOX, _CAPSULE, _CYLINDER, _MESH, _SIDX, ccd)

# ---- multi-contact ---------------------------------------------------------------------------
_NRM = _FOFF + CCD_FMAX // 2   # candidate face normals: geom1 in columns 0:3, geom2 in 3:6
_EV = _FOFF              # end vertices of candidate edges (columns 0:3)


@kernel
def _feature(a, b, c):
    """Dimension of the feature spanned by support indices (a, b, c) and its two first distinct
    indices: (dim, i0, i1, which of the three rows gives i1)."""
    if a != b:
        return (2 if (c == a or c == b) else 3), a, b, 1
    if a != c:
        return 2, a, c, 2
    return 1, a, a, 0


@kernel
def _feat_point(t, size, pos, mat, vadr, mesh_vert, idx):
    """World position of support index idx of a box (corner bits x=1, y=2, z=4) or mesh (vertex
    id): the shape itself, without margin (the same expression as _sup, so the same rounding)."""
    if t == _BOX:
        tx = size[0] if idx & 1 else -size[0]
        ty = size[1] if idx & 2 else -size[1]
        tz = size[2] if idx & 4 else -size[2]
    else:
        v = mesh_vert[vadr + idx]
        tx = v[0]
        ty = v[1]
        tz = v[2]
    return (mat[0] * tx + mat[1] * ty + mat[2] * tz + pos[0],
            mat[3] * tx + mat[4] * ty + mat[5] * tz + pos[1],
            mat[6] * tx + mat[7] * ty + mat[8] * tz + pos[2])


@kernel
def _box_normals2(mat, dx, dy, dz, W, col, I, icol):
    """The box face whose outward normal is within FACE_TOL of direction d (local test)."""
    lx = mat[0] * dx + mat[3] * dy + mat[6] * dz
    ly = mat[1] * dx + mat[4] * dy + mat[7] * dz
    lz = mat[2] * dx + mat[5] * dy + mat[8] * dz
    s = 1.0 / math.sqrt(lx * lx + ly * ly + lz * lz)
    lx *= s
    ly *= s
    lz *= s
    for i in range(6):
        ax = i // 2
        sg = 1.0 if i % 2 == 0 else -1.0
        c = (lx if ax == 0 else (ly if ax == 1 else lz)) * sg
        if c > FACE_TOL:
            W[_NRM, col] = sg * mat[ax]
            W[_NRM, col + 1] = sg * mat[3 + ax]
            W[_NRM, col + 2] = sg * mat[6 + ax]
            I[0, icol] = i
            return 1
    return 0


@kernel
def _box_normals(mat, dim, a, b, c, dx, dy, dz, W, col, I, icol):
    """Outward normals (world) of the box faces holding the feature with corners a, b, c
    (bits x=1, y=2, z=4), into W[_NRM + k, col:col+3], face ids (0..5 = +x, -x, +y, -y, +z,
    -z) into I[k, icol]; returns their number."""
    if dim == 1:
        for ax in range(3):
            sg = 1.0 if a & (1 << ax) else -1.0
            W[_NRM + ax, col] = sg * mat[ax]
            W[_NRM + ax, col + 1] = sg * mat[3 + ax]
            W[_NRM + ax, col + 2] = sg * mat[6 + ax]
            I[ax, icol] = 2 * ax + (0 if sg > 0 else 1)
        return 3
    cnt = 0
    for ax in range(3):
        bit = 1 << ax
        if dim == 3:
            on = (a & bit) != 0 and (b & bit) != 0 and (c & bit) != 0
            off = (a & bit) == 0 and (b & bit) == 0 and (c & bit) == 0
        else:
            on = (a & bit) != 0 and (b & bit) != 0
            off = (a & bit) == 0 and (b & bit) == 0
        if on or off:
            sg = 1.0 if on else -1.0
            if cnt < 2:
                W[_NRM + cnt, col] = sg * mat[ax]
                W[_NRM + cnt, col + 1] = sg * mat[3 + ax]
                W[_NRM + cnt, col + 2] = sg * mat[6 + ax]
                I[cnt, icol] = 2 * ax + (0 if sg > 0 else 1)
            cnt += 1
    if (dim == 3 and cnt == 1) or (dim == 2 and cnt == 2):
        return cnt
    return _box_normals2(mat, dx, dy, dz, W, col, I, icol)


@kernel
def _common(mesh_polymap, adr1, num1, adr2, num2, I, icol, k0):
    """Up to 2 polygon ids common to two vertex polygon lists, into I[k0 + k, icol]."""
    cnt = 0
    for i in range(num1):
        for j in range(num2):
            if mesh_polymap[adr1 + i] == mesh_polymap[adr2 + j]:
                I[k0 + cnt, icol] = mesh_polymap[adr1 + i]
                cnt += 1
                if cnt == 2:
                    return 2
    return cnt


@kernel
def _mesh_normals(polyadr, vadr, mesh_polynormal, mesh_polymapadr, mesh_polymapnum, mesh_polymap,
                  mat, dim, a, b, c, W, col, I, icol):
    """Outward normals (world) of the mesh polygons holding the feature with vertices a, b, c;
    polygon ids into I[k, icol]; returns their number."""
    if dim == 1:
        n = min(mesh_polymapnum[vadr + a], MAX_POLYVERT)
        for k in range(n):
            I[k, icol] = mesh_polymap[mesh_polymapadr[vadr + a] + k]
    else:
        n = _common(mesh_polymap, mesh_polymapadr[vadr + a], mesh_polymapnum[vadr + a],
                    mesh_polymapadr[vadr + b], mesh_polymapnum[vadr + b], I, icol, 0)
        if n == 0:
            return 0
        if dim == 3:
            # the polygons of the edge (a, b) that also hold c
            m = 0
            adr3 = mesh_polymapadr[vadr + c]
            for i in range(n):
                for j in range(mesh_polymapnum[vadr + c]):
                    if I[i, icol] == mesh_polymap[adr3 + j] and m < 1:
                        I[m, icol] = I[i, icol]
                        m += 1
            if m == 0:
                return 0
            n = 1
    for k in range(n):
        pn = mesh_polynormal[polyadr + I[k, icol]]
        W[_NRM + k, col] = mat[0] * pn[0] + mat[1] * pn[1] + mat[2] * pn[2]
        W[_NRM + k, col + 1] = mat[3] * pn[0] + mat[4] * pn[1] + mat[5] * pn[2]
        W[_NRM + k, col + 2] = mat[6] * pn[0] + mat[7] * pn[1] + mat[8] * pn[2]
    return n


@kernel
def _edge_dirs(t, size, pos, mat, vadr, polyadr, mesh_vert, mesh_polyvertadr, mesh_polyvertnum,
               mesh_polyvert, mesh_polymapadr, mesh_polymapnum, mesh_polymap,
               dim, ia, ib, Ax, Ay, Az, Bx, By, Bz, W, col):
    """Unit directions of the candidate edges at a vertex / edge feature of a box or mesh, from
    point A; their other ends into W[_EV + k, 0:3]. Returns their number."""
    if dim == 2:
        ex, ey, ez = Bx - Ax, By - Ay, Bz - Az
        en = math.sqrt(ex * ex + ey * ey + ez * ez)
        if en < MINVAL:
            return 0
        W[_EV, 0] = Bx
        W[_EV, 1] = By
        W[_EV, 2] = Bz
        W[_NRM, col] = ex / en
        W[_NRM, col + 1] = ey / en
        W[_NRM, col + 2] = ez / en
        return 1
    n = 0
    if t == _BOX:
        for ax in range(3):
            lx = size[0] if ia & 1 else -size[0]
            ly = size[1] if ia & 2 else -size[1]
            lz = size[2] if ia & 4 else -size[2]
            if ax == 0:
                lx = -lx
            elif ax == 1:
                ly = -ly
            else:
                lz = -lz
            x = mat[0] * lx + mat[1] * ly + mat[2] * lz + pos[0]
            y = mat[3] * lx + mat[4] * ly + mat[5] * lz + pos[1]
            z = mat[6] * lx + mat[7] * ly + mat[8] * lz + pos[2]
            W[_EV + n, 0] = x
            W[_EV + n, 1] = y
            W[_EV + n, 2] = z
            ex, ey, ez = x - Ax, y - Ay, z - Az
            en = math.sqrt(ex * ex + ey * ey + ez * ez)
            W[_NRM + n, col] = ex / en
            W[_NRM + n, col + 1] = ey / en
            W[_NRM + n, col + 2] = ez / en
            n += 1
        return n
    # mesh: in each polygon at the vertex, the edge to the polygon's previous vertex
    num = min(mesh_polymapnum[vadr + ia], MAX_POLYVERT)
    for i in range(num):
        p = polyadr + mesh_polymap[mesh_polymapadr[vadr + ia] + i]
        adr = mesh_polyvertadr[p]
        nvp = mesh_polyvertnum[p]
        for j in range(nvp):
            if mesh_polyvert[adr + j] == ia:
                k = nvp - 1 if j == 0 else j - 1
                v = mesh_vert[vadr + mesh_polyvert[adr + k]]
                x = mat[0] * v[0] + mat[1] * v[1] + mat[2] * v[2] + pos[0]
                y = mat[3] * v[0] + mat[4] * v[1] + mat[5] * v[2] + pos[1]
                z = mat[6] * v[0] + mat[7] * v[1] + mat[8] * v[2] + pos[2]
                W[_EV + n, 0] = x
                W[_EV + n, 1] = y
                W[_EV + n, 2] = z
                ex, ey, ez = x - Ax, y - Ay, z - Az
                en = math.sqrt(ex * ex + ey * ey + ez * ez)
                if en < MINVAL:
                    en = 1.0
                W[_NRM + n, col] = ex / en
                W[_NRM + n, col + 1] = ey / en
                W[_NRM + n, col + 2] = ez / en
                n += 1
                break
    return n


@kernel
def _face_poly(t, size, pos, mat, vadr, polyadr, mesh_vert, mesh_polyvertadr, mesh_polyvertnum,
               mesh_polyvert, fid, W, row, col):
    """Vertices (world) of box face / mesh polygon fid, counterclockwise about its outward
    normal, into W[row:row+m, col:col+3]; returns m."""
    if t == _BOX:
        ax = fid // 2
        sg = 1.0 if fid % 2 == 0 else -1.0
        u = (ax + 1) % 3
        v = (ax + 2) % 3
        for q in range(4):
            l0 = l1 = l2 = 0.0
            # corners (+,+) (-,+) (-,-) (+,-) in the (u, v) axes: ccw about +axis
            su = 1.0 if (q == 0 or q == 3) else -1.0
            sv = 1.0 if (q == 0 or q == 1) else -1.0
            if sg < 0:
                sv = -sv       # reverse the turn for the - face
            lo = (sg * size[ax], su * size[u], sv * size[v])
            if ax == 0:
                l0, l1, l2 = lo[0], lo[1], lo[2]
            elif ax == 1:
                l1, l2, l0 = lo[0], lo[1], lo[2]
            else:
                l2, l0, l1 = lo[0], lo[1], lo[2]
            W[row + q, col] = mat[0] * l0 + mat[1] * l1 + mat[2] * l2 + pos[0]
            W[row + q, col + 1] = mat[3] * l0 + mat[4] * l1 + mat[5] * l2 + pos[1]
            W[row + q, col + 2] = mat[6] * l0 + mat[7] * l1 + mat[8] * l2 + pos[2]
        return 4
    p = polyadr + fid
    adr = mesh_polyvertadr[p]
    m = min(mesh_polyvertnum[p], MAX_POLYVERT)
    for q in range(m):
        v = mesh_vert[vadr + mesh_polyvert[adr + q]]
        W[row + q, col] = mat[0] * v[0] + mat[1] * v[1] + mat[2] * v[2] + pos[0]
        W[row + q, col + 1] = mat[3] * v[0] + mat[4] * v[1] + mat[5] * v[2] + pos[1]
        W[row + q, col + 2] = mat[6] * v[0] + mat[7] * v[1] + mat[8] * v[2] + pos[2]
    return m


# corner sign patterns of box faces 0..5 (+x, -x, +y, -y, +z, -z) in MuJoCo's order: the
# reverse of _face_poly's counterclockwise list, starting at this index of it
_BOX_FACE_START = (0, 0, 2, 0, 1, 3)


@kernel
def _mj_first(t, fid, m):
    """Row, in _face_poly's list of face fid (m vertices), of the vertex MuJoCo lists first:
    a mesh polygon's last stored vertex (MuJoCo lists mesh polygons backwards), a box face's
    first corner in MuJoCo's order."""
    return _BOX_FACE_START[fid] if t == _BOX else m - 1


@kernel
def _mj_face_order(t, fid, W, row, col, m):
    """Reorder a face polygon from _face_poly's counterclockwise list (about the outward normal)
    into MuJoCo's: clockwise, starting at the last polygon vertex of a mesh (MuJoCo lists mesh
    polygons backwards) or at MuJoCo's first corner of a box face. Uses W[row:row+m, 3:6]."""
    s = _mj_first(t, fid, m)
    for k in range(m):
        j = (s - k) % m
        W[row + k, 3] = W[row + j, col]
        W[row + k, 4] = W[row + j, col + 1]
        W[row + k, 5] = W[row + j, col + 2]
    for k in range(m):
        W[row + k, col] = W[row + k, 3]
        W[row + k, col + 1] = W[row + k, 4]
        W[row + k, col + 2] = W[row + k, 5]


@kernel
def _clip_mj(W, row, csub, m, cclip, mc, nx, ny, nz):
    """Sutherland-Hodgman clip of the polygon W[row:row+m, csub:csub+3] by the side planes of
    the polygon W[row:row+mc, cclip:cclip+3], in MuJoCo 4's arithmetic (libmujoco 4.0.0's
    polygonClip, read in the binary and matched bit for bit): edge e's plane has the unit normal
    p = normalize((v[e+1] - v[e]) x ((v[e] + n) - v[e])) ((1, 0, 0) below MINVAL) through
    v[e]; a point P is inside when d(P) = (P - v[e]) . p > -MINVAL; an edge PQ adds Q when both
    ends are inside, else (one end inside) its crossing P + t (Q - P), t = d(P) / (d(P) - d(Q))
    when that is in [0, 1], and then Q when Q is inside. Ping-pongs between csub and the third
    column group; returns (count, column of the result)."""
    src = csub
    other = 3 if (csub != 3 and cclip != 3) else (0 if (csub != 0 and cclip != 0) else 6)
    for e in range(mc):
        f = e + 1 if e + 1 < mc else 0
        ax, ay, az = W[row + e, cclip], W[row + e, cclip + 1], W[row + e, cclip + 2]
        d2x, d2y, d2z = (ax + nx) - ax, (ay + ny) - ay, (az + nz) - az
        d1x = W[row + f, cclip] - ax
        d1y = W[row + f, cclip + 1] - ay
        d1z = W[row + f, cclip + 2] - az
        (px, py, pz), _ = normalize3((d1y * d2z - d1z * d2y, d1z * d2x - d1x * d2z,
                                      d1x * d2y - d1y * d2x))
        dst = other if src == csub else csub
        k = 0
        for i in range(m):
            j = i + 1 if i + 1 < m else 0
            Px, Py, Pz = W[row + i, src], W[row + i, src + 1], W[row + i, src + 2]
            Qx, Qy, Qz = W[row + j, src], W[row + j, src + 1], W[row + j, src + 2]
            dP = (Px - ax) * px + (Py - ay) * py + (Pz - az) * pz
            dQ = (Qx - ax) * px + (Qy - ay) * py + (Qz - az) * pz
            in1 = dP > -MINVAL
            in2 = dQ > -MINVAL
            if not in1 and not in2:
                continue
            if not (in1 and in2) and k < _PMAX:
                den = dP - dQ
                if den != 0.0:
                    t = dP / den
                    if 0.0 <= t <= 1.0:
                        W[row + k, dst] = t * (Qx - Px) + Px
                        W[row + k, dst + 1] = t * (Qy - Py) + Py
                        W[row + k, dst + 2] = t * (Qz - Pz) + Pz
                        k += 1
            if in2 and k < _PMAX:
                W[row + k, dst] = Qx
                W[row + k, dst + 1] = Qy
                W[row + k, dst + 2] = Qz
                k += 1
        m = k
        src = dst
    return m, src


@kernel
def _polygon_quad(W, row, col, n):
    """MuJoCo's pruning of a clipped polygon to 4 points: from the first four vertices, each
    start vertex a in turn pushes d forward while the quadrilateral's area grows, and after
    each such step c, then b (a local search, not the global maximum). A step is taken only
    when the new area is strictly larger, the area being MuJoCo 4's (convex._quad_area_mj:
    half the norm of (a - c) x (b - d), with its square root, which breaks the ties of a
    16-gon's equal quadrilaterals as MuJoCo does; the squared area picks differently on ~1% of
    clipped cap-on-cap polygons). At the end of each a, b is moved off a (then c off b, d off
    c) only when equal; so a may catch up with b and a "quadrilateral" with a == b (a
    triangle, one point twice) can win, as in MuJoCo (reported twice). Returns the indices
    (a, b, c, d)."""
    a, b, c, d = 0, 1, 2, 3
    r0, r1, r2, r3 = 0, 1, 2, 3
    m = _quad_area_mj(W, row, col, a, b, c, d)
    for a in range(n):
        while True:
            dn = d + 1 if d + 1 < n else 0
            mn = _quad_area_mj(W, row, col, a, b, c, dn)
            if mn <= m:
                break
            m = mn
            d = dn
            r0, r1, r2, r3 = a, b, c, d
            while True:
                cn = c + 1 if c + 1 < n else 0
                mn = _quad_area_mj(W, row, col, a, b, cn, d)
                if mn <= m:
                    break
                m = mn
                c = cn
                r0, r1, r2, r3 = a, b, c, d
            while True:
                bn = b + 1 if b + 1 < n else 0
                mn = _quad_area_mj(W, row, col, a, bn, c, d)
                if mn <= m:
                    break
                m = mn
                b = bn
                r0, r1, r2, r3 = a, b, c, d
        if b == a:
            b = b + 1 if b + 1 < n else 0
            if c == b:
                c = c + 1 if c + 1 < n else 0
                if d == c:
                    d = d + 1 if d + 1 < n else 0
    return r0, r1, r2, r3


@kernel
def _emit_clipped(W, R, col, m, n1x, n1y, n1z, n2x, n2y, n2z, margin, dist, pos, frame):
    """Contacts at the clipped polygon W[R:R+m, col:col+3] (points x2 on geom2's face, clipped
    by the prism of geom1's face W[R:R+mA, 0:3] in MuJoCo's order), MuJoCo 4's rule (measured
    on example-robot-data meshes: every census contact within 1e-6, the cases examined to
    1e-15): each x2 is projected along n1 onto geom1's face
    plane (through its first vertex in MuJoCo's order, W[R, 0:3]): x1 = x2 - h n1, h = n1 .
    (x2 - W[R]); dist = (x1 - x2) . n2 = -h (n1 . n2), the gap measured along geom2's normal;
    pos = x1 - dist / 2 n2 (halfway from x1 to geom2's face plane through x2); normal -n2.
    Points with h > margin (h measured along n1 from that first vertex, as MuJoCo 4's
    polygonClip filters: it keeps h <= margin) are dropped first; more than 4 left are pruned
    by MuJoCo's local quadrilateral search (_polygon_quad), 4 or fewer lose exact repeats
    (MINVAL per coordinate). Returns the number written."""
    c = n1x * n2x + n1y * n2y + n1z * n2z
    ox, oy, oz = W[R, 0], W[R, 1], W[R, 2]
    # drop the points beyond the margin, compacting the list in place (MuJoCo prunes what is
    # left: measured, a 5-gon with 2 points below the surface gives both)
    k = 0
    for q in range(m):
        px, py, pz = W[R + q, col], W[R + q, col + 1], W[R + q, col + 2]
        h = (px - ox) * n1x + (py - oy) * n1y + (pz - oz) * n1z
        if h <= margin:
            W[R + k, col] = px
            W[R + k, col + 1] = py
            W[R + k, col + 2] = pz
            k += 1
    m = k
    s0, s1, s2, s3 = 0, 1, 2, 3
    pruned = m > 4
    if pruned:
        s0, s1, s2, s3 = _polygon_quad(W, R, col, m)
        m = 4
    n = 0
    for q in range(m):
        s = s0 if q == 0 else (s1 if q == 1 else (s2 if q == 2 else s3))
        px, py, pz = W[R + s, col], W[R + s, col + 1], W[R + s, col + 2]
        dup = False
        if not pruned:
            for r in range(q):
                if (abs(W[R + r, col] - px) < MINVAL and abs(W[R + r, col + 1] - py) < MINVAL
                        and abs(W[R + r, col + 2] - pz) < MINVAL):
                    dup = True
                    break
        if dup:
            continue
        h = n1x * (px - ox) + n1y * (py - oy) + n1z * (pz - oz)
        dd = -h * c
        dist[n] = dd
        pos[n, 0] = px - h * n1x - 0.5 * dd * n2x
        pos[n, 1] = py - h * n1y - 0.5 * dd * n2y
        pos[n, 2] = pz - h * n1z - 0.5 * dd * n2z
        frame[n, 0] = -n2x
        frame[n, 1] = -n2y
        frame[n, 2] = -n2z
        n += 1
    return n


@kernel
def multicontact(mesh_vertadr, mesh_vert, mesh_polyadr, mesh_polynormal, mesh_polyvertadr,
                 mesh_polyvertnum, mesh_polyvert, mesh_polymapadr, mesh_polymapnum, mesh_polymap,
                 t1, d1, s1, p1, m1, t2, d2, s2, p2, m2, a1, b1, c1, a2, b2, c2,
                 x1x, x1y, x1z, x2x, x2y, x2z, margin, dist, pos, frame, W, I):
    """Several contacts between a face of one box / mesh and a face or edge of the other, chosen
    from the support indices of the final feature (MuJoCo's multiccd): (a1, b1, c1) on geom1 and
    (a2, b2, c2) on geom2 are those of the three vertices of the final EPA face, or of the final
    GJK simplex (repeated to three) of a pair separated within its margin. The feature points
    are the shapes' own vertices, without the margin (measured against MuJoCo 4: with a margin
    its edge-face contacts lie on the shapes, not on the inflated EPA vertices). x2 - x1 (the
    witnesses) picks a box face when the feature alone does not. Face-face contacts follow
    _emit_clipped, edge-face ones _emit_edge_points against the face's plane through its first
    vertex in MuJoCo's order (_mj_first); which pair is tried is in the module docstring
    (MuJoCo 4's order and direction tests). Returns the number written, 0 when the features are
    not aligned or nothing is left of the clip within the margin (the caller keeps the single
    contact)."""
    va1 = mesh_vertadr[d1] if t1 == _MESH else 0
    va2 = mesh_vertadr[d2] if t2 == _MESH else 0
    pa1 = mesh_polyadr[d1] if t1 == _MESH else 0
    pa2 = mesh_polyadr[d2] if t2 == _MESH else 0
    dim1, i1a, i1b, _ = _feature(a1, b1, c1)
    dim2, i2a, i2b, _ = _feature(a2, b2, c2)
    # the first vertex's points (A) and the points of the second distinct index (B) on each geom
    A1x, A1y, A1z = _feat_point(t1, s1, p1, m1, va1, mesh_vert, i1a)
    B1x, B1y, B1z = _feat_point(t1, s1, p1, m1, va1, mesh_vert, i1b)
    A2x, A2y, A2z = _feat_point(t2, s2, p2, m2, va2, mesh_vert, i2a)
    B2x, B2y, B2z = _feat_point(t2, s2, p2, m2, va2, mesh_vert, i2b)
    dx, dy, dz = x2x - x1x, x2y - x1y, x2z - x1z
    if t1 == _BOX:
        nn1 = _box_normals(m1, dim1, i1a, i1b, c1, -dx, -dy, -dz, W, 0, I, 0)
    else:
        nn1 = _mesh_normals(pa1, va1, mesh_polynormal, mesh_polymapadr, mesh_polymapnum,
                            mesh_polymap, m1, dim1, i1a, i1b, c1, W, 0, I, 0)
    if t2 == _BOX:
        nn2 = _box_normals(m2, dim2, i2a, i2b, c2, dx, dy, dz, W, 3, I, 1)
    else:
        nn2 = _mesh_normals(pa2, va2, mesh_polynormal, mesh_polymapadr, mesh_polymapnum,
                            mesh_polymap, m2, dim2, i2a, i2b, c2, W, 3, I, 1)
    # face-face: the best anti-parallel pair among the faces turned towards the other geom:
    # n1 . d < -EDGE_TOL |d| and n2 . d > EDGE_TOL |d|, d = x2 - x1 (MuJoCo 4, read in
    # libmujoco 4.0.0's mjc_multicontact)
    fi = -1
    fj = -1
    best = -FACE_TOL
    dtol = math.sqrt(dx * dx + dy * dy + dz * dz) * EDGE_TOL
    for i in range(nn1):
        if W[_NRM + i, 0] * dx + W[_NRM + i, 1] * dy + W[_NRM + i, 2] * dz >= -dtol:
            continue
        for j in range(nn2):
            if dtol >= W[_NRM + j, 3] * dx + W[_NRM + j, 4] * dy + W[_NRM + j, 5] * dz:
                continue
            c = (W[_NRM + i, 0] * W[_NRM + j, 3] + W[_NRM + i, 1] * W[_NRM + j, 4]
                 + W[_NRM + i, 2] * W[_NRM + j, 5])
            if c < best:
                best = c
                fi = i
                fj = j
    R = _POFF
    if fi >= 0:
        id1 = I[fi, 0]
        id2 = I[fj, 1]
        n1x, n1y, n1z = W[_NRM + fi, 0], W[_NRM + fi, 1], W[_NRM + fi, 2]
        n2x, n2y, n2z = W[_NRM + fj, 3], W[_NRM + fj, 4], W[_NRM + fj, 5]
        mA = _face_poly(t1, s1, p1, m1, va1, pa1, mesh_vert, mesh_polyvertadr, mesh_polyvertnum,
                        mesh_polyvert, id1, W, R, 0)
        mB = _face_poly(t2, s2, p2, m2, va2, pa2, mesh_vert, mesh_polyvertadr, mesh_polyvertnum,
                        mesh_polyvert, id2, W, R, 6)
        if mA < 3 or mB < 3:
            return 0
        # geom1's face clips geom2's, both in MuJoCo's vertex order, side planes along n1;
        # points on geom2's face (MuJoCo 4, measured: whatever the features' polygon counts)
        _mj_face_order(t1, id1, W, R, 0, mA)
        _mj_face_order(t2, id2, W, R, 6, mB)
        m, col = _clip_mj(W, R, 6, mB, 0, mA, n1x, n1y, n1z)
        if m == 0:
            return 0
        return _emit_clipped(W, R, col, m, n1x, n1y, n1z, n2x, n2y, n2z, margin, dist, pos,
                             frame)
    # edge-face (MuJoCo 4's order, read in libmujoco 4.0.0): geom2's edge first when geom2's
    # feature is a vertex / edge, geom1 has candidate faces and (geom2 has none, or geom2's
    # feature is of lower dimension); else geom1's edge first; then the other. An edge needs a
    # vertex / edge feature (its segment is taken whether or not its vertices share a polygon),
    # the other geom candidate faces; only faces turned towards the edge's geom count
    # (n2 . d > MINVAL for geom2's, n1 . (-d) > MINVAL for geom1's, d = x2 - x1); the first
    # (face, edge) pair within EDGE_TOL wins.
    ei = -1
    fk = -1
    edge1 = False
    ecol = fcol = 0
    nn1f = nn1
    nn2f = nn2
    two_first = nn1f > 0 and dim2 < 3 and (nn2f == 0 or dim2 < dim1)
    for k in range(2):
        which = (1 - k) if two_first else k
        if which == 0:
            if dim1 == 3 or nn2f == 0:
                continue
            ne = _edge_dirs(t1, s1, p1, m1, va1, pa1, mesh_vert, mesh_polyvertadr,
                            mesh_polyvertnum, mesh_polyvert, mesh_polymapadr, mesh_polymapnum,
                            mesh_polymap, dim1, i1a, i1b, A1x, A1y, A1z, B1x, B1y, B1z, W, 0)
            nf = nn2f
            ecol, fcol = 0, 3
            sx, sy, sz = dx, dy, dz
        else:
            if dim2 == 3 or nn1f == 0:
                continue
            if k == 1:
                # the first try overwrote geom1's face normals with its edge directions
                if t1 == _BOX:
                    _box_normals(m1, dim1, i1a, i1b, c1, -dx, -dy, -dz, W, 0, I, 0)
                else:
                    _mesh_normals(pa1, va1, mesh_polynormal, mesh_polymapadr, mesh_polymapnum,
                                  mesh_polymap, m1, dim1, i1a, i1b, c1, W, 0, I, 0)
            ne = _edge_dirs(t2, s2, p2, m2, va2, pa2, mesh_vert, mesh_polyvertadr,
                            mesh_polyvertnum, mesh_polyvert, mesh_polymapadr, mesh_polymapnum,
                            mesh_polymap, dim2, i2a, i2b, A2x, A2y, A2z, B2x, B2y, B2z, W, 3)
            nf = nn1f
            ecol, fcol = 3, 0
            sx, sy, sz = -dx, -dy, -dz
        # the first (face, edge) pair within the tolerance, faces turned towards the edge
        for i in range(nf):
            if (MINVAL >= W[_NRM + i, fcol] * sx + W[_NRM + i, fcol + 1] * sy
                    + W[_NRM + i, fcol + 2] * sz):
                continue
            for j in range(ne):
                c = (W[_NRM + j, ecol] * W[_NRM + i, fcol] + W[_NRM + j, ecol + 1]
                     * W[_NRM + i, fcol + 1] + W[_NRM + j, ecol + 2] * W[_NRM + i, fcol + 2])
                if abs(c) < EDGE_TOL and ei < 0:
                    ei = j
                    fk = i
        if ei >= 0:
            edge1 = which == 0
            break
    if ei < 0:
        return 0
    fx, fy, fz = W[_NRM + fk, fcol], W[_NRM + fk, fcol + 1], W[_NRM + fk, fcol + 2]
    if edge1:
        Ax, Ay, Az = A1x, A1y, A1z
        mp = _face_poly(t2, s2, p2, m2, va2, pa2, mesh_vert, mesh_polyvertadr, mesh_polyvertnum,
                        mesh_polyvert, I[fk, 1], W, R, 6)
        sg = -1.0
    else:
        Ax, Ay, Az = A2x, A2y, A2z
        mp = _face_poly(t1, s1, p1, m1, va1, pa1, mesh_vert, mesh_polyvertadr, mesh_polyvertnum,
                        mesh_polyvert, I[fk, 0], W, R, 6)
        sg = 1.0
    Bx, By, Bz = W[_EV + ei, 0], W[_EV + ei, 1], W[_EV + ei, 2]
    if mp < 3:
        return 0
    # the face plane through the face's first vertex in MuJoCo's order (a mesh polygon's last
    # stored one): hull polygons are planar only to float rounding, ~1e-5 on real meshes
    # (measured: each clipped end's distance to that plane, to 1e-15)
    v0 = _mj_first(t2, I[fk, 1], mp) if edge1 else _mj_first(t1, I[fk, 0], mp)
    fo = fx * W[R + v0, 6] + fy * W[R + v0, 7] + fz * W[R + v0, 8]
    t0, t1_ = _clip_edge(Ax, Ay, Az, Bx, By, Bz, W, R, 6, mp, fx, fy, fz)
    if t0 > t1_:
        return 0
    return _emit_edge_points(Ax, Ay, Az, Bx, By, Bz, t0, t1_, fx, fy, fz, fo, 0.0, sg, margin,
                             dist, pos, frame)


@kernel
def _side_line(wx, wy, wz, pos, mat, h):
    """Ends A, B of the line through w parallel to a round geom's axis (pose pos, mat), between
    the axial coordinates -h and h: (Ax, Ay, Az, Bx, By, Bz)."""
    ax, ay, az = mat[2], mat[5], mat[8]
    s = (wx - pos[0]) * ax + (wy - pos[1]) * ay + (wz - pos[2]) * az
    return (wx + (-h - s) * ax, wy + (-h - s) * ay, wz + (-h - s) * az,
            wx + (h - s) * ax, wy + (h - s) * ay, wz + (h - s) * az)


@kernel
def _face_along_axis(W, nn, nx, ny, nz, ax, ay, az):
    """The first of the nn candidate polytope faces (outward normals in W rows _NRM.., columns
    3:6) that faces the round shape (against the contact normal n) and lies along its axis a
    (normal within EDGE_TOL of perpendicular to a): the face a side line rests on. -1: none."""
    for k in range(nn):
        fx, fy, fz = W[_NRM + k, 3], W[_NRM + k, 4], W[_NRM + k, 5]
        if fx * nx + fy * ny + fz * nz >= 0:
            continue
        if abs(ax * fx + ay * fy + az * fz) < EDGE_TOL:
            return k
    return -1


@kernel
def round_multicontact(mesh_vertadr, mesh_vert, mesh_polyadr, mesh_polynormal, mesh_polyvertadr,
                       mesh_polyvertnum, mesh_polyvert, mesh_polymapadr, mesh_polymapnum,
                       mesh_polymap, tc, sc, pc, mc, d2, p2, m2, ia, ib, ic, nx, ny, nz,
                       wx, wy, wz, margin, dist, pos, frame, W, I):
    """Two contacts of a capsule or cylinder (geom1) along a face of a mesh (geom2) when its axis
    lies in the face's plane (MuJoCo 4's multiccd for round shapes, measured): the mesh feature
    (support indices ia, ib, ic of the final GJK simplex or EPA face) gives the candidate
    polygons in mesh_polymap order; the first one facing the capsule whose normal is within
    EDGE_TOL of perpendicular to the axis is taken. The side line through the witness w (on
    the surface) parallel to the axis, between the axial ends, is clipped by the polygon's
    prism; each end keeps its own distance to the polygon's plane (pos halfway, normal = minus
    the polygon's outward normal; ends beyond the margin are dropped; an end cut by the prism
    left alone is reported twice, convex._emit_edge_points). Returns the number written (0:
    none)."""
    va = mesh_vertadr[d2]
    pa = mesh_polyadr[d2]
    dim, i0, i1, r = _feature(ia, ib, ic)
    nn = _mesh_normals(pa, va, mesh_polynormal, mesh_polymapadr, mesh_polymapnum, mesh_polymap,
                       m2, dim, i0, i1, ic, W, 3, I, 1)
    fk = _face_along_axis(W, nn, nx, ny, nz, mc[2], mc[5], mc[8])
    if fk < 0:
        return 0
    fx, fy, fz = W[_NRM + fk, 3], W[_NRM + fk, 4], W[_NRM + fk, 5]
    R = _POFF
    mp = _face_poly(_MESH, sc, p2, m2, va, pa, mesh_vert, mesh_polyvertadr, mesh_polyvertnum,
                    mesh_polyvert, I[fk, 1], W, R, 6)
    if mp < 3:
        return 0
    fo = fx * W[R, 6] + fy * W[R, 7] + fz * W[R, 8]
    h = sc[1]
    # the face plane is inflated by half the margin for a capsule (whose witness w already
    # carries its own half margin); a cylinder's side line does not move with the margin
    mh = 0.5 * margin if tc == _CAPSULE else 0.0
    # the side line through w parallel to the axis, over the whole axial extent [-h, h]
    Ax, Ay, Az, Bx, By, Bz = _side_line(wx, wy, wz, pc, mc, h)
    t0, t1_ = _clip_edge_tol(Ax, Ay, Az, Bx, By, Bz, W, R, 6, mp, fx, fy, fz, 1e-10)
    if t0 > t1_:
        return 0
    return _emit_edge_points(Ax, Ay, Az, Bx, By, Bz, t0, t1_, fx, fy, fz, fo, mh, -1.0, margin,
                             dist, pos, frame)


@kernel
def _cap_side(W, I, st, face, col, pos, mat):
    """Cap of a cylinder holding the final feature of a collision (ccd's status st and face):
    +1 / -1 when every support point of it on the cylinder (W columns col:col+3 of the EPA face
    vertices, or of the GJK simplex W[0:face] when st == 1) lies on the rim of the +z / -z cap
    (the sign of its axial coordinate), else 0 (a side feature: points on both rims)."""
    ax, ay, az = mat[2], mat[5], mat[8]
    n = 3 if st == 2 else face
    s = 0
    for k in range(n):
        r = _VOFF + I[face, k] if st == 2 else k
        z = (W[r, col] - pos[0]) * ax + (W[r, col + 1] - pos[1]) * ay + (W[r, col + 2] - pos[2]) * az
        sk = 1 if z > 0 else (-1 if z < 0 else 0)
        if sk == 0 or (k > 0 and sk != s):
            return 0
        s = sk
    return s


@kernel
def _line_on_cap(sc, pc, mc, cs, sl, pl, ml, wx, wy, wz, mh, sg, margin, dist, pos, frame, W):
    """Two contacts of a round geom's side line against the cap cs (+1 / -1) of a cylinder
    (size sc, pose pc, mc): the line through w parallel to the round geom's axis (pose pl, ml)
    over its axial extent [-sl[1], sl[1]] is clipped by the prism of the cap's 16-gon; each end
    keeps its own distance to the cap plane (raised by mh: half a margin that w carries), pos
    halfway, normal sg * the cap's outward normal. Returns the number written."""
    R = _POFF
    cx, cy, cz = cs * mc[2], cs * mc[5], cs * mc[8]
    _cap_polygon(sc, pc, mc, cs, W, R, 6)
    fo = cx * W[R, 6] + cy * W[R, 7] + cz * W[R, 8]
    Ax, Ay, Az, Bx, By, Bz = _side_line(wx, wy, wz, pl, ml, sl[1])
    t0, t1 = _clip_edge_tol(Ax, Ay, Az, Bx, By, Bz, W, R, 6, _NCAP, cx, cy, cz, 1e-10)
    if t0 > t1:
        return 0
    return _emit_edge_points(Ax, Ay, Az, Bx, By, Bz, t0, t1, cx, cy, cz, fo, mh, sg, margin, dist,
                             pos, frame)


@kernel
def _witness_normal(x1x, x1y, x1z, x2x, x2y, x2z):
    """(True, unit vector from witness x2 to x1), or (False, 0, 0, 0) when they are closer
    than MINVAL: no normal to build contacts on."""
    nx, ny, nz = x1x - x2x, x1y - x2y, x1z - x2z
    nn = math.sqrt(nx * nx + ny * ny + nz * nz)
    if nn < MINVAL:
        return False, 0.0, 0.0, 0.0
    return True, nx / nn, ny / nn, nz / nn


@kernel
def cylinder_caps(mesh_vertadr, mesh_vertnum, mesh_vert, mesh_graphadr, mesh_graph, mesh_extrema,
                  t1, d1, s1, p1, m1, d2, s2, p2, m2, st, face, x1x, x1y, x1z, x2x, x2y, x2z,
                  margin, tol, kmax, dist, pos, frame, W, I):
    """MuJoCo 4's multiccd with a cylinder's cap as a face against a capsule or cylinder
    (geom1; geom2 the cylinder), calibrated on probes of mujoco 4.0.0: the cap (the regular
    16-gon of convex._cap_polygon) of a cylinder whose final feature lies on that cap's rim
    (_cap_side) is a face; a capsule's axis or the side line of a cylinder whose feature is on
    both rims is an edge (the line through its witness parallel to the axis, over its axial
    extent). An edge within EDGE_TOL of a cap's plane is clipped by the cap's prism: two
    contacts, each end with its own distance to the cap plane, pos halfway, normal along the
    cap normal (from geom1 to geom2); geom2's cap against geom1's edge is tried first, then
    geom1's cap against geom2's side line. Two caps anti-parallel within FACE_TOL: as two
    polytope faces (geom2's cap clipped by geom1's, _emit_clipped: points at or beyond the
    margin dropped). A cylinder's contacts do not move with the margin (measured): its features
    and witnesses come from the collision without margin (when that one penetrates; else the
    witnesses less margin / 2 along the normal). x1, x2: the witnesses of ccd's answer (st,
    face). Returns the number written, 0 for none."""
    ok, nx, ny, nz = _witness_normal(x1x, x1y, x1z, x2x, x2y, x2z)
    if not ok:
        return 0
    sg2 = _cap_side(W, I, st, face, 6, p2, m2)
    sg1 = _cap_side(W, I, st, face, 3, p1, m1) if t1 == _CYLINDER else 0
    mh = 0.5 * margin
    w1x, w1y, w1z, w2x, w2y, w2z = x1x, x1y, x1z, x2x, x2y, x2z
    if t1 == _CYLINDER and margin > 0:
        mh = 0.0
        st0 = 0
        if st == 2:
            st0, _, a0x, a0y, a0z, b0x, b0y, b0z, f0 = ccd(
                mesh_vertadr, mesh_vertnum, mesh_vert, mesh_graphadr, mesh_graph, mesh_extrema,
                t1, d1, s1, p1, m1, _CYLINDER, d2, s2, p2, m2, 0.0, tol, kmax, W, I)
            if st0 == 2:
                sg2 = _cap_side(W, I, 2, f0, 6, p2, m2)
                sg1 = _cap_side(W, I, 2, f0, 3, p1, m1)
                w1x, w1y, w1z, w2x, w2y, w2z = a0x, a0y, a0z, b0x, b0y, b0z
        if st0 != 2:
            h = 0.5 * margin
            w1x, w1y, w1z = x1x - h * nx, x1y - h * ny, x1z - h * nz
            w2x, w2y, w2z = x2x + h * nx, x2y + h * ny, x2z + h * nz
    R = _POFF
    if sg2 != 0:
        c2x, c2y, c2z = sg2 * m2[2], sg2 * m2[5], sg2 * m2[8]
        if sg1 != 0 and sg1 * (m1[2] * c2x + m1[5] * c2y + m1[8] * c2z) < -FACE_TOL:
            # cap against cap, as two polytope faces (measured: test_convex's 40 random cap pairs
            # within 1e-6, since the 16-gons, the clip and the pruning follow MuJoCo's arithmetic
            # bit for bit; before, 39, the other a tie of the 16-gons' quadrilaterals): geom2's
            # cap clipped by the side planes of geom1's, both from the local +x vertex clockwise
            # about their outward normals; points beyond the margin dropped before the pruning
            # to 4 (measured: mujoco reports none of them, 6 tilted cap-on-cap poses)
            c1x, c1y, c1z = sg1 * m1[2], sg1 * m1[5], sg1 * m1[8]
            _cap_polygon(s1, p1, m1, sg1, W, R, 0)
            _reverse_polygon(W, R + 1, 0, _NCAP - 1)
            _cap_polygon(s2, p2, m2, sg2, W, R, 6)
            _reverse_polygon(W, R + 1, 6, _NCAP - 1)
            m, col = _clip_mj(W, R, 6, _NCAP, 0, _NCAP, c1x, c1y, c1z)
            if m == 0:
                return 0
            return _emit_clipped(W, R, col, m, c1x, c1y, c1z, c2x, c2y, c2z, margin, dist, pos,
                                 frame)
        if abs(m1[2] * c2x + m1[5] * c2y + m1[8] * c2z) < EDGE_TOL:
            # geom1's edge (capsule axis / cylinder side line) in the plane of geom2's cap
            return _line_on_cap(s2, p2, m2, sg2, s1, p1, m1, w1x, w1y, w1z, mh, -1.0, margin,
                                dist, pos, frame, W)
        return 0
    if sg1 != 0:
        # geom2's side line in the plane of geom1's cap
        c1x, c1y, c1z = sg1 * m1[2], sg1 * m1[5], sg1 * m1[8]
        if abs(m2[2] * c1x + m2[5] * c1y + m2[8] * c1z) < EDGE_TOL:
            return _line_on_cap(s1, p1, m1, sg1, s2, p2, m2, w2x, w2y, w2z, mh, 1.0, margin,
                                dist, pos, frame, W)
    return 0


@kernel
def cylinder_polytope(mesh_vertadr, mesh_vert, mesh_polyadr, mesh_polynormal, mesh_polyvertadr,
                      mesh_polyvertnum, mesh_polyvert, mesh_polymapadr, mesh_polymapnum,
                      mesh_polymap, s1, p1, m1, t2, d2, s2, p2, m2, st, face,
                      x1x, x1y, x1z, x2x, x2y, x2z, margin, dist, pos, frame, W, I):
    """MuJoCo 4's multiccd of a cylinder (geom1) against a box or mesh (geom2), the polytope
    rules of ``multicontact`` with the cylinder's feature as one side (world frame; measured
    against mujoco 4.0.0, see test_convex.py). The cylinder's feature is its cap (the regular
    16-gon of convex._cap_polygon, normal c = +-axis) when every support point of the final
    feature lies on that cap's rim (_cap_side), else its side line; the polytope's are the faces
    and edges of its support indices (_box_normals / _mesh_normals, _edge_dirs). The feature is
    that of the EPA face (st == 2; with a margin, of the inflated shapes) or of the core GJK
    simplex (st == 1: a pair with a margin separated within it); its points are on the shapes
    themselves, without the margin (as for polytopes):
      * cap against a face anti-parallel within FACE_TOL (the best aligned): the face (MuJoCo's
        vertex order) clipped by the side planes of the cap (starting at the local +x vertex,
        clockwise about c), _emit_clipped: dist along the face normal n2 from each point's
        projection onto the cap plane, normal -n2; points at or beyond the margin dropped,
        more than 4 left pruned by _polygon_quad (a box tilted on a cap gives 2 or 3);
      * else the side line (through the cylinder point of the feature's first vertex, along
        the axis, over its length; whatever the cylinder's feature) within EDGE_TOL of the
        plane of a polytope face facing the cylinder (the first): clipped by the face's prism,
        each end with its own distance to the face plane, normal -face normal; when such a
        face exists this is the answer, also when the side line misses it (then the single
        contact: a box corner in a cap with an edge within EDGE_TOL of the cap plane always
        has one, the face across that edge);
      * else, when the polytope's feature is an edge or a vertex (not a face), its edge, or
        the first of the edges at its vertex (_edge_dirs' order: mesh_polymap's polygons, the
        edge to each one's previous vertex; a box's x, y, z neighbours), within EDGE_TOL of
        the cap plane: clipped by the cap's prism, each end with its own distance to the cap
        plane, normal c (mujoco 4's mjc_multicontact, read in its binary and measured: a mesh
        vertex in a cap whose faces are all off the axis gives 2 contacts: the G1's head_link
        mesh in its right shoulder's cylinder cap, state 7 of bench/contacts.py).
    x1, x2: the witnesses of ccd's answer (st, face). Returns the number written, 0 for none
    (the caller keeps the single contact)."""
    ok, nx, ny, nz = _witness_normal(x1x, x1y, x1z, x2x, x2y, x2z)
    if not ok:
        return 0
    # the feature: the polytope's support indices and the cylinder's points (W columns 3:6) of
    # the EPA face, or of the core GJK simplex (st == 1); the side line goes through the
    # cylinder point of its first vertex (measured: the line's angular position is that
    # point's, to 1e-15, also with a margin, whose EPA runs on the inflated shapes)
    if st == 2:
        r0 = _VOFF + I[face, 0]
        i0, i1, i2 = I[_HOFF + I[face, 0], 3], I[_HOFF + I[face, 1], 3], I[_HOFF + I[face, 2], 3]
    else:
        r0 = 0
        i0 = I[_SIDX, 3]
        i1 = I[_SIDX + min(1, face - 1), 3]
        i2 = I[_SIDX + min(2, face - 1), 3]
    wx, wy, wz = W[r0, 3], W[r0, 4], W[r0, 5]
    if st == 2 and margin > 0:
        # that point on the inflated cylinder: back onto the cylinder, at the same angle
        ax, ay, az = m1[2], m1[5], m1[8]
        qx, qy, qz = wx - p1[0], wy - p1[1], wz - p1[2]
        sa = qx * ax + qy * ay + qz * az
        qx, qy, qz = qx - sa * ax, qy - sa * ay, qz - sa * az
        qn = math.sqrt(qx * qx + qy * qy + qz * qz)
        if qn > MINVAL:
            wx = p1[0] + s1[0] / qn * qx
            wy = p1[1] + s1[0] / qn * qy
            wz = p1[2] + s1[0] / qn * qz
    cs = _cap_side(W, I, st, face, 3, p1, m1)
    va2 = mesh_vertadr[d2] if t2 == _MESH else 0
    pa2 = mesh_polyadr[d2] if t2 == _MESH else 0
    dim2, j0, j1, _ = _feature(i0, i1, i2)
    if t2 == _BOX:
        nn2 = _box_normals(m2, dim2, j0, j1, i2, x2x - x1x, x2y - x1y, x2z - x1z, W, 3, I, 1)
    else:
        nn2 = _mesh_normals(pa2, va2, mesh_polynormal, mesh_polymapadr, mesh_polymapnum,
                            mesh_polymap, m2, dim2, j0, j1, i2, W, 3, I, 1)
    R = _POFF
    c1x, c1y, c1z = cs * m1[2], cs * m1[5], cs * m1[8]      # the cap's outward normal
    if cs != 0:
        fj = -1
        best = -FACE_TOL
        for j in range(nn2):
            c = c1x * W[_NRM + j, 3] + c1y * W[_NRM + j, 4] + c1z * W[_NRM + j, 5]
            if c < best:
                best = c
                fj = j
        if fj >= 0:
            # cap against a face: the face clipped by the cap, both in MuJoCo's order
            fid = I[fj, 1]
            n2x, n2y, n2z = W[_NRM + fj, 3], W[_NRM + fj, 4], W[_NRM + fj, 5]
            _cap_polygon(s1, p1, m1, cs, W, R, 0)
            _reverse_polygon(W, R + 1, 0, _NCAP - 1)   # clockwise about c from the +x vertex
            mB = _face_poly(t2, s2, p2, m2, va2, pa2, mesh_vert, mesh_polyvertadr,
                            mesh_polyvertnum, mesh_polyvert, fid, W, R, 6)
            if mB < 3:
                return 0
            _mj_face_order(t2, fid, W, R, 6, mB)
            m, col = _clip_mj(W, R, 6, mB, 0, _NCAP, c1x, c1y, c1z)
            if m == 0:
                return 0
            return _emit_clipped(W, R, col, m, c1x, c1y, c1z, n2x, n2y, n2z, margin, dist, pos,
                                 frame)
    # side line against a face facing the cylinder (whatever its feature: measured, a rim
    # feature of a cylinder lying on a face gives the side line)
    fk = _face_along_axis(W, nn2, nx, ny, nz, m1[2], m1[5], m1[8])
    if fk >= 0:
        fx, fy, fz = W[_NRM + fk, 3], W[_NRM + fk, 4], W[_NRM + fk, 5]
        mp = _face_poly(t2, s2, p2, m2, va2, pa2, mesh_vert, mesh_polyvertadr, mesh_polyvertnum,
                        mesh_polyvert, I[fk, 1], W, R, 6)
        if mp >= 3:
            fo = fx * W[R, 6] + fy * W[R, 7] + fz * W[R, 8]
            Ax, Ay, Az, Bx, By, Bz = _side_line(wx, wy, wz, p1, m1, s1[1])
            t0, t1 = _clip_edge_tol(Ax, Ay, Az, Bx, By, Bz, W, R, 6, mp, fx, fy, fz, 1e-10)
            if t0 <= t1:
                return _emit_edge_points(Ax, Ay, Az, Bx, By, Bz, t0, t1, fx, fy, fz, fo, 0.0,
                                         -1.0, margin, dist, pos, frame)
        # mujoco 4 stops at the first face along the axis, also when the side line misses it
        # (a box corner in a cap with an edge within EDGE_TOL of its plane: the face across
        # that edge is such a face, and the single contact stays)
        return 0
    if cs == 0 or dim2 == 3:
        return 0
    # cap against an edge of the polytope's feature (its edge, or one at its vertex) in its plane
    A2x, A2y, A2z = _feat_point(t2, s2, p2, m2, va2, mesh_vert, j0)
    B2x, B2y, B2z = _feat_point(t2, s2, p2, m2, va2, mesh_vert, j1)
    ne = _edge_dirs(t2, s2, p2, m2, va2, pa2, mesh_vert, mesh_polyvertadr, mesh_polyvertnum,
                    mesh_polyvert, mesh_polymapadr, mesh_polymapnum, mesh_polymap, dim2, j0,
                    j1, A2x, A2y, A2z, B2x, B2y, B2z, W, 3)
    ei = -1
    for j in range(ne):
        c = c1x * W[_NRM + j, 3] + c1y * W[_NRM + j, 4] + c1z * W[_NRM + j, 5]
        if abs(c) < EDGE_TOL:
            ei = j
            break
    if ei < 0:
        return 0
    Bx, By, Bz = W[_EV + ei, 0], W[_EV + ei, 1], W[_EV + ei, 2]
    _cap_polygon(s1, p1, m1, cs, W, R, 6)
    fo = c1x * W[R, 6] + c1y * W[R, 7] + c1z * W[R, 8]
    t0, t1 = _clip_edge(A2x, A2y, A2z, Bx, By, Bz, W, R, 6, _NCAP, c1x, c1y, c1z)
    if t0 > t1:
        return 0
    return _emit_edge_points(A2x, A2y, A2z, Bx, By, Bz, t0, t1, c1x, c1y, c1z, fo, 0.0, 1.0,
                             margin, dist, pos, frame)


@kernel
def nccd_collide(mesh_vertadr, mesh_vertnum, mesh_vert, mesh_graphadr, mesh_graph, mesh_extrema,
                 mesh_polyadr, mesh_polynormal, mesh_polyvertadr, mesh_polyvertnum, mesh_polyvert,
                 mesh_polymapadr, mesh_polymapnum, mesh_polymap,
                 t1, d1, s1, p1, m1, t2, d2, s2, p2, m2, margin, tol, kmax, multiccd,
                 dist, pos, frame, W, I):
    """Contacts of two convex geoms (type1 <= type2) by the native collider; returns n."""
    st, dd, ax, ay, az, bx, by, bz, face = ccd(mesh_vertadr, mesh_vertnum, mesh_vert,
                                               mesh_graphadr, mesh_graph, mesh_extrema,
                                               t1, d1, s1, p1, m1,
                                               t2, d2, s2, p2, m2, margin, tol, kmax, W, I)
    if st == 0:
        return 0
    if multiccd and (t1 == _BOX or t1 == _MESH) and (t2 == _BOX or t2 == _MESH):
        # the support indices of the final feature: the EPA face (penetrating), or (st == 1: a
        # pair with a margin, separated within it) the core GJK simplex W[0:face], its last
        # vertex repeated to three (MuJoCo 4 gives the polygon contacts in both cases, measured)
        if st == 2:
            r0, r1, r2 = _HOFF + I[face, 0], _HOFF + I[face, 1], _HOFF + I[face, 2]
        else:
            r0, r1, r2 = _SIDX, _SIDX + min(1, face - 1), _SIDX + min(2, face - 1)
        n = multicontact(mesh_vertadr, mesh_vert, mesh_polyadr, mesh_polynormal,
                         mesh_polyvertadr, mesh_polyvertnum, mesh_polyvert, mesh_polymapadr,
                         mesh_polymapnum, mesh_polymap, t1, d1, s1, p1, m1, t2, d2, s2, p2, m2,
                         I[r0, 2], I[r1, 2], I[r2, 2], I[r0, 3], I[r1, 3], I[r2, 3],
                         ax, ay, az, bx, by, bz, margin, dist, pos, frame, W, I)
        if n > 0:
            return n
    if multiccd and t2 == _CYLINDER and (t1 == _CAPSULE or t1 == _CYLINDER):
        n = cylinder_caps(mesh_vertadr, mesh_vertnum, mesh_vert, mesh_graphadr, mesh_graph,
                          mesh_extrema, t1, d1, s1, p1, m1, d2, s2, p2, m2, st, face,
                          ax, ay, az, bx, by, bz, margin, tol, kmax, dist, pos, frame, W, I)
        if n > 0:
            return n
    nx, ny, nz = ax - bx, ay - by, az - bz
    nn = math.sqrt(nx * nx + ny * ny + nz * nz)
    if nn > MINVAL:
        nx /= nn
        ny /= nn
        nz /= nn
    if multiccd and t1 == _CYLINDER and (t2 == _MESH or t2 == _BOX):
        n = cylinder_polytope(mesh_vertadr, mesh_vert, mesh_polyadr, mesh_polynormal,
                              mesh_polyvertadr, mesh_polyvertnum, mesh_polyvert, mesh_polymapadr,
                              mesh_polymapnum, mesh_polymap, s1, p1, m1, t2, d2, s2, p2, m2, st,
                              face, ax, ay, az, bx, by, bz, margin, dist, pos, frame, W, I)
        if n > 0:
            return n
    if multiccd and t1 == _CAPSULE and t2 == _MESH:
        # a capsule along a mesh face (capsule-box is analytic: not here): the mesh feature of
        # the EPA face, or (st == 1, shallow) of the core GJK simplex
        if st == 1:
            ns = face
            ia = I[_SIDX, 3]
            ib = I[_SIDX + min(1, ns - 1), 3]
            ic = I[_SIDX + min(2, ns - 1), 3]
        else:
            ia = I[_HOFF + I[face, 0], 3]
            ib = I[_HOFF + I[face, 1], 3]
            ic = I[_HOFF + I[face, 2], 3]
        n = round_multicontact(mesh_vertadr, mesh_vert, mesh_polyadr, mesh_polynormal,
                               mesh_polyvertadr, mesh_polyvertnum, mesh_polyvert,
                               mesh_polymapadr, mesh_polymapnum, mesh_polymap, t1, s1, p1, m1,
                               d2, p2, m2, ia, ib, ic, nx, ny, nz, ax, ay, az,
                               margin, dist, pos, frame, W, I)
        if n > 0:
            return n
    dist[0] = margin + dd
    pos[0, 0] = 0.5 * (ax + bx)
    pos[0, 1] = 0.5 * (ay + by)
    pos[0, 2] = 0.5 * (az + bz)
    frame[0, 0] = nx
    frame[0, 1] = ny
    frame[0, 2] = nz
    return 1
