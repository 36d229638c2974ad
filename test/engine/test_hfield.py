"""Height-field collisions (engine/collision/hfield.py) against the official mujoco.

Contacts are compared as sets keyed by geom pair (engine.mj_kinematics + mj_collision on a copy of
mujoco's compiled model). Measured (see the report of the hfield branch):
  * with ccd_tolerance 1e-12 / ccd_iterations 500 in both engines every contact of sphere, capsule,
    box and mesh matches: dist 1e-12, pos 1e-6 (witness points of flat contacts), normal 1e-9;
    ellipsoid and cylinder (curved: the normal is only determined to ~sqrt(tol * radius), as in
    test_convex.py): dist 1e-5, pos 5e-4, normal 1e-3 (measured 6.8e-6, 1.6e-4, 1.1e-5 on an
    ellipsoid penetrating a prism with margin 0.02: both run EPA on the inflated shapes);
  * box and mesh with margin + gap = 0 are discrete pairs, as two polytopes are (nccd.py): GJK
    to exact convergence, and EPA stops on a repeated support point, where the prism's support
    carries no index -- so a repeat of the box corner / mesh vertex alone stops it, often at its
    first faces: for many prisms the depth is not the minimum penetration (shallower than the
    overlap along its own normal; any margin > 0, even 1e-9, gives the minimum). Ours does the
    same: every contact matches at mujoco's geom poses (test_discrete_polytope_early_stop; the
    stop is discontinuous in the pose, see collide_at_mujoco_poses);
  * at mujoco's default ccd_tolerance 1e-6 the curved and distance (margin > 0) answers differ
    by the tolerance: counts are asserted equal, values at 1e-3 (measured rates in the report).
"""
from __future__ import annotations

import numpy as np
import pytest

from oracle import TEST_MODELS, collide_both, model_from_mujoco, mujoco, shared_model

import engine

HFIELD, SPHERE, CAPSULE, ELLIPSOID, CYLINDER, BOX, MESH = 1, 2, 3, 4, 5, 6, 7
GEOMS = {SPHERE: 'type="sphere" size="0.1"', CAPSULE: 'type="capsule" size="0.06 0.12"',
         ELLIPSOID: 'type="ellipsoid" size="0.08 0.12 0.05"',
         CYLINDER: 'type="cylinder" size="0.1 0.07"', BOX: 'type="box" size="0.1 0.07 0.05"',
         MESH: 'type="mesh" mesh="m"'}
NAMES = {SPHERE: "sphere", CAPSULE: "capsule", ELLIPSOID: "ellipsoid", CYLINDER: "cylinder",
         BOX: "box", MESH: "mesh"}
MESH_XML = ('<mesh name="m" vertex="0.1 0 0  -0.05 0.08 0.02  -0.05 -0.08 0.01  0 0 0.12  '
            '0.02 0.01 -0.09  0.07 0.07 0.05"/>')
TIGHT = 'ccd_tolerance="1e-12" ccd_iterations="500"'
# (dist, pos, normal) tolerances at the tight ccd settings
TOL = {SPHERE: (1e-9, 1e-6, 1e-8), CAPSULE: (1e-9, 1e-6, 1e-8), BOX: (1e-9, 1e-6, 1e-8),
       MESH: (1e-9, 1e-6, 1e-8), ELLIPSOID: (1e-5, 5e-4, 1e-3), CYLINDER: (1e-5, 5e-4, 1e-3)}

_rng = np.random.default_rng(11)
NR, NC = 9, 11
ELEV = " ".join(f"{v:.4f}" for v in _rng.uniform(0, 1, size=NR * NC))


def _pair_model(t, margin, euler, opt=TIGHT):
    return mujoco.MjModel.from_xml_string(f"""<mujoco><option {opt}/><asset>{MESH_XML}
      <hfield name="h" nrow="{NR}" ncol="{NC}" size="0.5 0.4 0.15 0.1" elevation="{ELEV}"/>
      </asset><worldbody>
      <geom type="hfield" hfield="h" pos="0.05 -0.02 0.01" euler="{euler}" margin="{margin}"/>
      <body><freejoint/><geom {GEOMS[t]}/></body></worldbody></mujoco>""")


def collide_at_mujoco_poses(mm, q):
    """collide_both, but our collision runs at mujoco's geom poses (geom_xpos, geom_xmat copied
    after our kinematics): the collider alone. Needed where the answer is discontinuous in the
    pose -- the discrete pairs (box / mesh, margin 0), where EPA's stop on a repeated support
    point switches with last-bit differences of the poses (our quaternion-to-matrix rounds a
    few matrix entries 1 ulp apart from mujoco's: measured on this file's box poses, 302 of 316
    contacts equal through our kinematics, 316 of 316 at mujoco's poses)."""
    from engine.collision import mj_collision
    md = mujoco.MjData(mm)
    md.qpos[:] = q
    mujoco.mj_forward(mm, md)
    m = model_from_mujoco(mm)
    d = engine.MjData(m)
    d.qpos[:] = q
    engine.mj_kinematics(m, d)
    d.geom_xpos[...] = md.geom_xpos
    d.geom_xmat[...] = md.geom_xmat
    mj_collision(m, d)
    return md, d


def _poses(rng, n):
    for trial in range(n):
        q = np.zeros(7)
        q[0] = rng.uniform(-0.55, 0.55)
        q[1] = rng.uniform(-0.45, 0.45)
        q[2] = rng.uniform(0.0, 0.22)
        qq = rng.normal(size=4)
        q[3:] = qq / np.linalg.norm(qq)
        yield trial, q


def contacts(c, n):
    """{(geom1, geom2): [(dist, pos, normal), ...]} in contact order."""
    out = {}
    for i in range(n):
        out.setdefault((int(c.geom1[i]), int(c.geom2[i])), []).append(
            (float(c.dist[i]), np.array(c.pos[i]), np.array(c.frame[i][:3])))
    return out


def compare(mm, md, d, tol, what, stats=None):
    """Same pairs, same counts, same order; values within tol = (dist, pos, normal)."""
    want, got = contacts(md.contact, md.ncon), contacts(d.contact, d.ncon)
    assert set(want) == set(got), f"{what}: pairs {set(want) ^ set(got)}"
    n = 0
    for key, cw in want.items():
        cg = got[key]
        assert len(cg) == len(cw), f"{what}: pair {key}: {len(cw)} contacts in mujoco, {len(cg)}"
        for k, ((dw, pw, nw), (dg, pg, ng)) in enumerate(zip(cw, cg)):
            e = (abs(dw - dg), np.abs(pw - pg).max(), np.abs(nw - ng).max())
            if stats is not None:
                stats.append(e)
            msg = f"{what}: pair {key} contact {k}: errors {e}"
            assert e[0] <= tol[0] and e[1] <= tol[1] and e[2] <= tol[2], msg
            n += 1
    return n


@pytest.mark.parametrize("t", list(GEOMS), ids=lambda t: NAMES[t])
def test_hfield_pairs_random_poses(t):
    """Every convex type on a bumpy, rotated and translated hfield: touching, penetrating, inside
    the margin, beside the field's edges; hfield margins 0 and 0.02 (box / mesh at margin 0: at
    mujoco's poses, see collide_at_mujoco_poses)."""
    rng = np.random.default_rng(100 + t)
    ncmp = 0
    stats = []
    for margin in (0.0, 0.02):
        discrete = t in (BOX, MESH) and margin == 0
        for euler in ("0 0 0", "10 -7 25"):
            mm = _pair_model(t, margin, euler)
            collide = collide_at_mujoco_poses if discrete else collide_both
            for trial, q in _poses(rng, 25):
                md, d = collide(mm, q)
                ncmp += compare(mm, md, d, TOL[t], f"{NAMES[t]} margin {margin} {euler} #{trial}",
                                stats)
    assert ncmp > 100
    e = np.array(stats).max(0)
    print(f"{NAMES[t]}: {ncmp} contacts, max errors dist {e[0]:.1e} pos {e[1]:.1e} "
          f"normal {e[2]:.1e}")


def _sat_depth(prism, verts, n):
    """Overlap of the prism and a polytope along unit n (the depth a normal n certifies)."""
    return (prism @ n).max() - (verts @ n).min()


@pytest.mark.parametrize("opt", [TIGHT, ""], ids=["tight", "default"])
@pytest.mark.parametrize("t", [BOX, MESH], ids=lambda t: NAMES[t])
def test_discrete_polytope_early_stop(t, opt):
    """Box/mesh with margin 0 (a discrete pair: EPA stops on a repeated support point, the
    prism's support carrying no index): every contact equals mujoco's (dist 1e-9, pos 1e-6,
    normal 1e-8), at tight and at default ccd options (discrete pairs ignore the tolerance), and
    many of them are not the minimum penetration: no prism overlaps the geom by that depth along
    that normal (measured: box 172 of 316 contacts, mesh 116 of 212, both ccd options; EPA run
    to the tolerance, as before this rule, gives the minimum and matched 43 and 18 of them).
    Prints how many contacts stopped short."""
    rng = np.random.default_rng(200 + t)
    nall = nshort = 0
    for euler in ("0 0 0", "10 -7 25"):
        mm = _pair_model(t, 0.0, euler, opt)
        hs = mm.hfield_size[0]
        data = mm.hfield_data.reshape(NR, NC)
        dx, dy = 2 * hs[0] / (NC - 1), 2 * hs[1] / (NR - 1)
        prisms = []
        for r in range(NR - 1):
            for cc in range(NC - 1):
                V = [np.array([dx * x - hs[0], dy * y - hs[1], data[y, x] * hs[2]])
                     for y, x in ((r + 1, cc), (r, cc), (r + 1, cc + 1), (r, cc + 1))]
                for a in range(2):
                    tri = V[a:a + 3]
                    prisms.append(np.array([[v[0], v[1], -hs[3]] for v in tri] + tri))
        if t == BOX:
            s = mm.geom_size[1]
            lv = np.array([[a * s[0], b * s[1], c * s[2]] for a in (-1, 1) for b in (-1, 1)
                           for c in (-1, 1)])
        else:
            lv = mm.mesh_vert.astype(float)
        for trial, q in _poses(rng, 25):
            md, d = collide_at_mujoco_poses(mm, q)
            nall += compare(mm, md, d, TOL[t], f"{NAMES[t]} margin 0 {euler} #{trial}")
            R1 = md.geom_xmat[0].reshape(3, 3)
            verts = (md.geom_xmat[1].reshape(3, 3) @ lv.T).T + md.geom_xpos[1]
            verts = (verts - md.geom_xpos[0]) @ R1   # hfield frame
            for i in range(md.ncon):
                n = R1.T @ md.contact.frame[i][:3]
                nshort += all(abs(_sat_depth(P, verts, n) + md.contact.dist[i]) > 1e-9
                              for P in prisms)
    print(f"{NAMES[t]} margin 0: {nall} contacts equal mujoco's, {nshort} of them short of the "
          f"minimum penetration")
    assert nall > 50 and nshort > nall // 3


@pytest.mark.parametrize("t", list(GEOMS), ids=lambda t: NAMES[t])
def test_hfield_default_ccd_options(t):
    """mujoco's default ccd_tolerance (1e-6): same contact sets; values within 1e-3 (margin 0.02
    for box and mesh); prints the fraction within 1e-6."""
    rng = np.random.default_rng(300 + t)
    stats = []
    margin = 0.02 if t in (BOX, MESH) else 0.01
    mm = _pair_model(t, margin, "10 -7 25", opt="")
    for trial, q in _poses(rng, 30):
        md, d = collide_both(mm, q)
        compare(mm, md, d, (1e-3, 5e-2, 1.0), f"{NAMES[t]} default #{trial}", stats)
    e = np.array(stats)
    ok = (e.max(1) < 1e-6).sum()
    print(f"{NAMES[t]} default ccd options: {ok}/{len(e)} contacts within 1e-6, max errors "
          f"{e.max(0)}")


def test_contact_cap_and_order():
    """A large box pressed into a fine hfield: mujoco keeps 50 contacts (mjMAXCONPAIR), the first
    prisms in row-major prism order; ours the same."""
    elev = " ".join("0.5" for _ in range(40 * 40))
    mm = mujoco.MjModel.from_xml_string(f"""<mujoco><option {TIGHT}/><asset>
      <hfield name="h" nrow="40" ncol="40" size="1 1 .1 .1" elevation="{elev}"/></asset>
      <worldbody><geom type="hfield" hfield="h" margin="0.01"/>
      <body pos="0.01 0.02 0.28"><freejoint/><geom type="box" size="0.4 0.3 0.3"/></body>
      </worldbody></mujoco>""")
    md, d = collide_both(mm, mm.qpos0)
    assert md.ncon == 50 and d.ncon == 50
    # face on face: the witness point on the flat overlap is not unique (each engine's EPA picks
    # one); dist and normal are, and the contacts come in the same prism order
    stats = []
    compare(mm, md, d, (1e-9, 2 * 1.0 / 39, 1e-8), "cap", stats)
    e = np.array(stats)
    print(f"cap: {(e[:, 1] < 1e-6).sum()}/50 positions within 1e-6, max {e[:, 1].max():.1e}")


def test_compiler_hfield_fields():
    """Our compiler's hfield arrays, geom aabb and rbound equal mujoco's."""
    path = str(TEST_MODELS / "hfield_scene.xml")
    mm = mujoco.MjModel.from_xml_path(path)
    m = engine.MjModel.from_xml_path(path)
    for f in ("hfield_size", "hfield_nrow", "hfield_ncol", "hfield_adr", "hfield_data",
              "geom_aabb", "geom_rbound"):
        np.testing.assert_allclose(getattr(m, f), getattr(mm, f), rtol=0, atol=1e-7, err_msg=f)


REAL = ["mujoco/test/engine/testdata/collision_convex/frameless_contact_hfield.xml",
        "menagerie/google_barkour_vb/scene_hfield_mjx.xml",
        "mujoco/test/engine/testdata/ray/hfield.xml"]


@pytest.mark.parametrize("margin", [0.0, 0.01])
@pytest.mark.parametrize("rel", REAL)
def test_real_models(rel, margin):
    """Models with hfields at their initial state, after a short mujoco rollout and at perturbed
    states: same contact sets, hfield contacts within the tight tolerances."""
    path = shared_model(rel)
    mm = mujoco.MjModel.from_xml_path(str(path))
    assert (mm.geom_type == HFIELD).any()
    mm.opt.ccd_tolerance = 1e-12
    mm.opt.ccd_iterations = 500
    mm.geom_margin[mm.geom_type == HFIELD] += margin
    rng = np.random.default_rng(5)
    md = mujoco.MjData(mm)
    if mm.nkey:
        mujoco.mj_resetDataKeyframe(mm, md, 0)
    states = []
    for it in range(12):
        mujoco.mj_step(mm, md, 20)
        q = md.qpos.copy()
        if it % 3 == 2:
            q[:3] += rng.normal(size=3) * 0.02 if mm.jnt_type[0] == 0 else 0.0
        states.append(q)
    nmj = ncmp = npos = 0
    for it, q in enumerate(states):
        md2, d = collide_both(mm, q)
        nmj += md2.ncon
        want, got = contacts(md2.contact, md2.ncon), contacts(d.contact, d.ncon)
        assert set(want) == set(got), f"state {it}: pairs {set(want) ^ set(got)}"
        for key, cw in want.items():
            t1, t2 = sorted((int(mm.geom_type[key[0]]), int(mm.geom_type[key[1]])))
            assert len(got[key]) == len(cw), f"state {it}: pair {key} count"
            if t1 != HFIELD:
                continue
            tol = TOL[t2]
            hid = mm.geom_dataid[key[0]]
            cell = 2 * mm.hfield_size[hid, 0] / (mm.hfield_ncol[hid] - 1)
            for (dw, pw, nw), (dg, pg, ng) in zip(cw, got[key]):
                ep = np.abs(pw - pg).max()
                assert abs(dw - dg) <= tol[0] and np.abs(nw - ng).max() <= tol[2], \
                    f"state {it}: pair {key}"
                # a flat face resting on flat prisms (frameless): the witness point on the
                # touching patch is not unique
                assert ep <= (cell if t2 in (BOX, MESH) else tol[1]), f"state {it}: pair {key}"
                npos += ep <= tol[1]
                ncmp += 1
    print(f"{rel} margin {margin}: {nmj} mujoco contacts, {ncmp} hfield contacts compared by "
          f"value, {npos} positions within {1e-6}")
    if "ray/" in rel:
        assert nmj == 0   # a lone mocap hfield: nothing to collide with
    elif "frameless" in rel and margin == 0:
        assert nmj == 0   # the box rests exactly on the flat field: touching is no contact
    else:
        assert nmj > 0


# -------------------------------------------------------------------------------------------------
# the full pipeline: mj_forward with converged solvers, and a drop that comes to rest
# -------------------------------------------------------------------------------------------------
SCENE = str(TEST_MODELS / "hfield_scene.xml")


def _scene_pair(keep, ground_margin):
    """hfield_scene.xml in both engines (ours: a copy of mujoco's compiled model, so that only the
    pipeline is compared), only the geoms named in keep collide, converged solvers and ccd."""
    mjm = mujoco.MjModel.from_xml_path(SCENE)
    mjm.opt.tolerance = 1e-15
    mjm.opt.iterations = 1000
    mjm.opt.ls_iterations = 100
    mjm.opt.ccd_tolerance = 1e-12
    mjm.opt.ccd_iterations = 500
    mjm.geom_margin[0] = ground_margin
    for g in range(1, mjm.ngeom):
        if mjm.geom(g).name not in keep:
            mjm.geom_contype[g] = 0
            mjm.geom_conaffinity[g] = 0
    m = model_from_mujoco(mjm)
    return mjm, mujoco.MjData(mjm), m, engine.MjData(m)


@pytest.mark.parametrize("keep,margin", [(("ball", "pill"), 0.0), (("brick", "rock"), 0.005)],
                         ids=["sphere_capsule", "box_mesh_margin"])
def test_forward_qacc(keep, margin):
    """mj_forward on settled and falling states: contacts, qfrc_constraint and qacc agree (1e-5);
    prints the largest differences."""
    mjm, mjd, m, d = _scene_pair(keep, margin)
    nchecked = 0
    worst = worstf = 0.0
    for it in range(6):
        mujoco.mj_step(mjm, mjd, 60)
        for f in ("qpos", "qvel", "qacc_warmstart"):
            getattr(d, f)[...] = getattr(mjd, f)
        mujoco.mj_forward(mjm, mjd)
        engine.mj_forward(m, d)
        compare(mjm, mjd, d, (1e-6, 1e-6, 1e-5), f"state {it}")  # convex pairs: 1e-6
        # measured: 6e-11 (with our compiler's model instead of mujoco's, the mesh body's qacc
        # differs by up to 5e-5: a compiler matter, not collision)
        np.testing.assert_allclose(d.qfrc_constraint, mjd.qfrc_constraint, atol=1e-5, rtol=0)
        np.testing.assert_allclose(d.qacc, mjd.qacc, atol=1e-5, rtol=0)
        nchecked += mjd.ncon > 0
        worst = max(worst, np.abs(d.qacc - mjd.qacc).max())
        worstf = max(worstf, np.abs(d.qfrc_constraint - mjd.qfrc_constraint).max())
    print(f"{keep}: {nchecked} states with contacts, max |qacc diff| {worst:.1e}, "
          f"max |qfrc_constraint diff| {worstf:.1e}")
    assert nchecked >= 4


def test_box_comes_to_rest():
    """Our engine alone: the bodies of hfield_scene.xml that cannot roll (box, cylinder on its
    flat face, mesh) dropped on the bumpy field settle on it (no sinking through, speeds near
    zero after 3 s). The sphere, capsule and ellipsoid roll down the slopes (in mujoco too: the
    ellipsoid leaves the field)."""
    m = engine.MjModel.from_xml_path(SCENE)
    d = engine.MjData(m)
    engine.mj_step(m, d, 1500)
    assert d.ncon > 0
    hs = m.hfield_size[0]
    for name in ("brick", "can", "rock"):
        b = m.body(name).id
        a = m.jnt_dofadr[m.body_jntadr[b]]
        speed = np.abs(d.qvel[a:a + 6]).max()
        assert speed < 2e-2, (name, speed)
        assert -hs[3] < d.xpos[b, 2] < 0.2, (name, d.xpos[b])
    assert d.contact.dist.min() > -5e-3
