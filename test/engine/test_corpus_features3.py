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


# ---------------------------------------------------------------------------------------------
# delay lines: cubic reads, mj_step1 / mj_step2 (engine/history.py)
# ---------------------------------------------------------------------------------------------
# (interp="cubic" in mj_step: test_corpus_features2.DELAYS, test_delay_lines_as_mujoco)
from test_corpus_features2 import CUBIC, _delay_xml  # noqa: E402


def test_cubic_read_api_as_mujoco():
    """mj_readCtrl / mj_readSensor with interp 2 on nonuniform samples (mj_initCtrlHistory):
    before, on, between and after the samples, first, inner and last intervals, 1e-12."""
    ours, theirs = both(_delay_xml("0.1", 'nsample="5"', 'nsample="4"'))
    d, md = engine.MjData(ours), mujoco.MjData(theirs)
    times, vals = np.array([0.0, 1.0, 3.0, 4.5, 5.0]), np.array([1.0, 3.0, -2.0, 5.0, 4.0])
    for mm, dd in ((engine, d), (mujoco, md)):
        mm.mj_initCtrlHistory(ours if mm is engine else theirs, dd, 0, times, vals)
        mm.mj_initSensorHistory(ours if mm is engine else theirs, dd, 1,
                                np.array([0.0, 0.5, 2.0, 2.2]),
                                np.arange(12.0).reshape(4, 3) ** 1.5, 0.0)
    for t in (-1.0, 0.0, 0.25, 0.5, 0.9, 1.0, 1.5, 2.0, 2.1, 2.9, 3.0, 3.7, 4.75, 5.0, 6.0):
        a = np.array(engine.mj_readCtrl(ours, d, 0, t, np.zeros(1), 2))
        b = np.array(mujoco.mj_readCtrl(theirs, md, 0, t, np.zeros(1), 2))
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15, err_msg=f"mj_readCtrl t={t}")
        a = np.array(engine.mj_readSensor(ours, d, 1, t, np.zeros(3), 2))
        b = np.array(mujoco.mj_readSensor(theirs, md, 1, t, np.zeros(3), 2))
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15, err_msg=f"mj_readSensor t={t}")


@pytest.mark.parametrize("act,sen", [CUBIC[0], ('delay="0.02" nsample="3" interp="linear"',
                                                'delay="0.01" nsample="3"')])
def test_step1_step2_with_delay_lines_as_mujoco(act, sen):
    """mj_step1, controls set, mj_step2, 40 times, against mujoco's same calls: sensordata after
    mj_step1 (the delayed position/velocity sensors) and after mj_step2, qpos, actuator_force
    and history within 1e-12; and it equals mj_step with the same controls."""
    ours, theirs = both(_delay_xml("0.01", act, sen))
    d, md, d2 = engine.MjData(ours), mujoco.MjData(theirs), engine.MjData(ours)
    rng = np.random.default_rng(4)
    for k in range(40):
        engine.mj_step1(ours, d)
        mujoco.mj_step1(theirs, md)
        np.testing.assert_allclose(d.sensordata, md.sensordata, rtol=1e-12, atol=1e-12,
                                   err_msg=f"mismatch: sensordata after mj_step1 {k + 1}")
        d.ctrl[:] = md.ctrl[:] = d2.ctrl[:] = rng.normal(size=2)
        engine.mj_step2(ours, d)
        mujoco.mj_step2(theirs, md)
        engine.mj_step(ours, d2)
        for f in ("qpos", "actuator_force", "sensordata", "history"):
            np.testing.assert_allclose(getattr(d, f), getattr(md, f), rtol=1e-12, atol=1e-12,
                                       err_msg=f"mismatch: {f} after step {k + 1}")
        np.testing.assert_allclose(d2.history, d.history, rtol=1e-12, atol=1e-12)


INTERVALS = [('interval="0.025"', 'linear'), ('interval="0.025 -0.013"', 'zoh'),
             ('interval="0.03" delay="0.02"', 'linear'), ('interval="0.025" delay="0.013"', 'cubic'),
             ('interval="0.005"', 'zoh')]


@pytest.mark.parametrize("attrs,interp", INTERVALS)
def test_sensor_interval_with_history_as_mujoco(attrs, interp):
    """Sensors updated every period (phase given or not, with and without delay; a period under
    the timestep: every step): d.history at creation (timestamps rounded up to the timestep)
    within 1e-15, then 40 steps of sensordata and history within 1e-12, mj_forward between steps
    (a due sensor computed, nothing appended), mj_step1/mj_step2 for the last 10."""
    sen = f'nsample="3" interp="{interp}" {attrs}'
    xml = f"""<mujoco><option timestep="0.01"/><worldbody><body>
      <joint name="j" type="slide" axis="0 .3 1"/><geom size=".1"/>
      <body pos="0 0 .3"><joint name="h" axis="1 0 0"/><geom size=".05" pos=".1 0 0"/></body>
      </body></worldbody><actuator><motor name="a" joint="h"/></actuator>
      <sensor><jointpos joint="j" {sen}/><jointvel joint="h" {sen}/>
        <actuatorfrc actuator="a" {sen}/><framepos objtype="body" objname="world" {sen}/>
        <jointpos joint="h"/></sensor></mujoco>"""
    ours, theirs = both(xml)
    np.testing.assert_array_equal(ours.sensor_interval, theirs.sensor_interval)
    d, md = engine.MjData(ours), mujoco.MjData(theirs)
    np.testing.assert_allclose(d.history, md.history, rtol=1e-15, atol=1e-15,
                               err_msg="mismatch: history at start")
    rng = np.random.default_rng(5)
    for k in range(40):
        d.ctrl[:] = md.ctrl[:] = rng.normal(size=1)
        if k < 30:
            engine.mj_step(ours, d)
            mujoco.mj_step(theirs, md)
        else:
            engine.mj_step1(ours, d)
            mujoco.mj_step1(theirs, md)
            engine.mj_step2(ours, d)
            mujoco.mj_step2(theirs, md)
        for f in ("qpos", "sensordata", "history"):
            np.testing.assert_allclose(getattr(d, f), getattr(md, f), rtol=1e-12, atol=1e-12,
                                       err_msg=f"mismatch: {f} after step {k + 1}")
        if k % 7 == 3:
            engine.mj_forward(ours, d)
            mujoco.mj_forward(theirs, md)
            np.testing.assert_allclose(d.sensordata, md.sensordata, rtol=1e-12, atol=1e-12,
                                       err_msg=f"mismatch: sensordata after mj_forward {k + 1}")


# ---------------------------------------------------------------------------------------------
# <size memory>: contacts and rows share it (engine/data.py capacity)
# ---------------------------------------------------------------------------------------------

def test_size_memory_shared_by_contacts_and_rows_cube():
    """cube_3x3x3's <size memory="600K"> holds its 162 constraint rows (mujoco's peak over 100
    steps): no ArenaFullError, qpos within 1e-9 of mujoco after every step."""
    from engine.data import capacity
    ours, theirs = both("mujoco/model/cube/cube_3x3x3.xml")
    d, md = run_both(ours, theirs, nstep=100, fields=("qpos",), tol=1e-9)
    assert capacity(ours)[1] >= md.maxuse_efc > 100


# ---------------------------------------------------------------------------------------------
# frame composition rounding (engine/compiler/frames.py quat2mat)
# ---------------------------------------------------------------------------------------------

def test_frame_composition_rounds_as_mujoco():
    """A body under a frame turned about z: body_pos bit-equal to mujoco's (its z is
    1.2819999999999998 there, not 1.282)."""
    xml = """<mujoco><worldbody><frame pos="1 1 0" euler="0 0 144"><body pos="0 0 1.282">
      <freejoint/><geom size=".1"/></body></frame>
      <frame euler="10 20 30"><body pos=".3 -.7 1.1" euler="5 6 7"><freejoint/><geom size=".1"/>
      </body></frame></worldbody></mujoco>"""
    ours, theirs = both(xml)
    np.testing.assert_array_equal(ours.body_pos, theirs.body_pos)
    np.testing.assert_array_equal(ours.body_quat, theirs.body_quat)


def test_degrees_to_radians_round_as_mujoco():
    """Euler angles and axis-angles in degrees (a / 180 * pi, MuJoCo's rounding) and replicate
    turns: body_quat and body_pos bit-equal to mujoco's over 48 orientations and 8 copies."""
    rng = np.random.default_rng(0)
    angs = ([(17 * k, 0, 0) for k in range(1, 10)] + [(0, 0, 17 * k) for k in range(1, 10)]
            + [tuple(np.round(rng.uniform(-180, 180, 3), 3)) for _ in range(30)])
    bodies = "".join(f'<body pos="0 0 {i}" euler="{a} {b} {c}"><geom size=".1"/></body>'
                     f'<body pos="1 0 {i}" axisangle=".3 .4 .5 {c}"><geom size=".1"/></body>'
                     for i, (a, b, c) in enumerate(angs))
    xml = f"""<mujoco><worldbody>{bodies}<replicate count="8" euler="0 0 17" offset=".6 .1 .05">
      <body pos=".1 .2 1.282" euler="10 20 30"><freejoint/><geom size=".1"/></body>
      </replicate></worldbody></mujoco>"""
    ours, theirs = both(xml)
    np.testing.assert_array_equal(ours.body_quat, theirs.body_quat)
    np.testing.assert_array_equal(ours.body_pos, theirs.body_pos)


@pytest.mark.parametrize("rel", ["mujoco/test/engine/testdata/sleep/perf/2humanoid100.xml",
                                 "mujoco/model/humanoid/22_humanoids.xml",
                                 "mujoco/model/humanoid/100_humanoids.xml",
                                 "mujoco/model/replicate/stonehenge.xml"])
def test_attached_and_replicated_humanoids_stand_as_mujoco(rel):
    """Humanoids attached or replicated under turned frames, feet exactly on the floor: the
    same contacts from the first step (an ulp of body_pos decided them), qpos within 1e-9 over
    50 steps."""
    ours, theirs = both(rel)
    run_both(ours, theirs, nstep=50, fields=("qpos",), tol=1e-9)


# ---------------------------------------------------------------------------------------------
# tendon wrapping: a segment through the wrap geom's centre takes the side site's side
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("side", ["-.15 0 .5", ".15 0 .5", "0 .15 .5"])
def test_wrap_through_centre_takes_side_sites_side(side):
    """The straight segment passes exactly through the cylinder's (and sphere's) centre: both
    wraps are as long, mujoco takes the one on the side site's side; wrap_xpos and ten_J as
    mujoco's (1e-12)."""
    xml = f"""<mujoco><worldbody><site name="a" pos="0 0 .8"/><site name="b" pos="0 0 .2"/>
      <site name="side" pos="{side}"/>
      <body pos="0 0 .5"><joint type="slide" axis="1 0 0"/><joint type="slide" axis="0 1 0"/>
        <geom name="c" type="cylinder" size=".07 .1" zaxis="0 1 0"/>
        <geom name="s" type="sphere" size=".05" pos="0 0 0"/></body></worldbody>
      <tendon><spatial><site site="a"/><geom geom="c" sidesite="side"/><site site="b"/></spatial>
        <spatial><site site="a"/><geom geom="s" sidesite="side"/><site site="b"/></spatial>
      </tendon></mujoco>"""
    ours, theirs = both(xml)
    d, md = engine.MjData(ours), mujoco.MjData(theirs)
    engine.mj_forward(ours, d)
    mujoco.mj_forward(theirs, md)
    # (every entry of ten_J is a structural nonzero here: mujoco's sparse rows are the dense)
    for f in ("ten_length", "ten_J", "wrap_xpos"):
        np.testing.assert_allclose(np.ravel(getattr(d, f)), np.ravel(getattr(md, f)),
                                   rtol=1e-12, atol=1e-12, err_msg=f"mismatch: {f}")


def test_tendon_wrap_corpus():
    """island/tendon_wrap.xml: the wrapped tendon reaches its limit at step 50 with the
    cylinders centred on it: 80 steps of qpos within 1e-9."""
    ours, theirs = both("mujoco/test/engine/testdata/island/tendon_wrap.xml")
    run_both(ours, theirs, nstep=80, fields=("qpos",), tol=1e-9)
