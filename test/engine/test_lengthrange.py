"""Actuator length ranges computed by simulation (<compiler><lengthrange>, MuJoCo's
mj_setLengthRange) and geom shellinertia on ellipsoids: our compiler against the official
mujoco.

Tolerances: the length range is the end of a 10-30 s damped simulation, so it inherits every
difference of the two engines' steps. With the constraint solver converged tightly
(``tolerance="1e-14"``) both simulate the same thing and agree to 1e-9 relative (measured
~1e-12); with the solver's default tolerance 1e-8 the two Newton solvers stop after different
iterations (~1e-8 per step) and a long run amplifies that to ~1e-5 (stated per case below).
"""
import re

import numpy as np
import pytest

from oracle import MODELS, TEST_MODELS, mujoco  # noqa: F401  (skips when the oracle is absent)

import engine
from compile_corpus import FIELDS, mismatches

JOINTS = TEST_MODELS / "lengthrange_joints.xml"
TENDONS = TEST_MODELS / "lengthrange_tendons.xml"


def _with(path, lengthrange=None, option=None, replace=()):
    """The model's text with <compiler><lengthrange> attributes and <option> attributes set."""
    text = path.read_text()
    for a, b in replace:
        assert a in text
        text = text.replace(a, b)
    if lengthrange:
        if "<lengthrange" in text:
            for k, v in lengthrange.items():
                elem = re.search(r"<lengthrange[^>]*>", text).group(0)
                new = (re.sub(rf'{k}="[^"]*"', f'{k}="{v}"', elem) if f" {k}=" in elem
                       else elem.replace("<lengthrange", f'<lengthrange {k}="{v}"'))
                text = text.replace(elem, new)
        else:
            attrs = " ".join(f'{k}="{v}"' for k, v in lengthrange.items())
            text = re.sub(r"(<mujoco[^>]*>)", rf"\1<compiler><lengthrange {attrs}/></compiler>",
                          text, count=1)
    if option:
        attrs = " ".join(f'{k}="{v}"' for k, v in option.items())
        text = text.replace("<option", f"<option {attrs}", 1)
    return text


def _both(text):
    return mujoco.MjModel.from_xml_string(text), engine.MjModel.from_xml_string(text)


def _assert_same_model(ours, theirs, rtol, atol):
    lr_o, lr_t = np.asarray(ours.actuator_lengthrange), np.asarray(theirs.actuator_lengthrange)
    np.testing.assert_allclose(lr_o, lr_t, rtol=rtol, atol=atol)
    # everything else the compiler conformance suite compares (muscle parameters included)
    bad = mismatches(ours, theirs)
    assert not bad, bad


TIGHT = {"tolerance": "1e-14"}

# (id, model, <lengthrange> attributes, <option> attributes, rtol)
CASES = [
    ("joints-default", JOINTS, None, TIGHT, 1e-9),
    ("joints-default-solvertol", JOINTS, None, None, 1e-6),
    ("joints-all", JOINTS, {"mode": "all"}, TIGHT, 1e-9),
    ("joints-none", JOINTS, {"mode": "none"}, None, 0),
    ("joints-muscleuser", JOINTS, {"mode": "muscleuser", "useexisting": "false"}, TIGHT, 1e-9),
    ("joints-recompute", JOINTS, {"useexisting": "false"}, TIGHT, 1e-9),
    ("joints-uselimit", JOINTS, {"uselimit": "true", "mode": "all"}, TIGHT, 1e-9),
    ("joints-options", JOINTS, {"accel": "7", "maxforce": "0.8", "timeconst": "0.3",
                                "timestep": "0", "inttotal": "6", "interval": "1"}, TIGHT, 1e-9),
    ("joints-implicitfast", JOINTS, None, {**TIGHT, "integrator": "implicitfast"}, 1e-9),
    ("joints-implicit", JOINTS, None, {**TIGHT, "integrator": "implicit"}, 1e-9),
    ("joints-rk4", JOINTS, None, {**TIGHT, "integrator": "RK4"}, 1e-9),
    ("joints-model-disables-limits", JOINTS, None,
     {**TIGHT, "density": "1.2", "viscosity": "0.1"}, 1e-9),
    ("tendons-tight", TENDONS, None, TIGHT, 1e-9),
    ("tendons-default-solvertol", TENDONS, None, None, 1e-4),
    ("tendons-uselimit", TENDONS, {"uselimit": "true"}, TIGHT, 1e-9),
]


@pytest.mark.parametrize("name,path,lr,opt,rtol", CASES, ids=[c[0] for c in CASES])
def test_length_range_matches_mujoco(name, path, lr, opt, rtol):
    text = _with(path, lr, opt)
    if name == "joints-model-disables-limits":
        # the model disables limits, gravity and contacts and has fluid forces: the simulation
        # replaces the disable flags (limits act) and, like MuJoCo's, has no fluid forces
        text = text.replace("<option", '<option><flag limit="disable" gravity="disable"/>'
                            "</option><option", 1)
    theirs, ours = _both(text)
    _assert_same_model(ours, theirs, rtol, 1e-12)
    assert (ours.opt.disableflags, ours.opt.timestep) == (theirs.opt.disableflags,
                                                          theirs.opt.timestep)


def test_mode_selects_actuators():
    """mode=muscle leaves the motor and the servo at 0 0; all computes them; uselimit copies the
    joint range as given (not scaled by the gear)."""
    m = engine.MjModel.from_xml_string(_with(JOINTS, None, TIGHT))
    assert np.all(m.actuator_lengthrange[5:] == 0)
    assert np.all(m.actuator_lengthrange[:4, 0] < m.actuator_lengthrange[:4, 1])
    np.testing.assert_array_equal(m.actuator_lengthrange[4], (-0.5, 0.9))  # useexisting
    m = engine.MjModel.from_xml_string(_with(JOINTS, {"mode": "all", "uselimit": "true"}))
    np.testing.assert_allclose(m.actuator_lengthrange[0], np.radians([-40, 60]), rtol=1e-12)
    np.testing.assert_allclose(m.actuator_lengthrange[1], (-0.05, 0.1))  # gear 2 not applied
    np.testing.assert_allclose(m.actuator_lengthrange[5], np.radians([-40, 60]), rtol=1e-12)


def test_only_lengthrange_depends_on_the_computation():
    """Measured with the oracle: between mode none and the computed ranges only
    actuator_lengthrange changes (the muscle gain/bias parameters keep force=-1 and the
    lmin/lmax they were given: they are resolved at run time)."""
    none = mujoco.MjModel.from_xml_string(_with(JOINTS, {"mode": "none"}))
    comp = mujoco.MjModel.from_xml_string(_with(JOINTS, None))
    changed = [f for f in FIELDS if hasattr(none, f) and
               not np.array_equal(np.asarray(getattr(none, f)), np.asarray(getattr(comp, f)))]
    assert changed == []
    assert not np.array_equal(none.actuator_lengthrange, comp.actuator_lengthrange)
    for f in ("actuator_gainprm", "actuator_biasprm", "actuator_dynprm", "actuator_acc0",
              "actuator_length0"):
        np.testing.assert_array_equal(getattr(none, f), getattr(comp, f))


def _errors(text):
    with pytest.raises(ValueError) as theirs:
        mujoco.MjModel.from_xml_string(text)
    with pytest.raises(engine.CompileError) as ours:
        engine.MjModel.from_xml_string(text)
    return str(theirs.value), ours.value.message


ERRORS = {
    # no limit stops the joint: the length keeps moving during the recorded interval
    "unlimited-hinge": '''<mujoco><worldbody><body><joint name="j"/><geom size=".1" pos=".2 0 0"/>
        </body></worldbody><actuator><muscle joint="j"/></actuator></mujoco>''',
    # a site transmission has length 0: empty range
    "site": '''<mujoco><worldbody><body><joint range="-1 1"/><geom size=".1"/><site name="s"/>
        </body></worldbody><actuator><general site="s" gaintype="muscle" biastype="muscle"
        dyntype="muscle" gainprm="0.75 1.05 -1 200 0.5 1.6 1.5 1.3 1.2"
        biasprm="0.75 1.05 -1 200 0.5 1.6 1.5 1.3 1.2"/></actuator></mujoco>''',
    # the hand's pulley muscle is still moving at 10 s (it settles by 30 s): side 0 message
    "tendons-inttotal10": _with(TENDONS, {"inttotal": "10"}),
    # too strict a tolerance
    "tolrange": _with(JOINTS, {"tolrange": "1e-9", "inttotal": "2", "interval": "1.5"}),
    # shortening stops at the limit, lengthening never does: the side 1 message (one space less
    # before "range" than the side 0 one)
    "open-ended": '''<mujoco><worldbody><site name="a" pos="0 0 1"/><body pos="0.5 0 1">
        <joint type="slide" axis="1 0 0" range="-0.4 1000"/><geom size=".1"/><site name="b"/>
        </body></worldbody><tendon><spatial name="t"><site site="a"/><site site="b"/></spatial>
        </tendon><actuator><muscle tendon="t"/></actuator></mujoco>''',
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_mujoco(name):
    theirs, ours = _errors(ERRORS[name])
    assert theirs.startswith("Error: ")
    assert ours == theirs[len("Error: "):].rstrip("\n")


# ---- real models ------------------------------------------------------------------------------

def test_activation_model():
    """MuJoCo's actuation test model: a muscle on a limited spatial tendon to a free body, in a
    medium with density (fluid forces off during the simulation)."""
    path = MODELS / "mujoco/test/engine/testdata/actuation/activation.xml"
    if not path.exists():
        pytest.skip("shared models absent")
    theirs = mujoco.MjModel.from_xml_path(str(path))
    ours = engine.MjModel.from_xml_path(str(path))
    # the lower end is ~1e-3 (the tendon shortened to nothing): measured 1.2e-8 relative there
    np.testing.assert_allclose(ours.actuator_lengthrange, theirs.actuator_lengthrange,
                               rtol=1e-6, atol=1e-12)


def test_arm26_rejected_as_mujoco():
    path = MODELS / "mujoco/model/tendon_arm/arm26.xml"
    if not path.exists():
        pytest.skip("shared models absent")
    with pytest.raises(ValueError) as theirs:
        mujoco.MjModel.from_xml_path(str(path))
    with pytest.raises(engine.CompileError) as ours:
        engine.MjModel.from_xml_path(str(path))
    assert ours.value.message == str(theirs.value)[len("Error: "):].rstrip("\n")


# ---- geom shellinertia -------------------------------------------------------------------------

@pytest.mark.parametrize("size", ["0.1 0.2 0.3", "0.2 0.2 0.2", "0.3 0.1 0.1", "0.01 0.5 2"])
@pytest.mark.parametrize("extra", ["", ' mass="2.5"', ' density="7"'])
def test_shell_ellipsoid_inertia(size, extra):
    xml = f'''<mujoco><worldbody><body><freejoint/>
      <geom type="ellipsoid" size="{size}" shellinertia="true"{extra} euler="10 20 30"/>
      <geom type="sphere" size="0.05" pos="0.4 0 0"/></body></worldbody></mujoco>'''
    theirs, ours = _both(xml)
    np.testing.assert_allclose(ours.body_mass, theirs.body_mass, rtol=1e-10)
    assert not [b for b in mismatches(ours, theirs) if b[0] == "body inertia tensor"]
    np.testing.assert_allclose(ours.body_inertia, theirs.body_inertia, rtol=1e-9)


def test_shell_mesh_is_an_error():
    xml = '''<mujoco><asset><mesh name="m" vertex="0 0 0 1 0 0 0 1 0 0 0 1 1 1 1"/></asset>
      <worldbody><body><freejoint/><geom type="mesh" mesh="m" shellinertia="true"/></body>
      </worldbody></mujoco>'''
    with pytest.raises(ValueError, match="inertia should be specified in the mesh asset"):
        mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(engine.CompileError, match="inertia should be specified in the mesh asset"):
        engine.MjModel.from_xml_string(xml)
