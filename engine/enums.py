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
mjtWarning = _enum("mjtWarning", "mjWARN_", (
    "INERTIA CONTACTFULL CNSTRFULL BADQPOS BADQVEL BADQACC BADCTRL".split()))
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
