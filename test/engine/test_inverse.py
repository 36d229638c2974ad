"""mj_inverse inverts mj_forward (to 1e-8) and matches the official mujoco's qfrc_inverse."""
import numpy as np
import pytest

from oracle import mujoco, GYM
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


def _contact_scene(name="ant", settle=3):
    from test_contact_pipeline import load_both, copy_state
    mjm, mjd, m, d = load_both(("file", GYM + name + ".xml"))
    mjd.qpos[2] += 0.05 if name == "ant" else 0.0
    mjd.ctrl[:] = np.random.default_rng(0).uniform(-1, 1, mjm.nu)
    mujoco.mj_step(mjm, mjd, settle)
    copy_state(mjd, d)
    return mjm, mjd, m, d


@pytest.mark.parametrize("how", ["step", "step12"])
def test_fwdinv_in_step(how):
    """opt.enableflags fwdinv: mj_step and mj_step2 run mj_compareFwdInv between the solver and
    the integrator (solver_fwdinv, qfrc_inverse) and the step itself is unchanged. With the
    solver converged both norms are round-off."""
    mjm, mjd, m, d = _contact_scene()
    for mm in (mjm, m):
        mm.opt.enableflags |= int(mujoco.mjtEnableBit.mjENBL_FWDINV)
    for _ in range(3):
        d.qfrc_inverse[:] = 0.0
        if how == "step":
            mujoco.mj_step(mjm, mjd)
            engine.forward.mj_step(m, d)
        else:
            mujoco.mj_step1(mjm, mjd)
            mujoco.mj_step2(mjm, mjd)
            engine.forward.mj_step1(m, d)
            engine.forward.mj_step2(m, d)
        assert mjd.nefc > 0 and d.nefc == mjd.nefc
        np.testing.assert_allclose(d.qpos, mjd.qpos, atol=1e-9)
        np.testing.assert_allclose(d.qfrc_inverse, mjd.qfrc_inverse, rtol=1e-6, atol=1e-8)
        assert np.abs(d.qfrc_inverse).max() > 1.0  # the actuator forces: it ran
        assert np.max(d.solver_fwdinv) < 1e-8 and np.max(mjd.solver_fwdinv) < 1e-8


def test_compare_fwd_inv_off_solution():
    """mj_compareFwdInv at an acceleration that is not the forward solution: both norms are large
    and equal mujoco's, and the forward results it must keep (qfrc_constraint, efc_force) are
    restored."""
    mjm, mjd, m, d = _contact_scene()
    mujoco.mj_forward(mjm, mjd)
    engine.forward.mj_forward(m, d)
    dq = np.random.default_rng(1).normal(0, 5.0, mjm.nv)
    mjd.qacc[:] += dq
    d.qacc[:] = mjd.qacc
    keep = d.qfrc_constraint.copy(), d.efc_force.copy()
    mujoco.mj_compareFwdInv(mjm, mjd)
    engine.mj_compareFwdInv(m, d)
    want = np.ravel(mjd.solver_fwdinv)
    assert want.min() > 1.0
    np.testing.assert_allclose(np.ravel(d.solver_fwdinv), want, rtol=1e-8)
    np.testing.assert_allclose(d.qfrc_inverse, mjd.qfrc_inverse, rtol=1e-8, atol=1e-8)
    np.testing.assert_array_equal(d.qfrc_constraint, keep[0])
    np.testing.assert_array_equal(d.efc_force, keep[1])

def test_unsupported_options_raise():
    """Option flags the engine does not simulate raise NotImplementedError naming the flag."""
    mjm, mjd, m, d = _contact_scene()
    for field, bit, name in (("enableflags", mujoco.mjtEnableBit.mjENBL_DIAGEXACT, "diagexact"),
                             ("disableflags", mujoco.mjtDisableBit.mjDSBL_NATIVECCD, "nativeccd")):
        setattr(m.opt, field, getattr(m.opt, field) | int(bit))
        for fn in (engine.forward.mj_step, engine.forward.mj_forward):
            with pytest.raises(NotImplementedError, match=name):
                fn(m, d)
        setattr(m.opt, field, getattr(m.opt, field) & ~int(bit))
    engine.forward.mj_step(m, d)
    m.opt.enableflags |= int(mujoco.mjtEnableBit.mjENBL_INVDISCRETE)
    with pytest.raises(NotImplementedError, match="invdiscrete"):
        engine.inverse.mj_inverse(m, d)
    m.opt.enableflags &= ~int(mujoco.mjtEnableBit.mjENBL_INVDISCRETE)
    m.opt.enableflags |= int(mujoco.mjtEnableBit.mjENBL_SLEEP)
    with pytest.raises(NotImplementedError, match="sleep"):
        engine.inverse.mj_inverse(m, d)


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
