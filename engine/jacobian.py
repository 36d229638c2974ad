"""The constraint Jacobian efc_J as the kernels read it, and its products (seed 001, "Data layout":
dense or compressed rows; "Sparse vs dense": mj_isSparse).

Two layouts, as MuJoCo's (engine/constraint.py builds them):

- dense (mj_isSparse false): row i is efc_J[i*nv : (i+1)*nv], nJ = nefc*nv;
- sparse (opt.jacobian SPARSE, or AUTO with nv >= SPARSE_NV): row i holds its structural
  nonzeros, efc_J_rownnz[i] values from efc_J[efc_J_rowadr[i]] for the increasing dofs
  efc_J_colind[same range].

A kernel takes the Jacobian as one tuple ``J = (values, rownnz, rowadr, colind, sparse, nv)``
(`jac`), so one solver serves both: the dense layout keeps its contiguous inner loops over the
span of an island's dofs (vectorised by the compiler), the sparse one visits a row's nonzeros
only, so no work in sparse mode grows with nefc x nv.

Units: a row maps generalized velocity to the constraint's velocity (m/s or rad/s per unit of
qvel); J' maps a row force to generalized force.
"""
from __future__ import annotations

from ._access import f1, i1, is_
from ._jit import inline, kernel
from ._layout import DF, MF, SPARSE_NV
from .enums import mjtJacobian

# mjtJacobian as plain ints for the kernels
JAC_DENSE, JAC_SPARSE, JAC_AUTO = (int(mjtJacobian.mjJAC_DENSE), int(mjtJacobian.mjJAC_SPARSE),
                                   int(mjtJacobian.mjJAC_AUTO))


@kernel
def is_sparse(M, nv):
    """mj_isSparse: opt.jacobian SPARSE, or AUTO with nv >= SPARSE_NV (60)."""
    jacobian = is_(M, MF.opt_jacobian)
    return jacobian == JAC_SPARSE or (jacobian == JAC_AUTO and nv >= SPARSE_NV)


@inline
def jac(M, D):
    """The Jacobian tuple (efc_J, efc_J_rownnz, efc_J_rowadr, efc_J_colind, sparse, nv) the
    kernels of this module take (see the module docstring)."""
    nv = f1(D, DF.qvel).shape[0]
    return (f1(D, DF.efc_J), i1(D, DF.efc_J_rownnz), i1(D, DF.efc_J_rowadr),
            i1(D, DF.efc_J_colind), is_sparse(M, nv), nv)


@inline
def dense_rows(J, n):
    """The first n rows of a dense-layout Jacobian as an (n, nv) view of efc_J (inline: a
    view is returned)."""
    values, _, _, _, _, nv = J
    return values[:n * nv].reshape(n, nv)


@kernel
def row_dot(J, i, vec):
    """J_i . vec (vec: an nv-vector)."""
    values, rownnz, rowadr, colind, sparse, nv = J
    s = 0.0
    if sparse:
        a = rowadr[i]
        for p in range(a, a + rownnz[i]):
            s += values[p] * vec[colind[p]]
    else:
        a = i * nv
        for k in range(nv):
            s += values[a + k] * vec[k]
    return s


@kernel
def row_axpy(J, i, s, res):
    """res += s J_i' (res: an nv-vector; only the row's dofs change)."""
    values, rownnz, rowadr, colind, sparse, nv = J
    if sparse:
        a = rowadr[i]
        for p in range(a, a + rownnz[i]):
            res[colind[p]] += s * values[p]
    else:
        a = i * nv
        for k in range(nv):
            res[k] += s * values[a + k]


@kernel
def pair_dot(A, i, B, j):
    """A_i . B_j for two tuples of this layout over the same nv (e.g. J and M^-1 J'): a merge
    of the two rows' increasing columns when sparse."""
    va, nza, adra, cola, sparse, nv = A
    vb, nzb, adrb, colb, _, _ = B
    s = 0.0
    if not sparse:
        a, b = i * nv, j * nv
        for k in range(nv):
            s += va[a + k] * vb[b + k]
        return s
    p, pe = adra[i], adra[i] + nza[i]
    q, qe = adrb[j], adrb[j] + nzb[j]
    while p < pe and q < qe:
        ca, cb = cola[p], colb[q]
        if ca == cb:
            s += va[p] * vb[q]
            p += 1
            q += 1
        elif ca < cb:
            p += 1
        else:
            q += 1
    return s


@kernel
def _span(dofs, nd):
    """[lo, hi): from the first to the last of the (increasing) dofs dofs[:nd]."""
    if nd == 0:
        return 0, 0
    return dofs[0], dofs[nd - 1] + 1


@kernel
def mul_j(J, rows, nr, dofs, nd, vec, res):
    """res[i] = J_i vec for the rows i in rows[:nr], whose Jacobians are zero outside the dofs
    dofs[:nd] (an island's, or all). Dense rows are summed over the span of those dofs, a
    plain range the compiler vectorises (other islands' dofs in it add exact zeros)."""
    values, rownnz, rowadr, colind, sparse, nv = J
    if sparse:
        for k in range(nr):
            i = rows[k]
            s = 0.0
            a = rowadr[i]
            for p in range(a, a + rownnz[i]):
                s += values[p] * vec[colind[p]]
            res[i] = s
        return
    lo, hi = _span(dofs, nd)
    for k in range(nr):
        i = rows[k]
        a = i * nv
        s = 0.0
        for p in range(lo, hi):
            s += values[a + p] * vec[p]
        res[i] = s


@kernel
def mul_jt(J, rows, nr, dofs, nd, force, res):
    """res = J' force over the rows rows[:nr], written on the dofs dofs[:nd] (the rows'
    Jacobians are zero elsewhere); rows with zero force are skipped. Dense rows are added over
    the span of those dofs (see mul_j)."""
    values, rownnz, rowadr, colind, sparse, nv = J
    for kk in range(nd):
        res[dofs[kk]] = 0.0
    if sparse:
        for k in range(nr):
            i = rows[k]
            f = force[i]
            if f != 0.0:
                a = rowadr[i]
                for p in range(a, a + rownnz[i]):
                    res[colind[p]] += values[p] * f
        return
    lo, hi = _span(dofs, nd)
    for k in range(nr):
        i = rows[k]
        f = force[i]
        if f != 0.0:
            a = i * nv
            for p in range(lo, hi):
                res[p] += values[a + p] * f


__all__ = ["is_sparse", "jac", "dense_rows", "row_dot", "row_axpy", "pair_dot", "mul_j", "mul_jt",
           "JAC_DENSE", "JAC_SPARSE", "JAC_AUTO"]
