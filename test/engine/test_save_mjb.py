"""MJB, MuJoCo's binary model format of version 4.0.0 (engine.mjb): files mujoco 4.0.0 writes load
into this engine with every field equal to mujoco's, and the engine writes them back byte for
byte (mujoco loads them into an equal model), over the compiler conformance corpus. A model this
engine compiled that lacks arrays mujoco's file needs makes saving a NotImplementedError naming
them."""
import numpy as np
import pytest

from oracle import TEST_MODELS, mujoco, mujoco_model_or_skip

import engine
from compile_corpus import corpus
from engine._layout import MODEL_FIELDS

CASES = corpus()
FAST = {"menagerie/kuka_iiwa_14/scene.xml", "mujoco/humanoid/humanoid.xml", "own/actuators.xml",
        "own/hfield_scene.xml", "own/texture_builtin.xml", "dm_control/manipulator",
        "menagerie/shadow_hand/right_hand.xml"}


def _oracle(mm, name):
    for prefix, sub in (("opt_", "opt"), ("stat_", "stat")):
        if name.startswith(prefix):
            return getattr(getattr(mm, sub), name[len(prefix):])
    return getattr(mm, name)


def assert_equal_to_mujoco(m, mm):
    """Every engine field equals mujoco's field of that name exactly, names and m.vis too."""
    for name, *_ in MODEL_FIELDS:
        y = np.asarray(_oracle(mm, name))
        x = np.asarray(getattr(m, name))
        np.testing.assert_array_equal(x.reshape(y.shape), y, err_msg=f"mismatch: {name}")
    assert m.names == mm.names
    for g in ("global_", "quality", "headlight", "map", "scale", "rgba"):
        gm, gmm = getattr(m.vis, g), getattr(mm.vis, g)
        for f in type(gm)._FIELDS:
            y = np.asarray(getattr(gmm, f))
            if y.size == 0:     # the bindings show rgba.bv / rgba.bvactive as empty arrays;
                continue        # the file's bytes (compared below) hold them
            np.testing.assert_array_equal(getattr(gm, f), y, err_msg=f"vis.{g}.{f}")


@pytest.mark.parametrize("path", [pytest.param(p, marks=() if n in FAST else pytest.mark.slow)
                                  for n, p in CASES], ids=[n for n, _ in CASES])
def test_mjb_round_trip_both_ways(path, tmp_path):
    mm = mujoco_model_or_skip(path)
    theirs = tmp_path / "mujoco.mjb"
    mujoco.mj_saveModel(mm, str(theirs), None)
    m = engine.MjModel.from_binary_path(str(theirs))          # mujoco -> engine
    assert_equal_to_mujoco(m, mm)
    ours = tmp_path / "engine.mjb"
    engine.mj_saveModel(m, str(ours))                         # engine -> mujoco
    assert ours.read_bytes() == theirs.read_bytes()
    assert engine.mj_sizeModel(m) == mujoco.mj_sizeModel(mm)
    mm2 = mujoco.MjModel.from_binary_path(str(ours))
    for f in dir(mm):
        x = getattr(mm, f)
        if isinstance(x, np.ndarray):
            np.testing.assert_array_equal(getattr(mm2, f), x, err_msg=f"mujoco reload: {f}")


def test_loaded_model_simulates_as_mujoco(tmp_path):
    """The loaded model is a working engine model: 100 steps follow mujoco's to 1e-9."""
    mm = mujoco.MjModel.from_xml_path(str(TEST_MODELS / "constraint_contact.xml"))
    mujoco.mj_saveModel(mm, str(tmp_path / "m.mjb"), None)
    m = engine.MjModel.from_binary_path(str(tmp_path / "m.mjb"))
    d, md = engine.MjData(m), mujoco.MjData(mm)
    for _ in range(100):
        engine.mj_step(m, d)
        mujoco.mj_step(mm, md)
    np.testing.assert_allclose(d.qpos, md.qpos, atol=1e-9)


def test_buffer_and_errors(tmp_path):
    mm = mujoco.MjModel.from_xml_path(str(TEST_MODELS / "actuators.xml"))
    mujoco.mj_saveModel(mm, str(tmp_path / "m.mjb"), None)
    m = engine.MjModel.from_binary_path(str(tmp_path / "m.mjb"))
    buf = np.zeros(engine.mj_sizeModel(m), np.uint8)
    ref = np.zeros(mujoco.mj_sizeModel(mm), np.uint8)
    engine.mj_saveModel(m, None, buf)
    mujoco.mj_saveModel(mm, None, ref)
    np.testing.assert_array_equal(buf, ref)
    with pytest.raises(ValueError, match="at least"):
        engine.mj_saveModel(m, None, np.zeros(10, np.uint8))
    (tmp_path / "bad.mjb").write_bytes(b"\x00" * 40)
    with pytest.raises(ValueError, match="not a MuJoCo binary model"):
        engine.MjModel.from_binary_path(str(tmp_path / "bad.mjb"))
    compiled = engine.MjModel.from_xml_path(str(TEST_MODELS / "convex_pairs.xml"))
    engine.mj_saveModel(compiled, str(tmp_path / "x.mjb"))   # mesh normals are built now
    del compiled.__dict__["mesh_normal"]      # an array the compiler did not build is named
    with pytest.raises(NotImplementedError, match="mesh_normal") as e:
        engine.mj_saveModel(compiled, str(tmp_path / "x.mjb"))
    assert "bvh" not in str(e.value) and "names_map" not in str(e.value)   # built


ENGINE_SAVES = ["constraint_contact.xml", "collision_filter.xml", "fluid.xml", "hfield_inline.xml",
                "actuators.xml", "sensors.xml", "tendon_trees.xml"]


@pytest.mark.parametrize("name", ENGINE_SAVES)
def test_engine_compiled_model_loads_in_mujoco(name, tmp_path):
    """A model this engine compiled, saved by it, loads in mujoco 4.0.0 with every array equal
    to mujoco's own compile of the file (ints exact, reals 1e-12); the file has mujoco's size
    (not its bytes: the engine's inertia and invweight0 differ from mujoco's in the last bits,
    and narena is the engine's budget where <size memory> is absent)."""
    path = TEST_MODELS / name
    mm = mujoco.MjModel.from_xml_path(str(path))
    engine.mj_saveModel(engine.MjModel.from_xml_path(str(path)), str(tmp_path / "e.mjb"))
    assert (tmp_path / "e.mjb").stat().st_size == mujoco.mj_sizeModel(mm)
    m2 = mujoco.MjModel.from_binary_path(str(tmp_path / "e.mjb"))
    assert_arrays_equal(m2, mm)
    assert m2.narena == engine.data.DEFAULT_MEMORY


def assert_arrays_equal(m2, mm):
    """Every array of mujoco model ``m2`` equals mujoco model ``mm``'s (integers exact, reals
    rtol/atol 1e-12)."""
    for f in dir(mm):
        y = getattr(mm, f)
        if not isinstance(y, np.ndarray) or f == "_sizes":
            continue
        x = getattr(m2, f)
        if y.dtype.kind in "iub":
            np.testing.assert_array_equal(x, y, err_msg=f"mismatch: {f}")
        else:
            np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-12, err_msg=f"mismatch: {f}")
