"""engine.rollout: many trajectories from one shared model, in threads (seed 001
"Multithreading": one MjData per thread, the MjModel shared read-only).

    rollout(m, datas, initial_state, control=None, nstep=None, state_spec=FULLPHYSICS)
        -> (state (nroll, nstep, nstate), sensordata (nroll, nstep, nsensordata))

The compiled step releases the GIL (nogil kernels), so the threads run in parallel. Each
trajectory: set the initial state, then for each step write ctrl (if given), step once, record
the state and the sensors -- as the official ``mujoco.rollout.rollout`` does.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ._access import f1
from .math import vcopy
from ._jit import kernel
from ._layout import DF
from .forward import _prepare, _raise_status, step
from .state import mj_setState, mj_stateSize

_FULLPHYSICS = 24607


@kernel
def _roll_one(M, D, ctrl, nstep, qpos_out, qvel_out, act_out, time_out, sens_out):
    """Step one trajectory without the GIL; records qpos/qvel/act/time/sensordata per step."""
    c = f1(D, DF.ctrl)
    for t in range(nstep):
        if ctrl.shape[0] > 0:
            vcopy(c, ctrl[t])
        if step(M, D, 1) < 1:
            return t
        vcopy(qpos_out[t], f1(D, DF.qpos))
        vcopy(qvel_out[t], f1(D, DF.qvel))
        vcopy(act_out[t], f1(D, DF.act))
        time_out[t] = f1(D, DF.time)[0]
        vcopy(sens_out[t], f1(D, DF.sensordata))
    return nstep


def rollout(model, data, initial_state, control=None, nstep=None,
            initial_state_spec=_FULLPHYSICS, nthread=None):
    """Roll out nroll trajectories.

    model: one MjModel (shared). data: one MjData or a list (one per thread). initial_state:
    (nroll, nstate) for ``initial_state_spec``. control: (nroll, nstep, nu) or None (ctrl from
    the initial state). Returns (state, sensordata): state is (nroll, nstep, 1+nq+nv+na) with
    [time, qpos, qvel, act] after each step; sensordata (nroll, nstep, nsensordata).
    """
    datas = list(data) if isinstance(data, (list, tuple)) else [data]
    x0 = np.atleast_2d(np.asarray(initial_state, dtype=float))
    nroll = x0.shape[0]
    if x0.shape[1] != mj_stateSize(model, initial_state_spec):
        raise ValueError("initial_state does not match initial_state_spec")
    if control is not None:
        control = np.asarray(control, dtype=float)
        if control.ndim == 2:
            control = np.broadcast_to(control, (nroll,) + control.shape)
        nstep = control.shape[1] if nstep is None else int(nstep)
    if nstep is None:
        raise ValueError("give nstep or control")
    for d in datas:
        _prepare(model, d)
    m = model
    out = np.zeros((nroll, nstep, 1 + m.nq + m.nv + m.na))
    sens = np.zeros((nroll, nstep, m.nsensordata))
    nthread = min(len(datas), nroll) if nthread is None else max(1, min(int(nthread), len(datas)))
    empty = np.zeros((0, max(m.nu, 1)))

    def work(k):
        d = datas[k]
        for r in range(k, nroll, nthread):
            mj_setState(m, d, x0[r], initial_state_spec)
            ctrl = np.ascontiguousarray(control[r]) if control is not None else empty
            qp = np.empty((nstep, m.nq))
            qv = np.empty((nstep, m.nv))
            ac = np.empty((nstep, m.na))
            tm = np.empty(nstep)
            done = _roll_one(m._A, d._A, ctrl, nstep, qp, qv, ac, tm, sens[r])
            if done < nstep:
                _raise_status(m, d)
            out[r, :, 0] = tm
            out[r, :, 1:1 + m.nq] = qp
            out[r, :, 1 + m.nq:1 + m.nq + m.nv] = qv
            out[r, :, 1 + m.nq + m.nv:] = ac

    if nthread == 1:
        work(0)
    else:
        with ThreadPoolExecutor(nthread) as ex:
            list(ex.map(work, range(nthread)))
    return out, sens


def default_nthread():
    """Threads to use: the number of usable cores."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
