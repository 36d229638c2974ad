"""Passive forces: joint and tendon springs and dampers, gravity compensation, fluid forces.

Seed 001 "Forward dynamics" (mj_fwdVelocity computes the passive forces) and seed 000
(<joint stiffness springref damping>, <tendon stiffness springlength damping>, <body gravcomp>,
<joint actuatorgravcomp>, <option density viscosity wind>, <geom fluidshape fluidcoef>: the
inertia-box and the ellipsoid fluid models of MuJoCo's documentation, "Fluid forces").

Outputs, all in joint space (nv), as mjData names them:
``qfrc_spring`` (springs), ``qfrc_damper`` (dampers), ``qfrc_gravcomp`` (gravity compensation,
also for dofs whose joint routes it to the actuators), ``qfrc_fluid`` and their sum
``qfrc_passive`` (excluding gravcomp of ``jnt_actgravcomp`` joints, which `engine.actuation` adds
to ``qfrc_actuator``).

Kernels: small pure functions over explicit arrays (``# Model:`` / ``# Data in:`` /
``# Data out:``), the stage ``passive(M, D)`` and the wrapper ``mj_passive(m, d)``.
"""
from __future__ import annotations

import math

import numpy as np

from . import argcheck
from ._access import f1, f2, fs, i1, i2, is_, u1
from ._jit import kernel
from ._layout import DF, MF
from .adhesion import adhesion_passive
from .flex import flex_edge_passive

from .enums import (mjJNT_FREE as _JNT_FREE, mjJNT_BALL as _JNT_BALL,  # noqa
                    mjJNT_SLIDE as _JNT_SLIDE, mjJNT_HINGE as _JNT_HINGE)
_FREE, _BALL = _JNT_FREE, _JNT_BALL
from .enums import (mjTRN_JOINT as _TRN_JOINT, mjTRN_JOINTINPARENT as _TRN_JOINTINPARENT,  # noqa
                    mjTRN_TENDON as _TRN_TENDON, mjDSBL_SPRING as _DSBL_SPRING,
                    mjDSBL_DAMPER as _DSBL_DAMPER, mjDSBL_GRAVITY as _DSBL_GRAVITY)
from .enums import mjMINVAL as _MINVAL  # noqa: E402
_PI = math.pi

from .enums import (mjGEOM_SPHERE as _GEOM_SPHERE, mjGEOM_CAPSULE as _GEOM_CAPSULE,  # noqa
                    mjGEOM_ELLIPSOID as _GEOM_ELLIPSOID, mjGEOM_CYLINDER as _GEOM_CYLINDER,
                    mjGEOM_BOX as _GEOM_BOX)


# ---------------------------------------------------------------------------------------------
# small spatial helpers (shared with actuation / sensor / forward)
# ---------------------------------------------------------------------------------------------

@kernel
def quat_to_vel(q, dt, out):
    """Angular velocity (3, local frame) that rotates by unit quaternion q in time dt."""
    s = math.sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    ang = 2.0 * math.atan2(s, q[0])
    if ang > _PI:
        ang -= 2.0 * _PI
    if s < _MINVAL:
        out[0] = 0.0
        out[1] = 0.0
        out[2] = 0.0
        return
    k = ang / (dt * s)
    out[0] = q[1] * k
    out[1] = q[2] * k
    out[2] = q[3] * k


@kernel
def quat_sub(qa, qb, out):
    """Rotation vector (3) of qb^-1 * qa, in qb's frame: 'qa - qb' for quaternions."""
    # conj(qb) * qa
    w = qb[0] * qa[0] + qb[1] * qa[1] + qb[2] * qa[2] + qb[3] * qa[3]
    x = qb[0] * qa[1] - qb[1] * qa[0] - qb[2] * qa[3] + qb[3] * qa[2]
    y = qb[0] * qa[2] + qb[1] * qa[3] - qb[2] * qa[0] - qb[3] * qa[1]
    z = qb[0] * qa[3] - qb[1] * qa[2] + qb[2] * qa[1] - qb[3] * qa[0]
    s = math.sqrt(x * x + y * y + z * z)
    ang = 2.0 * math.atan2(s, w)
    if ang > _PI:
        ang -= 2.0 * _PI
    if s < _MINVAL:
        out[0] = 0.0
        out[1] = 0.0
        out[2] = 0.0
        return
    k = ang / s
    out[0] = x * k
    out[1] = y * k
    out[2] = z * k


@kernel
def apply_ft(
    # Model:
    body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid,
    # Data in:
    cdof, subtree_com,
    # arguments:
    force, torque, point, body,
    # Data out:
    qfrc,
):
    """qfrc += J(point, body)^T force + Jr(body)^T torque (force, torque, point: world frame).

    Walks the dofs that move ``body`` (its own, then ancestors' via dof_parentid); cdof are
    motions at the subtree com of the root, so the moment is taken about that point.
    """
    b = body
    while b > 0 and body_dofnum[b] == 0:
        b = body_parentid[b]
    if b <= 0:
        return
    c = subtree_com[body_rootid[body]]
    rx = point[0] - c[0]
    ry = point[1] - c[1]
    rz = point[2] - c[2]
    mx = torque[0] + ry * force[2] - rz * force[1]
    my = torque[1] + rz * force[0] - rx * force[2]
    mz = torque[2] + rx * force[1] - ry * force[0]
    j = body_dofadr[b] + body_dofnum[b] - 1
    while j >= 0:
        cd = cdof[j]
        qfrc[j] += (cd[0] * mx + cd[1] * my + cd[2] * mz
                    + cd[3] * force[0] + cd[4] * force[1] + cd[5] * force[2])
        j = dof_parentid[j]


@kernel
def object_velocity_local(cvel_b, com, pos, mat, out):
    """6-D velocity [angular, linear] of a frame (pos, mat) fixed to a body with com-based
    velocity cvel_b (about ``com``), expressed in the frame's own axes."""
    wx, wy, wz = cvel_b[0], cvel_b[1], cvel_b[2]
    rx = pos[0] - com[0]
    ry = pos[1] - com[1]
    rz = pos[2] - com[2]
    # linear velocity at pos: v_com + w x (pos - com)
    vx = cvel_b[3] + wy * rz - wz * ry
    vy = cvel_b[4] + wz * rx - wx * rz
    vz = cvel_b[5] + wx * ry - wy * rx
    for i in range(3):
        out[i] = mat[i] * wx + mat[3 + i] * wy + mat[6 + i] * wz
        out[3 + i] = mat[i] * vx + mat[3 + i] * vy + mat[6 + i] * vz


# ---------------------------------------------------------------------------------------------
# springs and dampers
# ---------------------------------------------------------------------------------------------

@kernel
def _vec_spring(k, p, x, n, out, oa):
    """out[oa:oa+n] -= (k + p0*|x| + p1*|x|^2) x: the polynomial spring of a 3-D deviation."""
    nx = 0.0
    for i in range(n):
        nx += x[i] * x[i]
    nx = math.sqrt(nx)
    s = k + p[0] * nx + p[1] * nx * nx
    for i in range(n):
        out[oa + i] -= s * x[i]


@kernel
def joint_springs(
    # Model:
    jnt_type, jnt_qposadr, jnt_dofadr, jnt_stiffness, jnt_stiffnesspoly, qpos_spring,
    # Data in:
    qpos,
    # Data out:
    qfrc_spring,
    # Scratch (>= 3 values):
    dif,
):
    """Joint springs -(k*x + p0*x^2 + p1*x^3) with x = qpos - qpos_spring (seed 000 <joint
    stiffness springref>; MuJoCo 4 adds the polynomial terms, measured on the oracle: scalar
    joints use x^2 (even), quaternion and free-translation parts scale the vector by
    k + p0*|x| + p1*|x|^2, x the position difference or the rotation vector)."""
    for j in range(jnt_type.shape[0]):
        k = jnt_stiffness[j]
        p = jnt_stiffnesspoly[j]
        if k == 0.0 and p[0] == 0.0 and p[1] == 0.0:
            continue
        qa = jnt_qposadr[j]
        da = jnt_dofadr[j]
        t = jnt_type[j]
        if t == _JNT_FREE:
            for i in range(3):
                dif[i] = qpos[qa + i] - qpos_spring[qa + i]
            _vec_spring(k, p, dif, 3, qfrc_spring, da)
            quat_sub(qpos[qa + 3:qa + 7], qpos_spring[qa + 3:qa + 7], dif)
            _vec_spring(k, p, dif, 3, qfrc_spring, da + 3)
        elif t == _JNT_BALL:
            quat_sub(qpos[qa:qa + 4], qpos_spring[qa:qa + 4], dif)
            _vec_spring(k, p, dif, 3, qfrc_spring, da)
        else:
            x = qpos[qa] - qpos_spring[qa]
            qfrc_spring[da] -= x * (k + x * (p[0] + p[1] * x))


@kernel
def tendon_springs(
    # Model:
    tendon_stiffness, tendon_stiffnesspoly, tendon_lengthspring,
    # Data in:
    ten_length, ten_J,
    # Data out:
    qfrc_spring,
):
    """Tendon springs with a dead band [lengthspring0, lengthspring1]: no force inside it,
    outside -(k*x + p0*x^2 + p1*x^3), x the distance past the nearer bound."""
    nv = qfrc_spring.shape[0]
    for t in range(tendon_stiffness.shape[0]):
        k = tendon_stiffness[t]
        p = tendon_stiffnesspoly[t]
        if k == 0.0 and p[0] == 0.0 and p[1] == 0.0:
            continue
        lo = tendon_lengthspring[t, 0]
        hi = tendon_lengthspring[t, 1]
        L = ten_length[t]
        if L > hi:
            x = L - hi
        elif L < lo:
            x = L - lo
        else:
            continue
        f = -x * (k + x * (p[0] + p[1] * x))
        for i in range(nv):
            qfrc_spring[i] += ten_J[t, i] * f


@kernel
def _damp(b, p, v):
    """Damper force -(b*v + p0*v*|v| + p1*v^3)."""
    return -v * (b + p[0] * abs(v) + p[1] * v * v)


@kernel
def dampers(
    # Model:
    dof_damping, dof_dampingpoly, tendon_damping, tendon_dampingpoly, actuator_damping,
    actuator_dampingpoly, actuator_trntype, actuator_trnid, actuator_gear, jnt_type, jnt_dofadr,
    # Data in:
    qvel, ten_velocity, ten_J,
    # Data out:
    qfrc_damper,
):
    """Dampers of dofs, tendons and actuators: -(b*v + p0*v|v| + p1*v^3) in each one's own
    velocity, mapped to joint space by the tendon Jacobian. An actuator damper (mujoco 4
    <actuator damping>, joint or tendon transmission only) acts, as measured on the oracle,
    like a dof damper on each dof of its joint (or a tendon damper on its tendon) with all
    three coefficients scaled by gear[0]^2, in the dof's (tendon's) own velocity."""
    nv = qvel.shape[0]
    for i in range(nv):
        qfrc_damper[i] += _damp(dof_damping[i], dof_dampingpoly[i], qvel[i])
    for t in range(tendon_damping.shape[0]):
        p = tendon_dampingpoly[t]
        if tendon_damping[t] == 0.0 and p[0] == 0.0 and p[1] == 0.0:
            continue
        f = _damp(tendon_damping[t], p, ten_velocity[t])
        for i in range(nv):
            qfrc_damper[i] += ten_J[t, i] * f
    for a in range(actuator_damping.shape[0]):
        p = actuator_dampingpoly[a]
        b = actuator_damping[a]
        if b == 0.0 and p[0] == 0.0 and p[1] == 0.0:
            continue
        g2 = actuator_gear[a, 0] * actuator_gear[a, 0]
        tt = actuator_trntype[a]
        if tt == _TRN_JOINT or tt == _TRN_JOINTINPARENT:
            j = actuator_trnid[a, 0]
            n = 6 if jnt_type[j] == _FREE else (3 if jnt_type[j] == _BALL else 1)
            for k in range(jnt_dofadr[j], jnt_dofadr[j] + n):
                qfrc_damper[k] += g2 * _damp(b, p, qvel[k])
        elif tt == _TRN_TENDON:
            t = actuator_trnid[a, 0]
            f = g2 * _damp(b, p, ten_velocity[t])
            for i in range(nv):
                qfrc_damper[i] += ten_J[t, i] * f


# ---------------------------------------------------------------------------------------------
# gravity compensation
# ---------------------------------------------------------------------------------------------

@kernel
def gravcomp(
    # Model:
    body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid, body_mass,
    body_gravcomp, gravity,
    # Data in:
    xipos, cdof, subtree_com,
    # Data out:
    qfrc_gravcomp,
    # Scratch (2 x >= 3 values):
    work,
):
    """Force -gravity*mass*gravcomp at each body's com, mapped to joint space (seed 000 <body
    gravcomp>). Returns whether any body has gravity compensation."""
    f, zero = work[0], work[1]
    zero[:] = 0.0
    has = False
    for b in range(1, body_mass.shape[0]):
        g = body_gravcomp[b]
        if g == 0.0:
            continue
        has = True
        s = -body_mass[b] * g
        f[0] = s * gravity[0]
        f[1] = s * gravity[1]
        f[2] = s * gravity[2]
        apply_ft(body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid,
                 cdof, subtree_com, f, zero, xipos[b], b, qfrc_gravcomp)
    return has


# ---------------------------------------------------------------------------------------------
# fluid forces (MuJoCo documentation, "Fluid forces": inertia-box and ellipsoid models)
# ---------------------------------------------------------------------------------------------

@kernel
def _inertia_box_force(mass, inertia, lvel, density, viscosity, lfrc):
    """Local force [torque, force] on the body's equivalent inertia box moving at lvel
    (local [angular, linear] velocity relative to the wind): Stokes drag plus quadratic drag."""
    bx = math.sqrt(max(_MINVAL, inertia[1] + inertia[2] - inertia[0]) / mass * 6.0)
    by = math.sqrt(max(_MINVAL, inertia[0] + inertia[2] - inertia[1]) / mass * 6.0)
    bz = math.sqrt(max(_MINVAL, inertia[0] + inertia[1] - inertia[2]) / mass * 6.0)
    for i in range(6):
        lfrc[i] = 0.0
    if viscosity > 0.0:
        diam = (bx + by + bz) / 3.0
        cr = -_PI * diam * diam * diam * viscosity
        cl = -3.0 * _PI * diam * viscosity
        for i in range(3):
            lfrc[i] = cr * lvel[i]
            lfrc[3 + i] = cl * lvel[3 + i]
    if density > 0.0:
        lfrc[3] -= 0.5 * density * by * bz * abs(lvel[3]) * lvel[3]
        lfrc[4] -= 0.5 * density * bx * bz * abs(lvel[4]) * lvel[4]
        lfrc[5] -= 0.5 * density * bx * by * abs(lvel[5]) * lvel[5]
        lfrc[0] -= density * bx * (by ** 4 + bz ** 4) / 64.0 * abs(lvel[0]) * lvel[0]
        lfrc[1] -= density * by * (bx ** 4 + bz ** 4) / 64.0 * abs(lvel[1]) * lvel[1]
        lfrc[2] -= density * bz * (bx ** 4 + by ** 4) / 64.0 * abs(lvel[2]) * lvel[2]


@kernel
def geom_semiaxes(gtype, size, out):
    """Semi-axes of the ellipsoid that approximates a geom (for the ellipsoid fluid model)."""
    if gtype == _GEOM_SPHERE:
        out[0] = size[0]
        out[1] = size[0]
        out[2] = size[0]
    elif gtype == _GEOM_CAPSULE:
        out[0] = size[0]
        out[1] = size[0]
        out[2] = size[1] + size[0]
    elif gtype == _GEOM_CYLINDER:
        out[0] = size[0]
        out[1] = size[0]
        out[2] = size[1]
    else:
        out[0] = size[0]
        out[1] = size[1]
        out[2] = size[2]


@kernel
def _ellipsoid_moment(s, k):
    d0 = s[k]
    d1 = s[(k + 1) % 3]
    d2 = s[(k + 2) % 3]
    m = max(d1, d2)
    return 8.0 / 15.0 * _PI * d0 * m ** 4


@kernel
def _ellipsoid_force(lvel, density, viscosity, s, prm, lfrc):
    """Local force [torque, force] of the ellipsoid model on one geom (semi-axes s) moving at
    lvel relative to the fluid: added mass, Magnus and Kutta lift, viscous and quadratic drag.
    prm = geom_fluid row: [interaction, blunt, slender, angular, kutta, magnus, virtual mass(3),
    virtual inertia(3)]."""
    blunt, slender, angdrag, kutta, magnus = prm[1], prm[2], prm[3], prm[4], prm[5]
    w0, w1, w2 = lvel[0], lvel[1], lvel[2]
    v0, v1, v2 = lvel[3], lvel[4], lvel[5]
    for i in range(6):
        lfrc[i] = 0.0
    # added mass: forces from the momentum of the entrained fluid
    p0 = density * prm[6] * v0
    p1 = density * prm[7] * v1
    p2 = density * prm[8] * v2
    L0 = density * prm[9] * w0
    L1 = density * prm[10] * w1
    L2 = density * prm[11] * w2
    lfrc[3] += p1 * w2 - p2 * w1
    lfrc[4] += p2 * w0 - p0 * w2
    lfrc[5] += p0 * w1 - p1 * w0
    lfrc[0] += p1 * v2 - p2 * v1 + L1 * w2 - L2 * w1
    lfrc[1] += p2 * v0 - p0 * v2 + L2 * w0 - L0 * w2
    lfrc[2] += p0 * v1 - p1 * v0 + L0 * w1 - L1 * w0

    # viscous and lift forces
    vol = 4.0 / 3.0 * _PI * s[0] * s[1] * s[2]
    dmax = max(s[0], max(s[1], s[2]))
    dmin = min(s[0], min(s[1], s[2]))
    dmid = s[0] + s[1] + s[2] - dmax - dmin
    Amax = _PI * dmax * dmid
    km = magnus * density * vol
    mag0 = (w1 * v2 - w2 * v1) * km
    mag1 = (w2 * v0 - w0 * v2) * km
    mag2 = (w0 * v1 - w1 * v0) * km
    speed = math.sqrt(v0 * v0 + v1 * v1 + v2 * v2)
    a12 = s[1] * s[2]
    a20 = s[2] * s[0]
    a01 = s[0] * s[1]
    den = a12 ** 4 * v0 * v0 + a20 ** 4 * v1 * v1 + a01 ** 4 * v2 * v2
    num = (a12 * v0) ** 2 + (a20 * v1) ** 2 + (a01 * v2) ** 2
    Aproj = _PI * math.sqrt(den / max(_MINVAL, num))
    n0 = a12 * a12 * v0
    n1 = a20 * a20 * v1
    n2 = a01 * a01 * v2
    # guard the speed and the projection separately: thin plates make speed*den tiny but finite
    cosa = num / max(_MINVAL, speed) / max(_MINVAL * _MINVAL, den)
    kc = kutta * density * cosa * Aproj
    c0 = (n1 * v2 - n2 * v1) * kc
    c1 = (n2 * v0 - n0 * v2) * kc
    c2 = (n0 * v1 - n1 * v0) * kc
    ku0 = c1 * v2 - c2 * v1
    ku1 = c2 * v0 - c0 * v2
    ku2 = c0 * v1 - c1 * v0
    D = 2.0 / 3.0 * (s[0] + s[1] + s[2])
    lin_visc = 3.0 * _PI * D
    rot_visc = _PI * D * D * D
    Imax = 8.0 / 15.0 * _PI * dmid * dmax ** 4
    I0 = _ellipsoid_moment(s, 0)
    I1 = _ellipsoid_moment(s, 1)
    I2 = _ellipsoid_moment(s, 2)
    m0 = w0 * (angdrag * I0 + slender * (Imax - I0))
    m1 = w1 * (angdrag * I1 + slender * (Imax - I1))
    m2 = w2 * (angdrag * I2 + slender * (Imax - I2))
    drag_lin = viscosity * lin_visc + density * speed * (Aproj * blunt + slender * (Amax - Aproj))
    drag_ang = viscosity * rot_visc + density * math.sqrt(m0 * m0 + m1 * m1 + m2 * m2)
    lfrc[0] -= drag_ang * w0
    lfrc[1] -= drag_ang * w1
    lfrc[2] -= drag_ang * w2
    lfrc[3] += mag0 + ku0 - drag_lin * v0
    lfrc[4] += mag1 + ku1 - drag_lin * v1
    lfrc[5] += mag2 + ku2 - drag_lin * v2
    coef = prm[0]
    for i in range(6):
        lfrc[i] *= coef


@kernel
def body_uses_ellipsoid(geom_fluid, ga, gn):
    """Whether a body's fluid forces follow the ellipsoid model: one of its geoms (ga..ga+gn)
    has fluidshape="ellipsoid" (geom_fluid[g, 0] > 0); else the inertia-box model applies."""
    for g in range(ga, ga + gn):
        if geom_fluid[g, 0] > 0.0:
            return True
    return False


@kernel
def fluid_velocity_local(cvel, com, pos, mat, wind, lvel):
    """lvel = the 6-D velocity (rotation, translation) of the frame (pos, mat) relative to the
    medium, in the frame's axes: its object velocity minus the wind in the translation."""
    object_velocity_local(cvel, com, pos, mat, lvel)
    for i in range(3):
        lvel[3 + i] -= mat[i] * wind[0] + mat[3 + i] * wind[1] + mat[6 + i] * wind[2]


@kernel
def fluid(
    # Model:
    body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid, body_mass,
    body_inertia, body_geomadr, body_geomnum, geom_type, geom_size, geom_fluid,
    density, viscosity, wind,
    # Data in:
    xipos, ximat, geom_xpos, geom_xmat, cvel, cdof, subtree_com,
    # Data out:
    qfrc_fluid,
    # Scratch (5 x >= 6 values):
    work,
):
    """Fluid forces on every body: the ellipsoid model for bodies with a geom whose
    fluidshape is ellipsoid (geom_fluid[0] > 0), else the inertia-box model."""
    lvel, lfrc = work[0], work[1]
    frc, trq, s = work[2, :3], work[3, :3], work[4, :3]
    for b in range(1, body_mass.shape[0]):
        if body_mass[b] < _MINVAL:
            continue
        ga = body_geomadr[b]
        gn = body_geomnum[b]
        use_ellipsoid = body_uses_ellipsoid(geom_fluid, ga, gn)
        com = subtree_com[body_rootid[b]]
        if use_ellipsoid:
            for g in range(ga, ga + gn):
                if geom_fluid[g, 0] == 0.0:
                    continue
                mat = geom_xmat[g]
                fluid_velocity_local(cvel[b], com, geom_xpos[g], mat, wind, lvel)
                geom_semiaxes(geom_type[g], geom_size[g], s)
                _ellipsoid_force(lvel, density, viscosity, s, geom_fluid[g], lfrc)
                for i in range(3):
                    trq[i] = mat[3 * i] * lfrc[0] + mat[3 * i + 1] * lfrc[1] + mat[3 * i + 2] * lfrc[2]
                    frc[i] = mat[3 * i] * lfrc[3] + mat[3 * i + 1] * lfrc[4] + mat[3 * i + 2] * lfrc[5]
                apply_ft(body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid,
                         cdof, subtree_com, frc, trq, geom_xpos[g], b, qfrc_fluid)
        else:
            mat = ximat[b]
            fluid_velocity_local(cvel[b], com, xipos[b], mat, wind, lvel)
            _inertia_box_force(body_mass[b], body_inertia[b], lvel, density, viscosity, lfrc)
            for i in range(3):
                trq[i] = mat[3 * i] * lfrc[0] + mat[3 * i + 1] * lfrc[1] + mat[3 * i + 2] * lfrc[2]
                frc[i] = mat[3 * i] * lfrc[3] + mat[3 * i + 1] * lfrc[4] + mat[3 * i + 2] * lfrc[5]
            apply_ft(body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid,
                     cdof, subtree_com, frc, trq, xipos[b], b, qfrc_fluid)


# ---------------------------------------------------------------------------------------------
# stage
# ---------------------------------------------------------------------------------------------

@kernel
def gravcomp_active(M):
    """Whether gravity compensation forces exist: some body has gravcomp and gravity is on."""
    if is_(M, MF.opt_disableflags) & _DSBL_GRAVITY:
        return False
    g = f1(M, MF.opt_gravity)
    if g[0] == 0.0 and g[1] == 0.0 and g[2] == 0.0:
        return False
    bg = f1(M, MF.body_gravcomp)
    for b in range(bg.shape[0]):
        if bg[b] != 0.0:
            return True
    return False


@kernel
def passive(M, D):
    """mj_passive: fill qfrc_spring, qfrc_damper, qfrc_gravcomp, qfrc_fluid, qfrc_adhesion,
    qfrc_passive."""
    disable = is_(M, MF.opt_disableflags)
    qfrc_spring = f1(D, DF.qfrc_spring)
    qfrc_damper = f1(D, DF.qfrc_damper)
    qfrc_gravcomp = f1(D, DF.qfrc_gravcomp)
    qfrc_fluid = f1(D, DF.qfrc_fluid)
    qfrc_passive = f1(D, DF.qfrc_passive)
    qfrc_adhesion = f1(D, DF.qfrc_adhesion)
    qfrc_adhesion[:] = 0.0
    qfrc_spring[:] = 0.0
    qfrc_damper[:] = 0.0
    qfrc_gravcomp[:] = 0.0
    qfrc_fluid[:] = 0.0
    qfrc_passive[:] = 0.0
    nv = qfrc_passive.shape[0]
    if nv == 0:
        return
    # measured on MuJoCo 4.0.0: with both springs and dampers disabled there are no passive
    # forces at all (no gravity compensation, no fluid forces either)
    if (disable & (_DSBL_SPRING | _DSBL_DAMPER)) == (_DSBL_SPRING | _DSBL_DAMPER):
        return
    ten_J = f2(D, DF.ten_J)
    if not disable & _DSBL_SPRING:
        joint_springs(i1(M, MF.jnt_type), i1(M, MF.jnt_qposadr), i1(M, MF.jnt_dofadr),
                      f1(M, MF.jnt_stiffness), f2(M, MF.jnt_stiffnesspoly), f1(M, MF.qpos_spring),
                      f1(D, DF.qpos), qfrc_spring, f2(D, DF.pa_work)[0])
        tendon_springs(f1(M, MF.tendon_stiffness), f2(M, MF.tendon_stiffnesspoly),
                       f2(M, MF.tendon_lengthspring), f1(D, DF.ten_length), ten_J, qfrc_spring)
    if not disable & _DSBL_DAMPER:
        dampers(f1(M, MF.dof_damping), f2(M, MF.dof_dampingpoly), f1(M, MF.tendon_damping),
                f2(M, MF.tendon_dampingpoly), f1(M, MF.actuator_damping),
                f2(M, MF.actuator_dampingpoly), i1(M, MF.actuator_trntype),
                i2(M, MF.actuator_trnid), f2(M, MF.actuator_gear), i1(M, MF.jnt_type),
                i1(M, MF.jnt_dofadr), f1(D, DF.qvel), f1(D, DF.ten_velocity), ten_J, qfrc_damper)
    # flex edge spring-dampers (engine.flex), after the joint and tendon ones
    flex_edge_passive(M, D, not disable & _DSBL_SPRING, not disable & _DSBL_DAMPER,
                      qfrc_spring, qfrc_damper)
    body_parentid = i1(M, MF.body_parentid)
    body_rootid = i1(M, MF.body_rootid)
    body_dofnum = i1(M, MF.body_dofnum)
    body_dofadr = i1(M, MF.body_dofadr)
    dof_parentid = i1(M, MF.dof_parentid)
    cdof = f2(D, DF.cdof)
    subtree_com = f2(D, DF.subtree_com)
    has_gc = False
    if gravcomp_active(M):
        has_gc = gravcomp(body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid,
                          f1(M, MF.body_mass), f1(M, MF.body_gravcomp), f1(M, MF.opt_gravity),
                          f2(D, DF.xipos), cdof, subtree_com, qfrc_gravcomp, f2(D, DF.pa_work))
    density = fs(M, MF.opt_density)
    viscosity = fs(M, MF.opt_viscosity)
    has_fluid = density > 0.0 or viscosity > 0.0
    if has_fluid:
        fluid(body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid,
              f1(M, MF.body_mass), f2(M, MF.body_inertia), i1(M, MF.body_geomadr),
              i1(M, MF.body_geomnum), i1(M, MF.geom_type), f2(M, MF.geom_size),
              f2(M, MF.geom_fluid), density, viscosity, f1(M, MF.opt_wind),
              f2(D, DF.xipos), f2(D, DF.ximat), f2(D, DF.geom_xpos), f2(D, DF.geom_xmat),
              f2(D, DF.cvel), cdof, subtree_com, qfrc_fluid, f2(D, DF.pa_work))
    # contact adhesion's constant attraction (engine.adhesion), from the collision stage
    adhesion_passive(M, D, qfrc_adhesion)
    for i in range(nv):
        qfrc_passive[i] = qfrc_spring[i] + qfrc_damper[i] + qfrc_fluid[i] + qfrc_adhesion[i]
    if has_gc:
        jnt_type = i1(M, MF.jnt_type)
        jnt_dofadr = i1(M, MF.jnt_dofadr)
        actgc = u1(M, MF.jnt_actgravcomp)
        for j in range(jnt_type.shape[0]):
            if actgc[j]:
                continue
            t = jnt_type[j]
            n = 6 if t == _JNT_FREE else (3 if t == _JNT_BALL else 1)
            da = jnt_dofadr[j]
            for i in range(da, da + n):
                qfrc_passive[i] += qfrc_gravcomp[i]


def check_passive_supported(m):
    """NotImplementedError for MuJoCo 4 passive features this engine does not model yet."""
    for field, what in (("jnt_springyield", "<joint springyield> plastic springs"),
                        ("tendon_springyield", "<tendon springyield> plastic springs")):
        a = getattr(m, field, None)
        if a is not None and a.size and np.any(a != 0):
            raise NotImplementedError(f"passive forces: {what} ({field}) are not supported yet")


def mj_passive(m, d):
    """Compute the passive forces (qfrc_spring, qfrc_damper, qfrc_gravcomp, qfrc_fluid,
    qfrc_passive) from the position and velocity stages' results."""
    argcheck.pair(m, d, "mj_passive")
    passive(m._A, d._A)
