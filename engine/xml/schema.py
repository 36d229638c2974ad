"""The MJCF schema: every element of the XML reference (seed 000, "XML schema") with its attributes.

Each attribute is ``name: (kind, count, default)``:

- kind ``"r"`` real, ``"i"`` int, ``"s"`` string, ``"b"`` boolean keyword (false/true),
  ``"t"`` tri-state (false/true/auto), or a tuple of allowed keywords;
- count: number of values; ``None`` for one scalar/string, ``-1`` for "any number",
  ``(lo, hi)`` for "between lo and hi values" (e.g. ``size``: 1 to 3);
- default: the value when neither the element nor its default class sets it (``None``: unset).

The parser checks every attribute of every element against this table, so an attribute not listed
here is a clear error naming file, line, element and attribute.
"""

from ..visual import HEADLIGHT_ACTIVE, VISUAL_TABLE

R, I, S, B, T = "r", "i", "s", "b", "t"
ANY = -1

# Orientation alternatives (seed 000, "frame orientations"): at most one may be given.
ORIENT = {
    "quat": (R, 4, None),
    "axisangle": (R, 4, None),
    "euler": (R, 3, None),
    "xyaxes": (R, 6, None),
    "zaxis": (R, 3, None),
}
SOLREF_DEFAULT = (0.02, 1.0)
SOLIMP_DEFAULT = (0.9, 0.95, 0.001, 0.5, 2.0)


def _solver(*names):
    out = {}
    for n in names:
        if n.startswith("solref"):
            out[n] = (R, (1, 2), SOLREF_DEFAULT)
        else:
            out[n] = (R, (1, 5), SOLIMP_DEFAULT)
    return out


NAMED = {"name": (S, None, None)}
CLASSED = {"name": (S, None, None), "class": (S, None, None)}
USER = {"user": (R, ANY, ())}
# MuJoCo 4 history buffers (actuator and sensor delay lines): nsample samples kept, read
# ``delay`` seconds back with interpolation ``interp``; a sensor also has an update interval
# (and phase)
HISTORY = {"delay": (R, None, 0.0), "nsample": (I, None, 0),
           "interp": (("zoh", "linear", "cubic"), None, "zoh")}
NOISE = {"noise": (R, None, 0.0), "cutoff": (R, None, 0.0), "user": (R, ANY, ()), **HISTORY,
         "interval": (R, (1, 2), (0.0, 0.0))}

JOINT = {
    **CLASSED,
    "type": (("free", "ball", "slide", "hinge"), None, "hinge"),
    "group": (I, None, 0),
    "pos": (R, 3, (0.0, 0.0, 0.0)),
    "axis": (R, 3, (0.0, 0.0, 1.0)),
    "springdamper": (R, 2, (0.0, 0.0)),
    **_solver("solreflimit", "solimplimit", "solreffriction", "solimpfriction"),
    "stiffness": (R, (1, 3), (0.0, 0.0, 0.0)),
    "range": (R, 2, (0.0, 0.0)),
    "limited": (T, None, "auto"),
    "actuatorfrcrange": (R, 2, (0.0, 0.0)),
    "actuatorfrclimited": (T, None, "auto"),
    "actuatorgravcomp": (B, None, False),
    "margin": (R, None, 0.0),
    "ref": (R, None, 0.0),
    "springref": (R, None, 0.0),
    "armature": (R, None, 0.0),
    "damping": (R, (1, 3), (0.0, 0.0, 0.0)),
    "frictionloss": (R, None, 0.0),
    **USER,
}

GEOM_TYPES = ("plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh", "sdf")
GEOM = {
    **CLASSED,
    "type": (GEOM_TYPES, None, "sphere"),
    "contype": (I, None, 1),
    "conaffinity": (I, None, 1),
    "condim": (I, None, 3),
    "group": (I, None, 0),
    "priority": (I, None, 0),
    "size": (R, (1, 3), (0.0, 0.0, 0.0)),
    "material": (S, None, None),
    "rgba": (R, 4, (0.5, 0.5, 0.5, 1.0)),
    "friction": (R, (1, 3), (1.0, 0.005, 0.0001)),
    "mass": (R, None, None),
    "density": (R, None, 1000.0),
    "shellinertia": (B, None, False),
    "solmix": (R, None, 1.0),
    **_solver("solref", "solimp"),
    "margin": (R, None, 0.0),
    "gap": (R, None, 0.0),
    # MuJoCo 4 contact adhesion (geom_adhesion; engine.adhesion)
    "adhesion": (R, None, 0.0),
    "fromto": (R, 6, None),
    "pos": (R, 3, (0.0, 0.0, 0.0)),
    **ORIENT,
    "hfield": (S, None, None),
    "mesh": (S, None, None),
    "fitscale": (R, None, 1.0),
    "fluidshape": (("none", "ellipsoid"), None, "none"),
    "fluidcoef": (R, 5, (0.5, 0.25, 1.5, 1.0, 1.0)),
    "surfacevel": (R, 6, (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)),
    **USER,
}

SITE = {
    **CLASSED,
    "type": (("sphere", "capsule", "ellipsoid", "cylinder", "box"), None, "sphere"),
    "group": (I, None, 0),
    "material": (S, None, None),
    "rgba": (R, 4, (0.5, 0.5, 0.5, 1.0)),
    "size": (R, (1, 3), (0.005, 0.005, 0.005)),
    "fromto": (R, 6, None),
    "pos": (R, 3, (0.0, 0.0, 0.0)),
    **ORIENT,
    **USER,
}

CAM_MODES = ("fixed", "track", "trackcom", "targetbody", "targetbodycom")
CAMERA = {
    **CLASSED,
    "mode": (CAM_MODES, None, "fixed"),
    "target": (S, None, None),
    "projection": (("perspective", "orthographic"), None, "perspective"),
    "fovy": (R, None, 45.0),
    "resolution": (I, 2, (1, 1)),
    "output": (S, None, None),
    "focal": (R, 2, (0.0, 0.0)),
    "focalpixel": (R, 2, (0.0, 0.0)),
    "principal": (R, 2, (0.0, 0.0)),
    "principalpixel": (R, 2, (0.0, 0.0)),
    "sensorsize": (R, 2, (0.0, 0.0)),
    "ipd": (R, None, 0.068),
    "pos": (R, 3, (0.0, 0.0, 0.0)),
    **ORIENT,
    **USER,
}

LIGHT = {
    **CLASSED,
    "mode": (CAM_MODES, None, "fixed"),
    "target": (S, None, None),
    "type": (("spot", "directional", "point", "image"), None, "spot"),
    "directional": (B, None, False),
    "castshadow": (B, None, True),
    "active": (B, None, True),
    "texture": (S, None, None),
    "intensity": (R, None, 0.0),
    "range": (R, None, 10.0),
    "bulbradius": (R, None, 0.02),
    "radius": (R, None, 0.02),
    "pos": (R, 3, (0.0, 0.0, 0.0)),
    "dir": (R, 3, (0.0, 0.0, -1.0)),
    "attenuation": (R, 3, (1.0, 0.0, 0.0)),
    "cutoff": (R, None, 45.0),
    "exponent": (R, None, 10.0),
    "softness": (R, None, 0.2),  # shadow softness (rendering only)
    "ambient": (R, 3, (0.0, 0.0, 0.0)),
    "diffuse": (R, 3, (0.7, 0.7, 0.7)),
    "specular": (R, 3, (0.3, 0.3, 0.3)),
}

PAIR = {
    **CLASSED,
    "geom1": (S, None, None),
    "geom2": (S, None, None),
    "condim": (I, None, 3),
    "friction": (R, (1, 5), (1.0, 1.0, 0.005, 0.0001, 0.0001)),
    **_solver("solref", "solimp"),
    "solreffriction": (R, (1, 2), (0.0, 0.0)),
    "margin": (R, None, 0.0),
    "gap": (R, None, 0.0),
    "adhesion": (R, None, 0.0),  # MuJoCo 4: overrides the geoms' (pair_adhesion)
}

EQ_COMMON = {**CLASSED, "active": (B, None, True), **_solver("solref", "solimp")}
EQUALITY = {
    "connect": {**EQ_COMMON, "body1": (S, None, None), "body2": (S, None, None),
                "anchor": (R, 3, None), "site1": (S, None, None), "site2": (S, None, None)},
    "weld": {**EQ_COMMON, "body1": (S, None, None), "body2": (S, None, None),
             "relpose": (R, 7, (0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0)), "anchor": (R, 3, (0.0, 0.0, 0.0)),
             "site1": (S, None, None), "site2": (S, None, None), "torquescale": (R, None, 1.0)},
    "joint": {**EQ_COMMON, "joint1": (S, None, None), "joint2": (S, None, None),
              "polycoef": (R, (1, 5), (0.0, 1.0, 0.0, 0.0, 0.0))},
    "tendon": {**EQ_COMMON, "tendon1": (S, None, None), "tendon2": (S, None, None),
               "polycoef": (R, (1, 5), (0.0, 1.0, 0.0, 0.0, 0.0))},
    "flex": {**EQ_COMMON, "flex": (S, None, None)},
    "flexvert": {**EQ_COMMON, "flex": (S, None, None)},
    "flexstrain": {**EQ_COMMON, "flex": (S, None, None)},
}
# <default><equality .../> holds what all equality kinds share.
EQUALITY_DEFAULT = {"active": (B, None, True), **_solver("solref", "solimp")}

TENDON = {
    **CLASSED,
    "group": (I, None, 0),
    "limited": (T, None, "auto"),
    "actuatorfrclimited": (T, None, "auto"),
    "range": (R, 2, (0.0, 0.0)),
    "actuatorfrcrange": (R, 2, (0.0, 0.0)),
    **_solver("solreflimit", "solimplimit", "solreffriction", "solimpfriction"),
    "margin": (R, None, 0.0),
    "frictionloss": (R, None, 0.0),
    "width": (R, None, 0.003),
    "material": (S, None, None),
    "rgba": (R, 4, (0.5, 0.5, 0.5, 1.0)),
    "springlength": (R, (1, 2), (-1.0, -1.0)),
    "stiffness": (R, (1, 3), (0.0, 0.0, 0.0)),
    "damping": (R, (1, 3), (0.0, 0.0, 0.0)),
    "armature": (R, None, 0.0),
    **HISTORY,
    **USER,
}

# Attributes every actuator element shares (the transmission and the clamping), seed 000 general.
ACT_COMMON = {
    **CLASSED,
    "group": (I, None, 0),
    "ctrllimited": (T, None, "auto"),
    "forcelimited": (T, None, "auto"),
    "actlimited": (T, None, "auto"),
    "ctrlrange": (R, 2, (0.0, 0.0)),
    "forcerange": (R, 2, (0.0, 0.0)),
    "actrange": (R, 2, (0.0, 0.0)),
    "lengthrange": (R, 2, (0.0, 0.0)),
    "gear": (R, (1, 6), (1.0, 0.0, 0.0, 0.0, 0.0, 0.0)),
    "cranklength": (R, None, 0.0),
    "joint": (S, None, None),
    "jointinparent": (S, None, None),
    "site": (S, None, None),
    "refsite": (S, None, None),
    "body": (S, None, None),
    "tendon": (S, None, None),
    "cranksite": (S, None, None),
    "slidersite": (S, None, None),
    "actearly": (B, None, False),
    "damping": (R, (1, 3), (0.0, 0.0, 0.0)),
    "armature": (R, None, 0.0),
    **HISTORY,
    **USER,
}
_P10_1 = (1.0,) + (0.0,) * 9
_P10_0 = (0.0,) * 10
ACTUATOR = {
    "general": {**ACT_COMMON,
                "actdim": (I, None, -1),
                "dyntype": (("none", "integrator", "filter", "filterexact", "muscle", "user"), None, "none"),
                "gaintype": (("fixed", "affine", "muscle", "user"), None, "fixed"),
                "biastype": (("none", "affine", "muscle", "user"), None, "none"),
                "dynprm": (R, (1, 10), _P10_1), "gainprm": (R, (1, 10), _P10_1),
                "biasprm": (R, (1, 10), _P10_0)},
    "motor": {**ACT_COMMON},
    "position": {**ACT_COMMON, "kp": (R, None, 1.0), "kv": (R, None, 0.0),
                 "dampratio": (R, None, 0.0), "timeconst": (R, None, 0.0),
                 "inheritrange": (R, None, 0.0)},
    "velocity": {**ACT_COMMON, "kv": (R, None, 1.0)},
    "intvelocity": {**ACT_COMMON, "kp": (R, None, 1.0), "kv": (R, None, 0.0),
                    "dampratio": (R, None, 0.0), "inheritrange": (R, None, 0.0)},
    "damper": {**ACT_COMMON, "kv": (R, None, 1.0)},
    "cylinder": {**ACT_COMMON, "timeconst": (R, None, 1.0), "area": (R, None, 1.0),
                 "diameter": (R, None, None), "bias": (R, 3, (0.0, 0.0, 0.0))},
    "muscle": {**ACT_COMMON, "timeconst": (R, 2, (0.01, 0.04)), "tausmooth": (R, None, 0.0),
               "range": (R, 2, (0.75, 1.05)), "force": (R, None, -1.0), "scale": (R, None, 200.0),
               "lmin": (R, None, 0.5), "lmax": (R, None, 1.6), "vmax": (R, None, 1.5),
               "fpmax": (R, None, 1.3), "fvmax": (R, None, 1.2)},
    "adhesion": {**CLASSED, "group": (I, None, 0), "forcelimited": (T, None, "auto"),
                 "ctrlrange": (R, 2, (0.0, 0.0)), "forcerange": (R, 2, (0.0, 0.0)),
                 "body": (S, None, None), "gain": (R, None, 1.0), **USER},
    "plugin": {**ACT_COMMON, "plugin": (S, None, None), "instance": (S, None, None),
               "actdim": (I, None, -1),
               "dyntype": (("none", "integrator", "filter", "filterexact", "muscle", "user"), None, "none"),
               "dynprm": (R, (1, 10), _P10_1)},
}

_SITE_SENSOR = {**NOISE, "name": (S, None, None), "site": (S, None, None)}
_FRAME_SENSOR = {**NOISE, "name": (S, None, None), "objtype": (S, None, None),
                 "objname": (S, None, None), "reftype": (S, None, None), "refname": (S, None, None)}
_GEOMPAIR = {**NOISE, "name": (S, None, None), "geom1": (S, None, None), "geom2": (S, None, None),
             "body1": (S, None, None), "body2": (S, None, None)}


def _ref(attr):
    return {**NOISE, "name": (S, None, None), attr: (S, None, None)}


SENSOR = {
    "touch": _SITE_SENSOR, "accelerometer": _SITE_SENSOR, "velocimeter": _SITE_SENSOR,
    "gyro": _SITE_SENSOR, "force": _SITE_SENSOR, "torque": _SITE_SENSOR,
    "magnetometer": _SITE_SENSOR,
    "rangefinder": {**_SITE_SENSOR, "camera": (S, None, None),
                    "data": (S, None, "dist")},
    "camprojection": {**_SITE_SENSOR, "camera": (S, None, None)},
    "jointpos": _ref("joint"), "jointvel": _ref("joint"),
    "tendonpos": _ref("tendon"), "tendonvel": _ref("tendon"),
    "actuatorpos": _ref("actuator"), "actuatorvel": _ref("actuator"),
    "actuatorfrc": _ref("actuator"),
    "jointactuatorfrc": _ref("joint"), "tendonactuatorfrc": _ref("tendon"),
    "ballquat": _ref("joint"), "ballangvel": _ref("joint"),
    "jointlimitpos": _ref("joint"), "jointlimitvel": _ref("joint"), "jointlimitfrc": _ref("joint"),
    "tendonlimitpos": _ref("tendon"), "tendonlimitvel": _ref("tendon"),
    "tendonlimitfrc": _ref("tendon"),
    "framepos": _FRAME_SENSOR, "framequat": _FRAME_SENSOR, "framexaxis": _FRAME_SENSOR,
    "frameyaxis": _FRAME_SENSOR, "framezaxis": _FRAME_SENSOR, "framelinvel": _FRAME_SENSOR,
    "frameangvel": _FRAME_SENSOR, "framelinacc": _FRAME_SENSOR, "frameangacc": _FRAME_SENSOR,
    "subtreecom": _ref("body"), "subtreelinvel": _ref("body"), "subtreeangmom": _ref("body"),
    "insidesite": {**_FRAME_SENSOR, "site": (S, None, None)},
    "distance": _GEOMPAIR, "normal": _GEOMPAIR, "fromto": _GEOMPAIR,
    "contact": {**NOISE, "name": (S, None, None), "geom1": (S, None, None),
                "geom2": (S, None, None), "body1": (S, None, None), "body2": (S, None, None),
                "subtree1": (S, None, None), "subtree2": (S, None, None), "site": (S, None, None),
                "num": (I, None, 1), "data": (S, None, "found"),
                "reduce": (("none", "mindist", "maxforce", "netforce"), None, "none")},
    "tactile": {**NOISE, "name": (S, None, None), "geom": (S, None, None), "mesh": (S, None, None)},
    "e_potential": {**NOISE, "name": (S, None, None)},
    "e_kinetic": {**NOISE, "name": (S, None, None)},
    "clock": {**NOISE, "name": (S, None, None)},
    "user": {**NOISE, "name": (S, None, None), "objtype": (S, None, None),
             "objname": (S, None, None), "datatype": (("real", "positive", "axis", "quaternion"), None, "real"),
             "needstage": (("pos", "vel", "acc"), None, "acc"), "dim": (I, None, None)},
    "plugin": {**NOISE, "name": (S, None, None), "plugin": (S, None, None),
               "instance": (S, None, None), "objtype": (S, None, None), "objname": (S, None, None),
               "reftype": (S, None, None), "refname": (S, None, None)},
}

OPTION = {
    "timestep": (R, None, 0.002),
    "apirate": (R, None, 100.0),
    "impratio": (R, None, 1.0),
    "gravity": (R, 3, (0.0, 0.0, -9.81)),
    "wind": (R, 3, (0.0, 0.0, 0.0)),
    "magnetic": (R, 3, (0.0, -0.5, 0.0)),
    "density": (R, None, 0.0),
    "viscosity": (R, None, 0.0),
    "o_margin": (R, None, 0.0),
    "o_solref": (R, (1, 2), SOLREF_DEFAULT),
    "o_solimp": (R, (1, 5), SOLIMP_DEFAULT),
    "o_friction": (R, (1, 5), (1.0, 1.0, 0.005, 0.0001, 0.0001)),
    "integrator": (("Euler", "RK4", "implicit", "implicitfast"), None, "Euler"),
    "cone": (("pyramidal", "elliptic"), None, "pyramidal"),
    "jacobian": (("dense", "sparse", "auto"), None, "auto"),
    "solver": (("PGS", "CG", "Newton"), None, "Newton"),
    "iterations": (I, None, 100),
    "tolerance": (R, None, 1e-8),
    "ls_iterations": (I, None, 50),
    "ls_tolerance": (R, None, 0.01),
    "noslip_iterations": (I, None, 0),
    "noslip_tolerance": (R, None, 1e-6),
    # mujoco 4.0.0's default (the seed's reference still says 50): the oracle's value, since
    # an EPA stopped at another iteration count gives other contacts
    "ccd_iterations": (I, None, 35),
    "ccd_tolerance": (R, None, 1e-6),
    "sleep_tolerance": (R, None, 1e-3),
    "sdf_iterations": (I, None, 10),
    "sdf_initpoints": (I, None, 40),
    "actuatorgroupdisable": (I, (0, 31), ()),
}
# option/flag: name -> default (True = enable). The order is mjtDisableBit then mjtEnableBit.
DISABLE_FLAGS = ("constraint", "equality", "frictionloss", "limit", "contact", "spring", "damper",
                 "gravity", "clampctrl", "warmstart", "filterparent", "actuation", "refsafe",
                 "sensor", "midphase", "eulerdamp", "autoreset", "nativeccd", "island", "multiccd")
ENABLE_FLAGS = ("override", "energy", "fwdinv", "invdiscrete", "sleep", "diagexact", "ipc",
                "speculative")
FLAG = {name: (("disable", "enable"), None, "enable") for name in DISABLE_FLAGS}
FLAG.update({name: (("disable", "enable"), None, "disable") for name in ENABLE_FLAGS})
FLAG["passive"] = (("disable", "enable"), None, "enable")  # legacy: spring and damper together

COMPILER = {
    "autolimits": (B, None, True),
    "boundmass": (R, None, 0.0),
    "boundinertia": (R, None, 0.0),
    "settotalmass": (R, None, -1.0),
    "balanceinertia": (B, None, False),
    "strippath": (B, None, False),
    "coordinate": (("local", "global"), None, "local"),
    "angle": (("radian", "degree"), None, "degree"),
    "fitaabb": (B, None, False),
    "eulerseq": (S, None, "xyz"),
    "meshdir": (S, None, None),
    "texturedir": (S, None, None),
    "assetdir": (S, None, None),
    "discardvisual": (B, None, False),
    "convexhull": (B, None, True),
    "usethread": (B, None, True),
    "fusestatic": (B, None, False),
    "inertiafromgeom": (("false", "true", "auto"), None, "auto"),
    "alignfree": (B, None, False),
    "inertiagrouprange": (I, 2, (0, 5)),
    "saveinertial": (B, None, False),
    "exactmeshinertia": (B, None, False),
}
LENGTHRANGE = {
    "mode": (("none", "muscle", "muscleuser", "all"), None, "muscle"),
    "useexisting": (B, None, True),
    "uselimit": (B, None, False),
    "accel": (R, None, 20.0),
    "maxforce": (R, None, 0.0),
    "timeconst": (R, None, 1.0),
    "timestep": (R, None, 0.01),
    "inttotal": (R, None, 10.0),
    "interval": (R, None, 2.0),
    "tolrange": (R, None, 0.05),
}
SIZE = {
    "memory": (S, None, "-1"),
    "njmax": (I, None, -1),
    "nconmax": (I, None, -1),
    "nstack": (I, None, -1),
    "nuserdata": (I, None, 0),
    "nkey": (I, None, 0),
    **{"nuser_" + k: (I, None, -1) for k in
       ("body", "jnt", "geom", "site", "cam", "tendon", "actuator", "sensor")},
}
STATISTIC = {
    "meanmass": (R, None, None), "meaninertia": (R, None, None), "meansize": (R, None, None),
    "extent": (R, None, None), "center": (R, 3, None),
}

MESH = {
    **CLASSED,
    "content_type": (S, None, None),
    "file": (S, None, None),
    "scale": (R, 3, (1.0, 1.0, 1.0)),
    "inertia": (("convex", "exact", "legacy", "shell"), None, "legacy"),
    "smoothnormal": (B, None, False),
    "maxhullvert": (I, None, -1),
    "vertex": (R, ANY, None),
    "normal": (R, ANY, None),
    "texcoord": (R, ANY, None),
    "face": (I, ANY, None),
    "refpos": (R, 3, (0.0, 0.0, 0.0)),
    "refquat": (R, 4, (1.0, 0.0, 0.0, 0.0)),
    "builtin": (S, None, None),
    "params": (R, ANY, None),
    "material": (S, None, None),
}
HFIELD = {
    "name": (S, None, None), "content_type": (S, None, None), "file": (S, None, None),
    "nrow": (I, None, 0), "ncol": (I, None, 0), "elevation": (R, ANY, None), "size": (R, 4, None),
}
TEXTURE = {
    "name": (S, None, None),
    "type": (("2d", "cube", "skybox"), None, "cube"),
    "colorspace": (("auto", "linear", "sRGB"), None, "auto"),
    "content_type": (S, None, None),
    "file": (S, None, None),
    "gridsize": (I, 2, (1, 1)),
    "gridlayout": (S, None, "............"),
    **{f"file{s}": (S, None, None) for s in ("right", "left", "up", "down", "front", "back")},
    "builtin": (("none", "gradient", "checker", "flat"), None, "none"),
    "rgb1": (R, 3, (0.8, 0.8, 0.8)),
    "rgb2": (R, 3, (0.5, 0.5, 0.5)),
    "mark": (("none", "edge", "cross", "random"), None, "none"),
    "markrgb": (R, 3, (0.0, 0.0, 0.0)),
    "random": (R, None, 0.01),
    "width": (I, None, 0),
    "height": (I, None, 0),
    "hflip": (B, None, False),
    "vflip": (B, None, False),
    "nchannel": (I, None, 3),
}
MATERIAL = {
    **CLASSED,
    "texture": (S, None, None),
    "texrepeat": (R, 2, (1.0, 1.0)),
    "texuniform": (B, None, False),
    "emission": (R, None, 0.0),
    "specular": (R, None, 0.5),
    "shininess": (R, None, 0.5),
    "reflectance": (R, None, 0.0),
    # -1: not set (mujoco 4.0.0's compiled default for both, measured)
    "metallic": (R, None, -1.0),
    "roughness": (R, None, -1.0),
    "rgba": (R, 4, (1.0, 1.0, 1.0, 1.0)),
}

BODY = {
    "name": (S, None, None), "childclass": (S, None, None), "mocap": (B, None, False),
    "pos": (R, 3, (0.0, 0.0, 0.0)), **ORIENT, "gravcomp": (R, None, 0.0),
    "sleep": (("auto", "never", "allowed", "init"), None, "auto"), **USER,
}
INERTIAL = {"pos": (R, 3, None), **ORIENT, "mass": (R, None, None),
            "diaginertia": (R, 3, None), "fullinertia": (R, 6, None)}
FREEJOINT = {"name": (S, None, None), "group": (I, None, 0),
             "align": (T, None, "auto")}
FRAME = {"name": (S, None, None), "childclass": (S, None, None),
         "pos": (R, 3, (0.0, 0.0, 0.0)), **ORIENT}
# prefix: accepted; MuJoCo 4.0.0 leaves the replicated names without it (measured), so do we
REPLICATE = {"count": (I, None, None), "sep": (S, None, ""), "offset": (R, 3, (0.0, 0.0, 0.0)),
             "prefix": (S, None, ""), **ORIENT}
KEY = {"name": (S, None, None), "time": (R, None, 0.0), "qpos": (R, ANY, None),
       "qvel": (R, ANY, None), "act": (R, ANY, None), "ctrl": (R, ANY, None),
       "mpos": (R, ANY, None), "mquat": (R, ANY, None)}

# <visual>: one element per group of MjVisual, its attributes the group's fields (engine.visual
# holds the fields and MuJoCo's defaults); flags take false/true, headlight/active a number or
# "auto" (HEADLIGHT_ACTIVE).
VISUAL = {
    xml: {name: ((tuple(HEADLIGHT_ACTIVE) if (xml, name) == ("headlight", "active")
                  else {"f": R, "i": I, "b": B}[kind]),
                 None if count == 1 else count,
                 bool(default) if kind == "b" else default)
          for name, kind, count, default, _ in fields}
    for xml, _, fields in VISUAL_TABLE.values()
}

CUSTOM = {
    "numeric": {"name": (S, None, None), "size": (I, None, None), "data": (R, ANY, None)},
    "text": {"name": (S, None, None), "data": (S, None, None)},
    "tuple": {"name": (S, None, None)},
}
TUPLE_ELEMENT = {"objtype": (S, None, None), "objname": (S, None, None), "prm": (R, None, 0.0)}

# Default classes hold one prototype per element kind; actuator shortcuts all edit the one
# "general" prototype (seed 004, "default settings").
DEFAULT_KINDS = {
    "mesh": {"scale": MESH["scale"], "inertia": MESH["inertia"], "maxhullvert": MESH["maxhullvert"],
             "smoothnormal": MESH["smoothnormal"], "refpos": MESH["refpos"],
             "refquat": MESH["refquat"], "material": MESH["material"]},
    "material": MATERIAL, "joint": JOINT, "geom": GEOM, "site": SITE, "camera": CAMERA,
    "light": LIGHT, "pair": PAIR, "equality": EQUALITY_DEFAULT, "tendon": TENDON,
    **{k: ACTUATOR[k] for k in ("general", "motor", "position", "velocity", "intvelocity",
                                "damper", "cylinder", "muscle", "adhesion")},
}

LAYER = {"texture": (S, None, None),
         "role": (("rgb", "occlusion", "roughness", "metallic", "normal", "opacity", "emissive",
                   "rgba", "orm"), None, "rgb")}

# Model composition (seed 000, asset/model and body/attach)
MODEL_ASSET = {"name": (S, None, None), "file": (S, None, None),
               "content_type": (S, None, None)}
ATTACH = {"model": (S, None, None), "body": (S, None, None), "frame": (S, None, None),
          "prefix": (S, None, None)}

# Deformables (seed 000 "deformable/flex", "body/flexcomp"): the attributes MuJoCo 4.0.0's
# reader accepts (it has dropped contact/internal, and edge/equality takes true/false only).
FLEX_DOF = ("full", "radial", "trilinear", "quadratic", "2d")
FLEX = {
    "name": (S, None, None), "group": (I, None, 0), "dim": (I, None, 2),
    "dof": (FLEX_DOF, None, None), "radius": (R, None, 0.005), "material": (S, None, ""),
    "rgba": (R, 4, (0.5, 0.5, 0.5, 1.0)), "flatskin": (B, None, False),
    "cellcount": (I, 3, (1, 1, 1)), "body": (S, None, ""), "vertex": (R, ANY, ()),
    "node": (S, None, ""), "element": (I, ANY, ()), "texcoord": (R, ANY, ()),
    "elemtexcoord": (I, ANY, ()),
}
FLEX_EDGE = {"stiffness": (R, None, 0.0), "damping": (R, None, 0.0)}
FLEX_ELASTICITY = {
    "young": (R, None, 0.0), "poisson": (R, None, 0.0), "damping": (R, None, 0.0),
    "thickness": (R, None, -1.0), "elastic2d": (("none", "bend", "stretch", "both"), None, "none"),
    "section": (("circle", "box"), None, "circle"), "sectionsize": (R, 2, (0.0, 0.0)),
    "shear": (R, None, 0.0), "yield": (R, (1, 2), (0.0, 0.0)),
}
FLEX_CONTACT = {
    "contype": (I, None, 1), "conaffinity": (I, None, 1), "condim": (I, None, 3),
    "priority": (I, None, 0), "friction": (R, (1, 3), (1.0, 0.005, 0.0001)),
    "solmix": (R, None, 1.0), **_solver("solref", "solimp"), "margin": (R, None, 0.0),
    "gap": (R, None, 0.0),
    "selfcollide": (("none", "narrow", "bvh", "sap", "auto"), None, "auto"),
    "activelayers": (I, None, 1), "passive": (B, None, False),
}
FLEXCOMP = {
    "name": (S, None, None),
    "type": (("grid", "box", "cylinder", "ellipsoid", "square", "disc", "circle", "mesh", "gmsh",
              "direct"), None, "grid"),
    "group": (I, None, 0), "dim": (I, None, 2), "dof": (FLEX_DOF, None, "full"),
    "count": (I, 3, (10, 10, 10)), "spacing": (R, 3, (0.02, 0.02, 0.02)),
    "radius": (R, None, 0.005), "rigid": (B, None, False), "mass": (R, None, 1.0),
    "inertiabox": (R, None, 0.005), "scale": (R, 3, (1.0, 1.0, 1.0)), "file": (S, None, None),
    "point": (R, ANY, ()), "element": (I, ANY, ()), "texcoord": (R, ANY, ()),
    "material": (S, None, ""), "rgba": (R, 4, (0.5, 0.5, 0.5, 1.0)),
    "flatskin": (B, None, False), "pos": (R, 3, (0.0, 0.0, 0.0)), **ORIENT,
    "origin": (R, 3, (0.0, 0.0, 0.0)), "cellcount": (I, 3, None),
}
FLEXCOMP_EDGE = {"equality": (B, None, False), **_solver("solref", "solimp"),
                 "stiffness": (R, None, 0.0), "damping": (R, None, 0.0)}
FLEXCOMP_PIN = {"id": (I, ANY, ()), "range": (I, ANY, ()), "grid": (I, ANY, ()),
                "gridrange": (I, ANY, ())}

# <skin> (seed 000 "deformable/skin"; also accepted, deprecated, inside <asset>) and its bones
SKIN = {"name": (S, None, None), "file": (S, None, None), "material": (S, None, ""),
        "rgba": (R, 4, (0.5, 0.5, 0.5, 1.0)), "inflate": (R, None, 0.0),
        "vertex": (R, ANY, ()), "texcoord": (R, ANY, ()), "face": (I, ANY, ()),
        "group": (I, None, 0)}
SKIN_BONE = {"body": (S, None, None), "bindpos": (R, 3, None), "bindquat": (R, 4, None),
             "vertid": (I, ANY, ()), "vertweight": (R, ANY, ())}

# Elements that are recognised but not supported yet: parsing them raises NotImplementedError.
UNSUPPORTED = {
    "composite": "body/composite", "plugin": "plugin instances",
    "instance": "extension/plugin/instance",
    # MuJoCo 4 actuators with several controls or outputs per actuator (actuator_ctrlnum,
    # actuator_outnum): the engine's actuators have one control and one output each
    "dcmotor": "actuator/dcmotor: MuJoCo 4's DC motor, with multi-input controls, a current "
               "state and LuGre friction",
    "orientation": "actuator/orientation: MuJoCo 4's SO(3) orientation servo, with 3 or 4 "
                   "controls and 3 outputs per actuator",
}
