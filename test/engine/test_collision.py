"""Collision detection against the official mujoco: contacts compared as sets keyed by geom pair.

Tolerances (issue 4, measured noise floors): dist/pos/normal to 1e-9 for the analytic pairs,
1e-6 for pairs through the general convex routine; parameters (dim, friction, solref,
solreffriction, solimp, includemargin, exclude) exactly. Our kinematics (engine.mj_kinematics)
runs on a copy of mujoco's compiled model, then our collision stage.
"""
import os

import numpy as np
import pytest

from oracle import TEST_MODELS, collide_both, model_from_mujoco, mujoco, shared_model

import engine
from engine.collision import collision, mj_collision
from engine.data import MjData

PLANE, HFIELD, SPHERE, CAPSULE, ELLIPSOID, CYLINDER, BOX, MESH = range(8)
ANALYTIC = {(PLANE, SPHERE), (PLANE, CAPSULE), (PLANE, ELLIPSOID), (PLANE, CYLINDER), (PLANE, BOX),
            (SPHERE, SPHERE), (SPHERE, CAPSULE), (SPHERE, CYLINDER), (SPHERE, BOX),
            (CAPSULE, CAPSULE), (CAPSULE, BOX), (BOX, BOX)}
# analytic in MuJoCo but not matched to 1e-9 yet (see the report): compared at 1e-6
LOOSE = {(PLANE, MESH)}


def _site(pkg):
    import importlib.util
    spec = importlib.util.find_spec(pkg)
    return None if spec is None else os.path.dirname(spec.origin)


def _rows_mj(mm, md):
    out = {}
    for i in range(md.ncon):
        c = md.contact[i]
        out.setdefault((int(c.geom1), int(c.geom2)), []).append(dict(
            dist=c.dist, pos=c.pos.copy(), n=c.frame[:3].copy(), frame=c.frame.copy(), dim=c.dim,
            friction=c.friction.copy(), solref=c.solref.copy(), solreffriction=c.solreffriction.copy(),
            solimp=c.solimp.copy(), includemargin=c.includemargin, exclude=c.exclude, i=i))
    return out


def _rows_ours(d):
    out = {}
    for i in range(d.ncon):
        out.setdefault((int(d.contact_geom1[i]), int(d.contact_geom2[i])), []).append(dict(
            dist=d.contact_dist[i], pos=d.contact_pos[i].copy(), n=d.contact_frame[i, :3].copy(),
            frame=d.contact_frame[i].copy(), dim=d.contact_dim[i],
            friction=d.contact_friction[i].copy(), solref=d.contact_solref[i].copy(),
            solreffriction=d.contact_solreffriction[i].copy(), solimp=d.contact_solimp[i].copy(),
            includemargin=d.contact_includemargin[i], exclude=d.contact_exclude[i], i=i))
    return out


def compare_contacts(mm, md, d, what, strict_only=False, stats=None, only=None):
    """Assert equal contact sets; returns the number of contacts compared (``only``: a set of
    sorted type pairs to compare, the others skipped)."""
    a, b = _rows_mj(mm, md), _rows_ours(d)
    ncmp = 0
    for key in sorted(set(a) | set(b)):
        t = tuple(sorted((int(mm.geom_type[key[0]]), int(mm.geom_type[key[1]]))))
        tol = 1e-9 if t in ANALYTIC else 1e-6
        if strict_only and t not in ANALYTIC:
            continue
        if only is not None and t not in only:
            continue
        ca, cb = a.get(key, []), b.get(key, [])
        assert len(ca) == len(cb), f"{what}: geoms {key} types {t}: {len(ca)} contacts in mujoco, " \
            f"{len(cb)} ours: {[c['pos'] for c in ca]} vs {[c['pos'] for c in cb]}"
        for x in ca:
            y = min(cb, key=lambda y: np.linalg.norm(y["pos"] - x["pos"]))
            msg = f"{what}: geoms {key} types {t}"
            np.testing.assert_allclose(y["dist"], x["dist"], atol=tol, rtol=0, err_msg=msg)
            np.testing.assert_allclose(y["pos"], x["pos"], atol=tol, rtol=0, err_msg=msg)
            np.testing.assert_allclose(y["n"], x["n"], atol=tol, rtol=0, err_msg=msg)
            for f in ("dim", "friction", "solref", "solreffriction", "solimp", "includemargin",
                      "exclude"):
                np.testing.assert_array_equal(y[f], x[f], err_msg=f"{msg}: {f}")
            if stats is not None:  # tangent convention (not asserted: a convention)
                stats.append(np.abs(y["frame"] - x["frame"]).max())
            ncmp += 1
    return ncmp


# -------------------------------------------------------------------------------------------------
# every analytic pair at random poses: touching, penetrating, inside margin, separated
# -------------------------------------------------------------------------------------------------
_GEOM = {
    SPHERE: 'type="sphere" size="0.1"',
    CAPSULE: 'type="capsule" size="0.06 0.12"',
    ELLIPSOID: 'type="ellipsoid" size="0.08 0.12 0.05"',
    CYLINDER: 'type="cylinder" size="0.1 0.07"',
    BOX: 'type="box" size="0.1 0.07 0.05"',
}


def _pair_model(t1, t2, euler="0 0 0"):
    if t1 == PLANE:
        g1 = f'<geom name="g1" type="plane" size="3 3 .1" euler="{euler}"/>'
    else:
        g1 = f'<body name="A"><freejoint/><geom name="g1" {_GEOM[t1]}/></body>'
    return mujoco.MjModel.from_xml_string(f"""<mujoco><worldbody>{g1}
      <body name="B"><freejoint/><geom name="g2" {_GEOM[t2]} margin="0.03" gap="0.02"/></body>
      </worldbody></mujoco>""")


def _rand_quat(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


@pytest.mark.parametrize("t1,t2", sorted(ANALYTIC))
def test_analytic_pairs_random_poses(t1, t2):
    rng = np.random.default_rng(100 * t1 + t2)
    mm = _pair_model(t1, t2, euler="10 -20 30" if t1 == PLANE else "0 0 0")
    m = model_from_mujoco(mm)
    d = MjData(m)
    md = mujoco.MjData(mm)
    r = float(mm.geom_rbound.max())
    counts = [0, 0, 0]  # penetrating, within margin, separated-but-reported
    ntot = 0
    for it in range(300):
        q = np.zeros(mm.nq)
        if t1 == PLANE:
            q[0:3] = rng.uniform(-0.5, 0.5, 3)
            q[3:7] = _rand_quat(rng)
            # height along the plane normal near the touching distance
            md.qpos[:] = q
            mujoco.mj_kinematics(mm, md)
            nrm = md.geom_xmat[0].reshape(3, 3)[:, 2]
            q[0:3] += nrm * (rng.uniform(-0.3, 1.3) * r - q[0:3] @ nrm)
        else:
            q[3:7] = _rand_quat(rng)
            q[7:10] = rng.normal(size=3) * r * rng.uniform(0.2, 1.0)
            q[10:14] = _rand_quat(rng)
            if it % 10 == 0:  # (anti)parallel axes: the degenerate branches
                q[10:14] = q[3:7]
                if it % 20:  # antiparallel: half a turn about the local x axis
                    mujoco.mju_mulQuat(q[10:14], q[3:7].copy(), np.array([0.0, 1.0, 0.0, 0.0]))
                q[7:10] = q[0:3] + rng.normal(size=3) * 0.1
        md.qpos[:] = q
        mujoco.mj_forward(mm, md)
        d.qpos[:] = q
        engine.mj_kinematics(m, d)
        if (t1, t2) == (CAPSULE, BOX) and it % 10 == 0:
            # capsule axis exactly (anti)parallel to a box axis: mujoco's capsule-box branches
            # on the signs of the ~1e-17 off-axis components, and our geom_xmat differs from
            # mujoco's in the last bit at most poses (mju_quat2Mat rounds differently from the
            # textbook formula in this build), which flips 1 <-> 2 contacts at ~12% of these
            # poses (measured); the kernel gets mujoco's poses here (test_capsule_box_* cover
            # exactly aligned poses through our own kinematics)
            np.testing.assert_allclose(d.geom_xmat, md.geom_xmat, atol=1e-15, rtol=0)
            d.geom_xmat[:] = md.geom_xmat
            d.geom_xpos[:] = md.geom_xpos
        mj_collision(m, d)
        ntot += compare_contacts(mm, md, d, f"pair {t1}-{t2} pose {it}")
        for i in range(md.ncon):
            c = md.contact[i]
            counts[0 if c.dist < 0 else (1 if c.dist < c.includemargin else 2)] += 1
    assert ntot > 30, ntot


@pytest.mark.parametrize("t1,t2", [(SPHERE, SPHERE), (SPHERE, CAPSULE), (CAPSULE, CAPSULE),
                                   (SPHERE, CYLINDER)])
@pytest.mark.parametrize("parallel", [False, True])
def test_coincident_centers_normal(t1, t2, parallel):
    """Cores that meet in a point (concentric spheres, a sphere centred on a capsule's segment
    or a cylinder's axis, capsule segments that cross): the normal is the cross product of the
    two geoms' z axes, +x when they are parallel. Random poses never hit this; dm_control's
    manipulator does (its capsules cross in the arm's plane)."""
    mm = _pair_model(t1, t2)
    m = model_from_mujoco(mm)
    d = MjData(m)
    md = mujoco.MjData(mm)
    rng = np.random.default_rng(7 + t1 + 10 * t2 + parallel)
    for _ in range(20):
        q = np.zeros(mm.nq)
        q[0:3] = rng.normal(size=3) * 0.1
        q[3:7] = _rand_quat(rng)
        q[7:10] = q[0:3]
        q[10:14] = q[3:7] if parallel else _rand_quat(rng)
        md.qpos[:] = q
        mujoco.mj_forward(mm, md)
        d.qpos[:] = q
        engine.mj_kinematics(m, d)
        mj_collision(m, d)
        assert md.ncon >= 1
        compare_contacts(mm, md, d, f"coincident {t1}-{t2}")


# -------------------------------------------------------------------------------------------------
# capsule-box (engine/collision/box.py capsule_box): configurations random poses never hit
# -------------------------------------------------------------------------------------------------
# exact unit quaternions turning the capsule's local z onto world x, y, z (exact rotation matrices)
_QAXIS = {0: [0.5, 0.5, 0.5, 0.5], 1: [0.5, -0.5, -0.5, -0.5], 2: [1.0, 0.0, 0.0, 0.0]}


def _capsule_box_aligned(r, hl, b):
    """Capsule centers (box frame = world) and quaternions: the capsule axis along each box axis,
    over each face (end cap against the face when the axis is the face normal), shifted across
    the face to the middle, over the face, exactly at the edge and past it (edges, corners), at
    surface gaps from penetrating to beyond margin + gap (0.05); then axes through the box."""
    import itertools
    for f in range(3):
        o = [k for k in range(3) if k != f]
        for sg in (-1.0, 1.0):
            for ax in range(3):
                for s1, s2 in itertools.product((0.0, 0.5, 1.0, 1.3), (0.0, -1.0, 1.2)):
                    for gap in (-0.3 * r, 0.0, 0.01, 0.049, 0.06):
                        p = np.zeros(3)
                        p[o[0]], p[o[1]] = s1 * b[o[0]], s2 * b[o[1]]
                        p[f] = sg * (b[f] + (hl if ax == f else 0.0) + r + gap)
                        yield p, _QAXIS[ax]
    for ax in range(3):  # deep: the segment through the box (centre exactly at the box centre too)
        for p in ([0, 0, 0], [0.01, 0, 0], [0, 0.02, 0], [0, 0, -0.01], [0.03, 0.02, 0.01]):
            yield np.array(p, float), _QAXIS[ax]


@pytest.mark.parametrize("box_first", [False, True])
def test_capsule_box_aligned(box_first):
    """Axis-aligned capsules on box faces (2 contacts), across edges, end caps on faces, edges
    and corners, deep penetration, inside margin and beyond it; the box declared first checks
    the geom order (mujoco's geom1 = the capsule) and the normal's direction."""
    cap = '<body name="A"><freejoint/><geom type="capsule" size="0.06 0.12"/></body>'
    box = ('<body name="B"><freejoint/><geom type="box" size="0.1 0.07 0.05" margin="0.03" '
           'gap="0.02"/></body>')
    mm = mujoco.MjModel.from_xml_string(
        f"<mujoco><worldbody>{box + cap if box_first else cap + box}</worldbody></mujoco>")
    m = model_from_mujoco(mm)
    d = MjData(m)
    md = mujoco.MjData(mm)
    qc, qb = (7, 0) if box_first else (0, 7)
    hist = {0: 0, 1: 0, 2: 0}
    kinds = [0, 0]  # penetrating, inside margin
    for it, (p, quat) in enumerate(_capsule_box_aligned(0.06, 0.12, (0.1, 0.07, 0.05))):
        q = np.zeros(14)
        q[qc:qc + 3] = p
        q[qc + 3:qc + 7] = quat
        q[qb + 3] = 1.0
        md.qpos[:] = q
        mujoco.mj_forward(mm, md)
        d.qpos[:] = q
        engine.mj_kinematics(m, d)
        mj_collision(m, d)
        compare_contacts(mm, md, d, f"aligned capsule-box {it}: capsule at {p} quat {quat}")
        hist[md.ncon] += 1
        for c in md.contact[:md.ncon]:
            assert mm.geom_type[c.geom1] == CAPSULE
            kinds[0 if c.dist < 0 else 1] += 1
    assert min(hist.values()) > 100 and min(kinds) > 100, (hist, kinds)


def test_capsule_box_kernel_random():
    """The kernel alone against mujoco at 10000 random poses over five size ratios (long thin
    capsules, flat and small boxes); a tenth with the capsule axis (anti)parallel to a box axis
    up to rounding: contact count, dist, pos and normal to 1e-9."""
    from engine.collision.box import capsule_box
    dist, pos, frame = np.zeros(8), np.zeros((8, 3)), np.zeros((8, 9))
    hist = {0: 0, 1: 0, 2: 0}
    for si, (r, hl, b) in enumerate([(0.06, 0.12, "0.1 0.07 0.05"), (0.02, 0.3, "0.1 0.07 0.05"),
                                     (0.05, 0.05, "0.3 0.2 0.02"), (0.1, 0.2, "0.03 0.03 0.03"),
                                     (0.01, 0.5, "0.5 0.5 0.1")]):
        mm = mujoco.MjModel.from_xml_string(f"""<mujoco><worldbody>
          <body><freejoint/><geom type="capsule" size="{r} {hl}"/></body>
          <body><freejoint/><geom type="box" size="{b}" margin="0.03" gap="0.02"/></body>
          </worldbody></mujoco>""")
        md = mujoco.MjData(mm)
        rng = np.random.default_rng(10 + si)
        rb = float(mm.geom_rbound.max())
        thr = 0.05  # margin + gap
        for it in range(2000):
            q = np.zeros(14)
            q[3:7] = _rand_quat(rng)
            q[7:10] = rng.normal(size=3) * rb * rng.uniform(0.2, 1.0)
            q[10:14] = _rand_quat(rng)
            if it % 10 == 0:
                q[10:14] = q[3:7]
                if it % 20:
                    mujoco.mju_mulQuat(q[10:14], q[3:7].copy(), np.array([0.0, 1.0, 0.0, 0.0]))
                q[7:10] = q[0:3] + rng.normal(size=3) * 0.1
            md.qpos[:] = q
            mujoco.mj_forward(mm, md)
            n = capsule_box(md.geom_xpos[0], md.geom_xmat[0], mm.geom_size[0], md.geom_xpos[1],
                            md.geom_xmat[1], mm.geom_size[1], thr, dist, pos, frame)
            ours = [k for k in range(n) if dist[k] <= thr]
            assert len(ours) == md.ncon, (si, it, n, dist[:n], md.ncon)
            for c in md.contact[:md.ncon]:
                k = min(ours, key=lambda k: np.abs(pos[k] - c.pos).max())
                assert abs(dist[k] - c.dist) < 1e-9, (si, it)
                assert np.abs(pos[k] - c.pos).max() < 1e-9, (si, it)
                assert np.abs(frame[k, :3] - c.frame[:3]).max() < 1e-9, (si, it)
            hist[md.ncon] += 1
    assert min(hist.values()) > 1000, hist


# -------------------------------------------------------------------------------------------------
# filtering, explicit pairs, parameter mixing, flags
# -------------------------------------------------------------------------------------------------
def _filter_model():
    return mujoco.MjModel.from_xml_path(str(TEST_MODELS / "collision_filter.xml"))


@pytest.mark.parametrize("flags", [0, int(mujoco.mjtDisableBit.mjDSBL_FILTERPARENT)])
def test_filters_params_and_order(flags):
    mm = _filter_model()
    mm.opt.disableflags |= flags
    rng = np.random.default_rng(7)
    for it in range(40):
        q = mm.qpos0.copy() + rng.normal(size=mm.nq) * 0.03
        md, d = collide_both(mm, q)
        assert md.ncon == d.ncon > 0
        compare_contacts(mm, md, d, f"filter model flags {flags} state {it}", strict_only=True)
        # same order as mujoco (body pairs sorted, explicit pairs first)
        for i in range(md.ncon):
            assert (md.contact[i].geom1, md.contact[i].geom2) == (d.contact_geom1[i], d.contact_geom2[i])
        assert (d.contact_flex[:d.ncon] == -1).all() and (d.contact_efc_address[:d.ncon] == -1).all()


def test_override_and_disable():
    mm = _filter_model()
    mm.opt.enableflags |= int(mujoco.mjtEnableBit.mjENBL_OVERRIDE)
    mm.opt.o_margin = 0.2
    mm.opt.o_solref = [0.05, 1.3]
    mm.opt.o_solimp = [0.8, 0.85, 0.01, 0.4, 3]
    mm.opt.o_friction = [0.4, 0.4, 0.01, 0.002, 0.002]
    md, d = collide_both(mm, mm.qpos0)
    # analytic pairs only (the convex routine's pairs are compared in test_convex.py)
    assert compare_contacts(mm, md, d, "override", strict_only=True) > 10
    assert any(c.exclude for c in md.contact)
    for bit in (mujoco.mjtDisableBit.mjDSBL_CONTACT, mujoco.mjtDisableBit.mjDSBL_CONSTRAINT):
        mm = _filter_model()
        mm.opt.disableflags |= int(bit)
        md, d = collide_both(mm, mm.qpos0)
        assert md.ncon == 0 and d.ncon == 0


_STATIC_SCENE = """<mujoco><worldbody>
  <geom name="floor" type="plane" size="1 1 .1"/>
  <geom name="post" type="box" size=".1 .1 .3" pos=".8 0 .3"/>
  <body name="hand" mocap="true" pos="0 0 .05" euler="0 40 0">
    <geom name="palm" type="capsule" size=".1 .1"/>
    <body name="finger" pos=".1 0 0"><geom name="tip" type="box" size=".06 .06 .06"/></body>
    <body name="wrist" pos="0 0 .1"><joint type="hinge" axis="0 1 0"/>
      <geom name="link" type="box" size=".1 .05 .2"/></body>
  </body>
  <body name="other" mocap="true" pos=".75 0 .1"><geom name="ghost" size=".15"/></body>
  <body name="ball" pos=".15 0 .12"><freejoint/><geom name="ball" size=".1"/></body>
</worldbody>
<contact><pair geom1="floor" geom2="ghost"/></contact></mujoco>"""


def test_static_pairs_are_not_collided():
    """Pairs of geoms whose bodies cannot move under the dynamics (the world, mocap bodies and
    bodies welded to them) are not collided, as in mujoco 4.0.0 (the world plane and the mocap
    palm, finger and ghost interpenetrate); a jointed child of a mocap body, a free body and an
    explicit <pair> still collide."""
    mm = mujoco.MjModel.from_xml_string(_STATIC_SCENE)
    md, d = collide_both(mm, mm.qpos0)
    name = lambda g: mujoco.mj_id2name(mm, mujoco.mjtObj.mjOBJ_GEOM, int(g))
    theirs = sorted((name(c.geom1), name(c.geom2)) for c in md.contact)
    ours = sorted((name(d.contact_geom1[i]), name(d.contact_geom2[i])) for i in range(d.ncon))
    assert ours == theirs
    pairs = {frozenset(p) for p in theirs}
    assert frozenset(("floor", "ghost")) in pairs and frozenset(("floor", "link")) in pairs
    assert frozenset(("floor", "palm")) not in pairs and frozenset(("post", "ghost")) not in pairs
    assert compare_contacts(mm, md, d, "static scene") == md.ncon
    # the explicit pair of two static bodies is reported but excluded (no dofs: exclude = 3)
    # and makes no constraint row; in the full pipeline too
    assert sorted(int(c.exclude) for c in md.contact) == [0, 0, 0, 0, 0, 3]
    m = model_from_mujoco(mm)
    d = MjData(m)
    engine.mj_forward(m, d)
    assert d.nefc == md.nefc and d.ncon == md.ncon
    np.testing.assert_array_equal(np.sort(d.contact.efc_address), np.sort(md.contact.efc_address))


def test_contact_capacity_warning():
    mm = _filter_model()
    m = model_from_mujoco(mm)
    m.__dict__["nconmax"] = 2   # sizes are read-only in the API; forced here for the test
    d = MjData(m)
    d.qpos[:] = mm.qpos0
    engine.mj_kinematics(m, d)
    collision(m._A, d._A)
    assert d.ncon == 2
    assert d.fw_status[0] == 6 and d.fw_status[1] > 2
    assert d.warning_number[1] == 1


def test_hfield_collides():
    """<hfield> pairs go to engine/collision/hfield.py (tested in test_hfield.py)."""
    mm = mujoco.MjModel.from_xml_string("""<mujoco><asset><hfield name="h" nrow="3" ncol="3"
      size="1 1 .1 .1"/></asset><worldbody><geom type="hfield" hfield="h"/>
      <body pos="0 0 .05"><freejoint/><geom type="sphere" size=".1"/></body></worldbody></mujoco>""")
    md, d = collide_both(mm, mm.qpos0)
    assert d.ncon == md.ncon > 0
    compare_contacts(mm, md, d, "hfield")


# -------------------------------------------------------------------------------------------------
# real models at random states
# -------------------------------------------------------------------------------------------------
def _real_models():
    out = []
    gym = _site("gymnasium")
    if gym:
        for n in ("ant", "humanoid", "hopper", "walker2d", "half_cheetah", "pusher"):
            out.append(os.path.join(gym, "envs", "mujoco", "assets", n + ".xml"))
    dmc = _site("dm_control")
    if dmc:
        for n in ("cheetah", "humanoid", "quadruped", "walker", "hopper", "finger", "ball_in_cup",
                  "manipulator", "stacker", "fish", "swimmer"):
            out.append(os.path.join(dmc, "suite", n + ".xml"))
    return out


def census_states(mm, m, n, seed):
    """(state index, mujoco's contacts, ours) at n random states (_random_states, seed) of
    mujoco's model mm and ours m: mj_forward in mujoco, our kinematics and collision stage;
    contacts as _rows_mj / _rows_ours."""
    md, d = mujoco.MjData(mm), MjData(m)
    for it, q in enumerate(_random_states(mm, np.random.default_rng(seed), n)):
        md.qpos[:] = q
        mujoco.mj_forward(mm, md)
        d.qpos[:] = q
        engine.mj_kinematics(m, d)
        mj_collision(m, d)
        yield it, _rows_mj(mm, md), _rows_ours(d)


def _random_states(mm, rng, n):
    md = mujoco.MjData(mm)
    for it in range(n):
        q = mm.qpos0.copy()
        if mm.nkey and it % 2:
            q = mm.key_qpos[it % mm.nkey].copy()
        md.qpos[:] = q
        for j in range(mm.njnt):
            a = mm.jnt_qposadr[j]
            t = mm.jnt_type[j]
            if t == 0:
                q[a:a + 3] += rng.normal(size=3) * 0.1
                q[a + 3:a + 7] = q[a + 3:a + 7] + rng.normal(size=4) * 0.1
                q[a + 3:a + 7] /= np.linalg.norm(q[a + 3:a + 7])
            elif t == 1:
                q[a:a + 4] += rng.normal(size=4) * 0.2
                q[a:a + 4] /= np.linalg.norm(q[a:a + 4])
            else:
                lo, hi = mm.jnt_range[j] if mm.jnt_limited[j] else (-1.0, 1.0)
                q[a] = rng.uniform(lo, hi)
        yield q


@pytest.mark.parametrize("path", _real_models(), ids=lambda p: "/".join(p.split(os.sep)[-2:]))
def test_real_models(path):
    if not os.path.exists(path):
        pytest.skip(f"{path} absent")
    try:
        mm = mujoco.MjModel.from_xml_path(path)
    except Exception as e:  # noqa: BLE001
        pytest.skip(f"mujoco cannot load {path}: {e}")
    if (mm.geom_type == HFIELD).any():
        pytest.skip("hfield geoms")
    rng = np.random.default_rng(3)
    ncmp = nmj = 0
    for it, q in enumerate(_random_states(mm, rng, 12)):
        md, d = collide_both(mm, q)
        # analytic pairs strictly; pairs through the convex routine (another module) and the
        # analytic pairs not matched yet (LOOSE: plane-mesh) are not asserted here
        ncmp += compare_contacts(mm, md, d, f"{path} state {it}", strict_only=True)
        nmj += md.ncon
    # models without contacts (fish, swimmer) still check that neither engine makes any
    assert ncmp > 0 or nmj == 0, f"{path}: mujoco has contacts but none was compared"


def test_real_model_capsule_box():
    """dm_control stacker: the arm's capsules against the free boxes (capsule-box pairs the
    random states of test_real_models never bring into contact). Each state puts a box near a
    random arm capsule (in the arm's plane, box turned about y: the capsule axis has an exactly
    zero component along the box's y axis) and compares every contact of the model."""
    dmc = _site("dm_control")
    if not dmc:
        pytest.skip("dm_control absent")
    mm = mujoco.MjModel.from_xml_path(os.path.join(dmc, "suite", "stacker.xml"))
    m = model_from_mujoco(mm)
    d = MjData(m)
    md = mujoco.MjData(mm)
    caps = np.flatnonzero(mm.geom_type == CAPSULE)
    boxes = [g for g in np.flatnonzero(mm.geom_type == BOX) if mm.geom_contype[g]]
    rng = np.random.default_rng(4)
    hist = {1: 0, 2: 0}
    for it in range(300):
        q = mm.qpos0.copy()
        q[0:8] = rng.uniform(-1.5, 1.5, 8)  # arm hinges
        md.qpos[:] = q
        mujoco.mj_kinematics(mm, md)
        g = caps[rng.integers(len(caps))]
        b = boxes[rng.integers(len(boxes))]
        adr = mm.jnt_qposadr[mm.body_jntadr[mm.geom_bodyid[b]]]  # slide x, slide z, hinge y
        base = mm.body_pos[mm.geom_bodyid[b]]
        tgt = md.geom_xpos[g] + rng.normal(size=3) * 0.03
        q[adr], q[adr + 1] = tgt[0] - base[0], tgt[2] - base[2]
        q[adr + 2] = rng.uniform(-np.pi, np.pi) if it % 3 else rng.integers(-4, 5) * np.pi / 2
        md.qpos[:] = q
        mujoco.mj_forward(mm, md)
        d.qpos[:] = q
        engine.mj_kinematics(m, d)
        mj_collision(m, d)
        # capsule-box pairs only: at random hinge angles the fingers' capsules overlap with
        # coincident axes (capsule-capsule normal choice, see the manipulator xfail)
        compare_contacts(mm, md, d, f"stacker state {it}", only={(CAPSULE, BOX)})
        per = {}
        for c in md.contact[:md.ncon]:
            if {int(mm.geom_type[c.geom1]), int(mm.geom_type[c.geom2])} == {CAPSULE, BOX}:
                per[(c.geom1, c.geom2)] = per.get((c.geom1, c.geom2), 0) + 1
        for v in per.values():
            hist[v] += 1
    assert hist[1] > 20 and hist[2] > 10, hist  # measured: 72 and 22


# -------------------------------------------------------------------------------------------------
# plane-mesh through the hull polygons (primitive.plane_mesh_poly), kernel level against mujoco
# (fed mujoco's own mesh_poly* fields; test_mesh_poly.py compares our compiler's with them).
# -------------------------------------------------------------------------------------------------
_PM_MESHES = [("menagerie/google_barkour_vb/assets/foot.stl", 1.0),
              ("menagerie/google_barkour_vb/assets/lower_leg.stl", 1.0),
              ("menagerie/trossen_wx250s/assets/wx250s_9_gripper_bar.stl", 1e-3),
              ("menagerie/trossen_wx250s/assets/wx250s_7_gripper.stl", 1e-3),
              ("menagerie/robotiq_2f85/assets/base.stl", 1.0),
              ("menagerie/robotiq_2f85/assets/pad.stl", 1.0)]


@pytest.mark.parametrize("rel,scale", _PM_MESHES, ids=[p.split("/")[-1] for p, _ in _PM_MESHES])
def test_plane_mesh_poly_random_poses(rel, scale):
    from engine.collision.primitive import plane_mesh_poly
    path = shared_model(rel)
    margin = 0.01
    mm = mujoco.MjModel.from_xml_string(f"""<mujoco><asset><mesh name="m" file="{path}"
      scale="{scale} {scale} {scale}"/></asset><worldbody>
      <geom type="plane" size="3 3 .1" euler="10 -20 30"/>
      <body><freejoint/><geom type="mesh" mesh="m" margin="{margin}"/></body></worldbody></mujoco>""")
    md = mujoco.MjData(mm)
    rng = np.random.default_rng(11)
    a = mm.mesh_vertadr[0]
    V = mm.mesh_vert[a:a + mm.mesh_vertnum[0]].astype(float)
    g = mm.mesh_graphadr[0]
    nh = mm.mesh_graph[g]
    hull = mm.mesh_graph[g + 2 + nh:g + 2 + 2 * nh].astype(np.int32)
    dist, pos, frame = np.zeros(8), np.zeros((8, 3)), np.zeros((8, 9))
    sel = np.zeros(8, np.int32)
    nmatch = nsmall = ntot = 0
    for it in range(200):
        q = np.zeros(7)
        q[3:] = _rand_quat(rng)
        md.qpos[:] = q
        mujoco.mj_kinematics(mm, md)
        nrm = md.geom_xmat[0].reshape(3, 3)[:, 2]
        W = md.geom_xpos[1] + V @ md.geom_xmat[1].reshape(3, 3).T
        q[0:3] += nrm * (rng.uniform(-0.3, 1.3) * margin - (W @ nrm).min())
        md.qpos[:] = q
        mujoco.mj_forward(mm, md)
        n = plane_mesh_poly(md.geom_xpos[0], md.geom_xmat[0], md.geom_xpos[1], md.geom_xmat[1], V,
                            hull, int(mm.mesh_polyadr[0]), int(mm.mesh_polynum[0]),
                            mm.mesh_polynormal, mm.mesh_polyvertadr, mm.mesh_polyvertnum,
                            mm.mesh_polyvert, mm.mesh_polymapadr[a:], mm.mesh_polymapnum[a:],
                            mm.mesh_polymap, margin, dist, pos, frame, sel)
        mj = [(c.dist, c.pos.copy(), c.frame[:3].copy()) for c in md.contact[:md.ncon]]
        ok = n == len(mj)
        for k in range(n if ok else 0):
            e = min(mj, key=lambda c: np.abs(c[1] - pos[k]).max())
            ok &= (abs(e[0] - dist[k]) < 1e-9 and np.abs(e[1] - pos[k]).max() < 1e-9
                   and np.abs(e[2] - frame[k, :3]).max() < 1e-9)
        # the deepest vertex's best polygon: exact rule when it has <= 4 vertices
        nl = -(md.geom_xmat[1].reshape(3, 3).T @ nrm)
        dv = hull[np.argmax(V[hull] @ nl)]
        polys = mm.mesh_polymap[mm.mesh_polymapadr[a + dv]:][:mm.mesh_polymapnum[a + dv]]
        kb = polys[np.argmax(mm.mesh_polynormal[polys] @ nl)]
        small = mm.mesh_polyvertnum[kb] <= 4
        if small and mj:
            assert ok, f"{rel} pose {it}: {n} ours {dist[:n]} {pos[:n]} vs mujoco {mj}"
        nsmall += small
        nmatch += ok
        ntot += 1
    # polygons of > 4 vertices: the choice of 4 is approximate (report): most poses still match
    assert nmatch >= 0.85 * ntot, (nmatch, ntot, nsmall)


@pytest.mark.parametrize("rel", ["mujoco/test/engine/testdata/inertia.xml",
                                 "menagerie/shadow_hand/scene_left.xml"])
def test_capsule_pairs_bits_like_mujoco(rel):
    """mujoco 4.0.0's arithmetic for capsule-capsule (segment endpoints and weights in [0, 1]),
    its sphere-sphere (squared reject test, scaling by reciprocal lengths) and mju_makeFrame:
    every capsule-capsule contact over 48 random states equals mujoco's bit for bit, frames
    included. inertia.xml's sibling capsules share an endpoint: the normal is the axes' cross
    product only when the closest points coincide within mjMINVAL, which mujoco's arithmetic
    gives and ours (closest points 1.1e-15 apart) did not: states 17, 33 and 35 had normals
    off by 1.0. Before, 2133 of the census's 2226 capsule-capsule contacts were not bit-equal."""
    mm = mujoco.MjModel.from_xml_path(str(shared_model(rel)))
    n = 0
    for it, a, b in census_states(mm, model_from_mujoco(mm), 48, 3):
        for key, ca in a.items():
            if mm.geom_type[key[0]] != CAPSULE or mm.geom_type[key[1]] != CAPSULE:
                continue
            cb = b.get(key, [])
            assert len(cb) == len(ca), (it, key)
            for x, y in zip(ca, cb):
                assert x["dist"] == y["dist"], (it, key)
                assert np.array_equal(x["pos"], y["pos"]), (it, key)
                assert np.array_equal(x["frame"], y["frame"]), (it, key)
                n += 1
    assert n >= 50, n
