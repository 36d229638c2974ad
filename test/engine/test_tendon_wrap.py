"""Tendon wrapping around cylinders and spheres with and without side sites (engine/tendon.py
`wrap`), against the official mujoco over many random placements of the far end and the side
site: ten_length, the wrap points (wrap_xpos) and ten_J.

MuJoCo 4.0.0's side-site rule is not the one of its older public sources (see
`engine.tendon.wrap_circle`); it was measured with this kind of sampling. Lengths agree to 1e-9,
Jacobians to 1e-8, wrap points to POINT_ATOL.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from oracle import model_from_mujoco, mujoco

from engine.data import MjData
from engine.smooth import mj_kinematics, mj_tendon

MODEL = Path(__file__).resolve().parents[1] / "models" / "wrap_sidesite.xml"
N = 4000
# wrap points (x, y, z) in m: a side site inside the geom finds its point by Newton steps that
# stop at a residual of 1e-6 (as MuJoCo's): the two engines' points differ by up to ~5e-8 there
POINT_ATOL = 1e-7


def _placements(rng, n, planar):
    """qpos rows (side x y z, end x y z): side sites and far ends around the geoms, outside
    and inside their radius, at random heights unless ``planar``."""
    q = np.zeros((n, 6))
    for k, off in ((0, 0), (1, 3)):
        ang = rng.uniform(-np.pi, np.pi, n)
        r = rng.uniform(0.03 if k == 0 else 0.12, 0.6 if k == 0 else 0.8, n)
        q[:, off] = r * np.cos(ang)
        q[:, off + 1] = r * np.sin(ang)
        if not planar:
            q[:, off + 2] = rng.uniform(-0.3, 0.3, n)
    return q


@pytest.mark.parametrize("planar", [True, False], ids=["planar", "3d"])
def test_wrap_matches_mujoco(planar):
    theirs = mujoco.MjModel.from_xml_path(str(MODEL))
    td = mujoco.MjData(theirs)
    ours = model_from_mujoco(theirs)
    od = MjData(ours)
    rng = np.random.default_rng(7 if planar else 8)
    bad = np.zeros(3, int)
    wrapped = np.zeros(3, int)
    for q in _placements(rng, N, planar):
        td.qpos[:] = q
        od.qpos[:] = q
        mujoco.mj_kinematics(theirs, td)
        mujoco.mj_tendon(theirs, td)
        mj_kinematics(ours, od)
        mj_tendon(ours, od)
        for t in range(3):
            wrapped[t] += td.ten_wrapnum[t] == 4
            a, n = td.ten_wrapadr[t], td.ten_wrapnum[t]
            ours_pts = od.wrap_xpos.reshape(-1, 3)[a:a + n]
            their_pts = td.wrap_xpos.reshape(-1, 3)[a:a + n]
            same = (od.ten_wrapnum[t] == n
                    and abs(od.ten_length[t] - td.ten_length[t]) <= 1e-9
                    and np.allclose(ours_pts, their_pts, rtol=0, atol=POINT_ATOL)
                    and np.allclose(od.ten_J[t], td.ten_J[t], rtol=0, atol=1e-8))
            bad[t] += not same
    # every tendon wrapped in a good share of the placements (the test exercises the wrap)
    assert (wrapped > N // 10).all(), wrapped
    assert not bad.any(), f"mismatching placements per tendon: {bad} of {N}"
