"""Resetting data (mj_resetData, mj_resetDataKeyframe), as MuJoCo's I/O functions do (seed 001,
"state and control"), and saving the last loaded model as MJCF (mj_saveLastXML; seed 004)."""
from __future__ import annotations

import warnings

from . import argcheck


def mj_resetData(m, d):
    """Reset ``d`` to the model's defaults: zero everything (solver statistics included),
    qpos = qpos0, equality constraints as defined in the model, warnings cleared, no
    constraint islands, mocap poses from the model's body poses; with sleep enabled the
    static bodies' poses computed and the sleep="init" trees asleep (engine.forward.reset_data;
    seed 001 "Sleeping islands"). Warns, as MuJoCo does, when a tree marked init could not be
    put to sleep."""
    argcheck.pair(m, d, "mj_resetData")
    from .forward import OP_RESET, _run
    ninit, nslept = _run(m, d, OP_RESET)
    from .timer import clear
    clear(d)        # timers too, as mujoco's reset
    if m.nplugin:   # seed 002: plugin state cleared, each instance's reset
        from .plugin.pipeline import reset_data
        reset_data(m, d)
    # history buffers (engine.history): zero samples at past times
    from .history import init_data
    init_data(m, d)
    if nslept != ninit:
        _warn_init(m, d, ninit, nslept)


def _warn_init(m, d, ninit, nslept):
    from .names import mj_id2name
    root = next(int(m.tree_bodyadr[t]) for t in range(m.ntree)
                if m.tree_sleep_policy[t] == 5 and d.tree_asleep[t] < 0)
    name = mj_id2name(m, 1, root) or ""
    warnings.warn(f"{ninit} trees were marked as sleep='init' but only {nslept} could be slept. "
                  f"Body '{name}' (id={root}) is the root of the first tree that could not be "
                  "slept.", RuntimeWarning, stacklevel=3)


def mj_resetDataKeyframe(m, d, key):
    """Reset ``d`` and then load keyframe ``key`` (index): time, qpos, qvel, act, ctrl, mocap."""
    argcheck.pair(m, d, "mj_resetDataKeyframe")
    key = argcheck.index(key, m.nkey, "key", "mj_resetDataKeyframe")
    mj_resetData(m, d)
    d.time = m.key_time[key]
    d.qpos[:] = m.key_qpos[key]
    d.qvel[:] = m.key_qvel[key]
    d.act[:] = m.key_act[key]
    d.ctrl[:] = m.key_ctrl[key]
    if m.nmocap:
        d.mocap_pos[:] = m.key_mpos[key].reshape(m.nmocap, 3)
        d.mocap_quat[:] = m.key_mquat[key].reshape(m.nmocap, 4)


def mj_saveLastXML(filename, m):
    """Write the model last loaded from MJCF or URDF (MjModel.from_xml_path / _string) to
    ``filename`` as MJCF that compiles, in this engine and in mujoco 4.0.0, into the same model
    (engine.xml.writer). ``m`` is that model (its keyframes are written whole); values edited
    in ``m`` after compiling are copied back into the file where mujoco 4.0.0 copies them back
    (engine.xml.copyback: edits of other fields are dropped, as mujoco drops them; a kept
    field the engine does not copy back yet raises NotImplementedError naming it)."""
    from . import argcheck
    from .compiler import LAST_SOURCE, parse_file, parse_string
    from .xml.writer import spec_to_xml
    argcheck.model(m, "mj_saveLastXML")
    if LAST_SOURCE is None:
        raise ValueError("mj_saveLastXML: no model has been loaded from XML")
    kind, src, assets, package_map = LAST_SOURCE
    spec = (parse_file(src, assets, package_map) if kind == "file"
            else parse_string(src, assets, package_map))
    _check_unedited(spec, m)
    text = spec_to_xml(spec, m)
    if filename is None:
        return text
    with open(filename, "w") as f:
        f.write(text)


def _check_unedited(spec, m):
    """Copy into ``spec`` the edits of ``m`` that mujoco keeps (engine.xml.copyback): ``m``
    against what ``spec`` compiles to (the same source compiles to the same rounding)."""
    import copy

    from .compiler import compile_spec
    from .xml.copyback import copy_back
    fresh = compile_spec(copy.deepcopy(spec))
    if fresh._sig != m._sig:
        raise ValueError("mj_saveLastXML: m is not the model last loaded from XML (sizes "
                         "differ)")
    copy_back(spec, fresh, m)
