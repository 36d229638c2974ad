"""MuJoCo's SDF plugins (seed 002 "sdf"): mujoco.sdf.torus, gear, bowl, nut and bolt on MuJoCo's
own models (model/plugin/sdf), against mujoco 4.0.0.

- Meshes: mujoco builds an sdf plugin's mesh by marching cubes. The engine's vertex and face
  arrays equal mujoco's (same grid, same single-precision field and crossings, so this also
  checks the plugins' distance functions at every grid sample near the surface; the cell table
  measured from mujoco's meshes, engine/compiler/sdf_mc_table.py; the same vertex numbering),
  so masses and inertias agree to rounding (measured max relative: 6.2e-15 mass, 3.1e-15
  inertia, on gear); MASS_RTOL is 1e-12.
- Contacts: gradient descent from Halton points on the same pose; compared as sets with
  tolerances at mujoco's own noise floor (its sensitivity to a 1e-12 change of qpos); box-sdf
  pairs are chaotic in mujoco itself and left out.
"""
from __future__ import annotations

import os

import mujoco
import numpy as np
import pytest

import engine

SDF = "/work/shared/models/mujoco/model/plugin/sdf/"
needs_models = pytest.mark.skipif(not os.path.exists(SDF), reason="MuJoCo's models not found")
PLUGIN_MODELS = ("torus", "gear", "bowl", "nutbolt", "primitives")
MASS_RTOL = 1e-12
# contact tolerances: mujoco's own noise floor (test_sdf_contact_noise_floor): a 1e-12 change
# of qpos moves its sdf contacts by up to 1.5e-8 (nutbolt's finite-difference gradients; 3e-11
# on the torus' analytic one). Measured engine - mujoco: <= 1.1e-15 on torus-torus, torus-
# capsule/cylinder/sphere/ellipsoid pairs, <= 1.2e-8 on nutbolt and bowl (finite differences).
TOL_POS = TOL_N = TOL_D = 1e-7
EDGE_DIST = 1e-7
NOISE = 1e-7


def _load(name):
    return engine.MjModel.from_xml_path(SDF + name + ".xml"), \
        mujoco.MjModel.from_xml_path(SDF + name + ".xml")


@needs_models
@pytest.mark.parametrize("name", PLUGIN_MODELS)
def test_sdf_model_matches_mujoco(name):
    e, m = _load(name)
    # (plugin, the registry slots, differ: each library registers its own plugins)
    for f in ("nplugin", "npluginattr", "plugin_attr", "plugin_attradr", "geom_type",
              "geom_plugin", "geom_dataid", "mesh_vertnum", "mesh_facenum", "mesh_pos",
              "mesh_quat", "mesh_vertadr", "mesh_faceadr", "mesh_vert", "mesh_face"):
        np.testing.assert_array_equal(np.asarray(getattr(e, f)), np.asarray(getattr(m, f)),
                                      err_msg=f)
    for f in ("body_ipos", "body_iquat", "geom_pos", "geom_quat"):
        np.testing.assert_allclose(getattr(e, f), getattr(m, f), atol=1e-12, err_msg=f)
    np.testing.assert_allclose(e.body_mass, m.body_mass, rtol=MASS_RTOL)
    np.testing.assert_allclose(e.body_inertia, m.body_inertia, rtol=MASS_RTOL)
    # geom_aabb / size / rbound come from the vertices: equal up to rounding
    np.testing.assert_allclose(e.geom_aabb, m.geom_aabb, atol=1e-7)
    np.testing.assert_allclose(e.geom_size, m.geom_size, atol=1e-7)
    np.testing.assert_allclose(e.geom_rbound, m.geom_rbound, atol=1e-7)


def test_mc_table_agrees_with_the_rule():
    """Every measured cell entry (sdf_mc_table) has the topology of sdf_mesh's own rule, which
    triangulates the configs mujoco's meshes never showed: the same loops of crossed edges
    (inside corners on an ambiguous face kept apart), each triangle facing outward."""
    from engine.compiler import sdf_mesh as sm
    from engine.compiler.sdf_mc_table import MEASURED

    def loops(tris):
        out = []
        for t in tris:
            s = set(t)
            for g in [g for g in out if g & s]:
                out.remove(g)
                s |= g
            out.append(s)
        return sorted(map(sorted, out))

    def corner(c):
        return np.array([c & 1, (c >> 1) & 1, (c >> 2) & 1], float)
    assert len(MEASURED) >= 228
    for config in MEASURED:
        tris = sm._measured(config)
        assert tris == sm._TABLE[config]
        assert loops(tris) == loops(sm._cell_triangles(config)), config
        for t in tris:
            ends = [sm._EDGES[e] for e in t]
            mid = [(corner(a) + corner(b)) / 2 for a, b in ends]
            normal = np.cross(mid[1] - mid[0], mid[2] - mid[0])
            out = sum(corner(b) - corner(a) if (config >> a) & 1 else corner(a) - corner(b)
                      for a, b in ends)
            assert normal @ out > 0, (config, t)


@pytest.mark.parametrize("kind,config", [
    (0, {"radius1": 0.3, "radius2": 0.02}),
    (1, {"alpha": 0.3, "teeth": 40, "thickness": 0.5, "diameter": 2}),
    (1, {"teeth": 150}),
    (3, {"radius": 0.3})])
def test_sdf_mesh_other_configs(kind, config):
    """Plugin configs of no shipped model (a thin torus, other gears, a wider nut): the mesh
    arrays equal mujoco's, so the cell table and the vertex order are not fitted to the five
    shipped meshes only. The 150-tooth gear has a negative root blend width (the hard minimum,
    engine/plugin/sdf.py _smooth_union: 39192 vertices instead of mujoco's 19820 before)."""
    from sdf_mc_measure import model_xml
    xml = model_xml(kind, config)
    e, m = engine.MjModel.from_xml_string(xml), mujoco.MjModel.from_xml_string(xml)
    for f in ("mesh_vert", "mesh_face"):
        np.testing.assert_array_equal(getattr(e, f), getattr(m, f), err_msg=f)
    np.testing.assert_allclose(e.body_mass, m.body_mass, rtol=MASS_RTOL)
    np.testing.assert_allclose(e.body_inertia, m.body_inertia, rtol=MASS_RTOL)


@needs_models
def test_sdf_plugin_callbacks():
    """The registered plugins' Python callbacks (sdf_distance, sdf_gradient, sdf_aabb): the
    torus' closed form and its analytic gradient against central differences."""
    from engine.plugin.registry import mjp_getPlugin
    p, slot = mjp_getPlugin("mujoco.sdf.torus")
    assert slot >= 0 and p.capabilities == engine.mjtPluginCapabilityBit.mjPLUGIN_SDF
    attr = np.array([0.35, 0.15, 0, 0, 0])
    aabb = np.zeros(6)
    p.sdf_aabb(aabb, attr)
    np.testing.assert_allclose(aabb, [0, 0, 0, 0.5, 0.5, 0.15])
    rng = np.random.default_rng(1)
    for x in rng.uniform(-0.6, 0.6, (20, 3)):
        q = np.hypot(x[0], x[1]) - 0.35
        assert abs(p.sdf_staticdistance(x, attr) - (np.hypot(q, x[2]) - 0.15)) < 1e-15
        g = np.zeros(3)
        d = type("D", (), {"plugin_data": [attr]})()
        p.sdf_gradient(g, x, d, 0)
        h = 1e-6
        num = [(p.sdf_staticdistance(x + h * e, attr) - p.sdf_staticdistance(x - h * e, attr))
               / (2 * h) for e in np.eye(3)]
        np.testing.assert_allclose(g, num, atol=1e-8)


def _contacts(lib, m, d):
    out = []
    for i in range(d.ncon):
        c = d.contact[i]
        if m.geom_type[c.geom1] == 8 or m.geom_type[c.geom2] == 8:
            out.append((int(c.geom1), int(c.geom2), float(c.dist), np.array(c.pos),
                        np.array(c.frame[:3])))
    return out


def _match(a, b, tol_pos, tol_n, tol_d, edge=EDGE_DIST):
    """One-to-one matching of contact lists (same geoms, close pos/normal/dist). A contact
    with |dist| <= ``edge`` may be missing from the other list: a descent that ends on the
    surface is kept or not by the sign of a rounding error (mujoco itself gains or loses such
    a contact under a 1e-12 change of qpos)."""
    left = list(b)
    for g1, g2, dist, pos, n in a:
        best = None
        for j, (h1, h2, d2, p2, n2) in enumerate(left):
            if (h1, h2) != (g1, g2):
                continue
            if (np.abs(p2 - pos).max() <= tol_pos and np.abs(n2 - n).max() <= tol_n
                    and abs(d2 - dist) <= tol_d):
                best = j
                break
        if best is None:
            assert abs(dist) <= edge, f"no mujoco contact matches {(g1, g2, dist, pos, n)}"
            continue
        left.pop(best)
    rest = [c for c in left if abs(c[2]) > edge]
    assert not rest, f"mujoco contacts not found in the engine's: {rest}"


def _synced_state(name, nstep):
    """mujoco stepped ``nstep`` steps, and an engine model/data set to its state."""
    e, m = _load(name)
    md = mujoco.MjData(m)
    for _ in range(nstep):
        mujoco.mj_step(m, md)
    ed = engine.MjData(e)
    ed.qpos[:] = md.qpos
    ed.qvel[:] = md.qvel
    mujoco.mj_forward(m, md)
    engine.mj_forward(e, ed)
    return e, ed, m, md




# box-sdf pairs are left out: their descents are chaotic (the box gradient switches faces), so
# mujoco's own box-sdf contacts change under a 1e-12 change of qpos (measured on primitives.xml
# after 300 steps: a contact of depth 1e-4 moves away); every other pair is compared
BOX = 6


@needs_models
@pytest.mark.parametrize("name,nstep", [
    ("torus", 300), ("torus", 800), ("nutbolt", 300), ("bowl", 500), ("primitives", 300),
    ("primitives", 800)])
def test_sdf_contacts_match_mujoco(name, nstep):
    e, ed, m, md = _synced_state(name, nstep)
    ours = [c for c in _contacts(engine, e, ed) if e.geom_type[c[0]] != BOX]
    theirs = [c for c in _contacts(mujoco, m, md) if m.geom_type[c[0]] != BOX]
    assert theirs
    _match(ours, theirs, TOL_POS, TOL_N, TOL_D)


# (not primitives.xml: its box-sdf contacts are chaotic, see BOX)
@needs_models
@pytest.mark.parametrize("name", ("torus", "nutbolt"))
def test_sdf_contact_noise_floor(name):
    """The tolerance above against mujoco's sensitivity: a 1e-12 qpos change moves its sdf
    contacts by less than TOL (the gradient descent is a smooth map of the pose, with a fixed
    number of steps), so an engine contact farther off is a real difference."""
    m = mujoco.MjModel.from_xml_path(SDF + name + ".xml")
    d = mujoco.MjData(m)
    for _ in range(300):
        mujoco.mj_step(m, d)
    mujoco.mj_forward(m, d)
    a = _contacts(mujoco, m, d)
    d.qpos[:] += 1e-12
    mujoco.mj_forward(m, d)
    b = _contacts(mujoco, m, d)
    _match(a, b, NOISE, NOISE, NOISE, edge=NOISE)


@needs_models
@pytest.mark.parametrize("name,tol", [("primitives", 1e-12), ("torus", 1e-12), ("bowl", 1e-12),
                                      ("gear", 1e-12), ("nutbolt", None)])
def test_sdf_step_matches_mujoco(name, tol):
    """qpos after 100 steps from the model's initial state (measured engine - mujoco:
    primitives 2.7e-14, torus 5.6e-14, bowl and gear 0). nutbolt's thread contacts make it
    chaotic: mujoco itself moves by 7.0e-5 after 100 steps when its initial qpos changes by
    1e-12 (the engine is 7.9e-5 from it, and within 1.5x of that noise at every 10th step), so
    it is held to 3x mujoco's own spread."""
    e, m = _load(name)
    ed, md = engine.MjData(e), mujoco.MjData(m)
    md2 = mujoco.MjData(m)
    md2.qpos[:] = md.qpos + 1e-12
    for _ in range(100):
        engine.mj_step(e, ed)
        mujoco.mj_step(m, md)
        if tol is None:
            mujoco.mj_step(m, md2)
    if tol is None:
        tol = 3 * np.abs(md2.qpos - md.qpos).max()
    np.testing.assert_allclose(ed.qpos, md.qpos, atol=tol)


@needs_models
@pytest.mark.parametrize("name", ("mesh", "cow"))
def test_sdf_pairs_not_built_raise(name):
    """mesh-sdf pairs (mjc_MeshSDF) and sdf geoms made from a mesh file (no plugin) are not
    built: stepping into such a contact raises NotImplementedError naming the sdf geom."""
    e, _ = _load(name)
    d = engine.MjData(e)
    with pytest.raises(NotImplementedError, match="sdf geom"):
        for _ in range(3000):
            engine.mj_step(e, d)


@needs_models
@pytest.mark.parametrize("name,nstep", [("primitives", 300), ("torus", 300), ("nutbolt", 300)])
def test_geom_distance_sdf_matches_mujoco(name, nstep):
    """mj_geomDistance on every pair with an sdf geom, distmax 10: mujoco runs the pair's
    narrow phase (mjc_SDF keeps only points at distance <= 0, so separated pairs give distmax).
    Measured engine - mujoco: distance <= 9.4e-16 and fromto <= 1.9e-15 (analytic gradients),
    2.0e-9 (nutbolt's finite differences). Left out: box-sdf pairs (chaotic, see BOX). Plane
    pairs are compared by distance only: several of the plane routine's contacts can tie for
    the deepest (the bolt head's flat face), and mujoco and the engine list them in other
    orders, so fromto may pick another of the tied points."""
    e, ed, m, md = _synced_state(name, nstep)
    fe, fm = np.zeros(6), np.zeros(6)
    below = 0
    for g1 in range(m.ngeom):
        for g2 in range(m.ngeom):
            types = (m.geom_type[g1], m.geom_type[g2])
            if g1 == g2 or 8 not in types or BOX in types:
                continue
            x = mujoco.mj_geomDistance(m, md, g1, g2, 10.0, fm)
            y = engine.mj_geomDistance(e, ed, g1, g2, 10.0, fe)
            assert abs(x - y) <= TOL_D, (g1, g2, x, y)
            below += x < 10.0
            if 0 not in types:
                np.testing.assert_allclose(fe, fm, atol=TOL_POS, err_msg=f"fromto {g1} {g2}")
    assert below >= 6


@needs_models
def test_geom_distance_mesh_sdf_raises():
    """sdf geoms from mesh files (cow.xml) are not built: mj_geomDistance names the geom."""
    e = engine.MjModel.from_xml_path(SDF + "cow.xml")
    ed = engine.MjData(e)
    engine.mj_kinematics(e, ed)
    g = engine.mj_name2id(e, engine.mjtObj.mjOBJ_GEOM, "cow1")
    with pytest.raises(NotImplementedError, match=f"sdf geom {g}"):
        engine.mj_geomDistance(e, ed, 0, g, 10.0)


@pytest.mark.parametrize("initpoints", [5, 40, 80])
def test_max_contact_sdf_pairs(initpoints):
    """mj_maxContact of an sdf geom against every geom type, and for each has_margin; mujoco
    4.0.0's bound depends on opt.sdf_initpoints (capped at 50)."""
    types = ["plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh"]
    xml = (f'<mujoco><option sdf_initpoints="{initpoints}"/><extension><plugin '
           'plugin="mujoco.sdf.torus"><instance name="t"/></plugin></extension><asset><mesh '
           'name="t"><plugin instance="t"/></mesh><mesh name="m" vertex="0 0 0 1 0 0 0 1 0 0 0 '
           '1"/><hfield name="h" nrow="2" ncol="2" size="1 1 1 1"/></asset><worldbody>'
           '<geom type="sdf" mesh="t"><plugin instance="t"/></geom>')
    for t in types:
        extra = {"mesh": 'mesh="m"', "hfield": 'hfield="h"'}.get(t, "")
        xml += f'<geom type="{t}" size=".1 .1 .1" {extra}/>'
    xml += '<geom type="sdf" mesh="t" margin=".1"><plugin instance="t"/></geom></worldbody></mujoco>'
    e, m = engine.MjModel.from_xml_string(xml), mujoco.MjModel.from_xml_string(xml)
    for i in range(m.ngeom):
        for j in range(m.ngeom):
            if 8 not in (m.geom_type[i], m.geom_type[j]):
                continue
            for hm in (-1, 0, 1):
                assert engine.mj_maxContact(e, i, j, hm) == mujoco.mj_maxContact(m, i, j, hm), \
                    (i, j, hm)


def test_distance_sensors_on_sdf_match_mujoco():
    """<distance>, <normal> and <fromto> sensors between a torus sdf and a sphere falling through
    its tube (no contacts), a capsule and an ellipsoid overlapping its rim (box-sdf pairs are chaotic in mujoco itself, see above) (engine.sensor computes
    them with the sdf pairs' narrow phase, as mj_geomDistance): sensordata against mujoco 4.0.0
    every step. Tolerance 1e-9: the torus' gradient descent agrees to ~1e-15 on the same pose,
    the trajectories (no contact with the sensor-only geoms) to ~1e-14."""
    xml = """<mujoco><extension><plugin plugin="mujoco.sdf.torus"><instance name="t">
      <config key="radius1" value="0.35"/><config key="radius2" value="0.15"/></instance>
      </plugin></extension>
      <asset><mesh name="t"><plugin instance="t"/></mesh></asset>
      <worldbody>
        <body name="torus" pos="0 0 0.3" euler="20 10 0">
          <geom name="torus" type="sdf" mesh="t" contype="0" conaffinity="0">
            <plugin instance="t"/></geom></body>
        <body name="ball" pos="0.36 0.02 0.8"><freejoint/>
          <geom name="ball" size="0.08" contype="0" conaffinity="0"/></body>
        <geom name="cap" type="capsule" size="0.05 0.2" pos="0.62 0 0.3" euler="0 90 0"/>
        <geom name="ell" type="ellipsoid" size="0.1 0.08 0.06" pos="0 -0.4 0.3"/>
      </worldbody>
      <sensor>
        <distance geom1="torus" geom2="ball" cutoff="2"/>
        <normal geom1="ball" geom2="torus" cutoff="2"/>
        <fromto geom1="torus" geom2="ball" cutoff="2"/>
        <distance geom1="cap" geom2="torus" cutoff="2"/>
        <fromto body1="torus" geom2="ell" cutoff="2"/>
      </sensor></mujoco>"""
    e, m = engine.MjModel.from_xml_string(xml), mujoco.MjModel.from_xml_string(xml)
    ed, md = engine.MjData(e), mujoco.MjData(m)
    worst, seen = 0.0, []
    for _ in range(150):
        engine.mj_step(e, ed)
        mujoco.mj_step(m, md)
        worst = max(worst, float(np.abs(ed.sensordata - md.sensordata).max()))
        seen.append(md.sensordata.copy())
    seen = np.array(seen)
    # mujoco's sdf distance keeps only penetrating points: the ball's reads below the cutoff
    # while it passes through the tube, the capsule's and box's all along
    assert (seen[:, 0] < 0).any() and (seen[:, 0] == 2).any()
    assert (seen[:, 10] < 0).all() and np.abs(seen[:, 11:17]).max() > 0
    assert worst < 1e-9, worst
