"""Rules the model fuzzing (bench/fuzz_models.py, issue 25) brought in, each engine against
mujoco 4.0.0 on the same model: the default arena, numbers written as inf or nan, references
to elements of a <replicate>, meshes with extreme vertices."""
from __future__ import annotations

import copy
import sys
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from oracle import MODELS, mujoco, mujoco_model_or_skip

import engine
from engine.data import _CONTACT_BYTES, _mujoco_row_bytes, capacity, default_arena_bytes

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import fuzz_models  # noqa: E402
from test_fuzz_parity import _both  # noqa: E402

CORPUS = ("kuka_iiwa_14", "robotiq_2f85", "shadow_hand", "agility_cassie", "humanoid.xml",
          "slider_crank", "car.xml", "balloons", "testdata/weld", "testdata/inertia",
          "gymnasium/ant", "dm_control/finger")


# ---- capacity: the default arena (seed 000 size/memory, seed 001 "Memory allocation") --------
@pytest.mark.parametrize("mid", CORPUS)
def test_capacity_covers_mujoco_arena(mid):
    """Without <size memory>, the engine's guess is mujoco's m.narena, and each of its pools
    (contacts, constraint rows at mujoco's cost per row) alone holds that many bytes: whatever
    mix of contacts and rows fits mujoco's one arena fits the engine's."""
    if not MODELS.exists():
        pytest.skip(f"{MODELS} absent")
    path = next(p for k, p in fuzz_models.models() if mid in k)
    theirs = mujoco_model_or_skip(path)
    ours = engine.MjModel.from_xml_path(str(path))
    assert ours.__dict__.get("narena", -1) < 0, "the model sets <size memory>"
    assert default_arena_bytes(ours) == theirs.narena
    ncon, nj = capacity(ours)
    assert ncon * _CONTACT_BYTES >= theirs.narena
    assert nj * _mujoco_row_bytes(ours) >= theirs.narena


def _pile(n):
    """inertia.xml with its third body (a chain of capsules) copied ``n`` times 0.1 apart:
    overlapping geoms, thousands of contact rows at the first step."""
    root = ET.fromstring((MODELS / "mujoco/test/engine/testdata/inertia.xml").read_text())
    wb = root.find("worldbody")
    body = list(wb)[2]
    rep = ET.Element("replicate", count=str(n), offset="0.1 0 0")
    wb.remove(body)
    rep.append(body)
    wb.insert(2, rep)
    return ET.tostring(root, encoding="unicode")


def test_capacity_pile_of_overlapping_bodies():
    """The fuzz case that overflowed (4180 rows needed, 4177 held): mujoco steps it in its
    default arena, so the engine's default holds it too."""
    if not MODELS.exists():
        pytest.skip(f"{MODELS} absent")
    xml = _pile(30)
    mm = mujoco.MjModel.from_xml_string(xml)
    md = mujoco.MjData(mm)
    most = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(10):
            mujoco.mj_step(mm, md)
            most = max(most, md.nefc)
    assert most > 4180   # the case still needs more rows than the old default held
    m = engine.MjModel.from_xml_string(xml)
    d = engine.MjData(m)
    assert capacity(m)[1] >= most
    engine.mj_step(m, d, 10)
    assert d.nefc > 0


def test_capacity_given_memory_holds_mujoco_rows(tmp_path):
    """With <size memory="10M"> (active_adhesion), a NaN slide axis makes 6626 rows at the first
    step: mujoco holds them in its 10M (5.8 MB used); so does the engine (it held 5221)."""
    src = MODELS / "mujoco/model/adhesion/active_adhesion.xml"
    if not src.exists():
        pytest.skip(f"{src} absent")
    d = fuzz_models._mirror(src, tmp_path)
    path = d / "nan_axis.xml"
    old = '<joint type="slide" axis="1 0 0"/>'
    path.write_text(src.read_text().replace(old, old.replace("1 0 0", "1 -inf 0")))
    mm = mujoco.MjModel.from_xml_path(str(path))
    md = mujoco.MjData(mm)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mujoco.mj_step(mm, md, 10)
    m = engine.MjModel.from_xml_path(str(path))
    assert m.narena == mm.narena == 10 << 20
    assert capacity(m)[1] >= md.nefc > 5221
    data = engine.MjData(m)
    engine.mj_step(m, data, 10)


# ---- references to replicated elements (seed 000 "replicate") --------------------------------
_REP_TREE = ('<body name="b"><joint name="j"/><geom name="g" size=".1"/><site name="s"/>'
             '<body name="c"><joint name="k"/><geom name="h" size=".1"/><site name="t"/></body>'
             '</body>')
_REP_CASES = {
    "weld_inside": '<equality><weld body1="b"/></equality>',
    "weld_world": '<equality><weld body1="b" body2="world"/></equality>',
    "weld_outside": '<equality><weld body1="fixed" body2="b"/></equality>',
    "weld_outside2": '<equality><weld body1="b" body2="fixed"/></equality>',
    "connect_inside": '<equality><connect body1="b" body2="c" anchor="0 0 0"/></equality>',
    "joint_eq_mixed": '<equality><joint joint1="k" joint2="jf"/></equality>',
    "site_eq_mixed": '<equality><weld site1="sf" site2="s"/></equality>',
    "eq_order": '<equality><weld body1="b"/><weld body1="fixed"/><joint joint1="j"/></equality>',
    "tendon_chain": ('<tendon><fixed name="t"><joint joint="j" coef="1"/></fixed></tendon>'
                     '<equality><tendon tendon1="t"/></equality>'
                     '<actuator><motor tendon="t"/></actuator>'),
    "tendon_eq_mixed": ('<tendon><fixed name="tf"><joint joint="jf" coef="1"/></fixed>'
                        '<fixed name="t"><joint joint="j" coef="1"/></fixed></tendon>'
                        '<equality><tendon tendon1="t" tendon2="tf"/></equality>'),
    "tendon_mixed": '<tendon><fixed><joint joint="jf" coef="1"/><joint joint="j" coef="1"/>'
                    '</fixed></tendon>',
    "tendon_sidesite": ('<tendon><spatial><site site="sf"/><geom geom="gf" sidesite="s"/>'
                        '<site site="sf"/></spatial></tendon>'),
    "actuator_refsite_out": '<actuator><motor site="s" refsite="sf" gear="1 0 0 0 0 0"/></actuator>',
    "actuator_site_out": '<actuator><motor site="sf" refsite="s" gear="1 0 0 0 0 0"/></actuator>',
    "actuator_inside": ('<actuator><motor name="m" site="t" refsite="s" gear="1 0 0 0 0 0"/>'
                        '<general cranksite="s" slidersite="t" cranklength=".1"/></actuator>'),
    "crank_mixed": '<actuator><general cranksite="sf" slidersite="s" cranklength=".1"/></actuator>',
    "sensor_mixed": ('<sensor><touch site="sf"/><framepos objtype="site" objname="sf" '
                     'reftype="site" refname="s"/><jointpos joint="j"/><touch site="sf"/></sensor>'),
    "pair_exclude_mixed": ('<contact><pair geom1="gf" geom2="g"/><exclude body1="fixed" body2="b"/>'
                           '</contact>'),
}


def _rep_model(lib, extra, count):
    return lib.MjModel.from_xml_string(
        '<mujoco><worldbody><body name="fixed"><joint name="jf"/><geom name="gf" size=".1"/>'
        f'<site name="sf"/></body><replicate count="{count}" offset="1 0 0">{_REP_TREE}'
        f'</replicate></worldbody>{extra}</mujoco>')


@pytest.mark.parametrize("count", [3, 0])
@pytest.mark.parametrize("case", sorted(_REP_CASES))
def test_replicate_references(case, count):
    """Elements outside a <replicate> that refer into it: copied per replica, kept or dropped,
    and in which order, as mujoco 4.0.0 (each replica an attach of the subtree, the original
    then deleted with what still refers to it; count 0 drops every such element)."""
    theirs = _rep_model(mujoco, _REP_CASES[case], count)
    ours = _rep_model(engine, _REP_CASES[case], count)
    for k in ("neq", "nu", "nsensor", "ntendon", "npair", "nexclude", "nwrap"):
        assert getattr(ours, k) == getattr(theirs, k), k
    for k in ("eq_obj1id", "eq_obj2id", "eq_type", "actuator_trnid", "actuator_trntype",
              "sensor_objid", "sensor_refid", "sensor_type", "wrap_objid", "pair_geom1",
              "pair_geom2", "exclude_signature", "tendon_adr"):
        np.testing.assert_array_equal(getattr(ours, k), getattr(theirs, k), err_msg=k)
    names = [engine.mj_id2name(ours, engine.mjtObj.mjOBJ_ACTUATOR, i) for i in range(ours.nu)]
    assert names == [mujoco.mj_id2name(theirs, mujoco.mjtObj.mjOBJ_ACTUATOR, i)
                     for i in range(theirs.nu)]


@pytest.mark.parametrize("count", [3, 0])
@pytest.mark.parametrize("extra", [
    '<equality><weld body1="b" body2="fixed"/></equality>', '<equality><weld body1="b"/></equality>',
    '<actuator><general cranksite="sf" slidersite="s" cranklength=".1"/></actuator>',
    '<tendon><fixed><joint joint="jf" coef="1"/><joint joint="j" coef="1"/></fixed></tendon>',
    '<contact><pair geom1="g" geom2="gf"/></contact>',
    '<sensor><framepos objtype="site" objname="s" reftype="site" refname="sf"/></sensor>'])
def test_replicate_reference_to_a_later_element(extra, count):
    """An element that refers into a replicate and to a tree element written after it (body
    'fixed' after the <replicate>): mujoco attaches each replica when its reader reaches it,
    before the later element exists, so the element is neither copied nor deleted and its
    reference into the replicate is unknown: both reject (a reference only into the replicate
    is copied as usual)."""
    xml = ('<mujoco><worldbody><replicate count="{c}" offset="1 0 0"><body name="b"><joint '
           'name="j"/><geom name="g" size=".1"/><site name="s"/></body></replicate>'
           '<body name="fixed"><freejoint/><geom name="gf" size=".1"/><site name="sf"/></body>'
           '<body><joint name="jf"/><geom size=".1"/></body></worldbody>{x}</mujoco>'
           ).format(c=count, x=extra)
    ours, theirs = _both(xml)
    assert (ours is None) == (theirs is None), (ours, theirs)


# ---- inf and nan in numbers: read as strtod reads them, then mujoco's own comparisons --------
_NUM = ('<mujoco><option {opt}/><worldbody><body pos="0 0 1" {body}><joint name="j" {joint}/>'
        '<geom size=".1" {geom}/>{inertial}</body></worldbody>'
        '<actuator><{act_tag} joint="j" {act}/></actuator></mujoco>')
_NUM_CASES = [
    # accepted by both (the model then carries the NaN or inf)
    dict(opt='timestep="nan"'), dict(opt='timestep="-inf"'), dict(opt='timestep="-0.001"'),
    dict(opt='gravity="0 0 nan"'), dict(geom='mass="nan"'), dict(geom='friction="nan"'),
    dict(geom='solref="-inf 1"'), dict(geom='rgba="1 1 1 nan"'), dict(geom='quat="nan 0 0 1"'),
    dict(body='quat="1 -inf 0 0"'), dict(body='euler="0 inf 0"'), dict(joint='axis="0 nan 1"'),
    dict(joint='range="nan 1" limited="true"'), dict(joint='range="-inf inf" limited="true"'),
    dict(joint='damping="nan"'), dict(joint='armature="-inf"'),
    dict(joint='actuatorfrcrange="nan 1" actuatorfrclimited="true"'),
    dict(act='ctrlrange="nan 1" ctrllimited="true"'), dict(act='gear="-inf"'),
    dict(act='forcerange="1 nan" forcelimited="true"'),
    dict(act_tag="position", act='kp="-inf"'), dict(act_tag="position", act='kp="-1"'),
    dict(act_tag="velocity", act='kv="-1"'),
    # rejected by both
    dict(inertial='<inertial pos="0 0 0" mass="nan" diaginertia="1 1 1"/>'),
    dict(geom='size="nan"', size=False), dict(geom='fromto="0 0 0 0 0 nan"', size=False),
    dict(geom='pos="nan 0 0"'), dict(geom='density="nan"'), dict(geom='mass="-inf"'),
    dict(joint='range="1 -1" limited="true"'),
    dict(inertial='<inertial pos="0 0 0" mass="-inf" diaginertia="1 1 1"/>'),
    dict(act_tag="position", act='kv="-1"'), dict(act_tag="position", act='dampratio="-1"'),
    dict(geom='condim="nan"'),
    dict(inertial='<inertial pos="0 0 0" mass="1" diaginertia="3e-5 3e-5 inf"/>'),
    dict(inertial='<inertial pos="0 0 0" mass="1" diaginertia="1 nan 1"/>'),
    # accepted by both: an infinite mass passes mujoco's comparisons
    dict(inertial='<inertial pos="0 0 0" mass="inf" diaginertia="1 1 1"/>'),
    dict(geom='mass="inf"'),
]


def _num_xml(case):
    d = dict(opt="", body="", joint="", geom="", inertial="", act_tag="motor", act="")
    d.update({k: v for k, v in case.items() if k != "size"})
    xml = _NUM.format(**d)
    if case.get("size") is False:   # the case sets the geom's size itself
        xml = xml.replace('<geom size=".1" ', '<geom ')
    return xml


@pytest.mark.parametrize("case", _NUM_CASES, ids=lambda c: " ".join(str(v) for v in c.values()))
def test_inf_nan_numbers_decided_as_mujoco(case):
    """A real attribute reads inf and nan (mujoco reads numbers with strtod); the compiler's
    checks then decide as mujoco's comparisons do (a NaN bound passes a range test, a NaN geom
    size or a NaN mass summed from geoms fails), and the step runs without an exception."""
    xml = _num_xml(case)
    ours_err, theirs_err = _both(xml)
    assert (ours_err is None) == (theirs_err is None), (ours_err, theirs_err)
    if ours_err is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours, theirs = engine.MjModel.from_xml_string(xml), mujoco.MjModel.from_xml_string(xml)
            engine.mj_step(ours, engine.MjData(ours), 5)
            mujoco.mj_step(theirs, mujoco.MjData(theirs), 5)
        for k in ("opt_timestep", "opt_gravity", "geom_friction", "geom_rgba", "jnt_range",
                  "jnt_axis", "dof_damping", "dof_armature", "actuator_ctrlrange",
                  "actuator_gear", "actuator_gainprm", "actuator_biasprm", "body_mass",
                  "geom_solref"):
            a = getattr(ours, k) if not k.startswith("opt_") else getattr(ours.opt, k[4:])
            b = getattr(theirs, k) if not k.startswith("opt_") else getattr(theirs.opt, k[4:])
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-9, equal_nan=True, err_msg=k)
        # body_quat / geom_quat: not compared. mujoco keeps a NaN quaternion's finite parts
        # ("nan 0 0 1" stays so); the engine composes it with the (identity) frame and every
        # part is NaN. Both models are NaN either way and warn at the first step.



@pytest.mark.parametrize("geom", [
    'type="capsule" size="inf .5"', 'type="capsule" size=".1 inf"',
    'type="capsule" fromto="0 0 0 1 0 inf" size=".1"', 'type="capsule" size=".1 .5" mass="inf"',
    'type="capsule" size=".1 .5" density="inf"', 'type="capsule" size="inf .5" mass="1"',
    'type="capsule" size="inf .5" shellinertia="true"',
    'type="cylinder" size="inf .5"', 'type="box" size=".1 inf .1"', 'type="sphere" size="inf"',
    'type="ellipsoid" size=".1 .1 inf"', 'type="cylinder" size=".1 .5" mass="inf"'])
def test_infinite_geom_mass_decided_as_mujoco(geom):
    """A geom of infinite size, mass or density on a moving body: mujoco refuses a capsule (its
    mass is split between cylinder and hemispheres as mass - mass * fraction: inf - inf, a NaN
    inertia) and compiles the other primitives with an infinite inertia."""
    for body in ('<body><freejoint/><geom {}/></body>', '<body><joint/><geom {}/></body>'):
        xml = f"<mujoco><worldbody>{body.format(geom)}</worldbody></mujoco>"
        ours, theirs = _both(xml)
        assert (ours is None) == (theirs is None), (ours, theirs)

# ---- mesh files ----------------------------------------------------------------------------------
def _tetra_stl(path, big):
    """A binary STL tetrahedron with one corner at x = ``big``."""
    import struct
    p = [(0.0, 0.0, 0.0), (big, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)]
    tris = [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]
    with open(path, "wb") as f:
        f.write(b"\0" * 80 + struct.pack("<I", len(tris)))
        for t in tris:
            f.write(struct.pack("<3f", 0, 0, 0))
            for k in t:
                f.write(struct.pack("<3f", *p[k]))
            f.write(b"\0\0")


@pytest.mark.parametrize("big", [2.0 ** 30, 2.0 ** 30 * 1.01, 1e12])
def test_stl_vertex_bound(tmp_path, big):
    """mujoco's STL decoder refuses a vertex beyond 2^30 ("exceeds maximum bounds")."""
    path = tmp_path / f"t{big:.0f}.stl"
    _tetra_stl(path, big)
    ours, theirs = _both(f'<mujoco><asset><mesh name="m" file="{path}"/></asset><worldbody>'
                         '<geom type="mesh" mesh="m"/></worldbody></mujoco>')
    assert (ours is None) == (theirs is None) == (big <= 2.0 ** 30), (ours, theirs)


def test_urdf_repeated_collision_shape_rejected(tmp_path):
    """Two <box> in one collision <geometry>: mujoco's URDF reader says "repeated element"."""
    text = ('<robot name="r"><link name="a"><inertial><mass value="1"/><inertia ixx="1" '
            'iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial><collision><geometry>'
            '<box size="1 1 1"/>{}</geometry></collision></link></robot>')
    for twice, bad in (("", False), ('<box size="1 1 1"/>', True)):
        path = tmp_path / f"r{int(bad)}.urdf"
        path.write_text(text.format(twice))
        errs = []
        for lib in (engine, mujoco):
            try:
                lib.MjModel.from_xml_path(str(path))
                errs.append(None)
            except ValueError as e:
                errs.append(str(e))
        assert (errs[0] is not None) == (errs[1] is not None) == bad, errs


_URDF = ('<robot name="r"><link name="a"/><link name="b"><inertial><origin {io}/><mass value="1"/>'
         '<inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>'
         '<joint name="j" type="revolute"><parent link="a"/><child link="b"/><origin {jo}/>'
         '<axis xyz="0 1 0"/><limit {lim}/><dynamics {dyn}/></joint></robot>')
_URDF_BASE = dict(io='xyz="0 0 0"', jo='xyz="0 0 1" rpy="0 0 0"',
                  lim='lower="-1" upper="1" effort="1" velocity="1"',
                  dyn='damping="0.5" friction="0.1"')


@pytest.mark.parametrize("key,value", [
    ("jo", 'xyz="" rpy="0 0 0"'), ("jo", 'xyz="0 0 1" rpy=""'),
    ("lim", 'lower="" upper="1" effort="1" velocity="1"'),
    ("lim", 'lower="-1" upper="1" effort="" velocity="1"'), ("dyn", 'damping="" friction="0.1"'),
    ("dyn", 'damping="0.5" friction=""'), ("io", 'xyz=""'), ("jo", 'xyz="1 2" rpy="0 0 0"'),
    ("inertia", 'ixx=""')])
def test_urdf_empty_number_is_zero(tmp_path, key, value):
    """An empty URDF number reads as zeros in mujoco's reader (too few values stay an error,
    and an empty required one is missing: the inertia's)."""
    path = tmp_path / "r.urdf"
    if key == "inertia":
        text = _URDF.format(**_URDF_BASE).replace('ixx="1"', value)
    else:
        text = _URDF.format(**dict(_URDF_BASE, **{key: value}))
    path.write_text(text)
    out = []
    for lib in (engine, mujoco):
        try:
            out.append(lib.MjModel.from_xml_path(str(path)))
        except ValueError:
            out.append(None)
    ours, theirs = out
    assert (ours is None) == (theirs is None)
    if ours is not None:
        for k in ("body_pos", "body_quat", "jnt_range", "dof_damping", "dof_frictionloss",
                  "body_ipos", "jnt_actfrcrange"):
            np.testing.assert_allclose(getattr(ours, k), getattr(theirs, k), atol=1e-12,
                                       err_msg=k)


@pytest.mark.parametrize("tail", ["v 0.5 0.5", "v 0.5"])
def test_obj_short_record_reads_zeros(tmp_path, tail):
    """An OBJ record cut short (a truncated file) reads its missing numbers as 0 and loads,
    as in mujoco (tinyobjloader)."""
    path = tmp_path / "t.obj"
    path.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"
                    + tail + "\n")
    xml = (f'<mujoco><asset><mesh name="m" file="{path}"/></asset><worldbody><body><freejoint/>'
           '<geom type="mesh" mesh="m"/></body></worldbody></mujoco>')
    ours, theirs = _both(xml)
    assert ours is None and theirs is None, (ours, theirs)
    a, b = engine.MjModel.from_xml_string(xml), mujoco.MjModel.from_xml_string(xml)
    assert a.nmeshvert == b.nmeshvert
    np.testing.assert_allclose(a.mesh_vert, b.mesh_vert, atol=1e-6)


@pytest.mark.parametrize("io", ['rpy="nan nan nan"', 'rpy="0 nan 0"'])
def test_urdf_nan_inertial_rotation_rejected(tmp_path, io):
    """A NaN rotation of a URDF <inertial> makes mujoco's turned tensor NaN: the body fails
    the mass and inertia check, in both."""
    path = tmp_path / "r.urdf"
    path.write_text(_URDF.format(**dict(_URDF_BASE, io=io)))
    for lib in (engine, mujoco):
        with pytest.raises(ValueError, match="mass and inertia"):
            lib.MjModel.from_xml_path(str(path))


@pytest.mark.parametrize("body", [
    '<site size="nan"/><geom size=".1"/>',                                   # both accept
    '<geom size=".1"/><geom size=".1" mass="0" quat="0 0 nan 1"/>',          # both accept
    '<geom size=".1"/><geom size=".1" pos="nan 0 0"/>',                      # both reject
    '<geom size=".1" pos="nan 0 0"/>',                                       # both accept
])
def test_nan_in_a_body_decided_as_mujoco(body):
    """A NaN site size passes (only a geom's is checked); a massless geom's NaN pose does not
    reach the body's inertia; a NaN pose among several massive geoms makes it NaN (rejected);
    a lone geom's NaN position only moves the centre of mass."""
    ours, theirs = _both(f'<mujoco><worldbody><body><joint/>{body}</body></worldbody></mujoco>')
    assert (ours is None) == (theirs is None), (ours, theirs)
