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
# The state components of mj_getState/mj_setState (engine/state.py), one bit each.
mjtState = IntEnum("mjtState", [
    ("mjSTATE_TIME", 1 << 0), ("mjSTATE_QPOS", 1 << 1), ("mjSTATE_QVEL", 1 << 2),
    ("mjSTATE_ACT", 1 << 3), ("mjSTATE_HISTORY", 1 << 4), ("mjSTATE_WARMSTART", 1 << 5),
    ("mjSTATE_CTRL", 1 << 6), ("mjSTATE_QFRC_APPLIED", 1 << 7),
    ("mjSTATE_XFRC_APPLIED", 1 << 8), ("mjSTATE_EQ_ACTIVE", 1 << 9),
    ("mjSTATE_MOCAP_POS", 1 << 10), ("mjSTATE_MOCAP_QUAT", 1 << 11),
    ("mjSTATE_USERDATA", 1 << 12), ("mjSTATE_PLUGIN", 1 << 13), ("mjSTATE_PLASTIC", 1 << 14),
    ("mjNSTATE", 15), ("mjSTATE_PHYSICS", 16414), ("mjSTATE_FULLPHYSICS", 24607),
    ("mjSTATE_USER", 8128), ("mjSTATE_INTEGRATION", 32767)])
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


# ---- the remaining enums of mujoco 4.0.0's API: model elements, spec (mjs*), compiler,
# logging and UI event types (seed 001 "Enums"); values as the C headers define them -------
mjtActuator = IntEnum("mjtActuator", [("mjACTUATOR_GENERAL", 0), ("mjACTUATOR_MOTOR", 1),
    ("mjACTUATOR_POSITION", 2), ("mjACTUATOR_VELOCITY", 3), ("mjACTUATOR_INTVELOCITY", 4),
    ("mjACTUATOR_DAMPER", 5), ("mjACTUATOR_CYLINDER", 6), ("mjACTUATOR_MUSCLE", 7),
    ("mjACTUATOR_ADHESION", 8), ("mjACTUATOR_PID", 9), ("mjACTUATOR_ORIENTATION", 10),
    ("mjACTUATOR_DCMOTOR", 11)])
mjtAlignFree = IntEnum("mjtAlignFree", [("mjALIGNFREE_FALSE", 0), ("mjALIGNFREE_TRUE", 1),
    ("mjALIGNFREE_AUTO", 2)])
mjtBuiltin = IntEnum("mjtBuiltin", [("mjBUILTIN_NONE", 0), ("mjBUILTIN_GRADIENT", 1),
    ("mjBUILTIN_CHECKER", 2), ("mjBUILTIN_FLAT", 3)])
mjtButton = IntEnum("mjtButton", [("mjBUTTON_NONE", 0), ("mjBUTTON_LEFT", 1), ("mjBUTTON_RIGHT",
    2), ("mjBUTTON_MIDDLE", 3)])
mjtCTimer = IntEnum("mjtCTimer", [("mjCTIMER_TOTAL", 0), ("mjCTIMER_ASSETS", 1),
    ("mjCTIMER_TEXTURE", 2), ("mjCTIMER_MESH_LOAD", 3), ("mjCTIMER_MESH_HULL", 4),
    ("mjCTIMER_MESH_POLYGON", 5), ("mjCTIMER_MESH_INERTIA", 6), ("mjCTIMER_MESH_BVH", 7),
    ("mjCTIMER_MESH_OCTREE", 8), ("mjNCTIMER", 9)])
mjtCamOutBit = IntEnum("mjtCamOutBit", [("mjCAMOUT_RGB", 1), ("mjCAMOUT_DEPTH", 2),
    ("mjCAMOUT_DIST", 4), ("mjCAMOUT_NORMAL", 8), ("mjCAMOUT_SEG", 16), ("mjNCAMOUT", 5)])
mjtColorSpace = IntEnum("mjtColorSpace", [("mjCOLORSPACE_AUTO", 0), ("mjCOLORSPACE_LINEAR", 1),
    ("mjCOLORSPACE_SRGB", 2)])
mjtConDataField = IntEnum("mjtConDataField", [("mjCONDATA_FOUND", 0), ("mjCONDATA_FORCE", 1),
    ("mjCONDATA_TORQUE", 2), ("mjCONDATA_DIST", 3), ("mjCONDATA_POS", 4), ("mjCONDATA_NORMAL", 5),
    ("mjCONDATA_TANGENT", 6), ("mjCONDATA_LINVEL", 7), ("mjCONDATA_ANGVEL", 8), ("mjNCONDATA", 9)])
mjtConflict = IntEnum("mjtConflict", [("mjCONFLICT_WARNING", 0), ("mjCONFLICT_MERGE", 1),
    ("mjCONFLICT_ERROR", 2)])
mjtCtrlChart = IntEnum("mjtCtrlChart", [("mjCHART_EXPMAP", 1), ("mjCHART_QUAT", 2)])
mjtCtrlInput = IntEnum("mjtCtrlInput", [("mjINPUT_POS", 1), ("mjINPUT_VEL", 2), ("mjINPUT_FF",
    4), ("mjINPUT_VOLTAGE", 8), ("mjINPUT_NONE", 16), ("mjINPUT_PRESSURE", 32)])
mjtEmbed = IntEnum("mjtEmbed", [("mjEMBED_FALSE", 0), ("mjEMBED_TRUE", 1), ("mjEMBED_AUTO", 2)])
mjtEvent = IntEnum("mjtEvent", [("mjEVENT_NONE", 0), ("mjEVENT_MOVE", 1), ("mjEVENT_PRESS", 2),
    ("mjEVENT_RELEASE", 3), ("mjEVENT_SCROLL", 4), ("mjEVENT_KEY", 5), ("mjEVENT_RESIZE", 6),
    ("mjEVENT_REDRAW", 7), ("mjEVENT_FILESDROP", 8)])
mjtFlexSection = IntEnum("mjtFlexSection", [("mjFLEXSECTION_CIRCLE", 0), ("mjFLEXSECTION_BOX",
    1)])
mjtFlexSelf = IntEnum("mjtFlexSelf", [("mjFLEXSELF_NONE", 0), ("mjFLEXSELF_NARROW", 1),
    ("mjFLEXSELF_BVH", 2), ("mjFLEXSELF_SAP", 3), ("mjFLEXSELF_AUTO", 4)])
mjtGeomInertia = IntEnum("mjtGeomInertia", [("mjINERTIA_VOLUME", 0), ("mjINERTIA_SHELL", 1)])
mjtInertiaFromGeom = IntEnum("mjtInertiaFromGeom", [("mjINERTIAFROMGEOM_FALSE", 0),
    ("mjINERTIAFROMGEOM_TRUE", 1), ("mjINERTIAFROMGEOM_AUTO", 2)])
mjtItem = IntEnum("mjtItem", [("mjITEM_END", -2), ("mjITEM_SECTION", -1), ("mjITEM_SEPARATOR",
    0), ("mjITEM_STATIC", 1), ("mjITEM_BUTTON", 2), ("mjITEM_CHECKINT", 3), ("mjITEM_CHECKBYTE", 4),
    ("mjITEM_RADIO", 5), ("mjITEM_RADIOLINE", 6), ("mjITEM_SELECT", 7), ("mjITEM_SLIDERINT", 8),
    ("mjITEM_SLIDERNUM", 9), ("mjITEM_EDITINT", 10), ("mjITEM_EDITNUM", 11), ("mjITEM_EDITFLOAT",
    12), ("mjITEM_EDITTXT", 13), ("mjNITEM", 14)])
mjtLRMode = IntEnum("mjtLRMode", [("mjLRMODE_NONE", 0), ("mjLRMODE_MUSCLE", 1),
    ("mjLRMODE_MUSCLEUSER", 2), ("mjLRMODE_ALL", 3)])
mjtLimited = IntEnum("mjtLimited", [("mjLIMITED_FALSE", 0), ("mjLIMITED_TRUE", 1),
    ("mjLIMITED_AUTO", 2)])
mjtLogLevel = IntEnum("mjtLogLevel", [("mjLOG_DEBUG", 0), ("mjLOG_INFO", 1), ("mjLOG_WARNING",
    2), ("mjLOG_ERROR", 3)])
mjtLogTopic = IntEnum("mjtLogTopic", [("mjTOPIC_NONE", 0), ("mjTOPIC_TIME_STP", 1),
    ("mjTOPIC_TIME_CMP", 2), ("mjTOPIC_SLEEP", 3), ("mjNTOPIC", 3)])
mjtMark = IntEnum("mjtMark", [("mjMARK_NONE", 0), ("mjMARK_EDGE", 1), ("mjMARK_CROSS", 2),
    ("mjMARK_RANDOM", 3)])
mjtMeshBuiltin = IntEnum("mjtMeshBuiltin", [("mjMESH_BUILTIN_NONE", 0),
    ("mjMESH_BUILTIN_SPHERE", 1), ("mjMESH_BUILTIN_HEMISPHERE", 2), ("mjMESH_BUILTIN_CONE", 3),
    ("mjMESH_BUILTIN_SUPERSPHERE", 4), ("mjMESH_BUILTIN_SUPERTORUS", 5), ("mjMESH_BUILTIN_WEDGE",
    6), ("mjMESH_BUILTIN_PLATE", 7), ("mjMESH_BUILTIN_GRID", 8), ("mjMESH_BUILTIN_BOX", 9),
    ("mjMESH_BUILTIN_CYLINDER", 10), ("mjMESH_BUILTIN_ELLIPSOID", 11), ("mjMESH_BUILTIN_SQUARE",
    12), ("mjMESH_BUILTIN_DISC", 13)])
mjtMeshInertia = IntEnum("mjtMeshInertia", [("mjMESH_INERTIA_CONVEX", 0),
    ("mjMESH_INERTIA_EXACT", 1), ("mjMESH_INERTIA_LEGACY", 2), ("mjMESH_INERTIA_SHELL", 3)])
mjtOrientation = IntEnum("mjtOrientation", [("mjORIENTATION_QUAT", 0),
    ("mjORIENTATION_AXISANGLE", 1), ("mjORIENTATION_XYAXES", 2), ("mjORIENTATION_ZAXIS", 3),
    ("mjORIENTATION_EULER", 4)])
mjtPassthrough = IntEnum("mjtPassthrough", [("mjPASSTHROUGH_NONE", 0),
    ("mjPASSTHROUGH_TEXTURES", 1)])
mjtPluginCapabilityBit = IntEnum("mjtPluginCapabilityBit", [("mjPLUGIN_ACTUATOR", 1),
    ("mjPLUGIN_SENSOR", 2), ("mjPLUGIN_PASSIVE", 4), ("mjPLUGIN_SDF", 8)])
mjtProjection = IntEnum("mjtProjection", [("mjPROJ_PERSPECTIVE", 0), ("mjPROJ_ORTHOGRAPHIC",
    1)])
mjtRayDataField = IntEnum("mjtRayDataField", [("mjRAYDATA_DIST", 0), ("mjRAYDATA_DIR", 1),
    ("mjRAYDATA_ORIGIN", 2), ("mjRAYDATA_POINT", 3), ("mjRAYDATA_NORMAL", 4), ("mjRAYDATA_DEPTH",
    5), ("mjNRAYDATA", 6)])
mjtSDFType = IntEnum("mjtSDFType", [("mjSDFTYPE_SINGLE", 0), ("mjSDFTYPE_INTERSECTION", 1),
    ("mjSDFTYPE_MIDSURFACE", 2), ("mjSDFTYPE_COLLISION", 3)])
mjtSameFrame = IntEnum("mjtSameFrame", [("mjSAMEFRAME_NONE", 0), ("mjSAMEFRAME_BODY", 1),
    ("mjSAMEFRAME_INERTIA", 2), ("mjSAMEFRAME_BODYROT", 3), ("mjSAMEFRAME_INERTIAROT", 4)])
mjtScaling = IntEnum("mjtScaling", [("mjSCALING_SIMILAR", 0), ("mjSCALING_GEOMETRY", 1)])
mjtSection = IntEnum("mjtSection", [("mjSECT_CLOSED", 0), ("mjSECT_OPEN", 1), ("mjSECT_FIXED",
    2)])
mjtTendon = IntEnum("mjtTendon", [("mjTENDON_FIXED", 0), ("mjTENDON_SPATIAL", 1)])
mjtTexture = IntEnum("mjtTexture", [("mjTEXTURE_2D", 0), ("mjTEXTURE_CUBE", 1),
    ("mjTEXTURE_SKYBOX", 2)])
mjtTextureRole = IntEnum("mjtTextureRole", [("mjTEXROLE_USER", 0), ("mjTEXROLE_RGB", 1),
    ("mjTEXROLE_OCCLUSION", 2), ("mjTEXROLE_ROUGHNESS", 3), ("mjTEXROLE_METALLIC", 4),
    ("mjTEXROLE_NORMAL", 5), ("mjTEXROLE_OPACITY", 6), ("mjTEXROLE_EMISSIVE", 7), ("mjTEXROLE_RGBA",
    8), ("mjTEXROLE_ORM", 9), ("mjNTEXROLE", 10)])

# limits and spec-element scopes of the C headers
mjMAXCONPAIR = 50        # contacts a geom pair may report
mjMAXFLEXNODES = 27
mjMAXLIGHT = 100
mjMAXLINE = 100
mjMAXLINEPNT = 1001
mjMAXOVERLAY = 500
mjMAXPLANEGRID = 200
mjMAXTREEDEPTH = 50
mjSC_IN = 1
mjSC_INOUT = 3
mjSC_OUT = 2

# What `from engine.enums import *` (and so `engine`) exports: the enums and constants above,
# as mujoco's module has them.
__all__ = [_n for _n in list(globals()) if not _n.startswith("_") and _n != "IntEnum"]

# Every enum member also as a plain int module global, for compiled kernels, which read module
# globals as compile-time constants: `from ..enums import mjJNT_FREE, mjDSBL_GRAVITY`. Kernels
# take their type codes and flag bits from here and define none of their own. Not in __all__:
# mujoco's module has no top-level mjJNT_FREE.
for _E in [_v for _v in list(globals().values()) if isinstance(_v, type) and issubclass(_v, IntEnum)
           and _v is not IntEnum]:
    globals().update({_m.name: int(_m) for _m in _E})
del _E
