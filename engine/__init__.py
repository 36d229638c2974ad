"""engine: a MuJoCo-compatible physics engine in Python (numba kernels over flat arrays).

Its public API is a drop-in subset of the official `mujoco` Python bindings::

    import engine as mujoco
    m = mujoco.MjModel.from_xml_path("robot.xml")
    d = mujoco.MjData(m)
    mujoco.mj_step(m, d)

What the engine does not support yet raises NotImplementedError naming the feature.
"""
import hashlib as _hashlib
import os as _os
from pathlib import Path as _Path

import numba as _numba


def _numba_cache_dir():
    # Kernels read field indices as compile-time constants from other modules, which numba's own
    # cache does not track: key the cache on the whole engine's source so any change recompiles.
    h = _hashlib.sha256()
    for p in sorted(_Path(__file__).resolve().parent.rglob("*.py")):
        h.update(p.read_bytes())
    base = _os.environ.get("MJ_ROS_NUMBA_CACHE",
                           _os.path.join(_os.path.expanduser("~"), ".cache", "mj_ros", "numba"))
    return _os.path.join(base, h.hexdigest()[:16])


_numba.config.CACHE_DIR = _numba_cache_dir()

from .enums import *  # noqa: E402,F401,F403
from .errors import XMLError, CompileError  # noqa: E402,F401
from .model import MjModel, MjOption  # noqa: E402,F401
from .data import MjData  # noqa: E402,F401
from .io import mj_resetData, mj_resetDataKeyframe  # noqa: E402,F401
from .names import mj_name2id, mj_id2name  # noqa: E402,F401
