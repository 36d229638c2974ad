"""engine.solver (PGS, CG, Newton, noslip, mj_constraintUpdate) against the official mujoco.

The constraint rows come from mujoco (our constraint stage is tested elsewhere): mujoco.mj_forward
on a contact-rich state with the dense Jacobian, then nefc/ne/nf/nl, efc_*, contact_* and the
inertia (qM rebuilt from mj_fullM in our tree layout, qLD/qLDiagInv copied: same CSR layout) and
qacc_smooth/qfrc_smooth/qacc_warmstart are injected into our MjData; our mj_island finds the
islands of those rows and `solve` runs alone.

Most tests run mujoco with islands disabled (mjDSBL_ISLAND; so does ours, which reads the flag):
one problem, one iteration count. test_iterations_islands (and test_island.py) run both with
islands: each island has its own iteration count, termination scale, statistics and (PGS)
visitation order, as in MuJoCo 4.

Tolerances: converged (tolerance 1e-15, 1000 iterations) qacc, qfrc_constraint and efc_force agree
to 1e-5 relative to max(1, |mujoco|) (issue 4's acceptance; measured: 1e-16..1e-8), states exactly
for the primal solvers. PGS is MuJoCo 4's algorithm (pseudo-random order, momentum, ray + QCQP
steps for elliptic cones), compared with mujoco's PGS run for run: elliptic PGS can stop at a
point of higher dual cost than the optimum (gym humanoid), so it is not compared with Newton.
Unconverged runs (test_iterations, default tolerance 1e-8, 1/2/5/20 iterations): qacc and
efc_force 1e-10 relative, equal solver_niter, stats as stated there.
"""
import numpy as np
import pytest

from oracle import TEST_MODELS, model_from_mujoco, mujoco, GYM, DM

from engine import solver as S
from engine.solver import linesearch as LS
from engine.data import MjData
from engine.island import mj_island

EFC = "type id D R aref frictionloss KBIP diagApprox pos margin vel".split()
CON = ("dist pos frame includemargin friction solref solreffriction solimp mu dim geom1 geom2 "
       "geom efc_address exclude").split()
NEWTON, CG, PGS = 2, 1, 0
CONVERGED = 1e-5


def inject(mjm, mjd, m=None):
    """Our (model, data) holding mujoco's constraint rows and smooth quantities."""
    m = model_from_mujoco(mjm) if m is None else m
    d = MjData(m)
    v = d._arena.views
    nv, nefc, ncon = mjm.nv, mjd.nefc, mjd.ncon
    assert nefc <= v["efc_J"].shape[0] and ncon <= v["contact_dim"].shape[0]
    full = np.zeros((nv, nv))
    mujoco.mj_fullM(mjm, mjd, full)
    qM = v["qM"]
    for i in range(nv):
        adr, j = m.dof_Madr[i], m.dof_parentid[i]
        qM[adr] = full[i, i]
        while j >= 0:
            adr += 1
            qM[adr] = full[i, j]
            j = m.dof_parentid[j]
    for f in ("qLD", "qLDiagInv", "qacc_smooth", "qfrc_smooth", "qacc_warmstart", "qpos", "qvel"):
        v[f][...] = getattr(mjd, f)
    for f in ("ncon", "ne", "nf", "nl", "nefc"):
        v[f][0] = getattr(mjd, f)
    for f in EFC:
        src = np.asarray(getattr(mjd, "efc_diagA" if f == "diagApprox" else "efc_" + f))
        v["efc_" + f][:nefc] = src.reshape(v["efc_" + f][:nefc].shape)
    # efc_J in mujoco's layout, flat (dense rows or compressed rows, as mj_isSparse)
    v["efc_J"][:mjd.nJ] = np.asarray(mjd.efc_J)
    v["nJ"][0] = mjd.nJ
    if mujoco.mj_isSparse(mjm):
        v["efc_J_colind"][:mjd.nJ] = np.asarray(mjd.efc_J_colind)
        for f in ("efc_J_rownnz", "efc_J_rowadr", "efc_J_rowsuper"):
            v[f][:nefc] = getattr(mjd, f)
    for f in CON:
        a = np.asarray(getattr(mjd.contact, f))
        v["contact_" + f][:ncon] = a.reshape(v["contact_" + f][:ncon].shape)
    mj_island(m, d)
    return m, d


def load(path, cone=0, setup=None):
    mjm = mujoco.MjModel.from_xml_path(str(path))
    mjm.opt.jacobian = int(mujoco.mjtJacobian.mjJAC_DENSE)
    mjm.opt.cone = cone
    mjm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_ISLAND)
    if setup:
        setup(mjm)
    return mjm


def stepped(mjm, nstep, seed=0, kick=0.0):
    """Step mujoco (Newton) with random controls so contacts exist; returns the data."""
    solver = mjm.opt.solver
    mjm.opt.solver = NEWTON
    mjd = mujoco.MjData(mjm)
    rng = np.random.default_rng(seed)
    for _ in range(nstep):
        if mjm.nu:
            mjd.ctrl[:] = rng.uniform(-1, 1, mjm.nu)
        mujoco.mj_step(mjm, mjd)
    mjd.qvel[:] += kick * rng.normal(size=mjm.nv)
    mjm.opt.solver = solver
    return mjd


def rel(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return np.abs(a - b).max(initial=0) / max(1.0, np.abs(b).max(initial=0))


def oracle_and_ours(mjm, mjd, solver, tol=1e-15, iters=1000, noslip=0):
    mjm.opt.solver, mjm.opt.tolerance, mjm.opt.iterations = solver, tol, iters
    mjm.opt.noslip_iterations = noslip
    mujoco.mj_forward(mjm, mjd)
    m, d = inject(mjm, mjd)
    S.solve(m._A, d._A)
    return m, d


# model, steps, kick: gym/dm_control models stepped until feet/bodies touch the floor
SCENES = [
    ("ant", GYM + "ant.xml", 400, 0.0),
    ("humanoid", GYM + "humanoid.xml", 400, 0.0),
    ("hopper", GYM + "hopper.xml", 400, 0.0),
    ("walker2d", GYM + "walker2d.xml", 150, 0.0),
    ("half_cheetah", GYM + "half_cheetah.xml", 400, 0.0),
    ("pusher", GYM + "pusher.xml", 200, 0.0),
    ("dm_quadruped", DM + "quadruped.xml", 300, 0.0),
    ("dm_humanoid", DM + "humanoid.xml", 300, 0.0),
    ("dm_finger", DM + "finger.xml", 200, 0.0),
    ("features", TEST_MODELS / "solver_features.xml", 150, 0.5),
    ("islands", TEST_MODELS / "islands.xml", 1, 0.0),
]


def scene(name, cone):
    entry = {s[0]: s for s in SCENES}[name]
    mjm = load(entry[1], cone)
    mjd = stepped(mjm, entry[2], kick=entry[3])
    mujoco.mj_forward(mjm, mjd)
    if mjd.nefc == 0:
        pytest.skip(f"{name}: no constraint rows at this state")
    return mjm, mjd


# ------------------------------------------------------------------------------------------------
def test_no_rows():
    mjm = load(DM + "cartpole.xml")
    mjm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
    mjd = mujoco.MjData(mjm)
    mjd.qvel[:] = 0.3
    mujoco.mj_forward(mjm, mjd)
    m, d = inject(mjm, mjd)
    d.qfrc_constraint[:] = 7.0
    S.solve(m._A, d._A)
    np.testing.assert_array_equal(d.qacc, mjd.qacc_smooth)
    np.testing.assert_array_equal(d.qfrc_constraint, 0.0)
    assert d.solver_niter[0] == 0


@pytest.mark.parametrize("cone", [0, 1])
@pytest.mark.parametrize("name", ["humanoid", "ant", "features", "dm_quadruped"])
def test_constraint_update(name, cone):
    """mj_constraintUpdate at random accelerations: cost, forces, states, qfrc_constraint and
    the elliptic cone Hessians (contact.H) equal mujoco's to rounding."""
    mjm, mjd = scene(name, cone)
    m, d = inject(mjm, mjd)
    J = np.asarray(mjd.efc_J).reshape(mjd.nefc, mjm.nv)
    rng = np.random.default_rng(3)
    for k in range(6):
        qacc = mjd.qacc + rng.normal(0, 2.0 * k, mjm.nv)
        jar = J @ qacc - mjd.efc_aref
        ours, theirs = np.zeros(1), np.zeros(1)
        S.mj_constraintUpdate(m, d, jar, ours, 1)
        mujoco.mj_constraintUpdate(mjm, mjd, jar, theirs, 1)
        assert abs(ours[0] - theirs[0]) <= 1e-12 * max(1, abs(theirs[0]))
        np.testing.assert_array_equal(d.efc_state, mjd.efc_state)
        assert rel(d.efc_force, mjd.efc_force) < 1e-13
        assert rel(d.qfrc_constraint, mjd.qfrc_constraint) < 1e-13
        for c in range(mjd.ncon):
            if mjd.contact.dim[c] > 1 and cone == 1 and mjd.efc_state[mjd.contact.efc_address[c]] == 4:
                n = mjd.contact.dim[c] ** 2
                assert rel(d.contact_H[c, :n], mjd.contact.H[c, :n]) < 1e-12


@pytest.mark.parametrize("name,cone", [("dm_quadruped", 1), ("features", 0), ("features", 1),
                                       ("humanoid", 1), ("islands", 0)])
def test_linesearch_shifted_cost(name, cone):
    """The primal line search's 1-D cost (LS._ls_eval) is MuJoCo 4's shifted cost: at each alpha
    it equals mujoco's mj_constraintUpdate cost at jar + alpha jv minus the one at jar, plus the
    Gauss change g1 a + g2 a^2 (1e-9 of the costs' size), for rows changing state in every
    way (jar random around 0, and pushed down so elliptic contacts sit in the bottom zone at
    both points); at alpha = 0 zero to rounding (friction loss rows add the difference of their
    costs, measured 8e-16); the slope is the cost's difference quotient."""
    mjm, mjd = scene(name, cone)
    m, d = inject(mjm, mjd)
    n = mjd.nefc
    rows = np.arange(n, dtype=np.int32)
    v = d._arena.views
    rng = np.random.default_rng(5)

    def mj_cost(jar):
        c = np.zeros(1)
        mujoco.mj_constraintUpdate(mjm, mjd, jar, c, 0)
        return c[0]

    for shift in (0.0, -3.0):
        for _ in range(5):
            jar = rng.normal(size=n) + shift * np.abs(rng.normal(size=n))
            jv = rng.normal(size=n)
            g1, g2 = rng.normal(), abs(rng.normal())
            args = (d.ne, d.nf, rows, n, np.asarray(d.efc_type), np.asarray(d.efc_id),
                    np.asarray(d.efc_D), np.asarray(d.efc_R), np.asarray(d.efc_frictionloss),
                    v["contact_mu"], v["contact_friction"], v["contact_dim"], jar, jv, g1, g2)
            c0 = mj_cost(jar)
            assert abs(LS._ls_eval(0.0, *args)[0]) <= 1e-14 * max(1.0, abs(c0))
            for alpha in (1e-3, 0.1, 0.5, 2.0):
                c, d1, _ = LS._ls_eval(alpha, *args)
                ref = mj_cost(jar + alpha * jv) - c0 + alpha * (g1 + alpha * g2)
                assert abs(c - ref) <= 1e-9 * max(1.0, abs(c0)), (alpha, c, ref)
                h = 1e-6 * max(alpha, 1e-3)
                fd = (LS._ls_eval(alpha + h, *args)[0] - LS._ls_eval(alpha - h, *args)[0]) / (2 * h)
                assert abs(d1 - fd) <= 1e-4 * max(1.0, abs(d1)), (alpha, d1, fd)


CONVERGED_CASES = [(n, c, s) for n in ("ant", "humanoid", "hopper", "walker2d", "half_cheetah",
                                       "pusher", "dm_quadruped", "dm_humanoid", "dm_finger",
                                       "features")
                   for c in (0, 1) for s in (NEWTON, CG, PGS)]


@pytest.mark.parametrize("name,cone,solver", CONVERGED_CASES)
def test_converged(name, cone, solver):
    """Both engines run to convergence (tolerance 1e-15, 1000 iterations): qacc,
    qfrc_constraint and efc_force equal mujoco's converged Newton (the problem's unique optimum)
    and mujoco's same solver when that one converged; states equal for the primal solvers.
    PGS equals mujoco's PGS (same sweep count), and Newton's optimum when mujoco's PGS got
    there."""
    mjm, mjd = scene(name, cone)
    oracle_and_ours(mjm, mjd, NEWTON)
    ref = (mjd.qacc.copy(), mjd.qfrc_constraint.copy(), mjd.efc_force.copy(), mjd.efc_state.copy())
    m, d = oracle_and_ours(mjm, mjd, solver)
    if solver == PGS:
        # the same algorithm as mujoco's, sweep for sweep (which may stop short of the optimum:
        # elliptic cones, or 1000 sweeps on `features`); the sweep counts can differ here: the
        # last improvements are rounding noise compared with tolerance 1e-15
        assert rel(d.qacc, mjd.qacc) < CONVERGED, (rel(d.qacc, mjd.qacc), d.solver_niter[0])
        assert rel(d.qfrc_constraint, mjd.qfrc_constraint) < CONVERGED
        assert rel(d.efc_force, mjd.efc_force) < CONVERGED
        if rel(mjd.qacc, ref[0]) >= CONVERGED:
            return
    elif mjd.solver_niter[0] < 1000:
        assert rel(d.qacc, mjd.qacc) < CONVERGED, (rel(d.qacc, mjd.qacc), d.solver_niter[0])
        assert rel(d.qfrc_constraint, mjd.qfrc_constraint) < CONVERGED
        assert rel(d.efc_force, mjd.efc_force) < CONVERGED
    assert rel(d.qacc, ref[0]) < CONVERGED, (rel(d.qacc, ref[0]), d.solver_niter[0])
    assert rel(d.qfrc_constraint, ref[1]) < CONVERGED
    assert rel(d.efc_force, ref[2]) < CONVERGED
    if solver != PGS:
        np.testing.assert_array_equal(d.efc_state, ref[3])


@pytest.mark.parametrize("cone", [0, 1])
@pytest.mark.parametrize("solver", [NEWTON, CG, PGS])
@pytest.mark.parametrize("name", ["humanoid", "dm_quadruped", "features"])
def test_default_settings(name, cone, solver):
    """Default tolerance/iterations: results close to mujoco's (both stop early), iteration
    counts of the same order. Measured values are in the report of the solver work."""
    mjm, mjd = scene(name, cone)
    m, d = oracle_and_ours(mjm, mjd, solver, tol=1e-8, iters=100)
    e = rel(d.qacc, mjd.qacc)
    ours, theirs = int(d.solver_niter[0]), int(mjd.solver_niter[0])
    assert 1 <= ours <= 100
    if ours < 100 and theirs < 100:
        assert e < 5e-2, (e, ours, theirs)
    assert ours <= max(3 * theirs, theirs + 10), (ours, theirs)
    # stats: improvement and gradient per iteration
    st = d.solver_stat[:ours]
    assert np.all(np.isfinite(st))
    if solver == CG:
        assert st[-1, 0] < 1e-8 or st[-1, 1] < 1e-8 or ours == 100
    elif solver == NEWTON:      # also stops on the Newton decrement (not in the stats)
        assert st[-1, 0] < 1e-8 or st[-1, 1] < 1e-8 or ours == theirs


@pytest.mark.parametrize("solver", [NEWTON, CG, PGS])
def test_warmstart(solver):
    """Warm start from qacc_warmstart (mujoco's: the better of it and qacc_smooth for the
    primal solvers; for PGS its efc_force, or zero forces when those have the lower dual cost)
    or from qacc_smooth when the flag is off: with one iteration both engines start from the
    same point, so the first step is the same (1e-10)."""
    mjm, mjd = scene("humanoid", 0)
    rng = np.random.default_rng(1)
    for flag in (0, int(mujoco.mjtDisableBit.mjDSBL_WARMSTART)):
        mjm.opt.disableflags = (mjm.opt.disableflags & ~int(mujoco.mjtDisableBit.mjDSBL_WARMSTART)) | flag
        for scale in (0.0, 0.1, 100.0):
            mjd.qacc_warmstart[:] = mjd.qacc + scale * rng.normal(size=mjm.nv)
            m, d = oracle_and_ours(mjm, mjd, solver, tol=1e-15, iters=1)
            assert rel(d.qacc, mjd.qacc) < 1e-10, (flag, scale, rel(d.qacc, mjd.qacc))


@pytest.mark.parametrize("cone", [0, 1])
@pytest.mark.parametrize("name", ["ant", "features", "dm_quadruped"])
def test_noslip(name, cone):
    """Noslip after a converged Newton solve, both run to their convergence."""
    mjm, mjd = scene(name, cone)
    mjm.opt.noslip_tolerance = 1e-15
    m, d = oracle_and_ours(mjm, mjd, NEWTON, noslip=200)
    assert rel(d.qacc, mjd.qacc) < 1e-4, rel(d.qacc, mjd.qacc)
    assert rel(d.efc_force, mjd.efc_force) < 1e-4


# ------------------------------------------------------------------------------------------------
# Unconverged runs: the same iterates as mujoco, iteration by iteration
ITER_SCENES = [("humanoid", 0), ("humanoid", 1), ("ant", 0), ("ant", 1), ("dm_quadruped", 0),
               ("dm_quadruped", 1), ("dm_humanoid", 1), ("features", 0), ("features", 1)]
ITER_TOL = 1e-10          # PGS
ITER_TOL_PRIMAL = 1e-9    # CG/Newton: each exact line search stops anywhere with |slope| below
                          # its tolerance, so rounding differences accumulate (features, 20 CG
                          # iterations: 1.3e-10)


def _mj_stats(mjd, n, island=0):
    s = mjd.solver
    a = island * 200
    return np.array([[s[k].improvement, s[k].gradient, s[k].lineslope, s[k].nactive,
                      s[k].nchange, s[k].neval, s[k].nupdate]
                     for k in range(a, a + n)]).reshape(n, 7)


def check_stats(mjd, d, solver, cone, rtol=1e-6, ftol=1e-8):
    """solver_niter equal for every island (mjNISLAND entries), solver_nnz for the islands
    solved (mujoco keeps stale entries beyond them), and each recorded island's statistics
    (d.solver[island*200 + k]): improvement and gradient to ``rtol`` relative plus ``ftol`` of
    the island's largest value of that column (plus 1e-10): both are dimensionless, compared with
    tolerances >= 1e-8; an island that converges far (a stiff one: solver_features' welded box
    under CG) reaches values 1e-6 of its first ones, whose digits the line search's stopping
    band and rounding decide (measured: 8e-7 apart at 3e-6 of 160; same neval, qacc 4e-11
    apart). neval/nupdate and nactive/nchange exactly (not for elliptic PGS, whose forces end
    on the cone surface where the dual state is a rounding tie)."""
    np.testing.assert_array_equal(d.solver_niter, mjd.solver_niter)
    nisl = min(max(mjd.nisland, 1), 20)
    np.testing.assert_array_equal(d.solver_nnz[:nisl], mjd.solver_nnz[:nisl])
    assert len(d.solver) == len(mjd.solver) == 4000
    for isl in range(nisl):
        n = min(int(mjd.solver_niter[isl]), 200)
        theirs = _mj_stats(mjd, n, isl)
        ours = d.solver_stat[isl * 200:isl * 200 + n]
        for j in (0, 1):
            top = np.abs(theirs[:, j]).max(initial=0.0)
            err = np.abs(ours[:, j] - theirs[:, j]) - rtol * np.abs(theirs[:, j]) - ftol * top
            assert np.all(err <= 1e-10), (isl, j, ours[:, j], theirs[:, j])
        np.testing.assert_array_equal(ours[:, 5:7], theirs[:, 5:7], err_msg=f"island {isl}")
        if not (solver == PGS and cone == 1):
            np.testing.assert_array_equal(ours[:, 3:5], theirs[:, 3:5], err_msg=f"island {isl}")


def _check_iterations(mjd, d, solver, cone, states=True, force_tol=None):
    """check_stats; qacc within ITER_TOL (PGS) or ITER_TOL_PRIMAL of mujoco's relative to
    max(1, |mujoco|), qfrc_constraint and efc_force too (or within ``force_tol``); the
    constraint states exactly for the primal solvers (with islands: efc_state is the warm
    start's, iefc_state the islands' final states, as mujoco's)."""
    check_stats(mjd, d, solver, cone)
    tol = ITER_TOL if solver == PGS else ITER_TOL_PRIMAL
    ftol = tol if force_tol is None else force_tol
    assert rel(d.qacc, mjd.qacc) < tol, rel(d.qacc, mjd.qacc)
    assert rel(d.qfrc_constraint, mjd.qfrc_constraint) < ftol
    assert rel(d.efc_force, mjd.efc_force) < ftol, rel(d.efc_force, mjd.efc_force)
    if solver != PGS and states:
        np.testing.assert_array_equal(d.efc_state, mjd.efc_state)
        if mjd.nisland:
            np.testing.assert_array_equal(d.iefc_state, mjd.iefc_state)


@pytest.mark.parametrize("iters", [1, 2, 5, 20])
@pytest.mark.parametrize("solver", [PGS, CG, NEWTON])
@pytest.mark.parametrize("name,cone", ITER_SCENES)
def test_iterations(name, cone, solver, iters):
    """From the same rows and warm start at mujoco's default tolerance (1e-8), both engines
    run `iters` iterations (or stop early at the same one): see _check_iterations. Covers PGS's
    row kinds (features: equality, friction loss, joint and tendon limits, frictionless,
    pyramidal and elliptic contacts of dim 3/4/6) with its pseudo-random order, momentum and
    restarts, and the primal solvers' line search, Hager-Zhang (CG), Newton decrement and the
    zero-iteration warm-start certificate."""
    mjm, mjd = scene(name, cone)
    m, d = oracle_and_ours(mjm, mjd, solver, tol=1e-8, iters=iters)
    _check_iterations(mjd, d, solver, cone)


ISLAND_CASES = ([(n, c, s) for n, c in [("humanoid", 0), ("humanoid", 1), ("ant", 1),
                                          ("dm_humanoid", 1), ("half_cheetah", 0),
                                          ("features", 0), ("features", 1),
                                          ("dm_quadruped", 0), ("dm_quadruped", 1)]
                 for s in (PGS, CG, NEWTON)])


@pytest.mark.parametrize("name,cone,solver", ISLAND_CASES)
def test_iterations_islands(name, cone, solver):
    """mujoco with islands enabled (its default), 1, 2, 5, 20 iterations (_check_iterations):
    every island solved alone, as mujoco does (features: 8 islands; dm_quadruped: one island
    without the unconstrained ball's dofs, so the scale is the island's trace): per-island
    solver_niter, solver_nnz and statistics, and the states (efc_state the warm start's,
    iefc_state the islands'). Forces of CG/Newton to 1e-7: see test_island.py (a small island
    solved alone ends further inside each line search's slope band: 3.5e-8 measured)."""
    mjm, mjd = scene(name, cone)
    mjm.opt.disableflags &= ~int(mujoco.mjtDisableBit.mjDSBL_ISLAND)
    for iters in (1, 2, 5, 20):
        m, d = oracle_and_ours(mjm, mjd, solver, tol=1e-8, iters=iters)
        assert d.nisland == mjd.nisland >= 1
        _check_iterations(mjd, d, solver, cone, force_tol=ITER_TOL if solver == PGS else 1e-7)


def test_iterations_discriminates():
    """ITER_TOL discriminates: one PGS sweep in row order (the pre-MuJoCo-4 visitation,
    re-implemented here on mujoco's AR = J M^-1 J' + R and b from the same warm start) is
    more than 1e-6 away from mujoco's first sweep, which ours matches to ITER_TOL."""
    mjm, mjd = scene("features", 0)
    m, d = oracle_and_ours(mjm, mjd, PGS, tol=1e-8, iters=1)
    assert rel(d.efc_force, mjd.efc_force) < ITER_TOL
    one_sweep = mjd.efc_force.copy()
    mjm.opt.iterations = 0                  # mujoco's warm-start forces
    mujoco.mj_forward(mjm, mjd)
    f = mjd.efc_force.copy()
    n, nv = mjd.nefc, mjm.nv
    J = np.asarray(mjd.efc_J).reshape(n, nv)
    full = np.zeros((nv, nv))
    mujoco.mj_fullM(mjm, mjd, full)
    AR = J @ np.linalg.solve(full, J.T) + np.diag(mjd.efc_R)
    b = np.asarray(mjd.efc_b)
    for i in range(n):
        f[i] -= (b[i] + AR[i] @ f) / AR[i, i]
        if mjd.ne <= i < mjd.ne + mjd.nf:
            f[i] = np.clip(f[i], -mjd.efc_frictionloss[i], mjd.efc_frictionloss[i])
        elif i >= mjd.ne + mjd.nf:
            f[i] = max(f[i], 0.0)
    assert rel(f, one_sweep) > 1e-6, rel(f, one_sweep)


@pytest.mark.parametrize("cone", [0, 1])
@pytest.mark.parametrize("name", ["ant", "features", "dm_quadruped", "humanoid"])
def test_noslip_iterations(name, cone):
    """Noslip after Newton (default tolerance), 1, 2, 5, 20 noslip sweeps at noslip tolerance
    1e-6: solver_niter (main + noslip) and the statistics (noslip's after the main solver's,
    with the dual nactive/nchange) as check_stats, qacc and efc_force 1e-10 relative
    (measured: <= 1e-11; elliptic friction steps are the QCQP's)."""
    mjm, mjd = scene(name, cone)
    mjm.opt.noslip_tolerance = 1e-6
    for ns in (1, 2, 5, 20):
        m, d = oracle_and_ours(mjm, mjd, NEWTON, tol=1e-8, iters=100, noslip=ns)
        assert int(d.solver_niter[0]) == int(mjd.solver_niter[0]), ns
        check_stats(mjd, d, PGS, cone)      # the noslip records are dual: PGS's rules
        assert rel(d.qacc, mjd.qacc) < ITER_TOL, (ns, rel(d.qacc, mjd.qacc))
        assert rel(d.efc_force, mjd.efc_force) < ITER_TOL
