"""Flexes (seed 000 <deformable><flex>, <flexcomp>; seed 001 flex_* / flexedge_* fields): the
compiled fields and the flex kinematics against mujoco 4.0.0 on the flex models of
../shared/models that it loads and on small models of test/models.

Tolerances: integer fields exact; real fields to 1e-12 relative to the field's largest value
(MuJoCo computes them in the same double arithmetic from the same inputs; the residue is the
order of the sums); flex_rgba / flex_texcoord are float32 in mujoco and exact after rounding.
Kinematics (positions, lengths, Jacobians, velocities) to 1e-12 absolute at unit scale.
"""
from pathlib import Path

import numpy as np
import pytest

from oracle import TEST_MODELS, mujoco, shared_model  # noqa: F401

import engine
from engine._layout import MODEL_FIELDS
from compile_corpus import mismatches

# the flex models of ../shared/models that mujoco 4.0.0 loads
LOADED = ["model/flex/basket.xml", "model/flex/flag.xml", "model/flex/floppy.xml",
          "model/flex/jelly.xml", "model/flex/pancake.xml", "model/flex/pinch.xml",
          "model/flex/plate.xml", "model/flex/pulley.xml", "model/flex/trampoline.xml",
          "test/engine/testdata/ray/flex.xml", "test/engine/testdata/sleep/flex_contact.xml",
          "test/engine/testdata/sleep/flex_mocap.xml",
          "test/engine/testdata/sleep/flex_nocnstr.xml",
          "test/engine/testdata/sleep/flex_static.xml"]
# models mujoco 4.0.0 rejects while compiling, with the message we must give too
REJECTED = {
    "model/flex/press.xml": "flex elasticity is no longer integrated implicitly",
    "model/flex/drape.xml": "passive flex contact requires an integrator with the effective",
    "test/engine/testdata/sleep/flex_edge.xml":
        "body 'flex_body' has joints but no flex vertices/nodes are pinned to it",
    "test/engine/testdata/sleep/flex_state.xml":
        "body 'flex_body' has joints but no flex vertices/nodes are pinned to it",
}
OWN = ["flex_direct.xml", "flexcomp_shapes.xml", "flex_cable.xml", "flex_cloth.xml"]
# not built: the engine has no bounding-volume hierarchies (nbvh = 0), so the flexes' offsets
# into MuJoCo's BVH arrays do not exist here
NOT_BUILT = {"flex_bvhadr"}
# Statistics and dof lengths with flexes: MuJoCo 4.0.0 counts the flexes in them (its meansize
# and extent are larger, a ball joint's dof_length reaches a child's flex vertex); not built yet.
_STAT = "flex sizes in the model statistics / dof_length (mj_setConst) are not counted yet"
PENDING = {"stat_meansize": _STAT, "stat_extent": _STAT, "stat_center": _STAT,
           "dof_length": _STAT}
FLEX_FIELDS = [f for f, *_ in MODEL_FIELDS
               if f.startswith(("flex_", "flexedge_")) and f not in NOT_BUILT]
SIZES = ["nflex", "nflexnode", "nflexvert", "nflexedge", "nflexelem", "nflexelemdata",
         "nflexelemedge", "nflexshelldata", "nflexstiffness", "nflexbending", "nflextexcoord",
         "nJfe", "nbody", "njnt", "nq", "nv", "neq"]


def _paths():
    return [(rel, "shared") for rel in LOADED] + [(rel, "own") for rel in OWN]


def _load(rel, where):
    p = shared_model("mujoco/" + rel) if where == "shared" else TEST_MODELS / "flex" / rel
    return mujoco.MjModel.from_xml_path(str(p)), engine.MjModel.from_xml_path(str(p))


def _folded(m):
    """Mask of flex_bending entries that are the cubic coefficient (entry 16 of an edge's 17)
    of an edge folded at rest (mujoco's value nonzero): MuJoCo 4.0.0 no longer computes it as
    the published cubic-shells term dot(n, e2)(a01 - a03)(a04 - a02) k / |e0|^3 that we do
    (measured: its value does not carry the cotangent factor), so these are compared in
    test_folded_bending_term only, as an expected failure."""
    b = np.asarray(m.flex_bending).reshape(-1, 17)
    mask = np.zeros(b.shape, bool)
    mask[:, 16] = b[:, 16] != 0
    return mask.ravel()


def _compare_flex_fields(ours, theirs):
    for k in SIZES:
        assert getattr(ours, k) == getattr(theirs, k), f"mismatch: {k}"
    for f in FLEX_FIELDS:
        y = np.asarray(getattr(theirs, f))
        x = np.asarray(getattr(ours, f)).reshape(y.shape)
        if f == "flex_bending":
            keep = ~_folded(theirs)
            x, y = x[keep], y[keep]
        if y.dtype.kind in "iub":
            np.testing.assert_array_equal(x, y, err_msg=f"mismatch: {f}")
        else:
            y = y.astype(float)
            scale = max(1.0, float(np.abs(y).max())) if y.size else 1.0
            np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-12 * scale,
                                       err_msg=f"mismatch: {f}")


@pytest.mark.parametrize("rel,where", _paths(), ids=[r for r, _ in _paths()])
def test_compiled_flex_fields_match_mujoco(rel, where):
    theirs, ours = _load(rel, where)
    _compare_flex_fields(ours, theirs)
    # the bodies, joints and equalities the flexcomps generated (names, inertia, setconst)
    bad = mismatches(ours, theirs)
    real = [(f, m) for f, m in bad if f not in PENDING]
    assert not real, "\n".join(f"mismatch: {f}: {m}" for f, m in real)
    names = [mujoco.mj_id2name(theirs, mujoco.mjtObj.mjOBJ_FLEX, i) for i in range(theirs.nflex)]
    assert [engine.mj_id2name(ours, engine.mjtObj.mjOBJ_FLEX, i) for i in range(ours.nflex)] \
        == names
    if bad:
        pytest.xfail("; ".join(sorted({PENDING[f] for f, _ in bad})))


@pytest.mark.xfail(strict=True, reason="flex_bending's cubic term on edges folded at rest: "
                   "MuJoCo 4.0.0's formula is not the published one we compute")
def test_folded_bending_term():
    theirs, ours = _load("model/flex/basket.xml", "shared")
    mask = _folded(theirs)
    assert mask.any()
    np.testing.assert_allclose(ours.flex_bending[mask], theirs.flex_bending[mask], rtol=1e-9)


@pytest.mark.parametrize("rel", sorted(REJECTED))
def test_rejected_like_mujoco(rel):
    p = shared_model("mujoco/" + rel)
    with pytest.raises(Exception) as e:
        mujoco.MjModel.from_xml_path(str(p))
    assert REJECTED[rel] in str(e.value)
    with pytest.raises(engine.XMLError, match=REJECTED[rel][:40]):
        engine.MjModel.from_xml_path(str(p))


@pytest.mark.parametrize("xml,what", [
    ('<flexcomp name="f" type="mesh" file="x.obj"/>', "type=\"mesh\""),
    ('<flexcomp name="f" type="grid" count="3 3 3" dof="trilinear"/>', "interpolated flex"),
])
def test_unbuilt_flexcomp_features_raise(xml, what):
    with pytest.raises(NotImplementedError, match=what):
        engine.MjModel.from_xml_string(f"<mujoco><worldbody>{xml}</worldbody></mujoco>")


# skins: an inline skin with bones (mujoco's benchmark flag), an SKN file (dm_control's dog)
SKINS = [("shared", "mujoco/test/benchmark/testdata/flag.xml"), ("dm", "dog.xml")]


@pytest.mark.parametrize("where,rel", SKINS, ids=[r for _, r in SKINS])
def test_compiled_skin_fields_match_mujoco(where, rel):
    """Every skin_* field equal to mujoco's (its float32 values exactly: the same float32
    arithmetic, weights normalized in bone order), except skin_pathadr of a file skin: an
    address into mujoco's paths buffer, which the engine does not keep (-1 here)."""
    from oracle import DM
    p = shared_model(rel) if where == "shared" else Path(DM) / rel
    if not p.exists():
        pytest.skip(f"{p} not present")
    theirs, ours = mujoco.MjModel.from_xml_path(str(p)), engine.MjModel.from_xml_path(str(p))
    for k in ("nskin", "nskinvert", "nskintexvert", "nskinface", "nskinbone", "nskinbonevert"):
        assert getattr(ours, k) == getattr(theirs, k), f"mismatch: {k}"
    assert theirs.nskin > 0
    for f, *_ in MODEL_FIELDS:
        if not f.startswith("skin_") or f == "skin_pathadr":
            continue
        y = np.asarray(getattr(theirs, f)).astype(float)
        np.testing.assert_array_equal(np.asarray(getattr(ours, f)).reshape(y.shape), y,
                                      err_msg=f"mismatch: {f}")
    file_skin = np.array([1 if where == "dm" else 0])
    np.testing.assert_array_equal(theirs.skin_pathadr >= 0, file_skin.astype(bool))


@pytest.mark.parametrize("xml,msg", [
    ('<flexcomp name="f" dim="1" count="3 1 1" spacing=".001 .1 .1"/>',
     "Spacing must be larger than geometry size"),
    ('<flexcomp name="f" dim="4" count="3 1 1" spacing=".1 .1 .1"/>', "Invalid dim"),
    ('<flexcomp name="f" dim="1" count="3 1 1" spacing=".1 .1 .1"><pin grid="0"/></flexcomp>',
     "Pin grid(range) cannot be used with dim=1"),
])
def test_flexcomp_errors_as_mujoco(xml, msg):
    text = f"<mujoco><worldbody>{xml}</worldbody></mujoco>"
    with pytest.raises(Exception, match=msg.replace("(", r"\(").replace(")", r"\)")):
        mujoco.MjModel.from_xml_string(text)
    with pytest.raises(engine.XMLError, match=msg.replace("(", r"\(").replace(")", r"\)")):
        engine.MjModel.from_xml_string(text)


# ---- kinematics --------------------------------------------------------------------------------
KIN = ["model/flex/flag.xml", "model/flex/pulley.xml", "model/flex/floppy.xml",
       "test/engine/testdata/ray/flex.xml", "test/engine/testdata/sleep/flex_static.xml"]


def _kin_cases():
    return [(rel, "shared") for rel in KIN] + [(rel, "own") for rel in OWN]


@pytest.mark.parametrize("rel,where", _kin_cases(), ids=[r for r, _ in _kin_cases()])
def test_flex_kinematics_match_mujoco(rel, where):
    """mj_fwdPosition / mj_fwdVelocity fill flexvert_xpos, flexelem_aabb, flexedge_length,
    flexedge_J and flexedge_velocity as mujoco's, at qpos0 and at random configurations (the
    flex equality rows are not built yet: the equalities are deactivated in both)."""
    theirs, ours = _load(rel, where)
    md, d = mujoco.MjData(theirs), engine.MjData(ours)
    rng = np.random.default_rng(3)
    for trial in range(3):
        qpos = theirs.qpos0.copy()
        if trial:
            qpos += 0.05 * rng.standard_normal(theirs.nq)
            for j in range(theirs.njnt):
                if theirs.jnt_type[j] in (0, 1):   # free / ball: renormalize the quaternion
                    a = theirs.jnt_qposadr[j] + (3 if theirs.jnt_type[j] == 0 else 0)
                    qpos[a:a + 4] /= np.linalg.norm(qpos[a:a + 4])
        qvel = rng.standard_normal(theirs.nv)
        for dd in (md, d):
            dd.qpos[:] = qpos
            dd.qvel[:] = qvel
            dd.eq_active[:] = 0
        mujoco.mj_fwdPosition(theirs, md)
        mujoco.mj_fwdVelocity(theirs, md)
        engine.mj_fwdPosition(ours, d)
        engine.mj_fwdVelocity(ours, d)
        for f in ("flexvert_xpos", "flexelem_aabb", "flexedge_length", "flexedge_J",
                  "flexedge_velocity"):
            np.testing.assert_allclose(getattr(d, f), getattr(md, f), rtol=1e-12, atol=1e-12,
                                       err_msg=f"mismatch: {f} (trial {trial})")


# ---- stepping: edge spring-dampers and the flex edge equality --------------------------------
STEP = ["flex_cable.xml", "flex_cloth.xml"]


def _trajectory(model, data, step, nstep, qvel0):
    data.qvel[:] = qvel0
    out = []
    for _ in range(nstep):
        step(model, data)
        out.append((data.qpos.copy(), data.flexvert_xpos.copy()))
    return out


@pytest.mark.parametrize("rel", STEP)
def test_flex_steps_match_mujoco(rel):
    """100 steps from a random velocity: qpos and flexvert_xpos within a tolerance derived from
    mujoco's own noise floor (its divergence from a 1e-12 perturbation of the start, times 100,
    at least 1e-9)."""
    p = TEST_MODELS / "flex" / rel
    theirs, ours = mujoco.MjModel.from_xml_path(str(p)), engine.MjModel.from_xml_path(str(p))
    qvel0 = 0.3 * np.random.default_rng(5).standard_normal(theirs.nv)
    ref = _trajectory(theirs, mujoco.MjData(theirs), mujoco.mj_step, 100, qvel0)
    noisy = _trajectory(theirs, mujoco.MjData(theirs), mujoco.mj_step, 100, qvel0 + 1e-12)
    got = _trajectory(ours, engine.MjData(ours), engine.mj_step, 100, qvel0)
    noise = max(np.abs(a[0] - b[0]).max() for a, b in zip(ref, noisy))
    tol = max(1e-9, 100 * noise)
    for k, ((q, x), (eq, ex)) in enumerate(zip(ref, got)):
        np.testing.assert_allclose(eq, q, rtol=0, atol=tol, err_msg=f"mismatch: qpos step {k}")
        np.testing.assert_allclose(ex, x, rtol=0, atol=tol,
                                   err_msg=f"mismatch: flexvert_xpos step {k}")


def test_step_rejects_unbuilt_flex_features():
    """mj_step names the flex feature it does not simulate yet (elasticity; the unbuilt flex
    collision routines: test_flex_collision.py)."""
    m = engine.MjModel.from_xml_path(str(shared_model("mujoco/model/flex/floppy.xml")))
    with pytest.raises(NotImplementedError, match="elasticity"):
        engine.mj_step(m, engine.MjData(m))


def test_save_xml_rejects_flex():
    """Saving a model with flexes to XML is not built: it raises rather than write the
    flexcomp's bodies without their flex."""
    m = engine.MjModel.from_xml_path(str(TEST_MODELS / "flex" / "flex_cable.xml"))
    with pytest.raises(NotImplementedError, match="flexes"):
        engine.mj_saveLastXML("/tmp/flex_cable_saved.xml", m)


@pytest.mark.parametrize("integrator", ["implicitfast", "implicit"])
def test_edge_damping_implicit_matches_mujoco(integrator):
    """Flex edge dampers under the implicit integrators: mujoco 4.0.0 applies them as explicit
    forces (no qDeriv term); the cable of flex_cable.xml with strong damping, 100 steps from a
    random velocity, within mujoco's noise floor (as test_flex_steps_match_mujoco)."""
    xml = (TEST_MODELS / "flex" / "flex_cable.xml").read_text()
    xml = xml.replace('integrator="Euler"', f'integrator="{integrator}"')
    xml = xml.replace('damping=".05"', 'damping="2"')
    theirs, ours = mujoco.MjModel.from_xml_string(xml), engine.MjModel.from_xml_string(xml)
    qvel0 = 0.3 * np.random.default_rng(6).standard_normal(theirs.nv)
    md = mujoco.MjData(theirs)
    ref = _trajectory(theirs, md, mujoco.mj_step, 100, qvel0)
    assert not np.asarray(md.qDeriv).any()
    noisy = _trajectory(theirs, mujoco.MjData(theirs), mujoco.mj_step, 100, qvel0 + 1e-12)
    got = _trajectory(ours, engine.MjData(ours), engine.mj_step, 100, qvel0)
    noise = max(np.abs(a[0] - b[0]).max() for a, b in zip(ref, noisy))
    tol = max(1e-9, 100 * noise)
    for k, ((q, _), (eq, _)) in enumerate(zip(ref, got)):
        np.testing.assert_allclose(eq, q, rtol=0, atol=tol, err_msg=f"mismatch: qpos step {k}")
