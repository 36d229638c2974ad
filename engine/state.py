"""State copy: mj_stateSize, mj_getState, mj_setState, mj_copyData (seed 001 "State and control").

The state components and their bits are MuJoCo 4.0.0's mjtState, concatenated in bit order:
TIME(1) QPOS(nq) QVEL(nv) ACT(na) HISTORY(nhistory) WARMSTART(nv) CTRL(nu) QFRC_APPLIED(nv)
XFRC_APPLIED(6 nbody) EQ_ACTIVE(neq) MOCAP_POS(3 nmocap) MOCAP_QUAT(4 nmocap) USERDATA(nuserdata)
PLUGIN(npluginstate) PLASTIC(nplastic). HISTORY is d.history, the actuator and sensor delay
lines (engine/history.py); this engine has no plasticity yet: that component has size 0 here.
Plugin state (d.plugin_state, seed 002 "插件状态") is state: serialised with the rest, copied by
mj_copyData (plugin data made by each plugin's copy).
"""
from __future__ import annotations

import numpy as np

from enum import IntEnum

from . import argcheck

mjtState = IntEnum("mjtState", [
    ("mjSTATE_TIME", 1 << 0), ("mjSTATE_QPOS", 1 << 1), ("mjSTATE_QVEL", 1 << 2),
    ("mjSTATE_ACT", 1 << 3), ("mjSTATE_HISTORY", 1 << 4), ("mjSTATE_WARMSTART", 1 << 5),
    ("mjSTATE_CTRL", 1 << 6), ("mjSTATE_QFRC_APPLIED", 1 << 7),
    ("mjSTATE_XFRC_APPLIED", 1 << 8), ("mjSTATE_EQ_ACTIVE", 1 << 9),
    ("mjSTATE_MOCAP_POS", 1 << 10), ("mjSTATE_MOCAP_QUAT", 1 << 11),
    ("mjSTATE_USERDATA", 1 << 12), ("mjSTATE_PLUGIN", 1 << 13), ("mjSTATE_PLASTIC", 1 << 14),
    ("mjNSTATE", 15), ("mjSTATE_PHYSICS", 16414), ("mjSTATE_FULLPHYSICS", 24607),
    ("mjSTATE_USER", 8128), ("mjSTATE_INTEGRATION", 32767)])

# (bit, data field or None for time, size as a function of the model)
_COMPONENTS = (
    (1 << 0, "time", lambda m: 1),
    (1 << 1, "qpos", lambda m: m.nq),
    (1 << 2, "qvel", lambda m: m.nv),
    (1 << 3, "act", lambda m: m.na),
    (1 << 4, "history", lambda m: int(getattr(m, "nhistory", 0) or 0)),  # delay lines
    (1 << 5, "qacc_warmstart", lambda m: m.nv),
    (1 << 6, "ctrl", lambda m: m.nu),
    (1 << 7, "qfrc_applied", lambda m: m.nv),
    (1 << 8, "xfrc_applied", lambda m: 6 * m.nbody),
    (1 << 9, "eq_active", lambda m: m.neq),
    (1 << 10, "mocap_pos", lambda m: 3 * m.nmocap),
    (1 << 11, "mocap_quat", lambda m: 4 * m.nmocap),
    (1 << 12, "userdata", lambda m: m.nuserdata),
    (1 << 13, "plugin_state", lambda m: int(getattr(m, "npluginstate", 0))),  # seed 002
    (1 << 14, None, lambda m: 0),                # plasticity
)
_ALL = (1 << 15) - 1


def _check_spec(spec, fn="mj_stateSize"):
    """The mjtState bits ``spec`` as an int (mujoco: mjERROR "invalid state signature")."""
    spec = argcheck.integer(spec, "spec", fn)
    if spec < 0 or spec & ~_ALL:
        raise ValueError(f"{fn}: invalid state signature spec={spec} (bits above 2^mjNSTATE)")
    return spec


def mj_stateSize(m, spec):
    """Number of values in the state selected by the mjtState bits ``spec``."""
    argcheck.model(m, "mj_stateSize")
    spec = _check_spec(spec)
    return sum(size(m) for bit, _, size in _COMPONENTS if spec & bit)


def mj_getState(m, d, state, spec):
    """Copy the components selected by ``spec`` from d into the flat array ``state``."""
    argcheck.pair(m, d, "mj_getState")
    spec = _check_spec(spec, "mj_getState")
    out = argcheck.out_array(state, (mj_stateSize(m, spec),), "state", "mj_getState")
    k = 0
    for bit, field, size in _COMPONENTS:
        if not spec & bit:
            continue
        n = size(m)
        if field == "time":
            out[k] = d.time
        elif n:
            out[k:k + n] = np.asarray(getattr(d, field), dtype=float).reshape(-1)
        k += n


def mj_setState(m, d, state, spec):
    """Copy the components selected by ``spec`` from the flat array ``state`` into d."""
    argcheck.pair(m, d, "mj_setState")
    spec = _check_spec(spec, "mj_setState")
    src = argcheck.in_array(state, (mj_stateSize(m, spec),), "state", "mj_setState")
    k = 0
    for bit, field, size in _COMPONENTS:
        if not spec & bit:
            continue
        n = size(m)
        if field == "time":
            d.time = src[k]
        elif n:
            dst = getattr(d, field)
            dst[...] = src[k:k + n].reshape(dst.shape).astype(dst.dtype)
        k += n


def mj_copyState(m, src, dst, spec):
    """Copy the selected state components from src to dst."""
    argcheck.pair(m, src, "mj_copyState")
    argcheck.pair(m, dst, "mj_copyState")
    buf = np.empty(mj_stateSize(m, spec))
    mj_getState(m, src, buf, spec)
    mj_setState(m, dst, buf, spec)


def mj_copyData(dst, m, src):
    """Copy all of src into dst (same model); returns dst (MuJoCo's argument order)."""
    argcheck.pair(m, src, "mj_copyData")
    if dst is None:
        from .data import MjData
        dst = MjData(m)
    argcheck.pair(m, dst, "mj_copyData")
    dst._arena.f[:] = src._arena.f
    dst._arena.i[:] = src._arena.i
    dst._arena.u[:] = src._arena.u
    for a, b in zip(dst.warning, src.warning):
        a.lastinfo, a.number = b.lastinfo, b.number
    h = src.__dict__.get("history")
    if h is not None and h.size:   # the delay lines (engine.history: outside the arena)
        dst.history[:] = h
    if m.nplugin:
        from .plugin.pipeline import copy_data
        copy_data(m, dst, src)
    return dst
