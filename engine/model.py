"""MjModel: the compiled, constant model: flat arrays named as mjModel's fields (seed 001, "mjModel").

Every array field is a numpy view into the model's arena (see `engine._layout`); assigning to a field
copies into it (``m.geom_friction[3] = ...`` or ``m.body_mass = x``), as with the official bindings.
"""
from __future__ import annotations

import numpy as np

from . import enums
from ._layout import MODEL_FIELDS, MODEL_SIZES, Arena
from .structs import struct_class
from .visual import MjVisual

# Named access (``m.body('hand').mass``): object type -> (field prefix, name table key, size).
NAMED_KINDS = {
    "body": ("body_", enums.mjtObj.mjOBJ_BODY, "nbody"),
    "joint": ("jnt_", enums.mjtObj.mjOBJ_JOINT, "njnt"),
    "geom": ("geom_", enums.mjtObj.mjOBJ_GEOM, "ngeom"),
    "site": ("site_", enums.mjtObj.mjOBJ_SITE, "nsite"),
    "camera": ("cam_", enums.mjtObj.mjOBJ_CAMERA, "ncam"),
    "light": ("light_", enums.mjtObj.mjOBJ_LIGHT, "nlight"),
    "flex": ("flex_", enums.mjtObj.mjOBJ_FLEX, "nflex"),
    "skin": ("skin_", enums.mjtObj.mjOBJ_SKIN, "nskin"),
    "mesh": ("mesh_", enums.mjtObj.mjOBJ_MESH, "nmesh"),
    "hfield": ("hfield_", enums.mjtObj.mjOBJ_HFIELD, "nhfield"),
    "material": ("mat_", enums.mjtObj.mjOBJ_MATERIAL, "nmat"),
    "pair": ("pair_", enums.mjtObj.mjOBJ_PAIR, "npair"),
    "exclude": ("exclude_", enums.mjtObj.mjOBJ_EXCLUDE, "nexclude"),
    "equality": ("eq_", enums.mjtObj.mjOBJ_EQUALITY, "neq"),
    "tendon": ("tendon_", enums.mjtObj.mjOBJ_TENDON, "ntendon"),
    "actuator": ("actuator_", enums.mjtObj.mjOBJ_ACTUATOR, "nu"),
    "sensor": ("sensor_", enums.mjtObj.mjOBJ_SENSOR, "nsensor"),
    "numeric": ("numeric_", enums.mjtObj.mjOBJ_NUMERIC, "nnumeric"),
    "tuple": ("tuple_", enums.mjtObj.mjOBJ_TUPLE, "ntuple"),
    "key": ("key_", enums.mjtObj.mjOBJ_KEY, "nkey"),
    "plugin": ("plugin_", enums.mjtObj.mjOBJ_PLUGIN, "nplugin"),   # instances (seed 002)
}
# m.names: every name in one buffer, each ended by a NUL, the model's name first, then the
# objects' names kind by kind in mjModel's order, an unnamed object taking an empty string;
# m.name_<x>adr[i] is where object i's name starts (seed 001 "mjModel", names and name_*adr).
# (kind in the compiler's name table, x).
NAME_SECTIONS = (
    ("body", "body"), ("joint", "jnt"), ("geom", "geom"), ("site", "site"), ("camera", "cam"),
    ("light", "light"), ("flex", "flex"), ("mesh", "mesh"), ("skin", "skin"),
    ("hfield", "hfield"), ("texture", "tex"), ("material", "mat"), ("pair", "pair"),
    ("exclude", "exclude"), ("equality", "eq"), ("tendon", "tendon"), ("actuator", "actuator"),
    ("sensor", "sensor"), ("numeric", "numeric"), ("text", "text"), ("tuple", "tuple"),
    ("key", "key"), ("plugin", "plugin"))
NAME_ADR_FIELDS = tuple(f"name_{x}adr" for _, x in NAME_SECTIONS)


def names_buffer(modelname, names):
    """(m.names as bytes, {name_<x>adr field: int32 addresses}) from the compiler's name table
    (kind -> list of names, None for unnamed)."""
    buf = bytearray(modelname.encode() + b"\0")
    adr = {}
    for (kind, _), field in zip(NAME_SECTIONS, NAME_ADR_FIELDS):
        a = []
        for n in names.get(kind, ()):
            a.append(len(buf))
            buf += (n or "").encode() + b"\0"
        adr[field] = np.array(a, np.int32)
    return bytes(buf), adr


ALIASES = {"jnt": "joint", "cam": "camera", "mat": "material", "eq": "equality",
           "keyframe": "key", "texture": "texture"}


class _Fields:
    """Base for objects whose array attributes are views: assignment copies into the view.

    As in the official bindings, nothing else can be assigned: sizes (``m.nq``) and the other
    non-array attributes are read-only (the arena was allocated for them: a changed size would
    let compiled code index past it), and a name that is not a field raises AttributeError
    (``d.qpos_typo = x`` would otherwise be silently ignored by the simulation)."""

    def __setattr__(self, name, value):
        # a property first: it hides the arena view of the same name (d.ncon, d.efc_J: the
        # counts compiled code keeps are read-only, a count past the arrays' capacity would
        # let a kernel read beyond them)
        prop = getattr(type(self), name, None)
        if isinstance(prop, property):
            if prop.fset is None:
                raise AttributeError(f"{type(self).__name__}.{name} is read-only")
            prop.fset(self, value)
            return
        cur = self.__dict__.get(name)
        if isinstance(cur, np.ndarray):
            cur[...] = value
            return
        kind = type(self).__name__
        if name in self.__dict__:
            raise AttributeError(f"{kind}.{name} is read-only")
        raise AttributeError(f"'{kind}' object has no attribute '{name}'")


class InstanceField:
    """A field each instance holds in its own ``__dict__`` (a view of its arena, or a struct),
    declared on the class so that ``dir(MjModel)`` / ``dir(MjData)`` list it as the bindings'
    classes list their fields: programs that wrap them enumerate those names (dm_control makes
    a delegating property for each name in ``dir(mujoco.MjModel)``).

    A non-data descriptor: an instance's own entry takes precedence, so reading a field costs a
    dict lookup as before; ``__get__`` runs only for an instance without the field."""

    def __init__(self, name, doc=None):
        self.name = name
        self.__doc__ = doc

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        raise AttributeError(f"'{type(obj).__name__}' object has no attribute '{self.name}'")


def declare_fields(cls, names, doc):
    """Declare ``names`` on ``cls`` (see InstanceField), except those it defines already."""
    for name in names:
        if not hasattr(cls, name):
            setattr(cls, name, InstanceField(name, doc(name)))


class MjOption:
    """``m.opt``: physics options (seed 000 ``<option>``), views into the model's arena."""

    def __init__(self, views):
        object.__setattr__(self, "_v", {k[4:]: v for k, v in views.items() if k.startswith("opt_")})

    def __getattr__(self, name):
        v = self.__dict__["_v"].get(name)
        if v is None:
            raise AttributeError(f"MjOption has no field '{name}'")
        return v.item() if v.shape == (1,) else v

    def __setattr__(self, name, value):
        v = self.__dict__["_v"].get(name)
        if v is None:
            raise AttributeError(f"MjOption has no field '{name}'")
        v[...] = value


MjStatistic = struct_class("MjStatistic", [
    ("meaninertia", np.float64, (), 0.0, "mean diagonal of the joint-space inertia matrix at "
                                         "qpos0 (mass or mass * length^2 per dof)"),
    ("meanmass", np.float64, (), 0.0, "mean body mass, world excluded (mass)"),
    ("meansize", np.float64, (), 0.0, "mean body size, world excluded (length)"),
    ("extent", np.float64, (), 0.0, "largest side of the model's bounding box at qpos0 "
                                    "(length)"),
    ("center", np.float64, (3,), 0.0, "centre of that bounding box, world frame (length)"),
], """``m.stat``: model statistics at qpos0 (MuJoCo's mjStatistic; seed 000 ``<statistic>``).

The compiler computes them (engine.compiler._setconst_dyn._set_stat, as MuJoCo's compiler
does) unless ``<statistic>`` gives a value. Renderers scale decorations and the free camera by
them (``m.vis.map`` and ``m.vis.scale`` are ratios of extent and meansize). A compiled model's
statistics are views of its arena's stat_* fields (writes reach the model); ``MjStatistic()``
alone holds zeros, as the bindings' does.""")


class _Named:
    """A row of the model (or data) arrays for one named object: ``m.body('hand').mass``."""

    def __init__(self, kind, id_, name, fields):
        object.__setattr__(self, "id", id_)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "_kind", kind)
        object.__setattr__(self, "_fields", fields)

    def __getattr__(self, attr):
        f = self.__dict__["_fields"].get(attr)
        if f is None:
            raise AttributeError(f"{self._kind} '{self.name}' has no field '{attr}'")
        return f

    def __setattr__(self, attr, value):
        f = self.__dict__["_fields"].get(attr)
        if f is None:
            raise AttributeError(f"{self._kind} '{self.name}' has no field '{attr}'")
        f[...] = value

    def __repr__(self):
        return f"<{self._kind} {self.id} '{self.name}'>"


_LAZY_BVH = frozenset(("bvh_aabb", "bvh_child", "bvh_depth", "bvh_nodeid", "body_bvhadr",
                       "body_bvhnum", "mesh_bvhadr", "mesh_bvhnum"))   # = compiler.bvh.FIELDS


class MjModel(_Fields):
    """The compiled model. Build it with `from_xml_path` / `from_xml_string`, never directly."""

    def __getattr__(self, name):
        # only for attributes not found: the BVH fields, built on first use from what the
        # compiler recorded (engine/compiler/bvh.py)
        if name in _LAZY_BVH and "_bvh_source" in self.__dict__:
            from .compiler import bvh
            bvh.build_into(self)
            return self.__dict__[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __init__(self, sizes: dict, values: dict, names: dict, modelname="MuJoCo Model"):
        """Allocate the arena for ``sizes`` and fill it from ``values`` (field name -> array).

        ``names``: object kind (a key of NAMED_KINDS, or "texture", "text") -> list of names
        (None for unnamed); ``modelname``: ``<mujoco model=...>``.
        """
        full = {k: int(sizes.get(k, 0)) for k in MODEL_SIZES}
        arena = Arena(MODEL_FIELDS, full)
        d = self.__dict__
        for k, v in full.items():
            d[k] = v
        d["_arena"] = arena
        d["_A"] = arena.buffers()
        for name, view in arena.views.items():
            d[name] = view
        for name, val in values.items():
            view = arena.views.get(name)
            if view is None:
                raise KeyError(f"compiler produced unknown model field '{name}'")
            if view.size:
                view[...] = np.asarray(val).reshape(view.shape)
        d["opt"] = MjOption(arena.views)
        d["stat"] = MjStatistic._view({k[5:]: v for k, v in arena.views.items()
                                       if k.startswith("stat_")})
        d["vis"] = MjVisual()   # MuJoCo's defaults; the compiler applies <visual>
        d["_names"] = {k: list(v) for k, v in names.items()}
        d["_name2id"] = {k: {n: i for i, n in enumerate(v) if n} for k, v in names.items()}
        d["nmocap"] = full["nmocap"]
        d["names"], adr = names_buffer(modelname, names)
        d.update(adr)
        d["nnames"] = len(d["names"])
        # the size signature an MjData is checked against (engine.argcheck.pair)
        d["_sig"] = tuple(full[k] for k in MODEL_SIZES)

    @staticmethod
    def _arena_sizes():
        return MODEL_SIZES

    # ---- construction -------------------------------------------------------------------------
    @staticmethod
    def from_xml_path(filename, assets=None, package_map=None):
        """Parse and compile an MJCF or URDF file (the root element decides which).

        ``package_map``: {package name: directory} for URDF ``package://`` mesh paths (searched
        before AMENT_PREFIX_PATH and ROS_PACKAGE_PATH)."""
        from .compiler import compile_file
        return compile_file(str(filename), assets=assets, package_map=package_map)

    @staticmethod
    def from_xml_string(xml, assets=None, package_map=None):
        """Parse and compile an MJCF or URDF document given as a string."""
        from .compiler import compile_string
        return compile_string(xml, assets=assets, package_map=package_map)

    @staticmethod
    def from_binary_path(filename, assets=None):
        """Load a model saved in MuJoCo's binary format (MJB, version 4.0.0; engine.mjb)."""
        if assets:
            raise NotImplementedError("MjModel.from_binary_path with an assets dictionary")
        from .mjb import load_file
        return load_file(filename)

    # ---- names --------------------------------------------------------------------------------
    def _kind(self, kind):
        kind = ALIASES.get(kind, kind)
        if kind not in NAMED_KINDS:
            raise KeyError(f"unknown object kind '{kind}'")
        return kind

    def _lookup(self, kind, key):
        kind = self._kind(kind)
        size = getattr(self, NAMED_KINDS[kind][2])
        if isinstance(key, str):
            i = self._name2id.get(kind, {}).get(key)
            if i is None:
                raise KeyError(f"Invalid name '{key}'. Valid names: "
                               f"{sorted(n for n in self._names.get(kind, []) if n)}")
        else:
            from . import argcheck
            i = argcheck.index(key, size, "id", kind)
        names = self._names.get(kind, [])
        return kind, i, (names[i] if i < len(names) and names[i] else "")

    def _row_fields(self, kind, i):
        prefix = NAMED_KINDS[kind][0]
        size = getattr(self, NAMED_KINDS[kind][2])
        out = {}
        for name, view in self._arena.views.items():
            if name.startswith(prefix) and view.shape and view.shape[0] == size:
                out[name[len(prefix):]] = view[i:i + 1] if view.ndim == 1 else view[i]
        return out

    def _named(self, kind, key):
        kind, i, name = self._lookup(kind, key)
        return _Named(kind, i, name, self._row_fields(kind, i))

    def body(self, key): return self._named("body", key)
    def joint(self, key): return self._named("joint", key)
    jnt = joint
    def geom(self, key): return self._named("geom", key)
    def site(self, key): return self._named("site", key)
    def camera(self, key): return self._named("camera", key)
    cam = camera
    def light(self, key): return self._named("light", key)
    def flex(self, key): return self._named("flex", key)
    def skin(self, key): return self._named("skin", key)
    def mesh(self, key): return self._named("mesh", key)
    def hfield(self, key): return self._named("hfield", key)
    def material(self, key): return self._named("material", key)
    mat = material
    def pair(self, key): return self._named("pair", key)
    def exclude(self, key): return self._named("exclude", key)
    def equality(self, key): return self._named("equality", key)
    eq = equality
    def tendon(self, key): return self._named("tendon", key)
    def actuator(self, key): return self._named("actuator", key)
    def sensor(self, key): return self._named("sensor", key)
    def numeric(self, key): return self._named("numeric", key)
    def tuple(self, key): return self._named("tuple", key)
    def key(self, key): return self._named("key", key)
    keyframe = key

    # ---- copy and pickle (engine._copy: the bindings' semantics) ----------------------------------
    def __copy__(self):
        from ._copy import clone
        return clone(self)

    def __deepcopy__(self, memo):
        from ._copy import clone
        return clone(self, memo)

    def __reduce__(self):
        from ._copy import reduce
        return reduce(self)

    def __repr__(self):
        return (f"<engine.MjModel nq={self.nq} nv={self.nv} nu={self.nu} nbody={self.nbody} "
                f"ngeom={self.ngeom} nsensor={self.nsensor}>")


declare_fields(MjModel, [f for f, *_ in MODEL_FIELDS] + list(MODEL_SIZES) + list(NAME_ADR_FIELDS)
               + ["names", "opt", "stat", "vis"],
               lambda f: f"m.{f}: mjModel's field of this name (seed 001, \"mjModel\")")
