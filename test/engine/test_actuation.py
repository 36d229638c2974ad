"""mj_fwdActuation against the official mujoco (act_dot, actuator_force, qfrc_actuator)."""
import numpy as np
import pytest

from oracle import compare, mujoco, shared_model, TEST_MODELS
from test_passive import load, pair

import engine.actuation
import engine.passive

FIELDS = ("act_dot", "actuator_force", "qfrc_actuator")

REAL = [
    "mujoco/test/engine/testdata/actuation/actearly.xml",
    "mujoco/test/engine/testdata/actuation/activation.xml",
    "mujoco/test/engine/testdata/actuation/actuator_group_disable.xml",
    "mujoco/test/engine/testdata/actuation/damper.xml",
    "mujoco/test/engine/testdata/actuation/dampratio.xml",
    "mujoco/test/engine/testdata/actuation/joint_force_clamp.xml",
    "mujoco/test/engine/testdata/actuation/tendon_force_clamp.xml",
    "mujoco/test/engine/testdata/actuation/tendon_dampratio.xml",
    "mujoco/test/engine/testdata/actuation/refsite.xml",
    "mujoco/test/engine/testdata/actuation/sites.xml",
    "mujoco/model/humanoid/humanoid.xml",
    "menagerie/kuka_iiwa_14/iiwa14.xml",
]


def run_stage(mjm, seed, **kw):
    m, d, mjd = pair(mjm, seed, **kw)
    engine.actuation.check_actuation_supported(m)
    d.qfrc_gravcomp[:] = mjd.qfrc_gravcomp
    engine.actuation.mj_fwdActuation(m, d)
    return m, d, mjd


@pytest.mark.parametrize("rel", REAL)
def test_actuation_real_models(rel):
    mjm = load(shared_model(rel))
    for seed in range(3):
        m, d, mjd = run_stage(mjm, seed)
        compare(d, mjd, FIELDS, rtol=1e-6, atol=1e-9, what=f"{rel} seed {seed}")


@pytest.mark.parametrize("xml", ["actuators.xml", "gravcomp.xml"])
def test_actuation_own_models(xml):
    mjm = load(TEST_MODELS / xml)
    for seed in range(6):
        m, d, mjd = run_stage(mjm, seed, qvel_scale=2.0)
        compare(d, mjd, FIELDS, rtol=1e-6, atol=1e-9, what=f"{xml} seed {seed}")


@pytest.mark.parametrize("flags", [("disableflags", "mjDSBL_CLAMPCTRL"),
                                   ("disableflags", "mjDSBL_ACTUATION"),
                                   ("disableflags", "mjDSBL_GRAVITY"),
                                   ("disableactuator", 1 << 3)])
def test_actuation_flags(flags):
    for xml in ("actuators.xml", "gravcomp.xml"):
        mjm = load(TEST_MODELS / xml)
        attr, v = flags
        v = int(getattr(mujoco.mjtDisableBit, v)) if isinstance(v, str) else v
        setattr(mjm.opt, attr, getattr(mjm.opt, attr) | v)
        m, d, mjd = run_stage(mjm, 2)
        compare(d, mjd, FIELDS, rtol=1e-6, atol=1e-9, what=f"{xml} {flags}")


def test_bad_ctrl_warns_and_acts_as_zero_as_mujoco():
    """A NaN control: BADCTRL counted (lastinfo: the actuator), forces and act_dot computed
    with every control zero, d.ctrl left as set (mujoco 4.0.0)."""
    mjm = load(TEST_MODELS / "actuators.xml")
    m, d, mjd = pair(mjm, 0)
    for data in (d, mjd):
        data.ctrl[2] = np.nan
    engine.actuation.mj_fwdActuation(m, d)
    mujoco.mj_fwdActuation(mjm, mjd)
    w = int(mujoco.mjtWarning.mjWARN_BADCTRL)
    assert d.warning_number[w] == mjd.warning[w].number == 1
    assert d.warning_lastinfo[w] == mjd.warning[w].lastinfo == 2
    np.testing.assert_array_equal(d.ctrl, mjd.ctrl)
    np.testing.assert_allclose(d.actuator_force, mjd.actuator_force, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(d.act_dot, mjd.act_dot, rtol=1e-9, atol=1e-12)


def test_muscle_curves_match_mujoco():
    prm = np.array([0.75, 1.05, -1, 200, 0.5, 1.6, 1.5, 1.3, 1.2])
    lr = np.array([0.1, 0.4])
    for L in np.linspace(0.05, 0.5, 23):
        for V in np.linspace(-1, 1, 9):
            g = engine.actuation.muscle_gain(L, V, lr, 2.0, prm)
            assert abs(g - mujoco.mju_muscleGain(L, V, lr, 2.0, prm)) < 1e-12
        b = engine.actuation.muscle_bias(L, lr, 2.0, prm)
        assert abs(b - mujoco.mju_muscleBias(L, lr, 2.0, prm)) < 1e-12
    dprm = np.array([0.01, 0.04, 0.3])
    for c in np.linspace(-0.2, 1.2, 8):
        for a in np.linspace(-0.1, 1.1, 7):
            assert abs(engine.actuation.muscle_dynamics(c, a, dprm)
                       - mujoco.mju_muscleDynamics(c, a, dprm)) < 1e-9
