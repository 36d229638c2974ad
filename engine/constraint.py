"""Constraint rows: mj_makeConstraint, mj_referenceConstraint and mj_contactForce (seed 001,
"Constraint model" / "Contacts"; seed 004, "Solver parameters").

Every scalar constraint is one row of the efc_* arrays, in MuJoCo's order: equality constraints
(connect 3 rows, weld 6, joint 1, tendon 1; only the active ones), friction loss (dofs, then
tendons), limits (joints, then tendons; hinge/slide and tendons a row per violated side, ball joints
one row), then contacts (frictionless 1 row, pyramidal 2*(dim-1) rows, elliptic dim rows). A row
has its Jacobian (efc_J: the derivative of the constraint violation ``efc_pos`` w.r.t. qpos in
velocity coordinates; layout below), margin, friction loss, the approximate diagonal of
the inverse constraint inertia (efc_diagApprox, from the model's body/dof/tendon invweight0), the
spring-damper parameters efc_KBIP = (K, B, impedance d, d d/d pos) from solref/solimp, and the
regulariser R = (1-d)/d * diagApprox with D = 1/R.

Jacobian layout (seed 001, "Data layout": the constraint Jacobian efc_J, dense or compressed rows
as opt.jacobian says; engine.jacobian reads both). Dense (mj_isSparse false): efc_J holds the nefc
rows of nv values each, row r at efc_J[r*nv : (r+1)*nv] (nJ = nefc*nv); efc_J_rownnz/rowadr/rowsuper
are zeroed and efc_J_colind is not written (MuJoCo leaves them undefined in dense mode: zeros in a
fresh MjData). Sparse (opt.jacobian SPARSE, or AUTO with nv >= 60, as mj_isSparse): compressed rows
as MuJoCo's, built in place: row r's values at efc_J[rowadr[r] : rowadr[r] + rownnz[r]] for the
increasing columns efc_J_colind[same range], rowadr cumulative, nJ = sum of rownnz. A row's columns
are its structural nonzeros, exact zeros kept: the union of the two bodies' dof chains for connect
and weld, the same without the chains' common part for a contact (its relative velocity does not
depend on it), a joint's dofs, a tendon row's nonzero coefficients. efc_J_rowsuper[r] = how many
following rows share row r's columns. All rows of one constraint share its columns, so they are
filled as one (nrow x n) block of efc_J, a dof's column in it given by the scratch ``cn_loc`` (the
identity in dense mode); no work here grows with nefc x nv in sparse mode.

Contacts come from the collision stage (contact_* fields, ncon). A contact with ``exclude != 0``
(inside the gap) makes no rows and gets efc_address -1.

No allocation here: the stage writes into the preallocated rows; scratch ``cn_J`` holds one
contact's frame rows while a pyramid is built (or a tendon row, densely), ``cn_cols`` a
constraint's columns.
"""
from __future__ import annotations

import math


from . import argcheck
from . import math as mm
from ._access import f1, f2, fs, i1, i2, is_, u1
from ._layout import DF, MF
from .enums import mjtDisableBit, mjtEq, mjtObj, mjtWarning
from .jacobian import is_sparse, jac, row_dot
from .support import add_jac_rows, last_dof
from .adhesion import adhesion_bias
from . import sleep
from . import flexcon

from ._jit import inline, kernel

from .enums import mjJNT_FREE as FREE, mjJNT_BALL as BALL, mjJNT_SLIDE as SLIDE, mjJNT_HINGE as HINGE  # noqa
# mjtConstraint
from .enums import (mjCNSTR_EQUALITY as EQUALITY, mjCNSTR_FRICTION_DOF as FRICTION_DOF,  # noqa
                    mjCNSTR_FRICTION_TENDON as FRICTION_TENDON, mjCNSTR_LIMIT_JOINT as LIMIT_JOINT,
                    mjCNSTR_LIMIT_TENDON as LIMIT_TENDON)
from .enums import (mjCNSTR_CONTACT_FRICTIONLESS as CONTACT_FRICTIONLESS,  # noqa
                    mjCNSTR_CONTACT_PYRAMIDAL as CONTACT_PYRAMIDAL,
                    mjCNSTR_CONTACT_ELLIPTIC as CONTACT_ELLIPTIC)
_EQ_CONNECT, _EQ_WELD = int(mjtEq.mjEQ_CONNECT), int(mjtEq.mjEQ_WELD)
_EQ_JOINT, _EQ_TENDON = int(mjtEq.mjEQ_JOINT), int(mjtEq.mjEQ_TENDON)
_EQ_FLEX = int(mjtEq.mjEQ_FLEX)
_OBJ_SITE = int(mjtObj.mjOBJ_SITE)
_DSBL_CONSTRAINT = int(mjtDisableBit.mjDSBL_CONSTRAINT)
_DSBL_EQUALITY = int(mjtDisableBit.mjDSBL_EQUALITY)
_DSBL_FRICTIONLOSS = int(mjtDisableBit.mjDSBL_FRICTIONLOSS)
_DSBL_LIMIT = int(mjtDisableBit.mjDSBL_LIMIT)
_DSBL_CONTACT = int(mjtDisableBit.mjDSBL_CONTACT)
_DSBL_REFSAFE = int(mjtDisableBit.mjDSBL_REFSAFE)
_WARN_CNSTRFULL = int(mjtWarning.mjWARN_CNSTRFULL)
from .enums import mjCONE_ELLIPTIC as _CONE_ELLIPTIC  # noqa
from .enums import mjMINVAL as _MINVAL  # noqa: E402
# the bodies and weights of a contact without flex elements (engine/flexcon.py)
_NOBODY = (0, 0, 0, 0, 0, 0, 0, 0)
_NOWEIGHT = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
_MINIMP, _MAXIMP = 0.0001, 0.9999


# fw_status[0] codes set here (fw_status[1]: what they say); the wrappers raise on them
STATUS_CNSTRFULL = 7          # fw_status[1]: the number of rows needed so far
STATUS_EQ_UNSUPPORTED = 10    # fw_status[1]: the equality id (flex / distance equalities)
STATUS_JACFULL = 14           # fw_status[1]: Jacobian entries needed so far, [2]: their capacity
# set by engine.solver when its sparse workspaces overflow (fw_status[1]: needed, [2]: capacity)
STATUS_HESSFULL = 15          # Newton's sparse Cholesky factor (entries)
STATUS_MINVJFULL = 16         # PGS / noslip's M^-1 J' rows (entries)


# =================================================================================================
# solver parameters: impedance and reference (seed 004, "Solver parameters")
# =================================================================================================
@kernel
def impedance(solimp, r):
    """(d, d d/d r): the impedance d(r) of a violation r (length or angle; for contacts and limits
    r = pos - margin) from solimp = (d0, d_width, width, midpoint, power), seed 004 "Impedance":
    d goes from d0 at r = 0 to d_width at |r| >= width along a spline of the given power whose
    inflection is at midpoint*width. d0, d_width and midpoint are clamped to
    [mjMINIMP, mjMAXIMP], power to >= 1."""
    d0 = min(max(solimp[0], _MINIMP), _MAXIMP)
    dw = min(max(solimp[1], _MINIMP), _MAXIMP)
    width = solimp[2]
    mid = min(max(solimp[3], _MINIMP), _MAXIMP)
    power = max(1.0, solimp[4])
    x = abs(r) / width if width > _MINVAL else 1.0
    if x >= 1.0 or width <= _MINVAL:
        return dw, 0.0
    if power == 1.0:
        y = x
        dy = 1.0
    elif x <= mid:
        a = 1.0 / mid ** (power - 1.0)
        y = a * x ** power
        dy = power * a * x ** (power - 1.0)
    else:
        b = 1.0 / (1.0 - mid) ** (power - 1.0)
        y = 1.0 - b * (1.0 - x) ** power
        dy = power * b * (1.0 - x) ** (power - 1.0)
    d = d0 + y * (dw - d0)
    dd = dy * (dw - d0) / width
    if r < 0.0:
        dd = -dd
    return d, dd


@kernel
def stiffness_damping(solref, dmax, timestep, refsafe):
    """(K, B) of the reference acceleration a_ref = -B v - K d (pos - margin), seed 004
    "Reference acceleration": positive solref = (timeconst, dampratio) gives
    B = 2 / (dmax timeconst), K = 1 / (dmax^2 timeconst^2 dampratio^2), with timeconst raised to
    2*timestep when ``refsafe``; negative solref = (-stiffness, -damping) gives B = damping / dmax,
    K = stiffness / dmax^2. dmax is the clamped solimp[1] (d_width)."""
    if solref[0] > 0.0:
        tc = solref[0]
        if refsafe:
            tc = max(tc, 2.0 * timestep)
        dr = solref[1]
        return 1.0 / (dmax * dmax * tc * tc * dr * dr), 2.0 / (dmax * tc)
    return -solref[0] / (dmax * dmax), -solref[1] / dmax


@kernel
def set_row_params(r, solref, solimp, dA, imp_r, frictional, timestep, refsafe,
                   efc_diagApprox, efc_KBIP, efc_R, efc_D):
    """diagApprox, KBIP, R and D of row r: impedance at violation ``imp_r``; frictional rows
    (friction loss) have K = 0 (their residual is identically 0)."""
    imp, impP = impedance(solimp, imp_r)
    dmax = min(max(solimp[1], _MINIMP), _MAXIMP)
    K, B = stiffness_damping(solref, dmax, timestep, refsafe)
    if frictional:
        K = 0.0
    efc_KBIP[r, 0] = K
    efc_KBIP[r, 1] = B
    efc_KBIP[r, 2] = imp
    efc_KBIP[r, 3] = impP
    efc_diagApprox[r] = dA
    R = max(_MINVAL, (1.0 - imp) * dA / imp)
    efc_R[r] = R
    efc_D[r] = 1.0 / R


@kernel
def _set_R(r, R, efc_KBIP, efc_diagApprox, efc_R, efc_D):
    """Row r's regularizer R (set from another row's, as a contact's friction rows are), D = 1/R
    and diagApprox adjusted to R = (1 - imp) / imp diagApprox (MuJoCo reports it so)."""
    efc_R[r] = R
    efc_D[r] = 1.0 / R
    imp = efc_KBIP[r, 2]
    efc_diagApprox[r] = R * imp / (1.0 - imp)


# =================================================================================================
# Jacobians (seed 001, "Jacobians")
# =================================================================================================
@kernel
def contact_jac(
    # Model:
    body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid,
    # Data in:
    subtree_com, cdof, b1, b2, pos, frame, dim,
    # Data out:
    rows, loc=None,
):
    """The contact's ``dim`` Jacobian rows in its frame (rows[0:dim]): the relative velocity of
    the contact point ``pos`` on body b2 w.r.t. body b1 (jacp(b2) - jacp(b1), world) projected
    on the frame rows normal, tangent1, tangent2, then (dim 4, 6) the relative angular velocity
    on the normal (torsion) and the two tangents (rolling). ``frame`` is the contact's row-major
    3x3 (9,). Dof k's column is loc[k] (a constraint's block of compressed rows), or k (rows of
    nv). The dofs common to both chains are skipped: their two contributions cancel exactly."""
    for j in range(dim):
        for k in range(rows.shape[1]):
            rows[j, k] = 0.0
    off2 = mm.sub3(pos, subtree_com[body_rootid[b2]])
    off1 = mm.sub3(pos, subtree_com[body_rootid[b1]])
    # walk both chains from their last dofs down, the higher dof first, until they meet
    k1 = last_dof(body_parentid, body_dofnum, body_dofadr, b1)
    k2 = last_dof(body_parentid, body_dofnum, body_dofadr, b2)
    while k1 != k2:
        if k2 > k1:
            k = k2
            s = 1.0
            off = off2
            k2 = dof_parentid[k2]
        else:
            k = k1
            s = -1.0
            off = off1
            k1 = dof_parentid[k1]
        if loc is None:
            col = k
        else:
            col = loc[k]
        flexcon.add_dof_rows(rows, col, s, frame, cdof[k], off, dim)


# =================================================================================================
# mj_makeConstraint
# =================================================================================================
@kernel
def eq_anchors(et, site, o1, o2, data, site_bodyid, site_xpos, xpos, xmat):
    """The two bodies and world anchor points (b1, b2, p1, p2) of a connect or weld equality
    between sites (``site``) or bodies o1, o2. Bodies: connect anchors are body1's data[0:3] and
    body2's data[3:6]; a weld's are body2's data[0:3] and, through the relative pose, body1's
    data[3:6]."""
    if site:
        return (site_bodyid[o1], site_bodyid[o2], mm.get3(site_xpos[o1]),
                mm.get3(site_xpos[o2]))
    a1 = (data[0], data[1], data[2]) if et == _EQ_CONNECT else (data[3], data[4], data[5])
    a2 = (data[3], data[4], data[5]) if et == _EQ_CONNECT else (data[0], data[1], data[2])
    return (o1, o2, mm.add3(mm.get3(xpos[o1]), mm.mat_vec(xmat[o1], a1)),
            mm.add3(mm.get3(xpos[o2]), mm.mat_vec(xmat[o2], a2)))


@kernel
def _room(r, k, n, nJ, njcap, nJcap, status, warn_num, warn_info):
    """True when k more rows of n Jacobian entries each fit after row r (nJ entries used); else
    record CNSTRFULL (rows; fw_status[1] the rows needed) or JACFULL (entries; fw_status[1] the
    entries needed, [2] the capacity), with MuJoCo's mjWARN_CNSTRFULL once per call."""
    if r + k <= njcap and nJ + k * n <= nJcap:
        return True
    if status[0] != STATUS_CNSTRFULL and status[0] != STATUS_JACFULL:
        warn_num[_WARN_CNSTRFULL] += 1
    if r + k > njcap:
        status[0] = STATUS_CNSTRFULL
        status[1] = r + k
    else:
        status[0] = STATUS_JACFULL
        status[1] = nJ + k * n
        status[2] = nJcap
    warn_info[_WARN_CNSTRFULL] = r + k
    return False


@inline
def _open(r, nrow, n, nJ, sparse, cols, loc, Jv, colind, rownnz, rowadr):
    """The (nrow x n) block of efc_J for rows r..r+nrow-1 of one constraint, from entry nJ,
    zeroed. Sparse: the rows' columns cols[:n] (colind, rownnz, rowadr) and a dof's column in
    the block, loc[cols[p]] = p; dense: n = nv, loc the identity. (Inline: a view.)"""
    if sparse:
        for p in range(n):
            loc[cols[p]] = p
        for j in range(nrow):
            a = nJ + j * n
            rownnz[r + j] = n
            rowadr[r + j] = a
            for p in range(n):
                colind[a + p] = cols[p]
    blk = Jv[nJ:nJ + nrow * n]
    blk[:] = 0.0
    return blk.reshape(nrow, n)


@kernel
def _tendon_cols(trow, sparse, cols):
    """The columns of a tendon row held densely in trow (nv): its nonzeros into cols
    (sparse), or all nv (dense). Returns their count."""
    nv = trow.shape[0]
    if not sparse:
        return nv
    n = 0
    for k in range(nv):
        if trow[k] != 0.0:
            cols[n] = k
            n += 1
    return n


@kernel
def _tendon_block(s, t, r, nJ, sparse, ten_J, ten_J_rownnz, ten_J_colind, cols, loc, Jv, colind,
                  rownnz, rowadr, njcap, status, warn_num, warn_info):
    """Row r = s * tendon t's Jacobian (ten_J[t], dense, its nonzeros among the columns
    ten_J_colind[t, :ten_J_rownnz[t]], engine.tendon.tendon), put at entry nJ of efc_J: its
    nonzeros when sparse (read on the tendon's columns only), the nv values when dense. Returns
    the entries used, or -1 when the row does not fit (_room records it)."""
    tJ = ten_J[t]
    n = tJ.shape[0]
    if sparse:
        n = 0
        for p in range(ten_J_rownnz[t]):
            k = ten_J_colind[t, p]
            if tJ[k] != 0.0:
                cols[n] = k
                n += 1
    if not _room(r, 1, n, nJ, njcap, Jv.shape[0], status, warn_num, warn_info):
        return -1
    blk = _open(r, 1, n, nJ, sparse, cols, loc, Jv, colind, rownnz, rowadr)
    out = blk[0]
    if sparse:
        for p in range(n):
            out[p] = s * tJ[cols[p]]
    else:
        for k in range(n):
            out[k] = s * tJ[k]
    return n


@kernel
def _put_row(trow, n, sparse, cols, out):
    """A dense row trow (nv) into its block row ``out`` of n entries (columns cols[:n])."""
    if sparse:
        for p in range(n):
            out[p] = trow[cols[p]]
    else:
        for k in range(n):
            out[k] = trow[k]


@kernel
def _limit_row(r, ctype, objid, dist, margin, solref, solimp, invweight, timestep, refsafe,
               efc_type, efc_id, efc_pos, efc_margin, efc_frictionloss, efc_diagApprox,
               efc_KBIP, efc_R, efc_D):
    """The scalars of limit row r (its Jacobian row is the caller's): distance to the limit
    ``dist``, active below ``margin``, impedance at dist - margin."""
    efc_type[r] = ctype
    efc_id[r] = objid
    efc_pos[r] = dist
    efc_margin[r] = margin
    efc_frictionloss[r] = 0.0
    set_row_params(r, solref, solimp, invweight, dist - margin, False, timestep, refsafe,
                   efc_diagApprox, efc_KBIP, efc_R, efc_D)


@kernel
def make_constraint(M, D):
    """mj_makeConstraint: every constraint row (see the module docstring) with its Jacobian, pos,
    margin, frictionloss, type, id, diagApprox, KBIP, R, D; ne/nf/nl/nefc/nJ and the contacts'
    efc_address. Reads the position stage (xpos, xmat, xquat, site_*, subtree_com, cdof, qpos,
    ten_length, ten_J) and the contacts."""
    # ---- model
    body_parentid = i1(M, MF.body_parentid)
    body_rootid = i1(M, MF.body_rootid)
    body_dofnum = i1(M, MF.body_dofnum)
    body_dofadr = i1(M, MF.body_dofadr)
    dof_parentid = i1(M, MF.dof_parentid)
    body_invweight0 = f2(M, MF.body_invweight0)
    dof_invweight0 = f1(M, MF.dof_invweight0)
    tendon_invweight0 = f1(M, MF.tendon_invweight0)
    jnt_type = i1(M, MF.jnt_type)
    jnt_qposadr = i1(M, MF.jnt_qposadr)
    jnt_dofadr = i1(M, MF.jnt_dofadr)
    jnt_limited = u1(M, MF.jnt_limited)
    jnt_range = f2(M, MF.jnt_range)
    jnt_margin = f1(M, MF.jnt_margin)
    jnt_solref = f2(M, MF.jnt_solref)
    jnt_solimp = f2(M, MF.jnt_solimp)
    dof_frictionloss = f1(M, MF.dof_frictionloss)
    dof_solref = f2(M, MF.dof_solref)
    dof_solimp = f2(M, MF.dof_solimp)
    tendon_limited = u1(M, MF.tendon_limited)
    tendon_treenum = i1(M, MF.tendon_treenum)
    body_treeid = i1(M, MF.body_treeid)
    tendon_range = f2(M, MF.tendon_range)
    tendon_margin = f1(M, MF.tendon_margin)
    tendon_frictionloss = f1(M, MF.tendon_frictionloss)
    tendon_solref_lim = f2(M, MF.tendon_solref_lim)
    tendon_solimp_lim = f2(M, MF.tendon_solimp_lim)
    tendon_solref_fri = f2(M, MF.tendon_solref_fri)
    tendon_solimp_fri = f2(M, MF.tendon_solimp_fri)
    tendon_length0 = f1(M, MF.tendon_length0)
    eq_type = i1(M, MF.eq_type)
    eq_obj1id = i1(M, MF.eq_obj1id)
    eq_obj2id = i1(M, MF.eq_obj2id)
    eq_objtype = i1(M, MF.eq_objtype)
    eq_solref = f2(M, MF.eq_solref)
    eq_solimp = f2(M, MF.eq_solimp)
    eq_data = f2(M, MF.eq_data)
    site_bodyid = i1(M, MF.site_bodyid)
    geom_bodyid = i1(M, MF.geom_bodyid)
    qpos0 = f1(M, MF.qpos0)
    timestep = fs(M, MF.opt_timestep)
    impratio = fs(M, MF.opt_impratio)
    disable = is_(M, MF.opt_disableflags)
    elliptic = is_(M, MF.opt_cone) == _CONE_ELLIPTIC
    # ---- data
    qpos = f1(D, DF.qpos)
    xpos = f2(D, DF.xpos)
    xmat = f2(D, DF.xmat)
    xquat = f2(D, DF.xquat)
    site_xpos = f2(D, DF.site_xpos)
    site_xquat = f2(D, DF.site_xquat)
    subtree_com = f2(D, DF.subtree_com)
    cdof = f2(D, DF.cdof)
    ten_length = f1(D, DF.ten_length)
    ten_J = f2(D, DF.ten_J)
    ten_J_rownnz, ten_J_colind = i1(D, DF.ten_J_rownnz), i2(D, DF.ten_J_colind)
    eq_active = u1(D, DF.eq_active)
    # flex edge equalities: one row per non-rigid edge (engine.flex computed lengths and rows)
    fl_edgeadr, fl_edgenum = i1(M, MF.flex_edgeadr), i1(M, MF.flex_edgenum)
    fe_rigid = u1(M, MF.flexedge_rigid)
    fe_rownnz, fe_rowadr = i1(M, MF.flexedge_J_rownnz), i1(M, MF.flexedge_J_rowadr)
    fe_colind = i1(M, MF.flexedge_J_colind)
    fe_length0, fe_invweight0 = f1(M, MF.flexedge_length0), f1(M, MF.flexedge_invweight0)
    fe_length, fe_J = f1(D, DF.flexedge_length), f1(D, DF.flexedge_J)
    ncon = i1(D, DF.ncon)[0]
    contact_dist = f1(D, DF.contact_dist)
    contact_pos = f2(D, DF.contact_pos)
    contact_frame = f2(D, DF.contact_frame)
    contact_includemargin = f1(D, DF.contact_includemargin)
    contact_friction = f2(D, DF.contact_friction)
    contact_solref = f2(D, DF.contact_solref)
    contact_solreffriction = f2(D, DF.contact_solreffriction)
    contact_solimp = f2(D, DF.contact_solimp)
    contact_mu = f1(D, DF.contact_mu)
    contact_dim = i1(D, DF.contact_dim)
    contact_geom = i2(D, DF.contact_geom)
    contact_flex = i2(D, DF.contact_flex)
    contact_exclude = i1(D, DF.contact_exclude)
    contact_efc_address = i1(D, DF.contact_efc_address)
    efc_type = i1(D, DF.efc_type)
    efc_id = i1(D, DF.efc_id)
    Jv = f1(D, DF.efc_J)
    colind = i1(D, DF.efc_J_colind)
    rownnz = i1(D, DF.efc_J_rownnz)
    rowadr = i1(D, DF.efc_J_rowadr)
    cols = i1(D, DF.cn_cols)
    loc = i1(D, DF.cn_loc)
    efc_pos = f1(D, DF.efc_pos)
    efc_margin = f1(D, DF.efc_margin)
    efc_frictionloss = f1(D, DF.efc_frictionloss)
    efc_diagApprox = f1(D, DF.efc_diagApprox)
    efc_KBIP = f2(D, DF.efc_KBIP)
    efc_R = f1(D, DF.efc_R)
    efc_D = f1(D, DF.efc_D)
    cn = f1(D, DF.cn_J)       # a pyramid's frame rows, or a tendon row (dense)
    status = i1(D, DF.fw_status)
    warn_num = i1(D, DF.warning_number)
    warn_info = i1(D, DF.warning_lastinfo)

    njcap = efc_type.shape[0]
    nJcap = Jv.shape[0]
    nv = cdof.shape[0]
    sparse = is_sparse(M, nv)
    trow = cn[:nv]
    nJ = 0                # Jacobian entries used
    if not sparse:
        for k in range(nv):
            loc[k] = k    # dense rows: a dof is its own column
    refsafe = (disable & _DSBL_REFSAFE) == 0
    ne = 0
    nf = 0
    nl = 0
    r = 0
    full = False
    for c in range(ncon):
        contact_efc_address[c] = -1
    if status[0] == STATUS_CNSTRFULL or status[0] == STATUS_JACFULL:
        status[0] = 0
    # sleeping trees make no equality, friction-loss or joint-limit rows (their contacts are
    # not detected: engine.collision); tendon rows are made as without sleep, as in MuJoCo
    sfilt = sleep.filtering(M, D)
    body_awake = i1(D, DF.body_awake)
    dof_bodyid = i1(M, MF.dof_bodyid)
    jnt_bodyid = i1(M, MF.jnt_bodyid)

    if disable & _DSBL_CONSTRAINT:
        ncon = 0
    else:
        # ---- equality constraints
        if not (disable & _DSBL_EQUALITY):
            for i in range(eq_type.shape[0]):
                if not eq_active[i] or full:
                    continue
                if sfilt and sleep.equality_state(M, D, i) == sleep.S_ASLEEP:
                    continue
                et = eq_type[i]
                o1 = eq_obj1id[i]
                o2 = eq_obj2id[i]
                data = eq_data[i]
                solref = eq_solref[i]
                solimp = eq_solimp[i]
                if et == _EQ_CONNECT or et == _EQ_WELD:
                    nrow = 3 if et == _EQ_CONNECT else 6
                    site = eq_objtype[i] == _OBJ_SITE
                    b1, b2, p1, p2 = eq_anchors(et, site, o1, o2, data, site_bodyid, site_xpos,
                                                xpos, xmat)
                    # two static bodies (no degree of freedom): MuJoCo 4.0.0 makes no rows
                    if body_treeid[b1] < 0 and body_treeid[b2] < 0:
                        continue
                    n = nv
                    if sparse:
                        n = chain_union(body_parentid, body_dofnum, body_dofadr, dof_parentid,
                                        b1, b2, False, cols)
                    if not _room(r, nrow, n, nJ, njcap, nJcap, status, warn_num, warn_info):
                        full = True
                        continue
                    blk = _open(r, nrow, n, nJ, sparse, cols, loc, Jv, colind, rownnz, rowadr)
                    rows = blk[0:3]
                    add_jac_rows(body_parentid, body_rootid, body_dofnum, body_dofadr,
                                 dof_parentid, subtree_com, cdof, p1, b1, 1.0, False, rows, loc)
                    add_jac_rows(body_parentid, body_rootid, body_dofnum, body_dofadr,
                                 dof_parentid, subtree_com, cdof, p2, b2, -1.0, False, rows, loc)
                    tran = body_invweight0[b1, 0] + body_invweight0[b2, 0]
                    rot = body_invweight0[b1, 1] + body_invweight0[b2, 1]
                    for j in range(3):
                        efc_pos[r + j] = p1[j] - p2[j]
                    if et == _EQ_WELD:
                        ts = data[10]
                        rrows = blk[3:6]
                        add_jac_rows(body_parentid, body_rootid, body_dofnum, body_dofadr,
                                     dof_parentid, subtree_com, cdof, p1, b1, 1.0, True, rrows,
                                     loc)
                        add_jac_rows(body_parentid, body_rootid, body_dofnum, body_dofadr,
                                     dof_parentid, subtree_com, cdof, p2, b2, -1.0, True, rrows,
                                     loc)
                        if site:
                            q1 = mm.get4(site_xquat[o1])
                            q2 = mm.get4(site_xquat[o2])
                        else:
                            q1 = mm.quat_mul(mm.get4(xquat[b1]),
                                             (data[6], data[7], data[8], data[9]))
                            q2 = mm.get4(xquat[b2])
                        # orientation error: vector part of neg(q2) * q1, and its Jacobian
                        # 0.5 * neg(q2) * [w] * q1 for each dof's relative angular velocity w
                        nq2 = mm.quat_neg(q2)
                        qe = mm.quat_mul(nq2, q1)
                        for j in range(3):
                            efc_pos[r + 3 + j] = qe[1 + j] * ts
                        for k in range(n):
                            w = (rrows[0, k], rrows[1, k], rrows[2, k])
                            if w[0] != 0.0 or w[1] != 0.0 or w[2] != 0.0:
                                t = mm.quat_mul(mm.quat_mul(nq2, (0.0, w[0], w[1], w[2])), q1)
                                rrows[0, k] = 0.5 * t[1] * ts
                                rrows[1, k] = 0.5 * t[2] * ts
                                rrows[2, k] = 0.5 * t[3] * ts
                    nJ += nrow * n
                    # one impedance for the whole constraint: from the norm of its violation
                    vn = 0.0
                    for j in range(nrow):
                        vn += efc_pos[r + j] * efc_pos[r + j]
                    vn = math.sqrt(vn)
                    for j in range(nrow):
                        efc_type[r + j] = EQUALITY
                        efc_id[r + j] = i
                        efc_margin[r + j] = 0.0
                        efc_frictionloss[r + j] = 0.0
                        dA = tran if j < 3 else rot
                        set_row_params(r + j, solref, solimp, dA, vn, False,
                                       timestep, refsafe, efc_diagApprox, efc_KBIP, efc_R, efc_D)
                    r += nrow
                    ne += nrow
                elif et == _EQ_JOINT or et == _EQ_TENDON:
                    if et == _EQ_TENDON and tendon_treenum[o1] == 0 and (
                            o2 < 0 or tendon_treenum[o2] == 0):
                        continue  # tendons spanning no degree of freedom: no row (as above)
                    # v1 = poly(v2) with poly = data[0] + data[1] v2 + ... + data[4] v2^4, or
                    # v1 = data[0] without a second object
                    dpv = 0.0
                    if et == _EQ_JOINT:
                        v1 = qpos[jnt_qposadr[o1]] - qpos0[jnt_qposadr[o1]]
                        dA = dof_invweight0[jnt_dofadr[o1]]
                    else:
                        v1 = ten_length[o1] - tendon_length0[o1]
                        dA = tendon_invweight0[o1]
                    if o2 >= 0:
                        if et == _EQ_JOINT:
                            v2 = qpos[jnt_qposadr[o2]] - qpos0[jnt_qposadr[o2]]
                            dA += dof_invweight0[jnt_dofadr[o2]]
                        else:
                            v2 = ten_length[o2] - tendon_length0[o2]
                            dA += tendon_invweight0[o2]
                        pv = data[0] + v2 * (data[1] + v2 * (data[2] + v2 * (data[3]
                                                                            + v2 * data[4])))
                        dpv = data[1] + v2 * (2.0 * data[2] + v2 * (3.0 * data[3]
                                                                   + v2 * 4.0 * data[4]))
                        pos = v1 - pv
                    else:
                        pos = v1 - data[0]
                    if et == _EQ_JOINT:
                        d1 = jnt_dofadr[o1]
                        d2 = jnt_dofadr[o2] if o2 >= 0 else d1
                        n = nv
                        if sparse:
                            cols[0] = min(d1, d2)
                            cols[1] = max(d1, d2)
                            n = 1 if d1 == d2 else 2
                    else:
                        for k in range(nv):
                            trow[k] = ten_J[o1, k]
                        if o2 >= 0:
                            for k in range(nv):
                                trow[k] -= dpv * ten_J[o2, k]
                        n = _tendon_cols(trow, sparse, cols)
                    if not _room(r, 1, n, nJ, njcap, nJcap, status, warn_num, warn_info):
                        full = True
                        continue
                    blk = _open(r, 1, n, nJ, sparse, cols, loc, Jv, colind, rownnz, rowadr)
                    if et == _EQ_JOINT:
                        blk[0, loc[d1]] = 1.0
                        if o2 >= 0:
                            blk[0, loc[d2]] -= dpv
                    else:
                        _put_row(trow, n, sparse, cols, blk[0])
                    nJ += n
                    efc_pos[r] = pos
                    efc_type[r] = EQUALITY
                    efc_id[r] = i
                    efc_margin[r] = 0.0
                    efc_frictionloss[r] = 0.0
                    set_row_params(r, solref, solimp, dA, efc_pos[r], False, timestep, refsafe,
                                   efc_diagApprox, efc_KBIP, efc_R, efc_D)
                    r += 1
                    ne += 1
                elif et == _EQ_FLEX:
                    # MuJoCo's mjEQ_FLEX: each non-rigid edge keeps its rest length; the row is
                    # the edge's length gradient, its impedance from its own violation
                    for e in range(fl_edgeadr[o1], fl_edgeadr[o1] + fl_edgenum[o1]):
                        if fe_rigid[e]:
                            continue
                        jn = fe_rownnz[e]
                        ja = fe_rowadr[e]
                        n = nv
                        if sparse:
                            for p in range(jn):
                                cols[p] = fe_colind[ja + p]
                            n = jn
                        if not _room(r, 1, n, nJ, njcap, nJcap, status, warn_num, warn_info):
                            full = True
                            break
                        blk = _open(r, 1, n, nJ, sparse, cols, loc, Jv, colind, rownnz, rowadr)
                        for p in range(jn):
                            blk[0, loc[fe_colind[ja + p]]] = fe_J[ja + p]
                        nJ += n
                        efc_pos[r] = fe_length[e] - fe_length0[e]
                        efc_type[r] = EQUALITY
                        efc_id[r] = i
                        efc_margin[r] = 0.0
                        efc_frictionloss[r] = 0.0
                        set_row_params(r, solref, solimp, fe_invweight0[e], efc_pos[r], False,
                                       timestep, refsafe, efc_diagApprox, efc_KBIP, efc_R, efc_D)
                        r += 1
                        ne += 1
                else:
                    # distance / flexvert / flexstrain equalities are not built: report, no rows
                    if status[0] == 0:
                        status[0] = STATUS_EQ_UNSUPPORTED
                        status[1] = i

        # ---- friction loss: dofs, then tendons
        if not (disable & _DSBL_FRICTIONLOSS):
            for k in range(nv):
                if dof_frictionloss[k] > 0.0 and not full:
                    if sfilt and body_awake[dof_bodyid[k]] == sleep.S_ASLEEP:
                        continue
                    cols[0] = k
                    n = 1 if sparse else nv
                    if not _room(r, 1, n, nJ, njcap, nJcap, status, warn_num, warn_info):
                        full = True
                        continue
                    blk = _open(r, 1, n, nJ, sparse, cols, loc, Jv, colind, rownnz, rowadr)
                    blk[0, loc[k]] = 1.0
                    nJ += n
                    efc_type[r] = FRICTION_DOF
                    efc_id[r] = k
                    efc_pos[r] = 0.0
                    efc_margin[r] = 0.0
                    efc_frictionloss[r] = dof_frictionloss[k]
                    set_row_params(r, dof_solref[k], dof_solimp[k], dof_invweight0[k], 0.0, True,
                                   timestep, refsafe, efc_diagApprox, efc_KBIP, efc_R, efc_D)
                    r += 1
                    nf += 1
            for t in range(tendon_frictionloss.shape[0]):
                # a tendon spanning no degree of freedom (between static sites) makes no
                # friction or limit row in MuJoCo 4.0.0 (measured)
                if tendon_frictionloss[t] > 0.0 and not full and tendon_treenum[t] > 0:
                    n = _tendon_block(1.0, t, r, nJ, sparse, ten_J, ten_J_rownnz, ten_J_colind,
                                      cols, loc, Jv, colind, rownnz, rowadr, njcap, status,
                                      warn_num, warn_info)
                    if n < 0:
                        full = True
                        continue
                    nJ += n
                    efc_type[r] = FRICTION_TENDON
                    efc_id[r] = t
                    efc_pos[r] = 0.0
                    efc_margin[r] = 0.0
                    efc_frictionloss[r] = tendon_frictionloss[t]
                    set_row_params(r, tendon_solref_fri[t], tendon_solimp_fri[t],
                                   tendon_invweight0[t], 0.0, True, timestep, refsafe,
                                   efc_diagApprox, efc_KBIP, efc_R, efc_D)
                    r += 1
                    nf += 1

        # ---- limits: joints, then tendons
        if not (disable & _DSBL_LIMIT):
            for j in range(jnt_type.shape[0]):
                if not jnt_limited[j] or full:
                    continue
                if sfilt and body_awake[jnt_bodyid[j]] == sleep.S_ASLEEP:
                    continue
                jt = jnt_type[j]
                qa = jnt_qposadr[j]
                da = jnt_dofadr[j]
                margin = jnt_margin[j]
                if jt == SLIDE or jt == HINGE:
                    for side in range(2):
                        dist = qpos[qa] - jnt_range[j, 0] if side == 0 else \
                            jnt_range[j, 1] - qpos[qa]
                        if dist < margin:
                            cols[0] = da
                            n = 1 if sparse else nv
                            if not _room(r, 1, n, nJ, njcap, nJcap, status, warn_num,
                                         warn_info):
                                full = True
                                break
                            blk = _open(r, 1, n, nJ, sparse, cols, loc, Jv, colind, rownnz,
                                        rowadr)
                            blk[0, loc[da]] = 1.0 if side == 0 else -1.0
                            nJ += n
                            _limit_row(r, LIMIT_JOINT, j, dist, margin, jnt_solref[j],
                                       jnt_solimp[j], dof_invweight0[da], timestep, refsafe,
                                       efc_type, efc_id, efc_pos, efc_margin, efc_frictionloss,
                                       efc_diagApprox, efc_KBIP, efc_R, efc_D)
                            r += 1
                            nl += 1
                elif jt == BALL:
                    q = mm.quat_normalize((qpos[qa], qpos[qa + 1], qpos[qa + 2], qpos[qa + 3]))
                    axis, angle = mm.normalize3(mm.quat2vel(q, 1.0))
                    dist = max(jnt_range[j, 0], jnt_range[j, 1]) - angle
                    if dist < margin:
                        for q in range(3):
                            cols[q] = da + q
                        n = 3 if sparse else nv
                        if not _room(r, 1, n, nJ, njcap, nJcap, status, warn_num, warn_info):
                            full = True
                            continue
                        blk = _open(r, 1, n, nJ, sparse, cols, loc, Jv, colind, rownnz, rowadr)
                        for q in range(3):
                            blk[0, loc[da + q]] = -axis[q]
                        nJ += n
                        _limit_row(r, LIMIT_JOINT, j, dist, margin, jnt_solref[j],
                                   jnt_solimp[j], dof_invweight0[da], timestep, refsafe,
                                   efc_type, efc_id, efc_pos, efc_margin, efc_frictionloss,
                                   efc_diagApprox, efc_KBIP, efc_R, efc_D)
                        r += 1
                        nl += 1
            for t in range(tendon_limited.shape[0]):
                if not tendon_limited[t] or full or tendon_treenum[t] == 0:
                    continue
                margin = tendon_margin[t]
                for side in range(2):
                    dist = ten_length[t] - tendon_range[t, 0] if side == 0 else \
                        tendon_range[t, 1] - ten_length[t]
                    if dist < margin:
                        n = _tendon_block(1.0 if side == 0 else -1.0, t, r, nJ, sparse, ten_J,
                                          ten_J_rownnz, ten_J_colind, cols, loc, Jv, colind,
                                          rownnz, rowadr, njcap, status, warn_num, warn_info)
                        if n < 0:
                            full = True
                            break
                        nJ += n
                        _limit_row(r, LIMIT_TENDON, t, dist, margin, tendon_solref_lim[t],
                                   tendon_solimp_lim[t], tendon_invweight0[t], timestep, refsafe,
                                   efc_type, efc_id, efc_pos, efc_margin, efc_frictionloss,
                                   efc_diagApprox, efc_KBIP, efc_R, efc_D)
                        r += 1
                        nl += 1

        # ---- contacts
        if disable & _DSBL_CONTACT:
            ncon = 0
        sqrt_impratio = math.sqrt(fs(M, MF.opt_impratio))
        for c in range(ncon):
            # the contact's mu (MuJoCo fills it here, not in the collision stage)
            contact_mu[c] = contact_friction[c, 0] / sqrt_impratio
            if contact_exclude[c] != 0 or full:
                continue
            dim = contact_dim[c]
            fr = contact_friction[c]
            if dim == 1:
                nrow = 1
                ctype = CONTACT_FRICTIONLESS
            elif elliptic:
                nrow = dim
                ctype = CONTACT_ELLIPTIC
            else:
                nrow = 2 * (dim - 1)
                ctype = CONTACT_PYRAMIDAL
            # a flex side (engine/flexcon.py): a vertex's body, or an element's weighted bodies
            simple, b1, b2, fb, fw, ftran = True, 0, 0, _NOBODY, _NOWEIGHT, 0.0
            if contact_flex[c, 0] >= 0 or contact_flex[c, 1] >= 0:
                simple, b1, b2, fb, fw, ftran = flexcon.contact_sides(M, D, c)
            else:
                b1 = geom_bodyid[contact_geom[c, 0]]
                b2 = geom_bodyid[contact_geom[c, 1]]
            n = nv
            if sparse:
                if simple:
                    n = chain_union(body_parentid, body_dofnum, body_dofadr, dof_parentid, b1,
                                    b2, True, cols)
                else:
                    n = flexcon.union_cols(M, D, fb, fw, cols)
            if not _room(r, nrow, n, nJ, njcap, nJcap, status, warn_num, warn_info):
                full = True
                continue
            blk = _open(r, nrow, n, nJ, sparse, cols, loc, Jv, colind, rownnz, rowadr)
            nJ += nrow * n
            frame = contact_frame[c]
            dist = contact_dist[c]
            margin = contact_includemargin[c]
            solref = contact_solref[c]
            solimp = contact_solimp[c]
            tran = body_invweight0[b1, 0] + body_invweight0[b2, 0] if simple else ftran
            contact_efc_address[c] = r
            if ctype == CONTACT_PYRAMIDAL:
                cnJ = cn[:dim * n].reshape(dim, n)
                if simple:
                    contact_jac(body_parentid, body_rootid, body_dofnum, body_dofadr,
                                dof_parentid, subtree_com, cdof, b1, b2, contact_pos[c], frame,
                                dim, cnJ, loc)
                else:
                    flexcon.weighted_jac(M, D, fb, fw, contact_pos[c], frame, dim, cnJ, loc)
                # edges of the pyramid: normal +- friction_j * direction j
                for j in range(1, dim):
                    f = fr[j - 1]
                    for k in range(n):
                        blk[2 * j - 2, k] = cnJ[0, k] + f * cnJ[j, k]
                        blk[2 * j - 1, k] = cnJ[0, k] - f * cnJ[j, k]
                # every edge gets R = 2 mu^2 R0 (mu = friction[0] / sqrt(impratio), the
                # contact's mu), R0 the first edge's own R from its diagApprox
                # tran (1 + friction[0]^2), clamped to mjMINVAL before the scaling as MuJoCo's
                # mj_makeImpedance (a contact no dof can move along its normal: R 2e-15)
                mu = contact_mu[c]
                for j in range(nrow):
                    efc_type[r + j] = ctype
                    efc_id[r + j] = c
                    efc_pos[r + j] = dist
                    efc_margin[r + j] = margin
                    efc_frictionloss[r + j] = 0.0
                    set_row_params(r + j, solref, solimp, tran * (1.0 + fr[0] * fr[0]),
                                   dist - margin, False, timestep, refsafe, efc_diagApprox,
                                   efc_KBIP, efc_R, efc_D)
                Rpy = 2.0 * mu * mu * efc_R[r]
                for j in range(nrow):
                    _set_R(r + j, Rpy, efc_KBIP, efc_diagApprox, efc_R, efc_D)
            elif simple:
                contact_jac(body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid,
                            subtree_com, cdof, b1, b2, contact_pos[c], frame, dim, blk, loc)
            else:
                flexcon.weighted_jac(M, D, fb, fw, contact_pos[c], frame, dim, blk, loc)
            if ctype != CONTACT_PYRAMIDAL:
                for j in range(nrow):
                    efc_type[r + j] = ctype
                    efc_id[r + j] = c
                    efc_frictionloss[r + j] = 0.0
                efc_pos[r] = dist
                efc_margin[r] = margin
                set_row_params(r, solref, solimp, tran, dist - margin, False, timestep,
                               refsafe, efc_diagApprox, efc_KBIP, efc_R, efc_D)
                if dim > 1:
                    # friction dimensions: zero residual, the normal's impedance, K = 0, B from
                    # solreffriction when given
                    sf = contact_solreffriction[c]
                    use_f = sf[0] != 0.0 or sf[1] != 0.0
                    dmax = min(max(solimp[1], _MINIMP), _MAXIMP)
                    K, B = stiffness_damping(sf if use_f else solref, dmax, timestep, refsafe)
                    imp = efc_KBIP[r, 2]
                    impP = efc_KBIP[r, 3]
                    # R1 = R0 / impratio, then R_j mu_j^2 = R1 mu_1^2 (from the clamped R0,
                    # as MuJoCo's mj_makeImpedance)
                    R1 = efc_R[r] / max(_MINVAL, impratio)
                    for j in range(1, dim):
                        efc_pos[r + j] = 0.0
                        efc_margin[r + j] = 0.0
                        efc_KBIP[r + j, 0] = 0.0
                        efc_KBIP[r + j, 1] = B
                        efc_KBIP[r + j, 2] = imp
                        efc_KBIP[r + j, 3] = impP
                        _set_R(r + j, R1 * fr[0] * fr[0] / (fr[j - 1] * fr[j - 1]), efc_KBIP,
                               efc_diagApprox, efc_R, efc_D)
            r += nrow

    nefc = r
    i1(D, DF.ne)[0] = ne
    i1(D, DF.nf)[0] = nf
    i1(D, DF.nl)[0] = nl
    i1(D, DF.nefc)[0] = nefc

    # ---- the layout's bookkeeping: rowsuper (sparse); dense mode zeroes rownnz/rowadr/rowsuper
    rowsuper = i1(D, DF.efc_J_rowsuper)
    if sparse:
        _rowsuper(nefc, rownnz, rowadr, colind, rowsuper)
    else:
        for i in range(nefc):
            rownnz[i] = 0
            rowadr[i] = 0
            rowsuper[i] = 0
    i1(D, DF.nJ)[0] = nJ


@kernel
def chain_union(body_parentid, body_dofnum, body_dofadr, dof_parentid, b1, b2, skip_common,
                cols):
    """The dofs acting on body b1 or b2 (the union of their dof chains), increasing, written to
    cols; returns how many. ``skip_common`` leaves out the dofs of both chains (a contact's
    relative point velocity does not depend on them)."""
    k1 = last_dof(body_parentid, body_dofnum, body_dofadr, b1)
    k2 = last_dof(body_parentid, body_dofnum, body_dofadr, b2)
    n = 0
    while k1 >= 0 or k2 >= 0:
        if k1 > k2:
            cols[n] = k1
            k1 = dof_parentid[k1]
        elif k2 > k1:
            cols[n] = k2
            k2 = dof_parentid[k2]
        else:
            if skip_common:
                break
            cols[n] = k1
            k1 = dof_parentid[k1]
            k2 = dof_parentid[k2]
        n += 1
    # the chains were walked from the leaves: reverse into increasing order
    for i in range(n // 2):
        t = cols[i]
        cols[i] = cols[n - 1 - i]
        cols[n - 1 - i] = t
    return n


@kernel
def _rowsuper(nefc, rownnz, rowadr, colind, rowsuper):
    """efc_J_rowsuper: for each row, how many following rows have the same columns."""
    for r in range(nefc - 1, -1, -1):
        rowsuper[r] = 0
        if r + 1 < nefc and rownnz[r] == rownnz[r + 1]:
            a0 = rowadr[r]
            a1 = rowadr[r + 1]
            same = True
            for p in range(rownnz[r]):
                if colind[a0 + p] != colind[a1 + p]:
                    same = False
                    break
            if same:
                rowsuper[r] = rowsuper[r + 1] + 1


# =================================================================================================
# mj_referenceConstraint
# =================================================================================================
@kernel
def reference_kernel(
    # Data in:
    J, efc_KBIP, efc_pos, efc_margin, qvel, nefc,
    # Data out:
    efc_vel, efc_aref,
):
    """efc_vel = J qvel and efc_aref = -B vel - K imp (pos - margin) for the nefc rows (J: the
    engine.jacobian tuple, dense or compressed rows)."""
    for i in range(nefc):
        s = row_dot(J, i, qvel)
        efc_vel[i] = s
        efc_aref[i] = -efc_KBIP[i, 1] * s - efc_KBIP[i, 0] * efc_KBIP[i, 2] * (
            efc_pos[i] - efc_margin[i])


@kernel
def bias_acc(
    # Model:
    body_parentid, body_dofnum, body_dofadr, dof_parentid,
    # Data in:
    cdof_dot, qvel, body,
):
    """The spatial acceleration (angular, linear at the c-frame origin) of ``body`` at
    qacc = 0: the sum of cdof_dot * qvel over its dof chain (J-dot qvel, without gravity)."""
    a0 = 0.0
    a1 = 0.0
    a2 = 0.0
    a3 = 0.0
    a4 = 0.0
    a5 = 0.0
    k = last_dof(body_parentid, body_dofnum, body_dofadr, body)
    while k >= 0:
        c = cdof_dot[k]
        v = qvel[k]
        a0 += c[0] * v
        a1 += c[1] * v
        a2 += c[2] * v
        a3 += c[3] * v
        a4 += c[4] * v
        a5 += c[5] * v
        k = dof_parentid[k]
    return (a0, a1, a2), (a3, a4, a5)


@kernel
def point_bias_acc(
    # Model:
    body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid,
    # Data in:
    subtree_com, cvel, cdof_dot, qvel, point, body,
):
    """(J-dot qvel for the point, angular velocity, angular J-dot qvel) of a point fixed on
    ``body`` (world frame): the point's classical acceleration at qacc = 0,
    a = a_lin + alpha x (p - o) + omega x v_p."""
    alpha, alin = bias_acc(body_parentid, body_dofnum, body_dofadr, dof_parentid, cdof_dot,
                           qvel, body)
    cv = cvel[body]
    w = (cv[0], cv[1], cv[2])
    off = mm.sub3(point, subtree_com[body_rootid[body]])
    vp = mm.add3((cv[3], cv[4], cv[5]), mm.cross3(w, off))
    acc = mm.add3(mm.add3(alin, mm.cross3(alpha, off)), mm.cross3(w, vp))
    return acc, w, alpha


@kernel
def _pure(v):
    return (0.0, v[0], v[1], v[2])


@kernel
def equality_jdot_correction(M, D, nefc):
    """efc_aref -= J-dot qvel for the connect and weld rows (mujoco 4's reference acceleration
    of these rows removes the velocity-product part of the violation's second derivative; the
    joint and tendon equality rows have none)."""
    body_parentid = i1(M, MF.body_parentid)
    body_rootid = i1(M, MF.body_rootid)
    body_dofnum = i1(M, MF.body_dofnum)
    body_dofadr = i1(M, MF.body_dofadr)
    dof_parentid = i1(M, MF.dof_parentid)
    eq_type = i1(M, MF.eq_type)
    eq_obj1id = i1(M, MF.eq_obj1id)
    eq_obj2id = i1(M, MF.eq_obj2id)
    eq_objtype = i1(M, MF.eq_objtype)
    eq_data = f2(M, MF.eq_data)
    site_bodyid = i1(M, MF.site_bodyid)
    xpos = f2(D, DF.xpos)
    xmat = f2(D, DF.xmat)
    xquat = f2(D, DF.xquat)
    site_xpos = f2(D, DF.site_xpos)
    site_xquat = f2(D, DF.site_xquat)
    subtree_com = f2(D, DF.subtree_com)
    cvel = f2(D, DF.cvel)
    cdof_dot = f2(D, DF.cdof_dot)
    qvel = f1(D, DF.qvel)
    efc_type = i1(D, DF.efc_type)
    efc_id = i1(D, DF.efc_id)
    efc_aref = f1(D, DF.efc_aref)
    r = 0
    while r < nefc and efc_type[r] == EQUALITY:
        i = efc_id[r]
        et = eq_type[i]
        if et != _EQ_CONNECT and et != _EQ_WELD:
            r += 1
            continue
        o1 = eq_obj1id[i]
        o2 = eq_obj2id[i]
        data = eq_data[i]
        site = eq_objtype[i] == _OBJ_SITE
        b1, b2, p1, p2 = eq_anchors(et, site, o1, o2, data, site_bodyid, site_xpos, xpos, xmat)
        acc1, w1, al1 = point_bias_acc(body_parentid, body_rootid, body_dofnum, body_dofadr,
                                       dof_parentid, subtree_com, cvel, cdof_dot, qvel, p1, b1)
        acc2, w2, al2 = point_bias_acc(body_parentid, body_rootid, body_dofnum, body_dofadr,
                                       dof_parentid, subtree_com, cvel, cdof_dot, qvel, p2, b2)
        for j in range(3):
            efc_aref[r + j] -= acc1[j] - acc2[j]
        if et == _EQ_WELD:
            ts = data[10]
            if site:
                q1 = mm.get4(site_xquat[o1])
                q2 = mm.get4(site_xquat[o2])
            else:
                q1 = mm.quat_mul(mm.get4(xquat[b1]), (data[6], data[7], data[8], data[9]))
                q2 = mm.get4(xquat[b2])
            # rows = 0.5 ts vec(neg(q2) [w1 - w2] q1); their time derivative at qacc = 0 with
            # d neg(q2)/dt = -0.5 neg(q2) [w2] and d q1/dt = 0.5 [w1] q1
            nq2 = mm.quat_neg(q2)
            wr = mm.sub3(w1, w2)
            ar = mm.sub3(al1, al2)
            t1 = mm.quat_mul(mm.quat_mul(nq2, _pure(ar)), q1)
            t2 = mm.quat_mul(mm.quat_mul(mm.quat_mul(nq2, _pure(w2)), _pure(wr)), q1)
            t3 = mm.quat_mul(mm.quat_mul(mm.quat_mul(nq2, _pure(wr)), _pure(w1)), q1)
            for j in range(3):
                efc_aref[r + 3 + j] -= 0.5 * ts * (t1[1 + j] - 0.5 * t2[1 + j]
                                                   + 0.5 * t3[1 + j])
            r += 6
        else:
            r += 3


@kernel
def reference_constraint(M, D):
    """mj_referenceConstraint: efc_vel and efc_aref (seed 004, "Reference acceleration").
    Reads the velocity stage (qvel; cvel and cdof_dot for the connect/weld rows)."""
    nefc = i1(D, DF.nefc)[0]
    reference_kernel(jac(M, D), f2(D, DF.efc_KBIP), f1(D, DF.efc_pos), f1(D, DF.efc_margin),
                     f1(D, DF.qvel), nefc, f1(D, DF.efc_vel), f1(D, DF.efc_aref))
    equality_jdot_correction(M, D, nefc)
    surface_velocity(M, D)
    adhesion_bias(M, D)


@kernel
def _surface_vel(M, D, g, p):
    """(linear velocity at the world point p, angular velocity), world frame, of geom g's
    surface: its geom_surfacevel (linear, angular; geom frame), zero for g < 0."""
    if g < 0:
        return (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    sv = f2(M, MF.geom_surfacevel)[g]
    mat = f2(D, DF.geom_xmat)[g]
    v = mm.mat_vec(mat, (sv[0], sv[1], sv[2]))
    w = mm.mat_vec(mat, (sv[3], sv[4], sv[5]))
    return mm.add3(v, mm.cross3(w, mm.sub3(mm.get3(p), mm.get3(f2(D, DF.geom_xpos)[g])))), w


@kernel
def surface_velocity(M, D):
    """Moving surfaces (<geom surfacevel>, e.g. conveyor belts and turntables): a contact's
    friction rows see the relative velocity of the two surfaces at the contact point, geom2's
    minus geom1's, added to efc_vel (and through -B to efc_aref): sliding rows take its
    tangential components, the torsional row the normal component of the relative spin, the
    rolling rows nothing; a pyramidal row pair takes +- mu times them (measured on MuJoCo 4.0.0,
    which has no seed text on it)."""
    gsv = f2(M, MF.geom_surfacevel)
    ncon = i1(D, DF.ncon)[0]
    if ncon == 0:
        return
    cgeom = i2(D, DF.contact_geom)
    efc_vel = f1(D, DF.efc_vel)
    efc_aref = f1(D, DF.efc_aref)
    kbip = f2(D, DF.efc_KBIP)
    for c in range(ncon):
        adr = i1(D, DF.contact_efc_address)[c]
        dim = i1(D, DF.contact_dim)[c]
        g1, g2 = cgeom[c, 0], cgeom[c, 1]
        if adr < 0 or dim < 3:
            continue
        moving = False
        for g in (g1, g2):
            if g >= 0:
                for k in range(6):
                    if gsv[g, k] != 0.0:
                        moving = True
        if not moving:
            continue
        p = f2(D, DF.contact_pos)[c]
        fr = f2(D, DF.contact_frame)[c]
        v1, w1 = _surface_vel(M, D, g1, p)
        v2, w2 = _surface_vel(M, D, g2, p)
        v = mm.sub3(v2, v1)
        w = mm.sub3(w2, w1)
        pyramidal = i1(D, DF.efc_type)[adr] == CONTACT_PYRAMIDAL
        for k in range(1, min(dim, 4)):
            if k < 3:
                vk = v[0] * fr[3 * k] + v[1] * fr[3 * k + 1] + v[2] * fr[3 * k + 2]
            else:
                vk = w[0] * fr[0] + w[1] * fr[1] + w[2] * fr[2]
            if pyramidal:
                mu = f2(D, DF.contact_friction)[c, k - 1]
                for j, sgn in ((adr + 2 * k - 2, 1.0), (adr + 2 * k - 1, -1.0)):
                    efc_vel[j] += sgn * mu * vk
                    efc_aref[j] -= kbip[j, 1] * sgn * mu * vk
            else:
                efc_vel[adr + k] += vk
                efc_aref[adr + k] -= kbip[adr + k, 1] * vk


# =================================================================================================
# mj_contactForce
# =================================================================================================
@kernel
def contact_force(
    # Model:
    opt_cone,
    # Data in:
    contact_dim, contact_friction, contact_efc_address, contact_adhesion, efc_force, id,
    # Data out:
    result,
):
    """mj_contactForce: the force of contact ``id`` in its frame (normal, tangent1, tangent2,
    then torsional and rolling torques): 6 numbers, zeros beyond the contact's dim. Pyramidal
    edge forces are converted: normal = sum of all edges, friction j = (f+ - f-) friction[j].
    The normal is the net interface force: the contact's adhesion is subtracted (engine.adhesion;
    negative under tension)."""
    for j in range(6):
        result[j] = 0.0
    adr = contact_efc_address[id]
    if adr < 0:
        return
    dim = contact_dim[id]
    if dim == 1 or opt_cone == _CONE_ELLIPTIC:
        for j in range(dim):
            result[j] = efc_force[adr + j]
    else:
        for j in range(1, dim):
            fp = efc_force[adr + 2 * j - 2]
            fn = efc_force[adr + 2 * j - 1]
            result[0] += fp + fn
            result[j] = (fp - fn) * contact_friction[id, j - 1]
    result[0] -= contact_adhesion[id]


# =================================================================================================
# Python API
# =================================================================================================
def _check(d):
    """Raise what make_constraint or the solver reported in fw_status (and clear it): an
    unsupported equality, or a full Jacobian, Hessian or M^-1 J' pool (engine.forward raises a
    full row capacity itself)."""
    st = d.fw_status
    what = {STATUS_JACFULL: "the constraint Jacobian needs at least {} nonzeros",
            STATUS_HESSFULL: "Newton's sparse Hessian factor needs more than {} entries",
            STATUS_MINVJFULL: "the PGS/noslip rows of M^-1 J' need at least {} entries"}
    code = int(st[0])
    if code in what:
        need, cap = int(st[1]), int(st[2])
        st[0] = 0
        from .errors import ArenaFullError
        m = d.model
        if code == STATUS_HESSFULL:
            need = cap
        raise ArenaFullError(
            f"at time {d.time:.6g} " + what[code].format(need) + f" but this MjData holds {cap}: "
            "increase <size memory> (now "
            f"{'the default guess' if m.__dict__.get('narena', -1) < 0 else m.narena} bytes), "
            "or set <size njmax>, and create a new MjData")
    if st[0] == STATUS_EQ_UNSUPPORTED:
        eq = int(st[1])
        st[0] = 0
        raise NotImplementedError(
            f"equality {eq}: <equality> of type {mjtEq(int(d.model.eq_type[eq])).name} "
            "(distance / flexvert / flexstrain equality constraints) is not supported yet")


def mj_makeConstraint(m, d):
    """Constraint rows for the current positions and contacts (see make_constraint)."""
    argcheck.pair(m, d, "mj_makeConstraint")
    make_constraint(m._A, d._A)
    _check(d)


def mj_referenceConstraint(m, d):
    """efc_vel and efc_aref of the current rows (see reference_constraint)."""
    argcheck.pair(m, d, "mj_referenceConstraint")
    reference_constraint(m._A, d._A)


def mj_contactForce(m, d, id, result):
    """The 6-vector force/torque of contact ``id`` in its contact frame (see contact_force)."""
    fn = "mj_contactForce"
    argcheck.pair(m, d, fn)
    i = argcheck.index(id, d.ncon, "id", fn)
    contact_force(int(m.opt.cone), d.contact_dim, d.contact_friction, d.contact_efc_address,
                  d.contact_adhesion,
                  d.__dict__["efc_force"], i, argcheck.out_array(result, (6,), "result", fn))


__all__ = ["eq_anchors", "make_constraint", "reference_constraint", "contact_jac", "impedance",
           "stiffness_damping", "contact_force", "mj_makeConstraint", "mj_referenceConstraint",
           "mj_contactForce"]
