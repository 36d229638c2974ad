"""Smooth dynamics, position and velocity stages (seed 001, "forward dynamics": mj_fwdPosition and
mj_fwdVelocity, the parts that involve no constraints): kinematics, com-based quantities, cameras
and lights, tendons (lengths and wrapping: engine/tendon.py), actuator transmissions, the
joint-space inertia and its factorisation, com velocities and the recursive Newton-Euler bias
forces.

Layout of this module, as the rest of the engine:
  (a) pure kernels over explicit arrays, parameters under ``# Model:`` / ``# Data in:`` /
      ``# Data out:``;
  (b) njit stage functions ``kinematics(M, D)`` ... that unpack the arenas and call (a);
  (c) Python wrappers ``mj_kinematics(m, d)`` ... with the official bindings' names.

Frames: ``x*`` fields are global; ``c*`` spatial vectors are (rotation, translation) at the centre of
mass of the body's kinematic tree (``subtree_com[body_rootid]``), see engine/math.py.
Tree recursions run over bodies in index order: parents come before their children.
"""
from __future__ import annotations

import math

import numpy as np

from . import argcheck
from .enums import mjtWarning
from . import math as mm
from .flex import flex, flex_velocity
from .tendon import tendon
from .support import add_point_jac_dot, add_wrench_jac_dot, last_dof
from ._access import f1, f2, i1, i2, is_, u1
from ._layout import DF, MF
from .constraint import FRICTION_TENDON as _FRICTION_TENDON, LIMIT_TENDON as _LIMIT_TENDON
from .constraint import contact_force, contact_jac, eq_anchors
from . import sleep
from .sleep import S_ASLEEP, S_AWAKE, S_STATIC

from ._jit import kernel

from .enums import mjJNT_FREE as FREE, mjJNT_BALL as BALL, mjJNT_SLIDE as SLIDE, mjJNT_HINGE as HINGE  # noqa
from .enums import (mjSAMEFRAME_BODY as SAME_BODY,  # noqa
                    mjSAMEFRAME_INERTIA as SAME_INERTIA, mjSAMEFRAME_BODYROT as SAME_BODYROT,
                    mjSAMEFRAME_INERTIAROT as SAME_INERTIAROT)
from .enums import (mjCAMLIGHT_TRACK as CAM_TRACK,  # noqa
                    mjCAMLIGHT_TRACKCOM as CAM_TRACKCOM, mjCAMLIGHT_TARGETBODY as CAM_TARGETBODY,
                    mjCAMLIGHT_TARGETBODYCOM as CAM_TARGETBODYCOM)
from .enums import (mjTRN_JOINT as TRN_JOINT, mjTRN_JOINTINPARENT as TRN_JOINTINPARENT,  # noqa
                    mjTRN_SLIDERCRANK as TRN_SLIDERCRANK, mjTRN_TENDON as TRN_TENDON,
                    mjTRN_SITE as TRN_SITE, mjTRN_BODY as TRN_BODY)
from .enums import (mjDSBL_GRAVITY as DSBL_GRAVITY, mjDSBL_SPRING as DSBL_SPRING,  # noqa
                    mjDSBL_DAMPER as DSBL_DAMPER)
from .enums import mjMINVAL  # noqa: E402
_WARN_INERTIA = int(mjtWarning.mjWARN_INERTIA)


# =================================================================================================
# position: kinematics
# =================================================================================================
@kernel
def kinematics_bodies(
    # Model:
    body_parentid, body_mocapid, body_jntnum, body_jntadr, body_pos, body_quat, body_ipos,
    body_iquat, body_sameframe, jnt_type, jnt_qposadr, jnt_pos, jnt_axis, qpos0, body_treeid,
    # Data in:
    qpos, mocap_pos, mocap_quat, body_awake, sleep_filter,
    # Data out:
    xpos, xquat, xmat, xipos, ximat, xiquat, xanchor, xaxis, tree_awake,
):
    """Global poses of bodies, their inertial frames, joint anchors and axes (mj_kinematics).

    Joint positions are applied in the body's joint order; hinge and slide displacements are
    measured from qpos0, ball and free quaternions are normalised (qpos itself is not changed).
    The operations and their order are mujoco 4.0.0's (joint axes and anchors by mju_rotVecQuat,
    the inertial frame as mj_local2Global: a copy of the body's frame when the compiler found them
    the same, else the product quaternion, not normalised), so that the poses equal mujoco's bit
    for bit on the same model.

    With ``sleep_filter`` (sleep enabled; seed 001 "Sleeping islands"): static bodies keep the
    poses computed at reset, and a sleeping body with joints keeps its stored pose when the
    new one is bitwise the same; otherwise its tree is marked (tree_awake = 1) to be woken.
    """
    nbody = body_parentid.shape[0]
    mm.set3(xpos[0], (0.0, 0.0, 0.0))
    mm.set4(xquat[0], (1.0, 0.0, 0.0, 0.0))
    mm.set9(xmat[0], (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0))
    mm.set3(xipos[0], (0.0, 0.0, 0.0))
    mm.set4(xiquat[0], (1.0, 0.0, 0.0, 0.0))
    mm.set9(ximat[0], (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0))
    for i in range(1, nbody):
        if sleep_filter and body_awake[i] == S_STATIC:
            continue
        p = body_parentid[i]
        jadr = body_jntadr[i]
        jnum = body_jntnum[i]
        if jnum > 0 and jnt_type[jadr] == FREE:
            # a free joint replaces the body's offset: qpos is the global pose
            qa = jnt_qposadr[jadr]
            pos = (qpos[qa], qpos[qa + 1], qpos[qa + 2])
            quat = mm.quat_normalize((qpos[qa + 3], qpos[qa + 4], qpos[qa + 5], qpos[qa + 6]))
            mm.set3(xanchor[jadr], pos)
            mm.set3(xaxis[jadr], jnt_axis[jadr])
        else:
            mid = body_mocapid[i]
            if mid >= 0:
                # mocap bodies are children of the world: the user's pose is the global pose
                pos = mm.get3(mocap_pos[mid])
                quat = mm.quat_normalize(mocap_quat[mid])
            elif p == 0:
                pos = mm.get3(body_pos[i])
                quat = mm.get4(body_quat[i])
            else:
                pos = mm.add3(mm.mat_vec(xmat[p], body_pos[i]), xpos[p])
                quat = mm.quat_mul(xquat[p], body_quat[i])
            for j in range(jadr, jadr + jnum):
                qa = jnt_qposadr[j]
                t = jnt_type[j]
                jax = mm.get3(jnt_axis[j])
                jp = mm.get3(jnt_pos[j])
                # a joint at the body origin (the usual case) needs no offset rotation:
                # mujoco's R*0 + pos and pos - R*0 are pos exactly
                offset = jp[0] != 0.0 or jp[1] != 0.0 or jp[2] != 0.0
                axis = mm.rot_vec_quat(jax, quat)
                anchor = mm.add3(mm.rot_vec_quat(jp, quat), pos) if offset else pos
                mm.set3(xaxis[j], axis)
                mm.set3(xanchor[j], anchor)
                if t == SLIDE:
                    pos = mm.add_scl3(pos, axis, qpos[qa] - qpos0[qa])
                else:
                    if t == BALL:
                        qloc = mm.quat_normalize(
                            (qpos[qa], qpos[qa + 1], qpos[qa + 2], qpos[qa + 3]))
                    else:  # hinge
                        qloc = mm.axis_angle2quat(jax, qpos[qa] - qpos0[qa])
                    quat = mm.quat_mul(quat, qloc)
                    # the rotation is about the anchor, not the body origin
                    if offset:
                        pos = mm.sub3(anchor, mm.rot_vec_quat(jp, quat))
        quat = mm.quat_normalize(quat)
        if sleep_filter and body_jntnum[i] > 0 and body_awake[i] == S_ASLEEP:
            old = xpos[i]
            oq = xquat[i]
            if (pos[0] == old[0] and pos[1] == old[1] and pos[2] == old[2] and quat[0] == oq[0]
                    and quat[1] == oq[1] and quat[2] == oq[2] and quat[3] == oq[3]):
                continue
            tree_awake[body_treeid[i]] = 1     # moved by the user: mj_wake wakes its island
        mat = mm.quat2mat(quat)
        mm.set3(xpos[i], pos)
        mm.set4(xquat[i], quat)
        mm.set9(xmat[i], mat)
        # inertial frame
        sf = body_sameframe[i]
        if sf == SAME_BODY:
            mm.set3(xipos[i], pos)
        else:
            mm.set3(xipos[i], mm.add3(mm.mat_vec(mat, body_ipos[i]), pos))
        if sf == SAME_BODY or sf == SAME_BODYROT:
            mm.set4(xiquat[i], quat)
            mm.set9(ximat[i], mat)
        else:
            iq = mm.quat_mul(quat, body_iquat[i])
            mm.set4(xiquat[i], iq)
            mm.set9(ximat[i], mm.quat2mat(iq))


@kernel
def local_to_global(
    # Model:
    obj_bodyid, obj_pos, obj_quat, obj_sameframe,
    # Data in:
    xpos, xquat, xmat, xipos, xiquat, ximat, body_awake, sleep_filter,
    # Data out:
    obj_xpos, obj_xmat, obj_xquat,
):
    """Global poses of objects fixed to bodies (geoms, sites): mj_local2Global for each; with
    ``sleep_filter`` only those of awake bodies (the others keep their poses)."""
    for k in range(obj_bodyid.shape[0]):
        b = obj_bodyid[k]
        if sleep_filter and body_awake[b] != S_AWAKE:
            continue
        sf = obj_sameframe[k]
        if sf == SAME_BODY:
            mm.set3(obj_xpos[k], xpos[b])
            mm.set9(obj_xmat[k], xmat[b])
            mm.set4(obj_xquat[k], xquat[b])
        elif sf == SAME_INERTIA:
            mm.set3(obj_xpos[k], xipos[b])
            mm.set9(obj_xmat[k], ximat[b])
            mm.set4(obj_xquat[k], xiquat[b])
        else:
            mm.set3(obj_xpos[k], mm.add3(mm.mat_vec(xmat[b], obj_pos[k]), xpos[b]))
            if sf == SAME_BODYROT:
                mm.set9(obj_xmat[k], xmat[b])
                mm.set4(obj_xquat[k], xquat[b])
            elif sf == SAME_INERTIAROT:
                mm.set9(obj_xmat[k], ximat[b])
                mm.set4(obj_xquat[k], xiquat[b])
            else:
                # not normalised: mujoco's frame quaternion is the bare product
                q = mm.quat_mul(xquat[b], obj_quat[k])
                mm.set4(obj_xquat[k], q)
                mm.set9(obj_xmat[k], mm.quat2mat(q))


@kernel
def kinematics(M, D):
    """mj_kinematics: body, inertial-frame, joint, geom and site poses from qpos and mocap.
    Between the bodies and the geoms and sites, sleeping trees the user moved, set moving or
    pushed are woken (mj_wake; see engine.sleep)."""
    filt = sleep.enabled(M)
    body_awake = i1(D, DF.body_awake)
    kinematics_bodies(
        i1(M, MF.body_parentid), i1(M, MF.body_mocapid), i1(M, MF.body_jntnum),
        i1(M, MF.body_jntadr), f2(M, MF.body_pos), f2(M, MF.body_quat), f2(M, MF.body_ipos),
        f2(M, MF.body_iquat), u1(M, MF.body_sameframe), i1(M, MF.jnt_type), i1(M, MF.jnt_qposadr), f2(M, MF.jnt_pos),
        f2(M, MF.jnt_axis), f1(M, MF.qpos0), i1(M, MF.body_treeid),
        f1(D, DF.qpos), f2(D, DF.mocap_pos), f2(D, DF.mocap_quat), body_awake, filt,
        f2(D, DF.xpos), f2(D, DF.xquat), f2(D, DF.xmat), f2(D, DF.xipos), f2(D, DF.ximat),
        f2(D, DF.xiquat), f2(D, DF.xanchor), f2(D, DF.xaxis), i1(D, DF.tree_awake))
    if sleep.wake(M, D):
        sleep.update_sleep(M, D, False)
    xpos, xquat, xmat = f2(D, DF.xpos), f2(D, DF.xquat), f2(D, DF.xmat)
    xipos, xiquat, ximat = f2(D, DF.xipos), f2(D, DF.xiquat), f2(D, DF.ximat)
    local_to_global(i1(M, MF.geom_bodyid), f2(M, MF.geom_pos), f2(M, MF.geom_quat),
                    u1(M, MF.geom_sameframe), xpos, xquat, xmat, xipos, xiquat, ximat,
                    body_awake, filt, f2(D, DF.geom_xpos), f2(D, DF.geom_xmat),
                    f2(D, DF.geom_xquat))
    local_to_global(i1(M, MF.site_bodyid), f2(M, MF.site_pos), f2(M, MF.site_quat),
                    u1(M, MF.site_sameframe), xpos, xquat, xmat, xipos, xiquat, ximat,
                    body_awake, filt, f2(D, DF.site_xpos), f2(D, DF.site_xmat),
                    f2(D, DF.site_xquat))


# =================================================================================================
# position: com-based quantities
# =================================================================================================
@kernel
def com_pos_kernel(
    # Model:
    body_parentid, body_rootid, body_mass, body_subtreemass, body_inertia, body_jntnum,
    body_jntadr, jnt_type, jnt_dofadr,
    # Data in:
    xpos, xmat, xipos, ximat, xanchor, xaxis,
    # Data out:
    subtree_com, cinert, cdof,
):
    """mj_comPos: subtree centres of mass, com-based body inertias and joint motion axes.

    ``cinert[i]`` is body i's spatial inertia about ``subtree_com[body_rootid[i]]`` (world axes);
    ``cdof[k]`` the unit motion of dof k at that point: for free joints the three world
    translations then rotations about the body's axes, for ball joints rotations about the body's
    axes through the anchor, hinge rotation about xaxis through xanchor, slide translation.
    """
    nbody = body_parentid.shape[0]
    for i in range(nbody):
        mm.set3(subtree_com[i], mm.scl3(xipos[i], body_mass[i]))
    for i in range(nbody - 1, 0, -1):
        p = body_parentid[i]
        mm.set3(subtree_com[p], mm.add3(subtree_com[p], subtree_com[i]))
    for i in range(nbody):
        if body_subtreemass[i] < mjMINVAL:
            mm.set3(subtree_com[i], xipos[i])
        else:
            mm.set3(subtree_com[i], mm.scl3(subtree_com[i], 1.0 / body_subtreemass[i]))

    for k in range(10):
        cinert[0, k] = 0.0
    for i in range(1, nbody):
        com = subtree_com[body_rootid[i]]
        mm.set10(cinert[i], mm.inert_com(body_inertia[i], ximat[i], mm.sub3(xipos[i], com),
                                         body_mass[i]))
        for j in range(body_jntadr[i], body_jntadr[i] + body_jntnum[i]):
            da = jnt_dofadr[j]
            t = jnt_type[j]
            if t == FREE:
                for k in range(3):
                    e = (1.0 if k == 0 else 0.0, 1.0 if k == 1 else 0.0, 1.0 if k == 2 else 0.0)
                    mm.set6(cdof[da + k], (0.0, 0.0, 0.0, e[0], e[1], e[2]))
                off = mm.sub3(xanchor[j], com)
                for k in range(3):
                    ax = (xmat[i, k], xmat[i, 3 + k], xmat[i, 6 + k])
                    mm.set6(cdof[da + 3 + k], mm.dof_com(ax, off))
            elif t == BALL:
                off = mm.sub3(xanchor[j], com)
                for k in range(3):
                    ax = (xmat[i, k], xmat[i, 3 + k], xmat[i, 6 + k])
                    mm.set6(cdof[da + k], mm.dof_com(ax, off))
            elif t == SLIDE:
                mm.set6(cdof[da], (0.0, 0.0, 0.0, xaxis[j, 0], xaxis[j, 1], xaxis[j, 2]))
            else:
                mm.set6(cdof[da], mm.dof_com(xaxis[j], mm.sub3(xanchor[j], com)))


@kernel
def com_pos(M, D):
    """mj_comPos stage."""
    com_pos_kernel(
        i1(M, MF.body_parentid), i1(M, MF.body_rootid), f1(M, MF.body_mass),
        f1(M, MF.body_subtreemass), f2(M, MF.body_inertia), i1(M, MF.body_jntnum),
        i1(M, MF.body_jntadr), i1(M, MF.jnt_type), i1(M, MF.jnt_dofadr),
        f2(D, DF.xpos), f2(D, DF.xmat), f2(D, DF.xipos), f2(D, DF.ximat), f2(D, DF.xanchor),
        f2(D, DF.xaxis),
        f2(D, DF.subtree_com), f2(D, DF.cinert), f2(D, DF.cdof))


# =================================================================================================
# position: cameras and lights
# =================================================================================================
@kernel
def _look_at(pos, target):
    """Camera frame (row-major 9-tuple, columns x y z) at pos whose -z looks at target, x level."""
    z, _ = mm.normalize3(mm.sub3(pos, target))
    x, _ = mm.normalize3(mm.cross3((0.0, 0.0, 1.0), z))
    y, _ = mm.normalize3(mm.cross3(z, x))
    return (x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2])


@kernel
def camlight_kernel(
    # Model:
    cam_mode, cam_bodyid, cam_targetbodyid, cam_pos, cam_quat, cam_poscom0, cam_pos0, cam_mat0,
    light_mode, light_bodyid, light_targetbodyid, light_pos, light_dir, light_poscom0,
    light_pos0, light_dir0,
    # Data in:
    xpos, xquat, xmat, subtree_com,
    # Data out:
    cam_xpos, cam_xmat, light_xpos, light_xdir,
):
    """mj_camlight: camera and light poses for the modes fixed, track, trackcom, targetbody,
    targetbodycom (seed 000 ``<camera mode>``)."""
    for c in range(cam_mode.shape[0]):
        b = cam_bodyid[c]
        mode = cam_mode[c]
        # mj_local2Global: the product quaternion is not normalised
        pos = mm.add3(mm.mat_vec(xmat[b], cam_pos[c]), xpos[b])
        mat = mm.quat2mat(mm.quat_mul(xquat[b], cam_quat[c]))
        if mode == CAM_TRACK:
            mat = mm.get9(cam_mat0[c])
            pos = mm.add3(xpos[b], cam_pos0[c])
        elif mode == CAM_TRACKCOM:
            mat = mm.get9(cam_mat0[c])
            pos = mm.add3(subtree_com[b], cam_poscom0[c])
        elif mode == CAM_TARGETBODY or mode == CAM_TARGETBODYCOM:
            t = cam_targetbodyid[c]
            if t >= 0:
                tgt = mm.get3(xpos[t]) if mode == CAM_TARGETBODY else mm.get3(subtree_com[t])
                mat = _look_at(pos, tgt)
        mm.set3(cam_xpos[c], pos)
        mm.set9(cam_xmat[c], mat)
    for g in range(light_mode.shape[0]):
        b = light_bodyid[g]
        mode = light_mode[g]
        pos = mm.add3(mm.mat_vec(xmat[b], light_pos[g]), xpos[b])
        dr = mm.rot_vec_quat(light_dir[g], xquat[b])
        if mode == CAM_TRACK:
            pos = mm.add3(xpos[b], light_pos0[g])
            dr = mm.get3(light_dir0[g])
        elif mode == CAM_TRACKCOM:
            pos = mm.add3(subtree_com[b], light_poscom0[g])
            dr = mm.get3(light_dir0[g])
        elif mode == CAM_TARGETBODY or mode == CAM_TARGETBODYCOM:
            t = light_targetbodyid[g]
            if t >= 0:
                tgt = mm.get3(xpos[t]) if mode == CAM_TARGETBODY else mm.get3(subtree_com[t])
                dr = mm.sub3(tgt, pos)
        dr, _ = mm.normalize3(dr)
        mm.set3(light_xpos[g], pos)
        mm.set3(light_xdir[g], dr)


@kernel
def camlight(M, D):
    """mj_camlight stage."""
    if i1(M, MF.cam_mode).shape[0] == 0 and i1(M, MF.light_mode).shape[0] == 0:
        return
    camlight_kernel(
        i1(M, MF.cam_mode), i1(M, MF.cam_bodyid), i1(M, MF.cam_targetbodyid), f2(M, MF.cam_pos),
        f2(M, MF.cam_quat), f2(M, MF.cam_poscom0), f2(M, MF.cam_pos0), f2(M, MF.cam_mat0),
        i1(M, MF.light_mode), i1(M, MF.light_bodyid), i1(M, MF.light_targetbodyid),
        f2(M, MF.light_pos), f2(M, MF.light_dir), f2(M, MF.light_poscom0), f2(M, MF.light_pos0),
        f2(M, MF.light_dir0),
        f2(D, DF.xpos), f2(D, DF.xquat), f2(D, DF.xmat), f2(D, DF.subtree_com),
        f2(D, DF.cam_xpos), f2(D, DF.cam_xmat), f2(D, DF.light_xpos), f2(D, DF.light_xdir))


# =================================================================================================
# position: joint-space inertia (composite rigid bodies) and its LTDL factorisation
# =================================================================================================
@kernel
def crb_kernel(
    # Model:
    body_parentid, dof_bodyid, dof_parentid, dof_Madr, dof_armature, dof_simplenum, dof_M0,
    # Data in:
    cinert, cdof,
    # Data out:
    crb, qM,
):
    """mj_crb: composite inertias ``crb`` (each body with its subtree, com frame) and the inertia
    matrix in MuJoCo's tree layout ``qM``: row i at dof_Madr[i] holds M[i,i] then M[i,j] for the
    ancestors j of dof i, nearest first. Dof armature is added to the diagonal.

    Dofs of simple bodies (dof_simplenum > 0: a body whose inertia frame is its joint frame, so
    its block of M is diagonal and constant) take their diagonal from dof_M0 (M's diagonal at
    qpos0, armature included) and zeros off it, as MuJoCo's mj_crb does: no composite-inertia
    product for them (humanoid100: 600 of its 627 dofs)."""
    nbody = body_parentid.shape[0]
    for i in range(nbody):
        for k in range(10):
            crb[i, k] = cinert[i, k]
    for i in range(nbody - 1, 0, -1):
        p = body_parentid[i]
        if p > 0:
            for k in range(10):
                crb[p, k] += crb[i, k]
    # simple dofs' entries off the diagonal are zeros: clear all once (a contiguous fill)
    qM[:] = 0.0
    for i in range(dof_bodyid.shape[0]):
        adr = dof_Madr[i]
        if dof_simplenum[i]:
            qM[adr] = dof_M0[i]
            continue
        f = mm.mul_inert_vec(crb[dof_bodyid[i]], cdof[i])
        j = i
        while j >= 0:
            qM[adr] = mm.dot6(cdof[j], f)
            adr += 1
            j = dof_parentid[j]
        qM[dof_Madr[i]] += dof_armature[i]


@kernel
def tendon_armature_kernel(
    # Model:
    tendon_armature, dof_parentid, dof_Madr,
    # Data in:
    ten_J,
    # Data out:
    qM,
):
    """Add sum_t armature_t * J_t' J_t to qM, restricted to qM's (tree) sparsity pattern."""
    nv = dof_parentid.shape[0]
    for t in range(tendon_armature.shape[0]):
        a = tendon_armature[t]
        if a == 0.0:
            continue
        for i in range(nv):
            ji = ten_J[t, i]
            if ji == 0.0:
                continue
            adr = dof_Madr[i]
            j = i
            while j >= 0:
                qM[adr] += a * ji * ten_J[t, j]
                adr += 1
                j = dof_parentid[j]


@kernel
def qm_to_csr(mapM2M, qM, M):
    """d.M (CSR rows M_rowadr/M_colind, lower triangle) from qM."""
    for k in range(mapM2M.shape[0]):
        M[k] = qM[mapM2M[k]]


@kernel
def actuator_armature_kernel(
    # Model:
    actuator_armature, actuator_trntype, actuator_trnid, actuator_gear, tendon_armature,
    jnt_type, jnt_dofadr, dof_Madr,
    # Data out:
    qM, tenarm,
):
    """Actuator armature (mujoco 4 <actuator armature>, measured on the oracle): an actuator
    on a joint adds armature*gear[0]^2 to the diagonal of each of the joint's dofs (all 3/6
    for ball/free, whatever gear[1:]); one on a tendon acts exactly like tendon armature
    armature*gear[0]^2, so ``tenarm`` (ntendon) = tendon_armature + those, and is what the
    tendon inertia term, its bias and mj_rnePostConstraint use. Not affected by disabled
    actuation or actuator groups."""
    for t in range(tenarm.shape[0]):
        tenarm[t] = tendon_armature[t]
    for a in range(actuator_armature.shape[0]):
        arm = actuator_armature[a]
        if arm == 0.0:
            continue
        arm *= actuator_gear[a, 0] * actuator_gear[a, 0]
        tt = actuator_trntype[a]
        if tt == TRN_JOINT or tt == TRN_JOINTINPARENT:
            j = actuator_trnid[a, 0]
            n = 6 if jnt_type[j] == 0 else (3 if jnt_type[j] == 1 else 1)
            for k in range(jnt_dofadr[j], jnt_dofadr[j] + n):
                qM[dof_Madr[k]] += arm
        elif tt == TRN_TENDON:
            tenarm[actuator_trnid[a, 0]] += arm


@kernel
def make_m(M, D):
    """mj_makeM: crb, qM (with dof, tendon and actuator armature) and its CSR copy d.M."""
    qM = f1(D, DF.qM)
    crb_kernel(i1(M, MF.body_parentid), i1(M, MF.dof_bodyid), i1(M, MF.dof_parentid),
               i1(M, MF.dof_Madr), f1(M, MF.dof_armature), i1(M, MF.dof_simplenum),
               f1(M, MF.dof_M0), f2(D, DF.cinert), f2(D, DF.cdof), f2(D, DF.crb), qM)
    tenarm = f1(D, DF.sm_tenarm)
    actuator_armature_kernel(f1(M, MF.actuator_armature), i1(M, MF.actuator_trntype),
                             i2(M, MF.actuator_trnid), f2(M, MF.actuator_gear),
                             f1(M, MF.tendon_armature), i1(M, MF.jnt_type),
                             i1(M, MF.jnt_dofadr), i1(M, MF.dof_Madr), qM, tenarm)
    tendon_armature_kernel(tenarm, i1(M, MF.dof_parentid), i1(M, MF.dof_Madr),
                           f2(D, DF.ten_J), qM)
    qm_to_csr(i1(M, MF.mapM2M), qM, f1(D, DF.M))


@kernel
def crb(M, D):
    """mj_crb stage (same as make_m: the inertia matrix including armature)."""
    make_m(M, D)


@kernel
def factor_m_kernel(
    # Model:
    M_rownnz, M_rowadr, M_colind,
    # Data in:
    Mcsr,
    # Data out:
    qLD, qLDiagInv,
):
    """mj_factorM: M = L' D L with L unit lower-triangular, in M's CSR layout: qLD holds L below
    the diagonal and D on it (each row ends with its diagonal), qLDiagInv = 1/D.

    Eliminates from the last dof up; row k's columns are dof k's ancestors, and the first p+1
    entries of row k are exactly row i's columns when i is the p-th ancestor column of row k, so
    every update stays inside the pattern (no fill-in for a tree).

    A pivot below mjMINVAL (a massless or inertia-less body, a singular M) is replaced by
    mjMINVAL, as MuJoCo's mj_factorI does, so the factor stays finite; returns (how many
    pivots were replaced, the lowest such dof or -1): the caller records mjWARN_INERTIA.
    """
    for k in range(Mcsr.shape[0]):
        qLD[k] = Mcsr[k]
    nv = M_rownnz.shape[0]
    nbad = 0
    lastbad = -1
    for k in range(nv - 1, -1, -1):
        adr = M_rowadr[k]
        nnz = M_rownnz[k]
        # row views: the inner update runs over two short contiguous slices (measured 35%
        # faster than indexing qLD with offsets); same operations in the same order
        row = qLD[adr:adr + nnz]
        if row[nnz - 1] < mjMINVAL:
            row[nnz - 1] = mjMINVAL
            nbad += 1
            lastbad = k
        invd = 1.0 / row[nnz - 1]
        for p in range(nnz - 2, -1, -1):
            i = M_colind[adr + p]
            a = row[p] * invd
            iadr = M_rowadr[i]
            dst = qLD[iadr:iadr + p + 1]
            for t in range(p + 1):
                dst[t] -= a * row[t]
        for p in range(nnz - 1):
            row[p] *= invd
    for k in range(nv):
        qLDiagInv[k] = 1.0 / qLD[M_rowadr[k] + M_rownnz[k] - 1]
    return nbad, lastbad


@kernel
def factor_m(M, D):
    """mj_factorM stage: qLD, qLDiagInv from d.M; a pivot below mjMINVAL counts
    mjWARN_INERTIA once per such dof, lastinfo the dof (seed 001 "Errors and warnings")."""
    nbad, lastbad = factor_m_kernel(i1(M, MF.M_rownnz), i1(M, MF.M_rowadr),
                                    i1(M, MF.M_colind), f1(D, DF.M), f1(D, DF.qLD),
                                    f1(D, DF.qLDiagInv))
    if nbad > 0:
        i1(D, DF.warning_number)[_WARN_INERTIA] += nbad
        i1(D, DF.warning_lastinfo)[_WARN_INERTIA] = lastbad


# =================================================================================================
# velocity: com velocities and bias forces
# =================================================================================================
@kernel
def com_vel_kernel(
    # Model:
    body_parentid, body_jntnum, body_jntadr, jnt_type, jnt_dofadr,
    # Data in:
    qvel, cdof,
    # Data out:
    cvel, cdof_dot,
):
    """mj_comVel: body spatial velocities ``cvel`` and ``cdof_dot`` = cvel(parent side) x cdof.

    A free joint's translations come first: their cdof_dot is zero, and its rotations see the
    velocity including the translation (as for the dofs of later joints in the same body)."""
    nbody = body_parentid.shape[0]
    for k in range(6):
        cvel[0, k] = 0.0
    for i in range(1, nbody):
        v = mm.get6(cvel[body_parentid[i]])
        for j in range(body_jntadr[i], body_jntadr[i] + body_jntnum[i]):
            da = jnt_dofadr[j]
            t = jnt_type[j]
            if t == FREE:
                for k in range(3):
                    mm.set6(cdof_dot[da + k], (0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
                for k in range(3):
                    v = mm.add_scl6(v, cdof[da + k], qvel[da + k])
                da += 3
            if t == FREE or t == BALL:
                for k in range(3):
                    mm.set6(cdof_dot[da + k], mm.cross_motion(v, cdof[da + k]))
                for k in range(3):
                    v = mm.add_scl6(v, cdof[da + k], qvel[da + k])
            else:
                # the parent-side velocity: cdof x cdof = 0, so this equals using the new one
                mm.set6(cdof_dot[da], mm.cross_motion(v, cdof[da]))
                v = mm.add_scl6(v, cdof[da], qvel[da])
        mm.set6(cvel[i], v)


@kernel
def com_vel(M, D):
    """mj_comVel stage."""
    com_vel_kernel(i1(M, MF.body_parentid), i1(M, MF.body_jntnum), i1(M, MF.body_jntadr),
                   i1(M, MF.jnt_type), i1(M, MF.jnt_dofadr),
                   f1(D, DF.qvel), f2(D, DF.cdof), f2(D, DF.cvel), f2(D, DF.cdof_dot))


@kernel
def rne_kernel(
    # Model:
    body_parentid, body_dofnum, body_dofadr, dof_bodyid, gravity, flg_gravity, flg_acc,
    # Data in:
    qvel, qacc, cinert, cvel, cdof, cdof_dot,
    # Data out:
    result, cacc_tmp, cfrc_tmp,
):
    """mj_rne: result = M(q) qacc (if flg_acc) + C(q, qvel) including gravity, by recursive
    Newton-Euler in com coordinates. Gravity enters as a world acceleration of -g.
    ``cacc_tmp``/``cfrc_tmp`` (nbody x 6) are workspace."""
    nbody = body_parentid.shape[0]
    if flg_gravity:
        mm.set6(cacc_tmp[0], (0.0, 0.0, 0.0, -gravity[0], -gravity[1], -gravity[2]))
    else:
        mm.set6(cacc_tmp[0], (0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
    for i in range(1, nbody):
        a = mm.get6(cacc_tmp[body_parentid[i]])
        for k in range(body_dofadr[i], body_dofadr[i] + body_dofnum[i]):
            a = mm.add_scl6(a, cdof_dot[k], qvel[k])
            if flg_acc:
                a = mm.add_scl6(a, cdof[k], qacc[k])
        mm.set6(cacc_tmp[i], a)
        ci = cinert[i]
        v = cvel[i]
        f = mm.add6(mm.mul_inert_vec(ci, a), mm.cross_force(v, mm.mul_inert_vec(ci, v)))
        mm.set6(cfrc_tmp[i], f)
    for i in range(nbody - 1, 0, -1):
        p = body_parentid[i]
        if p > 0:
            mm.set6(cfrc_tmp[p], mm.add6(cfrc_tmp[p], cfrc_tmp[i]))
    for k in range(dof_bodyid.shape[0]):
        result[k] = mm.dot6(cdof[k], cfrc_tmp[dof_bodyid[k]])


@kernel
def rne(M, D, flg_acc, result):
    """mj_rne stage: writes ``result`` (nv); uses the scratch rows sm_cacc/sm_cfrc."""
    flg_grav = (is_(M, MF.opt_disableflags) & DSBL_GRAVITY) == 0
    rne_kernel(i1(M, MF.body_parentid), i1(M, MF.body_dofnum), i1(M, MF.body_dofadr),
               i1(M, MF.dof_bodyid), f1(M, MF.opt_gravity), flg_grav, flg_acc,
               f1(D, DF.qvel), f1(D, DF.qacc), f2(D, DF.cinert), f2(D, DF.cvel),
               f2(D, DF.cdof), f2(D, DF.cdof_dot),
               result, f2(D, DF.sm_cacc), f2(D, DF.sm_cfrc))


# =================================================================================================
# position: actuator transmissions
# =================================================================================================
@kernel
def transmission_kernel(
    # Model:
    actuator_trntype, actuator_trnid, actuator_gear, actuator_cranklength, jnt_type,
    jnt_qposadr, jnt_dofadr, site_bodyid, body_parentid, body_rootid, body_dofnum, body_dofadr,
    dof_parentid,
    # Data in:
    qpos, ten_length, ten_J, site_xpos, site_xmat, site_xquat, subtree_com, cdof,
    # Data out:
    actuator_length, actuator_moment, moment_rownnz, moment_rowadr, moment_colind,
):
    """mj_transmission: actuator_length and dense actuator_moment (nu x nv, d length / d qpos
    in velocity coordinates, scaled by the gear) for joint, jointinparent, slider-crank, tendon
    and site (with and without refsite) transmissions. The compressed rows moment_rownnz /
    rowadr / colind list each row's nonzero columns (rowadr = row * nv).

    Joint transmissions, which touch at most 6 dofs, look for nonzeros there only. A row is
    cleared on the columns its last moment_colind lists (every nonzero of the dense row, as
    mul_rows_sparse and joint_force rely on), not over nv: clearing nu x nv entries was the
    stage's cost on large models (100_humanoids, nu 2100 x nv 2700: 3.3 ms)."""
    nu = actuator_trntype.shape[0]
    nv = cdof.shape[0]
    for i in range(nu):
        for p in range(moment_rownnz[i]):
            actuator_moment[i, moment_colind[i, p]] = 0.0
        # the columns that can be nonzero: [klo, khi)
        klo = 0
        khi = nv
        tt = actuator_trntype[i]
        idx = actuator_trnid[i, 0]
        gear = actuator_gear[i]
        row = actuator_moment[i]
        length = 0.0
        if tt == TRN_JOINT or tt == TRN_JOINTINPARENT:
            t = jnt_type[idx]
            qa = jnt_qposadr[idx]
            da = jnt_dofadr[idx]
            klo = da
            khi = da + (6 if t == FREE else (3 if t == BALL else 1))
            if t == SLIDE or t == HINGE:
                length = qpos[qa] * gear[0]
                row[da] = gear[0]
            else:
                if t == FREE:
                    # a free joint's transmission has moments but no length (MuJoCo: 0)
                    row[da] = gear[0]
                    row[da + 1] = gear[1]
                    row[da + 2] = gear[2]
                    qa += 3
                    da += 3
                    g = (gear[3], gear[4], gear[5])
                else:
                    g = (gear[0], gear[1], gear[2])
                q = mm.quat_normalize((qpos[qa], qpos[qa + 1], qpos[qa + 2], qpos[qa + 3]))
                if tt == TRN_JOINTINPARENT:
                    # gear given in the parent frame: express it in the child (dof) frame
                    g = mm.rot_vec_quat(g, mm.quat_neg(q))
                if t == BALL:
                    length = mm.dot3(mm.quat2vel(q, 1.0), g)
                row[da] = g[0]
                row[da + 1] = g[1]
                row[da + 2] = g[2]
        elif tt == TRN_TENDON:
            length = ten_length[idx] * gear[0]
            for k in range(nv):
                row[k] = ten_J[idx, k] * gear[0]
        elif tt == TRN_SLIDERCRANK:
            slider = actuator_trnid[i, 1]
            r = actuator_cranklength[i]
            axis = (site_xmat[slider, 2], site_xmat[slider, 5], site_xmat[slider, 8])
            vec = mm.sub3(site_xpos[idx], site_xpos[slider])
            av = mm.dot3(vec, axis)
            det = av * av + r * r - mm.dot3(vec, vec)
            if det <= 0:
                # the crank cannot reach: use the projection on the axis (MuJoCo's fallback)
                length = av
                dldv = axis
                dlda = vec
            else:
                sdet = math.sqrt(det)
                length = av - sdet
                c = 1.0 - av / sdet
                dldv = mm.add3(mm.scl3(axis, c), mm.scl3(vec, 1.0 / sdet))
                dlda = mm.scl3(vec, c)
            length *= gear[0]
            sb = site_bodyid[slider]
            cb = site_bodyid[idx]
            # d/dq of vec = jacp(crank) - jacp(slider); of axis = jacr(slider) x axis
            add_point_jac_dot(body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid,
                              subtree_com, cdof, site_xpos[idx], cb, dldv, gear[0], row)
            add_point_jac_dot(body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid,
                              subtree_com, cdof, site_xpos[slider], sb, dldv, -gear[0], row)
            # dlda' (w x axis) = (axis x dlda)' w: a torque on the slider's rotational Jacobian
            tq = mm.cross3(axis, dlda)
            add_wrench_jac_dot(body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid,
                               subtree_com, cdof, site_xpos[slider], sb, (0.0, 0.0, 0.0), tq,
                               gear[0], row)
        elif tt == TRN_SITE:
            ref = actuator_trnid[i, 1]
            b = site_bodyid[idx]
            if ref < 0:
                # a wrench in the site frame; no length
                f = mm.mat_vec(site_xmat[idx], (gear[0], gear[1], gear[2]))
                tq = mm.mat_vec(site_xmat[idx], (gear[3], gear[4], gear[5]))
                add_wrench_jac_dot(body_parentid, body_rootid, body_dofnum, body_dofadr,
                                   dof_parentid, subtree_com, cdof, site_xpos[idx], b, f, tq, 1.0,
                                   row)
            else:
                # relative to the reference site, gear in the reference frame. The moment is
                # MuJoCo's: velocity of the site minus that of the refsite point, over the dofs
                # not shared by both bodies (the shared chain moves them rigidly; the rotation of
                # the reference frame by the refsite's own dofs is not differentiated)
                rb = site_bodyid[ref]
                f = mm.mat_vec(site_xmat[ref], (gear[0], gear[1], gear[2]))
                tq = mm.mat_vec(site_xmat[ref], (gear[3], gear[4], gear[5]))
                length = mm.dot3(mm.sub3(site_xpos[idx], site_xpos[ref]), f)
                qrel = mm.quat_mul(mm.quat_neg(site_xquat[ref]), site_xquat[idx])
                length += mm.dot3(mm.quat2vel(qrel, 1.0), (gear[3], gear[4], gear[5]))
                add_wrench_jac_dot(body_parentid, body_rootid, body_dofnum, body_dofadr,
                                   dof_parentid, subtree_com, cdof, site_xpos[idx], b, f, tq, 1.0,
                                   row)
                add_wrench_jac_dot(body_parentid, body_rootid, body_dofnum, body_dofadr,
                                   dof_parentid, subtree_com, cdof, site_xpos[ref], rb, f, tq,
                                   -1.0, row)
                ka = last_dof(body_parentid, body_dofnum, body_dofadr, b)
                kb = last_dof(body_parentid, body_dofnum, body_dofadr, rb)
                while ka >= 0 and kb >= 0:
                    if ka == kb:
                        while ka >= 0:
                            row[ka] = 0.0
                            ka = dof_parentid[ka]
                    elif ka > kb:
                        ka = dof_parentid[ka]
                    else:
                        kb = dof_parentid[kb]
        elif tt == TRN_BODY:
            # adhesion: the moment comes from the body's contacts, which the collision stage
            # finds after this one; `transmission_body` fills it then (length stays 0)
            pass
        else:
            raise NotImplementedError("actuator transmission type not supported")
        actuator_length[i] = length
        # compressed layout: nonzero columns of the dense row
        n = 0
        for k in range(klo, khi):
            if row[k] != 0.0:
                moment_colind[i, n] = k
                n += 1
        moment_rownnz[i] = n
        moment_rowadr[i] = i * nv


@kernel
def transmission(M, D):
    """mj_transmission stage (after mj_tendon; body transmissions: `transmission_body`)."""
    transmission_kernel(
        i1(M, MF.actuator_trntype), i2(M, MF.actuator_trnid), f2(M, MF.actuator_gear),
        f1(M, MF.actuator_cranklength), i1(M, MF.jnt_type), i1(M, MF.jnt_qposadr),
        i1(M, MF.jnt_dofadr), i1(M, MF.site_bodyid), i1(M, MF.body_parentid),
        i1(M, MF.body_rootid), i1(M, MF.body_dofnum), i1(M, MF.body_dofadr),
        i1(M, MF.dof_parentid),
        f1(D, DF.qpos), f1(D, DF.ten_length), f2(D, DF.ten_J), f2(D, DF.site_xpos),
        f2(D, DF.site_xmat), f2(D, DF.site_xquat), f2(D, DF.subtree_com), f2(D, DF.cdof),
        f1(D, DF.actuator_length), f2(D, DF.actuator_moment), i1(D, DF.moment_rownnz),
        i1(D, DF.moment_rowadr), i2(D, DF.moment_colind))


@kernel
def transmission_body(M, D):
    """The body (adhesion) transmissions, after collision detection: the moment is the mean,
    over every contact of the body's geoms (those beyond the margin too), of the contact normal's
    Jacobian pointing into the body, times gear[0]; the length is 0 (measured on mujoco 4.0.0)."""
    trntype = i1(M, MF.actuator_trntype)
    trnid = i2(M, MF.actuator_trnid)
    gear = f2(M, MF.actuator_gear)
    moment = f2(D, DF.actuator_moment)
    rownnz, colind = i1(D, DF.moment_rownnz), i2(D, DF.moment_colind)
    gbody = i1(M, MF.geom_bodyid)
    cgeom = i2(D, DF.contact_geom)
    cpos, cframe = f2(D, DF.contact_pos), f2(D, DF.contact_frame)
    rows = f2(D, DF.cn_J)
    nv = moment.shape[1]
    for i in range(trntype.shape[0]):
        if trntype[i] != TRN_BODY:
            continue
        b = trnid[i, 0]
        row = moment[i]
        row[:] = 0.0
        count = 0
        for c in range(i1(D, DF.ncon)[0]):
            if cgeom[c, 0] < 0 or cgeom[c, 1] < 0:
                continue    # a flex contact: adhesion acts on geom-geom contacts here
            b1, b2 = gbody[cgeom[c, 0]], gbody[cgeom[c, 1]]
            if b1 != b and b2 != b:
                continue
            contact_jac(i1(M, MF.body_parentid), i1(M, MF.body_rootid), i1(M, MF.body_dofnum),
                        i1(M, MF.body_dofadr), i1(M, MF.dof_parentid), f2(D, DF.subtree_com),
                        f2(D, DF.cdof), b1, b2, cpos[c], cframe[c], 1, rows)
            # rows[0]: the separating velocity along the normal (geom2 away from geom1)
            sgn = 1.0 if b2 == b else -1.0
            for k in range(nv):
                row[k] += sgn * rows[0, k]
            count += 1
        n = 0
        if count > 0:
            scale = gear[i, 0] / count
            for k in range(nv):
                row[k] *= scale
                if row[k] != 0.0:
                    colind[i, n] = k
                    n += 1
        rownnz[i] = n


# =================================================================================================
# velocity: tendon and actuator velocities, post-constraint RNE, subtree momenta
# =================================================================================================
@kernel
def mul_rows_sparse(A, rownnz, colind, x, out):
    """out = A @ x over the columns ``colind[i, :rownnz[i]]`` (increasing) of each row of the
    dense A, which hold all its nonzeros: the same sum as over all columns without exact-zero
    terms."""
    for i in range(A.shape[0]):
        s = 0.0
        for p in range(rownnz[i]):
            k = colind[i, p]
            s += A[i, k] * x[k]
        out[i] = s


@kernel
def tendon_actuator_velocity(M, D):
    """ten_velocity = ten_J qvel, actuator_velocity = actuator_moment qvel."""
    qvel = f1(D, DF.qvel)
    if i1(M, MF.tendon_adr).shape[0] > 0:
        mul_rows_sparse(f2(D, DF.ten_J), i1(D, DF.ten_J_rownnz), i2(D, DF.ten_J_colind), qvel,
                        f1(D, DF.ten_velocity))
    mul_rows_sparse(f2(D, DF.actuator_moment), i1(D, DF.moment_rownnz), i2(D, DF.moment_colind),
                    qvel, f1(D, DF.actuator_velocity))


@kernel
def rne_post_constraint_kernel(
    # Model:
    body_parentid, body_rootid, body_dofnum, body_dofadr, gravity, flg_gravity, tendon_armature,
    tendon_stiffness, tendon_damping, tendon_lengthspring, flg_spring, flg_damper,
    actuator_trntype, actuator_trnid, actuator_gear, site_bodyid,
    # Data in:
    qvel, qacc, xipos, subtree_com, xfrc_applied, cinert, cvel, cdof, cdof_dot, ten_J,
    ten_wrapadr, ten_wrapnum, wrap_xpos, wrap_body, wrap_div, ten_jdq, ten_length, ten_velocity,
    actuator_force, site_xpos, site_xmat, tendon_range, tendon_margin, efc_type, efc_id,
    efc_force, nfl,
    # Data out:
    cacc, cfrc_int, cfrc_ext,
):
    """mj_rnePostConstraint: body accelerations ``cacc`` (with -gravity at the world), external
    forces ``cfrc_ext`` (xfrc_applied moved from xipos to the com frame; contact and constraint
    forces are added by the constraint stage into the same rows) and interaction forces
    ``cfrc_int`` = I a + v x* I v - f_ext accumulated from the leaves. As in mujoco 4, cfrc_ext
    also holds the forces of spatial tendons (spring, damper, armature, actuators on them, and
    their friction-loss and limit constraint rows, the first ``nfl`` efc rows) along their
    paths (actuators through ``actuator_force``)."""
    nbody = body_parentid.shape[0]
    for k in range(6):
        cfrc_ext[0, k] = 0.0
    for i in range(1, nbody):
        x = xfrc_applied[i]
        f = (x[3], x[4], x[5], x[0], x[1], x[2])
        mm.set6(cfrc_ext[i], mm.transform_force(f, subtree_com[body_rootid[i]], xipos[i]))
    # forces along spatial tendons act on the bodies of their paths: F = spring + damper +
    # actuators on the tendon - armature * (J qacc + Jdot qvel) (mujoco 4 counts these in cfrc_ext)
    wx = wrap_xpos.reshape(-1)
    wb = wrap_body.reshape(-1)
    wd = wrap_div.reshape(-1)
    for t in range(tendon_armature.shape[0]):
        ft = 0.0
        if flg_spring and tendon_stiffness[t] != 0.0:
            L = ten_length[t]
            lo, hi = tendon_lengthspring[t, 0], tendon_lengthspring[t, 1]
            if L > hi:
                ft -= tendon_stiffness[t] * (L - hi)
            elif L < lo:
                ft -= tendon_stiffness[t] * (L - lo)
        if flg_damper:
            ft -= tendon_damping[t] * ten_velocity[t]
        arm = tendon_armature[t]
        if arm != 0.0:
            acc = ten_jdq[t]
            for k in range(qacc.shape[0]):
                acc += ten_J[t, k] * qacc[k]
            ft -= arm * acc
        for i in range(actuator_trntype.shape[0]):
            if actuator_trntype[i] == TRN_TENDON and actuator_trnid[i, 0] == t:
                ft += actuator_force[i] * actuator_gear[i, 0]
        for r in range(nfl):
            if efc_id[r] != t:
                continue
            if efc_type[r] == _FRICTION_TENDON:
                ft += efc_force[r]       # its Jacobian row is +ten_J
            elif efc_type[r] == _LIMIT_TENDON:
                # the lower limit's row (+ten_J) comes first when it is active, the upper's
                # (-ten_J) after it, as make_constraint emits them
                first = not (r > 0 and efc_type[r - 1] == _LIMIT_TENDON and efc_id[r - 1] == t)
                lower = first and ten_length[t] - tendon_range[t, 0] < tendon_margin[t]
                ft += efc_force[r] if lower else -efc_force[r]
        if ft == 0.0:
            continue
        for w in range(ten_wrapadr[t], ten_wrapadr[t] + ten_wrapnum[t] - 1):
            ba = wb[w]
            bb = wb[w + 1]
            if ba < 0 or bb < 0 or ba == bb:
                continue
            pa = (wx[3 * w], wx[3 * w + 1], wx[3 * w + 2])
            pb = (wx[3 * w + 3], wx[3 * w + 4], wx[3 * w + 5])
            u, dist = mm.normalize3(mm.sub3(pb, pa))
            if dist < mjMINVAL:
                continue
            f = mm.scl3(u, ft / wd[w])
            fb = mm.transform_force((0.0, 0.0, 0.0, f[0], f[1], f[2]),
                                    subtree_com[body_rootid[bb]], pb)
            fa = mm.transform_force((0.0, 0.0, 0.0, -f[0], -f[1], -f[2]),
                                    subtree_com[body_rootid[ba]], pa)
            # the world's row stays zero (mujoco: a tendon anchored at a world site pulls
            # only on the moving end)
            if bb > 0:
                mm.set6(cfrc_ext[bb], mm.add6(cfrc_ext[bb], fb))
            if ba > 0:
                mm.set6(cfrc_ext[ba], mm.add6(cfrc_ext[ba], fa))
    # contact and equality forces are added by `constraint_forces_ext` after this kernel
    if flg_gravity:
        mm.set6(cacc[0], (0.0, 0.0, 0.0, -gravity[0], -gravity[1], -gravity[2]))
    else:
        mm.set6(cacc[0], (0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
    for k in range(6):
        cfrc_int[0, k] = 0.0
    for i in range(1, nbody):
        a = mm.get6(cacc[body_parentid[i]])
        for k in range(body_dofadr[i], body_dofadr[i] + body_dofnum[i]):
            a = mm.add_scl6(a, cdof_dot[k], qvel[k])
            a = mm.add_scl6(a, cdof[k], qacc[k])
        mm.set6(cacc[i], a)
        ci = cinert[i]
        v = cvel[i]
        f = mm.add6(mm.mul_inert_vec(ci, a), mm.cross_force(v, mm.mul_inert_vec(ci, v)))
        mm.set6(cfrc_int[i], mm.add_scl6(f, cfrc_ext[i], -1.0))
    for i in range(nbody - 1, 0, -1):
        p = body_parentid[i]
        mm.set6(cfrc_int[p], mm.add6(cfrc_int[p], cfrc_int[i]))


@kernel
def rne_post_constraint(M, D):
    """mj_rnePostConstraint stage (needs qacc)."""
    dis = is_(M, MF.opt_disableflags)
    flg_grav = (dis & DSBL_GRAVITY) == 0
    rne_post_constraint_kernel(
        i1(M, MF.body_parentid), i1(M, MF.body_rootid), i1(M, MF.body_dofnum),
        i1(M, MF.body_dofadr), f1(M, MF.opt_gravity), flg_grav, f1(D, DF.sm_tenarm),
        f1(M, MF.tendon_stiffness), f1(M, MF.tendon_damping), f2(M, MF.tendon_lengthspring),
        (dis & DSBL_SPRING) == 0, (dis & DSBL_DAMPER) == 0, i1(M, MF.actuator_trntype),
        i2(M, MF.actuator_trnid), f2(M, MF.actuator_gear), i1(M, MF.site_bodyid),
        f1(D, DF.qvel), f1(D, DF.qacc), f2(D, DF.xipos), f2(D, DF.subtree_com),
        f2(D, DF.xfrc_applied), f2(D, DF.cinert), f2(D, DF.cvel), f2(D, DF.cdof),
        f2(D, DF.cdof_dot), f2(D, DF.ten_J), i1(D, DF.ten_wrapadr), i1(D, DF.ten_wrapnum),
        f2(D, DF.wrap_xpos), i2(D, DF.sm_wrapbody), f2(D, DF.sm_wrapdiv), f1(D, DF.sm_tenjdq),
        f1(D, DF.ten_length), f1(D, DF.ten_velocity), f1(D, DF.actuator_force),
        f2(D, DF.site_xpos), f2(D, DF.site_xmat), f2(M, MF.tendon_range),
        f1(M, MF.tendon_margin), i1(D, DF.efc_type), i1(D, DF.efc_id), f1(D, DF.efc_force),
        i1(D, DF.ne)[0] + i1(D, DF.nf)[0] + i1(D, DF.nl)[0],
        f2(D, DF.cacc), f2(D, DF.cfrc_int), f2(D, DF.cfrc_ext))
    constraint_forces_ext(M, D)


EQ_CONNECT, EQ_WELD = 0, 1   # mjtEq
OBJ_SITE = 6                 # mjtObj


@kernel
def _add_ext(body_parentid, body_rootid, subtree_com, cfrc_ext, cfrc_int, b, point, force,
             torque):
    """A force and torque (world frame) acting on body b at ``point``: into cfrc_ext[b] at the
    subtree com, and out of cfrc_int of b and its ancestors, the world included (cfrc_int = I a
    + v x* I v - f_ext, summed from the leaves into the world, is linear in f_ext)."""
    if b <= 0:
        return
    f = mm.transform_force((torque[0], torque[1], torque[2], force[0], force[1], force[2]),
                           subtree_com[body_rootid[b]], point)
    mm.set6(cfrc_ext[b], mm.add6(cfrc_ext[b], f))
    j = b
    while True:
        mm.set6(cfrc_int[j], mm.add_scl6(cfrc_int[j], f, -1.0))
        if j == 0:
            break
        j = body_parentid[j]


@kernel
def constraint_forces_ext(M, D):
    """The contact forces and the connect/weld equality forces of the solved constraint rows,
    as external forces on the bodies they act on (mj_rnePostConstraint): a contact pushes
    geom2's body along +normal and geom1's body back, at the contact point; an equality pulls
    body1 with +efc_force (world frame) at its anchor and body2 with the opposite."""
    parent = i1(M, MF.body_parentid)
    root = i1(M, MF.body_rootid)
    com = f2(D, DF.subtree_com)
    ext = f2(D, DF.cfrc_ext)
    cint = f2(D, DF.cfrc_int)
    gbody = i1(M, MF.geom_bodyid)
    g1, g2 = i1(D, DF.contact_geom1), i1(D, DF.contact_geom2)
    frame = f2(D, DF.contact_frame)
    cpos = f2(D, DF.contact_pos)
    res = f2(D, DF.scratch_body)[0]
    cone = is_(M, MF.opt_cone)
    for c in range(i1(D, DF.ncon)[0]):
        contact_force(cone, i1(D, DF.contact_dim), f2(D, DF.contact_friction),
                      i1(D, DF.contact_efc_address), f1(D, DF.contact_adhesion), f1(D, DF.efc_force),
                      c, res)
        fr = frame[c]
        force = mm.mat_t_vec(fr, (res[0], res[1], res[2]))
        torque = mm.mat_t_vec(fr, (res[3], res[4], res[5]))
        p = (cpos[c, 0], cpos[c, 1], cpos[c, 2])
        _add_ext(parent, root, com, ext, cint, gbody[g2[c]], p, force, torque)
        _add_ext(parent, root, com, ext, cint, gbody[g1[c]], p, mm.scl3(force, -1.0),
                 mm.scl3(torque, -1.0))
    ne = i1(D, DF.ne)[0]
    if ne == 0:
        return
    etype = i1(D, DF.efc_type)
    eid = i1(D, DF.efc_id)
    force_ = f1(D, DF.efc_force)
    eq_type = i1(M, MF.eq_type)
    objtype = i1(M, MF.eq_objtype)
    o1, o2 = i1(M, MF.eq_obj1id), i1(M, MF.eq_obj2id)
    eq_data = f2(M, MF.eq_data)
    site_body = i1(M, MF.site_bodyid)
    xpos, xmat = f2(D, DF.xpos), f2(D, DF.xmat)
    spos = f2(D, DF.site_xpos)
    r = 0
    while r < ne:
        e = eid[r]
        et = eq_type[e]
        if etype[r] != 0 or (et != EQ_CONNECT and et != EQ_WELD):
            r += 1
            continue
        nrow = 3 if et == EQ_CONNECT else 6
        f = (force_[r], force_[r + 1], force_[r + 2])
        t = (0.0, 0.0, 0.0)
        if et == EQ_WELD:
            t = (force_[r + 3], force_[r + 4], force_[r + 5])
        b1, b2, p1, p2 = eq_anchors(et, objtype[e] == OBJ_SITE, o1[e], o2[e], eq_data[e],
                                    site_body, spos, xpos, xmat)
        _add_ext(parent, root, com, ext, cint, b1, p1, f, t)
        _add_ext(parent, root, com, ext, cint, b2, p2, mm.scl3(f, -1.0), mm.scl3(t, -1.0))
        r += nrow


@kernel
def subtree_vel_kernel(
    # Model:
    body_parentid, body_rootid, body_mass, body_subtreemass, body_inertia,
    # Data in:
    xipos, ximat, subtree_com, cvel,
    # Data out:
    subtree_linvel, subtree_angmom, body_vel,
):
    """mj_subtreeVel: com linear velocity of each subtree and its angular momentum about the
    subtree com. ``body_vel`` (nbody x 6) is workspace: each body's com velocity (rot, lin)."""
    nbody = body_parentid.shape[0]
    for i in range(nbody):
        v = mm.transform_motion(cvel[i], xipos[i], subtree_com[body_rootid[i]])
        mm.set6(body_vel[i], v)
        mm.set3(subtree_linvel[i], mm.scl3((v[3], v[4], v[5]), body_mass[i]))
        # own spin: R diag(I) R' w
        w = mm.mat_t_vec(ximat[i], (v[0], v[1], v[2]))
        iw = (w[0] * body_inertia[i, 0], w[1] * body_inertia[i, 1], w[2] * body_inertia[i, 2])
        mm.set3(subtree_angmom[i], mm.mat_vec(ximat[i], iw))
    for i in range(nbody - 1, 0, -1):
        p = body_parentid[i]
        mm.set3(subtree_linvel[p], mm.add3(subtree_linvel[p], subtree_linvel[i]))
    for i in range(nbody):
        mm.set3(subtree_linvel[i],
                mm.scl3(subtree_linvel[i], 1.0 / max(mjMINVAL, body_subtreemass[i])))
    for i in range(nbody - 1, 0, -1):
        p = body_parentid[i]
        # the body's own com motion relative to its subtree com
        dx = mm.sub3(xipos[i], subtree_com[i])
        dv = mm.sub3((body_vel[i, 3], body_vel[i, 4], body_vel[i, 5]), subtree_linvel[i])
        mm.set3(subtree_angmom[i],
                mm.add3(subtree_angmom[i], mm.cross3(dx, mm.scl3(dv, body_mass[i]))))
        # the subtree's momentum moved to the parent's subtree com
        dx = mm.sub3(subtree_com[i], subtree_com[p])
        dv = mm.sub3(subtree_linvel[i], subtree_linvel[p])
        mm.set3(subtree_angmom[p],
                mm.add3(mm.add3(subtree_angmom[p], subtree_angmom[i]),
                        mm.cross3(dx, mm.scl3(dv, body_subtreemass[i]))))


@kernel
def subtree_vel(M, D):
    """mj_subtreeVel stage (after mj_comVel)."""
    subtree_vel_kernel(
        i1(M, MF.body_parentid), i1(M, MF.body_rootid), f1(M, MF.body_mass),
        f1(M, MF.body_subtreemass), f2(M, MF.body_inertia),
        f2(D, DF.xipos), f2(D, DF.ximat), f2(D, DF.subtree_com), f2(D, DF.cvel),
        f2(D, DF.subtree_linvel), f2(D, DF.subtree_angmom), f2(D, DF.sm_cacc))


@kernel
def _point_vel_acc(p, b, body_rootid, subtree_com, cvel, cacc0):
    """Velocity and (qacc = 0, no gravity) acceleration of the point p fixed to body b."""
    off = mm.sub3(p, subtree_com[body_rootid[b]])
    v = cvel[b]
    a = cacc0[b]
    w = (v[0], v[1], v[2])
    vp = mm.add3((v[3], v[4], v[5]), mm.cross3(w, off))
    ap = mm.add3(mm.add3((a[3], a[4], a[5]), mm.cross3((a[0], a[1], a[2]), off)),
                 mm.cross3(w, vp))
    return vp, ap


@kernel
def tendon_bias_kernel(
    # Model:
    tendon_armature, body_parentid, body_rootid, body_dofnum, body_dofadr,
    # Data in:
    qvel, ten_wrapadr, ten_wrapnum, wrap_xpos, wrap_body, wrap_div, subtree_com, cvel, cdof_dot,
    ten_J,
    # Data out:
    qfrc_bias, cacc0, ten_jdq,
):
    """Tendon armature bias: qfrc_bias += armature J' (Jdot qvel) (seed 000, tendon
    ``armature``). Jdot qvel is the tendon's length acceleration at qacc = 0, summed over the
    path's straight pieces between vertices on different bodies (as for ten_J, wrap points move
    with their geom). ``cacc0`` (nbody x 6) is workspace: body accelerations from cdof_dot qvel;
    ``ten_jdq`` (ntendon, workspace) keeps Jdot qvel for mj_rnePostConstraint. ``wrap_xpos``,
    ``wrap_body``, ``wrap_div`` are flat (1-D) views, as in tendon_kernel."""
    nt = tendon_armature.shape[0]
    for t in range(nt):
        ten_jdq[t] = 0.0
    anyarm = False
    for t in range(nt):
        if tendon_armature[t] != 0.0:
            anyarm = True
    if not anyarm:
        return
    nbody = body_parentid.shape[0]
    for k in range(6):
        cacc0[0, k] = 0.0
    for i in range(1, nbody):
        a = mm.get6(cacc0[body_parentid[i]])
        for k in range(body_dofadr[i], body_dofadr[i] + body_dofnum[i]):
            a = mm.add_scl6(a, cdof_dot[k], qvel[k])
        mm.set6(cacc0[i], a)
    wx = wrap_xpos
    wb = wrap_body
    wd = wrap_div
    nv = qvel.shape[0]
    for t in range(nt):
        arm = tendon_armature[t]
        if arm == 0.0 or ten_wrapnum[t] == 0:
            continue
        jdq = 0.0
        for w in range(ten_wrapadr[t], ten_wrapadr[t] + ten_wrapnum[t] - 1):
            ba = wb[w]
            bb = wb[w + 1]
            if ba < 0 or bb < 0 or ba == bb:
                continue
            pa = (wx[3 * w], wx[3 * w + 1], wx[3 * w + 2])
            pb = (wx[3 * w + 3], wx[3 * w + 4], wx[3 * w + 5])
            dp = mm.sub3(pb, pa)
            u, dist = mm.normalize3(dp)
            if dist < mjMINVAL:
                continue
            va, aa = _point_vel_acc(pa, ba, body_rootid, subtree_com, cvel, cacc0)
            vb, ab = _point_vel_acc(pb, bb, body_rootid, subtree_com, cvel, cacc0)
            dv = mm.sub3(vb, va)
            da = mm.sub3(ab, aa)
            udv = mm.dot3(u, dv)
            jdq += ((mm.dot3(dv, dv) - udv * udv) / dist + mm.dot3(u, da)) / wd[w]
        ten_jdq[t] = jdq
        s = arm * jdq
        for k in range(nv):
            qfrc_bias[k] += s * ten_J[t, k]


@kernel
def tendon_bias(M, D):
    """Add the tendon-armature bias to qfrc_bias (after rne)."""
    if i1(M, MF.tendon_adr).shape[0] == 0:
        return
    tendon_bias_kernel(
        f1(D, DF.sm_tenarm), i1(M, MF.body_parentid), i1(M, MF.body_rootid),
        i1(M, MF.body_dofnum), i1(M, MF.body_dofadr),
        f1(D, DF.qvel), i1(D, DF.ten_wrapadr), i1(D, DF.ten_wrapnum), f1(D, DF.wrap_xpos),
        i1(D, DF.sm_wrapbody), f1(D, DF.sm_wrapdiv), f2(D, DF.subtree_com), f2(D, DF.cvel),
        f2(D, DF.cdof_dot), f2(D, DF.ten_J),
        f1(D, DF.qfrc_bias), f2(D, DF.sm_cacc), f1(D, DF.sm_tenjdq))


# =================================================================================================
# stage groups called by forward.py, and the Python API
# =================================================================================================
@kernel
def fwd_position_smooth(M, D):
    """The smooth part of mj_fwdPosition, in MuJoCo's order: kinematics, comPos, camlight,
    flex (engine.flex), tendon, makeM, factorM, transmission. Collision and constraint rows
    follow (engine.forward.fwd_position), then the body (adhesion) transmissions, which need
    the contacts."""
    kinematics(M, D)
    com_pos(M, D)
    camlight(M, D)
    flex(M, D)
    tendon(M, D)
    if sleep.wake_tendon(M, D):
        sleep.update_sleep(M, D, False)
    make_m(M, D)
    factor_m(M, D)
    transmission(M, D)


@kernel
def fwd_velocity_smooth(M, D):
    """The smooth part of mj_fwdVelocity: flexedge_velocity, ten_velocity, actuator_velocity,
    comVel, bias forces rne(qacc=0) + tendon-armature bias. mj_passive (needs cvel) follows."""
    flex_velocity(M, D)
    tendon_actuator_velocity(M, D)
    com_vel(M, D)
    rne(M, D, False, f1(D, DF.qfrc_bias))
    tendon_bias(M, D)


def mj_kinematics(m, d):
    """Run forward kinematics."""
    argcheck.pair(m, d, "mj_kinematics")
    kinematics(m._A, d._A)


def mj_comPos(m, d):
    """Map inertias and motion dofs to global frame centered at CoM."""
    argcheck.pair(m, d, "mj_comPos")
    com_pos(m._A, d._A)


def mj_camlight(m, d):
    """Compute camera and light positions and orientations."""
    argcheck.pair(m, d, "mj_camlight")
    camlight(m._A, d._A)


def mj_tendon(m, d):
    """Compute tendon lengths, velocities and moment arms."""
    argcheck.pair(m, d, "mj_tendon")
    tendon(m._A, d._A)


def mj_transmission(m, d):
    """Compute actuator transmission lengths and moments."""
    argcheck.pair(m, d, "mj_transmission")
    transmission(m._A, d._A)


def mj_crb(m, d):
    """Run composite rigid body inertia algorithm (CRB)."""
    argcheck.pair(m, d, "mj_crb")
    crb(m._A, d._A)


def mj_makeM(m, d):
    """Make inertia matrix."""
    argcheck.pair(m, d, "mj_makeM")
    make_m(m._A, d._A)


def mj_factorM(m, d):
    """Compute sparse L'*D*L factorizaton of inertia matrix."""
    argcheck.pair(m, d, "mj_factorM")
    factor_m(m._A, d._A)


def mj_comVel(m, d):
    """Compute cvel, cdof_dot."""
    argcheck.pair(m, d, "mj_comVel")
    com_vel(m._A, d._A)


def mj_rne(m, d, flg_acc, result):
    """RNE: compute M(qpos)*qacc + C(qpos,qvel); flg_acc=0 removes inertial term."""
    argcheck.pair(m, d, "mj_rne")
    out = argcheck.out_array(result, (m.nv,), "result", "mj_rne")
    buf = np.zeros(m.nv)
    rne(m._A, d._A, bool(flg_acc), buf)
    out[:] = buf


def mj_rnePostConstraint(m, d):
    """RNE with complete data: compute cacc, cfrc_ext, cfrc_int."""
    argcheck.pair(m, d, "mj_rnePostConstraint")
    rne_post_constraint(m._A, d._A)


def mj_subtreeVel(m, d):
    """Sub-tree linear velocity and angular momentum: compute subtree_linvel, subtree_angmom."""
    argcheck.pair(m, d, "mj_subtreeVel")
    subtree_vel(m._A, d._A)


__all__ = ["transmission_body", 
    "mj_kinematics", "mj_comPos", "mj_camlight", "mj_tendon", "mj_transmission", "mj_crb",
    "mj_makeM", "mj_factorM", "mj_comVel", "mj_rne", "mj_rnePostConstraint", "mj_subtreeVel",
    "fwd_position_smooth", "fwd_velocity_smooth",
]
