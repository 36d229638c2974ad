"""mj_inverse inverts mj_forward (to 1e-8) and matches the official mujoco's qfrc_inverse."""
import numpy as np
import pytest

from oracle import mujoco
from test_forward import both, nolimits, path, FORWARD_MODELS

import engine.forward
import engine.inverse


@pytest.mark.parametrize("kind,rel", FORWARD_MODELS[:6] + FORWARD_MODELS[9:])
def test_inverse_inverts_forward(kind, rel):
    mjm = nolimits(mujoco.MjModel.from_xml_path(str(path(kind, rel))))
    mjm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    for seed in range(2):
        m, d, mjd = both(mjm, seed)
        rng = np.random.default_rng(seed)
        d.qfrc_applied[:] = mjd.qfrc_applied[:] = rng.normal(0, 1, mjm.nv)
        d.xfrc_applied[1:] = mjd.xfrc_applied[1:] = rng.normal(0, 1, (mjm.nbody - 1, 6))
        engine.forward.mj_forward(m, d)
        expected = d.qfrc_applied + d.qfrc_actuator
        jac = np.zeros(mjm.nv)
        mujoco.mj_forward(mjm, mjd)
        for b in range(1, mjm.nbody):
            mujoco.mj_applyFT(mjm, mjd, mjd.xfrc_applied[b, :3], mjd.xfrc_applied[b, 3:],
                              mjd.xipos[b], b, jac)
        expected = expected + jac
        engine.inverse.mj_inverse(m, d)
        scale = max(1.0, np.abs(expected).max())
        assert np.abs(d.qfrc_inverse - expected).max() / scale < 1e-8
        mujoco.mj_inverse(mjm, mjd)
        np.testing.assert_allclose(d.qfrc_inverse, mjd.qfrc_inverse, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("jac", [0, 1])
def test_inverse_with_contacts_dense_and_sparse_jacobian(jac):
    """mj_inverse with contact, limit and friction rows on dm_control's humanoid_CMU (nv 62) at
    qpos[2] = 0.5, Jacobian dense (0) or sparse (1: efc_J compressed, the kernels reading the
    dense scratch rows): qfrc_inverse (constraint forces included) equals mujoco's at a perturbed
    qacc."""
    import engine
    from test_constraint import DMC, _venv_asset
    p = str(_venv_asset(DMC, "humanoid_CMU.xml"))
    mjm = mujoco.MjModel.from_xml_path(p)
    m = engine.MjModel.from_xml_path(p)
    mjm.opt.jacobian = m.opt.jacobian = jac
    mjd, d = mujoco.MjData(mjm), engine.MjData(m)
    mjd.qpos[2] = d.qpos[2] = 0.5
    mujoco.mj_forward(mjm, mjd)
    rng = np.random.default_rng(jac)
    qacc = mjd.qacc + rng.normal(0, 1.0, mjm.nv)
    mjd.qacc[:] = d.qacc[:] = qacc
    mujoco.mj_inverse(mjm, mjd)
    engine.inverse.mj_inverse(m, d)
    assert d.nefc == mjd.nefc > 0 and d.nJ == mjd.nJ
    assert (d.nJ < d.nefc * mjm.nv) == bool(jac)
    scale = np.abs(mjd.qfrc_inverse).max()
    assert scale > 1.0
    np.testing.assert_allclose(d.qfrc_inverse, mjd.qfrc_inverse, rtol=1e-6, atol=1e-9 * scale)
