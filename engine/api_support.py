"""mj_* support functions of MuJoCo's API outside the pipeline (seed 001, "Support functions",
"Sub components", "Initialization"): keyframes, quaternion normalization, constraint-Jacobian
products, applied forces, total mass, the Jacobian's time derivative, solver-type queries.

Python-level orchestration over the model/data arrays (none is called inside mj_step); arguments
are checked as the bindings check them (TypeError/IndexError naming the argument).
"""
from __future__ import annotations

import numpy as np

from .enums import mjtJoint, mjtCone, mjtSolver, mjtJacobian, mjtSameFrame, mjtGeom
from .mju_api import _in, _out, _mat
from .structs import struct_class


def _index(fn, name, i, n):
    i = int(i)
    if not 0 <= i < n:
        raise IndexError(f"{fn}: {name} {i} out of range [0, {n})")
    return i


def mj_setKeyframe(m, d, k):
    """Copy d's state (time, qpos, qvel, act, ctrl, mocap_pos, mocap_quat) into keyframe k."""
    k = _index("mj_setKeyframe", "k", k, m.nkey)
    m.key_time[k] = d.time
    m.key_qpos[k] = d.qpos
    m.key_qvel[k] = d.qvel
    m.key_act[k] = d.act
    m.key_ctrl[k] = d.ctrl
    m.key_mpos[k] = d.mocap_pos.reshape(-1)
    m.key_mquat[k] = d.mocap_quat.reshape(-1)


def mj_normalizeQuat(m, qpos):
    """Normalize the quaternions of the ball and free joints in the qpos-sized vector, in place
    (a near-zero one becomes the identity, as mju_normalize4)."""
    q = _out("mj_normalizeQuat", "qpos", qpos, m.nq)
    from .mju import mju_normalize4
    for j in range(m.njnt):
        t = int(m.jnt_type[j])
        if t == mjtJoint.mjJNT_FREE or t == mjtJoint.mjJNT_BALL:
            a = int(m.jnt_qposadr[j]) + (3 if t == mjtJoint.mjJNT_FREE else 0)
            mju_normalize4(q[a:a + 4])


def _efc_dense(m, d):
    """The nefc x nv constraint Jacobian as a dense array (a view when it is stored dense)."""
    nefc, nv = int(d.nefc), m.nv
    J = d.efc_J
    if mj_isSparse(m):
        dense = np.zeros((nefc, nv))
        nnz, adr, col = d.efc_J_rownnz, d.efc_J_rowadr, d.efc_J_colind
        for r in range(nefc):
            a, n = int(adr[r]), int(nnz[r])
            dense[r, col[a:a + n]] = J[a:a + n]
        return dense
    return J[:nefc * nv].reshape(nefc, nv)


def mj_mulJacVec(m, d, res, vec):
    """res (nefc) = efc_J @ vec (nv)."""
    fn = "mj_mulJacVec"
    r = _out(fn, "res", res, int(d.nefc))
    r[:] = _efc_dense(m, d) @ _in(fn, "vec", vec, m.nv)


def mj_mulJacTVec(m, d, res, vec):
    """res (nv) = efc_J' @ vec (nefc)."""
    fn = "mj_mulJacTVec"
    r = _out(fn, "res", res, m.nv)
    r[:] = _efc_dense(m, d).T @ _in(fn, "vec", vec, int(d.nefc))


def mj_applyFT(m, d, force, torque, point, body, qfrc_target):
    """qfrc_target (nv) += jacp' force + jacr' torque for the world-frame force (N) and torque
    (N m) applied at the global point (m) on body (outside the xfrc_applied mechanism)."""
    fn = "mj_applyFT"
    body = _index(fn, "body", body, m.nbody)
    q = _out(fn, "qfrc_target", qfrc_target, m.nv)
    from .support import mj_jac
    jacp, jacr = np.zeros((3, m.nv)), np.zeros((3, m.nv))
    mj_jac(m, d, jacp, jacr, _in(fn, "point", point, 3), body)
    q += jacp.T @ _in(fn, "force", force, 3) + jacr.T @ _in(fn, "torque", torque, 3)


def mj_getTotalmass(m):
    """Sum of the body masses (kg)."""
    return float(np.sum(m.body_mass))


def mj_setTotalmass(m, newmass):
    """Scale every body's mass and inertia so that they sum to newmass (kg). Derived fields
    (body_subtreemass, ...) are left as they are, as in mujoco: call mj_setConst for them."""
    scale = float(newmass) / max(1e-15, mj_getTotalmass(m))
    m.body_mass[1:] *= scale
    m.body_inertia[1:] *= scale


def mj_isPyramidal(m):
    """1 for the pyramidal friction cone, 0 for the elliptic one."""
    return int(m.opt.cone == mjtCone.mjCONE_PYRAMIDAL)


def mj_isSparse(m):
    """1 when the constraint Jacobian is sparse: opt.jacobian SPARSE, or AUTO with nv >= 60."""
    j = m.opt.jacobian
    return int(j == mjtJacobian.mjJAC_SPARSE or (j == mjtJacobian.mjJAC_AUTO and m.nv >= 60))


def mj_isDual(m):
    """1 when the solver works in the dual (PGS, or noslip iterations requested), else 0."""
    return int(m.opt.solver == mjtSolver.mjSOL_PGS or m.opt.noslip_iterations > 0)


def mj_defaultSolRefImp(solref, solimp):
    """solref = (0.02, 1) and solimp = (0.9, 0.95, 0.001, 0.5, 2), MuJoCo's defaults (either may
    be None)."""
    if solref is not None:
        _out("mj_defaultSolRefImp", "solref", solref, 2)[:] = (0.02, 1.0)
    if solimp is not None:
        _out("mj_defaultSolRefImp", "solimp", solimp, 5)[:] = (0.9, 0.95, 0.001, 0.5, 2.0)


_DEFAULT_OPT = None


def mj_defaultOption(opt):
    """Set every field of opt (an MjOption) to its default: the options of a model whose MJCF
    has no <option> (seed 000 defaults, as the compiler sets them)."""
    global _DEFAULT_OPT
    if _DEFAULT_OPT is None:
        from .model import MjModel
        ref = MjModel.from_xml_string("<mujoco/>").opt
        _DEFAULT_OPT = {k: np.array(v, copy=True) for k, v in ref.__dict__["_v"].items()}
    for k, v in _DEFAULT_OPT.items():
        setattr(opt, k, v)


def mj_local2Global(d, xpos, xmat, pos, quat, body, sameframe):
    """Global position xpos and orientation xmat (3x3) of a frame given in body's local
    coordinates (pos, quat); sameframe (mjtSameFrame) shortcuts frames equal to the body's or
    its inertial frame. xpos or xmat may be None."""
    from .mju import mju_mulQuat, mju_quat2Mat, mju_mulMatVec3
    fn = "mj_local2Global"
    b = _index(fn, "body", body, d.xpos.shape[0])
    sf = int(sameframe)
    S = mjtSameFrame
    if xpos is not None:
        # only BODY and INERTIA mean "the same position"; the *ROT ones share the rotation
        xp = _out(fn, "xpos", xpos, 3)
        if sf == S.mjSAMEFRAME_BODY:
            xp[:] = d.xpos[b]
        elif sf == S.mjSAMEFRAME_INERTIA:
            xp[:] = d.xipos[b]
        else:
            t = np.zeros(3)
            mju_mulMatVec3(t, d.xmat[b], _in(fn, "pos", pos, 3))
            xp[:] = d.xpos[b] + t
    if xmat is not None:
        xm = _out(fn, "xmat", xmat, 9)
        if sf in (S.mjSAMEFRAME_BODY, S.mjSAMEFRAME_BODYROT):
            xm[:] = d.xmat[b]
        elif sf in (S.mjSAMEFRAME_INERTIA, S.mjSAMEFRAME_INERTIAROT):
            xm[:] = d.ximat[b]
        else:
            q = np.zeros(4)
            mju_mulQuat(q, d.xquat[b], _in(fn, "quat", quat, 4))
            mju_quat2Mat(xm, q)


def mj_angmomMat(m, d, mat, body):
    """mat (3 x nv): the subtree of body's angular momentum about its centre of mass is
    mat @ qvel (world frame)."""
    fn = "mj_angmomMat"
    b = _index(fn, "body", body, m.nbody)
    out = _mat(fn, "mat", mat, out=True)[2]
    if out.size != 3 * m.nv:
        raise TypeError(f"{fn}(): mat must be 3 x nv")
    from .support import mj_jac
    res = np.zeros((3, m.nv))
    jp, jr = np.zeros((3, m.nv)), np.zeros((3, m.nv))
    com = d.subtree_com[b]
    # descendants of b (bodies are numbered parents first)
    inside = np.zeros(m.nbody, bool)
    inside[b] = True
    for i in range(b + 1, m.nbody):
        inside[i] = inside[m.body_parentid[i]]
    for i in np.nonzero(inside)[0]:
        mj_jac(m, d, jp, jr, d.xipos[i], int(i))
        r = d.xipos[i] - com
        # linear part: m_i r x (J_p qvel); angular: R I R' (J_r qvel)
        rx = np.array([[0, -r[2], r[1]], [r[2], 0, -r[0]], [-r[1], r[0], 0]])
        R = d.ximat[i].reshape(3, 3)
        res += m.body_mass[i] * rx @ jp + R @ np.diag(m.body_inertia[i]) @ R.T @ jr
    out[:] = res.reshape(-1)


def mj_fwdKinematics(m, d):
    """All kinematics-like stages: kinematics, com positions, cameras/lights, tendons (the
    position stage up to inertia; flexes are not built)."""
    from .smooth import mj_kinematics, mj_comPos, mj_camlight, mj_tendon
    mj_kinematics(m, d)
    mj_comPos(m, d)
    mj_camlight(m, d)
    mj_tendon(m, d)


def mj_setConst(m, d):
    """Recompute the model constants that depend on its kinematics and inertia at qpos0 after
    the model was edited (MuJoCo's mj_setConst): dof_M0, the invweight0 fields, actuator_acc0,
    tendon_length0, actuator_length0, cam/light pos0 and poscom0, dof_length, body_subtreemass
    and the geoms' and sites' sameframe flags (m.stat is kept). ``d`` is used as scratch and
    is left, as MuJoCo leaves it, at the spring reference configuration qpos_spring with its
    kinematics computed."""
    from . import argcheck
    from .compiler._setconst_dyn import set_const_dynamic
    from .smooth import fwd_position_smooth
    argcheck.pair(m, d, "mj_setConst")
    set_const_dynamic(m)
    d.qpos[:] = m.qpos_spring
    fwd_position_smooth(m._A, d._A)


def mj_extractState(m, src, srcsig, dst, dstsig):
    """Copy into ``dst`` the components ``dstsig`` (mjtState bits, a subset of ``srcsig``) of
    the state vector ``src`` laid out by ``srcsig``."""
    from . import argcheck
    from .state import _check_spec, _COMPONENTS, mj_stateSize
    fn = "mj_extractState"
    argcheck.model(m, fn)
    srcsig = _check_spec(srcsig, fn)
    dstsig = _check_spec(dstsig, fn)
    if dstsig & ~srcsig:
        raise ValueError(f"{fn}: dstsig {dstsig} is not a subset of srcsig {srcsig}")
    src = argcheck.in_array(src, (mj_stateSize(m, srcsig),), "src", fn)
    dst = argcheck.out_array(dst, (mj_stateSize(m, dstsig),), "dst", fn)
    i = k = 0
    for bit, _, size in _COMPONENTS:
        if not srcsig & bit:
            continue
        n = size(m)
        if dstsig & bit:
            dst[k:k + n] = src[i:i + n]
            k += n
        i += n


def mj_resetCtrl(m, d):
    """Zero the controls d.ctrl (MuJoCo's mj_resetCtrl; the engine keeps no control history)."""
    from . import argcheck
    argcheck.pair(m, d, "mj_resetCtrl")
    d.ctrl[:] = 0.0


def mj_defaultVisual(vis):
    """Set every field of ``vis`` (an MjVisual) to MuJoCo 4.0.0's defaults."""
    from .visual import MjVisual
    if not isinstance(vis, MjVisual):
        raise TypeError(f"mj_defaultVisual: vis must be an MjVisual, got {type(vis).__name__}")
    ref = MjVisual()
    vis._f[:], vis._i[:] = ref._f, ref._i


def mj_insideSite(m, d, siteid, point):
    """1 if the world point lies inside the volume of site ``siteid`` (sphere, capsule,
    ellipsoid, cylinder or box of the site's size, at d.site_xpos/xmat), else 0."""
    from . import argcheck
    from .sensor import _inside_site
    fn = "mj_insideSite"
    argcheck.pair(m, d, fn)
    s = argcheck.index(siteid, m.nsite, "siteid", fn)
    p = argcheck.in_array(point, (3,), "point", fn)
    if int(m.site_type[s]) == int(mjtGeom.mjGEOM_MESH):
        raise NotImplementedError("mj_insideSite on a mesh site (the convex-hull test)")
    return int(bool(_inside_site(m._A, d._A, s, p)))


def mj_jacDot(m, d, jacp, jacr, point, body):
    """Time derivative of the 3 x nv translational (jacp) and rotational (jacr) Jacobians of
    the world point ``point`` attached to ``body`` (either output may be None), from the
    velocity stage's cdof_dot and cvel (call mj_forward first).

    Column i (dofs of the body's chain): d/dt of the rotational part is cdof_dot's rotation;
    of the translational part, cdof_dot's translation + cdof_dot_rot x r + cdof_rot x v_p, with
    r the point's offset from the root's subtree centre of mass (the frame of cdof) and v_p the
    point's linear velocity. A ball joint's or a free joint's rotational dofs move with their
    own body, so their derivative is cvel(body) x cdof (MuJoCo 4.0.0's rule, measured) rather
    than the stored cdof_dot (which MuJoCo's velocity stage takes from the parent's cvel)."""
    from . import argcheck
    fn = "mj_jacDot"
    argcheck.pair(m, d, fn)
    nv = m.nv
    jacp = argcheck.out_array(jacp, (3, nv), "jacp", fn, optional=True)
    jacr = argcheck.out_array(jacr, (3, nv), "jacr", fn, optional=True)
    point = argcheck.in_array(point, (3,), "point", fn)
    body = argcheck.index(body, m.nbody, "body", fn)
    for J in (jacp, jacr):
        if J is not None:
            J.reshape(3, nv)[:] = 0.0
    offset = point - d.subtree_com[m.body_rootid[body]]
    cvel = d.cvel[body]
    pvel = cvel[3:] + np.cross(cvel[:3], offset)
    b, i = body, -1
    while b > 0 and i < 0:              # the last dof of the body or of its nearest ancestor
        if m.body_dofnum[b]:
            i = int(m.body_dofadr[b] + m.body_dofnum[b] - 1)
        b = int(m.body_parentid[b])
    free, ball = int(mjtJoint.mjJNT_FREE), int(mjtJoint.mjJNT_BALL)
    while i >= 0:
        j = int(m.dof_jntid[i])
        t = int(m.jnt_type[j])
        cdof = d.cdof[i]
        if t == ball or (t == free and i >= m.jnt_dofadr[j] + 3):
            v = d.cvel[m.dof_bodyid[i]]
            rot = np.cross(v[:3], cdof[:3])
            lin = np.cross(v[:3], cdof[3:]) + np.cross(v[3:], cdof[:3])
        else:
            rot, lin = d.cdof_dot[i, :3], d.cdof_dot[i, 3:]
        if jacr is not None:
            jacr.reshape(3, nv)[:, i] = rot
        if jacp is not None:
            jacp.reshape(3, nv)[:, i] = lin + np.cross(rot, offset) + np.cross(cdof[:3], pvel)
        i = int(m.dof_parentid[i])


MjLROpt = struct_class("MjLROpt", [
    ("mode", np.int32, (), 0, "which actuators: 0 none, 1 muscle, 2 muscle and user, 3 all "
                       "(mjtLRMode)"),
    ("useexisting", np.int32, (), 0, "keep a range the actuator has already"),
    ("uselimit", np.int32, (), 0, "use the joint's or tendon's limits when it has them"),
    ("accel", np.float64, (), 0.0, "target acceleration of the pushing force (length/s^2)"),
    ("maxforce", np.float64, (), 0.0, "largest pushing force, 0: unbounded (force)"),
    ("timeconst", np.float64, (), 0.0, "time constant of the velocity damping (s)"),
    ("timestep", np.float64, (), 0.0, "simulation timestep, 0: the model's (s)"),
    ("inttotal", np.float64, (), 0.0, "duration of each run (s)"),
    ("interval", np.float64, (), 0.0, "final part of each run whose lengths are recorded (s)"),
    ("tolrange", np.float64, (), 0.0, "convergence tolerance, a fraction of the range"),
], """Options of the actuator length-range computation (MuJoCo's mjLROpt; seed 000
``<compiler><lengthrange>``). ``MjLROpt()`` holds zeros, as the bindings'; mj_defaultLROpt sets
the defaults.""")


def mj_defaultLROpt(opt):
    """Set ``opt`` (an MjLROpt) to the <lengthrange> defaults: mode muscle, useexisting,
    accel 20, timeconst 1, timestep 0.01, inttotal 10, interval 2, tolrange 0.05."""
    from .compiler.lengthrange import DEFAULTS, MODES
    if not isinstance(opt, MjLROpt):
        raise TypeError(f"mj_defaultLROpt: opt must be an MjLROpt, got {type(opt).__name__}")
    for k, v in DEFAULTS.items():
        setattr(opt, k, MODES.index(v) if k == "mode" else v)


def mj_setLengthRange(m, d, index, opt):
    """Compute actuator ``index``'s actuator_lengthrange by simulation with the options ``opt``
    (an MjLROpt), as the compiler does for <compiler><lengthrange>; FatalError with MuJoCo's
    message when the simulation does not converge. ``d`` is not used: the runs simulate in
    their own data."""
    from . import argcheck
    from .compiler.lengthrange import DEFAULTS, MODES, set_length_range
    from .errors import FatalError
    fn = "mj_setLengthRange"
    argcheck.pair(m, d, fn)
    i = argcheck.index(index, m.nu, "index", fn)
    if not isinstance(opt, MjLROpt):
        raise TypeError(f"{fn}: opt must be an MjLROpt, got {type(opt).__name__}")
    mode = int(opt.mode)
    if not 0 <= mode < len(MODES):
        raise ValueError(f"{fn}: opt.mode {mode} is not an mjtLRMode (0-3)")
    options = {k: getattr(opt, k) for k in DEFAULTS}
    options["mode"] = MODES[mode]
    set_length_range(m, i, options, error=FatalError)


def mj_addContact(m, d, con):
    """Append the contact ``con`` (an MjContact) to d.contact; 0 when added, 1 when the
    contact arrays are full (the mjWARN_CONTACTFULL warning is counted, as in MuJoCo)."""
    from . import argcheck
    from .data import CONTACT_FIELDS, MjContact
    from .enums import mjtWarning
    fn = "mj_addContact"
    argcheck.pair(m, d, fn)
    if not isinstance(con, MjContact):
        raise TypeError(f"{fn}: con must be an MjContact, got {type(con).__name__}")
    views = d.__dict__["_arena"].views
    n = int(views["ncon"][0])
    if n >= views["contact_dist"].shape[0]:
        w = d.warning[int(mjtWarning.mjWARN_CONTACTFULL)]
        w.number += 1
        w.lastinfo = n
        return 1
    for k in CONTACT_FIELDS:
        views["contact_" + k][n] = np.asarray(getattr(con, k)).reshape(
            views["contact_" + k][n].shape)
    views["ncon"][0] = n + 1
    return 0
