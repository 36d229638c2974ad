"""engine: a MuJoCo-compatible physics engine in Python (numba kernels over flat arrays).

Its public API is a drop-in subset of the official `mujoco` Python bindings::

    import engine as mujoco
    m = mujoco.MjModel.from_xml_path("robot.xml")
    d = mujoco.MjData(m)
    mujoco.mj_step(m, d)

What the engine does not support yet raises NotImplementedError naming the feature.
"""
import numba as _numba
import numpy as _np

from . import _jit

# Compiled kernels are cached per entry, each validated against the sources it was built from
# (engine._jit); numba reads the folder when a kernel is defined, so it is set before any is.
_numba.config.CACHE_DIR = _jit.cache_dir()

from .version import __version__, mjVERSION_HEADER, mj_version, mj_versionString  # noqa: E402,F401
from .enums import *  # noqa: E402,F401,F403
from .errors import XMLError, CompileError  # noqa: E402,F401
from .model import MjModel, MjOption, MjStatistic  # noqa: E402,F401
from .visual import MjVisual  # noqa: E402,F401
from .data import MjData, MjContact, MjSolverStat, MjWarningStat, mjNISLAND, mjNSOLVER  # noqa: E402,F401
from .visualize import (MjvCamera, MjvOption, MjvPerturb, MjrRect, MjvFigure,  # noqa
                        mjv_defaultFigure, mjv_defaultCamera, mjv_defaultOption, mjv_defaultPerturb,
                        mjv_defaultFreeCamera)
from .render import Renderer  # noqa: E402,F401
from .render.gl import (GLContext, MjvScene, MjrContext, mjv_updateScene, mjr_setBuffer,  # noqa
                        mjr_render, mjr_readPixels)
from .messages import set_mju_user_warning, get_mju_user_warning, mju_warningText  # noqa: E402
from .io import mj_resetData, mj_resetDataKeyframe, mj_saveLastXML  # noqa: E402,F401
from .history import (mj_initCtrlHistory, mj_initSensorHistory, mj_readCtrl,  # noqa: E402,F401
                      mj_readSensor)
from .mjb import mj_saveModel, mj_sizeModel  # noqa: E402,F401
from .mjspec import *  # noqa: E402,F401,F403  (MjSpec and its Mjs* elements)
from .names import mj_name2id, mj_id2name  # noqa: E402,F401
from .smooth import (mj_kinematics, mj_comPos, mj_camlight, mj_tendon, mj_transmission,  # noqa
                     mj_crb, mj_makeM, mj_factorM, mj_comVel, mj_rne, mj_rnePostConstraint,
                     mj_subtreeVel)
from .support import (mj_jac, mj_jacBody, mj_jacBodyCom, mj_jacGeom, mj_jacSite,  # noqa: E402
                      mj_jacSubtreeCom, mj_jacPointAxis, mj_fullM, mj_mulM, mj_mulM2, mj_solveM,
                      mj_solveM2, mj_addM, mj_objectVelocity, mj_objectAcceleration,
                      mj_integratePos, mj_differentiatePos)
from .passive import mj_passive  # noqa: E402
from .actuation import mj_fwdActuation  # noqa: E402
from .sensor import mj_sensorPos, mj_sensorVel, mj_sensorAcc, mj_energyPos, mj_energyVel  # noqa
from .forward import (mj_forward, mj_forwardSkip, mj_step, mj_step1, mj_step2,  # noqa: E402
                      mj_fwdPosition, mj_fwdVelocity, mj_fwdAcceleration, mj_fwdConstraint,
                      mj_checkPos, mj_checkVel, mj_checkAcc, mj_Euler, mj_RungeKutta,
                      mj_implicit, mj_compareFwdInv)
from .collision import mj_collision  # noqa: E402,F401
from .collision.distance import mj_geomDistance  # noqa: E402,F401
from .constraint import mj_makeConstraint, mj_referenceConstraint, mj_contactForce  # noqa: E402
from .solver import mj_constraintUpdate  # noqa: E402,F401
from .island import mj_island  # noqa: E402,F401
from .errors import ArenaFullError, ArgumentError  # noqa: E402,F401
from .inverse import mj_inverse, mj_inverseSkip  # noqa: E402
from .state import mj_stateSize, mj_getState, mj_setState, mj_copyState, mj_copyData  # noqa
from .callbacks import *  # noqa: E402,F401,F403  (set_/get_mjcb_*, mj_resetCallbacks)
from .plugin import (register_resource_provider, Plugin, mjp_registerPlugin,  # noqa: E402,F401
                     mjp_pluginCount, mj_loadPluginLibrary, mj_loadAllPluginLibraries)
from . import rollout  # noqa: E402,F401
from .ray import mj_ray, mj_rayHfield, mj_rayMesh, mju_rayGeom  # noqa: E402,F401
from .mju_api import *  # noqa: E402,F401,F403  (mju_* utilities; kernels in engine.mju)
from .api_support import (mj_setKeyframe, mj_normalizeQuat, mj_mulJacVec, mj_mulJacTVec,  # noqa
                          mj_applyFT, mj_getTotalmass, mj_setTotalmass, mj_isPyramidal,
                          mj_isSparse, mj_isDual, mj_defaultSolRefImp, mj_defaultOption,
                          mj_local2Global, mj_angmomMat, mj_fwdKinematics, mj_setConst,
                          mj_extractState, mj_resetCtrl, mj_defaultVisual, mj_insideSite,
                          mj_jacDot, MjLROpt, mj_defaultLROpt, mj_setLengthRange,
                          mj_addContact)
from .derivative_fd import (mjd_transitionFD, mjd_inverseFD, mjd_subQuat,  # noqa: E402,F401
                            mjd_quatIntegrate)
from .inverse import mj_invPosition, mj_invVelocity, mj_invConstraint  # noqa: E402,F401
from .ray import mj_multiRay  # noqa: E402,F401
from .errors import FatalError, UnexpectedError  # noqa: E402,F401
from .api_extra import *  # noqa: E402,F401,F403  (vectors, logging, asset cache, support)
from .printing import (mj_printModel, mj_printFormattedModel, mj_printData,  # noqa: E402,F401
                       mj_printFormattedData)
from .perturb import (mjv_initPerturb, mjv_movePerturb, mjv_applyPerturbPose,  # noqa: E402,F401
                      mjv_applyPerturbForce)
MjVisualHeadlight = MjVisual.Headlight
MjVisualRgba = MjVisual.Rgba
MJTNUM_BYTES = 8                    # mjtNum is float64
MJTNUM_DTYPE = _np.float64
