"""The exact line search of the primal solvers (seed 001, "Solver"; MuJoCo's Computation chapter,
"Algorithms"): the 1-D convex piecewise-smooth cost along the search direction, minimised by
Newton steps from alpha = 0 while the slope keeps its sign, then a bracketed search, stopping when
|d cost/d alpha| is below ``tolerance * ls_tolerance * |search| / scale``.

It reads only per-row quantities (jar = J qacc - aref and jv = J search over the rows rows[:nr]),
never the Jacobian itself.
"""
from __future__ import annotations

import numpy as np

from .._jit import kernel
from .common import ELLIPTIC, MINVAL


@kernel
def _friction_cost(x, Di, fl, rf):
    """Cost of a friction loss row at jar = x: quadratic inside (-rf, rf), linear outside."""
    if x <= -rf:
        return -fl * x - 0.5 * rf * fl
    if x >= rf:
        return fl * x - 0.5 * rf * fl
    return 0.5 * Di * x * x


@kernel
def _ls_eval(alpha, ne, nf, rows, nr, efc_type, efc_id, efc_D, efc_R, efc_frictionloss,
             contact_mu, contact_friction, contact_dim, jar, jv, g1, g2):
    """The cost change from alpha = 0 (cost(alpha) - cost(0)) and the first two derivatives of
    the cost at ``alpha``, over the rows rows[:nr]; g1 a + g2 a^2 is the Gauss part's change.

    MuJoCo 4 (3.10 on; seed 001 "Solver") evaluates the line search on this shifted cost: near
    the optimum the change of an iteration is far below the rounding of the total cost, which a
    difference of totals loses (at tolerance 0 it decides when the solver stops). The rows in
    the quadratic state at ``alpha`` add their polynomial q0 + q1 a + q2 a^2 (q0 = 0.5 D jar^2,
    q1 = D jv jar, q2 = 0.5 D jv^2) to one total (Q0, Q1, Q2) with the Gauss part (0, g1, g2),
    which gives the cost and both derivatives (so a Newton point of a quadratic piece has slope
    0 up to the rounding of Q1); q0 counts only for a row not quadratic at 0 (its change is its
    whole cost), and a row quadratic at 0 only subtracts its q0. Friction loss rows and elliptic
    contacts outside the bottom zone add the difference of their costs at both points."""
    Q0 = 0.0
    Q1 = g1
    Q2 = g2
    c = 0.0
    d1 = 0.0
    d2 = 0.0
    k = 0
    while k < nr:
        i = rows[k]
        t = efc_type[i]
        if t == ELLIPTIC:
            cid = efc_id[i]
            dim = contact_dim[cid]
            mu = contact_mu[cid]
            fr = contact_friction[cid]
            # the contact's vector quadratic (bottom zone), its cone quantities at alpha and 0
            q0 = 0.0
            q1 = 0.0
            q2 = 0.0
            for j in range(dim):
                DJ = efc_D[i + j] * jar[i + j]
                q0 += jar[i + j] * DJ
                q1 += jv[i + j] * DJ
                q2 += jv[i + j] * efc_D[i + j] * jv[i + j]
            q0 *= 0.5
            q2 *= 0.5
            N = mu * (jar[i] + alpha * jv[i])
            N0 = mu * jar[i]
            N1 = mu * jv[i]
            T2 = 0.0
            T02 = 0.0
            UU1 = 0.0
            U1U1 = 0.0
            for j in range(1, dim):
                u = fr[j - 1] * (jar[i + j] + alpha * jv[i + j])
                u0 = fr[j - 1] * jar[i + j]
                u1 = fr[j - 1] * jv[i + j]
                T2 += u * u
                T02 += u0 * u0
                UU1 += u * u1
                U1U1 += u1 * u1
            Dm = efc_D[i] / (mu * mu * (1.0 + mu * mu))
            # zone at 0: 0 top, 1 bottom, 2 middle
            T0 = np.sqrt(T02)
            z0 = 2
            if N0 >= mu * T0 or (T0 <= 0.0 and N0 >= 0.0):
                z0 = 0
            elif mu * N0 + T0 <= 0.0 or (T0 <= 0.0 and N0 < 0.0):
                z0 = 1
            T = np.sqrt(T2)
            bottom = False
            if N >= mu * T or (T <= 0.0 and N >= 0.0):
                pass  # inside the cone (separating): no force, no cost
            elif mu * N + T <= 0.0 or (T <= 0.0 and N < 0.0):
                bottom = True
                Q1 += q1
                Q2 += q2
                if z0 != 1:
                    Q0 += q0
            else:
                NmT = N - mu * T
                T1 = UU1 / T
                T11 = (U1U1 - T1 * T1) / T
                g = N1 - mu * T1
                c += 0.5 * Dm * NmT * NmT
                d1 += Dm * NmT * g
                d2 += Dm * (g * g - NmT * mu * T11)
            # minus the contact's cost at 0 (the bottom zone's is q0: nothing when the contact is
            # in the bottom zone at both points)
            if z0 == 1 and not bottom:
                Q0 -= q0
            elif z0 == 2:
                c -= 0.5 * Dm * (N0 - mu * T0) * (N0 - mu * T0)
            k += dim
            continue
        x0 = jar[i]
        v = jv[i]
        x = x0 + alpha * v
        Di = efc_D[i]
        DJ = Di * x0
        if i < ne:
            Q1 += v * DJ
            Q2 += 0.5 * (v * Di * v)
        elif i < ne + nf:
            fl = efc_frictionloss[i]
            rf = efc_R[i] * fl
            if x <= -rf:
                c += -fl * x - 0.5 * rf * fl
                d1 += -fl * v
            elif x >= rf:
                c += fl * x - 0.5 * rf * fl
                d1 += fl * v
            else:
                Q1 += v * DJ
                Q2 += 0.5 * (v * Di * v)
                Q0 += 0.5 * (x0 * DJ)
            c -= _friction_cost(x0, Di, fl, rf)
        elif x < 0.0:
            Q1 += v * DJ
            Q2 += 0.5 * (v * Di * v)
            if x0 >= 0.0:
                Q0 += 0.5 * (x0 * DJ)
        elif x0 < 0.0:
            Q0 -= 0.5 * (x0 * DJ)
        k += 1
    c += alpha * alpha * Q2 + alpha * Q1 + Q0
    d1 += 2.0 * alpha * Q2 + Q1
    d2 += 2.0 * Q2
    return c, d1, d2


@kernel
def _ls_point(alpha, ne, nf, rows, nr, efc_type, efc_id, efc_D, efc_R, efc_frictionloss,
              contact_mu, contact_friction, contact_dim, jar, jv, g1, g2):
    """(alpha, cost(alpha) - cost(0), d cost/d alpha, d2 cost/d alpha2) with the curvature kept
    positive (a flat direction would make the Newton step of the line search undefined)."""
    c, d1, d2 = _ls_eval(alpha, ne, nf, rows, nr, efc_type, efc_id, efc_D, efc_R,
                         efc_frictionloss, contact_mu, contact_friction, contact_dim, jar, jv, g1,
                         g2)
    if d2 <= 0.0:
        d2 = MINVAL
    return (alpha, c, d1, d2)


@kernel
def _bracket_update(p, c0, c1, c2):
    """Replace the bracket end ``p`` by the candidate (in order c0, c1, c2) on the same side of
    the minimum (same derivative sign) with the smaller |derivative|. Returns (p, flag) with
    flag 0 when nothing changed, 1 for the left end, 2 for the right end."""
    flag = 0
    for k in range(3):
        c = c0 if k == 0 else (c1 if k == 1 else c2)
        if p[2] < 0.0 and c[2] < 0.0 and p[2] < c[2]:
            p = c
            flag = 1
        elif p[2] > 0.0 and c[2] > 0.0 and p[2] > c[2]:
            p = c
            flag = 2
    return p, flag


@kernel
def linesearch(ne, nf, rows, nr, efc_type, efc_id, efc_D, efc_R, efc_frictionloss, contact_mu,
               contact_friction, contact_dim, jar, jv, g1, g2, gtol, slopescl, ls_iterations):
    """Exact line search on the convex piecewise-smooth 1-D cost (seed 001, "Solver": the
    linesearch of the primal solvers). Evaluation points are (alpha, cost, d1, d2), the cost
    shifted by its value at alpha = 0 (_ls_eval):

    1. one Newton step from alpha = 0 (kept even when it raises the cost: MuJoCo 4 continues
       from it, which sets the evaluation counts of the stats); converged when |d1| < gtol;
    2. one-sided Newton steps while the derivative keeps the sign it has there (the previous
       point becomes the far end of the bracket);
    3. bracketed search: each round evaluates the bracket midpoint and compares it with the
       Newton points of both ends; any candidate with |d1| < gtol ends the search (lowest cost
       wins), otherwise each end moves to a better candidate on its side; when neither moves,
       the midpoint is returned.
    The number of evaluations is bounded by ``ls_iterations``. Returns (alpha, evaluations,
    |d1| * slopescl at the returned point, or 1 when no slope was computed, cost(alpha) -
    cost(0) there: minus the iteration's improvement)."""
    args = (ne, nf, rows, nr, efc_type, efc_id, efc_D, efc_R, efc_frictionloss, contact_mu,
            contact_friction, contact_dim, jar, jv, g1, g2)
    p0 = _ls_point(0.0, *args)
    p1 = _ls_point(-p0[2] / p0[3], *args)
    neval = 2
    if abs(p1[2]) < gtol:
        return p1[0], neval, abs(p1[2]) * slopescl, p1[1]
    direction = 1.0 if p1[2] < 0.0 else -1.0
    p2 = p1
    have_p2 = False
    while p1[2] * direction <= -gtol and neval < ls_iterations:
        p2 = p1
        have_p2 = True
        p1 = _ls_point(p1[0] - p1[2] / p1[3], *args)
        neval += 1
        if abs(p1[2]) < gtol:
            return p1[0], neval, abs(p1[2]) * slopescl, p1[1]
    if neval >= ls_iterations or not have_p2:
        return p1[0], neval, abs(p1[2]) * slopescl, p1[1]
    p2next = p1
    p1next = _ls_point(p1[0] - p1[2] / p1[3], *args)
    neval += 1
    while neval < ls_iterations:
        pmid = _ls_point(0.5 * (p1[0] + p2[0]), *args)
        neval += 1
        c0, c1, c2 = p1next, p2next, pmid
        best = -1
        bestcost = 0.0
        for k in range(3):
            c = c0 if k == 0 else (c1 if k == 1 else c2)
            if abs(c[2]) < gtol and (best == -1 or c[1] < bestcost):
                bestcost = c[1]
                best = k
        if best >= 0:
            c = c0 if best == 0 else (c1 if best == 1 else c2)
            return c[0], neval, abs(c[2]) * slopescl, c[1]
        p1, b1 = _bracket_update(p1, c0, c1, c2)
        if b1:
            p1next = _ls_point(p1[0] - p1[2] / p1[3], *args)
            neval += 1
        p2, b2 = _bracket_update(p2, c0, c1, c2)
        if b2:
            p2next = _ls_point(p2[0] - p2[2] / p2[3], *args)
            neval += 1
        if not b1 and not b2:
            return pmid[0], neval, abs(pmid[2]) * slopescl, pmid[1]
    if p1[1] <= p2[1] and p1[1] < p0[1]:
        return p1[0], neval, abs(p1[2]) * slopescl, p1[1]
    if p2[1] <= p1[1] and p2[1] < p0[1]:
        return p2[0], neval, abs(p2[2]) * slopescl, p2[1]
    return 0.0, neval, 1.0, 0.0
