"""Support functions (seed 001, "Jacobians", "coordinate frames and transformations", "data
layout"): end-effector Jacobians, products and solves with the inertia matrix, object velocities
and accelerations, position integration and differentiation.

The Python functions have the official bindings' names, argument order and output conventions:
outputs are preallocated numpy arrays passed in and filled (``mj_jac(m, d, jacp, jacr, point,
body)``, ``mj_fullM(m, d, dst)``, ``mj_solveM(m, d, x, y)``...). Each calls a compiled kernel; the
kernels (``jac_point`` ...) are also what the pipeline stages use.
"""
from __future__ import annotations

import numpy as np

from . import argcheck
from . import math as mm
from .errors import ArgumentError
from .enums import mjtObj

from ._jit import kernel
from .enums import mjJNT_FREE as FREE, mjJNT_BALL as BALL, mjJNT_SLIDE as SLIDE, mjJNT_HINGE as HINGE  # noqa
_OBJ_BODY, _OBJ_XBODY, _OBJ_GEOM = int(mjtObj.mjOBJ_BODY), int(mjtObj.mjOBJ_XBODY), int(mjtObj.mjOBJ_GEOM)
_OBJ_SITE, _OBJ_CAMERA = int(mjtObj.mjOBJ_SITE), int(mjtObj.mjOBJ_CAMERA)


# =================================================================================================
# Jacobians: kernels walk the dof chain of a body (its dofs and all its ancestors' dofs)
# =================================================================================================
@kernel
def last_dof(body_parentid, body_dofnum, body_dofadr, body):
    """The highest dof acting on ``body`` (its own last dof, else its nearest moving ancestor's);
    -1 for bodies welded to the world. Following dof_parentid from it visits the whole chain."""
    b = body
    while b > 0 and body_dofnum[b] == 0:
        b = body_parentid[b]
    if b <= 0:
        return -1
    return body_dofadr[b] + body_dofnum[b] - 1


@kernel
def add_jac_rows(
    # Model:
    body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid,
    # Data in:
    subtree_com, cdof, point, body, scale, flg_rot,
    # Data out:
    rows, loc=None,
):
    """rows[0:3] += scale * jacp(point, body) (or jacr when ``flg_rot``), 3 x nv, along the
    body's dof chain; dof k's column is loc[k] when given (a constraint's block of compressed
    rows, engine.constraint), else k."""
    off = mm.sub3(point, subtree_com[body_rootid[body]])
    k = last_dof(body_parentid, body_dofnum, body_dofadr, body)
    while k >= 0:
        if loc is None:
            col = k
        else:
            col = loc[k]
        c = cdof[k]
        if flg_rot:
            rows[0, col] += scale * c[0]
            rows[1, col] += scale * c[1]
            rows[2, col] += scale * c[2]
        else:
            lin = mm.add3((c[3], c[4], c[5]), mm.cross3((c[0], c[1], c[2]), off))
            rows[0, col] += scale * lin[0]
            rows[1, col] += scale * lin[1]
            rows[2, col] += scale * lin[2]
        k = dof_parentid[k]


@kernel
def jac_point(
    # Model:
    body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid,
    # Data in:
    subtree_com, cdof, point, body,
    # Data out:
    jacp, jacr, flg_p, flg_r,
):
    """mj_jac: 3 x nv translational (``jacp``) and rotational (``jacr``) Jacobians of the global
    ``point`` attached to ``body``; columns outside the body's dof chain are zero."""
    if flg_p:
        jacp[:, :] = 0.0
        add_jac_rows(body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid,
                     subtree_com, cdof, point, body, 1.0, False, jacp)
    if flg_r:
        jacr[:, :] = 0.0
        add_jac_rows(body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid,
                     subtree_com, cdof, point, body, 1.0, True, jacr)
    return dof_parentid.shape[0]


@kernel
def add_point_jac_dot(
    # Model:
    body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid,
    # Data in:
    subtree_com, cdof, point, body, dirv, scale,
    # Data out:
    row,
):
    """row += scale * dirv' jacp(point, body): a directional derivative of a point, accumulated
    along the body's dof chain without forming the Jacobian (tendon and transmission moments)."""
    off = mm.sub3(point, subtree_com[body_rootid[body]])
    k = last_dof(body_parentid, body_dofnum, body_dofadr, body)
    while k >= 0:
        c = cdof[k]
        lin = mm.add3((c[3], c[4], c[5]), mm.cross3((c[0], c[1], c[2]), off))
        row[k] += scale * mm.dot3(dirv, lin)
        k = dof_parentid[k]


@kernel
def add_wrench_jac_dot(
    # Model:
    body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid,
    # Data in:
    subtree_com, cdof, point, body, force, torque, scale,
    # Data out:
    row,
):
    """row += scale * (jacp' force + jacr' torque) at ``point`` on ``body``."""
    off = mm.sub3(point, subtree_com[body_rootid[body]])
    k = last_dof(body_parentid, body_dofnum, body_dofadr, body)
    while k >= 0:
        c = cdof[k]
        lin = mm.add3((c[3], c[4], c[5]), mm.cross3((c[0], c[1], c[2]), off))
        row[k] += scale * (mm.dot3(force, lin) + torque[0] * c[0] + torque[1] * c[1]
                           + torque[2] * c[2])
        k = dof_parentid[k]


@kernel
def jac_subtree_com(
    # Model:
    body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid, body_mass,
    body_subtreemass,
    # Data in:
    subtree_com, xipos, cdof, body,
    # Data out:
    jacp,
):
    """mj_jacSubtreeCom: translational Jacobian of the centre of mass of ``body``'s subtree: the
    mass-weighted mean of its bodies' com Jacobians."""
    jacp[:, :] = 0.0
    nbody = body_parentid.shape[0]
    tot = body_subtreemass[body]
    if tot < mm.mjMINVAL:
        return
    for b in range(body, nbody):
        # b is in the subtree iff walking up reaches `body` (bodies are in tree order)
        a = b
        while a > body:
            a = body_parentid[a]
        if a != body or body_mass[b] == 0.0:
            continue
        s = body_mass[b] / tot
        off = mm.sub3(xipos[b], subtree_com[body_rootid[b]])
        k = last_dof(body_parentid, body_dofnum, body_dofadr, b)
        while k >= 0:
            c = cdof[k]
            lin = mm.add3((c[3], c[4], c[5]), mm.cross3((c[0], c[1], c[2]), off))
            jacp[0, k] += s * lin[0]
            jacp[1, k] += s * lin[1]
            jacp[2, k] += s * lin[2]
            k = dof_parentid[k]


@kernel
def jac_axis(jacr, axis, jaxis):
    """Rotational Jacobian of a body-fixed ``axis``: column k = jacr[:, k] x axis."""
    for k in range(jacr.shape[1]):
        c = mm.cross3((jacr[0, k], jacr[1, k], jacr[2, k]), axis)
        jaxis[0, k] = c[0]
        jaxis[1, k] = c[1]
        jaxis[2, k] = c[2]


def _jac_args(m, d):
    return (m.body_parentid, m.body_rootid, m.body_dofnum, m.body_dofadr, m.dof_parentid)


def _jac_out(a, m, name, fn):
    """(output viewed as 3 x nv, flag); None gives a dummy and False."""
    v = argcheck.out_array(a, (3, m.nv), name, fn, optional=True)
    if v is None:
        return np.zeros((3, max(m.nv, 1))), False
    return v, True


def _jac(m, d, jacp, jacr, point, body, fn):
    """mj_jac after the pairing check; ``body`` already checked."""
    p, fp = _jac_out(jacp, m, "jacp", fn)
    r, fr = _jac_out(jacr, m, "jacr", fn)
    pt = argcheck.in_array(point, (3,), "point", fn)
    jac_point(*_jac_args(m, d), d.subtree_com, d.cdof, pt, body, p, r, fp, fr)


def mj_jac(m, d, jacp, jacr, point, body):
    """Translational/rotational Jacobians (3 x nv each; either may be None) of a global ``point``
    attached to ``body``. Needs mj_kinematics and mj_comPos (e.g. after mj_forward)."""
    argcheck.pair(m, d, "mj_jac")
    _jac(m, d, jacp, jacr, point, argcheck.index(body, m.nbody, "body", "mj_jac"), "mj_jac")


def mj_jacBody(m, d, jacp, jacr, body):
    """Jacobians of the body frame origin (xpos)."""
    argcheck.pair(m, d, "mj_jacBody")
    b = argcheck.index(body, m.nbody, "body", "mj_jacBody")
    _jac(m, d, jacp, jacr, d.xpos[b], b, "mj_jacBody")


def mj_jacBodyCom(m, d, jacp, jacr, body):
    """Jacobians of the body's centre of mass (xipos)."""
    argcheck.pair(m, d, "mj_jacBodyCom")
    b = argcheck.index(body, m.nbody, "body", "mj_jacBodyCom")
    _jac(m, d, jacp, jacr, d.xipos[b], b, "mj_jacBodyCom")


def mj_jacGeom(m, d, jacp, jacr, geom):
    """Jacobians of the geom centre."""
    argcheck.pair(m, d, "mj_jacGeom")
    g = argcheck.index(geom, m.ngeom, "geom", "mj_jacGeom")
    _jac(m, d, jacp, jacr, d.geom_xpos[g], int(m.geom_bodyid[g]), "mj_jacGeom")


def mj_jacSite(m, d, jacp, jacr, site):
    """Jacobians of the site."""
    argcheck.pair(m, d, "mj_jacSite")
    s = argcheck.index(site, m.nsite, "site", "mj_jacSite")
    _jac(m, d, jacp, jacr, d.site_xpos[s], int(m.site_bodyid[s]), "mj_jacSite")


def mj_jacSubtreeCom(m, d, jacp, body):
    """Translational Jacobian of the subtree centre of mass of ``body``."""
    argcheck.pair(m, d, "mj_jacSubtreeCom")
    b = argcheck.index(body, m.nbody, "body", "mj_jacSubtreeCom")
    p, _ = _jac_out(jacp, m, "jacp", "mj_jacSubtreeCom")
    jac_subtree_com(*_jac_args(m, d), m.body_mass, m.body_subtreemass, d.subtree_com, d.xipos,
                    d.cdof, b, p)


def mj_jacPointAxis(m, d, jacPoint, jacAxis, point, axis, body):
    """Translational Jacobian of ``point`` and rotational Jacobian of the global ``axis``
    (the derivative of the axis direction), both attached to ``body``."""
    fn = "mj_jacPointAxis"
    argcheck.pair(m, d, fn)
    b = argcheck.index(body, m.nbody, "body", fn)
    p, fp = _jac_out(jacPoint, m, "jacPoint", fn)
    a = argcheck.out_array(jacAxis, (3, m.nv), "jacAxis", fn, optional=True)
    pt = argcheck.in_array(point, (3,), "point", fn)
    ax = argcheck.in_array(axis, (3,), "axis", fn)
    r = np.zeros((3, m.nv))
    jac_point(*_jac_args(m, d), d.subtree_com, d.cdof, pt, b, p, r, fp, True)
    if a is not None:
        jac_axis(r, ax, a)


# =================================================================================================
# inertia matrix: products, solves, dense copies
# =================================================================================================
@kernel
def mul_m(
    # Model:
    dof_Madr, dof_parentid,
    # Data in:
    qM, vec,
    # Data out:
    res,
):
    """res = M vec from qM (tree layout); vec, res: (nv,) or (n, nv) rows."""
    nv = dof_Madr.shape[0]
    for i in range(nv):
        res[i] = qM[dof_Madr[i]] * vec[i]
    for i in range(nv):
        adr = dof_Madr[i] + 1
        j = dof_parentid[i]
        while j >= 0:
            res[i] += qM[adr] * vec[j]
            res[j] += qM[adr] * vec[i]
            adr += 1
            j = dof_parentid[j]


@kernel
def mul_m2(
    # Model:
    M_rownnz, M_rowadr, M_colind,
    # Data in:
    qLD, vec,
    # Data out:
    res,
):
    """res = sqrt(D) L vec, so that |res|^2 = vec' M vec."""
    nv = M_rownnz.shape[0]
    for i in range(nv):
        adr = M_rowadr[i]
        nnz = M_rownnz[i]
        s = vec[i]
        for p in range(nnz - 1):
            s += qLD[adr + p] * vec[M_colind[adr + p]]
        res[i] = s * np.sqrt(qLD[adr + nnz - 1])


@kernel
def solve_m(
    # Model:
    M_rownnz, M_rowadr, M_colind,
    # Data in:
    qLD, qLDiagInv, y,
    # Data out:
    x,
):
    """x = inv(L' D L) y for one right-hand side (x may alias y)."""
    nv = M_rownnz.shape[0]
    for i in range(nv):
        x[i] = y[i]
    # x <- inv(L') x: eliminate from the leaves up
    for i in range(nv - 1, -1, -1):
        xi = x[i]
        if xi != 0.0:
            adr = M_rowadr[i]
            for p in range(M_rownnz[i] - 1):
                x[M_colind[adr + p]] -= qLD[adr + p] * xi
    for i in range(nv):
        x[i] *= qLDiagInv[i]
    # x <- inv(L) x: from the roots down
    for i in range(nv):
        adr = M_rowadr[i]
        s = 0.0
        for p in range(M_rownnz[i] - 1):
            s += qLD[adr + p] * x[M_colind[adr + p]]
        x[i] -= s


@kernel
def mul_m_sub(dof_Madr, dof_parentid, qM, vec, res, dofs, nd):
    """mul_m on the dofs dofs[:nd] only: res = M vec there, for vec supported there. dofs is
    a union of whole kinematic trees in increasing order (a constraint island, or all dofs):
    M is block diagonal by tree, so nothing outside is read or written."""
    for kk in range(nd):
        i = dofs[kk]
        res[i] = qM[dof_Madr[i]] * vec[i]
    for kk in range(nd):
        i = dofs[kk]
        adr = dof_Madr[i] + 1
        j = dof_parentid[i]
        while j >= 0:
            res[i] += qM[adr] * vec[j]
            res[j] += qM[adr] * vec[i]
            adr += 1
            j = dof_parentid[j]


@kernel
def solve_m_sub(M_rownnz, M_rowadr, M_colind, qLD, qLDiagInv, y, x, dofs, nd):
    """solve_m on the dofs dofs[:nd] only (whole trees, increasing, as mul_m_sub): x = M^-1 y
    there (x may alias y), the same operations in the same order as solve_m on those rows."""
    for kk in range(nd):
        i = dofs[kk]
        x[i] = y[i]
    for kk in range(nd - 1, -1, -1):
        i = dofs[kk]
        xi = x[i]
        if xi != 0.0:
            adr = M_rowadr[i]
            for p in range(M_rownnz[i] - 1):
                x[M_colind[adr + p]] -= qLD[adr + p] * xi
    for kk in range(nd):
        i = dofs[kk]
        x[i] *= qLDiagInv[i]
    for kk in range(nd):
        i = dofs[kk]
        adr = M_rowadr[i]
        s = 0.0
        for p in range(M_rownnz[i] - 1):
            s += qLD[adr + p] * x[M_colind[adr + p]]
        x[i] -= s


@kernel
def solve_m2(
    # Model:
    M_rownnz, M_rowadr, M_colind,
    # Data in:
    qLD, sqrtInvD, y,
    # Data out:
    x,
):
    """x = sqrt(inv(D)) inv(L') y (half of the solve: |x|^2 = y' inv(M) y)."""
    nv = M_rownnz.shape[0]
    for i in range(nv):
        x[i] = y[i]
    for i in range(nv - 1, -1, -1):
        xi = x[i]
        if xi != 0.0:
            adr = M_rowadr[i]
            for p in range(M_rownnz[i] - 1):
                x[M_colind[adr + p]] -= qLD[adr + p] * xi
    for i in range(nv):
        x[i] *= sqrtInvD[i]


@kernel
def full_m(dof_Madr, dof_parentid, qM, dst):
    """Dense symmetric nv x nv M from qM."""
    nv = dof_Madr.shape[0]
    dst[:, :] = 0.0
    for i in range(nv):
        adr = dof_Madr[i]
        dst[i, i] = qM[adr]
        adr += 1
        j = dof_parentid[i]
        while j >= 0:
            dst[i, j] = qM[adr]
            dst[j, i] = qM[adr]
            adr += 1
            j = dof_parentid[j]


def mj_fullM(m, d, dst):
    """Dense nv x nv inertia matrix into ``dst`` (mujoco 4: ``mj_fullM(m, d, dst)``)."""
    argcheck.pair(m, d, "mj_fullM")
    full_m(m.dof_Madr, m.dof_parentid, d.qM,
           argcheck.out_array(dst, (m.nv, m.nv), "dst", "mj_fullM"))


def mj_mulM(m, d, res, vec):
    """res = M vec."""
    argcheck.pair(m, d, "mj_mulM")
    mul_m(m.dof_Madr, m.dof_parentid, d.qM, argcheck.in_array(vec, (m.nv,), "vec", "mj_mulM"),
          argcheck.out_array(res, (m.nv,), "res", "mj_mulM"))


def mj_mulM2(m, d, res, vec):
    """res = M^(1/2) vec = sqrt(D) L vec."""
    argcheck.pair(m, d, "mj_mulM2")
    mul_m2(m.M_rownnz, m.M_rowadr, m.M_colind, d.qLD,
           argcheck.in_array(vec, (m.nv,), "vec", "mj_mulM2"),
           argcheck.out_array(res, (m.nv,), "res", "mj_mulM2"))


def mj_solveM(m, d, x, y):
    """x = inv(M) y using the factorisation; x, y: (n, nv) (or (nv,)) rows solved one by one."""
    argcheck.pair(m, d, "mj_solveM")
    xs = argcheck.out_rows(x, m.nv, "x", "mj_solveM")
    ys = argcheck.in_rows(y, xs.shape[0], m.nv, "y", "mj_solveM")
    for r in range(xs.shape[0]):
        solve_m(m.M_rownnz, m.M_rowadr, m.M_colind, d.qLD, d.qLDiagInv, ys[r].copy(), xs[r])


def mj_solveM2(m, d, x, y, sqrtInvD):
    """x = sqrt(inv(D)) inv(L') y for each row of y."""
    argcheck.pair(m, d, "mj_solveM2")
    xs = argcheck.out_rows(x, m.nv, "x", "mj_solveM2")
    ys = argcheck.in_rows(y, xs.shape[0], m.nv, "y", "mj_solveM2")
    s = argcheck.in_array(sqrtInvD, (m.nv,), "sqrtInvD", "mj_solveM2")
    for r in range(xs.shape[0]):
        solve_m2(m.M_rownnz, m.M_rowadr, m.M_colind, d.qLD, s, ys[r].copy(), xs[r])


@kernel
def add_m_dense(dof_Madr, dof_parentid, qM, dst):
    """dst += M, lower triangle only (dst dense nv x nv)."""
    nv = dof_Madr.shape[0]
    for i in range(nv):
        adr = dof_Madr[i]
        dst[i, i] += qM[adr]
        adr += 1
        j = dof_parentid[i]
        while j >= 0:
            dst[i, j] += qM[adr]
            adr += 1
            j = dof_parentid[j]


@kernel
def add_m_sparse(M_rownnz, M_rowadr, M_colind, Mcsr, dst, rownnz, rowadr, colind):
    """dst += M (lower triangle) for a CSR ``dst`` whose rows contain M's pattern (merged)."""
    nv = M_rownnz.shape[0]
    for i in range(nv):
        a = M_rowadr[i]
        b = rowadr[i]
        # merge the two sorted column lists of row i, writing back to (b ...)
        na = M_rownnz[i]
        nb = rownnz[i]
        # gather union in place from the end (dst row has room up to its allocation)
        ia = na - 1
        ib = nb - 1
        n = 0
        # count union size
        pa, pb = 0, 0
        while pa < na or pb < nb:
            if pb >= nb or (pa < na and M_colind[a + pa] < colind[b + pb]):
                pa += 1
            elif pa >= na or colind[b + pb] < M_colind[a + pa]:
                pb += 1
            else:
                pa += 1
                pb += 1
            n += 1
        w = n - 1
        while ia >= 0 or ib >= 0:
            if ib < 0 or (ia >= 0 and M_colind[a + ia] > colind[b + ib]):
                colind[b + w] = M_colind[a + ia]
                dst[b + w] = Mcsr[a + ia]
                ia -= 1
            elif ia < 0 or colind[b + ib] > M_colind[a + ia]:
                colind[b + w] = colind[b + ib]
                dst[b + w] = dst[b + ib]
                ib -= 1
            else:
                colind[b + w] = colind[b + ib]
                dst[b + w] = dst[b + ib] + Mcsr[a + ia]
                ia -= 1
                ib -= 1
            w -= 1
        rownnz[i] = n


def mj_addM(m, d, dst, rownnz=None, rowadr=None, colind=None):
    """Add M to ``dst`` (lower triangle only): dense nv x nv when the index arrays are None,
    else CSR (rows must have room for the merged pattern: checked, as the kernel writes each
    merged row in place up to the next row's address)."""
    fn = "mj_addM"
    argcheck.pair(m, d, fn)
    if rownnz is None and rowadr is None and colind is None:
        add_m_dense(m.dof_Madr, m.dof_parentid, d.qM, argcheck.out_array(dst, (m.nv, m.nv),
                                                                          "dst", fn))
        return
    nv, i32 = m.nv, np.dtype(np.int32)
    nnz = argcheck.out_array(rownnz, (nv,), "rownnz", fn, dtype=i32)
    adr = argcheck.out_array(rowadr, (nv,), "rowadr", fn, dtype=i32)
    if not isinstance(colind, np.ndarray) or colind.ndim != 1:
        raise ArgumentError(f"{fn}: colind must be a 1-D int32 numpy array")
    col = argcheck.out_array(colind, colind.shape, "colind", fn, dtype=i32)
    if not isinstance(dst, np.ndarray) or dst.shape != col.shape:
        raise ArgumentError(f"{fn}: dst must be a 1-D float64 array of colind's size "
                            f"{col.size}")
    val = argcheck.out_array(dst, col.shape, "dst", fn)
    # each row's merged pattern must fit before the next row starts (and inside the arrays),
    # and the given columns must be dof indices
    size = col.size
    starts = np.sort(adr)
    nxt = np.searchsorted(starts, adr, side="right")
    for i in range(nv):
        end = int(starts[nxt[i]]) if nxt[i] < nv else size
        if not 0 <= adr[i] <= end <= size or not 0 <= nnz[i] <= end - adr[i]:
            raise ValueError(f"{fn}: row {i}: rowadr/rownnz outside colind")
        cols = col[adr[i]:adr[i] + nnz[i]]
        if cols.size and (cols.min() < 0 or cols.max() >= nv):
            raise ValueError(f"{fn}: row {i}: colind has a column outside [0, {nv})")
        union = np.union1d(cols, m.M_colind[m.M_rowadr[i]:m.M_rowadr[i] + m.M_rownnz[i]])
        if union.size > end - adr[i]:
            raise ValueError(f"{fn}: row {i} has room for {end - adr[i]} entries, the merged "
                             f"pattern needs {union.size}")
    add_m_sparse(m.M_rownnz, m.M_rowadr, m.M_colind, d.M, val, nnz, adr, col)


# =================================================================================================
# object velocities and accelerations
# =================================================================================================
def _object_frame(m, d, objtype, objid, fn):
    """(body, position, orientation) of object ``objid`` of ``objtype`` (checked)."""
    objtype = argcheck.integer(objtype, "objtype", fn)
    kinds = {_OBJ_BODY: ("nbody", "xipos", "ximat", None),
             _OBJ_XBODY: ("nbody", "xpos", "xmat", None),
             _OBJ_GEOM: ("ngeom", "geom_xpos", "geom_xmat", "geom_bodyid"),
             _OBJ_SITE: ("nsite", "site_xpos", "site_xmat", "site_bodyid"),
             _OBJ_CAMERA: ("ncam", "cam_xpos", "cam_xmat", "cam_bodyid")}
    if objtype not in kinds:
        # mujoco: mjERROR "invalid object type" (FatalError)
        raise ValueError(f"{fn}: invalid objtype {objtype}: body, xbody, geom, site or camera")
    size, pos, mat, body = kinds[objtype]
    i = argcheck.index(objid, getattr(m, size), "objid", fn)
    b = i if body is None else int(getattr(m, body)[i])
    return b, getattr(d, pos)[i], getattr(d, mat)[i]


@kernel
def object_velocity(cvel, com, pos, mat, flg_local, res):
    """6-D velocity (rotation, translation) of the frame at ``pos`` moving with spatial velocity
    ``cvel`` given at ``com``; in the frame ``mat`` if flg_local, else world axes."""
    v = mm.transform_motion(cvel, pos, com)
    if flg_local:
        v = mm.rot_t6(mat, v)
    mm.set6(res, v)


@kernel
def object_acceleration(cvel, cacc, com, pos, mat, flg_local, res):
    """6-D classical acceleration at ``pos`` from the spatial ``cacc``/``cvel`` at ``com``: the
    spatial acceleration plus w x v (the frame-origin term)."""
    a = mm.transform_motion(cacc, pos, com)
    v = mm.transform_motion(cvel, pos, com)
    if flg_local:
        a = mm.rot_t6(mat, a)
        v = mm.rot_t6(mat, v)
    c = mm.cross3((v[0], v[1], v[2]), (v[3], v[4], v[5]))
    mm.set6(res, (a[0], a[1], a[2], a[3] + c[0], a[4] + c[1], a[5] + c[2]))


def mj_objectVelocity(m, d, objtype, objid, res, flg_local):
    """Velocity (rot:lin) of an object's frame, world or local (flg_local) orientation."""
    fn = "mj_objectVelocity"
    argcheck.pair(m, d, fn)
    b, pos, mat = _object_frame(m, d, objtype, objid, fn)
    object_velocity(d.cvel[b], d.subtree_com[m.body_rootid[b]], pos, mat, bool(flg_local),
                    argcheck.out_array(res, (6,), "res", fn))


def mj_objectAcceleration(m, d, objtype, objid, res, flg_local):
    """Acceleration (rot:lin) of an object's frame; needs cacc (mj_rnePostConstraint)."""
    fn = "mj_objectAcceleration"
    argcheck.pair(m, d, fn)
    b, pos, mat = _object_frame(m, d, objtype, objid, fn)
    object_acceleration(d.cvel[b], d.cacc[b], d.subtree_com[m.body_rootid[b]], pos, mat,
                        bool(flg_local), argcheck.out_array(res, (6,), "res", fn))


# =================================================================================================
# positions: integrate and differentiate (quaternion joints)
# =================================================================================================
@kernel
def integrate_pos(jnt_type, jnt_qposadr, jnt_dofadr, qpos, qvel, dt):
    """qpos <- qpos (+) qvel*dt: quaternions rotate by the local angular velocity."""
    for j in range(jnt_type.shape[0]):
        _integrate_joint(jnt_type[j], jnt_qposadr[j], jnt_dofadr[j], qpos, qvel, dt)


@kernel
def integrate_pos_awake(jnt_type, jnt_qposadr, jnt_dofadr, jnt_bodyid, body_awake, qpos, qvel,
                        dt):
    """integrate_pos on the joints of awake bodies only (body_awake == mjS_AWAKE): sleeping
    trees keep their qpos (seed 001, "Sleeping islands")."""
    for j in range(jnt_type.shape[0]):
        if body_awake[jnt_bodyid[j]] == 1:
            _integrate_joint(jnt_type[j], jnt_qposadr[j], jnt_dofadr[j], qpos, qvel, dt)


@kernel
def _integrate_joint(t, qa, da, qpos, qvel, dt):
    """One joint of integrate_pos."""
    if t == FREE:
        for k in range(3):
            qpos[qa + k] += dt * qvel[da + k]
        qa += 3
        da += 3
    if t == FREE or t == BALL:
        q = mm.quat_integrate((qpos[qa], qpos[qa + 1], qpos[qa + 2], qpos[qa + 3]),
                              (qvel[da], qvel[da + 1], qvel[da + 2]), dt)
        mm.set4(qpos[qa:qa + 4], q)
    else:
        qpos[qa] += dt * qvel[da]


@kernel
def differentiate_pos(jnt_type, jnt_qposadr, jnt_dofadr, qvel, dt, qpos1, qpos2):
    """qvel = (qpos2 (-) qpos1) / dt."""
    for j in range(jnt_type.shape[0]):
        t = jnt_type[j]
        qa = jnt_qposadr[j]
        da = jnt_dofadr[j]
        if t == FREE:
            for k in range(3):
                qvel[da + k] = (qpos2[qa + k] - qpos1[qa + k]) / dt
            qa += 3
            da += 3
        if t == FREE or t == BALL:
            qa1 = mm.quat_normalize((qpos1[qa], qpos1[qa + 1], qpos1[qa + 2], qpos1[qa + 3]))
            qb2 = mm.quat_normalize((qpos2[qa], qpos2[qa + 1], qpos2[qa + 2], qpos2[qa + 3]))
            v = mm.sub_quat(qb2, qa1)
            qvel[da] = v[0] / dt
            qvel[da + 1] = v[1] / dt
            qvel[da + 2] = v[2] / dt
        else:
            qvel[da] = (qpos2[qa] - qpos1[qa]) / dt


def mj_integratePos(m, qpos, qvel, dt):
    """Integrate ``qpos`` in place by ``qvel`` over ``dt``."""
    fn = "mj_integratePos"
    argcheck.model(m, fn)
    integrate_pos(m.jnt_type, m.jnt_qposadr, m.jnt_dofadr,
                  argcheck.out_array(qpos, (m.nq,), "qpos", fn),
                  argcheck.in_array(qvel, (m.nv,), "qvel", fn), float(dt))


def mj_differentiatePos(m, qvel, dt, qpos1, qpos2):
    """``qvel`` = finite-difference velocity from qpos1 to qpos2 over ``dt``."""
    fn = "mj_differentiatePos"
    argcheck.model(m, fn)
    differentiate_pos(m.jnt_type, m.jnt_qposadr, m.jnt_dofadr,
                      argcheck.out_array(qvel, (m.nv,), "qvel", fn), float(dt),
                      argcheck.in_array(qpos1, (m.nq,), "qpos1", fn),
                      argcheck.in_array(qpos2, (m.nq,), "qpos2", fn))


__all__ = [
    "mj_jac", "mj_jacBody", "mj_jacBodyCom", "mj_jacGeom", "mj_jacSite", "mj_jacSubtreeCom",
    "mj_jacPointAxis", "mj_fullM", "mj_mulM", "mj_mulM2", "mj_solveM", "mj_solveM2", "mj_addM",
    "mj_objectVelocity", "mj_objectAcceleration", "mj_integratePos", "mj_differentiatePos",
]
