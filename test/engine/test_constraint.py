"""mj_makeConstraint / mj_referenceConstraint / mj_contactForce against the official mujoco.

The same state runs through both engines: the oracle's mj_forward, our smooth position stage, the
oracle's contacts injected into our Data (our collision stage is tested on its own), then our
make_constraint and (after our smooth velocity stage) reference_constraint. Every efc_* row is
compared: type, id, J (densified), pos, margin, frictionloss, diagApprox (mujoco 4's efc_diagA),
R, D, KBIP, vel, aref, and the counts ne/nf/nl/nefc/nJ and the contacts' efc_address.
"""
import numpy as np
import pytest

from oracle import TEST_MODELS, model_from_mujoco, mujoco, shared_model

import engine
import engine.smooth
from engine.constraint import (impedance, make_constraint, mj_contactForce,
                               mj_makeConstraint, mj_referenceConstraint, reference_constraint)
from engine.data import MjData

RTOL = 1e-9
GYM = "gymnasium/envs/mujoco/assets"
DMC = "dm_control/suite"

CONTACT_FIELDS = ("dist", "pos", "frame", "includemargin", "friction", "solref", "solreffriction",
                  "solimp", "mu", "dim", "geom1", "geom2", "geom", "exclude")


def _venv_asset(sub, name):
    import importlib.util
    import pathlib
    top = sub.split("/")[0]
    spec = importlib.util.find_spec(top)
    if spec is None:
        pytest.skip(f"{top} not installed")
    p = pathlib.Path(spec.origin).parent.parent / sub / name
    if not p.exists():
        pytest.skip(f"{p} absent")
    return p


def randomise(mjm, mjd, seed, qscale=0.3):
    rng = np.random.default_rng(seed)
    mjd.qpos[:] = mjm.qpos0
    mujoco.mj_integratePos(mjm, mjd.qpos, rng.normal(0, qscale, mjm.nv), 1.0)
    mjd.qvel[:] = rng.normal(0, 1.0, mjm.nv)
    if mjm.na:
        mjd.act[:] = rng.uniform(0.05, 0.95, mjm.na)


def run_pair(mjm, seed=0, qscale=0.3, mjd=None):
    """(m, d, mjd): the oracle after mj_forward at a random state, ours after the constraint
    rows and their reference accelerations, with the oracle's contacts injected."""
    m = model_from_mujoco(mjm)
    if mjd is None:
        mjd = mujoco.MjData(mjm)
        randomise(mjm, mjd, seed, qscale)
    mujoco.mj_forward(mjm, mjd)
    d = MjData(m)
    for f in ("qpos", "qvel", "act", "mocap_pos", "mocap_quat", "eq_active"):
        getattr(d, f)[...] = getattr(mjd, f)
    engine.smooth.fwd_position_smooth(m._A, d._A)
    inject_contacts(mjd, d)
    make_constraint(m._A, d._A)
    engine.smooth.fwd_velocity_smooth(m._A, d._A)
    reference_constraint(m._A, d._A)
    return m, d, mjd


def inject_contacts(mjd, d):
    n = mjd.ncon
    assert n <= d.contact_dist.shape[0]
    for f in CONTACT_FIELDS:
        src = np.asarray(getattr(mjd.contact, f))
        dst = d.__dict__["contact_" + f]
        dst[:n] = src.reshape(dst[:n].shape)
    d.__dict__["ncon"][0] = n


def dense_from(sparse, nefc, nv, J, rownnz, rowadr, colind):
    """The (nefc, nv) Jacobian from mujoco's public efc_J layout (compressed rows when sparse)."""
    if sparse:
        out = np.zeros((nefc, nv))
        for r in range(nefc):
            a, n = rowadr[r], rownnz[r]
            out[r, colind[a:a + n]] = J[a:a + n]
        return out
    return np.asarray(J).reshape(nefc, nv)


def oracle_J(mjm, mjd):
    return dense_from(mujoco.mj_isSparse(mjm), mjd.nefc, mjm.nv, mjd.efc_J, mjd.efc_J_rownnz,
                      mjd.efc_J_rowadr, mjd.efc_J_colind)


def check_jacobian_layout(mjm, m, d, mjd, what=""):
    """The public efc_J* fields as mujoco lays them out: nJ, d.efc_J's shape and values (dense:
    nefc*nv flat rows; sparse: compressed rows), rownnz/rowadr/colind/rowsuper (sparse: equal;
    dense: mujoco leaves them undefined, ours are zero), equal to mujoco's rows densified; in
    sparse mode the rows are built in place (no nefc x nv scratch: the Jacobian pool holds far
    fewer than njcap * nv entries)."""
    n, nv = mjd.nefc, mjm.nv
    sparse = bool(mujoco.mj_isSparse(mjm))
    assert d.nJ == mjd.nJ, f"{what} nJ {d.nJ} vs {mjd.nJ}"
    assert d.efc_J.shape == mjd.efc_J.shape == (mjd.nJ,), \
        f"{what} efc_J shape {d.efc_J.shape} vs {mjd.efc_J.shape}"
    assert d.efc_J_colind.shape == mjd.efc_J_colind.shape, what
    for f in ("efc_J_rownnz", "efc_J_rowadr", "efc_J_rowsuper"):
        assert getattr(d, f).shape == (n,), f"{what} {f} shape"
    if sparse:
        assert mjd.nJ < n * nv or n == 0, what
        for f in ("efc_J_rownnz", "efc_J_rowadr", "efc_J_rowsuper", "efc_J_colind"):
            _close(f"{what} {f}", getattr(d, f), getattr(mjd, f), 0, 0)
        _close(f"{what} efc_J (compressed)", d.efc_J, mjd.efc_J)
        assert "cn_Jdense" not in d.__dict__, what
        if nv > 32:
            assert d.__dict__["efc_J"].size < d.__dict__["efc_type"].size * nv, what
    else:
        assert mjd.nJ == n * nv, what
        for f in ("efc_J_rownnz", "efc_J_rowadr", "efc_J_rowsuper"):
            assert not getattr(d, f).any(), f"{what} {f} not zero in dense mode"
        _close(f"{what} efc_J (dense flat)", d.efc_J, mjd.efc_J)
    theirs = oracle_J(mjm, mjd)
    _close(f"{what} efc_J densified", dense_from(sparse, n, nv, d.efc_J, d.efc_J_rownnz,
                                                  d.efc_J_rowadr, d.efc_J_colind), theirs)


def _close(what, ours, theirs, rtol=RTOL, atol_scale=1e-12):
    ours = np.asarray(ours, float)
    theirs = np.asarray(theirs, float)
    assert ours.shape == theirs.shape, f"{what}: shape {ours.shape} vs {theirs.shape}"
    if ours.size == 0:
        return
    atol = atol_scale * max(1.0, float(np.abs(theirs).max()))
    err = np.abs(ours - theirs)
    bad = err > rtol * np.maximum(np.abs(ours), np.abs(theirs)) + atol
    if bad.any():
        idx = np.argwhere(bad)[:5]
        lines = [f"  at {tuple(i)}: ours {ours[tuple(i)]!r} oracle {theirs[tuple(i)]!r}"
                 for i in idx]
        raise AssertionError(f"{what}: {int(bad.sum())} mismatches\n" + "\n".join(lines))


def check(mjm, m, d, mjd, what=""):
    for f in ("ne", "nf", "nl", "nefc"):
        assert getattr(d, f) == getattr(mjd, f), f"{what} {f}: {getattr(d, f)} vs {getattr(mjd, f)}"
    n = mjd.nefc
    _close(f"{what} efc_type", d.efc_type, mjd.efc_type[:n], 0, 0)
    _close(f"{what} efc_id", d.efc_id, mjd.efc_id[:n], 0, 0)
    _close(f"{what} contact efc_address", d.contact.efc_address, mjd.contact.efc_address, 0, 0)
    for f in ("efc_pos", "efc_margin", "efc_frictionloss", "efc_R", "efc_D", "efc_KBIP",
              "efc_vel", "efc_aref"):
        _close(f"{what} {f}", getattr(d, f), getattr(mjd, f)[:n])
    _close(f"{what} efc_diagApprox", d.efc_diagApprox, mjd.efc_diagA[:n])
    check_jacobian_layout(mjm, m, d, mjd, what)


# =================================================================================================
# own scenes
# =================================================================================================
def load(path, contact=True):
    mjm = mujoco.MjModel.from_xml_path(str(path))
    if not contact:
        mjm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    return mjm


@pytest.mark.parametrize("seed", range(6))
def test_equality_friction_limits(seed):
    mjm = load(TEST_MODELS / "constraint_eq.xml", contact=False)
    m, d, mjd = run_pair(mjm, seed)
    assert mjd.ne > 0 and mjd.nf > 0
    check(mjm, m, d, mjd, f"seed {seed}")


def test_equality_impedance_inside_width():
    """solimp width 10: every equality's impedance is on its spline (connect/weld use the norm
    of the whole violation)."""
    import re
    xml = (TEST_MODELS / "constraint_eq.xml").read_text()
    xml = re.sub(r'(<(connect|weld|joint|tendon) name="[a-z]_[a-z]+")', r'\1 solimp="0.1 0.95 10 0.5 1.5"', xml)
    xml = xml.replace('solimp="0.8 0.9 0.002 0.4 4"', "")
    mjm = mujoco.MjModel.from_xml_string(xml)
    mjm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    for seed in range(3):
        m, d, mjd = run_pair(mjm, seed)
        assert (mjd.efc_KBIP[:mjd.ne, 2] < 0.9).all()
        check(mjm, m, d, mjd, f"wide solimp seed {seed}")


CONE = {"pyramidal": 0, "elliptic": 1}


@pytest.mark.parametrize("cone", CONE)
@pytest.mark.parametrize("impratio", [1.0, 3.0])
def test_contacts(cone, impratio):
    mjm = load(TEST_MODELS / "constraint_contact.xml")
    mjm.opt.cone = CONE[cone]
    mjm.opt.impratio = impratio
    for seed in range(3):
        m, d, mjd = run_pair(mjm, seed, qscale=0.02)
        dims = sorted({int(c) for c in mjd.contact.dim})
        assert {1, 3, 6} <= set(dims), dims
        check(mjm, m, d, mjd, f"{cone} impratio {impratio} seed {seed}")


@pytest.mark.parametrize("cone", CONE)
@pytest.mark.parametrize("condim", [3, 4, 6])
def test_contact_rows_clamped_R(cone, condim):
    """A contact no dof can move along (a sphere spinning about a vertical axis through its
    centre against a world sphere: body_invweight0's translational part is 0, diagApprox 0):
    R is clamped to mjMINVAL on the normal before the friction rows are derived from it
    (pyramidal 2 mu^2 R0, elliptic R0 / impratio ...), as mujoco's mj_makeImpedance."""
    xml = f"""<mujoco><option impratio="2"/><worldbody>
      <geom type="sphere" size=".1" condim="{condim}" friction=".7 .02 .003"/>
      <body pos=".15 .02 0"><joint type="hinge" axis="0 0 1"/>
        <geom type="sphere" size=".1" condim="{condim}"/></body></worldbody></mujoco>"""
    mjm = mujoco.MjModel.from_xml_string(xml)
    mjm.opt.cone = CONE[cone]
    m, d, mjd = run_pair(mjm, 0, qscale=0.0)
    assert mjd.ncon == 1 and mjm.body_invweight0[1, 0] == 0
    assert mjd.efc_R[0] <= 2e-15       # clamped (pyramidal: 2 mu^2 mjMINVAL)
    check(mjm, m, d, mjd, f"{cone} condim {condim}")


@pytest.mark.parametrize("variant", ["sparse", "norefsafe", "noequality", "nofrictionloss",
                                     "nolimit", "nocontact", "noconstraint"])
def test_flags_and_sparse(variant):
    """Disable flags drop their rows (refsafe: solref timeconst below 2*timestep is kept); a
    SPARSE Jacobian gives the same rows plus MuJoCo's nonzero counts."""
    dsbl = mujoco.mjtDisableBit
    for xml, qscale in (("constraint_eq.xml", 0.3), ("constraint_contact.xml", 0.02)):
        mjm = load(TEST_MODELS / xml)
        mjm.opt.timestep = 0.02   # solref timeconsts 0.01/0.015/0.02 now below 2*timestep
        if variant == "sparse":
            mjm.opt.jacobian = int(mujoco.mjtJacobian.mjJAC_SPARSE)
        else:
            mjm.opt.disableflags |= int(getattr(dsbl, "mjDSBL_" + variant[2:].upper()))
        for seed in range(2):
            m, d, mjd = run_pair(mjm, seed, qscale=qscale)
            check(mjm, m, d, mjd, f"{xml} {variant} seed {seed}")


# =================================================================================================
# Jacobian layout: dense rows or MuJoCo's compressed rows (opt.jacobian / mj_isSparse)
# =================================================================================================
JAC = {"dense": 0, "sparse": 1, "auto": 2}


def _layout_model(kind):
    if kind == "humanoid_CMU":
        return mujoco.MjModel.from_xml_path(str(_venv_asset(DMC, "humanoid_CMU.xml"))), 0.2
    if kind == "gym_humanoid":
        return mujoco.MjModel.from_xml_path(str(_venv_asset(GYM, "humanoid.xml"))), 0.2
    if kind == "eq_tendons":
        return load(TEST_MODELS / "constraint_eq.xml"), 0.3
    return load(TEST_MODELS / "constraint_contact.xml"), 0.02


@pytest.mark.parametrize("cone", CONE)
@pytest.mark.parametrize("jac", JAC)
@pytest.mark.parametrize("kind", ["humanoid_CMU", "gym_humanoid", "eq_tendons", "contacts"])
def test_jacobian_layout(kind, jac, cone):
    """efc_J / nJ / rownnz / rowadr / colind / rowsuper laid out as mujoco's in every mode, for
    equality, friction, limit, tendon and (pyramidal / elliptic) contact rows."""
    mjm, qscale = _layout_model(kind)
    mjm.opt.jacobian = JAC[jac]
    mjm.opt.cone = CONE[cone]
    if kind == "humanoid_CMU" and jac == "auto":
        assert mujoco.mj_isSparse(mjm)      # nv 62 >= 60
    seen = set()
    for seed in range(3):
        mjd = mujoco.MjData(mjm)
        randomise(mjm, mjd, seed, qscale)
        if kind.endswith("humanoid") or kind == "humanoid_CMU":
            mjd.qpos[2] = 0.5 + 0.3 * seed   # lying on / touching the floor: contact rows
        m, d, mjd = run_pair(mjm, mjd=mjd)
        check(mjm, m, d, mjd, f"{kind} {jac} {cone} seed {seed}")
        seen |= set(int(t) for t in mjd.efc_type)
    assert mjd.nefc > 0
    if kind == "eq_tendons":
        assert {0, 1, 3} <= seen, seen            # equality, dof friction, joint limit rows
    elif kind != "gym_humanoid":
        assert {6, 7} & seen, seen                # contact rows of the chosen cone


@pytest.mark.parametrize("jac", ["sparse", "dense"])
def test_jacobian_layout_full_pipeline(jac):
    """engine.mj_forward on dm_control's humanoid_CMU (nv 62) from qpos[2] = 0.5: our own
    collision, rows and solver; the public Jacobian fields equal mujoco's, and the solver (which
    reads the dense rows) gives mujoco's qacc."""
    p = str(_venv_asset(DMC, "humanoid_CMU.xml"))
    mjm = mujoco.MjModel.from_xml_path(p)
    m = engine.MjModel.from_xml_path(p)
    for mm in (mjm, m):
        mm.opt.jacobian = JAC[jac]
        mm.opt.tolerance = 1e-15
        mm.opt.iterations = 1000
        mm.opt.ls_iterations = 100
    mjd, d = mujoco.MjData(mjm), engine.MjData(m)
    mjd.qpos[2] = d.qpos[2] = 0.5
    mujoco.mj_forward(mjm, mjd)
    engine.mj_forward(m, d)
    assert mjd.nefc == 114 and d.nefc == mjd.nefc
    check_jacobian_layout(mjm, m, d, mjd, f"humanoid_CMU {jac}")
    e = np.abs(d.qacc - mjd.qacc).max() / max(1.0, np.abs(mjd.qacc).max())
    assert e < 1e-5, f"qacc rel err {e:.3g}"


# =================================================================================================
# real models at random states
# =================================================================================================
REAL = [
    ("gym", "humanoid.xml"), ("gym", "ant.xml"), ("gym", "hopper.xml"), ("gym", "walker2d.xml"),
    ("gym", "half_cheetah.xml"), ("gym", "pusher.xml"),
    ("dmc", "humanoid.xml"), ("dmc", "cheetah.xml"), ("dmc", "finger.xml"), ("dmc", "manipulator.xml"),
    ("dmc", "quadruped.xml"), ("dmc", "swimmer.xml"),
    ("shared", "menagerie/agility_cassie/scene.xml"),
    ("shared", "menagerie/robotiq_2f85/scene.xml"),
    ("shared", "menagerie/shadow_hand/scene_right.xml"),
    ("shared", "menagerie/unitree_h1/scene.xml"),
    ("shared", "menagerie/google_barkour_vb/scene.xml"),
    ("shared", "menagerie/wonik_allegro/scene_right.xml"),
    ("shared", "mujoco/model/humanoid/humanoid.xml"),
    ("shared", "mujoco/model/humanoid/22_humanoids.xml"),
]


def real_path(kind, name):
    if kind == "gym":
        return _venv_asset(GYM, name)
    if kind == "dmc":
        return _venv_asset(DMC, name)
    return shared_model(name)


@pytest.mark.parametrize("kind,name", REAL)
def test_real_models(kind, name):
    p = real_path(kind, name)
    try:
        mjm = mujoco.MjModel.from_xml_path(str(p))
    except ValueError as e:
        pytest.skip(f"mujoco cannot load {name}: {e}")
    for cone in (0, 1):
        mjm.opt.cone = cone
        for seed, qscale in ((0, 0.2), (1, 0.2), (2, 0.8), (3, 0.8)):
            m, d, mjd = run_pair(mjm, seed, qscale=qscale)
            check(mjm, m, d, mjd, f"{name} cone {cone} seed {seed} qscale {qscale}")


# =================================================================================================
# pieces: impedance, contact force, capacity
# =================================================================================================
def test_impedance_shape():
    # d(0) = d0, d(width) = dwidth, midpoint value halfway for power 2, symmetric in r
    solimp = np.array([0.2, 0.9, 0.1, 0.5, 2.0])
    assert impedance(solimp, 0.0)[0] == pytest.approx(0.2)
    assert impedance(solimp, 0.1)[0] == pytest.approx(0.9)
    assert impedance(solimp, 0.05)[0] == pytest.approx(0.55)
    assert impedance(solimp, -0.03)[0] == pytest.approx(impedance(solimp, 0.03)[0])
    # derivative against a difference
    h = 1e-7
    for r in (0.02, 0.07, -0.04):
        num = (impedance(solimp, r + h)[0] - impedance(solimp, r - h)[0]) / (2 * h)
        assert impedance(solimp, r)[1] == pytest.approx(num, rel=1e-5)


@pytest.mark.parametrize("cone", CONE)
def test_contact_force(cone):
    """mj_contactForce on the oracle's solved forces (copied into our efc_force)."""
    mjm = load(TEST_MODELS / "constraint_contact.xml")
    mjm.opt.cone = CONE[cone]
    m, d, mjd = run_pair(mjm, 1, qscale=0.02)
    d.__dict__["efc_force"][:mjd.nefc] = mjd.efc_force
    ours, theirs = np.zeros(6), np.zeros(6)
    for i in range(mjd.ncon):
        mj_contactForce(m, d, i, ours)
        mujoco.mj_contactForce(mjm, mjd, i, theirs)
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12 * np.abs(theirs).max())


def test_python_wrappers_and_capacity():
    mjm = load(TEST_MODELS / "constraint_eq.xml", contact=False)
    m, d, mjd = run_pair(mjm, 0)
    d2 = MjData(m)
    for f in ("qpos", "qvel"):
        getattr(d2, f)[...] = getattr(mjd, f)
    engine.smooth.fwd_position_smooth(m._A, d2._A)
    mj_makeConstraint(m, d2)
    engine.smooth.fwd_velocity_smooth(m._A, d2._A)
    mj_referenceConstraint(m, d2)
    np.testing.assert_array_equal(d2.efc_aref, d.efc_aref)
    # a model whose njmax cannot hold the rows: stop adding, CNSTRFULL warning, fw_status 7
    m.__dict__["njmax"] = 10   # sizes are read-only in the API; forced here for the test
    d3 = MjData(m)
    assert d3.__dict__["efc_type"].shape[0] == 10
    for f in ("qpos", "qvel"):
        getattr(d3, f)[...] = getattr(mjd, f)
    engine.smooth.fwd_position_smooth(m._A, d3._A)
    make_constraint(m._A, d3._A)
    assert d3.nefc <= 10 and d3.fw_status[0] == 7 and d3.fw_status[1] > 10
    assert d3.warning_number[int(mujoco.mjtWarning.mjWARN_CNSTRFULL)] == 1
    np.testing.assert_array_equal(d3.efc_type, mjd.efc_type[:d3.nefc])
