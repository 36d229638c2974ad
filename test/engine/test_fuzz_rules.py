"""Rules the model fuzzing (bench/fuzz_models.py, issue 25) brought in, each engine against
mujoco 4.0.0 on the same model: the default arena, numbers written as inf or nan, references
to elements of a <replicate>, meshes with extreme vertices."""
from __future__ import annotations

import copy
import sys
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from oracle import MODELS, mujoco, mujoco_model_or_skip

import engine
from engine.data import _CONTACT_BYTES, _EFC_BYTES, capacity, default_arena_bytes, is_sparse
from engine._layout import row_bytes

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import fuzz_models  # noqa: E402

CORPUS = ("kuka_iiwa_14", "robotiq_2f85", "shadow_hand", "agility_cassie", "humanoid.xml",
          "slider_crank", "car.xml", "balloons", "testdata/weld", "testdata/inertia",
          "gymnasium/ant", "dm_control/finger")


# ---- capacity: the default arena (seed 000 size/memory, seed 001 "Memory allocation") --------
@pytest.mark.parametrize("mid", CORPUS)
def test_capacity_covers_mujoco_arena(mid):
    """Without <size memory>, the engine's guess is mujoco's m.narena, and each of its pools
    (contacts, constraint rows) alone holds that many bytes: whatever mix of contacts and rows
    fits mujoco's one arena fits the engine's."""
    if not MODELS.exists():
        pytest.skip(f"{MODELS} absent")
    path = next(p for k, p in fuzz_models.models() if mid in k)
    theirs = mujoco_model_or_skip(path)
    ours = engine.MjModel.from_xml_path(str(path))
    assert ours.__dict__.get("narena", -1) < 0, "the model sets <size memory>"
    assert default_arena_bytes(ours) == theirs.narena
    ncon, nj = capacity(ours)
    assert ncon * _CONTACT_BYTES >= theirs.narena
    assert nj * (_EFC_BYTES + row_bytes(ours.nv, is_sparse(ours))) >= theirs.narena


def _pile(n):
    """inertia.xml with its third body (a chain of capsules) copied ``n`` times 0.1 apart:
    overlapping geoms, thousands of contact rows at the first step."""
    root = ET.fromstring((MODELS / "mujoco/test/engine/testdata/inertia.xml").read_text())
    wb = root.find("worldbody")
    body = list(wb)[2]
    rep = ET.Element("replicate", count=str(n), offset="0.1 0 0")
    wb.remove(body)
    rep.append(body)
    wb.insert(2, rep)
    return ET.tostring(root, encoding="unicode")


def test_capacity_pile_of_overlapping_bodies():
    """The fuzz case that overflowed (4180 rows needed, 4177 held): mujoco steps it in its
    default arena, so the engine's default holds it too."""
    if not MODELS.exists():
        pytest.skip(f"{MODELS} absent")
    xml = _pile(30)
    mm = mujoco.MjModel.from_xml_string(xml)
    md = mujoco.MjData(mm)
    most = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(10):
            mujoco.mj_step(mm, md)
            most = max(most, md.nefc)
    assert most > 4180   # the case still needs more rows than the old default held
    m = engine.MjModel.from_xml_string(xml)
    d = engine.MjData(m)
    assert capacity(m)[1] >= most
    engine.mj_step(m, d, 10)
    assert d.nefc > 0
