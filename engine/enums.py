"""Enumerations with MuJoCo's names and values (mjtObj, mjtJoint, mjtGeom, ... ; seed 001).

They are IntEnums, so ``engine.mjtObj.mjOBJ_BODY`` works where the official bindings' enum does,
and compiled kernels may use the members as constants.
"""
from enum import IntEnum


def _enum(name, prefix, members, start=0):
    return IntEnum(name, [(prefix + m, i) for i, m in enumerate(members, start)])


mjtObj = IntEnum("mjtObj", [(f"mjOBJ_{n}", i) for i, n in enumerate(
    "UNKNOWN BODY XBODY JOINT DOF GEOM SITE CAMERA LIGHT FLEX MESH SKIN HFIELD TEXTURE MATERIAL "
    "PAIR EXCLUDE EQUALITY TENDON ACTUATOR SENSOR NUMERIC TEXT TUPLE KEY PLUGIN".split())]
    + [("mjNOBJECT", 26), ("mjOBJ_FRAME", 100), ("mjOBJ_DEFAULT", 101), ("mjOBJ_MODEL", 102)])
mjtJoint = _enum("mjtJoint", "mjJNT_", "FREE BALL SLIDE HINGE".split())
mjtGeom = IntEnum("mjtGeom", [(f"mjGEOM_{n}", i) for i, n in enumerate(
    "PLANE HFIELD SPHERE CAPSULE ELLIPSOID CYLINDER BOX MESH SDF".split())]
    + [("mjNGEOMTYPES", 9), ("mjGEOM_ARROW", 100), ("mjGEOM_ARROW1", 101), ("mjGEOM_ARROW2", 102),
       ("mjGEOM_LINE", 103), ("mjGEOM_LINEBOX", 104), ("mjGEOM_FLEX", 105), ("mjGEOM_SKIN", 106),
       ("mjGEOM_LABEL", 107), ("mjGEOM_TRIANGLE", 108), ("mjGEOM_NONE", 1001)])
mjtSensor = _enum("mjtSensor", "mjSENS_", (
    "TOUCH ACCELEROMETER VELOCIMETER GYRO FORCE TORQUE MAGNETOMETER RANGEFINDER CAMPROJECTION "
    "JOINTPOS JOINTVEL TENDONPOS TENDONVEL ACTUATORPOS ACTUATORVEL ACTUATORFRC JOINTACTFRC "
    "TENDONACTFRC BALLQUAT BALLANGVEL JOINTLIMITPOS JOINTLIMITVEL JOINTLIMITFRC TENDONLIMITPOS "
    "TENDONLIMITVEL TENDONLIMITFRC FRAMEPOS FRAMEQUAT FRAMEXAXIS FRAMEYAXIS FRAMEZAXIS "
    "FRAMELINVEL FRAMEANGVEL FRAMELINACC FRAMEANGACC SUBTREECOM SUBTREELINVEL SUBTREEANGMOM "
    "INSIDESITE GEOMDIST GEOMNORMAL GEOMFROMTO CONTACT E_POTENTIAL E_KINETIC CLOCK TACTILE "
    "PLUGIN USER").split())
mjtTrn = IntEnum("mjtTrn", [(f"mjTRN_{n}", i) for i, n in enumerate(
    "JOINT JOINTINPARENT SLIDERCRANK TENDON SITE BODY SO3".split())] + [("mjTRN_UNDEFINED", 1000)])
mjtDyn = _enum("mjtDyn", "mjDYN_", "NONE INTEGRATOR FILTER FILTEREXACT MUSCLE DCMOTOR PID USER".split())
mjtGain = _enum("mjtGain", "mjGAIN_", "FIXED AFFINE MUSCLE DCMOTOR SO3 PID USER".split())
mjtBias = _enum("mjtBias", "mjBIAS_", "NONE AFFINE MUSCLE DCMOTOR SO3 USER".split())
mjtEq = _enum("mjtEq", "mjEQ_", "CONNECT WELD JOINT TENDON FLEX FLEXVERT FLEXSTRAIN DISTANCE".split())
mjtWrap = _enum("mjtWrap", "mjWRAP_", "NONE JOINT PULLEY SITE SPHERE CYLINDER".split())
mjtIntegrator = _enum("mjtIntegrator", "mjINT_", "EULER RK4 IMPLICIT IMPLICITFAST DISCRETE".split())
mjtCone = _enum("mjtCone", "mjCONE_", "PYRAMIDAL ELLIPTIC".split())
mjtSolver = _enum("mjtSolver", "mjSOL_", "PGS CG NEWTON".split())
mjtStage = _enum("mjtStage", "mjSTAGE_", "NONE POS VEL ACC".split())
mjtDataType = _enum("mjtDataType", "mjDATATYPE_", "REAL POSITIVE AXIS QUATERNION".split())
mjtWarning = IntEnum("mjtWarning", [(f"mjWARN_{n}", i) for i, n in enumerate(
    "INERTIA CONTACTFULL CNSTRFULL BADQPOS BADQVEL BADQACC BADCTRL".split())]
    + [("mjNWARNING", 7)])
mjtCamLight = _enum("mjtCamLight", "mjCAMLIGHT_", "FIXED TRACK TRACKCOM TARGETBODY TARGETBODYCOM".split())
mjtLightType = _enum("mjtLightType", "mjLIGHT_", "SPOT DIRECTIONAL POINT IMAGE".split())
mjtJacobian = _enum("mjtJacobian", "mjJAC_", "DENSE SPARSE AUTO".split())
mjtConstraint = _enum("mjtConstraint", "mjCNSTR_", (
    "EQUALITY FRICTION_DOF FRICTION_TENDON LIMIT_JOINT LIMIT_TENDON CONTACT_FRICTIONLESS "
    "CONTACT_PYRAMIDAL CONTACT_ELLIPTIC".split()))
mjtConstraintState = _enum("mjtConstraintState", "mjCNSTRSTATE_", (
    "SATISFIED QUADRATIC LINEARNEG LINEARPOS CONE".split()))
mjtDisableBit = IntEnum("mjtDisableBit", [(f"mjDSBL_{n}", 1 << i) for i, n in enumerate(
    "CONSTRAINT EQUALITY FRICTIONLOSS LIMIT CONTACT SPRING DAMPER GRAVITY CLAMPCTRL WARMSTART "
    "FILTERPARENT ACTUATION REFSAFE SENSOR MIDPHASE EULERDAMP AUTORESET NATIVECCD ISLAND "
    "MULTICCD".split())] + [("mjNDISABLE", 20)])
mjtSleepPolicy = _enum("mjtSleepPolicy", "mjSLEEP_", (
    "AUTO AUTO_NEVER AUTO_ALLOWED NEVER ALLOWED INIT".split()))
mjtSleepState = IntEnum("mjtSleepState", [("mjS_STATIC", -1), ("mjS_ASLEEP", 0), ("mjS_AWAKE", 1)])
mjMINAWAKE = 10   # timesteps a tree stays below sleep_tolerance before it may sleep (seed 001)
mjtEnableBit = IntEnum("mjtEnableBit", [(f"mjENBL_{n}", 1 << i) for i, n in enumerate(
    "OVERRIDE ENERGY FWDINV INVDISCRETE SLEEP DIAGEXACT IPC SPECULATIVE".split())]
    + [("mjNENABLE", 8)])

# mjMINVAL, mjPI and friends (seed 001 constants).
mjMINVAL = 1e-15
mjPI = 3.141592653589793
mjMAXVAL = 1e10
mjMINMU = 1e-5
mjMINIMP = 0.0001
mjMAXIMP = 0.9999
mjNEQDATA = 12
mjNDYN = 10
mjNGAIN = 10
mjNBIAS = 10
mjNREF = 2
mjNIMP = 5
mjNGROUP = 6      # visibility groups of each element kind (geomgroup, sitegroup, ...)
mjNFLUID = 12     # geom_fluid coefficients per geom
mjNPOLY = 2       # coefficients of the polynomial stiffness / damping terms
mjNSENS = 3       # sensor_intprm entries per sensor

# ---- object type names (mju_type2Str / mju_str2Type) ------------------------------------------
# The lower-case names MuJoCo's XML and messages use for mjtObj values (frame is 100); mjOBJ_UNKNOWN,
# default and model have none.
_OBJ_NAMES = {int(v): k[len("mjOBJ_"):].lower() for k, v in mjtObj.__members__.items()
              if k.startswith("mjOBJ_") and k not in ("mjOBJ_UNKNOWN", "mjOBJ_DEFAULT",
                                                      "mjOBJ_MODEL")}
_OBJ_TYPES = {n: t for t, n in _OBJ_NAMES.items()}


def mju_type2Str(type):  # noqa: A002 (mujoco's argument name)
    """The name of object type ``type`` (an mjtObj value), e.g. 1 -> "body"; None when the
    type has no name (mjOBJ_UNKNOWN or not a type)."""
    return _OBJ_NAMES.get(int(type))


def mju_str2Type(str):  # noqa: A002 (mujoco's argument name)
    """The mjtObj value of an object type name ("body" -> 1); mjOBJ_UNKNOWN (0) for a name
    that is not one. Bytes are accepted as well (dm_control passes them)."""
    name = str.decode() if isinstance(str, (bytes, bytearray)) else str
    return _OBJ_TYPES.get(name, int(mjtObj.mjOBJ_UNKNOWN))


# ---- visualization and rendering enums (seed 001 "mjvisualize.h"/"mjrender.h" types) -----------
mjtCatBit = IntEnum("mjtCatBit", [("mjCAT_STATIC", 1), ("mjCAT_DYNAMIC", 2), ("mjCAT_DECOR", 4),
                                  ("mjCAT_ALL", 7)])
mjtMouse = _enum("mjtMouse", "mjMOUSE_", (
    "NONE ROTATE_V ROTATE_H MOVE_V MOVE_H ZOOM MOVE_V_REL MOVE_H_REL TURN_V TURN_H".split()))
mjtPertBit = IntEnum("mjtPertBit", [("mjPERT_TRANSLATE", 1), ("mjPERT_ROTATE", 2)])
mjtCamera = _enum("mjtCamera", "mjCAMERA_", "FREE TRACKING FIXED USER".split())
mjtLabel = IntEnum("mjtLabel", [(f"mjLABEL_{n}", i) for i, n in enumerate(
    "NONE BODY JOINT GEOM SITE CAMERA LIGHT TENDON ACTUATOR CONSTRAINT FLEX SKIN SELECTION SELPNT "
    "CONTACTPOINT CONTACTFORCE ISLAND".split())] + [("mjNLABEL", 17)])
mjtFrame = IntEnum("mjtFrame", [(f"mjFRAME_{n}", i) for i, n in enumerate(
    "NONE BODY GEOM SITE CAMERA LIGHT CONTACT WORLD".split())] + [("mjNFRAME", 8)])
mjtVisFlag = IntEnum("mjtVisFlag", [(f"mjVIS_{n}", i) for i, n in enumerate(
    "CONVEXHULL TEXTURE JOINT CAMERA ACTUATOR ACTIVATION LIGHT TENDON RANGEFINDER CONSTRAINT "
    "INERTIA SCLINERTIA PERTFORCE PERTOBJ CONTACTPOINT ISLAND CONTACTFORCE CONTACTSPLIT "
    "TRANSPARENT AUTOCONNECT COM SELECT STATIC SKIN FLEXVERT FLEXEDGE FLEXFACE FLEXSKIN BODYBVH "
    "MESHBVH SDFITER".split())] + [("mjNVISFLAG", 31)])
mjtRndFlag = IntEnum("mjtRndFlag", [(f"mjRND_{n}", i) for i, n in enumerate(
    "SHADOW WIREFRAME REFLECTION ADDITIVE SKYBOX FOG HAZE DEPTH SEGMENT IDCOLOR CULL_FACE "
    "POST_PROCESSING".split())] + [("mjNRNDFLAG", 12)])
mjtStereo = _enum("mjtStereo", "mjSTEREO_", "NONE QUADBUFFERED SIDEBYSIDE".split())
mjtGridPos = _enum("mjtGridPos", "mjGRID_", (
    "TOPLEFT TOPRIGHT BOTTOMLEFT BOTTOMRIGHT TOP BOTTOM LEFT RIGHT".split()))
mjtFramebuffer = _enum("mjtFramebuffer", "mjFB_", "WINDOW OFFSCREEN".split())
mjtDepthMap = _enum("mjtDepthMap", "mjDEPTH_", "ZERONEAR ZEROFAR".split())
mjtFontScale = IntEnum("mjtFontScale", [(f"mjFONTSCALE_{s}", s) for s in (50, 100, 150, 200, 250,
                                                                         300)])
mjtFont = _enum("mjtFont", "mjFONT_", "NORMAL SHADOW BIG".split())
mjtTimer = IntEnum("mjtTimer", [(f"mjTIMER_{n}", i) for i, n in enumerate(
    "STEP FORWARD INVERSE POSITION VELOCITY ACTUATION CONSTRAINT ADVANCE POS_KINEMATICS "
    "POS_INERTIA POS_COLLISION POS_MAKE POS_PROJECT COL_BROAD COL_NARROW".split())]
    + [("mjNTIMER", 15)])

# ---- the names viewers show for flags and options (MuJoCo's mj*STRING tables) ------------------
# One entry per member of the enum they follow; mjVISSTRING / mjRNDSTRING entries are
# (label, default on "1" / off "0", keyboard shortcut).
mjDISABLESTRING = (
    "Constraint", "Equality", "Frictionloss", "Limit", "Contact", "Spring", "Damper", "Gravity",
    "Clampctrl", "Warmstart", "Filterparent", "Actuation", "Refsafe", "Sensor", "Midphase",
    "Eulerdamp", "AutoReset", "NativeCCD", "Island", "MultiCCD")
mjENABLESTRING = ("Override", "Energy", "Fwdinv", "InvDiscrete", "Sleep", "DiagExact", "IPC",
                  "Speculative")
mjTIMERSTRING = ("step", "forward", "inverse", "position", "velocity", "actuation", "constraint",
                 "advance", "pos_kinematics", "pos_inertia", "pos_collision", "pos_make",
                 "pos_project", "col_broadphase", "col_narrowphase")
mjLABELSTRING = ("None", "Body", "Joint", "Geom", "Site", "Camera", "Light", "Tendon", "Actuator",
                 "Constraint", "Flex", "Skin", "Selection", "SelPoint", "Contact",
                 "ContactForce", "Island")
mjFRAMESTRING = ("None", "Body", "Geom", "Site", "Camera", "Light", "Contact", "World")
mjVISSTRING = (
    ("Convex Hull", "0", "H"), ("Texture", "1", "X"), ("Joint", "0", "J"),
    ("Camera", "0", "Q"), ("Actuator", "0", "U"), ("Activation", "0", ","), ("Light", "0", "Z"),
    ("Tendon", "1", "V"), ("Range Finder", "1", "Y"), ("Equality", "0", "E"),
    ("Inertia", "0", "I"), ("Scale Inertia", "0", "'"), ("Perturb Force", "0", "B"),
    ("Perturb Object", "1", "O"), ("Contact Point", "0", "C"), ("Island", "0", "N"),
    ("Contact Force", "0", "F"), ("Contact Split", "0", "P"), ("Transparent", "0", "T"),
    ("Auto Connect", "0", "A"), ("Center of Mass", "0", "M"), ("Select Point", "0", ""),
    ("Static Body", "1", "D"), ("Skin", "1", ";"), ("Flex Vert", "0", ""),
    ("Flex Edge", "1", ""), ("Flex Face", "0", ""), ("Flex Skin", "1", ""),
    ("Body Tree", "0", "`"), ("Mesh Tree", "0", "\\"), ("SDF iters", "0", ""))
mjRNDSTRING = (
    ("Shadow", "1", "S"), ("Wireframe", "0", "W"), ("Reflection", "1", "R"),
    ("Additive", "0", "L"), ("Skybox", "1", "K"), ("Fog", "0", "G"), ("Haze", "1", "/"),
    ("Depth", "0", ""), ("Segment", "0", ","), ("Id Color", "0", ""), ("Cull Face", "1", ""),
    ("Post Processing", "1", ""))
