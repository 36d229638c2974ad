"""Small fixed-layout structs with the behaviour of the official bindings' struct wrappers.

MuJoCo's bindings expose C structs (mjContact, mjStatistic, mjVisual's groups, mjvCamera, ...)
as objects whose fields read as Python numbers (scalars) or writable numpy arrays (vectors);
a struct reached through a model or data (``d.contact[0]``, ``m.stat``) is a view of that
memory, ``copy.copy`` of one is a detached struct, ``==`` compares values, ``repr`` lists the
fields sorted by name. `struct_class` builds such a class from a field table, so every struct
of the engine behaves the same way.
"""
from __future__ import annotations

import numpy as np

class Struct:
    """Base of the struct classes: field name -> numpy array in ``_v`` (a scalar is a
    1-element array, so a view of model or data memory can back it)."""

    __slots__ = ("_v",)
    _FIELDS: dict = {}          # name -> (numpy dtype, shape (() for a scalar), default)

    def __init__(self):
        object.__setattr__(self, "_v", {
            k: np.full(shape or 1, default, dtype) for k, (dtype, shape, default)
            in self._FIELDS.items()})

    @classmethod
    def _default(cls):
        """A struct of ``cls`` holding its defaults (whatever the class's own constructor)."""
        out = object.__new__(cls)
        Struct.__init__(out)
        return out

    @classmethod
    def _view(cls, views):
        """The struct whose fields are ``views`` (name -> array): writes reach that memory."""
        out = object.__new__(cls)
        object.__setattr__(out, "_v", views)
        return out

    def __setattr__(self, name, value):
        if name not in self._FIELDS:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        object.__setattr__(self, name, value)     # the field's property setter

    def _assign(self, other):
        for k, v in self._v.items():
            v[...] = other._v[k]

    def _reset(self):
        """Set every field to its default."""
        self._assign(self._default())

    def __copy__(self):
        out = self._default()
        out._assign(self)
        return out

    def __deepcopy__(self, memo):
        return self.__copy__()

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return all(np.array_equal(v, other._v[k]) for k, v in self._v.items())

    __hash__ = None

    def __repr__(self):
        body = "\n".join(f"  {k}: {getattr(self, k)!r}" for k in sorted(self._FIELDS))
        return f"<{type(self).__name__}\n{body}\n>"


def _field(name, dtype, shape, doc):
    if shape == ():
        cast = float if np.dtype(dtype).kind == "f" else int

        def get(self):
            return cast(self._v[name][0])

        def set_(self, value):
            self._v[name][0] = value
    else:
        def get(self):
            return self._v[name]

        def set_(self, value):
            v = np.asarray(value)
            if v.shape != self._v[name].shape:
                raise ValueError(f"{name}: expected shape {self._v[name].shape}, got {v.shape}")
            self._v[name][...] = v
    return property(get, set_, doc=doc)


def struct_class(name, fields, doc, base=Struct, qualname=None):
    """A Struct subclass named ``name`` with ``fields``: a list of (field, numpy dtype, shape,
    default, meaning); shape () is a scalar."""
    ns = {"__slots__": (), "__doc__": doc,
          "_FIELDS": {f: (np.dtype(dt), tuple(shape), default)
                      for f, dt, shape, default, _ in fields}}
    for f, dt, shape, _, meaning in fields:
        ns[f] = _field(f, dt, tuple(shape), meaning)
    cls = type(name, (base,), ns)
    if qualname:
        cls.__qualname__ = qualname
    return cls
