"""Validation parity with mujoco 4.0.0 (issue 25): a fast subset of bench/fuzz_models.py (mutated
real models through both programs, each in a worker process with a timeout), and one test per
validation rule the fuzzing brought in, engine against mujoco on the same small model.

The subset's classes ``internal``, ``crash``, ``hang`` and ``engine_accepts_invalid`` must be
empty; ``engine_only_reject`` is reported by the bench (listed with the reasons), not asserted.
"""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest

from oracle import MODELS, mujoco

import engine

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import fuzz_models  # noqa: E402

# small models (each compiles in well under a second) so the subset stays fast
SUBSET = ("testdata/actuation", "testdata/connect", "testdata/weld", "testdata/inertia",
          "testdata/frame", "testdata/tendon_springlength", "gymnasium/hopper",
          "dm_control/acrobot", "dm_control/cartpole", "slider_crank", "double_pendulum",
          "kuka_iiwa_14")


def test_fuzz_subset(tmp_path):
    if not MODELS.exists():
        pytest.skip(f"{MODELS} absent")
    items = [(k, p) for k, p in fuzz_models.models() if any(s in k for s in SUBSET)]
    variants = fuzz_models.make_variants(items, 70, 25, tmp_path)
    res = fuzz_models.run(variants, jobs=2, timeout=60.0, progress=False)
    base = {r["model"] for r in res if r["kind"] == "orig" and r["class"] != "both_accept"}
    assert not base, f"unmutated models not accepted by both: {base}"
    bad = [r for r in res if r["class"] in fuzz_models.BAD]
    assert not bad, fuzz_models.report(bad, [])


# ---- one test per validation rule --------------------------------------------------------------
def _both(xml):
    """(engine's error or None, mujoco's error or None) for compiling ``xml`` and one step."""
    out = []
    for lib in (engine, mujoco):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                m = lib.MjModel.from_xml_string(xml)
                lib.mj_step(m, lib.MjData(m))
                out.append(None)
            except (ValueError, NotImplementedError) as e:
                out.append(str(e))
    return out


def _geom(attrs, body_attrs='pos="0 0 1"'):
    return (f'<mujoco><worldbody><body {body_attrs}><joint/><geom {attrs}/></body></worldbody>'
            '</mujoco>')


@pytest.mark.parametrize("attr,value", [("contype", "4294967296"), ("condim", "-2147483649"),
                                        ("pos", "1e400 0 0")])
def test_number_out_of_range_rejected(attr, value):
    """Int attributes are 32-bit and a double overflowing strtod is an error, in both."""
    ours, theirs = _both(_geom(f'size=".1" {attr}="{value}"'))
    assert theirs is not None and "too large" in theirs
    assert ours is not None and "too large" in ours and f"attribute '{attr}'" in ours


@pytest.mark.parametrize("attrs", ['size=".1" rgba=""', 'size=".1" condim=" "',
                                   'size=".1" pos=""', 'size=".1" friction=""'])
def test_empty_number_list_is_absent(attrs):
    """An empty numeric attribute is no attribute (mujoco keeps the default)."""
    ours, theirs = _both(_geom(attrs))
    assert theirs is None and ours is None


def test_massless_body_welded_mass_accepted():
    """Mass in a body welded below a massless moving body counts (both accept)."""
    ours, theirs = _both('<mujoco><worldbody><body><joint/><body pos="0 0 1"><geom size=".1"/>'
                         '</body></body></worldbody></mujoco>')
    assert ours is None and theirs is None


@pytest.mark.parametrize("count", ["0", "-1"])
def test_replicate_count_not_positive_makes_no_copy(count):
    xml = (f'<mujoco><worldbody><replicate count="{count}" offset="0.1 0 0"><geom size="1"/>'
           '</replicate></worldbody></mujoco>')
    m, mj = engine.MjModel.from_xml_string(xml), mujoco.MjModel.from_xml_string(xml)
    assert m.ngeom == mj.ngeom == 0


def test_replicate_count_too_large_rejected_at_once():
    xml = ('<mujoco><worldbody><replicate count="4294967296"><geom size="1"/></replicate>'
           '</worldbody></mujoco>')
    ours, theirs = _both(xml)
    assert "too large" in theirs and "too large" in ours and "count" in ours


def _chain(depth):
    body = '<body pos="0 0 .01"><joint axis="0 1 0"/><geom size=".002 .005" type="capsule"/>'
    return ("<mujoco><worldbody>" + body * depth + "</body>" * depth
            + "</worldbody></mujoco>")


@pytest.mark.parametrize("depth", [240, 496])
def test_deep_body_chain_compiles(depth):
    """Nesting is bounded by mujoco's XML depth limit (an element 499 deep is read, 500 is
    not: tinyxml2's), not by libxml2's default 256 nor Python's recursion limit: up to 496
    nested bodies, thousands of Python frames deep in the readers and compiler."""
    xml = _chain(depth)
    m, mj = engine.MjModel.from_xml_string(xml), mujoco.MjModel.from_xml_string(xml)
    assert m.nbody == mj.nbody == depth + 1
    d = engine.MjData(m)
    engine.mj_step(m, d)


def test_too_deep_nesting_rejected_as_mujoco():
    xml = _chain(497)
    with pytest.raises(ValueError, match="ELEMENT_DEPTH_EXCEEDED"):
        mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(ValueError, match="nesting is too deep"):
        engine.MjModel.from_xml_string(xml)


@pytest.mark.parametrize("xml", [
    # a site's sizes are checked as a geom's
    _geom('size=".1"/><site size="0"', ""),
    _geom('size=".1"/><site type="capsule" size=".1 -1"', ""),
    # the grid spacing of a plane must be positive
    '<mujoco><worldbody><geom type="plane" size="1 1"/></worldbody></mujoco>',
    # a spatial tendon's width
    '<mujoco><worldbody><site name="a"/><body><joint/><geom size=".1"/><site name="b" '
    'pos="0 0 1"/></body></worldbody><tendon><spatial width="-0.03"><site site="a"/>'
    '<site site="b"/></spatial></tendon></mujoco>',
    # the same site twice in a row in a spatial tendon
    '<mujoco><worldbody><site name="a"/><body><joint/><geom size=".1"/><site name="b" '
    'pos="0 0 1"/></body></worldbody><tendon><spatial><site site="a"/><site site="a"/>'
    '<site site="b"/></spatial></tendon></mujoco>',
    # a massless moving body whose mass is only beyond another joint
    '<mujoco><worldbody><body><joint/><body pos="0 0 1"><joint/><geom size=".1"/></body>'
    '</body></worldbody></mujoco>',
    # one element of each kind in a default class
    '<mujoco><default><joint damping="1"/><joint damping="2"/></default></mujoco>',
    # repeated names of kinds outside the tree
    '<mujoco><worldbody><body><joint name="j"/><geom size=".1"/></body></worldbody><actuator>'
    '<motor name="a" joint="j"/><motor name="a" joint="j"/></actuator></mujoco>',
    '<mujoco><asset><material name="m"/><material name="m"/></asset></mujoco>',
    '<mujoco><worldbody><body><joint name="j"/><geom size=".1"/></body></worldbody><sensor>'
    '<jointpos name="x" joint="j"/><jointpos name="x" joint="j"/></sensor></mujoco>',
], ids=["site_size0", "site_size_neg", "plane_grid", "tendon_width", "tendon_site_repeated",
        "massless_beyond_joint", "default_unique", "actuator_name", "material_name",
        "sensor_name"])
def test_rejected_as_mujoco(xml):
    ours, theirs = _both(xml)
    assert theirs is not None, "mujoco accepts this model: the test's premise is wrong"
    assert ours is not None, f"the engine accepts what mujoco rejects: {theirs}"


def _same_decision(xml):
    """Compile ``xml`` in both programs: when mujoco 4.0.0 rejects it (ValueError) the engine
    must too, and None is returned; else the engine must accept it: (ours, theirs)."""
    try:
        theirs = mujoco.MjModel.from_xml_string(xml)
    except ValueError:
        with pytest.raises(ValueError):
            engine.MjModel.from_xml_string(xml)
        return None
    return engine.MjModel.from_xml_string(xml), theirs


_LIMITS_BASE = ("<mujoco><worldbody><body name='bb'><joint name='a' {j}/><geom size='.1'/>"
                "<site name='s1'/><body pos='0 0 1'><joint name='b'/><geom size='.1'/>"
                "<site name='s2'/></body></body></worldbody>{rest}</mujoco>")
_LIMITS = [(j, "") for j in (
    "range='1 -1'", "range='1 1'", "range='1 -1' limited='true'", "range='-1 1'",
    "actuatorfrcrange='1 -1'", "actuatorfrcrange='1 1' actuatorfrclimited='true'")] + [
    ("", f"<tendon>{t}</tendon>") for t in (
        "<fixed limited='true' range='1 -1'><joint joint='a' coef='1'/></fixed>",
        "<fixed range='1 -1'><joint joint='a' coef='1'/></fixed>",
        "<fixed actuatorfrclimited='true' actuatorfrcrange='1 1'><joint joint='a' coef='1'/>"
        "</fixed>",
        "<fixed actuatorfrcrange='1 -1'><joint joint='a' coef='1'/></fixed>",
        "<spatial><site site='s1'/></spatial>", "<fixed/>", "<spatial/>",
        "<fixed><joint joint='a' coef='1'/><joint joint='b' coef='1'/>"
        "<joint joint='a' coef='2'/></fixed>")] + [
    ("", f"<actuator>{a}</actuator>") for a in (
        "<general joint='a' ctrlrange='1 -1'/>", "<general joint='a' ctrlrange='1 1' "
        "ctrllimited='true'/>", "<general joint='a' forcerange='1 -1'/>",
        "<general joint='a' forcerange='1 -1' forcelimited='true'/>",
        "<general joint='a' dyntype='integrator' actrange='1 1'/>",
        "<general joint='a' dyntype='integrator' actrange='1 -1' actlimited='true'/>",
        "<damper joint='a' kv='1'/>", "<adhesion body='bb' gain='1'/>",
        "<intvelocity joint='a' kp='1'/>", "<intvelocity joint='a' kp='1' actrange='-1 1'/>")]
_LIMIT_FIELDS = ("jnt_limited", "jnt_range", "jnt_actfrclimited", "tendon_limited",
                 "tendon_actfrclimited", "actuator_ctrllimited", "actuator_forcelimited",
                 "actuator_actlimited", "actuator_actrange")


@pytest.mark.parametrize("j,rest", _LIMITS)
def test_limits_as_mujoco(j, rest):
    """Limited flags and range checks of joints, tendons and actuators: "auto" is limited when
    the range is given and increasing (a non-increasing range then compiles unlimited), an
    explicit limit needs an increasing range; tendon path checks (empty, one-object spatial,
    repeated joint). The same decision as mujoco 4.0.0 and, when both compile, the same fields."""
    import numpy as np
    both = _same_decision(_LIMITS_BASE.format(j=j, rest=rest))
    if both is None:
        return
    ours, theirs = both
    for f in _LIMIT_FIELDS:
        np.testing.assert_array_equal(np.asarray(getattr(ours, f)), np.asarray(getattr(theirs, f)),
                                      err_msg=f)


_URDF = ("<robot name='r'><link name='a'><inertial><mass value='1'/><inertia ixx='{ixx}' "
         "iyy='1' izz='{izz}' ixy='{ixy}' ixz='0' iyz='0'/></inertial>{coll}</link><link name='b'>"
         "<inertial><mass value='1'/><inertia ixx='1' iyy='1' izz='1' ixy='0' ixz='0' iyz='0'/>"
         "</inertial></link><joint name='j' type='revolute'><parent link='a'/><child link='b'/>"
         "{jx}<limit lower='-1' upper='1' effort='1' velocity='1'/></joint></robot>")


@pytest.mark.parametrize("kw", [
    dict(jx="<axis xyz='1 0 0'/><axis xyz='0 1 0'/>"), dict(jx="<origin/><origin/>"),
    dict(jx="<parent link='a'/>"), dict(jx="<dynamics/><dynamics/>"),
    dict(jx="<calibration/><calibration/>"),
    dict(coll="<collision><geometry><box size='1 1 1'/></geometry><geometry><sphere "
              "radius='1'/></geometry></collision>"),
    dict(coll="<visual><geometry><box size='1 1 1'/></geometry><geometry><sphere "
              "radius='1'/></geometry></visual>"),
    dict(ixy="1"), dict(ixy="0.999999"), dict(ixx="0"), dict(ixx="0", izz="0", ixy="0"),
    dict(izz="2"), dict(izz="2.0001"), dict(ixx="-1")])
def test_urdf_rejected_as_mujoco(kw):
    """URDF children that may appear once (repeated element) and the full inertia checks
    (positive eigenvalues, A + B >= C), also on the root link the world absorbs: the same
    decision as mujoco 4.0.0."""
    args = dict(ixx="1", izz="1", ixy="0", coll="", jx="")
    args.update(kw)
    _same_decision(_URDF.format(**args))


@pytest.mark.parametrize("geom,rest", [
    ('density="-1"', ""), ('mass="-1"', ""), ('mass="-1" density="5"', ""),
    ('density="-0.0"', ""), ("", '<size njmax=""/>'), ("", '<size nconmax=""/>'),
    ("", '<size nstack=""/>'), ("", '<size nuserdata=""/>'),
    ("", '<sensor><contact num=""/></sensor>'), ("", '<sensor><contact/></sensor>')])
def test_geom_mass_and_empty_values_as_mujoco(geom, rest):
    """A negative density or mass on a geom (even when the body's total stays positive), and the
    attributes mujoco reads as required single values (empty: "problem reading attribute"):
    the same decision as mujoco 4.0.0."""
    _same_decision(f'<mujoco><worldbody><body><joint/><geom size=".1" {geom}/><geom size=".3" '
                   f'pos="0 0 1"/></body></worldbody>{rest}</mujoco>')


@pytest.mark.parametrize("orient", [
    'xyaxes="1e30 1 0 1 0 0"', 'xyaxes="1 0 0 0 1e-7 0"', 'xyaxes="1 0 0 0 1.1e-7 0"',
    'xyaxes="1e-7 0 0 0 1 0"', 'xyaxes="2e-7 0 0 0 1 0"', 'xyaxes="1e30 0 0 0 1e30 0"',
    'xyaxes="1e30 1e30 1e30 1e30 1e30 1e30"', 'xyaxes="1e30 1e30 0 1e30 1e30 1"',
    'zaxis="0 0 1e-7"', 'zaxis="0 0 2e-7"'])
@pytest.mark.parametrize("on", ["body", "camera"])
def test_orientation_vectors_as_mujoco(orient, on):
    """zaxis and xyaxes (x, and y's part orthogonal to x) refused below mujoco's threshold (a
    squared norm under 1e-14), accepted above it; same orientation when both accept."""
    import numpy as np
    if on == "body":
        xml = f'<mujoco><worldbody><body {orient}><geom size=".1"/></body></worldbody></mujoco>'
    else:
        xml = (f'<mujoco><worldbody><body><geom size=".1"/><camera {orient}/></body>'
               '</worldbody></mujoco>')
    both = _same_decision(xml)
    if both is None:
        return
    ours, theirs = both
    for f in ("body_quat", "cam_quat"):
        np.testing.assert_allclose(np.asarray(getattr(ours, f)), np.asarray(getattr(theirs, f)),
                                   atol=1e-12, err_msg=f)
