"""The dual solvers, PGS and noslip (seed 001, "Solver": PGS, noslip; MuJoCo's Computation chapter,
"Algorithms"), over the constraint forces f with the dual cost 0.5 f'(A+R)f + f'(J qacc_smooth -
aref), A = J M^-1 J'.

A's rows are never stored: qacc = qacc_smooth + M^-1 J' f is kept as an nv-vector, so a row's
residual (AR f + b)_i is J_i qacc - aref_i + R_i f_i (a row's nonzeros of J), and a force change
df of row i moves qacc by df M^-1 J_i'. Those vectors, MJ = M^-1 J' by rows, are made once per
solve (`minv_jt`) in the Jacobian's layout (engine.jacobian): nv entries per row when dense; when
sparse, the dofs of the kinematic trees the row touches (M is block diagonal by tree, so M^-1 J_i'
is zero outside them), so that no work or storage grows with nefc x nv.

Workspace: sol_MinvJ (values), sol_MJrownnz / sol_MJrowadr / sol_MJcolind (the sparse layout's
rows), sol_efc, sol_blk, sol_perm, sol_state (engine/_layout.py); no allocation.
"""
from __future__ import annotations

import numpy as np

from .._access import f1, f2, fs, i1
from .._jit import inline, kernel
from .._layout import DF, MF
from ..constraint import STATUS_MINVJFULL
from ..jacobian import is_sparse, jac, pair_dot, row_axpy, row_dot
from ..support import solve_m, solve_m_sub
from .common import (CONE, E_DIAG, E_JAR, E_JV, E_RES, ELLIPTIC, LINEARNEG, LINEARPOS, MINVAL,
                     PYRAMIDAL, QUADRATIC, SATISFIED, V_MV, V_TMP, save_stat, trace_scale)


@inline
def minv_jac(M, D):
    """M^-1 J' by rows, as a Jacobian-layout tuple (values, rownnz, rowadr, colind, sparse, nv)
    of the sol_MinvJ / sol_MJ* workspace (made by minv_jt)."""
    nv = f1(D, DF.qvel).shape[0]
    return (f1(D, DF.sol_MinvJ), i1(D, DF.sol_MJrownnz), i1(D, DF.sol_MJrowadr),
            i1(D, DF.sol_MJcolind), is_sparse(M, nv), nv)


@kernel
def minv_jt(M, D, J, nefc):
    """MJ_i = M^-1 J_i' for the first nefc rows (module docstring). Sparse: over the dofs of
    the trees of the row's columns (increasing, as the columns). Returns False (fw_status =
    STATUS_MINVJFULL, [1] the entries needed so far, [2] the capacity) when they do not fit."""
    values, rownnz, rowadr, colind, sparse, nv = J
    M_rownnz, M_rowadr, M_colind = i1(M, MF.M_rownnz), i1(M, MF.M_rowadr), i1(M, MF.M_colind)
    qLD, qLDiagInv = f1(D, DF.qLD), f1(D, DF.qLDiagInv)
    out = f1(D, DF.sol_MinvJ)
    if not sparse:
        for i in range(nefc):
            solve_m(M_rownnz, M_rowadr, M_colind, qLD, qLDiagInv, values[i * nv:(i + 1) * nv],
                    out[i * nv:(i + 1) * nv])
        return True
    mnnz, madr, mcol = i1(D, DF.sol_MJrownnz), i1(D, DF.sol_MJrowadr), i1(D, DF.sol_MJcolind)
    dof_treeid = i1(M, MF.dof_treeid)
    tree_dofadr, tree_dofnum = i1(M, MF.tree_dofadr), i1(M, MF.tree_dofnum)
    V = f2(D, DF.sol_vec)
    x, y = V[V_TMP], V[V_MV]
    cap = out.shape[0]
    pos = 0
    for i in range(nefc):
        a, n = rowadr[i], rownnz[i]
        # the row's trees' dofs: colind increases and a tree's dofs are contiguous, so each
        # tree shows up as one run of columns
        nd = 0
        prev = -1
        for p in range(a, a + n):
            t = dof_treeid[colind[p]]
            if t != prev:
                prev = t
                if pos + nd + tree_dofnum[t] > cap:
                    st = i1(D, DF.fw_status)
                    st[0] = STATUS_MINVJFULL
                    st[1] = pos + nd + tree_dofnum[t]
                    st[2] = cap
                    return False
                for k in range(tree_dofadr[t], tree_dofadr[t] + tree_dofnum[t]):
                    mcol[pos + nd] = k
                    x[k] = 0.0
                    nd += 1
        for p in range(a, a + n):
            x[colind[p]] = values[p]
        dofs = mcol[pos:pos + nd]
        solve_m_sub(M_rownnz, M_rowadr, M_colind, qLD, qLDiagInv, x, y, dofs, nd)
        for q in range(nd):
            out[pos + q] = y[dofs[q]]
        mnnz[i] = nd
        madr[i] = pos
        pos += nd
    return True


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
def _block(J, MJ, efc_R, i, dim, withR, first, Ac):
    """Ac (6-strided) = (J M^-1 J')[i+first.., i+first..] (+ R on the diagonal)."""
    n = dim - first
    for a in range(n):
        for c in range(a, n):
            s = pair_dot(J, i + first + a, MJ, i + first + c)
            Ac[a * 6 + c] = s
            Ac[c * 6 + a] = s
        if withR:
            Ac[a * 6 + a] += efc_R[i + first + a]


@kernel
def _residual(J, aref, efc_R, f, qacc, i, withR):
    """(AR f + b)_i = J_i qacc - aref_i (+ R_i f_i)."""
    s = row_dot(J, i, qacc) - aref[i]
    if withR:
        s += efc_R[i] * f[i]
    return s


@kernel
def _apply(MJ, i, df, qacc):
    """qacc += df M^-1 J_i' (the force change df of row i)."""
    if df != 0.0:
        row_axpy(MJ, i, df, qacc)


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
def _pgs_block(i, dim, ne, nf, elliptic, J, MJ, efc_R, efc_fl, aref, diag, fr, force,
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
        r = _residual(J, aref, efc_R, force, qacc, i, True)
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
            _apply(MJ, i, df, qacc)
        return change
    Ath = W[4]          # AR block of the contact (6-strided)
    old = W[5]          # forces of the block before the update
    res = W[6]          # residual of the block (0:6), friction linear term (6:12)
    Af = W[7]           # friction sub-block (0:36)
    v = W[5, 6:12]      # friction solution
    _block(J, MJ, efc_R, i, dim, True, 0, Ath)
    for j in range(dim):
        res[j] = _residual(J, aref, efc_R, force, qacc, i + j, True)
        old[j] = force[i + j]
    # normal or ray step
    if force[i] < MINVAL:
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
        if denom >= MINVAL:
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
    if force[i] < MINVAL:
        for a in range(nt):
            force[i + 1 + a] = 0.0
    else:
        active = _qcqp_ball(Af, res[6:12], fr, force[i], nt, W, v)
        if active:
            # put v on the ellipse: the multiplier iteration stops short of it
            s = 0.0
            for a in range(nt):
                s += v[a] * v[a] / (fr[a] * fr[a])
            s = np.sqrt(force[i] * force[i] / max(MINVAL, s))
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
        _apply(MJ, i + a, force[i + a] - old[a], qacc)
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
    ne, nf = i1(D, DF.ne)[0], i1(D, DF.nf)[0]
    qacc = f1(D, DF.qacc)
    J = jac(M, D)
    efc_type, efc_id = i1(D, DF.efc_type), i1(D, DF.efc_id)
    efc_R, efc_fl, aref = f1(D, DF.efc_R), f1(D, DF.efc_frictionloss), f1(D, DF.efc_aref)
    force, state = f1(D, DF.efc_force), i1(D, DF.efc_state)
    contact_friction, contact_mu = f2(D, DF.contact_friction), f1(D, DF.contact_mu)
    contact_dim = i1(D, DF.contact_dim)
    stat = f2(D, DF.solver_stat)
    MJ = minv_jac(M, D)
    E = f2(D, DF.sol_efc)
    diag = E[E_DIAG]
    ystart = E[E_JAR]      # forces at the start of the sweep (y)
    xprev = E[E_JV]        # forces after the previous sweep (x_{k-1})
    oldstate = i1(D, DF.sol_state)
    perm = i1(D, DF.sol_perm)
    W = f2(D, DF.sol_blk)
    scale = trace_scale(i1(M, MF.dof_Madr), f1(D, DF.qM), dofs, nd)
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
            diag[i + j] = pair_dot(J, i + j, MJ, i + j) + efc_R[i + j]
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
            improvement -= _pgs_block(i, dim, ne, nf, ell, J, MJ, efc_R, efc_fl, aref,
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
                _apply(MJ, i, force[i] - xprev[i], qacc)
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
    save_stat(stat, isl, it, improvement, 0.0, 0.0, nactive, nchange, 0, 0)


@kernel
def solve_noslip(M, D, maxiter, rows, nr, dofs, nd, isl, it0):
    """Noslip: PGS over friction loss rows and contact friction directions with R removed,
    normal forces held (pyramidal: each pair of opposing edges keeps its sum), over the rows
    rows[:nr] (an island's, or all) with the scale of the dofs dofs[:nd]. efc_state becomes the
    dual state of the forces; stats (improvement, nactive, nchange) go to island isl's records
    from it0 on (after its main solver's). Returns the iteration count."""
    ne, nf = i1(D, DF.ne)[0], i1(D, DF.nf)[0]
    qacc = f1(D, DF.qacc)
    J = jac(M, D)
    efc_type, efc_id = i1(D, DF.efc_type), i1(D, DF.efc_id)
    efc_R, efc_fl, aref = f1(D, DF.efc_R), f1(D, DF.efc_frictionloss), f1(D, DF.efc_aref)
    force, state = f1(D, DF.efc_force), i1(D, DF.efc_state)
    contact_friction, contact_mu = f2(D, DF.contact_friction), f1(D, DF.contact_mu)
    contact_dim = i1(D, DF.contact_dim)
    stat = f2(D, DF.solver_stat)
    MJ = minv_jac(M, D)
    E = f2(D, DF.sol_efc)
    res = E[E_RES]
    oldstate = i1(D, DF.sol_state)
    W = f2(D, DF.sol_blk)
    Ac = W[4]
    scale = trace_scale(i1(M, MF.dof_Madr), f1(D, DF.qM), dofs, nd)
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
            r = _residual(J, aref, efc_R, force, qacc, i, False)
            a = pair_dot(J, i, MJ, i)
            old = force[i]
            fn = old - r / max(a, MINVAL)
            fl = efc_fl[i]
            if fn > fl:
                fn = fl
            elif fn < -fl:
                fn = -fl
            df = fn - old
            if df != 0.0:
                force[i] = fn
                _apply(MJ, i, df, qacc)
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
                    ra = _residual(J, aref, efc_R, force, qacc, pa, False)
                    rb = _residual(J, aref, efc_R, force, qacc, pb, False)
                    aa = pair_dot(J, pa, MJ, pa)
                    bb = pair_dot(J, pb, MJ, pb)
                    ab = pair_dot(J, pa, MJ, pb)
                    curv = aa + bb - 2.0 * ab
                    g = ra - rb
                    dt = -g / max(curv, MINVAL)
                    if dt < -force[pa]:
                        dt = -force[pa]
                    if dt > force[pb]:
                        dt = force[pb]
                    if dt != 0.0:
                        force[pa] += dt
                        force[pb] -= dt
                        _apply(MJ, pa, dt, qacc)
                        _apply(MJ, pb, -dt, qacc)
                        improvement -= dt * (g + 0.5 * curv * dt)
                k += max(1, 2 * (dim - 1))
                continue
            if t == ELLIPTIC:
                c = efc_id[i]
                dim = contact_dim[c]
                if dim > 1 and force[i] <= 0.0:
                    for a in range(1, dim):
                        _apply(MJ, i + a, -force[i + a], qacc)
                        force[i + a] = 0.0
                elif dim > 1:
                    n = dim - 1
                    fr = contact_friction[c]
                    _block(J, MJ, efc_R, i, dim, False, 1, Ac)
                    for a in range(n):
                        res[i + 1 + a] = _residual(J, aref, efc_R, force, qacc, i + 1 + a,
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
                        _apply(MJ, i + 1 + a, da, qacc)
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
