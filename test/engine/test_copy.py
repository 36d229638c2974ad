"""copy.copy / copy.deepcopy / pickle of MjModel and MjData, compared with mujoco 4.0.0's bindings:
the same sharing (which copy keeps the model object), independence of the copies, and equal
fields; a copied or unpickled data continues a trajectory exactly as the original does (bitwise:
the same arithmetic on the same numbers)."""
import copy
import pickle

import numpy as np
import pytest

from oracle import TEST_MODELS, mujoco, shared_model

import engine
from engine._layout import DATA_FIELDS, MODEL_FIELDS

SCENES = ["own:constraint_contact.xml", "own:actuators.xml", "menagerie/kuka_iiwa_14/scene.xml"]


def _path(name):
    if name.startswith("own:"):
        return TEST_MODELS / name[4:]
    return shared_model(name)


def _pair(lib, path, nstep=20):
    m = lib.MjModel.from_xml_path(str(path))
    d = lib.MjData(m)
    d.ctrl[:] = 0.3
    for _ in range(nstep):
        lib.mj_step(m, d)
    return m, d


def _assert_models_equal(a, b):
    for name, *_ in MODEL_FIELDS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert a.names == b.names and a.vis == b.vis
    assert [a.body(i).name for i in range(a.nbody)] == [b.body(i).name for i in range(b.nbody)]


def _assert_data_equal(a, b):
    for name, *_ in DATA_FIELDS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert a.time == b.time and a.ncon == b.ncon and a.nefc == b.nefc


@pytest.mark.parametrize("name", SCENES)
def test_sharing_matches_mujoco(name):
    """Which copies keep the model object: the same answers as the bindings give."""
    path = _path(name)
    for lib in (mujoco, engine):
        m, d = _pair(lib, path, 2)
        facts = (copy.copy(d).model is m, copy.deepcopy(d).model is m,
                 pickle.loads(pickle.dumps(d)).model is m, copy.copy(m) is m)
        if lib is mujoco:
            expected = facts
        else:
            assert facts == expected, (facts, expected)
    assert expected == (True, False, False, False)


@pytest.mark.parametrize("name", SCENES)
@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_model_copies_are_independent_and_equal(name, how):
    path = _path(name)
    m, _ = _pair(engine, path, 0)
    c = {"copy": copy.copy, "deepcopy": copy.deepcopy,
         "pickle": lambda x: pickle.loads(pickle.dumps(x))}[how](m)
    _assert_models_equal(m, c)
    # independent, as mujoco's copy: a write to the copy leaves the original
    mj = mujoco.MjModel.from_xml_path(str(path))
    mjc = copy.copy(mj)
    for mm, cc in ((m, c), (mj, mjc)):
        before = mm.geom_size.copy()
        cc.geom_size[:] = 7.0
        cc.opt.timestep = 0.5
        np.testing.assert_array_equal(mm.geom_size, before)
        assert mm.opt.timestep != 0.5
    # the copy simulates
    d = engine.MjData(c)
    engine.mj_step(c, d)


@pytest.mark.parametrize("name", SCENES)
@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_data_copy_continues_the_trajectory(name, how):
    """A copied data, stepped alongside the original, stays bitwise equal to it; the engine's
    trajectory after the copy stays within 1e-6 of mujoco's from the same state."""
    path = _path(name)
    m, d = _pair(engine, path)
    c = {"copy": copy.copy, "deepcopy": copy.deepcopy,
         "pickle": lambda x: pickle.loads(pickle.dumps(x))}[how](d)
    _assert_data_equal(d, c)
    if how != "copy":
        _assert_models_equal(m, c.model)
    mc = c.model
    for _ in range(20):
        engine.mj_step(m, d)
        engine.mj_step(mc, c)
    _assert_data_equal(d, c)
    # independence: the copy's state is its own
    c.qpos[:] += 1.0
    assert not np.array_equal(c.qpos, d.qpos)
    # the same copy made by mujoco continues as ours does
    mjm, mjd = _pair(mujoco, path)
    mjc = {"copy": copy.copy, "deepcopy": copy.deepcopy,
           "pickle": lambda x: pickle.loads(pickle.dumps(x))}[how](mjd)
    for _ in range(20):
        mujoco.mj_step(mjc.model, mjc)
    np.testing.assert_allclose(d.qpos, mjc.qpos, atol=1e-6, err_msg="qpos vs mujoco")


def test_pickle_keeps_one_model_for_two_datas():
    m = engine.MjModel.from_xml_path(str(TEST_MODELS / "actuators.xml"))
    d1, d2 = engine.MjData(m), engine.MjData(m)
    a, b, mm = pickle.loads(pickle.dumps((d1, d2, m)))
    assert a.model is b.model is mm
    engine.mj_step(mm, a)       # paired with the unpickled model: no size check failure
