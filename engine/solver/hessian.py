"""Newton's Hessian H = M + J' diag(D_quadratic) J + sum_cone J_c' H_c J_c, its Cholesky factor
and solves (seed 001, "Solver": Newton; MuJoCo's Computation chapter, "Algorithms"), over one
problem: the rows rows[:nr] and the dofs dofs[:nd] (a constraint island's, or everything). Local
index a stands for dof dofs[a] (loc[dofs[a]] = a; the dofs increase, so local order is dof
order).

Two forms, as the Jacobian's layout (engine.jacobian):

- dense (mj_isSparse false; small models): H as an nd x nd matrix in sol_H, factored H = L L'
  (forward Cholesky); rows summed over the contiguous span of the dofs, which the compiler
  vectorises.
- sparse: H in compressed rows with MuJoCo's sparsity. `sparse_structure` (once per solve) finds
  the lower triangle's pattern: M's entries (the reduced inertia, d.M's rows: a dof's ancestors,
  a simple dof its diagonal only), J'J's (the pairs of columns of every row, whatever its state,
  so that any later state fits) and the fill-in of the factorisation H = L' L eliminating from
  the last dof to the first (MuJoCo's reverse order, which for a tree leaves M's pattern without
  fill: a dof's lower neighbours are its ancestors, already a clique). The pattern comes from the
  elimination tree: row k of L is H's row k with the rows of its children merged in (a child c of
  k: the largest column of row c below c is k). `sparse_factor` (whenever the row states change)
  adds J'DJ row by row (a row of H from the constraint rows through that dof, in increasing row
  order, as MuJoCo's mju_sqrMatTDSparse), then M, then factors in place. Work and storage grow
  with the factor's nonzeros, never with nd^2 or nr x nd.

Its workspace: sol_H (values), sol_Lcolind/rownnz/rowadr (L's pattern, rows stored in the order
they were found), sol_JT (the transposed Jacobian of the rows: for each local dof the rows
through it, as (entry of efc_J, row)), sol_etree (children lists), sol_mark (marks, positions),
sol_efc[E_DIAG] (the scaled entries of a run of rows).
A factor that does not fit sol_H is reported (STATUS_HESSFULL) instead of computed.
"""
from __future__ import annotations

import numpy as np

from .._access import f1, f2, i1, i2, is_
from .._jit import inline, kernel
from .._layout import DF, MF
from ..constraint import STATUS_HESSFULL
from ..jacobian import dense_rows
from .common import CONE, CONE_ELLIPTIC, E_DIAG, ELLIPTIC, MINVAL, QUADRATIC


# =================================================================================================
# dense
# =================================================================================================
@kernel
def _cholesky(A, n):
    """In-place lower Cholesky of the leading n x n block of A (upper part untouched).
    Returns the number of pivots clamped to mjMINVAL (0 for a positive definite A)."""
    bad = 0
    for j in range(n):
        s = A[j, j]
        for k in range(j):
            s -= A[j, k] * A[j, k]
        if s < MINVAL:
            s = MINVAL
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
def _dense_hessian(dof_Madr, dof_parentid, qM, efc_J, efc_D, efc_type, efc_id, efc_state,
                   contact_dim, contact_H, rows, nr, dofs, nd, loc, H):
    """H = M + sum_quadratic D_i J_i' J_i + sum_cone J_c' H_c J_c over the rows rows[:nr] and
    the dofs dofs[:nd] (efc_J: dense rows; H: nd x nd, local indices), then its Cholesky factor
    in place (lower). Returns the number of clamped pivots."""
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


# =================================================================================================
# sparse: structure
# =================================================================================================
@kernel
def _sift(a, start, n):
    """Heap-sort helper: sift a[start] down the max-heap a[:n]."""
    root = start
    while True:
        child = 2 * root + 1
        if child >= n:
            return
        if child + 1 < n and a[child] < a[child + 1]:
            child += 1
        if a[root] >= a[child]:
            return
        t = a[root]
        a[root] = a[child]
        a[child] = t
        root = child


@kernel
def _sort(a, n):
    """Sort the ints a[:n] in place, increasing (heap sort: no allocation, n log n)."""
    for start in range(n // 2 - 1, -1, -1):
        _sift(a, start, n)
    for end in range(n - 1, 0, -1):
        t = a[0]
        a[0] = a[end]
        a[end] = t
        _sift(a, 0, end)


@kernel
def _transpose(J, rows, nr, nd, loc, JT, JTrownnz, JTrowadr):
    """The rows through each local dof a, increasing, as (entry p of efc_J at dof a, row i) in
    JT[0:2, JTrowadr[a] : JTrowadr[a] + JTrownnz[a]] (compressed rows only)."""
    values, rownnz, rowadr, colind, _, _ = J
    for a in range(nd):
        JTrownnz[a] = 0
    for k in range(nr):
        i = rows[k]
        for p in range(rowadr[i], rowadr[i] + rownnz[i]):
            JTrownnz[loc[colind[p]]] += 1
    adr = 0
    for a in range(nd):
        JTrowadr[a] = adr
        adr += JTrownnz[a]
        JTrownnz[a] = 0
    for k in range(nr):
        i = rows[k]
        for p in range(rowadr[i], rowadr[i] + rownnz[i]):
            a = loc[colind[p]]
            q = JTrowadr[a] + JTrownnz[a]
            JT[0, q] = p
            JT[1, q] = i
            JTrownnz[a] += 1


@kernel
def _add_col(b, k, mark, Lcolind, pos, cap):
    """Column b into row k's pattern at Lcolind[pos] unless it is there (mark[b] == k).
    Returns the next free position, or -1 when the pattern would exceed ``cap``."""
    if mark[b] == k:
        return pos
    if pos >= cap:
        return -1
    mark[b] = k
    Lcolind[pos] = b
    return pos + 1


@kernel
def _symbolic(M_rownnz, M_rowadr, M_colind, J, rowsuper, dofs, nd, loc, JT, JTrownnz,
              JTrowadr, Lcolind, Lrownnz, Lrowadr, tree, mark, cap):
    """The pattern of L (H = L' L, reverse elimination): rows of local columns, increasing,
    diagonal last, stored in the order found (k from nd-1 down). tree[0] (child list heads)
    and tree[1] (next sibling) hold the elimination tree. Returns (nL, nJJ, nC): L's entries,
    the lower triangle of J'J's, M's on the dofs; nL = -1 when L would exceed ``cap``.
    rowsuper: efc_J_rowsuper (a row sharing the previous row's columns, e.g. the rows of one
    contact, adds nothing to the pattern: skipped, which divides the work by the rows per
    contact)."""
    _, rownnz, rowadr, colind, _, _ = J
    head, nxt = tree[0], tree[1]
    for a in range(nd):
        mark[a] = -1
        head[a] = -1
    pos = 0
    njj = 0
    nc = 0
    for k in range(nd - 1, -1, -1):
        start = pos
        # J'J: the columns up to dof k of every row through it (entry p is the row's column k)
        prev = -2
        for t in range(JTrowadr[k], JTrowadr[k] + JTrownnz[k]):
            p, i = JT[0, t], JT[1, t]
            same = i == prev + 1 and rowsuper[prev] > 0
            prev = i
            if same:
                continue
            for q in range(rowadr[i], p + 1):
                pos = _add_col(loc[colind[q]], k, mark, Lcolind, pos, cap)
                if pos < 0:
                    return -1, 0, 0
        njj += pos - start
        # M: the dof's row of the reduced inertia (its ancestors, then itself)
        i = dofs[k]
        nc += M_rownnz[i]
        for q in range(M_rowadr[i], M_rowadr[i] + M_rownnz[i]):
            pos = _add_col(loc[M_colind[q]], k, mark, Lcolind, pos, cap)
            if pos < 0:
                return -1, 0, 0
        # fill: the children's rows below k
        c = head[k]
        while c >= 0:
            for q in range(Lrowadr[c], Lrowadr[c] + Lrownnz[c]):
                if Lcolind[q] < k:
                    pos = _add_col(Lcolind[q], k, mark, Lcolind, pos, cap)
                    if pos < 0:
                        return -1, 0, 0
            c = nxt[c]
        n = pos - start
        _sort(Lcolind[start:pos], n)
        Lrowadr[k] = start
        Lrownnz[k] = n
        if n >= 2:
            parent = Lcolind[pos - 2]      # the largest column below the diagonal
            nxt[k] = head[parent]
            head[parent] = k
    return pos, njj, nc


@kernel
def sparse_structure(M, D, J, rows, nr, dofs, nd, loc):
    """The sparse Hessian's pattern for the rows rows[:nr] and dofs dofs[:nd] (module
    docstring) into the sol_L* workspace; its counts (nL, nJJ, nC) into sol_hnnz. Returns False
    (and sets STATUS_HESSFULL) when the factor does not fit sol_H."""
    JT = i2(D, DF.sol_JT)
    JTrownnz, JTrowadr = i1(D, DF.sol_JTrownnz), i1(D, DF.sol_JTrowadr)
    Lcolind = i1(D, DF.sol_Lcolind)
    _transpose(J, rows, nr, nd, loc, JT, JTrownnz, JTrowadr)
    nl, njj, nc = _symbolic(i1(M, MF.M_rownnz), i1(M, MF.M_rowadr), i1(M, MF.M_colind), J,
                            i1(D, DF.efc_J_rowsuper),
                            dofs, nd, loc, JT, JTrownnz, JTrowadr, Lcolind,
                            i1(D, DF.sol_Lrownnz), i1(D, DF.sol_Lrowadr), i2(D, DF.sol_etree),
                            i2(D, DF.sol_mark)[0], Lcolind.shape[0])
    hnnz = i1(D, DF.sol_hnnz)
    hnnz[0], hnnz[1], hnnz[2] = nl, njj, nc
    if nl < 0:
        st = i1(D, DF.fw_status)
        st[0] = STATUS_HESSFULL
        st[1] = nd
        st[2] = Lcolind.shape[0]
        return False
    return True


# =================================================================================================
# sparse: values, factor, solve
# =================================================================================================
@kernel
def _sparse_hessian(Mcsr, M_rownnz, M_rowadr, M_colind, J, rowsuper, efc_D, efc_type, efc_id,
                    efc_state, contact_dim, contact_H, contact_efc_address, dofs, nd, loc, JT,
                    JTrownnz, JTrowadr, Lcolind, Lrownnz, Lrowadr, L, posmap, scale):
    """H's values on L's pattern: for each local row a, sum over the rows through dof a (in
    increasing order) of D_i J_ia J_i (quadratic rows) or of the contact's cone block
    J_c' H_c J_c (elliptic contacts in the cone state, at their first row), then M's row.

    Consecutive rows with the same columns (rowsuper: the rows of a pyramidal contact, a
    connect or weld) are added as one run: each entry's position in L is looked up once and
    the rows' terms added to it in row order, the same additions in the same order as row by
    row (so the same bits), with a third to a tenth of the lookups (issue 18: this loop was
    the largest share of a 22-humanoid step). scale (nefc scratch) holds each run row's
    D_i J_ia meanwhile."""
    values, rownnz, rowadr, colind, _, _ = J
    for a in range(nd):
        adr, n = Lrowadr[a], Lrownnz[a]
        for t in range(n):
            posmap[Lcolind[adr + t]] = adr + t
            L[adr + t] = 0.0
        t = JTrowadr[a]
        tend = t + JTrownnz[a]
        while t < tend:
            p, i = JT[0, t], JT[1, t]
            st = efc_state[i]
            if efc_type[i] != ELLIPTIC or st != CONE:
                # the run of rows i, i+1, ... sharing row i's columns (all through dof a, so
                # next to each other in JT), none of them an elliptic cone
                g = 1
                while (t + g < tend and JT[1, t + g] == i + g and rowsuper[i + g - 1] > 0
                       and not (efc_type[i + g] == ELLIPTIC and efc_state[i + g] == CONE)):
                    g += 1
                if g > 1:
                    off = p - rowadr[i]     # dof a's entry in each row of the run
                    for r in range(g):
                        scale[i + r] = (efc_D[i + r] * values[rowadr[i + r] + off]
                                        if efc_state[i + r] == QUADRATIC else 0.0)
                    for q in range(off + 1):
                        u = posmap[loc[colind[rowadr[i] + q]]]
                        h = L[u]
                        for r in range(g):
                            s = scale[i + r]
                            if s != 0.0:
                                h += s * values[rowadr[i + r] + q]
                        L[u] = h
                    t += g
                    continue
            t += 1
            if efc_type[i] == ELLIPTIC and st == CONE:
                c = efc_id[i]
                first = contact_efc_address[c]
                if i != first:
                    continue            # added with the contact's first row
                dim = contact_dim[c]
                Hc = contact_H[c]
                off = p - rowadr[i]     # dof a's entry in each row of the contact
                for q in range(off + 1):
                    s = 0.0
                    for r in range(dim):
                        jr = values[rowadr[i + r] + off]
                        if jr == 0.0:
                            continue
                        for u in range(dim):
                            s += Hc[r * dim + u] * jr * values[rowadr[i + u] + q]
                    L[posmap[loc[colind[rowadr[i] + q]]]] += s
            elif st == QUADRATIC:
                s = efc_D[i] * values[p]
                if s != 0.0:
                    for q in range(rowadr[i], p + 1):
                        L[posmap[loc[colind[q]]]] += s * values[q]
        i = dofs[a]
        for q in range(M_rowadr[i], M_rowadr[i] + M_rownnz[i]):
            L[posmap[loc[M_colind[q]]]] += Mcsr[q]


@kernel
def _sparse_cholesky(Lcolind, Lrownnz, Lrowadr, L, nd):
    """In place H = L' L (L lower triangular in compressed rows, diagonal last), eliminating
    from the last row up: row k is scaled by 1/L_kk and its outer product subtracted from the
    rows below (each row a of its pattern holds the pattern's columns up to a, by
    construction). Returns the number of pivots clamped to mjMINVAL."""
    bad = 0
    for k in range(nd - 1, -1, -1):
        adr, n = Lrowadr[k], Lrownnz[k]
        d = L[adr + n - 1]
        if d < MINVAL:
            d = MINVAL
            bad += 1
        d = np.sqrt(d)
        L[adr + n - 1] = d
        for t in range(n - 1):
            L[adr + t] /= d
        for t in range(n - 1):
            a = Lcolind[adr + t]
            la = L[adr + t]
            if la == 0.0:
                continue
            # row a -= la * row k over columns b <= a: walk row a's columns to each b
            u = Lrowadr[a]
            for v in range(t + 1):
                b = Lcolind[adr + v]
                while Lcolind[u] != b:
                    u += 1
                L[u] -= la * L[adr + v]
    return bad


@kernel
def _sparse_solve(Lcolind, Lrownnz, Lrowadr, L, nd, x):
    """x <- H^-1 x for H = L' L (local indices): L' z = x from the last row up, then L y = z."""
    for r in range(nd - 1, -1, -1):
        adr, n = Lrowadr[r], Lrownnz[r]
        z = x[r] / L[adr + n - 1]
        x[r] = z
        if z != 0.0:
            for t in range(n - 1):
                x[Lcolind[adr + t]] -= L[adr + t] * z
    for r in range(nd):
        adr, n = Lrowadr[r], Lrownnz[r]
        s = x[r]
        for t in range(n - 1):
            s -= L[adr + t] * x[Lcolind[adr + t]]
        x[r] = s / L[adr + n - 1]


# =================================================================================================
# the Newton solver's entries
# =================================================================================================
@inline
def _dense_H(D, nd):
    """The nd x nd dense Hessian in sol_H (a view)."""
    return f1(D, DF.sol_H)[:nd * nd].reshape(nd, nd)


@kernel
def make_hessian(M, D, J, rows, nr, dofs, nd, loc, efc_state):
    """H for the current row states ``efc_state``, factored in sol_H (module docstring; the
    sparse form needs sparse_structure first). Returns the number of clamped pivots, or -1
    (STATUS_HESSFULL set) when the dense Hessian does not fit sol_H."""
    if J[4]:
        return _sparse_hessian_factor(M, D, J, dofs, nd, loc, efc_state)
    if nd * nd > f1(D, DF.sol_H).shape[0]:
        st = i1(D, DF.fw_status)
        st[0] = STATUS_HESSFULL
        st[1] = nd
        st[2] = f1(D, DF.sol_H).shape[0]
        return -1
    return _dense_hessian(i1(M, MF.dof_Madr), i1(M, MF.dof_parentid), f1(D, DF.qM),
                          dense_rows(J, i1(D, DF.nefc)[0]), f1(D, DF.efc_D), i1(D, DF.efc_type),
                          i1(D, DF.efc_id), efc_state, i1(D, DF.contact_dim),
                          f2(D, DF.contact_H), rows, nr, dofs, nd, loc, _dense_H(D, nd))


@kernel
def _sparse_hessian_factor(M, D, J, dofs, nd, loc, efc_state):
    Lcolind, Lrownnz, Lrowadr = i1(D, DF.sol_Lcolind), i1(D, DF.sol_Lrownnz), \
        i1(D, DF.sol_Lrowadr)
    L = f1(D, DF.sol_H)
    _sparse_hessian(f1(D, DF.M), i1(M, MF.M_rownnz), i1(M, MF.M_rowadr), i1(M, MF.M_colind), J,
                    i1(D, DF.efc_J_rowsuper), f1(D, DF.efc_D), i1(D, DF.efc_type), i1(D, DF.efc_id), efc_state,
                    i1(D, DF.contact_dim), f2(D, DF.contact_H), i1(D, DF.contact_efc_address),
                    dofs, nd, loc, i2(D, DF.sol_JT), i1(D, DF.sol_JTrownnz),
                    i1(D, DF.sol_JTrowadr), Lcolind, Lrownnz, Lrowadr, L, i2(D, DF.sol_mark)[1],
                    f2(D, DF.sol_efc)[E_DIAG])
    return _sparse_cholesky(Lcolind, Lrownnz, Lrowadr, L, nd)


@kernel
def hessian_solve(D, J, dofs, nd, grad, tmp, Mgrad):
    """Mgrad = H^-1 grad on dofs[:nd] from the factor of make_hessian (tmp: nd scratch)."""
    for a in range(nd):
        tmp[a] = grad[dofs[a]]
    if J[4]:
        _sparse_solve(i1(D, DF.sol_Lcolind), i1(D, DF.sol_Lrownnz), i1(D, DF.sol_Lrowadr),
                      f1(D, DF.sol_H), nd, tmp)
    else:
        _chol_solve(_dense_H(D, nd), nd, tmp)
    for a in range(nd):
        Mgrad[dofs[a]] = tmp[a]


@kernel
def hessian_nnz(M, D):
    """solver_nnz of sparse Newton from the last sparse_structure: MuJoCo's count of its
    Hessian and factor, nL + nC + nJJ (+ nL again for the elliptic cones' factor)."""
    hnnz = i1(D, DF.sol_hnnz)
    nl = hnnz[0]
    if is_(M, MF.opt_cone) == CONE_ELLIPTIC:
        nl *= 2
    return nl + hnnz[2] + hnnz[1]
