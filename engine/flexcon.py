"""Constraint rows of flex contacts (seed 001 "Deformable objects", "Contacts"; MuJoCo 4.0.0's
mj_instantiateContact, mj_elemBodyWeight, mj_jacSum and the contact case of mj_diagApprox).

A contact side is a geom (its body), a flex vertex (the vertex's body) or a flex element. With a
single body on each side the contact is a geom contact's two-body row (engine/constraint.py).
With an element, the element's vertex bodies share the side with weights: the barycentric
coordinates of the element's point closest to the contact point (measured against mujoco 4.0.0); the Jacobian is the
weighted sum of the bodies' point Jacobians at the contact point (side 0 negated), rotated into
the contact frame, over the union of the bodies' dof chains; diagApprox takes the weighted sum
of the bodies' body_invweight0 (weights positive).

Scratch (FLEX_DATA_TABLE): flexcon_cols, two dof lists for the chain merges; a contact's
bodies and weights (at most 4 + 4) are tuples.
"""
from __future__ import annotations


from . import math as mm
from ._access import f2, i1, i2
from ._jit import inline, kernel
from ._layout import DF, MF
from .support import last_dof
from .collision.flex import triangle_closest

mjMINVAL = 1e-15


@kernel
def _vert_body(M, f, v):
    return i1(M, MF.flex_vertbodyid)[i1(M, MF.flex_vertadr)[f] + v]


@kernel
def _tetra_closest(p, a, b, c, d):
    """Barycentric weights of the point of tetrahedron abcd closest to p: p's own when inside,
    else those of the nearest point on its faces."""
    e1, e2, e3 = mm.sub3(b, a), mm.sub3(c, a), mm.sub3(d, a)
    x = mm.sub3(p, a)
    vol = mm.dot3(e1, mm.cross3(e2, e3))
    if abs(vol) > mjMINVAL:
        w1 = mm.dot3(x, mm.cross3(e2, e3)) / vol
        w2 = mm.dot3(e1, mm.cross3(x, e3)) / vol
        w3 = mm.dot3(e1, mm.cross3(e2, x)) / vol
        w0 = 1.0 - w1 - w2 - w3
        if w0 >= 0 and w1 >= 0 and w2 >= 0 and w3 >= 0:
            return w0, w1, w2, w3
    best = 1e300
    r = (1.0, 0.0, 0.0, 0.0)
    for f in range(4):
        # face f leaves out vertex f
        if f == 0:
            pa, pb, pc = b, c, d
        elif f == 1:
            pa, pb, pc = a, c, d
        elif f == 2:
            pa, pb, pc = a, b, d
        else:
            pa, pb, pc = a, b, c
        u, v, w = triangle_closest(p, pa, pb, pc)
        q = mm.add3(mm.scl3(pa, u), mm.add3(mm.scl3(pb, v), mm.scl3(pc, w)))
        dq = mm.sub3(p, q)
        dd = mm.dot3(dq, dq)
        if dd < best:
            best = dd
            if f == 0:
                r = (0.0, u, v, w)
            elif f == 1:
                r = (u, 0.0, v, w)
            elif f == 2:
                r = (u, v, 0.0, w)
            else:
                r = (u, v, w, 0.0)
    return r


@kernel
def _elem_weights(M, D, f, e, v, pos):
    """(bodies (4,), weights (4,)) of element e of flex f at the contact point pos: the
    barycentric coordinates of the element's point closest to pos (segment, triangle,
    tetrahedron); slots past the element weigh 0. Measured on mujoco 4.0.0: its Jacobians of
    sphere-capsule (dim 1) and sphere-triangle (dim 2) flex contacts split the contact among
    the element's vertices exactly so (16 of 16 cloth contacts, to the last digit printed), and
    its diagApprox sums the vertex bodies' invweight0 with these weights. The other side's
    vertex v, if it belongs to the element, is left out and the rest renormalised."""
    dim = i1(M, MF.flex_dim)[f]
    ed = i1(M, MF.flex_elemdataadr)[f] + e * (dim + 1)
    elem = i1(M, MF.flex_elem)
    va = i1(M, MF.flex_vertadr)[f]
    vbody = i1(M, MF.flex_vertbodyid)
    vx = f2(D, DF.flexvert_xpos)
    n = dim + 1
    i0, i1_, i2_, i3_ = (elem[ed], elem[ed + min(1, n - 1)], elem[ed + min(2, n - 1)],
                         elem[ed + min(3, n - 1)])
    p0 = (vx[va + i0, 0], vx[va + i0, 1], vx[va + i0, 2])
    p1 = (vx[va + i1_, 0], vx[va + i1_, 1], vx[va + i1_, 2])
    p2 = (vx[va + i2_, 0], vx[va + i2_, 1], vx[va + i2_, 2])
    p3 = (vx[va + i3_, 0], vx[va + i3_, 1], vx[va + i3_, 2])
    x = (pos[0], pos[1], pos[2])
    w0, w1, w2, w3 = 1.0, 0.0, 0.0, 0.0
    if dim == 1:
        e1 = mm.sub3(p1, p0)
        t = mm.dot3(mm.sub3(x, p0), e1) / max(mjMINVAL, mm.dot3(e1, e1))
        t = min(max(t, 0.0), 1.0)
        w0, w1 = 1.0 - t, t
    elif dim == 2:
        w0, w1, w2 = triangle_closest(x, p0, p1, p2)
    else:
        w0, w1, w2, w3 = _tetra_closest(x, p0, p1, p2, p3)
    if i0 == v:
        w0 = 0.0
    if n > 1 and i1_ == v:
        w1 = 0.0
    if n > 2 and i2_ == v:
        w2 = 0.0
    if n > 3 and i3_ == v:
        w3 = 0.0
    tot = w0 + w1 + w2 + w3
    if tot < mjMINVAL:
        w0, w1, w2, w3 = 1.0, 0.0, 0.0, 0.0
    else:
        w0, w1, w2, w3 = w0 / tot, w1 / tot, w2 / tot, w3 / tot
    return ((vbody[va + i0], vbody[va + i1_], vbody[va + i2_], vbody[va + i3_]),
            (w0, w1, w2, w3))


@kernel
def _side(M, D, c, side):
    """(bodies (4,), weights (4,), single) of one side of flex contact c: a geom's or a vertex's
    body with weight 1 (single), or an element's weighted bodies."""
    geom = i2(D, DF.contact_geom)[c]
    flex = i2(D, DF.contact_flex)[c]
    vert = i2(D, DF.contact_vert)[c]
    if geom[side] >= 0 or vert[side] >= 0:
        if geom[side] >= 0:
            b = i1(M, MF.geom_bodyid)[geom[side]]
        else:
            b = _vert_body(M, flex[side], vert[side])
        return (b, b, b, b), (1.0, 0.0, 0.0, 0.0), True
    bs, ws = _elem_weights(M, D, flex[side], i2(D, DF.contact_elem)[c][side], vert[1 - side],
                           f2(D, DF.contact_pos)[c])
    return bs, ws, False


@kernel
def contact_sides(M, D, c):
    """The bodies of flex contact c: (simple, b1, b2, bodies (8,), signed weights (8,), tran).
    ``simple``: one body per side (b1, b2; the geom contact path applies); else the weighted
    bodies of the Jacobian sum (side 0 negative; weight 0: no body) and tran, the weighted
    body_invweight0 translation sum of mj_diagApprox."""
    inv0 = f2(M, MF.body_invweight0)
    ba, wa, sa = _side(M, D, c, 0)
    bb, wb, sb = _side(M, D, c, 1)
    tran = 0.0
    for i in range(4):
        tran += inv0[ba[i], 0] * wa[i] + inv0[bb[i], 0] * wb[i]
    bodies = (ba[0], ba[1], ba[2], ba[3], bb[0], bb[1], bb[2], bb[3])
    weights = (-wa[0], -wa[1], -wa[2], -wa[3], wb[0], wb[1], wb[2], wb[3])
    return sa and sb, ba[0], bb[0], bodies, weights, tran


@kernel
def union_cols(M, D, bodies, weights, cols):
    """The union of the dof chains of the bodies of nonzero weight, increasing, into cols;
    returns its size."""
    body_parentid = i1(M, MF.body_parentid)
    body_dofnum = i1(M, MF.body_dofnum)
    body_dofadr = i1(M, MF.body_dofadr)
    dof_parentid = i1(M, MF.dof_parentid)
    work = i2(D, DF.flexcon_cols)
    cur = work[0]
    tmp = work[1]
    n = 0
    for i in range(8):
        if weights[i] == 0.0:
            continue
        # the body's chain, decreasing
        m = 0
        k = last_dof(body_parentid, body_dofnum, body_dofadr, bodies[i])
        while k >= 0:
            tmp[m] = k
            m += 1
            k = dof_parentid[k]
        # merge cur (increasing, n) with tmp (decreasing, m) into cols (increasing)
        a, bq, out = 0, m - 1, 0
        while a < n or bq >= 0:
            if bq < 0 or (a < n and cur[a] < tmp[bq]):
                cols[out] = cur[a]
                a += 1
            elif a >= n or tmp[bq] < cur[a]:
                cols[out] = tmp[bq]
                bq -= 1
            else:
                cols[out] = cur[a]
                a += 1
                bq -= 1
            out += 1
        n = out
        for j in range(n):
            cur[j] = cols[j]
    return n


@inline
def add_dof_rows(rows, col, w, frame, cd, off, dim):
    """rows[0:dim, col] += w times dof cd's (cdof row) velocity at the point ``off`` from its
    tree's centre of mass, in the contact frame: linear on the normal and tangents, then
    (dim > 3) angular."""
    lin = mm.add3((cd[3], cd[4], cd[5]), mm.cross3((cd[0], cd[1], cd[2]), off))
    for j in range(min(dim, 3)):
        rows[j, col] += w * (frame[3 * j] * lin[0] + frame[3 * j + 1] * lin[1]
                             + frame[3 * j + 2] * lin[2])
    for j in range(dim - 3):
        rows[3 + j, col] += w * (frame[3 * j] * cd[0] + frame[3 * j + 1] * cd[1]
                                 + frame[3 * j + 2] * cd[2])


@kernel
def weighted_jac(M, D, bodies, weights, pos, frame, dim, rows, loc):
    """rows[0:dim] (zeroed first) = the contact frame times sum_k weights[k] jac(bodies[k], pos):
    translation rows on the normal and tangents, then (dim > 3) the rotation rows. Dof k's
    column is loc[k] (the identity for dense rows)."""
    body_parentid = i1(M, MF.body_parentid)
    body_rootid = i1(M, MF.body_rootid)
    body_dofnum = i1(M, MF.body_dofnum)
    body_dofadr = i1(M, MF.body_dofadr)
    dof_parentid = i1(M, MF.dof_parentid)
    subtree_com = f2(D, DF.subtree_com)
    cdof = f2(D, DF.cdof)
    for j in range(dim):
        for k in range(rows.shape[1]):
            rows[j, k] = 0.0
    p = (pos[0], pos[1], pos[2])
    for i in range(8):
        b = bodies[i]
        w = weights[i]
        if w == 0.0:
            continue
        off = mm.sub3(p, subtree_com[body_rootid[b]])
        k = last_dof(body_parentid, body_dofnum, body_dofadr, b)
        while k >= 0:
            add_dof_rows(rows, loc[k], w, frame, cdof[k], off, dim)
            k = dof_parentid[k]
