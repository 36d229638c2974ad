"""Engine plugins (seed 002 "引擎插件"): the registry, MJCF <extension>/<plugin>, the plugin
model/data fields, plugin state in mj_getState/mj_setState and mj_copyData, user plugins of each
capability written in Python, plugin libraries, and the first-party mujoco.pid against mujoco
4.0.0 on MuJoCo's own model.

Tolerances: pid.xml and the user-plugin models are smooth (slide joints, no contact reached in
the compared window); the engine follows mujoco to ~1e-15 on them (measured: qpos equal to 15
digits after 1000 steps), so 1e-9 leaves room for rounding order and still catches any term
missing from a force."""
from __future__ import annotations

import os
import textwrap

import mujoco
import numpy as np
import pytest

import engine
from engine.plugin import registry
from engine.plugin.registry import (ACTUATOR, PASSIVE, SENSOR, Plugin,
                                    mjp_registerPlugin)

PID = "/work/shared/models/mujoco/model/plugin/actuator/pid.xml"
TOL = 1e-9
needs_models = pytest.mark.skipif(not os.path.exists(PID), reason="MuJoCo's models not found")


def _unregister(name):
    registry._table[:] = [p for p in registry._table if p.name != name]


@needs_models
def test_pid_model_fields_match_mujoco():
    ours, theirs = engine.MjModel.from_xml_path(PID), mujoco.MjModel.from_xml_path(PID)
    for f in ("nplugin", "npluginattr", "npluginstate", "na", "plugin_attr", "plugin_attradr",
              "plugin_stateadr", "plugin_statenum", "actuator_plugin", "actuator_actnum",
              "actuator_actadr", "actuator_dyntype", "actuator_gaintype", "actuator_biastype",
              "actuator_gainprm", "actuator_biasprm", "body_plugin", "geom_plugin",
              "sensor_plugin"):
        np.testing.assert_array_equal(np.asarray(getattr(ours, f)), np.asarray(getattr(theirs, f)),
                                      err_msg=f)
    for k in range(theirs.nplugin):
        assert engine.mj_id2name(ours, engine.mjtObj.mjOBJ_PLUGIN, k) == \
            mujoco.mj_id2name(theirs, mujoco.mjtObj.mjOBJ_PLUGIN, k)


def _trajectory(lib, xml=None, path=None, nstep=1500, ctrl=None):
    m = lib.MjModel.from_xml_path(path) if path else lib.MjModel.from_xml_string(xml)
    d = lib.MjData(m)
    out = []
    for k in range(nstep):
        d.ctrl[:] = ctrl(k) if ctrl else 0.1 + 0.05 * np.sin(0.01 * k)
        lib.mj_step(m, d)
        out.append(np.concatenate([d.qpos, d.qvel, d.act, d.actuator_force, d.sensordata]))
    return np.array(out)


@needs_models
def test_pid_trajectory_matches_mujoco():
    """MuJoCo's pid.xml (P, PD, PID and PID with a clamped integral) with a moving setpoint."""
    ours, theirs = _trajectory(engine, path=PID), _trajectory(mujoco, path=PID)
    np.testing.assert_allclose(ours, theirs, rtol=TOL, atol=TOL)


SLEW = """<mujoco><extension><plugin plugin="mujoco.pid"><instance name="p">
  <config key="kp" value="20"/><config key="kd" value="2"/><config key="slewmax" value="0.5"/>
</instance></plugin></extension>
<worldbody><body><joint name="j" type="slide" axis="0 0 1"/><geom size=".05" mass="1"/></body>
</worldbody><actuator><plugin joint="j" plugin="mujoco.pid" instance="p" actdim="1"/></actuator>
</mujoco>"""


def test_pid_actdim_must_be_given():
    """mujoco 4.0.0 sizes act from the XML; mujoco.pid refuses a wrong actdim at init."""
    xml = SLEW.replace(' actdim="1"', "")
    with pytest.raises(ValueError, match='actdim 0, expected 1'):
        mujoco.MjData(mujoco.MjModel.from_xml_string(xml))
    with pytest.raises(ValueError, match='actdim 0, expected 1'):
        engine.MjData(engine.MjModel.from_xml_string(xml))


def test_pid_slewmax_plugin_state_and_copies():
    """slewmax: one act (previous setpoint) and a plugin_state flag (whether it exists);
    mj_getState(mjSTATE_PLUGIN), mj_setState and mj_copyData carry it.

    Measured difference: mujoco 4.0.0 reports npluginstate 0 for this model (its nstate
    callback runs before the instance's config is attached, so the flag it writes falls outside
    plugin_state); the engine gives the flag its slot (npluginstate 1). Trajectories agree."""
    ours, theirs = _trajectory(engine, SLEW, nstep=400), _trajectory(mujoco, SLEW, nstep=400)
    np.testing.assert_allclose(ours, theirs, rtol=TOL, atol=TOL)
    res = []
    for lib in (engine, mujoco):
        m = lib.MjModel.from_xml_string(SLEW)
        d = lib.MjData(m)
        assert m.na == 1
        d.ctrl[0] = 1.0
        lib.mj_step(m, d)
        d2 = lib.MjData(m)
        lib.mj_copyData(d2, m, d)
        d3 = lib.MjData(m)
        full = lib.mjtState.mjSTATE_INTEGRATION
        st = np.zeros(lib.mj_stateSize(m, full))
        lib.mj_getState(m, d, st, full)
        lib.mj_setState(m, d3, st, full)
        for dd in (d, d2, d3):
            for _ in range(50):
                lib.mj_step(m, dd)
        assert d.qpos[0] == d2.qpos[0] == d3.qpos[0]       # copies continue bitwise alike
        res.append(np.concatenate([d.qpos, d2.qpos, d3.qpos, d3.act]))
    np.testing.assert_allclose(res[0], res[1], rtol=TOL, atol=TOL)
    m = engine.MjModel.from_xml_string(SLEW)
    d = engine.MjData(m)
    spec = engine.mjtState.mjSTATE_PLUGIN
    assert m.npluginstate == 1 and engine.mj_stateSize(m, spec) == 1
    s = np.zeros(1)
    engine.mj_getState(m, d, s, spec)
    assert s[0] == 0                                     # no previous setpoint yet
    engine.mj_step(m, d)
    engine.mj_getState(m, d, s, spec)
    assert s[0] == 1
    d2 = engine.MjData(m)
    engine.mj_setState(m, d2, s, spec)
    assert d2.plugin_state[0] == 1


# ---- user plugins of each capability, written in Python ------------------------------------------
class Spring(Plugin):
    """A passive plugin: a spring on every slide joint, stiffness from its config."""
    name = "test.spring"
    capabilities = PASSIVE
    attributes = ("k",)

    def init(self, m, d, instance):
        return float(registry.plugin_config(m, instance, "k"))

    def compute(self, m, d, instance, capability):
        d.qfrc_passive[:] += -d.plugin_data[instance] * d.qpos


class PD(Plugin):
    """An actuator plugin: force = kp (ctrl - length) - kv velocity, as <position kp kv>."""
    name = "test.pd"
    capabilities = ACTUATOR
    attributes = ("kp", "kv")

    def compute(self, m, d, instance, capability):
        kp = float(registry.plugin_config(m, instance, "kp"))
        kv = float(registry.plugin_config(m, instance, "kv"))
        for i in np.nonzero(m.actuator_plugin == instance)[0]:
            d.actuator_force[i] = kp * d.ctrl[i] - kp * d.actuator_length[i] \
                - kv * d.actuator_velocity[i]


class Probe(Plugin):
    """A sensor plugin (velocity stage) with a counter in plugin_state."""
    name = "test.probe"
    capabilities = SENSOR
    needstage = 2

    def nstate(self, m, instance):
        return 1

    def nsensordata(self, m, instance, sensor_id):
        return 2

    def compute(self, m, d, instance, capability):
        s = int(np.nonzero(m.sensor_plugin == instance)[0][0])
        a = m.sensor_adr[s]
        d.sensordata[a:a + 2] = d.qvel[0] * 2.0, d.qfrc_passive[0]

    def advance(self, m, d, instance):
        d.plugin_state[m.plugin_stateadr[instance]] += 1


USER = """<mujoco><extension><plugin plugin="test.spring"><instance name="sp">
  <config key="k" value="3"/></instance></plugin>
  <plugin plugin="test.pd"/><plugin plugin="test.probe"/></extension>
<worldbody>
  <body pos="0 0 1"><joint name="a" type="slide" axis="1 0 0" damping=".2"/>
    <geom size=".05" mass="1"/></body>
  <body pos="0 1 1"><joint name="b" type="slide" axis="0 1 0"/><geom size=".05" mass="2"/></body>
</worldbody>
<actuator><plugin joint="a" plugin="test.pd"><config key="kp" value="10"/>
  <config key="kv" value="1"/></plugin></actuator>
<sensor><plugin name="probe" plugin="test.probe"/><jointvel joint="b"/></sensor></mujoco>"""

# the same physics in mujoco: the spring as mjcb_passive, the actuator as <position>, the sensor
# as a user sensor filled by mjcb_sensor
REF = """<mujoco><worldbody>
  <body pos="0 0 1"><joint name="a" type="slide" axis="1 0 0" damping=".2"/>
    <geom size=".05" mass="1"/></body>
  <body pos="0 1 1"><joint name="b" type="slide" axis="0 1 0"/><geom size=".05" mass="2"/></body>
</worldbody>
<actuator><position joint="a" kp="10" kv="1"/></actuator>
<sensor><user name="probe" dim="2" needstage="vel"/><jointvel joint="b"/></sensor></mujoco>"""


@pytest.fixture
def user_plugins():
    plugins = [Spring(), PD(), Probe()]
    for p in plugins:
        mjp_registerPlugin(p)
    yield plugins
    for p in plugins:
        _unregister(p.name)
    mujoco.set_mjcb_passive(None)
    mujoco.set_mjcb_sensor(None)


def test_user_plugins_of_each_capability(user_plugins):
    m = engine.MjModel.from_xml_string(USER)
    assert m.nplugin == 3 and list(m.plugin_statenum) == [0, 0, 1]
    assert list(m.actuator_plugin) == [1] and list(m.sensor_plugin) == [2, -1]
    assert m.sensor_dim[0] == 2 and m.sensor_needstage[0] == 2
    assert engine.mj_name2id(m, engine.mjtObj.mjOBJ_PLUGIN, "sp") == 0
    ours = _trajectory(engine, USER, nstep=300, ctrl=lambda k: 0.3 * np.sin(0.02 * k))

    ref = mujoco.MjModel.from_xml_string(REF)
    mujoco.set_mjcb_passive(lambda m, d: d.qfrc_passive.__iadd__(-3.0 * d.qpos))

    def sensor(m, d, stage):
        if stage == 2:
            d.sensordata[0:2] = d.qvel[0] * 2.0, d.qfrc_passive[0]
    mujoco.set_mjcb_sensor(sensor)
    d = mujoco.MjData(ref)
    theirs = []
    for k in range(300):
        d.ctrl[:] = 0.3 * np.sin(0.02 * k)
        mujoco.mj_step(ref, d)
        theirs.append(np.concatenate([d.qpos, d.qvel, d.act, d.actuator_force, d.sensordata]))
    np.testing.assert_allclose(ours, np.array(theirs), rtol=TOL, atol=TOL)
    # advance ran once per step
    m = engine.MjModel.from_xml_string(USER)
    dd = engine.MjData(m)
    engine.mj_step(m, dd, 7)
    assert dd.plugin_state[m.plugin_stateadr[2]] == 7
    engine.mj_resetData(m, dd)
    assert dd.plugin_state[0] == 0


def test_mjcf_errors(user_plugins):
    base = "<mujoco><extension>{ext}</extension><worldbody><body><joint name='a' " \
           "type='slide'/><geom size='.1'/></body></worldbody>{rest}</mujoco>"
    cases = [
        ("<plugin plugin='no.such'/>", "", "unknown plugin 'no.such'"),
        ("", "<sensor><plugin plugin='test.probe'/></sensor>", "not declared"),
        ("<plugin plugin='test.pd'><instance name='x'><config key='bad' value='1'/></instance>"
         "</plugin>", "", "unrecognized attribute 'plugin:bad'"),
        ("<plugin plugin='test.pd'><instance name='x'/></plugin>",
         "<actuator><plugin joint='a' instance='x'><config key='kp' value='1'/></plugin>"
         "</actuator>", "cannot be given"),
        ("<plugin plugin='test.pd'/>", "<actuator><plugin joint='a' instance='nope'/></actuator>",
         "unknown plugin instance 'nope'"),
        ("<plugin plugin='test.pd'/>", "<sensor><plugin plugin='test.pd'/></sensor>",
         "not a sensor plugin"),
    ]
    for ext, rest, msg in cases:
        with pytest.raises((engine.XMLError, NotImplementedError), match=msg):
            engine.MjModel.from_xml_string(base.format(ext=ext, rest=rest))


def test_load_plugin_library_and_entry_points(tmp_path, monkeypatch):
    lib = tmp_path / "myplugins.py"
    lib.write_text(textwrap.dedent("""
        from engine.plugin.registry import Plugin, SENSOR
        class Clock2(Plugin):
            name = "lib.clock2"
            capabilities = SENSOR
            needstage = 1
            def nsensordata(self, m, instance, sensor_id):
                return 1
            def compute(self, m, d, instance, capability):
                d.sensordata[0] = 2 * d.time
        mj_plugins = [Clock2()]
    """))
    xml = """<mujoco><extension><plugin plugin="{n}"/></extension><worldbody/>
    <sensor><plugin plugin="{n}"/></sensor></mujoco>"""
    try:
        engine.mj_loadPluginLibrary(str(lib))
        m = engine.MjModel.from_xml_string(xml.format(n="lib.clock2"))
        d = engine.MjData(m)
        engine.mj_step(m, d, 3)
        engine.mj_forward(m, d)
        assert d.sensordata[0] == pytest.approx(2 * d.time)
    finally:
        _unregister("lib.clock2")

    # a directory of plugin files (mj_loadAllPluginLibraries), with the load callback
    other = tmp_path / "libs"
    other.mkdir()
    (other / "more.py").write_text(lib.read_text().replace("lib.clock2", "lib.clock3")
                                   .replace("Clock2", "Clock3"))
    seen = []
    try:
        engine.mj_loadAllPluginLibraries(str(other), lambda f, first, n: seen.append((f, n)))
        assert seen == [("more.py", 1)] and registry.mjp_getPlugin("lib.clock3")[0] is not None
    finally:
        _unregister("lib.clock3")

    class EP:
        name, value = "demo", "demo:plugins"

        def load(self):
            return lambda: [Plugin(name="ep.zero", capabilities=PASSIVE,
                                   compute=lambda m, d, i, c: None)]

    import importlib.metadata as md
    monkeypatch.setattr(md, "entry_points",
                        lambda group=None: [EP()] if group == registry.ENTRY_POINT_GROUP else [])
    monkeypatch.setattr(registry, "_entry_points_read", False)
    try:
        assert registry.mjp_getPlugin("ep.zero")[0] is not None
    finally:
        _unregister("ep.zero")


TOUCH = "/work/shared/models/mujoco/model/plugin/sensor/touch_grid.xml"


@pytest.mark.skipif(not os.path.exists(TOUCH), reason="MuJoCo's models not found")
def test_touch_grid_matches_mujoco():
    """MuJoCo's touch_grid.xml (an ellipsoid on a height field, a 3-channel 7x7 grid).

    Noise floor measured: mujoco against itself with qpos[0] moved by 1e-12 differs by up to
    2.7e-9 in sensordata (|sensordata| up to 22) over steps 100-300 and 5e-9 later; the engine
    differs by 1.4e-12 over the first 300 steps (then the contact solution drifts, 4e-8 in qpos
    by step 600, which is the contact pipeline's, not the plugin's). So: the first 300 steps
    within 1e-8; then the sensor evaluated by both on mujoco's state at step 1000, within 1e-8."""
    ours, theirs = engine.MjModel.from_xml_path(TOUCH), mujoco.MjModel.from_xml_path(TOUCH)
    for f in ("nplugin", "plugin_attr", "plugin_attradr", "sensor_dim", "sensor_needstage",
              "sensor_plugin", "sensor_type", "sensor_objtype", "sensor_objid", "sensor_adr"):
        np.testing.assert_array_equal(np.asarray(getattr(ours, f)), np.asarray(getattr(theirs, f)),
                                      err_msg=f)
    do, dt = engine.MjData(ours), mujoco.MjData(theirs)
    for i in range(300):
        engine.mj_step(ours, do)
        mujoco.mj_step(theirs, dt)
        np.testing.assert_allclose(do.sensordata, dt.sensordata, rtol=0, atol=1e-8,
                                   err_msg=f"step {i}")
    assert np.abs(dt.sensordata).max() > 0.1    # the grid saw the contacts
    for _ in range(700):
        mujoco.mj_step(theirs, dt)
    for f in ("qpos", "qvel", "qacc_warmstart"):
        getattr(do, f)[:] = getattr(dt, f)
    do.time = dt.time
    mujoco.mj_forward(theirs, dt)
    engine.mj_forward(ours, do)
    assert do.ncon == dt.ncon
    np.testing.assert_allclose(do.sensordata, dt.sensordata, rtol=0, atol=1e-8)


class BodyDrag(Plugin):
    """A passive plugin attached to bodies (<body><plugin>): linear drag on its body's dofs."""
    name = "test.bodydrag"
    capabilities = PASSIVE
    attributes = ("b",)

    def compute(self, m, d, instance, capability):
        b = float(registry.plugin_config(m, instance, "b"))
        for body in np.nonzero(m.body_plugin == instance)[0]:
            a, n = m.body_dofadr[body], m.body_dofnum[body]
            d.qfrc_passive[a:a + n] -= b * d.qvel[a:a + n]


def test_body_plugin_elements():
    """<body><plugin> makes the body's instance (body_plugin), explicit or implicit; the
    passive force acts as the same force from mjcb_passive in mujoco."""
    mjp_registerPlugin(BodyDrag())
    xml = """<mujoco><extension><plugin plugin="test.bodydrag"><instance name="d1">
      <config key="b" value="0.5"/></instance></plugin></extension><worldbody>
      <body name="a" pos="0 0 1"><joint type="slide" axis="1 0 0"/><geom size=".1"/>
        <plugin instance="d1"/></body>
      <body name="b" pos="1 0 1"><joint type="slide" axis="0 1 0"/><geom size=".1"/>
        <plugin plugin="test.bodydrag"><config key="b" value="2"/></plugin></body>
      <body name="c" pos="2 0 1"><joint type="slide" axis="0 0 1"/><geom size=".1"/></body>
    </worldbody></mujoco>"""
    ref = xml[:xml.index("<extension>")] + xml[xml.index("<worldbody>"):]
    ref = ref.replace('<plugin instance="d1"/>', "").replace(
        '<plugin plugin="test.bodydrag"><config key="b" value="2"/></plugin>', "")
    try:
        m = engine.MjModel.from_xml_string(xml)
        assert list(m.body_plugin) == [-1, 0, 1, -1] and m.nplugin == 2
        d = engine.MjData(m)
        r = mujoco.MjModel.from_xml_string(ref)
        rd = mujoco.MjData(r)
        mujoco.set_mjcb_passive(lambda m_, d_: d_.qfrc_passive.__isub__(
            np.array([0.5, 2.0, 0.0]) * d_.qvel))
        for dd in (d, rd):
            dd.qvel[:] = 1.0, -1.0, 0.5
        for _ in range(100):
            engine.mj_step(m, d)
            mujoco.mj_step(r, rd)
        np.testing.assert_allclose(np.concatenate([d.qpos, d.qvel]),
                                   np.concatenate([rd.qpos, rd.qvel]), rtol=TOL, atol=TOL)
        with pytest.raises(engine.XMLError, match="only one <plugin>"):
            engine.MjModel.from_xml_string(xml.replace('<plugin instance="d1"/>',
                                                       '<plugin instance="d1"/>' * 2))
    finally:
        mujoco.set_mjcb_passive(None)
        _unregister("test.bodydrag")
