"""Compiler conformance: real models compiled by our engine and by the official mujoco must agree
field by field (tolerances per field in compile_corpus.FIELDS)."""
import pytest

from oracle import mujoco  # noqa: F401  (skips the module when the oracle is not installed)

import engine
from compile_corpus import corpus, mismatches

# Fields whose compile step is still open: a model differing only in these is an expected failure
# with the reason, never a silent pass.
_ARMATURE = "actuator armature (mujoco 4) is not added to the joint-space inertia yet"
PENDING = {f: _ARMATURE for f in ("dof_M0", "dof_invweight0", "body_invweight0",
                                  "tendon_invweight0", "actuator_acc0")}

CASES = corpus()


@pytest.mark.parametrize("path", [p for _, p in CASES], ids=[n for n, _ in CASES])
def test_compiled_fields_match_mujoco(path):
    if not path.exists():
        pytest.skip(f"{path} not present")
    try:
        theirs = mujoco.MjModel.from_xml_path(str(path))
    except Exception as e:  # mujoco itself rejects it: then we must reject it too
        with pytest.raises((engine.XMLError, NotImplementedError)):
            engine.MjModel.from_xml_path(str(path))
        pytest.skip(f"mujoco rejects this model too: {str(e)[:100]}")
    try:
        ours = engine.MjModel.from_xml_path(str(path))
    except NotImplementedError as e:
        pytest.xfail(f"not supported yet: {e}")
    bad = mismatches(ours, theirs)
    real = [(f, m) for f, m in bad if f not in PENDING]
    assert not real, "\n".join(f"mismatch: {f}: {m}" for f, m in real)
    if bad:
        pytest.xfail("; ".join(sorted({PENDING[f] for f, _ in bad})))
