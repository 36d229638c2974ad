"""The implicit and implicitfast integrators in MuJoCo's sparse form (issue 18) against mujoco
4.0.0: qDeriv written directly in the D layout (with mjd_rne_vel's bias derivative for
implicit), qLU = M - h*qDeriv factored by the sparse LU (implicit), qH = M - h*qDeriv in M's
CSR layout factored by L'DL (implicitfast), the step's qacc and the trajectory.

Models: test/models/implicit_branches.xml (tendons and a muscle spanning two branches of one
tree -- products outside the D layout dropped --, velocity servos, affine gain/bias, a tree
with two leaves, a floating body with a welded child), MuJoCo's humanoids (one, 22, 100),
test/models/actuators.xml (muscles), passive.xml (every joint type, polynomial dampers), the
fluid models. Contacts are disabled so that the trajectories test
the integrator, not the contact solver's sensitivity.

Tolerances: one step (qDeriv, qLU / qH, qacc) 1e-11 relative to the field's largest entry --
measured at most ~3e-13 (rounding: the engine's sums run in another order than MuJoCo's);
200 steps of qpos / qvel 1e-9 (measured at most ~1e-11).
"""
import numpy as np
import pytest

from oracle import mujoco, shared_model, TEST_MODELS
from test_forward import both, rel_err

import engine
from engine._layout import SCRATCH_TABLE

MODELS = [
    ("own", "implicit_branches.xml"), ("own", "fluid_implicit.xml"), ("own", "fluid.xml"),
    ("own", "passive.xml"), ("own", "actuators.xml"),
    ("shared", "mujoco/model/humanoid/humanoid.xml"),
    ("shared", "mujoco/model/humanoid/22_humanoids.xml"),
    ("shared", "mujoco/model/humanoid/humanoid100.xml"),
]
STEP_TOL = 1e-11
TRAJ_TOL = 1e-9


def _load(kind, rel, integrator):
    p = TEST_MODELS / rel if kind == "own" else shared_model(rel)
    mjm = mujoco.MjModel.from_xml_path(str(p))
    mjm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    mjm.opt.integrator = int(getattr(mujoco.mjtIntegrator, "mjINT_" + integrator))
    return mjm


def _single_free_dofs(mjm):
    """Mask of the dofs of kinematic trees moved by one free joint and nothing else."""
    free = np.zeros(mjm.nv, bool)
    for t in range(mjm.ntree):
        a = mjm.tree_dofadr[t]
        if mjm.tree_dofnum[t] == 6 and mjm.jnt_type[mjm.dof_jntid[a]] == 0:
            free[a:a + 6] = True
    return free


@pytest.mark.parametrize("integrator", ["IMPLICIT", "IMPLICITFAST"])
@pytest.mark.parametrize("kind,rel", MODELS)
def test_step_and_trajectory_match_mujoco(kind, rel, integrator):
    mjm = _load(kind, rel, integrator)
    m, d, mjd = both(mjm, 1, qvel_scale=0.3)
    v0 = mjd.qvel.copy()
    engine.mj_step(m, d)
    mujoco.mj_step(mjm, mjd)
    h = mjm.opt.timestep
    e = rel_err(d.qDeriv, mjd.qDeriv)
    assert e < STEP_TOL, f"mismatch: qDeriv rel err {e:.3g}"
    assert np.abs(mjd.qDeriv).max() > 0.0  # the model has velocity derivatives to compare
    if integrator == "IMPLICIT":
        e = rel_err(d.qLU, mjd.qLU)
        assert e < STEP_TOL, f"mismatch: qLU rel err {e:.3g}"
    else:
        # qH / qHDiagInv of the trees moved by a single free joint are not compared: there
        # MuJoCo 4.0.0's implicitfast steps like implicit (the step is compared below) and its
        # qH holds another matrix than M - h*qDeriv (measured: up to 7% apart on
        # fluid_implicit.xml's floating body), which the engine does not reproduce
        rows = ~_single_free_dofs(mjm)
        e = rel_err(d.qHDiagInv[rows], mjd.qHDiagInv[rows])
        assert e < STEP_TOL, f"mismatch: qHDiagInv rel err {e:.3g}"
        adr = np.repeat(rows, mjm.M_rownnz)
        e = rel_err(d.qH[adr], mjd.qH[adr])
        assert e < STEP_TOL, f"mismatch: qH rel err {e:.3g}"
    e = rel_err((d.qvel - v0) / h, (mjd.qvel - v0) / h)
    assert e < STEP_TOL, f"mismatch: qacc of the step rel err {e:.3g}"
    engine.mj_step(m, d, 199)
    mujoco.mj_step(mjm, mjd, 199)
    for f in ("qpos", "qvel", "act"):
        e = rel_err(getattr(d, f), getattr(mjd, f))
        assert e < TRAJ_TOL, f"mismatch: {f} rel err {e:.3g} after 200 steps"


def test_cross_branch_products_are_dropped():
    """A damped fixed tendon over two sibling hinges couples dofs that are not on one chain:
    that entry is not in qDeriv's pattern, and the step (mujoco's too) ignores it."""
    mjm = _load("own", "implicit_branches.xml", "IMPLICIT")
    m, d, mjd = both(mjm, 2, qvel_scale=0.3)
    engine.mj_step(m, d)
    mujoco.mj_step(mjm, mjd)
    a = mjm.jnt_dofadr[mujoco.mj_name2id(mjm, mujoco.mjtObj.mjOBJ_JOINT, "c3a")]
    b = mjm.jnt_dofadr[mujoco.mj_name2id(mjm, mujoco.mjtObj.mjOBJ_JOINT, "c3b")]
    row = slice(mjm.D_rowadr[a], mjm.D_rowadr[a] + mjm.D_rownnz[a])
    assert b not in mjm.D_colind[row]
    assert rel_err(d.qvel, mjd.qvel) < STEP_TOL


def test_no_dense_scratch():
    """No nv x nv workspace: every scratch field grows at most linearly with nv (or with nD)."""
    for line in SCRATCH_TABLE.strip().splitlines():
        name, _, rows, cols = line.split()[:4]
        assert not (rows == "nv" and cols == "nv"), name
