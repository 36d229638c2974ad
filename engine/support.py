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

from . import math as mm
from .enums import mjtObj

from ._jit import kernel
FREE, BALL, SLIDE, HINGE = 0, 1, 2, 3
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


def _out(a, m):
    """(array viewed as 3 x nv, flag); None gives a dummy and False."""
    if a is None:
        return np.zeros((3, max(m.nv, 1))), False
    v = np.asarray(a)
    if v.size != 3 * m.nv:
        raise ValueError(f"Jacobian output must have 3*nv = {3 * m.nv} elements, got {v.size}")
    return v.reshape(3, m.nv), True


def mj_jac(m, d, jacp, jacr, point, body):
    """Translational/rotational Jacobians (3 x nv each; either may be None) of a global ``point``
    attached to ``body``. Needs mj_kinematics and mj_comPos (e.g. after mj_forward)."""
    p, fp = _out(jacp, m)
    r, fr = _out(jacr, m)
    pt = np.ascontiguousarray(point, dtype=np.float64).reshape(3)
    jac_point(*_jac_args(m, d), d.subtree_com, d.cdof, pt, int(body), p, r, fp, fr)


def mj_jacBody(m, d, jacp, jacr, body):
    """Jacobians of the body frame origin (xpos)."""
    mj_jac(m, d, jacp, jacr, d.xpos[body], body)


def mj_jacBodyCom(m, d, jacp, jacr, body):
    """Jacobians of the body's centre of mass (xipos)."""
    mj_jac(m, d, jacp, jacr, d.xipos[body], body)


def mj_jacGeom(m, d, jacp, jacr, geom):
    """Jacobians of the geom centre."""
    mj_jac(m, d, jacp, jacr, d.geom_xpos[geom], m.geom_bodyid[geom])


def mj_jacSite(m, d, jacp, jacr, site):
    """Jacobians of the site."""
    mj_jac(m, d, jacp, jacr, d.site_xpos[site], m.site_bodyid[site])


def mj_jacSubtreeCom(m, d, jacp, body):
    """Translational Jacobian of the subtree centre of mass of ``body``."""
    p, _ = _out(jacp, m)
    jac_subtree_com(*_jac_args(m, d), m.body_mass, m.body_subtreemass, d.subtree_com, d.xipos,
                    d.cdof, int(body), p)


def mj_jacPointAxis(m, d, jacPoint, jacAxis, point, axis, body):
    """Translational Jacobian of ``point`` and rotational Jacobian of the global ``axis``
    (the derivative of the axis direction), both attached to ``body``."""
    p, fp = _out(jacPoint, m)
    r = np.zeros((3, m.nv))
    pt = np.ascontiguousarray(point, dtype=np.float64).reshape(3)
    jac_point(*_jac_args(m, d), d.subtree_com, d.cdof, pt, int(body), p, r, fp, True)
    if jacAxis is not None:
        a, _ = _out(jacAxis, m)
        jac_axis(r, np.ascontiguousarray(axis, dtype=np.float64).reshape(3), a)


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


def _rows(a, n):
    v = np.asarray(a)
    return v.reshape(-1, n) if n else v.reshape(-1, 0)


def mj_fullM(m, d, dst):
    """Dense nv x nv inertia matrix into ``dst`` (mujoco 4: ``mj_fullM(m, d, dst)``)."""
    full_m(m.dof_Madr, m.dof_parentid, d.qM, np.asarray(dst).reshape(m.nv, m.nv))


def mj_mulM(m, d, res, vec):
    """res = M vec."""
    mul_m(m.dof_Madr, m.dof_parentid, d.qM, np.ascontiguousarray(vec, np.float64).reshape(m.nv),
          np.asarray(res).reshape(m.nv))


def mj_mulM2(m, d, res, vec):
    """res = M^(1/2) vec = sqrt(D) L vec."""
    mul_m2(m.M_rownnz, m.M_rowadr, m.M_colind, d.qLD,
           np.ascontiguousarray(vec, np.float64).reshape(m.nv), np.asarray(res).reshape(m.nv))


def mj_solveM(m, d, x, y):
    """x = inv(M) y using the factorisation; x, y: (n, nv) (or (nv,)) rows solved one by one."""
    xs = _rows(x, m.nv)
    ys = np.ascontiguousarray(y, np.float64).reshape(xs.shape)
    for r in range(xs.shape[0]):
        solve_m(m.M_rownnz, m.M_rowadr, m.M_colind, d.qLD, d.qLDiagInv, ys[r].copy(), xs[r])


def mj_solveM2(m, d, x, y, sqrtInvD):
    """x = sqrt(inv(D)) inv(L') y for each row of y."""
    xs = _rows(x, m.nv)
    ys = np.ascontiguousarray(y, np.float64).reshape(xs.shape)
    s = np.ascontiguousarray(sqrtInvD, np.float64).reshape(m.nv)
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
    else CSR (rows must have room for the merged pattern)."""
    if rownnz is None:
        add_m_dense(m.dof_Madr, m.dof_parentid, d.qM, np.asarray(dst).reshape(m.nv, m.nv))
    else:
        add_m_sparse(m.M_rownnz, m.M_rowadr, m.M_colind, d.M, np.asarray(dst).reshape(-1),
                     np.asarray(rownnz).reshape(-1), np.asarray(rowadr).reshape(-1),
                     np.asarray(colind).reshape(-1))


# =================================================================================================
# object velocities and accelerations
# =================================================================================================
def _object_frame(m, d, objtype, objid):
    objtype = int(objtype)
    if objtype == _OBJ_BODY:
        return objid, d.xipos[objid], d.ximat[objid]
    if objtype == _OBJ_XBODY:
        return objid, d.xpos[objid], d.xmat[objid]
    if objtype == _OBJ_GEOM:
        return m.geom_bodyid[objid], d.geom_xpos[objid], d.geom_xmat[objid]
    if objtype == _OBJ_SITE:
        return m.site_bodyid[objid], d.site_xpos[objid], d.site_xmat[objid]
    if objtype == _OBJ_CAMERA:
        return m.cam_bodyid[objid], d.cam_xpos[objid], d.cam_xmat[objid]
    raise ValueError(f"invalid object type {objtype}: body, xbody, geom, site or camera")


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
    b, pos, mat = _object_frame(m, d, objtype, int(objid))
    object_velocity(d.cvel[b], d.subtree_com[m.body_rootid[b]], pos, mat, bool(flg_local),
                    np.asarray(res).reshape(6))


def mj_objectAcceleration(m, d, objtype, objid, res, flg_local):
    """Acceleration (rot:lin) of an object's frame; needs cacc (mj_rnePostConstraint)."""
    b, pos, mat = _object_frame(m, d, objtype, int(objid))
    object_acceleration(d.cvel[b], d.cacc[b], d.subtree_com[m.body_rootid[b]], pos, mat,
                        bool(flg_local), np.asarray(res).reshape(6))


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
    integrate_pos(m.jnt_type, m.jnt_qposadr, m.jnt_dofadr, np.asarray(qpos).reshape(m.nq),
                  np.ascontiguousarray(qvel, np.float64).reshape(m.nv), float(dt))


def mj_differentiatePos(m, qvel, dt, qpos1, qpos2):
    """``qvel`` = finite-difference velocity from qpos1 to qpos2 over ``dt``."""
    differentiate_pos(m.jnt_type, m.jnt_qposadr, m.jnt_dofadr, np.asarray(qvel).reshape(m.nv),
                      float(dt), np.ascontiguousarray(qpos1, np.float64).reshape(m.nq),
                      np.ascontiguousarray(qpos2, np.float64).reshape(m.nq))


__all__ = [
    "mj_jac", "mj_jacBody", "mj_jacBodyCom", "mj_jacGeom", "mj_jacSite", "mj_jacSubtreeCom",
    "mj_jacPointAxis", "mj_fullM", "mj_mulM", "mj_mulM2", "mj_solveM", "mj_solveM2", "mj_addM",
    "mj_objectVelocity", "mj_objectAcceleration", "mj_integratePos", "mj_differentiatePos",
]
