"""Constraint solvers: the solver half of mj_fwdConstraint, and mj_constraintUpdate.

Spec: seed 001 (constraint model, warm start, diagnostics ``solver_niter``/``solver`` stats) and the
solver options of seed 000 (``solver``, ``iterations``, ``tolerance``, ``ls_iterations``,
``ls_tolerance``, ``noslip_iterations``, ``noslip_tolerance``, ``cone``, flag ``warmstart``); the
algorithms follow MuJoCo's Computation chapter ("Constraint model", "Solver") and Todorov (2014),
"Convex and analytically-invertible dynamics with contacts and constraints".

The problem (primal form, over the joint acceleration ``a``, units of generalized acceleration):

    minimize  0.5 (a - qacc_smooth)' M (a - qacc_smooth)  +  s(J a - aref)

with ``s`` the sum of per-row costs of ``jar = J a - aref``: equality rows 0.5 D jar^2; friction loss
rows the Huber function (quadratic for |jar| < R*frictionloss, linear with slope frictionloss
beyond); limits and frictionless/pyramidal contact rows 0.5 D jar^2 when jar < 0, else 0; elliptic
contacts 0 in the "top" zone, 0.5 sum D jar^2 in the "bottom" zone, and 0.5 Dm (N - mu T)^2 on the
cone in between. The constraint force is ``efc_force = -ds/djar``; ``qfrc_constraint = J' efc_force``.
Its gradient is ``M a - qfrc_smooth - qfrc_constraint``.

- Newton (primal): Hessian ``M + J' diag(D_active) J`` (+ the cone Hessians of elliptic contacts),
  Cholesky-factored, search ``-H^-1 grad``, exact line search.
- CG (primal): nonlinear conjugate gradient preconditioned with ``M^-1``, Hager-Zhang direction
  update (with its lower bound on beta), exact line search.
- PGS (dual): projected (block) Gauss-Seidel on ``0.5 f'(A+R)f + f'(J qacc_smooth - aref)`` with
  ``A = J M^-1 J'``; rows of ``A`` are never stored: ``qacc = qacc_smooth + M^-1 J' f`` is kept as
  an nv-vector, so a row's residual is ``J_i qacc - aref_i + R_i f_i`` (O(nv) per row). As in
  MuJoCo 4: blocks visited in a pseudo-random order (fixed-seed PCG32, reshuffled every sweep),
  Nesterov momentum between sweeps with adaptive restart, and for elliptic cones a ray step then
  a friction QCQP step per contact (solve_pgs).
- Noslip: PGS sweeps over friction loss rows and contact friction directions without the
  regulariser R (normal forces held), after the main solver.

Warm start (seed 001, "状态和控制"; MuJoCo Computation chapter, "Algorithms", Warmstart): the
primal solvers start from the lower-cost of qacc_warmstart and qacc_smooth, and do no iteration
at all when the duality-gap certificate ``0.5 g' M^-1 g`` at that point is below tolerance
(Newton also needs the gradient test); PGS starts from the forces of qacc_warmstart, or from zero
forces when those have the lower dual cost.

The exact line search minimises the 1-D convex piecewise-smooth cost along the search direction:
Newton steps from alpha = 0 while the slope keeps its sign, then a bracketed search, stopping when
|d cost/d alpha| is below ``tolerance * ls_tolerance * |search| / scale`` (linesearch).

Termination (diagnostics ``solver_niter``/``solver_nnz``/``d.solver``: seed 001, "诊断"):
``scale`` = ``1 / trace(M)`` (MuJoCo 4: the trace of the current inertia matrix of the problem
solved, no longer stat.meaninertia) turns the improvement (cost decrease of the iteration) and the
gradient norm into dimensionless numbers compared with ``opt.tolerance``: the primal solvers stop
when either is below it (Newton also on the decrement ``0.5 g' H^-1 g``), PGS on the improvement;
``opt.iterations`` bounds the iterations. MuJoCo 4's primal improvement is the line search's
decrease of the shifted cost (_ls_eval), and only a positive one ends the solve.

Constraint islands (seed 001 "Constraint islands"; engine.island builds them in the position
stage): the problem splits into independent ones, an island's rows over its trees' dofs, and
unless opt.disableflags has mjDSBL_ISLAND each is solved alone as MuJoCo 4 does (PGS, CG, Newton
and noslip): its own iterations, early exits, scale (1 / trace of its inertia), PGS order, and
statistics: ``solver_niter[i]``, ``solver_nnz[i]`` and the records ``d.solver[i*200 + k]`` (the
arena's solver_stat rows) of island i < mjNISLAND = 20. The kernels take the island as index lists
(its rows from map_iefc2efc, its dofs from map_idof2dof) into the global arrays; with islands
disabled the same kernels run on every row and dof, the statistics in island 0's records.

Jacobian: the dense rows given by constraint.jac_rows (efc_J itself in dense mode, the scratch
cn_Jdense when mj_isSparse, where efc_J holds MuJoCo's compressed rows).

Workspace: the ``sol_*`` rows of SCRATCH_TABLE (engine/_layout.py); no allocation here.
"""
from __future__ import annotations

import numpy as np

from . import argcheck
from ._access import f1, f2, fs, i1, is_
from ._layout import DF, MF
from .math import gather, vcopy
from .constraint import is_sparse, jac_rows
from .support import mul_m, mul_m_sub, solve_m, solve_m_sub

from ._jit import inline, kernel

# mjtConstraint
EQUALITY, FRICTION_DOF, FRICTION_TENDON, LIMIT_JOINT, LIMIT_TENDON = 0, 1, 2, 3, 4
FRICTIONLESS, PYRAMIDAL, ELLIPTIC = 5, 6, 7
# mjtConstraintState
SATISFIED, QUADRATIC, LINEARNEG, LINEARPOS, CONE = 0, 1, 2, 3, 4
# mjtSolver
SOL_PGS, SOL_CG, SOL_NEWTON = 0, 1, 2
_DSBL_WARMSTART = 1 << 9
_DSBL_ISLAND = 1 << 18
_CONE_ELLIPTIC = 1
_JAC_DENSE = 0
_MINVAL = 1e-15
_NISLAND, _NSOLVER = 20, 200  # mjNISLAND islands of solver statistics, mjNSOLVER records each

# rows of the sol_vec scratch (nv-vectors)
_V_MA, _V_GRAD, _V_MGRAD, _V_SEARCH, _V_MV, _V_MGOLD, _V_TMP, _V_GOLD = 0, 1, 2, 3, 4, 5, 6, 7
# rows of the sol_efc scratch (nefc-vectors)
_E_JAR, _E_JV, _E_DIAG, _E_RES = 0, 1, 2, 3


# =================================================================================================
# small dense helpers
# =================================================================================================
@kernel
def _dot(a, b, n):
    s = 0.0
    for k in range(n):
        s += a[k] * b[k]
    return s


@kernel
def _cholesky(A, n):
    """In-place lower Cholesky of the leading n x n block of A (upper part untouched).
    Returns the number of pivots clamped to mjMINVAL (0 for a positive definite A)."""
    bad = 0
    for j in range(n):
        s = A[j, j]
        for k in range(j):
            s -= A[j, k] * A[j, k]
        if s < _MINVAL:
            s = _MINVAL
            bad += 1
        d = np.sqrt(s)
        A[j, j] = d
        for i in range(j + 1, n):
            t = A[i, j]
            for k in range(j):
                t -= A[i, k] * A[j, k]
            A[i, j] = t / d
    return bad


@kernel
def _chol_solve(L, n, x):
    """x <- (L L')^-1 x with L the lower factor in the leading n x n block."""
    for i in range(n):
        s = x[i]
        for k in range(i):
            s -= L[i, k] * x[k]
        x[i] = s / L[i, i]
    for i in range(n - 1, -1, -1):
        s = x[i]
        for k in range(i + 1, n):
            s -= L[k, i] * x[k]
        x[i] = s / L[i, i]


# =================================================================================================
# cost, force and state of the constraint rows (mj_constraintUpdate)
# =================================================================================================
@kernel
def _elliptic_update(i, dim, mu, fr, D, jar, flg_hess, H, force, state):
    """One elliptic contact (rows i..i+dim-1): force, state, cost and (optionally) the cone
    Hessian H (dim x dim row-major, d^2 cost / d jar^2) of the middle zone."""
    N = mu * jar[i]
    T2 = 0.0
    for j in range(1, dim):
        u = fr[j - 1] * jar[i + j]
        T2 += u * u
    T = np.sqrt(T2)
    if N >= mu * T or (T <= 0.0 and N >= 0.0):          # top zone: separating
        for j in range(dim):
            force[i + j] = 0.0
            state[i + j] = SATISFIED
        return 0.0
    if mu * N + T <= 0.0 or (T <= 0.0 and N < 0.0):     # bottom zone: all dims quadratic
        cost = 0.0
        for j in range(dim):
            force[i + j] = -D[i + j] * jar[i + j]
            cost += 0.5 * D[i + j] * jar[i + j] * jar[i + j]
            state[i + j] = QUADRATIC
        return cost
    # middle zone: cost 0.5 Dm (N - mu T)^2 in U-space (U0 = mu jar0, Uj = fr_j jar_j)
    Dm = D[i] / (mu * mu * (1.0 + mu * mu))
    NmT = N - mu * T
    force[i] = -Dm * NmT * mu
    for j in range(1, dim):
        force[i + j] = -force[i] * fr[j - 1] * fr[j - 1] * jar[i + j] / T
    for j in range(dim):
        state[i + j] = CONE
    if flg_hess:
        # d^2/dU^2 of 0.5 Dm (U0 - mu |Ut|)^2, then scaled by S = diag(mu, fr) on both sides
        for a in range(dim):
            sa = mu if a == 0 else fr[a - 1]
            ua = 0.0 if a == 0 else fr[a - 1] * jar[i + a]
            for b in range(dim):
                sb = mu if b == 0 else fr[b - 1]
                ub = 0.0 if b == 0 else fr[b - 1] * jar[i + b]
                if a == 0 and b == 0:
                    h = Dm
                elif a == 0:
                    h = -Dm * mu * ub / T
                elif b == 0:
                    h = -Dm * mu * ua / T
                else:
                    h = Dm * mu * mu * ua * ub / T2 - Dm * mu * NmT * (
                        (1.0 if a == b else 0.0) / T - ua * ub / (T2 * T))
                H[a * dim + b] = h * sa * sb
    return 0.5 * Dm * NmT * NmT


@kernel
def update_rows(
    # Model:
    ne, nf, rows, nr,
    # Data in:
    efc_type, efc_id, efc_D, efc_R, efc_frictionloss, contact_mu, contact_friction, contact_dim,
    jar, flg_coneHessian,
    # Data out:
    efc_force, efc_state, contact_H,
):
    """Per-row state, force (-d cost/d jar) and the total constraint cost for ``jar``, over the
    rows rows[:nr] (increasing; an elliptic contact's rows are consecutive there too)."""
    cost = 0.0
    k = 0
    while k < nr:
        i = rows[k]
        t = efc_type[i]
        x = jar[i]
        if t == ELLIPTIC:
            c = efc_id[i]
            dim = contact_dim[c]
            cost += _elliptic_update(i, dim, contact_mu[c], contact_friction[c], efc_D, jar,
                                     flg_coneHessian, contact_H[c], efc_force, efc_state)
            k += dim
            continue
        if i < ne:
            efc_force[i] = -efc_D[i] * x
            efc_state[i] = QUADRATIC
            cost += 0.5 * efc_D[i] * x * x
        elif i < ne + nf:
            fl = efc_frictionloss[i]
            rf = efc_R[i] * fl
            if x <= -rf:
                efc_force[i] = fl
                efc_state[i] = LINEARNEG
                cost += -fl * x - 0.5 * rf * fl
            elif x >= rf:
                efc_force[i] = -fl
                efc_state[i] = LINEARPOS
                cost += fl * x - 0.5 * rf * fl
            else:
                efc_force[i] = -efc_D[i] * x
                efc_state[i] = QUADRATIC
                cost += 0.5 * efc_D[i] * x * x
        else:
            if x < 0.0:
                efc_force[i] = -efc_D[i] * x
                efc_state[i] = QUADRATIC
                cost += 0.5 * efc_D[i] * x * x
            else:
                efc_force[i] = 0.0
                efc_state[i] = SATISFIED
        k += 1
    return cost


@kernel
def _span(dofs, nd):
    """[lo, hi): from the first to the last of the (increasing) dofs dofs[:nd]."""
    if nd == 0:
        return 0, 0
    return dofs[0], dofs[nd - 1] + 1


@kernel
def mul_jt(efc_J, rows, nr, dofs, nd, force, res):
    """res = J' force over the rows rows[:nr] (dense rows), written on the dofs dofs[:nd] (the
    rows' Jacobians are zero elsewhere: the dofs of their island, or all). The sums run over
    the span of those dofs, a plain range the compiler vectorises: other islands' dofs in it
    get exact zeros added (their rows' columns here are zero), so nothing changes there."""
    for kk in range(nd):
        res[dofs[kk]] = 0.0
    lo, hi = _span(dofs, nd)
    for k in range(nr):
        i = rows[k]
        f = force[i]
        if f != 0.0:
            row = efc_J[i]
            for p in range(lo, hi):
                res[p] += row[p] * f


@kernel
def mul_j(efc_J, rows, nr, dofs, nd, vec, res):
    """res[i] = J_i vec for the rows i in rows[:nr], whose Jacobians are zero outside the dofs
    dofs[:nd]: summed over the span of those dofs (see mul_jt; the terms added for other dofs
    in it are exact zeros)."""
    lo, hi = _span(dofs, nd)
    for k in range(nr):
        i = rows[k]
        row = efc_J[i]
        s = 0.0
        for p in range(lo, hi):
            s += row[p] * vec[p]
        res[i] = s


@kernel
def all_rows(D):
    """(rows, nefc, dofs, nv): every constraint row and every dof, as the index lists the
    kernels take (scratch sol_rows / sol_dofs, refilled here)."""
    nefc = i1(D, DF.nefc)[0]
    rows, dofs = i1(D, DF.sol_rows), i1(D, DF.sol_dofs)
    for i in range(nefc):
        rows[i] = i
    nv = dofs.shape[0]
    for k in range(nv):
        dofs[k] = k
    return rows[:nefc], nefc, dofs[:nv], nv


@kernel
def _update(M, D, rows, nr, dofs, nd, jar, flg_coneHessian, state):
    """update_rows over rows[:nr] (states into ``state``, forces into efc_force), and
    qfrc_constraint = J' efc_force on dofs[:nd]. Returns the constraint cost."""
    cost = update_rows(i1(D, DF.ne)[0], i1(D, DF.nf)[0], rows, nr, i1(D, DF.efc_type),
                       i1(D, DF.efc_id), f1(D, DF.efc_D), f1(D, DF.efc_R),
                       f1(D, DF.efc_frictionloss), f1(D, DF.contact_mu),
                       f2(D, DF.contact_friction), i1(D, DF.contact_dim), jar, flg_coneHessian,
                       f1(D, DF.efc_force), state, f2(D, DF.contact_H))
    mul_jt(jac_rows(M, D), rows, nr, dofs, nd, f1(D, DF.efc_force), f1(D, DF.qfrc_constraint))
    return cost


@kernel
def constraint_update(M, D, jar, flg_coneHessian):
    """mj_constraintUpdate: efc_state, efc_force from ``jar = J qacc - aref`` (nefc,), and
    qfrc_constraint = J' efc_force; cone Hessians into contact_H when flg_coneHessian.
    Returns the constraint cost s(jar)."""
    rows, nr, dofs, nd = all_rows(D)
    return _update(M, D, rows, nr, dofs, nd, jar, flg_coneHessian, i1(D, DF.efc_state))


# =================================================================================================
# line search: 1-D cost along the search direction
# =================================================================================================
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
        d2 = _MINVAL
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


# =================================================================================================
# primal solvers: CG and Newton
# =================================================================================================
@kernel
def _dot_sub(a, b, dofs, nd):
    """a . b over the dofs dofs[:nd]."""
    s = 0.0
    for kk in range(nd):
        p = dofs[kk]
        s += a[p] * b[p]
    return s


@kernel
def _hessian(dof_Madr, dof_parentid, qM, efc_J, efc_D, efc_type, efc_id, efc_state, contact_dim,
             contact_H, rows, nr, dofs, nd, loc, H):
    """H = M + sum_quadratic D_i J_i' J_i + sum_cone J_c' H_c J_c over the rows rows[:nr] and
    the dofs dofs[:nd] (local indices: H[a, b] is dofs[a], dofs[b]; loc[dofs[a]] = a), then its
    Cholesky factor in place (lower). Returns the number of clamped pivots."""
    for a in range(nd):
        for b in range(nd):
            H[a, b] = 0.0
    # local index b is dof d0 + b when the dofs are contiguous (always without islands): rows
    # are then read directly, which the compiler vectorises
    d0 = dofs[0]
    contig = dofs[nd - 1] - d0 == nd - 1
    for a in range(nd):
        # M's row: the dof and its ancestors (same tree, so in dofs, at lower local indices)
        p = dofs[a]
        adr = dof_Madr[p]
        H[a, a] = qM[adr]
        adr += 1
        j = dof_parentid[p]
        while j >= 0:
            H[a, loc[j]] = qM[adr]
            adr += 1
            j = dof_parentid[j]
    k = 0
    while k < nr:
        i = rows[k]
        st = efc_state[i]
        if efc_type[i] == ELLIPTIC and st == CONE:
            c = efc_id[i]
            dim = contact_dim[c]
            Hc = contact_H[c]
            for a in range(dim):
                ra = efc_J[i + a]
                for b in range(dim):
                    h = Hc[a * dim + b]
                    if h == 0.0:
                        continue
                    rb = efc_J[i + b]
                    for pa in range(nd):
                        p = dofs[pa]
                        if ra[p] != 0.0:
                            _add_row(H, pa, h * ra[p], rb, dofs, d0, contig)
            k += dim
            continue
        if st == QUADRATIC:
            row = efc_J[i]
            Di = efc_D[i]
            for pa in range(nd):
                p = dofs[pa]
                if row[p] != 0.0:
                    _add_row(H, pa, Di * row[p], row, dofs, d0, contig)
        k += 1
    return _cholesky(H, nd)


@kernel
def _add_row(H, pa, s, row, dofs, d0, contig):
    """H[pa, :pa+1] += s * row at the local dofs 0..pa (dofs[qb], or d0 + qb when contig)."""
    Hr = H[pa]
    if contig:
        for qb in range(pa + 1):
            Hr[qb] += s * row[d0 + qb]
    else:
        for qb in range(pa + 1):
            Hr[qb] += s * row[dofs[qb]]


@kernel
def _hess_solve(H, dofs, nd, grad, tmp, Mgrad):
    """Mgrad = H^-1 grad on dofs[:nd] (H the local Cholesky factor of _hessian)."""
    for a in range(nd):
        tmp[a] = grad[dofs[a]]
    _chol_solve(H, nd, tmp)
    for a in range(nd):
        Mgrad[dofs[a]] = tmp[a]


@kernel
def _save_stat(stat, isl, it, improvement, gradient, lineslope, nactive, nchange, neval,
               nupdate):
    """Statistics of iteration ``it`` of island ``isl`` (0 when monolithic) into the record
    isl * mjNSOLVER + it of solver_stat (d.solver); islands >= mjNISLAND and iterations >=
    mjNSOLVER are not recorded, as in MuJoCo."""
    if isl < _NISLAND and it < _NSOLVER:
        s = stat[isl * _NSOLVER + it]
        s[0] = improvement
        s[1] = gradient
        s[2] = lineslope
        s[3] = nactive
        s[4] = nchange
        s[5] = neval
        s[6] = nupdate


@kernel
def _trace_scale(dof_Madr, qM, dofs, nd):
    """1 / trace(M) over the dofs dofs[:nd] (an island's, or all): turns a cost decrease or a
    gradient norm into the dimensionless quantity compared with opt.tolerance (seed 001,
    "Solver" termination; MuJoCo 4 scales by the trace of the current inertia matrix of the
    island solved, no longer by stat.meaninertia)."""
    t = 0.0
    for kk in range(nd):
        t += qM[dof_Madr[dofs[kk]]]
    return 1.0 / t if t > _MINVAL else 1.0


@kernel
def _gauss(qacc, qacc_smooth, Ma, qfrc_smooth, dofs, nd):
    """0.5 (qacc - qacc_smooth)' M (qacc - qacc_smooth) over dofs[:nd], given Ma = M qacc,
    M qacc_smooth = qfrc_smooth."""
    s = 0.0
    for kk in range(nd):
        k = dofs[kk]
        s += (qacc[k] - qacc_smooth[k]) * (Ma[k] - qfrc_smooth[k])
    return 0.5 * s


@kernel
def _jar(efc_J, efc_aref, rows, nr, dofs, nd, qacc, jar):
    """jar = J qacc - aref for the rows rows[:nr]."""
    mul_j(efc_J, rows, nr, dofs, nd, qacc, jar)
    for k in range(nr):
        i = rows[k]
        jar[i] -= efc_aref[i]


@kernel
def _warmstart_primal(M, D):
    """qacc = the better (lower total cost, over the whole problem) of qacc_warmstart and
    qacc_smooth, or qacc_smooth when the warmstart flag is disabled. efc_state, efc_force and
    qfrc_constraint are left at qacc_smooth's evaluation (MuJoCo's warm start evaluates it
    last)."""
    qacc = f1(D, DF.qacc)
    qacc_smooth = f1(D, DF.qacc_smooth)
    V = f2(D, DF.sol_vec)
    jar = f2(D, DF.sol_efc)[_E_JAR]
    efc_J = jac_rows(M, D)
    aref = f1(D, DF.efc_aref)
    vcopy(qacc, qacc_smooth)
    if is_(M, MF.opt_disableflags) & _DSBL_WARMSTART:
        return
    rows, nr, dofs, nd = all_rows(D)
    ws = f1(D, DF.qacc_warmstart)
    mul_m(i1(M, MF.dof_Madr), i1(M, MF.dof_parentid), f1(D, DF.qM), ws, V[_V_MA])
    _jar(efc_J, aref, rows, nr, dofs, nd, ws, jar)
    cws = _gauss(ws, qacc_smooth, V[_V_MA], f1(D, DF.qfrc_smooth), dofs, nd) + \
        constraint_update(M, D, jar, False)
    _jar(efc_J, aref, rows, nr, dofs, nd, qacc_smooth, jar)
    csm = constraint_update(M, D, jar, False)
    # the smooth solution only when the warm start costs more, as MuJoCo compares: a NaN or
    # infinite warm start is then used, and mj_checkAcc warns and resets as MuJoCo's does
    if not cws > csm:
        vcopy(qacc, ws)


@kernel
def solve_primal(M, D, newton, maxiter, rows, nr, dofs, nd, efc_state, isl):
    """CG (newton=False) or Newton from the current d.qacc over the rows rows[:nr] and the
    dofs dofs[:nd]: one constraint island (its rows and dofs: the problem restricted to them
    is independent of the others, MuJoCo 4 solves each alone) or everything (islands disabled).
    Row states go to ``efc_state`` (d.efc_state, or a scratch for an island: MuJoCo keeps an
    island's states apart, in iefc_state); qacc, efc_force, qfrc_constraint and the cone
    Hessians are written in place for those rows and dofs. Statistics go to island isl's
    records. Returns (iteration count, whether a Newton Hessian was made: not when the warm
    start is accepted as converged)."""
    ne, nf = i1(D, DF.ne)[0], i1(D, DF.nf)[0]
    qacc = f1(D, DF.qacc)
    qacc_smooth = f1(D, DF.qacc_smooth)
    qfrc_smooth = f1(D, DF.qfrc_smooth)
    qfrc_constraint = f1(D, DF.qfrc_constraint)
    qM = f1(D, DF.qM)
    dof_Madr, dof_parentid = i1(M, MF.dof_Madr), i1(M, MF.dof_parentid)
    M_rownnz, M_rowadr, M_colind = i1(M, MF.M_rownnz), i1(M, MF.M_rowadr), i1(M, MF.M_colind)
    qLD, qLDiagInv = f1(D, DF.qLD), f1(D, DF.qLDiagInv)
    efc_J = jac_rows(M, D)
    efc_type, efc_id = i1(D, DF.efc_type), i1(D, DF.efc_id)
    efc_D, efc_R = f1(D, DF.efc_D), f1(D, DF.efc_R)
    efc_fl, aref = f1(D, DF.efc_frictionloss), f1(D, DF.efc_aref)
    contact_mu, contact_friction = f1(D, DF.contact_mu), f2(D, DF.contact_friction)
    contact_dim, contact_H = i1(D, DF.contact_dim), f2(D, DF.contact_H)
    stat = f2(D, DF.solver_stat)
    V = f2(D, DF.sol_vec)
    E = f2(D, DF.sol_efc)
    oldstate = i1(D, DF.sol_state)
    loc = i1(D, DF.sol_loc)
    Hm = f2(D, DF.sol_H)
    Ma, grad, Mgrad, search, Mv, Mgold = V[_V_MA], V[_V_GRAD], V[_V_MGRAD], V[_V_SEARCH], \
        V[_V_MV], V[_V_MGOLD]
    gold, tmp = V[_V_GOLD], V[_V_TMP]
    jar, jv = E[_E_JAR], E[_E_JV]
    elliptic = False
    for k in range(nr):
        if efc_type[rows[k]] == ELLIPTIC:
            elliptic = True
            break
    flg_hess = newton and elliptic
    for a in range(nd):
        loc[dofs[a]] = a
    scale = _trace_scale(dof_Madr, qM, dofs, nd)
    tol = fs(M, MF.opt_tolerance)
    gtol_base = tol * fs(M, MF.opt_ls_tolerance) / scale
    ls_iter = is_(M, MF.opt_ls_iterations)

    mul_m_sub(dof_Madr, dof_parentid, qM, qacc, Ma, dofs, nd)
    _jar(efc_J, aref, rows, nr, dofs, nd, qacc, jar)
    for kk in range(nr):
        if jar[rows[kk]] != jar[rows[kk]]:
            # a NaN constraint row (e.g. a contact of a geom at a NaN mocap pose): MuJoCo's
            # Newton/CG steps through it and every qacc of the problem ends NaN (measured on
            # 4.0.0: mj_checkAcc then warns and resets); a satisfied NaN row would otherwise
            # be ignored here
            for a in range(nd):
                qacc[dofs[a]] = np.nan
            return 0, False
    _update(M, D, rows, nr, dofs, nd, jar, flg_hess, efc_state)
    for kk in range(nd):
        k = dofs[kk]
        grad[k] = Ma[k] - qfrc_smooth[k] - qfrc_constraint[k]
    # converged warm start: the cost is strongly convex in the M-norm, so the suboptimality is at
    # most 0.5 g' M^-1 g (the duality-gap certificate); below tolerance the solver does no
    # iteration (Newton also needs the gradient test), and skips the Hessian.
    solve_m_sub(M_rownnz, M_rowadr, M_colind, qLD, qLDiagInv, grad, Mgrad, dofs, nd)
    if scale * 0.5 * _dot_sub(grad, Mgrad, dofs, nd) < tol and (
            not newton or scale * np.sqrt(_dot_sub(grad, grad, dofs, nd)) < tol):
        return 0, False
    if newton:
        _hessian(dof_Madr, dof_parentid, qM, efc_J, efc_D, efc_type, efc_id, efc_state,
                 contact_dim, contact_H, rows, nr, dofs, nd, loc, Hm)
        _hess_solve(Hm, dofs, nd, grad, tmp, Mgrad)
    for kk in range(nd):
        k = dofs[kk]
        search[k] = -Mgrad[k]
    niter = 0
    for it in range(maxiter):
        # line search along `search`
        mul_m_sub(dof_Madr, dof_parentid, qM, search, Mv, dofs, nd)
        mul_j(efc_J, rows, nr, dofs, nd, search, jv)
        snorm = np.sqrt(_dot_sub(search, search, dofs, nd))
        # the Gauss part's polynomial: g1 = v'(M qacc - qfrc_smooth), g2 = 0.5 v'M v
        g1 = _dot_sub(search, Ma, dofs, nd) - _dot_sub(qfrc_smooth, search, dofs, nd)
        g2 = 0.5 * _dot_sub(search, Mv, dofs, nd)
        alpha = 0.0
        neval = 0
        slope = 0.0
        dcost = 0.0
        if snorm != snorm:
            # a NaN in the problem (qacc_smooth, the warm start, a constraint row): MuJoCo's
            # solver goes on (the norm is not below mjMINVAL) and its line-search update
            # leaves every qacc of the problem NaN, which mj_checkAcc then warns about and
            # resets; do the same rather than return the finite start (test_api_misuse)
            for kk in range(nd):
                qacc[dofs[kk]] = np.nan
            break
        if snorm >= _MINVAL:
            alpha, neval, slope, dcost = linesearch(ne, nf, rows, nr, efc_type, efc_id, efc_D,
                                                    efc_R, efc_fl, contact_mu, contact_friction,
                                                    contact_dim, jar, jv, g1, g2,
                                                    gtol_base * snorm, scale / snorm, ls_iter)
        if alpha == 0.0:
            break
        for kk in range(nd):
            k = dofs[kk]
            qacc[k] += alpha * search[k]
            Ma[k] += alpha * Mv[k]
            gold[k] = grad[k]
        for kk in range(nr):
            i = rows[kk]
            jar[i] += alpha * jv[i]
            oldstate[i] = efc_state[i]
        _update(M, D, rows, nr, dofs, nd, jar, flg_hess, efc_state)
        nchange = 0
        nactive = 0
        nquad = 0          # rows entering or leaving the quadratic state (Hessian rank-1 updates)
        ncone = 0          # rows of contacts in the cone state (their Hessian blocks are re-added)
        for kk in range(nr):
            i = rows[kk]
            if efc_state[i] != oldstate[i]:
                nchange += 1
            if efc_state[i] != SATISFIED:
                nactive += 1
            if (efc_state[i] == QUADRATIC) != (oldstate[i] == QUADRATIC):
                nquad += 1
            if efc_state[i] == CONE:
                ncone += 1
        for kk in range(nd):
            k = dofs[kk]
            grad[k] = Ma[k] - qfrc_smooth[k] - qfrc_constraint[k]
        nupdate = 0
        if newton:
            if nchange > 0 or flg_hess:
                _hessian(dof_Madr, dof_parentid, qM, efc_J, efc_D, efc_type, efc_id, efc_state,
                         contact_dim, contact_H, rows, nr, dofs, nd, loc, Hm)
            nupdate = nquad + ncone
            _hess_solve(Hm, dofs, nd, grad, tmp, Mgrad)
        else:
            for kk in range(nd):
                k = dofs[kk]
                Mgold[k] = Mgrad[k]
            solve_m_sub(M_rownnz, M_rowadr, M_colind, qLD, qLDiagInv, grad, Mgrad, dofs, nd)
        # the improvement is the line search's cost decrease (MuJoCo 4: the shifted cost at the
        # step, not a difference of totals, see _ls_eval); it ends the solve only when positive:
        # a step the line search took without decreasing the cost (rounding, at the optimum) is
        # no sign of convergence, the gradient test and the iteration limit decide then
        improvement = -scale * dcost
        gradient = scale * np.sqrt(_dot_sub(grad, grad, dofs, nd))
        _save_stat(stat, isl, it, improvement, gradient, slope, nactive, nchange, neval,
                   nupdate)
        niter = it + 1
        if (improvement > 0.0 and improvement < tol) or gradient < tol:
            break
        # Newton: the decrement 0.5 g' H^-1 g (the quadratic model's predicted improvement of
        # the next step) is the third stopping test
        if newton and scale * 0.5 * _dot_sub(grad, Mgrad, dofs, nd) < tol:
            break
        if newton:
            for kk in range(nd):
                k = dofs[kk]
                search[k] = -Mgrad[k]
        else:
            # Hager-Zhang with the M^-1 preconditioner: y = g - g_old, My = M^-1 y,
            # beta = (My - 2 d (y'My)/(d'y))' g / (d'y) with d the previous search direction
            # (invariant to its length), bounded below as in Hager and Zhang (2005)
            dy = 0.0
            yMy = 0.0
            dg = 0.0
            Myg = 0.0
            for kk in range(nd):
                k = dofs[kk]
                y = grad[k] - gold[k]
                My = Mgrad[k] - Mgold[k]
                dy += search[k] * y
                yMy += y * My
                dg += search[k] * grad[k]
                Myg += My * grad[k]
            beta = 0.0
            if abs(dy) >= _MINVAL:
                beta = (Myg - 2.0 * yMy * dg / dy) / dy
            # Hager-Zhang's lower bound -1 / (|d| min(0.01, |g_old|))
            bound = np.sqrt(_dot_sub(search, search, dofs, nd)) * min(
                0.01, np.sqrt(_dot_sub(gold, gold, dofs, nd)))
            if bound > 0.0 and beta < -1.0 / bound:
                beta = -1.0 / bound
            for kk in range(nd):
                k = dofs[kk]
                search[k] = -Mgrad[k] + beta * search[k]
    return niter, newton


@kernel
def _hessian_nnz(M, D, rows, nr, dofs, nd, loc, P):
    """solver_nnz of sparse Newton: the nonzeros MuJoCo's sparse Hessian and its factor take,
    nL + nC + nJJ (+ nL again for the elliptic-cone factor): nJJ = structural nonzeros of the
    lower triangle of J'J over the rows, nC = M's stored nonzeros on the dofs, nL = those of
    the lower Cholesky factor of H = M + J'J with fill-in (eliminating from the last dof to the
    first, MuJoCo's reverse order). Structural: stored Jacobian columns, not values. P:
    nd x nd workspace (pattern, 1.0 = nonzero)."""
    M_rownnz, M_rowadr, M_colind = i1(M, MF.M_rownnz), i1(M, MF.M_rowadr), i1(M, MF.M_colind)
    rownnz, rowadr = i1(D, DF.efc_J_rownnz), i1(D, DF.efc_J_rowadr)
    colind = i1(D, DF.efc_J_colind)
    for a in range(nd):
        loc[dofs[a]] = a
        for b in range(nd):
            P[a, b] = 0.0
    njj = 0
    for k in range(nr):
        i = rows[k]
        adr, n = rowadr[i], rownnz[i]
        for p in range(n):
            a = loc[colind[adr + p]]
            for q in range(p + 1):
                b = loc[colind[adr + q]]
                lo, hi = (a, b) if a < b else (b, a)
                if P[hi, lo] == 0.0:
                    P[hi, lo] = 1.0
                    njj += 1
    nc = 0
    for a in range(nd):
        i = dofs[a]
        nc += M_rownnz[i]
        for p in range(M_rownnz[i]):
            P[a, loc[M_colind[M_rowadr[i] + p]]] = 1.0
    # symbolic factorization: eliminating dof k joins its lower neighbours into a clique
    for k in range(nd - 1, -1, -1):
        for a in range(k):
            if P[k, a] == 0.0:
                continue
            for b in range(a):
                if P[k, b] != 0.0:
                    P[a, b] = 1.0
    nl = 0
    for a in range(nd):
        for b in range(a + 1):
            if P[a, b] != 0.0:
                nl += 1
    if is_(M, MF.opt_cone) == _CONE_ELLIPTIC:
        nl *= 2
    return nl + nc + njj


# =================================================================================================
# dual solver: PGS, and noslip
# =================================================================================================
@kernel
def _chol_solve6(L, n, x):
    for i in range(n):
        t = x[i]
        for k in range(i):
            t -= L[i * 6 + k] * x[k]
        x[i] = t / L[i * 6 + i]
    for i in range(n - 1, -1, -1):
        t = x[i]
        for k in range(i + 1, n):
            t -= L[k * 6 + i] * x[k]
        x[i] = t / L[i * 6 + i]


@kernel
def _minv_jt(M_rownnz, M_rowadr, M_colind, qLD, qLDiagInv, efc_J, nefc, MinvJ):
    """MinvJ[i] = M^-1 J_i' for the first nefc rows."""
    for i in range(nefc):
        solve_m(M_rownnz, M_rowadr, M_colind, qLD, qLDiagInv, efc_J[i], MinvJ[i])


@kernel
def _block(efc_J, MinvJ, efc_R, i, dim, withR, first, Ac):
    """Ac (6-strided) = (J M^-1 J')[i+first.., i+first..] (+ R on the diagonal)."""
    n = dim - first
    nv = efc_J.shape[1]
    for a in range(n):
        ra = efc_J[i + first + a]
        for c in range(a, n):
            rc = MinvJ[i + first + c]
            s = 0.0
            for k in range(nv):
                s += ra[k] * rc[k]
            Ac[a * 6 + c] = s
            Ac[c * 6 + a] = s
        if withR:
            Ac[a * 6 + a] += efc_R[i + first + a]


@kernel
def _residual(efc_J, aref, efc_R, f, qacc, i, withR):
    row = efc_J[i]
    s = -aref[i]
    for k in range(qacc.shape[0]):
        s += row[k] * qacc[k]
    if withR:
        s += efc_R[i] * f[i]
    return s


@kernel
def _apply(MinvJ, i, df, qacc):
    if df != 0.0:
        row = MinvJ[i]
        for k in range(qacc.shape[0]):
            qacc[k] += row[k] * df


# ---- PGS visitation order: PCG32 (XSH-RR) with a fixed seed, Fisher-Yates shuffles -------------
_PCG_MULT = np.uint64(6364136223846793005)
_PCG_INC = np.uint64(1)
_PCG_SEED = np.uint64(1)
_U32 = np.uint64(0xFFFFFFFF)


@kernel
def _pcg32(state):
    """One step of the PCG32 generator (64-bit LCG state, XSH-RR output): returns
    (next state, 32-bit output as uint64). The output comes from the state before the step."""
    nxt = state * _PCG_MULT + _PCG_INC
    xs = (((state >> np.uint64(18)) ^ state) >> np.uint64(27)) & _U32
    rot = state >> np.uint64(59)
    out = ((xs >> rot) | (xs << ((np.uint64(32) - rot) & np.uint64(31)))) & _U32
    return nxt, out


@kernel
def _shuffle(perm, n, state):
    """Fisher-Yates shuffle of perm[:n] in place (i from n-1 down to 1 swaps with
    j = r mod (i+1)); returns the generator state."""
    for i in range(n - 1, 0, -1):
        state, r = _pcg32(state)
        j = np.int64(r % np.uint64(i + 1))
        t = perm[i]
        perm[i] = perm[j]
        perm[j] = t
    return state


@kernel
def _qcqp_ball(A, b, s, r, n, W, x):
    """Friction step of the elliptic PGS update: min_x 0.5 x'A x + x'b  s.t.  sum_j (x_j/s_j)^2
    <= r^2 (n <= 5; A 6-strided in the leading n x n block). In y = x/s the set is the ball
    |y| <= r; y(la) = -(A' + la I)^-1 b' with A' = S A S, b' = S b, and Newton's method on the
    multiplier la (from 0) drives g(la) = |y|^2 - r^2 to zero: stop when g < 1e-10 (inside the
    ball at la = 0, or converged), when the Newton step is below 1e-10, or after 20 steps.
    A (nearly) singular A' + la I (determinant below 1e-10 for n <= 3, a Cholesky pivot below
    1e-10 otherwise) gives x = 0. Work rows W[0..3]. Returns 1 when the ball constraint is
    active (la > 0), else 0."""
    Ap = W[0]
    L = W[1]
    bp = W[2]
    z = W[3]
    for a in range(n):
        bp[a] = b[a] * s[a]
        for c in range(n):
            Ap[a * 6 + c] = A[a * 6 + c] * s[a] * s[c]
    la = 0.0
    for _ in range(20):
        for a in range(n):
            for c in range(n):
                L[a * 6 + c] = Ap[a * 6 + c] + (la if a == c else 0.0)
        # Cholesky with the singularity test of the caller's dimension
        det = 1.0
        bad = False
        for j in range(n):
            t = L[j * 6 + j]
            for k in range(j):
                t -= L[j * 6 + k] * L[j * 6 + k]
            det *= t
            if t < 1e-10:
                if n > 3:
                    bad = True
                t = 1e-10
            d = np.sqrt(t)
            L[j * 6 + j] = d
            for i in range(j + 1, n):
                u = L[i * 6 + j]
                for k in range(j):
                    u -= L[i * 6 + k] * L[j * 6 + k]
                L[i * 6 + j] = u / d
        if n <= 3 and det < 1e-10:
            bad = True
        if bad:
            for a in range(n):
                x[a] = 0.0
            return 0
        for a in range(n):
            x[a] = -bp[a]
        _chol_solve6(L, n, x)
        val = -r * r
        for a in range(n):
            val += x[a] * x[a]
        if val < 1e-10:
            break
        for a in range(n):
            z[a] = x[a]
        _chol_solve6(L, n, z)
        deriv = 0.0
        for a in range(n):
            deriv -= 2.0 * x[a] * z[a]
        delta = -val / deriv
        if delta < 1e-10:
            break
        la += delta
    for a in range(n):
        x[a] *= s[a]
    return 1 if la != 0.0 else 0


@kernel
def _pgs_block(i, dim, ne, nf, elliptic, efc_J, MinvJ, efc_R, efc_fl, aref, diag, fr, force,
               qacc, W):
    """One PGS block update at row i (dim rows; elliptic: a contact of that dimension) of the
    dual problem, keeping qacc = qacc_smooth + M^-1 J' f. Returns the dual cost change
    (<= 0; an update that would raise the cost by more than 1e-10 is reverted).

    - scalar row: exact minimisation over f_i, then the projection (friction loss to
      [-floss, floss], limits and contacts to f_i >= 0);
    - elliptic contact: a normal step when the normal force is ~0 (scalar update, friction
      cleared), otherwise a ray step along the current force (scaled so the normal stays
      >= 0); then a friction step with the normal force held: the QCQP over the friction
      ellipse |f_t / mu_t| <= f_n (_qcqp_ball), put onto the ellipse when active."""
    if not elliptic:
        r = _residual(efc_J, aref, efc_R, force, qacc, i, True)
        fo = force[i]
        fn = fo - r / diag[i]
        if i >= ne and i < ne + nf:
            if fn < -efc_fl[i]:
                fn = -efc_fl[i]
            elif fn > efc_fl[i]:
                fn = efc_fl[i]
        elif i >= ne + nf and fn < 0.0:
            fn = 0.0
        df = fn - fo
        change = 0.5 * df * df * diag[i] + df * r
        if change > 1e-10:       # numerical safeguard: never accept a cost increase
            return 0.0
        if df != 0.0:
            force[i] = fn
            _apply(MinvJ, i, df, qacc)
        return change
    Ath = W[4]          # AR block of the contact (6-strided)
    old = W[5]          # forces of the block before the update
    res = W[6]          # residual of the block (0:6), friction linear term (6:12)
    Af = W[7]           # friction sub-block (0:36)
    v = W[5, 6:12]      # friction solution
    _block(efc_J, MinvJ, efc_R, i, dim, True, 0, Ath)
    for j in range(dim):
        res[j] = _residual(efc_J, aref, efc_R, force, qacc, i + j, True)
        old[j] = force[i + j]
    # normal or ray step
    if force[i] < _MINVAL:
        fn = force[i] - res[0] / diag[i]
        force[i] = fn if fn > 0.0 else 0.0
        for j in range(1, dim):
            force[i + j] = 0.0
    else:
        denom = 0.0
        vr = 0.0
        for a in range(dim):
            s = 0.0
            for b in range(dim):
                s += Ath[a * 6 + b] * old[b]
            denom += old[a] * s
            vr += old[a] * res[a]
        if denom >= _MINVAL:
            x = -vr / denom
            if force[i] + x * old[0] < 0.0:
                x = -1.0                  # the step that brings the normal to zero
            for a in range(dim):
                force[i + a] += x * old[a]
    # friction step with the normal force held
    nt = dim - 1
    for a in range(nt):
        t = res[1 + a] + Ath[(a + 1) * 6] * (force[i] - old[0])
        for b in range(nt):
            Af[a * 6 + b] = Ath[(a + 1) * 6 + b + 1]
            t -= Af[a * 6 + b] * old[1 + b]
        res[6 + a] = t
    if force[i] < _MINVAL:
        for a in range(nt):
            force[i + 1 + a] = 0.0
    else:
        active = _qcqp_ball(Af, res[6:12], fr, force[i], nt, W, v)
        if active:
            # put v on the ellipse: the multiplier iteration stops short of it
            s = 0.0
            for a in range(nt):
                s += v[a] * v[a] / (fr[a] * fr[a])
            s = np.sqrt(force[i] * force[i] / max(_MINVAL, s))
            for a in range(nt):
                v[a] *= s
        for a in range(nt):
            force[i + 1 + a] = v[a]
    # dual cost change of the block; revert a (numerically) uphill update
    change = 0.0
    for a in range(dim):
        da = force[i + a] - old[a]
        s = 0.0
        for b in range(dim):
            s += Ath[a * 6 + b] * (force[i + b] - old[b])
        change += da * (0.5 * s + res[a])
    if change > 1e-10:
        for a in range(dim):
            force[i + a] = old[a]
        return 0.0
    for a in range(dim):
        _apply(MinvJ, i + a, force[i + a] - old[a], qacc)
    return change


@kernel
def _project_dual(ne, nf, rows, nr, efc_type, efc_id, efc_fl, contact_dim, contact_friction,
                  force):
    """Project forces onto the dual feasible set: friction loss to [-floss, floss], limits and
    frictionless/pyramidal contacts to >= 0, elliptic contacts to the cone (a negative normal
    clears the contact, a friction outside the ellipse |f_t / mu_t| <= f_n is scaled onto it).
    Only the rows rows[:nr]."""
    k = 0
    while k < nr:
        i = rows[k]
        if i < ne:
            k += 1
            continue
        if i < ne + nf:
            fl = efc_fl[i]
            if force[i] < -fl:
                force[i] = -fl
            elif force[i] > fl:
                force[i] = fl
            k += 1
            continue
        if efc_type[i] != ELLIPTIC:
            if force[i] < 0.0:
                force[i] = 0.0
            k += 1
            continue
        c = efc_id[i]
        dim = contact_dim[c]
        fr = contact_friction[c]
        if force[i] < 0.0:
            for j in range(dim):
                force[i + j] = 0.0
        else:
            s = 0.0
            for j in range(1, dim):
                u = force[i + j] / fr[j - 1]
                s += u * u
            if s > force[i] * force[i]:
                r = np.sqrt(force[i] * force[i] / s)
                for j in range(1, dim):
                    force[i + j] *= r
        k += dim


@kernel
def solve_pgs(M, D, maxiter, rows, nr, dofs, nd, isl):
    """Projected Gauss-Seidel on the dual (seed 001, "Solver", PGS) from d.efc_force, keeping
    d.qacc = qacc_smooth + M^-1 J' f so that a row's residual (AR f + b)_i is J_i qacc - aref_i
    + R_i f_i. As MuJoCo 4 does it:

    - visitation order: each sweep visits the constraint blocks (a scalar row, or all rows of an
      elliptic contact) in a pseudo-random order: the block list is shuffled before every sweep
      (Fisher-Yates, continuing from the previous sweep's order) by a PCG32 generator with a
      fixed seed, so a solve is reproducible and independent of time;
    - block update: _pgs_block (exact scalar minimisation and projection; the ray and friction
      QCQP steps for elliptic contacts);
    - momentum: Nesterov extrapolation between sweeps, f <- x_k + beta (x_k - x_{k-1}) with
      beta = (t-1)/(t+2), t the number of sweeps since the last (re)start, projected back onto
      the feasible set (_project_dual); adaptive restart (t = 0, no extrapolation) when the
      sweep moved against the momentum, (x_k - y_{k-1}) . (y_{k-1} - x_{k-1}) < 0 with y the
      sweep's starting point;
    - termination: the improvement (dual cost decrease of the sweep, times 1 / trace(M)) below
      opt.tolerance, or maxiter sweeps; the forces returned are the last sweep's (not
      extrapolated). efc_state is the dual state (_dual_states); stats per sweep: improvement,
      nactive, nchange.
    Only the rows rows[:nr] are solved (one constraint island, or all rows with islands
    disabled), the generator restarting from its seed, with the scale of the dofs dofs[:nd]
    (the island's); the stats go to island isl's records. Returns the number of sweeps."""
    nv = f1(D, DF.qacc).shape[0]
    ne, nf = i1(D, DF.ne)[0], i1(D, DF.nf)[0]
    qacc = f1(D, DF.qacc)
    efc_J = jac_rows(M, D)
    efc_type, efc_id = i1(D, DF.efc_type), i1(D, DF.efc_id)
    efc_R, efc_fl, aref = f1(D, DF.efc_R), f1(D, DF.efc_frictionloss), f1(D, DF.efc_aref)
    force, state = f1(D, DF.efc_force), i1(D, DF.efc_state)
    contact_friction, contact_mu = f2(D, DF.contact_friction), f1(D, DF.contact_mu)
    contact_dim = i1(D, DF.contact_dim)
    stat = f2(D, DF.solver_stat)
    MinvJ = f2(D, DF.sol_MinvJ)
    E = f2(D, DF.sol_efc)
    diag = E[_E_DIAG]
    ystart = E[_E_JAR]      # forces at the start of the sweep (y)
    xprev = E[_E_JV]        # forces after the previous sweep (x_{k-1})
    oldstate = i1(D, DF.sol_state)
    perm = i1(D, DF.sol_perm)
    W = f2(D, DF.sol_blk)
    scale = _trace_scale(i1(M, MF.dof_Madr), f1(D, DF.qM), dofs, nd)
    tol = fs(M, MF.opt_tolerance)
    # the blocks, by their first row
    nb = 0
    k = 0
    while k < nr:
        i = rows[k]
        step = contact_dim[efc_id[i]] if efc_type[i] == ELLIPTIC else 1
        perm[nb] = i
        nb += 1
        for j in range(step):
            diag[i + j] = _dot(efc_J[i + j], MinvJ[i + j], nv) + efc_R[i + j]
            xprev[i + j] = force[i + j]
        k += step
    _dual_states(ne, nf, rows, nr, efc_type, efc_id, contact_mu, contact_friction, contact_dim,
                 efc_fl, force, state)
    rng = _PCG_SEED
    t = 0
    niter = 0
    for it in range(maxiter):
        rng = _shuffle(perm, nb, rng)
        for k in range(nr):
            i = rows[k]
            ystart[i] = force[i]
        improvement = 0.0
        for k in range(nb):
            i = perm[k]
            ell = efc_type[i] == ELLIPTIC
            dim = contact_dim[efc_id[i]] if ell else 1
            improvement -= _pgs_block(i, dim, ne, nf, ell, efc_J, MinvJ, efc_R, efc_fl, aref,
                                      diag, contact_friction[efc_id[i]] if ell else diag,
                                      force, qacc, W)
        improvement *= scale
        _dual_record(ne, nf, rows, nr, efc_type, efc_id, contact_mu, contact_friction,
                     contact_dim, efc_fl, force, state, oldstate, stat, isl, it, improvement)
        niter = it + 1
        if improvement < tol or niter == maxiter:
            break
        # momentum with adaptive restart
        dot = 0.0
        for k in range(nr):
            i = rows[k]
            dot += (force[i] - ystart[i]) * (ystart[i] - xprev[i])
        if dot < 0.0:
            t = 0
            beta = 0.0
        else:
            t += 1
            beta = (t - 1.0) / (t + 2.0)
        if beta > 0.0:
            for k in range(nr):
                i = rows[k]
                x = force[i]
                force[i] = x + beta * (x - xprev[i])
                xprev[i] = x
            _project_dual(ne, nf, rows, nr, efc_type, efc_id, efc_fl, contact_dim,
                          contact_friction, force)
            for k in range(nr):
                i = rows[k]
                _apply(MinvJ, i, force[i] - xprev[i], qacc)
        else:
            for k in range(nr):
                i = rows[k]
                xprev[i] = force[i]
    return niter


@kernel
def _dual_states(ne, nf, rows, nr, efc_type, efc_id, contact_mu, contact_friction, contact_dim,
                 efc_fl, force, state):
    """Constraint states implied by dual forces (PGS, noslip) of the rows rows[:nr]; returns
    the number of active rows (equality and friction loss rows always are). Friction loss at
    +floss is LINEARNEG (the primal jar is negative there). Elliptic contacts in regular-cone
    coordinates N = f_n/mu, T = |f_t/mu_t|: SATISFIED when mu N >= T, QUADRATIC when
    N + mu T <= 0, else CONE (all rows of the contact alike)."""
    nactive = 0
    k = 0
    while k < nr:
        i = rows[k]
        if i < ne:
            state[i] = QUADRATIC
            nactive += 1
            k += 1
            continue
        if i < ne + nf:
            if force[i] <= -efc_fl[i]:
                state[i] = LINEARPOS
            elif force[i] >= efc_fl[i]:
                state[i] = LINEARNEG
            else:
                state[i] = QUADRATIC
            nactive += 1
            k += 1
            continue
        if efc_type[i] != ELLIPTIC:
            if force[i] <= 0.0:
                state[i] = SATISFIED
            else:
                state[i] = QUADRATIC
                nactive += 1
            k += 1
            continue
        c = efc_id[i]
        dim = contact_dim[c]
        mu = contact_mu[c]
        fr = contact_friction[c]
        N = force[i] / mu
        T = 0.0
        for j in range(1, dim):
            u = force[i + j] / fr[j - 1]
            T += u * u
        T = np.sqrt(T)
        if mu * N >= T:
            st = SATISFIED
        elif N + mu * T <= 0.0:
            st = QUADRATIC
            nactive += dim
        else:
            st = CONE
            nactive += dim
        for j in range(dim):
            state[i + j] = st
        k += dim
    return nactive


@kernel
def _dual_record(ne, nf, rows, nr, efc_type, efc_id, contact_mu, contact_friction, contact_dim,
                 efc_fl, force, state, oldstate, stat, isl, it, improvement):
    """The end of a dual sweep (PGS, noslip): the rows' new dual states, and the sweep's
    statistics (improvement, nactive, nchange) into record ``it`` of island isl."""
    for k in range(nr):
        i = rows[k]
        oldstate[i] = state[i]
    nactive = _dual_states(ne, nf, rows, nr, efc_type, efc_id, contact_mu, contact_friction,
                           contact_dim, efc_fl, force, state)
    nchange = 0
    for k in range(nr):
        i = rows[k]
        if state[i] != oldstate[i]:
            nchange += 1
    _save_stat(stat, isl, it, improvement, 0.0, 0.0, nactive, nchange, 0, 0)


@kernel
def solve_noslip(M, D, maxiter, rows, nr, dofs, nd, isl, it0):
    """Noslip: PGS over friction loss rows and contact friction directions with R removed,
    normal forces held (pyramidal: each pair of opposing edges keeps its sum), over the rows
    rows[:nr] (an island's, or all) with the scale of the dofs dofs[:nd]. efc_state becomes the
    dual state of the forces; stats (improvement, nactive, nchange) go to island isl's records
    from it0 on (after its main solver's). Returns the iteration count."""
    nv = f1(D, DF.qacc).shape[0]
    ne, nf = i1(D, DF.ne)[0], i1(D, DF.nf)[0]
    qacc = f1(D, DF.qacc)
    efc_J = jac_rows(M, D)
    efc_type, efc_id = i1(D, DF.efc_type), i1(D, DF.efc_id)
    efc_R, efc_fl, aref = f1(D, DF.efc_R), f1(D, DF.efc_frictionloss), f1(D, DF.efc_aref)
    force, state = f1(D, DF.efc_force), i1(D, DF.efc_state)
    contact_friction, contact_mu = f2(D, DF.contact_friction), f1(D, DF.contact_mu)
    contact_dim = i1(D, DF.contact_dim)
    stat = f2(D, DF.solver_stat)
    MinvJ = f2(D, DF.sol_MinvJ)
    E = f2(D, DF.sol_efc)
    res = E[_E_RES]
    oldstate = i1(D, DF.sol_state)
    W = f2(D, DF.sol_blk)
    Ac = W[4]
    scale = _trace_scale(i1(M, MF.dof_Madr), f1(D, DF.qM), dofs, nd)
    tol = fs(M, MF.opt_noslip_tolerance)
    _dual_states(ne, nf, rows, nr, efc_type, efc_id, contact_mu, contact_friction, contact_dim,
                 efc_fl, force, state)
    niter = 0
    for it in range(maxiter):
        improvement = 0.0
        if it == 0:
            # the first sweep also drops the regulariser's share of the cost, 0.5 f'Rf (the
            # noslip problem has R = 0), as MuJoCo counts it
            for k in range(nr):
                i = rows[k]
                improvement += 0.5 * force[i] * force[i] * efc_R[i]
        # friction loss rows (they come first among the rows after the equalities)
        for k in range(nr):
            i = rows[k]
            if i < ne:
                continue
            if i >= ne + nf:
                break
            r = _residual(efc_J, aref, efc_R, force, qacc, i, False)
            a = _dot(efc_J[i], MinvJ[i], nv)
            old = force[i]
            fn = old - r / max(a, _MINVAL)
            fl = efc_fl[i]
            if fn > fl:
                fn = fl
            elif fn < -fl:
                fn = -fl
            df = fn - old
            if df != 0.0:
                force[i] = fn
                _apply(MinvJ, i, df, qacc)
                improvement -= df * (r + 0.5 * a * df)
        k = 0
        while k < nr:
            i = rows[k]
            if i < ne + nf:
                k += 1
                continue
            t = efc_type[i]
            if t == PYRAMIDAL:
                c = efc_id[i]
                dim = contact_dim[c]
                for q in range(dim - 1):
                    pa = i + 2 * q
                    pb = pa + 1
                    ra = _residual(efc_J, aref, efc_R, force, qacc, pa, False)
                    rb = _residual(efc_J, aref, efc_R, force, qacc, pb, False)
                    aa = _dot(efc_J[pa], MinvJ[pa], nv)
                    bb = _dot(efc_J[pb], MinvJ[pb], nv)
                    ab = _dot(efc_J[pa], MinvJ[pb], nv)
                    curv = aa + bb - 2.0 * ab
                    g = ra - rb
                    dt = -g / max(curv, _MINVAL)
                    if dt < -force[pa]:
                        dt = -force[pa]
                    if dt > force[pb]:
                        dt = force[pb]
                    if dt != 0.0:
                        force[pa] += dt
                        force[pb] -= dt
                        _apply(MinvJ, pa, dt, qacc)
                        _apply(MinvJ, pb, -dt, qacc)
                        improvement -= dt * (g + 0.5 * curv * dt)
                k += max(1, 2 * (dim - 1))
                continue
            if t == ELLIPTIC:
                c = efc_id[i]
                dim = contact_dim[c]
                if dim > 1 and force[i] <= 0.0:
                    for a in range(1, dim):
                        _apply(MinvJ, i + a, -force[i + a], qacc)
                        force[i + a] = 0.0
                elif dim > 1:
                    n = dim - 1
                    fr = contact_friction[c]
                    _block(efc_J, MinvJ, efc_R, i, dim, False, 1, Ac)
                    for a in range(n):
                        res[i + 1 + a] = _residual(efc_J, aref, efc_R, force, qacc, i + 1 + a,
                                                   False)
                        W[5, a] = force[i + 1 + a]
                    for a in range(n):
                        s = res[i + 1 + a]
                        for b in range(n):
                            s -= Ac[a * 6 + b] * W[5, b]
                        W[6, a] = s
                        for b in range(n):
                            W[7, a * 6 + b] = Ac[a * 6 + b]
                        W[6, 6 + a] = fr[a]
                    _qcqp_ball(W[7], W[6], W[6, 6:12], force[i], n, W, W[6, 12:18])
                    q = 0.0
                    for a in range(n):
                        da = W[6, 12 + a] - W[5, a]
                        s = res[i + 1 + a]
                        for b in range(n):
                            s += 0.5 * Ac[a * 6 + b] * (W[6, 12 + b] - W[5, b])
                        q += da * s
                    for a in range(n):
                        da = W[6, 12 + a] - W[5, a]
                        force[i + 1 + a] = W[6, 12 + a]
                        _apply(MinvJ, i + 1 + a, da, qacc)
                    improvement -= q
                k += dim
                continue
            k += 1
        improvement *= scale
        _dual_record(ne, nf, rows, nr, efc_type, efc_id, contact_mu, contact_friction,
                     contact_dim, efc_fl, force, state, oldstate, stat, isl, it0 + it,
                     improvement)
        niter = it + 1
        if improvement < tol:
            break
    return niter


@kernel
def _ar_nnz(M, D, nefc):
    """solver_nnz of monolithic PGS with the sparse Jacobian: the pairs of rows (i, j) sharing
    a kinematic tree, the nonzeros of MuJoCo's sparse AR = J M^-1 J' + R (M^-1 couples every
    dof of a tree). A row's trees come from its stored columns, increasing with them."""
    rownnz, rowadr = i1(D, DF.efc_J_rownnz), i1(D, DF.efc_J_rowadr)
    colind = i1(D, DF.efc_J_colind)
    dof_treeid = i1(M, MF.dof_treeid)
    n = 0
    for i in range(nefc):
        for j in range(nefc):
            a, ea = rowadr[i], rowadr[i] + rownnz[i]
            b, eb = rowadr[j], rowadr[j] + rownnz[j]
            while a < ea and b < eb:
                ta, tb = dof_treeid[colind[a]], dof_treeid[colind[b]]
                if ta == tb:
                    n += 1
                    break
                if ta < tb:
                    a += 1
                else:
                    b += 1
    return n


@kernel
def _nnz(M, D, solver, rows, nr, dofs, nd, island):
    """solver_nnz of one solve (MuJoCo's count of its matrix's nonzeros): PGS, AR's (nr^2
    dense or for an island, the tree-sharing row pairs when sparse and monolithic); CG, the
    Jacobian's (nr nd dense, its stored entries sparse); Newton, the Hessian's (nd^2 dense,
    _hessian_nnz sparse), or the Jacobian's when it made no Hessian (pass SOL_CG then: a warm
    start accepted as converged, as mujoco 4.0.0 reports it)."""
    if not is_sparse(M, f1(D, DF.qacc).shape[0]):
        if solver == SOL_PGS:
            return nr * nr
        return nr * nd if solver == SOL_CG else nd * nd
    if solver == SOL_PGS:
        return nr * nr if island else _ar_nnz(M, D, nr)
    if solver == SOL_CG:
        rownnz = i1(D, DF.efc_J_rownnz)
        n = 0
        for k in range(nr):
            n += rownnz[rows[k]]
        return n
    return _hessian_nnz(M, D, rows, nr, dofs, nd, i1(D, DF.sol_loc), f2(D, DF.sol_H))


# =================================================================================================
# the solver stage
# =================================================================================================
@kernel
def _finish_qacc(M, D):
    """qfrc_constraint = J' efc_force and qacc = qacc_smooth + M^-1 qfrc_constraint."""
    rows, nefc, dofs, nv = all_rows(D)
    qacc = f1(D, DF.qacc)
    qfrc = f1(D, DF.qfrc_constraint)
    mul_jt(jac_rows(M, D), rows, nefc, dofs, nv, f1(D, DF.efc_force), qfrc)
    tmp = f2(D, DF.sol_vec)[_V_TMP]
    solve_m(i1(M, MF.M_rownnz), i1(M, MF.M_rowadr), i1(M, MF.M_colind), f1(D, DF.qLD),
            f1(D, DF.qLDiagInv), qfrc, tmp)
    qs = f1(D, DF.qacc_smooth)
    for k in range(nv):
        qacc[k] = qs[k] + tmp[k]


@inline
def _island_lists(D, s):
    """(rows, nr, dofs, nd) of island s: its rows (map_iefc2efc) and dofs (map_idof2dof)."""
    a, nr = i1(D, DF.island_iefcadr)[s], i1(D, DF.island_nefc)[s]
    b, nd = i1(D, DF.island_idofadr)[s], i1(D, DF.island_nv)[s]
    return i1(D, DF.map_iefc2efc)[a:a + nr], nr, i1(D, DF.map_idof2dof)[b:b + nd], nd


@kernel
def _gather_islands(D, nefc, nidof):
    """The island-ordered copies MuJoCo's primal island solve leaves: iacc, iacc_smooth,
    ifrc_smooth, ifrc_constraint (dofs in islands) and iefc_aref, iefc_force (rows)."""
    map_idof2dof, map_iefc2efc = i1(D, DF.map_idof2dof), i1(D, DF.map_iefc2efc)
    gather(f1(D, DF.iacc), f1(D, DF.qacc), map_idof2dof, nidof)
    gather(f1(D, DF.iacc_smooth), f1(D, DF.qacc_smooth), map_idof2dof, nidof)
    gather(f1(D, DF.ifrc_smooth), f1(D, DF.qfrc_smooth), map_idof2dof, nidof)
    gather(f1(D, DF.ifrc_constraint), f1(D, DF.qfrc_constraint), map_idof2dof, nidof)
    gather(f1(D, DF.iefc_aref), f1(D, DF.efc_aref), map_iefc2efc, nefc)
    gather(f1(D, DF.iefc_force), f1(D, DF.efc_force), map_iefc2efc, nefc)


@kernel
def solve(M, D):
    """The solver part of mj_fwdConstraint: qacc, efc_force, efc_state, qfrc_constraint,
    solver_niter, solver_nnz and the statistics from the constraint rows in D (see the module
    docstring). qacc_warmstart is read, not written (MuJoCo saves qacc into it when advancing
    the state).

    Constraint islands (engine.island, found in the position stage; seed 001 "Constraint
    islands"): unless opt.disableflags has mjDSBL_ISLAND, each island is solved alone as MuJoCo
    4 does: its own iteration count, early exits and termination scale (1 / the trace of its
    inertia), PGS visitation order, statistics (island i's in d.solver[i*200 ...],
    solver_niter[i], solver_nnz[i]; islands from mjNISLAND = 20 on are solved but not
    recorded) and noslip. The warm start is chosen for the whole problem; dofs in no island
    get qacc_smooth. For CG and Newton, as in MuJoCo, the island solves' final row states go to
    iefc_state and efc_state keeps the warm start's (the states at qacc_smooth); iacc, ifrc_*,
    iefc_aref and iefc_force hold the island-ordered results. PGS does not write those
    (MuJoCo leaves them as they were). solver_niter is cleared for every island, solver_nnz
    only written for those solved (earlier values stay, as in MuJoCo)."""
    nefc = i1(D, DF.nefc)[0]
    qacc = f1(D, DF.qacc)
    qacc_smooth = f1(D, DF.qacc_smooth)
    niter, nnz = i1(D, DF.solver_niter), i1(D, DF.solver_nnz)
    niter[:] = 0
    f1(D, DF.qfrc_constraint)[:] = 0.0
    if nefc == 0:
        vcopy(qacc, qacc_smooth)
        return
    solver = is_(M, MF.opt_solver)
    maxiter = is_(M, MF.opt_iterations)
    efc_J = jac_rows(M, D)
    aref = f1(D, DF.efc_aref)
    qLD, qLDiagInv = f1(D, DF.qLD), f1(D, DF.qLDiagInv)
    M_rownnz, M_rowadr, M_colind = i1(M, MF.M_rownnz), i1(M, MF.M_rowadr), i1(M, MF.M_colind)
    rows, nr, dofs, nv = all_rows(D)
    # efc_b = J qacc_smooth - aref (MuJoCo fills it for every solver)
    b = f1(D, DF.efc_b)
    _jar(efc_J, aref, rows, nr, dofs, nv, qacc_smooth, b)
    nisland = i1(D, DF.nisland)[0]
    if is_(M, MF.opt_disableflags) & _DSBL_ISLAND:
        nisland = 0
    nidof = i1(D, DF.nidof)[0]
    map_idof2dof, map_iefc2efc = i1(D, DF.map_idof2dof), i1(D, DF.map_iefc2efc)
    nslip = is_(M, MF.opt_noslip_iterations)
    if solver == SOL_PGS or nslip > 0:
        _minv_jt(M_rownnz, M_rowadr, M_colind, qLD, qLDiagInv, efc_J, nefc, f2(D, DF.sol_MinvJ))
    if solver == SOL_PGS:
        force = f1(D, DF.efc_force)
        if is_(M, MF.opt_disableflags) & _DSBL_WARMSTART:
            force[:nefc] = 0.0
            _finish_qacc(M, D)
        else:
            # warm start: the forces of qacc_warmstart, unless zero forces have a lower dual
            # cost 0.5 f'AR f + f'b (= 0.5 f'(b + res) with res = AR f + b, from qacc)
            jar = f2(D, DF.sol_efc)[_E_JAR]
            _jar(efc_J, aref, rows, nr, dofs, nv, f1(D, DF.qacc_warmstart), jar)
            constraint_update(M, D, jar, False)
            _finish_qacc(M, D)
            efc_R = f1(D, DF.efc_R)
            cost = 0.0
            for i in range(nefc):
                if force[i] != 0.0:
                    cost += 0.5 * force[i] * (
                        b[i] + _residual(efc_J, aref, efc_R, force, qacc, i, True))
            if cost > 0.0:
                force[:nefc] = 0.0
                _finish_qacc(M, D)
        if nisland > 0:
            for s in range(nisland):
                ir, inr, idofs, ind = _island_lists(D, s)
                k = solve_pgs(M, D, maxiter, ir, inr, idofs, ind, s)
                if s < _NISLAND:
                    niter[s] = k
                    nnz[s] = _nnz(M, D, solver, ir, inr, idofs, ind, True)
        else:
            rows, nr, dofs, nv = all_rows(D)
            niter[0] = solve_pgs(M, D, maxiter, rows, nr, dofs, nv, 0)
            nnz[0] = _nnz(M, D, solver, rows, nr, dofs, nv, False)
        _finish_qacc(M, D)
    else:
        # primal: qacc is the iterate; efc_force/qfrc_constraint come from its last update
        newton = solver == SOL_NEWTON
        _warmstart_primal(M, D)
        if nisland > 0:
            for k in range(nidof, nv):
                qacc[map_idof2dof[k]] = qacc_smooth[map_idof2dof[k]]
            # each island's row states go to efc_state in place, then trade places with the
            # warm start's (saved in iefc_state meanwhile): MuJoCo keeps them apart
            iefc_state, efc_state = i1(D, DF.iefc_state), i1(D, DF.efc_state)
            gather(iefc_state, efc_state, map_iefc2efc, nefc)
            for s in range(nisland):
                ir, inr, idofs, ind = _island_lists(D, s)
                k, hess = solve_primal(M, D, newton, maxiter, ir, inr, idofs, ind, efc_state, s)
                if s < _NISLAND:
                    niter[s] = k
                    nnz[s] = _nnz(M, D, solver if hess or not newton else SOL_CG, ir, inr,
                                  idofs, ind, True)
            for k in range(nefc):
                i = map_iefc2efc[k]
                st = efc_state[i]
                efc_state[i] = iefc_state[k]
                iefc_state[k] = st
            _gather_islands(D, nefc, nidof)
        else:
            rows, nr, dofs, nv = all_rows(D)
            k, hess = solve_primal(M, D, newton, maxiter, rows, nr, dofs, nv,
                                   i1(D, DF.efc_state), 0)
            niter[0] = k
            nnz[0] = _nnz(M, D, solver if hess or not newton else SOL_CG, rows, nr, dofs, nv,
                          False)
    if nslip > 0:
        _finish_qacc(M, D)
        if nisland > 0:
            for s in range(nisland):
                ir, inr, idofs, ind = _island_lists(D, s)
                k = solve_noslip(M, D, nslip, ir, inr, idofs, ind, s,
                                 niter[s] if s < _NISLAND else 0)
                if s < _NISLAND:
                    niter[s] += k
        else:
            rows, nr, dofs, nv = all_rows(D)
            niter[0] += solve_noslip(M, D, nslip, rows, nr, dofs, nv, 0, niter[0])
        _finish_qacc(M, D)


# =================================================================================================
# Python wrappers
# =================================================================================================
def mj_constraintUpdate(m, d, jar, cost=None, flg_coneHessian=0):
    """Update efc_state, efc_force, qfrc_constraint (and the cone Hessians contact.H) from
    ``jar = J qacc - aref``; the constraint cost goes to ``cost[0]`` when given."""
    argcheck.pair(m, d, "mj_constraintUpdate")
    fn = "mj_constraintUpdate"
    j = argcheck.in_array(jar, (d.nefc,), "jar", fn)
    cost = argcheck.out_array(cost, (1,), "cost", fn, optional=True)
    c = constraint_update(m._A, d._A, j, bool(flg_coneHessian))
    if cost is not None:
        cost[0] = c
    return c


def mj_solveConstraint(m, d):
    """Run the constraint solver on the rows already in d (the solver part of mj_fwdConstraint)."""
    argcheck.pair(m, d, "mj_solveConstraint")
    solve(m._A, d._A)


__all__ = ["solve", "constraint_update", "mj_constraintUpdate", "mj_solveConstraint"]
