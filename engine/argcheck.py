"""Argument checks for the public mj_* functions: no call can crash the process or silently
return a wrong value (issue 25; DESIGN.md "Errors and bad input").

The compiled kernels index flat arrays without bounds checks (numba's default, for speed), so
every public entry point checks, in Python and before any kernel runs:

- the model/data pairing (`pair`): the MjData was made for a model of the same sizes. O(1): an
  identity test of the size signatures, a tuple comparison only when they are not the same
  object (an MjData used with a copy of its model, as mujoco allows);
- object ids (`index`): an integer in [0, n) -- IndexError naming the argument and the range
  (the official bindings raise IndexError for out-of-range named access and read out of bounds
  in the raw functions: mj_jac with body 10^8 segfaults there too);
- arrays (`out_array`, `in_array`): float64 (or the stated dtype), the stated shape or its flat
  equivalent, writable and C-contiguous for outputs so that the kernel writes into the caller's
  array and not into a copy -- `ArgumentError`, a TypeError as the bindings raise and a
  ValueError.

Messages name the function and the argument: ``mj_jac: body 1000000 out of range [0, 3)``.
"""
from __future__ import annotations

import operator

import numpy as np

from .errors import ArgumentError

_F64 = np.dtype(np.float64)


def pair(m, d, fn):
    """Check that ``m`` is an MjModel and ``d`` an MjData made for a model of its sizes.

    ``d._msig`` is the signature of the model ``d`` was made for (the very tuple object of that
    model), ``m._sig`` the model's: one identity test when they are the pair they usually are.
    mj_step and mj_forward inline that test and call `pair_slow` only when it fails."""
    try:
        if d._msig is m._sig:
            return
    except AttributeError:
        pass
    pair_slow(m, d, fn)


def pair_slow(m, d, fn):
    """`pair` when the signatures are not the same object: check the types, then the sizes
    (an MjData may be used with another model of the same sizes, as in mujoco)."""
    from .data import MjData
    model(m, fn)
    if not isinstance(d, MjData):
        raise ArgumentError(f"{fn}: d must be an engine.MjData, got {type(d).__name__}")
    msig, dsig = m._sig, d._msig
    if dsig is not msig and dsig != msig:
        from ._layout import MODEL_SIZES
        diff = [f"{k} {a} != {b}" for k, a, b in zip(MODEL_SIZES, dsig, msig) if a != b]
        raise ValueError(f"{fn}: d was made for another model (sizes differ: "
                         f"{', '.join(diff[:4])}{', ...' if len(diff) > 4 else ''})")


def model(m, fn):
    """Check that ``m`` is an MjModel (for the functions that take no MjData)."""
    from .model import MjModel
    if not isinstance(m, MjModel):
        raise ArgumentError(f"{fn}: m must be an engine.MjModel, got {type(m).__name__}")


def integer(value, name, fn):
    """``value`` as a Python int (numpy integers included); ArgumentError for anything else: a
    float, None, a bool (the bindings raise TypeError for a float id too)."""
    if isinstance(value, (bool, np.bool_)):
        raise ArgumentError(f"{fn}: {name} must be an integer, got bool")
    try:
        return operator.index(value)
    except TypeError:
        raise ArgumentError(f"{fn}: {name} must be an integer, got "
                            f"{type(value).__name__}") from None


def index(value, n, name, fn, allow=()):
    """``value`` as an int id in [0, n) (or one of ``allow``, e.g. -1 for "none")."""
    i = integer(value, name, fn)
    if (i < 0 or i >= n) and i not in allow:
        extra = f" or {', '.join(map(str, allow))}" if allow else ""
        raise IndexError(f"{fn}: {name} {i} out of range [0, {n}){extra}")
    return i


def _shape_text(shape):
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def out_array(a, shape, name, fn, dtype=_F64, optional=False):
    """The caller's output array ``a`` viewed with ``shape`` (no copy: the kernel's writes land
    in ``a``). Accepts exactly ``shape`` or a flat array of the same size; None when
    ``optional`` (returns None)."""
    if a is None:
        if optional:
            return None
        raise ArgumentError(f"{fn}: {name} must be a numpy array of shape "
                            f"{_shape_text(shape)}, got None")
    if not isinstance(a, np.ndarray):
        raise ArgumentError(f"{fn}: {name} must be a numpy array (it is written in place), got "
                            f"{type(a).__name__}")
    if a.dtype != dtype:
        raise ArgumentError(f"{fn}: {name} must have dtype {np.dtype(dtype)}, got {a.dtype}")
    size = 1
    for s in shape:
        size *= s
    if a.shape != tuple(shape) and not (a.ndim == 1 and a.size == size):
        flat = f" (or {_shape_text((size,))})" if len(shape) > 1 else ""
        raise ArgumentError(f"{fn}: {name} must have shape {_shape_text(shape)}{flat}, got "
                            f"{_shape_text(a.shape)}")
    if not a.flags.c_contiguous:
        raise ArgumentError(f"{fn}: {name} must be C-contiguous (it is written in place)")
    if not a.flags.writeable:
        raise ArgumentError(f"{fn}: {name} is read-only")
    return a.reshape(shape)


def in_array(a, shape, name, fn, dtype=_F64, optional=False):
    """The input ``a`` as a C-contiguous array of ``dtype`` and ``shape`` (a copy when it is not
    one already); any array or list of that many values is accepted (an input is read, so its
    layout cannot send a result astray; mujoco accepts e.g. a (1, nv) sqrtInvD too)."""
    if a is None:
        if optional:
            return None
        raise ArgumentError(f"{fn}: {name} must be an array of shape {_shape_text(shape)}, "
                            "got None")
    try:
        v = np.asarray(a)
    except (TypeError, ValueError) as e:
        raise ArgumentError(f"{fn}: {name} must be a numeric array: {e}") from None
    if v.dtype.kind not in "biuf":
        raise ArgumentError(f"{fn}: {name} must be numeric, got dtype {v.dtype}")
    size = 1
    for s in shape:
        size *= s
    if v.size != size:
        raise ArgumentError(f"{fn}: {name} must have shape {_shape_text(shape)} ({size} "
                            f"values), got {_shape_text(v.shape)}")
    return np.ascontiguousarray(v, dtype=dtype).reshape(shape)


def out_rows(a, n, name, fn):
    """An output of one or more rows of ``n`` values, (n,) or (k, n), as a (k, n) view."""
    if isinstance(a, np.ndarray) and a.ndim == 2:
        return out_array(a, (a.shape[0], n), name, fn)
    return out_array(a, (n,), name, fn).reshape(1, n)


def in_rows(a, k, n, name, fn):
    """An input of ``k`` rows of ``n`` values ((n,) when k is 1), as a (k, n) array."""
    if k == 1 and a is not None and np.ndim(a) == 1:
        return in_array(a, (n,), name, fn).reshape(1, n)
    return in_array(a, (k, n), name, fn)
