"""MjVisual: the model's visualization settings, ``m.vis`` (seed 000 ``<visual>``; seed 001 mjVisual).

The physics never reads these values; renderers and viewers do (a free camera's field of view,
the offscreen buffer's size, the colours and sizes of decorations), and so do programs written
for `mujoco` that prepare rendering (gymnasium sets ``m.vis.global_.offwidth`` when it makes an
environment). They are kept as MuJoCo keeps them: six groups (global_, quality, headlight, map,
scale, rgba), real values in single precision (float32, so ``m.vis.global_.glow`` reads
0.30000001192092896 as with the official bindings), integers and flags as int32.

`VISUAL_TABLE` is the one home of the fields, their XML attributes and their defaults: the MJCF
schema (`engine.xml.schema.VISUAL`) and the structures below are both built from it. The defaults
are those of MuJoCo 4.0.0 (`engine.version`), which differ from the XML reference of the seeds in
two places: ``global/bvactive`` is off, and ``headlight/active`` is 2, "auto" (the headlight is on
unless the model defines lights of its own, decided by the renderer).

Lengths in `map` and `scale` are ratios (of the model's extent, of the mean body size, of a
light's cutoff: see each field), angles are degrees, colours are RGB(A) in [0, 1].
"""
from __future__ import annotations

import numpy as np

from .structs import struct_class

F, I, B = "f", "i", "b"     # float32 value, int32 value, boolean flag stored as int32 (0/1)

# headlight/active: 0 off, 1 on, 2 "auto"; the XML takes the number or the word.
HEADLIGHT_ACTIVE = {"0": 0, "1": 1, "2": 2, "false": 0, "true": 1, "auto": 2}

# group attribute of MjVisual -> (XML element under <visual>, class name, fields); each field is
# (name, kind, count, default, meaning).
VISUAL_TABLE = {
    "global_": ("global", "Global", (
        ("cameraid", I, 1, -1, "camera the viewer starts from (-1: the free camera)"),
        ("orthographic", B, 1, 0, "free camera projection: 0 perspective, 1 orthographic"),
        ("fovy", F, 1, 45.0, "free camera's vertical field of view: degrees (perspective) or "
                              "length units (orthographic)"),
        ("ipd", F, 1, 0.068, "free camera's inter-pupillary distance for stereo (length)"),
        ("azimuth", F, 1, 90.0, "free camera's initial azimuth about +z (degrees; 0 looks "
                                 "along +x)"),
        ("elevation", F, 1, -45.0, "free camera's initial elevation (degrees; negative looks "
                                    "down)"),
        ("linewidth", F, 1, 1.0, "line width of wireframe and ray drawing (pixels)"),
        ("glow", F, 1, 0.3, "emission added to the geoms of the selected body"),
        ("realtime", F, 1, 1.0, "initial real-time factor of an interactive viewer (> 0)"),
        ("offwidth", I, 1, 640, "offscreen buffer width (pixels)"),
        ("offheight", I, 1, 480, "offscreen buffer height (pixels)"),
        ("ellipsoidinertia", B, 1, 0, "equivalent-inertia drawing: 0 boxes, 1 ellipsoids"),
        ("bvactive", B, 1, 0, "mark bounding volumes that collision and ray queries touched "
                              "(MuJoCo 4.0.0 default: off)"),
    )),
    "quality": ("quality", "Quality", (
        ("shadowsize", I, 1, 4096, "side of the square shadow-map texture (pixels)"),
        ("offsamples", I, 1, 4, "multisamples of offscreen rendering (0: none)"),
        ("numslices", I, 1, 28, "subdivisions around the axis of builtin geom meshes"),
        ("numstacks", I, 1, 16, "subdivisions along the axis of builtin geom meshes"),
        ("numquads", I, 1, 4, "rectangles per side of boxes, planes and height-field sides"),
    )),
    "headlight": ("headlight", "Headlight", (
        ("ambient", F, 3, (0.1, 0.1, 0.1), "ambient RGB of the camera-mounted light"),
        ("diffuse", F, 3, (0.4, 0.4, 0.4), "diffuse RGB"),
        ("specular", F, 3, (0.5, 0.5, 0.5), "specular RGB"),
        ("active", I, 1, 2, "0 off, 1 on, 2 auto (MuJoCo 4.0.0 default: auto)"),
    )),
    "map": ("map", "Map", (
        ("stiffness", F, 1, 100.0, "mouse perturbation spring stiffness, translation "
                                   "(force per length, unit mass)"),
        ("stiffnessrot", F, 1, 500.0, "mouse perturbation spring stiffness, rotation"),
        ("force", F, 1, 0.005, "drawn force length per unit force, over stat.meanmass"),
        ("torque", F, 1, 0.1, "drawn torque length per unit torque, over stat.meanmass"),
        ("alpha", F, 1, 0.3, "alpha factor of moving bodies' geoms when transparency is on"),
        ("fogstart", F, 1, 3.0, "fog start distance, times stat.extent"),
        ("fogend", F, 1, 10.0, "fog end distance, times stat.extent"),
        ("znear", F, 1, 0.01, "near clipping plane distance, times stat.extent (> 0)"),
        ("zfar", F, 1, 50.0, "far clipping plane distance, times stat.extent"),
        ("haze", F, 1, 0.3, "fraction of the horizon distance covered by haze"),
        ("shadowclip", F, 1, 1.0, "half-side of a directional light's shadow square, times "
                                  "stat.extent"),
        ("shadowscale", F, 1, 0.6, "spot light's shadow cone angle, times its cutoff"),
        ("actuatortendon", F, 1, 2.0, "width of a tendon actuator over its tendon's width"),
    )),
    "scale": ("scale", "Scale", tuple(
        (name, F, 1, value, meaning + ", times stat.meansize") for name, value, meaning in (
            ("forcewidth", 0.1, "radius of force arrows"),
            ("contactwidth", 0.3, "radius of contact discs"),
            ("contactheight", 0.1, "height of contact discs"),
            ("connect", 0.2, "radius of the capsules joining bodies and joints"),
            ("com", 0.4, "radius of centre-of-mass spheres"),
            ("camera", 0.3, "size of camera decorations"),
            ("light", 0.3, "size of light decorations"),
            ("selectpoint", 0.2, "radius of the selection point sphere"),
            ("jointlength", 1.0, "length of joint axis arrows"),
            ("jointwidth", 0.1, "radius of joint axis arrows"),
            ("actuatorlength", 0.7, "length of joint actuator arrows"),
            ("actuatorwidth", 0.2, "radius of joint actuator arrows"),
            ("framelength", 1.0, "length of frame axes"),
            ("framewidth", 0.1, "radius of frame axes"),
            ("constraint", 0.1, "radius of constraint violation capsules"),
            ("slidercrank", 0.2, "radius of slider-crank capsules"),
            ("frustum", 10.0, "distance of the drawn frustum's far plane from the pinhole"),
        ))),
    "rgba": ("rgba", "Rgba", tuple(
        (name, F, 4, value, "RGBA of " + meaning) for name, value, meaning in (
            ("fog", (0, 0, 0, 1), "fog"),
            ("haze", (1, 1, 1, 1), "haze at the horizon"),
            ("force", (1, 0.5, 0.5, 1), "perturbation force arrows"),
            ("inertia", (0.8, 0.2, 0.2, 0.6), "equivalent-inertia boxes"),
            ("joint", (0.2, 0.6, 0.8, 1), "joint axes"),
            ("actuator", (0.2, 0.25, 0.2, 1), "actuators at neutral control"),
            ("actuatornegative", (0.2, 0.6, 0.9, 1), "actuators at the most negative control"),
            ("actuatorpositive", (0.9, 0.4, 0.2, 1), "actuators at the most positive control"),
            ("com", (0.9, 0.9, 0.9, 1), "subtree centre-of-mass spheres"),
            ("camera", (0.6, 0.9, 0.6, 1), "camera decorations"),
            ("light", (0.6, 0.6, 0.9, 1), "light decorations"),
            ("selectpoint", (0.9, 0.9, 0.1, 1), "the selection point"),
            ("connect", (0.2, 0.2, 0.8, 1), "body-joint connectors"),
            ("contactpoint", (0.9, 0.6, 0.2, 1), "contact points"),
            ("contactforce", (0.7, 0.9, 0.9, 1), "contact forces (normal part when split)"),
            ("contactfriction", (0.9, 0.8, 0.4, 1), "contact friction forces"),
            ("contacttorque", (0.9, 0.7, 0.9, 1), "contact torques"),
            ("contactgap", (0.5, 0.8, 0.9, 1), "contacts within the gap"),
            ("rangefinder", (1, 1, 0.1, 1), "rangefinder rays"),
            ("constraint", (0.9, 0, 0, 1), "constraint violations"),
            ("slidercrank", (0.5, 0.3, 0.8, 1), "slider-cranks"),
            ("crankbroken", (0.9, 0, 0, 1), "slider-cranks that cannot keep their length"),
            ("frustum", (1, 1, 0, 0.2), "camera frusta"),
            ("bv", (0, 1, 0, 0.5), "bounding volumes"),
            ("bvactive", (1, 0, 0, 0.5), "bounding volumes marked active"),
        ))),
}


def _layout():
    """Offsets of every field in the two buffers: {group: {field: (buffer, offset, count)}},
    and the buffers' lengths."""
    out, n = {}, {F: 0, I: 0}
    for group, (_, _, fields) in VISUAL_TABLE.items():
        out[group] = {}
        for name, kind, count, _, _ in fields:
            buf = F if kind == F else I
            out[group][name] = (buf, n[buf], count)
            n[buf] += count
    return out, n[F], n[I]


_LAYOUT, _NF, _NI = _layout()


def _defaults():
    f, i = np.zeros(_NF, np.float32), np.zeros(_NI, np.int32)
    for group, (_, _, fields) in VISUAL_TABLE.items():
        for name, _, count, default, _ in fields:
            buf, off, _ = _LAYOUT[group][name]
            (f if buf == F else i)[off:off + count] = default
    return f, i


_DEFAULT_F, _DEFAULT_I = _defaults()


def _group_class(group, cls_name, xml, fields):
    return struct_class(
        cls_name,
        [(name, np.float32 if kind == F else np.int32, () if count == 1 else (count,), default,
          meaning) for name, kind, count, default, meaning in fields],
        f"``m.vis.{group}``: the settings of MJCF ``<visual><{xml}>`` (seed 000). Scalars read "
        "as Python numbers, vectors as writable numpy views of the MjVisual.",
        qualname=f"MjVisual.{cls_name}")


_GROUP_CLASSES = {group: _group_class(group, cls_name, xml, fields)
                  for group, (xml, cls_name, fields) in VISUAL_TABLE.items()}


def _group_property(group):
    cls = _GROUP_CLASSES[group]

    def get(self):
        return cls._view({name: (self._f if buf == F else self._i)[off:off + count]
                          for name, (buf, off, count) in _LAYOUT[group].items()})

    def set_(self, value):
        # as the bindings: m.vis.global_ = other_global copies the values in
        if not isinstance(value, cls):
            raise TypeError(f"MjVisual.{group} takes a {cls.__qualname__}, got "
                            f"{type(value).__name__}")
        get(self)._assign(value)
    return property(get, set_, doc=cls.__doc__)


class MjVisual:
    """``m.vis``: visualization settings of the model (MuJoCo's mjVisual; seed 000 ``<visual>``).

    Six groups, each an object with the fields of its XML element: ``global_`` (``<global>``;
    the trailing underscore because ``global`` is a Python keyword), ``quality``, ``headlight``,
    ``map``, ``scale``, ``rgba``. ``MjVisual()`` holds MuJoCo 4.0.0's defaults; a compiled model's
    holds the defaults overridden by its ``<visual>`` element.
    """

    __slots__ = ("_f", "_i")

    def __init__(self):
        self._f = np.array(_DEFAULT_F)
        self._i = np.array(_DEFAULT_I)

    def __eq__(self, other):
        if not isinstance(other, MjVisual):
            return NotImplemented
        return np.array_equal(self._f, other._f) and np.array_equal(self._i, other._i)

    __hash__ = None

    def __copy__(self):
        out = MjVisual()
        out._f[:], out._i[:] = self._f, self._i
        return out

    def __deepcopy__(self, memo):
        return self.__copy__()

    def __repr__(self):
        body = "\n".join(f"  {g}: " + repr(getattr(self, g)).replace("\n", "\n  ")
                         for g in VISUAL_TABLE)
        return f"<MjVisual\n{body}\n>"


# The groups as properties (m.vis.global_) and their classes as nested names (MjVisual.Global),
# as in the bindings.
for _g, _cls in _GROUP_CLASSES.items():
    setattr(MjVisual, _cls.__name__, _cls)
    setattr(MjVisual, _g, _group_property(_g))
del _g, _cls


def apply_xml(vis: MjVisual, given: dict) -> None:
    """Set the values a model's ``<visual>`` gives: ``given`` maps an XML element name
    ("global", "quality", ...) to {attribute: parsed value} (what `engine.xml.mjcf` stores in
    ``Spec.visual``); attributes not given keep their defaults."""
    by_xml = {xml: group for group, (xml, _, _) in VISUAL_TABLE.items()}
    for xml, values in given.items():
        target = getattr(vis, by_xml[xml])
        for name, value in values.items():
            setattr(target, name, value)


__all__ = ["MjVisual", "VISUAL_TABLE", "HEADLIGHT_ACTIVE", "apply_xml"]
