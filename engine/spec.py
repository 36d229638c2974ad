"""The editable model tree (what mjSpec is): what the XML readers fill and the compiler reads.

Every element keeps its attribute values already merged from the schema default, its default class
and the element itself (``attrs``), and which attributes were set explicitly by the element or a
default class (``given``: autolimits and the actuator shortcuts depend on it). Orientation stays
in the form the file gave (quat / axisangle / euler / xyaxes / zaxis) because its meaning depends
on ``<compiler angle eulerseq>``, which the compiler applies. Each element remembers where it came
from (file, line) so the compiler's errors can point at it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class Element:
    """One MJCF element: ``kind`` ("geom", "joint", "actuator", ...), ``tag`` (the XML tag, e.g.
    "position" for an actuator), resolved ``attrs`` and the set of ``given`` attribute names."""

    def __init__(self, kind, tag=None, attrs=None, given=(), file=None, line=None, frame=None):
        self.kind = kind
        self.tag = tag or kind
        self.attrs = dict(attrs or {})
        self.given = set(given)
        self.file = file
        self.line = line
        self.frame = frame          # enclosing <frame> (a Frame) or None
        self.parent = None          # enclosing Body for tree elements

    def __getattr__(self, name):
        attrs = self.__dict__.get("attrs")
        if attrs is not None and name in attrs:
            return attrs[name]
        raise AttributeError(f"<{self.__dict__.get('tag', '?')}> has no attribute '{name}'")

    def set(self, name, value):
        """Set an attribute as if the file had given it."""
        self.attrs[name] = value
        self.given.add(name)

    @property
    def name(self):
        return self.attrs.get("name")

    def where(self):
        return (self.file, self.line, self.tag)

    def __repr__(self):
        n = self.attrs.get("name")
        return f"<{self.tag}{' ' + repr(n) if n else ''} line {self.line}>"


class Frame(Element):
    """A <frame> (or a <replicate> copy): a pure coordinate transform of its children."""


class Body(Element):
    """A body with its own elements, in document order per kind, and its child bodies."""

    def __init__(self, *args, **kwargs):
        super().__init__("body", *args, **kwargs)
        self.bodies: list[Body] = []
        self.joints: list[Element] = []
        self.geoms: list[Element] = []
        self.sites: list[Element] = []
        self.cameras: list[Element] = []
        self.lights: list[Element] = []
        self.inertial: Element | None = None

    def add(self, el):
        el.parent = self
        {"body": self.bodies, "joint": self.joints, "freejoint": self.joints,
         "geom": self.geoms, "site": self.sites, "camera": self.cameras,
         "light": self.lights}[el.kind].append(el)
        return el


@dataclass
class DefaultClass:
    """A default class: per element kind, the attribute values and the set of those given."""

    name: str
    parent: "DefaultClass | None"
    values: dict = field(default_factory=dict)   # kind -> {attr: value}
    given: dict = field(default_factory=dict)    # kind -> set(attr)
    file: str | None = None
    line: int | None = None


@dataclass
class Spec:
    """A whole model, as parsed: sections of the MJCF file, each a list of Elements."""

    modelname: str = "MuJoCo Model"
    file: str | None = None
    dir: str = "."
    source: str = "mjcf"  # or "urdf": decides the compiler defaults (seed 004, URDF extensions)
    compiler: dict = field(default_factory=dict)
    lengthrange: dict = field(default_factory=dict)
    option: dict = field(default_factory=dict)
    flags: dict = field(default_factory=dict)
    size: dict = field(default_factory=dict)
    statistic: dict = field(default_factory=dict)
    visual: dict = field(default_factory=dict)
    defaults: dict = field(default_factory=dict)  # class name -> DefaultClass
    meshes: list = field(default_factory=list)
    hfields: list = field(default_factory=list)
    textures: list = field(default_factory=list)
    materials: list = field(default_factory=list)
    worldbody: Body | None = None
    pairs: list = field(default_factory=list)
    excludes: list = field(default_factory=list)
    equalities: list = field(default_factory=list)
    tendons: list = field(default_factory=list)      # each Element has .path: list of Elements
    actuators: list = field(default_factory=list)
    sensors: list = field(default_factory=list)
    keys: list = field(default_factory=list)
    numerics: list = field(default_factory=list)
    texts: list = field(default_factory=list)
    tuples: list = field(default_factory=list)       # each Element has .elements
    flexes: list = field(default_factory=list)       # <deformable><flex> and <flexcomp> flexes
    skins: list = field(default_factory=list)        # <skin>; each Element has .bones
    extras: dict[str, Any] = field(default_factory=dict)

    def bodies(self):
        """All bodies, world first, in depth-first order (MuJoCo's body numbering)."""
        out = []

        def visit(b):
            out.append(b)
            for c in b.bodies:
                visit(c)
        visit(self.worldbody)
        return out

    def find(self, kind, name):
        """The element of ``kind`` ("body", "joint", "geom", "site", ...) named ``name``."""
        for b in self.bodies():
            if kind == "body" and b.name == name:
                return b
            for el in {"joint": b.joints, "geom": b.geoms, "site": b.sites,
                       "camera": b.cameras, "light": b.lights}.get(kind, ()):
                if el.name == name:
                    return el
        return None
