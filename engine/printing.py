"""Text dumps of a model and a data for debugging (seed 001 "API reference", printing:
mj_printModel, mj_printData, mj_printFormattedModel, mj_printFormattedData).

The layout is mujoco's: a version line and the model's name; SIZES (the non-zero sizes),
OPTION, STATISTIC; then one block per element ("BODY 0:", "JOINT 0:", "GEOM 3:" ...) listing
the element's name and each of its mjModel fields on one line (``  body_mass  4.2e+03``); for
data, the scalar sizes, TIME, then one block per mjData array (``QPOS``, ``XPOS`` ...), a row
of the array per line. Numbers are written with ``float_format`` (a printf format for one
number; mujoco's default is ``% -9.2g``), integers as integers. The fields are the engine's
(engine/_layout.py), in its order, so a field the engine does not keep is absent and the line
order within a block can differ from mujoco's; test_api_support3.py compares blocks, names and
numbers with mujoco's files.
"""
from __future__ import annotations

import numpy as np

from ._layout import DATA_FIELDS, MODEL_FIELDS, MODEL_SIZES
from .enums import mjtObj
from .names import mj_id2name
from .version import mj_versionString

DEFAULT_FORMAT = "% -9.2g"

# the element blocks of the model dump: size name -> (header, object type for names)
_BLOCKS = (("nbody", "BODY", mjtObj.mjOBJ_BODY), ("njnt", "JOINT", mjtObj.mjOBJ_JOINT),
           ("nv", "DOF", None), ("ntree", "TREE", None), ("ngeom", "GEOM", mjtObj.mjOBJ_GEOM),
           ("nsite", "SITE", mjtObj.mjOBJ_SITE), ("ncam", "CAMERA", mjtObj.mjOBJ_CAMERA),
           ("nlight", "LIGHT", mjtObj.mjOBJ_LIGHT), ("nflex", "FLEX", mjtObj.mjOBJ_FLEX),
           ("nmesh", "MESH", mjtObj.mjOBJ_MESH), ("nskin", "SKIN", mjtObj.mjOBJ_SKIN),
           ("nhfield", "HFIELD", mjtObj.mjOBJ_HFIELD),
           ("ntex", "TEXTURE", mjtObj.mjOBJ_TEXTURE),
           ("nmat", "MATERIAL", mjtObj.mjOBJ_MATERIAL), ("npair", "PAIR", mjtObj.mjOBJ_PAIR),
           ("nexclude", "EXCLUDE", mjtObj.mjOBJ_EXCLUDE),
           ("neq", "EQUALITY", mjtObj.mjOBJ_EQUALITY),
           ("ntendon", "TENDON", mjtObj.mjOBJ_TENDON), ("nu", "ACTUATOR", mjtObj.mjOBJ_ACTUATOR),
           ("nsensor", "SENSOR", mjtObj.mjOBJ_SENSOR),
           ("nnumeric", "NUMERIC", mjtObj.mjOBJ_NUMERIC),
           ("ntext", "TEXT", mjtObj.mjOBJ_TEXT), ("ntuple", "TUPLE", mjtObj.mjOBJ_TUPLE),
           ("nkey", "KEY", mjtObj.mjOBJ_KEY))


def _fmt(value, float_format):
    if isinstance(value, (bool, np.bool_)) or np.issubdtype(type(value), np.integer):
        return f"{int(value)} "
    return (float_format % float(value)) + " "


def _row(values, float_format):
    return "".join(_fmt(v, float_format) for v in np.asarray(values).reshape(-1))


def _model_lines(m, ff):
    out = [f"MuJoCo version {mj_versionString()}", f"model name     {_model_name(m)}", "",
           "SIZES"]
    for s in MODEL_SIZES:
        v = getattr(m, s, 0)
        if isinstance(v, (int, np.integer)) and v:
            out.append(f"  {s:<20}{int(v)}")
    out += ["", "OPTION"]
    opt = m.opt
    for name in sorted(type(opt)._FIELDS) if hasattr(type(opt), "_FIELDS") else []:
        out.append(f"  {name:<20}{_row(getattr(opt, name), ff)}")
    out += ["", "STATISTIC"]
    for name in ("meaninertia", "meanmass", "meansize", "extent", "center"):
        out.append(f"  {name:<20}{_row(getattr(m.stat, name), ff)}")
    out += ["", f"qpos0                 {_row(m.qpos0, ff)}", "",
            f"qpos_spring           {_row(m.qpos_spring, ff)}", ""]
    fields = {}
    for name, _dt, rows, _cols in MODEL_FIELDS:
        if isinstance(rows, str) and hasattr(m, name):
            fields.setdefault(rows, []).append(name)
    for size, header, objtype in _BLOCKS:
        n = int(getattr(m, size, 0) or 0)
        if not n or size not in fields:
            continue
        out.append("")
        for i in range(n):
            out.append(f"{header} {i}:")
            if objtype is not None:
                out.append(f"  {'name':<22}{mj_id2name(m, int(objtype), i) or ''}")
            for name in fields[size]:
                arr = np.asarray(getattr(m, name))
                if arr.ndim == 0 or len(arr) != n:
                    continue
                out.append(f"  {name:<22}{_row(arr[i], ff)}")
            out.append("")
    return out


def _model_name(m):
    return mj_id2name(m, int(mjtObj.mjOBJ_MODEL), 0) or "MuJoCo Model"


def _write(filename, lines):
    with open(filename, "w") as f:
        f.write("\n".join(lines) + "\n")


def mj_printFormattedModel(m, filename, float_format):
    """Write model ``m`` as text to ``filename``, numbers in ``float_format``."""
    _write(filename, _model_lines(m, str(float_format)))


def mj_printModel(m, filename):
    """Write model ``m`` as text to ``filename`` (mujoco's number format)."""
    mj_printFormattedModel(m, filename, DEFAULT_FORMAT)


_DATA_SCALARS = ("ne", "nf", "nl", "nefc", "nJ", "ncon", "nisland")


# sparse matrices printed row by row as "column: value" pairs: value field -> (rownnz, rowadr,
# colind) and whether the structure is the model's or the data's
_SPARSE = {"M": ("M_rownnz", "M_rowadr", "M_colind", "m"),
           "qLD": ("M_rownnz", "M_rowadr", "M_colind", "m"),
           "qH": ("M_rownnz", "M_rowadr", "M_colind", "m"),
           "qDeriv": ("D_rownnz", "D_rowadr", "D_colind", "m"),
           "actuator_moment": ("moment_rownnz", "moment_rowadr", "moment_colind", "d")}
# index lists printed up to their counts
_COUNTED = {"body_awake_ind": "nbody_awake", "parent_awake_ind": "nparent_awake",
            "dof_awake_ind": "nv_awake"}


def _sparse_lines(m, d, name, ff):
    nnz, adr, col, src = _SPARSE[name]
    o = m if src == "m" else d
    val, cols = np.asarray(getattr(d, name)), np.asarray(getattr(o, col))
    out = []
    for r in range(len(getattr(o, nnz))):
        a, n = int(getattr(o, adr)[r]), int(getattr(o, nnz)[r])
        c = cols.reshape(-1)[a:a + n]
        # the engine keeps actuator_moment dense (nu x nv): its row's values at the columns
        v = val[r, c] if val.ndim == 2 else val.reshape(-1)[a:a + n]
        out.append("    " + "  ".join(f"{int(ci)}: {_fmt(vi, ff)}" for ci, vi in zip(c, v)))
    return out


def _data_lines(m, d, ff):
    out = ["SIZES"]
    for s in _DATA_SCALARS:
        if hasattr(d, s):
            out.append(f"  {s:<22}{int(getattr(d, s))}")
    out += ["", f"TIME = {_fmt(d.time, ff)}", ""]
    for name, _dt, rows, _cols in DATA_FIELDS:
        if not isinstance(rows, str) or name.startswith(("efc_", "contact_")):
            continue
        try:
            arr = np.asarray(getattr(d, name))
        except Exception:   # noqa: BLE001 (an engine workspace not exposed as mjData's)
            continue
        if arr.size == 0:
            continue
        out.append(name.upper())
        if name in _SPARSE and all(hasattr(m if _SPARSE[name][3] == "m" else d, a)
                                   for a in _SPARSE[name][:3]):
            out += _sparse_lines(m, d, name, ff)
        elif arr.dtype.kind in "iub" and (arr.ndim == 1 or arr.shape[1:] == (1,)):
            n = int(getattr(d, _COUNTED[name])) if name in _COUNTED else len(arr)
            out.append(f"  {_row(arr.reshape(-1)[:n], ff)}")        # an index list: one line
        else:
            rows_ = arr.reshape(len(arr), -1) if arr.ndim else arr.reshape(1, 1)
            out += [f"  {_row(r, ff)}" for r in rows_]
        out.append("")
    return out


def mj_printFormattedData(m, d, filename, float_format):
    """Write data ``d`` of model ``m`` as text to ``filename``, numbers in ``float_format``."""
    _write(filename, _data_lines(m, d, str(float_format)))


def mj_printData(m, d, filename):
    """Write data ``d`` of model ``m`` as text to ``filename`` (mujoco's number format)."""
    mj_printFormattedData(m, d, filename, DEFAULT_FORMAT)


__all__ = ["mj_printModel", "mj_printFormattedModel", "mj_printData", "mj_printFormattedData"]
