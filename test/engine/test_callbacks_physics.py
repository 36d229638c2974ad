"""Physics callbacks (seed 002 "物理回调"; seed 001 "Callbacks"): mjcb_passive, mjcb_sensor,
mjcb_act_dyn, mjcb_act_gain, mjcb_act_bias installed with the official setter names, called at
MuJoCo's pipeline points. Each test installs the same Python callback in mujoco 4.0.0 and in the
engine and compares the trajectories.

Tolerance: the models are smooth and contact-free; the engine agrees with mujoco to rounding
on them without callbacks, so 1e-10 over 200 steps holds with margin."""
from __future__ import annotations

import mujoco
import numpy as np
import pytest

import engine

XML = """<mujoco><option timestep="0.005"/>
<worldbody>
  <body pos="0 0 1"><joint name="h" type="hinge" axis="0 1 0" damping=".1"/>
    <geom type="capsule" fromto="0 0 0 .3 0 0" size=".03" mass="1"/>
    <body pos=".3 0 0"><joint name="s" type="slide" axis="1 0 0"/>
      <geom size=".05" mass=".5"/><site name="tip"/></body></body>
</worldbody>
<actuator>
  <general name="dyn" joint="h" dyntype="user" gaintype="fixed" gainprm="2" actdim="1"/>
  <general name="gain" joint="s" gaintype="user" biastype="affine" biasprm="0 -1 0"/>
  <general name="bias" joint="h" biastype="user"/>
</actuator>
<sensor>
  <user name="u_pos" dim="2" needstage="pos" cutoff="0.5"/>
  <user name="u_vel" dim="1" needstage="vel"/>
  <user name="u_acc" dim="3" needstage="acc"/>
  <jointpos joint="h"/>
</sensor></mujoco>"""

TOL = 1e-10


def passive(m, d):
    d.qfrc_passive[0] += -0.3 * d.qvel[0] + 0.1 * np.sin(d.time)
    d.qfrc_passive[1] += -2.0 * d.qpos[1]


def sensor(m, d, stage):
    if stage == 1:      # mjSTAGE_POS
        d.sensordata[0] = d.qpos[0] * 3.0     # cut off at 0.5
        d.sensordata[1] = d.site_xpos[0, 2]
    elif stage == 2:
        d.sensordata[2] = d.qvel[1] + d.qfrc_passive[0]
    elif stage == 3:
        d.sensordata[3:6] = d.qacc[0], d.actuator_force[1], d.qfrc_actuator[0]


def act_dyn(m, d, i):
    return (d.ctrl[i] - d.act[m.actuator_actadr[i]]) / 0.05


def act_gain(m, d, i):
    return 1.5 + 0.5 * d.actuator_length[i]


def act_bias(m, d, i):
    return -0.2 * d.actuator_velocity[i]


SETS = {"passive": passive, "sensor": sensor, "act_dyn": act_dyn, "act_gain": act_gain,
        "act_bias": act_bias}


def _install(lib, names):
    for n in SETS:
        getattr(lib, f"set_mjcb_{n}")(SETS[n] if n in names else None)


@pytest.fixture
def installed(request):
    """The callbacks to install; each library gets them once its model is compiled (mujoco's
    compiler runs the pipeline with them and its bindings cannot call Python there)."""
    yield request.param
    for lib in (mujoco, engine):
        _install(lib, ())


def _run(lib, names, nstep=200):
    m = lib.MjModel.from_xml_string(XML)
    d = lib.MjData(m)
    _install(lib, names)
    d.qpos[0] = 0.4
    out = []
    for k in range(nstep):
        d.ctrl[:] = np.sin(0.05 * k), 0.3 * np.cos(0.03 * k), 0.2
        lib.mj_step(m, d)
        out.append(np.concatenate([d.qpos, d.qvel, d.act, d.actuator_force, d.sensordata,
                                   d.qfrc_passive]))
    _install(lib, ())
    return np.array(out)


@pytest.mark.parametrize("installed", [(), ("passive",), ("sensor",), ("act_dyn",),
                                       ("act_gain",), ("act_bias",), tuple(SETS)],
                         indirect=True, ids=lambda x: "+".join(x) or "none")
def test_trajectory_matches_mujoco(installed):
    ours, theirs = _run(engine, installed), _run(mujoco, installed)
    assert np.all(np.isfinite(theirs))
    np.testing.assert_allclose(ours, theirs, rtol=TOL, atol=TOL)


@pytest.mark.parametrize("installed", [tuple(SETS)], indirect=True, ids=["all"])
def test_forward_and_step1_step2(installed):
    """mj_forward and mj_step1 + mj_step2 call them at the same points."""
    for fn in ("forward", "split"):
        res = []
        for lib in (engine, mujoco):
            m = lib.MjModel.from_xml_string(XML)
            d = lib.MjData(m)
            _install(lib, installed)
            d.qpos[:] = 0.3, 0.1
            d.ctrl[:] = 0.5, 0.2, 0.1
            for _ in range(20):
                if fn == "forward":
                    lib.mj_forward(m, d)
                    d.qpos[0] += 0.01
                else:
                    lib.mj_step1(m, d)
                    lib.mj_step2(m, d)
            res.append(np.concatenate([d.qpos, d.qvel, d.act, d.sensordata, d.qacc]))
            _install(lib, ())
        np.testing.assert_allclose(res[0], res[1], rtol=TOL, atol=TOL, err_msg=fn)


def test_no_python_path_without_callbacks():
    """A model without user elements, plugins or callbacks keeps the compiled loop."""
    m = engine.MjModel.from_xml_string("<mujoco><worldbody><body><freejoint/><geom size='1'/>"
                                       "</body></worldbody></mujoco>")
    assert not engine.callbacks.python_stages(m)
    engine.set_mjcb_passive(passive)
    try:
        assert engine.callbacks.python_stages(m)
    finally:
        engine.set_mjcb_passive(None)


def test_inverse_refuses_callbacks_it_cannot_call():
    m = engine.MjModel.from_xml_string(XML)
    d = engine.MjData(m)
    engine.mj_inverse(m, d)
    engine.set_mjcb_passive(passive)
    try:
        with pytest.raises(NotImplementedError, match="mj_inverse with mjcb_passive"):
            engine.mj_inverse(m, d)
    finally:
        engine.set_mjcb_passive(None)
