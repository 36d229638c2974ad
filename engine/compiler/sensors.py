"""Sensor compilation: type, object and reference ids, dimension, data type, stage, address
(seed 000 "sensor/*"; seed 001 "sensors")."""
from __future__ import annotations

import numpy as np

from ..enums import mjtObj, mjtSensor
from ..errors import CompileError

POS, VEL, ACC = 1, 2, 3
REAL, POSITIVE, AXIS, QUAT = 0, 1, 2, 3
SITE, JOINT, TENDON, ACTUATOR, BODY = (int(mjtObj.mjOBJ_SITE), int(mjtObj.mjOBJ_JOINT),
                                       int(mjtObj.mjOBJ_TENDON), int(mjtObj.mjOBJ_ACTUATOR),
                                       int(mjtObj.mjOBJ_BODY))

# tag -> (mjtSensor name, dim, datatype, needstage, object attribute, object type)
TABLE = {
    "touch": ("TOUCH", 1, POSITIVE, ACC, "site", SITE),
    "rangefinder": ("RANGEFINDER", 1, REAL, POS, "site", SITE),  # -1 = no hit: real
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


def compile_sensors(c):
    """Fill the sensor_* fields of compiler ``c`` (a builder.Compiler) from its spec."""
    sensors = c.spec.sensors
    n = len(sensors)
    stype, dim, dtype, stage = (np.zeros(n, int) for _ in range(4))
    otype, oid, rtype, rid = np.zeros(n, int), np.full(n, -1), np.zeros(n, int), np.full(n, -1)
    intprm = np.zeros((n, 3), int)
    adr = np.zeros(n, int)
    total = 0
    for i, el in enumerate(sensors):
        a = el.attrs
        tag = el.tag
        if tag in ("distance", "normal", "fromto", "contact", "tactile", "user"):
            raise NotImplementedError(f"{el.file}:{el.line}: sensor <{tag}> is not supported yet "
                                      "(needs collision detection or a user callback)")
        if tag == "rangefinder" and (a.get("camera") or a.get("data", "dist") != "dist"):
            raise NotImplementedError(f"{el.file}:{el.line}: <rangefinder> with 'camera' or with "
                                      "'data' other than 'dist' is not supported yet")
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
        if tag == "rangefinder":
            intprm[i, 0] = 1  # the 'data' spec as a bit mask: 'dist' only
        adr[i] = total
        total += dim[i]
    c.sz.update(nsensor=n, nsensordata=int(total))
    c.v.update(sensor_type=stype, sensor_dim=dim, sensor_datatype=dtype, sensor_needstage=stage,
               sensor_objtype=otype, sensor_objid=oid, sensor_reftype=rtype, sensor_refid=rid,
               sensor_intprm=intprm, sensor_adr=adr,
               sensor_cutoff=[el.attrs.get("cutoff", 0.0) for el in sensors],
               sensor_noise=[el.attrs.get("noise", 0.0) for el in sensors],
               sensor_plugin=[-1] * n, sensor_historyadr=[-1] * n)
    c.names["sensor"] = [el.name for el in sensors]
    c._user("sensor", [el.attrs.get("user", ()) for el in sensors])
