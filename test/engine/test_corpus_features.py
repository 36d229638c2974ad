"""Features the model corpus needed (bench/corpus_census.py): each compiled and simulated against
mujoco on a small model written here and on the corpus models it unblocked."""
import numpy as np
import pytest

from oracle import mujoco, shared_model

import engine
from compile_corpus import mismatches

TESTDATA = "mujoco/test/engine/testdata/"


def both(src):
    """(ours, mujoco's) compiled models of an XML string or a corpus path under shared/models."""
    if src.lstrip().startswith("<"):
        return engine.MjModel.from_xml_string(src), mujoco.MjModel.from_xml_string(src)
    p = str(shared_model(src))
    return engine.MjModel.from_xml_path(p), mujoco.MjModel.from_xml_path(p)


def assert_same_model(ours, theirs):
    bad = mismatches(ours, theirs)
    assert not bad, "\n".join(f"mismatch: {f}: {m}" for f, m in bad)


def run_both(ours, theirs, nstep=50, fields=("qpos", "qvel", "sensordata"), tol=1e-9,
             ctrl=None):
    """Steps both models nstep times from qpos0 (ctrl: constant controls) and compares the
    named data fields after every step, to ``tol`` (absolute and relative)."""
    d, md = engine.MjData(ours), mujoco.MjData(theirs)
    if ctrl is not None:
        d.ctrl[:] = md.ctrl[:] = ctrl
    for i in range(nstep):
        engine.mj_step(ours, d)
        mujoco.mj_step(theirs, md)
        for f in fields:
            np.testing.assert_allclose(getattr(d, f), getattr(md, f), rtol=tol, atol=tol,
                                       err_msg=f"mismatch: {f} after step {i + 1}")
    return d, md


# ---- box / ellipsoid along fromto with one size value ------------------------------------------
FROMTO_BOX = """<mujoco><worldbody>{}</worldbody></mujoco>"""


@pytest.mark.parametrize("size", [".2", ".2 .3", ".2 .3 .4"])
@pytest.mark.parametrize("kind", ["box", "ellipsoid"])
def test_fromto_box_ellipsoid_square_across(kind, size):
    """A box or ellipsoid given by fromto has both transverse half-sizes size[0] and the
    half-length along fromto, however many size values are given (geoms and sites)."""
    xml = FROMTO_BOX.format(
        f'<body><freejoint/><geom type="{kind}" size="{size}" fromto=".1 0 0 .3 -1 .2"/>'
        f'<site type="{kind}" size="{size}" fromto="0 0 0 0 0 .5"/></body>')
    ours, theirs = both(xml)
    assert_same_model(ours, theirs)
    np.testing.assert_allclose(ours.site_size, theirs.site_size, err_msg="mismatch: site_size")


WELD_RELPOSE = """<mujoco><worldbody><body name="a" pos="0 0 1"><freejoint/>
<geom type="box" size=".1" fromto="0 0 0 .3 0 0"/></body></worldbody><equality>
<weld body1="a" relpose="0 0 0 1 -.3 0 0"/><weld body1="a" relpose=".1 0 0 0 0 0 0"/>
<weld body1="a" relpose="0 0 0 2 0 0 0" anchor="0 0 -1"/></equality></mujoco>"""


def test_weld_relpose_quaternion_normalized():
    """A weld's relpose quaternion is stored normalized; a zero quaternion means 'not given'
    (the relative pose at qpos0), as in MuJoCo."""
    ours, theirs = both(WELD_RELPOSE)
    assert_same_model(ours, theirs)
    run_both(ours, theirs, tol=1e-8)


@pytest.mark.parametrize("rel", ["connect.xml", "weld.xml", "equality_site.xml",
                                 "derivative/damped_pendulum.xml"])
def test_fromto_box_corpus(rel):
    ours, theirs = both(TESTDATA + rel)
    assert_same_model(ours, theirs)
    run_both(ours, theirs, tol=1e-8)


# ---- rangefinder: data fields, cameras (perspective, intrinsics, orthographic) ---------------
RANGEFINDER = """<mujoco><asset>
<mesh name="tet" vertex="0 0 0  .4 0 0  0 .4 0  0 0 .4"/>
<hfield name="hf" nrow="3" ncol="3" size=".5 .5 .2 .05" elevation="0 .2 .5 .1 .9 .3 .4 0 .6"/>
</asset><worldbody>
<geom type="sphere" size=".5" pos="0 0 2"/><geom type="box" size="3 3 .1" pos="0 0 -2"/>
<geom type="capsule" size=".2 .3" pos="1 0 1.5" euler="30 40 0"/>
<geom type="cylinder" size=".3 .2" pos="-1 .3 1.6" euler="10 70 0"/>
<geom type="ellipsoid" size=".3 .2 .4" pos="0 1 1.7"/>
<geom type="mesh" mesh="tet" pos="-.3 -1 1.4" euler="20 0 10"/>
<geom type="hfield" hfield="hf" pos=".8 -.9 1.3" euler="180 0 0"/>
<geom type="box" size=".1 .1 .1" pos=".5 .5 -1" rgba="1 1 1 0"/>
<body pos="0.1 0 0"><joint axis="0 1 0"/><joint axis="1 0 0"/>
  <geom size=".1" pos="0 0 -.3"/><geom size=".05" pos="0 0 .4"/>
  <site name="s" pos="0 0 0.2"/><site name="s2" zaxis="1 0 0"/>
  <camera name="c" xyaxes="1 0 0 0 -1 0" resolution="7 5" fovy="90"/>
  <camera name="o" xyaxes="1 0 0 0 -1 0" resolution="6 5" fovy="2.5" projection="orthographic"/>
  <camera name="i" xyaxes="1 0 0 0 -1 0" resolution="5 4" sensorsize=".01 .008" focal=".01 .012"
          principalpixel="2 -1"/>
  <camera name="one" xyaxes="1 0 0 0 -1 0"/>
</body></worldbody><sensor>
<rangefinder site="s"/>
<rangefinder site="s" data="dist dir origin point normal depth"/>
<rangefinder site="s2" data="dir normal" cutoff=".5"/>
<rangefinder camera="c" data="dist dir origin point normal depth"/>
<rangefinder camera="o" data="dist origin point depth"/>
<rangefinder camera="i" data="dist dir normal depth"/>
<rangefinder camera="one" data="depth"/>
</sensor></mujoco>"""


def test_rangefinder_data_and_cameras():
    """Every rangefinder data field on sites and on perspective (fovy and intrinsics),
    orthographic and one-pixel cameras, over primitives, a mesh and a height field, as the
    bodies swing (sensordata to 1e-9 over 100 steps); the camera's own body is excluded."""
    ours, theirs = both(RANGEFINDER)
    for f in ("sensor_dim", "sensor_adr", "sensor_intprm", "sensor_objtype", "sensor_objid",
              "sensor_datatype", "sensor_needstage", "cam_projection", "cam_resolution"):
        np.testing.assert_array_equal(getattr(ours, f), getattr(theirs, f), err_msg=f)
    for f in ("cam_intrinsic", "cam_sensorsize", "cam_fovy"):  # float32 in mujoco: 1 ulp
        np.testing.assert_allclose(getattr(ours, f), getattr(theirs, f), rtol=1e-7,
                                   err_msg=f"mismatch: {f}")
    d, md = engine.MjData(ours), mujoco.MjData(theirs)
    for qpos in ((0.2, -0.1), (-0.4, 0.3), (0.9, 0.6), (-1.3, -0.8)):
        d.qpos[:] = md.qpos[:] = qpos
        engine.mj_forward(ours, d)
        mujoco.mj_forward(theirs, md)
        # atol 1e-7: mujoco's mesh face normals differ from the exact ones by up to 2e-8
        # (measured: its float32 vertices' normal is computed its own way); all else is 1e-9
        np.testing.assert_allclose(d.sensordata, md.sensordata, rtol=1e-9, atol=1e-7,
                                   err_msg=f"mismatch: sensordata at {qpos}")
    assert (md.sensordata == -1).any() and (md.sensordata[ours.sensor_adr[3]:] > 0).any()
    run_both(ours, theirs, nstep=100, tol=1e-7)


@pytest.mark.parametrize("bad, msg", [('site="s" data="normal dist"', "in order"),
                                      ('site="s" data="dist dist"', "in order"),
                                      ('site="s" data="far"', "invalid"),
                                      ('site="s" camera="c"', "at most one")])
def test_rangefinder_errors(bad, msg):
    xml = (f'<mujoco><worldbody><body><site name="s"/><camera name="c"/><geom size=".1"/>'
           f'</body></worldbody><sensor><rangefinder {bad}/></sensor></mujoco>')
    with pytest.raises(ValueError):
        mujoco.MjModel.from_xml_string(xml)
    with pytest.raises((engine.XMLError, engine.CompileError), match=msg):
        engine.MjModel.from_xml_string(xml)


CAMERAS = [('fovy="30"', None), ('sensorsize=".01 .008"', None),
           ('sensorsize=".01 .008" focalpixel="100 120" resolution="30 20"', None),
           ('sensorsize=".01 .008" focal=".02 .03" principalpixel="3 4" resolution="30 20"',
            None),
           ('sensorsize=".01 .008" focal=".02 .03" principal=".001 -.002"', None),
           ('projection="orthographic" fovy="2"', None),
           ('focal=".02 .02"', "sensorsize"), ('sensorsize=".01 .01" fovy="20"', "fovy")]


@pytest.mark.parametrize("attrs, error", CAMERAS)
def test_camera_intrinsics_and_projection(attrs, error):
    """<camera> projection, sensorsize, focal(pixel), principal(pixel) -> cam_projection,
    cam_intrinsic, cam_sensorsize and the fovy they imply, as mujoco; its errors too."""
    xml = f'<mujoco><worldbody><camera {attrs}/></worldbody></mujoco>'
    if error:
        with pytest.raises(ValueError):
            mujoco.MjModel.from_xml_string(xml)
        with pytest.raises((engine.XMLError, engine.CompileError), match=error):
            engine.MjModel.from_xml_string(xml)
        return
    ours, theirs = both(xml)
    for f in ("cam_intrinsic", "cam_sensorsize", "cam_fovy", "cam_projection", "cam_resolution"):
        np.testing.assert_allclose(getattr(ours, f), getattr(theirs, f), rtol=1e-6, atol=0,
                                   err_msg=f"mismatch: {f}")


@pytest.mark.parametrize("rel", ["ray/box.xml", "ray/capsule.xml", "ray/cylinder.xml",
                                 "ray/ellipsoid.xml", "ray/hfield.xml", "ray/mesh.xml",
                                 "ray/plane.xml", "ray/sphere.xml", "ray/ray_swing.xml",
                                 "vis_visualize/orthographic.xml"])
def test_rangefinder_corpus(rel):
    ours, theirs = both(TESTDATA + rel)
    assert_same_model(ours, theirs)
    run_both(ours, theirs, tol=1e-8)


# ---- free joints and limited; keyframes shorter than the state ------------------------------
FREE_LIMITED = """<mujoco><default><joint limited="true" range="-1 1"/></default><worldbody>
<body pos="0 0 1"><freejoint/><geom size=".1"/></body>
<body pos="1 0 1"><joint type="free"/><geom size=".1"/></body>
<body pos="2 0 1"><joint type="free" limited="true"/><geom size=".1"/>
  <body pos="0 0 .3"><joint axis="1 0 0"/><geom size=".1"/></body></body>
</worldbody></mujoco>"""


def test_free_joint_never_limited():
    """limited="true" on a free joint (given or from a default class) is ignored, its range
    kept as written; the hinge below it is limited (in degrees)."""
    ours, theirs = both(FREE_LIMITED)
    assert_same_model(ours, theirs)
    run_both(ours, theirs)


SHORT_KEY = """<mujoco><worldbody><body pos="0 0 1"><freejoint/><geom size=".1"/></body>
<body><joint name="h"/><geom size=".1" pos="0 0 .2"/></body>
<body name="m" mocap="true" pos="1 2 3"/></worldbody><actuator><motor joint="h"/></actuator>
<keyframe><key qpos="0 0 2"/><key qvel="1 2" ctrl=""/><key mpos="4"/></keyframe></mujoco>"""


def test_keyframe_shorter_than_state_padded():
    ours, theirs = both(SHORT_KEY)
    assert_same_model(ours, theirs)
    for k in range(theirs.nkey):
        d, md = engine.MjData(ours), mujoco.MjData(theirs)
        engine.mj_resetDataKeyframe(ours, d, k)
        mujoco.mj_resetDataKeyframe(theirs, md, k)
        for f in ("qpos", "qvel", "ctrl", "mocap_pos", "mocap_quat"):
            np.testing.assert_array_equal(getattr(d, f), getattr(md, f), err_msg=f"{f} key {k}")
    with pytest.raises(engine.CompileError, match="qvel"):
        engine.MjModel.from_xml_string(SHORT_KEY.replace('qvel="1 2"', 'qvel="1 2 3 4 5 6 7 8"'))


@pytest.mark.parametrize("rel", ["mujoco/test/benchmark/testdata/2humanoid100_chol.xml",
                                 TESTDATA + "solver/humanoid.xml"])
def test_free_limited_and_short_key_corpus(rel):
    ours, theirs = both(rel)
    assert_same_model(ours, theirs)
    run_both(ours, theirs, nstep=20, tol=1e-8)


# ---- constraints on objects without degrees of freedom ---------------------------------------
@pytest.mark.parametrize("rel", ["dofless_weld.xml", "dofless_tendon_limited.xml",
                                 "dofless_tendon_limitedmargin.xml",
                                 "dofless_tendon_frictional.xml"])
def test_dofless_constraints_make_no_rows(rel):
    """A weld between static bodies, a limited or frictional tendon between static sites: no
    constraint rows (as mujoco), and the model steps."""
    ours, theirs = both(TESTDATA + "core_constraint/" + rel)
    d, md = run_both(ours, theirs, nstep=20, fields=("qpos", "qvel", "efc_pos"), tol=1e-9)
    assert d.nefc == md.nefc and list(d.efc_type) == list(md.efc_type)


DOFLESS_EQ = """<mujoco><worldbody><site name="1"/><site name="2" pos="1 0 0"/>
<body name="b" mocap="true"><site name="3" pos="0 1 0"/></body>
<body pos="0 0 1"><freejoint/><geom size=".1"/></body></worldbody>
<tendon><spatial name="t"><site site="1"/><site site="2"/></spatial>
<spatial name="u"><site site="1"/><site site="3"/></spatial></tendon>
<equality><tendon tendon1="t"/><tendon tendon1="t" tendon2="u"/><weld body1="b"/>
<connect body1="b" anchor="0 0 0"/></equality></mujoco>"""


def test_dofless_equalities_make_no_rows():
    """Tendon equalities between dofless tendons and welds/connects between the world and a
    mocap body: no rows, as mujoco."""
    ours, theirs = both(DOFLESS_EQ)
    d, md = run_both(ours, theirs, nstep=5)
    assert d.nefc == md.nefc == 0


# ---- insidesite and camprojection sensors ----------------------------------------------------
CAMPROJ = """<mujoco><worldbody><body pos="0 0 1"><freejoint/><geom size=".05"/>
<site name="t" pos=".02 .01 0"/></body>
<site name="sp" type="sphere" size=".3" pos="0 0 .8"/>
<site name="cy" type="cylinder" size=".2 .3" pos=".1 0 .6" euler="10 20 0"/>
<site name="bx" type="box" size=".2 .1 .4" pos="0 .05 .7" euler="0 0 30"/>
<camera name="f" pos="0 -2 1" xyaxes="1 0 0 0 0 1" resolution="64 48" fovy="50"/>
<camera name="i" pos=".3 -1.5 1.2" xyaxes="1 .2 0 0 0 1" resolution="80 60"
        sensorsize=".004 .003" focal=".003 .0031"/></worldbody>
<sensor><camprojection site="t" camera="f"/><camprojection site="t" camera="i"/>
<insidesite site="sp" objtype="site" objname="t"/><insidesite site="cy" objtype="body"
  objname="world"/><insidesite site="bx" objtype="xbody" objname="world"/></sensor></mujoco>"""


def test_camprojection_and_insidesite_falling_body():
    """A falling body seen by a fovy camera and an intrinsics camera (pixel coordinates) and
    leaving site volumes (insidesite 1 -> 0), as mujoco over 200 steps."""
    ours, theirs = both(CAMPROJ)
    assert_same_model(ours, theirs)
    d, md = run_both(ours, theirs, nstep=1)
    assert md.sensordata[4] == 1  # the site starts in the sphere
    d, md = run_both(ours, theirs, nstep=200, tol=1e-8)
    assert md.sensordata[4] == 0  # and has left it


@pytest.mark.parametrize("rel", ["sensor/insidesite.xml", "sleep/sensor.xml",
                                 "sensor/camprojection.xml"])
def test_insidesite_camprojection_corpus(rel):
    ours, theirs = both(TESTDATA + rel)
    assert_same_model(ours, theirs)
    run_both(ours, theirs, nstep=100, tol=1e-8)


# ---- moving surfaces (geom surfacevel) -------------------------------------------------------
SURFACEVEL = """<mujoco><option cone="{cone}"/><worldbody>
<geom type="box" size="2 2 .1" pos=".1 .2 0" euler="0 0 30" surfacevel=".8 .1 .3 0 .2 .5"
      friction=".7 .02 .003"/>
<geom type="sphere" size=".5" pos="0 -3 0" surfacevel=".5 .3 0 0 0 1"/>
<body pos=".3 .2 .25"><freejoint/><geom type="sphere" size=".1" condim="6"
      friction="1 .05 .004"/></body>
<body pos="-.4 .1 .25" euler="0 0 10"><freejoint/><geom type="box" size=".1 .08 .05"
      condim="4" surfacevel="0 0 0 0 0 -2"/></body>
<body pos=".5 -.5 .25"><freejoint/><geom type="capsule" size=".05 .1" euler="0 90 0"/></body>
<body pos="0 -3 .58"><freejoint/><geom type="box" size=".1 .1 .1" condim="4"/></body>
</worldbody></mujoco>"""


@pytest.mark.parametrize("cone", ["pyramidal", "elliptic"])
def test_surfacevel_conveyor_and_turntable(cone):
    """Objects on a moving belt (linear and angular surface velocity, in the geom's frame) and
    on a spinning sphere, condim 3, 4 and 6, both cones: efc_vel, efc_aref and the trajectory
    as mujoco's."""
    ours, theirs = both(SURFACEVEL.format(cone=cone))
    assert_same_model(ours, theirs)
    np.testing.assert_array_equal(ours.geom_surfacevel, theirs.geom_surfacevel)
    d, md = run_both(ours, theirs, nstep=150, fields=("qpos", "qvel"), tol=1e-8)
    assert abs(md.qvel[0]) > 0.1  # the belt carries the ball
    engine.mj_forward(ours, d)
    mujoco.mj_forward(theirs, md)
    for f in ("efc_vel", "efc_aref"):
        np.testing.assert_allclose(getattr(d, f), getattr(md, f), rtol=1e-8, atol=1e-8,
                                   err_msg=f"mismatch: {f}")


@pytest.mark.parametrize("rel", [TESTDATA + "core_constraint/surfacevel_conveyor.xml",
                                 TESTDATA + "core_constraint/surfacevel_turntable.xml",
                                 "mujoco/model/surfacevel/treadmill.xml"])
def test_surfacevel_corpus(rel):
    ours, theirs = both(rel)
    assert_same_model(ours, theirs)
    run_both(ours, theirs, nstep=100, fields=("qpos", "qvel"), tol=1e-7)


def test_light_softness():
    """<light softness> (shadow softness, rendering only) compiles to light_softness."""
    ours, theirs = both('<mujoco><default><light softness=".5"/></default><worldbody><light/>'
                        '<light softness="1"/><light class="main"/></worldbody></mujoco>')
    assert_same_model(ours, theirs)
    np.testing.assert_allclose(ours.light_softness, theirs.light_softness, rtol=1e-7)


REPLICATE_PREFIX = """<mujoco><worldbody>
<replicate count="2" offset=".3 0 0" prefix="A"><replicate count="2" offset="0 .3 0" prefix="B"
  sep="_"><body name="b" pos="0 0 .5"><freejoint name="j"/><geom name="g" size=".1"/>
  <site name="s"/></body></replicate></replicate><geom type="plane" size="2 2 .1"/>
</worldbody><sensor><framepos objtype="site" objname="s"/></sensor></mujoco>"""


def test_replicate_prefix():
    """<replicate prefix> is accepted; names and the replicated references come out as
    mujoco's (which does not prefix them)."""
    ours, theirs = both(REPLICATE_PREFIX)
    assert_same_model(ours, theirs)
    run_both(ours, theirs, nstep=20)


def test_replicate_prefix_corpus():
    ours, theirs = both(TESTDATA + "collision_primitive/spheres_cylinders.xml")
    assert_same_model(ours, theirs)
    run_both(ours, theirs, nstep=50, fields=("qpos",), tol=1e-8)


def test_attach_renames_references_to_elements_named_world(tmp_path):
    """An attached child's site called "world" is renamed with the prefix, and so are the
    tendon path's references to it; references to the world body are not."""
    (tmp_path / "child.xml").write_text(
        '<mujoco><worldbody><site name="world"/><body name="b" pos="1 0 0"><joint name="x" '
        'type="slide"/><geom size=".1"/><site name="s"/></body></worldbody><tendon><spatial '
        'stiffness="100" springlength=".5"><site site="world"/><site site="s"/></spatial>'
        '</tendon><sensor><framepos objtype="body" objname="world"/><framepos objtype="site" '
        'objname="world"/><subtreecom body="world"/></sensor></mujoco>')
    (tmp_path / "parent.xml").write_text(
        '<mujoco><asset><model name="c" file="child.xml"/></asset><worldbody><attach model="c" '
        'prefix="p_"/><frame pos="0 2 0"><attach model="c" prefix="q_"/></frame></worldbody>'
        '</mujoco>')
    p = str(tmp_path / "parent.xml")
    ours, theirs = engine.MjModel.from_xml_path(p), mujoco.MjModel.from_xml_path(p)
    assert_same_model(ours, theirs)
    assert [ours.site(i).name for i in range(ours.nsite)] == \
        [theirs.site(i).name for i in range(theirs.nsite)]
    run_both(ours, theirs, nstep=50)


# ---- tendon armature: qM sparsity, dof_M0, spring lengths at qpos_spring --------------------
@pytest.mark.parametrize("name", ["ten_armature_0", "ten_armature_0_compare", "ten_armature_4",
                                  "ten_armature_offtree"])
def test_tendon_armature_corpus(name):
    """Bodies a tendon with armature passes through are not 'simple' (qM keeps their dofs'
    coupling), dof_M0 leaves the tendon armature out, springlength defaults to the length at
    qpos_spring; then 50 steps as mujoco (these diverged by 2e-3 before)."""
    ours, theirs = both(TESTDATA + f"core_smooth/{name}.xml")
    assert_same_model(ours, theirs)
    np.testing.assert_array_equal(ours.body_simple, theirs.body_simple, err_msg="body_simple")
    run_both(ours, theirs, nstep=50, fields=("qpos", "qvel"), tol=1e-9)


# ---- joint springdamper ------------------------------------------------------------------------
SPRINGDAMPER = """<mujoco><option gravity="0 0 -1"/><worldbody>
<body pos="0 0 1"><freejoint/><geom type="box" size=".2 .2 .2"/>
  <body pos="-.4 0 0"><geom type="cylinder" size=".1" fromto="0 0 0 0 0 1"/>
    <joint type="slide" axis="0 0 1" springref=".2" springdamper=".1 1"/></body></body>
<body pos="1 0 0"><joint axis="1 0 0" springdamper=".3 .5"/><geom type="capsule" size=".1"
  fromto="0 0 0 0 0 1"/><body pos="0 0 1"><joint type="ball" springdamper=".2 2"/>
  <geom type="capsule" size=".1" fromto="0 0 0 0 .5 1"/></body></body>
</worldbody></mujoco>"""


@pytest.mark.parametrize("src", [SPRINGDAMPER, TESTDATA + "sleep/smooth.xml",
                                 TESTDATA + "sleep/equality.xml",
                                 TESTDATA + "sensor/contact_net.xml"])
def test_joint_springdamper(src):
    """springdamper (timeconst, dampratio) -> stiffness m / (tc zeta)^2 and damping 2 m / tc
    with m = 1 / dof_invweight0, on every dof of a ball joint; then 50 steps as mujoco (sleep/
    smooth, sleep/equality and sensor/contact_net diverged by 0.64, 0.09, 3.6e-3 before)."""
    ours, theirs = both(src)
    assert_same_model(ours, theirs)
    run_both(ours, theirs, nstep=50, fields=("qpos", "qvel"), tol=1e-8)


def test_100_humanoids_contacts():
    """The humanoids' feet rest exactly on the floor (foot-floor distances of -1e-16): the same
    contacts as mujoco need its rounding of the replicate turns (engine/compiler/frames.py)."""
    ours, theirs = both("mujoco/model/humanoid/100_humanoids.xml")
    d, md = engine.MjData(ours), mujoco.MjData(theirs)
    engine.mj_forward(ours, d)
    mujoco.mj_forward(theirs, md)
    assert d.ncon == md.ncon
