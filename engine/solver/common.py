"""What every solver shares: the constraint rows' cost, force and state (mj_constraintUpdate),
the statistics, the island index lists, and the constants and workspace rows of engine.solver.

Rows and dofs are always given as index lists (rows[:nr] into the efc_* arrays, dofs[:nd] into the
nv-vectors): one constraint island's, or everything's when islands are off (`all_rows`). The
Jacobian is the engine.jacobian tuple ``J`` (dense or compressed rows).
"""
from __future__ import annotations

import numpy as np

from .._access import f1, f2, i1
from .._jit import inline, kernel
from .._layout import DF
from ..constraint import CONTACT_ELLIPTIC as ELLIPTIC, CONTACT_PYRAMIDAL as PYRAMIDAL
from ..enums import mjMINVAL, mjtCone, mjtConstraintState, mjtDisableBit, mjtSolver
from ..jacobian import jac, mul_j, mul_jt

# mjtConstraint: ELLIPTIC, PYRAMIDAL (engine.constraint, re-exported for dual); mjtConstraintState, mjtSolver and the
# option bits this package reads, as plain ints for the kernels (engine.enums holds them)
_S = mjtConstraintState
SATISFIED, QUADRATIC, LINEARNEG, LINEARPOS, CONE = (
    int(_S.mjCNSTRSTATE_SATISFIED), int(_S.mjCNSTRSTATE_QUADRATIC),
    int(_S.mjCNSTRSTATE_LINEARNEG), int(_S.mjCNSTRSTATE_LINEARPOS), int(_S.mjCNSTRSTATE_CONE))
SOL_PGS, SOL_CG, SOL_NEWTON = (int(mjtSolver.mjSOL_PGS), int(mjtSolver.mjSOL_CG),
                               int(mjtSolver.mjSOL_NEWTON))
DSBL_WARMSTART = int(mjtDisableBit.mjDSBL_WARMSTART)
DSBL_ISLAND = int(mjtDisableBit.mjDSBL_ISLAND)
CONE_ELLIPTIC = int(mjtCone.mjCONE_ELLIPTIC)
MINVAL = mjMINVAL
NISLAND, NSOLVER = 20, 200  # mjNISLAND islands of solver statistics, mjNSOLVER records each

# rows of the sol_vec scratch (nv-vectors)
V_MA, V_GRAD, V_MGRAD, V_SEARCH, V_MV, V_MGOLD, V_TMP, V_GOLD = 0, 1, 2, 3, 4, 5, 6, 7
# rows of the sol_efc scratch (nefc-vectors)
E_JAR, E_JV, E_DIAG, E_RES = 0, 1, 2, 3


@kernel
def dot_sub(a, b, dofs, nd):
    """a . b over the dofs dofs[:nd]."""
    s = 0.0
    for kk in range(nd):
        p = dofs[kk]
        s += a[p] * b[p]
    return s


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
def update(M, D, rows, nr, dofs, nd, jar, flg_coneHessian, state):
    """update_rows over rows[:nr] (states into ``state``, forces into efc_force), and
    qfrc_constraint = J' efc_force on dofs[:nd]. Returns the constraint cost."""
    cost = update_rows(i1(D, DF.ne)[0], i1(D, DF.nf)[0], rows, nr, i1(D, DF.efc_type),
                       i1(D, DF.efc_id), f1(D, DF.efc_D), f1(D, DF.efc_R),
                       f1(D, DF.efc_frictionloss), f1(D, DF.contact_mu),
                       f2(D, DF.contact_friction), i1(D, DF.contact_dim), jar, flg_coneHessian,
                       f1(D, DF.efc_force), state, f2(D, DF.contact_H))
    mul_jt(jac(M, D), rows, nr, dofs, nd, f1(D, DF.efc_force), f1(D, DF.qfrc_constraint))
    return cost


@kernel
def constraint_update(M, D, jar, flg_coneHessian):
    """mj_constraintUpdate: efc_state, efc_force from ``jar = J qacc - aref`` (nefc,), and
    qfrc_constraint = J' efc_force; cone Hessians into contact_H when flg_coneHessian.
    Returns the constraint cost s(jar)."""
    rows, nr, dofs, nd = all_rows(D)
    return update(M, D, rows, nr, dofs, nd, jar, flg_coneHessian, i1(D, DF.efc_state))


# =================================================================================================
# statistics, scale, island lists
# =================================================================================================
@kernel
def save_stat(stat, isl, it, improvement, gradient, lineslope, nactive, nchange, neval,
               nupdate):
    """Statistics of iteration ``it`` of island ``isl`` (0 when monolithic) into the record
    isl * mjNSOLVER + it of solver_stat (d.solver); islands >= mjNISLAND and iterations >=
    mjNSOLVER are not recorded, as in MuJoCo."""
    if isl < NISLAND and it < NSOLVER:
        s = stat[isl * NSOLVER + it]
        s[0] = improvement
        s[1] = gradient
        s[2] = lineslope
        s[3] = nactive
        s[4] = nchange
        s[5] = neval
        s[6] = nupdate


@kernel
def trace_scale(dof_Madr, qM, dofs, nd):
    """1 / trace(M) over the dofs dofs[:nd] (an island's, or all): turns a cost decrease or a
    gradient norm into the dimensionless quantity compared with opt.tolerance (seed 001,
    "Solver" termination; MuJoCo 4 scales by the trace of the current inertia matrix of the
    island solved, no longer by stat.meaninertia)."""
    t = 0.0
    for kk in range(nd):
        t += qM[dof_Madr[dofs[kk]]]
    return 1.0 / t if t > MINVAL else 1.0


@kernel
def gauss(qacc, qacc_smooth, Ma, qfrc_smooth, dofs, nd):
    """0.5 (qacc - qacc_smooth)' M (qacc - qacc_smooth) over dofs[:nd], given Ma = M qacc,
    M qacc_smooth = qfrc_smooth."""
    s = 0.0
    for kk in range(nd):
        k = dofs[kk]
        s += (qacc[k] - qacc_smooth[k]) * (Ma[k] - qfrc_smooth[k])
    return 0.5 * s


@kernel
def jar_rows(J, efc_aref, rows, nr, dofs, nd, qacc, jar):
    """jar = J qacc - aref for the rows rows[:nr] (their dofs dofs[:nd])."""
    mul_j(J, rows, nr, dofs, nd, qacc, jar)
    for k in range(nr):
        i = rows[k]
        jar[i] -= efc_aref[i]


@inline
def island_lists(D, s):
    """(rows, nr, dofs, nd) of island s: its rows (map_iefc2efc) and dofs (map_idof2dof)."""
    a, nr = i1(D, DF.island_iefcadr)[s], i1(D, DF.island_nefc)[s]
    b, nd = i1(D, DF.island_idofadr)[s], i1(D, DF.island_nv)[s]
    return i1(D, DF.map_iefc2efc)[a:a + nr], nr, i1(D, DF.map_idof2dof)[b:b + nd], nd


