"""Names of the `mujoco` module that programs touch beyond the physics, against mujoco 4.0.0:
enums and string tables, object type names, the visualizer's plain structs, warning texts, the
names buffer, the list-like d.warning / d.solver, and dir() of MjModel / MjData."""
from __future__ import annotations

import copy
from enum import EnumMeta

import numpy as np
import pytest

from oracle import mujoco

import engine
from engine import enums


def test_every_engine_enum_matches_mujoco():
    """Each mjt* enum of the engine has mujoco's members with mujoco's values."""
    checked = 0
    for name in dir(enums):
        ours = getattr(enums, name)
        if not (name.startswith("mjt") and isinstance(ours, EnumMeta)):
            continue
        theirs = getattr(mujoco, name)
        assert {k: int(v) for k, v in ours.__members__.items()} == \
            {k: int(v) for k, v in theirs.__members__.items()}, name
        checked += 1
    assert checked >= 40


@pytest.mark.parametrize("name", ["mjDISABLESTRING", "mjENABLESTRING", "mjTIMERSTRING",
                                  "mjLABELSTRING", "mjFRAMESTRING", "mjVISSTRING", "mjRNDSTRING",
                                  "mjNGROUP", "mjNFLUID", "mjNPOLY", "mjNSENS", "mjNISLAND",
                                  "mjNSOLVER", "mjVERSION_HEADER", "mjMAXVAL", "mjMINVAL"])
def test_constants(name):
    assert getattr(engine, name) == getattr(mujoco, name)


def test_object_type_names():
    for t in list(range(27)) + [100, 101, 102]:
        assert engine.mju_type2Str(t) == mujoco.mju_type2Str(t)
    for s in ("body", "joint", "jnt", "geom", "frame", "plugin", "nonsense", ""):
        assert engine.mju_str2Type(s) == mujoco.mju_str2Type(s)
    assert engine.mju_str2Type(b"geom") == mujoco.mjtObj.mjOBJ_GEOM


@pytest.mark.parametrize("cls", ["MjvCamera", "MjvOption", "MjvPerturb"])
def test_visualizer_structs_defaults(cls):
    ours, theirs = getattr(engine, cls)(), getattr(mujoco, cls)()
    assert repr(ours) == repr(theirs)
    c = copy.copy(ours)
    assert c == ours


def test_default_functions():
    xml = """<mujoco><visual><global azimuth="30" elevation="-10" orthographic="true"/></visual>
             <statistic center="1 2 3" extent="4"/></mujoco>"""
    for lib in (engine, mujoco):
        m = lib.MjModel.from_xml_string(xml)
        cam, opt, pert = lib.MjvCamera(), lib.MjvOption(), lib.MjvPerturb()
        cam.type, cam.distance, opt.flags[:], pert.select = 2, 9.0, 0, 3
        lib.mjv_defaultFreeCamera(m, cam)
        lib.mjv_defaultOption(opt)
        lib.mjv_defaultPerturb(pert)
        if lib is engine:
            ours = (repr(cam), repr(opt), repr(pert))
        else:
            assert ours == (repr(cam), repr(opt), repr(pert))
    r = engine.MjrRect(1, 2, 3, 4)
    assert repr(r) == repr(mujoco.MjrRect(1, 2, 3, 4))


def test_default_figure_as_mujoco():
    """MjvFigure() and mjv_defaultFigure: every field as mujoco's."""
    ours, theirs = engine.MjvFigure(), mujoco.MjvFigure()
    theirs.linergb[0] = 0
    engine.mjv_defaultFigure(ours)
    mujoco.mjv_defaultFigure(theirs)
    names = [k for k in dir(theirs) if not k.startswith("_")]
    for k in names:
        a, b = getattr(ours, k), getattr(theirs, k)
        if isinstance(b, str):
            assert a == b, k
        else:
            assert np.allclose(np.asarray(a, float) if np.asarray(b).dtype.kind != "S" else 0,
                               np.asarray(b, float) if np.asarray(b).dtype.kind != "S" else 0,
                               atol=1e-6), k
            assert np.asarray(a).shape == np.asarray(b).shape, k


def test_warning_texts_and_handler():
    for w in range(int(mujoco.mjtWarning.mjNWARNING)):
        assert engine.mju_warningText(w, 5) == mujoco.mju_warningText(w, 5)
    got = []
    handler = got.append
    engine.set_mju_user_warning(handler)
    try:
        assert engine.get_mju_user_warning() is handler
        m = engine.MjModel.from_xml_string("<mujoco/>")
        engine.messages.warn(engine.MjData(m), engine.mjtWarning.mjWARN_BADQVEL, 0)
    finally:
        engine.set_mju_user_warning(None)
    assert got == ["Nan, Inf or huge value in QVEL at DOF 0. The simulation is unstable. "
                   "Time = 0.0000."]


NAMES = """<mujoco model="M">
 <asset><texture name="T" builtin="checker" width="8" height="8" type="2d"/><material name="MA"/>
  <mesh name="ME" vertex="0 0 0 1 0 0 0 1 0 0 0 1"/><hfield name="H" nrow="2" ncol="2" size="1 1 1 1"/>
 </asset>
 <custom><numeric name="N" data="1"/><text name="TX" data="x"/>
  <tuple name="TU"><element objtype="body" objname="B"/></tuple></custom>
 <worldbody><light name="L"/><camera name="C"/><site name="S"/>
  <body name="B"><joint name="J"/><geom name="G" size=".1"/><site/></body>
  <body name="B2"><joint name="J2"/><geom size=".1"/></body></worldbody>
 <contact><pair name="P" geom1="G" geom2="G"/><exclude name="X" body1="B" body2="B2"/></contact>
 <equality><joint name="E" joint1="J" joint2="J2"/></equality>
 <tendon><fixed name="TE"><joint joint="J" coef="1"/></fixed></tendon>
 <actuator><motor name="A" joint="J"/></actuator><sensor><jointpos name="SE" joint="J"/></sensor>
 <keyframe><key name="K"/></keyframe>
</mujoco>"""


def test_names_buffer_and_addresses():
    ours, theirs = engine.MjModel.from_xml_string(NAMES), mujoco.MjModel.from_xml_string(NAMES)
    assert ours.names == theirs.names and ours.nnames == theirs.nnames
    for f in engine.model.NAME_ADR_FIELDS:
        assert np.array_equal(getattr(ours, f), getattr(theirs, f)), f


def test_fields_listed_by_dir():
    """Programs that wrap the bindings' classes enumerate dir(mujoco.MjModel) / MjData."""
    for f in ("body_pos", "nq", "opt", "stat", "vis", "names", "name_bodyadr"):
        assert f in dir(engine.MjModel) and f in dir(mujoco.MjModel)
    for f in ("qpos", "xpos", "contact", "warning", "efc_J", "ncon"):
        assert f in dir(engine.MjData) and f in dir(mujoco.MjData)
    m = engine.MjModel.from_xml_string(NAMES)
    assert m.body_pos is m.__dict__["body_pos"]   # the instance's view, not the declaration


def test_warning_and_solver_lists():
    for lib in (engine, mujoco):
        m = lib.MjModel.from_xml_string(NAMES)
        d = lib.MjData(m)
        w = d.warning
        assert len(w) == 7 and w.number.shape == (7,) and w.lastinfo.shape == (7,)
        w.number[3] = 2
        assert d.warning[3].number == 2
        assert d.solver.improvement.shape == (mujoco.mjNISLAND * mujoco.mjNSOLVER,)
        assert d.solver.nactive.dtype == np.int32
