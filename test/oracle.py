"""The official `mujoco` as the test oracle: load the same model in both engines and compare.

Only tests and benchmarks import this module (engine/ and mj_ros/ never import mujoco).
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from engine._layout import MODEL_FIELDS, MODEL_SIZES  # noqa: E402
from engine.model import NAMED_KINDS, MjModel  # noqa: E402


def package_dir(pkg: str, sub: str = "") -> str:
    """Directory of an installed package's data (e.g. gymnasium's MuJoCo assets), with a trailing
    slash; a path that does not exist when the package is absent (tests skip on it)."""
    import importlib.util
    spec = importlib.util.find_spec(pkg)
    base = os.path.dirname(spec.origin) if spec is not None else os.path.join("/nonexistent", pkg)
    return os.path.join(base, sub, "")


GYM = package_dir("gymnasium", "envs/mujoco/assets")
DM = package_dir("dm_control", "suite")

SHARED = Path(__file__).resolve().parents[2] / "shared"
MODELS = Path(os.environ.get("MJ_ROS_SHARED_MODELS", SHARED / "models"))
TEST_MODELS = Path(__file__).resolve().parent / "models"


def shared_model(rel):
    """Path of a model under ../shared/models; skips the test (with the reason) when absent."""
    p = MODELS / rel
    if not p.exists():
        pytest.skip(f"{p} not present (../shared/models is only beside the checkout in CI/dev)")
    return p


def mujoco_model_or_skip(path):
    """mujoco's MjModel of the file ``path``; the test is skipped when the file is absent or
    mujoco rejects it (a corpus test then has nothing to compare against)."""
    if not Path(path).exists():
        pytest.skip(f"{path} not present")
    try:
        return mujoco.MjModel.from_xml_path(str(path))
    except Exception as e:
        pytest.skip(f"mujoco rejects this model: {str(e)[:80]}")


def model_from_mujoco(mjm) -> MjModel:
    """Our MjModel with every field copied from an official mujoco.MjModel.

    Lets the dynamics stages be tested on exactly the oracle's compiled model, independently of our
    compiler. Fields our table has that mujoco lacks (or shapes that differ) are reported.
    """
    sizes = {k: int(getattr(mjm, k)) for k in MODEL_SIZES if hasattr(mjm, k)}
    values = {}
    for name, _, rows, cols in MODEL_FIELDS:
        if name.startswith("opt_"):
            src = getattr(mjm.opt, name[4:], None)
        elif name.startswith("stat_"):
            src = getattr(mjm.stat, name[5:], None)
        else:
            src = getattr(mjm, name, None)
        if src is None:
            continue
        values[name] = np.asarray(src)
    names = {}
    for kind, (_, objtype, size) in NAMED_KINDS.items():
        n = sizes.get(size, 0)
        names[kind] = [mujoco.mj_id2name(mjm, int(objtype), i) for i in range(n)]
    return MjModel(sizes, values, names)


def compare(a, b, fields, rtol=1e-6, atol=1e-8, what=""):
    """Assert a.<field> == b.<field> for each field, to rtol/atol, with a named mismatch."""
    for f in fields:
        x = np.asarray(getattr(a, f), dtype=float)
        y = np.asarray(getattr(b, f), dtype=float)
        assert x.shape == y.shape, f"{what} shape mismatch: {f} {x.shape} vs {y.shape}"
        np.testing.assert_allclose(x, y, rtol=rtol, atol=atol, err_msg=f"{what} mismatch: {f}")


def collide_both(mm, qpos):
    """Contacts at qpos from mujoco (mj_forward) and from ours (kinematics + collision only),
    ours on a copy of mujoco's compiled model: (mujoco data, our data)."""
    import engine
    from engine.collision import mj_collision
    from engine.data import MjData
    md = mujoco.MjData(mm)
    md.qpos[:] = qpos
    mujoco.mj_forward(mm, md)
    m = model_from_mujoco(mm)
    d = MjData(m)
    d.qpos[:] = qpos
    engine.mj_kinematics(m, d)
    mj_collision(m, d)
    return md, d
