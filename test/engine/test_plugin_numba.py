"""Plugins written as numba kernels (engine.plugin.compiled): they run inside the compiled
mj_step loop (one compiled call for nstep steps, no Python call per step), agree with the same
physics written as mujoco callbacks.

Tolerance 1e-9: a smooth 4-link chain without contacts, where the engine follows mujoco to
rounding (test_callbacks_physics)."""
from __future__ import annotations


import mujoco
import numpy as np
import pytest

import engine
from engine.plugin import registry
from engine.plugin.compiled import KernelPlugin
from engine.plugin.registry import PASSIVE, SENSOR, mjp_registerPlugin

import numba_plugin_kernels as K

TOL = 1e-9
BODY = """<body pos="0 0 -.3"><joint type="hinge" axis="0 1 0"/>
<geom type="capsule" fromto="0 0 0 0 0 -.3" size=".03" mass="1"/>{}</body>"""
CHAIN = BODY.format(BODY.format(BODY.format(BODY.format(""))))
PLUGIN = f"""<mujoco><option timestep="0.002"/>
<extension><plugin plugin="test.nb_spring"><instance name="s"><config key="k" value="2"/>
<config key="c" value="0.1"/></instance></plugin>
<plugin plugin="test.nb_energy"><instance name="e"><config key="k" value="2"/></instance>
</plugin></extension>
<worldbody><body pos="0 0 2">{CHAIN}</body></worldbody>
<sensor><plugin name="energy" instance="e" cutoff="0.3"/><jointpos joint="j"/></sensor>
</mujoco>"""
PLAIN = PLUGIN[:PLUGIN.index("<extension>")] + PLUGIN[PLUGIN.index("<worldbody>"):].replace(
    '<plugin name="energy" instance="e" cutoff="0.3"/>', "")
REF = PLAIN.replace('<jointpos joint="j"/>', '<user name="energy" dim="1" needstage="pos" '
                    'cutoff="0.3"/><jointpos joint="j"/>')
PLUGIN = PLUGIN.replace('<body pos="0 0 -.3"><joint type="hinge"', '<body pos="0 0 -.3"><joint '
                        'name="j" type="hinge"', 1)
REF = REF.replace('<body pos="0 0 -.3"><joint type="hinge"', '<body pos="0 0 -.3"><joint '
                  'name="j" type="hinge"', 1)


@pytest.fixture(scope="module")
def plugins():
    ps = [KernelPlugin(name="test.nb_spring", capabilities=PASSIVE, attributes=("k", "c"),
                       nstate=lambda m, i: 1, compute_kernel=K.spring_compute,
                       advance_kernel=K.spring_advance),
          KernelPlugin(name="test.nb_energy", capabilities=SENSOR, attributes=("k",),
                       needstage=1, nsensordata=lambda m, i, s: 1,
                       compute_kernel=K.energy_sensor)]
    for p in ps:
        mjp_registerPlugin(p)
    yield ps
    registry._table[:] = [p for p in registry._table if p not in ps]


def _start(lib, xml):
    m = lib.MjModel.from_xml_string(xml)
    d = lib.MjData(m)
    d.qpos[:] = 0.5, -0.3, 0.2, 0.1
    return m, d


def test_kernel_plugins_match_mujoco_callbacks(plugins):
    m, d = _start(engine, PLUGIN)
    assert engine.plugin.pipeline.compiled_step(m) is not None   # the compiled loop is used
    ref, rd = _start(mujoco, REF)
    mujoco.set_mjcb_passive(lambda m_, d_: d_.qfrc_passive.__iadd__(-2 * d_.qpos - 0.1 * d_.qvel))

    def sensor(m_, d_, stage):
        if stage == 1:
            d_.sensordata[0] = 0.5 * 2 * np.sum(d_.qpos ** 2)
    mujoco.set_mjcb_sensor(sensor)
    try:
        for _ in range(10):
            engine.mj_step(m, d, 50)
            for _ in range(50):
                mujoco.mj_step(ref, rd)
            np.testing.assert_allclose(np.concatenate([d.qpos, d.qvel, d.sensordata]),
                                       np.concatenate([rd.qpos, rd.qvel, rd.sensordata]),
                                       rtol=TOL, atol=TOL)
    finally:
        mujoco.set_mjcb_passive(None)
        mujoco.set_mjcb_sensor(None)
    assert d.plugin_state[m.plugin_stateadr[0]] == 500      # advance: once per step
    # mj_forward (Python stages calling the same kernels) agrees with the compiled step's state
    s = d.sensordata.copy()
    engine.mj_forward(m, d)
    e = min(0.3, 0.5 * 2 * np.sum(d.qpos ** 2))     # cutoff 0.3
    assert d.sensordata[0] == pytest.approx(e, rel=1e-12) and s.shape == d.sensordata.shape


def _python_calls(m, d, nstep):
    """Python function calls made while ``mj_step(m, d, nstep)`` runs (sys.setprofile)."""
    import sys
    calls = [0]

    def count(frame, event, arg):
        if event == "call":
            calls[0] += 1
    sys.setprofile(count)
    try:
        engine.mj_step(m, d, nstep)
    finally:
        sys.setprofile(None)
    return calls[0]


def test_kernel_plugin_steps_without_python_calls(plugins):
    """The kernel plugins run inside the compiled step (engine.plugin.pipeline.compiled_step):
    mj_step makes the same number of Python calls for 2000 steps as for 10 (the call's own
    checks), none per step. (Their cost against the plain model is a benchmark's business, not a
    test's.)"""
    mp, dp = _start(engine, PLUGIN)
    engine.mj_step(mp, dp, 10)
    assert engine.plugin.pipeline.compiled_step(mp) is not None
    few, many = _python_calls(mp, dp, 10), _python_calls(mp, dp, 2000)
    assert many == few, (few, many)
    assert dp.plugin_state.any()        # the spring's state advanced in the compiled loop


PD_XML = """<mujoco><option timestep="0.002"/>
<extension><plugin plugin="test.nb_pd"/></extension>
<worldbody><body pos="0 0 2">{chain}</body></worldbody>
<actuator>{acts}</actuator></mujoco>"""


def test_kernel_actuator_plugin_matches_position_actuators():
    """An actuator plugin written as a kernel (one implicit instance per actuator, forcerange
    clamped after it, as MuJoCo does) against mujoco's <position kp kv forcerange>."""
    p = KernelPlugin(name="test.nb_pd", capabilities=registry.ACTUATOR, attributes=("kp", "kv"),
                     compute_kernel=K.pd_compute)
    mjp_registerPlugin(p)
    chain = CHAIN.replace('<joint type="hinge"', '<joint name="j{}" type="hinge"')
    names = []
    for k in range(4):
        chain = chain.replace('name="j{}"', f'name="j{k}"', 1)
        names.append(f"j{k}")
    ours = PD_XML.format(chain=chain, acts="".join(
        f'<plugin joint="{n}" plugin="test.nb_pd" forcerange="-1 1"><config key="kp" '
        f'value="{5 + k}"/><config key="kv" value="0.5"/></plugin>'
        for k, n in enumerate(names)))
    ref = PD_XML.format(chain=chain, acts="".join(
        f'<position joint="{n}" kp="{5 + k}" kv="0.5" forcerange="-1 1"/>'
        for k, n in enumerate(names))).replace(
        '<extension><plugin plugin="test.nb_pd"/></extension>', "")
    try:
        m, d = _start(engine, ours)
        assert engine.plugin.pipeline.compiled_step(m) is not None
        r, rd = _start(mujoco, ref)
        fmax = 0.0
        for k in range(20):
            d.ctrl[:] = rd.ctrl[:] = 0.4 * np.sin(0.3 * k + np.arange(4))
            engine.mj_step(m, d, 25)
            for _ in range(25):
                mujoco.mj_step(r, rd)
            np.testing.assert_allclose(
                np.concatenate([d.qpos, d.qvel, d.actuator_force, d.qfrc_actuator]),
                np.concatenate([rd.qpos, rd.qvel, rd.actuator_force, rd.qfrc_actuator]),
                rtol=TOL, atol=TOL)
            fmax = max(fmax, np.abs(d.actuator_force).max())
        assert fmax == pytest.approx(1.0)   # the forcerange clamp acted
    finally:
        registry._table[:] = [q for q in registry._table if q is not p]
