"""Sensors by stage: mj_sensorPos, mj_sensorVel, mj_sensorAcc, and the energies.

Seed 001 "Forward dynamics" (sensors are computed after each stage; mjDSBL_SENSOR skips them) and
seed 000 <sensor> (every element, objtype/reftype frames, cutoff, noise). Values are written to
``sensordata[sensor_adr : sensor_adr + sensor_dim]`` in the units of the sensed quantity; frame
sensors with a reference frame are expressed in that frame.

``noise``: MuJoCo 4.0.0 stores sensor_noise but adds no noise at runtime (measured on the oracle:
sensordata is identical with and without noise), so neither does this engine.

Sensors that need what this engine does not compute yet raise NotImplementedError from
`check_sensors_supported` (camprojection, contact, tactile, geomdist/normal/fromto, insidesite,
plugin, user sensors without a callback, delayed/interval sensors). The limit sensors read the
joint's or tendon's limit row (0 when the limit is inactive), touch sums the normal forces of the
contacts in the site's zone, rangefinder casts a ray along the site's z axis (engine.ray).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from . import math as mm
from ._access import f1, f2, fs, i1, i2, is_
from ._access import KERNEL as _J
from ._layout import DF, MF
from .smooth import rne_post_constraint, subtree_vel  # the smooth stages own these
from .constraint import contact_force
from .ray import ray, ray_geom
from .support import object_acceleration, object_velocity

# mjtSensor
(TOUCH, ACCELEROMETER, VELOCIMETER, GYRO, FORCE, TORQUE, MAGNETOMETER, RANGEFINDER, CAMPROJECTION,
 JOINTPOS, JOINTVEL, TENDONPOS, TENDONVEL, ACTUATORPOS, ACTUATORVEL, ACTUATORFRC, JOINTACTFRC,
 TENDONACTFRC, BALLQUAT, BALLANGVEL, JOINTLIMITPOS, JOINTLIMITVEL, JOINTLIMITFRC, TENDONLIMITPOS,
 TENDONLIMITVEL, TENDONLIMITFRC, FRAMEPOS, FRAMEQUAT, FRAMEXAXIS, FRAMEYAXIS, FRAMEZAXIS,
 FRAMELINVEL, FRAMEANGVEL, FRAMELINACC, FRAMEANGACC, SUBTREECOM, SUBTREELINVEL, SUBTREEANGMOM,
 INSIDESITE, GEOMDIST, GEOMNORMAL, GEOMFROMTO, CONTACT, E_POTENTIAL, E_KINETIC, CLOCK, TACTILE,
 PLUGIN, USER) = range(49)
# mjtObj
OBJ_BODY, OBJ_XBODY, OBJ_GEOM, OBJ_SITE, OBJ_CAMERA = 1, 2, 5, 6, 7
# mjtStage
STAGE_POS, STAGE_VEL, STAGE_ACC = 1, 2, 3
DT_REAL, DT_POSITIVE = 0, 1
_DSBL_SENSOR = 1 << 13
_DSBL_GRAVITY = 1 << 7
_DSBL_SPRING = 1 << 5
_ENBL_ENERGY = 1 << 1
_JNT_FREE, _JNT_BALL = 0, 1
_TRN_TENDON = 3

_UNSUPPORTED = {CAMPROJECTION: "camprojection", CONTACT: "contact", TACTILE: "tactile",
                INSIDESITE: "insidesite", GEOMDIST: "distance", GEOMNORMAL: "normal",
                GEOMFROMTO: "fromto", PLUGIN: "plugin", USER: "user"}
# mjtConstraint rows the limit sensors read; mjtCone
_CNSTR_LIMIT_JOINT, _CNSTR_LIMIT_TENDON = 3, 4


@njit(**_J)
def _limit_row(M, D, t, objid):
    """The constraint row of the joint or tendon limit a limit sensor reads, or -1 (MuJoCo
    reports 0 when the limit is not active)."""
    want = _CNSTR_LIMIT_JOINT if (t == JOINTLIMITPOS or t == JOINTLIMITVEL
                                  or t == JOINTLIMITFRC) else _CNSTR_LIMIT_TENDON
    start = i1(D, DF.ne)[0] + i1(D, DF.nf)[0]
    etype = i1(D, DF.efc_type)
    eid = i1(D, DF.efc_id)
    for r in range(start, start + i1(D, DF.nl)[0]):
        if etype[r] == want and eid[r] == objid:
            return r
    return -1


@njit(**_J)
def _touch(M, D, site, res):
    """Touch: the normal forces of this site's body's contacts whose normal ray, pointed into
    the body, meets the site's volume (a contact inside the volume always counts). ``res``: 6
    numbers of workspace."""
    body = i1(M, MF.site_bodyid)[site]
    gbody = i1(M, MF.geom_bodyid)
    g1, g2 = i1(D, DF.contact_geom1), i1(D, DF.contact_geom2)
    adr = i1(D, DF.contact_efc_address)
    frame = f2(D, DF.contact_frame)
    cpos = f2(D, DF.contact_pos)
    spos = f2(D, DF.site_xpos)[site]
    smat = f2(D, DF.site_xmat)[site]
    ssize = f2(M, MF.site_size)[site]
    stype = i1(M, MF.site_type)[site]
    total = 0.0
    for c in range(i1(D, DF.ncon)[0]):
        b1, b2 = gbody[g1[c]], gbody[g2[c]]
        if adr[c] < 0 or (b1 != body and b2 != body):
            continue
        contact_force(i1(M, MF.opt_cone)[0], i1(D, DF.contact_dim), f2(D, DF.contact_friction),
                      adr, f1(D, DF.efc_force), c, res)
        fn = res[0]
        if fn <= 0.0:
            continue
        # the contact normal points from geom1 to geom2: into the body when it owns geom2
        sgn = -1.0 if b2 == body else 1.0
        n = frame[c]
        nn = math.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2])
        vec = (sgn * n[0] / nn, sgn * n[1] / nn, sgn * n[2] / nn)
        if ray_geom(spos, smat, ssize, cpos[c], vec, stype) >= 0.0:
            total += fn
    return total


# ---------------------------------------------------------------------------------------------
# frames of sensed objects
# ---------------------------------------------------------------------------------------------

@njit(**_J)
def _obj_frame(M, D, objtype, objid):
    """(body id, position, 3x3 rotation as 9-vector) of a sensed object's frame."""
    if objtype == OBJ_BODY:
        return objid, f2(D, DF.xipos)[objid], f2(D, DF.ximat)[objid]
    if objtype == OBJ_XBODY:
        return objid, f2(D, DF.xpos)[objid], f2(D, DF.xmat)[objid]
    if objtype == OBJ_GEOM:
        return i1(M, MF.geom_bodyid)[objid], f2(D, DF.geom_xpos)[objid], f2(D, DF.geom_xmat)[objid]
    if objtype == OBJ_SITE:
        return i1(M, MF.site_bodyid)[objid], f2(D, DF.site_xpos)[objid], f2(D, DF.site_xmat)[objid]
    return i1(M, MF.cam_bodyid)[objid], f2(D, DF.cam_xpos)[objid], f2(D, DF.cam_xmat)[objid]


@njit(**_J)
def _obj_quat(M, D, objtype, objid):
    """Orientation quaternion of a sensed object's frame."""
    if objtype == OBJ_BODY:
        return mm.quat_mul(mm.get4(f2(D, DF.xquat)[objid]), mm.get4(f2(M, MF.body_iquat)[objid]))
    if objtype == OBJ_XBODY:
        return mm.get4(f2(D, DF.xquat)[objid])
    if objtype == OBJ_GEOM:
        return mm.quat_mul(mm.get4(f2(D, DF.xquat)[i1(M, MF.geom_bodyid)[objid]]),
                           mm.get4(f2(M, MF.geom_quat)[objid]))
    if objtype == OBJ_SITE:
        return mm.quat_mul(mm.get4(f2(D, DF.xquat)[i1(M, MF.site_bodyid)[objid]]),
                           mm.get4(f2(M, MF.site_quat)[objid]))
    return mm.quat_mul(mm.get4(f2(D, DF.xquat)[i1(M, MF.cam_bodyid)[objid]]),
                       mm.get4(f2(M, MF.cam_quat)[objid]))


@njit(**_J)
def _world_vel(M, D, objtype, objid, out):
    """World-frame 6-D velocity [angular, linear] of an object's frame origin."""
    b, pos, mat = _obj_frame(M, D, objtype, objid)
    com = f2(D, DF.subtree_com)[i1(M, MF.body_rootid)[b]]
    object_velocity(f2(D, DF.cvel)[b], com, pos, mat, False, out)


# ---------------------------------------------------------------------------------------------
# energy
# ---------------------------------------------------------------------------------------------

@njit(**_J)
def energy_pos(M, D):
    """mj_energyPos: potential energy (gravity and springs) into energy[0]."""
    e = 0.0
    disable = is_(M, MF.opt_disableflags)
    if not disable & _DSBL_GRAVITY:
        g = f1(M, MF.opt_gravity)
        mass = f1(M, MF.body_mass)
        xipos = f2(D, DF.xipos)
        for b in range(1, mass.shape[0]):
            e -= mass[b] * (g[0] * xipos[b, 0] + g[1] * xipos[b, 1] + g[2] * xipos[b, 2])
    if not disable & _DSBL_SPRING:
        jnt_type = i1(M, MF.jnt_type)
        qadr = i1(M, MF.jnt_qposadr)
        k = f1(M, MF.jnt_stiffness)
        kp = f2(M, MF.jnt_stiffnesspoly)
        qpos = f1(D, DF.qpos)
        qs = f1(M, MF.qpos_spring)
        for j in range(jnt_type.shape[0]):
            if k[j] == 0.0 and kp[j, 0] == 0.0 and kp[j, 1] == 0.0:
                continue
            a = qadr[j]
            t = jnt_type[j]
            if t == _JNT_FREE:
                x2 = 0.0
                for i in range(3):
                    x2 += (qpos[a + i] - qs[a + i]) ** 2
                e += _spring_energy(k[j], kp[j], math.sqrt(x2))
                a += 3
            if t == _JNT_FREE or t == _JNT_BALL:
                q = mm.quat_normalize(mm.get4(qpos[a:a + 4]))
                r = mm.sub_quat(q, mm.get4(qs[a:a + 4]))
                e += _spring_energy(k[j], kp[j], mm.norm3(r))
            else:
                e += _spring_energy(k[j], kp[j], qpos[a] - qs[a])
        tk = f1(M, MF.tendon_stiffness)
        tkp = f2(M, MF.tendon_stiffnesspoly)
        ls = f2(M, MF.tendon_lengthspring)
        L = f1(D, DF.ten_length)
        for t in range(tk.shape[0]):
            if L[t] > ls[t, 1]:
                x = L[t] - ls[t, 1]
            elif L[t] < ls[t, 0]:
                x = L[t] - ls[t, 0]
            else:
                continue
            e += _spring_energy(tk[t], tkp[t], x)
    f1(D, DF.energy)[0] = e


@njit(**_J)
def _spring_energy(k, p, x):
    """Energy k x^2/2 + p0 x^3/3 + p1 x^4/4 of a polynomial spring at deviation x (the integral
    of its force; for quaternion and free-translation parts x = |deviation| >= 0; for scalar
    joints and tendons the cubic term keeps its sign, as measured on MuJoCo 4.0.0)."""
    return 0.5 * k * x * x + p[0] * x * x * x / 3.0 + 0.25 * p[1] * x * x * x * x


@njit(**_J)
def energy_vel(M, D):
    """mj_energyVel: kinetic energy 0.5 qvel' M qvel into energy[1]."""
    dof_Madr = i1(M, MF.dof_Madr)
    parent = i1(M, MF.dof_parentid)
    qM = f1(D, DF.qM)
    v = f1(D, DF.qvel)
    e = 0.0
    for i in range(v.shape[0]):
        adr = dof_Madr[i]
        e += 0.5 * qM[adr] * v[i] * v[i]
        adr += 1
        j = parent[i]
        while j >= 0:
            e += qM[adr] * v[i] * v[j]
            adr += 1
            j = parent[j]
    f1(D, DF.energy)[1] = e


# ---------------------------------------------------------------------------------------------
# per-stage sensor kernels
# ---------------------------------------------------------------------------------------------

@njit(**_J)
def _apply_cutoff(M, D, s):
    cutoff = f1(M, MF.sensor_cutoff)[s]
    if cutoff <= 0.0:
        return
    dtype = i1(M, MF.sensor_datatype)[s]
    adr = i1(M, MF.sensor_adr)[s]
    dim = i1(M, MF.sensor_dim)[s]
    data = f1(D, DF.sensordata)
    for k in range(adr, adr + dim):
        if dtype == DT_REAL:
            data[k] = min(cutoff, max(-cutoff, data[k]))
        elif dtype == DT_POSITIVE:
            data[k] = min(cutoff, data[k])


@njit(**_J)
def _sensor_pos_one(M, D, s, out):
    t = i1(M, MF.sensor_type)[s]
    objtype = i1(M, MF.sensor_objtype)[s]
    objid = i1(M, MF.sensor_objid)[s]
    reftype = i1(M, MF.sensor_reftype)[s]
    refid = i1(M, MF.sensor_refid)[s]
    if t == MAGNETOMETER:
        mat = f2(D, DF.site_xmat)[objid]
        v = mm.mat_t_vec(mat, mm.get3(f1(M, MF.opt_magnetic)))
        mm.set3(out, v)
    elif t == JOINTPOS:
        out[0] = f1(D, DF.qpos)[i1(M, MF.jnt_qposadr)[objid]]
    elif t == TENDONPOS:
        out[0] = f1(D, DF.ten_length)[objid]
    elif t == ACTUATORPOS:
        out[0] = f1(D, DF.actuator_length)[objid]
    elif t == BALLQUAT:
        a = i1(M, MF.jnt_qposadr)[objid]
        q = mm.quat_normalize(mm.get4(f1(D, DF.qpos)[a:a + 4]))
        mm.set4(out, q)
    elif t == JOINTLIMITPOS or t == TENDONLIMITPOS:
        r = _limit_row(M, D, t, objid)
        out[0] = f1(D, DF.efc_pos)[r] - f1(D, DF.efc_margin)[r] if r >= 0 else 0.0
    elif t == RANGEFINDER:
        # along the site's z axis, ignoring the site's own body (static geoms count)
        pos = f2(D, DF.site_xpos)[objid]
        mat = f2(D, DF.site_xmat)[objid]
        x, _ = ray(M, D, pos, (mat[2], mat[5], mat[8]), pos, False, True,
                   i1(M, MF.site_bodyid)[objid])
        out[0] = x
    elif t == FRAMEPOS:
        b, pos, mat = _obj_frame(M, D, objtype, objid)
        if refid < 0:
            mm.set3(out, mm.get3(pos))
        else:
            rb, rpos, rmat = _obj_frame(M, D, reftype, refid)
            mm.set3(out, mm.mat_t_vec(rmat, mm.sub3(mm.get3(pos), mm.get3(rpos))))
    elif t == FRAMEQUAT:
        q = _obj_quat(M, D, objtype, objid)
        if refid >= 0:
            q = mm.quat_mul(mm.quat_neg(_obj_quat(M, D, reftype, refid)), q)
        mm.set4(out, q)
    elif t == FRAMEXAXIS or t == FRAMEYAXIS or t == FRAMEZAXIS:
        k = t - FRAMEXAXIS
        b, pos, mat = _obj_frame(M, D, objtype, objid)
        ax = (mat[k], mat[3 + k], mat[6 + k])
        if refid >= 0:
            rb, rpos, rmat = _obj_frame(M, D, reftype, refid)
            ax = mm.mat_t_vec(rmat, ax)
        mm.set3(out, ax)
    elif t == SUBTREECOM:
        mm.set3(out, mm.get3(f2(D, DF.subtree_com)[objid]))
    elif t == E_POTENTIAL:
        if not is_(M, MF.opt_enableflags) & _ENBL_ENERGY:
            energy_pos(M, D)
        out[0] = f1(D, DF.energy)[0]
    elif t == CLOCK:
        out[0] = fs(D, DF.time)


@njit(**_J)
def _sensor_vel_one(M, D, s, out, tmp, tmp2):
    t = i1(M, MF.sensor_type)[s]
    objtype = i1(M, MF.sensor_objtype)[s]
    objid = i1(M, MF.sensor_objid)[s]
    reftype = i1(M, MF.sensor_reftype)[s]
    refid = i1(M, MF.sensor_refid)[s]
    if t == VELOCIMETER or t == GYRO:
        b, pos, mat = _obj_frame(M, D, OBJ_SITE, objid)
        com = f2(D, DF.subtree_com)[i1(M, MF.body_rootid)[b]]
        object_velocity(f2(D, DF.cvel)[b], com, pos, mat, True, tmp)
        o = 3 if t == VELOCIMETER else 0
        for k in range(3):
            out[k] = tmp[o + k]
    elif t == JOINTVEL:
        out[0] = f1(D, DF.qvel)[i1(M, MF.jnt_dofadr)[objid]]
    elif t == TENDONVEL:
        out[0] = f1(D, DF.ten_velocity)[objid]
    elif t == ACTUATORVEL:
        out[0] = f1(D, DF.actuator_velocity)[objid]
    elif t == BALLANGVEL:
        a = i1(M, MF.jnt_dofadr)[objid]
        for k in range(3):
            out[k] = f1(D, DF.qvel)[a + k]
    elif t == JOINTLIMITVEL or t == TENDONLIMITVEL:
        r = _limit_row(M, D, t, objid)
        out[0] = f1(D, DF.efc_vel)[r] if r >= 0 else 0.0
    elif t == FRAMELINVEL or t == FRAMEANGVEL:
        _world_vel(M, D, objtype, objid, tmp)
        if refid < 0:
            o = 3 if t == FRAMELINVEL else 0
            for k in range(3):
                out[k] = tmp[o + k]
        else:
            _world_vel(M, D, reftype, refid, tmp2)
            b, pos, mat = _obj_frame(M, D, objtype, objid)
            rb, rpos, rmat = _obj_frame(M, D, reftype, refid)
            if t == FRAMEANGVEL:
                w = (tmp[0] - tmp2[0], tmp[1] - tmp2[1], tmp[2] - tmp2[2])
                mm.set3(out, mm.mat_t_vec(rmat, w))
            else:
                # velocity relative to the moving reference frame: subtract the frame's
                # transport velocity w_ref x (p - p_ref)
                dif = mm.sub3(mm.get3(pos), mm.get3(rpos))
                c = mm.cross3((tmp2[0], tmp2[1], tmp2[2]), dif)
                v = (tmp[3] - tmp2[3] - c[0], tmp[4] - tmp2[4] - c[1], tmp[5] - tmp2[5] - c[2])
                mm.set3(out, mm.mat_t_vec(rmat, v))
    elif t == SUBTREELINVEL:
        mm.set3(out, mm.get3(f2(D, DF.subtree_linvel)[objid]))
    elif t == SUBTREEANGMOM:
        mm.set3(out, mm.get3(f2(D, DF.subtree_angmom)[objid]))
    elif t == E_KINETIC:
        if not is_(M, MF.opt_enableflags) & _ENBL_ENERGY:
            energy_vel(M, D)
        out[0] = f1(D, DF.energy)[1]


@njit(**_J)
def _sensor_acc_one(M, D, s, out, tmp):
    t = i1(M, MF.sensor_type)[s]
    objtype = i1(M, MF.sensor_objtype)[s]
    objid = i1(M, MF.sensor_objid)[s]
    if t == TOUCH:
        out[0] = _touch(M, D, objid, tmp)
    elif t == ACCELEROMETER:
        b, pos, mat = _obj_frame(M, D, OBJ_SITE, objid)
        com = f2(D, DF.subtree_com)[i1(M, MF.body_rootid)[b]]
        object_acceleration(f2(D, DF.cvel)[b], f2(D, DF.cacc)[b], com, pos, mat, True, tmp)
        for k in range(3):
            out[k] = tmp[3 + k]
    elif t == FORCE or t == TORQUE:
        b, pos, mat = _obj_frame(M, D, OBJ_SITE, objid)
        com = f2(D, DF.subtree_com)[i1(M, MF.body_rootid)[b]]
        f = mm.transform_force(f2(D, DF.cfrc_int)[b], mm.get3(pos), mm.get3(com))
        if t == FORCE:
            mm.set3(out, mm.mat_t_vec(mat, (f[3], f[4], f[5])))
        else:
            mm.set3(out, mm.mat_t_vec(mat, (f[0], f[1], f[2])))
    elif t == ACTUATORFRC:
        out[0] = f1(D, DF.actuator_force)[objid]
    elif t == JOINTACTFRC:
        out[0] = f1(D, DF.qfrc_actuator)[i1(M, MF.jnt_dofadr)[objid]]
    elif t == TENDONACTFRC:
        trntype = i1(M, MF.actuator_trntype)
        trnid = i2(M, MF.actuator_trnid)
        force = f1(D, DF.actuator_force)
        total = 0.0
        for a in range(trntype.shape[0]):
            if trntype[a] == _TRN_TENDON and trnid[a, 0] == objid:
                total += force[a]
        out[0] = total
    elif t == JOINTLIMITFRC or t == TENDONLIMITFRC:
        r = _limit_row(M, D, t, objid)
        out[0] = f1(D, DF.efc_force)[r] if r >= 0 else 0.0
    elif t == FRAMELINACC or t == FRAMEANGACC:
        b, pos, mat = _obj_frame(M, D, objtype, objid)
        com = f2(D, DF.subtree_com)[i1(M, MF.body_rootid)[b]]
        object_acceleration(f2(D, DF.cvel)[b], f2(D, DF.cacc)[b], com, pos, mat, False, tmp)
        o = 3 if t == FRAMELINACC else 0
        for k in range(3):
            out[k] = tmp[o + k]


# ---------------------------------------------------------------------------------------------
# stages
# ---------------------------------------------------------------------------------------------

@njit(**_J)
def _run(M, D, stage):
    if is_(M, MF.opt_disableflags) & _DSBL_SENSOR:
        return
    nsensor = i1(M, MF.sensor_type).shape[0]
    if nsensor == 0:
        return
    need = i1(M, MF.sensor_needstage)
    types = i1(M, MF.sensor_type)
    adr = i1(M, MF.sensor_adr)
    dim = i1(M, MF.sensor_dim)
    data = f1(D, DF.sensordata)
    tmp = f2(D, DF.fw_cfrc)[0]
    tmp2 = f2(D, DF.fw_cfrc)[1] if f2(D, DF.fw_cfrc).shape[0] > 1 else tmp
    if stage == STAGE_VEL:
        for s in range(nsensor):
            if need[s] == STAGE_VEL and (types[s] == SUBTREELINVEL or types[s] == SUBTREEANGMOM):
                subtree_vel(M, D)
                break
    if stage == STAGE_ACC:
        for s in range(nsensor):
            t = types[s]
            if need[s] == STAGE_ACC and (t == ACCELEROMETER or t == FORCE or t == TORQUE
                                         or t == FRAMELINACC or t == FRAMEANGACC):
                rne_post_constraint(M, D)
                break
    for s in range(nsensor):
        if need[s] != stage:
            continue
        out = data[adr[s]:adr[s] + dim[s]]
        # each kernel writes only its own types; the model's needstage decides when they run
        # (e.g. MuJoCo evaluates e_kinetic in the acceleration stage)
        _sensor_pos_one(M, D, s, out)
        _sensor_vel_one(M, D, s, out, tmp, tmp2)
        _sensor_acc_one(M, D, s, out, tmp)
        _apply_cutoff(M, D, s)


@njit(**_J)
def sensor_pos(M, D):
    """mj_sensorPos: sensors whose needstage is position."""
    _run(M, D, STAGE_POS)


@njit(**_J)
def sensor_vel(M, D):
    """mj_sensorVel: sensors whose needstage is velocity."""
    _run(M, D, STAGE_VEL)


@njit(**_J)
def sensor_acc(M, D):
    """mj_sensorAcc: sensors whose needstage is acceleration."""
    _run(M, D, STAGE_ACC)


def check_sensors_supported(m):
    """NotImplementedError naming the first sensor this engine cannot compute yet."""
    for s in range(m.nsensor):
        t = int(m.sensor_type[s])
        if t in _UNSUPPORTED:
            raise NotImplementedError(f"sensor {s}: <{_UNSUPPORTED[t]}> sensors are not supported yet")
        if m.sensor_delay.size and m.sensor_delay[s] != 0:
            raise NotImplementedError(f"sensor {s}: <sensor delay> is not supported yet")
        if m.sensor_interval.size and np.any(m.sensor_interval[s] != 0):
            raise NotImplementedError(f"sensor {s}: <sensor interval> is not supported yet")
        if t == RANGEFINDER:
            if int(m.sensor_objtype[s]) != OBJ_SITE or int(m.sensor_intprm[s][0]) != 1:
                raise NotImplementedError(f"sensor {s}: <rangefinder> on a camera or with a data "
                                          "spec other than 'dist' is not supported yet")


def mj_sensorPos(m, d):
    """Position-dependent sensors into sensordata."""
    sensor_pos(m._A, d._A)


def mj_sensorVel(m, d):
    """Velocity-dependent sensors into sensordata."""
    sensor_vel(m._A, d._A)


def mj_sensorAcc(m, d):
    """Acceleration-dependent sensors into sensordata (runs mj_rnePostConstraint if needed)."""
    sensor_acc(m._A, d._A)


def mj_energyPos(m, d):
    """Potential energy into d.energy[0]."""
    energy_pos(m._A, d._A)


def mj_energyVel(m, d):
    """Kinetic energy into d.energy[1]."""
    energy_vel(m._A, d._A)
