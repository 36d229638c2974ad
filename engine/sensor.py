"""Sensors by stage: mj_sensorPos, mj_sensorVel, mj_sensorAcc, and the energies.

Seed 001 "Forward dynamics" (sensors are computed after each stage; mjDSBL_SENSOR skips them) and
seed 000 <sensor> (every element, objtype/reftype frames, cutoff, noise). Values are written to
``sensordata[sensor_adr : sensor_adr + sensor_dim]`` in the units of the sensed quantity; frame
sensors with a reference frame are expressed in that frame.

``noise``: MuJoCo 4.0.0 stores sensor_noise but adds no noise at runtime (measured on the oracle:
sensordata is identical with and without noise), so neither does this engine.

Sensors that need what this engine does not compute yet raise NotImplementedError from
`check_sensors_supported` (tactile, plugin, user sensors without a
callback, collision sensors on mesh sdfs and mesh-sdf pairs). The limit sensors read the
joint's or tendon's limit row (0 when the limit is inactive), touch sums the normal forces of the
contacts in the site's zone, rangefinder casts rays from a site or a camera (engine.ray).
<contact> (XML reference "sensor/contact") matches, reduces and extracts d.contact and its
forces (`_contact_sensor`); <distance>, <normal>, <fromto> (XML reference "collision sensors")
run mj_geomDistance (engine/collision/distance.py) with the cutoff as the search distance; the
cutoff clamps the distance only and is ignored by contact and fromto sensors.
"""
from __future__ import annotations

import math

import numpy as np

from . import argcheck
from . import math as mm
from ._access import f1, f2, fs, i1, i2, is_
from ._jit import kernel
from ._layout import DF, MF
from .smooth import rne_post_constraint, subtree_vel  # the smooth stages own these
from .constraint import contact_force
from .ray import ray, ray_geom, ray_normal
from .collision.distance import geom_distance, sdf_unsupported
from .support import object_acceleration, object_velocity
from . import sleep

from .enums import mjtSensor  # noqa: E402
(TOUCH, ACCELEROMETER, VELOCIMETER, GYRO, FORCE, TORQUE, MAGNETOMETER, RANGEFINDER, CAMPROJECTION,
 JOINTPOS, JOINTVEL, TENDONPOS, TENDONVEL, ACTUATORPOS, ACTUATORVEL, ACTUATORFRC, JOINTACTFRC,
 TENDONACTFRC, BALLQUAT, BALLANGVEL, JOINTLIMITPOS, JOINTLIMITVEL, JOINTLIMITFRC, TENDONLIMITPOS,
 TENDONLIMITVEL, TENDONLIMITFRC, FRAMEPOS, FRAMEQUAT, FRAMEXAXIS, FRAMEYAXIS, FRAMEZAXIS,
 FRAMELINVEL, FRAMEANGVEL, FRAMELINACC, FRAMEANGACC, SUBTREECOM, SUBTREELINVEL, SUBTREEANGMOM,
 INSIDESITE, GEOMDIST, GEOMNORMAL, GEOMFROMTO, CONTACT, E_POTENTIAL, E_KINETIC, CLOCK, TACTILE,
 PLUGIN, USER) = tuple(int(m) for m in mjtSensor)
# mjtObj
from .enums import (mjOBJ_BODY as OBJ_BODY, mjOBJ_XBODY as OBJ_XBODY,  # noqa
                    mjOBJ_GEOM as OBJ_GEOM, mjOBJ_SITE as OBJ_SITE, mjOBJ_CAMERA as OBJ_CAMERA)
# mjtStage
from .enums import (mjSTAGE_POS as STAGE_POS, mjSTAGE_VEL as STAGE_VEL,  # noqa
                    mjSTAGE_ACC as STAGE_ACC, mjDATATYPE_REAL as DT_REAL,
                    mjDATATYPE_POSITIVE as DT_POSITIVE, mjDSBL_SENSOR as _DSBL_SENSOR,
                    mjDSBL_GRAVITY as _DSBL_GRAVITY, mjDSBL_SPRING as _DSBL_SPRING,
                    mjENBL_ENERGY as _ENBL_ENERGY, mjJNT_FREE as _JNT_FREE,
                    mjJNT_BALL as _JNT_BALL, mjTRN_TENDON as _TRN_TENDON)

_UNSUPPORTED = {TACTILE: "tactile"}   # user and plugin: engine.plugin.pipeline
_COLLISION_TAG = {GEOMDIST: "distance", GEOMNORMAL: "normal", GEOMFROMTO: "fromto"}
# mjtConstraint rows the limit sensors read; mjtCone
_CNSTR_LIMIT_JOINT, _CNSTR_LIMIT_TENDON = 3, 4


@kernel
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


@kernel
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
                      adr, f1(D, DF.contact_adhesion), f1(D, DF.efc_force), c, res)
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
# contact sensor (XML reference "sensor/contact": matching, reduction, extraction)
# ---------------------------------------------------------------------------------------------

# mjtConDataField bits of sensor_intprm[s, 0], their sizes; mjtReduce modes of sensor_intprm[s, 1]
(CD_FOUND, CD_FORCE, CD_TORQUE, CD_DIST, CD_POS, CD_NORMAL, CD_TANGENT) = range(7)
_CD_SIZE = (1, 3, 3, 1, 3, 3, 3)
RED_NONE, RED_MINDIST, RED_MAXFORCE, RED_NETFORCE = 0, 1, 2, 3
_GEOM_SPHERE, _GEOM_CAPSULE, _GEOM_ELLIPSOID, _GEOM_CYLINDER, _GEOM_BOX = 2, 3, 4, 5, 6
from .enums import mjMINVAL as _MINVAL  # noqa: E402


@kernel
def inside_geom(pos, mat, size, gtype, point):
    """mju_insideGeom: whether ``point`` (world) is strictly inside the primitive volume of type
    ``gtype`` (sphere, capsule, ellipsoid, cylinder, box) with frame ``pos``, ``mat`` (9,
    row-major) and ``size``; False for other types."""
    d0 = point[0] - pos[0]
    d1 = point[1] - pos[1]
    d2 = point[2] - pos[2]
    if gtype == _GEOM_SPHERE:
        return d0 * d0 + d1 * d1 + d2 * d2 < size[0] * size[0]
    x = mat[0] * d0 + mat[3] * d1 + mat[6] * d2
    y = mat[1] * d0 + mat[4] * d1 + mat[7] * d2
    z = mat[2] * d0 + mat[5] * d1 + mat[8] * d2
    if gtype == _GEOM_CAPSULE:
        zc = min(max(z, -size[1]), size[1])
        return x * x + y * y + (z - zc) * (z - zc) < size[0] * size[0]
    if gtype == _GEOM_ELLIPSOID:
        return ((x / size[0]) * (x / size[0]) + (y / size[1]) * (y / size[1])
                + (z / size[2]) * (z / size[2])) < 1.0
    if gtype == _GEOM_CYLINDER:
        return x * x + y * y < size[0] * size[0] and abs(z) < size[1]
    if gtype == _GEOM_BOX:
        return abs(x) < size[0] and abs(y) < size[1] and abs(z) < size[2]
    return False


@kernel
def _side_match(body_parentid, body, geom, otype, oid):
    """Whether one side of a contact (its body and geom) meets a sensor criterion: none and site
    (tested before) always do, geom and body by id, subtree (XBODY) when the body descends from
    oid."""
    if otype == 0 or otype == OBJ_SITE:
        return True
    if otype == OBJ_GEOM:
        return geom == oid
    if otype == OBJ_BODY:
        return body == oid
    if otype == OBJ_XBODY:
        b = body
        while b > oid:  # parents have smaller ids
            b = body_parentid[b]
        return b == oid
    return False


@kernel
def match_contact(M, D, c, type1, id1, type2, id2):
    """0 when contact ``c`` does not meet the sensor's criteria (object 1: none, site, geom1,
    body1, subtree1; object 2: none, geom2, body2, subtree2), 1 when it does with the contact's
    normal pointing from object 1 to object 2, -1 when it does the other way round (the sensor
    then flips the normal). With one object given, the normal points away from object 1 /
    towards object 2; when both orders fit (ambiguous), the contact's own normal is kept."""
    if type1 == 0 and type2 == 0:
        return 1
    if type1 == OBJ_SITE:
        if not inside_geom(f2(D, DF.site_xpos)[id1], f2(D, DF.site_xmat)[id1],
                           f2(M, MF.site_size)[id1], i1(M, MF.site_type)[id1],
                           f2(D, DF.contact_pos)[c]):
            return 0
    parent = i1(M, MF.body_parentid)
    gbody = i1(M, MF.geom_bodyid)
    ga = i1(D, DF.contact_geom1)[c]
    gb = i1(D, DF.contact_geom2)[c]
    ba = gbody[ga] if ga >= 0 else -1
    bb = gbody[gb] if gb >= 0 else -1
    m11 = _side_match(parent, ba, ga, type1, id1)
    m12 = _side_match(parent, bb, gb, type1, id1)
    m21 = _side_match(parent, ba, ga, type2, id2)
    m22 = _side_match(parent, bb, gb, type2, id2)
    if not (m11 or m12) or not (m21 or m22):
        return 0
    if type1 != 0 and type2 != 0:
        # each object must be on its own side: regular (1 on geom1, 2 on geom2) or reverse; a
        # contact where both objects only fit the same side does not match
        if m11 and m22:
            return 1
        if m12 and m21:
            return -1
        return 0
    if type1 != 0:
        return 1 if m11 else -1
    return 1 if m22 else -1


@kernel
def _cforce(M, D, c, res):
    contact_force(i1(M, MF.opt_cone)[0], i1(D, DF.contact_dim), f2(D, DF.contact_friction),
                  i1(D, DF.contact_efc_address), f1(D, DF.contact_adhesion), f1(D, DF.efc_force),
                  c, res)


@kernel
def _contact_sensor(M, D, s, out, res):
    """<contact> sensor ``s`` into ``out`` (sensor_dim numbers = num slots of the data fields in
    the bit order of sensor_intprm[s, 0]: found, force, torque, dist, pos, normal, tangent).

    XML reference "sensor/contact". Matching runs over all of d.contact (a contact without
    constraint rows reports zero force); ``found`` = number of matched contacts. Reduction:
    none = the first num matches in d.contact order; mindist = the num smallest ``dist``
    ascending; maxforce = the num largest |force[0:3]| descending (ties by
    contact index); netforce = one synthetic contact at the force-weighted (|force[0:3]|)
    centroid of the matches, force and torque in the world frame about that point, dist 0,
    normal (1,0,0), tangent (0,1,0) (all zero when nothing matches, as measured on mujoco
    4.0.0). Extraction: force and torque (mj_contactForce: normal,
    tangent1, tangent2 in the contact frame; force units, torque units) and dist (length), pos,
    normal, tangent1 (world); when the match order is reversed the normal and tangent1 are
    negated and the force's and torque's third component too (the frame turned half a turn
    about tangent2, the reaction force). Slots past the matches are zero. ``res``: 6 numbers
    of workspace. Workspace rows: sens_match (contact id, flip), sens_crit."""
    spec = i2(M, MF.sensor_intprm)[s, 0]
    reduce = i2(M, MF.sensor_intprm)[s, 1]
    type1 = i1(M, MF.sensor_objtype)[s]
    id1 = i1(M, MF.sensor_objid)[s]
    type2 = i1(M, MF.sensor_reftype)[s]
    id2 = i1(M, MF.sensor_refid)[s]
    dim = out.shape[0]
    size = 0
    for k in range(7):
        if spec & (1 << k):
            size += _CD_SIZE[k]
    for k in range(dim):
        out[k] = 0.0
    if size == 0:
        return
    num = dim // size
    # offsets of the fields within a slot (-1: not requested)
    o_found = o_force = o_torque = o_dist = o_pos = o_normal = o_tangent = -1
    off = 0
    if spec & (1 << CD_FOUND):
        o_found = off
        off += 1
    if spec & (1 << CD_FORCE):
        o_force = off
        off += 3
    if spec & (1 << CD_TORQUE):
        o_torque = off
        off += 3
    if spec & (1 << CD_DIST):
        o_dist = off
        off += 1
    if spec & (1 << CD_POS):
        o_pos = off
        off += 3
    if spec & (1 << CD_NORMAL):
        o_normal = off
        off += 3
    if spec & (1 << CD_TANGENT):
        o_tangent = off
        off += 3

    match = i2(D, DF.sens_match)
    crit = f1(D, DF.sens_crit)
    cdist = f1(D, DF.contact_dist)
    cpos = f2(D, DF.contact_pos)
    cframe = f2(D, DF.contact_frame)
    nmatch = 0
    for c in range(i1(D, DF.ncon)[0]):
        r = match_contact(M, D, c, type1, id1, type2, id2)
        if r == 0:
            continue
        match[nmatch, 0] = c
        match[nmatch, 1] = 1 if r < 0 else 0
        if reduce == RED_MINDIST:
            crit[nmatch] = cdist[c]
        elif reduce == RED_MAXFORCE:
            _cforce(M, D, c, res)
            crit[nmatch] = -(res[0] * res[0] + res[1] * res[1] + res[2] * res[2])
        nmatch += 1

    if reduce == RED_NETFORCE:
        if nmatch == 0:  # mujoco 4.0.0 leaves the slot zero when nothing matches
            return
        # the point: force-weighted centroid of the contact positions
        p0 = p1 = p2 = 0.0
        total = 0.0
        for j in range(nmatch):
            c = match[j, 0]
            _cforce(M, D, c, res)
            w = math.sqrt(res[0] * res[0] + res[1] * res[1] + res[2] * res[2])
            p0 += w * cpos[c, 0]
            p1 += w * cpos[c, 1]
            p2 += w * cpos[c, 2]
            total += w
        sc = 1.0 / max(total, _MINVAL)
        p0 *= sc
        p1 *= sc
        p2 *= sc
        # total wrench about the point, world frame
        F0 = F1 = F2 = T0 = T1 = T2 = 0.0
        for j in range(nmatch):
            c = match[j, 0]
            _cforce(M, D, c, res)
            sg = -1.0 if match[j, 1] else 1.0
            fr = cframe[c]
            f0 = sg * (fr[0] * res[0] + fr[3] * res[1] + fr[6] * res[2])
            f1_ = sg * (fr[1] * res[0] + fr[4] * res[1] + fr[7] * res[2])
            f2_ = sg * (fr[2] * res[0] + fr[5] * res[1] + fr[8] * res[2])
            t0 = sg * (fr[0] * res[3] + fr[3] * res[4] + fr[6] * res[5])
            t1 = sg * (fr[1] * res[3] + fr[4] * res[4] + fr[7] * res[5])
            t2 = sg * (fr[2] * res[3] + fr[5] * res[4] + fr[8] * res[5])
            r0 = cpos[c, 0] - p0
            r1 = cpos[c, 1] - p1
            r2 = cpos[c, 2] - p2
            F0 += f0
            F1 += f1_
            F2 += f2_
            T0 += t0 + (r1 * f2_ - r2 * f1_)
            T1 += t1 + (r2 * f0 - r0 * f2_)
            T2 += t2 + (r0 * f1_ - r1 * f0)
        if o_found >= 0:
            out[o_found] = nmatch
        if o_force >= 0:
            out[o_force] = F0
            out[o_force + 1] = F1
            out[o_force + 2] = F2
        if o_torque >= 0:
            out[o_torque] = T0
            out[o_torque + 1] = T1
            out[o_torque + 2] = T2
        if o_pos >= 0:
            out[o_pos] = p0
            out[o_pos + 1] = p1
            out[o_pos + 2] = p2
        if o_normal >= 0:
            out[o_normal] = 1.0
        if o_tangent >= 0:
            out[o_tangent + 1] = 1.0
        return

    nslot = min(num, nmatch)
    if reduce == RED_MINDIST or reduce == RED_MAXFORCE:
        # the nslot smallest criteria, ascending, ties by contact index (selection)
        for k in range(nslot):
            best = k
            for j in range(k + 1, nmatch):
                if crit[j] < crit[best] or (crit[j] == crit[best]
                                            and match[j, 0] < match[best, 0]):
                    best = j
            if best != k:
                cr = crit[k]
                crit[k] = crit[best]
                crit[best] = cr
                for q in range(2):
                    t = match[k, q]
                    match[k, q] = match[best, q]
                    match[best, q] = t
    for k in range(nslot):
        c = match[k, 0]
        sg = -1.0 if match[k, 1] else 1.0
        base = k * size
        if o_found >= 0:
            out[base + o_found] = nmatch
        if o_force >= 0 or o_torque >= 0:
            _cforce(M, D, c, res)
            if o_force >= 0:
                out[base + o_force] = res[0]
                out[base + o_force + 1] = res[1]
                out[base + o_force + 2] = sg * res[2]
            if o_torque >= 0:
                out[base + o_torque] = res[3]
                out[base + o_torque + 1] = res[4]
                out[base + o_torque + 2] = sg * res[5]
        if o_dist >= 0:
            out[base + o_dist] = cdist[c]
        if o_pos >= 0:
            for q in range(3):
                out[base + o_pos + q] = cpos[c, q]
        if o_normal >= 0:
            for q in range(3):
                out[base + o_normal + q] = sg * cframe[c, q]
        if o_tangent >= 0:
            for q in range(3):
                out[base + o_tangent + q] = sg * cframe[c, 3 + q]


# ---------------------------------------------------------------------------------------------
# collision sensors (XML reference "collision sensors": distance, normal, fromto)
# ---------------------------------------------------------------------------------------------

@kernel
def _geompair_sensor(M, D, s, t, out):
    """<distance> (signed distance, length), <normal> (unit vector from geom1's surface to
    geom2's, world; zeros when nothing is found) or <fromto> (the segment, 6 numbers, world;
    zeros when nothing is found) of the closest pair among geom1|body1's geoms and geom2|body2's,
    searched up to the sensor's cutoff (mj_geomDistance with distmax = cutoff; distance = cutoff
    when nothing is closer). Workspace rows: sens_fromto."""
    cutoff = f1(M, MF.sensor_cutoff)[s]
    ot = i1(M, MF.sensor_objtype)[s]
    oi = i1(M, MF.sensor_objid)[s]
    rt = i1(M, MF.sensor_reftype)[s]
    ri = i1(M, MF.sensor_refid)[s]
    if ot == OBJ_BODY:
        a1 = i1(M, MF.body_geomadr)[oi]
        n1 = i1(M, MF.body_geomnum)[oi]
    else:
        a1, n1 = oi, 1
    if rt == OBJ_BODY:
        a2 = i1(M, MF.body_geomadr)[ri]
        n2 = i1(M, MF.body_geomnum)[ri]
    else:
        a2, n2 = ri, 1
    ft = f2(D, DF.sens_fromto)
    best = ft[0]
    new = ft[1]
    for k in range(6):
        best[k] = 0.0
    dist = cutoff
    for g1 in range(a1, a1 + n1):
        for g2 in range(a2, a2 + n2):
            dn = geom_distance(M, D, g1, g2, cutoff, new)
            if dn < dist:
                dist = dn
                for k in range(6):
                    best[k] = new[k]
    if t == GEOMDIST:
        out[0] = dist
    elif t == GEOMNORMAL:
        n0 = best[3] - best[0]
        n1_ = best[4] - best[1]
        n2_ = best[5] - best[2]
        if n0 != 0.0 or n1_ != 0.0 or n2_ != 0.0:
            nn = math.sqrt(n0 * n0 + n1_ * n1_ + n2_ * n2_)
            if nn < _MINVAL:
                n0, n1_, n2_ = 1.0, 0.0, 0.0
            else:
                n0 /= nn
                n1_ /= nn
                n2_ /= nn
        out[0] = n0
        out[1] = n1_
        out[2] = n2_
    else:
        for k in range(6):
            out[k] = best[k]


# ---------------------------------------------------------------------------------------------
# frames of sensed objects
# ---------------------------------------------------------------------------------------------

@kernel
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


@kernel
def _obj_quat(M, D, objtype, objid):
    """Orientation quaternion of a sensed object's frame: the one mj_kinematics stored (mujoco
    4.0.0 reads xiquat, geom_xquat, site_xquat, which for a frame the compiler found the same as
    its body's is a copy of xquat, not xquat * local quat); a camera's is computed."""
    if objtype == OBJ_BODY:
        return mm.get4(f2(D, DF.xiquat)[objid])
    if objtype == OBJ_XBODY:
        return mm.get4(f2(D, DF.xquat)[objid])
    if objtype == OBJ_GEOM:
        return mm.get4(f2(D, DF.geom_xquat)[objid])
    if objtype == OBJ_SITE:
        return mm.get4(f2(D, DF.site_xquat)[objid])
    return mm.quat_mul(mm.get4(f2(D, DF.xquat)[i1(M, MF.cam_bodyid)[objid]]),
                       mm.get4(f2(M, MF.cam_quat)[objid]))


@kernel
def _world_vel(M, D, objtype, objid, out):
    """World-frame 6-D velocity [angular, linear] of an object's frame origin."""
    b, pos, mat = _obj_frame(M, D, objtype, objid)
    com = f2(D, DF.subtree_com)[i1(M, MF.body_rootid)[b]]
    object_velocity(f2(D, DF.cvel)[b], com, pos, mat, False, out)


# ---------------------------------------------------------------------------------------------
# energy
# ---------------------------------------------------------------------------------------------

@kernel
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


@kernel
def _spring_energy(k, p, x):
    """Energy k x^2/2 + p0 x^3/3 + p1 x^4/4 of a polynomial spring at deviation x (the integral
    of its force; for quaternion and free-translation parts x = |deviation| >= 0; for scalar
    joints and tendons the cubic term keeps its sign, as measured on MuJoCo 4.0.0)."""
    return 0.5 * k * x * x + p[0] * x * x * x / 3.0 + 0.25 * p[1] * x * x * x * x


@kernel
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

@kernel
def _apply_cutoff(M, D, s):
    cutoff = f1(M, MF.sensor_cutoff)[s]
    if cutoff <= 0.0:
        return
    t = i1(M, MF.sensor_type)[s]
    if t == CONTACT or t == GEOMFROMTO:  # contact: ignored; fromto: it is the search distance
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


@kernel
def _ray_out(out, k, mask, x, g, M, D, pnt, vec, fwd):
    """Writes one ray's data fields (mjtRayDataField order, those in ``mask``) at out[k:];
    returns the next k. A miss gives dist and depth -1, zero dir, point and normal, and the
    origin (measured on MuJoCo 4.0.0)."""
    hit = x >= 0.0
    if mask & 1:
        out[k] = x
        k += 1
    if mask & 2:
        for j in range(3):
            out[k + j] = vec[j] if hit else 0.0
        k += 3
    if mask & 4:
        for j in range(3):
            out[k + j] = pnt[j]
        k += 3
    if mask & 8:
        for j in range(3):
            out[k + j] = pnt[j] + x * vec[j] if hit else 0.0
        k += 3
    if mask & 16:
        n = ray_normal(M, D, g if hit else -1, pnt, vec, x)
        for j in range(3):
            out[k + j] = n[j]
        k += 3
    if mask & 32:
        # distance along the sensor's axis (a camera's optical axis): a depth image
        out[k] = x * (vec[0] * fwd[0] + vec[1] * fwd[1] + vec[2] * fwd[2]) if hit else -1.0
        k += 1
    return k


@kernel
def _inside_site(M, D, site, p):
    """Whether the point p (world) lies in the volume of the site (XML reference
    sensor/insidesite): sphere, capsule, ellipsoid, cylinder or box of the site's size."""
    q = mm.mat_t_vec(f2(D, DF.site_xmat)[site], mm.sub3(mm.get3(p), mm.get3(f2(D, DF.site_xpos)[site])))
    size = f2(M, MF.site_size)[site]
    t = i1(M, MF.site_type)[site]
    if t == 2:  # sphere
        return q[0] * q[0] + q[1] * q[1] + q[2] * q[2] <= size[0] * size[0]
    if t == 3:  # capsule: distance to the segment along z
        z = min(max(q[2], -size[1]), size[1])
        return q[0] * q[0] + q[1] * q[1] + (q[2] - z) ** 2 <= size[0] * size[0]
    if t == 4:  # ellipsoid
        return (q[0] / size[0]) ** 2 + (q[1] / size[1]) ** 2 + (q[2] / size[2]) ** 2 <= 1.0
    if t == 5:  # cylinder
        return q[0] * q[0] + q[1] * q[1] <= size[0] * size[0] and abs(q[2]) <= size[1]
    return abs(q[0]) <= size[0] and abs(q[1]) <= size[1] and abs(q[2]) <= size[2]


@kernel
def _cam_project(M, D, target, cam, out):
    """<camprojection>: the target's pixel coordinates in the camera's image, origin at the top
    left, x right, y down, unclipped (XML reference sensor/camprojection). The focal length in
    pixels comes from the intrinsics when the camera has a sensor size (computed in float32 as
    MuJoCo's float fields), else from fovy; the principal point is the image centre."""
    w = i2(M, MF.cam_resolution)[cam, 0]
    h = i2(M, MF.cam_resolution)[cam, 1]
    ss = f2(M, MF.cam_sensorsize)[cam]
    if ss[0] != 0.0 and ss[1] != 0.0:
        intr = f2(M, MF.cam_intrinsic)[cam]
        fx = float(np.float32(np.float32(intr[0]) / np.float32(ss[0])) * np.float32(w))
        fy = float(np.float32(np.float32(intr[1]) / np.float32(ss[1])) * np.float32(h))
    else:
        fx = 0.5 / math.tan(f1(M, MF.cam_fovy)[cam] * math.pi / 360.0) * h
        fy = fx
    # the target in the camera frame (x right, y up, looking along -z)
    pc = mm.mat_t_vec(f2(D, DF.cam_xmat)[cam],
                      mm.sub3(mm.get3(target), mm.get3(f2(D, DF.cam_xpos)[cam])))
    denom = pc[2]
    if abs(denom) < 1e-15:  # mjMINVAL: avoid dividing by tiny numbers
        denom = -1e-15 if denom < 0.0 else 1e-15
    out[0] = (-fx * pc[0] + 0.5 * w * pc[2]) / denom
    out[1] = (fy * pc[1] + 0.5 * h * pc[2]) / denom


@kernel
def _px(length, npix, size):
    """A sensor length in pixels, in float32 arithmetic: length * npix / size."""
    return float(np.float32(np.float32(np.float32(length) * np.float32(npix)) / np.float32(size)))


@kernel
def _rangefinder(M, D, s, objtype, objid, out):
    """<rangefinder> (XML reference sensor/rangefinder): rays from a site along its z axis or
    from a camera through the centre of each pixel (row by row from the top left), ignoring the
    geoms of the sensor's own body; static geoms count. A perspective camera's rays leave its
    position (directions from fovy with square pixels, or from the focal length, principal
    point and sensor size when those are given); an orthographic camera's rays are parallel to
    its -z axis from points spread over a fovy x fovy window (measured on MuJoCo 4.0.0)."""
    mask = i2(M, MF.sensor_intprm)[s, 0]
    if objtype == OBJ_SITE:
        pos = f2(D, DF.site_xpos)[objid]
        mat = f2(D, DF.site_xmat)[objid]
        z = (mat[2], mat[5], mat[8])
        x, g = ray(M, D, pos, z, pos, False, True, i1(M, MF.site_bodyid)[objid])
        _ray_out(out, 0, mask, x, g, M, D, (pos[0], pos[1], pos[2]), z, z)
        return
    pos = f2(D, DF.cam_xpos)[objid]
    mat = f2(D, DF.cam_xmat)[objid]
    w = i2(M, MF.cam_resolution)[objid, 0]
    h = i2(M, MF.cam_resolution)[objid, 1]
    fovy = f1(M, MF.cam_fovy)[objid]
    ortho = i1(M, MF.cam_projection)[objid] == 1
    ss = f2(M, MF.cam_sensorsize)[objid]
    intr = f2(M, MF.cam_intrinsic)[objid]
    fwd = (-mat[2], -mat[5], -mat[8])
    exclude = i1(M, MF.cam_bodyid)[objid]
    pix = 2.0 * math.tan(fovy * math.pi / 360.0) / h  # a pixel's side at unit distance
    k = 0
    for r in range(h):
        for c in range(w):
            if ortho:
                u, v, dz = ((c + 0.5) / w - 0.5) * fovy, (0.5 - (r + 0.5) / h) * fovy, 0.0
                cd = (0.0, 0.0, -1.0)
            else:
                if ss[0] > 0.0 and ss[1] > 0.0:
                    # focal length and principal point in pixels, converted in single
                    # precision as MuJoCo does (its cam_intrinsic is float32; bit-exact rays)
                    cd = (((c + 0.5) - _px(intr[2], w, ss[0])) / _px(intr[0], w, ss[0]),
                          (_px(intr[3], h, ss[1]) - (r + 0.5)) / _px(intr[1], h, ss[1]), -1.0)
                else:
                    cd = ((c + 0.5 - 0.5 * w) * pix, (0.5 * h - r - 0.5) * pix, -1.0)
                nrm = math.sqrt(cd[0] * cd[0] + cd[1] * cd[1] + 1.0)
                cd = (cd[0] / nrm, cd[1] / nrm, cd[2] / nrm)
                u, v, dz = 0.0, 0.0, 0.0
            # camera frame to world (row-major mat)
            pnt = (pos[0] + mat[0] * u + mat[1] * v + mat[2] * dz,
                   pos[1] + mat[3] * u + mat[4] * v + mat[5] * dz,
                   pos[2] + mat[6] * u + mat[7] * v + mat[8] * dz)
            vec = (mat[0] * cd[0] + mat[1] * cd[1] + mat[2] * cd[2],
                   mat[3] * cd[0] + mat[4] * cd[1] + mat[5] * cd[2],
                   mat[6] * cd[0] + mat[7] * cd[1] + mat[8] * cd[2])
            x, g = ray(M, D, pnt, vec, pos, False, True, exclude)
            k = _ray_out(out, k, mask, x, g, M, D, pnt, vec, fwd)


@kernel
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
        _rangefinder(M, D, s, objtype, objid, out)
    elif t == INSIDESITE:
        b, pos, mat = _obj_frame(M, D, objtype, objid)
        out[0] = 1.0 if _inside_site(M, D, refid, pos) else 0.0
    elif t == CAMPROJECTION:
        _cam_project(M, D, f2(D, DF.site_xpos)[objid], refid, out)
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
    elif t == GEOMDIST or t == GEOMNORMAL or t == GEOMFROMTO:
        _geompair_sensor(M, D, s, t, out)


@kernel
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


@kernel
def _sensor_acc_one(M, D, s, out, tmp):
    t = i1(M, MF.sensor_type)[s]
    objtype = i1(M, MF.sensor_objtype)[s]
    objid = i1(M, MF.sensor_objid)[s]
    if t == TOUCH:
        out[0] = _touch(M, D, objid, tmp)
    elif t == CONTACT:
        _contact_sensor(M, D, s, out, tmp)
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

@kernel
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
    # sensors of sleeping objects keep their last values (seed 001 "Sleeping sensors")
    sfilt = sleep.filtering(M, D)
    for s in range(nsensor):
        if need[s] != stage:
            continue
        if sfilt and sleep.sensor_state(M, D, s) == sleep.S_ASLEEP:
            continue
        out = data[adr[s]:adr[s] + dim[s]]
        # each kernel writes only its own types; the model's needstage decides when they run
        # (e.g. MuJoCo evaluates e_kinetic in the acceleration stage)
        _sensor_pos_one(M, D, s, out)
        _sensor_vel_one(M, D, s, out, tmp, tmp2)
        _sensor_acc_one(M, D, s, out, tmp)
        _apply_cutoff(M, D, s)


@kernel
def sensor_pos(M, D):
    """mj_sensorPos: sensors whose needstage is position."""
    _run(M, D, STAGE_POS)


@kernel
def sensor_vel(M, D):
    """mj_sensorVel: sensors whose needstage is velocity."""
    _run(M, D, STAGE_VEL)


@kernel
def sensor_acc(M, D):
    """mj_sensorAcc: sensors whose needstage is acceleration."""
    _run(M, D, STAGE_ACC)


def check_sensors_supported(m):
    """NotImplementedError naming the first sensor this engine cannot compute yet."""
    for s in range(m.nsensor):
        t = int(m.sensor_type[s])
        if t in _UNSUPPORTED:
            raise NotImplementedError(f"sensor {s}: <{_UNSUPPORTED[t]}> sensors are not supported yet")
        # delay and interval: engine.history (an interval without a history buffer changes
        # nothing in mujoco 4.0.0: measured)
        if t in (GEOMDIST, GEOMNORMAL, GEOMFROMTO):
            sets = []
            for ot, oi in ((m.sensor_objtype[s], m.sensor_objid[s]),
                           (m.sensor_reftype[s], m.sensor_refid[s])):
                sets.append([int(oi)] if int(ot) == OBJ_GEOM else
                            range(int(m.body_geomadr[oi]),
                                  int(m.body_geomadr[oi] + m.body_geomnum[oi])))
            for g1 in sets[0]:
                for g2 in sets[1]:
                    why = sdf_unsupported(m, g1, g2)
                    if why:
                        raise NotImplementedError(f"sensor {s}: <{_COLLISION_TAG[t]}>: {why}")


def mj_sensorPos(m, d):
    """Position-dependent sensors into sensordata."""
    argcheck.pair(m, d, "mj_sensorPos")
    sensor_pos(m._A, d._A)


def mj_sensorVel(m, d):
    """Velocity-dependent sensors into sensordata."""
    argcheck.pair(m, d, "mj_sensorVel")
    sensor_vel(m._A, d._A)


def mj_sensorAcc(m, d):
    """Acceleration-dependent sensors into sensordata (runs mj_rnePostConstraint if needed)."""
    argcheck.pair(m, d, "mj_sensorAcc")
    sensor_acc(m._A, d._A)


def mj_energyPos(m, d):
    """Potential energy into d.energy[0]."""
    argcheck.pair(m, d, "mj_energyPos")
    energy_pos(m._A, d._A)


def mj_energyVel(m, d):
    """Kinetic energy into d.energy[1]."""
    argcheck.pair(m, d, "mj_energyVel")
    energy_vel(m._A, d._A)
