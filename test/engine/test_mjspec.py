"""engine.MjSpec compared with mujoco 4.0.0's MjSpec doing the same edits (seed 004, "editing
models"): the compiled models agree field by field with the compiler conformance tolerances
(compile_corpus.FIELDS), and a trajectory recompiled in the middle continues as mujoco's does."""
import copy
import pickle

import numpy as np
import pytest

from oracle import TEST_MODELS, mujoco, shared_model

import engine
from compile_corpus import mismatches
from test_save_xml import mujoco_mismatches


def both(build):
    """Run ``build(lib)`` -> spec with engine and with mujoco; compile each; compare."""
    ours = build(engine).compile()
    theirs = build(mujoco).compile()
    bad = mismatches(ours, theirs)
    assert not bad, "\n".join(f"mismatch: {f}: {m}" for f, m in bad)
    return ours, theirs


def add_box(lib, spec, name="box", pos=(0.5, 0.0, 0.3)):
    b = spec.worldbody.add_body(name=name, pos=list(pos))
    b.add_freejoint(name=name + "_free")
    b.add_geom(name=name + "_geom", type=lib.mjtGeom.mjGEOM_BOX, size=[0.03, 0.03, 0.03],
               rgba=[1, 0, 0, 1], mass=0.2)
    return b


def test_add_free_box_to_menagerie_scene():
    path = shared_model("menagerie/kuka_iiwa_14/scene.xml")

    def build(lib):
        s = lib.MjSpec.from_file(str(path))
        add_box(lib, s)
        return s
    ours, _ = both(build)
    assert ours.nq == 7 + 7 and ours.body("box").mass[0] == pytest.approx(0.2)


def test_change_geom_size_and_joint_attributes():
    path = TEST_MODELS / "constraint_contact.xml"

    def build(lib):
        s = lib.MjSpec.from_file(str(path))
        g = s.geoms[1]
        g.size = [0.2, 0.1, 0.05]
        g.size[0] = 0.25                     # in place, as the bindings allow
        g.rgba = [0, 1, 0, 1]
        j = next(j for j in s.joints if int(j.type) == int(lib.mjtJoint.mjJNT_HINGE))
        j.damping = [0.7, 0.0, 0.0]   # mujoco 4: damping and its polynomial terms
        j.armature = 0.01
        return s
    ours, theirs = both(build)
    np.testing.assert_allclose(ours.geom_size[1], theirs.geom_size[1])


def test_read_attributes_like_mujoco():
    path = shared_model("menagerie/kuka_iiwa_14/iiwa14.xml")
    s, t = engine.MjSpec.from_file(str(path)), mujoco.MjSpec.from_file(str(path))
    for a, b in zip(s.geoms, t.geoms):
        assert a.name == b.name and int(a.type) == int(b.type)
        np.testing.assert_allclose(a.size, b.size)
        np.testing.assert_allclose(a.rgba, b.rgba)
        assert a.meshname == b.meshname
    for a, b in zip(s.joints, t.joints):
        assert int(a.type) == int(b.type) and int(a.limited) == int(b.limited)
        np.testing.assert_allclose(a.range, b.range)
        np.testing.assert_allclose(a.axis, b.axis)
    for a, b in zip(s.bodies, t.bodies):
        assert a.name == b.name
        np.testing.assert_allclose(a.pos, b.pos)
        assert a.mass == pytest.approx(b.mass)


def test_delete_body_and_geom():
    path = shared_model("menagerie/kuka_iiwa_14/scene.xml")

    def build(lib):
        s = lib.MjSpec.from_file(str(path))
        add_box(lib, s, "a")
        add_box(lib, s, "b", (0.6, 0.1, 0.3))
        s.delete(s.body("a"))
        s.delete(s.geom("b_geom"))
        s.body("b").add_geom(type=lib.mjtGeom.mjGEOM_SPHERE, size=[0.04, 0, 0])
        return s
    ours, _ = both(build)
    assert ours.nbody == 10


def test_attach_with_prefix_and_suffix_in_a_frame():
    child = TEST_MODELS / "attach_child.xml"
    path = shared_model("menagerie/kuka_iiwa_14/scene.xml")

    def build(lib):
        s = lib.MjSpec.from_file(str(path))
        c = lib.MjSpec.from_file(str(child))
        f = s.worldbody.add_frame(pos=[0.0, 1.0, 0.0], quat=[0.7071068, 0, 0, 0.7071068])
        s.attach(c, prefix="p-", suffix="-x", frame=f)
        return s
    ours, theirs = both(build)
    assert ours.body("p-arm-x").id == theirs.body("p-arm-x").id


def test_actuator_sensor_added():
    path = TEST_MODELS / "constraint_contact.xml"

    def build(lib):
        s = lib.MjSpec.from_file(str(path))
        j = next(j for j in s.joints if int(j.type) == int(lib.mjtJoint.mjJNT_HINGE))
        s.add_actuator(name="m", trntype=lib.mjtTrn.mjTRN_JOINT, target=j.name,
                       gainprm=[2.0] + [0] * 9, ctrlrange=[-1, 1], ctrllimited=1)
        s.add_sensor(name="q", type=lib.mjtSensor.mjSENS_JOINTPOS, objname=j.name,
                     objtype=lib.mjtObj.mjOBJ_JOINT)
        return s
    ours, theirs = both(build)
    assert ours.nu == theirs.nu and ours.nsensor == theirs.nsensor


def test_recompile_in_the_middle_of_a_trajectory():
    """Step, add a falling box, recompile, step on: the engine's qpos/qvel follow mujoco's."""
    path = shared_model("menagerie/kuka_iiwa_14/scene.xml")
    out = {}
    for lib in (engine, mujoco):
        s = lib.MjSpec.from_file(str(path))
        m = s.compile()
        d = lib.MjData(m)
        d.ctrl[:] = 0.2
        for _ in range(50):
            lib.mj_step(m, d)
        add_box(lib, s)
        m2, d2 = s.recompile(m, d)
        assert d2.time == pytest.approx(d.time)
        np.testing.assert_array_equal(d2.qpos[:7], d.qpos[:7])
        for _ in range(100):
            lib.mj_step(m2, d2)
        out[lib] = (d2.qpos.copy(), d2.qvel.copy(), d2.ctrl.copy())
    (q, v, c), (mq, mv, mc) = out[engine], out[mujoco]
    np.testing.assert_array_equal(c, mc)
    np.testing.assert_allclose(q, mq, atol=1e-8, err_msg="qpos after recompile")
    np.testing.assert_allclose(v, mv, atol=1e-6, err_msg="qvel after recompile")
    assert q[-5] < 0.3       # the box fell


def test_to_xml_of_an_edited_spec_compiles_in_mujoco():
    path = shared_model("menagerie/kuka_iiwa_14/scene.xml")
    s = engine.MjSpec.from_file(str(path))
    add_box(engine, s)
    t = mujoco.MjSpec.from_file(str(path))
    add_box(mujoco, t)
    theirs = t.compile()
    bad = mujoco_mismatches(mujoco.MjModel.from_xml_string(s.to_xml()), theirs)
    assert not bad, bad
    bad = mismatches(engine.MjModel.from_xml_string(s.to_xml()), theirs)
    assert not bad, bad


@pytest.mark.parametrize("how", ["spec.copy", "copy", "deepcopy", "pickle"])
def test_spec_copies_are_independent(how):
    """(mujoco's MjSpec has .copy() only: copy.copy and pickle raise TypeError there.)"""
    s = engine.MjSpec.from_file(str(TEST_MODELS / "constraint_contact.xml"))
    c = {"spec.copy": lambda x: x.copy(), "copy": copy.copy, "deepcopy": copy.deepcopy,
         "pickle": lambda x: pickle.loads(pickle.dumps(x))}[how](s)
    add_box(engine, c)
    assert c.compile().nbody == s.compile().nbody + 1


def test_spec_level_assets_and_tendon():
    """Texture, material with it, a mesh from vertices, geoms using them, a spatial tendon."""
    def build(lib):
        s = lib.MjSpec.from_file(str(TEST_MODELS / "constraint_contact.xml"))
        s.add_texture(name="chk", type=lib.mjtTexture.mjTEXTURE_2D,
                      builtin=lib.mjtBuiltin.mjBUILTIN_CHECKER, width=8, height=8,
                      rgb1=[1, 0, 0], rgb2=[0, 1, 0])
        mat = s.add_material(name="tiles", rgba=[1, 1, 1, 1])
        mat.textures[lib.mjtTextureRole.mjTEXROLE_RGB] = "chk"
        # a box of three different sides (a regular tetrahedron has repeated principal moments:
        # its principal axes, and so the geom frame, are not unique)
        corners = [[x, y, z] for x in (0, 0.1) for y in (0, 0.2) for z in (0, 0.3)]
        s.add_mesh(name="tet", uservert=np.ravel(corners))
        b = s.worldbody.add_body(name="holder", pos=[0, 0, 1])
        b.add_freejoint()
        b.add_geom(type=lib.mjtGeom.mjGEOM_MESH, meshname="tet", material="tiles")
        b.add_site(name="s1", pos=[0, 0, 0.1])
        s.worldbody.add_site(name="s0", pos=[0, 0, 2])
        t = s.add_tendon(name="rope", stiffness=[10.0, 0.0, 0.0], springlength=[0.5, 0.5])
        t.wrap_site("s0")
        t.wrap_site("s1")
        return s
    ours, theirs = both(build)
    assert ours.ntendon == 1 and ours.nmesh == 1 and ours.mat_texid[0, 1] == theirs.mat_texid[0, 1]


def test_default_classes():
    """A class made with add_default: its geom and joint values reach elements added with it;
    elements added without it keep main's."""
    def build(lib):
        s = lib.MjSpec.from_file(str(TEST_MODELS / "constraint_contact.xml"))
        d = s.add_default("big", s.default)
        d.geom.size = [0.2, 0.0, 0.0]
        d.geom.rgba = [0, 0, 1, 1]
        d.joint.damping = [0.3, 0.0, 0.0]
        assert s.find_default("big").name == "big"
        b = s.worldbody.add_body(name="ball", pos=[0, 0, 1])
        b.add_joint(default=d, type=lib.mjtJoint.mjJNT_SLIDE, axis=[0, 0, 1])
        b.add_geom(default=d)
        b.add_geom(pos=[0.3, 0, 0], size=[0.05, 0, 0])
        return s
    ours, theirs = both(build)
    assert ours.geom_size[-2][0] == pytest.approx(0.2) and ours.dof_damping[-1] == 0.3


@pytest.mark.parametrize("where", ["site", "frame.attach_body", "site.attach_body"])
def test_attach_at_site_and_single_body(where):
    """A child's body attached at the robot's flange site (a gripper on an arm), or the
    child's world attached at that site."""
    arm = shared_model("menagerie/kuka_iiwa_14/iiwa14.xml")
    child = TEST_MODELS / "attach_child.xml"

    def build(lib):
        s = lib.MjSpec.from_file(str(arm))
        c = lib.MjSpec.from_file(str(child))
        site = s.site("attachment_site")
        if where == "site":
            s.attach(c, prefix="g-", site=site)
        elif where == "site.attach_body":
            site.attach_body(c.body("arm"), prefix="g-", suffix="")
        else:
            f = s.body("link7").add_frame(pos=[0, 0, 0.1], quat=[0, 1, 0, 0])
            f.attach_body(c.body("arm"), "g-", "-1")
        return s
    ours, theirs = both(build)
    assert ours.nbody == theirs.nbody > 9


def test_zip_round_trip_with_mujoco(tmp_path):
    """to_zip holds the XML and the mesh files: the engine's from_zip and mujoco's from_zip
    both compile it to mujoco's model of the original."""
    path = shared_model("menagerie/kuka_iiwa_14/scene.xml")
    s = engine.MjSpec.from_file(str(path))
    z = tmp_path / "m.zip"
    engine.to_zip(s, str(z))
    theirs = mujoco.MjModel.from_xml_path(str(path))
    bad = mismatches(engine.MjSpec.from_zip(str(z)).compile(), theirs)
    assert not bad, bad
    # mujoco records where each asset file was read (paths, *_pathadr; nbuffer counts them):
    # in the archive, not in the model's folder
    bad = [b for b in mujoco_mismatches(mujoco.MjSpec.from_zip(str(z)).compile(), theirs)
           if not b.startswith(("paths", "npaths", "nbuffer", "mesh_pathadr", "tex_pathadr",
                                "hfield_pathadr"))]
    assert not bad, bad


def test_option_edits():
    def build(lib):
        s = lib.MjSpec.from_file(str(TEST_MODELS / "constraint_contact.xml"))
        s.option.timestep = 0.001
        s.option.gravity = [0, 0, -5.0]
        s.option.gravity[0] = 0.5
        s.option.integrator = lib.mjtIntegrator.mjINT_IMPLICITFAST
        s.option.cone = lib.mjtCone.mjCONE_ELLIPTIC
        s.option.disableflags = int(lib.mjtDisableBit.mjDSBL_WARMSTART)
        s.option.enableflags = int(lib.mjtEnableBit.mjENBL_ENERGY)
        assert s.option.integrator == lib.mjtIntegrator.mjINT_IMPLICITFAST
        return s
    ours, theirs = both(build)
    assert ours.opt.disableflags == theirs.opt.disableflags
    assert ours.opt.enableflags == theirs.opt.enableflags


def test_pair_exclude_numeric():
    def build(lib):
        s = lib.MjSpec.from_file(str(TEST_MODELS / "constraint_contact.xml"))
        g = [x.name for x in s.geoms if x.name]
        b = [x.name for x in s.bodies if x.name and x.name != "world"]
        s.add_pair(name="p", geomname1=g[0], geomname2=g[1], condim=1)
        s.add_exclude(bodyname1="world", bodyname2=b[0])
        s.add_numeric(name="gain", data=[1.5, 2.5])
        return s
    ours, theirs = both(build)
    assert ours.npair == theirs.npair and ours.nexclude == theirs.nexclude
    np.testing.assert_array_equal(ours.numeric_data, theirs.numeric_data)


def test_model_built_from_an_empty_spec():
    """A model made from nothing: a floor, a pendulum with a hinge, a motor and a sensor."""
    def build(lib):
        s = lib.MjSpec()
        s.modelname = "scratch"
        s.worldbody.add_geom(type=lib.mjtGeom.mjGEOM_PLANE, size=[2, 2, 0.1])
        b = s.worldbody.add_body(name="pole", pos=[0, 0, 1])
        b.add_joint(name="hinge", type=lib.mjtJoint.mjJNT_HINGE, axis=[0, 1, 0],
                    range=[-1, 1])
        b.add_geom(type=lib.mjtGeom.mjGEOM_CAPSULE, fromto=[0, 0, 0, 0, 0, -0.5],
                   size=[0.05, 0, 0])
        b.add_site(name="tip", pos=[0, 0, -0.5])
        s.add_actuator(name="torque", trntype=lib.mjtTrn.mjTRN_JOINT, target="hinge")
        s.add_sensor(name="acc", type=lib.mjtSensor.mjSENS_ACCELEROMETER, objname="tip",
                     objtype=lib.mjtObj.mjOBJ_SITE)
        return s
    ours, theirs = both(build)
    assert ours.nu == 1 and ours.jnt_limited[0] == theirs.jnt_limited[0] == 1
    assert engine.mj_id2name(ours, 1, 1) == "pole"
