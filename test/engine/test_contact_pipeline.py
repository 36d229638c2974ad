"""The full pipeline with contacts and constraints against the official mujoco, and behaviour
checks that need no oracle (issue 4 acceptance).

Tolerances, from the measured noise floors in the issue: contacts as sets keyed by geom pair,
dist/pos 1e-9 (primitive pairs) or 1e-6 (convex/mesh pairs), normals only; qfrc_constraint and
qacc to 1e-5 with both solvers converged (tolerance 1e-15, 1000 iterations); trajectories with
converged solvers 100 steps within 1e-3 on chaotic models, 5000 steps within 1e-4 on models that
hold a pose.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from oracle import mujoco, model_from_mujoco, shared_model, TEST_MODELS, GYM, DM

import engine

_PRIMITIVE = {0, 2, 3, 6}  # plane, sphere, capsule, box: analytic pairs in MuJoCo


def _path(spec):
    kind, rel = spec
    if kind == "shared":
        return str(shared_model(rel))
    if kind == "own":
        return str(TEST_MODELS / rel)
    return rel


def load_both(spec, converge=True):
    """The same file in both engines; converged solver settings unless told otherwise."""
    path = _path(spec)
    mjm = mujoco.MjModel.from_xml_path(path)
    m = engine.MjModel.from_xml_path(path)
    if converge:
        for mm in (mjm, m):
            mm.opt.tolerance = 1e-15
            mm.opt.iterations = 1000
            mm.opt.ls_iterations = 100
    return mjm, mujoco.MjData(mjm), m, engine.MjData(m)


def copy_state(mjd, d):
    for f in ("qpos", "qvel", "act", "ctrl", "qacc_warmstart", "mocap_pos", "mocap_quat"):
        getattr(d, f)[...] = getattr(mjd, f)
    d.time = mjd.time


def contact_sets(mjm, mjd, d):
    """{(geom1, geom2): [(dist, pos, normal), ...]} for both engines, sorted within a pair."""
    def collect(c, n):
        out = {}
        for i in range(n):
            key = (int(c.geom1[i]), int(c.geom2[i]))
            out.setdefault(key, []).append((float(c.dist[i]), np.array(c.pos[i]),
                                            np.array(c.frame[i][:3])))
        for v in out.values():
            v.sort(key=lambda t: (round(t[0], 6), tuple(np.round(t[1], 6))))
        return out
    return collect(mjd.contact, mjd.ncon), collect(d.contact, d.ncon)


def assert_contacts_match(mjm, mjd, d, what):
    want, got = contact_sets(mjm, mjd, d)
    assert set(got) == set(want), f"{what}: contact pairs differ: {set(got) ^ set(want)}"
    for key, cw in want.items():
        cg = got[key]
        assert len(cg) == len(cw), f"{what}: pair {key}: {len(cg)} contacts vs {len(cw)}"
        t1, t2 = int(mjm.geom_type[key[0]]), int(mjm.geom_type[key[1]])
        tol = 1e-9 if (t1 in _PRIMITIVE and t2 in _PRIMITIVE) else 1e-6
        for (dg, pg, ng), (dw, pw, nw) in zip(cg, cw):
            assert abs(dg - dw) < tol, f"{what}: pair {key} dist {dg} vs {dw}"
            assert np.abs(pg - pw).max() < tol, f"{what}: pair {key} pos {pg} vs {pw}"
            assert np.abs(ng - nw).max() < max(tol, 1e-9) * 10, f"{what}: pair {key} normal"


def rel(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return np.abs(a - b).max(initial=0) / max(1.0, np.abs(b).max(initial=0))


FORWARD = [
    ("file", GYM + "ant.xml"), ("file", GYM + "humanoid.xml"), ("file", GYM + "hopper.xml"),
    ("file", GYM + "walker2d.xml"), ("file", GYM + "half_cheetah.xml"),
    ("file", GYM + "pusher.xml"),
    ("file", DM + "cheetah.xml"), ("file", DM + "walker.xml"), ("file", DM + "hopper.xml"),
    ("file", DM + "humanoid.xml"), ("file", DM + "finger.xml"), ("file", DM + "ball_in_cup.xml"),
    ("shared", "menagerie/google_barkour_vb/scene.xml"),
    ("shared", "menagerie/unitree_h1/scene.xml"),
    ("shared", "menagerie/agility_cassie/scene.xml"),
    ("shared", "menagerie/robotiq_2f85/scene.xml"),
    ("shared", "mujoco/model/humanoid/humanoid.xml"),
    ("shared", "mujoco/model/adhesion/active_adhesion.xml"),
]
SOLVERS = ("mjSOL_NEWTON", "mjSOL_CG", "mjSOL_PGS")
CONES = ("mjCONE_PYRAMIDAL", "mjCONE_ELLIPTIC")


def settle(mjm, mjd, nstep, seed):
    """Run mujoco from a perturbed initial state so the model is in contact."""
    rng = np.random.default_rng(seed)
    if mjm.nkey:
        mujoco.mj_resetDataKeyframe(mjm, mjd, 0)
    mjd.qvel[:] = rng.normal(size=mjm.nv) * 0.1
    for _ in range(nstep):
        mjd.ctrl[:] = rng.uniform(-1, 1, mjm.nu) * 0.3 * (
            mjm.actuator_ctrlrange[:, 1] - mjm.actuator_ctrlrange[:, 0]).clip(0, 2)
        mujoco.mj_step(mjm, mjd)


@pytest.mark.parametrize("spec", FORWARD, ids=lambda s: s[1].split("/")[-1] if "/" in s[1] else s[1])
def test_forward_with_contacts(spec):
    mjm, mjd, m, d = load_both(spec)
    for cone in CONES:
        for mm in (mjm, m):
            mm.opt.cone = int(getattr(mujoco.mjtCone, cone))
        for seed in range(2):
            settle(mjm, mjd, 150, seed)
            copy_state(mjd, d)
            mujoco.mj_forward(mjm, mjd)
            engine.mj_forward(m, d)
            what = f"{spec[1]} {cone} seed {seed}"
            assert_contacts_match(mjm, mjd, d, what)
            assert d.nefc == mjd.nefc, f"{what}: nefc {d.nefc} vs {mjd.nefc}"
            assert (d.ne, d.nf, d.nl) == (mjd.ne, mjd.nf, mjd.nl), what
            for f in ("qfrc_constraint", "qacc"):
                e = rel(getattr(d, f), getattr(mjd, f))
                assert e < 1e-5, f"{what}: {f} rel err {e:.3g}"
            e = rel(d.sensordata, mjd.sensordata)
            assert e < 1e-5, f"{what}: sensordata rel err {e:.3g}"
            # contact and equality forces as body forces, the world's row included (the sum of
            # its children's: zero when the floor holds the robot up)
            mujoco.mj_rnePostConstraint(mjm, mjd)
            engine.mj_rnePostConstraint(m, d)
            for f in ("cacc", "cfrc_ext", "cfrc_int"):
                e = rel(getattr(d, f), getattr(mjd, f))
                assert e < 1e-5, f"{what}: {f} rel err {e:.3g}"


TENDON_FORCES = """<mujoco><worldbody>
  <site name="a0" pos="0 0 1"/><site name="a1" pos=".5 0 1"/><site name="a2" pos="1 0 1"/>
  <body name="b0" pos="0 0 .6"><freejoint/><geom type="box" size=".05 .05 .05"/>
    <site name="h0" pos=".05 0 .05"/></body>
  <body name="b1" pos=".5 0 .9"><freejoint/><geom type="sphere" size=".05"/>
    <site name="h1" pos="0 0 .05"/></body>
  <body name="b2" pos="1 0 .7"><freejoint/><geom type="capsule" size=".03" fromto="0 0 0 .1 0 0"/>
    <site name="h2" pos="0 0 .03"/></body></worldbody>
  <tendon>
    <spatial limited="true" range="0 .3" frictionloss=".4"><site site="h0"/><site site="a0"/></spatial>
    <spatial limited="true" range=".2 .25" margin=".05"><site site="h1"/><site site="a1"/></spatial>
    <spatial frictionloss=".2" damping=".5"><site site="h2"/><site site="a2"/><site site="h1"/></spatial>
  </tendon></mujoco>"""


@pytest.mark.parametrize("cone", CONES)
def test_post_constraint_tendon_constraint_forces(cone):
    """mj_rnePostConstraint puts a spatial tendon's limit and friction-loss forces on the bodies
    along its path (cfrc_ext), as mujoco 4: upper limit taut, lower limit pushing, both limits
    of a narrow range, friction loss; cfrc_int with the world's row."""
    mjm = mujoco.MjModel.from_xml_string(TENDON_FORCES)
    m = engine.MjModel.from_xml_string(TENDON_FORCES)
    for mm in (mjm, m):
        mm.opt.cone = int(getattr(mujoco.mjtCone, cone))
        mm.opt.tolerance, mm.opt.iterations = 1e-15, 1000
    mjd, d = mujoco.MjData(mjm), engine.MjData(m)
    kinds = set()
    for k in range(300):
        mujoco.mj_step(mjm, mjd)
        if k % 30:
            continue
        copy_state(mjd, d)
        mujoco.mj_forward(mjm, mjd)
        engine.mj_forward(m, d)
        mujoco.mj_rnePostConstraint(mjm, mjd)
        engine.mj_rnePostConstraint(m, d)
        kinds.update(int(t) for t in mjd.efc_type[:mjd.nefc])
        for f in ("cfrc_ext", "cfrc_int"):
            e = rel(getattr(d, f), getattr(mjd, f))
            assert e < 1e-6, f"step {k}: {f} rel err {e:.3g}"
    assert {int(mujoco.mjtConstraint.mjCNSTR_FRICTION_TENDON),
            int(mujoco.mjtConstraint.mjCNSTR_LIMIT_TENDON)} <= kinds, kinds


@pytest.mark.parametrize("solver", SOLVERS)
def test_solvers_agree_with_mujoco(solver):
    mjm, mjd, m, d = load_both(("file", GYM + "ant.xml"))
    for mm in (mjm, m):
        mm.opt.solver = int(getattr(mujoco.mjtSolver, solver))
    settle(mjm, mjd, 200, 3)
    copy_state(mjd, d)
    mujoco.mj_forward(mjm, mjd)
    engine.mj_forward(m, d)
    assert d.ncon == mjd.ncon and d.ncon > 0
    for f in ("qfrc_constraint", "qacc"):
        e = rel(getattr(d, f), getattr(mjd, f))
        assert e < 1e-5, f"{solver}: {f} rel err {e:.3g}"


CHAOTIC = [("file", GYM + "ant.xml"), ("file", GYM + "humanoid.xml"),
           ("file", GYM + "hopper.xml"), ("file", DM + "cheetah.xml")]


@pytest.mark.parametrize("spec", CHAOTIC, ids=lambda s: s[1].split("/")[-1])
def test_trajectory_100_steps(spec):
    mjm, mjd, m, d = load_both(spec)
    settle(mjm, mjd, 100, 5)
    copy_state(mjd, d)
    for _ in range(100):
        mujoco.mj_step(mjm, mjd)
        engine.mj_step(m, d)
    for f in ("qpos", "qvel"):
        e = rel(getattr(d, f), getattr(mjd, f))
        assert e < 1e-3, f"{spec[1]}: {f} rel err {e:.3g} after 100 steps"


HOLDING = [
    ("compiler", ("file", GYM + "ant.xml")),
    # mesh feet on the floor: plane-mesh contacts go through the hull polygons (mesh_poly*)
    ("compiler", ("shared", "menagerie/google_barkour_vb/scene.xml")),
    # the same robot on a copy of mujoco's compiled model: the contact pipeline alone
    ("mujoco", ("shared", "menagerie/google_barkour_vb/scene.xml")),
]


@pytest.mark.parametrize("source,spec", HOLDING,
                         ids=lambda x: x if isinstance(x, str) else x[1].split("/")[-2])
def test_pose_held_5000_steps_like_mujoco(source, spec):
    """A model resting on the floor (its keyframe, or settled from its initial state) follows
    mujoco for 5000 steps within 1e-4; `source` says who compiled our model (our compiler, or
    mujoco's model copied field by field)."""
    mjm, mjd, m, d = load_both(spec)
    if source == "mujoco":
        m = model_from_mujoco(mjm)
        d = engine.MjData(m)
    if mjm.nkey:
        mujoco.mj_resetDataKeyframe(mjm, mjd, 0)
    else:
        mujoco.mj_step(mjm, mjd, 2000)  # settle onto the floor
    copy_state(mjd, d)
    for _ in range(5000):
        mujoco.mj_step(mjm, mjd)
        engine.mj_step(m, d)
    e = rel(d.qpos, mjd.qpos)
    assert e < 1e-4, f"{spec[1]}: qpos rel err {e:.3g} after 5000 steps"


# ---- behaviour without the oracle -------------------------------------------------------------

def _impedance(r, solimp):
    """Seed 004's impedance curve d(r) for the default power-law solimp."""
    d0, dw, width, mid, power = solimp
    x = min(1.0, abs(r) / width)
    if x >= 1.0:
        return dw
    if x <= mid:
        y = x ** power / mid ** (power - 1)
    else:
        y = 1 - (1 - x) ** power / (1 - mid) ** (power - 1)
    return d0 + y * (dw - d0)


def _rest_depth(load, diag, solimp, k):
    """The penetration |r| at which one frictionless row bears ``load`` at rest: the root of
    |r| = load (1 - imp(r)) diag / (k imp(r)^2) on [0, 1], by bisection."""
    lo, hi = 0.0, 1.0
    for _ in range(200):
        r = 0.5 * (lo + hi)
        imp = _impedance(r, solimp)
        if r - load * (1 - imp) * diag / (k * imp * imp) > 0:
            hi = r
        else:
            lo = r
    return r


def test_sphere_rests_at_the_penetration_solref_solimp_predict():
    """At rest a frictionless contact balances gravity: m g = D * k * imp * |r|, with
    D = imp / ((1 - imp) diagApprox) and diagApprox = 1/m, so |r| = g (1-imp) / (k imp^2) where
    k = 1 / (dmax^2 timeconst^2 dampratio^2) (seed 004, solref/solimp)."""
    timeconst, dampratio = 0.02, 1.0
    solimp = (0.9, 0.95, 0.001, 0.5, 2.0)
    xml = f"""<mujoco><option timestep="0.002"/><worldbody>
      <geom type="plane" size="1 1 .1" condim="1" solref="{timeconst} {dampratio}"
            solimp="{' '.join(map(str, solimp))}"/>
      <body pos="0 0 .2"><freejoint/><geom size=".1" mass="2" condim="1"
            solref="{timeconst} {dampratio}" solimp="{' '.join(map(str, solimp))}"/></body>
    </worldbody></mujoco>"""
    m = engine.MjModel.from_xml_string(xml)
    d = engine.MjData(m)
    engine.mj_step(m, d, 3000)
    assert d.ncon == 1
    g = 9.81
    k = 1.0 / (solimp[1] ** 2 * timeconst ** 2 * dampratio ** 2)
    r = _rest_depth(g, 1.0, solimp, k)   # per unit mass: load g, diagApprox 1/m
    assert abs(d.qvel).max() < 1e-9
    assert -d.contact.dist[0] == pytest.approx(r, rel=1e-6)


def test_box_rests_on_four_corners_at_the_predicted_penetration():
    """A box on a plane rests on 4 frictionless corner contacts, each bearing m g / 4. At rest
    each row's soft-constraint force is f = k imp^2 |r| / ((1 - imp) diagApprox) (aref = -k imp r
    balanced by R f, R = (1 - imp)/imp diagApprox; seed 004 solref/solimp), with diagApprox the
    box's translational invweight (body_invweight0): |r| = (m g / 4)(1 - imp) diagApprox /
    (k imp^2), the same at the four corners."""
    timeconst, dampratio, mass = 0.02, 1.0, 3.0
    solimp = (0.85, 0.97, 0.002, 0.4, 3.0)
    xml = f"""<mujoco><option timestep="0.002"/><worldbody>
      <geom type="plane" size="1 1 .1" condim="1" solref="{timeconst} {dampratio}"
            solimp="{' '.join(map(str, solimp))}"/>
      <body pos="0 0 .2"><freejoint/><geom type="box" size=".2 .1 .05" mass="{mass}" condim="1"
            solref="{timeconst} {dampratio}" solimp="{' '.join(map(str, solimp))}"/></body>
    </worldbody></mujoco>"""
    m = engine.MjModel.from_xml_string(xml)
    d = engine.MjData(m)
    engine.mj_step(m, d, 3000)
    assert d.ncon == 4
    g, diag = 9.81, m.body_invweight0[1, 0]
    k = 1.0 / (solimp[1] ** 2 * timeconst ** 2 * dampratio ** 2)
    r = _rest_depth(0.25 * mass * g, diag, solimp, k)
    assert abs(d.qvel).max() < 1e-9
    np.testing.assert_allclose(-d.contact.dist[:4], r, rtol=1e-6)


@pytest.mark.parametrize("slope_deg,slides", [(20.0, False), (40.0, True)])
def test_friction_cone_holds_box_below_friction_angle(slope_deg, slides):
    mu = 0.6  # friction angle atan(0.6) = 31 degrees
    xml = f"""<mujoco><option timestep="0.001" cone="elliptic"/><worldbody>
      <geom type="plane" size="2 2 .1" euler="0 {slope_deg} 0" friction="{mu} 0 0"/>
      <body pos="0 0 .2" euler="0 {slope_deg} 0"><freejoint/>
        <geom type="box" size=".1 .1 .1" mass="1" friction="{mu} 0 0"/></body>
    </worldbody></mujoco>"""
    m = engine.MjModel.from_xml_string(xml)
    d = engine.MjData(m)
    engine.mj_step(m, d, 500)  # land and settle
    x0, v0 = d.qpos[:3].copy(), np.linalg.norm(d.qvel[:3])
    engine.mj_step(m, d, 1000)
    moved = np.linalg.norm(d.qpos[:3] - x0)
    if slides:
        # sliding friction: acceleration g (sin - mu cos) along the slope
        th = math.radians(slope_deg)
        accel = np.linalg.norm(d.qvel[:3]) - v0  # over 1 s
        assert accel == pytest.approx(9.81 * (math.sin(th) - mu * math.cos(th)), rel=0.02)
    else:
        assert moved < 1e-3


def test_quadruped_holds_standing_keyframe_10s():
    path = _path(("shared", "menagerie/google_barkour_vb/scene.xml"))
    m = engine.MjModel.from_xml_path(path)
    d = engine.MjData(m)
    engine.mj_resetDataKeyframe(m, d, 0)
    z0 = d.qpos[2]
    steps_per_s = int(round(1.0 / m.opt.timestep))
    engine.mj_step(m, d, 2 * steps_per_s)  # the keyframe is 3 cm above the resting height
    z2 = d.qpos[2]
    engine.mj_step(m, d, 8 * steps_per_s)
    # standing: no sagging between 2 s and 10 s, body height well above the floor, upright, still
    assert abs(d.qpos[2] - z2) < 0.005, (z2, d.qpos[2])
    assert d.qpos[2] > 0.8 * z0
    up = d.xmat[1].reshape(3, 3)[:, 2]
    assert up[2] > 0.99
    assert np.abs(d.qvel).max() < 0.05


def test_default_capacity_holds_a_contact_rich_state():
    """Without <size memory>, MuJoCo's compiler budgets 13-16 MiB, room for thousands of
    contacts; ours (engine.data.DEFAULT_MEMORY) too: a tangle of planks (mujoco's own test
    model) at 748 contacts is collided whole, where the old guess (4 per geom) stopped at 476."""
    from test_collision import _random_states
    path = shared_model("mujoco/test/engine/testdata/collision_driver/planks.xml")
    mjm = mujoco.MjModel.from_xml_path(str(path))
    m = engine.MjModel.from_xml_path(str(path))
    q = list(_random_states(mjm, np.random.default_rng(3), 3))[2]
    mjd, d = mujoco.MjData(mjm), engine.MjData(m)
    mjd.qpos[:] = d.qpos[:] = q
    mujoco.mj_forward(mjm, mjd)
    engine.mj_forward(m, d)
    assert mjd.ncon > 4 * mjm.ngeom
    # box-box differs on a few near-degenerate plank crossings (see the note): counts to 5%
    assert abs(d.ncon - mjd.ncon) < 0.05 * mjd.ncon, (d.ncon, mjd.ncon)
    assert d.nefc > 0 and d.fw_status[0] == 0


def test_arena_full_is_a_clear_error():
    xml = """<mujoco><size memory="4K"/><worldbody><geom type="plane" size="1 1 .1"/>
      <replicate count="20" offset=".05 0 0"><body pos="0 0 .1"><freejoint/>
        <geom type="box" size=".02 .02 .02"/></body></replicate></worldbody></mujoco>"""
    m = engine.MjModel.from_xml_string(xml)
    d = engine.MjData(m)
    with pytest.raises(engine.errors.ArenaFullError, match="memory"):
        engine.mj_step(m, d, 200)


URDF_ROBOTS = ["z1_description/urdf/z1.urdf", "xarm_description/urdf/xarm7.urdf",
               "so_arm_description/urdf/so100.urdf", "solo_description/robots/solo12.urdf",
               "talos_data/robots/talos_left_arm.urdf"]


@pytest.mark.parametrize("robot", URDF_ROBOTS, ids=lambda r: r.split("/")[-1])
def test_urdf_robots_self_contacts_match(robot):
    """example-robot-data URDFs with their collision meshes, at random joint configurations
    (self-collisions between links: mesh-mesh pairs through the convex routine). multiccd is off
    in both: its multi-contact faces on STL hulls need MuJoCo's merged hull polygons (gap)."""
    from compile_corpus import ERD
    from test_urdf import absolutize
    import warnings
    path = ERD / robot
    if not path.exists():
        pytest.skip(f"{path} missing")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mjm = mujoco.MjModel.from_xml_string(absolutize(path.read_text(), str(path)))
        m = engine.MjModel.from_xml_path(str(path))
    multiccd = int(mujoco.mjtDisableBit.mjDSBL_MULTICCD)
    for mm in (mjm, m):
        mm.opt.tolerance, mm.opt.iterations, mm.opt.ls_iterations = 1e-15, 1000, 100
        mm.opt.ccd_tolerance = 1e-12
        mm.opt.disableflags |= multiccd
    mjd, d = mujoco.MjData(mjm), engine.MjData(m)
    rng = np.random.default_rng(11)
    seen = 0
    for trial in range(6):
        mujoco.mj_resetData(mjm, mjd)
        for j in range(mjm.njnt):
            if mjm.jnt_type[j] in (2, 3):  # slide, hinge
                lo, hi = mjm.jnt_range[j] if mjm.jnt_limited[j] else (-np.pi, np.pi)
                mjd.qpos[mjm.jnt_qposadr[j]] = rng.uniform(lo, hi)
        mjd.qvel[:] = rng.normal(size=mjm.nv) * 0.3
        copy_state(mjd, d)
        mujoco.mj_forward(mjm, mjd)
        engine.mj_forward(m, d)
        what = f"{robot} trial {trial}"
        assert_contacts_match(mjm, mjd, d, what)
        seen += mjd.ncon
        assert d.nefc == mjd.nefc, what
        for f in ("qfrc_constraint", "qacc"):
            e = rel(getattr(d, f), getattr(mjd, f))
            assert e < 1e-5, f"{what}: {f} rel err {e:.3g}"
    assert seen > 0, f"{robot}: no self-contact in any sampled configuration"


@pytest.mark.parametrize("solver", SOLVERS)
def test_no_allocation_in_a_contact_step(solver):
    """mj_step with contacts and every solver allocates nothing (the arena holds it all)."""
    import tracemalloc
    m = engine.MjModel.from_xml_path(GYM + "ant.xml")
    m.opt.solver = int(getattr(mujoco.mjtSolver, solver))
    m.opt.noslip_iterations = 2
    d = engine.MjData(m)
    engine.mj_step(m, d, 300)  # fall onto the floor
    assert d.ncon > 0
    tracemalloc.start()
    engine.mj_step(m, d, 100)
    for _ in range(20):
        engine.mj_step(m, d)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 4096, peak
