"""Tendons, position stage (seed 001, "forward dynamics", mj_fwdPosition's mj_tendon): lengths
``ten_length`` (m, or rad for fixed tendons of hinges), the moment arms ``ten_J`` (dense rows and
their sparsity), and the wrapping path ``wrap_obj`` / ``wrap_xpos`` (global frame) of spatial
tendons through sites, pulleys, and around spheres and cylinders (with and without side sites).

Split from engine/smooth.py, which calls `tendon(M, D)` inside mj_fwdPosition; the velocity-stage
parts of tendons (tendon_bias, actuator velocities) stay there with the other velocity stages.
"""
from __future__ import annotations

import math

from . import math as mm
from .support import add_point_jac_dot, last_dof
from ._access import f1, f2, i1, i2
from ._layout import DF, MF
from .enums import (mjWRAP_JOINT as WRAP_JOINT, mjWRAP_PULLEY as WRAP_PULLEY,  # noqa
                    mjWRAP_SPHERE as WRAP_SPHERE,
                    mjWRAP_CYLINDER as WRAP_CYLINDER)
from .enums import mjMINVAL

from ._jit import kernel

@kernel
def _tangent(d, sqrad, rad, sgn):
    """Tangent point on the circle |x| = rad seen from the 2-D point d (outside), on side sgn:
    +1 is where a counter-clockwise path from d touches the circle."""
    sq = d[0] * d[0] + d[1] * d[1]
    a = sqrad / sq
    b = sgn * rad * math.sqrt(sq - sqrad) / sq
    return (a * d[0] - b * d[1], a * d[1] + b * d[0])


@kernel
def _ccw_angle(a, b):
    """Counter-clockwise angle in [0, 2pi) from 2-D direction a to b."""
    ang = math.atan2(a[0] * b[1] - a[1] * b[0], a[0] * b[0] + a[1] * b[1])
    if ang < 0:
        ang += 2 * math.pi
    return ang


@kernel
def _segments_meet(a0, a1, b0, b1):
    """Whether the 2-D segments a0-a1 and b0-b1 meet, endpoints included (parallel ones never
    do): both parameters of the lines' intersection lie in [0, 1]."""
    ex, ey = a1[0] - a0[0], a1[1] - a0[1]
    fx, fy = b1[0] - b0[0], b1[1] - b0[1]
    det = fy * ex - fx * ey
    if abs(det) < mjMINVAL:
        return False
    gx, gy = a0[0] - b0[0], a0[1] - b0[1]
    ua = (fx * gy - fy * gx) / det
    ub = (ex * gy - ey * gx) / det
    return 0.0 <= ua <= 1.0 and 0.0 <= ub <= 1.0


@kernel
def _unit2(x, y):
    """(x, y) normalised; (1, 0) when it is too short to have a direction."""
    n = math.sqrt(x * x + y * y)
    if n < mjMINVAL:
        return 1.0, 0.0
    return x / n, y / n


@kernel
def _opposite_side(d0, d1, sd):
    """Whether the direction -sd lies inside the (convex) angle between the directions of d0
    and d1 seen from the origin, boundaries included."""
    c = d0[0] * d1[1] - d0[1] * d1[0]
    vx, vy = -sd[0], -sd[1]
    if (d0[0] * vy - d0[1] * vx) * c < 0.0 or (vx * d1[1] - vy * d1[0]) * c < 0.0:
        return False
    # with c == 0 (d0, d1 aligned with the centre) the tests above pass for any v: require v to
    # point along one of them
    return vx * d0[0] + vy * d0[1] > 0.0 or vx * d1[0] + vy * d1[1] > 0.0


@kernel
def wrap_circle(d0, d1, sd, has_side, rad):
    """Path from d0 to d1 (2-D) around the circle |x| = rad: returns (arc length, t0, t1) with
    t0/t1 the tangent points, or (-1, ...) when the straight segment is kept.

    The segment wraps when it crosses the circle, or, with a side point ``sd`` (its direction
    scaled to the circle: see `wrap`), when the side point lies behind the circle as seen from
    the segment: -sd inside the angle d0-centre-d1. Of the two wraps (clockwise and
    counter-clockwise tangent pairs) the one whose tangent points' sum has the larger dot product
    with the side point wins when the side point is behind or the chords are equal, else the one
    with the shorter chord;
    a wrap whose two straight pieces meet loses, and when the winner's pieces meet the segment
    stays straight.

    Measured against mujoco 4.0.0, whose rule differs from the older public one (that forced the
    wrap whenever the segment's closest point to the centre faced away from the side point, and
    chose by the normalised sum): 20000 random planar configurations agree to 1e-9."""
    sqrad = rad * rad
    z = (0.0, 0.0)
    if d0[0] * d0[0] + d0[1] * d0[1] < sqrad or d1[0] * d1[0] + d1[1] * d1[1] < sqrad \
            or rad < mjMINVAL:
        return -1.0, z, z
    dx, dy = d1[0] - d0[0], d1[1] - d0[1]
    dd = dx * dx + dy * dy
    if dd < mjMINVAL:
        return -1.0, z, z
    # nearest point of the segment to the centre
    u = -(d0[0] * dx + d0[1] * dy) / dd
    u = min(max(u, 0.0), 1.0)
    nx, ny = d0[0] + u * dx, d0[1] + u * dy
    behind = has_side and _opposite_side(d0, d1, sd)
    if nx * nx + ny * ny > sqrad and not behind:
        return -1.0, z, z
    # candidate 0 runs clockwise from d0's tangent point to d1's, candidate 1 counter-clockwise
    c0 = _tangent(d0, sqrad, rad, -1.0)
    c1 = _tangent(d1, sqrad, rad, 1.0)
    w0 = _tangent(d0, sqrad, rad, 1.0)
    w1 = _tangent(d1, sqrad, rad, -1.0)
    ang_cw = _ccw_angle(c1, c0)
    ang_ccw = _ccw_angle(w0, w1)
    if not behind:
        good_cw = -((c0[0] - c1[0]) ** 2 + (c0[1] - c1[1]) ** 2)
        good_ccw = -((w0[0] - w1[0]) ** 2 + (w0[1] - w1[1]) ** 2)
    if behind or (has_side and good_cw == good_ccw):
        # not normalised: the sum's length matters when both wraps are long (measured); equal
        # chords (a segment through the centre) also go to the side point's side (measured:
        # island/tendon_wrap.xml's cylinders centred on the tendon)
        good_cw = (c0[0] + c1[0]) * sd[0] + (c0[1] + c1[1]) * sd[1]
        good_ccw = (w0[0] + w1[0]) * sd[0] + (w0[1] + w1[1]) * sd[1]
    meet_cw = _segments_meet(d0, c0, d1, c1)
    meet_ccw = _segments_meet(d0, w0, d1, w1)
    if meet_cw:
        good_cw = -10000.0
    if meet_ccw:
        good_ccw = -10000.0
    if good_cw > good_ccw:
        if meet_cw:
            return -1.0, z, z
        return rad * ang_cw, c0, c1
    if meet_ccw:
        return -1.0, z, z
    return rad * ang_ccw, w0, w1


@kernel
def wrap_inside(d0, d1, rad):
    """Path from d0 to d1 (2-D) constrained to pass through the disc |x| <= rad (a side site
    inside the geom): the straight segment when it crosses the disc, else one point p on the
    circle where the circle's normal bisects the two straight pieces. Returns (0, p, p), or
    (-1, ...) for the straight segment.

    As MuJoCo: with G the angle d0-centre-d1, A = rad/|d0|, B = rad/|d1|, the contact angle
    solves asin(A z) + asin(B z) - 2 asin(z) + G = 0 for z = sin(angle between p and its
    pieces); Newton steps from z = 1 - 1e-7 to |residual| <= 1e-6 (at most 20). When that fails
    (or the ends are aligned with the centre) p is the circle point along d0 + d1."""
    z2 = (0.0, 0.0)
    len0 = math.sqrt(d0[0] * d0[0] + d0[1] * d0[1])
    len1 = math.sqrt(d1[0] * d1[0] + d1[1] * d1[1])
    if len0 <= rad or len1 <= rad or rad < mjMINVAL or len0 < mjMINVAL or len1 < mjMINVAL:
        return -1.0, z2, z2
    dx, dy = d1[0] - d0[0], d1[1] - d0[1]
    dd = dx * dx + dy * dy
    if dd > mjMINVAL:
        u = -(d0[0] * dx + d0[1] * dy) / dd
        if 0.0 < u < 1.0:
            nx, ny = d0[0] + u * dx, d0[1] + u * dy
            if math.sqrt(nx * nx + ny * ny) <= rad:
                return -1.0, z2, z2
    mx, my = _unit2(0.5 * (d0[0] + d1[0]), 0.5 * (d0[1] + d1[1]))
    fallback = (rad * mx, rad * my)
    A = rad / len0
    B = rad / len1
    cosg = (len0 * len0 + len1 * len1 - dd) / (2.0 * len0 * len1)
    if cosg < -1.0 + mjMINVAL:
        return -1.0, z2, z2
    if cosg > 1.0 - mjMINVAL:
        return 0.0, fallback, fallback
    g = math.acos(cosg)
    z = 1.0 - 1e-7
    f = math.asin(A * z) + math.asin(B * z) - 2.0 * math.asin(z) + g
    if f > 0.0:
        return 0.0, fallback, fallback
    it = 0
    while it < 20 and abs(f) > 1e-6:
        df = (A / max(mjMINVAL, math.sqrt(1.0 - z * z * A * A))
              + B / max(mjMINVAL, math.sqrt(1.0 - z * z * B * B))
              - 2.0 / max(mjMINVAL, math.sqrt(1.0 - z * z)))
        if df > -mjMINVAL:
            return 0.0, fallback, fallback
        z1 = z - f / df
        if z1 > z:
            return 0.0, fallback, fallback
        z = z1
        f = math.asin(A * z) + math.asin(B * z) - 2.0 * math.asin(z) + g
        if f > 1e-6:
            return 0.0, fallback, fallback
        it += 1
    if it >= 20:
        return 0.0, fallback, fallback
    # rotate the end that sees the other counter-clockwise by the angle from it to p
    if d0[0] * d1[1] - d0[1] * d1[0] > 0.0:
        vx, vy = _unit2(d0[0], d0[1])
        ang = math.asin(z) - math.asin(A * z)
    else:
        vx, vy = _unit2(d1[0], d1[1])
        ang = math.asin(z) - math.asin(B * z)
    c, s_ = math.cos(ang), math.sin(ang)
    p = (rad * (c * vx - s_ * vy), rad * (s_ * vx + c * vy))
    return 0.0, p, p


@kernel
def _side_on_circle(x, y, rad):
    """The side point's direction in the wrap plane, scaled to the circle: the wrap rules use
    only where the side site lies around the geom, not how far."""
    ux, uy = _unit2(x, y)
    return (rad * ux, rad * uy)


@kernel
def wrap(x0, x1, gpos, gmat, rad, gtype, side, has_side):
    """mju_wrap: wrap the segment x0-x1 around a sphere or (infinite) cylinder geom of radius
    ``rad`` at (gpos, gmat). Returns (length of the wrapped part, point 0, point 1) in global
    coordinates, or length -1 when the segment does not wrap."""
    p0 = mm.mat_t_vec(gmat, mm.sub3(x0, gpos))
    p1 = mm.mat_t_vec(gmat, mm.sub3(x1, gpos))
    z3 = (0.0, 0.0, 0.0)
    if mm.norm3(p0) < mjMINVAL or mm.norm3(p1) < mjMINVAL:
        return -1.0, z3, z3
    s = mm.mat_t_vec(gmat, mm.sub3(side, gpos)) if has_side else z3
    if gtype == WRAP_SPHERE:
        # plane of the wrap: through the centre, p0 and p1
        ax0, _ = mm.normalize3(p0)
        nrm, nn = mm.normalize3(mm.cross3(p0, p1))
        if nn < mjMINVAL:
            # p0, p1 and the centre are collinear: the plane holding p0 and the vector of ones
            # with a zero at p0's largest component (MuJoCo's choice)
            a = (abs(ax0[0]), abs(ax0[1]), abs(ax0[2]))
            k = 0
            if a[1] > a[0] and a[1] > a[2]:
                k = 1
            if a[2] > a[0] and a[2] > a[1]:
                k = 2
            alt = (0.0 if k == 0 else 1.0, 0.0 if k == 1 else 1.0, 0.0 if k == 2 else 1.0)
            nrm, _ = mm.normalize3(mm.cross3(ax0, alt))
        ax1, _ = mm.normalize3(mm.cross3(nrm, ax0))
        d0 = (mm.dot3(p0, ax0), mm.dot3(p0, ax1))
        d1 = (mm.dot3(p1, ax0), mm.dot3(p1, ax1))
        sd = _side_on_circle(mm.dot3(s, ax0), mm.dot3(s, ax1), rad)
        if has_side and mm.norm3(s) < rad:
            wlen, t0, t1 = wrap_inside(d0, d1, rad)
        else:
            wlen, t0, t1 = wrap_circle(d0, d1, sd, has_side, rad)
        if wlen < 0:
            return -1.0, z3, z3
        l0 = mm.add3(mm.scl3(ax0, t0[0]), mm.scl3(ax1, t0[1]))
        l1 = mm.add3(mm.scl3(ax0, t1[0]), mm.scl3(ax1, t1[1]))
    else:
        d0 = (p0[0], p0[1])
        d1 = (p1[0], p1[1])
        sd = _side_on_circle(s[0], s[1], rad)
        if has_side and mm.norm3(s) < rad:
            wlen, t0, t1 = wrap_inside(d0, d1, rad)
        else:
            wlen, t0, t1 = wrap_circle(d0, d1, sd, has_side, rad)
        if wlen < 0:
            return -1.0, z3, z3
        # heights: the tendon is a straight line on the unrolled cylinder
        la = math.sqrt((d0[0] - t0[0]) ** 2 + (d0[1] - t0[1]) ** 2)
        lb = math.sqrt((d1[0] - t1[0]) ** 2 + (d1[1] - t1[1]) ** 2)
        tot = la + wlen + lb
        dz = p1[2] - p0[2]
        z0 = p0[2] + dz * la / tot
        z1 = p0[2] + dz * (la + wlen) / tot
        wlen = math.sqrt(wlen * wlen + (z1 - z0) * (z1 - z0))
        l0 = (t0[0], t0[1], z0)
        l1 = (t1[0], t1[1], z1)
    return wlen, mm.add3(gpos, mm.mat_vec(gmat, l0)), mm.add3(gpos, mm.mat_vec(gmat, l1))


@kernel
def tendon_kernel(
    # Model:
    tendon_adr, tendon_num, wrap_type, wrap_objid, wrap_prm, jnt_qposadr, jnt_dofadr,
    site_bodyid, geom_bodyid, geom_size, body_parentid, body_rootid, body_dofnum, body_dofadr,
    dof_parentid,
    # Data in:
    qpos, site_xpos, geom_xpos, geom_xmat, subtree_com, cdof,
    # Data out:
    ten_wrapadr, ten_wrapnum, ten_length, ten_J, ten_J_rownnz, ten_J_rowadr, ten_J_colind,
    wrap_obj, wrap_xpos, wrap_body, wrap_div, mark,
):
    """mj_tendon: lengths and dense Jacobians (ntendon x nv) of fixed and spatial tendons, with
    each row's structural columns (ten_J_rownnz / colind, increasing; rowadr = row * nv): a
    fixed tendon's joint dofs, a spatial tendon's dof chains of the bodies its path touches.
    Every nonzero of the dense row is among them, so a row is cleared, and read by the stages
    after (constraint rows, velocities), on those columns only, not over nv (100_humanoids: 200
    tendons x nv 2700). ``mark``: nv scratch.

    Fixed: length = sum coef*qpos. Spatial: the path visits its sites in order; a sphere or
    cylinder between two sites may wrap the segment; a pulley starts a new branch whose length is
    divided by its divisor. Wrap points are stored as the path's vertices: ``wrap_obj`` -1 for a
    site, the geom id for a tangent point, -2 for a pulley (``wrap_xpos`` zero); they are taken as
    fixed to the geom's body for the Jacobian (the tangency makes their sliding cost nothing).
    ``wrap_body``/``wrap_div`` (workspace, one per vertex) keep each vertex's body (-1 for a
    pulley) and its branch divisor for the tendon-armature bias. ``wrap_obj``, ``wrap_xpos``,
    ``wrap_body``, ``wrap_div`` are the flat (1-D) views of those fields: vertex w is at
    [w] (obj, body, div) and [3w:3w+3] (xpos).
    """
    nv = cdof.shape[0]
    wo = wrap_obj
    wx = wrap_xpos
    wb = wrap_body
    wd = wrap_div
    wcount = 0
    for k in range(nv):
        mark[k] = -1
    for t in range(tendon_adr.shape[0]):
        adr = tendon_adr[t]
        num = tendon_num[t]
        ten_wrapadr[t] = wcount
        ten_wrapnum[t] = 0
        cols = ten_J_colind[t]
        for p in range(ten_J_rownnz[t]):
            ten_J[t, cols[p]] = 0.0
        ten_J_rowadr[t] = t * nv
        n = 0
        length = 0.0
        if num > 0 and wrap_type[adr] == WRAP_JOINT:
            for w in range(adr, adr + num):
                j = wrap_objid[w]
                c = wrap_prm[w]
                length += c * qpos[jnt_qposadr[j]]
                ten_J[t, jnt_dofadr[j]] += c
                if mark[jnt_dofadr[j]] != t:
                    mark[jnt_dofadr[j]] = t
                    cols[n] = jnt_dofadr[j]
                    n += 1
            ten_length[t] = length
            ten_J_rownnz[t] = _sorted(cols, n)
            continue
        divisor = 1.0
        j = 0
        while j < num - 1:
            ty0 = wrap_type[adr + j]
            ty1 = wrap_type[adr + j + 1]
            if ty0 == WRAP_PULLEY or ty1 == WRAP_PULLEY:
                if ty0 == WRAP_PULLEY:
                    divisor = wrap_prm[adr + j]
                    wb[wcount] = -1
                    wd[wcount] = divisor
                    wo[wcount] = -2
                    wx[3 * wcount:3 * wcount + 3] = 0.0
                    ten_wrapnum[t] += 1
                    wcount += 1
                j += 1
                continue
            s0 = wrap_objid[adr + j]
            pa = mm.get3(site_xpos[s0])
            ba = site_bodyid[s0]
            wlen = -1.0
            g = -1
            if ty1 == WRAP_SPHERE or ty1 == WRAP_CYLINDER:
                g = wrap_objid[adr + j + 1]
                sideid = int(round(wrap_prm[adr + j + 1]))
                s1 = wrap_objid[adr + j + 2]
                pb = mm.get3(site_xpos[s1])
                has_side = sideid >= 0
                side = mm.get3(site_xpos[sideid]) if has_side else (0.0, 0.0, 0.0)
                wlen, w0, w1 = wrap(pa, pb, geom_xpos[g], geom_xmat[g], geom_size[g, 0], ty1,
                                    side, has_side)
                step = 2
            else:
                s1 = wrap_objid[adr + j + 1]
                pb = mm.get3(site_xpos[s1])
                step = 1
            bb = site_bodyid[s1]
            inv = 1.0 / divisor
            n = _mark_chain(body_parentid, body_dofnum, body_dofadr, dof_parentid, ba, t, mark,
                            cols, n)
            n = _mark_chain(body_parentid, body_dofnum, body_dofadr, dof_parentid, bb, t, mark,
                            cols, n)
            if g >= 0:
                n = _mark_chain(body_parentid, body_dofnum, body_dofadr, dof_parentid,
                                geom_bodyid[g], t, mark, cols, n)
            # first vertex of this piece
            wb[wcount] = ba
            wd[wcount] = divisor
            wo[wcount] = -1
            mm.set3(wx[3 * wcount:3 * wcount + 3], pa)
            wcount += 1
            ten_wrapnum[t] += 1
            if wlen < 0:
                dv, dist = mm.normalize3(mm.sub3(pb, pa))
                length += dist * inv
                if ba != bb:
                    _seg_jac(ba, bb, pa, pb, dv, inv, body_parentid, body_rootid, body_dofnum,
                             body_dofadr, dof_parentid, subtree_com, cdof, ten_J[t])
            else:
                gb = geom_bodyid[g]
                da, la = mm.normalize3(mm.sub3(w0, pa))
                db, lb = mm.normalize3(mm.sub3(pb, w1))
                length += (la + wlen + lb) * inv
                if ba != gb:
                    _seg_jac(ba, gb, pa, w0, da, inv, body_parentid, body_rootid, body_dofnum,
                             body_dofadr, dof_parentid, subtree_com, cdof, ten_J[t])
                if gb != bb:
                    _seg_jac(gb, bb, w1, pb, db, inv, body_parentid, body_rootid, body_dofnum,
                             body_dofadr, dof_parentid, subtree_com, cdof, ten_J[t])
                wb[wcount] = gb
                wb[wcount + 1] = gb
                wd[wcount] = divisor
                wd[wcount + 1] = divisor
                wo[wcount] = g
                mm.set3(wx[3 * wcount:3 * wcount + 3], w0)
                wo[wcount + 1] = g
                mm.set3(wx[3 * wcount + 3:3 * wcount + 6], w1)
                wcount += 2
                ten_wrapnum[t] += 2
            j += step
            if j == num - 1 or wrap_type[adr + j + 1] == WRAP_PULLEY:
                # the last site of the path or of this branch
                wb[wcount] = bb
                wd[wcount] = divisor
                wo[wcount] = -1
                mm.set3(wx[3 * wcount:3 * wcount + 3], pb)
                wcount += 1
                ten_wrapnum[t] += 1
        ten_length[t] = length
        ten_J_rownnz[t] = _sorted(cols, n)


@kernel
def _mark_chain(body_parentid, body_dofnum, body_dofadr, dof_parentid, b, t, mark, cols, n):
    """The dofs of body b's chain into cols[n:] unless marked for tendon t already (a marked
    dof's ancestors are marked too: the walk stops there). Returns the new count."""
    k = last_dof(body_parentid, body_dofnum, body_dofadr, b)
    while k >= 0 and mark[k] != t:
        mark[k] = t
        cols[n] = k
        n += 1
        k = dof_parentid[k]
    return n


@kernel
def _sorted(cols, n):
    """Insertion sort of the ints cols[:n] (a tendon's few columns), increasing; returns n."""
    for i in range(1, n):
        v = cols[i]
        j = i - 1
        while j >= 0 and cols[j] > v:
            cols[j + 1] = cols[j]
            j -= 1
        cols[j + 1] = v
    return n


@kernel
def _seg_jac(ba, bb, pa, pb, dv, scale, body_parentid, body_rootid, body_dofnum, body_dofadr,
             dof_parentid, subtree_com, cdof, row):
    """row += scale * dv' (jacp(pb, bb) - jacp(pa, ba)): a straight segment's length gradient."""
    add_point_jac_dot(body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid,
                      subtree_com, cdof, pb, bb, dv, scale, row)
    add_point_jac_dot(body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid,
                      subtree_com, cdof, pa, ba, dv, -scale, row)


@kernel
def tendon(M, D):
    """mj_tendon stage: ten_length, ten_J (dense), ten_wrapadr/num, wrap_obj, wrap_xpos."""
    if i1(M, MF.tendon_adr).shape[0] == 0:
        return
    tendon_kernel(
        i1(M, MF.tendon_adr), i1(M, MF.tendon_num), i1(M, MF.wrap_type), i1(M, MF.wrap_objid),
        f1(M, MF.wrap_prm), i1(M, MF.jnt_qposadr), i1(M, MF.jnt_dofadr), i1(M, MF.site_bodyid),
        i1(M, MF.geom_bodyid), f2(M, MF.geom_size), i1(M, MF.body_parentid),
        i1(M, MF.body_rootid), i1(M, MF.body_dofnum), i1(M, MF.body_dofadr),
        i1(M, MF.dof_parentid),
        f1(D, DF.qpos), f2(D, DF.site_xpos), f2(D, DF.geom_xpos), f2(D, DF.geom_xmat),
        f2(D, DF.subtree_com), f2(D, DF.cdof),
        i1(D, DF.ten_wrapadr), i1(D, DF.ten_wrapnum), f1(D, DF.ten_length), f2(D, DF.ten_J),
        i1(D, DF.ten_J_rownnz), i1(D, DF.ten_J_rowadr), i2(D, DF.ten_J_colind),
        i1(D, DF.wrap_obj), f1(D, DF.wrap_xpos), i1(D, DF.sm_wrapbody), f1(D, DF.sm_wrapdiv),
        i1(D, DF.sm_tenmark))
