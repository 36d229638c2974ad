"""copy.copy, copy.deepcopy and pickle of MjModel and MjData, with the official bindings' meaning
(measured on mujoco 4.0.0):

- ``copy.copy(m)`` and ``copy.deepcopy(m)``: an independent model (its own arena);
- ``copy.copy(d)``: an independent data paired with the same model object (``d2.model is m``);
- ``copy.deepcopy(d)``: an independent data with its own copy of the model;
- ``pickle``: a model pickles its arena and names; a data pickles its model with it, so an
  unpickled data comes with (and is paired with) an unpickled model equal to the original.

Every array field is a view of the object's arena (engine._layout.Arena): copying copies the
arena's three buffers once and makes the views again; what is not a view (names, the name
tables, m.vis, counts) is deep-copied.
"""
from __future__ import annotations

import copy as _copy

import numpy as np

from ._layout import DATA_FIELDS, MODEL_FIELDS, Arena

# entries rebuilt from the new arena rather than copied
_REBUILT = {"_arena", "_A", "opt", "stat", "warning", "contact", "model", "_msig"}


def _arena_from(fields, meta, f, i, u):
    """An Arena over the given buffers (already owned by the caller), views made from ``meta``:
    the inverse of reading (meta, f, i, u) off an arena; what `Arena.__init__` does after
    sizing."""
    a = object.__new__(Arena)
    a.meta = meta
    a.off, a.rows, a.cols = meta[0], meta[1], meta[2]
    a.f, a.i, a.u = f, i, u
    a.views = {}
    for k, (name, dtype, rows, cols) in enumerate(fields):
        buf = {"f": f, "i": i, "u": u}[dtype]
        o, r, c = int(a.off[k]), int(a.rows[k]), int(a.cols[k])
        flat = buf[o:o + r * c]
        a.views[name] = flat if (cols == 1 or rows == 1) else flat.reshape(r, c)
    return a


def _fields_of(obj):
    from .model import MjModel
    return MODEL_FIELDS if isinstance(obj, MjModel) else DATA_FIELDS


def _plain_state(obj):
    """The entries of ``obj.__dict__`` that are neither arena views nor rebuilt ones."""
    views = {id(v) for v in obj.__dict__["_arena"].views.values()}
    return {k: v for k, v in obj.__dict__.items()
            if k not in _REBUILT and not (isinstance(v, np.ndarray) and id(v) in views)}


def _install(obj, arena, plain, model=None):
    """Fill a new MjModel/MjData ``obj`` from ``arena`` and its plain entries."""
    from .data import _ContactList, _WarningStatList
    from .model import MjModel, MjOption, MjStatistic
    d = obj.__dict__
    d.update(plain)
    d["_arena"] = arena
    d["_A"] = arena.buffers()
    d.update(arena.views)
    if isinstance(obj, MjModel):
        d["opt"] = MjOption(arena.views)
        d["stat"] = MjStatistic._view({k[5:]: v for k, v in arena.views.items()
                                       if k.startswith("stat_")})
        # a signature object of its own: a data made for the original is checked by sizes
        d["_sig"] = tuple(list(d["_sig"]))
    else:
        d["model"] = model
        d["_msig"] = model._sig
        d["warning"] = _WarningStatList(arena.views["warning_lastinfo"],
                                        arena.views["warning_number"])
        d["contact"] = _ContactList(obj)
    return obj


def clone(obj, memo=None, deep_model=False):
    """A copy of an MjModel or MjData with its own arena. For a data, the model is shared,
    or deep-copied (through ``memo``) when ``deep_model``."""
    memo = {} if memo is None else memo
    a = obj.__dict__["_arena"]
    arena = _arena_from(_fields_of(obj), a.meta.copy(), a.f.copy(), a.i.copy(), a.u.copy())
    out = object.__new__(type(obj))
    memo[id(obj)] = out
    plain = _copy.deepcopy(_plain_state(obj), memo)
    model = None
    if "model" in obj.__dict__:
        model = obj.__dict__["model"]
        if deep_model:
            model = _copy.deepcopy(model, memo)
    return _install(out, arena, plain, model)


def reduce(obj):
    """``__reduce__``: (restore, args); a data carries its model (pickled once per pickle)."""
    a = obj.__dict__["_arena"]
    state = (a.meta, a.f, a.i, a.u, _plain_state(obj))
    return restore, (type(obj), state, obj.__dict__.get("model"))


def restore(cls, state, model):
    meta, f, i, u, plain = state
    out = object.__new__(cls)
    arena = _arena_from(MODEL_FIELDS if model is None else DATA_FIELDS,
                        np.array(meta, np.int64), np.array(f, np.float64),
                        np.array(i, np.int32), np.array(u, np.uint8))
    return _install(out, arena, dict(plain), model)
