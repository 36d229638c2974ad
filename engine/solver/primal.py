"""The primal solvers, CG and Newton (seed 001, "Solver"; MuJoCo's Computation chapter,
"Algorithms"; Todorov 2014), over the joint acceleration: minimise
0.5 (a - qacc_smooth)' M (a - qacc_smooth) + s(J a - aref) (engine.solver's docstring) from the
warm start, with the exact line search of engine.solver.linesearch.

- Newton: search -H^-1 grad with H the Hessian of engine.solver.hessian (made again whenever a
  row changes state), stopping on improvement, gradient or the Newton decrement.
- CG: nonlinear conjugate gradient preconditioned with M^-1, Hager-Zhang direction update (with
  its lower bound on beta).

Work per iteration: the rows' products with J (engine.jacobian: a row's nonzeros when sparse),
M products and solves over the problem's dofs, and for Newton the factor's nonzeros.
"""
from __future__ import annotations

import numpy as np

from .._access import f1, f2, fs, i1, is_
from .._jit import kernel
from .._layout import DF, MF
from ..jacobian import jac, mul_j
from ..math import vcopy
from ..support import mul_m, mul_m_sub, solve_m_sub
from .common import (CONE, DSBL_WARMSTART, E_JAR, E_JV, ELLIPTIC, MINVAL, QUADRATIC, SATISFIED,
                     V_GOLD, V_GRAD, V_MA, V_MGOLD, V_MGRAD, V_MV, V_SEARCH, V_TMP, all_rows,
                     constraint_update, dot_sub, gauss, jar_rows, save_stat, trace_scale, update)
from .hessian import hessian_solve, make_hessian, sparse_structure
from .linesearch import linesearch


@kernel
def warmstart_primal(M, D):
    """qacc = the better (lower total cost, over the whole problem) of qacc_warmstart and
    qacc_smooth, or qacc_smooth when the warmstart flag is disabled. efc_state, efc_force and
    qfrc_constraint are left at qacc_smooth's evaluation (MuJoCo's warm start evaluates it
    last)."""
    qacc = f1(D, DF.qacc)
    qacc_smooth = f1(D, DF.qacc_smooth)
    V = f2(D, DF.sol_vec)
    jar = f2(D, DF.sol_efc)[E_JAR]
    J = jac(M, D)
    aref = f1(D, DF.efc_aref)
    vcopy(qacc, qacc_smooth)
    if is_(M, MF.opt_disableflags) & DSBL_WARMSTART:
        return
    rows, nr, dofs, nd = all_rows(D)
    ws = f1(D, DF.qacc_warmstart)
    mul_m(i1(M, MF.dof_Madr), i1(M, MF.dof_parentid), f1(D, DF.qM), ws, V[V_MA])
    jar_rows(J, aref, rows, nr, dofs, nd, ws, jar)
    cws = gauss(ws, qacc_smooth, V[V_MA], f1(D, DF.qfrc_smooth), dofs, nd) + \
        constraint_update(M, D, jar, False)
    jar_rows(J, aref, rows, nr, dofs, nd, qacc_smooth, jar)
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
    qfrc_smooth = f1(D, DF.qfrc_smooth)
    qfrc_constraint = f1(D, DF.qfrc_constraint)
    qM = f1(D, DF.qM)
    dof_Madr, dof_parentid = i1(M, MF.dof_Madr), i1(M, MF.dof_parentid)
    M_rownnz, M_rowadr, M_colind = i1(M, MF.M_rownnz), i1(M, MF.M_rowadr), i1(M, MF.M_colind)
    qLD, qLDiagInv = f1(D, DF.qLD), f1(D, DF.qLDiagInv)
    J = jac(M, D)
    efc_type, efc_id = i1(D, DF.efc_type), i1(D, DF.efc_id)
    efc_D, efc_R = f1(D, DF.efc_D), f1(D, DF.efc_R)
    efc_fl, aref = f1(D, DF.efc_frictionloss), f1(D, DF.efc_aref)
    contact_mu, contact_friction = f1(D, DF.contact_mu), f2(D, DF.contact_friction)
    contact_dim = i1(D, DF.contact_dim)
    stat = f2(D, DF.solver_stat)
    V = f2(D, DF.sol_vec)
    E = f2(D, DF.sol_efc)
    oldstate = i1(D, DF.sol_state)
    loc = i1(D, DF.sol_loc)
    Ma, grad, Mgrad, search, Mv, Mgold = V[V_MA], V[V_GRAD], V[V_MGRAD], V[V_SEARCH], \
        V[V_MV], V[V_MGOLD]
    gold, tmp = V[V_GOLD], V[V_TMP]
    jar, jv = E[E_JAR], E[E_JV]
    elliptic = False
    for k in range(nr):
        if efc_type[rows[k]] == ELLIPTIC:
            elliptic = True
            break
    flg_hess = newton and elliptic
    for a in range(nd):
        loc[dofs[a]] = a
    scale = trace_scale(dof_Madr, qM, dofs, nd)
    tol = fs(M, MF.opt_tolerance)
    gtol_base = tol * fs(M, MF.opt_ls_tolerance) / scale
    ls_iter = is_(M, MF.opt_ls_iterations)

    mul_m_sub(dof_Madr, dof_parentid, qM, qacc, Ma, dofs, nd)
    jar_rows(J, aref, rows, nr, dofs, nd, qacc, jar)
    for kk in range(nr):
        if jar[rows[kk]] != jar[rows[kk]]:
            # a NaN constraint row (e.g. a contact of a geom at a NaN mocap pose): MuJoCo's
            # Newton/CG steps through it and every qacc of the problem ends NaN (measured on
            # 4.0.0: mj_checkAcc then warns and resets); a satisfied NaN row would otherwise
            # be ignored here
            for a in range(nd):
                qacc[dofs[a]] = np.nan
            return 0, False
    update(M, D, rows, nr, dofs, nd, jar, flg_hess, efc_state)
    for kk in range(nd):
        k = dofs[kk]
        grad[k] = Ma[k] - qfrc_smooth[k] - qfrc_constraint[k]
    # converged warm start: the cost is strongly convex in the M-norm, so the suboptimality is at
    # most 0.5 g' M^-1 g (the duality-gap certificate); below tolerance the solver does no
    # iteration (Newton also needs the gradient test), and skips the Hessian.
    solve_m_sub(M_rownnz, M_rowadr, M_colind, qLD, qLDiagInv, grad, Mgrad, dofs, nd)
    if scale * 0.5 * dot_sub(grad, Mgrad, dofs, nd) < tol and (
            not newton or scale * np.sqrt(dot_sub(grad, grad, dofs, nd)) < tol):
        return 0, False
    if newton:
        if J[4] and not sparse_structure(M, D, J, rows, nr, dofs, nd, loc):
            return 0, False      # no room for the factor: fw_status says so
        if make_hessian(M, D, J, rows, nr, dofs, nd, loc, efc_state) < 0:
            return 0, False
        hessian_solve(D, J, dofs, nd, grad, tmp, Mgrad)
    for kk in range(nd):
        k = dofs[kk]
        search[k] = -Mgrad[k]
    niter = 0
    for it in range(maxiter):
        # line search along `search`
        mul_m_sub(dof_Madr, dof_parentid, qM, search, Mv, dofs, nd)
        mul_j(J, rows, nr, dofs, nd, search, jv)
        snorm = np.sqrt(dot_sub(search, search, dofs, nd))
        # the Gauss part's polynomial: g1 = v'(M qacc - qfrc_smooth), g2 = 0.5 v'M v
        g1 = dot_sub(search, Ma, dofs, nd) - dot_sub(qfrc_smooth, search, dofs, nd)
        g2 = 0.5 * dot_sub(search, Mv, dofs, nd)
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
        if snorm >= MINVAL:
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
        update(M, D, rows, nr, dofs, nd, jar, flg_hess, efc_state)
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
                make_hessian(M, D, J, rows, nr, dofs, nd, loc, efc_state)
            nupdate = nquad + ncone
            hessian_solve(D, J, dofs, nd, grad, tmp, Mgrad)
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
        gradient = scale * np.sqrt(dot_sub(grad, grad, dofs, nd))
        save_stat(stat, isl, it, improvement, gradient, slope, nactive, nchange, neval,
                   nupdate)
        niter = it + 1
        if (improvement > 0.0 and improvement < tol) or gradient < tol:
            break
        # Newton: the decrement 0.5 g' H^-1 g (the quadratic model's predicted improvement of
        # the next step) is the third stopping test
        if newton and scale * 0.5 * dot_sub(grad, Mgrad, dofs, nd) < tol:
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
            if abs(dy) >= MINVAL:
                beta = (Myg - 2.0 * yMy * dg / dy) / dy
            # Hager-Zhang's lower bound -1 / (|d| min(0.01, |g_old|))
            bound = np.sqrt(dot_sub(search, search, dofs, nd)) * min(
                0.01, np.sqrt(dot_sub(gold, gold, dofs, nd)))
            if bound > 0.0 and beta < -1.0 / bound:
                beta = -1.0 / bound
            for kk in range(nd):
                k = dofs[kk]
                search[k] = -Mgrad[k] + beta * search[k]
    return niter, newton
