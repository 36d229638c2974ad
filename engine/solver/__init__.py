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

Jacobian: efc_J as engine.constraint leaves it, dense rows or MuJoCo's compressed rows
(mj_isSparse), read through engine.jacobian; with compressed rows no work or storage grows with
nefc x nv: products visit a row's nonzeros, Newton factors M + J'DJ in MuJoCo's sparse form
(hessian), PGS and noslip keep M^-1 J' over the trees a row touches (dual).

Modules: common (row cost/force/state, statistics, island lists), linesearch, hessian, primal
(CG, Newton), dual (PGS, noslip); this one drives them (solve) and counts solver_nnz.

Workspace: the ``sol_*`` rows of SCRATCH_TABLE (engine/_layout.py); no allocation here.
"""
from __future__ import annotations

import numpy as np

from .. import argcheck
from .._access import f1, f2, i1, is_
from .._jit import kernel
from .._layout import DF, MF
from ..jacobian import is_sparse, jac, mul_jt
from ..math import gather, vcopy
from ..support import solve_m
from .common import (DSBL_ISLAND, DSBL_WARMSTART, E_JAR, NISLAND, SOL_CG, SOL_NEWTON, SOL_PGS,
                     V_TMP, all_rows, constraint_update, island_lists, jar_rows, update)
from .dual import _residual, minv_jt, solve_noslip, solve_pgs
from .hessian import hessian_nnz
from .primal import solve_primal, warmstart_primal

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
    return hessian_nnz(M, D)


# =================================================================================================
# the solver stage
# =================================================================================================
@kernel
def _finish_qacc(M, D):
    """qfrc_constraint = J' efc_force and qacc = qacc_smooth + M^-1 qfrc_constraint."""
    rows, nefc, dofs, nv = all_rows(D)
    qacc = f1(D, DF.qacc)
    qfrc = f1(D, DF.qfrc_constraint)
    mul_jt(jac(M, D), rows, nefc, dofs, nv, f1(D, DF.efc_force), qfrc)
    tmp = f2(D, DF.sol_vec)[V_TMP]
    solve_m(i1(M, MF.M_rownnz), i1(M, MF.M_rowadr), i1(M, MF.M_colind), f1(D, DF.qLD),
            f1(D, DF.qLDiagInv), qfrc, tmp)
    qs = f1(D, DF.qacc_smooth)
    for k in range(nv):
        qacc[k] = qs[k] + tmp[k]


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
    J = jac(M, D)
    aref = f1(D, DF.efc_aref)
    rows, nr, dofs, nv = all_rows(D)
    # efc_b = J qacc_smooth - aref (MuJoCo fills it for every solver)
    b = f1(D, DF.efc_b)
    jar_rows(J, aref, rows, nr, dofs, nv, qacc_smooth, b)
    nisland = i1(D, DF.nisland)[0]
    if is_(M, MF.opt_disableflags) & DSBL_ISLAND:
        nisland = 0
    nidof = i1(D, DF.nidof)[0]
    map_idof2dof, map_iefc2efc = i1(D, DF.map_idof2dof), i1(D, DF.map_iefc2efc)
    nslip = is_(M, MF.opt_noslip_iterations)
    if solver == SOL_PGS or nslip > 0:
        if not minv_jt(M, D, J, nefc):
            vcopy(qacc, qacc_smooth)
            return          # no room for M^-1 J': fw_status says so
    if solver == SOL_PGS:
        force = f1(D, DF.efc_force)
        if is_(M, MF.opt_disableflags) & DSBL_WARMSTART:
            force[:nefc] = 0.0
            _finish_qacc(M, D)
        else:
            # warm start: the forces of qacc_warmstart, unless zero forces have a lower dual
            # cost 0.5 f'AR f + f'b (= 0.5 f'(b + res) with res = AR f + b, from qacc)
            jar = f2(D, DF.sol_efc)[E_JAR]
            jar_rows(J, aref, rows, nr, dofs, nv, f1(D, DF.qacc_warmstart), jar)
            constraint_update(M, D, jar, False)
            _finish_qacc(M, D)
            efc_R = f1(D, DF.efc_R)
            cost = 0.0
            for i in range(nefc):
                if force[i] != 0.0:
                    cost += 0.5 * force[i] * (
                        b[i] + _residual(J, aref, efc_R, force, qacc, i, True))
            if cost > 0.0:
                force[:nefc] = 0.0
                _finish_qacc(M, D)
        if nisland > 0:
            for s in range(nisland):
                ir, inr, idofs, ind = island_lists(D, s)
                k = solve_pgs(M, D, maxiter, ir, inr, idofs, ind, s)
                if s < NISLAND:
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
        warmstart_primal(M, D)
        if nisland > 0:
            for k in range(nidof, nv):
                qacc[map_idof2dof[k]] = qacc_smooth[map_idof2dof[k]]
            # each island's row states go to efc_state in place, then trade places with the
            # warm start's (saved in iefc_state meanwhile): MuJoCo keeps them apart
            iefc_state, efc_state = i1(D, DF.iefc_state), i1(D, DF.efc_state)
            gather(iefc_state, efc_state, map_iefc2efc, nefc)
            for s in range(nisland):
                ir, inr, idofs, ind = island_lists(D, s)
                k, hess = solve_primal(M, D, newton, maxiter, ir, inr, idofs, ind, efc_state, s)
                if s < NISLAND:
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
                ir, inr, idofs, ind = island_lists(D, s)
                k = solve_noslip(M, D, nslip, ir, inr, idofs, ind, s,
                                 niter[s] if s < NISLAND else 0)
                if s < NISLAND:
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
    fn = "mj_constraintUpdate"
    argcheck.pair(m, d, fn)
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


__all__ = ["solve", "constraint_update", "update", "all_rows", "mj_constraintUpdate",
           "mj_solveConstraint"]
