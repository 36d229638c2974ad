"""The sparse constraint Jacobian end to end against the official mujoco 4.0.0 (issue 18), on
MuJoCo's own multi-robot models (../shared/models/mujoco/model/humanoid: humanoid100.xml, a
humanoid and 100 free bodies, nv 627; 22_humanoids.xml, nv 594; 100_humanoids.xml, nv 2700), where
mj_isSparse (jacobian AUTO, nv >= 60) holds.

- Rows (test_sparse_rows): our whole pipeline at mujoco's states along its trajectory: nefc, nJ,
  efc_J_rownnz / rowadr / colind / rowsuper equal exactly, efc_J 1e-12 relative to its largest
  entry (the same products, summed along the same chains).
- Solvers (test_sparse_solvers): PGS, CG and Newton, pyramidal and elliptic cones, with noslip,
  islands on (the default) or off: qacc, qfrc_constraint, efc_force relative to their largest
  value, and solver_niter equal. Tolerances from the measured worst over these cases: Newton and
  PGS agree to ~1e-13, CG to ~1e-9 (each exact line search stops anywhere inside its slope
  band), noslip after CG to ~1e-7; stated below with margin.
- Capacity (test_capacity_100_humanoids): with the model's <size memory="100M">, MjData holds at
  least the rows mujoco uses along 300 steps (3800 at most), and steps: the per-row cost of the
  arena is the sparse rows' (engine._layout.row_bytes), not nv per row.
"""
import numpy as np
import pytest

import engine
from engine._layout import row_bytes
from engine.data import capacity
from oracle import mujoco, shared_model

HUMANOID = "mujoco/model/humanoid/"
PGS, CG, NEWTON = 0, 1, 2
TOL = {PGS: 1e-10, CG: 1e-7, NEWTON: 1e-10}     # relative to the field's largest value
TOL_NOSLIP = 1e-5                                 # CG then noslip (measured 1e-7)


def rel(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return float(np.max(np.abs(a - b), initial=0.0) / (1.0 + np.max(np.abs(b), initial=0.0)))


def pair(name, setup=None):
    path = str(shared_model(HUMANOID + name))
    mjm = mujoco.MjModel.from_xml_path(path)
    m = engine.MjModel.from_xml_path(path)
    for mm in (mjm, m):
        if setup:
            setup(mm.opt)
    return mjm, mujoco.MjData(mjm), m, engine.MjData(m)


def at_mujoco_state(mjm, mjd, m, d):
    """Our mj_forward at mujoco's state (and warm start), after mujoco's own mj_forward."""
    d.qpos[:] = mjd.qpos
    d.qvel[:] = mjd.qvel
    d.act[:] = mjd.act
    d.qacc_warmstart[:] = mjd.qacc_warmstart
    d.time = mjd.time
    mujoco.mj_forward(mjm, mjd)
    engine.mj_forward(m, d)


def test_simple_dofs_M0():
    """humanoid100's 100 free bodies are simple (dof_simplenum > 0): mj_crb takes their diagonal
    from dof_M0, so the compiler must compute dof_M0 with the full CRB (it once read its own
    zeros back); dof_M0 and the inertia d.M at qpos0 as mujoco's."""
    mjm, mjd, m, d = pair("humanoid100.xml")
    assert (m.dof_simplenum > 0).sum() == 600
    np.testing.assert_allclose(m.dof_M0, mjm.dof_M0, rtol=1e-12, err_msg="mismatch: dof_M0")
    mujoco.mj_forward(mjm, mjd)
    engine.mj_forward(m, d)
    np.testing.assert_allclose(d.M, mjd.M, rtol=1e-12, atol=1e-12, err_msg="mismatch: M")


@pytest.mark.parametrize("name", ["humanoid100.xml", "22_humanoids.xml"])
def test_sparse_rows(name):
    mjm, mjd, m, d = pair(name)
    assert mujoco.mj_isSparse(mjm)
    checked = 0
    for k in range(150):
        mujoco.mj_step(mjm, mjd)
        if k % 30 != 29:
            continue
        at_mujoco_state(mjm, mjd, m, d)
        assert (d.nefc, d.nJ) == (mjd.nefc, mjd.nJ), f"step {k}: nefc, nJ"
        for f in ("efc_J_rownnz", "efc_J_rowadr", "efc_J_rowsuper", "efc_J_colind"):
            np.testing.assert_array_equal(getattr(d, f), getattr(mjd, f), err_msg=f"mismatch: {f}")
        assert rel(d.efc_J, mjd.efc_J) < 1e-12, "mismatch: efc_J"
        checked += d.nefc > 0
    assert checked >= 3
    # no nefc x nv storage: the Jacobian pool holds a fixed number of entries per row
    assert d.__dict__["efc_J"].size <= 32 * d.__dict__["efc_type"].size
    assert "cn_Jdense" not in d.__dict__


CASES = [(s, cone, nslip) for s in (PGS, CG, NEWTON) for cone, nslip in ((0, 0), (1, 0), (1, 3))]


@pytest.mark.slow
@pytest.mark.parametrize("islands", [True, False])
@pytest.mark.parametrize("solver,cone,noslip", CASES)
@pytest.mark.parametrize("name", ["humanoid100.xml", "22_humanoids.xml"])
def test_sparse_solvers(name, solver, cone, noslip, islands):
    def setup(opt):
        opt.solver, opt.cone, opt.noslip_iterations = solver, cone, noslip
        if not islands:
            opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_ISLAND)
    mjm, mjd, m, d = pair(name, setup)
    tol = TOL_NOSLIP if noslip and solver == CG else TOL[solver]
    for k in range(120):
        mujoco.mj_step(mjm, mjd)
        if k % 40 != 39:
            continue
        at_mujoco_state(mjm, mjd, m, d)
        assert d.nefc == mjd.nefc and d.nefc > 0
        for f in ("qacc", "qfrc_constraint", "efc_force"):
            assert rel(getattr(d, f), getattr(mjd, f)) < tol, f"mismatch: {f} at step {k}"
        np.testing.assert_array_equal(d.solver_niter, mjd.solver_niter, err_msg="solver_niter")


@pytest.mark.slow
def test_capacity_100_humanoids():
    mjm, mjd, m, d = pair("100_humanoids.xml")
    nconcap, njcap = capacity(m)
    used = 0
    for _ in range(300):
        mujoco.mj_step(mjm, mjd)
        used = max(used, mjd.nefc)
    assert njcap >= used, (njcap, used)
    # the row's share of the pools does not grow with nv once the Jacobian is sparse
    assert row_bytes(m.nv, True) == row_bytes(627, True) < 2 * m.nv
    engine.mj_step(m, d, 300)
    assert d.nefc > 0 and np.isfinite(d.qacc).all()


def test_actuation_many_actuators():
    """22_humanoids (nu 374, nv 594): qfrc_actuator and actuator_velocity at mujoco's states
    with random controls, forward after forward (transmission clears a moment row on its last
    nonzero columns only, and actuation visits those columns: engine.smooth.transmission)."""
    mjm, mjd, m, d = pair("22_humanoids.xml")
    rng = np.random.default_rng(0)
    for k in range(3):
        mjd.ctrl[:] = rng.uniform(-1, 1, mjm.nu)
        for _ in range(20):
            mujoco.mj_step(mjm, mjd)
        d.ctrl[:] = mjd.ctrl
        at_mujoco_state(mjm, mjd, m, d)
        assert np.abs(mjd.qfrc_actuator).max() > 0
        assert rel(d.qfrc_actuator, mjd.qfrc_actuator) < 1e-12, "mismatch: qfrc_actuator"
        assert rel(d.actuator_velocity, mjd.actuator_velocity) < 1e-12, \
            "mismatch: actuator_velocity"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["22_humanoids.xml", "humanoid100.xml"])
def test_capacity_default_memory(name, tmp_path):
    """The same models without their <size memory="100M"> (copied to a temporary folder with
    the humanoid they attach): our default capacity holds at least the rows mujoco uses with
    its own default guess along 300 steps, and steps."""
    import re
    src = shared_model(HUMANOID + name).parent
    (tmp_path / "humanoid.xml").write_bytes((src / "humanoid.xml").read_bytes())
    (tmp_path / name).write_text(re.sub(r"<size[^>]*/>", "", (src / name).read_text()))
    path = str(tmp_path / name)
    mjm = mujoco.MjModel.from_xml_path(path)
    mjd = mujoco.MjData(mjm)
    m = engine.MjModel.from_xml_path(path)
    assert m.narena <= 0 or m.narena == mjm.narena  # no memory given
    used = 0
    for _ in range(300):
        mujoco.mj_step(mjm, mjd)
        used = max(used, mjd.nefc)
    assert capacity(m)[1] >= used
    d = engine.MjData(m)
    engine.mj_step(m, d, 300)
    assert d.nefc > 0 and np.isfinite(d.qacc).all()
