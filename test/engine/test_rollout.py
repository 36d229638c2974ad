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


def _contact_rollout_inputs(nroll=6, nstep=25):
    """A contact scene (the solver's warm start matters), nroll initial states that differ in
    qvel, and open-loop controls: ctrl and qfrc_applied (control_spec with both bits)."""
    mjm = load(TEST_MODELS / "constraint_contact.xml", contact=True)
    m, d, mjd = both(mjm, 0)
    spec = int(mujoco.mjtState.mjSTATE_FULLPHYSICS)
    rng = np.random.default_rng(3)
    x0 = np.zeros((nroll, engine.state.mj_stateSize(m, spec)))
    for r in range(nroll):
        mjd.qvel[:] = rng.normal(0, 0.3, m.nv)
        mujoco.mj_getState(mjm, mjd, x0[r], spec)
    cspec = int(mujoco.mjtState.mjSTATE_CTRL | mujoco.mjtState.mjSTATE_QFRC_APPLIED)
    ctrl = rng.normal(0, 0.5, (nroll, nstep, mujoco.mj_stateSize(mjm, cspec)))
    return mjm, m, x0, ctrl, cspec


def test_rollout_bit_identical_for_any_thread_count_and_matches_mujoco():
    """nthread 1, 2, 4 (one MjData per thread, each reused across trajectories): bit-identical
    states and sensors, because each trajectory starts from its whole initial state (the warm
    start zero or given, user inputs outside control_spec reset); and the same as
    mujoco.rollout.rollout on the same inputs (relative error 1e-6, test_forward's trajectory
    tolerance)."""
    from mujoco import rollout as mj_rollout
    mjm, m, x0, ctrl, cspec = _contact_rollout_inputs()
    results = {}
    for nthread in (1, 2, 4):
        datas = [MjData(m) for _ in range(nthread)]
        for dd in datas:       # leftovers a trajectory must not see
            dd.qacc_warmstart[:] = 5.0
            dd.qfrc_applied[:] = 1.0
            dd.xfrc_applied[:] = 1.0
        results[nthread] = engine.rollout.rollout(m, datas, x0, ctrl, control_spec=cspec)
    for nthread in (2, 4):
        for a, b in zip(results[1], results[nthread]):
            assert np.array_equal(a, b), f"nthread {nthread} differs from nthread 1"
    state, sens = results[1]
    mstate, msens = mj_rollout.rollout(mjm, [mujoco.MjData(mjm) for _ in range(2)], x0, ctrl,
                                       control_spec=cspec)
    assert state.shape == mstate.shape and sens.shape == msens.shape
    scale = max(1.0, np.abs(mstate).max())
    assert np.abs(state - mstate).max() / scale < 1e-6
    if sens.size:
        assert np.abs(sens - msens).max() / max(1.0, np.abs(msens).max()) < 1e-6


def test_rollout_initial_warmstart_as_mujoco():
    """initial_warmstart is the solver's warm start of each trajectory's first step; a data
    reused across trajectories gives the same as a fresh one per trajectory."""
    from mujoco import rollout as mj_rollout
    mjm, m, x0, ctrl, cspec = _contact_rollout_inputs(nroll=3, nstep=10)
    ws = np.random.default_rng(5).normal(0, 1, (3, m.nv))
    state, _ = engine.rollout.rollout(m, MjData(m), x0, ctrl, control_spec=cspec,
                                      initial_warmstart=ws)
    for r in range(3):
        one, _ = engine.rollout.rollout(m, MjData(m), x0[r:r + 1], ctrl[r:r + 1],
                                        control_spec=cspec, initial_warmstart=ws[r:r + 1])
        assert np.array_equal(one[0], state[r])
    mstate, _ = mj_rollout.rollout(mjm, mujoco.MjData(mjm), x0, ctrl, control_spec=cspec,
                                   initial_warmstart=ws)
    assert np.abs(state - mstate).max() / max(1.0, np.abs(mstate).max()) < 1e-6


def test_rollout_stops_at_a_warning_as_mujoco():
    """A trajectory that diverges (NaN control force -> reset) repeats the state after the
    warning for its remaining steps, as mujoco's rollout does."""
    from mujoco import rollout as mj_rollout
    mjm, m, x0, ctrl, cspec = _contact_rollout_inputs(nroll=2, nstep=8)
    ctrl[1, 3, -1] = np.nan   # a qfrc_applied value
    state, _ = engine.rollout.rollout(m, [MjData(m), MjData(m)], x0, ctrl, control_spec=cspec)
    mstate, _ = mj_rollout.rollout(mjm, mujoco.MjData(mjm), x0, ctrl, control_spec=cspec)
    assert np.array_equal(state[1, 4], state[1, 7])
    assert np.abs(state - mstate).max() / max(1.0, np.abs(mstate).max()) < 1e-6
