"""engine.rollout: many trajectories from one shared model, in threads (seed 001
"Multithreading": one MjData per thread, the MjModel shared read-only).

    rollout(model, data, initial_state, control=None, *, control_spec=mjSTATE_CTRL,
            skip_checks=False, nstep=None, initial_warmstart=None, state=None,
            sensordata=None, chunk_size=None, persistent_pool=False)
        -> (state (nroll, nstep, nstate), sensordata (nroll, nstep, nsensordata))

The signature and the semantics are the official ``mujoco.rollout.rollout``'s (mujoco 4.0.0),
nstate = mj_stateSize(m, mjSTATE_FULLPHYSICS). Each trajectory starts from a state that is
fully given, so that its result does not depend on which thread's MjData ran it nor on what
that MjData ran before (issue 25: bit-identical for any thread count):

- the user inputs outside ``control_spec`` are reset: ctrl, qfrc_applied and xfrc_applied to
  zero, mocap poses to the model's body poses, eq_active to eq_active0;
- the initial state (mjSTATE_FULLPHYSICS) is set, and the solver's warm start
  (qacc_warmstart) is ``initial_warmstart[r]`` or zero -- mujoco's rollout takes the warm start
  as part of the initial state too, never from the previous trajectory;
- the warning counters are cleared; after a step that warns (a divergence reset), the
  remaining steps repeat the current state and sensor values, as mujoco's rollout does.

Then for each step: the controls of ``control_spec`` are set from ``control``, one mj_step,
the state and the sensors are recorded. The compiled step releases the GIL (nogil kernels), so
the threads run in parallel.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import argcheck
from ._access import f1, i1
from ._jit import kernel
from ._layout import DF
from .forward import _prepare, _raise_status, step
from .state import _COMPONENTS, mjtState, mj_setState, mj_stateSize

_FULLPHYSICS = int(mjtState.mjSTATE_FULLPHYSICS)
_CTRL = int(mjtState.mjSTATE_CTRL)
_USER = int(mjtState.mjSTATE_USER)
_QFRC, _XFRC = int(mjtState.mjSTATE_QFRC_APPLIED), int(mjtState.mjSTATE_XFRC_APPLIED)
_EQ = int(mjtState.mjSTATE_EQ_ACTIVE)
_MPOS, _MQUAT = int(mjtState.mjSTATE_MOCAP_POS), int(mjtState.mjSTATE_MOCAP_QUAT)


@kernel
def _roll_one(M, D, control, cfield, coff, csize, nstep, state_out, sens_out):
    """Step one trajectory without the GIL. Before each step the control vector
    ``control[t]`` is scattered into the float64 data fields ``cfield`` (DF indices; values
    coff[j]:coff[j]+csize[j]); after it, [time, qpos, qvel, act] go to state_out[t] and the
    sensors to sens_out[t]. Once a warning has been counted, the remaining rows repeat the
    current values. Returns the steps done (fewer when the compiled step stopped: fw_status)."""
    wn = i1(D, DF.warning_number)
    qpos = f1(D, DF.qpos)
    qvel = f1(D, DF.qvel)
    act = f1(D, DF.act)
    sensordata = f1(D, DF.sensordata)
    nq, nv, na = qpos.shape[0], qvel.shape[0], act.shape[0]
    warned = False
    for t in range(nstep):
        if not warned:
            for w in range(wn.shape[0]):
                if wn[w] != 0:
                    warned = True
        if not warned:
            if control.shape[0] > 0:
                for j in range(cfield.shape[0]):
                    dst = f1(D, cfield[j])
                    for k in range(csize[j]):
                        dst[k] = control[t, coff[j] + k]
            if step(M, D, 1) < 1:
                return t
        row = state_out[t]
        row[0] = f1(D, DF.time)[0]
        for k in range(nq):
            row[1 + k] = qpos[k]
        for k in range(nv):
            row[1 + nq + k] = qvel[k]
        for k in range(na):
            row[1 + nq + nv + k] = act[k]
        for k in range(sensordata.shape[0]):
            sens_out[t, k] = sensordata[k]
    return nstep


def _control_fields(m, control_spec):
    """(DF indices, offsets, sizes) of the components of ``control_spec`` (mjtState bit
    order, as mj_setState lays them out)."""
    fields, offs, sizes = [], [], []
    k = 0
    for bit, field, size in _COMPONENTS:
        if not control_spec & bit:
            continue
        n = size(m)
        if n and bit == _EQ:
            raise NotImplementedError("engine.rollout: control_spec with mjSTATE_EQ_ACTIVE")
        if n:
            fields.append(int(getattr(DF, field)))
            offs.append(k)
            sizes.append(n)
        k += n
    return (np.array(fields, np.int64), np.array(offs, np.int64), np.array(sizes, np.int64))


def _with_leading(a, ndim, name):
    """``a`` as a C-contiguous float64 array of ``ndim`` dimensions, missing leading ones
    added (mujoco's rollout tiles a single initial state or control sequence); None stays."""
    if a is None:
        return None
    a = np.asarray(a, dtype=np.float64)
    if a.ndim > ndim:
        raise ValueError(f"rollout: {name} must have at most {ndim} dimensions, got {a.ndim}")
    return np.ascontiguousarray(a.reshape((1,) * (ndim - a.ndim) + a.shape))


def rollout(model, data, initial_state, control=None, *, control_spec=_CTRL, skip_checks=False,
            nstep=None, initial_warmstart=None, state=None, sensordata=None, chunk_size=None,
            persistent_pool=False, nthread=None):
    """Roll out nroll open-loop trajectories (see the module docstring).

    model: an MjModel, or a sequence of nroll MjModels of the same sizes. data: an MjData or a
    sequence of them, one per thread (``nthread``, default len(data), caps the threads).
    initial_state: ([nroll or 1], nstate) FULLPHYSICS states. control: ([nroll or 1],
    [nstep or 1], ncontrol) with ncontrol = mj_stateSize(m, control_spec). initial_warmstart:
    ([nroll or 1], nv). state, sensordata: optional outputs (nroll, nstep, nstate) and
    (nroll, nstep, nsensordata). ``skip_checks``, ``chunk_size`` and ``persistent_pool`` are
    accepted for mujoco's signature; the checks always run and the threads take every
    nthread-th trajectory. Returns (state, sensordata)."""
    fn = "rollout"
    models = list(model) if isinstance(model, (list, tuple)) else [model]
    datas = list(data) if isinstance(data, (list, tuple)) else [data]
    if not models or not datas:
        raise ValueError("rollout: give at least one model and one data")
    m0 = models[0]
    for m in models:
        argcheck.model(m, fn)
        if m._sig != m0._sig:
            raise ValueError("rollout: models are not compatible (their sizes differ)")
    for d in datas:
        argcheck.pair(m0, d, fn)
    control_spec = argcheck.integer(control_spec, "control_spec", fn)
    if control_spec & ~_USER:
        raise ValueError("rollout: control_spec can only contain bits in mjSTATE_USER")
    if nstep is not None:
        nstep = argcheck.integer(nstep, "nstep", fn)
        if nstep < 0:
            raise ValueError("rollout: nstep must be non-negative")

    x0 = _with_leading(initial_state, 2, "initial_state")
    ws0 = _with_leading(initial_warmstart, 2, "initial_warmstart")
    ctrl = _with_leading(control, 3, "control")
    nstate = mj_stateSize(m0, _FULLPHYSICS)
    if nstate != 1 + m0.nq + m0.nv + m0.na:   # _roll_one writes time, qpos, qvel, act
        raise NotImplementedError("engine.rollout: FULLPHYSICS state with history, plugin or "
                                  "plasticity components")
    ncontrol = mj_stateSize(m0, control_spec)
    for name, a, dim in (("initial_state", x0, nstate), ("initial_warmstart", ws0, m0.nv),
                         ("control", ctrl, ncontrol)):
        if a is not None and a.shape[-1] != dim:
            raise ValueError(f"rollout: {name} has trailing dimension {a.shape[-1]}, "
                             f"expected {dim}")
    nroll = max([a.shape[0] for a in (x0, ws0, ctrl) if a is not None]
                + [len(models) if len(models) > 1 else 1])
    for name, a in (("initial_state", x0), ("initial_warmstart", ws0), ("control", ctrl)):
        if a is not None and a.shape[0] not in (1, nroll):
            raise ValueError(f"rollout: {name} has {a.shape[0]} rows, nroll is {nroll}")
    if len(models) not in (1, nroll):
        raise ValueError(f"rollout: nroll inferred as {nroll} but model has length "
                         f"{len(models)}")
    if ctrl is not None:
        if nstep is None:
            nstep = ctrl.shape[1]
        elif ctrl.shape[1] not in (1, nstep):
            raise ValueError(f"rollout: control has {ctrl.shape[1]} steps, nstep is {nstep}")
    nstep = 1 if nstep is None else nstep
    if state is None:
        state = np.empty((nroll, nstep, nstate))
    else:
        state = argcheck.out_array(state, (nroll, nstep, nstate), "state", fn)
    if sensordata is None:
        sensordata = np.empty((nroll, nstep, m0.nsensordata))
    else:
        sensordata = argcheck.out_array(sensordata, (nroll, nstep, m0.nsensordata),
                                        "sensordata", fn)
    for d in datas:
        _prepare(m0, d)
    cfield, coff, csize = _control_fields(m0, control_spec)
    if ctrl is None:
        cfield = cfield[:0]
    nthread = len(datas) if nthread is None else max(1, min(int(nthread), len(datas)))
    nthread = min(nthread, nroll) if nroll else 1
    none = np.zeros((0, max(ncontrol, 1)))

    def start(m, d, r):
        """The initial state of trajectory r in d (module docstring)."""
        if not control_spec & _CTRL:
            d.ctrl[:] = 0.0
        if not control_spec & _QFRC:
            d.qfrc_applied[:] = 0.0
        if not control_spec & _XFRC:
            d.xfrc_applied[:] = 0.0
        mocap = m.body_mocapid >= 0
        if not control_spec & _MPOS and m.nmocap:
            d.mocap_pos[m.body_mocapid[mocap]] = m.body_pos[mocap]
        if not control_spec & _MQUAT and m.nmocap:
            d.mocap_quat[m.body_mocapid[mocap]] = m.body_quat[mocap]
        if not control_spec & _EQ:
            d.eq_active[:] = m.eq_active0
        mj_setState(m, d, x0[r if x0.shape[0] > 1 else 0], _FULLPHYSICS)
        if ws0 is None:
            d.qacc_warmstart[:] = 0.0
        else:
            d.qacc_warmstart[:] = ws0[r if ws0.shape[0] > 1 else 0]
        d.warning_number[:] = 0

    def work(k):
        d = datas[k]
        for r in range(k, nroll, nthread):
            m = models[r if len(models) > 1 else 0]
            start(m, d, r)
            if ctrl is None:
                c = none
            else:
                c = ctrl[r if ctrl.shape[0] > 1 else 0]
                if c.shape[0] != nstep:
                    c = np.ascontiguousarray(np.broadcast_to(c, (nstep, c.shape[1])))
            done = _roll_one(m._A, d._A, c, cfield, coff, csize, nstep, state[r],
                             sensordata[r])
            if done < nstep:
                _raise_status(m, d)

    if nstep == 0 or nroll == 0:
        return state, sensordata
    if nthread == 1:
        work(0)
    else:
        with ThreadPoolExecutor(nthread) as ex:
            list(ex.map(work, range(nthread)))
    return state, sensordata


def default_nthread():
    """Threads to use: the number of usable cores."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
