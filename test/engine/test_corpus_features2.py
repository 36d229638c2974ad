"""Corpus features of MuJoCo 4 (issue 23, second part): each compiled and simulated against
mujoco 4.0.0 on small models written here and on the corpus models they unblocked.

Tolerances: compiled integer fields exact, real fields 1e-12 relative (the mesh vertices are
float32 in both engines: bit-equal); trajectories as stated per test."""
import numpy as np
import pytest

from oracle import mujoco, shared_model

import engine
from test_corpus_features import TESTDATA, assert_same_model, both, run_both


# ---------------------------------------------------------------------------------------------
# <mesh builtin> (mjs_makeMesh): engine/compiler/mesh_builtin.py
# ---------------------------------------------------------------------------------------------

BUILTINS = [("sphere", "0"), ("sphere", "2"), ("sphere", "4"), ("hemisphere", "0"),
            ("hemisphere", "3"), ("cone", "8 0.5"), ("cone", "6 0"),
            ("supersphere", "30 .2 .3"), ("supersphere", "32 .55 .5"),
            ("supertorus", "64 .2 .4 1"), ("supertorus", "12 .5 1 1"),
            ("wedge", "37 37 45 45 0"), ("wedge", "7 5 120 60 0.5"), ("plate", "4 3")]


def _builtin_xml(kind, params, collide=True):
    con = "" if collide else ' contype="0" conaffinity="0"'
    return f"""<mujoco><asset><mesh name="a" builtin="{kind}" params="{params}"
      scale=".3 .4 .5"/></asset><worldbody><geom type="plane" size="2 2 .1"/>
      <body pos="0 0 .6"><freejoint/><geom type="mesh" mesh="a"{con}/></body>
      </worldbody></mujoco>"""


def _tri_set(face):
    """Triangles as a set of vertex triples up to rotation (a hull's faces come in qhull's
    order in mujoco, in the engine's hull order here)."""
    out = set()
    for t in np.asarray(face, int).reshape(-1, 3):
        k = int(np.argmin(t))
        out.add(tuple(np.roll(t, -k)))
    return out


@pytest.mark.parametrize("kind,params", BUILTINS)
def test_builtin_mesh_compiles_as_mujoco(kind, params):
    """Vertices, faces equal (as sets for the point clouds whose faces are their
    hull), mass properties and every compiled field as mujoco's."""
    ours, theirs = both(_builtin_xml(kind, params, collide=kind != "plate"))
    np.testing.assert_array_equal(ours.mesh_vertnum, theirs.mesh_vertnum)
    # the generated vertices are bit-equal floats; mesh_vert is them less the centre of mass,
    # rotated to the principal frame (double arithmetic: rounding-level differences)
    np.testing.assert_allclose(ours.mesh_vert, theirs.mesh_vert, rtol=1e-12, atol=1e-12,
                               err_msg="mismatch: mesh_vert")
    if kind in ("cone", "wedge"):
        assert _tri_set(ours.mesh_face) == _tri_set(theirs.mesh_face), "mismatch: mesh_face"
    else:
        np.testing.assert_array_equal(ours.mesh_face, theirs.mesh_face,
                                      err_msg="mismatch: mesh_face")
    for f in ("body_mass", "body_inertia", "body_ipos", "geom_size", "geom_rbound",
              "mesh_pos", "mesh_quat"):
        np.testing.assert_allclose(getattr(ours, f), getattr(theirs, f), rtol=1e-12,
                                   atol=1e-12, err_msg=f"mismatch: {f}")
    assert_same_model(ours, theirs)


@pytest.mark.parametrize("kind,params", [("supersphere", "20 .3 .4"), ("supertorus", "16 .3 .5 1"),
                                         ("sphere", "1")])
def test_builtin_mesh_falls_on_plane_as_mujoco(kind, params):
    """A builtin mesh body dropped on a plane: 100 steps of qpos/qvel within 1e-9 (mesh-plane
    contacts from the same hull)."""
    ours, theirs = both(_builtin_xml(kind, params))
    run_both(ours, theirs, nstep=100, fields=("qpos", "qvel"), tol=1e-9)


@pytest.mark.parametrize("kind,params,msg", [
    ("sphere", "5", "Sphere subdivision cannot be greater than 4"),
    ("supersphere", "2 .3 .3", "Supersphere resolution must be greater than 2"),
    ("supertorus", "8 1.5 1 1", "Supertorus radius must be in (0, 1]"),
    ("wedge", "3 3 200 45 0", "fov[0] must be a float between (0, 180] degrees"),
    ("plate", "0 3", "Horizontal and vertical resolutions must be positive"),
    ("cone", "8", "Cone mesh type requires 2 parameters")])
def test_builtin_mesh_bad_params_rejected_as_mujoco(kind, params, msg):
    xml = _builtin_xml(kind, params)
    with pytest.raises(ValueError, match=msg.replace("(", r"\(").replace(")", r"\)")
                       .replace("[", r"\[").replace("]", r"\]")):
        mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(Exception, match=msg.replace("(", r"\(").replace(")", r"\)")
                       .replace("[", r"\[").replace("]", r"\]")):
        engine.MjModel.from_xml_string(xml)


@pytest.mark.parametrize("path", ["sensor/rfcamera.xml", "collision_convex/perf/spheremesh.xml"])
def test_builtin_mesh_corpus_models(path):
    """The corpus models that use builtin meshes: compiled as mujoco, 50 steps of qpos within
    1e-6 (spheremesh piles spheres in contact: rounding grows, 1e-6 holds for 50 steps)."""
    ours, theirs = both(TESTDATA + path)
    assert_same_model(ours, theirs)
    run_both(ours, theirs, nstep=50, fields=("qpos",), tol=1e-6)
