"""The editable elements of an MjSpec (mujoco's Mjs* objects) as views of engine.spec Elements.

An element reads and writes the attributes of the engine.spec Element it wraps, under the names
mujoco's Mjs* objects use (seed 004, "editing models"): ``geom.size``, ``geom.type``
(an mjtGeom), ``geom.meshname``, ``joint.type`` (mjtJoint), ``joint.limited`` (mjtLimited),
``body.mass`` (the body's inertial), ``actuator.trntype`` / ``target`` ... A vector attribute
reads as a float64 numpy array held by the element, so ``geom.size[0] = 2`` edits it in place
as with the bindings. Setting an attribute marks it given, as if the file had written it (the
compiler's autolimits and inertia rules depend on that); setting one orientation (quat, or alt
through ``quat``) clears the others.
"""
from __future__ import annotations

import numpy as np

from .. import enums
from ..spec import Body, Element, Frame
from ..xml import schema as S

# mujoco attribute name -> engine attribute name, per element kind
_RENAME = {
    "geom": {"meshname": "mesh", "hfieldname": "hfield", "fluid_coefs": "fluidcoef",
             "fluid_ellipsoid": "fluidshape"},
    "mesh": {"uservert": "vertex", "usernormal": "normal", "usertexcoord": "texcoord",
             "userface": "face"},
    "actuator": {},
    "tendon": {},
    "pair": {"geomname1": "geom1", "geomname2": "geom2"},
    "exclude": {"bodyname1": "body1", "bodyname2": "body2"},
}
# enum-valued keyword attributes: (kind, attr) -> (enum class, member prefix)
_ENUMS = {
    ("geom", "type"): (enums.mjtGeom, "mjGEOM_"),
    ("site", "type"): (enums.mjtGeom, "mjGEOM_"),
    ("joint", "type"): (enums.mjtJoint, "mjJNT_"),
    ("actuator", "dyntype"): (enums.mjtDyn, "mjDYN_"),
    ("actuator", "gaintype"): (enums.mjtGain, "mjGAIN_"),
    ("actuator", "biastype"): (enums.mjtBias, "mjBIAS_"),
    ("camera", "mode"): (enums.mjtCamLight, "mjCAMLIGHT_"),
    ("light", "mode"): (enums.mjtCamLight, "mjCAMLIGHT_"),
}
_TRISTATE = {"false": 0, "true": 1, "auto": 2}
# actuator transmission: mjtTrn value -> the engine attribute naming the target
_TRN_ATTR = {0: "joint", 1: "jointinparent", 2: "cranksite", 3: "tendon", 4: "site", 5: "body"}
TABLES = {"body": S.BODY, "joint": S.JOINT, "freejoint": {**S.JOINT, **S.FREEJOINT}, "geom": S.GEOM,
          "site": S.SITE, "camera": S.CAMERA, "light": S.LIGHT, "frame": S.FRAME,
          "mesh": S.MESH, "material": S.MATERIAL, "texture": S.TEXTURE, "hfield": S.HFIELD,
          "key": S.KEY, "tendon": S.TENDON, "pair": S.PAIR, "inertial": S.INERTIAL}


def table_of(el):
    if el.kind == "actuator":
        return S.ACTUATOR["general"]
    if el.kind == "sensor":
        return S.SENSOR[el.tag]
    if el.kind == "equality":
        return S.EQUALITY[el.tag]
    if el.kind in ("numeric", "text"):
        return S.CUSTOM[el.kind]
    if el.kind == "exclude":
        return {"name": (S.S, None, None), "body1": (S.S, None, None), "body2": (S.S, None, None)}
    return TABLES.get(el.kind, {})


def _to_engine(kind, attr, value, table, current=None):
    """A value given through the MjSpec API as the engine stores it (a scalar given for a
    vector attribute, such as a joint's damping, is its first entry)."""
    spec = table.get(attr)
    if (spec is not None and spec[1] is not None and spec[0] in (S.R, S.I)
            and np.ndim(value) == 0 and not isinstance(value, str)):
        cur = current if current is not None else spec[2]
        vec = np.array(cur if cur is not None else (0.0,), float).ravel()
        vec[0] = value
        return vec
    if (kind, attr) in _ENUMS:
        if isinstance(value, str):
            return value
        cls, prefix = _ENUMS[(kind, attr)]
        return cls(int(value)).name[len(prefix):].lower()
    if spec is not None and spec[0] == S.T and not isinstance(value, str):
        return {0: "false", 1: "true", 2: "auto"}[int(value)]
    if spec is not None and isinstance(spec[0], tuple) and not isinstance(value, str):
        # a keyword attribute given as mujoco's enum: the schema lists the keywords in the
        # enum's order (texture type / builtin / mark, mesh inertia ...)
        return spec[0][int(value)]
    if spec is not None and spec[0] == S.B:
        return bool(value)
    if isinstance(value, (list, tuple, np.ndarray)):
        return np.array(value, float if spec is None or spec[0] != S.I else np.int64)
    return value


def _from_engine(kind, attr, value, table):
    spec = table.get(attr)
    if (kind, attr) in _ENUMS and isinstance(value, str):
        cls, prefix = _ENUMS[(kind, attr)]
        return cls[prefix + value.upper()]
    if spec is not None and spec[0] == S.T and isinstance(value, str):
        return enums.mjtLimited(_TRISTATE[value])
    if value is None and spec is not None and spec[0] == S.S:
        return ""           # an unset name reads as the empty string, as in mujoco
    return value


class MjsElement:
    """Base of the element views: ``_el`` is the engine.spec Element, ``_spec`` the MjSpec."""

    __slots__ = ("_el", "_spec")

    def __init__(self, el, spec):
        object.__setattr__(self, "_el", el)
        object.__setattr__(self, "_spec", spec)

    def _name(self, attr):
        return _RENAME.get(self._el.kind, {}).get(attr, attr)

    def __getattr__(self, attr):
        if attr.startswith("_"):
            raise AttributeError(attr)
        el = self._el
        key = self._name(attr)
        table = table_of(el)
        if key not in el.attrs and key not in table:
            raise AttributeError(f"'{type(self).__name__}' has no attribute '{attr}'")
        v = el.attrs[key] if key in el.attrs else table[key][2]   # the world body has none
        if isinstance(v, tuple) and all(isinstance(x, (int, float)) for x in v):
            # held as an array from now on, so in-place edits reach the element
            v = np.array(v, float)
            el.attrs[key] = v
        if isinstance(v, np.ndarray) and v.dtype != float:
            v = v.astype(float)
            el.attrs[key] = v
        return _from_engine(el.kind, key, v, table)

    def __setattr__(self, attr, value):
        prop = getattr(type(self), attr, None)
        if isinstance(prop, property):
            prop.fset(self, value)
            return
        el = self._el
        key = self._name(attr)
        table = table_of(el)
        if key not in table and key not in el.attrs:
            raise AttributeError(f"'{type(self).__name__}' has no attribute '{attr}'")
        _set(el, key, _to_engine(el.kind, key, value, table, el.attrs.get(key)))

    @property
    def name(self):
        return self._el.attrs.get("name") or ""

    @name.setter
    def name(self, value):
        _set(self._el, "name", value)

    def __eq__(self, other):
        return isinstance(other, MjsElement) and other._el is self._el

    def __hash__(self):
        return id(self._el)

    def __repr__(self):
        return f"<{type(self).__name__} '{self.name}'>"


def _set(el, key, value):
    """Set ``key`` as given; an orientation clears the other forms."""
    if not isinstance(el.given, set) or getattr(el, "_own_given", None) is not el.given:
        el.given = set(el.given)      # an attach's copies share their originals' sets
        el.__dict__["_own_given"] = el.given
    if key in S.ORIENT:
        for k in S.ORIENT:
            el.attrs[k] = None
            el.given.discard(k)
    el.attrs[key] = value
    el.given.add(key)


def new_element(kind, tag, table, spec, kwargs, defaults=True, cls=Element, default=None):
    """An Element of ``kind`` with the schema's defaults, the values of its default class
    (``default``, an MjsDefault, else main) and ``kwargs`` (mujoco attribute names) given."""
    attrs = {k: v[2] for k, v in table.items()}
    given = set()
    main = (default._cls if default is not None else spec.defaults.get("main")) \
        if defaults else None
    if main is not None:
        # copies: an element's in-place edit must not reach its class
        attrs.update({k: (v.copy() if isinstance(v, np.ndarray) else v)
                      for k, v in main.values.get(kind, {}).items() if k in table})
        given |= main.given.get(kind, set()) & set(table)
    if cls is Body:
        el = Body(attrs=attrs, given=given)
    elif cls is Frame:
        el = Frame(kind, tag, attrs, given)
    else:
        el = Element(kind, tag, attrs, given)
    return el


def apply_kwargs(view, kwargs):
    for k, v in kwargs.items():
        if v is None:
            continue
        setattr(view, k, v)
    return view


class MjsGeom(MjsElement):
    __slots__ = ()


class MjsJoint(MjsElement):
    """A joint; a <freejoint> reads as a joint of type mjJNT_FREE."""

    __slots__ = ()

    @property
    def type(self):
        if self._el.kind == "freejoint":
            return enums.mjtJoint.mjJNT_FREE
        return enums.mjtJoint["mjJNT_" + self._el.attrs["type"].upper()]

    @type.setter
    def type(self, value):
        if self._el.kind == "freejoint":
            if int(value) != enums.mjtJoint.mjJNT_FREE:
                raise NotImplementedError("changing the type of a <freejoint>")
            return
        _set(self._el, "type", enums.mjtJoint(int(value)).name[6:].lower())


class MjsSite(MjsElement):
    __slots__ = ()

    def attach_body(self, body, prefix=None, suffix=None):
        """Attach a copy of ``body`` (an MjsBody of another spec) at this site."""
        from . import site_frame
        return site_frame(self).attach_body(body, prefix, suffix)


class MjsCamera(MjsElement):
    __slots__ = ()


class MjsLight(MjsElement):
    __slots__ = ()


class MjsMesh(MjsElement):
    __slots__ = ()


class _TextureRoles:
    """``material.textures``: the texture name per mjtTextureRole (mujoco's MjStringVec); the
    RGB role is the material's ``texture``, the others its ``<layer>`` elements."""

    __slots__ = ("_el",)
    _ROLES = ("", "rgb", "occlusion", "roughness", "metallic", "normal", "opacity", "emissive",
              "rgba", "orm")

    def __init__(self, el):
        self._el = el

    def __len__(self):
        return len(self._ROLES)

    def __getitem__(self, i):
        role = self._ROLES[int(i)]
        if role == "rgb" and self._el.attrs.get("texture"):
            return self._el.attrs["texture"]
        lay = next((x for x in getattr(self._el, "layers", ()) if x.attrs.get("role") == role),
                   None)
        return lay.attrs["texture"] if lay is not None else ""

    def __setitem__(self, i, name):
        role = self._ROLES[int(i)]
        if not role:
            raise IndexError("texture role 0 (mjTEXROLE_USER) is not supported")
        if role == "rgb":
            _set(self._el, "texture", name)
            return
        layers = self._el.__dict__.setdefault("layers", [])
        lay = next((x for x in layers if x.attrs.get("role") == role), None)
        if lay is None:
            lay = Element("layer", "layer", {"texture": name, "role": role}, {"texture", "role"})
            layers.append(lay)
        lay.attrs["texture"] = name

    def __iter__(self):
        return (self[i] for i in range(len(self)))


class MjsMaterial(MjsElement):
    __slots__ = ()

    @property
    def textures(self):
        return _TextureRoles(self._el)

    @textures.setter
    def textures(self, names):
        roles = _TextureRoles(self._el)
        for i, n in enumerate(names):
            if n:
                roles[i] = n


class MjsTexture(MjsElement):
    __slots__ = ()


class MjsHField(MjsElement):
    __slots__ = ()


class MjsKey(MjsElement):
    __slots__ = ()


class MjsTendon(MjsElement):
    """A tendon; its path is built with wrap_site / wrap_geom / wrap_joint / wrap_pulley."""

    __slots__ = ()

    def _wrap(self, tag, attrs):
        w = Element(tag, tag, attrs, set(attrs))
        self._el.path.append(w)
        return w

    def wrap_site(self, name):
        self._el.tag = "spatial"
        return self._wrap("site", {"site": name})

    def wrap_geom(self, name, sidesite=""):
        self._el.tag = "spatial"
        return self._wrap("geom", {"geom": name, **({"sidesite": sidesite} if sidesite else {})})

    def wrap_joint(self, name, coef):
        self._el.tag = "fixed"
        return self._wrap("joint", {"joint": name, "coef": float(coef)})

    def wrap_pulley(self, divisor):
        return self._wrap("pulley", {"divisor": float(divisor)})


class MjsEquality(MjsElement):
    __slots__ = ()

    @property
    def type(self):
        return enums.mjtEq["mjEQ_" + self._el.tag.upper()]

    @type.setter
    def type(self, value):
        self._el.tag = enums.mjtEq(int(value)).name[5:].lower()


class MjsSensor(MjsElement):
    """A sensor: ``type`` (mjtSensor) is its element; ``objname`` the attribute naming what it
    measures (site, joint, tendon, actuator, body or objname, as its element has)."""

    __slots__ = ()
    _OBJ = ("site", "joint", "tendon", "actuator", "body", "objname", "geom1")

    @property
    def type(self):
        return enums.mjtSensor["mjSENS_" + self._el.tag.upper()]

    @type.setter
    def type(self, value):
        tag = enums.mjtSensor(int(value)).name[7:].lower()
        if tag not in S.SENSOR:
            raise NotImplementedError(f"MjSpec sensor type {enums.mjtSensor(int(value)).name}")
        old = self._el.attrs
        self._el.tag = tag
        self._el.attrs = {k: v[2] for k, v in S.SENSOR[tag].items()}
        self._el.attrs.update({k: v for k, v in old.items() if k in S.SENSOR[tag]})

    def _obj_attr(self):
        return next((k for k in self._OBJ if k in S.SENSOR[self._el.tag]), None)

    @property
    def objname(self):
        k = self._obj_attr()
        return self._el.attrs.get(k) or "" if k else ""

    @objname.setter
    def objname(self, value):
        k = self._obj_attr()
        if k is None:
            raise AttributeError(f"sensor <{self._el.tag}> names no object")
        _set(self._el, k, value)

    @property
    def objtype(self):
        return self._el.attrs.get("objtype")

    @objtype.setter
    def objtype(self, value):
        if "objtype" in S.SENSOR[self._el.tag]:
            v = value if isinstance(value, str) else enums.mjtObj(int(value)).name[6:].lower()
            _set(self._el, "objtype", v)
        # elements that name their object by a fixed attribute (jointpos: joint) need no type


class MjsActuator(MjsElement):
    """An actuator as mujoco's general actuator: gain / bias / dynamics types and parameters,
    ``trntype`` (mjtTrn) with ``target`` naming the transmission's object."""

    __slots__ = ()

    @property
    def trntype(self):
        for v, k in _TRN_ATTR.items():
            if self._el.attrs.get(k):
                return enums.mjtTrn(v)
        return None

    @trntype.setter
    def trntype(self, value):
        target = self.target
        for k in _TRN_ATTR.values():
            self._el.attrs[k] = None
            self._el.given.discard(k)
        self._el.__dict__["_trn"] = _TRN_ATTR[int(value)]
        if target:
            _set(self._el, _TRN_ATTR[int(value)], target)

    @property
    def target(self):
        for k in _TRN_ATTR.values():
            if self._el.attrs.get(k):
                return self._el.attrs[k]
        return ""

    @target.setter
    def target(self, value):
        k = self._el.__dict__.get("_trn")
        if k is None:
            t = self.trntype
            k = _TRN_ATTR[int(t)] if t is not None else "joint"
        _set(self._el, k, value)


class MjsFrame(MjsElement):
    """A <frame>: a pose in its body; elements added to it are in its frame."""

    __slots__ = ("_body",)

    def __init__(self, el, spec, body):
        super().__init__(el, spec)
        object.__setattr__(self, "_body", body)

    def _add(self, kind, **kwargs):
        view = getattr(MjsBody(self._body, self._spec), "add_" + kind)(**kwargs)
        view._el.frame = self._el
        return view

    def add_body(self, **kw): return self._add("body", **kw)
    def add_geom(self, **kw): return self._add("geom", **kw)
    def add_site(self, **kw): return self._add("site", **kw)
    def add_joint(self, **kw): return self._add("joint", **kw)
    def add_camera(self, **kw): return self._add("camera", **kw)
    def add_light(self, **kw): return self._add("light", **kw)

    def add_frame(self, **kw):
        f = MjsBody(self._body, self._spec).add_frame(**kw)
        f._el.frame = self._el
        return f

    def attach_body(self, body, prefix=None, suffix=None):
        """Attach a copy of ``body`` (an MjsBody of another spec) with its subtree in this
        frame, names made prefix + name + suffix; returns the attached body."""
        from . import attach_copy
        if not body.name:
            raise ValueError("attach_body: the body must be named")
        return attach_copy(self._spec, body._spec, body.name, prefix, suffix, self._body,
                           self._el)


class MjsBody(MjsElement):
    """A body: its own attributes, its inertial (mass, ipos, iquat, inertia, fullinertia,
    explicitinertial) and the add_* methods of mujoco's MjsBody."""

    __slots__ = ()
    _INERTIAL = {"mass": "mass", "ipos": "pos", "iquat": "quat", "inertia": "diaginertia",
                 "fullinertia": "fullinertia"}

    def __getattr__(self, attr):
        if attr in self._INERTIAL:
            inertial = self._el.inertial
            if inertial is None:
                return {"mass": 0.0, "ipos": np.zeros(3), "iquat": np.array([1.0, 0, 0, 0]),
                        "inertia": np.zeros(3), "fullinertia": np.full(6, np.nan)}[attr]
            return MjsElement(inertial, self._spec).__getattr__(self._INERTIAL[attr])
        if attr == "explicitinertial":
            return self._el.inertial is not None
        return super().__getattr__(attr)

    def __setattr__(self, attr, value):
        if attr in self._INERTIAL or attr == "explicitinertial":
            if self._el.inertial is None:
                inert = Element("inertial", "inertial", {k: v[2] for k, v in S.INERTIAL.items()},
                                set())
                _set(inert, "pos", np.zeros(3))
                _set(inert, "mass", 0.0)
                self._el.inertial = inert
            if attr != "explicitinertial":
                _set(self._el.inertial, self._INERTIAL[attr], _to_engine(
                    "inertial", self._INERTIAL[attr], value, S.INERTIAL))
            elif not value:
                self._el.inertial = None
            return
        super().__setattr__(attr, value)

    # ---- children ------------------------------------------------------------------------------
    def _child(self, kind, table, view_cls, kwargs, defaults=True, cls=Element):
        """A new element of ``kind`` in this body (a body and a freejoint take no class)."""
        kwargs = dict(kwargs)
        default = kwargs.pop("default", None)
        el = new_element(kind, kind, table, self._spec._spec, kwargs, defaults=defaults,
                         cls=cls, default=default)
        self._el.add(el)
        return apply_kwargs(view_cls(el, self._spec), kwargs)

    def add_body(self, **kwargs):
        return self._child("body", S.BODY, MjsBody, kwargs, defaults=False, cls=Body)

    def add_geom(self, **kwargs):
        return self._child("geom", S.GEOM, MjsGeom, kwargs)

    def add_joint(self, **kwargs):
        return self._child("joint", S.JOINT, MjsJoint, kwargs)

    def add_freejoint(self, **kwargs):
        return self._child("freejoint", S.FREEJOINT, MjsJoint, kwargs, defaults=False)

    def add_site(self, **kwargs):
        return self._child("site", S.SITE, MjsSite, kwargs)

    def add_camera(self, **kwargs):
        return self._child("camera", S.CAMERA, MjsCamera, kwargs)

    def add_light(self, **kwargs):
        return self._child("light", S.LIGHT, MjsLight, kwargs)

    def add_frame(self, **kwargs):
        kwargs.pop("default", None)
        el = new_element("frame", "frame", S.FRAME, self._spec._spec, kwargs, defaults=False,
                         cls=Frame)
        el.parent = self._el
        return apply_kwargs(MjsFrame(el, self._spec, self._el), kwargs)

    # ---- listing -------------------------------------------------------------------------------
    @property
    def bodies(self):
        return [MjsBody(b, self._spec) for b in self._el.bodies]

    @property
    def geoms(self):
        return [MjsGeom(g, self._spec) for g in self._el.geoms]

    @property
    def joints(self):
        return [MjsJoint(j, self._spec) for j in self._el.joints]

    @property
    def sites(self):
        return [MjsSite(s, self._spec) for s in self._el.sites]

    @property
    def parent(self):
        p = self._el.parent
        return MjsBody(p, self._spec) if p is not None else None


class MjsDefault:
    """A default class (mujoco's MjsDefault): ``d.geom``, ``d.joint`` ... are element views
    whose attributes are the class's values for that kind; elements added with ``default=d``
    start from them (seed 004, "default settings": the class is a prototype copied when an
    element is made)."""

    __slots__ = ("_cls", "_spec")
    _KINDS = {"geom": "geom", "joint": "joint", "site": "site", "camera": "camera",
              "light": "light", "mesh": "mesh", "material": "material", "pair": "pair",
              "equality": "equality", "tendon": "tendon", "actuator": "general"}

    def __init__(self, cls, spec):
        self._cls, self._spec = cls, spec

    @property
    def name(self):
        return self._cls.name

    def __getattr__(self, kind):
        key = self._KINDS.get(kind)
        if key is None:
            raise AttributeError(f"'MjsDefault' has no attribute '{kind}'")
        el = Element(kind, kind if kind != "actuator" else "general")
        el.attrs = self._cls.values.setdefault(key, {})       # the class's own dict
        el.given = self._cls.given.setdefault(key, set())
        el.__dict__["_own_given"] = el.given
        view = {"actuator": MjsActuator, "joint": MjsJoint}.get(kind, MjsElement)
        return view(el, self._spec)

    def __repr__(self):
        return f"<MjsDefault '{self.name}'>"


VIEW = {"body": MjsBody, "geom": MjsGeom, "joint": MjsJoint, "freejoint": MjsJoint,
        "site": MjsSite, "camera": MjsCamera, "light": MjsLight, "mesh": MjsMesh,
        "material": MjsMaterial, "texture": MjsTexture, "hfield": MjsHField, "key": MjsKey,
        "tendon": MjsTendon, "equality": MjsEquality, "sensor": MjsSensor,
        "actuator": MjsActuator}
