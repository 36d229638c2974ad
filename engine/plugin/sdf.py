"""MuJoCo's first-party SDF plugins (seed 002 "sdf" directory): mujoco.sdf.torus, gear, bowl,
nut and bolt, as signed distance functions in the plugin's local frame (lengths in model units,
negative inside).

The distance and gradient are engine kernels (`sdf_distance`, `sdf_gradient`) selected by the
plugin's kind (its index in `NAMES`), so the compiled collision step calls them directly; the
`SdfPlugin` objects registered by default expose them through the plugin callbacks
(sdf_distance, sdf_gradient, sdf_staticdistance, sdf_aabb) for Python callers and the compiler's
marching-cubes mesh (engine.compiler.sdf_mesh).

Shapes, as the plugins' documentation describes them:
- torus: ring of major radius ``radius1`` about z, tube radius ``radius2``; analytic gradient.
- gear: an involute spur gear of ``teeth`` teeth (25), pitch diameter ``diameter`` (2.8),
  thickness ``thickness`` (0.2) and hub hole ``innerdiameter`` (-1: 0.28 diameter inside the
  tooth roots), rotated by ``alpha`` radians about z.
- bowl: a spherical shell of radius ``radius`` and half-thickness ``thickness`` cut at height
  ``height`` (open at the top, +z).
- nut / bolt: a hexagonal-head nut (threaded hole of radius ``radius``) and bolt (threaded shaft
  of radius ``radius``), 12 threads per unit length.
The gear, bowl, nut and bolt gradients are forward differences with step 1e-8, as MuJoCo's.
"""
from __future__ import annotations

import math

import numpy as np

from .._jit import kernel
from .registry import SDF, Plugin

TORUS, GEAR, BOWL, NUT, BOLT = range(5)
NAMES = ("mujoco.sdf.torus", "mujoco.sdf.gear", "mujoco.sdf.bowl", "mujoco.sdf.nut",
         "mujoco.sdf.bolt")
# config attributes in mjModel.plugin_attr order, and the value each takes when not given
ATTRIBUTES = (("radius1", "radius2"),
              ("alpha", "diameter", "teeth", "thickness", "innerdiameter"),
              ("height", "radius", "thickness"), ("radius",), ("radius",))
DEFAULTS = ((0.35, 0.15), (0.0, 2.8, 25.0, 0.2, -1.0), (0.4, 1.0, 0.02), (0.26,), (0.26,))
# registry slot of NAMES[0]: the first-party plugins register before any other (registry), pid
# and touch_grid first, so a slot maps to a kind as slot - SLOT0
SLOT0 = 2
NKIND = len(NAMES)
NATTRS = tuple(len(a) for a in ATTRIBUTES)
NATTR = 5           # the most attributes one of these plugins has
DEFAULTS_PADDED = tuple(tuple(d) + (0.0,) * (NATTR - len(d)) for d in DEFAULTS)
_FD_EPS = 1e-8      # forward-difference step of the numerical gradients
_SQRT12 = math.sqrt(2.0) / 2.0


@kernel
def _fract(x):
    return x - math.floor(x)


@kernel
def _torus(x, y, z, a):
    q = math.sqrt(x * x + y * y) - a[0]
    return math.sqrt(q * q + z * z) - a[1]


@kernel
def _extrude(z, d2, h):
    """Distance of the extrusion of a 2-D distance ``d2`` over |z| <= h."""
    w0, w1 = d2, abs(z) - h
    m0, m1 = max(w0, 0.0), max(w1, 0.0)
    return min(max(w0, w1), 0.0) + math.sqrt(m0 * m0 + m1 * m1)


@kernel
def _smooth_union(a, b, k):
    """Polynomial smooth minimum of a and b over width k; the plain minimum for k <= 0 (the
    gear's root blend Rb - Ro + h is negative above ~115 teeth: mujoco 4.0.0's meshes of 120,
    150 and 176-tooth gears have the hard minimum's vertices, measured)."""
    if k <= 0.0:
        return min(a, b)
    h = min(max(0.5 + 0.5 * (b - a) / k, 0.0), 1.0)
    return b * (1.0 - h) + a * h - k * h * (1.0 - h)


@kernel
def _gear2d(x, y, a):
    """The gear's cross-section distance (a: alpha, diameter, teeth, thickness,
    innerdiameter)."""
    D = a[1]
    N = a[2]
    psi = 3.096e-5 * N * N - 6.557e-3 * N + 0.551      # pressure angle
    R = D / 2.0
    rho = math.sqrt(x * x + y * y)
    Pd = N / D                      # teeth per unit of diameter
    P = math.pi / Pd                # circular pitch
    add = 1.0 / Pd                  # addendum
    Ro = (D + 2.0 * add) / 2.0      # outside radius
    h = 2.2 / Pd
    innerR = Ro - h - 0.14 * D
    if a[4] >= 0.0:
        innerR = a[4] / 2.0
    if innerR - rho > 0.0:          # inside the hub
        return innerR - rho
    if Ro - rho < -0.2:             # far outside the teeth
        return rho - Ro
    Rb = D * math.cos(psi) / 2.0    # base radius
    fi = math.atan2(y, x) + a[0]      # alpha in radians (measured: gear.xml's alpha=15)
    stride = P / R
    inv_alpha = math.acos(Rb / R)
    inv_phi = math.tan(inv_alpha) - inv_alpha
    shift = stride / 2.0 - 2.0 * inv_phi
    ua = fi + shift / 2.0
    fia = ua - stride * math.floor(ua / stride) - shift / 2.0
    ub = -fi - shift + shift / 2.0
    fib = ub - stride * math.floor(ub / stride) - shift / 2.0
    dista = -1.0e6
    distb = -1.0e6
    if Rb < rho:
        ac = math.acos(Rb / rho)
        ta = math.sqrt(rho * rho - Rb * Rb)
        dista = ta - Rb * (fia + ac)        # distance to the involute of the base circle
        distb = ta - Rb * (fib + ac)
    outer = rho - Ro
    lowbase = rho - (Ro - h)
    crown = rho - innerR
    cogs = max(dista, distb)
    walls = max(fia - (stride - shift), fib - (stride - shift))
    cogs = max(walls, cogs)
    # smooth intersection of the outer circle and the teeth
    su = _smooth_union(max(outer, -cogs), max(cogs, -outer), 0.0035 * D)
    cogs = max(max(outer, cogs), -su)
    cogs = _smooth_union(lowbase, cogs, Rb - Ro + h)
    return max(cogs, -crown)


@kernel
def _bowl(x, y, z, a):
    height, radius, thick = a[0], a[1], a[2]
    width = math.sqrt(radius * radius - height * height)
    q0 = math.sqrt(x * x + y * y)
    if height * q0 < width * z:
        return math.sqrt((q0 - width) ** 2 + (z - height) ** 2) - thick
    return abs(math.sqrt(q0 * q0 + z * z) - radius) - thick


@kernel
def _hex_head(x, y, z, r):
    """The hexagonal head shared by the nut and the bolt (r: distance from the thread axis
    minus the radius)."""
    k = 6.0 / math.pi / 2.0
    angle = -math.floor(math.atan2(y, x) * k + 0.5) / k
    s0, s1 = math.sin(angle), math.sin(angle + math.pi * 0.5)
    px = s1 * x - s0 * y
    head = px - 0.5
    head = max(head, abs(z + 0.25) - 0.25)
    return max(head, (z + r - 0.22) * _SQRT12)


@kernel
def _thread(x, y, z, radius):
    """(distance to the threaded cylinder, its radial coordinate) of a 12-per-unit screw."""
    screw = 12.0
    r = math.sqrt(x * x + y * y) - radius
    tri = abs(_fract(z * screw - math.atan2(y, x) / math.pi / 2.0) - 0.5)
    return (r - tri / screw) * _SQRT12, r


@kernel
def _nut(x, y, z, a):
    thread, r = _thread(x, y, z, a[0])
    cone = (z - r) * _SQRT12
    hole = max(thread, -(cone + 0.5 * _SQRT12))
    hole = min(hole, -cone - 0.05 * _SQRT12)
    return max(_hex_head(x, y, z, r), -hole)


@kernel
def _bolt(x, y, z, a):
    thread, r = _thread(x, y, z, a[0])
    bolt = max(thread, -(0.5 - abs(z + 0.5)))
    cone = (z - r) * _SQRT12
    bolt = max(bolt, -(cone + _SQRT12))
    return min(bolt, _hex_head(x, y, z, r))


@kernel
def sdf_distance(kind, a, x, y, z):
    """Signed distance of point (x, y, z) (plugin frame) to SDF plugin ``kind`` with numeric
    attributes ``a`` (DEFAULTS filled in)."""
    if kind == TORUS:
        return _torus(x, y, z, a)
    if kind == GEAR:
        return _extrude(z, _gear2d(x, y, a), a[3] / 2.0)
    if kind == BOWL:
        return _bowl(x, y, z, a)
    if kind == NUT:
        return _nut(x, y, z, a)
    return _bolt(x, y, z, a)


@kernel
def sdf_gradient(kind, a, x, y, z, grad):
    """Gradient of `sdf_distance` at (x, y, z) into ``grad`` (3,)."""
    if kind == TORUS:
        lxy = math.sqrt(x * x + y * y)
        q = lxy - a[0]
        lqz = max(math.sqrt(q * q + z * z), 1e-15)      # mjMINVAL
        grad[0] = q * (x / lxy) / lqz
        grad[1] = q * (y / lxy) / lqz
        grad[2] = z / lqz
        return
    d0 = sdf_distance(kind, a, x, y, z)
    grad[0] = (sdf_distance(kind, a, x + _FD_EPS, y, z) - d0) / _FD_EPS
    grad[1] = (sdf_distance(kind, a, x, y + _FD_EPS, z) - d0) / _FD_EPS
    grad[2] = (sdf_distance(kind, a, x, y, z + _FD_EPS) - d0) / _FD_EPS


def sdf_aabb(kind, a):
    """(center xyz, half-sizes xyz) of the box the plugin's shape lies in (sdf_aabb)."""
    if kind == TORUS:
        return np.array([0, 0, 0, a[0] + a[1], a[0] + a[1], a[1]], float)
    if kind == GEAR:
        # 1.75 and 0.11 for the default diameter 2.8 and thickness 0.2 (measured: mujoco 4.0.0's
        # gear meshes have these grids), scaled with them
        return np.array([0, 0, 0, 0.625 * a[1], 0.625 * a[1], 0.55 * a[3]], float)
    if kind == BOWL:
        r = a[1] + a[2]
        return np.array([0, 0, 0, r, r, r], float)
    return np.array([0, 0, 0, 0.6, 0.6, 1.0])


def parse_attributes(kind, values, where="sdf plugin"):
    """Numeric attributes (NATTR,) of plugin ``kind`` from its config strings ('' -> default);
    ValueError for a value that is not a number (MuJoCo's plugin init fails on those)."""
    out = np.zeros(NATTR)
    for i, (name, dflt) in enumerate(zip(ATTRIBUTES[kind], DEFAULTS[kind])):
        v = values[i].strip() if i < len(values) else ""
        if v == "":
            out[i] = dflt
            continue
        try:
            out[i] = float(v)
        except ValueError:
            raise ValueError(f"{where}: config '{name}' = '{v}' is not a number") from None
    return out


class SdfPlugin(Plugin):
    """One of MuJoCo's SDF plugins (module docstring); ``kind`` indexes NAMES."""
    capabilities = SDF

    def __init__(self, kind):
        super().__init__(name=NAMES[kind], attributes=ATTRIBUTES[kind])
        self.kind = kind

    def _attr(self, m, instance):
        return parse_attributes(self.kind, m.__dict__["_plugin_config"][instance],
                                f"{self.name} instance {instance}")

    def init(self, m, d, instance):
        return self._attr(m, instance)

    def sdf_distance(self, point, d, instance):
        a = d.plugin_data[instance]
        return float(sdf_distance(self.kind, a, float(point[0]), float(point[1]),
                                  float(point[2])))

    def sdf_gradient(self, gradient, point, d, instance):
        sdf_gradient(self.kind, d.plugin_data[instance], float(point[0]), float(point[1]),
                     float(point[2]), gradient)

    def sdf_staticdistance(self, point, attributes):
        return float(sdf_distance(self.kind, np.asarray(attributes, float), float(point[0]),
                                  float(point[1]), float(point[2])))

    def sdf_aabb(self, aabb, attributes):
        aabb[:] = sdf_aabb(self.kind, attributes)


def plugins():
    """The five SDF plugins, in NAMES order (registered by engine.plugin.builtin)."""
    return [SdfPlugin(k) for k in range(len(NAMES))]
