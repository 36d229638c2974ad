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

from . import argcheck
from .enums import mjtState


# (bit, data field or None for time, size as a function of the model)
_COMPONENTS = (
    (mjtState.mjSTATE_TIME, "time", lambda m: 1),
    (mjtState.mjSTATE_QPOS, "qpos", lambda m: m.nq),
    (mjtState.mjSTATE_QVEL, "qvel", lambda m: m.nv),
    (mjtState.mjSTATE_ACT, "act", lambda m: m.na),
    (mjtState.mjSTATE_HISTORY, "history",  # delay lines
     lambda m: int(getattr(m, "nhistory", 0) or 0)),
    (mjtState.mjSTATE_WARMSTART, "qacc_warmstart", lambda m: m.nv),
    (mjtState.mjSTATE_CTRL, "ctrl", lambda m: m.nu),
    (mjtState.mjSTATE_QFRC_APPLIED, "qfrc_applied", lambda m: m.nv),
    (mjtState.mjSTATE_XFRC_APPLIED, "xfrc_applied", lambda m: 6 * m.nbody),
    (mjtState.mjSTATE_EQ_ACTIVE, "eq_active", lambda m: m.neq),
    (mjtState.mjSTATE_MOCAP_POS, "mocap_pos", lambda m: 3 * m.nmocap),
    (mjtState.mjSTATE_MOCAP_QUAT, "mocap_quat", lambda m: 4 * m.nmocap),
    (mjtState.mjSTATE_USERDATA, "userdata", lambda m: m.nuserdata),
    (mjtState.mjSTATE_PLUGIN, "plugin_state",  # seed 002
     lambda m: int(getattr(m, "npluginstate", 0))),
    (mjtState.mjSTATE_PLASTIC, None, lambda m: 0),  # plasticity
)
_ALL = int(mjtState.mjSTATE_INTEGRATION)


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
