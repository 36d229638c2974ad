"""MJCF reader: XML file -> `engine.spec.Spec` (seed 000, the XML reference).

Like MuJoCo's own reader, this only fills the spec: defaults are prototypes (a default class holds
one element of each kind; an element starts as a copy of its class's prototype, then its own
attributes apply), ``<include>`` is expanded before parsing, ``<frame>`` and ``<replicate>`` become
transforms of their children, and everything derived (sizes, inertias, ids) is the compiler's job.
Every attribute is checked against `engine.xml.schema`; any problem is one `XMLError` naming file,
line, element and attribute.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

from lxml import etree

from ..errors import XMLError
from ..spec import Body, DefaultClass, Element, Frame, Spec
from ..visual import HEADLIGHT_ACTIVE
from . import schema as S


# ---- a small DOM with file and line on every node -------------------------------------------------
@dataclass
class Node:
    tag: str
    attrib: dict
    file: str | None
    line: int | None
    children: list = field(default_factory=list)

    def copy(self):
        return Node(self.tag, dict(self.attrib), self.file, self.line,
                    [c.copy() for c in self.children])


# MuJoCo's XML reader (tinyxml2) refuses elements nested deeper than this (its
# XML_ELEMENT_DEPTH_EXCEEDED, measured on mujoco 4.0.0: a root at depth 1, 499 accepted, 500 not);
# libxml2 stops at 256 unless asked for its "huge" mode, so the limit is checked here instead.
MAX_XML_DEPTH = 499


def _parse_xml_text(text, file):
    try:
        parser = etree.XMLParser(remove_comments=True, remove_pis=True, resolve_entities=False,
                                 huge_tree=True)
        root = etree.fromstring(text.encode() if isinstance(text, str) else text, parser)
    except etree.XMLSyntaxError as e:
        raise XMLError(f"malformed XML: {e.msg}", file=file, line=e.lineno) from None
    stack = [(root, 1)]
    while stack:
        el, depth = stack.pop()
        if depth > MAX_XML_DEPTH:
            raise XMLError(f"malformed XML: element nesting is too deep (more than "
                           f"{MAX_XML_DEPTH} levels)", file=file, line=el.sourceline)
        stack.extend((c, depth + 1) for c in el if isinstance(c.tag, str))
    return _convert(root, file)


def _convert(el, file):
    node = Node(el.tag, dict(el.attrib), file, el.sourceline)
    for c in el:
        if isinstance(c.tag, str):
            node.children.append(_convert(c, file))
    return node


def load_xml(path=None, text=None, assets=None):
    """Parse a file (or a string) into a Node tree with every <include> expanded. Files come
    through `engine.plugin.resource.read_resource`: the assets dict, a resource provider, or the
    file system (seed 002)."""
    from ..plugin.resource import ResourceError, read_resource, resource_dir
    if text is None:
        try:
            text, path = read_resource(path, "", assets)
        except ResourceError as e:
            raise XMLError(f"cannot read model file: {e}", file=path) from None
    root = _parse_xml_text(text, path)
    base = resource_dir(path) if path else os.getcwd()
    seen = set([path if path and ":" in path and not os.path.isabs(path)
                else os.path.abspath(path)] if path else [])
    _expand_includes(root, base, assets or {}, seen)
    return root


def _expand_includes(node, base, assets, seen):
    from ..plugin.resource import ResourceError, find_provider, read_resource
    out = []
    for c in node.children:
        if c.tag != "include":
            _expand_includes(c, base, assets, seen)
            out.append(c)
            continue
        fname = c.attrib.get("file")
        if not fname:
            raise XMLError("<include> needs a 'file' attribute", c.file, c.line, "include", "file")
        try:
            text, full = read_resource(fname, base, assets)
        except ResourceError as e:
            raise XMLError(f"included file '{fname}' not found: {e}", c.file, c.line, "include",
                           "file") from None
        key = full if find_provider(full) else os.path.abspath(full)
        if key in seen:
            raise XMLError(f"file '{fname}' is included more than once", c.file, c.line,
                           "include", "file")
        seen.add(key)
        sub = _parse_xml_text(text, full)
        # The included file's top element is dropped; its children take the include's place.
        _expand_includes(sub, base, assets, seen)
        if not sub.children:
            raise XMLError(f"included file '{fname}' has no elements to insert", c.file, c.line,
                           "include", "file")
        out.extend(sub.children)
    node.children = out


# ---- attribute values -----------------------------------------------------------------------------
_INT_MIN, _INT_MAX = -2 ** 31, 2 ** 31 - 1
# the attributes mujoco 4.0.0 reads as required single values: empty is "problem reading
# attribute" there (measured), not absent as for the others
_EMPTY_IS_ERROR = {("size", "memory"), ("size", "njmax"), ("size", "nconmax"),
                   ("size", "nstack"), ("contact", "num"), ("user", "dim")}


def parse_value(node, attr, spec, raw):
    """Convert the string ``raw`` of ``attr`` per its schema ``spec`` = (kind, count, default)."""
    kind, count, _ = spec

    def err(msg):
        return XMLError(msg, node.file, node.line, node.tag, attr)

    if kind == S.S:
        return raw
    if kind == S.B:
        if raw not in ("true", "false"):
            raise err(f"expected 'true' or 'false', got '{raw}'")
        return raw == "true"
    if kind == S.T:
        if raw not in ("true", "false", "auto"):
            raise err(f"expected 'true', 'false' or 'auto', got '{raw}'")
        return raw
    if isinstance(kind, tuple):
        if raw not in kind:
            raise err(f"expected one of {', '.join(kind)}; got '{raw}'")
        return raw
    words = raw.split()
    vals = []
    for w in words:
        try:
            if kind == S.I:
                v = int(w)
            else:
                v = float(w)
        except ValueError:
            what = "an integer" if kind == S.I else "a number"
            raise err(f"expected {what}, got '{w}'") from None
        # mujoco reads int attributes as 32-bit ints and doubles with strtod: out of range is
        # "number is too large" (a count of 2^32 copies must not start a loop)
        if (kind == S.I and not _INT_MIN <= v <= _INT_MAX) or (
                kind != S.I and math.isinf(v) and "inf" not in w.lower()):
            raise err(f"number is too large: '{w}'")
        vals.append(v)
    if count is None:
        if len(vals) != 1:
            raise err(f"expected 1 value, got {len(vals)}")
        return vals[0]
    if count == S.ANY:
        return tuple(vals)
    if isinstance(count, tuple):
        lo, hi = count
        if not lo <= len(vals) <= hi:
            raise err(f"expected {lo} to {hi} values, got {len(vals)}")
        return tuple(vals)
    if len(vals) != count:
        raise err(f"expected {count} values, got {len(vals)}")
    return tuple(vals)


def parse_attrs(node, table, skip=()):
    """Explicit attributes of ``node`` parsed per ``table``; unknown attributes are errors."""
    out = {}
    for attr, raw in node.attrib.items():
        if attr in skip:
            continue
        spec = table.get(attr)
        if spec is None:
            raise XMLError(f"unrecognized attribute '{attr}'", node.file, node.line, node.tag, attr)
        if spec[0] in (S.R, S.I) and not raw.split():
            if (node.tag, attr) in _EMPTY_IS_ERROR:
                raise XMLError(f"problem reading attribute '{attr}'", node.file, node.line,
                               node.tag, attr)
            continue  # an empty number list is an absent attribute, as in mujoco 4.0.0's reader
        out[attr] = parse_value(node, attr, spec, raw)
    return out


def schema_defaults(table):
    return {k: v[2] for k, v in table.items()}


def _merge_vector(default, value):
    """A shorter vector fills the front of the default (MuJoCo's rule for size, friction, solref...)."""
    if isinstance(default, tuple) and isinstance(value, tuple) and len(value) < len(default):
        return value + default[len(value):]
    return value


def _check_children(node, allowed):
    for c in node.children:
        if c.tag not in allowed:
            if c.tag in S.UNSUPPORTED:
                raise NotImplementedError(
                    f"{c.file or '<string>'}:{c.line}: MJCF element <{c.tag}> "
                    f"({S.UNSUPPORTED[c.tag]}) is not supported yet")
            raise XMLError(f"unrecognized element <{c.tag}> inside <{node.tag}>",
                           c.file, c.line, c.tag)


# ---- actuator shortcuts (seed 000, actuator/*) ---------------------------------------------------
_GENERAL = S.ACTUATOR["general"]


def apply_actuator_shortcut(node, tag, proto, explicit):
    """The general-actuator attributes that element ``tag`` with ``explicit`` attributes means.

    ``proto`` is the class's general actuator (schema defaults merged with the class). Shortcut
    parameters a file leaves out are read back from the prototype, so a default class's
    ``<position kp="..."/>`` is what a later ``<position>`` of that class uses.
    """
    a = dict(proto)
    common = {k: v for k, v in explicit.items() if k in _GENERAL}
    for k, v in common.items():
        a[k] = _merge_vector(a.get(k), v)
    if tag == "general":
        return a
    g = list(a["gainprm"])
    b = list(a["biasprm"])
    dn = list(a["dynprm"])

    def err(msg, attr=None):
        return XMLError(msg, node.file, node.line, tag, attr)

    if tag == "motor":
        a.update(gaintype="fixed", biastype="none", dyntype="none")
        g = [1.0] + [0.0] * 9
        b = [0.0] * 10
    elif tag in ("position", "intvelocity"):
        kp = explicit.get("kp", g[0] if a["gaintype"] == "fixed" else 1.0)
        if "kv" in explicit and "dampratio" in explicit:
            raise err("kv and dampratio cannot both be set", "dampratio")
        # a negative kp compiles in mujoco 4.0.0 (measured); kv and dampratio may not be
        kv = explicit.get("kv")
        dampratio = explicit.get("dampratio")
        if dampratio is not None and dampratio < 0:
            raise err("dampratio cannot be negative", "dampratio")
        if kv is None and dampratio is None:
            prev = b[2]
            kv, dampratio = (-prev, 0.0) if prev <= 0 else (0.0, prev)
        kv = kv or 0.0
        if kv < 0:
            raise err("kv must be nonnegative", "kv")
        g = [kp] + [0.0] * 9
        b = [0.0, -kp, dampratio if dampratio else -kv] + [0.0] * 7
        a.update(gaintype="fixed", biastype="affine")
        if tag == "position":
            tc = explicit.get("timeconst", dn[0] if a["dyntype"] == "filterexact" else 0.0)
            if tc < 0:
                raise err("timeconst must be nonnegative", "timeconst")
            if tc > 0:
                a.update(dyntype="filterexact")
                dn = [tc] + [0.0] * 9
            else:
                a.update(dyntype="none")
                dn = [1.0] + [0.0] * 9
        else:
            # actlimited stays as written (auto: limited when actrange is increasing), as
            # mujoco 4.0.0 compiles <intvelocity> (measured: no actrange -> actlimited 0)
            a.update(dyntype="integrator")
            dn = [1.0] + [0.0] * 9
        if "inheritrange" in explicit:
            a["inheritrange"] = explicit["inheritrange"]
    elif tag == "velocity":
        kv = explicit.get("kv", g[0] if a["gaintype"] == "fixed" else 1.0)
        g = [kv] + [0.0] * 9
        b = [0.0, 0.0, -kv] + [0.0] * 7
        a.update(gaintype="fixed", biastype="affine", dyntype="none")
    elif tag == "damper":
        kv = explicit.get("kv", -g[2] if a["gaintype"] == "affine" else 1.0)
        if kv < 0:
            raise err("damping coefficient cannot be negative", "kv")
        g = [0.0, 0.0, -kv] + [0.0] * 7
        b = [0.0] * 10
        a.update(gaintype="affine", biastype="none", dyntype="none", ctrllimited="true")
    elif tag == "cylinder":
        tc = explicit.get("timeconst", dn[0] if a["dyntype"] == "filter" else 1.0)
        area = explicit.get("area", g[0] if a["gaintype"] == "fixed" else 1.0)
        if "diameter" in explicit:
            area = math.pi / 4 * explicit["diameter"] ** 2
        bias = explicit.get("bias", tuple(b[:3]))
        dn = [tc] + [0.0] * 9
        g = [area] + [0.0] * 9
        b = list(bias) + [0.0] * 7
        a.update(gaintype="fixed", biastype="affine", dyntype="filter")
    elif tag == "muscle":
        if a["gaintype"] == "muscle":
            prm = {"range": (g[0], g[1]), "force": g[2], "scale": g[3], "lmin": g[4],
                   "lmax": g[5], "vmax": g[6], "fpmax": g[7], "fvmax": g[8]}
            tcs = {"timeconst": (dn[0], dn[1]), "tausmooth": dn[2]}
        else:
            prm = {k: S.ACTUATOR["muscle"][k][2] for k in
                   ("range", "force", "scale", "lmin", "lmax", "vmax", "fpmax", "fvmax")}
            tcs = {"timeconst": (0.01, 0.04), "tausmooth": 0.0}
        prm.update({k: v for k, v in explicit.items() if k in prm})
        tcs.update({k: v for k, v in explicit.items() if k in tcs})
        if tcs["tausmooth"] < 0:
            raise err("muscle tausmooth cannot be negative", "tausmooth")
        vec = [prm["range"][0], prm["range"][1], prm["force"], prm["scale"], prm["lmin"],
               prm["lmax"], prm["vmax"], prm["fpmax"], prm["fvmax"], 0.0]
        g, b = list(vec), list(vec)
        dn = [tcs["timeconst"][0], tcs["timeconst"][1], tcs["tausmooth"]] + [0.0] * 7
        a.update(gaintype="muscle", biastype="muscle", dyntype="muscle")
    elif tag == "adhesion":
        gain = explicit.get("gain", g[0] if a["gaintype"] == "fixed" else 1.0)
        if gain < 0:
            raise err("adhesion gain cannot be negative", "gain")
        g = [gain] + [0.0] * 9
        b = [0.0] * 10
        a.update(gaintype="fixed", biastype="none", dyntype="none", ctrllimited="true")
    elif tag == "plugin":
        # seed 002: the plugin computes the force; the gain/bias stay at their plain values and
        # the dynamics (dyntype, dynprm) filter the control before it (its act after the
        # plugin's own state)
        g = [1.0] + [0.0] * 9
        b = [0.0] * 10
        a.update(gaintype="fixed", biastype="none", dyntype=explicit.get("dyntype", "none"))
    else:
        raise err(f"unknown actuator type <{tag}>")
    a["gainprm"], a["biasprm"], a["dynprm"] = tuple(g), tuple(b), tuple(dn)
    return a


# ---- the reader -------------------------------------------------------------------------------------
TREE_TAGS = {"body", "joint", "freejoint", "geom", "site", "camera", "light", "inertial", "frame",
             "replicate", "composite", "flexcomp", "plugin", "attach"}
WORLD_KINDS = {"geom", "site", "camera", "light", "body", "frame", "replicate", "composite",
               "flexcomp", "plugin", "attach"}
BODY_KINDS = {"joint": S.JOINT, "geom": S.GEOM, "site": S.SITE, "camera": S.CAMERA,
              "light": S.LIGHT}


# Spec sections an <attach> copies elements into, in the order they are appended.
ATTACHED_SECTIONS = ("tendons", "equalities", "actuators", "sensors", "excludes", "pairs", "keys")
# Attributes that name tree or non-tree elements (renamed prefix + name + suffix by an attach)
# and attributes that name assets (renamed prefix + name).
ELEMENT_REFS = ("site", "joint", "tendon", "actuator", "objname", "refname", "body", "geom1",
                "geom2", "body1", "body2", "jointinparent", "refsite", "cranksite", "slidersite",
                "site1", "site2", "joint1", "joint2", "tendon1", "tendon2", "geom", "sidesite",
                "target")
ASSET_REFS = ("material", "mesh", "hfield", "texture")
_BODY_REFS = ("body", "body1", "body2", "target")


def _names(node):
    """Every element name in the raw subtree ``node`` (its own included)."""
    out = {node.attrib["name"]} if node.attrib.get("name") else set()
    for c in node.children:
        out |= _names(c)
    return out


def _names_world_body(el, key, value):
    """Whether attribute ``key`` = ``value`` of ``el`` names the world body (never renamed by
    an attach); a site, joint, ... called "world" is an ordinary name."""
    if value != "world":
        return False
    if key in _BODY_REFS:
        return True
    typ = {"objname": "objtype", "refname": "reftype"}.get(key)
    return typ is not None and el.attrs.get(typ) in ("body", "xbody")
ASSET_FILES = ("file", "fileright", "fileleft", "fileup", "filedown", "filefront", "fileback")


class MJCFReader:
    """Fills a Spec from an MJCF Node tree."""

    def __init__(self, root: Node, file=None, spec=None):
        self.root = root
        self.file = file
        if spec is None:
            from ..plugin.resource import resource_dir
            spec = Spec(file=file, dir=resource_dir(file) if file else os.getcwd())
        self.spec = spec

    # -- entry ---------------------------------------------------------------------------------------
    def read(self) -> Spec:
        root = self.root
        if root.tag != "mujoco":
            raise XMLError(f"the top element must be <mujoco>, got <{root.tag}>", root.file,
                           root.line, root.tag)
        for attr in root.attrib:
            if attr != "model":
                raise XMLError(f"unrecognized attribute '{attr}'", root.file, root.line,
                               "mujoco", attr)
        self.spec.modelname = root.attrib.get("model", "MuJoCo Model")
        if self.spec.worldbody is None:
            self.spec.worldbody = Body(attrs={"name": "world"}, file=root.file, line=root.line)
        if "main" not in self.spec.defaults:
            self.spec.defaults["main"] = DefaultClass("main", None)
        sections = {
            "compiler": self.compiler, "option": self.option, "size": self.size,
            "statistic": self.statistic, "visual": self.visual, "default": None,
            "asset": self.asset, "worldbody": self.worldbody, "contact": self.contact,
            "equality": self.equality, "tendon": self.tendon, "actuator": self.actuator,
            "sensor": self.sensor, "keyframe": self.keyframe, "custom": self.custom,
            "extension": self.extension, "deformable": self.deformable,
        }
        _check_children(root, sections)
        # Defaults first: later sections' elements copy their class prototypes.
        for c in root.children:
            if c.tag == "default":
                self.default(c, self.spec.defaults["main"], top=True)
        self._origin = {}
        self._rep_of = {}     # replicated name -> its outermost <replicate>, in finishing order
        self._vanished = {}   # name inside a <replicate count <= 0> (no element has it) -> rep
        self._attached = {k: [] for k in ATTACHED_SECTIONS}
        self._attached_assets = set()
        self._self_attached = []   # <attach frame> of this model: its non-tree copies, deferred
        self._flexcomp_equalities = []   # MuJoCo adds them after the file's own (measured)
        for c in root.children:
            if c.tag != "default":
                sections[c.tag](c)
        self._replicate_references()
        for copy_nontree in self._self_attached:
            copy_nontree()
        # elements copied in by <attach> follow the model's own, in attachment order
        for k in ATTACHED_SECTIONS:
            getattr(self.spec, k).extend(self._attached[k])
        self.spec.equalities.extend(self._flexcomp_equalities)
        return self.spec

    # -- simple sections -----------------------------------------------------------------------------
    def compiler(self, node):
        _check_children(node, {"lengthrange", "plugin"})
        self.spec.compiler.update(parse_attrs(node, S.COMPILER))
        for c in node.children:
            if c.tag == "lengthrange":
                self.spec.lengthrange.update(parse_attrs(c, S.LENGTHRANGE))
            else:
                _check_children(Node("compiler", {}, c.file, c.line, [c]), {"lengthrange"})

    def option(self, node):
        _check_children(node, {"flag"})
        self.spec.option.update(parse_attrs(node, S.OPTION))
        for c in node.children:
            self.spec.flags.update(parse_attrs(c, S.FLAG))

    def size(self, node):
        _check_children(node, set())
        self.spec.size.update(parse_attrs(node, S.SIZE))

    def statistic(self, node):
        _check_children(node, set())
        vals = parse_attrs(node, S.STATISTIC)
        if vals.get("extent", 1.0) <= 0:
            raise XMLError("extent must be strictly positive", node.file, node.line,
                           node.tag, "extent")
        self.spec.statistic.update(vals)

    def visual(self, node):
        """<visual>: each child sets attributes of one group of mjVisual (engine.visual); a file
        may hold several <visual> elements (later values win), each child at most once in one."""
        _check_children(node, S.VISUAL)
        seen = set()
        for c in node.children:
            if c.tag in seen:
                raise XMLError(f"element <{c.tag}> may appear only once in <visual>", c.file,
                               c.line, c.tag)
            seen.add(c.tag)
            vals = parse_attrs(c, S.VISUAL[c.tag])
            for attr, v in vals.items():
                if isinstance(v, bool):
                    vals[attr] = int(v)
                elif (c.tag, attr) == ("headlight", "active"):
                    vals[attr] = HEADLIGHT_ACTIVE[v]
            # the renderer divides by these (projection near plane, real-time pacing)
            for attr in ("znear", "realtime"):
                if attr in vals and vals[attr] <= 0:
                    raise XMLError(f"{attr} must be strictly positive", c.file, c.line, c.tag,
                                   attr)
            self.spec.visual.setdefault(c.tag, {}).update(vals)

    # -- defaults -------------------------------------------------------------------------------------
    def default(self, node, cls, top=False):
        if top:
            for attr in node.attrib:
                if attr != "class":
                    raise XMLError(f"unrecognized attribute '{attr}'", node.file, node.line,
                                   "default", attr)
            name = node.attrib.get("class", "main")
            if name != "main":
                # A named top-level default: a child of main.
                cls = self._new_class(node, name, self.spec.defaults["main"])
        seen = set()
        for c in node.children:
            if c.tag != "default":
                # one element of each kind per class (mujoco's schema: "unique element")
                if c.tag in seen:
                    raise XMLError(f"Schema violation: unique element '{c.tag}' found 2 times",
                                   c.file, c.line, c.tag)
                seen.add(c.tag)
            if c.tag == "default":
                for attr in c.attrib:
                    if attr != "class":
                        raise XMLError(f"unrecognized attribute '{attr}'", c.file, c.line,
                                       "default", attr)
                name = c.attrib.get("class")
                if not name:
                    raise XMLError("a nested <default> needs a 'class' attribute", c.file,
                                   c.line, "default", "class")
                self.default(c, self._new_class(c, name, cls))
                continue
            if c.tag not in S.DEFAULT_KINDS:
                raise XMLError(f"unrecognized element <{c.tag}> inside <default>", c.file,
                               c.line, c.tag)
            if c.children:
                raise XMLError(f"<{c.tag}> in <default> cannot have child elements",
                               c.file, c.line, c.tag)
            table = S.DEFAULT_KINDS[c.tag]
            skip = ("class", "name") if c.tag in ("joint", "geom", "site", "camera", "light",
                                                  "pair", "tendon", "material") else ()
            for bad in ("name", "class"):
                if bad in c.attrib and c.tag not in ("mesh",):
                    raise XMLError(f"'{bad}' is not allowed in a default element", c.file,
                                   c.line, c.tag, bad)
            explicit = parse_attrs(c, table, skip=skip)
            if c.tag in S.ACTUATOR:
                proto = {**schema_defaults(_GENERAL), **cls.values.get("general", {})}
                new = apply_actuator_shortcut(c, c.tag, proto, explicit)
                changed = {k for k in new if new[k] != proto.get(k)} | set(
                    k for k in explicit if k in _GENERAL)
                if c.tag == "position" and "inheritrange" in explicit:
                    changed.add("inheritrange")
                cls.values["general"] = {**cls.values.get("general", {}),
                                         **{k: new[k] for k in changed}}
                cls.given.setdefault("general", set()).update(changed)
            else:
                vals = cls.values.setdefault(c.tag, {})
                for k, v in explicit.items():
                    vals[k] = _merge_vector(vals.get(k, table[k][2]), v)
                cls.given.setdefault(c.tag, set()).update(explicit)

    def _new_class(self, node, name, parent):
        if name in self.spec.defaults:
            raise XMLError(f"repeated default class name '{name}'", node.file, node.line,
                           "default", "class")
        cls = DefaultClass(name, parent,
                           values={k: dict(v) for k, v in parent.values.items()},
                           given={k: set(v) for k, v in parent.given.items()},
                           file=node.file, line=node.line)
        self.spec.defaults[name] = cls
        return cls

    def _class(self, node, active):
        name = node.attrib.get("class")
        if name is None:
            return active
        cls = self.spec.defaults.get(name)
        if cls is None:
            raise XMLError(f"unknown default class '{name}'", node.file, node.line, node.tag,
                           "class")
        return cls

    def make(self, node, kind, table, cls, element_type=Element, skip=()):
        """An element of ``kind`` from ``node``: schema defaults <- class prototype <- node."""
        explicit = parse_attrs(node, table, skip=skip)
        attrs = schema_defaults(table)
        given = set()
        if cls is not None:
            attrs.update({k: v for k, v in cls.values.get(kind, {}).items() if k in table})
            given |= cls.given.get(kind, set()) & set(table)
        for k, v in explicit.items():
            # a short vector fills the front of the value it overrides (class or schema default)
            attrs[k] = _merge_vector(attrs.get(k), v)
        given |= set(explicit)
        _check_orientation(node, explicit)
        el = element_type(kind=kind, tag=node.tag, attrs=attrs, given=given, file=node.file,
                          line=node.line) if element_type is not Body else Body(
            attrs=attrs, given=given, file=node.file, line=node.line)
        return el

    # -- assets ----------------------------------------------------------------------------------------
    def asset(self, node):
        tables = {"mesh": S.MESH, "hfield": S.HFIELD, "texture": S.TEXTURE,
                  "material": S.MATERIAL, "model": S.MODEL_ASSET, "skin": S.SKIN}
        _check_children(node, tables)
        main = self.spec.defaults["main"]
        for c in node.children:
            if c.tag == "skin":
                self.skin(c)
            elif c.tag == "model":
                _check_children(c, set())
                self._model_asset(c)
            elif c.tag == "mesh":
                _check_children(c, {"plugin"})
                el = self.make(c, "mesh", S.MESH, self._class(c, main))
                self._plugin_children(c, el, "mesh")
                self.spec.meshes.append(el)
            elif c.tag == "material":
                _check_children(c, {"layer"})
                el = self.make(c, "material", S.MATERIAL, self._class(c, main))
                el.layers = []
                for lay in c.children:
                    _check_children(lay, set())
                    el.layers.append(self.make(lay, "layer", S.LAYER, None))
                self.spec.materials.append(el)
            elif c.tag == "texture":
                _check_children(c, set())
                self.spec.textures.append(self.make(c, "texture", S.TEXTURE, None))
            else:
                _check_children(c, set())
                self.spec.hfields.append(self.make(c, "hfield", S.HFIELD, None))

    # -- the kinematic tree ------------------------------------------------------------------------------
    def worldbody(self, node):
        for attr in node.attrib:
            raise XMLError(f"unrecognized attribute '{attr}'", node.file, node.line, "worldbody",
                           attr)
        self._document_order(node)
        node = self._expand_replicates(node)
        self.body_children(node, self.spec.worldbody, self.spec.defaults["main"], None,
                           world=True)

    def body_children(self, node, body, active, frame, world=False):
        allowed = WORLD_KINDS if world else TREE_TAGS
        _check_children(node, allowed)
        for c in node.children:
            tag = c.tag
            if tag == "body":
                cls = active
                if "childclass" in c.attrib:
                    cls = self._named_class(c, c.attrib["childclass"], "childclass")
                child = self.make(c, "body", S.BODY, None, element_type=Body)
                child.frame = frame
                body.add(child)
                self.body_children(c, child, cls, None)
            elif tag == "frame" and "_replicate_step" in c.attrib:
                # A replicate copy: the step transform (offset, euler) applied `index` times.
                f = Frame("frame", "replicate", {"replicate": c.attrib["_replicate_step"],
                                                  "index": c.attrib["_replicate_index"]},
                          (), c.file, c.line)
                f.frame = frame
                self.body_children(c, body, active, f, world=world)
            elif tag == "frame":
                cls = active
                if "childclass" in c.attrib:
                    cls = self._named_class(c, c.attrib["childclass"], "childclass")
                f = self.make(c, "frame", S.FRAME, None, element_type=Frame)
                f.frame = frame
                self.body_children(c, body, cls, f, world=world)
            elif tag == "inertial":
                _check_children(c, set())
                if body.inertial is not None:
                    raise XMLError("a body can have only one <inertial>", c.file, c.line,
                                   "inertial")
                el = self.make(c, "inertial", S.INERTIAL, None)
                for req in ("pos", "mass"):
                    if req not in el.given:
                        raise XMLError(f"<inertial> requires attribute '{req}'", c.file, c.line,
                                       "inertial", req)
                el.frame = frame
                body.inertial = el
            elif tag == "freejoint":
                _check_children(c, set())
                el = self.make(c, "freejoint", S.FREEJOINT, None)
                el.frame = frame
                body.add(el)
            elif tag == "plugin" and not world:
                # a body backed by a plugin instance (seed 002; MuJoCo's passive plugins)
                extra = set(c.attrib) - {"plugin", "instance"}
                if extra:
                    raise XMLError(f"unrecognized attribute '{sorted(extra)[0]}'", c.file,
                                   c.line, "plugin", sorted(extra)[0])
                if getattr(body, "plugin_instance", None) or \
                        getattr(body, "plugin_implicit", None) is not None:
                    raise XMLError("a body can have only one <plugin>", c.file, c.line,
                                   "plugin")
                self._plugin_use(c, body, "body")
            elif tag == "flexcomp":
                from ..compiler.flexcomp import expand
                expand(self, c, body, active, frame, parse_attrs, _check_children)
            elif tag == "attach":
                _check_children(c, set())
                attrs = parse_attrs(c, S.ATTACH, skip=("_suffix",))
                self._attach(c, attrs, body, frame, c.attrib.get("_suffix", ""))
            elif tag in BODY_KINDS:
                _check_children(c, {"plugin"} if tag == "geom" else set())
                if world and tag == "joint":
                    raise XMLError("joints cannot be defined in the world body", c.file, c.line,
                                   "joint")
                el = self.make(c, tag, BODY_KINDS[tag], self._class(c, active))
                if tag == "geom":
                    self._plugin_children(c, el, "geom")
                el.frame = frame
                body.add(el)
            else:
                _check_children(Node(node.tag, {}, c.file, c.line, [c]), allowed - {c.tag})

    def _named_class(self, node, name, attr):
        cls = self.spec.defaults.get(name)
        if cls is None:
            raise XMLError(f"unknown default class '{name}'", node.file, node.line, node.tag, attr)
        return cls

    # -- replicate: copies with cumulative offsets and name suffixes (seed 000 "replicate") ----------
    def _expand_replicates(self, node):
        node.children = [self._expand_replicates(c) for c in node.children]
        out = []
        for c in node.children:
            if c.tag != "replicate":
                out.append(c)
                continue
            attrs = parse_attrs(c, S.REPLICATE)
            count = attrs.get("count")
            if count is None:
                raise XMLError("replicate 'count' must be a positive integer", c.file, c.line,
                               "replicate", "count")
            # mujoco 4.0.0 makes no copy for a count <= 0 (measured; the reference says positive),
            # and drops what refers to the elements inside (_replicate_references)
            rep = self.__dict__.get("_nrep", 0)   # replicates numbered in the order they end
            self._nrep = rep + 1
            self.__dict__.setdefault("_rep_at", {})[rep] = self.__dict__.get(
                "_rep_end", {}).get(id(c))
            if count <= 0:
                self.__dict__.setdefault("_vanished", {}).update(dict.fromkeys(_names(c), rep))
            sep = attrs.get("sep", "")
            pending = {}
            width = len(str(count))  # digits of the count itself: 10 copies are 00..09
            for i in range(count):
                suffix = sep + str(i).zfill(width)
                # Copy i sits in a frame that applies the step transform i times.
                frame = Node("frame", {"_replicate_step": (attrs.get("offset", (0.0, 0.0, 0.0)),
                                                           attrs.get("euler")),
                                       "_replicate_index": i}, c.file, c.line,
                             [g.copy() for g in c.children])
                self._rename(frame, suffix, rep, pending)
                out.append(frame)
            # a copy's name may be another element's original (j + "2" and j2): the origins are
            # those from before this replicate
            self._origin.update(pending)
        node.children = out
        return node

    def _document_order(self, node):
        """Positions in document order (preorder) of the tree's names, and of the end of each
        <replicate>'s subtree: what mujoco's reader has read when it attaches a replica."""
        pos = self.__dict__.setdefault("_docpos", {})
        ends = self.__dict__.setdefault("_rep_end", {})

        def walk(n):
            for c in n.children:
                if c.attrib.get("name"):
                    pos.setdefault(c.attrib["name"], len(pos))
                walk(c)
                if c.tag == "replicate":
                    ends[id(c)] = len(pos)
        walk(node)

    def _rename(self, node, suffix, rep, pending):
        for c in node.children:
            if c.tag == "attach":
                # the attached elements are named when the attach is performed; inner replicates
                # append their suffix first
                c.attrib["_suffix"] = c.attrib.get("_suffix", "") + suffix
            name = c.attrib.get("name")
            if name:
                c.attrib["name"] = name + suffix
                # Nested replicates rename twice: remember the original name.
                pending[name + suffix] = self._origin.get(name, name)
                self.__dict__.setdefault("_rep_of", {})[name + suffix] = rep
            self._rename(c, suffix, rep, pending)

    def _replicate_references(self):
        """Elements outside the tree that reference replicated elements are replicated too, one
        copy per replica, named with the replica's suffix (seed 000, "replicate"), as mujoco
        4.0.0 does it (measured, test_fuzz_rules.test_replicate_references): each replica is an
        attach of the subtree, which copies what refers into it, and the original subtree is
        then deleted with whatever still refers to it. So:

        - a tendon, sensor, contact pair or exclude with any reference into a replicate is
          copied per replica (its other references kept); a tendon's sidesite alone does not
          copy it (it is dropped);
        - an equality or actuator is copied only when every reference is into the replicate
          (an equality's second body may be the world); one that mixes in an outside element
          is dropped, as is anything referring into a <replicate count <= 0>;
        - copies of tendons and actuators are replicated names in turn (an actuator of a
          copied tendon is copied);
        - an element that also refers to a tree element written after the replicate is left
          as it is (mujoco reads the other sections first and attaches each replica when its
          reader reaches it: the later element does not exist yet, so it neither copies nor
          deletes the element, whose reference into the replicate is then unknown);
        - the copies come after the section's other elements, replicate by replicate (in the
          order the replicates end), all of copy 0, then all of copy 1 ...
        """
        vanished = getattr(self, "_vanished", {})
        rep_at, docpos = getattr(self, "_rep_at", {}), getattr(self, "_docpos", {})
        if not self._origin and not vanished:
            return
        rep_of = getattr(self, "_rep_of", {})
        finals, rep = {}, {}

        def note(n):
            if n in self._origin:
                finals.setdefault(self._origin[n], []).append(n)
                rep[self._origin[n]] = rep_of.get(n, 0)

        def walk(b):
            for el in [b] + b.joints + b.geoms + b.sites + b.cameras + b.lights:
                note(el.attrs.get("name"))
            for c in b.bodies:
                walk(c)
        walk(self.spec.worldbody)
        refs = ("site", "joint", "tendon", "actuator", "objname", "refname", "body", "geom1",
                "geom2", "body1", "body2", "jointinparent", "refsite", "cranksite", "slidersite",
                "site1", "site2", "joint1", "joint2", "tendon1", "tendon2", "geom", "sidesite")
        strict = ("equality", "actuator")   # kinds copied only when all references are inside

        def names(el, primary=True):
            """(attribute holder, attribute, name) of every reference of ``el``; a tendon's
            sidesites only when not ``primary``."""
            out = [(el, a, el.attrs[a]) for a in refs if isinstance(el.attrs.get(a), str)]
            for p in getattr(el, "path", ()):
                out += [(p, a, p.attrs[a]) for a in refs if isinstance(p.attrs.get(a), str)
                        and not (primary and a == "sidesite")]
            return out

        def plan(el, kind):
            """(suffixes, replicate) to copy ``el`` by, None to keep it, or 'drop'."""
            allrefs = [n for _, _, n in names(el, primary=False)]
            r = next((rep[n] for n in allrefs if n in finals),
                     next((vanished[n] for n in allrefs if n in vanished), None))
            if r is None:
                return None
            end = rep_at.get(r)
            if end is not None and any(n not in finals and docpos.get(n, -1) >= end
                                       for n in allrefs):
                return None   # refers to a tree element after the replicate: left as written
            if any(n in vanished for n in allrefs):
                return "drop"
            hit = [n for _, _, n in names(el) if n in finals]
            if not hit:
                return "drop" if any(n in finals for n in allrefs) else None
            if kind in strict and any(n not in finals and n != "world"
                                      for _, _, n in names(el)):
                return "drop"
            return tuple(f[len(hit[0]):] for f in finals[hit[0]]), rep[hit[0]]

        def copy_for(el, suffix):
            cp = Element(el.kind, el.tag, dict(el.attrs), el.given, el.file, el.line)
            cp.__dict__.update({x: y for x, y in el.__dict__.items() if x not in cp.__dict__})
            for a in refs:
                v = cp.attrs.get(a)
                if isinstance(v, str) and v in finals:
                    cp.attrs[a] = v + suffix
            if getattr(el, "path", None):
                cp.path = []
                for p in el.path:
                    q = Element(p.kind, p.tag, dict(p.attrs), p.given, p.file, p.line)
                    for a in refs:
                        v = q.attrs.get(a)
                        if isinstance(v, str) and v in finals:
                            q.attrs[a] = v + suffix
                    cp.path.append(q)
            if cp.attrs.get("name"):
                cp.attrs["name"] = cp.attrs["name"] + suffix
            return cp

        def expand(elements, kind):
            kept, groups = [], {}
            for el in elements:
                how = plan(el, kind)
                if how is None:
                    kept.append(el)
                elif how != "drop":
                    groups.setdefault((how[1], how[0]), []).append(el)
            for (r, suf), els in sorted(groups.items(), key=lambda g: g[0][0]):
                for sx in suf:
                    kept.extend(copy_for(el, sx) for el in els)
                # a copied tendon or actuator is a replicated name for what refers to it (an
                # element of another kind may have its name: the suffixes are the same)
                for el in els:
                    n = el.attrs.get("name")
                    if n and kind in ("tendon", "actuator") and n not in finals:
                        finals[n], rep[n] = [n + sx for sx in suf], r
            return kept
        sp = self.spec
        sp.tendons = expand(sp.tendons, "tendon")
        sp.actuators = expand(sp.actuators, "actuator")
        sp.sensors = expand(sp.sensors, "sensor")
        sp.equalities = expand(sp.equalities, "equality")
        sp.pairs = expand(sp.pairs, "pair")
        sp.excludes = expand(sp.excludes, "exclude")

    # -- model composition: asset/model and body/attach (seed 000) --------------------------------
    def _model_asset(self, node):
        """<model name file>: read another MJCF file into its own Spec, to be attached later."""
        a = parse_attrs(node, S.MODEL_ASSET)
        fname = a.get("file")
        if not fname:
            raise XMLError("<model> requires attribute 'file'", node.file, node.line, "model",
                           "file")
        if a.get("content_type") not in (None, "text/xml"):
            raise XMLError(f"unsupported content type '{a['content_type']}' (only text/xml)",
                           node.file, node.line, "model", "content_type")
        from ..plugin.resource import join, resource_exists
        path = join(self.spec.dir, fname)
        if not resource_exists(fname, self.spec.dir):
            raise XMLError(f"model file '{fname}' not found (looked in {self.spec.dir})",
                           node.file, node.line, "model", "file")
        child = MJCFReader(load_xml(path), file=path).read()
        name = a.get("name") or child.modelname
        models = self.spec.extras.setdefault("models", {})
        if name in models:
            raise XMLError(f"repeated name '{name}' in model", node.file, node.line, "model",
                           "name")
        models[name] = child

    def _attach(self, node, a, body, frame, suffix):
        """<attach model body prefix>: copy a subtree of a child model (the body ``a['body']`` or
        the contents of its world body, in a frame) into ``body`` under ``frame``. Names become
        prefix + name + suffix (the suffix of enclosing replicates); asset names prefix + name.
        The child's assets and keyframes come in once per (model, prefix); its tendons,
        equalities, actuators, sensors, excludes and pairs come in when every element they
        reference was attached."""
        def fail(msg, attr=None):
            return XMLError(msg, node.file, node.line, "attach", attr)

        # <attach frame> without a model copies a frame of this model (MuJoCo 4)
        self_attach = a.get("frame") is not None and a.get("model") is None
        for req in ("prefix",) if self_attach else ("model", "prefix"):
            if a.get(req) is None:
                raise fail(f"<attach> requires attribute '{req}'", req)
        if a.get("frame") is not None and a.get("body") is not None:
            raise fail("<attach> takes either 'body' or 'frame'", "frame")
        child = (self.spec if self_attach
                 else self.spec.extras.get("models", {}).get(a["model"]))
        if child is None:
            raise fail(f"unknown model '{a['model']}'", "model")
        prefix = a["prefix"]

        def ren(n):
            return prefix + n + suffix if n else n

        def aren(n):
            # a frame of this model keeps using this model's assets
            return prefix + n if n and not self_attach else n

        # The child's angles and Euler sequence may differ from ours: its orientations become
        # quaternions and its joint angles our unit when they do.
        cc = {k: v[2] for k, v in S.COMPILER.items()}
        cc.update(child.compiler)
        pc = {k: v[2] for k, v in S.COMPILER.items()}
        pc.update(self.spec.compiler)
        convert = (cc["angle"], cc["eulerseq"]) != (pc["angle"], pc["eulerseq"])
        if convert:
            from ..compiler.frames import Orienter
            orienter = Orienter(cc["angle"] == "degree", cc["eulerseq"])
            angle = ((math.pi / 180 if cc["angle"] == "degree" else 1.0)
                     / (math.pi / 180 if pc["angle"] == "degree" else 1.0))

        def fix_orientation(el):
            if convert and any(el.attrs.get(k) is not None for k in S.ORIENT):
                q = orienter.quat(el.attrs, el.where())
                for k in S.ORIENT:
                    el.attrs[k] = None
                el.attrs["quat"] = tuple(float(x) for x in q)

        def rename_refs(el):
            for k in ELEMENT_REFS:
                v = el.attrs.get(k)
                if isinstance(v, str) and v and not _names_world_body(el, k, v):
                    el.attrs[k] = ren(v)
            for k in ASSET_REFS:
                v = el.attrs.get(k)
                if isinstance(v, str) and v:
                    el.attrs[k] = aren(v)

        def copy_el(el, cls=Element):
            if cls is Body:
                cp = Body(attrs=dict(el.attrs), given=el.given, file=el.file, line=el.line)
            elif cls is Frame:
                cp = Frame(el.kind, el.tag, dict(el.attrs), el.given, el.file, el.line)
            else:
                cp = Element(el.kind, el.tag, dict(el.attrs), el.given, el.file, el.line)
            for k, v in el.__dict__.items():
                if k not in cp.__dict__:
                    cp.__dict__[k] = v
            if el.attrs.get("name"):
                cp.attrs["name"] = ren(el.attrs["name"])
            rename_refs(cp)
            fix_orientation(cp)
            return cp

        frames = {}

        def copy_frame(f, root):
            if f is None:
                return root
            if id(f) not in frames:
                cp = copy_el(f, Frame)
                if convert and f.tag == "replicate":
                    # freeze the replicate step (in the child's angle unit) into a plain pose
                    from ..compiler.frames import frame_pose
                    saved, f.frame = f.frame, None
                    p, q = frame_pose(f, orienter)
                    f.frame = saved
                    cp = Frame("frame", "frame", {"pos": tuple(p), "quat": tuple(q)}, (),
                               f.file, f.line)
                cp.frame = copy_frame(f.frame, root)
                frames[id(f)] = cp
            return frames[id(f)]

        copies = {}   # id(child element) -> its copy
        names = set()  # names of every attached element (child names, before renaming)

        def copy_contents(src, dst, root):
            """src's joints, geoms, ... and child bodies into dst; frames re-rooted at root."""
            for kind in ("joints", "geoms", "sites", "cameras", "lights"):
                for el in getattr(src, kind):
                    cp = copy_el(el)
                    cp.frame = copy_frame(el.frame, root)
                    if convert and el.kind == "joint" and el.attrs.get("type") in ("hinge",
                                                                                  "ball"):
                        for k in ("range", "ref", "springref"):
                            v = cp.attrs.get(k)
                            if isinstance(v, tuple):
                                cp.attrs[k] = tuple(x * angle for x in v)
                            elif isinstance(v, float):
                                cp.attrs[k] = v * angle
                    dst.add(cp)
                    copies[id(el)] = cp
                    if el.name:
                        names.add(el.name)
            for b in src.bodies:
                copy_body(b, dst, root)

        def copy_body(b, dst, root):
            cp = copy_el(b, Body)
            cp.frame = copy_frame(b.frame, root)
            if b.inertial is not None:
                cp.inertial = copy_el(b.inertial)
                # an <inertial> is in its body's frame: enclosing frames of the attach do not
                # apply to it
                cp.inertial.frame = copy_frame(b.inertial.frame, None)
            dst.add(cp)
            copies[id(b)] = cp
            if b.name:
                names.add(b.name)
            # frames inside b are b's own: they chain up to None
            copy_contents(b, cp, None)
            return cp

        if a.get("frame") is not None:
            self._attach_frame(child, a["frame"], body, frame, copy_el, copy_frame, copy_body,
                               copies, names, fail)
        elif a.get("body"):
            src = child.find("body", a["body"])
            if src is None or src is child.worldbody:
                raise fail(f"model '{a['model']}' has no body '{a['body']}'", "body")
            # the body's own enclosing frames in the child are not part of the attached subtree
            saved, src.frame = src.frame, None
            try:
                copy_body(src, body, frame)
            finally:
                src.frame = saved
        else:
            root = Frame("frame", "attach", {"pos": (0.0, 0.0, 0.0)}, (), node.file, node.line)
            root.frame = frame
            copy_contents(child.worldbody, body, root)

        first = not self_attach and (a["model"], prefix) not in self._attached_assets
        if not self_attach:
            self._attached_assets.add((a["model"], prefix))
        if first:
            self._attach_assets(child, cc, aren, copy_el)

        # non-tree elements whose every reference was attached (tendons first: actuators and
        # sensors may use them); this model's own come after its last section is read
        def refs_ok(el):
            items = [el] + list(getattr(el, "path", ()))
            for x in items:
                for k in ELEMENT_REFS:
                    v = x.attrs.get(k)
                    # MuJoCo 4.0.0 leaves out those naming the world body too (measured)
                    if isinstance(v, str) and v and (v not in names
                                                     or _names_world_body(x, k, v)):
                        return False
            return True

        def copy_nontree():
            for section in ("tendons", "equalities", "actuators", "sensors", "excludes",
                            "pairs"):
                for el in getattr(child, section):
                    if not refs_ok(el):
                        continue
                    cp = copy_el(el)
                    if getattr(el, "path", None) is not None:
                        cp.path = [copy_el(p) for p in el.path]
                    self._attached[section].append(cp)
                    copies[id(el)] = cp
                    if el.name and section in ("tendons", "actuators"):
                        names.add(el.name)
        if self_attach:
            self._self_attached.append(copy_nontree)
        else:
            copy_nontree()
        if first:
            for key in child.keys:
                self._attached["keys"].append(self._attach_key(child, key, copies, aren))

    @staticmethod
    def _attach_frame(src, fname, body, frame, copy_el, copy_frame, copy_body, copies, names,
                      fail):
        """<attach frame>: copy the frame named ``fname`` of ``src`` (its own pose included,
        the frames enclosing it not) and every element and body in it into ``body`` under the
        attach's enclosing ``frame``, in the order the source body holds them."""
        def within(el, f):
            g = el.frame
            while g is not None and g is not f:
                g = g.frame
            return g is f

        target = owner = None
        for b in src.bodies():
            for el in [*b.joints, *b.geoms, *b.sites, *b.cameras, *b.lights, *b.bodies]:
                g = el.frame
                while g is not None:
                    if g.tag == "frame" and g.attrs.get("name") == fname:
                        target, owner = g, b
                        break
                    g = g.frame
                if target is not None:
                    break
            if target is not None:
                break
        if target is None:
            raise fail(f"could not find frame '{fname}'", "frame")
        # the snapshot first: a self-attach may add to the body it reads
        kinds = [[el for el in getattr(owner, k) if within(el, target)]
                 for k in ("joints", "geoms", "sites", "cameras", "lights", "bodies")]
        saved, target.frame = target.frame, None   # re-rooted at the attach's frame
        try:
            for els in kinds[:-1]:
                for el in els:
                    cp = copy_el(el)
                    cp.frame = copy_frame(el.frame, frame)
                    body.add(cp)
                    copies[id(el)] = cp
                    if el.name:
                        names.add(el.name)
            for b in kinds[-1]:
                copy_body(b, body, frame)
        finally:
            target.frame = saved

    def _attach_assets(self, child, cc, aren, copy_el):
        """Copy the child's meshes, height fields, textures and materials (once per prefix),
        with file paths made absolute against the child's directories."""
        for section, sub in (("meshes", "meshdir"), ("hfields", "meshdir"),
                             ("textures", "texturedir"), ("materials", None)):
            base = os.path.join(child.dir, (cc.get(sub) or cc.get("assetdir") or "") if sub
                                else "")
            for el in getattr(child, section):
                cp = copy_el(el)
                if not el.name and el.attrs.get("file") and section != "materials":
                    # a file-named asset keeps the file's stem as its name, prefixed
                    stem = os.path.splitext(os.path.basename(el.attrs["file"]))[0]
                    cp.attrs["name"] = aren(stem)
                elif el.name:
                    cp.attrs["name"] = aren(el.name)
                for k in ASSET_FILES:
                    f = cp.attrs.get(k)
                    if isinstance(f, str) and f and not os.path.isabs(f):
                        cp.attrs[k] = os.path.join(base, f)
                getattr(self.spec, section).append(cp)

    @staticmethod
    def _attach_key(child, key, copies, aren):
        """A keyframe of the attached model: the values it gives for the attached joints and
        actuators (the rest of the parent's keyframe stays at its defaults)."""
        nq_of = {"free": 7, "ball": 4, "slide": 1, "hinge": 1}
        qadr, dadr = {}, {}
        nq = nv = 0
        for b in child.bodies():
            for j in b.joints:
                t = "free" if j.kind == "freejoint" else j.attrs.get("type", "hinge")
                qadr[id(j)], dadr[id(j)] = (nq, nq_of[t]), (nv, 6 if t == "free" else
                                                            3 if t == "ball" else 1)
                nq += nq_of[t]
                nv += dadr[id(j)][1]
        aadr = {}
        na = 0
        for u, act in enumerate(child.actuators):
            n = act.attrs.get("actdim", -1)
            if n is None or n < 0:
                n = 0 if act.attrs.get("dyntype", "none") == "none" else 1
            aadr[id(act)] = (u, na, n)
            na += n
        old = getattr(key, "partial", None)
        partial = {"qpos": [], "qvel": [], "ctrl": [], "act": []}
        for field, table in (("qpos", qadr), ("qvel", dadr)):
            for jid, (adr, n) in table.items():
                if jid not in copies:
                    continue
                if old is not None:
                    vals = next((v for e, v in old[field] if id(e) == jid), None)
                else:
                    full = key.attrs.get(field)
                    vals = tuple(full[adr:adr + n]) if full is not None else None
                if vals is not None:
                    partial[field].append((copies[jid], vals))
        for aid, (u, adr, n) in aadr.items():
            if aid not in copies:
                continue
            for field, sl in (("ctrl", (u, 1)), ("act", (adr, n))):
                if old is not None:
                    vals = next((v for e, v in old[field] if id(e) == aid), None)
                else:
                    full = key.attrs.get(field)
                    vals = tuple(full[sl[0]:sl[0] + sl[1]]) if full is not None else None
                if vals:
                    partial[field].append((copies[aid], vals))
        cp = Element("key", "key", {"name": aren(key.name) if key.name else None,
                                    "time": key.attrs.get("time", 0.0)}, {"name", "time"},
                     key.file, key.line)
        cp.partial = partial
        return cp

    # -- non-tree sections ------------------------------------------------------------------------------
    def contact(self, node):
        _check_children(node, {"pair", "exclude"})
        main = self.spec.defaults["main"]
        for c in node.children:
            _check_children(c, set())
            if c.tag == "pair":
                el = self.make(c, "pair", S.PAIR, self._class(c, main))
                for req in ("geom1", "geom2"):
                    if not el.attrs.get(req):
                        raise XMLError(f"<pair> requires attribute '{req}'", c.file, c.line,
                                       "pair", req)
                self.spec.pairs.append(el)
            else:
                el = self.make(c, "exclude", {"name": (S.S, None, None), "body1": (S.S, None, None),
                                              "body2": (S.S, None, None)}, None)
                self.spec.excludes.append(el)

    def equality(self, node):
        _check_children(node, S.EQUALITY)
        main = self.spec.defaults["main"]
        for c in node.children:
            _check_children(c, set())
            cls = self._class(c, main)
            el = self.make(c, "equality", S.EQUALITY[c.tag], None)
            # The class's <equality> prototype holds what all kinds share; the element's own
            # attributes win over it.
            for k in cls.given.get("equality", ()):
                if k not in c.attrib:
                    el.attrs[k] = cls.values["equality"][k]
                    el.given.add(k)
            self.spec.equalities.append(el)

    def tendon(self, node):
        _check_children(node, {"spatial", "fixed"})
        main = self.spec.defaults["main"]
        for c in node.children:
            table = S.TENDON
            el = self.make(c, "tendon", table, self._class(c, main))
            el.path = []
            if c.tag == "spatial":
                _check_children(c, {"site", "geom", "pulley"})
                tables = {"site": {"site": (S.S, None, None)},
                          "geom": {"geom": (S.S, None, None), "sidesite": (S.S, None, None)},
                          "pulley": {"divisor": (S.R, None, None)}}
            else:
                _check_children(c, {"joint"})
                tables = {"joint": {"joint": (S.S, None, None), "coef": (S.R, None, None)}}
            for p in c.children:
                _check_children(p, set())
                w = self.make(p, p.tag, tables[p.tag], None)
                for req in tables[p.tag]:
                    if req != "sidesite" and w.attrs.get(req) is None:
                        raise XMLError(f"<{p.tag}> requires attribute '{req}'", p.file, p.line,
                                       p.tag, req)
                el.path.append(w)
            self.spec.tendons.append(el)

    def actuator(self, node):
        _check_children(node, S.ACTUATOR)
        main = self.spec.defaults["main"]
        for c in node.children:
            _check_children(c, {"config"} if c.tag == "plugin" else set())
            cls = self._class(c, main)
            explicit = parse_attrs(c, S.ACTUATOR[c.tag])
            proto = {**schema_defaults(_GENERAL), **cls.values.get("general", {})}
            attrs = apply_actuator_shortcut(c, c.tag, proto, explicit)
            given = (cls.given.get("general", set()) | set(explicit))
            if c.tag in ("damper", "adhesion"):
                given |= {"ctrllimited"}
            el = Element("actuator", c.tag, attrs, given, c.file, c.line)
            el.explicit = explicit
            if c.tag == "plugin":
                self._plugin_use(c, el, "actuator")
            self.spec.actuators.append(el)

    def sensor(self, node):
        _check_children(node, S.SENSOR)
        for c in node.children:
            _check_children(c, {"config"} if c.tag == "plugin" else set())
            el = self.make(c, "sensor", S.SENSOR[c.tag], None)
            if c.tag == "plugin":
                self._plugin_use(c, el, "sensor")
            self.spec.sensors.append(el)

    def keyframe(self, node):
        _check_children(node, {"key"})
        for c in node.children:
            _check_children(c, set())
            self.spec.keys.append(self.make(c, "key", S.KEY, None))

    def custom(self, node):
        _check_children(node, S.CUSTOM)
        for c in node.children:
            if c.tag == "tuple":
                _check_children(c, {"element"})
                el = self.make(c, "tuple", S.CUSTOM["tuple"], None)
                el.elements = [self.make(e, "element", S.TUPLE_ELEMENT, None) for e in c.children]
                self.spec.tuples.append(el)
            else:
                _check_children(c, set())
                el = self.make(c, c.tag, S.CUSTOM[c.tag], None)
                (self.spec.numerics if c.tag == "numeric" else self.spec.texts).append(el)

    # -- engine plugins (seed 002 "在 MJCF 中声明", "在 MJCF 中配置") --------------------------------
    def _plugins(self):
        """spec.extras['plugins']: the declared plugin names and the instances, in document
        order (explicit ones from <extension>, implicit ones where an element names a plugin):
        each {'plugin', 'name', 'config', 'file', 'line'}."""
        return self.spec.extras.setdefault("plugins", {"declared": {}, "instances": []})

    def _config(self, node):
        cfg = {}
        for k in node.children:
            if k.tag != "config":
                raise XMLError(f"unrecognized element <{k.tag}> (expected <config>)", k.file,
                               k.line, k.tag)
            _check_children(k, set())
            key, value = k.attrib.get("key"), k.attrib.get("value")
            extra = set(k.attrib) - {"key", "value"}
            if extra:
                raise XMLError(f"unrecognized attribute '{sorted(extra)[0]}'", k.file, k.line,
                               "config", sorted(extra)[0])
            if not key or value is None:
                raise XMLError("<config> needs 'key' and 'value'", k.file, k.line, "config",
                               "key" if not key else "value")
            if key in cfg:
                raise XMLError(f"repeated config key '{key}'", k.file, k.line, "config", "key")
            cfg[key] = value
        return cfg

    def extension(self, node):
        """<extension><plugin plugin="..."><instance name="..."><config key value/>."""
        _check_children(node, {"plugin"})
        reg = self._plugins()
        for p in node.children:
            _check_children(p, {"instance"})
            name = p.attrib.get("plugin")
            extra = set(p.attrib) - {"plugin"}
            if extra:
                raise XMLError(f"unrecognized attribute '{sorted(extra)[0]}'", p.file, p.line,
                               "plugin", sorted(extra)[0])
            if not name:
                raise XMLError("<plugin> needs attribute 'plugin'", p.file, p.line, "plugin",
                               "plugin")
            reg["declared"].setdefault(name, (p.file, p.line))
            for inst in p.children:
                extra = set(inst.attrib) - {"name"}
                if extra:
                    raise XMLError(f"unrecognized attribute '{sorted(extra)[0]}'", inst.file,
                                   inst.line, "instance", sorted(extra)[0])
                iname = inst.attrib.get("name")
                if not iname:
                    raise XMLError("<instance> needs attribute 'name'", inst.file, inst.line,
                                   "instance", "name")
                reg["instances"].append(dict(plugin=name, name=iname,
                                             config=self._config(inst), file=inst.file,
                                             line=inst.line))

    def _plugin_children(self, node, el, kind):
        """The <plugin> child of a mesh or geom (an SDF plugin: seed 002), at most one."""
        kids = [k for k in node.children if k.tag == "plugin"]
        if len(kids) > 1:
            raise XMLError(f"a {kind} can have only one <plugin>", kids[1].file, kids[1].line,
                           "plugin")
        if kids:
            self._plugin_use(kids[0], el, kind)

    def _plugin_use(self, node, el, kind):
        """An element backed by a plugin: ``instance`` names an explicit instance (no <config>
        allowed), else ``plugin`` creates an implicit instance configured by the element's own
        <config> children. Sets el.plugin_instance (a name) or el.plugin_implicit (an index)."""
        a = node.attrib
        inst, plugin = a.get("instance"), a.get("plugin")
        reg = self._plugins()
        el.plugin_instance = el.plugin_implicit = None
        if inst:
            if any(k.tag == "config" for k in node.children):
                raise XMLError("<config> cannot be given where an existing plugin instance is "
                               "referenced", node.file, node.line, node.tag, "instance")
            el.plugin_instance = inst
            el.plugin_name = plugin
            return
        if not plugin:
            raise XMLError(f"{kind} <plugin> needs attribute 'plugin' or 'instance'",
                           node.file, node.line, node.tag, "plugin")
        reg["instances"].append(dict(plugin=plugin, name=None, config=self._config(node),
                                     file=node.file, line=node.line))
        el.plugin_implicit = len(reg["instances"]) - 1
        el.plugin_name = plugin

    def skin(self, node):
        """<skin> (in <deformable>, or deprecated in <asset>) with its <bone> children."""
        _check_children(node, {"bone"})
        el = self.make(node, "skin", S.SKIN, None)
        el.bones = []
        for b in node.children:
            _check_children(b, set())
            bone = self.make(b, "bone", S.SKIN_BONE, None)
            for req in ("body", "bindpos", "bindquat"):
                if bone.attrs.get(req) is None:
                    raise XMLError(f"<bone> requires attribute '{req}'", b.file, b.line,
                                   "bone", req)
            el.bones.append(bone)
        self.spec.skins.append(el)

    def deformable(self, node):
        """<deformable>: flexes (engine.compiler.flex compiles them); skins not yet."""
        _check_children(node, {"flex", "skin"})
        for c in node.children:
            if c.tag == "skin":
                self.skin(c)
                continue
            from ..compiler.flexcomp import sub_elements
            _check_children(c, {"edge", "elasticity", "contact"})
            el = self.make(c, "flex", S.FLEX, None)
            subs, _ = sub_elements(self, c, {"edge": S.FLEX_EDGE,
                                             "elasticity": S.FLEX_ELASTICITY,
                                             "contact": S.FLEX_CONTACT}, parse_attrs,
                                   _check_children)
            el.edge, el.elasticity, el.contact = (subs[k][0] for k in
                                                  ("edge", "elasticity", "contact"))
            el.vertbody = el.attrs["body"].split()
            el.nodebody = el.attrs["node"].split()
            el.vertex = list(el.attrs["vertex"])
            self.spec.flexes.append(el)


def _check_orientation(node, explicit):
    given = [k for k in S.ORIENT if k in explicit]
    if len(given) > 1:
        raise XMLError(f"multiple orientation specifiers: {', '.join(given)}", node.file,
                       node.line, node.tag, given[1])


def parse_mjcf(path=None, text=None, assets=None) -> Spec:
    """Read an MJCF file (or string) into a Spec."""
    root = load_xml(path, text, assets)
    return MJCFReader(root, file=path).read()
