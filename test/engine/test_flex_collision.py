"""Flex collisions (seed 000 <flex><contact>; seed 001 "Deformable objects", "Contacts") against
mujoco 4.0.0: the contacts of flex vertices and elements with geoms compared as sets, their
constraint rows, and trajectories of flex models with contacts.

Tolerances. Contacts: the same set of (geom, flex, elem, vert) ids; dist, pos, frame to 1e-12
(the same closed-form arithmetic on the same poses), integer fields and parameters exact.
Constraint forces and accelerations after mj_forward from mujoco's state: 1e-9 relative to the
field's scale (the solvers iterate to a tolerance). Trajectories: qpos and flexvert_xpos within
100 times mujoco's own noise floor (its divergence from a 1e-12 change of the start velocity
over the same steps), at least 1e-9.
"""
import numpy as np
import pytest

from oracle import TEST_MODELS, mujoco, shared_model  # noqa: F401

import engine

FLEX = TEST_MODELS / "flex"
# (model, where, steps before the contact comparison)
CONTACT_CASES = [
    ("flex_contact_cable.xml", "own", 120),     # plane-vertex, sphere / capsule - capsule elem
    ("flex_contact_cloth.xml", "own", 90),      # plane-vertex, sphere-triangle
    ("model/flex/pinch.xml", "shared", 150),    # 81 plane-vertex contacts of one flex
    ("test/engine/testdata/sleep/flex_mocap.xml", "shared", 20),  # a mocap sphere on a cable
]
# (model, where, steps): trajectories that mujoco 4.0.0 and the engine both step
STEP_CASES = [
    ("flex_contact_cable.xml", "own", 300),
    ("flex_contact_cloth.xml", "own", 300),
    ("model/flex/pinch.xml", "shared", 300),
    ("model/flex/pulley.xml", "shared", 200),   # cable near cylinders: no contact
    # sleep enabled: flexes fall asleep on the floor, a ball wakes one (flex_contact), a static
    # sphere touches one (flex_static), a mocap sphere (flex_mocap)
    ("test/engine/testdata/sleep/flex_mocap.xml", "shared", 300),
    ("test/engine/testdata/sleep/flex_contact.xml", "shared", 300),
    ("test/engine/testdata/sleep/flex_static.xml", "shared", 300),
    # edge damping under implicitfast, no constraints, sleep
    ("test/engine/testdata/sleep/flex_nocnstr.xml", "shared", 300),
]


def _path(rel, where):
    return str(FLEX / rel if where == "own" else shared_model("mujoco/" + rel))


def _load(rel, where):
    p = _path(rel, where)
    return mujoco.MjModel.from_xml_path(p), engine.MjModel.from_xml_path(p)


def _key(c):
    return (int(c.geom[0]), int(c.geom[1]), int(c.flex[0]), int(c.flex[1]), int(c.elem[0]),
            int(c.elem[1]), int(c.vert[0]), int(c.vert[1]))


def _contacts(d, ncon):
    out = {}
    for i in range(ncon):
        c = d.contact[i]
        out.setdefault(_key(c), []).append(c)
    return out


@pytest.mark.parametrize("rel,where,nstep", CONTACT_CASES, ids=[c[0] for c in CONTACT_CASES])
def test_flex_contacts_match_mujoco(rel, where, nstep):
    """From mujoco's state after nstep steps: the same contacts (ids as a set and in order,
    geometry to 1e-12, parameters exact) and the same constraint solution."""
    theirs, ours = _load(rel, where)
    md, d = mujoco.MjData(theirs), engine.MjData(ours)
    mujoco.mj_step(theirs, md, nstep)
    d.qpos[:], d.qvel[:] = md.qpos, md.qvel
    d.mocap_pos[:], d.mocap_quat[:] = md.mocap_pos, md.mocap_quat
    d.qacc_warmstart[:] = md.qacc_warmstart
    d.time = md.time
    mujoco.mj_forward(theirs, md)
    engine.mj_forward(ours, d)
    assert md.ncon > 0
    assert d.ncon == md.ncon
    a, b = _contacts(md, md.ncon), _contacts(d, d.ncon)
    assert a.keys() == b.keys()
    # and in mujoco's order (its bodyflex pairs by signature, then geom and element / vertex)
    assert [_key(md.contact[i]) for i in range(md.ncon)] == \
        [_key(d.contact[i]) for i in range(d.ncon)]
    nflex = 0
    for k in a:
        assert len(a[k]) == len(b[k]), f"mismatch: contacts of {k}"
        for x, y in zip(a[k], b[k]):
            nflex += k[3] >= 0
            for f in ("dist", "pos", "frame"):
                np.testing.assert_allclose(getattr(y, f), getattr(x, f), rtol=0, atol=1e-12,
                                           err_msg=f"mismatch: contact {f} of {k}")
            for f in ("dim", "exclude", "includemargin", "friction", "solref", "solimp",
                      "solreffriction"):
                np.testing.assert_array_equal(getattr(y, f), getattr(x, f),
                                              err_msg=f"mismatch: contact {f} of {k}")
    assert nflex > 0
    assert d.nefc == md.nefc
    for f in ("efc_pos", "efc_R", "efc_aref", "efc_force", "qfrc_constraint", "qacc"):
        x, y = np.asarray(getattr(md, f)), np.asarray(getattr(d, f))
        scale = max(1.0, float(np.abs(x).max()))
        np.testing.assert_allclose(y, x, rtol=0, atol=1e-9 * scale, err_msg=f"mismatch: {f}")


def _trajectory(model, data, step, nstep, dq):
    data.qvel[:] += dq
    out = []
    for _ in range(nstep):
        step(model, data)
        out.append((data.qpos.copy(), data.flexvert_xpos.copy(), data.ncon,
                    data.tree_asleep.copy()))
    return out


@pytest.mark.parametrize("rel,where,nstep", STEP_CASES, ids=[c[0] for c in STEP_CASES])
def test_flex_collision_steps_match_mujoco(rel, where, nstep):
    theirs, ours = _load(rel, where)
    ref = _trajectory(theirs, mujoco.MjData(theirs), mujoco.mj_step, nstep, 0.0)
    noisy = _trajectory(theirs, mujoco.MjData(theirs), mujoco.mj_step, nstep, 1e-12)
    got = _trajectory(ours, engine.MjData(ours), engine.mj_step, nstep, 0.0)
    noise = max(max(np.abs(a[0] - b[0]).max(), np.abs(a[1] - b[1]).max())
                for a, b in zip(ref, noisy))
    tol = max(1e-9, 100 * noise)
    for k, ((q, x, n, t), (eq, ex, en, et)) in enumerate(zip(ref, got)):
        assert en == n, f"mismatch: ncon step {k}"
        np.testing.assert_array_equal(et, t, err_msg=f"mismatch: tree_asleep step {k}")
        np.testing.assert_allclose(eq, q, rtol=0, atol=tol, err_msg=f"mismatch: qpos step {k}")
        np.testing.assert_allclose(ex, x, rtol=0, atol=tol,
                                   err_msg=f"mismatch: flexvert_xpos step {k}")


_CYL = """<mujoco><option timestep="0.002"/><worldbody>
  <geom type="cylinder" size=".1 .05" pos="0 0 .05"/>
  <body name="c" pos="-.12 -.12 .12"><flexcomp name="cloth" type="grid" dim="2" count="5 5 1"
     spacing=".06 .06 .06" radius=".005" mass=".1"><edge equality="true"/>
     <contact selfcollide="none"/></flexcomp></body></worldbody></mujoco>"""


def test_unbuilt_element_collider_raises():
    """A cylinder near a cloth needs MuJoCo's convex element collider (not built): mj_step names
    it once an element is within the cylinder's bounding sphere."""
    m = engine.MjModel.from_xml_string(_CYL)
    d = engine.MjData(m)
    with pytest.raises(NotImplementedError, match="cylinder.*dim-2 flex element"):
        for _ in range(500):
            engine.mj_step(m, d)
