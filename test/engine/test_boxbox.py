"""Box-box contacts (engine/collision/box.py ``box_box``) against mujoco 4.0.0, through our whole
position stage: our kinematics and collision driver on a copy of mujoco's compiled model.

Contacts are compared as sets per geom pair (compare_contacts of test_collision.py): the same
count, dist / pos / normal to 1e-9 (box-box is analytic in mujoco), contact parameters exactly.
  * MuJoCo's own box-box test models (collision_box/boxbox_*.xml, collision_driver/planks.xml:
    long thin boxes crossing deeply, where the choice between a face and an edge axis decides):
    random states, the keyframes, and states along a trajectory simulated by mujoco;
  * random box pairs of varied aspect ratios (long thin, flat plates, cubes) at random
    orientations, near-parallel, at right angles (exact axis permutations, some slightly tilted)
    and crossing about one axis, with and without margin.
"""
import numpy as np
import pytest

from oracle import model_from_mujoco, mujoco, shared_model
from test_collision import BOX, compare_contacts, _random_states

import engine
from engine.collision import mj_collision
from engine.data import MjData

_TESTDATA = "mujoco/test/engine/testdata/"
_MODELS = ["collision_driver/planks.xml", "collision_box/boxbox_bad0.xml",
           "collision_box/boxbox_bad1.xml", "collision_box/boxbox_deep.xml",
           "collision_box/boxbox_duplicate.xml"]


def _ours_at(m, d, qpos):
    d.qpos[:] = qpos
    engine.mj_kinematics(m, d)
    mj_collision(m, d)


def _box_box_count(mm, md):
    return sum(1 for c in md.contact[:md.ncon]
               if mm.geom_type[c.geom1] == BOX and mm.geom_type[c.geom2] == BOX)


@pytest.mark.parametrize("rel", _MODELS, ids=[r.split("/")[-1] for r in _MODELS])
def test_mujoco_boxbox_models(rel):
    """MuJoCo's box-box test models: 12 random states, each keyframe (or the initial state),
    and every 20th of 300 steps simulated by mujoco from there; every contact compared."""
    mm = mujoco.MjModel.from_xml_path(str(shared_model(_TESTDATA + rel)))
    m = model_from_mujoco(mm)
    d = MjData(m)
    md = mujoco.MjData(mm)
    rng = np.random.default_rng(11)
    states = list(_random_states(mm, rng, 12))
    for k in range(max(mm.nkey, 1)):
        if mm.nkey:
            mujoco.mj_resetDataKeyframe(mm, md, k)
        else:
            mujoco.mj_resetData(mm, md)
        for s in range(300):
            if s % 20 == 0:
                states.append(md.qpos.copy())
            mujoco.mj_step(mm, md)
    nbox = 0
    for it, q in enumerate(states):
        md.qpos[:] = q
        mujoco.mj_forward(mm, md)
        _ours_at(m, d, q)
        compare_contacts(mm, md, d, f"{rel} state {it}", only={(BOX, BOX)})
        nbox += _box_box_count(mm, md)
    assert nbox > 50, nbox   # measured: planks 6000+, the boxbox_* models 70..170


_SIZES = [(".5 .4 .3", ".3 .2 .1"), (".02 .02 .4", ".02 .02 .4"), ("1 1 .05", ".6 .6 .05"),
          (".4 .02 .02", "1 1 .02"), (".1 .1 .1", ".1 .1 .1"), ("2 .1 .1", ".1 .1 1.5"),
          (".3 .3 .01", ".01 .3 .3"), ("1 .01 .5", ".5 .5 .5")]


def _quat(rng):
    q = rng.standard_normal(4)
    return q / np.linalg.norm(q)


def _turn(k, ang):
    """Quaternion of a turn by ang about axis k."""
    q = np.zeros(4)
    q[0] = np.cos(ang / 2)
    q[1 + k] = np.sin(ang / 2)
    return q


def _mul(a, b):
    out = np.zeros(4)
    mujoco.mju_mulQuat(out, a, b)
    return out


@pytest.mark.parametrize("margin", [0.0, 0.01])
@pytest.mark.parametrize("s1,s2", _SIZES, ids=[f"{a}|{b}".replace(" ", "_") for a, b in _SIZES])
def test_random_box_pairs(s1, s2, margin):
    mm = mujoco.MjModel.from_xml_string(f"""<mujoco><worldbody>
      <body><freejoint/><geom type="box" size="{s1}" margin="{margin}"/></body>
      <body><freejoint/><geom type="box" size="{s2}"/></body></worldbody></mujoco>""")
    m = model_from_mujoco(mm)
    d = MjData(m)
    md = mujoco.MjData(mm)
    e1, e2 = mm.geom_size[0], mm.geom_size[1]
    rng = np.random.default_rng(5)
    multi = nbox = 0
    for it in range(240):
        kind = it % 4
        if kind == 0:      # random orientations
            q1, q2 = _quat(rng), _quat(rng)
        elif kind == 1:    # near-parallel, down to exactly parallel
            q1 = _quat(rng)
            q2 = q1 + rng.standard_normal(4) * rng.choice([0.0, 1e-9, 1e-6, 1e-3])
            q2 /= np.linalg.norm(q2)
        elif kind == 2:    # right angles (axis permutations), half of them slightly tilted
            q1 = _turn(rng.integers(3), rng.integers(4) * np.pi / 2)
            q2 = _mul(_turn(rng.integers(3), rng.integers(4) * np.pi / 2),
                      _turn(rng.integers(3), np.pi / 2))
            if rng.uniform() < 0.5:
                q2 = _mul(q2, _turn(rng.integers(3), rng.normal() * 0.05))
        else:              # crossing at an angle about one axis
            q1 = np.array([1.0, 0, 0, 0])
            q2 = _turn(rng.integers(3), rng.uniform(0, np.pi))
        p2 = rng.uniform(-1, 1, 3) * (e1 + e2) * rng.choice([0.3, 0.8, 1.0, 1.05])
        q = np.r_[np.zeros(3), q1, p2, q2]
        md.qpos[:] = q
        mujoco.mj_forward(mm, md)
        _ours_at(m, d, q)
        compare_contacts(mm, md, d, f"boxes {s1} | {s2} margin {margin} pose {it}")
        nbox += md.ncon > 0
        multi += md.ncon > 1
    assert nbox > 60 and multi > 20, (nbox, multi)
