"""Resetting data (mj_resetData, mj_resetDataKeyframe), as MuJoCo's I/O functions do (seed 001,
"state and control")."""
from __future__ import annotations

import numpy as np


def mj_resetData(m, d):
    """Reset ``d`` to the model's defaults: zero everything (solver statistics included),
    qpos = qpos0, mocap poses from the model's body poses, equality constraints as defined in
    the model, warnings cleared, no constraint islands."""
    a = d._arena
    a.f[:] = 0.0
    a.i[:] = 0
    a.u[:] = 0
    d.qpos[:] = m.qpos0
    mocap = np.flatnonzero(m.body_mocapid >= 0)
    if mocap.size:
        ids = m.body_mocapid[mocap]
        d.mocap_pos[ids] = m.body_pos[mocap]
        d.mocap_quat[ids] = m.body_quat[mocap]
    d.eq_active[:] = m.eq_active0
    for w in d.warning:
        w.lastinfo = 0
        w.number = 0
    # solver statistics (solver_niter, solver_nnz, d.solver) are zero; no islands: as mujoco's
    # reset shows them, trees and dofs in no island
    d.tree_island[:] = -1
    d.dof_island[:] = -1


def mj_resetDataKeyframe(m, d, key):
    """Reset ``d`` and then load keyframe ``key`` (index): time, qpos, qvel, act, ctrl, mocap."""
    key = int(key)
    if not 0 <= key < m.nkey:
        raise IndexError(f"keyframe index {key} out of range [0, {m.nkey})")
    mj_resetData(m, d)
    d.time = m.key_time[key]
    d.qpos[:] = m.key_qpos[key]
    d.qvel[:] = m.key_qvel[key]
    d.act[:] = m.key_act[key]
    d.ctrl[:] = m.key_ctrl[key]
    if m.nmocap:
        d.mocap_pos[:] = m.key_mpos[key].reshape(m.nmocap, 3)
        d.mocap_quat[:] = m.key_mquat[key].reshape(m.nmocap, 4)
