"""Saving MJCF (seed 004, "saving models"): for every model of the compiler conformance corpus,
file -> Spec -> MJCF text (engine.xml.writer) -> compile gives the model compiling the file gives,
in this engine and in mujoco 4.0.0.

Tolerances: the engine's model of the written file against the engine's model of the file with
the compiler conformance tolerances (compile_corpus.FIELDS); mujoco's against mujoco's on every
same-named MjModel field, exact for integers, rtol 1e-9 / atol 1e-12 for floats (frames are written
as the model gave them, so mujoco does the same arithmetic; a replicate copy's position is summed
here, measured within 1e-12 relative of mujoco's on the whole corpus). The models outside a fast
subset run under the ``slow`` marker; the large corpus is bench/save_census.py."""

import numpy as np
import pytest

from oracle import TEST_MODELS, mujoco

import engine
from compile_corpus import corpus, mismatches
from engine.compiler import parse_file
from engine.xml.writer import spec_to_xml

CASES = corpus()
FAST = {"menagerie/kuka_iiwa_14/scene.xml", "mujoco/humanoid/22_humanoids.xml",
        "mujoco/replicate/bunnies.xml", "dm_control/manipulator", "own/actuators.xml",
        "own/attach_prefix.xml", "own/passive.xml", "own/replicate_multiaxis.xml", "gymnasium/ant",
        "menagerie/shadow_hand/right_hand.xml"}


def mujoco_mismatches(a, b):
    """Same-named fields of two mujoco models that differ (see the module docstring)."""
    bad = []
    for f in dir(a):
        if f.startswith("_"):
            continue
        x, y = getattr(a, f), getattr(b, f)
        if isinstance(x, np.ndarray):
            if x.shape != y.shape:
                bad.append(f"{f}: shape {x.shape} vs {y.shape}")
            elif x.dtype.kind == "f":
                if not np.allclose(x, y, rtol=1e-9, atol=1e-12, equal_nan=True):
                    bad.append(f"{f}: max diff {np.nanmax(np.abs(x - y))}")
            elif not np.array_equal(x, y):
                bad.append(f"{f}: differ")
        elif isinstance(x, (int, float, bytes)) and x != y:
            bad.append(f"{f}: {x!r} vs {y!r}")
    return bad


def check_round_trip(path, tmp_path):
    """Compile ``path`` and its written MJCF in both programs; assert equal models."""
    try:
        theirs = mujoco.MjModel.from_xml_path(str(path))
    except Exception as e:
        pytest.skip(f"mujoco rejects this model: {str(e)[:80]}")
    try:
        ours = engine.MjModel.from_xml_path(str(path))
    except NotImplementedError as e:
        pytest.skip(f"not supported by the engine: {str(e)[:80]}")
    out = tmp_path / "saved.xml"
    out.write_text(spec_to_xml(parse_file(str(path))))
    ours2 = engine.MjModel.from_xml_path(str(out))
    bad = mismatches(ours2, ours)
    assert not bad, "\n".join(f"engine mismatch: {f}: {m}" for f, m in bad)
    theirs2 = mujoco.MjModel.from_xml_path(str(out))
    bad = mujoco_mismatches(theirs2, theirs)
    assert not bad, "\n".join(f"mujoco mismatch: {b}" for b in bad)


@pytest.mark.parametrize("path", [pytest.param(p, marks=() if n in FAST else pytest.mark.slow)
                                  for n, p in CASES], ids=[n for n, _ in CASES])
def test_written_mjcf_compiles_to_the_same_model(path, tmp_path):
    if not path.exists():
        pytest.skip(f"{path} not present")
    check_round_trip(path, tmp_path)


def test_save_last_xml(tmp_path):
    """mj_saveLastXML writes the last loaded model, whole keyframes included (an attach's
    keyframe gives values for its own joints only); an edited model is refused."""
    path = TEST_MODELS / "attach_prefix.xml"
    m = engine.MjModel.from_xml_path(str(path))
    out = tmp_path / "last.xml"
    engine.mj_saveLastXML(str(out), m)
    for lib, ref in ((engine, m), (mujoco, mujoco.MjModel.from_xml_path(str(path)))):
        m2 = lib.MjModel.from_xml_path(str(out))
        for f in ("key_qpos", "body_pos", "body_quat", "geom_size", "jnt_range"):
            np.testing.assert_allclose(getattr(m2, f), getattr(ref, f), atol=1e-12, err_msg=f)
    m = engine.MjModel.from_xml_path(str(path))
    m.geom_size[0, 0] = 3.0
    with pytest.raises(NotImplementedError, match="edited after compiling"):
        engine.mj_saveLastXML(str(out), m)
