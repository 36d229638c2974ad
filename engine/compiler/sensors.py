"""Sensor compilation: type, object and reference ids, dimension, data type, stage, address
(seed 000 "sensor/*"; seed 001 "sensors")."""
from __future__ import annotations

import numpy as np

from ..enums import mjtObj, mjtSensor
from ..errors import CompileError

from ..enums import mjSTAGE_POS as POS, mjSTAGE_VEL as VEL, mjSTAGE_ACC as ACC  # noqa
from ..enums import (mjDATATYPE_REAL as REAL, mjDATATYPE_POSITIVE as POSITIVE,  # noqa
                     mjDATATYPE_AXIS as AXIS, mjDATATYPE_QUATERNION as QUAT)
SITE, JOINT, TENDON, ACTUATOR, BODY = (int(mjtObj.mjOBJ_SITE), int(mjtObj.mjOBJ_JOINT),
                                       int(mjtObj.mjOBJ_TENDON), int(mjtObj.mjOBJ_ACTUATOR),
                                       int(mjtObj.mjOBJ_BODY))

# tag -> (mjtSensor name, dim, datatype, needstage, object attribute, object type)
TABLE = {
    "touch": ("TOUCH", 1, POSITIVE, ACC, "site", SITE),
    "accelerometer": ("ACCELEROMETER", 3, REAL, ACC, "site", SITE),
    "velocimeter": ("VELOCIMETER", 3, REAL, VEL, "site", SITE),
    "gyro": ("GYRO", 3, REAL, VEL, "site", SITE),
    "force": ("FORCE", 3, REAL, ACC, "site", SITE),
    "torque": ("TORQUE", 3, REAL, ACC, "site", SITE),
    "magnetometer": ("MAGNETOMETER", 3, REAL, POS, "site", SITE),
    "camprojection": ("CAMPROJECTION", 2, REAL, POS, "site", SITE),
    "jointpos": ("JOINTPOS", 1, REAL, POS, "joint", JOINT),
    "jointvel": ("JOINTVEL", 1, REAL, VEL, "joint", JOINT),
    "tendonpos": ("TENDONPOS", 1, REAL, POS, "tendon", TENDON),
    "tendonvel": ("TENDONVEL", 1, REAL, VEL, "tendon", TENDON),
    "actuatorpos": ("ACTUATORPOS", 1, REAL, POS, "actuator", ACTUATOR),
    "actuatorvel": ("ACTUATORVEL", 1, REAL, VEL, "actuator", ACTUATOR),
    "actuatorfrc": ("ACTUATORFRC", 1, REAL, ACC, "actuator", ACTUATOR),
    "jointactuatorfrc": ("JOINTACTFRC", 1, REAL, ACC, "joint", JOINT),
    "tendonactuatorfrc": ("TENDONACTFRC", 1, REAL, ACC, "tendon", TENDON),
    "ballquat": ("BALLQUAT", 4, QUAT, POS, "joint", JOINT),
    "ballangvel": ("BALLANGVEL", 3, REAL, VEL, "joint", JOINT),
    "jointlimitpos": ("JOINTLIMITPOS", 1, REAL, POS, "joint", JOINT),
    "jointlimitvel": ("JOINTLIMITVEL", 1, REAL, VEL, "joint", JOINT),
    "jointlimitfrc": ("JOINTLIMITFRC", 1, REAL, ACC, "joint", JOINT),
    "tendonlimitpos": ("TENDONLIMITPOS", 1, REAL, POS, "tendon", TENDON),
    "tendonlimitvel": ("TENDONLIMITVEL", 1, REAL, VEL, "tendon", TENDON),
    "tendonlimitfrc": ("TENDONLIMITFRC", 1, REAL, ACC, "tendon", TENDON),
    "framepos": ("FRAMEPOS", 3, REAL, POS, None, None),
    "framequat": ("FRAMEQUAT", 4, QUAT, POS, None, None),
    "framexaxis": ("FRAMEXAXIS", 3, AXIS, POS, None, None),
    "frameyaxis": ("FRAMEYAXIS", 3, AXIS, POS, None, None),
    "framezaxis": ("FRAMEZAXIS", 3, AXIS, POS, None, None),
    "framelinvel": ("FRAMELINVEL", 3, REAL, VEL, None, None),
    "frameangvel": ("FRAMEANGVEL", 3, REAL, VEL, None, None),
    "framelinacc": ("FRAMELINACC", 3, REAL, ACC, None, None),
    "frameangacc": ("FRAMEANGACC", 3, REAL, ACC, None, None),
    "subtreecom": ("SUBTREECOM", 3, REAL, POS, "body", BODY),
    "subtreelinvel": ("SUBTREELINVEL", 3, REAL, VEL, "body", BODY),
    "subtreeangmom": ("SUBTREEANGMOM", 3, REAL, VEL, "body", BODY),
    "insidesite": ("INSIDESITE", 1, POSITIVE, POS, None, None),
    "e_potential": ("E_POTENTIAL", 1, REAL, POS, None, 0),
    "e_kinetic": ("E_KINETIC", 1, REAL, POS, None, 0),
    "clock": ("CLOCK", 1, REAL, POS, None, 0),
}
FRAME_OBJ = {"body": BODY, "xbody": int(mjtObj.mjOBJ_XBODY), "geom": int(mjtObj.mjOBJ_GEOM),
             "site": SITE, "camera": int(mjtObj.mjOBJ_CAMERA)}


def _kind_of(objtype):
    return {BODY: "body", int(mjtObj.mjOBJ_XBODY): "body", int(mjtObj.mjOBJ_GEOM): "geom",
            SITE: "site", int(mjtObj.mjOBJ_CAMERA): "camera", JOINT: "joint", TENDON: "tendon",
            ACTUATOR: "actuator"}[objtype]


# <contact> data fields, in their bit order, and their sizes
_CONTACT_DATA = (("found", 1), ("force", 3), ("torque", 3), ("dist", 1), ("pos", 3),
                 ("normal", 3), ("tangent", 3))
_CONTACT_REDUCE = ("none", "mindist", "maxforce", "netforce")
_DATATYPE = {"real": REAL, "positive": POSITIVE, "axis": 2, "quaternion": 3}
_STAGE = {"pos": POS, "vel": VEL, "acc": ACC}


def _one_of(c, el, pairs, what):
    """(objtype, id) of the one object named among ``pairs`` = ((attr, kind, objtype), ...), or
    (0, -1) when none is; two named is an error."""
    given = [(a, k, t) for a, k, t in pairs if el.attrs.get(a)]
    if len(given) > 1:
        raise CompileError(f"{what}: give at most one of {', '.join(a for a, _, _ in pairs)}",
                           el.file, el.line, el.tag, given[1][0])
    if not given:
        return 0, -1
    a, k, t = given[0]
    return t, c._id(k, el.attrs[a], el, a)


def _geompair_sensor(c, el, i, stype, dtype, stage, otype, oid, rtype, rid, intprm):
    """<distance>, <normal>, <fromto>: geom1|body1 against geom2|body2 (position stage)."""
    name, d, dt = {"distance": ("GEOMDIST", 1, REAL), "normal": ("GEOMNORMAL", 3, 2),
                   "fromto": ("GEOMFROMTO", 6, REAL)}[el.tag]
    stype[i], dtype[i], stage[i] = int(getattr(mjtSensor, "mjSENS_" + name)), dt, POS
    geom = int(mjtObj.mjOBJ_GEOM)
    otype[i], oid[i] = _one_of(c, el, (("geom1", "geom", geom), ("body1", "body", BODY)), el.tag)
    rtype[i], rid[i] = _one_of(c, el, (("geom2", "geom", geom), ("body2", "body", BODY)), el.tag)
    if oid[i] < 0 or rid[i] < 0:
        raise CompileError(f"<{el.tag}> needs geom1 or body1, and geom2 or body2", el.file,
                           el.line, el.tag, "geom1" if oid[i] < 0 else "geom2")
    return d


def _contact_sensor(c, el, i, stype, dtype, stage, otype, oid, rtype, rid, intprm):
    """<contact>: the matching contacts' data (found, force, torque, dist, pos, normal, tangent
    as a bit mask in intprm[0]), reduce mode in intprm[1], num slots in intprm[2]."""
    a = el.attrs
    stype[i], dtype[i] = int(mjtSensor.mjSENS_CONTACT), REAL
    geom, xbody = int(mjtObj.mjOBJ_GEOM), int(mjtObj.mjOBJ_XBODY)
    otype[i], oid[i] = _one_of(c, el, (("site", "site", SITE), ("geom1", "geom", geom),
                                       ("body1", "body", BODY), ("subtree1", "body", xbody)),
                               "<contact>")
    rtype[i], rid[i] = _one_of(c, el, (("geom2", "geom", geom), ("body2", "body", BODY),
                                       ("subtree2", "body", xbody)), "<contact>")
    names = [n for n, _ in _CONTACT_DATA]
    mask, size = 0, 0
    for word in str(a.get("data", "found")).split():
        if word not in names:
            raise CompileError(f"unknown contact data '{word}': expected {', '.join(names)}",
                               el.file, el.line, el.tag, "data")
        k = names.index(word)
        if not mask & (1 << k):
            mask |= 1 << k
            size += _CONTACT_DATA[k][1]
    num = int(a.get("num", 1))
    if num < 1:
        raise CompileError("num must be positive", el.file, el.line, el.tag, "num")
    reduce = _CONTACT_REDUCE.index(a.get("reduce", "none"))
    intprm[i] = (mask, reduce, num)
    # forces need the solved constraint; the maxforce and netforce reductions weigh by force
    needs_force = mask & 0b110 or reduce in (2, 3)
    stage[i] = ACC if needs_force else POS
    return num * size


# <rangefinder> data fields, in their bit order (mjtRayDataField), and their sizes
_RAY_DATA = (("dist", 1), ("dir", 3), ("origin", 3), ("point", 3), ("normal", 3), ("depth", 1))


def _rangefinder_sensor(c, el, i, stype, dtype, stage, otype, oid, rtype, rid, intprm):
    """<rangefinder>: one ray along a site's z axis, or one per pixel of a camera (row by row
    from the top left); the data fields (in mjtRayDataField order) as a bit mask in intprm[0].
    dim = rays x the fields' sizes."""
    stype[i], dtype[i], stage[i] = int(mjtSensor.mjSENS_RANGEFINDER), REAL, POS
    cam = int(mjtObj.mjOBJ_CAMERA)
    otype[i], oid[i] = _one_of(c, el, (("site", "site", SITE), ("camera", "camera", cam)),
                               "<rangefinder>")
    if oid[i] < 0:
        raise CompileError("<rangefinder> needs a site or a camera", el.file, el.line, el.tag,
                           "site")
    names = [n for n, _ in _RAY_DATA]
    mask, size, last = 0, 0, -1
    for word in str(el.attrs.get("data", "dist")).split():
        if word not in names:
            raise CompileError(f"invalid rangefinder data '{word}': expected {', '.join(names)}",
                               el.file, el.line, el.tag, "data")
        k = names.index(word)
        if k <= last:  # MuJoCo requires the fields once each, in their order
            raise CompileError(f"data attributes must be in order: {', '.join(names)}", el.file,
                               el.line, el.tag, "data")
        mask, size, last = mask | 1 << k, size + _RAY_DATA[k][1], k
    intprm[i, 0] = mask
    nray = 1
    if otype[i] == cam:
        w, h = c.cams[oid[i]].attrs["resolution"]
        nray = int(w) * int(h)
    return nray * size


def _user_sensor(c, el, i, stype, dtype, stage, otype, oid, rtype, rid, intprm):
    """<user>: dim numbers a user callback computes at the given stage."""
    a = el.attrs
    stype[i], dtype[i] = int(mjtSensor.mjSENS_USER), _DATATYPE[a.get("datatype", "real")]
    stage[i] = _STAGE[a.get("needstage", "acc")]
    if a.get("dim") is None or int(a["dim"]) < 1:
        raise CompileError("user sensor needs a positive 'dim'", el.file, el.line, el.tag, "dim")
    if a.get("objtype"):
        kinds = {"body": ("body", BODY), "xbody": ("body", int(mjtObj.mjOBJ_XBODY)),
                 "geom": ("geom", int(mjtObj.mjOBJ_GEOM)), "site": ("site", SITE),
                 "camera": ("camera", int(mjtObj.mjOBJ_CAMERA)), "joint": ("joint", JOINT),
                 "tendon": ("tendon", TENDON), "actuator": ("actuator", ACTUATOR)}
        if a["objtype"] not in kinds:
            raise CompileError(f"objtype must be one of {', '.join(kinds)}", el.file, el.line,
                               el.tag, "objtype")
        kind, otype[i] = kinds[a["objtype"]]
        oid[i] = c._id(kind, a.get("objname"), el, "objname")
    return int(a["dim"])


_SPECIAL = {"distance": _geompair_sensor, "normal": _geompair_sensor,
            "fromto": _geompair_sensor, "contact": _contact_sensor, "user": _user_sensor,
            "rangefinder": _rangefinder_sensor}


def _plugin_sensor(c, el, i, stype, dtype, stage, otype, oid, rtype, rid, splug):
    """<sensor><plugin>: dim from the plugin's nsensordata, stage from its needstage (seed
    002); the object and reference, when given, as a frame sensor names them."""
    from . import plugins
    from ..plugin.registry import SENSOR
    a = el.attrs
    k = plugins.instance_of(c, el, SENSOR)
    splug[i] = k
    stype[i], dtype[i] = int(mjtSensor.mjSENS_PLUGIN), _DATATYPE["real"]
    stage[i] = int(c.plugin_objs[k].needstage)
    for tkey, nkey, types, ids in (("objtype", "objname", otype, oid),
                                   ("reftype", "refname", rtype, rid)):
        t = a.get(tkey)
        if t:
            if t not in FRAME_OBJ:
                raise CompileError(f"{tkey} must be one of {', '.join(FRAME_OBJ)}", el.file,
                                   el.line, el.tag, tkey)
            types[i] = FRAME_OBJ[t]
            ids[i] = c._id(_kind_of(types[i]), a.get(nkey), el, nkey)
    return plugins.sensor_dim(c, el, k, i)


def compile_sensors(c):
    """Fill the sensor_* fields of compiler ``c`` (a builder.Compiler) from its spec."""
    sensors = c.spec.sensors
    n = len(sensors)
    stype, dim, dtype, stage = (np.zeros(n, int) for _ in range(4))
    otype, oid, rtype, rid = np.zeros(n, int), np.full(n, -1), np.zeros(n, int), np.full(n, -1)
    intprm = np.zeros((n, 3), int)
    adr = np.zeros(n, int)
    splug = np.full(n, -1)
    total = 0
    for i, el in enumerate(sensors):
        a = el.attrs
        tag = el.tag
        if tag == "tactile":
            raise NotImplementedError(f"{el.file}:{el.line}: sensor <tactile> is not supported yet")
        if tag == "plugin":
            adr[i] = total
            dim[i] = _plugin_sensor(c, el, i, stype, dtype, stage, otype, oid, rtype, rid, splug)
            total += dim[i]
            continue
        if tag in _SPECIAL:
            adr[i] = total
            dim[i] = _SPECIAL[tag](c, el, i, stype, dtype, stage, otype, oid, rtype, rid, intprm)
            total += dim[i]
            continue
        name, dim[i], dtype[i], stage[i], attr, ot = TABLE[tag]
        stype[i] = int(getattr(mjtSensor, "mjSENS_" + name))
        if attr is not None:
            if not a.get(attr):
                raise CompileError(f"sensor <{tag}> needs attribute '{attr}'", el.file, el.line,
                                   tag, attr)
            otype[i], oid[i] = ot, c._id(attr, a[attr], el, attr)
        elif ot == 0:
            otype[i], oid[i] = 0, -1
        else:
            objt = a.get("objtype")
            if tag == "insidesite":
                if not a.get("site"):
                    raise CompileError("insidesite needs 'site'", el.file, el.line, tag, "site")
                rtype[i], rid[i] = SITE, c._id("site", a["site"], el, "site")
            if not objt or objt not in FRAME_OBJ:
                raise CompileError(f"objtype must be one of {', '.join(FRAME_OBJ)}", el.file,
                                   el.line, tag, "objtype")
            otype[i] = FRAME_OBJ[objt]
            oid[i] = c._id(_kind_of(otype[i]), a.get("objname"), el, "objname")
            if tag != "insidesite" and (a.get("reftype") or a.get("refname")):
                rt = a.get("reftype")
                if rt not in FRAME_OBJ:
                    raise CompileError(f"reftype must be one of {', '.join(FRAME_OBJ)}", el.file,
                                       el.line, tag, "reftype")
                rtype[i] = FRAME_OBJ[rt]
                rid[i] = c._id(_kind_of(rtype[i]), a.get("refname"), el, "refname")
        if tag == "camprojection":
            rtype[i], rid[i] = int(mjtObj.mjOBJ_CAMERA), c._id("camera", a.get("camera"), el,
                                                               "camera")
        if tag in ("jointlimitpos", "jointlimitvel", "jointlimitfrc"):
            if not c.v["jnt_limited"][oid[i]]:
                raise CompileError("joint must be limited in sensor", el.file, el.line, tag,
                                   "joint")
        if tag in ("tendonlimitpos", "tendonlimitvel", "tendonlimitfrc"):
            if not c.v["tendon_limited"][oid[i]]:
                raise CompileError("tendon must be limited in sensor", el.file, el.line, tag,
                                   "tendon")
        if tag in ("ballquat", "ballangvel") and c.v["jnt_type"][oid[i]] != 1:
            raise CompileError(f"<{tag}> needs a ball joint", el.file, el.line, tag, "joint")
        if a.get("cutoff", 0) < 0:
            raise CompileError("cutoff must be nonnegative", el.file, el.line, tag, "cutoff")
        adr[i] = total
        total += dim[i]
    c.sz.update(nsensor=n, nsensordata=int(total))
    c.v.update(sensor_type=stype, sensor_dim=dim, sensor_datatype=dtype, sensor_needstage=stage,
               sensor_objtype=otype, sensor_objid=oid, sensor_reftype=rtype, sensor_refid=rid,
               sensor_intprm=intprm, sensor_adr=adr,
               sensor_cutoff=[el.attrs.get("cutoff", 0.0) for el in sensors],
               sensor_noise=[el.attrs.get("noise", 0.0) for el in sensors],
               sensor_plugin=splug, sensor_historyadr=[-1] * n)
    c.names["sensor"] = [el.name for el in sensors]
    c._user("sensor", [el.attrs.get("user", ()) for el in sensors])
