"""Smooth position/velocity stages (engine/smooth.py) against the official mujoco on real models.

Each case: the oracle's compiled model (contacts disabled) copied into ours, a seeded random state
(qpos with normalised quaternions, qvel, mocap poses, xfrc_applied), mujoco's mj_forward (+
mj_rnePostConstraint, mj_subtreeVel) against our fwd_position_smooth, fwd_velocity_smooth,
rne_post_constraint (with the oracle's qacc) and subtree_vel. Same-named fields must agree to
rtol 1e-6 with atol 1e-8 (atol for values that are zero up to rounding, e.g. a zero Jacobian
entry computed as a difference of two chains).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from oracle import compare, model_from_mujoco, mujoco, shared_model

import engine
from engine import smooth, support

RTOL, ATOL = 1e-6, 1e-8

_VENV = Path(mujoco.__file__).resolve().parents[1]
GYM = _VENV / "gymnasium" / "envs" / "mujoco" / "assets"
DMC = _VENV / "dm_control" / "suite"
TD = "mujoco/test/engine/testdata/"

# (id, path relative to shared models or absolute)
MODELS_POS = [
    ("iiwa14", "menagerie/kuka_iiwa_14/iiwa14.xml"),
    ("xarm7", "menagerie/ufactory_xarm7/xarm7.xml"),
    ("wx250s", "menagerie/trossen_wx250s/wx250s.xml"),
    ("humanoid", "mujoco/model/humanoid/humanoid.xml"),
    ("cassie", "menagerie/agility_cassie/cassie.xml"),
    ("robotiq_2f85", "menagerie/robotiq_2f85/2f85.xml"),
    ("shadow_hand", "menagerie/shadow_hand/right_hand.xml"),
    ("skydio_x2", "menagerie/skydio_x2/x2.xml"),
    ("slider_crank", "mujoco/model/slider_crank/slider_crank.xml"),
    ("ten_J3_pulleys", TD + "core_smooth/ten_J3.xml"),
    ("wrap_sphere", TD + "core_smooth/tendon_wrap_sphere.xml"),
    ("wrap_cylinder", TD + "core_smooth/tendon_wrap_cylinder.xml"),
    ("ten_armature_offtree", TD + "core_smooth/ten_armature_offtree.xml"),
    ("refsite", TD + "actuation/refsite.xml"),
    ("refsite_free", TD + "actuation/refsite_free.xml"),
    ("site_actuators", TD + "actuation/sites.xml"),
    ("gym_humanoid", GYM / "humanoid.xml"),
    ("gym_ant", GYM / "ant.xml"),
    ("gym_half_cheetah", GYM / "half_cheetah.xml"),
    ("gym_hopper", GYM / "hopper.xml"),
    ("gym_walker2d", GYM / "walker2d.xml"),
    ("dmc_cartpole", DMC / "cartpole.xml"),
    ("dmc_acrobot", DMC / "acrobot.xml"),
    ("dmc_swimmer", DMC / "swimmer.xml"),
    ("dmc_finger", DMC / "finger.xml"),
]

POS_FIELDS = ["xpos", "xquat", "xmat", "xipos", "ximat", "xiquat", "xanchor", "xaxis",
              "geom_xpos", "geom_xmat", "geom_xquat", "site_xpos", "site_xmat", "site_xquat",
              "cam_xpos", "cam_xmat", "light_xpos", "light_xdir", "subtree_com", "cinert", "cdof",
              "ten_length", "ten_wrapadr", "ten_wrapnum", "wrap_obj", "wrap_xpos",
              "actuator_length", "crb", "M", "qLD", "qLDiagInv"]
VEL_FIELDS = ["cvel", "cdof_dot", "qfrc_bias", "ten_velocity", "actuator_velocity"]
POST_FIELDS = ["cacc", "cfrc_int", "cfrc_ext", "subtree_linvel", "subtree_angmom"]


def _path(p):
    return p if isinstance(p, Path) else shared_model(p)


def _dense_ten_J(mjm, mjd):
    J = np.zeros((mjm.ntendon, mjm.nv))
    for t in range(mjm.ntendon):
        a = mjm.ten_J_rowadr[t]
        J[t, mjm.ten_J_colind[a:a + mjm.ten_J_rownnz[t]]] = mjd.ten_J[a:a + mjm.ten_J_rownnz[t]]
    return J


def _dense_moment(mjm, mjd):
    A = np.zeros((mjm.nu, mjm.nv))
    for i in range(mjm.nu):
        a = mjd.moment_rowadr[i]
        n = mjd.moment_rownnz[i]
        A[i, mjd.moment_colind[a:a + n]] = mjd.actuator_moment[a:a + n]
    return A


def make_pair(path, seed, qpos_noise=0.4):
    """(mujoco model, data, our model, data) in the same randomised state, contacts and
    constraints off."""
    p = _path(path)
    if not p.exists():
        pytest.skip(f"{p} not present")
    mjm = mujoco.MjModel.from_xml_path(str(p))
    # no contacts and no constraint forces: constraint rows (and their share of cfrc_ext) belong
    # to the constraint stage
    mjm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    mjm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
    mjd = mujoco.MjData(mjm)
    m = model_from_mujoco(mjm)
    d = engine.MjData(m)
    rng = np.random.default_rng(seed)
    mjd.qpos[:] = mjm.qpos0 + qpos_noise * rng.standard_normal(mjm.nq)
    mujoco.mj_normalizeQuat(mjm, mjd.qpos)
    mjd.qvel[:] = rng.standard_normal(mjm.nv)
    if mjm.nmocap:
        mjd.mocap_pos[:] = rng.standard_normal((mjm.nmocap, 3))
        mjd.mocap_quat[:] = rng.standard_normal((mjm.nmocap, 4))  # not normalised: both must
    mjd.xfrc_applied[:] = rng.standard_normal((mjm.nbody, 6))
    for f in ("qpos", "qvel", "mocap_pos", "mocap_quat", "xfrc_applied"):
        getattr(d, f)[...] = getattr(mjd, f)
    return mjm, mjd, m, d


@pytest.mark.parametrize("name,path", MODELS_POS, ids=[c[0] for c in MODELS_POS])
@pytest.mark.parametrize("seed", [0, 1])
def test_position_velocity_stages(name, path, seed):
    mjm, mjd, m, d = make_pair(path, seed)
    mujoco.mj_forward(mjm, mjd)
    mujoco.mj_rnePostConstraint(mjm, mjd)
    mujoco.mj_subtreeVel(mjm, mjd)
    smooth.fwd_position_smooth(m._A, d._A)
    smooth.fwd_velocity_smooth(m._A, d._A)
    d.qacc[:] = mjd.qacc
    d.actuator_force[:] = mjd.actuator_force
    smooth.rne_post_constraint(m._A, d._A)
    smooth.subtree_vel(m._A, d._A)
    fields = POS_FIELDS + VEL_FIELDS + POST_FIELDS
    compare(d, mjd, fields, RTOL, ATOL, what=name)
    np.testing.assert_allclose(d.ten_J, _dense_ten_J(mjm, mjd), RTOL, ATOL,
                               err_msg=f"{name} mismatch: ten_J")
    np.testing.assert_allclose(d.actuator_moment, _dense_moment(mjm, mjd), RTOL, ATOL,
                               err_msg=f"{name} mismatch: actuator_moment")
    # qM (tree layout) is not in mujoco 4's data; it must be d.M in the other order
    np.testing.assert_allclose(d.qM[m.mapM2M], d.M, 0, 0)
    dense = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(mjm, mjd, dense)
    ours = np.zeros((m.nv, m.nv))
    support.mj_fullM(m, d, ours)
    np.testing.assert_allclose(ours, dense, RTOL, ATOL, err_msg=f"{name} mismatch: qM dense")


def test_rne_flg_acc():
    """mj_rne with flg_acc=1 is M qacc + bias for an arbitrary qacc."""
    mjm, mjd, m, d = make_pair("mujoco/model/humanoid/humanoid.xml", 3)
    mujoco.mj_forward(mjm, mjd)
    smooth.fwd_position_smooth(m._A, d._A)
    smooth.fwd_velocity_smooth(m._A, d._A)
    qacc = np.random.default_rng(3).standard_normal(m.nv)
    mjd.qacc[:] = qacc
    d.qacc[:] = qacc
    a, b = np.zeros(m.nv), np.zeros(m.nv)
    mujoco.mj_rne(mjm, mjd, 1, a)
    smooth.mj_rne(m, d, 1, b)
    np.testing.assert_allclose(b, a, RTOL, ATOL)


# ---- position-stage frames bit for bit -----------------------------------------------------------
# Contacts of curved shapes and polytopes (GJK / EPA stopped at a tolerance) are discontinuous in
# the geom poses: a pose one rounding off mujoco's flips some of them. So the frames are computed
# with mujoco 4.0.0's operations in its order (mju_mulQuat's paired sums, mju_quat2Mat's diagonal,
# mju_rotVecQuat for joint axes and anchors, mju_normalize4's skip within 1e-15 of unit length,
# frame quaternions not renormalised, mju_inertCom's order) and must equal its results exactly.
FRAMES_XML = """
<mujoco>
  <worldbody>
    <light pos="0 0 3" dir="0 .3 -1"/>
    <body name="free" pos="0 0 1" euler="10 20 30">
      <freejoint/>
      <geom type="box" size=".1 .2 .3" pos=".1 .2 .3" euler="5 6 7"/>
      <geom type="sphere" size=".1" pos="1e-9 0 0" quat="1 1e-9 0 0"/>
      <site pos=".3 .1 0" euler="30 0 10"/>
      <camera pos=".1 .2 .3" euler="10 20 30"/>
      <light pos=".1 0 .2" dir="1 .2 -1"/>
      <body pos=".2 .1 .3" euler="40 10 5">
        <joint type="ball" pos=".05 .02 -.03"/>
        <geom type="capsule" size=".05" fromto="0 0 0 .3 .1 .2"/>
        <body pos=".3 .1 .2" quat=".9 .1 .2 .3">
          <joint type="hinge" axis="1 2 3" pos=".1 0 .02"/>
          <joint type="slide" axis="0 1 1"/>
          <joint type="hinge" axis="0 1 0" pos="0 .1 .1"/>
          <geom type="cylinder" size=".04 .1" pos=".1 .1 .1" euler="1 2 3"/>
          <site pos=".1 0 0" quat="1 2 3 4"/>
          <body pos=".1 .2 .3">
            <joint type="ball" pos=".01 0 .02"/>
            <joint type="slide" axis=".3 .4 .5" pos=".01 .02 .03"/>
            <geom type="ellipsoid" size=".05 .06 .07" pos=".02 .03 .04" quat="4 3 2 1"/>
          </body>
        </body>
      </body>
    </body>
    <body mocap="true" pos="1 2 3" euler="1 2 3">
      <geom type="box" size=".1 .1 .1" pos=".1 .2 .3" euler="3 2 1"/>
      <site pos=".2 .1 0" euler="0 10 20"/>
      <body pos=".3 .2 .1" euler="20 30 40">
        <joint type="hinge" axis="1 0 0"/>
        <geom type="sphere" size=".1" pos=".1 0 0"/>
      </body>
    </body>
    <body pos="-1 0 0" euler="0 0 45">
      <joint type="slide" axis="1 1 0" pos="1 2 3"/>
      <geom type="sphere" size=".1"/>
    </body>
  </worldbody>
</mujoco>
"""
MODELS_EXACT = [
    ("gym_humanoid", GYM / "humanoid.xml"),
    ("gym_ant", GYM / "ant.xml"),
    ("shadow_hand", "menagerie/shadow_hand/right_hand.xml"),
    ("barkour", "menagerie/google_barkour_vb/barkour_vb.xml"),
    ("cassie", "menagerie/agility_cassie/cassie.xml"),
    ("dmc_quadruped", DMC / "quadruped.xml"),
    ("cube_3x3x3", "mujoco/model/cube/cube_3x3x3.xml"),
    ("frames", None),
]
EXACT_FIELDS = ["xpos", "xquat", "xmat", "xipos", "xiquat", "ximat", "xanchor", "xaxis",
                "geom_xpos", "geom_xquat", "geom_xmat", "site_xpos", "site_xquat", "site_xmat",
                "cam_xpos", "cam_xmat", "light_xpos", "light_xdir",
                "subtree_com", "cinert", "cdof"]


@pytest.mark.parametrize("name,path", MODELS_EXACT, ids=[c[0] for c in MODELS_EXACT])
def test_position_frames_bit_exact(tmp_path, name, path):
    """mj_kinematics, mj_comPos and mj_camlight on mujoco's compiled model equal mujoco's bit for
    bit (np.array_equal) at random states: joint angles from qpos0, ball and free quaternions
    normalised or not, unnormalised mocap quaternions, qpos at qpos0 (hinge angle 0); and
    mj_integratePos from there."""
    if path is None:
        path = tmp_path / "frames.xml"
        path.write_text(FRAMES_XML)
    mjm, mjd, m, d = make_pair(path, 0)
    rng = np.random.default_rng(5)
    for state in range(6):
        mjd.qpos[:] = mjm.qpos0 + rng.standard_normal(mjm.nq)
        if state % 2:
            mujoco.mj_normalizeQuat(mjm, mjd.qpos)
        if state == 4:
            mjd.qpos[:] = mjm.qpos0
        if mjm.nmocap:
            mjd.mocap_pos[:] = rng.standard_normal((mjm.nmocap, 3))
            mjd.mocap_quat[:] = rng.standard_normal((mjm.nmocap, 4))
        for f in ("qpos", "mocap_pos", "mocap_quat"):
            getattr(d, f)[...] = getattr(mjd, f)
        for fn in ("mj_kinematics", "mj_comPos", "mj_camlight"):
            getattr(mujoco, fn)(mjm, mjd)
            getattr(smooth, fn)(m, d)
        for f in EXACT_FIELDS:
            a, b = np.asarray(getattr(d, f)), np.asarray(getattr(mjd, f)).reshape(-1)
            assert np.array_equal(a.reshape(-1), b), (name, state, f, np.abs(a.reshape(-1) - b).max())
        v = rng.standard_normal(mjm.nv)
        qa, qb = mjd.qpos.copy(), mjd.qpos.copy()
        mujoco.mj_integratePos(mjm, qa, v, 0.03)
        support.mj_integratePos(m, qb, v, 0.03)
        assert np.array_equal(qa, qb), (name, state, "integratePos", np.abs(qa - qb).max())


CAMLIGHT_XML = """
<mujoco>
  <worldbody>
    <light name="l0" pos="0 0 3" dir="0 0 -1"/>
    <body name="a" pos="0 0 1">
      <joint type="ball"/>
      <geom size=".1" mass="1"/>
      <camera name="fixed" pos=".1 .2 .3" euler="10 20 30"/>
      <camera name="track" mode="track" pos="0 -1 0" xyaxes="1 0 0 0 0 1"/>
      <camera name="trackcom" mode="trackcom" pos="0 -1 1"/>
      <camera name="target" mode="targetbody" target="b" pos="1 1 1"/>
      <camera name="targetcom" mode="targetbodycom" target="b" pos="-1 1 1"/>
      <light name="l1" mode="track" pos="0 0 1" dir="0 1 -1"/>
      <light name="l2" mode="trackcom" pos="0 1 1" dir="1 0 -1"/>
      <light name="l3" mode="targetbody" target="b" pos="1 0 1"/>
      <light name="l4" mode="targetbodycom" target="b" pos="0 1 2"/>
      <body name="b" pos=".5 0 0">
        <joint type="hinge" axis="0 1 0"/>
        <geom size=".05" pos=".1 0 0" mass=".5"/>
        <body pos=".3 0 0">
          <joint type="slide" axis="1 0 0"/>
          <geom size=".05" mass=".3"/>
        </body>
      </body>
    </body>
    <body name="m" mocap="true" pos="1 2 3"><geom size=".1" contype="0" conaffinity="0"/></body>
  </worldbody>
</mujoco>
"""


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_camlight_modes_and_mocap(tmp_path, seed):
    f = tmp_path / "camlight.xml"
    f.write_text(CAMLIGHT_XML)
    mjm, mjd, m, d = make_pair(f, seed, qpos_noise=1.0)
    mujoco.mj_forward(mjm, mjd)
    smooth.fwd_position_smooth(m._A, d._A)
    compare(d, mjd, ["xpos", "xquat", "xmat", "cam_xpos", "cam_xmat", "light_xpos",
                     "light_xdir"], RTOL, ATOL, what="camlight")


def test_camlight_on_our_compiled_model():
    """The same cameras and lights compiled by our compiler (cam/light_pos0, poscom0, mat0,
    dir0 from qpos0 with every mode fixed, as mujoco's setconst): tracking poses agree with
    mujoco's at a moved state."""
    mjm = mujoco.MjModel.from_xml_string(CAMLIGHT_XML)
    m = engine.MjModel.from_xml_string(CAMLIGHT_XML)
    mjd, d = mujoco.MjData(mjm), engine.MjData(m)
    q = mjm.qpos0 + np.random.default_rng(4).normal(size=mjm.nq) * 0.5
    mjd.qpos[:] = q
    d.qpos[:] = q
    mujoco.mj_forward(mjm, mjd)
    engine.mj_forward(m, d)
    compare(d, mjd, ["cam_xpos", "cam_xmat", "light_xpos", "light_xdir"], RTOL, ATOL,
            what="camlight, our compiler")


TRN_XML = """
<mujoco>
  <worldbody>
    <body name="f" pos="0 0 1">
      <freejoint name="free"/>
      <geom size=".1 .2 .3" type="box" mass="2"/>
      <site name="fs" pos=".1 0 0" euler="10 0 30"/>
      <body name="b" pos=".3 0 0">
        <joint name="ball" type="ball"/>
        <geom size=".05" pos=".1 0 0" mass=".5"/>
        <site name="bs" pos=".2 .1 0"/>
        <body pos=".3 0 0">
          <joint name="h" type="hinge" axis="0 0 1"/>
          <joint name="s" type="slide" axis="1 0 0"/>
          <geom size=".05" mass=".3"/>
          <site name="hs" pos=".1 0 0" euler="0 30 0"/>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="fx"><joint joint="h" coef="2"/><joint joint="s" coef="-.5"/></fixed>
    <spatial name="sp"><site site="fs"/><site site="bs"/><site site="hs"/></spatial>
  </tendon>
  <actuator>
    <motor joint="free" gear="1 2 3 .4 .5 .6"/>
    <motor joint="ball" gear=".3 -.2 .1 0 0 0"/>
    <general jointinparent="ball" gear=".3 -.2 .1 0 0 0"/>
    <general jointinparent="free" gear="1 2 3 .4 .5 .6"/>
    <motor joint="h" gear="2"/>
    <motor tendon="fx" gear="3"/>
    <motor tendon="sp" gear="-1"/>
    <motor site="hs" gear="1 2 3 4 5 6"/>
    <motor site="hs" refsite="fs" gear="1 2 3 4 5 6"/>
    <motor site="bs" refsite="hs" gear="0 0 1 0 0 0"/>
  </actuator>
</mujoco>
"""


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_transmission_types(tmp_path, seed):
    f = tmp_path / "trn.xml"
    f.write_text(TRN_XML)
    mjm, mjd, m, d = make_pair(f, seed, qpos_noise=0.7)
    mjd.ctrl[:] = 10 * np.random.default_rng(seed).standard_normal(mjm.nu)
    mujoco.mj_forward(mjm, mjd)
    mujoco.mj_rnePostConstraint(mjm, mjd)
    smooth.fwd_position_smooth(m._A, d._A)
    smooth.fwd_velocity_smooth(m._A, d._A)
    d.qacc[:] = mjd.qacc
    d.actuator_force[:] = mjd.actuator_force  # actuation is another stage
    smooth.rne_post_constraint(m._A, d._A)
    compare(d, mjd, ["cacc", "cfrc_int", "cfrc_ext"], RTOL, ATOL, what="transmission post")
    compare(d, mjd, ["ten_length", "actuator_length", "actuator_velocity"], RTOL, ATOL,
            what="transmission")
    np.testing.assert_allclose(d.actuator_moment, _dense_moment(mjm, mjd), RTOL, ATOL)
    np.testing.assert_allclose(d.ten_J, _dense_ten_J(mjm, mjd), RTOL, ATOL)
