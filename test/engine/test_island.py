"""Constraint islands against the official mujoco 4.0.0: the island structure mj_island builds in
the position stage (engine/island.py) and the solvers run island by island (engine/solver/).

Structure (test_island_fields): our whole position stage (collision, constraint rows, mj_island)
on mujoco's compiled model at mujoco's state; the rows must be the same (checked first), then
nisland, nidof and every island array (tree_island ... map_iefc2efc, iefc_type, iefc_id) equal
exactly, iefc_frictionloss/D/R equal our efc_* gathered (exactly) and mujoco's (1e-12 relative).
Models: test/models/islands.xml (trees joined by contacts, a joint equality, a site connect and a
tendon; a tendon with a zero coefficient, which does not couple; a mocap body; unconstrained
trees), solver_features.xml (8 islands), gym ant and humanoid, dm_control quadruped (a ball with
no rows), models without constraint rows, islands disabled, and more islands than mjNISLAND.

Solvers (test_island_solvers, test_island_noslip): mujoco's rows injected into ours
(test_solver.inject, which runs our mj_island on them), both solve with islands enabled at 1, 2,
5, 20 iterations with tolerance 0 and 1e-8: per-island solver_niter, solver_nnz and statistics
(test_solver.check_stats), qacc (PGS 1e-10, CG/Newton 1e-9 relative to the largest), forces
(qfrc_constraint, efc_force: PGS 1e-10, CG/Newton 1e-7), the states, and the island-ordered
copies (iacc, ifrc_*, iefc_aref, iefc_force, iefc_state) for CG/Newton, which mujoco writes
there. Why 1e-7: each exact line search stops anywhere inside its slope band, and solved alone
a small island (solver_features' welded box, 6 dofs) gets further in 5 CG iterations, so its
qacc differs by 1.5e-9 of its own size and its forces by 3.5e-8 (measured).

Tolerance 0 (every island to its iteration limit) is compared for pyramidal PGS
(test_island_pgs_tolerance0). CG, Newton and elliptic PGS at tolerance 0 are not: there they
iterate at the rounding floor of the cost, where mujoco 4.0.0's improvements come out as 0 or
+1e-29 and ours as +-1e-13 (CG/Newton: a difference of total costs; elliptic PGS: a block
update moving a force by an ulp), so a negative one ends our solve earlier. That is so without
islands too, and these solvers match mujoco per island at the default tolerance 1e-8.
"""
import numpy as np
import pytest

import engine
from engine.data import MjData
from engine.island import mj_island
from oracle import DM, GYM, TEST_MODELS, model_from_mujoco, mujoco
from test_solver import (CG, ITER_TOL, ITER_TOL_PRIMAL, NEWTON, PGS, _check_iterations,
                         check_stats, oracle_and_ours, rel, scene)

FIELDS = ("tree_island island_ntree island_itreeadr map_itree2tree dof_island island_nv "
          "island_idofadr island_dofadr map_dof2idof map_idof2dof efc_island island_ne "
          "island_nf island_nefc island_iefcadr map_efc2iefc map_iefc2efc iefc_type "
          "iefc_id").split()
ISLANDS = TEST_MODELS / "islands.xml"
_DSBL_ISLAND = int(mujoco.mjtDisableBit.mjDSBL_ISLAND)


def compare_fields(d, mjd, same_rows=False):
    """Every island field of ours equal to mujoco's (see the module docstring); the float
    copies iefc_frictionloss/D/R are ours gathered, and mujoco's too when the rows are
    mujoco's own (``same_rows``: injected; from our constraint stage efc_D and efc_R differ
    from mujoco's at a contact's rounding)."""
    assert (d.nisland, d.nidof) == (mjd.nisland, mjd.nidof)
    for f in FIELDS:
        a, b = np.asarray(getattr(d, f)), np.asarray(getattr(mjd, f))
        assert a.shape == b.shape and np.array_equal(a, b), (f, a.tolist(), b.tolist())
    if mjd.nisland:
        perm = np.asarray(d.map_iefc2efc)
        for f in ("frictionloss", "D", "R"):
            ours = np.asarray(getattr(d, "iefc_" + f))
            np.testing.assert_array_equal(ours, np.asarray(getattr(d, "efc_" + f))[perm])
            if same_rows:
                np.testing.assert_array_equal(ours, getattr(mjd, "iefc_" + f))


def forward_pair(mjm, mjd):
    """Ours on mujoco's compiled model at mujoco's state, both through mj_forward; the rows
    must agree before their islands are compared."""
    m = model_from_mujoco(mjm)
    d = MjData(m)
    for f in ("qpos", "qvel", "act", "ctrl", "mocap_pos", "mocap_quat", "qacc_warmstart",
              "qfrc_applied", "xfrc_applied"):
        getattr(d, f)[...] = getattr(mjd, f)
    d.time = mjd.time
    mujoco.mj_forward(mjm, mjd)
    engine.mj_forward(m, d)
    assert d.nefc == mjd.nefc, (d.nefc, mjd.nefc)
    np.testing.assert_array_equal(d.efc_type, mjd.efc_type)
    np.testing.assert_array_equal(d.efc_id, mjd.efc_id)
    return m, d


def _model(path, jacobian=0, cone=0):
    mjm = mujoco.MjModel.from_xml_path(str(path))
    mjm.opt.jacobian = jacobian
    mjm.opt.cone = cone
    return mjm


# model, steps before each comparison (cumulative), initial kick of qvel
FIELD_CASES = [
    ("islands", ISLANDS, (0, 1, 99, 300), 0.0),
    ("features", TEST_MODELS / "solver_features.xml", (150, 20), 0.5),
    ("ant", GYM + "ant.xml", (400, 50), 0.0),
    ("humanoid", GYM + "humanoid.xml", (400,), 0.0),
    ("dm_quadruped", DM + "quadruped.xml", (300,), 0.0),
]


@pytest.mark.parametrize("jacobian", [0, 1])
@pytest.mark.parametrize("name,path,steps,kick", FIELD_CASES, ids=[c[0] for c in FIELD_CASES])
def test_island_fields(name, path, steps, kick, jacobian):
    """Island structure of our position stage equal to mujoco's at successive states of a
    mujoco trajectory (Newton, random controls), dense and sparse Jacobian. With the sparse
    Jacobian, islands.xml is compared after step 99 only: mujoco stores a tendon row's
    zero-coefficient columns (so its zero coefficient couples the tree there, unlike with the
    dense Jacobian), our sparse rows keep only the nonzero ones (a constraint-stage difference;
    the tendon limit is released by then)."""
    mjm = _model(path, jacobian)
    mjd = mujoco.MjData(mjm)
    rng = np.random.default_rng(0)
    mjd.qvel[:] += kick * rng.normal(size=mjm.nv)
    seen = set()
    for n in steps:
        for _ in range(n):
            if mjm.nu:
                mjd.ctrl[:] = rng.uniform(-1, 1, mjm.nu)
            mujoco.mj_step(mjm, mjd)
        if jacobian and name == "islands" and mjd.time < 0.1:
            continue
        m, d = forward_pair(mjm, mjd)
        compare_fields(d, mjd)
        seen.add(mjd.nisland)
    assert max(seen) >= 1


def test_island_fields_cases():
    """islands.xml at qpos0, as designed: 9 islands (the two stacked boxes, the boxes side by
    side, the lone ball, the ball under the mocap paddle, the hinges of the joint equality, the
    slides of tendon t12, slide s3 alone: the zero coefficient of tendon t34 does not couple s4,
    the friction-loss hinge, the arm and its connected load); the floater and s4 in no island."""
    mjm = _model(ISLANDS)
    mjd = mujoco.MjData(mjm)
    m, d = forward_pair(mjm, mjd)
    compare_fields(d, mjd)
    tree = {mujoco.mj_id2name(mjm, mujoco.mjtObj.mjOBJ_BODY, int(mjm.tree_bodyadr[t])): t
            for t in range(mjm.ntree)}
    isl = lambda b: int(d.tree_island[tree[b]])  # noqa: E731
    assert d.nisland == 9
    assert isl("b1") == isl("b2") != isl("b3") == isl("b4")
    assert isl("h1") == isl("h2") and isl("s1") == isl("s2") and isl("arm") == isl("load")
    assert isl("floater") == isl("s4") == -1 and isl("s3") >= 0 and isl("pball") >= 0
    # efc rows of island s are exactly the rows whose trees are in s
    for s in range(d.nisland):
        rows = d.map_iefc2efc[d.island_iefcadr[s]:d.island_iefcadr[s] + d.island_nefc[s]]
        assert np.all(d.efc_island[rows] == s) and np.all(np.diff(rows) > 0)


@pytest.mark.parametrize("how", ["disabled", "no_rows"])
def test_no_islands(how):
    """Islands disabled (mjDSBL_ISLAND) or no constraint rows: nisland = nidof = 0, trees and
    dofs in no island (-1), maps 0, as mujoco shows; the solver clears solver_niter and gives
    qacc_smooth without rows."""
    mjm = _model(ISLANDS)
    if how == "disabled":
        mjm.opt.disableflags |= _DSBL_ISLAND
    else:
        mjm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
    mjd = mujoco.MjData(mjm)
    m, d = forward_pair(mjm, mjd)
    assert d.nisland == d.nidof == 0
    for f in ("tree_island", "dof_island", "map_itree2tree", "map_dof2idof", "map_idof2dof",
              "efc_island", "map_efc2iefc", "map_iefc2efc"):
        np.testing.assert_array_equal(getattr(d, f), getattr(mjd, f), err_msg=f)
    assert d.island_nv.shape == (0,) and d.iacc.shape == (0,)
    np.testing.assert_array_equal(d.solver_niter, mjd.solver_niter)
    if how == "no_rows":
        np.testing.assert_array_equal(d.qacc, d.qacc_smooth)
    else:
        assert d.solver_niter[0] == mjd.solver_niter[0] > 0


def _many_balls(n):
    balls = "".join(f'<body pos="{0.3 * i} 0 0.099"><freejoint/><geom size="0.1"/></body>'
                    for i in range(n))
    return ('<mujoco><option timestep="0.002"/><worldbody>'
            f'<geom type="plane" size="10 10 .1"/>{balls}</worldbody></mujoco>')


@pytest.mark.parametrize("solver", [PGS, CG, NEWTON])
def test_more_islands_than_recorded(solver):
    """25 balls on the floor, 25 islands: all are solved (qacc equal mujoco's), solver_niter,
    solver_nnz and statistics exist for the first mjNISLAND = 20 only, as in mujoco."""
    mjm = mujoco.MjModel.from_xml_string(_many_balls(25))
    mjm.opt.solver = solver
    mjd = mujoco.MjData(mjm)
    mujoco.mj_step(mjm, mjd, 3)
    m, d = forward_pair(mjm, mjd)
    assert d.nisland == mjd.nisland == 25
    compare_fields(d, mjd)
    check_stats(mjd, d, solver, 0)
    assert rel(d.qacc, mjd.qacc) < 1e-8, rel(d.qacc, mjd.qacc)


def test_reset_and_stat_records():
    """d.solver is mjNISLAND*mjNSOLVER records read and written like mujoco's MjSolverStat;
    MjData(m) and mj_resetData leave no islands and zero statistics, as mujoco."""
    mjm = _model(ISLANDS)
    mjd = mujoco.MjData(mjm)
    m = model_from_mujoco(mjm)
    d = MjData(m)
    for data in (d, mjd):
        assert len(data.solver) == 4000
        assert data.solver_niter.shape == data.solver_nnz.shape == (20,)
    np.testing.assert_array_equal(d.tree_island, mjd.tree_island)
    np.testing.assert_array_equal(d.dof_island, mjd.dof_island)
    mujoco.mj_forward(mjm, mjd)
    engine.mj_forward(m, d)
    k = 3 * 200 + 1
    assert d.solver[k].neval == mjd.solver[k].neval
    assert d.solver[k].improvement == pytest.approx(mjd.solver[k].improvement, rel=1e-6,
                                                    abs=1e-10)
    d.solver[5].nactive = 7
    d.solver[5].improvement = 0.25
    assert (d.solver_stat[5, 3], d.solver[5].improvement) == (7, 0.25)
    with pytest.raises(AttributeError):
        d.solver[5].bogus
    assert [r.nactive for r in d.solver[4:6]] == [d.solver[4].nactive, 7]
    assert d.nisland > 0 and d.solver_niter.any() and d.solver_nnz.any()
    engine.mj_resetData(m, d)
    mujoco.mj_resetData(mjm, mjd)
    for f in ("nisland", "nidof", "tree_island", "dof_island", "solver_niter", "solver_nnz"):
        np.testing.assert_array_equal(getattr(d, f), getattr(mjd, f), err_msg=f)
    assert not d.solver_stat.any()


def test_no_tree_row_raises():
    """A row whose Jacobian touches no dof (a fixed tendon with only a zero coefficient, its
    limit violated: our dense rows keep it, mujoco makes none) belongs to no island: the
    position stage stops with a RuntimeError naming the row, as MuJoCo stops on such a row."""
    xml = """<mujoco><worldbody><body><joint name="a" type="slide"/><geom size=".1"/></body>
      </worldbody><tendon><fixed limited="true" range="0.1 0.2"><joint joint="a" coef="0"/>
      </fixed></tendon></mujoco>"""
    m = engine.MjModel.from_xml_string(xml)
    d = engine.MjData(m)
    with pytest.raises(RuntimeError, match="constraint row 0"):
        engine.mj_forward(m, d)
    m.opt.disableflags |= _DSBL_ISLAND
    engine.mj_forward(m, d)        # islands disabled: one problem, nothing to assign
    assert d.nefc == 1 and d.nisland == 0


# ------------------------------------------------------------------------------------------------
# solvers, island by island
SOLVER_SCENES = [("features", 0), ("features", 1), ("islands", 0), ("islands", 1),
                 ("dm_quadruped", 0), ("humanoid", 1)]


def _islands_on(mjm):
    mjm.opt.disableflags &= ~_DSBL_ISLAND


def _check_island_copies(mjd, d, solver):
    """The island-ordered copies mujoco writes for CG/Newton (not PGS): iacc, iacc_smooth,
    ifrc_smooth, ifrc_constraint, iefc_aref, iefc_force."""
    if solver == PGS:
        return
    for f in ("iacc", "iacc_smooth", "ifrc_smooth", "ifrc_constraint", "iefc_aref",
              "iefc_force"):
        tol = 1e-7 if f in ("ifrc_constraint", "iefc_force") else ITER_TOL_PRIMAL
        assert rel(getattr(d, f), getattr(mjd, f)) < tol, f


def _island_runs(name, cone, solver, tol):
    mjm, mjd = scene(name, cone)
    _islands_on(mjm)
    for iters in (1, 2, 5, 20):
        m, d = oracle_and_ours(mjm, mjd, solver, tol=tol, iters=iters)
        assert d.nisland == mjd.nisland >= 1
        compare_fields(d, mjd, same_rows=True)
        _check_iterations(mjd, d, solver, cone, force_tol=ITER_TOL if solver == PGS else 1e-7)
        _check_island_copies(mjd, d, solver)


@pytest.mark.parametrize("solver", [PGS, CG, NEWTON])
@pytest.mark.parametrize("name,cone", SOLVER_SCENES)
def test_island_solvers(name, cone, solver):
    """Each island solved alone as mujoco 4.0.0 does (module docstring), 1, 2, 5, 20
    iterations at the default tolerance 1e-8: iteration limits, early exits (improvement,
    gradient, Newton decrement) and the zero-iteration warm start certificate, per island."""
    _island_runs(name, cone, solver, 1e-8)


@pytest.mark.parametrize("name", ["features", "islands", "dm_quadruped"])
def test_island_pgs_tolerance0(name):
    """Pyramidal PGS at tolerance 0: every island sweeps to the limit (1, 2, 5, 20), with
    mujoco's per-island order, momentum and restarts (module docstring: the other solvers)."""
    _island_runs(name, 0, PGS, 0.0)


@pytest.mark.parametrize("solver", [PGS, CG, NEWTON])
@pytest.mark.parametrize("name,cone", [("features", 0), ("features", 1), ("islands", 0)])
def test_island_noslip(name, cone, solver):
    """Noslip island by island after the main solver (default tolerance, 3 iterations): its
    statistics follow each island's main iterations (solver_niter = main + noslip), with the
    island's scale; efc_state the dual state; qacc and efc_force 1e-10 relative. The
    island-ordered copies (iefc_state, iefc_force, iacc...) stay the main solver's: mujoco's
    noslip does not write them."""
    mjm, mjd = scene(name, cone)
    _islands_on(mjm)
    mjm.opt.noslip_tolerance = 1e-6
    for ns in (1, 2, 5, 20):
        m, d = oracle_and_ours(mjm, mjd, solver, tol=1e-8, iters=3, noslip=ns)
        check_stats(mjd, d, PGS, cone)          # noslip records are dual: PGS's rules
        assert rel(d.qacc, mjd.qacc) < ITER_TOL, (ns, rel(d.qacc, mjd.qacc))
        assert rel(d.efc_force, mjd.efc_force) < ITER_TOL
        if cone == 0:
            np.testing.assert_array_equal(d.efc_state, mjd.efc_state)
        _check_island_copies(mjd, d, solver)     # the main solver's: noslip leaves them
        if solver != PGS and cone == 0:
            np.testing.assert_array_equal(d.iefc_state, mjd.iefc_state)


@pytest.mark.parametrize("solver", [PGS, CG, NEWTON])
@pytest.mark.parametrize("name,steps", [("islands", 60), ("features", 60)])
def test_island_pipeline(name, steps, solver):
    """mj_forward of both engines (our collision, rows, islands and solver) from mujoco's states
    along its trajectory, islands enabled (the default): per-island solver_niter, solver_nnz
    and statistics, island fields equal, qacc 1e-8 relative. The rows are each engine's own
    here, equal to rounding (collision, Jacobians, impedances): the statistics are compared to
    1e-4 relative plus 1e-6 of the island's largest (check_stats), as a stiff island amplifies
    those differences (solver_features' welded box under CG: 2e-5 at its third iteration)."""
    path = ISLANDS if name == "islands" else TEST_MODELS / "solver_features.xml"
    mjm = _model(path)
    mjm.opt.solver = solver
    mjd = mujoco.MjData(mjm)
    for k in range(steps):
        mujoco.mj_step(mjm, mjd)
        if k % 10:
            continue
        m, d = forward_pair(mjm, mjd)
        compare_fields(d, mjd)
        check_stats(mjd, d, solver, 0, rtol=1e-4, ftol=1e-6)
        assert rel(d.qacc, mjd.qacc) < 1e-8, (k, rel(d.qacc, mjd.qacc))


SPARSE_CASES = [("features", TEST_MODELS / "solver_features.xml", 150, 0),
                ("features", TEST_MODELS / "solver_features.xml", 150, 1),
                ("humanoid", GYM + "humanoid.xml", 400, 0),
                ("dm_quadruped", DM + "quadruped.xml", 300, 1)]


@pytest.mark.parametrize("islands", [True, False])
@pytest.mark.parametrize("solver", [PGS, CG, NEWTON])
@pytest.mark.parametrize("name,path,nstep,cone", SPARSE_CASES,
                         ids=[f"{c[0]}-{c[3]}" for c in SPARSE_CASES])
def test_sparse_nnz(name, path, nstep, cone, solver, islands):
    """solver_nnz with the sparse Jacobian, MuJoCo's count for its sparse matrices: PGS, AR's
    (the row pairs sharing a tree; an island's nefc^2); CG, the Jacobian's stored entries;
    Newton, the sparse Hessian and its factor (nL + nC + nJJ, nL twice for elliptic cones), or
    the Jacobian's after an accepted warm start. Our whole pipeline at mujoco's states (three
    along its trajectory): solver_nnz equal for the islands solved. Iteration counts are
    compared on injected rows (test_island_solvers): on each engine's own rows, monolithic CG
    over features' 8 unrelated subproblems crosses tolerance 1e-8 at 10 iterations here and
    15 in mujoco (rounding of the Jacobian products decides)."""
    mjm = _model(path, jacobian=1, cone=cone)
    mjm.opt.solver = solver
    if not islands:
        mjm.opt.disableflags |= _DSBL_ISLAND
    mjd = mujoco.MjData(mjm)
    rng = np.random.default_rng(0)
    for n in (nstep, 1, 1):
        for _ in range(n):
            if mjm.nu:
                mjd.ctrl[:] = rng.uniform(-1, 1, mjm.nu)
            mujoco.mj_step(mjm, mjd)
        m, d = forward_pair(mjm, mjd)
        assert d.nJ == mjd.nJ and mjd.nefc > 0
        nisl = min(max(mjd.nisland, 1), 20)
        np.testing.assert_array_equal(d.solver_nnz[:nisl], mjd.solver_nnz[:nisl])
        assert d.solver_nnz[0] > 0


def test_mj_island_api():
    """engine.mj_island, like mujoco.mj_island, (re)builds the islands of the rows in d."""
    mjm = _model(ISLANDS)
    mjd = mujoco.MjData(mjm)
    m, d = forward_pair(mjm, mjd)
    saved = {f: np.array(getattr(d, f)) for f in FIELDS}
    d.tree_island[:] = 5
    d.efc_island[:] = 7
    engine.mj_island(m, d)
    mujoco.mj_island(mjm, mjd)
    for f in FIELDS:
        np.testing.assert_array_equal(getattr(d, f), saved[f], err_msg=f)
    assert mj_island is engine.mj_island
