"""The visualizer's plain structs: camera, options, perturbation, viewport (seed 001,
"Visualization": mjvCamera, mjvOption, mjvPerturb; mjrRect of the renderer).

These are data only: what an abstract camera looks at, which element groups and decorations are
shown, which body a mouse perturbation holds. Programs create and keep them whether or not they
render (dm_control's wrapper subclasses them when it is imported), so they are built here with
MuJoCo's fields and defaults, with the mjv_default* functions that reset them.

The abstract scene (mjvScene, filled by mjv_updateScene) and the rendering context (mjrContext)
are the renderer's: engine/render/gl.py. Figures (mjvFigure) are not built: the class exists
with mjv_defaultFigure's values; drawing figures is not built.
"""
from __future__ import annotations

import numpy as np

from .enums import mjNGROUP, mjVISSTRING, mjtCamera
from .structs import struct_class

MjvCamera = struct_class("MjvCamera", [
    ("type", np.int32, (), int(mjtCamera.mjCAMERA_FREE), "camera type (mjtCamera)"),
    ("fixedcamid", np.int32, (), -1, "model camera shown by a fixed camera"),
    ("trackbodyid", np.int32, (), -1, "body followed by a tracking camera"),
    ("lookat", np.float64, (3,), 0.0, "point looked at, world frame (length)"),
    ("distance", np.float64, (), 2.0, "distance from the lookat point or tracked body "
                                      "(length)"),
    ("azimuth", np.float64, (), 90.0, "azimuth about +z (degrees)"),
    ("elevation", np.float64, (), -45.0, "elevation (degrees; negative looks down)"),
    ("orthographic", np.int32, (), 0, "0 perspective, 1 orthographic"),
], "An abstract camera (MuJoCo's mjvCamera): ``MjvCamera()`` holds mjv_defaultCamera's values.")

# mjvOption's default flags are the "on" column of the viewer's flag table (one home).
_VIS_FLAGS_DEFAULT = tuple(int(on) for _, on, _ in mjVISSTRING)
_GROUPS_DEFAULT = (1, 1, 1) + (0,) * (mjNGROUP - 3)

MjvOption = struct_class("MjvOption", [
    ("label", np.int32, (), 0, "what is labelled (mjtLabel)"),
    ("frame", np.int32, (), 0, "which frames are drawn (mjtFrame)"),
    *[(f"{kind}group", np.uint8, (mjNGROUP,), _GROUPS_DEFAULT,
       f"which {kind} groups are shown (1: shown)")
      for kind in ("geom", "site", "joint", "tendon", "actuator", "flex", "skin")],
    ("flags", np.uint8, (len(_VIS_FLAGS_DEFAULT),), _VIS_FLAGS_DEFAULT,
     "visualization flags, indexed by mjtVisFlag"),
    ("bvh_depth", np.int32, (), 1, "depth of the bounding volume hierarchy drawn"),
    ("flex_layer", np.int32, (), 0, "element layer of 3D flexes drawn"),
], "What the visualizer shows (MuJoCo's mjvOption): ``MjvOption()`` holds mjv_defaultOption's "
   "values.")

MjvPerturb = struct_class("MjvPerturb", [
    ("select", np.int32, (), 0, "selected body (<= 0: none)"),
    ("flexselect", np.int32, (), -1, "selected flex (-1: none)"),
    ("skinselect", np.int32, (), -1, "selected skin (-1: none)"),
    ("active", np.int32, (), 0, "perturbation bits (mjtPertBit)"),
    ("active2", np.int32, (), 0, "secondary perturbation bits (mjtPertBit)"),
    ("refpos", np.float64, (3,), 0.0, "reference position of the selected body (world)"),
    ("refquat", np.float64, (4,), (1.0, 0.0, 0.0, 0.0), "reference orientation (w-first)"),
    ("refselpos", np.float64, (3,), 0.0, "reference position of the selection point (world)"),
    ("localpos", np.float64, (3,), 0.0, "selection point in the body's frame"),
    ("localmass", np.float64, (), 0.0, "spatial inertia at the selection point"),
    ("scale", np.float64, (), 1.0, "mouse motion to space scaling"),
], "A mouse selection and perturbation (MuJoCo's mjvPerturb): ``MjvPerturb()`` holds "
   "mjv_defaultPerturb's values.")

_MjrRect = struct_class("MjrRect", [
    ("left", np.int32, (), 0, "left edge (pixels)"),
    ("bottom", np.int32, (), 0, "bottom edge (pixels)"),
    ("width", np.int32, (), 0, "width (pixels)"),
    ("height", np.int32, (), 0, "height (pixels)"),
], "A viewport rectangle (MuJoCo's mjrRect).")


class MjrRect(_MjrRect):
    """A viewport rectangle (MuJoCo's mjrRect): ``MjrRect(left, bottom, width, height)``,
    pixels."""

    __slots__ = ()

    def __init__(self, left, bottom, width, height):
        super().__init__()
        self.left, self.bottom, self.width, self.height = left, bottom, width, height


def mjv_defaultCamera(cam):
    """Set ``cam`` to the default abstract camera (free, looking at the origin from 2 away)."""
    cam._reset()


def mjv_defaultOption(opt):
    """Set ``opt`` to the default visualization options."""
    opt._reset()


def mjv_defaultPerturb(pert):
    """Set ``pert`` to no selection and no perturbation."""
    pert._reset()


def mjv_defaultFreeCamera(m, cam):
    """Set ``cam`` to the model's free camera: looking at ``m.stat.center`` from 1.5 times
    ``m.stat.extent``, at the azimuth, elevation and projection of ``m.vis.global_``."""
    cam._reset()
    cam.lookat = m.stat.center
    cam.distance = 1.5 * m.stat.extent
    cam.azimuth = m.vis.global_.azimuth
    cam.elevation = m.vis.global_.elevation
    cam.orthographic = m.vis.global_.orthographic


mjMAXLINE, mjMAXLINEPNT = 100, 1001      # lines of a figure; points per line


def _halton(i, base):
    """The i-th element of the van der Corput sequence in ``base`` (in [0, 1))."""
    f, r = 1.0, 0.0
    while i > 0:
        f /= base
        r += f * (i % base)
        i //= base
    return r


# the first lines' colours, then Halton colours in [0.1, 0.9] (well spread, reproducible)
_LINE_RGB = [(1, .3, .3), (.1, 1, .1), (.3, .3, 1), (.1, 1, 1), (1, .2, 1), (1, 1, .1),
             (1, .6, .2), (.6, .7, .4)]


class MjvFigure:
    """A 2D figure (MuJoCo's mjvFigure): line data and how the renderer draws it.
    ``MjvFigure()`` holds mjv_defaultFigure's values. Drawing a figure (mjr_figure) is not
    built; the structure is data programs fill."""

    def __init__(self):
        mjv_defaultFigure(self)


def mjv_defaultFigure(fig):
    """Set ``fig`` to the default figure: flags (legend, extend, tick labels on), colours, a
    2x2 grid, ranges [0, 1], no data, each line's colour."""
    fig.flg_legend, fig.flg_ticklabel, fig.flg_extend = 1, np.array([1, 1], np.int32), 1
    fig.flg_barplot = fig.flg_selection = fig.flg_symmetric = 0
    fig.linewidth, fig.gridwidth = 3.0, 1.0
    fig.gridsize = np.array([2, 2], np.int32)
    fig.gridrgb = np.full(3, 0.4, np.float32)
    fig.figurergba = np.array([0, 0, 0, 1], np.float32)
    fig.panergba = np.array([0, 0, 0, 1], np.float32)
    fig.legendrgba = np.array([0, 0, 0, 0.3], np.float32)
    fig.textrgb = np.ones(3, np.float32)
    fig.range = np.array([[0, 1], [0, 1]], np.float32)
    fig.xformat, fig.yformat, fig.minwidth = "%.0f", "%.2g", "XXX"
    fig.title = fig.xlabel = ""
    fig.legendoffset, fig.subplot, fig.highlightid, fig.selection = 0, 0, -1, 0.0
    fig.highlight = np.zeros(2, np.int32)
    fig.linename = np.zeros(mjMAXLINE, "S100")
    fig.linepnt = np.zeros(mjMAXLINE, np.int32)
    fig.linedata = np.zeros((mjMAXLINE, 2 * mjMAXLINEPNT), np.float32)
    rgb = [_LINE_RGB[i] if i < len(_LINE_RGB) else
           tuple(0.1 + 0.8 * _halton(i, b) for b in (2, 3, 5)) for i in range(mjMAXLINE)]
    fig.linergb = np.array(rgb, np.float32)
    for k in ("xaxispixel", "yaxispixel"):
        setattr(fig, k, np.zeros(2, np.int32))
    for k in ("xaxisdata", "yaxisdata"):
        setattr(fig, k, np.zeros(2, np.float32))


__all__ = ["MjvCamera", "MjvOption", "MjvPerturb", "MjrRect", "MjvFigure", "mjv_defaultFigure",
           "mjv_defaultCamera", "mjv_defaultOption", "mjv_defaultPerturb", "mjv_defaultFreeCamera"]
