"""mj_passive against the official mujoco: springs, dampers, gravity compensation, fluid.

Stage isolation: the oracle runs mj_forward; its position/velocity results are copied into our
Data (helpers below, shared by the other dynamics tests), then only our stage runs.
"""
import numpy as np
import pytest

from oracle import compare, model_from_mujoco, mujoco, shared_model, TEST_MODELS

import engine
import engine.passive
from engine.data import MjData

# Position/velocity-stage outputs a later stage reads (same names in both engines).
STAGE_IN = ("xpos xquat xmat xipos xiquat ximat xanchor xaxis geom_xpos geom_xquat geom_xmat "
            "site_xpos site_xquat site_xmat cam_xpos cam_xmat subtree_com cdof cinert crb "
            "ten_length ten_velocity actuator_length actuator_velocity cvel cdof_dot qfrc_bias "
            "qLDiagInv subtree_linvel subtree_angmom").split()


def dense_M(mjm, mjd):
    out = np.zeros((mjm.nv, mjm.nv))
    mujoco.mj_fullM(mjm, mjd, out)
    return out


def qM_from_dense(m, Md):
    """Our qM (MuJoCo's legacy 'dof_Madr' layout: row i = diagonal then ancestors)."""
    q = np.zeros(m.nM)
    for i in range(m.nv):
        a, j = int(m.dof_Madr[i]), i
        while j >= 0:
            q[a] = Md[i, j]
            a += 1
            j = int(m.dof_parentid[j])
    return q


def sparse_rows_dense(nrow, nv, rownnz, rowadr, colind, val):
    out = np.zeros((nrow, nv))
    for r in range(nrow):
        for k in range(int(rowadr[r]), int(rowadr[r]) + int(rownnz[r])):
            out[r, int(colind[k])] = val[k]
    return out


def oracle_ten_J(mjm, mjd):
    return sparse_rows_dense(mjm.ntendon, mjm.nv, mjm.ten_J_rownnz, mjm.ten_J_rowadr,
                             mjm.ten_J_colind, mjd.ten_J)


def oracle_moment(mjm, mjd):
    return sparse_rows_dense(mjm.nu, mjm.nv, mjd.moment_rownnz, mjd.moment_rowadr,
                             mjd.moment_colind, mjd.actuator_moment)


def copy_stage_inputs(mjm, mjd, m, d, extra=()):
    """Copy the oracle's position/velocity results into our Data (densifying sparse ones)."""
    for f in tuple(STAGE_IN) + tuple(extra):
        src = np.asarray(getattr(mjd, f))
        getattr(d, f)[...] = src.reshape(getattr(d, f).shape)
    d.ten_J[...] = oracle_ten_J(mjm, mjd)
    d.actuator_moment[...] = oracle_moment(mjm, mjd)
    # the rows' nonzero columns, which the kernels reading ten_J / actuator_moment visit
    for dense, nnz, col in ((d.ten_J, "ten_J_rownnz", "ten_J_colind"),
                            (d.actuator_moment, "moment_rownnz", "moment_colind")):
        for i, row in enumerate(dense):
            nz = np.flatnonzero(row)
            d.__dict__[nnz][i] = nz.size
            d.__dict__[col][i, :nz.size] = nz
    d.qM[...] = qM_from_dense(m, dense_M(mjm, mjd))


def load(path_or_xml, contact=False):
    s = str(path_or_xml)
    if s.lstrip().startswith("<"):
        mjm = mujoco.MjModel.from_xml_string(s)
    else:
        mjm = mujoco.MjModel.from_xml_path(s)
    if not contact:
        mjm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    return mjm


def randomise(mjm, mjd, seed, qvel_scale=1.0, ctrl=True):
    """Random state: qpos0 + noise (quaternions renormalised), qvel, act, ctrl."""
    rng = np.random.default_rng(seed)
    mjd.qpos[:] = mjm.qpos0
    dq = rng.normal(0, 0.3, mjm.nv)
    mujoco.mj_integratePos(mjm, mjd.qpos, dq, 1.0)
    mjd.qvel[:] = rng.normal(0, qvel_scale, mjm.nv)
    if mjm.na:
        mjd.act[:] = rng.uniform(0.05, 0.95, mjm.na)
    if ctrl and mjm.nu:
        lo, hi = mjm.actuator_ctrlrange[:, 0], mjm.actuator_ctrlrange[:, 1]
        lim = mjm.actuator_ctrllimited.astype(bool)
        c = rng.normal(0, 1, mjm.nu)
        c[lim] = rng.uniform(lo[lim] - 0.1 * (hi[lim] - lo[lim]), hi[lim] + 0.1 * (hi[lim] - lo[lim]))
        mjd.ctrl[:] = c


def pair(mjm, seed=0, **kw):
    """(our model, our data, oracle data) after the oracle's mj_forward on a random state."""
    m = model_from_mujoco(mjm)
    mjd = mujoco.MjData(mjm)
    randomise(mjm, mjd, seed, **kw)
    mujoco.mj_forward(mjm, mjd)
    d = MjData(m)
    for f in ("qpos", "qvel", "act", "ctrl", "qfrc_applied", "xfrc_applied", "mocap_pos",
              "mocap_quat"):
        getattr(d, f)[...] = getattr(mjd, f)
    d.time = mjd.time
    copy_stage_inputs(mjm, mjd, m, d)
    return m, d, mjd


PASSIVE = ("qfrc_spring qfrc_damper qfrc_gravcomp qfrc_fluid qfrc_passive").split()

MODELS = [
    "mujoco/model/humanoid/humanoid.xml",
    "mujoco/model/balloons/balloons.xml",
    "mujoco/test/engine/testdata/tendon_springlength.xml",
    "mujoco/test/engine/testdata/derivative/tumbling_thin_object.xml",
    "mujoco/test/engine/testdata/derivative/tumbling_thin_object_ellipsoid.xml",
    "mujoco/test/engine/testdata/derivative/damped_pendulum.xml",
    "menagerie/kuka_iiwa_14/iiwa14.xml",
]


@pytest.mark.parametrize("rel", MODELS)
def test_passive_real_models(rel):
    mjm = load(shared_model(rel))
    for seed in range(3):
        m, d, mjd = pair(mjm, seed)
        engine.passive.mj_passive(m, d)
        compare(d, mjd, PASSIVE, rtol=1e-6, atol=1e-9, what=f"{rel} seed {seed}")


@pytest.mark.parametrize("xml", ["passive.xml", "gravcomp.xml", "fluid.xml"])
def test_passive_own_models(xml):
    mjm = load(TEST_MODELS / xml)
    for seed in range(3):
        m, d, mjd = pair(mjm, seed)
        engine.passive.mj_passive(m, d)
        compare(d, mjd, PASSIVE, rtol=1e-6, atol=1e-9, what=f"{xml} seed {seed}")


@pytest.mark.parametrize("flag", ["mjDSBL_SPRING", "mjDSBL_DAMPER", "mjDSBL_GRAVITY"])
def test_passive_disable_flags(flag):
    for xml in ("passive.xml", "gravcomp.xml"):
        mjm = load(TEST_MODELS / xml)
        mjm.opt.disableflags |= int(getattr(mujoco.mjtDisableBit, flag))
        m, d, mjd = pair(mjm, 1)
        engine.passive.mj_passive(m, d)
        compare(d, mjd, PASSIVE, rtol=1e-6, atol=1e-9, what=f"{xml} {flag}")
