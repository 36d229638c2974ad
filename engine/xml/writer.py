"""Writing a Spec back as MJCF (mj_saveLastXML, MjSpec.to_xml; seed 004, "saving models").

The written file compiles, in this engine and in mujoco 4.0.0, into the model the Spec compiles
into. What it writes is the Spec as the readers left it (engine.spec): every element with the
attributes it or its default class gave (``given``), at their resolved values, so the file needs
no ``<default>`` section (a fixed tendon's width, rgba and material excepted: only a class can
give them); each element sits in the chain of ``<frame>`` elements that held it, each frame with
its own pose (a ``<replicate>`` copy's frame: its place and its Euler angles times its index);
``<attach>`` and ``<include>`` are already expanded in the Spec. Asset directories are written as
absolute paths so the file can be saved anywhere. Orientations stay in the form the model gave
them, with the ``<compiler angle eulerseq>`` that gives them their meaning.

Numbers are written with Python's shortest round-trip repr, so a value reads back bit-exact.
"""
from __future__ import annotations

import math
import os
from xml.sax.saxutils import quoteattr

import numpy as np

from . import schema as S

_TENDON_GEOMETRY = ("width", "rgba", "material")
_ACTIVE_NAME = {0: "false", 1: "true", 2: "auto"}
# tree element kinds of a body, in the order they are written
_BODY_LISTS = ("joints", "geoms", "sites", "cameras", "lights")
_SECTION_ORDER = ("compiler", "option", "size", "statistic", "visual", "asset", "worldbody",
                  "contact", "equality", "tendon", "actuator", "sensor", "keyframe", "custom")


def fmt(value, kind=None):
    """An attribute value as MJCF text."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, (int, np.integer)):
        if kind == S.B:
            return "true" if value else "false"
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if kind == S.I and v.is_integer():
            return str(int(v))
        return repr(v) if math.isfinite(v) else ("inf" if v > 0 else "-inf" if v < 0 else "nan")
    if value is None:
        return ""
    arr = np.asarray(value).ravel()
    return " ".join(fmt(x.item(), kind) for x in arr)


def _attr_items(el, table=None, skip=()):
    """(name, text) of the attributes ``el`` was given, in schema order, then the rest; an
    orientation set without being given (an attach converting the child's angles) too."""
    given = set(el.given) | {k for k in S.ORIENT if el.attrs.get(k) is not None}
    names = [k for k in (table or {}) if k in given] + sorted(
        k for k in given if table is None or k not in table)
    out = []
    for k in names:
        if k in skip or k in ("class", "childclass"):
            continue
        v = el.attrs.get(k)
        if v is None or (isinstance(v, tuple) and not v):
            continue
        if k == "springlength" and len(v) == 2 and v[1] == -1.0 and v[0] != -1.0:
            v = v[:1]       # one value given: mujoco rejects the pair (a, -1)
        kind = table[k][0] if table and k in table else None
        out.append((k, fmt(v, kind)))
    return out


class _Out:
    def __init__(self):
        self.lines = []

    def open(self, depth, tag, attrs, empty=False):
        text = "".join(f" {k}={quoteattr(v)}" for k, v in attrs)
        self.lines.append(f"{'  ' * depth}<{tag}{text}{'/' if empty else ''}>")

    def close(self, depth, tag):
        self.lines.append(f"{'  ' * depth}</{tag}>")


class Writer:
    """MJCF text of one Spec: ``Writer(spec).text()``."""

    def __init__(self, spec, model=None, absolute_dirs=True):
        self.spec = spec
        self.model = model
        self.absolute_dirs = absolute_dirs
        c = {k: v[2] for k, v in S.COMPILER.items()}
        if spec.source == "urdf":
            c.update(angle="radian", discardvisual=True, fusestatic=True)
        c.update(spec.compiler)
        self.c = c
        from ..compiler.frames import Orienter
        self.orienter = Orienter(c["angle"] == "degree", c["eulerseq"])
        self.o = _Out()

    # ---- entry ---------------------------------------------------------------------------------
    def text(self):
        sp = self.spec
        o = self.o
        o.open(0, "mujoco", [("model", sp.modelname)])
        self.compiler()
        self.option()
        self.simple("size", sp.size, S.SIZE)
        self.simple("statistic", sp.statistic, S.STATISTIC)
        self.visual()
        self.defaults()
        self.assets()
        self.worldbody()
        self.contact()
        self.listed("equality", sp.equalities, lambda el: S.EQUALITY[el.tag])
        self.tendons()
        self.actuators()
        self.listed("sensor", sp.sensors, lambda el: S.SENSOR[el.tag])
        self.keyframes()
        self.custom()
        o.close(0, "mujoco")
        return "\n".join(o.lines) + "\n"

    # ---- global sections -----------------------------------------------------------------------
    def compiler(self):
        sp, c = self.spec, dict(self.spec.compiler)
        if sp.source == "urdf":
            for k, v in (("angle", "radian"), ("discardvisual", True), ("fusestatic", True)):
                c.setdefault(k, v)
        # asset folders made absolute: the file may be saved anywhere (or none: the caller has
        # made every asset file name its own, MjSpec.to_zip)
        for sub in ("meshdir", "texturedir"):
            d = c.get(sub) or c.get("assetdir") or ""
            c[sub] = os.path.normpath(os.path.join(sp.dir, d)) if self.absolute_dirs else None
        c.pop("assetdir", None)
        attrs = [(k, fmt(v, S.COMPILER[k][0] if k in S.COMPILER else None))
                 for k, v in c.items() if v is not None]
        lr = [(k, fmt(v, S.LENGTHRANGE[k][0])) for k, v in sp.lengthrange.items()]
        self.o.open(1, "compiler", attrs, empty=not lr)
        if lr:
            self.o.open(2, "lengthrange", lr, empty=True)
            self.o.close(1, "compiler")

    def option(self):
        sp = self.spec
        attrs = [(k, fmt(v, S.OPTION[k][0] if k in S.OPTION else None))
                 for k, v in sp.option.items() if v is not None]
        flags = [(k, fmt(v)) for k, v in sp.flags.items()]
        if not attrs and not flags:
            return
        self.o.open(1, "option", attrs, empty=not flags)
        if flags:
            self.o.open(2, "flag", flags, empty=True)
            self.o.close(1, "option")

    def simple(self, tag, values, table):
        attrs = [(k, fmt(v, table[k][0] if k in table else None))
                 for k, v in values.items() if v is not None]
        if attrs:
            self.o.open(1, tag, attrs, empty=True)

    def visual(self):
        vis = self.spec.visual
        if not vis:
            return
        self.o.open(1, "visual", [])
        for tag, values in vis.items():
            table = S.VISUAL[tag]
            attrs = []
            for k, v in values.items():
                if (tag, k) == ("headlight", "active"):
                    attrs.append((k, _ACTIVE_NAME.get(int(v), str(int(v)))))
                else:
                    attrs.append((k, fmt(v, table[k][0] if k in table else None)))
            self.o.open(2, tag, attrs, empty=True)
        self.o.close(1, "visual")

    def defaults(self):
        """Default classes: only what an element cannot carry itself (a fixed tendon's
        geometry: _TENDON_GEOMETRY), one class per distinct set of values."""
        self.fixed_classes = {}
        for el in self.spec.tendons:
            if el.tag == "fixed":
                geo = tuple((k, v) for k, v in _attr_items(el, S.TENDON)
                            if k in _TENDON_GEOMETRY)
                if geo and geo not in self.fixed_classes:
                    self.fixed_classes[geo] = f"__fixed_tendon_{len(self.fixed_classes)}"
        if not self.fixed_classes:
            return
        self.o.open(1, "default", [])
        for geo, name in self.fixed_classes.items():
            self.o.open(2, "default", [("class", name)])
            self.o.open(3, "tendon", list(geo), empty=True)
            self.o.close(2, "default")
        self.o.close(1, "default")

    # ---- assets --------------------------------------------------------------------------------
    def assets(self):
        sp = self.spec
        items = ([("texture", el, S.TEXTURE) for el in sp.textures]
                 + [("material", el, S.MATERIAL) for el in sp.materials]
                 + [("mesh", el, S.MESH) for el in sp.meshes]
                 + [("hfield", el, S.HFIELD) for el in sp.hfields])
        if not items:
            return
        self.o.open(1, "asset", [])
        for tag, el, table in items:
            layers = getattr(el, "layers", None) or []
            self.o.open(2, tag, _attr_items(el, table), empty=not layers)
            for lay in layers:
                self.o.open(3, "layer", _attr_items(lay, S.LAYER), empty=True)
            if layers:
                self.o.close(2, tag)
        self.o.close(1, "asset")

    # ---- the tree ------------------------------------------------------------------------------
    def worldbody(self):
        wb = self.spec.worldbody
        self.o.open(1, "worldbody", [])
        self.body_contents(wb, 2)
        self.o.close(1, "worldbody")

    def _framed(self, el, depth):
        """Open the frames holding ``el``, outermost first, each with its own pose as the model
        gave it (mujoco then composes them with its own arithmetic); a <replicate> copy's frame
        is its step applied ``index`` times. Returns the element's depth and the frames opened."""
        chain = []
        f = el.frame
        while f is not None:
            chain.append(f)
            f = f.frame
        d = depth
        n = 0
        for f in reversed(chain):
            if f.tag == "replicate":
                # copy k of a replicate: at its place, turned by the Euler angles times k
                # (written as angles: mujoco turns them into the quaternion its replicate does)
                from ..compiler.frames import frame_pose
                saved, f.frame = f.frame, None
                try:
                    p, _ = frame_pose(f, self.orienter)
                finally:
                    f.frame = saved
                offset, euler = f.attrs["replicate"]
                k = int(f.attrs["index"])
                attrs = [("pos", fmt(p))]
                if euler is not None:
                    attrs.append(("euler", fmt([a * k for a in euler])))
                frames = [attrs]
            else:
                frames = [_attr_items(f, S.FRAME, skip=("name",))]
            for attrs in frames:
                self.o.open(d, "frame", attrs)
                d += 1
                n += 1
        return d, n

    def _close_frames(self, depth, n):
        for k in reversed(range(n)):
            self.o.close(depth + k, "frame")

    def body_contents(self, b, depth):
        if b.inertial is not None:
            d, nf = self._framed(b.inertial, depth)
            self.o.open(d, "inertial", _attr_items(b.inertial, S.INERTIAL), empty=True)
            self._close_frames(depth, nf)
        tables = {"joint": S.JOINT, "freejoint": S.FREEJOINT, "geom": S.GEOM, "site": S.SITE,
                  "camera": S.CAMERA, "light": S.LIGHT}
        for lst in _BODY_LISTS:
            for el in getattr(b, lst):
                d, nf = self._framed(el, depth)
                self.o.open(d, el.kind, _attr_items(el, tables[el.kind]), empty=True)
                self._close_frames(depth, nf)
        for child in b.bodies:
            d, nf = self._framed(child, depth)
            self.o.open(d, "body", _attr_items(child, S.BODY))
            self.body_contents(child, d + 1)
            self.o.close(d, "body")
            self._close_frames(depth, nf)

    # ---- non-tree sections ---------------------------------------------------------------------
    def contact(self):
        sp = self.spec
        if not sp.pairs and not sp.excludes:
            return
        self.o.open(1, "contact", [])
        for el in sp.pairs:
            self.o.open(2, "pair", _attr_items(el, S.PAIR), empty=True)
        for el in sp.excludes:
            self.o.open(2, "exclude", _attr_items(el), empty=True)
        self.o.close(1, "contact")

    def listed(self, section, elements, table_of):
        if not elements:
            return
        self.o.open(1, section, [])
        for el in elements:
            self.o.open(2, el.tag, _attr_items(el, table_of(el)), empty=True)
        self.o.close(1, section)

    def tendons(self):
        sp = self.spec
        if not sp.tendons:
            return
        self.o.open(1, "tendon", [])
        for el in sp.tendons:
            # a fixed tendon has no geometry: mujoco rejects width / rgba / material on it
            # but keeps what a default class gives (tendon_width ...): written as a class
            attrs = _attr_items(el, S.TENDON)
            if el.tag == "fixed":
                geo = [(k, v) for k, v in attrs if k in _TENDON_GEOMETRY]
                attrs = [(k, v) for k, v in attrs if k not in _TENDON_GEOMETRY]
                if geo:
                    attrs.append(("class", self.fixed_classes[tuple(geo)]))
            self.o.open(2, el.tag, attrs, empty=not el.path)
            for p in el.path:
                self.o.open(3, p.tag, _attr_items(p), empty=True)
            if el.path:
                self.o.close(2, el.tag)
        self.o.close(1, "tendon")

    def actuators(self):
        """Each actuator as the element it was written with: a shortcut (position, muscle ...)
        with its parameters read back from the gain, bias and dynamics it stands for (mujoco
        records which shortcut an actuator came from: actuator_ctrlspec)."""
        sp = self.spec
        if not sp.actuators:
            return
        self.o.open(1, "actuator", [])
        for el in sp.actuators:
            tag = el.tag if el.tag in S.ACTUATOR else "general"
            self.o.open(2, tag, actuator_attrs(el, tag), empty=True)
        self.o.close(1, "actuator")

    def keyframes(self):
        """Keyframes; one an attach made (values for the attached joints and actuators only,
        ``partial``) is written whole, from the compiled model's key_* rows (``model``, or the
        spec compiled here)."""
        sp = self.spec
        if not sp.keys:
            return
        m = None
        if any(getattr(k, "partial", None) for k in sp.keys):
            m = self.model
            if m is None:
                import copy
                from ..compiler import compile_spec
                m = compile_spec(copy.deepcopy(sp))
        self.o.open(1, "keyframe", [])
        for i, el in enumerate(sp.keys):
            attrs = _attr_items(el, S.KEY)
            if getattr(el, "partial", None):
                attrs = [(k, v) for k, v in attrs if k in ("name", "time")]
                for f, n in (("qpos", "nq"), ("qvel", "nv"), ("act", "na"), ("ctrl", "nu"),
                             ("mpos", "nmocap"), ("mquat", "nmocap")):
                    if getattr(m, n):
                        attrs.append((f, fmt(getattr(m, "key_" + f)[i])))
            self.o.open(2, "key", attrs, empty=True)
        self.o.close(1, "keyframe")

    def custom(self):
        sp = self.spec
        if not (sp.numerics or sp.texts or sp.tuples):
            return
        self.o.open(1, "custom", [])
        for el in sp.numerics:
            self.o.open(2, "numeric", _attr_items(el, S.CUSTOM["numeric"]), empty=True)
        for el in sp.texts:
            self.o.open(2, "text", _attr_items(el, S.CUSTOM["text"]), empty=True)
        for el in sp.tuples:
            self.o.open(2, "tuple", _attr_items(el, S.CUSTOM["tuple"]), empty=not el.elements)
            for e in el.elements:
                self.o.open(3, "element", _attr_items(e, S.TUPLE_ELEMENT), empty=True)
            if el.elements:
                self.o.close(2, "tuple")
        self.o.close(1, "custom")


_PRM = ("dyntype", "gaintype", "biastype", "dynprm", "gainprm", "biasprm")
_SHORTCUT_PRM = {"position": ("kp", "kv", "dampratio", "timeconst", "inheritrange"),
                 "intvelocity": ("kp", "kv", "dampratio", "inheritrange"),
                 "velocity": ("kv",), "damper": ("kv",), "motor": (),
                 "cylinder": ("timeconst", "area", "diameter", "bias"),
                 "muscle": ("timeconst", "tausmooth", "range", "force", "scale", "lmin", "lmax",
                            "vmax", "fpmax", "fvmax"),
                 "adhesion": ("gain",)}


def actuator_attrs(el, tag):
    """The attributes of actuator ``el`` written as element ``tag``: the common ones it was
    given, then (for a shortcut) the shortcut's parameters from gainprm / biasprm / dynprm, as
    engine.xml.mjcf.apply_actuator_shortcut maps them."""
    table = S.ACTUATOR[tag]
    if tag == "general":
        attrs = _attr_items(el, table, skip=set(el.given) - set(table))
        have = {k for k, _ in attrs}
        for k in _PRM:      # what a shortcut element fixed, the general element must say
            if k not in have:
                attrs.append((k, fmt(el.attrs[k], table[k][0])))
        return attrs
    own = _SHORTCUT_PRM[tag]
    # a damper's control limits are implied by the element (mujoco rejects the attribute)
    implied = {"ctrllimited"} if tag == "damper" else set()
    attrs = [(k, v) for k, v in _attr_items(el, table, skip=set(el.given) - set(table))
             if k not in own and k not in _PRM and k not in implied]
    a = el.attrs
    g, b, dn = a["gainprm"], a["biasprm"], a["dynprm"]
    if tag in ("position", "intvelocity"):
        attrs.append(("kp", fmt(g[0])))
        attrs.append(("dampratio", fmt(b[2])) if b[2] > 0 else ("kv", fmt(-b[2])))
        if tag == "position" and a.get("dyntype") == "filterexact":
            attrs.append(("timeconst", fmt(dn[0])))
        if a.get("inheritrange"):
            attrs.append(("inheritrange", fmt(a["inheritrange"])))
    elif tag == "velocity":
        attrs.append(("kv", fmt(g[0])))
    elif tag == "damper":
        attrs.append(("kv", fmt(-g[2])))
    elif tag == "cylinder":
        attrs += [("timeconst", fmt(dn[0])), ("area", fmt(g[0])), ("bias", fmt(b[:3]))]
    elif tag == "muscle":
        attrs += [("timeconst", fmt(dn[:2])), ("tausmooth", fmt(dn[2])), ("range", fmt(g[:2]))]
        attrs += [(k, fmt(g[i])) for i, k in enumerate(
            ("force", "scale", "lmin", "lmax", "vmax", "fpmax", "fvmax"), start=2)]
    elif tag == "adhesion":
        attrs.append(("gain", fmt(g[0])))
    return attrs


def spec_to_xml(spec, model=None, absolute_dirs=True):
    """MJCF text of ``spec`` (see the module docstring); ``model``: its compiled model, if at
    hand (keyframes made by an attach are read from it); ``absolute_dirs`` False: no asset
    folders written (the file names are complete)."""
    if getattr(spec, "flexes", None) or getattr(spec, "skins", None):
        # the flexcomp's generated bodies would be written without their flex
        raise NotImplementedError("saving flexes and skins (<deformable>, <flexcomp>) to XML "
                                  "is not supported yet")
    return Writer(spec, model, absolute_dirs).text()
