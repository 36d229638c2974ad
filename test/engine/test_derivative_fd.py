"""mjd_transitionFD, mjd_inverseFD, mjd_subQuat, mjd_quatIntegrate against mujoco 4.0.0.

The finite differences of two simulators that agree to ~1e-12 agree to ~1e-12/eps: with
eps = 1e-6 the Jacobians are compared to 1e-4 absolute plus 1e-5 relative (measured: below
2e-6 on these models); the analytic quaternion derivatives to 1e-12."""
import numpy as np
import pytest

import engine
import mujoco

MODELS = "/work/shared/models/mujoco/model"
PENDULUM_CTRL = """
<mujoco>
  <option timestep="0.005"/>
  <worldbody>
    <body name="ball" pos="0 0 1">
      <freejoint/>
      <geom type="sphere" size="0.1" mass="1"/>
    </body>
    <body pos="0 0.5 1">
      <joint name="hinge" axis="1 0 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.4" size="0.05"/>
      <body pos="0 0 -0.4">
        <joint name="hinge2" axis="0 1 0"/>
        <geom type="box" size="0.05 0.05 0.1" pos="0 0 -0.1"/>
      </body>
    </body>
    <geom type="plane" size="2 2 .1"/>
  </worldbody>
  <actuator>
    <motor name="m0" joint="hinge" ctrlrange="-1 1" ctrllimited="true"/>
    <position joint="hinge2" kp="10" ctrlrange="-0.5 0.5"/>
    <general joint="hinge" dyntype="filter" dynprm="0.1"/>
  </actuator>
  <sensor>
    <jointpos joint="hinge"/>
    <jointvel joint="hinge2"/>
    <framepos objtype="body" objname="ball"/>
    <actuatorfrc actuator="m0"/>
  </sensor>
</mujoco>
"""


def _pair(xml=None, path=None):
    if path:
        return engine.MjModel.from_xml_path(path), mujoco.MjModel.from_xml_path(path)
    return engine.MjModel.from_xml_string(xml), mujoco.MjModel.from_xml_string(xml)


def _state(me, mm, seed):
    de, dm = engine.MjData(me), mujoco.MjData(mm)
    rng = np.random.default_rng(seed)
    for d in (de, dm):
        rng2 = np.random.default_rng(seed)
        d.qvel[:] = 0.3 * rng2.standard_normal(d.qvel.shape)
        d.ctrl[:] = 0.2 * rng2.standard_normal(d.ctrl.shape)
        d.act[:] = 0.1 * rng2.standard_normal(d.act.shape)
    for _ in range(20):
        engine.mj_step(me, de)
        mujoco.mj_step(mm, dm)
    return de, dm


@pytest.mark.parametrize("centered", [False, True])
@pytest.mark.parametrize("case", ["ctrl", "humanoid", "ctrl_at_limit", "implicitfast"])
def test_transition_fd(case, centered):
    if case == "humanoid":
        me, mm = _pair(path=f"{MODELS}/humanoid/humanoid.xml")
    else:
        me, mm = _pair(PENDULUM_CTRL)
    if case == "implicitfast":
        me.opt.integrator = mm.opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    de, dm = _state(me, mm, 3)
    if case == "ctrl_at_limit":
        de.ctrl[0] = dm.ctrl[0] = 1.0          # upper limit: backward difference only
        de.ctrl[1] = dm.ctrl[1] = -0.5
    nx, nu, ns = 2 * me.nv + me.na, me.nu, me.nsensordata
    out = {}
    for mod, m, d in ((engine, me, de), (mujoco, mm, dm)):
        A, B = np.zeros((nx, nx)), np.zeros((nx, nu))
        C, D = np.zeros((ns, nx)), np.zeros((ns, nu))
        qpos, qvel, wstart = d.qpos.copy(), d.qvel.copy(), d.qacc_warmstart.copy()
        mod.mjd_transitionFD(m, d, 1e-6, centered, A, B, C, D)
        # the caller's state is left as it was
        np.testing.assert_array_equal(d.qpos, qpos)
        np.testing.assert_array_equal(d.qvel, qvel)
        np.testing.assert_array_equal(d.qacc_warmstart, wstart)
        out[mod.__name__] = (A, B, C, D)
    for name, a, b in zip("ABCD", out["engine"], out["mujoco"]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-4, err_msg=name)
    assert np.abs(out["mujoco"][0]).max() > 0.5      # the test compares something


def test_transition_fd_optional_outputs_and_errors():
    me, mm = _pair(PENDULUM_CTRL)
    de, _ = _state(me, mm, 1)
    nx = 2 * me.nv + me.na
    B = np.zeros((nx, me.nu))
    engine.mjd_transitionFD(me, de, 1e-6, False, None, B, None, None)
    assert np.abs(B).max() > 0
    with pytest.raises((ValueError, TypeError)):
        engine.mjd_transitionFD(me, de, 1e-6, False, np.zeros((3, 3)), None, None, None)
    me.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    with pytest.raises(ValueError, match="RK4"):
        engine.mjd_transitionFD(me, de, 1e-6, False, None, B, None, None)


@pytest.mark.parametrize("flg_actuation", [False, True])
def test_inverse_fd(flg_actuation):
    me, mm = _pair(PENDULUM_CTRL)
    de, dm = _state(me, mm, 5)
    nv, ns, nC = me.nv, me.nsensordata, me.nC
    out = {}
    for mod, m, d in ((engine, me, de), (mujoco, mm, dm)):
        mod.mj_forward(m, d)
        res = [np.zeros((nv, nv)) for _ in range(3)] + [np.zeros((nv, ns)) for _ in range(3)] \
            + [np.zeros((nv, nC))]
        mod.mjd_inverseFD(m, d, 1e-6, flg_actuation, *res)
        out[mod.__name__] = res
    for name, a, b in zip(["DfDq", "DfDv", "DfDa", "DsDq", "DsDv", "DsDa", "DmDq"],
                          out["engine"], out["mujoco"]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-4, err_msg=name)
    assert np.abs(out["mujoco"][2]).max() > 0.01


@pytest.mark.parametrize("seed", range(6))
def test_quaternion_derivatives(seed):
    rng = np.random.default_rng(seed)
    qa, qb = rng.standard_normal(4), rng.standard_normal(4)
    qa /= np.linalg.norm(qa)
    qb = qa + (1e-9 if seed == 0 else 0.5) * qb     # seed 0: the small-angle branch
    qb /= np.linalg.norm(qb)
    vel = rng.standard_normal(3) * (1e-3 if seed == 1 else 1.0)
    scale = 0.7
    res = {}
    for mod in (engine, mujoco):
        Da, Db, Dq, Dv, Ds = (np.zeros(9), np.zeros(9), np.zeros(9), np.zeros(9), np.zeros(3))
        mod.mjd_subQuat(qa, qb, Da, Db)
        mod.mjd_quatIntegrate(vel, scale, Dq, Dv, Ds)
        res[mod.__name__] = (Da, Db, Dq, Dv, Ds)
    for a, b in zip(res["engine"], res["mujoco"]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
