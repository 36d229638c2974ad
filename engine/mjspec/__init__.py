"""engine.MjSpec: the editable model, as the official bindings' MjSpec (seed 004, "editing
models": load, change, add, delete, attach, compile, recompile, save).

It wraps the tree the XML readers fill (engine.spec.Spec); elements are views of that tree
(engine.mjspec.elements). compile() compiles a copy of the tree (the compiler fuses and
discards in place), so the spec stays editable; recompile(m, d) compiles again and carries the
state of every joint, actuator and mocap body that still exists into a new MjData, matching
elements by identity (not by name: a renamed element keeps its state, as in mujoco).
"""
from __future__ import annotations

import copy

import numpy as np

from .. import enums
from ..spec import Body, Frame
from ..xml import schema as S
from .elements import (VIEW, MjsActuator, MjsBody, MjsCamera, MjsDefault,  # noqa: F401
                       MjsElement, MjsEquality, MjsFrame, MjsGeom, MjsHField, MjsJoint, MjsKey,
                       MjsLight, MjsMaterial, MjsMesh, MjsSensor, MjsSite, MjsTendon, MjsTexture,
                       apply_kwargs, new_element)

__all__ = ["MjSpec", "to_zip", "from_zip", "MjsActuator", "MjsBody", "MjsCamera", "MjsDefault",
           "MjsElement", "MjsEquality", "MjsFrame", "MjsGeom", "MjsHField", "MjsJoint", "MjsKey",
           "MjsLight", "MjsMaterial", "MjsMesh", "MjsSensor", "MjsSite", "MjsTendon", "MjsTexture"]


def site_frame(site):
    """An MjsFrame at ``site``'s pose in its body (its position and orientation attributes, in
    the frames that hold it)."""
    el = site._el
    attrs = {"pos": el.attrs.get("pos", (0.0, 0.0, 0.0))}
    attrs.update({k: el.attrs.get(k) for k in S.ORIENT})
    f = Frame("frame", "frame", attrs, {k for k, v in attrs.items() if v is not None})
    f.frame = el.frame
    f.parent = el.parent
    return MjsFrame(f, site._spec, el.parent)


def attach_copy(spec, child, body_name, prefix, suffix, body, frame):
    """Copy ``child`` (an MjSpec) into ``spec`` under ``body`` in ``frame``: its body
    ``body_name`` with its subtree, or (None) its whole world; engine.xml.mjcf's <attach>
    does the copying and renaming. Returns the attached body's view when one was named."""
    from ..xml.mjcf import ATTACHED_SECTIONS, MJCFReader, Node
    reader = MJCFReader.__new__(MJCFReader)
    reader.spec = spec._spec
    reader.file = None
    reader._attached = {k: [] for k in ATTACHED_SECTIONS}
    reader._attached_assets = set()
    models = spec._spec.extras.setdefault("models", {})
    key = f"__mjspec_attach_{len(models)}"
    models[key] = _normalize(copy.deepcopy(child._spec))
    try:
        reader._attach(Node("attach", {}, None, None, []),
                       {"model": key, "prefix": prefix or "", "body": body_name}, body, frame,
                       suffix or "")
    finally:
        del models[key]
    for k in ATTACHED_SECTIONS:
        getattr(spec._spec, k).extend(reader._attached[k])
    if body_name:
        return spec.body((prefix or "") + body_name + (suffix or ""))
    return None


# spec-level sections: kind -> (Spec list attribute, schema table, tag)
_SECTIONS = {"mesh": ("meshes", S.MESH, "mesh"),
             "material": ("materials", S.MATERIAL, "material"),
             "texture": ("textures", S.TEXTURE, "texture"),
             "hfield": ("hfields", S.HFIELD, "hfield"),
             "key": ("keys", S.KEY, "key"), "tendon": ("tendons", S.TENDON, "spatial"),
             "actuator": ("actuators", S.ACTUATOR["general"], "general"),
             "sensor": ("sensors", None, None), "equality": ("equalities", None, None),
             "pair": ("pairs", S.PAIR, "pair"),
             "exclude": ("excludes", {"name": (S.S, None, None), "body1": (S.S, None, None),
                                      "body2": (S.S, None, None)}, "exclude"),
             "numeric": ("numerics", S.CUSTOM["numeric"], "numeric"),
             "text": ("texts", S.CUSTOM["text"], "text")}


def _as_plain(v):
    """numpy values (MjSpec edits) back to the tuples / floats the compiler reads."""
    if isinstance(v, np.ndarray):
        return tuple(x.item() for x in v.ravel())
    if isinstance(v, np.generic):
        return v.item()
    return v


def _normalize(spec):
    """Every attribute value of ``spec`` (a private copy) in the reader's plain form."""
    seen = set()

    def fix(el):
        while el is not None and id(el) not in seen:
            seen.add(id(el))
            el.attrs = {k: _as_plain(v) for k, v in el.attrs.items()}
            for p in getattr(el, "path", None) or ():
                fix(p)
            for lay in getattr(el, "layers", None) or ():
                fix(lay)
            if isinstance(el, Body) and el.inertial is not None:
                fix(el.inertial)
            el = el.frame
    spec.option = {k: _as_plain(v) for k, v in spec.option.items()}
    for b in spec.bodies():
        fix(b)
        for lst in (b.joints, b.geoms, b.sites, b.cameras, b.lights):
            for el in lst:
                fix(el)
    for section in ("meshes", "hfields", "textures", "materials", "pairs", "excludes",
                    "equalities", "tendons", "actuators", "sensors", "keys", "numerics", "texts",
                    "tuples"):
        for el in getattr(spec, section):
            fix(el)
    return spec


class _Option:
    """``spec.option``: the ``<option>`` values as mujoco's MjOption names them (keywords as
    their enum values: integrator, cone, jacobian, solver; ``disableflags`` / ``enableflags``
    the bit fields of ``<flag>``, in mjtDisableBit / mjtEnableBit order)."""

    __slots__ = ("_sp",)

    def __init__(self, sp):
        object.__setattr__(self, "_sp", sp)

    def __getattr__(self, name):
        sp = self._sp
        if name in ("disableflags", "enableflags"):
            names, on = ((S.DISABLE_FLAGS, "disable") if name == "disableflags"
                         else (S.ENABLE_FLAGS, "enable"))
            return sum(1 << i for i, f in enumerate(names) if sp.flags.get(f) == on)
        spec = S.OPTION.get(name)
        if spec is None:
            raise AttributeError(f"'MjOption' has no attribute '{name}'")
        v = sp.option.get(name, spec[2])
        if isinstance(spec[0], tuple):
            return spec[0].index(v)
        if isinstance(v, tuple):
            v = np.array(v, float)
            sp.option[name] = v        # held as an array: in-place edits reach the spec
        return v

    def __setattr__(self, name, value):
        sp = self._sp
        if name in ("disableflags", "enableflags"):
            names, on, off = ((S.DISABLE_FLAGS, "disable", "enable") if name == "disableflags"
                              else (S.ENABLE_FLAGS, "enable", "disable"))
            for i, f in enumerate(names):
                if int(value) >> i & 1:
                    sp.flags[f] = on
                elif f in sp.flags:
                    sp.flags[f] = off
            return
        spec = S.OPTION.get(name)
        if spec is None:
            raise AttributeError(f"'MjOption' has no attribute '{name}'")
        if isinstance(spec[0], tuple) and not isinstance(value, str):
            value = spec[0][int(value)]
        elif isinstance(value, (list, tuple, np.ndarray)):
            value = np.array(value, float)
        sp.option[name] = value


class MjSpec:
    """An editable model. ``MjSpec()`` is an empty model; ``MjSpec.from_file(path)`` /
    ``from_string(xml)`` read MJCF (or URDF)."""

    def __init__(self, _spec=None):
        if _spec is None:
            from ..compiler import parse_string
            _spec = parse_string("<mujoco/>")
        self._spec = _spec
        self._compiled = None     # (joints, actuators, mocap bodies) of the last compile

    # ---- construction --------------------------------------------------------------------------
    @staticmethod
    def from_file(filename, include=None, assets=None):
        from ..compiler import parse_file
        if include:
            raise NotImplementedError("MjSpec.from_file with an include dictionary")
        return MjSpec(parse_file(str(filename), assets))

    @staticmethod
    def from_string(xml, include=None, assets=None):
        from ..compiler import parse_string
        if include:
            raise NotImplementedError("MjSpec.from_string with an include dictionary")
        return MjSpec(parse_string(xml, assets))

    def copy(self):
        return copy.deepcopy(self)

    def __copy__(self):
        # an independent spec (mujoco 4.0.0's MjSpec refuses copy.copy and pickle; the issue
        # asks for both: a shallow copy sharing the tree would make edits leak between them)
        return copy.deepcopy(self)

    def __deepcopy__(self, memo):
        out = MjSpec.__new__(MjSpec)
        out._spec = copy.deepcopy(self._spec, memo)
        out._compiled = None
        return out

    def __getstate__(self):
        return {"_spec": self._spec, "_compiled": None}

    # ---- model-level attributes ----------------------------------------------------------------
    @property
    def modelname(self):
        return self._spec.modelname

    @modelname.setter
    def modelname(self, value):
        self._spec.modelname = value

    @property
    def option(self):
        return _Option(self._spec)

    @property
    def worldbody(self):
        return MjsBody(self._spec.worldbody, self)

    # ---- lookup --------------------------------------------------------------------------------
    def _find(self, kind, name):
        sp = self._spec
        if kind in ("body", "geom", "joint", "site", "camera", "light"):
            el = sp.find(kind, name)
        else:
            el = next((e for e in getattr(sp, _SECTIONS[kind][0]) if e.name == name), None)
        return None if el is None else VIEW.get(el.kind, MjsElement)(el, self)

    def body(self, name): return self._find("body", name)
    def geom(self, name): return self._find("geom", name)
    def joint(self, name): return self._find("joint", name)
    def site(self, name): return self._find("site", name)
    def camera(self, name): return self._find("camera", name)
    def light(self, name): return self._find("light", name)
    def mesh(self, name): return self._find("mesh", name)
    def material(self, name): return self._find("material", name)
    def texture(self, name): return self._find("texture", name)
    def hfield(self, name): return self._find("hfield", name)
    def key(self, name): return self._find("key", name)
    def tendon(self, name): return self._find("tendon", name)
    def actuator(self, name): return self._find("actuator", name)
    def sensor(self, name): return self._find("sensor", name)
    def equality(self, name): return self._find("equality", name)
    def pair(self, name): return self._find("pair", name)
    def exclude(self, name): return self._find("exclude", name)
    def numeric(self, name): return self._find("numeric", name)
    def text(self, name): return self._find("text", name)

    @property
    def bodies(self):
        return [MjsBody(b, self) for b in self._spec.bodies()]   # the world first, as mujoco

    @property
    def geoms(self):
        return [VIEW["geom"](g, self) for b in self._spec.bodies() for g in b.geoms]

    @property
    def joints(self):
        return [VIEW["joint"](j, self) for b in self._spec.bodies() for j in b.joints]

    @property
    def actuators(self):
        return [MjsActuator(a, self) for a in self._spec.actuators]

    @property
    def sensors(self):
        return [MjsSensor(s, self) for s in self._spec.sensors]

    # ---- adding spec-level elements -------------------------------------------------------------
    def _add(self, kind, view_cls, kwargs, table=None, tag=None):
        section, t, default_tag = _SECTIONS[kind]
        table = table or t
        default = kwargs.get("default")
        kwargs = {k: v for k, v in kwargs.items() if k != "default"}
        el = new_element(kind, tag or default_tag, table, self._spec, kwargs, default=default)
        if kind == "tendon":
            el.path = []
        if kind == "material":
            el.layers = []
        getattr(self._spec, section).append(el)
        return apply_kwargs(view_cls(el, self), kwargs)

    def add_mesh(self, **kw): return self._add("mesh", MjsMesh, kw)
    def add_material(self, **kw): return self._add("material", MjsMaterial, kw)
    def add_texture(self, **kw): return self._add("texture", MjsTexture, kw)
    def add_hfield(self, **kw): return self._add("hfield", VIEW["hfield"], kw)
    def add_key(self, **kw): return self._add("key", MjsKey, kw)
    def add_tendon(self, **kw): return self._add("tendon", MjsTendon, kw)
    def add_pair(self, **kw): return self._add("pair", MjsElement, kw)
    def add_exclude(self, **kw): return self._add("exclude", MjsElement, kw)
    def add_numeric(self, **kw): return self._add("numeric", MjsElement, kw)
    def add_text(self, **kw): return self._add("text", MjsElement, kw)

    def add_actuator(self, **kw):
        # trntype before target: the target's attribute depends on it
        order = sorted(kw, key=lambda k: k != "trntype")
        return self._add("actuator", MjsActuator, {k: kw[k] for k in order})

    def add_sensor(self, **kw):
        t = kw.pop("type", enums.mjtSensor.mjSENS_TOUCH)
        tag = enums.mjtSensor(int(t)).name[7:].lower()
        if tag not in S.SENSOR:
            raise NotImplementedError(f"MjSpec sensor type {enums.mjtSensor(int(t)).name}")
        kw.pop("objtype", None) if "objtype" not in S.SENSOR[tag] else None
        return self._add("sensor", MjsSensor, kw, S.SENSOR[tag], tag)

    def add_equality(self, **kw):
        t = kw.pop("type", enums.mjtEq.mjEQ_CONNECT)
        tag = enums.mjtEq(int(t)).name[5:].lower()
        if tag not in S.EQUALITY:
            raise NotImplementedError(f"MjSpec equality type {enums.mjtEq(int(t)).name}")
        for a, b in (("name1", None), ("name2", None)):
            if a in kw:
                raise NotImplementedError(f"MjSpec equality attribute '{a}': give the "
                                          "element's own attribute names (body1, joint1 ...)")
        return self._add("equality", MjsEquality, kw, S.EQUALITY[tag], tag)

    @property
    def default(self):
        """The main default class."""
        return MjsDefault(self._spec.defaults["main"], self)

    def find_default(self, name):
        cls = self._spec.defaults.get(name)
        return MjsDefault(cls, self) if cls is not None else None

    def add_default(self, name, parent=None):
        """A default class ``name`` starting from ``parent``'s values (an MjsDefault; main
        when None)."""
        from ..spec import DefaultClass
        p = parent._cls if isinstance(parent, MjsDefault) else self._spec.defaults["main"]
        if name in self._spec.defaults:
            raise ValueError(f"repeated default class name '{name}'")
        cls = DefaultClass(name, p, values={k: dict(v) for k, v in p.values.items()},
                           given={k: set(v) for k, v in p.given.items()})
        self._spec.defaults[name] = cls
        return MjsDefault(cls, self)

    # ---- deleting ------------------------------------------------------------------------------
    def delete(self, element):
        """Remove ``element`` (a body with its subtree, a tree element, or a spec-level one)."""
        el = element._el if isinstance(element, MjsElement) else element
        if isinstance(el, Body):
            if el is self._spec.worldbody:
                raise ValueError("the world body cannot be deleted")
            el.parent.bodies.remove(el)
            return
        if el.parent is not None:
            for lst in ("joints", "geoms", "sites", "cameras", "lights"):
                items = getattr(el.parent, lst)
                if any(x is el for x in items):
                    setattr(el.parent, lst, [x for x in items if x is not el])
                    return
        for section, *_ in _SECTIONS.values():
            items = getattr(self._spec, section)
            if any(x is el for x in items):
                setattr(self._spec, section, [x for x in items if x is not el])
                return
        raise ValueError(f"{element!r} is not in this spec")

    # ---- attaching -----------------------------------------------------------------------------
    def attach(self, child, prefix=None, suffix=None, site=None, frame=None):
        """Attach a copy of ``child``'s world (its bodies, and the assets, actuators, sensors,
        tendons, equalities and keyframes that refer to them) in ``frame`` (an MjsFrame of this
        spec) or at ``site`` (an MjsSite: in the site's frame), else at the world body; names
        become prefix + name + suffix, as the MJCF ``<attach>`` element does
        (engine.xml.mjcf). Returns the frame."""
        if site is not None and frame is not None:
            raise ValueError("attach: give a site or a frame, not both")
        if site is not None:
            frame = site_frame(site)
        if frame is not None and not isinstance(frame, MjsFrame):
            raise TypeError("frame must be an MjsFrame of this spec")
        body = frame._body if frame is not None else self._spec.worldbody
        attach_copy(self, child, None, prefix, suffix, body,
                    frame._el if frame is not None else None)
        return frame

    # ---- compiling -----------------------------------------------------------------------------
    def compile(self):
        """The compiled model of the spec as it is now (the spec stays editable)."""
        from ..compiler import compile_spec
        sp = self._spec
        work = _normalize(copy.deepcopy(sp))
        m = compile_spec(work)
        self._compiled = ([j for b in sp.bodies() for j in b.joints], list(sp.actuators),
                          [b for b in sp.bodies() if b.attrs.get("mocap")])
        return m

    def recompile(self, m, d):
        """Compile again and return (new model, new MjData holding ``d``'s state for what still
        exists: time, each joint's qpos and qvel, each actuator's ctrl and activation, each mocap
        body's pose), as the bindings' recompile (``m``, ``d``: the model of this spec's last
        compile and its data)."""
        from ..data import MjData
        if self._compiled is None:
            raise ValueError("recompile: the spec was never compiled")
        joints, acts, mocaps = self._compiled
        m2 = self.compile()
        joints2, acts2, mocaps2 = self._compiled
        d2 = MjData(m2)
        d2.time = d.time
        jidx = {id(e): i for i, e in enumerate(joints2)}
        for i, e in enumerate(joints):
            k = jidx.get(id(e))
            if k is None or m.jnt_type[i] != m2.jnt_type[k]:
                continue
            nq, nv = {0: (7, 6), 1: (4, 3)}.get(int(m.jnt_type[i]), (1, 1))
            qa, qb = int(m.jnt_qposadr[i]), int(m2.jnt_qposadr[k])
            va, vb = int(m.jnt_dofadr[i]), int(m2.jnt_dofadr[k])
            d2.qpos[qb:qb + nq] = d.qpos[qa:qa + nq]
            d2.qvel[vb:vb + nv] = d.qvel[va:va + nv]
        aidx = {id(e): i for i, e in enumerate(acts2)}
        for i, e in enumerate(acts):
            k = aidx.get(id(e))
            if k is None:
                continue
            d2.ctrl[k] = d.ctrl[i]
            n = int(m.actuator_actnum[i])
            if n and n == int(m2.actuator_actnum[k]):
                a, b = int(m.actuator_actadr[i]), int(m2.actuator_actadr[k])
                d2.act[b:b + n] = d.act[a:a + n]
        midx = {id(e): i for i, e in enumerate(mocaps2)}
        for i, e in enumerate(mocaps):
            k = midx.get(id(e))
            if k is not None:
                d2.mocap_pos[k] = d.mocap_pos[i]
                d2.mocap_quat[k] = d.mocap_quat[i]
        return m2, d2

    # ---- saving --------------------------------------------------------------------------------
    def to_xml(self):
        """MJCF text of the spec (engine.xml.writer): it compiles, in this engine and in
        mujoco 4.0.0, to the model compile() gives."""
        from ..xml.writer import spec_to_xml
        return spec_to_xml(_normalize(copy.deepcopy(self._spec)))

    def to_zip(self, file):
        """A zip archive (path or binary file object) of the model's MJCF and every asset file
        it reads (meshes, height fields, textures), the XML naming them by their place in the
        archive, so the archive loads anywhere (from_zip; mujoco's MjSpec.from_zip too)."""
        import os
        import zipfile

        from ..xml.mjcf import ASSET_FILES
        from ..xml.writer import spec_to_xml
        sp = _normalize(copy.deepcopy(self._spec))
        c = {k: v[2] for k, v in S.COMPILER.items()}
        c.update(sp.compiler)
        members = {}
        for section, sub in (("meshes", "meshdir"), ("hfields", "meshdir"),
                             ("textures", "texturedir")):
            base = os.path.join(sp.dir, c.get(sub) or c.get("assetdir") or "")
            for el in getattr(sp, section):
                for k in ASSET_FILES:
                    f = el.attrs.get(k)
                    if not isinstance(f, str) or not f:
                        continue
                    path = f if os.path.isabs(f) else os.path.join(base, f)
                    stem, ext = os.path.splitext(os.path.basename(f))
                    arc = stem + ext
                    n = 1
                    while arc in members and members[arc] != path:
                        arc = f"{stem}_{n}{ext}"
                        n += 1
                    members[arc] = path
                    if not el.attrs.get("name") and section != "textures":
                        el.attrs["name"] = stem       # the name the file gave it
                        el.given.add("name")
                    el.attrs[k] = arc
        name = (sp.modelname or "model") + ".xml"
        with zipfile.ZipFile(file, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr(name, spec_to_xml(sp, absolute_dirs=False))
            for arc, path in members.items():
                z.write(path, arc)

    @staticmethod
    def from_zip(file):
        """The MjSpec of a zip archive holding one MJCF file and the assets it names (as
        to_zip writes). The archive is unpacked into a temporary folder that lives as long
        as the process (the spec reads its assets from there when compiled)."""
        import os
        import tempfile
        import zipfile
        with zipfile.ZipFile(file) as z:
            xml = [n for n in z.namelist() if n.endswith(".xml")]
            if len(xml) != 1:
                raise ValueError(f"from_zip: expected one .xml file in the archive, got {xml}")
            folder = tempfile.mkdtemp(prefix="mjspec_zip_")
            z.extractall(folder)
        return MjSpec.from_file(os.path.join(folder, xml[0]))

    def to_file(self, filename):
        with open(filename, "w") as f:
            f.write(self.to_xml())

    def __repr__(self):
        return f"<engine.MjSpec '{self.modelname}'>"


def to_zip(spec, file):
    """mujoco.to_zip: ``spec.to_zip(file)``."""
    spec.to_zip(file)


def from_zip(file):
    """mujoco.from_zip: ``MjSpec.from_zip(file)``."""
    return MjSpec.from_zip(file)
