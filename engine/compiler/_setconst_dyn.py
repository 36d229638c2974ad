"""The qpos0 constants of mj_setConst (seed 001), computed with the engine's own position stage.

Compile-time and numpy-level: it runs once per model. Inverse-inertia quantities are solves
through the sparse factorisation of the joint-space inertia at qpos0 (never a dense inverse:
models with thousands of dofs, e.g. replicated free bodies, stay fast).
"""
from __future__ import annotations

import math

import numpy as np


def _position_data(m, MjData):
    """An MjData of ``m`` for the position stage only: room for one contact and one constraint
    row (the stage uses none), so that allocating and resetting it costs little (a default
    arena is sized for hundreds of contacts: resetting it was half of a warm compile's
    constants)."""
    saved = m.__dict__.get("narena", -1)
    m.__dict__["narena"] = 1
    try:
        return MjData(m)
    finally:
        m.__dict__["narena"] = saved


def set_const_dynamic(m, c=None):
    """Fill dof_M0, tendon_length0, actuator_length0, the invweight0 fields, actuator_acc0, the
    default tendon spring lengths, and apply dampratio / springdamper conversions.

    ``c`` is the compiler when called at compile time; None for mj_setConst on a compiled
    model, which (as MuJoCo 4.0.0 does, measured) keeps m.stat, recomputes dof_length and the
    subtree masses and the elements' sameframe flags from the model as edited, and has no
    dampratio / springdamper left to convert (the compiled values are the converted ones)."""
    from ..data import MjData
    from ..smooth import fwd_position_smooth
    from ..support import mj_jacBodyCom, mj_solveM

    if c is None:
        _set_frames(m)      # first: the position stage's subtree coms use body_subtreemass
    d = _position_data(m, MjData)
    d.qpos[:] = m.qpos0
    # mj_crb takes simple dofs' diagonal from dof_M0 itself: compute M at qpos0 in full (no dof
    # simple) to find it, as MuJoCo's mj_setM0 does, then restore dof_simplenum
    simple = m.dof_simplenum.copy()
    m.dof_simplenum[:] = 0
    try:
        fwd_position_smooth(m._A, d._A)
    finally:
        m.dof_simplenum[:] = simple
    nv = m.nv
    Mdiag = d.qM[m.dof_Madr] if nv else np.zeros(0)
    # dof_M0 is mj_crb's diagonal (body inertia and dof armature): without the tendons'
    # armature J' a J, which qM holds (MuJoCo 4.0.0, measured)
    m.dof_M0[:] = Mdiag - (m.tendon_armature[:, None] * d.ten_J ** 2).sum(axis=0) \
        if m.ntendon and nv else Mdiag
    if c is not None:
        _set_stat(m, d, Mdiag, c.spec.statistic)
    else:
        _set_dof_length(m, d)

    def inv_quadratic(J):
        """J inv(M) J' for the rows of J (k x nv)."""
        X = np.zeros_like(J)
        mj_solveM(m, d, X, J)
        return J @ X.T

    _equality_poses(m, d)
    _camlight0(m, d)
    m.tendon_length0[:] = d.ten_length
    m.actuator_length0[:] = d.actuator_length
    # springlength -1 -1: the spring rests at the length the tendon has at qpos_spring (the
    # joints' springref pose; MuJoCo 4.0.0, measured: not qpos0)
    auto = [t for t in range(m.ntendon)
            if m.tendon_lengthspring[t, 0] == -1 and m.tendon_lengthspring[t, 1] == -1]
    if auto:
        ds = _position_data(m, MjData)
        ds.qpos[:] = m.qpos_spring
        fwd_position_smooth(m._A, ds._A)
        for t in auto:
            m.tendon_lengthspring[t] = ds.ten_length[t]
    if not nv:
        return
    # dof_invweight0: per joint, the mean of M^-1's diagonal over its translational and
    # rotational dofs separately
    for j in range(m.njnt):
        a, t = m.jnt_dofadr[j], m.jnt_type[j]
        n = {0: 6, 1: 3}.get(int(t), 1)
        E = np.zeros((n, nv))
        E[np.arange(n), a + np.arange(n)] = 1.0
        diag = np.diag(inv_quadratic(E))
        if t == 0:
            m.dof_invweight0[a:a + 3] = diag[:3].mean()
            m.dof_invweight0[a + 3:a + 6] = diag[3:].mean()
        else:
            m.dof_invweight0[a:a + n] = diag.mean()
    # body_invweight0: mean translational and rotational inverse inertia seen at the body's com
    jacp, jacr = np.zeros((3, nv)), np.zeros((3, nv))
    for b in range(1, m.nbody):
        if m.body_weldid[b] == 0:
            continue
        mj_jacBodyCom(m, d, jacp, jacr, b)
        tp = np.trace(inv_quadratic(jacp)) / 3
        tr = np.trace(inv_quadratic(jacr)) / 3
        m.body_invweight0[b] = (tp, tr)
    # slider-only "simple" bodies have a diagonal inertia block: MuJoCo takes 1/mass directly
    # (ignoring armature) for the body and for its dofs
    for b in np.flatnonzero(m.body_simple == 2):
        if b == 0 or m.body_mass[b] <= 0:
            continue
        m.body_invweight0[b] = (1.0 / m.body_mass[b], 0.0)
        a, n = m.body_dofadr[b], m.body_dofnum[b]
        m.dof_invweight0[a:a + n] = 1.0 / m.body_mass[b]
    for t in range(m.ntendon):
        m.tendon_invweight0[t] = inv_quadratic(d.ten_J[t][None])[0, 0]
    for u in range(m.nu):
        mom = d.actuator_moment[u][None]
        acc = np.zeros_like(mom)
        mj_solveM(m, d, acc, mom)
        m.actuator_acc0[u] = np.linalg.norm(acc)
        # position/intvelocity dampratio (stored positive in biasprm[2]): kv from the inertia the
        # actuator sees, kv = 2 dampratio sqrt(kp * mass)
        if m.actuator_biastype[u] == 1 and m.actuator_biasprm[u, 2] > 0:
            w = float(mom[0] @ acc[0])
            if w > 0:
                mass = 1.0 / w
                kp = m.actuator_gainprm[u, 0]
                # a negative kp (gainprm[0]; a velocity actuator's negative kv) leaves
                # biasprm[2] as written (mujoco 4.0.0, measured: velocity kv=-1 keeps 1)
                if kp * mass >= 0:
                    m.actuator_biasprm[u, 2] = -2 * m.actuator_biasprm[u, 2] * math.sqrt(kp * mass)
    # joint springdamper (timeconst, dampratio): stiffness and damping of the mass-spring-damper
    for j, el in enumerate(c.joints if c is not None else ()):
        tc, zeta = getattr(el, "_springdamper", (0.0, 0.0))
        if tc > 0 and zeta > 0:
            # as solref's (timeconst, dampratio) for the dof's effective mass m =
            # 1 / dof_invweight0: k = m / (tc zeta)^2, b = 2 m / tc (MuJoCo 4.0.0, measured)
            a = m.jnt_dofadr[j]
            mass = 1.0 / m.dof_invweight0[a]
            m.jnt_stiffness[j] = mass / (tc * zeta) ** 2
            n = {0: 6, 1: 3}.get(int(m.jnt_type[j]), 1)  # every dof of a ball joint
            m.dof_damping[a:a + n] = 2 * mass / tc


def _equality_poses(m, d):
    """Body connect: the anchor seen from body2 at qpos0 (data[3:6]). Body weld without relpose
    (flag data[11]): body2's anchor point and orientation relative to body1 at qpos0."""
    from .frames import quat2mat, quat_conj, quat_mul
    for e in range(m.neq):
        if m.eq_objtype[e] != 1:  # mjOBJ_BODY
            continue
        b1, b2 = int(m.eq_obj1id[e]), int(m.eq_obj2id[e])
        p1, R1, q1 = d.xpos[b1], quat2mat(d.xquat[b1]), d.xquat[b1]
        p2, R2, q2 = d.xpos[b2], quat2mat(d.xquat[b2]), d.xquat[b2]
        anchor = m.eq_data[e, :3]
        if m.eq_type[e] == 0:
            m.eq_data[e, 3:6] = R2.T @ (p1 + R1 @ anchor - p2)
        elif m.eq_type[e] == 1 and m.eq_data[e, 11] == 1:
            m.eq_data[e, 3:6] = R1.T @ (p2 + R2 @ anchor - p1)
            m.eq_data[e, 6:10] = quat_mul(quat_conj(q1), q2)


def _camlight0(m, d):
    """Camera / light poses at qpos0 that the tracking modes keep (seed 000 <camera mode>):
    cam_pos0 / light_pos0 from the body, cam_poscom0 / light_poscom0 from the subtree com
    (of the target body when there is one), cam_mat0 / light_dir0; computed, as MuJoCo does,
    with every camera and light in mode "fixed"."""
    from ..smooth import mj_camlight
    if not m.ncam and not m.nlight:
        return
    cmode, lmode = m.cam_mode.copy(), m.light_mode.copy()
    m.cam_mode[:] = 0
    m.light_mode[:] = 0
    try:
        mj_camlight(m, d)
    finally:
        m.cam_mode[:], m.light_mode[:] = cmode, lmode
    for bodyid, target, xpos, pos0, poscom0 in (
            (m.cam_bodyid, m.cam_targetbodyid, d.cam_xpos, m.cam_pos0, m.cam_poscom0),
            (m.light_bodyid, m.light_targetbodyid, d.light_xpos, m.light_pos0, m.light_poscom0)):
        for i in range(len(bodyid)):
            b, t = int(bodyid[i]), int(target[i])
            pos0[i] = xpos[i] - d.xpos[b]
            poscom0[i] = xpos[i] - d.subtree_com[t if t >= 0 else b]
    m.cam_mat0[:] = d.cam_xmat
    m.light_dir0[:] = d.light_xdir


def _dist3(a, b):
    return math.sqrt((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2)


def _body_sizes(m, d):
    """Length of each body at qpos0 (MuJoCo's setStat heuristic): the largest distance from its
    centre of mass to the anchor of one of its own or its children's joints, or to the far
    side of one of its geoms' bounding spheres; at least 1e-5 (the world: 0)."""
    size = np.zeros(m.nbody)
    for j in range(m.njnt):
        b = int(m.jnt_bodyid[j])
        for k in (b, int(m.body_parentid[b])):
            size[k] = max(size[k], _dist3(d.xipos[k], d.xanchor[j]))
    size[0] = 0.0
    for b in range(1, m.nbody):
        for g in range(m.body_geomadr[b], m.body_geomadr[b] + m.body_geomnum[b]):
            if m.geom_rbound[g] > 0:
                size[b] = max(size[b], m.geom_rbound[g] + _dist3(d.xipos[b], d.geom_xpos[g]))
    size[1:] = np.maximum(size[1:], 1e-5)
    return size


def _geom_box_radius(m, g):
    """Radius a geom adds to the model's bounding box: its bounding sphere, or for a plane a
    tenth of its larger half-size (0.01 when infinite), for a height field a tenth of its
    largest size parameter."""
    if m.geom_rbound[g] > 0:
        return float(m.geom_rbound[g])
    if m.geom_type[g] == 0:  # plane
        sx, sy = m.geom_size[g, 0], m.geom_size[g, 1]
        return max(sx, sy) * 0.1 if (sx or sy) else 0.01
    if m.geom_type[g] == 1:  # hfield
        return float(m.hfield_size[m.geom_dataid[g]].max()) * 0.1
    return 0.0


def _set_stat(m, d, Mdiag, user):
    """mjModel.stat (seed 000 <statistic>; MuJoCo's setStat) at qpos0, then dof_length.

    center and extent: the centre and the largest side of the bounding box of the bodies' frames
    and centres of mass, the joint anchors, the sites and the geoms (each grown by
    _geom_box_radius); extent at least 1e-5 and at least 2 meansize. meansize: the mean body
    length (_body_sizes); meanmass: the mean body mass; meaninertia: the mean diagonal of the
    joint-space inertia (the solvers' scale). Without bodies / dofs the defaults stay (center 0,
    extent 2, meansize 0.2, meanmass 1, meaninertia 1). Values given in <statistic> replace the
    computed ones (dof_length keeps the computed body lengths)."""
    m.stat_center[:] = 0.0
    m.stat_extent[:], m.stat_meansize[:], m.stat_meanmass[:], m.stat_meaninertia[:] = 2, .2, 1, 1
    pts = [d.xpos[1:], d.xipos[1:], d.xanchor, d.site_xpos]
    rad = [np.zeros(m.nbody - 1), np.zeros(m.nbody - 1), np.zeros(m.njnt), np.zeros(m.nsite)]
    pts.append(d.geom_xpos)
    rad.append(np.array([_geom_box_radius(m, g) for g in range(m.ngeom)]))
    p = np.concatenate([np.asarray(x, float).reshape(-1, 3) for x in pts])
    r = np.concatenate(rad)
    if len(p):
        lo, hi = (p - r[:, None]).min(axis=0), (p + r[:, None]).max(axis=0)
        m.stat_center[:] = 0.5 * (lo + hi)
        if hi[0] > lo[0]:
            m.stat_extent[:] = max(1e-5, (hi - lo).max())
    size = _set_dof_length(m, d)
    if m.nbody > 1:
        m.stat_meansize[:] = size[1:].mean()
        m.stat_meanmass[:] = m.body_mass[1:].mean()
    m.stat_extent[:] = max(float(m.stat_extent[0]), 2 * float(m.stat_meansize[0]))
    if m.nv:
        m.stat_meaninertia[:] = Mdiag.mean()
    for key, val in user.items():
        if val is not None:
            getattr(m, "stat_" + key)[:] = val


def _set_dof_length(m, d):
    """dof_length: the body length (_body_sizes) for rotational dofs, 1 for translational ones;
    returns the body lengths."""
    size = _body_sizes(m, d)
    for k in range(m.nv):
        j = int(m.dof_jntid[k])
        t = int(m.jnt_type[j])
        rot = t in (1, 3) or (t == 0 and k - m.jnt_dofadr[j] >= 3)
        m.dof_length[k] = size[m.dof_bodyid[k]] if rot else 1.0
    return size


def _set_frames(m):
    """body_subtreemass from body_mass, and the geoms' and sites' sameframe flags from their
    local poses and their bodies' inertial frames (what mj_setConst refreshes after edits)."""
    from .builder import sameframe
    sub = m.body_mass.copy()
    for b in range(m.nbody - 1, 0, -1):
        sub[m.body_parentid[b]] += sub[b]
    m.body_subtreemass[:] = sub
    for pos, quat, body, same in ((m.geom_pos, m.geom_quat, m.geom_bodyid, m.geom_sameframe),
                                  (m.site_pos, m.site_quat, m.site_bodyid, m.site_sameframe)):
        for i in range(len(body)):
            b = int(body[i])
            same[i] = sameframe(pos[i], quat[i], m.body_ipos[b], m.body_iquat[b])
