"""Mouse perturbations (seed 001 "Visualization", "Perturbations"; MuJoCo's mjv_initPerturb,
mjv_movePerturb, mjv_applyPerturbPose, mjv_applyPerturbForce, as engine_vis_interact.c
computes them).

A viewer selects a body (``pert.select``) at a point (``pert.localpos``, body frame); the
perturbation then holds a reference pose (``refpos``/``refquat``: the body's inertial frame;
``refselpos``: the selection point), moved by the mouse. Applying it is physics: a mocap body is
moved, a paused free body's qpos is set (mjv_applyPerturbPose), or a critically damped spring
pulls the body toward the reference through ``d.xfrc_applied`` (mjv_applyPerturbForce).
"""
from __future__ import annotations

import math

import numpy as np

from .enums import mjtJoint, mjtMouse, mjtObj, mjtPertBit
from .mju import (mju_axisAngle2Quat, mju_mulPose, mju_mulQuat, mju_negPose, mju_negQuat,
                  mju_quat2Vel)
from .support import mj_jac, mj_objectVelocity, mj_solveM2

from .enums import mjMINVAL  # noqa: E402
_FREE = int(mjtJoint.mjJNT_FREE)
_TRANSLATE, _ROTATE = int(mjtPertBit.mjPERT_TRANSLATE), int(mjtPertBit.mjPERT_ROTATE)


def _unit(v):
    """(v / |v|, |v|); below mjMINVAL the first axis, as mju_normalize does."""
    n = float(np.linalg.norm(v))
    if n < mjMINVAL:
        e = np.zeros(len(v))
        e[0] = 1.0
        return e, n
    return v / n, n


def _camera_in_model(scn):
    """(head position, forward) averaged over the scene's two eyes (mjv_cameraInModel; the
    scene's model-to-room transform is the identity in the engine)."""
    eyes = scn.camera
    if min(float(e.frustum_near) for e in eyes) < mjMINVAL:
        raise ValueError("mjvScene frustum_near too small")
    head = 0.5 * sum(np.asarray(e.pos, float) for e in eyes)
    fwd = np.zeros(3)
    for e in eyes:
        fwd += 0.5 * _unit(np.asarray(e.forward, float))[0]
    return head, _unit(fwd)[0]


def _frustum_height(scn):
    """Height of the view at unit distance (perspective) or its height (orthographic),
    averaged over the eyes (mjv_frustumHeight)."""
    c1, c2 = scn.camera
    h = [float(c.frustum_top) - float(c.frustum_bottom) for c in (c1, c2)]
    if int(c1.orthographic):
        return 0.5 * (h[0] + h[1])
    return 0.5 * (h[0] / float(c1.frustum_near) + h[1] / float(c2.frustum_near))


def _selpos(d, pert, sel):
    return np.asarray(d.xmat[sel]).reshape(3, 3) @ np.asarray(pert.localpos) + d.xpos[sel]


def mjv_initPerturb(m, d, scn, pert):
    """Start perturbing ``pert.select``: reference pose := the body's inertial frame, reference
    point := the selection point, ``localmass`` := 3 / trace of the inverse translational
    inertia there, ``scale`` := the view's height at the selection point's depth (so that the
    reference point follows the mouse). Needs kinematics and the factorised inertia."""
    sel = int(pert.select)
    if sel <= 0 or sel >= m.nbody:
        return
    selpos = _selpos(d, pert, sel)
    nv = int(m.nv)
    jac = np.zeros((3, nv))
    mj_jac(m, d, jac, None, selpos, sel)
    jm2 = np.zeros((3, nv))
    if nv:
        mj_solveM2(m, d, jm2, jac, np.sqrt(np.asarray(d.qLDiagInv)).reshape(1, nv))
    invmass = float(np.sum(jm2 * jm2))
    pert.localmass = 1.0 if invmass == 0 else 3.0 / max(invmass, mjMINVAL)
    fs = int(pert.flexselect)
    if fs >= 0 and not int(m.flex_rigid[fs]):
        pert.localmass *= 2.0 * float(m.flex_edgenum[fs]) / float(m.flex_vertnum[fs])
    pert.refpos = d.xipos[sel]
    q = np.zeros(4)
    mju_mulQuat(q, np.asarray(d.xquat[sel], float), np.asarray(m.body_iquat[sel], float))
    pert.refquat = q
    pert.refselpos = selpos
    head, fwd = _camera_in_model(scn)
    pert.scale = _frustum_height(scn) * float(np.dot(selpos - head, fwd))
    if int(scn.camera[0].orthographic):
        pert.scale *= 0.15          # mujoco's empirical factor for orthographic views


def _align_to_camera(vec, forward):
    """Rotate ``vec`` about z by the angle between +y and the camera's horizontal forward."""
    y, _ = _unit(np.asarray(forward[:2], float))
    x = np.array([y[1], -y[0]])
    return np.array([vec[0] * x[0] + vec[1] * y[0], vec[0] * x[1] + vec[1] * y[1], vec[2]])


def _convert2d(action, dx, dy, forward):
    if action == int(mjtMouse.mjMOUSE_ROTATE_V):
        vec = (dy, 0.0, dx)
    elif action == int(mjtMouse.mjMOUSE_ROTATE_H):
        vec = (dy, dx, 0.0)
    elif action == int(mjtMouse.mjMOUSE_MOVE_V):
        vec = (dx, 0.0, -dy)
    elif action == int(mjtMouse.mjMOUSE_MOVE_H):
        vec = (dx, -dy, 0.0)
    elif action == int(mjtMouse.mjMOUSE_ZOOM):
        vec = (0.0, 0.0, 0.0)
    else:
        raise ValueError(f"unexpected mouse action {action}")
    return _align_to_camera(vec, forward)


def mjv_movePerturb(m, d, action, reldx, reldy, scn, pert):
    """Move the perturbation's reference with a mouse motion (``action``: mjtMouse; ``reldx``,
    ``reldy``: motion relative to the viewport's size): MOVE_* translates the reference pose
    and point by ``scale``, ROTATE_* turns the reference orientation (at most 90 degrees from
    the body's)."""
    action, sel = int(action), int(pert.select)
    _, fwd = _camera_in_model(scn)
    vec = _convert2d(action, float(reldx), float(reldy), fwd)
    if action in (int(mjtMouse.mjMOUSE_MOVE_V), int(mjtMouse.mjMOUSE_MOVE_H)):
        pert.refpos = np.asarray(pert.refpos) + pert.scale * vec
        pert.refselpos = np.asarray(pert.refselpos) + pert.scale * vec
    elif action in (int(mjtMouse.mjMOUSE_ROTATE_V), int(mjtMouse.mjMOUSE_ROTATE_H)):
        axis, angle = _unit(vec)
        q1, ref = np.zeros(4), np.zeros(4)
        mju_axisAngle2Quat(q1, axis, angle * 2.0 * math.pi)
        mju_mulQuat(ref, q1, np.asarray(pert.refquat, float))
        ref /= np.linalg.norm(ref)
        if 0 < sel < m.nbody:
            xiquat, neg, q2 = np.zeros(4), np.zeros(4), np.zeros(4)
            mju_mulQuat(xiquat, np.asarray(d.xquat[sel], float),
                        np.asarray(m.body_iquat[sel], float))
            mju_negQuat(neg, xiquat)
            mju_mulQuat(q2, neg, ref)
            dif = np.zeros(3)
            mju_quat2Vel(dif, q2, 1.0)
            dif, ang = _unit(dif)
            if abs(ang) > 0.5 * math.pi:
                mju_axisAngle2Quat(q2, dif, max(-0.5 * math.pi, min(0.5 * math.pi, ang)))
                mju_mulQuat(ref, xiquat, q2)
        pert.refquat = ref


def mjv_applyPerturbPose(m, d, pert, flg_paused):
    """Put the reference pose on the selected body: a mocap body's mocap_pos/quat; when
    ``flg_paused``, the qpos of its free joint, or of its tree's free root joint so that the
    body lands on the reference."""
    sel = int(pert.select)
    if sel <= 0 or sel >= m.nbody or not (int(pert.active) | int(pert.active2)):
        return
    root = int(m.body_rootid[sel])
    pos1, quat1 = np.zeros(3), np.zeros(4)
    mju_negPose(pos1, quat1, np.asarray(m.body_ipos[sel], float),
                np.asarray(m.body_iquat[sel], float))
    refpos, refquat = np.zeros(3), np.zeros(4)
    mju_mulPose(refpos, refquat, np.asarray(pert.refpos, float),
                np.asarray(pert.refquat, float), pos1, quat1)
    mocap = int(m.body_mocapid[sel])

    def free(b):
        return int(m.body_jntnum[b]) == 1 and int(m.jnt_type[m.body_jntadr[b]]) == _FREE

    if mocap >= 0:
        d.mocap_pos[mocap] = refpos
        d.mocap_quat[mocap] = refquat
    elif flg_paused and free(sel):
        a = int(m.jnt_qposadr[m.body_jntadr[sel]])
        d.qpos[a:a + 3] = refpos
        d.qpos[a + 3:a + 7] = refquat
    elif flg_paused and free(root):
        a = int(m.jnt_qposadr[m.body_jntadr[root]])
        rpos, rquat = d.qpos[a:a + 3].copy(), d.qpos[a + 3:a + 7].copy()
        pos2, quat2 = np.zeros(3), np.zeros(4)
        mju_negPose(pos1, quat1, np.asarray(d.xpos[sel], float),
                    np.asarray(d.xquat[sel], float))
        mju_mulPose(pos2, quat2, pos1, quat1, rpos, rquat)
        mju_mulPose(rpos, rquat, refpos, refquat, pos2, quat2)
        d.qpos[a:a + 3] = rpos
        d.qpos[a + 3:a + 7] = rquat


def mjv_applyPerturbForce(m, d, pert):
    """Write the perturbation's spring into ``d.xfrc_applied[select]``: with mjPERT_TRANSLATE a
    force -stiffness * localmass * (selection point - reference point), critically damped,
    and its torque about the body's centre of mass plus torsional damping along the
    displacement; with mjPERT_ROTATE a torque turning the body's inertial frame toward the
    reference orientation, critically damped, added to the torque (stiffness: vis.map.stiffness,
    stiffnessrot)."""
    sel = int(pert.select)
    active = int(pert.active) | int(pert.active2)
    if sel < 0 or sel >= m.nbody or not active:
        return
    bvel = np.zeros(6)
    mj_objectVelocity(m, d, int(mjtObj.mjOBJ_BODY), sel, bvel, 0)
    rotvel, linvel = bvel[:3], bvel[3:]
    invweight = float(m.body_invweight0[sel][1])
    inertia = 1.0 / max(mjMINVAL, invweight) if invweight else 1.0
    force, torque = d.xfrc_applied[sel, :3], d.xfrc_applied[sel, 3:]
    if active & _TRANSLATE:
        selpos = _selpos(d, pert, sel)
        diff = selpos - np.asarray(pert.refselpos)
        k = float(m.vis.map.stiffness)
        f = -k * pert.localmass * diff
        arm = selpos - d.xipos[sel]
        svel = np.cross(rotvel, arm) + linvel
        # mujoco takes these square roots in single precision (sqrtf)
        f += -float(np.sqrt(np.float32(k))) * pert.localmass * svel
        force[:] = f
        t = np.cross(arm, f)
        krot = float(m.vis.map.stiffnessrot)
        u, _ = _unit(diff)
        t += -float(np.sqrt(np.float32(krot))) * inertia * float(np.dot(u, rotvel)) * u
        torque[:] = t
    if active & _ROTATE:
        krot = float(m.vis.map.stiffnessrot)
        xiquat, neg, dq = np.zeros(4), np.zeros(4), np.zeros(4)
        mju_mulQuat(xiquat, np.asarray(d.xquat[sel], float),
                    np.asarray(m.body_iquat[sel], float))
        mju_negQuat(neg, xiquat)
        mju_mulQuat(dq, np.asarray(pert.refquat, float), neg)
        t = np.zeros(3)
        mju_quat2Vel(t, dq, 1.0 / (krot * inertia))
        t += -float(np.sqrt(np.float32(krot))) * inertia * rotvel
        torque[:] += t          # added to the translation's torque when both are active


__all__ = ["mjv_initPerturb", "mjv_movePerturb", "mjv_applyPerturbPose",
           "mjv_applyPerturbForce"]
