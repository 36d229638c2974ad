"""Mesh normals and texture coordinates (engine/compiler/mesh_normals.py) against mujoco 4.0.0:
mesh_normal, mesh_normaladr/num, mesh_texcoord, mesh_texcoordadr/num, mesh_facenormal and
mesh_facetexcoord of the same model compiled by both.

Tolerances: integer fields exact; mesh_normal and mesh_texcoord (float32 in both) to 1e-12
absolute, i.e. equal up to the float32 rounding of components that are mathematically zero (the
principal frame's rotation differs from mujoco's in the last bits, measured up to 2.3e-10 on one
vertex of the Barkour's 8949-vertex leg mesh); the meshes here are bit-exact.

Meshes given as point clouds (no faces) take the faces of their hull graph, as mujoco does.
"""
import struct

import numpy as np
import pytest

from oracle import mujoco, mujoco_model_or_skip, shared_model

import engine

FIELDS = ("mesh_normaladr", "mesh_normalnum", "mesh_normal", "mesh_texcoordadr",
          "mesh_texcoordnum", "mesh_texcoord", "mesh_facenormal", "mesh_facetexcoord")

# a closed mesh with sharp edges (a box with a tilted top) plus a cone apex: vertices whose
# faces meet at more and less than the 0.8 dot-product cutoff
_VERT = "0 0 0  1 0 0  1 1 0  0 1 0  0 0 1  1 0 1.2  1 1 1.4  0 1 1  .5 .5 2"
_FACE = ("0 2 1  0 3 2  0 1 5  0 5 4  1 2 6  1 6 5  2 3 7  2 7 6  3 0 4  3 4 7  "
         "4 5 8  5 6 8  6 7 8  7 4 8")


def _model(mesh_attrs, assets="", tmp=None):
    xml = f"""<mujoco><compiler meshdir="{tmp or '.'}"/><asset>{assets}
      <mesh name="m" {mesh_attrs}/></asset>
      <worldbody><body><freejoint/><geom type="mesh" mesh="m"/></body></worldbody></mujoco>"""
    return xml


def assert_fields_equal(m, mm, fields=FIELDS):
    for f in fields:
        x, y = np.asarray(getattr(m, f)), getattr(mm, f)
        assert x.shape == y.shape, f"mismatch: {f} shape {x.shape} vs {y.shape}"
        if y.dtype.kind in "iu":
            np.testing.assert_array_equal(x, y, err_msg=f"mismatch: {f}")
        else:
            np.testing.assert_allclose(x, y, rtol=0, atol=1e-12, err_msg=f"mismatch: {f}")


def both(xml):
    return engine.MjModel.from_xml_string(xml), mujoco.MjModel.from_xml_string(xml)


@pytest.mark.parametrize("attrs", [
    "", 'smoothnormal="true"', 'scale="2 .5 1"', 'scale="-1 1 1"',
    'refquat="0.9 0.1 -0.3 0.2" refpos=".1 0 .2"', 'scale=".001 .002 .001" smoothnormal="true"',
    'inertia="shell"'])
def test_computed_normals_inline(attrs):
    """Normals mujoco computes (no normals given): area-weighted, sharp edges (dot < 0.8) kept
    sharp unless smoothnormal, then moved by refquat, 1/scale and the principal frame."""
    m, mm = both(_model(f'vertex="{_VERT}" face="{_FACE}" {attrs}'))
    assert mm.nmeshnormal == 9
    assert_fields_equal(m, mm)


def test_given_normals_and_texcoords_inline():
    """The <mesh>'s own normal (one per vertex) and texcoord: kept, moved to the mesh frame,
    mesh_facetexcoord the faces."""
    rng = np.random.default_rng(3)
    nrm = " ".join(map(repr, rng.normal(size=27).round(3).tolist()))
    tex = " ".join(map(repr, rng.uniform(size=18).round(3).tolist()))
    m, mm = both(_model(f'vertex="{_VERT}" face="{_FACE}" normal="{nrm}" texcoord="{tex}" '
                        'refquat="1 .2 0 .1" scale="1 2 3"'))
    assert mm.nmeshtexcoord == 9
    assert_fields_equal(m, mm)


def test_point_cloud():
    """No faces: the faces of the hull graph (qhull's order), normals computed on them."""
    m, mm = both(_model(f'vertex="{_VERT}" scale="1 .5 2"'))
    assert_fields_equal(m, mm, FIELDS + ("mesh_face", "mesh_vert"))


def _stl(path, tris):
    with open(path, "wb") as f:
        f.write(b"\0" * 80 + struct.pack("<I", len(tris)))
        for t in tris:
            f.write(struct.pack("<12fH", 0, 0, 0, *np.asarray(t, np.float32).ravel(), 0))


def test_stl_degenerate_and_double_sided(tmp_path):
    """A binary STL (vertices welded) with a sliver face (|cross| < 1e-7 weighs nothing: mujoco's
    mjuu_normvec) and a double-sided fin whose sums cancel to the +z fallback."""
    v = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], float)
    tris = [v[[0, 2, 1]], v[[0, 1, 3]], v[[1, 2, 3]], v[[0, 3, 2]]]
    sliver = np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5 + 1e-8, 0.5, 0.5]])
    fin = np.array([[0.2, 0.2, 0.1], [0.4, 0.2, 0.1], [0.3, 0.2, 0.3]])
    tris += [sliver, fin, fin[[0, 2, 1]]]
    _stl(tmp_path / "a.stl", tris)
    m, mm = both(_model('file="a.stl" inertia="shell"', tmp=tmp_path))
    assert_fields_equal(m, mm)


def test_obj_normals_texcoords(tmp_path):
    """An OBJ with vn / vt streams and a quad: the file's normals with their own indices, the
    texture v flipped to 1 - v, under a mirroring scale."""
    (tmp_path / "a.obj").write_text(
        "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv .5 .5 1\n"
        "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvt .5 .25\n"
        "vn 0 0 -1\nvn 1 0 1\nvn 0 1 1\nvn -1 0 1\nvn 0 -1 1\n"
        "f 1/1/1 4/4/1 3/3/1 2/2/1\nf 1/1/5 2/2/5 5/5/5\nf 2/2/2 3/3/2 5/5/2\n"
        "f 3/3/3 4/4/3 5/5/3\nf 4/4/4 1/1/4 5/5/4\n")
    for attrs in ('file="a.obj"', 'file="a.obj" scale="1 -1 2"'):
        m, mm = both(_model(attrs, tmp=tmp_path))
        assert mm.nmeshnormal == 5 and mm.nmeshtexcoord == 5
        assert_fields_equal(m, mm)


@pytest.mark.parametrize("rel", ["menagerie/wonik_allegro/right_hand.xml",
                                 "menagerie/agility_cassie/cassie.xml"])
def test_menagerie(rel):
    """STL meshes (computed normals, welded vertices) and OBJ meshes with normals and texture
    coordinates, as mujoco compiles them."""
    mm = mujoco_model_or_skip(shared_model(rel))
    assert_fields_equal(engine.MjModel.from_xml_path(str(shared_model(rel))), mm)


def test_stl_mirrored(tmp_path):
    """A file's faces are swapped by the loader before the normals are made (a <mesh face>'s
    after): the same mesh as a file under a mirroring scale."""
    v = np.array(_VERT.split(), float).reshape(-1, 3)
    f = np.array(_FACE.split(), int).reshape(-1, 3)
    _stl(tmp_path / "b.stl", [v[t] for t in f])
    m, mm = both(_model('file="b.stl" scale="-1 1 1"', tmp=tmp_path))
    assert_fields_equal(m, mm)


def test_mjb_of_visual_meshes_loads_in_mujoco_equal(tmp_path):
    """A model with visual meshes (inline with faces and normals, STL, OBJ with texture
    coordinates) compiled by the engine, saved as MJB: mujoco 4.0.0 loads it with every array
    equal to its own compile (integers exact, reals 1e-12)."""
    v = np.array(_VERT.split(), float).reshape(-1, 3)
    f = np.array(_FACE.split(), int).reshape(-1, 3)
    _stl(tmp_path / "b.stl", [v[t] for t in f])
    (tmp_path / "a.obj").write_text(
        "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv .5 .5 1\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n"
        "f 1/1 4/4 3/3 2/2\nf 1/1 2/2 5/3\nf 2/2 3/3 5/4\nf 3/3 4/4 5/1\nf 4/4 1/1 5/2\n")
    xml = f"""<mujoco><compiler meshdir="{tmp_path}"/><asset>
      <mesh name="i" vertex="{_VERT}" face="{_FACE}" scale="1 2 1" smoothnormal="true"/>
      <mesh name="s" file="b.stl" refquat="1 0 .3 0"/><mesh name="o" file="a.obj"/></asset>
      <worldbody><body><freejoint/>
        <geom type="mesh" mesh="i" contype="0" conaffinity="0"/>
        <geom type="mesh" mesh="s" contype="0" conaffinity="0"/>
        <geom type="mesh" mesh="o" contype="0" conaffinity="0"/>
      </body></worldbody></mujoco>"""
    (tmp_path / "m.xml").write_text(xml)
    mm = mujoco.MjModel.from_xml_path(str(tmp_path / "m.xml"))
    engine.mj_saveModel(engine.MjModel.from_xml_path(str(tmp_path / "m.xml")),
                        str(tmp_path / "e.mjb"))
    from test_save_mjb import assert_arrays_equal
    assert_arrays_equal(mujoco.MjModel.from_binary_path(str(tmp_path / "e.mjb")), mm)
