"""Which MuJoCo the engine follows: its version, as the official bindings report theirs.

Programs written for `mujoco` read the version to pick code paths or check a minimum
(gymnasium's environments read ``mujoco.__version__`` when they are made; dm_control compares
``mjVERSION_HEADER`` with ``mj_version()``). The engine reports the MuJoCo release whose
semantics, field names, defaults and function signatures it follows, so those checks take the
branch written for that release. This module is the one home of that number.
"""
from __future__ import annotations

# (major, minor, patch) of the MuJoCo release followed (the test oracle's version, setup.py).
MUJOCO_VERSION = (4, 0, 0)

__version__ = ".".join(str(v) for v in MUJOCO_VERSION)

# mjVERSION_HEADER and mj_version(): MuJoCo 4's integer encoding, major * 1000000 + minor * 1000
# + patch (4.0.0 -> 4000000).
mjVERSION_HEADER = MUJOCO_VERSION[0] * 1000000 + MUJOCO_VERSION[1] * 1000 + MUJOCO_VERSION[2]


def mj_version() -> int:
    """The followed MuJoCo version as an integer (major * 1000000 + minor * 1000 + patch): the
    same number as the header constant ``mjVERSION_HEADER``."""
    return mjVERSION_HEADER


def mj_versionString() -> str:
    """The followed MuJoCo version as a string, "major.minor.patch" (``__version__``)."""
    return __version__


__all__ = ["__version__", "mjVERSION_HEADER", "mj_version", "mj_versionString"]
