"""mj_sensorPos/Vel/Acc against the official mujoco (stage inputs copied from the oracle)."""
import numpy as np
import pytest

from oracle import mujoco, shared_model, TEST_MODELS
from test_passive import load, pair

import engine.sensor

STAGE_OUT = ("qacc qfrc_actuator actuator_force qfrc_passive qfrc_constraint qfrc_smooth "
             "qacc_smooth").split()


def run_sensors(mjm, seed, flags=0, enable=0):
    mjm.opt.disableflags |= flags
    mjm.opt.enableflags |= enable
    m, d, mjd = pair(mjm, seed)
    engine.sensor.check_sensors_supported(m)
    for f in STAGE_OUT:
        getattr(d, f)[...] = getattr(mjd, f)
    d.energy[:] = mjd.energy if mjm.opt.enableflags & 2 else 0
    if mjm.opt.enableflags & 2:
        d.energy[:] = 0
        engine.sensor.mj_energyPos(m, d)
        engine.sensor.mj_energyVel(m, d)
        np.testing.assert_allclose(d.energy, mjd.energy, rtol=1e-6, atol=1e-9)
    engine.sensor.mj_sensorPos(m, d)
    engine.sensor.mj_sensorVel(m, d)
    engine.sensor.mj_sensorAcc(m, d)
    return m, d, mjd


def check(m, d, mjd, what):
    for s in range(m.nsensor):
        a, n = int(m.sensor_adr[s]), int(m.sensor_dim[s])
        np.testing.assert_allclose(
            d.sensordata[a:a + n], mjd.sensordata[a:a + n], rtol=1e-6, atol=1e-8,
            err_msg=f"{what}: sensor {s} type {mujoco.mjtSensor(int(m.sensor_type[s])).name}")


@pytest.mark.parametrize("seed", range(4))
def test_sensors_own_model(seed):
    mjm = load(TEST_MODELS / "sensors.xml")
    mjm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_LIMIT)
    m, d, mjd = run_sensors(mjm, seed)
    check(m, d, mjd, f"sensors.xml seed {seed}")


def test_sensors_energy_enabled_and_xfrc():
    mjm = load(TEST_MODELS / "sensors.xml")
    mjm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_LIMIT)
    mjm.opt.enableflags |= int(mujoco.mjtEnableBit.mjENBL_ENERGY)
    m, d, mjd = run_sensors(mjm, 7)
    check(m, d, mjd, "energy enabled")


def test_energy_with_springs():
    mjm = load(TEST_MODELS / "passive.xml")
    mjm.opt.enableflags |= int(mujoco.mjtEnableBit.mjENBL_ENERGY)
    for seed in range(3):
        run_sensors(mjm, seed)


REAL = [
    "mujoco/test/engine/testdata/sensor/humanoid.xml",
    "mujoco/model/humanoid/humanoid.xml",
]


@pytest.mark.parametrize("rel", REAL)
def test_sensors_real(rel):
    mjm = load(shared_model(rel))
    mjm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_LIMIT)
    for seed in range(2):
        m, d, mjd = run_sensors(mjm, seed)
        check(m, d, mjd, f"{rel} seed {seed}")


def test_sensor_disable_flag_leaves_sensordata():
    mjm = load(TEST_MODELS / "sensors.xml")
    mjm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_SENSOR)
    m, d, mjd = pair(mjm, 0)
    d.sensordata[:] = 7.0
    engine.sensor.mj_sensorPos(m, d)
    engine.sensor.mj_sensorVel(m, d)
    engine.sensor.mj_sensorAcc(m, d)
    assert np.all(d.sensordata == 7.0)


def test_noise_is_not_applied_at_runtime_as_in_mujoco():
    xml = """<mujoco><worldbody><body><joint name="j" axis="0 1 0"/><geom size=".1" pos=".2 0 0"/>
    </body></worldbody><sensor><jointpos joint="j" noise="1"/></sensor></mujoco>"""
    mjm = load(xml)
    m, d, mjd = run_sensors(mjm, 0)
    assert d.sensordata[0] == mjd.sensordata[0] == mjd.qpos[0]
