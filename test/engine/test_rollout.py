"""engine.rollout: threads on one shared model give the same trajectories as mj_step."""
import numpy as np

from oracle import mujoco, TEST_MODELS
from test_forward import both, nolimits
from test_passive import load

import engine.forward
import engine.rollout
import engine.state
from engine.data import MjData


def test_rollout_threads_match_serial_steps():
    mjm = nolimits(load(TEST_MODELS / "actuators.xml"))
    m, d, _ = both(mjm, 0)
    spec = int(mujoco.mjtState.mjSTATE_FULLPHYSICS)
    n = engine.state.mj_stateSize(m, spec)
    assert n == mujoco.mj_stateSize(mjm, spec)
    x0 = np.zeros((4, n))
    rng = np.random.default_rng(0)
    for r in range(4):
        d.qvel[:] = rng.normal(0, 0.5, m.nv)
        engine.state.mj_getState(m, d, x0[r], spec)
    ctrl = rng.normal(0, 0.3, (4, 50, m.nu))
    state, sens = engine.rollout.rollout(m, [MjData(m), MjData(m)], x0, ctrl)
    for r in range(4):
        dd = MjData(m)
        engine.state.mj_setState(m, dd, x0[r], spec)
        for t in range(50):
            dd.ctrl[:] = ctrl[r, t]
            engine.forward.mj_step(m, dd)
        assert np.array_equal(state[r, -1, 1:1 + m.nq], dd.qpos)
        assert np.array_equal(sens[r, -1], dd.sensordata)


def test_state_roundtrip_matches_mujoco_layout():
    mjm = nolimits(load(TEST_MODELS / "actuators.xml"))
    m, d, mjd = both(mjm, 1)
    spec = int(mujoco.mjtState.mjSTATE_INTEGRATION)
    a = np.zeros(engine.state.mj_stateSize(m, spec))
    b = np.zeros(mujoco.mj_stateSize(mjm, spec))
    engine.state.mj_getState(m, d, a, spec)
    mujoco.mj_getState(mjm, mjd, b, spec)
    np.testing.assert_array_equal(a, b)
    d2 = MjData(m)
    engine.state.mj_setState(m, d2, a, spec)
    assert np.array_equal(d2.qpos, d.qpos) and np.array_equal(d2.ctrl, d.ctrl)
