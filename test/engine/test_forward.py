"""mj_forward / mj_step / integrators against the official mujoco on contact-free models."""
import numpy as np
import pytest

from oracle import model_from_mujoco, mujoco, shared_model, TEST_MODELS, GYM, DM
from test_passive import load, randomise

import engine
from engine.data import MjData

FWD_FIELDS = ("qfrc_bias qfrc_passive qfrc_actuator actuator_force act_dot qfrc_smooth "
              "qacc_smooth qacc sensordata").split()


def both(mjm, seed=0, **kw):
    m = model_from_mujoco(mjm)
    d = MjData(m)
    mjd = mujoco.MjData(mjm)
    randomise(mjm, mjd, seed, **kw)
    for f in ("qpos", "qvel", "act", "ctrl"):
        getattr(d, f)[...] = getattr(mjd, f)
    return m, d, mjd


def rel_err(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return np.abs(a - b).max(initial=0) / max(1.0, np.abs(b).max(initial=0))


def nolimits(mjm):
    mjm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_LIMIT)
    return mjm


FORWARD_MODELS = [
    ("shared", "mujoco/model/humanoid/humanoid.xml"),
    ("shared", "menagerie/kuka_iiwa_14/iiwa14.xml"),
    ("shared", "mujoco/model/balloons/balloons.xml"),
    ("file", DM + "cartpole.xml"), ("file", DM + "acrobot.xml"), ("file", DM + "swimmer.xml"),
    ("file", GYM + "ant.xml"), ("file", GYM + "half_cheetah.xml"), ("file", GYM + "reacher.xml"),
    ("own", "actuators.xml"), ("own", "passive.xml"), ("own", "gravcomp.xml"),
    ("own", "fluid.xml"), ("own", "sensors.xml"),
]


def path(kind, rel):
    if kind == "shared":
        return shared_model(rel)
    if kind == "own":
        return TEST_MODELS / rel
    return rel


@pytest.mark.parametrize("kind,rel", FORWARD_MODELS)
def test_forward_random_states(kind, rel):
    mjm = nolimits(load(path(kind, rel)))
    for seed in range(3):
        m, d, mjd = both(mjm, seed)
        mujoco.mj_forward(mjm, mjd)
        engine.forward.mj_forward(m, d)
        for f in FWD_FIELDS:
            e = rel_err(getattr(d, f), getattr(mjd, f))
            assert e < 1e-6, f"{rel} seed {seed}: {f} rel err {e:.3g}"


TRAJ = [
    ("own", "actuators.xml", 1000), ("own", "passive.xml", 1000), ("own", "gravcomp.xml", 1000),
    ("file", DM + "cartpole.xml", 1000), ("file", DM + "pendulum.xml", 1000),
    ("shared", "menagerie/kuka_iiwa_14/iiwa14.xml", 1000),
    ("file", GYM + "reacher.xml", 1000),
]


@pytest.mark.parametrize("integrator", ["mjINT_EULER", "mjINT_IMPLICIT", "mjINT_IMPLICITFAST",
                                        "mjINT_RK4"])
@pytest.mark.parametrize("kind,rel,nstep", TRAJ)
def test_trajectories(kind, rel, nstep, integrator):
    mjm = nolimits(load(path(kind, rel)))
    mjm.opt.integrator = int(getattr(mujoco.mjtIntegrator, integrator))
    m, d, mjd = both(mjm, 1, qvel_scale=0.3)
    engine.forward.mj_step(m, d, nstep)
    mujoco.mj_step(mjm, mjd, nstep)
    for f in ("qpos", "qvel", "act"):
        e = rel_err(getattr(d, f), getattr(mjd, f))
        assert e < 1e-6, f"{rel} {integrator}: {f} rel err {e:.3g} after {nstep} steps"
    assert abs(d.time - mjd.time) < 1e-9


def test_qderiv_matches_mujoco_implicit():
    for xml in ("actuators.xml", "passive.xml"):
        for integ in ("mjINT_IMPLICIT", "mjINT_IMPLICITFAST"):
            mjm = nolimits(load(TEST_MODELS / xml))
            mjm.opt.integrator = int(getattr(mujoco.mjtIntegrator, integ))
            m, d, mjd = both(mjm, 2)
            engine.forward.mj_step(m, d, 1)
            mujoco.mj_step(mjm, mjd, 1)
            e = rel_err(d.qDeriv, mjd.qDeriv)
            assert e < 1e-6, f"{xml} {integ}: qDeriv rel err {e:.3g}"


def test_step1_step2_equal_euler_step():
    mjm = nolimits(load(TEST_MODELS / "actuators.xml"))
    m, d, mjd = both(mjm, 3)
    for _ in range(20):
        engine.forward.mj_step1(m, d)
        mujoco.mj_step1(mjm, mjd)
        d.ctrl[:] = mjd.ctrl[:] = 0.3 * np.sin(d.qpos[:mjm.nu] if mjm.nq >= mjm.nu else 0)
        engine.forward.mj_step2(m, d)
        mujoco.mj_step2(mjm, mjd)
    assert rel_err(d.qpos, mjd.qpos) < 1e-9
    assert rel_err(d.sensordata, mjd.sensordata) < 1e-9


def test_control_callback():
    mjm = nolimits(load(TEST_MODELS / "actuators.xml"))
    m, d, mjd = both(mjm, 4)

    def ctrl(model, data):
        data.ctrl[:] = -0.5 * data.qvel[0] + 0.1 * data.time

    for integ in ("mjINT_EULER", "mjINT_RK4"):
        mjm.opt.integrator = m.opt.integrator = int(getattr(mujoco.mjtIntegrator, integ))
        try:
            engine.callbacks.set_mjcb_control(ctrl)
            mujoco.set_mjcb_control(ctrl)
            engine.forward.mj_step(m, d, 50)
            mujoco.mj_step(mjm, mjd, 50)
        finally:
            engine.callbacks.set_mjcb_control(None)
            mujoco.set_mjcb_control(None)
        assert rel_err(d.qpos, mjd.qpos) < 1e-8, integ
        assert rel_err(d.ctrl, mjd.ctrl) < 1e-8, integ


@pytest.mark.parametrize("field,warn", [("qpos", "mjWARN_BADQPOS"), ("qvel", "mjWARN_BADQVEL")])
@pytest.mark.parametrize("autoreset", [True, False])
def test_bad_state_warning_and_reset(field, warn, autoreset):
    mjm = nolimits(load(TEST_MODELS / "gravcomp.xml"))
    if not autoreset:
        mjm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_AUTORESET)
    m, d, mjd = both(mjm, 0)
    getattr(d, field)[1] = np.nan
    getattr(mjd, field)[1] = np.nan
    with np.errstate(invalid="ignore"):
        engine.forward.mj_step(m, d, 1)
        mujoco.mj_step(mjm, mjd, 1)
    w = int(getattr(mujoco.mjtWarning, warn))
    assert d.warning[w].number == mjd.warning[w].number
    assert d.warning[w].lastinfo == mjd.warning[w].lastinfo
    if autoreset:
        assert rel_err(d.qpos, mjd.qpos) < 1e-12 and d.time == mjd.time


def test_energy_enabled():
    mjm = nolimits(load(TEST_MODELS / "passive.xml"))
    mjm.opt.enableflags |= int(mujoco.mjtEnableBit.mjENBL_ENERGY)
    m, d, mjd = both(mjm, 0)
    engine.forward.mj_step(m, d, 10)
    mujoco.mj_step(mjm, mjd, 10)
    assert rel_err(d.energy, mjd.energy) < 1e-6


def test_limits_and_contacts_are_solved_not_dropped():
    """A state with an active joint limit and a model with contacts: the constraint rows exist
    and qacc is mujoco's (the full comparison is in test_contact_pipeline)."""
    mjm = load(TEST_MODELS / "actuators.xml")  # j3 has range [-.2, .2]
    m, d, mjd = both(mjm, 0)
    d.qpos[2] = mjd.qpos[2] = 0.3
    engine.forward.mj_forward(m, d)
    mujoco.mj_forward(mjm, mjd)
    assert d.nl == mjd.nl > 0
    assert rel_err(d.qacc, mjd.qacc) < 1e-5


def test_forward_skip_and_no_allocation_in_step():
    mjm = nolimits(load(TEST_MODELS / "actuators.xml"))
    m, d, mjd = both(mjm, 0)
    engine.forward.mj_forward(m, d)
    d.ctrl[:] += 0.1
    mjd.ctrl[:] = d.ctrl
    engine.forward.mj_forwardSkip(m, d, int(mujoco.mjtStage.mjSTAGE_VEL), 0)
    mujoco.mj_forward(mjm, mjd)
    assert rel_err(d.qacc, mjd.qacc) < 1e-9
    import tracemalloc
    engine.forward.mj_step(m, d, 2)
    tracemalloc.start()
    engine.forward.mj_step(m, d, 100)
    cur, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 4096, peak


# actuator armature and damping (mujoco 4): joint and tendon transmissions, gear != 1, ball and
# free joints (armature/damping act per dof with gear[0]^2), polynomial dampers
ARMDAMP_XML = """<mujoco><option timestep="0.005"/><worldbody>
<body name="a" pos="0 0 1"><joint name="fa" type="free"/><geom size=".1 .05 .08" type="box" mass="1"/>
 <body name="b" pos=".3 0 0"><joint name="hb" axis="0 1 0"/><geom size=".05" mass=".3"/>
  <site name="sb" pos=".1 .05 0"/>
  <body name="bb" pos=".2 0 0"><joint name="ball" type="ball"/><geom size=".05 .03 .02" type="ellipsoid" mass=".3"/>
   <site name="sbb" pos=".1 .05 0"/></body></body>
 <body name="c" pos="-.3 0 0"><joint name="hc" axis="0 0 1"/><geom size=".05" mass=".3"/>
  <site name="sc" pos="-.1 .05 .02"/>
  <body name="d" pos="-.1 0 0"><joint name="sd" type="slide" axis="1 0 0"/><geom size=".04" mass=".2"/></body></body>
</body></worldbody>
<tendon><spatial name="sp"><site site="sbb"/><site site="sc"/></spatial>
<fixed name="fx"><joint joint="hb" coef="1"/><joint joint="hc" coef="-.5"/></fixed></tendon>
<actuator>
 <motor joint="ball" gear="1.5 .3 .4 0 0 0" armature="0.05" damping="0.2 0.1 0.05"/>
 <motor joint="fa" gear="2 0 0 0 0 0" armature="0.02" damping="0.1"/>
 <motor joint="hb" gear="2" armature="0.03" damping="0.4 0.1 0.05"/>
 <motor jointinparent="sd" gear="-1.5" armature="0.01" damping="0 0.3"/>
 <motor tendon="sp" gear="2" armature="0.05" damping="0.3 0.2 0.1"/>
 <motor tendon="fx" gear="1.5" armature="0.02" damping="0.2"/>
</actuator></mujoco>"""


def test_actuator_armature_and_damping_forward():
    mjm = nolimits(load(ARMDAMP_XML))
    for seed in range(3):
        m, d, mjd = both(mjm, seed)
        mujoco.mj_forward(mjm, mjd)
        engine.forward.mj_forward(m, d)
        Mo, Mm = np.zeros((mjm.nv, mjm.nv)), np.zeros((mjm.nv, mjm.nv))
        mujoco.mj_fullM(mjm, mjd, Mm)
        engine.support.mj_fullM(m, d, Mo)
        assert rel_err(Mo, Mm) < 1e-10
        for f in FWD_FIELDS + ["qfrc_damper"]:
            e = rel_err(getattr(d, f), getattr(mjd, f))
            assert e < 1e-9, f"seed {seed}: {f} rel err {e:.3g}"


@pytest.mark.parametrize("integrator", ["mjINT_EULER", "mjINT_IMPLICIT", "mjINT_IMPLICITFAST",
                                        "mjINT_RK4"])
def test_actuator_armature_and_damping_trajectories(integrator):
    mjm = nolimits(load(ARMDAMP_XML))
    mjm.opt.integrator = int(getattr(mujoco.mjtIntegrator, integrator))
    m, d, mjd = both(mjm, 1, qvel_scale=0.5)
    engine.forward.mj_step(m, d, 1)
    mujoco.mj_step(mjm, mjd, 1)
    if integrator in ("mjINT_IMPLICIT", "mjINT_IMPLICITFAST"):
        assert rel_err(d.qDeriv, mjd.qDeriv) < 1e-9
    engine.forward.mj_step(m, d, 199)
    mujoco.mj_step(mjm, mjd, 199)
    for f in ("qpos", "qvel"):
        e = rel_err(getattr(d, f), getattr(mjd, f))
        assert e < 1e-8, f"{integrator}: {f} rel err {e:.3g}"


QDERIV_XML = """<mujoco><option timestep="0.01"/><worldbody>
<body><joint name="j1" axis="0 1 0" ATTR1/><geom size=".1" mass="1" pos=".1 0 0"/>
 <site name="s1" pos=".1 .1 0"/>
 <body pos=".3 0 0"><joint name="j2" axis="1 0 0"/><geom size=".1" mass="1"/>
  <site name="s2" pos=".1 .1 .1"/></body></body></worldbody>
<tendon><fixed name="t" TATTR><joint joint="j1" coef="1"/><joint joint="j2" coef="-0.5"/></fixed>
<spatial name="sp"><site site="s1"/><site site="s2"/></spatial></tendon>
<actuator>ACT</actuator></mujoco>"""
QDERIV_CASES = [
    # (actuators, joint j1 attrs, tendon t attrs)
    ('<general joint="j1" gaintype="affine" gainprm="1 0 -0.7" ctrlrange="-1 1"/>', "", ""),
    ('<general joint="j1" dyntype="filter" dynprm="0.1" gaintype="affine" gainprm="1 0 -0.7"/>',
     "", ""),
    ('<general joint="j1" dyntype="filter" dynprm="0.1" gaintype="affine" gainprm="1 0 -0.7" '
     'actearly="true"/>', "", ""),
    ('<general joint="j2" dyntype="filterexact" dynprm="0.1" gaintype="affine" '
     'gainprm="1 0 -0.7" actearly="true" actlimited="true" actrange="-.2 .2"/>', "", ""),
    ('<muscle tendon="sp" lengthrange="0.1 0.5" force="20"/>'
     '<muscle joint="j2" lengthrange="-1 1" force="10" gear="-2"/>', "", ""),
    ('<general tendon="t" biastype="affine" biasprm="0 0 -3"/>'
     '<general joint="j1" biastype="affine" biasprm="0 0 -1"/>', 'actuatorfrcrange="-.1 .1"', ""),
    ('<general tendon="t" biastype="affine" biasprm="0 0 -3"/>'
     '<general joint="j1" biastype="affine" biasprm="0 0 -1"/>', "", 'actuatorfrcrange="-.1 .1"'),
    ('<general joint="j1" biastype="affine" biasprm="0 0 -3" forcelimited="true" '
     'forcerange="-.5 .5"/>', "", ""),
]


@pytest.mark.parametrize("case", range(len(QDERIV_CASES)))
@pytest.mark.parametrize("integ", ["mjINT_IMPLICIT", "mjINT_IMPLICITFAST"])
def test_qderiv_actuator_rules(case, integ):
    """qDeriv's actuator terms as measured on MuJoCo 4.0.0: muscle force-velocity slope, clamped
    ctrl / actearly activation, and no contribution from clamped actuators (forcerange, tendon
    or joint actuatorfrcrange)."""
    act, a1, ta = QDERIV_CASES[case]
    mjm = nolimits(load(QDERIV_XML.replace("ACT", act).replace("ATTR1", a1)
                        .replace("TATTR", ta)))
    mjm.opt.integrator = int(getattr(mujoco.mjtIntegrator, integ))
    for seed in range(3):
        m, d, mjd = both(mjm, seed)
        engine.forward.mj_step(m, d, 1)
        mujoco.mj_step(mjm, mjd, 1)
        e = rel_err(d.qDeriv, mjd.qDeriv)
        assert e < 1e-9, f"case {case} seed {seed}: qDeriv rel err {e:.3g}"


def test_rk4_stage_states_on_quaternions():
    """MuJoCo 4.0.0's RK4 is Lie-group RK (Munthe-Kaas) on ball/free joints: compare the stage
    states a control callback sees, and the step result."""
    mjm = nolimits(load(ARMDAMP_XML))
    mjm.opt.integrator = int(mujoco.mjtIntegrator.mjINT_RK4)
    mjm.opt.timestep = 0.05
    m, d, mjd = both(mjm, 2, qvel_scale=3.0)
    m.opt.timestep = 0.05
    ours, theirs = [], []
    try:
        engine.callbacks.set_mjcb_control(lambda mm, dd: ours.append(dd.qpos.copy()))
        mujoco.set_mjcb_control(lambda mm, dd: theirs.append(dd.qpos.copy()))
        engine.forward.mj_step(m, d, 2)
        mujoco.mj_step(mjm, mjd, 2)
    finally:
        engine.callbacks.set_mjcb_control(None)
        mujoco.set_mjcb_control(None)
    assert len(ours) == len(theirs) == 8
    for k, (a, b) in enumerate(zip(ours, theirs)):
        assert rel_err(a, b) < 1e-11, f"stage {k}"
    assert rel_err(d.qpos, mjd.qpos) < 1e-11
    assert rel_err(d.qvel, mjd.qvel) < 1e-11
