"""Corpus features of MuJoCo 4 (issue 23, third part): each compiled and simulated against
mujoco 4.0.0 on small models written here and on the corpus models they unblocked.

Tolerances: compiled integer fields exact, real fields 1e-12 relative (assert_same_model);
trajectories and per-step fields as stated per test."""
import numpy as np
import pytest

from oracle import mujoco

import engine
from test_corpus_features import assert_same_model, both, run_both


# ---------------------------------------------------------------------------------------------
# contact adhesion (<geom adhesion>, <pair adhesion>): engine/adhesion.py
# ---------------------------------------------------------------------------------------------

# A sphere stuck to a plane, a box in the gap band of a sticky wall (a magnet: pulled across
# the gap), a capsule whose plane contact takes the higher-priority geom's adhesion, and an
# explicit pair overriding its geoms' adhesion; condim 1, 3, 4 and 6.
ADHESION = """<mujoco><option cone="{cone}" gravity="0 0 {g}"/>
<worldbody>
<geom name="floor" type="plane" size="3 3 .1" adhesion=".3"/>
<geom name="wall" type="box" size=".05 1 1" pos="1.05 0 1" adhesion="2" gap=".01" margin=".002"/>
<body pos="0 0 .099"><freejoint/><geom type="sphere" size=".1" adhesion=".2" gap=".005"
      condim="{condim}"/>
<site name="s" size=".15"/></body>
<body pos=".97 0 .5"><freejoint/><geom type="box" size=".02 .1 .1" adhesion="1" gap=".01"
      condim="{condim}"/></body>
<body pos="-.5 0 .05"><freejoint/><geom name="cap" type="capsule" size=".05 .2" euler="0 90 0"
      priority="1" adhesion="5"/></body>
<body pos="0 .6 .099"><freejoint/><geom name="ball" type="sphere" size=".1" adhesion="3"/></body>
</worldbody>
<contact><pair geom1="floor" geom2="ball" adhesion=".7" condim="{condim}"/></contact>
<sensor><touch site="s"/></sensor>
</mujoco>"""


def _adhesion_xml(cone="elliptic", condim=3, g=-9.81):
    return ADHESION.format(cone=cone, condim=condim, g=g)


@pytest.mark.parametrize("cone", ["elliptic", "pyramidal"])
@pytest.mark.parametrize("condim", [1, 3, 4, 6])
def test_adhesion_contacts_as_mujoco(cone, condim):
    """Compiled geom_adhesion / pair_adhesion; after one forward: every contact's adhesion,
    exclude and dim (the gap-band contact frictionless), qfrc_adhesion and qfrc_passive,
    efc_aref, efc_force and mj_contactForce's net force (1e-9), then 100 steps of qpos, qvel and
    the touch sensor (1e-8)."""
    ours, theirs = both(_adhesion_xml(cone, condim))
    assert_same_model(ours, theirs)
    np.testing.assert_array_equal(ours.geom_adhesion, theirs.geom_adhesion)
    np.testing.assert_array_equal(ours.pair_adhesion, theirs.pair_adhesion)
    d, md = engine.MjData(ours), mujoco.MjData(theirs)
    engine.mj_forward(ours, d)
    mujoco.mj_forward(theirs, md)
    assert d.ncon == md.ncon and d.nefc == md.nefc
    gap_band = 0
    for c, mc in zip(d.contact, md.contact[:md.ncon]):
        assert (c.geom1, c.geom2) == (mc.geom1, mc.geom2)
        assert (c.dim, c.exclude, c.efc_address) == (mc.dim, mc.exclude, mc.efc_address)
        assert c.adhesion == mc.adhesion
        gap_band += c.dist >= c.includemargin
    assert gap_band == 4  # the box beside the wall: pulled across the gap
    for f in ("qfrc_adhesion", "qfrc_passive", "efc_aref", "efc_force", "qacc"):
        np.testing.assert_allclose(getattr(d, f), getattr(md, f), rtol=1e-9, atol=1e-9,
                                   err_msg=f"mismatch: {f}")
    assert np.any(md.qfrc_adhesion != 0)
    for i in range(d.ncon):
        r, mr = np.zeros(6), np.zeros(6)
        engine.mj_contactForce(ours, d, i, r)
        mujoco.mj_contactForce(theirs, md, i, mr)
        np.testing.assert_allclose(r, mr, rtol=1e-9, atol=1e-9, err_msg="mismatch: contactForce")
    d, md = run_both(ours, theirs, nstep=100, fields=("qpos", "qvel", "sensordata"), tol=1e-8)
    assert md.qpos[7] > 0.975  # the box moved to the wall


def test_adhesion_holds_against_pull():
    """Upside-down gravity: the sticky sphere hangs under the plane's contact (tension: the net
    normal force negative), as in mujoco, 100 steps within 1e-8."""
    ours, theirs = both(_adhesion_xml("elliptic", 3, g=0.08))
    d, md = run_both(ours, theirs, nstep=100, fields=("qpos", "qvel"), tol=1e-8)
    r = np.zeros(6)
    engine.mj_contactForce(ours, d, 0, r)
    assert r[0] < 0


@pytest.mark.parametrize("rel", ["mujoco/model/adhesion/fridge_door.xml",
                                 "mujoco/model/adhesion/sand_castle.xml",
                                 "mujoco/model/adhesion/active_adhesion.xml"])
def test_adhesion_corpus(rel):
    """The corpus models of adhesion: compiled fields, then 50 steps of qpos and qvel (1e-7;
    the sand castle's pile of grains is a contact-rich model: 1e-6); the adhesion actuators'
    model (no geom adhesion; its resting contacts amplify rounding to 5e-7 in qvel by step 7, 1e-6 in qpos by step 12,
    as main's engine before adhesion): qpos after 50 steps within 1e-6, the census's
    agreement."""
    ours, theirs = both(rel)
    assert_same_model(ours, theirs)
    if "active" in rel:
        d, md = engine.MjData(ours), mujoco.MjData(theirs)
        engine.mj_step(ours, d, 50)
        mujoco.mj_step(theirs, md, 50)
        np.testing.assert_allclose(d.qpos, md.qpos, rtol=1e-6, atol=1e-6)
        return
    run_both(ours, theirs, nstep=50, fields=("qpos", "qvel"),
             tol=1e-6 if "sand" in rel else 1e-7)

